"""Plain-text screens for a terminal: no Markdown, at most :data:`WIDTH` columns.

:func:`text_table` lays out any table within a width (long cells wrap inside their column;
numbers stay on one line); :func:`fmt_score` prints scores as a reader expects them (a
positive score below 0.005 as ``0.00*``, with :data:`TINY_NOTE` saying why — nltk's "zero" is
``1e-76``); :func:`answer_text` is the first screen of ``bleu-harness compare`` on a user's
files (:class:`harness.analysis.answer.Answer`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

from harness.analysis.answer import FLIP_ALPHA, FLIP_RESAMPLES, Answer, Family, display_name
from harness.analysis.attribution import Attribution
from harness.analysis.labels import SHORT_WIDTH, bleu4_label, short_name
from harness.analysis.library_agreement import TwinCheck
from harness.report.answer_words import family_names, family_why, findings
from harness.run.results import ResultRow, Status

__all__ = [
    "TINY_NOTE",
    "WIDTH",
    "agreement_mark",
    "answer_text",
    "fmt_score",
    "summary_table",
    "text_table",
    "wrap",
]

#: The width of a column of the per-system table: every profile's short name fits it.
COLUMN = SHORT_WIDTH

#: The widest line a screen prints.
WIDTH = 100

#: The footnote of a score printed as ``0.00*``.
TINY_NOTE = (
    "* above 0 but below 0.005: a library that floors a zero precision (nltk: a tiny float) "
    "prints such a number instead of 0"
)


def fmt_score(score: float | None, digits: int = 2, *, sign: bool = False) -> str:
    """A score with ``digits`` decimals; ``—`` for none; ``0.00*`` for a tiny positive one.

    >>> fmt_score(21.0205), fmt_score(4.1e-76), fmt_score(None), fmt_score(0.5, sign=True)
    ('21.02', '0.00*', '—', '+0.50')
    """
    if score is None:
        return "—"
    if 0 < abs(score) < 0.5 * 10**-digits:
        return ("+" if sign and score > 0 else "-" if score < 0 else "") + f"{0:.{digits}f}*"
    return f"{score:+.{digits}f}" if sign else f"{score:.{digits}f}"


def wrap(text: str, width: int = WIDTH, indent: str = "", first: str | None = None) -> str:
    """``text`` wrapped to ``width`` columns (first line prefixed by ``first``, others by
    ``indent``)."""
    return textwrap.fill(
        text,
        width=width,
        initial_indent=indent if first is None else first,
        subsequent_indent=indent,
        break_on_hyphens=False,
    )


def text_table(
    head: Sequence[str],
    body: Sequence[Sequence[str]],
    *,
    align: str = "",
    width: int = WIDTH,
    wrap_col: int | None = None,
) -> list[str]:
    """Lines of a plain-text table no wider than ``width``; ``align`` holds ``l``/``r`` per
    column (default: l, then r). The column ``wrap_col`` (default: the last left-aligned one)
    takes what room is left and wraps its cells onto continuation lines (it is never narrower
    than 12 columns).

    >>> rows = [["sacrebleu", "27.22"], ["nltk", "0.00"]]
    >>> print("\\n".join(text_table(["implementation", "BLEU"], rows)))
    implementation   BLEU
    --------------  -----
    sacrebleu       27.22
    nltk             0.00
    """
    spec = align or "l" + "r" * (len(head) - 1)
    cols = len(head)
    widths = [max(len(str(r[j])) for r in [head, *body]) for j in range(cols)]
    if wrap_col is None:
        lefts = [j for j in range(cols) if spec[j] == "l"]
        wrap_col = lefts[-1] if lefts else cols - 1
    others = sum(w for j, w in enumerate(widths) if j != wrap_col) + 2 * (cols - 1)
    widths[wrap_col] = max(12, min(widths[wrap_col], width - others))
    lines = []
    for k, row in enumerate([head, ["-" * w for w in widths], *body]):
        cells = [str(c) for c in row]
        chunks = textwrap.wrap(cells[wrap_col], widths[wrap_col]) if k != 1 else []
        cells[wrap_col] = chunks[0] if chunks else ("" if k != 1 else cells[wrap_col])
        lines.append(_line(cells, widths, spec))
        for more in chunks[1:]:
            blank = [""] * cols
            blank[wrap_col] = more
            lines.append(_line(blank, widths, spec))
    return lines


def _line(cells: Sequence[str], widths: Sequence[int], spec: str) -> str:
    out = [
        c.rjust(widths[j]) if spec[j] == "r" else c.ljust(widths[j]) for j, c in enumerate(cells)
    ]
    return "  ".join(out).rstrip()


# ---------------------------------------------------------------------- the results table
#: What a cell of :func:`summary_table` shows for a row without a score, by status.
SHORT_STATUS = {
    Status.RAISES: "raises",
    Status.REFUSED: "refused",
    Status.UNAVAILABLE: "n/a",
    Status.UNSUPPORTED: "unsupp",
    Status.NON_FINITE: "nan",
    Status.ERROR: "ERR",
}


def _fixed_score(score: float, width: int) -> str:
    """Fixed decimals, except tiny positive scores (nltk's 1e-76 "zeros"), shown as such."""
    if 0 < score < 0.5 * 10**-width:
        return f"{score:.1e}"
    return f"{score:.{width}f}"


def agreement_mark(check: TwinCheck | None) -> str:
    """The suffix of a library's cell: `` =`` when it equals its in-house profile there,
    `` ≠`` when it does not, nothing where there is no check (in-house columns)."""
    if check is None:
        return ""
    return " =" if check.equal else " ≠"


def summary_table(
    rows: Sequence[ResultRow],
    *,
    width: int = 2,
    labels: Mapping[str, str] | None = None,
    agreement: Mapping[tuple[str, str, str], TwinCheck] | None = None,
) -> str:
    """A console table of corpus-level scores: one line per (fixture, system), one column per
    implementation; ``raises``/``n/a``/``unsupp``/``ERR`` where there is no number.

    ``labels`` renames columns (implementation → header); ``agreement``
    (:func:`harness.analysis.library_agreement.library_agreement`) marks each library's cell
    with whether it equals its profile (:func:`agreement_mark`).
    """
    impls: list[str] = []
    keys: list[tuple[str, str]] = []
    cell: dict[tuple[str, str, str], str] = {}
    for r in rows:
        if r.level != "corpus":
            continue
        if r.implementation not in impls:
            impls.append(r.implementation)
        key = (r.fixture, r.system)
        if key not in keys:
            keys.append(key)
        if r.status == Status.OK and r.score is not None:
            val = _fixed_score(r.score, width)
        else:
            val = SHORT_STATUS.get(r.status, "?")
        if agreement is not None:
            val += agreement_mark(agreement.get((r.fixture, r.system, r.implementation)))
        cell[(r.fixture, r.system, r.implementation)] = val
    names = labels or {}
    head = ["fixture/system", *(names.get(i, i) for i in impls)]
    body = [[f"{f}/{s}", *(cell.get((f, s, i), "") for i in impls)] for f, s in keys]
    widths = [max(len(str(x[j])) for x in [head, *body]) for j in range(len(head))]
    lines = [
        "  ".join(
            str(v).rjust(widths[j]) if j else str(v).ljust(widths[j]) for j, v in enumerate(line)
        )
        for line in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ---------------------------------------------------------------------- compare's first screen
def answer_text(ans: Answer, *, width: int = WIDTH, what: str = "") -> str:
    """The first screen of ``compare`` on a user's files: findings in sentences, then one line
    per family of implementations that print the same number, then what was run."""
    refs = ans.references
    nrefs = str(refs[0]) if refs[0] == refs[1] else f"{refs[0]}–{refs[1]}"
    systems = len(ans.systems)
    head = (
        f"{what or ', '.join(ans.systems)}: {systems} system{'s' if systems != 1 else ''}, "
        f"{ans.segments} segments, {nrefs} reference{'s' if nrefs != '1' else ''} each."
    )
    out = [wrap(head, width), "", "Findings"]
    out += [wrap(s, width, indent="    ", first="  - ") for s in findings(ans)]
    out.append("")
    single = systems == 1
    label = "BLEU" if single else "mean"
    body = []
    tiny = False
    for fam in ans.families:
        if not fam.bleu4:
            continue
        names = family_names(fam)
        score = fam.mean if fam.status == "ok" else None
        tiny |= score is not None and 0 < score < 0.005
        gap = "—" if fam.gap is None else ("base" if ans.baseline in fam.profiles else "")
        if fam.gap is not None and ans.baseline not in fam.profiles:
            gap = fmt_score(fam.gap, sign=True)
        why = family_why(fam, ans.baseline)
        body.append([fmt_score(score) if fam.status == "ok" else "none", gap, f"{names}{why}"])
    out += text_table(
        [label, f"vs {ans.baseline}", "implementations (equal numbers folded) and why"],
        body,
        align="rrl",
        width=width,
    )
    others = [f for f in ans.families if not f.bleu4 and f.profiles]
    if others:
        parts = [f"{', '.join(f.names)} {fmt_score(f.mean)}" for f in others]
        out += ["", wrap("Not BLEU-4 (other n-gram weights): " + "; ".join(parts) + ".", width)]
    if not single:
        ranking = _ranking_table(ans, width)
        if ranking:
            out += ["", *ranking]
        out += ["", *_system_table(ans, width)]
    notes = _notes(ans)
    if tiny or any(_tiny_any(f.scores) for f in ans.families):
        notes.append(TINY_NOTE)
    if notes:
        out.append("")
        out += [wrap(n, width, indent="  ", first="") for n in notes]
    return "\n".join(out)


def _tiny_any(scores: Sequence[float | None]) -> bool:
    return any(s is not None and 0 < s < 0.005 for s in scores)


def flip_example(fam: Family, pair: tuple[str, str]) -> str:
    """A reversed pair in the family's own order, with its p-value: ``B above A (p 0.012)``."""
    p = dict(zip(fam.flips, fam.flip_p, strict=True))[pair]
    return f"{pair[1]} above {pair[0]} (p {p:.3f})"


def _ranking_table(ans: Answer, width: int) -> list[str]:
    """Every BLEU-4 family that orders a system pair the other way than the baseline: how
    many pairs, how many of them its paired bootstrap finds significant, and examples in the
    family's order (significant ones first)."""
    moved = ans.reordering
    if not moved:
        return []
    head = (
        f"Ranking: system pairs each family orders the other way than {ans.baseline} (of "
        f"{ans.system_pairs}); significant: the family's paired bootstrap of the two systems, "
        f"{FLIP_RESAMPLES} resamples, seed {ans.seed}, p < {FLIP_ALPHA:g}."
    )
    body = []
    for fam in moved:
        sig = set(fam.significant_flips)
        shown = [p for p in fam.flips if p in sig][:2] or list(fam.flips[:2])
        eg = "; ".join(flip_example(fam, p) for p in shown)
        more = len(fam.flips) - len(shown)
        body.append(
            [
                str(len(fam.flips)),
                str(len(sig)),
                f"{', '.join(fam.names)} — {eg}" + (f"; {more} more" if more else ""),
            ]
        )
    return [
        wrap(head, width),
        "",
        *text_table(
            ["pairs", "significant", "implementations — e.g., in their order"],
            body,
            align="rrl",
            width=width,
        ),
    ]


def _system_table(ans: Answer, width: int) -> list[str]:
    """Systems down, families across (as many as fit ``width``), by each family's first name;
    the families left out for width are named under it."""
    every = [f for f in ans.families if f.bleu4 and f.profiles and f.status == "ok"]
    sys_w = min(max(len(s) for s in ans.systems), 28)
    col_w = COLUMN
    fit = max(1, (width - sys_w) // (col_w + 2))
    fams = every[:fit]
    head = ["system", *(short_name(f.names[0])[:col_w] for f in fams)]
    body = [[s[:sys_w], *(fmt_score(f.scores[k]) for f in fams)] for k, s in enumerate(ans.systems)]
    lines = ["Per system (each column is the first of a family above):"]
    lines += text_table(head, body, width=width, wrap_col=0)
    left = every[fit:]
    if left:
        names = ", ".join(f.names[0] for f in left)
        lines += [
            wrap(
                f"Not shown for width ({len(left)} of {len(every)} families): {names}; "
                "--json has every number.",
                width,
            )
        ]
    return lines


def _notes(ans: Answer) -> list[str]:
    notes = []
    unverified = sorted({p for f in ans.families for p in f.unverified})
    if unverified:
        notes.append(
            "unverified (never run against their real code here): " + ", ".join(unverified)
        )
    for lib in ans.libraries:
        if lib.equal is None and lib.note:
            notes.append(f"{lib.name}: {lib.note}")
    return notes


# ---------------------------------------------------------------------- the demo's fixtures
def fixtures_text(
    rows: Sequence[ResultRow],
    *,
    seconds: float,
    agreement: Mapping[tuple[str, str, str], TwinCheck],
    width: int = WIDTH,
) -> str:
    """The fixtures part of ``demo``: findings, then one line per fixture system — sacrebleu's
    score, the lowest and the highest implementation, and how many real libraries equal their
    profiles there (``agreement``:
    :func:`harness.analysis.library_agreement.library_agreement` of ``rows``)."""
    corpus = [r for r in rows if r.level == "corpus"]
    keys = list(dict.fromkeys((r.fixture, r.system) for r in corpus))
    impls = list(dict.fromkeys(r.implementation for r in corpus))
    profiles = [i for i in impls if i.startswith("harness:")]
    libraries = [i for i in impls if not i.startswith("harness:")]
    # The extremes are BLEU-4 implementations: HELM's BLEU-1 is far from any BLEU-4 by design.
    bleu4 = {i for i in profiles if bleu4_label(i)}
    checks = equal = 0
    differ: list[str] = []
    body = []
    widest: tuple[float, str] = (-1.0, "")
    tiny = False
    for fixture, system in keys:
        here = [r for r in corpus if (r.fixture, r.system) == (fixture, system)]
        ok = [
            (r.score, r)
            for r in here
            if r.status == Status.OK and r.score is not None and r.implementation in bleu4
        ]
        ok.sort(key=lambda pair: pair[0])
        base = next((r for r in here if r.implementation == "harness:sacrebleu"), None)
        lib_checks = [
            agreement.get((fixture, system, r.implementation)) for r in here if r.kind == "adapter"
        ]
        n_eq = sum(c is not None and c.equal for c in lib_checks)
        n_chk = sum(c is not None for c in lib_checks)
        checks, equal = checks + n_chk, equal + n_eq
        differ += [
            f"{c.library} on {fixture}/{system}"
            for c in lib_checks
            if c is not None and not c.equal
        ]
        if not ok:
            continue
        lo, hi = ok[0], ok[-1]
        tiny |= any(0 < score < 0.005 for score, _ in ok)
        if hi[0] - lo[0] > widest[0]:
            widest = (hi[0] - lo[0], f"{fixture}/{system}")
        body.append(
            [
                _fit(f"{fixture}/{system}", 36),
                fmt_score(base.score) if base and base.status == Status.OK else "raises",
                _extreme(lo, ok),
                _extreme(hi, ok),
                f"{n_eq}/{n_chk}",
            ]
        )
    head = (
        f"The seed articles' worked examples and pitfalls: {len(keys)} fixture systems × "
        f"{len(profiles)} in-house profiles and {len(libraries)} real libraries (corpus BLEU, "
        f"0–100), {seconds:.1f} s. Lowest and highest: BLEU-4 implementations."
    )
    found = [
        f"{equal}/{checks} real-library results equal their in-house profiles"
        + (f"; not: {', '.join(differ[:3])}." if differ else ".")
        + " Where a library raises, its profile raises the same error.",
        f"The widest disagreement is {widest[1]}: {widest[0]:.2f} points between the lowest "
        "and the highest implementation.",
    ]
    out = [wrap(head, width), "", "Findings"]
    out += [wrap(f, width, indent="    ", first="  - ") for f in found]
    out.append("")
    out += text_table(
        ["fixture/system", "sacrebleu", "lowest", "highest", "libs ="],
        body,
        align="lrllr",
        width=width,
        wrap_col=0,
    )
    out += ["", wrap("libs =: real libraries equal to their profile / real libraries run.", width)]
    if tiny:
        out.append(wrap(TINY_NOTE, width))
    return "\n".join(out)


def _fit(text: str, width: int) -> str:
    """``text`` shortened in the middle to ``width`` characters."""
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep - keep // 2] + "…" + text[len(text) - keep // 2 :]


def _extreme(scored: tuple[float, ResultRow], ok: Sequence[tuple[float, ResultRow]]) -> str:
    """``score name`` of an extreme row, ``+N`` for the others at the same number."""
    score, row = scored
    same = [s for s, _ in ok if abs(s - score) <= 1e-9]
    name = display_name(row.implementation.split(":", 1)[1])
    more = f" +{len(same) - 1}" if len(same) > 1 else ""
    return f"{fmt_score(score)} {short_name(name)}{more}"


# ---------------------------------------------------------------------- explain
def attribution_text(att: Attribution, *, width: int = WIDTH, digits: int = 4) -> str:
    """``explain``'s screen: the two scores and the gap, then one row per factor with the values
    on both sides, its BLEU points and its share of the gap (plain text)."""
    where = f"segment {att.segment}" if att.segment is not None else "corpus"
    title = f"{att.corpus} ({where})" if att.corpus else where
    head = (
        f"{att.a} → {att.b} on {title}: {att.score_a:.{digits}f} → {att.score_b:.{digits}f} "
        f"(gap {att.gap:+.{digits}f} BLEU)"
    )
    body = []
    for name, value in att.factors.items():
        change = "; ".join(f"{k}: {x} → {y}" for k, (x, y) in att.changes.get(name, {}).items())
        body.append([name, f"{value:+.{digits}f}", _share(att.share(name)), change])
    body.append(["total", f"{att.explained:+.{digits}f}", _share(att.share_total), ""])
    if att.residual is not None:
        share = None if att.gap == 0 else att.residual / att.gap
        body.append(
            [
                f"unexplained ({att.library} − engine)",
                f"{att.residual:+.{digits}f}",
                _share(share),
                "",
            ]
        )
    out = [wrap(head, width), ""]
    out += text_table(
        ["factor", "BLEU points", "share", "change (a → b)"], body, align="lrrl", width=width
    )
    if att.substituted:
        out += [
            "",
            wrap(
                "Scored with on_zero_length=zero because they would raise: "
                + ", ".join(att.substituted),
                width,
            ),
        ]
    return "\n".join(out)


def _share(x: float | None) -> str:
    return "—" if x is None else f"{100 * x + 0.0:.1f}%"
