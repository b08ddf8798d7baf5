"""Markdown of a validation report (:class:`harness.diagnose.validate.ValidationReport`).

What ``bleu-harness validate`` prints without ``--json``: the verdict (scale, precision, best
profile, matches, diagnosed factors), the fitted configuration, the agreement of the best
configurations, the shrunk deviations, the failures, the cases without a score and the probes.
"""

from __future__ import annotations

from harness.diagnose.validate import ValidationReport

__all__ = ["validation_markdown"]


def _precision_line(report: ValidationReport) -> str:
    if report.precision is None:
        return (
            f"* precision: full ({report.precision_reason}); compared within {report.tolerance:g}"
        )
    line = (
        f"* precision: **{report.precision} decimal(s)** ({report.precision_reason}); compared "
        f"within half a unit of the last decimal ({report.compared_within:.3g})"
    )
    if report.withheld is None:
        line += (
            f"; rounding explains {report.rounding_explains} case(s)"
            if report.rounding_explains
            else "; rounding explains no case"
        )
    return line


def _no_score_lines(report: ValidationReport, limit: int = 12) -> list[str]:
    lines = ["", f"## Cases without a score ({len(report.no_score)})", ""]
    if not report.no_score:
        return [*lines, "None."]
    for src, verdict in report.no_score[:limit]:
        lines.append(f"* {src}: {verdict}")
    if len(report.no_score) > limit:
        lines.append(f"* … and {len(report.no_score) - limit} more")
    return lines


def _crash_lines(report: ValidationReport) -> list[str]:
    lines = ["", "## Failures (one example per kind)", ""]
    if not report.crashes:
        lines.append("None.")
    for c in report.crashes:
        lines.append(
            f"* `{c.error}` on {c.count} case(s), e.g. hypotheses `{list(c.hypotheses)}`, "
            f"references `{[list(r) for r in c.references]}`"
        )
    return lines


def validation_markdown(report: ValidationReport) -> str:
    """The Markdown report of a validation: verdict, agreement table, fit, deviations,
    crashes, probes (or, when the diagnosis is withheld, why, and the failures)."""
    scored = f"{report.n_scored} of {report.n_cases} cases gave a score"
    source = f"{report.n_fixture_cases} from fixtures, the rest generated with seed {report.seed}"
    if report.withheld is not None:
        lines = [
            f"# Validation of `{report.implementation}`",
            "",
            f"* **no diagnosis**: {report.withheld}",
            f"* cases: {report.n_cases} ({source}); {scored}",
            f"* without a score: {report.crash_count} case(s)",
        ]
        if report.n_scored:
            lines.append(_precision_line(report))
        lines += _no_score_lines(report) + _crash_lines(report)
        if report.skipped:
            lines += ["", "Skipped: " + "; ".join(report.skipped)]
        return "\n".join(lines) + "\n"
    agreement = report.agreement or 0.0
    mad = report.fit.get("mean_abs_diff")
    mad_text = "n/a (no scored case where it gives a number)" if mad is None else f"{mad:.4g}"
    lines = [
        f"# Validation of `{report.implementation}`",
        "",
        f"* scale: **{report.scale}** — {report.scale_reason}",
        f"* cases: {report.n_cases} ({source}; tolerance {report.tolerance:g}); {scored}",
        _precision_line(report),
        f"* best profile: **{report.best_profile}**, agreement "
        f"{100 * agreement:.1f}% of the {report.n_scored} scored cases",
        "* matches on every scored case: "
        + (", ".join(f"`{m}`" for m in report.matches) if report.matches else "none"),
        f"* diagnosed: {', '.join(report.diagnosed_factors) or 'nothing'}",
        f"* without a score: {report.crash_count} case(s)",
        "",
        "## Fitted configuration",
        "",
        f"From `{report.fit['base']}`"
        + (
            " changing "
            + ", ".join(
                [f"{k}={v}" for k, v in report.fit["changes"].items()]
                + [f"with the mistake {b}" for b in report.fit["bugs"]]
            )
            if report.fit["changes"] or report.fit["bugs"]
            else " (no change improves the agreement)"
        )
        + f": agreement {100 * report.fit['agreement']:.1f}% of the {report.n_scored} scored "
        f"cases, mean |difference| {mad_text}.",
        "",
        "## Agreement per configuration (share of scored cases)",
        "",
        "| configuration | agreement |",
        "| --- | ---: |",
    ]
    ranked = sorted(report.agreement_by_profile.items(), key=lambda kv: -kv[1])
    for name, share in ranked[:15]:
        lines.append(f"| `{name}` | {100 * share:.1f}% |")
    lines += ["", "## Deviations from the best profile (shrunk)", ""]
    if not report.deviations:
        lines.append("None.")
    for i, d in enumerate(report.deviations, 1):
        exp = "raises" if d.expected is None else f"{d.expected:.6g}"
        lines += [
            f"{i}. **{d.factor}** ({d.source}): implementation {d.score:.6g}, "
            f"{report.best_profile} {exp}. {d.evidence}",
            f"   hypotheses `{list(d.hypotheses)}`, references `{[list(r) for r in d.references]}`",
        ]
    lines += _crash_lines(report) + _no_score_lines(report)
    lines += [
        "",
        "## Probes (against the fitted configuration, without modelled mistakes)",
        "",
        "| behaviour | probe | implementation | expected | ok |",
        "| --- | --- | ---: | ---: | :---: |",
    ]
    for p in report.probes:
        got = f"no score: {p.error}" if p.score is None else f"{p.score:.6g}"
        exp = "raises" if p.expected is None else f"{p.expected:.6g}"
        lines.append(
            f"| {p.behaviour} | {p.description} | {got} | {exp} | {'✓' if p.ok else '✗'} |"
        )
    if report.skipped:
        lines += ["", "Skipped: " + "; ".join(report.skipped)]
    return "\n".join(lines) + "\n"
