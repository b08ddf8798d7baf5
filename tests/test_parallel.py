"""Sharded statistics (local processes and dask.distributed) equal the serial ones bit for bit.

Issue 6, item 3: "computes statistics per shard and sums them — same numbers to the last bit,
tested with a LocalCluster in CI".
"""

from __future__ import annotations

import functools
import itertools
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import AdapterUnavailable, ConfigError, LayoutError
from harness.session import parallel
from harness.session.cache import StatisticsCache
from harness.session.parallel import (
    Workers,
    compute_statistics_dask,
    compute_statistics_parallel,
    join_statistics,
    map_statistics,
    resolve_jobs,
    shard_bounds,
)
from harness.session.resources import usable_cpus

SACRE = PROFILES["sacrebleu"]
NLTK5 = PROFILES["nltk"].replace(smooth="nltk-method5")  # needs order 5

_WORDS = "the a cat dog sat on mat , . ! ? 's ( ) 1,000 3.5 U.S. über naïve 猫 が".split()


def _corpus(n: int, seed: int = 0) -> Corpus:
    """Seeded, ragged (1–3 references), with punctuation, numbers, non-ASCII and empty lines."""
    rng = np.random.default_rng(seed)

    def line() -> str:
        k = int(rng.integers(0, 14))
        return " ".join(_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), k))

    hyps = tuple(line() for _ in range(n))
    refs = tuple(tuple(line() or "x" for _ in range(int(rng.integers(1, 4)))) for _ in range(n))
    return Corpus(hypotheses=hyps, references=refs, ids=tuple(f"s{i}" for i in range(n)))


def assert_identical(a, b) -> None:
    assert a.hyp_len.dtype == b.hyp_len.dtype and a.matches.dtype == b.matches.dtype
    assert np.array_equal(a.hyp_len, b.hyp_len)
    assert np.array_equal(a.matches, b.matches)
    assert a.ref_lens == b.ref_lens
    assert a.ids == b.ids
    assert a.tokenization == b.tokenization


@pytest.fixture(scope="module")
def pool():
    """One pool of two workers for the module (start-up paid once)."""
    with parallel.process_pool(2) as ex:
        yield ex


# ---------------------------------------------------------------------- building blocks
@pytest.mark.parametrize(("n", "size"), [(1, 1), (10, 3), (10, 10), (10, 100), (7, 2)])
def test_shard_bounds_cover_the_corpus_contiguously(n, size) -> None:
    bounds = shard_bounds(n, size)
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(hi - lo <= size and hi > lo for lo, hi in bounds)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))


def test_join_equals_repeated_addition() -> None:
    c = _corpus(30)
    parts = [
        engine.compute_statistics(c.subset(range(lo, hi)), SACRE) for lo, hi in shard_bounds(30, 7)
    ]
    joined = join_statistics(parts)
    summed = functools.reduce(lambda a, b: a + b, parts)
    assert_identical(joined, summed)
    assert_identical(joined, engine.compute_statistics(c, SACRE))


def test_join_refuses_mixed_tokenizations_and_nothing() -> None:
    c = _corpus(4)
    a = engine.compute_statistics(c, SACRE)
    b = engine.compute_statistics(c, SACRE.replace(tokenize="char"))
    with pytest.raises(LayoutError):
        join_statistics([a, b])
    with pytest.raises(LayoutError):
        join_statistics([])


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_resolve_jobs_rejects_nonsense(bad) -> None:
    with pytest.raises(ConfigError):
        resolve_jobs(bad)


def test_resolve_jobs_zero_means_all_cpus() -> None:
    assert resolve_jobs(0) >= 1 and resolve_jobs(None) == resolve_jobs(0) == usable_cpus()
    assert resolve_jobs(1) == 1 and resolve_jobs(usable_cpus()) == usable_cpus()


# ---------------------------------------------------------------------- processes
@pytest.mark.parametrize(
    ("config", "chunk"),
    [
        (SACRE, None),
        (SACRE, 7),
        (PROFILES["nltk"], 13),
        (SACRE.replace(lowercase=True, tokenize="intl"), 50),
    ],
)
def test_processes_equal_serial_bit_for_bit(pool, config: BleuConfig, chunk) -> None:
    c = _corpus(120, seed=1)
    serial = engine.compute_statistics(c, config)
    par = compute_statistics_parallel(
        c, config, jobs=2, chunk_size=chunk, executor=pool, min_segments=0
    )
    assert_identical(par, serial)
    # and so every score computed from them
    assert (
        engine.score_statistics(par, config).score == engine.score_statistics(serial, config).score
    )


#: References cut to the fewest, then the empty ones left out: cutting the result again would
#: cut the last segment to one reference.
CUT_THEN_DROPPED = Corpus(
    hypotheses=("", "", "the the the the"),
    references=(("", "the"), ("", "the"), ("the", "the the the the")),
)


@pytest.mark.parametrize("chunk", [None, 1, 2])
def test_a_corpus_cut_before_sharding_is_not_cut_again(pool, chunk) -> None:
    config = PROFILES["lm-eval@0.3"]
    serial = engine.compute_statistics(CUT_THEN_DROPPED, config)
    assert serial.ref_lens[-1] == (1, 4)
    par = compute_statistics_parallel(
        CUT_THEN_DROPPED, config, jobs=2, chunk_size=chunk, executor=pool, min_segments=0
    )
    assert_identical(par, serial)
    for workers in (Workers("serial"), Workers("processes", 2)):
        (mapped,) = map_statistics([CUT_THEN_DROPPED], config, workers=workers, min_segments=0)
        assert_identical(mapped, serial)


def test_processes_with_their_own_pool_and_order_5() -> None:
    c = _corpus(40, seed=2)
    par = compute_statistics_parallel(c, NLTK5, jobs=2, chunk_size=9, min_segments=0)
    assert par.max_order == 5
    assert_identical(par, engine.compute_statistics(c, NLTK5))


@pytest.mark.parametrize(("jobs", "n"), [(2, 2), (2, 41), (3, 2), (3, 3), (3, 40)])
def test_this_process_counts_the_first_share(jobs: int, n: int) -> None:
    """Without a pool or chunk size this process counts a larger first shard (MAIN_SHARE)
    and jobs - 1 workers the rest: the same statistics as the serial count."""
    c = _corpus(n, seed=5)
    par = compute_statistics_parallel(c, SACRE, jobs=jobs, min_segments=0)
    assert_identical(par, engine.compute_statistics(c, SACRE))


@pytest.mark.parametrize(("jobs", "n", "min_segments"), [(1, 50, 0), (2, 50, 1000), (2, 1, 0)])
def test_serial_when_one_job_or_small(monkeypatch, jobs, n, min_segments) -> None:
    def no_pool(*a, **k):
        raise AssertionError("a process pool was started")

    monkeypatch.setattr(parallel, "process_pool", no_pool)
    c = _corpus(n)
    out = compute_statistics_parallel(c, SACRE, jobs=jobs, min_segments=min_segments)
    assert_identical(out, engine.compute_statistics(c, SACRE))
    assert map_statistics([c], SACRE, workers=Workers("processes", jobs), min_segments=min_segments)


def test_map_statistics_many_systems_in_order(pool) -> None:
    refs = _corpus(25, seed=3)
    systems = [
        refs.with_hypotheses(_corpus(25, seed=10 + k).hypotheses, name=f"sys{k}") for k in range(5)
    ]
    systems.append(_corpus(3, seed=99))  # a differently sized corpus
    serial = map_statistics(systems, SACRE, workers=Workers("serial"))
    for chunk in (None, 4):
        par = map_statistics(
            systems,
            SACRE,
            workers=Workers("processes", 2),
            executor=pool,
            chunk_size=chunk,
            min_segments=0,
        )
        assert len(par) == len(systems)
        for a, b, c in zip(par, serial, systems, strict=True):
            assert_identical(a, b)
            assert_identical(a, engine.compute_statistics(c, SACRE))
    assert map_statistics([], SACRE, workers=Workers("processes", 2)) == []


def test_map_statistics_rejects_unknown_backends() -> None:
    with pytest.raises(ConfigError, match="valid: serial, processes, dask"):
        map_statistics([_corpus(2)], SACRE, workers=Workers("threads"))


def test_cache_with_a_parallel_compute_function(pool, tmp_path) -> None:
    compute = functools.partial(compute_statistics_parallel, jobs=2, executor=pool, min_segments=0)
    cache = StatisticsCache(tmp_path, compute=compute)
    c = _corpus(60, seed=4)
    assert_identical(cache.get(c, SACRE), engine.compute_statistics(c, SACRE))
    assert_identical(StatisticsCache(tmp_path).get(c, SACRE), engine.compute_statistics(c, SACRE))


def test_worker_function_is_importable_by_reference() -> None:
    # spawn/forkserver/dask pickle the worker by qualified name: it must be top-level
    import pickle

    assert pickle.loads(pickle.dumps(parallel.shard_statistics)) is parallel.shard_statistics
    with parallel.process_pool(1) as ex:
        assert isinstance(ex, ProcessPoolExecutor)


def _raise_unavailable(corpus, config, *, max_order=None, counted=False):
    raise AdapterUnavailable("tokenizer 13a", "simulated in a worker", hint="pip install x")


def test_harness_errors_cross_the_process_boundary_intact(monkeypatch) -> None:
    # harness errors take (implementation, reason, hint), which plain pickling cannot replay;
    # a fork-started pool inherits the monkeypatched engine
    import multiprocessing

    monkeypatch.setattr(engine, "compute_statistics", _raise_unavailable)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as ex:
        with pytest.raises(AdapterUnavailable) as info:
            compute_statistics_parallel(_corpus(20), SACRE, jobs=2, executor=ex, min_segments=0)
    assert (info.value.reason, info.value.hint) == ("simulated in a worker", "pip install x")


def test_harness_errors_from_a_thread_executor_are_unwrapped(monkeypatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(engine, "compute_statistics", _raise_unavailable)
    with ThreadPoolExecutor(2) as ex, pytest.raises(AdapterUnavailable, match="simulated"):
        map_statistics(
            [_corpus(20)], SACRE, workers=Workers("processes", 2), executor=ex, min_segments=0
        )


def test_warm_skips_a_failing_tokenization_and_get_raises_it(monkeypatch) -> None:
    real = engine.compute_statistics

    def fake(corpus, config, *, max_order=None, counted=False):
        if config.tokenize == "char":
            raise AdapterUnavailable("tokenizer char", "simulated")
        return real(corpus, config, max_order=max_order, counted=counted)

    monkeypatch.setattr(engine, "compute_statistics", fake)
    cache = StatisticsCache()
    c = _corpus(10)
    assert cache.warm([c], [SACRE, SACRE.replace(tokenize="char")]) == 1
    assert_identical(cache.get(c, SACRE), real(c, SACRE))
    with pytest.raises(AdapterUnavailable):
        cache.get(c, SACRE.replace(tokenize="char"))


def test_warm_with_processes_shares_one_pool(monkeypatch) -> None:
    started = []
    real_pool = parallel.process_pool

    def counting_pool(jobs):
        started.append(jobs)
        return real_pool(jobs)

    monkeypatch.setattr(parallel, "process_pool", counting_pool)
    monkeypatch.setattr(parallel, "SERIAL_THRESHOLD", 0)
    cache = StatisticsCache()
    corpora = [_corpus(30, seed=s) for s in range(3)]
    configs = [SACRE, PROFILES["nltk"], SACRE.replace(tokenize="char")]
    assert cache.warm(corpora, configs, workers=Workers("processes", 2)) == 9
    assert started == [2]
    for c in corpora:
        for cfg in configs:
            assert_identical(cache.get(c, cfg), engine.compute_statistics(c, cfg))
    assert cache.stats.computed == 9


# ---------------------------------------------------------------------- dask
def test_dask_missing_raises_adapter_unavailable_with_hint(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(AdapterUnavailable, match=r"bleu-harness\[dask\]") as info:
        compute_statistics_dask(_corpus(3), SACRE)
    assert info.value.implementation == "dask backend"
    with pytest.raises(AdapterUnavailable):
        map_statistics([_corpus(3)], SACRE, workers=Workers("dask"))


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip(
        "distributed",
        reason="dask.distributed is not installed (pip install 'bleu-harness[dask]')",
    )
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # not 8787: may be taken
            host="127.0.0.1",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.mark.parametrize(("config", "shards"), [(SACRE, None), (SACRE, 5), (NLTK5, 3)])
def test_dask_equals_serial_bit_for_bit(dask_client, config, shards) -> None:
    c = _corpus(80, seed=5)
    out = compute_statistics_dask(c, config, client=dask_client, n_shards=shards)
    assert_identical(out, engine.compute_statistics(c, config))


def test_dask_map_statistics_and_the_current_client(dask_client) -> None:
    corpora = [_corpus(20, seed=s) for s in range(4)]
    out = map_statistics(
        corpora, SACRE, workers=Workers("dask"), chunk_size=6
    )  # client=None: current
    for a, c in zip(out, corpora, strict=True):
        assert_identical(a, engine.compute_statistics(c, SACRE))


def test_systems_sharing_references_travel_together() -> None:
    refs = _corpus(10, seed=6)
    systems = [refs.with_hypotheses(_corpus(10, seed=20 + k).hypotheses) for k in range(3)]
    other = _corpus(10, seed=7)
    groups, tasks, shards = parallel._plan([systems[0], other, systems[1], systems[2]], 4, 2)
    assert groups == [[0, 2, 3], [1]]
    assert tasks == [(0, 0, 4), (0, 4, 8), (0, 8, 10), (1, 0, 4), (1, 4, 8), (1, 8, 10)]
    hyps, shard_refs, ids = shards[1]
    assert len(hyps) == 3 and shard_refs == refs.references[4:8] and ids == refs.ids[4:8]


def test_dask_warm_over_several_tokenizations_of_the_same_shards(dask_client) -> None:
    # regression: hashed scatter keys made the second tokenization's shards the first's,
    # which the first call had released ("lost dependencies")
    corpora = [_corpus(30, seed=s) for s in range(3)]
    configs = [SACRE, SACRE.replace(tokenize="char"), PROFILES["nltk"]]
    cache = StatisticsCache()
    assert cache.warm(corpora, configs, workers=Workers("dask", client=dask_client)) == 9
    for c in corpora:
        for cfg in configs:
            assert_identical(cache.get(c, cfg), engine.compute_statistics(c, cfg))
    assert cache.stats.computed == 9


def test_runner_with_processes_runs_the_libraries_in_workers_with_the_same_rows(
    evaluate_module: Path,
) -> None:
    """``run(backend="processes", jobs=2)`` runs the library adapters in worker processes
    while the engine scores in this one: the rows (every field, in order) are the serial
    ones, and on_row sees them in that order."""
    from harness.data.fixtures import load_fixture
    from harness.run import RunPlan, run, runner
    from harness.session import Session

    fixture = load_fixture("tutorial_cat_on_the_mat")
    corpora = [("tutorial", s, fixture.corpus(s)) for s in fixture.systems]
    impls = [
        # tokenizations enough for workers to count some ahead (harness.session.ahead.share)
        *(
            runner.Implementation("profile", p)
            for p in ("sacrebleu", "nltk", "tensor2tensor", "helm-bleu-4")
        ),
        runner.Implementation("adapter", "sacrebleu"),
        runner.Implementation("adapter", "nltk"),
        runner.Implementation("adapter", "evaluate"),
    ]
    levels = ("corpus", "segment")
    serial = run(RunPlan.of(corpora, impls, levels=levels, progress=False))
    workers = run(
        RunPlan.of(
            corpora,
            impls,
            levels=levels,
            progress=False,
            session=Session(backend="processes", jobs=2),
        )
    )
    assert len(serial) >= 2 * len(corpora) * len(impls)
    assert runner.rows_to_jsonl(workers) == runner.rows_to_jsonl(serial)


def test_a_pool_whose_manager_never_started_is_terminated_without_error() -> None:
    """A signal that cuts the start of a pool's manager thread short leaves a thread object
    that never ran: killing the pool then passes it over instead of joining it (joining a
    thread that never started raises)."""
    import threading

    pool = parallel.process_pool(1)
    pool._executor_manager_thread = threading.Thread(target=lambda: None)  # never started
    pool.terminate()


def test_report_correlations_in_a_worker_are_the_serial_ones(monkeypatch) -> None:
    """With workers, :func:`~harness.analysis.study.analyse` computes the correlations in
    one of them (here from the first score: the threshold set to 0) while it judges the
    pairs: the report is byte for byte the serial one, and the correlation steps are still
    reported."""
    from harness.analysis import study_correlations
    from harness.analysis.study import ReportOptions, analyse, study
    from harness.report.schema import render_json
    from harness.run.plan import named_corpora
    from harness.session import Session

    corpora = [("generated", f"system-{s}", _corpus(40, seed=s)) for s in range(3)]
    impls = ["profile:sacrebleu", "profile:nltk", "profile:tensor2tensor", "profile:evaluate"]
    serial = study(corpora, impls, options=ReportOptions(n_boot=20))
    monkeypatch.setattr(study_correlations, "IN_WORKER_FROM", 0)
    pools = []

    def pool(*args):
        pools.append(args)
        return parallel.process_pool(*args)

    monkeypatch.setattr(study_correlations, "process_pool", pool)
    steps = []
    session = Session(named_corpora(corpora), jobs=2, backend="processes")
    rows = _plan_rows(corpora, impls)
    workers = analyse(
        rows,
        session,
        options=ReportOptions(n_boot=20),
        progress=lambda stage, done, total: steps.append(stage),
    )
    assert pools == [(1, 1)]
    assert serial.correlations.segment is not None and serial.correlations.corpus is not None
    assert render_json(workers) == render_json(serial)
    assert "report: correlations" in steps


def _plan_rows(corpora, impls):
    from harness.run import RunPlan, run

    return run(RunPlan.of(corpora, impls, levels=("corpus", "segment")))
