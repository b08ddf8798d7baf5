"""Progress of long work: a callback the analysis calls, tqdm bars on stderr that show it.

Long functions (:func:`harness.analysis.human.wmt21_human_correlations`,
:func:`harness.diagnose.identify.identify`, :func:`harness.diagnose.validate.validate`, …) take an optional
``progress`` callback, a :data:`ProgressCallback`: ``progress(stage, done, total)`` says that
``done`` of ``total`` steps of the named stage are finished. They call it and know nothing of
how it is shown; ``None`` (the default everywhere) shows nothing.

:class:`TqdmProgress` is the callback the command line passes: one tqdm bar per stage, on
stderr, so the results printed on stdout stay clean. :func:`resolve` turns the CLI's tri-state
flag (``--progress`` → ``True``, ``--quiet`` → ``False``, neither → ``None``) into such a
callback or ``None``: bars by default only when stderr is a terminal.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

__all__ = ["ProgressCallback", "TqdmProgress", "enabled", "resolve", "track"]

#: ``progress(stage, done, total)``: ``done`` of ``total`` steps of ``stage`` are finished.
ProgressCallback = Callable[[str, int, int], None]

T = TypeVar("T")


def enabled(flag: bool | None, stream: TextIO | None = None) -> bool:
    """Whether to show progress: the flag when given, else whether ``stream`` (default
    ``sys.stderr``) is a terminal."""
    if flag is not None:
        return bool(flag)
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or odd stream is not a terminal
        return False


class TqdmProgress:
    """A :data:`ProgressCallback` that draws one tqdm bar per stage on ``file`` (stderr).

    A stage's bar opens on its first report and closes when ``done`` reaches ``total``;
    :meth:`close` closes any left open (an error mid-stage). Progress is never a reason to
    stop work: once its stream cannot be written (a reader that went away, a closed
    stream), every bar is dropped and later reports draw nothing.
    """

    def __init__(self, file: TextIO | None = None) -> None:
        self.file = file
        self._bars: dict[str, Any] = {}
        self.dead = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.dead:
            return
        try:
            self._draw(stage, done, total)
        except (OSError, ValueError):
            self._drop()

    def _draw(self, stage: str, done: int, total: int) -> None:
        from tqdm import tqdm

        bar = self._bars.get(stage)
        if bar is None:
            # no monitor thread: it would write from another thread, where a dead stream
            # cannot be caught here
            tqdm.monitor_interval = 0
            bar = tqdm(
                total=total,
                desc=stage,
                unit="step",
                file=self.file if self.file is not None else sys.stderr,
                leave=True,
                dynamic_ncols=True,
            )
            self._bars[stage] = bar
        if total != bar.total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)
        if done >= total:
            del self._bars[stage]
            bar.close()

    def _drop(self) -> None:
        """Forget every bar without drawing again (their stream is gone)."""
        self.dead = True
        for bar in self._bars.values():
            bar.disable = True  # so closing it, now or when it is collected, writes nothing
            with contextlib.suppress(Exception):
                bar.close()
        self._bars.clear()

    def close(self) -> None:
        """Close every bar still open."""
        try:
            for bar in list(self._bars.values()):
                bar.close()
            self._bars.clear()
        except (OSError, ValueError):
            self._drop()


def resolve(flag: bool | None) -> TqdmProgress | None:
    """The CLI's progress callback: tqdm bars on stderr when :func:`enabled` and stderr is
    open, else ``None``."""
    if sys.stderr is None or getattr(sys.stderr, "closed", False):
        return None
    return TqdmProgress() if enabled(flag) else None


def track(
    items: Iterable[T], progress: ProgressCallback | None, stage: str, total: int | None = None
) -> Iterator[T]:
    """Iterate ``items``, reporting each finished item to ``progress`` under ``stage``.

    ``total`` defaults to ``len(items)``. With ``progress=None`` this is ``iter(items)``.
    """
    if progress is None:
        yield from items
        return
    if total is None:
        items = list(items)
        total = len(items)
    progress(stage, 0, total)
    for i, item in enumerate(items, start=1):
        yield item
        progress(stage, i, total)
