"""Differential tests: the profiles of LLM-evaluation frameworks against their published code.

``lighteval-bleu`` claims lighteval 0.13.0's ``bleu`` metric: documents prepared by its
``GenerativePreparator`` and scored by ``CorpusLevelTranslationMetric("bleu")``
(``lighteval/metrics/metrics_corpus.py``), which keeps each document's first gold only.
``compare-mt-sacrebleu`` claims compare-mt 0.2.10's ``sacrebleu`` scorer
(``compare_mt/scorers.py`` ``SacreBleuScorer``) on the tokens its command line reads
(``line.strip().split(' ')``); ``compare-mt-bleu`` and ``compare-mt-sentbleu`` its ``BleuScorer``
(its own arithmetic) and ``SentBleuScorer`` on the same tokens. ``deepeval-bleu1`` … ``-bleu4`` claim deepeval 4.3.1's
``Scorer.sentence_bleu_score`` (``deepeval/scorer/scorer.py``; per example, averaged), run with
nltk's real ``word_tokenize`` and the Punkt model of :mod:`tests.helm_oracle`.
``torchtext-bleu`` claims torchtext 0.18.0's ``data.metrics.bleu_score`` on ``str.split``
tokens. Each runs the published files of its framework's wheel (:mod:`tests.published`:
downloaded once, without the frameworks' heavy imports) with the sacrebleu, nltk and torch this
project pins, on the shared generated corpora (several and ragged references, empty lines,
punctuation, CJK), at 1e-9 BLEU points — torchtext within 1e-4 (its counts and scores are
float32 tensors, as torchmetrics').
"""

from __future__ import annotations

import dataclasses
import json
import logging
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings

from harness.api import corpus_bleu
from harness.bleu.profiles import FIELDS, PROFILES, VERIFICATION

from .depth import examples
from .helm_oracle import punkt_tab_on_nltk_path
from .published import load_definitions, load_methods, published_file
from .strategies import corpora, sentence_end_corpora

EXACT = 1e-9
LIGHTEVAL = ("lighteval", "0.13.0")
COMPARE_MT = ("compare-mt", "0.2.10")
DEEPEVAL = ("deepeval", "4.3.1")
TORCHTEXT = ("torchtext", "0.18.0")
FLOAT32 = 1e-4  # BLEU points: torchtext counts and scores in float32 tensors, as torchmetrics

# the shared strategies hold a byte-order mark inside lines on purpose; nltk warns of every zero
# n-gram count (deepeval calls it as published)
pytestmark = [
    pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput"),
    pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score"),
]

PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Scorer = Callable[[list[str], list[list[str]]], float]


@pytest.fixture(scope="module")
def lighteval_bleu() -> Scorer:
    """lighteval's ``bleu`` as its pipeline runs it: a ``Doc`` per example (every gold a
    choice, all of them gold), the model's text, ``GenerativePreparator.prepare``, then
    ``CorpusLevelTranslationMetric("bleu").compute_corpus``."""
    env: dict[str, Any] = {
        "ABC": ABC,
        "abstractmethod": abstractmethod,
        "dataclass": dataclasses.dataclass,
        "field": dataclasses.field,
        "asdict": dataclasses.asdict,
        "json": json,
        "np": np,
        "sacrebleu": sacrebleu,
        "logger": logging.getLogger("lighteval"),
        **{name: getattr(typing, name) for name in typing.__all__},
    }
    for member, names in (
        ("lighteval/utils/utils.py", ["as_list"]),
        ("lighteval/tasks/requests.py", ["Doc"]),
        ("lighteval/models/model_output.py", ["ModelResponse"]),
        (
            "lighteval/metrics/sample_preparator.py",
            ["CorpusMetricInput", "GenerativeCorpusMetricInput", "Preparator"],
        ),
        ("lighteval/metrics/sample_preparator.py", ["GenerativePreparator"]),
        (
            "lighteval/metrics/metrics_corpus.py",
            ["CorpusLevelComputation", "CorpusLevelTranslationMetric"],
        ),
    ):
        env = load_definitions(
            published_file(*LIGHTEVAL, member), names, namespace=env, filename=member
        )
    doc, response = env["Doc"], env["ModelResponse"]
    prepare = env["GenerativePreparator"]().prepare
    metric = env["CorpusLevelTranslationMetric"]("bleu")

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        items = [
            prepare(
                doc=doc(query="q", choices=list(r), gold_index=list(range(len(r)))),
                model_response=response(text=[h]),
            )
            for h, r in zip(hyps, refs, strict=True)
        ]
        return float(metric.compute_corpus(items))

    return score


@pytest.fixture(autouse=True)
def _no_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    # lighteval's get_metric calls nltk.download("punkt_tab") before every BLEU (sacrebleu's BLEU
    # reads no nltk model): the download is refused here, not made
    import nltk

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)


@pytest.fixture(scope="module")
def compare_mt_sacrebleu() -> Scorer:
    """compare-mt's ``SacreBleuScorer().score_corpus`` on the tokens its command line reads
    from the reference and output files (one reference: the first of each example)."""
    member = "compare_mt/scorers.py"
    env = load_definitions(
        published_file(*COMPARE_MT, member),
        ["global_scorer_scale", "Scorer", "SacreBleuScorer"],
        imports="import numpy as np\nimport sacrebleu\n",
        filename=member,
    )
    scorer = env["SacreBleuScorer"]()

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        tokens = [line.strip().split(" ") for line in hyps]
        ref_tokens = [r[0].strip().split(" ") for r in refs]
        return float(scorer.score_corpus(ref_tokens, tokens)[0])

    return score


def _compare_mt_files(hyps: list[str], refs: list[list[str]]) -> tuple[list, list]:
    # compare-mt's corpus_utils.iterate_tokens: each file line is line.strip().split(' ')
    return [r[0].strip().split(" ") for r in refs], [h.strip().split(" ") for h in hyps]


@pytest.fixture(scope="module")
def compare_mt_scorers() -> dict[str, Scorer]:
    """compare-mt's own ``BleuScorer`` and ``SentBleuScorer`` (with the published
    ``ngram_utils`` and ``corpus_utils`` they call) on the tokens its command line reads."""
    helpers = {
        module: types.SimpleNamespace(
            **load_definitions(
                published_file(*COMPARE_MT, f"compare_mt/{module}.py"),
                names,
                filename=f"compare_mt/{module}.py",
            )
        )
        for module, names in (("ngram_utils", ["sent_ngrams_list"]), ("corpus_utils", ["lower"]))
    }
    member = "compare_mt/scorers.py"
    env = load_definitions(
        published_file(*COMPARE_MT, member),
        ["global_scorer_scale", "Scorer", "SentenceFactoredScorer", "BleuScorer", "SentBleuScorer"],
        imports="import math\nfrom collections import Counter\nimport nltk\nimport numpy as np\n",
        namespace=helpers,
        filename=member,
    )

    def scorer(name: str) -> Scorer:
        published = env[name]()

        def score(hyps: list[str], refs: list[list[str]]) -> float:
            return float(published.score_corpus(*_compare_mt_files(hyps, refs))[0])

        return score

    return {"bleu": scorer("BleuScorer"), "sentbleu": scorer("SentBleuScorer")}


@pytest.fixture(scope="module")
def deepeval_bleu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int], Scorer]]:
    """deepeval's ``Scorer.sentence_bleu_score`` (the published classmethod, in a class of the
    test's own: its module imports deepeval's models), per example and averaged, with nltk's
    ``word_tokenize`` reading the Punkt model written by :func:`punkt_tab_on_nltk_path`."""
    member = "deepeval/scorer/scorer.py"
    methods = load_methods(
        published_file(*DEEPEVAL, member),
        "Scorer",
        ["sentence_bleu_score"],
        imports="from typing import Union, List, Optional, Any\n",
        filename=member,
    )
    published = type("Scorer", (), methods)

    def bleu(n: int) -> Scorer:
        def score(hyps: list[str], refs: list[list[str]]) -> float:
            each = [
                float(published.sentence_bleu_score(list(r), h, bleu_type=f"bleu{n}"))
                for h, r in zip(hyps, refs, strict=True)
            ]
            return 100 * sum(each) / len(each)

        return score

    root: Path = tmp_path_factory.mktemp("nltk_data")
    with punkt_tab_on_nltk_path(root):
        yield bleu


@pytest.fixture(scope="module")
def torchtext_bleu() -> Scorer:
    """torchtext's ``bleu_score`` (``torchtext/data/metrics.py`` with ``ngrams_iterator`` from
    ``data/utils.py``; the package's own import loads a C++ extension built for another torch)
    on ``str.split`` tokens, ×100."""
    pytest.importorskip("torch", reason="torch comes with the peers extra (make installs it)")
    utils = load_definitions(
        published_file(*TORCHTEXT, "torchtext/data/utils.py"),
        ["ngrams_iterator"],
        filename="torchtext/data/utils.py",
    )
    metrics = load_definitions(
        published_file(*TORCHTEXT, "torchtext/data/metrics.py"),
        ["_compute_ngram_counter", "bleu_score"],
        imports="import collections\nimport math\nimport torch\n",
        namespace={"ngrams_iterator": utils["ngrams_iterator"]},
        filename="torchtext/data/metrics.py",
    )
    bleu_score = metrics["bleu_score"]

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        return 100 * float(
            bleu_score([h.split() for h in hyps], [[r.split() for r in rs] for rs in refs])
        )

    return score


def _agree(
    theirs: float, hyps: list[str], refs: list[list[str]], profile: str, tolerance: float = EXACT
) -> None:
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile=profile).score
    assert abs(ours - theirs) <= tolerance, (profile, ours, theirs, hyps, refs)


@PROPS
@given(corpora(max_refs=3))
def test_lighteval_bleu(lighteval_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    _agree(lighteval_bleu(hyps, refs), hyps, refs, "lighteval-bleu")


def test_lighteval_bleu_reads_the_first_gold_only(lighteval_bleu: Scorer) -> None:
    hyps = ["the cat sat on the mat ."]
    refs = [["a dog lay on a rug .", "the cat sat on the mat ."]]
    first = corpus_bleu(hypotheses=hyps, references=refs, profile="lighteval-bleu").score
    every = corpus_bleu(hypotheses=hyps, references=refs, profile="sacrebleu").score
    assert abs(first - lighteval_bleu(hyps, refs)) <= EXACT
    assert every == 100.0 and first < 10.0


@PROPS
@given(corpora(max_refs=1))
def test_compare_mt_sacrebleu(
    compare_mt_sacrebleu: Scorer, corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree(compare_mt_sacrebleu(hyps, refs), hyps, refs, "compare-mt-sacrebleu")


@pytest.mark.parametrize("metric", ["bleu", "sentbleu"])
@PROPS
@given(corpus=corpora(max_refs=1))
def test_compare_mt(
    compare_mt_scorers: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]], metric: str
) -> None:
    hyps, refs = corpus
    _agree(compare_mt_scorers[metric](hyps, refs), hyps, refs, f"compare-mt-{metric}")


@pytest.mark.parametrize(
    ("hyp", "ref", "why"),
    [
        ("the cat", "the dog", "the orders without a match are left out: 100 * (1/2)^(1/4)"),
        ("a  b c d", "a b c d", "two spaces make an empty token"),
        ("", "", "an empty line is one empty token, which matches"),
    ],
)
def test_compare_mt_bleu_quirks(
    compare_mt_scorers: dict[str, Scorer], hyp: str, ref: str, why: str
) -> None:
    theirs = compare_mt_scorers["bleu"]([hyp], [[ref]])
    ours = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="compare-mt-bleu").score
    nltk_score = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="nltk").score
    assert abs(ours - theirs) <= EXACT, why
    assert abs(ours - nltk_score) > 10, why  # what nltk gives on the same line differs


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@PROPS
@given(corpus=corpora(max_refs=3))
def test_deepeval_bleu(
    deepeval_bleu: Callable[[int], Scorer], corpus: tuple[list[str], list[list[str]]], n: int
) -> None:
    hyps, refs = corpus
    _agree(deepeval_bleu(n)(hyps, refs), hyps, refs, f"deepeval-bleu{n}")


@PROPS
@given(sentence_end_corpora())
def test_deepeval_bleu_mid_line_sentence_ends(
    deepeval_bleu: Callable[[int], Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree(deepeval_bleu(4)(hyps, refs), hyps, refs, "deepeval-bleu4")


def test_deepeval_bleu2_is_one_order_not_bleu2(deepeval_bleu: Callable[[int], Scorer]) -> None:
    # 'bleu2' weighs bigrams alone: the bigram precision times the brevity penalty
    hyps, refs = ["The cat sat on a mat ."], [["The cat sat on the mat ."]]
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="deepeval-bleu2").score
    assert abs(ours - deepeval_bleu(2)(hyps, refs)) <= EXACT
    assert abs(ours - 100 * 4 / 6) <= EXACT  # 4 of the 6 bigrams match


@PROPS
@given(corpora(max_refs=3))
def test_torchtext_bleu(torchtext_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    _agree(torchtext_bleu(hyps, refs), hyps, refs, "torchtext-bleu", FLOAT32)


def test_declared_in_their_field() -> None:
    for name in (
        "lighteval-bleu",
        "compare-mt-sacrebleu",
        "compare-mt-bleu",
        "compare-mt-sentbleu",
        *(f"deepeval-bleu{n}" for n in range(1, 5)),
    ):
        assert FIELDS[name] == "LLM evaluation"
        assert VERIFICATION[name].evidence == "tests/test_profile_llm_eval.py"
        assert VERIFICATION[name].verified
    # what each changes from the profile it starts from
    assert PROFILES["lighteval-bleu"] == PROFILES["sacrebleu"].replace(
        missing_refs="first", library="lighteval"
    )
    assert PROFILES["compare-mt-sacrebleu"] == PROFILES["sacrebleu"].replace(library="compare-mt")
    assert PROFILES["torchtext-bleu"] == PROFILES["torchmetrics"].replace(library="torchtext")
    assert VERIFICATION["torchtext-bleu"].tolerance == FLOAT32
