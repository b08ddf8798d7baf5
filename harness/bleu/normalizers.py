"""Tokenizers of LLM-evaluation and dialogue toolkits: normalize the text, then split it.

Registered by name in :data:`harness.bleu.tokenizers.REGISTRY`. Each is written
from the published behaviour of the toolkit it is named after and checked against that
toolkit's own function in ``tests/test_profile_frameworks.py``:

``parlai``    ParlAI 1.7.2 ``normalize_answer`` then ``.split(" ")`` (``BleuMetric.compute``),
              less what the text rules do before it (lowercase, every ASCII punctuation mark
              a space, the whole words ``a``/``an``/``the`` a space): whitespace runs collapse
              to one space, and the split on single spaces turns an empty text into one empty
              token. jury 2.3.1's ``DefaultTokenizer`` is text rules alone (punctuation a
              space, each token lowercased) around a whitespace split.
``nltk-word`` nltk's ``NLTKWordTokenizer`` (what ``word_tokenize`` runs on each sentence) on
              the whole line: ``word_tokenize(text, preserve_line=True)``. ``word_tokenize``
              without ``preserve_line`` first splits sentences with the Punkt model: that is
              ``nltk-punkt`` (:mod:`harness.bleu.punkt_sentences`, the ``helm-bleu-*``
              profiles' tokenizer), which runs these rules on each sentence.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

import regex  # type: ignore[import-untyped]

__all__ = [
    "NLTK_CLOSING",
    "NLTK_CONTRACTIONS",
    "NLTK_OPENING",
    "NLTK_PUNCTUATION",
    "batch_nltk_word",
    "clear_caches",
    "joined_lines_rule",
    "joined_lines_rules",
    "nltk_word_tokens",
    "parlai_tokens",
]

#: Lines whose tokens are remembered per tokenizer (the same lines recur across the layouts,
#: preprocessing readings and configurations a search scores).
_LINE_CACHE = 2**16


def parlai_tokens(line: str) -> list[str]:
    """ParlAI's split of ``normalize_answer``'s text: whitespace runs collapsed to one space,
    then split on single spaces (``""`` gives ``[""]``). Its lowercasing, punctuation and
    articles are the text rules before it (``lowercase``, ``punctuation="ascii"``,
    ``articles="en"``)."""
    return " ".join(line.split()).split(" ")


# -------------------------------------------------------------------------------------------
# nltk's word tokenizer (the improved Penn Treebank rules), in five passes over the line.
# nltk 3.10 compiles every rule but the contractions with the third-party ``regex`` engine.
# -------------------------------------------------------------------------------------------
_Rule = tuple[Callable[..., str], str]


def _rx(pattern: str) -> Callable[..., str]:
    return regex.compile(pattern).sub


#: 1. opening quotes: typographic openers and backtick runs stand apart; a leading '"' and a
#: '"' or "''" after a space or an opening bracket become ``; an apostrophe that opens a
#: word (and is not a clitic such as 's or 're) is split from it.
NLTK_OPENING: tuple[_Rule, ...] = (
    (_rx("([\u00ab\u201c\u2018\u201e]|[`]+)"), r" \1 "),
    (_rx(r'^"'), "``"),
    (_rx("(``)"), r" \1 "),
    (_rx(r"""([ (\[{<])("|'')"""), r"\1 `` "),
    (_rx(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
)

#: 2. punctuation: a final period (before closing brackets and quotes at the end of the line),
#: ':' and ',' unless a digit follows, ellipses, ;@#$%&, figure to horizontal dashes, ?!, a
#: closing apostrophe before a space, and '*'.
_CLOSERS = "\\]\\)}>\"'"
NLTK_PUNCTUATION: tuple[_Rule, ...] = (
    (_rx(f"([^\\.])(\\.)([{_CLOSERS}\u00bb\u201d\u2019 ]*+)\\s*$"), r"\1 \2 \3 "),
    (_rx(r"([:,])([^\d])"), r" \1 \2"),
    (_rx(r"([:,])$"), r" \1 "),
    (_rx(r"\.{2,}"), r" \g<0> "),
    (_rx(r"[;@#$%&]"), r" \g<0> "),
    (_rx("[\u2012-\u2015]"), r" \g<0> "),
    (_rx(f"([^\\.])(\\.)([{_CLOSERS}]*)\\s*$"), r"\1 \2\3 "),
    (_rx(r"[?!]"), r" \g<0> "),
    (_rx(r"([^'])' "), r"\1 ' "),
    (_rx(r"[*]"), r" \g<0> "),
    (_rx(r"[\]\[(){}<>]"), r" \g<0> "),  # brackets
    (_rx(r"--"), r" -- "),  # double dash
)

#: 3. closing quotes (on the line padded with a space at both ends): typographic closers,
#: "''" and '"' (which becomes ''), whitespace runs to one space, then clitics split off.
NLTK_CLOSING: tuple[_Rule, ...] = (
    (_rx("([\u00bb\u201d\u2019])"), r" \1 "),
    (_rx("''"), " '' "),
    (_rx('"'), " '' "),
    (_rx(r"\s{2,}|[^\S ]"), " "),  # whitespace runs to one space (single spaces stay)
    (_rx(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (_rx(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
)

#: 4. Robert MacIntyre's two-part words (cannot, gimme, gonna, ...) and 'tis / 'twas, with
#: the standard ``re`` engine.
_TWO_PART = ("can|not", "d|'ye", "gim|me", "gon|na", "got|ta", "lem|me", "more|'n")
NLTK_CONTRACTIONS: tuple[_Rule, ...] = (
    *(
        (re.compile(rf"(?i)\b({a})({b})\b").sub, r" \1 \2 ")
        for a, b in (w.split("|") for w in _TWO_PART)
    ),
    (re.compile(r"(?i)\b(wan)(na)(?=\s)").sub, r" \1 \2 "),
    (re.compile(r"(?i) ('t)(is)\b").sub, r" \1 \2 "),
    (re.compile(r"(?i) ('t)(was)\b").sub, r" \1 \2 "),
)


def nltk_word_tokens(line: str) -> list[str]:
    """nltk's ``NLTKWordTokenizer().tokenize(line)``: the line taken as one sentence."""
    return list(_nltk_word(line))


@lru_cache(maxsize=_LINE_CACHE)
def _nltk_word(line: str) -> tuple[str, ...]:
    text = line
    for sub, repl in (*NLTK_OPENING, *NLTK_PUNCTUATION):
        text = sub(repl, text)
    text = f" {text} "
    for sub, repl in (*NLTK_CLOSING, *NLTK_CONTRACTIONS):
        text = sub(repl, text)
    return tuple(text.split())


def joined_lines_rule(rule: _Rule) -> _Rule:
    """``rule`` for many lines joined by newlines: ``^``/``$`` at every line's start and end
    (multiline), and no class or whitespace that could match the newline (``[^`` excludes it,
    ``\\s`` becomes ``[^\\S\\n]``), so no match reaches into the next line."""
    sub, repl = rule
    compiled = sub.__self__  # type: ignore[attr-defined]
    pattern = compiled.pattern.replace("[^", "[^\\n").replace("\\s", "[^\\S\\n]")
    engine = re if isinstance(compiled, re.Pattern) else regex
    return engine.compile("(?m)" + pattern).sub, repl


def _spaced_chars(chars: str) -> _Rule:
    """A rule ``[chars]`` → ``" \\g<0> "`` as one ``str.replace`` per character present
    (no replacement holds another of ``chars``, so the order does not matter)."""

    def spaced(repl: str, text: str) -> str:
        for char in chars:
            if char in text:
                text = text.replace(char, f" {char} ")
        return text

    return spaced, ""


def _replaced(old: str, new: str) -> _Rule:
    """A literal rule as ``str.replace`` (left to right, without overlaps, as ``re.sub``)."""

    def replace(repl: str, text: str) -> str:
        return text.replace(old, new) if old in text else text

    return replace, ""


# The multiline rules in the same order, the slow ones rewritten: single characters and
# literals as str.replace; rules that start with a class made to start with their literal
# (the class moved into a lookbehind; a class character is never part of the literal, so
# consuming it or not changes no other match); the eight contractions that start at a letter
# as one pass (their matches never touch: each is a whole word), then 'tis, then 'twas.
_O = tuple(map(joined_lines_rule, NLTK_OPENING))
_P = tuple(map(joined_lines_rule, NLTK_PUNCTUATION))
_C = tuple(map(joined_lines_rule, NLTK_CLOSING))
_TWO_PART_ALTERNATIVES = "|".join(rf"\b({a})({b})\b" for a, b in (w.split("|") for w in _TWO_PART))
_CONTRACTIONS_ONE_PASS = re.compile(
    rf"(?im)(?=[cdglmw])(?:{_TWO_PART_ALTERNATIVES}|\b(wan)(na)(?=[^\S\n]))"
)
#: 'tis and 'twas need the space before them, which the rules before may have just put there
_T_IS = re.compile(r"(?im) ('t)(is)\b")
_T_WAS = re.compile(r"(?im) ('t)(was)\b")


def _contractions(repl: str, text: str) -> str:
    for rule in (_CONTRACTIONS_ONE_PASS, _T_IS, _T_WAS):
        text = rule.sub(_split_pair, text)
    return text


#: Stands for the newline while a batch's whitespace is collapsed (private use; a text that
#: holds it is collapsed by the rule itself).
_NEWLINE_MARK = "\ue000"
#: Whitespace for str.split that the regex module's \s is not.
_SPLIT_ONLY_SPACE = "\x1c\x1d\x1e\x1f"


def _collapse_whitespace(repl: str, text: str) -> str:
    """The rule ``\\s{2,}|[^\\S ]`` → ``" "`` (every run of whitespace but the newline becomes
    one space) on the padded text of a batch, as one ``str.split``: each line there starts and
    ends with a space and each newline stands between spaces, so the runs are exactly the
    gaps ``split`` drops. Texts whose whitespace ``split`` sees differently, or with nothing
    but whitespace, go to the rule."""
    if (
        _NEWLINE_MARK in text
        or any(c in text for c in _SPLIT_ONLY_SPACE)
        or not text.strip()
        or not (text[0] == " " and text[-1] == " ")
    ):
        return _C[3][0](_C[3][1], text)
    words = text.replace("\n", _NEWLINE_MARK).split()
    return " " + " ".join(words).replace(_NEWLINE_MARK, "\n") + " "


def _split_pair(match: re.Match[str]) -> str:
    first, second = (g for g in match.groups() if g is not None)
    return f" {first} {second} "


_BATCH_BEFORE_PADDING: tuple[_Rule, ...] = (
    _O[0],  # typographic openers, backtick runs
    _O[1],  # a leading "
    _replaced("``", " `` "),
    (regex.compile(r"""(?m)(?<=[ (\[{<])(?:"|'')""").sub, " `` "),
    _O[4],  # an apostrophe opening a word
    _P[0],  # final period before closers and spaces
    _P[1],  # : , before a non-digit
    _P[2],  # : , at the end
    _P[3],  # ellipses
    _spaced_chars(";@#$%&"),
    _spaced_chars("\u2012\u2013\u2014\u2015"),
    _P[6],  # final period before closers
    _spaced_chars("?!"),
    _P[8],  # closing apostrophe before a space
    _spaced_chars("*"),
    _spaced_chars("][(){}<>"),
    _replaced("--", " -- "),
)
_BATCH_AFTER_PADDING: tuple[_Rule, ...] = (
    _spaced_chars("\u00bb\u201d\u2019"),
    _replaced("''", " '' "),
    _replaced('"', " '' "),
    (_collapse_whitespace, ""),  # whitespace runs
    _C[4],  # 's 'm 'd '
    (re.compile(r"(?:'ll|'LL|'re|'RE|'ve|'VE|n't|N'T)(?= )(?<=[^\n' ]...)").sub, r" \g<0>"),
    (_contractions, ""),
)


def batch_nltk_word(lines: Sequence[str]) -> list[list[str]]:
    """:func:`nltk_word_tokens` of every line (none holding ``"\\n"``), all lines at once.

    The lines are joined by newlines and every rule runs once over the whole text in its
    multiline form (:func:`joined_lines_rule`); each line is padded with a space on both
    sides where the tokenizer pads it. Equal line by line (``tests/test_fastpath.py``).
    """
    return joined_lines_rules(lines, _BATCH_BEFORE_PADDING, _BATCH_AFTER_PADDING)


def joined_lines_rules(
    lines: Sequence[str], before: Sequence[_Rule], after: Sequence[_Rule]
) -> list[list[str]]:
    """Every line's tokens (none holding ``"\\n"``) from word rules in their multiline form:
    the lines joined by newlines, ``before`` run once over the text, each line padded with a
    space on both sides, ``after`` run once, then each line split on whitespace."""
    text = "\n".join(lines)
    for sub, repl in before:
        text = sub(repl, text)
    text = " " + text.replace("\n", " \n ") + " "
    for sub, repl in after:
        text = sub(repl, text)
    return [piece.split() for piece in text.split("\n")]


@cache
def nltk_whole_line_marks() -> tuple[str, ...]:
    """Whitespace other than the space: the rules that put a quote or an apostrophe beside a
    space see a literal space, so a line holding other whitespace is not its words."""
    return tuple(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() and c != " ")


#: A line ending in whitespace, or in a word of closing quotes and brackets only: the final
#: period rules reach back over them to the word before.
_ENDS_OPEN = regex.compile(f"(?:(?:^|\\s)[{_CLOSERS}\u00bb\u201d\u2019]+|\\s)\\Z")
_OPEN_LAST = frozenset("])}>\"'\u00bb\u201d\u2019")


def _ends_open(line: str) -> bool:
    last = line[-1:]
    return bool(last) and (last in _OPEN_LAST or last.isspace()) and bool(_ENDS_OPEN.search(line))


def nltk_whole_lines(lines: Sequence[str]) -> list[bool]:
    """Which lines ``nltk-word`` tokenizes whole: those ending in whitespace or in a word of
    closers, where the final period rules look past the line's last word."""
    return list(map(_ends_open, lines))


def nltk_whole_line_test() -> Callable[[Sequence[str]], list[bool]]:
    """:func:`nltk_whole_lines` (the registry builds such tests on first use)."""
    return nltk_whole_lines


def clear_caches() -> None:
    """Forget the per-line token cache of ``nltk-word``."""
    _nltk_word.cache_clear()
