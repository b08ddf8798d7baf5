"""Which releases of a library change which calls: the drift report.

Every release of a library found in the folder of published releases
(:func:`harness.scorers.releases.cached_releases`) and the installed one each answer the same
calls (:data:`~harness.scorers.releases.CALLS`) on the same corpora: the shipped fixtures (the
seed articles' worked examples and pitfalls) and seeded generated corpora, rectangular and
ragged (:mod:`harness.diagnose.validate.cases`), and for a library of
:data:`~harness.scorers.peer_releases.PEERS` the corpora where its releases are known to
differ (:attr:`~harness.scorers.peer_releases.PeerLibrary.edges`). A call's releases are grouped into runs of
consecutive releases that answer every corpus alike; a run that answers some corpus otherwise
than the installed release is a drift, shown on the smallest corpus where it does, shrunk
further while it still does (:func:`~harness.diagnose.validate.shrink.shrink`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.bleu.profiles import release_key
from harness.data.datasets import WMT21_REFS, WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.release_check import ProfileCheck, profile_checks
from harness.diagnose.validate.cases import Case, fixture_cases, generate_cases
from harness.diagnose.validate.shrink import shrink
from harness.errors import HarnessError
from harness.progress import ProgressCallback, track
from harness.scorers.peer_releases import PEERS
from harness.scorers.releases import (
    CALLS,
    Answer,
    Release,
    ReleaseProcess,
    cached_releases,
    installed_release,
    releases_folder,
)
from harness.statistics.resampling import DEFAULT_SEED

__all__ = [
    "KINDS",
    "DriftReport",
    "NotRun",
    "ReleaseDrift",
    "Size",
    "drift_kind",
    "drift_report",
    "edge_cases",
    "library_points",
    "same_answer",
    "wmt21_cases",
]

#: Scores closer than this (BLEU points) are the same answer.
SAME_POINTS = 1e-9
#: Calls of the release and of the installed one a drift's example may cost to shrink.
SHRINK_BUDGET = 60


@dataclass(frozen=True)
class ReleaseDrift:
    """Releases ``releases`` (consecutive, oldest first) answer ``call`` alike, and otherwise
    than the installed release in one way (``kind``, :data:`KINDS`) on ``differing`` of the
    ``cases`` corpora; ``example`` is the smallest such corpus, shrunk while the release still
    differs that way, with the releases' answer ``got`` and the installed one's ``today``."""

    call: str
    releases: tuple[str, ...]
    kind: str
    differing: int
    cases: int
    example: Case
    got: Answer
    today: Answer
    #: the drift's size on real corpora (:func:`drift_report`'s ``sized``)
    sizes: tuple[Size, ...] = ()


@dataclass(frozen=True)
class Size:
    """How large a drift is on the real corpus ``source``: the release's answer ``got`` and
    the installed one's ``today``, a per-segment call's scores given as their mean
    (``{"score": mean}``)."""

    source: str
    got: Answer
    today: Answer


@dataclass(frozen=True)
class NotRun:
    """A release found in the release folder that was not run: ``reason`` is
    ``"source-archive"`` (published as a source archive whose package must be built),
    ``"failed"`` (its process did not start: ``detail`` says why) or ``"missing"`` (it, or a
    release it needs, is not in the folder; ``version`` empty when no release of the library
    is: ``detail`` says how to fill it)."""

    version: str
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class DriftReport:
    """``distribution``'s releases ``run`` beside the ``installed`` one on ``cases`` corpora
    (``generated`` of them drawn with ``seed``) for each of ``calls`` (name, the call in the
    library's words), the releases found that were not run, and every drift, by call then
    release."""

    distribution: str
    installed: str
    calls: tuple[tuple[str, str], ...]
    run: tuple[str, ...]
    not_run: tuple[NotRun, ...]
    #: the releases run whose package does not import here: their one BLEU module was run
    #: from its file, with the installed release's other modules
    module_only: tuple[str, ...]
    cases: int
    generated: int
    seed: int
    drifts: tuple[ReleaseDrift, ...]
    #: per call, whether the profile of each release run (and of the installed one)
    #: reproduces its answers on every corpus (:mod:`harness.diagnose.release_check`)
    checks: tuple[ProfileCheck, ...] = ()
    #: of the ``cases``, the corpora where the library's releases are known to differ
    edges: int = 0
    #: (call, release): a release run that does not have the call (left out of its drifts)
    absent: tuple[tuple[str, str], ...] = ()
    #: scores closer than this (BLEU points) are one answer
    points: float = 1e-9
    #: what is run, in words, for a library run through a setup
    #: (:attr:`~harness.scorers.peer_releases.PeerLibrary.what`; "": none)
    what: str = ""


#: How a release's answer can differ from the installed one's: it raises where that scores,
#: scores where that raises, raises another exception, or gives another number.
KINDS = ("raises", "scores", "other error", "number")


def drift_kind(got: Answer, today: Answer) -> str:
    """Which of :data:`KINDS` two different answers are."""
    if "error" in got:
        return "other error" if "error" in today else "raises"
    return "scores" if "error" in today else "number"


def same_answer(a: Answer, b: Answer, points: float = SAME_POINTS) -> bool:
    """Whether two answers are one: the same exception type, or scores within ``points``
    (:data:`SAME_POINTS`; NaN equal to NaN)."""
    if "error" in a or "error" in b:
        return a.get("error") == b.get("error")
    xs = a["scores"] if "scores" in a else [a["score"]]
    ys = b["scores"] if "scores" in b else [b["score"]]
    return len(xs) == len(ys) and all(_same(x, y, points) for x, y in zip(xs, ys, strict=True))


def _same(x: float | None, y: float | None, points: float) -> bool:
    if x is None or y is None:
        return x is y
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= points


def library_points(distribution: str) -> float:
    """Scores closer than this (BLEU points) are one answer of ``distribution``'s releases:
    :data:`SAME_POINTS`, or a library's own (torchmetrics computes in float32)."""
    peer = PEERS.get(distribution)
    return SAME_POINTS if peer is None else peer.points


def battery(generated: int, seed: int, library: str | None = None) -> list[Case]:
    """The corpora releases are compared on: the fixtures, the corpora where ``library``'s
    releases are known to differ (:func:`edge_cases`), then ``generated`` seeded corpora (half
    with as many references on every segment, half ragged)."""
    fixtures, _ = fixture_cases(rectangular=False)
    half = generated // 2
    return [
        *fixtures,
        *edge_cases(library),
        *generate_cases(generated - half, seed=seed, rectangular=True),
        *generate_cases(half, seed=seed + 1),
    ]


def edge_cases(library: str | None) -> list[Case]:
    """The corpora where the releases of ``library`` (of
    :data:`~harness.scorers.peer_releases.PEERS`; none for another) are known to differ."""
    peer = PEERS.get(library or "")
    edges = peer.edges if peer is not None else ()
    return [Case(f"{library} edge case {i}", h, r) for i, (h, r) in enumerate(edges, 1)]


def drift_report(
    distribution: str,
    *,
    generated: int = 100,
    seed: int = DEFAULT_SEED,
    sized: Sequence[Case] = (),
    progress: ProgressCallback | None = None,
) -> DriftReport:
    """Every cached release of ``distribution`` beside the installed one (the module
    docstring); each drift is also measured on the real corpora ``sized`` (its first
    release's answer and the installed one's, :class:`Size`); ``progress`` is told of each
    release run, under the stage ``"releases"``."""
    today = installed_release(distribution)
    found, unbuilt = cached_releases(distribution)
    found = [r for r in found if r.version != today.version]
    cases = battery(generated, seed, distribution)
    calls = list(CALLS[distribution])
    points = library_points(distribution)
    same = functools.partial(same_answer, points=points)
    not_run = [NotRun(v, "source-archive") for v in unbuilt]
    not_run += [NotRun(r.version, "missing", r.missing) for r in found if r.missing]
    found = [r for r in found if not r.missing]
    peer = PEERS.get(distribution)
    if peer is not None and not found and not not_run:
        where = "" if not peer.stem else f"no {peer.stem} wheel in {releases_folder()}: "
        not_run.append(NotRun("", "missing", where + peer.fill))
    answers: dict[str, list[list[Answer]]] = {}
    procs: dict[str, ReleaseProcess] = {}
    with contextlib.ExitStack() as stack:
        now = stack.enter_context(ReleaseProcess(today))
        base = _answers(now, calls, cases)
        for release in track(found, progress, "releases"):
            try:
                proc = stack.enter_context(ReleaseProcess(release))
            except HarnessError as exc:
                not_run.append(NotRun(release.version, "failed", str(exc)))
                continue
            procs[release.version] = proc
            answers[release.version] = _answers(proc, calls, cases)
        ran = [r for r in found if r.version in answers]
        has = {c: [r for r in ran if c not in procs[r.version].absent] for c in calls}
        memo: dict[tuple[str, str], tuple[Size, ...]] = {}
        drifts = [
            _sized(drift, sized, procs[drift.releases[0]], now, memo)
            for c, call in enumerate(calls)
            for drift in _drifts(
                call,
                [(r, answers[r.version][c]) for r in has[call]],
                base[c],
                cases,
                now,
                procs,
                same,
            )
        ]
        checks = [
            check
            for c, call in enumerate(calls)
            for check in profile_checks(
                distribution,
                call,
                [
                    *(
                        (
                            r.version,
                            False,
                            call in procs[r.version].first_reference_only,
                            answers[r.version][c],
                        )
                        for r in has[call]
                    ),
                    (today.version, True, call in now.first_reference_only, base[c]),
                ],
                cases,
                same,
            )
        ]
    return DriftReport(
        distribution=distribution,
        installed=today.version,
        run=tuple(r.version for r in ran),
        module_only=tuple(r.version for r in ran if r.module is not None),
        calls=tuple(CALLS[distribution].items()),
        not_run=tuple(sorted(not_run, key=lambda x: release_key(x.version))),
        cases=len(cases),
        generated=generated,
        seed=seed,
        drifts=tuple(drifts),
        checks=tuple(checks),
        edges=len(edge_cases(distribution)),
        absent=tuple((c, r.version) for c in calls for r in ran if r not in has[c]),
        points=points,
        what=peer.what if peer is not None else "",
    )


def wmt21_cases(data: str | None = None) -> list[Case]:
    """The real corpora a drift is sized on: WMT21 en→de newstest2021's first system
    (:data:`~harness.data.datasets.WMT21_SYSTEMS`), 1002 segments, against its three
    references and against reference A alone (``data``: the data folder, else
    ``$BLEU_HARNESS_DATA``)."""
    system = WMT21_SYSTEMS[0]
    out = []
    for refs in (WMT21_REFS, WMT21_REFS[:1]):
        corpus = load_wmt21_ende(data, systems=[system], refs=refs)[system]
        n = len(refs)
        out.append(
            Case(
                f"WMT21 en→de {system}, {n} reference{'s' * (n != 1)}",
                tuple(corpus.hypotheses),
                tuple(tuple(r) for r in corpus.references),
            )
        )
    return out


def _sized(
    drift: ReleaseDrift,
    sized: Sequence[Case],
    old: ReleaseProcess,
    now: ReleaseProcess,
    memo: dict[tuple[str, str], tuple[Size, ...]],
) -> ReleaseDrift:
    """``drift`` with its size on each of the real corpora ``sized`` (one measure per call
    and release run, kept in ``memo``: a run's drifts of several kinds share it)."""
    if not sized:
        return drift
    key = (drift.call, drift.releases[0])
    if key not in memo:
        batch = [(drift.call, case.hypotheses, case.references) for case in sized]
        memo[key] = tuple(
            Size(case.source, _mean(a), _mean(b))
            for case, a, b in zip(sized, old.run(batch), now.run(batch), strict=True)
        )
    return dataclasses.replace(drift, sizes=memo[key])


def _mean(a: Answer) -> Answer:
    """A per-segment answer as the mean of its scores; any other as it is."""
    if "scores" not in a:
        return a
    scores = a["scores"]
    return {"score": math.fsum(scores) / len(scores) if scores else math.nan}


def _answers(
    proc: ReleaseProcess, calls: Sequence[str], cases: Sequence[Case]
) -> list[list[Answer]]:
    """Per call, the release's answer on each case (one batch)."""
    got = proc.run([(c, case.hypotheses, case.references) for c in calls for case in cases])
    n = len(cases)
    return [got[k * n : (k + 1) * n] for k in range(len(calls))]


def _drifts(
    call: str,
    ran: Sequence[tuple[Release, list[Answer]]],
    base: Sequence[Answer],
    cases: Sequence[Case],
    now: ReleaseProcess,
    procs: dict[str, ReleaseProcess],
    same: Callable[[Answer, Answer], bool] = same_answer,
) -> list[ReleaseDrift]:
    """The runs of consecutive releases answering ``call`` alike (``same``) that differ from
    ``base``."""
    runs: list[list[tuple[Release, list[Answer]]]] = []
    for release, got in ran:
        if runs and all(same(a, b) for a, b in zip(runs[-1][0][1], got, strict=True)):
            runs[-1].append((release, got))
        else:
            runs.append([(release, got)])
    out = []
    for run in runs:
        first, got = run[0]
        kinds: dict[str, list[int]] = {}
        for i, (a, b) in enumerate(zip(got, base, strict=True)):
            if not same(a, b):
                kinds.setdefault(drift_kind(a, b), []).append(i)
        for kind in KINDS:
            if kind not in kinds:
                continue
            differ = kinds[kind]
            i = min(differ, key=lambda k: (cases[k].n_tokens, k))
            old = procs[first.version]

            def keep(case: Case, old: ReleaseProcess = old, kind: str = kind) -> bool:
                (a,) = old.run([(call, case.hypotheses, case.references)])
                (b,) = now.run([(call, case.hypotheses, case.references)])
                return not same(a, b) and drift_kind(a, b) == kind

            example = shrink(cases[i], keep, budget=SHRINK_BUDGET)
            (got_example,) = old.run([(call, example.hypotheses, example.references)])
            (today,) = now.run([(call, example.hypotheses, example.references)])
            out.append(
                ReleaseDrift(
                    call=call,
                    releases=tuple(r.version for r, _ in run),
                    kind=kind,
                    differing=len(differ),
                    cases=len(cases),
                    example=example,
                    got=got_example,
                    today=today,
                )
            )
    return out
