"""The fast statistics path and the vectorised segment scoring equal their Python references.

* :func:`harness.bleu.fastcount.count_statistics` (behind :func:`harness.bleu.engine.compute_statistics`)
  gives exactly the hypothesis lengths, reference lengths and clipped matches of the
  per-segment Python reference :func:`harness.bleu.engine._statistics_reference`, for every
  tokenizer but MeCab, both cases, orders 1–6, 1–4 ragged references (and more than the dense
  side table holds), CJK, empty lines, repeated n-grams, entities, newlines and odd whitespace;
  with tiny chunks (chunk boundaries everywhere), with keys forced not to fit (range halving,
  then the fallback to the reference), and with the dense side table disabled (runs path).
  The fast path has no hash — n-gram keys are exact ranks — so there is no collision to force;
  its exactness limits are the 63-bit packing, which these tests force.
* The batch tokenizer of the fast path equals :func:`harness.bleu.tokenizers.tokenize` line by line.
* :func:`harness.bleu.engine.segment_results` (vectorised for non-nltk smoothing) equals
  :func:`harness.bleu.engine.score_totals` on each segment's own statistics to 1e-9, for drawn
  configs covering every factor, raising the same error where the library would raise.
* ``Statistics.ref_length`` (vectorised) equals :func:`harness.bleu.stats.choose_ref_length`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from harness import Corpus
from harness.bleu import engine, fastcount, native, sortcount, vocabulary
from harness.bleu.arithmetic import context_of
from harness.bleu.config import (
    EMPTY_ORDER,
    NGRAM_TOTALS,
    ON_ZERO_LENGTH,
    REF_LENGTHS,
    SMOOTHINGS,
    ZERO_GUARD,
    BleuConfig,
)
from harness.bleu.layouts import sentence_config
from harness.bleu.profiles import PROFILES
from harness.bleu.sacrebleu_tokenizers import batch_intl, tokens_intl
from harness.bleu.stats import Statistics, Totals, choose_ref_length
from harness.bleu.tokenizers import (
    ARTICLES,
    PUNCTUATIONS,
    REGISTRY,
    TextRules,
    TokenizerSpec,
    batch_lines_tokens,
    registered,
    text_tokenizer,
    tokenize,
)
from harness.errors import HarnessError
from harness.session import Session

from .depth import examples
from .strategies import NLTK_PIECES, SENTENCE_END_WORDS, WORDS, corpora, sentences

# generated text holds carriage returns and NULs on purpose: the fast path must count them exactly
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

TOL = 1e-9
#: MeCab's tokenizers are an optional extra, proven in tests/test_tokenizers.py.
_OPTIONAL = ("ja-mecab", "ko-mecab")
#: Every other tokenizer of the registry, whatever its locality, so that a new entry is drawn
#: here; those with side forms in test_texts_tokenized_by_side_count_as_the_reference.
TOKENIZERS = tuple(
    name for name, spec in REGISTRY.items() if spec.sides is None and name not in _OPTIONAL
)
BY_SIDE = tuple(name for name, spec in REGISTRY.items() if spec.sides is not None)
SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# Text that stresses tokenizers: the shared vocabulary, punctuation runs next to digits,
# entities, <skipped>, newlines (13a joins "-\n"), NUL (the batch separator), U+001C..U+001F and
# other whitespace that str.split knows, CJK, and repeated words (repeated n-grams).
EXTRA = [
    ".",
    ",",
    "...",
    ".,",
    ",.",
    "1.",
    ".5",
    "9,",
    "3-4",
    "-",
    "&lt;",
    "&gt;",
    "&amp;lt;",
    "<skipped>",
    "a-\nb",
    "x\ny",
    "\x00",
    "p\x00q",
    "\x1c",
    "a\x1fb",
    "\x85",
    "\u2028",
    "\u3000",
    "\xa0",
    "\t",
    "İ",
    "ΣΑΣ",
    "猫猫",
    "「東京」",
    "$5",
    "(x)",
    "'s",
    "An",
    "a.",
    "THE,",
    "foo_bar(x)",
    "—",
    "½",
    "١٢٣",
]
_TOKEN = st.sampled_from(WORDS + EXTRA)
_SEP = st.sampled_from([" ", " ", " ", "", "  ", "\t", "\u3000"])


@st.composite
def lines(draw: st.DrawFn, max_size: int = 12) -> str:
    words = draw(st.lists(_TOKEN, max_size=max_size))
    if words and draw(st.booleans()):
        words = words + words[: draw(st.integers(1, len(words)))]  # repeated n-grams
    out = ""
    for w in words:
        out += w + draw(_SEP)
    return out


@st.composite
def rich_corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """Corpora of `lines`, references often derived from the hypothesis, 1–4 ragged refs."""
    n = draw(st.integers(1, 6))
    hyps = [draw(lines()) for _ in range(n)]
    refs = []
    for h in hyps:
        seg = []
        for _ in range(draw(st.integers(1, 4))):
            if h and draw(st.booleans()):
                i = draw(st.integers(0, len(h)))
                seg.append(h[:i] + draw(lines(3)) + h[i:])
            else:
                seg.append(draw(lines()))
        refs.append(seg)
    return hyps, refs


@contextmanager
def compiled(on: bool) -> Iterator[None]:
    """Count with the compiled kernels (when built) or with the numpy path."""
    saved = os.environ.pop(native.ENV, None)
    if not on:
        os.environ[native.ENV] = "0"
    try:
        yield
    finally:
        os.environ.pop(native.ENV, None)
        if saved is not None:
            os.environ[native.ENV] = saved


def assert_same_statistics(a: Statistics, b: Statistics) -> None:
    assert a.hyp_len.tolist() == b.hyp_len.tolist()
    assert a.ref_lens == b.ref_lens
    assert a.matches.tolist() == b.matches.tolist()
    assert a.ids == b.ids and a.tokenization == b.tokenization


def fast_statistics(corpus: Corpus, config: BleuConfig, order: int, **kw: Any) -> Statistics:
    hyp_len, ref_len, k, matches = fastcount.count_statistics(
        corpus.hypotheses, corpus.references, config.text_rules, order, **kw
    )
    flat = iter(ref_len.tolist())
    return Statistics(
        hyp_len=hyp_len,
        ref_lens=tuple(tuple(next(flat) for _ in range(n)) for n in k.tolist()),
        matches=matches,
        ids=corpus.ids,
        tokenization=engine.tokenization_key(config),
    )


# ---------------------------------------------------------------------------- statistics
@SETTINGS
@given(
    corpus=st.one_of(corpora(), rich_corpora()),
    tok=st.sampled_from(TOKENIZERS),
    lowercase=st.booleans(),
    order=st.integers(1, 6),
    chunk=st.sampled_from([fastcount.CHUNK, 1, 5, 40]),
    pipelined=st.booleans(),
    kernels=st.booleans(),
    strip=st.sampled_from(["rstrip", "none"]),
    normalising=st.fixed_dictionaries(
        {
            "lowercase_rule": st.sampled_from(["unicode", "script", "unicode-after", "ascii"]),
            "punctuation": st.sampled_from(PUNCTUATIONS),
            "articles": st.sampled_from(ARTICLES),
        }
    ),
)
def test_fast_statistics_equal_the_reference(
    corpus: tuple[list[str], list[list[str]]],
    tok: str,
    lowercase: bool,
    order: int,
    chunk: int,
    pipelined: bool,
    kernels: bool,
    strip: str,
    normalising: dict[str, str],
) -> None:
    """Every tokenizer, case rule, punctuation and article rule, strip rule, order and chunk
    size; ``pipelined``: chunks counted in the helper thread while the next is tokenized (large
    corpora only, forced here); ``kernels``: the compiled word table and counter, or the numpy
    path."""
    hyps, refs = corpus
    c = Corpus(hypotheses=hyps, references=refs)
    config = BleuConfig(tokenize=tok, lowercase=lowercase, strip=strip, **normalising)
    reference = engine._statistics_reference(c, config, max_order=order)
    saved = fastcount._PIPELINE_MIN_SEGMENTS
    fastcount._PIPELINE_MIN_SEGMENTS = 0 if pipelined else 10**9
    try:
        with compiled(kernels):
            assert_same_statistics(fast_statistics(c, config, order, chunk=chunk), reference)
    finally:
        fastcount._PIPELINE_MIN_SEGMENTS = saved
    with compiled(kernels):
        assert_same_statistics(engine.compute_statistics(c, config, max_order=order), reference)


@SETTINGS
@given(
    corpus=rich_corpora(),
    tok=st.sampled_from(TOKENIZERS),
    order=st.integers(1, 5),
    kernels=st.booleans(),
)
def test_each_reference_alone_equals_the_reference(
    corpus: tuple[list[str], list[list[str]]], tok: str, order: int, kernels: bool
) -> None:
    """``best-ref-mean`` counts every (hypothesis, one reference) pair after the corpus, with
    the token tables of the first count: the pairs' matches equal the Python reference's."""
    hyps, refs = corpus
    config = BleuConfig(tokenize=tok, aggregation="best-ref-mean")
    with compiled(kernels):
        stats = engine.compute_statistics(
            Corpus(hypotheses=hyps, references=refs), config, max_order=order
        )
    pairs = Corpus(
        hypotheses=[h for h, seg in zip(hyps, refs, strict=True) for _ in seg],
        references=[[r] for seg in refs for r in seg],
    )
    want = engine._statistics_reference(pairs, config, max_order=order)
    assert stats.ref_matches is not None
    assert stats.ref_matches.tolist() == want.matches.tolist()


@settings(max_examples=examples(100), deadline=None)
@given(corpus=rich_corpora(), order=st.integers(1, 5))
def test_runs_path_and_many_references(
    corpus: tuple[list[str], list[list[str]]], order: int
) -> None:
    """More sides than the dense (groups × sides) table holds: counts by runs instead (numpy
    path); the compiled counter with up to 9 references."""
    hyps, refs = corpus
    refs = [[*seg, h, *seg] for h, seg in zip(hyps, refs, strict=True)]  # up to 9 refs
    c = Corpus(hypotheses=hyps, references=refs)
    config = BleuConfig()
    reference = engine._statistics_reference(c, config, max_order=order)
    assert_same_statistics(fast_statistics(c, config, order), reference)
    saved = sortcount._DENSE_SIDES
    sortcount._DENSE_SIDES = 1
    try:
        with compiled(False):
            assert_same_statistics(fast_statistics(c, config, order), reference)
    finally:
        sortcount._DENSE_SIDES = saved


@settings(max_examples=examples(100), deadline=None)
@given(corpus=rich_corpora(), order=st.integers(1, 5), bits=st.integers(0, 30))
def test_keys_that_do_not_fit_halve_then_fall_back(
    corpus: tuple[list[str], list[list[str]]], order: int, bits: int
) -> None:
    """With fewer key bits, ranges are halved; a segment that still does not fit raises
    DoesNotFit and compute_statistics uses the Python reference: the same numbers."""
    hyps, refs = corpus
    c = Corpus(hypotheses=hyps, references=refs)
    config = BleuConfig()
    reference = engine._statistics_reference(c, config, max_order=order)
    saved = sortcount._KEY_BITS
    sortcount._KEY_BITS = bits
    try:
        with compiled(False):  # packed keys belong to the numpy path
            try:
                stats = fast_statistics(c, config, order)
            except fastcount.DoesNotFit:
                pass
            else:
                assert_same_statistics(stats, reference)
            assert_same_statistics(engine.compute_statistics(c, config, max_order=order), reference)
    finally:
        sortcount._KEY_BITS = saved


def test_a_segment_that_does_not_fit_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    c = Corpus(hypotheses=["a b c d", "a b"], references=[["a b c"], ["b a", "a b"]])
    monkeypatch.setenv(native.ENV, "0")  # packed keys belong to the numpy path
    monkeypatch.setattr(sortcount, "_KEY_BITS", 2)
    with pytest.raises(fastcount.DoesNotFit):
        fastcount.count_statistics(c.hypotheses, c.references, TextRules(), 4)
    assert_same_statistics(
        engine.compute_statistics(c, BleuConfig()),
        engine._statistics_reference(c, BleuConfig()),
    )


def test_duplicate_texts_and_clipping() -> None:
    """Duplicated lines across segments and sides; counts clipped by the best single ref."""
    hyps = ["the the the cat", "the the the cat", "", "a a a a a"]
    refs = [["the cat the", "the the"], ["the the the cat"], ["", "x"], ["a a", "a a a", ""]]
    c = Corpus(hypotheses=hyps, references=refs)
    stats = engine.compute_statistics(c, BleuConfig())
    assert stats.matches[:, 0].tolist() == [3, 4, 0, 3]
    assert_same_statistics(stats, engine._statistics_reference(c, BleuConfig()))


# ---------------------------------------------------------------------------- tokenizers
@SETTINGS
@given(
    text=st.lists(st.one_of(lines(), st.text(max_size=20)), min_size=1, max_size=8),
    tok=st.sampled_from(TOKENIZERS),
    lowercase=st.booleans(),
)
def test_batch_tokens_equal_the_reference_tokenizer(
    text: list[str], tok: str, lowercase: bool
) -> None:
    expected = [tokenize(line, tok, lowercase) for line in text]
    assert vocabulary.batch_tokens(text, tok, lowercase) == expected


@pytest.mark.parametrize("tok", ["intl", "intl-1.x", "t2t", "keras-hub-re2"])
@pytest.mark.parametrize("strip", ["rstrip", "none"])
def test_words_at_a_line_end_see_a_missing_neighbour_as_a_number(tok: str, strip: str) -> None:
    """intl, intl-1.x, t2t and keras-hub-re2 are tokenized word by word, a line's first and
    last word as at an edge (a missing neighbour counts as a number for the first three; for
    keras-hub, whose rules need a neighbour, as none) unless whitespace stands there: "9," alone keeps its comma,
    "9, " with the space kept (strip none) does not. keras-hub splits on ASCII whitespace only
    and joins lines at a newline: such lines are tokenized whole."""
    lines = [
        "9,",
        "9, ",
        " 9,",
        "1. x 2.",
        "x 1.\t",
        ".5 a",
        " .5 a",
        "a .5",
        "5.5 ,5",
        "\u3000,5, ",
        "a,\u00a0.5 b.",
        "x-\n5. &quot;y&quot;",
        "<skipped>,5 5.<skipped>",
    ]
    rules = TextRules(tokenize=tok, strip=strip)
    assert vocabulary.batch_tokens(lines, rules) == [text_tokenizer(rules)(x) for x in lines]


# marks (\\p{P}), symbols (\\p{S}), numbers (\\p{N}) of several scripts, letters and spaces:
# the intl rules look at a run of marks and the numbers beside it, at either end of a line too
_INTL_CHARS = st.sampled_from(".,!?¿«»—-'\"()5٣½²$€+a ζ\t  ")


@SETTINGS
@given(st.lists(st.text(alphabet=_INTL_CHARS, max_size=12), min_size=1, max_size=10))
def test_batch_intl_equals_intl_line_by_line(text: list[str]) -> None:
    """The joined-lines intl tokenizer (lines wrapped in numbers) equals intl on each line."""
    assert batch_intl(text) == [list(tokens_intl(line)) for line in text]


# t2t's classes come from unicodedata: marks and symbols of several scripts, the backslash
# (no mark in t2t's class), decimal digits of two scripts, a numeric that is not decimal,
# the last code point and a lone surrogate
_T2T_CHARS = st.sampled_from(".,!?¿«»—-'\"()\\5٣½²$€+a ζ\t  \U0010ffff\ud800")


@SETTINGS
@given(st.lists(st.text(alphabet=_T2T_CHARS, max_size=12), min_size=1, max_size=10))
def test_batch_t2t_equals_t2t_line_by_line(text: list[str]) -> None:
    """t2t over joined lines, classes of the characters present, equals t2t on each line."""
    from harness.bleu.script_tokenizers import _tokens_t2t, batch_t2t

    assert batch_t2t(text) == [list(_tokens_t2t(line)) for line in text]


# keras-hub's rules: the literals (one entity inside another), ASCII punctuation, periods and
# commas beside digits or at either end, hyphens after digits, ASCII and other whitespace
_KERAS_CHARS = st.sampled_from(
    [*".,-'5a;!?()\"<>& \t\u00a0\u3000\x1c", "<skipped>", "&quot;", "&amp;lt;", "&gt;", "-\n", "\n"]
)


@SETTINGS
@given(st.lists(st.lists(_KERAS_CHARS, max_size=12).map("".join), min_size=1, max_size=10))
def test_batch_keras_equals_keras_line_by_line(text: list[str]) -> None:
    """keras-hub's rules over NUL-joined lines (those that look at no neighbour) and line by
    line (those that do) equal the rules on each line."""
    from harness.bleu.script_tokenizers import batch_keras_re2, keras_re2_tokens

    assert batch_keras_re2(text) == [keras_re2_tokens(line) for line in text]


# the same without newlines, which send a batch line by line: periods, commas and hyphens
# beside digits, other marks, at a line's either end and in runs
_KERAS_JOINED_CHARS = st.sampled_from([*".,-'05a;!?()\"<>& \t\u00a0\x1c", "&quot;", "<skipped>"])


@SETTINGS
@given(st.lists(st.lists(_KERAS_JOINED_CHARS, max_size=12).map("".join), min_size=1, max_size=10))
@example(["5.", ".5", "-5", "a.,b", "5-.x", "0"])
def test_batch_keras_joined_equals_keras_line_by_line(text: list[str]) -> None:
    """keras-hub's rules over the joined lines (the period/comma rules on lines joined by
    digits and a newline, the hyphen rule on NUL-joined lines) equal the rules on each line."""
    from harness.bleu.script_tokenizers import batch_keras_re2, keras_re2_tokens

    assert batch_keras_re2(text) == [keras_re2_tokens(line) for line in text]


@SETTINGS
@given(st.lists(st.lists(NLTK_PIECES, max_size=10).map("".join), min_size=1, max_size=8))
@example(["d'ye'tis'twas", "gimme'tis", "x ''\"(\"", "wanna\tcannot'LL", "a. ) '"])
def test_batch_nltk_word_equals_nltk_word_line_by_line(text: list[str]) -> None:
    """nltk's word rules over newline-joined lines (multiline anchors, no class reaching the
    newline, the slow rules rewritten as literals first) equal the rules on each line; the
    examples need the rules in their order (a split puts the space that 'tis then needs)."""
    from harness.bleu.normalizers import batch_nltk_word, nltk_word_tokens

    assert batch_nltk_word(text) == [nltk_word_tokens(line) for line in text]


@SETTINGS
@given(
    text=st.lists(
        st.tuples(
            st.lists(NLTK_PIECES | st.sampled_from(SENTENCE_END_WORDS), max_size=10),
            st.sampled_from(["", " "]),
        ).map(lambda pieces: pieces[1].join(pieces[0])),
        min_size=1,
        max_size=8,
    ),
    tok=st.sampled_from(["nltk-word", "nltk-punkt", "nltk-punkt-3.9.1"]),
    strip=st.sampled_from(["rstrip", "none"]),
    lowercase=st.booleans(),
)
@example(
    text=[
        "a. b",
        "a. )",
        "a .",
        "end.) '",
        'x." y',
        '"q" r',
        'a\t"b',
        "a, b:",
        "'tis wanna",
        "x. ",
        ' "y',
        "a ) .",
        "x.''",
    ],
    tok="nltk-word",
    strip="none",
    lowercase=False,
)
def test_nltk_lines_tokenized_word_by_word_equal_the_line_rules(
    text: list[str], tok: str, strip: str, lowercase: bool
) -> None:
    """nltk-word and nltk-punkt (3.10 and 3.9.1) on the fast path (each distinct word once, a word that does not
    end its line followed by a neutral word; lines ending in closers or whitespace, holding
    other whitespace, or with a potential sentence end tokenized whole) equal the line rules."""
    rules = TextRules(tokenize=tok, strip=strip, lowercase=lowercase)
    assert vocabulary.batch_tokens(text, rules) == [text_tokenizer(rules)(x) for x in text]


@SETTINGS
@given(
    st.lists(
        st.lists(
            st.tuples(
                NLTK_PIECES | st.sampled_from(SENTENCE_END_WORDS),
                st.sampled_from([" ", " ", "\n", " \n", ""]),
            )
        ).map(lambda pairs: "".join(piece + gap for piece, gap in pairs)),
        min_size=1,
        max_size=8,
    )
)
@example(["-5. 1.2.3", "", "end. Next", "Dr. Smith came. He left."])
@example(['a\n"b', "x.\nY z:\n", "wanna\ncannot", "'tis\n'twas", "end.\n) '"])
def test_batch_nltk_punkt_equals_nltk_punkt_line_by_line(text: list[str]) -> None:
    """Punkt's sentences of every text through the batched word rules, regrouped by text,
    equal the tokenizer on each text, texts of several lines among them."""
    from harness.bleu.punkt_sentences import batch_nltk_punkt, nltk_punkt_tokens

    assert batch_nltk_punkt(text) == [nltk_punkt_tokens(line) for line in text]


@SETTINGS
@given(
    text=st.lists(
        st.lists(
            st.tuples(
                NLTK_PIECES | st.sampled_from([*SENTENCE_END_WORDS, "北京", "我."]),
                st.sampled_from([" ", " ", "\n", " \n", "", "\t"]),
            )
        ).map(lambda pairs: "".join(piece + gap for piece, gap in pairs)),
        min_size=1,
        max_size=8,
    ),
    strip=st.sampled_from(["rstrip", "none"]),
)
@example(
    text=["end. Next x.\nY z", 'a\n"b', "x.\nY z:\n", "我 x. Y", "", "\n", "'tis\n'twas"],
    strip="none",
)
def test_evalscope_texts_by_their_sentences_equal_the_line_function(
    text: list[str], strip: str
) -> None:
    """evalscope on the fast path (each text's Punkt sentences through an nltk-word vocabulary,
    every distinct word tokenized once; jieba's texts by the batch form) equals its line
    function, texts of several lines (its references joined) among them; the batch form sees
    only the texts jieba segments."""
    pytest.importorskip("jieba", reason="jieba comes with the cjk extra (make installs it)")
    from harness.bleu import punkt_sentences

    seen: list[str] = []
    spec = REGISTRY["evalscope"]
    batch = spec.batch_lines
    assert batch is not None

    def spy(lines: Sequence[str]) -> list[list[str]]:
        seen.extend(lines)
        return batch(lines)

    rules = TextRules(tokenize="evalscope", strip=strip)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(
            vocabulary._tok._SPECS, "evalscope", dataclasses.replace(spec, batch_lines=spy)
        )
        patch.setattr(vocabulary._tok, "_memory", {})
        got = vocabulary.batch_tokens(text, rules)
    assert got == [text_tokenizer(rules)(x) for x in text]
    assert all(map(punkt_sentences.evalscope_chinese, seen))


@SETTINGS
@given(
    st.lists(
        st.tuples(
            NLTK_PIECES | st.sampled_from(["x.", "Mr.", "can", "not", "'s", "n't", "'re"]),
            st.sampled_from([" ", "\n", "\n", " \n", "", "\t", "\n\n"]),
        )
    ).map(lambda pairs: "".join(piece + gap for piece, gap in pairs).strip())
)
@example("x.\n»")
@example('a\n"b')
@example("a\n''b")
@example("'re.\n’\"")
@example("Mr.)\n)")
def test_a_sentence_across_lines_has_nltks_tokens(sentence: str) -> None:
    """A sentence spanning evalscope's joined references, its newlines made spaces where the
    word rules cannot tell them apart (else vertical tabs), has the tokens nltk's own
    ``NLTKWordTokenizer`` gives the sentence as it is; the examples are sentences that nltk
    tokenizes otherwise with a space for the newline."""
    from nltk.tokenize import NLTKWordTokenizer

    from harness.bleu.punkt_sentences import words_across_lines

    words = NLTKWordTokenizer().tokenize
    assert words(words_across_lines(sentence)) == words(sentence)


def test_batch_tokens_are_remembered_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines tokenized by a batch tokenizer before are not tokenized again; the memory keeps
    the newest ``CACHE_LINES`` lines; results equal the batch tokenizer's."""
    from harness.bleu import tokenizers

    seen: list[str] = []

    def counting(lines: Sequence[str]) -> list[list[str]]:
        seen.extend(lines)
        return batch_intl(lines)

    spec = TokenizerSpec(
        name="intl-counted",
        family="sacrebleu",
        summary="intl, its batch calls counted",
        build=lambda: REGISTRY["intl"].build(),
        batch_lines=counting,
    )
    monkeypatch.setattr(tokenizers, "CACHE_LINES", 3)
    with registered(spec):
        first = ["a, b", "c.", "d!"]
        assert batch_lines_tokens("intl-counted", first) == batch_intl(first)
        again = ["c.", "e;f", "e;f", "a, b"]
        assert batch_lines_tokens("intl-counted", again) == batch_intl(again)
        assert seen == [*first, "e;f"]  # each distinct line once
        assert list(tokenizers._memory["intl-counted"]) == ["c.", "d!", "e;f"]  # the oldest went
        tokenizers.clear_caches()
        assert tokenizers._memory == {}


def test_batch_13a_quirks() -> None:
    text = ["a.,1 3.5. x", "1,000.", "e-mail 3-4 a-\nb", "&amp;lt; &quot;x&quot;", "x\x00y ."]
    assert vocabulary.batch_tokens(text, "13a") == [tokenize(t, "13a") for t in text]


# ---------------------------------------------------------------------------- scoring
def reference_segments(stats: Statistics, config: BleuConfig) -> list[Any]:
    """score_totals on each segment's own Totals, as segment_results did before."""
    n = config.max_order
    tot = stats.totals(config.ngram_totals, n)
    out = []
    for i in range(len(stats)):
        ref = choose_ref_length(int(stats.hyp_len[i]), stats.ref_lens[i], config.ref_length)
        t = Totals(
            sys_len=int(stats.hyp_len[i]),
            ref_len=ref,
            correct=tuple(int(x) for x in stats.counted(config.ngram_totals, n)[i]),
            total=tuple(int(x) for x in tot[i]),
        )
        ctx = context_of(stats, i, i + 1) if config.smooth.startswith("nltk-") else None
        # a segment scored alone is a corpus of one: what the library refuses before scoring
        engine.first_segment_refusal(stats.subset([i]), config)
        engine.empty_segment_refusal(stats.subset([i]), config)
        out.append((t, engine.score_totals(t, config, ctx, corpus=False)))
    return out


configs = st.builds(
    BleuConfig,
    tokenize=st.sampled_from(["13a", "whitespace"]),
    lowercase=st.booleans(),
    max_order=st.integers(1, 6),
    ref_length=st.sampled_from(REF_LENGTHS),
    ngram_totals=st.sampled_from(NGRAM_TOTALS),
    smooth=st.sampled_from(SMOOTHINGS),
    effective_order=st.booleans(),
    empty_order=st.sampled_from(EMPTY_ORDER),
    zero_guard=st.sampled_from(ZERO_GUARD),
    on_zero_length=st.sampled_from(ON_ZERO_LENGTH),
)


@st.composite
def configs_with_values(draw: st.DrawFn) -> BleuConfig:
    cfg = draw(configs)
    if draw(st.booleans()):
        w = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), min_size=cfg.max_order,
                          max_size=cfg.max_order))  # fmt: skip
        if any(w):  # all-zero weights are a ConfigError
            cfg = cfg.replace(weights=tuple(w))
    if cfg.smooth in ("floor", "add-k", "nltk-method1") and draw(st.booleans()):
        # 0.0 is legal for sacrebleu's floor and add-k, not for nltk's epsilon (> 0)
        low = [] if cfg.smooth == "nltk-method1" else [0.0]
        cfg = cfg.replace(smooth_value=draw(st.sampled_from([*low, 0.01, 0.5, 2.0])))
    return cfg


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=st.one_of(corpora(), rich_corpora()), config=configs_with_values())
@pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")  # weights need not sum to 1
def test_vectorised_segment_scores_equal_score_totals(
    corpus: tuple[list[str], list[list[str]]], config: BleuConfig
) -> None:
    hyps, refs = corpus
    stats = engine.compute_statistics(Corpus(hypotheses=hyps, references=refs), config)
    try:
        expected = reference_segments(stats, config)
    except Exception as exc:  # the library would raise: the same error, from the same segment
        event("raises")
        with pytest.raises(type(exc)) as caught:
            engine.segment_results(stats, config)
        assert str(caught.value) == str(exc)
        return
    got = engine.segment_results(stats, config)
    assert len(got) == len(expected)
    for r, (t, s) in zip(got, expected, strict=True):
        # on_zero_length="nan": a 0/0 length ratio is nan in both (the score too, unguarded)
        assert r.score == pytest.approx(s.score, abs=TOL, nan_ok=True), (config, r, s)
        assert r.bp == pytest.approx(s.bp, abs=1e-12, nan_ok=True)
        assert r.ratio == pytest.approx(s.ratio, abs=1e-12, nan_ok=True)
        assert len(r.precisions) == len(s.precisions) == config.max_order
        assert all(abs(p - q) <= TOL for p, q in zip(r.precisions, s.precisions, strict=True))
        assert (r.hyp_len, r.ref_len) == (t.sys_len, t.ref_len)
        assert type(r.ref_len) is type(t.ref_len)
        assert r.counts == t.correct and r.totals == t.total
    if config.aggregation == "corpus":
        mean_config = config.replace(aggregation="sentence-mean")
        mean = engine.score_statistics(stats, mean_config)
        want = sum(s.score for _, s in expected) / len(expected)
        assert mean.score == pytest.approx(want, abs=TOL, nan_ok=True)


@settings(max_examples=examples(300), deadline=None)
@given(
    hyp=st.lists(st.integers(0, 9), min_size=1, max_size=20),
    data=st.data(),
)
def test_vectorised_ref_length_equals_choose_ref_length(hyp: list[int], data: Any) -> None:
    refs = tuple(tuple(data.draw(st.lists(st.integers(0, 9), min_size=1, max_size=5))) for _ in hyp)
    stats = Statistics(
        hyp_len=np.array(hyp, dtype=np.int64),
        ref_lens=refs,
        matches=np.zeros((len(hyp), 4), dtype=np.int64),
        ids=tuple(str(i) for i in range(len(hyp))),
        tokenization="tok:13a|case:mixed",
    )
    for rule in REF_LENGTHS:
        got = stats.ref_length(rule)
        assert got.tolist() == [
            choose_ref_length(h, r, rule) for h, r in zip(hyp, refs, strict=True)
        ]
        assert got.dtype == (np.float64 if rule == "average" else np.int64)


# ---------------------------------------------------------------------------- all profiles
@settings(max_examples=examples(50), deadline=None)
@given(corpus=corpora(min_segments=2))
# references cut to the fewest, then the empty ones left out, must not be cut again
@example(corpus=(["", "", "the the the"], [["", "the"], ["", "the"], ["the", "the the the"]]))
def test_session_scores_equal_scoring_each_profile(
    corpus: tuple[list[str], list[list[str]]],
) -> None:
    hyps, refs = corpus
    c = Corpus(hypotheses=hyps, references=refs)
    everything = Session(c).scores(PROFILES)
    for name, cfg in PROFILES.items():
        got = everything[name]
        try:
            want = engine.corpus_score(c, cfg)
            # a segment's score is the segment's own (lm-eval's cut of ragged references
            # belongs to the corpus score)
            segs = engine.segment_scores(c, sentence_config(cfg))
        except HarnessError as exc:
            assert type(got.error) is type(exc)
            continue
        assert got.error is None and got.corpus is not None and got.segments is not None
        assert got.corpus.score == pytest.approx(want.score, abs=TOL, nan_ok=True)
        assert [r.score for r in got.segments] == pytest.approx(
            [r.score for r in segs], abs=TOL, nan_ok=True
        )


#: Words on which the two sides' rules differ: fairseq's <unk> (never matched in a
#: reference) and its special symbols, entities a detok hypothesis unescapes after lowercasing.
_SIDE_WORDS = ["a", "b", "<unk>", "<pad>", "</s>", "&QUOT;", "&quot;", "Σ", "A", "."]
_SIDE_LINE = st.lists(st.sampled_from(_SIDE_WORDS), max_size=6).map(" ".join)
_SIDE_CORPORA = st.lists(
    st.tuples(_SIDE_LINE, st.lists(_SIDE_LINE, min_size=1, max_size=3)), min_size=1, max_size=8
).map(lambda segs: ([h for h, _ in segs], [r for _, r in segs]))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=st.one_of(corpora(), rich_corpora(), _SIDE_CORPORA),
    config=st.sampled_from(
        [
            *(BleuConfig(tokenize=name) for name in BY_SIDE),
            BleuConfig(tokenize="13a", lowercase=True, lowercase_rule="detok"),
            BleuConfig(tokenize="intl", lowercase=True, lowercase_rule="detok"),
        ]
    ),
    order=st.integers(1, 5),
    chunk=st.sampled_from([fastcount.CHUNK, 1, 7]),
    kernels=st.booleans(),
)
def test_texts_tokenized_by_side_count_as_the_reference(
    corpus: tuple[list[str], list[list[str]]],
    config: BleuConfig,
    order: int,
    chunk: int,
    kernels: bool,
) -> None:
    """Hypotheses and references tokenized by their own side's rules (fairseq's reference
    ``<unk>``, multi-bleu-detok's lowercasing) share one token table and are put back in
    text order: the statistics are the per-segment reference's."""
    hyps, refs = corpus
    c = Corpus(hypotheses=hyps, references=refs)
    assert config.text_rules.by_side
    reference = engine._statistics_reference(c, config, max_order=order)
    with compiled(kernels):
        assert_same_statistics(fast_statistics(c, config, order, chunk=chunk), reference)
        assert_same_statistics(engine.compute_statistics(c, config, max_order=order), reference)


def _same(a: Statistics, b: Statistics) -> bool:
    return (
        np.array_equal(a.hyp_len, b.hyp_len)
        and a.ref_lens == b.ref_lens
        and np.array_equal(a.matches, b.matches)
        and (a.ref_matches is None) == (b.ref_matches is None)
        and (a.ref_matches is None or np.array_equal(a.ref_matches, b.ref_matches))
    )


_KEPT_PROFILES = sorted({engine.tokenization_key(c): n for n, c in PROFILES.items()}.values())


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(corpora(min_segments=engine.FAST_MIN_SEGMENTS), min_size=2, max_size=3),
    st.sampled_from(_KEPT_PROFILES),
)
def test_vocabularies_kept_across_corpora_change_no_count(
    drawn: list[tuple[list[str], list[list[str]]]], profile: str
) -> None:
    """The words a process has tokenized for earlier corpora (kept by text rules) give the
    last corpus the very statistics a fresh process counts."""
    config = PROFILES[profile]
    texts = [Corpus(tuple(h), tuple(map(tuple, r)), check_text=False) for h, r in drawn]
    last = texts[-1]
    engine.clear_caches()
    try:
        fresh = engine.compute_statistics(last, config)
    except HarnessError:
        return  # a tokenizer not installed here
    engine.clear_caches()
    for corpus in texts:
        kept = engine.compute_statistics(corpus, config)
    assert _same(kept, fresh)


@settings(max_examples=examples(60), deadline=None)
@given(
    corpora(min_segments=engine.FAST_MIN_SEGMENTS),
    st.data(),
    st.sampled_from(_KEPT_PROFILES),
)
def test_systems_counted_against_kept_references_change_no_count(
    drawn: tuple[list[str], list[list[str]]], data: st.DataObject, profile: str
) -> None:
    """Systems counted one after another against the same references (kept with their token
    ids), against an equal copy of them and against references that differ in one text, each
    get the statistics a fresh process counts."""
    config = PROFILES[profile]
    hyps, refs = drawn
    references = tuple(map(tuple, refs))
    others = data.draw(st.lists(st.lists(sentences(0), min_size=len(hyps), max_size=len(hyps))))
    copy = tuple(tuple("".join(list(r)) for r in seg) for seg in references)
    changed = list(map(list, refs))
    changed[-1][-1] += " changed"
    turns = [
        (hyps, references),
        *[(o, references) for o in others],
        (hyps, copy),
        (hyps, tuple(map(tuple, changed))),
    ]
    corpora_in_turn = [Corpus(tuple(h), r, check_text=False) for h, r in turns]
    fresh = []
    for corpus in corpora_in_turn:
        engine.clear_caches()
        try:
            fresh.append(engine.compute_statistics(corpus, config))
        except HarnessError:
            return  # a tokenizer not installed here
    engine.clear_caches()
    for corpus, want in zip(corpora_in_turn, fresh, strict=True):
        assert _same(engine.compute_statistics(corpus, config), want)


def test_kept_vocabularies_of_tokenizations_sharing_a_side_change_no_count() -> None:
    """Tokenizations whose hypothesis and reference sides have rules of their own (a
    detokenizing script lowercasing one side) may share one side's rules with another
    tokenization: counted one after the other in any order, every profile (cased and
    lowercased) still gives the fresh statistics."""
    corpus = Corpus(
        ("The Cat sat on the Mat .", "A dog , a DOG barked !", "x"),
        (("the cat sat on the mat.", "The cat is on the mat"), ("a dog barked!",), ("X",)),
    )
    configs = [c for p in PROFILES.values() for c in (p, p.replace(lowercase=True))]
    # a configuration whose rules are one side's rules of a two-sided tokenization
    for config in list(configs):
        rules = config.text_rules
        if rules.by_side:
            for side in ("hypothesis", "reference"):
                r = rules.side(side)
                try:
                    configs.append(BleuConfig(**dataclasses.asdict(r)))
                except HarnessError:
                    pass  # a side's tokenizer that is no configuration's (fairseq's)
    fresh = []
    for config in configs:
        engine.clear_caches()
        try:
            fresh.append(engine.compute_statistics(corpus, config))
        except HarnessError:
            fresh.append(None)  # a tokenizer not installed here
    engine.clear_caches()
    for order in (configs, configs[::-1]):
        for config in order:
            want = fresh[configs.index(config)]
            if want is not None:
                assert _same(engine.compute_statistics(corpus, config), want), config


def test_a_count_cut_short_keeps_no_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    """A count interrupted while it learns new words (Ctrl-C in a notebook) leaves no kept
    vocabulary behind: the next count equals a fresh one."""
    config = PROFILES["sacrebleu"]
    words = [f"w{i}" for i in range(400)]
    first = Corpus(
        tuple(" ".join(words[i : i + 7]) for i in range(0, 300, 3)),
        tuple((" ".join(words[i + 1 : i + 9]),) for i in range(0, 300, 3)),
    )
    second = Corpus(
        tuple(" ".join(words[i : i + 9]) for i in range(100, 390, 3)),
        tuple((" ".join(words[i + 2 : i + 8]),) for i in range(100, 390, 3)),
    )
    engine.clear_caches()
    fresh = engine.compute_statistics(second, config)
    engine.clear_caches()
    engine.compute_statistics(first, config)
    learn = vocabulary.Vocabulary._learn

    def stopped(self: Any, *args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(vocabulary.Vocabulary, "_learn", stopped)
    with pytest.raises(KeyboardInterrupt):
        engine.compute_statistics(second, config)
    assert not engine._VOCABULARIES
    monkeypatch.setattr(vocabulary.Vocabulary, "_learn", learn)
    assert _same(engine.compute_statistics(second, config), fresh)
