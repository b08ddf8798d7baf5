"""HELM's BLEU depends on sentence splitting (an independent reading of crfm-helm's code).

crfm-helm 0.5.16 scores ``bleu_1`` / ``bleu_4`` (``helm/benchmark/metrics/
evaluate_reference_metrics.py``) with nltk's ``sentence_bleu`` on ``word_tokenize(text)``,
and ``word_tokenize`` first splits the text into sentences with the Punkt model before the
Treebank word rules run on each sentence. The word rules split a period off only at the end of
their text, so wherever Punkt ends a sentence in mid-line the period becomes a token of its own
(``"-5. 1.2.3"`` → ``-5 . 1.2.3``); taken as one sentence (``preserve_line=True``, or any
re-implementation that skips the split) the line keeps ``-5.`` whole. Both readings are the
same BLEU formula over different tokens.

Run: the in-house ``helm-bleu-1`` and ``helm-bleu-4`` profiles (``nltk-punkt``: Punkt, then
the word rules; verified against HELM's published functions with nltk's real
``word_tokenize`` in ``tests/test_profile_frameworks.py``) and the same profiles with
``tokenize=nltk-word`` (the line as one sentence), on a small built-in example and, when
``BLEU_HARNESS_DATA`` names the shared data folder, on WMT21 en→de (systems
:data:`WMT21_CASES`, reference A, all segments). The table notes count the texts whose tokens
the split changes. The verdict holds per data set when BLEU moves by more than ``MIN_GAP``.
"""

from __future__ import annotations

import os

from harness.bleu.tokenizers import get_tokenizer
from harness.data.corpus import Corpus
from harness.data.datasets import load_wmt21_ende
from harness.errors import HarnessError
from harness.pitfalls import Experiment, Table, Verdict, fmt, measure_profile

MIN_GAP = 0.01
"""BLEU points; a smaller difference counts as equal."""
ORDERS = (1, 4)
WMT21_CASES = ("BUPT_rush", "Facebook-AI")
BUILT_IN = "built-in example"

#: Lines where Punkt ends a sentence in mid-line: after a number, after an ordinary word
#: before a capital, around abbreviations it knows (``Dr.``) and with a quote after the period.
EXAMPLE = Corpus(
    hypotheses=(
        "-5. 1.2.3",
        "The talks ended. Dr. Smith flew home on Friday.",
        'He said "no." Then he left!',
        "Prices rose 3.5 per cent. Analysts expected more.",
    ),
    references=(
        ("1.2.3",),
        ("The talks were over. Dr. Smith flew home on Friday.",),
        ('He said "no." Then he walked out.',),
        ("Prices rose by 3.5 per cent. Analysts had expected more.",),
    ),
    name=BUILT_IN,
)


def _corpora() -> tuple[dict[str, Corpus], str]:
    """(case → corpus, what the WMT21 part used or why it was left out)."""
    corpora = {BUILT_IN: EXAMPLE}
    env = os.environ.get("BLEU_HARNESS_DATA", "").strip()
    if not (env and os.path.isdir(env)):
        return corpora, "WMT21 not run (BLEU_HARNESS_DATA not set)"
    try:
        wmt = load_wmt21_ende(env, systems=list(WMT21_CASES), refs=("A",))
    except HarnessError as exc:
        return corpora, f"WMT21 not run ({exc})"
    corpora.update({f"WMT21 {s}": c for s, c in wmt.items()})
    return corpora, "WMT21 en-de newstest2021 (BLEU_HARNESS_DATA), reference A, 1002 segments"


def _changed(corpus: Corpus) -> dict[str, int]:
    """How many segments (and texts) the Punkt split tokenizes differently."""
    split, whole = get_tokenizer("nltk-punkt"), get_tokenizer("nltk-word")
    segments = texts = 0
    for hyp, refs in zip(corpus.hypotheses, corpus.references, strict=True):
        moved = sum(split(t) != whole(t) for t in (hyp.strip(), *refs))
        texts += moved
        segments += moved > 0
    return {"segments": segments, "texts": texts, "of_segments": len(corpus)}


def run() -> Table:
    table = Table()
    corpora, data = _corpora()
    table.notes["data"] = data
    table.notes["changed"] = {}
    for case, corpus in corpora.items():
        for n in ORDERS:
            table.add(measure_profile(f"helm-bleu-{n}", corpus, case=case))
            table.add(measure_profile(f"helm-bleu-{n}", corpus, case=case, tokenize="nltk-word"))
        try:
            table.notes["changed"][case] = _changed(corpus)
        except HarnessError as exc:  # the Punkt model is not installed
            table.notes["changed"][case] = {"error": str(exc)}
    return table


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    for case, changed in table.notes["changed"].items():
        deltas: list[str] = []
        moved = False
        missing = False
        for n in ORDERS:
            split = table.score(f"harness:helm-bleu-{n}", case)
            whole = table.score(f"harness:helm-bleu-{n}+tokenize=nltk-word", case)
            if split is None or whole is None:
                missing = True
                continue
            moved |= abs(split - whole) > MIN_GAP
            deltas.append(
                f"bleu_{n} {fmt(split, 4)} with the split vs {fmt(whole, 4)} as one sentence "
                f"({split - whole:+.4f})"
            )
        if missing or "error" in changed:
            parts.append(f"{case}: no numbers ({changed.get('error', 'a profile did not run')})")
            continue
        (holds if moved else fails).append(case)
        parts.append(
            f"{case}: {changed['segments']} of {changed['of_segments']} segments "
            f"({changed['texts']} texts) tokenized differently; " + ", ".join(deltas)
        )
    parts.append(table.notes["data"])
    return Verdict.split(holds, fails, "; ".join(parts))


EXPERIMENT = Experiment(
    name="helm_sentence_split",
    claim=(
        "HELM's bleu_1/bleu_4 tokenize with nltk's word_tokenize, which splits sentences with "
        "Punkt first: the same corpus scores differently than with each line taken as one "
        "sentence."
    ),
    source=(
        "independent check of crfm-helm 0.5.16 evaluate_reference_metrics.py bleu_1/bleu_4 "
        "and nltk 3.10.4 word_tokenize (no seed article)"
    ),
    fixtures=(BUILT_IN, "WMT21 en-de BUPT_rush, Facebook-AI, ref A (BLEU_HARNESS_DATA)"),
    implementations=(
        "harness:helm-bleu-1, harness:helm-bleu-4 (nltk-punkt: verified against HELM's code)",
        "the same with tokenize=nltk-word (the line as one sentence)",
    ),
    configs=("Punkt sentence split (HELM)", "the line as one sentence"),
    run=run,
    verdict=verdict,
)
