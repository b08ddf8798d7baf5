"""Engine scores of corpora under many configurations, from statistics counted once.

:class:`CorporaScorer` scores several corpora, each a corpus of its own (validate's battery of
cases), and :class:`CorpusScorer` one corpus (identify's search), under any number of
configurations:

* statistics are counted by a :class:`~harness.session.Session` once per tokenization
  (:func:`harness.bleu.engine.tokenization_key`) for all the corpora together. A segment's
  statistics do not depend on the segments around it (the engine's shards rely on it too), so
  the corpora are joined into one corpus and counted once; a counting that reads the whole
  corpus (:func:`harness.bleu.engine.counts_whole_corpus`: fairseq's hashed n-grams) is done
  corpus by corpus, and references cut to a corpus's fewest (``missing_refs="truncate"``,
  ``"truncate-drop-empty-eof"``: :data:`harness.bleu.config.TRUNCATIONS`,
  :func:`harness.bleu.engine.counted_corpus`) are cut corpus by corpus before the join;
* the rows of statistics (every segment's hypothesis length, reference length, matches and
  totals, or each corpus's sums) once per (tokenization, missing-reference rule, reference
  length rule, n-gram total rule, order), by the rules' one implementation in
  :mod:`harness.bleu.stats`;
* a configuration is then one call of :func:`harness.bleu.arithmetic.bleu_rows` for all the
  corpora, and configurations that differ only in how their rows are built share that call;
  those whose rows differ only in their reference lengths (reference-length rules, and
  missing-reference rules, on the same statistics and n-gram totals) share their counts, and
  the call scores them by :func:`harness.bleu.arithmetic.bleu_rows_shared`: what reads no
  reference length once per row of counts.

Every score equals ``engine.score_statistics(engine.compute_statistics(corpus, config),
config).score`` of that corpus alone (0–100); a corpus the engine raises
:class:`~harness.errors.LibraryWouldRaise` on has none (``None``), found by halving a batch
that raises. Two cases use the engine's own functions instead of rows: ``best-ref-mean``
(every reference scored alone, :func:`harness.bleu.engine.segment_arrays` on the joined
statistics), and, under ``on_zero_length="jury"``, the corpora jury may refuse before it
scores (an empty hypothesis or first reference: :func:`harness.bleu.engine.score_statistics`
of that corpus).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from harness.bleu import engine
from harness.bleu.arithmetic import (
    NltkContext,
    bleu_rows,
    bleu_rows_shared,
    group_contexts,
    needs_longest,
    segment_contexts,
)
from harness.bleu.config import EMPTY_REFERENCE_DROPS, RAGGED_REFUSALS, TRUNCATIONS, BleuConfig
from harness.bleu.smoothing import get_smoothing
from harness.bleu.stats import (
    Statistics,
    counted,
    join_ref_matches,
    padded_ref_matrix,
    ref_length_of,
    ref_length_sums,
)
from harness.bleu.tokenizers import TextRules
from harness.bleu.zero_length import zero_length_rule
from harness.data.corpus import Corpus
from harness.errors import LibraryWouldRaise
from harness.session import Session

__all__ = ["CorporaScorer", "CorpusScorer", "TokenizedStatistics", "halving"]

#: The fewest orders counted: nltk's smoothing methods read order 5 whatever ``max_order`` is.
_MIN_ORDER = 5


@dataclasses.dataclass(frozen=True, eq=False)
class TokenizedStatistics:
    """The statistics of one or more corpora under one tokenization, segment after segment.

    ``statistics``: every corpus's segments in order (int64 arrays, orders 1..``order``);
    ``starts`` (C,): the first segment of each corpus (corpus ``i`` runs up to the next start,
    the last to the end).
    """

    statistics: Statistics
    starts: np.ndarray

    @property
    def hyp_len(self) -> np.ndarray:
        """(S,) hypothesis lengths."""
        return self.statistics.hyp_len

    @property
    def ref_matrix(self) -> np.ndarray:
        """(S, K) reference lengths, -1 padding segments with fewer than ``K`` references."""
        return self.statistics.ref_matrix

    @property
    def matches(self) -> np.ndarray:
        """(S, order) clipped matches of orders 1..``order``."""
        return self.statistics.matches

    @property
    def order(self) -> int:
        """The highest order counted."""
        return self.statistics.max_order

    @functools.cached_property
    def stops(self) -> np.ndarray:
        """(C,) one past the last segment of each corpus."""
        return np.append(self.starts[1:], len(self.statistics))

    @functools.cached_property
    def widths(self) -> np.ndarray:
        """(S,) the most references any segment of each segment's corpus has."""
        counts = (self.ref_matrix >= 0).sum(axis=1)
        return np.repeat(np.maximum.reduceat(counts, self.starts), self.stops - self.starts)

    @functools.cached_property
    def corpus_hyp_len(self) -> np.ndarray:
        """(C,) each corpus's hypothesis length."""
        return np.add.reduceat(self.hyp_len, self.starts)

    @functools.cached_property
    def corpus_contexts(self) -> NltkContext:
        """Each corpus's nltk context (its hypothesis length and its last segment)."""
        return group_contexts(self.statistics, self.starts)

    @functools.cached_property
    def segment_contexts(self) -> NltkContext:
        """Every segment's own nltk context."""
        return segment_contexts(self.statistics)

    def fingerprint(self) -> tuple[Any, ...]:
        """Equal for statistics that are equal array for array."""
        return (
            self.ref_matrix.shape,
            self.matches.shape,
            self.hyp_len.tobytes(),
            self.ref_matrix.tobytes(),
            self.matches.tobytes(),
        )


def _joined(corpora: Sequence[Corpus]) -> Corpus:
    """The corpora's segments in order, as one corpus (the only one, when there is one)."""
    if len(corpora) == 1:
        return corpora[0]
    return Corpus(
        hypotheses=tuple(h for c in corpora for h in c.hypotheses),
        references=tuple(r for c in corpora for r in c.references),
        check_text=False,  # the text of each corpus was checked (or not) when it was made
    )


def _concatenated(parts: Sequence[Statistics], order: int) -> Statistics:
    """Statistics of several corpora, counted apart, one after the other."""
    ref_lens = tuple(r for p in parts for r in p.ref_lens)
    return Statistics(
        hyp_len=np.concatenate([p.hyp_len for p in parts]),
        ref_lens=ref_lens,
        matches=np.concatenate([p.matches[:, :order] for p in parts]),
        ids=tuple(str(i) for i in range(1, len(ref_lens) + 1)),
        tokenization=parts[0].tokenization,
        ref_matches=join_ref_matches(parts, order),
    )


#: The factors that only build a configuration's rows of statistics (which reference length,
#: which n-gram totals, padded references; the arithmetic reads none of them).
_ROW_STANDARD = {"ref_length": "closest", "ngram_totals": "plain", "missing_refs": "skip"}

#: The fields that say how a segment becomes tokens (:attr:`BleuConfig.text_rules`): they
#: choose the statistics a configuration's rows are built from, and the arithmetic reads none.
_TEXT_RULE_FIELDS = frozenset(f.name for f in dataclasses.fields(TextRules))

#: A configuration's fields but :data:`_ROW_STANDARD`'s and its text rules': configurations
#: equal in them run the same arithmetic on their own rows, so :meth:`CorporaScorer.table`
#: scores them in one call whatever statistics each reads.
_arithmetic = operator.attrgetter(
    *(
        f.name
        for f in dataclasses.fields(BleuConfig)
        if f.name not in _ROW_STANDARD and f.name not in _TEXT_RULE_FIELDS
    )
)

#: Rows of statistics: (sys_len, ref_len, correct, total), one per segment or per corpus.
Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: Rows' counts: (correct, total).
Counts = tuple[np.ndarray, np.ndarray]


def halving(
    batch: Callable[[int, int], list[float]],
    count: int,
    refusals: tuple[type[BaseException], ...],
) -> list[float | None]:
    """``batch(lo, hi)`` — the scores of items ``lo..hi-1`` in one call — for all ``count``
    items, with ``None`` for each item that raises one of ``refusals`` alone: one item that
    raises makes its whole batch raise, so a raising batch is halved until the item stands
    alone (a few calls per refusing item instead of one call per item)."""

    def run(lo: int, hi: int) -> list[float | None]:
        try:
            return list(batch(lo, hi))
        except refusals:
            if hi - lo == 1:
                return [None]
            mid = (lo + hi) // 2
            return run(lo, mid) + run(mid, hi)

    return run(0, count) if count else []


class CorporaScorer:
    """Engine scores of several corpora, each scored as a corpus of its own, under many
    configurations (see the module docstring for how and what they equal).

    ``session``: where statistics are counted and cached (its corpora are not used).
    """

    def __init__(self, corpora: Sequence[Corpus], *, session: Session) -> None:
        if not corpora:
            raise ValueError("no corpora to score")
        self.corpora = tuple(corpora)
        self.session = session
        sizes = np.fromiter(map(len, self.corpora), np.int64, len(self.corpora))
        self.starts = np.cumsum(sizes) - sizes
        self._joined: Session | None = None
        self._tokenized: dict[str, TokenizedStatistics] = {}
        self._rows: dict[tuple[Any, ...], Rows] = {}
        self._counts_of: dict[tuple[Any, ...], Counts] = {}
        # the rows and contexts stacked last, by kind (see _stacked)
        self._last: dict[str, tuple[tuple[Any, ...], list[Any], Any]] = {}

    def __len__(self) -> int:
        return len(self.corpora)

    # ------------------------------------------------------------------ statistics
    def tokenized(self, config: BleuConfig, order: int | None = None) -> TokenizedStatistics:
        """The statistics ``config`` scores (its :func:`~harness.bleu.engine.tokenization_key`)
        of every corpus, orders 1..max(5, ``order``; default what ``config`` needs)."""
        order = max(_MIN_ORDER, order or engine.orders_needed(config))
        key = engine.tokenization_key(config)
        got = self._tokenized.get(key)
        if got is None or got.order < order:
            got = TokenizedStatistics(self._count(config, order), self.starts)
            self._tokenized[key] = got
        return got

    def _count(self, config: BleuConfig, order: int) -> Statistics:
        if engine.counts_whole_corpus(config) and len(self.corpora) > 1:
            parts = [
                self.session.with_corpora(c).statistics(config, max_order=order)
                for c in self.corpora
            ]
            return _concatenated(parts, order)
        left = TRUNCATIONS.get(config.missing_refs)  # the rule once the cut is made
        if left is not None and len(self.corpora) > 1:
            cut = [engine.counted_corpus(c, config) for c in self.corpora]
            counted = self.session.with_corpora(_joined(cut))
            return counted.statistics(config.replace(missing_refs=left), max_order=order)
        if self._joined is None:
            self._joined = self.session.with_corpora(_joined(self.corpora))
        return self._joined.statistics(config, max_order=order)

    # ------------------------------------------------------------------ rows
    def _counts(self, config: BleuConfig, stats: TokenizedStatistics) -> Counts:
        """Every segment's matches and totals under ``config``'s total rule: the same arrays
        for every reference-length and missing-reference rule."""
        key = ("counts", *_counts_key(config))
        got = self._counts_of.get(key)
        if got is None:
            got = counted(stats.hyp_len, stats.matches, config.ngram_totals, config.max_order)
            self._counts_of[key] = got
        return got

    def _segment_rows(self, config: BleuConfig, stats: TokenizedStatistics) -> Rows:
        """Every segment's statistics under ``config``'s length and total rules."""
        key = ("segments", *_rows_key(config))
        got = self._rows.get(key)
        if got is None:
            refs = padded_ref_matrix(stats.ref_matrix, config.missing_refs, stats.widths)
            got = (
                stats.hyp_len,
                ref_length_of(stats.hyp_len, refs, config.ref_length),
                *self._counts(config, stats),
            )
            self._rows[key] = got
        return got

    def _corpus_rows(self, config: BleuConfig, stats: TokenizedStatistics) -> Rows:
        """Each corpus's sums under ``config``'s length and total rules, one row per corpus."""
        key = ("corpora", *_rows_key(config))
        got = self._rows.get(key)
        if got is None:
            _, ref, correct, total = self._segment_rows(config, stats)
            starts = stats.starts
            sums_key = ("sums", *_counts_key(config))
            sums = self._counts_of.get(sums_key)
            if sums is None:
                sums = (
                    np.add.reduceat(correct, starts, axis=0),
                    np.add.reduceat(total, starts, axis=0),
                )
                self._counts_of[sums_key] = sums
            got = (
                stats.corpus_hyp_len,
                ref_length_sums(ref, starts, config.ref_length),
                *sums,
            )
            self._rows[key] = got
        return got

    # ------------------------------------------------------------------ scores
    def _batch(self, configs: Sequence[BleuConfig], lo: int, hi: int) -> list[list[float | None]]:
        """The scores of corpora ``lo..hi-1`` under each of ``configs`` (equal but for
        :data:`_ROW_STANDARD` and their text rules, each scored on its own statistics), all in
        one arithmetic call; ``None`` where the arithmetic refuses a corpus (one of its
        rows)."""
        first = configs[0]
        each = [self.tokenized(c) for c in configs]
        stats = each[0]
        if first.aggregation == "best-ref-mean":
            return [self._best_reference(c, s, lo, hi) for c, s in zip(configs, each, strict=True)]
        corpus = first.aggregation == "corpus"
        seg_lo, seg_hi = int(self.starts[lo]), int(stats.stops[hi - 1])
        part = slice(lo, hi) if corpus else slice(seg_lo, seg_hi)
        rows = [
            (self._corpus_rows if corpus else self._segment_rows)(c, s)
            for c, s in zip(configs, each, strict=True)
        ]
        # configurations whose rows hold the very same counts: scored on one copy of them
        shares: dict[tuple[int, int, int], int] = {}
        owner = [shares.setdefault((id(r[0]), id(r[2]), id(r[3])), len(shares)) for r in rows]
        lead = [owner.index(u) for u in range(len(shares))]
        sys_len, ref_len, correct, total, source = self._stacked(
            ("rows", part.start, part.stop), rows, lambda: _stack(rows, part, owner, lead)
        )
        context = None
        if get_smoothing(first.smooth).context:
            ones = [each[i].corpus_contexts if corpus else each[i].segment_contexts for i in lead]
            context = self._stacked(
                ("context", part.start, part.stop), ones, lambda: _stack_contexts(ones, part)
            )
        longest = None
        if corpus and needs_longest(first):
            longest = np.concatenate(
                [np.maximum.reduceat(each[i].hyp_len, each[i].starts)[part] for i in lead]
            )
        if source is None:
            scored = bleu_rows(
                sys_len,
                ref_len,
                correct,
                total,
                first,
                context=context,
                corpus=corpus,
                on_refusal="mark",
                longest=longest,
            )
        else:
            scored = bleu_rows_shared(
                sys_len,
                ref_len,
                correct,
                total,
                first,
                source=source,
                context=context,
                corpus=corpus,
                on_refusal="mark",
                longest=longest,
            )
        assert scored.refused is not None
        per_config = scored.score.reshape(len(configs), -1)
        refused = scored.refused.reshape(len(configs), -1)
        if corpus:
            values = [row.tolist() for row in per_config]
        else:  # a corpus's sentence mean is refused when any of its sentences is
            firsts = self.starts[lo:hi] - seg_lo
            refused = np.logical_or.reduceat(refused, firsts, axis=1)
            bounds = firsts[1:].tolist()
            values = []
            for row, c, s in zip(per_config, configs, each, strict=True):
                weights = engine.mean_weights(s.statistics, c)
                kept = None if weights is None else weights[seg_lo:seg_hi] > 0
                values.append(_means(row, bounds, kept))
        values = [
            [engine.reported(v, c) for v in row] for row, c in zip(values, configs, strict=True)
        ]
        return [
            [None if no else v for v, no in zip(row, mask.tolist(), strict=True)]
            for row, mask in zip(values, refused, strict=True)
        ]

    def _stacked(self, key: tuple[Any, ...], parts: list[Any], build: Callable[[], Any]) -> Any:
        """``build()``, the arrays of ``parts`` (rows or contexts, one per configuration) one
        after the other, or the arrays built last when they were built from the very same
        parts: the configurations :meth:`table` scores one group after another differ in
        their smoothing alone, and read the same rows."""
        last = self._last.get(key[0])
        if (
            last is not None
            and last[0] == key
            and len(last[1]) == len(parts)
            and all(a is b for a, b in zip(last[1], parts, strict=True))
        ):
            return last[2]
        got = build()
        self._last[key[0]] = (key, parts, got)
        return got

    def _best_reference(
        self, config: BleuConfig, stats: TokenizedStatistics, lo: int, hi: int
    ) -> list[float | None]:
        """Each reference scored alone, the best per segment, the mean per corpus (as
        :func:`harness.bleu.engine.score_statistics` scores ``best-ref-mean``); ``None`` for
        a corpus the engine refuses (a raising batch is halved until the corpus stands
        alone)."""
        whole = stats.statistics

        def batch(first: int, stop: int) -> list[float]:
            seg_lo, seg_hi = int(self.starts[lo + first]), int(stats.stops[lo + stop - 1])
            part = whole if seg_hi - seg_lo == len(whole) else whole.subset(range(seg_lo, seg_hi))
            scores = engine.segment_arrays(part, config).score
            means = _means(scores, (self.starts[lo + first + 1 : lo + stop] - seg_lo).tolist())
            return [engine.reported(v, config) for v in means]

        return halving(batch, hi - lo, (LibraryWouldRaise,))

    def _engine_score(self, config: BleuConfig, index: int) -> float:
        """The engine's own score of corpus ``index`` (raises where it does)."""
        stats = self.tokenized(config)
        start, stop = int(self.starts[index]), int(stats.stops[index])
        whole = stats.statistics
        part = whole if stop - start == len(whole) else whole.subset(range(start, stop))
        return engine.score_statistics(part, config).score

    def _may_refuse_first(self, config: BleuConfig) -> list[int]:
        """The corpora a library may refuse before scoring, which the engine scores itself:
        jury's (an empty hypothesis or first reference somewhere: a superset of
        :func:`harness.bleu.engine.first_segment_refusal` and its per-segment form), opik's
        (an empty hypothesis or reference somewhere), a corpus of ragged references under
        ``missing_refs="refuse"`` or ``"refuse-eof"``
        (:func:`harness.bleu.engine.ragged_refusal`), and one with a segment whose references
        all have no tokens under the ``missing_refs`` rules that leave out empty references
        (:func:`harness.bleu.refusals.empty_references_refusal`)."""
        rule = zero_length_rule(config.on_zero_length)
        jury, opik = rule.first_segment_refusal, rule.empty_segment_refusal
        ragged = config.missing_refs in RAGGED_REFUSALS
        bare = config.missing_refs in EMPTY_REFERENCE_DROPS
        if not (jury or opik or ragged or bare):
            return []
        stats = self.tokenized(config)
        refs = (stats.ref_matrix >= 0).sum(axis=1)
        flags = np.zeros(len(refs), dtype=bool)
        if jury:
            flags |= (stats.hyp_len == 0) | (stats.ref_matrix[:, 0] == 0)
        if opik:
            flags |= stats.statistics.has_empty_side
        if ragged:
            flags |= refs != np.repeat(refs[stats.starts], stats.stops - stats.starts)
        if bare:  # every reference without tokens (harness.bleu.refusals)
            flags |= (stats.ref_matrix <= 0).all(axis=1)
        return np.flatnonzero(np.add.reduceat(flags, stats.starts)).tolist()

    def score(self, config: BleuConfig, index: int) -> float:
        """Corpus ``index``'s score under ``config``; raises
        :class:`~harness.errors.LibraryWouldRaise` where the engine raises (the engine's own
        error, from the engine itself)."""
        if index not in self._may_refuse_first(config):
            value = self._batch([config], index, index + 1)[0][0]
            if value is not None:
                return value
        return self._engine_score(config, index)

    def score_each(self, config: BleuConfig) -> list[float | None]:
        """Each corpus's score under ``config`` (``None`` where the engine raises)."""
        return self.table([config])[0]

    def table(self, configs: Sequence[BleuConfig]) -> list[list[float | None]]:
        """Every corpus's score under each of ``configs`` (``None`` where the engine raises):
        configurations that differ only in how their rows are built (:data:`_ROW_STANDARD`)
        and in their text rules (each on its own statistics) in one arithmetic call."""
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, c in enumerate(configs):
            # effective order reads the rows' totals or their longest hypothesis, by total rule
            key = (_arithmetic(c), needs_longest(c))
            groups.setdefault(key, []).append(i)
        out: list[list[float | None]] = [[] for _ in configs]
        for members in groups.values():
            values = self._batch([configs[i] for i in members], 0, len(self.corpora))
            for i, v in zip(members, values, strict=True):
                out[i] = v
        for i, c in enumerate(configs):
            for index in self._may_refuse_first(c):
                try:
                    out[i][index] = self._engine_score(c, index)
                except LibraryWouldRaise:
                    out[i][index] = None
        return out


def _counts_key(config: BleuConfig) -> tuple[Any, ...]:
    """What a configuration's matches and totals depend on: its statistics and total rule."""
    return (engine.tokenization_key(config), config.ngram_totals, config.max_order)


def _rows_key(config: BleuConfig) -> tuple[Any, ...]:
    """What a configuration's rows depend on: its statistics and its length and total rules."""
    return (
        engine.tokenization_key(config),
        config.missing_refs,
        config.ref_length,
        config.ngram_totals,
        config.max_order,
    )


_CONTEXT_FIELDS = ("hyp_len", "last_hyp_len", "last_correct5", "last_total5")


def _stack(
    rows: Sequence[Rows], part: slice, owner: Sequence[int], lead: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The ``part`` of each configuration's rows, one configuration after the other, as
    ``(sys_len, ref_len, correct, total, source)``: the reference lengths of every
    configuration; the counts of each share's first configuration (``lead``), and ``source``,
    the row of counts each scored row reads (``owner``: each configuration's share), or
    ``None`` when no two configurations share their counts (every row reads its own)."""
    ref_len = np.concatenate([r[1][part] for r in rows])
    if len(lead) == len(rows):
        sys_len, correct, total = (np.concatenate([r[i][part] for r in rows]) for i in (0, 2, 3))
        return sys_len, ref_len, correct, total, None
    sys_len, correct, total = (np.concatenate([rows[j][i][part] for j in lead]) for i in (0, 2, 3))
    size = len(rows[0][0][part])
    source = (np.asarray(owner, dtype=np.intp)[:, None] * size + np.arange(size)).reshape(-1)
    return sys_len, ref_len, correct, total, source


def _stack_contexts(ones: Sequence[NltkContext], part: slice) -> NltkContext:
    """The ``part`` of each configuration's nltk context, one configuration after the other
    (one context repeated when every configuration reads the same statistics)."""
    if all(one is ones[0] for one in ones):
        return NltkContext(
            *(np.tile(getattr(ones[0], f)[part], len(ones)) for f in _CONTEXT_FIELDS)
        )
    return NltkContext(
        *(np.concatenate([getattr(one, f)[part] for one in ones]) for f in _CONTEXT_FIELDS)
    )


def _means(scores: np.ndarray, bounds: list[int], kept: np.ndarray | None = None) -> list[float]:
    """The mean of each part of ``scores`` split at ``bounds``, summed as
    :func:`harness.bleu.engine.score_statistics` sums a corpus's sentence scores; over the
    ``kept`` segments only when given (0 for a part that keeps none)."""
    if kept is None:
        return [sum(part.tolist()) / len(part) for part in np.split(scores, bounds)]
    out = []
    for part, keep in zip(np.split(scores, bounds), np.split(kept, bounds), strict=True):
        chosen = part[keep].tolist()
        out.append(sum(chosen) / len(chosen) if chosen else 0.0)
    return out


class CorpusScorer:
    """Engine scores of one corpus under many configurations: a :class:`CorporaScorer` of one.

    :meth:`score` equals ``engine.score_statistics(engine.compute_statistics(corpus, config),
    config).score`` (0–100) and raises :class:`~harness.errors.LibraryWouldRaise` where it
    does; :meth:`scores` scores configurations that differ only in how their rows are built
    in one call. ``session``: where statistics are counted and cached.
    """

    def __init__(self, corpus: Corpus, *, session: Session) -> None:
        self.corpus = corpus
        self._scorer = CorporaScorer([corpus], session=session)

    def tokenized(self, rules: TextRules, order: int = _MIN_ORDER) -> TokenizedStatistics:
        """The corpus's statistics under the text rules ``rules``, orders 1..max(5, order)."""
        # every text rule is a BleuConfig field of the same name
        config = BleuConfig(**dataclasses.asdict(rules))
        return self._scorer.tokenized(config, order)

    def score(self, config: BleuConfig) -> float:
        """The engine's score (0–100) of the corpus under ``config``."""
        return self._scorer.score(config, 0)

    def try_score(self, config: BleuConfig) -> float | None:
        """:meth:`score`, or ``None`` when the configuration raises on this corpus."""
        try:
            return self.score(config)
        except LibraryWouldRaise:
            return None

    def scores(self, configs: Sequence[BleuConfig]) -> list[float | None]:
        """:meth:`try_score` of each configuration; configurations that differ only in how
        their rows are built are scored in one arithmetic call."""
        return [row[0] for row in self._scorer.table(configs)]
