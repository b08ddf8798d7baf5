"""The results table: a profile's segment rows from the engine's arrays against one result
object and one row object per segment (the general path every library still takes). Not a test.

    .venv/bin/python benchmarks/bench_results_table.py [--systems 16] [--segments 3000]

Generated systems (``corpus_gen.systems``, one reference), every profile, corpus and segment
level. The statistics are counted first (untimed, shared); then, per path, the time to turn
them into the run's rows: ``runner.run`` (the typed table), the same table's row objects
(``Results.rows()``: one ``ResultRow`` per row, what results.jsonl is written from), and the
general path
(``harness.scorers.score`` → one ``BleuResult`` per segment → ``runner._rows``) for the same
profiles. Both paths' rows are asserted equal before the times are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from corpus_gen import systems as generate_systems  # noqa: E402

from harness.bleu.profiles import PROFILES  # noqa: E402
from harness.data.corpus import Corpus  # noqa: E402
from harness.run import RunPlan, run, runner  # noqa: E402
from harness.scorers import EngineScorer, score  # noqa: E402
from harness.session import Session  # noqa: E402
from harness.session.cache import StatisticsCache  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--segments", type=int, default=3000)
    args = ap.parse_args()
    hyps, refs = generate_systems(args.systems, args.segments, 1, seed=17)
    references = tuple(tuple(r) for r in zip(*refs, strict=True))
    corpora = [
        ("bench", f"sys{i:02d}", Corpus(hypotheses=tuple(h), references=references))
        for i, h in enumerate(hyps)
    ]
    impls = [runner.Implementation("profile", p) for p in PROFILES]
    cache = StatisticsCache()
    t = time.perf_counter()
    cache.warm([c for _, _, c in corpora], [PROFILES[p] for p in PROFILES])
    warm = time.perf_counter() - t

    t = time.perf_counter()
    table = run(
        RunPlan.of(
            corpora,
            impls,
            levels=("corpus", "segment"),
            progress=False,
            session=Session(cache=cache),
        )
    )
    typed = time.perf_counter() - t
    t = time.perf_counter()
    rows = table.rows()
    as_dicts = time.perf_counter() - t

    t = time.perf_counter()
    general = []
    for fixture, system, corpus in corpora:
        for impl in impls:
            scorer = EngineScorer(impl.name, name=impl.label, statistics=cache.get)
            for level in ("corpus", "segment"):
                outcome = score(scorer, corpus, level=level)
                general += runner._rows(fixture, system, impl, level, outcome)
    old = time.perf_counter() - t
    assert rows == general, "the two paths' rows differ"

    print(
        f"{args.systems} systems × {args.segments} segments × 1 ref, {len(PROFILES)} profiles, "
        f"corpus + segment level: {len(rows):,} rows (statistics counted first: {warm:.2f} s)"
    )
    print(f"typed table (runner.run)              {typed:7.2f} s")
    print(f"  + its row objects (Results.rows)    {as_dicts:7.2f} s")
    print(f"one result and one row per segment    {old:7.2f} s")
    print(f"ratio general / typed                 {old / typed:7.2f}×")


if __name__ == "__main__":
    main()
