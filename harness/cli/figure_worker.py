"""The report's figures drawn in a worker process while this one does the rest: the scatter
plots as soon as the judged pairs, their gaps and the segment table exist (while the analysis
waits for its other workers), the waterfalls and the human judgments' charts when the report is
done (while this process writes the segment table, the JSON and the Markdown).

The same functions draw the same data either way (:mod:`harness.report.figures`, with the same
matplotlib), so the PNG files are the same bytes; only the points and the few records each
figure shows travel to the worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path

from harness.analysis.study_types import GapMatters, PairVerdict, Report, SegmentsSection
from harness.report import figures
from harness.session import Session
from harness.session.parallel import WorkerPool, portable_call, process_pool, resolve_jobs

#: Scatter points (both sides, every scatter) from which a run with workers draws its figures
#: in one: below it, the worker's start and its import of matplotlib cost more than the
#: drawing.
IN_WORKER_FROM = 40_000


class FigureWorker:
    """The report's figures for the folder ``directory``, drawn in a worker process (which
    lives until ``stack`` closes) when ``session`` runs with workers and the scatter plots
    have :data:`IN_WORKER_FROM` points or more, else by
    :func:`~harness.report.write.write_report` itself.

    :meth:`meanwhile` is :func:`~harness.analysis.study.analyse`'s ``meanwhile``; the object
    itself is :func:`~harness.report.write.write_report`'s ``figures_later``."""

    def __init__(self, stack: contextlib.ExitStack, session: Session, directory: Path) -> None:
        self._stack = stack
        self._workers = session.backend == "processes" and resolve_jobs(session.jobs) > 1
        self._directory = directory
        self._pool: WorkerPool | None = None
        self._scatters: Future[list[figures.Figure]] | None = None

    def meanwhile(
        self, pairs: Sequence[PairVerdict], gaps: GapMatters, segments: SegmentsSection
    ) -> None:
        """Start drawing the scatter plots of ``pairs`` (see the class)."""
        if not self._workers:
            return
        points = figures.scatter_points(pairs, gaps, segments)
        if sum(2 * len(p.xs) for p in points) < IN_WORKER_FROM:
            return
        self._pool = self._stack.enter_context(process_pool(1, 1))
        self._scatters = self._pool.submit(
            portable_call, figures.draw_scatters, points, self._directory
        )

    def __call__(self, report: Report, directory: Path) -> Callable[[], list[figures.Figure]]:
        """Every figure of ``report`` in ``directory``: the waterfalls and the human charts
        started in the worker after its scatter plots; the callable returned gives what was
        written once drawn (all drawn there, when the worker has not started)."""
        pool, scatters = self._pool, self._scatters
        if pool is None or scatters is None or directory != self._directory:
            return lambda: figures.render_figures(report, directory)
        others = pool.submit(
            portable_call,
            figures.draw_others,
            figures.waterfall_inputs(report),
            figures.human_groups(report),
            directory,
        )
        return lambda: scatters.result() + others.result()
