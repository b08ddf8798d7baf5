"""The report as typed data: frozen dataclasses, the one owner of ``report.json``'s shape.

:func:`harness.analysis.study.analyse` returns a :class:`Report`; :mod:`harness.report`
renders it (reading attributes, never string keys) and writes it. ``report.json`` is
:func:`~harness.typed_json.to_json` of a :class:`Report`, and its JSON Schema —
written next to it as :data:`SCHEMA_FILE` — is
:func:`~harness.typed_json.json_schema` of :class:`Report`: the field names, types
and class docstrings below are the documentation of every key. All scores and gaps are BLEU
points on 0–100; every number is finite or ``null``.

Schema 12 (this version) against 11: a real library spot-checked on a sample of a system's
segments is compared at corpus level on those segments as a corpus of their own: the pairs'
``corpora`` entries gain ``sample`` (both scores are of the sampled segments),
``summary.libraries`` gains ``corpus_sample`` and each of its ``disagreements`` ``sample``,
and each library of an answer's family ``sampled`` (the systems compared that way).
Schema 11 against 10: ``summary.libraries`` says what the real libraries ran on
(``corpora_run``, ``corpora``, ``seed``) and where one left its profile (``disagreements``).
Schema 10 against 9: every note that said in a sentence why something is
missing holds the fact instead, a :class:`~harness.analysis.why.Why` (``kind``, ``names``,
``numbers``, ``detail``: the error's text) the renderers put in words: ``gap_matters.note``
(``null`` or one), each fixture's ``ci_note`` (``null`` when it has an interval, else the
reasons), ``correlations.note`` and ``significance.note`` (a list, empty when nothing is
missing), ``summary.answer_note`` and each family's ``attribution_note`` (``null`` or one);
``significance.how`` (a constant sentence) is gone: the renderers write it.
Schema 9 against 8: ``gap_matters`` holds facts only: a pair's ``reason`` is
a word (:data:`MattersReason`; ``equal-at-corpus`` for a pair whose corpus gap is within its
tolerance on every system while its segment scores differ: ``segments_differ`` says on what
share of them, ``factors_differ`` which factors of the two profiles differ), each side's
profile ``label_a``/``label_b`` (the setting its name does not say), and the section's one
count (``tally``) and the pairs the summary names (``leading``); the pair's and each
fixture's ``sentence`` are written by the renderers, and its ``meta_evaluation_note`` is
``meta_evaluation``, the numbers and tests it was written from; a pair equal at corpus level
names the factors that alone move its segment scores (``segment_factors``); the ``answer``
keeps its ``causes``; ``segments.file`` is the Parquet table and ``segments.csv`` the CSV
written on request (it was ``segments.parquet`` beside a CSV ``file``). Schema 8 against 7: the ``answer`` holds facts only: its ``findings`` in words
and each family's line as text (``rows``) are written by the renderers from the families.
Schema 7 against 6: ``human`` and ``meta_evaluation`` are typed sections
(:mod:`harness.analysis.human_section`): every correlation with human judgments the report
shows (``human.correlations``) and each implementation's meta-evaluation numbers
(``meta_evaluation.rows``, with the ``systems`` rated), the precomputed results as given under
``results`` in both. Schema 6 against 5: each correlation table says how many of its cells have a
percentile-bootstrap and how many an asymptotic interval (``intervals``; Kendall's τ-b above
:data:`~harness.statistics.correlation.KENDALL_FULL_BOOT_MAX` pairs is asymptotic), and its
``n_boot`` is the most resamples a cell of that method used (it was the resamples asked for,
which τ-b at large sizes did not use); the correlations with human judgments give each
method's ``{method}_interval``. Schema 5 against 4: the ``answer`` records the ``seed`` of its paired
bootstrap, each of its families the p-value of every system pair it orders the other way
(``flip_p``), and each family row how many of those reversals are significant
(``significant_flips``). Schema 4 against 3: ``report.json`` names its schema (``$schema``, the file
:data:`SCHEMA_FILE` next to it) and ``schema_version`` first; a new ``overview`` key holds
the folded view the HTML page shows (groups of implementations with equal numbers, the gap
matrix between them, the pairs worth a detail); a new ``gap_matters`` key says for every
judged pair whether its gap matters (the gap per fixture with a paired-bootstrap interval,
the system pairs it orders the other way, MT-Thresholds' human agreement for a system gap
of its size, and whether the two differ in the WMT meta-evaluation); a new
``meta_evaluation`` key holds the WMT meta-evaluation of the human judgments' implementations
(``null`` without them); every attribution has ``library_error``
(``null`` unless the library's residual could not be computed); every significance test has
every key (``null`` where the test is undefined); precomputed significance results are stored
under ``{"precomputed": ...}``. Schema 3 against 2: the ``answer`` key and the tests against
the best system. Schema 2 against 1: ``summary`` and the segment table beside the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.analysis.difference import GapDistribution, Side
from harness.analysis.gap_types import (
    FixtureGap,
    GapMatters,
    MattersReason,
    MattersTally,
    MetaDifference,
    MetaNumber,
    MetaStatus,
    MetaTest,
    PairMatters,
    RankFlip,
    SystemGap,
)
from harness.analysis.human_section import HumanSection, MetaEvaluationSection
from harness.analysis.why import Why
from harness.typed_json import JsonValue, json_fields

__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "SEGMENTS_CSV",
    "SEGMENTS_PARQUET",
    "TOP_KEYS",
    "AnswerCause",
    "AnswerFamily",
    "AnswerLibrary",
    "AnswerSection",
    "CorpusAttribution",
    "CorrelationTable",
    "Correlations",
    "ExplainedBy",
    "FixtureGap",
    "FixtureScores",
    "GapDistribution",
    "GapMatters",
    "Group",
    "LargestAttribution",
    "LargestGap",
    "LevelCorrelations",
    "Libraries",
    "MattersReason",
    "MattersTally",
    "MetaDifference",
    "MetaNumber",
    "MetaStatus",
    "MetaTest",
    "Overview",
    "PairCorpus",
    "PairMatters",
    "PairSegment",
    "PairVerdict",
    "PrecomputedSignificance",
    "Problem",
    "RankFlip",
    "Report",
    "SegmentsSection",
    "Side",
    "Significance",
    "SignificanceTest",
    "Summary",
    "SystemGap",
    "VerificationRecord",
]

#: The segment table's files beside a report: the Parquet table every report with segment
#: rows has, and the CSV written on request.
SEGMENTS_PARQUET = "segments.parquet"
SEGMENTS_CSV = "segments.csv"

#: The version of ``report.json``'s shape: bumped whenever a key is added, removed or changes
#: meaning (the module docstring says what changed).
SCHEMA_VERSION: Literal["12"] = "12"

#: The JSON Schema of :class:`Report`, written next to ``report.json`` (its ``$schema``).
SCHEMA_FILE: Literal["report.schema.json"] = "report.schema.json"

Verdict = Literal["agree", "disagree", "n/a"]


# ---------------------------------------------------------------------- summary
@dataclass(frozen=True)
class ExplainedBy:
    """The factor with the largest share in the attribution of the largest gap's pair: on that
    corpus, else on the first corpus attributed (attributions run on the first corpora only);
    ``attribution_gap`` and ``residual`` are that attribution's, ``fixture``/``system`` where
    it ran."""

    factor: str
    points: float
    attribution_gap: float
    residual: float | None
    fixture: str
    system: str


@dataclass(frozen=True)
class LargestGap:
    """The pair corpus gap of largest magnitude between two BLEU-4 implementations (HELM's
    BLEU-1 and 4-gram-only profiles are far from every BLEU-4 by design); ``gap = score_b −
    score_a``."""

    a: str
    b: str
    fixture: str
    system: str
    gap: float
    score_a: float | None
    score_b: float | None
    explained_by: ExplainedBy | None


@dataclass(frozen=True)
class LargestAttribution:
    """The attribution with the largest gap, and its factor with the largest share."""

    a: str
    b: str
    fixture: str
    system: str
    gap: float
    factor: str
    points: float


@dataclass(frozen=True)
class Problem:
    """One implementation and non-ok corpus-level status: on how many corpora, and the first
    error (shortened)."""

    implementation: str
    status: str
    corpora: int
    reason: str


@dataclass(frozen=True)
class LibraryDisagreement:
    """A real library whose numbers are not its in-house profile's where it ran (beyond the
    pair's ``tolerance``, BLEU points): the corpora compared and those whose gap is beyond it
    with the largest ``|gap|``, and the segments compared and those beyond it with the largest
    ``|Δ|`` (``None`` where nothing was compared at that level). ``sample``: the corpora
    compared are the segments the library was spot-checked on, each as a corpus of its own
    (rows of level ``sample``), not whole systems."""

    library: str
    profile: str
    tolerance: float
    corpora: int
    corpora_beyond: int
    corpus_max_abs: float | None
    segments: int
    segments_beyond: int
    segment_max_abs: float | None
    sample: bool = False


@dataclass(frozen=True)
class Libraries:
    """Each real library against its own in-house profile: the names that give ``equal``
    numbers, those that ``differ`` (each with where, in ``disagreements``), and
    ``[name, reason]`` of those that did not run. What they ran on: ``corpora_run``
    (``fixture/system``) of the ``corpora`` at corpus level, and ``segments_run`` of the
    ``segments`` of those corpora at segment level (the most any one library was run on;
    both 0 when no library ran at segment level); fewer than all when they ran on a seeded
    sample (``seed``). ``corpus_sample``: their corpus-level calls were on those sampled
    segments as a corpus of their own (rows of level ``sample``), not on whole systems."""

    equal: tuple[str, ...]
    differ: tuple[str, ...]
    not_run: tuple[tuple[str, tuple[Why, ...]], ...]
    segments_run: int = 0
    segments: int = 0
    corpora_run: tuple[str, ...] = ()
    corpora: int = 0
    seed: int | None = None
    disagreements: tuple[LibraryDisagreement, ...] = ()
    corpus_sample: bool = False

    @property
    def sampled(self) -> bool:
        """Whether the libraries were run on a sample of the systems or the segments only."""
        return (
            self.corpus_sample
            or self.segments_run < self.segments
            or 0 < len(self.corpora_run) < self.corpora
        )


@dataclass(frozen=True)
class Summary:
    """What a reader needs first: the corpora (``fixture/system``), the segment count, the
    implementations (labels, first-seen order), the largest gap and the largest attribution,
    the pairs that agree, disagree or are not comparable (``[a, b, reason]``), the
    implementations without scores, the libraries against their profiles, and why there is no
    ``answer`` (``answer_note``, ``null`` when there is one)."""

    corpora: tuple[str, ...]
    n_segments: int
    implementations: tuple[str, ...]
    largest_gap: LargestGap | None
    largest_attribution: LargestAttribution | None
    agree: tuple[tuple[str, str], ...]
    disagree: tuple[tuple[str, str], ...]
    not_comparable: tuple[tuple[str, str, tuple[Why, ...]], ...]
    problems: tuple[Problem, ...]
    libraries: Libraries
    answer_note: Why | None


# ---------------------------------------------------------------------- answer
@dataclass(frozen=True)
class AnswerLibrary:
    """A real library on the systems (:class:`harness.analysis.answer.LibraryCheck`): its
    scores, whether they equal its profile's (``null``: it gave no number) and why not, and
    the systems where it was compared on the segments of its spot check (``sampled``)."""

    name: str
    version: str | None
    scores: tuple[float | None, ...]
    equal_to_profile: bool | None
    note: str
    sampled: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnswerFamily:
    """Profiles that print the same number on every system
    (:class:`harness.analysis.answer.Family`): their scores and mean, the mean gap to the
    baseline, its exact Shapley split over the factors with the changed values (``[baseline
    value, this family's value]``), the system pairs it ranks the other way with the p-value
    of each under the family's paired bootstrap, the real libraries checked against it."""

    profiles: tuple[str, ...]
    names: tuple[str, ...]
    scores: tuple[float | None, ...]
    mean: float | None
    status: str
    gap: float | None
    factors: Mapping[str, float]
    changes: Mapping[str, Mapping[str, tuple[JsonValue, JsonValue]]]
    flips: tuple[tuple[str, str], ...]
    flip_p: tuple[float, ...]
    libraries: tuple[AnswerLibrary, ...]
    bleu4: bool
    unverified: tuple[str, ...]
    attribution_note: Why | None


@dataclass(frozen=True)
class AnswerCause:
    """One cause of the families' gaps (:class:`harness.analysis.answer.Cause`): the factor,
    each way it is changed (field → ``[baseline value, other value]``), the families (their
    profiles) whose gap it is part of with its Shapley share of each, and whether its values
    were grouped because they give the same n-gram counts on every system."""

    factor: str
    variants: tuple[Mapping[str, tuple[JsonValue, JsonValue]], ...]
    families: tuple[tuple[str, ...], ...]
    shares: tuple[float, ...]
    same_counts: bool


@dataclass(frozen=True)
class AnswerSection:
    """The answer ``bleu-harness compare`` prints first (:class:`harness.analysis.answer.
    Answer`), for one fixture's systems scored against the same references: the systems, the
    segment count, the fewest and most references of a segment, the baseline profile, the
    seed of the flips' paired bootstrap, the families, the causes of their gaps (grouped by
    the counts they give, as ``compare`` groups them) and the fixture (the report writes the
    findings in words from these: :mod:`harness.report.answer_words`)."""

    systems: tuple[str, ...]
    segments: int
    references: tuple[int, int]
    baseline: str
    seed: int
    families: tuple[AnswerFamily, ...]
    causes: tuple[AnswerCause, ...]
    fixture: str


# ---------------------------------------------------------------------- per corpus
@dataclass(frozen=True)
class VerificationRecord:
    """Whether an in-house profile is run against its real implementation by a differential
    test (:data:`harness.bleu.profiles.VERIFICATION`): against what (``oracle``) and the
    tests, or why not (``evidence``)."""

    status: Literal["verified", "unverified"]
    oracle: str
    evidence: str


@dataclass(frozen=True)
class FixtureScores:
    """One ``(fixture, system)`` of the rows: its segment count (``null`` without segment
    rows), each implementation's corpus-level score (``null`` unless its status is ``ok``)
    and status (``ok``, ``raises``, ``unsupported``, ``unavailable``, ``error``)."""

    fixture: str
    system: str
    segments: int | None
    scores: Mapping[str, float | None]
    status: Mapping[str, str]


# ---------------------------------------------------------------------- pairs
@dataclass(frozen=True)
class PairCorpus:
    """Both sides of a pair on one ``(fixture, system)``; ``gap = b − a`` (``null`` unless
    both scored). ``sample``: both are corpus scores of the segments a library was
    spot-checked on, not of the whole system."""

    fixture: str
    system: str
    gap: float | None
    a: Side
    b: Side
    sample: bool = False


@dataclass(frozen=True)
class PairSegment:
    """One of a pair's most disagreeing segments: ``delta = b − a``, both sides'
    statistics, and its texts when the corpora were given."""

    fixture: str
    system: str
    segment_id: str
    delta: float | None
    a: Side
    b: Side
    hypothesis: str | None
    references: tuple[str, ...] | None


@dataclass(frozen=True)
class PairVerdict:
    """Two implementations compared (:class:`harness.analysis.difference.Difference`, gap =
    ``b − a``) and judged at the tolerance of the less precise side: ``agree`` over the
    corpora and segments both sides scored (``null`` when nothing is comparable), the
    ``verdict`` (a side without scores is ``n/a``, never a disagreement) and why corpora were
    not compared; ``fixture``/``system`` ``null`` = all."""

    a: str
    b: str
    fixture: str | None
    system: str | None
    tolerance: float
    agree: bool | None
    corpus_gap: float | None
    corpus_max_abs: float | None
    corpora: tuple[PairCorpus, ...]
    segments: GapDistribution
    top: tuple[PairSegment, ...]
    verdict: Verdict
    na_reason: tuple[Why, ...] | None
    compared: int
    not_compared: int


# ---------------------------------------------------------------------- overview
@dataclass(frozen=True)
class Group:
    """Implementations (row labels) that print the same corpus score on every corpus, within
    the pair's proven tolerance; ``names`` is what a reader calls each member (a library
    equal to its profile folded into it, marked ``(lib =)``), ``mean`` the first member's
    mean score, ``bleu4`` whether every member is BLEU-4."""

    labels: tuple[str, ...]
    names: tuple[str, ...]
    mean: float | None
    bleu4: bool


@dataclass(frozen=True)
class Overview:
    """The folded view: the :class:`Group` s in reading order (BLEU-4 by mean score, highest
    first, then other n-gram weights, then those without scores), ``gaps[i][j]`` = the mean
    over the corpora both scored of score(group j) − score(group i), and ``details``: the
    indices of the pairs worth a detail (a library that differs from its own profile or has
    no scores, then the largest gaps between BLEU-4 groups)."""

    groups: tuple[Group, ...]
    gaps: tuple[tuple[float | None, ...], ...]
    details: tuple[int, ...]


# ---------------------------------------------------------------------- segments
@dataclass(frozen=True)
class SegmentsSection:
    """The segment-level table, written next to the report (not inside ``report.json``): the
    Parquet ``file`` (``null`` without segment rows; what pandas and polars read), its ``csv``
    twin when one was asked for (``null`` otherwise; floats written with ``repr``, so they read
    back exactly), the ``columns``, ``n_rows`` and the implementations in it. The table itself
    (column → values) is kept in memory only."""

    file: str | None
    csv: str | None
    columns: tuple[str, ...]
    n_rows: int
    implementations: tuple[str, ...]
    table: Mapping[str, list[Any]] = field(
        default_factory=dict, metadata={"json": False}, compare=False, repr=False
    )


# ---------------------------------------------------------------------- correlations
@dataclass(frozen=True)
class CorrelationTable:
    """Every pairwise correlation of the implementations' score vectors under one method
    (:class:`harness.statistics.correlation_cells.CorrelationMatrix`): coefficient, pairs used and
    interval per pair of names; ``n_boot`` the most resamples a cell's interval used,
    ``intervals`` how many cells have a percentile-bootstrap (``bootstrap``) and how many an
    asymptotic (``asymptotic``: Kendall's τ-b above
    :data:`~harness.statistics.correlation.KENDALL_FULL_BOOT_MAX` pairs) interval."""

    method: str
    names: tuple[str, ...]
    values: Mapping[str, Mapping[str, float | None]]
    n: Mapping[str, Mapping[str, int]]
    ci_low: Mapping[str, Mapping[str, float | None]]
    ci_high: Mapping[str, Mapping[str, float | None]]
    seed: int | None
    n_boot: int
    intervals: Mapping[str, int]
    ci: float | None


@dataclass(frozen=True)
class LevelCorrelations:
    """One level's correlations: aligned keys, rows skipped, and one table per method."""

    n_keys: int
    n_skipped: int
    matrices: Mapping[str, CorrelationTable]


@dataclass(frozen=True)
class Correlations:
    """Correlations between implementations, per level (``null`` when fewer than two
    implementations have two or more scores there); ``note`` says why a level is missing, or
    that the section was not included (empty when nothing is missing)."""

    segment: LevelCorrelations | None
    corpus: LevelCorrelations | None
    note: tuple[Why, ...]


# ---------------------------------------------------------------------- attributions
@dataclass(frozen=True)
class CorpusAttribution:
    """One profile pair on one corpus of the report: the gap ``score_b − score_a`` split into
    exact Shapley values over the factors (:class:`harness.analysis.attribution.
    Attribution`; they sum to the gap), each factor's share and changed values, and the
    residual of the real library ``b`` (library − ``score_b``) where its adapter scored the
    corpus. ``error`` says why the attribution is undefined (its scores are then ``null`` and
    ``factors`` empty); ``library_error`` why the library's residual is missing."""

    a: str
    b: str
    corpus: str
    segment: str | None
    score_a: float | None
    score_b: float | None
    gap: float | None
    factors: Mapping[str, float]
    shares: Mapping[str, float | None]
    changes: Mapping[str, Mapping[str, tuple[JsonValue, JsonValue]]]
    residual: float | None
    library: str | None
    library_score: float | None
    signature_a: str
    signature_b: str
    substituted: tuple[str, ...]
    error: str | None
    library_error: str | None
    fixture: str
    system: str


# ---------------------------------------------------------------------- significance
@dataclass(frozen=True)
class SignificanceTest:
    """One paired test of ``system`` against ``baseline`` (the best system of the fixture
    under ``profile``, or the chosen one) — the fields of
    :class:`harness.analysis.significance.SignificanceResult` — or, when the test is
    undefined, ``error`` and ``null`` everywhere else."""

    fixture: str
    baseline: str | None
    system: str | None
    profile: str
    error: str | None
    method: str | None
    score_baseline: float | None
    score_system: float | None
    delta: float | None
    p_value: float | None
    mean_baseline: float | None
    mean_system: float | None
    ci_baseline: tuple[float | None, float | None] | None
    ci_system: tuple[float | None, float | None] | None
    ci_halfwidth_baseline: float | None
    ci_halfwidth_system: float | None
    ci_level: float | None
    resamples: int | None
    ci_resamples: int | None
    seed: int | None
    ties: str | None
    n_segments: int | None
    signature: str | None


@dataclass(frozen=True)
class Significance:
    """The paired bootstrap (Koehn 2004) the report computes: every system against the best
    of its fixture (``design`` ``against-best``) or a chosen pair (``pair``), under every
    in-house profile while the tests stay few, else the baseline profile; ``note`` says why
    nothing or not everything was tested (empty when everything was)."""

    method: Literal["paired-bootstrap"]
    resamples: int
    seed: int
    design: Literal["against-best", "pair"]
    results: tuple[SignificanceTest, ...]
    note: tuple[Why, ...]


@dataclass(frozen=True)
class PrecomputedSignificance:
    """Significance results the caller computed and passed in, stored as given (JSON)."""

    precomputed: JsonValue


# ---------------------------------------------------------------------- the report
@dataclass(frozen=True)
class Report:
    """A comparison of BLEU implementations (the JSON Schema's root): the summary first, the
    answer, the signature and versions, each profile's proof, the corpus scores, the judged
    pairs, whether each pair's gap matters, the folded overview, the segment table's file, the correlations, the attributions,
    human judgments and their WMT meta-evaluation (precomputed, stored as given) and
    significance (``null`` when not included)."""

    schema: Literal["report.schema.json"] = field(metadata={"json_name": "$schema"})
    schema_version: Literal["12"]
    summary: Summary
    answer: AnswerSection | None
    signature: str
    versions: Mapping[str, str]
    verification: Mapping[str, VerificationRecord]
    fixtures: tuple[FixtureScores, ...]
    pairs: tuple[PairVerdict, ...]
    gap_matters: GapMatters
    overview: Overview
    segments: SegmentsSection
    correlations: Correlations
    attributions: tuple[CorpusAttribution, ...]
    human: HumanSection | None
    meta_evaluation: MetaEvaluationSection | None
    significance: Significance | PrecomputedSignificance | None


#: The top-level keys of ``report.json``, in order.
TOP_KEYS: tuple[str, ...] = tuple(key for _, key, _ in json_fields(Report))
