"""A cache of sufficient statistics: in memory for one run, optionally on disk across runs.

Tokenizing and counting is the only expensive step of the engine; everything after it (every
reference-length rule, smoothing, aggregation, resampling) is arithmetic on
:class:`~harness.bleu.stats.Statistics`. Statistics depend only on

* the corpus content (hypotheses, references, segment ids),
* the tokenization (:func:`harness.bleu.engine.tokenization_key`: tokenizer and case, plus the
  versions of what the tokenizer depends on, as its registry entry names them, see
  :func:`tokenizer_signature`),
* the engine version (:data:`harness.bleu.config.ENGINE_VERSION`),

so one :class:`StatisticsCache` serves every profile of a run: the twelve profiles that share
``13a`` and mixed case tokenize and count each corpus once. Statistics counted up to order M
serve every order n ≤ M (:meth:`StatisticsCache.at_order` keeps ``matches[:, :n]``), so a
cache entry is keyed without the order and holds the highest order asked for so far.

On disk (``directory=``; default :func:`default_cache_dir`: ``$BLEU_HARNESS_CACHE_DIR``, else
``$XDG_CACHE_HOME/bleu-harness/stats``, else ``~/.cache/bleu-harness/stats``) each entry is
one ``<sha256>.npz`` file named by the sha256 of content hash, tokenizer signature, engine
version and :data:`FORMAT_VERSION`. It embeds its metadata (the key parts, the order, and a
sha256 checksum of the arrays) and is written atomically (a temporary file in the same
directory, then :func:`os.replace`), so concurrent writers never leave a partial file and
readers see either the old or the new entry. A file that cannot be read, whose checksum or
metadata does not match, is recomputed and overwritten with a :class:`CacheWarning`. A hit
refreshes the file's modification time, and after writes the directory is trimmed to
``disk_max_bytes`` (default ``$BLEU_HARNESS_CACHE_MAX_MB``) by deleting the least recently
used entries (:class:`harness.session.disk.Bound`).

A :class:`~harness.session.Session` holds one (with its corpora and workers); use
:func:`get_statistics` for one corpus, or one cache per run::

    cache = StatisticsCache(directory=default_cache_dir())   # or StatisticsCache() in memory
    stats = cache.get(corpus, config)
    StatisticsCache.disabled()                               # --no-cache: always compute
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import os
import unicodedata
import warnings
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from harness.bleu import config as _config
from harness.bleu import engine, native
from harness.bleu.config import BleuConfig
from harness.bleu.stats import Statistics
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.errors import HarnessError, LayoutError
from harness.progress import ProgressCallback, track
from harness.session import parallel
from harness.session.disk import Bound, default_max_bytes, touch
from harness.session.parallel import ComputeFn
from harness.session.stats_files import FORMAT_VERSION, read_npz, write_npz

__all__ = [
    "FORMAT_VERSION",
    "CacheStats",
    "CacheWarning",
    "StatisticsCache",
    "content_hash",
    "default_cache_dir",
    "get_statistics",
    "tokenization_groups",
    "tokenizer_signature",
]


ENV_CACHE_DIR = "BLEU_HARNESS_CACHE_DIR"


class CacheWarning(UserWarning):
    """A cache file was unreadable or inconsistent (truncated, corrupt, foreign) and was
    recomputed and overwritten; or it could not be written (a full disk: said once, then the
    cache writes no more for the run, which goes on; the result is still correct)."""


# ====================================================================== keys
def default_cache_dir() -> Path:
    """``$BLEU_HARNESS_CACHE_DIR``, else ``$XDG_CACHE_HOME/bleu-harness/stats``, else
    ``~/.cache/bleu-harness/stats``."""
    env = os.environ.get(ENV_CACHE_DIR, "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "bleu-harness" / "stats"


def content_hash(corpus: Corpus) -> str:
    """sha256 (hex) of the segment ids, hypotheses and references, unambiguously framed.

    Framing: the number of segments, every segment's number of references and every text's
    length in code points (ids, then hypotheses, then references segment by segment), then the
    texts concatenated in UTF-8 (lone surrogates passed through). The lengths cut the
    concatenation back into the texts, so two corpora hash alike only if all their texts are
    equal (``tests/test_cache.py``; the compiled framing equals the Python one,
    ``tests/test_native.py``). The public functions hash every corpus they are given.
    """
    digest = hashlib.sha256(b"bleu-harness corpus 2\x00")
    digest.update(len(corpus.ids).to_bytes(8, "little"))
    digest.update(np.fromiter(map(len, corpus.references), "<i8").tobytes())
    kernels = native.module()  # lengths and UTF-8 in one C pass
    framed = (
        kernels.framing((corpus.ids, corpus.hypotheses, *corpus.references)) if kernels else None
    )
    if framed is None:  # no kernels, or a lone surrogate (passed through)
        texts = [*corpus.ids, *corpus.hypotheses, *itertools.chain.from_iterable(corpus.references)]
        framed = (
            np.fromiter(map(len, texts), "<i8").tobytes(),
            "".join(texts).encode("utf-8", "surrogatepass"),
        )
    digest.update(framed[0])
    digest.update(framed[1])
    return digest.hexdigest()


def _dist_version(name: str) -> str:
    from importlib import metadata  # slow to import: not at startup

    with contextlib.suppress(metadata.PackageNotFoundError):
        return metadata.version(name)
    return "absent"


@lru_cache(maxsize=64)
def _dependencies(distributions: tuple[str, ...]) -> str:
    """Versions of what a tokenizer's output depends on besides the engine's own code: Python's
    Unicode database, then each of ``distributions``."""
    parts = [f"unicode:{unicodedata.unidata_version}"]
    parts += [f"{name}:{_dist_version(name)}" for name in distributions]
    return "|".join(parts)


def tokenizer_signature(config: BleuConfig, *, per_ref: bool | None = None) -> str:
    """Tokenizer and case (:func:`harness.bleu.engine.tokenization_key`, ``per_ref`` passed on)
    plus the versions the tokens depend on: the Unicode database and the distributions of the
    tokenizer's registry entry (``regex`` for ``intl``, MeCab and its dictionary, ...), and the
    entry's ``revision`` when it has one."""
    spec = REGISTRY[config.tokenize]
    key = engine.tokenization_key(config, per_ref=per_ref)
    signature = f"{key}|{_dependencies(spec.distributions)}"
    return f"{signature}|rev:{spec.revision}" if spec.revision else signature


def tokenization_groups(
    configs: Iterable[BleuConfig], *, min_order: int = 1
) -> list[tuple[BleuConfig, int]]:
    """Configs grouped by tokenization: ``(representative, order)`` per :func:`tokenizer_signature`.

    ``order`` is the highest :func:`harness.bleu.engine.orders_needed` of the group's configs
    (at least ``min_order``): statistics counted once at that order serve every config of the
    group. Groups are in order of first appearance; the representative is the first config.
    """
    groups: dict[str, tuple[BleuConfig, int]] = {}
    for cfg in configs:
        sig = tokenizer_signature(cfg)
        rep, order = groups.get(sig, (cfg, min_order))
        groups[sig] = (rep, max(order, engine.orders_needed(cfg)))
    return list(groups.values())


# ====================================================================== the cache
@dataclass
class CacheStats:
    """Counters of one cache: ``hits`` (memory), ``disk_hits``, ``computed``, ``corrupt``."""

    hits: int = 0
    disk_hits: int = 0
    computed: int = 0
    corrupt: int = 0


def _default_compute(corpus: Corpus, config: BleuConfig, *, max_order: int) -> Statistics:
    return engine.compute_statistics(corpus, config, max_order=max_order)


def _frozen(stats: Statistics) -> Statistics:
    """Make the arrays of a cached value read-only, so no caller can change it for others."""
    stats.hyp_len.setflags(write=False)
    stats.matches.setflags(write=False)
    if stats.ref_matches is not None:
        stats.ref_matches.setflags(write=False)
    return stats


class StatisticsCache:
    """Statistics keyed by (content hash, tokenizer signature, engine version); order-aware.

    ``directory``: also read and write ``.npz`` files there (``None``: memory only).
    ``enabled=False`` (or :meth:`disabled`): every call computes, nothing is kept.
    ``compute``: how missing statistics are computed, ``compute(corpus, config,
    max_order=n)`` (default :func:`harness.bleu.engine.compute_statistics`; e.g.
    ``functools.partial(harness.session.parallel.compute_statistics_parallel, jobs=2)``).
    ``max_entries``, ``max_bytes``: keep at most this many entries, of about this much memory
    together (:meth:`Statistics.approx_bytes`), dropping the least recently used (the newest entry is
    always kept; ``None``: no bound, a run's cache holds what the run needs).
    ``disk_max_bytes``: the bound of ``directory`` (default ``$BLEU_HARNESS_CACHE_MAX_MB``,
    :func:`harness.session.disk.default_max_bytes`).

    Returned arrays are read-only: they are shared by every caller that asks for the same key.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        enabled: bool = True,
        compute: ComputeFn | None = None,
        max_entries: int | None = None,
        max_bytes: int | None = None,
        disk_max_bytes: int | None = None,
    ) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else None
        self._bound = (
            None
            if self.directory is None
            else Bound(
                self.directory,
                default_max_bytes() if disk_max_bytes is None else disk_max_bytes,
                (".npz",),
            )
        )
        self.enabled = enabled
        self.compute = compute or _default_compute
        if max_entries is not None and max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._bytes = 0
        self.stats = CacheStats()
        self._memory: dict[tuple[str, str, str], Statistics] = {}
        self._digests: dict[int, tuple[weakref.ref[Corpus], str]] = {}
        self._write_failed = False  # a disk write failed: write no more (see _save)

    @classmethod
    def disabled(cls, *, compute: ComputeFn | None = None) -> StatisticsCache:
        """A cache that never stores or reads anything (``--no-cache``)."""
        return cls(None, enabled=False, compute=compute)

    def __len__(self) -> int:
        return len(self._memory)

    def __repr__(self) -> str:
        where = f"disk={str(self.directory)!r}" if self.directory else "memory"
        state = "" if self.enabled else ", disabled"
        return f"StatisticsCache({where}{state}, entries={len(self)}, {self.stats})"

    def clear(self, *, disk: bool = False) -> None:
        """Forget the in-memory entries; with ``disk=True`` also delete this cache's files."""
        self._memory.clear()
        self._bytes = 0
        self._digests.clear()
        if disk and self.directory is not None and self.directory.is_dir():
            for path in self.directory.glob("*.npz"):
                path.unlink(missing_ok=True)

    # ------------------------------------------------------------------ keys
    def digest(self, corpus: Corpus) -> str:
        """:func:`content_hash` of ``corpus``, remembered per object (corpora are frozen)."""
        entry = self._digests.get(id(corpus))
        if entry is not None and entry[0]() is corpus:
            return entry[1]
        value = content_hash(corpus)
        key = id(corpus)
        digests = self._digests

        def forget(ref: weakref.ref[Corpus]) -> None:  # the corpus is gone: its id may recur
            if digests.get(key, (None,))[0] is ref:
                del digests[key]

        self._digests[key] = (weakref.ref(corpus, forget), value)
        return value

    def key(self, corpus: Corpus, config: BleuConfig) -> tuple[str, str, str]:
        """(content hash, tokenizer signature, engine version): what the statistics depend on."""
        return (self.digest(corpus), tokenizer_signature(config), _config.ENGINE_VERSION)

    @staticmethod
    def file_name(key: tuple[str, str, str]) -> str:
        """``<sha256 of the key parts and FORMAT_VERSION>.npz``."""
        h = hashlib.sha256()
        for part in (*key, f"format:{FORMAT_VERSION}"):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest() + ".npz"

    def path_for(self, corpus: Corpus, config: BleuConfig) -> Path | None:
        """Where the disk entry of ``corpus`` under ``config`` lives (``None``: no disk)."""
        if self.directory is None:
            return None
        return self.directory / self.file_name(self.key(corpus, config))

    # ------------------------------------------------------------------ slicing
    @staticmethod
    def at_order(stats: Statistics, max_order: int) -> Statistics:
        """``stats`` restricted to orders 1..``max_order`` (``matches[:, :max_order]``).

        Clipped matches of order n do not depend on which other orders were counted, so the
        result equals counting at ``max_order`` directly.
        """
        if max_order > stats.max_order:
            raise ValueError(f"statistics hold orders 1..{stats.max_order}, not {max_order}")
        return stats.at_order(max_order)

    # ------------------------------------------------------------------ lookup
    def lookup(
        self, corpus: Corpus, config: BleuConfig, *, max_order: int, use_disk: bool = True
    ) -> Statistics | None:
        """The cached statistics at ``max_order`` (memory, then disk), or ``None``."""
        if not self.enabled:
            return None
        key = self.key(corpus, config)
        hit = self._memory.get(key)
        if hit is not None and hit.max_order >= max_order:
            self.stats.hits += 1
            if self.max_entries is not None:  # most recently used last
                self._memory[key] = self._memory.pop(key)
            return self.at_order(hit, max_order)
        if use_disk and self.directory is not None:
            loaded = self._load(self.directory / self.file_name(key), key, corpus)
            if loaded is not None and loaded.max_order >= max_order:
                self.stats.disk_hits += 1
                self._remember(key, loaded)
                return self.at_order(loaded, max_order)
        return self._from_per_reference(corpus, config, max_order)

    def _from_per_reference(
        self, corpus: Corpus, config: BleuConfig, max_order: int
    ) -> Statistics | None:
        """The statistics of ``config`` read from a kept entry of the same tokenization that
        also counts each reference alone (``best-ref-mean``'s): everything but those
        per-reference matches is the same count (``None`` when there is no such entry)."""
        if engine.needs_ref_matches(config):
            return None
        twin_key = (
            self.digest(corpus),
            tokenizer_signature(config, per_ref=True),
            _config.ENGINE_VERSION,
        )
        twin = self._memory.get(twin_key)
        if twin is None or twin.max_order < max_order:
            return None
        self.stats.hits += 1
        plain = dataclasses.replace(
            twin, ref_matches=None, tokenization=engine.tokenization_key(config)
        )
        return self.at_order(plain, max_order)

    def store(
        self, corpus: Corpus, config: BleuConfig, stats: Statistics, *, use_disk: bool = True
    ) -> None:
        """Keep ``stats`` (of ``corpus`` under ``config``) unless a higher order is kept."""
        if not self.enabled:
            return
        if stats.tokenization != engine.tokenization_key(config) or stats.ids != corpus.ids:
            raise LayoutError(
                "statistics do not belong to this corpus and tokenization",
                what="StatisticsCache.store",
                expected=engine.tokenization_key(config),
                got=stats.tokenization,
            )
        key = self.key(corpus, config)
        old = self._memory.get(key)
        if old is not None and old.max_order >= stats.max_order:
            return
        self._remember(key, _frozen(stats))
        if use_disk and self.directory is not None and not self._write_failed:
            self._save(self.directory / self.file_name(key), key, stats)

    def _remember(self, key: tuple[str, str, str], stats: Statistics) -> None:
        """Keep ``stats`` as the most recent entry, dropping the least recently used beyond
        ``max_entries``."""
        old = self._memory.pop(key, None)
        if old is not None:
            self._bytes -= old.approx_bytes()
        self._memory[key] = stats
        self._bytes += stats.approx_bytes()
        while len(self._memory) > 1 and (
            (self.max_entries is not None and len(self._memory) > self.max_entries)
            or (self.max_bytes is not None and self._bytes > self.max_bytes)
        ):
            self._bytes -= self._memory.pop(next(iter(self._memory))).approx_bytes()

    def get(
        self,
        corpus: Corpus,
        config: BleuConfig,
        *,
        max_order: int | None = None,
        use_disk: bool = True,
    ) -> Statistics:
        """The statistics of ``corpus`` under ``config`` (cached, or computed and cached).

        ``max_order`` defaults to :func:`harness.bleu.engine.orders_needed`; ``use_disk=False``
        skips the disk layer for this call.
        """
        order = max_order or engine.orders_needed(config)
        if not self.enabled:
            self.stats.computed += 1
            return self.compute(corpus, config, max_order=order)
        hit = self.lookup(corpus, config, max_order=order, use_disk=use_disk)
        if hit is not None:
            return hit
        stats = self.compute(corpus, config, max_order=order)
        self.stats.computed += 1
        self.store(corpus, config, stats, use_disk=use_disk)
        return self.at_order(self._memory[self.key(corpus, config)], order)

    def warm(
        self,
        corpora: Iterable[Corpus],
        configs: Iterable[BleuConfig],
        *,
        workers: parallel.Workers = parallel.SERIAL,
        use_disk: bool = True,
        min_order: int = 1,
        progress: ProgressCallback | None = None,
        stage: str = "statistics",
    ) -> int:
        """Compute every missing (corpus, tokenization) of a run at once; return how many.

        Configs are grouped by :func:`tokenization_groups` (counted to the highest order any
        of them needs, at least ``min_order``); the missing corpora of each group go to
        :func:`harness.session.parallel.map_statistics` on ``workers`` (``serial``,
        ``processes`` with ``jobs`` workers, or ``dask``). This is where many systems are
        scored in parallel; later :meth:`get` calls are hits. A group whose counting fails
        (e.g. an unavailable tokenizer) is skipped: :meth:`get` raises its error per call.
        ``progress`` is told of each tokenization group done, under ``stage``.
        """
        if not self.enabled:
            return 0
        groups = tokenization_groups(configs, min_order=min_order)
        with contextlib.ExitStack() as stack:
            return self._warm_groups(
                stack,
                list(corpora),
                track(groups, progress, stage),
                workers,
                use_disk,
            )

    def _warm_groups(
        self,
        stack: contextlib.ExitStack,
        corpora: list[Corpus],
        groups: Iterable[tuple[BleuConfig, int]],
        workers: parallel.Workers,
        use_disk: bool,
    ) -> int:
        pool = None  # one pool for every tokenization group, started only if needed
        if workers.backend == "dask" and workers.client is None:
            # one cluster for all
            cluster = stack.enter_context(parallel.dask_session(None))
            workers = dataclasses.replace(workers, client=cluster)
        done = 0
        for rep, order in groups:
            todo = [corpora[i] for i in self.missing(corpora, rep, order, use_disk=use_disk)]
            if not todo:
                continue
            if (
                pool is None
                and workers.backend == "processes"
                and parallel.resolve_jobs(workers.jobs) > 1
            ):
                pool = stack.enter_context(parallel.process_pool(workers.jobs))
            try:
                results = parallel.map_statistics(
                    todo,
                    rep,
                    workers=workers,
                    max_order=order,
                    executor=pool,
                )
            except HarnessError:
                continue  # e.g. a tokenizer that is unavailable: get() will raise it per call
            for c, s in zip(todo, results, strict=True):
                self.stats.computed += 1
                self.store(c, rep, s, use_disk=use_disk)
            done += len(todo)
        return done

    def missing(
        self, corpora: Sequence[Corpus], config: BleuConfig, order: int, *, use_disk: bool = True
    ) -> list[int]:
        """Which of ``corpora`` (indices, each content once) the cache holds no statistics of
        under ``config``'s tokenization at ``order``, in memory or on disk."""
        out = []
        seen: set[tuple[str, str, str]] = set()
        for i, c in enumerate(corpora):
            key = self.key(c, config)
            if key not in seen:
                seen.add(key)
                if self.lookup(c, config, max_order=order, use_disk=use_disk) is None:
                    out.append(i)
        return out

    # ------------------------------------------------------------------ disk
    def prune(self) -> int:
        """Trim the directory to its bound now (it is trimmed after writes anyway); the number
        of entries deleted."""
        return 0 if self._bound is None else self._bound.trim()

    def _load(self, path: Path, key: tuple[str, str, str], corpus: Corpus) -> Statistics | None:
        if not path.exists():
            return None
        try:
            stats = read_npz(path, key, len(corpus), corpus.ids)
        except Exception as exc:  # any unreadable file is a miss, never a crash
            self.stats.corrupt += 1
            warnings.warn(
                f"statistics cache file {path} is unreadable or inconsistent "
                f"({type(exc).__name__}: {exc}); recomputing and overwriting it",
                CacheWarning,
                stacklevel=4,
            )
            return None
        touch(path)  # recently used: pruned last
        return _frozen(stats)

    def _save(self, path: Path, key: tuple[str, str, str], stats: Statistics) -> None:
        try:
            size = write_npz(path, key, stats)
        except OSError as exc:
            self._write_failed = True  # a full disk stays full for the run: said once, no more
            why = f"{path} ({exc}); continuing without writing the disk cache for this run"
            warnings.warn(f"cannot write statistics cache file {why}", CacheWarning, stacklevel=4)
            return
        if self._bound is not None:
            self._bound.wrote(size)


# ====================================================================== convenience
def get_statistics(
    corpus: Corpus,
    config: BleuConfig,
    *,
    cache: StatisticsCache | None = None,
    use_disk: bool = True,
    max_order: int | None = None,
) -> Statistics:
    """Statistics of ``corpus`` under ``config`` through a cache.

    With ``cache=None``: the disk cache in :func:`default_cache_dir` when ``use_disk`` (no
    memory kept between calls), else a plain computation. With a cache: that cache, skipping
    its disk layer for this call when ``use_disk=False``.
    """
    if cache is None:
        cache = StatisticsCache(default_cache_dir() if use_disk else None)
    return cache.get(corpus, config, max_order=max_order, use_disk=use_disk)
