"""The ``nltk-punkt-3.9.1`` tokenizer against nltk 3.9.1's own ``word_tokenize``.

nltk 3.9.1 runs from its published wheel in a process of its own (:mod:`tests.nltk391_oracle`),
reading the same Punkt model; every generated text is tokenized by both and must give the same
tokens. The pinned examples are texts on which 3.9.1 and 3.10.4 (``nltk-punkt``, the installed
nltk) disagree, one for each difference the tokenizer's module names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.bleu.nltk391 import batch_nltk391_punkt, nltk391_punkt_tokens
from harness.bleu.tokenizers import get_tokenizer

from .depth import examples
from .helm_oracle import punkt_tab_on_nltk_path
from .nltk391_oracle import Nltk391
from .strategies import NLTK_PIECES, SENTENCE_END_WORDS

PROPS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Where 3.9.1 and 3.10 part: apostrophes opening words, dashes, curly quotes and guillemets
#: after a sentence end, and characters the two regular-expression engines class differently.
_RELEASE_PIECES = st.sampled_from(
    [
        "'hello",
        "'a",
        "'re",
        "'Tis",
        "'90s",
        "Stop.",
        "“",
        "”",
        "‘",
        "’",
        "«",
        "»",
        "\u2012",
        "\u2013",
        "\u2014",
        "\u2015",
        "\u0301",
        "²",
        "\x1c",
        "\x85",
        "\u00a0",
        "He",
        "Then",
    ]
)
_PIECE = NLTK_PIECES | _RELEASE_PIECES | st.sampled_from(SENTENCE_END_WORDS)
_TEXT = st.lists(st.tuples(_PIECE, st.sampled_from(["", " ", " ", "  ", "\n"]))).map(
    lambda pairs: "".join(piece + gap for piece, gap in pairs)
)

#: One text per difference: (text, what 3.9.1 does there).
DIFFERENCES = {
    "apostrophe": "He said 'hello' to me",
    "dash": "a—b x–y",
    "curly quote after a sentence end": "Stop.” Then he left.",
    "guillemet after a sentence end": "Stop.» Then he left.",
    "superscript two (\\w for re only)": "'² b",
    "U+001C after a sentence end (\\s for re only)": "He left.\x1cThen he came.",
}


@pytest.fixture(scope="module")
def nltk3104(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The installed nltk's ``word_tokenize`` reads the same Punkt model."""
    with punkt_tab_on_nltk_path(tmp_path_factory.mktemp("nltk_data")):
        yield


@PROPS
@given(_TEXT)
@example("")
@example("Dr. Smith came. He left.")
@example("'tis wanna 'hello")
def test_tokenizer_is_nltk391_word_tokenize(nltk391: Nltk391, text: str) -> None:
    assert get_tokenizer("nltk-punkt-3.9.1")(text) == nltk391([text])[0]


@pytest.mark.parametrize("what", sorted(DIFFERENCES))
def test_each_release_difference(nltk391: Nltk391, nltk3104: None, what: str) -> None:
    """Each text is tokenized as nltk 3.9.1 tokenizes it, and differently by nltk 3.10.4."""
    from nltk.tokenize import word_tokenize

    text = DIFFERENCES[what]
    ours = get_tokenizer("nltk-punkt-3.9.1")(text)
    assert ours == nltk391([text])[0]
    assert ours != word_tokenize(text)
    assert get_tokenizer("nltk-punkt")(text) == word_tokenize(text)


@PROPS
@given(st.lists(_TEXT, min_size=1, max_size=8))
@example(["d'ye'tis'twas", "'hello “x.” Then", "a—b", "", "wanna\tcannot'LL", 'a\n"b'])
def test_batch_equals_the_line_form(text: list[str]) -> None:
    """All texts at once (the word rules over the sentences joined by newlines, in their
    multiline form) equal the tokenizer text by text, texts of several lines among them."""
    assert batch_nltk391_punkt(text) == [nltk391_punkt_tokens(line) for line in text]


@PROPS
@given(st.lists(_TEXT.map(lambda text: text.replace("\n", " ")), min_size=1, max_size=8))
@example(["'a b", "a b", "x\x1cy", "a—b", "'hello"])
def test_word_batch_equals_the_word_rules(text: list[str]) -> None:
    """The word rules' batch (3.10's batch for the lines both releases' rules tokenize alike,
    3.9.1's own for the rest) equals 3.9.1's word rules line by line."""
    from harness.bleu.nltk391 import nltk391_word_tokens, nltk391_words

    assert nltk391_words(text) == [nltk391_word_tokens(line) for line in text]


@PROPS
@given(
    st.lists(
        st.tuples(
            _PIECE,
            st.sampled_from(["", " ", "\t", "\x1c", "\x1d", "\u2028", "\xa0", "\n", ". "]),
        )
    ).map(lambda pairs: "".join(piece + gap for piece, gap in pairs))
)
@example("end.\x1cX")
@example("end. \x1c")
@example("x.\u201d y")
def test_the_prefilter_finds_every_potential_sentence_end(text: str) -> None:
    """A text in which either release's Punkt finds a potential sentence end is one
    :data:`~harness.bleu.punkt_sentences.MAYBE_SENTENCE_END` matches (nltk is loaded only for
    those)."""
    from harness.bleu import nltk391, punkt_sentences

    found = [
        punkt_sentences._candidate_finder().search(text),
        nltk391._patterns()[1].search(text),
    ]
    if any(found):
        assert punkt_sentences.maybe_sentence_end(text)
