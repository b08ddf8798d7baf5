"""Bootstrap kernels for the cells of a correlation matrix: Pearson's r and Spearman's ρ of
many pairs of vectors on the same resamples at once (the per-cell kernels are in
:mod:`harness.statistics.boot_kernels`).

Cells of a matrix that keep the same items share the resamples' count matrix, each vector's
tie structure and constant resamples, and for Spearman each vector's resample ranks.
:func:`boot_pearson_pairs` works the moments out as matrix products (equal to the per-cell
kernel within 1e-12); :func:`boot_pearson_cells` and :func:`boot_spearman_pairs` give the
per-cell kernels' numbers to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.statistics.blas import single_blas_thread
from harness.statistics.boot_kernels import (
    _BLOCK,
    Ties,
    _counts,
    _r,
    _scaled,
    boot_pearson,
    constant,
)

__all__ = ["boot_pearson_cells", "boot_pearson_pairs", "boot_spearman_pairs"]


@single_blas_thread
def boot_pearson_pairs(
    vectors: Sequence[np.ndarray], pairs: Sequence[tuple[int, int]], idx: np.ndarray
) -> np.ndarray:
    """Pearson's r of every resample (rows of ``idx``) for each pair ``(i, j)`` of the complete,
    equally long ``vectors``: (pairs, k), NaN where a resample is constant on a side.

    What :func:`boot_pearson` gives cell by cell, with the count matrix built once for all
    pairs and the moments as matrix products (a correlation matrix of V vectors costs about
    one cell's count matrix plus one product per block of pairs, instead of V²/2 cells).
    """
    k, n = idx.shape
    x = np.stack([_scaled(v) for v in vectors], axis=1)  # (n, V)
    ties = [Ties(v) for v in vectors]
    first = np.array([p[0] for p in pairs], dtype=np.int64)
    second = np.array([p[1] for p in pairs], dtype=np.int64)
    out = np.full((len(pairs), k), np.nan)
    rows = per_block = max(1, _BLOCK // max(n, 1))  # resample rows; pair columns
    for lo in range(0, k, rows):
        hi = min(k, lo + rows)
        flat = (idx[lo:hi].astype(np.int64) + (np.arange(hi - lo) * n)[:, None]).ravel()
        w = np.bincount(flat, minlength=(hi - lo) * n).reshape(hi - lo, n).astype(np.float64)
        s1, s2 = w @ x, w @ (x * x)
        const = np.stack([constant(idx[lo:hi], w, t) for t in ties], axis=1)  # (k_c, V)
        for p0 in range(0, len(pairs), per_block):
            i, j = first[p0 : p0 + per_block], second[p0 : p0 + per_block]
            sxy = w @ (x[:, i] * x[:, j]) - s1[:, i] * s1[:, j] / n
            sxx = s2[:, i] - s1[:, i] * s1[:, i] / n
            syy = s2[:, j] - s1[:, j] * s1[:, j] / n
            r = _r(sxy, sxx, syy)
            r[const[:, i] | const[:, j]] = np.nan
            out[p0 : p0 + per_block, lo:hi] = r.T
    return out


def boot_pearson_cells(
    vectors: Sequence[np.ndarray], pairs: Sequence[tuple[int, int]], idx: np.ndarray
) -> np.ndarray:
    """:func:`boot_pearson` of each pair ``(i, j)`` of the complete, equally long ``vectors``
    on every resample (rows of ``idx``): (pairs, k), NaN where a resample is constant on a
    side. The numbers of the cell-by-cell kernel to the last bit (the same blocks of
    resamples, the same products), with the count matrix and each vector's constant resamples
    worked out once per block for all pairs."""
    k, n = idx.shape
    used = list(dict.fromkeys(v for pair in pairs for v in pair))
    ties = {v: Ties(vectors[v]) for v in used}
    out = np.full((len(pairs), k), np.nan)
    rows = max(1, _BLOCK // max(n, 1))
    for lo in range(0, k, rows):
        hi = min(k, lo + rows)
        w = _counts(idx[lo:hi], n).astype(np.float64)
        const = {v: constant(idx[lo:hi], w, ties[v]) for v in used}
        for p, (i, j) in enumerate(pairs):
            r = boot_pearson(w, vectors[i], vectors[j], n)
            r[const[i] | const[j]] = np.nan
            out[p, lo:hi] = r
    return out


def boot_spearman_pairs(
    vectors: Sequence[np.ndarray], pairs: Sequence[tuple[int, int]], idx: np.ndarray
) -> np.ndarray:
    """Spearman's ρ of every resample (rows of ``idx``) for each pair ``(i, j)`` of the
    complete, equally long ``vectors``: (pairs, k), NaN where a resample is constant on a side.

    What :func:`boot_spearman` gives cell by cell, with each vector's resample ranks, sorted
    counts and constant resamples worked out once per block of resamples for all its pairs.
    """
    k, n = idx.shape
    used = list(dict.fromkeys(v for pair in pairs for v in pair))
    ties = {v: Ties(vectors[v]) for v in used}
    inverse = {v: np.argsort(ties[v].order, kind="stable") for v in used}
    out = np.full((len(pairs), k), np.nan)
    rows = max(1, _BLOCK // max(n * len(used), 1))
    for lo in range(0, k, rows):
        hi = min(k, lo + rows)
        flat = (idx[lo:hi].astype(np.int64) + (np.arange(hi - lo) * n)[:, None]).ravel()
        w = np.bincount(flat, minlength=(hi - lo) * n).reshape(hi - lo, n).astype(np.float64)
        ranks = {v: ties[v].centred_ranks(w) for v in used}
        const = {v: constant(idx[lo:hi], w, ties[v]) for v in used}
        sorted_w: dict[int, np.ndarray] = {}
        for p, (i, j) in enumerate(pairs):
            order = ties[i].order
            if i not in sorted_w:
                sorted_w[i] = np.take(w, order, axis=1)
            (rx, sxx), (ry, syy) = ranks[i], ranks[j]
            ry = np.take(ry, inverse[j][order], axis=1)
            r = _r(np.einsum("ij,ij,ij->i", sorted_w[i], rx, ry), sxx, syy)
            r[const[i] | const[j]] = np.nan
            out[p, lo:hi] = r
    return out
