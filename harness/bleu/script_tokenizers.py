"""Tokenizers of BLEU scripts shipped inside toolkits (CodeXGLUE, tensor2tensor, fairseq).

Registered, under the names below, in :data:`harness.bleu.tokenizers.REGISTRY`. Each is a
deterministic pure function from one line to its tokens, written here from the published
behaviour of the script it names (the scripts are never imported; the differential tests in
``tests/test_profile_scripts.py`` run the published code itself):

``codexglue``  CodeXGLUE/CodeBERT "smooth BLEU" (lm-evaluation-harness 0.4.13
               ``tasks/code_x_glue/code-text/bleu.py``): ``splitPuncts`` — every run of word
               characters (``\\w``, Unicode) is a token, every other non-space character a token
               of its own — then mteval-v11a's ``normalize``, whose only effect on such text is
               to split ``_`` out of words (its ASCII punctuation class holds the underscore).
               Case is the ``lowercase`` factor's business (the script lowercases twice;
               ``str.lower`` is idempotent).
``codenn``     CodeNN's BLEU script as the code-summarization toolbox of Shi et al. (ICSE 2022)
               runs it (``metrics/bleu/codenn_bleu.py``, BLEU-CN): the line's words joined by
               single spaces, then mteval-v11a's ``normalize`` — ``<skipped>`` tags removed,
               ``&lt;``/``&gt;``/``&quot;``/``&amp;`` unescaped, lowercased (after unescaping:
               ``&LT;`` stays three tokens), every ASCII punctuation mark but ``'``, ``,``,
               ``-``, ``.`` split off, a period or comma split off unless between digits, a
               hyphen after a digit split off.
``t2t``        tensor2tensor 1.15.7 ``bleu_hook.bleu_tokenize``: mteval-v14's international
               rules with Python's own tables — a Unicode punctuation mark (``unicodedata``
               category ``P*``) is separated unless it sits between two *decimal digits*
               (``\\d``, category Nd: unlike sacrebleu's ``intl``, which uses ``\\p{N}``, a
               ``²`` or ``½`` is not a number here), every symbol (``S*``) is separated; no
               padding, no entity unescaping, no strip. The backslash is not punctuation:
               the published character class holds the raw marks, where ``\\]`` escapes
               the bracket.
``fairseq``    fairseq 0.12.2 ``Dictionary.encode_line`` as ``fairseq-score`` and
               ``generate.py`` feed ``fairseq.scoring.bleu.Scorer``: ``str.split`` words, an
               end-of-sentence ``</s>`` appended, then libbleu's trimming — leading ``<pad>``
               removed, trailing ``</s>``/``<pad>`` removed but never the first token (an empty
               line is the one token ``</s>``, which matches an empty reference). Its
               *reference* side differs (its registry entry has two side forms): the Scorer replaces the reference's
               ``<unk>`` before counting, so an ``<unk>`` never matches; the reference form
               turns each ``<unk>`` into :data:`UNMATCHABLE`, a token holding a space, which
               no whitespace-split hypothesis token can equal.
``keras-hub-re2`` keras-hub 0.32.0 ``keras_hub.metrics.Bleu``'s default tokenizer: mteval-v13a's
               substitutions run by TensorFlow's ``tf.strings.regex_replace`` (RE2), then
               ``tf.strings.split``. It differs from ``13a`` (see :func:`keras_re2_tokens`):
               the line is not padded with spaces, so a line-initial ``.5`` and a line-final
               ``5.`` stay one token; the line-final ``[.,]$`` rule never fires; tokens are
               split on ASCII whitespace only (U+00A0, U+3000, U+001C..U+001F stay inside).
"""

from __future__ import annotations

import operator
import re
import string
import sys
import unicodedata
import xml.sax.saxutils
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

__all__ = [
    "UNMATCHABLE",
    "batch_codenn_lowercased_words",
    "batch_codenn_words",
    "batch_codexglue_words",
    "batch_fairseq_reference_words",
    "batch_keras_re2",
    "batch_t2t",
    "build_t2t",
    "clear_caches",
    "codenn_lowercased_tokens",
    "codenn_tokens",
    "codexglue_tokens",
    "fairseq_reference_tokens",
    "fairseq_tokens",
    "keras_re2_tokens",
    "t2t_tokens",
]

Tokenizer = Callable[[str], list[str]]
_LINE_CACHE = 2**16


# --------------------------------------------------------------------------------------------
# codexglue
# --------------------------------------------------------------------------------------------

# A token is a run of word characters other than "_" (splitPuncts keeps "_" in words; the
# normalisation after it then separates every "_"), or any other single non-space character.
_CODEXGLUE_TOKEN = re.compile(r"[^\W_]+|\S")


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_codexglue(line: str) -> tuple[str, ...]:
    return tuple(_CODEXGLUE_TOKEN.findall(line))


def batch_codexglue_words(words: Sequence[str]) -> list[str]:
    """The codexglue tokens of every ``str.split`` word (none holding ``"\\0"``), each followed
    by ``"\\0"``: no token spans whitespace, so a line's tokens are its words' tokens (the
    fast path tokenizes each distinct word once, many at a time)."""
    return _CODEXGLUE_TOKEN.findall(" \x00 ".join(words) + " \x00")


def codexglue_tokens(line: str) -> list[str]:
    """CodeXGLUE ``splitPuncts`` + ``normalize``: word runs (``\\w`` less ``_``) and single
    non-space characters; ``"foo_bar(x)"`` gives ``foo _ bar ( x )``."""
    return list(_tokens_codexglue(line))


# --------------------------------------------------------------------------------------------
# codenn
# --------------------------------------------------------------------------------------------

# CodeNN's normalize, as the code-summarization toolbox runs it (mteval-v11a's rules): the
# tag "<skipped>" removed, XML entities unescaped, the line padded and lowercased, then four
# substitutions in order, each left to right over the previous one's result.
_SKIPPED_TAG = "<skipped>"
# ASCII punctuation but the apostrophe, comma, hyphen and period (and the space itself):
# each becomes a token
_CODENN_MARKS = ' !"#$%&()*+/:;<=>?@[\\]^_`{|}~'
#: The script's four substitutions, in order, each left to right over the previous one's
#: result (what :func:`codenn_rules` runs faster).
CODENN_RULES = (
    (re.compile("([" + re.escape(_CODENN_MARKS) + "])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period or comma not after a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # period or comma not before a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # hyphen after a digit
)
# The first rule pads each mark with a space on either side: for the marks but the space, the
# text split at them (the marks kept) and joined again with spaces. A space padded with spaces
# stays a run of spaces, which no later rule tells from one space (each sees one character
# before or after a period, comma or hyphen, never two spaces) and the final split drops.
_CODENN_SPLIT = re.compile("([" + re.escape(_CODENN_MARKS.replace(" ", "")) + "])")
# The other three, each match two characters, rewritten by a function of them (the
# templates' group references expanded in Python per match are the rules' main cost)
_CODENN_PAIRS = (
    (CODENN_RULES[1][0], lambda m: f"{m[1]} {m[2]} "),
    (CODENN_RULES[2][0], lambda m: f" {m[1]} {m[2]}"),
    (CODENN_RULES[3][0], lambda m: f"{m[1]} {m[2]} "),
)


def codenn_rules(text: str) -> str:
    """:data:`CODENN_RULES` applied to ``text`` in order, as the script applies them, but for
    runs of spaces (a space becomes three): the same words once split on whitespace."""
    text = " ".join(_CODENN_SPLIT.split(text))
    for pattern, rewrite in _CODENN_PAIRS:
        text = pattern.sub(rewrite, text)
    return text


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_codenn(line: str, lowercase: bool) -> tuple[str, ...]:
    text = " ".join(line.split()).replace(_SKIPPED_TAG, "")
    text = " " + xml.sax.saxutils.unescape(text, {"&quot;": '"'}) + " "
    if lowercase:  # here, between the unescaping and the rules, as the script does
        text = text.lower()
    return tuple(codenn_rules(text).split())


def codenn_tokens(line: str) -> list[str]:
    """CodeNN's ``normalize`` on the line's words joined by single spaces (what the toolbox
    passes it), without its lowercasing: ``"Returns &lt;T&gt; foo_bar()."`` gives
    ``Returns < T > foo _ bar ( ) .``; a line of nothing but ``<skipped>`` tags gives no
    token."""
    return list(_tokens_codenn(line, False))


def codenn_lowercased_tokens(line: str) -> list[str]:
    """CodeNN's whole ``normalize``, lowercasing where the script does (after removing the
    tag and unescaping entities, so ``&LT;`` and ``<SKIPPED>`` stay as written, lowercased):
    ``"Returns &lt;T&gt; foo_bar()."`` gives ``returns < t > foo _ bar ( ) .``."""
    return list(_tokens_codenn(line, True))


def batch_codenn_lowercased(lines: Sequence[str]) -> list[list[str]]:
    """:func:`codenn_lowercased_tokens` of every line, all at once: each line's words joined
    by single spaces, the lines by newlines, then the tag, the entities, the padding (a space
    either side of each newline), the lowercasing and the rules over the whole text. No step
    sees across a line's end: the tag and the entities hold no newline, no character
    lowercases to one and ``str.lower``'s Final_Sigma context stops at the padding, and each
    rule reads one character either side of a mark, period, comma or hyphen, none of which a
    newline is, and the padding stands beside every newline."""
    if not lines:
        return []
    text = "\n".join(" ".join(line.split()) for line in lines).replace(_SKIPPED_TAG, "")
    text = " " + xml.sax.saxutils.unescape(text, {"&quot;": '"'}).replace("\n", " \n ") + " "
    return [piece.split() for piece in codenn_rules(text.lower()).split("\n")]


def _codenn_words(words: Sequence[str], lowercase: bool) -> list[str]:
    """CodeNN's tokens of many ``str.split`` words (none holding ``"\\0"``), each word's
    followed by ``"\\0"``: the words joined by `` \\0 `` into one padded text and normalized
    once, as a line's words are (:func:`batch_codenn_words`)."""
    if not words:
        return []
    text = (" \x00 ".join(words) + " \x00").replace(_SKIPPED_TAG, "")
    text = " " + xml.sax.saxutils.unescape(text, {"&quot;": '"'}) + " "
    if lowercase:
        text = text.lower()
    return codenn_rules(text).split()


def batch_codenn_words(words: Sequence[str]) -> list[str]:
    """:func:`codenn_tokens` of many words, each word's tokens followed by ``"\\0"``.

    CodeNN's normalize is word-local: the tag and the entities hold no whitespace (and the
    tag is removed before the entities are unescaped, within a word either way), no character
    lowercases to whitespace and ``str.lower``'s Final_Sigma context stops at it, the first
    rule pads single characters, and each pair rule's match is two characters of which the
    first (a mark, period or comma) or the second (a period or comma) is never a space: no
    match starts after one that took the space before a word, so every word is rewritten as
    it is between two spaces, and only the number of spaces around it changes, which the final
    split drops. ``"\\0"`` is none of the rules' characters and stands between spaces.
    ``tests/test_tokenizer_shortcuts.py`` checks this against the line form."""
    return _codenn_words(words, False)


def batch_codenn_lowercased_words(words: Sequence[str]) -> list[str]:
    """:func:`codenn_lowercased_tokens` of many words, each word's tokens followed by
    ``"\\0"`` (as :func:`batch_codenn_words`, lowercasing where the script does)."""
    return _codenn_words(words, True)


# --------------------------------------------------------------------------------------------
# t2t
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _major_categories() -> str:
    """The first letter of the Unicode category (Python's ``unicodedata``) of every code point,
    as one string indexed by code point (built at C speed, unlike a Python loop over the code
    points)."""
    first = operator.itemgetter(0)
    return "".join(map(first, map(unicodedata.category, map(chr, range(sys.maxunicode + 1)))))


def _category_class(prefix: str, without: str = "") -> str:
    """A regex character class of every code point below ``sys.maxunicode`` whose Unicode
    category (Python's ``unicodedata``) starts with the letter ``prefix``, less ``without``, as
    ranges."""
    if len(prefix) != 1:
        raise ValueError(f"a major category is one letter, not {prefix!r}")
    marks = _major_categories()[: sys.maxunicode]  # the published tables stop below it
    for cp in map(ord, without):  # excluded code points
        marks = f"{marks[:cp]}-{marks[cp + 1 :]}"
    body = "".join(
        re.escape(chr(m.start()))
        if m.end() - m.start() == 1
        else f"{re.escape(chr(m.start()))}-{re.escape(chr(m.end() - 1))}"
        for m in re.finditer(f"{re.escape(prefix)}+", marks)
    )
    return f"[{body}]"


def _digit(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` is a decimal digit, a missing neighbour counting as
    one (no substitution can match across the end of the line)."""
    return i < 0 or i >= len(text) or text[i].isdecimal()


def _spaced_run(match: re.Match[str]) -> str:
    """A maximal run of punctuation marks, spaced as the two published substitutions space it.

    The first substitution pairs a non-digit with the mark after it, the second a mark with
    the non-digit after it; each consumes both characters, so along a run the pairs alternate.
    Worked out: a lone mark stays glued only between two digits; in a longer run every mark
    is separated from the previous character, and the last one from the next character unless
    that is a digit and the run's parity makes the second substitution skip it.
    """
    text = match.string
    start, end = match.span()
    run = match.group()
    left = _digit(text, start - 1)
    right = _digit(text, end)
    if len(run) == 1:
        return run if left and right else f" {run} "
    keeps_right = right and (len(run) % 2 == 0) != left
    return " " + " ".join(run) + ("" if keeps_right else " ")


@lru_cache(maxsize=1)
def _t2t_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Runs of punctuation marks, and single symbols (built on first use: the tables scan
    every code point once, as the published module does when it is imported)."""
    # the published class is the marks' raw characters in a [...]: its backslash escapes the
    # "]" after it, so "\\" is no punctuation mark there
    return re.compile(_category_class("P", without="\\") + "+"), re.compile(_category_class("S"))


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_t2t(line: str) -> tuple[str, ...]:
    punct_run, symbol = _t2t_patterns()
    line = punct_run.sub(_spaced_run, line)
    return tuple(symbol.sub(r" \g<0> ", line).split())


def _spaced_matches(pattern: re.Pattern[str], text: str) -> str:
    """``pattern.sub(r" \\g<0> ", text)`` for a ``pattern`` whose one group is its whole
    match: ``split`` finds the same matches as ``sub`` and keeps them between the pieces of
    text, which the spaces then join (``re`` expands a template in Python on every match)."""
    return " ".join(pattern.split(text))


def _char_class(chars: Iterable[str]) -> str:
    return "".join(map(re.escape, sorted(chars)))


@lru_cache(maxsize=64)
def _t2t_batch_patterns(present: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    """The t2t rules for a text made of the characters ``present``: (lone marks, runs of two
    or more marks, symbols), with classes of only those characters (the published classes
    hold thousands of ranges, which ``re`` searches much more slowly). The lone marks' and the
    symbols' patterns capture their whole match, for :func:`_spaced_matches`."""
    major = _major_categories()
    marks = _char_class(c for c in present if major[ord(c)] == "P" and c != "\\")
    symbols = _char_class(c for c in present if major[ord(c)] == "S")
    digits = _char_class(c for c in present if c.isdecimal())
    never = "(?!)"
    symbol = re.compile(f"([{symbols}])" if symbols else never)
    if not marks:
        return re.compile(never), re.compile(never), symbol
    m = f"[{marks}]"
    lone = re.compile(f"((?<=[^{marks}{digits}]){m}(?!{m})|(?<!{m}){m}(?=[^{marks}{digits}]))")
    return lone, re.compile(f"{m}{{2,}}"), symbol


def batch_t2t(lines: Sequence[str]) -> list[list[str]]:
    """:func:`_tokens_t2t` of every line (none holding ``"\\n"``), all at once.

    As ``intl``'s batch (:func:`harness.bleu.sacrebleu_tokenizers.batch_intl`): lines joined by
    ``"0\\n0"`` and wrapped in ``"0"`` so that a line's ends have a digit beside them, as a
    missing neighbour counts as a digit; a lone mark (spaced unless both neighbours are digits)
    is spaced by :func:`_spaced_matches`, runs of marks keep :func:`_spaced_run`; classes are
    built from the characters present. Equal line by line (``tests/test_fastpath.py``).
    """
    text = "0" + "0\n0".join(lines) + "0"
    lone, runs, symbol = _t2t_batch_patterns(frozenset(text))
    text = _spaced_matches(lone, text)
    text = runs.sub(_spaced_run, text)
    text = _spaced_matches(symbol, text)
    return [piece[1:-1].split() for piece in text.split("\n")]


def t2t_tokens(line: str) -> list[str]:
    """tensor2tensor ``bleu_tokenize``: Unicode punctuation separated unless between decimal
    digits (runs alternate as mteval-v14's), symbols separated."""
    return list(_tokens_t2t(line))


def build_t2t() -> Tokenizer:
    """:func:`t2t_tokens`, its Unicode category tables built first (when the tokenizer is asked
    for, not at its first line)."""
    _t2t_patterns()
    return t2t_tokens


# --------------------------------------------------------------------------------------------
# fairseq
# --------------------------------------------------------------------------------------------

_EOS = "</s>"
_PAD = "<pad>"
_UNK = "<unk>"
#: What a reference's ``<unk>`` becomes: it holds a space, so no hypothesis token equals it.
UNMATCHABLE = "<unk> (reference)"


def _fairseq_words(line: str) -> list[str]:
    words = [*line.split(), _EOS]
    start = 0
    while words[start] == _PAD:  # the appended </s> stops it
        start += 1
    words = words[start:]
    end = len(words)
    while end > 1 and words[end - 1] in (_EOS, _PAD):
        end -= 1
    return words[:end]


def fairseq_tokens(line: str) -> list[str]:
    """fairseq's hypothesis side: ``str.split`` words, ``</s>`` appended, leading ``<pad>``
    and trailing ``</s>``/``<pad>`` trimmed but the first token kept (``""`` → ``</s>``)."""
    return _fairseq_words(line)


def fairseq_reference_tokens(line: str) -> list[str]:
    """fairseq's reference side: as the hypothesis side, with every ``<unk>`` replaced by
    :data:`UNMATCHABLE` (``Scorer.add`` sets the reference's unknown-word ids to -999)."""
    return [UNMATCHABLE if w == _UNK else w for w in _fairseq_words(line)]


def batch_fairseq_reference_words(words: Sequence[str]) -> list[str]:
    """fairseq's reference-side tokens of every ``str.split`` word, each followed by
    ``"\\0"`` (a line without ``<pad>`` or ``</s>`` in it is its words, or ``</s>`` alone when
    it has none: the fast path tokenizes such lines word by word)."""
    out: list[str] = []
    for word in words:
        out += (UNMATCHABLE if word == _UNK else word, "\x00")
    return out


# --------------------------------------------------------------------------------------------
# keras-hub-re2
# --------------------------------------------------------------------------------------------

# The literal substitutions, in this order ('&amp;lt;' becomes '<'). keras-hub hands them to
# regex_replace as patterns, but none holds a regex metacharacter: each is a global replace.
_KERAS_LITERALS: tuple[tuple[str, str], ...] = (
    ("<skipped>", ""),
    ("-\n", ""),
    ("\n", " "),
    ("&quot;", '"'),
    ("&amp;", "&"),
    ("&lt;", "<"),
    ("&gt;", ">"),
)
# ASCII punctuation that is always spaced: all of it but ' - . , (keras-hub's class also holds
# the space, and spacing a space changes no token).
_KERAS_ALWAYS = re.compile(
    "([" + re.escape("".join(c for c in string.punctuation if c not in "'-.,")) + "])"
)
# The period/comma rules and the digit-hyphen rule, each one global pass. RE2 and Python's re
# agree on them: leftmost-first, non-overlapping matches, a scan resuming after each match,
# classes of code points ([^0-9] includes every non-ASCII character). Each match consumes its
# neighbour, which is what makes runs such as '.,' alternate.
_KERAS_MARK_AFTER = re.compile(r"([^0-9])([.,])")
_KERAS_MARK_BEFORE = re.compile(r"([.,])([^0-9])")
_KERAS_DIGIT_HYPHEN = re.compile(r"([0-9])-")
# The period/comma rules' and the hyphen rule's replacements of their matched characters.
_SPACED_MARK = {".": " . ", ",": " , "}
_DIGIT_HYPHEN = {d: f"{d} - " for d in "0123456789"}
# tf.strings.split without a separator splits on C's isspace in the "C" locale: ASCII only.
_KERAS_SPACE = re.compile("[ \t\n\v\f\r]+")


@lru_cache(maxsize=_LINE_CACHE)
def _tokens_keras_re2(line: str) -> tuple[str, ...]:
    for old, new in _KERAS_LITERALS:
        line = line.replace(old, new)
    line = _KERAS_ALWAYS.sub(r" \1 ", line)
    line = _KERAS_MARK_AFTER.sub(r"\1 \2 ", line)
    line = _KERAS_MARK_BEFORE.sub(r" \1 \2", line)
    line = _KERAS_DIGIT_HYPHEN.sub(r"\1 - ", line)
    return tuple(t for t in _KERAS_SPACE.split(line) if t)


def keras_re2_tokens(line: str) -> list[str]:
    r"""keras-hub 0.32.0's default BLEU tokenizer, as TensorFlow runs it.

    Its chain is mteval-v13a's (``<skipped>``, ``-`` + newline, newline, the four entities,
    ASCII punctuation but ``' - . ,``, period/comma unless next to a digit, hyphen after a
    digit), with three consequences of running it in RE2 and TensorFlow:

    * the line is not padded with spaces, so the period/comma rules, which need a neighbour,
      leave a mark at either end of the line next to a digit alone: ``.5`` starting a line
      and ``5.`` ending it are one token each (13a splits both);
    * the final rule, ``[.,]$`` rewritten as `` \0 \1``, names a capture group that the
      pattern does not have; RE2 rejects such a rewrite and regex_replace leaves the text
      unchanged, so the rule never fires;
    * ``\s`` in the space-collapsing rule is RE2's ``[\t\n\f\r ]`` and ``tf.strings.split``
      splits on ASCII whitespace: no-break and other Unicode spaces, U+0085 and U+001C..U+001F
      stay inside tokens (``str.split`` separates on all of them). The collapsing rule itself
      changes no token, so it is not run here.

    No strip: the metric tokenizes the raw strings.
    """
    return list(_tokens_keras_re2(line))


def batch_keras_re2(lines: Sequence[str]) -> list[list[str]]:
    """:func:`keras_re2_tokens` of every line, the rules that look at no neighbour over all
    lines at once.

    The literals and the always-spaced punctuation run on the lines joined by NUL (neither
    creates nor breaks a match of theirs across it); the period/comma rules on the lines
    joined by ``"0\\n0"`` and wrapped in ``"0"`` (as :func:`batch_t2t`), the hyphen rule on
    the lines joined by NUL again. Each rule's replacement is put between the pieces its
    ``split`` leaves (the same matches as ``sub``, without ``re`` expanding a template in
    Python on every match). A batch with a line holding NUL or a newline (whose rules join
    lines) is tokenized line by line. Equal line by line (``tests/test_fastpath.py``)."""
    if any("\0" in line or "\n" in line for line in lines):
        return [list(_tokens_keras_re2(line)) for line in lines]
    text = "\0".join(lines)
    for old, new in _KERAS_LITERALS:
        if old in text:
            text = text.replace(old, new)
    text = " ".join(_KERAS_ALWAYS.split(text))
    if "." in text or "," in text:
        # a missing neighbour and a digit are alike to both rules, and neither matches a digit
        # or a newline beside one: each line's matches are its own
        text = "0" + "0\n0".join(text.split("\0")) + "0"
        parts = _KERAS_MARK_AFTER.split(text)
        parts[2::3] = map(_SPACED_MARK.__getitem__, parts[2::3])
        parts = _KERAS_MARK_BEFORE.split("".join(parts))
        parts[1::3] = map(_SPACED_MARK.__getitem__, parts[1::3])
        text = "\0".join(piece[1:-1] for piece in "".join(parts).split("\n"))
    if "-" in text:  # the hyphen rule matches no NUL
        parts = _KERAS_DIGIT_HYPHEN.split(text)
        parts[1::2] = map(_DIGIT_HYPHEN.__getitem__, parts[1::2])
        text = "".join(parts)
    return [[t for t in _KERAS_SPACE.split(line) if t] for line in text.split("\0")]


def clear_caches() -> None:
    """Forget the per-line token caches of ``codexglue``, ``codenn``, ``t2t`` and
    ``keras-hub-re2``."""
    _tokens_codexglue.cache_clear()
    _tokens_codenn.cache_clear()
    _tokens_t2t.cache_clear()
    _tokens_keras_re2.cache_clear()
