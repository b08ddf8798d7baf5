"""Statistics shared between text rules that tokenize a corpus alike (:mod:`harness.bleu.shared_counts`).

* :func:`text_facts` against each fact's definition text by text;
* :func:`plain_rules`: on texts drawn with every kind of whitespace the rules tell apart, the
  plain rules give every text the tokens the profile's rules give it, for the text rules of
  every profile and the rules the equivalences name; sacrebleu's own 13a and compare-mt's
  ``strip().split(" ")`` give the plain rules' tokens where they apply;
* the engine: every profile's statistics, counted after all the profiles before it (so the
  kept counts are reused wherever they can be), equal a count from empty caches; a corpus
  whose texts end in whitespace is counted apart under ``strip="none"``.
"""

from __future__ import annotations

import dataclasses
import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness import PROFILES
from harness.bleu import engine
from harness.bleu.shared_counts import SharedCounts, plain_rules, text_facts
from harness.bleu.stats import Statistics
from harness.bleu.tokenizers import TextRules, text_tokenizer
from harness.data.corpus import Corpus

from .conftest import _require
from .depth import examples

PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

_PIECES = st.sampled_from(
    ["a", "Word", "x-", "-", "5.", ",", "&amp;", "<skipped>", "'s", '"', "é", "中"]
)
_GAPS = st.sampled_from(
    [" ", " ", " ", "  ", "\t", "\n", "-\n", "\x1c", "\x1f", "\xa0", "\u3000", "\x85", "\r", ""]
)
_TEXT = st.lists(st.tuples(_PIECES, _GAPS), max_size=6).map(
    lambda pairs: "".join(p + g for p, g in pairs)
)
_TEXTS = st.lists(_TEXT, min_size=1, max_size=5)


def _configs() -> list:
    return list(PROFILES.values())


def _rules() -> list[TextRules]:
    """The text rules of every profile (one side's where the sides differ) and the rules the
    equivalences name, each tokenizer with and without strip and Perl's whitespace."""
    found = {c.text_rules for c in _configs()}
    for tokenize in ("13a", "none", "whitespace", "ascii-whitespace", "single-space"):
        for strip in ("rstrip", "none"):
            found.add(TextRules(tokenize=tokenize, strip=strip))
            if tokenize in ("13a", "none", "whitespace"):
                found.add(TextRules(tokenize=tokenize, strip=strip, whitespace="perl"))
    found.add(TextRules(tokenize="13a", lowercase_rule="detok"))
    return sorted(found, key=TextRules.key)


RULES = _rules()


@given(_TEXTS)
@example(["a ", "b"])
@example(["a\x1cb"])
@example(["a\xa0b"])
@example([""])
@example(["a  b"])
@example([" a"])
@example(["a\x00 "])
@PROPS
def test_text_facts_are_their_definitions(texts: list[str]) -> None:
    facts = text_facts(texts)
    assert facts.ends_in_space == any(t != t.rstrip() for t in texts)
    assert facts.perl_apart == any(c in t for t in texts for c in "\x1c\x1d\x1e\x1f")
    assert facts.unicode_space == any(
        c.isspace() and c not in " \t\n\r\f\v" for t in texts for c in t
    )
    assert facts.single_spaced == all(
        t and t.split(" ") == t.split() and all(not c.isspace() or c == " " for c in t)
        for t in texts
    )


@given(_TEXTS)
@example(["x -\n"])
@example(["a b", "c d"])
@example(["a\tb"])
@example(["a\x1cb c"])
@PROPS
def test_plain_rules_give_the_same_tokens(texts: list[str]) -> None:
    facts = text_facts(texts)
    for rules in RULES:
        plain = plain_rules(rules, facts)
        if plain == rules:
            continue
        sides = ("hypothesis", "reference") if rules.by_side else (None,)
        for side in sides:
            a = text_tokenizer(rules if side is None else rules.side(side))
            b = text_tokenizer(plain if side is None else plain.side(side))
            for text in texts:
                assert a(text) == b(text), (rules.key(), plain.key(), text)


def test_the_equivalences_are_taken_on_plain_text() -> None:
    """Each equivalence is used where it holds (so the property above tests something)."""
    facts = text_facts(["a b, c.", "d e"])
    assert plain_rules(TextRules(tokenize="none"), facts) == TextRules(tokenize="whitespace")
    for rules in (
        TextRules(tokenize="13a", strip="none", whitespace="perl"),
        TextRules(tokenize="13a", lowercase_rule="detok"),
    ):
        assert plain_rules(rules, facts) == TextRules(tokenize="13a")
    for tokenize in ("ascii-whitespace", "single-space"):
        plain = plain_rules(TextRules(tokenize=tokenize, strip="none"), facts)
        assert plain == TextRules(tokenize="whitespace")
    # and not where a text tells them apart
    assert plain_rules(TextRules(tokenize="13a", strip="none"), text_facts(["a "])).strip == "none"
    perl = TextRules(tokenize="13a", whitespace="perl")
    assert plain_rules(perl, text_facts(["a\x1cb"])) == perl
    ascii_split = TextRules(tokenize="ascii-whitespace")
    assert plain_rules(ascii_split, text_facts(["a\xa0b"])) == ascii_split
    single = TextRules(tokenize="single-space")
    for texts in (["a  b"], [""], ["a\tb"], [" a"]):
        assert plain_rules(single, text_facts(texts)) == single


@pytest.mark.oracle
@given(_TEXTS)
@example(["a b, c.", "d &amp; e"])
@PROPS
def test_plain_rules_match_the_libraries(texts: list[str]) -> None:
    """sacrebleu's own 13a (the profile of multi-bleu-detok and evaluate, right-stripped by
    sacrebleu) and compare-mt's ``strip().split(" ")`` give the tokens of the plain rules."""
    _require(None if importlib.util.find_spec("sacrebleu") else "not installed", "sacrebleu")
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    facts = text_facts(texts)
    real_13a = Tokenizer13a()
    for rules in (
        TextRules(tokenize="13a", strip="none", whitespace="perl"),
        TextRules(tokenize="13a", strip="none"),
    ):
        plain = plain_rules(rules, facts)
        if plain == TextRules(tokenize="13a"):
            for text in texts:
                assert text_tokenizer(rules)(text) == real_13a(text.rstrip()).split()
    if plain_rules(TextRules(tokenize="single-space"), facts).tokenize == "whitespace":
        for text in texts:
            assert text.strip().split(" ") == text.split()


def _corpus(n: int, seed: int, tail: str = "") -> Corpus:
    rng = np.random.default_rng(seed)
    words = ["the", "cat", "sat", "on", "a", "mat", ",", ".", "-", "Bach", "U.S.", "it's", "é"]

    def line() -> str:
        return " ".join(rng.choice(words, size=int(rng.integers(1, 9)))) + tail

    return Corpus(
        hypotheses=tuple(line() for _ in range(n)),
        references=tuple((line(), line(), line()) for _ in range(n)),
    )


@pytest.mark.parametrize("tail", ["", " -\n"])
def test_every_profile_counts_as_from_empty_caches(tail: str) -> None:
    """Each profile counted after all the profiles before it (kept counts reused) equals its
    count from empty caches; with texts ending in whitespace the strip rules count apart."""
    corpus = _corpus(60, 3, tail)
    engine.clear_caches()
    kept = {}
    for name, config in zip(PROFILES, _configs(), strict=True):
        try:
            kept[name] = engine.compute_statistics(corpus, config)
        except Exception as exc:  # a tokenizer whose package is missing
            kept[name] = type(exc)
    for name, config in zip(PROFILES, _configs(), strict=True):
        engine.clear_caches()
        try:
            fresh = engine.compute_statistics(corpus, config)
        except Exception as exc:
            assert kept[name] is type(exc)
            continue
        got = kept[name]
        assert not isinstance(got, type)
        for field in dataclasses.fields(fresh):
            a, b = getattr(got, field.name), getattr(fresh, field.name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                assert a is not None and b is not None
                np.testing.assert_array_equal(a, b, err_msg=f"{name} {field.name}")
            else:
                assert a == b, (name, field.name)
    sacrebleu, evaluate = kept["sacrebleu"], kept["evaluate"]
    assert not isinstance(sacrebleu, type) and not isinstance(evaluate, type)
    if tail:  # "-\n" is joined away without the right-strip: other tokens, counted apart
        assert not np.array_equal(sacrebleu.hyp_len, evaluate.hyp_len)
    else:  # one count for both, each with arrays of its own
        assert evaluate.matches is not sacrebleu.matches
        assert engine._SHARED._entries[0].statistics  # kept
        assert evaluate.tokenization != sacrebleu.tokenization


def test_a_count_is_reused_with_arrays_of_its_own(monkeypatch) -> None:
    """evaluate after sacrebleu on plain text: one count, and changing the arrays handed out
    changes neither the kept count nor the next one handed out."""
    corpus = _corpus(30, 5)
    engine.clear_caches()
    counted = []
    count = engine._count
    monkeypatch.setattr(engine, "_count", lambda *a, **k: counted.append(1) or count(*a, **k))
    first = engine.compute_statistics(corpus, PROFILES["sacrebleu"])
    expected = first.matches.copy()
    first.matches[:] = -1
    second = engine.compute_statistics(corpus, PROFILES["evaluate"])
    assert len(counted) == 1
    np.testing.assert_array_equal(second.matches, expected)
    second.matches.setflags(write=False)
    third = engine.compute_statistics(corpus, PROFILES["multi-bleu-detok"])
    assert len(counted) == 1 and third.matches.flags.writeable


def test_a_count_is_reused_after_every_system_of_a_comparison(monkeypatch) -> None:
    """Sixteen systems counted under sacrebleu's rules, then under evaluate's (the same plain
    rules, counted tokenization by tokenization as a run does): the second pass counts none
    of them again."""
    systems = [_corpus(20, seed) for seed in range(16)]
    engine.clear_caches()
    counted = []
    count = engine._count
    monkeypatch.setattr(engine, "_count", lambda *a, **k: counted.append(1) or count(*a, **k))
    first = [engine.compute_statistics(c, PROFILES["sacrebleu"]) for c in systems]
    second = [engine.compute_statistics(c, PROFILES["evaluate"]) for c in systems]
    assert len(counted) == len(systems)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a.matches, b.matches)


def _stats(n: int, fill: int) -> Statistics:
    return Statistics(
        hyp_len=np.full(n, fill, dtype=np.int64),
        ref_lens=tuple((fill,) for _ in range(n)),
        matches=np.full((n, 4), fill, dtype=np.int64),
        ids=tuple(map(str, range(n))),
        tokenization="tok:13a|case:mixed",
    )


def test_kept_counts_stay_within_their_bytes_and_corpora() -> None:
    """Beyond ``kept_bytes`` the oldest statistics go first; a corpus dropped by the
    ``corpora`` bound takes its statistics (and their bytes) with it."""
    one = _stats(10, 0)
    size = one.hyp_len.nbytes + one.matches.nbytes
    shared = SharedCounts(corpora=2, kept_bytes=3 * size)
    rules = PROFILES["sacrebleu"].text_rules
    corpora = [_corpus(10, seed) for seed in range(3)]
    keys = []
    for k, c in enumerate(corpora[:2]):
        for order in (1, 2):
            entry, key = shared.key(c.hypotheses, c.references, rules, (order,))
            shared.store(entry, key, _stats(10, 2 * k + order))
            keys.append((entry, key))
    # four stored, three fit: the first is gone, the others are as stored
    assert keys[0][1] not in keys[0][0].statistics
    assert [int(e.statistics[key].hyp_len[0]) for e, key in keys[1:]] == [2, 3, 4]
    assert shared._bytes == 3 * size
    entry, key = shared.key(corpora[2].hypotheses, corpora[2].references, rules, (1,))
    assert not keys[1][0].statistics  # the first corpus is dropped with its count
    assert shared._bytes == 2 * size
    shared.store(entry, key, _stats(10, 9))
    assert shared._bytes == 3 * size and int(entry.statistics[key].hyp_len[0]) == 9
    shared.store(keys[1][0], keys[1][1], _stats(10, 7))  # a dropped corpus keeps nothing
    assert shared._bytes == 3 * size
