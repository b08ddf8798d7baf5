"""Vectorised sufficient statistics: tokenize each distinct word once, count n-grams in bulk.

This is the fast path behind :func:`harness.bleu.engine.compute_statistics`; it returns exactly the
numbers of the per-segment Python reference (``engine._statistics_reference``), which
``tests/test_fastpath.py`` checks on generated corpora.

Algorithm
---------
1. **Tokens from distinct words.** What a tokenizer allows is read from its registry entry
   (:class:`harness.bleu.tokenizers.TokenizerSpec`). Most tokenizers are *word-local*
   (``locality="word"``): a line's tokens are its whitespace-separated words' tokens in order
   (13a, none, whitespace, ascii-whitespace, codexglue, codenn, jury, parlai, fairseq's two sides),
   but for the lines holding one of the entry's ``whole_line_if`` strings and an empty line's
   ``empty_line_token``; ``edges`` tokenizers (intl, t2t, keras-hub-re2, nltk-word,
   nltk-punkt) are word-local once a line's first and last word are told apart (nltk's with a
   neutral word after any word that does not end its line, and lines its ``whole_line_when``
   test names — Punkt's potential sentence ends — tokenized whole). So a batch of lines is
   split into words (in C, or with one ``str.split``), each word gets an id, and only words
   never seen before are tokenized — once per corpus, many at a time, with the entry's
   ``batch_words``, batch versions of the rules that stay on CPython's C fast paths; a batch's
   lines tokenized whole leave the others to the C split. Other tokenizers (zh, char, MeCab …)
   tokenize each distinct *line* once: many lines per regex pass where the entry has
   ``batch_lines`` (remembered by line, :func:`harness.bleu.tokenizers.batch_lines_tokens`),
   the others with the line function. A word's token ids are stored once (CSR arrays); a
   line's token ids are gathered from them. With the compiled counter, each (hypothesis, one
   reference) pair that a ``best-ref-mean`` count needs is gathered from the same token ids.
   The vocabularies are :mod:`harness.bleu.vocabulary`.
2. **Layout.** Segments are processed in chunks of about ``CHUNK`` tokens: segment by segment,
   the hypothesis then its references in listed order, every text followed by the sentinel
   token 0. Every position knows its *side* (0 = hypothesis, ``k`` = reference ``k``).
3. **Counting, exact.** With the compiled kernels (:mod:`harness.bleu.native`, the default
   where ``pip install`` could compile them) word ids come from a C hash table that makes no
   ``str`` per known word, a line's token ids are gathered in C, and each segment's clipped
   matches are counted in a per-segment hash table whose keys are compared token by token,
   with the GIL released. Otherwise :mod:`harness.bleu.sortcount` counts with numpy: exact
   packed keys and one ``np.sort`` per order and chunk. Either way the numbers are the
   Python reference's; chunks are counted in a helper thread while the next is tokenized.

Measured dead ends: ``benchmarks/README.md`` ("How the fast path works").
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from harness.bleu import native
from harness.bleu import tokenizers as _tok
from harness.bleu.sortcount import DoesNotFit, count_range
from harness.bleu.vocabulary import (
    BATCH,
    Vocabularies,
    Vocabulary,
)

__all__ = [
    "CHUNK",
    "DoesNotFit",
    "count_statistics",
    "text_token_ids",
]

#: Target positions (hypothesis + reference tokens) per chunk. Time is flat from 2**16 to
#: 2**18 here; the smaller chunk keeps the counting temporaries (and the helper thread's
#: malloc arena) small.
CHUNK = 1 << 16
#: From this many segments on, counting runs in a helper thread beside tokenizing.
_PIPELINE_MIN_SEGMENTS = 2000


# ====================================================================== counting
def count_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rules: _tok.TextRules,
    max_order: int,
    *,
    chunk: int = CHUNK,
    vocabularies: dict[_tok.TextRules, Vocabulary] | None = None,
    ref_matches: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(hyp_len (S,), ref_len (R,), refs_per_segment (S,), matches (S, max_order))``.

    ``ref_len`` lists every reference length, segment by segment in listed order. Segments are
    tokenized and counted in chunks of about ``chunk`` tokens. Raises :class:`DoesNotFit` when
    the exact keys of one segment cannot be packed (the caller then uses the Python reference).
    ``vocabularies``: token tables kept across calls (by text rules), so that texts counted
    again — each reference alone after all together — are not tokenized again.
    ``ref_matches`` (R, max_order), with the compiled counter only (:func:`counts_pairs`): also
    fills in the matches of each (hypothesis, one reference) pair, from the same tokens.
    """
    if ref_matches is not None and native.module() is None:
        raise ValueError("ref_matches needs the compiled counter")
    s_count = len(hypotheses)
    k = np.fromiter(map(len, references), np.int64, s_count)
    if s_count == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, k, np.zeros((0, max_order), dtype=np.int64)
    occ_start = np.cumsum(1 + k) - (1 + k)  # segment s's hypothesis is text occ_start[s]
    n_occ = int(s_count + k.sum())
    lens = np.empty(n_occ, dtype=np.int64)
    matches = np.zeros((s_count, max_order), dtype=np.int64)
    # By side (fairseq's reference form, detok lowercasing): two vocabularies, one token table.
    vocab, ref_vocab = _side_vocabularies(rules, {} if vocabularies is None else vocabularies)
    chars_per_token = 6.0  # to size chunks; updated from each chunk
    # Counting a chunk is numpy work that releases the GIL (sorts, bincounts): one helper
    # thread counts chunk k while this thread tokenizes chunk k+1 (each chunk writes its own
    # rows of ``matches``; the key width is fixed from the vocabulary size at hand-over).
    counter = _counter() if s_count >= _PIPELINE_MIN_SEGMENTS else None
    kernels = native.module()
    counting: list[Future[None]] = []
    # the references' token ids, kept once the same references come a second time: the
    # systems of a test set are counted one after another against them
    kept = _kept_reference_ids(ref_vocab, references)
    if kept is not None:
        ref_ids, ref_lens = kept
        ref_start = np.concatenate([[0], np.cumsum(ref_lens + 1)])
        first_ref = np.concatenate([[0], np.cumsum(k)])  # segment s's first reference
    # characters before each segment (its texts' lengths and one), to cut chunks by budget
    seg_end = _segment_chars(hypotheses, references, k)
    try:
        s0 = 0
        while s0 < s_count:
            # the segments while the budget left is positive: s1 is the first segment whose end
            # reaches the budget (the sums are exact integers, so this is the budget counted down)
            budget = chunk * chars_per_token
            ahead = seg_end[s0 + 1 :] - seg_end[s0]
            s1 = s0 + 1 + min(int(np.searchsorted(ahead, budget, side="left")), s_count - s0 - 1)
            chunk_chars = int(seg_end[s1] - seg_end[s0]) - (s1 - s0)
            lines: list[str] = []
            if kept is None:
                for s in range(s0, s1):
                    lines.append(hypotheses[s])
                    lines += references[s]
            o0 = int(occ_start[s0])
            occ_seg = occ_start[s0:s1] - o0
            if kept is not None:
                r0, r1 = first_ref[s0], first_ref[s1]
                refs = (ref_ids[ref_start[r0] : ref_start[r1]], ref_lens[r0:r1])
                hyps = _line_ids(vocab, list(hypotheses[s0:s1]))
                tokens, chunk_lens = _in_text_order(hyps, refs, occ_seg)
            elif ref_vocab is vocab:
                tokens, chunk_lens = _line_ids(vocab, lines)
            else:
                tokens, chunk_lens = _by_side_ids(vocab, ref_vocab, lines, occ_seg)
            lens[o0 : o0 + len(chunk_lens)] = chunk_lens
            if vocab.shared is None:  # a shared table's batches are cut alike for all rules
                chars_per_token = max(1.0, chunk_chars / max(1, len(tokens)))
            job: tuple[Callable[..., None], tuple[object, ...]]
            if kernels is not None:  # texts per segment are all the compiled counter needs
                texts = np.ascontiguousarray(1 + k[s0:s1])
                if ref_matches is not None:
                    r0 = o0 - s0  # the references before segment s0
                    pairs = (*_pair_layout(tokens, chunk_lens, k[s0:s1]), max_order)
                    rows = ref_matches[r0 : r0 + int(k[s0:s1].sum())]
                    job = (_count_both, (kernels, tokens, texts, matches[s0:s1], pairs, rows))
                else:
                    job = (kernels.count_segments, (tokens, texts, max_order, matches[s0:s1]))
            else:
                span = chunk_lens + 1  # every text's tokens, then the sentinel
                occ_side = np.arange(len(span)) - np.repeat(occ_seg, 1 + k[s0:s1])
                side = np.repeat(occ_side.astype(np.int8 if k.max() < 127 else np.int64), span)
                seg_len = np.add.reduceat(span, occ_seg)
                job = (
                    count_range,
                    (tokens, side, seg_len, len(vocab.tokens), max_order, matches[s0:s1]),
                )
            if counter is None:
                job[0](*job[1])
            else:
                counting.append(counter.submit(job[0], *job[1]))
            s0 = s1
        for done in counting:
            done.result()  # DoesNotFit from a chunk is raised here
    finally:
        for left in counting:  # after an error, the chunks still queued are dropped
            left.cancel()
    is_ref = np.ones(n_occ, dtype=bool)
    is_ref[occ_start] = False
    return lens[occ_start], lens[is_ref], k, matches


_COUNTERS = threading.local()


def _counter() -> ThreadPoolExecutor:
    """The counting thread of the calling thread, started with its first pipelined count and
    kept: a count of a few thousand segments is short, and a thread started for each of the
    hundreds a run makes waited for the interpreter's lock to start. Each thread that counts
    has its own, as when one was started per count, so counts in several threads still count
    side by side; it ends with the thread that made it. Kept per process too: a forked child
    has the executor without its thread."""
    kept: tuple[int, ThreadPoolExecutor] | None = getattr(_COUNTERS, "kept", None)
    if kept is None or kept[0] != os.getpid():
        kept = _COUNTERS.kept = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="count"))
    return kept[1]


def _segment_chars(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], k: np.ndarray
) -> np.ndarray:
    """``(S + 1,)``: the characters of the segments before each one (and of all at the end),
    a segment's being its hypothesis's, its references' and one."""
    hyp_chars = np.fromiter(map(len, hypotheses), np.int64, len(hypotheses))
    ref_chars = np.fromiter(
        map(len, itertools.chain.from_iterable(references)), np.int64, int(k.sum())
    )
    ref_before = np.concatenate([[0], np.cumsum(ref_chars)])
    first_ref = np.concatenate([[0], np.cumsum(k)])
    per_segment = hyp_chars + (ref_before[first_ref[1:]] - ref_before[first_ref[:-1]]) + 1
    return np.concatenate([[0], np.cumsum(per_segment)])


def counts_pairs() -> bool:
    """Whether :func:`count_statistics` can count each (hypothesis, one reference) pair from
    the tokens of its corpus count (``ref_matches=``): with the compiled counter."""
    return native.module() is not None


def _pair_layout(
    tokens: np.ndarray, lens: np.ndarray, k: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The compiled counter's input for every (hypothesis, one reference) pair of a chunk laid
    out as :func:`count_statistics` lays it (each segment's hypothesis then its ``k``
    references, every text followed by the sentinel): the pairs' texts gathered in segment and
    reference order, and 2 texts per pair."""
    span = lens + 1
    start = np.cumsum(span) - span
    first = np.cumsum(1 + k) - (1 + k)  # each segment's hypothesis
    n_pairs = int(k.sum())
    seg = np.repeat(np.arange(len(k)), k)
    ref = first[seg] + 1 + np.arange(n_pairs) - np.repeat(np.cumsum(k) - k, k)
    texts = np.empty(2 * n_pairs, dtype=np.int64)
    texts[0::2], texts[1::2] = first[seg], ref
    n = span[texts]
    at = np.repeat(start[texts] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    return np.ascontiguousarray(tokens[at]), np.full(n_pairs, 2, dtype=np.int64)


def _count_both(
    kernels: Any,
    tokens: np.ndarray,
    texts: np.ndarray,
    out: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray, int],
    pair_out: np.ndarray,
) -> None:
    """A chunk's segment matches and its pairs' matches, with the compiled counter."""
    max_order = pairs[2]
    kernels.count_segments(tokens, texts, max_order, out)
    if len(pair_out):
        kernels.count_segments(pairs[0], pairs[1], max_order, pair_out)


def _side_vocabularies(
    rules: _tok.TextRules, vocabs: dict[_tok.TextRules, Vocabulary]
) -> tuple[Vocabulary, Vocabulary]:
    """The hypothesis and reference vocabularies of ``rules`` (one and the same unless the
    sides are tokenized differently), kept in ``vocabs``.

    Both sides must give a token the same id: a kept reference-side vocabulary that was paired
    with another hypothesis side (another tokenization sharing this reference rule) has other
    token ids, and is replaced by one sharing this hypothesis side's tokens."""

    def vocabulary(side_rules: _tok.TextRules, table: Vocabulary | None = None) -> Vocabulary:
        found = vocabs.get(side_rules)
        if found is None or (table is not None and found.tokens is not table.tokens):
            words = vocabs.shared_words() if isinstance(vocabs, Vocabularies) else None
            found = vocabs[side_rules] = Vocabulary(side_rules, words)
            if table is not None:  # the sentinel and _SEP are ids 0 and 1 in both
                found.tokens = table.tokens
        return found

    vocab = vocabulary(rules.side("hypothesis"))
    return vocab, (vocabulary(rules.side("reference"), vocab) if rules.by_side else vocab)


def text_token_ids(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rules: _tok.TextRules,
    named: Sequence[str] = (),
    *,
    vocabularies: dict[_tok.TextRules, Vocabulary] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every text's tokens as ids, in the order hypothesis, its references, segment by segment:
    ``(flat token ids without sentinels, tokens per text, whether each text is a reference,
    the ids of the tokens ``named``)``. Each side is tokenized by its own rules, in one id
    space; equal, text by text, to :func:`harness.bleu.tokenizers.text_tokenizer` of the side's
    rules (``tests/test_hashed.py``). ``vocabularies``: as for :func:`count_statistics`."""
    vocab, ref_vocab = _side_vocabularies(rules, {} if vocabularies is None else vocabularies)
    texts: list[str] = []
    is_ref: list[bool] = []
    for hyp, refs in zip(hypotheses, references, strict=True):
        texts.append(hyp)
        texts += refs
        is_ref.append(False)
        is_ref += [True] * len(refs)
    refs_mask = np.asarray(is_ref, dtype=bool)
    if ref_vocab is vocab:
        tokens, lens = _line_ids(vocab, texts)
    else:
        tokens, lens = _by_side_ids(vocab, ref_vocab, texts, np.flatnonzero(~refs_mask))
    names = vocab.tokens.ids(list(named)) if named else np.zeros(0, dtype=np.int64)
    return tokens[tokens != 0], lens, refs_mask, names


def _line_ids(vocab: Vocabulary, lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(token ids of ``lines``, each followed by the sentinel 0; tokens per line)."""
    lines = vocab.texts(lines)
    parts = [vocab.ids(lines[i : i + BATCH]) for i in range(0, len(lines), BATCH)]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _by_side_ids(
    hyp_vocab: Vocabulary, ref_vocab: Vocabulary, lines: list[str], hyp_at: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_line_ids` of texts whose hypotheses (at ``hyp_at``) and references are
    tokenized by their own side's rules, back in text order."""
    is_hyp = np.zeros(len(lines), dtype=bool)
    is_hyp[hyp_at] = True
    return _in_text_order(
        _line_ids(hyp_vocab, [lines[i] for i in np.flatnonzero(is_hyp).tolist()]),
        _line_ids(ref_vocab, [lines[i] for i in np.flatnonzero(~is_hyp).tolist()]),
        hyp_at,
    )


#: The references whose token ids are kept (``(vocabulary, references, ids, lengths)``) and
#: the last references met once (``(vocabulary, references)``): one set of ids in the process,
#: so memory holds one test set's references however many tokenizations a run counts.
_KEPT: list[tuple[Any, ...] | None] = [None, None]


def _kept_reference_ids(
    vocab: Vocabulary, references: Sequence[Sequence[str]]
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_line_ids` of every reference text (segment by segment, in listed order) when
    ``vocab`` counted the same references just before (the second count makes and keeps them,
    the next ones reuse them); ``None`` the first time, when the count tokenizes them chunk by
    chunk with the hypotheses."""
    for slot in _KEPT:
        if (
            slot is not None
            and slot[0] is vocab
            and (slot[1] is references or slot[1] == references)
        ):
            if len(slot) == 4:
                return slot[2], slot[3]
            ids, lens = _line_ids(vocab, [r for refs in references for r in refs])
            _KEPT[:] = [(vocab, references, ids, lens), None]
            return ids, lens
    _KEPT[1] = (vocab, references)
    return None


def forget_references() -> None:
    """Drop the kept references' token ids (:func:`_kept_reference_ids`)."""
    _KEPT[:] = [None, None]


def _in_text_order(
    hyps: tuple[np.ndarray, np.ndarray], refs: tuple[np.ndarray, np.ndarray], hyp_at: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The token ids (each text followed by the sentinel) and lengths of the hypotheses and
    of the references, each as :func:`_line_ids` gives them, merged into text order: the
    hypotheses at ``hyp_at``, the references in the places between."""
    n_texts = len(hyps[1]) + len(refs[1])
    is_hyp = np.zeros(n_texts, dtype=bool)
    is_hyp[hyp_at] = True
    lens = np.empty(n_texts, dtype=np.int64)
    lens[is_hyp], lens[~is_hyp] = hyps[1], refs[1]
    span = lens + 1
    start = np.cumsum(span) - span  # where each text's ids begin in text order
    tokens = np.empty(int(span.sum()), dtype=np.int64)
    # the hypotheses' positions (the smaller part) placed, the references fill the rest in
    # order: each text's ids are contiguous in both orders
    ids, n = hyps
    own = n + 1
    offset = np.arange(len(ids)) - np.repeat(np.cumsum(own) - own, own)
    at_hyp = np.zeros(len(tokens), dtype=bool)
    at = np.repeat(start[is_hyp], own) + offset
    at_hyp[at] = True
    tokens[at] = ids
    tokens[~at_hyp] = refs[0]
    return tokens, lens
