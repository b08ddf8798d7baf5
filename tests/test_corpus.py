"""Tests for ``harness.data.corpus.Corpus`` and its reference layouts.

Layouts (see the module docstring of ``harness.data.corpus``): *per-segment* (evaluate/nltk,
``references[i]`` = refs of segment i) and *streams* (sacrebleu, ``streams[k][i]`` = k-th ref
of segment i). Confusing them is the bug behind sacrebleu#220, #272, #275.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.data.corpus import Corpus
from harness.errors import InputError, LayoutError

from .depth import examples

# ---------------------------------------------------------------------------- strategies
_text = st.text(max_size=12)
_nonempty_text = st.text(min_size=1, max_size=12)


@st.composite
def ragged_corpora(draw: st.DrawFn, ref_text: st.SearchStrategy[str] = _text) -> Corpus:
    """Corpora of 1–12 segments with 1–4 references each (ragged), random strings."""
    n = draw(st.integers(min_value=1, max_value=12))
    hyps = draw(st.lists(_text, min_size=n, max_size=n))
    refs = draw(st.lists(st.lists(ref_text, min_size=1, max_size=4), min_size=n, max_size=n))
    return Corpus(hypotheses=hyps, references=refs)


@st.composite
def square_corpora(draw: st.DrawFn) -> Corpus:
    """Corpora where every segment has the same number (1–4) of references."""
    n = draw(st.integers(min_value=1, max_value=12))
    k = draw(st.integers(min_value=1, max_value=4))
    hyps = draw(st.lists(_text, min_size=n, max_size=n))
    refs = draw(st.lists(st.lists(_text, min_size=k, max_size=k), min_size=n, max_size=n))
    return Corpus(hypotheses=hyps, references=refs)


# ---------------------------------------------------------------------------- round trips
@settings(max_examples=examples(300), deadline=None)
@given(corpus=ragged_corpora())
@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")  # any text, \r too
def test_streams_round_trip_none_padding(corpus: Corpus) -> None:
    streams = corpus.to_streams(padding="none")
    assert len(streams) == corpus.max_refs
    assert all(len(s) == len(corpus) for s in streams)
    back = Corpus.from_streams(hypotheses=corpus.hypotheses, streams=streams, padding="none")
    assert back == corpus


@settings(max_examples=examples(300), deadline=None)
@given(corpus=ragged_corpora(ref_text=_nonempty_text))
@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")  # any text, \r too
def test_streams_round_trip_empty_padding(corpus: Corpus) -> None:
    """'' padding round-trips only because no real reference is ''."""
    streams = corpus.to_streams(padding="empty")
    assert None not in {x for s in streams for x in s}
    back = Corpus.from_streams(hypotheses=corpus.hypotheses, streams=streams, padding="empty")
    assert back == corpus


def test_empty_padding_loses_real_empty_references() -> None:
    """Why padding='empty' is only for data where '' was padding: a real '' is dropped too."""
    corpus = Corpus(hypotheses=["a", "b"], references=[["", "x"], ["y"]])
    back = Corpus.from_streams(
        hypotheses=corpus.hypotheses, streams=corpus.to_streams(padding="empty"), padding="empty"
    )
    assert back.references == (("x",), ("y",))
    # padding="none" keeps it.
    kept = Corpus.from_streams(hypotheses=corpus.hypotheses, streams=corpus.to_streams())
    assert kept == corpus


@settings(max_examples=examples(300), deadline=None)
@given(corpus=ragged_corpora())
@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")  # any text, \r too
def test_evaluate_round_trip(corpus: Corpus) -> None:
    back = Corpus.from_evaluate(hypotheses=corpus.hypotheses, references=corpus.to_evaluate())
    assert back == corpus


@settings(max_examples=examples(300), deadline=None)
@given(corpus=square_corpora())
@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")  # any text, \r too
def test_to_evaluate_is_transpose_of_to_streams(corpus: Corpus) -> None:
    per_segment = corpus.to_evaluate()
    streams = corpus.to_streams()
    assert not corpus.is_ragged
    assert [list(col) for col in zip(*streams, strict=True)] == per_segment
    assert [list(col) for col in zip(*per_segment, strict=True)] == streams


def test_to_streams_pads_ragged() -> None:
    corpus = Corpus(hypotheses=["h1", "h2", "h3"], references=[["a"], ["b", "c", "d"], ["e", "f"]])
    assert corpus.is_ragged
    assert corpus.max_refs == 3
    assert corpus.to_streams() == [["a", "b", "e"], [None, "c", "f"], [None, "d", None]]
    assert corpus.to_streams(padding="empty") == [["a", "b", "e"], ["", "c", "f"], ["", "d", ""]]
    assert corpus.to_evaluate() == [["a"], ["b", "c", "d"], ["e", "f"]]


def test_defaults_and_normalisation() -> None:
    corpus = Corpus(hypotheses=["a", "b"], references=[["x"], ["y", "z"]], ids=[10, 20])
    assert corpus.hypotheses == ("a", "b")
    assert corpus.references == (("x",), ("y", "z"))
    assert corpus.ids == ("10", "20")
    assert Corpus(hypotheses=["a"], references=[["x"]]).ids == ("1",)
    assert len(corpus) == 2


def test_subset_and_with_hypotheses() -> None:
    corpus = Corpus(hypotheses=["a", "b", "c"], references=[["x"], ["y"], ["z"]], name="sys")
    sub = corpus.subset([2, 0])
    assert sub.hypotheses == ("c", "a")
    assert sub.references == (("z",), ("x",))
    assert sub.ids == ("3", "1")
    other = corpus.with_hypotheses(["1", "2", "3"], name="other")
    assert other.hypotheses == ("1", "2", "3")
    assert other.references == corpus.references
    assert other.name == "other"
    with pytest.raises(LayoutError) as info:
        corpus.with_hypotheses(["1", "2"])
    assert (info.value.expected, info.value.got) == (3, 2)


# ---------------------------------------------------------------------------- errors
def test_empty_corpus() -> None:
    with pytest.raises(LayoutError, match="empty corpus") as info:
        Corpus(hypotheses=[], references=[])
    assert info.value.got == 0


def test_reference_count_mismatch() -> None:
    with pytest.raises(LayoutError) as info:
        Corpus.from_evaluate(hypotheses=["a", "b", "c"], references=[["a"], ["b"]])
    assert info.value.expected == 3
    assert info.value.got == 2
    assert info.value.what == "references"


def test_stream_of_wrong_length_is_named() -> None:
    with pytest.raises(LayoutError) as info:
        Corpus.from_streams(hypotheses=["a", "b", "c"], streams=[["x", "y", "z"], ["x", "y"]])
    err = info.value
    assert err.what == "stream 2"
    assert "stream 2" in str(err)
    assert (err.expected, err.got) == (3, 2)


def test_flat_list_of_strings_as_per_segment_references() -> None:
    """references=['r1', 'r2'] (one ref per segment, forgot the inner lists) is refused."""
    with pytest.raises(LayoutError, match="flat list of strings") as info:
        Corpus.from_evaluate(hypotheses=["a", "b"], references=["r1", "r2"])
    assert info.value.what == "references[0]"


def test_flat_list_of_strings_as_streams() -> None:
    with pytest.raises(LayoutError, match="wrap it in a list") as info:
        Corpus.from_streams(hypotheses=["a", "b"], streams=["r1", "r2"])
    assert info.value.what == "stream 1"


@pytest.mark.parametrize(
    ("kwargs", "what"),
    [
        (dict(hypotheses="abc", references=[["a"], ["b"], ["c"]]), "hypotheses"),
        (dict(hypotheses=["a"], references="a"), "references"),
        (dict(hypotheses=["a"], references=None), "references"),
    ],
    ids=["hypotheses-str", "references-str", "references-none"],
)
def test_bare_string_instead_of_list(kwargs: dict, what: str) -> None:
    with pytest.raises(LayoutError) as info:
        Corpus(**kwargs)
    assert info.value.what == what


@pytest.mark.parametrize(
    ("hyps", "refs", "phrase"),
    [
        (["a", 1], [["x"], ["y"]], "hypothesis 2"),
        (["a", None], [["x"], ["y"]], "hypothesis 2"),
        (["a", "b"], [["x"], ["y", None]], "reference 2 of segment 2"),
        (["a", "b"], [["x"], [b"y"]], "reference 1 of segment 2"),
        (["a", "b"], [["x"], [["y"]]], "reference 1 of segment 2"),
    ],
    ids=["int-hyp", "none-hyp", "none-ref", "bytes-ref", "nested-ref"],
)
def test_non_string_items(hyps: list, refs: list, phrase: str) -> None:
    with pytest.raises(InputError, match=phrase):
        Corpus(hypotheses=hyps, references=refs)


def test_segment_with_zero_references() -> None:
    with pytest.raises(LayoutError, match="at least one reference") as info:
        Corpus(hypotheses=["a", "b"], references=[["x"], []])
    assert info.value.what == "references[1]"


def test_streams_column_of_only_padding_is_a_segment_without_references() -> None:
    with pytest.raises(LayoutError, match="at least one reference") as info:
        Corpus.from_streams(hypotheses=["a", "b"], streams=[["x", None], ["y", None]])
    assert info.value.what == "references[1]"
    with pytest.raises(LayoutError, match="at least one reference"):
        Corpus.from_streams(hypotheses=["a", "b"], streams=[["x", ""]], padding="empty")


def test_duplicate_ids() -> None:
    with pytest.raises(LayoutError, match="unique"):
        Corpus(hypotheses=["a", "b"], references=[["x"], ["y"]], ids=["s", "s"])
    with pytest.raises(LayoutError) as info:
        Corpus(hypotheses=["a", "b"], references=[["x"], ["y"]], ids=["s"])
    assert (info.value.expected, info.value.got) == (2, 1)


@pytest.mark.parametrize("streams", [[], None, "abc"], ids=["empty", "none", "str"])
def test_streams_must_be_a_nonempty_list(streams: object) -> None:
    with pytest.raises(LayoutError, match="non-empty list"):
        Corpus.from_streams(hypotheses=["a"], streams=streams)  # type: ignore[arg-type]


def test_unknown_padding() -> None:
    corpus = Corpus(hypotheses=["a"], references=[["x"]])
    with pytest.raises(LayoutError, match="unknown padding"):
        corpus.to_streams(padding="blank")  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="unknown padding"):
        Corpus.from_streams(hypotheses=["a"], streams=[["x"]], padding="blank")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- the layout pitfall
def test_per_segment_references_passed_as_streams_is_caught_when_not_square() -> None:
    """Per-segment references (3 segments x 2 refs) passed where streams are expected.

    Read as streams they are 3 streams of length 2, but there are 3 hypotheses: the length
    check on every stream catches the mix-up (sacrebleu checks only ``refs[0][0]`` and lets
    ``zip`` truncate, sacrebleu#220/#275).
    """
    hyps = ["h1", "h2", "h3"]
    per_segment = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    with pytest.raises(LayoutError) as info:
        Corpus.from_streams(hypotheses=hyps, streams=per_segment)
    assert info.value.what == "stream 1"
    assert (info.value.expected, info.value.got) == (3, 2)
    # The correct call:
    assert Corpus.from_evaluate(hypotheses=hyps, references=per_segment).to_streams() == [
        ["a1", "b1", "c1"],
        ["a2", "b2", "c2"],
    ]


def test_square_transpose_is_undetectable_by_shape() -> None:
    """With N segments and N references each, a transposed layout has the right shape.

    Per-segment ``[[a1, a2], [b1, b2]]`` passed as streams is read as segment 1 having
    references ``(a1, b1)`` — no count can disagree, so no check can raise, and the scores are
    silently wrong. This is why the harness takes references by keyword in one named layout
    (``from_evaluate(references=...)`` vs ``from_streams(streams=...)``) instead of guessing
    the layout from its shape.
    """
    hyps = ["h1", "h2"]
    per_segment = [["a1", "a2"], ["b1", "b2"]]
    wrong = Corpus.from_streams(hypotheses=hyps, streams=per_segment)  # no error
    right = Corpus.from_evaluate(hypotheses=hyps, references=per_segment)
    assert wrong.references == (("a1", "b1"), ("a2", "b2"))
    assert right.references == (("a1", "a2"), ("b1", "b2"))
    assert wrong != right
    assert wrong.to_evaluate() == right.to_streams()


def test_repr_is_short_whatever_the_size() -> None:
    big = Corpus(hypotheses=["a b c d"] * 5000, references=[["a b", "c"]] * 4999 + [["x"]])
    text = repr(big)
    assert len(text) < 200
    assert "segments=5000" in text and "references=1–2 per segment" in text
