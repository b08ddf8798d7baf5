"""The timing rule the benchmarks share: the best of a few repeats of one call.

The minimum, not the mean: on a shared machine the noise only ever adds time, so the fastest
repeat is the closest to what the code costs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(call: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """Seconds of the fastest of ``repeats`` calls of ``call``, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        best = min(best, time.perf_counter() - start)
    return best, out
