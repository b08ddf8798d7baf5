"""An ``edges`` tokenizer's words many at once (:func:`harness.bleu.edge_words.edge_words`):
every marked word's variant built on the joined text and the neutral word dropped by position,
against the same built word by word."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.bleu.edge_words import FIRST, LAST, edge_words
from harness.bleu.normalizers import batch_nltk_word
from harness.bleu.sacrebleu_tokenizers import batch_intl
from harness.bleu.script_tokenizers import batch_keras_re2, batch_t2t

from .depth import examples

_BATCHES = {
    "nltk-word": (batch_nltk_word, "x"),
    "intl": (batch_intl, ""),
    "t2t": (batch_t2t, ""),
    "keras-hub-re2": (batch_keras_re2, ""),
}

#: Words as a marked line splits into them: a core of marks, digits, letters, quotes (maybe
#: empty), with the line's start or end marker or both.
_WORDS = st.lists(
    st.tuples(
        st.booleans(),
        st.text(alphabet=st.sampled_from(list("a.,5-'\"()x!?«»")), max_size=5),
        st.booleans(),
    )
    .map(lambda w: (FIRST if w[0] else "") + w[1] + (LAST if w[2] else ""))
    .filter(bool),
    max_size=12,
)


def _word_by_word(words: Sequence[str], name: str) -> tuple[list[int], list[str]]:
    """Each word's variant built alone (`` word`` plus a space or the neutral word, without
    the space at a marked end), tokenized, its neutral word dropped."""
    batch, next_word = _BATCHES[name]
    after = f" {next_word}" if next_word else " "
    lens, flat = [], []
    for word in words:
        first, last = word.startswith(FIRST), word.endswith(LAST)
        core = word[first : len(word) - last]
        tokens = batch([("" if first else " ") + core + ("" if last else after)])[0]
        if next_word and not last:
            assert tokens[-1] == next_word
            tokens = tokens[:-1]
        lens.append(len(tokens))
        flat += tokens
    return lens, flat


@settings(max_examples=examples(200), deadline=None)
@given(_WORDS, st.sampled_from(sorted(_BATCHES)))
@example([FIRST + LAST, FIRST, LAST, "x", FIRST + "a." + LAST, "'", FIRST + "5,"], "nltk-word")
@example([FIRST + ",", "5" + LAST, FIRST + LAST, "-"], "intl")
def test_words_many_at_once_equal_word_by_word(words: list[str], name: str) -> None:
    lens, flat = edge_words(*_BATCHES[name])(words)
    assert (lens.tolist(), flat) == _word_by_word(words, name)


def test_a_neutral_word_that_is_not_one_token_is_refused() -> None:
    """A word whose variant does not end with the neutral word's one token raises."""
    with pytest.raises(RuntimeError, match="neutral word"):
        edge_words(batch_nltk_word, "x.")(["a", "b" + LAST])
