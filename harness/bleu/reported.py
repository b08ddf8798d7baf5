"""A score as its library prints it: the corpus-level score rounded by the configuration's
``round_digits`` and ``round_rule`` (:data:`harness.bleu.config.ROUND_RULES`), at every site
that makes a corpus score (the engine, the many-configurations scorer, the bootstrap); or,
under a rule of :data:`~harness.bleu.config.SEGMENT_ROUND_RULES`, each segment's score,
where the one arithmetic scores segments (:func:`harness.bleu.arithmetic.bleu_rows`).
"""

from __future__ import annotations

import numpy as np

from harness.bleu.config import SEGMENT_ROUND_RULES, BleuConfig

__all__ = ["reported", "reported_array", "reported_segments"]


def reported(score: float, config: BleuConfig) -> float:
    """A corpus-level ``score`` (0–100) as ``config``'s library reports it: rounded to
    ``round_digits`` decimals by its ``round_rule``, or as it is (``None``; also a nan, and
    a rule that rounds the segments' scores instead)."""
    if config.round_digits is None or score != score or config.round_rule in SEGMENT_ROUND_RULES:
        return score
    digits = config.round_digits
    if config.round_rule == "python-unit":
        return 100 * round(score / 100, digits + 2)
    if config.round_rule == "numpy":
        return float(np.round(score, digits))
    return round(score, digits)


def reported_array(scores: np.ndarray, config: BleuConfig) -> np.ndarray:
    """:func:`reported` of every corpus-level score in ``scores``."""
    if config.round_digits is None or config.round_rule in SEGMENT_ROUND_RULES:
        return scores
    out = np.array([reported(v, config) for v in scores.tolist()], dtype=float)
    return out.reshape(scores.shape)


def reported_segments(scores: np.ndarray, config: BleuConfig) -> np.ndarray:
    """Segment scores (0–100) as ``config``'s library prints them: ``numpy.round`` to
    ``round_digits`` under ``round_rule="numpy-segment"``, else as they are."""
    if config.round_digits is None or config.round_rule not in SEGMENT_ROUND_RULES:
        return scores
    return np.round(scores, config.round_digits)
