"""Does the gap matter? For every judged pair of implementations, three answers as facts.

Two implementations that print different BLEU for the same output differ by a *gap*
(``b − a``, BLEU points). Whether that gap matters is asked three ways, per fixture whose
corpora the run's :class:`~harness.session.Session` holds:

1. **How sure is the gap?** Each system's gap and their mean over the fixture's systems, with
   a seeded paired-bootstrap percentile interval: the fixture's segments are resampled once
   (``rng.choice(S, size=(R, S))`` from ``numpy.random.default_rng(seed)``, sacrebleu's
   draw; one index matrix for all the systems when they share their references, i.e.
   translate the same segments, else one per system from the same generator), and *both*
   implementations are scored on the same resamples from the session's cached statistics
   (:mod:`harness.analysis.resampling`: a resample's corpus sums are one matrix product). The
   interval is sacrebleu's percentile interval of the resampled gaps
   (:func:`~harness.analysis.resampling.percentile_interval`; Koehn 2004 for the bootstrap).
   A real library has no engine configuration of its own: it is resampled under the profile
   the report shows equal to it (its pair with ``harness:<profile>`` agrees), else its gap
   has no interval and ``ci_note`` says why.
2. **Does it reorder systems?** The pairs of the fixture's systems that ``a`` and ``b`` order
   differently (a *flip*: strictly above by one, strictly below by the other; an equal pair is
   a tie, never a flip), out of every pair of systems both scored, with both scores of each.
   The answer's "the system ranking changes" line counts flips with the same
   :func:`harness.analysis.answer.rank_flips`.
3. **Would humans notice a difference this large?** MT-Thresholds (Kocmi, Zouhar, Federmann
   and Post, "Navigating the Metrics Maze: Reconciling Score Magnitudes and Accuracies",
   ACL 2024; the ``mt-thresholds`` package) maps a BLEU difference between two systems to the
   share of system pairs in which human judgments agree with it (its accuracy, in percent).
   The mean gap's size is looked up there: a gap of that size between two *systems* would be
   confirmed by humans that often.

A pair whose corpus gap is within its tolerance on every system it compared, while its
segment scores differ, is **equal at corpus level** (``equal-at-corpus``): its gap is no
difference between systems, so it is never looked up in MT-Thresholds; the share of segments
that differ and the factors of its two profiles that differ say where it differs. Otherwise a
pair's gap **matters** (``yes``) when it reorders a pair of systems on some fixture, or when
it is as large as a system difference humans confirm more often than not (MT-Thresholds
accuracy ≥ :data:`HUMAN_MAJORITY` percent); it does **not** (``no``) when it does neither, or
when the pair agrees within its tolerance; ``n/a`` when nothing is comparable. The section's
one count (:class:`~harness.analysis.study_types.MattersTally`) counts each pair of
implementations once (a real library the report shows equal to its profile is that profile),
and ``leading`` names the pairs with a corpus gap the summary gives first. These are facts;
the sentences are written by :mod:`harness.report.gap_words`.

4. **Would the WMT Metrics task tell them apart?** With a meta-evaluation of the human
   judgments (:func:`harness.analysis.meta_eval.meta_evaluate`: pairwise accuracy, acc23, soft
   pairwise accuracy, each against e.g. WMT21 MQM), each pair records both profiles'
   numbers and the permutation tests between them
   (:class:`~harness.analysis.study_types.MetaDifference`); without one its status says why
   not (``not-computed``). This answer is the pair's, not a fixture's:
   the human judgments are their own data set.
"""

from __future__ import annotations

import importlib.metadata
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from harness.analysis.answer import rank_flips
from harness.analysis.attribution import differing_factors, hybrid
from harness.analysis.labels import bleu4_label, library_pair, profile_of
from harness.analysis.meta_eval import MetaEvaluation
from harness.analysis.resampling import (
    prepare,
    resampled_scores,
)
from harness.analysis.study_types import (
    FixtureGap,
    GapMatters,
    MattersReason,
    MattersTally,
    MetaDifference,
    MetaNumber,
    MetaStatus,
    MetaTest,
    PairMatters,
    PairVerdict,
    SystemGap,
)
from harness.analysis.why import Why
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import LABELS, PROFILES
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.session import Session
from harness.statistics.blas import single_blas_thread
from harness.statistics.resampling import (
    counts_from_indices,
    exact_product_dtype,
    percentile_interval,
    resample_indices,
)

__all__ = [
    "GAP_RESAMPLES",
    "HUMAN_MAJORITY",
    "LEADING_GAPS",
    "META_STATISTICS",
    "THRESHOLDS_CITATION",
    "THRESHOLDS_METRIC",
    "THRESHOLDS_PACKAGE",
    "gap_matters",
    "headline",
    "human_agreement",
    "thresholds_version",
    "unanswered",
]

#: Paired-bootstrap resamples of each fixture (sacrebleu's default).
GAP_RESAMPLES = 1000

#: The package that maps a metric difference to human agreement, and its metric name.
THRESHOLDS_PACKAGE = "mt-thresholds"
THRESHOLDS_METRIC = "bleu"
THRESHOLDS_CITATION = (
    "Kocmi, Zouhar, Federmann and Post, “Navigating the Metrics Maze: Reconciling Score "
    "Magnitudes and Accuracies”, ACL 2024"
)

#: A gap matters when a system difference of its size agrees with humans at least this often
#: (percent): more often than not.
HUMAN_MAJORITY = 50.0

Matters = Literal["yes", "no", "n/a"]

#: The summary names at most this many pairs with a corpus gap (``GapMatters.leading``); the
#: section gives every pair.
LEADING_GAPS = 5

#: The statistics of a meta-evaluation a pair records, as ``MetaEvaluation.rows`` names them.
META_STATISTICS: tuple[str, ...] = (
    "pairwise_accuracy",
    "acc23_calibrated",
    "spa",
    "segment_acc23_calibrated",
)


# ---------------------------------------------------------------------- MT-Thresholds
def thresholds_version() -> str | None:
    """The installed ``mt-thresholds`` version, or ``None`` when it is not installed."""
    try:
        return importlib.metadata.version(THRESHOLDS_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


def human_agreement(gap: float) -> float:
    """MT-Thresholds' accuracy (percent, 0–100) for a BLEU difference of ``|gap|`` points
    between two systems: how often human judgments agree with a system difference that large
    (``mt_thresholds.accuracy(|gap|, "bleu")``; Kocmi et al., ACL 2024)."""
    with warnings.catch_warnings():
        # mt-thresholds 1.0.4 compiles a regex from "\d+" (not a raw string): Python warns
        # of the invalid escape when it compiles the module
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        import mt_thresholds  # a small pure-Python package, loaded only when a report asks

    return float(mt_thresholds.accuracy(abs(gap), THRESHOLDS_METRIC))


# ---------------------------------------------------------------------- resamples
class _FixtureResamples:
    """One fixture's resamples, drawn once and shared by every pair: segment indices per system
    (one matrix for all when the systems share their references), and each (system, profile)'s
    resampled corpus scores, computed once from the session's statistics."""

    def __init__(
        self, corpora: Mapping[str, Corpus], session: Session, resamples: int, seed: int
    ) -> None:
        self.scope = session.with_corpora(dict(corpora))
        rng = np.random.default_rng(seed)
        self.shared = len({c.references for c in corpora.values()}) == 1
        self.indices: dict[str, np.ndarray | None] = {}
        if self.shared:
            size = len(next(iter(corpora.values())))
            drawn = resample_indices(size, resamples, rng) if size else None
            self.indices = dict.fromkeys(corpora, drawn)
        else:
            for name, corpus in corpora.items():
                self.indices[name] = (
                    resample_indices(len(corpus), resamples, rng) if len(corpus) else None
                )
        self._counts: dict[tuple[str, type], np.ndarray] = {}
        self._scores: dict[tuple[str, str], np.ndarray | Why] = {}

    def scores(self, system: str, profile: str) -> np.ndarray | Why:
        """The resampled corpus scores of ``system`` under ``profile``, or why there are none."""
        key = (system, profile)
        if key not in self._scores:
            self._scores[key] = self._compute(system, profile)
        return self._scores[key]

    @single_blas_thread
    def _compute(self, system: str, profile: str) -> np.ndarray | Why:
        indices = self.indices[system]
        if indices is None:
            return Why("no-segments", (system,))
        config = PROFILES[profile]
        try:
            table = prepare(self.scope.statistics(config, system), config)
            # one count matrix per index matrix (the systems that share theirs share it) and
            # precision: single where the product is exact in it (the same sums, half the work)
            dtype = exact_product_dtype(table.matrix, len(table))
            where = ("shared" if self.shared else system, dtype)
            if where not in self._counts:
                self._counts[where] = counts_from_indices(indices, len(table), dtype=dtype)
            sums = (self._counts[where] @ table.matrix.astype(dtype)).astype(np.float64)
            last = None if table.context is None else table.context[indices[:, -1]]
            scores = resampled_scores(table, sums, last=last, longest=table.longest(indices))
        except HarnessError as exc:
            return Why("resample-error", (system, profile), detail=" ".join(str(exc).split()))
        if not np.all(np.isfinite(scores)):
            return Why("no-finite-resample", (system, profile))
        return scores


# ---------------------------------------------------------------------- one pair
def _profiles_of_libraries(pairs: Sequence[PairVerdict]) -> dict[str, str]:
    """Library → the profile the report shows equal to it (its own pair agrees)."""
    out: dict[str, str] = {}
    for p in pairs:
        name = profile_of(p.b)
        if library_pair(p.a, p.b) and p.verdict == "agree" and name is not None:
            out[p.b] = name
    return out


def _profile(label: str, libraries: Mapping[str, str]) -> tuple[str | None, Why | None]:
    """``(profile, None)`` whose statistics stand for ``label``, or ``(None, why not)``."""
    if label.startswith("harness:"):
        own = label.split(":", 1)[1]
        return (own, None) if own in PROFILES else (None, Why("unknown-profile", (label,)))
    if label in libraries:
        return libraries[label], None
    name = profile_of(label)
    if name is None:
        return None, Why("no-profile", (label,))
    return None, Why("profile-not-shown", (label, name))


def _fixture_gap(
    pair: PairVerdict,
    fixture: str,
    resampled: _FixtureResamples,
    profiles: tuple[str | None, str | None],
    missing: tuple[Why, ...],
    confidence: float,
    agreement: bool,
) -> FixtureGap:
    corpora = [g for g in pair.corpora if g.fixture == fixture and g.system in resampled.indices]
    systems: list[SystemGap] = []
    diffs: list[np.ndarray] = []
    reasons: list[Why] = list(missing)
    for g in corpora:
        ci = None
        if g.gap is not None and profiles[0] is not None and profiles[1] is not None:
            ra = resampled.scores(g.system, profiles[0])
            rb = resampled.scores(g.system, profiles[1])
            bad = [x for x in (ra, rb) if isinstance(x, Why)]
            if bad:
                reasons += bad
            else:
                assert isinstance(ra, np.ndarray) and isinstance(rb, np.ndarray)
                diffs.append(rb - ra)
                ci = percentile_interval(diffs[-1], confidence)
        systems.append(SystemGap(g.system, g.a.score, g.b.score, g.gap, ci))
    gaps = [s.gap for s in systems if s.gap is not None]
    mean = math.fsum(gaps) / len(gaps) if gaps else None
    ci = None
    if mean is not None and len(diffs) == len(gaps):
        ci = percentile_interval(np.mean(np.vstack(diffs), axis=0), confidence)
    elif mean is not None and not reasons:
        reasons.append(Why("system-without-interval"))
    if mean is None:
        reasons = [Why("no-system-scored")]
    flips, system_pairs = rank_flips(
        [s.system for s in systems],
        [s.score_a for s in systems],
        [s.score_b for s in systems],
    )
    # a fixture whose every system gap is within tolerance moves no system: humans are not asked
    flat = all(abs(s.gap) <= pair.tolerance for s in systems if s.gap is not None)
    human = human_agreement(mean) if agreement and mean is not None and not flat else None
    note = None if ci is not None else tuple(reasons)
    return FixtureGap(
        fixture=fixture,
        systems=tuple(systems),
        mean_gap=mean,
        ci=ci,
        ci_note=note,
        system_pairs=system_pairs,
        flips=flips,
        human_agreement=human,
    )


# ---------------------------------------------------------------------- the verdict
def equal_at_corpus(pair: PairVerdict) -> bool:
    """Whether ``pair`` differs only below the corpus level: judged to differ, while every
    corpus gap it compared is within its tolerance."""
    return (
        pair.verdict == "disagree"
        and pair.corpus_max_abs is not None
        and pair.corpus_max_abs <= pair.tolerance
    )


def _verdict(pair: PairVerdict, fixtures: Sequence[FixtureGap]) -> tuple[Matters, MattersReason]:
    """``(matters, reason)``: module docstring."""
    if pair.verdict == "n/a" or not any(f.mean_gap is not None for f in fixtures):
        return "n/a", "not-comparable"
    if pair.verdict == "agree":
        return "no", "agree"
    if equal_at_corpus(pair):
        return "no", "equal-at-corpus"
    if any(f.flips for f in fixtures):
        return "yes", "reorders"
    loud = [f.human_agreement for f in fixtures if f.human_agreement is not None]
    if any(h >= HUMAN_MAJORITY for h in loud):
        return "yes", "humans-notice"
    if not loud:
        return "no", "no-human-agreement"
    return "no", "humans-do-not-notice"


def headline(pair: PairMatters) -> FixtureGap | None:
    """The fixture where the pair's gap matters most (the one its sentence gives): most
    flips, then the largest |mean gap|; ``None`` when no fixture has a gap."""
    scored = [f for f in pair.fixtures if f.mean_gap is not None]
    if not scored:
        return None
    return max(scored, key=lambda f: (len(f.flips), abs(f.mean_gap or 0.0)))


def _factors(profile_a: str | None, profile_b: str | None) -> tuple[str, ...]:
    """The factors on which the two profiles differ (empty without both)."""
    if profile_a is None or profile_b is None:
        return ()
    return differing_factors(PROFILES[profile_a], PROFILES[profile_b])


def _segment_scores(scope: Session, config: BleuConfig, system: str) -> np.ndarray:
    return np.asarray(scope.segment_scores(config, system), dtype=float)


def segment_factors(
    profile_a: str,
    profile_b: str,
    fixtures: Sequence[tuple[str, _FixtureResamples]],
    tolerance: float,
) -> tuple[str, ...]:
    """The factors on which the two profiles differ that alone move a segment score: profile
    ``a`` with that one factor taken from ``b`` scores some segment of the fixtures' systems
    more than ``tolerance`` away from ``a`` (a configuration that raises on a system is left
    out there)."""
    a, b = PROFILES[profile_a], PROFILES[profile_b]
    # a's own segment scores, once per system
    base: dict[tuple[str, str], np.ndarray | None] = {}
    for name, resampled in fixtures:
        for system in resampled.indices:
            try:
                base[(name, system)] = _segment_scores(resampled.scope, a, system)
            except HarnessError:
                base[(name, system)] = None
    out = []
    for factor in differing_factors(a, b):
        moved = hybrid(a, b, [factor])
        if any(
            _moves(resampled.scope, base[(name, system)], moved, system, tolerance)
            for name, resampled in fixtures
            for system in resampled.indices
        ):
            out.append(factor)
    return tuple(out)


def _moves(
    scope: Session, mine: np.ndarray | None, config: BleuConfig, system: str, tolerance: float
) -> bool:
    """Whether ``config`` scores some segment of ``system`` more than ``tolerance`` away from
    ``mine`` (``None``, or ``config`` raising: nothing to compare)."""
    if mine is None:
        return False
    try:
        theirs = _segment_scores(scope, config, system)
    except HarnessError:
        return False
    same = (np.isnan(mine) & np.isnan(theirs)) | (np.abs(mine - theirs) <= tolerance)
    return not bool(np.all(same))


def profile_label_of(label: str) -> str | None:
    """What an in-house profile's label adds to its name (``harness:mteval-v13a`` → that it
    lowercases, the script's default), ``None`` for a real library or a name that says it all:
    a library runs with its own defaults, which its name says."""
    if not label.startswith("harness:"):
        return None
    return LABELS.get(label.split(":", 1)[1])


def _pair_matters(
    pair: PairVerdict,
    fixtures: Sequence[tuple[str, _FixtureResamples]],
    libraries: Mapping[str, str],
    confidence: float,
    agreement: bool,
    meta: MetaEvaluation | None,
) -> PairMatters:
    (pa, why_a), (pb, why_b) = _profile(pair.a, libraries), _profile(pair.b, libraries)
    missing = tuple(x for x in (why_a, why_b) if x is not None)
    # a gap within tolerance on every system is no system difference: humans are not asked
    agreement = agreement and not equal_at_corpus(pair)
    found = [
        _fixture_gap(pair, name, resampled, (pa, pb), missing, confidence, agreement)
        for name, resampled in fixtures
        if any(g.fixture == name and g.system in resampled.indices for g in pair.corpora)
    ]
    matters, reason = _verdict(pair, found)
    moving: tuple[str, ...] = ()
    if reason == "equal-at-corpus" and pa is not None and pb is not None:
        compared = [(name, r) for name, r in fixtures if any(g.fixture == name for g in found)]
        moving = segment_factors(pa, pb, compared, pair.tolerance)
    differs, facts = _meta_difference(meta, pa, pb)
    na = (pair.na_reason or (Why("no-corpus-scored"),)) if reason == "not-comparable" else None
    return PairMatters(
        a=pair.a,
        b=pair.b,
        matters=matters,
        reason=reason,
        na_reason=na,
        label_a=profile_label_of(pair.a),
        label_b=profile_label_of(pair.b),
        profile_a=pa,
        profile_b=pb,
        tolerance=pair.tolerance,
        segments=pair.segments.n,
        segments_differ=pair.segments.share_above if pair.segments.n else None,
        factors_differ=_factors(pa, pb),
        segment_factors=moving,
        fixtures=tuple(found),
        meta_evaluation_differs=differs,
        meta_evaluation=facts,
    )


def _meta_difference(
    meta: MetaEvaluation | None, profile_a: str | None, profile_b: str | None
) -> tuple[bool | None, MetaDifference]:
    """Whether the meta-evaluation tells the two profiles apart (``None``: it cannot), and
    what it holds of them."""

    def found(status: MetaStatus, **facts: Any) -> MetaDifference:
        base: dict[str, Any] = {
            "dataset": None if meta is None else meta.dataset,
            "systems": 0 if meta is None else len(meta.systems),
            "missing": (),
            "numbers": (),
            "resamples": 0 if meta is None else meta.resamples,
            "tests": (),
        }
        return MetaDifference(status=status, **{**base, **facts})

    if meta is None:
        return None, found("not-computed")
    rows = {row["implementation"]: row for row in meta.rows()}
    absent = tuple(p or "(no profile)" for p in (profile_a, profile_b) if p not in rows)
    if absent:
        return None, found("not-in-it", missing=absent)
    assert profile_a is not None and profile_b is not None
    if profile_a == profile_b:
        return None, found("one-profile")
    numbers = tuple(
        MetaNumber(key, rows[profile_a][key], rows[profile_b][key]) for key in META_STATISTICS
    )
    tests = tuple(
        MetaTest(c.statistic, c.p_value, c.significant)
        for c in meta.comparisons
        if {c.better, c.worse} == {profile_a, profile_b}
    )
    if not tests:
        return None, found("not-tested", numbers=numbers)
    return any(t.significant for t in tests), found("tested", numbers=numbers, tests=tests)


# ---------------------------------------------------------------------- the section
#: The reasons of a pair with a corpus gap (the others are equal at corpus level, agree, or
#: have nothing to compare).
GAP_REASONS: frozenset[str] = frozenset(
    {"reorders", "humans-notice", "humans-do-not-notice", "no-human-agreement"}
)


def counted_once(pairs: Sequence[PairMatters], libraries: Mapping[str, str]) -> list[int]:
    """The indices of ``pairs`` with a real library the report shows equal to its profile
    (``libraries``: library → profile) counted once: of the pairs that name the same two
    implementations, library or profile, the first."""

    def same(label: str) -> str:
        return f"harness:{libraries[label]}" if label in libraries else label

    seen: set[tuple[str, str]] = set()
    out = []
    for k, p in enumerate(pairs):
        key = (same(p.a), same(p.b))
        if key not in seen:
            seen.add(key)
            out.append(k)
    return out


def tally(pairs: Sequence[PairMatters], libraries: Mapping[str, str]) -> MattersTally:
    """The section's one count (:class:`~harness.analysis.study_types.MattersTally`)."""
    counted = counted_once(pairs, libraries)
    reasons = [pairs[k].reason for k in counted]
    return MattersTally(
        judged=len(pairs),
        pairs=len(counted),
        matters=sum(pairs[k].matters == "yes" for k in counted),
        does_not_matter=sum(
            pairs[k].matters == "no" and r in GAP_REASONS
            for k, r in zip(counted, reasons, strict=True)
        ),
        equal_at_corpus=reasons.count("equal-at-corpus"),
        agree=reasons.count("agree"),
        not_comparable=reasons.count("not-comparable"),
        counted=tuple(counted),
    )


def _weight(pair: PairMatters) -> tuple[bool, bool, int, float]:
    """Sort key of the pairs the summary names: BLEU-4 pairs first (another n-gram weighting
    is far from any BLEU-4 by design, so it never leads), then gaps that matter, then by
    flips, then by the largest mean gap."""
    flips = sum(len(f.flips) for f in pair.fixtures)
    gap = max((abs(f.mean_gap) for f in pair.fixtures if f.mean_gap is not None), default=0.0)
    bleu4 = bleu4_label(pair.a) and bleu4_label(pair.b)
    return (not bleu4, pair.matters != "yes", -flips, -gap)


def leading(pairs: Sequence[PairMatters], counted: Sequence[int], most: int) -> tuple[int, ...]:
    """The indices of the counted pairs with a corpus gap the summary names, in its order
    (:func:`_weight`), at most ``most``."""
    gaps = [k for k in counted if pairs[k].reason in GAP_REASONS]
    return tuple(sorted(gaps, key=lambda k: _weight(pairs[k]))[:most])


def _section(
    found: Sequence[PairMatters],
    note: Why | None,
    libraries: Mapping[str, str],
    *,
    seed: int,
    resamples: int,
    confidence: float,
) -> GapMatters:
    version = thresholds_version()
    counts = tally(found, libraries)
    return GapMatters(
        method="paired-bootstrap",
        resamples=resamples,
        seed=seed,
        confidence=float(confidence),
        thresholds=f"{THRESHOLDS_PACKAGE} {version}" if version else None,
        citation=THRESHOLDS_CITATION,
        pairs=tuple(found),
        tally=counts,
        leading=leading(found, counts.counted, LEADING_GAPS),
        leading_max=LEADING_GAPS,
        note=note,
    )


def unanswered(
    note: Why, *, seed: int, resamples: int = GAP_RESAMPLES, confidence: float = 0.95
) -> GapMatters:
    """The section when it is not computed, with ``note`` saying why."""
    return _section((), note, {}, seed=seed, resamples=resamples, confidence=confidence)


def gap_matters(
    pairs: Sequence[PairVerdict],
    corpora: Mapping[tuple[str, str], Corpus],
    session: Session,
    *,
    seed: int,
    resamples: int = GAP_RESAMPLES,
    confidence: float = 0.95,
    meta: MetaEvaluation | None = None,
    progress: ProgressCallback | None = None,
) -> GapMatters:
    """Whether the gap of each judged pair matters (module docstring), on the fixtures of
    ``corpora`` (``{(fixture, system): corpus}``, the session's) with statistics counted by
    ``session``: ``resamples`` paired-bootstrap resamples per fixture drawn with ``seed``,
    intervals at ``confidence``. ``meta`` (:func:`harness.analysis.meta_eval.meta_evaluate`
    of the human judgments) says whether each pair's profiles differ in the WMT
    meta-evaluation. Without corpora or pairs the section's ``note`` says why.
    ``progress`` (:data:`~harness.progress.ProgressCallback`) is told of each finished pair.

    Raises:
        ConfigError: ``resamples`` below 1 or ``confidence`` not strictly between 0 and 1.
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigError(f"resamples must be an integer >= 1, got {resamples!r}")
    if isinstance(confidence, bool) or not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    version = thresholds_version()
    libraries = _profiles_of_libraries(pairs)

    def section(found: Sequence[PairMatters], note: Why | None) -> GapMatters:
        return _section(
            found, note, libraries, seed=seed, resamples=resamples, confidence=confidence
        )

    if not corpora:
        return section((), Why("without-corpora"))
    if not pairs:
        return section((), Why("no-pairs"))
    by_fixture: dict[str, dict[str, Corpus]] = {}
    for (fixture, system), corpus in corpora.items():
        by_fixture.setdefault(fixture, {})[system] = corpus
    fixtures = [
        (name, _FixtureResamples(systems, session, resamples, seed))
        for name, systems in by_fixture.items()
    ]
    found = [
        _pair_matters(p, fixtures, libraries, confidence, version is not None, meta)
        for p in track(pairs, progress, "report: does the gap matter")
    ]
    note = None
    if version is None:
        note = Why("not-installed", (THRESHOLDS_PACKAGE,))
    return section(found, note)
