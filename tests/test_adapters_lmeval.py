"""The lm-evaluation-harness adapters call lm-eval's own functions, and equal their profiles.

The oracle here is lm-eval 0.4.13 itself (the ``peers`` extra), called directly by the test —
``lm_eval.api.metrics.bleu``, ``lm_eval.tasks.truthfulqa.utils.bleu`` and the code2text
script's ``smoothed_bleu_4`` / ``bleuFromMaps`` — on corpora from
:func:`tests.strategies.corpora`; the adapters must return exactly what those return, and the
engine's profiles must agree to 1e-9 BLEU points (the profiles' own differential tests, against
the published files, are ``tests/test_profile_frameworks.py`` and
``tests/test_profile_scripts.py``).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from harness.api import corpus_bleu
from harness.data.corpus import Corpus
from harness.scorers import ADAPTERS, DEFAULT_ADAPTERS
from harness.scorers.lmeval_adapter import codexglue_script

from .depth import examples
from .strategies import corpora

EXACT = 1e-9
PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Drawn = tuple[list[str], list[list[str]]]


def _lm_eval() -> Any:
    try:
        import lm_eval.api.metrics as metrics
        import lm_eval.tasks.truthfulqa.utils as truthfulqa
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but lm-eval cannot be imported: {exc}", pytrace=False)
        pytest.skip(f"lm-eval unavailable ({exc}): pip install 'bleu-harness[peers]'")
    return metrics, truthfulqa


def _corpus(hyps: list[str], refs: list[list[str]]) -> Corpus:
    return Corpus.from_evaluate(hypotheses=hyps, references=refs)


@PROPS
@given(corpora())
def test_lm_eval_bleu(corpus: Drawn) -> None:
    metrics, _ = _lm_eval()
    hyps, refs = corpus
    want = metrics.bleu(list(zip(refs, hyps, strict=True)))
    got = ADAPTERS["lm-eval"]().corpus(_corpus(hyps, refs))
    assert got.score == want
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="lm-eval")
    assert ours.score == pytest.approx(want, abs=EXACT)
    assert got.counts == ours.counts and got.hyp_len == ours.hyp_len


@PROPS
@given(corpora())
def test_truthfulqa_bleu_max(corpus: Drawn) -> None:
    metrics, truthfulqa = _lm_eval()
    hyps, refs = corpus
    best = [
        max(truthfulqa.bleu([[r]], [h]) for r in seg) for h, seg in zip(hyps, refs, strict=True)
    ]
    want = metrics.mean(best)
    got = ADAPTERS["lm-eval-truthfulqa"]().corpus(_corpus(hyps, refs))
    assert got.score == want
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="lm-eval-truthfulqa")
    assert ours.score == pytest.approx(want, abs=EXACT)


@PROPS
@given(corpora())
def test_codexglue_smoothed_bleu(corpus: Drawn) -> None:
    metrics, _ = _lm_eval()
    script = codexglue_script()
    hyps, refs = corpus
    per_document = []
    for h, seg in zip(hyps, refs, strict=True):
        if len(seg) == 1:
            per_document.append(script.smoothed_bleu_4(references=seg, predictions=[h]))
        else:
            gold = {0: [script.splitPuncts(r.strip().lower()) for r in seg]}
            pred = {0: [script.splitPuncts(h.strip().lower())]}
            per_document.append(script.bleuFromMaps(gold, pred)[0])
    want = metrics.mean(per_document)
    got = ADAPTERS["codexglue"]().corpus(_corpus(hyps, refs))
    assert got.score == want
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="codexglue")
    assert ours.score == pytest.approx(want, abs=EXACT)
    assert got.counts == ours.counts and got.ref_len == ours.ref_len


def test_the_adapters_are_compared_by_default() -> None:
    assert {"lm-eval", "lm-eval-truthfulqa", "codexglue"} <= set(DEFAULT_ADAPTERS)


@pytest.mark.parametrize("name", ["lm-eval", "lm-eval-truthfulqa", "codexglue"])
@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"tokenize": "char"}, "tokenize"),
        ({"max_order": 2}, "max_order"),
        ({"ref_length": "longest"}, "ref_length"),
        ({"weights": (0.7, 0.1, 0.1, 0.1)}, "weights"),
        ({"effective_order": True}, "effective_order"),
    ],
)
def test_the_adapters_refuse_every_option(name: str, overrides: dict[str, Any], field: str) -> None:
    adapter = ADAPTERS[name]()
    support = adapter.supports(adapter.default_config().replace(**overrides))
    assert not support and field in support.reason
