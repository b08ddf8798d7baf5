"""Benchmark: paired significance tests on cached statistics, beside sacrebleu's own.

Not a test. Run from the repository root::

    .venv/bin/python benchmarks/bench_significance.py                 # seeded synthetic, 3k segments
    .venv/bin/python benchmarks/bench_significance.py --corpus wmt21  # needs BLEU_HARNESS_DATA

Times (median of ``--repeats`` runs, :func:`time.perf_counter`):

1. statistics caching: tokenize and count both systems (:func:`harness.bleu.engine.compute_statistics`,
   the reference cache cleared each run) and build their per-segment matrices
   (:func:`harness.analysis.significance.prepare`);
2. 1000 paired bootstrap resamples from the cached tables (target: < 0.05 s for 2 systems ×
   3k segments);
3. 10000 approximate-randomisation trials from the cached tables (no extra CI resamples);
4. sacrebleu 2.6 on the same texts: its statistics extraction; its own resampling code from
   its cached statistics (``_paired_bs_test`` plus ``_bootstrap_resample`` for the baseline's
   interval, and ``_paired_ar_test``, called with a metric whose extraction returns the cached
   statistics); and ``PairedTest`` end to end for the bootstrap (for AR: extraction + cached
   AR, to save a minute).

The ratio column is sacrebleu's time over the harness's for the same step.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.data.corpus import Corpus

# harness (and so numpy) is imported in main(), after --blas-threads has set the environment.


def synthetic_pair(
    n_segments: int = 3000, seed: int = 2024
) -> tuple[Corpus, Corpus, list[list[str]]]:
    """Two systems over ``n_segments`` segments with 2 references each (seeded).

    References are 5–40 words from a Zipf-like 3000-word vocabulary; the baseline replaces
    each word of reference 1 with probability 0.33 and drops it with probability 0.05, the
    system with 0.30 and 0.05.
    """
    from harness.data.corpus import Corpus

    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]

    def sentence() -> list[str]:
        return rnd.choices(vocab, weights, k=rnd.randint(5, 40))

    def noisy(words: list[str], p_sub: float, p_drop: float) -> str:
        out = []
        for w in words:
            u = rnd.random()
            if u < p_drop:
                continue
            out.append(rnd.choice(vocab) if u < p_drop + p_sub else w)
        return " ".join(out)

    refs = [(sentence(), sentence()) for _ in range(n_segments)]
    references = tuple((" ".join(a), " ".join(b)) for a, b in refs)
    base = tuple(noisy(a, 0.33, 0.05) for a, _ in refs)
    other = tuple(noisy(a, 0.32, 0.05) for a, _ in refs)
    streams = [[r[k] for r in references] for k in range(2)]
    return (
        Corpus(hypotheses=base, references=references, name="synthetic/baseline"),
        Corpus(hypotheses=other, references=references, name="synthetic/system"),
        streams,
    )


def wmt21_pair(baseline: str, system: str) -> tuple[Corpus, Corpus, list[list[str]]]:
    """Two WMT21 en→de systems (1002 segments, references A, C, D)."""
    from harness.data.datasets import load_wmt21_ende

    corpora = load_wmt21_ende(systems=[baseline, system])
    a, b = corpora[baseline], corpora[system]
    streams = [list(s) for s in zip(*a.references, strict=True)]
    return a, b, streams


BEST: dict[str, float] = {}
"""Fastest of the repeats per timed step (printed beside the medians: a shared machine's load
inflates medians, and the fastest run shows the unloaded cost)."""


def median_time(fn: Callable[[], Any], repeats: int, name: str = "") -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls (after one warm-up call) and the last result."""
    result = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    if name:
        BEST[name] = min(times)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("synthetic", "wmt21"), default="synthetic")
    parser.add_argument("--segments", type=int, default=3000, help="synthetic corpus size")
    parser.add_argument("--baseline", default="VolcTrans-AT", help="WMT21 baseline system")
    parser.add_argument("--system", default="eTranslation", help="WMT21 system")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-sacrebleu", action="store_true", help="skip sacrebleu's timings")
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads (default: BLAS's own choice)",
    )
    args = parser.parse_args(argv)
    if args.blas_threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.blas_threads)

    from harness.analysis import significance as sig
    from harness.bleu import engine
    from harness.bleu.profiles import get_profile

    if args.corpus == "wmt21":
        if not os.environ.get("BLEU_HARNESS_DATA"):
            print("set BLEU_HARNESS_DATA=/path/to/shared/data for --corpus wmt21", file=sys.stderr)
            return 2
        base, other, streams = wmt21_pair(args.baseline, args.system)
        label = f"WMT21 en-de {args.baseline} vs {args.system}"
    else:
        base, other, streams = synthetic_pair(args.segments)
        label = f"synthetic (seed 2024), {args.segments} segments, 2 refs"
    config = get_profile("sacrebleu")
    n = len(base)

    def cache() -> tuple[sig.SegmentTable, sig.SegmentTable]:
        engine._reference_side.cache_clear()
        return (
            sig.prepare(engine.compute_statistics(base, config), config),
            sig.prepare(engine.compute_statistics(other, config), config),
        )

    rows: list[tuple[str, float, float | None]] = []
    t_cache, (ta, tb) = median_time(cache, max(1, args.repeats // 2))
    t_bs, res_bs = median_time(
        lambda: sig.paired_bootstrap(ta, tb, config, resamples=1000), args.repeats, "bs"
    )
    t_ar, res_ar = median_time(
        lambda: sig.approximate_randomization(ta, tb, config, trials=10000, ci_resamples=0),
        max(1, args.repeats // 2),
        "ar",
    )

    sb: dict[str, float] = {}
    if not args.no_sacrebleu:
        from sacrebleu.metrics import BLEU
        from sacrebleu.significance import (
            PairedTest,
            Result,
            _bootstrap_resample,
            _paired_ar_test,
            _paired_bs_test,
        )

        os.environ.pop("SACREBLEU_SEED", None)  # sacrebleu's default seed 12345
        named = [("baseline", list(base.hypotheses)), ("system", list(other.hypotheses))]
        reps = max(1, args.repeats // 2)

        def extract() -> tuple[Any, Any]:
            metric = BLEU()
            return tuple(metric._extract_corpus_statistics(h, streams) for _, h in named)

        sb["extract"], (bl_stats, sys_stats) = median_time(extract, reps)
        # sacrebleu's own resampling code from its cached statistics: its test functions with
        # a metric whose extraction returns the cached system statistics.
        cached = BLEU()
        cached._extract_corpus_statistics = lambda hyps, refs: sys_stats  # type: ignore[method-assign]
        info = {"BLEU": (bl_stats, Result(cached._aggregate_and_compute(bl_stats).score))}
        hyps = named[1][1]

        def sb_bs() -> Any:
            _bootstrap_resample(bl_stats, cached, 1000)  # the baseline's interval
            return _paired_bs_test(info, "system", hyps, None, {"BLEU": cached}, 1000, -1, 12345)

        def sb_ar() -> Any:
            return _paired_ar_test(info, "system", hyps, None, {"BLEU": cached}, 10000, -1, 12345)

        sb["bs_cached"], _ = median_time(sb_bs, reps)
        sb["ar_cached"], (_, sb_ar_res) = median_time(sb_ar, 1)

        def paired(kind: str, samples: int) -> Any:
            return PairedTest(named, {"BLEU": BLEU()}, streams, test_type=kind, n_samples=samples)()

        sb["bs"], (_, sb_scores) = median_time(lambda: paired("bs", 1000), 1)
        sb["ar"] = sb["extract"] + sb["ar_cached"]
        sb_p_bs = sb_scores["BLEU"][1].p_value
        sb_p_ar = sb_ar_res["BLEU"].p_value

    rows.append(("statistics caching (2 systems)", t_cache, sb.get("extract")))
    rows.append(("bootstrap 1000, from cache", t_bs, sb.get("bs_cached")))
    rows.append(("AR 10000, from cache", t_ar, sb.get("ar_cached")))
    if sb:
        rows.append(("bootstrap 1000, end to end", t_cache + t_bs, sb["bs"]))
        rows.append(("AR 10000, end to end", t_cache + t_ar, sb["ar"]))

    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(
        f"{label}; profile sacrebleu; median of {args.repeats} runs (AR, caching, sacrebleu: "
        f"fewer); BLAS threads: {threads}"
    )
    print(f"{'step':<34} {'harness s':>10} {'sacrebleu s':>12} {'ratio':>8}")
    for name, ours, theirs in rows:
        other_s = f"{theirs:12.4f}" if theirs is not None else f"{'-':>12}"
        ratio = f"{theirs / ours:7.1f}x" if theirs is not None and ours > 0 else f"{'-':>8}"
        print(f"{name:<34} {ours:10.4f} {other_s} {ratio}")
    print(
        f"harness: BLEU {res_bs.score_baseline:.2f} -> {res_bs.score_system:.2f}, "
        f"bootstrap p = {res_bs.p_value:.4f}, AR p = {res_ar.p_value:.4f}, seed {res_bs.seed}"
    )
    if sb:
        print(f"sacrebleu: bootstrap p = {sb_p_bs:.4f}, AR p = {sb_p_ar:.4f} (seed 12345)")
    target = 0.05
    verdict = "meets" if t_bs < target else "MISSES"
    print(
        f"bootstrap from cache: median {t_bs * 1000:.1f} ms, fastest {BEST['bs'] * 1000:.1f} ms "
        f"for 2 x {n} segments ({verdict} < {target} s); AR fastest {BEST['ar'] * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
