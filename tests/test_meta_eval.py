"""The WMT Metrics meta-evaluation statistics (harness.analysis.meta_eval) against mt-metrics-eval.

The oracle is Google's own code (google-research/mt-metrics-eval: ``stats.py``, ``pce.py``,
``tau_optimization.py``), imported from the shared reference-impls folder
(``$BLEU_HARNESS_REFERENCE_IMPLS`` or ``../shared/reference-impls``; never the unrelated PyPI
package of that name). Every expected number is what it returns on the same input: generated
score matrices with ties, constant rows and columns, missing human scores (``None`` there; here
``None`` or NaN) and 2–6 systems, then the real WMT21 en→de MQM vectors of the harness's
profiles. The comparisons are exact (the same floats), which also pins which of several
equally good tie thresholds wins and every early stop of the permutation tests.

mt-metrics-eval draws from numpy's global generator: ``np.random.seed(seed)`` before it and
``seed=seed`` here must give the same permutations.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import os
import sys
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from harness.analysis.meta_eval import MetaEvalOptions, meta_evaluate
from harness.errors import ConfigError, InputError, LayoutError
from harness.statistics.agreement import (
    GROUPINGS,
    VARIANTS,
    kendall_variant,
    pairwise_accuracy,
    soft_pairwise_accuracy,
    tie_calibrated_accuracy,
)
from harness.statistics.correlation import NO_INTERVALS
from harness.statistics.metric_comparison import (
    ComparedStatistic,
    PermutationTest,
    compare_metrics,
)
from harness.typed_json import to_json

from . import oracles
from .depth import cases, examples

#: Our grouping names → mt-metrics-eval's ``average_by``.
AVERAGE_BY = {"none": "none", "item": "item", "system": "sys"}
GRID = (0.0, 0.5, 1.0, 2.0, 3.0)  # few values, so that ties are common
oracle = pytest.mark.oracle


@pytest.fixture(scope="module")
def mtme() -> SimpleNamespace:
    """mt-metrics-eval's ``stats`` and ``pce`` modules from the shared folder; skips (or fails
    when ``CI=true``) if the folder is missing."""
    folder = oracles.reference_impls_dir() / "mt-metrics-eval"
    if not (folder / "mt_metrics_eval" / "stats.py").is_file():
        reason = f"no mt_metrics_eval/stats.py under {folder}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but mt-metrics-eval is missing: {reason}", pytrace=False)
        pytest.skip(f"mt-metrics-eval unavailable: {reason}")
    sys.path.insert(0, str(folder))
    try:
        stats = importlib.import_module("mt_metrics_eval.stats")
        pce = importlib.import_module("mt_metrics_eval.pce")
    finally:
        sys.path.remove(str(folder))
    # the PyPI package of the same name is someone else's: make sure this is Google's
    assert os.path.dirname(stats.__file__) == str(folder / "mt_metrics_eval")
    return SimpleNamespace(stats=stats, pce=pce)


# ---------------------------------------------------------------------- generated inputs
_VALUE = st.sampled_from(GRID) | st.floats(-50, 50, allow_nan=False, allow_subnormal=False)


@st.composite
def scored(
    draw: st.DrawFn, *, max_systems: int = 6, max_items: int = 6, missing: bool = True
) -> dict[str, Any]:
    """Human and metric scores, systems × items, in both forms: ``human`` (ours: ``None`` or
    NaN where missing, ``metric`` with NaN or a number there) and ``gold``/``scores`` (flat,
    system after system, ``None`` where missing: mt-metrics-eval's ``Correlation`` vectors)."""
    systems = draw(st.integers(2, max_systems))
    items = draw(st.integers(1, max_items))
    shape = (systems, items)
    human = [[draw(_VALUE) for _ in range(items)] for _ in range(systems)]
    metric = [[draw(_VALUE) for _ in range(items)] for _ in range(systems)]
    if draw(st.booleans()):  # a constant side, or constant rows/columns
        what = draw(st.sampled_from(["human", "metric", "row", "column"]))
        value = draw(_VALUE)
        for s in range(systems):
            for i in range(items):
                if what in ("human", "metric"):
                    (human if what == "human" else metric)[s][i] = value
                elif (what == "row" and s == 0) or (what == "column" and i == 0):
                    human[s][i] = value
    ours_h: list[list[float | None]] = [row[:] for row in human]
    ours_m: list[list[float]] = [row[:] for row in metric]
    gold: list[float | None] = []
    for s in range(systems):
        for i in range(items):
            if missing and draw(st.integers(0, 5)) == 0:
                ours_h[s][i] = draw(st.sampled_from([None, math.nan]))
                if draw(st.booleans()):
                    ours_m[s][i] = math.nan  # ignored where the human score is missing
                gold.append(None)
            else:
                gold.append(human[s][i])
    scores = [v for row in metric for v in row]
    return dict(human=ours_h, metric=ours_m, gold=gold, scores=scores, shape=shape)


def _ref_or_none(call: Any) -> Any:
    """The reference's result, or ``None`` where it divides by zero (groups of one score in its
    permutation tests, no pair at all in its tie search): there the harness differs by design."""
    try:
        return call()
    except ZeroDivisionError:
        return None


# ---------------------------------------------------------------------- Kendall variants
@oracle
@settings(max_examples=examples(300), deadline=None)
@given(
    data=scored(),
    grouping=st.sampled_from(GROUPINGS),
    variant=st.sampled_from(VARIANTS),
    epsilon=st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0, 20),
    replace=st.booleans(),
)
def test_kendall_variants_equal_average_correlation(
    mtme, data, grouping, variant, epsilon, replace
) -> None:
    epsilon = 0.0 if variant == "c" else epsilon
    systems = data["shape"][0]
    ref = mtme.stats.AverageCorrelation(
        mtme.stats.KendallVariants,
        systems,
        AVERAGE_BY[grouping],
        replace_nans_with_zeros=replace,
        variant=variant,
        epsilon=epsilon,
    )(data["gold"], data["scores"])
    ours = kendall_variant(
        data["human"],
        data["metric"],
        variant=variant,
        grouping=grouping,
        epsilon=epsilon,
        replace_nans_with_zeros=replace,
    )
    if ours.value is None:
        assert ref == (0, 0, 0)  # mt-metrics-eval's "no group": 0
        assert ours.n_groups == 0
    else:
        assert ours.value == ref[0]
        assert ours.n_groups == ref[2]
    if not replace:
        # The Correlation class's own entry point filters (and skips groups of one score) only
        # when some gold score is missing: a group of one is then undefined, or divides by zero.
        corr = mtme.stats.Correlation(systems, data["gold"], data["scores"])
        via_class = _ref_or_none(
            lambda: corr.KendallVariants(AVERAGE_BY[grouping], variant, epsilon)[0]
        )
        assert via_class is None or (ours.value or 0) == via_class


@oracle
@settings(max_examples=examples(200), deadline=None)
@given(data=scored(max_items=1))
def test_pairwise_accuracy_equals_agreement(mtme, data) -> None:
    ours = pairwise_accuracy([r[0] for r in data["human"]], [r[0] for r in data["metric"]])
    agree, pairs = mtme.stats.Agreement(data["gold"], data["scores"])
    assert (ours.agreements, ours.n_pairs) == (agree, pairs)
    if pairs:
        assert ours.accuracy == agree / pairs
        ref = mtme.stats.AverageCorrelation(mtme.stats.KendallVariants, variant="acc23")
        assert ours.accuracy == ref(data["gold"], data["scores"])[0]
    else:
        assert ours.accuracy is None


def test_pairwise_accuracy_by_hand() -> None:
    """Six pairs: the metric reverses two (2 ↔ 3, 2 ↔ 4) and ties one the humans order."""
    result = pairwise_accuracy([1, 2, 3, 4], [10, 30, 20, 20])
    assert (result.concordant, result.discordant, result.ties_metric) == (3, 2, 1)
    assert result.accuracy == 3 / 6
    tie = pairwise_accuracy([1, 1, None, 2], [5, 5, 9, 7])  # a tie both see agrees
    assert (tie.n_systems, tie.n_pairs, tie.agreements) == (3, 3, 3)


# ---------------------------------------------------------------------- tie calibration
@oracle
@settings(max_examples=examples(250), deadline=None)
@given(
    data=scored(),
    grouping=st.sampled_from(GROUPINGS),
    variant=st.sampled_from(["23", "acc23"]),
    sample_rate=st.sampled_from([1.0, 0.5]) | st.floats(0.1, 1.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_tie_calibration_equals_kendall_with_ties_opt(
    mtme, data, grouping, variant, sample_rate, seed
) -> None:
    np.random.seed(seed)  # the reference samples pairs from numpy's global generator
    ref = _ref_or_none(
        lambda: mtme.stats.KendallWithTiesOpt(
            data["gold"], data["scores"], variant, data["shape"][0], AVERAGE_BY[grouping],
            sample_rate,
        )
    )  # fmt: skip

    def ours() -> Any:
        return tie_calibrated_accuracy(
            data["human"], data["metric"], variant=variant, grouping=grouping,
            sample_rate=sample_rate, seed=seed,
        )  # fmt: skip

    if ref is None:  # no pair to search over
        with pytest.raises(InputError, match="no pair"):
            ours()
        return
    got = ours()
    value, epsilon, result = ref
    assert (got.value, got.epsilon) == (value, epsilon)
    assert list(got.thresholds) == result.thresholds
    assert list(got.values) == result.taus
    assert got.epsilon in got.thresholds and got.value == max(got.values)


def test_tie_calibration_by_hand() -> None:
    """acc_23 on 4 systems: the humans tie the first two; the metric separates them by 2.
    Tying differences ≤ 2 gains that pair and loses none: 5/6 → 6/6."""
    result = tie_calibrated_accuracy([1, 1, 2, 3], [10, 12, 20, 30])
    assert result.values[:2] == (5 / 6, 1.0) and (result.value, result.epsilon) == (1.0, 2.0)
    assert kendall_variant([1, 1, 2, 3], [10, 12, 20, 30], variant="acc23", epsilon=2).value == 1


# ---------------------------------------------------------------------- SPA
@st.composite
def segment_scores(draw: st.DrawFn) -> dict[str, Any]:
    """Systems × segments scores for SPA; whole segments (columns) may lack human scores."""
    data = draw(scored(max_items=8, missing=False))
    systems, items = data["shape"]
    dropped = [i for i in range(items) if items > 1 and draw(st.integers(0, 4)) == 0]
    dropped = dropped[: items - 1]
    for s in range(systems):
        for i in dropped:
            data["human"][s][i] = None
            data["gold"][s * items + i] = None
    return data


@oracle
@settings(max_examples=examples(200), deadline=None)
@given(
    data=segment_scores(),
    permutations=st.integers(1, 80),
    seed=st.sampled_from([4]) | st.integers(0, 2**31 - 1),
)
def test_spa_equals_pairwise_confidence_error(mtme, data, permutations, seed) -> None:
    ours = soft_pairwise_accuracy(
        data["human"], data["metric"], permutations=permutations, seed=seed
    )
    systems = data["shape"][0]
    if seed == 4:  # PairwiseConfidenceError keeps pce.py's default seed
        ref = mtme.stats.PairwiseConfidenceError(
            data["gold"], data["scores"], systems, permutations, filter_nones=True
        )
        assert ours.spa == ref[0]
    keep = [i for i, v in enumerate(data["human"][0]) if v is not None]
    gold = np.array([[row[i] for i in keep] for row in data["human"]], dtype=float)
    metric = np.array([[row[i] for i in keep] for row in data["metric"]], dtype=float)
    p_human = mtme.pce.compute_pairwise_p_values(gold, permutations, seed)
    p_metric = mtme.pce.compute_pairwise_p_values(metric, permutations, seed)
    assert ours.spa == mtme.pce.compute_one_minus_pce(p_human, p_metric)
    for mine, theirs in ((ours.human_p_values, p_human), (ours.metric_p_values, p_metric)):
        for i in range(systems):
            for j in range(systems):
                expected = theirs[i, j] if i < j else None
                assert mine[i][j] == expected


@oracle
@pytest.mark.parametrize("seed", range(cases(5)))
def test_spa_on_large_tied_matrices_equals_reference(mtme, seed) -> None:
    """Hundreds of segments with MQM-like scores (few values, many ties), a tenth unrated.
    pce.py sums in single precision, so a p-value can hinge on the order BLAS adds in, which
    depends on the memory layout of the array it gets: equal only if the same layout reaches
    it (the unrated segments are dropped by fancy indexing here)."""
    rng = np.random.default_rng(seed)
    systems, segments = 8, 400 + 50 * seed
    human = -rng.choice([0, 0, 0, 0.1, 1, 5, 10, 25], size=(systems, segments))
    metric = rng.integers(0, 40, (systems, segments)) * 2.5
    gold = human.astype(object)
    gold[:, rng.random(segments) < 0.1] = None
    ref = mtme.stats.PairwiseConfidenceError(
        list(gold.ravel()), list(metric.ravel()), systems, filter_nones=True
    )
    assert soft_pairwise_accuracy(gold.tolist(), metric).spa == ref[0]


@oracle
def test_spa_refuses_what_the_reference_would_misalign(mtme) -> None:
    """System A lacks a human score for segment 0, system B for segment 1: mt-metrics-eval
    drops both cells and pairs A's segments (1, 2) with B's (0, 2) without a word."""
    gold = [None, 1.0, 2.0, 3.0, None, 1.0]
    metric = [0.5, 1.0, 2.5, 1.5, 2.0, 0.0]
    assert mtme.stats.PairwiseConfidenceError(gold, metric, 2, 10, filter_nones=True)
    with pytest.raises(InputError, match="same segments"):
        soft_pairwise_accuracy([gold[:3], gold[3:]], [metric[:3], metric[3:]])


# ---------------------------------------------------------------------- significance
def _agreement_accuracy(stats: Any) -> Any:
    """The correlation function of ``CompareMetricsWithGlobalAccuracy`` for one language pair."""

    def accuracy(gold: Any, metric: Any) -> tuple[float, int]:
        agree, pairs = stats.Agreement(gold, metric)
        return agree / pairs, pairs

    return accuracy


def _z_scorable(scores: list[float], gold: list[float | None]) -> bool:
    """PERM-BOTH z-scores a metric over the cells with a human score: it must vary there."""
    kept = [v for v, g in zip(scores, gold, strict=True) if g is not None]
    return len(kept) > 0 and np.ptp(kept) > 0 and bool(np.isfinite(sps.zscore(kept)).all())


@st.composite
def metric_pairs(draw: st.DrawFn, **kwargs: Any) -> dict[str, Any]:
    """Scores of two metrics for the same humans; ``metric_b``/``scores_b`` have a number in
    every cell."""
    data = draw(scored(**kwargs))
    shape = data["shape"]
    flat_b = [draw(_VALUE) for _ in range(shape[0] * shape[1])]
    assume(_z_scorable(data["scores"], data["gold"]) and _z_scorable(flat_b, data["gold"]))
    data["metric_b"] = np.reshape(flat_b, shape).tolist()
    data["scores_b"] = flat_b
    return data


_PARAMS = dict(
    resamples=st.integers(1, 40),
    block=st.integers(1, 15),
    seed=st.integers(0, 2**31 - 1),
)


@oracle
@settings(max_examples=examples(250), deadline=None)
@given(
    data=metric_pairs(),
    grouping=st.sampled_from(GROUPINGS),
    variant=st.sampled_from(VARIANTS),
    epsilon=st.sampled_from([0.0, 0.5]),
    replace=st.booleans(),
    **_PARAMS,
)
def test_scores_test_equals_permutation_sig_diff(
    mtme, data, grouping, variant, epsilon, replace, resamples, block, seed
) -> None:
    epsilon = 0.0 if variant == "c" else epsilon
    stats, systems = mtme.stats, data["shape"][0]
    a = stats.Correlation(systems, data["gold"], data["scores"])
    b = stats.Correlation(systems, data["gold"], data["scores_b"])
    params = stats.PermutationSigDiffParams(block_size=block)
    np.random.seed(seed)
    ref = _ref_or_none(
        lambda: stats.PermutationSigDiff(
            a, b, stats.KendallVariants, AVERAGE_BY[grouping], resamples, params, replace,
            variant=variant, epsilon=epsilon,
        )
    )  # fmt: skip
    assume(ref is not None)
    ours = compare_metrics(
        data["human"], data["metric"], data["metric_b"],
        statistic=ComparedStatistic(
            "kendall", grouping=grouping, variant=variant, epsilon=epsilon,
            replace_nans_with_zeros=replace,
        ),
        test=PermutationTest(resamples=resamples, seed=seed, block_size=block),
    )  # fmt: skip
    assert (ours.p_value, ours.delta, ours.resamples_used) == tuple(ref[:3])


@oracle
@settings(max_examples=examples(150), deadline=None)
@given(data=metric_pairs(max_items=1), **_PARAMS)
def test_pairwise_accuracy_test_equals_global_accuracy_test(
    mtme, data, resamples, block, seed
) -> None:
    stats, systems = mtme.stats, data["shape"][0]
    a = stats.Correlation(systems, data["gold"], data["scores"])
    b = stats.Correlation(systems, data["gold"], data["scores_b"])
    params = stats.PermutationSigDiffParams(block_size=block)
    np.random.seed(seed)
    ref = stats.PermutationSigDiff(a, b, _agreement_accuracy(stats), "none", resamples, params)
    ours = compare_metrics(
        data["human"], data["metric"], data["metric_b"],
        test=PermutationTest(resamples=resamples, seed=seed, block_size=block),
    )  # fmt: skip
    assert (ours.p_value, ours.delta, ours.resamples_used) == tuple(ref[:3])


@oracle
@settings(max_examples=examples(120), deadline=None)
@given(
    data=metric_pairs(max_items=5),
    grouping=st.sampled_from(GROUPINGS),
    variant=st.sampled_from(["23", "acc23"]),
    sample_rate=st.sampled_from([1.0, 0.6]),
    **_PARAMS,
)
def test_tie_calibrated_scores_test_equals_permutation_sig_diff(
    mtme, data, grouping, variant, sample_rate, resamples, block, seed
) -> None:
    """The search runs on every permuted vector, its pair sampling drawing from the same
    generator as the permutations, interleaved."""
    stats, systems = mtme.stats, data["shape"][0]
    a = stats.Correlation(systems, data["gold"], data["scores"])
    b = stats.Correlation(systems, data["gold"], data["scores_b"])
    params = stats.PermutationSigDiffParams(block_size=block)
    np.random.seed(seed)
    ref = _ref_or_none(
        lambda: stats.PermutationSigDiff(
            a, b, stats.KendallWithTiesOpt, AVERAGE_BY[grouping], resamples, params,
            variant=variant, sample_rate=sample_rate,
        )
    )  # fmt: skip
    metric_a = np.reshape(data["scores"], data["shape"]).tolist()  # every cell is z-scored

    def ours() -> Any:
        return compare_metrics(
            data["human"], metric_a, data["metric_b"],
            statistic=ComparedStatistic(
                "tie_calibrated", grouping=grouping, variant=variant, sample_rate=sample_rate,
            ),
            test=PermutationTest(resamples=resamples, seed=seed, block_size=block),
        )  # fmt: skip

    if ref is None:  # a search with no pair (a sample drew none): at the same permutation
        with pytest.raises(InputError, match="no pair"):
            ours()
        return
    got = ours()
    assert (got.p_value, got.delta, got.resamples_used) == tuple(ref[:3])


@oracle
@settings(max_examples=examples(150), deadline=None)
@given(
    data=metric_pairs(max_items=5),
    grouping=st.sampled_from(GROUPINGS),
    statistic=st.sampled_from(["kendall", "tie_calibrated"]),
    variant=st.sampled_from(["b", "23", "acc23"]),
    epsilon=st.sampled_from([0.0, 0.5]),
    sample_rate=st.sampled_from([1.0, 0.6]),
    replace=st.booleans(),
    **_PARAMS,
)
def test_pairs_test_equals_pairwise_permutation_sig_diff(
    mtme, data, grouping, statistic, variant, epsilon, sample_rate, replace, resamples, block,
    seed,
) -> None:  # fmt: skip
    if statistic == "tie_calibrated" and variant == "b":
        variant = "acc23"
    stats, systems = mtme.stats, data["shape"][0]
    a = stats.Correlation(systems, data["gold"], data["scores"])
    b = stats.Correlation(systems, data["gold"], data["scores_b"])
    params = stats.PermutationSigDiffParams(block_size=block)
    fixed = epsilon if statistic == "kendall" else None
    np.random.seed(seed)
    ref = _ref_or_none(
        lambda: stats.PairwisePermutationSigDiff(
            a, b, variant, AVERAGE_BY[grouping], resamples, params, fixed, fixed, sample_rate,
            replace,
        )
    )  # fmt: skip
    assume(ref is not None)
    ours = compare_metrics(
        data["human"], data["metric"], data["metric_b"],
        statistic=ComparedStatistic(
            statistic, grouping=grouping, variant=variant, epsilon=epsilon,
            sample_rate=sample_rate, replace_nans_with_zeros=replace,
        ),
        test=PermutationTest(test="pairs", resamples=resamples, seed=seed, block_size=block),
    )  # fmt: skip
    assert (ours.p_value, ours.delta, ours.resamples_used) == tuple(ref[:3])


@oracle
@settings(max_examples=examples(100), deadline=None)
@given(data=segment_scores(), permutations=st.integers(1, 30), **_PARAMS)
def test_spa_test_equals_pce_comparison(mtme, data, permutations, resamples, block, seed) -> None:
    """What ``CompareMetricsWithPairwiseConfidenceError`` runs: ``PermutationSigDiff`` over
    ``PairwiseConfidenceError``."""
    stats, systems = mtme.stats, data["shape"][0]
    other = np.random.default_rng(seed).permutation(data["scores"]) + 0.25
    assume(_z_scorable(data["scores"], data["gold"]) and _z_scorable(list(other), data["gold"]))
    a = stats.Correlation(systems, data["gold"], data["scores"])
    b = stats.Correlation(systems, data["gold"], list(other))
    spa = functools.partial(
        stats.PairwiseConfidenceError, num_sys=systems, num_permutations=permutations,
        filter_nones=a.none_count > 0,
    )  # fmt: skip
    params = stats.PermutationSigDiffParams(block_size=block)
    np.random.seed(seed)
    ref = stats.PermutationSigDiff(a, b, spa, "none", resamples, params)
    ours = compare_metrics(
        data["human"], data["metric"], other.reshape(data["shape"]),
        statistic=ComparedStatistic("spa", permutations=permutations),
        test=PermutationTest(resamples=resamples, seed=seed, block_size=block),
    )  # fmt: skip
    assert (ours.p_value, ours.delta, ours.resamples_used) == tuple(ref[:3])


# ---------------------------------------------------------------------- refusals and JSON
@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: kendall_variant([1, 2], [1, 2], variant="a"), ConfigError),
        (lambda: kendall_variant([1, 2], [1, 2], grouping="sys"), ConfigError),
        (lambda: kendall_variant([1, 2], [1, 2], variant="c", epsilon=0.1), ConfigError),
        (lambda: kendall_variant([1, 2], [1, 2], epsilon=-1), ConfigError),
        (lambda: kendall_variant([1, 2], [1, None]), InputError),
        (lambda: kendall_variant([1, 2], [1, "x"]), InputError),
        (lambda: kendall_variant([1, 2], [1, math.inf]), InputError),
        (lambda: kendall_variant([1, 2], [1, 2, 3]), LayoutError),
        (lambda: pairwise_accuracy([[1, 2], [3, 4]], [[1, 2], [3, 4]]), LayoutError),
        (lambda: tie_calibrated_accuracy([1, 2], [1, 2], sample_rate=0.5), ConfigError),
        (lambda: tie_calibrated_accuracy([1, 2], [1, 2], variant="b"), ConfigError),
        (lambda: tie_calibrated_accuracy([1, None], [1, 2]), InputError),
        (lambda: soft_pairwise_accuracy([[1, 2]], [[1, 2]]), LayoutError),
        (lambda: soft_pairwise_accuracy([[1, 2], [3, 4]], [[1, 2], [3, 4]], permutations=0),
         ConfigError),
        (lambda: compare_metrics([1, 2, 3], [1, 2, 3], [3, 1, 2],
                                 statistic=ComparedStatistic("x")), ConfigError),
        (lambda: compare_metrics([1, 2, 3], [1, 2, 3], [3, 1, 2], test=PermutationTest(test="pairs"),
                                 statistic=ComparedStatistic("kendall", variant="c")),
         ConfigError),
        (lambda: compare_metrics([1, 2, 3], [1, 1, 1], [3, 1, 2]), InputError),
        (lambda: compare_metrics([1, 2, 3], [1, 2, 3], [3, 1, 2],
                                 test=PermutationTest(resamples=0)), ConfigError),
    ],
)  # fmt: skip
def test_refusals(call, error) -> None:
    with pytest.raises(error):
        call()


def test_results_are_json_ready() -> None:
    """Undefined values are ``None`` (a constant metric has no τ-b), never NaN."""
    human, metric = [[1, 2, 3], [2, 2, 1]], [[5, 5, 5], [5, 5, 5]]
    tau = kendall_variant(human, metric, variant="b", grouping="item")
    assert tau.value is None and tau.n_groups_undefined == 3
    results = [
        tau,
        pairwise_accuracy([1, 2, 3], [3, 2, 1]),
        tie_calibrated_accuracy(human, metric, grouping="item"),
        soft_pairwise_accuracy(human, metric, permutations=10),
        compare_metrics(
            [1, 2, 3, 4], [1, 2, 4, 3], [4, 3, 2, 1], test=PermutationTest(resamples=20)
        ),
    ]
    for result in results:
        json.dumps(to_json(result), allow_nan=False)
    calibrated = to_json(results[2])  # the curve stays in memory
    assert "thresholds" not in calibrated
    assert calibrated["n_candidates"] == len(results[2].thresholds) > 0


# ---------------------------------------------------------------------- WMT21 en→de MQM
REAL_PROFILES = ("sacrebleu", "nltk", "sacrebleu-sentence")


@pytest.fixture(scope="module")
def wmt21(data_dir) -> Any:
    from harness.analysis.human import wmt21_human_correlations
    from harness.session import Session

    human = wmt21_human_correlations(
        data_dir, REAL_PROFILES, bootstrap=NO_INTERVALS, session=Session()
    )
    return human, meta_evaluate(human, options=MetaEvalOptions(resamples=40, block_size=1000))


def _vectors(human: Any, name: str) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """System-level and flat segment-level (system after system) vectors, built here from the
    correlations' own keys."""
    systems = human.systems
    seg_ids = sorted({seg for _, seg in human.segment_keys}, key=int)
    index = {key: k for k, key in enumerate(human.segment_keys)}
    gold, metric = [], []
    for s in systems:
        for seg in seg_ids:
            k = index.get((s, seg))
            gold.append(None if k is None else human.human_segment[k])
            metric.append(0.0 if k is None else human.segment_scores[name][k])
    sys_gold = [human.human_system[s] for s in systems]
    sys_metric = [human.system_scores[name][s] for s in systems]
    return sys_gold, sys_metric, gold, metric


@oracle
@pytest.mark.realdata
@pytest.mark.parametrize("name", REAL_PROFILES)
def test_wmt21_statistics_equal_mt_metrics_eval(mtme, wmt21, name) -> None:
    human, meta = wmt21
    stats = mtme.stats
    result = meta.implementations[name]
    assert result.reason is None and meta.systems == human.systems and len(meta.systems) == 8
    sys_gold, sys_metric, gold, metric = _vectors(human, name)
    assert len(gold) == 8 * 527 and None not in gold  # every system rated on the same segments
    system = stats.Correlation(8, sys_gold, sys_metric)
    segment = stats.Correlation(8, gold, metric)
    agree, pairs = stats.Agreement(sys_gold, sys_metric)
    assert result.pairwise_accuracy.accuracy == agree / pairs and pairs == 28
    # (the Correlation class returns the value, not ε: ask the function for both)
    value, epsilon, _ = stats.KendallWithTiesOpt(sys_gold, sys_metric, "acc23", 8, "none", 1.0)
    assert (result.tie_calibrated.value, result.tie_calibrated.epsilon) == (value, epsilon)
    assert value == system.KendallWithTiesOpt("none", "acc23", sample_rate=1.0)[0]
    assert result.spa.spa == segment.PairwiseConfidenceError()[0]
    value, epsilon, _ = stats.KendallWithTiesOpt(gold, metric, "acc23", 8, "item", 1.0)
    seg_tie = result.segment_tie_calibrated
    assert (seg_tie.value, seg_tie.epsilon, seg_tie.n_groups) == (value, epsilon, 527)
    assert value == segment.KendallWithTiesOpt("item", "acc23", sample_rate=1.0)[0]
    for variant in VARIANTS:
        assert result.system_kendall[variant].value == system.KendallVariants("none", variant)[0]
        by_item = segment.KendallVariants("item", variant)
        assert result.segment_kendall[variant].value == by_item[0]
        assert result.segment_kendall[variant].n_groups == by_item[2]
    json.dumps(to_json(meta), allow_nan=False)


@oracle
@pytest.mark.realdata
def test_wmt21_comparisons_equal_mt_metrics_eval(mtme, wmt21) -> None:
    """Each of meta_evaluate's permutation tests (40 resamples) is mt-metrics-eval's test of the
    better implementation against the other, as its ComputeSigMatrix orders them."""
    human, meta = wmt21
    stats = mtme.stats
    params = stats.PermutationSigDiffParams(block_size=1000)
    assert len(meta.comparisons) == 3 * 3
    for row in meta.comparisons:
        assert (-row.value_better, row.better) < (-row.value_worse, row.worse)
        worse, better = _vectors(human, row.worse), _vectors(human, row.better)
        np.random.seed(0)
        if row.statistic == "pairwise_accuracy":
            ref = stats.PermutationSigDiff(
                stats.Correlation(8, worse[0], worse[1]),
                stats.Correlation(8, better[0], better[1]),
                _agreement_accuracy(stats), "none", 40, params,
            )  # fmt: skip
        elif row.statistic == "spa":
            spa = functools.partial(stats.PairwiseConfidenceError, num_sys=8)
            ref = stats.PermutationSigDiff(
                stats.Correlation(8, worse[2], worse[3]),
                stats.Correlation(8, better[2], better[3]), spa, "none", 40, params,
            )  # fmt: skip
        else:
            ref = stats.PairwisePermutationSigDiff(
                stats.Correlation(8, worse[2], worse[3]),
                stats.Correlation(8, better[2], better[3]), "acc23", "item", 40, params,
            )  # fmt: skip
        test = row.comparison
        assert (test.p_value, test.delta, test.resamples_used) == tuple(ref[:3]), row.statistic
        assert row.significant == (row.p_value <= row.alpha)
