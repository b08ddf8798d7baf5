"""Bootstrap kernels: correlation coefficients of many resamples at once, from draw counts.

Every resample of ``n`` items drawn with replacement is a row of draw counts ``w`` (one per
item). Pearson's r is a count-weighted r (:func:`boot_pearson`; the cells of a correlation matrix
together: :mod:`harness.statistics.boot_matrix`), Spearman's ρ the r of average ranks that follow from
cumulative counts (:func:`boot_spearman`).

Kendall's τ-b (:func:`tau_b_pairs` for the pairs of a correlation matrix, :func:`boot_tau_b` for
one) is computed from exact integer counts and :func:`scipy.stats.kendalltau`'s final
expression, so each resample's value is the float ``kendalltau(x[i], y[i], variant="b")`` gives
on the gathered draws, bit for bit (``tests/test_boot_exact.py``). Over the n(n−1)/2 pairs of
draws (Kendall 1945), with T_x, T_y, T_xy the pairs tied in x, in y, in both and D the
discordant ones::

    S = C − D = Σ_{i<j} w_i w_j sign(x_i − x_j) sign(y_i − y_j) = N − T_x − T_y + T_xy − 2D
    τ-b = S / sqrt(N − T_x) / sqrt(N − T_y)

* τ-b depends on the vectors' rank patterns only: vectors with the same dense ranks are one
  vector. A pattern that orders only a few item pairs differently from an earlier one (a
  profile and the library it reproduces, equal to 1e-9 but with other ties) joins it: its S
  with any vector is the earlier pattern's plus a sum over those few pairs.
* D of two distinct patterns x and y: each cuts the items into blocks of at most
  :data:`TAU_BLOCK` consecutive ranks (whole tie groups). Discordant pairs inside one x-block,
  and inside one y-block across x-blocks, are quadratic forms ``w_b' A_b w_b`` of each block's
  counts (matrix products in float32, exact: every partial sum is an integer below 2**24);
  pairs in different blocks of both are counted on the grid of draws per (x-block, y-block)
  with two running sums.

How fast, against scipy and the per-resample counter this replaced: ``benchmarks/README.md``,
"Correlation bootstrap (issue 22)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property

import numpy as np

from harness.statistics.blas import single_blas_thread

__all__ = [
    "TAU_BLOCK",
    "Ties",
    "boot_pearson",
    "boot_spearman",
    "boot_tau_b",
    "boot_values",
    "constant",
    "pairwise_tau_b",
    "tau_b_pairs",
]

TAU_BLOCK = 128
"""Items per block of the τ-b kernel (even; a tie group larger than this is a block alone)."""
# Each matrix product is at most 2**18 multiply-adds (rows × columns × resamples): under
# OpenBLAS's threshold for threads, so the many small products never wait on BLAS threads,
# which on a busy machine makes products this small many times slower (benchmarks/README.md).
_PRODUCT = 1 << 18
# A pattern joins an earlier one when they order at most this many item pairs (times n)
# differently: past that, its corrections cost about what the pairs it saves would.
_REORDERED = 15

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


@single_blas_thread
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


# ---------------------------------------------------------------------------- Kendall τ-b
def _dense_ranks(v: np.ndarray) -> np.ndarray:
    """0-based dense ranks (equal values share a rank)."""
    return np.unique(v, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _counts(idx: np.ndarray, n: int) -> np.ndarray:
    """Draw counts of each item in each resample (rows of ``idx``): (k, n), int32 while
    products of two counts and sums of squares (at most n²) fit in it."""
    k = idx.shape[0]
    flat = (idx.astype(np.int64) + (np.arange(k, dtype=np.int64) * n)[:, None]).ravel()
    counts = np.bincount(flat, minlength=k * n).reshape(k, n)
    return counts.astype(np.int32) if n <= 46340 else counts


def _square_sums(m: np.ndarray) -> np.ndarray:
    """Σ_i m[i]² of each column of draw counts (int64). Exact in ``m``'s integer type: the
    counts of a resample add up to n, so the sum is at most n² (int32 up to n = 46340)."""
    return np.einsum("ij,ij->j", m, m).astype(np.int64)


@single_blas_thread
def _group_sum(group: np.ndarray, n_groups: int, wt: np.ndarray) -> np.ndarray:
    """Rows of ``wt`` summed by ``group`` (one group per row): (n_groups, k)."""
    from scipy import sparse  # slow to import: only once a τ-b is bootstrapped

    m = group.shape[0]
    one = sparse.csr_matrix((np.ones(m, wt.dtype), (group, np.arange(m))), shape=(n_groups, m))
    return np.asarray(one @ wt)


def _tied_draws(key: np.ndarray, wt: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Pairs of draws with equal ``key`` in each resample (columns of ``wt``, (n, k) counts):
    (Σ_g c_g² − n) / 2 over the groups g of items with one key, c_g their draws. ``squares``:
    Σ_i w_i², the sum for every item alone; only groups of two or more items change it."""
    _, group, size = np.unique(key, return_inverse=True, return_counts=True)
    shared = np.flatnonzero(size[group.reshape(-1)] > 1)
    total = squares.copy()
    if shared.shape[0]:
        w = wt[shared]
        g = np.unique(group.reshape(-1)[shared], return_inverse=True)[1].reshape(-1)
        total += _square_sums(_group_sum(g, int(g.max()) + 1, w)) - _square_sums(w)
    return (total - wt.shape[0]) // 2


class _Blocks:
    """One rank pattern cut into blocks of at most ``size`` consecutive ranks, whole tie groups.

    ``block[i]``: item ``i``'s block (blocks in rank order); ``slot[i]``: its row in the block
    layout (``n_blocks × size`` rows, rank order inside a block), −1 for the items of a tie
    group larger than ``size`` (a block alone: no discordant pair lies inside it).
    """

    def __init__(self, rank: np.ndarray, size: int) -> None:
        n = rank.shape[0]
        order = np.argsort(rank, kind="stable")
        new = np.ones(n, dtype=bool)
        new[1:] = rank[order][1:] != rank[order][:-1]
        g_start = np.flatnonzero(new)
        g_end = np.append(g_start[1:], n)
        first = []  # the group opening each block: as many whole groups as fit in `size`
        g = 0
        while g < g_start.shape[0]:
            first.append(g)
            g = max(g + 1, int(np.searchsorted(g_end, g_start[g] + size, side="right")))
        opens = g_start[first]
        sizes = np.diff(np.append(opens, n))
        per_group = np.repeat(np.arange(len(first)), np.diff(np.append(first, g_start.shape[0])))
        sorted_block = per_group[np.cumsum(new) - 1]
        offset = np.arange(n) - opens[sorted_block]
        laid = (sizes <= size)[sorted_block]
        self.rank, self.size, self.n_blocks = rank, size, len(first)
        self.block = np.empty(n, dtype=np.int64)
        self.block[order] = sorted_block
        self.slot = np.full(n, -1, dtype=np.int64)
        self.slot[order[laid]] = sorted_block[laid] * size + offset[laid]
        self.laid = np.flatnonzero(self.slot >= 0)

    def spread(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per item) in the block layout, (n_blocks, size); −1 in empty rows."""
        out = np.full(self.n_blocks * self.size, -1, dtype=np.int64)
        out[self.slot[self.laid]] = values[self.laid]
        return out.reshape(self.n_blocks, self.size)

    @cached_property
    def below(self) -> np.ndarray:
        """``below[b, i, j]``: whether row ``i`` of block ``b`` ranks below row ``j``."""
        r = self.spread(self.rank)
        return r[:, :, None] < r[:, None, :]

    def lay(self, wt: np.ndarray, dtype: type, cols: int) -> np.ndarray:
        """Draw counts ``wt`` (n, k) in the block layout, resamples in chunks of ``cols``:
        (n_blocks, chunks, size, cols), 0 in empty rows and past the last resample."""
        k = wt.shape[1]
        chunks = -(-k // cols)
        out = np.zeros((self.n_blocks * self.size, chunks * cols), dtype=dtype)
        out[self.slot[self.laid], :k] = wt[self.laid]
        out = out.reshape(self.n_blocks, self.size, chunks, cols).transpose(0, 2, 1, 3)
        return np.ascontiguousarray(out)

    def pairs(self, other: np.ndarray, dtype: type) -> tuple[np.ndarray, np.ndarray]:
        """Which pairs of rows ``(i, j)`` of a block rank ``i`` below ``j`` here and above it in
        ``other`` (spread values): the upper half of the rows, and the lower-right quarter (the
        lower-left one is empty: rows are in rank order). Two arrays of ``dtype``."""
        h = self.size // 2
        o = self.spread(other)
        top = self.below[:, :h] & (o[:, :h, None] > o[:, None, :])
        bottom = self.below[:, h:, h:] & (o[:, h:, None] > o[:, None, h:])
        return top.astype(dtype), bottom.astype(dtype)


@single_blas_thread
def _quadratic(top: np.ndarray, bottom: np.ndarray, lay: np.ndarray) -> np.ndarray:
    """Σ_ij lay[b, c, i, r] a[b, i, j] lay[b, c, j, r] over blocks ``b``, for every chunk ``c``
    and resample ``r`` of ``lay`` (:meth:`_Blocks.lay`), with ``a`` given as its upper half of
    rows ``top`` and lower-right quarter ``bottom`` (:meth:`_Blocks.pairs`): (chunks × cols,)."""
    h = top.shape[1]
    upper = top[:, None] @ lay
    lower = bottom[:, None] @ lay[:, :, h:]
    upper *= lay[:, :, :h]
    lower *= lay[:, :, h:]
    # per-block sums are exact integers in float32; their total needs float64
    out = upper.sum(axis=2).sum(axis=0, dtype=np.float64)
    out += lower.sum(axis=2).sum(axis=0, dtype=np.float64)
    return out.ravel()


def _cross_blocks(bx: _Blocks, by: _Blocks, wt: np.ndarray) -> np.ndarray:
    """Discordant pairs of draws in different x-blocks and different y-blocks, per resample:
    one draw in an earlier x-block and a later y-block than the other. (k,) int64."""
    nx, ny, k = bx.n_blocks, by.n_blocks, wt.shape[1]
    grid = _group_sum(bx.block * ny + by.block, nx * ny, wt).reshape(nx, ny, k)
    lower = np.zeros_like(grid)  # draws of the same x-block in lower y-blocks
    for q in range(1, ny):
        np.add(lower[:, q - 1], grid[:, q - 1], out=lower[:, q])
    earlier = np.zeros((ny, k), dtype=grid.dtype)  # draws of earlier x-blocks, per y-block
    both = np.empty_like(earlier)
    # in the counts' type: every partial sum is at most the resample's n(n−1)/2 pairs of draws
    out = np.zeros_like(earlier)
    for p in range(1, nx):
        earlier += grid[p - 1]
        out += np.multiply(earlier, lower[p], out=both)
    return out.sum(axis=0, dtype=np.int64)


def _discordant(
    blocks: Mapping[int, _Blocks], pairs: Sequence[tuple[int, int]], wt: np.ndarray
) -> dict[tuple[int, int], np.ndarray]:
    """D of each pair ``(x, y)`` of patterns per resample (columns of ``wt``, (n, k) counts):
    ``{pair: (k,) int64}``. One block layout is alive at a time: each pattern's serves every
    pair it is in (same x-block as x, same y-block as y)."""
    k = wt.shape[1]
    size = blocks[pairs[0][0]].size if pairs else TAU_BLOCK
    # float32 sums are exact below 2**24: a block's pairs of draws are at most (size·max w)²/2
    dtype = np.float32 if size * int(wt.max(initial=0)) <= 4096 else np.float64
    chunks = -(-k // max(1, _PRODUCT // (size * size // 2)))
    cols = -(-k // chunks)  # resamples per product, the chunks as even as they can be
    inside = {p: np.zeros(chunks * cols) for p in pairs}
    for v in sorted({v for p in pairs for v in p}):
        lay = blocks[v].lay(wt, dtype, cols)
        for x, y in pairs:
            if v == x:  # x_i < x_j and y_i > y_j in one x-block
                inside[x, y] += _quadratic(*blocks[x].pairs(blocks[y].rank, dtype), lay)
            elif v == y:  # y_i < y_j in one y-block, i in a later x-block
                inside[x, y] += _quadratic(*blocks[y].pairs(blocks[x].block, dtype), lay)
    return {
        p: np.rint(inside[p][:k]).astype(np.int64) + _cross_blocks(blocks[p[0]], blocks[p[1]], wt)
        for p in pairs
    }


def _ranges(start: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(i, value)`` with ``start[i] <= value < stop[i]``, as two arrays."""
    count = np.maximum(stop - start, 0)
    owner = np.repeat(np.arange(start.shape[0]), count)
    return owner, np.arange(int(count.sum())) + np.repeat(start - (np.cumsum(count) - count), count)


def _reordered(a: np.ndarray, b: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The item pairs that dense ranks ``a`` and ``b`` order differently (tied in one and not
    the other, or opposite), as index arrays ``(i, j)``; ``None`` when there are more than
    ``limit`` (or the search would look at more than four times as many candidates).

    In (a, b) order, positions u < v are ordered differently when they tie in a (then u is below
    v in b), or when u is below v in a but not in b. For the latter, u lies at or after the first
    position whose running maximum of b reaches v's b, and v before the last position whose
    running minimum of b from the end is at most u's b: candidates are taken from the side that
    has fewer.
    """
    n = a.shape[0]
    order = np.lexsort((b, a))
    sa, sb = a[order], b[order]
    pos = np.arange(n)
    new_a = np.ones(n, dtype=bool)
    new_a[1:] = sa[1:] != sa[:-1]
    new_ab = new_a.copy()
    new_ab[1:] |= sb[1:] != sb[:-1]
    tie_a = np.maximum.accumulate(np.where(new_a, pos, 0))  # first position of v's a
    tie_ab = np.maximum.accumulate(np.where(new_ab, pos, 0))  # first position of v's (a, b)
    end_a = np.append(np.flatnonzero(new_a)[1:], n)[np.cumsum(new_a) - 1]  # past u's a
    low = np.searchsorted(np.maximum.accumulate(sb), sb, side="left")
    high = np.searchsorted(np.minimum.accumulate(sb[::-1])[::-1], sb, side="right")
    by_v = int(np.maximum(tie_a - low, 0).sum())
    by_u = int(np.maximum(high - end_a, 0).sum())
    if int((tie_ab - tie_a).sum()) + min(by_v, by_u) > 4 * limit:
        return None
    v, u = _ranges(tie_a, tie_ab)  # tied in a
    if by_v <= by_u:
        v2, u2 = _ranges(low, tie_a)
    else:
        u2, v2 = _ranges(end_a, high)
    keep = sb[u2] >= sb[v2]
    if u.shape[0] + int(keep.sum()) > limit:
        return None
    return order[np.append(u, u2[keep])], order[np.append(v, v2[keep])]


@single_blas_thread
def _moved_sums(
    ranks: Sequence[np.ndarray],
    used: Sequence[int],
    rep: int,
    p: int,
    i: np.ndarray,
    j: np.ndarray,
    wt: np.ndarray,
) -> np.ndarray:
    """Δ_p(v) = S(p, v) − S(rep, v) for every pattern ``v`` in ``used``, per resample (columns
    of ``wt``): Σ over the pairs ``(i, j)`` that ``p`` orders differently from ``rep`` of their
    pairs of draws × the change in sign × v's sign. (k, len(used)) int64, exact (float64 sums
    of integers below 2**53)."""
    out = np.zeros((wt.shape[1], len(used)))
    step = max(1, (1 << 22) // max(wt.shape[1], len(used)))
    for lo in range(0, i.shape[0], step):
        a, b = i[lo : lo + step], j[lo : lo + step]
        change = np.sign(ranks[p][a] - ranks[p][b]) - np.sign(ranks[rep][a] - ranks[rep][b])
        sign = np.stack([np.sign(ranks[v][a] - ranks[v][b]) for v in used], axis=1)
        both = (wt[a] * wt[b]).astype(np.float64)  # pairs of draws of each item pair
        out += both.T @ (change[:, None] * sign).astype(np.float64)
    return np.rint(out).astype(np.int64)


def _near_copies(
    ranks: Sequence[np.ndarray], used: Sequence[int], limit: int
) -> tuple[dict[int, int], dict[int, tuple[np.ndarray, np.ndarray]]]:
    """Each pattern's representative — itself, or the first earlier representative that
    orders at most ``limit`` item pairs differently — and those pairs, for each pattern that
    is not its own representative."""
    # Σ_i |items below i in p − items below i in q| is at most twice the pairs p and q order
    # differently: a cheap test before looking for them
    below = {p: (np.cumsum(np.bincount(ranks[p])) - np.bincount(ranks[p]))[ranks[p]] for p in used}
    rep = {p: p for p in used}
    moved: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for p in used:
        for q in (q for q in used if q < p and rep[q] == q):
            if np.abs(below[p] - below[q]).sum() <= 2 * limit:
                found = _reordered(ranks[q], ranks[p], limit)
                if found is not None:
                    rep[p], moved[p] = q, found
                    break
    return rep, moved


def tau_b_pairs(
    vectors: Sequence[np.ndarray],
    pairs: Sequence[tuple[int, int]],
    idx: np.ndarray,
    *,
    block: int = TAU_BLOCK,
) -> np.ndarray:
    """Kendall's τ-b of every resample for each pair ``(i, j)`` of the equally long, finite
    ``vectors``: ``out[p, r]`` equals ``scipy.stats.kendalltau(vectors[i][idx[r]],
    vectors[j][idx[r]], variant="b").statistic`` for pair ``p`` and resample row ``r`` of
    ``idx`` (k, n) — NaN where a resample is constant on a side. ``block`` (even) sets
    :data:`TAU_BLOCK`; any value gives the same numbers.
    """
    k, n = idx.shape
    out = np.full((len(pairs), k), np.nan)
    if not pairs or k == 0 or n < 2:
        return out
    # one pattern per distinct dense-rank vector: vectors sharing one are interchangeable
    at: dict[bytes, int] = {}
    ranks: list[np.ndarray] = []
    of_vector = []
    for v in vectors:
        r = _dense_ranks(v)
        of_vector.append(at.setdefault(r.tobytes(), len(ranks)))
        if of_vector[-1] == len(ranks):
            ranks.append(r)
    wanted = [(of_vector[i], of_vector[j]) for i, j in pairs]
    used = sorted({p for pq in wanted for p in pq})
    rep, moved = _near_copies(ranks, used, _REORDERED * n)
    heavy = sorted({(min(rep[a], rep[b]), max(rep[a], rep[b])) for a, b in wanted})
    heavy = [(a, b) for a, b in heavy if a != b]
    blocks = {p: _Blocks(ranks[p], block) for p in {p for ab in heavy for p in ab}}
    step = max(1, (1 << 22) // n)  # resamples per pass: bounds the count matrices
    for lo in range(0, k, step):
        wt = np.ascontiguousarray(_counts(idx[lo : lo + step], n).T)
        s, tied = _sums(ranks, wanted, rep, moved, blocks, heavy, wt)
        for row, (a, b) in enumerate(wanted):
            nx, ny = n * (n - 1) // 2 - tied[a], n * (n - 1) // 2 - tied[b]
            with np.errstate(invalid="ignore", divide="ignore"):
                tau = s[a, b] / np.sqrt(nx) / np.sqrt(ny)  # scipy's expression, in its order
            out[row, lo : lo + step] = np.where(
                (nx > 0) & (ny > 0), np.clip(tau, -1.0, 1.0), np.nan
            )
    return out


def _sums(
    ranks: Sequence[np.ndarray],
    wanted: Sequence[tuple[int, int]],
    rep: Mapping[int, int],
    moved: Mapping[int, tuple[np.ndarray, np.ndarray]],
    blocks: Mapping[int, _Blocks],
    heavy: Sequence[tuple[int, int]],
    wt: np.ndarray,
) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, np.ndarray]]:
    """S = C − D of each ``wanted`` pair of patterns and the pairs of draws tied in each of
    their patterns, per resample (columns of the counts ``wt``): ``(S by pair, ties by
    pattern)``. ``heavy``: the pairs of distinct representatives, counted in full."""
    n = wt.shape[0]
    total = n * (n - 1) // 2
    used = sorted({p for pq in wanted for p in pq})
    squares = _square_sums(wt)
    tied = {p: _tied_draws(ranks[p], wt, squares) for p in used}
    s: dict[tuple[int, int], np.ndarray] = {}
    for (a, b), d in _discordant(blocks, heavy, wt).items():
        joint = _tied_draws(ranks[a] * (int(ranks[b].max()) + 1) + ranks[b], wt, squares)
        s[a, b] = s[b, a] = total - tied[a] - tied[b] + joint - 2 * d
    # S(p, q) = S(rep p, rep q) + Δ_q(rep p) + Δ_p(q), with Δ_p(v) = S(p, v) − S(rep p, v) a
    # sum over the pairs p orders differently from its representative
    delta = {p: _moved_sums(ranks, used, rep[p], p, *moved[p], wt) for p in moved}
    at = {v: c for c, v in enumerate(used)}
    out = {}
    for a, b in wanted:
        if a == b:
            out[a, b] = total - tied[a]
            continue
        sab = s[rep[a], rep[b]] if rep[a] != rep[b] else total - tied[rep[a]]
        if b in delta:
            sab = sab + delta[b][:, at[rep[a]]]
        if a in delta:
            sab = sab + delta[a][:, at[b]]
        out[a, b] = sab
    return out, tied


def boot_tau_b(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of every resample ``(x[i], y[i])`` for the rows ``i`` of ``idx`` (k, n):
    equal to ``scipy.stats.kendalltau(x[i], y[i], variant="b").statistic``; NaN where a
    resample is constant on a side (:func:`tau_b_pairs` of one pair)."""
    return tau_b_pairs([x, y], [(0, 1)], idx)[0]


def boot_values(
    x: np.ndarray, y: np.ndarray, idx: np.ndarray, rows: Mapping[str, int], vector_max: int
) -> dict[str, np.ndarray]:
    """Each method's coefficient (``"pearson"``, ``"spearman"``, ``"kendall"``) of ``x`` and ``y``
    on the first ``rows[method]`` resamples (rows of ``idx``); NaN where a resample makes it
    undefined (a constant side). τ-b is computed over all item pairs at once up to
    ``vector_max`` items (n² memory), from draw counts (:func:`boot_tau_b`) above.

    Pearson and Spearman work on resample *counts* (k, n) rather than gathered values: a
    resample's r is the count-weighted r of the items, and its average ranks follow from
    cumulative counts over the items sorted once — no per-resample sort.
    """
    n = x.shape[0]
    out = {m: np.full(r, np.nan) for m, r in rows.items()}
    tx, ty = Ties(x), Ties(y)
    k_rows = rows.get("kendall", 0)
    per_row = n * n if k_rows and n <= vector_max else n
    chunk = max(1, _BLOCK // max(per_row, 1))
    total = max(rows.values(), default=0)
    for lo in range(0, total, chunk):
        hi = min(total, lo + chunk)
        counted = [m for m in ("pearson", "spearman") if lo < rows.get(m, 0)]
        if counted:
            top = max(min(hi, rows[m]) for m in counted)
            k = top - lo
            flat = (idx[lo:top].astype(np.int64) + (np.arange(k) * n)[:, None]).ravel()
            w = np.bincount(flat, minlength=k * n).reshape(k, n).astype(np.float64)
            const = constant(idx[lo:top], w, tx) | constant(idx[lo:top], w, ty)
            for m in counted:
                vals = boot_pearson(w, x, y, n) if m == "pearson" else boot_spearman(w, tx, ty)
                vals[const] = np.nan
                end = min(top, rows[m])
                out[m][lo:end] = vals[: end - lo]
        if lo < k_rows and n <= vector_max:
            top = min(hi, k_rows)
            out["kendall"][lo:top] = pairwise_tau_b(x[idx[lo:top]], y[idx[lo:top]])
    if k_rows and n > vector_max:
        out["kendall"][:] = boot_tau_b(x, y, idx[:k_rows])
    return out
