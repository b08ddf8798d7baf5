"""Seeded forensic cases: how often ``identify`` ranks the injected preprocessing mistake first.

Not a test (``tests/test_forensics.py`` runs a smaller sample and asserts the 90 % bar). For
each kind of :data:`harness.diagnose.seeded.KINDS`, ``--cases`` cases on generated text
(``benchmarks/corpus_gen.py``, 200 segments × 3 references, a new seed per case) and, when
``BLEU_HARNESS_DATA`` is set, on WMT21 en→de (a window of ``--segments`` segments × 3
references of a different system per case); prints the share named first and the slowest
case, at the printed precision ``--digits`` (decimals on 0–100)::

    BLEU_HARNESS_DATA=/work/shared/data .venv/bin/python benchmarks/bench_forensics.py
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from corpus_gen import generate

from harness.data.corpus import Corpus
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.identify import identify, nearest
from harness.diagnose.seeded import KINDS, named_first, seeded_case
from harness.session import Session


def sources(cases: int, segments: int, seed: int) -> dict[str, list[Corpus]]:
    """Clean corpora per source, one per case."""
    out: dict[str, list[Corpus]] = {"generated": []}
    for i in range(cases):
        h, r = generate(200, 3, seed=seed + i)
        out["generated"].append(Corpus(tuple(h), tuple(tuple(x) for x in r), check_text=False))
    if os.environ.get("BLEU_HARNESS_DATA"):
        rng = random.Random(seed)
        systems = load_wmt21_ende()
        out["wmt21"] = []
        for i in range(cases):
            c = systems[WMT21_SYSTEMS[i % len(WMT21_SYSTEMS)]]
            start = rng.randrange(len(c) - segments)
            out["wmt21"].append(c.subset(range(start, start + segments)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=10)
    ap.add_argument("--segments", type=int, default=300)
    ap.add_argument("--digits", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(
        f"| source | kind | named first | cases | slowest wall s | slowest CPU s |  (printed with {args.digits} decimals)"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for src, corpora in sources(args.cases, args.segments, args.seed).items():
        for kind in KINDS:
            hits, slowest, cpu, misses = 0, 0.0, 0.0, []
            for i, c in enumerate(corpora):
                case = seeded_case(kind, c, seed=args.seed + i, digits=args.digits)
                t, p = time.perf_counter(), time.process_time()
                session = Session()  # each search counts its own statistics, as a CLI run
                found = identify(case.score, case.files, session=session) or nearest(
                    case.score, case.files, session=session, count=1
                )
                slowest = max(slowest, time.perf_counter() - t)
                cpu = max(cpu, time.process_time() - p)
                if named_first(kind, found[0]):
                    hits += 1
                else:
                    misses.append(f"{case.score}: {found[0].describe()}")
            print(
                f"| {src} | {kind} | {hits / len(corpora):.0%} | {len(corpora)} | {slowest:.2f} | {cpu:.2f} |"
            )
            for m in misses:
                print(f"    miss {m}")


if __name__ == "__main__":
    main()
