"""The report's summary sentences, written once for every renderer.

:func:`summary_items` and :func:`significance_line` say what the summary says; a
:class:`Markup` says how a renderer marks it up (HTML escapes and tags, Markdown backticks and
asterisks). The HTML page and ``report.md`` therefore cannot drift apart in content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.study_families import answer_of
from harness.analysis.study_types import (
    LevelCorrelations,
    Report,
    Significance,
    SignificanceTest,
)
from harness.report.answer_words import findings
from harness.report.gap_words import count_words, leading_sentences, more_gaps, not_comparable
from harness.report.tables import correlation_tables
from harness.report.text import fmt_number
from harness.report.why_words import SIGNIFICANCE_HOW, note_text, why_text, whys_text
from harness.statistics.correlation import ASYMPTOTIC, BOOTSTRAP, KENDALL_FULL_BOOT_MAX

#: What a section says when it has nothing to show, in both documents.
EMPTY_SECTION = {
    "pairs": "No pairs.",
    "correlations": "No correlations.",
    "attributions": "No attributions (build the report with corpora).",
    "human": "Not computed.",
}


@dataclass(frozen=True)
class Markup:
    """How one renderer marks up plain text, code, emphasis, verdict labels and file links.

    ``text`` escapes plain text; ``code`` marks (and escapes) a name; ``strong`` emphasises
    already marked-up text; ``label(kind, word)`` marks a verdict word (kind ``yes``/``no``/
    ``na``); ``link`` refers to a file next to the report; ``where`` names the document.
    """

    text: Callable[[Any], str]
    code: Callable[[Any], str]
    strong: Callable[[str], str]
    label: Callable[[str, str], str]
    link: Callable[[str], str]
    where: str


def design_words(sig: Significance) -> str:
    """What the default significance section tested, in words."""
    if sig.design == "pair":
        return "the pair of systems chosen (--significance-pair)"
    return "every system against the best system of its fixture (the baseline)"


def significance_line(report: Report, markup: Markup) -> str:
    """One sentence on significance: computed (per fixture, how many systems are below the
    best at p < 0.05, or the chosen pair's p), not computed and how to get it, or
    precomputed."""
    sig = report.significance
    if sig is None:
        return markup.text(f"not included in this report. To get it, {SIGNIFICANCE_HOW}.")
    if isinstance(sig, Significance):
        ok = [r for r in sig.results if not r.error]
        if not ok:
            why = whys_text(sig.note, "significance") or "not computed"
            return markup.text(f"{why}. To get it, {SIGNIFICANCE_HOW}.")
        head = f"paired bootstrap ({sig.resamples} resamples, seed {sig.seed})"
        if sig.design == "pair":
            parts = [
                f"{r.system} vs {r.baseline} under {r.profile}: "
                f"Δ {fmt_number(r.delta, 2, sign=True)}, p = {fmt_number(r.p_value, 4)}"
                for r in ok
            ]
            return markup.text(f"{head} of the chosen pair: " + "; ".join(parts) + ".")
        parts = []
        for (fixture, profile), rs in _by_test(ok).items():
            below = sum(1 for r in rs if r.p_value is not None and r.p_value < 0.05)
            parts.append(
                f"on {fixture} under {profile}, {below} of {len(rs)} systems score "
                f"significantly below the best, {rs[0].baseline} (p < 0.05)"
            )
        more = f" (and {len(parts) - 2} more fixture/profile tests below)" if len(parts) > 2 else ""
        return markup.text(
            f"{head} of every system against the best: " + "; ".join(parts[:2]) + more + "."
        )
    return markup.text("precomputed results (see below).")


def significance_sentences(report: Report, markup: Markup) -> tuple[list[str], list[str]]:
    """The significance section's sentences, marked up, before and after its table of tests
    (the one table is each renderer's): with results, what was run and how to read the table,
    then the section's note; without, :func:`significance_line` as a sentence. Precomputed
    results have none (their table is the whole section)."""
    sig = report.significance
    if not isinstance(sig, Significance) and sig is not None:
        return [], []
    if sig is None or not sig.results:
        line = significance_line(report, markup)
        return [line[:1].upper() + line[1:]], []
    before = markup.text(
        f"Paired bootstrap (Koehn 2004; {sig.resamples} resamples, seed {sig.seed}) on the "
        f"in-house profiles' cached statistics, {design_words(sig)}: Δ = system − baseline in "
        "BLEU points; p is two-sided (p < 0.05: the system is significantly below the "
        "baseline); CI is the system's 95% percentile interval."
    )
    return [before], [markup.text(f"{whys_text(sig.note, 'significance')}.")] if sig.note else []


def correlation_caption(level: str, method: str, block: LevelCorrelations) -> str:
    """What one correlation matrix was computed on (plain text)."""
    m = block.matrices[method]
    unit = "segments" if level == "segment" else "corpora"
    boot, asym = m.intervals.get(BOOTSTRAP, 0), m.intervals.get(ASYMPTOTIC, 0)
    parts = []
    if boot:
        parts.append(f"bootstrap n_boot={m.n_boot}, seed={m.seed}")
    if asym:
        parts.append("asymptotic (delta method) intervals")
    if boot and asym:
        parts = [
            f"{parts[0]} for the {boot} pairs of implementations with at most "
            f"{KENDALL_FULL_BOOT_MAX} {unit}, {parts[1]} for the {asym} with more"
        ]
    return (
        f"{level} level, {method}: {block.n_keys} aligned {unit}; {block.n_skipped} rows "
        f"skipped; {parts[0] if parts else 'no intervals'}."
    )


def lowest_correlation(report: Report, markup: Markup) -> str | None:
    """The lowest coefficient between two implementations over every matrix, in a sentence
    (``None`` without a coefficient)."""
    lows = [
        (float(x), name, level, method)
        for level, method, _b, rows in correlation_tables(report)
        for name, *xs in rows
        for x in xs
        if x not in ("—", "")
    ]
    if not lows:
        return None
    value, name, level, method = min(lows)
    return markup.text(
        f"Lowest correlation between two implementations: {value:.3f} ({method}, {level} "
        f"level, involving {name})."
    )


def attribution_intro(report: Report, markup: Markup) -> str:
    """How to read the attributions."""
    also = (
        " (the summary's table gives the same split of the mean over every system)"
        if report.answer
        else ""
    )
    return markup.text(
        "Each gap b − a (BLEU points) split into exact Shapley values over the factors; they "
        f"sum to the gap{also}."
    )


def _by_test(
    results: Sequence[SignificanceTest],
) -> dict[tuple[str, str], list[SignificanceTest]]:
    out: dict[tuple[str, str], list[SignificanceTest]] = {}
    for r in results:
        out.setdefault((r.fixture, r.profile), []).append(r)
    return out


def gap_item(report: Report, markup: Markup) -> tuple[str, list[str]]:
    """The summary's answer to "does the gap matter?": the section's one count
    (:func:`~harness.report.gap_words.count_words`), then the sentence of each pair it names
    (``gap_matters.leading``), how many more have a corpus gap, and the pairs not comparable."""
    section = report.gap_matters
    head = markup.strong("Does the gap matter?")
    if not section.pairs:
        return f"{head} {markup.text(note_text(section.note, 'not computed'))}.", []
    lead, rest = count_words(section.tally)
    text = f"{head} {markup.label('no', markup.text(lead))}{markup.text(rest)}"
    subs = [markup.text(x) for x in leading_sentences(section)]
    more = more_gaps(section)
    if more:
        subs.append(
            markup.text(
                f"… and {more} more pair{'s' * (more != 1)} with a corpus gap: see "
                "“Does the gap matter?” below."
            )
        )
    na = not_comparable(section)
    if na:
        subs.append(
            markup.text("Not comparable: " + "; ".join(f"{p.a} vs {p.b}" for p in na) + ".")
        )
    return text, subs


def _pairs(items: Sequence[Sequence[Any]], markup: Markup) -> str:
    return ", ".join(f"{markup.code(x[0])} vs {markup.code(x[1])}" for x in items)


def library_line(report: Report, markup: Markup) -> str | None:
    """ "11/11 real libraries equal their in-house profiles" (and which differ or did not run),
    from the pairs of each library against its own profile; ``None`` when none ran."""
    libs = report.summary.libraries
    equal, differ, not_run = libs.equal, libs.differ, libs.not_run
    n = len(equal) + len(differ)
    if not n and not not_run:
        return None
    text = f"{markup.strong(f'{len(equal)}/{n} real libraries')} equal their in-house profiles"
    text += f" ({', '.join(markup.code(x) for x in equal)})" if equal else ""
    if differ:
        text += f"; {markup.label('no', 'not')}: {', '.join(markup.code(x) for x in differ)}"
    if not_run:
        text += "; not run: " + "; ".join(
            f"{markup.code(x)} ({markup.text(whys_text(why))})" for x, why in not_run
        )
    return text + "."


#: At most this many sampled systems are named in the summary line (the JSON names all).
NAMED_SYSTEMS = 12


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def library_sample_line(report: Report, markup: Markup) -> str | None:
    """What the real libraries were run on when they ran on a sample of the systems or of
    their segments (``None`` when they ran on everything): which systems, how many of their
    segments and how they were scored (one by one, and as a corpus of their own), the seed,
    and the flag that runs them on everything."""
    libs = report.summary.libraries
    if not libs.sampled:
        return None
    t = markup.text
    run, total = libs.corpora_run, libs.corpora
    if len(run) < total:
        fixtures = {name.split("/", 1)[0] for name in run}
        names = [name.split("/", 1)[1] if len(fixtures) == 1 else name for name in run]
        listed = (
            f" ({', '.join(markup.code(x) for x in names)})" if len(run) <= NAMED_SYSTEMS else ""
        )
        where = f"on {len(run):,} of the {_plural(total, 'system')}{listed}"
    else:
        where = f"on every system ({total:,})"
    if libs.segments_run < libs.segments:
        share = f"{libs.segments_run / libs.segments:.0%}"
        per = (
            f"on a seeded sample of {t(f'{libs.segments_run:,}')} of their "
            f"{t(f'{libs.segments:,}')} segments ({t(share)}), scored one by one"
            + (" and as a corpus of their own" if libs.corpus_sample else "")
        )
    elif libs.corpus_sample:
        per = "on a seeded sample of the segments of each, scored as a corpus of their own"
    elif libs.segments:
        per = "at corpus level and on every segment of " + ("those" if len(run) < total else "them")
    else:
        per = "at corpus level"
    seed = f" (seed {t(libs.seed)})" if libs.seed is not None else ""
    return (
        f"{markup.strong('Real libraries, a spot check:')} run {where}, {per}{seed}; each "
        "is compared with its in-house profile on the same text, and the profiles, proven "
        f"equal to them, give every number in this {markup.where} "
        f"({markup.code('--real all')} runs the libraries on everything)."
    )


def library_disagreement_items(report: Report, markup: Markup) -> list[tuple[str, list[str]]]:
    """The summary's first items when a real library's numbers are not its in-house
    profile's where it ran: which library, on how many systems and segments, by how much."""
    t = markup.text
    items: list[tuple[str, list[str]]] = []
    for d in report.summary.libraries.disagreements:
        parts = []
        if d.corpora_beyond:
            whose = "the spot-checked segments of " if d.sample else ""
            parts.append(
                f"on {whose}{d.corpora_beyond:,} of the {_plural(d.corpora, 'system')} it ran "
                f"on (corpus gap up to {t(fmt_number(d.corpus_max_abs, 4))} BLEU points)"
            )
        if d.segments_beyond:
            parts.append(
                f"on {d.segments_beyond:,} of the {_plural(d.segments, 'segment')} it scored "
                f"(up to {t(fmt_number(d.segment_max_abs, 4))} points)"
            )
        where = " and ".join(parts) or "where it ran"
        items.append(
            (
                f"{markup.label('no', 'Finding:')} the real {markup.code(d.library)} "
                f"{markup.strong('disagrees with its in-house profile')} "
                f"{markup.code(d.profile)} {where}, beyond the tolerance of "
                f"{t(fmt_number(d.tolerance, 4))} points its agreement is proven to; the "
                f"profile's numbers in this {markup.where} are not that library's on these "
                "files.",
                [],
            )
        )
    return items


def summary_items(report: Report, markup: Markup) -> list[tuple[str, list[str]]]:
    """The summary's bullet items, each with its sub-items: what was compared, then whether
    each pair's gap matters (:func:`gap_item`). With an ``answer`` (systems that share
    references): its findings in plain words (the spread, each cause with its values and
    points, whether the ranking changes, whether the real libraries equal their profiles).
    Otherwise: why there is no such answer, the libraries against their profiles, the largest
    gap between BLEU-4 implementations and the factor behind it, how many pairs agree. Then
    what has no scores and why, significance, and where the segment table is. A real library
    that disagrees with its profile comes first (:func:`library_disagreement_items`)."""
    ans = report.answer
    items = library_disagreement_items(report, markup)
    items.append((_compared(report, markup), []))
    items.append(gap_item(report, markup))
    if ans:
        items += [(markup.text(x), []) for x in findings(answer_of(ans))]
    else:
        items += _without_answer(report, markup)
    sample = library_sample_line(report, markup)
    if sample:
        items.append((sample, []))
    items += _problems(report, markup)
    items.append((f"{markup.strong('Significance:')} {significance_line(report, markup)}", []))
    seg = report.segments
    t = markup.text
    if seg.file:
        also = f" and {markup.code(seg.csv)}" if seg.csv else ""
        items.append(
            (
                f"Segment-level scores ({t(seg.n_rows)} rows): {markup.link(seg.file)}{also}, "
                f"next to this {markup.where}.",
                [],
            )
        )
    return items


def _compared(report: Report, markup: Markup) -> str:
    sm = report.summary
    ans = report.answer
    impls = sm.implementations
    libs = sum(1 for x in impls if not str(x).startswith("harness:"))
    what = f"{len(impls) - libs} in-house profiles and {libs} real libraries"
    if ans:
        refs = ans.references
        nrefs = str(refs[0]) if refs[0] == refs[1] else f"{refs[0]}–{refs[1]}"
        return (
            f"{markup.strong('Compared')} {what} on {markup.text(ans.fixture)}: "
            f"{len(ans.systems)} systems, {markup.text(ans.segments)} segments, {nrefs} "
            "reference(s) each, scored against the same references."
        )
    corpora = sm.corpora
    fixtures = list(dict.fromkeys(c.split("/", 1)[0] for c in corpora))
    return (
        f"{markup.strong('Compared')} {what} on {len(corpora)} corpus/system unit(s) from "
        f"{len(fixtures)} fixture(s) ({markup.text(', '.join(fixtures)) or 'none'}), "
        f"{markup.text(sm.n_segments)} segments."
    )


def _without_answer(report: Report, markup: Markup) -> list[tuple[str, list[str]]]:
    sm = report.summary
    t = markup.text
    items: list[tuple[str, list[str]]] = []
    if sm.answer_note:
        items.append(
            (
                t(
                    "No per-family answer (gaps split into causes, ranking changes): "
                    + why_text(sm.answer_note, "answer").removeprefix("not computed: ")
                    + ". The gap matrix below compares every implementation."
                ),
                [],
            )
        )
    lib = library_line(report, markup)
    if lib:
        items.append((lib, []))
    gap = sm.largest_gap
    if gap:
        text = (
            f"{markup.strong('Largest gap between BLEU-4 implementations:')} on "
            f"{t(gap.fixture)}/{t(gap.system)}, {markup.code(gap.a)} scores "
            f"{t(fmt_number(gap.score_a, 2))} and {markup.code(gap.b)} "
            f"{t(fmt_number(gap.score_b, 2))} ({t(fmt_number(gap.gap, 2, sign=True))} "
            "BLEU points)"
        )
        ex = gap.explained_by
        if ex:
            elsewhere = (ex.fixture, ex.system) != (gap.fixture, gap.system)
            text += (
                f"; mostly {markup.strong(t(ex.factor))} "
                f"({t(fmt_number(ex.points, 2, sign=True))} of "
                f"{t(fmt_number(ex.attribution_gap, 2, sign=True))} points"
                + (f" on {t(ex.fixture)}/{t(ex.system)}" if elsewhere else "")
                + ")"
            )
        items.append((text + ".", []))
    n_agree, n_dis = len(sm.agree), len(sm.disagree)
    if n_agree or n_dis:
        items.append(
            (
                f"Of {n_agree + n_dis} pairs compared, {markup.label('yes', str(n_agree))} agree "
                f"within tolerance and {markup.label('no', str(n_dis))} differ (different settings "
                "give different numbers; the exceptions are listed under Pairs).",
                [],
            )
        )
    return items


def _problems(report: Report, markup: Markup) -> list[tuple[str, list[str]]]:
    sm = report.summary
    t = markup.text
    probs = sm.problems
    nc = sm.not_comparable
    items: list[tuple[str, list[str]]] = []
    if nc:
        why = "" if probs else ": " + "; ".join(dict.fromkeys(t(whys_text(x[2])) for x in nc))
        items.append(
            (
                f"{markup.label('na', 'Not comparable')} (a side has no scores; n/a, not "
                f"disagreement): {_pairs(nc, markup)}{why}.",
                [],
            )
        )
    if probs:
        items.append(
            (
                f"{markup.strong('Without scores')} (shown as n/a, not as disagreement):",
                [
                    f"{markup.code(x.implementation)} {t(x.status)} on {t(x.corpora)} "
                    f"corpus unit(s): {t(x.reason)}"
                    for x in probs
                ],
            )
        )
    elif sm.implementations:
        ran = " it ran on" if sm.libraries.sampled else ""
        items.append((f"Every implementation scored every corpus{ran}.", []))
    return items


#: The summary's words as plain terminal text.
PLAIN = Markup(
    text=str,
    code=str,
    strong=str,
    label=lambda _kind, word: word,
    link=str,
    where="report",
)


def terminal_findings(report: Report) -> list[str]:
    """What the terminal says of the report before where it was written: a real library that
    leaves its profile (:func:`library_disagreement_items`), then what the libraries ran on
    when they ran on a sample (:func:`library_sample_line`)."""
    lines = [text for text, _ in library_disagreement_items(report, PLAIN)]
    sample = library_sample_line(report, PLAIN)
    return [*lines, sample] if sample else lines
