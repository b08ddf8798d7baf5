"""The report's answer and its folded view of the implementations.

:func:`answer_section` builds :class:`harness.analysis.answer.Answer` — the same answer
``bleu-harness compare`` prints first — for the systems of one fixture that share their
references (WMT21's 20 systems, a user's files), as the report's typed facts
(:func:`answer_of` reads them back; :mod:`harness.report.answer_words` says them in words).
Corpora that do not share references (the built-in fixtures) get no answer, and the summary
says so.

:func:`overview` folds the implementations that print the same corpus score on every corpus
(within the pair's proven tolerance: a library equal to its profile is one group, marked) in
the order a reader compares them: BLEU-4 implementations by mean score, highest first, then
other n-gram weights, then implementations without scores; with the gap matrix between the
groups and the pairs worth a detail.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.analysis.answer import Answer, Cause, Family, LibraryCheck, answer, display_name
from harness.analysis.labels import (
    bleu4_label,
    labels_in,
    library_pair,
    pair_tolerance,
    profile_of,
)
from harness.analysis.significance import DEFAULT_SEED
from harness.analysis.study_types import (
    AnswerSection,
    FixtureScores,
    Group,
    Overview,
    PairVerdict,
)
from harness.analysis.why import Why
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.run.results import ResultRow, Results, as_results
from harness.session import Session
from harness.session.parallel import portable_call, process_pool, resolve_jobs
from harness.typed_json import from_json, to_json

__all__ = [
    "ANSWER_IN_WORKER_FROM",
    "LARGEST_PAIRS",
    "LIB_EQUAL",
    "answer_later",
    "answer_of",
    "answer_section",
    "overview",
    "shared_references",
]

#: The mark after a profile whose real library ran and gave the same numbers.
LIB_EQUAL = "lib ="

#: How many of the largest gaps between groups get a pair detail.
LARGEST_PAIRS = 3


# ---------------------------------------------------------------------- the answer
def shared_references(
    rows: Results | Sequence[ResultRow], corpora: Mapping[tuple[str, str], Corpus]
) -> tuple[str, dict[str, Corpus]] | None:
    """``(fixture, {system: corpus})`` when the corpus-level rows come from one fixture whose
    systems all have their corpus here and share their references; else ``None``."""
    corpus_rows = as_results(rows).corpus_rows()
    fixtures = list(dict.fromkeys(str(r.fixture) for r in corpus_rows))
    if len(fixtures) != 1:
        return None
    systems = list(dict.fromkeys(str(r.system) for r in corpus_rows))
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
) -> tuple[AnswerSection | None, Why | None]:
    """``(answer, note)``: the report's ``answer`` (the :class:`~harness.analysis.answer.
    Answer` with its fixture), or ``None`` and why not.
    ``session`` counts the statistics (a session over the fixture's systems is made from it)."""
    with contextlib.ExitStack() as stack:
        return answer_later(stack, rows, corpora, session, baseline, seed)()


#: Segments (over the fixture's systems) from which a run with workers and a statistics cache
#: on disk computes its answer in a worker: below it, the worker's start, its imports and its
#: reading of the statistics cost more than the answer.
ANSWER_IN_WORKER_FROM = 20_000

Answered = tuple[AnswerSection | None, Why | None]


def answer_later(
    stack: contextlib.ExitStack,
    rows: Results,
    corpora: Mapping[tuple[str, str], Corpus],
    session: Session,
    baseline: str = "sacrebleu",
    seed: int = DEFAULT_SEED,
) -> Callable[[], Answered]:
    """:func:`answer_section`, to be asked for later: started now in a worker process (which
    lives until ``stack`` closes) when ``session`` runs with workers and keeps its statistics
    on disk, and the fixture's systems number :data:`ANSWER_IN_WORKER_FROM` segments or more;
    else computed here when asked for. The worker reads the statistics this process counted
    from the disk cache and counts the hybrids' own, as this process would: the same
    numbers."""
    found = shared_references(rows, corpora) if corpora else None
    if found is None:
        why = Why("without-corpora" if not corpora else "not-shared")
        return lambda: (None, why)
    fixture, by_system = found
    if f"harness:{baseline}" not in labels_in(rows):
        return lambda: (None, Why("baseline-missing", (baseline,)))
    # a spot-checked library's sample rows, beside its profile's, check it against its family
    corpus_rows = [*rows.corpus_rows(), *rows.corpus_rows("sample")]
    directory = session.cache.directory if session.cache.enabled else None
    workers = session.backend == "processes" and resolve_jobs(session.jobs) > 1
    size = sum(len(c) for c in by_system.values())
    if not workers or directory is None or size < ANSWER_IN_WORKER_FROM:
        scope = session.with_corpora(by_system)
        return lambda: _answered(corpus_rows, scope, baseline, seed, fixture)
    pool = stack.enter_context(process_pool(1, 1))
    pending = pool.submit(
        portable_call, _answer_in_worker, corpus_rows, by_system, str(directory), baseline, seed
    )
    return lambda: _with_fixture(pending.result(), fixture)


def _answer_in_worker(
    corpus_rows: Sequence[ResultRow],
    by_system: Mapping[str, Corpus],
    directory: str,
    baseline: str,
    seed: int,
) -> tuple[Answer | None, Why | None]:
    """Worker function: the answer over ``by_system`` on a session of its own over the
    statistics cache in ``directory``, counting in this process."""
    return _answer(corpus_rows, Session(dict(by_system), cache_dir=directory), baseline, seed)


def _answer(
    corpus_rows: Sequence[ResultRow], scope: Session, baseline: str, seed: int
) -> tuple[Answer | None, Why | None]:
    try:
        return answer(corpus_rows, scope, baseline=baseline, seed=seed), None
    except HarnessError as exc:
        return None, Why("error", detail=str(exc))


def _with_fixture(found: tuple[Answer | None, Why | None], fixture: str) -> Answered:
    ans, why = found
    if ans is None:
        return None, why
    return from_json(AnswerSection, {**to_json(ans), "fixture": fixture}, "answer"), None


def _answered(
    corpus_rows: Sequence[ResultRow], scope: Session, baseline: str, seed: int, fixture: str
) -> Answered:
    return _with_fixture(_answer(corpus_rows, scope, baseline, seed), fixture)


def answer_of(section: AnswerSection) -> Answer:
    """The :class:`~harness.analysis.answer.Answer` a report's typed ``answer`` was made from
    (a changed value that was a tuple, such as n-gram weights, is a tuple again)."""
    return Answer(
        systems=section.systems,
        segments=section.segments,
        references=section.references,
        baseline=section.baseline,
        families=tuple(
            Family(
                profiles=f.profiles,
                scores=f.scores,
                status=f.status,
                gap=f.gap,
                factors=dict(f.factors),
                changes={
                    k: {fld: (_tuple(a), _tuple(b)) for fld, (a, b) in ch.items()}
                    for k, ch in f.changes.items()
                },
                flips=f.flips,
                flip_p=f.flip_p,
                libraries=tuple(
                    LibraryCheck(
                        lib.name,
                        lib.version,
                        lib.scores,
                        lib.equal_to_profile,
                        lib.note,
                        lib.sampled,
                    )
                    for lib in f.libraries
                ),
                bleu4=f.bleu4,
                unverified=f.unverified,
                attribution_note=f.attribution_note,
            )
            for f in section.families
        ),
        seed=section.seed,
        causes=tuple(
            Cause(
                factor=c.factor,
                variants=tuple(
                    {fld: (_tuple(a), _tuple(b)) for fld, (a, b) in v.items()} for v in c.variants
                ),
                families=c.families,
                shares=c.shares,
                same_counts=c.same_counts,
            )
            for c in section.causes
        ),
    )


def _tuple(value: Any) -> Any:
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value


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
