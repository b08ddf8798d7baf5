"""The tutorial's claimed output ``BLEU = 0.638`` (seeds 000 and 002).

The tutorial scores ``the cat is on the mat`` against ``there is a cat on the mat`` and
``the cat sits on the mat`` and shows ``BLEU = 0.638``. The candidate shares no 4-gram with
either reference, and the tutorial's code returns 0.0 as soon as one precision is 0.

Run: :func:`harness.diagnose.homemade.tutorial_bleu` (the tutorial's algorithm re-derived from the
seeds) on its own example; a search over a reasonable variant space of the in-house engine —
tokenizer × case × reference length × smoothing × max order × aggregation — for any
configuration whose score rounds to the printed 0.638; and every real library's default for
context. The verdict says whether the tutorial's own algorithm prints 0.638 and which engine
configurations (if any) do; the reason names the nearest one.
"""

from __future__ import annotations

import itertools

from harness.bleu import engine
from harness.bleu.config import REF_LENGTHS, BleuConfig
from harness.data.fixtures import load_fixture
from harness.diagnose.homemade import tutorial_bleu
from harness.errors import HarnessError
from harness.pitfalls import (
    Experiment,
    Measurement,
    Table,
    Verdict,
    fmt,
    measure_call,
    measure_libraries,
)

FIXTURE = "tutorial_cat_on_the_mat"
TOKENIZERS = ("whitespace", "13a", "char")
CASES = (False, True)
SMOOTHINGS = (
    "none",
    "exp",
    "floor",
    "add-k",
    "plus-one",
    "plus-one-high",
    "coco-epsilon",
    *(f"nltk-method{i}" for i in range(8)),
)
ORDERS = (1, 2, 3, 4)
AGGREGATIONS = ("corpus", "sentence-mean")
PLAIN = "engine[tok=whitespace,cased,ref=closest,smooth=none,n=4,agg=corpus]"


def grid() -> list[BleuConfig]:
    """Every configuration searched (zero_guard ``none``: smoothing alone decides zeros)."""
    return [
        BleuConfig(
            tokenize=tok,
            lowercase=lc,
            ref_length=ref,
            smooth=smooth,
            max_order=order,
            aggregation=agg,
            zero_guard="none",
            ngram_totals="floor1" if smooth.startswith("nltk-") else "plain",
        )
        for tok, lc, ref, smooth, order, agg in itertools.product(
            TOKENIZERS, CASES, REF_LENGTHS, SMOOTHINGS, ORDERS, AGGREGATIONS
        )
    ]


def label(cfg: BleuConfig) -> str:
    return (
        f"engine[tok={cfg.tokenize},{'lc' if cfg.lowercase else 'cased'},ref={cfg.ref_length},"
        f"smooth={cfg.smooth},n={cfg.max_order},agg={cfg.aggregation}]"
    )


def run() -> Table:
    fx = load_fixture(FIXTURE)
    corpus = fx.corpus("candidate")
    table = Table()
    table.notes["printed"] = fx.claim["printed"]["bleu"]  # type: ignore[index]
    table.add(
        measure_call(
            "homemade:tutorial_bleu",
            lambda: tutorial_bleu(list(corpus.hypotheses), corpus.to_evaluate()),
            case="own example",
            scale=100.0,
            detail="harness.diagnose.homemade.tutorial_bleu, re-derived from seeds 000/002 (0-1 x 100)",
        )
    )
    stats = {}
    for tok, lc in itertools.product(TOKENIZERS, CASES):
        base = BleuConfig(tokenize=tok, lowercase=lc, smooth="nltk-method5")  # orders up to 5
        stats[(tok, lc)] = engine.compute_statistics(corpus, base)
    printed = float(table.notes["printed"])
    rows: list[Measurement] = []
    for cfg in grid():
        try:
            r = engine.score_statistics(stats[(cfg.tokenize, cfg.lowercase)], cfg)
        except HarnessError as exc:
            rows.append(Measurement(label(cfg), "own example", None, "raises", str(exc)))
            continue
        rows.append(
            Measurement(
                label(cfg),
                "own example",
                r.score,
                signature=r.signature,
                extra={"counts": r.counts, "totals": r.totals, "bp": r.bp},
            )
        )
    scored = [m for m in rows if m.ok]
    distance = {m.implementation: abs(m.score / 100.0 - printed) for m in scored}  # type: ignore[operator]
    hits = [m for m in scored if round(m.score / 100.0, 3) == printed]  # type: ignore[operator]
    ranked = sorted(scored, key=lambda m: distance[m.implementation])
    best = distance[ranked[0].implementation]
    table.notes["searched"] = len(rows)
    table.notes["raised"] = len(rows) - len(scored)
    table.notes["hits"] = [m.implementation for m in hits]
    table.notes["nearest_ties"] = sum(1 for d in distance.values() if d == best)
    # keep the table small: the hits, the ten nearest, and the plain BLEU-4 for its precisions
    keep = {m.implementation for m in hits} | {m.implementation for m in ranked[:10]}
    keep.add(PLAIN)
    table.extend(m for m in rows if m.implementation in keep)
    table.extend(measure_libraries(corpus, case="own example"))
    return table


def verdict(table: Table) -> Verdict:
    printed = float(table.notes["printed"])
    own = table.get("homemade:tutorial_bleu", "own example")
    engine_rows = [m for m in table.rows if m.implementation.startswith("engine[") and m.ok]
    hits = [m for m in engine_rows if m.implementation in table.notes["hits"]]
    nearest = min(engine_rows, key=lambda m: abs(m.score / 100.0 - printed))  # type: ignore[operator]
    base = table.find(PLAIN, "own example")
    prec = ""
    if base is not None and base.extra.get("counts"):
        prec = (
            "precisions "
            + " ".join(
                f"{c}/{t}" for c, t in zip(base.extra["counts"], base.extra["totals"], strict=True)
            )
            + "; "
        )
    own_text = (
        f"tutorial_bleu gives {fmt(own.score / 100.0, 3)}"  # type: ignore[operator]
        if own.ok
        else f"tutorial_bleu {own.status}: {own.detail}"
    )
    reason = (
        f"{prec}{own_text} (printed {printed:.3f}; the code returns 0.0 when any precision is 0); "
        f"{len(table.notes['hits'])} of {table.notes['searched']} engine configs round to "
        f"{printed:.3f} ({table.notes['raised']} raised)"
    )
    libs = [
        f"{m.implementation} {fmt(m.score / 100.0, 3)}"  # type: ignore[operator]
        for m in table.rows
        if not m.implementation.startswith(("engine[", "homemade:", "harness:")) and m.ok
    ]
    if hits:
        reason += ": " + ", ".join(m.implementation for m in hits[:4])
        if len(table.notes["hits"]) > 4:
            reason += f" and {len(table.notes['hits']) - 4} more"
    ties = table.notes["nearest_ties"]
    reason += (
        f"; nearest: {nearest.implementation} = {nearest.score / 100.0:.4f}"  # type: ignore[operator]
        + (f" (and {ties - 1} configs with the same score)" if ties > 1 else "")
        + ""
        f"; library defaults (0-1): {', '.join(libs)}"
    )
    if own.ok and round(own.score / 100.0, 3) == printed:  # type: ignore[operator]
        return Verdict("reproduced", reason)
    if hits:
        return Verdict("reproduced only under", reason, tuple(m.implementation for m in hits[:4]))
    return Verdict("not reproduced", reason)


EXPERIMENT = Experiment(
    name="tutorial_claim",
    claim=(
        "The tutorial's implementation prints BLEU = 0.638 for 'the cat is on the mat' "
        "against its two references."
    ),
    source="000_f06ef87264613ebc.txt, 002_27c90cad815dc7d3.txt (section 2, output example)",
    fixtures=(FIXTURE,),
    implementations=(
        "homemade: harness.diagnose.homemade.tutorial_bleu",
        "in-house engine search",
        "real library defaults (context)",
    ),
    configs=(
        f"tokenize {'/'.join(TOKENIZERS)} x case x ref_length {len(REF_LENGTHS)} x smooth "
        f"{len(SMOOTHINGS)} x max_order 1-4 x aggregation corpus/sentence-mean",
    ),
    run=run,
    verdict=verdict,
)
