"""The comparison runner: corpora × implementations × levels → the results table.

A command or a notebook states the run once as a :class:`~harness.run.plan.RunPlan`,
whose ``run()`` calls :func:`run`; the table is a typed
:class:`~harness.run.results.Results`.

One row per (fixture, system, implementation, config, level, segment). An implementation is
either an in-house profile (``profile:NAME``, computed by the engine) or a real library
(``adapter:NAME``); both are scorers of :mod:`harness.scorers`, run through its one path
:func:`harness.scorers.score`. Nothing is dropped silently: an implementation that is
unavailable, cannot express the setting, or whose library raises on the input gets a row with
``status`` saying so (:data:`harness.scorers.STATUSES`) and ``error`` saying why.

Its rows have the fields of :class:`~harness.run.results.ResultRow` (``ROW_FIELDS``) and
are written as JSONL and CSV; both load with ``pandas.read_json(path, lines=True)`` /
``pandas.read_csv(path)``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness import progress as _progress
from harness.bleu import engine
from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback
from harness.run.library_sample import sampled, segment_sample
from harness.run.results import ROW_FIELDS, Results, segment_block
from harness.scorers import (
    ADAPTERS,
    DEFAULT_ADAPTERS,
    Adapter,
    EngineScorer,
    Outcome,
    Scorer,
    distributions,
    get_adapter,
    score,
    tolerance,
)
from harness.scorers.outcome import LEVELS
from harness.session import parallel
from harness.session.ahead import CountAhead, share
from harness.session.cache import StatisticsCache
from harness.session.results import ResultsCache, code_fingerprint, library_versions


@dataclass(frozen=True)
class Implementation:
    """One column of a comparison: an in-house profile or a real library adapter."""

    kind: str  # "profile" or "adapter"
    name: str

    @property
    def label(self) -> str:
        return f"harness:{self.name}" if self.kind == "profile" else self.name

    @classmethod
    def parse(cls, spec: str) -> Implementation:
        """``profile:NAME``, ``adapter:NAME``, or a bare profile name."""
        kind, _, name = spec.partition(":")
        if not name:
            kind, name = "profile", spec
        if kind not in ("profile", "adapter"):
            raise ConfigError(f"unknown implementation kind {kind!r}", valid=("profile", "adapter"))
        if kind == "profile" and name not in PROFILES:
            raise ConfigError(f"unknown profile {name!r}", valid=sorted(PROFILES))
        if kind == "adapter" and name not in ADAPTERS:
            raise ConfigError(f"unknown adapter {name!r}", valid=sorted(ADAPTERS))
        return cls(kind, name)


def default_implementations() -> list[Implementation]:
    """Every default profile (:data:`harness.bleu.profiles.DEFAULT_PROFILES`) and every adapter
    ``compare`` runs by default (:data:`harness.scorers.DEFAULT_ADAPTERS`)."""
    return [Implementation("profile", p) for p in DEFAULT_PROFILES] + [
        Implementation("adapter", a) for a in DEFAULT_ADAPTERS
    ]


def _samplable(impl: Implementation) -> bool:
    """Whether a library's segment scores can be taken on a sample of a corpus: not when
    its profile numbers words over the whole corpus (fairseq), where a segment's score
    depends on the segments around it."""
    cls = ADAPTERS.get(impl.name)
    name = getattr(cls, "profile", None)
    return name is None or name not in PROFILES or not engine.counts_whole_corpus(PROFILES[name])


def _finite(x: float | None) -> float | None:
    """``None`` for a statistic a library does not expose (``nan``) or reports as infinite
    (bleuscore's ratio when the reference length is 0), so the JSON stays valid."""
    return None if x is None or not math.isfinite(x) else x


def _row(
    fixture: str,
    system: str,
    impl: Implementation,
    level: str,
    *,
    result: BleuResult | None = None,
    status: str = "ok",
    error: str = "",
    signature: str = "",
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    row.update(
        fixture=fixture,
        system=system,
        implementation=impl.label,
        kind=impl.kind,
        config=impl.name,
        level=level,
        status=status,
        error=error,
        signature=signature,
    )
    if result is not None:
        row.update(
            segment_id=result.segment_id,
            score=result.score,
            bp=_finite(result.bp),
            ratio=_finite(result.ratio),
            hyp_len=result.hyp_len,
            ref_len=result.ref_len,
            counts=" ".join(map(str, result.counts)) if result.counts is not None else None,
            totals=" ".join(map(str, result.totals)) if result.totals is not None else None,
            signature=result.signature,
            call=result.call,
            module_source=result.extra.get("module_source"),
        )
        if not math.isfinite(result.score):  # no number: the status and the value say why
            row.update(score=None, status="non-finite", error=repr(result.score))
    return row


def _rows(
    fixture: str, system: str, impl: Implementation, level: str, outcome: Outcome
) -> list[dict[str, Any]]:
    """The rows of one outcome: one per result, or one saying why there is none. A failed
    in-house profile keeps the signature of the variant it computed; a library that could not
    run or raised has no result to sign."""
    if outcome.results:
        return [_row(fixture, system, impl, level, result=r) for r in outcome.results]
    return [
        _row(
            fixture,
            system,
            impl,
            level,
            status=outcome.status,
            error=outcome.message,
            signature=outcome.signature if impl.kind == "profile" else "",
        )
    ]


def scorer_for(
    impl: Implementation,
    *,
    adapter_cache: dict[str, Any] | None = None,
    stats_cache: StatisticsCache | None = None,
) -> Scorer:
    """The scorer of ``impl``: the engine with the profile (statistics from ``stats_cache``
    when given), or the library adapter (built once per ``adapter_cache``)."""
    if impl.kind == "profile":
        statistics = stats_cache.get if stats_cache is not None else None
        return EngineScorer(impl.name, name=impl.label, statistics=statistics)
    cache = adapter_cache if adapter_cache is not None else {}
    if impl.name not in cache:
        cache[impl.name] = get_adapter(impl.name)
    adapter: Scorer = cache[impl.name]
    return adapter


def run_one(
    corpus: Corpus,
    impl: Implementation,
    *,
    fixture: str,
    system: str,
    levels: Sequence[str] = ("corpus",),
    adapter_cache: dict[str, Any] | None = None,
    stats_cache: StatisticsCache | None = None,
    segments: Sequence[int] | None = None,
) -> Results:
    """The rows of one implementation on one corpus, for each requested level
    (:func:`harness.scorers.score` for each level; an in-house profile's segment scores come
    straight from the engine's arrays, the rows the same).

    ``stats_cache`` shares statistics between profiles of the same tokenization (and, with a
    directory, across runs). ``segments`` (a library only): the segments it is run on at
    segment level (:func:`segment_sample`; ``None``: every one); its corpus row is then its
    own corpus-level call on the whole corpus.
    """
    scorer = scorer_for(impl, adapter_cache=adapter_cache, stats_cache=stats_cache)
    outcomes: dict[str, Outcome] = {}
    if segments is not None and isinstance(scorer, Adapter) and "segment" in levels:
        outcomes = sampled(scorer, corpus, levels, segments)
    elif isinstance(scorer, Adapter) and {"corpus", "segment"} <= set(levels):
        # A library whose corpus score is the mean of its segment scores is run once: the
        # corpus row is built from the segment results, as the adapter itself would build it.
        every = outcomes["segment"] = score(scorer, corpus, level="segment")
        if every.status == "ok":
            derived = scorer.corpus_from_segments(every.results, scorer.default_config())
            if derived is not None:
                outcomes["corpus"] = Outcome.scored([derived])
    parts: list[Results | list[dict[str, Any]]] = []
    for level in levels:
        if level == "segment" and isinstance(scorer, EngineScorer):
            block = _engine_segments(scorer, corpus, fixture, system, impl)
            if block is not None:
                parts.append(block)
                continue
        outcome = outcomes[level] if level in outcomes else score(scorer, corpus, level=level)
        parts.append(_rows(fixture, system, impl, level, outcome))
    return Results.concat(parts)


def _engine_segments(
    scorer: EngineScorer, corpus: Corpus, fixture: str, system: str, impl: Implementation
) -> Results | None:
    """A profile's segment rows from the engine's arrays (no result object per segment);
    ``None`` where :func:`harness.scorers.score` says why there is no score (a refusal, a
    setting the engine refuses), so that the row saying so is written as for any scorer."""
    try:
        stats, arrays = scorer.segment_arrays(corpus)
    except HarnessError:
        return None
    if not len(stats):
        return None
    config = scorer.default_config()
    return segment_block(
        fixture=fixture,
        system=system,
        implementation=impl.label,
        config=impl.name,
        signature=config.signature(),
        segment_ids=stats.ids,
        score=arrays.score,
        bp=arrays.bp,
        ratio=arrays.ratio,
        hyp_len=stats.hyp_len.tolist(),
        ref_len=engine.reference_lengths(arrays, config),
        counts=arrays.counts,
        totals=arrays.totals,
    )


def run(
    corpora: Iterable[tuple[str, str, Corpus]],
    implementations: Sequence[Implementation],
    *,
    levels: Sequence[str] = ("corpus",),
    progress: bool | ProgressCallback | None = None,
    cache: StatisticsCache | None = None,
    results: ResultsCache | None = None,
    backend: str = "serial",
    jobs: int = 1,
    client: Any = None,
    library_segments: int | None = None,
    seed: int = 0,
    prefetch: Sequence[BleuConfig] = (),
) -> Results:
    """Run every implementation on every ``(fixture, system, corpus)``; return the rows
    (:class:`~harness.run.results.Results`).

    ``progress`` shows a tqdm bar on stderr (``True``; default ``None``: when stderr is a
    terminal) or is a :data:`~harness.progress.ProgressCallback` told of each finished
    (corpus, implementation) run under the stage ``"compare"``. ``cache``
    (default: a fresh in-memory :class:`~harness.session.cache.StatisticsCache`) lets every profile
    with the same tokenization reuse one set of statistics. ``results`` (default: none) keeps
    the real libraries' rows on disk, so a library already run on the same corpus with the
    same versions is not called again (:mod:`harness.session.results`).

    A library on one corpus is one task: ``backend`` ``"processes"`` runs the tasks in
    ``jobs`` worker processes and ``"dask"`` on the cluster of ``client`` (default the current
    client, else a private local cluster), while the engine scores here; statistics are then
    also computed up front in parallel. The rows, their order and their numbers are identical
    to the serial ones. A library's corpus row is derived from its segment run when both
    levels are asked for, so a task covers every level of its (library, corpus).

    ``library_segments``: run each real library at segment level on that many segments of
    each corpus only (:func:`segment_sample` with ``seed``; its corpus row from its own
    corpus-level call on every segment); the profiles, proven equal to their libraries, give
    every segment. ``None``: the libraries score every segment too. ``prefetch``: more
    configurations to count up front with the profiles' (what the analysis reads next).
    """
    for lv in levels:
        if lv not in LEVELS:
            raise ConfigError(f"unknown level {lv!r}", valid=LEVELS)
    if backend not in ("serial", "processes", "dask"):
        raise ConfigError(f"unknown backend {backend!r}", valid=("serial", "processes", "dask"))
    corpora = list(corpora)
    cache = cache if cache is not None else StatisticsCache()
    results = results if results is not None else ResultsCache.disabled()
    levels = tuple(levels)
    work = [(f, s, c, impl) for (f, s, c) in corpora for impl in implementations]
    adapters: dict[str, Any] = {}
    keys: dict[int, dict[str, Any]] = {}
    ready: dict[int, Sequence[dict[str, Any]]] = {}

    def sample(corpus: Corpus, impl: Implementation) -> tuple[int, ...] | None:
        if impl.kind != "adapter" or "segment" not in levels or not _samplable(impl):
            return None
        return segment_sample(len(corpus), library_segments, seed)

    for k, (fixture, system, corpus, impl) in enumerate(work):
        if impl.kind == "adapter" and results.enabled:
            key = _results_key(impl, corpus, levels, adapters, cache, sample(corpus, impl))
            if key is not None:
                keys[k] = key
                hit = results.get(key, _STORED)
                if hit is not None:
                    ready[k] = [_restore(r, fixture, system) for r in hit]
    misses = [
        k for k, (_, _, _, impl) in enumerate(work) if impl.kind == "adapter" and k not in ready
    ]
    configs = [PROFILES[i.name] for i in implementations if i.kind == "profile"]
    callback = progress if callable(progress) else _progress.resolve(progress)
    iterator: Iterable[Any] = _progress.track(work, callback, "compare")
    parts: list[Results | Sequence[dict[str, Any]]] = []
    with contextlib.ExitStack() as stack:
        # The libraries run in the workers while the engine counts and scores here; rows keep
        # work order.
        submit = _submitter(stack, backend, jobs, client, len(misses)) if misses else None
        pending: dict[int, Any] = {}
        if submit is not None:
            for k in misses:
                fixture, system, corpus, impl = work[k]
                pending[k] = submit(
                    _adapter_rows, corpus, impl, fixture, system, levels, sample(corpus, impl)
                )
        # Counted one tokenization at a time over every corpus (in the workers, or here): the
        # systems share the references and most words, so each tokenization's vocabulary is
        # learned once, while system by system the vocabularies of many tokenizations would
        # not all stay in memory at once and each system would tokenize its words again.
        # With a pool, workers free after the libraries count shares of them meanwhile.
        texts, counted, ahead = [c for _, _, c in corpora], [*configs, *prefetch], []
        if submit is not None and backend == "processes":
            tasks, counted = share(counted)
            ahead = [CountAhead(cache, texts, task, submit=submit) for task in tasks]
        cache.warm(texts, counted, workers=parallel.Workers(backend, jobs, client))
        for task in ahead:
            task.finish()
        for k, (fixture, system, corpus, impl) in enumerate(iterator):
            if k in ready:
                new = ready.pop(k)
            else:
                if k in pending:
                    new, where = pending.pop(k).result()
                    _same_environment(impl, where, adapters)
                else:
                    new = run_one(
                        corpus,
                        impl,
                        fixture=fixture,
                        system=system,
                        levels=levels,
                        adapter_cache=adapters,
                        stats_cache=cache,
                        segments=sample(corpus, impl),
                    )
                if k in keys:
                    results.put(keys[k], [_strip(r) for r in new])
            parts.append(new)
    return Results.concat(parts)


def _submitter(
    stack: contextlib.ExitStack, backend: str, jobs: int, client: Any, tasks: int
) -> Callable[..., Any] | None:
    """``submit(fn, *args)`` returning a future on the backend's workers, or ``None`` to run
    the libraries here (serial, or a single process)."""
    if backend == "dask":
        dask_client = stack.enter_context(parallel.dask_session(client))

        def on_dask(fn: Callable[..., Any], *args: Any) -> Any:
            return dask_client.submit(fn, *args, pure=False)

        return on_dask
    if backend == "processes" and parallel.resolve_jobs(jobs) > 1:
        # left by an error or an interruption, the pool kills its workers at once
        pool = stack.enter_context(parallel.process_pool(jobs, tasks))
        return pool.submit
    return None


def _results_key(
    impl: Implementation,
    corpus: Corpus,
    levels: tuple[str, ...],
    adapters: dict[str, Any],
    cache: StatisticsCache,
    segments: tuple[int, ...] | None = None,
) -> dict[str, Any] | None:
    """The results-cache key of a library on ``corpus``, or ``None`` when it is not cached
    (an external command; an adapter whose fingerprint cannot be taken here, e.g. an
    ``evaluate`` module that does not load — it is then run, and reports why)."""
    adapter = scorer_for(impl, adapter_cache=adapters)
    take = getattr(adapter, "cache_fingerprint", None)
    try:
        fingerprint = None if take is None else take()
        if fingerprint is None:
            return None
        return ResultsCache.key(
            adapter.name,
            fingerprint,
            repr(adapter.default_config()),
            levels,
            cache.digest(corpus),
            tuple(distributions()),
            segments,
        )
    except HarnessError:
        return None


#: The fields a results-cache entry leaves out: the names the caller gives the corpus.
_NAMES = ("fixture", "system")


_STORED = tuple(k for k in ROW_FIELDS if k not in _NAMES)


def _strip(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row.get(k) for k in _STORED}


def _restore(row: dict[str, Any], fixture: str, system: str) -> dict[str, Any]:
    names = {"fixture": fixture, "system": system}
    return {k: names[k] if k in names else row[k] for k in ROW_FIELDS}


#: A worker process's adapters, built once per worker (:func:`_adapter_rows`).
_WORKER_ADAPTERS: dict[str, Any] = {}


def _adapter_rows(
    corpus: Corpus,
    impl: Implementation,
    fixture: str,
    system: str,
    levels: tuple[str, ...],
    segments: tuple[int, ...] | None = None,
) -> tuple[list[dict[str, Any]], tuple[Any, ...]]:
    """:func:`run_one` of a library adapter in a worker (its rows as dicts, which travel
    back to the caller), with the worker's
    :func:`_environment` for that library."""
    rows = run_one(
        corpus,
        impl,
        fixture=fixture,
        system=system,
        levels=levels,
        adapter_cache=_WORKER_ADAPTERS,
        segments=segments,
    )
    return rows.rows(), _environment(impl, _WORKER_ADAPTERS)


def _environment(impl: Implementation, adapters: dict[str, Any]) -> tuple[Any, ...]:
    """What a library's rows depend on besides its input, where they are computed: the
    harness code, the installed library versions and the adapter's fingerprint."""
    adapter = scorer_for(impl, adapter_cache=adapters)
    try:
        fingerprint = adapter.cache_fingerprint()  # type: ignore[attr-defined]
    except HarnessError:  # e.g. no evaluate module there: the rows say so, and why
        # the reason's wording (a cache path) may differ between processes that both lack the
        # library; their rows are "unavailable" alike
        fingerprint = "unavailable"
    return (code_fingerprint(), library_versions(tuple(distributions())), fingerprint)


def _same_environment(
    impl: Implementation, where: tuple[Any, ...], adapters: dict[str, Any]
) -> None:
    """Refuse rows a worker computed with other code or library versions than this process
    has: they would be mixed with this process's rows, and cached under its versions."""
    here = _environment(impl, adapters)
    if where == here:
        return
    what = []
    if where[0] != here[0]:
        what.append("another version of the harness code")
    theirs, ours = dict(where[1]), dict(here[1])
    what += [
        f"{d} {theirs.get(d)} (here {ours.get(d)})"
        for d in sorted(ours)
        if theirs.get(d) != ours.get(d)
    ]
    if where[2] != here[2]:
        what.append(f"another {impl.name} set-up ({where[2]!s:.80})")
    raise ConfigError(
        f"a worker ran {impl.label} with {'; '.join(what)}: install the same versions on every "
        "worker (and set the same BLEU_HARNESS_* variables) so its numbers equal this machine's"
    )


# ---------------------------------------------------------------------- output
def rows_to_jsonl(rows: Iterable[dict[str, Any]]) -> str:
    """JSON Lines, one row per line, fields in ``ROW_FIELDS`` order."""
    return "".join(
        json.dumps({k: r.get(k) for k in ROW_FIELDS}, ensure_ascii=False, allow_nan=False) + "\n"
        for r in rows
    )


def rows_to_csv(rows: Iterable[dict[str, Any]]) -> str:
    """CSV with a header of ``ROW_FIELDS``; floats written with full precision (repr)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=ROW_FIELDS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(
            {
                k: ("" if r.get(k) is None else repr(r[k]) if isinstance(r.get(k), float) else r[k])
                for k in ROW_FIELDS
            }
        )
    return buf.getvalue()


def _fmt_score(score: float, width: int) -> str:
    """Fixed decimals, except tiny positive scores (nltk's 1e-76 "zeros"), shown as such."""
    if 0 < score < 0.5 * 10**-width:
        return f"{score:.1e}"
    return f"{score:.{width}f}"


def summary_table(
    rows: Sequence[dict[str, Any]],
    *,
    width: int = 2,
    labels: Mapping[str, str] | None = None,
    annotate: Callable[[dict[str, Any]], str] | None = None,
) -> str:
    """A console table of corpus-level scores: one line per (fixture, system), one column per
    implementation; ``raises``/``n/a``/``unsupp``/``ERR`` where there is no number.

    ``labels`` renames columns (implementation → header); ``annotate`` returns a suffix for a
    cell (e.g. a mark saying whether a library equals its profile).
    """
    corpus_rows = [r for r in rows if r["level"] == "corpus"]
    impls: list[str] = []
    keys: list[tuple[str, str]] = []
    cell: dict[tuple[str, str, str], str] = {}
    short = {
        "raises": "raises",
        "refused": "refused",
        "unavailable": "n/a",
        "unsupported": "unsupp",
        "non-finite": "nan",
        "error": "ERR",
    }
    for r in corpus_rows:
        if r["implementation"] not in impls:
            impls.append(r["implementation"])
        key = (r["fixture"], r["system"])
        if key not in keys:
            keys.append(key)
        val = _fmt_score(r["score"], width) if r["status"] == "ok" else short.get(r["status"], "?")
        if annotate is not None:
            val += annotate(r)
        cell[(key[0], key[1], r["implementation"])] = val
    names = labels or {}
    head = ["fixture/system", *(names.get(i, i) for i in impls)]
    body = [[f"{f}/{s}", *(cell.get((f, s, i), "") for i in impls)] for f, s in keys]
    widths = [max(len(str(x[j])) for x in [head, *body]) for j in range(len(head))]
    lines = [
        "  ".join(
            str(v).rjust(widths[j]) if j else str(v).ljust(widths[j]) for j, v in enumerate(line)
        )
        for line in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def agreement_mark(rows: Sequence[dict[str, Any]]) -> Callable[[dict[str, Any]], str]:
    """An ``annotate`` function for :func:`summary_table`: `` =`` when a library's corpus score
    equals its in-house profile's (within the profile's verification tolerance: 1e-9 BLEU
    points; torchmetrics 1e-4, it computes in float32) on the same fixture and system, `` ≠``
    when it does not, nothing for in-house columns."""
    index = {
        (r["fixture"], r["system"], r["implementation"]): r for r in rows if r["level"] == "corpus"
    }

    def mark(row: dict[str, Any]) -> str:
        name = row["implementation"]
        if row["kind"] != "adapter" or name not in ADAPTERS or not ADAPTERS[name].profile:
            return ""
        twin = index.get((row["fixture"], row["system"], f"harness:{ADAPTERS[name].profile}"))
        if twin is None:
            return ""
        if row["status"] == "ok" and twin["status"] == "ok":
            return " =" if abs(row["score"] - twin["score"]) <= tolerance(name) else " ≠"
        if row["status"] in ("raises", "ok") and twin["status"] in ("raises", "ok"):
            return " =" if row["status"] == twin["status"] else " ≠"
        return ""

    return mark


def versions() -> dict[str, str]:
    """Versions of the engine and of every peer library importable here."""
    from importlib import metadata  # slow to import: not at startup

    out = {"bleu-harness": ENGINE_VERSION, "python": sys.version.split()[0]}
    for dist in (*distributions(), "numpy", "scipy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def elapsed(start: float) -> str:
    """Seconds since ``start`` (from ``time.perf_counter``), formatted."""
    return f"{time.perf_counter() - start:.2f} s"
