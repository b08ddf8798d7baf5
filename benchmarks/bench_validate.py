"""Benchmark: ``validate`` on the home-made subjects. Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_validate.py
    .venv/bin/python benchmarks/bench_validate.py --cases 100 --repeats 3

Each subject of :mod:`harness.diagnose.homemade` (the seed tutorial's and blog's BLEU, the
deliberately buggy sacrebleu-like ones) is validated with ``cases`` generated corpora plus
every fixture, in this process, after one small warm-up run (imports, first statistics).
The best of ``repeats`` wall times is printed per subject, with the profile the fit chose,
and, as the yardstick measured in the same run, the time the real ``sacrebleu.corpus_bleu``
takes to score the same cases once: validation cost as a multiple of one sacrebleu pass.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _sacrebleu_pass(cases: list) -> float:
    """Seconds for sacrebleu to score every case once (references as streams)."""
    import sacrebleu

    start = time.perf_counter()
    for case in cases:
        k = max(len(r) for r in case.references)
        streams = [[seg[j] if j < len(seg) else None for seg in case.references] for j in range(k)]
        sacrebleu.corpus_bleu(list(case.hypotheses), streams)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from harness.diagnose.homemade import BUGGY, blog_bleu, tutorial_bleu
    from harness.diagnose.validate import generate_cases, validate
    from harness.diagnose.validate.cases import fixture_cases

    subjects = {"tutorial": tutorial_bleu, "blog": blog_bleu, **BUGGY}
    validate(BUGGY["no_smoothing"], cases=5)  # warm-up: imports, first statistics
    cases = generate_cases(args.cases, seed=0) + fixture_cases(rectangular=False)[0]
    yardstick = min(_sacrebleu_pass(cases) for _ in range(3))
    print(f"load average {os.getloadavg()[0]:.2f}; {len(cases)} cases; cases={args.cases}")
    print(f"sacrebleu.corpus_bleu over the same cases once: {yardstick:.3f} s")
    total = 0.0
    for name, impl in subjects.items():
        best = float("inf")
        fit = ""
        for _ in range(args.repeats):
            start = time.perf_counter()
            report = validate(impl, cases=args.cases)
            best = min(best, time.perf_counter() - start)
            fit = report.best_profile
        total += best
        print(f"{name:24} {best:7.2f} s  {best / yardstick:6.0f}× one sacrebleu pass  fit {fit}")
    print(f"{'all subjects':24} {total:7.2f} s  {total / yardstick:6.0f}× one sacrebleu pass")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
