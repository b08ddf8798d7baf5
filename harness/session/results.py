"""A disk cache of the real libraries' results rows, so that a rerun calls no library.

The statistics cache (:mod:`harness.session.cache`) makes the in-house engine's reruns cheap;
the real libraries are the rest of a comparison's time, and their rows depend only on

* the adapter and the harness code that translates for it and turns its results into rows
  (:func:`code_fingerprint`: every source file of :data:`CODE_PARTS`, so a change there
  recomputes),
* the adapter's own fingerprint (:meth:`~harness.scorers.base.Adapter.cache_fingerprint`: for
  ``evaluate`` the content of the ``bleu`` module it loads and where it came from),
* the versions of every peer library, numpy, scipy and Python (:func:`library_versions`),
* the configuration the adapter runs (its default configuration's signature), the levels
  asked for, and the content hash of the corpus (:func:`~harness.session.cache.content_hash`).

An entry is the rows of one library on one corpus (:func:`harness.run.runner.run_one`)
without the fixture and system names, which are put back on a hit. Only outcomes the library
decided are kept (``ok``, ``raises``, ``non-finite``, ``refused``, ``unsupported``); an
adapter that is unavailable here or a harness error is never cached.

On disk (``<statistics cache directory>/results/<sha256>.rows``) an entry is one JSON header
line (format, key, sha256 of the payload, its length) followed by the zlib-compressed JSON
rows. It is written atomically (a temporary file in the same directory, then
:func:`os.replace`), so concurrent writers never leave a partial entry. An entry that is
truncated, garbled or not the one its name promises is reported once as a
:class:`~harness.session.cache.CacheWarning` and recomputed. An entry that cannot be written
(a full disk, a read-only folder) is one ``CacheWarning`` naming it, and the cache writes no
more entries for its lifetime (one run), which goes on. A hit refreshes the file's
modification time, and after writes the directory is trimmed to ``max_bytes`` by deleting the
least recently used entries (:class:`harness.session.disk.Bound`); ``bleu-harness cache
clear`` empties it.

identify keeps its search's readings here too, by its own key
(:mod:`harness.diagnose.search_cache`, with :func:`code_fingerprint` of the parts it names).
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.session.cache import CacheWarning
from harness.session.disk import Bound, default_max_bytes, touch, write_atomic

__all__ = [
    "CACHEABLE",
    "FORMAT_VERSION",
    "SUFFIX",
    "ResultsCache",
    "code_fingerprint",
    "library_versions",
]

#: Version of the entry layout; bump it when the header or the rows' encoding changes.
FORMAT_VERSION = 1

#: Statuses a library decided; everything else (unavailable here, a harness error) is not kept.
CACHEABLE = frozenset({"ok", "raises", "non-finite", "refused", "unsupported"})

SUFFIX = ".rows"


#: The parts of the ``harness`` package a library's rows can depend on: the adapters, the
#: engine code they borrow (tokenizers, configurations, results), the corpus, the errors they
#: raise, the run stage (runner, plan and the table that turn results into rows), the JSON form
#: the rows are stored in, and this module.
CODE_PARTS: tuple[str, ...] = (
    "scorers",
    "bleu",
    "data",
    "errors.py",
    "typed_json.py",
    "run",
    "session/results.py",
)


@lru_cache(maxsize=4)
def code_fingerprint(parts: tuple[str, ...] = CODE_PARTS) -> str:
    """sha256 of the Python source files of ``parts`` (path and content): folders of the
    ``harness`` package (every ``.py`` file under them) and files (a part with a suffix)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(b"bleu-harness code 1\x00")
    files = [p for part in parts for p in (root / part).glob("**/*.py")]
    files += [root / part for part in parts if Path(part).suffix]
    for path in sorted(set(files)):
        digest.update(path.relative_to(root).as_posix().encode() + b"\x00")
        digest.update(path.read_bytes())
        digest.update(b"\x00")
    return digest.hexdigest()


@lru_cache(maxsize=4)
def library_versions(distributions: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Installed versions of ``distributions`` (every peer library the adapters run), numpy,
    scipy and Python."""
    from importlib import metadata  # slow to import: not at startup

    out = [("python", sys.version)]
    for dist in sorted({*distributions, "numpy", "scipy"}):
        try:
            out.append((dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            out.append((dist, "absent"))
    return tuple(out)


@dataclass
class ResultsCacheStats:
    """What a :class:`ResultsCache` did in a run (hits, misses, entries written, bad entries)."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    corrupt: int = 0


class ResultsCache:
    """The rows of real-library runs on disk, by key (see the module docstring).

    ``directory=None`` is a cache that never hits and stores nothing (``--no-cache``).
    ``holds`` and ``redo``: what an entry holds and what a bad entry makes the run do again,
    in its warnings (another user of the format, such as identify's readings, says its own).
    """

    def __init__(
        self,
        directory: Path | str | None,
        *,
        max_bytes: int | None = None,
        holds: str = "library results",
        redo: str = "running the library again",
    ) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.holds = holds
        self.redo = redo
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes
        self.stats = ResultsCacheStats()
        self._bound = (
            None if self.directory is None else Bound(self.directory, self.max_bytes, (SUFFIX,))
        )
        self._write_failed = False  # a write failed: write no more (see put)

    @classmethod
    def disabled(cls) -> ResultsCache:
        return cls(None)

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    def __repr__(self) -> str:
        return f"ResultsCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    @staticmethod
    def key(
        adapter: str,
        fingerprint: str,
        config_signature: str,
        levels: Sequence[str],
        corpus_digest: str,
        distributions: Sequence[str],
        segments: Sequence[int] | None = None,
    ) -> dict[str, Any]:
        """Everything the rows of the adapter named ``adapter`` (whose
        :meth:`~harness.scorers.base.Adapter.cache_fingerprint` is ``fingerprint``) on a
        corpus depend on, as a JSON object (``distributions``: the peer libraries whose
        versions count; ``segments``: the sampled segments it was spot-checked on, when not
        every one: its segment rows and its ``sample`` row are theirs)."""
        key = {
            "format": FORMAT_VERSION,
            "adapter": adapter,
            "fingerprint": fingerprint,
            "code": code_fingerprint(),
            "versions": [list(v) for v in library_versions(tuple(distributions))],
            "config": config_signature,
            "levels": list(levels),
            "corpus": corpus_digest,
        }
        if segments is not None:
            key["segments"] = list(segments)
        return key

    @staticmethod
    def name_of(key: dict[str, Any]) -> str:
        blob = json.dumps(key, sort_keys=True, ensure_ascii=True)
        return hashlib.sha256(blob.encode()).hexdigest() + SUFFIX

    def path_of(self, key: dict[str, Any]) -> Path | None:
        return None if self.directory is None else self.directory / self.name_of(key)

    # ------------------------------------------------------------------ read and write
    def get(
        self, key: dict[str, Any], fields: Sequence[str] | None = None
    ) -> list[dict[str, Any]] | None:
        """The rows stored under ``key``, or ``None``; with ``fields``, an entry whose rows do
        not have exactly these fields is a bad entry."""
        path = self.path_of(key)
        if path is None:
            return None
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        except OSError as exc:
            self._bad(path, exc)
            return None
        try:
            rows = _decode(blob, key)
            if fields is not None and any(list(r) != list(fields) for r in rows):
                raise ValueError("rows do not have the fields of a results row")
        except Exception as exc:  # any unreadable entry is a miss, never a crash
            self._bad(path, exc)
            return None
        self.stats.hits += 1
        touch(path)  # recently used: pruned last
        return rows

    def put(self, key: dict[str, Any], rows: Sequence[dict[str, Any]]) -> bool:
        """Store ``rows`` under ``key`` when every one is a decided outcome; True if stored."""
        path = self.path_of(key)
        if path is None or not rows or any(r.get("status") not in CACHEABLE for r in rows):
            return False
        if self._write_failed:
            return False
        blob = _encode(key, rows)
        try:
            size = write_atomic(path, lambda fh: fh.write(blob))
        except OSError as exc:
            # A full disk or a read-only folder stays so for the run: say it once, then run on
            # without writing (the rows are returned all the same).
            self._write_failed = True
            warnings.warn(
                f"cannot write {self.holds} cache entry {path} ({exc}); continuing without "
                "writing the results cache for this run",
                CacheWarning,
                stacklevel=2,
            )
            return False
        self.stats.writes += 1
        if self._bound is not None:
            self._bound.wrote(size)
        return True

    def prune(self) -> int:
        """Trim the directory to ``max_bytes``; the number of entries deleted."""
        return 0 if self._bound is None else self._bound.trim()

    def _bad(self, path: Path, exc: BaseException) -> None:
        self.stats.corrupt += 1
        warnings.warn(
            f"{self.holds} cache entry {path} is unreadable or inconsistent "
            f"({type(exc).__name__}: {exc}); {self.redo} and overwriting it",
            CacheWarning,
            stacklevel=3,
        )


# ====================================================================== the entry format
def _encode(key: dict[str, Any], rows: Sequence[dict[str, Any]]) -> bytes:
    payload = json.dumps(list(rows), ensure_ascii=False, allow_nan=False).encode("utf-8")
    header = {
        "format": FORMAT_VERSION,
        "key": key,
        "sha256": hashlib.sha256(payload).hexdigest(),
        "length": len(payload),
    }
    return json.dumps(header, sort_keys=True).encode() + b"\n" + zlib.compress(payload, 6)


def _decode(blob: bytes, key: dict[str, Any]) -> list[dict[str, Any]]:
    head, sep, body = blob.partition(b"\n")
    if not sep:
        raise ValueError("no header line")
    header = json.loads(head)
    if header.get("format") != FORMAT_VERSION:
        raise ValueError(f"format {header.get('format')!r}, expected {FORMAT_VERSION}")
    if header.get("key") != json.loads(json.dumps(key)):
        raise ValueError("the entry was stored under another key")
    payload = zlib.decompress(body)
    if len(payload) != header.get("length"):
        raise ValueError(f"payload of {len(payload)} bytes, header says {header.get('length')}")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ValueError("checksum mismatch")
    rows = json.loads(payload)
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError("payload is not a list of rows")
    return rows
