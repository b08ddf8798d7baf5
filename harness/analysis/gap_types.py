"""The "does the gap matter?" section of the report as typed data (part of
:mod:`harness.analysis.study_types`, which re-exports every name here): the facts
:func:`harness.analysis.gap_matters.gap_matters` computes, worded by
:mod:`harness.report.gap_words`. Gaps are BLEU points on 0–100."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness.analysis.why import Why

__all__ = [
    "FixtureGap",
    "GapMatters",
    "MattersReason",
    "MattersTally",
    "MetaDifference",
    "MetaNumber",
    "MetaStatus",
    "MetaTest",
    "PairMatters",
    "RankFlip",
    "SystemGap",
]


@dataclass(frozen=True)
class SystemGap:
    """One system of a fixture under both implementations of a pair: their corpus scores
    (``null`` unless ok), ``gap = score_b − score_a`` and its paired-bootstrap percentile
    interval ``ci`` (``null`` when it has none: the fixture's ``ci_note`` says why)."""

    system: str
    score_a: float | None
    score_b: float | None
    gap: float | None
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class RankFlip:
    """Two systems the implementations order differently: ``systems[0]`` is ranked above
    ``systems[1]`` by ``a`` and below it by ``b``; ``scores_a`` and ``scores_b`` are each
    implementation's scores of the two systems, in that order."""

    systems: tuple[str, str]
    scores_a: tuple[float, float]
    scores_b: tuple[float, float]


@dataclass(frozen=True)
class FixtureGap:
    """A pair on one fixture: each system's gap, their ``mean_gap`` over the ``systems``
    both scored, its paired-bootstrap percentile interval ``ci`` (``null``: ``ci_note`` says
    why), the ``flips`` among the ``system_pairs`` both scored (pairs of systems ordered the
    other way: strictly above by one, strictly below by the other) and MT-Thresholds'
    ``human_agreement`` (percent: how often humans agree with a system difference of
    ``|mean_gap|`` BLEU points; ``null`` when not computed, and when every system gap of the
    fixture, or of the pair, is within the pair's tolerance: no system difference at all)."""

    fixture: str
    systems: tuple[SystemGap, ...]
    mean_gap: float | None
    ci: tuple[float, float] | None
    ci_note: tuple[Why, ...] | None
    system_pairs: int
    flips: tuple[RankFlip, ...]
    human_agreement: float | None


#: Why a pair's gap matters or not: ``not-comparable`` (nothing scored by both: ``na_reason``),
#: ``agree`` (equal within tolerance on every corpus and segment), ``equal-at-corpus`` (equal
#: within tolerance on every corpus, while segment scores differ), ``reorders`` (it orders a
#: pair of systems the other way on some fixture), ``humans-notice`` (a system difference
#: that large agrees with humans more often than not), ``humans-do-not-notice`` (neither),
#: ``no-human-agreement`` (no flip, and MT-Thresholds was not computed).
MattersReason = Literal[
    "not-comparable",
    "agree",
    "equal-at-corpus",
    "reorders",
    "humans-notice",
    "humans-do-not-notice",
    "no-human-agreement",
]


#: Whether a pair's two implementations could be told apart in the WMT meta-evaluation:
#: ``not-computed`` (the report has no meta-evaluation), ``not-in-it`` (a side is not in it:
#: ``missing``), ``one-profile`` (both sides are the same profile), ``not-tested`` (their
#: numbers, no permutation test between them), ``tested`` (their numbers and tests).
MetaStatus = Literal["not-computed", "not-in-it", "one-profile", "not-tested", "tested"]


@dataclass(frozen=True)
class MetaNumber:
    """One statistic of the meta-evaluation (``MetaEvaluation.rows``' key) for side ``a``
    and side ``b`` (``null``: undefined)."""

    statistic: str
    a: float | None
    b: float | None


@dataclass(frozen=True)
class MetaTest:
    """One permutation test between the pair's two profiles: the ``statistic``, its
    ``p_value`` and whether it is ``significant``."""

    statistic: str
    p_value: float
    significant: bool


@dataclass(frozen=True)
class MetaDifference:
    """A pair in the WMT meta-evaluation of the human judgments: its ``status``, the
    ``dataset`` and how many ``systems`` it rates, the sides not in it (``missing``: the
    profile, or ``(no profile)``), both sides' ``numbers``, its permutation ``resamples`` and
    the ``tests`` between the two profiles."""

    status: MetaStatus
    dataset: str | None
    systems: int
    missing: tuple[str, ...]
    numbers: tuple[MetaNumber, ...]
    resamples: int
    tests: tuple[MetaTest, ...]


@dataclass(frozen=True)
class PairMatters:
    """Whether a judged pair's gap matters (``matters``: ``yes`` when it reorders systems or
    is as large as a system difference humans confirm more often than not, ``no`` when it does
    neither, when the pair agrees within its tolerance or is equal at corpus level, ``n/a``
    when nothing is comparable), why (``reason``; ``na_reason`` for ``n/a``), each side's
    profile label (``label_a``, ``label_b``: the setting the name does not say, e.g. that a
    script lowercases; ``null`` when the name says it all), the profiles whose cached
    statistics give the intervals (``profile_a``, ``profile_b``; a library's is the profile
    the report shows equal to it, ``null`` when there is none), the pair's ``tolerance``, the
    share of its compared segments (``segments``) whose scores differ beyond it
    (``segments_differ``, ``null`` without segment scores), the factors on which the two
    profiles differ (``factors_differ``, as the attribution names them; empty without both
    profiles), those of them that alone move a segment score of a pair equal at corpus level
    (``segment_factors``: profile ``a`` with that one factor taken from ``b`` scores some
    compared segment beyond the tolerance; empty for any other pair) and each fixture with
    corpora. With a WMT meta-evaluation in the report
    (:func:`harness.analysis.meta_eval.meta_evaluate` of the human judgments),
    ``meta_evaluation_differs`` says whether the two implementations differ significantly in
    any of its permutation tests (``null``: not tested, or an implementation not in it) and
    ``meta_evaluation`` holds both sides' numbers and the tests, or why there are none."""

    a: str
    b: str
    matters: Literal["yes", "no", "n/a"]
    reason: MattersReason
    na_reason: tuple[Why, ...] | None
    label_a: str | None
    label_b: str | None
    profile_a: str | None
    profile_b: str | None
    tolerance: float
    segments: int
    segments_differ: float | None
    factors_differ: tuple[str, ...]
    segment_factors: tuple[str, ...]
    fixtures: tuple[FixtureGap, ...]
    meta_evaluation_differs: bool | None
    meta_evaluation: MetaDifference


@dataclass(frozen=True)
class MattersTally:
    """The one count of "does the gap matter?", over the ``pairs`` of implementations counted
    (each judged pair, except that a real library the report shows equal to its profile is
    counted once: of the pairs naming the same two implementations, library or profile, the
    first; ``judged`` is every judged pair): ``matters`` of them matter, ``does_not_matter``
    have a corpus gap that does not, ``equal_at_corpus`` are equal at corpus level with
    different segment scores, ``agree`` agree within tolerance and ``not_comparable`` have
    nothing scored by both; they sum to ``pairs``. ``counted`` are the indices (into
    ``GapMatters.pairs``) of the pairs counted."""

    judged: int
    pairs: int
    matters: int
    does_not_matter: int
    equal_at_corpus: int
    agree: int
    not_comparable: int
    counted: tuple[int, ...]


@dataclass(frozen=True)
class GapMatters:
    """Does the gap matter? One :class:`PairMatters` per judged pair: a seeded paired bootstrap
    (``resamples`` resamples of each fixture's segments, drawn once and shared by every pair and
    both sides; sacrebleu's percentile interval at ``confidence``), the flips of the system
    rankings and MT-Thresholds (``thresholds``: the package and its version, ``citation``);
    ``tally`` is the section's one count, and ``leading`` the indices (into ``pairs``) of the
    pairs with a corpus gap the summary names, in its order (BLEU-4 pairs first, then those
    that matter, then by flips, then by the largest mean gap; at most ``leading_max``);
    ``note`` says why nothing was computed."""

    method: Literal["paired-bootstrap"]
    resamples: int
    seed: int
    confidence: float
    thresholds: str | None
    citation: str
    pairs: tuple[PairMatters, ...]
    tally: MattersTally
    leading: tuple[int, ...]
    leading_max: int
    note: Why | None
