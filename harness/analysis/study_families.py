"""The report's plain-words answer and its folded view of the implementations.

:func:`answer_section` builds :class:`harness.analysis.answer.Answer` — the same answer
``bleu-harness compare`` prints first — for the systems of one fixture that share their
references (WMT21's 20 systems, a user's files), with each family's line as text
(:func:`family_rows`). Corpora that do not share references (the built-in fixtures) get no
answer, and the summary says so.

:func:`overview` folds the implementations that print the same corpus score on every corpus
(within the pair's proven tolerance: a library equal to its profile is one group, marked) in
the order a reader compares them: BLEU-4 implementations by mean score, highest first, then
other n-gram weights, then implementations without scores; with the gap matrix between the
groups and the pairs worth a detail.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.analysis.answer import Answer, Family, answer, display_name, factor_phrase, top_factors
from harness.analysis.labels import (
    bleu4_label,
    labels_in,
    library_pair,
    pair_tolerance,
    profile_of,
)
from harness.analysis.results import Results, as_results
from harness.analysis.significance import DEFAULT_SEED
from harness.analysis.study_types import (
    AnswerSection,
    FamilyRow,
    FixtureScores,
    Group,
    Overview,
    PairVerdict,
)
from harness.analysis.typed_json import from_json, to_json
from harness.bleu.profiles import LABELS
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.session import Session

__all__ = [
    "LARGEST_PAIRS",
    "LIB_EQUAL",
    "answer_section",
    "family_names",
    "family_rows",
    "family_why",
    "other_factors",
    "overview",
    "shared_references",
]

#: The mark after a profile whose real library ran and gave the same numbers.
LIB_EQUAL = "lib ="

#: How many factors a family's "why" names; the rest are one "other factors" term.
WHY_FACTORS = 3

#: How many of the largest gaps between groups get a pair detail.
LARGEST_PAIRS = 3


# ---------------------------------------------------------------------- the answer
def shared_references(
    rows: Results | Sequence[Mapping[str, Any]], corpora: Mapping[tuple[str, str], Corpus]
) -> tuple[str, dict[str, Corpus]] | None:
    """``(fixture, {system: corpus})`` when the corpus-level rows come from one fixture whose
    systems all have their corpus here and share their references; else ``None``."""
    corpus_rows = as_results(rows).corpus_rows()
    fixtures = list(dict.fromkeys(str(r["fixture"]) for r in corpus_rows))
    if len(fixtures) != 1:
        return None
    systems = list(dict.fromkeys(str(r["system"]) for r in corpus_rows))
    if not systems or any((fixtures[0], s) not in corpora for s in systems):
        return None
    chosen = {s: corpora[(fixtures[0], s)] for s in systems}
    refs = {c.references for c in chosen.values()}
    return (fixtures[0], chosen) if len(refs) == 1 else None


def answer_section(
    rows: Results,
    corpora: Mapping[tuple[str, str], Corpus],
    session: Session,
    baseline: str = "sacrebleu",
    seed: int = DEFAULT_SEED,
) -> tuple[AnswerSection | None, str | None]:
    """``(answer, note)``: the report's ``answer`` (the :class:`~harness.analysis.answer.
    Answer` with its fixture and each family's line as text), or ``None`` and why not.
    ``session`` counts the statistics (a session over the fixture's systems is made from it)."""
    found = shared_references(rows, corpora) if corpora else None
    if found is None:
        why = "without the corpora" if not corpora else "the corpora do not share references"
        return None, (
            f"not computed: {why} (the answer compares implementations over systems scored "
            "against the same references, e.g. --wmt21 or your own files)"
        )
    fixture, by_system = found
    if f"harness:{baseline}" not in labels_in(rows):
        return None, f"not computed: the baseline profile {baseline} is not in the rows"
    scope = session.with_corpora(by_system)
    try:
        ans = answer(rows.corpus_rows(), scope, baseline=baseline, seed=seed)
    except HarnessError as exc:
        return None, f"not computed: {exc}"
    record = {**to_json(ans), "fixture": fixture, "rows": to_json(family_rows(ans))}
    return from_json(AnswerSection, record, "answer"), None


def family_names(fam: Family) -> str:
    """A family's names, equal numbers folded; a profile with a setting its name does not say
    labelled with it (:data:`~harness.bleu.profiles.LABELS`); a library that ran marked
    ``(ran: =)``, ``(ran: ≠)`` or ``(no number: see the notes)``."""
    names = list(dict.fromkeys(fam.names))
    marks = {lib.name: _mark(lib.equal) for lib in fam.libraries}
    for profile in fam.profiles:  # a setting the name alone does not say
        if profile in LABELS:
            marks[display_name(profile)] = f" ({LABELS[profile]})" + marks.get(
                display_name(profile), ""
            )
    shown = [n + marks.get(n, "") for n in names]
    if not fam.profiles:
        shown = [
            f"{lib.name} (ran{'' if lib.note == '' else ': ' + lib.note})" for lib in fam.libraries
        ]
    return ", ".join(shown)


def _mark(equal: bool | None) -> str:
    """How a real library that was asked for fared against its profile."""
    if equal is None:
        return " (no number: see the notes)"
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
        return " — " + (fam.attribution_note or "within 0.005")
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


def family_rows(ans: Answer) -> list[FamilyRow]:
    """compare's family lines as data for a report: per BLEU-4 family, ``mean`` (its score on
    one system), ``gap`` (to the baseline; ``None`` for the baseline's family or none),
    ``baseline``, ``names`` (:func:`family_names`), ``why`` (:func:`family_why`) and
    ``flips`` (system pairs ordered the other way); then one row per other-weights family
    with ``bleu4`` false."""
    out = []
    for fam in ans.families:
        if not fam.profiles and not fam.libraries:
            continue
        out.append(
            FamilyRow(
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


# ---------------------------------------------------------------------- the folded view
def _same(first: str, second: str, units: Sequence[FixtureScores]) -> bool:
    tol = pair_tolerance(first, second)
    for u in units:
        if (u.status.get(first) == "ok") != (u.status.get(second) == "ok"):
            return False
        sa, sb = u.scores.get(first), u.scores.get(second)
        if sa is None or sb is None:
            if (sa is None) != (sb is None):
                return False
        elif abs(sa - sb) > tol:
            return False
    return True


def fold(units: Sequence[FixtureScores]) -> list[Group]:
    """The implementations of ``units`` folded into :class:`Group` s (module docstring)."""
    labels = list(dict.fromkeys(k for u in units for k in u.status))
    scored = [lb for lb in labels if any(u.scores.get(lb) is not None for u in units)]
    groups: list[list[str]] = []
    for lb in scored:
        for g in groups:
            if _same(g[0], lb, units):
                g.append(lb)
                break
        else:
            groups.append([lb])
    groups += [[lb] for lb in labels if lb not in scored]
    out = []
    for g in groups:
        libs = {lb for lb in g if not lb.startswith("harness:")}
        names = []
        for lb in g:
            if lb.startswith("harness:"):
                name = display_name(lb.split(":", 1)[1])
                names.append(f"{name} ({LIB_EQUAL})" if name in libs else name)
            elif f"harness:{profile_of(lb) or ''}" not in g:
                names.append(f"{lb} (library)")
        ok = [v for u in units if (v := u.scores.get(g[0])) is not None]
        mean = math.fsum(ok) / len(ok) if ok else None
        bleu4 = all(bleu4_label(lb) for lb in g if profile_of(lb) is not None)
        out.append(Group(tuple(g), tuple(dict.fromkeys(names)), mean, bleu4))
    out.sort(key=lambda x: (x.mean is None, not x.bleu4, -(x.mean or 0.0)))
    return out


def group_gaps(
    units: Sequence[FixtureScores], groups: Sequence[Group]
) -> tuple[tuple[float | None, ...], ...]:
    """``gaps[i][j]``: mean over the corpora both scored of ``score(group j) − score(group
    i)`` (column − row, BLEU points), from each group's first member."""
    out = []
    for gi in groups:
        row: list[float | None] = []
        for gj in groups:
            diffs = [
                sj - si
                for u in units
                if (si := u.scores.get(gi.labels[0])) is not None
                and (sj := u.scores.get(gj.labels[0])) is not None
            ]
            row.append(math.fsum(diffs) / len(diffs) if diffs else None)
        out.append(tuple(row))
    return tuple(out)


def exceptions(pairs: Sequence[PairVerdict], groups: Sequence[Group]) -> list[int]:
    """The indices of the pairs worth a detail: each real library that differs from its own
    profile (or has no scores), then the :data:`LARGEST_PAIRS` pairs with the largest mean
    corpus gap between BLEU-4 implementations, one per group — not the pairs that merely
    confirm a profile."""
    group_of = {lb: k for k, g in enumerate(groups) for lb in g.labels}
    out = [k for k, p in enumerate(pairs) if library_pair(p.a, p.b) and p.verdict != "agree"]
    seen: set[frozenset[int]] = set()
    ranked = sorted(
        (
            k
            for k, p in enumerate(pairs)
            if p.verdict == "disagree"
            and p.corpus_gap is not None
            and bleu4_label(p.a)
            and bleu4_label(p.b)
            and not library_pair(p.a, p.b)
        ),
        key=lambda k: -abs(pairs[k].corpus_gap or 0.0),
    )
    for k in ranked:
        key = frozenset((group_of.get(pairs[k].a, -1), group_of.get(pairs[k].b, -2)))
        if key in seen:
            continue
        seen.add(key)
        out.append(k)
        if len(seen) >= LARGEST_PAIRS:
            break
    return out


def overview(units: Sequence[FixtureScores], pairs: Sequence[PairVerdict]) -> Overview:
    """The report's ``overview``: the groups (:func:`fold`), the gap matrix between them
    (:func:`group_gaps`) and the pairs worth a detail (:func:`exceptions`)."""
    groups = fold(units)
    return Overview(tuple(groups), group_gaps(units, groups), tuple(exceptions(pairs, groups)))
