"""A run's results table pivoted into one score vector per implementation, aligned on the
corpus (or segment) each score is of: what the correlations between implementations read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from harness.errors import ConfigError, LayoutError
from harness.run.results import ResultRow, Results, as_results
from harness.statistics.correlation import finite

__all__ = ["ResultsPivot", "from_results"]


@dataclass(frozen=True)
class ResultsPivot:
    """Runner rows pivoted into one score vector per implementation.

    ``keys``: the aligned ``(fixture, system, segment_id)`` triples (``segment_id`` is ``None``
    at corpus level), sorted; ``scores[implementation][k]`` is the score at ``keys[k]`` or
    ``None`` if that implementation has no ok row there. ``skipped``: one entry per
    ``(implementation, fixture, system, status)`` whose rows were left out, with the row count
    and the first error message.
    """

    level: str
    keys: tuple[tuple[str, str, str | None], ...]
    scores: Mapping[str, tuple[float | None, ...]]
    skipped: tuple[Mapping[str, Any], ...]

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("n_skipped",)

    @property
    def n_skipped(self) -> int:
        """How many rows were left out."""
        return sum(int(s["rows"]) for s in self.skipped)


def _sort_key(key: tuple[str, str, str | None]) -> tuple[Any, ...]:
    seg = key[2]
    if seg is None:
        return (key[0], key[1], 0, 0, "")
    try:
        return (key[0], key[1], 1, int(seg), seg)
    except ValueError:
        return (key[0], key[1], 2, 0, seg)


def from_results(rows: Results | Iterable[ResultRow], level: str = "segment") -> ResultsPivot:
    """Pivot the tidy rows of :func:`harness.run.run` into ``{implementation: vector}``.

    Rows of the other level are ignored. Rows whose ``status`` is not ``"ok"`` (or whose score
    is missing) are skipped and reported in ``skipped``. Vectors are aligned on
    ``(fixture, system, segment_id)``; a key that one implementation lacks is ``None`` in its
    vector (dropped pairwise by :func:`~harness.statistics.correlation.correlate`). Two ok rows
    of one implementation at the same key raise :class:`~harness.errors.LayoutError`.
    """
    if level not in ("segment", "corpus"):
        raise ConfigError(f"unknown level {level!r}", valid=("segment", "corpus"))
    results = as_results(rows)
    at = np.flatnonzero(results.column("level") == level)
    fast = _pivot_columns(results, at, level)
    return fast if fast is not None else _pivot_rows(results, at, level)


def _pivot_rows(results: Results, at: np.ndarray, level: str) -> ResultsPivot:
    """:func:`from_results` of the rows ``at``, row by row."""

    def values(name: str) -> list[Any]:
        return results.column(name)[at].tolist()

    segment_ids = values("segment_id") if level == "segment" else [None] * len(at)
    table: dict[str, dict[tuple[str, str, str | None], float]] = {}
    skipped: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for impl, f, s, seg, status, value, error in zip(
        values("implementation"),
        values("fixture"),
        values("system"),
        segment_ids,
        values("status"),
        values("score"),
        values("error"),
        strict=True,
    ):
        impl = str(impl)
        key = (str(f), str(s), None if seg is None else str(seg))
        score = finite(value) if status == "ok" else None
        if status != "ok" or score is None:
            why = status if status != "ok" else "no-score"
            entry = skipped.setdefault(
                (impl, key[0], key[1], why),
                {
                    "implementation": impl,
                    "fixture": key[0],
                    "system": key[1],
                    "status": why,
                    "rows": 0,
                    "error": error or "",
                },
            )
            entry["rows"] += 1
            continue
        column = table.setdefault(impl, {})
        if key in column:
            raise LayoutError(
                f"{impl} has two ok {level} rows for the same key",
                what="from_results",
                expected=1,
                got=key,
            )
        column[key] = score
    keys = tuple(sorted({k for col in table.values() for k in col}, key=_sort_key))
    scores = {impl: tuple(col.get(k) for k in keys) for impl, col in table.items()}
    return ResultsPivot(level, keys, scores, tuple(skipped.values()))


def _all_str(values: list[Any], none: bool = False) -> bool:
    """Whether every one of ``values`` is a ``str`` (or ``None``, with ``none``)."""
    return all(type(v) is str or (none and v is None) for v in set(values))


def _codes(column: np.ndarray, values: list[Any], codes: dict[Any, int]) -> np.ndarray:
    """Each of ``values`` (``column`` as a list) as the number of its value in ``codes``
    (filled here, in first-seen order): a code per run of equal values (a table's rows come
    in blocks of one implementation)."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[0], np.flatnonzero(column[1:] != column[:-1]) + 1])
    runs = [codes.setdefault(values[j], len(codes)) for j in starts.tolist()]
    lengths = np.diff(np.append(starts, len(values)))
    return np.repeat(np.array(runs, dtype=np.int64), lengths)


def _pivot_columns(results: Results, at: np.ndarray, level: str) -> ResultsPivot | None:
    """:func:`from_results` of the rows ``at`` column by column: the ok rows grouped by
    implementation at once, the others (few) row by row; ``None`` where only the row-by-row
    pivot says what the rows hold (a field that is not a string, two ok rows of one
    implementation at one key)."""
    score = results.column("score")[at]
    ok = (results.column("status")[at] == "ok") & np.isfinite(score)
    good = at[ok]

    def values(name: str, where: np.ndarray) -> list[Any]:
        return results.column(name)[where].tolist()

    impls = values("implementation", good)
    fields = [results.column(name)[good] for name in ("fixture", "system")]
    fields.append(
        results.column("segment_id")[good]
        if level == "segment"
        else np.full(len(good), None, dtype=object)
    )
    if not (
        _all_str(impls) and all(_all_str(f.tolist(), none=i == 2) for i, f in enumerate(fields))
    ):
        return None
    codes: dict[str, int] = {}  # each implementation, in the order of its first ok row
    code = _codes(results.column("implementation")[good], impls, codes)
    order = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[order], np.arange(len(codes) + 1))
    numbers = score[ok]
    table: dict[str, dict[tuple[str, str, str | None], float]] = {}
    for impl, k in codes.items():
        rows = order[bounds[k] : bounds[k + 1]]
        keys = list(zip(*(f[rows].tolist() for f in fields), strict=True))
        column = dict(zip(keys, numbers[rows].tolist(), strict=True))
        if len(column) < len(keys):
            return None  # two ok rows at one key: the row-by-row pivot raises
        table[impl] = column
    union: set[tuple[str, str, str | None]] = set()
    for column in table.values():
        union.update(column)
    keys_sorted = sorted(union, key=_sort_key)
    scores: dict[str, tuple[float | None, ...]] = {}
    for impl, column in table.items():
        if len(column) == len(keys_sorted) and list(column) == keys_sorted:
            scores[impl] = tuple(column.values())
        else:
            scores[impl] = tuple(map(column.get, keys_sorted))
    skipped = _skipped_rows(results, at[~ok])
    return ResultsPivot(level, tuple(keys_sorted), scores, skipped)


def _skipped_rows(results: Results, rows: np.ndarray) -> tuple[Mapping[str, Any], ...]:
    """The ``skipped`` entries of the table's rows ``rows`` (none of them ok with a finite
    score), in first-seen order."""
    skipped: dict[tuple[str, str, str, str], dict[str, Any]] = {}

    def values(name: str) -> list[Any]:
        return results.column(name)[rows].tolist()

    for impl, f, s, status, error in zip(
        values("implementation"),
        values("fixture"),
        values("system"),
        values("status"),
        values("error"),
        strict=True,
    ):
        impl, f, s = str(impl), str(f), str(s)
        why = status if status != "ok" else "no-score"
        entry = skipped.setdefault(
            (impl, f, s, why),
            {
                "implementation": impl,
                "fixture": f,
                "system": s,
                "status": why,
                "rows": 0,
                "error": error or "",
            },
        )
        entry["rows"] += 1
    return tuple(skipped.values())
