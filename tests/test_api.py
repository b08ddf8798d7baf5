"""The public API's shape, its errors, the config and its signature."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

import harness
from harness.bleu import engine
from harness.bleu.config import OVERRIDABLE, BleuConfig
from harness.bleu.stats import Totals
from harness.errors import ConfigError, HarnessError, InputError, LayoutError

from .depth import examples
from .strategies import corpora

HYPS = ["the cat sat on the mat", "a dog ."]
REFS = [["the cat sat on a mat", "a cat sat on the mat"], ["a dog barked ."]]


def test_result_has_the_documented_fields() -> None:
    r = harness.corpus_bleu(hypotheses=HYPS, references=REFS)
    for name in (
        "score",
        "precisions",
        "bp",
        "ratio",
        "hyp_len",
        "ref_len",
        "counts",
        "totals",
        "signature",
    ):
        assert hasattr(r, name)
    assert 0 <= r.score <= 100
    assert len(r.precisions) == len(r.counts) == len(r.totals) == 4
    assert r.signature.startswith("tok:13a|")


def test_profiles_mapping_holds_configs() -> None:
    assert set(harness.PROFILES) >= {
        "sacrebleu",
        "sacrebleu-sentence",
        "nltk",
        "evaluate",
        "bleuscore",
        "torchmetrics",
        "torchmetrics-sacrebleu",
        "pycocoevalcap",
        "mteval-v13a",
        "multi-bleu",
        "multi-bleu-detok",
    }
    assert all(isinstance(c, BleuConfig) for c in harness.PROFILES.values())


@pytest.mark.parametrize(
    "override",
    [
        "tokenize",
        "lowercase",
        "smooth",
        "smooth_value",
        "max_order",
        "ref_length",
        "effective_order",
    ],
)
def test_required_overrides_exist(override: str) -> None:
    assert override in OVERRIDABLE


def test_overrides_change_the_signature() -> None:
    a = harness.corpus_bleu(hypotheses=HYPS, references=REFS)
    b = harness.corpus_bleu(hypotheses=HYPS, references=REFS, tokenize="none", lowercase=True)
    assert a.signature != b.signature
    assert "tok:none" in b.signature and "case:lc" in b.signature


def test_signature_names_every_factor_and_version_last() -> None:
    sig = BleuConfig().signature(versions={"sacrebleu": "2.6.0"})
    keys = [part.split(":")[0] for part in sig.split("|")]
    assert keys[-1] == "version"
    assert "sacrebleu=2.6.0" in sig.split("|")[-1]
    for key in ("tok", "case", "n", "ref", "tot", "smooth", "eff", "empty", "guard", "agg"):
        assert key in keys


def test_signature_distinguishes_every_field_change() -> None:
    base = BleuConfig()
    changes = dict(
        tokenize="intl",
        lowercase=True,
        max_order=3,
        weights=(0.5, 0.3, 0.1, 0.1),
        ref_length="shortest",
        ngram_totals="floor1",
        smooth="floor",
        smooth_value=0.2,
        effective_order=True,
        empty_order="one",
        zero_guard="none",
        on_zero_length="raise",
        aggregation="sentence-mean",
    )
    for key, value in changes.items():
        kwargs = {key: value}
        if key == "smooth_value":
            kwargs["smooth"] = "floor"
        assert BleuConfig(**kwargs).signature() != base.signature(), key


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"profile": "sacreblue"}, "unknown profile 'sacreblue'"),
        ({"tokenise": "13a"}, "unknown option(s) tokenise"),
        ({"tokenize": "13b"}, "unknown tokenize '13b'"),
        ({"smooth": "laplace"}, "unknown smooth 'laplace'"),
        ({"ref_length": "nearest"}, "unknown ref_length"),
        ({"max_order": 0}, "max_order"),
        ({"smooth": "none", "smooth_value": 1.0}, "takes no smooth_value"),
        ({"weights": (0.5, 0.5)}, "weights has 2 entries"),
    ],
)
def test_bad_options_raise_config_error_listing_valid(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        harness.corpus_bleu(hypotheses=HYPS, references=REFS, **kwargs)
    assert fragment in str(info.value)
    assert isinstance(info.value, HarnessError)


def test_unknown_profile_lists_valid_profiles() -> None:
    with pytest.raises(ConfigError) as info:
        harness.corpus_bleu(hypotheses=HYPS, references=REFS, profile="nope")
    assert "sacrebleu" in str(info.value) and "nltk" in str(info.value)


def test_bad_layouts() -> None:
    with pytest.raises(LayoutError) as info:
        harness.corpus_bleu(hypotheses=HYPS, references=REFS[:1])
    assert info.value.expected == 2 and info.value.got == 1
    with pytest.raises(LayoutError, match="empty corpus"):
        harness.corpus_bleu(hypotheses=[], references=[])
    with pytest.raises(LayoutError, match="flat list"):
        harness.corpus_bleu(hypotheses=HYPS, references=["a", "b"])
    with pytest.raises(InputError, match="must be a string"):
        harness.corpus_bleu(hypotheses=["a", 3], references=[["a"], ["b"]])
    with pytest.raises(LayoutError):
        harness.sentence_bleu(hypothesis=["a"], references=["a"])
    with pytest.raises(LayoutError):
        harness.sentence_bleu(hypothesis="a", references="a")


def test_positional_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        harness.corpus_bleu(HYPS, REFS)  # type: ignore[misc]


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        BleuConfig().smooth = "none"  # type: ignore[misc]


# ---------------------------------------------------------------- properties of the engine
@settings(max_examples=examples(200), deadline=None)
@given(corpora())
def test_scores_in_range_and_order_invariant(data: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = data
    for profile in ("sacrebleu", "evaluate", "bleuscore", "pycocoevalcap"):
        try:
            a = harness.corpus_bleu(hypotheses=hyps, references=refs, profile=profile)
        except harness.LibraryWouldRaise:
            continue
        assert 0.0 <= a.score <= 100.0 + 1e-9
        b = harness.corpus_bleu(hypotheses=hyps[::-1], references=refs[::-1], profile=profile)
        assert abs(a.score - b.score) < 1e-9


@settings(max_examples=examples(200), deadline=None)
@given(corpora(min_segments=2))
def test_statistics_add(data: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = data
    cfg = harness.PROFILES["sacrebleu"]
    whole = engine.compute_statistics(harness.Corpus(hypotheses=hyps, references=refs), cfg)
    k = len(hyps) // 2
    head = engine.compute_statistics(harness.Corpus(hypotheses=hyps[:k], references=refs[:k]), cfg)
    tail = engine.compute_statistics(
        harness.Corpus(
            hypotheses=hyps[k:], references=refs[k:], ids=[str(i) for i in range(k, len(hyps))]
        ),
        cfg,
    )
    joined = head + tail
    assert np.array_equal(joined.matches, whole.matches)
    assert joined.ref_lens == whole.ref_lens
    t1 = engine.totals_of(head, cfg) + engine.totals_of(tail, cfg)
    assert t1 == engine.totals_of(whole, cfg)


@settings(max_examples=examples(200), deadline=None)
@given(corpora())
def test_duplicate_reference_changes_nothing(data: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = data
    doubled = [seg + seg[:1] for seg in refs]
    for profile in ("sacrebleu", "nltk", "torchmetrics"):
        a = harness.corpus_bleu(hypotheses=hyps, references=refs, profile=profile)
        b = harness.corpus_bleu(hypotheses=hyps, references=doubled, profile=profile)
        assert a.score == b.score


def test_totals_add_elementwise() -> None:
    a = Totals(3, 4, (1, 0), (3, 2))
    b = Totals(2, 2, (2, 1), (2, 1))
    assert a + b == Totals(5, 6, (3, 1), (5, 3))


def test_harness_errors_survive_pickling() -> None:
    """Errors raised in worker processes (``--jobs``, Dask) must come back intact."""
    import pickle

    from harness.errors import AdapterUnavailable, LibraryWouldRaise

    for exc in (
        InputError("bad byte", file="refs.txt", line=3),
        LayoutError("mismatch", what="stream 2", expected=3, got=2),
        ConfigError("unknown", valid=["a", "b"]),
        AdapterUnavailable("evaluate", "offline", "set a path"),
        LibraryWouldRaise("evaluate", "ZeroDivisionError", "empty"),
    ):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc)
        assert str(back) == str(exc)
        assert back.__dict__ == exc.__dict__


# ---------------------------------------------------------------------- statistics by content
def test_public_functions_reuse_statistics_by_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13 item 2: new list objects with the same content are counted once per
    tokenization; profiles sharing a tokenization share the count; any change is a miss."""
    hyps = ["The cat sat on the mat.", "Hello, world!", "a b c d"]
    refs = [["The cat is on the mat."], ["Hello world!", "hello , world"], ["a b c"]]
    calls: list[str] = []
    count = engine.compute_statistics

    def counting(corpus, config, **kw):  # type: ignore[no-untyped-def]
        calls.append(engine.tokenization_key(config))
        return count(corpus, config, **kw)

    monkeypatch.setattr(harness.statistics_cache(), "compute", counting)
    first = harness.corpus_bleu(hypotheses=hyps, references=refs)
    again = harness.corpus_bleu(hypotheses=list(hyps), references=[list(r) for r in refs])
    harness.corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", smooth="floor")
    seg = harness.segment_bleu(hypotheses=hyps, references=refs)
    assert again == first
    assert len(calls) == len(set(calls)) == 2  # 13a, and 13a without stripping (evaluate)
    harness.corpus_bleu(hypotheses=[*hyps[:2], "a b c e"], references=refs)
    assert len(calls) == 3
    # scores do not depend on the cache
    harness.statistics_cache().enabled = False
    try:
        cold = harness.corpus_bleu(hypotheses=hyps, references=refs)
        cold_seg = harness.segment_bleu(hypotheses=hyps, references=refs)
    finally:
        harness.statistics_cache().enabled = True
    assert cold == first
    assert cold_seg.score.tolist() == seg.score.tolist()
    # what the caller gets is theirs to change: the cached arrays stay untouched
    seg.hyp_len[0] = seg.counts[0, 0] = seg.ref_len[0] = -1
    assert harness.segment_bleu(hypotheses=hyps, references=refs).hyp_len[0] != -1
