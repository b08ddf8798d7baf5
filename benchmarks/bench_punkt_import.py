"""How long a Punkt profile takes on lines without a mid-line sentence end, in a fresh process.

Not a test. Each run starts a new interpreter that imports the harness and scores 3,000
one-sentence lines (``the cat {i} sat on the mat .`` against ``the cat {i} sat on a mat .``)
with ``helm-bleu-1`` (nltk's ``word_tokenize``: Punkt, then the word rules), and reports the
wall time of the whole process's work, whether nltk's Punkt module was loaded (needed only where
Punkt has a potential sentence end to decide) and whether the whole nltk package was (it is not:
:mod:`harness.bleu.nltk_punkt_module` loads Punkt without nltk's ``__init__``).

    .venv/bin/python benchmarks/bench_punkt_import.py [--runs 3] [--profile helm-bleu-1] [--sentence-ends]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_RUN = """
import sys, time
start = time.perf_counter()
import harness
hyps = [f"the cat {i} sat on the mat ." + TAIL for i in range(3000)]
refs = [[f"the cat {i} sat on a mat ."] for i in range(3000)]
harness.corpus_bleu(hypotheses=hyps, references=refs, profile=PROFILE)
from harness.bleu.nltk_punkt_module import punkt_module
punkt = punkt_module.cache_info().currsize > 0
print(f"{time.perf_counter() - start:.2f}", punkt, "nltk" in sys.modules)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", default="helm-bleu-1")
    ap.add_argument(
        "--sentence-ends",
        action="store_true",
        help="hypotheses with a mid-line sentence end, so Punkt has one to decide",
    )
    args = ap.parse_args()
    tail = " It ran off ." if args.sentence_ends else ""
    code = _RUN.replace("PROFILE", repr(args.profile)).replace("TAIL", repr(tail))
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
        )
        seconds, punkt, whole = out.stdout.split()
        print(f"{args.profile}: {seconds} s, Punkt loaded: {punkt}, the whole nltk: {whole}")


if __name__ == "__main__":
    main()
