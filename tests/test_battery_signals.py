"""Battery of faults from outside the harness: signals, dead pipes, closed streams, and more
workers asked for than the machine has.

Each row runs the real console program (``python -m harness.cli``) in its own session on a
generated corpus large enough to be mid-run when the fault comes, and asserts the exit code,
the words on stderr, and that nothing was lost or left behind: no process the run started
still alive, no staging folder or lock in the output folder, an earlier report byte for byte
as it was, and output that was asked for either complete or the exit code saying it is not.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from harness.session import parallel, resources

#: How long a row waits for the run to reach the state it interrupts.
REACH = 120.0
#: Lines of the generated corpus: over the serial threshold, so that counting runs in workers.
LINES = parallel.SERIAL_THRESHOLD + 10_000

WORDS = (
    "the a cat dog sat on mat house was is are reads book green small big tree river "
    "walks runs fast slow red blue over under near far and with"
).split()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A hypothesis file and a reference file of :data:`LINES` seeded random sentences."""
    folder = tmp_path_factory.mktemp("signals")
    rng = random.Random(7)

    def line() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))

    hyp, ref = folder / "hyp.txt", folder / "ref.txt"
    refs = [line() for _ in range(LINES)]
    hyp.write_text("".join(f"{r.split(' ', 1)[-1]} {line()[:20]}\n" for r in refs))
    ref.write_text("".join(f"{r}\n" for r in refs))
    return {"hyp": hyp, "ref": ref, "dir": folder}


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", *argv]


def _descendants(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _alive(procs: list[psutil.Process]) -> list[str]:
    left = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{p.pid} {' '.join(p.cmdline())[:100]}")
        except psutil.NoSuchProcess:
            pass
    return left


def _workers(procs: list[psutil.Process]) -> int:
    """Worker processes among ``procs``: pool workers forked by the forkserver, or dask's."""
    n = 0
    for p in procs:
        try:
            line = " ".join(p.cmdline())
            parent = p.parent()
            forked = parent is not None and "forkserver" in " ".join(parent.cmdline())
        except psutil.NoSuchProcess:  # gone, or a zombie
            continue
        if forked or "multiprocessing.spawn" in line:
            n += 1
    return n


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    started: list[psutil.Process]
    took: float


def _interrupt(
    argv: list[str],
    signals: tuple[signal.Signals, ...],
    ready: Callable[[psutil.Process, list[psutil.Process]], bool],
    cwd: Path,
    cache: Path,
    group: bool = False,
) -> Outcome:
    """Run ``argv``, wait until ``ready(process, descendants)``, send ``signals`` one after another (to
    its whole process group with ``group``), and collect what happened, with every process the
    run had started by then."""
    env = dict(os.environ, BLEU_HARNESS_CACHE_DIR=str(cache))
    child = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    proc = psutil.Process(child.pid)
    start = time.monotonic()
    try:
        while not ready(proc, _descendants(proc)):
            if child.poll() is not None:
                out, err = child.communicate()
                pytest.fail(
                    f"the run ended (exit {child.returncode}) before it was interrupted:\n{err}"
                )
            if time.monotonic() - start > REACH:
                pytest.fail(f"the run did not reach the state to interrupt in {REACH:.0f} s")
            time.sleep(0.1)
        started = _descendants(proc)
        for sig in signals:
            if group:
                os.killpg(child.pid, sig)
            else:
                child.send_signal(sig)
            time.sleep(0.05)
        t0 = time.monotonic()
        out, err = child.communicate(timeout=60)
        took = time.monotonic() - t0
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    deadline = time.monotonic() + 10
    while _alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    return Outcome(child.returncode, out, err, started, took)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _check_clean(o: Outcome, sig: signal.Signals) -> None:
    assert o.code == 128 + int(sig), o.stderr[-2000:]
    # the harness's own last word (multiprocessing's resource tracker, a process of its own,
    # may still warn after it about a semaphore a killed dask worker left)
    ours = [x for x in o.stderr.splitlines() if x.startswith("bleu-harness:")]
    assert ours and f"interrupted by {sig.name}" in ours[-1], o.stderr[-2000:]
    assert "Traceback" not in o.stderr, o.stderr[-2000:]
    assert not _alive(o.started), f"left running: {_alive(o.started)}"


def _pool_ready(_main: psutil.Process, procs: list[psutil.Process]) -> bool:
    return _workers(procs) >= 2


def _dask_ready(_main: psutil.Process, procs: list[psutil.Process]) -> bool:
    """A local dask cluster's workers (one process per CPU) are up — each connected to the
    scheduler, so past its start-up — and have been working."""
    workers = [p for p in procs if _is_spawned(p)]
    if len(workers) < min(2, resources.usable_cpus()):
        return False
    busy = 0.0
    for p in workers:
        try:
            if not any(c.status == psutil.CONN_ESTABLISHED for c in p.net_connections("tcp")):
                return False
            busy += p.cpu_times().user
        except psutil.NoSuchProcess:
            return False
    return busy > 0.5


def _dask_starting(_main: psutil.Process, procs: list[psutil.Process]) -> bool:
    """A local dask cluster has begun to start its workers (the first one is spawned)."""
    return any(_is_spawned(p) for p in procs)


def _is_spawned(p: psutil.Process) -> bool:
    try:
        return "multiprocessing.spawn" in " ".join(p.cmdline())
    except psutil.NoSuchProcess:
        return False


def _any_child(_main: psutil.Process, procs: list[psutil.Process]) -> bool:
    return bool(procs)


#: CPU seconds a serial run has spent before it is stopped: well into its work (the serial
#: compare of the generated corpus takes about three times as much), however loaded the
#: machine, since a busy machine slows the run's clock and this count alike.
SERIAL_CPU = 3.0


def _computing(main: psutil.Process, _procs: list[psutil.Process]) -> bool:
    """The run has spent :data:`SERIAL_CPU` seconds of CPU (its own state, not the clock)."""
    try:
        t = main.cpu_times()
    except psutil.NoSuchProcess:
        return False
    return t.user + t.system >= SERIAL_CPU


needs_two_cpus = pytest.mark.skipif(
    resources.usable_cpus() < 2, reason="a pool of two workers needs two usable CPUs"
)


# ------------------------------------------------------------------------------ signals
@dataclass(frozen=True)
class SignalRow:
    """``bleu-harness ARGS`` on the generated corpus, stopped by ``signals`` once ``ready``."""

    args: tuple[str, ...]
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM,)
    ready: str = "pool"
    out: bool = False  # the command writes to --out OUT
    earlier: bool = False  # OUT already holds a finished report (--force replaces it)
    group: bool = False  # to every process of the run, as a terminal sends Ctrl-C


HYP, REF = "{hyp}", "{ref}"
REPORT = ("report", HYP, "--refs", REF, "--quiet", "--impl", "profile:sacrebleu,adapter:nltk")
# the real nltk on every segment (--real all): long enough a run to be stopped in its work
COMPARE = (
    "compare", HYP, "--refs", REF, "--quiet", "--impl", "profile:sacrebleu,adapter:nltk",
    "--real", "all",
)  # fmt: skip
IDENTIFY = ("identify", HYP, REF, "--score", "27", "--quiet")
SIGNAL_ROWS = {
    "report-jobs2-sigterm": SignalRow((*REPORT, "--jobs", "2"), out=True),
    "report-jobs2-sigterm-over-earlier": SignalRow(
        (*REPORT, "--jobs", "2", "--force"), out=True, earlier=True
    ),
    "report-jobs2-sigint": SignalRow((*REPORT, "--jobs", "2"), (signal.SIGINT,), out=True),
    "report-jobs2-sighup": SignalRow((*REPORT, "--jobs", "2"), (signal.SIGHUP,), out=True),
    "report-jobs2-ctrl-c-to-the-job": SignalRow(
        (*REPORT, "--jobs", "2"), (signal.SIGINT,), out=True, group=True
    ),
    "report-jobs2-hangup-to-the-job": SignalRow(
        (*REPORT, "--jobs", "2"), (signal.SIGHUP,), out=True, group=True
    ),
    "report-jobs2-sigterm-twice": SignalRow(
        (*REPORT, "--jobs", "2"), (signal.SIGTERM, signal.SIGTERM), out=True
    ),
    "compare-jobs2-sigterm": SignalRow((*COMPARE, "--jobs", "2"), out=True),
    "compare-serial-sigterm": SignalRow((*COMPARE, "--jobs", "1"), ready="computing", out=True),
    "identify-jobs2-sigterm": SignalRow((*IDENTIFY, "--jobs", "2")),
    "identify-jobs2-hangup-to-the-job": SignalRow(
        (*IDENTIFY, "--jobs", "2"), (signal.SIGHUP,), group=True
    ),
    "validate-cmd-sigterm": SignalRow(
        ("validate", "--cmd", "sleep 600 # {{hyp}} signals-row", "--cases", "3"), ready="child"
    ),
    "report-dask-sigterm": SignalRow((*REPORT, "--backend", "dask"), ready="dask", out=True),
    "compare-dask-sigint": SignalRow(
        (*COMPARE, "--backend", "dask"), (signal.SIGINT,), ready="dask", out=True
    ),
    "identify-dask-sigterm": SignalRow((*IDENTIFY, "--backend", "dask"), ready="dask"),
    "report-dask-hangup-to-the-job": SignalRow(
        (*REPORT, "--backend", "dask"), (signal.SIGHUP,), ready="dask", out=True, group=True
    ),
    "compare-dask-sigterm-while-workers-start": SignalRow(
        (*COMPARE, "--backend", "dask"), ready="dask-starting", out=True
    ),
}
READY = {
    "pool": _pool_ready,
    "dask": _dask_ready,
    "dask-starting": _dask_starting,
    "child": _any_child,
    "computing": _computing,
}


@needs_two_cpus
@pytest.mark.parametrize("name", list(SIGNAL_ROWS))
def test_a_stopped_run_unwinds(
    name: str, corpus: dict[str, Path], tmp_path: Path, earlier_report: Path
) -> None:
    row = SIGNAL_ROWS[name]
    if row.ready.startswith("dask"):
        pytest.importorskip("distributed")
    args = [a.format(hyp=corpus["hyp"], ref=corpus["ref"]) for a in row.args]
    out = tmp_path / "out"
    if row.earlier:
        import shutil

        shutil.copytree(earlier_report, out)
    if row.out:
        args += ["--out", str(out)]
    before = _snapshot(out) if row.earlier else None
    o = _interrupt(
        _cli(*args), row.signals, READY[row.ready], tmp_path, tmp_path / "cache", row.group
    )
    _check_clean(o, row.signals[0])
    if row.earlier:
        assert before is not None and _snapshot(out) == before  # the earlier report, whole
        assert sorted(p.name for p in out.iterdir()) == sorted(before)  # no staging, no lock
    elif row.out:
        assert not out.exists(), sorted(p.name for p in out.iterdir())


@pytest.fixture(scope="module")
def earlier_report(corpus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished report of the first lines of the generated corpus, to be replaced."""
    out = tmp_path_factory.mktemp("earlier") / "report"
    done = subprocess.run(
        _cli(
            "report", str(corpus["hyp"]), "--refs", str(corpus["ref"]), "--limit", "50",
            "--quiet", "--impl", "profile:sacrebleu", "--no-cache", "--out", str(out),
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


# ------------------------------------------------------------------ pipes and closed streams
def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in bash with pipefail off, its own exit codes in ``PIPESTATUS`` printed."""
    return subprocess.run(
        ["bash", "-c", f'{command}; echo "status=${{PIPESTATUS[0]}}" >&2'],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _untimed(text: str) -> str:
    """``text`` with its durations (``8.7 s``) blanked: two runs print the same otherwise."""
    return re.sub(r"\b\d+(\.\d+)? s\b", "N s", text)


def _status(done: subprocess.CompletedProcess[str]) -> int:
    line = [x for x in done.stderr.splitlines() if x.startswith("status=")][-1]
    return int(line.split("=")[1])


PY = f"{sys.executable} -m harness.cli"
SMALL = "--fixture edge_empty_hypothesis --no-cache --impl profile:sacrebleu,adapter:sacrebleu"


def test_a_reader_that_leaves_early_makes_the_exit_code_say_so(
    corpus: dict[str, Path], tmp_path: Path
) -> None:
    # one score a segment: far more than a pipe holds once its reader has gone
    done = _shell(f"{PY} score {corpus['hyp']} {corpus['ref']} --level segment | head -1", tmp_path)
    assert _status(done) == 128 + signal.SIGPIPE
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_a_reader_gone_before_any_output_is_a_broken_pipe_too(tmp_path: Path) -> None:
    done = _shell(f"{PY} compare {SMALL} | true", tmp_path)
    assert _status(done) == 128 + signal.SIGPIPE
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_progress_on_a_dead_pipe_never_skips_the_report(tmp_path: Path) -> None:
    out = tmp_path / "D"
    done = _shell(
        f"{PY} report {SMALL} --formats md json --out {out} --progress 2>&1 | head -2", tmp_path
    )
    # the report folder is complete; the summary on stdout is not, and the exit code says so
    assert _status(done) == 128 + signal.SIGPIPE
    assert {"report.md", "report.json"} <= {p.name for p in out.iterdir()}
    assert not [p for p in out.iterdir() if p.name.startswith(".bleu-harness-staging")]
    whole = _shell(
        f"{PY} report {SMALL} --formats md json --out {tmp_path / 'E'} --quiet", tmp_path
    )
    assert _status(whole) == 0
    assert (out / "report.md").read_text() == (tmp_path / "E" / "report.md").read_text()


def test_progress_on_a_closed_stderr_is_dropped_and_the_output_is_whole(tmp_path: Path) -> None:
    done = _shell(f"{PY} compare {SMALL} --progress 2>&-", tmp_path)
    quiet = _shell(f"{PY} compare {SMALL} --quiet", tmp_path)
    assert _status(done) == 0 and _status(quiet) == 0
    assert _untimed(done.stdout) == _untimed(quiet.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ("compare", "--fixture", "edge_empty_hypothesis", "--no-cache"),
        ("score", "{hyp}", "{ref}"),
        ("profiles",),
        ("report", "--fixture", "edge_empty_hypothesis", "--no-cache", "--out", "{out}"),
    ],
    ids=["compare", "score", "profiles", "report"],
)
def test_a_closed_stdout_is_an_error_before_any_work(
    args: tuple[str, ...], corpus: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "never"
    argv = [a.format(hyp=corpus["hyp"], ref=corpus["ref"], out=out) for a in args]
    done = subprocess.run(
        _cli(*argv), capture_output=False, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: os.close(1), timeout=300,
    )  # fmt: skip
    assert done.returncode == 2
    assert "stdout is closed" in done.stderr and ">/dev/null" in done.stderr
    assert not out.exists()


# ------------------------------------------------------------------------------ workers
def test_more_jobs_than_cpus_start_no_more_workers_and_say_so_once(tmp_path: Path) -> None:
    small = (
        "--fixture",
        "edge_empty_hypothesis",
        "--no-cache",
        "--impl",
        "adapter:sacrebleu,adapter:nltk",
    )
    argv = _cli("compare", *small, "--jobs", "1000")
    child = subprocess.Popen(
        argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    proc, most = psutil.Process(child.pid), 0
    while child.poll() is None:
        most = max(most, _workers(_descendants(proc)))
        time.sleep(0.05)
    out, err = child.communicate()
    serial = subprocess.run(
        _cli("compare", *small),
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert child.returncode == 0, err
    assert most <= resources.usable_cpus()
    said = [x for x in err.splitlines() if "worker processes asked for" in x]
    assert said == [
        f"bleu-harness: warning: 1000 worker processes asked for, at most "
        f"{resources.usable_cpus()}: {resources.usable_cpus()} CPUs usable"
    ] or (len(said) == 1 and "of memory available" in said[0])
    assert _untimed(out) == _untimed(serial.stdout)


def test_resolve_jobs_caps_at_the_machine_and_warns_once() -> None:
    asked = resources.usable_cpus() + 997
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = parallel.resolve_jobs(asked)
        second = parallel.resolve_jobs(asked)
    assert first == second <= resources.usable_cpus()
    capped = [w for w in caught if issubclass(w.category, resources.ResourcesCapped)]
    assert len(capped) == 1 and f"{asked} worker processes asked for" in str(capped[0].message)


def test_fewer_tasks_than_workers_start_fewer_workers_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", resources.ResourcesCapped)
        budget = resources.worker_budget(min(2, resources.usable_cpus()), tasks=1)
    assert budget.workers == 1


def test_jobs_zero_means_every_usable_cpu() -> None:
    assert parallel.resolve_jobs(0) == resources.usable_cpus()


def _data_limit() -> int:
    import resource

    return resource.getrlimit(resource.RLIMIT_DATA)[0]


def _allocate(n: int) -> int:
    return len(bytearray(n))


@needs_two_cpus
def test_each_worker_has_its_share_of_memory_and_no_more() -> None:
    with parallel.process_pool(2) as pool:
        limit = pool.submit(_data_limit).result()
        budget = resources.worker_budget(2, None)
        assert budget.memory_per_worker is not None
        # the budget is read when each pool starts; memory moves a little between the two
        assert abs(limit - budget.memory_per_worker) <= budget.memory_per_worker // 10
        with pytest.raises(MemoryError):
            pool.submit(_allocate, limit + (1 << 20)).result()
        assert pool.submit(_allocate, 1 << 20).result() == 1 << 20  # the worker lives on


@needs_two_cpus
def test_a_pool_left_by_an_error_kills_its_workers_at_once() -> None:
    with pytest.raises(RuntimeError), parallel.process_pool(2) as pool:
        pool.submit(time.sleep, 600)
        pool.submit(time.sleep, 600)
        deadline = time.monotonic() + REACH
        while len(pool._processes) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [psutil.Process(p) for p in pool._processes]
        t0 = time.monotonic()
        raise RuntimeError("stop")
    # the tasks sleep 600 s: a pool that waited for them would take that long (a hang guard
    # that tells "at once" from "after the tasks", not a speed bound)
    assert time.monotonic() - t0 < 120
    assert not _alive(workers)


def _park(path: str) -> None:
    """A task that waits until ``path`` exists (never, in the test below)."""
    while not os.path.exists(path):
        time.sleep(0.05)


@needs_two_cpus
def test_a_worker_dying_beside_a_cancelled_future_prints_nothing(tmp_path: Path) -> None:
    """Row: a worker dies (Ctrl-C sent to the whole job reaches one still starting) while the
    caller has cancelled a future that waits in the pool: the pool breaks quietly, the
    futures that ran fail with BrokenProcessPool, the cancelled one stays cancelled, and no
    thread prints a traceback (CPython before 3.12 raised InvalidStateError in the pool's
    manager thread here)."""
    import threading
    from concurrent.futures.process import BrokenProcessPool

    raised: list[BaseException | None] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)
    never = str(tmp_path / "never")
    try:
        with pytest.raises(RuntimeError), parallel.process_pool(1) as pool:
            # one worker: the first two tasks go into its call queue (running, not
            # cancellable), the others wait in the pool until the queue has room
            futures = [pool.submit(_park, never) for _ in range(4)]
            deadline = time.monotonic() + REACH
            while not futures[1].running():  # the manager has queued the first two
                assert time.monotonic() < deadline, "the pool never queued its first tasks"
                time.sleep(0.01)
            assert futures[2].cancel()
            manager = pool._executor_manager_thread
            (worker,) = pool._processes.values()
            worker.kill()
            assert manager is not None
            manager.join(REACH)  # the manager finds the dead worker and breaks the pool
            assert not manager.is_alive()
            raise RuntimeError("stop")
    finally:
        threading.excepthook = previous
    assert raised == []
    assert futures[2].cancelled()
    for f in (futures[0], futures[1], futures[3]):
        assert isinstance(f.exception(timeout=REACH), BrokenProcessPool)


#: A pool whose worker dies in the middle of sending a result, then is stopped: the manager
#: thread is left reading half a message (written here as a header promising more bytes than
#: follow, which is what the dead worker leaves in the pipe).
HALF_A_RESULT = """
import os, struct
from harness.session import parallel

def main():
    try:
        with parallel.process_pool(1) as pool:
            assert pool.submit(abs, -1).result() == 1  # the worker and its manager are up
            writer = pool._result_queue._writer
            os.write(writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 100)
            raise RuntimeError("stop")
    except RuntimeError:
        pass

if __name__ == "__main__":
    main()
    print("left the pool")
"""


def test_a_worker_killed_while_sending_its_result_does_not_hold_the_exit(tmp_path: Path) -> None:
    """Row: a stop lands while a worker is sending its result; the pool kills the worker,
    leaving half a message in the result pipe that the pool's manager thread waits to
    complete. The run still exits, at once and without a traceback (before, the
    interpreter's exit joined that thread forever)."""
    script = tmp_path / "half.py"
    script.write_text(HALF_A_RESULT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=REACH
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "left the pool\n"
    assert done.stderr == ""


#: Starts a pool in a fresh interpreter, as a command does, and prints whether each of its
#: processes and this one block SIGHUP (Linux's /proc).
HANGUP_MASKS = """
import os, signal
import psutil
from multiprocessing import resource_tracker
from harness.session import parallel

def blocks_hangup(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("SigBlk:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGHUP - 1)))

if __name__ == "__main__":
    with parallel.process_pool(1) as pool:
        assert pool.submit(abs, -1).result() == 1
        named = {"worker": next(iter(pool._processes)),
                 "resource tracker": resource_tracker._resource_tracker._pid}
        for child in psutil.Process().children():
            if "forkserver" in " ".join(child.cmdline()):
                named["forkserver"] = child.pid
        named["the run"] = os.getpid()
        for name, pid in named.items():
            print(name, blocks_hangup(pid))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_a_pools_processes_leave_a_hangup_to_the_run(tmp_path: Path) -> None:
    """A terminal's hangup reaches every process of the job: the pool's workers, its
    forkserver and multiprocessing's resource tracker start with SIGHUP blocked (the run stops
    them itself; a resource tracker killed by it is started again by the clean-up and prints a
    traceback per semaphore), while the run itself still receives it."""
    script = tmp_path / "masks.py"
    script.write_text(HANGUP_MASKS)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=REACH
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = {"worker": "True", "resource tracker": "True", "the run": "False"}
    if parallel.START_METHOD == "forkserver":
        expected["forkserver"] = "True"
    assert dict(line.rsplit(" ", 1) for line in done.stdout.splitlines()) == expected
