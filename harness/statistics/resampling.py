"""Seeded resampling of segments, and the percentile interval of resampled scores.

A resampled corpus is a weighted sum of per-segment rows: :func:`resample_indices` draws the
segments as sacrebleu's paired bootstrap does, :func:`counts_from_indices` turns the draws into
weights, and :func:`exact_product_dtype` says when the weighted sums are exact in single
precision. :mod:`harness.analysis.resampling` scores the sums as BLEU.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "DEFAULT_SEED",
    "counts_from_indices",
    "exact_product_dtype",
    "percentile_interval",
    "resample_indices",
]

DEFAULT_SEED = 12345
"""The one default seed of every random procedure: sacrebleu's (``SACREBLEU_SEED`` unset), so
default runs draw the same bootstrap resamples and AR swaps as ``sacrebleu --paired-bs`` /
``--paired-ar``."""


def resample_indices(n_segments: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(resamples, n_segments)`` segment indices drawn with replacement.

    The same call as sacrebleu's paired bootstrap, ``rng.choice(S, size=(R, S), replace=True)``,
    so a generator seeded alike yields the same resamples.
    """
    return rng.choice(n_segments, size=(resamples, n_segments), replace=True)


def counts_from_indices(
    indices: np.ndarray, n_segments: int, *, dtype: type = np.float64
) -> np.ndarray:
    """The ``(R, S)`` count matrix ``C``: ``C[r, i]`` = occurrences of segment ``i`` in row ``r``.

    ``C @ M`` is then ``M[indices].sum(axis=1)`` without building the ``(R, S, K)`` gather.
    Counts are small integers, exact in ``float32`` as in the default ``float64``.
    """
    idx = np.asarray(indices)
    rows = idx.shape[0]
    out: np.ndarray = np.empty((rows, n_segments), dtype=dtype)
    for r in range(rows):  # one bincount per row: no (R*S) temporary
        out[r] = np.bincount(idx[r], minlength=n_segments)
    return out


def exact_product_dtype(matrix: np.ndarray, weight_sum: int) -> type:
    """``float32`` when ``W @ matrix`` is exact in it, else ``float64``.

    For integer entries and non-negative integer weights ``W`` whose rows sum to at most
    ``weight_sum`` (bootstrap counts sum to S; AR swap masks are 0/1 over S segments), every
    product and every partial sum of the product is an integer of magnitude at most
    ``weight_sum * max|matrix|``; below 2**24 all of them are exact in float32, in any
    summation order, so the single-precision product (half the memory traffic of float64) is
    exact. Fractional entries (``ref_length="average"``, sentence scores) use float64.
    """
    if matrix.size == 0:
        return np.float64
    bound = float(np.abs(matrix).max()) * weight_sum
    if bound < 2**24 and bool(np.all(matrix == np.floor(matrix))):
        return np.float32
    return np.float64


def percentile_interval(scores: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """sacrebleu's percentile interval: ``(s_(k), s_(R-1-k))``, ``k = floor(R (1 - confidence) / 2)``.

    ``s_(0) ≤ … ≤ s_(R-1)`` are the sorted scores; ``confidence=0.95`` gives sacrebleu's ``R // 40``.
    """
    s = np.sort(np.asarray(scores, dtype=np.float64))
    k = math.floor(len(s) * (1.0 - confidence) / 2.0 + 1e-9)
    return float(s[k]), float(s[len(s) - 1 - k])
