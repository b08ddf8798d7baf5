"""One word table for the vocabularies that split lines alike (:class:`harness.bleu.vocabulary.
SharedWords`): counts made one tokenization after another over several corpora, as a run makes
them, equal the per-segment reference; a third tokenization of the same lines splits nothing
again (a single count keeps no batch's ids); the table is dropped with the vocabularies."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.bleu import engine, native, vocabulary
from harness.bleu.config import BleuConfig
from harness.data.corpus import Corpus

from .depth import examples
from .test_fastpath import assert_same_statistics, rich_corpora

#: Text rules that share the table (word-local tokenizers on str.split's whitespace, line text
#: applied per word) and some that keep a table of their own, in one run.
_CONFIGS = [
    BleuConfig(tokenize=tok, lowercase=lc, punctuation=punct, articles=art, strip=strip)
    for tok, lc, punct, art, strip in [
        ("13a", False, "keep", "keep", "rstrip"),
        ("whitespace", True, "ascii", "keep", "rstrip"),
        ("parlai", True, "ascii", "en", "rstrip"),
        ("codexglue", True, "keep", "keep", "rstrip"),
        ("ascii-whitespace", False, "keep", "keep", "none"),
        ("13a", True, "keep", "en", "rstrip"),
        ("intl", False, "keep", "keep", "rstrip"),
        ("13a", True, "ascii", "keep", "rstrip"),
    ]
] + [BleuConfig(lowercase=True, lowercase_rule="ascii"), BleuConfig(whitespace="perl")]


@settings(max_examples=examples(80), deadline=None)
@given(
    drawn=st.lists(rich_corpora(), min_size=1, max_size=3),
    picks=st.lists(st.sampled_from(range(len(_CONFIGS))), min_size=2, max_size=6),
    order=st.integers(1, 4),
)
def test_counts_through_the_shared_table_equal_the_reference(
    drawn: list[tuple[list[str], list[list[str]]]], picks: list[int], order: int
) -> None:
    """Tokenization by tokenization, every corpus under each (kept vocabularies, the shared
    table and its batches), each count equals the per-segment reference."""
    corpora = [Corpus(tuple(h), tuple(map(tuple, r)), check_text=False) for h, r in drawn]
    engine.clear_caches()
    for pick in picks:
        config = _CONFIGS[pick]
        for corpus in corpora:
            got = engine.compute_statistics(corpus, config, max_order=order)
            want = engine._statistics_reference(corpus, config, max_order=order)
            assert_same_statistics(got, want)


def _corpus(n: int) -> Corpus:
    words = ["The", "cat", "sat", "on", "a", "mat", "", "it's", "U.S.", "-", "an", "Σ"]
    lines = [" ".join(words[(i * k) % len(words)] for k in range(1, 8)) for i in range(n)]
    return Corpus(
        tuple(lines), tuple((line[::-1], line.upper()) for line in lines), check_text=False
    )


def test_a_third_tokenization_splits_no_line_again() -> None:
    """13a's count of a corpus keeps no batch's ids (a single count holds nothing more); the
    second count of the same lines, whitespace's with lowercasing and punctuation, lists no
    new word and keeps each batch's ids; the third, 13a lowercased, finds every batch split
    (it tokenizes the words for its own rules, nothing else); a tokenizer with its own rules
    keeps a table of its own."""
    if native.module() is None:
        return  # the numpy path has no compiled word table to share
    corpus = _corpus(300)
    engine.clear_caches()
    engine.compute_statistics(corpus, BleuConfig())
    shared = engine._VOCABULARIES.words
    assert shared is not None
    assert not shared._batches and shared._seen
    words = list(shared.words)
    config = BleuConfig(tokenize="whitespace", lowercase=True, punctuation="ascii")
    engine.compute_statistics(corpus, config)
    assert shared.words == words and shared._batches.keys() == shared._seen.keys()
    batches = dict(shared._batches)
    engine.compute_statistics(corpus, BleuConfig(lowercase=True))
    assert shared._batches.keys() == batches.keys() and shared.words == words
    assert all(shared._batches[k] is batches[k] for k in batches)
    engine.compute_statistics(corpus, BleuConfig(tokenize="intl"))
    assert shared.words == words
    kinds = {rules.tokenize: v.shared is shared for rules, v in engine._VOCABULARIES.items()}
    assert kinds == {"13a": True, "whitespace": True, "intl": False}


def test_the_shared_table_goes_with_the_vocabularies() -> None:
    """Beyond the word limit everything is dropped, the shared table too; below it, the
    oldest vocabularies first."""
    if native.module() is None:
        return
    engine.clear_caches()
    engine.compute_statistics(_corpus(50), BleuConfig())
    engine.compute_statistics(_corpus(50), BleuConfig(tokenize="whitespace"))
    kept = engine._VOCABULARIES
    n = len(kept.words.words) if kept.words is not None else 0
    assert n > 1 and len(kept) == 2
    assert all(v.n_words == n for v in kept.values())  # each learnt every word it met
    kept.trim(2 * n - 1)
    assert len(kept) == 1 and kept.words is not None
    kept.trim(n - 1)
    assert not kept and kept.words is None
    assert isinstance(kept, vocabulary.Vocabularies)
