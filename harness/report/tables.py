"""What the report's tables hold, written once for every renderer: column heads and cells as
plain text. The Markdown and the HTML page add only their markup (as :mod:`.summary` does for
the summary sentences), so the two cannot drift apart in content."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.report.text import fmt_number, fmt_share

#: The pairs table: the two implementations, the verdict, then :func:`pair_figures`.
PAIR_HEAD: tuple[str, ...] = (
    "a",
    "b",
    "agree",
    "tolerance",
    "mean corpus gap (b − a)",
    "max |corpus gap|",
    "segments",
    "max |segment gap|",
    "segments off",
)

#: The default significance table: :func:`significance_row`'s labels, then its figures.
SIGNIFICANCE_HEAD: tuple[str, ...] = (
    "fixture",
    "system vs baseline",
    "profile",
    "baseline",
    "system",
    "Δ",
    "p",
    "95% CI (system)",
)


def pair_figures(p: Mapping[str, Any]) -> list[str]:
    """The numeric cells of one pair's row (every :data:`PAIR_HEAD` column after ``agree``)."""
    seg = p["segments"]
    return [
        f"{p['tolerance']:g}",
        fmt_number(p.get("corpus_gap"), sign=True),
        fmt_number(p.get("corpus_max_abs")),
        str(seg["n"]),
        fmt_number(seg.get("max_abs")),
        fmt_share(seg.get("share_above")),
    ]


def significance_row(r: Mapping[str, Any]) -> tuple[list[str], str | None, list[str]]:
    """One default significance result as ``(labels, error, figures)``: the fixture, the
    systems and the profile; why the test is undefined (``None`` when it ran); and, when it
    ran, the baseline and system scores, Δ, p and the system's interval."""
    labels = [r["fixture"], f"{r['system']} vs {r['baseline']}", r["profile"]]
    if r.get("error"):
        return labels, str(r["error"]), []
    ci = r.get("ci_system") or [None, None]
    return (
        labels,
        None,
        [
            fmt_number(r["score_baseline"], 2),
            fmt_number(r["score_system"], 2),
            fmt_number(r["delta"], 2, sign=True),
            fmt_number(r["p_value"], 4),
            f"[{fmt_number(ci[0], 2)}, {fmt_number(ci[1], 2)}]",
        ],
    )


def attribution_rows(at: Mapping[str, Any], *, total: bool) -> list[tuple[str, str]]:
    """``(factor, BLEU points)`` of one attribution: each factor's Shapley value, the gap they
    sum to (``total``), and what the real library leaves unexplained (when it ran)."""
    rows = [(name, fmt_number(v, sign=True)) for name, v in at["factors"].items()]
    if total:
        rows.append(("total (= gap)", fmt_number(at["gap"], sign=True)))
    if at.get("residual") is not None:
        rows.append(
            (f"unexplained ({at.get('library')} − engine)", fmt_number(at["residual"], sign=True))
        )
    return rows


def correlation_tables(
    report: Mapping[str, Any],
) -> list[tuple[str, str, Mapping[str, Any], list[list[str]]]]:
    """``(level, method, block, rows)`` for every correlation matrix, segment level first:
    ``block`` is the level's section (``n_keys``, ``n_skipped``, ``matrices``) and ``rows``
    the matrix as text (each implementation, then its coefficients to 3 decimals)."""
    corr = report["correlations"] or {}
    out = []
    for level in ("segment", "corpus"):
        block = corr.get(level)
        if not block:
            continue
        for method, m in block["matrices"].items():
            names = m["names"]
            rows = [[n, *(fmt_number(m["values"][n][k], 3) for k in names)] for n in names]
            out.append((level, method, block, rows))
    return out


def family_table(report: Mapping[str, Any]) -> tuple[list[str], list[list[str]], list[str]]:
    """``(head, rows, other)``: the answer's BLEU-4 families as text cells (mean, gap to the
    baseline or ``base``, names, the factors behind the gap and how many system pairs it
    orders the other way), and the other-weights families as ``name score`` strings."""
    ans = report.get("answer") or {}
    base = ans.get("baseline", "sacrebleu")
    head = ["mean BLEU", f"vs {base}", "implementations (equal numbers folded)", "why"]
    rows, other = [], []
    for r in ans.get("rows") or ():
        if not r["bleu4"]:
            other.append(f"{r['names']} {fmt_number(r['mean'], 2)}")
            continue
        gap = "base" if r["baseline"] else fmt_number(r["gap"], 2, sign=True)
        why = r["why"] + (
            f"; ranks {r['flips']} system pair(s) the other way" if r["flips"] else ""
        )
        rows.append([fmt_number(r["mean"], 2), gap, r["names"], why])
    return head, rows, other
