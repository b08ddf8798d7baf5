"""Benchmark: the slow commands end to end, cold and warm. Not a test.

Run from the repository root (needs the real data)::

    BLEU_HARNESS_DATA=/work/shared/data .venv/bin/python benchmarks/bench_commands.py
    ... bench_commands.py --only identify --repeats 1

Each command runs as ``python -m harness.cli ...`` in its own subprocess (wall time with
:func:`time.perf_counter`, CPU time of the child from :func:`os.wait4`), twice with the same
fresh statistics cache directory: **cold** (an empty cache, a new process) and **warm** (the
cache filled by the cold run, a new process). Reports go to fresh temporary directories;
nothing outside the temporary directories is written. The machine's load average is printed
before and after: on a shared machine wall times vary with it, CPU times much less.

Commands (WMT21 en→de, 20 systems × 1002 segments × 3 references):

* ``report --wmt21 --human`` — every profile and library, corpus and segment level, the
  report (pairs, correlations, attributions, figures) and BLEU vs MQM;
* ``human`` — BLEU vs MQM alone;
* ``identify --score 62.0`` — one system (Facebook-AI) written to text files (hypothesis and
  references A, C, D);
* ``compare --wmt21 --level corpus segment`` with the in-house profiles only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _write_wmt21_system(folder: Path, system: str = "Facebook-AI") -> list[str]:
    sys.path.insert(0, str(REPO))
    from harness.data.datasets import load_wmt21_ende

    corpus = load_wmt21_ende(systems=[system])[system]
    files = [folder / "hyp.txt"] + [folder / f"ref{r}.txt" for r in "ACD"]
    files[0].write_text("".join(h + "\n" for h in corpus.hypotheses), encoding="utf-8")
    for k, path in enumerate(files[1:]):
        path.write_text("".join(r[k] + "\n" for r in corpus.references), encoding="utf-8")
    return [str(p) for p in files]


def _commands(tmp: Path) -> dict[str, list[str]]:
    files = _write_wmt21_system(tmp)
    return {
        "report --wmt21 --human": ["report", "--wmt21", "--human", "--out", "{out}"],
        "human": ["human"],
        "identify (WMT21, 1 system)": ["identify", "--score", "62.0", *files],
        "compare --wmt21 (profiles, 2 levels)": [
            "compare",
            "--wmt21",
            "--level",
            "corpus",
            "segment",
            "--impl",
            ",".join(
                f"profile:{p}"
                for p in ("sacrebleu", "nltk", "evaluate", "torchmetrics", "sacrebleu-sentence")
            ),
        ],
    }


def _busy_seconds() -> float | None:
    """The machine's CPU seconds spent busy since boot (Linux ``/proc/stat``), or ``None``."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle, iowait


def _run(argv: list[str], cache: str, out_parent: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of the command: the CPU the whole machine was
    busy for meanwhile where ``/proc/stat`` says (so a command's worker processes count,
    which the process's own usage leaves out; run on an otherwise idle machine), else the
    process's own."""
    out = tempfile.mkdtemp(dir=out_parent)
    argv = [a.replace("{out}", str(Path(out) / "r")) for a in argv]
    cmd = [sys.executable, "-m", "harness.cli", *argv, "--quiet"]
    if argv[0] in ("report", "compare"):
        cmd += ["--cache-dir", cache]
    env = {**os.environ, "BLEU_HARNESS_CACHE_DIR": cache, "PYTHONPATH": str(REPO)}
    busy = _busy_seconds()
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    after = _busy_seconds()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-2000:]}")
    if busy is not None and after is not None:
        return wall, after - busy, proc.returncode
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", help="run only commands whose name contains this")
    args = ap.parse_args()
    if not os.environ.get("BLEU_HARNESS_DATA"):
        raise SystemExit("set BLEU_HARNESS_DATA=/path/to/shared/data")
    rows = []
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name, argv in _commands(tmp).items():
            if args.only and not any(o in name for o in args.only):
                continue
            cache = tempfile.mkdtemp(dir=tmp, prefix="cache-")
            cold = _run(argv, cache, tmp)
            warm = _run(argv, cache, tmp)
            rows.append((name, cold, warm))
            print(
                f"{name}: cold {cold[0]:.1f} s (cpu {cold[1]:.1f} s), "
                f"warm {warm[0]:.1f} s (cpu {warm[1]:.1f} s)",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    print("| command | cold wall | cold CPU | warm wall | warm CPU |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, cold, warm in rows:
        print(
            f"| `{name}` | {cold[0]:.1f} s | {cold[1]:.1f} s | {warm[0]:.1f} s | {warm[1]:.1f} s |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
