"""The HTML page's overview: the family table of the summary, the gap matrix and the corpus
scores, one row per group of implementations that print the same numbers (the report's
:class:`~harness.analysis.study_types.Overview`), so that nothing scrolls sideways."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

from harness.analysis.study_families import LIB_EQUAL
from harness.analysis.study_types import Group, Report
from harness.report.tables import family_table
from harness.report.text import breakable, fmt_number

#: Negative gaps (column below row) shade towards red, positive towards blue.
_NEG, _POS = (179, 38, 30), (33, 102, 172)


def _e(x: Any) -> str:
    return escape("—" if x is None else str(x), quote=True)


def shade(gap: float | None, limit: float) -> str:
    """The inline style of a gap cell: white at 0, full colour at ``±limit`` and beyond."""
    if gap is None:
        return "background:#e6e6e6"
    t = min(abs(gap) / limit, 1.0) if limit > 0 else 0.0
    r, g, b = _POS if gap > 0 else _NEG
    mix = [round(255 + (c - 255) * t) for c in (r, g, b)]
    text = "#fff" if t > 0.55 else "#1d1d1f"
    return f"background:rgb({mix[0]},{mix[1]},{mix[2]});color:{text}"


def colour_limit(
    gaps: Sequence[Sequence[float | None]], groups: Sequence[Group], quantile: float = 0.9
) -> float:
    """The colour scale's limit: the ``quantile`` of the off-diagonal ``|gap|`` s between
    BLEU-4 groups (so an outlier, e.g. a BLEU-1 profile, does not wash out the rest; its
    cells saturate), at least 0.01 points."""
    vals = sorted(
        abs(v)
        for i, row in enumerate(gaps)
        for j, v in enumerate(row)
        if i != j and v is not None and math.isfinite(v) and groups[i].bleu4 and groups[j].bleu4
    )
    if not vals:
        return 1.0
    k = min(len(vals) - 1, max(0, math.ceil(quantile * len(vals)) - 1))
    return max(vals[k], 0.01)


def family_html(report: Report) -> str:
    """The answer's families (empty without an answer)."""
    head, rows, other = family_table(report)
    if not rows:
        return ""
    cells = "".join(
        f'<tr><td class="n">{_e(a)}</td><td class="n">{_e(b)}</td><td>{_e(c)}</td>'
        f"<td>{_e(d)}</td></tr>"
        for a, b, c, d in rows
    )
    ths = "".join(
        f'<th class="n">{_e(h)}</th>' if i < 2 else f"<th>{_e(h)}</th>" for i, h in enumerate(head)
    )
    out = f'<table id="families"><thead><tr>{ths}</tr></thead><tbody>{cells}</tbody></table>'
    if other:
        out += (
            '<p class="muted">Not BLEU-4 (other n-gram weights; far from every BLEU-4 by '
            f"design, never the headline): {_e('; '.join(other))}.</p>"
        )
    return out


def _group_cell(k: int, g: Group) -> str:
    names = ", ".join(
        _e(n).replace(f"({LIB_EQUAL})", f'<span class="lib">{LIB_EQUAL}</span>') for n in g.names
    )
    tag = "" if g.bleu4 else ' <span class="muted">(not BLEU-4)</span>'
    return f'<th class="grp"><span class="k">{k}</span> {names}{tag}</th>'


def gap_matrix_html(report: Report) -> str:
    """The gap matrix: one row and column per group, the mean corpus gap column − row in each
    cell, coloured on a scale clipped at the 90th percentile of the gaps (legend below)."""
    groups = report.overview.groups
    if len(groups) < 2:
        return "<p>Fewer than two groups of implementations: no gaps.</p>"
    gaps = report.overview.gaps
    lim = colour_limit(gaps, groups)
    head = "".join(f'<th class="n">{k}</th>' for k in range(1, len(groups) + 1))
    body = []
    for i, g in enumerate(groups):
        cells = []
        for j, v in enumerate(gaps[i]):
            if i == j:
                cells.append('<td class="n diag">·</td>')
            else:
                cells.append(f'<td class="n" style="{shade(v, lim)}">{_e(_gap(v))}</td>')
        body.append(f"<tr>{_group_cell(i + 1, g)}{''.join(cells)}</tr>")
    n_units = len(report.fixtures)
    legend = (
        '<div class="legend"><span>−' + _e(f"{lim:.2f}") + " or less</span>"
        '<span class="bar"></span><span>+' + _e(f"{lim:.2f}") + " or more</span></div>"
    )
    return (
        f'<table id="gap-matrix"><colgroup><col class="first"></colgroup>'
        f"<thead><tr><th>row A (groups: equal numbers folded)</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{legend}"
        f'<p class="muted">Each cell: mean over {n_units} corpora of BLEU(column) − BLEU(row), '
        "in BLEU points; column numbers are the row numbers. Colour is clipped at "
        f"±{lim:.2f} (the 90th percentile of the gaps between BLEU-4 groups), so one outlier does not wash out the "
        f'rest. <span class="lib">{LIB_EQUAL}</span>: the real library ran and gives the '
        "same numbers as its in-house profile (within its proven tolerance).</p>"
    )


def _gap(v: float | None) -> str:
    if v is None:
        return "—"
    if abs(v) < 0.005:
        return "0" if v == 0 else f"{v:+.0e}"
    return f"{v:+.2f}" if abs(v) < 10 else f"{v:+.1f}"


def scores_html(report: Report) -> str:
    """Corpus-level BLEU per corpus (rows) and group (columns numbered as in the gap matrix
    and named by the group's first implementation); a cell without a number is ``n/a``, its
    status in the cell's title."""
    groups = report.overview.groups
    units = report.fixtures
    if not units:
        return "<p>No corpora.</p>"
    head = "".join(
        f'<th class="n">{k}. {breakable(g.labels[0].removeprefix("harness:"))}</th>'
        for k, g in enumerate(groups, start=1)
    )
    body = []
    for u in units:
        cells = []
        for g in groups:
            lb = g.labels[0]
            if u.status.get(lb) == "ok":
                cells.append(f'<td class="n">{_e(fmt_number(u.scores.get(lb), 2))}</td>')
            else:
                cells.append(f'<td class="na" title="{_e(u.status.get(lb))}">n/a</td>')
        where = _e(f"{u.fixture}/{u.system}")
        body.append(f'<tr><td class="wrap">{where}</td>{"".join(cells)}</tr>')
    return (
        f'<table id="scores"><colgroup><col class="first"></colgroup>'
        f"<thead><tr><th>fixture/system</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
        '<p class="muted">Columns are the numbered groups of the gap matrix above; n/a: no '
        "number (hover for the status).</p>"
    )


CSS = """
#families td:nth-child(3), #families td:nth-child(4) { overflow-wrap: anywhere; }
#gap-matrix { table-layout: fixed; width: 100%; }
#gap-matrix col.first { width: 16rem; } #scores col.first { width: 13rem; }
#gap-matrix th.grp { font-weight: normal; font-size: .8rem; }
#gap-matrix td, #scores td.n { font-size: .78rem; padding: .15rem .2rem; }
#gap-matrix td.diag { background: #f7f7f7; text-align: center; }
.k { display: inline-block; min-width: 1.4rem; font-weight: 700; }
.lib { color: #1b7f3b; font-weight: 600; font-size: .75rem; }
.legend { display: flex; align-items: center; gap: .5rem; font-size: .8rem; margin: .3rem 0; }
.legend .bar { width: 16rem; height: .8rem; border: 1px solid #ccc;
  background: linear-gradient(to right, rgb(179,38,30), #fff, rgb(33,102,172)); }
#scores { table-layout: fixed; width: 100%; } #scores td.wrap { font-size: .8rem; }
"""
