"""Whole-line tokenizers run over many lines at once, and each line's tokens remembered.

Tokenizers that are not word-local tokenize every distinct line whole
(:mod:`harness.bleu.fastcount`). For three of them one regex pass over many joined lines
replaces a pass per line: :func:`batch_intl` (below), :func:`harness.bleu.script_tokenizers.batch_t2t`
and :func:`harness.bleu.normalizers.batch_nltk_word`, each equal line by line to its tokenizer
(``tests/test_fastpath.py``). Their results are remembered per line (:func:`tokens_of`), as
the per-line tokenizers' own caches remember theirs: identify and the reports count the same
lines under many readings and configurations.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from harness.bleu import script_tokenizers as _script
from harness.bleu.normalizers import batch_nltk_word
from harness.bleu.punkt_sentences import batch_nltk_punkt
from harness.bleu.tokenizers import _intl_spaced

__all__ = ["BATCH_LINES", "CACHE_LINES", "batch_intl", "clear_caches", "tokens_of"]

Batch = Callable[[Sequence[str]], list[list[str]]]


def batch_intl(lines: Sequence[str]) -> list[list[str]]:
    """intl's tokens (``harness.bleu.tokenizers._tokens_intl``) of every line (none holding
    ``"\\n"``), from three regex passes over all of them at once (faster than line by line).

    The lines are joined by ``"0\\n0"`` and the text is wrapped in ``"0"``: a run of marks at
    a line's end or start then has a number beside it, as it has nothing there alone (the rule
    treats a missing neighbour as a number), and no rule can match across a digit. The rules
    only insert spaces, so each piece between newlines is ``"0" + the line's result + "0"``.
    """
    text = _intl_spaced("0" + "0\n0".join(lines) + "0")
    return [piece[1:-1].split() for piece in text.split("\n")]


#: Tokenizers (with their whitespace rule) that tokenize many whole lines at once, for lines
#: without a newline.
BATCH_LINES: dict[tuple[str, str], Batch] = {
    ("intl", "unicode"): batch_intl,
    ("t2t", "unicode"): _script.batch_t2t,
    ("nltk-word", "unicode"): batch_nltk_word,
    # Punkt splits each line, then the word rules run over all the sentences at once
    ("nltk-punkt", "unicode"): batch_nltk_punkt,
}

#: Lines whose batch tokens are remembered, per tokenizer (the newest).
CACHE_LINES = 2**16
_memory: dict[str, dict[str, list[str]]] = {}


def tokens_of(name: str, batch: Batch, lines: list[str]) -> list[list[str]]:
    """``batch(lines)``, tokenizing only the distinct lines not remembered for ``name``."""
    memory = _memory.setdefault(name, {})
    got = {line: memory[line] for line in lines if line in memory}
    missing = list(dict.fromkeys(line for line in lines if line not in got))
    if missing:
        got.update(zip(missing, batch(missing), strict=True))
        memory.update((line, got[line]) for line in missing)
        for old in list(itertools.islice(memory, max(0, len(memory) - CACHE_LINES))):
            del memory[old]  # the oldest first
    return [got[line] for line in lines]


def clear_caches() -> None:
    """Forget the remembered batch tokens of every tokenizer."""
    _memory.clear()
