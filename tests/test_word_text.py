"""The line text rules (lowercasing, punctuation, articles) applied to each distinct word
instead of each line (:func:`harness.bleu.vocabulary.per_word`): the same tokens as the line
pipeline, and the character facts that make it so, checked over every code point."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from harness.bleu import vocabulary
from harness.bleu.tokenizers import (
    ARTICLES,
    PUNCTUATIONS,
    TextRules,
    drop_articles,
    text_tokenizer,
)

from .test_fastpath import SETTINGS, lines

_WORD_TEXT_RULES = [
    TextRules(tokenize=tok, lowercase=lc, punctuation=punct, articles=art, strip=strip)
    for tok in ("13a", "whitespace", "parlai", "codexglue", "ascii-whitespace")
    for lc in (False, True)
    for punct in PUNCTUATIONS
    for art in ARTICLES
    for strip in ("rstrip", "none")
    if lc or punct != "keep" or art != "keep"
]


@SETTINGS
@given(
    text=st.lists(
        st.one_of(lines(), st.text(alphabet="aAnNtThHeEΣσς.,'-!_ \t\n\x00\x1c\u3000", max_size=20)),
        min_size=1,
        max_size=8,
    ),
    rules=st.sampled_from(_WORD_TEXT_RULES),
)
def test_line_text_applied_to_each_word_gives_the_line_tokens(
    text: list[str], rules: TextRules
) -> None:
    """Lowercasing, punctuation made spaces and articles dropped, applied to each distinct
    word (joined with its batch) instead of each line, give every line the tokens of the line
    pipeline (:func:`harness.bleu.vocabulary.per_word`)."""
    assert vocabulary.per_word(rules)
    assert vocabulary.batch_tokens(text, rules) == [text_tokenizer(rules)(x) for x in text]


def test_line_text_steps_neither_make_whitespace_nor_look_across_it() -> None:
    """What :func:`harness.bleu.vocabulary.per_word` relies on, for every character:
    lowercasing makes no whitespace and its Final_Sigma context stops at whitespace;
    punctuation and articles are made spaces only where no whitespace is."""
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    assert not [
        c
        for c in map(chr, range(0x110000))
        if not c.isspace() and any(x.isspace() for x in c.lower())
    ]
    for space in spaces:
        for left, right in (("AΣ", "B"), ("Σ", "A"), ("A'Σ", "'A"), ("Σ", "Σ")):
            line = left + space + right
            assert line.lower() == left.lower() + space + right.lower()
            assert drop_articles(f"the{space}a") == f" {space} "
        assert space not in string.punctuation
    assert not vocabulary.per_word(TextRules(lowercase=True, lowercase_rule="detok"))
    assert not vocabulary.per_word(TextRules(tokenize="intl", lowercase=True))
    assert not vocabulary.per_word(TextRules(lowercase=True, whitespace="perl"))
