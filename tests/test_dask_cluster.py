"""The command line on a real ``dask.distributed`` cluster (issue 22, item 3).

A scheduler and two single-threaded workers are started here as separate programs (``dask
scheduler``, ``dask worker``) on 127.0.0.1, as a user starts them on their machines; the
workers import the harness from this repository (``PYTHONPATH``) with the same environment.

* ``compare --scheduler`` on the built-in fixtures and ``report --scheduler`` on a few of them
  write the serial run's rows and report, byte for byte apart from timing fields, and leave
  the user's scheduler and workers running;
* ``$DASK_SCHEDULER_ADDRESS`` with ``--backend dask`` connects to the same cluster, and the
  whole command runs on one client; ``--backend dask`` alone starts one local cluster for the
  whole command, not one per computation;
* a worker killed mid-run either lets the run finish with the serial rows (dask reschedules
  its tasks) or ends it with one ``bleu-harness: error:`` line and the previous output folder
  as it was;
* a scheduler that does not answer ends the command with one line; ``--scheduler`` with
  ``--backend serial``/``processes`` is a usage error.

The cluster tests are ``slow`` (they run whole programs); the module is one xdist group, so the
cluster is started once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.cli import app
from harness.errors import AdapterUnavailable
from harness.session import cluster as session_cluster
from harness.session import parallel

from .conftest import REPO_ROOT

pytestmark = pytest.mark.xdist_group("test_dask_cluster")

#: Seconds allowed for the scheduler to write its address and for both workers to join it
#: (generous: the suite shares two cores between its workers).
STARTUP = 120.0
#: Seconds allowed for one command-line run.
RUN = 900.0
#: A few fixtures for the report runs (several systems, segments, a CJK tokenizer).
REPORT_FIXTURES = ("silence_pitfall", "edge_cjk_zh")
#: A few implementations, for the runs in this process: two profiles (counted on dask) and two
#: real libraries (run on dask).
FEW = ("--impl", "profile:sacrebleu,profile:nltk,adapter:sacrebleu,adapter:nltk")
#: Row and report fields that hold a duration, which two runs never share.
TIMING_KEYS = frozenset({"seconds", "elapsed", "time", "duration", "took"})

DASK = Path(sys.executable).with_name("dask")


# ---------------------------------------------------------------------- processes
def _env(**extra: str) -> dict[str, str]:
    """This environment for the scheduler, the workers and the command: the repository
    importable, one BLAS thread each, and no scheduler named unless asked."""
    env = {k: v for k, v in os.environ.items() if k != session_cluster.SCHEDULER_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.update(extra)
    return env


def _spawn(argv: list[str], log: Path, cwd: Path) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a process group of its own (so that stopping it stops its children),
    its output appended to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=_env(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Stop ``proc``'s process group: ``sig``, then SIGKILL if it has not exited."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


def _tail(path: Path, n: int = 30) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.exists() else []
    return f"--- {path.name} (last {n} lines)\n" + "\n".join(lines[-n:])


@dataclass
class Cluster:
    """A scheduler and its workers, each a process group of its own, and their logs."""

    address: str
    folder: Path
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    started: int = 0

    def start_worker(self) -> subprocess.Popen[bytes]:
        """One more worker: one process, one thread, on 127.0.0.1."""
        self.started += 1
        name = f"worker{self.started}"  # unique: the scheduler refuses a name it knows
        argv = [str(DASK), "worker", self.address, "--name", name, "--nworkers", "1"]
        argv += ["--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"]
        # a worker whose scheduler is gone (the test process killed hard) exits on its own
        argv += ["--death-timeout", "60", "--local-directory", str(self.folder / name)]
        proc = _spawn(argv, self.folder / f"{name}.log", self.folder)
        self.workers.append(proc)
        return proc

    def client(self) -> Any:
        """A client of the cluster for the test to watch it with (not the default client, so
        the commands run in this process do not pick it up)."""
        import distributed

        return distributed.Client(self.address, timeout=STARTUP, set_as_default=False)

    def wait_for_workers(self, n: int) -> None:
        """Wait until ``n`` workers have joined (their logs in the error if they do not)."""
        with self.client() as client:
            try:
                client.wait_for_workers(n, timeout=STARTUP)
            except TimeoutError:
                pytest.fail(f"{n} dask workers did not join within {STARTUP:g} s\n{self.logs()}")

    def logs(self) -> str:
        """The end of every log of the cluster's programs."""
        return "\n".join(_tail(p) for p in sorted(self.folder.glob("*.log")))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """``dask scheduler`` and two ``dask worker`` programs on 127.0.0.1, stopped (process
    groups killed) however the tests end."""
    pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'bleu-harness[dask]')"
    )
    if not DASK.is_file():
        pytest.skip(f"no `dask` program beside {sys.executable}")
    folder = tmp_path_factory.mktemp("dask-cluster")
    address_file = folder / "scheduler.json"
    argv = [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    # a scheduler left behind by a test process killed hard stops on its own
    argv += ["--scheduler-file", str(address_file), "--idle-timeout", "1800s"]
    scheduler = _spawn(argv, folder / "scheduler.log", folder)
    running = Cluster(address="", folder=folder, scheduler=scheduler)
    try:
        deadline = time.monotonic() + STARTUP
        while not running.address:
            if scheduler.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"dask scheduler did not start\n{running.logs()}")
            with contextlib.suppress(OSError, ValueError, KeyError):
                running.address = json.loads(address_file.read_text())["address"]
            time.sleep(0.1)
        running.start_worker()
        running.start_worker()
        running.wait_for_workers(2)
        yield running
    finally:
        for proc in [*running.workers, scheduler]:
            _stop(proc)


def _cli(*argv: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``bleu-harness ARGV`` as a program (``python -m harness.cli``), its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=RUN,
        check=False,
    )


def _ok(proc: subprocess.CompletedProcess[str], cluster: Cluster | None = None) -> None:
    logs = cluster.logs() if cluster is not None else ""
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-3000:]}\n{logs}"


# ---------------------------------------------------------------------- comparing outputs
def _untimed(value: Any) -> Any:
    """``value`` (parsed JSON) without the fields that hold a duration."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _rows(path: Path) -> list[str]:
    """The lines of a ``results.jsonl``, each as written, or rewritten without its timing
    fields when it has any (both runs' lines alike)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        kept = _untimed(row)
        out.append(line if kept == row else json.dumps(kept, ensure_ascii=False))
    return out


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


#: Options every compare of the fixtures is run with: nothing read from a cache (every row is
#: computed by the run), no progress bars.
COMPARE = ("compare", "--no-cache", "--quiet")


@pytest.fixture(scope="module")
def serial_compare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of ``compare`` on every built-in fixture, serial."""
    out = tmp_path_factory.mktemp("serial") / "out"
    _ok(_cli(*COMPARE, "--backend", "serial", "--out", str(out), cwd=out.parent))
    return out


# ---------------------------------------------------------------------- the cluster
@pytest.mark.slow
# (the library rows compared include evaluate's: without its module, a worker and this process word
# its absence apart, and there is nothing of evaluate to compare)
def test_compare_on_the_cluster_writes_the_serial_rows(
    cluster: Cluster, serial_compare: Path, tmp_path: Path, evaluate_module: Path
) -> None:
    out = tmp_path / "out"
    proc = _cli(*COMPARE, "--scheduler", cluster.address, "--out", str(out), cwd=tmp_path)
    _ok(proc, cluster)
    assert _rows(out / "results.jsonl") == _rows(serial_compare / "results.jsonl")
    assert (out / "results.csv").read_bytes() == (serial_compare / "results.csv").read_bytes()
    # the command closed its client; the user's scheduler and workers are still there
    assert cluster.scheduler.poll() is None
    assert all(w.poll() is None for w in cluster.workers)
    with cluster.client() as client:
        assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.slow
def test_report_on_the_cluster_equals_the_serial_report(
    cluster: Cluster, tmp_path: Path, evaluate_module: Path
) -> None:
    fixtures = [a for f in REPORT_FIXTURES for a in ("--fixture", f)]
    common = ("report", "--no-cache", "--quiet", "--formats", "json", "md", *fixtures)
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    _ok(_cli(*common, "--out", str(serial), cwd=tmp_path))
    _ok(_cli(*common, "--out", str(dask), "--scheduler", cluster.address, cwd=tmp_path), cluster)
    for name in ("report.json",):
        a = json.loads((dask / name).read_text(encoding="utf-8"))
        b = json.loads((serial / name).read_text(encoding="utf-8"))
        assert _untimed(a) == _untimed(b), name
    assert (dask / "segments.parquet").read_bytes() == (serial / "segments.parquet").read_bytes()
    assert (dask / "report.md").read_bytes() == (serial / "report.md").read_bytes()


@pytest.mark.slow
def test_the_environment_variable_names_the_scheduler_and_one_client_serves_the_command(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``$DASK_SCHEDULER_ADDRESS`` with ``--backend dask``, in this process: one client for
    the whole command, no local cluster, and the serial rows."""
    import distributed

    clients: list[Any] = []

    class CountedClient(distributed.Client):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            clients.append(args[0] if args else kwargs.get("address"))
            super().__init__(*args, **kwargs)

    def no_local_cluster(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a LocalCluster was started")

    monkeypatch.setattr(distributed, "Client", CountedClient)
    monkeypatch.setattr(distributed, "LocalCluster", no_local_cluster)
    monkeypatch.setenv(session_cluster.SCHEDULER_ENV, cluster.address)
    argv = [*COMPARE, "--fixture", "silence_pitfall", "--level", "corpus", "segment", *FEW]
    assert app.main([*argv, "--backend", "dask", "--out", str(tmp_path / "dask")]) == 0
    assert clients == [cluster.address]
    monkeypatch.delenv(session_cluster.SCHEDULER_ENV)
    assert app.main([*argv, "--out", str(tmp_path / "serial")]) == 0
    assert _rows(tmp_path / "dask" / "results.jsonl") == _rows(
        tmp_path / "serial" / "results.jsonl"
    )


@pytest.mark.slow
def test_backend_dask_starts_one_local_cluster_for_the_whole_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    started: list[Any] = []
    real = distributed.LocalCluster

    def counted(*args: Any, **kwargs: Any) -> Any:
        started.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(distributed, "LocalCluster", counted)
    monkeypatch.delenv(session_cluster.SCHEDULER_ENV, raising=False)
    argv = [*COMPARE, "--fixture", "silence_pitfall", "--fixture", "edge_cjk_zh", *FEW]
    assert app.main([*argv, "--backend", "dask", "--out", str(tmp_path / "dask")]) == 0
    assert len(started) == 1
    with pytest.raises(ValueError):  # the command's client is closed with its cluster
        distributed.Client.current()


@pytest.mark.slow
def test_a_worker_killed_mid_run_finishes_or_fails_in_one_line(
    cluster: Cluster, serial_compare: Path, tmp_path: Path, evaluate_module: Path
) -> None:
    """Kill a worker while it runs a task of a compare. Either dask reschedules its tasks on
    the other worker and the run writes the serial rows, or the run ends with exit 2, one
    ``bleu-harness: error:`` line and the previous output folder untouched."""
    out = tmp_path / "out"
    shutil.copytree(serial_compare, out)  # an earlier output, which --force may replace
    (out / "results.jsonl").write_text("earlier\n", encoding="utf-8")  # tell it from the new
    before = _folder(out)
    stderr_log = tmp_path / "stderr.txt"
    argv = [sys.executable, "-m", "harness.cli", *COMPARE, "--force", "--out", str(out)]
    argv += ["--scheduler", cluster.address]
    killed = None
    try:
        with cluster.client() as watch, stderr_log.open("wb") as err:
            run = subprocess.Popen(
                argv, cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=err
            )
            deadline = time.monotonic() + RUN
            while killed is None and run.poll() is None and time.monotonic() < deadline:
                busy = [w for w, keys in watch.processing().items() if keys]
                if busy:
                    pid = watch.run(os.getpid, workers=busy[:1])[busy[0]]
                    killed = next(w for w in cluster.workers if w.pid == pid)
                    _stop(killed, signal.SIGKILL)
                time.sleep(0.02)
            code = run.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if killed is not None:  # the next tests (and a rerun) find two workers again
            cluster.workers.remove(killed)
            cluster.start_worker()
            cluster.wait_for_workers(2)
    stderr = stderr_log.read_text(encoding="utf-8", errors="replace")
    assert killed is not None, f"no task was seen running on a worker (exit {code})\n{stderr}"
    assert "Traceback" not in stderr, stderr
    if code == 0:
        assert _rows(out / "results.jsonl") == _rows(serial_compare / "results.jsonl")
    else:
        assert code == 2, f"exit {code}\n{stderr}"
        errors = [line for line in stderr.splitlines() if line.startswith("bleu-harness:")]
        assert len(errors) == 1 and errors[0].startswith("bleu-harness: error: "), stderr
        assert "internal error" not in errors[0], stderr
        assert _folder(out) == before


# ---------------------------------------------------------------------- without a cluster
def _free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_a_scheduler_that_does_not_answer_ends_the_command_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(session_cluster, "SCHEDULER_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_free_port()}"
    out = tmp_path / "out"
    argv = ["compare", "--fixture", "silence_pitfall", "--out", str(out), "--quiet"]
    assert app.main([*argv, "--scheduler", address]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(
        f"bleu-harness: error: dask backend is unavailable: no dask scheduler answered at {address}"
    )
    assert not out.exists()  # the scheduler is reached before anything is written
    monkeypatch.setenv(session_cluster.SCHEDULER_ENV, address)
    assert app.main([*argv, "--backend", "dask"]) == 2
    assert "no dask scheduler answered at" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["--scheduler", "tcp://127.0.0.1:8786", "--backend", "serial"],
        ["--backend", "processes", "--scheduler", "tcp://127.0.0.1:8786"],
        ["--scheduler", " "],
    ],
)
def test_scheduler_with_another_backend_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    full = ["compare", "--fixture", "silence_pitfall", *argv]
    with pytest.raises(SystemExit) as info:
        app.parser_for(full).parse_args(full)
    assert info.value.code == 2
    assert "--scheduler" in capsys.readouterr().err


def test_every_command_with_a_backend_takes_a_scheduler() -> None:
    parser = app.build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    with_backend = {
        name for name, sub in commands.choices.items() if "--backend" in sub._option_string_actions
    }
    assert {"compare", "report", "score", "identify"} <= with_backend
    for name in with_backend:
        assert "--scheduler" in commands.choices[name]._option_string_actions, name


@pytest.mark.parametrize(
    "flags",
    [["--scheduler", "tcp://h:8786"], ["--backend", "dask", "--scheduler", "tcp://h:8786"]],
)
@pytest.mark.parametrize("command", ["compare", "report"])
def test_scheduler_implies_the_dask_backend(command: str, flags: list[str]) -> None:
    args = app.parser_for([command]).parse_args([command, *flags])
    assert (args.backend, args.scheduler) == ("dask", "tcp://h:8786")


def test_cluster_failures_are_reported_as_harness_errors() -> None:
    pytest.importorskip("distributed")
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    lost = session_cluster._cluster_failure(
        KilledWorker("task-1", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)
    )
    assert isinstance(lost, AdapterUnavailable) and "KilledWorker" in str(lost)
    cancelled = session_cluster._cluster_failure(
        FutureCancelledError("task-1", "lost dependencies")
    )
    assert isinstance(cancelled, AdapterUnavailable) and "cancelled" in str(cancelled)
    missing = session_cluster._cluster_failure(
        ModuleNotFoundError("No module", name="harness.bleu")
    )
    assert isinstance(missing, AdapterUnavailable) and "install bleu-harness" in str(missing)
    assert session_cluster._cluster_failure(ModuleNotFoundError("x", name="sacrebleu")) is None
    assert session_cluster._cluster_failure(ValueError("a task's own error")) is None


class _FakeClient:
    """A client whose first ``fail`` gathers are cancelled, as when a worker dies holding the
    scattered shards; it runs the tasks in this process otherwise."""

    status = "running"

    def __init__(self, fail: int) -> None:
        self.fail = fail
        self.scatters = 0
        self.closed = False

    def scatter(self, data: list[Any], hash: bool) -> list[Any]:
        self.scatters += 1
        return list(data)

    def submit(self, fn: Any, *args: Any) -> tuple[Any, ...]:
        return (fn, *args)

    def gather(self, futures: list[tuple[Any, ...]]) -> list[Any]:
        from distributed.client import FutureCancelledError

        if self.fail:
            self.fail -= 1
            raise FutureCancelledError("_shard_task-1", "lost dependencies")
        return [fn(*args) for fn, *args in futures]

    def cancel(self, futures: list[Any]) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_shards_lost_with_a_worker_are_sent_once_more() -> None:
    pytest.importorskip("distributed")
    from concurrent.futures import CancelledError

    from harness.bleu import engine
    from harness.bleu.profiles import PROFILES
    from harness.data.fixtures import load_fixture

    corpus = load_fixture("silence_pitfall").corpus("A")
    config = PROFILES["sacrebleu"]
    shards = [parallel._shard([corpus], lo, hi) for lo, hi in parallel.shard_bounds(8, 3)]
    client = _FakeClient(fail=parallel.DASK_ATTEMPTS - 1)
    out = parallel.join_statistics([r[0] for r in parallel._dask_run(client, shards, config, 4)])
    assert client.scatters == parallel.DASK_ATTEMPTS
    expected = engine.compute_statistics(corpus, config, max_order=4)
    assert out.matches.tolist() == expected.matches.tolist()
    assert out.hyp_len.tolist() == expected.hyp_len.tolist()
    with pytest.raises(CancelledError):
        parallel._dask_run(_FakeClient(fail=parallel.DASK_ATTEMPTS), shards, config, 4)


def test_a_given_client_is_used_and_left_open() -> None:
    """The contract the runner relies on: ``dask_session(client)`` yields that client and
    does not close it."""
    pytest.importorskip("distributed")
    client = _FakeClient(fail=0)
    with parallel.dask_session(client) as got:
        assert got is client
    assert not client.closed
