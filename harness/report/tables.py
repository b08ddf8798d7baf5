"""What the report's tables hold, written once for every renderer: column heads and cells as
plain text. The Markdown and the HTML page add only their markup (as :mod:`.summary` does for
the summary sentences), so the two cannot drift apart in content."""

from __future__ import annotations

from harness.analysis.human_section import MetaEvaluationSection
from harness.analysis.study_families import answer_of
from harness.analysis.study_types import (
    CorpusAttribution,
    GapMatters,
    LevelCorrelations,
    PairVerdict,
    Report,
    SignificanceTest,
)
from harness.report.answer_words import family_lines
from harness.report.gap_words import matters_cell, meta_note, pair_name
from harness.report.text import fmt_number, fmt_share
from harness.report.why_words import interval_note

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


#: The "does the gap matter?" table: one row per pair and fixture (:func:`gap_rows`).
GAP_HEAD: tuple[str, ...] = (
    "a",
    "b",
    "matters",
    "fixture",
    "systems",
    "mean gap (b − a)",
    "interval",
    "flips",
    "humans agree",
)


def gap_intro(section: GapMatters) -> str:
    """What the "does the gap matter?" section computed, in one paragraph."""
    level = f"{100 * section.confidence:g}%"
    tool = section.thresholds or "MT-Thresholds (not installed: not computed)"
    return (
        f"For each pair: the mean corpus gap b − a over each fixture's systems with its {level} "
        f"paired-bootstrap interval ({section.resamples} resamples of the fixture's segments, "
        f"seed {section.seed}, the same resamples for both sides; sacrebleu's percentile "
        "interval), the pairs of systems the two order differently (flips), and how often "
        "human judgments agree with a difference of that size between two systems "
        f"({tool}; {section.citation}). The gap matters when it reorders systems or when "
        "humans agree with a system difference that large more often than not."
    )


def gap_rows(section: GapMatters) -> list[list[str]]:
    """One row per pair and fixture (every :data:`GAP_HEAD` column)."""
    rows = []
    for p in section.pairs:
        for f in p.fixtures:
            ci = interval_note(f.ci_note) or "—"
            if f.ci is not None:
                low, high = f.ci
                ci = f"[{fmt_number(low, 2, sign=True)}, {fmt_number(high, 2, sign=True)}]"
            human = "—" if f.human_agreement is None else f"{f.human_agreement:.0f}%"
            rows.append(
                [
                    p.a,
                    p.b,
                    matters_cell(p),
                    f.fixture,
                    str(sum(s.gap is not None for s in f.systems)),
                    fmt_number(f.mean_gap, 2, sign=True),
                    ci,
                    f"{len(f.flips)} of {f.system_pairs}",
                    human,
                ]
            )
    return rows


def flip_lines(section: GapMatters) -> list[str]:
    """Every flip in words: the pair, the fixture, the two systems and both scores of each."""
    out = []
    for p in section.pairs:
        for f in p.fixtures:
            for flip in f.flips:
                first, second = flip.systems
                a1, a2 = flip.scores_a
                b1, b2 = flip.scores_b
                out.append(
                    f"{pair_name(p)} on {f.fixture}: {p.a} ranks {first} above {second} "
                    f"({a1:.2f} vs {a2:.2f}), {p.b} below ({b1:.2f} vs {b2:.2f})"
                )
    return out


def meta_evaluation_lines(section: GapMatters) -> list[str]:
    """Whether each pair's implementations differ in the WMT meta-evaluation, with both
    sides' numbers; one line when no pair has one (the shared reason)."""
    if not section.pairs:
        return []
    notes = {meta_note(p) for p in section.pairs}
    if all(p.meta_evaluation_differs is None for p in section.pairs) and len(notes) == 1:
        return [f"WMT meta-evaluation: {notes.pop()}"]
    word = {True: "differ", False: "do not differ", None: "not tested"}
    return [
        f"{pair_name(p)}: {word[p.meta_evaluation_differs]} in the WMT meta-evaluation "
        f"({meta_note(p)})"
        for p in section.pairs
    ]


#: The columns of the meta-evaluation table: ``MetaEvaluation.rows`` keys and their headers.
META_COLUMNS: tuple[tuple[str, str], ...] = (
    ("implementation", "implementation"),
    ("pairwise_accuracy", "pairwise accuracy"),
    ("acc23_calibrated", "acc23"),
    ("acc23_epsilon", "acc23 ε"),
    ("spa", "SPA"),
    ("segment_acc23_calibrated", "segment acc23 (by item)"),
    ("segment_acc23_epsilon", "segment ε"),
)


def meta_evaluation_rows(meta: MetaEvaluationSection | None) -> list[list[str]]:
    """The cells of the meta-evaluation table, one row per implementation (a report's
    ``meta_evaluation``; empty without one)."""
    if meta is None:
        return []
    out = []
    for row in meta.rows:
        cells = [row.implementation]
        for key, _ in META_COLUMNS[1:]:
            value = getattr(row, key)
            cells.append(
                "—" if value is None else f"{value:.4g}" if "epsilon" in key else f"{value:.4f}"
            )
        out.append(cells)
    return out


def pair_figures(pair: PairVerdict) -> list[str]:
    """The numeric cells of one pair's row (every :data:`PAIR_HEAD` column after ``agree``)."""
    seg = pair.segments
    return [
        f"{pair.tolerance:g}",
        fmt_number(pair.corpus_gap, sign=True),
        fmt_number(pair.corpus_max_abs),
        str(seg.n),
        fmt_number(seg.max_abs),
        fmt_share(seg.share_above),
    ]


def significance_row(test: SignificanceTest) -> tuple[list[str], str | None, list[str]]:
    """One default significance result as ``(labels, error, figures)``: the fixture, the
    systems and the profile; why the test is undefined (``None`` when it ran); and, when it
    ran, the baseline and system scores, Δ, p and the system's interval."""
    labels = [test.fixture, f"{test.system} vs {test.baseline}", test.profile]
    if test.error:
        return labels, str(test.error), []
    low, high = test.ci_system or (None, None)
    return (
        labels,
        None,
        [
            fmt_number(test.score_baseline, 2),
            fmt_number(test.score_system, 2),
            fmt_number(test.delta, 2, sign=True),
            fmt_number(test.p_value, 4),
            f"[{fmt_number(low, 2)}, {fmt_number(high, 2)}]",
        ],
    )


def attribution_rows(attribution: CorpusAttribution, *, total: bool) -> list[tuple[str, str]]:
    """``(factor, BLEU points)`` of one attribution: each factor's Shapley value, the gap they
    sum to (``total``), and what the real library leaves unexplained (when it ran)."""
    rows = [(name, fmt_number(v, sign=True)) for name, v in attribution.factors.items()]
    if total:
        rows.append(("total (= gap)", fmt_number(attribution.gap, sign=True)))
    if attribution.residual is not None:
        rows.append(
            (
                f"unexplained ({attribution.library} − engine)",
                fmt_number(attribution.residual, sign=True),
            )
        )
    return rows


def correlation_tables(report: Report) -> list[tuple[str, str, LevelCorrelations, list[list[str]]]]:
    """``(level, method, block, rows)`` for every correlation matrix, segment level first:
    ``block`` is the level's section (``n_keys``, ``n_skipped``, ``matrices``) and ``rows``
    the matrix as text (each implementation, then its coefficients to 3 decimals)."""
    corr = report.correlations
    out = []
    for level, block in (("segment", corr.segment), ("corpus", corr.corpus)):
        if not block:
            continue
        for method, m in block.matrices.items():
            names = m.names
            rows = [[n, *(fmt_number(m.values[n][k], 3) for k in names)] for n in names]
            out.append((level, method, block, rows))
    return out


def family_table(report: Report) -> tuple[list[str], list[list[str]], list[str]]:
    """``(head, rows, other)``: the answer's BLEU-4 families as text cells (mean, gap to the
    baseline or ``base``, names, the factors behind the gap and how many system pairs it
    orders the other way, and how many of those significantly), and the other-weights
    families as ``name score`` strings."""
    ans = report.answer
    base = ans.baseline if ans else "sacrebleu"
    head = ["mean BLEU", f"vs {base}", "implementations (equal numbers folded)", "why"]
    rows, other = [], []
    for r in family_lines(answer_of(ans)) if ans else ():
        if not r.bleu4:
            other.append(f"{r.names} {fmt_number(r.mean, 2)}")
            continue
        gap = "base" if r.baseline else fmt_number(r.gap, 2, sign=True)
        why = r.why + (
            f"; orders {r.flips} system pair(s) the other way than {base}, "
            f"{r.significant_flips} of them significantly (seed {ans.seed})"
            if r.flips and ans
            else ""
        )
        rows.append([fmt_number(r.mean, 2), gap, r.names, why])
    return head, rows, other
