"""Swapped hypothesis and reference files on WMT21 en→de: what they do to sacreBLEU, and
whether the text alone could tell a reference from a system output.

Not a test. For each of the 20 WMT21 systems against reference A: sacreBLEU (the in-house
``sacrebleu`` profile, proven equal to sacrebleu) as given and with the two files exchanged;
and the vocabulary richness of the system's text and of the human references B... (the mean
type–token ratio of 1,000-word windows, lowercased ``\\w+`` words) as a ratio to reference
A's. A swapped-file check from the text would need the systems' ratios below every human
reference's; ``check`` reads the file names instead (``harness/diagnose/check.py``)::

    BLEU_HARNESS_DATA=/work/shared/data .venv/bin/python benchmarks/bench_swapped.py
"""

from __future__ import annotations

import os
import re

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.preprocess import _swapped

WINDOW = 1000


def richness(lines: list[str]) -> float:
    """Mean type–token ratio of consecutive :data:`WINDOW`-word windows."""
    words = [w for line in lines for w in re.findall(r"\w+", line.lower())]
    ratios = [
        len(set(words[i : i + WINDOW])) / WINDOW for i in range(0, len(words) - WINDOW + 1, WINDOW)
    ]
    return sum(ratios) / len(ratios)


def main() -> None:
    if not os.environ.get("BLEU_HARNESS_DATA"):
        raise SystemExit("set BLEU_HARNESS_DATA=/path/to/shared/data (WMT21 en-de)")
    refs = ("A", "C", "D")
    corpora = load_wmt21_ende(systems=WMT21_SYSTEMS, refs=refs)
    sacre = PROFILES["sacrebleu"]
    first = next(iter(corpora.values()))
    human = {k: [seg[i] for seg in first.references] for i, k in enumerate(refs)}
    base = richness(human["A"])
    print("| system | sacreBLEU | files swapped | change | richness / reference A's |")
    print("| --- | ---: | ---: | ---: | ---: |")
    changes, ratios = [], []
    for name, corpus in corpora.items():
        one = corpus.__class__(
            corpus.hypotheses, tuple((r[0],) for r in corpus.references), name=name
        )
        before = engine.corpus_score(one, sacre).score
        after = engine.corpus_score(_swapped(one), sacre).score
        ratio = richness(list(corpus.hypotheses)) / base
        changes.append(after - before)
        ratios.append(ratio)
        print(f"| {name} | {before:.2f} | {after:.2f} | {after - before:+.2f} | {ratio:.3f} |")
    for k in refs[1:]:
        print(f"| human reference {k} | – | – | – | {richness(human[k]) / base:.3f} |")
    print(
        f"\nswapping moves sacreBLEU by {min(changes):+.2f} to {max(changes):+.2f}; the systems' "
        f"richness ratios span {min(ratios):.3f}–{max(ratios):.3f}"
    )


if __name__ == "__main__":
    main()
