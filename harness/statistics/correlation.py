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

:func:`correlation_matrix` correlates every pair of named vectors
(:func:`harness.analysis.pivot.from_results` pivots a run's results table into such vectors). Results are frozen dataclasses (data only: the report
renders them); ``to_dict()`` gives JSON-ready dicts (no NaN: ``None``).

>>> c = correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_boot=200, seed=1)
>>> round(c.pearson.value, 3), round(c.kendall.value, 3), c.n, c.seed
(0.8, 0.6, 5, 1)
>>> correlate([1, 2, None, 4], [3, 3, 3, float("nan")]).reason
'y is constant (every value is 3.0)'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.errors import ConfigError, LayoutError
from harness.progress import ProgressCallback, track
from harness.statistics.boot_kernels import boot_values, tau_b_pairs
from harness.statistics.boot_matrix import (
    boot_pearson_cells,
    boot_pearson_pairs,
    boot_spearman_pairs,
)
from harness.statistics.kendall_interval import tau_b_interval

__all__ = [
    "ASYMPTOTIC",
    "BOOTSTRAP",
    "KENDALL_FULL_BOOT_MAX",
    "KENDALL_VECTOR_MAX",
    "METHODS",
    "Correlation",
    "CorrelationMatrix",
    "Estimate",
    "correlate",
    "correlation_matrix",
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "value": finite(self.value),
            "p_value": finite(self.p_value),
            "ci_low": finite(self.ci_low),
            "ci_high": finite(self.ci_high),
            "interval": self.interval,
            "n_boot": self.n_boot,
            "n_boot_undefined": self.n_boot_undefined,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Correlation:
    """The correlation of two vectors: one :class:`Estimate` per method.

    ``n``: pairs used; ``n_dropped``: pairs dropped for a missing or non-finite value;
    ``ci``: the confidence level of the intervals; ``seed``: the bootstrap seed; ``reason``:
    why no coefficient could be computed (``None`` when they could).
    """

    n: int
    n_dropped: int
    estimates: Mapping[str, Estimate]
    ci: float
    seed: int | None
    n_boot: int
    reason: str | None = None
    bootstrap: str = "percentile bootstrap over pairs"

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "n_dropped": self.n_dropped,
            "ci": self.ci,
            "seed": self.seed,
            "n_boot": self.n_boot,
            "bootstrap": self.bootstrap,
            "reason": self.reason,
            **{m: e.to_dict() for m, e in self.estimates.items()},
        }

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
def correlate(
    x: Sequence[float | None] | np.ndarray,
    y: Sequence[float | None] | np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    methods: Sequence[str] = METHODS,
    n_boot_kendall: int | None = None,
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
    return _correlate(xa, ya, n_boot, seed, confidence, methods, n_boot_kendall)


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
    n_boot: int,
    seed: int | None,
    confidence: float,
    methods: tuple[str, ...],
    n_boot_kendall: int | None,
    draws: dict[int, np.ndarray] | None = None,
    given: Mapping[str, np.ndarray] | None = None,
    points: Mapping[str, tuple[float | None, float | None]] | None = None,
    kendall_interval: tuple[float, float] | None = None,
) -> Correlation:
    """:func:`correlate` of two checked arrays. ``draws`` caches resample indices by length
    (a matrix shares them); ``given`` holds bootstrap values and ``points`` (value, p-value)
    already computed per method, ``kendall_interval`` τ-b's asymptotic interval."""
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


# ---------------------------------------------------------------------------- matrix
@dataclass(frozen=True)
class CorrelationMatrix:
    """Every pairwise correlation of named vectors under one method.

    ``values[a][b]`` is the coefficient (``None`` if undefined), ``n[a][b]`` the pairs used
    (missing values dropped pairwise) and ``cells[a][b]`` the full :class:`Correlation`.
    Unpacks as ``values, names = correlation_matrix(...)``. ``to_dict()``'s ``n_boot`` is the
    most resamples a cell's interval used, ``intervals`` how many cells have each kind.
    """

    method: str
    names: tuple[str, ...]
    cells: Mapping[str, Mapping[str, Correlation]] = field(repr=False)

    @property
    def values(self) -> dict[str, dict[str, float | None]]:
        return self._grid("value")

    @property
    def n(self) -> dict[str, dict[str, int]]:
        return {a: {b: c.n for b, c in row.items()} for a, row in self.cells.items()}

    def __iter__(self) -> Iterator[Any]:  # values, names
        return iter((self.values, list(self.names)))

    def _grid(self, attr: str) -> dict[str, dict[str, float | None]]:
        """``attr`` (``value``, ``ci_low``, ``ci_high``) of every cell's estimate, JSON-ready."""
        cells, m = self.cells, self.method
        return {a: {b: finite(getattr(c[m], attr)) for b, c in cells[a].items()} for a in cells}

    @property
    def intervals(self) -> dict[str, int]:
        """How many cells off the diagonal have each kind of interval (``interval`` of
        :class:`Estimate`; cells without one are not counted)."""
        names, m = self.names, self.method
        kinds = [self.cells[a][b][m].interval for i, a in enumerate(names) for b in names[i + 1 :]]
        return {k: kinds.count(k) for k in (BOOTSTRAP, ASYMPTOTIC) if k in kinds}

    def to_dict(self) -> dict[str, Any]:
        first = next((c for row in self.cells.values() for c in row.values()), None)
        m = self.method
        return {
            "method": m,
            "names": list(self.names),
            "values": self._grid("value"),
            "n": self.n,
            "ci_low": self._grid("ci_low"),
            "ci_high": self._grid("ci_high"),
            "seed": first.seed if first else None,
            "n_boot": max(
                (c[m].n_boot for r in self.cells.values() for c in r.values()), default=0
            ),
            "intervals": self.intervals,
            "ci": first.ci if first else None,
        }


def _matrix_pearson(
    arrays: Mapping[str, np.ndarray], n_boot: int, seed: int | None, draws: dict[int, np.ndarray]
) -> dict[tuple[bytes, bytes], np.ndarray]:
    """Bootstrap Pearson values of every pair of the complete, non-constant distinct vectors,
    computed together (:func:`~harness.statistics.boot_matrix.boot_pearson_pairs`), keyed by
    the two vectors' contents; vectors with missing values are left to their cells."""
    distinct: dict[bytes, np.ndarray] = {}
    for v in arrays.values():
        if v.shape[0] >= 2 and np.isfinite(v).all() and np.ptp(v) > 0:
            distinct.setdefault(v.tobytes(), v)
    if n_boot <= 0 or len(distinct) < 2:
        return {}
    keys = list(distinct)
    n = distinct[keys[0]].shape[0]
    idx = draws.setdefault(n, _draws(n_boot, n, seed))
    pairs = [(i, j) for i in range(len(keys)) for j in range(i, len(keys))]
    values = boot_pearson_pairs([distinct[k] for k in keys], pairs, idx)
    out = {}
    for (i, j), row in zip(pairs, values, strict=True):
        out[(keys[i], keys[j])] = out[(keys[j], keys[i])] = row
    return out


def _matrix_cells(
    method: str,
    arrays: Mapping[str, np.ndarray],
    cells: Iterable[tuple[str, str]],
    n_boot: int,
    seed: int | None,
    draws: dict[int, np.ndarray],
    done: Mapping[tuple[bytes, bytes], np.ndarray],
) -> dict[tuple[bytes, bytes], np.ndarray]:
    """Bootstrap Pearson or Spearman values of the cells ``(a, b)`` that have a coefficient
    and are not in ``done``, keyed by the two vectors' contents: the cells that keep the same
    pairs computed together, each to the last bit what its cell alone gives
    (:func:`~harness.statistics.boot_matrix.boot_pearson_cells`,
    :func:`~harness.statistics.boot_matrix.boot_spearman_pairs`)."""
    if n_boot <= 0:
        return {}
    content = {name: v.tobytes() for name, v in arrays.items()}
    finite = {name: np.isfinite(v) for name, v in arrays.items()}
    groups: dict[tuple[bytes, int], dict[tuple[bytes, bytes], tuple[str, str]]] = {}
    for a, b in cells:
        if (content[a], content[b]) in done:
            continue
        keep = finite[a] & finite[b]
        if _undefined_reason(arrays[a][keep], arrays[b][keep]) is None:
            group = groups.setdefault((keep.tobytes(), int(keep.sum())), {})
            group.setdefault((content[a], content[b]), (a, b))
    kernel = boot_spearman_pairs if method == "spearman" else boot_pearson_cells
    out: dict[tuple[bytes, bytes], np.ndarray] = {}
    for (mask, n), group in groups.items():
        keep = np.frombuffer(mask, dtype=bool)
        named = {content[name]: name for ab in group.values() for name in ab}
        at = {c: i for i, c in enumerate(named)}
        idx = draws[n] if n in draws else draws.setdefault(n, _draws(n_boot, n, seed))
        values = kernel(
            [arrays[name][keep] for name in named.values()],
            [(at[x], at[y]) for x, y in group],
            idx,
        )
        out.update(zip(group, values, strict=True))
    return out


def _matrix_kendall(
    arrays: Mapping[str, np.ndarray],
    cells: Iterable[tuple[str, str]],
    n_boot: int,
    seed: int | None,
    draws: dict[int, np.ndarray],
    confidence: float,
) -> tuple[
    dict[tuple[bytes, bytes], np.ndarray],
    dict[tuple[bytes, bytes], tuple[float | None, float | None]],
    dict[tuple[bytes, bytes], tuple[float, float]],
]:
    """Bootstrap τ-b values, (value, p-value) and asymptotic intervals of the cells ``(a, b)``
    of more than :data:`KENDALL_VECTOR_MAX` pairs that have a coefficient, keyed by the two
    vectors' contents. Cells that keep the same pairs (no missing value on either side) share
    each vector's dense ranks and are bootstrapped together
    (:func:`~harness.statistics.boot_kernels.tau_b_pairs`); points are scipy's, given the ranks
    sorted on y (the same numbers: τ-b depends on the ranks only; scipy sorts them faster)."""
    content = {name: v.tobytes() for name, v in arrays.items()}
    finite = {name: np.isfinite(v) for name, v in arrays.items()}
    groups: dict[tuple[bytes, int], dict[tuple[bytes, bytes], tuple[str, str]]] = {}
    for a, b in cells:
        keep = finite[a] & finite[b]
        n = int(keep.sum())
        if n > KENDALL_VECTOR_MAX and _undefined_reason(arrays[a][keep], arrays[b][keep]) is None:
            groups.setdefault((keep.tobytes(), n), {}).setdefault((content[a], content[b]), (a, b))
    boot: dict[tuple[bytes, bytes], np.ndarray] = {}
    points = {}
    intervals: dict[tuple[bytes, bytes], tuple[float, float]] = {}
    for (mask, n), group in groups.items():
        keep = np.frombuffer(mask, dtype=bool)
        named = {content[name]: name for ab in group.values() for name in ab}
        ranks = {
            c: np.unique(arrays[name][keep], return_inverse=True)[1] for c, name in named.items()
        }
        order = {c: np.argsort(r, kind="stable") for c, r in ranks.items()}
        for x, y in group:
            points[x, y] = _point("kendall", ranks[x][order[y]], ranks[y][order[y]])
        rows = _kendall_rows(n_boot, n, None)
        if rows == 0 and n_boot > 0:
            for x, y in group:
                found = tau_b_interval(ranks[x], ranks[y], confidence)
                if found is not None:
                    intervals[x, y] = (found[2], found[3])
        if rows > 0:
            idx = draws[n] if n in draws else draws.setdefault(n, _draws(n_boot, n, seed))
            at = {c: i for i, c in enumerate(ranks)}
            pairs = [(at[x], at[y]) for x, y in group]
            values = tau_b_pairs(list(ranks.values()), pairs, idx[:rows])
            boot.update(zip(group, values, strict=True))
    return boot, points, intervals


def correlation_matrix(
    scores: Mapping[str, Sequence[float | None]],
    method: str = "pearson",
    *,
    n_boot: int = 0,
    seed: int | None = 0,
    confidence: float = 0.95,
    progress: ProgressCallback | None = None,
) -> CorrelationMatrix:
    """Correlate every pair of the named, equally long vectors in ``scores`` with ``method``.

    Each cell drops the pairs with a missing value on either side. ``n_boot > 0`` adds a
    bootstrap interval per cell (every cell uses the same ``seed``). The matrix is symmetric;
    the diagonal is 1 (``None`` for a constant vector). ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each cell computed (stage
    ``"correlations: <method>"``).
    """
    if not isinstance(method, str):
        raise ConfigError(f"method must be one name, got {method!r}", valid=METHODS)
    (method,) = _check_methods((method,))
    names = tuple(scores)
    lengths = {name: len(scores[name]) for name in names}
    if len(set(lengths.values())) > 1:
        raise LayoutError(
            "score vectors differ in length",
            what="correlation_matrix",
            expected=max(lengths.values()),
            got=lengths,
        )
    cells: dict[str, dict[str, Correlation]] = {a: {} for a in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i:]]
    # Implementations that agree give equal vectors (a profile and the library it reproduces):
    # a cell is a function of its two vectors' contents, so equal contents are computed once.
    arrays = {name: _as_array(scores[name], name) for name in names}
    content = {name: v.tobytes() for name, v in arrays.items()}
    done: dict[tuple[bytes, bytes], Correlation] = {}
    draws: dict[int, np.ndarray] = {}
    given: dict[tuple[bytes, bytes], np.ndarray] = {}
    points: dict[tuple[bytes, bytes], tuple[float | None, float | None]] = {}
    intervals: dict[tuple[bytes, bytes], tuple[float, float]] = {}
    if method == "pearson":
        given = _matrix_pearson(arrays, n_boot, seed, draws)
    if method in ("pearson", "spearman"):
        given.update(_matrix_cells(method, arrays, pairs, n_boot, seed, draws, given))
    elif method == "kendall":
        given, points, intervals = _matrix_kendall(arrays, pairs, n_boot, seed, draws, confidence)
    for a, b in track(pairs, progress, f"correlations: {method}"):
        key = (content[a], content[b])
        c = done.get(key)
        if c is None:
            boot, point = given.get(key), points.get(key)
            c = _correlate(
                arrays[a],
                arrays[b],
                n_boot,
                seed,
                confidence,
                (method,),
                None,
                draws,
                None if boot is None else {method: boot},
                None if point is None else {method: point},
                intervals.get(key),
            )
            done[key] = c
        cells[a][b] = cells[b][a] = c
    ordered = {a: {b: cells[a][b] for b in names} for a in names}
    return CorrelationMatrix(method, names, ordered)
