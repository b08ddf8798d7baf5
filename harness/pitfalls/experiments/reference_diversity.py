"""Single or non-diverse references punish valid paraphrases (seed 001, pitfall 2).

The hypothesis ``East Asian economy`` is scored against four diverse references, one of them
identical to it (the article: BLEU = 1), and against four copies of ``economy of East Asia``
(the article: only ``East`` matches, a very low BLEU).

Run: every real library and in-house profile on both fixtures at BLEU-4 (each library's
default) and BLEU-2. "Very low" is read with the interpretation bands of
``003_9b9e8f448f39b158.txt`` (below 10 is "almost useless"). The verdict is computed per
implementation and order; where the claim fails, the engine finds the single factor changes
(to another profile's value) that would make it hold, which says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
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
    precision,
    profile_mismatches,
    profile_of,
    unavailable,
)

FIXTURES = ("east_asian_economy_diverse", "east_asian_economy_identical")
ORDERS = (4, 2)
VERY_LOW = 10.0
"""BLEU below 10 (on 0–100): "almost useless" in the bands of 003_9b9e8f448f39b158.txt."""


def _with_order(order: int) -> Callable[[BleuConfig], BleuConfig]:
    def change(cfg: BleuConfig) -> BleuConfig:
        return cfg.replace(max_order=order, weights=None)

    return change


def run() -> Table:
    table = Table()
    for name in FIXTURES:
        corpus = load_fixture(name).corpus("mt")
        for order in ORDERS:
            table.extend(
                measure_libraries(
                    corpus, case=f"{name}/BLEU-{order}", config_for=_with_order(order)
                )
            )
    ident = load_fixture(FIXTURES[1])
    table.notes["printed"] = {
        "diverse_bleu": load_fixture(FIXTURES[0]).claim["printed"]["bleu"],  # type: ignore[index]
        "identical_matched_words": list(ident.claim["printed"]["matched_words"]),  # type: ignore[index]
    }
    return table


def _holds_for(order: int) -> Callable[[BleuConfig], bool]:

    diverse = load_fixture(FIXTURES[0]).corpus("mt")
    identical = load_fixture(FIXTURES[1]).corpus("mt")

    def holds(cfg: BleuConfig) -> bool:
        cfg = cfg.replace(max_order=order, weights=None)
        d = engine.corpus_score(diverse, cfg).score
        i = engine.corpus_score(identical, cfg).score
        return abs(d - 100.0) < 1e-6 and i < VERY_LOW

    return holds


def verdict(table: Table) -> Verdict:

    per_label: dict[str, list[int]] = {}
    labels: list[str] = []
    # (order, which side fails) -> [(label, score)], and the single-factor fixes found
    groups: dict[tuple[int, str], list[str]] = {}
    fixes: dict[tuple[int, str], Counter[str]] = {}
    for order in ORDERS:
        d_side = deciding(table, f"{FIXTURES[0]}/BLEU-{order}")
        i_side = deciding(table, f"{FIXTURES[1]}/BLEU-{order}")
        holds = _holds_for(order)
        for label, d in d_side.items():
            i = i_side.get(label)
            if label not in labels:
                labels.append(label)
            if i is None or not (d.ok and i.ok):
                continue
            d_ok = abs(d.score - 100.0) < precision(label, 1e-6)  # type: ignore[operator]
            i_ok = i.score < VERY_LOW  # type: ignore[operator]
            if d_ok and i_ok:
                per_label.setdefault(label, []).append(order)
                continue
            base = profile_of(label).replace(max_order=order, weights=None)
            found = flipping_factors(base, list(PROFILES.values()), holds)
            for side, ok, m in (("diverse != 1", d_ok, d), ("identical >= 10", i_ok, i)):
                if not ok:
                    groups.setdefault((order, side), []).append(f"{label} {fmt(m.score)}")
                    fixes.setdefault((order, side), Counter()).update(found)
    holds_under, fails = [], []
    for label in labels:
        orders = per_label.get(label, [])
        if len(orders) == len(ORDERS):
            holds_under.append(label)
        elif orders:
            holds_under.append(f"{label} (BLEU-{orders[0]} only)")
        else:
            fails.append(label)
    parts = []
    sb = table.find("sacrebleu", f"{FIXTURES[1]}/BLEU-4")
    if sb is not None and sb.ok:
        counts, totals = sb.extra["counts"], sb.extra["totals"]
        printed = " ".join(table.notes["printed"]["identical_matched_words"])
        parts.append(
            f"identical refs: {counts[0]}/{totals[0]} unigrams and {counts[1]}/{totals[1]} "
            f"bigrams match in sacrebleu (printed: only '{printed}'; 'economy' matches too)"
        )
    for (order, side), items in groups.items():
        common = [f for f, _ in fixes[(order, side)].most_common(2)]
        fix = f" [one change fixes most: {' or '.join(common)}]" if common else ""
        parts.append(f"BLEU-{order} {side}: {', '.join(items)}{fix}")
    gone = unavailable(table)
    if gone:
        parts.append(f"real {', '.join(gone)} unavailable here (its profile stands in)")
    bad = profile_mismatches(table, table.cases())
    if bad:
        parts.append(f"profile != library: {', '.join(bad)}")
    return Verdict.split(holds_under, fails, "; ".join(parts))


EXPERIMENT = Experiment(
    name="reference_diversity",
    claim=(
        "With diverse references (one equal to the hypothesis) 'East Asian economy' gets "
        "BLEU = 1, but with four identical references 'economy of East Asia' it gets a very "
        "low BLEU."
    ),
    source="001_4d9c0f31bc4f1899.txt (pitfall 2, single / non-diverse references)",
    fixtures=FIXTURES,
    implementations=(*EVERY_IMPLEMENTATION,),
    configs=("BLEU-4 (defaults)", "BLEU-2", f"very low = below {VERY_LOW:g} (seed 003 bands)"),
    run=run,
    verdict=verdict,
)
