"""The ``evaluate`` profile: tensorflow/nmt ``compute_bleu`` on evaluate's 13a tokenizer.

``evaluate.load("bleu")`` fetches ``bleu.py``/``tokenizer_13a.py`` from the Hub and
``nmt_bleu.py`` from GitHub; neither is in the evaluate wheel (checked below), and there is no
network here. So the profile is checked two ways:

* differentially against ``bleuscore`` (a Rust port that claims evaluate/HF compatibility with
  ``ref_len_method="shortest"``) on generated corpora whose total hypothesis and reference
  lengths are non-zero (where nmt divides by zero bleuscore returns a number), to 1e-9 points;
* as explicit tests of the documented nmt rules: a zero total hypothesis or reference length
  raises ``ZeroDivisionError``; ``smooth=True`` adds one to matches and totals of *every*
  order, unigrams included; the reference length is the *shortest* reference's.

The Hub module's own ``tokenizer_13a.py`` (fixture ``evaluate_module``) is compared with the
engine's tokens as well; the whole module is the oracle of ``tests/test_oracle_evaluate.py``.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import tokenize
from harness.errors import LibraryWouldRaise

from .depth import examples
from .strategies import corpora, sentences

EXACT = 1e-9  # BLEU points

PROPS = settings(
    max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROPS_VARIANT = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _bleuscore(hyps: list[str], refs: list[list[str]], **kwargs: object) -> dict:
    bleuscore = pytest.importorskip("bleuscore")
    return bleuscore.compute(references=refs, predictions=hyps, **kwargs)


def _nmt_lengths(hyps: list[str], refs: list[list[str]]) -> tuple[int, int]:
    """Total hypothesis length and total *shortest*-reference length under bleuscore's 13a."""
    tok = pytest.importorskip("bleuscore").tokenizer_13a
    hyp_len = sum(len(tok(h)) for h in hyps)
    ref_len = sum(min(len(tok(r)) for r in seg) for seg in refs)
    return hyp_len, ref_len


def _evaluate(hyps: list[str], refs: list[list[str]], **overrides: object) -> BleuResult:
    return corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", **overrides)


def _check(res: BleuResult, lib: dict) -> None:
    assert res.score == pytest.approx(100 * lib["bleu"], abs=EXACT)
    assert res.precisions == pytest.approx([100 * p for p in lib["precisions"]], abs=EXACT)
    assert res.bp == pytest.approx(lib["brevity_penalty"], abs=1e-12)
    assert res.ratio == pytest.approx(lib["length_ratio"], rel=1e-12)
    assert res.hyp_len == lib["translation_length"]
    assert res.ref_len == lib["reference_length"]


# ====================================================================== against bleuscore
@PROPS
@given(corpora())
def test_evaluate_matches_bleuscore_shortest(corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    hyp_len, ref_len = _nmt_lengths(hyps, refs)
    assume(hyp_len > 0 and ref_len > 0)
    _check(_evaluate(hyps, refs), _bleuscore(hyps, refs, ref_len_method="shortest"))


@PROPS
@given(corpora())
def test_evaluate_smooth_matches_bleuscore_smooth(
    corpus: tuple[list[str], list[list[str]]],
) -> None:
    """evaluate's ``smooth=True`` is the profile with ``smooth="plus-one"``."""
    hyps, refs = corpus
    hyp_len, ref_len = _nmt_lengths(hyps, refs)
    assume(hyp_len > 0 and ref_len > 0)
    _check(
        _evaluate(hyps, refs, smooth="plus-one"),
        _bleuscore(hyps, refs, smooth=True, ref_len_method="shortest"),
    )


@PROPS_VARIANT
@given(corpora(), st.sampled_from([1, 2, 3]), st.booleans())
def test_evaluate_max_order_matches_bleuscore(
    corpus: tuple[list[str], list[list[str]]], order: int, smooth: bool
) -> None:
    hyps, refs = corpus
    hyp_len, ref_len = _nmt_lengths(hyps, refs)
    assume(hyp_len > 0 and ref_len > 0)
    res = _evaluate(hyps, refs, max_order=order, smooth="plus-one" if smooth else "none")
    _check(res, _bleuscore(hyps, refs, max_order=order, smooth=smooth))


@PROPS_VARIANT
@given(corpora(), st.booleans())
def test_evaluate_raises_exactly_on_zero_total_length(
    corpus: tuple[list[str], list[list[str]]], smooth: bool
) -> None:
    """On every corpus: the profile raises iff nmt's total hypothesis or shortest-reference
    length is 0, and then names ZeroDivisionError (bleuscore returns a number instead)."""
    hyps, refs = corpus
    hyp_len, ref_len = _nmt_lengths(hyps, refs)
    smoothing = "plus-one" if smooth else "none"
    if hyp_len == 0 or ref_len == 0:
        with pytest.raises(LibraryWouldRaise) as info:
            _evaluate(hyps, refs, smooth=smoothing)
        assert info.value.library == "evaluate"
        assert info.value.library_exception == "ZeroDivisionError"
        assert isinstance(_bleuscore(hyps, refs, smooth=smooth)["bleu"], float)
    else:
        _evaluate(hyps, refs, smooth=smoothing)


# ====================================================================== nmt rules
@pytest.mark.parametrize("smooth", ["none", "plus-one"])
@pytest.mark.parametrize(
    ("hyps", "refs", "which"),
    [
        pytest.param([""], [["the cat"]], "hypothesis", id="empty-hypothesis"),
        pytest.param(["", "  "], [["a"], ["b c"]], "hypothesis", id="blank-hypotheses"),
        pytest.param(["<skipped>"], [["a"]], "hypothesis", id="13a-removes-everything"),
        pytest.param(["the cat"], [[""]], "reference", id="empty-reference"),
        pytest.param(["a b"], [["", "a b"]], "reference", id="shortest-reference-empty"),
        pytest.param([""], [[""]], "reference", id="both-empty"),
    ],
)
def test_zero_total_length_raises_zero_division(
    hyps: list[str], refs: list[list[str]], which: str, smooth: str
) -> None:
    """nmt: ``ratio = translation_length / reference_length`` (reference 0 → ZeroDivisionError)
    and ``bp = exp(1 - 1 / ratio)`` (hypothesis 0 → ratio 0 → ZeroDivisionError); smoothing
    does not help (evaluate#601)."""
    with pytest.raises(LibraryWouldRaise) as info:
        _evaluate(hyps, refs, smooth=smooth)
    err = info.value
    assert (err.library, err.library_exception) == ("evaluate", "ZeroDivisionError")
    assert "ZeroDivisionError" in str(err)
    assert which in err.reason


def test_one_empty_segment_does_not_raise() -> None:
    """Only *total* lengths matter: an empty segment among others is fine."""
    hyps, refs = ["", "the cat sat on the mat"], [["a b"], ["the cat sat on the mat"]]
    res = _evaluate(hyps, refs)
    assert res.hyp_len == 6 and res.ref_len == 8
    assert res.score == pytest.approx(100 * math.exp(1 - 8 / 6), abs=EXACT)
    _check(res, _bleuscore(hyps, refs))


def test_plus_one_smoothing_reaches_unigrams() -> None:
    """No word in common still scores > 0 with smoothing: (0 + 1) / (2 + 1) for unigrams,
    (0 + 1) / (1 + 1) for bigrams, (0 + 1) / (0 + 1) for the empty orders 3 and 4."""
    hyps, refs = ["x y"], [["a b"]]
    assert _evaluate(hyps, refs).score == 0.0
    res = _evaluate(hyps, refs, smooth="plus-one")
    assert res.precisions == pytest.approx([100 / 3, 50.0, 100.0, 100.0])
    assert res.score == pytest.approx(100 * (1 / 3 * 1 / 2) ** 0.25, abs=EXACT)
    assert res.score > 0
    _check(res, _bleuscore(hyps, refs, smooth=True))
    # torchmetrics' smoothing leaves unigrams alone: same text, different variant
    assert corpus_bleu(
        hypotheses=hyps, references=refs, profile="evaluate", smooth="plus-one-high"
    ).score == pytest.approx(0.0)


def test_reference_length_is_the_shortest_even_when_another_is_closer() -> None:
    """Hypothesis of 4 tokens, references of 5 and 2: closest is 5 (BP exp(1 - 5/4)), nmt
    takes the shortest, 2, so BP is 1."""
    hyps, refs = ["a b c d"], [["a b c d e", "a b"]]
    res = _evaluate(hyps, refs)
    assert res.ref_len == 2
    assert res.bp == 1.0
    assert res.score == pytest.approx(100.0)
    _check(res, _bleuscore(hyps, refs, ref_len_method="shortest"))
    closest = _evaluate(hyps, refs, ref_length="closest")
    assert closest.score == pytest.approx(100 * math.exp(1 - 5 / 4))


def test_no_zero_match_shortcut() -> None:
    """nmt has no early exit: a zero precision anywhere makes the geometric mean 0, and the
    precisions of the other orders are still reported."""
    res = _evaluate(["the cat"], [["the cat sat"]])
    assert res.score == 0.0
    assert res.precisions == pytest.approx([100.0, 100.0, 0.0, 0.0])
    assert res.bp == pytest.approx(math.exp(1 - 3 / 2))


# ====================================================================== tokenizer
def test_evaluate_wheel_ships_no_bleu_module() -> None:
    """evaluate 0.4.6 has no ``tokenizer_13a`` or ``bleu`` files: ``evaluate.load("bleu")``
    downloads them. If a release ever bundles them, compare their tokens here."""
    spec = importlib.util.find_spec("evaluate")
    if spec is None or spec.origin is None:
        pytest.skip("evaluate is not installed")
    root = Path(spec.origin).parent
    found = [p for p in root.rglob("*.py") if "13a" in p.name or p.stem in ("bleu", "nmt_bleu")]
    assert found == []


@functools.cache
def _hub_tokenizer(folder: Path) -> Any:
    """``Tokenizer13a()`` from the Hub module's ``tokenizer_13a.py`` in ``folder``."""
    spec = importlib.util.spec_from_file_location("_hub_tokenizer_13a", folder / "tokenizer_13a.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Tokenizer13a()


_DENSE = [
    *"ab1 2.,-'\"&;<>!?()/", "&quot;", "&amp;", "&lt;", "&gt;", "<skipped>", "猫", "é",
    "\u2014", "\u00a0",
]  # fmt: skip
dense_text = st.lists(st.sampled_from(_DENSE), max_size=12).map("".join)


@settings(max_examples=examples(500), deadline=None)
@given(sentences() | dense_text)
def test_engine_13a_matches_bleuscore_tokens(line: str) -> None:
    """bleuscore's ``tokenizer_13a`` (a port of evaluate's copy of sacrebleu's 13a)."""
    tok = pytest.importorskip("bleuscore").tokenizer_13a
    assert tokenize(line, "13a") == list(tok(line))


@settings(max_examples=examples(500), deadline=None)
@given(sentences() | dense_text)
def test_engine_13a_matches_hub_tokenizer(evaluate_module: Path, line: str) -> None:
    """The Hub module's own ``tokenizer_13a.py`` (fixture ``evaluate_module``)."""
    assert tokenize(line, "13a") == list(_hub_tokenizer(evaluate_module)(line))
