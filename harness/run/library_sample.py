"""What the real libraries are run on in a comparison, and their outcomes there.

Every in-house profile is proven equal to its library by the test suite; in a report the
libraries show that the proof holds on the user's own files. By default
(:data:`SPOT_CHECK`, ``report --real sample``) each library runs on a seeded sample: a few
systems of each test set, and a few hundred segments of each of those systems, scored one by
one and as a corpus of their own (compared with the library's profile on the same segments);
the profiles give every number the report shows. :data:`EVERYTHING`
(``report --real all``, and what ``compare`` runs) is every system and every segment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.data.corpus import Corpus
from harness.errors import ConfigError
from harness.scorers import Adapter
from harness.scorers.outcome import Outcome, score

__all__ = [
    "EVERYTHING",
    "SPOT_CHECK",
    "LibrarySample",
    "sampled",
    "segment_sample",
    "system_sample",
]


@dataclass(frozen=True, slots=True)
class LibrarySample:
    """What each real library is run on: ``systems`` systems of each test set (a fixture:
    the systems that share its references), and ``segments`` segments of each of those
    systems, both drawn with the run's seed (``None``: every one). On a sample of the
    segments, the library's corpus-level call is made on those segments (a row of level
    ``sample``), not on the whole system. A library whose score of a segment depends on the
    others (fairseq numbers words over the whole corpus) scores every segment of the systems
    it runs on."""

    systems: int | None = None
    segments: int | None = None

    def __post_init__(self) -> None:
        for name in ("systems", "segments"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ConfigError(f"{name} must be a positive number or None, got {value!r}")


#: Every system, every segment: what ``compare`` and ``report --real all`` run.
EVERYTHING = LibrarySample()

#: The report's default spot check: three systems per test set, 200 segments of each.
SPOT_CHECK = LibrarySample(systems=3, segments=200)


def system_sample(systems: Sequence[str], size: int | None, seed: int) -> frozenset[str]:
    """The systems of one test set the libraries run on: ``size`` of ``systems`` drawn without
    replacement by ``numpy``'s generator seeded with ``seed`` (every one when ``size`` is
    ``None`` or not below their number). The draw is over the names sorted, so it does not
    depend on the order the files were given in."""
    names = sorted(set(systems))
    if size is None or size >= len(names):
        return frozenset(names)
    drawn = np.random.default_rng(seed).choice(len(names), size=size, replace=False)
    return frozenset(names[int(i)] for i in drawn)


def segment_sample(n: int, size: int | None, seed: int) -> tuple[int, ...] | None:
    """The segments (0-based, in order) a real library is run on at segment level in a corpus
    of ``n``: ``size`` of them drawn without replacement by ``numpy``'s generator seeded with
    ``seed`` (the same draw for every corpus of ``n`` segments, so systems of one test set are
    checked on the same segments); ``None`` (every segment) when ``size`` is ``None`` or not
    below ``n``."""
    if size is None or size >= n:
        return None
    drawn = np.random.default_rng(seed).choice(n, size=size, replace=False)
    return tuple(int(i) for i in np.sort(drawn))


def sampled(
    scorer: Adapter, corpus: Corpus, levels: Sequence[str], segments: Sequence[int]
) -> dict[str, Outcome]:
    """A library's outcomes when it is spot-checked on ``segments`` of ``corpus``: its
    segment results there and, when ``levels`` asks for the corpus level, its corpus-level
    result of those segments as a corpus of their own (``"sample"``), which its profile's
    score of the same segments is compared with; it is not the system's corpus score. A
    library whose corpus result is the mean of its segment results is run once, that result
    built from its segment results of the sample, as the library itself would build it."""
    sample = corpus.subset(segments)
    outcomes: dict[str, Outcome] = {}
    config = scorer.default_config()
    derives = "corpus" in levels and scorer.derives_corpus(config)
    if "segment" in levels or derives:
        outcomes["segment"] = score(scorer, sample, level="segment")
    if "corpus" in levels:
        one_by_one = outcomes.get("segment")
        derived = (
            scorer.corpus_from_segments(one_by_one.results, config)
            if derives and one_by_one is not None and one_by_one.status == "ok"
            else None
        )
        outcomes["sample"] = (
            Outcome.scored([derived])
            if derived is not None
            else score(scorer, sample, level="corpus")
        )
    return outcomes
