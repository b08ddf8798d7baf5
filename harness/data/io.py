"""Reading corpora from files and writing results atomically.

Text files are read by :mod:`harness.data.textfile` (:func:`read_lines`), whose docstring
states the rules every file follows, its size limit and how memory is bounded. Every problem
raises :class:`~harness.errors.InputError` naming the file and, where it applies, the 1-based
line; count mismatches between files raise :class:`~harness.errors.LayoutError` naming the
file, the expected and the actual count.

Writers (:func:`write_text_atomic`, :func:`write_json_atomic`) go through a temporary file in
the target's directory and :func:`os.replace`, so a reader never sees a half-written file, and
they refuse to overwrite unless asked to.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import interrupts
from harness.data.corpus import Corpus
from harness.data.textfile import (
    BomRule,
    PathLike,
    line_counts_differ,
    out_of_memory,
    precheck_line_aligned,
    read_lines,
    read_record_lines,
)
from harness.errors import InputError, LayoutError

_JSONL_KEYS = ("id", "hypothesis", "references")


# ---------------------------------------------------------------------------- corpora
def load_text_corpus(
    hyp_path: PathLike,
    ref_paths: Sequence[PathLike],
    *,
    name: str | None = None,
    bom: BomRule = "refuse",
) -> Corpus:
    """A :class:`Corpus` from one hypothesis file and one file per reference, line-aligned.

    Line ``i`` of ``hyp_path`` is the hypothesis of segment ``i``; line ``i`` of
    ``ref_paths[k]`` is its ``k``-th reference (the sacrebleu "streams" layout on disk, so every
    segment gets exactly ``len(ref_paths)`` references; an empty line is an empty reference).
    ``name`` defaults to the hypothesis file's stem; ``provenance`` records the paths as
    ``{"hypotheses": str, "references": [str, ...]}`` (and ``"bom"``, the rule a leading
    byte-order mark was read by, when it is not the default: :func:`file_provenance`).

    Every file is checked before any is read whole (:func:`precheck_line_aligned`): a file
    over the size limit, or line counts that differ, are refused after a scan that keeps
    nothing in memory.

    Raises:
        LayoutError: ``ref_paths`` is a single path instead of a list of paths, is empty, or a
            reference file's line count differs from the hypothesis file's (``what`` is the
            reference file, ``expected`` the hypothesis line count, ``got`` its line count).
        InputError: any file fails :func:`read_lines`, or the files do not fit in memory.
    """
    if isinstance(ref_paths, (str, bytes, os.PathLike)) or not isinstance(ref_paths, Sequence):
        raise LayoutError(
            "ref_paths must be a list of reference files (one file per reference), "
            "not a single path",
            what="ref_paths",
            expected="list of paths",
            got=type(ref_paths).__name__,
        )
    if len(ref_paths) == 0:
        raise LayoutError(
            "at least one reference file is required", what="ref_paths", expected=">= 1", got=0
        )
    precheck_line_aligned([hyp_path], ref_paths, bom=bom)
    hyps = read_lines(hyp_path, what="hypothesis file", bom=bom)
    streams: list[list[str]] = []
    for ref_path in ref_paths:
        refs = read_lines(ref_path, what="reference file", bom=bom)
        if len(refs) != len(hyps):  # a pipe, which the precheck cannot count
            raise line_counts_differ(hyp_path, len(hyps), ref_path, len(refs))
        streams.append(refs)
    try:
        references = tuple(tuple(s[i] for s in streams) for i in range(len(hyps)))
        return Corpus(
            hypotheses=tuple(hyps),
            references=references,
            name=Path(hyp_path).stem if name is None else name,
            provenance=file_provenance(hyp_path, ref_paths, bom),
            check_text=False,  # read_lines has refused these characters (or kept a BOM as asked)
        )
    except MemoryError:
        del hyps, streams
        raise out_of_memory([hyp_path, *ref_paths]) from None


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads` that refuses ``{"a": 1, "a": 2}``."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


def file_provenance(
    hyp_path: PathLike, ref_paths: Sequence[PathLike], bom: BomRule = "refuse"
) -> dict[str, Any]:
    """Where a corpus read from text files came from: the paths and, unless it is the
    default, the :data:`~harness.data.textfile.BomRule` they were read by (a kept mark changes
    the first segment's text, so a score of it is reproduced only with the same rule)."""
    out: dict[str, Any] = {"hypotheses": str(hyp_path), "references": [str(p) for p in ref_paths]}
    if bom != "refuse":
        out["bom"] = bom
    return out


def load_jsonl_corpus(
    path: PathLike, *, name: str | None = None, bom: BomRule = "refuse"
) -> Corpus:
    """A :class:`Corpus` from a JSON Lines file, one segment per line.

    Each line is one JSON object ``{"id": ..., "hypothesis": str, "references": [str, ...]}``
    (the per-segment layout: ``references`` lists *this segment's* references, at least one,
    ragged allowed). ``id`` is optional (a string or integer, stored as a string); a segment
    without one gets its 1-based line number. Other keys are rejected, not dropped. ``name``
    defaults to the file's stem; ``provenance`` is ``{"jsonl": str(path)}``. A leading
    byte-order mark is refused, or dropped with ``bom="strip"``
    (:func:`~harness.data.textfile.read_record_lines`).

    Raises:
        InputError: the file fails :func:`read_lines`, or a line (named by ``.line``) is blank,
            not valid JSON, not an object, lacks a key, has an unknown key or a value of the
            wrong type, has an empty ``references`` list, or repeats an earlier id.
    """
    file = str(path)
    lines = read_record_lines(path, what="JSONL file", bom=bom)
    hyps: list[str] = []
    refs: list[tuple[str, ...]] = []
    ids: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError(
                "blank line: a JSONL corpus needs exactly one JSON object per line "
                '(remove blank lines; an empty hypothesis is "hypothesis": "")',
                file=file,
                line=lineno,
            )
        try:
            obj = json.loads(line, object_pairs_hook=_reject_duplicate_keys)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON: {exc.msg} (column {exc.colno})", file=file, line=lineno
            ) from None
        except ValueError as exc:  # duplicate key
            raise InputError(f"invalid JSON: {exc}", file=file, line=lineno) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"each line must be a JSON object, got {type(obj).__name__}",
                file=file,
                line=lineno,
            )
        unknown = sorted(set(obj) - set(_JSONL_KEYS))
        if unknown:
            raise InputError(
                f"unknown key(s) {', '.join(map(repr, unknown))}; valid: {', '.join(_JSONL_KEYS)}",
                file=file,
                line=lineno,
            )
        for key in ("hypothesis", "references"):
            if key not in obj:
                raise InputError(f"missing key {key!r}", file=file, line=lineno)
        hyp = obj["hypothesis"]
        if not isinstance(hyp, str):
            raise InputError(
                f"'hypothesis' must be a string, got {type(hyp).__name__}", file=file, line=lineno
            )
        seg_refs = obj["references"]
        if not isinstance(seg_refs, list):
            raise InputError(
                f"'references' must be a list of strings (this segment's references), "
                f"got {type(seg_refs).__name__}",
                file=file,
                line=lineno,
            )
        if not seg_refs:
            raise InputError(
                "'references' is an empty list; a segment needs at least one reference",
                file=file,
                line=lineno,
            )
        for k, ref in enumerate(seg_refs):
            if not isinstance(ref, str):
                raise InputError(
                    f"'references'[{k}] must be a string, got {type(ref).__name__}",
                    file=file,
                    line=lineno,
                )
        if "id" in obj:
            raw_id = obj["id"]
            if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
                raise InputError(
                    f"'id' must be a string or an integer, got {type(raw_id).__name__}",
                    file=file,
                    line=lineno,
                )
            seg_id = str(raw_id)
        else:
            seg_id = str(lineno)
        if seg_id in seen:
            raise InputError(
                f"duplicate id {seg_id!r} (first used on line {seen[seg_id]})",
                file=file,
                line=lineno,
            )
        seen[seg_id] = lineno
        hyps.append(hyp)
        refs.append(tuple(seg_refs))
        ids.append(seg_id)
    return Corpus(
        hypotheses=tuple(hyps),
        references=tuple(refs),
        ids=tuple(ids),
        name=Path(path).stem if name is None else name,
        provenance={"jsonl": file},
    )


# ---------------------------------------------------------------------------- writing
def write_text_atomic(path: PathLike, text: str, *, force: bool = False) -> None:
    """Write ``text`` to ``path`` as UTF-8, atomically.

    The text goes to a temporary file in the same directory (so :func:`os.replace` is an atomic
    rename on POSIX), is flushed to disk, and then replaces ``path``. On any error the temporary
    file is removed and ``path`` is left as it was; a reader never sees a partial file. Newlines
    are written as given (no platform translation). A new file gets the usual permissions
    (``0o666`` minus the umask); an overwritten file keeps its permissions.

    The existence check and the rename are two steps: a file created by another process in
    between is overwritten.

    Raises:
        InputError: ``path`` exists and ``force`` is false; its directory does not exist;
            ``path`` is a directory; ``text`` cannot be encoded as UTF-8 (a lone surrogate);
            or the write fails.
        TypeError: ``text`` is not a ``str``.
    """
    file = str(path)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"text is not encodable as UTF-8 at character {exc.start}: {exc.reason}", file=file
        ) from None
    target = Path(path)
    if os.path.isdir(target):
        raise InputError("is a directory; cannot write a file here", file=file)
    if os.path.lexists(target) and not force:
        raise InputError("exists; pass force=True (CLI: --force) to overwrite", file=file)
    directory = target.parent
    if not directory.is_dir():
        raise InputError(f"directory {str(directory)!r} does not exist", file=file)

    # O_EXCL with mode 0o666 lets the umask apply, unlike tempfile.mkstemp's 0o600.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    created = False
    try:
        # a stop signal between the open and ``created`` would leave the temporary file: it
        # is raised once the file is known, and removed below
        with interrupts.deferred():
            while True:
                tmp = directory / f".{target.name}.{secrets.token_hex(6)}.tmp"
                try:
                    fh = os.fdopen(os.open(tmp, flags, 0o666), "wb")
                    created = True
                    break
                except FileExistsError:
                    continue
                except OSError as exc:
                    raise InputError(
                        f"cannot create a temporary file: {exc.strerror}", file=file
                    ) from exc
        with fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if os.path.exists(target):
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(tmp, target)
    except BaseException as exc:
        if created:
            with contextlib.suppress(OSError):
                fh.close()
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror or exc}", file=file) from exc
        raise
    fsync_dir(directory)  # make the rename itself durable


def write_json_atomic(path: PathLike, obj: Any, *, force: bool = False) -> None:
    """Write ``obj`` as JSON to ``path`` atomically (see :func:`write_text_atomic`).

    UTF-8 with non-ASCII characters kept as they are (``ensure_ascii=False``), ``indent=2``,
    keys in insertion order, and a trailing newline. The object is serialised before any file
    is touched. ``NaN`` and infinities are refused because they are not JSON (most readers other
    than Python's reject them); store ``None`` instead.

    Raises:
        InputError: ``obj`` contains NaN or an infinity, or as :func:`write_text_atomic`.
        TypeError: ``obj`` contains a value JSON cannot represent.
    """
    try:
        text = json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False)
    except ValueError as exc:
        if "Circular reference" in str(exc):
            raise
        raise InputError(
            f"not valid JSON: {exc} (use None for missing values)", file=str(path)
        ) from None
    write_text_atomic(path, text + "\n", force=force)


__all__ = [
    "PathLike",
    "file_provenance",
    "load_jsonl_corpus",
    "load_text_corpus",
    "read_lines",
    "write_json_atomic",
    "write_text_atomic",
]


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Flush a directory's entries (renames into it) to disk; best effort, as not every
    platform can open a directory for that."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
