"""Statistics read from the library call that gave the score.

:func:`harness.scorers.recording.recorded` keeps what a library's inner helper returned during
one call; the adapters of nltk, lm-eval (``bleu``, TruthfulQA, the CodeXGLUE script) and
ignite's ``macro`` Bleu read their counts, totals and lengths that way instead of running the
library a second time. The recorder is tested on its own (what it keeps, that it keeps only the
recording thread's calls, that the library is put back as installed); then each adapter's
statistics against the library's own helpers called separately on the same generated corpora
(the way the adapters read them before), for every nltk smoothing method (methods 5 and 7 call
``modified_precision`` again after counting).
"""

from __future__ import annotations

import os
import threading
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.scorers import ADAPTERS
from harness.scorers.base import pretokenize
from harness.scorers.lmeval_adapter import codexglue_script
from harness.scorers.recording import recorded

from .depth import examples
from .strategies import corpora

PROPS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _module() -> types.ModuleType:
    module = types.ModuleType("recorded_example")

    def double(x: int, *, plus: int = 0) -> int:
        return 2 * x + plus

    def twice(x: int) -> int:  # looks its helper up by module attribute, as libraries do
        return module.double(x) + module.double(x, plus=1)

    module.double = double  # type: ignore[attr-defined]
    module.twice = twice  # type: ignore[attr-defined]
    return module


def test_recorded_keeps_each_call_and_puts_the_helper_back() -> None:
    module = _module()
    original = module.double
    with recorded(module, "double") as calls:
        assert module.twice(3) == 13
    assert [(c.args, c.kwargs, c.result) for c in calls] == [((3,), {}, 6), ((3,), {"plus": 1}, 7)]
    assert module.double is original
    assert module.twice(1) == 5 and len(calls) == 2  # nothing kept after the block


def test_recorded_puts_the_helper_back_when_the_call_fails() -> None:
    module = _module()
    original = module.double
    with pytest.raises(ZeroDivisionError), recorded(module, "double"):
        module.twice(1) / 0
    assert module.double is original


def test_recorded_keeps_only_the_recording_threads_calls() -> None:
    module = _module()
    started, release = threading.Event(), threading.Event()
    other: list[int] = []

    def elsewhere() -> None:
        started.wait()
        other.append(module.twice(10))
        release.set()

    thread = threading.Thread(target=elsewhere)
    thread.start()
    with recorded(module, "double") as calls:
        started.set()
        release.wait(10)
        module.double(1)
    thread.join()
    assert other == [41]
    assert [c.args for c in calls] == [(1,)]


def test_recordings_of_one_helper_do_not_nest_in_a_thread() -> None:
    module = _module()
    with recorded(module, "double"), pytest.raises(RuntimeError, match="already being recorded"):
        with recorded(module, "double"):
            pass


def test_a_recorded_method_receives_its_instance_and_an_inherited_one_is_removed() -> None:
    class Base:
        def size(self, n: int) -> int:
            return n + 1

    class Child(Base):
        pass

    child = Child()
    with recorded(Child, "size") as calls:
        assert child.size(4) == 5
    assert calls[0].args == (child, 4) and calls[0].result == 5
    assert "size" not in vars(Child) and Child.size is Base.size


def _need(module: str, extra: str = "peers") -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {module} cannot be imported: {exc}", pytrace=False)
        pytest.skip(f"{module} unavailable ({exc}): pip install 'bleu-harness[{extra}]'")


def _corpus(hyps: list[str], refs: list[list[str]]) -> Corpus:
    return Corpus.from_evaluate(hypotheses=hyps, references=refs)


def _statistics(result: Any) -> tuple[Any, ...]:
    return result.counts, result.totals, result.hyp_len, result.ref_len


def _sacrebleus(score: Any) -> tuple[Any, ...]:
    """A sacrebleu ``BLEUScore``'s statistics, as :func:`_statistics` lists them."""
    return tuple(score.counts), tuple(score.totals), score.sys_len, score.ref_len


@PROPS
@given(corpora(), st.integers(0, 7))
def test_nltk_statistics_are_its_helpers_on_the_same_tokens(corpus: Any, method: int) -> None:
    bleu_score = _need("nltk.translate.bleu_score")
    hyps, refs = corpus
    config = PROFILES["nltk"].replace(smooth=f"nltk-method{method}")
    tok_hyps = pretokenize(hyps, config)
    tok_refs = [pretokenize(seg, config) for seg in refs]
    counts, totals = [0] * 4, [0] * 4
    ref_len = 0
    for r, h in zip(tok_refs, tok_hyps, strict=True):
        for i in range(4):
            p = bleu_score.modified_precision(r, h, i + 1)
            counts[i] += p.numerator
            totals[i] += p.denominator
        ref_len += bleu_score.closest_ref_length(r, len(h))
    hyp_len = sum(map(len, tok_hyps))
    adapter = ADAPTERS["nltk"]()
    smoothing, _ = adapter.smoothing(config)
    for one in (slice(None), slice(0, 1)):  # the corpus, and the first segment alone
        try:
            bleu_score.corpus_bleu(tok_refs[one], tok_hyps[one], smoothing_function=smoothing)
        except Exception:  # nltk's own refusal (method6 needs a bigram match): no number
            reject()
    got = adapter.corpus(_corpus(hyps, refs), config)
    assert _statistics(got) == (tuple(counts), tuple(totals), hyp_len, ref_len)
    assert got.bp == float(bleu_score.brevity_penalty(ref_len, hyp_len))
    segment = adapter.segments(_corpus(hyps[:1], refs[:1]), config)[0]
    first = [bleu_score.modified_precision(tok_refs[0], tok_hyps[0], i + 1) for i in range(4)]
    assert segment.counts == tuple(p.numerator for p in first)
    assert segment.totals == tuple(p.denominator for p in first)


@PROPS
@given(corpora())
def test_lm_eval_statistics_are_sacrebleus_on_its_sacreformat(corpus: Any) -> None:
    metrics = _need("lm_eval.api.metrics")
    sacrebleu = _need("sacrebleu")
    hyps, refs = corpus
    streams, preds = metrics._sacreformat(refs, hyps)
    want = sacrebleu.corpus_bleu(preds, streams)
    got = ADAPTERS["lm-eval"]().corpus(_corpus(hyps, refs))
    assert _statistics(got) == _sacrebleus(want)
    assert got.bp == want.bp and got.extra["streams"] == len(streams)


@PROPS
@given(corpora())
def test_truthfulqa_statistics_are_the_best_references_sacrebleu(corpus: Any) -> None:
    tqa = _need("lm_eval.tasks.truthfulqa.utils")
    sacrebleu = _need("sacrebleu")
    hyps, refs = corpus
    got = ADAPTERS["lm-eval-truthfulqa"]().segments(_corpus(hyps, refs))
    for h, seg, result in zip(hyps, refs, got, strict=True):
        values = [tqa.bleu([[r]], [h]) for r in seg]
        best = values.index(max(values))
        want = sacrebleu.corpus_bleu([h], [[seg[best]]], tokenize="intl", smooth_method="exp")
        assert result.extra["best_reference"] == best
        assert _statistics(result) == _sacrebleus(want)


@PROPS
@given(corpora())
def test_codexglue_statistics_are_the_scripts_cooked_sentence(corpus: Any) -> None:
    _need("lm_eval")
    script = codexglue_script()
    hyps, refs = corpus
    got = ADAPTERS["codexglue"]().segments(_corpus(hyps, refs))
    for h, seg, result in zip(hyps, refs, got, strict=True):
        cooked = script.cook_test(
            script.splitPuncts(h.strip().lower()),
            script.cook_refs([script.splitPuncts(r.strip().lower()) for r in seg]),
        )
        assert _statistics(result) == (
            tuple(cooked["correct"]),
            tuple(cooked["guess"]),
            cooked["testlen"],
            cooked["reflen"],
        )


@PROPS
@given(corpora())
def test_ignite_macro_statistics_are_a_micro_metrics_state(corpus: Any) -> None:
    _need("ignite.metrics")
    from ignite.metrics import Bleu

    hyps, refs = corpus
    config = PROFILES["ignite"]
    assert config.aggregation == "sentence-mean"  # ignite's default, average="macro"
    tok_hyps = pretokenize(hyps, config)
    tok_refs = [pretokenize(seg, config) for seg in refs]
    micro = Bleu(ngram=4, average="micro")
    micro.update((tok_hyps, tok_refs))
    got = ADAPTERS["ignite"]().corpus(_corpus(hyps, refs), config)
    assert _statistics(got) == (
        tuple(int(x) for x in micro.p_numerators[1:].tolist()),
        tuple(int(x) for x in micro.p_denominators[1:].tolist()),
        int(micro.hyp_length_sum),
        int(micro.ref_length_sum),
    )
