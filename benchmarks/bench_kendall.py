"""Benchmark: the bootstrap's Kendall τ-b beside scipy, and on a WMT21 report's segment
scores τ-b's asymptotic interval beside the bootstrap. Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_kendall.py
    .venv/bin/python benchmarks/bench_kendall.py --resamples 1000 --sizes 20 50 1000
    .venv/bin/python benchmarks/bench_kendall.py --wmt21 report/segments.parquet

Default mode — for each size ``n``: seeded integer scores with many ties (x in 0..19, y = x
plus noise 0..4) and ``resamples`` bootstrap draws of ``n`` items. Times (best of 3) of
:func:`harness.statistics.boot_kernels.boot_tau_b` on all draws, of the per-resample kernel it
replaced (a private copy, :func:`_old_boot_tau_b`), and of ``scipy.stats.kendalltau(...,
variant="b")`` called on each gathered draw; the script asserts the three agree exactly (NaN
where a draw is constant on a side).

``--wmt21 FILE`` — the segment scores of a WMT21 run: the ``segments.parquet`` that ``report``
writes, or the ``results.jsonl`` of ``compare --out``. For every pair of the distinct vectors of
the implementations that scored every segment: τ-b's asymptotic interval (what the report
gives above ``KENDALL_FULL_BOOT_MAX`` segments) against the percentile bootstrap of
``--n-boot`` resamples (what it gave before) under ``--seeds`` seeds — the time of each, how
far their ends are apart and how far the bootstrap's ends move between seeds, in units of the
asymptotic standard error. Wall and CPU seconds are printed with the load average.
``--wmt21 FILE --blocks 64 128 256`` times only the bootstrap τ-b of every pair with each
block size (the numbers asserted equal).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
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


# ---------------------------------------------------------------------------- WMT21 scores
def _segment_scores(path: Path) -> dict[str, tuple[float | None, ...]]:
    """The segment-level score vector of each implementation: from a report's
    ``segments.parquet`` (or its ``segments.csv``) or from the runner rows of
    ``compare --out``'s ``results.jsonl``."""
    from harness.analysis.pivot import from_results
    from harness.run.results import ROW_FIELDS, ResultRow, row_from_json

    def as_row(record: dict[str, Any]) -> ResultRow:
        """A segment table's record as a results row (the fields it lacks are ``None``)."""
        return ResultRow(**{k: record.get(k) for k in ROW_FIELDS})

    rows: list[ResultRow] = []
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = [as_row({**r, "level": "segment"}) for r in pq.read_table(path).to_pylist()]
        return dict(from_results(rows, "segment").scores)
    with open(path, encoding="utf-8") as fh:
        if path.suffix == ".csv":
            for row in csv.DictReader(fh):
                score = float(row["score"]) if row["score"] else None
                rows.append(as_row({**row, "level": "segment", "score": score}))
        else:
            rows = [row_from_json(json.loads(line)) for line in fh if line.strip()]
    return dict(from_results(rows, "segment").scores)


def _full_vectors(path: Path) -> list[np.ndarray]:
    """The distinct segment-score vectors of the implementations that scored the most
    segments (a report's profiles; a library run on a sample has fewer), on the segments all
    of them scored."""
    scores = _segment_scores(path)
    vectors = [np.asarray([np.nan if v is None else v for v in vec]) for vec in scores.values()]
    most = max(int(np.isfinite(v).sum()) for v in vectors)
    vectors = [v for v in vectors if int(np.isfinite(v).sum()) == most]
    keep = np.all([np.isfinite(v) for v in vectors], axis=0)
    return list({v[keep].tobytes(): v[keep] for v in vectors}.values())


def wmt21(path: Path, n_boot: int, seed: int, seeds: int) -> int:
    """τ-b's interval of every pair of distinct segment-score vectors two ways: the
    asymptotic one the report gives above ``KENDALL_FULL_BOOT_MAX`` segments, and the
    percentile bootstrap of ``n_boot`` resamples it gave before, under ``seeds`` seeds. Prints
    the time of each, how far the two intervals' ends are apart and how far the bootstrap's
    ends move between seeds, both in units of the asymptotic standard error."""
    from harness.statistics.boot_kernels import tau_b_pairs
    from harness.statistics.correlation import _draws
    from harness.statistics.kendall_interval import tau_b_interval

    vectors = _full_vectors(path)
    n = vectors[0].shape[0]
    ranks = [np.unique(v, return_inverse=True)[1] for v in vectors]
    pairs = [(i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    print(f"{len(vectors)} distinct vectors × {n} segments: {len(pairs)} pairs")
    tau_b_interval(ranks[0][:50], ranks[1][:50], 0.95)  # imports
    load = os.getloadavg()
    wall, cpu, asym = _timed(lambda: [tau_b_interval(ranks[i], ranks[j], 0.95) for i, j in pairs])
    print(f"asymptotic, every pair:            {wall:7.2f} s wall {cpu:7.2f} s CPU")
    # the first pass in a fresh process also pays for its memory's first use
    best, _ = best_of(lambda: [tau_b_interval(ranks[i], ranks[j], 0.95) for i, j in pairs])
    print(f"asymptotic, every pair, best of 3:  {best:7.2f} s wall")
    ends = []
    for k in range(seeds):
        idx = _draws(n_boot, n, seed + k)
        b_wall, b_cpu, values = _timed(lambda idx=idx: tau_b_pairs(vectors, pairs, idx))
        if k == 0:
            print(
                f"bootstrap ({n_boot} resamples), every pair: {b_wall:7.2f} s wall "
                f"{b_cpu:7.2f} s CPU"
            )
        ends.append(np.nanquantile(values, (0.025, 0.975), axis=1).T)
    spread = np.stack(ends)  # seeds × pairs × (low, high)
    se = np.array([a[1] if a is not None else np.nan for a in asym])
    asym_ends = np.array([(a[2], a[3]) if a is not None else (np.nan, np.nan) for a in asym])
    apart = np.abs(spread - asym_ends[None]) / se[None, :, None]
    moves = (spread.max(axis=0) - spread.min(axis=0)) / se[:, None]
    print(
        f"|bootstrap end − asymptotic end| / SE over {seeds} seeds: median "
        f"{np.nanmedian(apart):.3f}, max {np.nanmax(apart):.3f}"
    )
    print(
        f"bootstrap ends' range between seeds / SE: median {np.nanmedian(moves):.3f}, "
        f"max {np.nanmax(moves):.3f}; median SE {np.nanmedian(se):.5f}"
    )
    print(f"load average at start {load[0]:.2f}")
    return 0


def blocks(path: Path, n_boot: int, seed: int, sizes: Sequence[int]) -> int:
    """The segment-level bootstrap τ-b of every pair of the implementations that scored the
    most segments, once per block size of :func:`~harness.statistics.boot_kernels.tau_b_pairs`."""
    from harness.statistics.boot_kernels import tau_b_pairs

    vectors = _full_vectors(path)
    n = vectors[0].shape[0]
    pairs = [(i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    print(f"{len(vectors)} distinct vectors × {n} segments, {n_boot} resamples")
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
    parser.add_argument(
        "--wmt21",
        type=Path,
        help="segments.parquet (or segments.csv) of a report, or results.jsonl",
    )
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=5, help="with --wmt21: bootstrap seeds")
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
        return wmt21(args.wmt21, args.n_boot, args.seed, args.seeds)
    return sizes(args.resamples, args.sizes)


if __name__ == "__main__":
    raise SystemExit(main())
