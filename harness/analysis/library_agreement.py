"""Which real libraries' corpus scores equal their in-house profiles' in a results table.

A real library that reproduces a profile (its adapter names it) is checked against that
profile's row on the same fixture and system: equal scores within the adapter's verification
tolerance (:func:`harness.scorers.tolerance`: 1e-9 BLEU points; torchmetrics 1e-4, it
computes in float32), or both raising. The console marks each library cell with the result
(:func:`harness.report.console.agreement_mark`); the fact is computed here, where the adapter
registry is known.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.run.results import Kind, Level, ResultRow, Status
from harness.scorers import ADAPTERS, tolerance

__all__ = ["TwinCheck", "library_agreement"]


@dataclass(frozen=True, slots=True)
class TwinCheck:
    """A real library's corpus row beside its in-house profile's on the same fixture and
    system: ``equal`` is whether they agree — both scored and within ``tolerance`` BLEU
    points, or both raising."""

    fixture: str
    system: str
    library: str
    profile: str
    tolerance: float
    equal: bool


def library_agreement(rows: Iterable[ResultRow]) -> dict[tuple[str, str, str], TwinCheck]:
    """Per ``(fixture, system, library)`` corpus row whose library reproduces a profile that
    has a row there: the check (:class:`TwinCheck`). Rows that cannot be compared (no twin
    row, or a status other than ``ok``/``raises`` on either side) have none."""
    corpus = [r for r in rows if r.level == Level.CORPUS]
    index = {(r.fixture, r.system, r.implementation): r for r in corpus}
    out: dict[tuple[str, str, str], TwinCheck] = {}
    for row in corpus:
        name = row.implementation
        if row.kind != Kind.ADAPTER or name not in ADAPTERS or not ADAPTERS[name].profile:
            continue
        profile = f"harness:{ADAPTERS[name].profile}"
        twin = index.get((row.fixture, row.system, profile))
        if twin is None:
            continue
        tol = tolerance(name)
        if row.status == Status.OK and twin.status == Status.OK:
            if row.score is None or twin.score is None:
                continue
            equal = abs(row.score - twin.score) <= tol
        elif {row.status, twin.status} <= {Status.RAISES, Status.OK}:
            equal = row.status == twin.status
        else:
            continue
        key = (row.fixture, row.system, name)
        out[key] = TwinCheck(row.fixture, row.system, name, profile, tol, equal)
    return out
