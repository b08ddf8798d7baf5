"""The report's PNG figures, drawn with matplotlib's Agg canvas.

Every figure has a title, axis labels with units and an alt text (used by the HTML page).
Rendering uses :class:`matplotlib.figure.Figure` with an explicit
:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`: that is the Agg backend, chosen
inside the function, without switching the global pyplot backend of the caller (a notebook
keeps its inline backend) and without a display. matplotlib is imported only when a figure is
drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.analysis.human_section import HumanCorrelation
from harness.analysis.study_types import (
    CorpusAttribution,
    GapMatters,
    PairVerdict,
    Report,
    SegmentsSection,
)
from harness.report.gap_words import leading_of

#: At most this many figures of each repeated kind (the page says when more were left out).
MAX_SCATTERS = 6
MAX_WATERFALLS = 6
MAX_HUMAN = 8

#: The widest figure, in inches at :data:`DPI`: the page's content width (1218 px at a
#: 1250 px body), so every PNG is shown at its natural size.
MAX_WIDTH = 12.0
DPI = 100

_POS, _NEG, _TOTAL, _LIB = "#2a9d8f", "#e76f51", "#6c757d", "#264653"


@dataclass(frozen=True)
class Figure:
    """One PNG written next to the HTML page: its file name, title, alt text and the report
    section it belongs to (``overview``, ``pairs``, ``attributions``, ``human``); ``key``
    identifies what it shows (a pair ``"a|b"``, an attribution index, a human group)."""

    filename: str
    title: str
    alt: str
    section: str
    key: str = ""


# ---------------------------------------------------------------------- drawing
def _new_figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(min(width, MAX_WIDTH), height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: Path) -> None:
    fig.savefig(path, format="png", metadata={"Software": None})


def _short(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "n/a"
    if x != 0 and abs(x) < 0.5 * 10**-digits:
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


def _rows_of(impls: Sequence[str], name: str, rows: dict[str, list[int]]) -> list[int]:
    """Implementation ``name``'s rows in a segment table's column ``impls``, in table order,
    found once for every scatter that draws it (kept in ``rows``)."""
    if name not in rows:
        rows[name] = [i for i, impl in enumerate(impls) if impl == name]
    return rows[name]


def pair_points(
    report: Report, first: str, second: str, rows: dict[str, list[int]] | None = None
) -> tuple[list[float], list[float]]:
    """``(xs, ys)``: the segment scores of ``first`` and ``second`` on every segment both
    scored, from the report's in-memory segment table (empty when the report has none).
    ``rows``: the implementations' rows in the table found so far (filled here)."""
    return _table_points(report.segments.table, first, second, rows)


def _table_points(
    table: Mapping[str, list[Any]], first: str, second: str, rows: dict[str, list[int]] | None
) -> tuple[list[float], list[float]]:
    if not table:
        return [], []
    impls, scores = table["implementation"], table["score"]
    fixtures, systems, ids = table["fixture"], table["system"], table["segment_id"]
    rows = {} if rows is None else rows
    wanted = _rows_of(impls, first, rows)
    if second != first:
        wanted = wanted + _rows_of(impls, second, rows)
    by_key: dict[tuple[str, str, str], dict[str, float]] = {}
    for i in sorted(wanted):
        if scores[i] is not None:
            by_key.setdefault((fixtures[i], systems[i], ids[i]), {})[impls[i]] = scores[i]
    both = [v for v in by_key.values() if first in v and second in v]
    return [v[first] for v in both], [v[second] for v in both]


@dataclass(frozen=True)
class ScatterPoints:
    """One scatter plot to draw: its judged pair and the segment scores of the pair's two
    sides on every segment both scored (:func:`pair_points`, as float arrays)."""

    pair: PairVerdict
    xs: np.ndarray[Any, np.dtype[np.float64]]
    ys: np.ndarray[Any, np.dtype[np.float64]]


def scatter_points(
    pairs: Sequence[PairVerdict], gaps: GapMatters, segments: SegmentsSection
) -> list[ScatterPoints]:
    """The scatter plots of a report whose judged pairs are ``pairs``, their gaps ``gaps`` and
    its segment table ``segments``: one for each pair the summary leads with
    (:func:`~harness.report.gap_words.leading_of`) that has segments both sides scored, at
    most :data:`MAX_SCATTERS`."""
    out: list[ScatterPoints] = []
    rows: dict[str, list[int]] = {}
    for pair in leading_of(pairs, gaps):
        if len(out) >= MAX_SCATTERS:
            break
        xs, ys = _table_points(segments.table, pair.a, pair.b, rows)
        if xs:
            # as float arrays: matplotlib reads a list element by element for masks
            arrays = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
            out.append(ScatterPoints(pair, *arrays))
    return out


def _scatter(points: ScatterPoints, path: Path) -> Figure:
    pair, xs, ys = points.pair, points.xs, points.ys
    a, b = pair.a, pair.b
    fig = _new_figure(5.6, 5.4)  # shown at its natural 560 × 540 px
    ax = fig.add_subplot()
    ax.plot([0, 100], [0, 100], linestyle="--", color="#888888", linewidth=1, label="y = x")
    size = 14 if len(xs) < 500 else 5
    ax.scatter(xs, ys, s=size, alpha=0.6, color=_LIB, edgecolors="none", label="segment")
    ax.set_xlim(-3, 103)
    ax.set_ylim(-3, 103)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{a}: segment BLEU (0–100)")
    ax.set_ylabel(f"{b}: segment BLEU (0–100)")
    ax.set_title(f"Segment BLEU: {b} vs {a}", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    seg = pair.segments
    off = round((seg.share_above or 0.0) * seg.n)
    ax.text(
        0.98,
        0.02,
        f"n = {seg.n}, off diagonal: {off}\nmax |Δ| = {_short(seg.max_abs)} BLEU",
        transform=ax.transAxes,
        ha="right",
        va="bottom",
        fontsize=8,
    )
    _save(fig, path)
    alt = (
        f"Scatter plot of {len(xs)} segment-level BLEU scores (0–100): {a} on the x axis, {b} "
        f"on the y axis, with the dashed y = x diagonal where they agree. {off} of {seg.n} "
        f"segments differ by more than {pair.tolerance:g} points; the largest difference is "
        f"{_short(seg.max_abs)} points and the mean difference ({b} minus {a}) is "
        f"{_short(seg.mean)}."
    )
    return Figure(path.name, f"Segment scores: {b} vs {a}", alt, "pairs", f"{a}|{b}")


def _waterfall(at: CorpusAttribution, index: int, path: Path) -> Figure | None:
    if at.error or at.score_a is None or at.score_b is None:
        return None
    steps: list[tuple[str, float, float, str]] = []  # label, bottom, height, color
    score_a, score_b = float(at.score_a), float(at.score_b)
    steps.append((f"{at.a}\n(start)", 0.0, score_a, _TOTAL))
    level = score_a
    for name, value in at.factors.items():
        v = float(value)
        steps.append((name, level, v, _POS if v >= 0 else _NEG))
        level += v
    steps.append((f"{at.b}\n(engine)", 0.0, score_b, _TOTAL))
    residual = at.residual
    library_score = at.library_score
    if residual is not None and library_score is not None:
        steps.append(("unexplained", score_b, float(residual), _POS if residual >= 0 else _NEG))
        steps.append((f"{at.library}\n(library)", 0.0, float(library_score), _LIB))
    fig = _new_figure(5.9, 4.2)
    ax = fig.add_subplot()
    xs = range(len(steps))
    ax.bar(
        xs,
        [h for _, _, h, _ in steps],
        bottom=[b for _, b, _, _ in steps],
        color=[c for _, _, _, c in steps],
        edgecolor="black",
        linewidth=0.5,
    )
    ends = [bottom + height for _, bottom, height, _ in steps]
    for x in range(len(steps) - 1):  # connectors: where each step leaves the running level
        ax.plot([x - 0.4, x + 1.4], [ends[x], ends[x]], color="#444444", linewidth=0.7, ls=":")
    tops = [max(bottom, bottom + height) for _, bottom, height, _ in steps]
    for x, (_, bottom, height, _) in zip(xs, steps, strict=True):
        text = f"{height:+.2f}" if bottom else f"{height:.2f}"
        ax.text(x, tops[x], text, ha="center", va="bottom", fontsize=8)
    # The axis starts near the lowest level, so a factor of a few points is visible next to
    # scores of 50 (the start and end bars are cut there; the ylabel says so).
    levels = [score_a, *ends]
    span = max(levels) - min(levels)
    low = max(0.0, min(levels) - max(2.0, 1.5 * span))
    ax.set_ylim(low, max([*tops, 1.0]) + max(1.0, 0.25 * span))
    ax.set_xticks(list(xs), [s[0] for s in steps], rotation=35, ha="right", fontsize=8)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_ylabel("BLEU (0–100)" if low == 0 else f"BLEU (0–100; axis from {low:.0f})")
    ax.set_xlabel("factor moved from a to b (Shapley value, BLEU points)")
    where = f"{at.fixture}/{at.system}"
    ax.set_title(f"Attribution {at.a} → {at.b} on {where}", fontsize=10)
    _save(fig, path)
    parts = ", ".join(f"{k} {float(v):+.2f}" for k, v in at.factors.items()) or "no factor"
    alt = (
        f"Waterfall chart on {where}: BLEU (0–100) goes from {score_a:.2f} under {at.a} to "
        f"{score_b:.2f} under {at.b}; the factors contribute {parts} points."
        + (
            f" The real library {at.library} scores {float(library_score):.2f}, "
            f"an unexplained residual of {float(residual):+.2f} points."
            if residual is not None and library_score is not None
            else ""
        )
    )
    return Figure(
        path.name, f"Attribution {at.a} → {at.b} ({where})", alt, "attributions", str(index)
    )


def _fold_labels(records: Sequence[HumanCorrelation]) -> list[HumanCorrelation]:
    """One label for the implementations whose every correlation is the same (they print the
    same scores): ``a, b, c`` (``+N`` more), so a chart has one bar group per number."""
    by_label: dict[str, dict[str, Any]] = {}
    for r in records:
        by_label.setdefault(r.label, {})[r.series] = r.value
    same: dict[tuple[Any, ...], list[str]] = {}
    for label, vals in by_label.items():
        key = tuple(sorted((k, round(v, 9)) for k, v in vals.items()))
        same.setdefault(key, []).append(label)
    names = {}
    for labels in same.values():
        shown = ", ".join(labels[:3]) + (f" +{len(labels) - 3}" if len(labels) > 3 else "")
        names.update({lb: shown for lb in labels})
    firsts = {labels[0] for labels in same.values()}
    return [dataclasses.replace(r, label=names[r.label]) for r in records if r.label in firsts]


def _human_bars(panel: str, records: Sequence[HumanCorrelation], path: Path) -> Figure:
    """Horizontal grouped bars, one group per metric/implementation (highest first), one bar
    per correlation method, whiskers from ``ci_low`` to ``ci_high``; drawn at the page's
    width, its height growing with the number of groups so every label is legible."""
    records = _fold_labels(records)
    series = list(dict.fromkeys(r.series for r in records))
    first = {r.label: r.value for r in reversed(records) if r.series == series[0]}
    labels = sorted(dict.fromkeys(r.label for r in records), key=lambda lb: first.get(lb, 0.0))
    height = 0.8 / len(series)
    fig = _new_figure(MAX_WIDTH, max(3.0, 0.13 * len(labels) * len(series) + 1.4))
    ax = fig.add_subplot()
    colors = ["#264653", "#2a9d8f", "#e9c46a", "#f4a261", "#e76f51"]
    has_ci = any(r.ci_low is not None for r in records)
    lowest = 0.0
    for k, name in enumerate(series):
        recs = {r.label: r for r in records if r.series == name}
        ys = [i + (k - (len(series) - 1) / 2) * height for i, lb in enumerate(labels) if lb in recs]
        rs = [recs[lb] for lb in labels if lb in recs]
        values = [r.value for r in rs]
        lo = [r.value - r.ci_low if r.ci_low is not None else 0.0 for r in rs]
        hi = [r.ci_high - r.value if r.ci_high is not None else 0.0 for r in rs]
        lowest = min([lowest, *(v - d for v, d in zip(values, lo, strict=True))])
        ax.barh(
            ys,
            values,
            height=height,
            xerr=[lo, hi] if has_ci else None,
            capsize=2,
            color=colors[k % len(colors)],
            ecolor="black",
            error_kw={"linewidth": 0.8},
            label=name,
        )
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.axvline(0, color="black", linewidth=0.5)
    ax.set_xlim(min(lowest * 1.1, -0.05), 1.05)
    ax.set_xlabel("correlation with human scores (−1 to 1)")
    ax.set_title(f"Correlation with human judgments: {panel}", fontsize=11)
    ax.legend(
        fontsize=9, title="method", title_fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1)
    )
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    _save(fig, path)
    best = max(records, key=lambda r: r.value)
    worst = min(records, key=lambda r: r.value)
    alt = (
        f"Bar chart ({panel}) of the correlation between {len(labels)} metrics or "
        f"implementations and human judgments, on the −1 to 1 scale, one bar per method "
        f"({', '.join(series)})"
        + (f" with {_whiskers(records)}confidence-interval whiskers" if has_ci else "")
        + f". Highest: {best.label} ({best.series}) {best.value:.3f}; lowest: "
        f"{worst.label} ({worst.series}) {worst.value:.3f}."
    )
    return Figure(path.name, f"Human correlation: {panel}", alt, "human", panel)


def _whiskers(records: Sequence[HumanCorrelation]) -> str:
    """The kinds of the intervals of ``records`` in words, with a trailing space (empty when
    the records do not say)."""
    kinds = {r.interval for r in records if r.ci_low is not None}
    words = {"bootstrap": "percentile-bootstrap", "asymptotic": "asymptotic (delta-method)"}
    named = [words[k] for k in ("bootstrap", "asymptotic") if k in kinds]
    return " and ".join(named) + " " if named else ""


#: Which attributions are drawn as waterfalls, in the page's words.
WATERFALLS_DRAWN = (
    "Waterfalls are drawn for the gaps the summary leads with, each on the system of its "
    f"largest gap (at most {MAX_WATERFALLS}; none for a gap whose every step is zero, one for "
    "equal ones)."
)

#: Below this many BLEU points a waterfall's step is drawn as zero.
_FLAT = 1e-9


def _moves(at: CorpusAttribution) -> bool:
    """Whether a waterfall of ``at`` has a step that is not zero."""
    steps = [at.gap, at.residual, *at.factors.values()]
    return any(v is not None and abs(float(v)) > _FLAT for v in steps)


def _drawing(at: CorpusAttribution) -> tuple[Any, ...]:
    """What a waterfall of ``at`` shows, names aside: two equal ones are drawn once."""
    factors = tuple((k, round(float(v), 6)) for k, v in at.factors.items())
    numbers = (at.score_a, at.score_b, at.residual, at.library_score)
    return (
        at.fixture,
        at.system,
        tuple(None if x is None else round(float(x), 6) for x in numbers),
        factors,
    )


def waterfalls(report: Report) -> list[CorpusAttribution]:
    """The attributions drawn as waterfalls (:data:`WATERFALLS_DRAWN`): for each pair the
    summary leads with (``gap_matters.leading``), the attribution of its two profiles with the
    largest gap; without such pairs, the first of each attributed pair of profiles. None whose
    every step is zero, none drawn twice, at most :data:`MAX_WATERFALLS`."""
    usable = [at for at in report.attributions if not at.error and at.score_a is not None]
    section = report.gap_matters
    if section.leading:
        chosen = []
        for k in section.leading:
            p = section.pairs[k]
            found = [at for at in usable if (at.a, at.b) == (p.profile_a, p.profile_b)]
            if found:
                chosen.append(max(found, key=lambda at: abs(at.gap or 0.0)))
    else:
        chosen = list({(at.a, at.b): at for at in reversed(usable)}.values())[::-1]
    out: list[CorpusAttribution] = []
    seen: set[tuple[Any, ...]] = set()
    for at in chosen:
        if _moves(at) and _drawing(at) not in seen and len(out) < MAX_WATERFALLS:
            seen.add(_drawing(at))
            out.append(at)
    return out


def draw_scatters(points: Sequence[ScatterPoints], directory: str | Path) -> list[Figure]:
    """Draw the scatter plots of ``points`` (:func:`scatter_points`) into ``directory``, as
    ``fig-scatter-01.png`` on; return what was written."""
    directory = Path(directory)
    return [_scatter(p, directory / f"fig-scatter-{n + 1:02d}.png") for n, p in enumerate(points)]


def waterfall_inputs(report: Report) -> list[tuple[CorpusAttribution, int]]:
    """The attributions drawn as waterfalls (:func:`waterfalls`), each with its index in the
    report's attributions."""
    return [(at, report.attributions.index(at)) for at in waterfalls(report)]


def human_groups(report: Report) -> list[tuple[str, list[HumanCorrelation]]]:
    """The human correlations drawn, one chart per panel (at most :data:`MAX_HUMAN`)."""
    if report.human is None:
        return []
    groups: dict[str, list[HumanCorrelation]] = {}
    for r in report.human.correlations:
        groups.setdefault(r.panel, []).append(r)
    return list(groups.items())[:MAX_HUMAN]


def draw_others(
    attributions: Sequence[tuple[CorpusAttribution, int]],
    groups: Sequence[tuple[str, list[HumanCorrelation]]],
    directory: str | Path,
) -> list[Figure]:
    """Draw the waterfalls of ``attributions`` (:func:`waterfall_inputs`) and the charts of
    the human correlations' ``groups`` (:func:`human_groups`) into ``directory``; return what
    was written."""
    directory = Path(directory)
    out: list[Figure] = []
    n = 0
    for at, index in attributions:
        fig = _waterfall(at, index, directory / f"fig-attribution-{n + 1:02d}.png")
        if fig:
            out.append(fig)
            n += 1
    for n, (group, records) in enumerate(groups):
        out.append(_human_bars(group, records, directory / f"fig-human-{n + 1:02d}.png"))
    return out


#: Figures drawn elsewhere (e.g. in a worker process): given the report and the folder, start
#: drawing every figure :func:`render_figures` would draw into it; the callable returned
#: gives what was written, in the same order, once drawn.
FiguresLater = Callable[[Report, Path], Callable[[], list[Figure]]]


def render_figures(report: Report, directory: str | Path) -> list[Figure]:
    """Draw every figure the report supports into ``directory``; return what was written."""
    points = scatter_points(report.pairs, report.gap_matters, report.segments)
    return draw_scatters(points, directory) + draw_others(
        waterfall_inputs(report), human_groups(report), directory
    )
