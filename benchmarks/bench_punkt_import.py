"""How long a Punkt profile takes on lines without a mid-line sentence end, in a fresh process.

Not a test. Each run starts a new interpreter that imports the harness and scores 3,000
one-sentence lines (``the cat {i} sat on the mat .`` against ``the cat {i} sat on a mat .``)
with ``helm-bleu-1`` (nltk's ``word_tokenize``: Punkt, then the word rules), and reports the
wall time of the whole process's work and whether nltk was loaded: nltk is needed only where
Punkt has a potential sentence end to decide.

    .venv/bin/python benchmarks/bench_punkt_import.py [--runs 3] [--profile helm-bleu-1]
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
hyps = [f"the cat {i} sat on the mat ." for i in range(3000)]
refs = [[f"the cat {i} sat on a mat ."] for i in range(3000)]
harness.corpus_bleu(hypotheses=hyps, references=refs, profile=PROFILE)
print(f"{time.perf_counter() - start:.2f}", "nltk" in sys.modules)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", default="helm-bleu-1")
    args = ap.parse_args()
    code = _RUN.replace("PROFILE", repr(args.profile))
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
        )
        seconds, loaded = out.stdout.split()
        print(f"{args.profile}: {seconds} s, nltk loaded: {loaded}")


if __name__ == "__main__":
    main()
