"""Bootstrap kernels: correlation coefficients of many resamples at once, from draw counts.

Every resample of ``n`` items drawn with replacement is a row of draw counts. Pearson's r is a
count-weighted r (:func:`boot_pearson`; :func:`boot_pearson_pairs` for every pair of a
correlation matrix at once), Spearman's ρ the r of average ranks that follow from cumulative
counts (:func:`boot_spearman`), and Kendall's τ-b (:func:`boot_tau_b`, below) needs no sort per
resample.

A resample of ``n`` items drawn with replacement is a vector of draw counts ``w`` (one per
item). Sorted by (x, y), its draws are the items in one fixed (x, y) order, each repeated
``w`` times, so the order is computed once for all resamples; what differs per resample is
only the counts. τ-b then needs, per resample (Kendall 1945; the quantities
:func:`scipy.stats.kendalltau` computes, with the same integer arithmetic and the same final
expression, so the values are equal bit for bit — ``tests/test_correlation.py`` checks it):

* the pairs of draws tied in x, tied in y, and tied in both: Σ t(t−1)/2 over the groups of
  t equal draws — runs in the (x, y)-sorted draws for x and (x, y), one ``np.bincount`` over
  all resamples at once for y;
* the discordant pairs: inversions of the y ranks along the (x, y)-sorted draws, counted by
  scipy's own counter (``scipy.stats._stats._kendall_dis``, the function ``kendalltau`` calls;
  a Fenwick tree in C). Where scipy no longer has it, each resample is handed to
  :func:`scipy.stats.kendalltau` whole (the same numbers, more slowly).

How much faster than ``kendalltau`` on the gathered values: ``benchmarks/README.md``, "Moved
from code comments".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import EllipsisType

import numpy as np

#: scipy's discordant-pair counter (private; present since scipy 0.18), looked up on first use
#: by :func:`_discordant` (importing it loads all of scipy.stats): ``...`` until then, ``None``
#: where the scipy build has none.
_DISCORDANT: Callable[[np.ndarray, np.ndarray], int] | EllipsisType | None = ...

__all__ = [
    "Ties",
    "boot_pearson",
    "boot_pearson_pairs",
    "boot_spearman",
    "boot_tau_b",
    "constant",
    "pairwise_tau_b",
]

#: Resample rows are processed in blocks of about this many counts.
_BLOCK = 1 << 21


class Ties:
    """The tie structure of one vector, for bootstrap ranks without re-sorting.

    ``order`` sorts the vector; ``g_start``/``g_end`` delimit (end exclusive) each group of
    equal values in sorted order; ``group[i]`` is the group of item ``i`` and ``sorted_group``
    the group of each sorted position.
    """

    def __init__(self, v: np.ndarray) -> None:
        self.order = np.argsort(v, kind="stable")
        s = v[self.order]
        new = np.concatenate(([True], s[1:] != s[:-1]))
        self.g_start = np.flatnonzero(new)
        self.g_end = np.concatenate((self.g_start[1:], [v.shape[0]]))
        self.sorted_group = np.cumsum(new) - 1
        self.group = np.empty(v.shape[0], dtype=np.int64)
        self.group[self.order] = self.sorted_group
        self.tied = self.g_start.shape[0] < v.shape[0]

    def centred_ranks(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per resample (rows of counts ``w``, items in original order): the centred average
        rank of every item **in this vector's sorted order**, (k, n), and the resample's sum
        of squared centred ranks, (k,).

        An item's average rank in a resample is the count of drawn values below its value
        plus (count of drawn values equal to it + 1) / 2 — :func:`scipy.stats.rankdata`'s
        ``"average"`` — and a resample of n draws has mean rank (n + 1) / 2.
        """
        n = w.shape[1]
        ws = np.take(w, self.order, axis=1)
        cum = np.zeros((w.shape[0], n + 1))
        np.cumsum(ws, axis=1, out=cum[:, 1:])
        if self.tied:
            below = np.take(cum, self.g_start, axis=1)
            size = np.take(cum, self.g_end, axis=1) - below
        else:
            below, size = cum[:, :n], ws
        rank = below + (size + 1) / 2 - (n + 1) / 2
        ss = np.einsum("ij,ij,ij->i", size, rank, rank)
        if self.tied:
            rank = np.take(rank, self.sorted_group, axis=1)
        return rank, ss


def _scaled(v: np.ndarray) -> np.ndarray:
    """``v`` centred and scaled to at most 1 in absolute value (r is unchanged; the sums of
    squares stay well conditioned)."""
    c = v - v.mean()
    return c / (np.abs(c).max() or 1.0)


def _r(sxy: np.ndarray, sxx: np.ndarray, syy: np.ndarray) -> np.ndarray:
    """Pearson's r from centred co-moments; NaN where a side has no spread."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((sxx > 0) & (syy > 0), sxy / np.sqrt(sxx * syy), np.nan)
    return np.clip(r, -1.0, 1.0)


def boot_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    """Pearson's r of each resample given as count weights ``w`` (k, n): five BLAS
    matrix-vector products on the centred, scaled values."""
    x, y = _scaled(x), _scaled(y)
    sx, sy = w @ x, w @ y
    sxx = w @ (x * x) - sx * sx / n
    syy = w @ (y * y) - sy * sy / n
    sxy = w @ (x * y) - sx * sy / n
    return _r(sxy, sxx, syy)


def boot_spearman(w: np.ndarray, tx: Ties, ty: Ties) -> np.ndarray:
    """Spearman's ρ of each resample: Pearson's r of the resample's average ranks (worked
    out in x's sorted order, so only y's ranks are permuted)."""
    rx, sxx = tx.centred_ranks(w)
    ry, syy = ty.centred_ranks(w)
    # y-sorted position → item → x-sorted position
    ry = np.take(ry, np.argsort(ty.order, kind="stable")[tx.order], axis=1)
    sxy = np.einsum("ij,ij,ij->i", np.take(w, tx.order, axis=1), rx, ry)
    return _r(sxy, sxx, syy)


def constant(idx: np.ndarray, w: np.ndarray, ties: Ties) -> np.ndarray:
    """Whether each resample drew a single distinct value: all n draws in the tie group of
    its first draw."""
    n = w.shape[1]
    members = ties.group[idx[:, 0]][:, None] == ties.group[None, :]
    return (w * members).sum(axis=1) >= n


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


def pairwise_tau_b(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """τ-b of each row pair of ``a``, ``b`` (k, n) over all item pairs, for small ``n`` (n²
    memory): (C − D) / sqrt(n_x · n_y), n_x (n_y) the item pairs not tied in ``a`` (``b``)."""
    i, j = np.triu_indices(a.shape[1], k=1)
    sa = np.sign(a[:, i] - a[:, j])
    sb = np.sign(b[:, i] - b[:, j])
    num = (sa * sb).sum(axis=1)
    den = np.sqrt(np.abs(sa).sum(axis=1) * np.abs(sb).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _dense_ranks(v: np.ndarray) -> np.ndarray:
    """1-based dense ranks (equal values share a rank), as scipy's counter expects."""
    return np.unique(v, return_inverse=True)[1].reshape(-1).astype(np.intp) + 1


def _per_row_counts(keys: np.ndarray, size: int) -> np.ndarray:
    """How often each key ``0..size-1`` occurs in each row of ``keys`` (R, n): (R, size)."""
    r = keys.shape[0]
    flat = (keys.astype(np.int64) + (np.arange(r, dtype=np.int64) * size)[:, None]).ravel()
    return np.bincount(flat, minlength=r * size).reshape(r, size)


def _tied(counts: np.ndarray) -> np.ndarray:
    """Pairs of draws in the same group, per row of group counts: Σ c(c−1)/2."""
    return (counts * (counts - 1) // 2).sum(axis=1)


def _discordant() -> Callable[[np.ndarray, np.ndarray], int] | None:
    """:data:`_DISCORDANT`, looked up the first time it is needed."""
    global _DISCORDANT
    counter = _DISCORDANT
    if isinstance(counter, EllipsisType):
        try:
            from scipy.stats._stats import _kendall_dis

            counter = _kendall_dis
        except ImportError:  # pragma: no cover - depends on the scipy build
            counter = None
        _DISCORDANT = counter
    return counter


def boot_tau_b(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of every resample ``(x[i], y[i])`` for the rows ``i`` of ``idx`` (k, n):
    equal to ``scipy.stats.kendalltau(x[i], y[i], variant="b").statistic``; NaN where a
    resample is constant on a side."""
    k, n = idx.shape
    out = np.full(k, np.nan)
    discordant = _discordant()
    if discordant is None:  # pragma: no cover - depends on the scipy build
        from scipy import stats as sps

        for r in range(k):
            a, b = x[idx[r]], y[idx[r]]
            if np.ptp(a) > 0 and np.ptp(b) > 0:
                out[r] = sps.kendalltau(a, b, variant="b").statistic
        return out
    rx, ry = _dense_ranks(x), _dense_ranks(y)
    order = np.lexsort((ry, rx))  # the (x, y) order of the items
    sx, sy = rx[order], ry[order]
    where_sorted = np.empty(n, dtype=np.int64)
    where_sorted[order] = np.arange(n)
    joint = np.unique(rx * (int(ry.max()) + 1) + ry, return_inverse=True)[1].reshape(-1)
    total = n * (n - 1) // 2
    rows = max(1, _BLOCK // max(n, 1))
    for lo in range(0, k, rows):
        hi = min(k, lo + rows)
        draws = idx[lo:hi]
        counts = _per_row_counts(where_sorted[draws], n)
        # pairs of draws tied in x, in y, in both: Σ c(c−1)/2 over each key's groups
        xtie = _tied(_per_row_counts(rx[draws], int(rx.max()) + 1))
        ytie = _tied(_per_row_counts(ry[draws], int(ry.max()) + 1))
        ntie = _tied(_per_row_counts(joint[draws], int(joint.max()) + 1))
        live = (xtie != total) & (ytie != total)
        for r in np.flatnonzero(live).tolist():
            w = counts[r]
            dis = int(discordant(np.repeat(sx, w), np.repeat(sy, w)))  # draws in (x, y) order
            con_minus_dis = total - int(xtie[r]) - int(ytie[r]) + int(ntie[r]) - 2 * dis
            tau = con_minus_dis / np.sqrt(total - int(xtie[r])) / np.sqrt(total - int(ytie[r]))
            out[lo + r] = min(1.0, max(-1.0, tau))
    return out
