"""The tokenizers' faster forms against what they replace, token for token.

* Punkt's remembered decisions (:func:`harness.bleu.punkt_sentences.remember_decisions`) and
  its unguarded patterns: the sentences of ``nltk-punkt``'s and ``nltk-punkt-3.9.1``'s
  splitters, their memory shared by every text drawn before, against a splitter that decides
  every context afresh (nltk's own ``PunktSentenceTokenizer`` for 3.10, the same 3.9.1 splitter
  without the memory); texts are lines joined by newlines (what evalscope's joined references
  are), so contexts repeat across texts.
* CodeNN's rules (:func:`harness.bleu.script_tokenizers.codenn_rules`): against the four
  substitutions as the script writes them on any text, and the ``codenn`` tokens against the
  toolbox's own ``normalize``; its words tokenized one by one (many at a time) against its
  line form, and the fast path's counts of ``codenn`` lines (each distinct word once) against
  the line form, lowercasing where the script does or not.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.bleu import nltk391, punkt_sentences, vocabulary
from harness.bleu.script_tokenizers import (
    CODENN_RULES,
    batch_codenn_lowercased_words,
    batch_codenn_words,
    codenn_lowercased_tokens,
    codenn_rules,
    codenn_tokens,
)
from harness.bleu.tokenizers import TextRules, text_tokenizer

from . import oracles
from .conftest import _require
from .depth import examples
from .strategies import NLTK_PIECES, SENTENCE_END_WORDS

PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

_WORD = NLTK_PIECES | st.sampled_from(
    [*SENTENCE_END_WORDS, "the.", "The", "of.", "J.", "Bach", "5.", "U.S.", "e.g.", "“", "»"]
)
_LINE = st.lists(
    st.tuples(_WORD, st.sampled_from(["", " ", "  ", "\t"])), min_size=1, max_size=10
).map(lambda pairs: "".join(w + gap for w, gap in pairs).strip())
#: Lines joined by newlines (as evalscope joins a segment's references), or one line.
_TEXT = st.lists(_LINE, min_size=1, max_size=4).map("\n".join)


def _fresh_nltk() -> Callable[[str], list[str]]:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    split: Callable[[str], list[str]] = PunktSentenceTokenizer(
        punkt_sentences.punkt_parameters()
    ).tokenize
    return split


def _forgetful(splitter: Callable[[], Callable[[str], list[str]]]) -> Callable[[str], list[str]]:
    """A new splitter of the kind ``splitter`` builds, deciding every context afresh: the
    instance's remembered decisions removed, so the class's own method decides."""
    split = splitter.__wrapped__()  # type: ignore[attr-defined]
    tokenizer: Any = split.__self__  # type: ignore[attr-defined]
    del tokenizer.text_contains_sentbreak
    assert not hasattr(tokenizer.text_contains_sentbreak, "cache_info")
    return split


@pytest.fixture(scope="module")
def fresh_nltk() -> Callable[[str], list[str]]:
    punkt_sentences.require_punkt()
    return _fresh_nltk()


@pytest.fixture(scope="module")
def fresh_391() -> Callable[[str], list[str]]:
    punkt_sentences.require_punkt()
    return _forgetful(nltk391._splitter)


@PROPS
@given(_TEXT)
@example("It is the.\nThe end.\nThe end.")
@example("Dr.\nSmith went. J. Bach came.\nHe left! She stayed?\n“Stop.” Then")
def test_remembered_punkt_decisions_split_as_nltk(
    fresh_nltk: Callable[[str], list[str]], text: str
) -> None:
    """``nltk-punkt``'s splitter (its decisions remembered across every text drawn so far,
    its patterns unguarded) against nltk's ``PunktSentenceTokenizer`` on the same model."""
    split = punkt_sentences._splitter()
    assert split(text) == fresh_nltk(text)
    assert split(text) == fresh_nltk(text)  # every decision now remembered


@PROPS
@given(_TEXT)
@example("It is the.\nThe end.\nThe end.")
@example("Stop.” Then he left.\nStop.» Then.\nHe left.\x1cThen he came.")
def test_remembered_punkt_391_decisions_split_as_without(
    fresh_391: Callable[[str], list[str]], text: str
) -> None:
    """``nltk-punkt-3.9.1``'s splitter against the same splitter deciding afresh (its
    agreement with nltk 3.9.1 itself: ``tests/test_nltk391.py``)."""
    split = nltk391._splitter()
    assert split(text) == fresh_391(text)
    assert split(text) == fresh_391(text)


def _model_words() -> list[str]:
    """Words the English model holds: abbreviations (of letters) and both words of every
    collocation of letters, some capitalised."""
    params = punkt_sentences.punkt_parameters()
    words = [a for a in params.abbrev_types if a.isalpha()]
    words += [w for pair in params.collocations for w in pair if w.isalpha()]
    return sorted({*words, *(w.capitalize() for w in words), *(w.upper() for w in words)})


_LETTERS = st.sampled_from(list("abzAZéÉßİıΣσςǅ́"))
_PLAIN_WORD = st.sampled_from(["the", "The", "end", "He", "etc", "Inc", "ΑΣ", "İstanbul"]) | (
    st.lists(_LETTERS, min_size=1, max_size=5).map("".join)
)
#: Tokens after a sentence end other than words of letters (evalscope's joined references
#: put a reference's first token there).
_NEXT_TOKEN = st.sampled_from(
    ["(x)", "5,443", '"the"', "...", "the-nyx", "24.0", "&quot;o&quot;", ",", "x.", "'s", "1926"]
)
_CONTEXT = st.tuples(
    _PLAIN_WORD | st.sampled_from(_model_words()) | st.text(max_size=3),
    st.sampled_from([".", "?", "!", "..", ".?", ".\u201d", ","]),
    st.sampled_from([" ", "\n", "\n\n", "\t ", "\u00a0", "\x1c", "\u2028", ""]),
    _PLAIN_WORD | st.sampled_from(_model_words()) | st.text(max_size=3) | _NEXT_TOKEN,
).map("".join)


@PROPS
@given(_CONTEXT)
@example("the.\nThe")
@example("Dr.\nSmith")
@example("zung?\nKing")
@example("ΑΣ.\nΣας")
@example("the.\n(x)")
@example("of?\n5,443")
@example("et.\n1926")
def test_plain_decisions_are_punkts(fresh_nltk: Callable[[str], list[str]], context: str) -> None:
    """:func:`harness.bleu.punkt_sentences.plain_decision` decides a context as nltk's
    ``text_contains_sentbreak`` does, or leaves it to Punkt."""
    decide = punkt_sentences.plain_decision(punkt_sentences.punkt_parameters())
    quick = decide(context)
    if quick is not None:
        assert quick == fresh_nltk.__self__.text_contains_sentbreak(context)  # type: ignore[attr-defined]


def _sent_starters() -> list[str]:
    """The English model's frequent sentence starters."""
    return sorted(punkt_sentences.punkt_parameters().sent_starters)


_ELLIPSIS = st.tuples(
    _PLAIN_WORD | st.sampled_from(_model_words()) | st.sampled_from(["a", "e", "etc", "ΑΣ", "mr"]),
    st.sampled_from(["..", "...", "....", "....."]),
    st.sampled_from([" ", "\n", "\n\n", " \n ", "  "]),
    _PLAIN_WORD
    | st.sampled_from(_model_words())
    | st.text(max_size=4).map(lambda t: "".join(t.split()))
    | _NEXT_TOKEN
    | st.sampled_from(["The", "But", "J.", "?", "!x", "...", "U.S.", "Mr.", "5.", "(The", "x?y."])
    | st.sampled_from(_sent_starters()).map(str.capitalize),
).map("".join)


@PROPS
@given(_ELLIPSIS)
@example("zung...\nThe")
@example("and... but")
@example("etc...\n\nHe")
@example("ΑΣ....\n?!")
def test_ellipsis_contexts_are_decided_alike(
    fresh_nltk: Callable[[str], list[str]], context: str
) -> None:
    """:func:`harness.bleu.punkt_sentences.ellipsis_context` names a context that nltk's
    ``text_contains_sentbreak`` decides as the given one."""
    alike = punkt_sentences.ellipsis_context(context)
    if alike is not None:
        own = fresh_nltk.__self__.text_contains_sentbreak  # type: ignore[attr-defined]
        assert own(alike) == own(context)


def test_ellipsis_contexts_cover_the_word_before_and_the_gap() -> None:
    """Contexts that differ only in the word, the ellipsis and the gap are one context; a
    word holding a mark or a digit, or a period alone, is none."""
    alike = punkt_sentences.ellipsis_context
    assert alike("zung...\nThe") == alike("and.. The") == "aa... The"
    assert alike("a?b... The") is None
    assert alike("5... The") is None
    assert alike("zung. The") is None


def test_plain_decisions_decide_the_common_contexts() -> None:
    """The shortcut decides a sentence end between plain words, and leaves an abbreviation,
    an initial and a number to Punkt."""
    decide = punkt_sentences.plain_decision(punkt_sentences.punkt_parameters())
    assert decide("the.\nThe") is True
    assert decide("zung?\nKing") is True
    assert decide("Dr.\nSmith") is None
    assert decide("b.\nLevine") is None  # an initial: one letter
    assert decide("5.\nThe") is None
    assert decide("the.\n(hien)") is True
    assert decide("nyx?\n2006") is True
    assert decide("a.\nThe") is None  # one letter


@PROPS
@given(st.text(alphabet=st.sampled_from(list("-.,05٣²Aaİ\n ")), max_size=8))
@example("-.5,3.")
@example("12\n")
@example("İ5")
def test_number_type_is_punkts_token_type(tok: str) -> None:
    """:func:`harness.bleu.punkt_sentences.number_type` with the unguarded number pattern
    against nltk's ``PunktToken`` type of the same token."""
    from nltk.tokenize.punkt import PunktToken

    numeric = punkt_sentences._unguarded(PunktToken._RE_NUMERIC)
    assert punkt_sentences.number_type(tok, numeric) == PunktToken(tok).type


def test_clearing_the_caches_forgets_the_decisions() -> None:
    """:func:`harness.bleu.punkt_sentences.clear_caches` empties the decisions' memory."""
    punkt_sentences.require_punkt()
    split = punkt_sentences._splitter()
    split("It ended.\nThe next began.")
    memory = split.__self__.text_contains_sentbreak  # type: ignore[attr-defined]
    assert memory.cache_info().currsize > 0
    punkt_sentences.clear_caches()
    assert memory.cache_info().currsize == 0


# ------------------------------------------------------------------------------------ codenn
def _script_rules(text: str) -> str:
    for pattern, template in CODENN_RULES:
        text = pattern.sub(template, text)
    return text


_CODENN_TEXT = st.text(alphabet=st.sampled_from(list(" .,-0123456789aZ_()'\"<>&;#é\n")))


@PROPS
@given(_CODENN_TEXT)
@example(" a..,.b 1..2 3-4-5 x,-6 ")
@example(" .5 ,. 7.,8 ")
def test_codenn_rules_are_the_scripts_substitutions(text: str) -> None:
    """The rewritten rules give the words the four substitutions give, on any text."""
    assert codenn_rules(text).split() == _script_rules(text).split()


_CODENN_LINES = st.lists(
    st.lists(
        _CODENN_TEXT
        | st.sampled_from(["<skipped>", "<SKIPPED>", "&lt;", "&amp;lt;", "&quot;", "&QUOT;"])
        | st.sampled_from(["Σ", "ΑΣ", "İ", "\t", "\r\n", "\x85", "\u2028", "5-", "x.", ".5"])
    ).map("".join),
    max_size=8,
)


@PROPS
@given(_CODENN_LINES)
@example(["ΑΣ\nΑΣ", "<skip<skipped>ped>", "&am&amp;p;lt;", "", "1-\n-", ".\n,x"])
def test_codenn_lowercased_batch_equals_the_line_form(lines: list[str]) -> None:
    """CodeNN's lowercased tokens of many lines at once (one text, the lines padded apart)
    equal its tokens line by line."""
    from harness.bleu.script_tokenizers import batch_codenn_lowercased

    assert batch_codenn_lowercased(lines) == [codenn_lowercased_tokens(x) for x in lines]


@PROPS
@given(_CODENN_LINES)
@example(["a. .b", "3. .b", "x ,.y", "ΑΣ ΑΣ", "<skipped> x", "&amp;lt; 5 -5", ". , -"])
def test_codenn_words_equal_the_line_form(lines: list[str]) -> None:
    """CodeNN's tokens of a line's words, many words at once (each word's tokens followed by
    NUL), equal the line form's tokens, lowercasing where the script does or not."""
    for batch, line_form in (
        (batch_codenn_words, codenn_tokens),
        (batch_codenn_lowercased_words, codenn_lowercased_tokens),
    ):
        per_line = [batch(line.split()) for line in lines]
        assert [[t for t in flat if t != "\0"] for flat in per_line] == list(map(line_form, lines))
        words = [w for line in lines for w in line.split()]
        assert batch(words) == [t for flat in per_line for t in flat]
        assert batch(words).count("\0") == len(words)


@PROPS
@given(_CODENN_LINES | st.lists(st.sampled_from(["a\0b", "", " ", "x. y"]), max_size=4))
def test_codenn_on_the_fast_path_equals_the_line_form(lines: list[str]) -> None:
    """The fast path's ``codenn`` tokens (every distinct word tokenized once; a line holding
    NUL tokenized whole) equal the line form's, under each lowercasing rule."""
    for lowercase, rule in ((False, "unicode"), (True, "script"), (True, "unicode")):
        rules = TextRules(tokenize="codenn", lowercase=lowercase, lowercase_rule=rule)
        assert vocabulary.batch_tokens(lines, rules) == [text_tokenizer(rules)(x) for x in lines]


def _codenn_script() -> ModuleType:
    path = oracles.reference_impls_dir() / "codesum-evaluation" / "metrics" / "bleu"
    _require(
        None if (path / "codenn_bleu.py").is_file() else f"codenn_bleu.py not found in {path}",
        "the code-summarization toolbox",
    )
    spec = importlib.util.spec_from_file_location("codenn_bleu_script", path / "codenn_bleu.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def codenn_script() -> ModuleType:
    return _codenn_script()


_CODE_LINE = st.lists(
    st.sampled_from(
        ["get_value", "x.5", "1,000", "3-4", "a.b", "&lt;", "&LT;", "<skipped>", "(x)", "..."]
    )
    | st.text(alphabet=st.sampled_from(list(".,-09aZ_(&;é")), max_size=6),
    max_size=8,
).map(" ".join)


@PROPS
@given(_CODE_LINE)
def test_codenn_tokens_are_the_toolbox_normalize(codenn_script: ModuleType, line: str) -> None:
    """``codenn`` (lowercasing where the script does) against the toolbox's ``normalize`` of
    the line's words joined by spaces; without lowercasing, against it with case kept."""
    joined = " ".join(line.split())
    assert codenn_lowercased_tokens(line) == codenn_script.normalize(joined)
    codenn_script.preserve_case = True
    try:
        assert codenn_tokens(line) == codenn_script.normalize(joined)
    finally:
        codenn_script.preserve_case = False


@PROPS
@given(st.lists(_LINE | st.sampled_from(["end. ", "x.\t", "a.)", "(b.", "c!  d", "e?\x1c", ""])))
@example(["end. ", "Dr. Smith", "a b", "x.\x1cY", "q.) r"])
def test_whole_lines_found_in_the_joined_lines_equal_each_line_alone(lines: list[str]) -> None:
    """Which lines ``nltk-punkt`` and ``nltk-punkt-3.9.1`` tokenize whole, their potential
    sentence ends looked for once in the joined lines, equal each line tested alone (what a
    batch with a line holding NUL does)."""
    for test in (punkt_sentences.whole_line_test(), nltk391.whole_line_test()):
        assert test(lines) == test([*lines, "\0"])[:-1]
