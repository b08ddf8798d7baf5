"""The WMT Metrics shared task's meta-evaluation statistics, as mt-metrics-eval computes them.

Does a metric order systems (and translations) as humans do, in the statistics the WMT Metrics
task reports — and is one metric's agreement significantly better than another's? Each function
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
* :func:`compare_metrics` — whether metric B's statistic is significantly above metric A's:
  PERM-BOTH (Deutsch, Dror & Roth 2021, "A Statistical Analysis of Summarization Evaluation
  Metrics using Resampling Methods", TACL) on z-scored metric scores (``PermutationSigDiff``,
  test ``"scores"``), or swapping the two metrics' pairwise judgments pair by pair
  (``PairwisePermutationSigDiff``, test ``"pairs"``: how WMT23/24 compare segment-level
  tie-calibrated accuracies).
* :func:`meta_evaluate` — all of that for every implementation of a
  :class:`~harness.analysis.human.HumanCorrelations` (WMT21 en→de MQM).

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

Results are frozen dataclasses with ``to_dict()`` (JSON-ready: ``None``, never NaN).

>>> round(pairwise_accuracy([1, 2, 3, 4], [1, 3, 2, 4]).accuracy, 4)
0.8333
>>> calibrated = tie_calibrated_accuracy([1, 1, 2, 3], [10, 12, 20, 30])
>>> calibrated.value, calibrated.epsilon, calibrated.thresholds
(1.0, 2.0, (0.0, 2.0, 8.0, 10.0, 18.0, 20.0))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.analysis.correlation import finite
from harness.analysis.meta_eval_kernels import (
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
    triu,
    zscore,
)
from harness.errors import ConfigError, HarnessError, LayoutError
from harness.progress import ProgressCallback, track

if TYPE_CHECKING:
    from harness.analysis.human import HumanCorrelations

__all__ = [
    "GROUPINGS",
    "SPA_PERMUTATIONS",
    "SPA_SEED",
    "STATISTICS",
    "TESTS",
    "VARIANTS",
    "ImplementationComparison",
    "ImplementationMetaEvaluation",
    "KendallResult",
    "MetaEvaluation",
    "MetricComparison",
    "PairwiseAccuracy",
    "SoftPairwiseAccuracy",
    "TieCalibration",
    "compare_metrics",
    "kendall_variant",
    "meta_evaluate",
    "pairwise_accuracy",
    "soft_pairwise_accuracy",
    "tie_calibrated_accuracy",
]

VARIANTS: tuple[str, ...] = ("b", "c", "23", "acc23")
"""Kendall variants of mt-metrics-eval's ``KendallVariants``."""
GROUPINGS: tuple[str, ...] = ("none", "item", "system")
"""How a systems × segments matrix is cut into vectors (mt-metrics-eval's ``average_by``:
``none``, ``item``, ``sys``)."""
STATISTICS: tuple[str, ...] = ("pairwise_accuracy", "kendall", "tie_calibrated", "spa")
"""What :func:`compare_metrics` can compare."""
TESTS: tuple[str, ...] = ("scores", "pairs")
"""Permutation tests of :func:`compare_metrics`."""
SPA_PERMUTATIONS = 1000
"""Permutations per system pair in SPA's p-values (``pce.py``'s default)."""
SPA_SEED = 4
"""Seed of SPA's permutations (``pce.py``'s default, which ``PairwiseConfidenceError`` keeps)."""

_PAIR_CHUNK = 1 << 22  # pairs × resamples handled at once by the vectorised permutation tests


# ============================================================================ results
class _Result:
    """``to_dict()`` for the frozen result dataclasses: JSON-ready, ``None`` for NaN."""

    def to_dict(self) -> dict[str, Any]:
        return {k: _json(v) for k, v in asdict(self).items()}  # type: ignore[call-overload]


def _json(value: Any) -> Any:
    if isinstance(value, float):
        return finite(value)
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


@dataclass(frozen=True)
class KendallResult(_Result):
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
class PairwiseAccuracy(_Result):
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
class TieCalibration(_Result):
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
    thresholds: tuple[float, ...] = field(repr=False)
    values: tuple[float, ...] = field(repr=False)

    def to_dict(self, *, curve: bool = False) -> dict[str, Any]:
        """JSON-ready; ``curve=True`` keeps ``thresholds`` and ``values`` (one per candidate)."""
        out = super().to_dict()
        out["n_candidates"] = len(self.thresholds)
        if not curve:
            del out["thresholds"], out["values"]
        return out


@dataclass(frozen=True)
class SoftPairwiseAccuracy(_Result):
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


@dataclass(frozen=True)
class MetricComparison(_Result):
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


def compare_metrics(
    human: Any,
    metric_a: Any,
    metric_b: Any,
    *,
    statistic: str = "pairwise_accuracy",
    grouping: str = "none",
    variant: str = "acc23",
    epsilon: float = 0.0,
    sample_rate: float = 1.0,
    test: str = "scores",
    resamples: int = 1000,
    seed: int = 0,
    block_size: int = 1000,
    early_min: float = 0.02,
    early_max: float = 0.5,
    permutations: int = SPA_PERMUTATIONS,
    spa_seed: int = SPA_SEED,
    replace_nans_with_zeros: bool = False,
) -> MetricComparison:
    """Is metric B's agreement with the humans significantly above metric A's? A one-sided
    permutation test (mt-metrics-eval: ``PermutationSigDiff``, ``PairwisePermutationSigDiff``).

    ``statistic``: ``"pairwise_accuracy"`` (system level; what ``CompareMetricsWithGlobalAccuracy``
    tests), ``"kendall"`` (``variant``, ``epsilon``, ``grouping``), ``"tie_calibrated"``
    (``variant`` ``"acc23"``/``"23"``, ``sample_rate``, ``grouping``) or ``"spa"``
    (``permutations``, ``spa_seed``; what ``CompareMetricsWithPairwiseConfidenceError`` tests).

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
    check_choice("statistic", statistic, STATISTICS)
    check_choice("test", test, TESTS)
    check_choice("grouping", grouping, GROUPINGS)
    if statistic == "pairwise_accuracy":
        variant, epsilon, grouping = "acc23", 0.0, "none"
    check_choice("variant", variant, ("23", "acc23") if statistic == "tie_calibrated" else VARIANTS)
    epsilon = check_epsilon(variant, epsilon)
    if statistic == "spa" and (test != "scores" or grouping != "none"):
        raise ConfigError("spa is compared with test='scores' and grouping='none'")
    if test == "pairs" and variant == "c":
        raise ConfigError("tau-c is not defined once pairs are swapped (test='pairs')")
    if resamples < 1 or block_size < 1:
        raise ConfigError("resamples and block_size must be positive")
    if not 0 < sample_rate <= 1:
        raise ConfigError(f"sample_rate must be in (0, 1], not {sample_rate!r}")
    complete = statistic == "tie_calibrated" and test == "scores"
    h, ma, present, shape = flat_inputs(human, metric_a, metric_complete=complete)
    mb = flat_inputs(human, metric_b, metric_complete=complete)[1]
    random_state = np.random.RandomState(seed)
    params = (block_size, early_min, early_max)
    common: dict[str, Any] = dict(
        statistic=statistic, test=test, grouping=grouping, variant=variant, resamples=resamples
    )
    common.update(seed=seed, block_size=block_size, early_min=early_min, early_max=early_max)
    if test == "pairs":
        return _pairs_test(
            h,
            ma,
            mb,
            present,
            shape,
            common,
            random_state,
            params,
            epsilon,
            sample_rate,
            replace_nans_with_zeros,
        )

    layout = Layout.build(
        shape, grouping, present, pairs=statistic not in ("spa", "tie_calibrated")
    )
    if statistic == "tie_calibrated":
        groups = groups_of(shape, grouping)
        za, zb = zscore(ma, "metric_a"), zscore(mb, "metric_b")

        def single(values: np.ndarray) -> float:
            found = tie_search(h, values, present, groups, variant, sample_rate, random_state)
            return found[0]

        return _scores_test(za, zb, single, None, random_state, common, params)

    za = zscore(ma[layout.positions], "metric_a")
    zb = zscore(mb[layout.positions], "metric_b")
    if statistic == "spa":
        keep = spa_columns(h, present, shape)
        rows = (shape[0], int(keep.sum()))
        flips = sign_flips(permutations, rows[1], spa_seed)
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
        return group_means(taus, layout, replace_nans_with_zeros)

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
    h: np.ndarray,
    ma: np.ndarray,
    mb: np.ndarray,
    present: np.ndarray,
    shape: tuple[int, int],
    common: dict[str, Any],
    random_state: np.random.RandomState,
    params: tuple[int, float, float],
    epsilon: float,
    sample_rate: float,
    replace_nans_with_zeros: bool,
) -> MetricComparison:
    """``PairwisePermutationSigDiff``: each metric's pairwise judgments (sign of the difference,
    0 within its ε) are fixed; each permutation takes pair by pair A's or B's judgment."""
    grouping, variant = common["grouping"], common["variant"]
    eps_a = eps_b = epsilon
    if common["statistic"] == "tie_calibrated":
        groups = groups_of(shape, grouping)
        eps_a = tie_search(h, ma, present, groups, variant, sample_rate, random_state)[1]
        eps_b = tie_search(h, mb, present, groups, variant, sample_rate, random_state)[1]
    layout = Layout.build(shape, grouping, present)
    human_signs = pair_signs(h[layout.positions], layout.first, layout.second, 0.0)
    signs_a = pair_signs(ma[layout.positions], layout.first, layout.second, eps_a)
    signs_b = pair_signs(mb[layout.positions], layout.first, layout.second, eps_b)

    def statistic(signs: np.ndarray) -> np.ndarray:
        counts = pair_counts(signs, human_signs, layout, agreements_only=variant != "b")
        taus = taus_from_counts(counts, variant)  # tau-c is refused above
        return group_means(taus, layout, replace_nans_with_zeros)

    value_a, value_b = float(statistic(signs_a[None])[0]), float(statistic(signs_b[None])[0])
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
        c1 = statistic(np.where(take_a, signs_a, signs_b))
        c2 = statistic(np.where(take_a, signs_b, signs_a))
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


# ============================================================================ WMT21 MQM
@dataclass(frozen=True)
class ImplementationMetaEvaluation:
    """One implementation's meta-evaluation (:func:`meta_evaluate`).

    System level (one corpus score per system against its mean MQM): ``pairwise_accuracy``,
    ``tie_calibrated`` (acc_23 with its ε) and ``system_kendall[variant]``. From the segment
    scores (systems × rated segments): ``spa`` (the system score implied is the sum of the
    segments' sentence scores, as in mt-metrics-eval — not corpus BLEU),
    ``segment_kendall[variant]`` and ``segment_tie_calibrated``, both grouped by item (WMT23/24's
    segment level). ``None`` where the implementation has no score to use, with ``reason``.
    """

    implementation: str
    pairwise_accuracy: PairwiseAccuracy | None
    tie_calibrated: TieCalibration | None
    spa: SoftPairwiseAccuracy | None
    system_kendall: Mapping[str, KendallResult]
    segment_kendall: Mapping[str, KendallResult]
    segment_tie_calibrated: TieCalibration | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        def one(result: Any) -> Any:
            return None if result is None else result.to_dict()

        return {
            "implementation": self.implementation,
            "pairwise_accuracy": one(self.pairwise_accuracy),
            "tie_calibrated": one(self.tie_calibrated),
            "spa": one(self.spa),
            "system_kendall": {v: r.to_dict() for v, r in self.system_kendall.items()},
            "segment_kendall": {v: r.to_dict() for v, r in self.segment_kendall.items()},
            "segment_tie_calibrated": one(self.segment_tie_calibrated),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ImplementationComparison(_Result):
    """Whether ``better`` (the higher ``statistic``; names break ties, as mt-metrics-eval
    orders metrics) is significantly above ``worse``: ``p_value`` ≤ ``alpha``, the rule of
    mt-metrics-eval's ``AssignRanks``. ``comparison`` holds the test's details."""

    statistic: str
    better: str
    worse: str
    value_better: float
    value_worse: float
    p_value: float
    alpha: float
    significant: bool
    comparison: MetricComparison


@dataclass(frozen=True)
class MetaEvaluation:
    """The result of :func:`meta_evaluate`: ``implementations[name]`` and, when permutation
    tests were asked for (``resamples`` > 0), one ``comparisons`` row per statistic and pair of
    implementations. ``rows()`` flattens the headline numbers, one row per implementation."""

    dataset: str
    systems: tuple[str, ...]
    n_segments: int
    permutations: int
    spa_seed: int
    resamples: int
    seed: int
    implementations: Mapping[str, ImplementationMetaEvaluation] = field(repr=False)
    comparisons: tuple[ImplementationComparison, ...] = field(repr=False)

    def rows(self) -> list[dict[str, Any]]:
        """Per implementation: ``pairwise_accuracy``, ``acc23_calibrated``/``acc23_epsilon``
        (system level), ``spa``, ``segment_acc23_calibrated``/``segment_acc23_epsilon`` (by
        item) and ``system_kendall_{variant}``/``segment_kendall_{variant}`` (by item) for each
        Kendall variant computed."""
        out = []
        for name, r in self.implementations.items():
            tie, seg = r.tie_calibrated, r.segment_tie_calibrated
            row: dict[str, Any] = {
                "implementation": name,
                "pairwise_accuracy": r.pairwise_accuracy and r.pairwise_accuracy.accuracy,
                "acc23_calibrated": tie and tie.value,
                "acc23_epsilon": tie and tie.epsilon,
                "spa": r.spa and r.spa.spa,
                "segment_acc23_calibrated": seg and seg.value,
                "segment_acc23_epsilon": seg and seg.epsilon,
            }
            row.update({f"system_kendall_{v}": k.value for v, k in r.system_kendall.items()})
            row.update({f"segment_kendall_{v}": k.value for v, k in r.segment_kendall.items()})
            row["reason"] = r.reason
            out.append({k: _json(v) for k, v in row.items()})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "systems": list(self.systems),
            "n_segments": self.n_segments,
            "permutations": self.permutations,
            "spa_seed": self.spa_seed,
            "resamples": self.resamples,
            "seed": self.seed,
            "rows": self.rows(),
            "implementations": {n: r.to_dict() for n, r in self.implementations.items()},
            "comparisons": [c.to_dict() for c in self.comparisons],
        }


def _human_matrices(
    human: HumanCorrelations,
) -> tuple[list[float], list[list[float | None]], Callable[[str], tuple[list[Any], list[Any]]]]:
    """System-level human scores, the systems × segments human matrix, and a function giving an
    implementation's system scores and segment matrix (``None`` where it has no score)."""
    systems = human.systems
    seg_ids = list(dict.fromkeys(seg for _, seg in human.segment_keys))
    cell = {key: k for k, key in enumerate(human.segment_keys)}

    def matrix(vector: Sequence[float | None]) -> list[list[float | None]]:
        return [
            [vector[cell[(s, seg)]] if (s, seg) in cell else None for seg in seg_ids]
            for s in systems
        ]

    def metric(name: str) -> tuple[list[Any], list[Any]]:
        scores = human.system_scores[name]
        return [scores.get(s) for s in systems], matrix(human.segment_scores[name])

    return [human.human_system[s] for s in systems], matrix(human.human_segment), metric


def _evaluate_one(
    name: str,
    human_sys: list[float],
    human_seg: list[list[float | None]],
    metric_sys: list[Any],
    metric_seg: list[Any],
    variants: Sequence[str],
    permutations: int,
    spa_seed: int,
) -> ImplementationMetaEvaluation:
    reasons = []
    accuracy = tie = spa = seg_tie = None
    system_kendall: dict[str, KendallResult] = {}
    segment_kendall: dict[str, KendallResult] = {}
    try:
        accuracy = pairwise_accuracy(human_sys, metric_sys)
        tie = tie_calibrated_accuracy(human_sys, metric_sys)
        system_kendall = {v: kendall_variant(human_sys, metric_sys, variant=v) for v in variants}
    except HarnessError as exc:
        reasons.append(f"system level: {exc}")
    try:
        spa = soft_pairwise_accuracy(
            human_seg, metric_seg, permutations=permutations, seed=spa_seed
        )
        seg_tie = tie_calibrated_accuracy(human_seg, metric_seg, grouping="item")
        segment_kendall = {
            v: kendall_variant(human_seg, metric_seg, variant=v, grouping="item") for v in variants
        }
    except HarnessError as exc:
        reasons.append(f"segment level: {exc}")
    return ImplementationMetaEvaluation(
        implementation=name,
        pairwise_accuracy=accuracy,
        tie_calibrated=tie,
        spa=spa,
        system_kendall=system_kendall,
        segment_kendall=segment_kendall,
        segment_tie_calibrated=seg_tie,
        reason="; ".join(reasons) or None,
    )


#: The comparisons :func:`meta_evaluate` tests: the statistic's name, whether it reads the
#: segment matrix, the :func:`compare_metrics` settings (WMT's tasks: ``accuracy`` and ``pce``
#: with the scores test, segment-level ``KendallWithTiesOpt`` by item with the pairs test), and
#: where the value that orders the implementations is.
_COMPARED: tuple[tuple[str, bool, dict[str, Any], Callable[[Any], float | None]], ...] = (
    (
        "pairwise_accuracy",
        False,
        {"statistic": "pairwise_accuracy"},
        lambda r: r.pairwise_accuracy and r.pairwise_accuracy.accuracy,
    ),
    ("spa", True, {"statistic": "spa"}, lambda r: r.spa and r.spa.spa),
    (
        "segment_tie_calibrated",
        True,
        {"statistic": "tie_calibrated", "grouping": "item", "test": "pairs"},
        lambda r: r.segment_tie_calibrated and r.segment_tie_calibrated.value,
    ),
)


def meta_evaluate(
    human: HumanCorrelations,
    implementations: Sequence[str] | None = None,
    *,
    variants: Sequence[str] = VARIANTS,
    permutations: int = SPA_PERMUTATIONS,
    spa_seed: int = SPA_SEED,
    resamples: int = 0,
    seed: int = 0,
    compared: Sequence[tuple[str, str]] | None = None,
    block_size: int = 100,
    early_min: float = 0.02,
    early_max: float = 0.5,
    alpha: float = 0.05,
    progress: ProgressCallback | None = None,
) -> MetaEvaluation:
    """The WMT Metrics statistics of every implementation of ``human``
    (:func:`~harness.analysis.human.wmt21_human_correlations`; ``n_boot=0`` is enough).

    ``implementations``: a subset of ``human``'s (default: all). ``variants``: the Kendall
    variants computed at system level and by item. ``permutations``, ``spa_seed``: SPA's.
    ``resamples`` > 0 adds, for every pair of implementations, the permutation test of each of
    pairwise accuracy, SPA and segment-level tie-calibrated accuracy (:func:`compare_metrics`
    with ``seed``; ``block_size``, ``early_min`` and ``early_max`` are WMT's task defaults),
    testing the higher-scoring implementation against the other at level ``alpha``;
    ``compared`` limits the tests to those pairs (each of ``implementations``).
    ``progress`` is told of each comparison (stage ``"meta-evaluation: comparisons"``).
    """
    for v in variants:
        check_choice("variant", v, VARIANTS)
    names = list(human.segment_scores) if implementations is None else list(implementations)
    for name in names:
        if name not in human.segment_scores:
            raise ConfigError(
                f"{name!r} is not an implementation of these correlations",
                valid=list(human.segment_scores),
            )
    human_sys, human_seg, metric_of = _human_matrices(human)
    metrics = {name: metric_of(name) for name in names}
    results = {
        name: _evaluate_one(
            name, human_sys, human_seg, *metrics[name], variants, permutations, spa_seed
        )
        for name in names
    }
    comparisons = []
    chosen = list(combinations(names, 2)) if compared is None else list(compared)
    for a, b in chosen:
        for name in (a, b):
            if name not in names:
                raise ConfigError(
                    f"compared names {name!r}, not one of the implementations", valid=names
                )
    todo = [(spec, a, b) for spec in _COMPARED for a, b in chosen if resamples > 0]
    for (statistic, segment, settings, value_of), a, b in track(
        todo, progress, "meta-evaluation: comparisons"
    ):
        va, vb = value_of(results[a]), value_of(results[b])
        if va is None or vb is None:
            continue
        (better, v_better), (worse, v_worse) = sorted(
            ((a, va), (b, vb)), key=lambda x: (-x[1], x[0])
        )
        level = 1 if segment else 0
        test = compare_metrics(
            human_seg if segment else human_sys,
            metrics[worse][level],
            metrics[better][level],
            resamples=resamples,
            seed=seed,
            block_size=block_size,
            early_min=early_min,
            early_max=early_max,
            permutations=permutations,
            spa_seed=spa_seed,
            **settings,
        )
        comparisons.append(
            ImplementationComparison(
                statistic=statistic,
                better=better,
                worse=worse,
                value_better=v_better,
                value_worse=v_worse,
                p_value=test.p_value,
                alpha=alpha,
                significant=test.p_value <= alpha,
                comparison=test,
            )
        )
    return MetaEvaluation(
        dataset=human.dataset,
        systems=tuple(human.systems),
        n_segments=len(human_seg[0]),
        permutations=permutations,
        spa_seed=spa_seed,
        resamples=resamples,
        seed=seed,
        implementations=results,
        comparisons=tuple(comparisons),
    )
