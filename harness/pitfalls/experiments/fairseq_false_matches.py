"""fairseq-score counts false n-gram matches (an independent check of fairseq's libbleu).

fairseq 0.12.2's ``fairseq-score`` numbers the words of both files with one ``Dictionary``
and its C++ ``libbleu`` matches n-grams by a 64-bit FNV-1a hash of their ids, whose bytes it
reads as signed chars: different n-grams collide, and a hypothesis n-gram that collides with
a reference n-gram counts as a match (:mod:`harness.bleu.hashed`). The ``fairseq`` profile
reproduces this (``ngram_identity="fairseq-hash"``, verified against the published libbleu
compiled with g++); the same profile with ``ngram_identity="tokens"`` is what the score means
to compute.

Run: both on WMT21 en→de newstest2021 when ``BLEU_HARNESS_DATA`` names the shared data
folder — every system against each of the references A, C and D alone (``fairseq-score``
takes one reference file) — and, always, on the smallest known case (121 distinct words, then
a bigram whose ids collide with a reference bigram's). How often: the false matches per order
(hashed minus exact matches, summed over runs), the segments and systems they touch; how
much: the BLEU difference per system and reference (max and mean). Without the data the
verdict says so and rests on the minimal case alone.
"""

from __future__ import annotations

import os

import numpy as np

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.data.datasets import WMT21_REFS, load_wmt21_ende
from harness.pitfalls import Experiment, Table, Verdict, fmt, measure_profile

HASHED = "harness:fairseq"
EXACT = "harness:fairseq+ngram_identity=tokens"
MINIMAL = "minimal case"
"""The case name of the two-segment corpus below."""


def minimal_corpus() -> Corpus:
    """Segment 1: 121 distinct words (ids 4-124) as hypothesis and reference; segment 2:
    ``a b c d e f`` against ``a b c d w121 w122`` — ``e f`` (ids 129, 130) hashes like
    ``w121 w122`` (ids 121, 122)."""
    words = " ".join(f"w{k}" for k in range(4, 125))
    return Corpus(
        hypotheses=(words, "a b c d e f"),
        references=((words,), ("a b c d w121 w122",)),
        name="fairseq-minimal-collision",
    )


def data() -> tuple[str, dict[str, Corpus]]:
    """(description, case → single-reference corpus): WMT21 when the data folder is set."""
    env = os.environ.get("BLEU_HARNESS_DATA", "").strip()
    if not (env and os.path.isdir(env)):
        return "WMT21 unavailable (BLEU_HARNESS_DATA not set)", {}
    cases: dict[str, Corpus] = {}
    for ref in WMT21_REFS:
        for system, corpus in load_wmt21_ende(env, refs=(ref,)).items():
            cases[f"{system}/{ref}"] = corpus
    return (
        f"WMT21 en-de newstest2021 (BLEU_HARNESS_DATA): {len(cases) // len(WMT21_REFS)} "
        f"systems x references {'/'.join(WMT21_REFS)} alone",
        cases,
    )


def _false_matches(corpus: Corpus) -> tuple[list[int], list[str]]:
    """False matches per order 1-4 (hashed minus exact) and the ids of the segments they
    touch."""
    hashed = engine.compute_statistics(corpus, PROFILES["fairseq"], max_order=4)
    exact = engine.compute_statistics(
        corpus, PROFILES["fairseq"].replace(ngram_identity="tokens"), max_order=4
    )
    extra = hashed.matches - exact.matches
    touched = np.flatnonzero(extra.any(axis=1))
    return [int(x) for x in extra.sum(axis=0)], [corpus.ids[i] for i in touched]


def run() -> Table:
    description, cases = data()
    table = Table()
    table.notes["data"] = description
    table.notes["cases"] = list(cases)
    false_matches: dict[str, list[int]] = {}
    segments: dict[str, list[str]] = {}
    for case, corpus in [(MINIMAL, minimal_corpus()), *cases.items()]:
        table.add(measure_profile("fairseq", corpus, case=case, label=HASHED))
        table.add(
            measure_profile("fairseq", corpus, case=case, label=EXACT, ngram_identity="tokens")
        )
        false_matches[case], segments[case] = _false_matches(corpus)
    table.notes["false_matches"] = false_matches
    table.notes["segments"] = segments
    return table


def _delta(table: Table, case: str) -> float | None:
    h, e = table.score(HASHED, case), table.score(EXACT, case)
    return None if h is None or e is None else h - e


def verdict(table: Table) -> Verdict:
    fm = table.notes["false_matches"]
    parts = []
    minimal = _delta(table, MINIMAL)
    parts.append(
        f"minimal case: {fmt(table.score(HASHED, MINIMAL), 3)} hashed vs "
        f"{fmt(table.score(EXACT, MINIMAL), 3)} exact, false matches per order "
        f"{'/'.join(map(str, fm[MINIMAL]))}"
    )
    cases = table.notes["cases"]
    if not cases:
        parts.append(f"{table.notes['data']}: the real data was not measured")
        holds = minimal is not None and minimal > 0
        return Verdict("reproduced" if holds else "not reproduced", "; ".join(parts))
    per_order = np.sum([fm[c] for c in cases], axis=0).tolist()
    matches = np.sum([table.get(EXACT, c).extra.get("counts", [0] * 4) for c in cases], axis=0)
    deltas = {c: d for c in cases if (d := _delta(table, c)) is not None}
    moved = {c: d for c, d in deltas.items() if d != 0}
    systems = sorted({c.split("/")[0] for c in moved})
    all_systems = {c.split("/")[0] for c in cases}
    segs = {s for c in cases for s in table.notes["segments"][c]}
    n_segments = len(segs)
    worst = max(deltas, key=lambda c: abs(deltas[c])) if deltas else None
    shares = (f"{x} ({100 * x / max(1, m):.3f}%)" for x, m in zip(per_order, matches, strict=True))
    parts.append(
        f"{table.notes['data']}: false matches per order 1-4 (share of exact matches) "
        + "/".join(shares)
        + f"; {n_segments} segment ids touched in at least one run; BLEU moves in {len(moved)} "
        f"of {len(cases)} runs ({len(systems)} of {len(all_systems)} systems)"
    )
    if worst is not None:
        mean = sum(abs(d) for d in deltas.values()) / len(deltas)
        parts.append(
            f"hashed - exact BLEU: max {fmt(deltas[worst], 5)} ({worst}), mean |delta| "
            f"{fmt(mean, 5)}"
        )
    holds = sum(per_order) > 0
    return Verdict("reproduced" if holds else "not reproduced", "; ".join(parts))


EXPERIMENT = Experiment(
    name="fairseq_false_matches",
    claim=(
        "fairseq-score counts false n-gram matches: n-grams whose dictionary ids hash alike "
        "in libbleu match each other, so its BLEU differs from exact n-gram matching."
    ),
    source=(
        "independent check of fairseq 0.12.2 clib/libbleu/libbleu.cpp (bleu_hash, "
        "bleu_addngram), not a seed article; confirmed against the published libbleu compiled "
        "with g++ (tests/test_profile_scripts.py)"
    ),
    fixtures=("WMT21 en-de (BLEU_HARNESS_DATA)", "minimal two-segment case (in code)"),
    implementations=(
        "profile fairseq (ngram_identity=fairseq-hash, verified against fairseq's libbleu)",
        "profile fairseq with ngram_identity=tokens (exact n-gram identity)",
    ),
    configs=("WMT21: 20 systems x references A, C, D alone", "max_order 4"),
    run=run,
    verdict=verdict,
)
