"""The WMT Metrics statistics of every implementation of a report: does each order WMT21's
systems and translations as the MQM raters do, and is one implementation's agreement
significantly above another's?

The statistics are :mod:`harness.statistics.agreement` (pairwise accuracy, Kendall variants,
tie-calibrated accuracy, soft pairwise accuracy) and :mod:`harness.statistics.metric_comparison`
(the permutation tests between two metrics), each equal to Google's mt-metrics-eval bit for bit
(``tests/test_meta_eval.py``); :func:`meta_evaluate` computes them for each implementation of a
:class:`~harness.analysis.human.HumanCorrelations` and tests the pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any, ClassVar

from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.statistics.agreement import (
    SPA_PERMUTATIONS,
    SPA_SEED,
    VARIANTS,
    KendallResult,
    PairwiseAccuracy,
    SoftPairwiseAccuracy,
    TieCalibration,
    json_ready,
    kendall_variant,
    pairwise_accuracy,
    soft_pairwise_accuracy,
    tie_calibrated_accuracy,
)
from harness.statistics.agreement_kernels import check_choice
from harness.statistics.metric_comparison import (
    EARLY_MAX,
    EARLY_MIN,
    ComparedStatistic,
    MetricComparison,
    PermutationTest,
    compare_metrics,
)

if TYPE_CHECKING:
    from harness.analysis.human import HumanCorrelations

__all__ = [
    "ImplementationComparison",
    "ImplementationMetaEvaluation",
    "MetaEvalOptions",
    "MetaEvaluation",
    "meta_evaluate",
]


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


@dataclass(frozen=True)
class ImplementationComparison:
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

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("rows",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "dataset",
        "systems",
        "n_segments",
        "permutations",
        "spa_seed",
        "resamples",
        "seed",
        "rows",
        "implementations",
        "comparisons",
    )

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
            out.append({k: json_ready(v) for k, v in row.items()})
        return out


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
#: segment matrix, the :func:`compare_metrics` statistic and test (WMT's tasks: ``accuracy`` and ``pce``
#: with the scores test, segment-level ``KendallWithTiesOpt`` by item with the pairs test), and
#: where the value that orders the implementations is.
_COMPARED: tuple[tuple[str, bool, ComparedStatistic, str, Callable[[Any], float | None]], ...] = (
    (
        "pairwise_accuracy",
        False,
        ComparedStatistic("pairwise_accuracy"),
        "scores",
        lambda r: r.pairwise_accuracy and r.pairwise_accuracy.accuracy,
    ),
    ("spa", True, ComparedStatistic("spa"), "scores", lambda r: r.spa and r.spa.spa),
    (
        "segment_tie_calibrated",
        True,
        ComparedStatistic("tie_calibrated", grouping="item"),
        "pairs",
        lambda r: r.segment_tie_calibrated and r.segment_tie_calibrated.value,
    ),
)


@dataclass(frozen=True, kw_only=True)
class MetaEvalOptions:
    """What :func:`meta_evaluate` computes: ``variants``, the Kendall variants at system level
    and by item; ``permutations`` and ``spa_seed``, SPA's; ``resamples`` > 0, the permutation
    test of every pair of implementations (:func:`compare_metrics` seeded with ``seed``, in
    blocks of ``block_size`` stopping early outside ``early_min``..``early_max``: WMT's task
    defaults), each significant at level ``alpha``."""

    variants: tuple[str, ...] = VARIANTS
    permutations: int = SPA_PERMUTATIONS
    spa_seed: int = SPA_SEED
    resamples: int = 0
    seed: int = 0
    block_size: int = 100
    early_min: float = EARLY_MIN
    early_max: float = EARLY_MAX
    alpha: float = 0.05

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", tuple(self.variants))


def meta_evaluate(
    human: HumanCorrelations,
    implementations: Sequence[str] | None = None,
    *,
    options: MetaEvalOptions = MetaEvalOptions(),
    compared: Sequence[tuple[str, str]] | None = None,
    progress: ProgressCallback | None = None,
) -> MetaEvaluation:
    """The WMT Metrics statistics of every implementation of ``human``
    (:func:`~harness.analysis.human.wmt21_human_correlations`;
    :data:`~harness.statistics.correlation.NO_INTERVALS` is enough).

    ``implementations``: a subset of ``human``'s (default: all). ``options``
    (:class:`MetaEvalOptions`): the Kendall variants computed at system level and by item,
    SPA's permutations and seed, and with ``resamples`` > 0, for every pair of
    implementations, the permutation test of each of pairwise accuracy, SPA and segment-level
    tie-calibrated accuracy (:func:`compare_metrics`), testing the higher-scoring
    implementation against the other at level ``alpha``; ``compared`` limits the tests to
    those pairs (each of ``implementations``).
    ``progress`` is told of each comparison (stage ``"meta-evaluation: comparisons"``).
    """
    variants, permutations, spa_seed = options.variants, options.permutations, options.spa_seed
    resamples, seed = options.resamples, options.seed
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
    for (statistic, segment, compared_statistic, kind, value_of), a, b in track(
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
            statistic=replace(compared_statistic, permutations=permutations, spa_seed=spa_seed),
            test=PermutationTest(
                test=kind,
                resamples=resamples,
                seed=seed,
                block_size=options.block_size,
                early_min=options.early_min,
                early_max=options.early_max,
            ),
        )
        comparisons.append(
            ImplementationComparison(
                statistic=statistic,
                better=better,
                worse=worse,
                value_better=v_better,
                value_worse=v_worse,
                p_value=test.p_value,
                alpha=options.alpha,
                significant=test.p_value <= options.alpha,
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
