"""What :func:`~harness.diagnose.validate.validate` found: data only.

:class:`ValidationReport` holds the verdict (scale, best profile, agreement per configuration,
readings, fit, precision), the :class:`Deviation` cases (shrunk and explained), the :class:`Crash`
examples and the probes; :func:`harness.typed_json.to_json` writes each as JSON, and
``ValidationReport.to_dict`` the report (it adds the properties: verdict, agreement, diagnosed
factors, the comparison's tolerance). The plain-text report is rendered by
:func:`harness.report.validation.validation_text`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.diagnose.validate.evidence import Evidence
from harness.diagnose.validate.probes import Probe
from harness.diagnose.validate.readings import Readings
from harness.typed_json import to_json

__all__ = ["Crash", "Deviation", "ValidationReport"]


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
    configuration or bug model that reproduces the case; ``evidence`` says how it was found.
    """

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    score: float
    expected: float | None
    factor: str
    factors: tuple[str, ...]
    matched_by: str | None
    evidence: str
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
    scale_reason: str
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
    skipped: tuple[str, ...] = ()
    seconds: float = 0.0
    calls: int = 0
    n_scored: int = 0
    no_score: tuple[tuple[str, str], ...] = ()
    precision: int | None = None
    precision_reason: str = ""
    rounding_explains: int = 0
    withheld: str | None = None
    timeout: float | None = None
    not_run: int = 0
    evidence: Evidence | None = None
    readings: Readings | None = None

    @property
    def diagnosable(self) -> bool:
        """Whether enough cases gave a score for a diagnosis."""
        return self.withheld is None

    @property
    def verdict(self) -> str:
        """``"diagnosed"``, :data:`~harness.diagnose.validate.evidence.IGNORES_INPUT` when
        the scores do not depend on the input, else ``"no diagnosis"``."""
        if self.withheld is None:
            return "diagnosed"
        if self.evidence is not None and self.evidence.verdict is not None:
            return self.evidence.verdict
        return "no diagnosis"

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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the fields and the derived properties (``diagnosis``, ``verdict``,
        ``agreement``, ``diagnosed_factors``, ``compared_within``) in the order the JSON has
        always had, which is why it is written by hand."""
        return {
            "implementation": self.implementation,
            "diagnosis": self.withheld is None,
            "verdict": self.verdict,
            "withheld": self.withheld,
            "evidence": to_json(self.evidence),
            "scale": self.scale,
            "scale_reason": self.scale_reason,
            "best_profile": self.best_profile,
            "agreement": self.agreement,
            "n_scored": self.n_scored,
            "matches": list(self.matches),
            "matched_factors": list(self.matched_factors),
            "diagnosed_factors": list(self.diagnosed_factors),
            "readings": None if self.readings is None else self.readings.to_dict(),
            "precision": self.precision,
            "precision_reason": self.precision_reason,
            "compared_within": self.compared_within,
            "rounding_explains": self.rounding_explains,
            "fit": self.fit,
            "deviations": to_json(self.deviations),
            "crashes": to_json(self.crashes),
            "crash_count": self.crash_count,
            "no_score": [{"source": src, "verdict": v} for src, v in self.no_score],
            "agreement_by_profile": dict(self.agreement_by_profile),
            "probes": to_json(self.probes),
            "n_cases": self.n_cases,
            "n_fixture_cases": self.n_fixture_cases,
            "seed": self.seed,
            "tolerance": self.tolerance,
            "timeout": self.timeout,
            "skipped": list(self.skipped),
            "not_run": self.not_run,
            "seconds": self.seconds,
            "implementation_calls": self.calls,
        }
