"""The fast path's tokens: each distinct word (or line) tokenized once, its tokens kept as ids.

A :class:`Vocabulary` belongs to one set of text rules. It splits a batch of lines into words,
gives each word an id, tokenizes only the words it has not seen (many at a time, by the
tokenizer entry's batch forms, :class:`harness.bleu.tokenizer_spec.TokenizerSpec`), stores a
word's token ids once and gathers a line's token ids from them; lines a word cannot stand for
are tokenized whole, and tokenizers that are not word-local tokenize each distinct line once.
Vocabularies kept across counts (:class:`Vocabularies`) whose rules split the lines as given
with ``str.split`` share one word table and the word ids of the batches it split
(:class:`SharedWords`); each still tokenizes every word by its own rules.
How the rules decide what is word-local: :mod:`harness.bleu.fastcount`, which counts n-grams
over these ids, and ``docs/profiles.md``. :func:`batch_tokens` shows the tokens as strings
(the tests compare them with the line tokenizers).
"""

from __future__ import annotations

import itertools
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from harness.bleu import native
from harness.bleu import tokenizers as _tok
from harness.bleu.edge_words import FIRST as _FIRST
from harness.bleu.edge_words import LAST as _LAST
from harness.bleu.edge_words import edge_words as _edge_words
from harness.bleu.tokenizer_spec import BatchWords

#: Distinct texts tokenized per batch before their tokens become ids.
BATCH = 2048


#: Ends every line in a batch's flat token list (a string batch never contains it).
_SEP = "\x00"


#: Starts the word-table key of a line tokenized whole. ``str.split`` words hold no
#: whitespace, so no word key starts with it, and a plain ``str`` key hashes at C speed.
_LINE_KEY = " "
_IS_LINE_KEY = operator.methodcaller("startswith", _LINE_KEY)


class TokenTable:
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


#: Word ids of line batches kept by a :class:`SharedWords` (8 bytes each).
SHARED_BATCH_IDS = 1 << 22

#: Line batches a :class:`SharedWords` remembers having split once (their lines, not ids).
SHARED_BATCHES_SEEN = 4096


class SharedWords:
    """One compiled word table for the vocabularies that split the lines as given with
    ``str.split`` (:attr:`Vocabulary.shared`), every word it holds listed in id order (each
    vocabulary learns the words it has not yet tokenized from the list), and the word ids of
    line batches it split, by the batch's lines: a run counts each system under many such text
    rules in the same batches, and splits and looks up its words once."""

    def __init__(self, kernels: Any) -> None:
        self.table = kernels.WordTable()
        self.table.ids([_SEP], False)  # word id 0
        self.words: list[str] = [_SEP]
        self._batches: dict[tuple[str, ...], np.ndarray] = {}
        self._batch_ids = 0
        self._seen: dict[tuple[str, ...], None] = {}

    def ids(self, texts: Sequence[str], by_word: bool) -> np.ndarray:
        """The word ids of ``texts`` (split first where ``by_word``), new words listed. A
        batch's ids are kept from its second split on: a batch split once (one count of a
        corpus) keeps nothing beyond the count, one split twice is a run's, split again by
        its next text rules."""
        if by_word:
            key = tuple(texts)
            found = self._batches.get(key)
            if found is not None:
                return found
        raw, fresh = self.table.ids(texts, by_word)
        if fresh:
            self.words += fresh
        ids = np.frombuffer(raw, dtype=np.int64)
        if by_word:
            if key not in self._seen:
                self._seen[key] = None
                if len(self._seen) > SHARED_BATCHES_SEEN:
                    del self._seen[next(iter(self._seen))]
                return ids
            self._batches[key] = ids
            self._batch_ids += len(ids)
            while self._batch_ids > SHARED_BATCH_IDS and len(self._batches) > 1:
                self._batch_ids -= len(self._batches.pop(next(iter(self._batches))))
        return ids


class Vocabularies(dict[_tok.TextRules, "Vocabulary"]):
    """Vocabularies kept across counts, by text rules, with the word table the ones that
    split lines alike share (:class:`SharedWords`, made with the first that needs it)."""

    def __init__(self) -> None:
        super().__init__()
        self.words: SharedWords | None = None

    def shared_words(self) -> SharedWords | None:
        """The shared word table (``None`` without the compiled kernels)."""
        kernels = native.module()
        if self.words is None and kernels is not None:
            self.words = SharedWords(kernels)
        return self.words

    def clear(self) -> None:
        """Forget every vocabulary and the shared word table."""
        super().clear()
        self.words = None

    def trim(self, limit: int) -> None:
        """Keep at most ``limit`` words: everything is dropped once the shared table holds
        more, else the oldest vocabularies go first."""
        if self.words is not None and len(self.words.words) > limit:
            self.clear()
        while len(self) > 1 and sum(v.n_words for v in self.values()) > limit:
            del self[next(iter(self))]


class Vocabulary:
    """Token ids of a corpus, and every distinct word's (or whole line's) token ids.

    Lines are split into words (``str.split``, C speed); a word met for the first time is
    tokenized once and its tokens given ids; a line becomes ids by looking its words up. Word
    id 0 is ``_SEP``, which ends every line with the sentinel token id 0 (the id of ``None``,
    never a token).
    """

    def __init__(self, rules: _tok.TextRules, words: SharedWords | None = None) -> None:
        """``words``: a word table to share, used when these rules split lines as given
        with ``str.split`` (a word-local tokenizer, ``str.split``'s whitespace, and no line
        text or one applied to each word)."""
        spec = self.spec = _tok.spec_of(rules.tokenize)
        self.rules = rules
        # edge-aware word-local tokenizers split with str.split only
        self.edges = spec.locality == "edges" and rules.whitespace == "unicode"
        self.edge_rstrip = self.edges and rules.strip == "rstrip"
        self.word_local = spec.locality == "word" or self.edges
        edge_batch = spec.edge_batch or spec.batch_lines
        self.edge_words = (
            _edge_words(edge_batch, spec.edge_next_word)
            if self.edges and edge_batch is not None
            else None
        )
        self.split_word: BatchWords | None = (
            spec.lowercased_words if rules.script_case else spec.batch_words
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
        self._mark_class = (
            re.compile(f"[{re.escape(''.join(self.avoid))}]")
            if self.avoid and all(len(c) == 1 for c in self.avoid)
            else None
        )
        # Lowercasing rules that act on the tokens (ascii, perl) are applied when a token
        # gets its id; the unicode rule lowercases the lines before (count_statistics).
        self.token_case = rules.token_case
        # What is done to a line before it is tokenized (:meth:`texts`), or to each distinct
        # word instead (``word_text``) where that gives the same tokens (:func:`per_word`)
        self.line_text = rules.line_text
        self.word_text = self.line_text if per_word(rules) else None
        self.empty_line = spec.empty_line_token if self.word_local else None
        self.kernels = kernels = native.module()
        self.tokens = TokenTable(kernels)
        self.sentinel, self.separator = 0, 1  # token ids: no token; the end of a batch's word
        self.words: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self.words[_SEP]  # word id 0
        # the compiled word table, when built: ids without a str object per known word
        self.shared = (
            words
            if words is not None
            and kernels is not None
            and spec.locality == "word"
            and rules.whitespace == "unicode"
            and (self.line_text is None or self.word_text is not None)
            else None
        )
        self.table = None if kernels is None or self.shared else kernels.WordTable()
        if self.table is not None:
            self.table.ids([_SEP], False)  # word id 0
        self.word_start = np.zeros(1024, dtype=np.int64)
        self.word_len = np.zeros(1024, dtype=np.int64)
        self.word_len[0] = 1  # _SEP ends every line as token 0
        self.flat = np.zeros(4096, dtype=np.int64)
        self.n_words = 1  # words whose tokens are known
        self._sentences: Vocabulary | None = None  # the sentences' words (_sentence_ids)
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
        whole = self._lines_with_marks(lines) if marked else [False] * len(lines)
        if self.whole_line is not None:
            whole = [a or b for a, b in zip(whole, self.whole_line(lines), strict=True)]
        return whole if any(whole) else None

    def _lines_with_marks(self, lines: Sequence[str]) -> list[bool]:
        """:meth:`_has_mark` of each line: single-character marks found in one pass over the
        lines' text, each found mark's line looked up by its offset."""
        if self._mark_class is None:
            return [self._has_mark(line) for line in lines]
        ends = np.cumsum(np.fromiter(map(len, lines), np.int64, len(lines)))
        at = [m.start() for m in self._mark_class.finditer("".join(lines))]
        whole = np.zeros(len(lines), dtype=bool)
        whole[np.searchsorted(ends, np.asarray(at, dtype=np.int64), side="right")] = True
        return whole.tolist()

    def _marked(self, lines: Sequence[str]) -> Sequence[str]:
        """``lines`` as they are split into words: for an ``edges`` tokenizer, (right-
        stripped where its rules say so and) wrapped in ``_FIRST`` … ``_LAST``."""
        if not self.edges:
            return lines
        if self.edge_rstrip:
            return [f"{_FIRST}{line.rstrip()}{_LAST}" for line in lines]
        return [f"{_FIRST}{line}{_LAST}" for line in lines]

    def _learn(self, new_words: list[str], words_only: bool = False, whole: bool = False) -> None:
        """Tokenize words seen for the first time (in word-id order) and store their ids;
        ``words_only``: none is a whole line (the caller split every line); ``whole``: all."""
        if words_only:
            plain = new_words
            is_line = np.zeros(len(new_words), dtype=bool)
        elif not self.word_local or whole:  # every key a whole line's
            plain = []
            is_line = np.ones(len(new_words), dtype=bool)
        else:
            is_line = np.fromiter(map(_IS_LINE_KEY, new_words), dtype=bool, count=len(new_words))
            plain = (
                list(itertools.compress(new_words, (~is_line).tolist()))
                if is_line.any()
                else new_words
            )
        if self.word_text is not None and plain:
            plain_len, plain_ids = self._word_text_ids(plain)
        elif self.edge_words is not None and plain:
            plain_len, tokens = self.edge_words(plain)
            plain_ids = self.token_ids(tokens)
        elif self.split_word is not None and plain:
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
                    # a script's own lowercasing is inside its line function; every other
                    # rule was applied to the lines or is applied to the tokens
                    lowercase=self.rules.script_case,
                    lowercase_rule="script",
                )
            )
            lines = [w[1:] for w in new_words if w.startswith(_LINE_KEY)]
            if self.word_text is not None:
                lines = list(map(self.word_text, lines))
            batch = self.spec.batch_lines is not None and self.rules.whitespace == "unicode"
            if self.rules.strip == "rstrip":
                lines = list(map(str.rstrip, lines))
            lowercased = self.spec.lowercased_batch if self.rules.script_case else None
            if lowercased is not None and self.rules.whitespace == "unicode":
                line_len, line_ids = self._string_ids(lowercased(lines))
            elif batch and self.spec.sentences is not None and self.token_case is None:
                line_len, line_ids = self._sentence_ids(lines)
            else:
                if batch and (self.spec.batch_newlines or all("\n" not in x for x in lines)):
                    line_tokens = _tok.batch_lines_tokens(self.rules.tokenize, lines)
                else:
                    line_tokens = [line_tok(line) for line in lines]
                line_len, line_ids = self._string_ids(line_tokens)
            lens, ids = _merged(is_line, (plain_len, plain_ids), (line_len, line_ids))
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

    def _string_ids(self, line_tokens: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """(tokens per line, their ids) of lines given as token strings."""
        line_len = np.fromiter(map(len, line_tokens), np.int64, len(line_tokens))
        return line_len, self.token_ids(list(itertools.chain.from_iterable(line_tokens)))

    def _sentence_ids(self, lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(tokens per line, their ids) of whole texts of a tokenizer with ``sentences``
        (:class:`~harness.bleu.tokenizer_spec.TokenizerSpec`): each text's sentences through a
        vocabulary of ``sentence_words`` sharing this one's token table (every distinct word
        tokenized once), the texts it gives no sentences for by ``batch_lines``."""
        split = self.spec.sentences(lines)  # type: ignore[misc]
        inner = self._sentences
        if inner is None or inner.tokens is not self.tokens:
            rules = _tok.TextRules(tokenize=self.spec.sentence_words, strip="none")
            inner = self._sentences = Vocabulary(rules)
            inner.tokens = self.tokens
        whole = np.fromiter((s is None for s in split), dtype=bool, count=len(split))
        counts = np.fromiter((len(s) for s in split if s is not None), np.int64)
        flat = [sentence for s in split if s is not None for sentence in s]
        tokens, sent_len = inner.ids(flat) if flat else (np.zeros(0, np.int64),) * 2
        before, last = np.concatenate([[0], np.cumsum(sent_len)]), np.cumsum(counts)
        text_len = before[last] - before[last - counts]
        text_ids = tokens[tokens != 0]  # each sentence's tokens, without its sentinel
        rest = [line for line, s in zip(lines, split, strict=True) if s is None]
        if not rest:
            return text_len, text_ids
        rest_len, rest_ids = self._string_ids(_tok.batch_lines_tokens(self.rules.tokenize, rest))
        return _merged(whole, (text_len, text_ids), (rest_len, rest_ids))

    def _word_text_ids(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(tokens per word, their ids) of ``words`` after :attr:`word_text`, which may leave
        none or several words of text: one pass of it over the words joined by `` _SEP ``
        (whitespace, which it keeps and never looks across), one call of the batch word
        tokenizer on the resulting words."""
        assert self.word_text is not None
        flat = self.word_text(f" {_SEP} ".join(words) + f" {_SEP}").split()
        ends = [i for i, part in enumerate(flat) if part == _SEP]
        per_word = np.diff(np.asarray(ends, dtype=np.int64), prepend=-1) - 1
        parts = [part for part in flat if part != _SEP]
        if self.split_word is None:  # a part is one token
            part_len = np.ones(len(parts), dtype=np.int64)
            ids = self.token_ids(parts)
        else:
            ids = self.token_ids(self.split_word(parts))
            part_ends = np.flatnonzero(ids == self.separator)
            part_len = np.diff(part_ends, prepend=-1) - 1
            ids = np.delete(ids, part_ends)
        before = np.concatenate([[0], np.cumsum(part_len)])
        last = np.cumsum(per_word)
        return before[last] - before[last - per_word], ids

    def texts(self, lines: Sequence[str]) -> Sequence[str]:
        """``lines`` as :meth:`ids` takes them: after the rules' line text (lowercasing,
        punctuation, articles), unless this vocabulary applies it to each word."""
        if self.line_text is None or self.word_text is not None:
            return lines
        return list(map(self.line_text, lines))

    def token_ids(self, tokens: list[str]) -> np.ndarray:
        """The ids of ``tokens``, lowercased first where the rules lowercase tokens."""
        if self.token_case is not None:
            tokens = list(map(self.token_case, tokens))
        return self.tokens.ids(tokens)

    def _word_ids(self, lines: Sequence[str]) -> np.ndarray:
        """The word ids of ``lines`` (:meth:`_words_of`'s words), learning new words."""
        if self.table is not None or self.shared is not None:
            joined = "".join(lines)
            whole = None
            split = self.word_local and _SEP not in joined
            if split:
                whole = self._whole_lines(lines, joined)
                split = whole is None
            if split:  # split in C, no str per known word
                return self._lookup(self._marked(lines), True)
            if whole is not None:  # the lines tokenized word by word still split in C
                return self._mixed_ids(lines, whole)
            return self._lookup(self._words_of(lines, whole), False)
        words = self._words_of(lines)
        wids = np.fromiter(map(self.words.__getitem__, words), np.int64, len(words))
        if len(self.words) > self.n_words:
            fresh_at = np.flatnonzero(wids >= self.n_words)
            _, first = np.unique(wids[fresh_at], return_index=True)
            self._learn([words[i] for i in fresh_at[first].tolist()])
        return wids

    def _lookup(self, texts: Sequence[str], by_word: bool, lines: bool = False) -> np.ndarray:
        """The word ids of ``texts`` (split first where ``by_word``) from the compiled word
        table, its own or the shared one, learning the words not yet tokenized (in id order:
        from the shared table, also those other vocabularies added before its last word);
        ``lines``: every text is a whole line's key."""
        if self.shared is not None:
            ids = self.shared.ids(texts, by_word)
            # up to the batch's last word (ids count up in order of first appearance)
            last = int(ids.max()) + 1 if len(ids) else 0
            if last > self.n_words:
                self._learn(self.shared.words[self.n_words : last])
            return ids
        assert self.table is not None  # the compiled word table's path
        raw, fresh = self.table.ids(texts, by_word)
        if fresh:  # new words, in id order
            self._learn(fresh, words_only=by_word, whole=lines)
        return np.frombuffer(raw, dtype=np.int64)

    def _mixed_ids(self, lines: Sequence[str], whole: Sequence[bool]) -> np.ndarray:
        """:meth:`_word_ids` of lines (none holding ``_SEP``) of which those marked ``whole``
        are tokenized whole: the others are split in C, each part's new words learnt in turn,
        and the two parts' ids put back in line order."""
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
            parts.append(
                self._lookup(self._marked(texts) if by_word else texts, by_word, not by_word)
            )
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
    vocab = Vocabulary(rules)
    tokens, lens = vocab.ids(vocab.texts(lines))
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
    :meth:`Vocabulary.ids` gives them; equal tokens get equal ids across groups (the groups
    share one token table), so hypotheses and references tokenized by side still match.
    """
    vocabs: dict[_tok.TextRules, Vocabulary] = {}
    table: TokenTable | None = None
    out = []
    for lines, rules in groups:
        vocab = vocabs.get(rules)
        if vocab is None:
            vocab = vocabs[rules] = Vocabulary(rules)
            if table is None:
                table = vocab.tokens
            else:  # the sentinel and _SEP are ids 0 and 1 in both
                vocab.tokens = table
        lines = vocab.texts(lines)
        parts = [vocab.ids(lines[i : i + BATCH]) for i in range(0, len(lines), BATCH)]
        if not parts:
            out.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)))
            continue
        out.append((np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])))
    return out


def per_word(rules: _tok.TextRules) -> bool:
    """Whether ``rules``' line text (:attr:`TextRules.line_text`) gives every line the tokens
    it gives when applied to each of the line's ``str.split`` words alone: for a word-local
    tokenizer splitting on ``str.split``'s whitespace, with steps that neither make nor remove
    whitespace and never look across it (``str.lower``, whose Final_Sigma context stops at
    whitespace; ASCII punctuation made a space; the whole words ``a``, ``an``, ``the`` made a
    space, ``\\b`` seeing whitespace as the text's edge). Checked against the line pipeline
    in ``tests/test_fastpath.py``."""
    if rules.by_side or rules.line_text is None or rules.whitespace != "unicode":
        return False
    return _tok.spec_of(rules.tokenize).locality == "word" and rules.line_case in (None, str.lower)


def _merged(
    second: np.ndarray,
    first_part: tuple[np.ndarray, np.ndarray],
    second_part: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """(ids per item, flat ids) of items from two parts, each (ids per item, flat ids) of its
    items in order, merged into item order: item ``k`` is the second part's next where
    ``second[k]``, else the first's."""
    lens = np.empty(len(second), dtype=np.int64)
    lens[~second] = first_part[0]
    lens[second] = second_part[0]
    ids = np.empty(int(lens.sum()), dtype=np.int64)
    start = np.cumsum(lens) - lens  # where each item's ids go
    for where, (n, values) in ((~second, first_part), (second, second_part)):
        offset = np.arange(len(values)) - np.repeat(np.cumsum(n) - n, n)
        ids[np.repeat(start[where], n) + offset] = values
    return lens, ids


def _interleave(first: np.ndarray, second: np.ndarray, from_second: np.ndarray) -> np.ndarray:
    """Two id arrays of lines (each line ended by 0) merged into line order: line ``k`` is the
    next line of ``second`` where ``from_second[k]``, else the next of ``first``."""
    parts = [(np.diff(np.flatnonzero(ids == 0), prepend=-1), ids) for ids in (first, second)]
    return _merged(from_second, parts[0], parts[1])[1]
