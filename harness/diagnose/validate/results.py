"""What :func:`~harness.diagnose.validate.validate` found: facts only.

:class:`ValidationReport` holds the verdict (scale, best profile, agreement per configuration,
readings, fit, precision), the :class:`Deviation` cases (shrunk and explained), the :class:`Crash`
examples and the probes; why a diagnosis is withheld (:class:`Withheld`), how the scale and the
precision were detected (:class:`ScaleFinding`, :class:`PrecisionFinding`) and how a deviation
was explained (:class:`HowFound`) are reason enums with the numbers and names they need. The
words, the plain-text report and the JSON (with the derived properties: verdict, agreement,
diagnosed factors, the comparison's tolerance) are written by :mod:`harness.report.validation`
and :mod:`harness.report.validation_words`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from harness.diagnose.validate.cases import SkippedFixture
from harness.diagnose.validate.evidence import Evidence, Verdict
from harness.diagnose.validate.probes import Probe
from harness.diagnose.validate.readings import Readings

__all__ = [
    "Crash",
    "Deviation",
    "FoundBy",
    "HowFound",
    "MistakesOn",
    "PrecisionBy",
    "PrecisionFinding",
    "ScaleBy",
    "ScaleFinding",
    "ValidationReport",
    "Withheld",
    "WithheldBecause",
]


class FoundBy(Enum):
    """What reproduces a deviation (the order :class:`~harness.diagnose.validate.classify.
    Classifier` tries them in)."""

    #: a single-factor variant of the best profile (``name``)
    VARIANT = "variant"
    #: modelled mistakes on the best profile or the fitted configuration
    MISTAKES = "mistakes"
    #: the fitted configuration
    FIT = "fit"
    #: another configuration of the pool (``name``), nearest to the best profile
    OTHER_CONFIGURATION = "other configuration"
    #: nothing does, but a failing probe (``name``) the input exercises points to it
    PROBE = "probe"
    #: nothing does and no probe points to it
    NOTHING = "nothing"


class MistakesOn(Enum):
    """The configuration modelled mistakes were made on."""

    BEST_PROFILE = "best profile"
    FITTED = "fitted configuration"


@dataclass(frozen=True)
class HowFound:
    """How a deviation was explained. ``by``: what reproduces it. ``name``: the variant or
    configuration (``VARIANT``, ``OTHER_CONFIGURATION``), the probe's behaviour (``PROBE``), or
    for ``MISTAKES`` the named profile the mistakes' configuration is blamed against when it
    is not the best profile (``None``: the configuration ``on``). ``mistakes``: the mistakes
    made. ``factors``: for ``VARIANT`` the other factors whose change reproduces it too, for
    ``OTHER_CONFIGURATION`` those it differs from ``best_profile`` in; ``also``: for
    ``VARIANT`` the factors whose change reproduces it on this input only."""

    by: FoundBy
    name: str | None = None
    on: MistakesOn | None = None
    mistakes: tuple[str, ...] = ()
    factors: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    best_profile: str | None = None


class WithheldBecause(Enum):
    """Why a validation gives no diagnosis."""

    #: fewer cases gave a finite score than a diagnosis needs
    TOO_FEW_SCORED = "too few scored"
    #: the first cases all failed alike, and the others were not run
    ALL_FAILED_ALIKE = "all failed alike"
    #: the scores do not show that they depend on the input (the report's ``evidence``)
    EVIDENCE = "evidence"


@dataclass(frozen=True)
class Withheld:
    """Why there is no diagnosis: ``because``, with ``n_scored`` of ``n_cases`` cases scored.
    ``TOO_FEW_SCORED``: a diagnosis needs ``need`` (at least ``min_scored`` and
    ``min_share`` of the cases). ``ALL_FAILED_ALIKE``: the first ``n_cases`` failed alike,
    ``not_run`` more were not run; ``first_error`` is the first one's error."""

    because: WithheldBecause
    n_scored: int
    n_cases: int
    need: int = 0
    min_scored: int = 0
    min_share: float = 0.0
    not_run: int = 0
    first_error: str | None = None


class ScaleBy(Enum):
    """How the scale was detected."""

    #: a perfect match scored 1.0
    PERFECT_ONE = "perfect one"
    #: a perfect match scored 100
    PERFECT_HUNDRED = "perfect hundred"
    #: a perfect match scored neither: the scale on which more cases agree with some profile
    AGREEMENT = "agreement"
    #: not detected: the diagnosis is withheld
    NOT_DETECTED = "not detected"


@dataclass(frozen=True)
class ScaleFinding:
    """How the scale was detected (``by``). For ``AGREEMENT``: the perfect match's ``score``
    (or its ``error`` when it gave none), the highest ``share`` of cases agreeing with some
    profile on the chosen scale, and the ``largest`` score seen."""

    by: ScaleBy
    score: float | None = None
    error: str | None = None
    share: float = 0.0
    largest: float | None = None


class PrecisionBy(Enum):
    """How the printed precision was read from the scores."""

    #: no case gave a score
    NO_SCORE = "no score"
    #: more decimals than a rounding subject prints: full precision
    FULL = "full"
    #: every score has exactly ``decimals`` decimals
    ALL_EXACT = "all exact"
    #: no score has more than ``decimals`` decimals (the others end in unprinted zeros)
    AT_MOST = "at most"


@dataclass(frozen=True)
class PrecisionFinding:
    """How the precision was read (``by``): the most ``decimals`` of any of the ``scores``
    scored cases, and how many have exactly that many (``exact``)."""

    by: PrecisionBy
    decimals: int = 0
    scores: int = 0
    exact: int = 0


@dataclass(frozen=True)
class Deviation:
    """A case where the implementation and the best profile disagree, shrunk and explained.

    ``hypotheses``/``references`` are the minimal input found by shrinking; ``original``
    describes the case it came from. ``score`` is the implementation's and ``expected`` the
    best profile's on the implementation's scale (``None`` when the profile raises).
    ``factor`` is a factor name of ``FACTORS`` (a configuration differing from the best
    profile in it reproduces the case) or a bug class outside the factor space
    (``clipping``, ``ngram_extraction``, ``brevity_penalty``, ``substring_counting``, or a
    probe behaviour); ``factors`` lists every factor or bug involved; ``matched_by`` names the
    configuration or bug model that reproduces the case; ``how`` says how it was found.
    """

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    score: float
    expected: float | None
    factor: str
    factors: tuple[str, ...]
    matched_by: str | None
    how: HowFound = field(metadata={"json": False})
    original: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Crash:
    """An input on which the implementation raised (shrunk), with the exception text."""

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    error: str
    count: int = field(default=1, metadata={"json_name": "cases_with_this_exception"})


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`~harness.diagnose.validate.validate` found. Scores are on the
    implementation's own ``scale``.

    ``n_scored`` of ``n_cases`` cases gave a finite score; ``no_score`` lists the others as
    ``(source, "no score: …")``. Every share below is a share of the scored cases.
    ``agreement_by_profile``: share of scored cases agreeing, per profile and sacrebleu
    variant (names like ``sacrebleu+ref_length=shortest``). ``readings``: the equal nearest
    readings (:class:`~harness.diagnose.validate.readings.Readings`), the leading one first;
    ``best_profile``: the leading reading's profile (or the one asked for with ``against``);
    ``agreement`` that profile's own share. ``matches``: every configuration that agrees on
    every scored case. ``fit``: the leading reading as changes from the best profile (with
    ``against``: the configuration reached from it by greedy changes). ``probes``: the probe
    battery against the fitted configuration. ``crash_count``: cases without a score
    (``crashes`` lists one example per kind of failure). ``precision``: the decimals the implementation rounds to
    (``None``: full precision); scores are compared within ``compared_within`` (half a unit of
    the last decimal, or ``tolerance``); ``rounding_explains``: scored cases the fit
    reproduces only at that precision. ``withheld``: why there is no diagnosis (too few scored
    cases, or the first :data:`~harness.diagnose.validate.run.STOP_AFTER_FAILURES` cases all
    failed alike and the other ``not_run`` cases were not run, or the scores do not show
    that they depend on the input); then ``best_profile`` and ``agreement`` are ``None`` and
    nothing is diagnosed. ``verdict``: ``"diagnosed"``, ``"no diagnosis"`` or
    :data:`~harness.diagnose.validate.evidence.IGNORES_INPUT` (a constant, or scores no
    configuration's correlate with). ``evidence``: what the scored cases show about that
    dependence (``None`` when too few cases gave a score to measure it). ``n_cases`` counts
    the cases run.
    """

    implementation: str
    scale: str
    scale_found: ScaleFinding
    n_cases: int
    n_fixture_cases: int
    seed: int
    tolerance: float
    agreement_by_profile: dict[str, float]
    best_profile: str | None
    matches: tuple[str, ...]
    matched_factors: tuple[str, ...]
    fit: dict[str, Any]
    deviations: tuple[Deviation, ...]
    crashes: tuple[Crash, ...]
    crash_count: int
    probes: tuple[Probe, ...]
    skipped: tuple[SkippedFixture, ...] = ()
    seconds: float = 0.0
    calls: int = 0
    n_scored: int = 0
    no_score: tuple[tuple[str, str], ...] = ()
    precision: int | None = None
    precision_found: PrecisionFinding = PrecisionFinding(PrecisionBy.NO_SCORE)
    rounding_explains: int = 0
    withheld: Withheld | None = None
    timeout: float | None = None
    not_run: int = 0
    evidence: Evidence | None = None
    readings: Readings | None = None

    @property
    def diagnosable(self) -> bool:
        """Whether enough cases gave a score for a diagnosis."""
        return self.withheld is None

    @property
    def verdict(self) -> Verdict:
        """``DIAGNOSED``, :data:`~harness.diagnose.validate.evidence.IGNORES_INPUT` when the
        scores do not depend on the input, else ``NO_DIAGNOSIS``."""
        if self.withheld is None:
            return Verdict.DIAGNOSED
        if self.evidence is not None and self.evidence.verdict is not None:
            return self.evidence.verdict
        return Verdict.NO_DIAGNOSIS

    @property
    def compared_within(self) -> float:
        """The absolute difference that still counts as agreement."""
        if self.precision is None:
            return self.tolerance
        return max(self.tolerance, 0.5 * 10.0**-self.precision + 1e-9)

    @property
    def agreement(self) -> float | None:
        """The best profile's agreement (share of scored cases, 0–1); ``None`` if withheld."""
        if self.best_profile is None:
            return None
        return self.agreement_by_profile[self.best_profile]

    @property
    def diagnosed_factors(self) -> tuple[str, ...]:
        """Factors and bug classes found: those every nearest reading needs
        (:attr:`~harness.diagnose.validate.readings.Readings.needed`; a factor some equal
        reading does without is not a finding; ``rounding`` when every one reproduces some
        case only at the printed precision), whichever profile ``against`` asked for. Empty
        when withheld."""
        if self.withheld is not None:
            return ()
        return () if self.readings is None else self.readings.needed
