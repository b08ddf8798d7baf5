"""Statistics of large corpora and of many systems, computed on several cores or a cluster.

Statistics add: the statistics of a corpus are those of its contiguous shards joined in order
(:meth:`Statistics.__add__`), so a corpus can be cut into shards, each shard tokenized and
counted anywhere, and the results joined — the same arrays, to the last bit, as the serial
computation (nothing is summed in floating point; every array is integer and concatenated in
shard order).

* :func:`compute_statistics_parallel` — one corpus, local worker processes
  (:class:`concurrent.futures.ProcessPoolExecutor`); ``jobs=1`` or a corpus smaller than
  :data:`SERIAL_THRESHOLD` segments stays serial.
* :func:`compute_statistics_dask` — one corpus on a ``dask.distributed`` cluster (optional
  extra ``bleu-harness[dask]``; imported only when used).
* :func:`map_statistics` — many corpora (e.g. all WMT21 systems) with one backend
  (``serial``, ``processes`` or ``dask``), statistics returned in input order.
* :func:`compute_function` — the one-corpus function of a backend, for a
  :class:`~harness.session.cache.StatisticsCache` (what a :class:`~harness.session.Session`
  opens from ``jobs``/``backend``).
* :func:`dask_session` (from :mod:`harness.session.cluster`) — the dask client such work
  runs on: the one given, the current one, a named scheduler's, or a temporary local cluster.

Workers receive plain data (tuples of strings and the frozen config) and run the top-level
:func:`shard_statistics`, so every start method (fork, forkserver, spawn) and any dask worker
that can import ``harness`` works. A script that uses the ``processes`` backend must start
its work under ``if __name__ == "__main__":`` (forkserver and spawn import the main module in
each worker); the ``bleu-harness`` command and notebooks need nothing.
"""

from __future__ import annotations

import contextlib
import functools
import math
import multiprocessing
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, InvalidStateError, ProcessPoolExecutor
from concurrent.futures import process as futures_process
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness import interrupts
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics, join_ref_matches
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError, LayoutError
from harness.session import resources
from harness.session.cluster import dask_session

__all__ = [
    "BACKENDS",
    "SERIAL",
    "SERIAL_THRESHOLD",
    "ComputeFn",
    "Workers",
    "auto_jobs",
    "compute_function",
    "compute_statistics_dask",
    "compute_statistics_parallel",
    "dask_session",
    "join_statistics",
    "map_statistics",
    "portable_call",
    "process_pool",
    "resolve_jobs",
    "shard_bounds",
    "shard_statistics",
]

#: Corpora with fewer segments than this are computed serially by
#: :func:`compute_statistics_parallel` (and by :func:`map_statistics` with ``processes``):
#: below it, starting workers and shipping shards cost more than a second core saves with the
#: vectorised engine (the measurements: benchmarks/README.md; docs/performance.md, "Parallel
#: work and Dask").
SERIAL_THRESHOLD = 50_000

#: A run given no ``--jobs`` takes workers once its real libraries have this many segments to
#: score in all (each corpus's segments once per library run on it): below it, a worker's
#: start-up (its fork and its library's import) costs what running the libraries beside the
#: engine saves (benchmarks/README.md, "Workers by default").
AUTO_LIBRARY_SEGMENTS = 2_000

BACKENDS: tuple[str, ...] = ("serial", "processes", "dask")
#: With ``jobs`` processes and no pool given, this process counts ``MAIN_SHARE / jobs`` of
#: the segments (the workers share the rest): a worker starts (forkserver) and takes its shard
#: through a pipe while this process is already counting (the shares measured:
#: benchmarks/README.md, "Moved from code comments").
MAIN_SHARE = 1.3

#: Process start method: ``forkserver`` where it exists (no fork of a threaded parent, cheap
#: worker start-up once the server runs), else the platform default (``spawn``).
START_METHOD: str | None = (
    "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
)

_PRELOAD = ("harness.bleu.engine", "harness.bleu.tokenizers")

#: What a worker receives: the hypotheses of one or more systems for a contiguous range of
#: segments, with that range's references and ids (sent once for all the systems).
Shard = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...], tuple[str, ...]]

#: ``compute(corpus, config, max_order=...) -> Statistics``: how one corpus is counted.
ComputeFn = Callable[..., Statistics]


# ====================================================================== building blocks
def resolve_jobs(jobs: int | None) -> int:
    """The worker processes ``jobs`` asks for, at most what the machine can run
    (:func:`harness.session.resources.worker_budget`: its CPUs and memory; a cut is warned
    once); ``0`` or ``None`` means one per usable CPU."""
    if jobs is None or jobs == 0:
        return resources.usable_cpus()
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
        raise ConfigError(f"jobs must be a positive integer (0: all CPUs), got {jobs!r}")
    return resources.worker_budget(jobs).workers


def auto_jobs(segments: int, library_segments: int, *, counts_ahead: bool = False) -> int:
    """The worker processes a run takes when not told how many: one per usable CPU when its
    libraries have at least :data:`AUTO_LIBRARY_SEGMENTS` segments to score
    (``library_segments``), when its counting reaches :data:`SERIAL_THRESHOLD` segments
    (``segments``, every corpus once) or when it counts statistics ahead in a worker while it
    works on others (``counts_ahead``: :class:`harness.session.ahead.CountAhead`); else 1, no
    workers. The numbers do not depend on it."""
    if library_segments >= AUTO_LIBRARY_SEGMENTS or segments >= SERIAL_THRESHOLD or counts_ahead:
        return resources.usable_cpus()
    return 1


def shard_bounds(total: int, chunk_size: int) -> list[tuple[int, int]]:
    """Contiguous ``(lo, hi)`` ranges of at most ``chunk_size`` segments covering ``0..total``."""
    if chunk_size < 1:
        raise ConfigError(f"chunk_size must be >= 1, got {chunk_size}")
    return [(lo, min(lo + chunk_size, total)) for lo in range(0, total, chunk_size)]


def _shard(corpora: Sequence[Corpus], lo: int, hi: int) -> Shard:
    """Plain data of segments ``lo..hi`` of corpora that share references and ids."""
    first = corpora[0]
    return (
        tuple(c.hypotheses[lo:hi] for c in corpora),
        first.references[lo:hi],
        first.ids[lo:hi],
    )


def shard_statistics(shard: Shard, config: BleuConfig, max_order: int) -> list[Statistics]:
    """Worker function: the statistics of each system's hypotheses in one shard.

    Top-level and given plain data, so it pickles by reference under every start method and
    runs on dask workers. The shard is of a corpus already cut as ``config`` counts it
    (:func:`harness.bleu.engine.counted_corpus`); entry ``k`` equals the statistics of that
    corpus's segments ``lo:hi``; the systems of a shard run in one process, one after
    the other, so the engine's reference-side cache is shared between them.
    """
    systems, refs, ids = shard
    return [
        engine.compute_statistics(
            Corpus(hypotheses=hyps, references=refs, ids=ids, check_text=False),
            config,
            max_order=max_order,
            counted=True,  # shards of a corpus already cut as a whole
        )
        for hyps in systems
    ]


def _rebuild_exception(
    cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]
) -> Any:
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class _Portable(Exception):
    """Carries a harness error out of a worker.

    Harness errors take other constructor arguments than their message (``AdapterUnavailable(
    implementation, reason, hint)``), so pickle cannot rebuild them by calling the class with
    ``args``; this wrapper unpickles as the original exception, attributes included.
    """

    def __init__(self, exc: HarnessError) -> None:
        super().__init__(str(exc))
        self.exc = exc

    def __reduce__(self) -> Any:
        return (_rebuild_exception, (type(self.exc), self.exc.args, dict(vars(self.exc))))


def portable_call(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` for a worker task: a harness error it raises reaches the caller as
    itself (:class:`_Portable`)."""
    try:
        return func(*args)
    except HarnessError as exc:
        raise _Portable(exc) from None


def _shard_task(shard: Shard, config: BleuConfig, max_order: int) -> list[Statistics]:
    """What the pools and dask run: :func:`shard_statistics`, errors made portable."""
    return portable_call(shard_statistics, shard, config, max_order)


def join_statistics(parts: Sequence[Statistics]) -> Statistics:
    """``parts[0] + parts[1] + …`` in one concatenation (same result as the sum, fewer copies)."""
    if not parts:
        raise LayoutError("nothing to join", what="join_statistics", expected=">= 1", got=0)
    if len(parts) == 1:
        return parts[0]
    tok = parts[0].tokenization
    for p in parts[1:]:
        if p.tokenization != tok:
            raise LayoutError(
                "cannot add statistics of different tokenizations",
                what="Statistics",
                expected=tok,
                got=p.tokenization,
            )
    m = min(p.max_order for p in parts)
    return Statistics(
        hyp_len=np.concatenate([p.hyp_len for p in parts]),
        ref_lens=tuple(r for p in parts for r in p.ref_lens),
        matches=np.concatenate([p.matches[:, :m] for p in parts]),
        ids=tuple(i for p in parts for i in p.ids),
        tokenization=tok,
        ref_matches=join_ref_matches(parts, m),
    )


def _order(config: BleuConfig, max_order: int | None) -> int:
    return max_order or engine.orders_needed(config)


def _serial(corpus: Corpus, config: BleuConfig, order: int) -> Statistics:
    """The statistics of a corpus already cut as ``config`` counts it."""
    return engine.compute_statistics(corpus, config, max_order=order, counted=True)


class _ManagerThread(futures_process._ExecutorManagerThread):
    """The pool's manager thread, tolerant of a future cancelled just as a worker died.

    When a worker dies (a Ctrl-C sent to the whole job reaches one still starting), the
    manager fails every pending future with BrokenProcessPool; a future the caller cancelled
    meanwhile makes CPython before 3.12 raise InvalidStateError in that thread, printed as a
    traceback on stderr (CPython gh-107219). Those futures are skipped here, as newer CPython
    does.
    """

    def terminate_broken(self, cause: Any) -> None:
        broken = futures_process.BrokenProcessPool(
            "A process in the process pool was terminated abruptly while the future was "
            "running or pending."
        )
        for item in list(self.pending_work_items.values()):
            with contextlib.suppress(InvalidStateError):  # cancelled by the caller
                item.future.set_exception(broken)
        self.pending_work_items.clear()
        super().terminate_broken(cause)


# Pools start their manager threads one at a time while the class is swapped in (below).
_MANAGER_CLASS_SWAP = threading.Lock()


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose ``with`` block, left by an exception (an error, Ctrl-C, SIGTERM),
    kills its workers at once instead of waiting for their running tasks: nothing they
    compute would be used, and a worker left running would hold the caller's pipes open."""

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            if issubclass(exc_type, KeyboardInterrupt):
                interrupts.acknowledge()
            self.terminate()
            return
        try:
            self.shutdown(wait=True)
        except BaseException as stopped:  # interrupted while waiting for the last tasks
            if isinstance(stopped, KeyboardInterrupt):
                interrupts.acknowledge()
            self.terminate()
            raise

    def _start_executor_manager_thread(self) -> None:
        # the base class names its manager thread's class as a module global: ours, for the
        # duration of the call
        name = "_ExecutorManagerThread"
        with _MANAGER_CLASS_SWAP:
            saved = getattr(futures_process, name)
            setattr(futures_process, name, _ManagerThread)
            try:
                super()._start_executor_manager_thread()
            finally:
                setattr(futures_process, name, saved)

    def _spawn_process(self) -> None:
        # a worker whose start is cut in two by a signal would be known to no one (not this
        # pool, not multiprocessing) and outlive the run
        with interrupts.deferred(), interrupts.hangup_blocked():
            super()._spawn_process()  # type: ignore[misc]

    def terminate(self) -> None:
        """Cancel what has not started and kill every worker (waiting for them to die)."""
        workers = list((getattr(self, "_processes", None) or {}).values())
        queue = getattr(self, "_call_queue", None)
        results = getattr(self, "_result_queue", None)
        # shutdown() forgets the manager thread: take it first
        manager = getattr(self, "_executor_manager_thread", None)
        if queue is not None:
            # a task still being fed to a killed worker would block the feeder thread, and
            # the interpreter's exit joins it: drop what was not sent instead
            with contextlib.suppress(Exception):
                queue.cancel_join_thread()
        self.shutdown(wait=False, cancel_futures=True)
        interrupts.kill(workers)
        if results is not None:
            # a worker killed while it sent a result leaves half a message in the pipe, and
            # the manager thread waits for the rest; with the workers dead this process holds
            # the last writing end: closing it ends that read (the pool reports itself broken)
            # instead of the interpreter's exit waiting forever for the thread
            with contextlib.suppress(Exception):
                results._writer.close()
        if manager is not None and manager.is_alive():
            # let it finish closing its pipes now: the interpreter's exit wakes every pool's
            # manager through them, and one closing meanwhile is an error printed at exit (a
            # manager whose start a signal cut short never ran, and cannot be joined)
            manager.join(5)


def _init_worker(memory: int | None) -> None:
    """A pool worker's start: its data memory bounded, and Ctrl-C left to the parent (a
    terminal sends it to every process of the job; the parent kills its workers itself, so a
    worker's own KeyboardInterrupt would only print a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resources.bound_worker_memory(memory)


def process_pool(jobs: int | None, tasks: int | None = None) -> WorkerPool:
    """A pool of ``jobs`` worker processes (:data:`START_METHOD`), no more than the machine
    can run or than ``tasks`` (:func:`harness.session.resources.worker_budget`), each worker's
    data memory bounded by its share of what is available; reuse it across calls
    (``executor=``) to pay the start-up once per run.

    With ``forkserver`` the server preloads the engine, so each worker starts as a fork of a
    process that has already imported numpy and the tokenizers.
    """
    ctx: Any = multiprocessing.get_context(START_METHOD) if START_METHOD else None
    if START_METHOD == "forkserver":
        ctx.set_forkserver_preload(["__main__", *_PRELOAD])
    budget = resources.worker_budget(resolve_jobs(jobs), tasks)
    with interrupts.hangup_blocked():
        interrupts.start_resource_tracker()  # the pool's queues register semaphores
    return WorkerPool(
        max_workers=budget.workers,
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(budget.memory_per_worker,),
    )


# ====================================================================== planning
def _plan(
    corpora: Sequence[Corpus], chunk_size: int | None, workers: int
) -> tuple[list[list[int]], list[tuple[int, int, int]], list[Shard]]:
    """Group corpora that share references and ids; cut each group into segment ranges.

    Returns the groups (corpus indices), one ``(group, lo, hi)`` per task in order, and the
    tasks' shards. Default range: an even share of the segments per worker, halved, so two
    workers get four tasks per group of systems (WMT21: 4 tasks of 250 segments, 20 systems).
    """
    by_refs: dict[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]], int] = {}
    groups: list[list[int]] = []
    for i, c in enumerate(corpora):
        key = (c.ids, c.references)
        if key not in by_refs:
            by_refs[key] = len(groups)
            groups.append([])
        groups[by_refs[key]].append(i)
    tasks: list[tuple[int, int, int]] = []
    shards: list[Shard] = []
    for g, members in enumerate(groups):
        n = len(corpora[members[0]])
        size = chunk_size or max(1, math.ceil(n / (2 * workers)))
        for lo, hi in shard_bounds(n, size):
            tasks.append((g, lo, hi))
            shards.append(_shard([corpora[i] for i in members], lo, hi))
    return groups, tasks, shards


def _regroup(
    n_corpora: int,
    groups: list[list[int]],
    tasks: list[tuple[int, int, int]],
    results: Sequence[Sequence[Statistics]],
) -> list[Statistics]:
    """Join each corpus's shard statistics in segment order."""
    parts: list[list[Statistics]] = [[] for _ in range(n_corpora)]
    for (g, _lo, _hi), per_system in zip(tasks, results, strict=True):
        for i, stats in zip(groups[g], per_system, strict=True):
            parts[i].append(stats)
    return [join_statistics(p) for p in parts]


def _submit_all(
    executor: Executor, shards: list[Shard], config: BleuConfig, order: int
) -> list[Any]:
    futures = [executor.submit(_shard_task, s, config, order) for s in shards]
    try:
        return [f.result() for f in futures]
    except _Portable as p:  # only when the executor did not pickle (e.g. threads)
        raise p.exc from None
    finally:
        for f in futures:
            f.cancel()


# ====================================================================== one corpus, processes
def compute_statistics_parallel(
    corpus: Corpus,
    config: BleuConfig,
    *,
    jobs: int | None,
    chunk_size: int | None = None,
    max_order: int | None = None,
    executor: Executor | None = None,
    min_segments: int | None = None,
) -> Statistics:
    """:func:`harness.bleu.engine.compute_statistics` on ``jobs`` processes: this one and
    ``jobs - 1`` workers.

    The corpus is cut into contiguous shards of ``chunk_size`` segments (default: one per
    job), this process counts the first while workers count the others, and the statistics
    are joined in shard order:
    the result equals the serial one exactly. ``jobs=1``, or fewer than ``min_segments``
    segments (default :data:`SERIAL_THRESHOLD`), computes serially in this process.
    ``executor``: an existing pool to use (not shut down here); otherwise a pool is started
    and stopped for this call.
    """
    order = _order(config, max_order)
    corpus = engine.counted_corpus(corpus, config)  # a truncation sees the whole corpus
    n_jobs = resolve_jobs(jobs)
    n = len(corpus)
    threshold = SERIAL_THRESHOLD if min_segments is None else min_segments
    if n_jobs == 1 or n < max(threshold, 2) or engine.counts_whole_corpus(config):
        return _serial(corpus, config, order)
    if chunk_size is None and executor is None:
        # this process starts counting at once, the workers after their start-up and the
        # shipping of their shards: it takes a larger share (MAIN_SHARE of an even split more)
        main_hi = min(n - 1, math.ceil(n / n_jobs * MAIN_SHARE))
        rest = shard_bounds(n - main_hi, math.ceil((n - main_hi) / (n_jobs - 1)))
        bounds = [(0, main_hi), *((lo + main_hi, hi + main_hi) for lo, hi in rest)]
    else:
        bounds = shard_bounds(n, chunk_size or math.ceil(n / n_jobs))
    shards = [_shard([corpus], lo, hi) for lo, hi in bounds]
    if executor is not None:
        results = _submit_all(executor, shards, config, order)
    else:
        # this process counts the first shard while jobs - 1 workers start and count the rest
        # (rather than two workers and an idle parent, which was slower)
        with process_pool(min(n_jobs - 1, len(shards) - 1)) as pool:
            futures = [pool.submit(_shard_task, s, config, order) for s in shards[1:]]
            try:
                first = shard_statistics(shards[0], config, order)
                results = [first, *(f.result() for f in futures)]
            finally:
                for f in futures:
                    f.cancel()
    return join_statistics([r[0] for r in results])


# ====================================================================== dask
def _dask_threads(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


#: How many times :func:`_dask_run` sends a batch of shards: a worker that dies takes the shards
#: scattered to it, which dask cannot recompute (it was given them), so the batch is scattered
#: again to the workers left, once.
DASK_ATTEMPTS = 2


def _dask_run(client: Any, shards: list[Shard], config: BleuConfig, order: int) -> list[Any]:
    """Scatter the shards, run :func:`shard_statistics` on each, gather in shard order; again
    (up to :data:`DASK_ATTEMPTS` times in all) when tasks are cancelled because a worker died
    holding their shards."""
    from concurrent.futures import CancelledError

    attempt = 1
    while True:
        scattered = client.scatter(shards, hash=False)  # fresh keys: equal shards of two calls
        # (one per tokenization) must not share data that the first call releases
        futures = [client.submit(_shard_task, s, config, order) for s in scattered]
        try:
            return client.gather(futures)
        except _Portable as p:  # a threads-only cluster does not pickle
            raise p.exc from None
        except CancelledError:
            if attempt >= DASK_ATTEMPTS or client.status != "running":
                raise
        finally:
            client.cancel(futures)
        attempt += 1


def compute_statistics_dask(
    corpus: Corpus,
    config: BleuConfig,
    *,
    client: Any = None,
    n_shards: int | None = None,
    max_order: int | None = None,
) -> Statistics:
    """:func:`harness.bleu.engine.compute_statistics` on a ``dask.distributed`` cluster.

    The corpus is cut into ``n_shards`` contiguous shards (default: one per worker thread),
    scattered to the workers, counted there with :func:`shard_statistics`, gathered and joined
    in shard order — the same arrays as the serial computation. ``client``: a
    ``distributed.Client``; default :func:`dask_session`'s (the current client, else one of
    the scheduler ``$DASK_SCHEDULER_ADDRESS`` names, else a temporary ``LocalCluster``
    started and closed in this call). Raises
    :class:`~harness.errors.AdapterUnavailable` when dask is not installed.
    """
    order = _order(config, max_order)
    corpus = engine.counted_corpus(corpus, config)  # a truncation sees the whole corpus
    if engine.counts_whole_corpus(config):  # ids numbered over the whole corpus: no shards
        return _serial(corpus, config, order)
    with dask_session(client) as c:
        k = n_shards or _dask_threads(c)
        if k < 1:
            raise ConfigError(f"n_shards must be >= 1, got {k}")
        bounds = shard_bounds(len(corpus), math.ceil(len(corpus) / k))
        shards = [_shard([corpus], lo, hi) for lo, hi in bounds]
        return join_statistics([r[0] for r in _dask_run(c, shards, config, order)])


# ====================================================================== many corpora
@dataclass(frozen=True)
class Workers:
    """Where statistics are counted: ``backend`` (one of :data:`BACKENDS`), ``jobs`` local
    worker processes for ``processes`` (``0`` or ``None``: one per usable CPU) and the Dask
    ``client`` for ``dask`` (``None``: the current one, or a local cluster)."""

    backend: str = "serial"
    jobs: int | None = 1
    client: Any = None  # a dask.distributed.Client; dask is an optional dependency


SERIAL = Workers()
"""Counting in this process, with no workers."""


def map_statistics(
    corpora: Sequence[Corpus],
    config: BleuConfig,
    *,
    workers: Workers = SERIAL,
    max_order: int | None = None,
    chunk_size: int | None = None,
    executor: Executor | None = None,
    min_segments: int | None = None,
) -> list[Statistics]:
    """The statistics of every corpus under ``config``, in input order.

    ``workers`` (:class:`Workers`): ``serial`` (this process), ``processes`` (``jobs`` local
    workers, or ``executor``) or ``dask`` (``client``, as in :func:`compute_statistics_dask`). Systems
    that share references and ids (WMT: every system of a language pair) travel together: a
    task is a range of ``chunk_size`` segments with its references once and every system's
    hypotheses, so each worker tokenizes those references once. Each corpus's shards are
    joined in order, so every result equals the serial one exactly. The ``processes``
    backend stays serial below ``min_segments`` segments in all (default
    :data:`SERIAL_THRESHOLD`).
    """
    backend, jobs = workers.backend, workers.jobs
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", valid=BACKENDS)
    order = _order(config, max_order)
    corpora = [engine.counted_corpus(c, config) for c in corpora]  # truncations see all of c
    if not corpora:
        return []
    total = sum(len(c) for c in corpora)
    threshold = SERIAL_THRESHOLD if min_segments is None else min_segments
    if (
        backend == "serial"
        or engine.counts_whole_corpus(config)  # ids numbered over each whole corpus: no shards
        or (backend == "processes" and (resolve_jobs(jobs) == 1 or total < max(threshold, 2)))
    ):
        return [_serial(c, config, order) for c in corpora]
    if backend == "dask":
        with dask_session(workers.client) as c:
            groups, tasks, shards = _plan(corpora, chunk_size, _dask_threads(c))
            return _regroup(len(corpora), groups, tasks, _dask_run(c, shards, config, order))
    n_jobs = resolve_jobs(jobs)
    groups, tasks, shards = _plan(corpora, chunk_size, n_jobs)
    if executor is not None:
        results = _submit_all(executor, shards, config, order)
    else:
        with process_pool(min(n_jobs, len(shards))) as pool:
            results = _submit_all(pool, shards, config, order)
    return _regroup(len(corpora), groups, tasks, results)


# ====================================================================== one corpus, any backend
def compute_function(
    *, backend: str = "serial", jobs: int | None = 1, client: Any = None
) -> ComputeFn | None:
    """How a cache computes one corpus it misses, for ``backend``; ``None``: in this process.

    ``dask``: :func:`compute_statistics_dask` on ``client``; ``processes`` with more than one
    job: :func:`compute_statistics_parallel` (serial below :data:`SERIAL_THRESHOLD`
    segments); ``serial``, or one job: ``None`` (the cache's default, the engine itself).
    """
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}", valid=BACKENDS)
    if backend == "dask":
        return functools.partial(compute_statistics_dask, client=client)
    if backend == "processes" and resolve_jobs(jobs) != 1:
        return functools.partial(compute_statistics_parallel, jobs=jobs)
    return None
