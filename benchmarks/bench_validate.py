"""Benchmark: ``validate`` on a sacrebleu wrapper and on the home-made subjects. Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_validate.py
    .venv/bin/python benchmarks/bench_validate.py --cases 100 --repeats 3
    .venv/bin/python benchmarks/bench_validate.py --wrapper-only --cases 300 --repeats 3

First row: :func:`sacrebleu_wrapper` — what a user passes as ``validate --impl
module:function``: the real ``sacrebleu.corpus_bleu`` on the references as streams — validated
with ``cases`` generated corpora plus every fixture (``--cases 300`` is the command's default),
with the seconds of the whole run and of its evidence check
(:func:`harness.diagnose.validate.evidence.input_dependence`, timed around the call). Then
(unless ``--wrapper-only``) each subject of :mod:`harness.diagnose.homemade` (the seed
tutorial's and blog's BLEU, the deliberately buggy sacrebleu-like ones), with the profile the
fit chose. Everything runs in this process after one small warm-up run (imports, the first
statistics of every tokenizer); the best of ``repeats`` wall times is printed, and, as the
yardstick measured in the same run, the time the real ``sacrebleu.corpus_bleu`` takes to score
the same cases once: validation cost as a multiple of one sacrebleu pass.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from timing import best_of

REPO = Path(__file__).resolve().parent.parent


def _streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Per-segment references as sacrebleu's streams (``None`` where a segment has fewer)."""
    k = max(len(r) for r in references)
    return [[seg[j] if j < len(seg) else None for seg in references] for j in range(k)]


def sacrebleu_wrapper(hypotheses: list[str], references: list[list[str]]) -> float:
    """The subject of the first row: sacrebleu's corpus BLEU of per-segment references."""
    import sacrebleu

    return float(sacrebleu.corpus_bleu(list(hypotheses), _streams(references)).score)


def _sacrebleu_pass(cases: list[Any]) -> float:
    """Seconds for sacrebleu to score every case once (references as streams)."""
    start = time.perf_counter()
    for case in cases:
        sacrebleu_wrapper(list(case.hypotheses), [list(r) for r in case.references])
    return time.perf_counter() - start


def _timed_evidence() -> list[float]:
    """Make every later :func:`validate` record the seconds of its evidence check."""
    from harness.diagnose.validate import run

    spent: list[float] = []
    check = run.input_dependence

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return check(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - start)

    run.input_dependence = timed
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--wrapper-only", action="store_true", help="only the sacrebleu wrapper's row"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from harness.diagnose.homemade import BUGGY, blog_bleu, tutorial_bleu
    from harness.diagnose.validate import generate_cases, validate
    from harness.diagnose.validate.cases import fixture_cases

    evidence = _timed_evidence()
    validate(BUGGY["no_smoothing"], cases=5)  # warm-up: imports, first statistics
    cases = generate_cases(args.cases, seed=0) + fixture_cases(rectangular=False)[0]
    yardstick = min(_sacrebleu_pass(cases) for _ in range(3))
    print(f"load average {os.getloadavg()[0]:.2f}; {len(cases)} cases; cases={args.cases}")
    print(f"sacrebleu.corpus_bleu over the same cases once: {yardstick:.3f} s")

    evidence.clear()
    best, report = best_of(lambda: validate(sacrebleu_wrapper, cases=args.cases), args.repeats)
    check = min(evidence)
    print(
        f"{'sacrebleu wrapper':24} {best:7.2f} s  {best / yardstick:6.0f}× one sacrebleu pass  "
        f"fit {report.best_profile}; evidence check {check:.2f} s "
        f"({check / yardstick:.0f}× one sacrebleu pass)"
    )
    if args.wrapper_only:
        return 0
    subjects = {"tutorial": tutorial_bleu, "blog": blog_bleu, **BUGGY}
    total = 0.0
    for name, impl in subjects.items():
        best, report = best_of(functools.partial(validate, impl, cases=args.cases), args.repeats)
        total += best
        print(
            f"{name:24} {best:7.2f} s  {best / yardstick:6.0f}× one sacrebleu pass  "
            f"fit {report.best_profile}"
        )
    print(
        f"{'all home-made subjects':24} {total:7.2f} s  {total / yardstick:6.0f}× one sacrebleu pass"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
