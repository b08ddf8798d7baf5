"""One session: the corpora under study, their statistics once per tokenization, any score.

Tokenizing and counting is the only step of BLEU that reads text; every variant is arithmetic
on the counted :class:`~harness.bleu.stats.Statistics`. A :class:`Session` holds

* the **corpora** (one, or several scored against the same references: WMT21 has 20 systems),
  each under a name;
* a **statistics cache** (:class:`~harness.session.cache.StatisticsCache`): in memory by
  content, so every config with the same tokenization (:meth:`TextRules.key
  <harness.bleu.tokenizers.TextRules.key>`) shares one count, counted with as many n-gram
  orders as any of them needs (:func:`harness.bleu.engine.orders_needed`); optionally on disk
  (``cache_dir``), so a second run counts nothing;
* **where counting runs** (``backend`` ``serial``, ``processes`` with ``jobs`` workers, or
  ``dask`` on ``client``; :mod:`harness.session.parallel`): the numbers are identical.

:meth:`Session.statistics` counts (once), :meth:`Session.score` / :meth:`Session.segments` /
:meth:`Session.scores` score any config from those statistics, and :meth:`Session.warm`
counts everything a batch of configs needs up front, in parallel where asked. Every analysis
that needs statistics (:func:`harness.analysis.attribution.attribute`,
:func:`harness.analysis.human.wmt21_human_correlations`,
:func:`harness.diagnose.identify.identify`, the significance tests from files) takes a
``session=`` and returns data only; :meth:`Session.with_corpora` gives such an analysis a
session over its own corpora that shares the cache and the execution settings.

>>> from harness.bleu.profiles import PROFILES
>>> from harness.data.fixtures import load_fixture
>>> session = Session(load_fixture("silence_pitfall").corpus("B"))
>>> names = ("sacrebleu", "sacrebleu-sentence", "nltk", "torchmetrics")
>>> scores = session.scores({n: PROFILES[n] for n in names})
>>> len(session.cache)  # four profiles, two tokenizations (13a; whitespace), each counted once
2
>>> scores["sacrebleu"].corpus.score == session.score(PROFILES["sacrebleu"]).score
True
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import batch_scores, engine
from harness.bleu.config import BleuConfig
from harness.bleu.layouts import sentence_config
from harness.bleu.result import BleuResult
from harness.bleu.stats import Statistics
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback
from harness.session.ahead import CountAhead
from harness.session.cache import StatisticsCache, default_cache_dir
from harness.session.parallel import BACKENDS, Workers, compute_function
from harness.session.scores import memo_of

__all__ = ["ConfigScores", "Session", "default_cache_dir", "open_cache"]


@dataclass(frozen=True)
class ConfigScores:
    """One config's corpus result and (optionally) every segment's, or the error it raised."""

    corpus: BleuResult | None
    segments: list[BleuResult] | None
    error: HarnessError | None = None


def open_cache(
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    use_cache: bool = True,
    jobs: int | None = 1,
    backend: str | None = None,
    client: Any = None,
) -> StatisticsCache:
    """The statistics cache of a run, from the command line's choices.

    ``cache_dir``: also keep statistics on disk there (``None``: memory only; the command line
    passes ``--cache-dir`` or :func:`~harness.session.cache.default_cache_dir`).
    ``use_cache=False`` (``--no-cache``): nothing is read from or written to disk. Misses are
    computed where ``backend`` (default: ``processes`` when ``jobs`` is not 1, else
    ``serial``), ``jobs`` and ``client`` say (:func:`harness.session.parallel.compute_function`).
    """
    compute = compute_function(backend=_backend(backend, jobs), jobs=jobs, client=client)
    directory = cache_dir if use_cache else None
    return StatisticsCache(directory, compute=compute)


def _backend(backend: str | None, jobs: int | None) -> str:
    """``backend``, else ``processes`` when more than one job is asked for, else ``serial``."""
    if backend is None:
        return "serial" if jobs == 1 else "processes"
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", valid=BACKENDS)
    return backend


def _named(corpora: Corpus | Mapping[str, Corpus] | Sequence[Corpus] | None) -> dict[str, Corpus]:
    if corpora is None:
        return {}
    if isinstance(corpora, Corpus):
        return {corpora.name or "corpus": corpora}
    if isinstance(corpora, Mapping):
        items = list(corpora.items())
    else:
        items = [(c.name or f"corpus{i}", c) for i, c in enumerate(corpora)]
    out: dict[str, Corpus] = {}
    for name, corpus in items:
        if not isinstance(corpus, Corpus):
            raise ConfigError(f"a session holds Corpus objects, got {type(corpus).__name__}")
        if name in out:
            raise ConfigError(f"two corpora are named {name!r}; pass a mapping of names")
        out[str(name)] = corpus
    return out


class Session:
    """Corpora + a statistics cache + where counting runs; scores any config of any corpus.

    ``corpora``: a :class:`~harness.data.corpus.Corpus` (named by its ``name``, else
    ``"corpus"``), a mapping name → corpus (e.g. WMT system → corpus), a sequence of corpora,
    or ``None`` (a session that only carries the cache and settings, for analyses that load
    their own corpora: see :meth:`with_corpora`).

    ``cache``: an existing :class:`~harness.session.cache.StatisticsCache` to share (a
    disabled one stands for "no disk": the session still counts each tokenization once, in
    memory). Otherwise one is opened with :func:`open_cache` from ``cache_dir`` (default
    ``None``: memory only), ``use_cache`` (``False``: no disk), ``jobs``, ``backend`` and
    ``client``. ``jobs``: worker processes (``0``: one per CPU); ``backend``: ``serial``,
    ``processes`` (the default when ``jobs`` is not 1) or ``dask``.

    Methods name a corpus with ``which`` (its name); ``None`` means the only one.
    """

    def __init__(
        self,
        corpora: Corpus | Mapping[str, Corpus] | Sequence[Corpus] | None = None,
        *,
        cache: StatisticsCache | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        use_cache: bool = True,
        jobs: int | None = 1,
        backend: str | None = None,
        client: Any = None,
    ) -> None:
        self.corpora: dict[str, Corpus] = _named(corpora)
        self.jobs = jobs
        self.backend = _backend(backend, jobs)
        self.client = client
        if cache is None:
            cache = open_cache(
                cache_dir, use_cache=use_cache, jobs=jobs, backend=self.backend, client=client
            )
        elif cache_dir is not None:
            raise ConfigError("give either cache= or cache_dir=, not both")
        elif not cache.enabled:
            cache = StatisticsCache(None, compute=cache.compute)
        self.cache = cache
        # corpus_scores already given: (config, names) → (the corpora scored, the scores)
        self._scored: dict[
            tuple[BleuConfig, tuple[str, ...]], tuple[tuple[Corpus, ...], list[float]]
        ] = {}

    def __repr__(self) -> str:
        names = ", ".join(self.corpora) or "no corpora"
        return f"Session({names}; {self.backend}, jobs={self.jobs}; {self.cache!r})"

    # ------------------------------------------------------------------ corpora
    def with_corpora(
        self, corpora: Corpus | Mapping[str, Corpus] | Sequence[Corpus] | None
    ) -> Session:
        """A session over ``corpora`` sharing this one's cache, backend, jobs and client."""
        return Session(
            corpora, cache=self.cache, jobs=self.jobs, backend=self.backend, client=self.client
        )

    def subset(self, indices: Sequence[int], which: str | None = None) -> Session:
        """A session over segments ``indices`` of one corpus (scored as a corpus of its own)."""
        name = self._name(which)
        return self.with_corpora({name: self.corpora[name].subset(list(indices))})

    @property
    def corpus(self) -> Corpus:
        """The only corpus (:class:`ConfigError` when there are none or several)."""
        return self.corpora[self._name(None)]

    def _name(self, which: str | None) -> str:
        if which is None:
            if len(self.corpora) != 1:
                raise ConfigError(
                    f"the session holds {len(self.corpora)} corpora; name one",
                    valid=list(self.corpora),
                )
            return next(iter(self.corpora))
        if which not in self.corpora:
            raise ConfigError(f"the session has no corpus {which!r}", valid=list(self.corpora))
        return which

    # ------------------------------------------------------------------ statistics
    def warm(
        self,
        configs: Iterable[BleuConfig],
        which: str | None = None,
        *,
        min_order: int = 1,
        progress: ProgressCallback | None = None,
        stage: str = "statistics",
    ) -> int:
        """Count up front what ``configs`` need of every corpus (or of ``which``).

        Each tokenization once, with the highest order any of its configs needs (at least
        ``min_order``), on the session's backend; returns how many (corpus, tokenization)
        were counted (cache hits are not). ``progress`` is told of each tokenization under
        ``stage``. A tokenization that cannot be counted is skipped here; asking for its
        statistics raises the error.
        """
        corpora = self.corpora.values() if which is None else [self.corpora[self._name(which)]]
        return self.cache.warm(
            corpora,
            configs,
            workers=Workers(self.backend, self.jobs, self.client),
            min_order=min_order,
            progress=progress,
            stage=stage,
        )

    def count_ahead(
        self, configs: Iterable[BleuConfig], *, executor: Executor, min_order: int = 1
    ) -> CountAhead:
        """Start counting what ``configs`` need of every corpus in one task of ``executor``
        (:class:`~harness.session.ahead.CountAhead`); its ``finish()`` keeps the statistics
        in the cache, after which :meth:`warm` and :meth:`statistics` find them there."""
        return CountAhead(
            self.cache,
            self.corpora.values(),
            configs,
            submit=executor.submit,
            min_order=min_order,
        )

    def statistics(
        self, config: BleuConfig, which: str | None = None, *, max_order: int | None = None
    ) -> Statistics:
        """The statistics of a corpus under ``config``'s tokenization, counted once.

        Orders 1..``max_order`` (default :func:`harness.bleu.engine.orders_needed`); the
        arrays are read-only (shared by every config of the tokenization).
        """
        corpus = self.corpora[self._name(which)]
        return self.cache.get(corpus, config, max_order=max_order)

    # ------------------------------------------------------------------ scores
    def score(
        self, config: BleuConfig, which: str | None = None, *, implementation: str = "harness"
    ) -> BleuResult:
        """The corpus-level result under ``config``
        (:func:`harness.bleu.engine.score_statistics`)."""
        stats = self.statistics(config, which)
        return engine.score_statistics(stats, config, implementation=implementation)

    def corpus_scores(self, config: BleuConfig, names: Sequence[str]) -> list[float]:
        """The corpus-level score of each corpus of ``names`` under ``config`` (what
        :meth:`score` gives each), in one arithmetic call where the aggregation allows
        (:func:`harness.bleu.batch_scores.corpus_scores`). Asked again for the same corpora under
        the same config, the session gives the scores it gave (an answer's families share
        configurations), and scores a worker computed beside the counting of the same corpora
        (:mod:`harness.session.scores`) are taken as given."""
        key = (config, tuple(names))
        corpora = tuple(self.corpora[self._name(n)] for n in names)
        kept = self._scored.get(key)
        if kept is not None and all(a is b for a, b in zip(kept[0], corpora, strict=True)):
            return list(kept[1])
        ahead = memo_of(self.cache).get(config, [self.cache.digest(c) for c in corpora])
        scores = (
            ahead
            if ahead is not None
            else batch_scores.corpus_scores([self.statistics(config, n) for n in names], config)
        )
        self._scored[key] = (corpora, list(scores))
        return scores

    def segments(
        self, config: BleuConfig, which: str | None = None, *, implementation: str = "harness"
    ) -> list[BleuResult]:
        """Every segment's sentence-level result (:func:`harness.bleu.engine.segment_results`),
        each segment scored on its own (:func:`~harness.bleu.layouts.sentence_config`), under
        ``config``'s signature."""
        alone = sentence_config(config)
        results = engine.segment_results(
            self.statistics(alone, which), alone, implementation=implementation
        )
        if alone is config:
            return results
        sig = config.signature()
        return [dataclasses.replace(r, signature=sig) for r in results]

    def segment_scores(self, config: BleuConfig, which: str | None = None) -> np.ndarray:
        """Every segment's sentence-level score, as :meth:`segments` gives them, without a
        result object per segment."""
        alone = sentence_config(config)
        return engine.segment_arrays(self.statistics(alone, which), alone).score

    def scores(
        self,
        configs: Mapping[str, BleuConfig],
        which: str | None = None,
        *,
        segments: bool = True,
        implementation: str = "harness",
    ) -> dict[str, ConfigScores]:
        """Score one corpus under many configs (e.g. every profile), counting each
        tokenization once (:meth:`warm`).

        Per config: its corpus result and, with ``segments``, every segment's. A config whose
        library would raise on this corpus, or whose tokenizer cannot run, gets ``error``.
        """
        self.warm(configs.values(), which)
        out: dict[str, ConfigScores] = {}
        for name, cfg in configs.items():
            try:
                result = self.score(cfg, which, implementation=implementation)
                segs = (
                    self.segments(cfg, which, implementation=implementation) if segments else None
                )
            except HarnessError as exc:
                out[name] = ConfigScores(None, None, exc)
            else:
                out[name] = ConfigScores(result, segs)
        return out
