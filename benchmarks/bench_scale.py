"""The comparison runner at the size of a WMT year: serial, on 2 processes and on a Dask cluster.

Not a test. Generates one seeded reference set and ``--systems`` noisy hypothesis systems
(:mod:`corpus_gen`; default 200 systems × 2,000 segments × 2 references, each system with its
own noise level, so BLEU spreads from about 50 down to 22), writes them as text files (one
hypothesis file a system, one file a reference) and runs the implementations over all of them,
each mode in a fresh process, cold (a new in-memory :class:`StatisticsCache`, no results
cache, no earlier process):

* ``serial``, ``processes`` (2 jobs) and ``dask`` (a loopback cluster: ``dask scheduler`` on
  127.0.0.1 and ``--workers`` ``dask worker --nworkers 1 --nthreads 1`` processes, started for
  the mode and killed after it) time :func:`harness.run.run` — what ``compare`` and
  ``report`` call — from loaded corpora to the rows;
* ``cli-serial``, ``cli-processes`` and ``cli-dask`` (not by default) time
  ``bleu-harness compare HYP... --refs REF... --out DIR --no-cache`` end to end (start, reading,
  the rows, the answer, the files) with ``--jobs 2`` or ``--scheduler`` the same way;
* the yardstick, in its own process: the real ``sacrebleu.corpus_bleu`` over ``--yardstick``
  evenly spaced systems (default 20; 0: all), its time scaled to all of them, so every mode's
  throughput is also a ratio to sacrebleu measured in the same run.

Printed per mode: wall seconds, seconds a system, speed-up over serial, rows a second, the ratio
to sacrebleu, the load average, and where the main process spent the time. The serial run's
per-task times (one implementation on one system; the engine's statistics counted apart)
give a projection of a 16-worker cluster, with its assumptions printed. The rows of every mode
(``runner.rows_to_jsonl``; for the CLI, its ``results.jsonl``) must equal the serial rows, and
the ``harness:sacrebleu`` corpus scores must equal the yardstick's to 1e-9: otherwise the
script fails.

    .venv/bin/python benchmarks/bench_scale.py --quick            # 20 systems × 500 segments × 2 refs
    .venv/bin/python benchmarks/bench_scale.py --json scale.json  # the full run
    .venv/bin/python benchmarks/bench_scale.py --systems 4 --segments 200 \\
        --modes serial processes dask cli-serial cli-processes cli-dask
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import itertools
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RUNNER_MODES = ("serial", "processes", "dask")
CLI_MODES = ("cli-serial", "cli-processes", "cli-dask")
MODES = RUNNER_MODES + CLI_MODES

#: Default implementations: the in-house profile of every library ``compare`` runs by default
#: (the eleven profiles with a library twin: 6 tokenizations) and the real sacrebleu, so that
#: the default run fits in about 15 minutes on 2 cores. Every profile (``profile:*``: 15
#: tokenizations) or a second real library (``adapter:nltk`` costs about what sacrebleu does)
#: does not (benchmarks/README.md, "Scale benchmark").
DEFAULT_IMPLS = (
    "profile:sacrebleu",
    "profile:nltk",
    "profile:evaluate",
    "profile:bleuscore",
    "profile:torchmetrics",
    "profile:torchmetrics-sacrebleu",
    "profile:ignite",
    "profile:pycocoevalcap",
    "profile:codexglue",
    "profile:lm-eval",
    "profile:lm-eval-truthfulqa",
    "adapter:sacrebleu",
)

#: Rows kept on disk for a diff when a mode's rows differ (segment level makes millions).
MAX_ROWS_ON_DISK = 200_000


# ====================================================================== the workload
def generate_systems(
    n_systems: int, n_segments: int, n_refs: int, seed: int
) -> tuple[list[list[str]], list[list[str]]]:
    """:func:`corpus_gen.systems`: ``n_systems`` hypothesis lists against one reference set."""
    import corpus_gen  # here, not at the top: pool workers import this module as __main__

    return corpus_gen.systems(n_systems, n_segments, n_refs, seed=seed)


def write_workload(folder: Path, systems: list[list[str]], refs: list[list[str]]) -> None:
    """``folder/hyps/sysNNN.txt`` (one a system) and ``folder/refs/refJ.txt`` (one a reference)."""
    (folder / "hyps").mkdir(parents=True)
    (folder / "refs").mkdir()
    width = max(3, len(str(len(systems) - 1)))
    for k, lines in enumerate(systems):
        (folder / "hyps" / f"sys{k:0{width}d}.txt").write_text(
            "".join(x + "\n" for x in lines), encoding="utf-8"
        )
    for j, lines in enumerate(refs):
        (folder / "refs" / f"ref{j}.txt").write_text(
            "".join(x + "\n" for x in lines), encoding="utf-8"
        )


def workload_files(folder: Path) -> tuple[list[Path], list[Path]]:
    return sorted((folder / "hyps").glob("*.txt")), sorted((folder / "refs").glob("*.txt"))


def expand_impls(specs: Sequence[str]) -> list[str]:
    """``--impl`` specs, comma-separated or repeated; ``profile:*`` is every profile and
    ``adapter:*`` every library ``compare`` runs by default. Checked by
    :meth:`runner.Implementation.parse`."""
    from harness.bleu.profiles import PROFILES
    from harness.run import runner
    from harness.scorers import DEFAULT_ADAPTERS

    out: list[str] = []
    for item in specs:
        for spec in filter(None, (s.strip() for s in item.split(","))):
            if spec == "profile:*":
                out += [f"profile:{p}" for p in PROFILES]
            elif spec == "adapter:*":
                out += [f"adapter:{a}" for a in DEFAULT_ADAPTERS]
            else:
                impl = runner.Implementation.parse(spec)
                out.append(f"{impl.kind}:{impl.name}")
    return list(dict.fromkeys(out))


# ====================================================================== a loopback dask cluster
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LoopbackCluster:
    """``dask scheduler`` on 127.0.0.1 and ``n_workers`` single-threaded ``dask worker``
    processes, each in its own process group (:meth:`close` kills the groups)."""

    def __init__(self, n_workers: int, logs: Path) -> None:
        self.n_workers = n_workers
        self.logs = logs
        self.address = ""
        self.procs: list[subprocess.Popen[bytes]] = []

    def _spawn(self, argv: list[str], log: Path) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        with open(log, "wb") as out:
            self.procs.append(
                subprocess.Popen(
                    argv,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    cwd=self.logs,
                    start_new_session=True,  # its own process group: killed whole in close()
                )
            )

    def start(self, timeout: float = 120.0) -> str:
        dask = str(Path(sys.executable).parent / "dask")
        port = _free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        self.logs.mkdir(parents=True, exist_ok=True)
        self._spawn(
            [
                *(dask, "scheduler", "--host", "127.0.0.1", "--port", str(port)),
                "--no-dashboard",
                *("--idle-timeout", "1800s"),  # a safety net should this script die unkillably
            ],
            self.logs / "scheduler.log",
        )
        deadline = time.monotonic() + timeout
        while True:  # the scheduler listens before any worker is started
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                raise RuntimeError(f"dask scheduler did not start:\n{self.tail()}")
            time.sleep(0.2)
        for k in range(self.n_workers):
            self._spawn(
                [
                    *(dask, "worker", self.address, "--nworkers", "1", "--nthreads", "1"),
                    *("--no-dashboard", "--death-timeout", "60", "--name", f"bench-{k}"),
                    *("--local-directory", str(self.logs / f"worker-{k}")),
                ],
                self.logs / f"worker-{k}.log",
            )
        import distributed

        with distributed.Client(self.address, timeout=timeout) as client:
            try:  # every worker present before a mode starts (the CLI waits for one only)
                client.wait_for_workers(self.n_workers, timeout=timeout)
            except TimeoutError:
                raise RuntimeError(f"dask workers did not join:\n{self.tail()}") from None
        return self.address

    def tail(self, chars: int = 2000) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-chars:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def close(self) -> None:
        """SIGTERM to every process group, SIGKILL to what is left after 10 s."""
        for p in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)  # also the nanny's worker, if it outlived it
            p.wait()
        self.procs.clear()


@contextlib.contextmanager
def loopback_cluster(n_workers: int, logs: Path) -> Iterator[str]:
    cluster = LoopbackCluster(n_workers, logs)
    try:
        yield cluster.start()
    finally:
        cluster.close()


# ====================================================================== the child processes
def _summary(xs: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(xs),
        "total": sum(xs),
        "mean": statistics.fmean(xs) if xs else 0.0,
        "median": statistics.median(xs) if xs else 0.0,
        "max": max(xs, default=0.0),
    }


def _cpu() -> float:
    """CPU seconds of this process (not its pools' workers: forkserver's children)."""
    return time.process_time()


def _dispatch_probe(corpora: list[Any], backend: str, jobs: int, client: Any) -> float:
    """Seconds a task costs the dispatching process: a batch of no-op tasks (``len``), each
    carrying one system's corpus as a library task does, sent to warm workers, wall / tasks."""
    from harness.session import parallel

    if backend == "processes":
        with parallel.process_pool(jobs) as pool:
            list(pool.map(len, [""] * (2 * jobs)))  # workers started
            start = time.perf_counter()
            futures = [pool.submit(len, c) for c in corpora]
            [f.result() for f in futures]
            return (time.perf_counter() - start) / len(corpora)
    client.gather([client.submit(len, "", pure=False) for _ in range(4)])
    start = time.perf_counter()
    client.gather([client.submit(len, c, pure=False) for c in corpora])
    return (time.perf_counter() - start) / len(corpora)


def child_runner(args: argparse.Namespace) -> dict[str, Any]:
    """One runner mode, timed in this (fresh) process."""
    from harness.cli.inputs import USER_FILES
    from harness.data.systems import load_text_systems
    from harness.run import RunPlan, run, runner
    from harness.session import Session
    from harness.session.cache import StatisticsCache, tokenizer_signature

    mode = args.child
    hyps, refs = workload_files(Path(args.workdir))
    start = time.perf_counter()
    systems = load_text_systems(hyps, refs)
    load_s = time.perf_counter() - start
    corpora = [(USER_FILES, name, c) for name, c in systems.items()]
    impls = [runner.Implementation.parse(s) for s in args.impl]
    cache = StatisticsCache()  # fresh, memory only: every mode counts cold

    # Instrumentation (instance attributes; the runner calls cache.compute and cache.warm):
    # seconds counting statistics on a miss, and the up-front statistics phase.
    computes: list[tuple[str, float]] = []  # (tokenization, seconds) of each count
    compute = cache.compute

    def timed_compute(corpus: Any, config: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return compute(corpus, config, **kw)
        finally:
            computes.append((tokenizer_signature(config), time.perf_counter() - t))

    warm_s = [0.0]
    warm = cache.warm

    def timed_warm(*a: Any, **kw: Any) -> int:
        t = time.perf_counter()
        try:
            return warm(*a, **kw)
        finally:
            warm_s[0] += time.perf_counter() - t

    cache.compute = timed_compute
    cache.warm = timed_warm  # type: ignore[method-assign]

    client = None
    if mode == "dask":
        import distributed

        client = distributed.Client(args.scheduler, timeout=60, set_as_default=False)
        client.wait_for_workers(args.workers, timeout=60)
    marks: list[float] = []
    try:
        gc.collect()
        load0 = os.getloadavg()[0]
        cpu0 = _cpu()
        start = time.perf_counter()
        rows = run(
            RunPlan.of(
                corpora,
                impls,
                levels=args.level,
                progress=lambda stage, done, total: marks.append(time.perf_counter()),
                session=Session(
                    cache=cache,
                    backend="serial" if mode == "serial" else mode,
                    jobs=args.jobs if mode == "processes" else 1,
                    client=client,
                ),
            )
        )
        wall = time.perf_counter() - start
        cpu = _cpu() - cpu0
        load1 = os.getloadavg()[0]
        dispatch = None
        if mode != "serial":
            sample = [c for _, _, c in corpora[: min(len(corpora), 40)]]
            dispatch = _dispatch_probe(sample, mode, args.jobs, client)
    finally:
        if client is not None:
            client.close()
    text = runner.rows_to_jsonl(rows)
    if len(rows) <= MAX_ROWS_ON_DISK:
        Path(args.workdir, f"rows-{mode}.jsonl").write_text(text, encoding="utf-8")
    # marks[0]: the loop starts (after the statistics phase and the libraries' submission);
    # marks[k]: work item k-1 is done. Work order: systems × implementations.
    tasks = []
    for k, (gap0, gap1) in enumerate(itertools.pairwise(marks)):
        impl = impls[k % len(impls)]
        tasks.append((impl.label, impl.kind, corpora[k // len(impls)][1], gap1 - gap0))
    scores = {
        f"{r.implementation}|{r.system}": r.score
        for r in rows
        if r.level == "corpus" and r.implementation in ("harness:sacrebleu", "sacrebleu")
    }
    return {
        "mode": mode,
        "wall": wall,
        "cpu": cpu,
        "load_s": load_s,
        "load_avg": [load0, load1],
        "rows": len(rows),
        "digest": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "statistics_counted_s": sum(t for _, t in computes),
        "computes": computes,
        "statistics_phase_s": warm_s[0],
        "before_loop_s": (marks[0] - start) if marks else wall,
        "after_loop_s": (start + wall - marks[-1]) if marks else 0.0,
        "profiles_main_s": sum(t for _, kind, _, t in tasks if kind == "profile"),
        "adapters_main_s": sum(t for _, kind, _, t in tasks if kind == "adapter"),
        "dispatch_s": dispatch,
        "tasks": tasks,
        "scores": scores,
    }


def child_yardstick(args: argparse.Namespace) -> dict[str, Any]:
    """The real ``sacrebleu.corpus_bleu`` over evenly spaced systems, one process, as a user's
    loop would run it (its 13a cache keeps the references' lines between systems)."""
    import sacrebleu

    hyps, refs = workload_files(Path(args.workdir))
    streams = [p.read_text(encoding="utf-8").splitlines() for p in refs]
    k = len(hyps) if args.yardstick <= 0 else min(args.yardstick, len(hyps))
    picks = sorted({round(i * (len(hyps) - 1) / max(1, k - 1)) for i in range(k)})
    times: dict[str, float] = {}
    scores: dict[str, float] = {}
    gc.collect()
    cpu0 = time.process_time()
    for i in picks:
        lines = hyps[i].read_text(encoding="utf-8").splitlines()
        start = time.perf_counter()
        score = sacrebleu.corpus_bleu(lines, streams).score
        times[hyps[i].stem] = time.perf_counter() - start
        scores[hyps[i].stem] = score
    cpu = time.process_time() - cpu0
    return {"systems": len(hyps), "times": times, "cpu": cpu, "scores": scores}


def run_child(args: argparse.Namespace, mode: str, workdir: Path, scheduler: str = "") -> Any:
    out = workdir / f"result-{mode}.json"
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--workdir"]
    argv += [str(workdir), "--child-out", str(out), "--jobs", str(args.jobs)]
    argv += ["--workers", str(args.workers), "--yardstick", str(args.yardstick), "--level"]
    argv += [*args.level, "--impl", ",".join(args.impl), "--scheduler", scheduler]
    subprocess.run(argv, check=True, cwd=REPO)
    return json.loads(out.read_text(encoding="utf-8"))


def run_cli(args: argparse.Namespace, mode: str, workdir: Path, scheduler: str = "") -> Any:
    """``bleu-harness compare`` on the files, end to end, in a fresh process."""
    hyps, refs = workload_files(workdir)
    out_dir = workdir / f"out-{mode}"
    argv = [sys.executable, "-m", "harness.cli", "compare", *map(str, hyps), "--refs"]
    argv += [*map(str, refs), "--impl", ",".join(args.impl), "--level", *args.level]
    argv += ["--out", str(out_dir), "--no-cache", "--quiet"]
    if mode == "cli-processes":
        argv += ["--jobs", str(args.jobs), "--backend", "processes"]
    elif mode == "cli-dask":
        argv += ["--scheduler", scheduler]
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    with (
        open(workdir / f"{mode}.stdout", "wb") as stdout,
        open(workdir / f"{mode}.stderr", "wb") as stderr,
    ):
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, cwd=REPO)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        err = (workdir / f"{mode}.stderr").read_text(errors="replace")[-3000:]
        raise SystemExit(f"{mode} failed ({proc.returncode}): {err}")
    text = (out_dir / "results.jsonl").read_bytes()
    return {
        "mode": mode,
        "wall": wall,
        "load_avg": [load0, os.getloadavg()[0]],
        "cpu": usage.ru_utime + usage.ru_stime,
        "rows": text.count(b"\n"),
        "digest": hashlib.sha256(text).hexdigest(),
        "rows_file": str(out_dir / "results.jsonl"),
    }


# ====================================================================== the report
def _first_difference(a: Path, b: Path) -> str:
    if not (a.exists() and b.exists()):
        return "(rows not kept on disk)"
    with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
        for n, (x, y) in enumerate(zip(fa, fb, strict=False), start=1):
            if x != y:
                return f"line {n}:\n  serial: {x.rstrip()[:400]}\n  other:  {y.rstrip()[:400]}"
    return "(one is a prefix of the other)"


def _by_impl(serial: dict[str, Any]) -> dict[str, list[float]]:
    by_impl: dict[str, list[float]] = {}
    for label, _kind, _system, t in serial["tasks"]:
        by_impl.setdefault(label, []).append(t)
    return by_impl


def _warmups(serial: dict[str, Any]) -> dict[str, float]:
    """Per library: its first task's time beyond the median of the others (the import and
    set-up that each worker process pays once)."""
    out = {}
    for label, xs in _by_impl(serial).items():
        kind = next(k for lab, k, _, _ in serial["tasks"] if lab == label)
        if kind == "adapter":
            rest = xs[1:] or xs
            out[label] = max(0.0, xs[0] - statistics.median(rest))
    return out


def per_task_table(serial: dict[str, Any]) -> list[str]:
    warm = _warmups(serial)
    lines = [
        "| implementation | tasks | total s | first ms | median ms | mean ms | max ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, xs in _by_impl(serial).items():
        s = _summary(xs)
        lines.append(
            f"| {label} | {s['n']} | {s['total']:.2f} | {1e3 * xs[0]:.1f} | "
            f"{1e3 * s['median']:.1f} | {1e3 * s['mean']:.1f} | {1e3 * s['max']:.1f} |"
        )
    engine = [t for _, kind, _, t in serial["tasks"] if kind == "profile"]
    libs = [t for _, kind, _, t in serial["tasks"] if kind == "adapter"]
    lines.append(f"| **engine (every profile task)** | {len(engine)} | {sum(engine):.2f} | | | | |")
    lines.append(
        f"| **libraries (every library task)** | {len(libs)} | {sum(libs):.2f} | "
        f"{1e3 * sum(warm.values()):.0f} beyond the median | | | |"
    )
    return lines


def _statistics_split(serial: dict[str, Any]) -> tuple[float, float]:
    """(first counts beyond their tokenization's median — tables and regexes built once a
    process —, the rest) of the serial run's statistics seconds."""
    by_tok: dict[str, list[float]] = {}
    for sig, t in serial["computes"]:
        by_tok.setdefault(sig, []).append(t)
    warm = sum(max(0.0, xs[0] - statistics.median(xs[1:] or xs)) for xs in by_tok.values())
    return warm, max(0.0, serial["statistics_counted_s"] - warm)


def projection(
    serial: dict[str, Any], parallel: dict[str, Any] | None, workers: int, n_systems: int
) -> dict[str, Any]:
    """A model of ``workers`` workers from this run's measurements (see the printed notes)."""
    engine = serial["profiles_main_s"]
    counted = serial["statistics_counted_s"]
    s_warm, s_steady = _statistics_split(serial)
    scoring = max(0.0, engine - counted)
    libs = [t for _, kind, _, t in serial["tasks"] if kind == "adapter"]
    warm = sum(_warmups(serial).values())  # each worker pays it once
    steady = max(0.0, sum(libs) - warm)
    d = parallel["dispatch_s"] if parallel else 0.0
    # statistics shipping: the statistics phase beyond a perfect 2-way split of the counting
    two = s_warm + s_steady / 2
    ship = max(0.0, parallel["statistics_phase_s"] - two) if parallel else 0.0
    setup = serial["before_loop_s"] + serial["after_loop_s"]
    common = setup + s_warm + s_steady / workers + ship
    library_part = warm + steady / workers + len(libs) * d
    upper = common + scoring + library_part
    lower = common + max(scoring, library_part)
    return {
        "workers": workers,
        "basis": parallel["mode"] if parallel else None,
        "setup_s": setup,
        "statistics_counted_s": counted,
        "statistics_warmup_s": s_warm,
        "statistics_shipping_s": ship,
        "engine_scoring_s": scoring,
        "library_tasks": len(libs),
        "library_total_s": sum(libs),
        "library_warmup_s": warm,
        "dispatch_s": d,
        "upper_s": upper,
        "lower_s": lower,
        "upper_s_per_system": upper / n_systems,
        "lower_s_per_system": lower / n_systems,
    }


def _versions() -> str:
    from importlib import metadata

    out = []
    for dist in ("sacrebleu", "nltk", "numpy", "dask", "distributed"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out.append(f"{dist} {metadata.version(dist)}")
    return ", ".join(out)


# ====================================================================== main
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--systems", type=int, help="hypothesis systems (default 200; --quick 20)")
    ap.add_argument("--segments", type=int, help="segments a system (default 2000; --quick 500)")
    ap.add_argument("--refs", type=int, default=2, help="references a segment (default 2)")
    ap.add_argument("--seed", type=int, default=2024, help="corpus_gen seed (default 2024)")
    ap.add_argument("--quick", action="store_true", help="20 systems × 500 segments")
    ap.add_argument(
        "--impl",
        action="append",
        help="profile:NAME or adapter:NAME, repeatable or comma-separated; profile:* every "
        "profile, adapter:* every default library (default: the eleven library profiles and "
        "adapter:sacrebleu)",
    )
    ap.add_argument(
        "--level",
        nargs="+",
        choices=["corpus", "segment"],
        default=["corpus"],
        help="levels (default corpus; segment makes a row a segment: millions at full size)",
    )
    ap.add_argument(
        "--modes",
        nargs="+",
        choices=MODES,
        default=list(RUNNER_MODES),
        help="what to time (default: serial processes dask; cli-* time bleu-harness compare); "
        "serial always runs: every other mode's rows are checked against it",
    )
    ap.add_argument("--jobs", type=int, default=2, help="processes of the processes modes")
    ap.add_argument("--workers", type=int, default=2, help="workers of the dask cluster")
    ap.add_argument(
        "--yardstick",
        type=int,
        default=20,
        help="systems the real sacrebleu scores, scaled to all (default 20; 0: all; -1: none)",
    )
    ap.add_argument("--project", type=int, default=16, help="workers of the projection")
    ap.add_argument("--json", help="write every measurement to this JSON file")
    ap.add_argument("--keep", help="write the workload and outputs here (kept) instead of /tmp")
    # internal: one measurement in a fresh process
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--scheduler", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        args.impl = [s for item in args.impl for s in item.split(",") if s]
        return args
    quick = args.quick
    args.systems = args.systems or (20 if quick else 200)
    args.segments = args.segments or (500 if quick else 2000)
    if min(args.systems, args.segments, args.refs, args.jobs, args.workers, args.project) < 1:
        ap.error("--systems, --segments, --refs, --jobs, --workers, --project: at least 1")
    args.impl = expand_impls(args.impl or DEFAULT_IMPLS)
    args.modes = list(dict.fromkeys(args.modes))
    if "serial" not in args.modes:
        args.modes.insert(0, "serial")  # every mode is checked against the serial rows
    args.modes.sort(key=MODES.index)
    return args


def _sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # run the finally blocks: the clusters are torn down


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        result = child_yardstick(args) if args.child == "yardstick" else child_runner(args)
        Path(args.child_out).write_text(json.dumps(result), encoding="utf-8")
        return 0
    signal.signal(signal.SIGTERM, _sigterm)
    n_sys = args.systems
    started = time.time()
    print(
        f"bench_scale {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {n_sys} systems × "
        f"{args.segments} segments × {args.refs} refs, levels {' '.join(args.level)}; "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {_versions()}; "
        f"load {os.getloadavg()[0]:.2f}"
    )
    print(f"implementations ({len(args.impl)}): {', '.join(args.impl)}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.keep:
            workdir = Path(args.keep)
            workdir.mkdir(parents=True, exist_ok=False)
        else:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_scale-")))
        t = time.perf_counter()
        systems, refs = generate_systems(n_sys, args.segments, args.refs, args.seed)
        write_workload(workdir, systems, refs)
        del systems, refs
        print(f"workload generated and written in {time.perf_counter() - t:.1f} s", flush=True)
        results: dict[str, Any] = {}
        for mode in args.modes:
            print(f"- {mode} ...", end=" ", flush=True)
            with contextlib.ExitStack() as cluster:
                scheduler = ""
                if mode.endswith("dask"):
                    scheduler = cluster.enter_context(
                        loopback_cluster(args.workers, workdir / f"dask-{mode}")
                    )
                if mode in RUNNER_MODES:
                    results[mode] = run_child(args, mode, workdir, scheduler)
                else:
                    results[mode] = run_cli(args, mode, workdir, scheduler)
            print(f"{results[mode]['wall']:.1f} s", flush=True)
        yard = None
        if args.yardstick >= 0:
            print("- sacrebleu yardstick ...", end=" ", flush=True)
            yard = run_child(args, "yardstick", workdir)
            print(f"{sum(yard['times'].values()):.1f} s", flush=True)
        mismatches = []
        serial = results["serial"]
        for mode, res in results.items():
            res["equal_to_serial"] = res["digest"] == serial["digest"]
            if not res["equal_to_serial"]:
                other = Path(res.get("rows_file") or workdir / f"rows-{mode}.jsonl")
                diff = _first_difference(workdir / "rows-serial.jsonl", other)
                mismatches.append(f"{mode}: rows differ from serial, {diff}")
        if yard is not None:
            for name, score in yard["scores"].items():
                ours = serial["scores"].get(f"harness:sacrebleu|{name}")
                if ours is not None and abs(ours - score) > 1e-9:
                    mismatches.append(f"harness:sacrebleu {name}: {ours!r} != sacrebleu {score!r}")
        report = print_report(args, results, yard)
        report["seconds"] = time.time() - started
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
        if mismatches:
            raise AssertionError("\n".join(mismatches))
    return 0


def print_report(
    args: argparse.Namespace, results: dict[str, Any], yard: dict[str, Any] | None
) -> dict[str, Any]:
    n_sys = args.systems
    serial = results["serial"]
    base = None
    yard_line = ""
    if yard is not None and yard["times"]:
        k = len(yard["times"])
        base = sum(yard["times"].values()) / k  # sacrebleu seconds a system
        scaled = f", scaled ×{n_sys / k:.2f}" if k != n_sys else ""
        yard_line = (
            f"| sacrebleu.corpus_bleu ({k} of {n_sys} systems{scaled}) | 1 | "
            f"{base * n_sys:.1f} | {yard['cpu'] * n_sys / k:.1f} | {base:.3f} | – | – | – | "
            "1.00 | – | – |"
        )
    print()
    print(
        "| mode | workers | wall s | CPU s | s/system | × serial | rows | rows/s | × sacrebleu | "
        "rows = serial | load before→after |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for mode, res in results.items():
        workers = {"processes": args.jobs, "dask": args.workers}.get(mode.removeprefix("cli-"), 1)
        ref = results.get("cli-serial") if mode.startswith("cli-") else serial
        speed = f"{ref['wall'] / res['wall']:.2f}" if ref is not None else "–"
        per = res["wall"] / n_sys
        vs = f"{base / per:.2f}" if base else "–"
        same = "yes" if res["equal_to_serial"] else "**NO**"
        la = res["load_avg"]
        print(
            f"| {mode} | {workers} | {res['wall']:.1f} | {res['cpu']:.1f} | {per:.3f} | {speed} | "
            f"{res['rows']} | {res['rows'] / res['wall']:.1f} | {vs} | {same} | "
            f"{la[0]:.2f}→{la[1]:.2f} |"
        )
    if yard_line:
        print(yard_line)
    print(
        f"\nwall: runner.run from loaded corpora to rows, all {len(args.impl)} implementations "
        "(cli-*: the whole command, start to exit, answer and files included; × serial is then "
        "over cli-serial). CPU: of the timed process alone (cli-*: with the children it reaped), "
        "not of its pools' or the dask workers; on a shared machine wall − CPU of serial is "
        "mostly time lost to other processes. "
        "× sacrebleu: one sacrebleu.corpus_bleu call's seconds a system / this mode's seconds a "
        "system for the whole comparison (above 1: the comparison is faster than sacrebleu alone)."
    )
    print(f"loading the {n_sys} systems' files (not in wall): {serial['load_s']:.2f} s")

    print("\nWhere the main process spent the time (runner modes, s):\n")
    print(
        "| mode | statistics phase | before the loop (incl. the phase) | profiles (main) | "
        "libraries (main; waiting in parallel modes) | after |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for mode in RUNNER_MODES:
        if mode in results:
            r = results[mode]
            print(
                f"| {mode} | {r['statistics_phase_s']:.2f} | {r['before_loop_s']:.2f} | "
                f"{r['profiles_main_s']:.2f} | {r['adapters_main_s']:.2f} | "
                f"{r['after_loop_s']:.2f} |"
            )
    print(
        f"\nserial: statistics counted on cache misses {serial['statistics_counted_s']:.2f} s of "
        f"the profiles' {serial['profiles_main_s']:.2f} s (the rest: scoring from statistics)."
    )

    print(
        f"\nPer-task costs, serial run (a task: one implementation on one system; {n_sys} each):\n"
    )
    for line in per_task_table(serial):
        print(line)
    par = results.get("dask") or results.get("processes")
    proj = projection(serial, par, args.project, n_sys)
    dispatch = {m: results[m]["dispatch_s"] for m in ("processes", "dask") if m in results}
    if dispatch:
        print(
            "\ndispatch a task (no-op task carrying one system's corpus, batch of up to 40, "
            "warm workers; wall / tasks): "
            + ", ".join(f"{m} {1e3 * d:.1f} ms" for m, d in dispatch.items())
        )
    w = args.project
    print(f"\nProjection to a {w}-worker cluster (a model from this run, not a measurement):\n")
    print(
        f"  T{w} = setup + Sw + (S − Sw)/{w} + ship + E + L  = {proj['upper_s']:.1f} s "
        f"({proj['upper_s_per_system']:.3f} s a system: engine scoring, then the libraries)"
    )
    print(
        f"  T{w} = setup + Sw + (S − Sw)/{w} + ship + max(E, L) = {proj['lower_s']:.1f} s "
        f"({proj['lower_s_per_system']:.3f} s a system: the libraries wholly beside the "
        "engine's scoring, as the runner intends)"
    )
    if base:
        print(
            f"  × sacrebleu at {w} workers: {base / proj['upper_s_per_system']:.2f} to "
            f"{base / proj['lower_s_per_system']:.2f}"
        )
    basis = proj["basis"] or "none: no parallel mode ran, so ship = d = 0"
    print(
        f"  where setup = {proj['setup_s']:.2f} s (the serial run outside its tasks); "
        f"S = {proj['statistics_counted_s']:.2f} s statistics counted in the serial run, of "
        f"which Sw = {proj['statistics_warmup_s']:.2f} s the first count of each tokenization "
        "beyond its median (built once a process: every worker pays it, at the same time) and "
        f"the rest split evenly over the workers; ship = {proj['statistics_shipping_s']:.2f} s "
        f"(from {basis}: its statistics phase − (Sw + (S − Sw)/2), i.e. shipping the shards, "
        "assumed not to shrink with more workers); "
        f"E = {proj['engine_scoring_s']:.2f} s scoring in the main "
        "process (the serial profiles' time − S; it does not spread); "
        f"L = W + (A − W)/{w} + n·d, with A = {proj['library_total_s']:.2f} s in "
        f"n = {proj['library_tasks']} library tasks (serial run), "
        f"W = {proj['library_warmup_s']:.2f} s the libraries' first tasks beyond their median "
        "(imports, set-up: each worker pays it once, all at the same time), "
        f"d = {1e3 * proj['dispatch_s']:.1f} ms a task dispatched one after the other by the "
        f"main process (from {basis}). Assumes {w} free cores, one single-threaded worker "
        "each, tasks of equal cost, and no other load."
    )
    return {
        "args": {k: v for k, v in vars(args).items() if not k.startswith("child")},
        "versions": _versions(),
        "cores": os.cpu_count(),
        "modes": results,
        "yardstick": yard,
        "sacrebleu_s_per_system": base,
        "projection": proj,
    }


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the finally blocks have run: no cluster is left behind
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
