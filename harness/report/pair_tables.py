"""Markdown of one judged pair of implementations (:class:`~harness.analysis.study_types.
PairVerdict`, made from a :class:`harness.analysis.difference.Difference` by
:func:`harness.analysis.study_pairs.judge_pair`): corpus gaps, the segment-gap summary and the top
segments' statistics side by side."""

from __future__ import annotations

from harness.analysis.study_types import PairCorpus, PairVerdict, Side
from harness.report.text import NO_VALUE, escape_cell, fmt_number, fmt_share


def _verdict(agree: bool | None, tolerance: float) -> str:
    if agree is None:
        return "nothing comparable"
    return f"{'agree' if agree else 'disagree'} (tolerance {tolerance:g} BLEU points)"


def side_statistics(
    first: Side, second: Side, *, bp_label: str = "BP"
) -> list[tuple[str, str, str]]:
    """``(statistic, first, second)`` rows, as text, for the two sides of a segment: BLEU,
    status, hypothesis and reference length, brevity penalty (labelled ``bp_label``) and
    matched/total n-grams per order (``—`` where a side has neither)."""

    def ratio(side: Side, i: int) -> str:
        c, t = side.counts, side.totals
        cs = str(c[i]) if c is not None and i < len(c) else "?"
        ts = str(t[i]) if t is not None and i < len(t) else "?"
        return NO_VALUE if cs == ts == "?" else f"{cs}/{ts}"

    def val(value: float | None) -> str:
        if value is None:
            return NO_VALUE
        return fmt_number(value) if isinstance(value, float) else str(value)

    rows = [
        ("BLEU (0–100)", fmt_number(first.score), fmt_number(second.score)),
        ("status", str(first.status), str(second.status)),
        ("hyp_len (tokens)", val(first.hyp_len), val(second.hyp_len)),
        ("ref_len (tokens)", val(first.ref_len), val(second.ref_len)),
        (bp_label, fmt_number(first.bp), fmt_number(second.bp)),
    ]
    orders = max(len(x or ()) for s in (first, second) for x in (s.counts, s.totals))
    for i in range(orders):
        rows.append((f"{i + 1}-gram matched/total", ratio(first, i), ratio(second, i)))
    return rows


def pair_corpus_name(g: PairCorpus) -> str:
    """A pair's corpus as its tables name it: ``fixture/system``, and when both scores are of
    the segments a library was spot-checked on, says so."""
    name = f"{g.fixture}/{g.system}"
    return f"{name} (spot-checked segments)" if g.sample else name


def pair_markdown(pair: PairVerdict, *, heading: str = "###") -> str:
    """Markdown tables for one judged pair: corpus gaps, the segment-gap summary, the top
    segments' statistics side by side."""
    a, b = pair.a, pair.b
    out = [f"{heading} `{a}` vs `{b}`", ""]
    scope = "/".join(x for x in (pair.fixture, pair.system) if x) or "all corpora"
    out.append(
        f"Scope: {scope}. Gap = `{b}` − `{a}` in BLEU points (0–100). "
        f"Verdict: **{_verdict(pair.agree, pair.tolerance)}**."
    )
    out.append("")
    out.append(
        f"Corpus level: mean gap {fmt_number(pair.corpus_gap, sign=True)}, "
        f"largest |gap| {fmt_number(pair.corpus_max_abs)}."
    )
    out.append("")
    out.append(f"| fixture/system | {escape_cell(a)} | {escape_cell(b)} | gap (b − a) |")
    out.append("| --- | ---: | ---: | ---: |")
    for g in pair.corpora:
        sa, sb = g.a, g.b
        va = fmt_number(sa.score) if sa.status == "ok" else sa.status
        vb = fmt_number(sb.score) if sb.status == "ok" else sb.status
        out.append(
            f"| {escape_cell(pair_corpus_name(g))} | {va} | {vb} | {fmt_number(g.gap, sign=True)} |"
        )
    seg = pair.segments
    out.append("")
    if seg.n or seg.unmatched:
        out.append("Segment level (gap b − a, BLEU points):")
        out.append("")
        out.append("| n | mean | median | max abs | share above tolerance | unmatched |")
        out.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
        out.append(
            f"| {seg.n} | {fmt_number(seg.mean, sign=True)} | "
            f"{fmt_number(seg.median, sign=True)} | {fmt_number(seg.max_abs)} | "
            f"{fmt_share(seg.share_above)} | {seg.unmatched} |"
        )
    else:
        out.append("Segment level: no segment-level rows (run with levels=('corpus', 'segment')).")
    for s in pair.top:
        out.append("")
        out.append(
            f"**{escape_cell(s.fixture)}/{escape_cell(s.system)} segment "
            f"{escape_cell(s.segment_id)}**: Δ = {fmt_number(s.delta, sign=True)}"
        )
        if s.hypothesis is not None:
            out.append("")
            out.append(f"- hypothesis: {escape_cell(s.hypothesis)}")
            for ref in s.references or ():
                out.append(f"- reference: {escape_cell(ref)}")
        out.append("")
        out.append(f"| statistic | {escape_cell(a)} | {escape_cell(b)} |")
        out.append("| --- | ---: | ---: |")
        for name, va, vb in side_statistics(s.a, s.b):
            out.append(f"| {name} | {va} | {vb} |")
    return "\n".join(out) + "\n"
