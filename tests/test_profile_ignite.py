"""Differential tests: the ``ignite`` profile against pytorch-ignite's ``ignite.metrics.Bleu``.

The oracle is the real metric (pytorch-ignite 0.5.5, the ``peers`` extra), called here directly
on ``str.split`` tokens — not through the adapter — on corpora drawn by
:func:`tests.strategies.corpora`:

* ``average="micro"`` (corpus BLEU, ``aggregation="corpus"``) with each of ignite's four
  smoothings and orders 1–5: equal to 1e-9 BLEU points;
* ``average="macro"`` (the default: the mean of sentence BLEU) with a smoothing: 1e-9;
* ``average="macro"`` without smoothing (the profile itself): ignite divides each sentence's
  precisions in float32 (``n.item() / d``, ``d`` from ``torch.zeros``), so the bound is the
  float32 rounding: a relative error of at most 2**-24 in each precision moves
  ``exp(sum w log p)`` by at most 2**-24 relatively, i.e. 6e-6 of 100 points; the tolerance is
  the profile's own (1e-5). The same corpora scored with ``smooth1``, whose divisions are in
  float64, agree to 1e-9, which shows that the gap is the division and nothing else.

Then the adapter: it must return what the library returns, and the engine what the adapter
returns, for the default and for every smoothing.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu, sentence_bleu
from harness.bleu.profiles import VERIFICATION
from harness.data.corpus import Corpus
from harness.scorers import ADAPTERS

from .depth import examples
from .strategies import corpora

EXACT = 1e-9
FLOAT32 = VERIFICATION["ignite"].tolerance

PROPS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: ignite's smoothing name → the harness's (the profile's zero guard without smoothing).
SMOOTHINGS = {
    "no_smooth": ("none", "any-order"),
    "smooth1": ("nltk-method1", "unigram"),
    "nltk_smooth2": ("nltk-method2", "unigram"),
    "smooth2": ("plus-one-high", "unigram"),
}


def _bleu_class() -> Any:
    try:
        from ignite.metrics import Bleu
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but pytorch-ignite cannot be imported: {exc}", pytrace=False)
        pytest.skip(f"pytorch-ignite unavailable ({exc}): pip install 'bleu-harness[peers]'")
    return Bleu


def ignite(hyps: list[str], refs: list[list[str]], **kwargs: Any) -> float:
    """ignite's BLEU on 0-100, on ``str.split`` tokens, in one ``update``."""
    metric = _bleu_class()(**kwargs)
    metric.update(([h.split() for h in hyps], [[r.split() for r in seg] for seg in refs]))
    return 100.0 * float(metric.compute())


def engine(hyps: list[str], refs: list[list[str]], smooth: str, order: int, average: str) -> float:
    name, guard = SMOOTHINGS[smooth]
    return corpus_bleu(
        hypotheses=hyps,
        references=refs,
        profile="ignite",
        smooth=name,
        zero_guard=guard,
        max_order=order,
        aggregation="sentence-mean" if average == "macro" else "corpus",
    ).score


Drawn = tuple[list[str], list[list[str]]]


@PROPS
@given(corpora(), st.sampled_from(list(SMOOTHINGS)), st.sampled_from([1, 2, 3, 4, 5]))
def test_micro_is_corpus_bleu(corpus: Drawn, smooth: str, order: int) -> None:
    hyps, refs = corpus
    want = ignite(hyps, refs, ngram=order, smooth=smooth, average="micro")
    assert engine(hyps, refs, smooth, order, "micro") == pytest.approx(want, abs=EXACT)


@PROPS
@given(corpora(), st.sampled_from(["smooth1", "nltk_smooth2", "smooth2"]), st.sampled_from([2, 4]))
def test_macro_is_the_mean_of_sentence_bleu(corpus: Drawn, smooth: str, order: int) -> None:
    hyps, refs = corpus
    want = ignite(hyps, refs, ngram=order, smooth=smooth, average="macro")
    assert engine(hyps, refs, smooth, order, "macro") == pytest.approx(want, abs=EXACT)


@PROPS
@given(corpora())
def test_profile_is_the_default_metric(corpus: Drawn) -> None:
    """``Bleu()`` as constructed by default; float32 divisions (see the module docstring)."""
    hyps, refs = corpus
    want = ignite(hyps, refs)
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="ignite")
    assert got.score == pytest.approx(want, abs=FLOAT32)
    assert FLOAT32 <= 1e-5


def test_the_default_gap_is_float32_division() -> None:
    """A corpus where the default's float32 precisions differ from float64 by more than 1e-9
    points, within the float32 bound — so the looser tolerance is needed and is enough."""
    hyps = ["the cat sat on the mat", "a b c d e f", "hello world x"]
    refs = [
        ["the cat is on the mat", "a cat sat on the mat"],
        ["a b c d e", "b c d e f g"],
        ["hello there world", "hi"],
    ]
    gap = abs(
        corpus_bleu(hypotheses=hyps, references=refs, profile="ignite").score - ignite(hyps, refs)
    )
    assert 1e-9 < gap <= 6e-6


# ------------------------------------------------------------------------------ the adapter
ADAPTER_CASES = [
    pytest.param({}, id="default-macro"),
    pytest.param({"aggregation": "corpus"}, id="micro"),
    *(
        pytest.param({"smooth": name, "zero_guard": guard, "aggregation": agg}, id=f"{lib}-{agg}")
        for lib, (name, guard) in SMOOTHINGS.items()
        if lib != "no_smooth"
        for agg in ("sentence-mean", "corpus")
    ),
]


@pytest.mark.parametrize("overrides", ADAPTER_CASES)
def test_adapter_calls_the_library(overrides: dict[str, Any]) -> None:
    hyps = ["the cat sat on the mat", "a b c d e f", "hello world x", ""]
    refs = [
        ["the cat is on the mat", "a cat sat on the mat"],
        ["a b c d e", "b c d e f g"],
        ["hello there world", "hi"],
        ["x"],
    ]
    adapter = ADAPTERS["ignite"]()
    config = adapter.default_config().replace(**overrides)
    corpus = Corpus.from_evaluate(hypotheses=hyps, references=refs)
    result = adapter.corpus(corpus, config)
    smooth = next(k for k, (name, _) in SMOOTHINGS.items() if name == config.smooth)
    average = "macro" if config.aggregation == "sentence-mean" else "micro"
    assert result.score == ignite(hyps, refs, smooth=smooth, average=average)
    assert f"average={average!r}" in result.call and f"smooth={smooth!r}" in result.call
    assert result.counts is not None and result.hyp_len == sum(len(h.split()) for h in hyps)
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="ignite", **overrides)
    assert result.counts == ours.counts and result.ref_len == ours.ref_len
    assert result.score == pytest.approx(ours.score, abs=adapter.tolerance())
    segments = adapter.segments(corpus, config)
    for seg, h, r in zip(segments, hyps, refs, strict=True):
        assert seg.score == ignite([h], [r], smooth=smooth, average=average)
        mine = sentence_bleu(hypothesis=h, references=r, profile="ignite", **overrides)
        assert seg.score == pytest.approx(mine.score, abs=adapter.tolerance())


@pytest.mark.parametrize(
    ("overrides", "refused"),
    [
        ({"smooth": "exp"}, "smooth='exp'"),
        ({"smooth": "nltk-method1", "zero_guard": "unigram", "smooth_value": 0.2}, "0.1"),
        ({"smooth": "nltk-method1", "zero_guard": "any-order"}, "zero_guard"),
        ({"ref_length": "shortest"}, "ref_length"),
        ({"ngram_totals": "floor1"}, "ngram_totals"),
        ({"weights": (0.5, 0.3, 0.1, 0.1)}, "weights"),
        ({"effective_order": True}, "effective_order"),
    ],
)
def test_adapter_refuses_what_ignite_cannot_compute(
    overrides: dict[str, Any], refused: str
) -> None:
    adapter = ADAPTERS["ignite"]()
    support = adapter.supports(adapter.default_config().replace(**overrides))
    assert not support and refused in support.reason
