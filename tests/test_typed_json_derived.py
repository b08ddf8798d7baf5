"""typed_json's derived values (JSON_PROPERTIES), chosen key order (JSON_ORDER) and flattened
mappings (json_flatten): written, listed in the schema, read back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from harness.typed_json import JsonShapeError, from_json, json_schema, to_json


@dataclass(frozen=True)
class Span:
    """A span with its derived length."""

    start: int
    end: int
    hidden: tuple[int, ...] = field(default=(), metadata={"json": False})

    JSON_PROPERTIES: ClassVar[tuple[str | tuple[str, str], ...]] = (
        "length",
        ("label", "describe"),
    )

    @property
    def length(self) -> int:
        return self.end - self.start

    def describe(self) -> str:
        return f"{self.start}-{self.end}"


@dataclass(frozen=True)
class Ordered(Span):
    """The same span, its length first."""

    JSON_ORDER: ClassVar[tuple[str, ...]] = ("length", "start", "end", "label")


@dataclass(frozen=True)
class Flat:
    """Named numbers written as keys of their own, after the name."""

    values: Mapping[str, float] = field(metadata={"json_flatten": True})
    name: str

    JSON_ORDER: ClassVar[tuple[str, ...]] = ("name", "values")


def test_properties_follow_the_fields_and_are_ignored_when_read() -> None:
    span = Span(2, 7, (1,))
    assert list(to_json(span).items()) == [
        ("start", 2),
        ("end", 7),
        ("length", 5),
        ("label", "2-7"),
    ]
    assert from_json(Span, to_json(span)) == Span(2, 7)
    with pytest.raises(JsonShapeError, match="unknown key"):
        from_json(Span, {**to_json(span), "other": 1})


def test_json_order_chooses_the_order() -> None:
    assert list(to_json(Ordered(2, 7))) == ["length", "start", "end", "label"]
    schema = json_schema(Ordered)
    assert list(schema["properties"]) == ["length", "start", "end", "label"]
    assert schema["properties"]["length"] == {"type": "integer"}
    assert schema["required"] == ["length", "start", "end", "label"]


def test_a_json_order_missing_a_key_is_refused() -> None:
    @dataclass(frozen=True)
    class Bad(Span):
        JSON_ORDER: ClassVar[tuple[str, ...]] = ("start", "end")

    with pytest.raises(TypeError, match="JSON_ORDER"):
        to_json(Bad(1, 2))


def test_a_flattened_mapping_is_written_in_place_and_read_back() -> None:
    flat = Flat({"pearson": 0.5, "kendall": float("nan")}, "x")
    assert to_json(flat) == {"name": "x", "pearson": 0.5, "kendall": None}
    assert list(to_json(flat)) == ["name", "pearson", "kendall"]
    back = from_json(Flat, {"name": "x", "pearson": 0.5})
    assert back == Flat({"pearson": 0.5}, "x")
    schema = json_schema(Flat)
    assert schema["additionalProperties"] == {"type": "number"}
    assert schema["required"] == ["name"]
