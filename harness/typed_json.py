"""Frozen dataclasses as JSON: one serialiser, its checked reverse, and a JSON Schema.

Every layer's result types — the report (:class:`harness.analysis.study_types.Report`), the
runner's results row (:class:`harness.run.results.ResultRow`), a BLEU result, a fixture, a
correlation — are frozen dataclasses whose type hints say what each field holds. This module
(of the foundation, so that every layer can use it) reads those hints, so that one
declaration is the only owner of a shape:

* :func:`to_json` turns a value into plain JSON values: a dataclass into an object of its
  fields, in declaration order, mappings into objects, tuples into arrays, enums into their values, numpy numbers into
  Python numbers, NaN and ±inf into ``None``;
* :func:`from_json` builds a dataclass (or any hinted type) from JSON values and raises
  :class:`JsonShapeError`, naming the key, on a value of the wrong kind, a missing or an
  unknown key;
* :func:`json_schema` writes the JSON Schema (draft 2020-12) of a dataclass: ``str``,
  ``int``, ``float``, ``bool`` and ``None`` (and unions of them) as ``type``, ``Literal`` and
  enums as ``enum``, tuples and lists as arrays (a fixed-length tuple with ``prefixItems``),
  ``Mapping[str, X]`` as an object with ``additionalProperties``, nested dataclasses under
  ``$defs``; every field is ``required`` and no other key is allowed.

A field's JSON key is its name, or ``metadata["json_name"]`` (``"$schema"`` is no Python
name); a field with ``metadata["json"] = False`` stays in memory only (it is neither written
nor in the schema); a field with ``metadata["json_codec"]`` (a :class:`JsonCodec`) is written
in another form than its type's (the n-gram counts of a results row: ``"8 4 2 0"``); a
``Mapping[str, X]`` field with ``metadata["json_flatten"] = True`` writes its items as keys of
the object itself (a correlation's estimates, one key per method); a field with
``metadata["omit_empty"] = True`` is left out when its value is empty (``len(value) == 0``: an
empty tuple, list, mapping or string), is not ``required`` in the schema, and takes its
default when :func:`from_json` finds no key for it.

Derived values a class computes are written after its fields when the class names them in
``JSON_PROPERTIES: ClassVar[tuple[str | tuple[str, str], ...]]``: properties (or methods
taking no argument), each written under its own name, or ``(JSON key, attribute)`` for another
key; :func:`json_schema` lists them (with the return type of the property), :func:`from_json`
accepts and ignores them. A class whose JSON keys must come in another order than its fields
then its properties (an order older readers rely on, which the constructor's positional order
cannot follow) names every JSON key in that order in ``JSON_ORDER: ClassVar[tuple[str, ...]]``
(a flattened field by its own key); anything else is a :class:`TypeError` when first written.
:data:`JsonValue` marks a value kept as given (any JSON). :class:`StrEnum` is the base of the
enums the result types hold: their members are the strings they stand for.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any, Literal, NewType, Union, get_args, get_origin

import numpy as np

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "SPACE_SEPARATED",
    "JsonCodec",
    "JsonShapeError",
    "JsonValue",
    "StrEnum",
    "from_json",
    "json_fields",
    "json_schema",
    "to_json",
]

#: Any JSON value, kept as it was given (e.g. precomputed results a caller passes in).
JsonValue = NewType("JsonValue", object)

#: The JSON Schema dialect :func:`json_schema` writes.
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class JsonShapeError(ValueError):
    """A JSON value does not have the shape a type asks for (the message names the key)."""


if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - the standard library's from Python 3.11

    class StrEnum(str, enum.Enum):
        """An enum whose members are strings: equal to, hashed and printed as their value."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return str(self.value).__format__(spec)


@dataclasses.dataclass(frozen=True)
class JsonCodec:
    """A field's JSON form when it is not its type's: ``encode`` turns the field's value into
    JSON values, ``decode`` (``decode(json, path)``) reads it back and raises
    :class:`JsonShapeError` on a wrong one, ``schema`` is the JSON Schema of that form."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any, str], Any]
    schema: Mapping[str, Any]


def _encode_spaced(value: Sequence[int] | None) -> str | None:
    return None if value is None else " ".join(map(str, value))


def _decode_spaced(value: Any, path: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    words = value.split(" ") if isinstance(value, str) else None
    if words is None or not all(w.isdecimal() for w in words if value):
        raise JsonShapeError(
            f"{_where(path)} must be integers separated by spaces or null, "
            f"got {type(value).__name__} {value!r:.40}"
        )
    return tuple(int(w) for w in words) if value else ()


#: Integers as one string, separated by spaces (``(8, 4, 2, 0)`` ↔ ``"8 4 2 0"``), or null.
SPACE_SEPARATED = JsonCodec(
    _encode_spaced, _decode_spaced, {"type": ["string", "null"], "pattern": "^[0-9 ]*$"}
)


# ---------------------------------------------------------------------- fields
def _json_key(field: dataclasses.Field[Any]) -> str:
    return str(field.metadata.get("json_name", field.name))


def json_fields(cls: type) -> list[tuple[str, str, Any]]:
    """``(field name, JSON key, type hint)`` of every field of the dataclass ``cls`` that is
    written to JSON, in declaration order."""
    return list(_fields(cls))


@cache
def _fields(cls: type) -> tuple[tuple[str, str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple(
        (f.name, _json_key(f), hints[f.name])
        for f in dataclasses.fields(cls)
        if f.metadata.get("json", True)
    )


@cache
def _codecs(cls: type) -> dict[str, JsonCodec]:
    """The fields of ``cls`` written in another form than their type's, by field name."""
    return {
        f.name: f.metadata["json_codec"]
        for f in dataclasses.fields(cls)
        if f.metadata.get("json", True) and "json_codec" in f.metadata
    }


@cache
def _flattened(cls: type) -> str | None:
    """The field of ``cls`` whose items are written as keys of the object itself, if any."""
    names = [
        f.name
        for f in dataclasses.fields(cls)
        if f.metadata.get("json", True) and f.metadata.get("json_flatten", False)
    ]
    if len(names) > 1:
        raise TypeError(f"{cls.__name__} flattens more than one field: {names}")
    return names[0] if names else None


#: What a JSON key of a dataclass holds: a field, a property, or a method taking no argument.
_Kind = Literal["field", "property", "method"]


@cache
def _properties(cls: type) -> tuple[tuple[str, str, Any, _Kind], ...]:
    """``(attribute, JSON key, type hint, kind)`` of every derived value ``cls`` names in
    ``JSON_PROPERTIES``."""
    out: list[tuple[str, str, Any, _Kind]] = []
    for entry in getattr(cls, "JSON_PROPERTIES", ()):
        key, attr = (entry, entry) if isinstance(entry, str) else entry
        found = inspect.getattr_static(cls, attr, None)
        kind: _Kind
        if isinstance(found, property) and found.fget is not None:
            func, kind = found.fget, "property"
        elif inspect.isfunction(found):
            func, kind = found, "method"
        else:
            raise TypeError(f"{cls.__name__}.{attr} in JSON_PROPERTIES is no property or method")
        hint = typing.get_type_hints(func).get("return", Any)
        out.append((str(attr), str(key), hint, kind))
    return tuple(out)


@cache
def _written(cls: type) -> tuple[tuple[str, str, Any, _Kind], ...]:
    """``(attribute, JSON key, type hint, kind)`` of everything :func:`to_json` writes of
    ``cls``, in the order written (``JSON_ORDER``, or the fields then the properties)."""
    fields: list[tuple[str, str, Any, _Kind]] = [(n, k, h, "field") for n, k, h in _fields(cls)]
    every = (*fields, *_properties(cls))
    order = getattr(cls, "JSON_ORDER", None)
    if order is None:
        return every
    by_key = {entry[1]: entry for entry in every}
    if len(by_key) != len(every) or sorted(order) != sorted(by_key):
        raise TypeError(f"{cls.__name__}.JSON_ORDER must name each JSON key once: {sorted(by_key)}")
    return tuple(by_key[key] for key in order)


@cache
def _omit_empty(cls: type) -> frozenset[str]:
    """The JSON keys of ``cls`` left out when their value is empty (``omit_empty``)."""
    return frozenset(
        _json_key(f)
        for f in dataclasses.fields(cls)
        if f.metadata.get("json", True) and f.metadata.get("omit_empty", False)
    )


# ---------------------------------------------------------------------- to JSON
def to_json(value: Any) -> Any:
    """Plain JSON values (module docstring): dataclasses → objects of their JSON fields,
    mappings → objects (keys as strings), tuples and lists → arrays, enums → their values,
    numpy scalars and arrays → Python numbers and lists, paths → strings, NaN/±inf →
    ``None``; a dataclass's ``JSON_PROPERTIES`` after its fields (or in ``JSON_ORDER``). It is
    the one serialiser: no result type writes its own dictionary.

    Raises:
        TypeError: a value with no JSON form.
    """
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_to_json(value)
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_json(value.tolist())
    if isinstance(value, np.generic):
        return to_json(value.item())
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"a {type(value).__name__} has no JSON form")


def _dataclass_to_json(value: Any) -> dict[str, Any]:
    cls: type = type(value)
    codecs, flat, omit = _codecs(cls), _flattened(cls), _omit_empty(cls)
    out: dict[str, Any] = {}
    for name, key, _, kind in _written(cls):
        got = getattr(value, name)
        if kind == "method":
            got = got()
        if key in omit and kind == "field" and not len(got):
            continue
        if name == flat and kind == "field":
            out.update({str(k): to_json(v) for k, v in got.items()})
        else:
            out[key] = to_json(codecs[name].encode(got) if name in codecs else got)
    return out


# ---------------------------------------------------------------------- from JSON
def _union_args(hint: Any) -> tuple[Any, ...] | None:
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return get_args(hint)
    return None


def _describe(hint: Any) -> str:
    """What a value of ``hint`` is, in words: ``a string, an integer or null``."""
    members = _union_args(hint)
    if members is not None:
        words = list(dict.fromkeys(_describe(m) for m in members))
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    if hint is type(None):
        return "null"
    if hint is Any or hint is JsonValue:
        return "any JSON value"
    if get_origin(hint) is Literal or _is_enum(hint):
        values = [m.value for m in hint] if _is_enum(hint) else get_args(hint)
        shown = [repr(x) for x in values]
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    simple = {str: "a string", bool: "true or false", int: "an integer", float: "a number"}
    if hint in simple:
        return simple[hint]
    if dataclasses.is_dataclass(hint) or get_origin(hint) in (dict, Mapping):
        return "an object"
    return "an array"


def _is_enum(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, enum.Enum)


def _where(path: str) -> str:
    return repr(path) if path else "the value"


def _wrong(hint: Any, value: Any, path: str) -> JsonShapeError:
    return JsonShapeError(
        f"{_where(path)} must be {_describe(hint)}, got {type(value).__name__} {value!r:.40}"
    )


def from_json(hint: Any, value: Any, path: str = "") -> Any:
    """A value of type ``hint`` (a dataclass or any hint :func:`json_schema` knows) from the
    JSON ``value``: objects become dataclasses (their JSON keys mapped to fields; in-memory
    fields take their defaults), arrays become tuples or lists. ``path`` names ``value`` in
    messages.

    Raises:
        JsonShapeError: a value of the wrong kind (``'hyp_len' must be an integer or null,
            got str '25'``), missing or unknown keys, an array of the wrong length.
    """
    members = _union_args(hint)
    if members is not None:
        for member in members:
            try:
                return from_json(member, value, path)
            except JsonShapeError:
                continue
        raise _wrong(hint, value, path)
    if hint is Any or hint is JsonValue:
        return value
    if hint is type(None):
        if value is not None:
            raise _wrong(hint, value, path)
        return None
    if get_origin(hint) is Literal:
        if not any(value == x and type(value) is type(x) for x in get_args(hint)):
            raise _wrong(hint, value, path)
        return value
    if _is_enum(hint):
        for member in hint:
            if value == member.value and type(value) is type(member.value):
                return member
        raise _wrong(hint, value, path)
    if hint in (str, bool):
        if not isinstance(value, hint):
            raise _wrong(hint, value, path)
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _wrong(hint, value, path)
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _wrong(hint, value, path)
        return value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_from_json(hint, value, path)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            raise _wrong(hint, value, path)
        return {k: from_json(args[1], v, f"{path}[{k!r}]") for k, v in value.items()}
    if origin in (tuple, list, Sequence):
        if not isinstance(value, list):
            raise _wrong(hint, value, path)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise JsonShapeError(
                    f"{_where(path)} must be an array of {len(args)}, got {len(value)} items"
                )
            return tuple(
                from_json(a, v, f"{path}[{i}]")
                for i, (a, v) in enumerate(zip(args, value, strict=True))
            )
        items = [from_json(args[0], v, f"{path}[{i}]") for i, v in enumerate(value)]
        return items if origin is list else tuple(items)
    raise TypeError(f"from_json does not know the type {hint!r}")


def _dataclass_from_json(cls: type, value: Any, path: str) -> Any:
    if not isinstance(value, dict):
        raise JsonShapeError(
            f"{'expected' if not path else repr(path) + ' must be'} a JSON object, "
            f"got {type(value).__name__}"
        )
    flat = _flattened(cls)
    fields = [f for f in _fields(cls) if f[0] != flat]
    keys = [key for _, key, _ in fields]
    omit = _omit_empty(cls)
    missing = [k for k in keys if k not in value and k not in omit]
    if missing:
        where = f" in {path!r}" if path else ""
        raise JsonShapeError(f"missing key(s) {', '.join(map(repr, missing))}{where}")
    derived = {key for _, key, _, _ in _properties(cls)}
    rest = {k: v for k, v in value.items() if k not in keys and k not in derived}
    unknown = sorted(rest) if flat is None else []
    if unknown:
        where = f" in {path!r}" if path else ""
        raise JsonShapeError(f"unknown key(s) {', '.join(map(repr, unknown))}{where}")
    codecs = _codecs(cls)
    kwargs = {
        name: (codecs[name].decode if name in codecs else partial(from_json, hint))(
            value[key], f"{path}.{key}" if path else key
        )
        for name, key, hint in fields
        if key in value
    }
    if flat is not None:
        hint = typing.get_type_hints(cls)[flat]
        kwargs[flat] = from_json(hint, rest, path)
    return cls(**kwargs)


# ---------------------------------------------------------------------- JSON Schema
_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _doc(cls: type) -> str:
    """The first paragraph of a class docstring, on one line."""
    text = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(text.split())


def _schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    members = _union_args(hint)
    if members is not None:
        if all(m in _SIMPLE for m in members):
            return {"type": [_SIMPLE[m] for m in members]}
        return {"anyOf": [_schema(m, defs) for m in members]}
    if hint is Any or hint is JsonValue:
        return {}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if get_origin(hint) is Literal or _is_enum(hint):
        values = [m.value for m in hint] if _is_enum(hint) else list(get_args(hint))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        name = hint.__name__
        if name not in defs:
            defs[name] = {}  # a placeholder first: a dataclass may refer to itself
            defs[name] = _object_schema(hint, defs)
        return {"$ref": f"#/$defs/{name}"}
    origin, args = get_origin(hint), get_args(hint)
    if origin in (dict, Mapping):
        if args[0] is not str:
            raise TypeError(f"JSON object keys are strings, not {args[0]!r}")
        return {"type": "object", "additionalProperties": _schema(args[1], defs)}
    if origin in (tuple, list, Sequence):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return {
                "type": "array",
                "prefixItems": [_schema(a, defs) for a in args],
                "items": False,
                "minItems": len(args),
            }
        return {"type": "array", "items": _schema(args[0], defs)}
    raise TypeError(f"json_schema does not know the type {hint!r}")


def _object_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    written, flat = _written(cls), _flattened(cls)
    out: dict[str, Any] = {"type": "object"}
    if _doc(cls):
        out["description"] = _doc(cls)
    codecs = _codecs(cls)
    shown = [w for w in written if not (w[0] == flat and w[3] == "field")]
    out["properties"] = {
        key: dict(codecs[name].schema)
        if name in codecs and kind == "field"
        else _schema(hint, defs)
        for name, key, hint, kind in shown
    }
    omit = _omit_empty(cls)
    out["required"] = [key for _, key, _, _ in shown if key not in omit]
    if flat is None:
        out["additionalProperties"] = False
    else:
        out["additionalProperties"] = _schema(get_args(typing.get_type_hints(cls)[flat])[1], defs)
    return out


def json_schema(cls: type, *, schema_id: str | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the dataclass ``cls`` (module docstring): its
    object at the top, every nested dataclass under ``$defs``; ``schema_id`` becomes
    ``$id``."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    defs: dict[str, Any] = {}
    body = _object_schema(cls, defs)
    head: dict[str, Any] = {"$schema": JSON_SCHEMA_DIALECT}
    if schema_id is not None:
        head["$id"] = schema_id
    head["title"] = cls.__name__
    return {**head, **body, "$defs": dict(sorted(defs.items()))}
