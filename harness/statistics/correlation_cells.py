"""Correlations of many pairs of vectors at once, each cell what
:func:`harness.statistics.correlation.correlate` gives its pair alone.

:func:`correlation_matrix` correlates every pair of named vectors under one method;
:func:`correlate_each` correlates each named vector with one other (every implementation's
scores with the human judgments). Cells that keep the same items share their resamples'
counts, ties and ranks (:mod:`harness.statistics.boot_matrix`,
:func:`~harness.statistics.boot_kernels.tau_b_pairs`), and τ-b's asymptotic intervals the
vectors' dense ranks; equal vectors are computed once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from harness.errors import ConfigError, LayoutError
from harness.progress import ProgressCallback, track
from harness.statistics.boot_kernels import tau_b_pairs
from harness.statistics.boot_matrix import (
    boot_pearson_cells,
    boot_pearson_pairs,
    boot_spearman_pairs,
)
from harness.statistics.correlation import (
    ASYMPTOTIC,
    BOOTSTRAP,
    DEFAULT_BOOTSTRAP,
    KENDALL_VECTOR_MAX,
    METHODS,
    BootstrapOptions,
    Correlation,
    _as_array,
    _check_boot,
    _check_methods,
    _correlate,
    _draws,
    _kendall_rows,
    _point,
    _undefined_reason,
    finite,
)
from harness.statistics.kendall_interval import tau_b_interval

__all__ = ["CorrelationMatrix", "correlate_each", "correlation_matrix"]


@dataclass(frozen=True)
class CorrelationMatrix:
    """Every pairwise correlation of named vectors under one method.

    ``values[a][b]`` is the coefficient (``None`` if undefined), ``n[a][b]`` the pairs used
    (missing values dropped pairwise) and ``cells[a][b]`` the full :class:`Correlation`.
    Unpacks as ``values, names = correlation_matrix(...)``. Its JSON holds the grids of
    ``values``, ``n``, ``ci_low`` and ``ci_high`` rather than the cells.
    """

    method: str
    names: tuple[str, ...]
    cells: Mapping[str, Mapping[str, Correlation]] = field(repr=False, metadata={"json": False})

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "values",
        "n",
        "ci_low",
        "ci_high",
        "seed",
        "n_boot",
        "intervals",
        "ci",
    )

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

    @property
    def ci_low(self) -> dict[str, dict[str, float | None]]:
        return self._grid("ci_low")

    @property
    def ci_high(self) -> dict[str, dict[str, float | None]]:
        return self._grid("ci_high")

    @property
    def _first(self) -> Correlation | None:
        return next((c for row in self.cells.values() for c in row.values()), None)

    @property
    def seed(self) -> int | None:
        """The bootstrap seed of the cells."""
        first = self._first
        return first.seed if first else None

    @property
    def n_boot(self) -> int:
        """The most resamples a cell's interval used."""
        m = self.method
        return max((c[m].n_boot for r in self.cells.values() for c in r.values()), default=0)

    @property
    def ci(self) -> float | None:
        """The confidence level of the intervals."""
        first = self._first
        return first.ci if first else None


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
                BootstrapOptions(n_boot=n_boot, seed=seed, confidence=confidence),
                (method,),
                draws,
                None if boot is None else {method: boot},
                None if point is None else {method: point},
                intervals.get(key),
            )
            done[key] = c
        cells[a][b] = cells[b][a] = c
    ordered = {a: {b: cells[a][b] for b in names} for a in names}
    return CorrelationMatrix(method, names, ordered)


def correlate_each(
    xs: Mapping[str, Sequence[float | None] | np.ndarray],
    y: Sequence[float | None] | np.ndarray,
    *,
    n_boot: int = DEFAULT_BOOTSTRAP.n_boot,
    seed: int | None = DEFAULT_BOOTSTRAP.seed,
    confidence: float = DEFAULT_BOOTSTRAP.confidence,
    methods: Sequence[str] = METHODS,
    n_boot_kendall: int | None = DEFAULT_BOOTSTRAP.n_boot_kendall,
) -> dict[str, Correlation]:
    """:func:`~harness.statistics.correlation.correlate` of each named vector of ``xs`` with
    ``y``, the same :class:`~harness.statistics.correlation.Correlation` for each to the last
    bit, computed together (``y``'s ties and ranks and the resamples' counts made once)."""
    _check_boot(n_boot, confidence)
    methods = _check_methods(methods)
    target = _as_array(y, "y")
    arrays = {name: _as_array(v, name) for name, v in xs.items()}
    for name, v in arrays.items():
        if v.shape != target.shape:
            raise LayoutError(
                "x and y differ in length", what=name, expected=v.shape[0], got=target.shape[0]
            )
    other = "\0y"
    while other in arrays:
        other += "\0"
    every = {**arrays, other: target}
    cells = [(name, other) for name in arrays]
    draws: dict[int, np.ndarray] = {}
    given: dict[str, dict[tuple[bytes, bytes], np.ndarray]] = {
        m: _matrix_cells(m, every, cells, n_boot, seed, draws, {})
        for m in methods
        if m != "kendall"
    }
    points: dict[tuple[bytes, bytes], tuple[float | None, float | None]] = {}
    intervals: dict[tuple[bytes, bytes], tuple[float, float]] = {}
    if "kendall" in methods and n_boot_kendall is None:
        given["kendall"], points, intervals = _matrix_kendall(
            every, cells, n_boot, seed, draws, confidence
        )
    content = {name: v.tobytes() for name, v in every.items()}
    done: dict[tuple[bytes, bytes], Correlation] = {}
    out: dict[str, Correlation] = {}
    boot = BootstrapOptions(
        n_boot=n_boot, seed=seed, confidence=confidence, n_boot_kendall=n_boot_kendall
    )
    for name in arrays:
        key = (content[name], content[other])
        if key not in done:
            done[key] = _correlate(
                arrays[name],
                target,
                boot,
                methods,
                draws,
                {m: found[key] for m, found in given.items() if key in found},
                {"kendall": points[key]} if key in points else None,
                intervals.get(key),
            )
        out[name] = done[key]
    return out
