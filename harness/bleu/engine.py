"""The in-house BLEU engine: tokenize → sufficient statistics → score.

Every variant of BLEU in the wild is the same pure function of the statistics in
:mod:`harness.bleu.stats`, wrapped in different choices; :class:`~harness.bleu.config.BleuConfig`
names those choices:

* :func:`compute_statistics` tokenizes and counts (the only step that reads text);
* :func:`totals_of` sums them under the config's reference-length and n-gram total rules;
* :mod:`harness.bleu.arithmetic` turns rows of statistics into scores (the only step that does
  BLEU arithmetic; :func:`score_totals` and :func:`score_arrays` are its one-row and many-row
  views, re-exported here), with the smoothing methods of :mod:`harness.bleu.smoothing`;
* :func:`score_statistics` / :func:`segment_results` aggregate (corpus or sentence mean).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import fastcount, hashed, shared_counts, vocabulary
from harness.bleu import tokenizers as _tok
from harness.bleu.arithmetic import (
    NltkContext,
    Scored,
    bleu_rows,
    context_of,
    score_arrays,
    score_totals,
    segment_contexts,
)
from harness.bleu.config import BleuConfig
from harness.bleu.layouts import CUT_BEFORE_COUNTING, counted_corpus
from harness.bleu.refusals import (
    corpus_refusals,
    empty_references_refusal,
    empty_segment_refusal,
    first_segment_refusal,
    ragged_refusal,
    segments_refused_alone,
)
from harness.bleu.reported import reported, reported_array
from harness.bleu.result import BleuResult
from harness.bleu.smoothing import get_smoothing
from harness.bleu.stats import Statistics, Totals, corpus_ref_length
from harness.bleu.tokenizers import TextRules, text_tokenizer
from harness.bleu.zero_length import zero_length_rule
from harness.data.corpus import Corpus
from harness.holds import collector_paused

__all__ = [
    "FAST_MIN_REFERENCES",
    "FAST_MIN_SEGMENTS",
    "NltkContext",
    "Scored",
    "SegmentArrays",
    "best_reference",
    "checked_totals",
    "clear_caches",
    "compute_statistics",
    "corpus_score",
    "counted_corpus",
    "counts_whole_corpus",
    "empty_segment_refusal",
    "first_segment_refusal",
    "mean_rows",
    "mean_weights",
    "needs_ref_matches",
    "orders_needed",
    "pair_statistics",
    "ragged_refusal",
    "reported",
    "reported_array",
    "score_arrays",
    "score_statistics",
    "score_totals",
    "segment_arrays",
    "segment_mean",
    "segment_results",
    "segment_scores",
    "tokenization_key",
    "totals_of",
]


# ====================================================================== statistics
def tokenization_key(config: BleuConfig, *, per_ref: bool | None = None) -> str:
    """What determines the counted statistics: tokenizer, case, strip and whitespace
    (:meth:`harness.bleu.tokenizers.TextRules.key`), plus ``split:ragas`` when the segments are
    cut into sentences first, ``refs:truncate``, ``refs:first`` or ``refs:joined`` when
    references are cut before counting, ``per-ref`` when each reference's own matches are
    counted (:func:`needs_ref_matches`, or ``per_ref`` when given: the key of the same tokens
    counted with them), and ``ngram:<identity>`` when n-grams are not matched by their tokens
    (``ngram_identity``). Cache keys and :attr:`Statistics.tokenization` use it."""
    key = config.text_rules.key()
    if config.sentence_split != "none":
        key += f"|split:{config.sentence_split}"
    if config.missing_refs in CUT_BEFORE_COUNTING:
        key += f"|refs:{config.missing_refs}"
    if needs_ref_matches(config) if per_ref is None else per_ref:
        key += "|per-ref"
    if config.ngram_identity != "tokens":
        key += f"|ngram:{config.ngram_identity}"
    return key


def counts_whole_corpus(config: BleuConfig) -> bool:
    """Whether a segment's statistics under ``config`` depend on the segments before it, so
    the corpus must be counted whole, never in shards: ``fairseq-hash`` numbers the words in
    order of first appearance over the corpus (:mod:`harness.bleu.hashed`)."""
    return config.ngram_identity == "fairseq-hash"


def needs_ref_matches(config: BleuConfig) -> bool:
    """Whether ``config`` scores each reference alone (:attr:`Statistics.ref_matches`)."""
    return config.aggregation == "best-ref-mean"


def orders_needed(config: BleuConfig) -> int:
    """How many n-gram orders the statistics must hold for ``config``.

    Some smoothing methods read more orders than they score (nltk's methods 5 and 7 look at
    order 5 of the last segment, whatever ``max_order`` is): ``Smoothing.orders_needed``.
    """
    return max(config.max_order, get_smoothing(config.smooth).orders_needed)


def _ngram_counts(tokens: Sequence[str], max_order: int) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    n_tok = len(tokens)
    for n in range(1, max_order + 1):
        for i in range(n_tok - n + 1):
            counts[tuple(tokens[i : i + n])] += 1
    return counts


@functools.lru_cache(maxsize=16384)
def _reference_side(
    rules: TextRules, refs: tuple[str, ...], max_order: int
) -> tuple[tuple[int, ...], dict[tuple[str, ...], int]]:
    """Reference lengths and, for every n-gram, its largest count in any single reference.

    Cached: when many systems are scored against the same references (WMT: 20 systems, 3
    references), each segment's references are tokenized and counted once. The returned dict
    is shared and must not be mutated.
    """
    tok = text_tokenizer(rules)
    lens = []
    ref_max: dict[tuple[str, ...], int] = {}
    for ref in refs:
        tokens = tok(ref)
        lens.append(len(tokens))
        for ngram, cnt in _ngram_counts(tokens, max_order).items():
            if cnt > ref_max.get(ngram, 0):
                ref_max[ngram] = cnt
    return tuple(lens), ref_max


def clear_caches() -> None:
    """Forget every cached tokenization and reference side (for benchmarks that start cold)."""
    _tok.clear_caches()
    _reference_side.cache_clear()
    _VOCABULARIES.clear()
    _SHARED.clear()
    fastcount.forget_references()


#: Statistics per counted corpus and plain text rules (main thread; :mod:`.shared_counts`).
_SHARED = shared_counts.SharedCounts(corpora=24)


#: The fast path's vocabularies (every distinct word's tokens, by text rules), kept across
#: calls in this process's main thread: the systems of a comparison share most of their words
#: and all of their references, which are then tokenized once per tokenization, not once per
#: system. At most :data:`VOCABULARY_WORDS` words in all; the oldest rules go first.
_VOCABULARIES = vocabulary.Vocabularies()
VOCABULARY_WORDS = 250_000


def _vocabularies() -> dict[_tok.TextRules, Any]:
    """The vocabularies a count may use: the kept ones in the main thread (whose counts run one
    at a time), a fresh set elsewhere (a thread pool's workers would share them unsafely)."""
    if threading.current_thread() is threading.main_thread():
        return _VOCABULARIES
    return {}


def _trim_vocabularies() -> None:
    _VOCABULARIES.trim(VOCABULARY_WORDS)


def _clipped_matches(
    hyp: Sequence[str], ref_max: dict[tuple[str, ...], int], max_order: int
) -> list[int]:
    """Clipped matches per order: each hypothesis n-gram counts at most its largest count in
    any single reference (Papineni et al. 2002, "modified n-gram precision")."""
    matches = [0] * max_order
    for ngram, cnt in _ngram_counts(hyp, max_order).items():
        best = ref_max.get(ngram)
        if best:
            matches[len(ngram) - 1] += min(cnt, best)
    return matches


#: Corpora with fewer segments use the per-segment Python path: for one segment numpy's fixed
#: costs dominate; from a few segments on the vectorised path is faster (benchmarks/README.md,
#: "Moved from code comments").
FAST_MIN_SEGMENTS = 2

#: A corpus of fewer segments with at least this many references in all (one hypothesis
#: against a whole reference file: identify's layout misuses) is counted vectorised too.
FAST_MIN_REFERENCES = 16


def compute_statistics(
    corpus: Corpus, config: BleuConfig, *, max_order: int | None = None, counted: bool = False
) -> Statistics:
    """Tokenize ``corpus`` as ``config`` says and count its sufficient statistics.

    Only the text rules matter here (``config.text_rules``: tokenizer, case, strip,
    whitespace), and the n-gram identity: ``ngram_identity="fairseq-hash"`` counts by hashed
    ids (:mod:`harness.bleu.hashed`, the whole corpus at once); ``max_order`` defaults to what
    ``config`` needs.

    Uses the vectorised counter of :mod:`harness.bleu.fastcount` (each distinct word or line
    tokenized once, exact packed n-gram keys, one sort per order) and, for corpora below
    ``FAST_MIN_SEGMENTS`` segments (and ``FAST_MIN_REFERENCES`` references) or keys that
    cannot be packed, the per-segment Python reference :func:`_statistics_reference`; both
    give identical statistics (``tests/test_fastpath.py``). ``counted``: ``corpus`` is already
    the corpus ``config`` counts (:func:`counted_corpus`, which the parallel paths apply to the
    whole corpus before sharding it), so its references are not cut again.
    """
    # a count makes a list per line and per batch of tokens, none of them in a cycle
    with collector_paused():
        return _statistics(corpus, config, max_order, counted)


def _statistics(
    corpus: Corpus, config: BleuConfig, max_order: int | None, counted: bool
) -> Statistics:
    """:func:`compute_statistics`, the collector paused."""
    order = max_order or orders_needed(config)
    if not counted:  # a cut is not always idempotent (truncate-drop-empty-eof)
        corpus = counted_corpus(corpus, config)
    entry: shared_counts.Counted | None = None
    plain: tuple[Any, ...] = ()
    if threading.current_thread() is threading.main_thread():
        extra = (config.ngram_identity, needs_ref_matches(config), order)
        entry, plain = _SHARED.key(corpus.hypotheses, corpus.references, config.text_rules, extra)
        done = entry.statistics.get(plain)
        if done is not None:
            return shared_counts.copied(done, ids=corpus.ids, tokenization=tokenization_key(config))
    # kept across calls only where both sides have the same rules: two-sided tokenizations
    # (a script lowercasing one side its own way) pair vocabularies whose token ids must agree;
    # the hashed identity numbers tokens afresh per corpus, so only its strings are reused
    hashing = config.ngram_identity == "fairseq-hash"
    vocabularies = {} if config.text_rules.by_side and not hashing else _vocabularies()
    try:
        per_ref = needs_ref_matches(config) and not hashing  # the hashed count clips per ref
        if hashing:
            stats = _hashed_statistics(corpus, config, order, vocabularies)
        else:
            stats = _count(corpus, config, order, vocabularies, per_reference=per_ref)
        if per_ref and stats.ref_matches is None:
            # each reference alone: the statistics of the (hypothesis, one reference) pairs
            k = [len(r) for r in corpus.references]
            pairs = Corpus(
                hypotheses=tuple(
                    h for h, n in zip(corpus.hypotheses, k, strict=True) for _ in range(n)
                ),
                references=tuple((r,) for refs in corpus.references for r in refs),
                check_text=False,
            )
            alone = _count(pairs, config, order, vocabularies)
            stats = dataclasses.replace(stats, ref_matches=alone.matches)
    except BaseException:
        # a count cut short (Ctrl-C in a notebook, an error) may leave a vocabulary with
        # words registered and not yet tokenized: none of them is kept
        vocabularies.clear()
        fastcount.forget_references()
        raise
    if vocabularies is _VOCABULARIES:
        _trim_vocabularies()
    if entry is not None:  # a copy: callers may change or freeze the arrays they are given
        _SHARED.store(entry, plain, stats)
    return stats


def _hashed_statistics(
    corpus: Corpus, config: BleuConfig, order: int, vocabularies: dict[_tok.TextRules, Any]
) -> Statistics:
    """The statistics of ``ngram_identity="fairseq-hash"``: tokens from the fast path's
    vocabularies, n-grams counted by hash (never by the packed keys of exact identities)."""
    counts = hashed.count_statistics(
        corpus.hypotheses,
        corpus.references,
        config.text_rules,
        order,
        per_reference=needs_ref_matches(config),
        vocabularies=vocabularies,
    )
    return Statistics(
        hyp_len=counts.hyp_len,
        ref_lens=counts.ref_lens,
        matches=counts.matches,
        ids=corpus.ids,
        tokenization=tokenization_key(config),
        ref_matches=counts.ref_matches,
    )


def _ragged(flat: np.ndarray, counts: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """``flat`` cut into consecutive tuples of ``counts[i]`` items (built in C when every
    segment has as many references)."""
    values = flat.tolist()
    if len(counts) and counts[0] > 0 and (counts == counts[0]).all():
        return tuple(zip(*[iter(values)] * int(counts[0]), strict=True))
    it = iter(values)
    return tuple(tuple(itertools.islice(it, n)) for n in counts.tolist())


def _count(
    corpus: Corpus,
    config: BleuConfig,
    order: int,
    vocabularies: dict[_tok.TextRules, Any] | None = None,
    *,
    per_reference: bool = False,
) -> Statistics:
    """:func:`compute_statistics` of ``corpus`` as given (fast path, else the reference);
    ``vocabularies``: the fast path's token tables, shared between calls. ``per_reference``:
    also each (hypothesis, one reference) pair's matches where the fast path counts them from
    the same tokens (``ref_matches``; left ``None`` otherwise)."""
    if len(corpus) >= FAST_MIN_SEGMENTS or sum(map(len, corpus.references)) >= FAST_MIN_REFERENCES:
        pairs = None
        if per_reference and fastcount.counts_pairs():
            n_refs = sum(map(len, corpus.references))
            pairs = np.zeros((n_refs, order), dtype=np.int64)
        try:
            hyp_len, ref_len, k, matches = fastcount.count_statistics(
                corpus.hypotheses,
                corpus.references,
                config.text_rules,
                order,
                vocabularies=vocabularies,
                ref_matches=pairs,
            )
        except fastcount.DoesNotFit:
            pass
        else:
            return Statistics(
                hyp_len=hyp_len,
                ref_lens=_ragged(ref_len, k),
                matches=matches,
                ids=corpus.ids,
                tokenization=tokenization_key(config),
                ref_matches=pairs,
            )
    return _statistics_reference(corpus, config, max_order=order)


def _statistics_reference(
    corpus: Corpus, config: BleuConfig, *, max_order: int | None = None
) -> Statistics:
    """The per-segment Python path: the reference the fast path is tested against.

    Each segment's references are tokenized and counted with :class:`collections.Counter`
    (cached per reference tuple in :func:`_reference_side`), then the hypothesis is clipped.
    """
    order = max_order or orders_needed(config)
    rules = config.text_rules
    tok = text_tokenizer(rules.side("hypothesis"))
    s = len(corpus)
    hyp_len = np.zeros(s, dtype=np.int64)
    matches = np.zeros((s, order), dtype=np.int64)
    ref_lens: list[tuple[int, ...]] = []
    for i, (hyp, refs) in enumerate(zip(corpus.hypotheses, corpus.references, strict=True)):
        h = tok(hyp)
        lens, ref_max = _reference_side(rules.side("reference"), refs, order)
        hyp_len[i] = len(h)
        ref_lens.append(lens)
        matches[i] = _clipped_matches(h, ref_max, order)
    return Statistics(
        hyp_len=hyp_len,
        ref_lens=tuple(ref_lens),
        matches=matches,
        ids=corpus.ids,
        tokenization=tokenization_key(config),
    )


# ====================================================================== scoring
def totals_of(stats: Statistics, config: BleuConfig) -> Totals:
    """Corpus sums of ``stats`` under ``config``'s reference-length and n-gram total rules
    (made once per rules for the statistics, which every configuration of the tokenization
    shares)."""
    n, rule, missing = config.max_order, config.ref_length, config.missing_refs

    def make() -> Totals:
        ref = stats.ref_length(rule, missing=missing)
        tot = stats.totals(config.ngram_totals, n)
        return Totals(
            sys_len=int(stats.hyp_len.sum()),
            ref_len=corpus_ref_length(ref, rule),
            correct=tuple(int(x) for x in stats.counted(config.ngram_totals, n).sum(axis=0)),
            total=tuple(int(x) for x in tot.sum(axis=0)),
        )

    return stats.memo(("totals_of", rule, missing, config.ngram_totals, n), make)


# ====================================================================== aggregation
def _result(
    scored: Scored,
    t: Totals,
    signature: str,
    implementation: str,
    level: str,
    segment_id: str | None = None,
) -> BleuResult:
    return BleuResult(
        score=scored.score,
        precisions=scored.precisions,
        bp=scored.bp,
        ratio=scored.ratio,
        hyp_len=t.sys_len,
        ref_len=t.ref_len,
        counts=tuple(int(x) for x in t.correct),
        totals=tuple(int(x) for x in t.total),
        signature=signature,
        implementation=implementation,
        level=level,
        segment_id=segment_id,
    )


@dataclass(frozen=True)
class SegmentArrays:
    """Every segment's score at once: ``score`` (S,), ``precisions`` (S, N) on 0–100 (zero for
    orders not used), ``bp``, ``ratio``, and the statistics behind them: ``ref_len`` (S,) under
    the config's rule, ``counts`` and ``totals`` (S, N)."""

    score: np.ndarray
    precisions: np.ndarray
    bp: np.ndarray
    ratio: np.ndarray
    ref_len: np.ndarray
    counts: np.ndarray
    totals: np.ndarray


def segment_arrays(stats: Statistics, config: BleuConfig) -> SegmentArrays:
    """Every segment scored as a sentence on its own statistics, all at once.

    :func:`harness.bleu.arithmetic.bleu_rows` with one row per segment (nltk's methods see
    each segment's own context). A segment the profiled library would raise on raises
    :class:`~harness.errors.LibraryWouldRaise`, as scoring the first such segment alone does.
    """
    if config.aggregation == "best-ref-mean":
        return _best_reference_arrays(stats, config)
    rule = zero_length_rule(config.on_zero_length)
    if rule.first_segment_refusal or rule.empty_segment_refusal:
        _first_segment_refusals(stats, config)
    empty_references_refusal(stats, config)  # each segment scored alone raises as in a corpus
    n = config.max_order
    ref = stats.ref_length(config.ref_length, missing=config.missing_refs)
    tot = stats.totals(config.ngram_totals, n)
    counts = stats.counted(config.ngram_totals, n)
    ctx = segment_contexts(stats) if get_smoothing(config.smooth).context else None
    rows = bleu_rows(stats.hyp_len, ref, counts, tot, config, context=ctx)
    return SegmentArrays(
        rows.score, rows.precisions, rows.bp, rows.ratio, ref_len=ref, counts=counts, totals=tot
    )


def _first_segment_refusals(stats: Statistics, config: BleuConfig) -> None:
    """Each segment scored alone is a corpus of its own: raise what the first refused segment
    raises — a segment jury refuses before scoring (:func:`first_segment_refusal`), or opik
    (:func:`~harness.bleu.refusals.empty_segment_refusal`) — unless an earlier segment is
    refused by the arithmetic (a zero length, a smoothing method's assertion)."""
    rule = zero_length_rule(config.on_zero_length)
    k = np.fromiter(map(len, stats.ref_lens), np.int64, len(stats))
    first_ref = np.fromiter((r[0] if r else -1 for r in stats.ref_lens), np.int64, len(stats))
    refused = segments_refused_alone(stats, config)  # opik's, unless a mean leaves them out
    if rule.first_segment_refusal:
        refused |= (stats.hyp_len == 0) | ((k == 1) & (first_ref == 0))
    if not refused.any():
        return
    row = int(np.argmax(refused))
    if row:
        segment_arrays(stats.subset(range(row)), config)  # raises an earlier segment's refusal
    first_segment_refusal(stats.subset([row]), config)
    empty_segment_refusal(stats.subset([row]), config)


def pair_statistics(stats: Statistics) -> Statistics:
    """One row per (segment, reference) pair: the hypothesis with that reference alone
    (:attr:`Statistics.pairs`, made once per statistics)."""
    return stats.pairs


def best_reference(stats: Statistics, config: BleuConfig) -> tuple[SegmentArrays, np.ndarray]:
    """Every reference scored alone as a sentence (one row per pair, :func:`pair_statistics`)
    and, per segment, the row of its best one (the first listed among equals)."""
    pairs = pair_statistics(stats)
    rows = segment_arrays(pairs, dataclasses.replace(config, aggregation="sentence-mean"))
    k = np.fromiter(map(len, stats.ref_lens), np.int64, len(stats))
    seg = np.repeat(np.arange(len(stats)), k)
    order = np.lexsort((np.arange(len(seg)), -rows.score, seg))
    return rows, order[np.cumsum(k) - k]


def _best_reference_arrays(stats: Statistics, config: BleuConfig) -> SegmentArrays:
    rows, best = best_reference(stats, config)
    return SegmentArrays(*(getattr(rows, f.name)[best] for f in dataclasses.fields(SegmentArrays)))


def reference_lengths(arrays: SegmentArrays, config: BleuConfig) -> list[Any]:
    """Each segment's reference length as a result reports it: an ``int``, a ``float`` under
    ``ref_length="average"``."""
    refs = arrays.ref_len.tolist()
    return refs if config.ref_length == "average" else [int(x) for x in refs]


def segment_results(
    stats: Statistics, config: BleuConfig, *, implementation: str = "harness"
) -> list[BleuResult]:
    """One sentence-level result per segment (each segment scored on its own statistics)."""
    sig = config.signature()
    arr = segment_arrays(stats, config)
    refs = reference_lengths(arr, config)
    precisions = [tuple(row) for row in arr.precisions.tolist()]
    counts = [tuple(row) for row in arr.counts.tolist()]
    totals = [tuple(row) for row in arr.totals.tolist()]
    return [
        BleuResult(
            score=score,
            precisions=prec,
            bp=bp,
            ratio=ratio,
            hyp_len=hyp_len,
            ref_len=ref,
            counts=cnt,
            totals=tot,
            signature=sig,
            implementation=implementation,
            level="segment",
            segment_id=seg_id,
        )
        for score, prec, bp, ratio, hyp_len, ref, cnt, tot, seg_id in zip(
            arr.score.tolist(),
            precisions,
            arr.bp.tolist(),
            arr.ratio.tolist(),
            stats.hyp_len.tolist(),
            refs,
            counts,
            totals,
            stats.ids,
            strict=True,
        )
    ]


def score_statistics(
    stats: Statistics, config: BleuConfig, *, implementation: str = "harness"
) -> BleuResult:
    """The corpus-level result: BLEU of the summed statistics, or the mean of sentence scores.

    For ``aggregation="sentence-mean"`` (or ``best-ref-mean``: each segment's best reference
    scored alone), ``score``, ``precisions`` and ``bp`` are means over segments; lengths,
    counts and totals are corpus sums (of the multi-reference statistics).
    """
    t = checked_totals(stats, config)
    sig = config.signature()
    if config.aggregation == "corpus":
        ctx = context_of(stats) if get_smoothing(config.smooth).context else None
        scored = score_totals(t, config, ctx, longest=int(stats.hyp_len.max()))
        scored = dataclasses.replace(scored, score=reported(scored.score, config))
        return _result(scored, t, sig, implementation, "corpus")
    arr = segment_arrays(stats, config)
    rows = mean_rows(stats, config)
    scored = Scored(
        score=reported(segment_mean(arr.score, rows), config),
        precisions=tuple(segment_mean(col, rows) for col in arr.precisions.T),
        bp=segment_mean(arr.bp, rows),
        ratio=t.sys_len / t.ref_len if t.ref_len > 0 else 0.0,
    )
    return _result(scored, t, sig, implementation, "corpus")


def checked_totals(stats: Statistics, config: BleuConfig) -> Totals:
    """:func:`totals_of`, once what the profiled library raises before it scores is raised
    (no segments, :func:`~harness.bleu.refusals.corpus_refusals`)."""
    if len(stats) == 0:
        raise ValueError("no segments")
    corpus_refusals(stats, config)
    return totals_of(stats, config)


def mean_rows(stats: Statistics, config: BleuConfig) -> np.ndarray | None:
    """The segments a sentence mean is taken over: ``None`` for every one, else their rows
    (:func:`mean_weights`)."""
    weights = mean_weights(stats, config)
    return None if weights is None else np.flatnonzero(weights)


def segment_mean(values: np.ndarray, rows: np.ndarray | None) -> float:
    """The mean of the segments' ``values`` over ``rows`` (:func:`mean_rows`); 0 over none."""
    # Python's sum over the segments in order, as the libraries add their sentence scores
    kept = values if rows is None else values[rows]
    return sum(kept.tolist()) / len(kept) if len(kept) else 0.0


def mean_weights(stats: Statistics, config: BleuConfig) -> np.ndarray | None:
    """Which segments a sentence mean is taken over: ``None`` for every segment, or, for
    ``aggregation="nonempty-mean"``, 1.0 where the hypothesis and every reference have tokens
    and 0.0 elsewhere."""
    if config.aggregation != "nonempty-mean":
        return None
    return (~stats.has_empty_side).astype(np.float64)


def corpus_score(
    corpus: Corpus, config: BleuConfig, *, implementation: str = "harness"
) -> BleuResult:
    """Score a whole corpus with the in-house engine."""
    return score_statistics(
        compute_statistics(corpus, config), config, implementation=implementation
    )


def segment_scores(
    corpus: Corpus, config: BleuConfig, *, implementation: str = "harness"
) -> list[BleuResult]:
    """Sentence-level scores of every segment with the in-house engine."""
    return segment_results(
        compute_statistics(corpus, config), config, implementation=implementation
    )
