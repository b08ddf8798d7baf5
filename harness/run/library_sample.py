"""The segments a real library is run on at segment level, and its outcomes on them.

A report runs each real library at corpus level on every system and at segment level on a
seeded sample of each corpus's segments (``report --library-segments``); every segment number
the report shows comes from a profile proven equal to its library, and the sample checks that
library on segments of this very data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.data.corpus import Corpus
from harness.scorers import Adapter
from harness.scorers.outcome import Outcome, score

__all__ = ["sampled", "segment_sample"]


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
    """A library's outcomes when it is run at segment level on ``segments`` only. One whose
    corpus result is the mean of its segment results scores every segment anyway for its
    corpus row: it is run once, the corpus row built from all its segment results and the
    segment rows those of the sample (each segment is scored alone, so they are the results a
    run on the sample gives). Otherwise the sample is run, and the corpus row by itself."""
    config = scorer.default_config()
    if "corpus" in levels and scorer.derives_corpus(config):
        every = score(scorer, corpus, level="segment")
        derived = (
            scorer.corpus_from_segments(every.results, config) if every.status == "ok" else None
        )
        if derived is not None:
            return {
                "corpus": Outcome.scored([derived]),
                "segment": Outcome.scored([every.results[i] for i in segments]),
            }
    return {"segment": score(scorer, corpus.subset(segments), level="segment")}
