"""Vectorised sufficient statistics: tokenize each distinct word once, count n-grams in bulk.

This is the fast path behind :func:`harness.bleu.engine.compute_statistics`; it returns exactly the
numbers of the per-segment Python reference (``engine._statistics_reference``), which
``tests/test_fastpath.py`` checks on generated corpora.

Algorithm
---------
1. **Tokens from distinct words.** What a tokenizer allows is read from its registry entry
   (:class:`harness.bleu.tokenizers.TokenizerSpec`). Most tokenizers are *word-local*
   (``locality="word"``): a line's tokens are its whitespace-separated words' tokens in order
   (13a, none, whitespace, ascii-whitespace, codexglue, jury, parlai, fairseq's two sides),
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
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from harness.bleu import native
from harness.bleu import tokenizers as _tok
from harness.bleu.sortcount import DoesNotFit, count_range

__all__ = [
    "CHUNK",
    "DoesNotFit",
    "batch_tokens",
    "count_statistics",
    "shared_token_ids",
    "text_token_ids",
]

#: Target positions (hypothesis + reference tokens) per chunk. Time is flat from 2**16 to
#: 2**18 here; the smaller chunk keeps the counting temporaries (and the helper thread's
#: malloc arena) small.
CHUNK = 1 << 16
#: Distinct texts tokenized per batch before their tokens become ids.
BATCH = 2048
#: From this many segments on, counting runs in a helper thread beside tokenizing.
_PIPELINE_MIN_SEGMENTS = 2000
#: Ends every line in a batch's flat token list (a string batch never contains it).
_SEP = "\x00"


# ====================================================================== tokenization
#: An ``edges`` tokenizer's lines are wrapped in ``_FIRST`` … ``_LAST`` before they are split,
#: so a word's key says which variant it is: each rule looks one character around a mark and
#: whitespace is neither a mark nor a number, so a word inside a line is tokenized as
#: `` word `` and a word that starts (ends) the line without a space before (after) it as
#: ``word`` on that side (after the rules' right-strip, as for a line tokenized whole). A line
#: that holds either marker is tokenized whole.
_FIRST, _LAST = "\x02", "\x03"


def _edge_words(lines_batch: _tok.BatchLines, next_word: str = "") -> _tok.BatchWords:
    """The batch word tokenizer of an ``edges`` tokenizer: every (marked) word's tokens, each
    word's followed by ``_SEP``, from one call of its batch line tokenizer on their variants.
    ``next_word``: follows (after a space) a word that does not end its line; its one token,
    the variant's last, is dropped."""
    after = f" {next_word}" if next_word else " "

    def batch(words: Sequence[str]) -> list[str]:
        variants = []
        ends = []
        for word in words:
            first, last = word.startswith(_FIRST), word.endswith(_LAST)
            core = word[first : len(word) - last]
            variants.append(("" if first else " ") + core + ("" if last else after))
            ends.append(last)
        out: list[str] = []
        for tokens, last in zip(lines_batch(variants), ends, strict=True):
            if next_word and not last:
                if not tokens or tokens[-1] != next_word:
                    raise RuntimeError(f"the neutral word {next_word!r} was not one token")
                tokens = tokens[:-1]
            out += tokens
            out.append(_SEP)
        return out

    return batch


#: Starts the word-table key of a line tokenized whole. ``str.split`` words hold no
#: whitespace, so no word key starts with it, and a plain ``str`` key hashes at C speed.
_LINE_KEY = " "


class _TokenTable:
    """Token ids of one count (shared by its vocabularies): 0 is the sentinel, no token; 1 is
    ``_SEP``; every other token gets the next id when first met. A compiled table where the
    kernels are built, else a dict."""

    def __init__(self, kernels: Any) -> None:
        self._table = None if kernels is None else kernels.WordTable()
        self._dict: defaultdict[str | None, int] = defaultdict(itertools.count().__next__)
        if self._table is not None:
            self._table.reserve()  # the sentinel
            self._table.ids([_SEP], False)
        else:
            self._dict[None]
            self._dict[_SEP]

    def ids(self, tokens: Sequence[str]) -> np.ndarray:
        """The id of every token, new ones numbered in order of first appearance."""
        if self._table is not None:
            raw, _ = self._table.ids(tokens, False)
            return np.frombuffer(raw, dtype=np.int64)
        return np.fromiter(map(self._dict.__getitem__, tokens), np.int64, len(tokens))

    def __len__(self) -> int:
        return len(self._dict) if self._table is None else len(self._table)

    def names(self) -> list[str | None]:
        """Every token by id (``None`` for the sentinel)."""
        return list(self._dict) if self._table is None else self._table.keys()


class _Vocabulary:
    """Token ids of a corpus, and every distinct word's (or whole line's) token ids.

    Lines are split into words (``str.split``, C speed); a word met for the first time is
    tokenized once and its tokens given ids; a line becomes ids by looking its words up. Word
    id 0 is ``_SEP``, which ends every line with the sentinel token id 0 (the id of ``None``,
    never a token).
    """

    def __init__(self, rules: _tok.TextRules) -> None:
        spec = self.spec = _tok.spec_of(rules.tokenize)
        self.rules = rules
        # edge-aware word-local tokenizers split with str.split only
        self.edges = spec.locality == "edges" and rules.whitespace == "unicode"
        self.edge_rstrip = self.edges and rules.strip == "rstrip"
        self.word_local = spec.locality == "word" or self.edges
        edge_batch = spec.edge_batch or spec.batch_lines
        self.split_word: _tok.BatchWords | None = (
            _edge_words(edge_batch, spec.edge_next_word)
            if self.edges and edge_batch is not None
            else spec.batch_words
        )
        self.avoid: tuple[str, ...] = spec.whole_line_marks()
        self.whole_line: Callable[[Sequence[str]], list[bool]] | None = (
            spec.whole_line_when() if self.edges and spec.whole_line_when is not None else None
        )
        if self.edges:
            self.avoid += (_FIRST, _LAST)
        if rules.whitespace == "perl":
            # str.split separates on these, Perl's \s does not: such lines are tokenized whole
            self.avoid += tuple(_tok.PYTHON_ONLY_SPACE)
        # ASCII marks are looked for one by one (a fast substring search each); the others,
        # single characters in all the registry's entries, with one class and only in text
        # that is not ASCII (which a str knows without a scan)
        self._ascii_marks = tuple(c for c in self.avoid if c.isascii())
        others = tuple(c for c in self.avoid if not c.isascii())
        self._other_marks = others if any(len(c) != 1 for c in others) else ()
        self._other_class = (
            re.compile(f"[{re.escape(''.join(others))}]")
            if others and not self._other_marks
            else None
        )
        # Lowercasing rules that act on the tokens (ascii, perl) are applied when a token
        # gets its id; the unicode rule lowercases the lines before (count_statistics).
        self.token_case = rules.token_case
        self.empty_line = spec.empty_line_token if self.word_local else None
        self.kernels = kernels = native.module()
        self.tokens = _TokenTable(kernels)
        self.sentinel, self.separator = 0, 1  # token ids: no token; the end of a batch's word
        self.words: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self.words[_SEP]  # word id 0
        # the compiled word table, when built: ids without a str object per known word
        self.table = None if kernels is None else kernels.WordTable()
        if self.table is not None:
            self.table.ids([_SEP], False)  # word id 0
        self.word_start = np.zeros(1024, dtype=np.int64)
        self.word_len = np.zeros(1024, dtype=np.int64)
        self.word_len[0] = 1  # _SEP ends every line as token 0
        self.flat = np.zeros(4096, dtype=np.int64)
        self.n_words = 1  # words whose tokens are known
        self.n_flat = 1

    def _words_of(self, lines: Sequence[str], whole: Sequence[bool] | None = None) -> list[str]:
        """Every line's words (or ``_LINE_KEY`` + the line, to be tokenized whole), each line
        then ``_SEP``. ``whole``: which lines are tokenized whole, when known
        (:meth:`_whole_lines`)."""
        if self.word_local and whole is None:
            joined = f" {_SEP} ".join(lines) + f" {_SEP}"
            whole = self._whole_lines(lines, joined)
            if whole is None and joined.count(_SEP) == len(lines):
                if self.edges:
                    joined = f" {_SEP} ".join(self._marked(lines)) + f" {_SEP}"
                return joined.split()
        flat: list[str] = []
        for k, line in enumerate(lines):
            if self.word_local and _SEP not in line and not (whole is not None and whole[k]):
                flat += self._marked([line])[0].split()
            else:
                flat.append(_LINE_KEY + line)
            flat.append(_SEP)
        return flat

    def _has_mark(self, text: str) -> bool:
        """Whether ``text`` holds one of the marks that send a line to be tokenized whole."""
        if any(c in text for c in self._ascii_marks):
            return True
        if text.isascii():
            return False
        if self._other_class is not None:
            return self._other_class.search(text) is not None
        return any(c in text for c in self._other_marks)

    def _whole_lines(self, lines: Sequence[str], joined: str) -> list[bool] | None:
        """Which of ``lines`` (``joined``: their text together, to look for marks once) a
        word-local tokenizer tokenizes whole: those holding one of its marks and those its
        ``whole_line`` test names. ``None`` when there is none."""
        marked = self._has_mark(joined)
        if not marked and self.whole_line is None:
            return None
        whole = [self._has_mark(line) for line in lines] if marked else [False] * len(lines)
        if self.whole_line is not None:
            whole = [a or b for a, b in zip(whole, self.whole_line(lines), strict=True)]
        return whole if any(whole) else None

    def _marked(self, lines: Sequence[str]) -> Sequence[str]:
        """``lines`` as they are split into words: for an ``edges`` tokenizer, (right-
        stripped where its rules say so and) wrapped in ``_FIRST`` … ``_LAST``."""
        if not self.edges:
            return lines
        if self.edge_rstrip:
            return [f"{_FIRST}{line.rstrip()}{_LAST}" for line in lines]
        return [f"{_FIRST}{line}{_LAST}" for line in lines]

    def _learn(self, new_words: list[str], words_only: bool = False) -> None:
        """Tokenize words seen for the first time (in word-id order) and store their ids;
        ``words_only``: none of them is a whole line (the caller split every line)."""
        if words_only:
            plain = new_words
            is_line = np.zeros(len(new_words), dtype=bool)
        else:
            is_line = np.fromiter(
                (w.startswith(_LINE_KEY) for w in new_words), dtype=bool, count=len(new_words)
            )
            plain = [w for w in new_words if not w.startswith(_LINE_KEY)]
        if self.split_word is not None and plain:
            ids = self.token_ids(self.split_word(plain))
            ends = np.flatnonzero(ids == self.separator)
            plain_len = np.diff(ends, prepend=-1) - 1
            plain_ids = np.delete(ids, ends)
        else:
            plain_len = np.ones(len(plain), dtype=np.int64)
            plain_ids = self.token_ids(plain)
        if len(plain) == len(new_words):
            lens, ids = plain_len, plain_ids
        else:  # whole lines among them: all their tokens get ids at once, merged in word order
            line_tok = _tok.text_tokenizer(
                _tok.TextRules(
                    tokenize=self.rules.tokenize,
                    strip=self.rules.strip,
                    whitespace=self.rules.whitespace,
                )
            )
            lines = [w[1:] for w in new_words if w.startswith(_LINE_KEY)]
            batch = self.spec.batch_lines is not None and self.rules.whitespace == "unicode"
            if self.rules.strip == "rstrip":
                lines = list(map(str.rstrip, lines))
            if batch and not any("\n" in line for line in lines):
                line_tokens = _tok.batch_lines_tokens(self.rules.tokenize, lines)
            else:
                line_tokens = [line_tok(line) for line in lines]
            line_len = np.fromiter(map(len, line_tokens), np.int64, len(line_tokens))
            line_ids = self.token_ids(list(itertools.chain.from_iterable(line_tokens)))
            lens = np.empty(len(new_words), dtype=np.int64)
            lens[~is_line] = plain_len
            lens[is_line] = line_len
            ids = np.empty(int(lens.sum()), dtype=np.int64)
            start = np.cumsum(lens) - lens  # where each new word's ids go
            for where, n, values in (
                (~is_line, plain_len, plain_ids),
                (is_line, line_len, line_ids),
            ):
                offset = np.arange(len(values)) - np.repeat(np.cumsum(n) - n, n)
                ids[np.repeat(start[where], n) + offset] = values
        lo, hi = self.n_words, self.n_words + len(new_words)
        if hi > len(self.word_len):
            size = max(hi, 2 * len(self.word_len))
            self.word_len = np.resize(self.word_len, size)
            self.word_start = np.resize(self.word_start, size)
        if self.n_flat + len(ids) > len(self.flat):
            self.flat = np.resize(self.flat, max(self.n_flat + len(ids), 2 * len(self.flat)))
        self.word_len[lo:hi] = lens
        self.word_start[lo:hi] = self.n_flat + np.cumsum(lens) - lens
        self.flat[self.n_flat : self.n_flat + len(ids)] = ids
        self.n_words, self.n_flat = hi, self.n_flat + len(ids)

    def token_ids(self, tokens: list[str]) -> np.ndarray:
        """The ids of ``tokens``, lowercased first where the rules lowercase tokens."""
        if self.token_case is not None:
            tokens = list(map(self.token_case, tokens))
        return self.tokens.ids(tokens)

    def _word_ids(self, lines: Sequence[str]) -> np.ndarray:
        """The word ids of ``lines`` (:meth:`_words_of`'s words), learning new words."""
        if self.table is not None:
            joined = "".join(lines)
            whole = None
            split = self.word_local and _SEP not in joined
            if split:
                whole = self._whole_lines(lines, joined)
                split = whole is None
            if split:  # split in C, no str per known word
                raw, fresh = self.table.ids(self._marked(lines), True)
            elif whole is not None:  # the lines tokenized word by word still split in C
                return self._mixed_ids(lines, whole)
            else:
                raw, fresh = self.table.ids(self._words_of(lines, whole), False)
            if fresh:  # new words, in id order
                self._learn(fresh, words_only=split)
            return np.frombuffer(raw, dtype=np.int64)
        words = self._words_of(lines)
        wids = np.fromiter(map(self.words.__getitem__, words), np.int64, len(words))
        if len(self.words) > self.n_words:
            fresh_at = np.flatnonzero(wids >= self.n_words)
            _, first = np.unique(wids[fresh_at], return_index=True)
            self._learn([words[i] for i in fresh_at[first].tolist()])
        return wids

    def _mixed_ids(self, lines: Sequence[str], whole: Sequence[bool]) -> np.ndarray:
        """:meth:`_word_ids` of lines (none holding ``_SEP``) of which those marked ``whole``
        are tokenized whole: the others are split in C, each part's new words learnt in turn,
        and the two parts' ids put back in line order."""
        table = self.table
        assert table is not None  # the compiled word table's path
        second = np.asarray(whole, dtype=bool)
        parts = []
        split = [line for line, w in zip(lines, whole, strict=True) if not w]
        keys = [
            key
            for line, w in zip(lines, whole, strict=True)
            if w
            for key in (_LINE_KEY + line, _SEP)
        ]
        for texts, by_word in ((split, True), (keys, False)):
            if not texts:
                parts.append(np.zeros(0, dtype=np.int64))
                continue
            raw, fresh = table.ids(self._marked(texts) if by_word else texts, by_word)
            if fresh:
                self._learn(fresh, words_only=by_word)
            parts.append(np.frombuffer(raw, dtype=np.int64))
        return _interleave(parts[0], parts[1], second)

    def ids(self, lines: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(flat token ids of ``lines``, each line followed by the sentinel 0; tokens per line)."""
        wids = self._word_ids(lines)
        if self.kernels is not None:
            raw_tokens, raw_lens = self.kernels.gather(
                wids, self.word_start[: self.n_words], self.word_len[: self.n_words], self.flat
            )
            tokens = np.frombuffer(raw_tokens, np.int64)
            line_len = np.frombuffer(raw_lens, np.int64)
        else:
            lens = self.word_len[wids]
            ends = np.cumsum(lens)
            total = int(ends[-1]) if len(ends) else 0
            tokens = self.flat[
                np.repeat(self.word_start[wids] - (ends - lens), lens) + np.arange(total)
            ]
            line_len = np.diff(ends[wids == 0], prepend=0) - 1
        if self.empty_line is not None and not line_len.all():
            # a line whose words gave no token gets the tokenizer's one token, before its
            # sentinel (a line tokenized whole already has it)
            empty = np.flatnonzero(line_len == 0)
            sentinel_at = np.cumsum(line_len + 1) - 1
            token = int(self.token_ids([self.empty_line])[0])
            tokens = np.insert(tokens, sentinel_at[empty], token)
            line_len = line_len.copy()
            line_len[empty] = 1
        return tokens, line_len


def batch_tokens(
    lines: Sequence[str], tokenize: str | _tok.TextRules, lowercase: bool = False
) -> list[list[str]]:
    """The tokens of every line, as the fast path sees them (for tests).

    Equal, line by line, to :func:`harness.bleu.tokenizers.text_tokenizer` of the same rules
    (``tests/test_fastpath.py``); a tokenizer name means the default rules.
    """
    rules = (
        tokenize
        if isinstance(tokenize, _tok.TextRules)
        else _tok.TextRules(tokenize=tokenize, lowercase=lowercase)
    )
    vocab = _Vocabulary(rules)
    if rules.line_case is not None:
        lines = list(map(rules.line_case, lines))
    tokens, lens = vocab.ids(lines)
    names = vocab.tokens.names()
    out, pos = [], 0
    for n in lens.tolist():
        out.append([names[i] for i in tokens[pos : pos + n].tolist()])
        pos += n + 1
    return out


def shared_token_ids(
    groups: Sequence[tuple[Sequence[str], _tok.TextRules]],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Token ids of several groups of lines, each with its own rules, in one id space.

    Per group ``(flat token ids, every line followed by the sentinel 0; tokens per line)``, as
    :meth:`_Vocabulary.ids` gives them; equal tokens get equal ids across groups (the groups
    share one token table), so hypotheses and references tokenized by side still match.
    """
    vocabs: dict[_tok.TextRules, _Vocabulary] = {}
    table: _TokenTable | None = None
    out = []
    for lines, rules in groups:
        vocab = vocabs.get(rules)
        if vocab is None:
            vocab = vocabs[rules] = _Vocabulary(rules)
            if table is None:
                table = vocab.tokens
            else:  # the sentinel and _SEP are ids 0 and 1 in both
                vocab.tokens = table
        if rules.line_case is not None:
            lines = list(map(rules.line_case, lines))
        parts = [vocab.ids(lines[i : i + BATCH]) for i in range(0, len(lines), BATCH)]
        if not parts:
            out.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)))
            continue
        out.append((np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])))
    return out


# ====================================================================== counting
def count_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    rules: _tok.TextRules,
    max_order: int,
    *,
    chunk: int = CHUNK,
    vocabularies: dict[_tok.TextRules, _Vocabulary] | None = None,
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
    counter = ThreadPoolExecutor(1) if s_count >= _PIPELINE_MIN_SEGMENTS else None
    kernels = native.module()
    counting: list[Future[None]] = []
    s0 = 0
    while s0 < s_count:
        lines: list[str] = []
        budget = chunk * chars_per_token
        s1 = s0
        while s1 < s_count and budget > 0:
            lines.append(hypotheses[s1])
            lines += references[s1]
            budget -= len(hypotheses[s1]) + sum(map(len, references[s1])) + 1
            s1 += 1
        o0 = int(occ_start[s0])
        occ_seg = occ_start[s0:s1] - o0
        if ref_vocab is vocab:
            tokens, chunk_lens = _line_ids(vocab, lines)
        else:
            tokens, chunk_lens = _by_side_ids(vocab, ref_vocab, lines, occ_seg)
        lens[o0 : o0 + len(chunk_lens)] = chunk_lens
        chars_per_token = max(1.0, sum(map(len, lines)) / max(1, len(tokens)))
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
    if counter is not None:
        try:
            for done in counting:
                done.result()  # DoesNotFit from a chunk is raised here
        finally:
            counter.shutdown(cancel_futures=True)
    is_ref = np.ones(n_occ, dtype=bool)
    is_ref[occ_start] = False
    return lens[occ_start], lens[is_ref], k, matches


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
    rules: _tok.TextRules, vocabs: dict[_tok.TextRules, _Vocabulary]
) -> tuple[_Vocabulary, _Vocabulary]:
    """The hypothesis and reference vocabularies of ``rules`` (one and the same unless the
    sides are tokenized differently), kept in ``vocabs``.

    Both sides must give a token the same id: a kept reference-side vocabulary that was paired
    with another hypothesis side (another tokenization sharing this reference rule) has other
    token ids, and is replaced by one sharing this hypothesis side's tokens."""

    def vocabulary(side_rules: _tok.TextRules, table: _Vocabulary | None = None) -> _Vocabulary:
        found = vocabs.get(side_rules)
        if found is None or (table is not None and found.tokens is not table.tokens):
            found = vocabs[side_rules] = _Vocabulary(side_rules)
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
    vocabularies: dict[_tok.TextRules, _Vocabulary] | None = None,
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


def _interleave(first: np.ndarray, second: np.ndarray, from_second: np.ndarray) -> np.ndarray:
    """Two id arrays of lines (each line ended by 0) merged into line order: line ``k`` is the
    next line of ``second`` where ``from_second[k]``, else the next of ``first``."""
    lens = np.empty(len(from_second), dtype=np.int64)
    spans = []
    for ids, where in ((first, ~from_second), (second, from_second)):
        n = np.diff(np.flatnonzero(ids == 0), prepend=-1)
        lens[where] = n
        spans.append((ids, n, where))
    start = np.cumsum(lens) - lens
    out = np.empty(int(lens.sum()), dtype=np.int64)
    for ids, n, where in spans:
        offset = np.arange(len(ids)) - np.repeat(np.cumsum(n) - n, n)
        out[np.repeat(start[where], n) + offset] = ids
    return out


def _line_ids(vocab: _Vocabulary, lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(token ids of ``lines``, each followed by the sentinel 0; tokens per line)."""
    if vocab.rules.line_case is not None:
        lines = list(map(vocab.rules.line_case, lines))
    parts = [vocab.ids(lines[i : i + BATCH]) for i in range(0, len(lines), BATCH)]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _by_side_ids(
    hyp_vocab: _Vocabulary, ref_vocab: _Vocabulary, lines: list[str], hyp_at: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_line_ids` of a chunk's texts whose hypotheses (at ``hyp_at``) and references
    are tokenized by their own side's rules, back in text order."""
    is_hyp = np.zeros(len(lines), dtype=bool)
    is_hyp[hyp_at] = True
    hyp_idx, ref_idx = np.flatnonzero(is_hyp).tolist(), np.flatnonzero(~is_hyp).tolist()
    lens = np.empty(len(lines), dtype=np.int64)
    parts = []
    for vocab, where in ((hyp_vocab, hyp_idx), (ref_vocab, ref_idx)):
        ids, n = _line_ids(vocab, [lines[i] for i in where])
        lens[where] = n
        parts.append((ids, n, where))
    span = lens + 1
    start = np.cumsum(span) - span  # where each text's ids begin in text order
    tokens = np.empty(int(span.sum()), dtype=np.int64)
    for ids, n, where in parts:
        own = n + 1
        offset = np.arange(len(ids)) - np.repeat(np.cumsum(own) - own, own)
        tokens[np.repeat(start[where], own) + offset] = ids
    return tokens, lens
