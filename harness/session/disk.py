"""The files of the on-disk caches (statistics and results): atomic writes, their size bound
and the housekeeping ``bleu-harness cache`` does.

An entry is written to a temporary file in its directory and renamed over its name, so readers
never see a half-written one; it is not flushed to the disk (no fsync): an entry a crash of the
machine leaves torn fails its checksum when read, a miss that is recomputed, and a cold run
writes hundreds. A read refreshes an entry's modification time (:func:`touch`), and a
:class:`Bound` trims its directory to ``max_bytes`` after writes, least recently used first.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from harness.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ENV_MAX_MB",
    "Bound",
    "default_max_bytes",
    "prune",
    "touch",
    "usage",
    "write_atomic",
]

#: Default bound of each cache directory (least recently used entries go first).
DEFAULT_MAX_BYTES = 2 * 1024**3

ENV_MAX_MB = "BLEU_HARNESS_CACHE_MAX_MB"


def default_max_bytes() -> int:
    """``$BLEU_HARNESS_CACHE_MAX_MB`` megabytes, else :data:`DEFAULT_MAX_BYTES`."""
    env = os.environ.get(ENV_MAX_MB, "").strip()
    if not env:
        return DEFAULT_MAX_BYTES
    try:
        mb = float(env)
    except ValueError:
        raise ConfigError(f"{ENV_MAX_MB}={env!r} is not a number of megabytes") from None
    return max(0, int(mb * 1024**2))


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> int:
    """``write`` the entry at ``path`` through a temporary file renamed over it (see the
    module); the bytes written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            size = fh.tell()
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return size


def touch(path: Path) -> None:
    """Mark the entry at ``path`` recently used (pruned last); a file gone meanwhile is left."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _entries(directory: Path, suffixes: Sequence[str]) -> list[tuple[float, int, Path]]:
    out = []
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):
            if entry.is_file() and entry.name.endswith(tuple(suffixes)):
                with contextlib.suppress(FileNotFoundError):
                    st = entry.stat()
                    out.append((st.st_mtime, st.st_size, Path(entry.path)))
    return out


def usage(directory: Path, suffixes: Sequence[str]) -> tuple[int, int]:
    """(entries, bytes) of the cache files in ``directory`` (names ending in ``suffixes``)."""
    entries = _entries(directory, suffixes)
    return len(entries), sum(size for _, size, _ in entries)


def prune(directory: Path, max_bytes: int, suffixes: Sequence[str]) -> int:
    """Delete the least recently used cache files of ``directory`` until the rest fit in
    ``max_bytes``; the number deleted (a file another process deletes first is skipped)."""
    entries = sorted(_entries(directory, suffixes))
    total = sum(size for _, size, _ in entries)
    deleted = 0
    for _, size, path in entries:
        if total <= max_bytes:
            break
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            deleted += 1
        total -= size
    return deleted


class Bound:
    """A cache directory kept under ``max_bytes``: trimmed (:func:`prune`) once the writes
    since the last trim add up to a twentieth of the bound (at least 1 MB)."""

    def __init__(self, directory: Path, max_bytes: int, suffixes: Sequence[str]) -> None:
        self.directory, self.max_bytes, self.suffixes = directory, max_bytes, tuple(suffixes)
        self._written = 0

    def wrote(self, size: int) -> None:
        """``size`` more bytes written; trim when they reach the step."""
        self._written += size
        if self._written > max(self.max_bytes // 20, 1 << 20):
            self.trim()

    def trim(self) -> int:
        """Trim the directory now; the number of entries deleted."""
        self._written = 0
        return prune(self.directory, self.max_bytes, self.suffixes)
