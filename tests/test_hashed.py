"""The ``ngram_identity`` factor: n-grams matched by fairseq's hash of their ids.

The agreement with fairseq itself (the published libbleu compiled and run) is in
``tests/test_profile_scripts.py``; here: the vectorised hash against its scalar definition,
the hashed counts against the token counts where no hash collides (ids below 128, whose bytes
are never sign-extended), the multi-reference extension, and everything that carries the
factor (signatures, cache keys, sharding, adapters, the command line).
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.bleu import engine, hashed, native
from harness.bleu.config import NGRAM_IDENTITIES, BleuConfig
from harness.bleu.fastcount import text_token_ids
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import text_tokenizer
from harness.cli.options import add_overrides, overrides
from harness.data.corpus import Corpus
from harness.errors import ConfigError
from harness.scorers import get_adapter
from harness.session.parallel import Workers, compute_statistics_parallel, map_statistics

from .depth import examples
from .strategies import corpora, large_vocabulary_corpora

FAIRSEQ = PROFILES["fairseq"]
TOKENS = FAIRSEQ.replace(ngram_identity="tokens")
# large-vocabulary corpora are big by design (hundreds to thousands of distinct words)
PROPS = settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _corpus(hyps: list[str], refs: list[list[str]]) -> Corpus:
    return Corpus(hypotheses=tuple(hyps), references=tuple(tuple(r) for r in refs))


@PROPS
@given(st.lists(st.integers(-(2**31), 2**31 - 1) | st.integers(-1000, 1000), max_size=12))
def test_vectorised_hash_is_the_scalar_definition(ids: list[int]) -> None:
    arr = np.asarray(ids, dtype=np.int32)
    for n, hashes in enumerate(hashed.ngram_hashes(arr, 4), start=1):
        want = [hashed.fnv1a_hash(ids[i : i + n]) for i in range(len(ids) - n + 1)]
        assert [int(h) for h in hashes] == want


def test_sign_extension_makes_the_high_bytes_collide() -> None:
    """Without sign extension FNV-1a would tell these bigrams apart; with it, fairseq's
    hash does not (the ids of the smallest known false match)."""
    assert hashed.fnv1a_hash([129, 130]) == hashed.fnv1a_hash([121, 122])
    assert hashed.fnv1a_hash([1]) != hashed.fnv1a_hash([2])


def test_dictionary_ids_number_words_in_order_of_first_appearance() -> None:
    lines = [["b", "a", "<unk>", "</s>"], ["a", "c", hashed.UNMATCHABLE, "<pad>"]]
    got = hashed.dictionary_ids(lines, [False, True]).tolist()
    assert got == [4, 5, 3, 2, 5, 6, hashed.REFERENCE_UNK_ID, 1]


@PROPS
@given(corpora(max_refs=4), st.integers(1, 5))
def test_without_collisions_the_hash_counts_as_tokens(corpus, order) -> None:  # type: ignore[no-untyped-def]
    """A small vocabulary (ids below 128) has no colliding n-grams: the hashed statistics,
    several references clipped by the largest count in any one of them, equal the token
    statistics, per reference too."""
    c = _corpus(*corpus)
    for agg in ("corpus", "best-ref-mean"):
        hashed_stats = engine.compute_statistics(
            c, FAIRSEQ.replace(aggregation=agg), max_order=order
        )
        token_stats = engine.compute_statistics(c, TOKENS.replace(aggregation=agg), max_order=order)
        assert np.array_equal(hashed_stats.matches, token_stats.matches)
        assert np.array_equal(hashed_stats.hyp_len, token_stats.hyp_len)
        assert hashed_stats.ref_lens == token_stats.ref_lens
        if agg == "best-ref-mean":
            assert np.array_equal(hashed_stats.ref_matches, token_stats.ref_matches)


@PROPS
@given(large_vocabulary_corpora(max_refs=3))
def test_multiple_references_clip_by_the_best_one(corpus) -> None:  # type: ignore[no-untyped-def]
    """Each reference repeated changes nothing; per-reference matches never exceed the
    corpus matches, and the corpus matches are at most the sum over references."""
    hyps, refs = corpus
    c = _corpus(hyps, refs)
    twice = _corpus(hyps, [[r for r in seg for _ in range(2)] for seg in refs])
    one = engine.compute_statistics(c, FAIRSEQ)
    two = engine.compute_statistics(twice, FAIRSEQ)
    assert np.array_equal(one.matches, two.matches)
    per = engine.compute_statistics(c, FAIRSEQ.replace(aggregation="best-ref-mean"))
    assert per.ref_matches is not None
    k = np.fromiter(map(len, refs), np.int64)
    seg = np.repeat(np.arange(len(refs)), k)
    for i in range(len(refs)):
        rows = per.ref_matches[seg == i]
        assert (rows.max(axis=0) <= per.matches[i]).all()
        assert (per.matches[i] <= rows.sum(axis=0)).all()


@PROPS
@given(large_vocabulary_corpora(max_refs=3), st.integers(1, 5))
def test_the_compiled_and_numpy_counts_agree(corpus, order) -> None:  # type: ignore[no-untyped-def]
    """Large vocabularies collide by hash: the compiled counter (each text as the sequence of
    its n-grams' hashes) clips them as the numpy counts of (segment, hash) keys do, and the
    token ids numbered from the fast path's tokens are the Dictionary's of the tokens."""
    hyps, refs = corpus
    c = _corpus(hyps, refs)
    rules = FAIRSEQ.text_rules
    compiled = hashed.count_statistics(c.hypotheses, c.references, rules, order)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(native.ENV, "0")
        plain = hashed.count_statistics(c.hypotheses, c.references, rules, order)
    assert np.array_equal(compiled.matches, plain.matches)
    assert np.array_equal(compiled.hyp_len, plain.hyp_len)
    tokens, lens, on_ref, named = text_token_ids(
        c.hypotheses, c.references, rules, (*hashed.SPECIAL_SYMBOLS, hashed.UNMATCHABLE)
    )
    got = hashed.numbered(tokens, np.repeat(on_ref, lens), named[:-1], int(named[-1]))
    sides = [rules.side("reference" if r else "hypothesis") for r in on_ref.tolist()]
    texts = [t for h, rs in zip(c.hypotheses, c.references, strict=True) for t in (h, *rs)]
    lines = [text_tokenizer(side)(t) for side, t in zip(sides, texts, strict=True)]
    assert got.tolist() == hashed.dictionary_ids(lines, on_ref.tolist()).tolist()


def test_a_zero_hash_is_counted_by_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """0 ends a text for the compiled counter: an n-gram whose hash is 0 sends the corpus to
    the numpy counts, which clip it like any other hash."""
    c = _corpus(["a b a", "c"], [["a b", "b a c"], ["c c"]])
    real = hashed.ngram_hashes

    def zero_bigrams(ids: np.ndarray, max_order: int) -> list[np.ndarray]:
        out = real(ids, max_order)
        out[1] = np.zeros_like(out[1])  # every bigram hashes to 0, so all collide
        return out

    monkeypatch.setattr(hashed, "ngram_hashes", zero_bigrams)
    # the compiled hashes give None for a corpus with a zero hash
    monkeypatch.setattr(hashed, "line_hashes", lambda *args: None)
    got = hashed.count_statistics(c.hypotheses, c.references, FAIRSEQ.text_rules, 2)

    def bigrams(text: str) -> int:
        return max(len(text.split()) - 1, 0)

    # one hash for every bigram: a segment's matches are its hypothesis's bigrams, clipped by
    # the most bigrams in one reference
    want = [
        min(bigrams(h), max(bigrams(r) for r in refs))
        for h, refs in zip(c.hypotheses, c.references, strict=True)
    ]
    assert want != [0, 0]
    assert got.matches[:, 1].tolist() == want


def test_the_factor_is_validated_and_named_in_signatures() -> None:
    assert NGRAM_IDENTITIES == ("tokens", "fairseq-hash")
    with pytest.raises(ConfigError, match="fairseq-hash"):
        BleuConfig(ngram_identity="hash")
    assert "|ngram:fairseq-hash|" in FAIRSEQ.signature()
    assert "ngram:" not in PROFILES["sacrebleu"].signature()
    assert TOKENS.signature() != FAIRSEQ.signature()
    short = TOKENS.short_signature(FAIRSEQ, name="fairseq")
    assert short.split("|")[:2] == ["profile:fairseq", "ngram:tokens"]
    assert engine.tokenization_key(FAIRSEQ) != engine.tokenization_key(TOKENS)
    assert engine.tokenization_key(FAIRSEQ).endswith("|ngram:fairseq-hash")


def test_hashed_statistics_are_never_counted_in_shards() -> None:
    """Ids depend on every segment before: the parallel paths count such corpora whole."""
    words = " ".join(f"w{k}" for k in range(4, 125))
    c = _corpus([words, "a b c d e f"] * 3, [[words], ["a b c d w121 w122"]] * 3)
    assert engine.counts_whole_corpus(FAIRSEQ) and not engine.counts_whole_corpus(TOKENS)
    serial = engine.compute_statistics(c, FAIRSEQ)
    par = compute_statistics_parallel(c, FAIRSEQ, jobs=2, chunk_size=1, min_segments=0)
    assert np.array_equal(serial.matches, par.matches)
    (mapped,) = map_statistics(
        [c], FAIRSEQ, workers=Workers("processes", 2), chunk_size=1, min_segments=0
    )
    assert np.array_equal(serial.matches, mapped.matches)
    # the last segments alone number their words differently: no false match there
    alone = engine.compute_statistics(_corpus(["a b c d e f"], [["a b c d w121 w122"]]), FAIRSEQ)
    assert alone.matches[0, 1] < serial.matches[1, 1]


def test_library_adapters_refuse_the_hashed_identity() -> None:
    cfg = PROFILES["sacrebleu"].replace(ngram_identity="fairseq-hash")
    support = get_adapter("sacrebleu").supports(cfg)
    assert not support.ok and "ngram_identity" in support.reason


def test_command_line_override() -> None:
    parser = argparse.ArgumentParser()
    add_overrides(parser)
    assert overrides(parser.parse_args(["--ngram-identity", "tokens"])) == {
        "ngram_identity": "tokens"
    }
    with pytest.raises(SystemExit):
        parser.parse_args(["--ngram-identity", "hash"])
