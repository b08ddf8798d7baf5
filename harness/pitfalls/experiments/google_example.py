"""Google Cloud Translation's worked example (seed 003): which BLEU prints its numbers?

The page scores two candidates against ``The NASA Opportunity rover is battling a massive dust
storm on Mars.`` and prints per-order precisions 8/11 4/10 2/9 0/8 and 9/11 5/10 2/9 1/8, BP
0.83 for both, and BLEU 0.0 and 0.27.

Run: (1) a grid of in-house engine configurations — tokenizer × case × smoothing — each
checked against every printed number (precisions exactly, BP and BLEU rounded to two decimals
as printed); (2) every real library's and profile's defaults, checked against what they
expose (score always; BP and counts where the library reports them). The verdict names the
configurations and libraries that reproduce all printed numbers; for every library whose
defaults do not, the engine finds the single factor changes that would make them.
"""

from __future__ import annotations

import itertools
from typing import Any

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    EVERY_IMPLEMENTATION,
    Experiment,
    Measurement,
    Table,
    Verdict,
    deciding,
    flipping_factors,
    fmt,
    measure_libraries,
    profile_of,
    unavailable,
)

FIXTURE = "google_nasa_opportunity"
CANDIDATES = ("candidate_1", "candidate_2")
TOKENIZERS = ("13a", "intl", "whitespace", "char")
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


def grid() -> list[BleuConfig]:
    """The engine configurations tried (closest reference length; one reference anyway)."""
    out = []
    for tok, lc, smooth in itertools.product(TOKENIZERS, (False, True), SMOOTHINGS):
        out.append(
            BleuConfig(
                tokenize=tok,
                lowercase=lc,
                smooth=smooth,
                zero_guard="none",
                ngram_totals="floor1" if smooth.startswith("nltk-") else "plain",
            )
        )
    return out


def label(cfg: BleuConfig) -> str:
    return f"engine[tok={cfg.tokenize},{'lc' if cfg.lowercase else 'cased'},smooth={cfg.smooth}]"


def _printed() -> dict[str, Any]:
    claim = load_fixture(FIXTURE).claim
    assert claim is not None  # the fixture carries the seed's printed numbers
    p = claim["printed"]
    return {
        c: {
            "counts": [int(x[0]) for x in p["precisions"][c]],
            "totals": [int(x[1]) for x in p["precisions"][c]],
            "bp": float(p["bp"][c]),
            "bleu": float(p["bleu"][c]),
        }
        for c in CANDIDATES
    }


def checks(measurement: Measurement, printed: dict[str, Any]) -> dict[str, bool | None]:
    """Which printed numbers ``measurement`` reproduces (``None``: the library does not expose it).
    BLEU and BP are compared after rounding to the printed two decimals (0–1 scale)."""
    if not measurement.ok:
        return {"bleu": False, "bp": None, "precisions": None}
    bp = measurement.extra.get("bp")
    counts, totals = measurement.extra.get("counts"), measurement.extra.get("totals")
    prec = None
    if counts is not None and totals is not None:
        prec = list(counts) == printed["counts"] and list(totals) == printed["totals"]
    return {
        "bleu": round(measurement.score / 100.0, 2) == printed["bleu"],  # type: ignore[operator]
        "bp": None if bp is None else round(bp, 2) == printed["bp"],
        "precisions": prec,
    }


def _all_ok(c: dict[str, bool | None]) -> bool:
    return all(v is not False for v in c.values())


def run() -> Table:
    fx = load_fixture(FIXTURE)
    printed = _printed()
    table = Table()
    table.notes["printed"] = printed
    for cand in CANDIDATES:
        corpus = fx.corpus(cand)
        for cfg in grid():
            r = engine.corpus_score(corpus, cfg)
            table.add(
                Measurement(
                    label(cfg),
                    cand,
                    r.score,
                    signature=cfg.signature(),
                    extra={"bp": r.bp, "counts": r.counts, "totals": r.totals},
                )
            )
        table.extend(measure_libraries(corpus, case=cand))
    return table


def _reproduces(cfg: BleuConfig) -> bool:
    fx = load_fixture(FIXTURE)
    printed = _printed()
    for cand in CANDIDATES:
        r = engine.corpus_score(fx.corpus(cand), cfg)
        m = Measurement(
            "x", cand, r.score, extra={"bp": r.bp, "counts": r.counts, "totals": r.totals}
        )
        if not _all_ok(checks(m, printed[cand])):
            return False
    return True


def verdict(table: Table) -> Verdict:
    printed = table.notes["printed"]
    matching: list[BleuConfig] = []
    for cfg in grid():
        if all(_all_ok(checks(table.get(label(cfg), c), printed[c])) for c in CANDIDATES):
            matching.append(cfg)
    toks = list(dict.fromkeys(c.tokenize for c in matching))
    cases = list(dict.fromkeys("lc" if c.lowercase else "cased" for c in matching))
    smooths = list(dict.fromkeys(c.smooth for c in matching))
    if len(matching) == len(toks) * len(cases) * len(smooths):  # a full product: say it once
        groups = [f"tok={'|'.join(toks)} case={'|'.join(cases)} smooth={'|'.join(smooths)}"]
    else:
        groups = [
            f"tok={c.tokenize} case={'lc' if c.lowercase else 'cased'} smooth={c.smooth}"
            for c in matching
        ]
    engine_part = "; ".join(groups)
    libs_ok, instead = [], []
    sides = [deciding(table, c) for c in CANDIDATES]
    for lab in sides[0]:
        ms = [side[lab] for side in sides]
        cs = [checks(m, printed[c]) for m, c in zip(ms, CANDIDATES, strict=True)]
        if all(_all_ok(c) for c in cs):
            libs_ok.append(lab)
            continue
        fixes = flipping_factors(profile_of(lab), matching, _reproduces)
        bad = sorted({k for c in cs for k, v in c.items() if v is False})
        text = f"{lab} {' / '.join(fmt(m.score) for m in ms)} (wrong {', '.join(bad)})"
        if fixes:
            text += f" <- {' or '.join(fixes[:2])}"
        instead.append(text)
    reason = (
        f"{len(matching)} of {len(grid())} engine configs reproduce every printed number "
        f"({engine_part or 'none'}); library defaults that do not (BLEU x100): "
        + "; ".join(instead)
    )
    gone = unavailable(table)
    if gone:
        reason += f"; real {', '.join(gone)} unavailable here (its profile stands in)"
    under = libs_ok + [f"engine {g}" for g in groups]
    return Verdict.split(under, instead, reason)


EXPERIMENT = Experiment(
    name="google_example",
    claim=(
        "For the NASA Opportunity example, BLEU gives per-order precisions 8/11 4/10 2/9 0/8 "
        "and 9/11 5/10 2/9 1/8, BP 0.83, and BLEU 0.0 and 0.27."
    ),
    source="003_9b9e8f448f39b158.txt (Google Cloud Translation BLEU page, worked example)",
    fixtures=(FIXTURE,),
    implementations=(
        "in-house engine grid",
        *EVERY_IMPLEMENTATION,
    ),
    configs=(
        f"tokenize {'/'.join(TOKENIZERS)} x case x smooth {len(SMOOTHINGS)} methods",
        "each library's defaults",
    ),
    run=run,
    verdict=verdict,
)
