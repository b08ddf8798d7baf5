"""The statistics cache's file format: one ``.npz`` per entry, its metadata (the key parts,
the order and a sha256 of the arrays) embedded, read back only when every part agrees."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from harness.bleu.stats import Statistics
from harness.session.disk import write_atomic

__all__ = ["FORMAT_VERSION", "read_npz", "write_npz"]

#: Version of the on-disk layout; bump it when the ``.npz`` contents or the key text change
#: (2: ``nltk-word`` and ``nltk-punkt`` keys name the distributions their tokens depend on).
FORMAT_VERSION = 2


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def write_npz(path: Path, key: tuple[str, str, str], stats: Statistics) -> int:
    """Write ``stats``, stored under ``key``, to ``path``
    (:func:`~harness.session.disk.write_atomic`); the bytes written."""
    n_refs = np.fromiter((len(r) for r in stats.ref_lens), dtype=np.int64, count=len(stats))
    flat = np.fromiter(
        (x for r in stats.ref_lens for x in r), dtype=np.int64, count=int(n_refs.sum())
    )
    arrays = {
        "hyp_len": np.ascontiguousarray(stats.hyp_len),
        "matches": np.ascontiguousarray(stats.matches),
        "ref_lens_flat": flat,
        "ref_counts": n_refs,
    }
    if stats.ref_matches is not None:
        arrays["ref_matches"] = np.ascontiguousarray(stats.ref_matches)
    meta = {
        "format": FORMAT_VERSION,
        "content": key[0],
        "tokenizer": key[1],
        "engine": key[2],
        "tokenization": stats.tokenization,
        "segments": len(stats),
        "max_order": stats.max_order,
        "checksum": _checksum(arrays),
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    return write_atomic(path, lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]


def read_npz(
    path: Path, key: tuple[str, str, str], n_segments: int, ids: tuple[str, ...]
) -> Statistics:
    """The statistics at ``path``, checked against ``key``, the corpus's segments and their
    checksum (``ValueError`` for an entry that is not what its name promises)."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(data["meta"].tobytes().decode("utf-8"))
        names = ("hyp_len", "matches", "ref_lens_flat", "ref_counts", "ref_matches")
        arrays = {k: data[k] for k in names if k in data.files}
    expected = {
        "format": FORMAT_VERSION,
        "content": key[0],
        "tokenizer": key[1],
        "engine": key[2],
        "segments": n_segments,
    }
    for field_name, value in expected.items():
        if meta.get(field_name) != value:
            raise ValueError(f"metadata {field_name}={meta.get(field_name)!r}, expected {value!r}")
    if meta.get("checksum") != _checksum(arrays):
        raise ValueError("checksum mismatch")
    counts = arrays["ref_counts"]
    flat = arrays["ref_lens_flat"]
    if counts.shape != (n_segments,) or int(counts.sum()) != len(flat):
        raise ValueError("reference-length arrays disagree")
    ref_lens = _ref_rows(flat, counts)
    stats = Statistics(
        hyp_len=arrays["hyp_len"],
        ref_lens=ref_lens,
        matches=arrays["matches"],
        ids=ids,
        tokenization=meta["tokenization"],
        ref_matches=arrays.get("ref_matches"),
    )
    if stats.max_order != meta.get("max_order"):
        raise ValueError("order disagrees with metadata")
    return stats


#: Reference lengths read from the cache, by their bytes: the systems of a test set share
#: them under each tokenization, so a warm run builds each set of tuples once.
_REF_ROWS: dict[bytes, tuple[tuple[int, ...], ...]] = {}
_REF_ROWS_KEPT = 64


def _ref_rows(flat: np.ndarray, counts: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Each segment's reference lengths, from their flat array and each segment's count (the
    tuples an earlier file with the same arrays gave, when there was one)."""
    key = b"%d:%s:%s:" % (len(counts), counts.dtype.str.encode(), flat.dtype.str.encode())
    key += counts.tobytes() + flat.tobytes()
    rows = _REF_ROWS.get(key)
    if rows is None:
        values = flat.tolist()
        bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
        rows = tuple(tuple(values[bounds[i] : bounds[i + 1]]) for i in range(len(counts)))
        if len(_REF_ROWS) >= _REF_ROWS_KEPT:
            _REF_ROWS.pop(next(iter(_REF_ROWS)))
        _REF_ROWS[key] = rows
    return rows
