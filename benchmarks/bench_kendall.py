"""Benchmark: the bootstrap's Kendall τ-b beside scipy, and the WMT21 correlation matrices
before and after the matrix kernel (issue 22). Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_kendall.py
    .venv/bin/python benchmarks/bench_kendall.py --resamples 1000 --sizes 20 50 1000
    .venv/bin/python benchmarks/bench_kendall.py --wmt21 report/segments.csv

Default mode — for each size ``n``: seeded integer scores with many ties (x in 0..19, y = x
plus noise 0..4) and ``resamples`` bootstrap draws of ``n`` items. Times (best of 3) of
:func:`harness.statistics.boot_kernels.boot_tau_b` on all draws, of the per-resample kernel it
replaced (a private copy, :func:`_old_boot_tau_b`), and of ``scipy.stats.kendalltau(...,
variant="b")`` called on each gathered draw; the script asserts the three agree exactly (NaN
where a draw is constant on a side).

``--wmt21 FILE`` — the segment scores of a WMT21 run: the ``segments.csv`` that ``report``
writes, or the ``results.jsonl`` of ``compare --out`` (``report --wmt21 --human`` has 33
implementations over 20,040 segments). Times the segment-level Kendall matrix the report
computes (``n_boot`` 200, seed 0) with the previous per-cell path (:func:`_old_kendall_matrix`,
a private copy: per-resample τ-b, scipy's point on the values) and with
:func:`harness.statistics.correlation.correlation_matrix`, asserts every cell equal (value,
p-value, interval, undefined resamples), and times the Pearson matrix beside them.
``--before-cells N`` runs the previous path on the first N distinct cells only and scales its
time to all of them (the full run takes minutes). Wall and CPU seconds are printed with the
load average. ``--wmt21 FILE --blocks 64 128 256`` times only the bootstrap τ-b of every pair
with each block size (the numbers asserted equal).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from timing import best_of

REPO = Path(__file__).resolve().parent.parent
_BLOCK = 1 << 21


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one call, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


# ---------------------------------------------------------------------------- the previous path
def _old_boot_tau_b(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The per-resample τ-b kernel before issue 22 (a private copy): draws in one (x, y)
    order, tie counts by ``np.bincount``, and scipy's discordant-pair counter run on each
    resample's repeated draws."""
    from scipy.stats._stats import _kendall_dis

    def dense(v: np.ndarray) -> np.ndarray:
        return np.unique(v, return_inverse=True)[1].reshape(-1).astype(np.intp) + 1

    def per_row(keys: np.ndarray, size: int) -> np.ndarray:
        r = keys.shape[0]
        flat = (keys.astype(np.int64) + (np.arange(r, dtype=np.int64) * size)[:, None]).ravel()
        return np.bincount(flat, minlength=r * size).reshape(r, size)

    def tied(counts: np.ndarray) -> np.ndarray:
        return (counts * (counts - 1) // 2).sum(axis=1)

    k, n = idx.shape
    out = np.full(k, np.nan)
    rx, ry = dense(x), dense(y)
    order = np.lexsort((ry, rx))
    sx, sy = rx[order], ry[order]
    where_sorted = np.empty(n, dtype=np.int64)
    where_sorted[order] = np.arange(n)
    joint = np.unique(rx * (int(ry.max()) + 1) + ry, return_inverse=True)[1].reshape(-1)
    total = n * (n - 1) // 2
    rows = max(1, _BLOCK // max(n, 1))
    for lo in range(0, k, rows):
        hi = min(k, lo + rows)
        draws = idx[lo:hi]
        counts = per_row(where_sorted[draws], n)
        xtie = tied(per_row(rx[draws], int(rx.max()) + 1))
        ytie = tied(per_row(ry[draws], int(ry.max()) + 1))
        ntie = tied(per_row(joint[draws], int(joint.max()) + 1))
        live = (xtie != total) & (ytie != total)
        for r in np.flatnonzero(live).tolist():
            w = counts[r]
            dis = int(_kendall_dis(np.repeat(sx, w), np.repeat(sy, w)))
            con_minus_dis = total - int(xtie[r]) - int(ytie[r]) + int(ntie[r]) - 2 * dis
            tau = con_minus_dis / np.sqrt(total - int(xtie[r])) / np.sqrt(total - int(ytie[r]))
            out[lo + r] = min(1.0, max(-1.0, tau))
    return out


def _old_kendall_matrix(
    scores: Mapping[str, Sequence[float | None]], n_boot: int, seed: int, limit: int | None
) -> dict[tuple[bytes, bytes], dict[str, Any]]:
    """What ``correlation_matrix(scores, "kendall", n_boot=n_boot, seed=seed)`` computed
    before issue 22, cell by cell (each distinct pair of vectors once, in the order of the
    names): ``{(content a, content b): fields of the cell's estimate}``; the first ``limit``
    cells only when given."""
    from scipy import stats as sps

    from harness.statistics.correlation import (
        KENDALL_FULL_BOOT_MAX,
        KENDALL_LARGE_N_BOOT,
        _as_array,
        _draws,
    )

    names = list(scores)
    arrays = {a: _as_array(scores[a], a) for a in names}
    cells: dict[tuple[bytes, bytes], dict[str, Any]] = {}
    draws: dict[int, np.ndarray] = {}
    for i, a in enumerate(names):
        for b in names[i:]:
            key = (arrays[a].tobytes(), arrays[b].tobytes())
            if key in cells:
                continue
            if limit is not None and len(cells) >= limit:
                return cells
            keep = np.isfinite(arrays[a]) & np.isfinite(arrays[b])
            x, y, n = arrays[a][keep], arrays[b][keep], int(keep.sum())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                point = sps.kendalltau(x, y, variant="b")
            rows = n_boot if n <= KENDALL_FULL_BOOT_MAX else min(n_boot, KENDALL_LARGE_N_BOOT)
            if n not in draws:
                draws[n] = _draws(n_boot, n, seed)
            values = _old_boot_tau_b(x, y, draws[n][:rows])
            ok = values[np.isfinite(values)]
            lo, hi = (float(v) for v in np.quantile(ok, (0.025, 0.975)))
            cells[key] = {
                "value": float(point.statistic),
                "p_value": float(point.pvalue),
                "ci_low": lo,
                "ci_high": hi,
                "n_boot_undefined": rows - ok.shape[0],
            }
    return cells


# ---------------------------------------------------------------------------- WMT21 scores
def _segment_scores(path: Path) -> dict[str, tuple[float | None, ...]]:
    """The segment-level score vector of each implementation: from a report's
    ``segments.csv`` or from the runner rows of ``compare --out``'s ``results.jsonl``."""
    from harness.analysis.pivot import from_results

    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        if path.suffix == ".csv":
            for row in csv.DictReader(fh):
                score = float(row["score"]) if row["score"] else None
                rows.append({**row, "level": "segment", "score": score})
        else:
            rows = [json.loads(line) for line in fh if line.strip()]
    return dict(from_results(rows, "segment").scores)


def wmt21(path: Path, n_boot: int, seed: int, before_cells: int | None) -> int:
    from harness.statistics.correlation import correlation_matrix

    scores = _segment_scores(path)
    n = len(next(iter(scores.values())))
    print(f"{len(scores)} implementations × {n} segments, n_boot {n_boot}, seed {seed}")
    correlation_matrix({"a": [1.0, 2.0], "b": [2.0, 1.0]}, "kendall", n_boot=2)  # imports
    load = os.getloadavg()
    wall, cpu, new = _timed(lambda: correlation_matrix(scores, "kendall", n_boot=n_boot, seed=seed))
    print(f"kendall, matrix kernel:   {wall:7.2f} s wall {cpu:7.2f} s CPU")
    p_wall, p_cpu, _ = _timed(
        lambda: correlation_matrix(scores, "pearson", n_boot=n_boot, seed=seed)
    )
    print(f"pearson (unchanged):      {p_wall:7.2f} s wall {p_cpu:7.2f} s CPU")
    o_wall, o_cpu, old = _timed(lambda: _old_kendall_matrix(scores, n_boot, seed, before_cells))
    content = {
        name: np.asarray([np.nan if v is None else v for v in vec]).tobytes()
        for name, vec in scores.items()
    }
    names = list(scores)
    distinct = {(content[a], content[b]) for i, a in enumerate(names) for b in names[i:]}
    scale = len(distinct) / len(old)
    note = "" if scale == 1 else f" ({len(old)} of {len(distinct)} cells, scaled ×{scale:.1f})"
    print(
        f"kendall, previous path:   {o_wall * scale:7.2f} s wall {o_cpu * scale:7.2f} s CPU{note}"
    )
    print(f"speed-up (CPU): {o_cpu * scale / cpu:.1f}×; load average at start {load[0]:.2f}")
    checked = 0
    for i, a in enumerate(names):
        for b in names[i:]:
            want = old.get((content[a], content[b]))
            if want is None:
                continue
            got = new.cells[a][b]["kendall"]
            for field, value in want.items():
                assert getattr(got, field) == value, (a, b, field, getattr(got, field), value)
            checked += 1
    print(f"{checked} cells identical (value, p-value, interval, undefined resamples)")
    return 0


def blocks(path: Path, n_boot: int, seed: int, sizes: Sequence[int]) -> int:
    """The segment-level bootstrap τ-b of every pair of the implementations that scored the
    most segments, once per block size of :func:`~harness.statistics.boot_kernels.tau_b_pairs`."""
    from harness.statistics.boot_kernels import tau_b_pairs

    scores = _segment_scores(path)
    vectors = [np.asarray([np.nan if v is None else v for v in vec]) for vec in scores.values()]
    # the implementations that scored the most segments (a report's profiles; a library run
    # on a sample of the segments has fewer), on the segments all of them scored
    most = max(int(np.isfinite(v).sum()) for v in vectors)
    vectors = [v for v in vectors if int(np.isfinite(v).sum()) == most]
    keep = np.all([np.isfinite(v) for v in vectors], axis=0)
    vectors = [v[keep] for v in vectors]
    n = int(keep.sum())
    pairs = [(i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    distinct = len({v.tobytes() for v in vectors})
    print(
        f"{len(vectors)} implementations ({distinct} distinct) × {n} segments, {n_boot} resamples"
    )
    first = None
    for size in sizes:
        wall, cpu, got = _timed(lambda size=size: tau_b_pairs(vectors, pairs, idx, block=size))
        if first is None:
            first = got
        assert np.array_equal(got, first, equal_nan=True), f"block {size} differs"
        print(f"block {size:>4}: {wall:7.2f} s wall {cpu:7.2f} s CPU")
    return 0


# ---------------------------------------------------------------------------- synthetic sizes
def sizes(resamples: int, ns: Sequence[int]) -> int:
    from scipy import stats

    from harness.statistics.boot_kernels import boot_tau_b

    rng = np.random.default_rng(0)
    boot_tau_b(np.arange(30.0), np.arange(30.0), rng.integers(0, 30, (2, 30)))  # imports
    print(f"{'n':>6} {'boot_tau_b':>12} {'previous':>12} {'scipy loop':>12} {'ratio':>8}")
    for n in ns:
        x = rng.integers(0, 20, n).astype(float)
        y = x + rng.integers(0, 5, n)
        idx = rng.integers(0, n, (resamples, n))

        def scipy_loop(x=x, y=y, idx=idx) -> np.ndarray:
            return np.array(
                [stats.kendalltau(x[i], y[i], variant="b").statistic for i in idx], dtype=float
            )

        ours, got = best_of(partial(boot_tau_b, x, y, idx))
        before, old = best_of(partial(_old_boot_tau_b, x, y, idx))
        theirs, want = best_of(scipy_loop, repeats=1)
        assert np.array_equal(got, want, equal_nan=True), "boot_tau_b differs from scipy"
        assert np.array_equal(old, want, equal_nan=True), "the previous kernel differs from scipy"
        print(f"{n:>6} {ours:>10.3f} s {before:>10.3f} s {theirs:>10.3f} s {theirs / ours:>7.1f}×")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 1000])
    parser.add_argument("--wmt21", type=Path, help="segments.csv of a report or results.jsonl")
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before-cells", type=int, help="previous path on this many cells")
    parser.add_argument(
        "--blocks",
        type=int,
        nargs="+",
        help="with --wmt21: only time the bootstrap τ-b of every pair of vectors with each of "
        "these block sizes (the numbers asserted equal)",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.wmt21 and args.blocks:
        return blocks(args.wmt21, args.n_boot, args.seed, args.blocks)
    if args.wmt21:
        return wmt21(args.wmt21, args.n_boot, args.seed, args.before_cells)
    return sizes(args.resamples, args.sizes)


if __name__ == "__main__":
    raise SystemExit(main())
