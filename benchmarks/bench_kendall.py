"""Benchmark: the bootstrap's Kendall τ-b kernel beside scipy. Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_kendall.py
    .venv/bin/python benchmarks/bench_kendall.py --resamples 1000 --sizes 20 50 1000

For each size ``n``: seeded integer scores with many ties (x in 0..19, y = x plus noise 0..4)
and ``resamples`` bootstrap draws of ``n`` items. Times (best of 3) of
:func:`harness.analysis.boot_kernels.boot_tau_b` on all draws, and of
``scipy.stats.kendalltau(..., variant="b")`` called on each gathered draw, the yardstick
measured in the same run; the script asserts the two agree exactly (NaN where a draw is
constant on a side).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _best(fn, repeats: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 1000])
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from scipy import stats

    from harness.analysis.boot_kernels import boot_tau_b

    rng = np.random.default_rng(0)
    boot_tau_b(np.arange(30.0), np.arange(30.0), rng.integers(0, 30, (2, 30)))  # imports
    print(f"{'n':>6} {'boot_tau_b':>12} {'scipy loop':>12} {'ratio':>8}")
    for n in args.sizes:
        x = rng.integers(0, 20, n).astype(float)
        y = x + rng.integers(0, 5, n)
        idx = rng.integers(0, n, (args.resamples, n))

        def scipy_loop(x=x, y=y, idx=idx) -> np.ndarray:
            return np.array(
                [stats.kendalltau(x[i], y[i], variant="b").statistic for i in idx], dtype=float
            )

        ours, got = _best(lambda x=x, y=y, idx=idx: boot_tau_b(x, y, idx))
        theirs, want = _best(scipy_loop, repeats=1)
        assert np.array_equal(got, want, equal_nan=True), "boot_tau_b differs from scipy"
        print(f"{n:>6} {ours:>10.3f} s {theirs:>10.3f} s {theirs / ours:>7.1f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
