"""Sufficient statistics: everything any BLEU variant needs, computed once per tokenization.

Per segment the statistics are the hypothesis length, every reference length, and the clipped
n-gram matches for orders 1..M. The order-n *total* is a function of the hypothesis length
(``max(0, len - n + 1)``, or nltk's per-segment floor of 1), and the reference length used by
the brevity penalty is a function of the reference lengths, so neither is stored: the choice of
rule is arithmetic on these arrays. Each rule has its one implementation here, which every
path (the engine, the pairwise matrices, the diagnosis's many-configuration scorer) calls:
n-gram totals (:func:`totals_of_lengths`, :func:`apply_total_rule`; with the matches each
segment adds, :func:`counted`), missing references
(:func:`padded_ref_matrix`), the reference length (:func:`ref_length_of`) and its corpus sum
(:func:`ref_length_sums`).

``Statistics`` values add: ``a + b`` is the corpus of a's segments followed by b's, so shards can
be computed apart and joined, and resampling never re-tokenizes.
``Totals`` are the corpus sums for one reference-length and total rule (sacrebleu's
``[sys_len, ref_len, correct..., total...]``) and add elementwise.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from harness.errors import LayoutError

_T = TypeVar("_T")


@dataclass(frozen=True, eq=False)
class Statistics:
    """Per-segment statistics of one corpus under one tokenization.

    ``hyp_len``: (S,) hypothesis lengths in tokens. ``ref_lens``: per segment, the token length
    of each reference in its listed order (ragged). ``matches``: (S, M) clipped matches of
    orders 1..M (a hypothesis n-gram counts at most as often as it occurs in the single
    reference where it occurs most). ``ids``: segment ids. ``tokenization``: the signature part
    that produced them (tokenizer and case), so statistics of different tokenizations are never
    mixed. ``ref_matches``: ``None``, or (R, M) the matches of each hypothesis clipped by each
    of its references *alone*, one row per reference in the order of ``ref_lens`` flattened
    (R references in all): what scoring every reference alone needs (``best-ref-mean``).
    """

    hyp_len: np.ndarray
    ref_lens: tuple[tuple[int, ...], ...]
    matches: np.ndarray
    ids: tuple[str, ...]
    tokenization: str
    ref_matches: np.ndarray | None = None

    def __post_init__(self) -> None:
        s = len(self.ids)
        if self.hyp_len.shape != (s,) or self.matches.shape[0] != s or len(self.ref_lens) != s:
            raise LayoutError(
                "statistics arrays disagree on the number of segments",
                what="Statistics",
                expected=s,
                got=(self.hyp_len.shape, self.matches.shape, len(self.ref_lens)),
            )
        if self.ref_matches is not None:
            r = sum(map(len, self.ref_lens))
            if self.ref_matches.shape != (r, self.matches.shape[1]):
                raise LayoutError(
                    "per-reference matches disagree with the references",
                    what="Statistics.ref_matches",
                    expected=(r, self.matches.shape[1]),
                    got=self.ref_matches.shape,
                )

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def max_order(self) -> int:
        """The highest order M whose matches were counted."""
        return int(self.matches.shape[1])

    def __add__(self, other: Statistics) -> Statistics:
        if not isinstance(other, Statistics):
            return NotImplemented
        if other.tokenization != self.tokenization:
            raise LayoutError(
                "cannot add statistics of different tokenizations",
                what="Statistics",
                expected=self.tokenization,
                got=other.tokenization,
            )
        m = min(self.max_order, other.max_order)
        return Statistics(
            hyp_len=np.concatenate([self.hyp_len, other.hyp_len]),
            ref_lens=self.ref_lens + other.ref_lens,
            matches=np.concatenate([self.matches[:, :m], other.matches[:, :m]]),
            ids=self.ids + other.ids,
            tokenization=self.tokenization,
            ref_matches=join_ref_matches([self, other], m),
        )

    def subset(self, indices: Sequence[int] | np.ndarray) -> Statistics:
        """The statistics of the given segments, in that order (repeats allowed)."""
        idx = np.asarray(indices, dtype=np.int64)
        per_ref = None
        if self.ref_matches is not None:
            counts = np.fromiter(map(len, self.ref_lens), np.int64, len(self.ref_lens))
            starts = np.cumsum(counts) - counts
            k = counts[idx]
            rows = np.repeat(starts[idx], k) + (
                np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
            )
            per_ref = self.ref_matches[rows]
        return Statistics(
            hyp_len=self.hyp_len[idx],
            ref_lens=tuple(self.ref_lens[i] for i in idx),
            matches=self.matches[idx],
            ids=tuple(self.ids[i] for i in idx),
            tokenization=self.tokenization,
            ref_matches=per_ref,
        )

    def approx_bytes(self) -> int:
        """About how much memory these statistics hold: the arrays, and the reference lengths
        as tuples (a tuple per segment, a pointer per reference; small ints are shared)."""
        arrays = self.hyp_len.nbytes + self.matches.nbytes
        if self.ref_matches is not None:
            arrays += self.ref_matches.nbytes
        return arrays + 64 * len(self.ref_lens) + 8 * sum(map(len, self.ref_lens))

    def at_order(self, max_order: int) -> Statistics:
        """These statistics restricted to orders 1..``max_order`` (no copy of the arrays)."""
        if max_order == self.max_order:
            return self
        return Statistics(
            hyp_len=self.hyp_len,
            ref_lens=self.ref_lens,
            matches=self.matches[:, :max_order],
            ids=self.ids,
            tokenization=self.tokenization,
            ref_matches=None if self.ref_matches is None else self.ref_matches[:, :max_order],
        )

    # ------------------------------------------------------------------ derived arrays
    def totals(self, rule: str = "plain", max_order: int | None = None) -> np.ndarray:
        """(S, N) order-n totals: ``max(0, len - n + 1)``; ``floor1`` floors each at 1 (nltk);
        ``reduced`` puts each with its matches in lowest terms (:func:`counted`).
        Made once per rule and order (read-only)."""
        n = max_order or self.max_order
        return self.memo(
            ("totals", rule, n), lambda: counted(self.hyp_len, self.matches, rule, n)[1]
        )

    def counted(self, rule: str = "plain", max_order: int | None = None) -> np.ndarray:
        """(S, N) order-n matches each segment adds under the n-gram total ``rule`` (the
        matches as counted, or in lowest terms with their total: :func:`counted`); its totals
        are :meth:`totals`. Made once per rule and order (read-only)."""
        n = max_order or self.max_order
        if rule != "reduced":
            return self.matches[:, :n]
        return self.memo(
            ("counted", rule, n), lambda: counted(self.hyp_len, self.matches, rule, n)[0]
        )

    def memo(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """A value derived from these statistics alone, made by ``make`` the first time
        ``key`` is asked for and kept with them (the arrays are read-only, and every
        configuration of the tokenization reads the same statistics); an array is kept
        read-only."""
        kept = self._memo
        if key not in kept:
            value = make()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            kept[key] = value
        return kept[key]

    @functools.cached_property
    def _memo(self) -> dict[Hashable, Any]:
        return {}

    @functools.cached_property
    def ref_counts(self) -> np.ndarray:
        """(S,) int64: how many references each segment has (read-only)."""
        out = np.fromiter(map(len, self.ref_lens), np.int64, len(self.ref_lens))
        out.flags.writeable = False
        return out

    def ref_length(self, rule: str, *, missing: str = "skip") -> np.ndarray:
        """(S,) the reference length each segment's brevity penalty uses under ``rule``:
        :func:`ref_length_of` of :attr:`ref_matrix` under the missing-reference rule
        ``missing`` (:func:`padded_ref_matrix`: ``empty`` pads a segment with fewer references
        than the corpus's most with empty ones; ``truncate`` is ``skip`` here, the references
        were cut before counting). Made once per rule (the arrays are read-only)."""
        cache = self._ref_lengths
        if (rule, missing) not in cache:
            out = ref_length_of(self.hyp_len, padded_ref_matrix(self.ref_matrix, missing), rule)
            out.flags.writeable = False
            cache[rule, missing] = out
        return cache[rule, missing]

    @functools.cached_property
    def _ref_lengths(self) -> dict[tuple[str, str], np.ndarray]:
        return {}

    @functools.cached_property
    def has_empty_side(self) -> np.ndarray:
        """(S,) bool: the segment's hypothesis or one of its references has no tokens (or it
        has no reference)."""
        shortest = np.fromiter((min(r) if r else 0 for r in self.ref_lens), np.int64, len(self))
        out = (self.hyp_len == 0) | (shortest == 0)
        out.flags.writeable = False
        return out

    @functools.cached_property
    def ref_matrix(self) -> np.ndarray:
        """(S, K) int64 reference lengths, ``K`` the most references of a segment; -1 pads."""
        out = ref_matrix(self.ref_lens)
        out.flags.writeable = False
        return out

    @functools.cached_property
    def pairs(self) -> Statistics:
        """One row per (segment, reference) pair: the hypothesis with that reference alone, the
        pairs in segment order and references in order (needs :attr:`ref_matches`); made once
        per statistics, which every best-reference configuration of the tokenization reads."""
        if self.ref_matches is None:
            raise ValueError(
                "these statistics hold no per-reference matches: count them with a config "
                "whose aggregation is 'best-ref-mean'"
            )
        k = np.fromiter(map(len, self.ref_lens), np.int64, len(self))
        flat = tuple(itertools.chain.from_iterable(self.ref_lens))
        ids = itertools.chain.from_iterable(
            itertools.repeat(i, n) for i, n in zip(self.ids, k.tolist(), strict=True)
        )
        return Statistics(
            hyp_len=np.repeat(self.hyp_len, k),
            ref_lens=tuple((x,) for x in flat),
            matches=self.ref_matches,
            ids=tuple(ids),
            tokenization=self.tokenization,
        )


def totals_of_lengths(hyp_len: np.ndarray, rule: str, max_order: int) -> np.ndarray:
    """(S, N) order-n totals of hypotheses of lengths ``hyp_len`` (S,): a hypothesis of ``len``
    tokens has ``max(0, len - n + 1)`` n-grams of order n, under the total ``rule``
    (:func:`apply_total_rule`)."""
    orders = np.arange(1, max_order + 1)
    counted = np.maximum(0, np.asarray(hyp_len)[:, None] - orders[None, :] + 1)
    return apply_total_rule(counted, rule)


#: The n-gram total rules that depend on the hypothesis lengths alone (``reduced`` also reads
#: the matches: :func:`counted`).
LENGTH_TOTAL_RULES: tuple[str, ...] = ("plain", "floor1")


def counted(
    hyp_len: np.ndarray, matches: np.ndarray, rule: str, max_order: int
) -> tuple[np.ndarray, np.ndarray]:
    """The (S, N) matches and totals each segment adds to the corpus sums under the n-gram
    total ``rule``: the matches as counted and :func:`totals_of_lengths`, or (``reduced``:
    nltk 3.2, which sums the numerators and denominators of each segment's precision as a
    ``Fraction`` in lowest terms) the floored totals and the matches each divided by their
    greatest common divisor, so that an order without a match adds ``0/1``."""
    m = np.asarray(matches)[:, :max_order]
    if rule != "reduced":
        return m, totals_of_lengths(hyp_len, rule, max_order)
    totals = totals_of_lengths(hyp_len, "floor1", max_order)
    g = np.gcd(m, totals)  # totals are at least 1, so g is
    return m // g, totals // g


def apply_total_rule(totals: np.ndarray, rule: str) -> np.ndarray:
    """Counted n-gram totals (any shape) under the n-gram total ``rule``: as counted
    (``plain``), or each floored at 1 (``floor1``: nltk). The one implementation of the total
    rules."""
    if rule == "floor1":
        return np.maximum(totals, 1)
    if rule != "plain":
        raise ValueError(f"n-gram total rule {rule!r} is not one of {LENGTH_TOTAL_RULES}")
    return np.asarray(totals)


def join_ref_matches(parts: Sequence[Statistics], max_order: int) -> np.ndarray | None:
    """The per-reference matches of ``parts`` joined in order (orders 1..``max_order``), or
    ``None`` unless every part has them."""
    if any(p.ref_matches is None for p in parts):
        return None
    return np.concatenate([p.ref_matches[:, :max_order] for p in parts])  # type: ignore[index]


# ====================================================================== reference length
def ref_matrix(ref_lens: Sequence[Sequence[int]]) -> np.ndarray:
    """Ragged per-segment reference lengths as an (S, K) int64 matrix, ``K`` the most
    references of a segment; shorter rows are padded with -1."""
    counts = np.fromiter(map(len, ref_lens), np.int64, len(ref_lens))
    width = int(counts.max()) if len(counts) else 0
    out = np.full((len(counts), width), -1, dtype=np.int64)
    flat = np.fromiter(itertools.chain.from_iterable(ref_lens), np.int64, int(counts.sum()))
    rows = np.repeat(np.arange(len(counts)), counts)
    cols = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)
    out[rows, cols] = flat
    return out


#: The missing-reference rules under which the brevity penalty chooses among the references
#: as counted (:func:`padded_ref_matrix`).
PASSED_THROUGH: tuple[str, ...] = (
    "skip",
    "truncate",
    "first",
    "joined",
    "refuse",
    "refuse-eof",
    "drop-empty",
    "drop-empty-eof",
    "truncate-drop-empty-eof",
    "empty-if-none",
)


def padded_ref_matrix(
    ref_matrix: np.ndarray, missing: str, widths: np.ndarray | None = None
) -> np.ndarray:
    """The (S, K) reference lengths (-1 pads) the brevity penalty chooses among under the
    missing-reference rule ``missing``: the one implementation of the rules.

    ``skip``: as counted. ``truncate``, ``first`` and ``joined``: as counted too (the
    references were cut before counting, :func:`harness.bleu.engine.counted_corpus`), and so
    are the ``drop-empty`` rules and ``truncate-drop-empty-eof`` (the empty references left
    out before counting). ``refuse`` and ``refuse-eof``: as counted (a ragged corpus is
    refused before, :func:`harness.bleu.engine.ragged_refusal`). ``empty``: a segment with fewer references
    than its corpus's most is padded with empty references (length 0) that take part in the
    choice, as happens when ragged references are written to line-aligned files (one per
    reference) for the Perl scripts. ``widths`` (S,): each segment's corpus's most references,
    when the rows hold several corpora (default: ``K``, one corpus).
    """
    if missing not in PASSED_THROUGH and missing != "empty":
        raise ValueError(f"unknown missing-reference rule {missing!r}")
    matrix = np.asarray(ref_matrix, dtype=np.int64)
    if missing != "empty":
        return matrix
    if widths is None:
        return np.maximum(matrix, 0)
    columns = np.arange(matrix.shape[1])[None, :]
    inside = columns < np.asarray(widths, dtype=np.int64)[:, None]
    return np.where(inside, np.maximum(matrix, 0), matrix)


def _closest(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    dist = np.where(valid, np.abs(refs - h), _BIG)
    nearest = dist == dist.min(axis=1, keepdims=True)
    return np.where(nearest, refs, _BIG).min(axis=1)


def _closest_first(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    dist = np.where(valid, np.abs(refs - h), _BIG)
    return np.take_along_axis(refs, dist.argmin(axis=1)[:, None], axis=1)[:, 0]


def _shortest(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return np.where(valid, refs, _BIG).min(axis=1)


def _longest(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return refs.max(axis=1)


def _average(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return refs.sum(axis=1, where=valid) / valid.sum(axis=1)


def _longest_unless_exact(h: np.ndarray, refs: np.ndarray, valid: np.ndarray) -> np.ndarray:
    exact = ((refs == h) & valid).any(axis=1)
    return np.where(exact, h[:, 0], refs.max(axis=1))


_BIG = np.iinfo(np.int64).max

#: Reference-length rules: name -> ``(hyp (S, 1), refs (S, K), valid (S, K)) -> (S,)``.
#: ``closest``: nearest to the hypothesis length, ties to the shorter (Papineni et al. 2002 as
#: implemented by mteval-v13a, sacrebleu, nltk, multi-bleu, pycocoevalcap). ``closest-first``:
#: nearest, ties to the first listed (torchmetrics). ``shortest``: tensorflow-nmt/evaluate.
#: ``longest``. ``average``: mean length (a float). ``longest-unless-exact``: the hypothesis
#: length if some reference has exactly it, else the longest (seed 004_ccc28872d55e65c5.txt).
REF_LENGTH_RULES: Mapping[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = (
    MappingProxyType(
        {
            "closest": _closest,
            "closest-first": _closest_first,
            "shortest": _shortest,
            "longest": _longest,
            "average": _average,
            "longest-unless-exact": _longest_unless_exact,
        }
    )
)


def ref_length_of(hyp_len: np.ndarray, ref_matrix: np.ndarray, rule: str) -> np.ndarray:
    """The reference length of every row's brevity penalty under ``rule``
    (:data:`REF_LENGTH_RULES`): the one implementation of the rules.

    ``hyp_len`` (S,); ``ref_matrix`` (S, K) pads with -1. Returns int64, or float64 for
    ``average``. A row without any reference raises :class:`LayoutError`.
    """
    choose = REF_LENGTH_RULES.get(rule)
    if choose is None:
        raise ValueError(f"unknown reference-length rule {rule!r}")
    refs = np.asarray(ref_matrix, dtype=np.int64)
    count = len(refs)
    if count == 0:
        return np.zeros(0, dtype=np.float64 if rule == "average" else np.int64)
    valid = refs >= 0
    if refs.shape[1] == 0 or not valid[:, 0].all():
        bare = 0 if refs.shape[1] == 0 else int(np.argmin(valid[:, 0]))
        raise LayoutError(
            "a segment needs at least one reference",
            what=f"reference lengths of segment {bare + 1}",
            expected=">= 1",
            got=0,
        )
    return choose(np.asarray(hyp_len, dtype=np.int64).reshape(count, 1), refs, valid)


def ref_length_sums(ref_lengths: np.ndarray, starts: np.ndarray, rule: str) -> np.ndarray:
    """The corpus reference length of each group of consecutive rows: the sum of the rows'
    chosen lengths (:func:`ref_length_of`) from ``starts[i]`` up to the next start (the last
    group to the end); every group holds at least one row. The one implementation of the sum.

    int64 sums; ``average`` lengths are fractions, summed with :func:`math.fsum` into float64:
    correctly rounded, so the same number however the rows are grouped, sharded or ordered.
    """
    values = np.asarray(ref_lengths)
    first = np.asarray(starts, dtype=np.int64)
    if rule != "average":
        return np.add.reduceat(values.astype(np.int64), first) if len(first) else first
    bounds = [*first.tolist(), len(values)]
    rows = values.tolist()
    return np.array(
        [math.fsum(rows[lo:hi]) for lo, hi in itertools.pairwise(bounds)], dtype=np.float64
    )


def corpus_ref_length(ref_lengths: np.ndarray, rule: str) -> float:
    """The reference length of a corpus's brevity penalty: :func:`ref_length_sums` of one
    group (an ``int``, or a ``float`` for ``average``)."""
    value: float = ref_length_sums(ref_lengths, np.zeros(1, dtype=np.int64), rule)[0].item()
    return value


def choose_ref_length(hyp_len: int, ref_lens: Sequence[int], rule: str) -> float:
    """The reference length for the brevity penalty of one segment: :func:`ref_length_of` of
    one row (an ``int``, or a ``float`` for ``average``)."""
    value: float = ref_length_of(np.array([hyp_len]), ref_matrix([ref_lens]), rule)[0].item()
    return value


@dataclass(frozen=True)
class Totals:
    """Corpus sums under one reference-length and total rule; they add elementwise.

    ``correct[n-1]`` and ``total[n-1]`` are the matched and total n-grams of order n.
    """

    sys_len: int
    ref_len: float
    correct: tuple[int, ...]
    total: tuple[int, ...]

    def __add__(self, other: Totals) -> Totals:
        if not isinstance(other, Totals):
            return NotImplemented
        if len(self.correct) != len(other.correct):
            raise LayoutError("cannot add totals of different orders", what="Totals")
        return Totals(
            sys_len=self.sys_len + other.sys_len,
            ref_len=self.ref_len + other.ref_len,
            correct=tuple(a + b for a, b in zip(self.correct, other.correct, strict=True)),
            total=tuple(a + b for a, b in zip(self.total, other.total, strict=True)),
        )
