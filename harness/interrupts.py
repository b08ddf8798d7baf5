"""Stopping a run on a signal: one policy for every command.

The command line (:func:`harness.cli.main`) installs :func:`handler` for each of
:data:`STOP_SIGNALS` (Ctrl-C's SIGINT, SIGTERM, SIGHUP). The first such signal raises
:class:`Stopped` — a ``KeyboardInterrupt``, so the run unwinds as on Ctrl-C: worker pools and
clusters are stopped, staging folders removed, locks released, earlier output left as it was.
The clean-ups :func:`acknowledge` the stop as they start, and from then on every stop signal
is ignored, so that nothing interrupts them.

A few steps must not be cut in two (a worker process half started, so that no pool knows it;
the renames that put a finished output folder in place): they run inside :func:`deferred`, and
a stop signal arriving meanwhile is raised when the step is done. Python runs signal handlers in
the main thread only, so that is where this applies; other threads are never interrupted.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "STOP_SIGNALS",
    "Stopped",
    "acknowledge",
    "deferred",
    "handler",
    "hangup_blocked",
    "ignore_further",
    "kill",
    "reset",
    "start_resource_tracker",
]

#: The signals that ask a run to stop; the command exits 128 + the signal's number.
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stopped(KeyboardInterrupt):
    """The run was asked to stop by the signal ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_depth = 0
_pending: list[int] = []
_stopping: int | None = None
_acknowledged = False
_previous_hook: Any = None
_previous_alarm: Any = None
#: Seconds between re-raises of a stop nobody has taken up (:func:`_reraise`).
RERAISE_AFTER = 1.0
#: Loggers of libraries that complain, on stderr, about the work a stop cuts short (dask's
#: cancelled tasks, asyncio's gathers that never finished): silenced once a run stops.
QUIET_WHEN_STOPPING = ("distributed", "asyncio")


def reset() -> None:
    """Forget an earlier stop: a new command starts in this process (called from Python)."""
    global _stopping, _acknowledged, _depth, _previous_hook
    _stopping, _acknowledged, _depth = None, False, 0
    _pending.clear()
    if _previous_hook is not None:
        sys.unraisablehook, _previous_hook = _previous_hook, None
    _remind(False)


def ignore_further() -> None:
    """Ignore every stop signal that :func:`handler` handles from now on (the run is already
    stopping); a signal someone else handles (a notebook's Ctrl-C) is left as it is."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is handler:
            signal.signal(sig, signal.SIG_IGN)


def acknowledge() -> None:
    """Say that the stop is being handled (a clean-up has started, or the command line has
    caught it): from now on every stop signal is ignored, so nothing cuts the clean-up short."""
    global _acknowledged
    _acknowledged = True
    if threading.current_thread() is threading.main_thread():
        ignore_further()
        _remind(False)


def _reraise(signum: int, frame: object) -> None:
    """The reminder's handler (SIGALRM, every :data:`RERAISE_AFTER` seconds while a stop is
    not acknowledged): raise the stop again. An exception a signal handler raises inside a
    garbage-collector callback, a ``__del__`` or a weakref callback is printed and dropped by
    Python, and the run would go on; a real signal also cuts short a system call the main
    thread is blocked in (reading a FIFO whose writer never comes)."""
    if _stopping is not None and not _acknowledged and not _depth:
        raise Stopped(_stopping)


def _remind(on: bool) -> None:
    """Start or stop the reminder (a no-op off the main thread or without ``setitimer``)."""
    global _previous_alarm
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return
    if on:
        _previous_alarm = signal.signal(signal.SIGALRM, _reraise)
        signal.setitimer(signal.ITIMER_REAL, RERAISE_AFTER, RERAISE_AFTER)
    elif _previous_alarm is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, _previous_alarm)
        _previous_alarm = None


def _unraisable_while_stopping(unraisable: Any) -> None:
    """Python's report of an exception it had to drop (one raised in a garbage-collector
    callback, a ``__del__``), once the run is stopping: the stop itself raised where it
    could not propagate (:func:`_reraise` raises it again), or code it cut short failing on
    its way out — neither is news on stderr. Before the stop, Python's report as usual."""
    if _stopping is None:
        (_previous_hook or sys.__unraisablehook__)(unraisable)


def handler(signum: int, frame: object) -> None:
    """The stop signals' handler: raise :class:`Stopped`, now or when the :func:`deferred`
    step running ends; again each :data:`RERAISE_AFTER` seconds until the stop is
    acknowledged (:func:`acknowledge`)."""
    global _stopping, _previous_hook
    if _acknowledged:
        return
    if _depth:
        if not _pending:
            _pending.append(signum)
        return
    if _stopping is None:
        _stopping = signum
        for name in QUIET_WHEN_STOPPING:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        if _previous_hook is None:
            _previous_hook = sys.unraisablehook
            sys.unraisablehook = _unraisable_while_stopping
        _remind(True)
    raise Stopped(_stopping)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Run the block whole: a stop signal that arrives inside it is raised as it ends."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if not _depth and _pending:
            signum = _pending.pop()
            _pending.clear()
            handler(signum, None)


@contextlib.contextmanager
def hangup_blocked() -> Iterator[None]:
    """Processes started inside the block begin with SIGHUP blocked, for their whole life.

    A terminal that hangs up sends SIGHUP to every process of the job. A pool's helper
    processes (its workers, the forkserver, multiprocessing's resource tracker) are stopped by
    this process when it stops; killed by the signal itself, the resource tracker would be
    started again by the clean-up and print a traceback for every semaphore it did not know.
    A blocked signal is inherited across fork and exec, and one that arrives here meanwhile is
    delivered as the block ends. A no-op off the main thread or without ``pthread_sigmask``.
    """
    if (
        not hasattr(signal, "pthread_sigmask")
        or not hasattr(signal, "SIGHUP")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, if it is not running (POSIX): inside
    :func:`hangup_blocked`, so that it leaves a hangup to the run; started later by whatever
    first registers a semaphore, it would not."""
    if sys.platform == "win32":
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()


def kill(processes: Iterable[Any], wait: float = 5.0) -> None:
    """Kill ``processes`` (``multiprocessing`` processes) and wait up to ``wait`` seconds for
    each to die; one already gone, or never started, is passed over."""
    processes = list(processes)
    for p in processes:
        with contextlib.suppress(Exception):
            p.kill()
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(wait)
