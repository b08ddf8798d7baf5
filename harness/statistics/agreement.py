"""Agreement with human judgments: the WMT Metrics shared task's statistics, as mt-metrics-eval
computes them.

Does a metric order systems (and translations) as humans do, in the statistics the WMT Metrics
task reports? Each function
re-derives one statistic of Google's mt-metrics-eval (``mt_metrics_eval/stats.py``, ``pce.py``,
``tau_optimization.py``; google-research/mt-metrics-eval) from its paper and that code's
documented behaviour; ``tests/test_meta_eval.py`` checks each against the original on generated
and real inputs: the same floats, bit for bit.

* :func:`pairwise_accuracy` — the share of system pairs a metric orders as the humans do
  (Kocmi et al. 2021, "To Ship or Not to Ship", WMT; the WMT23 system-level statistic). A pair
  agrees when both order it the same way or both tie it: ``(concordant + tied in both) / pairs``,
  which is mt-metrics-eval's ``Agreement`` and ``KendallVariants(variant="acc23")`` at ε = 0.
* :func:`kendall_variant` — Kendall's τ-b, τ-c (Stuart), and the two variants of Deutsch,
  Foster & Freitag (2023, "Ties Matter: Meta-Evaluating Modern Metrics with Pairwise Accuracy
  and Tie Calibration", EMNLP): τ_23 = (C + T_hm − D − T_h − T_m) / pairs and acc_23 =
  (C + T_hm) / pairs, where a metric difference ``|Δ| ≤ epsilon`` counts as a metric tie;
  averaged over groups (below) as ``AverageCorrelation`` does.
* :func:`tie_calibrated_accuracy` — the same paper's tie calibration (``KendallWithTiesOpt``):
  the ε that maximises τ_23 or acc_23, found by sorting all pairs by their metric difference and
  turning them into ties one by one (every distinct difference is a candidate threshold, plus 0).
* :func:`soft_pairwise_accuracy` — SPA (Thompson et al. 2024, "Improving Statistical
  Significance in Human Evaluation of Automatic Metrics via Soft Pairwise Accuracy", WMT; the
  WMT24 system-level statistic, ``PairwiseConfidenceError``): 1 − the mean, over system pairs,
  of |p_human − p_metric|, each p the one-sided p-value of a paired permutation test that the
  first system's summed segment scores beat the second's.
Whether one metric's agreement is significantly above another's is
:mod:`harness.statistics.metric_comparison`; :mod:`harness.analysis.meta_eval` applies both to
the implementations of a report.

Conventions (mt-metrics-eval's, unless said otherwise):

* Scores are a vector (one per system: system level) or a *systems × segments* matrix; a vector
  is a one-column matrix. ``grouping`` is mt-metrics-eval's ``average_by``: ``"none"`` (the
  matrix flattened, system after system), ``"system"`` (each system's row) or ``"item"`` (each
  segment's column, across systems: WMT's segment-level grouping by item).
* A missing human score (``None``; NaN too, which mt-metrics-eval does not recognise) drops that
  cell, in both vectors. Metric scores must be finite wherever a human score is present; where
  it is missing they are ignored.
* Averages over groups are plain means of the groups' values; a group with fewer than two human
  scores is skipped, and so is a group whose value is undefined (τ-b and τ-c when either side
  is constant) unless ``replace_nans_with_zeros``. With no group left, mt-metrics-eval returns
  0; here the value is ``None`` (and ``n_groups`` 0).
* Randomness is seeded explicitly. mt-metrics-eval draws its permutations and samples from
  numpy's global legacy generator; here a ``numpy.random.RandomState(seed)`` draws the same
  stream in the same order (``np.random.seed(seed)`` before mt-metrics-eval gives the same
  numbers). SPA's own permutations come from ``numpy.random.default_rng(seed)`` (default 4, as
  ``pce.py``), computed in single precision as ``pce.py`` does, so that near-equal sums compare
  the same way. In single precision a p-value can hinge on the order BLAS adds in, which
  depends on the memory layout of the array it gets: on WMT21's nltk scores, mt-metrics-eval's
  own SPA is 0.8254 from a C-ordered matrix and 0.8255 from the same numbers in Fortran order.
  The matrices here reach BLAS in C order, as ``pce.py``'s do.

Results are frozen dataclasses, written as JSON by :func:`harness.typed_json.to_json` (``None``,
never NaN).

>>> round(pairwise_accuracy([1, 2, 3, 4], [1, 3, 2, 4]).accuracy, 4)
0.8333
>>> calibrated = tie_calibrated_accuracy([1, 1, 2, 3], [10, 12, 20, 30])
>>> calibrated.value, calibrated.epsilon, calibrated.thresholds
(1.0, 2.0, (0.0, 2.0, 8.0, 10.0, 18.0, 20.0))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from harness.errors import ConfigError, LayoutError
from harness.statistics.agreement_kernels import (
    Layout,
    check_choice,
    check_epsilon,
    flat_inputs,
    group_values,
    groups_of,
    p_values,
    sign_flips,
    spa_columns,
    tie_search,
    triu,
)
from harness.statistics.correlation import finite

__all__ = [
    "GROUPINGS",
    "SPA_PERMUTATIONS",
    "SPA_SEED",
    "VARIANTS",
    "KendallResult",
    "PairwiseAccuracy",
    "SoftPairwiseAccuracy",
    "TieCalibration",
    "kendall_variant",
    "pairwise_accuracy",
    "soft_pairwise_accuracy",
    "tie_calibrated_accuracy",
]

VARIANTS: tuple[str, ...] = ("b", "c", "23", "acc23")
"""Kendall variants of mt-metrics-eval's ``KendallVariants``."""
GROUPINGS: tuple[str, ...] = ("none", "item", "system")
"""How a systems × segments matrix is cut into vectors (mt-metrics-eval's ``average_by``:
``none``, ``item``, ``sys``)."""
SPA_PERMUTATIONS = 1000
"""Permutations per system pair in SPA's p-values (``pce.py``'s default)."""
SPA_SEED = 4
"""Seed of SPA's permutations (``pce.py``'s default, which ``PairwiseConfidenceError`` keeps)."""


# ============================================================================ results
def json_ready(value: Any) -> Any:
    """``value`` with every float made JSON-safe (``None`` for NaN and ±inf), through mappings
    and sequences."""
    if isinstance(value, float):
        return finite(value)
    if isinstance(value, Mapping):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


@dataclass(frozen=True)
class KendallResult:
    """A Kendall variant averaged over groups (:func:`kendall_variant`).

    ``value``: the mean over the ``n_groups`` groups averaged (``None`` when there is none;
    mt-metrics-eval returns 0); ``n_groups_short`` groups had fewer than two human scores,
    ``n_groups_undefined`` had an undefined value (skipped, or counted as 0 when
    ``replace_nans_with_zeros``). The pair counts are summed over the groups with pairs.
    """

    variant: str
    grouping: str
    epsilon: float
    value: float | None
    n_groups: int
    n_groups_short: int
    n_groups_undefined: int
    n_pairs: int
    concordant: int
    discordant: int
    ties_human: int
    ties_metric: int
    ties_both: int
    replace_nans_with_zeros: bool


@dataclass(frozen=True)
class PairwiseAccuracy:
    """System-level pairwise accuracy (:func:`pairwise_accuracy`): ``agreements`` of
    ``n_pairs`` pairs of the ``n_systems`` systems with a human score; ``None`` below two."""

    accuracy: float | None
    n_systems: int
    n_pairs: int
    agreements: int
    concordant: int
    discordant: int
    ties_human: int
    ties_metric: int
    ties_both: int


@dataclass(frozen=True)
class TieCalibration:
    """Tie-calibrated τ_23 or acc_23 (:func:`tie_calibrated_accuracy`).

    ``value`` is the best average over the ``n_groups`` groups with pairs, reached by treating
    metric differences ``≤ epsilon`` as ties. ``thresholds`` are the candidates searched (0 and
    every distinct metric difference of the ``n_pairs`` pairs used, ascending) and ``values`` the
    average at each; ``sample_rate`` < 1 means a random share of the pairs (drawn with ``seed``)
    was used, so that the optimum is an estimate.
    """

    variant: str
    grouping: str
    value: float
    epsilon: float
    n_groups: int
    n_pairs: int
    sample_rate: float
    seed: int | None
    thresholds: tuple[float, ...] = field(repr=False, metadata={"json": False})
    values: tuple[float, ...] = field(repr=False, metadata={"json": False})

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("n_candidates",)

    @property
    def n_candidates(self) -> int:
        """How many thresholds were tried (the curve's length; the curve is not in JSON)."""
        return len(self.thresholds)


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    """Soft pairwise accuracy (:func:`soft_pairwise_accuracy`).

    ``human_p_values[i][j]`` (``i < j``; ``None`` elsewhere) is the p-value that system i's
    summed human scores beat system j's, from ``permutations`` sign flips of the
    ``n_segments`` segments drawn with ``seed``; ``metric_p_values`` the same for the metric.
    """

    spa: float
    n_systems: int
    n_segments: int
    permutations: int
    seed: int
    human_p_values: tuple[tuple[float | None, ...], ...] = field(repr=False)
    metric_p_values: tuple[tuple[float | None, ...], ...] = field(repr=False)


# ============================================================================ statistics
def kendall_variant(
    human: Any,
    metric: Any,
    *,
    variant: str = "b",
    grouping: str = "none",
    epsilon: float = 0.0,
    replace_nans_with_zeros: bool = False,
) -> KendallResult:
    """A Kendall variant between human and metric scores, averaged over groups.

    ``variant``: ``"b"`` (τ-b), ``"c"`` (Stuart's τ-c), ``"23"`` (τ_23) or ``"acc23"``
    (acc_23) of Deutsch et al. (2023), where a pair whose metric scores differ by at most
    ``epsilon`` is a metric tie (not for τ-c). ``grouping``: ``"none"``, ``"system"`` or
    ``"item"`` (WMT's segment level: one value per segment, across systems, then averaged).
    mt-metrics-eval: ``Correlation.KendallVariants`` (``AverageCorrelation`` over
    ``KendallVariants``).
    """
    check_choice("variant", variant, VARIANTS)
    check_choice("grouping", grouping, GROUPINGS)
    epsilon = check_epsilon(variant, epsilon)
    h, m, present, shape = flat_inputs(human, metric)
    layout = Layout.build(shape, grouping, present)
    values, counts = group_values(
        m[layout.positions], h[layout.positions], layout, variant, epsilon
    )
    total, n = 0.0, 0
    for value in values.tolist():  # mt-metrics-eval sums group by group
        if not math.isnan(value):
            total += value
            n += 1
        elif replace_nans_with_zeros:
            n += 1
    con, dis, t_m, t_h, t_both = (int(c) for c in counts.sum(axis=0))
    return KendallResult(
        variant=variant,
        grouping=grouping,
        epsilon=epsilon,
        value=total / n if n else None,
        n_groups=n,
        n_groups_short=len(groups_of(shape, grouping)) - len(layout.paired),
        n_groups_undefined=int(np.isnan(values).sum()),
        n_pairs=con + dis + t_m + t_h + t_both,
        concordant=con,
        discordant=dis,
        ties_human=t_h,
        ties_metric=t_m,
        ties_both=t_both,
        replace_nans_with_zeros=replace_nans_with_zeros,
    )


def pairwise_accuracy(human: Any, metric: Any) -> PairwiseAccuracy:
    """System-level pairwise accuracy: of all pairs of systems with a human score, the share the
    metric orders as the humans do, a pair tied by both counting as agreement and a pair tied by
    one only as disagreement (Kocmi et al. 2021; Deutsch et al. 2023's acc_23 at ε = 0).

    ``human``, ``metric``: one score per system. mt-metrics-eval: ``Agreement`` (what
    ``CompareMetricsWithGlobalAccuracy`` reports for one language pair) and
    ``KendallVariants(variant="acc23")``.
    """
    _, _, present, shape = flat_inputs(human, metric)
    if shape[1] != 1:
        raise LayoutError("pairwise accuracy takes one score per system", got=shape)
    result = kendall_variant(human, metric, variant="acc23")
    agreements = result.concordant + result.ties_both
    n_systems = int(present.sum())
    return PairwiseAccuracy(
        accuracy=agreements / result.n_pairs if result.n_pairs else None,
        n_systems=n_systems,
        n_pairs=result.n_pairs,
        agreements=agreements,
        concordant=result.concordant,
        discordant=result.discordant,
        ties_human=result.ties_human,
        ties_metric=result.ties_metric,
        ties_both=result.ties_both,
    )


def tie_calibrated_accuracy(
    human: Any,
    metric: Any,
    *,
    variant: str = "acc23",
    grouping: str = "none",
    sample_rate: float = 1.0,
    seed: int | None = None,
) -> TieCalibration:
    """Tie-calibrated accuracy (``variant="acc23"``) or τ_23 (``"23"``): the best average over
    groups reachable by counting metric differences up to ε as ties, and that ε (Deutsch,
    Foster & Freitag 2023, "Ties Matter"; mt-metrics-eval: ``KendallWithTiesOpt``).

    Every pair of every group is sorted by its metric difference and turned into a tie in turn;
    0 and each distinct difference are the candidates, and the first best one wins.
    ``sample_rate`` < 1 searches a random share of the pairs (each kept when a uniform draw is
    ≤ ``sample_rate``; ``seed`` required), as mt-metrics-eval's default of 0.1 does; WMT23 and
    WMT24 used 1.0, the default here. ``grouping="item"`` is WMT's segment level.
    """
    check_choice("variant", variant, ("23", "acc23"))
    check_choice("grouping", grouping, GROUPINGS)
    if not 0 < sample_rate <= 1:
        raise ConfigError(f"sample_rate must be in (0, 1], not {sample_rate!r}")
    if sample_rate != 1.0 and seed is None:
        raise ConfigError("sample_rate < 1 draws pairs at random: give a seed")
    h, m, present, shape = flat_inputs(human, metric)
    random_state = np.random.RandomState(seed) if sample_rate != 1.0 else None
    best, epsilon, thresholds, values, n_groups, n_pairs = tie_search(
        h, m, present, groups_of(shape, grouping), variant, sample_rate, random_state
    )
    return TieCalibration(
        variant=variant,
        grouping=grouping,
        value=best,
        epsilon=epsilon,
        n_groups=n_groups,
        n_pairs=n_pairs,
        sample_rate=sample_rate,
        seed=seed if sample_rate != 1.0 else None,
        thresholds=tuple(thresholds),
        values=tuple(values),
    )


def soft_pairwise_accuracy(
    human: Any,
    metric: Any,
    *,
    permutations: int = SPA_PERMUTATIONS,
    seed: int = SPA_SEED,
) -> SoftPairwiseAccuracy:
    """Soft pairwise accuracy, WMT24's system-level statistic (Thompson et al. 2024;
    mt-metrics-eval: ``PairwiseConfidenceError``, ``pce.py``).

    ``human``, ``metric``: systems × segments scores; a system's score is the sum (equivalently
    the mean) of its segments'. For each pair of systems, the p-value that the first beats the
    second is the share of ``permutations`` paired permutations (each segment's two scores
    swapped or not: a sign flip of its difference) whose difference is at least the observed one;
    the human and the metric p-values use the same flips. SPA = 1 − mean |p_human − p_metric|:
    1 when the metric is exactly as confident as the humans about every pair.
    """
    if permutations < 1:
        raise ConfigError(f"permutations must be positive, not {permutations!r}")
    h, m, present, shape = flat_inputs(human, metric)
    keep = spa_columns(h, present, shape)
    h_kept, m_kept = h.reshape(shape)[:, keep], m.reshape(shape)[:, keep]
    flips = sign_flips(permutations, int(keep.sum()), seed)
    human_p, metric_p = p_values(h_kept, flips), p_values(m_kept, flips)

    def square(upper: np.ndarray) -> tuple[tuple[float | None, ...], ...]:
        grid: list[list[float | None]] = [[None] * shape[0] for _ in range(shape[0])]
        for p, i, j in zip(upper.tolist(), *triu(shape[0]), strict=True):
            grid[i][j] = p
        return tuple(tuple(row) for row in grid)

    return SoftPairwiseAccuracy(
        spa=float(1.0 - np.mean(np.abs(human_p - metric_p))),
        n_systems=shape[0],
        n_segments=int(keep.sum()),
        permutations=permutations,
        seed=seed,
        human_p_values=square(human_p),
        metric_p_values=square(metric_p),
    )
