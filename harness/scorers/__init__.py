"""Scorers: the in-house engine and the real BLEU libraries behind one small protocol.

* :mod:`harness.scorers.base` — the protocol (``name``, ``version()``, ``available()``,
  ``supports(config)``, ``corpus(corpus, config)``, ``segments(corpus, config)``,
  ``default_config()``) and the :class:`Adapter` base class, whose subclasses declare for
  every ``BleuConfig`` field how their library expresses it;
* one module per library (``sacrebleu_adapter``, ``nltk_adapter``, …) and ``command`` for
  external programs; :mod:`harness.scorers.engine_scorer` for the in-house engine;
* :mod:`harness.scorers.registry` — :data:`ADAPTERS` and the lists derived from the adapter
  classes' own attributes;
* :mod:`harness.scorers.outcome` — :func:`score`, the one path from a scorer to an
  :class:`Outcome` (a result, or unavailable / unsupported / raises / refused / error).

``import harness.scorers`` imports the adapter modules but never sacrebleu, torch or
evaluate: each library is imported when its adapter is used.

>>> {"sacrebleu", "nltk", "evaluate", "command"} <= set(ADAPTERS)
True
"""

from __future__ import annotations

from harness.scorers.base import Adapter, Availability, Scorer, Support
from harness.scorers.engine_scorer import EngineScorer
from harness.scorers.outcome import STATUSES, Outcome, score
from harness.scorers.registry import (
    ADAPTERS,
    DEFAULT_ADAPTERS,
    LIBRARY_ADAPTERS,
    PROFILE_OF,
    PROFILE_ONLY,
    distributions,
    get_adapter,
    tolerance,
)

__all__ = [
    "ADAPTERS",
    "DEFAULT_ADAPTERS",
    "LIBRARY_ADAPTERS",
    "PROFILE_OF",
    "PROFILE_ONLY",
    "STATUSES",
    "Adapter",
    "Availability",
    "EngineScorer",
    "Outcome",
    "Scorer",
    "Support",
    "distributions",
    "get_adapter",
    "score",
    "tolerance",
]
