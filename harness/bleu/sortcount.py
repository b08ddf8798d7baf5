"""Clipped n-gram matches of whole segments with numpy sorts: exact packed keys, no hashing.

The counter of :mod:`harness.bleu.fastcount` where the compiled kernels
(:mod:`harness.bleu.native`) are not built or are switched off; both give the per-segment
Python reference's numbers (``tests/test_fastpath.py``).

1. **Exact n-gram keys, no hashing.** Within a chunk, position ``p``'s n-gram is named by the
   pair *(rank of the (n−1)-gram at p, token id at p+n−1)*, where the rank is the index of the
   (n−1)-gram's group in the previous order's sorted keys (for order 1, the segment index), so
   groups never cross segments. The pair is an exact encoding: two positions get the same pair
   iff they lie in the same segment and hold the same n-gram. The key packs
   ``rank | token id | position`` into one int64 (``2·pbits + vbits ≤ 63``, ``pbits`` the bits
   of a chunk position, ``vbits`` of a token id), so a plain ``np.sort`` — AVX-512 accelerated,
   faster than ``argsort`` here — both groups equal n-grams and says where each came
   from (the low bits). There is no hash, hence no collision to detect or fall back from. When
   the bits cannot fit, the chunk is halved; one segment that still does not fit raises
   :class:`DoesNotFit` and the engine uses the Python reference for the corpus.
2. **Counting and clipping, one sort per order and chunk.** After sorting, a group's elements
   are in position order, hence in side order: one ``np.bincount`` over ``group × side`` gives
   each n-gram's count in the hypothesis and in every reference (for more than
   ``_DENSE_SIDES`` sides, runs and ``np.maximum.reduceat``); ``min(hyp, max over refs)``
   summed per segment with ``np.bincount`` gives the clipped matches of that order.
3. **Pruning.** An n-gram can only match when its (n−1)-gram prefix occurs in both the
   hypothesis and a reference of the segment, so order n+1 keeps only the positions of such
   shared groups whose next token is not the sentinel: high orders sort far fewer keys.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DoesNotFit", "count_range"]

#: Up to this many sides (hypothesis + references) a chunk counts with one dense bincount.
_DENSE_SIDES = 8
#: Bits available for ``rank | token | position`` in a non-negative int64.
_KEY_BITS = 63


class DoesNotFit(Exception):
    """The exact packed keys of a chunk would need more than 63 bits."""


def count_range(
    tokens: np.ndarray,
    side: np.ndarray,
    seg_len: np.ndarray,
    n_ids: int,
    max_order: int,
    out: np.ndarray,
) -> None:
    """Count whole segments into ``out``, halving the range until the keys fit in 63 bits."""
    vbits = max(1, (n_ids - 1).bit_length())
    pbits = max(1, (len(tokens) - 1).bit_length())
    if 2 * pbits + vbits <= _KEY_BITS:
        out[:] = _count_chunk(tokens, side, seg_len, vbits, max_order)
        return
    if len(seg_len) == 1:
        raise DoesNotFit(f"{len(tokens)} positions and {n_ids} token ids need more than 63 bits")
    mid = len(seg_len) // 2
    cut = int(seg_len[:mid].sum())
    count_range(tokens[:cut], side[:cut], seg_len[:mid], n_ids, max_order, out[:mid])
    count_range(tokens[cut:], side[cut:], seg_len[mid:], n_ids, max_order, out[mid:])


def _count_chunk(
    tokens: np.ndarray, side: np.ndarray, seg_len: np.ndarray, vbits: int, max_order: int
) -> np.ndarray:
    """Clipped matches (segments of the chunk × orders) of one chunk of whole segments.

    ``tokens``: the chunk's token ids, every text followed by the sentinel 0; ``side``: per
    position, 0 for the hypothesis and k for reference k; ``seg_len``: positions per segment.
    """
    n_pos = len(tokens)
    n_seg = len(seg_len)
    pbits = max(1, (n_pos - 1).bit_length())
    if 2 * pbits + vbits > _KEY_BITS:
        raise DoesNotFit(f"{n_pos} positions and {vbits}-bit token ids need more than 63 bits")
    pmask = np.int64((1 << pbits) - 1)
    vmask = np.int64((1 << vbits) - 1)
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), seg_len)
    out = np.zeros((n_seg, max_order), dtype=np.int64)
    # Order 1 sorts every position, sentinels included (their groups are dropped below); each
    # later order sorts the positions whose (n-1)-gram group was shared, keyed by the rank of
    # that group (which already names the segment) and the next token.
    key = seg << (vbits + pbits)
    key |= tokens << pbits
    key |= np.arange(n_pos, dtype=np.int64)
    n_sides = int(side.max()) + 1 if n_pos else 1
    for n in range(1, max_order + 1):
        key.sort()
        pos = key & pmask
        high = key >> pbits
        size = len(key)
        if size == 0:
            break
        new_group = np.empty(size, dtype=bool)
        new_group[0] = True
        np.not_equal(high[1:], high[:-1], out=new_group[1:])
        gid = np.cumsum(new_group) - 1
        group_start = np.flatnonzero(new_group)
        hyp_count, ref_max = _side_counts(gid, group_start, side[pos], n_sides)
        shared = (hyp_count > 0) & (ref_max > 0)
        if n == 1:
            shared &= (high[group_start] & vmask) != 0  # not a sentinel
        if not shared.any():
            break
        clipped = np.minimum(hyp_count, ref_max)[shared]
        out[:, n - 1] = np.bincount(
            seg[pos[group_start[shared]]], weights=clipped, minlength=n_seg
        ).astype(np.int64)
        if n == max_order:
            break
        # order n+1: positions of shared groups whose next token is not a sentinel
        keep = shared[gid]
        pos = pos[keep]
        rank = gid[keep]
        nxt = tokens[pos + n]
        more = nxt != 0
        key = rank[more] << (vbits + pbits)
        key |= nxt[more] << pbits
        key |= pos[more]
    return out


def _side_counts(
    gid: np.ndarray, group_start: np.ndarray, sd: np.ndarray, n_sides: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per group: its count in the hypothesis (side 0) and its largest count in one reference.

    ``gid``: group of each sorted element (non-decreasing); ``sd``: its side, non-decreasing
    within a group (elements are in position order, and a segment's hypothesis comes first).
    """
    n_groups = len(group_start)
    if n_sides <= _DENSE_SIDES:  # one bincount over a (groups × sides) table
        table = np.bincount(gid * n_sides + sd, minlength=n_groups * n_sides)
        table = table.reshape(n_groups, n_sides)
        ref_max = table[:, 1].copy() if n_sides > 1 else np.zeros(n_groups, dtype=np.int64)
        for k in range(2, n_sides):
            np.maximum(ref_max, table[:, k], out=ref_max)
        return table[:, 0], ref_max
    # many references: runs of equal (group, side), a group's runs in side order
    size = len(gid)
    new_run = np.empty(size, dtype=bool)
    new_run[0] = True
    np.not_equal(gid[1:], gid[:-1], out=new_run[1:])
    new_run[1:] |= sd[1:] != sd[:-1]
    run_start = np.flatnonzero(new_run)
    run_len = np.diff(run_start, append=size)
    run_side = sd[run_start]
    group_run = np.searchsorted(run_start, group_start)
    ref_max = np.maximum.reduceat(np.where(run_side > 0, run_len, 0), group_run)
    hyp_count = np.where(run_side[group_run] == 0, run_len[group_run], 0)
    return hyp_count, ref_max
