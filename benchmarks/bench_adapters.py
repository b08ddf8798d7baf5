"""Benchmark: the real libraries as a WMT21 report runs them. Not a test.

Run from the repository root (needs ``BLEU_HARNESS_DATA``; ``evaluate`` also needs
``BLEU_HARNESS_EVALUATE_MODULE``)::

    .venv/bin/python benchmarks/bench_adapters.py
    .venv/bin/python benchmarks/bench_adapters.py --adapters lm-eval,nltk --segments 200
    .venv/bin/python benchmarks/bench_adapters.py --hyps sys/*.txt --refs ref.txt

For each adapter (default: every library the report runs), the time of its corpus-level call
on each of the WMT21 en→de systems (1,002 segments, references A, C and D) and of its
segment-level call on the first ``--segments`` segments of ``--segment-systems`` systems —
the report's work per library, at the speed the library's users get. One untimed call on five
segments first (imports). A digest of every result (score, counts, totals, lengths, brevity
penalty, ratio, precisions) is printed per adapter, so a change in how an adapter reads its
library can be checked to give the same numbers (run the script at both commits).

``--hyps``/``--refs`` time the same calls on your own files instead (one file per system, one
per reference). The last line sums the calls: what a cold ``report --real all`` spends in the
libraries themselves (with ``--segments`` 200 and ``--segment-systems`` every system), which no
number of workers brings below that sum divided by the usable CPUs; the default spot check runs
them on three systems of each test set (:mod:`bench_spot_check` measures it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.bleu.result import BleuResult
from harness.data.datasets import load_wmt21_ende
from harness.data.io import load_text_corpus
from harness.scorers import DEFAULT_ADAPTERS
from harness.scorers.registry import get_adapter
from harness.session.resources import usable_cpus


def _fields(r: BleuResult) -> list[object]:
    return [r.score, r.counts, r.totals, r.hyp_len, r.ref_len, r.bp, r.ratio, r.precisions]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--adapters", default=",".join(DEFAULT_ADAPTERS))
    ap.add_argument("--segments", type=int, default=200)
    ap.add_argument("--segment-systems", type=int, default=5)
    ap.add_argument("--hyps", nargs="+", metavar="FILE", help="system outputs, one per file")
    ap.add_argument("--refs", nargs="+", metavar="FILE", help="their references, one per file")
    args = ap.parse_args()
    if bool(args.hyps) != bool(args.refs):
        ap.error("--hyps and --refs go together")
    if args.hyps:
        corpora = {Path(h).stem: load_text_corpus(h, args.refs) for h in args.hyps}
    elif not os.environ.get("BLEU_HARNESS_DATA"):
        ap.error("set BLEU_HARNESS_DATA to the folder of the shared data, or give --hyps/--refs")
    else:
        corpora = load_wmt21_ende()
    systems = sorted(corpora)
    first = list(range(args.segments))
    print(f"load average {os.getloadavg()[0]:.2f}; {len(systems)} systems")
    total = total_segments = 0.0
    for name in args.adapters.split(","):
        adapter = get_adapter(name)
        if not adapter.available().ok:
            print(f"{name:20s} unavailable: {adapter.available().reason}")
            continue
        adapter.corpus(corpora[systems[0]].subset(range(5)))
        digest = hashlib.sha256()
        t0 = time.perf_counter()
        for s in systems:
            digest.update(json.dumps(_fields(adapter.corpus(corpora[s]))).encode())
        corpus_s = time.perf_counter() - t0
        total += corpus_s
        t0 = time.perf_counter()
        for s in systems[: args.segment_systems]:
            for r in adapter.segments(corpora[s].subset(first)):
                digest.update(json.dumps(_fields(r)).encode())
        segment_s = time.perf_counter() - t0
        total_segments += segment_s
        print(
            f"{name:20s} corpus × {len(systems)}: {corpus_s:6.2f} s   segments "
            f"{args.segment_systems} × {args.segments}: {segment_s:5.2f} s   "
            f"digest {digest.hexdigest()[:16]}"
        )
    cpus = usable_cpus()
    print(
        f"in all: corpus-level calls {total:.2f} s, segment-level {total_segments:.2f} s; on "
        f"{cpus} usable CPUs at least {(total + total_segments) / cpus:.1f} s of wall"
    )


if __name__ == "__main__":
    main()
