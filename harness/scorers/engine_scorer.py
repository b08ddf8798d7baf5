"""The in-house engine as a scorer, beside the library adapters and under the same protocol.

An :class:`EngineScorer` scores with one configuration (a profile by name, or any
``BleuConfig``) through :mod:`harness.bleu.engine`; its statistics come from ``statistics``
(default: computed each time; pass a cache's ``get`` to share them between the profiles of one
tokenization, as the comparison runner does). Where the library a profile reproduces raises,
the engine raises :class:`~harness.errors.LibraryWouldRaise`, which
:func:`harness.scorers.outcome.score` reports as ``raises`` (predicted).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar

from harness.bleu import engine
from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.layouts import sentence_config
from harness.bleu.profiles import get_profile
from harness.bleu.result import BleuResult
from harness.bleu.stats import Statistics
from harness.data.corpus import Corpus
from harness.errors import UnsupportedSetting
from harness.scorers.base import SUPPORTED, Availability, Support, undeclared

#: ``(corpus, config) -> Statistics``: :func:`harness.bleu.engine.compute_statistics` or a
#: statistics cache's ``get``.
StatisticsSource = Callable[[Corpus, BleuConfig], Statistics]

#: The factors the engine implements: exactly those of ``BleuConfig``.
ENGINE_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BleuConfig))


class EngineScorer:
    """The in-house engine with one configuration; ``name`` labels its results
    (default ``harness:<profile>``, ``harness:custom`` for a config)."""

    runs_library_code: ClassVar[bool] = False
    distribution: ClassVar[str] = "bleu-harness"

    def __init__(
        self,
        profile: str | BleuConfig,
        *,
        name: str | None = None,
        statistics: StatisticsSource | None = None,
    ) -> None:
        self.config = get_profile(profile) if isinstance(profile, str) else profile
        label = profile if isinstance(profile, str) else "custom"
        #: The profile this scorer's configuration is (``custom`` for a config).
        self.profile = label
        self.name = name or f"harness:{label}"
        self._statistics: StatisticsSource = statistics or engine.compute_statistics

    def version(self) -> str:
        return ENGINE_VERSION

    def available(self) -> Availability:
        """Always: the engine needs nothing outside the harness."""
        return Availability(True)

    def default_config(self) -> BleuConfig:
        return self.config

    def signature(self, config: BleuConfig) -> str:
        return config.signature()

    def supports(self, config: BleuConfig) -> Support:
        """Every ``BleuConfig``; a config class with factors the engine does not implement is
        refused."""
        unknown = undeclared(config, ENGINE_FIELDS)
        if unknown:
            return Support(False, f"{', '.join(unknown)}: not a factor the engine implements")
        return SUPPORTED

    def _config(self, config: BleuConfig | None) -> BleuConfig:
        cfg = self.config if config is None else config
        support = self.supports(cfg)
        if not support.ok:
            raise UnsupportedSetting(self.name, support.reason)
        return cfg

    def corpus(self, corpus: Corpus, config: BleuConfig | None = None) -> BleuResult:
        """The engine's corpus-level result (``aggregation`` decides corpus or sentence mean)."""
        cfg = self._config(config)
        stats = self._statistics(corpus, cfg)
        return engine.score_statistics(stats, cfg, implementation=self.name)

    def segments(self, corpus: Corpus, config: BleuConfig | None = None) -> list[BleuResult]:
        """One sentence-level result per segment: each segment scored on its own, as the
        library's function called on that segment scores it
        (:func:`~harness.bleu.layouts.sentence_config`)."""
        cfg = self._config(config)
        alone = sentence_config(cfg)
        results = engine.segment_results(
            self._statistics(corpus, alone), alone, implementation=self.name
        )
        if alone is cfg:
            return results
        sig = cfg.signature()  # the configuration asked for, not its one-segment form
        return [dataclasses.replace(r, signature=sig) for r in results]

    def segment_arrays(
        self, corpus: Corpus, config: BleuConfig | None = None
    ) -> tuple[Statistics, engine.SegmentArrays]:
        """Every segment's score at once, with the statistics behind them: what
        :meth:`segments` holds, as arrays (raises where it raises)."""
        cfg = sentence_config(self._config(config))
        stats = self._statistics(corpus, cfg)
        return stats, engine.segment_arrays(stats, cfg)
