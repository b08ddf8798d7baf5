"""The report object's shape: its version, keys, sections, files and defaults, and the JSON
hygiene every value goes through (the schema itself is documented in :mod:`harness.report`)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

SCHEMA_VERSION = "3"

#: The top-level keys of a report, in order (see the package docstring for each).
TOP_KEYS: tuple[str, ...] = (
    "summary",
    "answer",
    "signature",
    "versions",
    "verification",
    "fixtures",
    "pairs",
    "segments",
    "correlations",
    "attributions",
    "human",
    "significance",
)

#: The sections :func:`~harness.report.build.build_report` computes by default.
DEFAULT_INCLUDE: tuple[str, ...] = (
    "pairs",
    "correlations",
    "attributions",
    "human",
    "significance",
)

#: Output formats of :func:`~harness.report.write.write_report` and the file each writes.
FORMATS: Mapping[str, str] = MappingProxyType(
    {"md": "report.md", "json": "report.json", "html": "index.html"}
)

#: The tidy segment-level table written next to every report that has segment rows (one row
#: per implementation and segment), and its Parquet twin when pyarrow is importable.
SEGMENTS_CSV = "segments.csv"
SEGMENTS_PARQUET = "segments.parquet"
SEGMENT_COLUMNS: tuple[str, ...] = (
    "fixture",
    "system",
    "segment_id",
    "implementation",
    "kind",
    "status",
    "score",
)

#: Paired-bootstrap resamples of the default significance section.
SIGNIFICANCE_RESAMPLES = 1000
#: The default significance section tests at most this many multi-system fixtures.
MAX_SIGNIFICANCE_FIXTURES = 4

CORRELATION_METHODS: tuple[str, ...] = ("pearson", "kendall")

#: Profile pairs attributed by default (``a`` → ``b``), when both profiles have rows.
DEFAULT_ATTRIBUTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("sacrebleu", "nltk"),
    ("sacrebleu", "evaluate"),
    ("sacrebleu", "torchmetrics"),
    ("sacrebleu", "sacrebleu-sentence"),
    ("sacrebleu", "pycocoevalcap"),
)

#: How to get a significance section when a report has none (the section's ``how``).
SIGNIFICANCE_HOW = (
    "run `bleu-harness report` on the corpora (not from --results) with a fixture that has "
    "two or more systems (e.g. --fixture silence_pitfall, or --wmt21), or test two hypothesis "
    "files directly: `bleu-harness significance BASELINE SYSTEM REF [REF ...] --profile NAME`"
)


def jsonable(obj: Any) -> Any:
    """Plain JSON values: mappings → dicts, tuples → lists, numpy scalars → Python numbers,
    NaN/±inf → ``None``; objects with ``to_dict()`` are converted first."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "to_dict") and callable(obj.to_dict):
        return jsonable(obj.to_dict())
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot put a {type(obj).__name__} into a report")


def json_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """The report as ``report.json`` holds it: the in-memory segment table
    (``segments["table"]``) is left out — it is written to ``segments["file"]``."""
    out = dict(report)
    seg = out.get("segments")
    if isinstance(seg, Mapping) and "table" in seg:
        out["segments"] = {k: v for k, v in seg.items() if k != "table"}
    return out


def render_json(report: Mapping[str, Any]) -> str:
    """``report.json``: :func:`json_view` of the report as JSON text (UTF-8 characters kept,
    ``indent=2``, no NaN), newline-ended."""
    return json.dumps(json_view(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
