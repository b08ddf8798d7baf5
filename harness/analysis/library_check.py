"""A real library's scores in an answer against its in-house profile's: on the systems it
ran on, and on the segments of its spot check (:mod:`harness.run.library_sample`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from harness.run.results import ResultRow
from harness.scorers import ADAPTERS, tolerance
from harness.scorers.base import installed_version

__all__ = ["SAME", "LibraryCheck", "library_check", "spot_checks"]

#: Scores closer than this (BLEU points) are one number when families are formed.
SAME = 1e-9


@dataclass(frozen=True)
class LibraryCheck:
    """One real library on the systems: its scores (``None`` on a system it was not run on, a
    spot check running it on a sample, or where it gave no number), and whether they equal its
    profile's where it ran (within the profile's proven tolerance), or why it gave no number.
    ``sampled``: the systems where it was compared on the segments of its spot check, scored
    as a corpus of their own beside its profile's score of them (its score of the whole
    system is ``None`` there)."""

    name: str
    version: str | None
    scores: tuple[float | None, ...]
    equal: bool | None = field(metadata={"json_name": "equal_to_profile"})  # None: no number
    note: str = ""
    sampled: tuple[str, ...] = ()


def spot_checks(
    name: str, samples: Mapping[str, Mapping[str, ResultRow]]
) -> dict[str, tuple[ResultRow, ResultRow | None]]:
    """Per system, library ``name``'s ``sample`` row and its profile's on the same segments
    (``None`` when its profile did not score them)."""
    own = samples.get(f"harness:{name}", {})
    return {s: (r, own.get(s)) for s, r in samples.get(name, {}).items()}


def _ok_score(row: ResultRow | None) -> float | None:
    return row.score if row is not None and row.status == "ok" else None


def library_check(
    name: str,
    by_system: Mapping[str, ResultRow],
    systems: Sequence[str],
    profile_scores: Sequence[float | None] | None,
    sampled: Mapping[str, tuple[ResultRow, ResultRow | None]] | None = None,
) -> LibraryCheck:
    """Library ``name`` on ``systems`` (its whole-system rows ``by_system``) against its
    profile's ``profile_scores`` (``None``: its profile is not in the answer), and on the
    segments of its spot check (``sampled``, :func:`spot_checks`)."""
    sampled = sampled or {}
    rows = [by_system.get(s) for s in systems]
    scores = tuple(_ok_score(r) for r in rows)
    spot = [lib for lib, _ in sampled.values()]
    bad = next((r for r in [*rows, *spot] if r is not None and r.status != "ok"), None)
    note = f"{bad.status}: {bad.error}" if bad is not None else ""
    equal: bool | None = None
    # compared on the systems it ran on (a spot check runs it on a sample of them), and on
    # the segments of its spot check against its profile's score of the same segments
    ran = [
        (s, p)
        for r, s, p in zip(rows, scores, profile_scores or scores, strict=True)
        if r is not None
    ]
    ran += [(_ok_score(lib), _ok_score(prof)) for lib, prof in sampled.values()]
    if profile_scores is not None and ran and all(s is not None for s, _ in ran):
        tol = tolerance(name) if name in ADAPTERS else SAME
        equal = all(
            p is not None and abs(s - p) <= tol  # type: ignore[operator]
            for s, p in ran
        )
    cls = ADAPTERS.get(name)
    version = installed_version(cls.distribution) if cls is not None else None
    return LibraryCheck(
        name=name,
        version=version,
        scores=scores,
        equal=equal,
        note=note,
        sampled=tuple(s for s in systems if s in sampled),
    )
