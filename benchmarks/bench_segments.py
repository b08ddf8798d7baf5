"""Benchmark: segment-level and pairwise sentence BLEU against a loop of sacrebleu, in one run.

Not a test. Run from the repository root::

    .venv/bin/python benchmarks/bench_segments.py              # 10k × 4, 1,000 × 1,000
    .venv/bin/python benchmarks/bench_segments.py --quick      # 1k × 4, 300 × 300, smoke run
    .venv/bin/python benchmarks/bench_segments.py --profile    # also where the time goes

What is measured, on the seeded synthetic Zipf corpus of ``corpus_gen.py`` (issue 13, items 3
and 4), in the same process on the same data:

1. **Segment level**: ``harness.segment_bleu(hypotheses, references)`` (default profile
   ``sacrebleu-sentence``; Corpus validation included; tokenizer caches cleared before every
   run) against a loop of sacrebleu ``BLEU(effective_order=True).sentence_score(h, refs)``
   (its 13a cache cleared first). Prints both medians and the ratio; **asserts** that every
   segment's score equals sacrebleu's to 1e-9 BLEU points.
2. **Pairwise**: ``harness.pairwise_bleu(hypotheses)`` (the 1,000 × 1,000 self-BLEU matrix,
   diagonal included) and ``pairwise_bleu(hypotheses, candidates)`` (1,000 hypotheses ×
   1,000 other candidates). Prints the seconds; **asserts** equality to sacrebleu
   ``sentence_score(h, [c])`` to 1e-9 on a random sample of ``--sample`` pairs of each matrix
   and on the **full** ``--full`` × ``--full`` matrix, whose sacrebleu loop is timed too (the
   ratio at that size, and sacrebleu's per-pair cost extrapolated to the big matrix).

Exit status 1 when an equality assertion fails.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus_gen import generate  # noqa: E402

import harness  # noqa: E402
from harness.bleu import engine  # noqa: E402

TOL = 1e-9  # BLEU points


def _sacrebleu() -> Any:
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    Tokenizer13a.__call__.cache_clear()
    return BLEU(effective_order=True)


def _median_time(
    run: Callable[[], Any], repeat: int, before: Callable[[], None]
) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        before()
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _profile(run: Callable[[], Any], top: int = 14) -> None:
    engine.clear_caches()
    prof = cProfile.Profile()
    prof.runcall(run)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in buf.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    print("```")
    print("\n".join(lines[start - 1 : start + top + 1]))
    print("```")


def bench_segments(n: int, refs: int, repeat: int, profile: bool) -> dict[str, float]:
    hyps, references = generate(n, refs)
    print(f"\n## Segment level: {n} segments × {refs} references\n")
    ours_t, ours = _median_time(
        lambda: harness.segment_bleu(hypotheses=hyps, references=references),
        repeat,
        engine.clear_caches,
    )
    bleu = None

    def loop() -> list[float]:
        assert bleu is not None
        return [bleu.sentence_score(h, r).score for h, r in zip(hyps, references, strict=True)]

    def fresh() -> None:
        nonlocal bleu
        bleu = _sacrebleu()

    theirs_t, theirs = _median_time(loop, repeat, fresh)
    worst = float(np.max(np.abs(ours.score - np.array(theirs))))
    print("| implementation | median s | segments/s |")
    print("|---|---:|---:|")
    print(f"| `harness.segment_bleu` (sacrebleu-sentence) | {ours_t:.3f} | {n / ours_t:,.0f} |")
    print(f"| loop of sacrebleu `sentence_score` | {theirs_t:.3f} | {n / theirs_t:,.0f} |")
    print(f"\nratio (sacrebleu time / harness time): **{theirs_t / ours_t:.1f}×**")
    print(f"largest |difference|: {worst:.2e} BLEU points (≤ {TOL}: {worst <= TOL})")
    if profile:
        print("\nwhere the harness time goes (cProfile, tottime):\n")
        _profile(lambda: harness.segment_bleu(hypotheses=hyps, references=references))
    assert worst <= TOL, f"segment_bleu differs from sacrebleu by {worst}"
    return {"harness": ours_t, "sacrebleu": theirs_t, "worst": worst}


def _check_sample(
    matrix: np.ndarray, hyps: list[str], cands: list[str], k: int, seed: int
) -> float:
    bleu = _sacrebleu()
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(hyps), k)
    cols = rng.integers(0, len(cands), k)
    want = np.array(
        [bleu.sentence_score(hyps[i], [cands[j]]).score for i, j in zip(rows, cols, strict=True)]
    )
    return float(np.max(np.abs(matrix[rows, cols] - want)))


def bench_pairwise(size: int, full: int, sample: int, repeat: int, profile: bool) -> None:
    hyps, references = generate(size, 1, seed=7)
    cands = [r[0] for r in references]
    print(f"\n## Pairwise: {size} × {size}\n")
    print("| matrix | median s | pairs/s | sampled pairs | largest |difference| |")
    print("|---|---:|---:|---:|---:|")
    worst_all = 0.0
    for label, kwargs, against in (
        ("self-BLEU, `candidates=None`", {}, hyps),
        ("hypotheses × other candidates", {"candidates": cands}, cands),
    ):
        seconds, matrix = _median_time(
            lambda kwargs=kwargs: harness.pairwise_bleu(hypotheses=hyps, **kwargs),
            repeat,
            engine.clear_caches,
        )
        worst = _check_sample(matrix, hyps, against, sample, seed=len(label))
        worst_all = max(worst_all, worst)
        pairs = len(hyps) * len(against)
        print(f"| {label} | {seconds:.3f} | {pairs / seconds:,.0f} | {sample} | {worst:.2e} |")
    # the full matrix at a smaller size, against the whole sacrebleu loop (timed)
    small = hyps[:full]
    ours_t, ours = _median_time(
        lambda: harness.pairwise_bleu(hypotheses=small), repeat, engine.clear_caches
    )
    bleu = _sacrebleu()
    t0 = time.perf_counter()
    want = np.array([[bleu.sentence_score(h, [c]).score for c in small] for h in small])
    theirs_t = time.perf_counter() - t0
    worst = float(np.max(np.abs(ours - want)))
    worst_all = max(worst_all, worst)
    per_pair = theirs_t / (full * full)
    print(
        f"\nfull {full} × {full} self-BLEU matrix: harness {ours_t:.3f} s, sacrebleu loop "
        f"{theirs_t:.3f} s (ratio **{theirs_t / ours_t:.0f}×**), largest |difference| "
        f"{worst:.2e}"
    )
    print(
        f"sacrebleu at {per_pair * 1e3:.3f} ms a pair would need ~{per_pair * size * size:.0f} s "
        f"for {size} × {size} (extrapolated, not run)"
    )
    if profile:
        print("\nwhere the harness time goes (cProfile, tottime, self-BLEU):\n")
        _profile(lambda: harness.pairwise_bleu(hypotheses=hyps))
    assert worst_all <= TOL, f"pairwise_bleu differs from sacrebleu by {worst_all}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--refs", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=1_000, help="H = C of the pairwise runs")
    parser.add_argument("--full", type=int, default=200, help="size of the full-matrix check")
    parser.add_argument("--sample", type=int, default=2_000, help="sampled pairs checked")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--quick", action="store_true", help="1k × 4, 300 × 300, 1 repeat")
    args = parser.parse_args()
    if args.quick:
        args.segments, args.pairs, args.full, args.repeat = 1_000, 300, 100, 1
    import sacrebleu

    print(
        f"# bench_segments: Python {platform.python_version()}, numpy {np.__version__}, "
        f"sacrebleu {sacrebleu.__version__}, {platform.machine()}"
    )
    bench_segments(args.segments, args.refs, args.repeat, args.profile)
    bench_pairwise(args.pairs, args.full, args.sample, args.repeat, args.profile)


if __name__ == "__main__":
    main()
