"""The validator's one entry point, :func:`validate`: run the subject, then diagnose it.

Steps: run every case; withhold the diagnosis when too few cases gave a score, or when the
scores do not depend on the input (:mod:`~harness.diagnose.validate.evidence`); detect the
printed precision and the scale; measure every configuration of the pool; fit; read (the
nearest readings and what every one needs); run the probes; explain the first deviations from
the leading reading's profile; collect the crashes.
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.bleu.profiles import PROFILES
from harness.diagnose.validate.cases import Case, fixture_cases, generate_cases
from harness.diagnose.validate.classify import Classifier, find_crashes, find_deviations
from harness.diagnose.validate.evidence import input_dependence
from harness.diagnose.validate.fit import fit, fit_summary
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.probes import run_probes
from harness.diagnose.validate.readings import find_readings, rounded_cases
from harness.diagnose.validate.results import (
    PrecisionBy,
    PrecisionFinding,
    ScaleBy,
    ScaleFinding,
    ValidationReport,
    Withheld,
    WithheldBecause,
)
from harness.diagnose.validate.subjects import Impl, Outcome, Subject, run
from harness.diagnose.validate.variants import pool
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.session import Session
from harness.session.cache import StatisticsCache
from harness.statistics.resampling import DEFAULT_SEED

__all__ = [
    "MAX_ROUNDED_DECIMALS",
    "MIN_SCORED",
    "MIN_SCORED_SHARE",
    "STOP_AFTER_FAILURES",
    "CouldNotValidate",
    "ValidateOptions",
    "validate",
]

#: A diagnosis needs at least this many cases with a finite score …
MIN_SCORED = 5
#: … and at least this share of all cases; otherwise :func:`validate` withholds it.
MIN_SCORED_SHARE = 0.5
#: When this many first cases all give no score with the same kind of failure (a broken
#: command, an exit status that is never 0, a function that always raises), the other cases
#: are not run and the diagnosis is withheld (the CLI exits 3).
STOP_AFTER_FAILURES = 5
#: A subject whose scores never have more decimals than this is taken to round to that many.
MAX_ROUNDED_DECIMALS = 8
#: The statistics a validation keeps in memory (the least recently used are dropped beyond
#: it): shrinking deviations and crashes scores thousands of small corpora once each.
_CACHE_ENTRIES = 4096


class CouldNotValidate(HarnessError):
    """The implementation could not be validated at all (it timed out, or printed more than a
    score's worth of output, on its first call).

    The CLI exits with status 3 on it (2 stays for usage and input errors)."""


#: What a first call that fails this way says about every later one: each would fail alike
#: (and a hang would cost the full timeout each time), so the run stops at once.
_FATAL_FIRST = {
    "CommandTimeout": "the command timed out on its first call ({timeout:g} s per call; raise "
    "--timeout if it is just slow); nothing was validated: {error}",
    "CommandOutputTooLarge": "the command's first call gave no score: {error}; nothing was "
    "validated",
}


#: A perfect match (each hypothesis its own reference), which a BLEU scores at the top of its
#: scale.
_SCALE_PROBE = Case(
    "scale-probe",
    ("the cat sat on the mat today", "a dog ran in the big park"),
    (("the cat sat on the mat today",), ("a dog ran in the big park",)),
)


def _detect_scale(
    subject: Subject, judge: Judge, cases: Sequence[Case], outs: Sequence[Outcome]
) -> tuple[str, ScaleFinding]:
    """``("0-1" | "0-100", how)``: from a perfect match, else from whichever scale agrees
    with more profiles (``judge.factor`` is left at the last scale tried)."""
    perfect = _SCALE_PROBE
    out = run(subject, perfect)
    if out.value is not None and abs(out.value - 1.0) <= 1e-6:
        return "0-1", ScaleFinding(ScaleBy.PERFECT_ONE)
    if out.value is not None and abs(out.value - 100.0) <= 1e-4:
        return "0-100", ScaleFinding(ScaleBy.PERFECT_HUNDRED)
    best = ("0-100", -1.0)
    for scale, factor in (("0-1", 0.01), ("0-100", 1.0)):
        judge.factor = factor
        share = max(judge.agreement(cases, outs, cfg)[0] for cfg in PROFILES.values())
        if share > best[1]:
            best = (scale, share)
    top = max((o.value for o in outs if o.value is not None), default=None)
    error = out.error if out.value is None else None
    return best[0], ScaleFinding(ScaleBy.AGREEMENT, out.value, error, best[1], top)


def _detect_precision(outs: Sequence[Outcome]) -> tuple[int | None, PrecisionFinding]:
    """The number of decimals the implementation gives its scores with (``None``: full
    precision): the most decimals of any scored case, when that is at most
    :data:`MAX_ROUNDED_DECIMALS`; and how it was read."""
    decs = [o.decimals for o in outs if o.value is not None and o.decimals is not None]
    if not decs:
        return None, PrecisionFinding(PrecisionBy.NO_SCORE)
    d = max(decs)
    if d > MAX_ROUNDED_DECIMALS:
        return None, PrecisionFinding(PrecisionBy.FULL, d, len(decs))
    exact = sum(1 for x in decs if x == d)
    by = PrecisionBy.ALL_EXACT if exact == len(decs) else PrecisionBy.AT_MOST
    return d, PrecisionFinding(by, d, len(decs), exact)


def _all_fail_alike(outs: Sequence[Outcome]) -> bool:
    """No score on any of ``outs``, each for the same kind of reason (exception type and the
    first words of its message: a non-zero exit's status, not its varying stderr)."""
    kinds = {(o.exc_type, (o.error or "").split(";", 1)[0]) for o in outs if o.value is None}
    return len(kinds) == 1 and all(o.value is None for o in outs)


def _too_few_scored(n_scored: int, n_cases: int) -> Withheld | None:
    need = max(MIN_SCORED, math.ceil(MIN_SCORED_SHARE * n_cases))
    if n_scored >= need:
        return None
    return Withheld(
        WithheldBecause.TOO_FEW_SCORED,
        n_scored,
        n_cases,
        need=need,
        min_scored=MIN_SCORED,
        min_share=MIN_SCORED_SHARE,
    )


def named_profiles(name: str) -> tuple[str, ...]:
    """The profiles the subject's name mentions (its command line or ``module:function``),
    as a whole word: ``perl multi-bleu.perl {ref} < {hyp}`` names ``multi-bleu`` (not
    ``multi-bleu-detok``), ``homemade:sacrebleu_like`` names ``sacrebleu``."""
    return tuple(
        p for p in PROFILES if re.search(rf"(?<![A-Za-z0-9-]){re.escape(p)}(?![A-Za-z0-9-])", name)
    )


def simplest_profile(
    agreement: dict[str, float],
    scores: dict[str, tuple[float, float]],
    named: Sequence[str] = (),
) -> str:
    """The profile the fit starts from: among the named profiles with the highest agreement
    (exactly equal shares), the one the subject's name mentions (:func:`named_profiles`),
    then the smallest mean |difference|, then :data:`~harness.bleu.profiles.PROFILES` order."""
    top = max(agreement[p] for p in PROFILES)
    tied = [p for p in PROFILES if agreement[p] == top]
    order = list(PROFILES)
    return min(tied, key=lambda p: (p not in named, scores[p][1], order.index(p)))


@dataclass(frozen=True)
class ValidateOptions:
    """How :func:`validate` runs: ``cases`` generated corpora (seeded by ``seed``) besides
    every fixture's systems (``fixtures=False`` leaves those out); ``tolerance``: the absolute
    difference that still agrees, on the implementation's scale; at most ``max_deviations``
    deviations explained; ``against``: the profile the implementation means to reproduce
    (``None``: the leading reading's); ``shrink_budget``: the implementation calls per shrink
    (``None``: 300, or 60 for a command); ``timeout``: seconds per call of a command
    (``None``: :data:`~harness.diagnose.validate.subjects.DEFAULT_TIMEOUT`)."""

    cases: int = 300
    seed: int = DEFAULT_SEED
    tolerance: float = 1e-6
    max_deviations: int = 8
    fixtures: bool = True
    against: str | None = None
    shrink_budget: int | None = None
    timeout: float | None = None


def validate(
    impl: Impl | str | None = None,
    *,
    cmd: str | None = None,
    options: ValidateOptions | None = None,
    progress: ProgressCallback | None = None,
    **settings: Any,
) -> ValidationReport:
    """Validate ``impl`` (or the shell command ``cmd``) against the profiles, as ``options``
    (:class:`ValidateOptions`) say; ``settings`` are :class:`ValidateOptions` fields that
    replace those of ``options`` (``validate(f, cases=20)``: a short call; an unknown name
    raises ``TypeError``).

    ``impl(hypotheses, references)`` takes a list of strings and per-segment reference lists
    and returns a number (or an object with a ``score``); ``"module:function"`` is imported.
    ``cmd`` is a :class:`~harness.scorers.command.CommandAdapter` template such as
    ``"perl multi-bleu.perl {ref} < {hyp}"`` whose printed number is read as is (generated
    corpora then have the same number of references in every segment, and ragged fixtures are
    skipped); each call may take ``timeout`` seconds (default
    :data:`~harness.diagnose.validate.subjects.DEFAULT_TIMEOUT`) and then has its process
    group killed. ``cases`` generated corpora (seeded by ``seed``) are
    added to every fixture's systems (``fixtures=False`` leaves those out). ``tolerance`` is
    absolute, on the implementation's scale; when the implementation rounds (its scores never
    have more than ``d`` decimals, ``d`` ≤ :data:`MAX_ROUNDED_DECIMALS`) the comparison
    tolerance is half a unit of the ``d``-th decimal (plus float slack), and ``rounding`` is
    diagnosed when that explains cases the raw tolerance does not. ``against`` names the
    profile the implementation means to reproduce (default: the leading reading's,
    :mod:`~harness.diagnose.validate.readings`). At most ``max_deviations`` deviations are
    explained (two per factor, to show variety); ``shrink_budget`` caps the implementation calls per shrink (default 300, 60
    for a command).

    A case on which the implementation gives no finite score in [0, 100] (it raises, exits
    non-zero, times out, prints nothing readable, returns None, a string, NaN or ±inf) has the
    verdict ``"no score: …"`` and takes no part in agreements and differences, which are
    shares of the *scored* cases. With fewer than :data:`MIN_SCORED` scored cases or fewer
    than :data:`MIN_SCORED_SHARE` of all cases, the report has no diagnosis
    (``withheld`` says why). Nor has it when the scores do not depend on the input as a BLEU
    configuration's do (:func:`~harness.diagnose.validate.evidence.input_dependence`: a
    constant, or no configuration's scores correlate with them; ``verdict`` is then
    :data:`~harness.diagnose.validate.evidence.IGNORES_INPUT`, and ``evidence`` says what
    was measured). A command that times out, or prints more than a score's worth of output,
    on its first call raises :class:`CouldNotValidate`. ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each case run (stage
    ``"validate: cases"``) and each later step (``"validate: analysis"``).
    """
    o = dataclasses.replace(options or ValidateOptions(), **settings)
    cases, seed, tolerance, against = o.cases, o.seed, o.tolerance, o.against
    t0 = time.perf_counter()
    subject = Subject(impl, cmd, o.timeout if cmd is not None else None)
    if against is not None and against not in PROFILES:
        raise ConfigError(f"unknown profile {against!r}", valid=list(PROFILES))
    budget = o.shrink_budget if o.shrink_budget is not None else (60 if cmd is not None else 300)
    # the run's one session: the engine's statistics in memory only, for this run
    judge = Judge(tolerance, Session(cache=StatisticsCache(max_entries=_CACHE_ENTRIES)))
    battery, skipped = (
        fixture_cases(subject.rectangular, subject.streams) if o.fixtures else ([], [])
    )
    n_fixture = len(battery)
    battery = battery + generate_cases(
        cases, seed=seed, rectangular=subject.rectangular, streams=subject.streams
    )
    if not battery:
        raise ConfigError("nothing to validate on: no fixtures and cases=0")
    n_battery = len(battery)
    outs: list[Outcome] = []
    stopped: Withheld | None = None
    for c in track(battery, progress, "validate: cases"):
        out = run(subject, c)
        if not outs and out.exc_type in _FATAL_FIRST:
            raise CouldNotValidate(
                _FATAL_FIRST[out.exc_type].format(timeout=subject.timeout, error=out.error)
            )
        outs.append(out)
        if len(outs) == STOP_AFTER_FAILURES < len(battery) and _all_fail_alike(outs):
            stopped = Withheld(
                WithheldBecause.ALL_FAILED_ALIKE,
                0,
                len(outs),
                not_run=len(battery) - len(outs),
                first_error=outs[0].error,
            )
            battery = battery[: len(outs)]
            break
    no_score = tuple(
        (c.source, o.verdict) for c, o in zip(battery, outs, strict=True) if o.value is None
    )
    crash_count = len(no_score)
    scored = [(c, o) for c, o in zip(battery, outs, strict=True) if o.value is not None]
    s_cases = [c for c, _ in scored]
    s_outs = [o for _, o in scored]
    withheld = stopped or _too_few_scored(len(scored), len(battery))
    precision, precision_found = _detect_precision(s_outs)
    common: dict[str, Any] = {
        "implementation": subject.name,
        "n_cases": len(battery),
        "n_fixture_cases": min(n_fixture, len(battery)),
        "seed": seed,
        "tolerance": tolerance,
        "n_scored": len(scored),
        "no_score": no_score,
        "precision": precision,
        "precision_found": precision_found,
        "timeout": subject.timeout if cmd is not None else None,
        "skipped": tuple(skipped),
        "not_run": n_battery - len(battery),
    }
    configs = pool()
    evidence = None
    if withheld is None:
        # before any fitting: a fit finds a nearest configuration for any numbers at all
        evidence = input_dependence(
            judge, s_cases, s_outs, [(name, cfg) for name, cfg, _ in configs], seed=seed
        )
        if not evidence.supports_diagnosis:
            withheld = Withheld(WithheldBecause.EVIDENCE, len(scored), len(battery))
        common["evidence"] = evidence
    if withheld is not None:
        crashes = find_crashes(subject, battery, outs, budget, shrink_them=False)
        return ValidationReport(
            scale="unknown",
            scale_found=ScaleFinding(ScaleBy.NOT_DETECTED),
            agreement_by_profile={},
            best_profile=None,
            matches=(),
            matched_factors=(),
            fit={},
            deviations=(),
            crashes=tuple(crashes),
            crash_count=crash_count,
            probes=(),
            withheld=withheld,
            seconds=time.perf_counter() - t0,
            calls=subject.calls,
            **common,
        )
    step: Callable[[int], None] = (
        (lambda d: progress("validate: analysis", d, 4)) if progress else (lambda d: None)
    )
    step(0)

    if precision is not None:
        judge.tolerance = max(tolerance, 0.5 * 10.0**-precision + 1e-9)
    scale, scale_found = _detect_scale(subject, judge, s_cases, s_outs)
    judge.factor = 0.01 if scale == "0-1" else 1.0

    scores = {name: judge.agreement(s_cases, s_outs, cfg) for name, cfg, _ in configs}
    agreement = {name: s[0] for name, s in scores.items()}
    matches = tuple(name for name, _, _ in configs if agreement[name] == 1.0)
    matched_factors = tuple(
        dict.fromkeys(f for name, _, f in configs if f is not None and agreement[name] == 1.0)
    )
    named = named_profiles(subject.name)
    start = against or simplest_profile(agreement, scores, named)
    step(1)
    fit_model, fit_score = fit(judge, s_cases, s_outs, PROFILES[start], scores[start])
    readings = find_readings(
        judge, s_cases, s_outs, fit_model, fit_score[0], named, tolerance=tolerance
    )
    step(2)
    best_profile = against or readings.lead.profile
    if against is None:
        # the answer leads with the nearest reading; the fit is stated as that reading
        fit_model = readings.lead.model
        fit_score = judge.agreement(s_cases, s_outs, fit_model)
    best_cfg = PROFILES[best_profile]
    summary = fit_summary(best_profile, best_cfg, fit_model, fit_score)
    rounding = rounded_cases(judge, s_cases, s_outs, fit_model, tolerance)

    probes = run_probes(subject, judge, fit_model.cfg)
    failing_probes = {p.behaviour for p in probes if not p.ok}
    step(3)
    classifier = Classifier(judge, best_profile, best_cfg, fit_model, configs, failing_probes)
    deviations = find_deviations(subject, classifier, s_cases, s_outs, o.max_deviations, budget)
    crashes = find_crashes(subject, battery, outs, budget)
    step(4)

    return ValidationReport(
        scale=scale,
        scale_found=scale_found,
        agreement_by_profile=agreement,
        best_profile=best_profile,
        matches=matches,
        matched_factors=matched_factors,
        readings=readings,
        fit=summary,
        deviations=tuple(deviations),
        crashes=tuple(crashes),
        crash_count=crash_count,
        probes=probes,
        rounding_explains=rounding,
        seconds=time.perf_counter() - t0,
        calls=subject.calls,
        **common,
    )
