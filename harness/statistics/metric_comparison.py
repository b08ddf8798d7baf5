"""Is one metric's agreement with human judgments significantly above another's?

:func:`compare_metrics` re-derives the permutation tests of Google's mt-metrics-eval
(``PermutationSigDiff`` and ``PairwisePermutationSigDiff`` in ``mt_metrics_eval/stats.py``):
PERM-BOTH (Deutsch, Dror & Roth 2021, "A Statistical Analysis of Summarization Evaluation
Metrics using Resampling Methods", TACL) on z-scored metric scores (test ``"scores"``), or
swapping the two metrics' pairwise judgments pair by pair (test ``"pairs"``: how WMT23/24
compare segment-level tie-calibrated accuracies). The statistics compared, the conventions and
the seeding are those of :mod:`harness.statistics.agreement`; ``tests/test_meta_eval.py``
checks the p-values against the original, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from harness.errors import ConfigError
from harness.statistics.agreement import (
    GROUPINGS,
    SPA_PERMUTATIONS,
    SPA_SEED,
    VARIANTS,
)
from harness.statistics.agreement_kernels import (
    Layout,
    check_choice,
    check_epsilon,
    early_stop,
    early_stop_pairs,
    flat_inputs,
    group_means,
    group_values,
    groups_of,
    p_values,
    pair_counts,
    pair_signs,
    sign_flips,
    spa_columns,
    spa_from,
    taus_from_counts,
    tie_search,
    zscore,
)

__all__ = [
    "EARLY_MAX",
    "EARLY_MIN",
    "STATISTICS",
    "TESTS",
    "ComparedStatistic",
    "MetricComparison",
    "PermutationTest",
    "compare_metrics",
]

STATISTICS: tuple[str, ...] = ("pairwise_accuracy", "kendall", "tie_calibrated", "spa")
"""What :func:`compare_metrics` can compare."""
TESTS: tuple[str, ...] = ("scores", "pairs")
"""Permutation tests of :func:`compare_metrics`."""
EARLY_MIN = 0.02
"""A permutation test stops early below this running p-value (WMT's task default)."""
EARLY_MAX = 0.5
"""A permutation test stops early above this running p-value (WMT's task default)."""
_PAIR_CHUNK = 1 << 22  # pairs × resamples handled at once by the vectorised permutation tests


@dataclass(frozen=True)
class MetricComparison:
    """Is metric B's statistic significantly above metric A's (:func:`compare_metrics`)?

    ``p_value``: the share of the ``resamples_used`` permutations (out of ``resamples``; early
    stopping at multiples of ``block_size`` when the running p-value is below ``early_min`` or
    above ``early_max``) whose B − A difference reaches ``delta``, the observed B − A.
    ``value_a``/``value_b`` are the statistics the test compares: with test ``"scores"``, of the
    z-scored metric scores (so ε, for a tie-calibrated statistic, is on that scale). ``epsilons``:
    the tie thresholds of A and B in test ``"pairs"``.
    """

    statistic: str
    test: str
    grouping: str
    variant: str
    p_value: float
    delta: float
    value_a: float
    value_b: float
    resamples: int
    resamples_used: int
    seed: int
    block_size: int
    early_min: float
    early_max: float
    epsilons: tuple[float, float] | None = None


@dataclass(frozen=True)
class ComparedStatistic:
    """The agreement statistic :func:`compare_metrics` compares, with its settings.

    ``statistic``: one of :data:`STATISTICS`. ``grouping``, ``variant`` and ``epsilon``: the
    Kendall variant's (``tie_calibrated``: ``variant`` ``"acc23"``/``"23"``, and
    ``sample_rate`` of its threshold search); ``permutations`` and ``spa_seed``: SPA's;
    ``replace_nans_with_zeros``: a group whose statistic is undefined counts as 0.
    """

    statistic: str = "pairwise_accuracy"
    grouping: str = "none"
    variant: str = "acc23"
    epsilon: float = 0.0
    sample_rate: float = 1.0
    permutations: int = SPA_PERMUTATIONS
    spa_seed: int = SPA_SEED
    replace_nans_with_zeros: bool = False


@dataclass(frozen=True, kw_only=True)
class PermutationTest:
    """How :func:`compare_metrics` tests: ``test`` (one of :data:`TESTS`), ``resamples``
    permutations seeded with ``seed``, stopping early at a multiple of ``block_size`` when the
    running p-value is below ``early_min`` or above ``early_max``."""

    test: str = "scores"
    resamples: int = 1000
    seed: int = 0
    block_size: int = 1000
    early_min: float = EARLY_MIN
    early_max: float = EARLY_MAX


def compare_metrics(
    human: Any,
    metric_a: Any,
    metric_b: Any,
    *,
    statistic: ComparedStatistic = ComparedStatistic(),
    test: PermutationTest = PermutationTest(),
) -> MetricComparison:
    """Is metric B's agreement with the humans significantly above metric A's? A one-sided
    permutation test (mt-metrics-eval: ``PermutationSigDiff``, ``PairwisePermutationSigDiff``).

    ``statistic`` (:class:`ComparedStatistic`): ``"pairwise_accuracy"`` (system level; what
    ``CompareMetricsWithGlobalAccuracy`` tests), ``"kendall"`` (``variant``, ``epsilon``,
    ``grouping``), ``"tie_calibrated"`` (``variant`` ``"acc23"``/``"23"``, ``sample_rate``,
    ``grouping``) or ``"spa"`` (``permutations``, ``spa_seed``; what
    ``CompareMetricsWithPairwiseConfidenceError`` tests). ``test``: a :class:`PermutationTest`.

    ``test="scores"`` (PERM-BOTH, Deutsch et al. 2021): both metrics are z-scored (over the cells
    with a human score; over all of them for ``tie_calibrated``), and each of ``resamples``
    permutations swaps the two metrics' scores cell by cell with probability ½.
    ``test="pairs"`` (WMT23/24's segment-level test): each metric's pairwise judgments are fixed
    (with its own optimal ε for ``tie_calibrated``, else ``epsilon``) and each permutation swaps
    them pair by pair. The p-value is the share of permutations whose B − A difference reaches
    the observed one; the test stops early at a multiple of ``block_size`` when that share is
    below ``early_min`` or above ``early_max`` (WMT's tasks: 1000 resamples, blocks of 100; the
    pairs test, as mt-metrics-eval's, looks only on a permutation that reaches the observed
    difference).
    ``seed`` seeds the permutations (and any pair sampling) as ``np.random.seed`` does for
    mt-metrics-eval.
    """
    kind, grouping, variant, epsilon = (
        statistic.statistic,
        statistic.grouping,
        statistic.variant,
        statistic.epsilon,
    )
    resamples, seed, block_size = test.resamples, test.seed, test.block_size
    check_choice("statistic", kind, STATISTICS)
    check_choice("test", test.test, TESTS)
    check_choice("grouping", grouping, GROUPINGS)
    if kind == "pairwise_accuracy":
        variant, epsilon, grouping = "acc23", 0.0, "none"
    check_choice("variant", variant, ("23", "acc23") if kind == "tie_calibrated" else VARIANTS)
    epsilon = check_epsilon(variant, epsilon)
    if kind == "spa" and (test.test != "scores" or grouping != "none"):
        raise ConfigError("spa is compared with test='scores' and grouping='none'")
    if test.test == "pairs" and variant == "c":
        raise ConfigError("tau-c is not defined once pairs are swapped (test='pairs')")
    if resamples < 1 or block_size < 1:
        raise ConfigError("resamples and block_size must be positive")
    sample_rate = statistic.sample_rate
    if not 0 < sample_rate <= 1:
        raise ConfigError(f"sample_rate must be in (0, 1], not {sample_rate!r}")
    complete = kind == "tie_calibrated" and test.test == "scores"
    h, ma, present, shape = flat_inputs(human, metric_a, metric_complete=complete)
    mb = flat_inputs(human, metric_b, metric_complete=complete)[1]
    random_state = np.random.RandomState(seed)
    params = (block_size, test.early_min, test.early_max)
    common: dict[str, Any] = dict(
        statistic=kind, test=test.test, grouping=grouping, variant=variant, resamples=resamples
    )
    common.update(
        seed=seed, block_size=block_size, early_min=test.early_min, early_max=test.early_max
    )
    # the statistic as checked (pairwise accuracy fixes its variant, ε and grouping)
    checked = replace(statistic, grouping=grouping, variant=variant, epsilon=epsilon)
    if test.test == "pairs":
        return _pairs_test((h, ma, mb, present), shape, common, random_state, params, checked)

    layout = Layout.build(shape, grouping, present, pairs=kind not in ("spa", "tie_calibrated"))
    if kind == "tie_calibrated":
        groups = groups_of(shape, grouping)
        za, zb = zscore(ma, "metric_a"), zscore(mb, "metric_b")

        def single(values: np.ndarray) -> float:
            found = tie_search(h, values, present, groups, variant, sample_rate, random_state)
            return found[0]

        return _scores_test(za, zb, single, None, random_state, common, params)

    za = zscore(ma[layout.positions], "metric_a")
    zb = zscore(mb[layout.positions], "metric_b")
    if kind == "spa":
        keep = spa_columns(h, present, shape)
        rows = (shape[0], int(keep.sum()))
        flips = sign_flips(statistic.permutations, rows[1], statistic.spa_seed)
        human_p = p_values(h[layout.positions].reshape(rows), flips)

        def spa(values: np.ndarray) -> float:
            return spa_from(human_p, values.reshape(rows), flips)

        return _scores_test(za, zb, spa, None, random_state, common, params)

    human_kept = h[layout.positions]
    fast = variant in ("23", "acc23")
    human_signs = pair_signs(human_kept, layout.first, layout.second, 0.0)

    def batch(values: np.ndarray) -> np.ndarray:
        taus, _ = group_values(
            values, human_kept, layout, variant, epsilon, human_signs, agreements_only=fast
        )
        return group_means(taus, layout, statistic.replace_nans_with_zeros)

    chunk = max(1, _PAIR_CHUNK // max(1, len(layout.first)))
    return _scores_test(
        za, zb, lambda v: float(batch(v[None])[0]), batch, random_state, common, params, chunk
    )


def _scores_test(
    za: np.ndarray,
    zb: np.ndarray,
    single: Callable[[np.ndarray], float],
    batch: Callable[[np.ndarray], np.ndarray] | None,
    random_state: np.random.RandomState,
    common: dict[str, Any],
    params: tuple[int, float, float],
    chunk: int = 1,
) -> MetricComparison:
    """PERM-BOTH on z-scored scores ``za``/``zb``: ``batch`` computes the statistic of
    ``chunk`` permuted vectors at once when nothing inside it draws random numbers."""
    value_b = single(zb)
    value_a = single(za)
    delta = value_b - value_a
    resamples, count, i, stopped = common["resamples"], 0, 0, False
    chunk = chunk if batch is not None else 1
    while i < resamples and not stopped:
        size = min(chunk, resamples - i)
        swap = random_state.binomial(1, 0.5, (size, len(za)))
        first = swap * za + (1 - swap) * zb
        second = (1 - swap) * za + swap * zb
        if batch is not None:
            c1, c2 = batch(first), batch(second)
        else:
            c1, c2 = np.array([single(first[0])]), np.array([single(second[0])])
        count, i, stopped = early_stop((c2 - c1 >= delta).tolist(), i, count, params)
    return MetricComparison(
        **common,
        p_value=count / i,
        delta=delta,
        value_a=value_a,
        value_b=value_b,
        resamples_used=i,
    )


def _pairs_test(
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    shape: tuple[int, int],
    common: dict[str, Any],
    random_state: np.random.RandomState,
    params: tuple[int, float, float],
    statistic: ComparedStatistic,
) -> MetricComparison:
    """``PairwisePermutationSigDiff``: each metric's pairwise judgments (sign of the difference,
    0 within its ε) are fixed; each permutation takes pair by pair A's or B's judgment."""
    h, ma, mb, present = arrays  # human, metric A, metric B, which cells hold a human score
    grouping, variant, sample_rate = statistic.grouping, statistic.variant, statistic.sample_rate
    eps_a = eps_b = statistic.epsilon
    if statistic.statistic == "tie_calibrated":
        groups = groups_of(shape, grouping)
        eps_a = tie_search(h, ma, present, groups, variant, sample_rate, random_state)[1]
        eps_b = tie_search(h, mb, present, groups, variant, sample_rate, random_state)[1]
    layout = Layout.build(shape, grouping, present)
    human_signs = pair_signs(h[layout.positions], layout.first, layout.second, 0.0)
    signs_a = pair_signs(ma[layout.positions], layout.first, layout.second, eps_a)
    signs_b = pair_signs(mb[layout.positions], layout.first, layout.second, eps_b)

    def agreement(signs: np.ndarray) -> np.ndarray:
        counts = pair_counts(signs, human_signs, layout, agreements_only=variant != "b")
        taus = taus_from_counts(counts, variant)  # tau-c is refused above
        return group_means(taus, layout, statistic.replace_nans_with_zeros)

    value_a, value_b = float(agreement(signs_a[None])[0]), float(agreement(signs_b[None])[0])
    delta = value_b - value_a
    # Each permutation draws a full n × n matrix per group (pair (i, j) reads entry i·n + j).
    squares = layout.sizes**2
    starts = np.r_[0, np.cumsum(squares)[:-1]]
    offsets = np.r_[0, np.cumsum(layout.sizes)[:-1]]
    group_of_pair = np.repeat(layout.paired, np.diff(np.r_[layout.pair_starts, len(layout.first)]))
    local_i = layout.first - offsets[group_of_pair]
    local_j = layout.second - offsets[group_of_pair]
    draw_at = starts[group_of_pair] + local_i * layout.sizes[group_of_pair] + local_j
    per_draw = int(squares.sum())
    resamples, count, i, stopped = common["resamples"], 0, 0, False
    chunk = max(1, _PAIR_CHUNK // max(1, per_draw))
    while i < resamples and not stopped:
        size = min(chunk, resamples - i)
        take_a = random_state.binomial(1, 0.5, (size, per_draw))[:, draw_at].astype(bool)
        c1 = agreement(np.where(take_a, signs_a, signs_b))
        c2 = agreement(np.where(take_a, signs_b, signs_a))
        count, i, stopped = early_stop_pairs((c2 - c1 >= delta).tolist(), i, count, params)
    return MetricComparison(
        **common,
        p_value=count / i,
        delta=delta,
        value_a=value_a,
        value_b=value_b,
        resamples_used=i,
        epsilons=(eps_a, eps_b),
    )
