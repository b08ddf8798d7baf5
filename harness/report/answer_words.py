"""The answer to "why do my BLEU numbers differ?" in words: the findings the first screen of
``compare`` and the report's summary say, and each family's line (its names and why its number
differs), written from the facts of :class:`harness.analysis.answer.Answer` (a report's typed
answer is read back into one: :func:`harness.analysis.study_families.answer_of`).
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.answer import (
    FINDING_POINTS,
    FLIP_ALPHA,
    FLIP_RESAMPLES,
    Answer,
    Cause,
    Family,
    LibraryCheck,
    display_name,
    profile_label,
)
from harness.report.why_words import why_text

__all__ = [
    "RANKING_NAMED",
    "WHY_FACTORS",
    "FamilyLine",
    "factor_phrase",
    "family_lines",
    "family_names",
    "family_why",
    "findings",
    "other_factors",
    "shown_causes",
    "top_factors",
]

#: How many factors a family's "why" names; the rest are one "other factors" term.
WHY_FACTORS = 3


@dataclass(frozen=True)
class FamilyLine:
    """One family's line as text: its ``names`` (equal numbers folded; a library that ran
    marked ``(ran: =)`` or ``(ran: ≠)``), ``mean`` score, ``gap`` to the baseline (``None``
    for the baseline's family or none), whether it is the ``baseline``'s, ``why`` (the factors
    behind the gap, or why there is no number), how many system pairs it ``flips`` and how
    many of those its paired bootstrap finds ``significant_flips``, and whether it is
    BLEU-4."""

    names: str
    mean: float | None
    gap: float | None
    baseline: bool
    why: str
    flips: int
    significant_flips: int
    bleu4: bool


def factor_phrase(factor: str, changes: Mapping[str, tuple[Any, Any]], baseline: str) -> str:
    """One factor's change, naming both values: ``tokenize=whitespace (sacrebleu: 13a)``."""
    parts = [f"{fld}={_word(b)} ({baseline}: {_word(a)})" for fld, (a, b) in changes.items()]
    return ", ".join(parts) if parts else factor


def _word(x: Any) -> str:
    if x is None:
        return "default"
    if isinstance(x, bool):
        return "on" if x else "off"
    if isinstance(x, tuple):
        return "/".join(f"{v:g}" if isinstance(v, float) else str(v) for v in x)
    return str(x)


def top_factors(fam: Family, limit: int = 2) -> list[tuple[str, float]]:
    """The factors that explain most of the gap, largest first, at least 0.005 points each."""
    ranked = sorted(fam.factors.items(), key=lambda kv: -abs(kv[1]))
    return [(k, v) for k, v in ranked if abs(v) >= 0.005][:limit]


def findings(ans: Answer) -> list[str]:
    """The sentences that answer the question, most important first: the spread; one
    sentence per cause of the gaps (:attr:`~harness.analysis.answer.Answer.by_cause`) that
    moves some family by more than :data:`~harness.analysis.answer.FINDING_POINTS` BLEU (the
    largest cause when none does), largest first, and how many smaller ones there are;
    whether the ranking changes; which real libraries ran."""
    out: list[str] = []
    base = ans.baseline_family
    scored = [f for f in ans.families if f.bleu4 and f.mean is not None and f.profiles]
    if len(scored) > 1:
        lo = min(scored, key=lambda f: f.mean or 0.0)
        hi = max(scored, key=lambda f: f.mean or 0.0)
        span = (hi.mean or 0.0) - (lo.mean or 0.0)
        what = "mean BLEU over the systems" if len(ans.systems) > 1 else "BLEU"
        out.append(
            f"The {what} ranges {span:.2f} points: {lo.mean:.2f} ({_names(lo)}) to "
            f"{hi.mean:.2f} ({_names(hi)}); {_names(base)} "
            f"{'give' if len(_distinct_names(base)) > 1 else 'gives'} {base.mean:.2f}."
            if base.mean is not None
            else f"The {what} ranges {span:.2f} points."
        )
    shown = shown_causes(ans)
    words = [_cause_words(c.factor, c.variants) for c in shown]
    out += [
        _cause_sentence(c, ans.baseline, detail=words.count(w) > 1)
        for c, w in zip(shown, words, strict=True)
    ]
    smaller = [c for c in ans.by_cause if c not in shown and c.size >= 0.005]
    if smaller:
        n = len(smaller)
        out.append(
            f"{n} smaller cause{'s' if n != 1 else ''} (under {FINDING_POINTS:g} BLEU each) "
            "in the table below."
        )
    if len(ans.systems) > 1:
        out.append(_ranking_sentence(ans, len([f for f in scored if f is not base])))
    checked = [lib for lib in ans.libraries if lib.equal is not None]
    equal = [lib for lib in checked if lib.equal]
    differ = [lib.name for lib in checked if not lib.equal]
    if len(checked) == 1 and equal:
        lib = equal[0]
        out.append(
            f"The real {lib.name}{' ' + lib.version if lib.version else ''} "
            f"{_where_ran(lib, ans.systems)}; every other number is a library's in-house "
            "profile, proven equal to it."
        )
    elif checked:
        line = f"{len(equal)}/{len(checked)} real libraries that ran equal their in-house profiles"
        out.append(line + (f"; not: {', '.join(differ)}." if differ else "."))
    return out


#: Up to how many systems a sentence on where a real library ran names them.
_NAMED_RAN = 5


def _where_ran(lib: LibraryCheck, systems: Sequence[str]) -> str:
    """Where a real library ran and equals its profile: on every system whole, on some of
    them, or on a seeded sample of their segments (a spot check)."""
    ran = [s for s, x in zip(systems, lib.scores, strict=True) if x is not None or s in lib.sampled]
    named = f" ({', '.join(ran)})" if len(ran) <= _NAMED_RAN else ""
    if lib.sampled:
        return (
            f"ran on a seeded sample of the segments of {len(ran)} of the "
            f"{_count(len(systems), 'system')}{named}, scored as a corpus of their own, and "
            "equals its profile there (--real all runs it on everything)"
        )
    if len(ran) < len(systems):
        return (
            f"ran on {len(ran)} of the {_count(len(systems), 'system')}{named} and equals its "
            "profile there (--real all runs it on every system)"
        )
    return "ran and equals its profile"


def shown_causes(ans: Answer) -> tuple[Cause, ...]:
    """The causes the findings say one by one, largest first: each that moves some family by
    more than :data:`~harness.analysis.answer.FINDING_POINTS` BLEU, or the largest one (of
    at least half a printed digit) when none does."""
    ranked = ans.by_cause
    big = tuple(c for c in ranked if c.size > FINDING_POINTS)
    return big or tuple(c for c in ranked[:1] if c.size >= 0.005)


#: How many reordering families the ranking sentence names (the table names every one).
RANKING_NAMED = 4


def _ranking_sentence(ans: Answer, others: int) -> str:
    """Whether any BLEU-4 family orders systems the other way than the baseline: how many
    families, how many distinct system pairs they reverse, each family's count of reversed
    pairs and of significant ones, how many distinct pairs some family reverses
    significantly, and the test that decides it."""
    moved = ans.reordering
    if not moved:
        return f"Every BLEU-4 implementation ranks the {len(ans.systems)} systems alike."
    shown = "; ".join(
        f"{_names(f, 2)}: {_count(len(f.flips), 'pair')}"
        + (f", {len(f.significant_flips)} significant" if f.significant_flips else "")
        for f in moved[:RANKING_NAMED]
    )
    if len(moved) > RANKING_NAMED:
        shown += f"; {len(moved) - RANKING_NAMED} more below"
    pairs, significant = len(ans.reversed_pairs), len(ans.significant_pairs)
    if ans.system_pairs == 1:
        which = "the two systems"
    else:
        which = f"{pairs} of the {ans.system_pairs} system pairs"
    if not significant:
        verdict = "no reversal is significant"
    elif pairs == 1:
        verdict = "the reversal is significant"
    else:
        verdict = (
            f"{significant} of these {pairs} pairs {'is' if significant == 1 else 'are'} "
            "reversed significantly"
        )
    return (
        f"The system ranking changes: {len(moved)} of {others} BLEU-4 families order {which} "
        f"the other way than {ans.baseline} ({shown}); {verdict} (each family's paired "
        f"bootstrap, {FLIP_RESAMPLES} resamples, seed {ans.seed}, p < {FLIP_ALPHA:g})."
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _cause_sentence(cause: Cause, baseline: str, *, detail: bool = False) -> str:
    """One cause in words (every value it stands for; with ``detail``, every changed field
    its words leave out, for two causes whose words alone are the same), the points it moves
    each family by, and the families, each profile with its label."""
    # a family it moves by less than half a printed digit is left out, as from its row
    moved = [(fam, p) for fam, p in zip(cause.families, cause.shares, strict=True)]
    moved = [(fam, p) for fam, p in moved if abs(p) >= 0.005] or moved
    points = sorted(p for _, p in moved)
    span = (
        f"{points[0]:+.2f}"
        if points[-1] - points[0] < 0.005
        else f"{points[0]:+.2f} to {points[-1]:+.2f}"
    )
    names = list(dict.fromkeys(_labelled(p) for fam, _ in moved for p in fam))
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    words = _cause_words(cause.factor, cause.variants)
    if detail:
        named = {f for _, f, _, _ in string.Formatter().parse(_WORDS.get(cause.factor, "")) if f}
        rest = [
            f"{fld}={_word(b)}"
            for variant in cause.variants
            for fld, (_a, b) in variant.items()
            if fld not in named
        ]
        words += f" with {', '.join(dict.fromkeys(rest))}" if rest else ""
    if len(cause.variants) > 1:
        words += (
            " (the same n-gram counts on this text)"
            if cause.same_counts
            else " (each moves its implementations by the same points here)"
        )
    return f"{words[:1].upper()}{words[1:]}: {span} BLEU against {baseline} ({shown})."


def _labelled(profile: str) -> str:
    """A profile's display name with its label (the setting its name does not say)."""
    label = profile_label(profile)
    return display_name(profile) + (f" ({label})" if label else "")


def _distinct_names(f: Family) -> list[str]:
    names = [_labelled(p) for p in f.profiles]
    return list(dict.fromkeys(names)) or [lib.name for lib in f.libraries]


def _names(f: Family, limit: int = 3) -> str:
    names = _distinct_names(f)
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


#: Plain words for a factor, given the values on the other side (``{b}``) and the baseline's.
_WORDS = {
    "sentence_split": "scoring the first sentence against every reference sentence",
    "tokenization": "tokenizing with {tokenize}",
    "ngram_identity": "matching n-grams by {ngram_identity}",
    "case": "lowercasing",
    "punctuation": "ASCII punctuation made spaces",
    "articles": "the articles a/an/the dropped",
    "ref_length": "the {ref_length} reference length in the brevity penalty",
    "ngram_totals": "n-gram totals floored at 1",
    "smoothing": "smoothing {smooth}",
    "effective_order": "effective order",
    "aggregation": "aggregating by {aggregation} instead of corpus statistics",
    "order": "other n-gram weights",
    "zero_length": "the zero-length rule",
    "rounding": "rounding to {round_digits} decimals",
}


def _cause_words(factor: str, variants: Sequence[Mapping[str, tuple[Any, Any]]]) -> str:
    """A factor's change in plain words, every variant's value of a field joined by "or"
    (``tokenizing with whitespace or fairseq instead of 13a``)."""
    template = _WORDS.get(factor, factor)
    values: dict[str, list[str]] = {}
    for changes in variants:
        for fld, (_a, b) in changes.items():
            values.setdefault(fld, [])
            if _word(b) not in values[fld]:
                values[fld].append(_word(b))
    said = {
        fld: ", ".join(vs[:-1]) + " or " + vs[-1] if len(vs) > 1 else vs[0]
        for fld, vs in values.items()
    }
    try:
        text = template.format(**said)
    except KeyError:  # the named field did not change; another of the factor's fields did
        text = factor + " (" + ", ".join(f"{k} {v}" for k, v in said.items()) + ")"
    first = variants[0] if variants else {}
    if factor == "tokenization" and "tokenize" in first:
        text += f" instead of {_word(first['tokenize'][0])}"
    if factor == "case" and "lowercase" in first and not first["lowercase"][1]:
        text = "keeping case"
    return text


def family_names(fam: Family) -> str:
    """A family's names, equal numbers folded; a profile with a setting its name does not say
    labelled with it (:func:`~harness.analysis.answer.profile_label`); a library that ran marked
    ``(ran: =)``, ``(ran: ≠)`` or, when only the library failed, :data:`LIBRARY_NO_NUMBER`
    (the family's number is its profile's)."""
    names = list(dict.fromkeys(fam.names))
    marks = {lib.name: _mark(lib.equal) for lib in fam.libraries}
    for profile in fam.profiles:  # a setting the name alone does not say
        label = profile_label(profile)
        if label:
            marks[display_name(profile)] = f" ({label})" + marks.get(display_name(profile), "")
    shown = [n + marks.get(n, "") for n in names]
    if not fam.profiles:
        shown = [
            f"{lib.name} (ran{'' if lib.note == '' else ': ' + lib.note})" for lib in fam.libraries
        ]
    return ", ".join(shown)


#: The mark of a library that gave no number beside its profile, which did: the family's
#: number is the profile's, and only the library failed.
LIBRARY_NO_NUMBER = " (the library gave no number, see the notes; the number is its profile's)"


def _mark(equal: bool | None) -> str:
    """How a real library that was asked for fared against its profile."""
    if equal is None:
        return LIBRARY_NO_NUMBER
    return " (ran: =)" if equal else " (ran: ≠)"


def family_why(fam: Family, baseline: str) -> str:
    """`` — `` and why a family's number differs from the baseline's (the factors with their
    values and points), or why it has none; empty for the baseline's family."""
    if fam.status != "ok":
        return f" — {fam.status}"
    if baseline in fam.profiles or fam.gap is None:
        return ""
    tops = top_factors(fam, limit=WHY_FACTORS)
    if not tops:
        note = fam.attribution_note
        return " — " + (why_text(note) if note is not None else "within 0.005")
    parts = [f"{factor_phrase(k, fam.changes.get(k, {}), baseline)} {v:+.2f}" for k, v in tops]
    rest = other_factors(fam, [k for k, _ in tops])
    if rest is not None:
        n, points = rest
        parts.append(f"{n} other factor{'s' if n != 1 else ''} {points:+.2f}")
    return " — " + "; ".join(parts)


def other_factors(fam: Family, shown: Sequence[str]) -> tuple[int, float] | None:
    """How many of ``fam``'s factors are not ``shown`` and the BLEU points they add up to
    (so that the shown terms and this one sum to the gap), or ``None`` when that is under
    half a printed digit."""
    rest = [v for k, v in fam.factors.items() if k not in shown]
    points = math.fsum(rest)
    return (len(rest), points) if rest and abs(points) >= 0.005 else None


def family_lines(ans: Answer) -> list[FamilyLine]:
    """compare's family lines: per BLEU-4 family, ``mean`` (its score on
    one system), ``gap`` (to the baseline; ``None`` for the baseline's family or none),
    ``baseline``, ``names`` (:func:`family_names`), ``why`` (:func:`family_why`) and
    ``flips`` (system pairs ordered the other way); then one row per other-weights family
    with ``bleu4`` false."""
    out = []
    for fam in ans.families:
        if not fam.profiles and not fam.libraries:
            continue
        out.append(
            FamilyLine(
                names=family_names(fam),
                mean=fam.mean if fam.status == "ok" else None,
                gap=fam.gap,
                baseline=ans.baseline in fam.profiles,
                why=family_why(fam, ans.baseline).removeprefix(" — "),
                flips=len(fam.flips),
                significant_flips=len(fam.significant_flips),
                bleu4=fam.bleu4,
            )
        )
    return out
