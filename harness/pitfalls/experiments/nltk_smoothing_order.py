"""nltk's corpus-level smoothing methods 5–7 look only at the last segment (nltk PR #3903).

``corpus_bleu`` sums the statistics over segments and then calls the smoothing function with
the hypothesis and references left over from its loop — the *last* segment's. Methods 5–7 use
them (method 5 its order-5 counts, method 6 its length), so the corpus score depends on the
order of the segments, which corpus BLEU must not; scores can even exceed 1.

Run: the real nltk ``corpus_bleu`` with ``SmoothingFunction().method0``…``method7`` on three
fixtures, each in its original order, reversed and rotated by one; the harness's nltk profile
with the same methods (which models the leftover-segment context); the real sacrebleu as an
order-invariant control. The verdict is computed from the real nltk's scores.
"""

from __future__ import annotations

from typing import Any

from harness.bleu.profiles import PROFILES
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    Experiment,
    Table,
    Verdict,
    close,
    fmt,
    measure_adapter,
    measure_profile,
)

CORPORA = {
    "edge_reference_length_tie": "system",
    "edge_empty_hypothesis": "one_empty",
    "edge_ragged_references": "system",
}
METHODS = tuple(range(8))
CLAIMED = (5, 6, 7)
ORDERINGS = ("original", "reversed", "rotated")


def orderings(corpus: Any) -> dict[str, Any]:
    n = len(corpus)
    return {
        "original": corpus,
        "reversed": corpus.subset(list(range(n))[::-1]),
        "rotated": corpus.subset([*range(1, n), 0]),
    }


def run() -> Table:
    table = Table()
    for name, system in CORPORA.items():
        base = load_fixture(name).corpus(system)
        for order, corpus in orderings(base).items():
            case = f"{name}/{order}"
            for m in METHODS:
                cfg = PROFILES["nltk"].replace(smooth=f"nltk-method{m}")
                table.add(measure_adapter("nltk", corpus, cfg, case=case, label=f"nltk method{m}"))
                table.add(measure_profile(cfg, corpus, case=case, label=f"harness:nltk method{m}"))
            table.add(measure_adapter("sacrebleu", corpus, case=case))
    return table


def _varies(table: Table, impl: str) -> list[str]:
    """Corpora on which ``impl``'s result depends on the segment order."""
    out = []
    for name in CORPORA:
        ms = [table.get(impl, f"{name}/{o}") for o in ORDERINGS]
        if any(m.status != ms[0].status for m in ms) or (
            ms[0].ok and not all(close(m.score, ms[0].score) for m in ms)
        ):
            out.append(name)
    return out


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    for m in CLAIMED:
        impl = f"nltk method{m}"
        varies = _varies(table, impl)
        (holds if varies else fails).append(impl)
        if varies:
            name = varies[0]
            vals = [table.get(impl, f"{name}/{o}") for o in ORDERINGS]
            shown = " / ".join(fmt(v.score) if v.ok else v.status for v in vals)
            parts.append(f"{impl}: {shown} on {name} ({'/'.join(ORDERINGS)})")
        else:
            parts.append(f"{impl}: same score in every order")
    invariant = [
        f"method{m}" for m in METHODS if m not in CLAIMED and not _varies(table, f"nltk method{m}")
    ]
    moving = [
        f"method{m}" for m in METHODS if m not in CLAIMED and _varies(table, f"nltk method{m}")
    ]
    parts.append(
        f"{', '.join(invariant) or 'no other method'} order-invariant"
        + (f"; {', '.join(moving)} ALSO order-dependent" if moving else "")
    )
    parts.append(
        "sacrebleu order-invariant" if not _varies(table, "sacrebleu") else "sacrebleu VARIES"
    )
    over = [
        m
        for m in table.rows
        if m.implementation.startswith("nltk method") and m.ok and m.score > 100.0  # type: ignore[operator]
    ]
    if over:
        top = max(over, key=lambda m: m.score)  # type: ignore[arg-type, return-value]
        parts.append(
            f"{len(over)} real nltk scores exceed 100, up to {fmt(top.score)} "
            f"({top.implementation}, {top.case})"
        )
    mismatch = [
        f"{m.implementation}/{m.case}"
        for m in table.rows
        if m.implementation.startswith("nltk method")
        and (p := table.find(f"harness:{m.implementation}", m.case)) is not None
        and (m.status != p.status or (m.ok and not close(m.score, p.score)))
    ]
    parts.append(
        f"harness profile differs from nltk for {', '.join(mismatch)}"
        if mismatch
        else "the harness nltk profile matches the real nltk in every order"
    )
    return Verdict.split(holds, fails, "; ".join(parts))


EXPERIMENT = Experiment(
    name="nltk_smoothing_order",
    claim=(
        "nltk's corpus_bleu with smoothing methods 5-7 uses only the last segment's hypothesis "
        "and references, so reordering the segments changes the real nltk's corpus score."
    ),
    source="nltk PR #3903; LIBRARY-BEHAVIOURS.md (smoothing); Chen & Cherry (2014)",
    fixtures=tuple(CORPORA),
    implementations=("real nltk corpus_bleu", "harness:nltk profile", "real sacrebleu (control)"),
    configs=(
        "SmoothingFunction().method0..method7",
        "segment order: original, reversed, rotated by one",
    ),
    run=run,
    verdict=verdict,
)
