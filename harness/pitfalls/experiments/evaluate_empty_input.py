"""evaluate's BLEU divides by zero on empty input (evaluate#601).

``evaluate.load("bleu")`` runs tensorflow/nmt's ``compute_bleu``, whose brevity penalty
computes ``ratio = translation_length / reference_length`` and then ``exp(1 - 1 / ratio)``:
an all-empty hypothesis side (ratio 0) or an all-empty reference side (division by 0) raises
``ZeroDivisionError`` where the other libraries return 0.

Run: the real evaluate module when it can be loaded here (it is not in the evaluate wheel: it
comes from the Hub or a local copy, see :mod:`harness.scorers.evaluate_adapter`); otherwise
the in-house evaluate profile, which raises ``LibraryWouldRaise`` naming the exception, and
the reason the real one could not run. Every other real library and profile on the same
inputs for contrast. The verdict is computed from evaluate's row (real first).
"""

from __future__ import annotations

from typing import Any

from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    Experiment,
    Table,
    Verdict,
    fmt,
    measure_libraries,
)

#: The real libraries whose numbers the reason quotes for contrast (one per library family).
CONTRAST = ("sacrebleu", "nltk", "bleuscore", "torchmetrics", "pycocoevalcap")

CASES = ("all hyps empty", "all hyps empty + '' refs", "one segment, its ref ''")


def corpora() -> dict[str, Any]:
    empty_ref = load_fixture("edge_empty_reference")
    return {
        CASES[0]: load_fixture("edge_empty_hypothesis").corpus("all_empty"),
        CASES[1]: empty_ref.corpus("empty"),
        CASES[2]: empty_ref.corpus("normal").subset([0]),
    }


def run() -> Table:
    table = Table()
    for case, corpus in corpora().items():
        table.extend(measure_libraries(corpus, case=case))
    return table


def verdict(table: Table) -> Verdict:
    real = [table.get("evaluate", c) for c in CASES]
    ran = [m for m in real if m.status != "unavailable"]
    if ran:
        who = "evaluate"
        rows = real
        note = ""
    else:
        who = "harness:evaluate"
        rows = [table.get("harness:evaluate", c) for c in CASES]
        note = f"; real evaluate could not run here: {real[0].detail.split(' (fix:')[0]}"
    divides = [m.case for m in rows if m.status == "raises" and "ZeroDivisionError" in m.detail]
    others = []
    for lib in CONTRAST:
        ms = [table.get(lib, c) for c in CASES]
        others.append(f"{lib} " + "/".join(fmt(m.score) if m.ok else m.status for m in ms))
    perl: dict[tuple[str, ...], list[str]] = {}
    for p in ("mteval-v13a", "multi-bleu", "multi-bleu-detok"):
        dies = tuple(c for c in CASES if table.get(f"harness:{p}", c).status == "raises")
        if dies:
            perl.setdefault(dies, []).append(p)
    reason = (
        f"{who} raises ZeroDivisionError on {len(divides)} of {len(CASES)} inputs "
        f"({'; '.join(divides) or 'none'}); per input the others return: {'; '.join(others)}"
    )
    for dies, names in perl.items():
        reason += f"; the profiles {', '.join(names)} die too on: {'; '.join(dies)}"
    reason += note
    if len(divides) == len(CASES):
        if who == "evaluate":
            return Verdict("reproduced", reason)
        return Verdict("reproduced only under", reason, ("harness:evaluate (profile)",))
    if divides:
        return Verdict("reproduced only under", reason, tuple(f"{who}: {c}" for c in divides))
    return Verdict("not reproduced", reason)


EXPERIMENT = Experiment(
    name="evaluate_empty_input",
    claim=(
        "evaluate's BLEU raises ZeroDivisionError on empty input (all hypotheses empty, or "
        "all references empty) where other libraries return 0."
    ),
    source="evaluate#601; LIBRARY-BEHAVIOURS.md (layout and validation)",
    fixtures=("edge_empty_hypothesis", "edge_empty_reference"),
    implementations=(
        "real evaluate (if its module loads), else harness:evaluate",
        f"real {', '.join(CONTRAST)} and all profiles",
    ),
    configs=CASES,
    run=run,
    verdict=verdict,
)
