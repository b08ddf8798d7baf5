"""The counting kernels of :mod:`harness.statistics.agreement` and
:mod:`harness.statistics.metric_comparison` (a helper module: use those).

Scores arrive as a systems × segments matrix, flattened system after system; a grouping cuts it
into groups (mt-metrics-eval's ``average_by``) and :class:`Layout` lists each group's cells with
a human score and their pairs. Per pair, the sign of each side's difference (0 for a tie, for
the metric within ε) gives the five pair counts every Kendall variant is a function of
(Deutsch, Foster & Freitag 2023); :func:`tie_search` is their threshold search, and
:func:`p_values` the paired sign-flip permutation test of SPA (Thompson et al. 2024). Everything
is vectorised over a leading axis of permuted score vectors, so that a permutation test
computes many resamples at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from harness.errors import ConfigError, InputError, LayoutError
from harness.statistics.blas import single_blas_thread

__all__ = [
    "Layout",
    "check_choice",
    "check_epsilon",
    "distinct_counts",
    "early_stop",
    "early_stop_pairs",
    "flat_inputs",
    "group_means",
    "group_values",
    "groups_of",
    "p_values",
    "pair_counts",
    "pair_signs",
    "score_matrix",
    "sign_flips",
    "spa_columns",
    "spa_from",
    "taus_from_counts",
    "tie_search",
    "triu",
    "zscore",
]


def score_matrix(values: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """A float systems × segments matrix (NaN where missing) and its missing mask."""
    try:
        array = np.array(values, dtype=float)  # the common case: numbers and NaN only
    except (TypeError, ValueError):
        array = np.array(values, dtype=object)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or array.size == 0:
        raise LayoutError(
            f"{what}: expected a non-empty vector or systems × segments matrix",
            what=what,
            got=array.shape,
        )
    if array.dtype == float:
        if np.isinf(array).any():
            index = list(np.argwhere(np.isinf(array))[0])
            raise InputError(f"{what}{index}: {array[tuple(index)]!r} is not finite")
        return array, np.isnan(array)
    out = np.empty(array.shape)
    for index, value in np.ndenumerate(array):
        if value is None:
            out[index] = math.nan
            continue
        try:
            out[index] = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{what}{list(index)}: {value!r} is not a number") from None
        if math.isinf(out[index]):
            raise InputError(f"{what}{list(index)}: {value!r} is not finite")
    return out, np.isnan(out)


def flat_inputs(
    human: Any, metric: Any, *, metric_complete: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """Flattened (system after system) human and metric scores, the human-present mask and
    the systems × segments shape. Metric scores must be present where human ones are (or
    everywhere: ``metric_complete``)."""
    h, h_missing = score_matrix(human, "human")
    m, m_missing = score_matrix(metric, "metric")
    if h.shape != m.shape:
        raise LayoutError("human and metric scores differ in shape", expected=h.shape, got=m.shape)
    needs = np.ones_like(m_missing) if metric_complete else ~h_missing
    bad = np.argwhere(m_missing & needs)
    if len(bad):
        raise InputError(
            f"metric{list(bad[0])}: missing where a human score is present"
            if not metric_complete
            else f"metric{list(bad[0])}: missing (this statistic z-scores every metric score)"
        )
    return h.ravel(), m.ravel(), ~h_missing.ravel(), (h.shape[0], h.shape[1])


def check_choice(name: str, value: str, valid: Sequence[str]) -> str:
    if value not in valid:
        raise ConfigError(f"unknown {name} {value!r}", valid=list(valid))
    return value


def check_epsilon(variant: str, epsilon: float) -> float:
    if not epsilon >= 0:
        raise ConfigError(f"epsilon must be a non-negative number, not {epsilon!r}")
    if epsilon > 0 and variant == "c":
        raise ConfigError("tau-c has no epsilon (mt-metrics-eval refuses it too)")
    return float(epsilon)


def groups_of(shape: tuple[int, int], grouping: str) -> list[np.ndarray]:
    """Positions in the flattened matrix of each group, in mt-metrics-eval's order."""
    systems, items = shape
    flat = np.arange(systems * items).reshape(systems, items)
    if grouping == "none":
        return [flat.ravel()]
    rows = flat if grouping == "system" else flat.T
    return list(rows)


def triu(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs i < j of ``size`` items, row after row (as mt-metrics-eval enumerates them)."""
    return _small_triu(size) if size <= 256 else np.triu_indices(size, 1)


@lru_cache(maxsize=256)
def _small_triu(size: int) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.triu_indices(size, 1)
    return first, second


@dataclass(frozen=True)
class Layout:
    """Groups filtered to their present cells, concatenated (the order of mt-metrics-eval's
    ``_ReshapeAndFilter``), and their pairs: ``first``/``second`` index ``positions``."""

    positions: np.ndarray
    sizes: np.ndarray
    first: np.ndarray
    second: np.ndarray
    pair_starts: np.ndarray  # start of each group with at least one pair, in the pair arrays
    paired: np.ndarray  # indices (into sizes) of those groups

    @classmethod
    def build(
        cls, shape: tuple[int, int], grouping: str, present: np.ndarray, *, pairs: bool = True
    ) -> Layout:
        kept = [g[present[g]] for g in groups_of(shape, grouping)]
        kept = [g for g in kept if len(g)]
        positions = np.concatenate(kept) if kept else np.zeros(0, dtype=np.intp)
        sizes = np.array([len(g) for g in kept], dtype=np.intp)
        offsets = np.r_[0, np.cumsum(sizes)[:-1]] if len(sizes) else sizes
        firsts, seconds, starts, paired = [], [], [], []
        count = 0
        for index, (size, offset) in enumerate(zip(sizes, offsets, strict=True)):
            if size < 2 or not pairs:
                continue
            i, j = triu(int(size))
            firsts.append(i + offset)
            seconds.append(j + offset)
            starts.append(count)
            paired.append(index)
            count += len(i)
        empty = np.zeros(0, dtype=np.intp)
        return cls(
            positions,
            sizes,
            np.concatenate(firsts) if firsts else empty,
            np.concatenate(seconds) if seconds else empty,
            np.array(starts, dtype=np.intp),
            np.array(paired, dtype=np.intp),
        )


# ============================================================================ counting
def pair_signs(
    values: np.ndarray, first: np.ndarray, second: np.ndarray, epsilon: float
) -> np.ndarray:
    """Per pair, the sign of ``values[second] − values[first]`` (0: a tie, ``|Δ| ≤ epsilon``)."""
    diff = values[..., second] - values[..., first]
    signs = np.sign(diff).astype(np.int8)
    if epsilon > 0:
        signs[np.abs(diff) <= epsilon] = 0
    return signs


def pair_counts(
    metric_signs: np.ndarray,
    human_signs: np.ndarray,
    layout: Layout,
    *,
    agreements_only: bool = False,
) -> np.ndarray:
    """Per group with pairs (``…, groups, 5``): concordant, discordant, ties only in the metric,
    ties only in the human scores, ties in both.

    ``agreements_only``: all τ_23 and acc_23 need is the agreements (concordant or tied in
    both: equal signs); they are returned as concordant and the rest as discordant.
    """
    if not len(layout.pair_starts):
        return np.zeros((*metric_signs.shape[:-1], 0, 5), dtype=np.int64)
    if agreements_only:
        agree = np.add.reduceat(
            (metric_signs == human_signs).astype(np.int32), layout.pair_starts, axis=-1
        )
        out = np.zeros((*agree.shape, 5), dtype=np.int64)
        out[..., 0] = agree
        out[..., 1] = np.diff(np.r_[layout.pair_starts, len(layout.first)]) - agree
        return out
    tie_m, tie_h = metric_signs == 0, human_signs == 0
    both = tie_m & tie_h
    kinds = (
        ~tie_m & ~tie_h & (metric_signs == human_signs),
        ~tie_m & ~tie_h & (metric_signs != human_signs),
        tie_m & ~tie_h,
        tie_h & ~tie_m,
        both,
    )
    sums = [np.add.reduceat(k.astype(np.int64), layout.pair_starts, axis=-1) for k in kinds]
    return np.stack(sums, axis=-1)


def distinct_counts(values: np.ndarray, layout: Layout) -> np.ndarray:
    """Per group with pairs, the number of distinct values (τ-c's classes)."""
    offsets = np.r_[0, np.cumsum(layout.sizes)]
    out = np.empty((*values.shape[:-1], len(layout.paired)), dtype=np.int64)
    for k, g in enumerate(layout.paired):
        block = np.sort(values[..., offsets[g] : offsets[g + 1]], axis=-1)
        out[..., k] = 1 + np.count_nonzero(np.diff(block, axis=-1), axis=-1)
    return out


def taus_from_counts(
    counts: np.ndarray,
    variant: str,
    sizes: np.ndarray | None = None,
    classes: np.ndarray | None = None,
) -> np.ndarray:
    """Each group's value of ``variant`` from its counts (NaN where undefined)."""
    con, dis, t_m, t_h, t_both = np.moveaxis(counts, -1, 0)
    total = con + dis + t_m + t_h + t_both
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "acc23":
            return (con + t_both) / total
        if variant == "23":
            return (con + t_both - dis - t_m - t_h) / total
        undefined = (t_m + t_both == total) | (t_h + t_both == total)
        if variant == "b":
            tau = (con - dis) / np.sqrt(total - t_m - t_both) / np.sqrt(total - t_h - t_both)
        else:  # tau-c (Stuart): 2 (C − D) / (n² (m − 1) / m), m = the fewer distinct values
            assert sizes is not None and classes is not None
            tau = 2 * (con - dis) / (sizes**2 * (classes - 1) / classes)
    return np.where(undefined, np.nan, tau)


def group_values(
    metric: np.ndarray,
    human: np.ndarray,
    layout: Layout,
    variant: str,
    epsilon: float,
    human_signs: np.ndarray | None = None,
    *,
    agreements_only: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Per group with pairs: the variant's value (``…, groups``) and the counts
    (``agreements_only``: see :func:`pair_counts`; for τ_23 and acc_23 only)."""
    if human_signs is None:
        human_signs = pair_signs(human, layout.first, layout.second, 0.0)
    metric_signs = pair_signs(metric, layout.first, layout.second, epsilon)
    counts = pair_counts(metric_signs, human_signs, layout, agreements_only=agreements_only)
    sizes = classes = None
    if variant == "c":
        sizes = layout.sizes[layout.paired]
        classes = np.minimum(distinct_counts(metric, layout), distinct_counts(human, layout))
    return taus_from_counts(counts, variant, sizes, classes), counts


def group_means(taus: np.ndarray, layout: Layout, replace_nans_with_zeros: bool) -> np.ndarray:
    """mt-metrics-eval's average inside its permutation tests, for each row of ``taus`` (one
    value per group with pairs): every group with a score counts, a group with one score being
    undefined; numpy's mean of the defined values (or NaN → 0), 0 when none is left."""
    full = np.full((*taus.shape[:-1], len(layout.sizes)), np.nan)
    full[..., layout.paired] = taus
    out = []
    for row in full.reshape(-1, full.shape[-1]):
        row = np.nan_to_num(row) if replace_nans_with_zeros else row[~np.isnan(row)]
        out.append(float(np.mean(row)) if len(row) else 0.0)
    return np.array(out)


def tie_search(
    human: np.ndarray,
    metric: np.ndarray,
    present: np.ndarray,
    groups: list[np.ndarray],
    variant: str,
    sample_rate: float,
    random_state: np.random.RandomState | None,
) -> tuple[float, float, list[float], list[float], int, int]:
    """Deutsch et al.'s (2023) threshold search over the pairs of each group.

    Returns the best average, its threshold, every (threshold, average), the number of groups
    with pairs and of pairs. Arithmetic follows ``tau_optimization.py`` step by step (a running
    sum updated pair by pair, its start summed in the order Python iterates a set of the group
    indices), so that among thresholds whose averages are mathematically equal the same one wins.
    """
    firsts, seconds, rows = [], [], []
    for row, group in enumerate(groups):
        group = group[present[group]]
        i, j = triu(len(group))
        firsts.append(group[i])
        seconds.append(group[j])
        rows.append(np.full(len(i), row))
    first, second, row_of = (np.concatenate(x) for x in (firsts, seconds, rows))
    if sample_rate != 1.0:
        assert random_state is not None
        keep = random_state.random_sample(len(first)) <= sample_rate
        first, second, row_of = first[keep], second[keep], row_of[keep]
    if not len(first):
        raise InputError("no pair of scores to calibrate ties on (every group has < 2 scores)")
    h1, h2, m1, m2 = human[first], human[second], metric[first], metric[second]
    diff = np.abs(m1 - m2)
    tie_h = h1 == h2
    agree = (tie_h & (m1 == m2)) | (~tie_h & (m1 != m2) & ((h1 > h2) == (m1 > m2)))
    row_ids, row_index = np.unique(row_of, return_inverse=True)
    n_rows = len(row_ids)
    n_pairs = np.bincount(row_index)
    good = np.bincount(row_index, weights=agree).astype(np.int64)

    def score(good: Any, pairs: Any) -> Any:  # acc_23 or τ_23 from (C + T_hm) and pairs
        return good / pairs if variant == "acc23" else (2 * good - pairs) / pairs

    where = {int(r): k for k, r in enumerate(row_ids)}
    # set() of a list adds the ints one by one, as the reference's rows.add() does
    start = sum(score(int(good[where[r]]), int(n_pairs[where[r]])) for r in set(row_ids.tolist()))
    # The sweep: pairs in order of metric difference (stable: ties keep enumeration order),
    # each turned into a metric tie, which makes it agree iff the humans tie it. ``change`` is
    # its step of its group's agreement count; ``after`` that group's count after the step.
    order = np.argsort(diff, kind="stable")
    step_rows = row_index[order]
    change = (tie_h.astype(np.int64) - agree.astype(np.int64))[order]
    by_row = np.argsort(step_rows, kind="stable")  # each group's steps together, in order
    running = np.cumsum(change[by_row])
    sorted_rows = step_rows[by_row]
    heads = np.r_[0, np.flatnonzero(sorted_rows[1:] != sorted_rows[:-1]) + 1]
    before_head = running[heads] - change[by_row][heads]
    running -= np.repeat(before_head, np.diff(np.r_[heads, len(by_row)]))
    after = np.empty_like(running)
    after[by_row] = good[sorted_rows] + running
    pairs_of = n_pairs[step_rows]
    # The reference keeps a running sum of the groups' values: minus the group's old value,
    # plus its new one, step by step. A sequential cumsum over exactly those terms gives the
    # same floats (rounding included) without a Python loop.
    sequence = np.empty(2 * len(order) + 1)
    sequence[0] = start
    sequence[1::2] = -score(after - change, pairs_of)
    sequence[2::2] = score(after, pairs_of)
    averages = np.cumsum(sequence)[2::2] / n_rows
    diffs = diff[order]
    last = np.r_[diffs[1:] != diffs[:-1], True]  # a threshold's value: after its last pair
    thresholds, values = [0.0], [start / n_rows]
    run_diffs, run_values = diffs[last].tolist(), averages[last].tolist()
    if run_diffs[0] == 0.0:
        values[0] = run_values.pop(0)
        run_diffs.pop(0)
    thresholds += run_diffs
    values += run_values
    best = int(np.argmax(values))
    return values[best], thresholds[best], thresholds, values, n_rows, len(first)


# ============================================================================ SPA
@lru_cache(maxsize=4)
def sign_flips(permutations: int, segments: int, seed: int) -> np.ndarray:
    """±1 per (permutation, segment), single precision: +1 where a uniform float32 draw of
    ``default_rng(seed)`` rounds to 1 (is above ½), as ``pce.py`` draws them."""
    draws = np.random.default_rng(seed).random(size=(permutations, segments), dtype=np.float32)
    flips = np.where(draws > 0.5, 1.0, -1.0).astype(np.float32)
    flips.setflags(write=False)
    return flips


@single_blas_thread
def p_values(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """For each pair i < j of systems (rows), the share of sign-flip permutations whose summed
    difference is at least the observed one (a one-sided paired permutation test of i > j).
    Single precision, with the sums and products ``pce.py`` forms."""
    # C order, as pce.py gets it: BLAS sums in a layout-dependent order, and a last-bit
    # difference flips a comparison of equal sums
    single = np.ascontiguousarray(scores, dtype=np.float32)
    totals = np.sum(single, axis=1)
    flipped = np.matmul(flips, single.T)
    i, j = triu(len(scores))
    null = flipped[:, i] - flipped[:, j]
    return np.count_nonzero(null >= totals[i] - totals[j], axis=0) / len(flips)


def spa_from(human_p: np.ndarray, metric: np.ndarray, flips: np.ndarray) -> float:
    return float(1.0 - np.mean(np.abs(human_p - p_values(metric, flips))))


def spa_columns(h: np.ndarray, present: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The segments SPA uses: those every system has a human score for. mt-metrics-eval drops
    the missing cells and re-cuts the rest into one row per system, which pairs different
    segments unless the same ones are missing for every system: that case is refused."""
    mask = present.reshape(shape)
    if shape[0] < 2:
        raise LayoutError("soft pairwise accuracy needs at least two systems", got=shape)
    if not (mask.all(axis=0) | ~mask.any(axis=0)).all():
        raise InputError(
            "soft pairwise accuracy: human scores must be missing for the same segments in "
            "every system (mt-metrics-eval would pair different segments)"
        )
    keep: np.ndarray = np.all(mask, axis=0)
    if not keep.any():
        raise InputError("soft pairwise accuracy: no segment has human scores")
    return keep


# ============================================================================ significance
def early_stop(
    hits: Sequence[bool], start: int, count: int, params: tuple[int, float, float]
) -> tuple[int, int, bool]:
    """Feed permutation outcomes ``hits`` (numbered from ``start`` + 1) to the running count,
    as ``PermutationSigDiff`` does: ``(count, i, stopped)`` after the last one, or at the first
    multiple of the block size where ``count / i`` is outside ``[early_min, early_max]``."""
    block, low, high = params
    i = start
    for hit in hits:
        i += 1
        count += bool(hit)
        if i % block == 0 and not low <= count / i <= high:
            return count, i, True
    return count, i, False


def early_stop_pairs(
    hits: Sequence[bool], start: int, count: int, params: tuple[int, float, float]
) -> tuple[int, int, bool]:
    """As :func:`early_stop`, with ``PairwisePermutationSigDiff``'s placement of the early-stopping
    check: only on a permutation that reaches the observed difference."""
    block, low, high = params
    i = start
    for hit in hits:
        i += 1
        if hit:
            count += 1
            if i % block == 0 and not low <= count / i <= high:
                return count, i, True
    return count, i, False


def zscore(values: np.ndarray, what: str) -> np.ndarray:
    """scipy's z-scores (population standard deviation), which ``PermutationSigDiff`` takes
    of each metric before mixing them; a constant metric has none."""
    from scipy import stats as sps  # slow to import: only when a test runs

    if not len(values) or np.ptp(values) == 0:
        raise InputError(f"{what} is constant where humans scored: it cannot be z-scored")
    scores = np.asarray(sps.zscore(values), dtype=float)
    if not np.isfinite(scores).all():  # a spread so small that the variance underflows
        raise InputError(f"{what} varies too little to be z-scored")
    return scores
