"""The matrix bootstrap of Kendall's τ-b (harness.statistics.boot_kernels.tau_b_pairs) is exact.

scipy is the golden: on every resample, for every pair, the value must be the very float
``scipy.stats.kendalltau(x[r], y[r], variant="b")`` gives on the gathered draws (NaN where a
resample is constant on a side) — checked bit for bit, which implies the 1e-12 the issue asks.
The inputs are made to reach every path of the kernel: heavy ties and tie groups larger than a
block, constant vectors, vectors sharing one rank pattern (a monotone transform), near-copies
that break or make a few ties (a profile and the library it reproduces), tiny blocks (many
blocks, every quarter of a block product), n from 1 to 200.

:func:`~harness.statistics.correlation_cells.correlation_matrix` must give every cell what the previous
implementation gave: its intervals were the quantiles of scipy's per-resample values (the old
kernel was scipy bit for bit) on the first rows of the same seeded draws, its points scipy's
``kendalltau`` on the values — rebuilt here from scipy alone.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from harness.statistics import boot_kernels
from harness.statistics.correlation import (
    KENDALL_FULL_BOOT_MAX,
    KENDALL_VECTOR_MAX,
    _draws,
    correlate,
)
from harness.statistics.correlation_cells import correlation_matrix
from harness.typed_json import to_json

from .depth import examples


def _scipy_resamples(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """scipy's τ-b of each gathered resample; NaN where one side is constant."""
    out = np.full(idx.shape[0], np.nan)
    for r, rows in enumerate(idx):
        a, b = x[rows], y[rows]
        if np.ptp(a) > 0 and np.ptp(b) > 0:
            out[r] = sps.kendalltau(a, b, variant="b").statistic
    return out


@st.composite
def _vectors(draw: st.DrawFn) -> tuple[list[np.ndarray], int]:
    """Two to six equally long vectors (n = 1..200) built from one tie-heavy base: copies
    under a monotone map (one rank pattern), near-copies (a few ties broken or made),
    independent draws, a constant; and a block size for the kernel."""
    n = draw(st.integers(1, 200))
    distinct = draw(st.sampled_from([1, 2, 3, 5, 20, 1000]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    base = rng.integers(0, distinct, n).astype(float)
    if draw(st.booleans()):
        base[rng.random(n) < 0.6] = 0.0  # a tie group larger than a small block
    vectors = [base]
    for kind in draw(st.lists(st.integers(0, 5), min_size=1, max_size=5)):
        if kind == 0:  # the same rank pattern, other values
            v = np.exp(base / 7) * 3 + 1
        elif kind == 1:  # a near-copy: a few items nudged, so some ties break
            v = base + np.where(rng.random(n) < 0.1, 1e-9, 0.0)
        elif kind == 2:  # a near-copy that makes ties: a few items moved onto a neighbour
            v = np.where(rng.random(n) < 0.1, np.floor(base / 2) * 2, base)
        elif kind == 3:  # partly the base, partly independent
            v = np.where(rng.random(n) < 0.5, base, rng.integers(0, distinct + 2, n))
        elif kind == 4:
            v = rng.normal(size=n)
        else:
            v = np.full(n, 4.0)
        vectors.append(v.astype(float))
    return vectors, draw(st.sampled_from([2, 4, 6, 16, boot_kernels.TAU_BLOCK]))


@settings(max_examples=examples(300), deadline=None)
@given(data=_vectors(), seed=st.integers(0, 2**32 - 1), k=st.integers(1, 30))
def test_every_pair_and_resample_equals_scipy_bit_for_bit(data, seed, k) -> None:
    vectors, block = data
    n = vectors[0].shape[0]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(k, n))
    idx[0] = idx[0, 0]  # one resample draws a single item: constant on both sides
    pairs = [(i, j) for i in range(len(vectors)) for j in range(len(vectors))]
    got = boot_kernels.tau_b_pairs(vectors, pairs, idx, block=block)
    assert got.shape == (len(pairs), k)
    for row, (i, j) in zip(got, pairs, strict=True):
        want = _scipy_resamples(vectors[i], vectors[j], idx)
        assert np.array_equal(np.isnan(row), np.isnan(want)), (i, j)
        assert np.array_equal(row, want, equal_nan=True), (i, j, np.nanmax(np.abs(row - want)))


@pytest.mark.parametrize("block", [2, 8, boot_kernels.TAU_BLOCK])
def test_block_size_does_not_change_a_number(block) -> None:
    """Blocks, their products and the grid between them count the same discordant pairs as
    one block holding everything."""
    rng = np.random.default_rng(block)
    n = 300
    x = rng.integers(0, 40, n).astype(float)
    vectors = [x, x + rng.integers(0, 6, n), np.where(rng.random(n) < 0.3, 0.0, x), -x]
    idx = rng.integers(0, n, size=(12, n))
    pairs = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 1)]
    whole = boot_kernels.tau_b_pairs(vectors, pairs, idx, block=2 * n)
    assert np.array_equal(boot_kernels.tau_b_pairs(vectors, pairs, idx, block=block), whole)


@settings(max_examples=examples(200), deadline=None)
@given(
    n=st.integers(1, 60),
    distinct=st.integers(1, 8),
    moved=st.floats(0, 1),
    seed=st.integers(0, 2**32 - 1),
)
def test_reordered_pairs_are_exactly_the_pairs_ordered_differently(
    n, distinct, moved, seed
) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, distinct, n)
    b = np.where(rng.random(n) < moved, rng.integers(0, distinct, n), a)
    a = boot_kernels._dense_ranks(a)
    b = boot_kernels._dense_ranks(b)
    i, j = np.triu_indices(n, k=1)
    differ = np.sign(a[i] - a[j]) != np.sign(b[i] - b[j])
    want = {(min(p, q), max(p, q)) for p, q in zip(i[differ], j[differ], strict=True)}
    found = boot_kernels._reordered(a, b, limit=n * n)
    assert found is not None
    got = [(min(p, q), max(p, q)) for p, q in zip(*found, strict=True)]
    assert len(got) == len(set(got)) and set(got) == want
    if want:
        assert boot_kernels._reordered(a, b, limit=len(want) - 1) is None


def test_near_copies_join_and_stay_exact() -> None:
    """A vector equal to another but for a few ties (what a profile gives beside its
    library, 1e-9 apart) is computed as that vector plus a correction: still scipy's."""
    rng = np.random.default_rng(3)
    n = 500
    lib = np.round(rng.gamma(2.0, 12.0, n), 1)
    profile = lib + np.where(rng.random(n) < 0.05, 1e-9, 0.0)
    other = lib + rng.normal(0, 3, n)
    idx = rng.integers(0, n, size=(20, n))
    vectors = [lib, other, profile]
    assert boot_kernels._reordered(
        boot_kernels._dense_ranks(lib), boot_kernels._dense_ranks(profile), n
    )
    pairs = [(2, 1), (1, 2), (0, 2), (2, 2), (0, 1)]
    got = boot_kernels.tau_b_pairs(vectors, pairs, idx)
    for row, (i, j) in zip(got, pairs, strict=True):
        assert np.array_equal(row, _scipy_resamples(vectors[i], vectors[j], idx), equal_nan=True)


def test_degenerate_inputs() -> None:
    one = boot_kernels.tau_b_pairs([np.array([1.0]), np.array([2.0])], [(0, 1)], np.zeros((3, 1)))
    assert one.shape == (1, 3) and np.isnan(one).all()
    empty = boot_kernels.tau_b_pairs([np.arange(5.0)], [], np.zeros((2, 5), dtype=int))
    assert empty.shape == (0, 2)
    none = boot_kernels.tau_b_pairs([np.arange(5.0)], [(0, 0)], np.zeros((0, 5), dtype=int))
    assert none.shape == (1, 0)


# ---------------------------------------------------------------------------- the matrix
def _previous_cell(x, y, n_boot: int, seed: int, ci: float = 0.95) -> dict:
    """What the previous implementation gave a Kendall cell: scipy's point and p-value on the
    complete pairs, and the percentile interval of scipy's per-resample τ-b over the
    seeded draws (vectors of at most KENDALL_FULL_BOOT_MAX pairs)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = x.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        point = sps.kendalltau(x, y, variant="b")
    assert n <= KENDALL_FULL_BOOT_MAX
    rows = n_boot
    values = _scipy_resamples(x, y, _draws(n_boot, n, seed)[:rows])
    ok = values[np.isfinite(values)]
    lo, hi = np.quantile(ok, ((1 - ci) / 2, (1 + ci) / 2))
    return {
        "value": float(point.statistic),
        "p_value": float(point.pvalue),
        "ci_low": float(lo),
        "ci_high": float(hi),
        "n_boot": rows,
        "n_boot_undefined": rows - ok.shape[0],
    }


def test_matrix_cells_equal_the_previous_implementation() -> None:
    """Every field of every cell, to the last bit: vectors with missing values in different
    places (cells keep different pairs), near-copies, a shared rank pattern, ties."""
    rng = np.random.default_rng(11)
    n = 150
    lib = np.round(rng.gamma(2.0, 12.0, n), 0)
    scores: dict[str, Any] = {
        "lib": lib,
        "profile": lib + np.where(rng.random(n) < 0.05, 1e-9, 0.0),
        "scaled": lib * 2 + 3,
        "other": np.round(lib + rng.normal(0, 4, n), 0),
        "holes": np.where(rng.random(n) < 0.1, np.nan, lib + rng.normal(0, 2, n)),
        "holes2": list(np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n))),
    }
    scores["holes2"][3] = None
    m = correlation_matrix(scores, "kendall", n_boot=60, seed=4)
    names = list(scores)
    for i, a in enumerate(names):
        for b in names[i:]:
            got = m.cells[a][b]["kendall"]
            want = _previous_cell(
                [np.nan if v is None else v for v in scores[a]],
                [np.nan if v is None else v for v in scores[b]],
                60,
                4,
            )
            for field, value in want.items():
                assert getattr(got, field) == value, (a, b, field)


def test_matrix_cells_equal_correlate_alone() -> None:
    """A cell of the matrix is what correlate gives for its pair alone, both when the matrix
    bootstraps its cells together (n > KENDALL_VECTOR_MAX) and when it does not."""
    rng = np.random.default_rng(5)
    for n in (KENDALL_VECTOR_MAX - 4, KENDALL_VECTOR_MAX + 30):
        x = rng.integers(0, 9, n).astype(float)
        scores: dict[str, Any] = {
            "x": x,
            "y": x + rng.integers(0, 3, n),
            "z": rng.normal(size=n),
            "c": [1.0] * n,
        }
        m = correlation_matrix(scores, "kendall", n_boot=80, seed=9)
        names = list(scores)
        for i, a in enumerate(names):
            for b in names[i:]:  # a cell is computed in the order of the names (scipy's τ-b
                # may differ in the last bit with the arguments swapped)
                alone = correlate(scores[a], scores[b], n_boot=80, seed=9, methods=("kendall",))
                assert to_json(m.cells[a][b]) == to_json(alone), (n, a, b)


def test_large_vectors_have_the_asymptotic_interval() -> None:
    """Above KENDALL_FULL_BOOT_MAX pairs a matrix cell's τ-b interval is the delta-method one
    (no resamples), the same as correlate's for the pair alone; the point is scipy's."""
    rng = np.random.default_rng(2)
    n = KENDALL_FULL_BOOT_MAX + 200
    x = np.round(rng.normal(size=n), 1)
    scores: dict[str, Any] = {"x": x, "y": np.round(x + rng.normal(0, 0.5, n), 1)}
    got = correlation_matrix(scores, "kendall", n_boot=50, seed=1).cells["x"]["y"]["kendall"]
    alone = correlate(scores["x"], scores["y"], n_boot=50, seed=1, methods=("kendall",))
    assert got == alone.kendall
    assert got.interval == "asymptotic" and got.n_boot == 0
    assert got.value == sps.kendalltau(scores["x"], scores["y"], variant="b").statistic
    assert got.ci_low is not None and got.ci_high is not None
    assert got.ci_low < got.value < got.ci_high
