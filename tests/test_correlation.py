"""Correlations (harness.statistics.correlation): scipy is the golden for every coefficient.

Point estimates and p-values must equal scipy's; the vectorised bootstrap must equal scipy run
on each resample; intervals must be reproducible from the recorded seed.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from harness.analysis.pivot import from_results
from harness.errors import ConfigError, LayoutError
from harness.statistics import boot_kernels, boot_matrix
from harness.statistics.correlation import (
    KENDALL_FULL_BOOT_MAX,
    KENDALL_VECTOR_MAX,
    METHODS,
    correlate,
)
from harness.statistics.correlation_cells import correlate_each, correlation_matrix
from harness.typed_json import to_json

from .depth import examples

SCIPY = {
    "pearson": sps.pearsonr,
    "spearman": sps.spearmanr,
    "kendall": lambda a, b: sps.kendalltau(a, b, variant="b"),
}


def _correlated(n: int, seed: int, rho: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, rho * x + math.sqrt(1 - rho**2) * rng.normal(size=n)


# ---------------------------------------------------------------------------- point estimates
@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
            st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
        ),
        min_size=3,
        max_size=40,
    )
)
def test_point_estimates_equal_scipy(pairs) -> None:
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    c = correlate(x, y, n_boot=0)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert c.reason is not None and all(c[m].value is None for m in METHODS)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in METHODS:
            ref = SCIPY[m](x, y)
            if math.isfinite(ref.statistic):
                assert c[m].value == pytest.approx(ref.statistic, abs=1e-12)
                assert c[m].p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert c.n == len(pairs) and c.n_dropped == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeded_random_data_equals_scipy_with_ties(seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 7, 150).astype(float)  # many ties: Spearman average ranks, tau-b
    y = x + rng.integers(0, 5, 150)
    c = correlate(x, y, n_boot=50, seed=seed)
    for m in METHODS:
        ref = SCIPY[m](x, y)
        assert c[m].value == pytest.approx(ref.statistic, abs=1e-12)
        assert c[m].p_value == pytest.approx(ref.pvalue, rel=1e-9)


# ---------------------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("n", [2, 5, 30, 200])
@pytest.mark.parametrize("ties", [True, False])
def test_vectorised_bootstrap_equals_scipy_per_resample(n, ties) -> None:
    """The count-weighted Pearson, the cumulative-count ranks (Spearman) and the vectorised
    tau-b give exactly what scipy gives on each gathered resample."""
    rng = np.random.default_rng(n)
    if ties:
        x = rng.integers(0, 6, n).astype(float)
        y = x + rng.integers(0, 4, n)
    else:
        x, y = _correlated(n, n)
        x = x * 100 + 50  # a BLEU-like scale
    idx = rng.integers(0, n, size=(120, n))
    got = boot_kernels.boot_values(x, y, idx, dict.fromkeys(METHODS, 120), KENDALL_VECTOR_MAX)
    for m in METHODS:
        want = np.array(
            [
                SCIPY[m](x[r], y[r]).statistic if np.ptp(x[r]) and np.ptp(y[r]) else np.nan
                for r in idx
            ]
        )
        assert np.array_equal(np.isnan(got[m]), np.isnan(want)), m
        ok = ~np.isnan(want)
        assert np.allclose(got[m][ok], want[ok], atol=1e-9, rtol=0), m


@settings(max_examples=examples(80), deadline=None)
@given(n=st.integers(65, 400), values=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_resample_tau_b_equals_scipy_bit_for_bit(n, values, seed) -> None:
    """harness.statistics.boot_kernels.boot_tau_b (draw counts, blocks of ranks) gives the very
    float scipy's kendalltau gives on each gathered resample, ties and constant resamples
    included."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, values, n).astype(float) * 7.5
    y = np.where(rng.random(n) < 0.5, x, rng.integers(0, values + 3, n)) + 0.25
    idx = rng.integers(0, n, size=(25, n))
    idx[0] = idx[0, 0]  # one resample draws a single item: undefined
    got = boot_kernels.boot_tau_b(x, y, idx)
    want = np.array(
        [
            sps.kendalltau(x[r], y[r], variant="b").statistic
            if np.ptp(x[r]) and np.ptp(y[r])
            else np.nan
            for r in idx
        ]
    )
    assert np.isnan(got[0])
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("ties", [True, False])
def test_pearson_of_all_pairs_equals_the_cell_by_cell_bootstrap(ties) -> None:
    """The matrix kernel (one count matrix, matrix products) gives each pair's resample r as
    the per-cell kernel does, constant resamples NaN in both; and scipy on the resample."""
    rng = np.random.default_rng(9)
    n = 90
    vecs = [rng.integers(0, 4, n).astype(float) if ties else rng.normal(size=n) * 30 + 40]
    vecs += [vecs[0] + rng.normal(size=n), rng.gamma(2.0, 10.0, n), -vecs[0]]
    idx = rng.integers(0, n, size=(60, n))
    idx[3] = idx[3, 0]  # a constant resample
    pairs = [(i, j) for i in range(4) for j in range(i, 4)]
    got = boot_matrix.boot_pearson_pairs(vecs, pairs, idx)
    for (i, j), row in zip(pairs, got, strict=True):
        cell = boot_kernels.boot_values(vecs[i], vecs[j], idx, {"pearson": 60}, 64)["pearson"]
        assert np.array_equal(np.isnan(row), np.isnan(cell)) and np.isnan(row[3])
        ok = ~np.isnan(cell)
        assert np.allclose(row[ok], cell[ok], atol=1e-12, rtol=0)
        want = [sps.pearsonr(vecs[i][r], vecs[j][r]).statistic for r in idx[ok]]
        assert np.allclose(row[ok], want, atol=1e-9, rtol=0)


@pytest.mark.parametrize("ties", [True, False])
def test_cells_together_equal_each_cell_to_the_last_bit(ties) -> None:
    """Pearson and Spearman of many pairs on shared counts, ties and ranks give every pair's
    resample values bit for bit as the per-cell kernel does (a constant resample NaN)."""
    rng = np.random.default_rng(12)
    n = 300
    base = rng.integers(0, 5, n).astype(float) if ties else rng.normal(size=n)
    vecs = [base, base + rng.normal(size=n), np.round(rng.gamma(2.0, 10.0, n)), -base]
    idx = rng.integers(0, n, size=(70, n))
    idx[5] = idx[5, 0]
    pairs = [(i, j) for i in range(4) for j in range(i, 4)]
    for method, kernel in (
        ("pearson", boot_matrix.boot_pearson_cells),
        ("spearman", boot_matrix.boot_spearman_pairs),
    ):
        got = kernel(vecs, pairs, idx)
        for (i, j), row in zip(pairs, got, strict=True):
            cell = boot_kernels.boot_values(vecs[i], vecs[j], idx, {method: 70}, 64)[method]
            assert np.array_equal(row, cell, equal_nan=True), (method, i, j)
            assert np.isnan(row[5])


def test_matrix_cells_with_missing_values_equal_correlate_alone() -> None:
    """Vectors with missing values in different places (a library run on a sample of the
    segments beside complete profiles): every Pearson and Spearman cell is to the last bit
    what correlate gives for its pair alone."""
    rng = np.random.default_rng(13)
    n = 400
    x = rng.normal(size=n)
    sample = rng.random(n) < 0.3
    scores = {
        "x": x,
        "y": np.round(x + rng.normal(size=n), 1),
        "lib": np.where(sample, x + rng.normal(0, 0.1, n), np.nan),
        "lib2": np.where(sample, np.round(x, 0), np.nan),
        "other": np.where(rng.random(n) < 0.5, x, np.nan),
    }
    for method in ("pearson", "spearman"):
        m = correlation_matrix(scores, method, n_boot=80, seed=3)
        names = list(scores)
        for i, a in enumerate(names):
            for b in names[i:]:
                if not (np.isnan(scores[a]).any() or np.isnan(scores[b]).any()):
                    continue  # complete pairs: the matrix-product kernel, within 1e-12
                alone = correlate(scores[a], scores[b], n_boot=80, seed=3, methods=(method,))
                assert to_json(m.cells[a][b]) == to_json(alone), (method, a, b)


def test_matrix_computes_equal_vectors_once_with_the_same_cells() -> None:
    """Equal vectors (a profile and the library it reproduces) share their cells, and every
    cell is what correlate gives for that pair alone."""
    x, y = _correlated(120, 4)
    scores = {"a": x, "b": list(x), "c": y}
    for method in ("kendall", "pearson"):
        m = correlation_matrix(scores, method, n_boot=100, seed=2)
        for p in scores:
            for q in scores:
                alone = correlate(scores[p], scores[q], n_boot=100, seed=2, methods=(method,))
                got, want = m.cells[p][q][method], alone[method]
                assert (got.value, got.p_value, got.n_boot) == (want.value, want.p_value, 100)
                assert got.ci_low == pytest.approx(want.ci_low, abs=1e-12)
                assert got.ci_high == pytest.approx(want.ci_high, abs=1e-12)
        assert m.cells["a"]["c"] is m.cells["b"]["c"]


def test_bootstrap_ci_contains_estimate_and_is_reproducible() -> None:
    x, y = _correlated(60, 7)
    a = correlate(x, y, n_boot=500, seed=11)
    b = correlate(x, y, n_boot=500, seed=11)
    c = correlate(x, y, n_boot=500, seed=12)
    assert to_json(a) == to_json(b)
    assert a.seed == 11 and to_json(a)["seed"] == 11
    for m in METHODS:
        e = a[m]
        assert e.ci_low < e.value < e.ci_high
        assert e.n_boot == 500 and e.n_boot_undefined == 0
        assert (e.ci_low, e.ci_high) != (c[m].ci_low, c[m].ci_high)


def test_bootstrap_interval_covers_the_truth_typically() -> None:
    """Over 40 seeded samples with true rho = 0.6, the 90% Pearson interval covers 0.6 in most
    of them (a loose check that the interval is an interval for the right thing)."""
    covered = 0
    for seed in range(40):
        x, y = _correlated(80, 100 + seed, rho=0.6)
        e = correlate(x, y, n_boot=300, seed=seed, confidence=0.9, methods=("pearson",)).pearson
        covered += e.ci_low <= 0.6 <= e.ci_high
    assert covered >= 30


def test_long_vectors_give_kendall_the_asymptotic_interval() -> None:
    x, y = _correlated(1500, 3)
    c = correlate(x, y, n_boot=300, seed=0)
    assert c.pearson.n_boot == c.spearman.n_boot == 300
    assert c.pearson.interval == c.spearman.interval == "bootstrap"
    assert c.kendall.n_boot == 0 and c.kendall.interval == "asymptotic"
    assert c.kendall.ci_low < c.kendall.value < c.kendall.ci_high
    c2 = correlate(x, y, n_boot=300, seed=0, n_boot_kendall=20, methods=("kendall",))
    assert c2.kendall.n_boot == 20 and c2.kendall.interval == "bootstrap"
    assert c2.kendall.ci_low < c2.kendall.value < c2.kendall.ci_high
    short = correlate(x[:KENDALL_FULL_BOOT_MAX], y[:KENDALL_FULL_BOOT_MAX], n_boot=30, seed=0)
    assert short.kendall.interval == "bootstrap" and short.kendall.n_boot == 30


def test_no_bootstrap() -> None:
    c = correlate([1, 2, 3, 5], [1, 3, 2, 6], n_boot=0)
    assert c.pearson.ci_low is None and c.pearson.ci_high is None and c.pearson.n_boot == 0


# ---------------------------------------------------------------------------- missing and degenerate
def test_nan_none_inf_pairs_are_dropped_and_counted() -> None:
    x = [1.0, None, 3.0, 4.0, float("nan"), 6.0, 7.0, 2.0]
    y = [2.0, 5.0, 1.0, float("inf"), 3.0, 7.0, 6.0, 2.5]
    c = correlate(x, y, n_boot=100, seed=4)
    keep = [0, 2, 5, 6, 7]
    clean = correlate([x[i] for i in keep], [y[i] for i in keep], n_boot=100, seed=4)
    assert c.n == 5 and c.n_dropped == 3
    assert to_json(c) | {"n_dropped": 0} == to_json(clean)


def test_constant_input_gives_none_with_reason_and_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = correlate([1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0])
        short = correlate([1.0, None], [2.0, 3.0])
    assert c.reason == "y is constant (every value is 5.0)"
    assert all(c[m].value is None and c[m].p_value is None for m in METHODS)
    assert short.reason.startswith("fewer than 2 complete pairs") and short.n == 1
    json.dumps(to_json(c), allow_nan=False)


def test_resamples_that_are_constant_are_counted_not_warned() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = correlate([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], n_boot=400, seed=0)
    # a resample of 3 draws is constant with probability 3/27
    assert 0 < c.pearson.n_boot_undefined < 100
    assert c.pearson.n_boot_undefined == c.spearman.n_boot_undefined


def test_bad_arguments_raise() -> None:
    with pytest.raises(LayoutError):
        correlate([1, 2, 3], [1, 2])
    with pytest.raises(LayoutError):
        correlate([1, "x", 3], [1, 2, 3])
    with pytest.raises(ConfigError):
        correlate([1, 2, 3], [1, 2, 3], confidence=1.0)
    with pytest.raises(ConfigError):
        correlate([1, 2, 3], [1, 2, 3], n_boot=-1)
    with pytest.raises(ConfigError):
        correlate([1, 2, 3], [1, 2, 3], methods=("pearson", "cosine"))


def test_json_is_ready() -> None:
    x, y = _correlated(20, 5)
    d = to_json(correlate(x, y, n_boot=100, seed=3))
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["pearson"]["value"] == pytest.approx(sps.pearsonr(x, y).statistic)
    assert d["seed"] == 3 and d["ci"] == 0.95 and d["n_boot"] == 100


# ---------------------------------------------------------------------------- matrix
def test_correlation_matrix_equals_scipy_pairwise() -> None:
    rng = np.random.default_rng(9)
    base = rng.normal(size=30)
    scores = {
        "a": base,
        "b": base + rng.normal(size=30),
        "c": list(-base + rng.normal(size=30)),
        "flat": [1.0] * 30,
    }
    scores["c"][4] = None
    m = correlation_matrix(scores, "spearman")
    values, names = m
    assert names == ["a", "b", "c", "flat"]
    assert values["a"]["a"] == pytest.approx(1.0)
    assert values["flat"]["flat"] is None and values["a"]["flat"] is None
    for p, q in [("a", "b"), ("a", "c"), ("b", "c")]:
        keep = [i for i in range(30) if scores[p][i] is not None and scores[q][i] is not None]
        want = sps.spearmanr([scores[p][i] for i in keep], [scores[q][i] for i in keep])
        assert values[p][q] == values[q][p] == pytest.approx(want.statistic, abs=1e-12)
    assert m.n["a"]["c"] == 29 and m.n["a"]["b"] == 30
    json.dumps(to_json(m), allow_nan=False)
    with pytest.raises(LayoutError):
        correlation_matrix({"a": [1, 2], "b": [1, 2, 3]})
    with pytest.raises(ConfigError):
        correlation_matrix({"a": [1, 2]}, method=("pearson", "kendall"))


def test_correlation_matrix_with_bootstrap_records_seed() -> None:
    x, y = _correlated(25, 1)
    d = to_json(correlation_matrix({"x": x, "y": y}, "kendall", n_boot=200, seed=5))
    assert d["seed"] == 5 and d["n_boot"] == 200
    assert d["ci_low"]["x"]["y"] < d["values"]["x"]["y"] < d["ci_high"]["x"]["y"]


# ---------------------------------------------------------------------------- runner rows
def _row(impl, system, seg, score, status="ok", level="segment", error=""):
    from harness.run.results import Kind, Level, ResultRow, Status

    return ResultRow(
        fixture="fx",
        system=system,
        implementation=impl,
        kind=Kind.PROFILE,
        config=impl,
        level=Level(level),
        segment_id=seg,
        status=Status(status),
        score=score,
        bp=None,
        ratio=None,
        hyp_len=None,
        ref_len=None,
        counts=None,
        totals=None,
        signature=None,
        error=error,
        call=None,
        module_source=None,
    )


def test_from_results_pivots_aligns_and_reports_skips() -> None:
    rows = [
        _row("A", "s1", "2", 20.0),
        _row("A", "s1", "10", 30.0),
        _row("A", "s1", "1", 10.0),
        _row("B", "s1", "1", 11.0),
        _row("B", "s1", "10", 29.0),
        _row("C", "s1", None, None, status="raises", error="ZeroDivisionError"),
        _row("B", "s1", None, None, status="raises", error="boom"),
        _row("A", "s1", None, 55.0, level="corpus"),
    ]
    p = from_results(rows, level="segment")
    assert p.keys == (("fx", "s1", "1"), ("fx", "s1", "2"), ("fx", "s1", "10"))
    assert p.scores == {"A": (10.0, 20.0, 30.0), "B": (11.0, None, 29.0)}
    assert {(s["implementation"], s["status"], s["rows"]) for s in p.skipped} == {
        ("C", "raises", 1),
        ("B", "raises", 1),
    }
    assert p.n_skipped == 2
    json.dumps(to_json(p), allow_nan=False)
    c = correlate(p.scores["A"], p.scores["B"], n_boot=0)
    assert c.n == 2 and c.n_dropped == 1
    corpus = from_results(rows, level="corpus")
    assert corpus.keys == (("fx", "s1", None),) and corpus.scores == {"A": (55.0,)}


def test_from_results_by_columns_as_row_by_row() -> None:
    """The pivot of the ok rows grouped by implementation (the fast path) is the row-by-row
    pivot: keys, each vector, the implementations' order and the skipped rows, on rows out of
    order, a library on a sample of the segments, errors, a non-finite score, an ok row that
    names no segment and ids that are not numbers."""
    from harness.analysis import pivot
    from harness.run.results import Results

    rows = [
        _row("B", "s2", "3", 1.5),
        _row("A", "s1", "2", 20.0),
        _row("A", "s1", "10", 30.0),
        _row("A", "s2", "x", 7.0),
        _row("A", "s1", "1", float("nan")),
        _row("C", "s1", None, None, status="raises", error="ZeroDivisionError"),
        _row("B", "s1", "10", 29.0),
        _row("A", "s2", "3", 3.0),
        _row("D", "s1", None, 4.0),
        _row("C", "s1", "2", None, status="raises", error="second"),
        _row("A", "s1", None, 55.0, level="corpus"),
        _row("B", "s1", None, 54.0, level="corpus"),
    ]
    table = Results.from_rows(rows)
    for level in ("segment", "corpus"):
        at = np.flatnonzero(table.column("level") == level)
        fast = pivot._pivot_columns(table, at, level)
        assert fast is not None
        slow = pivot._pivot_rows(table, at, level)
        assert fast == slow and list(fast.scores) == list(slow.scores)
    assert list(fast.scores) == ["A", "B"]
    twice = Results.from_rows([_row("A", "s", "1", 1.0), _row("A", "s", "1", 2.0)])
    assert pivot._pivot_columns(twice, np.arange(2), "segment") is None


def test_from_results_rejects_duplicates_and_unknown_level() -> None:
    with pytest.raises(LayoutError):
        from_results([_row("A", "s", "1", 1.0), _row("A", "s", "1", 2.0)])
    with pytest.raises(ConfigError):
        from_results([], level="document")


def test_from_results_on_a_real_run() -> None:
    from harness.data.fixtures import load_fixture
    from harness.run import RunPlan, run
    from harness.run.runner import Implementation

    fx = load_fixture("edge_case_differences")
    corpora = fx.triples()
    impls = [Implementation("profile", p) for p in ("sacrebleu", "nltk", "evaluate")]
    rows = run(RunPlan.of(corpora, impls, levels=("segment",)))
    p = from_results(rows)
    ok = [r for r in rows if r.status == "ok"]
    assert sum(v is not None for vec in p.scores.values() for v in vec) == len(ok)
    assert p.n_skipped == len(rows) - len(ok)
    m = correlation_matrix(p.scores, "pearson")
    assert set(m.names) <= {"harness:sacrebleu", "harness:nltk", "harness:evaluate"}


@pytest.mark.parametrize("n", [KENDALL_VECTOR_MAX - 10, 300, KENDALL_FULL_BOOT_MAX + 40])
def test_correlate_each_is_correlate_of_each(n) -> None:
    """Every name's correlation with the shared vector, computed together, is to the last
    bit what correlate gives it alone: missing values, ties, a copy, a constant vector, and
    with a Kendall bootstrap asked for."""
    rng = np.random.default_rng(n)
    human = np.round(rng.normal(size=n), 1)
    human[3] = np.nan
    xs = {
        "a": human + rng.normal(size=n),
        "copy": human + 0.0,
        "ties": np.round(human * 2, 0),
        "holes": np.where(rng.random(n) < 0.2, np.nan, human + rng.normal(0, 2, n)),
        "flat": np.ones(n),
    }
    xs["same"] = xs["a"].copy()
    for kendall in (None, 25):
        got = correlate_each(xs, human, n_boot=60, seed=4, n_boot_kendall=kendall)
        assert list(got) == list(xs)
        for name, x in xs.items():
            alone = correlate(x, human, n_boot=60, seed=4, n_boot_kendall=kendall)
            assert to_json(got[name]) == to_json(alone), (name, kendall)
    with pytest.raises(LayoutError):
        correlate_each({"short": human[:-1]}, human)
