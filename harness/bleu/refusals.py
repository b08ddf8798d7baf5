"""What a library raises on a whole corpus before it scores it, as the profiles declare it:
jury's first segment without tokens (``on_zero_length="jury"``), opik's any segment without
tokens (``on_zero_length="opik"``), Hugging Face's sacrebleu module on ragged references
(``missing_refs="refuse"``), sacrebleu 1.2.x–1.4.14 on them (``missing_refs="refuse-eof"``),
sacrebleu 1.5.x–2.1.0 on a segment without a non-empty reference
(``missing_refs="drop-empty"``, ``"drop-empty-eof"``), and lm-eval 0.0.1–0.3.0 with 1.5.0,
after its cut to the fewest references (``"truncate-drop-empty-eof"``).
:mod:`harness.bleu.engine` calls these before it scores a corpus (:func:`corpus_refusals`); a
segment scored alone is its own corpus.
"""

from __future__ import annotations

import numpy as np

from harness.bleu.config import EMPTY_REFERENCE_DROPS, RAGGED_REFUSALS, BleuConfig
from harness.bleu.stats import Statistics
from harness.bleu.zero_length import zero_length_rule
from harness.errors import LibraryWouldRaise

__all__ = [
    "corpus_refusals",
    "empty_references_refusal",
    "empty_segment_refusal",
    "first_segment_refusal",
    "ragged_refusal",
    "segments_refused_alone",
]


def first_segment_refusal(stats: Statistics, config: BleuConfig) -> None:
    """Raise what jury raises before it scores (``on_zero_length="jury"``): its
    ``Collator.collapse`` reads the first token of the first segment's hypothesis, and of that
    segment's reference when every segment has exactly one (only then are references
    collapsed), and raises ``IndexError`` when the text tokenized to nothing."""
    if not zero_length_rule(config.on_zero_length).first_segment_refusal or len(stats) == 0:
        return
    if stats.hyp_len[0] == 0:
        side = "hypothesis"
    elif bool((stats.ref_counts == 1).all()) and stats.ref_lens[0][0] == 0:
        side = "only reference"
    else:
        return
    raise LibraryWouldRaise(
        config.library,
        "IndexError",
        f"the first segment's {side} has no tokens (Collator.collapse reads its first token)",
    )


def ragged_refusal(stats: Statistics, config: BleuConfig) -> None:
    """Raise what a library that needs every segment to have as many references raises on a
    corpus whose segments do not all have as many references as the first: Hugging Face's
    ``sacrebleu`` module (``missing_refs="refuse"``: ``ValueError``), sacrebleu 1.2.x–1.4.14,
    whose ``zip_longest`` over the reference streams meets a missing reference
    (``missing_refs="refuse-eof"``: ``EOFError``)."""
    exception = RAGGED_REFUSALS.get(config.missing_refs)
    if exception is None or len(stats) == 0:
        return
    first = len(stats.ref_lens[0])
    others = np.flatnonzero(stats.ref_counts != first)
    if not others.size:
        return
    other = int(others[0])
    raise LibraryWouldRaise(
        config.library,
        exception,
        f"every prediction needs as many references as the first ({first}); segment "
        f"{other + 1} has {len(stats.ref_lens[other])}",
    )


def empty_segment_refusal(stats: Statistics, config: BleuConfig) -> None:
    """Raise what opik raises (``on_zero_length="opik"``) when a segment's hypothesis or one
    of its references has no tokens: ``MetricComputationError``, for the first such segment.

    Under ``aggregation="nonempty-mean"`` each segment is a call of its own and the mean
    leaves out the segments it raises on (:func:`segments_refused_alone` refuses none of
    them): a corpus is refused only when every segment is, since there is no mean then
    (``opik.evaluate`` prints none)."""
    if not zero_length_rule(config.on_zero_length).empty_segment_refusal:
        return
    empty = stats.has_empty_side
    if not empty.any():
        return
    i = int(np.argmax(empty))
    side = "output" if stats.hyp_len[i] == 0 else "reference"
    if config.aggregation != "nonempty-mean":
        raise LibraryWouldRaise(
            config.library, "MetricComputationError", f"segment {i + 1}'s {side} has no words"
        )
    if empty.all():
        raise LibraryWouldRaise(
            config.library,
            "MetricComputationError",
            f"every segment raises it — segment {i + 1}'s {side} has no words, and so on — "
            "and the mean leaves each out: there is no mean to print",
        )


def segments_refused_alone(stats: Statistics, config: BleuConfig) -> np.ndarray:
    """(S,) bool: the segments opik refuses when each is scored alone
    (``on_zero_length="opik"``: a hypothesis or a reference without tokens), except under
    ``aggregation="nonempty-mean"``, whose mean leaves them out instead."""
    rule = zero_length_rule(config.on_zero_length)
    if not rule.empty_segment_refusal or config.aggregation == "nonempty-mean":
        return np.zeros(len(stats), dtype=bool)
    return stats.has_empty_side.copy()


def empty_references_refusal(stats: Statistics, config: BleuConfig) -> None:
    """Raise what sacrebleu 1.5.x (``missing_refs="drop-empty-eof"``: ``EOFError``; lm-eval
    0.0.1–0.3.0 with it, ``truncate-drop-empty-eof``) and 2.0.0–2.1.0 (``drop-empty``:
    ``RuntimeError``) raise on a segment whose references are all empty strings, for the first
    such segment: every other empty reference was left out before counting
    (:func:`harness.bleu.layouts.counted_corpus`). Under ``aggregation="best-ref-mean"``
    nothing was left out, and this is called on the pairs each reference is scored alone in
    (:func:`harness.bleu.engine.best_reference`): any empty reference is refused.

    Read from the statistics, a segment whose references all have no tokens: also one whose
    references are spaces only (or text its tokenizer removes), which the release keeps and
    scores with reference length 0, where this refuses."""
    exception = EMPTY_REFERENCE_DROPS.get(config.missing_refs)
    if exception is None or len(stats) == 0:
        return
    bare = (stats.ref_matrix <= 0).all(axis=1)
    if not bare.any():
        return
    i = int(np.argmax(bare))
    raise LibraryWouldRaise(
        config.library,
        exception,
        f"segment {i + 1} has no reference that is not empty (empty references are left "
        "out, and a segment needs one)",
    )


def corpus_refusals(stats: Statistics, config: BleuConfig) -> None:
    """Every refusal a library makes on a whole corpus before it scores it, in the order
    :mod:`harness.bleu.engine` checks them."""
    first_segment_refusal(stats, config)
    empty_segment_refusal(stats, config)
    ragged_refusal(stats, config)
    empty_references_refusal(stats, config)
