"""The statistics cache: keys, order slicing, the disk layer, corruption, concurrent writers.

Invalidation table: a statistic is reused only when content (hypotheses, references, ids),
tokenizer, case and engine version are all unchanged (issue 6, item 2).
"""

from __future__ import annotations

import os
import threading
import unicodedata
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import harness.bleu.config
import harness.session.cache
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.errors import LayoutError
from harness.session.cache import (
    CacheWarning,
    StatisticsCache,
    content_hash,
    default_cache_dir,
    get_statistics,
    tokenizer_signature,
)
from harness.session.disk import Bound, usage

from .depth import examples

SACRE = PROFILES["sacrebleu"]


def _corpus(**changes: object) -> Corpus:
    fields: dict[str, object] = {
        "hypotheses": (
            "The cat sat on the mat.",
            "It is a guide to action, which ensures that the military obeys.",
            "Hello, world!",
            "",
        ),
        "references": (
            ("The cat is on the mat.", "There is a cat on the mat."),
            ("It is a guide to action that ensures that the military will forever heed.",),
            ("Hello world!", "HELLO, World!", "hello , world !"),
            ("Nothing here.",),
        ),
        "ids": ("a", "b", "c", "d"),
    }
    fields.update(changes)
    return Corpus(**fields)  # type: ignore[arg-type]


class Counting:
    """A compute function that counts its calls (to tell hits from misses)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def __call__(self, corpus: Corpus, config: BleuConfig, *, max_order: int):
        self.calls.append((engine.tokenization_key(config), max_order))
        return engine.compute_statistics(corpus, config, max_order=max_order)


def assert_same(a, b) -> None:
    assert a.hyp_len.dtype == b.hyp_len.dtype and a.matches.dtype == b.matches.dtype
    assert np.array_equal(a.hyp_len, b.hyp_len)
    assert np.array_equal(a.matches, b.matches)
    assert a.ref_lens == b.ref_lens
    assert a.ids == b.ids
    assert a.tokenization == b.tokenization


# ---------------------------------------------------------------------- invalidation table
def _one_char(c: Corpus) -> Corpus:
    hyps = list(c.hypotheses)
    hyps[1] = hyps[1].replace("guide", "guido")
    return _corpus(hypotheses=tuple(hyps))


def _one_ref_char(c: Corpus) -> Corpus:
    refs = list(c.references)
    refs[0] = ("The cat is on the mat!", refs[0][1])
    return _corpus(references=tuple(refs))


def _moved_boundary(c: Corpus) -> Corpus:
    # the same characters, regrouped: framing must make this a different key
    refs = list(c.references)
    refs[0] = ("The cat is on the mat.There is a cat on the mat.",)
    return _corpus(references=tuple(refs))


@pytest.mark.parametrize(
    ("name", "other_corpus", "other_config", "hit"),
    [
        ("same content, another object", lambda c: _corpus(), SACRE, True),
        ("another name/provenance only", lambda c: _corpus(name="x"), SACRE, True),
        ("one hypothesis character", _one_char, SACRE, False),
        ("one reference character", _one_ref_char, SACRE, False),
        ("reference boundaries moved", _moved_boundary, SACRE, False),
        ("segment ids", lambda c: _corpus(ids=("1", "2", "3", "4")), SACRE, False),
        ("tokenizer", lambda c: c, SACRE.replace(tokenize="intl"), False),
        ("lowercase", lambda c: c, SACRE.replace(lowercase=True), False),
        ("scoring factors only (smoothing)", lambda c: c, SACRE.replace(smooth="floor"), True),
        (
            "scoring factors only (ref length)",
            lambda c: c,
            SACRE.replace(ref_length="shortest", smooth="none", zero_guard="none"),
            True,
        ),
        ("strip before tokenizing", lambda c: c, PROFILES["evaluate"], False),
    ],
)
def test_invalidation_table(name, other_corpus, other_config, hit) -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    base = _corpus()
    first = cache.get(base, SACRE)
    second = cache.get(other_corpus(base), other_config)
    assert len(counting.calls) == (1 if hit else 2), name
    if hit:
        assert cache.stats.hits == 1
        assert_same(second, first)


def test_engine_version_bump_is_a_miss_in_memory_and_on_disk(tmp_path, monkeypatch) -> None:
    counting = Counting()
    cache = StatisticsCache(tmp_path, compute=counting)
    cache.get(_corpus(), SACRE)
    monkeypatch.setattr(harness.bleu.config, "ENGINE_VERSION", "999.0.0")
    cache.get(_corpus(), SACRE)
    assert len(counting.calls) == 2
    fresh = StatisticsCache(tmp_path, compute=counting)  # disk only: still a miss
    monkeypatch.setattr(harness.bleu.config, "ENGINE_VERSION", "999.0.1")
    fresh.get(_corpus(), SACRE)
    assert len(counting.calls) == 3
    assert fresh.stats.disk_hits == 0
    assert len(list(tmp_path.glob("*.npz"))) == 3


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


def test_the_tokenizer_signature_names_what_the_registry_entry_depends_on() -> None:
    """Tokenization key, Python's Unicode database, then each distribution the tokenizer's
    registry entry declares with its installed version (read here with importlib.metadata)."""
    for name, spec in REGISTRY.items():
        config = BleuConfig(tokenize=name, lowercase=True)
        versions = "".join(f"|{d}:{_installed(d)}" for d in spec.distributions)
        unicode = f"unicode:{unicodedata.unidata_version}"
        want = f"{engine.tokenization_key(config)}|{unicode}{versions}"
        assert tokenizer_signature(config) == want


def test_a_new_version_of_a_tokenizer_dependency_changes_its_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Statistics counted with one version of a declared distribution are never served for
    another: every declared distribution enters the key."""
    cache_module = harness.session.cache
    real = cache_module._dist_version
    declared = [(name, d) for name, spec in REGISTRY.items() for d in spec.distributions]
    assert declared
    for name, distribution in declared:
        config = BleuConfig(tokenize=name)
        before = tokenizer_signature(config)
        with monkeypatch.context() as patch:
            patch.setattr(
                cache_module,
                "_dist_version",
                lambda d, changed=distribution: "0+other" if d == changed else real(d),
            )
            cache_module._dependencies.cache_clear()
            assert tokenizer_signature(config) != before
        cache_module._dependencies.cache_clear()
        assert tokenizer_signature(config) == before


def test_profiles_sharing_a_tokenization_share_one_computation() -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    c = _corpus()
    for config in PROFILES.values():
        if config.tokenize in ("ja-mecab", "ko-mecab"):
            continue
        stats = cache.get(c, config)
        assert_same(stats, engine.compute_statistics(c, config))
    distinct: set[str] = set()
    kept: set[str] = set()
    for p in PROFILES.values():
        if p.tokenize in ("ja-mecab", "ko-mecab"):
            continue
        distinct.add(tokenizer_signature(p))
        # an entry that counts each reference alone serves the same tokens without them
        twin = tokenizer_signature(p, per_ref=True)
        if engine.needs_ref_matches(p) or twin not in kept:
            kept.add(tokenizer_signature(p))
    # at most one extra computation per tokenization (when a later profile needs order 5)
    assert len(counting.calls) <= 2 * len(distinct)
    assert len(cache) == len(kept) < len(distinct)


def test_statistics_without_per_reference_matches_come_from_an_entry_with_them() -> None:
    # helm-bleu-1 counts each reference alone (best-ref-mean); deepeval-bleu1 has its tokens
    # and counts less: it is served from helm's entry, and equal to counting it directly
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    c = _corpus()
    per_ref, plain = PROFILES["helm-bleu-1"], PROFILES["deepeval-bleu1"]
    assert engine.needs_ref_matches(per_ref) and not engine.needs_ref_matches(plain)
    cache.get(c, per_ref)
    served = cache.get(c, plain)
    assert_same(served, engine.compute_statistics(c, plain))
    assert served.ref_matches is None and len(counting.calls) == 1
    # the other way round is counted: an entry without them cannot give them
    other = StatisticsCache(compute=Counting())
    other.get(c, plain)
    assert other.get(c, per_ref).ref_matches is not None


def test_content_hash_depends_on_content_only() -> None:
    assert content_hash(_corpus()) == content_hash(_corpus(name="other"))
    assert content_hash(_corpus()) != content_hash(_one_char(_corpus()))


# ---------------------------------------------------------------------- orders
def test_higher_order_serves_lower_orders_exactly() -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    c = _corpus()
    five = cache.get(c, SACRE, max_order=5)
    for n in (1, 2, 3, 4):
        sliced = cache.get(c, SACRE, max_order=n)
        assert_same(sliced, engine.compute_statistics(c, SACRE, max_order=n))
    assert counting.calls == [(engine.tokenization_key(SACRE), 5)]
    assert five.max_order == 5


def test_lower_order_first_then_higher_recomputes_and_keeps_the_higher() -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    c = _corpus()
    cache.get(c, SACRE, max_order=4)
    cache.get(c, SACRE, max_order=5)
    cache.get(c, SACRE, max_order=3)
    assert [o for _, o in counting.calls] == [4, 5]


def test_at_order_refuses_orders_that_were_not_counted() -> None:
    stats = engine.compute_statistics(_corpus(), SACRE, max_order=2)
    with pytest.raises(ValueError, match=r"orders 1\.\.2"):
        StatisticsCache.at_order(stats, 3)


def test_cached_arrays_are_read_only() -> None:
    stats = StatisticsCache().get(_corpus(), SACRE)
    with pytest.raises(ValueError):
        stats.matches[0, 0] = 99
    # arithmetic on them still works
    assert int((stats.matches + 1).sum()) > 0


def test_store_rejects_statistics_of_another_tokenization() -> None:
    cache = StatisticsCache()
    c = _corpus()
    other = engine.compute_statistics(c, SACRE.replace(tokenize="char"))
    with pytest.raises(LayoutError):
        cache.store(c, SACRE, other)


# ---------------------------------------------------------------------- disk
def test_disk_round_trip_equals_fresh_computation(tmp_path) -> None:
    c = _corpus()
    writer = StatisticsCache(tmp_path)
    writer.get(c, SACRE, max_order=5)
    counting = Counting()
    reader = StatisticsCache(tmp_path, compute=counting)
    for n in (5, 4):
        assert_same(
            reader.get(c, SACRE, max_order=n), engine.compute_statistics(c, SACRE, max_order=n)
        )
    assert counting.calls == []
    assert reader.stats.disk_hits == 1 and reader.stats.hits == 1
    assert [p.name for p in tmp_path.iterdir()] == [reader.path_for(c, SACRE).name]


def test_the_disk_bound_keeps_the_entries_used_last(tmp_path) -> None:
    """Three entries where two fit: the one read again (a hit refreshes it) and the newest
    are kept, the one neither written nor read since is deleted; a new cache on the
    directory still reads the two kept."""
    corpora = [_corpus(ids=(f"{k}a", f"{k}b", f"{k}c", f"{k}d")) for k in range(3)]
    writer = StatisticsCache(tmp_path)
    paths = []
    for k, c in enumerate(corpora):
        writer.get(c, SACRE)
        paths.append(writer.path_for(c, SACRE))
        os.utime(paths[-1], (1000.0 + k, 1000.0 + k))  # written in this order, seconds apart
    sizes = [p.stat().st_size for p in paths]
    bounded = StatisticsCache(tmp_path, disk_max_bytes=sizes[0] + sizes[2])
    bounded.get(corpora[0], SACRE)  # read from disk: now the most recently used
    assert bounded.stats.disk_hits == 1
    assert bounded.prune() == 1
    assert [p.exists() for p in paths] == [True, False, True]
    reader = StatisticsCache(tmp_path, compute=Counting())
    reader.get(corpora[0], SACRE)
    reader.get(corpora[2], SACRE)
    assert reader.stats.disk_hits == 2


def test_writes_trim_the_directory_once_they_reach_a_twentieth_of_the_bound(tmp_path) -> None:
    """:class:`Bound`: the writes since the last trim, not each write, start one (at least
    1 MB apart), and a trim deletes the oldest first down to the bound."""
    for k in range(4):
        f = tmp_path / f"{k}.npz"
        f.write_bytes(b"x" * 100)
        os.utime(f, (1000.0 + k, 1000.0 + k))
    (tmp_path / "other.rows").write_bytes(b"y" * 500)  # another cache's file: never counted
    bound = Bound(tmp_path, 250, (".npz",))
    bound.wrote(1 << 20)  # exactly the step: no trim yet
    assert usage(tmp_path, (".npz",)) == (4, 400)
    bound.wrote(1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2.npz", "3.npz", "other.rows"]
    bound.wrote(1 << 20)  # the count started again at the trim
    assert usage(tmp_path, (".npz",)) == (2, 200)


def test_use_disk_false_and_memory_only_write_no_files(tmp_path) -> None:
    StatisticsCache(tmp_path).get(_corpus(), SACRE, use_disk=False)
    StatisticsCache(None).get(_corpus(), SACRE)
    assert list(tmp_path.iterdir()) == []


def test_disabled_cache_always_computes_and_keeps_nothing(tmp_path) -> None:
    counting = Counting()
    cache = StatisticsCache.disabled(compute=counting)
    a = cache.get(_corpus(), SACRE)
    b = cache.get(_corpus(), SACRE)
    assert len(counting.calls) == 2 and len(cache) == 0
    assert_same(a, b)
    assert a.matches.flags.writeable  # not shared, not frozen


def _corrupt_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _corrupt_garbage(path: Path) -> None:
    path.write_bytes(b"not a zip file at all")


def _corrupt_empty(path: Path) -> None:
    path.write_bytes(b"")


def _corrupt_tampered(path: Path) -> None:
    # a well-formed npz whose arrays no longer match the embedded checksum
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["matches"] = arrays["matches"] + 1
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _corrupt_foreign(path: Path) -> None:
    # another key's file under this name (e.g. copied by hand)
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["meta"] = np.frombuffer(
        arrays["meta"].tobytes().replace(b'"engine": "', b'"engine": "x'), dtype=np.uint8
    )
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


@pytest.mark.parametrize(
    "corrupt",
    [_corrupt_truncate, _corrupt_garbage, _corrupt_empty, _corrupt_tampered, _corrupt_foreign],
)
def test_corrupt_file_is_recomputed_overwritten_and_warned(tmp_path, corrupt) -> None:
    c = _corpus()
    StatisticsCache(tmp_path).get(c, SACRE)
    (path,) = tmp_path.glob("*.npz")
    corrupt(path)
    counting = Counting()
    cache = StatisticsCache(tmp_path, compute=counting)
    with pytest.warns(CacheWarning, match="recomputing"):
        stats = cache.get(c, SACRE)
    assert len(counting.calls) == 1 and cache.stats.corrupt == 1
    assert_same(stats, engine.compute_statistics(c, SACRE))
    # overwritten: a third cache reads it back without warnings
    again = StatisticsCache(tmp_path, compute=counting)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(again.get(c, SACRE), stats)
    assert again.stats.disk_hits == 1 and len(counting.calls) == 1


def test_unwritable_directory_warns_and_still_returns(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = StatisticsCache(blocker / "sub")
    with pytest.warns(CacheWarning, match="cannot write"):
        stats = cache.get(_corpus(), SACRE)
    assert_same(stats, engine.compute_statistics(_corpus(), SACRE))


def test_concurrent_writers_never_leave_a_partial_file(tmp_path) -> None:
    c = _corpus()
    expected = engine.compute_statistics(c, SACRE)
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = [0]

    def writer() -> None:
        try:
            for _ in range(25):
                cache = StatisticsCache(tmp_path)
                cache.store(c, SACRE, engine.compute_statistics(c, SACRE))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        path = StatisticsCache(tmp_path).path_for(c, SACRE)
        while not stop.is_set():
            if path.exists():
                cache = StatisticsCache(tmp_path, compute=_fail)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a partial file would warn
                    try:
                        assert_same(cache.get(c, SACRE), expected)
                        reads[0] += 1
                    except BaseException as exc:
                        errors.append(exc)
                        return

    threads = [threading.Thread(target=writer) for _ in range(3)]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    r.join()
    assert not errors, errors[0]
    assert reads[0] > 0
    assert [p.suffix for p in tmp_path.iterdir()] == [".npz"]  # no temporary files left


def _fail(*args, **kwargs):
    raise AssertionError("should have been a cache hit")


# ---------------------------------------------------------------------- convenience
def test_get_statistics_uses_the_env_directory(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BLEU_HARNESS_CACHE_DIR", str(tmp_path / "stats"))
    assert default_cache_dir() == tmp_path / "stats"
    first = get_statistics(_corpus(), SACRE)
    assert len(list((tmp_path / "stats").glob("*.npz"))) == 1
    calls = []
    real = engine.compute_statistics
    monkeypatch.setattr(
        engine, "compute_statistics", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    assert_same(get_statistics(_corpus(), SACRE), first)
    assert calls == []
    get_statistics(_corpus(), SACRE, use_disk=False)
    assert calls == [1]


def test_default_cache_dir_precedence(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("BLEU_HARNESS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "bleu-harness" / "stats"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert (
        default_cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "bleu-harness" / "stats"
    )


def test_warm_computes_each_corpus_and_tokenization_once() -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting)
    corpora = [_corpus(), _one_char(_corpus()), _corpus()]  # the third repeats the first
    configs = [
        SACRE,
        PROFILES["nltk"],
        SACRE.replace(smooth="floor"),
        SACRE.replace(tokenize="char"),
    ]
    n = cache.warm(corpora, configs)
    groups = {tokenizer_signature(c) for c in configs}
    assert n == 2 * len(groups)
    for c in corpora:
        for cfg in configs:
            assert_same(cache.get(c, cfg), engine.compute_statistics(c, cfg))
    assert counting.calls == []  # warm used map_statistics, every get was a hit
    assert cache.warm(corpora, configs) == 0


# ---------------------------------------------------------------------- content framing
_texts = st.text(alphabet=st.sampled_from(["a", "b", " ", "\x00", "é", "\ud800"]), max_size=4)


@st.composite
def _small_corpora(draw: st.DrawFn) -> Corpus:
    n = draw(st.integers(1, 3))
    refs = tuple(tuple(draw(st.lists(_texts, min_size=1, max_size=3))) for _ in range(n))
    ids = tuple(
        draw(
            st.lists(
                st.sampled_from(["1", "2", "3", "", "12"]), min_size=n, max_size=n, unique=True
            )
        )
    )
    return Corpus(
        hypotheses=tuple(draw(st.lists(_texts, min_size=n, max_size=n))),
        references=refs,
        ids=ids,
        check_text=False,
    )


@settings(max_examples=examples(400), deadline=None)
@given(_small_corpora(), _small_corpora())
def test_content_hash_is_equal_exactly_when_the_texts_are(a: Corpus, b: Corpus) -> None:
    """The framing is unambiguous: texts that concatenate alike but split differently, or
    references moved between segments, hash differently."""
    same = (a.ids, a.hypotheses, a.references) == (b.ids, b.hypotheses, b.references)
    assert (content_hash(a) == content_hash(b)) == same


def test_content_hash_separates_texts_that_concatenate_alike() -> None:
    one = Corpus(hypotheses=("ab", "c"), references=(("x",), ("y", "z")), ids=("1", "2"))
    assert content_hash(one) != content_hash(
        Corpus(hypotheses=("a", "bc"), references=(("x",), ("y", "z")), ids=("1", "2"))
    )
    assert content_hash(one) != content_hash(
        Corpus(hypotheses=("ab", "c"), references=(("x", "y"), ("z",)), ids=("1", "2"))
    )
    assert content_hash(one) != content_hash(
        Corpus(hypotheses=("ab", "c"), references=(("x",), ("y", "z")), ids=("12", ""))
    )


# ---------------------------------------------------------------------- bounded memory
def test_max_entries_drops_the_least_recently_used() -> None:
    counting = Counting()
    cache = StatisticsCache(compute=counting, max_entries=2)
    a, b, c = _corpus(), _one_char(_corpus()), _corpus(ids=("w", "x", "y", "z"))
    cache.get(a, SACRE)
    cache.get(b, SACRE)
    cache.get(a, SACRE)  # a is now the most recent: b goes when c arrives
    cache.get(c, SACRE)
    assert len(cache) == 2
    calls = len(counting.calls)
    cache.get(a, SACRE)
    assert len(counting.calls) == calls  # kept
    cache.get(b, SACRE)
    assert len(counting.calls) == calls + 1  # dropped, counted again
    with pytest.raises(ValueError, match="max_entries"):
        StatisticsCache(max_entries=0)


def test_digests_of_collected_corpora_are_forgotten() -> None:
    cache = StatisticsCache()
    for _ in range(5):
        cache.get(_corpus(), SACRE)  # a new Corpus object each time, collected after the call
    import gc

    gc.collect()
    assert len(cache._digests) <= 1
    assert cache.stats.hits == 4


def test_max_bytes_keeps_the_newest_entries_within_the_bound() -> None:
    a, b, c = _corpus(), _one_char(_corpus()), _corpus(ids=("w", "x", "y", "z"))
    one = engine.compute_statistics(a, SACRE).approx_bytes()
    assert one > 0
    cache = StatisticsCache(max_bytes=2 * one)
    for corpus in (a, b, c):
        cache.get(corpus, SACRE)
    assert len(cache) == 2 and cache._bytes <= 2 * one  # a went
    assert cache.lookup(a, SACRE, max_order=4) is None
    assert cache.lookup(c, SACRE, max_order=4) is not None
    tiny = StatisticsCache(max_bytes=1)  # below one entry: the newest is still kept
    tiny.get(a, SACRE)
    tiny.get(b, SACRE)
    assert len(tiny) == 1 and tiny.lookup(b, SACRE, max_order=4) is not None
    tiny.clear()
    assert tiny._bytes == 0
