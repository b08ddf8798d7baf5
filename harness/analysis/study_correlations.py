"""The report's correlations between implementations, computed in this process or, on a
large run with workers, in a worker process while this one judges the pairs and their gaps.

Either way the numbers are the same: the same functions of :mod:`harness.statistics` on the
same score vectors, with BLAS on one thread in both processes
(:mod:`harness.statistics.blas`). Only the score vectors travel to the worker; the
typed tables come back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from harness.analysis.pivot import from_results
from harness.analysis.study_types import (
    Correlations,
    CorrelationTable,
    LevelCorrelations,
)
from harness.analysis.why import Why
from harness.progress import ProgressCallback, track
from harness.run.results import Results
from harness.session import Session
from harness.session.parallel import portable_call, process_pool, resolve_jobs
from harness.statistics import correlation_cells
from harness.typed_json import from_json, to_json

__all__ = [
    "CORRELATION_METHODS",
    "IN_WORKER_FROM",
    "CorrelationInputs",
    "correlation_inputs",
    "correlation_tables",
    "correlations_later",
]

#: Score values (every implementation's, both levels) from which a run with workers
#: computes its correlations in one: below it, a worker's start and its import of scipy
#: cost more than the matrices.
IN_WORKER_FROM = 200_000

#: The coefficients of every level's matrices.
CORRELATION_METHODS: tuple[str, ...] = ("pearson", "kendall")

LEVELS = ("segment", "corpus")


@dataclass(frozen=True)
class CorrelationInputs:
    """Per level with two or more usable implementations: the aligned keys, the rows
    skipped, and each implementation's scores; ``notes`` say why a level has none."""

    levels: Mapping[str, tuple[int, int, Mapping[str, Sequence[float | None]]]]
    notes: tuple[Why, ...]

    @property
    def computed(self) -> list[str]:
        """The levels whose matrices are computed, in report order."""
        return [lv for lv in LEVELS if lv in self.levels]

    @property
    def size(self) -> int:
        """How many score values the matrices read."""
        return sum(len(v) for _, _, usable in self.levels.values() for v in usable.values())


def _two_scores(values: Sequence[float | None]) -> bool:
    """Whether two or more of ``values`` are scores (not ``None``)."""
    found = 0
    for x in values:
        if x is not None:
            found += 1
            if found == 2:
                return True
    return False


def correlation_inputs(rows: Results) -> CorrelationInputs:
    """What the correlations of ``rows`` read: the implementations with two or more scores at
    each level, aligned."""
    levels = {}
    notes = []
    for level in LEVELS:
        pivot = from_results(rows, level)
        usable = {k: v for k, v in pivot.scores.items() if _two_scores(v)}
        if len(usable) < 2:
            notes.append(Why("too-few-scores", (level,)))
            continue
        levels[level] = (len(pivot.keys), pivot.n_skipped, usable)
    return CorrelationInputs(levels, tuple(notes))


def correlation_tables(
    inputs: CorrelationInputs,
    seed: int,
    n_boot: int,
    progress: ProgressCallback | None = None,
) -> Correlations:
    """Per level, the :data:`CORRELATION_METHODS` matrices (``n_boot`` bootstrap resamples,
    ``seed``)."""
    done: dict[str, LevelCorrelations] = {}
    for level in track(inputs.computed, progress, "report: correlations"):
        n_keys, n_skipped, usable = inputs.levels[level]
        matrices = {
            method: from_json(
                CorrelationTable,
                to_json(
                    correlation_cells.correlation_matrix(
                        usable, method, n_boot=n_boot, seed=seed, progress=progress
                    )
                ),
                f"correlations.{level}.{method}",
            )
            for method in CORRELATION_METHODS
        }
        done[level] = LevelCorrelations(n_keys, n_skipped, matrices)
    return Correlations(done.get("segment"), done.get("corpus"), inputs.notes)


def correlations_later(
    stack: contextlib.ExitStack,
    session: Session,
    rows: Results,
    seed: int,
    n_boot: int,
    progress: ProgressCallback | None = None,
) -> Callable[[], Correlations]:
    """The correlations of ``rows``, to be asked for later: started now in a worker process
    when ``session`` runs with workers and the scores number :data:`IN_WORKER_FROM` or more
    (the worker lives until ``stack`` closes), else computed here when asked for."""
    inputs = correlation_inputs(rows)
    workers = session.backend == "processes" and resolve_jobs(session.jobs) > 1
    if not workers or inputs.size < IN_WORKER_FROM:
        return lambda: correlation_tables(inputs, seed, n_boot, progress)
    pool = stack.enter_context(process_pool(1, 1))
    pending = pool.submit(portable_call, correlation_tables, inputs, seed, n_boot)

    def result() -> Correlations:
        tables = pending.result()
        for _ in track(inputs.computed, progress, "report: correlations"):
            pass  # computed in the worker: the steps are reported as they are collected
        return tables

    return result
