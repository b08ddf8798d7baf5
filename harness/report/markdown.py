"""Markdown rendering of a report object (for terminals and notes: headings and tables)."""

from __future__ import annotations

import json
from typing import Any

from harness.analysis.human_section import HumanSection
from harness.analysis.study_types import PairVerdict, PrecomputedSignificance, Report
from harness.report.gap_words import count_words, pair_sentence
from harness.report.pair_tables import pair_markdown
from harness.report.summary import (
    EMPTY_SECTION,
    Markup,
    attribution_intro,
    correlation_caption,
    lowest_correlation,
    significance_sentences,
    summary_items,
)
from harness.report.tables import (
    GAP_HEAD,
    META_COLUMNS,
    PAIR_HEAD,
    SIGNIFICANCE_HEAD,
    attribution_rows,
    correlation_tables,
    family_table,
    flip_lines,
    gap_intro,
    gap_rows,
    meta_evaluation_lines,
    meta_evaluation_rows,
    pair_figures,
    significance_row,
)
from harness.report.text import cell, fmt_number, fmt_value, records_of, table
from harness.report.why_words import note_text, whys_text


def _generic(obj: Any) -> list[str]:
    records = records_of(obj)
    if records is not None:
        head = list(dict.fromkeys(k for x in records for k in x))
        return table(head, [[fmt_value(x.get(k)) for k in head] for x in records], "l" * len(head))
    return ["```json", json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False), "```"]


def _versions(report: Report) -> list[str]:
    return table(["package", "version"], list(report.versions.items()), "ll")


def _proofs(report: Report) -> list[str]:
    rows = [
        [label, v.status, v.oracle or "—", v.evidence] for label, v in report.verification.items()
    ]
    if not rows:
        return ["No in-house profiles in this report."]
    return table(["profile", "status", "run against", "evidence / why not"], rows, "llll")


def _fixtures(report: Report) -> list[str]:
    units = report.fixtures
    if not units:
        return ["No corpora."]
    impls = list(dict.fromkeys(k for u in units for k in u.status))
    body = []
    for u in units:
        row: list[Any] = [f"{u.fixture}/{u.system}", u.segments]
        for impl in impls:
            status = u.status.get(impl)
            row.append(fmt_number(u.scores.get(impl), 2) if status == "ok" else status)
        body.append(row)
    return table(["fixture/system", "segments", *impls], body)


def _verdict(p: PairVerdict) -> str:
    """yes / no when both sides have scores; ``n/a: <reason>`` when one side has none."""
    if p.verdict == "n/a":
        return f"n/a: {whys_text(p.na_reason or ()) or 'nothing comparable'}"
    text = "yes" if p.agree else "no"
    if p.not_compared:
        text += (
            f" (on {p.compared} corpora; n/a on {p.not_compared}: {whys_text(p.na_reason or ())})"
        )
    return text


_MD = Markup(
    text=str,
    code=lambda x: f"`{x}`",
    strong=lambda x: f"**{x}**",
    label=lambda _kind, word: f"**{word}**",
    link=lambda name: f"`{name}`",
    where="report",
)


def _summary(report: Report) -> list[str]:
    """The summary section's bullet lines (the HTML page's content: :mod:`.summary`)."""
    out = []
    for item, subs in summary_items(report, _MD):
        out.append(f"- {item}")
        out += [f"  - {sub}" for sub in subs]
    head, rows, other = family_table(report)
    if rows:
        out += ["", *table(head, rows, "rrll")]
    if other:
        out += ["", "Not BLEU-4 (other n-gram weights): " + "; ".join(other) + "."]
    return out


def _significance(report: Report) -> list[str]:
    sig = report.significance
    if isinstance(sig, PrecomputedSignificance):
        return _generic(sig.precomputed)
    before, after = significance_sentences(report, _MD)
    if sig is None or not sig.results:
        return before
    body = []
    for r in sig.results:
        labels, error, figures = significance_row(r)
        body.append([*labels, f"n/a: {error}", "", "", "", ""] if error else [*labels, *figures])
    out = [*before, "", *table(SIGNIFICANCE_HEAD, body, "lllrrrrr")]
    for sentence in after:
        out += ["", sentence]
    return out


def _gap_matters(report: Report) -> list[str]:
    """The section's one count, every judged pair's sentence, the table per pair and fixture,
    the flips in words."""
    section = report.gap_matters
    if not section.pairs:
        return [f"{note_text(section.note, 'Not computed')}."]
    lead, rest = count_words(section.tally)
    out = [gap_intro(section), "", f"**{lead[0].upper()}{lead[1:]}**{rest}", ""]
    out += [f"- {pair_sentence(p)}" for p in section.pairs]
    out += ["", *table(GAP_HEAD, gap_rows(section), "lllllrlrr")]
    flips = flip_lines(section)
    if flips:
        out += ["", "Systems ordered the other way:", "", *(f"- {x}" for x in flips)]
    meta_rows = meta_evaluation_rows(report.meta_evaluation)
    if meta_rows:
        out += ["", "The WMT meta-evaluation of each implementation against the human judgments:"]
        out += ["", *table([h for _, h in META_COLUMNS], meta_rows, "l" + "r" * 6)]
    lines = meta_evaluation_lines(section)
    if lines:
        out += ["", *(f"- {x}." for x in lines)]
    if section.note:
        out += ["", f"{note_text(section.note, '')}."]
    return out


def _pairs_summary(report: Report) -> list[str]:
    body = [[f"`{p.a}`", f"`{p.b}`", _verdict(p), *pair_figures(p)] for p in report.pairs]
    return table(PAIR_HEAD, body, "llcrrrrrr")


def _correlations(report: Report) -> list[str]:
    out: list[str] = []
    low = lowest_correlation(report, _MD)
    if low:
        out += [low, ""]
    for level, method, block, rows in correlation_tables(report):
        head, _, rest = correlation_caption(level, method, block).partition(": ")
        out += [f"**{head}**: {rest}", ""]
        out += [*table(["", *block.matrices[method].names], rows), ""]
    note = whys_text(report.correlations.note)
    if note:
        out.append(f"Note: {note}")
    return out or [EMPTY_SECTION["correlations"]]


def _attributions(report: Report) -> list[str]:
    out: list[str] = [attribution_intro(report, _MD), ""] if report.attributions else []
    for at in report.attributions:
        where = f"{at.fixture}/{at.system}"
        if at.error:
            out += [f"**{at.a} → {at.b}** on {where}: undefined — {cell(at.error)}", ""]
            continue
        out.append(
            f"**{at.a} → {at.b}** on {where}: {fmt_number(at.score_a)} → "
            f"{fmt_number(at.score_b)} (gap {fmt_number(at.gap, sign=True)} BLEU)"
        )
        out.append("")
        body = attribution_rows(at, total=False)
        out += [*table(["factor", "BLEU points"], body), ""]
    return out or [EMPTY_SECTION["attributions"]]


def render_markdown(report: Report) -> str:
    """The whole report as Markdown (tables; no figures — those are in the HTML page), in the
    HTML page's order: summary first, signature and versions last."""
    out = ["# BLEU harness report", "", "## Summary", "", *_summary(report), ""]
    out += ["All scores and gaps are BLEU points on the 0–100 scale.", ""]
    out += ["## Corpus-level BLEU (0–100)", "", *_fixtures(report), ""]
    out += ["## Does the gap matter?", "", *_gap_matters(report), ""]
    out += ["## Pairs", ""]
    if report.pairs:
        out += [*_pairs_summary(report), ""]
        for p in report.pairs:
            out += [pair_markdown(p, heading="###")]
            if p.verdict == "n/a":
                out += [f"Not comparable: {whys_text(p.na_reason or ())}", ""]
    else:
        out += [EMPTY_SECTION["pairs"], ""]
    out += ["## Correlations between implementations", "", *_correlations(report), ""]
    out += ["## Attributions (Shapley values over the factors)", "", *_attributions(report), ""]
    out += ["## Human judgments", ""]
    out += _human(report.human) if report.human is not None else [EMPTY_SECTION["human"]]
    out += ["", "## Significance", "", *_significance(report), ""]
    out += ["## Profiles: proven against their real implementation?", "", *_proofs(report), ""]
    out += ["## Reproducibility", "", f"Signature: `{report.signature}`", ""]
    out += ["Versions:", "", *_versions(report)]
    return "\n".join(out).rstrip("\n") + "\n"


def _human(human: HumanSection) -> list[str]:
    records = human.correlations
    if not records:
        return _generic(human.results)
    body = [
        [
            r.label,
            r.group,
            fmt_number(r.value, 3),
            fmt_number(r.ci_low, 3),
            fmt_number(r.ci_high, 3),
            r.interval or "",
        ]
        for r in records
    ]
    head = ["metric", "group", "correlation", "CI low", "CI high", "interval"]
    return table(head, body, "llrrrl")
