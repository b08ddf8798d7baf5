"""The report's ``summary`` section, from its other sections and the rows: the corpora and
implementations, the largest gap between two BLEU-4 implementations with the factor that
explains it, the pairs that agree and disagree, the problems met, and which libraries equal
their profiles.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from harness.analysis.labels import (
    bleu4_label,
    corpora_in,
    kinds_in,
    labels_in,
    library_pair,
)
from harness.analysis.study_pairs import (
    _short_reason,
)
from harness.analysis.study_types import (
    CorpusAttribution,
    ExplainedBy,
    FixtureScores,
    LargestAttribution,
    LargestGap,
    Libraries,
    LibraryDisagreement,
    PairVerdict,
    Problem,
    Summary,
)
from harness.analysis.why import Why
from harness.run.results import ResultRow, Results, as_results


def _problems(rows: Results) -> list[Problem]:
    """Per implementation and non-ok status: how many corpus-level rows, and the first reason."""
    counts: dict[tuple[str, str], int] = {}
    reasons: dict[tuple[str, str], str] = {}
    for r in [*rows.corpus_rows(), *rows.corpus_rows("sample")]:
        status = str(r.status)
        if status == "ok":
            continue
        key = (str(r.implementation), status)
        counts[key] = counts.get(key, 0) + 1
        reasons.setdefault(key, _short_reason(status, r.error))
    return [Problem(key[0], key[1], n, reasons[key]) for key, n in counts.items()]


def library_segments(rows: Results | Sequence[ResultRow]) -> tuple[int, int]:
    """(segments the real libraries were run on at segment level — the most of any one
    library —, segments of the corpora where they were): the profiles give every segment."""
    counts = as_results(rows).segment_counts()
    per = {key: n for key, (n, _) in counts.items()}
    profile = {key: kind == "profile" for key, (_, kind) in counts.items()}
    total: dict[tuple[str, str], int] = {}
    for (impl, f, s), n in per.items():
        if profile[(impl, f, s)]:
            total[(f, s)] = max(total.get((f, s), 0), n)
    run: dict[str, tuple[int, int]] = {}
    for (impl, f, s), n in per.items():
        if profile[(impl, f, s)] or (f, s) not in total:
            continue
        done, of = run.get(impl, (0, 0))
        run[impl] = (done + n, of + total[(f, s)])
    return max(run.values(), default=(0, 0))


def library_corpora(rows: Results | Sequence[ResultRow]) -> tuple[tuple[str, ...], int]:
    """(the corpora ``fixture/system`` a real library has rows on, in run order; how many
    corpora the rows have): fewer when the libraries ran on a sample of the systems."""
    table = as_results(rows)
    every = [(str(f), str(s)) for f, s in table.distinct("fixture", "system")]
    kinds = kinds_in(table)
    ran = set().union(*(w for x, w in corpora_in(table).items() if kinds.get(x) == "adapter"))
    return tuple(f"{f}/{s}" for f, s in every if (f, s) in ran), len(every)


def _disagreement(p: PairVerdict) -> LibraryDisagreement:
    """Where a library's numbers leave its profile's: the pair's corpora and segments beyond
    its tolerance."""
    gaps = [abs(g.gap) for g in p.corpora if g.gap is not None]
    seg = p.segments
    beyond = round((seg.share_above or 0.0) * seg.n)
    return LibraryDisagreement(
        library=p.b,
        profile=p.a,
        tolerance=p.tolerance,
        corpora=len(gaps),
        corpora_beyond=sum(1 for g in gaps if g > p.tolerance),
        corpus_max_abs=max(gaps) if gaps else None,
        segments=seg.n,
        segments_beyond=beyond,
        segment_max_abs=seg.max_abs,
        sample=bool(p.corpora) and all(g.sample for g in p.corpora),
    )


def _libraries(pairs: Sequence[PairVerdict], rows: Results, seed: int | None) -> Libraries:
    """Each real library against its own profile, and what they were run on."""
    equal, differ, not_run, disagreements = [], [], [], []
    for p in pairs:
        if not library_pair(p.a, p.b):
            continue
        if p.verdict == "agree":
            equal.append(p.b)
        elif p.verdict == "disagree":
            differ.append(p.b)
            disagreements.append(_disagreement(p))
        else:
            not_run.append((p.b, p.na_reason or ()))
    done, of = library_segments(rows)
    corpora_run, corpora = library_corpora(rows)
    return Libraries(
        tuple(equal),
        tuple(differ),
        tuple(not_run),
        segments_run=done,
        segments=of,
        corpora_run=corpora_run,
        corpora=corpora,
        seed=seed,
        disagreements=tuple(disagreements),
        corpus_sample=any(r.kind == "adapter" for r in rows.corpus_rows("sample")),
    )


def _bare(label: str) -> str:
    return label.split(":", 1)[1] if label.startswith("harness:") else label


def _largest_factor(at: CorpusAttribution) -> tuple[str, float]:
    return max(at.factors.items(), key=lambda kv: abs(kv[1] or 0.0))


def _largest_gap(
    pairs: Sequence[PairVerdict], attributions: Sequence[CorpusAttribution]
) -> LargestGap | None:
    """The largest corpus gap between two BLEU-4 implementations (a BLEU-1 or 4-gram-only
    profile is far from every BLEU-4 by design, which says nothing about implementations)."""
    best: LargestGap | None = None
    for p in pairs:
        if not (bleu4_label(p.a) and bleu4_label(p.b)):
            continue
        for g in p.corpora:
            if g.gap is not None and (best is None or abs(g.gap) > abs(best.gap)):
                best = LargestGap(p.a, p.b, g.fixture, g.system, g.gap, g.a.score, g.b.score, None)
    if best is None:
        return None
    where = (best.fixture, best.system)
    same = [
        at
        for at in attributions
        if not at.error and at.factors and (_bare(best.a), _bare(best.b)) == (at.a, at.b)
    ]
    # the attribution on this corpus, else the same pair's on another (attributions run on
    # the first corpora only)
    same.sort(key=lambda at: (at.fixture, at.system) != where)
    if not same:
        return best
    at = same[0]
    factor, points = _largest_factor(at)
    assert at.gap is not None  # an attribution without an error has its scores
    explained = ExplainedBy(factor, points, at.gap, at.residual, at.fixture, at.system)
    return dataclasses.replace(best, explained_by=explained)


def _largest_attribution(attributions: Sequence[CorpusAttribution]) -> LargestAttribution | None:
    ok = [at for at in attributions if not at.error and at.factors]
    if not ok:
        return None
    at = max(ok, key=lambda x: abs(x.gap or 0.0))
    factor, points = _largest_factor(at)
    assert at.gap is not None
    return LargestAttribution(at.a, at.b, at.fixture, at.system, at.gap, factor, points)


def summary(
    rows: Results,
    units: Sequence[FixtureScores],
    pairs: Sequence[PairVerdict],
    attributions: Sequence[CorpusAttribution],
    answer_note: Why | None,
    seed: int | None = None,
) -> Summary:
    """The ``summary`` section, from the other sections and the rows (``seed``: the run's,
    which drew the libraries' sample)."""
    return Summary(
        corpora=tuple(f"{u.fixture}/{u.system}" for u in units),
        n_segments=sum(u.segments or 0 for u in units),
        implementations=tuple(labels_in(rows)),
        largest_gap=_largest_gap(pairs, attributions),
        largest_attribution=_largest_attribution(attributions),
        agree=tuple((p.a, p.b) for p in pairs if p.verdict == "agree"),
        disagree=tuple((p.a, p.b) for p in pairs if p.verdict == "disagree"),
        not_comparable=tuple((p.a, p.b, p.na_reason or ()) for p in pairs if p.verdict == "n/a"),
        problems=tuple(_problems(rows)),
        libraries=_libraries(pairs, rows, seed),
        answer_note=answer_note,
    )
