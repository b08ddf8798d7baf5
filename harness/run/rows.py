"""The row of the results table: :class:`ResultRow`, its enums and its JSON form.

A row is a dictionary only where it is written or read: :func:`row_to_json` (results.jsonl,
CSV, the libraries' results cache) and :func:`row_from_json` (``report --results``, the
cache); :class:`JsonColumns` is a block of rows in that form, column by column.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from itertools import starmap
from typing import Any, cast

from harness.typed_json import SPACE_SEPARATED, StrEnum, from_json

__all__ = [
    "FLOAT_FIELDS",
    "ROW_FIELDS",
    "JsonColumns",
    "Kind",
    "Level",
    "ResultRow",
    "Status",
    "row_from_json",
    "row_to_json",
]


class Status(StrEnum):
    """Why a row has a score or not (:data:`harness.scorers.STATUSES`, the same values)."""

    OK = "ok"
    RAISES = "raises"
    REFUSED = "refused"
    UNAVAILABLE = "unavailable"
    UNSUPPORTED = "unsupported"
    NON_FINITE = "non-finite"
    ERROR = "error"


class Level(StrEnum):
    """What a row scores: a whole corpus, one segment of it, or (``sample``) the corpus-level
    score of the segments of a system a real library was spot-checked on
    (:mod:`harness.run.library_sample`), for the library and for its own profile."""

    CORPUS = "corpus"
    SEGMENT = "segment"
    SAMPLE = "sample"


class Kind(StrEnum):
    """What computed a row: an in-house profile (the engine) or a real library's adapter."""

    PROFILE = "profile"
    ADAPTER = "adapter"


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One row of the results table: one implementation's score of one corpus (``level``
    ``corpus``) or segment (``segment``, with its ``segment_id``) of a fixture's system, or of
    the segments a library was spot-checked on (``sample``, :class:`Level`).

    ``implementation`` is the row label (``harness:<profile>`` or the adapter's name), ``kind``
    ``profile`` or ``adapter`` and ``config`` the profile's or adapter's name. ``status`` is
    ``ok`` or why there is no score (:data:`harness.scorers.STATUSES`; ``error`` says why);
    ``score`` (0–100), ``bp``, ``ratio``, ``hyp_len`` and ``ref_len`` (a float for an average
    reference length) are the result's, ``None`` when there is none (or a library does not
    expose it); ``counts`` and ``totals`` are the
    matched and total n-grams per order (in JSON one string, space-separated). ``signature``
    is the variant's (the ``BleuConfig`` signature or the library's own), ``call`` the library
    call made and ``module_source`` where a library module was loaded from when it is not the
    installed one.

    Its JSON form (:func:`row_to_json`) is an object with the keys ``ROW_FIELDS``;
    ``report --results`` checks every row of a results file against this shape
    (:func:`row_from_json`).
    """

    fixture: str
    system: str
    implementation: str
    kind: Kind
    config: str
    level: Level
    segment_id: str | int | None
    status: Status
    score: float | None
    bp: float | None
    ratio: float | None
    hyp_len: int | None
    ref_len: float | None
    counts: tuple[int, ...] | None = field(metadata={"json_codec": SPACE_SEPARATED})
    totals: tuple[int, ...] | None = field(metadata={"json_codec": SPACE_SEPARATED})
    signature: str | None
    error: str | None
    call: str | None
    module_source: str | None


def _slot_init(cls: type) -> Callable[..., None]:
    """An ``__init__`` for the frozen slots dataclass ``cls`` with the dataclass's own
    signature (every field, in order, positional or by name; none has a default) that stores
    each argument through its slot's descriptor in one straight line, where the dataclass's
    ``__init__`` calls ``object.__setattr__`` by name for each field."""
    names = [f.name for f in fields(cls)]
    if any(f.default is not MISSING or f.default_factory is not MISSING for f in fields(cls)):
        raise TypeError(f"{cls.__name__}: a field with a default needs the dataclass's __init__")
    namespace = {f"_set_{k}": cls.__dict__[k].__set__ for k in names}
    lines = [f"def __init__(self, {', '.join(names)}):"]
    lines += [f"    _set_{k}(self, {k})" for k in names]
    exec("\n".join(lines), namespace)  # source built from the field names only
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


setattr(ResultRow, "__init__", _slot_init(ResultRow))  # noqa: B010 - mypy keeps the signature

#: The keys of a results row, in order: the fields of :class:`ResultRow`.
ROW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ResultRow))


class _Draft:
    """A row while it is built in bulk (:func:`_rows_from_columns`): the slots of
    :class:`ResultRow` in the same order, so the same memory layout, set as plain attributes;
    its ``__init__`` then makes the object a :class:`ResultRow`."""

    __slots__ = ROW_FIELDS


def _draft_init(names: Sequence[str]) -> Callable[..., None]:
    lines = [f"def __init__(self, {', '.join(names)}):"]
    lines += [f"    self.{k} = {k}" for k in names]
    lines.append("    self.__class__ = ResultRow")
    namespace: dict[str, Any] = {"ResultRow": ResultRow}
    exec("\n".join(lines), namespace)  # source built from the field names only
    init: Callable[..., None] = namespace["__init__"]
    return init


setattr(_Draft, "__init__", _draft_init(ROW_FIELDS))  # noqa: B010


def _rows_from_columns(columns: Sequence[Iterable[Any]]) -> list[ResultRow]:
    """The rows whose fields, in ``ROW_FIELDS`` order, are ``columns``' values (a column
    per field, a value per row): the rows :class:`ResultRow` itself would build, each set as
    attributes of a draft that then becomes the row (a frozen dataclass sets each field
    through ``object.__setattr__``)."""
    build = cast("Callable[..., ResultRow]", _Draft)  # each draft becomes a ResultRow
    return list(starmap(build, zip(*columns, strict=True)))


#: The fields whose column is ``float64`` (``nan`` where the row has ``None``); the others
#: are object arrays of the rows' own values.
FLOAT_FIELDS: tuple[str, ...] = ("score", "bp", "ratio")


#: The fields of a row written through their codec (:data:`SPACE_SEPARATED`).
_CODED = {f.name: f.metadata["json_codec"] for f in fields(ResultRow) if "json_codec" in f.metadata}
_ENUMS = ("kind", "level", "status")


def row_to_json(row: ResultRow) -> dict[str, Any]:
    """The JSON object of ``row``: its fields in order, the enums as their values, the
    n-gram counts and totals as space-separated strings — :func:`harness.typed_json.to_json`
    of the row, written here field by field (a results file has millions of rows)."""
    out = {k: getattr(row, k) for k in ROW_FIELDS}
    for k in _ENUMS:
        out[k] = out[k].value if isinstance(out[k], Enum) else out[k]
    for k, codec in _CODED.items():
        out[k] = codec.encode(out[k])
    for k in FLOAT_FIELDS:
        if out[k] is not None and not math.isfinite(out[k]):
            out[k] = None
    return out


def row_from_json(obj: Any, *, checked: bool = True) -> ResultRow:
    """The row of the JSON object ``obj`` (:func:`row_to_json`'s reverse). ``checked``: every
    key and value is checked (:func:`harness.typed_json.from_json`; raises
    :class:`~harness.typed_json.JsonShapeError`); else ``obj`` is trusted as written by
    :func:`row_to_json` (the libraries' results cache)."""
    if checked:
        row: ResultRow = from_json(ResultRow, obj)
        return row
    return ResultRow(
        obj["fixture"],
        obj["system"],
        obj["implementation"],
        Kind(obj["kind"]),
        obj["config"],
        Level(obj["level"]),
        obj["segment_id"],
        Status(obj["status"]),
        obj["score"],
        obj["bp"],
        obj["ratio"],
        obj["hyp_len"],
        obj["ref_len"],
        SPACE_SEPARATED.decode(obj["counts"], "counts"),
        SPACE_SEPARATED.decode(obj["totals"], "totals"),
        obj["signature"],
        obj["error"],
        obj["call"],
        obj["module_source"],
    )


@dataclass(frozen=True)
class JsonColumns:
    """A block of ``n`` segment rows in their JSON form (:func:`row_to_json`'s values), column
    by column: ``constant`` the JSON value of each field equal on every row; ``columns`` the
    others — a ``float64`` array for each of :data:`FLOAT_FIELDS` (``nan``: null), a 2-D
    integer array (a row per row) for the n-gram counts and totals, else a list of the rows'
    values (the enums as their values)."""

    n: int
    constant: dict[str, Any]
    columns: dict[str, Any]


def _json_value(name: str, value: Any) -> Any:
    """Field ``name``'s ``value`` as :func:`row_to_json` writes it."""
    if isinstance(value, Enum):
        return value.value
    if name in _CODED:
        return _CODED[name].encode(value)
    if name in FLOAT_FIELDS and value is not None and not math.isfinite(value):
        return None
    return value
