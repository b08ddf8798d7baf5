"""The console table of ``bleu-harness pitfalls``: one block per experiment."""

from __future__ import annotations

from collections.abc import Sequence

from harness.pitfalls import ExperimentResult


def format_table(results: Sequence[ExperimentResult]) -> str:
    """A console report: one block per experiment with its verdict, claim, source and reason."""
    if not results:
        return "(no experiments)"
    width = max(len(r.name) for r in results)
    lines = [f"{'experiment'.ljust(width)}  verdict", f"{'-' * width}  {'-' * 60}"]
    for r in results:
        lines.append(f"{r.name.ljust(width)}  {r.verdict.text}")
        pad = " " * (width + 2)
        lines.append(f"{pad}claim:  {r.experiment.claim}")
        lines.append(f"{pad}source: {r.experiment.source}")
        lines.append(f"{pad}reason: {r.verdict.reason}")
        lines.append(f"{pad}({r.seconds:.1f} s)")
    total = sum(r.seconds for r in results)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict.status] = counts.get(r.verdict.status, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    lines.append(f"{len(results)} experiments in {total:.1f} s: {summary}")
    return "\n".join(lines)
