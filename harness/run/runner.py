"""The comparison runner: corpora × implementations × levels → the results table.

A command or a notebook states the run once as a :class:`~harness.run.plan.RunPlan` and
calls :func:`run` on it (also :func:`harness.run.run`); the table is a typed
:class:`~harness.run.results.Results`.

One row per (fixture, system, implementation, config, level, segment). An implementation is
either an in-house profile (``profile:NAME``, computed by the engine) or a real library
(``adapter:NAME``); both are scorers of :mod:`harness.scorers`, run through its one path
:func:`harness.scorers.score`. Nothing is dropped silently: an implementation that is
unavailable, cannot express the setting, or whose library raises on the input gets a row with
``status`` saying so (:data:`harness.scorers.STATUSES`) and ``error`` saying why.

Its rows have the fields of :class:`~harness.run.results.ResultRow` (``ROW_FIELDS``) and
are written as JSONL and CSV (:mod:`harness.run.output`); both load with ``pandas.read_json(path, lines=True)`` /
``pandas.read_csv(path)``.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness import progress as _progress
from harness.bleu import engine
from harness.bleu.config import ENGINE_VERSION
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError
from harness.run.library_sample import sampled, segment_sample, system_sample
from harness.run.output import rows_to_csv as rows_to_csv
from harness.run.output import rows_to_jsonl as rows_to_jsonl
from harness.run.results import (
    ROW_FIELDS,
    BlockOwner,
    Kind,
    Level,
    ResultRow,
    Results,
    SegmentArrays,
    Status,
    row_from_json,
    row_to_json,
    segment_block,
)
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
)
from harness.session import parallel
from harness.session.ahead import CountAhead, share
from harness.session.cache import StatisticsCache
from harness.session.results import ResultsCache, code_fingerprint, library_versions

if TYPE_CHECKING:
    from harness.run.plan import RunPlan


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
) -> ResultRow:
    if result is None:
        return ResultRow(
            fixture=fixture,
            system=system,
            implementation=impl.label,
            kind=Kind(impl.kind),
            config=impl.name,
            level=Level(level),
            segment_id=None,
            status=Status(status),
            score=None,
            bp=None,
            ratio=None,
            hyp_len=None,
            ref_len=None,
            counts=None,
            totals=None,
            signature=signature,
            error=error,
            call=None,
            module_source=None,
        )
    finite = math.isfinite(result.score)  # no number: the status and the value say why
    return ResultRow(
        fixture=fixture,
        system=system,
        implementation=impl.label,
        kind=Kind(impl.kind),
        config=impl.name,
        level=Level(level),
        segment_id=result.segment_id,
        status=Status(status) if finite else Status.NON_FINITE,
        score=result.score if finite else None,
        bp=_finite(result.bp),
        ratio=_finite(result.ratio),
        hyp_len=result.hyp_len,
        ref_len=result.ref_len,
        counts=tuple(result.counts) if result.counts is not None else None,
        totals=tuple(result.totals) if result.totals is not None else None,
        signature=result.signature,
        error=error if finite else repr(result.score),
        call=result.call,
        module_source=result.extra.get("module_source"),
    )


def _rows(
    fixture: str, system: str, impl: Implementation, level: str, outcome: Outcome
) -> list[ResultRow]:
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
    directory, across runs). ``segments`` (a library only): the segments it is spot-checked
    on (:func:`segment_sample`; ``None``: every one); in place of its corpus row it then has a
    ``sample`` row, its corpus-level call on those segments (:func:`sampled`).
    """
    scorer = scorer_for(impl, adapter_cache=adapter_cache, stats_cache=stats_cache)
    outcomes: dict[str, Outcome] = {}
    if segments is not None and isinstance(scorer, Adapter):
        outcomes = sampled(scorer, corpus, levels, segments)
    elif isinstance(scorer, Adapter) and {"corpus", "segment"} <= set(levels):
        # A library whose corpus score is the mean of its segment scores is run once: the
        # corpus row is built from the segment results, as the adapter itself would build it.
        every = outcomes["segment"] = score(scorer, corpus, level="segment")
        if every.status == "ok":
            derived = scorer.corpus_from_segments(every.results, scorer.default_config())
            if derived is not None:
                outcomes["corpus"] = Outcome.scored([derived])
    parts: list[Results | list[ResultRow]] = []
    for level in levels:
        if level == "corpus" and "sample" in outcomes:
            parts.append(_rows(fixture, system, impl, "sample", outcomes["sample"]))
            continue
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
    owner = BlockOwner(fixture, system, impl.label, impl.name, config.signature())
    return segment_block(
        owner,
        SegmentArrays(
            segment_ids=stats.ids,
            score=arrays.score,
            bp=arrays.bp,
            ratio=arrays.ratio,
            hyp_len=stats.hyp_len.tolist(),
            ref_len=engine.reference_lengths(arrays, config),
            counts=arrays.counts,
            totals=arrays.totals,
        ),
    )


def run(plan: RunPlan) -> Results:
    """Run ``plan``: every implementation on every ``(fixture, system, corpus)`` at every
    level; return the rows (:class:`~harness.run.results.Results`). The one way a comparison
    runs: commands, notebooks and tests state a :class:`~harness.run.plan.RunPlan` and call
    this.

    The plan's ``progress`` shows a tqdm bar on stderr (``True``; ``None``: when stderr is a
    terminal) or is a :data:`~harness.progress.ProgressCallback` told of each finished
    (corpus, implementation) run under the stage ``"compare"``. Its session's statistics cache
    lets every profile with the same tokenization reuse one set of statistics; its ``results``
    keeps the real libraries' rows on disk, so a library already run on the same corpus with
    the same versions is not called again (:mod:`harness.session.results`).

    A library on one corpus is one task: the session's backend ``"processes"`` runs the tasks
    in its ``jobs`` worker processes and ``"dask"`` on the cluster of its ``client`` (default
    the current client, else a private local cluster), while the engine scores here;
    statistics are then also computed up front in parallel. The rows, their order and their
    numbers are identical to the serial ones. A library's corpus row is derived from its
    segment run when both levels are asked for, so a task covers every level of its
    (library, corpus).

    The plan's ``libraries`` (:class:`~harness.run.library_sample.LibrarySample`) says what
    each real library runs on: the systems of each fixture drawn by :func:`system_sample`
    (a library has no rows on the others) and, on those, the segments drawn by
    :func:`segment_sample`, both with the plan's ``seed``: the library scores them one by one
    and, in place of a corpus row, as a corpus of their own (a ``sample`` row, beside one of
    its profile's on the same segments); the profiles, proven equal to their libraries, give
    every system and segment. ``prefetch``: more
    configurations to count up front with the profiles' (what the analysis reads next: a
    worker that counts one of their tokenizations on every corpus also scores them there,
    :mod:`harness.session.scores`).
    """
    corpora, implementations, levels = plan.corpora, plan.implementations, plan.levels
    progress, results, libraries = plan.progress, plan.results, plan.libraries
    seed, prefetch, cache = plan.seed, plan.prefetch, plan.session.cache
    backend, client = plan.session.backend, plan.session.client
    jobs = plan.session.jobs if plan.session.jobs is not None else 1
    if backend not in ("serial", "processes", "dask"):
        raise ConfigError(f"unknown backend {backend!r}", valid=("serial", "processes", "dask"))
    chosen = _chosen_systems(corpora, libraries.systems, seed)
    work = [
        (f, s, c, impl)
        for (f, s, c) in corpora
        for impl in implementations
        if impl.kind != "adapter" or s in chosen[f]
    ]
    adapters: dict[str, Any] = {}
    keys: dict[int, dict[str, Any]] = {}
    ready: dict[int, Sequence[ResultRow]] = {}

    def sample(corpus: Corpus, impl: Implementation) -> tuple[int, ...] | None:
        if impl.kind != "adapter" or not _samplable(impl):
            return None
        return segment_sample(len(corpus), libraries.segments, seed)

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
    parts: list[Results | Sequence[ResultRow]] = []
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
            # the answer's mixes are scored on every system where their tokenization is
            # counted, so that only a lookup of them is left for after the run
            ahead = [
                CountAhead(cache, texts, task, submit=submit, score=prefetch) for task in tasks
            ]
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
            own = _own_profile(impl, implementations)
            segments = sample(corpus, impl)
            if own is not None and segments is not None and "corpus" in levels:
                outcome = score(scorer_for(own), corpus.subset(segments), level="corpus")
                parts.append(_rows(fixture, system, own, "sample", outcome))
    return Results.concat(parts)


def _own_profile(
    impl: Implementation, implementations: Sequence[Implementation]
) -> Implementation | None:
    """The in-house profile of library ``impl`` among ``implementations`` (the one its
    spot check is compared with), else ``None``."""
    if impl.kind != "adapter":
        return None
    own = Implementation("profile", impl.name)
    return own if own in implementations else None


def _chosen_systems(
    corpora: Sequence[tuple[str, str, Corpus]], size: int | None, seed: int
) -> dict[str, frozenset[str]]:
    """Per fixture, the systems the real libraries run on (:func:`system_sample`)."""
    systems: dict[str, list[str]] = {}
    for fixture, system, _ in corpora:
        systems.setdefault(fixture, []).append(system)
    return {f: system_sample(names, size, seed) for f, names in systems.items()}


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


def _strip(row: ResultRow) -> dict[str, Any]:
    """A row as the results cache stores it: its JSON object without the corpus's names."""
    stored = row_to_json(row)
    return {k: stored[k] for k in _STORED}


def _restore(row: dict[str, Any], fixture: str, system: str) -> ResultRow:
    """A row the results cache stored, on the corpus named ``fixture``/``system``."""
    return row_from_json({**row, "fixture": fixture, "system": system}, checked=False)


#: A worker process's adapters, built once per worker (:func:`_adapter_rows`).
_WORKER_ADAPTERS: dict[str, Any] = {}


def _adapter_rows(
    corpus: Corpus,
    impl: Implementation,
    fixture: str,
    system: str,
    levels: tuple[str, ...],
    segments: tuple[int, ...] | None = None,
) -> tuple[list[ResultRow], tuple[Any, ...]]:
    """:func:`run_one` of a library adapter in a worker (its rows, which travel back to the
    caller), with the worker's :func:`_environment` for that library."""
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


# ---------------------------------------------------------------------- versions
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
