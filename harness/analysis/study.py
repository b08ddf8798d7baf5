"""The analysis step of a report: the runner's rows and the run's session → a typed report.

:func:`analyse` computes everything a report holds — the signature, each profile's proof, the
corpus scores, the judged pairs, the folded overview, the segment table, the correlations,
the attributions, the default significance, the plain-words answer and the summary — and
returns a :class:`~harness.analysis.study_types.Report`. Statistics are counted by the one
:class:`~harness.session.Session` of the run, which also holds its corpora (each named
``fixture/system``: :func:`~harness.run.plan.named_corpora`); a session without corpora (a report from a
results table) gives no attributions, significance or answer, and says why. The facts the
renderers need from the layers below (display names, proofs, tolerances, which library
reproduces which profile) are in the report, so :mod:`harness.report` only renders.

A notebook gets the whole step in one call, :func:`study`:

>>> from harness.data.fixtures import load_fixture
>>> fx = load_fixture("silence_pitfall")
>>> report = study(fx.triples(), ("sacrebleu", "nltk"), options=ReportOptions(include=("pairs",)))
>>> pair = report.pairs[0]
>>> pair.a, pair.b, pair.verdict
('harness:sacrebleu', 'harness:nltk', 'disagree')
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from harness.analysis.attribution import attribute
from harness.analysis.difference import implementation_label
from harness.analysis.gap_matters import gap_matters, headline, unanswered
from harness.analysis.human_section import human_section, meta_evaluation_section
from harness.analysis.labels import (
    labels_in,
)
from harness.analysis.meta_eval import MetaEvaluation
from harness.analysis.report_options import DEFAULT_INCLUDE, Precomputed, ReportOptions
from harness.analysis.study_correlations import CORRELATION_METHODS, correlations_later
from harness.analysis.study_families import answer_later, overview
from harness.analysis.study_pairs import default_pairs, judged_pairs
from harness.analysis.study_significance import default_significance
from harness.analysis.study_summary import summary
from harness.analysis.study_types import (
    SCHEMA_FILE,
    SCHEMA_VERSION,
    SEGMENTS_CSV,
    SEGMENTS_PARQUET,
    CorpusAttribution,
    Correlations,
    FixtureScores,
    GapMatters,
    PairVerdict,
    PrecomputedSignificance,
    Report,
    SegmentsSection,
    Significance,
    VerificationRecord,
)
from harness.analysis.why import Why
from harness.bleu.profiles import verification
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.run import runner
from harness.run.plan import RunPlan
from harness.run.results import ResultRow, Results, as_results
from harness.run.runner import run
from harness.session import Session
from harness.typed_json import JsonValue, from_json, to_json

__all__ = [
    "CORRELATION_METHODS",
    "DEFAULT_ATTRIBUTION_PAIRS",
    "DEFAULT_INCLUDE",
    "SEGMENTS_CSV",
    "SEGMENTS_PARQUET",
    "SEGMENT_COLUMNS",
    "Meanwhile",
    "ReportOptions",
    "analyse",
    "signature",
    "study",
]

#: The tidy segment-level table written next to every report that has segment rows (one row
#: per implementation and segment), and its Parquet twin when pyarrow is importable.
SEGMENT_COLUMNS: tuple[str, ...] = (
    "fixture",
    "system",
    "segment_id",
    "implementation",
    "kind",
    "status",
    "score",
)

#: Profile pairs attributed by default (``a`` → ``b``), when both profiles have rows.
DEFAULT_ATTRIBUTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("sacrebleu", "nltk"),
    ("sacrebleu", "evaluate"),
    ("sacrebleu", "torchmetrics"),
    ("sacrebleu", "sacrebleu-sentence"),
    ("sacrebleu", "pycocoevalcap"),
)


def _session_corpora(session: Session) -> dict[tuple[str, str], Corpus]:
    """``{(fixture, system): corpus}`` of the session's corpora (named ``fixture/system``)."""
    out: dict[tuple[str, str], Corpus] = {}
    for name, corpus in session.corpora.items():
        fixture, sep, system = name.partition("/")
        if not sep:
            raise ConfigError(
                f"the session's corpus {name!r} must be named 'fixture/system' "
                "(harness.run.plan.named_corpora)"
            )
        out[(fixture, system)] = corpus
    return out


# ---------------------------------------------------------------------- sections
def signature(
    rows: Results | Sequence[ResultRow],
    versions: Mapping[str, str],
    seed: int,
    limit: int | None = None,
) -> str:
    """The report's signature: schema, seed, the segment limit if the corpora were cut
    (``compare``/``report --limit``), each implementation's signature, versions last."""
    sigs: dict[str, str] = {}
    for label, sig in as_results(rows).distinct("implementation", "signature"):
        if not sigs.get(str(label)):
            sigs[str(label)] = str(sig or "")
    parts = [f"report:{SCHEMA_VERSION}", f"seed:{seed}"]
    if limit is not None:
        parts.append(f"limit:{limit}")
    parts += [f"impl:{label}[{sig}]" for label, sig in sigs.items()]
    parts.append("version:" + ",".join(f"{k}={v}" for k, v in versions.items()))
    return "|".join(parts)


def _verification(rows: Results) -> dict[str, VerificationRecord]:
    """For every in-house implementation in the rows (``harness:<profile>``): whether that
    profile is proven against its real implementation. Adapters are the real libraries."""
    out: dict[str, VerificationRecord] = {}
    for label in rows.labels():
        if label.startswith("harness:"):
            proof = verification(label.split(":", 1)[1])
            status: Literal["verified", "unverified"] = (
                "verified" if proof.verified else "unverified"
            )
            out[label] = VerificationRecord(status, proof.oracle, proof.evidence)
    return out


def _fixtures(rows: Results) -> list[FixtureScores]:
    """Per ``(fixture, system)``: segment count, corpus scores and statuses by implementation."""
    labels = rows.labels()
    scores: dict[tuple[str, str], dict[str, float | None]] = {}
    status: dict[tuple[str, str], dict[str, str]] = {}
    for f, s in rows.distinct("fixture", "system"):
        scores[(str(f), str(s))] = {}
        status[(str(f), str(s))] = {}
    for r in rows.corpus_rows():
        key = (str(r.fixture), str(r.system))
        label = str(r.implementation)
        status[key][label] = str(r.status)
        value = r.score if r.status == "ok" else None
        scores[key][label] = to_json(value)
    segs: dict[tuple[str, str], set[str]] = {}
    for f, s, seg in rows.distinct("fixture", "system", "segment_id", level="segment"):
        if seg is not None:
            segs.setdefault((str(f), str(s)), set()).add(str(seg))
    # every implementation appears, in row order, even without a corpus row here
    return [
        FixtureScores(
            fixture=key[0],
            system=key[1],
            segments=len(segs[key]) if key in segs else None,
            scores={lb: scores[key].get(lb) for lb in labels if lb in status[key]},
            status={lb: status[key][lb] for lb in labels if lb in status[key]},
        )
        for key in scores
    ]


def _attribution(
    record: Mapping[str, Any], fixture: str, system: str, library_error: str | None = None
) -> CorpusAttribution:
    out = {**record, "error": None, "library_error": library_error}
    return from_json(
        CorpusAttribution, {**out, "fixture": fixture, "system": system}, "attributions"
    )


def _failed_attribution(
    first: str, second: str, corpus: Corpus, fixture: str, system: str, error: str
) -> CorpusAttribution:
    return CorpusAttribution(
        a=first,
        b=second,
        corpus=corpus.name,
        segment=None,
        score_a=None,
        score_b=None,
        gap=None,
        factors={},
        shares={},
        changes={},
        residual=None,
        library=None,
        library_score=None,
        signature_a="",
        signature_b="",
        substituted=(),
        error=error,
        library_error=None,
        fixture=fixture,
        system=system,
    )


def leading_attributions(gaps: GapMatters) -> list[tuple[str, str, str, str]]:
    """``(profile a, profile b, fixture, system)`` of each pair the summary leads with
    (``gaps.leading``) whose sides are two different profiles: on the system of the largest
    gap in the fixture its sentence gives (:func:`~harness.analysis.gap_matters.headline`),
    so that its waterfall shows the gap the summary gives."""
    out: list[tuple[str, str, str, str]] = []
    for k in gaps.leading:
        p = gaps.pairs[k]
        head = headline(p)
        if head is None or p.profile_a is None or p.profile_b is None:
            continue
        systems = [(abs(g.gap), g.system) for g in head.systems if g.gap is not None]
        if systems and p.profile_a != p.profile_b:
            _, system = max(systems)
            out.append((p.profile_a, p.profile_b, head.fixture, system))
    return list(dict.fromkeys(out))


def _attributions(
    rows: Results,
    corpora: Mapping[tuple[str, str], Corpus],
    pairs: Sequence[tuple[str, str]] | None,
    max_corpora: int,
    session: Session,
    progress: ProgressCallback | None = None,
    leading: Sequence[tuple[str, str, str, str]] = (),
) -> list[CorpusAttribution]:
    """Each profile pair (``pairs``, default :data:`DEFAULT_ATTRIBUTION_PAIRS` where both have
    rows) on the first ``max_corpora`` corpora, then each of ``leading``
    (:func:`leading_attributions`) not among them, with the library ``b`` as residual where its
    adapter scored that corpus; statistics from ``session`` (the pairs of one corpus share
    them)."""
    if not corpora:
        return []
    labels = labels_in(rows)
    if pairs is None:
        pairs = [
            (a, b)
            for a, b in DEFAULT_ATTRIBUTION_PAIRS
            if f"harness:{a}" in labels and f"harness:{b}" in labels
        ]
    units = [(str(f), str(s)) for f, s in rows.distinct("fixture", "system")]
    chosen = [u for u in units if u in corpora][:max_corpora]
    out: list[CorpusAttribution] = []
    # The library's corpus score is its row's: the library is not run a second time.
    scored = {
        (r.implementation, r.fixture, r.system): r.score
        for r in rows.corpus_rows()
        if r.status == "ok" and r.kind == "adapter"
    }
    todo = [(a, b, f, s) for f, s in chosen for a, b in pairs]
    todo += [x for x in leading if x not in todo and (x[2], x[3]) in corpora]
    for a, b, f, s in track(todo, progress, "report: attributions"):
        corpus = corpora[(f, s)]
        known = scored.get((b, f, s))
        library = b if known is not None else None
        try:
            try:
                found = attribute(
                    corpus, a, b, library=library, library_score=known, session=session
                )
                out.append(_attribution(to_json(found), f, s))
            except HarnessError as exc:
                if library is None:
                    raise
                found = attribute(corpus, a, b, session=session)
                out.append(_attribution(to_json(found), f, s, library_error=str(exc)))
        except HarnessError as exc:
            out.append(_failed_attribution(a, b, corpus, f, s, str(exc)))
    return out


def _segments(rows: Results) -> SegmentsSection:
    """The segment table's files, columns and size, and the table itself (in memory): one
    entry per segment-level row, columns :data:`SEGMENT_COLUMNS` (``score`` ``None`` unless
    the row is ok)."""
    at = np.flatnonzero(rows.column("level") == "segment")
    ok = rows.column("status")[at] == "ok"
    table: dict[str, list[Any]] = {}
    for c in SEGMENT_COLUMNS:
        column = rows.column(c)[at]
        if c == "score":
            finite = ok & np.isfinite(column)
            table[c] = [
                v if keep else None for v, keep in zip(column.tolist(), finite, strict=True)
            ]
        else:
            table[c] = [v if v is None else str(v) for v in column.tolist()]
    count = len(at)
    return SegmentsSection(
        file=SEGMENTS_PARQUET if count else None,
        csv=None,  # the writer names it when it writes one (write_report's "csv" format)
        columns=SEGMENT_COLUMNS,
        n_rows=count,
        implementations=tuple(dict.fromkeys(table["implementation"])),
        table=table,
    )


# ---------------------------------------------------------------------- the report
#: What :func:`analyse` tells its caller once the judged pairs, their gaps and the segment
#: table exist (the parts of the report its figures are drawn from), before it waits for its
#: workers.
Meanwhile = Callable[[Sequence[PairVerdict], GapMatters, SegmentsSection], None]


def analyse(
    rows: Results | Iterable[ResultRow],
    session: Session,
    *,
    options: ReportOptions | None = None,
    human: Precomputed | None = None,
    significance: Precomputed | None = None,
    meta_evaluation: MetaEvaluation | None = None,
    progress: ProgressCallback | None = None,
    meanwhile: Meanwhile | None = None,
) -> Report:
    """The report of the runner's ``rows`` (:class:`~harness.analysis.study_types.Report`),
    computed as ``options`` (:class:`~harness.analysis.report_options.ReportOptions`; ``None``:
    its defaults) ask.

    ``session`` is the run's :class:`~harness.session.Session`: it counts and caches every
    statistic, and its corpora (named ``fixture/system``, :func:`~harness.run.plan.named_corpora`; none for a
    report from a results table) add segment texts to the pairs and enable attributions
    (``options.attribution_pairs`` of profile names, default :data:`DEFAULT_ATTRIBUTION_PAIRS` where
    both have rows, on at most ``options.max_attribution_corpora`` corpora, then each pair the
    summary leads with on the system of its gap, :func:`leading_attributions`; the library
    ``b`` gives the residual when its adapter has an ok row there), significance and the
    answer. ``options.pairs``
    are ``(a, b)`` implementation names (row labels or ``profile:``/``adapter:`` specs;
    default :func:`~harness.analysis.study_pairs.default_pairs`); each pair is judged at
    :func:`~harness.analysis.labels.pair_tolerance` (the less precise side's proven
    tolerance, at least ``options.tolerance``); ``options.top`` goes to
    :func:`~harness.analysis.difference.difference`. ``options.include`` chooses the computed
    sections (left-out ones are empty: ``[]``, ``None`` or a ``correlations`` note).
    ``options.seed`` and ``options.n_boot`` are the correlations' bootstrap (0 resamples: no
    intervals). ``human`` and ``significance`` are precomputed results (result objects
    :func:`~harness.typed_json.to_json` writes, or JSON values),
    stored as given; without ``significance`` (and with corpora) a paired bootstrap of every
    system against the best (or of ``options.significance_pair`` = ``(baseline system,
    system)``) is computed (:func:`~harness.analysis.study_significance.default_significance`),
    else the section says why not and how to get one. With ``pairs`` included and corpora,
    every judged pair says whether its gap matters
    (:func:`~harness.analysis.gap_matters.gap_matters`: ``options.gap_resamples``
    paired-bootstrap resamples per fixture drawn with the seed, intervals at
    ``options.gap_confidence``, ranking flips, MT-Thresholds, and with ``meta_evaluation`` —
    :func:`~harness.analysis.meta_eval.meta_evaluate` of ``human`` — whether the pair's
    profiles differ in the WMT meta-evaluation, which the report also stores); else that
    section says why not. When the corpora are one fixture's systems
    sharing their references, ``answer`` is
    :func:`~harness.analysis.study_families.answer_section` (families of equal numbers, gaps
    to the ``options.baseline`` profile split into factors, ranking changes; on a large run
    with workers and statistics on disk, computed in a worker meanwhile:
    :func:`~harness.analysis.study_families.answer_later`).
    ``options.limit`` says that every corpus was cut to its first ``limit`` segments
    (``--limit``); it goes into the signature. ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each finished pair, correlation
    level and attributed corpus. ``meanwhile`` (:data:`Meanwhile`) is given the judged pairs,
    their gaps and the segment table as soon as they exist, before the report waits for its
    workers (what it starts then runs beside them).

    Raises:
        ConfigError: an unknown section in ``include``, an unknown implementation in
            ``pairs``, a session corpus not named ``fixture/system``.
    """
    options = options or ReportOptions()
    include, seed, pairs = options.include, options.seed, options.pairs
    unknown = sorted(set(include) - set(DEFAULT_INCLUDE))
    if unknown:
        raise ConfigError(f"unknown report section(s) {', '.join(unknown)}", valid=DEFAULT_INCLUDE)
    rows = as_results(rows)
    corpora = _session_corpora(session)
    versions = runner.versions()
    units = _fixtures(rows)

    with contextlib.ExitStack() as stack:
        # started first: on a large run with workers, one worker computes the answer and
        # another the correlations meanwhile
        answered = answer_later(stack, rows, corpora, session, options.baseline, seed)
        correlations = (
            correlations_later(stack, session, rows, seed, options.n_boot, progress)
            if "correlations" in include
            else lambda: Correlations(None, None, (Why("left-out"),))
        )
        judged: list[PairVerdict] = []
        if "pairs" in include and rows:
            chosen = (
                default_pairs(rows)
                if pairs is None
                else [(implementation_label(a), implementation_label(b)) for a, b in pairs]
            )
            judged = judged_pairs(rows, chosen, corpora, options.tolerance, options.top, progress)
        gaps = (
            gap_matters(
                judged,
                corpora,
                session,
                seed=seed,
                resamples=options.gap_resamples,
                confidence=options.gap_confidence,
                meta=meta_evaluation,
                progress=progress,
            )
            if "pairs" in include
            else unanswered(
                Why("not-included", ("pairs",)),
                seed=seed,
                resamples=options.gap_resamples,
                confidence=options.gap_confidence,
            )
        )
        segments = _segments(rows)
        if meanwhile is not None:
            meanwhile(judged, gaps, segments)
        correlated = correlations()
        attributions = (
            _attributions(
                rows,
                corpora,
                options.attribution_pairs,
                options.max_attribution_corpora,
                session,
                progress,
                leading_attributions(gaps),
            )
            if "attributions" in include
            else []
        )
        sig: Significance | PrecomputedSignificance | None = None
        if "significance" in include:
            if significance is not None:
                sig = PrecomputedSignificance(JsonValue(to_json(significance)))
            else:
                sig = default_significance(
                    rows, corpora, seed, session, pair=options.significance_pair
                )
        answer, note = answered()
    return Report(
        schema=SCHEMA_FILE,
        schema_version=SCHEMA_VERSION,
        summary=summary(rows, units, judged, attributions, note, seed),
        answer=answer,
        signature=signature(rows, versions, seed, options.limit),
        versions=versions,
        verification=_verification(rows),
        fixtures=tuple(units),
        pairs=tuple(judged),
        gap_matters=gaps,
        overview=overview(units, judged),
        segments=segments,
        correlations=correlated,
        attributions=tuple(attributions),
        human=human_section(to_json(human)) if "human" in include and human is not None else None,
        meta_evaluation=(
            meta_evaluation_section(to_json(meta_evaluation))
            if meta_evaluation is not None
            else None
        ),
        significance=sig,
    )


def study(
    corpora: Iterable[tuple[str, str, Corpus]],
    implementations: Sequence[str | runner.Implementation],
    *,
    levels: Sequence[str] = ("corpus", "segment"),
    session: Session | None = None,
    options: ReportOptions | None = None,
) -> Report:
    """The report of ``implementations`` on ``corpora`` in one call, for a notebook: the rows
    of its :class:`~harness.run.plan.RunPlan` analysed by :func:`analyse` on the plan's
    session.

    ``corpora`` are ``(fixture, system, corpus)`` triples; ``implementations`` are specs as
    ``compare --impl`` takes them (``sacrebleu``, ``profile:nltk``, ``adapter:evaluate``) or
    :class:`~harness.run.runner.Implementation` values. ``session`` (default: a new one
    with an in-memory cache) gives the statistics cache and the execution settings; its
    corpora are replaced by ``corpora``. ``options`` go to :func:`analyse`; their seed is the
    run's too.
    """
    options = options or ReportOptions()
    plan = RunPlan.of(
        corpora,
        implementations,
        levels=tuple(levels),
        session=session or Session(),
        seed=options.seed,
    )
    return analyse(run(plan), plan.corpus_session(), options=options)
