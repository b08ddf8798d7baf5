"""Benchmark: how long ``bleu-harness`` takes to start, next to sacrebleu's CLI. Not a test.

Run from the repository root::

    .venv/bin/python benchmarks/bench_startup.py            # 7 runs of each command
    .venv/bin/python benchmarks/bench_startup.py --runs 5 --as-is

Every command runs as its console script (``.venv/bin/bleu-harness``, ``.venv/bin/sacrebleu``)
in its own process, output discarded; the wall time is :func:`time.perf_counter` around
:func:`subprocess.run`. The commands take turns (run 1 of every command, then run 2, …) so that
a change in the machine's load falls on all of them alike; the table gives each command's median
and its ratio to sacrebleu's matching command, measured in the same run:

* ``bleu-harness --help`` and every ``bleu-harness COMMAND --help`` vs ``sacrebleu --help``;
* ``bleu-harness score hyp.txt ref.txt --no-cache`` vs ``sacrebleu ref.txt -i hyp.txt`` on the
  same generated files (``benchmarks/corpus_gen.py``: 3,000 lines, one reference, seed 7).
  ``--no-cache``: no statistics from an earlier run's on-disk cache. Before timing, the two
  scores (``--json`` and ``-f json -w 16``) must agree to 1e-9, or the benchmark stops.

Bytecode: by default every command runs with a fresh ``PYTHONPYCACHEPREFIX`` (a temporary
directory) and bytecode writing on, after one untimed warm-up run of each command, so both
programs start from cached bytecode as an installed package does. ``--as-is`` keeps the
environment as it is (where ``PYTHONDONTWRITEBYTECODE=1`` and the package is an editable
install, every harness module is compiled from source on every run, sacrebleu's are not).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from corpus_gen import generate  # noqa: E402

BIN = Path(sys.executable).parent


def _write_corpus(folder: Path, lines: int) -> tuple[Path, Path]:
    hypotheses, references = generate(lines, 1, seed=7)
    hyp, ref = folder / "hyp.txt", folder / "ref.txt"
    hyp.write_text("".join(h + "\n" for h in hypotheses), encoding="utf-8")
    ref.write_text("".join(r[0] + "\n" for r in references), encoding="utf-8")
    return hyp, ref


def _commands(hyp: Path, ref: Path) -> dict[str, tuple[list[str], str]]:
    """Row label → (argv, the label of the sacrebleu row it is compared with)."""
    bh, sb = str(BIN / "bleu-harness"), str(BIN / "sacrebleu")
    sys.path.insert(0, str(REPO))
    from harness.cli.app import COMMANDS

    rows: dict[str, tuple[list[str], str]] = {
        "sacrebleu --help": ([sb, "--help"], "sacrebleu --help"),
        "bleu-harness --help": ([bh, "--help"], "sacrebleu --help"),
    }
    for name in COMMANDS:
        rows[f"bleu-harness {name} --help"] = ([bh, name, "--help"], "sacrebleu --help")
    rows["sacrebleu ref.txt -i hyp.txt"] = (
        [sb, str(ref), "-i", str(hyp)],
        "sacrebleu ref.txt -i hyp.txt",
    )
    rows["bleu-harness score hyp.txt ref.txt"] = (
        [bh, "score", str(hyp), str(ref), "--no-cache"],
        "sacrebleu ref.txt -i hyp.txt",
    )
    return rows


def _run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _check_scores(hyp: Path, ref: Path, env: dict[str, str]) -> float:
    """Both programs' score of the files, which must agree to 1e-9."""
    ours = subprocess.run(
        [str(BIN / "bleu-harness"), "score", str(hyp), str(ref), "--no-cache", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = subprocess.run(
        [str(BIN / "sacrebleu"), str(ref), "-i", str(hyp), "-f", "json", "-w", "16"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    a, b = json.loads(ours.stdout)["score"], json.loads(theirs.stdout)["score"]
    if abs(a - b) > 1e-9:
        sys.exit(f"the scores differ: bleu-harness {a!r}, sacrebleu {b!r}")
    return float(a)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs of each command (>= 5)")
    ap.add_argument("--lines", type=int, default=3000, help="lines of the generated files")
    ap.add_argument("--as-is", action="store_true", help="keep the bytecode settings as they are")
    args = ap.parse_args()
    if args.runs < 5:
        ap.error("--runs must be at least 5")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        folder = Path(tmp)
        env = dict(os.environ)
        if not args.as_is:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        hyp, ref = _write_corpus(folder, args.lines)
        score = _check_scores(hyp, ref, env)
        rows = _commands(hyp, ref)
        for argv, _base in rows.values():  # warm-up: bytecode written, files in the page cache
            _run(argv, env)
        times: dict[str, list[float]] = {label: [] for label in rows}
        load = os.getloadavg()[0]
        for _ in range(args.runs):
            for label, (argv, _base) in rows.items():
                times[label].append(_run(argv, env))
        medians = {label: statistics.median(ts) for label, ts in times.items()}
        bytecode = "as the environment has it" if args.as_is else "cached (PYTHONPYCACHEPREFIX)"
        print(f"{args.lines} lines, BLEU {score:.4f} from both; bytecode {bytecode}")
        print(f"median of {args.runs} runs; load average {load:.2f} → {os.getloadavg()[0]:.2f}\n")
        print("| command | median (s) | vs sacrebleu |")
        print("|---|---:|---:|")
        for label, (_argv, base) in rows.items():
            ratio = "" if label == base else f"{medians[label] / medians[base]:.2f}×"
            print(f"| `{label}` | {medians[label]:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
