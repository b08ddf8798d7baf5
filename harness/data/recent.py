"""``RecentCorpora``: the corpora of the last few calls, found again by the string objects.

Scoring one corpus under several profiles calls the public functions again and again with the
same texts, often in fresh lists. Building a :class:`~harness.data.corpus.Corpus` checks every
element and scans every text, and the statistics cache then hashes every text; both are
remembered per corpus object, so a call given the very same string objects as a recent call
gets that call's corpus back instead of building and hashing it again.

The match is exact: every hypothesis and every reference must be the same ``str`` object
(``is``, not ``==``) at the same place, segment by segment, so the texts, their types and their
layout are those of the kept corpus (strings cannot change). Only lists and tuples are
matched (an iterator would be consumed by the check), only corpora of plain ``str`` with the
default ids are kept, and only those whose text raised no
:class:`~harness.errors.SuspectInput` warning (a corpus that warns is built, and warns, on
every call).
"""

from __future__ import annotations

import itertools
import operator
import threading
from collections.abc import Sequence
from typing import Any, cast

from harness.data.corpus import Corpus, warn_unreadable

_SEQUENCES = frozenset((list, tuple))
_STR = frozenset((str,))


def _all_str(texts: Any) -> bool:
    return set(map(type, texts)) <= _STR


class RecentCorpora:
    """Up to ``max_entries`` corpora of recent :meth:`corpus` calls (least recently used
    dropped), each returned again for a call given the same string objects in the same
    per-segment layout."""

    def __init__(self, max_entries: int = 4) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.max_entries = max_entries
        # each corpus with its segments' reference counts and its references in one list
        self._kept: list[tuple[Corpus, list[int], list[str]]] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        """Forget every kept corpus."""
        with self._lock:
            self._kept.clear()

    def corpus(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> Corpus:
        """``Corpus.from_evaluate(hypotheses=..., references=...)``: a kept corpus when every
        string is the object at the same place in it, else a new one (checked and warned
        about as ``from_evaluate`` does, and kept when it may be matched later)."""
        found = self._find(hypotheses, references)
        if found is not None:
            return found
        corpus = Corpus.from_evaluate(
            hypotheses=hypotheses, references=references, check_text=False
        )
        if warn_unreadable(corpus):
            return corpus
        flat = list(itertools.chain.from_iterable(corpus.references))
        if _all_str(corpus.hypotheses) and _all_str(flat):
            with self._lock:
                self._kept.append((corpus, list(map(len, corpus.references)), flat))
                del self._kept[: -self.max_entries]
        return corpus

    def _find(self, hypotheses: Any, references: Any) -> Corpus | None:
        if type(hypotheses) not in _SEQUENCES or type(references) not in _SEQUENCES:
            return None
        n = len(hypotheses)
        if len(references) != n:
            return None
        with self._lock:
            kept = list(self._kept)
        for entry in reversed(kept):
            corpus, lengths, flat = entry
            if len(corpus.hypotheses) != n or not all(
                map(operator.is_, hypotheses, corpus.hypotheses)
            ):
                continue
            if not set(map(type, references)) <= _SEQUENCES:
                return None
            segments = cast(Sequence[Sequence[str]], references)
            if list(map(len, segments)) != lengths or not all(
                map(operator.is_, itertools.chain.from_iterable(segments), flat)
            ):
                continue
            with self._lock:  # most recently used last
                at = [i for i, e in enumerate(self._kept) if e is entry]
                if at:
                    self._kept.append(self._kept.pop(at[0]))
            return corpus
        return None
