"""Kendall τ-b's asymptotic interval (harness.statistics.kendall_interval).

Its counts are checked against the definition itself (sums over every pair of items, O(n²));
its τ-b against scipy's ``kendalltau``; its standard error against the spread of scipy's τ-b over
bootstrap resamples of the same data, and its interval's coverage against the known τ of a
bivariate normal population (τ = 2·arcsin(ρ)/π) — a wrong factor in the delta method fails
both by far.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from harness.statistics import kendall_interval as ki

from .depth import examples

_SEQ = st.lists(st.integers(0, 6), min_size=1, max_size=700)


def _dense(v: np.ndarray) -> np.ndarray:
    return np.unique(v, return_inverse=True)[1]


def _pairs_before(seq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.arange(seq.shape[0])
    earlier = p[None, :] < p[:, None]
    less = ((seq[None, :] < seq[:, None]) & earlier).sum(axis=1)
    equal = ((seq[None, :] == seq[:, None]) & earlier).sum(axis=1)
    return less, equal


@settings(max_examples=examples(300), deadline=None)
@given(_SEQ, st.integers(1, 400))
def test_before_counts_are_the_pairs_they_count(values: list[int], spread: int) -> None:
    """Every way of counting (the compiled kernel; in numpy, runs with a table, of either
    length, and halving) gives the definition's counts, sequences of several runs and
    tie-heavy sequences included."""
    seq = _dense(np.array(values) * spread + np.arange(len(values)) % spread)
    want = _pairs_before(seq)
    m = int(seq.max()) + 1
    ways = {
        "runs": ki._before_by_runs,
        "long runs": lambda seq, m: ki._before_by_runs(seq, m, 2 * ki.RUN),
        "short runs": lambda seq, m: ki._before_by_runs(seq, m, 3),
        "halves": ki._before_by_halves,
    }
    if ki.KERNEL is not None or os.environ.get("CI", "").lower() == "true":
        ways["kernel"] = _kernel_counts
    for name, how in ways.items():
        less, equal = how(seq, m)
        assert (less == want[0]).all() and (equal == want[1]).all(), name


def _kernel_counts(seq: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    kernel = _built_kernel()
    less, equal = kernel.before_counts(np.asarray(seq, np.int64).tobytes(), m)
    return np.frombuffer(less, np.int64), np.frombuffer(equal, np.int64)


def _built_kernel() -> Any:
    """The compiled kernel; without one (no C compiler at install, or turned off) its tests
    skip, except on CI (``CI=true``), where it must be built."""
    if ki.KERNEL is None:
        if os.environ.get("CI", "").lower() == "true":
            raise RuntimeError("CI=true but harness/statistics/_kendall.c is not in use")
        pytest.skip("the compiled kernel is not built or is turned off (BLEU_HARNESS_NATIVE=0)")
    return ki.KERNEL


def test_before_counts_halves_where_the_table_would_be_large() -> None:
    seq = np.random.default_rng(3).permutation(1 << 16)
    assert -(-seq.shape[0] // ki.RUN) * seq.shape[0] > ki.TABLE_CELLS
    for less, equal in (ki.numpy_before_counts(seq, seq.shape[0]), ki.before_counts(seq)):
        assert (equal == 0).all()
        # the permutation's inversions seen from each position, by a plain merge count
        assert int(less.sum()) == _pairs_below_total(seq)


def test_the_kernel_refuses_what_is_not_a_sequence_of_ranks() -> None:
    kernel = _built_kernel()
    with pytest.raises(ValueError, match=r"seq\[2\] = 3 is not in 0 \.\. 2"):
        kernel.before_counts(np.array([0, 1, 3], np.int64).tobytes(), 3)
    with pytest.raises(ValueError, match="seq\\[0\\] = -1"):
        kernel.before_counts(np.array([-1], np.int64).tobytes(), 3)
    with pytest.raises(ValueError, match="whole int64 values, not 12 bytes"):
        kernel.before_counts(b"\0" * 12, 3)
    with pytest.raises(ValueError, match="m must be >= 0"):
        kernel.before_counts(b"", -1)
    with pytest.raises(TypeError):
        kernel.before_counts(bytearray(8), 1)  # a mutable buffer is not taken
    assert kernel.before_counts(b"", 0) == (b"", b"")


def _pairs_below_total(seq: np.ndarray) -> int:
    """Pairs (q < p) with seq[q] < seq[p], from scipy's τ against the positions: for a
    permutation, concordant = (τ + 1)/2 of all pairs."""
    n = seq.shape[0]
    tau = sps.kendalltau(np.arange(n), seq).statistic
    return round((tau + 1) / 2 * n * (n - 1) / 2)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=400))
def test_concordance_rows_are_signed_pair_counts(items: list[tuple[int, int]]) -> None:
    x = np.array([a for a, _ in items])
    y = np.array([a + b for a, b in items])
    want = (np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])).sum(axis=1)
    assert (ki.concordance_rows(_dense(x), _dense(y)) == want).all()


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(-3, 3)), min_size=3, max_size=300))
def test_tau_is_scipys(items: list[tuple[int, int]]) -> None:
    x = np.array([a for a, _ in items], dtype=float)
    y = np.array([a + b for a, b in items], dtype=float)
    got = ki.tau_b_interval(_dense(x), _dense(y), 0.95)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert got is None
        return
    assert got is not None
    tau, se, lo, hi = got
    assert abs(tau - sps.kendalltau(x, y, variant="b").statistic) < 1e-12
    assert se >= 0 and -1 <= lo <= tau <= hi <= 1


def _bootstrap_sd(x: np.ndarray, y: np.ndarray, resamples: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    n = x.shape[0]
    values = []
    for _ in range(resamples):
        i = rng.integers(0, n, n)
        values.append(sps.kendalltau(x[i], y[i], variant="b").statistic)
    return float(np.std(values, ddof=1))


def test_standard_error_is_the_bootstraps_spread() -> None:
    """On continuous, tie-heavy (a block of zeros, rounded values) and negatively correlated
    data, the delta-method standard error is within 10% of the standard deviation of 1,000
    bootstrap resamples (whose own sampling error is about 2%)."""
    rng = np.random.default_rng(7)
    n = 1500
    x = rng.normal(size=n)
    cases = {
        "continuous": (x, x + rng.normal(0, 1.0, n)),
        "ties": (
            np.where(np.arange(n) < 400, 0.0, np.round(x, 1)),
            np.round(x * 0.5 + rng.normal(0, 0.5, n), 0),
        ),
        "negative": (x, -x + rng.normal(0, 2.0, n)),
    }
    for name, (a, b) in cases.items():
        got = ki.tau_b_interval(_dense(a), _dense(b), 0.95)
        assert got is not None
        sd = _bootstrap_sd(a, b, 1000, seed=11)
        assert abs(got[1] / sd - 1) < 0.10, (name, got[1], sd)


def test_interval_covers_the_populations_tau() -> None:
    """Of 300 samples of 200 pairs from a bivariate normal with ρ = 0.6, the 90% interval
    holds τ = 2·arcsin(0.6)/π in 83% to 96% of them (binomial spread around 90%)."""
    rho, n, runs = 0.6, 200, 300
    tau = 2 * math.asin(rho) / math.pi
    rng = np.random.default_rng(19)
    cov = [[1.0, rho], [rho, 1.0]]
    held = 0
    for _ in range(runs):
        xy = rng.multivariate_normal([0.0, 0.0], cov, size=n)
        got = ki.tau_b_interval(_dense(xy[:, 0]), _dense(xy[:, 1]), 0.90)
        assert got is not None
        held += got[2] <= tau <= got[3]
    assert 0.83 * runs <= held <= 0.96 * runs, held


def test_constant_and_tiny_inputs_have_no_interval() -> None:
    assert ki.tau_b_interval(np.zeros(10, int), np.arange(10), 0.95) is None
    assert ki.tau_b_interval(np.arange(2), np.arange(2), 0.95) is None
    assert ki.before_counts(np.zeros(0, int))[0].shape == (0,)
