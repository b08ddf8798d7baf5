"""Significance tests' machinery: per-segment matrices, many resampled corpora scored at once.

A system's per-segment statistics become the rows of a matrix once (:func:`prepare`); every
resampled or shuffled corpus is a weighted sum of those rows, computed for all resamples at once
as a matrix product. :mod:`harness.analysis.significance` builds the tests on it.

Per-segment matrices
--------------------
For ``aggregation="corpus"`` a system is the ``(S, 2 + 2N)`` matrix
``M = [hyp_len, ref_len, correct_1..N, total_1..N]`` (sacrebleu's per-segment statistics):
``ref_len`` is the segment's reference length under the config's ``ref_length`` rule and
``total_n`` its order-n total under ``ngram_totals``. With a ``(R, S)`` matrix of resample
counts ``C`` (``C[r, i]`` = how often segment ``i`` occurs in resample ``r``), ``C @ M`` holds
the corpus sums of all ``R`` resamples, exactly (integers are exact in float64), and
:func:`score_rows` turns them into BLEU with the engine's one vectorised arithmetic
(:func:`harness.bleu.engine.score_arrays`, every smoothing; nltk's methods 4–7 get each
resample's own context), whose one-row view :func:`harness.bleu.engine.score_totals` the tests
compare it with row by row: they agree to 1e-9 BLEU points
(``tests/test_significance.py``).

For ``aggregation="sentence-mean"`` a system is the ``(S, 1)`` column of its sentence scores and
a resample's score is the mean of its segments' scores, ``(C @ s) / S``; for ``nonempty-mean``
the ``(S, 2)`` columns of the kept segments' scores and of which are kept
(:func:`harness.bleu.engine.mean_weights`), and the mean is their ratio.

Two systems' scores on the same resamples (:func:`paired_resampled_scores`) and on every
approximate-randomization trial's pseudo-systems (:func:`swapped_scores`) are the tests'
inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from harness.bleu import engine
from harness.bleu.arithmetic import needs_longest, nltk_context
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics, Totals
from harness.errors import ConfigError, LayoutError
from harness.statistics.blas import single_blas_thread
from harness.statistics.resampling import counts_from_indices, exact_product_dtype

__all__ = [
    "SegmentTable",
    "paired_resampled_scores",
    "prepare",
    "resampled_scores",
    "row_totals",
    "score_rows",
    "sufficient_matrix",
    "swapped_scores",
]


# ====================================================================== per-segment matrices
def _check_stats(stats: Statistics, config: BleuConfig) -> None:
    if not isinstance(stats, Statistics):
        raise LayoutError(
            "expected harness.bleu.stats.Statistics (see harness.bleu.engine.compute_statistics)",
            what="stats",
            expected="Statistics",
            got=type(stats).__name__,
        )
    if len(stats) == 0:
        raise LayoutError("no segments", what="stats", expected=">= 1", got=0)
    need = engine.orders_needed(config)
    if stats.max_order < need:
        raise LayoutError(
            f"the statistics hold n-gram orders up to {stats.max_order} but the config needs "
            f"{need}; recompute them with harness.bleu.engine.compute_statistics(corpus, config)",
            what="stats.matches",
            expected=need,
            got=stats.max_order,
        )
    key = engine.tokenization_key(config)
    if stats.tokenization != key:
        raise ConfigError(
            f"the statistics were computed with {stats.tokenization!r} but the config "
            f"tokenizes with {key!r}; recompute them under this config"
        )


def sufficient_matrix(stats: Statistics, config: BleuConfig) -> np.ndarray:
    """The ``(S, 2 + 2N)`` float64 matrix ``[hyp_len, ref_len, correct_1..N, total_1..N]``.

    Row ``i`` holds segment ``i``'s statistics under ``config``: ``ref_len`` by its
    ``ref_length`` rule, ``total_n`` by its ``ngram_totals`` rule, ``N = config.max_order``.
    The column sums are :func:`harness.bleu.engine.totals_of` (``row_totals(M.sum(0))``); the
    values are integers (``ref_len`` is a float only for ``ref_length="average"``), exact in
    float64.
    """
    _check_stats(stats, config)
    n = config.max_order
    s = len(stats)
    m = np.empty((s, 2 + 2 * n), dtype=np.float64)
    m[:, 0] = stats.hyp_len
    m[:, 1] = stats.ref_length(config.ref_length, missing=config.missing_refs)
    m[:, 2 : 2 + n] = stats.counted(config.ngram_totals, n)
    m[:, 2 + n :] = stats.totals(config.ngram_totals, n)
    return m


def row_totals(row: Sequence[float] | np.ndarray, config: BleuConfig) -> Totals:
    """One row ``[hyp_len, ref_len, correct_1..N, total_1..N]`` as engine :class:`Totals`."""
    n = config.max_order
    values = np.asarray(row, dtype=np.float64)
    if values.shape != (2 + 2 * n,):
        raise LayoutError(
            "a statistics row must have 2 + 2 * max_order entries",
            what="row",
            expected=2 + 2 * n,
            got=values.shape,
        )
    ref = float(values[1]) if config.ref_length == "average" else round(values[1])
    return Totals(
        sys_len=round(values[0]),
        ref_len=ref,
        correct=tuple(round(x) for x in values[2 : 2 + n]),
        total=tuple(round(x) for x in values[2 + n :]),
    )


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """One system's cached statistics under one config, ready for resampling.

    ``matrix``: ``(S, 2 + 2N)`` (:func:`sufficient_matrix`) for corpus aggregation, or ``(S, 1)``
    sentence scores for a mean of them (``(S, 2)``: the kept ones and which, for
    ``nonempty-mean``). ``score``: the engine's corpus score
    (0–100). ``context``: for nltk smoothing at corpus level, ``(S, 2)`` rows
    ``[hyp_len, correct_5]`` of each segment, because nltk's methods 4–7 look at the *last*
    segment of a corpus (see :class:`harness.bleu.engine.NltkContext`); otherwise ``None``.
    ``ids`` and ``ref_lens`` let two tables check that they are paired. ``hyp_len``: each
    segment's hypothesis length where the config's effective order reads a corpus's longest
    output (:func:`~harness.bleu.arithmetic.needs_longest`; a sum of rows does not hold it),
    else ``None``.
    """

    matrix: np.ndarray
    score: float
    config: BleuConfig
    kind: Literal["totals", "sentence"]
    context: np.ndarray | None
    ids: tuple[str, ...]
    ref_lens: tuple[tuple[int, ...], ...]
    tokenization: str
    hyp_len: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def longest(self, indices: np.ndarray) -> np.ndarray | None:
        """Each resample's longest output (``indices``: ``(R, S)`` segment draws), where the
        config reads it; else ``None``."""
        return None if self.hyp_len is None else self.hyp_len[indices].max(axis=1)


def prepare(stats: Statistics, config: BleuConfig) -> SegmentTable:
    """Cache ``stats`` as a :class:`SegmentTable` (do this once per system and config)."""
    _check_stats(stats, config)
    if config.aggregation != "corpus":  # a mean of per-segment scores
        # each segment's sentence score, as engine.segment_results reports it (its arrays
        # without a result object per segment)
        scores = engine.segment_arrays(stats, config).score
        matrix = np.array(scores, dtype=np.float64).reshape(-1, 1)
        weights = engine.mean_weights(stats, config)
        if weights is None:
            # as engine.score_statistics
            score = engine.reported(float(sum(scores.tolist()) / len(scores)), config)
        else:  # a mean over some segments: their scores and how many, summed by a resample
            matrix = np.column_stack([matrix[:, 0] * weights, weights])
            score = engine.score_statistics(stats, config).score
        kind: Literal["totals", "sentence"] = "sentence"
        context = None
    else:
        matrix = sufficient_matrix(stats, config)
        score = engine.score_statistics(stats, config).score
        kind = "totals"
        context = None
        if config.smooth.startswith("nltk-"):
            c5 = stats.matches[:, 4] if stats.max_order >= 5 else np.zeros(len(stats))
            context = np.column_stack([stats.hyp_len, c5]).astype(np.int64)
    return SegmentTable(
        matrix=matrix,
        score=float(score),
        config=config,
        kind=kind,
        context=context,
        ids=stats.ids,
        ref_lens=stats.ref_lens,
        tokenization=stats.tokenization,
        hyp_len=stats.hyp_len.copy() if kind == "totals" and needs_longest(config) else None,
    )


# ====================================================================== scoring many rows
def _engine_rows(
    rows: np.ndarray, config: BleuConfig, context: np.ndarray | None, longest: np.ndarray | None
) -> np.ndarray:
    """``score_totals`` row by row: the one-row view, the reference for the many-row path."""
    nltk = config.smooth.startswith("nltk-")
    if nltk and context is None:
        raise ValueError("nltk smoothing needs context rows [last_hyp_len, last_correct5]")
    out = np.empty(len(rows), dtype=np.float64)
    for r, row in enumerate(rows):
        t = row_totals(row, config)
        ctx = None
        if nltk:
            last_len, last_c5 = context[r]  # type: ignore[index]
            ctx = nltk_context(t.sys_len, last_len, last_c5)
        most = None if longest is None else int(longest[r])
        out[r] = engine.score_totals(t, config, ctx, longest=most).score
    return out


def _vectorised_rows(
    rows: np.ndarray, config: BleuConfig, context: np.ndarray | None, longest: np.ndarray | None
) -> np.ndarray:
    """:func:`harness.bleu.engine.score_totals` for many rows at once, through the engine's
    own vectorised scorer :func:`harness.bleu.engine.score_arrays`."""
    n = config.max_order
    ctx = None
    if config.smooth.startswith("nltk-"):
        if context is None:
            raise ValueError("nltk smoothing needs context rows [last_hyp_len, last_correct5]")
        ctx = nltk_context(rows[:, 0], context[:, 0], context[:, 1])
    score, _precisions, _bp, _ratio = engine.score_arrays(
        rows[:, 0],
        rows[:, 1],
        rows[:, 2 : 2 + n],
        rows[:, 2 + n :],
        config,
        corpus=True,
        context=ctx,
        longest=longest,
    )
    return score


def score_rows(
    rows: np.ndarray,
    config: BleuConfig,
    *,
    context: np.ndarray | None = None,
    use_engine: bool = False,
    longest: np.ndarray | None = None,
) -> np.ndarray:
    """BLEU (0–100) of every row ``[sys_len, ref_len, correct_1..N, total_1..N]`` of ``rows``.

    All rows are scored at once (:func:`harness.bleu.engine.score_arrays`); ``use_engine=True``
    calls :func:`harness.bleu.engine.score_totals` per row. ``context`` (nltk only) holds per row the
    ``[hyp_len, correct_5]`` of the corpus's last segment; ``longest`` each row's longest
    output (read by effective order on floored totals). A row the profiled library would
    raise on (e.g. a zero length under ``on_zero_length="raise"``) raises
    :class:`~harness.errors.LibraryWouldRaise`, as the engine does.
    """
    values = np.asarray(rows, dtype=np.float64)
    n = config.max_order
    if values.ndim != 2 or values.shape[1] != 2 + 2 * n:
        raise LayoutError(
            "rows must be a 2-d array with 2 + 2 * max_order columns",
            what="rows",
            expected=f"(R, {2 + 2 * n})",
            got=values.shape,
        )
    if use_engine:
        return _engine_rows(values, config, context, longest)
    return _vectorised_rows(values, config, context, longest)


def resampled_scores(
    table: SegmentTable,
    sums: np.ndarray,
    *,
    last: np.ndarray | None = None,
    longest: np.ndarray | None = None,
) -> np.ndarray:
    """Scores of resampled corpora from their summed rows ``sums`` (e.g. ``C @ table.matrix``).

    ``last``: per row, the ``[hyp_len, correct_5]`` of the resampled corpus's last segment
    (e.g. ``table.context[indices[:, -1]]``), needed only for nltk smoothing at corpus level,
    whose methods 4–7 look at it (see :class:`harness.bleu.engine.NltkContext`). ``longest``:
    per row, the resampled corpus's longest output (:meth:`SegmentTable.longest`), needed only
    where the table holds ``hyp_len``. For a sentence-mean
    table, ``sums`` are sums of sentence scores and the result is their mean over the ``S``
    segments of a resample.
    """
    if table.kind == "sentence":
        if sums.shape[1] == 1:
            return engine.reported_array(sums[:, 0] / len(table), table.config)
        counted = sums[:, 1]  # the kept segments of each resample (engine.mean_weights)
        means = np.divide(sums[:, 0], counted, out=np.zeros(len(sums)), where=counted > 0)
        return engine.reported_array(means, table.config)
    if table.context is not None and last is None:
        raise ValueError("nltk smoothing at corpus level needs each resample's last segment")
    if table.hyp_len is not None and longest is None:
        raise ValueError("this effective order needs each resample's longest output")
    scores = score_rows(
        sums,
        table.config,
        context=last if table.context is not None else None,
        longest=longest if table.hyp_len is not None else None,
    )
    return engine.reported_array(scores, table.config)


# ====================================================================== resampled pairs
# Entries of one converted block of the AR swap mask (at most ~32 MB in float64).
_BLOCK_ELEMENTS = 4_000_000


@single_blas_thread
def paired_resampled_scores(
    baseline: SegmentTable, system: SegmentTable, indices: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Both systems' scores on the same resamples ``indices`` (one matrix product).

    Row ``r`` scores the corpus of segments ``indices[r]`` (in that order: nltk's methods 4–7
    see ``indices[r, -1]`` as the last segment), i.e. ``score_statistics(stats.subset(...))``.
    """
    a, b = baseline, system
    k = a.matrix.shape[1]
    both = np.hstack([a.matrix, b.matrix])
    dtype = exact_product_dtype(both, len(a))
    counts = counts_from_indices(indices, len(a), dtype=dtype)
    sums = (counts @ both.astype(dtype)).astype(np.float64)
    last = indices[:, -1]
    return (
        resampled_scores(
            a,
            sums[:, :k],
            last=None if a.context is None else a.context[last],
            longest=a.longest(indices),
        ),
        resampled_scores(
            b,
            sums[:, k:],
            last=None if b.context is None else b.context[last],
            longest=b.longest(indices),
        ),
    )


@single_blas_thread
def swapped_scores(
    baseline: SegmentTable, system: SegmentTable, swap: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the two pseudo-systems of every AR trial.

    ``swap``: ``(T, S)`` booleans; in trial ``t`` pseudo-system A takes the baseline's segment
    ``i`` where ``swap[t, i]`` and the system's elsewhere, B the other one. A's summed rows are
    ``sum(system) + swap @ (baseline - system)`` (one matrix product for all trials, in blocks
    of ~4M mask entries) and B's are the grand total minus A's.
    """
    a, b = baseline, system
    n = len(a)
    diff = a.matrix - b.matrix
    base = b.matrix.sum(axis=0)
    total = a.matrix.sum(axis=0) + base
    trials = swap.shape[0]
    sums_a = np.empty((trials, a.matrix.shape[1]), dtype=np.float64)
    block = max(1, _BLOCK_ELEMENTS // max(1, n))
    dtype = exact_product_dtype(diff, n)
    narrow = diff.astype(dtype)
    # the pseudo-systems' longest outputs, where the config's effective order reads them
    lengths = None if a.hyp_len is None or b.hyp_len is None else (a.hyp_len, b.hyp_len)
    longest_a: np.ndarray | None = None if lengths is None else np.empty(trials)
    longest_b: np.ndarray | None = None if lengths is None else np.empty(trials)
    for lo in range(0, trials, block):
        hi = min(trials, lo + block)
        sums_a[lo:hi] = swap[lo:hi].astype(dtype) @ narrow
        if lengths is not None and longest_a is not None and longest_b is not None:
            mask = swap[lo:hi]
            longest_a[lo:hi] = np.where(mask, lengths[0], lengths[1]).max(axis=1)
            longest_b[lo:hi] = np.where(mask, lengths[1], lengths[0]).max(axis=1)
    sums_a += base
    sums_b = total - sums_a
    last_a = last_b = None
    if a.context is not None and b.context is not None:
        # The pseudo-systems' last segments, which nltk's methods 4-7 look at.
        from_baseline = swap[:, -1:]
        last_a = np.where(from_baseline, a.context[-1], b.context[-1])
        last_b = np.where(from_baseline, b.context[-1], a.context[-1])
    return (
        resampled_scores(a, sums_a, last=last_a, longest=longest_a),
        resampled_scores(b, sums_b, last=last_b, longest=longest_b),
    )
