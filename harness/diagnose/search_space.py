"""The configurations :mod:`harness.diagnose.search` searches on one tokenization of a corpus,
and their scores, in this process or in a worker.

A tokenization's space (:func:`space_of`) is every (reference-length rule, maximum order,
n-gram total rule, aggregation, smoothing policy), where rules that give the same numbers on
the tokenization's statistics are one (the first; the others are its equivalents).
:func:`score_spaces` scores the spaces of several tokenizations, a few tokenizations per call
of :meth:`~harness.diagnose.many_configs.CorpusScorer.scores` (about
:data:`ROWS_PER_CALL` segment rows per arithmetic call): a score depends only on its own row
of statistics, so how the tokenizations are grouped into calls changes no number, only how
far the stacked rows outgrow the processor's cache.

:func:`count_and_score` is a worker's task: the statistics of a few tokenizations of a
corpus, counted as :class:`~harness.session.ahead.CountAhead` counts them, and their spaces'
scores, each tokenization whose statistics equal another's (or one of ``skip``) scored once.
:class:`ScoreAhead` gives it to a pool and, when the task waits for no worker, withdraws it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from harness.bleu.config import REF_LENGTHS, BleuConfig
from harness.bleu.stats import LENGTH_TOTAL_RULES, Statistics, ref_length_of, totals_of_lengths
from harness.bleu.tokenizers import TextRules
from harness.data.corpus import Corpus
from harness.diagnose.many_configs import CorpusScorer, TokenizedStatistics
from harness.errors import HarnessError
from harness.session import Session
from harness.session.ahead import count_pairs
from harness.session.cache import tokenization_groups

__all__ = [
    "ROWS_PER_CALL",
    "Key",
    "ScoreAhead",
    "Space",
    "TextChoice",
    "count_and_score",
    "digest",
    "score_spaces",
    "space_of",
    "unique",
]

#: One tokenization of the search: a value for each text-rule field it sets.
TextChoice = dict[str, Any]

#: A configuration of a space: (reference-length rule, maximum order, n-gram total rule,
#: aggregation, index of its smoothing policy).
Key = tuple[str, int, str, str, int]

#: About how many segment rows (segments × the configurations of one arithmetic) one call
#: of the arithmetic stacks: the tokenizations of a layout are scored in groups this size.
ROWS_PER_CALL = 50_000

#: The fewest orders counted: nltk's smoothing methods read order 5 whatever the maximum
#: order is (as :class:`~harness.diagnose.many_configs.CorpusScorer` counts).
_MIN_ORDER = 5


def unique(items: Iterable[tuple[Any, Any]]) -> list[tuple[Any, list[Any]]]:
    """Group ``(key, value)`` by equal key, keeping first-seen order: [(value, [others])]."""
    groups: dict[Any, list[Any]] = {}
    for key, value in items:
        groups.setdefault(key, []).append(value)
    return [(vals[0], vals[1:]) for vals in groups.values()]


@dataclasses.dataclass(frozen=True)
class Space:
    """The configurations searched on one tokenization's statistics.

    ``ref_groups``: the reference-length rules, those choosing the same lengths as one
    (``(rule scored, [equivalent rules])``); ``total_groups``: the same for the n-gram total
    rules, per maximum order; ``keys``: every configuration (:data:`Key`), in scoring order.
    """

    ref_groups: list[tuple[str, list[str]]]
    total_groups: dict[int, list[tuple[str, list[str]]]]
    keys: list[Key]

    def rows(self, segments: int) -> int:
        """The rows one arithmetic call stacks for this space on ``segments`` segments."""
        widest = max((len(g) for g in self.total_groups.values()), default=1)
        return segments * len(self.ref_groups) * widest


def space_of(
    stats: TokenizedStatistics,
    max_orders: Sequence[int],
    aggregations: Sequence[str],
    smoothings: int,
) -> Space:
    """The :class:`Space` of a tokenization's statistics, with ``smoothings`` policies."""
    ref_groups = unique(
        (tuple(ref_length_of(stats.hyp_len, stats.ref_matrix, rule).tolist()), rule)
        for rule in REF_LENGTHS
    )
    # n-gram total rules that give the same totals on this corpus: scored once
    total_groups = {
        n: unique(
            (totals_of_lengths(stats.hyp_len, rule, n).tobytes(), rule)
            for rule in LENGTH_TOTAL_RULES
        )
        for n in max_orders
    }
    keys = [
        (rule, n, tot, agg, k)
        for n in max_orders
        for agg in aggregations
        for k in range(smoothings)
        for rule, _ in ref_groups
        for tot, _ in total_groups[n]
    ]
    return Space(ref_groups, total_groups, keys)


def _configs(
    text: TextChoice, space: Space, smoothings: Sequence[dict[str, Any]]
) -> list[BleuConfig]:
    return [
        BleuConfig(
            **text,
            max_order=n,
            ref_length=rule,
            ngram_totals=tot,
            aggregation=agg,
            **smoothings[k],
        )
        for rule, n, tot, agg, k in space.keys
    ]


def score_spaces(
    scorer: CorpusScorer,
    spaces: Sequence[tuple[TextChoice, Space]],
    smoothings: Sequence[dict[str, Any]],
) -> list[list[float | None]]:
    """The scores of each tokenization's space (in the order of its keys), the tokenizations
    scored together up to about :data:`ROWS_PER_CALL` rows per arithmetic call."""
    segments = len(scorer.corpus)
    out: list[list[float | None]] = []
    chunk: list[tuple[TextChoice, Space]] = []
    rows = 0

    def flush() -> None:
        scores = scorer.scores(
            [c for text, space in chunk for c in _configs(text, space, smoothings)]
        )
        at = 0
        for _, space in chunk:
            out.append(scores[at : at + len(space.keys)])
            at += len(space.keys)
        chunk.clear()

    for text, space in spaces:
        more = space.rows(segments)
        if chunk and rows + more > ROWS_PER_CALL:
            flush()
            rows = 0
        chunk.append((text, space))
        rows += more
    if chunk:
        flush()
    return out


def digest(stats: TokenizedStatistics) -> bytes:
    """A short name of statistics, equal for statistics equal array for array
    (:meth:`~harness.diagnose.many_configs.TokenizedStatistics.fingerprint`)."""
    h = hashlib.blake2b(digest_size=16)
    for part in stats.fingerprint():
        h.update(repr(part).encode() if isinstance(part, tuple) else part)
        h.update(b"\x00")
    return h.digest()


#: A worker's answer: each tokenization group's statistics (``None``: it could not be
#: counted), then each text's scores (``None``: not scored there).
Answer = tuple[list[Statistics | None], list[list[float | None] | None]]


def count_and_score(
    corpus: Corpus,
    texts: Sequence[TextChoice],
    max_orders: Sequence[int],
    aggregations: Sequence[str],
    smoothings: Sequence[dict[str, Any]],
    skip: frozenset[bytes],
) -> Answer:
    """Worker task: the statistics of ``texts`` on ``corpus`` (by tokenization group, as
    :class:`~harness.session.ahead.CountAhead` counts them) and the scores of each text's
    :class:`Space`, except a text whose statistics equal an earlier one's or have a
    :func:`digest` in ``skip`` (the caller scores those statistics itself)."""
    groups = tokenization_groups([BleuConfig(**t) for t in texts], min_order=_MIN_ORDER)
    counted = count_pairs([corpus], groups, [(0, g) for g in range(len(groups))])
    session = Session(corpus)
    for (rep, _), stats in zip(groups, counted, strict=True):
        if stats is not None:
            session.cache.store(corpus, rep, stats)
    scorer = CorpusScorer(corpus, session=session)
    seen = set(skip)
    todo: list[tuple[int, TextChoice, Space]] = []
    for i, text in enumerate(texts):
        try:
            tokenized = scorer.tokenized(TextRules(**text))
        except HarnessError:
            continue
        name = digest(tokenized)
        if name not in seen:
            seen.add(name)
            space = space_of(tokenized, max_orders, aggregations, len(smoothings))
            todo.append((i, text, space))
    scores: list[list[float | None] | None] = [None] * len(texts)
    done = score_spaces(scorer, [(text, space) for _, text, space in todo], smoothings)
    for (i, _, _), values in zip(todo, done, strict=True):
        scores[i] = values
    return counted, scores


class ScoreAhead:
    """:func:`count_and_score` of ``texts`` on the only corpus of ``session``, given to
    ``submit`` (an executor's ``submit``) now when the session's cache misses any of their
    statistics (otherwise nothing is submitted and this process does it all).

    :meth:`finish` keeps the worker's statistics in the session's cache and returns its
    scores by :func:`digest`; a task no worker has taken yet is withdrawn first
    (:meth:`withdraw`), and then nothing is returned: this process counts and scores what it
    needs itself.
    """

    def __init__(
        self,
        session: Session,
        texts: Sequence[TextChoice],
        *,
        submit: Callable[..., Future[Answer]],
        max_orders: Sequence[int],
        aggregations: Sequence[str],
        smoothings: Sequence[dict[str, Any]],
        skip: frozenset[bytes],
    ) -> None:
        self.session = session
        self.corpus = session.corpus
        self.texts = list(texts)
        self.groups = tokenization_groups(
            [BleuConfig(**t) for t in self.texts], min_order=_MIN_ORDER
        )
        cache = session.cache
        # the groups this process would count: the only statistics it keeps from the worker
        self.missing = [
            bool(cache.missing([self.corpus], rep, order)) for rep, order in self.groups
        ]
        misses = any(self.missing)
        self._future = (
            submit(
                count_and_score,
                self.corpus,
                self.texts,
                list(max_orders),
                list(aggregations),
                list(smoothings),
                skip,
            )
            if misses and cache.enabled
            else None
        )

    def withdraw(self) -> bool:
        """Take the task back when no worker has taken it; whether there is none left."""
        if self._future is not None and self._future.cancel():
            self._future = None
        return self._future is None

    def finish(self) -> dict[bytes, list[float | None]]:
        """The worker's scores by :func:`digest` of their statistics (waiting for them), its
        statistics kept in the cache; nothing when the task was withdrawn or never given."""
        if self._future is None or self.withdraw():
            return {}
        future, self._future = self._future, None
        counted, scores = future.result()
        cache = self.session.cache
        for (rep, _), stats, missing in zip(self.groups, counted, self.missing, strict=True):
            if stats is not None and missing:
                cache.stats.computed += 1
                cache.store(self.corpus, rep, stats)
        scorer = CorpusScorer(self.corpus, session=self.session)
        out: dict[bytes, list[float | None]] = {}
        for text, values in zip(self.texts, scores, strict=True):
            if values is not None:
                out[digest(scorer.tokenized(TextRules(**text)))] = values
        return out
