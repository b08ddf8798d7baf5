"""The real libraries' results on disk: a rerun calls no library and gives the same rows;
bad entries are recomputed with one warning; keys change with everything the rows depend on;
the directory keeps to its size bound; concurrent writers never leave a broken entry."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import shutil
import warnings
from pathlib import Path

import pytest

from harness.cli import main
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.run import RunPlan, run, runner
from harness.scorers import distributions, get_adapter
from harness.session import Session
from harness.session import results as results_mod
from harness.session.cache import CacheWarning, StatisticsCache, content_hash
from harness.session.disk import prune, usage
from harness.session.results import SUFFIX, ResultsCache

EVALUATE_MODULE = Path("/work/shared/reference-impls/hf-evaluate/bleu")
ADAPTERS = ("sacrebleu", "nltk", "bleuscore", "lm-eval")


def _corpora(*names: str) -> list[tuple[str, str, Corpus]]:
    out = []
    for name in names:
        fx = load_fixture(name)
        out += fx.triples()
    return out


def _impls(*adapters: str) -> list[runner.Implementation]:
    return [runner.Implementation("profile", "sacrebleu")] + [
        runner.Implementation("adapter", a) for a in adapters
    ]


class LibraryCalls:
    """Counts the library runs the runner makes (each adapter on each corpus)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        real = runner.run_one

        def counting(corpus, impl, **kw):  # type: ignore[no-untyped-def]
            if impl.kind == "adapter":
                self.calls.append(impl.name)
            return real(corpus, impl, **kw)

        monkeypatch.setattr(runner, "run_one", counting)


def _run(cache: ResultsCache, levels=("corpus", "segment"), adapters=ADAPTERS, names=None):
    corpora = _corpora(*(names or ("tutorial_cat_on_the_mat", "silence_pitfall")))
    return run(RunPlan.of(corpora, _impls(*adapters), levels=levels, progress=False, results=cache))


def test_a_rerun_calls_no_library_and_gives_the_same_rows(tmp_path, monkeypatch) -> None:
    cold_cache = ResultsCache(tmp_path)
    cold = _run(cold_cache)
    assert cold_cache.stats.writes > 0 and cold_cache.stats.hits == 0
    spy = LibraryCalls(monkeypatch)
    warm_cache = ResultsCache(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warm = _run(warm_cache)
    assert spy.calls == []
    assert warm_cache.stats.hits == cold_cache.stats.writes
    assert runner.rows_to_jsonl(warm) == runner.rows_to_jsonl(cold)
    assert runner.rows_to_csv(warm) == runner.rows_to_csv(cold)


def test_no_cache_reads_and_writes_nothing(tmp_path, monkeypatch) -> None:
    _run(ResultsCache(tmp_path))
    spy = LibraryCalls(monkeypatch)
    _run(ResultsCache.disabled())
    assert len(spy.calls) > 0
    assert usage(tmp_path, (SUFFIX,))[0] > 0  # the earlier entries are untouched


def test_the_same_library_on_another_fixture_name_reuses_the_entry(tmp_path, monkeypatch) -> None:
    fx = load_fixture("tutorial_cat_on_the_mat")
    sysname = fx.system_names[0]
    impls = _impls("sacrebleu")
    cache = ResultsCache(tmp_path)
    first = run(RunPlan.of([("a", "x", fx.corpus(sysname))], impls, progress=False, results=cache))
    spy = LibraryCalls(monkeypatch)
    again = run(RunPlan.of([("b", "y", fx.corpus(sysname))], impls, progress=False, results=cache))
    assert spy.calls == []
    assert [(r.fixture, r.system) for r in again] == [("b", "y")] * len(again)
    assert [dataclasses.replace(r, fixture="b", system="y") for r in first] == list(again)


@pytest.mark.parametrize(
    "damage",
    ["truncate", "flip-a-byte", "empty", "header-only", "other-key", "not-rows"],
)
def test_a_damaged_entry_warns_once_and_is_recomputed(tmp_path, damage) -> None:
    cold = _run(
        ResultsCache(tmp_path), adapters=("sacrebleu", "nltk"), names=("tutorial_cat_on_the_mat",)
    )
    entries = sorted(tmp_path.glob("*.rows"))
    assert entries
    victim = entries[0]
    blob = victim.read_bytes()
    head = blob.partition(b"\n")[0]
    if damage == "truncate":
        victim.write_bytes(blob[: len(blob) - 7])
    elif damage == "flip-a-byte":
        victim.write_bytes(blob[:-3] + bytes([blob[-3] ^ 0x55]) + blob[-2:])
    elif damage == "empty":
        victim.write_bytes(b"")
    elif damage == "header-only":
        victim.write_bytes(head)
    elif damage == "other-key":  # a valid entry of another key under this name
        victim.write_bytes(entries[1].read_bytes())
    else:  # a well-formed entry whose payload is not rows
        header = json.loads(head)
        payload = b'{"not": "rows"}'
        import hashlib
        import zlib

        header.update(sha256=hashlib.sha256(payload).hexdigest(), length=len(payload))
        victim.write_bytes(json.dumps(header).encode() + b"\n" + zlib.compress(payload))
    cache = ResultsCache(tmp_path)
    with pytest.warns(CacheWarning, match="unreadable or inconsistent") as caught:
        again = _run(cache, adapters=("sacrebleu", "nltk"), names=("tutorial_cat_on_the_mat",))
    assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1
    assert cache.stats.corrupt == 1
    assert runner.rows_to_jsonl(again) == runner.rows_to_jsonl(cold)
    with warnings.catch_warnings():  # rewritten: read cleanly now
        warnings.simplefilter("error")
        third = ResultsCache(tmp_path)
        _run(third, adapters=("sacrebleu", "nltk"), names=("tutorial_cat_on_the_mat",))
    assert third.stats.corrupt == 0 and third.stats.writes == 0


def _key(adapter: str = "sacrebleu", *, corpus: Corpus | None = None, levels=("corpus",)):
    a = get_adapter(adapter)
    fx = load_fixture("tutorial_cat_on_the_mat")
    c = corpus if corpus is not None else fx.corpus(fx.system_names[0])
    return ResultsCache.key(
        a.name,
        a.cache_fingerprint(),
        repr(a.default_config()),
        levels,
        content_hash(c),
        distributions(),
    )


def test_the_key_changes_with_everything_the_rows_depend_on(monkeypatch) -> None:
    fx = load_fixture("tutorial_cat_on_the_mat")
    base = fx.corpus(fx.system_names[0])
    names = {ResultsCache.name_of(_key())}
    changed_hyp = Corpus(
        hypotheses=(base.hypotheses[0] + " x", *base.hypotheses[1:]),
        references=base.references,
        ids=base.ids,
    )
    changed_ids = Corpus(
        hypotheses=base.hypotheses, references=base.references, ids=tuple(f"z{i}" for i in base.ids)
    )
    variants = [
        _key(corpus=changed_hyp),
        _key(corpus=changed_ids),
        _key(levels=("corpus", "segment")),
        _key("nltk"),
        _key("torchmetrics-sacrebleu"),
    ]
    old = results_mod.library_versions(tuple(distributions()))
    monkeypatch.setattr(
        results_mod,
        "library_versions",
        lambda dists: tuple((d, v + "+changed" if d == "sacrebleu" else v) for d, v in old),
    )
    variants.append(_key())
    monkeypatch.setattr(results_mod, "library_versions", lambda dists: old)
    monkeypatch.setattr(results_mod, "code_fingerprint", lambda: "another harness")
    variants.append(_key())
    for key in variants:
        name = ResultsCache.name_of(key)
        assert name not in names
        names.add(name)


def test_the_code_fingerprint_covers_what_the_rows_are_made_of(tmp_path, monkeypatch) -> None:
    """Every module an adapter run imports from the harness is part of the fingerprint."""
    import subprocess
    import sys

    code = (
        "import sys, json\n"
        "from harness.run import RunPlan, run, runner\n"
        "from harness.data.fixtures import load_fixture\n"
        "fx = load_fixture('silence_pitfall')\n"
        "impls = [runner.Implementation('adapter', a) for a in ('sacrebleu', 'nltk', 'lm-eval')]\n"
        "run(RunPlan.of(fx.triples(), impls, levels=('corpus', 'segment')))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('harness'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    used = {m.split(".", 1)[1].replace(".", "/") for m in json.loads(out.stdout) if "." in m}
    parts = results_mod.CODE_PARTS
    outside = sorted(
        m
        for m in used
        if not any(m == p.removesuffix(".py") or m.startswith(p + "/") or m == p for p in parts)
    )
    # Outside: packages, the progress bars, where work runs (the corpus digest, workers, what
    # they count ahead and score beside the counting, their resources, how a run stops and when
    # the garbage collector runs), and the home of the default seed
    # (the seed a sample is drawn with is part of the key, not the module that names it).
    allowed = {
        "progress",
        "session",
        "interrupts",
        "holds",
        "statistics",
        "statistics/resampling",
    } | {
        f"session/{m}"
        for m in (
            "ahead",
            "cache",
            "cluster",
            "disk",
            "parallel",
            "resources",
            "scores",
            "stats_files",
        )
    }
    assert set(outside) <= allowed, outside
    assert len(results_mod.code_fingerprint()) == 64


@pytest.mark.skipif(not EVALUATE_MODULE.is_dir(), reason="needs the Hub bleu module copy")
def test_the_evaluate_key_follows_the_module_content(tmp_path, monkeypatch) -> None:
    copy = tmp_path / "bleu"
    shutil.copytree(EVALUATE_MODULE, copy)
    a = get_adapter("evaluate", module=copy)
    before = a.cache_fingerprint()
    assert before == get_adapter("evaluate", module=copy / "bleu.py").cache_fingerprint()
    (copy / "nmt_bleu.py").write_text((copy / "nmt_bleu.py").read_text() + "\n# edited\n")
    assert get_adapter("evaluate", module=copy).cache_fingerprint() != before


def test_an_unavailable_library_is_not_cached(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BLEU_HARNESS_EVALUATE_MODULE", str(tmp_path / "missing"))
    cache = ResultsCache(tmp_path / "c")
    rows = _run(cache, adapters=("evaluate",), names=("tutorial_cat_on_the_mat",))
    assert {r.status for r in rows if r.kind == "adapter"} == {"unavailable"}
    assert cache.stats.writes == 0 and usage(tmp_path / "c", (SUFFIX,))[0] == 0


def test_an_external_command_is_never_cached() -> None:
    from harness.scorers.command import CommandAdapter

    assert CommandAdapter.cache_fingerprint(object.__new__(CommandAdapter)) is None


def test_prune_keeps_the_most_recently_used_within_the_bound(tmp_path) -> None:
    import os

    for i in range(6):
        p = tmp_path / f"{i}.rows"
        p.write_bytes(b"x" * 100)
        os.utime(p, (1000 + i, 1000 + i))
    (tmp_path / "other.npz").write_bytes(b"y" * 1000)  # not an entry: never touched
    os.utime(tmp_path / "1.rows", (5000, 5000))  # used recently
    assert prune(tmp_path, 300, (SUFFIX,)) == 3
    assert sorted(p.name for p in tmp_path.glob("*.rows")) == ["1.rows", "4.rows", "5.rows"]
    assert (tmp_path / "other.npz").exists()
    assert usage(tmp_path, (SUFFIX,)) == (3, 300)


def test_writes_past_the_bound_prune_the_directory(tmp_path) -> None:
    cache = ResultsCache(tmp_path, max_bytes=0)
    _run(cache, adapters=("sacrebleu", "nltk"), names=("tutorial_cat_on_the_mat",))
    cache.prune()
    assert usage(tmp_path, (SUFFIX,)) == (0, 0)


def _writer(args: tuple[str, int]) -> int:
    directory, seed = args
    cache = ResultsCache(Path(directory))
    key = {"format": 1, "adapter": "x", "n": 1}
    rows = [{"status": "ok", "score": float(seed % 3), "pad": "p" * 5000}]
    for _ in range(40):
        cache.put(key, rows)
    return seed


def test_concurrent_writers_never_leave_a_broken_entry(tmp_path) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        pool.map(_writer, [(str(tmp_path), s) for s in range(4)])
    key = {"format": 1, "adapter": "x", "n": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = ResultsCache(tmp_path).get(key)
    assert rows is not None and rows[0]["score"] in (0.0, 1.0, 2.0)
    assert list(tmp_path.glob("*.tmp")) == []


def test_a_bad_size_bound_is_a_clear_error(monkeypatch) -> None:
    from harness.errors import ConfigError

    monkeypatch.setenv("BLEU_HARNESS_CACHE_MAX_MB", "lots")
    with pytest.raises(ConfigError, match="BLEU_HARNESS_CACHE_MAX_MB"):
        ResultsCache(None)


def test_processes_backend_fills_and_reads_the_cache_like_serial(tmp_path, monkeypatch) -> None:
    serial = _run(ResultsCache.disabled(), names=("tutorial_cat_on_the_mat",))
    cache = ResultsCache(tmp_path)
    corpora = _corpora("tutorial_cat_on_the_mat")
    parallel_rows = run(
        RunPlan.of(
            corpora,
            _impls(*ADAPTERS),
            levels=("corpus", "segment"),
            progress=False,
            results=cache,
            session=Session(cache=StatisticsCache(), backend="processes", jobs=2),
        )
    )
    assert runner.rows_to_jsonl(parallel_rows) == runner.rows_to_jsonl(serial)
    assert cache.stats.writes == len(ADAPTERS) * len(corpora)
    spy = LibraryCalls(monkeypatch)
    assert runner.rows_to_jsonl(
        _run(ResultsCache(tmp_path), names=("tutorial_cat_on_the_mat",))
    ) == (runner.rows_to_jsonl(serial))
    assert spy.calls == []


def test_compare_twice_writes_identical_results_and_cache_clear_empties_it(
    tmp_path, capsys
) -> None:
    cache_dir = tmp_path / "cache"
    argv = [
        "compare",
        "--fixture",
        "tutorial_cat_on_the_mat",
        "--impl",
        "adapter:sacrebleu,adapter:nltk",
        "--cache-dir",
        str(cache_dir),
        "--quiet",
    ]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert (
        usage(cache_dir / "results", (SUFFIX,))[0]
        == len(load_fixture("tutorial_cat_on_the_mat").system_names) * 2
    )
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a" / "results.jsonl").read_bytes()
    assert a == (tmp_path / "b" / "results.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["cache", "info", "--cache-dir", str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert "results" in out and "statistics" in out
    assert main(["cache", "clear", "--cache-dir", str(cache_dir)]) == 0
    assert usage(cache_dir / "results", (SUFFIX,)) == (0, 0)
    assert list(cache_dir.glob("*.npz")) == []


def test_dask_runs_the_libraries_as_tasks_with_the_serial_rows(tmp_path) -> None:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    serial = _run(ResultsCache.disabled(), names=("tutorial_cat_on_the_mat", "silence_pitfall"))
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        corpora = _corpora("tutorial_cat_on_the_mat", "silence_pitfall")
        with distributed.get_task_stream(client) as stream:
            rows = run(
                RunPlan.of(
                    corpora,
                    _impls(*ADAPTERS),
                    levels=("corpus", "segment"),
                    progress=False,
                    results=ResultsCache(tmp_path),
                    session=Session(backend="dask", client=client),
                )
            )
    tasks = [t for t in stream.data if t["key"].startswith("_adapter_rows")]
    assert len(tasks) == len(ADAPTERS) * len(corpora)
    assert runner.rows_to_jsonl(rows) == runner.rows_to_jsonl(serial)
    assert usage(tmp_path, (SUFFIX,))[0] == len(ADAPTERS) * len(corpora)


def test_rows_from_a_worker_with_other_library_versions_are_refused() -> None:
    from harness.errors import ConfigError

    impl = runner.Implementation("adapter", "sacrebleu")
    here = runner._environment(impl, {})
    runner._same_environment(impl, here, {})  # the same set-up: accepted
    versions = tuple((d, "0.0.1" if d == "sacrebleu" else v) for d, v in here[1])
    with pytest.raises(ConfigError, match=r"sacrebleu 0\.0\.1 \(here "):
        runner._same_environment(impl, (here[0], versions, here[2]), {})
    with pytest.raises(ConfigError, match="another version of the harness code"):
        runner._same_environment(impl, ("other", here[1], here[2]), {})
