"""Does the gap matter? For every judged pair of implementations, three answers in plain words.

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

A pair's gap **matters** (``yes``) when it reorders a pair of systems on some fixture, or
when it is as large as a system difference humans confirm more often than not
(MT-Thresholds accuracy ≥ :data:`HUMAN_MAJORITY` percent);
it does **not** (``no``) when it does neither, or when the pair agrees within its tolerance;
``n/a`` when nothing is comparable. Each pair gets one sentence, e.g. ``nltk vs sacrebleu:
the gap matters (it reorders systems): +0.90 BLEU [+0.70, +1.10] on wmt21 (mean of 20
systems), flips 2 of 190 system pairs; mixed in one table, the two move a system by 0.90
BLEU, a difference between two systems that humans confirm 62% of the time (MT-Thresholds).``

4. **Would the WMT Metrics task tell them apart?** With a meta-evaluation of the human
   judgments (:func:`harness.analysis.meta_eval.meta_evaluate`: pairwise accuracy, acc23, soft
   pairwise accuracy, each against e.g. WMT21 MQM), each pair's note gives both profiles'
   numbers and whether a permutation test finds them significantly different; without one
   it says why not (:data:`META_EVALUATION_NOTE`). This answer is the pair's, not a fixture's:
   the human judgments are their own data set.
"""

from __future__ import annotations

import importlib.metadata
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from harness.analysis.answer import rank_flips
from harness.analysis.labels import library_pair, profile_of
from harness.analysis.meta_eval import MetaEvaluation
from harness.analysis.resampling import (
    prepare,
    resampled_scores,
)
from harness.analysis.study_types import (
    FixtureGap,
    GapMatters,
    PairMatters,
    PairVerdict,
    RankFlip,
    SystemGap,
)
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.session import Session
from harness.statistics.blas import single_blas_thread
from harness.statistics.resampling import counts_from_indices, percentile_interval, resample_indices

__all__ = [
    "GAP_RESAMPLES",
    "HUMAN_MAJORITY",
    "META_EVALUATION_NOTE",
    "THRESHOLDS_CITATION",
    "THRESHOLDS_METRIC",
    "THRESHOLDS_PACKAGE",
    "gap_matters",
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

#: Why ``meta_evaluation_differs`` is ``null`` when the report has no meta-evaluation.
META_EVALUATION_NOTE = (
    "not computed: the WMT meta-evaluation (pairwise accuracy, acc23, soft pairwise accuracy) "
    "needs human judgments (report --human)"
)

#: The statistics of a meta-evaluation named in a pair's note, as ``MetaEvaluation.rows``
#: names them, with how the note calls them.
META_STATISTICS: tuple[tuple[str, str], ...] = (
    ("pairwise_accuracy", "pairwise accuracy"),
    ("acc23_calibrated", "acc23"),
    ("spa", "SPA"),
    ("segment_acc23_calibrated", "segment acc23"),
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
        self._counts: dict[str, np.ndarray] = {}
        self._scores: dict[tuple[str, str], np.ndarray | str] = {}

    def scores(self, system: str, profile: str) -> np.ndarray | str:
        """The resampled corpus scores of ``system`` under ``profile``, or why there are none."""
        key = (system, profile)
        if key not in self._scores:
            self._scores[key] = self._compute(system, profile)
        return self._scores[key]

    @single_blas_thread
    def _compute(self, system: str, profile: str) -> np.ndarray | str:
        indices = self.indices[system]
        if indices is None:
            return f"{system} has no segments to resample"
        config = PROFILES[profile]
        try:
            table = prepare(self.scope.statistics(config, system), config)
            # one count matrix per index matrix: the systems that share theirs share it
            where = "shared" if self.shared else system
            if where not in self._counts:
                self._counts[where] = counts_from_indices(indices, len(table))
            sums = self._counts[where] @ table.matrix
            last = None if table.context is None else table.context[indices[:, -1]]
            scores = resampled_scores(table, sums, last=last, longest=table.longest(indices))
        except HarnessError as exc:
            return f"{system} under {profile}: {' '.join(str(exc).split())}"
        if not np.all(np.isfinite(scores)):
            return f"{system} under {profile}: a resample has no finite score"
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


def _profile(label: str, libraries: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``(profile, None)`` whose statistics stand for ``label``, or ``(None, why not)``."""
    if label.startswith("harness:"):
        own = label.split(":", 1)[1]
        return (own, None) if own in PROFILES else (None, f"{label} is not a known profile")
    if label in libraries:
        return libraries[label], None
    name = profile_of(label)
    if name is None:
        return None, f"{label} has no in-house profile, so its statistics cannot be resampled"
    return None, (
        f"the report does not show {label} equal to its profile harness:{name} (their pair "
        "was not judged, or differs), so its statistics cannot be resampled"
    )


def _fixture_gap(
    pair: PairVerdict,
    fixture: str,
    resampled: _FixtureResamples,
    profiles: tuple[str | None, str | None],
    missing: str | None,
    confidence: float,
    agreement: bool,
) -> FixtureGap:
    corpora = [g for g in pair.corpora if g.fixture == fixture and g.system in resampled.indices]
    systems: list[SystemGap] = []
    diffs: list[np.ndarray] = []
    reasons: list[str] = [missing] if missing else []
    for g in corpora:
        ci = None
        if g.gap is not None and profiles[0] is not None and profiles[1] is not None:
            ra = resampled.scores(g.system, profiles[0])
            rb = resampled.scores(g.system, profiles[1])
            bad = [x for x in (ra, rb) if isinstance(x, str)]
            if bad:
                reasons += [str(x) for x in bad]
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
        reasons.append("a system has no interval")
    if mean is None:
        reasons = ["no system scored by both"]
    flips, system_pairs = rank_flips(
        [s.system for s in systems],
        [s.score_a for s in systems],
        [s.score_b for s in systems],
    )
    human = human_agreement(mean) if agreement and mean is not None else None
    note = None if ci is not None else "no interval: " + "; ".join(dict.fromkeys(reasons))
    return FixtureGap(
        fixture=fixture,
        systems=tuple(systems),
        mean_gap=mean,
        ci=ci,
        ci_note=note,
        system_pairs=system_pairs,
        flips=flips,
        human_agreement=human,
        sentence=_fixture_sentence(fixture, mean, ci, note, len(gaps), flips, system_pairs, human),
    )


# ---------------------------------------------------------------------- plain words
def _fixture_sentence(
    fixture: str,
    mean: float | None,
    ci: tuple[float, float] | None,
    note: str | None,
    systems: int,
    flips: Sequence[RankFlip],
    system_pairs: int,
    human: float | None,
) -> str:
    """``+0.90 BLEU [+0.70, +1.10] on wmt21 (mean of 20 systems), flips 2 of 190 system
    pairs; mixed in one table, the two move a system by 0.90 BLEU, a difference between two
    systems that humans confirm 62% of the time (MT-Thresholds)``."""
    if mean is None:
        return f"nothing to compare on {fixture}: no system scored by both"
    interval = f"[{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f"({note})"
    what = f"mean of {systems} systems" if systems > 1 else "one system"
    text = f"{mean:+.2f} BLEU {interval} on {fixture} ({what})"
    if system_pairs:
        text += f", flips {len(flips)} of {system_pairs} system pair{'s' * (system_pairs != 1)}"
    else:
        text += ", no system pair to reorder"
    if human is not None:
        text += (
            f"; mixed in one table, the two move a system by {abs(mean):.2f} BLEU, a difference "
            f"between two systems that humans confirm {human:.0f}% of the time (MT-Thresholds)"
        )
    return text


def _verdict(pair: PairVerdict, fixtures: Sequence[FixtureGap]) -> tuple[Matters, str]:
    """``(matters, reason)``: module docstring."""
    if pair.verdict == "n/a" or not any(f.mean_gap is not None for f in fixtures):
        why = pair.na_reason or "no corpus scored by both"
        return "n/a", f"nothing to compare ({why})"
    if pair.verdict == "agree":
        return "no", f"no gap: equal within tolerance {pair.tolerance:g} on every corpus compared"
    if any(f.flips for f in fixtures):
        return "yes", "the gap matters: it reorders systems"
    loud = [f for f in fixtures if f.human_agreement is not None]
    if any(f.human_agreement >= HUMAN_MAJORITY for f in loud if f.human_agreement is not None):
        return "yes", (
            "the gap matters: it reorders no systems here, but a system difference this large "
            "agrees with humans more often than not"
        )
    if not loud:
        return "no", "it reorders no systems (human agreement not computed)"
    return "no", (
        "the gap does not matter: it reorders no systems, and humans agree with a system "
        "difference this small less often than not"
    )


def _headline(fixtures: Sequence[FixtureGap]) -> FixtureGap | None:
    """The fixture where the gap matters most: most flips, then the largest |mean gap|."""
    scored = [f for f in fixtures if f.mean_gap is not None]
    if not scored:
        return None
    return max(scored, key=lambda f: (len(f.flips), abs(f.mean_gap or 0.0)))


def _pair_sentence(pair: PairVerdict, reason: str, fixtures: Sequence[FixtureGap]) -> str:
    head = _headline(fixtures)
    text = f"{pair.a} vs {pair.b}: {reason}"
    if head is None or pair.verdict == "agree":  # no gap: its size says nothing
        return text + "."
    text += f" — {head.sentence}"
    others = [f for f in fixtures if f is not head and f.mean_gap is not None]
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


def _pair_matters(
    pair: PairVerdict,
    fixtures: Sequence[tuple[str, _FixtureResamples]],
    libraries: Mapping[str, str],
    confidence: float,
    agreement: bool,
    meta: MetaEvaluation | None,
) -> PairMatters:
    (pa, why_a), (pb, why_b) = _profile(pair.a, libraries), _profile(pair.b, libraries)
    missing = "; ".join(x for x in (why_a, why_b) if x) or None
    found = [
        _fixture_gap(pair, name, resampled, (pa, pb), missing, confidence, agreement)
        for name, resampled in fixtures
        if any(g.fixture == name and g.system in resampled.indices for g in pair.corpora)
    ]
    matters, reason = _verdict(pair, found)
    differs, note = _meta_difference(meta, pa, pb)
    return PairMatters(
        a=pair.a,
        b=pair.b,
        matters=matters,
        reason=reason,
        profile_a=pa,
        profile_b=pb,
        fixtures=tuple(found),
        sentence=_pair_sentence(pair, reason, found),
        meta_evaluation_differs=differs,
        meta_evaluation_note=note,
    )


def _meta_difference(
    meta: MetaEvaluation | None, profile_a: str | None, profile_b: str | None
) -> tuple[bool | None, str]:
    """Whether the meta-evaluation tells the two profiles apart, and both sides' numbers."""
    if meta is None:
        return None, META_EVALUATION_NOTE
    rows = {row["implementation"]: row for row in meta.rows()}
    absent = [p or "(no profile)" for p in (profile_a, profile_b) if p not in rows]
    if absent:
        return None, f"not in the meta-evaluation of {meta.dataset}: {', '.join(absent)}"
    assert profile_a is not None and profile_b is not None
    if profile_a == profile_b:
        return None, f"both are the {profile_a} profile: one meta-evaluation"
    shown = [
        f"{label} {_number(rows[profile_a][key])} vs {_number(rows[profile_b][key])}"
        for key, label in META_STATISTICS
    ]
    numbers = f"on {meta.dataset} ({len(meta.systems)} systems): " + ", ".join(shown)
    tests = [c for c in meta.comparisons if {c.better, c.worse} == {profile_a, profile_b}]
    if not tests:
        why = "no permutation resamples" if meta.resamples == 0 else "not a compared pair"
        return None, numbers + f"; not tested ({why})"
    found = [c for c in tests if c.significant]
    if not found:
        return False, numbers + f"; none of {len(tests)} permutation tests significant"
    named = ", ".join(f"{c.statistic} (p = {c.p_value:.3g})" for c in found)
    return True, numbers + f"; significantly different: {named}"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


# ---------------------------------------------------------------------- the section
def _section(
    found: Sequence[PairMatters], note: str | None, *, seed: int, resamples: int, confidence: float
) -> GapMatters:
    version = thresholds_version()
    return GapMatters(
        method="paired-bootstrap",
        resamples=resamples,
        seed=seed,
        confidence=float(confidence),
        thresholds=f"{THRESHOLDS_PACKAGE} {version}" if version else None,
        citation=THRESHOLDS_CITATION,
        pairs=tuple(found),
        note=note,
    )


def unanswered(
    note: str, *, seed: int, resamples: int = GAP_RESAMPLES, confidence: float = 0.95
) -> GapMatters:
    """The section when it is not computed, with ``note`` saying why."""
    return _section((), note, seed=seed, resamples=resamples, confidence=confidence)


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

    def section(found: Sequence[PairMatters], note: str | None) -> GapMatters:
        return _section(found, note, seed=seed, resamples=resamples, confidence=confidence)

    if not corpora:
        return section((), "not computed: the report was built without the corpora")
    if not pairs:
        return section((), "not computed: no pairs were judged")
    by_fixture: dict[str, dict[str, Corpus]] = {}
    for (fixture, system), corpus in corpora.items():
        by_fixture.setdefault(fixture, {})[system] = corpus
    fixtures = [
        (name, _FixtureResamples(systems, session, resamples, seed))
        for name, systems in by_fixture.items()
    ]
    libraries = _profiles_of_libraries(pairs)
    found = [
        _pair_matters(p, fixtures, libraries, confidence, version is not None, meta)
        for p in track(pairs, progress, "report: does the gap matter")
    ]
    note = None
    if version is None:
        note = f"human agreement not computed: {THRESHOLDS_PACKAGE} is not installed"
    return section(found, note)
