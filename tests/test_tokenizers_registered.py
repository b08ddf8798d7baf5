"""Adding a tokenizer is one registry entry: a tokenizer defined and registered by this test.

``dashes`` splits a line on whitespace, then every dash (Unicode category Pd: the hyphen-minus,
en and em dashes, ...) off the words (``"e-mail"`` gives ``e - mail``). It is declared once,
as :data:`DASHES`, and registered for each test with
:func:`harness.bleu.tokenizers.registered`; nothing else in the harness names it. The tests
show that the configuration accepts it, that the fast path counts it word by word with its
batch forms (the words' and, for the lines it declares whole, the lines'), with exactly the
statistics of the per-segment reference, under either whitespace class, and that the
statistics cache key names what its tokens depend on.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from importlib import metadata

import pytest
import regex  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Corpus
from harness.bleu import engine, fastcount, vocabulary
from harness.bleu.config import BleuConfig
from harness.bleu.tokenizers import (
    REGISTRY,
    TextRules,
    TokenizerSpec,
    get_tokenizer,
    perl_split,
    registered,
    text_tokenizer,
)
from harness.errors import ConfigError
from harness.session.cache import StatisticsCache, tokenizer_signature

from .depth import examples

#: What each batch form was handed, to tell which path tokenized what.
CALLS: Counter[str] = Counter()

_DASHED = regex.compile(r"[^\p{Pd}]+|\p{Pd}")


def _dashes_apart(words: list[str]) -> list[str]:
    return [token for word in words for token in _DASHED.findall(word)]


def dashes_tokens(line: str) -> list[str]:
    """``str.split`` words, every dash a token of its own."""
    return _dashes_apart(line.split())


def _perl(line: str) -> list[str]:
    return _dashes_apart(perl_split(line))


def _batch_words(words: Sequence[str]) -> list[str]:
    CALLS["words"] += len(words)
    out: list[str] = []
    for word in words:
        out += [*_DASHED.findall(word), "\x00"]
    return out


def _batch_lines(lines: Sequence[str]) -> list[list[str]]:
    CALLS["lines"] += len(lines)
    return [_dashes_apart(line.split()) for line in lines]


DASHES = TokenizerSpec(
    name="dashes",
    family="split",
    summary="str.split words, every dash a token",
    build=lambda: dashes_tokens,
    perl=_perl,
    batch_lines=_batch_lines,
    locality="word",
    batch_words=_batch_words,
    # the word rule holds on every line; lines with a tab are declared whole to take the
    # whole-line path (and its batch form) too
    whole_line_if=("\t",),
    distributions=("regex",),
    revision="1",
)

_PIECES = st.sampled_from(
    ["a", "b", "e-mail", "-", "--", "x-", "—y", "1–2", "é", " ", "  ", "\t", "\u3000", "\x1c", "\n"]
)
_LINES = st.lists(_PIECES, max_size=10).map("".join)
_CORPORA = st.lists(
    st.tuples(_LINES, st.lists(_LINES, min_size=1, max_size=3)), min_size=1, max_size=6
)


@settings(max_examples=examples(200), deadline=None)
@given(
    segments=_CORPORA,
    lowercase=st.booleans(),
    strip=st.sampled_from(["rstrip", "none"]),
    whitespace=st.sampled_from(["unicode", "perl"]),
    order=st.integers(1, 4),
)
def test_the_fast_path_counts_it_as_the_reference(
    segments: list[tuple[str, list[str]]],
    lowercase: bool,
    strip: str,
    whitespace: str,
    order: int,
) -> None:
    corpus = Corpus(hypotheses=[h for h, _ in segments], references=[refs for _, refs in segments])
    with registered(DASHES):
        config = BleuConfig(
            tokenize="dashes", lowercase=lowercase, strip=strip, whitespace=whitespace
        )
        want = engine._statistics_reference(corpus, config, max_order=order)
        hyp_len, ref_len, _, matches = fastcount.count_statistics(
            corpus.hypotheses, corpus.references, config.text_rules, order
        )
    assert hyp_len.tolist() == want.hyp_len.tolist()
    assert ref_len.tolist() == [n for lens in want.ref_lens for n in lens]
    assert matches.tolist() == want.matches.tolist()


def test_the_fast_path_reads_its_batch_forms() -> None:
    """Words are tokenized by its word batch, the lines it declares whole by its line batch;
    every line's tokens equal the line function's."""
    lines = ["e-mail to x-y", "a\tb-c", "  -- ", "", "e-mail again"]
    CALLS.clear()
    with registered(DASHES):
        got = vocabulary.batch_tokens(lines, "dashes")
        want = [text_tokenizer(TextRules(tokenize="dashes"))(line) for line in lines]
    assert got == want == [dashes_tokens(line) for line in lines]
    assert CALLS == {"words": len({"e-mail", "to", "x-y", "--", "again"}), "lines": 1}


def test_the_cache_key_names_what_its_tokens_depend_on() -> None:
    with registered(DASHES):
        config = BleuConfig(tokenize="dashes")
        key = tokenizer_signature(config)
        corpus = Corpus(hypotheses=["e-mail me"], references=[["e-mail to me"]])
        stats = StatisticsCache().get(corpus, config)
        want = engine._statistics_reference(corpus, config, max_order=stats.max_order)
    unicode = f"unicode:{unicodedata.unidata_version}"
    assert key == f"tok:dashes|case:mixed|{unicode}|regex:{metadata.version('regex')}|rev:1"
    assert stats.matches.tolist() == want.matches.tolist()


def test_it_exists_inside_the_block_only() -> None:
    with registered(DASHES):
        assert REGISTRY["dashes"] is DASHES
        assert get_tokenizer("dashes")("e-mail") == ["e", "-", "mail"]
    assert "dashes" not in REGISTRY
    with pytest.raises(ConfigError):
        BleuConfig(tokenize="dashes")
