"""The report's shape has one owner: typed dataclasses, their serialiser and their JSON Schema.

:mod:`harness.typed_json` turns frozen dataclasses into JSON values, back again with
checks, and into a JSON Schema read from their type hints; :mod:`harness.report.schema` writes
that schema next to every ``report.json``. The suite validates every report it writes against
it (``tests/conftest.py`` sets :data:`harness.report.schema.VALIDATE_ENV`): these tests show
the generator handles every kind of field, and that a wrong report is rejected — so the check
can fail.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import jsonschema
import pytest

from harness.analysis.study import ReportOptions, analyse
from harness.analysis.study_types import TOP_KEYS, Report
from harness.data.fixtures import load_fixture
from harness.report import SCHEMA_FILE, render_json, write_report
from harness.report.schema import VALIDATE_ENV, report_schema, validate_report_json
from harness.run import RunPlan, results, run, runner
from harness.run.plan import named_corpora
from harness.session import Session
from harness.typed_json import (
    JSON_SCHEMA_DIALECT,
    SPACE_SEPARATED,
    JsonShapeError,
    JsonValue,
    StrEnum,
    from_json,
    json_schema,
    to_json,
)


@dataclass(frozen=True)
class Inner:
    """A nested object."""

    name: str
    weight: float


@dataclass(frozen=True)
class Every:
    """One field of each kind the generator knows."""

    text: str
    count: int
    share: float
    flag: bool
    maybe: float | None
    either: str | int | None
    choice: Literal["a", "b"]
    only: Literal["x"]
    many: tuple[int, ...]
    pair: tuple[str, float | None]
    items: list[str]
    table: Mapping[str, Mapping[str, float | None]]
    inner: Inner
    inners: tuple[Inner, ...]
    optional_inner: Inner | None
    anything: JsonValue
    renamed: str = field(metadata={"json_name": "$renamed"})
    memory: list[int] = field(default_factory=list, metadata={"json": False})


EXAMPLE = Every(
    text="t",
    count=3,
    share=0.5,
    flag=True,
    maybe=None,
    either=7,
    choice="b",
    only="x",
    many=(1, 2),
    pair=("p", None),
    items=["i"],
    table={"a": {"b": 1.0, "c": None}},
    inner=Inner("n", 1.5),
    inners=(Inner("m", 2.0),),
    optional_inner=None,
    anything=JsonValue({"free": [1, "form"]}),
    renamed="r",
    memory=[9],
)


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_schema_of_every_kind_of_field() -> None:
    schema = json_schema(Every, schema_id="every.schema.json")
    assert schema["$schema"] == JSON_SCHEMA_DIALECT and schema["$id"] == "every.schema.json"
    props = schema["properties"]
    assert props["text"] == {"type": "string"} and props["count"] == {"type": "integer"}
    assert props["share"] == {"type": "number"} and props["flag"] == {"type": "boolean"}
    assert props["maybe"] == {"type": ["number", "null"]}
    assert props["either"] == {"type": ["string", "integer", "null"]}
    assert props["choice"] == {"enum": ["a", "b"]} and props["only"] == {"const": "x"}
    assert props["many"] == {"type": "array", "items": {"type": "integer"}}
    assert props["pair"]["prefixItems"] == [{"type": "string"}, {"type": ["number", "null"]}]
    assert props["pair"]["items"] is False and props["pair"]["minItems"] == 2
    assert props["items"] == {"type": "array", "items": {"type": "string"}}
    assert props["table"] == {
        "type": "object",
        "additionalProperties": {
            "type": "object",
            "additionalProperties": {"type": ["number", "null"]},
        },
    }
    assert props["inner"] == {"$ref": "#/$defs/Inner"}
    assert props["inners"] == {"type": "array", "items": {"$ref": "#/$defs/Inner"}}
    assert props["optional_inner"] == {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]}
    assert props["anything"] == {}
    # a renamed field is written under its JSON name; an in-memory one not at all
    assert "$renamed" in props and "renamed" not in props and "memory" not in props
    assert schema["required"] == list(props) and schema["additionalProperties"] is False
    assert schema["$defs"]["Inner"]["required"] == ["name", "weight"]
    assert schema["$defs"]["Inner"]["description"] == "A nested object."


def test_serialiser_and_its_reverse_agree_with_the_schema() -> None:
    value = to_json(EXAMPLE)
    assert list(value) == [key for key in json_schema(Every)["properties"]]
    assert value["pair"] == ["p", None] and value["inner"] == {"name": "n", "weight": 1.5}
    assert value["$renamed"] == "r" and "memory" not in value
    _validator(json_schema(Every)).validate(value)
    back = from_json(Every, json.loads(json.dumps(value)))
    assert back == dataclasses.replace(EXAMPLE, memory=[])
    assert to_json(float("nan")) is None and to_json(math.inf) is None


@pytest.mark.parametrize(
    "change, message",
    [
        ({"count": "3"}, "'count' must be an integer, got str"),
        ({"count": True}, "'count' must be an integer, got bool"),
        ({"maybe": "x"}, "'maybe' must be a number or null"),
        ({"either": 1.5}, "'either' must be a string, an integer or null"),
        ({"choice": "c"}, "'choice' must be 'a' or 'b'"),
        ({"pair": ["p"]}, "'pair' must be an array of 2, got 1 items"),
        ({"inner": {"name": "n"}}, "missing key(s) 'weight' in 'inner'"),
        ({"inners": [{"name": "n", "weight": "w"}]}, "'inners[0].weight' must be a number"),
        ({"extra": 1}, "unknown key(s) 'extra'"),
    ],
)
def test_a_wrong_value_is_rejected_by_both_checks(change: dict[str, Any], message: str) -> None:
    value = {**to_json(EXAMPLE), **change}
    with pytest.raises(JsonShapeError) as info:
        from_json(Every, value)
    assert message in str(info.value)
    with pytest.raises(jsonschema.ValidationError):
        _validator(json_schema(Every)).validate(value)


@pytest.fixture(scope="module")
def report() -> Report:
    fx = load_fixture("silence_pitfall")
    corpora = fx.triples()
    impls = [runner.Implementation.parse(x) for x in ("profile:sacrebleu", "adapter:sacrebleu")]
    rows = run(RunPlan.of(corpora, impls, levels=("corpus", "segment"), progress=False))
    return analyse(rows, Session(named_corpora(corpora)), options=ReportOptions(n_boot=20))


def test_the_report_schema_is_valid_and_covers_every_key(report: Report) -> None:
    schema = report_schema()
    validator = _validator(schema)
    obj = json.loads(render_json(report))
    validator.validate(obj)
    assert schema["$id"] == SCHEMA_FILE == obj["$schema"]
    assert schema["required"] == list(TOP_KEYS) == list(obj)
    # every nested dataclass is defined, and every definition is used
    text = json.dumps(schema)
    for name in schema["$defs"]:
        assert f'"#/$defs/{name}"' in text


def _broken(report: Report) -> list[tuple[str, Report]]:
    pair = report.pairs[0]
    return [
        ("an old version", dataclasses.replace(report, schema_version="3")),
        (
            "an unknown verdict",
            dataclasses.replace(
                report, pairs=(dataclasses.replace(pair, verdict="maybe"), *report.pairs[1:])
            ),
        ),
        (
            "a string where a number belongs",
            dataclasses.replace(
                report, pairs=(dataclasses.replace(pair, tolerance="1e-9"), *report.pairs[1:])
            ),
        ),
    ]


def test_a_wrong_report_is_rejected_and_nothing_is_written(report: Report, tmp_path) -> None:
    import os

    assert os.environ.get(VALIDATE_ENV) == "1"  # tests/conftest.py: every report is checked
    validate_report_json(render_json(report))
    for what, bad in _broken(report):
        with pytest.raises(jsonschema.ValidationError):
            validate_report_json(render_json(bad))
        out = tmp_path / what.replace(" ", "-")
        with pytest.raises(jsonschema.ValidationError):
            write_report(bad, out, formats=("json",))
        assert not out.exists(), what
    paths = write_report(report, tmp_path / "good", formats=("json",))
    names = sorted(p.name for p in paths)
    assert "report.json" in names and SCHEMA_FILE in names
    on_disk = json.loads((tmp_path / "good" / SCHEMA_FILE).read_text(encoding="utf-8"))
    assert on_disk == report_schema()


def test_results_rows_are_checked_through_their_dataclass(report: Report) -> None:
    fields = [f.name for f in dataclasses.fields(results.ResultRow)]
    assert list(results.ROW_FIELDS) == fields
    fx = load_fixture("edge_empty_hypothesis")
    corpora = fx.triples()
    impls = [runner.Implementation.parse(x) for x in ("profile:sacrebleu", "profile:nltk")]
    rows = run(RunPlan.of(corpora, impls, levels=("corpus", "segment"), progress=False))
    for row in rows:
        line = json.loads(runner.rows_to_jsonl([row]))
        assert from_json(results.ResultRow, line) == row
        assert to_json(from_json(results.ResultRow, line)) == line
    with pytest.raises(JsonShapeError, match="'level' must be 'corpus', 'segment' or 'sample'"):
        from_json(results.ResultRow, {**json.loads(runner.rows_to_jsonl(rows[:1])), "level": "x"})
    with pytest.raises(JsonShapeError, match="'counts' must be integers separated by spaces"):
        from_json(results.ResultRow, {**json.loads(runner.rows_to_jsonl(rows[:1])), "counts": "a"})


class Colour(StrEnum):
    RED = "red"
    DARK_BLUE = "dark-blue"


@dataclass(frozen=True)
class Painted:
    colour: Colour
    counts: tuple[int, ...] | None = field(metadata={"json_codec": SPACE_SEPARATED})


def test_enums_are_written_as_their_values_and_codecs_in_their_form() -> None:
    value = Painted(Colour.DARK_BLUE, (8, 4, 0))
    data = to_json(value)
    assert data == {"colour": "dark-blue", "counts": "8 4 0"}
    assert type(data["colour"]) is str
    assert json.dumps(data) == '{"colour": "dark-blue", "counts": "8 4 0"}'
    back = from_json(Painted, data)
    assert back == value and type(back.colour) is Colour
    assert from_json(Painted, {"colour": "red", "counts": None}).counts is None
    with pytest.raises(JsonShapeError, match="'colour' must be 'red' or 'dark-blue'"):
        from_json(Painted, {"colour": "green", "counts": None})
    with pytest.raises(JsonShapeError, match="'counts' must be integers separated by spaces"):
        from_json(Painted, {"colour": "red", "counts": [8, 4]})
    schema = json_schema(Painted)
    assert schema["properties"]["colour"] == {"enum": ["red", "dark-blue"]}
    assert schema["properties"]["counts"]["type"] == ["string", "null"]
    _validator(schema).validate(data)


@dataclass(frozen=True)
class Sometimes:
    """An object whose ``extras`` key is written only when it has items."""

    name: str
    extras: tuple[str, ...] = field(default=(), metadata={"omit_empty": True})


def test_an_omit_empty_field_is_left_out_when_empty_and_optional_in_the_schema() -> None:
    schema = json_schema(Sometimes)
    assert schema["required"] == ["name"] and "extras" in schema["properties"]
    empty, full = Sometimes("a"), Sometimes("b", ("x",))
    assert to_json(empty) == {"name": "a"}
    assert to_json(full) == {"name": "b", "extras": ["x"]}
    for value in (empty, full):
        _validator(schema).validate(to_json(value))
        assert from_json(Sometimes, json.loads(json.dumps(to_json(value)))) == value
    with pytest.raises(JsonShapeError, match="missing key"):
        from_json(Sometimes, {"extras": []})
