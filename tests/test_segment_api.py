"""``harness.segment_bleu`` and ``harness.pairwise_bleu`` against the real sacrebleu and the engine.

* ``segment_bleu`` with the default profile equals a loop of sacrebleu 2.6
  ``BLEU(effective_order=True).sentence_score`` to 1e-9 BLEU points on every segment of 500
  generated corpora; with any other profile it equals the engine's :func:`sentence_bleu` of
  each segment (itself differentially tested against each library in ``test_profile_*.py``).
* ``pairwise_bleu`` equals ``sentence_score(h, [c])`` for every pair of 400 generated sets
  (with and without ``candidates``), and ``sentence_bleu`` per pair for other profiles.

Mutation-checked once: clipping with the hypothesis count instead of ``min`` in
``pairwise.pair_matches`` fails both sacrebleu pairwise properties; counting only 3 orders in
``segment_bleu`` fails both sacrebleu segment properties; scoring every profile with the
``sacrebleu-sentence`` arithmetic fails the other-profile and override properties.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harness
from harness.api import sentence_bleu
from harness.bleu.profiles import PROFILES
from harness.errors import ConfigError, InputError, LayoutError, LibraryWouldRaise

from .depth import examples
from .strategies import corpora, sentences

sacrebleu_bleu = pytest.importorskip("sacrebleu.metrics.bleu")

EXACT = 1e-9  # BLEU points: both sides compute in float64
PROPS = settings(
    max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROPS_PROFILES = settings(
    max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROPS_PAIRS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

OTHER_PROFILES = sorted(p for p in PROFILES if p != "sacrebleu-sentence")


def _sacrebleu_sentences(hyps: list[str], refs: list[list[str]]) -> list[float]:
    bleu = sacrebleu_bleu.BLEU(effective_order=True)
    return [bleu.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]


@PROPS
@given(corpora(max_segments=8))
def test_segment_bleu_equals_sacrebleu_sentence_score(corpus: tuple) -> None:
    hyps, refs = corpus
    got = harness.segment_bleu(hypotheses=hyps, references=refs)
    want = _sacrebleu_sentences(hyps, refs)
    assert got.score.shape == (len(hyps),)
    assert np.max(np.abs(got.score - np.array(want))) <= EXACT


@PROPS
@given(corpora(max_segments=6))
def test_segment_bleu_statistics_equal_sacrebleu(corpus: tuple) -> None:
    """Counts, totals, lengths, BP and precisions of each row are sacrebleu's."""
    hyps, refs = corpus
    got = harness.segment_bleu(hypotheses=hyps, references=refs)
    bleu = sacrebleu_bleu.BLEU(effective_order=True)
    for i, (h, r) in enumerate(zip(hyps, refs, strict=True)):
        s = bleu.sentence_score(h, r)
        assert got.counts[i].tolist() == s.counts
        assert got.totals[i].tolist() == s.totals
        assert (int(got.hyp_len[i]), int(got.ref_len[i])) == (s.sys_len, s.ref_len)
        assert math.isclose(got.bp[i], s.bp, rel_tol=0, abs_tol=1e-12)
        # sacrebleu reports 0 for orders beyond the effective order, as the harness does
        assert np.max(np.abs(got.precisions[i] - np.array(s.precisions))) <= EXACT


def _uniform(refs: list[list[str]]) -> list[list[str]]:
    k = min(map(len, refs))
    return [r[:k] for r in refs]


@PROPS_PROFILES
@given(corpora(max_segments=6), st.sampled_from(OTHER_PROFILES))
def test_segment_bleu_equals_sentence_bleu_per_segment(corpus: tuple, profile: str) -> None:
    """Any profile: row i is ``sentence_bleu`` of segment i (references made uniform for the
    profiles whose missing-reference rule looks at the whole corpus)."""
    hyps, refs = corpus
    if PROFILES[profile].missing_refs != "skip":
        refs = _uniform(refs)
    want: list[float] = []
    try:
        for h, r in zip(hyps, refs, strict=True):
            want.append(sentence_bleu(hypothesis=h, references=r, profile=profile).score)
    except LibraryWouldRaise:
        with pytest.raises(LibraryWouldRaise):
            harness.segment_bleu(hypotheses=hyps, references=refs, profile=profile)
        return
    got = harness.segment_bleu(hypotheses=hyps, references=refs, profile=profile)
    # keras-hub scores an empty segment nan, on both paths
    assert np.allclose(got.score, want, rtol=0, atol=EXACT, equal_nan=True), (got.score, want)
    assert got.signature == PROFILES[profile].signature()


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(max_segments=5), st.integers(1, 4), st.sampled_from(["none", "intl", "char"]))
def test_segment_bleu_overrides(corpus: tuple, order: int, tokenize: str) -> None:
    """Overrides change the factors as they do for ``sentence_bleu``."""
    hyps, refs = corpus
    got = harness.segment_bleu(hypotheses=hyps, references=refs, max_order=order, tokenize=tokenize)
    want = [
        sentence_bleu(hypothesis=h, references=r, max_order=order, tokenize=tokenize).score
        for h, r in zip(hyps, refs, strict=True)
    ]
    assert np.max(np.abs(got.score - np.array(want))) <= EXACT


_TEXTS = st.lists(sentences(), min_size=1, max_size=7)


@PROPS_PAIRS
@given(_TEXTS, st.none() | _TEXTS)
def test_pairwise_equals_sacrebleu_every_pair(hyps: list[str], cands: list[str] | None) -> None:
    got = harness.pairwise_bleu(hypotheses=hyps, candidates=cands)
    against = hyps if cands is None else cands
    bleu = sacrebleu_bleu.BLEU(effective_order=True)
    want = np.array([[bleu.sentence_score(h, [c]).score for c in against] for h in hyps])
    assert got.shape == (len(hyps), len(against))
    assert np.max(np.abs(got - want)) <= EXACT


@st.composite
def _overlapping(draw: st.DrawFn) -> list[str]:
    """Texts sharing long n-grams (each a cut-and-extended copy of a base sentence)."""
    base = draw(sentences(1)).split()
    out = []
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(base)))
        j = draw(st.integers(i, len(base)))
        out.append(" ".join(base[i:j] + draw(st.lists(st.sampled_from(base), max_size=4))))
    return out


@PROPS_PAIRS
@given(_overlapping())
def test_self_bleu_equals_sacrebleu(texts: list[str]) -> None:
    """Self-BLEU (``candidates=None``) of texts with repeated and shared n-grams."""
    got = harness.pairwise_bleu(hypotheses=texts)
    bleu = sacrebleu_bleu.BLEU(effective_order=True)
    want = np.array([[bleu.sentence_score(h, [c]).score for c in texts] for h in texts])
    assert np.max(np.abs(got - want)) <= EXACT


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS, _TEXTS, st.sampled_from(OTHER_PROFILES))
def test_pairwise_equals_sentence_bleu_other_profiles(
    hyps: list[str], cands: list[str], profile: str
) -> None:
    want: list[list[float]] = []
    try:
        for h in hyps:
            want.append(
                [sentence_bleu(hypothesis=h, references=[c], profile=profile).score for c in cands]
            )
    except LibraryWouldRaise:
        with pytest.raises(LibraryWouldRaise):
            harness.pairwise_bleu(hypotheses=hyps, candidates=cands, profile=profile)
        return
    got = harness.pairwise_bleu(hypotheses=hyps, candidates=cands, profile=profile)
    # keras-hub's 0/0 length ratio is nan on both sides, in the same cells
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.nanmax(np.abs(got - np.array(want)), initial=0.0) <= EXACT


def test_pairwise_fairseq_numbers_each_pair_alone() -> None:
    """fairseq-hash numbers words per scored corpus: each pair is its own, as sentence_bleu.
    The texts share 121 words, enough for the hash to collide."""
    shared = " ".join(f"w{k}" for k in range(4, 125))
    hyps = [f"{shared} a b c d e f", "a b c d e f"]
    cands = [f"{shared} a b c d w121 w122", "a b c d w121 w122"]
    got = harness.pairwise_bleu(hypotheses=hyps, candidates=cands, profile="fairseq")
    want = [
        [sentence_bleu(hypothesis=h, references=[c], profile="fairseq").score for c in cands]
        for h in hyps
    ]
    assert np.max(np.abs(got - np.array(want))) <= EXACT
    exact = harness.pairwise_bleu(
        hypotheses=hyps, candidates=cands, profile="fairseq", ngram_identity="tokens"
    )
    assert got[0, 0] != exact[0, 0]  # a false match is counted in the long pair


def test_pairwise_chunks_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny join and row chunks give the same matrix as one chunk."""
    from harness.bleu import pairwise

    texts = ["the cat sat on the mat", "the cat the cat", "a mat", "", "on the mat the cat sat"]
    whole = harness.pairwise_bleu(hypotheses=texts)
    monkeypatch.setattr(pairwise, "JOIN_CHUNK", 3)
    monkeypatch.setattr(pairwise, "ROW_CHUNK", 4)
    assert np.array_equal(harness.pairwise_bleu(hypotheses=texts), whole)


def test_result_fields_and_frame() -> None:
    hyps = ["the cat sat on the mat", "a dog"]
    refs = [["the cat sat on a mat", "a cat sat"], ["the dog"]]
    r = harness.segment_bleu(hypotheses=hyps, references=refs)
    assert len(r) == 2
    assert r.precisions.shape == r.counts.shape == r.totals.shape == (2, 4)
    assert r.ids.tolist() == ["1", "2"]
    pd = pytest.importorskip("pandas")
    frame = r.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.tolist() == ["1", "2"]
    assert frame["score"].tolist() == r.score.tolist()
    assert frame["count_2"].tolist() == r.counts[:, 1].tolist()
    with pytest.raises(AttributeError):
        r.signature = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"hypotheses": "a b", "references": [["a b"]]}, LayoutError),
        ({"hypotheses": ["a"], "references": [["a"], ["b"]]}, LayoutError),
        ({"hypotheses": ["a"], "references": ["a"]}, LayoutError),
        ({"hypotheses": [], "references": []}, LayoutError),
        ({"hypotheses": [1], "references": [["a"]]}, InputError),
        ({"hypotheses": ["a"], "references": [[]]}, LayoutError),
        ({"hypotheses": ["a"], "references": [["a"]], "profile": "nope"}, ConfigError),
        ({"hypotheses": ["a"], "references": [["a"]], "smooth_value": "x"}, ConfigError),
        ({"hypotheses": ["a"], "references": [["a"]], "no_such_factor": 1}, ConfigError),
    ],
)
def test_segment_bleu_bad_input(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        harness.segment_bleu(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"hypotheses": "a b"}, LayoutError),
        ({"hypotheses": []}, LayoutError),
        ({"hypotheses": ["a", None]}, InputError),
        ({"hypotheses": ["a"], "candidates": "a"}, LayoutError),
        ({"hypotheses": ["a"], "candidates": []}, LayoutError),
        ({"hypotheses": ["a"], "candidates": [["a"]]}, InputError),
        ({"hypotheses": ["a"], "profile": "nope"}, ConfigError),
        ({"hypotheses": ["a"], "no_such_factor": 1}, ConfigError),
    ],
)
def test_pairwise_bleu_bad_input(kwargs: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        harness.pairwise_bleu(**kwargs)
