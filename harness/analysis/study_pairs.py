"""The report's judged pairs: which implementations are compared, and each pair's verdict.

:func:`default_pairs` chooses them (every library against its own profile, then sacrebleu
against every other implementation); :func:`judged_pairs` computes each pair's
:class:`~harness.analysis.difference.Difference` and :func:`judge_pair` turns it into an
``agree``/``disagree``/``n/a`` verdict from the comparable corpora and segments only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from harness.analysis.difference import Difference, difference
from harness.analysis.labels import (
    corpora_in,
    kinds_in,
    labels_in,
    pair_tolerance,
    profile_of,
)
from harness.analysis.study_types import (
    PairVerdict,
)
from harness.analysis.why import Why
from harness.data.corpus import Corpus
from harness.progress import ProgressCallback, track
from harness.run.results import ResultRow, Results, SegmentIndex, as_results
from harness.typed_json import from_json, to_json


def default_pairs(rows: Results | Sequence[ResultRow]) -> list[tuple[str, str]]:
    """Every adapter ``X`` vs its own profile ``harness:X`` (``a`` = the profile), then
    sacrebleu (the adapter if it has an ok row and ran on every corpus and segment its profile
    did, else ``harness:sacrebleu``) vs every other implementation in the rows, except a
    library that ran on a sample of the systems (a spot check: its profile stands for it
    there); no pair twice (in either order)."""
    table = as_results(rows)
    labels = labels_in(table)
    kinds = kinds_in(table)
    pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()

    def add(first: str, second: str) -> None:
        key = frozenset((first, second))
        if first != second and key not in seen:
            seen.add(key)
            pairs.append((first, second))

    for label in labels:
        if kinds.get(label) == "adapter" and f"harness:{label}" in labels:
            add(f"harness:{label}", label)
    ok = {
        str(impl) for impl, status in table.distinct("implementation", "status") if status == "ok"
    }
    ran = {label: len(where) for label, where in corpora_in(table).items()}
    corpora = max(ran.values(), default=0)
    spot = {x for x in labels if kinds.get(x) == "adapter" and ran[x] < corpora}
    segment_rows = _segment_rows(table, ("sacrebleu", "harness:sacrebleu"))
    if segment_rows["sacrebleu"] < segment_rows["harness:sacrebleu"] or "sacrebleu" in spot:
        ok.discard("sacrebleu")  # run on a sample: its profile gives every number
    ref = next((x for x in ("sacrebleu", "harness:sacrebleu") if x in ok), None)
    if ref is None:
        ref = next((x for x in ("sacrebleu", "harness:sacrebleu") if x in labels), None)
    if ref is not None:
        for label in labels:
            if label not in spot:
                add(ref, label)
    return pairs


def _segment_rows(table: Results, labels: Sequence[str]) -> dict[str, int]:
    """How many segment rows with a segment id each of ``labels`` has."""
    impl = table.column("implementation")
    seg = (table.column("level") == "segment") & (table.column("segment_id") != None)  # noqa: E711
    return {label: int(np.count_nonzero(seg & (impl == label))) for label in labels}


def profile_pairs(rows: Results | Sequence[ResultRow]) -> list[tuple[str, str]]:
    """The :func:`default_pairs` as pairs of the profiles they are or reproduce
    (:func:`~harness.analysis.labels.profile_of`), each once: what a meta-evaluation of the
    report's human judgments tests. A library without a profile and a library against its own
    profile drop out."""
    out: list[tuple[str, str]] = []
    for first, second in default_pairs(rows):
        a, b = profile_of(first), profile_of(second)
        if a is not None and b is not None and a != b and (a, b) not in out and (b, a) not in out:
            out.append((a, b))
    return out


def _short_reason(status: Any, error: Any) -> str:
    err = " ".join(str(error or "").split())
    if len(err) > 160:
        err = err[:157] + "…"
    return f"{status}" + (f" ({err})" if err else "")


def judge_pair(found: Difference) -> PairVerdict:
    """A :class:`~harness.analysis.difference.Difference` judged: ``verdict``
    (``agree``/``disagree``/``n/a``), ``na_reason``, ``compared`` and ``not_compared``, and
    ``agree`` from the comparable corpora and segments only — a side without scores
    (unavailable, unsupported, raises, error) is "n/a", never a disagreement. Its segment
    scores are left out (they are in the report's segment table)."""
    # the segment scores are many and left out: not serialised only to be dropped
    p = to_json(dataclasses.replace(found, segment_scores=()))
    del p["segment_scores"]
    tol = p["tolerance"]
    compared = [g for g in p["corpora"] if g.get("gap") is not None]
    missing = [g for g in p["corpora"] if g.get("gap") is None]
    reasons: dict[Why, None] = {}
    for g in missing:
        for key in ("a", "b"):
            side = g[key]
            if side.get("status") != "ok":
                short = _short_reason(side.get("status"), side.get("error"))
                reasons[Why("not-scored", (p[key],), detail=short)] = None
    seg = p["segments"]
    if not (compared or seg.get("n")):
        p["agree"], p["verdict"] = None, "n/a"
        p["na_reason"] = to_json(list(reasons) or [Why("nothing-scored")])
    else:
        worst = max(
            [abs(g["gap"]) for g in compared] + ([seg["max_abs"]] if seg.get("max_abs") else []),
            default=0.0,
        )
        p["agree"] = worst <= tol
        p["verdict"] = "agree" if p["agree"] else "disagree"
        p["na_reason"] = to_json(list(reasons)) or None
    p["compared"] = len(compared)
    p["not_compared"] = len(missing)
    return from_json(PairVerdict, p, "pairs")


def judged_pairs(
    rows: Results,
    chosen: Sequence[tuple[str, str]],
    corpora: Mapping[tuple[str, str], Corpus],
    tolerance: float,
    top: int,
    progress: ProgressCallback | None,
) -> list[PairVerdict]:
    present = set(rows.labels())
    out = []
    # a's segment index in a table that starts with a's rows, the same in every such table:
    # made once for the pairs that share their first side
    first_sides: dict[str, SegmentIndex] = {}
    for a, b in track(chosen, progress, "report: pairs"):
        tol = pair_tolerance(a, b, tolerance)
        # a pair's difference reads only its two implementations' rows, a's then b's (else
        # all of them, for the full error)
        known = None
        if a in present and b in present:
            both = Results.concat([rows.select((a,)), *([rows.select((b,))] if b != a else [])])
            if a not in first_sides:
                first_sides[a] = both.segment_index(a)
            known = {a: first_sides[a]}
        else:
            both = rows
        found = difference(
            both,
            a,
            b,
            tolerance=tol,
            top=top,
            corpus=dict(corpora) or None,
            indexes=known,
            with_scores=False,  # judge_pair leaves them out
        )
        out.append(judge_pair(found))
    return out
