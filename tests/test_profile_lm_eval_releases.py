"""Differential tests: the versioned lm-eval profiles against lm-eval 0.3.0 itself
(:mod:`harness.bleu.peer_release_profiles`).

lm-eval 0.3.0 pins ``sacrebleu==1.5.0``. Its ``lm_eval/metrics.py`` ``bleu`` (with
``_sacreformat`` and ``is_non_str_iterable``) and ``lm_eval/tasks/truthfulqa.py``'s
``TruthfulQAGeneration.bleu`` are compiled from the files of its wheel (the modules themselves
import scikit-learn, ``datasets`` and ``rouge_score``, which these functions do not use) and
run with sacrebleu 1.5.0 from the package index first on ``sys.path``, in a process of their own
(:func:`tests.peer_releases.lm_eval_release`). 0.0.1 and 0.2.0 (the same definitions, the same
pin; 0.0.1 has no TruthfulQA) run under ``BLEU_HARNESS_TEST_DEPTH=full``.

* ``lm-eval@0.3``: the corpus score of ``bleu`` on ``(references, prediction)`` items, and each
  segment's score as ``bleu`` on that one item, at 1e-9; where the release raises
  (``EOFError``: a segment left without a non-empty reference), the profile raises
  :class:`~harness.errors.LibraryWouldRaise` naming the same exception.
* ``lm-eval-truthfulqa@0.3``: every reference scored alone as ``process_results`` does;
  ``bleu_max`` (the best correct one), ``bleu_diff`` and ``bleu_acc``
  (:func:`harness.truthfulqa_bleu`), each question's score and the profile's mean, at 1e-9; a
  question with an empty reference raises ``EOFError`` in the release and is refused here.

Generated corpora (:func:`tests.strategies.corpora`: ragged references, empty references and
hypotheses), corpora with more empty references, and corpora in which nothing matches, batched
per round trip; TruthfulQA also on text rich in backslashes, brackets, marks and symbols of
several scripts, which sacrebleu 1.5.0's ``intl`` splits unlike today's; then the measured edge
cases, each checked against today's profile too.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import corpus_bleu, sentence_bleu, truthfulqa_bleu
from harness.api import resolve_config
from harness.bleu.profiles import PROFILES
from harness.bleu.result import BleuResult
from harness.bleu.sacrebleu_tokenizers import INTL_1X
from harness.errors import HarnessError, LibraryWouldRaise
from harness.scorers import peer_releases

from .depth import depth, examples
from .peer_releases import PeerRelease, lm_eval_release
from .strategies import corpora, intl_corpora

# the generated words include a byte-order mark, which the corpus warns about
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

EXACT = 1e-9
BATCH = 20
SETTINGS = settings(max_examples=examples(40), deadline=None)
FULL = depth() == "full"
SACREBLEU = "1.5.0"  # what every lm-eval release up to 0.3.0 pins

BLEU = ["0.3.0", *(["0.0.1", "0.2.0"] if FULL else [])]
TRUTHFULQA = ["0.3.0", *(["0.2.0"] if FULL else [])]

Hyps = list[str]
Refs = list[list[str]]

_RUNNING: dict[str, PeerRelease] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_releases() -> Iterator[None]:
    yield
    while _RUNNING:
        _RUNNING.popitem()[1].close()


def lm_eval(version: str) -> PeerRelease:
    if version not in _RUNNING:
        _RUNNING[version] = lm_eval_release(version, SACREBLEU)
    return _RUNNING[version]


def assert_same(mine: Any, theirs: dict[str, Any], what: object) -> None:
    """A score within 1e-9 (0–100), or the release's exception where it raises."""
    if "error" in theirs:
        assert isinstance(mine, LibraryWouldRaise), (what, mine, theirs)
        assert mine.library_exception == theirs["error"], (what, mine, theirs)
        return
    assert isinstance(mine, BleuResult), (what, mine, theirs)
    assert mine.score == pytest.approx(theirs["score"], abs=EXACT), (what, mine, theirs)


def scored(call: Any, **kwargs: Any) -> BleuResult | HarnessError:
    try:
        result: BleuResult = call(**kwargs)
    except LibraryWouldRaise as exc:
        return exc
    return result


# ---------------------------------------------------------------------------- strategies
@st.composite
def with_empty_references(draw: st.DrawFn, min_refs: int = 1) -> tuple[Hyps, Refs]:
    """A generated corpus in which many references are the empty string."""
    hyps, refs = draw(corpora(min_refs=min_refs))
    return hyps, [["" if draw(st.integers(0, 2)) == 0 else r for r in seg] for seg in refs]


_OTHER = ["dog", "ran", "park", "in", "a", "x/y", "東京"]


@st.composite
def without_matches(draw: st.DrawFn) -> tuple[Hyps, Refs]:
    """A corpus whose hypotheses share no word with its references (some empty)."""
    n = draw(st.integers(1, 5))
    words = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat"]), max_size=8)
    hyps = [" ".join(draw(words)) for _ in range(n)]
    others = st.lists(st.sampled_from(_OTHER), max_size=8).map(" ".join)
    refs = [draw(st.lists(others, min_size=1, max_size=3)) for _ in range(n)]
    return hyps, refs


CORPORA = corpora() | with_empty_references() | without_matches()


# ---------------------------------------------------------------------------- bleu
def check_bleu(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    """The corpus score and every segment's, against lm-eval's ``bleu`` on the same items."""
    requests: list[Any] = []
    for hyps, refs in batch:
        items = [[r, h] for h, r in zip(hyps, refs, strict=True)]
        requests.append(["bleu", items])
        requests.extend(["bleu", [item]] for item in items)
    replies = iter(lm_eval(version).run(requests))
    for hyps, refs in batch:
        what = (version, hyps, refs)
        mine = scored(corpus_bleu, hypotheses=hyps, references=refs, profile="lm-eval@0.3")
        assert_same(mine, next(replies), what)
        for h, r in zip(hyps, refs, strict=True):
            alone = scored(sentence_bleu, hypothesis=h, references=r, profile="lm-eval@0.3")
            assert_same(alone, next(replies), (*what, h, r))


@pytest.mark.parametrize("version", BLEU)
@SETTINGS
@given(batch=st.lists(CORPORA, min_size=BATCH, max_size=BATCH))
def test_lm_eval_matches_release(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check_bleu(version, batch)


_CAT = "the cat sat on the mat today"
#: Ragged references cut to the fewest, empty references left out after the cut, a segment
#: left without any (``EOFError``), nothing matching.
BLEU_EDGES: list[tuple[Hyps, Refs]] = [
    (list(h), [list(r) for r in refs]) for h, refs in peer_releases.LM_EVAL_EDGES
]


@pytest.mark.parametrize("version", BLEU)
def test_lm_eval_edge_cases(version: str) -> None:
    check_bleu(version, BLEU_EDGES)


def test_lm_eval_edge_cases_differ_from_today() -> None:
    """The measured differences from today's ``lm-eval``: nothing matching scores, a segment
    whose references are all empty raises, an empty reference is never the closest length."""
    cases = [BLEU_EDGES[0], BLEU_EDGES[2], BLEU_EDGES[7]]
    items = [[[r, h] for h, r in zip(hyps, refs, strict=True)] for hyps, refs in cases]
    nothing, bare, closest = lm_eval(BLEU[0]).run([["bleu", i] for i in items])
    today = [corpus_bleu(hypotheses=h, references=r, profile="lm-eval").score for h, r in cases]
    assert today[0] == 0 and nothing["score"] > 1
    assert today[1] == 0 and bare["error"] == "EOFError"
    assert abs(today[2] - closest["score"]) > 1


# ---------------------------------------------------------------------------- TruthfulQA
@st.composite
def truthfulqa_corpora(draw: st.DrawFn) -> tuple[Hyps, Refs, Refs]:
    """(answers, correct references, incorrect references): each side one reference or more,
    some of them empty."""
    hyps, refs = draw(corpora(min_refs=2) | with_empty_references(min_refs=2))
    cuts = [draw(st.integers(1, len(r) - 1)) for r in refs]
    return (
        hyps,
        [r[:c] for r, c in zip(refs, cuts, strict=True)],
        [r[c:] for r, c in zip(refs, cuts, strict=True)],
    )


def _side(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """The best of one side's references, or the first exception scoring one raised."""
    for s in scores:
        if "error" in s:
            return s
    return {"score": max(s["score"] for s in scores)}


def check_truthfulqa(version: str, batch: list[tuple[Hyps, Refs, Refs]]) -> None:
    """Every question's ``bleu_max``/``bleu_diff``/``bleu_acc``, the profile's mean over the
    correct references, and each question's score alone, against ``process_results``'s
    ``bleu`` on every reference (one that raises raises the question)."""
    if not lm_eval(version).hello["truthfulqa"]:
        pytest.fail(f"lm-eval {version} has no TruthfulQA task")
    requests = [
        ["truthfulqa", h, g + b]
        for hyps, good, bad in batch
        for h, g, b in zip(hyps, good, bad, strict=True)
    ]
    replies = iter(lm_eval(version).run(requests))
    name = "lm-eval-truthfulqa@0.3"
    for hyps, good, bad in batch:
        what = (version, hyps, good, bad)
        sides = []
        for g in good:
            q = next(replies)["scores"]
            sides.append((_side(q[: len(g)]), _side(q[len(g) :])))
        errors = [s["error"] for side in sides for s in side if "error" in s]
        try:
            got = truthfulqa_bleu(
                hypotheses=hyps, correct_references=good, incorrect_references=bad, profile=name
            )
        except LibraryWouldRaise as exc:
            assert exc.library_exception in errors, (what, exc, sides)
        else:
            assert not errors, (what, got, sides)
            best = [(c["score"], i["score"]) for c, i in sides]
            assert got.max == pytest.approx([c for c, _ in best], abs=EXACT), what
            assert got.diff == pytest.approx([c - i for c, i in best], abs=EXACT), what
            assert list(got.acc) == [int(c > i) for c, i in best], what
        correct = [c for c, _ in sides]
        raised = [c for c in correct if "error" in c]
        theirs = (
            raised[0]
            if raised
            else {"score": math.fsum(c["score"] for c in correct) / len(correct)}
        )
        mine = scored(corpus_bleu, hypotheses=hyps, references=good, profile=name)
        assert_same(mine, theirs, what)
        for h, g, c in zip(hyps, good, correct, strict=True):
            alone = scored(sentence_bleu, hypothesis=h, references=g, profile=name)
            assert_same(alone, c, (*what, h, g))


@pytest.mark.parametrize("tqa_version", TRUTHFULQA)
@SETTINGS
@given(batch=st.lists(truthfulqa_corpora(), min_size=BATCH, max_size=BATCH))
def test_truthfulqa_matches_release(tqa_version: str, batch: list[tuple[Hyps, Refs, Refs]]) -> None:
    check_truthfulqa(tqa_version, batch)


TRUTHFULQA_EDGES: list[tuple[Hyps, Refs, Refs]] = [
    ([_CAT], [["a dog ran in one park"]], [["x y z"]]),  # nothing matches: still scores
    ([_CAT], [[_CAT, ""]], [["b"]]),  # an empty correct reference: EOFError
    ([_CAT], [[_CAT]], [["", "b"]]),  # an empty incorrect one too
    (
        ["", "The cat.", "I have no comment."],
        [["a"], ["The cat."], ["I have no comment."]],
        [["b"], ["the cat."], ["No comment."]],
    ),
]


@pytest.mark.parametrize("tqa_version", TRUTHFULQA)
def test_truthfulqa_edge_cases(tqa_version: str) -> None:
    check_truthfulqa(tqa_version, TRUTHFULQA_EDGES)


def test_truthfulqa_edge_cases_differ_from_today() -> None:
    """The measured differences from today's ``lm-eval-truthfulqa``: nothing matching
    scores, an empty reference raises ``EOFError``."""
    (nothing, empty) = lm_eval(TRUTHFULQA[0]).run(
        [["truthfulqa", _CAT, ["a dog ran in one park"]], ["truthfulqa", _CAT, [_CAT, ""]]]
    )
    today = corpus_bleu(
        hypotheses=[_CAT], references=[["a dog ran in one park"]], profile="lm-eval-truthfulqa"
    )
    assert today.score == 0 and nothing["scores"][0]["score"] > 1
    today = corpus_bleu(hypotheses=[_CAT], references=[[_CAT, ""]], profile="lm-eval-truthfulqa")
    assert today.score == 100 and empty["scores"][1]["error"] == "EOFError"


def test_truthfulqa_backslash_agrees() -> None:
    """sacrebleu 1.5.0's ``intl`` keeps a backslash glued to its neighbours (its character
    class reads ``\\]`` as an escaped bracket), and so does the profile (``intl-1.x``);
    today's ``intl`` splits it off."""
    (reply,) = lm_eval(TRUTHFULQA[0]).run([["truthfulqa", "a\\b c d e", ["a \\ b c d e"]]])
    args = {"hypotheses": ["a\\b c d e"], "references": [["a \\ b c d e"]]}
    mine = corpus_bleu(**args, profile="lm-eval-truthfulqa@0.3")
    assert mine.score == pytest.approx(reply["scores"][0]["score"], abs=EXACT)
    assert mine.score < corpus_bleu(**args, profile="lm-eval-truthfulqa").score == 100


@st.composite
def intl_truthfulqa_corpora(draw: st.DrawFn) -> tuple[Hyps, Refs, Refs]:
    """:func:`truthfulqa_corpora` of the text intl releases split differently: backslashes,
    brackets, marks and symbols of several scripts (:func:`tests.strategies.intl_corpora`)."""
    hyps, refs = draw(intl_corpora(min_refs=2))
    cuts = [draw(st.integers(1, len(r) - 1)) for r in refs]
    return (
        hyps,
        [r[:c] for r, c in zip(refs, cuts, strict=True)],
        [r[c:] for r, c in zip(refs, cuts, strict=True)],
    )


@pytest.mark.parametrize("tqa_version", TRUTHFULQA)
@SETTINGS
@given(batch=st.lists(intl_truthfulqa_corpora(), min_size=BATCH, max_size=BATCH))
def test_truthfulqa_intl_matches_release(
    tqa_version: str, batch: list[tuple[Hyps, Refs, Refs]]
) -> None:
    check_truthfulqa(tqa_version, batch)


def test_lm_eval_intl_is_sacrebleu_1_5_intl() -> None:
    """``lm-eval@0.3`` asked for ``tokenize="intl"`` runs the intl of the sacrebleu it pins
    (``intl-1.x``, proven against sacrebleu 1.5.0 in ``test_profile_sacrebleu_releases``)."""
    assert resolve_config("lm-eval@0.3", tokenize="intl").tokenize == INTL_1X
    assert resolve_config("lm-eval", tokenize="intl").tokenize == "intl"
    assert PROFILES["lm-eval-truthfulqa@0.3"].tokenize == INTL_1X


def test_lm_eval_release_pins_sacrebleu_1_5_0() -> None:
    """The process imported the sacrebleu that lm-eval 0.3.0 pins, from its published tree."""
    hello = lm_eval(BLEU[0]).hello
    assert hello["version"] == SACREBLEU and hello["truthfulqa"]
