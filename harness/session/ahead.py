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

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.session.cache import StatisticsCache, tokenization_groups, tokenizer_signature

__all__ = ["CountAhead", "count_pairs", "share"]

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
        submit: Callable[..., Future[list[Statistics | None]]],
        min_order: int = 1,
    ) -> None:
        self.cache = cache
        self.corpora = list(corpora)
        self.groups = tokenization_groups(configs, min_order=min_order)
        self.pairs = [
            (c, g)
            for g, (config, order) in enumerate(self.groups)
            for c in cache.missing(self.corpora, config, order)
        ]
        self._future = (
            submit(count_pairs, self.corpora, self.groups, self.pairs)
            if self.pairs and cache.enabled
            else None
        )

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
        done = 0
        for (c, g), stats in zip(self.pairs, future.result(), strict=True):
            if stats is not None:
                self.cache.stats.computed += 1
                self.cache.store(self.corpora[c], self.groups[g][0], stats)
                done += 1
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
