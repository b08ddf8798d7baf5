"""Correlations between score vectors, with p-values and seeded bootstrap confidence intervals.

:func:`correlate` gives Pearson's r, Spearman's ρ and Kendall's τ-b (point estimates and p-values
from scipy: :func:`~scipy.stats.pearsonr`, :func:`~scipy.stats.spearmanr`,
:func:`~scipy.stats.kendalltau` with ``variant="b"``), each with a **percentile bootstrap**
interval: ``n_boot`` resamples of the *pairs* drawn from ``numpy.random.default_rng(seed)`` (the
seed is recorded); the ``(1 − confidence)/2`` and ``(1 + confidence)/2`` quantiles (Efron & Tibshirani 1993).

Conventions:

* Pairs where either value is ``None``, NaN or ±inf are dropped (``n`` pairs used, ``n_dropped``
  dropped). Fewer than two pairs, or a constant side, give ``value=None`` with a ``reason`` —
  never a crash, a NaN or a scipy warning.
* One ``(n_boot, n)`` matrix of resample indices is drawn once and shared by the three methods
  (so their intervals are paired). Pearson is computed for all resamples at once with numpy;
  Spearman is Pearson on the per-resample average ranks (what :func:`scipy.stats.spearmanr`
  computes); Kendall's τ-b is vectorised over all pairs of items when ``n`` is small
  (≤ :data:`KENDALL_VECTOR_MAX`) and otherwise computed from draw counts
  (:mod:`harness.statistics.boot_kernels`: equal to scipy's ``kendalltau`` bit for bit; a matrix
  computes all its cells together), on every row of the index matrix when ``n ≤``
  :data:`KENDALL_FULL_BOOT_MAX`. Above that, τ-b's interval is by default the asymptotic one
  (:mod:`harness.statistics.kendall_interval`: the delta method, no Monte-Carlo error, a
  fraction of the bootstrap's time); ``n_boot_kendall`` asks for a bootstrap of that many
  resamples instead. Each estimate says which interval it has (``interval``: ``"bootstrap"``
  or ``"asymptotic"``) and how many resamples it used. Resamples on which a coefficient is
  undefined (e.g. every drawn pair equal) are left out of the quantiles (``n_boot_undefined``).

:mod:`harness.statistics.correlation_cells` correlates many pairs of named vectors at once
(:func:`harness.analysis.pivot.from_results` pivots a run's results table into such vectors). Results are frozen dataclasses (data only: the report
renders them), written as JSON by :func:`harness.typed_json.to_json` (no NaN: ``None``).

>>> c = correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_boot=200, seed=1)
>>> round(c.pearson.value, 3), round(c.kendall.value, 3), c.n, c.seed
(0.8, 0.6, 5, 1)
>>> correlate([1, 2, None, 4], [3, 3, 3, float("nan")]).reason
'y is constant (every value is 3.0)'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from harness.errors import ConfigError, LayoutError
from harness.statistics.blas import single_blas_thread
from harness.statistics.boot_kernels import boot_values
from harness.statistics.kendall_interval import tau_b_interval

__all__ = [
    "ASYMPTOTIC",
    "BOOTSTRAP",
    "DEFAULT_BOOTSTRAP",
    "KENDALL_FULL_BOOT_MAX",
    "KENDALL_VECTOR_MAX",
    "METHODS",
    "NO_INTERVALS",
    "BootstrapOptions",
    "Correlation",
    "Estimate",
    "correlate",
]

METHODS: tuple[str, ...] = ("pearson", "spearman", "kendall")
"""The coefficients :func:`correlate` computes, in this order."""

KENDALL_VECTOR_MAX = 64
"""Up to this many pairs, bootstrap τ-b is computed for all resamples at once (n² memory)."""
KENDALL_FULL_BOOT_MAX = 1000
"""Up to this many pairs, τ-b's interval is a bootstrap of every resample by default; above, it
is the asymptotic interval (pass ``n_boot_kendall`` for a bootstrap)."""
BOOTSTRAP = "bootstrap"
"""An :class:`Estimate`'s ``interval``: the percentile bootstrap over pairs."""
ASYMPTOTIC = "asymptotic"
"""An :class:`Estimate`'s ``interval``: Kendall τ-b's delta-method normal interval
(:func:`harness.statistics.kendall_interval.tau_b_interval`)."""


def finite(value: float | None) -> float | None:
    """``None`` for missing or non-finite numbers, else a plain float (JSON-ready)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Estimate:
    """One correlation coefficient with its p-value and confidence interval.

    ``value``/``p_value`` are scipy's (``None`` when undefined, with ``reason``); ``ci_low`` and
    ``ci_high`` bound the interval (``None`` without one), which ``interval`` names
    (:data:`BOOTSTRAP`, :data:`ASYMPTOTIC`; ``None`` without one); ``n_boot`` resamples were
    drawn for this method (0 for an asymptotic interval), of which ``n_boot_undefined`` gave
    no value.
    """

    method: str
    value: float | None
    p_value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0
    reason: str | None = None
    interval: str | None = None

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "method",
        "value",
        "p_value",
        "ci_low",
        "ci_high",
        "interval",
        "n_boot",
        "n_boot_undefined",
        "reason",
    )


@dataclass(frozen=True)
class Correlation:
    """The correlation of two vectors: one :class:`Estimate` per method.

    ``n``: pairs used; ``n_dropped``: pairs dropped for a missing or non-finite value;
    ``ci``: the confidence level of the intervals; ``seed``: the bootstrap seed; ``reason``:
    why no coefficient could be computed (``None`` when they could). In JSON each estimate is
    a key of its own, named by its method, after the other keys.
    """

    n: int
    n_dropped: int
    estimates: Mapping[str, Estimate] = field(metadata={"json_flatten": True})
    ci: float
    seed: int | None
    n_boot: int
    reason: str | None = None
    bootstrap: str = "percentile bootstrap over pairs"

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "n",
        "n_dropped",
        "ci",
        "seed",
        "n_boot",
        "bootstrap",
        "reason",
        "estimates",
    )

    def __getitem__(self, method: str) -> Estimate:
        try:
            return self.estimates[method]
        except KeyError:
            raise ConfigError(
                f"no {method!r} estimate in this correlation", valid=tuple(self.estimates)
            ) from None

    @property
    def pearson(self) -> Estimate:
        return self["pearson"]

    @property
    def spearman(self) -> Estimate:
        return self["spearman"]

    @property
    def kendall(self) -> Estimate:
        return self["kendall"]

    def flat(self, prefix: str = "") -> dict[str, Any]:
        """One flat JSON-ready row: ``n``, ``n_dropped`` and ``{method}``, ``{method}_p``,
        ``{method}_ci_low``, ``{method}_ci_high``, ``{method}_interval`` for each method (names
        prefixed)."""
        row: dict[str, Any] = {f"{prefix}n": self.n, f"{prefix}n_dropped": self.n_dropped}
        for m, e in self.estimates.items():
            row[f"{prefix}{m}"] = finite(e.value)
            row[f"{prefix}{m}_p"] = finite(e.p_value)
            row[f"{prefix}{m}_ci_low"] = finite(e.ci_low)
            row[f"{prefix}{m}_ci_high"] = finite(e.ci_high)
            row[f"{prefix}{m}_interval"] = e.interval
        row[f"{prefix}reason"] = self.reason
        return row


# ---------------------------------------------------------------------------- helpers
def _as_array(values: Iterable[float | None], what: str) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.ndim == 1:
        return values.astype(np.float64, copy=False)
    out = []
    for v in values:
        if v is None:
            out.append(np.nan)
            continue
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            raise LayoutError(f"{what} holds a non-number {v!r}", what=what) from None
    return np.asarray(out, dtype=np.float64)


def _check_methods(methods: Sequence[str]) -> tuple[str, ...]:
    if isinstance(methods, str):
        methods = (methods,)
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        raise ConfigError(f"unknown correlation method(s) {bad or methods}", valid=METHODS)
    return tuple(m for m in METHODS if m in methods)


def _check_boot(n_boot: int, confidence: float) -> None:
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ConfigError(f"n_boot must be an integer ≥ 0, got {n_boot!r}")
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence must be strictly between 0 and 1, got {confidence!r}")


@single_blas_thread
def _point(method: str, x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    from scipy import stats as sps  # slow to import: only once a correlation is computed

    with warnings.catch_warnings():
        # Near-constant input: scipy warns that r may be inaccurate; the value is still given.
        warnings.simplefilter("ignore")
        if method == "pearson":
            res = sps.pearsonr(x, y)
        elif method == "spearman":
            res = sps.spearmanr(x, y)
        else:
            res = sps.kendalltau(x, y, variant="b")
    return finite(res.statistic), finite(res.pvalue)


def _undefined_reason(x: np.ndarray, y: np.ndarray) -> str | None:
    if x.shape[0] < 2:
        return f"fewer than 2 complete pairs (n={x.shape[0]})"
    for name, v in (("x", x), ("y", y)):
        if np.ptp(v) == 0:
            return f"{name} is constant (every value is {float(v[0])!r})"
    return None


# ---------------------------------------------------------------------------- correlate
@dataclass(frozen=True, kw_only=True)
class BootstrapOptions:
    """The intervals of a correlation: ``n_boot`` percentile-bootstrap resamples (0: no
    interval) drawn with ``seed`` (``numpy.random.default_rng``) at ``confidence``;
    ``n_boot_kendall``, τ-b's resamples (``None``: all of them up to
    :data:`KENDALL_FULL_BOOT_MAX` pairs, above that the asymptotic interval)."""

    n_boot: int = 1000
    seed: int | None = 0
    confidence: float = 0.95
    n_boot_kendall: int | None = None


#: The intervals when nothing else is asked for: the defaults of every correlation function.
DEFAULT_BOOTSTRAP = BootstrapOptions()

NO_INTERVALS = BootstrapOptions(n_boot=0)
"""Correlations without intervals (what a meta-evaluation reads: the values alone)."""


def correlate(
    x: Sequence[float | None] | np.ndarray,
    y: Sequence[float | None] | np.ndarray,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP.n_boot,
    seed: int | None = DEFAULT_BOOTSTRAP.seed,
    confidence: float = DEFAULT_BOOTSTRAP.confidence,
    methods: Sequence[str] = METHODS,
    n_boot_kendall: int | None = DEFAULT_BOOTSTRAP.n_boot_kendall,
) -> Correlation:
    """Pearson, Spearman and Kendall τ-b of ``x`` and ``y`` with p-values and confidence
    intervals (percentile bootstrap; τ-b's asymptotic above :data:`KENDALL_FULL_BOOT_MAX` pairs).

    ``x`` and ``y`` must have the same length (else :class:`~harness.errors.LayoutError`);
    pairs with a ``None``/NaN/±inf on either side are dropped and counted. ``n_boot=0`` gives
    no interval. ``n_boot_kendall`` gives τ-b a bootstrap of that many resamples (at most
    ``n_boot``) whatever ``n``. ``seed`` seeds ``numpy.random.default_rng``.
    """
    _check_boot(n_boot, confidence)
    methods = _check_methods(methods)
    xa, ya = _as_array(x, "x"), _as_array(y, "y")
    if xa.shape != ya.shape:
        raise LayoutError(
            "x and y differ in length", what="correlate", expected=xa.shape[0], got=ya.shape[0]
        )
    boot = BootstrapOptions(
        n_boot=n_boot, seed=seed, confidence=confidence, n_boot_kendall=n_boot_kendall
    )
    return _correlate(xa, ya, boot, methods)


def _kendall_rows(n_boot: int, n: int, n_boot_kendall: int | None) -> int:
    """The resamples bootstrap τ-b uses for ``n`` pairs: 0 where its interval is the
    asymptotic one (see :data:`KENDALL_FULL_BOOT_MAX`)."""
    if n_boot_kendall is None:
        n_boot_kendall = n_boot if n <= KENDALL_FULL_BOOT_MAX else 0
    return min(n_boot, max(0, n_boot_kendall))


def _asymptotic(xa: np.ndarray, ya: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """τ-b's delta-method interval of two complete vectors (``None`` if undefined)."""
    rx = np.unique(xa, return_inverse=True)[1]
    ry = np.unique(ya, return_inverse=True)[1]
    found = tau_b_interval(rx, ry, confidence)
    return None if found is None else (found[2], found[3])


def _draws(n_boot: int, n: int, seed: int | None) -> np.ndarray:
    """The (n_boot, n) resample indices of ``seed``: the same for every pair of length n."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_boot, n), dtype=np.int64 if n > 2**31 - 1 else np.int32)


def _correlate(
    xa: np.ndarray,
    ya: np.ndarray,
    boot_options: BootstrapOptions,
    methods: tuple[str, ...],
    draws: dict[int, np.ndarray] | None = None,
    given: Mapping[str, np.ndarray] | None = None,
    points: Mapping[str, tuple[float | None, float | None]] | None = None,
    kendall_interval: tuple[float, float] | None = None,
) -> Correlation:
    """:func:`correlate` of two checked arrays. ``draws`` caches resample indices by length
    (a matrix shares them); ``given`` holds bootstrap values and ``points`` (value, p-value)
    already computed per method, ``kendall_interval`` τ-b's asymptotic interval."""
    n_boot, seed, confidence = boot_options.n_boot, boot_options.seed, boot_options.confidence
    n_boot_kendall = boot_options.n_boot_kendall
    keep = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[keep], ya[keep]
    n, dropped = int(keep.sum()), int((~keep).sum())

    reason = _undefined_reason(xa, ya)
    if reason is not None:
        none = {m: Estimate(m, None, None, reason=reason) for m in methods}
        return Correlation(n, dropped, none, confidence, seed, n_boot, reason=reason)

    idx = None
    if n_boot > 0:
        if draws is None:
            idx = _draws(n_boot, n, seed)
        else:
            idx = draws.get(n)
            if idx is None:
                idx = draws[n] = _draws(n_boot, n, seed)
    q = ((1 - confidence) / 2, (1 + confidence) / 2)
    rows = {
        m: _kendall_rows(n_boot, n, n_boot_kendall) if m == "kendall" else n_boot for m in methods
    }
    given = given or {}
    todo = {m: r for m, r in rows.items() if m not in given and r > 0}
    boot = dict(given)
    if idx is not None and todo:
        boot.update(boot_values(xa, ya, idx, todo, KENDALL_VECTOR_MAX))
    estimates: dict[str, Estimate] = {}
    for m in methods:
        value, p = points[m] if points and m in points else _point(m, xa, ya)
        lo = hi = kind = None
        undefined = 0
        if m in boot and rows[m] > 0:
            kind = BOOTSTRAP
            ok = boot[m][np.isfinite(boot[m])]
            undefined = rows[m] - ok.shape[0]
            if ok.shape[0] >= 2:
                lo, hi = (float(v) for v in np.quantile(ok, q))
        elif m == "kendall" and idx is not None:
            kind = ASYMPTOTIC
            found = kendall_interval or _asymptotic(xa, ya, confidence)
            lo, hi = found or (None, None)
        used = rows[m] if idx is not None else 0
        estimates[m] = Estimate(m, value, p, lo, hi, used, undefined, interval=kind)
    return Correlation(n, dropped, estimates, confidence, seed, n_boot)
