"""The words of a validation's facts, and the JSON of ``bleu-harness validate --json``.

:func:`harness.diagnose.validate.validate` returns facts: why a diagnosis is withheld
(:class:`~harness.diagnose.validate.results.Withheld`), how the scale and the precision were
read (:class:`~harness.diagnose.validate.results.ScaleFinding`,
:class:`~harness.diagnose.validate.results.PrecisionFinding`), what the evidence check found
(:class:`~harness.diagnose.validate.evidence.Evidence`), how each deviation was explained
(:class:`~harness.diagnose.validate.results.HowFound`) and which fixtures a command's battery
left out (:class:`~harness.diagnose.validate.cases.SkippedFixture`). This module says each in
words, for the plain-text report (:mod:`harness.report.validation`) and for the prose fields of
the JSON that :func:`validation_json` builds from the report.
"""

from __future__ import annotations

from typing import Any

from harness.diagnose.validate import ValidationReport
from harness.diagnose.validate.cases import SkipBecause, SkippedFixture
from harness.diagnose.validate.evidence import Evidence, EvidenceFinding, Verdict
from harness.diagnose.validate.results import (
    Deviation,
    FoundBy,
    HowFound,
    MistakesOn,
    PrecisionBy,
    ScaleBy,
    WithheldBecause,
)
from harness.typed_json import to_json

__all__ = [
    "VERDICT_WORDS",
    "deviation_json",
    "evidence_json",
    "evidence_reason",
    "how_found_words",
    "precision_reason",
    "scale_reason",
    "skipped_words",
    "validation_json",
    "withheld_words",
]

#: Each verdict as the report says it.
VERDICT_WORDS: dict[Verdict, str] = {
    Verdict.DIAGNOSED: "diagnosed",
    Verdict.NO_DIAGNOSIS: "no diagnosis",
    Verdict.IGNORES_INPUT: "not a BLEU implementation / ignores its input",
}

#: The configuration modelled mistakes were made on, as a deviation's explanation names it.
_ON_WORDS: dict[MistakesOn, str] = {
    MistakesOn.BEST_PROFILE: "best profile",
    MistakesOn.FITTED: "fitted configuration",
}


def evidence_reason(e: Evidence) -> str:
    """What the evidence check measured and concluded, in words."""
    n, compared = e.n_scored, e.compared
    if e.finding is EvidenceFinding.NOTHING_VARIES:
        return (
            f"no compared configuration's scores vary over these {n} cases: they cannot show "
            "what the scores depend on"
        )
    if e.finding is EvidenceFinding.CONSTANT:
        return (
            f"its {n} scored cases all gave the same score ({e.constant:g}) while the scores "
            f"of {compared} compared configurations vary over them: a constant does not "
            "depend on the input"
        )
    assert e.correlation is not None and e.p_value is not None
    stated = (
        f"{e.distinct} distinct scores over {n} scored cases; the best rank correlation with "
        f"any of {compared} configurations is {e.correlation:.2f} ({e.best_configuration}, "
        f"over {e.best_cases} cases), permutation p = {e.p_value:.3g} ({e.permutations} "
        "permutations)"
    )
    if e.finding is EvidenceFinding.NOT_FOLLOWED:
        return (
            f"{stated}: below {e.min_correlation:.2f}, its scores do not follow the input as "
            "any BLEU configuration's do"
        )
    if e.finding is EvidenceFinding.NOT_SIGNIFICANT:
        return (
            f"{stated}: on so few cases a correlation this high is no evidence (p above "
            f"{e.alpha:g}); run more cases"
        )
    return stated


def evidence_json(e: Evidence | None) -> dict[str, Any] | None:
    """The evidence as JSON: its fields, with the verdict and the reason in words after
    ``supports_diagnosis``."""
    if e is None:
        return None
    fields = to_json(e)
    verdict = None if e.verdict is None else VERDICT_WORDS[e.verdict]
    return {
        "supports_diagnosis": fields.pop("supports_diagnosis"),
        "verdict": verdict,
        "reason": evidence_reason(e),
        **fields,
    }


def withheld_words(report: ValidationReport) -> str | None:
    """Why the report gives no diagnosis, in words (``None``: it gives one)."""
    w = report.withheld
    if w is None:
        return None
    if w.because is WithheldBecause.EVIDENCE:
        assert report.evidence is not None
        return evidence_reason(report.evidence)
    if w.because is WithheldBecause.ALL_FAILED_ALIKE:
        return (
            f"only 0 of {w.n_cases} cases gave a finite score: the first {w.n_cases} all "
            f"failed the same way, so the other {w.not_run} were not run; "
            f"the first error: {w.first_error}"
        )
    return (
        f"only {w.n_scored} of {w.n_cases} cases gave a finite score; a diagnosis needs at "
        f"least {w.need} (at least {w.min_scored} and at least {w.min_share:.0%} of the "
        "cases), so none is given"
    )


def scale_reason(report: ValidationReport) -> str:
    """How the scale was detected, in words."""
    found = report.scale_found
    if found.by is ScaleBy.PERFECT_ONE:
        return "a perfect match (hypotheses identical to their references) scores 1.0"
    if found.by is ScaleBy.PERFECT_HUNDRED:
        return "a perfect match (hypotheses identical to their references) scores 100"
    if found.by is ScaleBy.NOT_DETECTED:
        return f"not detected: {withheld_words(report)}"
    got = found.error if found.score is None else f"{found.score:g}"
    return (
        f"a perfect match scores {got} (neither 1 nor 100); on {report.scale} more cases "
        f"agree with some profile ({100 * found.share:.0f}%); the largest score seen is "
        f"{found.largest}"
    )


def precision_reason(report: ValidationReport) -> str:
    """How the printed precision was read from the scores, in words."""
    p = report.precision_found
    if p.by is PrecisionBy.NO_SCORE:
        return "no case gave a score"
    if p.by is PrecisionBy.FULL:
        return f"full precision (up to {p.decimals} decimals)"
    if p.by is PrecisionBy.ALL_EXACT:
        return f"all {p.scores} scores have exactly {p.decimals} decimal(s)"
    return (
        f"none of {p.scores} scores has more than {p.decimals} decimal(s) ({p.exact} have "
        f"exactly {p.decimals}; the others end in zeros that are not printed)"
    )


def how_found_words(how: HowFound) -> str:
    """How a deviation was explained, in words."""
    if how.by is FoundBy.VARIANT:
        text = f"`{how.name}` reproduces it"
        if how.factors:
            text += f" (so do changes of {', '.join(how.factors)})"
        if how.also:
            text += f"; on this input so do changes of {', '.join(how.also)}"
        return text
    if how.by is FoundBy.MISTAKES:
        assert how.on is not None
        whose = f"the {_ON_WORDS[how.on]}'s" if how.name is None else f"`{how.name}`'s"
        return (
            f"no configuration of the fitted kind reproduces it; {whose} arithmetic with the "
            f"mistake(s) {', '.join(how.mistakes)} does"
        )
    if how.by is FoundBy.FIT:
        return "the fitted configuration reproduces it"
    if how.by is FoundBy.OTHER_CONFIGURATION:
        return (
            f"`{how.name}` reproduces it (differs from {how.best_profile} in "
            f"{', '.join(how.factors)})"
        )
    if how.by is FoundBy.PROBE:
        return (
            f"no configuration or modelled mistake reproduces it; the '{how.name}' probe fails "
            "and this input exercises it"
        )
    return "nothing reproduces it and no probe points to it"


def deviation_json(d: Deviation) -> dict[str, Any]:
    """A deviation as JSON: its fields, with how it was found in words (``evidence``) before
    ``original``."""
    fields = to_json(d)
    original = fields.pop("original")
    return {**fields, "evidence": how_found_words(d.how), "original": original}


def skipped_words(s: SkippedFixture) -> str:
    """A fixture left out of a command's battery, and why."""
    if s.because is SkipBecause.RAGGED:
        return f"{s.name} (ragged references cannot be written as files)"
    return f"{s.name} ({s.streams} reference streams; the command template names {s.named})"


def validation_json(report: ValidationReport) -> dict[str, Any]:
    """The JSON of ``bleu-harness validate --json``: the report's facts, the derived
    properties (``diagnosis``, ``verdict``, ``agreement``, ``diagnosed_factors``,
    ``compared_within``) and the reasons in words, in the order the JSON has always had."""
    return {
        "implementation": report.implementation,
        "diagnosis": report.withheld is None,
        "verdict": VERDICT_WORDS[report.verdict],
        "withheld": withheld_words(report),
        "evidence": evidence_json(report.evidence),
        "scale": report.scale,
        "scale_reason": scale_reason(report),
        "best_profile": report.best_profile,
        "agreement": report.agreement,
        "n_scored": report.n_scored,
        "matches": list(report.matches),
        "matched_factors": list(report.matched_factors),
        "diagnosed_factors": list(report.diagnosed_factors),
        "readings": to_json(report.readings),
        "precision": report.precision,
        "precision_reason": precision_reason(report),
        "compared_within": report.compared_within,
        "rounding_explains": report.rounding_explains,
        "fit": report.fit,
        "deviations": [deviation_json(d) for d in report.deviations],
        "crashes": to_json(report.crashes),
        "crash_count": report.crash_count,
        "no_score": [{"source": src, "verdict": v} for src, v in report.no_score],
        "agreement_by_profile": dict(report.agreement_by_profile),
        "probes": to_json(report.probes),
        "n_cases": report.n_cases,
        "n_fixture_cases": report.n_fixture_cases,
        "seed": report.seed,
        "tolerance": report.tolerance,
        "timeout": report.timeout,
        "skipped": [skipped_words(s) for s in report.skipped],
        "not_run": report.not_run,
        "seconds": report.seconds,
        "implementation_calls": report.calls,
    }
