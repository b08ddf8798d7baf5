"""fairseq-score's n-gram identity: n-grams are matched by a 64-bit hash of their token ids.

``fairseq-score`` (fairseq 0.12.2 ``fairseq_cli/score.py``, the ``Scorer`` of
``fairseq/scoring/bleu.py`` over ``clib/libbleu/libbleu.cpp``) never compares words. Described
from the published behaviour (the code is not copied; ``tests/test_profile_scripts.py`` runs
the published files as the oracle):

1. **Ids.** One fresh ``fairseq.data.Dictionary`` serves the whole run: it starts with
   ``<s>`` = 0, ``<pad>`` = 1, ``</s>`` = 2, ``<unk>`` = 3, and ``encode_line`` gives every
   word not seen before the next id. For each line pair the system line is encoded first,
   then the reference line, so a word's id depends on everything before it in the files.
   ``Scorer.add`` then sets the reference's ``<unk>`` ids to -999.
2. **Hash.** An n-gram's identity is FNV-1a (64-bit: offset basis 14695981039346656037,
   prime 0x100000001b3) over the 4n bytes of its ids as 32-bit little-endian integers. The
   bytes are read through a *signed* ``char`` (x86-64), so a byte of 0x80 or more is
   sign-extended to 64 bits before the XOR: the hash of the byte 0xff XORs
   0xffffffffffffffff, not 0xff. Different n-grams then share a hash much more often than a
   64-bit hash should (any vocabulary of more than about 128 words).
3. **Matches.** Per segment and order, the hypothesis n-grams are counted by hash; each
   reference n-gram whose hash still has a count takes one: the clipped count by hash,
   ``min(count_hyp[h], count_ref[h])``. Two n-grams that collide therefore match each other.

With ``BleuConfig(ngram_identity="fairseq-hash")`` the engine counts this way
(:func:`count_statistics`). The tokens are those of the configuration's text rules (the
``fairseq`` tokenizer reproduces ``encode_line`` and libbleu's trimming of leading ``<pad>`` and
trailing ``</s>``/``<pad>``: the trimmed tokens are special symbols, so trimming before
numbering gives the same ids); a reference token
:data:`~harness.bleu.script_tokenizers.UNMATCHABLE` (the ``fairseq`` reference form of
``<unk>``) becomes the id -999, which — unlike the token — can collide with other n-grams.

**Several references** (``fairseq-score`` takes one): the natural extension. Ids are numbered
in the order hypothesis, reference 1, reference 2, … of each segment, and a hypothesis
n-gram's count is clipped by the largest count of its hash in any single reference, as
clipping by tokens does.

**Orders above 4**: libbleu counts orders 1-4; the same hash is defined for any n.

The ids depend on the whole corpus in order, so such statistics cannot be counted shard by
shard (:func:`harness.bleu.engine.counts_whole_corpus`), and a one-segment corpus numbers
its own words only (as ``fairseq-score`` on a one-line file does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import native
from harness.bleu.fastcount import text_token_ids
from harness.bleu.script_tokenizers import UNMATCHABLE
from harness.bleu.tokenizers import TextRules

__all__ = [
    "FNV_OFFSET",
    "FNV_PRIME",
    "REFERENCE_UNK_ID",
    "SPECIAL_SYMBOLS",
    "HashedCounts",
    "count_statistics",
    "dictionary_ids",
    "fnv1a_hash",
    "ngram_hashes",
    "numbered",
]

#: FNV-1a's 64-bit offset basis and prime.
FNV_OFFSET = 14695981039346656037
FNV_PRIME = 0x100000001B3

#: The symbols a fresh ``fairseq.data.Dictionary`` holds, at ids 0, 1, 2, 3.
SPECIAL_SYMBOLS: tuple[str, ...] = ("<s>", "<pad>", "</s>", "<unk>")

#: The id ``Scorer.add`` gives a reference's ``<unk>``.
REFERENCE_UNK_ID = -999

_MASK = (1 << 64) - 1


def fnv1a_hash(ids: Sequence[int]) -> int:
    """The hash of one n-gram of ids, one byte at a time (the scalar definition that
    :func:`ngram_hashes` vectorises): FNV-1a over the ids' int32 little-endian bytes, each
    byte read as a signed char and sign-extended to 64 bits before the XOR."""
    h = FNV_OFFSET
    for b in b"".join(int(i).to_bytes(4, "little", signed=True) for i in ids):
        h = ((h ^ ((b - 256) & _MASK if b >= 0x80 else b)) * FNV_PRIME) & _MASK
    return h


def _signed_bytes(ids: np.ndarray) -> list[np.ndarray]:
    """Each id's 4 little-endian bytes as 4 contiguous uint64 columns, sign-extended as a
    signed char is."""
    values = np.asarray(ids, dtype=np.int32)
    # byte j is the id shifted right by 8j, cast to a signed char (numpy's integer casts wrap)
    return [(values >> (8 * j)).astype(np.int8).astype(np.int64).view(np.uint64) for j in range(4)]


def _extend(h: np.ndarray, columns: Sequence[np.ndarray]) -> np.ndarray:
    """Continue the FNV-1a states ``h`` (a new array, changed in place) over the 4 bytes of
    one id each (uint64 arithmetic wraps modulo 2**64, as the C ``size_t`` does)."""
    prime = np.uint64(FNV_PRIME)
    for column in columns:
        np.bitwise_xor(h, column, out=h)
        np.multiply(h, prime, out=h)
    return h


def ngram_hashes(ids: np.ndarray, max_order: int) -> list[np.ndarray]:
    """The hash of the n-gram starting at every position of ``ids``, for n = 1..max_order:
    entry ``n - 1`` has ``len(ids) - n + 1`` hashes (n-grams across line ends included; the
    caller keeps those inside a line). The byte loop is sequential, the positions parallel:
    the state of an n-gram is its (n-1)-gram prefix's state continued over one more id."""
    b = _signed_bytes(ids)
    t = len(ids)
    h = _extend(np.full(t, FNV_OFFSET, dtype=np.uint64), b)
    out = [h]
    for n in range(2, max_order + 1):
        if t - n + 1 <= 0:
            out.append(np.zeros(0, dtype=np.uint64))
            continue
        h = _extend(h[: t - n + 1].copy(), [column[n - 1 :] for column in b])
        out.append(h)
    return out


def dictionary_ids(lines: Sequence[Sequence[str]], is_reference: Sequence[bool]) -> np.ndarray:
    """The ids of every token of ``lines`` (in order, concatenated) as one fresh fairseq
    ``Dictionary`` numbers them: the special symbols first, then each new token in order of
    first appearance. A reference token :data:`UNMATCHABLE` (``<unk>`` of a reference) is
    :data:`REFERENCE_UNK_ID` and is not numbered."""
    index: dict[str, int] = {w: i for i, w in enumerate(SPECIAL_SYMBOLS)}
    get = index.get
    out: list[int] = []
    for tokens, ref in zip(lines, is_reference, strict=True):
        for w in tokens:
            if ref and w == UNMATCHABLE:
                out.append(REFERENCE_UNK_ID)
                continue
            i = get(w)
            if i is None:
                i = index[w] = len(index)
            out.append(i)
    return np.asarray(out, dtype=np.int32)


@dataclass(frozen=True)
class HashedCounts:
    """What :func:`count_statistics` counts: ``hyp_len`` (S,), ``ref_lens`` per segment,
    ``matches`` (S, N) clipped by hash, ``ref_matches`` (R, N) clipped by each reference
    alone (references flattened in segment order) or ``None``."""

    hyp_len: np.ndarray
    ref_lens: tuple[tuple[int, ...], ...]
    matches: np.ndarray
    ref_matches: np.ndarray | None


def _lookup(keys: np.ndarray, counts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``counts`` of each of ``wanted`` in the sorted unique ``keys`` (0 when absent)."""
    if len(keys) == 0:
        return np.zeros(len(wanted), dtype=np.int64)
    idx = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[idx] == wanted, counts[idx], 0)


def _sum_by(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(group, weights=values, minlength=size).round().astype(np.int64)


def numbered(
    tokens: np.ndarray, on_reference: np.ndarray, special: np.ndarray, unmatchable: int
) -> np.ndarray:
    """:func:`dictionary_ids` of token ids already given in text order: ``special`` holds the
    ids of :data:`SPECIAL_SYMBOLS` (in order), ``unmatchable`` the id of
    :data:`~harness.bleu.script_tokenizers.UNMATCHABLE`, ``on_reference`` marks the tokens of
    references. Every other token is numbered by its first appearance, from 4."""
    return _numbered(tokens, on_reference, special, unmatchable).astype(np.int32)


def _numbered(
    tokens: np.ndarray, on_reference: np.ndarray, special: np.ndarray, unmatchable: int
) -> np.ndarray:
    """:func:`numbered` as int64."""
    out = np.full(len(tokens), -1, dtype=np.int64)
    for number, token in enumerate(special.tolist()):
        out[tokens == token] = number
    unk = on_reference & (tokens == unmatchable)
    out[unk] = REFERENCE_UNK_ID
    plain = out == -1
    kept = tokens[plain]
    if len(kept) == 0:
        return out
    # each token's first position (the ids are small: an array indexed by id, no sort of
    # the tokens), then the tokens numbered in the order of those positions
    first = np.full(int(kept.max()) + 1, len(kept), dtype=np.int64)
    np.minimum.at(first, kept, np.arange(len(kept)))
    seen = np.flatnonzero(first < len(kept))
    rank = np.zeros(len(first), dtype=np.int64)
    rank[seen[np.argsort(first[seen])]] = np.arange(len(seen))
    out[plain] = len(SPECIAL_SYMBOLS) + rank[kept]
    return out


def line_hashes(kernels: Any, ids: np.ndarray, lens: np.ndarray, max_order: int) -> Any:
    """The compiled ``fnv_ngrams``: per order, every line's n-gram hashes followed by 0 (as
    int64 bytes), or ``None`` when an n-gram hashes to 0."""
    return kernels.fnv_ngrams(ids, lens, max_order)


def _native_matches(
    kernels: Any, ids: np.ndarray, lens: np.ndarray, texts: np.ndarray, max_order: int
) -> np.ndarray | None:
    """The clipped matches by hash, order by order, from the compiled counter: at order n each
    text becomes the sequence of its n-grams' hashes (read as int64, :func:`line_hashes`),
    whose unigrams the counter clips exactly as the n-grams' hashes are clipped. ``None`` when
    a hash is 0, the counter's end-of-text mark (the caller then counts with numpy)."""
    sequences = line_hashes(kernels, ids, lens, max_order)
    if sequences is None:
        return None
    matches = np.zeros((len(texts), max_order), dtype=np.int64)
    column = np.zeros((len(texts), 1), dtype=np.int64)
    for n, raw in enumerate(sequences, start=1):
        column[:] = 0
        kernels.count_segments(np.frombuffer(raw, dtype=np.int64), texts, 1, column)
        matches[:, n - 1] = column[:, 0]
    return matches


def count_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rules: TextRules,
    max_order: int,
    *,
    per_reference: bool = False,
    vocabularies: dict[TextRules, Any] | None = None,
) -> HashedCounts:
    """Lengths and matches by hashed n-gram identity of a whole corpus (see the module
    docstring): tokens by ``rules`` (each side's form), ids by one Dictionary in the order
    hypothesis, references of each segment, clipped counts per hash. ``vocabularies``: the
    fast path's token tables kept across calls (:func:`harness.bleu.fastcount.count_statistics`)."""
    s = len(hypotheses)
    tokens, lens, ref_line, named = text_token_ids(
        hypotheses,
        references,
        rules,
        (*SPECIAL_SYMBOLS, UNMATCHABLE),
        vocabularies=vocabularies,
    )
    line_seg = np.repeat(np.arange(s), [1 + len(r) for r in references])
    ids = _numbered(tokens, np.repeat(ref_line, lens), named[:-1], int(named[-1]))
    hyp_len = lens[~ref_line]
    ref_flat = lens[ref_line]
    k = [len(r) for r in references]
    pos = np.cumsum([0, *k])
    flat_refs = ref_flat.tolist()
    ref_lens = tuple(tuple(flat_refs[pos[i] : pos[i + 1]]) for i in range(s))
    n_pairs = int(ref_line.sum())
    pair_seg = line_seg[ref_line]
    n_lines = len(lens)
    kernels = native.module()
    if kernels is not None and not per_reference:
        counted = _native_matches(kernels, ids, lens, 1 + np.asarray(k, np.int64), max_order)
        if counted is not None:
            return HashedCounts(
                hyp_len=hyp_len.astype(np.int64),
                ref_lens=ref_lens,
                matches=counted,
                ref_matches=None,
            )

    # per token: its line's end, whether it is a reference's, its segment and reference pair
    tok_line = np.repeat(np.arange(n_lines), lens)
    line_end = np.cumsum(lens)
    tok_end = line_end[tok_line]
    tok_ref = ref_line[tok_line]
    tok_seg = line_seg[tok_line]
    pair_of_line = np.cumsum(ref_line) - 1  # meaningful on reference lines only
    tok_pair = pair_of_line[tok_line]

    matches = np.zeros((s, max_order), dtype=np.int64)
    ref_matches = np.zeros((n_pairs, max_order), dtype=np.int64) if per_reference else None
    for n, hashes in enumerate(ngram_hashes(ids, max_order), start=1):
        starts = np.arange(len(hashes))
        starts = starts[starts + n <= tok_end[: len(hashes)]]  # n-grams inside one line
        if len(starts) == 0:
            continue
        on_ref = tok_ref[starts]
        hyp_at, ref_at = starts[~on_ref], starts[on_ref]
        # dense numbers for the hashes, so (segment, hash) packs into one int64 key
        distinct, dense = np.unique(hashes[starts], return_inverse=True)
        u = len(distinct)
        if max(s, n_pairs, 1) * u >= 2**62:
            raise ValueError("corpus too large for packed (segment, hash) keys")
        dense_h, dense_r = dense[~on_ref], dense[on_ref]
        hyp_keys, hyp_counts = np.unique(tok_seg[hyp_at] * u + dense_h, return_counts=True)
        pair_keys, pair_counts = np.unique(tok_pair[ref_at] * u + dense_r, return_counts=True)
        pair = pair_keys // u
        seg_keys = pair_seg[pair] * u + pair_keys % u  # the same hash in the segment's hyp
        in_hyp = _lookup(hyp_keys, hyp_counts, seg_keys)
        if len(seg_keys) == 0:  # no reference has an n-gram of this order
            continue
        if ref_matches is not None:
            ref_matches[:, n - 1] = _sum_by(pair, np.minimum(pair_counts, in_hyp), n_pairs)
        # clip by the largest count in any one reference of the segment
        order = np.argsort(seg_keys, kind="stable")
        sorted_keys = seg_keys[order]
        first = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        best = np.maximum.reduceat(pair_counts[order], first)
        clipped = np.minimum(best, in_hyp[order][first])
        matches[:, n - 1] = _sum_by(sorted_keys[first] // u, clipped, s)
    return HashedCounts(
        hyp_len=hyp_len.astype(np.int64),
        ref_lens=ref_lens,
        matches=matches,
        ref_matches=ref_matches,
    )
