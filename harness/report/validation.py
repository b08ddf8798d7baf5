"""Plain text of a validation report (:class:`harness.diagnose.validate.ValidationReport`).

What ``bleu-harness validate`` prints without ``--json``: the verdict (the nearest reading and
the readings equal to it, the diagnosed factors, best profile, scale, precision, matches), the
fitted configuration, the agreement of the best configurations, the shrunk deviations, the
failures, the cases without a score and the probes; the reasons and explanations in words are
:mod:`harness.report.validation_words`'s.
Plain text for a terminal: no Markdown markup, every line at most :data:`WIDTH` columns (long
values wrap under their label).
"""

from __future__ import annotations

import textwrap

from harness.diagnose.validate import ValidationReport
from harness.diagnose.validate.evidence import Verdict
from harness.diagnose.validate.readings import Reading, Readings
from harness.report.validation_words import (
    VERDICT_WORDS,
    evidence_reason,
    how_found_words,
    precision_reason,
    scale_reason,
    skipped_words,
    withheld_words,
)

__all__ = [
    "WIDTH",
    "could_not_validate_line",
    "interrupted_line",
    "reading_words",
    "validation_text",
    "withheld_line",
]

#: The widest line printed.
WIDTH = 100


def _field(label: str, text: str) -> list[str]:
    """``label: text``, wrapped with a hanging indent."""
    return textwrap.wrap(
        f"{label}: {text}",
        WIDTH,
        initial_indent="  ",
        subsequent_indent="      ",
        break_on_hyphens=False,
    )


def _item(first: str, *more: str, indent: int = 2) -> list[str]:
    """A list item: ``first`` wrapped after ``indent`` spaces, ``more`` lines under it."""
    pad = " " * indent
    lines = textwrap.wrap(first, WIDTH, initial_indent=pad, subsequent_indent=pad + "  ")
    for m in more:
        lines += textwrap.wrap(m, WIDTH, initial_indent=pad + "  ", subsequent_indent=pad + "    ")
    return lines


def _section(title: str) -> list[str]:
    return ["", f"{title}:"]


def _precision(report: ValidationReport) -> str:
    if report.precision is None:
        return f"{precision_reason(report)}; compared within {report.tolerance:g}"
    text = (
        f"{report.precision} decimal(s) ({precision_reason(report)}); compared within half a "
        f"unit of the last decimal ({report.compared_within:.3g})"
    )
    if report.withheld is None:
        text += (
            f"; rounding explains {report.rounding_explains} case(s)"
            if report.rounding_explains
            else "; rounding explains no case"
        )
    return text


def _cases(report: ValidationReport, scored: bool = True) -> str:
    source = f"{report.n_fixture_cases} from fixtures, the rest generated with seed {report.seed}"
    text = f"{report.n_cases} run ({source}"
    text += f"; tolerance {report.tolerance:g})" if scored else ")"
    if report.not_run:
        text += f", {report.not_run} not run"
    return text + f"; {report.n_scored} of {report.n_cases} cases gave a score"


def _no_score_lines(report: ValidationReport, limit: int = 12) -> list[str]:
    lines = _section(f"Cases without a score ({len(report.no_score)})")
    if not report.no_score:
        return [*lines, "  none"]
    for src, verdict in report.no_score[:limit]:
        lines += _item(f"{src}: {verdict}")
    if len(report.no_score) > limit:
        lines.append(f"  ... and {len(report.no_score) - limit} more")
    return lines


def _crash_lines(report: ValidationReport) -> list[str]:
    lines = _section("Failures (one example per kind)")
    if not report.crashes:
        lines.append("  none")
    for c in report.crashes:
        lines += _item(
            f"{c.error} (on {c.count} case(s)), e.g.",
            f"hypotheses {list(c.hypotheses)}",
            f"references {[list(r) for r in c.references]}",
        )
    return lines


def _skipped(report: ValidationReport) -> list[str]:
    if not report.skipped:
        return []
    return _section(f"Skipped ({len(report.skipped)})") + [
        line for s in report.skipped for line in _item(skipped_words(s))
    ]


def reading_words(reading: Reading) -> str:
    """A reading in words: ``sacrebleu with smooth=none``, ``torchmetrics-sacrebleu with
    ref_length=closest and the mistake clip-none``, ``sacrebleu as it is``, ``… and rounding
    to the printed precision``; the profiles that give the same configuration, and how many
    other values of its factors agree as well, follow in brackets."""
    changes = [f"{k}={v}" for k, v in reading.changes]
    mistakes = ""
    if reading.bugs:
        word = "mistakes" if len(reading.bugs) > 1 else "mistake"
        mistakes = f"the {word} {', '.join(reading.bugs)}"
    rounding = ""
    if "rounding" in reading.needs and "rounding" not in reading.factors:
        rounding = f"rounding to the printed precision ({reading.rounds} case(s) need it)"
    parts = [p for p in (", ".join(changes), mistakes, rounding) if p]
    text = f"{reading.profile} with {' and '.join(parts)}" if parts else reading.profile
    if not parts:
        text += " as it is"
    notes = []
    if reading.same:
        notes.append(f"the same as {', '.join(reading.same)}")
    if reading.other_values:
        notes.append(f"or {reading.other_values} other value(s) of {', '.join(reading.factors)}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _reading_lines(readings: Readings, n_scored: int) -> tuple[list[str], str]:
    """The nearest reading and the readings equal to it; and, when none of them needs any
    change, why nothing is diagnosed."""
    lead = readings.lead
    where = (
        f"on all {n_scored} scored cases"
        if readings.everywhere
        else f"on {100 * lead.agreement:.1f}% of the {n_scored} scored cases (no candidate "
        "reproduces every case)"
    )
    lines = _field("reads as", f"{reading_words(lead)}, {where}")
    if len(readings.readings) > 1:
        lines += _field("equally", "; ".join(reading_words(r) for r in readings.readings[1:]))
    if lead.steps == 0:
        diagnosed = "nothing (a named profile as it is)"
    else:
        diagnosed = (
            "nothing (the equal readings need different changes: "
            + "; ".join(dict.fromkeys(", ".join(r.needs) for r in readings.readings))
            + ")"
        )
    return lines, diagnosed


def _fit_text(report: ValidationReport) -> str:
    fit = report.fit
    mad = fit.get("mean_abs_diff")
    mad_text = "n/a (no scored case where it gives a number)" if mad is None else f"{mad:.4g}"
    changes = [f"{k}={v}" for k, v in fit["changes"].items()]
    how = " changing " + ", ".join(changes) if changes else ""
    if fit["bugs"]:
        how += " with the mistake(s) " + ", ".join(fit["bugs"])
    how = how or " (no change improves the agreement)"
    return (
        f"from {fit['base']}{how}: agreement {100 * fit['agreement']:.1f}% of the "
        f"{report.n_scored} scored cases, mean |difference| {mad_text}"
    )


def validation_text(report: ValidationReport) -> str:
    """The plain-text report of a validation: verdict, fit, agreement per configuration,
    deviations, failures, cases without a score, probes (or, when the diagnosis is withheld,
    the verdict when the subject ignores its input, why, and the failures: never a factor)."""
    lines = [f"Validation of {report.implementation}", ""]
    withheld = withheld_words(report)
    if withheld is not None:
        if report.verdict is not Verdict.NO_DIAGNOSIS:
            lines += _field("verdict", VERDICT_WORDS[report.verdict])
        lines += _field("no diagnosis", withheld)
        lines += _field("cases", _cases(report, scored=False))
        lines += _field("without a score", f"{report.crash_count} case(s)")
        if report.n_scored:
            lines += _field("precision", _precision(report))
        lines += _no_score_lines(report) + _crash_lines(report) + _skipped(report)
        return "\n".join(lines) + "\n"
    agreement = report.agreement or 0.0
    nothing = "nothing"
    if report.readings is not None:
        reading_lines, nothing = _reading_lines(report.readings, report.n_scored)
        lines += reading_lines
    lines += _field("diagnosed", ", ".join(report.diagnosed_factors) or nothing)
    lines += _field(
        "best profile",
        f"{report.best_profile}, agreement {100 * agreement:.1f}% of the {report.n_scored} "
        "scored cases",
    )
    lines += _field("scale", f"{report.scale}: {scale_reason(report)}")
    lines += _field("cases", _cases(report))
    lines += _field("precision", _precision(report))
    lines += _field("match everywhere", ", ".join(report.matches) or "none")
    lines += _field("without a score", f"{report.crash_count} case(s)")
    if report.evidence is not None:
        lines += _field("depends on its input", evidence_reason(report.evidence))
    lines += _section("Fitted configuration") + _item(_fit_text(report))

    lines += _section("Agreement per configuration (share of scored cases, best 15)")
    ranked = sorted(report.agreement_by_profile.items(), key=lambda kv: -kv[1])[:15]
    width = max((len(name) for name, _ in ranked), default=0)
    if width + 10 > WIDTH:
        width = WIDTH - 10
    for name, share in ranked:
        lines.append(f"  {name:<{width}} {100 * share:6.1f}%")

    lines += _section(f"Deviations from {report.best_profile} (shrunk)")
    if not report.deviations:
        lines.append("  none")
    for i, d in enumerate(report.deviations, 1):
        exp = "raises" if d.expected is None else f"{d.expected:.6g}"
        lines += _item(
            f"{i}. {', '.join(d.factors) or d.factor} ({d.source}): implementation "
            f"{d.score:.6g}, {report.best_profile} {exp}. {how_found_words(d.how)}",
            f"hypotheses {list(d.hypotheses)}",
            f"references {[list(r) for r in d.references]}",
        )
    lines += _crash_lines(report) + _no_score_lines(report)

    lines += _section("Probes (against the fitted configuration, without modelled mistakes)")
    for p in report.probes:
        got = f"no score: {p.error}" if p.score is None else f"{p.score:.6g}"
        exp = "raises" if p.expected is None else f"{p.expected:.6g}"
        mark = "ok  " if p.ok else "FAIL"
        lines += _item(
            f"{mark} {p.behaviour}: {p.description}; implementation {got}, expected {exp}"
        )
    lines += _skipped(report)
    return "\n".join(lines) + "\n"


def could_not_validate_line(error: str) -> str:
    """The standard-error line of a validation that could not start (``error``: why)."""
    return f"bleu-harness: could not validate: {error}"


def interrupted_line(signal_name: str) -> str:
    """The standard-error line of a validation stopped by the signal ``signal_name``."""
    return (
        f"bleu-harness: validate interrupted by {signal_name}; "
        "the running command was killed and temporary files removed"
    )


def withheld_line(report: ValidationReport) -> str:
    """The standard-error line of a validation that gives no diagnosis: the verdict (or
    ``could not validate``) and why."""
    nothing = report.verdict is Verdict.NO_DIAGNOSIS
    why = "could not validate" if nothing else VERDICT_WORDS[report.verdict]
    return f"bleu-harness: {why}: {withheld_words(report)}"
