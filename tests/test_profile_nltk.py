"""Differential tests: the in-house engine's ``nltk`` profile against the real nltk 3.10.4.

Profile ``nltk`` is ``nltk.translate.bleu_score.corpus_bleu(list_of_references, hypotheses)``
on ``str.split()`` tokens with the default ``method0``. Every expected number is computed by
nltk inside the test. nltk returns 0–1 (``int`` 0 when no unigram matches, tiny floats such as
7.6e-78 from ``method0``), so scores are compared as ``100 * nltk`` with an absolute *and* a
relative tolerance of 1e-9: a tiny score that is off by a factor fails.

Whenever nltk raises (method 6 asserts a non-zero trigram precision; with fewer than three
orders it indexes past the end), the engine must raise ``LibraryWouldRaise`` naming the same
exception, and the engine may raise only when nltk does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from nltk.translate import bleu_score as nltk_bleu

from harness import Corpus, LibraryWouldRaise, corpus_bleu, resolve_config
from harness.bleu import engine

from .depth import examples
from .strategies import corpora

TOL = 1e-9
SETTINGS = settings(max_examples=examples(500), deadline=None)

Hyps = list[str]
Refs = list[list[str]]
Outcome = tuple[str, Any]  # ("value", score on 0–100) or ("raise", exception name)

METHODS = range(8)
#: (method, nltk SmoothingFunction keyword, value): the non-default parameters.
NON_DEFAULT = [(1, "epsilon", 0.2), (4, "k", 3), (6, "alpha", 2), (7, "k", 3)]
#: Custom weights with max_order matching their length (nltk's own docstring example first).
WEIGHTS = [(0.1, 0.3, 0.5, 0.1), (0.5, 0.5), (0.2, 0.3, 0.5), (0.2, 0.2, 0.2, 0.2, 0.2)]


# ---------------------------------------------------------------------------- helpers
def _smoothing(method: int, param: tuple[str, float] | None = None) -> Callable[..., Any]:
    kwargs = {param[0]: param[1]} if param else {}
    return getattr(nltk_bleu.SmoothingFunction(**kwargs), f"method{method}")


def _nltk_outcome(call: Callable[[], Any]) -> Outcome:
    """nltk's score on 0–100, or the name of the exception it raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # method0 warns on zero counts
        try:
            return ("value", 100.0 * call())
        except Exception as exc:
            return ("raise", type(exc).__name__)


def _engine_outcome(call: Callable[[], float]) -> Outcome:
    """The engine's score, or the library exception a ``LibraryWouldRaise`` names.

    Any other exception is an engine bug and propagates.
    """
    try:
        return ("value", call())
    except LibraryWouldRaise as exc:
        return ("raise", exc.library_exception)


def assert_same(ours: Outcome, theirs: Outcome, what: str = "") -> None:
    """Both raise the same exception, or both give a number within 1e-9 abs and rel."""
    assert ours[0] == theirs[0], f"{what}: engine {ours} vs nltk {theirs}"
    if ours[0] == "raise":
        assert ours[1] == theirs[1], f"{what}: engine {ours} vs nltk {theirs}"
        return
    a, b = float(ours[1]), float(theirs[1])
    diff = abs(a - b)
    assert diff <= TOL, f"{what}: engine {a!r} vs nltk {b!r}"
    assert diff <= TOL * max(abs(a), abs(b)), f"{what}: engine {a!r} vs nltk {b!r} (relative)"


def nltk_corpus(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    *,
    method: int = 0,
    param: tuple[str, float] | None = None,
    weights: tuple[float, ...] = (0.25, 0.25, 0.25, 0.25),
) -> Outcome:
    return _nltk_outcome(
        lambda: nltk_bleu.corpus_bleu(
            [[r.split() for r in seg] for seg in refs],
            [h.split() for h in hyps],
            weights=weights,
            smoothing_function=_smoothing(method, param),
        )
    )


def nltk_sentence(
    hyp: str,
    refs: Sequence[str],
    *,
    method: int = 0,
    param: tuple[str, float] | None = None,
    weights: tuple[float, ...] = (0.25, 0.25, 0.25, 0.25),
) -> Outcome:
    return _nltk_outcome(
        lambda: nltk_bleu.sentence_bleu(
            [r.split() for r in refs],
            hyp.split(),
            weights=weights,
            smoothing_function=_smoothing(method, param),
        )
    )


def _overrides(
    method: int, param: tuple[str, float] | None, weights: tuple[float, ...] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"smooth": f"nltk-method{method}"}
    if param is not None:
        out["smooth_value"] = param[1]
    if weights is not None:
        out["max_order"] = len(weights)
        out["weights"] = weights
    return out


def engine_corpus(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    *,
    method: int = 0,
    param: tuple[str, float] | None = None,
    weights: tuple[float, ...] | None = None,
) -> Outcome:
    overrides = _overrides(method, param, weights)
    return _engine_outcome(
        lambda: corpus_bleu(hypotheses=hyps, references=refs, profile="nltk", **overrides).score
    )


def engine_segments(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    *,
    method: int = 0,
    param: tuple[str, float] | None = None,
    weights: tuple[float, ...] | None = None,
) -> list[Outcome]:
    """Sentence-level outcomes, one segment at a time (a raise is per segment, as in nltk)."""
    config = resolve_config("nltk", **_overrides(method, param, weights))
    out = []
    for h, r in zip(hyps, refs, strict=True):
        one = Corpus(hypotheses=[h], references=[r])
        out.append(_engine_outcome(lambda one=one: engine.segment_scores(one, config)[0].score))
    return out


def check_corpus_and_sentences(
    hyps: Hyps,
    refs: Refs,
    *,
    method: int = 0,
    param: tuple[str, float] | None = None,
    weights: tuple[float, ...] | None = None,
) -> None:
    what = f"method{method} {param or ''} {weights or ''}"
    nltk_weights = weights or (0.25, 0.25, 0.25, 0.25)
    assert_same(
        engine_corpus(hyps, refs, method=method, param=param, weights=weights),
        nltk_corpus(hyps, refs, method=method, param=param, weights=nltk_weights),
        f"corpus {what}",
    )
    ours = engine_segments(hyps, refs, method=method, param=param, weights=weights)
    for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        theirs = nltk_sentence(h, r, method=method, param=param, weights=nltk_weights)
        assert_same(ours[i], theirs, f"segment {i} {what}")


# ---------------------------------------------------------------------------- default profile
@SETTINGS
@given(corpus=corpora())
def test_default_profile_matches_nltk(corpus: tuple[Hyps, Refs]) -> None:
    hyps, refs = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours = corpus_bleu(hypotheses=hyps, references=refs, profile="nltk").score
    assert_same(("value", ours), nltk_corpus(hyps, refs), "default profile")


def test_method0_tiny_score_is_matched_relatively() -> None:
    # No bigram in common: nltk's method0 puts sys.float_info.min in for p2..p4 (score ~1e-231).
    hyps, refs = ["the cat"], [["cat the"]]
    theirs = nltk_corpus(hyps, refs)
    assert 0 < theirs[1] < 1e-100
    assert_same(engine_corpus(hyps, refs), theirs)


def test_no_unigram_match_is_zero() -> None:
    theirs = nltk_corpus(["dog"], [["the cat"]])
    assert theirs == ("value", 0.0)
    assert_same(engine_corpus(["dog"], [["the cat"]]), theirs)


# ---------------------------------------------------------------------------- smoothing methods
# Generating a corpus costs several times more than scoring it, so each property scores every
# setting of one factor on the same corpus: 500 corpora per setting.
@SETTINGS
@given(corpus=corpora())
def test_every_smoothing_method_matches_nltk(corpus: tuple[Hyps, Refs]) -> None:
    """method0..method7 at corpus level and, per segment, at sentence level."""
    for method in METHODS:
        check_corpus_and_sentences(*corpus, method=method)


@SETTINGS
@given(corpus=corpora())
def test_non_default_smoothing_parameters_match_nltk(corpus: tuple[Hyps, Refs]) -> None:
    for method, name, value in NON_DEFAULT:
        check_corpus_and_sentences(*corpus, method=method, param=(name, value))


@SETTINGS
@given(corpus=corpora(), method=st.sampled_from(METHODS))
def test_custom_weights_match_nltk(corpus: tuple[Hyps, Refs], method: int) -> None:
    for weights in WEIGHTS:
        check_corpus_and_sentences(*corpus, method=method, weights=weights)


# ---------------------------------------------------------------------------- method 6 raises
@SETTINGS
@given(
    corpus=corpora(),
    weights=st.sampled_from([None, *WEIGHTS]),
    alpha=st.sampled_from([None, 2]),
)
def test_method6_raises_exactly_when_nltk_raises(
    corpus: tuple[Hyps, Refs], weights: tuple[float, ...] | None, alpha: int | None
) -> None:
    hyps, refs = corpus
    param = ("alpha", alpha) if alpha is not None else None
    nltk_weights = weights or (0.25, 0.25, 0.25, 0.25)
    ours = engine_corpus(hyps, refs, method=6, param=param, weights=weights)
    theirs = nltk_corpus(hyps, refs, method=6, param=param, weights=nltk_weights)
    assert_same(ours, theirs, "method6")


def test_method6_assertion_error_is_named() -> None:
    # No trigram matches: nltk asserts p_3 != 0.
    hyps, refs = ["the cat sat on"], [["the cat on sat"]]
    theirs = nltk_corpus(hyps, refs, method=6)
    assert theirs == ("raise", "AssertionError")
    with pytest.raises(LibraryWouldRaise) as info:
        corpus_bleu(hypotheses=hyps, references=refs, profile="nltk", smooth="nltk-method6")
    assert info.value.library_exception == "AssertionError"
    assert info.value.library == "nltk"


def test_method6_with_two_orders_is_index_error() -> None:
    hyps, refs = ["the cat sat"], [["the cat sat"]]
    theirs = nltk_corpus(hyps, refs, method=6, weights=(0.5, 0.5))
    assert theirs == ("raise", "IndexError")
    assert_same(engine_corpus(hyps, refs, method=6, weights=(0.5, 0.5)), theirs)


# ---------------------------------------------------------------------------- last-segment quirk
# nltk's corpus_bleu passes the *last* segment's hypothesis and references (loop leftovers) to
# the smoothing function; methods 5-7 use them, so the corpus score depends on segment order.
@SETTINGS
@given(
    corpus=corpora(min_segments=2),
    method=st.sampled_from([5, 6, 7]),
    data=st.data(),
)
def test_reordering_segments_changes_both_identically(
    corpus: tuple[Hyps, Refs], method: int, data: st.DataObject
) -> None:
    hyps, refs = corpus
    order = data.draw(st.permutations(range(len(hyps))))
    hyps2 = [hyps[i] for i in order]
    refs2 = [refs[i] for i in order]
    before = nltk_corpus(hyps, refs, method=method)
    after = nltk_corpus(hyps2, refs2, method=method)
    ours_before = engine_corpus(hyps, refs, method=method)
    ours_after = engine_corpus(hyps2, refs2, method=method)
    assert_same(ours_before, before, f"method{method} original order")
    assert_same(ours_after, after, f"method{method} reordered")
    if before[0] == after[0] == "value":
        # Whatever nltk's change is, the engine's change is the same.
        assert abs((ours_after[1] - ours_before[1]) - (after[1] - before[1])) <= 2 * TOL


@pytest.mark.parametrize("method", [5, 6, 7])
def test_reordering_changes_the_corpus_score(method: int) -> None:
    hyps = ["the cat sat on the mat today", "a dog is on the mat here now"]
    refs = [["the cat sat on the mat today"], ["the dog is on a mat here now"]]
    before = nltk_corpus(hyps, refs, method=method)
    after = nltk_corpus(hyps[::-1], refs[::-1], method=method)
    assert before[0] == after[0] == "value"
    assert not math.isclose(before[1], after[1], rel_tol=1e-6)  # the quirk is real ...
    assert_same(engine_corpus(hyps, refs, method=method), before)  # ... and reproduced
    assert_same(engine_corpus(hyps[::-1], refs[::-1], method=method), after)


@SETTINGS
@given(corpus=corpora(min_segments=2), method=st.sampled_from([0, 1, 2, 3, 4]))
def test_methods_0_to_4_do_not_depend_on_order(corpus: tuple[Hyps, Refs], method: int) -> None:
    hyps, refs = corpus
    assume(hyps[0] != hyps[-1] or refs[0] != refs[-1])
    theirs = nltk_corpus(hyps[::-1], refs[::-1], method=method)
    assert_same(engine_corpus(hyps, refs, method=method), theirs, f"method{method}")
