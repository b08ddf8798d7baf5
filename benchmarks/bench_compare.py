"""How long a user waits for ``bleu-harness compare HYP --refs REF`` on their own files.

Not a test. Writes seeded synthetic corpora (:mod:`corpus_gen`: 3,000 segments with 1 and with
4 references, 3 systems of 1,000 segments, 16 systems of 3,000 segments) to a temporary folder
and times, each in a fresh process, the whole command — start, reading, every profile, the real
sacrebleu, the answer — beside ``sacrebleu REF -i HYP`` (its CLI, one library) on the same
files, as the median of ``--runs`` runs: wall seconds, and the CPU seconds of the command's
processes (which another load on the machine does not inflate). Before timing, the baseline
family's number in the answer is checked equal to sacrebleu's own to 1e-9. The statistics
cache is off (``--no-cache``), so every run counts afresh.

    .venv/bin/python benchmarks/bench_compare.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import corpus_gen
import sacrebleu

BIN = Path(sys.executable).parent


def _write(folder: Path, segments: int, refs: int, systems: int) -> tuple[list[Path], list[Path]]:
    """``systems`` hypothesis files and ``refs`` reference files of ``segments`` lines."""
    hyps: list[Path] = []
    # every system against the same references (noisier systems score lower)
    outputs, streams = corpus_gen.systems(systems, segments, refs, seed=corpus_gen.SEED)
    for k, h in enumerate(outputs):
        path = folder / f"sys{k}.txt"
        path.write_text("".join(x + "\n" for x in h), encoding="utf-8")
        hyps.append(path)
    ref_paths = []
    for j, stream in enumerate(streams):
        path = folder / f"ref{j}.txt"
        path.write_text("".join(x + "\n" for x in stream), encoding="utf-8")
        ref_paths.append(path)
    return hyps, ref_paths


def _time(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the command's processes, children included) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _check(hyps: list[Path], refs: list[Path]) -> None:
    """The answer's baseline family equals sacrebleu's own corpus score on every system."""
    argv = [str(BIN / "bleu-harness"), "compare", *map(str, hyps), "--refs", *map(str, refs)]
    out = subprocess.run([*argv, "--json", "--no-cache"], check=True, capture_output=True)
    ans = json.loads(out.stdout)["answer"]
    base = next(f for f in ans["families"] if ans["baseline"] in f["profiles"])
    streams = [p.read_text(encoding="utf-8").splitlines() for p in refs]
    for k, hyp in enumerate(hyps):
        real = sacrebleu.corpus_bleu(hyp.read_text(encoding="utf-8").splitlines(), streams).score
        assert abs(base["scores"][k] - real) <= 1e-9, (hyp, base["scores"][k], real)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    cases = [("3,000 × 1 ref", 3000, 1, 1), ("3,000 × 4 refs", 3000, 4, 1)]
    cases.append(("3 systems × 1,000 × 2 refs", 1000, 2, 3))
    cases.append(("16 systems × 3,000 × 1 ref", 3000, 1, 16))
    load = os.getloadavg()[0]
    print(
        f"bench_compare {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"sacrebleu {sacrebleu.__version__}, load {load:.2f}, median of {args.runs} runs"
    )
    print()
    print(
        "| files | compare (every profile + real sacrebleu) | sacrebleu CLI | ratio "
        "| CPU: compare | CPU: sacrebleu | CPU ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, segments, refs, systems in cases:
            folder = Path(tmp) / label.replace(" ", "_").replace(",", "")
            folder.mkdir()
            hyps, ref_paths = _write(folder, segments, refs, systems)
            _check(hyps, ref_paths)
            ours = [
                str(BIN / "bleu-harness"),
                "compare",
                *map(str, hyps),
                "--refs",
                *map(str, ref_paths),
                "--no-cache",
            ]
            theirs = [str(BIN / "sacrebleu"), *map(str, ref_paths), "-i", *map(str, hyps)]
            mine = [_time(ours) for _ in range(args.runs)]
            base = [_time(theirs) for _ in range(args.runs)]
            a, b = (statistics.median(w for w, _ in runs) for runs in (mine, base))
            ca, cb = (statistics.median(c for _, c in runs) for runs in (mine, base))
            print(
                f"| {label} | {a:.2f} s | {b:.2f} s | {a / b:.2f}× "
                f"| {ca:.2f} s | {cb:.2f} s | {ca / cb:.2f}× |"
            )


if __name__ == "__main__":
    main()
