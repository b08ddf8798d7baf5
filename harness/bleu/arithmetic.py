"""The BLEU arithmetic: rows of sufficient statistics → scores. The only place BLEU is computed.

:func:`bleu_rows` scores ``R`` rows at once — each row one segment, one corpus, or one
resampled corpus: its hypothesis length, reference length and the matched and total n-grams
of orders 1..N — under one :class:`~harness.bleu.config.BleuConfig`: the brevity penalty and
the zero-length rules, the zero guard, the smoothing method's count adjustment and precisions
(:mod:`harness.bleu.smoothing`), effective order, the empty-order rule, weights and the
geometric mean. :func:`score_totals` (one row from :class:`~harness.bleu.stats.Totals`) and
:func:`score_arrays` (arrays in, arrays out) are views of it; :func:`bleu_rows_shared` scores
rows that share their counts and differ in their reference length (several reference-length
rules on one corpus's statistics), the parts that read no reference length once per row of
counts, with the same numbers.

A row the profiled library would raise on raises :class:`~harness.errors.LibraryWouldRaise`:
the first such row, with the first error the library meets on it (its brevity penalty, then
its smoothing), which is what scoring the rows one by one raises. Asked to mark them instead
(``on_refusal="mark"``), :func:`bleu_rows` scores every row and says which ones would raise.

Scale: scores and precisions 0–100; the brevity penalty and length ratio as they are.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.bleu.config import BleuConfig
from harness.bleu.nltk_release_smoothing import smoothing_of
from harness.bleu.reported import reported_segments
from harness.bleu.smoothing import (
    NltkContext,
    Orders,
    Refusal,
    Smoothing,
    nltk_context,
)
from harness.bleu.stats import Statistics, Totals
from harness.bleu.zero_length import zero_length_rule
from harness.errors import LibraryWouldRaise

__all__ = [
    "NltkContext",
    "Scored",
    "ScoredRows",
    "bleu_rows",
    "bleu_rows_shared",
    "context_of",
    "group_contexts",
    "needs_longest",
    "nltk_context",
    "score_arrays",
    "score_totals",
    "segment_contexts",
]


@dataclass(frozen=True)
class Scored:
    """A score (0–100) with the per-order precisions (0–100) and brevity penalty behind it."""

    score: float
    precisions: tuple[float, ...]
    bp: float
    ratio: float


@dataclass(frozen=True, eq=False)
class ScoredRows:
    """:class:`Scored` of ``R`` rows: ``score`` (R,), ``precisions`` (R, N) on 0–100 (zero
    for orders not used), ``bp`` (R,), ``ratio`` (R,); ``refused`` (R,) bool: the rows the
    library would raise on (their numbers mean nothing), or ``None`` when refusals raise."""

    score: np.ndarray
    precisions: np.ndarray
    bp: np.ndarray
    ratio: np.ndarray
    refused: np.ndarray | None = None

    def row(self, index: int) -> Scored:
        """Row ``index`` as a :class:`Scored` of Python floats."""
        return Scored(
            float(self.score[index]),
            tuple(self.precisions[index].tolist()),
            float(self.bp[index]),
            float(self.ratio[index]),
        )


# ====================================================================== nltk contexts
def _fifth_order(matches: np.ndarray) -> np.ndarray:
    return matches[..., 4] if matches.shape[-1] >= 5 else np.zeros(matches.shape[:-1], np.int64)


def context_of(stats: Statistics, start: int = 0, stop: int | None = None) -> NltkContext:
    """The :class:`NltkContext` nltk's ``corpus_bleu`` builds for the segments
    ``start:stop`` of ``stats``: their hypothesis length, and the length and matched 5-grams of
    the last (:func:`group_contexts` of one group)."""
    end = len(stats) if stop is None else stop
    return _group_contexts(stats.hyp_len[:end], stats.matches[:end], np.array([start]))


def group_contexts(stats: Statistics, starts: np.ndarray) -> NltkContext:
    """One :class:`NltkContext` row per group of consecutive segments of ``stats`` scored as a
    corpus of its own: group ``i`` runs from ``starts[i]`` up to the next start (the last to
    the end), and every group holds at least one segment."""
    return _group_contexts(stats.hyp_len, stats.matches, np.asarray(starts, dtype=np.int64))


def _group_contexts(hyp_len: np.ndarray, matches: np.ndarray, starts: np.ndarray) -> NltkContext:
    last = np.append(starts[1:], len(hyp_len)) - 1
    return nltk_context(
        np.add.reduceat(hyp_len, starts), hyp_len[last], _fifth_order(matches[last])
    )


def segment_contexts(stats: Statistics) -> NltkContext:
    """Every segment's own :class:`NltkContext` (nltk's ``sentence_bleu``), one row each."""
    return nltk_context(stats.hyp_len, stats.hyp_len, _fifth_order(stats.matches))


# ====================================================================== the arithmetic
def _brevity_penalty(
    sys_len: np.ndarray, ref_len: np.ndarray, config: BleuConfig, spec: Smoothing, corpus: bool
) -> tuple[np.ndarray, np.ndarray, list[Refusal]]:
    """``(bp, ratio, refusals)`` of every row; zero lengths give BP 0 (hypothesis empty) or 1,
    nan (rule ``nan``, both empty), or are refused as the library refuses them.

    ``corpus``: the rows are what the library reports as its corpus (system) score; the
    ``mteval`` rule dies only there.
    """
    rule = zero_length_rule(config.on_zero_length)
    lib = config.library
    refusals: list[Refusal] = (
        [] if rule.before is None else rule.before(sys_len, ref_len, corpus, lib)
    )
    ratio = np.divide(sys_len, ref_len, out=np.zeros(len(sys_len)), where=ref_len > 0)
    # exp(min(0, 1 - r/c)) is exactly 1 when the hypothesis side is at least as long
    if spec.length_epsilons is not None:
        a, b = spec.length_epsilons
        bp = np.exp(np.minimum(0.0, 1 - 1 / ((sys_len + a) / (ref_len + b))))
    else:
        q = np.divide(ref_len, sys_len, out=np.zeros(len(sys_len)), where=sys_len > 0)
        bp = np.exp(np.minimum(0.0, 1 - q))
        empty = sys_len == 0
        if empty.any():  # an empty hypothesis side: BP 0, unless the references are empty too
            bp = np.where(empty & (ref_len > 0), 0.0, bp)
    if rule.after is not None:
        bp, ratio, more = rule.after(sys_len, ref_len, bp, ratio, corpus, lib)
        refusals += more
    return bp, ratio, refusals


def _raise_first(refusals: list[Refusal]) -> None:
    """Raise the first refused row's first refusal, if any row is refused."""
    hits = [int(np.argmax(rows)) for rows, *_ in refusals if rows.any()]
    if not hits:
        return
    first = min(hits)
    for rows, library, exception, reason in refusals:
        if rows[first]:
            raise LibraryWouldRaise(library, exception, reason)


@functools.lru_cache(maxsize=64)
def _weights(weights: tuple[float, ...]) -> np.ndarray:
    """The order weights as a read-only (1, N) row."""
    row = np.array(weights, dtype=np.float64)[None, :]
    row.flags.writeable = False
    return row


def needs_longest(config: BleuConfig) -> bool:
    """Whether scoring corpus rows under ``config`` needs each row's longest hypothesis
    (:func:`bleu_rows`'s ``longest``): effective order on floored n-gram totals."""
    return config.effective_order and config.ngram_totals != "plain"


def _longest(longest: npt.ArrayLike | None, sys_len: np.ndarray, corpus: bool) -> np.ndarray:
    if longest is not None:
        return np.asarray(longest, dtype=np.float64).reshape(len(sys_len))
    if corpus:
        raise ValueError(
            "effective order on floored n-gram totals needs each corpus row's longest "
            "hypothesis (bleu_rows(..., longest=))"
        )
    return sys_len


def _as_rows(values: npt.ArrayLike, orders: int) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64)
    return (out[None, :] if out.ndim == 1 else out)[:, :orders]


# params: the four statistic columns are the engine's own arrays, scored where they lie
def bleu_rows(
    sys_len: npt.ArrayLike,
    ref_len: npt.ArrayLike,
    correct: npt.ArrayLike,
    total: npt.ArrayLike,
    config: BleuConfig,
    *,
    context: NltkContext | None = None,
    corpus: bool = False,
    on_refusal: str = "raise",
    longest: npt.ArrayLike | None = None,
) -> ScoredRows:
    """BLEU of ``R`` rows of statistics under ``config``: the one BLEU arithmetic.

    Row ``i`` is ``sys_len[i]``, ``ref_len[i]`` (the reference length the config's rule
    chose), and ``correct[i]``/``total[i]`` (orders 1..N; extra orders are ignored).
    ``context``: one row of nltk context per row, for the smoothing methods that read it.
    ``corpus``: the rows are corpus (system) sums rather than segments (only rules that kill a
    library's corpus report, such as ``on_zero_length="mteval"``, look at it).
    ``longest``: each row's longest hypothesis, which effective order reads where the totals
    are floored (a floored total is never 0: the orders without a hypothesis n-gram are those
    above the longest hypothesis); a segment row's own length unless given, and required for
    corpus rows under that rule (:func:`needs_longest`).
    Segment rows (not ``corpus``) are rounded where the config's library prints its segment
    scores rounded (:func:`~harness.bleu.reported.reported_segments`).
    ``on_refusal``: ``"raise"`` the first refused row's
    :class:`~harness.errors.LibraryWouldRaise`, or ``"mark"`` the refused rows in
    :attr:`ScoredRows.refused` and score the others (many corpora in one call).
    """
    return _rows(
        sys_len, ref_len, correct, total, None, config, context, corpus, on_refusal, longest
    )


# params: bleu_rows' own, and the row of counts each scored row reads
def bleu_rows_shared(
    sys_len: npt.ArrayLike,
    ref_len: npt.ArrayLike,
    correct: npt.ArrayLike,
    total: npt.ArrayLike,
    config: BleuConfig,
    *,
    source: npt.ArrayLike,
    context: NltkContext | None = None,
    corpus: bool = False,
    on_refusal: str = "raise",
    longest: npt.ArrayLike | None = None,
) -> ScoredRows:
    """:func:`bleu_rows` of rows that share their counts: ``M`` rows, row ``j`` the counts
    of row ``source[j]`` of ``U`` (``sys_len[source[j]]``, ``correct[source[j]]``,
    ``total[source[j]]``, and its ``context`` and ``longest`` rows) with its own reference
    length ``ref_len[j]`` (several reference-length rules on the same statistics).

    Equals ``bleu_rows(sys_len[source], ref_len, correct[source], total[source], config,
    context=context[source], longest=longest[source], …)`` bit for bit, refusals included
    (``"raise"``: the first refused output row's first refusal): what reads the reference
    length (the brevity penalty and length ratio, the zero-length rule's refusals and its
    empty-reference score, which rows are scored at all) runs per output row, in the same
    float operations; the count adjustment, effective order, the smoothing's precisions and
    refusals and the geometric mean, which read no reference length, once per shared row.
    """
    return _rows(
        sys_len, ref_len, correct, total, source, config, context, corpus, on_refusal, longest
    )


# params: the shared form's, positional: the one body of both public forms
def _rows(
    sys_len: npt.ArrayLike,
    ref_len: npt.ArrayLike,
    correct: npt.ArrayLike,
    total: npt.ArrayLike,
    source: npt.ArrayLike | None,
    config: BleuConfig,
    context: NltkContext | None,
    corpus: bool,
    on_refusal: str,
    longest: npt.ArrayLike | None,
) -> ScoredRows:
    """:func:`bleu_rows_shared`; ``source=None``: each row its own (:func:`bleu_rows`)."""
    if on_refusal not in ("raise", "mark"):
        raise ValueError(f"on_refusal must be 'raise' or 'mark', got {on_refusal!r}")
    spec = smoothing_of(config.smooth, config.smooth_forms)
    n = config.max_order
    sys_f = np.asarray(sys_len, dtype=np.float64).reshape(-1)
    shared = len(sys_f)  # rows of counts
    index = None if source is None else np.asarray(source, dtype=np.intp).reshape(-1)
    count = shared if index is None else len(index)  # rows scored

    def each(values: np.ndarray) -> np.ndarray:
        """A per-count-row array, one row per scored row."""
        return values if index is None else values[index]

    ref_f = np.asarray(ref_len, dtype=np.float64).reshape(count)
    c = _as_rows(correct, n)
    t = _as_rows(total, n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        bp, ratio, refusals = _brevity_penalty(each(sys_f), ref_f, config, spec, corpus)

        # rows that end with score 0 and zero precisions before any smoothing: by their
        # reference length (done), by their counts (ended, once per row of counts)
        done = None
        if zero_length_rule(config.on_zero_length).empty_reference_scores_zero:
            done = ref_f == 0
            bp = np.where(done, 0.0, bp)
            ratio = np.where(done, 0.0, ratio)
        ended = None
        if config.zero_guard != "none":
            ended = c[:, 0] == 0 if config.zero_guard == "unigram" else (c == 0).any(axis=1)

        value = config.effective_smooth_value
        if spec.adjust_counts is not None and value is not None:
            c, t = spec.adjust_counts(c, t, value)
        # orders with no hypothesis n-grams: dropped (effective order) or scored as empty
        weights = _weights(config.order_weights)
        if config.effective_order:
            if needs_longest(config):
                used = np.minimum(_longest(longest, sys_f, corpus), n).astype(np.int64)
            else:
                empty = t == 0
                used = np.where(empty.any(axis=1), empty.argmax(axis=1), n)
            ended = used == 0 if ended is None else ended | (used == 0)
            active = np.arange(n)[None, :] < used[:, None]
            if config.weights is None:
                weights = np.where(active, 1.0 / np.maximum(used, 1)[:, None], 0.0)
            else:
                weights = np.where(active, weights, 0.0)
        else:
            used = np.full(shared, n, dtype=np.int64)
            active = None
        if ended is not None:
            done = each(ended) if done is None else done | each(ended)

        orders = Orders(
            correct=c,
            total=t,
            used=used,
            value=value,
            empty=1.0 if config.empty_order == "one" else 0.0,
            context=context,
        )
        if spec.context and context is None and (done is None or not done.all()):
            raise ValueError(f"smoothing {spec.name!r} needs an NltkContext")
        if spec.refusals is not None:
            live = np.ones(count, dtype=bool) if done is None else ~done
            refusals += [
                (each(rows) & live, lib, exc, why) for rows, lib, exc, why in spec.refusals(orders)
            ]
        refused = None
        if on_refusal == "mark":
            refused = np.zeros(count, dtype=bool)
            for rows, *_ in refusals:
                refused |= rows
        elif refusals:
            _raise_first(refusals)

        p = spec.precisions(orders)
        if active is not None:
            p = np.where(active, p, 0.0)
        # the weighted geometric mean, orders added in order of n as the libraries add them
        positive = p > 0
        terms = weights * np.log(p, out=np.zeros(p.shape), where=positive)
        log_sum = terms[:, 0]
        for i in range(1, n):
            log_sum = log_sum + terms[:, i]
        geo = np.exp(log_sum)
        if spec.zero_orders == "zero-score":
            geo = np.where(((weights > 0) & ~positive).any(axis=1), 0.0, geo)
        elif spec.zero_sum_segments and not corpus:
            geo = np.where((log_sum == 0) & (~positive).any(axis=1), 0.0, geo)
        score = 100.0 * bp * each(geo)
        precisions = each(100.0 * p)
        if done is not None:
            score = np.where(done, 0.0, score)
            precisions = np.where(done[:, None], 0.0, precisions)
        if not corpus:  # a segment's score as a library that prints it rounded prints it
            score = reported_segments(score, config)
    return ScoredRows(score=score, precisions=precisions, bp=bp, ratio=ratio, refused=refused)


def score_totals(
    totals: Totals,
    config: BleuConfig,
    context: NltkContext | None = None,
    *,
    corpus: bool = True,
    longest: int | None = None,
) -> Scored:
    """BLEU of one set of sums: :func:`bleu_rows` of one row (``context``: its nltk context;
    ``longest``: its longest hypothesis, where :func:`needs_longest`).

    ``corpus=False`` scores one segment's sums as a sentence (rules that only kill a
    library's corpus report, such as ``on_zero_length="mteval"``, do not apply).
    """
    rows = bleu_rows(
        totals.sys_len,
        totals.ref_len,
        totals.correct,
        totals.total,
        config,
        context=context,
        corpus=corpus,
        longest=None if longest is None else [longest],
    )
    return rows.row(0)


def score_arrays(
    sys_len: np.ndarray,
    ref_len: np.ndarray,
    correct: np.ndarray,
    total: np.ndarray,
    config: BleuConfig,
    *,
    corpus: bool = False,
    context: NltkContext | None = None,
    longest: npt.ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bleu_rows` as the tuple ``(score, precisions, bp, ratio)``."""
    r = bleu_rows(
        sys_len, ref_len, correct, total, config, context=context, corpus=corpus, longest=longest
    )
    return r.score, r.precisions, r.bp, r.ratio
