"""Every normalisation a profile applies is named by its signature, and only those.

For each profile and each normalisation (lowercasing, ASCII punctuation made spaces, the
English articles dropped), the signature names it exactly when applying it to the input leaves
the score unchanged: a generated corpus normalised first scores the same under a profile whose
signature names the normalisation (``case:lc…``, ``punct:ascii``, ``art:en``), and a witness
corpus normalised first scores differently under every profile whose signature does not.

The behaviour decides, not the declaration: a tokenizer that lowercased inside while its
signature said ``case:mixed`` fails the second half, and a signature naming a normalisation the
engine does not apply fails the first.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu
from harness.bleu.config import signature_items
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import ascii_lower, perl_lc
from harness.errors import LibraryWouldRaise

from .depth import examples

Refs = Sequence[Sequence[str]]

# Latin words of mixed case, the articles in both cases, and ASCII punctuation glued to words
# and standing alone. No entity (``&QUOT;``: a rule that lowercases the tokens sees it
# unescaped only when lowercased first) and no Greek capital sigma (``str.lower`` chooses its
# final form from the letters around it, so lowering before or after a split differs): there
# lowercasing the input and lowercasing inside are different functions, not one normalisation.
_WORDS = (
    "the The THE a A an An cat Cat CAT mat Mat sat on On is dog Dog DOG naïve Naïve É é "
    "cat. mat, on! (the cat) don't x/y e-mail ; : ? ... - 'quoted'"
).split()

_SEGMENT = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=10).map(" ".join)


@st.composite
def _corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """1–4 segments, each hypothesis with 1–2 references (often derived from it)."""
    hyps = draw(st.lists(_SEGMENT, min_size=1, max_size=4))
    refs = []
    for hyp in hyps:
        words = hyp.split()
        near = " ".join(draw(st.permutations(words))[: max(1, len(words) - 1)])
        refs.append([near, *draw(st.lists(_SEGMENT, max_size=1))])
    return hyps, refs


_LOWER: dict[str, Callable[[str], str]] = {
    "lc": str.lower,
    "lc-unicode-after": str.lower,
    "lc-script": str.lower,
    "lc-ascii": ascii_lower,
    "lc-perl": perl_lc,
    "lc-perl-before": perl_lc,
    "lc-detok": perl_lc,
}
_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")

#: Each normalisation: the signature item that names it, and what it does to a text.
NORMALISATIONS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    "case": ("case", lambda text, value: _LOWER[value](text) if value in _LOWER else text.lower()),
    "punctuation": ("punct", lambda text, _value: _PUNCTUATION.sub(" ", text)),
    "articles": ("art", lambda text, _value: _ARTICLES.sub(" ", text)),
}

#: Corpora where each normalisation moves the score of every profile that does not apply it:
#: the hypotheses differ from their references only by case, by punctuation, or by articles,
#: with enough shared words that every profile scores above 0 either way.
WITNESSES: dict[str, tuple[list[str], list[list[str]]]] = {
    "case": (
        [
            "The Quick brown fox Jumps over the lazy dog near the river bank today",
            "A Man walks into the old bar and orders a cold drink at noon",
        ],
        [
            ["the quick brown fox jumps over the lazy dog near the river bank today"],
            ["a man walks into the old bar and orders a cold drink at noon"],
        ],
    ),
    "punctuation": (
        [
            "the quick brown fox jumps over the lazy dog near the river bank today!",
            "a man walks into the old bar and orders a cold drink at noon.",
        ],
        [
            ["the quick brown fox jumps over the lazy dog near the river bank today"],
            ["a man walks into the old bar and orders a cold drink at noon"],
        ],
    ),
    "articles": (
        [
            "quick brown fox jumps over lazy dog near river bank today",
            "man walks into old bar and orders cold drink at noon",
        ],
        [
            ["the quick brown fox jumps over the lazy dog near the river bank today"],
            ["a man walks into the old bar and orders a cold drink at noon"],
        ],
    ),
}


def _named(profile: str, normalisation: str) -> str | None:
    """The value of the signature item naming ``normalisation`` in ``profile``'s signature, or
    ``None`` when the signature says it is not applied."""
    key, _ = NORMALISATIONS[normalisation]
    value = signature_items(PROFILES[profile].signature()).get(key)
    if value is None or (key == "case" and value == "mixed"):
        return None
    return value


def _score(profile: str, hyps: list[str], refs: Refs) -> float | str:
    """The profile's corpus score, or the name of what it raises (a refusal is an outcome the
    normalised input must share)."""
    try:
        score = corpus_bleu(hypotheses=hyps, references=refs, profile=profile).score
    except LibraryWouldRaise as exc:
        return type(exc).__name__
    return "nan" if math.isnan(score) else score


def _normalised(
    corpus: tuple[list[str], list[list[str]]], normalisation: str, value: str
) -> tuple[list[str], list[list[str]]]:
    apply = NORMALISATIONS[normalisation][1]
    hyps, refs = corpus
    return [apply(h, value) for h in hyps], [[apply(r, value) for r in seg] for seg in refs]


_PAIRS = [(p, n) for p in PROFILES for n in NORMALISATIONS]


@pytest.mark.parametrize(("profile", "normalisation"), [x for x in _PAIRS if _named(*x)])
@settings(max_examples=examples(100), deadline=None)
@given(corpus=_corpora())
def test_a_named_normalisation_leaves_the_score_unchanged(
    profile: str, normalisation: str, corpus: tuple[list[str], list[list[str]]]
) -> None:
    value = _named(profile, normalisation)
    assert value is not None
    before = _score(profile, *corpus)
    after = _score(profile, *_normalised(corpus, normalisation, value))
    assert after == before


@pytest.mark.parametrize(("profile", "normalisation"), [x for x in _PAIRS if not _named(*x)])
def test_an_unnamed_normalisation_moves_the_score(profile: str, normalisation: str) -> None:
    witness = WITNESSES[normalisation]
    before = _score(profile, *witness)
    after = _score(profile, *_normalised(witness, normalisation, "lc"))
    assert isinstance(before, float) and isinstance(after, float)
    assert before > 0 and after > 0, "the witness must score above 0 either way"
    assert after != before


def test_every_normalisation_is_named_by_some_profile_and_left_out_by_another() -> None:
    """Both halves test something for each normalisation."""
    for normalisation in NORMALISATIONS:
        named = {p for p in PROFILES if _named(p, normalisation)}
        assert named and named != set(PROFILES), normalisation
