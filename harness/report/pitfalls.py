"""The console table of ``bleu-harness pitfalls``: one block per experiment."""

from __future__ import annotations

from collections.abc import Sequence

from harness.pitfalls import ExperimentResult
from harness.report.console import wrap


def format_table(results: Sequence[ExperimentResult]) -> str:
    """A console report: one block per experiment with its verdict, claim, source and reason."""
    if not results:
        return "(no experiments)"
    # One block per experiment, wrapped to the console width: name and verdict, then the
    # claim, source and reason indented under it.
    lines = []
    for r in results:
        lines.append(wrap(f"{r.name}: {r.verdict.text}", indent="    ", first=""))
        for label, text in (
            ("claim", r.experiment.claim),
            ("source", r.experiment.source),
            ("reason", r.verdict.reason),
        ):
            lines.append(wrap(f"{label}: {text}", indent="      ", first="  "))
        lines.append(f"  ({r.seconds:.1f} s)")
        lines.append("")
    total = sum(r.seconds for r in results)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict.status] = counts.get(r.verdict.status, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    lines.append(f"{len(results)} experiments in {total:.1f} s: {summary}")
    return "\n".join(lines)
