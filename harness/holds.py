"""Process-wide settings held while any of the blocks that ask for them runs.

A :class:`Hold` starts its setting when the first block begins and stops it when the last one
ends, so blocks nest and overlap across threads without one ending the setting under another.
:func:`collector_paused` is the hold of the cyclic garbage collector's pause; the statistics
layer's single BLAS thread (:mod:`harness.statistics.blas`) is another.

Why the collector is paused: counting a corpus builds a list per line and per batch of tokens,
and a results table a row and its tuples per pair. None of them holds a reference cycle, so
reference counting frees them, yet CPython starts a collection of the youngest generation
every 700 new containers, of the next every tenth of those, and of the whole heap, which those
objects fill, whenever enough of them have been promoted to the oldest.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Hold", "collector_paused"]


class Hold:
    """A setting held while any block of :meth:`held` runs: ``start()`` when the first begins,
    and again in an inner one where ``renew()`` says the setting in force no longer covers
    it; ``stop()`` when the last ends."""

    def __init__(
        self,
        start: Callable[[], None],
        stop: Callable[[], None],
        renew: Callable[[], bool] | None = None,
    ) -> None:
        self._start, self._stop, self._renew = start, stop, renew
        self._lock = threading.Lock()
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        """The setting in force inside the block."""
        with self._lock:
            if self._depth == 0 or (self._renew is not None and self._renew()):
                self._start()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._stop()


_was_enabled = [False]


def _pause() -> None:
    _was_enabled[0] = gc.isenabled()
    gc.disable()


def _resume() -> None:
    if _was_enabled[0]:
        gc.enable()


_COLLECTOR = Hold(_pause, _resume)


def collector_paused() -> contextlib.AbstractContextManager[None]:
    """The cyclic garbage collector off inside the block, as it was found afterwards (see the
    module's docstring for why)."""
    return _COLLECTOR.held()
