"""A corpus-level score as its library prints it: rounded by the configuration's
``round_digits`` and ``round_rule`` (:data:`harness.bleu.config.ROUND_RULES`), at every site
that makes a corpus score (the engine, the many-configurations scorer, the bootstrap).
"""

from __future__ import annotations

import numpy as np

from harness.bleu.config import BleuConfig

__all__ = ["reported", "reported_array"]


def reported(score: float, config: BleuConfig) -> float:
    """A corpus-level ``score`` (0–100) as ``config``'s library reports it: rounded to
    ``round_digits`` decimals by its ``round_rule``, or as it is (``None``; also a nan)."""
    if config.round_digits is None or score != score:
        return score
    digits = config.round_digits
    if config.round_rule == "python-unit":
        return 100 * round(score / 100, digits + 2)
    if config.round_rule == "numpy":
        return float(np.round(score, digits))
    return round(score, digits)


def reported_array(scores: np.ndarray, config: BleuConfig) -> np.ndarray:
    """:func:`reported` of every corpus-level score in ``scores``."""
    if config.round_digits is None:
        return scores
    out = np.array([reported(v, config) for v in scores.tolist()], dtype=float)
    return out.reshape(scores.shape)
