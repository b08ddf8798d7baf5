"""The public functions find a recent call's corpus again only for the very same strings.

:class:`harness.data.recent.RecentCorpora` returns a kept corpus when every hypothesis and
reference is the object at the same place in it; anything else (an equal but distinct layout
change, one string replaced, a segment with one reference more or less, a ``str`` subclass,
text that warns) is built afresh, and the scores are those of a corpus built from scratch.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harness
from harness.api import _CORPORA
from harness.data.corpus import Corpus
from harness.data.recent import RecentCorpora
from harness.errors import HarnessError, LayoutError, SuspectInput

from .depth import examples
from .strategies import corpora

PROPS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _fresh(hyps: list[str], refs: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """New lists holding the same string objects."""
    return list(hyps), [list(r) for r in refs]


def test_the_same_strings_in_new_lists_give_the_kept_corpus() -> None:
    recent = RecentCorpora(max_entries=2)
    hyps, refs = ["a b c", "d e"], [["a b", "c"], ["d e f"]]
    first = recent.corpus(hyps, refs)
    assert recent.corpus(*_fresh(hyps, refs)) is first
    assert recent.corpus(tuple(hyps), tuple(map(tuple, refs))) is first
    assert first == Corpus.from_evaluate(hypotheses=hyps, references=refs)


def test_equal_but_distinct_strings_build_a_new_corpus() -> None:
    recent = RecentCorpora()
    hyps, refs = ["a b c", "d e"], [["a b", "c"], ["d e f"]]
    first = recent.corpus(hyps, refs)
    copies = ["".join(list(h)) for h in hyps]
    assert all(c == h and c is not h for c, h in zip(copies, hyps, strict=True))
    again = recent.corpus(copies, refs)
    assert again is not first and again == first


@pytest.mark.parametrize(
    "change",
    [
        lambda h, r: ([*h[:1], "other"], r),
        lambda h, r: (h, [[*r[0], "extra"], r[1]]),
        lambda h, r: (h, [r[0][:1], [r[0][1], *r[1]]]),  # same strings, other segments
        lambda h, r: (h, [r[1], r[0]]),
        lambda h, r: (h[::-1], r),
    ],
)
def test_any_change_of_string_or_layout_builds_a_new_corpus(change) -> None:  # type: ignore[no-untyped-def]
    recent = RecentCorpora()
    hyps, refs = ["a b c", "d e"], [["a b", "c"], ["d e f"]]
    first = recent.corpus(hyps, refs)
    new_hyps, new_refs = change(*_fresh(hyps, refs))
    got = recent.corpus(new_hyps, new_refs)
    assert got is not first
    assert got == Corpus.from_evaluate(hypotheses=new_hyps, references=new_refs)


def test_a_mutated_list_is_seen() -> None:
    recent = RecentCorpora()
    hyps, refs = ["a b c", "d e"], [["a b", "c"], ["d e f"]]
    first = recent.corpus(hyps, refs)
    refs[1][0] = "x y"
    got = recent.corpus(hyps, refs)
    assert got is not first and got.references[1] == ("x y",)


def test_str_subclasses_and_iterators_are_never_matched() -> None:
    class Text(str):
        pass

    recent = RecentCorpora()
    hyps = [Text("a b"), "c"]
    refs = [["a b"], ["c"]]
    first = recent.corpus(hyps, refs)
    assert len(recent) == 0
    assert recent.corpus(hyps, refs) is not first
    plain = ["a b", "c"]
    kept = recent.corpus(plain, refs)
    with pytest.raises(LayoutError, match="hypotheses must be a list"):
        recent.corpus(iter(plain), refs)  # type: ignore[arg-type]
    assert recent.corpus(plain, refs) is kept


def test_text_that_warns_warns_on_every_call() -> None:
    recent = RecentCorpora()
    hyps, refs = ["a\rb", "c"], [["a b"], ["c"]]
    for _ in range(2):
        with pytest.warns(SuspectInput, match="carriage return"):
            recent.corpus(hyps, refs)
    assert len(recent) == 0


def test_the_least_recently_used_is_dropped() -> None:
    recent = RecentCorpora(max_entries=2)
    texts = [(["a"], [["a"]]), (["b"], [["b"]]), (["c"], [["c"]])]
    a, b = (recent.corpus(*t) for t in texts[:2])
    assert recent.corpus(*texts[0]) is a  # a is now the most recent
    recent.corpus(*texts[2])
    assert recent.corpus(*texts[0]) is a
    assert recent.corpus(*texts[1]) is not b


def test_the_warning_points_at_the_callers_line() -> None:
    _CORPORA.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        harness.corpus_bleu(hypotheses=["a\x00"], references=[["a"]])
    (w,) = [w for w in caught if issubclass(w.category, SuspectInput)]
    assert w.filename == __file__


def _outcome(profile: str, hyps: list[str], refs: list[list[str]]) -> tuple[object, ...]:
    """The score and counts of a call, or the error it raises (a profile refuses the corpora
    its library would raise on, a kept corpus or not)."""
    try:
        result = harness.corpus_bleu(hypotheses=hyps, references=refs, profile=profile)
    except HarnessError as exc:
        return (type(exc).__name__, str(exc))
    return (result.score, result.counts)


@PROPS
@given(corpora(max_refs=3), st.sampled_from(["sacrebleu", "nltk", "fairseq", "evaluate"]))
def test_scores_equal_those_of_a_corpus_built_afresh(corpus, profile) -> None:  # type: ignore[no-untyped-def]
    """Calls with the same strings, then with one string replaced, score (or refuse) as a
    cold call."""
    hyps, refs = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SuspectInput)
        first = _outcome(profile, hyps, refs)
        again = _outcome(profile, *_fresh(hyps, refs))
        changed = list(hyps)
        changed[0] = changed[0] + " zz"
        third = _outcome(profile, changed, refs)
        harness.statistics_cache().enabled = False
        _CORPORA.clear()
        try:
            cold = _outcome(profile, changed, refs)
        finally:
            harness.statistics_cache().enabled = True
    assert again == first
    assert third == cold
