"""A wrong reference layout gives sacrebleu no error and a wrong score (seed 001, pitfall 3).

sacrebleu wants reference *streams* (``refs[k][i]``), evaluate per-segment lists
(``refs[i][k]``). sacrebleu checks only the type of ``refs[0][0]`` and then ``zip``s, so
evaluate's layout is read as streams: a subset of the hypotheses is scored against the wrong
references, silently (sacrebleu#220, #275). The harness checks every length instead.

Run, for several corpus shapes (segments × references): the real sacrebleu with the right
streams, with evaluate's layout through ``sacrebleu.corpus_bleu`` and ``BLEU().corpus_score``,
and with a flat list of strings (:mod:`harness.scorers.misuse`); then the harness's own API
with the same layout mistakes (``Corpus.from_streams`` given per-segment lists,
``harness.corpus_bleu`` given streams or a flat list). A square shape (N segments × N
references) is included on purpose: a transposed square layout has every length right.
"""

from __future__ import annotations

from typing import Any

from harness.api import corpus_bleu
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.errors import HarnessError, LayoutError
from harness.pitfalls import Experiment, Measurement, Table, Verdict, fmt
from harness.scorers.misuse import MISUSES

MISUSE_CASES = {
    "evaluate-layout": "evaluate layout to sacrebleu.corpus_bleu",
    "per-segment-as-streams": "evaluate layout to BLEU().corpus_score",
    "flat-list": "flat list of strings",
}
HARNESS_CASES = (
    "Corpus.from_streams(streams=evaluate layout)",
    "corpus_bleu(references=sacrebleu streams)",
    "corpus_bleu(references=flat list)",
)


def shapes() -> dict[str, Any]:
    """Shape label → corpus. All from shipped fixtures; the square one is derived."""
    ragged = load_fixture("edge_ragged_references").corpus("system")
    square = Corpus(
        hypotheses=ragged.hypotheses[1:3],
        references=(ragged.references[1][:2], ragged.references[2][:2]),
        ids=ragged.ids[1:3],
        name="edge_ragged_references segments 2-3, first two references (2x2)",
    )
    return {
        "3x2 seed placeholders": load_fixture("reference_layout_placeholders").corpus("mt"),
        "4x(1-3) ragged": ragged,
        "8x1 silence A": load_fixture("silence_pitfall").corpus("A"),
        "4x2 tie": load_fixture("edge_reference_length_tie").corpus("system"),
        "2x2 square": square,
    }


def _harness_attempts(corpus: Any) -> dict[str, Any]:
    hyps = list(corpus.hypotheses)
    flat = [refs[0] for refs in corpus.references]

    def from_streams() -> float:
        wrong = Corpus.from_streams(hypotheses=hyps, streams=corpus.to_evaluate())
        return corpus_bleu(hypotheses=wrong.hypotheses, references=wrong.references).score

    return {
        HARNESS_CASES[0]: from_streams,
        HARNESS_CASES[1]: lambda: (
            corpus_bleu(hypotheses=hyps, references=corpus.to_streams()).score
        ),
        HARNESS_CASES[2]: lambda: corpus_bleu(hypotheses=hyps, references=flat).score,
    }


def run() -> Table:
    import sacrebleu

    table = Table()
    version = f"sacrebleu {sacrebleu.__version__}"
    for shape, corpus in shapes().items():
        n, k = len(corpus), corpus.max_refs
        for key, label in MISUSE_CASES.items():
            m = MISUSES[key](corpus)
            extra = {
                "hypotheses_scored": m.hypotheses_scored,
                "n_hypotheses": m.n_hypotheses,
                "correct_score": m.correct_score,
                "call": m.call,
            }
            if m.silent:
                table.add(
                    Measurement("sacrebleu", f"{shape}/{label}", m.score, "ok", "", version, extra)
                )
            else:
                table.add(
                    Measurement("sacrebleu", f"{shape}/{label}", None, "raises", m.error or "")
                )
        right = corpus_bleu(hypotheses=corpus.hypotheses, references=corpus.references)
        table.add(
            Measurement(
                "harness:sacrebleu",
                f"{shape}/right layout",
                right.score,
                signature=right.signature,
            )
        )
        for label, attempt in _harness_attempts(corpus).items():
            try:
                score = attempt()
            except HarnessError as exc:
                status = "refused" if isinstance(exc, LayoutError) else "error"
                table.add(
                    Measurement(
                        "harness API",
                        f"{shape}/{label}",
                        None,
                        status,
                        f"{type(exc).__name__}: {exc}",
                    )
                )
            else:
                table.add(Measurement("harness API", f"{shape}/{label}", score))
        table.notes.setdefault("shapes", {})[shape] = {"segments": n, "max_refs": k}
    return table


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    scored: list[str] = []
    accepted: list[str] = []
    for shape in table.notes["shapes"]:
        sb_ok = True
        for label in (MISUSE_CASES["evaluate-layout"], MISUSE_CASES["per-segment-as-streams"]):
            m = table.get("sacrebleu", f"{shape}/{label}")
            wrong = m.ok and (
                m.score != m.extra["correct_score"]
                or m.extra["hypotheses_scored"] != m.extra["n_hypotheses"]
            )
            sb_ok = sb_ok and wrong
        m = table.get("sacrebleu", f"{shape}/{MISUSE_CASES['evaluate-layout']}")
        if m.ok:
            scored.append(
                f"{shape}: {m.extra['hypotheses_scored']}/{m.extra['n_hypotheses']} scored, "
                f"{fmt(m.score)} vs {fmt(m.extra['correct_score'])}"
            )
        refused = [
            table.get("harness API", f"{shape}/{label}").status == "refused"
            for label in HARNESS_CASES
        ]
        if not all(refused):
            took = [label for label, r in zip(HARNESS_CASES, refused, strict=True) if not r]
            accepted.append(f"{shape} ({', '.join(took)})")
        (holds if sb_ok and all(refused) else fails).append(shape)
    reason = (
        "sacrebleu returned a number without error for evaluate's layout in every shape "
        if all(
            table.get("sacrebleu", f"{s}/{MISUSE_CASES['evaluate-layout']}").ok
            for s in table.notes["shapes"]
        )
        else "sacrebleu raised for some shapes "
    )
    reason += "(" + "; ".join(scored) + ")"
    if accepted:
        reason += (
            "; the harness raised LayoutError everywhere except "
            + "; ".join(accepted)
            + ": a transposed square layout has every length right, so no length check can "
            "tell (only the content could)"
        )
    else:
        reason += "; the harness raised LayoutError for every layout mistake"
    return Verdict.split(holds, fails, reason)


EXPERIMENT = Experiment(
    name="reference_layout",
    claim=(
        "Given evaluate's per-segment reference lists, the real sacrebleu returns a plausible "
        "but wrong score and no error, for several corpus shapes, while the harness refuses "
        "the same layout mistake with LayoutError."
    ),
    source="001_4d9c0f31bc4f1899.txt (pitfall 3); sacrebleu#220, sacrebleu#275",
    fixtures=(
        "reference_layout_placeholders",
        "edge_ragged_references",
        "silence_pitfall",
        "edge_reference_length_tie",
    ),
    implementations=(
        "real sacrebleu (harness.scorers.misuse)",
        "harness API (Corpus.from_streams, corpus_bleu)",
    ),
    configs=tuple(MISUSE_CASES.values()) + HARNESS_CASES,
    run=run,
    verdict=verdict,
)
