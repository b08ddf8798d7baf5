"""Benchmark: the report's spot check of the real libraries against the profiles' own work.
Not a test.

On 16 seeded generated systems × 3,000 segments × 1 reference (:mod:`corpus_gen`, the shape of
WMT17 newstest2017 en→de), each in a fresh process, one worker, nothing cached: the default
profiles at corpus and segment level on every system (what a report's numbers come from),
every default library on the spot check (``SPOT_CHECK``: the systems and segments it draws
with the default seed, each library scoring those segments one by one and as a corpus of
their own), and with ``--all`` every library on every system and segment
(``report --real all``); beside them ``sacrebleu.corpus_bleu`` on the 16 systems in its own
process. The spot check is sized to cost less than the profiles::

    .venv/bin/python benchmarks/bench_spot_check.py [--all] [--systems 16] [--segments 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _measure(what: str, systems: int, segments: int) -> dict[str, float]:
    """In this process: generate the systems, then time ``what``."""
    import corpus_gen

    from harness.bleu.profiles import DEFAULT_PROFILES
    from harness.data.corpus import Corpus
    from harness.run import RunPlan, run
    from harness.run.library_sample import EVERYTHING, SPOT_CHECK
    from harness.scorers import DEFAULT_ADAPTERS
    from harness.session import Session

    outputs, streams = corpus_gen.systems(systems, segments, 1, seed=corpus_gen.SEED)
    refs = tuple(zip(*streams, strict=True))
    corpora = [
        ("files", f"sys{k:02d}", Corpus(tuple(h), refs, name=f"sys{k:02d}"))
        for k, h in enumerate(outputs)
    ]
    start = time.perf_counter()
    cpu = time.process_time()
    if what == "sacrebleu":
        import sacrebleu

        for h in outputs:
            sacrebleu.corpus_bleu(h, [list(s) for s in streams])
        rows = systems
    else:
        impls = (
            [f"profile:{p}" for p in DEFAULT_PROFILES]
            if what == "profiles"
            else [f"adapter:{a}" for a in DEFAULT_ADAPTERS]
        )
        libraries = SPOT_CHECK if what == "spot-check" else EVERYTHING
        plan = RunPlan.of(
            corpora,
            impls,
            levels=("corpus", "segment"),
            session=Session(jobs=1),
            libraries=libraries,
        )
        rows = len(run(plan))
    return {
        "seconds": time.perf_counter() - start,
        "cpu": time.process_time() - cpu,
        "rows": rows,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="also every library on everything")
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--segments", type=int, default=3000)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(_measure(args.one, args.systems, args.segments)))
        return
    print(
        f"bench_spot_check {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{args.systems} systems × {args.segments} segments, load {os.getloadavg()[0]:.2f}"
    )
    whats = ["sacrebleu", "profiles", "spot-check", *(["every-library"] if args.all else [])]
    got = {}
    for what in whats:
        argv = [sys.executable, __file__, "--one", what]
        argv += ["--systems", str(args.systems), "--segments", str(args.segments)]
        done = subprocess.run(argv, check=True, capture_output=True, text=True)
        got[what] = json.loads(done.stdout.splitlines()[-1])
    base = got["sacrebleu"]["seconds"]
    print("\n| run | wall s | CPU s | rows | × sacrebleu.corpus_bleu |")
    print("|---|---:|---:|---:|---:|")
    for what, r in got.items():
        print(
            f"| {what} | {r['seconds']:.1f} | {r['cpu']:.1f} | {r['rows']:,} | "
            f"{r['seconds'] / base:.2f}× |"
        )
    share = got["spot-check"]["seconds"] / got["profiles"]["seconds"]
    print(f"\nspot check / profiles: {share:.2f} (sized to stay below 1)")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
