"""A static, self-contained HTML page for a report: inline CSS, no scripts, no external URLs;
the figures are PNG files in the same directory, referenced by relative file name."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from harness.analysis.study_types import PairVerdict, PrecomputedSignificance, Report, Side
from harness.report import overview
from harness.report.figures import MAX_HUMAN, WATERFALLS_DRAWN, Figure
from harness.report.gap_words import count_words, leading_pairs, matters_cell, pair_sentence
from harness.report.pair_tables import pair_corpus_name, side_statistics
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
    flip_lines,
    gap_intro,
    gap_rows,
    meta_evaluation_lines,
    meta_evaluation_rows,
    pair_figures,
    significance_row,
)
from harness.report.text import breakable, fmt_number, fmt_share, fmt_value, records_of
from harness.report.why_words import note_text, whys_text

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1250px; padding: 0 1rem; color: #1d1d1f; line-height: 1.4; }
h1 { font-size: 1.7rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem;
       margin-top: 2.2rem; } h3 { font-size: 1.05rem; margin-top: 1.4rem; }
code, .sig { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85em; }
.sig { word-break: break-all; background: #f4f4f4; padding: .5rem; display: block; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .85rem; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; vertical-align: top; }
th { overflow-wrap: break-word; }
td.wrap { overflow-wrap: anywhere; }
th { background: #f0f0f0; text-align: left; max-width: 11rem; }
th.n { text-align: right; }
pre { overflow-x: auto; max-width: 100%; white-space: pre-wrap; overflow-wrap: anywhere; }
h3 code { overflow-wrap: anywhere; }
#summary { background: #f7f9fc; border: 1px solid #d8e0ec; padding: .2rem 1rem .6rem;
           border-radius: 6px; }
#summary h2 { margin-top: .8rem; } #summary li { margin: .15rem 0; }
td.na { color: #8a6d00; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.yes { color: #1b7f3b; font-weight: 600; } .no { color: #b3261e; font-weight: 600; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; display: block; border: 1px solid #eee; }
figcaption { font-size: .85rem; color: #555; max-width: 60rem; }
.grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.grid > figure, .grid > .pair { flex: 0 1 600px; min-width: 0; margin: 0; }
.pair table { max-width: 100%; }
details { margin: .4rem 0; } summary { cursor: pointer; }
.muted { color: #666; }
"""


def _e(x: Any) -> str:
    return escape("—" if x is None else str(x), quote=True)


def _num_cell(x: Any, digits: int = 4, *, sign: bool = False) -> str:
    return f'<td class="n">{_e(fmt_number(x, digits, sign=sign))}</td>'


def _table(
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    num_from: int | None = None,
    table_id: str = "",
) -> str:
    """``rows`` are lists of ready ``<td>`` strings; ``head`` is plain text; header cells from
    index ``num_from`` on are right-aligned like the numbers below them."""
    th = "".join(
        f'<th class="n">{breakable(h)}</th>'
        if num_from is not None and i >= num_from
        else f"<th>{breakable(h)}</th>"
        for i, h in enumerate(head)
    )
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    tid = f' id="{_e(table_id)}"' if table_id else ""
    return f'<div class="scroll"><table{tid}><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _td(x: Any) -> str:
    return f"<td>{_e(x)}</td>"


def _figure(fig: Figure) -> str:
    return (
        f'<figure><img src="{_e(fig.filename)}" alt="{_e(fig.alt)}" loading="eager">'
        f"<figcaption><strong>{_e(fig.title)}.</strong> {_e(fig.alt)}</figcaption></figure>"
    )


def _verdict(p: PairVerdict) -> str:
    """The verdict cell of a pair: yes / no only when both sides have scores to compare,
    "n/a: <reason>" when one side has none (unavailable, unsupported, raises)."""
    if p.verdict == "n/a":
        return (
            f'<td class="na">n/a: {_e(whys_text(p.na_reason or ()) or "nothing comparable")}</td>'
        )
    cell = '<td class="yes">yes' if p.agree else '<td class="no">no'
    if p.not_compared:
        cell += (
            f' <span class="muted">(on {p.compared} corpora; n/a on '
            f"{p.not_compared}: {_e(whys_text(p.na_reason or ()))})</span>"
        )
    return cell + "</td>"


def _versions(report: Report) -> str:
    return _table(["package", "version"], [[_td(k), _td(v)] for k, v in report.versions.items()])


def _proofs(report: Report) -> str:
    rows = [
        [_td(label), _td(v.status), _td(v.oracle or "—"), _td(v.evidence)]
        for label, v in report.verification.items()
    ]
    if not rows:
        return "<p>No in-house profiles in this report.</p>"
    return _table(["profile", "status", "run against", "evidence / why not"], rows)


def _side_rows(first: Side, second: Side) -> list[list[str]]:
    """The statistics of both sides (:func:`~harness.report.pair_tables.side_statistics`) as
    table cells: numbers right-aligned, the status as text."""
    return [
        [_td(name), *(_td(x) if name == "status" else f'<td class="n">{_e(x)}</td>' for x in ab)]
        for name, *ab in side_statistics(first, second, bp_label="brevity penalty")
    ]


#: A table with more rows than this is folded (its summary line says what it holds).
FOLD_ROWS = 6


def _pair_detail(p: PairVerdict, figs: Sequence[Figure]) -> str:
    a, b = p.a, p.b
    out = [f"<h3><code>{_e(a)}</code> vs <code>{_e(b)}</code></h3>"]
    out.append(
        f"<p>Gap = <code>{_e(b)}</code> − <code>{_e(a)}</code> in BLEU points (0–100); "
        f"judged at tolerance {_e(format(p.tolerance, 'g'))} (the less precise side's). "
        f"Mean corpus gap "
        f"{_e(fmt_number(p.corpus_gap, sign=True))}.</p>"
    )
    if p.verdict == "n/a":
        out.append(f'<p class="na">Not comparable: {_e(whys_text(p.na_reason or ()))}</p>')
    rows = []
    for g in p.corpora:
        cells = [_td(pair_corpus_name(g))]
        for side in (g.a, g.b):
            if side.status == "ok":
                cells.append(_num_cell(side.score))
            else:
                cells.append(f'<td class="na" title="{_e(side.error)}">n/a: {_e(side.status)}</td>')
        cells.append(_num_cell(g.gap, sign=True))
        rows.append(cells)
    corpora = _table(["fixture/system", a, b, "gap (b − a)"], rows, num_from=1)
    if len(rows) > FOLD_ROWS:
        gaps = [g.gap for g in p.corpora if g.gap is not None]
        span = f"from {min(gaps):+.2f} to {max(gaps):+.2f}" if gaps else "none compared"
        corpora = (
            f"<details><summary>Per corpus ({len(rows)}): gaps {_e(span)}</summary>"
            f"{corpora}</details>"
        )
    out.append(corpora)
    seg = p.segments
    if seg.n or seg.unmatched:
        out.append(
            _table(
                ["segments", "mean Δ", "median Δ", "max |Δ|", "share |Δ| > tolerance", "unmatched"],
                [
                    [
                        _num_cell(seg.n, 0),
                        _num_cell(seg.mean, sign=True),
                        _num_cell(seg.median, sign=True),
                        _num_cell(seg.max_abs),
                        f'<td class="n">{fmt_share(seg.share_above)}</td>',
                        _num_cell(seg.unmatched, 0),
                    ]
                ],
            )
        )
    for fig in figs:
        out.append(_figure(fig))
    if p.top:
        out.append(
            f"<details><summary>{len(p.top)} most disagreeing segments, statistics side by side</summary>"
        )
        for s in p.top:
            out.append(
                f"<p><strong>{_e(s.fixture)}/{_e(s.system)} segment {_e(s.segment_id)}</strong>: "
                f"Δ = {_e(fmt_number(s.delta, sign=True))}</p>"
            )
            if s.hypothesis is not None:
                refs = "".join(f"<li>reference: {_e(r)}</li>" for r in s.references or ())
                out.append(f"<ul><li>hypothesis: {_e(s.hypothesis)}</li>{refs}</ul>")
            out.append(_table(["statistic", a, b], _side_rows(s.a, s.b)))
        out.append("</details>")
    return "\n".join(out)


def _pairs(report: Report, figs: Sequence[Figure]) -> str:
    """A detail for each pair the summary names (``gap_matters.leading``); every pair in one
    folded table."""
    pairs = report.pairs
    if not pairs:
        return f"<p>{_e(EMPTY_SECTION['pairs'])}</p>"
    shown = leading_pairs(report)
    by_key: dict[str, list[Figure]] = {}
    for f in figs:
        by_key.setdefault(f.key, []).append(f)
    what = (
        f"details for the {len(shown)} the summary names (the gaps it leads with)"
        if shown
        else "no corpus gap for the summary to name"
    )
    out = [f"<p>{len(pairs)} pairs compared; {what}. The full table is folded below.</p>"]
    cards = [
        '<div class="pair">' + _pair_detail(p, by_key.get(f"{p.a}|{p.b}", [])) + "</div>"
        for p in shown
    ]
    out.append('<div class="grid">' + "".join(cards) + "</div>")
    rows = [
        [
            f"<td><code>{breakable(p.a)}</code></td>",
            f"<td><code>{breakable(p.b)}</code></td>",
            _verdict(p),
            *(f'<td class="n">{_e(x)}</td>' for x in pair_figures(p)),
        ]
        for p in pairs
    ]
    out.append(
        f"<details><summary>Every pair ({len(pairs)}): verdict, gaps, segments</summary>"
        + _table(PAIR_HEAD, rows, num_from=3, table_id="pairs-table")
        + "</details>"
    )
    return "\n".join(out)


def _gap_matters(report: Report) -> str:
    """What was computed, then every pair's sentence (those whose gap matters marked), the
    table per pair and fixture and the flips, each folded."""
    section = report.gap_matters
    if not section.pairs:
        return f"<p>{_e(note_text(section.note, 'Not computed'))}.</p>"
    items = "".join(
        f'<li><span class="{"no" if p.matters == "yes" else "muted"}">'
        f"{_e(matters_cell(p))}</span> {_e(pair_sentence(p))}</li>"
        for p in section.pairs
    )
    lead, rest = count_words(section.tally)
    # folded: the summary above already gives the sentences that matter most
    out = [
        f"<p>{_e(gap_intro(section))}</p>",
        f'<p id="gap-count"><strong>{_e(lead[0].upper() + lead[1:])}</strong>{_e(rest)}</p>',
        f"<details><summary>Every judged pair in one sentence ({section.tally.judged})"
        f'</summary><ul id="gap-sentences">{items}</ul></details>',
    ]
    rows = [
        [_td(x) if k < 4 or k == 6 else f'<td class="n">{_e(x)}</td>' for k, x in enumerate(r)]
        for r in gap_rows(section)
    ]
    tab = _table(GAP_HEAD, rows, table_id="gap-matters")
    if len(rows) > FOLD_ROWS:
        tab = f"<details><summary>Per pair and fixture ({len(rows)})</summary>{tab}</details>"
    out.append(tab)
    flips = flip_lines(section)
    if flips:
        out.append(
            f"<details><summary>Systems ordered the other way ({len(flips)})</summary><ul>"
            + "".join(f"<li>{_e(x)}</li>" for x in flips)
            + "</ul></details>"
        )
    meta_rows = meta_evaluation_rows(report.meta_evaluation)
    lines = meta_evaluation_lines(section)
    if meta_rows:
        head = "".join(f"<th>{_e(h)}</th>" for _, h in META_COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in meta_rows
        )
        out.append(
            "<details><summary>WMT meta-evaluation against the human judgments</summary>"
            f"<table><tr>{head}</tr>{body}</table><ul>"
            + "".join(f"<li>{_e(x)}</li>" for x in lines)
            + "</ul></details>"
        )
    elif lines:
        out.append("".join(f'<p class="muted">{_e(x)}.</p>' for x in lines))
    if section.note:
        out.append(f'<p class="muted">{_e(note_text(section.note, ""))}.</p>')
    return "\n".join(out)


def _correlations(report: Report) -> str:
    out = []
    tables = correlation_tables(report)
    for level, method, block, rows in tables:
        caption = correlation_caption(level, method, block)
        head, _, rest = caption.partition(": ")
        out.append(f'<h3>{_e(head)}</h3><p class="muted">{_e(rest)}</p>')
        cells = [
            [f"<td>{breakable(name)}</td>", *(f'<td class="n">{_e(x)}</td>' for x in xs)]
            for name, *xs in rows
        ]
        out.append(_table(["", *(str(name) for name, *_ in rows)], cells, num_from=1))
    note = whys_text(report.correlations.note)
    if note:
        out.append(f'<p class="muted">Note: {_e(note)}</p>')
    if not out:
        return f"<p>{_e(EMPTY_SECTION['correlations'])}</p>"
    low = lowest_correlation(report, _HTML)
    head = f"<p>{low}</p>" if low else ""
    return (
        f"{head}<details><summary>Correlation matrices ({len(tables)})</summary>"
        + "\n".join(out)
        + "</details>"
    )


def _attributions(report: Report, figs: Sequence[Figure]) -> str:
    """One row per attribution (the factors with their points, largest first), then the
    waterfalls drawn (:data:`~harness.report.figures.WATERFALLS_DRAWN`) side by side."""
    ats = report.attributions
    if not ats:
        return f"<p>{_e(EMPTY_SECTION['attributions'])}</p>"
    rows = []
    for at in ats:
        where = f"{at.fixture}/{at.system}"
        cells = [_td(f"{at.a} → {at.b}"), f'<td class="wrap">{breakable(where)}</td>']
        if at.error:
            rows.append([*cells, f'<td class="na" colspan="3">undefined: {_e(at.error)}</td>'])
            continue
        parts = [(k, v) for k, v in attribution_rows(at, total=False)]
        text = "; ".join(f"{k} {v}" for k, v in parts if not v.startswith(("+0.0000", "-0.0000")))
        rows.append(
            [
                *cells,
                _num_cell(at.gap, 2, sign=True),
                f'<td class="wrap">{_e(text or "no factor")}</td>',
            ]
        )
    tab = _table(["profiles a → b", "corpus", "gap", "factors (BLEU points)"], rows, num_from=2)
    if len(rows) > FOLD_ROWS:
        tab = f"<details><summary>Every attribution ({len(rows)}), per corpus</summary>{tab}</details>"
    out = [f"<p>{attribution_intro(report, _HTML)}</p>", tab]
    out.append('<div class="grid">' + "".join(_figure(f) for f in figs) + "</div>")
    if sum(1 for at in ats if not at.error) > len(figs):
        out.append(f'<p class="muted">{_e(WATERFALLS_DRAWN)}</p>')
    return "\n".join(out)


def _generic(obj: Any) -> str:
    records = records_of(obj)
    if records is None:
        return f"<pre>{_e(json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False))}</pre>"
    head = list(dict.fromkeys(k for r in records for k in r))
    return _table(head, [[_td(fmt_value(r.get(k))) for k in head] for r in records])


def _human(report: Report, figs: Sequence[Figure]) -> str:
    human = report.human
    if human is None:
        return f"<p>{_e(EMPTY_SECTION['human'])}</p>"
    records = human.correlations
    out = []
    if records:
        rows = [
            [
                _td(r.label),
                _td(r.group),
                _num_cell(r.value, 3),
                _num_cell(r.ci_low, 3),
                _num_cell(r.ci_high, 3),
                _td(r.interval or ""),
            ]
            for r in records
        ]
        head = ["metric", "group", "correlation", "CI low", "CI high", "interval"]
        out.append(
            f"<details><summary>Every correlation ({len(rows)}) with its interval</summary>"
            + _table(head, rows)
            + "</details>"
        )
    else:
        out.append(_generic(human.results))
    out += [_figure(f) for f in figs]
    if len({r.panel for r in records}) > MAX_HUMAN:
        out.append(f'<p class="muted">Bars are drawn for the first {MAX_HUMAN} groups.</p>')
    return "\n".join(out)


_HTML = Markup(
    text=lambda x: _e(x),
    code=lambda x: f"<code>{_e(x)}</code>",
    strong=lambda x: f"<strong>{x}</strong>",
    label=lambda kind, word: f'<span class="{kind}">{word}</span>',
    link=lambda name: f'<a href="{_e(name)}"><code>{_e(name)}</code></a>',
    where="page",
)


def _summary(report: Report) -> str:
    """The first section: what was compared, the headline, and what could not be compared
    (the content is :func:`~harness.report.summary.summary_items`, shared with Markdown)."""
    items = []
    for item, subs in summary_items(report, _HTML):
        inner = f"<ul>{''.join(f'<li>{x}</li>' for x in subs)}</ul>" if subs else ""
        items.append(f"<li>{item}{inner}</li>")
    return (
        f'<section id="summary"><h2>Summary</h2><ul>{"".join(items)}</ul>'
        f"{overview.family_html(report)}</section>"
    )


def _significance(report: Report) -> str:
    sig = report.significance
    if isinstance(sig, PrecomputedSignificance):
        return _generic(sig.precomputed)
    before, after = significance_sentences(report, _HTML)
    out = [f"<p>{x}</p>" for x in before]
    if sig is not None and sig.results:
        rows = []
        for r in sig.results:
            labels, error, figures = significance_row(r)
            cells = [_td(x) for x in labels]
            if error:
                rows.append([*cells, f'<td class="na" colspan="5">n/a: {_e(error)}</td>'])
            else:
                rows.append([*cells, *(f'<td class="n">{_e(x)}</td>' for x in figures)])
        out.append(_table(SIGNIFICANCE_HEAD, rows, num_from=3))
    out += [f"<p>{x}</p>" for x in after]
    return "\n".join(out)


def _proofs_folded(report: Report) -> str:
    ver = report.verification
    n = sum(1 for v in ver.values() if v.status == "verified")
    return (
        f"<p>{n} of {len(ver)} in-house profiles are verified against their real "
        "implementation by a differential test.</p>"
        f"<details><summary>Each profile's evidence</summary>{_proofs(report)}</details>"
    )


def _reproducibility(report: Report) -> str:
    return (
        "<details><summary>Signature (every implementation's settings and versions; "
        f"{len(report.signature)} characters)</summary>"
        f'<code class="sig">{_e(report.signature)}</code></details>'
        f"<details><summary>Package versions ({len(report.versions)})</summary>"
        f"{_versions(report)}</details>"
    )


def render_html(report: Report, figures: Sequence[Figure]) -> str:
    """The page: the summary first (what was compared, the headline, what could not be
    compared), the gap heat map, corpus scores (split to fit the page), whether each pair's
    gap matters, pairs (with scatter plots and top segments), correlations, attributions (waterfalls), human judgments,
    significance, whether each profile is proven, and the signature and versions folded.
    ``figures`` are the PNGs :func:`~harness.report.figures.render_figures` drew."""
    by_section: dict[str, list[Figure]] = {}
    for f in figures:
        by_section.setdefault(f.section, []).append(f)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>BLEU harness report</title>",
        f"<style>{_CSS}{overview.CSS}</style></head><body>",
        "<h1>BLEU harness report</h1>",
        _summary(report),
        '<p class="muted">All scores and gaps are BLEU points on the 0–100 scale.</p>',
        "<h2>Gaps between implementations (BLEU points)</h2>",
        overview.gap_matrix_html(report),
        "<h2>Corpus-level BLEU (0–100)</h2>",
        overview.scores_html(report),
        "<h2>Does the gap matter?</h2>",
        _gap_matters(report),
        "<h2>Pairs</h2>",
        _pairs(report, by_section.get("pairs", [])),
        "<h2>Correlations between implementations</h2>",
        _correlations(report),
        "<h2>Attributions (Shapley values over the factors)</h2>",
        _attributions(report, by_section.get("attributions", [])),
        "<h2>Human judgments</h2>",
        _human(report, by_section.get("human", [])),
        "<h2>Significance</h2>",
        _significance(report),
        "<h2>Profiles: proven against their real implementation?</h2>",
        _proofs_folded(report),
        "<h2>Reproducibility</h2>",
        _reproducibility(report),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
