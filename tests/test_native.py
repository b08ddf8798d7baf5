"""The compiled kernels (``harness/bleu/_native.c``) equal their Python definitions.

* ``WordTable.ids`` gives the ids a dict would give to ``str.split()`` words (or whole items),
  in order of first appearance, across calls, for any text: every whitespace ``str.split``
  knows, Latin-1, BMP and astral characters, the same word stored in lines of different
  widths, long words that share their first 16 characters; with every hash forced equal
  (``hash_mask=0``) so that only the full key comparison tells words apart.
* ``count_segments`` gives the clipped matches of :class:`collections.Counter` arithmetic,
  also with every n-gram hash forced equal.
* ``gather`` gives the token ids and line lengths of the numpy formula it replaces.
* ``framing`` gives the lengths and UTF-8 that ``content_hash`` frames in Python.
* ``fnv_ngrams`` gives the hashes of fairseq's n-grams that ``hashed.fnv1a_hash`` defines.
* The statistics of whole corpora are the same with and without the kernels is checked by
  ``tests/test_fastpath.py`` (each property test draws both); what the kernels refuse, and
  how they behave when user code or threads interfere, by ``tests/test_native_hardening.py``.

On CI (``CI=true``) the extension must be built: a missing compiler would otherwise turn every
test here into a skip and leave the numpy path alone in the benchmarks.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.bleu import native

from .depth import examples

kernels = native.module()
if kernels is None:
    if os.environ.get("CI", "").lower() == "true":
        raise RuntimeError(f"CI=true but the compiled kernels are missing: {native.status()}")
    pytest.skip(f"compiled kernels not in use: {native.status()}", allow_module_level=True)
assert kernels is not None

SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# every character str.split() splits on, and a few that it does not
SPACES = [c for c in map(chr, range(0x3001)) if c.isspace()]
NOT_SPACES = ["\u200b", "\ufeff", "\x00", "_"]
LETTERS = ["a", "b", "é", "ÿ", "ĉ", "Ω", "語", "😀", "aaaaaaaaaaaaaaaa", "aaaaaaaa"]
text = st.lists(st.sampled_from(SPACES + NOT_SPACES + LETTERS), max_size=14).map("".join)


def reference_ids(batches: list[list[str]], split: bool) -> tuple[list[list[int]], list[list[str]]]:
    """Per batch, the ids a dict gives (each split line followed by 0) and the new keys."""
    table: dict[str, int] = {"\x00": 0}
    out, fresh = [], []
    for batch in batches:
        ids: list[int] = []
        new: list[str] = []
        for item in batch:
            for key in item.split() if split else [item]:
                if key not in table:
                    table[key] = len(table)
                    new.append(key)
                ids.append(table[key])
            if split:
                ids.append(0)
        out.append(ids)
        fresh.append(new)
    return out, fresh


@SETTINGS
@given(
    batches=st.lists(st.lists(text, max_size=6), min_size=1, max_size=4),
    split=st.booleans(),
    mask=st.sampled_from([2**64 - 1, 0, 1, 2**40]),
)
def test_word_ids_equal_a_dict_of_str_split_words(
    batches: list[list[str]], split: bool, mask: int
) -> None:
    table = kernels.WordTable(hash_mask=mask)
    assert table.ids(["\x00"], False) == (np.zeros(1, np.int64).tobytes(), ["\x00"])
    want_ids, want_fresh = reference_ids(batches, split)
    for batch, ids, fresh in zip(batches, want_ids, want_fresh, strict=True):
        raw, new = table.ids(batch, split)
        assert np.frombuffer(raw, np.int64).tolist() == ids
        assert new == fresh
    assert len(table) == 1 + sum(map(len, want_fresh))


def test_the_same_word_in_lines_of_every_width_has_one_id() -> None:
    """A Latin-1 word in a line stored with 1, 2 and 4 bytes a character is one key; words
    that share their first 8 or 16 characters are not (with every hash equal too)."""
    long_a, long_b = "x" * 16 + "a", "x" * 16 + "b"
    for mask in (2**64 - 1, 0):
        table = kernels.WordTable(hash_mask=mask)
        table.ids(["\x00"], False)  # id 0 ends every line, as in fastcount
        raw, fresh = table.ids(
            [f"é {long_a}", f"é ĉ {long_b}", f"é 😀 {long_a}", f"{long_b} é"], True
        )
        assert fresh == ["é", long_a, "ĉ", long_b, "😀"]
        assert np.frombuffer(raw, np.int64).tolist() == [1, 2, 0, 1, 3, 4, 0, 1, 5, 2, 0, 4, 1, 0]
        # inline keys: equal first 8 characters, different 9th to 16th
        words = ["x" * 8 + "a", "x" * 8 + "b", "x" * 15 + "a", "x" * 15 + "b", "x" * 8]
        raw, fresh = table.ids([" ".join(words * 2)], True)
        assert fresh == words
        assert np.frombuffer(raw, np.int64).tolist() == [6, 7, 8, 9, 10] * 2 + [0]


def test_reserved_ids_have_no_key() -> None:
    """The token table's sentinel: an id that no key gets, listed as None by keys()."""
    table = kernels.WordTable()
    assert table.reserve() == 0
    raw, new = table.ids(["\x00", "a", "\x00"], False)
    assert new == ["\x00", "a"]
    assert np.frombuffer(raw, np.int64).tolist() == [1, 2, 1]
    assert table.reserve() == 3
    assert table.ids(["b"], False)[0] == np.array([4], np.int64).tobytes()
    assert table.keys() == [None, "\x00", "a", None, "b"] and len(table) == 5


def test_word_table_rejects_what_is_not_str() -> None:
    table = kernels.WordTable()
    with pytest.raises(TypeError, match="item 1 is bytes"):
        table.ids(["a", b"b"], True)
    with pytest.raises(TypeError):
        table.ids(3, True)


# ---------------------------------------------------------------------------- counting
def reference_matches(segments: list[list[list[int]]], order: int) -> list[list[int]]:
    """Clipped matches per segment and order: min(hypothesis count, best single reference)."""
    out = []
    for hyp, *refs in segments:
        row = []
        for n in range(1, order + 1):
            grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            best: Counter[tuple[int, ...]] = Counter()
            for ref in refs:
                best |= Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
            row.append(sum(min(c, best[g]) for g, c in grams.items()))
        out.append(row)
    return out


token_text = st.lists(st.integers(1, 4), max_size=12)
segments = st.lists(st.lists(token_text, min_size=1, max_size=5), min_size=0, max_size=6)


@SETTINGS
@given(segs=segments, order=st.integers(1, 6), mask=st.sampled_from([2**64 - 1, 0, 3]))
def test_count_segments_equals_counter_arithmetic(
    segs: list[list[list[int]]], order: int, mask: int
) -> None:
    flat = [t for seg in segs for text in seg for t in (*text, 0)]
    tokens = np.array(flat, dtype=np.int64)
    texts = np.array([len(seg) for seg in segs], dtype=np.int64)
    out = np.full((len(segs), order), -7, dtype=np.int64)
    kernels.count_segments(tokens, texts, order, out, mask)
    assert out.tolist() == reference_matches(segs, order)


def test_count_segments_reports_malformed_input() -> None:
    tokens = np.array([1, 2, 0, 1, 0], dtype=np.int64)
    out = np.zeros((1, 4), dtype=np.int64)
    with pytest.raises(ValueError, match="tokens end"):
        kernels.count_segments(tokens, np.array([3], np.int64), 4, out)
    with pytest.raises(ValueError, match="at least its hypothesis"):
        kernels.count_segments(tokens, np.array([0], np.int64), 4, out)
    with pytest.raises(ValueError, match="segments x max_order"):
        kernels.count_segments(tokens, np.array([2], np.int64), 3, out)
    with pytest.raises(TypeError, match="int64"):
        kernels.count_segments(tokens.astype(np.int32), np.array([2], np.int64), 4, out)
    with pytest.raises(ValueError, match="at least 1"):
        kernels.count_segments(tokens, np.array([2], np.int64), 0, out)
    kernels.count_segments(tokens, np.array([2], np.int64), 4, out)
    assert out.tolist() == [[1, 0, 0, 0]]


# ---------------------------------------------------------------------------- gather
@SETTINGS
@given(
    words=st.lists(st.lists(st.integers(1, 9), max_size=4), min_size=1, max_size=6),
    picks=st.lists(st.integers(0, 5), max_size=30),
)
def test_gather_equals_the_numpy_formula(words: list[list[int]], picks: list[int]) -> None:
    """Word w's tokens are flat[start[w] : start[w] + len[w]]; word 0 is the line end."""
    vocab = [[0], *words]  # word 0: the sentinel token
    lens = np.array(list(map(len, vocab)), dtype=np.int64)
    start = np.cumsum(lens) - lens
    flat = np.array([t for w in vocab for t in w], dtype=np.int64)
    wids = np.array([p % len(vocab) for p in picks] + [0], dtype=np.int64)
    raw_tokens, raw_lens = kernels.gather(wids, start, lens, flat)
    want = [t for w in wids.tolist() for t in vocab[w]]
    assert np.frombuffer(raw_tokens, np.int64).tolist() == want
    line_len, run = [], 0
    for w in wids.tolist():
        if w == 0:
            line_len.append(run)
            run = 0
        else:
            run += len(vocab[w])
    assert np.frombuffer(raw_lens, np.int64).tolist() == line_len


def test_gather_rejects_unknown_words() -> None:
    lens = np.array([1, 2], dtype=np.int64)
    start = np.array([0, 1], dtype=np.int64)
    flat = np.array([0, 5, 6], dtype=np.int64)
    with pytest.raises(IndexError, match="word id 2"):
        kernels.gather(np.array([1, 2, 0], np.int64), start, lens, flat)


# ---------------------------------------------------------------------------- fnv_ngrams
ids_text = st.lists(
    st.integers(-(2**31), 2**31 - 1) | st.integers(-1000, 1000) | st.sampled_from([127, 128, 255]),
    max_size=9,
)


@SETTINGS
@given(lines=st.lists(ids_text, max_size=6), order=st.integers(1, 6))
def test_fnv_ngrams_equal_the_scalar_hash_line_by_line(lines: list[list[int]], order: int) -> None:
    """Entry n - 1: every line's n-grams hashed by fairseq's FNV-1a (one byte at a time,
    ``hashed.fnv1a_hash``), each line followed by 0."""
    from harness.bleu.hashed import fnv1a_hash

    ids = np.array([i for line in lines for i in line], dtype=np.int64)
    lens = np.array(list(map(len, lines)), dtype=np.int64)
    got = kernels.fnv_ngrams(ids, lens, order)
    want = [
        [
            h
            for line in lines
            for h in (*(fnv1a_hash(line[i : i + n]) for i in range(len(line) - n + 1)), 0)
        ]
        for n in range(1, order + 1)
    ]
    assert got is not None  # no n-gram of these hashes to 0
    assert [np.frombuffer(raw, np.int64).view(np.uint64).tolist() for raw in got] == want


def test_fnv_ngrams_read_an_id_as_its_int32() -> None:
    from harness.bleu.hashed import fnv1a_hash

    ids = np.array([2**32 + 5, -(2**31) - 1], dtype=np.int64)
    (raw,) = kernels.fnv_ngrams(ids, np.array([2], np.int64), 1)
    got = np.frombuffer(raw, np.int64).view(np.uint64).tolist()
    assert got == [fnv1a_hash([5]), fnv1a_hash([2**31 - 1]), 0]


def test_fnv_ngrams_reject_lengths_that_do_not_add_up() -> None:
    ids = np.array([1, 2, 3], dtype=np.int64)
    for lens in ([1, 1], [2, 2], [-1, 4]):
        with pytest.raises(ValueError, match="add up"):
            kernels.fnv_ngrams(ids, np.array(lens, np.int64), 2)
    with pytest.raises(ValueError, match="at least 1"):
        kernels.fnv_ngrams(ids, np.array([3], np.int64), 0)
    with pytest.raises(TypeError, match="int64"):
        kernels.fnv_ngrams(ids.astype(np.int32), np.array([3], np.int64), 2)
    empty = kernels.fnv_ngrams(np.zeros(0, np.int64), np.array([0, 0], np.int64), 2)
    assert [np.frombuffer(raw, np.int64).tolist() for raw in empty] == [[0, 0], [0, 0]]


# ---------------------------------------------------------------------------- framing
@SETTINGS
@given(groups=st.lists(st.lists(st.text(max_size=12), max_size=4), max_size=5))
def test_framing_equals_python_lengths_and_utf8(groups: list[list[str]]) -> None:
    """Every text's length in code points (little-endian int64) and the UTF-8 concatenation,
    as content_hash frames them in Python; None where a lone surrogate needs surrogatepass."""
    texts = [t for g in groups for t in g]
    got = kernels.framing(groups)
    if any("\ud800" <= c <= "\udfff" for t in texts for c in t):
        assert got is None
        return
    assert got == (
        np.array(list(map(len, texts)), dtype="<i8").tobytes(),
        "".join(texts).encode("utf-8"),
    )


def test_content_hash_is_the_same_with_and_without_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harness import Corpus
    from harness.session.cache import content_hash

    for hyps in (["a é 語 😀", "b"], ["\ud800 lone", "x"]):
        c = Corpus(hypotheses=hyps, references=[["r", "é"], ["s"]], check_text=False)
        compiled = content_hash(c)
        monkeypatch.setenv(native.ENV, "0")
        assert content_hash(c) == compiled
        monkeypatch.delenv(native.ENV)


def test_status_names_the_kernels_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert native.status() == "native"
    monkeypatch.setenv(native.ENV, "0")
    assert native.module() is None
    assert native.status() == f"numpy ({native.ENV}=0)"
