"""Statistics counted ahead: what a run needs later, counted in a worker process meanwhile.

A run that knows early which corpora and tokenizations it will need after some other work
(``identify`` scores the files as given for seconds before it scores their preprocessing
readings) hands them to :class:`CountAhead`: one task in a worker pool counts every
(corpus, tokenization) the cache misses, while this process goes on; :meth:`CountAhead.finish`
waits for it and stores the statistics in the cache, so the later counts are hits. The
statistics are the engine's own, counted the same way in the worker
(:func:`count_pairs`); only where they are counted changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.session.cache import StatisticsCache, tokenization_groups, tokenizer_signature
from harness.session.scores import memo_of, score_statistics

__all__ = ["CountAhead", "count_and_score", "count_pairs", "share"]

#: What a worker is asked: the corpora, the tokenization groups (representative, order) and
#: the (corpus, group) pairs to count, group by group.
Pairs = Sequence[tuple[int, int]]


def count_pairs(
    corpora: Sequence[Corpus], groups: Sequence[tuple[BleuConfig, int]], pairs: Pairs
) -> list[Statistics | None]:
    """Worker function: the statistics of each (corpus, tokenization group) of ``pairs``, in
    order; ``None`` for a pair whose counting raises a harness error (a tokenizer that cannot
    run: asking the cache for it later raises the error in the caller's process)."""
    out: list[Statistics | None] = []
    for corpus, group in pairs:
        config, order = groups[group]
        try:
            out.append(engine.compute_statistics(corpora[corpus], config, max_order=order))
        except HarnessError:
            out.append(None)
    return out


#: What a worker is asked to score beside its counting: per tokenization group, the position
#: in its pairs of each corpus's statistics (every corpus of the run, in order) and the
#: configurations of that tokenization to score them under.
Scored = Sequence[tuple[tuple[int, ...], tuple[BleuConfig, ...]]]


def count_and_score(
    corpora: Sequence[Corpus],
    groups: Sequence[tuple[BleuConfig, int]],
    pairs: Pairs,
    scored: Scored,
) -> tuple[list[Statistics | None], list[list[list[float] | None]]]:
    """Worker function: :func:`count_pairs`, then the scores of every corpus under each
    configuration of ``scored`` (:func:`harness.session.scores.score_statistics`; ``None``
    where a corpus could not be counted or the scoring raises)."""
    stats = count_pairs(corpora, groups, pairs)
    scores: list[list[list[float] | None]] = []
    for at, configs in scored:
        mine = [stats[i] for i in at]
        ready = [s for s in mine if s is not None]
        if len(ready) != len(mine):
            scores.append([None] * len(configs))
            continue
        scores.append([score_statistics(ready, c) for c in configs])
    return stats, scores


class CountAhead:
    """Every (corpus, tokenization) of ``configs`` that ``cache`` misses, counted by one task
    given to ``submit`` (an executor's ``submit``) from now on, at the orders
    :meth:`StatisticsCache.warm` counts (at least ``min_order``). Nothing is submitted when
    every pair is cached."""

    def __init__(
        self,
        cache: StatisticsCache,
        corpora: Iterable[Corpus],
        configs: Iterable[BleuConfig],
        *,
        submit: Callable[..., Future[Any]],
        min_order: int = 1,
        score: Iterable[BleuConfig] = (),
    ) -> None:
        self.cache = cache
        self.corpora = list(corpora)
        self.groups = tokenization_groups(configs, min_order=min_order)
        self.pairs = [
            (c, g)
            for g, (config, order) in enumerate(self.groups)
            for c in cache.missing(self.corpora, config, order)
        ]
        self.scored = self._to_score(score)
        self._future = None
        if self.pairs and cache.enabled:
            self._future = (
                submit(count_and_score, self.corpora, self.groups, self.pairs, self.scored)
                if self.scored
                else submit(count_pairs, self.corpora, self.groups, self.pairs)
            )

    def _to_score(
        self, score: Iterable[BleuConfig]
    ) -> list[tuple[tuple[int, ...], tuple[BleuConfig, ...]]]:
        """What the worker scores: the configurations of ``score`` whose tokenization it counts
        on every corpus (a corpus whose content an earlier one has shares its statistics),
        with where each corpus's statistics are among its pairs."""
        wanted = list(dict.fromkeys(score))
        if not wanted or not self.corpora:
            return []
        digests = [self.cache.digest(c) for c in self.corpora]
        first = {d: i for i, d in reversed(list(enumerate(digests)))}
        where = {pair: k for k, pair in enumerate(self.pairs)}
        out = []
        for g, (rep, _) in enumerate(self.groups):
            sig = tokenizer_signature(rep)
            configs = tuple(c for c in wanted if tokenizer_signature(c) == sig)
            at = [where.get((first[d], g)) for d in digests]
            if configs and all(k is not None for k in at):
                out.append((tuple(k for k in at if k is not None), configs))
        return out

    def finish(self) -> int:
        """Keep the worker's statistics in the cache (waiting for them); how many it counted.
        A task no worker has taken yet (they are all busy with earlier tasks) is withdrawn and
        its statistics counted here instead."""
        future, self._future = self._future, None
        if future is None:
            return 0
        if future.cancel():
            for config, order in self.groups:
                self.cache.warm(self.corpora, [config], min_order=order)
            return 0
        counted, scores = future.result() if self.scored else (future.result(), [])
        done = 0
        for (c, g), stats in zip(self.pairs, counted, strict=True):
            if stats is not None:
                self.cache.stats.computed += 1
                self.cache.store(self.corpora[c], self.groups[g][0], stats)
                done += 1
        memo = memo_of(self.cache)
        digests = [self.cache.digest(c) for c in self.corpora]
        for (_, configs), given in zip(self.scored, scores, strict=True):
            for config, values in zip(configs, given, strict=True):
                if values is not None:
                    memo.put(config, digests, values)
        return done


def share(configs: Sequence[BleuConfig]) -> tuple[list[list[BleuConfig]], list[BleuConfig]]:
    """``configs`` split by tokenization into what workers count ahead (one task each) and
    what this process counts. This process keeps half of the tokenizations whose tokenizer
    needs no library of its own (every other one); one task takes those that do (nltk's Punkt,
    jieba, MeCab: imported there, not here) and every third of the other half, another task
    the rest, so that each process counts about a third (this one also scores the rows and
    the answer after)."""
    groups = [rep for rep, _ in tokenization_groups(configs)]
    heavy = [r for r in groups if not set(REGISTRY[r.tokenize].distributions) <= {"regex"}]
    light = [r for r in groups if r not in heavy]
    given = light[1::2]
    lighter = [r for r in given if r not in given[::3]]
    parts = (heavy + given[::3], lighter)
    tasks = [{tokenizer_signature(r) for r in part} for part in parts]
    tasks = [t for t in tasks if t]
    there = set().union(*tasks)
    ahead = [[c for c in configs if tokenizer_signature(c) in task] for task in tasks]
    return ahead, [c for c in configs if tokenizer_signature(c) not in there]
