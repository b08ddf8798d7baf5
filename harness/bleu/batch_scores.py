"""The reported scores of many corpora under one configuration, at once.

What :func:`harness.bleu.engine.score_statistics` gives each corpus, computed for all of them
together: under corpus aggregation in one arithmetic call, under a sentence mean without the
means of the precisions and brevity penalties that a score does not need. An answer's Shapley
split asks this of every system under hundreds of mixed configurations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial

import numpy as np

from harness.bleu.arithmetic import NltkContext, bleu_rows, segment_contexts
from harness.bleu.config import BleuConfig
from harness.bleu.engine import (
    checked_totals,
    context_of,
    mean_rows,
    score_statistics,
    segment_arrays,
    segment_mean,
)
from harness.bleu.reported import reported
from harness.bleu.smoothing import get_smoothing
from harness.bleu.stats import Statistics
from harness.bleu.zero_length import zero_length_rule
from harness.errors import HarnessError

__all__ = ["corpus_scores"]

_NLTK_FIELDS = dataclasses.fields(NltkContext)
#: Aggregations that are a mean of each segment's own sentence score (one row per segment).
_ROW_MEANS = frozenset({"sentence-mean", "nonempty-mean"})


def corpus_scores(stats: Sequence[Statistics], config: BleuConfig) -> list[float]:
    """The reported score :func:`~harness.bleu.engine.score_statistics` gives each of
    ``stats`` (one corpus each) under ``config``; under corpus aggregation all in one
    arithmetic call (equal row by row: ``tests/test_arithmetic.py``). Whatever raises is
    raised as scoring them one by one raises it."""
    if not stats or any(len(s) == 0 for s in stats):
        return [score_statistics(s, config).score for s in stats]
    if config.aggregation in _ROW_MEANS:
        return _sentence_means(stats, config)
    if config.aggregation != "corpus":
        return [_mean_score(s, config) for s in stats]
    try:
        totals = [checked_totals(s, config) for s in stats]
        ctx = None
        if get_smoothing(config.smooth).context:
            parts = [context_of(s) for s in stats]
            ctx = NltkContext(
                *(np.concatenate([getattr(p, f.name) for p in parts]) for f in _NLTK_FIELDS)
            )
        rows = bleu_rows(
            [t.sys_len for t in totals],
            [t.ref_len for t in totals],
            [t.correct for t in totals],
            [t.total for t in totals],
            config,
            context=ctx,
            corpus=True,
            longest=[int(s.hyp_len.max()) for s in stats],
        )
    except HarnessError:  # the first corpus that raises, as one by one
        return [score_statistics(s, config).score for s in stats]
    return [reported(x, config) for x in rows.score.tolist()]


def _sentence_means(stats: Sequence[Statistics], config: BleuConfig) -> list[float]:
    """:func:`_mean_score` of each of ``stats``: every segment of every corpus scored in one
    arithmetic call (the rows are independent), each corpus's mean taken over its own."""
    rule = zero_length_rule(config.on_zero_length)
    if rule.first_segment_refusal or rule.empty_segment_refusal:
        return [_mean_score(s, config) for s in stats]
    n = config.max_order
    try:
        for s in stats:
            checked_totals(s, config)
        ctx = None
        if get_smoothing(config.smooth).context:
            parts = [s.memo("segment_contexts", partial(segment_contexts, s)) for s in stats]
            ctx = NltkContext(
                *(np.concatenate([getattr(p, f.name) for p in parts]) for f in _NLTK_FIELDS)
            )
        rows = bleu_rows(
            np.concatenate([s.hyp_len for s in stats]),
            np.concatenate(
                [s.ref_length(config.ref_length, missing=config.missing_refs) for s in stats]
            ),
            np.concatenate([s.counted(config.ngram_totals, n) for s in stats]),
            np.concatenate([s.totals(config.ngram_totals, n) for s in stats]),
            config,
            context=ctx,
        )
    except HarnessError:  # the first corpus that raises, as one by one
        return [_mean_score(s, config) for s in stats]
    ends = np.cumsum([len(s) for s in stats])
    return [
        reported(segment_mean(part, mean_rows(s, config)), config)
        for s, part in zip(stats, np.split(rows.score, ends[:-1]), strict=True)
    ]


def _mean_score(stats: Statistics, config: BleuConfig) -> float:
    """``score_statistics(stats, config).score`` of a sentence mean (or of an empty corpus:
    what it raises)."""
    if config.aggregation == "corpus":
        return score_statistics(stats, config).score
    checked_totals(stats, config)
    arr = segment_arrays(stats, config)
    return reported(segment_mean(arr.score, mean_rows(stats, config)), config)
