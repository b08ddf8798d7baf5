"""``nltk-punkt-3.9.1``: nltk 3.9.1's ``word_tokenize``, the release lighteval 0.13 pins.

lighteval's ``bleu_1``/``bleu_4`` tokenize with ``word_tokenize`` and its package requires
``nltk==3.9.1``; the harness runs nltk 3.10.4, whose tokenizer (``nltk-punkt``,
:mod:`harness.bleu.punkt_sentences`) differs from 3.9.1's in four ways, read from the two
releases' sources:

1. **The engine.** 3.9.1 compiles every rule with the standard ``re`` module, 3.10 with the
   third-party ``regex``, whose ``\\w`` and ``\\s`` differ on some characters: ``²`` is a
   word character and U+001C–U+001F are whitespace for ``re`` only (``'²`` splits in 3.9.1;
   ``left.`` followed by U+001C ends a sentence in 3.9.1 only).
2. **An opening apostrophe.** 3.9.1 splits it from its word only when the word is one word
   character (``'a`` → ``' a``, ``'hello`` stays whole); 3.10 from any word that does not
   start with a clitic.
3. **Dashes.** 3.9.1 has no rule for U+2012–U+2015 (figure dash to horizontal bar): ``a—b``
   is one token.
4. **Punkt.** 3.9.1's sentence splitter takes neither curly quotes nor guillemets for
   punctuation after a sentence end: ``Stop.” Then`` is one sentence (its period stays on
   ``Stop.``), and a closing ``”`` is not moved back onto the sentence before.

The sentence split is nltk's own ``PunktSentenceTokenizer`` (as for ``nltk-punkt``) given
3.9.1's language variables and token class: the same patterns compiled with ``re``. The
word rules are the 3.10 rules of :mod:`harness.bleu.normalizers` compiled with ``re``, the
apostrophe rule replaced and the dash rule left out. ``tests/test_nltk391.py`` proves the
tokenizer against nltk 3.9.1's own ``word_tokenize``, run from its published wheel.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

from harness.bleu import normalizers as _norm
from harness.bleu.nltk_punkt_module import punkt_module
from harness.bleu.punkt_sentences import (
    maybe_sentence_end,
    one_sentence,
    punkt_parameters,
    remember_decisions,
    require_punkt,
    sentence_lines,
    whole_lines_by,
)

__all__ = [
    "batch_nltk391_punkt",
    "build_nltk391_punkt",
    "clear_caches",
    "nltk391_punkt_tokens",
    "nltk391_word_tokens",
    "nltk391_words",
    "sentences",
    "whole_line_test",
]

_Rule = tuple[Callable[..., str], str]


def _standard(rule: _Rule) -> _Rule:
    """A 3.10 rule with its pattern compiled by the standard ``re`` engine, as 3.9.1 does."""
    sub, repl = rule
    return re.compile(sub.__self__.pattern).sub, repl  # type: ignore[attr-defined]


#: 3.9.1's apostrophe rule: one word character after the apostrophe, then a word boundary.
_OPENING_APOSTROPHE: _Rule = (re.compile(r"(?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b").sub, r"\1 \2")
_DASHES = "[\u2012-\u2015]"

_OPENING: tuple[_Rule, ...] = (*map(_standard, _norm.NLTK_OPENING[:-1]), _OPENING_APOSTROPHE)
_PUNCTUATION: tuple[_Rule, ...] = tuple(
    _standard(rule)
    for rule in _norm.NLTK_PUNCTUATION
    if rule[0].__self__.pattern != _DASHES  # type: ignore[attr-defined]
)
_CLOSING: tuple[_Rule, ...] = tuple(map(_standard, _norm.NLTK_CLOSING))
_CONTRACTIONS = _norm.NLTK_CONTRACTIONS  # standard ``re`` in both releases

_BEFORE_PADDING = (*_OPENING, *_PUNCTUATION)
_AFTER_PADDING = (*_CLOSING, *_CONTRACTIONS)


def nltk391_word_tokens(line: str) -> list[str]:
    """nltk 3.9.1's ``NLTKWordTokenizer().tokenize(line)``: the line taken as one sentence."""
    return list(_word(line))


@lru_cache(maxsize=2**16)
def _word(line: str) -> tuple[str, ...]:
    text = line
    for sub, repl in _BEFORE_PADDING:
        text = sub(repl, text)
    text = f" {text} "
    for sub, repl in _AFTER_PADDING:
        text = sub(repl, text)
    return tuple(text.split())


_BATCH_BEFORE = tuple(map(_norm.joined_lines_rule, _BEFORE_PADDING))
_BATCH_AFTER = tuple(map(_norm.joined_lines_rule, _AFTER_PADDING))


#: What 3.9.1's word rules see otherwise than 3.10's (the module's first three differences):
#: an apostrophe, a character the two engines class differently (U+001C..U+001F, the only
#: ASCII ones, are whitespace for ``re`` only) and any other character outside ASCII.
_NOT_310 = re.compile("['\x1c-\x1f]")


def nltk391_words(lines: Sequence[str]) -> list[list[str]]:
    """:func:`nltk391_word_tokens` of every line (none holding ``"\\n"``): the rules once over
    the lines joined by newlines, in their multiline form; an ASCII line without an apostrophe
    or U+001C..U+001F, which 3.9.1's rules tokenize as 3.10's (:data:`_NOT_310`), by 3.10's
    faster batch (:func:`harness.bleu.normalizers.batch_nltk_word`)."""
    alike = [line.isascii() and _NOT_310.search(line) is None for line in lines]
    rest = [line for line, same in zip(lines, alike, strict=True) if not same]
    if len(rest) == len(lines):
        return _norm.joined_lines_rules(lines, _BATCH_BEFORE, _BATCH_AFTER)
    ours = iter(_norm.joined_lines_rules(rest, _BATCH_BEFORE, _BATCH_AFTER) if rest else ())
    theirs = iter(_norm.batch_nltk_word([x for x, same in zip(lines, alike, strict=True) if same]))
    return [next(theirs) if same else next(ours) for same in alike]


# ------------------------------------------------------------------------------ the split
@cache
def _patterns() -> tuple[Any, Any]:
    """3.9.1's word-splitting and potential-sentence-end patterns of Punkt, compiled with
    ``re``: its characters that cannot be in a word hold no curly quote or guillemet."""
    base = punkt_module().PunktLanguageVars()
    others = re.escape("".join(set(base.sent_end_chars) - {"."}))
    non_word = r"(?:[)\";}\]\*:@\'\({\[" + others + "])"
    flags = re.UNICODE | re.VERBOSE
    word_tokenizer = re.compile(
        base._word_tokenize_fmt
        % {
            "NonWord": non_word,
            "MultiChar": base._re_multi_char_punct,
            "WordStart": base._re_word_start,
        },
        flags,
    )
    period_context = re.compile(
        base._period_context_fmt % {"NonWord": non_word, "SentEndChars": base._re_sent_end_chars},
        flags,
    )
    return word_tokenizer, period_context


@cache
def _splitter() -> Callable[[str], list[str]]:
    """nltk's ``PunktSentenceTokenizer`` on the English model with 3.9.1's patterns."""
    punkt = punkt_module()
    PunktLanguageVars: Any = punkt.PunktLanguageVars
    PunktToken: Any = punkt.PunktToken

    non_punct = re.compile(r"[^\W\d]", re.UNICODE)
    word_tokenizer, period_context = _patterns()

    class LanguageVars(PunktLanguageVars):
        """3.9.1's language variables: only ASCII quotes and brackets close a sentence."""

        __slots__ = ()
        re_boundary_realignment = re.compile(r'["\')\]}]+?(?:\s+|(?=--)|$)', re.MULTILINE)

        def _word_tokenizer_re(self) -> Any:
            return word_tokenizer

        def period_context_re(self) -> Any:
            return period_context

    class Token(PunktToken):
        """3.9.1's token class: its shape tests compiled with ``re``."""

        __slots__ = ()
        _RE_ELLIPSIS = re.compile(r"\.\.+$")
        _RE_NUMERIC = re.compile(r"^-?[\.,]?\d[\d,\.-]*\.?$")
        _RE_INITIAL = re.compile(r"[^\W\d]\.$", re.UNICODE)
        _RE_ALPHA = re.compile(r"[^\W\d]+$", re.UNICODE)

        @property
        def is_non_punct(self) -> Any:
            return non_punct.search(self.type)

    tokenizer = punkt.PunktSentenceTokenizer(
        punkt_parameters(), lang_vars=LanguageVars(), token_cls=Token
    )
    remember_decisions(tokenizer)
    split: Callable[[str], list[str]] = tokenizer.tokenize
    return split


def whole_line_test() -> Callable[[Sequence[str]], list[bool]]:
    """Which lines ``nltk-punkt-3.9.1`` tokenizes whole (the others word by word, as
    ``nltk-punkt``): :func:`harness.bleu.punkt_sentences.whole_lines_by` 3.9.1's search for a
    potential sentence end."""
    return whole_lines_by(lambda: _patterns()[1])


def sentences(line: str) -> list[str]:
    """nltk 3.9.1's ``sent_tokenize(line)`` on the English model (nltk is loaded only for a
    line that may hold a potential sentence end)."""
    # Punkt only breaks at a potential sentence end; without one it runs no decision
    if maybe_sentence_end(line) and _patterns()[1].search(line) is not None:
        return _splitter()(line)
    return one_sentence(line)


def nltk391_punkt_tokens(line: str) -> list[str]:
    """nltk 3.9.1's ``word_tokenize(line)``: its word rules on each of its Punkt sentences."""
    return list(_tokens(line))


@lru_cache(maxsize=2**16)
def _tokens(line: str) -> tuple[str, ...]:
    return tuple(token for sentence in sentences(line) for token in _word(sentence))


def batch_nltk391_punkt(lines: Sequence[str]) -> list[list[str]]:
    """:func:`nltk391_punkt_tokens` of every line: each line split into sentences, the word
    rules over all sentences at once (a sentence's newlines written as vertical tabs, as
    :func:`harness.bleu.punkt_sentences.batch_nltk_punkt` does), regrouped by line."""
    split = [sentences(line) for line in lines]
    words = iter(nltk391_words(sentence_lines(split)))
    return [[token for _ in line for token in next(words)] for line in split]


def build_nltk391_punkt() -> Callable[[str], list[str]]:
    """:func:`nltk391_punkt_tokens`, once nltk and the Punkt model's package are found
    (:func:`harness.bleu.punkt_sentences.require_punkt`)."""
    require_punkt()
    return nltk391_punkt_tokens


def clear_caches() -> None:
    """Forget the per-line token caches of ``nltk-punkt-3.9.1`` and its Punkt's remembered
    decisions."""
    _word.cache_clear()
    _tokens.cache_clear()
    if _splitter.cache_info().currsize:
        _splitter().__self__.text_contains_sentbreak.cache_clear()  # type: ignore[attr-defined]
