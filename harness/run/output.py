"""The results table written as JSON Lines and CSV (what ``compare --out`` writes).

A row object is written through :func:`~harness.run.rows.row_to_json`; an in-house profile's
segment block (:class:`~harness.run.rows.JsonColumns`) is written from its columns, each
column's values turned into text at once, with the same bytes as its rows would give (tested).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from itertools import repeat
from json.encoder import encode_basestring
from typing import Any

import numpy as np

from harness.holds import collector_paused
from harness.run.results import ROW_FIELDS, JsonColumns, ResultRow, Results, row_to_json

__all__ = ["rows_to_csv", "rows_to_jsonl"]


def _blocks(rows: Iterable[ResultRow]) -> Iterator[JsonColumns | Iterable[ResultRow]]:
    if isinstance(rows, Results):
        yield from rows.json_blocks()
    else:
        yield rows


def rows_to_jsonl(rows: Iterable[ResultRow]) -> str:
    """JSON Lines, one row per line (:func:`~harness.run.rows.row_to_json`), fields in
    ``ROW_FIELDS`` order."""
    out: list[str] = []
    with collector_paused():
        for block in _blocks(rows):
            if isinstance(block, JsonColumns):
                out += _jsonl_lines(block)
            else:
                out += (
                    json.dumps(row_to_json(r), ensure_ascii=False, allow_nan=False) for r in block
                )
        return "\n".join(out) + "\n" if out else ""


def rows_to_csv(rows: Iterable[ResultRow]) -> str:
    """CSV with a header of ``ROW_FIELDS``; floats written with full precision (repr)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(ROW_FIELDS)
    with collector_paused():
        for block in _blocks(rows):
            lines = _csv_lines(block) if isinstance(block, JsonColumns) else None
            if lines is not None:
                buf.write("\n".join(lines) + "\n")
            elif isinstance(block, JsonColumns):
                w.writerows(zip(*_csv_columns(block), strict=True))
            else:
                w.writerows([_csv_cell(v) for v in row_to_json(r).values()] for r in block)
        return buf.getvalue()


def _csv_cell(value: Any) -> Any:
    return "" if value is None else repr(value) if isinstance(value, float) else value


# ------------------------------------------------------------- a block's columns
def _jsonl_lines(block: JsonColumns) -> Iterator[str]:
    """The JSON line of each row of ``block``: the constant fields' text written once, the
    others a column of texts each."""
    parts: list[str | list[str]] = []
    for k in ROW_FIELDS:
        parts.append((", " if parts else "{") + json.dumps(k) + ": ")
        if k in block.constant:
            parts.append(json.dumps(block.constant[k], ensure_ascii=False, allow_nan=False))
            continue
        values = block.columns[k]
        spaced = _spaced(values) if isinstance(values, np.ndarray) and values.ndim == 2 else None
        parts += ['"', spaced, '"'] if spaced is not None else [_json_texts(values)]
    parts.append("}")
    return _joined(parts, block.n)


def _joined(parts: list[str | list[str]], n: int) -> Iterator[str]:
    """``n`` lines, each the ``parts`` joined: a string is on every line, a list gives each
    line its own text."""
    merged: list[str | list[str]] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    columns = (repeat(p, n) if isinstance(p, str) else p for p in merged)
    return map("".join, zip(*columns, strict=True))


def _csv_columns(block: JsonColumns) -> list[Any]:
    """Each field's CSV cells over the rows of ``block``, in ``ROW_FIELDS`` order."""
    return [
        repeat(_csv_cell(block.constant[k]), block.n)
        if k in block.constant
        else _csv_texts(block.columns[k])
        for k in ROW_FIELDS
    ]


def _csv_lines(block: JsonColumns) -> Iterator[str] | None:
    """The CSV line of each row of ``block``, each cell as the CSV writer quotes it: the
    constant cells written once, the others a column of cells each; ``None`` when a cell
    holds a line break (the writer then writes the rows)."""
    parts: list[str | list[str]] = []
    for k, values in zip(ROW_FIELDS, _csv_columns(block), strict=True):
        if parts:
            parts.append(",")
        if k in block.constant:
            quoted = _quoted([next(iter(values))])
            if quoted is None:
                return None
            parts.append(quoted[0])
        else:
            raw = block.columns[k]
            plain = isinstance(raw, np.ndarray) or _numbers(raw)  # numbers' texts
            column = values if plain else _quoted(values)
            if column is None:
                return None
            parts.append(column)
    return _joined(parts, block.n)


def _quoted(cells: list[Any]) -> list[str] | None:
    """Each cell as the CSV writer writes it in a row of several; ``None`` if one holds a
    line break."""
    if any("\n" in c or "\r" in c for c in cells if isinstance(c, str)):
        return None
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([c, ""] for c in cells)
    return [line[:-1] for line in buf.getvalue().split("\n")[:-1]]


def _spaced(values: np.ndarray) -> list[str] | None:
    """Each row of a 2-D integer array as its numbers separated by spaces (the n-gram counts'
    JSON form), or ``None`` for an array without columns."""
    if not values.shape[1]:
        return None
    nested = json.dumps(values.tolist())  # "[[8, 4, 2, 0], [3, 1, 0, 0]]"
    return nested[2:-2].replace(", ", " ").split("] [")


def _numbers(values: list[Any]) -> bool:
    return set(map(type, values)) <= {int, float}


def _json_texts(values: Any) -> list[str]:
    """The JSON text of each value of a column of :class:`JsonColumns`."""
    if isinstance(values, np.ndarray) and values.ndim == 2:  # an array without columns
        values = [" ".join(map(str, row)) for row in values.tolist()]
    if isinstance(values, np.ndarray):  # a float field: nan and the non-finite are null
        out = json.dumps(values.tolist())[1:-1].split(", ")
        for j in np.flatnonzero(~np.isfinite(values)).tolist():
            out[j] = "null"
        return out
    if _numbers(values):
        return json.dumps(values, allow_nan=False)[1:-1].split(", ")
    if all(type(v) is str for v in values):
        return list(map(encode_basestring, values))
    return [json.dumps(v, ensure_ascii=False, allow_nan=False) for v in values]


def _csv_texts(values: Any) -> list[Any]:
    """The CSV cell of each value of a column of :class:`JsonColumns`."""
    if isinstance(values, np.ndarray) and values.ndim == 2:
        spaced = _spaced(values)
        return spaced if spaced is not None else [" ".join(map(str, r)) for r in values.tolist()]
    if isinstance(values, np.ndarray):  # a float field: nan and the non-finite are empty
        out: list[Any] = list(map(repr, values.tolist()))
        for j in np.flatnonzero(~np.isfinite(values)).tolist():
            out[j] = ""
        return out
    if _numbers(values):
        return list(map(repr, values))
    return [_csv_cell(v) for v in values]
