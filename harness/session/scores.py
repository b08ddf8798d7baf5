"""Corpus scores computed where their statistics were counted, kept for the run.

An answer's Shapley split asks the score of every system under hundreds of mixed
configurations (:meth:`harness.session.Session.corpus_scores`), each a function of the systems'
statistics under that configuration's tokenization and of the configuration alone. A worker
that counts a tokenization of every system for the run (:class:`~harness.session.ahead.CountAhead`)
can score those configurations there, beside the counting, and send back a few floats; this
process keeps them by configuration and by the systems' content (their
:func:`~harness.session.cache.content_hash` digests, in order), where
:meth:`~harness.session.Session.corpus_scores` finds them. The scores are those
:func:`harness.bleu.batch_scores.corpus_scores` gives on the same statistics
(:func:`score_statistics` is the one call both sides make).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from harness.bleu import batch_scores, engine
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics
from harness.errors import HarnessError

__all__ = ["ScoreMemo", "memo_of", "score_statistics"]

#: (configuration, the corpora's content digests in order) → their scores.
Key = tuple[BleuConfig, tuple[str, ...]]


class ScoreMemo:
    """Scores of corpora under configurations, by configuration and the corpora's digests."""

    def __init__(self) -> None:
        self._scores: dict[Key, tuple[float, ...]] = {}

    def __len__(self) -> int:
        return len(self._scores)

    def get(self, config: BleuConfig, digests: Sequence[str]) -> list[float] | None:
        """The scores kept for ``digests`` (in that order) under ``config``, or ``None``."""
        found = self._scores.get((config, tuple(digests)))
        return None if found is None else list(found)

    def put(self, config: BleuConfig, digests: Sequence[str], scores: Sequence[float]) -> None:
        """Keep ``scores`` (one per digest of ``digests``) under ``config``."""
        if len(scores) != len(digests):
            raise ValueError(f"{len(scores)} scores for {len(digests)} corpora")
        self._scores[(config, tuple(digests))] = tuple(scores)


#: One memo per statistics cache (the cache holds the statistics the scores are made of).
_MEMOS: weakref.WeakKeyDictionary[object, ScoreMemo] = weakref.WeakKeyDictionary()


def memo_of(cache: object) -> ScoreMemo:
    """The score memo that goes with statistics cache ``cache`` (made on first use)."""
    memo = _MEMOS.get(cache)
    if memo is None:
        memo = _MEMOS[cache] = ScoreMemo()
    return memo


def score_statistics(stats: Sequence[Statistics], config: BleuConfig) -> list[float] | None:
    """The score of each corpus whose statistics (at least at the order ``config`` needs) are
    ``stats`` under ``config``, as :meth:`~harness.session.Session.corpus_scores` computes
    them; ``None`` where that raises a harness error (the caller then scores, and raises,
    itself)."""
    order = engine.orders_needed(config)
    try:
        return batch_scores.corpus_scores([s.at_order(order) for s in stats], config)
    except HarnessError:
        return None
