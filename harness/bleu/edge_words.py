"""The words of an ``edges`` tokenizer (:data:`harness.bleu.tokenizer_spec.LOCALITIES`) as the
fast path's vocabularies (:mod:`harness.bleu.vocabulary`) tokenize them: each line marked at
its ends before it is split into words, and each distinct marked word tokenized as the
variant of it that a line's rules see, many at once.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence

import numpy as np

from harness.bleu.tokenizer_spec import BatchLines

__all__ = ["FIRST", "LAST", "edge_words"]

#: An ``edges`` tokenizer's lines are wrapped in ``FIRST`` … ``LAST`` before they are split,
#: so a word's key says which variant it is: each rule looks one character around a mark and
#: whitespace is neither a mark nor a number, so a word inside a line is tokenized as
#: `` word `` and a word that starts (ends) the line without a space before (after) it as
#: ``word`` on that side (after the rules' right-strip, as for a line tokenized whole). A line
#: that holds either marker is tokenized whole.
FIRST, LAST = "\x02", "\x03"


def edge_words(
    lines_batch: BatchLines, next_word: str = ""
) -> Callable[[Sequence[str]], tuple[np.ndarray, list[str]]]:
    """The batch word tokenizer of an ``edges`` tokenizer: (tokens per (marked) word, the
    words' tokens in order) from one call of its batch line tokenizer on their variants.
    ``next_word``: follows (after a space) a word that does not end its line; its one token,
    the variant's last, is dropped."""
    after = f" {next_word}" if next_word else " "

    def batch(words: Sequence[str]) -> tuple[np.ndarray, list[str]]:
        if not words:
            return np.zeros(0, dtype=np.int64), []
        # every variant at once: `` word`` + ``after``, without the space before a word that
        # starts its line (``FIRST``, only ever a word's first character) and without
        # ``after`` behind one that ends it (``LAST``, only ever its last); no word holds a
        # newline
        text = " " + f"{after}\n ".join(words) + after
        variants = text.replace(" " + FIRST, "").replace(LAST + after, "").split("\n")
        token_lists = lines_batch(variants)
        lens = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
        flat = list(itertools.chain.from_iterable(token_lists))
        if not next_word:
            return lens, flat
        inner = ~np.fromiter(
            map(operator.methodcaller("endswith", LAST), words), dtype=bool, count=len(words)
        )
        if not inner.any():
            return lens, flat
        if not lens[inner].all():
            raise RuntimeError(f"the neutral word {next_word!r} was not one token")
        drop = (np.cumsum(lens) - 1)[inner]
        dropped = set(map(flat.__getitem__, drop.tolist()))
        if dropped != {next_word}:
            raise RuntimeError(f"the neutral word {next_word!r} was not one token")
        keep = np.ones(len(flat), dtype=bool)
        keep[drop] = False
        lens[inner] -= 1
        return lens, list(itertools.compress(flat, keep.tolist()))

    return batch
