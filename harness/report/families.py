"""The report's plain-words answer and its folded view of the implementations.

:func:`answer_section` builds :class:`harness.analysis.answer.Answer` — the same answer
``bleu-harness compare`` prints first — for the systems of one fixture that share their
references (WMT21's 20 systems, a user's files), with each family's line as text
(:func:`harness.report.console.family_rows`). Corpora that do not share references (the
built-in fixtures) get no answer, and the summary says so.

:func:`fold` groups the implementations that print the same corpus score on every corpus
(within the pair's proven tolerance: a library equal to its profile is one group, marked), in
the order a reader compares them: BLEU-4 implementations by mean score, highest first, then
other n-gram weights, then implementations without scores. The gap matrix, the score table
and the correlations show one row per group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.answer import answer, display_name, is_bleu4
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.report.console import family_rows
from harness.report.sections import bleu4_label, labels_in, library_pair, pair_tolerance
from harness.scorers import PROFILE_OF
from harness.session import Session

#: The mark after a profile whose real library ran and gave the same numbers.
LIB_EQUAL = "lib ="


def shared_references(
    rows: Sequence[Mapping[str, Any]], corpora: Mapping[tuple[str, str], Corpus]
) -> tuple[str, dict[str, Corpus]] | None:
    """``(fixture, {system: corpus})`` when the corpus-level rows come from one fixture whose
    systems all have their corpus here and share their references; else ``None``."""
    corpus_rows = [r for r in rows if r.get("level") == "corpus"]
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
    rows: Sequence[Mapping[str, Any]],
    corpora: Mapping[tuple[str, str], Corpus],
    session: Session | None = None,
    baseline: str = "sacrebleu",
) -> tuple[dict[str, Any] | None, str | None]:
    """``(answer, note)``: the report's ``answer`` section (``Answer.to_dict()`` plus
    ``fixture`` and ``rows``, each family's line as text) or ``None`` and why not."""
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
    scope = (session or Session()).with_corpora(by_system)
    try:
        ans = answer([r for r in rows if r.get("level") == "corpus"], scope, baseline=baseline)
    except HarnessError as exc:
        return None, f"not computed: {exc}"
    out = ans.to_dict()
    out["fixture"] = fixture
    out["rows"] = family_rows(ans)
    return out, None


@dataclass(frozen=True)
class Group:
    """Implementations (row labels) that print the same corpus score on every corpus."""

    labels: tuple[str, ...]
    names: tuple[str, ...]  # what a reader calls each member, libraries folded into profiles
    mean: float | None
    bleu4: bool

    @property
    def label(self) -> str:
        return ", ".join(self.names)


def _profile(label: str) -> str | None:
    """The profile a label is or reproduces (``harness:nltk`` and the ``nltk`` adapter →
    ``nltk``)."""
    if label.startswith("harness:"):
        return label.split(":", 1)[1]
    return PROFILE_OF.get(label)


def _same(a: str, b: str, units: Sequence[Mapping[str, Any]]) -> bool:
    tol = pair_tolerance(a, b)
    for u in units:
        if (u["status"].get(a) == "ok") != (u["status"].get(b) == "ok"):
            return False
        sa, sb = u["scores"].get(a), u["scores"].get(b)
        if (sa is None) != (sb is None) or (sa is not None and abs(sa - sb) > tol):
            return False
    return True


def fold(report: Mapping[str, Any]) -> list[Group]:
    """The implementations of ``report["fixtures"]`` folded into :class:`Group` s (module
    docstring)."""
    units = report["fixtures"]
    labels = list(dict.fromkeys(k for u in units for k in u["status"]))
    scored = [lb for lb in labels if any(u["scores"].get(lb) is not None for u in units)]
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
        profiles = [p for lb in g if (p := _profile(lb)) is not None]
        libs = {lb for lb in g if not lb.startswith("harness:")}
        names = []
        for lb in g:
            if lb.startswith("harness:"):
                name = display_name(lb.split(":", 1)[1])
                names.append(f"{name} ({LIB_EQUAL})" if name in libs else name)
            elif f"harness:{PROFILE_OF.get(lb, '')}" not in g:
                names.append(f"{lb} (library)")
        vals = [u["scores"].get(g[0]) for u in units]
        ok = [v for v in vals if v is not None]
        mean = math.fsum(ok) / len(ok) if ok else None
        bleu4 = all(is_bleu4(PROFILES[p]) for p in profiles if p in PROFILES)
        out.append(Group(tuple(g), tuple(dict.fromkeys(names)), mean, bleu4))
    out.sort(key=lambda x: (x.mean is None, not x.bleu4, -(x.mean or 0.0)))
    return out


def group_gaps(report: Mapping[str, Any], groups: Sequence[Group]) -> list[list[float | None]]:
    """``gaps[i][j]``: mean over the corpora both scored of ``score(group j) − score(group
    i)`` (column − row, BLEU points), from each group's first member."""
    units = report["fixtures"]
    out: list[list[float | None]] = []
    for gi in groups:
        row: list[float | None] = []
        for gj in groups:
            diffs = [
                u["scores"][gj.labels[0]] - u["scores"][gi.labels[0]]
                for u in units
                if u["scores"].get(gi.labels[0]) is not None
                and u["scores"].get(gj.labels[0]) is not None
            ]
            row.append(math.fsum(diffs) / len(diffs) if diffs else None)
        out.append(row)
    return out


def colour_limit(
    gaps: Sequence[Sequence[float | None]], groups: Sequence[Group], q: float = 0.9
) -> float:
    """The colour scale's limit: the ``q`` quantile of the off-diagonal ``|gap|`` s between
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
    k = min(len(vals) - 1, max(0, math.ceil(q * len(vals)) - 1))
    return max(vals[k], 0.01)


#: How many of the largest gaps between groups get a pair detail.
LARGEST_PAIRS = 3


def exceptions(report: Mapping[str, Any], groups: Sequence[Group] | None = None) -> list[Any]:
    """The pairs worth a detail: each real library that differs from its own profile (or has
    no scores), then the :data:`LARGEST_PAIRS` pairs with the largest mean corpus gap between
    BLEU-4 implementations, one per group — not the pairs that merely confirm a profile."""
    groups = list(groups if groups is not None else fold(report))
    group_of = {lb: k for k, g in enumerate(groups) for lb in g.labels}
    out = [p for p in report["pairs"] if library_pair(p) and p.get("verdict") != "agree"]
    seen: set[frozenset[int]] = set()
    ranked = sorted(
        (
            p
            for p in report["pairs"]
            if p.get("verdict") == "disagree"
            and p.get("corpus_gap") is not None
            and bleu4_label(p["a"])
            and bleu4_label(p["b"])
            and not library_pair(p)
        ),
        key=lambda p: -abs(p["corpus_gap"]),
    )
    for p in ranked:
        key = frozenset((group_of.get(p["a"], -1), group_of.get(p["b"], -2)))
        if key in seen:
            continue
        seen.add(key)
        out.append(p)
        if len(seen) >= LARGEST_PAIRS:
            break
    return out
