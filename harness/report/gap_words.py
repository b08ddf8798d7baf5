""" "Does the gap matter?" in words: the sentences of :class:`~harness.analysis.study_types.GapMatters`.

The analysis (:mod:`harness.analysis.gap_matters`) returns facts: each pair's verdict and
``reason``, its gaps, flips and MT-Thresholds numbers, the section's one count (``tally``) and
the pairs the summary names (``leading``). This module writes them as sentences, once, for the
summary, the Markdown, the HTML page and the console, so the four cannot say different things.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.analysis.gap_matters import headline
from harness.analysis.study_types import (
    FixtureGap,
    GapMatters,
    MattersTally,
    MetaDifference,
    PairMatters,
    PairVerdict,
    Report,
)
from harness.report.text import fmt_share
from harness.report.why_words import interval_note, whys_text

__all__ = [
    "META_EVALUATION_NOTE",
    "REASON_WORDS",
    "count_words",
    "fixture_sentence",
    "leading_of",
    "leading_pairs",
    "leading_sentences",
    "matters_cell",
    "meta_note",
    "more_gaps",
    "named",
    "not_comparable",
    "pair_finding",
    "pair_name",
    "pair_sentence",
    "reason_words",
]

#: What each ``reason`` says (those that need the pair's numbers are completed by
#: :func:`reason_words`).
REASON_WORDS: dict[str, str] = {
    "reorders": "the gap matters: it reorders systems",
    "humans-notice": (
        "the gap matters: it reorders no systems here, but a system difference this large "
        "agrees with humans more often than not"
    ),
    "humans-do-not-notice": (
        "the gap does not matter: it reorders no systems, and humans agree with a system "
        "difference this small less often than not"
    ),
    "no-human-agreement": "it reorders no systems (human agreement not computed)",
    "agree": "no gap: equal within tolerance {tolerance:g} on every corpus compared",
    "equal-at-corpus": (
        "equal at corpus level: every corpus gap is within tolerance {tolerance:g}, so no "
        "system moves"
    ),
    "not-comparable": "nothing to compare ({na_reason})",
}


def named(name: str, label: str | None) -> str:
    """An implementation's name with its profile's label, when it has one
    (``harness:mteval-v13a (lowercased, …)``): the setting its name does not say travels with
    it into every sentence."""
    return f"{name} ({label})" if label else name


def pair_name(pair: PairMatters) -> str:
    """``a (label) vs b (label)``."""
    return f"{named(pair.a, pair.label_a)} vs {named(pair.b, pair.label_b)}"


def reason_words(pair: PairMatters) -> str:
    """Why the pair's gap matters or not, in words; for a pair equal at corpus level also how
    its segment scores differ (share of segments), which factors alone move them and in which
    others its profiles differ."""
    text = REASON_WORDS[pair.reason].format(
        tolerance=pair.tolerance, na_reason=whys_text(pair.na_reason or ())
    )
    if pair.reason != "equal-at-corpus":
        return text
    if pair.segments_differ is not None:
        text += (
            f"; its segment scores differ on {fmt_share(pair.segments_differ)} of the "
            f"{pair.segments:,} segments compared"
        )
    else:
        text += "; its segment scores differ"
    moving = pair.segment_factors
    rest = [f for f in pair.factors_differ if f not in moving]
    if moving:
        each = "alone moves" if len(moving) == 1 else "each alone move"
        text += f": {_listed(moving)} {each} them"
        if rest:
            text += f" (the profiles also differ in {', '.join(rest)})"
    elif rest:
        text += f" (the profiles differ in {', '.join(rest)}, none of which alone moves them)"
    return text


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def fixture_sentence(fixture: FixtureGap) -> str:
    """``+0.90 BLEU [+0.70, +1.10] on wmt21 (mean of 20 systems), flips 2 of 190 system
    pairs; mixed in one table, the two move a system by 0.90 BLEU, a difference between two
    systems that humans confirm 62% of the time (MT-Thresholds)``."""
    mean = fixture.mean_gap
    if mean is None:
        return f"nothing to compare on {fixture.fixture}: no system scored by both"
    ci = fixture.ci
    interval = f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f"({interval_note(fixture.ci_note)})"
    systems = sum(s.gap is not None for s in fixture.systems)
    what = f"mean of {systems} systems" if systems > 1 else "one system"
    text = f"{mean:+.2f} BLEU {interval} on {fixture.fixture} ({what})"
    n = fixture.system_pairs
    if n:
        text += f", flips {len(fixture.flips)} of {n} system pair{'s' * (n != 1)}"
    else:
        text += ", no system pair to reorder"
    if fixture.human_agreement is not None:
        text += (
            f"; mixed in one table, the two move a system by {abs(mean):.2f} BLEU, a difference "
            f"between two systems that humans confirm {fixture.human_agreement:.0f}% of the "
            "time (MT-Thresholds)"
        )
    return text


def pair_sentence(pair: PairMatters) -> str:
    """The pair's one sentence: its names with their labels, why its gap matters or not, and
    for a pair with a corpus gap the fixture where it matters most, the others summed up. A
    pair without a corpus gap (agreeing, equal at corpus level, not comparable) gives no gap
    size: it has none that a system difference could be compared with."""
    return f"{pair_name(pair)}: {pair_finding(pair)}"


def pair_finding(pair: PairMatters) -> str:
    """What :func:`pair_sentence` says of the pair after its names."""
    text = reason_words(pair)
    head = headline(pair)
    if head is None or pair.reason in ("agree", "equal-at-corpus", "not-comparable"):
        return text + "."
    text += f" — {fixture_sentence(head)}"
    others = [f for f in pair.fixtures if f is not head and f.mean_gap is not None]
    if others:
        gaps = [f.mean_gap for f in others if f.mean_gap is not None]
        flips = sum(len(f.flips) for f in others)
        pairs = sum(f.system_pairs for f in others)
        span = (
            f"{min(gaps):+.2f}" if len(gaps) == 1 else f"from {min(gaps):+.2f} to {max(gaps):+.2f}"
        )
        text += (
            f" (on {len(others)} other fixture{'s' * (len(others) != 1)}: mean gap {span}, "
            f"flips {flips} of {pairs} system pair{'s' * (pairs != 1)})"
        )
    return text + "."


def matters_cell(pair: PairMatters) -> str:
    """The "matters" column of a pair: ``yes``, ``no``, ``n/a``, or ``equal at corpus``."""
    return "equal at corpus" if pair.reason == "equal-at-corpus" else pair.matters


def count_words(tally: MattersTally) -> tuple[str, str]:
    """The section's one count in words, as ``(lead, rest)``: ``lead`` is what a renderer
    emphasises (``the gap matters for 3``), ``rest`` the remainder of the sentence (``of 33
    pairs of implementations …``), each part counted from ``tally`` and no other number."""
    once = tally.pairs < tally.judged
    rest = (
        f" of {tally.pairs} pairs of implementations"
        + (f" ({tally.judged} judged; a library equal to its profile counted once)" if once else "")
        + ": they reorder systems, or their gap is as large as a difference between two systems "
        "that humans confirm more often than not (MT-Thresholds)"
    )

    def count(n: int, one: str, many: str) -> str:
        return f"{n} {one if n == 1 else many}"

    parts = []
    if tally.does_not_matter:
        parts.append(
            count(tally.does_not_matter, "has", "have") + " a corpus gap that does not matter"
        )
    if tally.equal_at_corpus:
        parts.append(
            count(tally.equal_at_corpus, "is", "are")
            + " equal at corpus level (only segment scores differ)"
        )
    if tally.agree:
        parts.append(count(tally.agree, "agrees", "agree") + " within tolerance")
    if tally.not_comparable:
        parts.append(count(tally.not_comparable, "is", "are") + " not comparable")
    if parts:
        rest += "; " + ", ".join(parts)
    return f"the gap matters for {tally.matters}", rest + "."


def leading_pairs(report: Report) -> list[PairVerdict]:
    """The judged pairs the summary names (``gap_matters.leading``), in its order: the pairs
    the page details."""
    return leading_of(report.pairs, report.gap_matters)


def leading_of(pairs: Sequence[PairVerdict], section: GapMatters) -> list[PairVerdict]:
    """:func:`leading_pairs` of a report whose judged pairs are ``pairs`` and whose gaps are
    ``section``."""
    by_names = {(p.a, p.b): p for p in pairs}
    named_pairs = [section.pairs[k] for k in section.leading]
    return [by_names[(p.a, p.b)] for p in named_pairs if (p.a, p.b) in by_names]


def leading_sentences(section: GapMatters) -> list[str]:
    """The sentences of the pairs the summary names, in its order; pairs with the same first
    side of which :func:`pair_finding` says the same (implementations with equal numbers
    against one base) share one sentence that names every second side."""
    groups: dict[tuple[str, str], list[PairMatters]] = {}
    for k in section.leading:
        pair = section.pairs[k]
        groups.setdefault((named(pair.a, pair.label_a), pair_finding(pair)), []).append(pair)
    out = []
    for (first, finding), pairs in groups.items():
        if len(pairs) == 1:
            out.append(pair_sentence(pairs[0]))
            continue
        seconds = [named(p.b, p.label_b) for p in pairs]
        each = ", ".join(seconds[:-1]) + f" and {seconds[-1]}"
        out.append(f"{first} vs each of {each}: {finding}")
    return out


def more_gaps(section: GapMatters) -> int:
    """How many counted pairs with a corpus gap the summary does not name."""
    t = section.tally
    return t.matters + t.does_not_matter - len(section.leading)


def not_comparable(section: GapMatters) -> Sequence[PairMatters]:
    """The counted pairs with nothing to compare."""
    return [
        section.pairs[k]
        for k in section.tally.counted
        if section.pairs[k].reason == "not-comparable"
    ]


#: Why a pair has no meta-evaluation numbers when the report has no meta-evaluation.
META_EVALUATION_NOTE = (
    "not computed: the WMT meta-evaluation (pairwise accuracy, acc23, soft pairwise accuracy) "
    "needs human judgments (report --human)"
)

#: How a pair's note calls each statistic of the meta-evaluation.
META_STATISTIC_WORDS: dict[str, str] = {
    "pairwise_accuracy": "pairwise accuracy",
    "acc23_calibrated": "acc23",
    "spa": "SPA",
    "segment_acc23_calibrated": "segment acc23",
}


def meta_note(pair: PairMatters) -> str:
    """The pair in the WMT meta-evaluation in words: both sides' numbers and its permutation
    tests, or why there are none."""
    meta: MetaDifference = pair.meta_evaluation
    if meta.status == "not-computed":
        return META_EVALUATION_NOTE
    if meta.status == "not-in-it":
        return f"not in the meta-evaluation of {meta.dataset}: {', '.join(meta.missing)}"
    if meta.status == "one-profile":
        return f"both are the {pair.profile_a} profile: one meta-evaluation"

    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:.4f}"

    shown = [
        f"{META_STATISTIC_WORDS.get(n.statistic, n.statistic)} {number(n.a)} vs {number(n.b)}"
        for n in meta.numbers
    ]
    text = f"on {meta.dataset} ({meta.systems} systems): " + ", ".join(shown)
    if meta.status == "not-tested":
        why = "no permutation resamples" if meta.resamples == 0 else "not a compared pair"
        return text + f"; not tested ({why})"
    significant = [t for t in meta.tests if t.significant]
    if not significant:
        return text + f"; none of {len(meta.tests)} permutation tests significant"
    named = ", ".join(f"{t.statistic} (p = {t.p_value:.3g})" for t in significant)
    return text + f"; significantly different: {named}"
