"""The one implementation of each counting rule in :mod:`harness.bleu.stats`, on rows of several
corpora at once (what :mod:`harness.diagnose.many_configs` scores a battery with).

* :func:`~harness.bleu.stats.padded_ref_matrix` with each segment's corpus width pads every
  corpus as that corpus alone is padded: the reference length chosen from it equals
  :func:`~harness.bleu.stats.choose_ref_length` of the segment's references padded with
  empty ones (length 0) up to its own corpus's most.
* :func:`~harness.bleu.stats.ref_length_sums` gives each group's sum, the same whatever the
  order of its rows (``average``: correctly rounded), and
  :func:`~harness.bleu.stats.corpus_ref_length` is the engine's corpus reference length.
* :func:`~harness.bleu.stats.totals_of_lengths` counts ``max(0, len - n + 1)`` n-grams of
  order n, floored at 1 under ``floor1``; an unknown rule is refused.
* :func:`~harness.bleu.arithmetic.group_contexts` gives each group the context
  :func:`~harness.bleu.arithmetic.context_of` gives that group alone.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.bleu import engine
from harness.bleu.arithmetic import context_of, group_contexts
from harness.bleu.config import NGRAM_TOTALS, REF_LENGTHS, BleuConfig
from harness.bleu.stats import (
    LENGTH_TOTAL_RULES,
    apply_total_rule,
    choose_ref_length,
    corpus_ref_length,
    counted,
    padded_ref_matrix,
    ref_length_of,
    ref_length_sums,
    ref_matrix,
    totals_of_lengths,
)
from harness.data.corpus import Corpus
from tests.depth import examples

#: One corpus: per segment, the hypothesis length and the reference lengths (1–3 references).
segment = st.tuples(
    st.integers(0, 12), st.lists(st.integers(0, 12), min_size=1, max_size=3).map(tuple)
)
corpora = st.lists(st.lists(segment, min_size=1, max_size=5), min_size=1, max_size=5)


def _starts(groups: list[list[tuple[int, tuple[int, ...]]]]) -> np.ndarray:
    sizes = np.array([len(g) for g in groups])
    return np.cumsum(sizes) - sizes


@settings(max_examples=examples(200), deadline=None)
@given(groups=corpora, rule=st.sampled_from(REF_LENGTHS))
def test_padding_per_corpus_equals_each_corpus_padded_alone(groups, rule) -> None:
    flat = [s for g in groups for s in g]
    widths = np.repeat([max(len(r) for _, r in g) for g in groups], [len(g) for g in groups])
    hyp = np.array([h for h, _ in flat])
    padded = padded_ref_matrix(ref_matrix([r for _, r in flat]), "empty", widths)
    got = ref_length_of(hyp, padded, rule).tolist()
    want = []
    for g in groups:
        width = max(len(r) for _, r in g)
        want += [choose_ref_length(h, (*r, *(0,) * (width - len(r))), rule) for h, r in g]
    assert got == want
    for missing in ("skip", "truncate"):  # the references as counted
        assert np.array_equal(
            padded_ref_matrix(ref_matrix([r for _, r in flat]), missing),
            (ref_matrix([r for _, r in flat])),
        )


def test_padding_refuses_an_unknown_rule() -> None:
    with pytest.raises(ValueError, match="missing-reference rule"):
        padded_ref_matrix(ref_matrix([(1, 2)]), "pad")


@settings(max_examples=examples(200), deadline=None)
@given(groups=corpora, rule=st.sampled_from(REF_LENGTHS), seed=st.integers(0, 2**32 - 1))
def test_group_sums_are_each_groups_sum_in_any_order(groups, rule, seed) -> None:
    flat = [s for g in groups for s in g]
    chosen = ref_length_of(np.array([h for h, _ in flat]), ref_matrix([r for _, r in flat]), rule)
    got = ref_length_sums(chosen, _starts(groups), rule).tolist()
    parts = np.split(chosen, _starts(groups)[1:])
    if rule == "average":
        assert got == [math.fsum(p.tolist()) for p in parts]
    else:
        assert got == [sum(p.tolist()) for p in parts]
    shuffled = np.random.default_rng(seed).permutation(chosen)
    assert corpus_ref_length(shuffled, rule) == corpus_ref_length(chosen, rule)


@settings(max_examples=examples(100), deadline=None)
@given(
    hyps=st.lists(st.text("ab ", max_size=12), min_size=1, max_size=6),
    data=st.data(),
    rule=st.sampled_from(REF_LENGTHS),
    missing=st.sampled_from(["skip", "empty"]),
)
def test_the_engine_sums_reference_lengths_by_the_rule(hyps, data, rule, missing) -> None:
    refs = [
        tuple(data.draw(st.lists(st.text("ab ", max_size=12), min_size=1, max_size=3)))
        for _ in hyps
    ]
    corpus = Corpus(hypotheses=tuple(hyps), references=tuple(refs), check_text=False)
    config = BleuConfig(ref_length=rule, missing_refs=missing)
    stats = engine.compute_statistics(corpus, config)
    totals = engine.totals_of(stats, config)
    assert totals.ref_len == corpus_ref_length(stats.ref_length(rule, missing=missing), rule)
    assert type(totals.ref_len) is (float if rule == "average" else int)


@settings(max_examples=examples(100), deadline=None)
@given(
    lengths=st.lists(st.integers(0, 9), min_size=1, max_size=8),
    order=st.integers(1, 6),
    rule=st.sampled_from(LENGTH_TOTAL_RULES),
)
def test_totals_count_the_ngrams_of_each_order(lengths, order, rule) -> None:
    got = totals_of_lengths(np.array(lengths), rule, order).tolist()
    floor = 1 if rule == "floor1" else 0
    assert got == [[max(floor, h - n + 1) for n in range(1, order + 1)] for h in lengths]
    assert np.array_equal(apply_total_rule(np.array(got), rule), np.array(got))


@settings(max_examples=examples(100), deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 12), st.lists(st.integers(0, 12), min_size=4, max_size=4)),
        min_size=1,
        max_size=6,
    ),
    rule=st.sampled_from(NGRAM_TOTALS),
)
def test_counted_rules_keep_or_reduce_each_precision(rows, rule) -> None:
    """Under every rule a segment adds its matches over its totals; ``reduced`` adds that
    precision as a ``Fraction`` in lowest terms (an order without a match ``0/1``), the length
    rules the matches as counted."""
    lengths = np.array([h for h, _ in rows])
    totals = totals_of_lengths(lengths, "floor1", 4)
    matches = np.minimum(np.array([m for _, m in rows]), totals)
    m, t = counted(lengths, matches, rule, 4)
    if rule in LENGTH_TOTAL_RULES:
        assert np.array_equal(m, matches)
        assert np.array_equal(t, totals_of_lengths(lengths, rule, 4))
        return
    pairs = list(zip(m.ravel().tolist(), t.ravel().tolist(), strict=True))
    for a, b in pairs:  # already in lowest terms
        share = Fraction(a, b)
        assert (share.numerator, share.denominator) == (a, b)
    given = zip(matches.ravel().tolist(), totals.ravel().tolist(), strict=True)
    assert [Fraction(a, b) for a, b in pairs] == [Fraction(a, b) for a, b in given]


def test_totals_refuse_an_unknown_rule() -> None:
    with pytest.raises(ValueError, match="n-gram total rule"):
        apply_total_rule(np.zeros((1, 4), dtype=np.int64), "floor0")


@settings(max_examples=examples(100), deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=1, max_size=5), data=st.data())
def test_group_contexts_are_each_groups_own(sizes, data) -> None:
    count = sum(sizes)
    hyps = data.draw(st.lists(st.text("ab ", max_size=16), min_size=count, max_size=count))
    refs = data.draw(st.lists(st.text("ab ", max_size=16), min_size=count, max_size=count))
    corpus = Corpus(hypotheses=tuple(hyps), references=tuple((r,) for r in refs), check_text=False)
    stats = engine.compute_statistics(corpus, BleuConfig(), max_order=5)
    starts = np.cumsum(sizes) - np.array(sizes)
    got = group_contexts(stats, starts)
    for i, (start, size) in enumerate(zip(starts.tolist(), sizes, strict=True)):
        alone = context_of(stats.subset(range(start, start + size)))
        for field in ("hyp_len", "last_hyp_len", "last_correct5", "last_total5"):
            assert getattr(got, field)[i] == getattr(alone, field)[0], field
