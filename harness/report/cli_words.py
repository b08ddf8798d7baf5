"""The command line's own sentences: what a command says around its tables (headings,
footnotes, where a report went) and what ``bleu-harness`` says when a run stops. The commands
in :mod:`harness.cli` pass the facts (names, numbers) and print these words."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike

__all__ = [
    "LIBRARY_SIGNATURES_HEAD",
    "NOTHING_SCORED",
    "WMT21_MISSING",
    "human_heading",
    "library_computed",
    "limited",
    "not_returned_note",
    "not_scored_citation",
    "not_scored_note",
    "overrides_note",
    "profile_lines",
    "raw_counts_note",
    "report_written",
    "rows_footer",
    "run_notes",
    "significance_heading",
]

#: ``demo``: where the real MT data would come from.
WMT21_MISSING = "\n(WMT21: set BLEU_HARNESS_DATA to ../shared/data to include real MT data)"
#: ``score``: no implementation gave a number.
NOTHING_SCORED = "bleu-harness: error: no implementation scored (see the notes)"
#: ``score``: the heading of the libraries' own signatures.
LIBRARY_SIGNATURES_HEAD = "\nlibrary signatures (the calls made to the other libraries: --json):"


def limited(limit: int) -> str:
    """``--limit``: only the first ``limit`` segments of each corpus are read."""
    return f"--limit {limit}: the first {limit} segments of each corpus"


def report_written(rows: int, path: str, seconds: float) -> str:
    """``report``: how many rows it rendered, where, in how long."""
    return f"report of {rows} rows written to {path}/ in {seconds:.2f} s"


def significance_heading(
    best: bool,
    baseline: str,
    score: float,
    profile: str,
    method: str,
    resamples: int,
    seed: int,
) -> str:
    """``significance``: what every system was tested against, and how."""
    how = "the best" if best else "the baseline"
    return (
        f"Every system against {how}, {baseline} ({score:.2f} {profile} BLEU): "
        f"{method}, {resamples} resamples, seed {seed}; p < 0.05 marked *."
    )


def human_heading(systems: int, scores: str, n_boot: int, seed: int) -> str:
    """``human --scores``: the system-level table's heading."""
    return (
        f"System-level BLEU of {systems} systems against {scores} "
        f"({n_boot} bootstrap resamples over systems, seed {seed}); profiles that "
        "give the same numbers share a row."
    )


def library_computed(name: str) -> str:
    """``score``: the real library ``name`` computed the number."""
    return f"the real library ({name}) computed this score"


def raw_counts_note(who: str) -> str:
    """``score``'s footnote for libraries that return counts, not precisions."""
    return (
        f"* {who}: the library returns no precisions; shown are the "
        "matched/total n-grams it counted (its own counting, summed over the corpus), "
        "before any smoothing"
    )


def not_returned_note(what: str, who: str) -> str:
    """``score``'s footnote: the libraries ``who`` return no ``what``."""
    return f"n/a {what}: not returned by the library ({who})"


def overrides_note(changed: str) -> str:
    """``score``'s footnote on factor overrides."""
    return f"overrides {changed} apply to every row; a profile's status is that of its defaults"


def not_scored_citation(name: str, status: str) -> str:
    """``score --cite``: the line of an implementation that did not score."""
    return f"BLEU = n/a ({name} did not score: {status}; why on stderr)"


def not_scored_note(name: str, status: str, why: str) -> str:
    """``score --cite``: why an implementation did not score (stderr)."""
    return f"bleu-harness: note: {name} did not score: {status}: {why}"


def rows_footer(rows: int, seconds: float, out_dir: str | PathLike[str] | None) -> str:
    """``compare``: how many rows the run made, in how long, and where they were written."""
    return f"{rows} rows in {seconds:.2f} s" + (f"; written to {out_dir}/" if out_dir else "")


def run_notes(problems: Sequence[tuple[str, str, str]], limit: int) -> list[str]:
    """``compare``'s fixtures table: one note per (implementation, status, error) without a
    number, at most ``limit`` of them, then how many more there are."""
    lines = [f"note: {impl}: {status}: {err}" for impl, status, err in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"note: … {len(problems) - limit} more (see the results table)")
    return lines


def profile_lines(
    name: str,
    width: int,
    status: str,
    signature: str,
    oracle: str,
    evidence: str,
    field: str | None,
    releases: str = "",
) -> list[str]:
    """``profiles``: a profile's lines — its status and signature, what proves it, the
    library releases it reproduces (where established), and, for a profile of another field
    than machine translation or of an older release (``field``: which), when it runs."""
    lines = [
        f"{name:<{width}} {status:<10} {signature}",
        f"{'':<{width}} {'':<10} against {oracle} ({evidence})",
    ]
    if releases:
        lines.append(f"{'':<{width}} {'':<10} releases {releases}")
    if field is not None:
        lines.append(f"{'':<{width}} {'':<10} {field}: run by compare and report when named")
    return lines
