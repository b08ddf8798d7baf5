"""The report's human-judgment sections as typed facts: every correlation with human judgments
the report shows, and the WMT meta-evaluation's headline numbers per implementation.

A report takes precomputed human results in the forms :mod:`harness.analysis.human` returns
(the JSON of a :class:`~harness.analysis.human.HumanCorrelations`, the flat rows of
:func:`~harness.analysis.human.wmt19_bleu_vs_human`, or a dict of those by name) and a
:class:`~harness.analysis.meta_eval.MetaEvaluation`; :func:`human_section` and
:func:`meta_evaluation_section` read them once into the dataclasses below, which the renderers
read. The results as given are kept beside them (``results``) for what the report does not
show (rankings, system scores, every Kendall variant).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.typed_json import JsonValue

__all__ = [
    "HumanCorrelation",
    "HumanSection",
    "MetaEvaluationRow",
    "MetaEvaluationSection",
    "human_section",
    "meta_evaluation_section",
]

_METHODS = ("pearson", "spearman", "kendall")


@dataclass(frozen=True)
class HumanCorrelation:
    """One correlation with human judgments: ``label`` names the metric or implementation
    (after its language pair, if any); ``panel`` what it was computed on (the results' name,
    the level: one figure each) and ``series`` the coefficient (``pearson``, ``spearman``,
    ``kendall``; ``correlation`` for a plain value); ``group`` is the two together. ``value``
    with its interval ``ci_low``–``ci_high`` (``null``: none) and ``interval`` how that was
    computed (``bootstrap``, ``asymptotic``; ``null`` when the results do not say)."""

    label: str
    group: str
    panel: str
    series: str
    value: float
    ci_low: float | None
    ci_high: float | None
    interval: str | None


@dataclass(frozen=True)
class HumanSection:
    """Correlations with human judgments: ``correlations`` as the report shows them, read from
    ``results``, the precomputed results as given (JSON)."""

    correlations: tuple[HumanCorrelation, ...]
    results: JsonValue


@dataclass(frozen=True)
class MetaEvaluationRow:
    """One implementation's headline numbers in the WMT meta-evaluation against the human
    judgments (:meth:`harness.analysis.meta_eval.MetaEvaluation.rows`): system-level pairwise
    accuracy, tie-calibrated accuracy (acc23) and its ε, soft pairwise accuracy (SPA), and the
    segment-level (by item) acc23 and ε; ``null`` where not computed."""

    implementation: str
    pairwise_accuracy: float | None
    acc23_calibrated: float | None
    acc23_epsilon: float | None
    spa: float | None
    segment_acc23_calibrated: float | None
    segment_acc23_epsilon: float | None


@dataclass(frozen=True)
class MetaEvaluationSection:
    """The WMT meta-evaluation of the human judgments' implementations: the ``systems`` rated,
    one :class:`MetaEvaluationRow` per implementation, and the full results as given
    (the JSON of a :class:`harness.analysis.meta_eval.MetaEvaluation`: every Kendall variant and the
    permutation tests between implementations)."""

    systems: tuple[str, ...]
    rows: tuple[MetaEvaluationRow, ...]
    results: JsonValue


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def _row_correlations(row: Mapping[str, Any], prefix: str) -> list[HumanCorrelation]:
    """The correlations of one flat row: ``implementation``/``metric`` (and ``lp``) name it,
    ``level`` groups it, and each method ``m`` gives ``m``, ``m_ci_low``, ``m_ci_high``,
    ``m_interval``; a plain row ``{name/label, value, ci_low, ci_high}`` gives one."""
    names = [str(row[k]) for k in ("lp", "implementation", "metric", "name", "label") if row.get(k)]
    if not names:
        return []
    label = " ".join(names)
    level = f"{row['level']} level" if isinstance(row.get("level"), str) else ""
    out = []
    for m in (*_METHODS, "value"):
        value = _number(row.get(m))
        if value is None:
            continue
        key = "" if m == "value" else f"{m}_"
        panel = ", ".join(p for p in (prefix, level) if p)
        group = ", ".join(p for p in (prefix, level, "" if m == "value" else m) if p)
        interval = row.get(f"{key}interval")
        out.append(
            HumanCorrelation(
                label=label,
                group=group or "correlation",
                panel=panel or "correlation",
                series="correlation" if m == "value" else m,
                value=value,
                ci_low=_number(row.get(f"{key}ci_low")),
                ci_high=_number(row.get(f"{key}ci_high")),
                interval=interval if isinstance(interval, str) else None,
            )
        )
    return out


def _correlations(results: Any, prefix: str = "") -> list[HumanCorrelation]:
    if isinstance(results, Mapping):
        if isinstance(results.get("rows"), list):
            return _correlations(results["rows"], prefix)
        out: list[HumanCorrelation] = []
        for key, value in results.items():
            if isinstance(value, (list, Mapping)):
                out += _correlations(value, ", ".join(p for p in (prefix, str(key)) if p))
        return out
    if isinstance(results, list):
        return [
            c for row in results if isinstance(row, Mapping) for c in _row_correlations(row, prefix)
        ]
    return []


def human_section(results: Any) -> HumanSection:
    """The section of precomputed human results given as JSON (see the module docstring);
    forms it does not know give no correlations, and are kept as given."""
    return HumanSection(tuple(_correlations(results)), JsonValue(results))


def meta_evaluation_section(results: Any) -> MetaEvaluationSection:
    """The section of a meta-evaluation given as the JSON of a
    :class:`~harness.analysis.meta_eval.MetaEvaluation`."""
    found = results if isinstance(results, Mapping) else {}
    rows = tuple(
        MetaEvaluationRow(
            implementation=str(row.get("implementation")),
            pairwise_accuracy=_number(row.get("pairwise_accuracy")),
            acc23_calibrated=_number(row.get("acc23_calibrated")),
            acc23_epsilon=_number(row.get("acc23_epsilon")),
            spa=_number(row.get("spa")),
            segment_acc23_calibrated=_number(row.get("segment_acc23_calibrated")),
            segment_acc23_epsilon=_number(row.get("segment_acc23_epsilon")),
        )
        for row in found.get("rows", [])
        if isinstance(row, Mapping)
    )
    return MetaEvaluationSection(
        tuple(str(s) for s in found.get("systems", [])), rows, JsonValue(results)
    )
