"""Corpus BLEU is not the mean of sentence BLEU (seeds 001 and 003).

Both seeds stress that BLEU is a corpus metric: statistics are summed over the corpus before
the score is computed, so it does not factor over sentences (003: "BLEU cannot be factorised
over individual sentences"; 001: "not an average of sentence scores"). Averaging sentence
scores is what many users do anyway (sacrebleu#98, #141; nltk#1838).

Run: the real sacrebleu (``corpus_score`` vs the mean of ``sentence_score``, its sentence
default with effective order), the real nltk (``corpus_bleu`` vs the mean of
``sentence_bleu``) and the real pytorch-ignite (``Bleu(average="micro")`` vs its default
``average="macro"``, which *is* the sentence mean and is what ignite users report), plus the in-house profiles of both, on WMT21 en→de when
``BLEU_HARNESS_DATA`` names the shared data folder (the 8 MQM-rated systems, the first
``N_SEGMENTS`` segments for runtime, references A, C, D), otherwise on multi-system fixtures.
The table notes say which. The verdict is computed per library from the gaps; the reason adds
whether the two aggregations rank the systems differently.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

from harness.bleu.profiles import PROFILES
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende, wmt21_mqm
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    Experiment,
    Table,
    Verdict,
    fmt,
    measure_adapter,
    measure_profile,
)

N_SEGMENTS = 150
MIN_GAP = 0.01
"""BLEU points; a smaller difference counts as equal."""

FIXTURE_GROUPS = {
    "silence_pitfall": ("A", "B"),
    "edge_empty_hypothesis": ("none_empty", "one_empty"),
    "edge_ragged_references": ("system",),
    "edge_reference_length_tie": ("system",),
}

#: (library, corpus-level implementation, sentence-mean implementation)
PAIRS = (
    ("sacrebleu", "sacrebleu", "sacrebleu-sentence"),
    ("nltk", "nltk", "nltk (sentence mean)"),
    # pytorch-ignite's default Bleu() *is* the sentence mean (average="macro"); "micro" is corpus
    ("ignite", "ignite (micro)", "ignite"),
    ("harness:sacrebleu", "harness:sacrebleu", "harness:sacrebleu-sentence"),
    ("harness:nltk", "harness:nltk", "harness:nltk+aggregation=sentence-mean"),
)


def data() -> tuple[str, list[dict[str, Any]]]:
    """(description, groups of system → corpus); WMT21 when the data folder is set."""
    env = os.environ.get("BLEU_HARNESS_DATA", "").strip()
    if env and os.path.isdir(env):
        rated = [
            s
            for s, row in wmt21_mqm(env)["system"].items()
            if row["text_in_subset"] and s in WMT21_SYSTEMS
        ]
        corpora = load_wmt21_ende(env, systems=rated)
        subset = {s: c.subset(range(N_SEGMENTS)) for s, c in corpora.items()}
        return (
            f"WMT21 en-de newstest2021 (BLEU_HARNESS_DATA): the {len(rated)} MQM-rated systems, "
            f"segments 1-{N_SEGMENTS}, references A/C/D",
            [subset],
        )

    groups = []
    for name, systems in FIXTURE_GROUPS.items():
        fx = load_fixture(name)
        groups.append({f"{name}/{s}": fx.corpus(s) for s in systems})
    return (
        "shipped fixtures (BLEU_HARNESS_DATA not set): " + ", ".join(FIXTURE_GROUPS),
        groups,
    )


def run() -> Table:
    description, groups = data()
    table = Table()
    table.notes["data"] = description
    table.notes["groups"] = [list(g) for g in groups]
    nltk_mean = PROFILES["nltk"].replace(aggregation="sentence-mean")
    ignite_micro = PROFILES["ignite"].replace(aggregation="corpus")
    for group in groups:
        for system, corpus in group.items():
            table.add(measure_adapter("sacrebleu", corpus, case=system))
            table.add(measure_adapter("sacrebleu-sentence", corpus, case=system))
            table.add(measure_adapter("nltk", corpus, case=system))
            table.add(
                measure_adapter(
                    "nltk", corpus, nltk_mean, case=system, label="nltk (sentence mean)"
                )
            )
            table.add(
                measure_adapter("ignite", corpus, ignite_micro, case=system, label="ignite (micro)")
            )
            table.add(measure_adapter("ignite", corpus, case=system))
            table.add(measure_profile("sacrebleu", corpus, case=system))
            table.add(measure_profile("sacrebleu-sentence", corpus, case=system))
            table.add(measure_profile("nltk", corpus, case=system))
            table.add(measure_profile("nltk", corpus, case=system, aggregation="sentence-mean"))
    return table


def _discordant(a: dict[str, float], b: dict[str, float]) -> list[str]:
    """System pairs ordered differently by ``a`` and ``b``."""
    out = []
    for x, y in itertools.combinations(a, 2):
        if (a[x] - a[y]) * (b[x] - b[y]) < 0:
            out.append(f"{x.split('/')[-1]}/{y.split('/')[-1]}")
    return out


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    for lib, corp, sent in PAIRS:
        gaps: list[float] = []
        equal: list[str] = []
        swaps: list[str] = []
        missing = False
        for group in table.notes["groups"]:
            c = {s: table.score(corp, s) for s in group}
            m = {s: table.score(sent, s) for s in group}
            if any(v is None for v in (*c.values(), *m.values())):
                missing = True
                continue
            gaps += [c[s] - m[s] for s in group]  # type: ignore[operator]
            equal += [s for s in group if abs(c[s] - m[s]) <= MIN_GAP]  # type: ignore[operator]
            swaps += _discordant(c, m)  # type: ignore[arg-type]
        if missing or not gaps:
            parts.append(f"{lib}: no numbers")
            continue
        (fails if equal else holds).append(lib)
        parts.append(
            f"{lib}: corpus - sentence mean {fmt(min(gaps))} to {fmt(max(gaps))}"
            + (f", equal for {', '.join(equal)}" if equal else "")
            + (f", ranking differs ({', '.join(swaps)})" if swaps else ", same ranking")
        )
    reason = f"{table.notes['data']}: " + "; ".join(parts)
    return Verdict.split(holds, fails, reason)


EXPERIMENT = Experiment(
    name="corpus_vs_sentence",
    claim=(
        "Corpus BLEU is not the mean of sentence-level BLEU: the two aggregations give "
        "different numbers for the same system."
    ),
    source="003_9b9e8f448f39b158.txt (BLEU limitations), 001_4d9c0f31bc4f1899.txt; sacrebleu#98",
    fixtures=("WMT21 en-de (BLEU_HARNESS_DATA)", *FIXTURE_GROUPS),
    implementations=(
        "real sacrebleu corpus_score / sentence_score mean",
        "real nltk corpus_bleu / sentence_bleu mean",
        "real pytorch-ignite Bleu average='micro' / 'macro' (its default)",
        "profiles sacrebleu, sacrebleu-sentence, nltk (+sentence-mean)",
    ),
    configs=(f"WMT21: 8 MQM-rated systems x segments 1-{N_SEGMENTS}", "else fixtures"),
    run=run,
    verdict=verdict,
)
