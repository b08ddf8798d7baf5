"""Benchmark: the commands a researcher runs on their own files, beside the sacrebleu CLI.

Not a test. Writes 16 seeded generated systems of 3,000 segments and one reference file
(:mod:`corpus_gen`, the shape of WMT17 newstest2017 en→de: 16 systems × 3,004 segments × 1
reference) into a temporary folder and times, each once in a fresh process under the same
minutes, the commands of the table that opened issue 38 — ``compare`` cold, again with ``--jobs
1`` (the default takes a worker per CPU for a run this size), on 2 of the systems, and warm (a
second run on the cache of an untimed first, a cache of its own);
``report`` cold, warm (a second run on the first run's cache) and with ``--level corpus``;
``score --impl`` every library on one system; ``identify`` on one system (the first) given the
score the sacrebleu CLI prints for it, cold (an empty statistics cache of its own) and warm (a
second run on that cache) — and ``sacrebleu REF -i HYP…`` on the same files (16 systems, 2, 1).
Wall seconds; ``--skip-report`` leaves out the three report runs (several minutes)::

    .venv/bin/python benchmarks/bench_user_files.py [--skip-report]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus_gen
import sacrebleu

BIN = Path(sys.executable).parent


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


#: The issue's targets for these rows: the ratio to the CLI on the same files, or seconds.
GOALS: dict[str, tuple[str, float]] = {
    "`compare` the 16 systems (cold)": ("ratio", 2.0),
    "`compare` the 16 systems (warm)": ("ratio", 1.0),
    "`report` the 16 systems (cold)": ("ratio", 10.0),
    "the same report warm": ("ratio", 3.0),
    "the report with `--level corpus` (cold)": ("ratio", 5.0),
    "`identify` one system (cold)": ("seconds", 10.0),
    "the same identify warm": ("seconds", 3.0),
}


def goal_text(label: str) -> str:
    """The goal of row ``label`` in words (``—`` for none)."""
    if label not in GOALS:
        return "—"
    kind, value = GOALS[label]
    return f"≤ {value:g}× the CLI" if kind == "ratio" else f"≤ {value:g} s"


def met(label: str, ours: float, theirs: float) -> bool | None:
    """Whether row ``label`` met its goal (``None``: it has none)."""
    if label not in GOALS:
        return None
    kind, value = GOALS[label]
    return (ours / theirs if kind == "ratio" else ours) <= value


def measure(skip_report: bool = False) -> list[dict[str, Any]]:
    """Every row, timed beside the CLI in the same minutes: ``label``, ``ours`` and
    ``theirs`` (wall seconds), ``printed`` (the score identify was given)."""
    from harness.scorers import DEFAULT_ADAPTERS

    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        outputs, streams = corpus_gen.systems(16, 3000, 1, seed=corpus_gen.SEED)
        hyps = []
        for k, lines in enumerate(outputs):
            path = folder / f"sys{k:02d}.txt"
            path.write_text("".join(h + "\n" for h in lines), encoding="utf-8")
            hyps.append(str(path))
        ref = folder / "ref.txt"
        ref.write_text("".join(r + "\n" for r in streams[0]), encoding="utf-8")
        harness = str(BIN / "bleu-harness")
        cache = folder / "cache"
        env = {**os.environ, "BLEU_HARNESS_CACHE_DIR": str(cache)}
        cli = [str(BIN / "sacrebleu"), str(ref), "-i"]
        # the warm compare reads a cache of its own, filled by an untimed first run (the
        # report's cold rows need theirs empty)
        warm_compare = [harness, "compare", *hyps, "--refs", str(ref)]
        compare_env = {**env, "BLEU_HARNESS_CACHE_DIR": str(folder / "compare-cache")}
        subprocess.run(warm_compare, check=True, capture_output=True, env=compare_env)
        rows: list[tuple[str, list[str], list[str], dict[str, str]]] = [
            (
                "`compare` the 16 systems (cold)",
                [harness, "compare", *hyps, "--refs", str(ref), "--no-cache"],
                [*cli, *hyps],
                env,
            ),
            (
                "the same with `--jobs 1` (one process)",
                [harness, "compare", *hyps, "--refs", str(ref), "--no-cache", "--jobs", "1"],
                [*cli, *hyps],
                env,
            ),
            (
                "`compare` on 2 of the systems (cold)",
                [harness, "compare", *hyps[:2], "--refs", str(ref), "--no-cache"],
                [*cli, *hyps[:2]],
                env,
            ),
            ("`compare` the 16 systems (warm)", warm_compare, [*cli, *hyps], compare_env),
        ]
        if not skip_report:
            report = [harness, "report", *hyps, "--refs", str(ref), "--quiet"]
            rows += [
                (
                    "`report` the 16 systems (cold)",
                    [*report, "--out", f"{tmp}/r1"],
                    [*cli, *hyps],
                    env,
                ),
                ("the same report warm", [*report, "--out", f"{tmp}/r2"], [*cli, *hyps], env),
                (
                    "the report with `--level corpus` (cold)",
                    [*report, "--out", f"{tmp}/r3", "--level", "corpus", "--no-cache"],
                    [*cli, *hyps],
                    env,
                ),
            ]
        rows.append(
            (
                "`score --impl` every library on one system",
                [harness, "score", hyps[0], str(ref), "--impl", ",".join(DEFAULT_ADAPTERS)],
                [*cli, hyps[0]],
                env,
            )
        )
        # identify one system given the score the CLI prints for it, on a cache of its own:
        # empty for the cold run, filled by it for the warm one
        printed = subprocess.run(
            [*cli, hyps[0], "-b"], check=True, capture_output=True, text=True, env=env
        ).stdout.strip()
        identify = [harness, "identify", hyps[0], str(ref), "--score", printed]
        identify_env = {**env, "BLEU_HARNESS_CACHE_DIR": str(folder / "identify-cache")}
        rows += [
            ("`identify` one system (cold)", identify, [*cli, hyps[0]], identify_env),
            ("the same identify warm", identify, [*cli, hyps[0]], identify_env),
        ]
        for label, ours, theirs, ours_env in rows:
            a = _wall(ours, ours_env)
            b = _wall(theirs, env)
            out.append({"label": label, "ours": a, "theirs": b, "printed": printed})
            print(f"  {label}: {a:.1f} s vs {b:.1f} s", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-report", action="store_true")
    args = ap.parse_args()
    print(
        f"bench_user_files {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, sacrebleu "
        f"{sacrebleu.__version__}, load {os.getloadavg()[0]:.2f}"
    )
    rows = measure(args.skip_report)
    print()
    print("| command | bleu-harness | sacrebleu CLI, same files | ratio | goal | |")
    print("|---|---:|---:|---:|---|---|")
    marks = {True: "met", False: "**missed**", None: "—"}
    for r in rows:
        label, a, b = r["label"], r["ours"], r["theirs"]
        print(
            f"| {label} | {a:.1f} s | {b:.1f} s | {a / b:.1f}× | {goal_text(label)} | "
            f"{marks[met(label, a, b)]} |",
            flush=True,
        )
    print(f"\nload at the end {os.getloadavg()[0]:.2f}; identify was given {rows[-1]['printed']}")


if __name__ == "__main__":
    main()
