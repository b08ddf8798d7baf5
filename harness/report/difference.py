"""Markdown for :class:`harness.analysis.difference.Difference`: two implementations side by
side — corpus gaps, the segment-gap summary and the top segments' statistics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.analysis.difference import Difference
from harness.report.text import NO_VALUE, escape_cell, fmt_number, fmt_share


def _verdict(agree: bool | None, tolerance: float) -> str:
    if agree is None:
        return "nothing comparable"
    return f"{'agree' if agree else 'disagree'} (tolerance {tolerance:g} BLEU points)"


def side_statistics(
    a: Mapping[str, Any], b: Mapping[str, Any], *, bp_label: str = "BP"
) -> list[tuple[str, str, str]]:
    """``(statistic, a, b)`` rows, as text, for two :meth:`~harness.analysis.difference.Side.
    to_dict` dicts: BLEU, status, hypothesis and reference length, brevity penalty (labelled
    ``bp_label``) and matched/total n-grams per order (``—`` where a side has neither)."""

    def ratio(side: Mapping[str, Any], i: int) -> str:
        c, t = side.get("counts"), side.get("totals")
        cs = str(c[i]) if c is not None and i < len(c) else "?"
        ts = str(t[i]) if t is not None and i < len(t) else "?"
        return NO_VALUE if cs == ts == "?" else f"{cs}/{ts}"

    def val(side: Mapping[str, Any], key: str) -> str:
        v = side.get(key)
        if v is None:
            return NO_VALUE
        return fmt_number(v) if isinstance(v, float) else str(v)

    rows = [
        ("BLEU (0–100)", fmt_number(a.get("score")), fmt_number(b.get("score"))),
        ("status", str(a.get("status")), str(b.get("status"))),
        ("hyp_len (tokens)", val(a, "hyp_len"), val(b, "hyp_len")),
        ("ref_len (tokens)", val(a, "ref_len"), val(b, "ref_len")),
        (bp_label, fmt_number(a.get("bp")), fmt_number(b.get("bp"))),
    ]
    orders = max(len(s.get(k) or ()) for s in (a, b) for k in ("counts", "totals"))
    for i in range(orders):
        rows.append((f"{i + 1}-gram matched/total", ratio(a, i), ratio(b, i)))
    return rows


def difference_markdown(d: Difference | Mapping[str, Any], *, heading: str = "###") -> str:
    """Markdown tables for a :class:`~harness.analysis.difference.Difference` (or its
    :meth:`~harness.analysis.difference.Difference.to_dict`): corpus gaps, the segment-gap
    summary, the top segments' statistics side by side."""
    if isinstance(d, Difference):
        d = d.to_dict()
    a, b = d["a"], d["b"]
    out = [f"{heading} `{a}` vs `{b}`", ""]
    scope = "/".join(x for x in (d.get("fixture"), d.get("system")) if x) or "all corpora"
    out.append(
        f"Scope: {scope}. Gap = `{b}` − `{a}` in BLEU points (0–100). "
        f"Verdict: **{_verdict(d.get('agree'), d['tolerance'])}**."
    )
    out.append("")
    out.append(
        f"Corpus level: mean gap {fmt_number(d.get('corpus_gap'), sign=True)}, "
        f"largest |gap| {fmt_number(d.get('corpus_max_abs'))}."
    )
    out.append("")
    out.append(f"| fixture/system | {escape_cell(a)} | {escape_cell(b)} | gap (b − a) |")
    out.append("| --- | ---: | ---: | ---: |")
    for g in d["corpora"]:
        sa, sb = g["a"], g["b"]
        va = fmt_number(sa["score"]) if sa["status"] == "ok" else sa["status"]
        vb = fmt_number(sb["score"]) if sb["status"] == "ok" else sb["status"]
        out.append(
            f"| {escape_cell(g['fixture'])}/{escape_cell(g['system'])} | {va} | {vb} | "
            f"{fmt_number(g.get('gap'), sign=True)} |"
        )
    seg = d["segments"]
    out.append("")
    if seg["n"] or seg["unmatched"]:
        out.append("Segment level (gap b − a, BLEU points):")
        out.append("")
        out.append("| n | mean | median | max abs | share above tolerance | unmatched |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
        out.append(
            f"| {seg['n']} | {fmt_number(seg.get('mean'), sign=True)} | "
            f"{fmt_number(seg.get('median'), sign=True)} | {fmt_number(seg.get('max_abs'))} | "
            f"{fmt_share(seg.get('share_above'))} | {seg['unmatched']} |"
        )
    else:
        out.append("Segment level: no segment-level rows (run with levels=('corpus', 'segment')).")
    for s in d["top"]:
        out.append("")
        out.append(
            f"**{escape_cell(s['fixture'])}/{escape_cell(s['system'])} segment "
            f"{escape_cell(s['segment_id'])}**: Δ = {fmt_number(s.get('delta'), sign=True)}"
        )
        if s.get("hypothesis") is not None:
            out.append("")
            out.append(f"- hypothesis: {escape_cell(s['hypothesis'])}")
            for ref in s.get("references") or ():
                out.append(f"- reference: {escape_cell(ref)}")
        out.append("")
        out.append(f"| statistic | {escape_cell(a)} | {escape_cell(b)} |")
        out.append("| --- | ---: | ---: |")
        for name, va, vb in side_statistics(s["a"], s["b"]):
            out.append(f"| {name} | {va} | {vb} |")
    return "\n".join(out) + "\n"
