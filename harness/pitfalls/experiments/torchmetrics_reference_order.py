"""torchmetrics breaks reference-length ties towards the first listed reference (torchmetrics#3504).

BLEU's brevity penalty uses, per segment, the reference length closest to the hypothesis
length. When two references are equally close, sacrebleu, nltk and pycocoevalcap take the
shorter; torchmetrics takes the first listed (``target_len_diff.index(min(...))``), so the
order of a segment's references — which carries no meaning — changes its score.

Run: the real torchmetrics ``BLEUScore`` and ``SacreBLEUScore`` and the other real libraries
(controls) on a fixture with ties, with each segment's references as listed and reversed; the
same on a fixture without ties; the harness's torchmetrics profile. The verdict is computed
from the real torchmetrics' scores; the reason gives the reference lengths each used and which
controls moved.
"""

from __future__ import annotations

from typing import Any

from harness.bleu.tokenizers import tokenize
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    REAL,
    Experiment,
    Table,
    Verdict,
    close,
    fmt,
    measure_adapter,
    measure_profile,
    precision,
    unavailable,
)

TIES = "edge_reference_length_tie"
NO_TIES = "edge_ragged_references"
SUBJECTS = ("torchmetrics", "torchmetrics-sacrebleu")
CONTROLS = tuple(n for n in REAL if n not in SUBJECTS)


def _reversed_refs(corpus: Any) -> Any:
    return Corpus(
        hypotheses=corpus.hypotheses,
        references=tuple(tuple(r[::-1]) for r in corpus.references),
        ids=corpus.ids,
        name=f"{corpus.name} (references reversed)",
    )


def _ties(corpus: Any) -> list[str]:
    out = []
    for sid, hyp, refs in zip(corpus.ids, corpus.hypotheses, corpus.references, strict=True):
        h = len(tokenize(hyp, "whitespace"))
        lens = [len(tokenize(r, "whitespace")) for r in refs]
        best = min(abs(n - h) for n in lens)
        if len({n for n in lens if abs(n - h) == best}) > 1:  # equally close, different lengths
            out.append(sid)
    return out


def run() -> Table:
    table = Table()
    for name in (TIES, NO_TIES):
        corpus = load_fixture(name).corpus("system")
        for order, c in (("as listed", corpus), ("reversed", _reversed_refs(corpus))):
            case = f"{name}/{order}"
            for lib in (*SUBJECTS, *CONTROLS):
                table.add(measure_adapter(lib, c, case=case))
            table.add(measure_profile("torchmetrics", c, case=case))
        table.notes.setdefault("ties", {})[name] = _ties(corpus)
    return table


def _moves(table: Table, impl: str, name: str) -> bool | None:
    a = table.get(impl, f"{name}/as listed")
    b = table.get(impl, f"{name}/reversed")
    if not (a.ok and b.ok):
        return None
    return not close(a.score, b.score, precision(impl))


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    ties = table.notes["ties"]
    for lib in SUBJECTS:
        moved = _moves(table, lib, TIES)
        (holds if moved else fails).append(lib)
        a = table.get(lib, f"{TIES}/as listed")
        b = table.get(lib, f"{TIES}/reversed")
        if a.ok and b.ok:
            parts.append(
                f"{lib}: {fmt(a.score)} -> {fmt(b.score)} (r {a.extra['ref_len']} -> "
                f"{b.extra['ref_len']}) with ties in segments {', '.join(ties[TIES])}"
            )
        else:
            parts.append(f"{lib}: {a.status}/{b.status}")
        if _moves(table, lib, NO_TIES):
            parts.append(f"{lib} ALSO moved on {NO_TIES} (no ties)")
    moved_controls = [c for c in CONTROLS if _moves(table, c, TIES)]
    ran = [c for c in CONTROLS if _moves(table, c, TIES) is not None]
    parts.append(
        f"controls unchanged: {', '.join(c for c in ran if c not in moved_controls)}"
        + (f"; controls that moved: {', '.join(moved_controls)}" if moved_controls else "")
    )
    parts.append(
        f"{NO_TIES} (ties in {', '.join(ties[NO_TIES]) or 'no segment'}): torchmetrics "
        + ("unchanged" if _moves(table, "torchmetrics", NO_TIES) is False else "moved")
    )
    gone = unavailable(table)
    if gone:
        parts.append(f"unavailable here: {', '.join(gone)}")
    prof = _moves(table, "harness:torchmetrics", TIES)
    parts.append(
        "the harness torchmetrics profile moves the same way"
        if prof
        and all(
            close(
                table.score("harness:torchmetrics", f"{TIES}/{o}"),
                table.score("torchmetrics", f"{TIES}/{o}"),
                1e-4,
            )
            for o in ("as listed", "reversed")
        )
        else "the harness torchmetrics profile does NOT match the library here"
    )
    return Verdict.split(holds, fails, "; ".join(parts))


EXPERIMENT = Experiment(
    name="torchmetrics_reference_order",
    claim=(
        "torchmetrics ties the closest reference length to the first listed reference, so "
        "reordering a segment's references changes the real torchmetrics' score."
    ),
    source="torchmetrics#3504; LIBRARY-BEHAVIOURS.md (reference length)",
    fixtures=(TIES, NO_TIES),
    implementations=(
        "real torchmetrics BLEUScore and SacreBLEUScore",
        f"controls: real {', '.join(CONTROLS)}",
        "harness:torchmetrics profile",
    ),
    configs=("references as listed", "each segment's references reversed"),
    run=run,
    verdict=verdict,
)
