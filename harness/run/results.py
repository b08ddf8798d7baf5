"""The results table of a run, as typed columns.

One row per (fixture, system, implementation, config, level, segment): a frozen
:class:`ResultRow`. The runner returns a :class:`Results`: blocks of rows kept as columns — an
in-house profile's segment scores stay the engine's arrays (no object per segment until one is
asked for), the real libraries' and the corpus-level rows are row objects — from which
:meth:`Results.column` gives one numpy array per field over every row and
:meth:`Results.segment_scores` one implementation's segment scores. As a sequence a
``Results`` is its rows (:meth:`Results.rows`), in run order.

The row type and its JSON form are :mod:`harness.run.rows` (its names are also this module's):
rows are dictionaries only where they are written or read (:func:`row_to_json`,
:func:`row_from_json`), and a segment block is written from its columns
(:meth:`Results.json_blocks`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from itertools import repeat
from typing import Any, overload

import numpy as np

from harness.holds import collector_paused
from harness.run.rows import (
    _ENUMS,
    FLOAT_FIELDS,
    ROW_FIELDS,
    JsonColumns,
    Kind,
    Level,
    ResultRow,
    Status,
    _json_value,
    _rows_from_columns,
    row_from_json,
    row_to_json,
)

__all__ = [
    "FLOAT_FIELDS",
    "ROW_FIELDS",
    "BlockOwner",
    "JsonColumns",
    "Kind",
    "Level",
    "ResultRow",
    "Results",
    "SegmentArrays",
    "SegmentScores",
    "Status",
    "as_results",
    "row_from_json",
    "row_to_json",
    "segment_block",
]


class _Rows:
    """A block of row objects (the libraries', the corpus level, the rows without a score).

    A table's rows are not changed once it is built, so what the block derives from them
    (the rows of each implementation, the distinct combinations of fields) is kept."""

    def __init__(self, rows: Sequence[ResultRow]) -> None:
        self._rows = list(rows)
        self._distinct: dict[tuple[tuple[str, ...], str | None], list[tuple[Any, ...]]] = {}
        self.segment_parts: dict[str, _SegmentPart | None] = {}
        self._of: dict[frozenset[str], _Rows] = {}

    def constant_fields(self) -> dict[str, Any]:
        """The fields equal on every row, as far as the block knows: none."""
        return {}

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> list[ResultRow]:
        return self._rows

    def row(self, j: int) -> ResultRow:
        return self._rows[j]

    def distinct(self, names: Sequence[str], level: str | None) -> Iterable[tuple[Any, ...]]:
        key = (tuple(names), level)
        if key not in self._distinct:
            self._distinct[key] = list(
                dict.fromkeys(
                    tuple(getattr(r, k) for k in names)
                    for r in self._rows
                    if level is None or r.level == level
                )
            )
        return self._distinct[key]

    @cached_property
    def _positions(self) -> dict[Any, list[int]]:
        out: dict[Any, list[int]] = {}
        for j, r in enumerate(self._rows):
            out.setdefault(r.implementation, []).append(j)
        return out

    def of(self, implementations: set[str]) -> _Rows:
        """The rows of ``implementations``, in order (one block for each set asked for, so
        that the tables selected from this one share what it derives)."""
        key = frozenset(implementations)
        if key not in self._of:
            at = [j for impl, js in self._positions.items() if impl in key for j in js]
            if len(at) == len(self._rows):
                self._of[key] = self
            else:
                self._of[key] = _Rows([self._rows[j] for j in sorted(at)])
        return self._of[key]

    def segment_counts(self) -> dict[tuple[str, str, str], list[Any]]:
        out: dict[tuple[str, str, str], list[Any]] = {}
        for r in self._rows:
            if r.level == "segment" and r.segment_id is not None:
                key = (str(r.implementation), str(r.fixture), str(r.system))
                entry = out.setdefault(key, [0, r.kind])
                entry[0] += 1
                entry[1] = r.kind
        return out

    def column(self, name: str) -> np.ndarray:
        values = [getattr(r, name) for r in self._rows]
        if name in FLOAT_FIELDS:
            return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return _objects(values)


class _Segments:
    """One in-house profile's segment rows on one corpus, kept as the engine's arrays."""

    def __init__(self, constant: dict[str, Any], columns: dict[str, Any]) -> None:
        self._constant = constant  # fields equal on every row
        self._columns = columns  # field -> list or float array, one value per row
        self._n = len(columns["segment_id"])
        self._tuples: dict[str, list[tuple[int, ...]]] = {}
        self.segment_parts: dict[str, _SegmentPart | None] = {}

    def constant_fields(self) -> dict[str, Any]:
        """The fields equal on every row."""
        return self._constant

    def __len__(self) -> int:
        return self._n

    def _values(self, name: str) -> Any:
        """Column ``name``; the n-gram counts and totals, kept as the engine's integer
        arrays, as the rows' tuples (made once, an identical tuple shared between rows)."""
        values = self._columns[name]
        if isinstance(values, np.ndarray) and values.ndim == 2:
            if name not in self._tuples:
                shared: dict[tuple[int, ...], tuple[int, ...]] = {}
                keep = shared.setdefault
                self._tuples[name] = [keep(t, t) for t in map(tuple, values.tolist())]
            return self._tuples[name]
        return values

    def json_columns(self) -> JsonColumns:
        """The block's rows in their JSON form, column by column (no row object is built)."""
        constant = {k: _json_value(k, v) for k, v in self._constant.items()}
        columns: dict[str, Any] = {}
        for k, values in self._columns.items():
            if k in _ENUMS:
                values = [v.value if isinstance(v, Enum) else v for v in values]
            columns[k] = values
        return JsonColumns(self._n, constant, columns)

    def constant(self, name: str) -> Any:
        return self._constant[name]

    def segment_counts(self) -> dict[tuple[str, str, str], list[Any]]:
        c = self._constant
        n = sum(seg is not None for seg in self._values("segment_id"))
        key = (str(c["implementation"]), str(c["fixture"]), str(c["system"]))
        return {key: [n, c["kind"]]} if n else {}

    def column(self, name: str) -> np.ndarray:
        if name in self._constant:
            value = self._constant[name]
            if name in FLOAT_FIELDS:
                return np.full(self._n, np.nan if value is None else value, dtype=np.float64)
            return _objects([value] * self._n)
        if name in FLOAT_FIELDS:
            return np.asarray(self._values(name), dtype=np.float64)
        return _objects(self._values(name))

    def row(self, j: int) -> ResultRow:
        return ResultRow(
            *(
                self._constant[k] if k in self._constant else self._listed_one(k, j)
                for k in ROW_FIELDS
            )
        )

    def _listed_one(self, name: str, j: int) -> Any:
        value = self._columns[name][j]
        if isinstance(value, np.ndarray):  # one row of the counts or totals
            return tuple(value.tolist())
        if name in FLOAT_FIELDS:
            value = float(value)
            return None if math.isnan(value) else value
        return value

    def distinct(self, names: Sequence[str], level: str | None) -> Iterable[tuple[Any, ...]]:
        if level is not None and level != "segment":
            return ()
        if all(k in self._constant for k in names):
            return (tuple(self._constant[k] for k in names),)
        columns = [self._listed(k) if k not in self._constant else None for k in names]
        return dict.fromkeys(
            zip(
                *(
                    [self._constant[k]] * self._n if c is None else c
                    for k, c in zip(names, columns, strict=True)
                ),
                strict=True,
            )
        )

    def rows(self) -> list[ResultRow]:
        with collector_paused():
            columns = [
                repeat(self._constant[k], self._n) if k in self._constant else self._listed(k)
                for k in ROW_FIELDS
            ]
            return _rows_from_columns(columns)

    def _listed(self, name: str) -> list[Any]:
        values = self._values(name)
        if name in FLOAT_FIELDS:
            array = np.asarray(values, dtype=np.float64)
            out: list[Any] = array.tolist()
            for j in np.flatnonzero(np.isnan(array)).tolist():
                out[j] = None
            return out
        return list(values)


def _objects(values: Sequence[Any]) -> np.ndarray:
    """An object array of ``values`` (tuples stay elements, not a second axis)."""
    return np.fromiter(values, dtype=object, count=len(values))


@dataclass(frozen=True)
class BlockOwner:
    """Whose segment rows a block holds: the fixture's system, the implementation's row label
    and configuration name, and its configuration's signature."""

    fixture: str
    system: str
    implementation: str
    config: str
    signature: str


@dataclass(frozen=True)
class SegmentArrays:
    """The engine's per-segment results on one corpus, as arrays in segment order: ids, scores,
    brevity penalties, length ratios, lengths, and the matched and total n-grams per order."""

    segment_ids: Sequence[Any]
    score: np.ndarray
    bp: np.ndarray
    ratio: np.ndarray
    hyp_len: Sequence[int]
    ref_len: Sequence[float]
    counts: np.ndarray
    totals: np.ndarray


def segment_block(owner: BlockOwner, arrays: SegmentArrays) -> Results:
    """An in-house profile's segment rows on one corpus, from the engine's arrays: the rows
    the runner would write for each segment's result (a non-finite score has no number, status
    ``non-finite`` and the value as its error; a non-finite ``bp`` or ``ratio`` is ``None``)."""
    score, bp, ratio = arrays.score, arrays.bp, arrays.ratio
    scores = np.asarray(score, dtype=np.float64)
    bad = ~np.isfinite(scores)
    status: list[Status] | Status = Status.OK
    error: list[str] | str = ""
    if bad.any():
        values = scores.tolist()
        status = [Status.NON_FINITE if b else Status.OK for b in bad.tolist()]
        error = [repr(v) if b else "" for v, b in zip(values, bad.tolist(), strict=True)]
        scores = np.where(bad, np.nan, scores)
    with np.errstate(invalid="ignore"):
        bps = np.where(np.isfinite(bp), bp, np.nan)
        ratios = np.where(np.isfinite(ratio), ratio, np.nan)
    constant: dict[str, Any] = {
        "fixture": owner.fixture,
        "system": owner.system,
        "implementation": owner.implementation,
        "kind": Kind.PROFILE,
        "config": owner.config,
        "level": Level.SEGMENT,
        "signature": owner.signature,
        "call": "",
        "module_source": None,
    }
    columns: dict[str, Any] = {
        "segment_id": list(arrays.segment_ids),
        "score": scores,
        "bp": bps,
        "ratio": ratios,
        "hyp_len": list(arrays.hyp_len),
        "ref_len": list(arrays.ref_len),
        "counts": np.asarray(arrays.counts),
        "totals": np.asarray(arrays.totals),
    }
    for name, value in (("status", status), ("error", error)):
        if not isinstance(value, list):
            constant[name] = value
        else:
            columns[name] = value
    return Results([_Segments(constant, columns)])


@dataclass(frozen=True)
class SegmentScores:
    """One implementation's segment rows: ``keys`` ``(fixture, system, segment_id)`` in row
    order, their ``status`` and ``score`` (``nan`` where there is no number), and ``at``, each
    row's index in the table (:meth:`Results.row`)."""

    keys: list[tuple[str, str, Any]]
    status: np.ndarray
    score: np.ndarray
    at: np.ndarray


@dataclass(frozen=True)
class SegmentIndex:
    """One implementation's segment rows, for matching segments across implementations:
    ``keys`` the ``(fixture, system, segment_id)`` (as strings) of the rows that name a
    segment, in row order; ``position`` each key's place in ``keys`` (its last, if given
    twice); ``score`` their number (``nan`` where the row has none or is not ``ok``); ``at``
    their index in the table; ``corpora`` the ``(fixture, system)`` they cover; ``unnamed`` the
    table index of each segment row that names no segment (it says why there are none)."""

    keys: list[tuple[str, str, str]]
    position: dict[tuple[str, str, str], int]
    score: np.ndarray
    at: np.ndarray
    corpora: frozenset[tuple[str, str]]
    unnamed: np.ndarray


@dataclass(frozen=True, eq=False)
class _SegmentPart:
    """One block's share of an implementation's :class:`SegmentIndex`: ``at`` and
    ``unnamed`` are row indices in the block. ``joined``: the keys, their positions and the
    corpora of the parts that follow this one in a table (by those parts), which do not depend
    on where in the table they are."""

    keys: list[tuple[str, str, str]]
    score: np.ndarray
    at: np.ndarray
    corpora: frozenset[tuple[str, str]]
    unnamed: np.ndarray
    joined: dict[tuple[_SegmentPart, ...], _Joined] = field(default_factory=dict)


@dataclass(frozen=True)
class _Joined:
    keys: list[tuple[str, str, str]]
    position: dict[tuple[str, str, str], int]
    corpora: frozenset[tuple[str, str]]


def _join(parts: Sequence[_SegmentPart]) -> _Joined:
    """The keys, positions and corpora of ``parts`` in order (made once for those parts)."""
    if not parts:
        return _Joined([], {}, frozenset())
    cache = parts[0].joined
    key = tuple(parts)
    if key not in cache:
        keys: list[tuple[str, str, str]] = []
        corpora: set[tuple[str, str]] = set()
        for part in parts:
            keys += part.keys
            corpora |= part.corpora
        cache[key] = _Joined(
            keys, dict(zip(keys, range(len(keys)), strict=False)), frozenset(corpora)
        )
    return cache[key]


def _segment_part(block: _Rows | _Segments, implementation: str) -> _SegmentPart | None:
    """``block``'s part of ``implementation``'s segment index (``None``: it has no segment
    rows of it), made once per block and implementation (a block's rows do not change)."""
    parts = block.segment_parts
    if implementation not in parts:
        constant = block.constant_fields()
        if "implementation" in constant and constant["implementation"] != implementation:
            parts[implementation] = None
            return None
        mask = (block.column("implementation") == implementation) & (
            block.column("level") == "segment"
        )
        at = np.flatnonzero(mask)
        if not len(at):
            parts[implementation] = None
            return None
        fixture, system = block.column("fixture")[at], block.column("system")[at]
        seg = block.column("segment_id")[at].tolist()
        status, score = block.column("status")[at], block.column("score")[at]
        named = np.array([x is not None for x in seg], dtype=bool)
        if named.all():
            fs, ss = list(map(str, fixture.tolist())), list(map(str, system.tolist()))
            keys = list(zip(fs, ss, map(str, seg), strict=True))
            corpora = frozenset(zip(fs, ss, strict=True))
        else:
            keys = [
                (str(f), str(s), str(x))
                for f, s, x in zip(fixture.tolist(), system.tolist(), seg, strict=True)
                if x is not None
            ]
            corpora = frozenset((f, s) for f, s, _ in keys)
        ok = (status == "ok") & np.isfinite(score)
        parts[implementation] = _SegmentPart(
            keys, np.where(ok, score, np.nan)[named], at[named], corpora, at[~named]
        )
    return parts[implementation]


class Results(Sequence[ResultRow]):
    """The results table of a run: its rows as typed columns (see the module's docstring).

    As a sequence it is its rows (:meth:`rows`), in run order.
    """

    def __init__(self, blocks: Iterable[Any] = ()) -> None:
        self._blocks = [b for b in blocks if len(b)]
        self._columns: dict[str, np.ndarray] = {}
        self._indexes: dict[str, SegmentIndex] = {}

    @classmethod
    def from_rows(cls, rows: Iterable[ResultRow]) -> Results:
        """A table of rows (read from a results.jsonl, built by hand)."""
        return cls([_Rows(list(rows))])

    @classmethod
    def concat(cls, parts: Iterable[Results | Sequence[ResultRow]]) -> Results:
        """The rows of ``parts`` in order (a part may be a list of rows)."""
        blocks: list[Any] = []
        for part in parts:
            if isinstance(part, Results):
                blocks += part._blocks
            else:
                blocks.append(_Rows(part))
        return cls(blocks)

    def __len__(self) -> int:
        return sum(len(b) for b in self._blocks)

    @overload
    def __getitem__(self, index: int) -> ResultRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[ResultRow]: ...
    def __getitem__(self, index: int | slice) -> ResultRow | list[ResultRow]:
        return self.rows()[index]

    def __iter__(self) -> Iterator[ResultRow]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Results):
            return self.rows() == other.rows()
        if isinstance(other, list):
            return self.rows() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Results | Sequence[ResultRow]) -> Results:
        return Results.concat([self, other])

    def __radd__(self, other: Sequence[ResultRow]) -> Results:
        return Results.concat([other, self])

    def __repr__(self) -> str:
        return f"Results({len(self)} rows in {len(self._blocks)} blocks)"

    def rows(self) -> list[ResultRow]:
        """Every row (:class:`ResultRow`), built once."""
        return self._rows

    @cached_property
    def _rows(self) -> list[ResultRow]:
        out: list[ResultRow] = []
        with collector_paused():
            for block in self._blocks:
                out += block.rows()
        return out

    def json_blocks(self) -> Iterator[JsonColumns | list[ResultRow]]:
        """The table in run order as it is written: an in-house profile's segment block as
        :class:`JsonColumns` (no row object built), any other block as its rows."""
        for block in self._blocks:
            yield block.json_columns() if isinstance(block, _Segments) else block.rows()

    def column(self, name: str) -> np.ndarray:
        """Field ``name`` of every row: ``float64`` for :data:`FLOAT_FIELDS` (``nan`` for
        ``None``), else an object array of the rows' values."""
        if name not in ROW_FIELDS:
            raise KeyError(f"{name!r} is not a results field: one of {ROW_FIELDS}")
        if name not in self._columns:
            parts = [b.column(name) for b in self._blocks]
            empty = np.zeros(0, dtype=np.float64 if name in FLOAT_FIELDS else object)
            self._columns[name] = np.concatenate(parts) if parts else empty
        return self._columns[name]

    def corpus_rows(self, level: str = "corpus") -> list[ResultRow]:
        """The corpus-level rows, in run order (few: one per corpus and implementation; an
        engine block holds segment rows only); ``level="sample"``: the spot check's corpus
        scores of its sampled segments instead."""
        return [
            r
            for block in self._blocks
            if isinstance(block, _Rows)
            for r in block.rows()
            if r.level == level
        ]

    def row(self, index: int) -> ResultRow:
        """Row ``index`` (built alone: the table's other rows stay columns)."""
        if index < 0:
            index += len(self)
        for block in self._blocks:
            if index < len(block):
                return block.row(index)
            index -= len(block)
        raise IndexError("results row out of range")

    def distinct(self, *names: str, level: str | None = None) -> list[tuple[Any, ...]]:
        """The distinct combinations of fields ``names`` over the rows (of ``level`` only,
        when given), in first-seen order."""
        for name in names:
            if name not in ROW_FIELDS:
                raise KeyError(f"{name!r} is not a results field: one of {ROW_FIELDS}")
        seen: dict[tuple[Any, ...], None] = {}
        for block in self._blocks:
            seen.update(dict.fromkeys(block.distinct(names, level)))
        return list(seen)

    def segment_counts(self) -> dict[tuple[str, str, str], tuple[int, Kind]]:
        """Per ``(implementation, fixture, system)`` with segment rows that name a segment,
        in first-seen order: how many, and the implementation's ``kind`` there (its last
        row's)."""
        out: dict[tuple[str, str, str], list[Any]] = {}
        for block in self._blocks:
            for key, (n, kind) in block.segment_counts().items():
                entry = out.setdefault(key, [0, kind])
                entry[0] += n
                entry[1] = kind
        return {key: (int(n), Kind(kind)) for key, (n, kind) in out.items()}

    def labels(self) -> list[str]:
        """The implementation labels, in first-seen order."""
        return list(self._labels)

    @cached_property
    def _labels(self) -> tuple[str, ...]:
        return tuple(str(label) for (label,) in self.distinct("implementation"))

    def segment_scores(self, implementation: str) -> SegmentScores:
        """The segment rows of ``implementation``: their keys, status and score."""
        mask = (self.column("implementation") == implementation) & (
            self.column("level") == "segment"
        )
        at = np.flatnonzero(mask)
        fixture, system = self.column("fixture")[at], self.column("system")[at]
        seg = self.column("segment_id")[at]
        keys = list(zip(fixture.tolist(), system.tolist(), seg.tolist(), strict=True))
        return SegmentScores(keys, self.column("status")[at], self.column("score")[at], at)

    def segment_index(self, implementation: str) -> SegmentIndex:
        """:class:`SegmentIndex` of ``implementation``'s segment rows (made once per table,
        from each block's part, made once per block: tables selected from this one share
        their blocks)."""
        if implementation not in self._indexes:
            parts: list[_SegmentPart] = []
            scores, at, unnamed = [], [], []
            start = 0
            for block in self._blocks:
                part = _segment_part(block, implementation)
                if part is not None:
                    parts.append(part)
                    scores.append(part.score)
                    at.append(part.at + start)
                    unnamed.append(part.unnamed + start)
                start += len(block)
            joined = _join(parts)
            self._indexes[implementation] = SegmentIndex(
                joined.keys,
                joined.position,
                np.concatenate(scores) if scores else np.zeros(0, dtype=np.float64),
                np.concatenate(at) if at else np.zeros(0, dtype=np.int64),
                joined.corpora,
                np.concatenate(unnamed) if unnamed else np.zeros(0, dtype=np.int64),
            )
        return self._indexes[implementation]

    def select(self, implementations: Iterable[str]) -> Results:
        """The rows of ``implementations`` only, in run order."""
        wanted = set(implementations)
        blocks: list[Any] = []
        for block in self._blocks:
            if isinstance(block, _Segments):
                if block.constant("implementation") in wanted:
                    blocks.append(block)
            else:
                blocks.append(block.of(wanted))
        return Results(blocks)


def as_results(rows: Results | Iterable[ResultRow]) -> Results:
    """``rows`` as a :class:`Results` (itself if it is one)."""
    return rows if isinstance(rows, Results) else Results.from_rows(rows)
