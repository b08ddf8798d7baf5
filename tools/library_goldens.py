"""Write ``tests/goldens/library_scores.json``: BLEU scores computed by the real sacrebleu and
nltk on fixed corpora, for the tests that need no library (``make check``).

Each case is a corpus (hypotheses, per-segment references), the profile that claims to
reproduce the library, the library call that scored it (with the library's version) and the
score it printed at full precision. The corpora are built to tell apart the arithmetic that
implementations get wrong: hypotheses shorter and longer than their references (the brevity
penalty's ratio), several n-gram orders without a match (sacrebleu's ``exp`` smoothing halves
the precision once more for each), references equally far from the hypothesis on either side
(the closest-length rule's ties), plus seeded random corpora.

Usage::

    .venv/bin/python tools/library_goldens.py           # rewrite the file
    .venv/bin/python tools/library_goldens.py --check   # exit 1 when it would change

``tests/test_library_goldens.py`` reads the file (the engine's profiles must give every score)
and runs :func:`goldens` again to check the file is what the installed libraries give.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GOLDENS = REPO / "tests" / "goldens" / "library_scores.json"

Refs = list[list[str]]

#: The corpora built by hand: (name, hypotheses, per-segment references).
HAND_BUILT: tuple[tuple[str, list[str], Refs], ...] = (
    (
        "hypotheses-shorter",  # the brevity penalty applies: its ratio's direction matters
        ["the cat sat on the mat", "a dog barked"],
        [["the black cat sat on the old mat today"], ["a big dog barked at the postman loudly"]],
    ),
    (
        "hypotheses-longer",  # no brevity penalty
        ["the cat sat on the mat by the door today", "a dog barked at the man"],
        [["the cat sat on the mat"], ["a dog barked"]],
    ),
    (
        "two-orders-without-matches",  # exp smoothing: 1/2 then 1/4 of the totals
        ["cat the mat on sat dog", "book a reads he quickly"],
        [["the cat sat on the mat"], ["he reads a book quickly"]],
    ),
    (
        "three-orders-without-matches",
        ["mat cat dog sun moon", "red blue green"],
        [["the cat sat on the mat"], ["red and blue and green"]],
    ),
    (
        "closest-length-tie",  # 5 tokens, references of 4 and 6: the tie goes to the shorter
        ["the cat sat on mats", "he reads a good book"],
        [
            ["the cat sat on", "the cat sat on the mat"],
            ["he reads a book", "he reads a very good book"],
        ],
    ),
    (
        "closest-length-tie-short-hypothesis",  # 3 tokens, references of 2 and 4
        ["the cat sat", "a dog ran"],
        [["the cat", "the cat sat down"], ["a dog", "a dog ran off"]],
    ),
)

_WORDS = "the a cat dog sat ran on in mat park he she reads book quickly , .".split()


def _random_corpus(rng: random.Random) -> tuple[list[str], Refs]:
    """A few segments of words from a small vocabulary (so n-grams match), 1–3 references each;
    a hypothesis is often a reference with words dropped or replaced."""
    hyps: list[str] = []
    refs: Refs = []
    for _ in range(rng.randint(1, 5)):
        seg = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12)))
            for _ in range(rng.randint(1, 3))
        ]
        words = seg[0].split()
        hyp = [w if rng.random() < 0.7 else rng.choice(_WORDS) for w in words]
        at = rng.randint(0, len(hyp))
        del hyp[at : at + rng.randint(0, 3)]  # a few words left out: shorter hypotheses
        hyps.append(" ".join(hyp) or rng.choice(_WORDS))
        refs.append(seg)
    return hyps, refs


def corpora(seed: int = 20261205, random_cases: int = 24) -> list[tuple[str, list[str], Refs]]:
    """The hand-built corpora, then ``random_cases`` seeded random ones."""
    rng = random.Random(seed)
    out = [(name, list(h), [list(r) for r in refs]) for name, h, refs in HAND_BUILT]
    for k in range(random_cases):
        hyps, refs = _random_corpus(rng)
        out.append((f"random-{k:02d}", hyps, refs))
    return out


def _sacrebleu(hyps: list[str], refs: Refs) -> float:
    import sacrebleu

    # sacrebleu takes reference streams: each stream one reference of every segment, None
    # where a segment has fewer references
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    return float(sacrebleu.BLEU().corpus_score(hyps, streams).score)


def _sacrebleu_sentence(hyps: list[str], refs: Refs) -> float:
    import sacrebleu

    bleu = sacrebleu.BLEU(effective_order=True)
    scores = [bleu.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]
    return float(sum(scores) / len(scores))


def _nltk(hyps: list[str], refs: Refs) -> float:
    from nltk.translate.bleu_score import corpus_bleu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns when an order has no match
        score = corpus_bleu([[r.split() for r in seg] for seg in refs], [h.split() for h in hyps])
    return 100.0 * float(score)


#: Profile → (distribution, the call in words, the function that makes it).
LIBRARIES: dict[str, tuple[str, str, Callable[[list[str], Refs], float]]] = {
    "sacrebleu": ("sacrebleu", "BLEU().corpus_score(hyps, streams).score", _sacrebleu),
    "sacrebleu-sentence": (
        "sacrebleu",
        "mean of BLEU(effective_order=True).sentence_score(h, refs).score",
        _sacrebleu_sentence,
    ),
    "nltk": (
        "nltk",
        "100 * corpus_bleu([[r.split() ...]], [h.split() ...]) (method0, uniform weights)",
        _nltk,
    ),
}


def goldens(cases: Sequence[tuple[str, list[str], Refs]] | None = None) -> dict[str, Any]:
    """Every corpus scored by every library of :data:`LIBRARIES`, as the file stores it."""
    rows = []
    for name, hyps, refs in corpora() if cases is None else cases:
        for profile, (dist, call, run) in LIBRARIES.items():
            rows.append(
                {
                    "case": name,
                    "profile": profile,
                    "library": f"{dist} {metadata.version(dist)}",
                    "call": call,
                    "hypotheses": hyps,
                    "references": refs,
                    "score": run(hyps, refs),
                }
            )
    return {"generated_by": "tools/library_goldens.py", "cases": rows}


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the file would change")
    args = ap.parse_args(argv)
    text = render(goldens())
    if args.check:
        current = GOLDENS.read_text("utf-8") if GOLDENS.exists() else ""
        if current != text:
            print(f"{GOLDENS.relative_to(REPO)} is out of date: run tools/library_goldens.py")
            return 1
        return 0
    GOLDENS.parent.mkdir(parents=True, exist_ok=True)
    tmp = GOLDENS.with_suffix(".tmp")
    tmp.write_text(text, "utf-8")
    tmp.replace(GOLDENS)
    print(f"wrote {GOLDENS.relative_to(REPO)}: {len(json.loads(text)['cases'])} scores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
