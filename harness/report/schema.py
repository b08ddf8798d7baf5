"""``report.json`` and its JSON Schema, the output files, and the check of one against the other.

The report's shape has one owner: the dataclasses of :mod:`harness.analysis.study_types`.
``report.json`` is their serialisation (:func:`render_json`) and ``report.schema.json``, written
next to it, is the JSON Schema generated from their type hints (:func:`report_schema`);
``report.json``'s ``$schema`` names that file.

With the environment variable :data:`VALIDATE_ENV` set (the test suite sets it), the writer
checks every ``report.json`` against the generated schema with :mod:`jsonschema` (a
development dependency) before it writes anything (:func:`validate_report_json`).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from harness.analysis.study_types import (
    SCHEMA_FILE,
    SCHEMA_VERSION,
    SEGMENTS_CSV,
    TOP_KEYS,
    Report,
)
from harness.typed_json import json_schema, to_json

__all__ = [
    "FORMATS",
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "TOP_KEYS",
    "VALIDATE_ENV",
    "render_json",
    "render_schema",
    "report_schema",
    "validate_report_json",
]

#: Output formats of :func:`~harness.report.write.write_report` and the file each writes.
#: ``csv`` writes the segment table as CSV too, beside the Parquet file every report with
#: segment rows has.
FORMATS: Mapping[str, str] = MappingProxyType(
    {"md": "report.md", "json": "report.json", "html": "index.html", "csv": SEGMENTS_CSV}
)

#: Set (to anything but ``""`` or ``0``) to check every ``report.json`` written against its
#: schema (:func:`validate_report_json`).
VALIDATE_ENV = "BLEU_HARNESS_VALIDATE_REPORTS"


@cache
def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :class:`~harness.analysis.study_types.Report`,
    generated from its type hints (:func:`harness.typed_json.json_schema`)."""
    return json_schema(Report, schema_id=SCHEMA_FILE)


def render_schema() -> str:
    """``report.schema.json``: :func:`report_schema` as JSON text (``indent=2``),
    newline-ended."""
    return json.dumps(report_schema(), ensure_ascii=False, indent=2) + "\n"


def render_json(report: Report) -> str:
    """``report.json``: the report as JSON text (UTF-8 characters kept, ``indent=2``, no NaN),
    newline-ended; its ``$schema`` names :data:`SCHEMA_FILE`."""
    return json.dumps(to_json(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def validation_enabled() -> bool:
    """Whether :data:`VALIDATE_ENV` asks the writer to check each ``report.json``."""
    return os.environ.get(VALIDATE_ENV, "") not in ("", "0")


def validate_report_json(text: str) -> None:
    """Check ``report.json`` text against :func:`report_schema`.

    Raises:
        jsonschema.ValidationError: the report does not match its schema (the message names
            the failing key and its path).
    """
    # a development dependency, imported only when asked for (it ships no type information)
    jsonschema = importlib.import_module("jsonschema")
    jsonschema.Draft202012Validator(report_schema()).validate(json.loads(text))
