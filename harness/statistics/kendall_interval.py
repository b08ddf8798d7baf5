"""Kendall's τ-b with an asymptotic confidence interval: the delta method on its U-statistics.

τ-b is a smooth function of three U-statistics of degree 2 (Hoeffding 1948) over the n(n−1)
ordered pairs of items, with ``a_ij = sign(x_i − x_j)`` and ``b_ij = sign(y_i − y_j)``::

    U₁ = Σ a_ij b_ij / n(n−1)    U₂ = Σ a_ij² / n(n−1)    U₃ = Σ b_ij² / n(n−1)
    τ-b = U₁ / sqrt(U₂ U₃)

Each U-statistic's first-order projection is the mean over items of its kernel's row average,
``g_k(i) = r_k(i) / (n − 1)`` with ``r₁(i) = Σ_j a_ij b_ij`` (concordant minus discordant
partners of item i), ``r₂(i)`` the items not tied with i in x and ``r₃(i)`` in y. So
``Var(τ-b) ≈ (4/n) · Var(∇f · g(i))`` with ``∇f = (1/sqrt(U₂U₃), −τ/(2U₂), −τ/(2U₃))``: the
delta-method standard error of τ-b with ties (derived for contingency tables by Brown &
Benedetti 1977; here for untabulated scores). The interval is ``τ-b ± z·SE`` clipped to
[−1, 1].

A percentile bootstrap of B resamples estimates each end from the B·(1 − confidence)/2 most
extreme resamples (5 of 200 at 95%), so its ends move between seeds (``benchmarks/README.md``
measures by how much on WMT21); this interval has no Monte-Carlo error and, at the sizes it is
used for (above :data:`harness.statistics.correlation.KENDALL_FULL_BOOT_MAX` pairs), the normal
approximation holds well (``tests/test_kendall_interval.py`` checks its standard error against
the bootstrap's spread, and its coverage). Both assume independent items; neither accounts for
segments grouped by system or document.

``r₁`` for every item follows from counting, along the items in x order, the earlier ones with a
smaller and an equal y (:func:`before_counts`): with the compiled kernel
(``harness/statistics/_kendall.c``, a Fenwick tree over the values: O(n log m)) where it is
built, else in numpy: the positions are cut into runs of :data:`RUN` (twice that with many
distinct values); each item reads the earlier runs' counts from a cumulative table (runs ×
distinct y values) and compares itself with its own run. Where that table would pass
:data:`TABLE_CELLS`, the positions are halved bit by bit instead (binary searches, O(n)
memory). All three give the same counts (``tests/test_kendall_interval.py``).
"""

from __future__ import annotations

import importlib.util
import math
import os
from types import ModuleType

import numpy as np

try:  # built by setup.py where there is a C compiler
    from harness.statistics import _kendall as _INSTALLED  # type: ignore[attr-defined]
except ImportError:
    _INSTALLED = None

__all__ = [
    "KERNEL",
    "LONG_RUN_FROM",
    "RUN",
    "TABLE_CELLS",
    "before_counts",
    "concordance_rows",
    "numpy_before_counts",
    "tau_b_interval",
]

RUN = 128
"""Positions per run of :func:`before_counts` (its table has n/RUN rows; a run's comparisons
are RUN² booleans)."""
LONG_RUN_FROM = 6000
"""From this many distinct values on, runs are twice :data:`RUN` long: the table (runs ×
values) then costs more than the longer runs' comparisons (``benchmarks/README.md``)."""
TABLE_CELLS = 1 << 23
"""Above this many cells (runs × distinct values), :func:`before_counts` halves instead:
O(n log² n) time in O(n) memory."""


#: ``0`` counts with numpy although the kernel is built (the variable that turns off the
#: statistics fast path's kernels too: ``harness.bleu.native``).
NATIVE_ENV = "BLEU_HARNESS_NATIVE"
#: For tests: the path of a build of the kernel to load instead of the installed one
#: (``make sanitize`` points it at a build with AddressSanitizer); a file that does not load
#: is an error, never the numpy path unawares.
KERNEL_PATH_ENV = "BLEU_HARNESS_KENDALL_PATH"


def _kernel() -> ModuleType | None:
    """The compiled kernel: from :data:`KERNEL_PATH_ENV` when set, else the installed one,
    else ``None`` (not built, or turned off by :data:`NATIVE_ENV`)."""
    path = os.environ.get(KERNEL_PATH_ENV)
    if path:
        name = "harness.statistics._kendall"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{KERNEL_PATH_ENV}={path}: not a loadable extension module")
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
        return loaded
    if os.environ.get(NATIVE_ENV) == "0":
        return None
    return _INSTALLED


KERNEL = _kernel()
"""The compiled :func:`before_counts`, or ``None`` where numpy counts."""


def before_counts(seq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a sequence of dense ranks (integers 0…m−1): per position p, how many earlier
    positions hold a smaller value, and how many hold an equal one."""
    seq = np.asarray(seq, dtype=np.int64)
    n = seq.shape[0]
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    m = int(seq.max()) + 1
    if KERNEL is not None:
        less, equal = KERNEL.before_counts(seq.tobytes(), m)
        return np.frombuffer(less, np.int64), np.frombuffer(equal, np.int64)
    return numpy_before_counts(seq, m)


def numpy_before_counts(seq: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`before_counts` of ``seq`` (values below ``m``) in numpy: by runs, or by halves
    where the runs' table would pass :data:`TABLE_CELLS` cells."""
    if -(-seq.shape[0] // RUN) * m > TABLE_CELLS:
        return _before_by_halves(seq, m)
    return _before_by_runs(seq, m)


def _before_by_runs(
    seq: np.ndarray, m: int, size: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`before_counts` by runs of ``size`` positions: at most 256, so that a position's
    count within its run fits in a byte; by default :data:`RUN`, or twice that from
    :data:`LONG_RUN_FROM` distinct values on."""
    n = seq.shape[0]
    size = size if size is not None else (2 * RUN if m >= LONG_RUN_FROM else RUN)
    runs = -(-n // size)
    run = np.arange(n) // size
    counts = np.bincount(run * m + seq, minlength=runs * m).reshape(runs, m).astype(np.int32)
    earlier = np.zeros((runs, m), np.int32)
    np.cumsum(counts[:-1], axis=0, out=earlier[1:])
    at_most = np.cumsum(earlier, axis=1, dtype=np.int32)
    equal = earlier[run, seq].astype(np.int64)
    less = at_most[run, seq] - equal
    # Within a run: padding with m, above every value, adds nothing to either count.
    padded = np.full(runs * size, m, np.int32)
    padded[:n] = seq
    grid = padded.reshape(runs, size)
    earlier_pos = np.tri(size, size, -1, dtype=bool)
    mine, theirs = grid[:, :, None], grid[:, None, :]
    below = theirs < mine
    below &= earlier_pos
    at_or_below = theirs <= mine
    at_or_below &= earlier_pos
    # fewer than 256 earlier positions in a run: byte sums (count_nonzero along an axis sums
    # in the platform's integer, several times slower)
    own_less = np.add.reduce(below.view(np.uint8), axis=2, dtype=np.uint8).ravel()[:n]
    own_at_most = np.add.reduce(at_or_below.view(np.uint8), axis=2, dtype=np.uint8).ravel()[:n]
    return less + own_less, equal + (own_at_most - own_less)


def _before_by_halves(seq: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`before_counts` in O(n) memory: at each bit of the position, the second half of
    every aligned block counts the first half's smaller and equal values by binary search."""
    n = seq.shape[0]
    pos = np.arange(n, dtype=np.int64)
    less = np.zeros(n, np.int64)
    equal = np.zeros(n, np.int64)
    for bit in range(max(1, (n - 1).bit_length())):
        block = pos >> (bit + 1)
        second = ((pos >> bit) & 1).astype(bool)
        keys = block * m + seq
        first_keys = np.sort(keys[~second])
        mine, start = keys[second], block[second] * m
        below = np.searchsorted(first_keys, mine, "left")
        less[second] += below - np.searchsorted(first_keys, start, "left")
        equal[second] += np.searchsorted(first_keys, mine, "right") - below
    return less, equal


def concordance_rows(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """Per item i, ``Σ_j sign(x_i − x_j)·sign(y_i − y_j)`` (its concordant minus discordant
    partners; tied pairs count 0), given the two vectors' dense ranks."""
    rx, ry = np.asarray(rx, dtype=np.int64), np.asarray(ry, dtype=np.int64)
    n = rx.shape[0]
    order = np.lexsort((ry, rx))
    xs, ys = rx[order], ry[order]
    pos = np.arange(n)
    less, equal = before_counts(ys)
    greater = pos - less - equal
    per_y = np.bincount(ys)
    below = (np.cumsum(per_y) - per_y)[ys]  # items with a smaller y
    above = n - below - per_y[ys]
    # Σ over earlier / later positions of sign(y_i − y_j).
    sum_before = less - greater
    sum_after = (below - less) - (above - greater)
    # Items tied with i in x sit next to it, sorted by y: they must count 0, not ±1.
    new_x = np.r_[True, xs[1:] != xs[:-1]]
    new_xy = new_x | np.r_[True, ys[1:] != ys[:-1]]
    x_start = np.maximum.accumulate(np.where(new_x, pos, 0))
    xy_start = np.maximum.accumulate(np.where(new_xy, pos, 0))
    end_x = np.r_[pos[new_x][1:], n]
    x_end = end_x[np.cumsum(new_x) - 1]
    end_xy = np.r_[pos[new_xy][1:], n]
    xy_end = end_xy[np.cumsum(new_xy) - 1]
    tied_x_below = xy_start - x_start  # same x, earlier, smaller y
    tied_x_above = x_end - xy_end  # same x, later, larger y
    rows = (sum_before - tied_x_below) - (sum_after + tied_x_above)
    out = np.empty(n, np.int64)
    out[order] = rows
    return out


def tau_b_interval(
    rx: np.ndarray, ry: np.ndarray, confidence: float
) -> tuple[float, float, float, float] | None:
    """(τ-b, its delta-method standard error, interval low, interval high) of two vectors
    given as dense ranks; ``None`` when a side is constant (τ-b undefined)."""
    rx, ry = np.asarray(rx, dtype=np.int64), np.asarray(ry, dtype=np.int64)
    n = rx.shape[0]
    if n < 3:
        return None
    r1 = concordance_rows(rx, ry).astype(np.float64)
    r2 = (n - np.bincount(rx)[rx]).astype(np.float64)
    r3 = (n - np.bincount(ry)[ry]).astype(np.float64)
    pairs = float(n) * (n - 1)
    u1, u2, u3 = (float(r.sum()) / pairs for r in (r1, r2, r3))
    if u2 == 0 or u3 == 0:
        return None
    tau = u1 / math.sqrt(u2 * u3)
    influence = (r1 / math.sqrt(u2 * u3) - tau / 2 * (r2 / u2 + r3 / u3)) / (n - 1)
    se = math.sqrt(4.0 / n * float(np.var(influence, ddof=1)))
    z = _normal_quantile((1 + confidence) / 2)
    return tau, se, max(-1.0, tau - z * se), min(1.0, tau + z * se)


def _normal_quantile(p: float) -> float:
    from scipy.stats import norm  # slow to import: only once an interval is computed

    return float(norm.ppf(p))
