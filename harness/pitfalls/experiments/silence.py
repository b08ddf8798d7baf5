"""Silence is punished less than a small mistranslation (seed 001, pitfall 1).

System A mistranslates one word of the last of 8 identical sentences; system B outputs nothing
for it. The article computes A < B at corpus level: an empty line adds nothing to any n-gram
count, and B's other lines are long enough that c = r = 56 keeps BP at 1.

Run: every real library and every in-house profile on A and B, once with each library's
defaults (nltk, torchmetrics BLEUScore and pycocoevalcap then split on whitespace, so
``mat.`` is one token) and once with 13a tokens everywhere (the article counts the period as a
word). Verdict: A < B per implementation; where it does not hold, the factors whose single
change to sacrebleu's value restores A < B (the in-house engine, one factor at a time) say why.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import REGISTRY
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    EVERY_IMPLEMENTATION,
    Experiment,
    Table,
    Verdict,
    deciding,
    flipping_factors,
    fmt,
    measure_libraries,
    profile_mismatches,
    profile_of,
    unavailable,
)

FIXTURE = "silence_pitfall"
CONFIGS = ("defaults", "13a tokens")


def _config_for(config_name: str) -> Callable[[BleuConfig], BleuConfig] | None:
    if config_name == "defaults":
        return None

    def to_13a(cfg: BleuConfig) -> BleuConfig:
        if REGISTRY[cfg.tokenize].splits_only:  # whitespace, ascii-whitespace, none
            return cfg.replace(tokenize="13a")
        return cfg

    return to_13a


def run() -> Table:
    fx = load_fixture(FIXTURE)
    table = Table()
    for config_name in CONFIGS:
        for system in ("A", "B"):
            table.extend(
                measure_libraries(
                    fx.corpus(system),
                    case=f"{system}/{config_name}",
                    config_for=_config_for(config_name),
                )
            )
    table.notes["printed"] = dict(fx.claim["printed"]) if fx.claim else {}
    return table


def _profile_config(label: str, config_name: str) -> BleuConfig:
    cfg = profile_of(label)
    change = _config_for(config_name)
    return change(cfg) if change else cfg


def _a_less_than_b(config_name: str) -> Callable[[BleuConfig], bool]:

    fx = load_fixture(FIXTURE)
    a, b = fx.corpus("A"), fx.corpus("B")

    def holds(cfg: BleuConfig) -> bool:
        return engine.corpus_score(a, cfg).score < engine.corpus_score(b, cfg).score

    return holds


#: What a factor that restores A < B means here (the factor itself is found by the engine).
WHY = {
    "ngram_totals=plain": "nltk floors each segment's order-n total at 1, so B's empty line "
    "adds 1 to every denominator",
    "aggregation=corpus": "a mean of sentence scores gives B's empty line 0 while A's wrong "
    "line keeps partial credit",
    "tokenize=13a": "split on whitespace, 'mat.' never matches 'mat' and no 4-gram matches, "
    "so both score 0",
    "smooth=exp": "with no 4-gram match the score is decided by how zeros are smoothed",
}


def verdict(table: Table) -> Verdict:
    results: dict[str, dict[str, bool]] = {}
    why: dict[str, list[str]] = {}
    for config_name in CONFIGS:
        a_side = deciding(table, f"A/{config_name}")
        b_side = deciding(table, f"B/{config_name}")
        holds = _a_less_than_b(config_name)
        change = _config_for(config_name)
        target = change(PROFILES["sacrebleu"]) if change else PROFILES["sacrebleu"]
        for label, ma in a_side.items():
            mb = b_side.get(label)
            if mb is None or not (ma.ok and mb.ok):
                continue
            ok = ma.score < mb.score  # type: ignore[operator]
            results.setdefault(label, {})[config_name] = ok
            if ok:
                continue
            rel = "=" if ma.score == mb.score else ">"
            factors = flipping_factors(_profile_config(label, config_name), target, holds)
            text = f"A {fmt(ma.score)} {rel} B {fmt(mb.score)} ({config_name})"
            if factors:
                text += f", restored by {' or '.join(factors)}"
                known = [WHY[f] for f in factors if f in WHY]
                if known:
                    text += f": {known[0]}"
            why.setdefault(label, []).append(text)
    holds_under, fails = [], []
    for label, by_config in results.items():
        good = [c for c, ok in by_config.items() if ok]
        if len(good) == len(by_config):
            holds_under.append(label)
        elif good:
            holds_under.append(f"{label} ({' and '.join(good)} only)")
        else:
            fails.append(label)
    sb = table.find("sacrebleu", "B/13a tokens")
    lengths = ""
    if sb is not None and sb.ok:
        lengths = (
            f"sacrebleu B: c = {sb.extra['hyp_len']}, r = {sb.extra['ref_len']}, "
            f"BP = {fmt(sb.extra['bp'], 3)} (printed c = r = 56); "
        )
    n_ok = sum(all(v.values()) for v in results.values())
    partial = sum(any(v.values()) and not all(v.values()) for v in results.values())
    reason = f"{lengths}A < B for {n_ok} of {len(results)} implementations in both configs"
    if partial:
        reason += f" (and for {partial} more in one config only)"
    if why:
        # one entry per implementation: the last config it fails under says the most
        reason += "; flips for " + "; ".join(f"{k}: {v[-1]}" for k, v in why.items())
    gone = unavailable(table)
    if gone:
        reason += f"; real {', '.join(gone)} unavailable here (its profile stands in)"
    bad = profile_mismatches(table, table.cases())
    if bad:
        reason += f"; profile != library: {', '.join(bad)}"
    return Verdict.split(holds_under, fails, reason)


EXPERIMENT = Experiment(
    name="silence",
    claim=(
        "A system that outputs nothing for one sentence gets a higher corpus BLEU than one "
        "that mistranslates a single word of it (BLEU(A) < BLEU(B))."
    ),
    source="001_4d9c0f31bc4f1899.txt (pitfall 1, silence)",
    fixtures=(FIXTURE,),
    implementations=(*EVERY_IMPLEMENTATION,),
    configs=("each library's defaults", "13a tokens for the whitespace-splitting ones"),
    run=run,
    verdict=verdict,
)
