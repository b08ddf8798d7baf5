"""The statistics' numbers do not depend on how many threads BLAS runs.

OpenBLAS reads ``OPENBLAS_NUM_THREADS`` when it loads, so each setting is tried in a process
of its own. The same script also computes a plain ``np.dot``: where that differs between one
and two threads, the harness's functions would too without :mod:`harness.statistics.blas`;
where it does not (one usable core), there is nothing to tell apart and the test skips.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import json
import numpy as np
from harness.statistics.correlation import correlate

out = {"raw": [], "harness": []}
for seed in (7, 8):
    rng = np.random.default_rng(seed)
    x = rng.random(50_000) * 100
    y = x + rng.random(50_000) * 10
    out["raw"].append(float(np.dot(x, y)))
    r = correlate(x, y, n_boot=20, seed=3, methods=("pearson", "spearman"))
    out["harness"].append([[e.value, e.ci_low, e.ci_high] for e in r.estimates.values()])
print(json.dumps(out))
"""

LIMITS = r"""
import json
from threadpoolctl import threadpool_info
from harness.statistics.blas import one_blas_thread

def threads():
    return sorted((i["prefix"], i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas")

seen = {"before": threads()}
with one_blas_thread():
    import scipy.linalg  # a BLAS loaded inside the block
    with one_blas_thread():
        seen["inner"] = threads()
    seen["outer"] = threads()
seen["after"] = threads()
print(json.dumps(seen))
"""


def _run(script: str, threads: int) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_correlations_and_intervals_same_with_one_and_two_blas_threads() -> None:
    one, two = _run(SCRIPT, 1), _run(SCRIPT, 2)
    if one["raw"] == two["raw"]:
        pytest.skip("BLAS gives the same sums with one and two threads on this machine")
    assert one["harness"] == two["harness"]


def test_one_thread_inside_restored_after_and_late_loaded_blas_limited() -> None:
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: BLAS runs one thread whatever the limit")
    seen = _run(LIMITS, 2)
    assert all(n == 2 for _, n in seen["before"])
    assert len(seen["inner"]) > len(seen["before"])  # scipy's own BLAS, loaded in the block
    assert all(n == 1 for _, n in seen["inner"])
    assert all(n == 1 for _, n in seen["outer"])
    assert all(n == 2 for _, n in seen["after"]), seen["after"]
