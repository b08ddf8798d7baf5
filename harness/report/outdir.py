"""Output folders the harness owns: a manifest of what it wrote, a lock, staged writes.

Every command that writes a folder (``compare --out``, ``report --out``,
:func:`harness.report.write_report`) goes through :class:`OutputDir`:

* **Nothing foreign is touched.** The folder holds a manifest, :data:`MANIFEST`
  (``{"written_by": "bleu-harness", "manifest_version": 1, "command": ..., "files": [...]}``),
  listing the files the last command wrote. A folder that holds anything else (a file the
  manifest does not list, a sub-folder, a symlink) is refused with :class:`InputError` naming
  those entries, *even with* ``force``: ``force`` only lets the harness replace or remove files
  its manifest lists. A folder written by an older version without a manifest is refused too.
* **One run at a time.** The folder is locked for the whole command (``fcntl.flock`` on
  :data:`LOCK_FILE` inside it, which records the holder's pid); a second run on the same folder
  fails at once with :class:`InputError` naming the folder and the other run's pid. The lock is
  released when the command ends, however it ends (the kernel releases it if the process dies).
* **Nothing half-written.** Files are written into a private staging folder inside the output
  folder and moved into place only by :meth:`OutputDir.commit`, with SIGINT/SIGTERM deferred
  for the few renames it takes; if the command fails or is interrupted before that, the staging
  folder is removed, an earlier output is left as it was, and directories the command created are
  removed again (only if empty).

POSIX only (it needs :mod:`fcntl`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from harness import interrupts
from harness.data.io import fsync_dir, write_json_atomic, write_text_atomic
from harness.errors import InputError

MANIFEST = ".bleu-harness-manifest.json"
"""The manifest's file name inside an output directory."""

LOCK_FILE = ".bleu-harness.lock"
"""The lock file's name inside an output directory (it holds the running command's pid)."""

STAGING_PREFIX = ".bleu-harness-staging-"
"""Prefix of the staging folder a running command writes into before :meth:`OutputDir.commit`."""

_MANIFEST_VERSION = 1
_SHOW = 8  # foreign entries named in a message


def _why(exc: OSError) -> str:
    # the system's words for the error number: pyarrow's writer puts its own in front
    # ("Error writing bytes to file. Detail: [errno 27] File too large")
    if exc.errno:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold the stop signals back until the block ends: the command line's handler waits
    (:func:`harness.interrupts.deferred`, whichever thread the signal reached), and this
    thread blocks them too, for a caller that kept Python's own SIGINT handler (main thread,
    POSIX; else only the former)."""
    with interrupts.deferred():
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        old = signal.pthread_sigmask(signal.SIG_BLOCK, set(interrupts.STOP_SIGNALS))
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def read_manifest(directory: str | os.PathLike[str]) -> list[str] | None:
    """The file names the manifest in ``directory`` lists, or ``None`` if it has no manifest.

    Raises:
        InputError: the manifest exists but is unreadable or not a bleu-harness manifest (the
            message names it; the harness then touches nothing in the folder).
    """
    path = Path(directory) / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        why = _why(exc) if isinstance(exc, OSError) else "not UTF-8"
        raise InputError(f"cannot read the bleu-harness manifest: {why}", file=str(path)) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not a bleu-harness manifest (invalid JSON: {exc.msg}, line {exc.lineno}); "
            "refusing to touch the directory",
            file=str(path),
        ) from None
    files = obj.get("files") if isinstance(obj, dict) else None
    if (
        not isinstance(obj, dict)
        or obj.get("written_by") != "bleu-harness"
        or not isinstance(files, list)
        or not all(
            isinstance(f, str) and f and "/" not in f and f not in (".", "..") for f in files
        )
    ):
        raise InputError(
            "not a bleu-harness manifest (expected an object with written_by 'bleu-harness' and "
            "'files', a list of file names); refusing to touch the directory",
            file=str(path),
        )
    return list(files)


def _is_ours(name: str) -> bool:
    return name in (MANIFEST, LOCK_FILE) or name.startswith(STAGING_PREFIX)


class OutputDir:
    """One command's claim on an output directory (use as a context manager).

    ``with OutputDir(path, force=..., command="compare") as out:`` creates the folder (and its
    missing parents), locks it, and checks what it holds: an empty folder or one holding only
    an earlier bleu-harness output (with ``force``) is accepted; anything else raises. Inside
    the block, write files with :meth:`write_text` / :meth:`write_json` or render into
    :attr:`staging`, then call :meth:`commit`. Leaving the block without committing (an
    exception, Ctrl-C) leaves the folder as it was before the command.

    Raises (on entering):
        InputError: the path exists and is not a folder; it cannot be created or written
            (permissions, read-only file system, a file where a folder is expected); another
            run holds its lock (names the pid); it holds entries the harness did not write
            (names them; ``force`` does not help); it holds an earlier output and ``force`` is
            false; its manifest is malformed.
    """

    def __init__(self, path: str | os.PathLike[str], *, force: bool, command: str) -> None:
        self.path = Path(path)
        self.force = force
        self.command = command
        self.staging: Path = self.path / f"{STAGING_PREFIX}{secrets.token_hex(6)}"
        self.written: list[Path] = []
        self._created: list[Path] = []
        self._lock_fd: int | None = None
        self._old_files: list[str] = []
        self._committed = False

    # ------------------------------------------------------------------ entering
    def __enter__(self) -> OutputDir:
        try:
            # A stop between a folder's mkdir and its being recorded in _created, or between
            # the lock file's open and _lock_fd, would leave them behind: a stop arriving
            # meanwhile is raised once both are known, and handled below.
            with _signals_deferred():
                self._create()
                self._lock()
            self._check()
            self._clean_stale_staging()
            try:
                self.staging.mkdir()
            except OSError as exc:
                raise InputError(
                    f"cannot write into the output directory: {_why(exc)}", file=str(self.path)
                ) from None
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                interrupts.acknowledge()  # nothing may cut the release short
            self._release()
            raise
        return self

    def _create(self) -> None:
        p = self.path
        if p.is_symlink() and not p.is_dir():
            raise InputError("is a symlink to nothing; not an output directory", file=str(p))
        if p.exists() and not p.is_dir():
            raise InputError("exists and is not a directory", file=str(p))
        missing: list[Path] = []
        q = p
        while not q.exists() and not q.is_symlink() and q != q.parent:
            missing.append(q)
            q = q.parent
        if q.exists() and not q.is_dir():
            raise InputError(
                f"cannot create the output directory: {str(q)!r} is a file, not a directory",
                file=str(p),
            )
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:
                continue  # created concurrently; not ours to remove
            except OSError as exc:
                raise InputError(
                    f"cannot create the output directory: {_why(exc)} ({d})", file=str(p)
                ) from None
            self._created.append(d)

    def _lock(self) -> None:
        lock = self.path / LOCK_FILE
        while True:
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            except OSError as exc:
                raise InputError(
                    f"cannot write into the output directory: {_why(exc)}", file=str(self.path)
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                pid = ""
                with contextlib.suppress(OSError, ValueError):
                    pid = os.read(fd, 32).decode("ascii").strip()
                os.close(fd)
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    who = f"pid {pid}" if pid.isdigit() else "pid unknown"
                    raise InputError(
                        f"output directory is in use by another bleu-harness run ({who}); wait "
                        "for it to finish or choose another --out",
                        file=str(self.path),
                    ) from None
                raise InputError(
                    f"cannot lock the output directory: {_why(exc)}", file=str(self.path)
                ) from None
            # The holder we waited for may have unlinked the file: lock the current one.
            try:
                same = os.path.samestat(os.stat(lock), os.fstat(fd))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            self._lock_fd = fd
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            except OSError as exc:  # a full disk: os.write names no file, so name it here
                raise InputError(
                    f"cannot write the lock file: {_why(exc)}; {self.path} was left as it was",
                    file=str(lock),
                ) from None
            return

    def _check(self) -> None:
        listed = read_manifest(self.path)
        names = sorted(os.listdir(self.path))
        ours = set(listed or ())
        foreign = []
        for name in names:
            if _is_ours(name):
                continue
            entry = self.path / name
            if name not in ours or entry.is_symlink() or not entry.is_file():
                foreign.append(name + ("/" if entry.is_dir() and not entry.is_symlink() else ""))
        if foreign:
            shown = ", ".join(foreign[:_SHOW]) + (
                f", … ({len(foreign) - _SHOW} more)" if len(foreign) > _SHOW else ""
            )
            why = (
                f"not listed in its {MANIFEST}"
                if listed is not None
                else f"the directory has no {MANIFEST}"
            )
            raise InputError(
                f"output directory holds {len(foreign)} entr{'y' if len(foreign) == 1 else 'ies'} "
                f"bleu-harness did not write ({why}): {shown}; refusing to replace or delete "
                "them, even with --force; move them away or choose another --out",
                file=str(self.path),
            )
        present = [n for n in names if n in ours]
        if present and not self.force:
            raise InputError(
                f"output directory holds an earlier bleu-harness output ({', '.join(present)}); "
                "pass --force (force=True) to replace it",
                file=str(self.path),
            )
        self._old_files = present

    def _clean_stale_staging(self) -> None:
        # Left by a run that was killed (SIGKILL, power loss) before it could clean up; we hold
        # the lock, so no live run is using them.
        for name in os.listdir(self.path):
            if name.startswith(STAGING_PREFIX) and (self.path / name).is_dir():
                shutil.rmtree(self.path / name, ignore_errors=True)

    # ------------------------------------------------------------------ writing
    def cannot_write(self, name: str, exc: OSError) -> InputError:
        """The error for a failed write of the output file ``name`` before :meth:`commit`:
        it names the file as it would have appeared in the folder (not the staging copy) and
        says that the folder was left as it was."""
        return InputError(
            f"cannot write: {_why(exc)}; {self.path} was left as it was",
            file=str(self.path / name),
        )

    def write_text(self, name: str, text: str) -> Path:
        """Stage ``text`` as the file ``name`` (UTF-8); it appears on :meth:`commit`.

        Raises:
            InputError: the write fails (a full disk): names ``name`` in the folder.
        """
        try:
            write_text_atomic(self.staging / name, text)
        except InputError as exc:
            if isinstance(exc.__cause__, OSError):
                raise self.cannot_write(name, exc.__cause__) from None
            raise
        return self.path / name

    def write_json(self, name: str, obj: Any) -> Path:
        """Stage ``obj`` as the JSON file ``name`` (see :func:`harness.data.io.write_json_atomic`
        and :meth:`write_text`)."""
        try:
            write_json_atomic(self.staging / name, obj)
        except InputError as exc:
            if isinstance(exc.__cause__, OSError):
                raise self.cannot_write(name, exc.__cause__) from None
            raise
        return self.path / name

    def _write_manifest(self, files: Sequence[str]) -> None:
        body = {
            "written_by": "bleu-harness",
            "manifest_version": _MANIFEST_VERSION,
            "command": self.command,
            "files": sorted(files),
        }
        tmp = self.path / f"{MANIFEST}.{secrets.token_hex(6)}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(body, indent=2) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path / MANIFEST)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, OSError) and not exc.filename:  # a write or fsync: name it
                path = str(self.path / MANIFEST)
                raise OSError(exc.errno, exc.strerror or str(exc), path) from exc
            raise

    def commit(self) -> list[Path]:
        """Move every staged file into the folder; return their paths.

        The manifest first lists the old and the new files (so that an interruption midway
        leaves nothing unlisted), the files are renamed into place, the earlier output's files
        that this command did not write again are removed, and the manifest then lists exactly
        the new files. SIGINT and SIGTERM wait until this is done.

        Raises:
            InputError: a file cannot be flushed or moved into place, or the manifest cannot
                be written (the message names that file).
        """
        new = sorted(
            n for n in os.listdir(self.staging) if (self.staging / n).is_file() and not _is_ours(n)
        )
        with _signals_deferred():
            current = self.path  # what is being written, for the message
            try:
                for name in new:
                    current = self.path / name
                    with open(self.staging / name, "rb") as fh:
                        os.fsync(fh.fileno())
                current = self.path / MANIFEST
                self._write_manifest(sorted(set(self._old_files) | set(new)))
                for name in new:
                    current = self.path / name
                    os.replace(self.staging / name, self.path / name)
                for name in sorted(set(self._old_files) - set(new)):
                    current = self.path / name
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(self.path / name)
                current = self.path / MANIFEST
                self._write_manifest(new)
            except OSError as exc:
                raise InputError(
                    f"cannot write the output: {_why(exc)}", file=str(current)
                ) from None
            shutil.rmtree(self.staging, ignore_errors=True)
            fsync_dir(self.path)
            self._committed = True
        self.written = [self.path / n for n in new]
        return self.written

    # ------------------------------------------------------------------ leaving
    def _release(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path / LOCK_FILE)  # while still holding the lock
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None
        if not self._committed:
            for d in reversed(self._created):
                with contextlib.suppress(OSError):
                    d.rmdir()  # only if empty: never removes anything but what we created

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            interrupts.acknowledge()  # nothing may cut the release short
        self._release()


__all__ = ["LOCK_FILE", "MANIFEST", "STAGING_PREFIX", "OutputDir", "read_manifest"]
