"""Dask clients for the harness: a client of a named scheduler, the current client, or a
temporary local cluster; one client for a whole command; the cluster's own failures as harness
errors.

* :func:`dask_session` — the client a computation runs on (what
  :mod:`harness.session.parallel` and the runner use): given, named (``address``), current,
  named by ``$DASK_SCHEDULER_ADDRESS``, or a temporary ``LocalCluster``;
* :func:`command_cluster` — the one client of a command-line run (``--backend dask``,
  ``--scheduler``), the default client while the command runs, so every :func:`dask_session`
  inside it reuses it; a worker or scheduler lost mid-run is reported as an
  :class:`~harness.errors.AdapterUnavailable`.

A connected client is closed when its session ends; the scheduler and its workers keep
running. ``dask.distributed`` is an optional extra (``bleu-harness[dask]``), imported only
when used.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

from harness import interrupts
from harness.errors import AdapterUnavailable, ConfigError, HarnessError
from harness.session import resources

__all__ = [
    "SCHEDULER_ENV",
    "SCHEDULER_TIMEOUT",
    "command_cluster",
    "dask_session",
    "scheduler_address",
]

_DASK_HINT = "pip install 'bleu-harness[dask]'"

#: Seconds a command waits for a named dask scheduler to answer, and then for its first worker.
SCHEDULER_TIMEOUT = 10.0

#: The environment variable dask itself reads for the scheduler a default client connects to.
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise AdapterUnavailable(
            "dask backend",
            f"cannot import {exc.name or 'distributed'} (dask.distributed is an optional extra)",
            hint=_DASK_HINT,
        ) from exc
    return distributed


def scheduler_address(address: str | None = None) -> str | None:
    """The dask scheduler to connect to: ``address``, else ``$DASK_SCHEDULER_ADDRESS``, else
    dask's ``scheduler-address`` setting; ``None`` when none is named."""
    if address:
        return address
    if os.environ.get(SCHEDULER_ENV):
        return os.environ[SCHEDULER_ENV]
    _import_distributed()
    import dask.config

    named = dask.config.get("scheduler-address", None)
    return str(named) if named else None


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address`` that has at least one worker.

    Raises :class:`~harness.errors.ConfigError` for a malformed address and
    :class:`~harness.errors.AdapterUnavailable` when the scheduler does not answer within
    ``timeout`` seconds or no worker joins it within another ``timeout`` (its tasks would
    otherwise wait for ever).
    """
    hint = (
        f"start `dask scheduler` there and `dask worker {address}` on each machine, or "
        f"correct --scheduler / ${SCHEDULER_ENV}"
    )
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=True)
    except ValueError as exc:
        raise ConfigError(
            f"{address!r} is not a dask scheduler address ({exc}); expected e.g. tcp://host:8786"
        ) from None
    except (OSError, TimeoutError):  # nothing listens there, or it did not answer in time
        raise AdapterUnavailable(
            "dask backend",
            f"no dask scheduler answered at {address} within {timeout:g} s",
            hint=hint,
        ) from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        client.close()
        raise AdapterUnavailable(
            "dask backend",
            f"the dask scheduler at {address} has no worker after {timeout:g} s",
            hint=hint,
        ) from None
    try:
        # exec, a builtin, so that the check itself unpickles where the harness is missing (a
        # worker that cannot unpickle a task dies, and its tasks kill the next worker)
        client.run(exec, "import harness.session.parallel")
    except ImportError as exc:
        client.close()
        raise _cluster_failure(exc) or exc from None
    return client


class _DaskSession:
    """The given client, a client of a named scheduler, the current default client, or a
    temporary local cluster."""

    def __init__(
        self, client: Any, address: str | None = None, timeout: float | None = None
    ) -> None:
        self.client = client
        self.address = address
        self.timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
        self._own: list[Any] = []

    def __enter__(self) -> Any:
        distributed = _import_distributed()
        if self.client is not None:
            return self.client
        if self.address is None:
            try:
                self.client = distributed.Client.current()
                return self.client
            except ValueError:  # no client yet
                self.address = scheduler_address()
        if self.address is not None:
            # closing a client of a scheduler never stops that scheduler or its workers
            self.client = _connect(distributed, self.address, self.timeout)
            self._own = [self.client]
        else:
            # a stop while the workers start would kill their nannies with a child still
            # unpickling its start-up state (a traceback from each on stderr): the stop waits
            # until the cluster is up, then closes it whole. Its processes (and the threads
            # that start them again) begin with SIGHUP blocked, as a pool's do
            # (interrupts.hangup_blocked)
            try:
                with interrupts.deferred(), interrupts.hangup_blocked():
                    interrupts.start_resource_tracker()
                    cluster = distributed.LocalCluster(
                        n_workers=resources.worker_budget(resources.usable_cpus()).workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        # the worker processes' own log lines are not the user's business: a
                        # task's error reaches the harness through its future, and when a stop
                        # closes the cluster (scheduler first) every worker would log its lost
                        # heartbeat as an ERROR with a traceback
                        silence_logs=logging.CRITICAL,
                        # the scheduler's HTTP server (no dashboard) on a free local port: not
                        # the default 8787, which another cluster may hold (and a warning says so)
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    )
                    self._own = [cluster]
                    self.client = distributed.Client(cluster)
                    self._own = [self.client, cluster]
            except BaseException:  # a stop raised as the block ends: the with never enters
                self.__exit__(*sys.exc_info())
                raise
        return self.client

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            # (a command stopping by a signal has already silenced dask's complaints about
            # the tasks it cancels: harness.interrupts.QUIET_WHEN_STOPPING)
            interrupts.acknowledge()
        for obj in self._own:
            obj.close()


def dask_session(
    client: Any = None, *, address: str | None = None, timeout: float | None = None
) -> _DaskSession:
    """Context manager yielding a ``distributed.Client``.

    In order: ``client`` itself; else a client connected to the scheduler at ``address``;
    else the current dask client; else a client of the scheduler named by
    ``$DASK_SCHEDULER_ADDRESS`` (or dask's ``scheduler-address`` setting); else a client of
    a temporary ``LocalCluster`` (one single-threaded worker process per usable CPU, as many as
    the memory available holds: :func:`harness.session.resources.worker_budget`). A given or
    current client is left open; a client this session connected is closed on exit (the
    scheduler and its workers keep running); a temporary cluster is closed with its client.
    Connecting waits ``timeout`` seconds (default :data:`SCHEDULER_TIMEOUT`) for the scheduler
    and again for a worker, then raises :class:`~harness.errors.AdapterUnavailable`.
    """
    return _DaskSession(client, address, timeout)


def _cluster_failure(exc: BaseException) -> HarnessError | None:
    """The harness error to report for a failure of the dask cluster itself (a worker lost
    with its tasks or data, the scheduler gone), or ``None`` for any other exception (a
    task's own error is re-raised as it is)."""
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] == "harness":
        return AdapterUnavailable(
            "dask backend",
            f"a dask worker cannot import the harness ({exc}); the command needs it on every "
            "worker",
            hint="install bleu-harness, the same version, where every worker runs",
        )
    if isinstance(exc, TimeoutError) and "No valid workers" in str(exc):
        what = "no worker is left"  # the scheduler's answer when asked to place data
    elif isinstance(exc, KilledWorker):
        what = "the workers running a task died too many times (KilledWorker)"
    elif isinstance(exc, CancelledError):
        what = "tasks were cancelled (a worker holding their data died, or the scheduler did)"
    elif isinstance(exc, CommClosedError):
        what = "the connection to the dask scheduler was lost"
    else:
        return None
    try:
        detail = str(exc)
    except Exception:  # some dask exceptions format attributes they may not hold
        detail = type(exc).__name__
    return AdapterUnavailable(
        "dask backend",
        f"the cluster failed during the run: {what}: {detail}",
        hint="run again; check the scheduler's and the workers' logs",
    )


@contextlib.contextmanager
def command_cluster(address: str | None = None, *, timeout: float | None = None) -> Iterator[Any]:
    """The one dask client of a whole command-line run: :func:`dask_session` (``address``,
    the current client, ``$DASK_SCHEDULER_ADDRESS`` or a temporary ``LocalCluster``), the
    default client while the command runs, so every :func:`dask_session` with no client
    inside it, and :func:`distributed.Client.current`, reuses it instead of starting a
    cluster.

    A failure of the cluster itself (:func:`_cluster_failure`) is re-raised as an
    :class:`~harness.errors.AdapterUnavailable` naming it, which the command line reports in
    one line.
    """
    with _DaskSession(None, address, timeout) as client:
        try:
            yield client
        except Exception as exc:
            failure = _cluster_failure(exc)
            if failure is None:
                raise
            raise failure from exc
