"""The Session: corpora + statistics cache + workers; each tokenization counted once.

Every analysis that needs statistics (attribution, BLEU vs human, identify, significance from
files) takes a ``session=`` and then counts through it: these tests check that the session
counts each (corpus, tokenization) once with enough n-gram orders, that its scores are the
engine's, that its cache on disk serves a second run, and that ``use_cache``/``jobs``/
``backend`` (what ``--no-cache``/``--jobs``/``--backend`` map to) mean what they say.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.analysis.attribution import attribute
from harness.analysis.human import wmt21_human_correlations
from harness.analysis.significance import PairedTest, significance_from_files
from harness.bleu import batch_scores, engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.identify import identify
from harness.errors import ConfigError, LibraryWouldRaise
from harness.session import Session, open_cache
from harness.session import parallel as par
from harness.session.ahead import CountAhead, share
from harness.session.cache import StatisticsCache, tokenizer_signature
from harness.statistics.correlation import BootstrapOptions

from .depth import examples
from .strategies import corpora

SACRE = PROFILES["sacrebleu"]
NLTK5 = PROFILES["nltk"].replace(smooth="nltk-method5")


def _corpus(n: int = 12, seed: int = 0, name: str = "") -> Corpus:
    rng = np.random.default_rng(seed)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "Fast", "."]
    line = lambda k: " ".join(rng.choice(words, size=k))  # noqa: E731
    hyps = tuple(line(int(rng.integers(1, 9))) for _ in range(n))
    refs = tuple((line(int(rng.integers(1, 9))), line(int(rng.integers(1, 9)))) for _ in range(n))
    return Corpus(hypotheses=hyps, references=refs, name=name)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """Every engine count as (tokenization, order), whoever asks for it."""
    seen: list[tuple[str, int | None]] = []
    real = engine.compute_statistics

    def counting(
        corpus: Corpus, config: BleuConfig, *, max_order: int | None = None, counted: bool = False
    ):
        seen.append((engine.tokenization_key(config), max_order))
        return real(corpus, config, max_order=max_order, counted=counted)

    monkeypatch.setattr(engine, "compute_statistics", counting)
    return seen


def assert_same(a, b) -> None:
    assert np.array_equal(a.hyp_len, b.hyp_len) and np.array_equal(a.matches, b.matches)
    assert a.ref_lens == b.ref_lens and a.ids == b.ids and a.tokenization == b.tokenization


# ---------------------------------------------------------------------- counting once
def test_scores_count_each_tokenization_once_with_enough_orders(calls) -> None:
    c = _corpus()
    configs = {**PROFILES, "nltk5": NLTK5}
    out = Session(c).scores(configs)
    keys = {engine.tokenization_key(cfg) for cfg in configs.values()}
    # one count per tokenization; a count that also holds each reference's matches serves the
    # same tokens without them
    served = {
        engine.tokenization_key(cfg)
        for cfg in configs.values()
        if not engine.needs_ref_matches(cfg) and engine.tokenization_key(cfg, per_ref=True) in keys
    }
    assert served and sorted(k for k, _ in calls) == sorted(keys - served)
    assert dict(calls)[engine.tokenization_key(NLTK5)] == 5  # method 5 reads order 5
    calls.clear()
    for name, cfg in configs.items():
        if name == "jury":  # a reference of punctuation alone is empty: jury's segment raises
            assert isinstance(out[name].error, LibraryWouldRaise)
            with pytest.raises(LibraryWouldRaise):
                engine.segment_scores(c, cfg)
            continue
        assert out[name].error is None
        assert out[name].corpus == engine.corpus_score(c, cfg)
        assert out[name].segments == engine.segment_scores(c, cfg)


def test_statistics_score_and_segments_are_the_engines(calls) -> None:
    c = _corpus()
    s = Session(c)
    assert_same(s.statistics(SACRE), engine.compute_statistics(c, SACRE))
    assert s.score(SACRE) == engine.corpus_score(c, SACRE)
    assert s.segments(SACRE) == engine.segment_scores(c, SACRE)
    floor = SACRE.replace(smooth="floor")
    assert s.score(floor) == engine.corpus_score(c, floor)
    # the session counted once; the four direct engine calls above once each
    assert len(calls) == 5


def test_several_corpora_are_warmed_once_and_named(calls) -> None:
    systems = {f"sys{i}": _corpus(seed=i) for i in range(3)}
    s = Session(systems)
    assert s.warm([SACRE, PROFILES["nltk"], SACRE.replace(smooth="none")]) == 6
    n = len(calls)
    assert s.warm([SACRE]) == 0
    for name, c in systems.items():
        assert_same(s.statistics(SACRE, name), engine.compute_statistics(c, SACRE))
    assert len(calls) == n + 3  # only the comparisons above counted again
    with pytest.raises(ConfigError, match="3 corpora"):
        s.statistics(SACRE)
    with pytest.raises(ConfigError, match="no corpus 'sys9'"):
        s.score(SACRE, "sys9")


def test_with_corpora_and_subset_share_the_cache(calls) -> None:
    c = _corpus()
    s = Session(c)
    s.score(SACRE)
    other = s.with_corpora({"again": Corpus(hypotheses=c.hypotheses, references=c.references)})
    assert other.cache is s.cache
    n = len(calls)
    other.score(SACRE, "again")  # same content: a hit
    assert len(calls) == n
    one = s.subset([3])
    assert one.score(SACRE) == engine.corpus_score(c.subset([3]), SACRE)


# ---------------------------------------------------------------------- cache and workers
def test_disk_cache_serves_a_second_session(tmp_path: Path, calls) -> None:
    c = _corpus()
    first = Session(c, cache_dir=tmp_path).score(SACRE)
    assert len(list(tmp_path.glob("*.npz"))) == 1 and len(calls) == 1
    assert Session(c, cache_dir=tmp_path).score(SACRE) == first
    assert len(calls) == 1  # read from disk


def test_no_cache_writes_nothing_but_still_counts_once(tmp_path: Path, calls) -> None:
    c = _corpus()
    s = Session(c, cache_dir=tmp_path, use_cache=False)
    s.scores({"a": SACRE, "b": SACRE.replace(smooth="floor")})
    assert not list(tmp_path.iterdir()) and len(calls) == 1
    t = Session(c, cache=StatisticsCache.disabled())  # a disabled cache: memory only
    t.scores({"a": SACRE, "b": SACRE.replace(smooth="floor")})
    assert len(calls) == 2


def test_backend_and_jobs_are_checked_and_resolved() -> None:
    assert Session().backend == "serial"
    assert Session(jobs=2).backend == "processes"
    assert Session(jobs=2, backend="serial").backend == "serial"
    with pytest.raises(ConfigError, match="unknown backend"):
        Session(backend="threads")
    with pytest.raises(ConfigError, match="cache= or cache_dir="):
        Session(cache=StatisticsCache(), cache_dir="x")
    assert open_cache(jobs=1).compute is open_cache().compute  # serial: the engine itself


def test_a_run_given_no_jobs_takes_workers_only_with_enough_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness.cli import options
    from harness.cli.app import build_parser
    from harness.run.runner import Implementation

    monkeypatch.setattr(par.resources, "usable_cpus", lambda: 4)
    enough = par.AUTO_LIBRARY_SEGMENTS
    assert par.auto_jobs(enough - 1, enough - 1) == 1
    assert par.auto_jobs(1, enough) == 4  # the libraries' segments decide
    assert par.auto_jobs(par.SERIAL_THRESHOLD, 0) == 4  # or the counting alone

    def plan(*argv: str, segments: int, impls: str) -> tuple[int, str]:
        args = build_parser().parse_args(["compare", "h", "--refs", "r", *argv])
        corpora = [("f", "s", _corpus(segments))]
        run = options.plan(args, corpora, [Implementation.parse(x) for x in impls.split(",")])
        return run.session.jobs, run.session.backend

    lib = "profile:sacrebleu,adapter:sacrebleu"
    assert plan(segments=enough, impls=lib) == (4, "processes")
    assert plan(segments=enough - 1, impls=lib) == (1, "serial")
    assert plan(segments=enough, impls="profile:sacrebleu") == (1, "serial")  # no library
    assert plan("--jobs", "1", segments=enough, impls=lib) == (1, "serial")
    assert plan("--jobs", "2", segments=3, impls=lib) == (2, "processes")  # asked: given
    # a command that runs no plan takes no workers unless asked; identify counts ahead
    assert options.session(build_parser().parse_args(["score", "h", "r"])).backend == "serial"
    search = build_parser().parse_args(["identify", "h", "r", "--score", "1"])
    assert options.jobs(search, counts_ahead=True) == 4
    assert par.auto_jobs(0, 0, counts_ahead=True) == 4
    monkeypatch.setattr(par.resources, "usable_cpus", lambda: 1)
    assert options.jobs(search, counts_ahead=True) == 1  # one CPU: no worker to count in


def test_the_answers_mixed_configurations_are_counted_with_the_run() -> None:
    from harness.analysis.answer import answer, mixed_configs
    from harness.cli import options
    from harness.cli.app import build_parser
    from harness.run import run
    from harness.run.runner import Implementation

    args = build_parser().parse_args(["compare", "h", "--refs", "r", "--jobs", "1"])
    impls = [Implementation.parse(p) for p in ("sacrebleu", "nltk", "tensor2tensor")]
    shared = _corpus(20, seed=1)
    systems = [
        (
            "f",
            f"s{i}",
            Corpus(hypotheses=_corpus(20, seed=i).hypotheses, references=shared.references),
        )
        for i in range(2)
    ]
    plan = options.plan(args, systems, impls, answer_baseline="sacrebleu")
    assert options.plan(args, systems, impls).prefetch == ()  # no answer: nothing fetched
    assert plan.prefetch == mixed_configs(["sacrebleu", "nltk", "tensor2tensor"], "sacrebleu")
    assert plan.prefetch  # the three differ in tokenization, case, smoothing
    rows = run(plan)
    counted = plan.session.cache.stats.computed
    answer(rows, plan.session.with_corpora({s: c for _, s, c in systems}), baseline="sacrebleu")
    assert plan.session.cache.stats.computed == counted  # nothing left to count
    # no answer possible (systems with references of their own): nothing fetched
    own = [("f", f"s{i}", _corpus(20, seed=i)) for i in range(2)]
    assert options.plan(args, own, impls, answer_baseline="sacrebleu").prefetch == ()


def test_statistics_counted_ahead_in_a_worker_are_the_engines(calls) -> None:
    """What a worker counts ahead (:class:`~harness.session.ahead.CountAhead`) is what this
    process would count, kept in the cache: the warm that follows counts nothing, and a
    second run ahead submits nothing."""
    systems = {f"sys{i}": _corpus(30, seed=i) for i in range(2)}
    systems["again"] = systems["sys0"]  # the same content: counted once
    s = Session(systems)
    with par.process_pool(1) as pool:
        ahead = s.count_ahead([SACRE, NLTK5, PROFILES["nltk"]], executor=pool, min_order=5)
        assert len(ahead.pairs) == 4
        assert ahead.finish() == 4
        assert not calls  # counted in the worker, not here
        assert s.warm([SACRE, NLTK5], min_order=5) == 0
        assert not s.count_ahead([SACRE], executor=pool).pairs
    kept = {(n, cfg): s.statistics(cfg, n, max_order=5) for n in systems for cfg in (SACRE, NLTK5)}
    assert s.cache.stats.computed == 4 and not calls  # every one a hit
    for (name, cfg), got in kept.items():
        assert_same(got, engine.compute_statistics(systems[name], cfg, max_order=5))


def test_a_count_ahead_no_worker_took_is_counted_here(calls) -> None:
    """A task still waiting for a worker when its statistics are needed is withdrawn and
    counted in this process (a future no one runs stands for it)."""
    c = _corpus(20)
    s = Session({"c": c})
    waiting: list[Future[object]] = []

    def submit(*_: object) -> Future[object]:
        waiting.append(Future())
        return waiting[-1]

    ahead = CountAhead(s.cache, [c], [SACRE, NLTK5], submit=submit, min_order=5)
    assert ahead.finish() == 0 and waiting[0].cancelled()
    assert len(calls) == 2  # both tokenizations, here
    assert_same(s.statistics(SACRE, max_order=5), engine.compute_statistics(c, SACRE, max_order=5))


def test_workers_count_ahead_the_library_tokenizations_and_half_of_the_rest() -> None:
    configs = [PROFILES[p] for p in PROFILES]
    tasks, here = share(configs)
    assert len(tasks) == 2 and here
    heavy, light = tasks
    assert sorted(map(repr, heavy + light + here)) == sorted(map(repr, configs))
    signatures = [{tokenizer_signature(c) for c in part} for part in (heavy, light, here)]
    assert sum(map(len, signatures)) == len(set().union(*signatures))  # no tokenization twice
    needs = lambda c: set(REGISTRY[c.tokenize].distributions) - {"regex"}  # noqa: E731
    assert not any(needs(c) for c in light + here)  # the libraries: in one task, not here
    assert any(needs(c) for c in heavy) and any(not needs(c) for c in heavy)
    others = {s for s in signatures[0] if not needs(_by_signature(configs, s))} | signatures[1]
    assert abs(len(others) - len(signatures[2])) <= 1  # half of the others, here and there
    assert share([SACRE]) == ([], [SACRE])  # one tokenization: nothing to share


def _by_signature(configs: list[BleuConfig], signature: str) -> BleuConfig:
    return next(c for c in configs if tokenizer_signature(c) == signature)


def test_identify_counts_its_readings_ahead_with_the_same_result(
    calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, identify counts ahead in one (the framework tokenizers, the profiles'
    own rules on the files and the preprocessing readings: not here) and finds what it finds
    in one process."""
    from harness.diagnose import identify as identify_module
    from harness.diagnose import search

    monkeypatch.setattr(search, "_EVAL_CACHE", {})
    monkeypatch.setattr(identify_module, "_CANDIDATES", {})
    corpus = load_fixture("silence_pitfall").corpus("B")
    serial = identify("0.0", corpus, session=Session())
    here = len(calls)
    search._EVAL_CACHE.clear()
    identify_module._CANDIDATES.clear()
    with_worker = identify("0.0", corpus, session=Session(jobs=2))
    assert with_worker == serial
    assert 0 < len(calls) - here < here  # the readings' counts were the worker's


def test_processes_backend_gives_identical_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(par, "SERIAL_THRESHOLD", 0)
    systems = {f"sys{i}": _corpus(30, seed=i) for i in range(2)}
    s = Session(systems, jobs=2)
    assert s.warm([SACRE, NLTK5]) == 4
    for name, c in systems.items():
        for cfg in (SACRE, NLTK5):
            assert_same(s.statistics(cfg, name), engine.compute_statistics(c, cfg))


# ---------------------------------------------------------------------- analyses
def test_analyses_count_through_the_given_session(tmp_path: Path, calls) -> None:
    corpus = load_fixture("silence_pitfall").corpus("B")
    att = attribute(corpus, "sacrebleu", "nltk", session=Session(cache_dir=tmp_path))
    n = len(calls)
    assert n > 0
    again = attribute(corpus, "sacrebleu", "nltk", session=Session(cache_dir=tmp_path))
    assert again == att and len(calls) == n  # every hybrid's statistics from disk
    found = identify("0.0", corpus, session=Session(cache_dir=tmp_path))
    assert found == identify("0.0", corpus, session=Session())  # the session changes where


def test_significance_from_files_counts_through_the_session(tmp_path: Path, calls) -> None:
    base, other = _corpus(20, seed=1), _corpus(20, seed=2)
    other = Corpus(hypotheses=other.hypotheses, references=base.references)
    files = {"base": base.hypotheses, "sys": other.hypotheses}
    for k in range(2):
        files[f"ref{k}"] = tuple(r[k] for r in base.references)
    for name, lines in files.items():
        (tmp_path / f"{name}.txt").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    paths = [tmp_path / f"{n}.txt" for n in ("base", "sys", "ref0", "ref1")]
    cache = tmp_path / "cache"
    kw = {"test": PairedTest(resamples=50), "session": Session(cache_dir=cache)}
    first = significance_from_files(paths[0], paths[1], paths[2:], **kw)
    assert len(calls) == 2
    second = significance_from_files(paths[0], paths[1], paths[2:], **kw)
    assert second == first and len(calls) == 2


@pytest.mark.realdata
def test_human_counts_through_the_session(data_dir: Path, tmp_path: Path, calls) -> None:
    kw = {"implementations": ["sacrebleu", "nltk"], "bootstrap": BootstrapOptions(n_boot=0)}
    first = wmt21_human_correlations(data_dir, **kw, session=Session(cache_dir=tmp_path))
    n = len(calls)
    assert n == 2 * len(first.systems)  # two tokenizations, every system once
    second = wmt21_human_correlations(data_dir, **kw, session=Session(cache_dir=tmp_path))
    assert len(calls) == n and second.rows() == first.rows()


def _scores_or_error(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except Exception as exc:  # the engine's own refusal, whichever it is
        return (type(exc).__name__, str(exc))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    systems=st.lists(corpora(max_refs=3, allow_empty=True, min_segments=1), min_size=1, max_size=4),
    profile=st.sampled_from(sorted(PROFILES)),
)
def test_corpus_scores_are_each_corpus_scored_alone(
    systems: list[tuple[list[str], list[list[str]]]], profile: str
) -> None:
    """Many corpora in one arithmetic call give each the score it has alone, or raise what
    scoring them one by one raises first."""
    config = PROFILES[profile]
    stats = [
        engine.compute_statistics(Corpus(hypotheses=h, references=r, check_text=False), config)
        for h, r in systems
    ]
    together = _scores_or_error(lambda: batch_scores.corpus_scores(stats, config))
    alone = _scores_or_error(lambda: [engine.score_statistics(s, config).score for s in stats])
    # NaN where a profile gives it (keras-hub on a corpus of empty texts) on both sides
    assert repr(together) == repr(alone)
