"""Statistics shared between text rules that give every text of a corpus the same tokens.

Several profiles name different text rules that tokenize most corpora alike: ``none`` and
``whitespace`` are both ``str.split()``; the ``rstrip`` rule changes nothing on texts that do
not end in whitespace; Perl's whitespace class splits like ``str.split`` on texts without
U+001C..U+001F; multi-bleu's ASCII split and compare-mt's ``split(" ")`` split like
``str.split`` on texts without the whitespace they treat differently. :func:`plain_rules` maps
rules to the plainest rules that give every text of a corpus the same tokens, given what
:func:`text_facts` found in its texts; :func:`harness.bleu.engine.compute_statistics` keeps
the statistics it counted per corpus content and those rules (:class:`SharedCounts`), so a
second profile whose rules come to the same plain rules reuses the first one's count.
Each equivalence is checked against the tokenizers in ``tests/test_shared_counts.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.bleu import sacrebleu_tokenizers as _sb
from harness.bleu import tokenizers as _tok
from harness.bleu.stats import Statistics

__all__ = ["Counted", "SharedCounts", "TextFacts", "copied", "plain_rules", "text_facts"]


class TextFacts:
    """What a corpus's texts hold that decides which text rules tokenize them alike, each
    found when first asked for (most rules ask for none).

    ``ends_in_space``: some text ends in whitespace (``rstrip`` changes it). ``perl_apart``:
    some text holds U+001C..U+001F (``str.split`` separates there, Perl's ``\\s`` does not).
    ``unicode_space``: some text holds whitespace outside ASCII's ``" \\t\\n\\r\\f\\v"``
    (``str.split`` separates there, an ASCII split does not). ``single_spaced``: every text is
    non-empty, its only whitespace single spaces between other characters (``split(" ")``
    gives ``str.split()``'s tokens)."""

    def __init__(self, texts: Sequence[str] | Callable[[], Sequence[str]]) -> None:
        """``texts``: the corpus's texts, or a function listing them."""
        self._given = texts

    @functools.cached_property
    def _texts(self) -> Sequence[str]:
        """The texts (listed when first needed, when given as a function that lists them)."""
        return self._given() if callable(self._given) else self._given

    def _joined(self) -> str:
        return "".join(self._texts)

    @functools.cached_property
    def ends_in_space(self) -> bool:
        return _SPACE.search("".join([t[-1:] for t in self._texts])) is not None

    @functools.cached_property
    def perl_apart(self) -> bool:
        joined = self._joined()
        return any(c in joined for c in _sb.PYTHON_ONLY_SPACE)

    @functools.cached_property
    def unicode_space(self) -> bool:
        joined = self._joined()
        if any(c in joined for c in _sb.PYTHON_ONLY_SPACE):
            return True
        return not joined.isascii() and any(c in joined for c in _sb.unicode_only_spaces())

    @functools.cached_property
    def single_spaced(self) -> bool:
        texts = self._texts
        if not all(texts):
            return False
        joined = self._joined()
        ends = "".join([t[0] + t[-1] for t in texts])
        if " " in ends or "  " in joined or any(c in joined for c in "\t\n\r\x0b\x0c"):
            return False
        return not self.unicode_space


_SPACE = re.compile(r"\s")


def text_facts(texts: Sequence[str]) -> TextFacts:
    """:class:`TextFacts` of ``texts``."""
    return TextFacts(texts)


#: Tokenizers whose ``whitespace="perl"`` form is their tokens split on Perl's ``\s`` instead
#: of ``str.split``'s whitespace (``perl_split``), after rules that make no U+001C..U+001F.
_PERL_SPLIT = frozenset({"13a", "none", "whitespace"})


def plain_rules(rules: _tok.TextRules, facts: TextFacts) -> _tok.TextRules:
    """The plainest text rules giving every text that ``facts`` describe the tokens ``rules``
    give it (``rules`` itself when none is plainer).

    The lowercasing rule of rules that do not lowercase is the default. ``none`` is
    ``whitespace`` (both ``str.split()``, which also ignores trailing whitespace, so the strip
    rule does not matter to it; Perl's split keeps U+001C..U+001F, which ``rstrip`` removes).
    Where no rule runs on the line before it is
    tokenized (:attr:`TextRules.line_text`), the facts are the tokenizer's input's: no text
    ending in whitespace makes ``strip="none"`` the ``rstrip`` rule; no U+001C..U+001F makes
    Perl's whitespace ``str.split``'s (13a and the splits); no whitespace beyond ASCII's makes
    ``ascii-whitespace`` ``whitespace``; single spaces only make ``single-space``
    ``whitespace``. Rules that tokenize the two sides apart are left as they are."""
    if rules.by_side:
        return rules
    changes: dict[str, Any] = {}
    if not rules.lowercase and rules.lowercase_rule != "unicode":
        changes["lowercase_rule"] = "unicode"  # read only when lowercasing
    tokenize = rules.tokenize
    if tokenize == "none":
        tokenize = changes["tokenize"] = "whitespace"
    if rules.line_text is None:
        if rules.strip == "none" and not facts.ends_in_space:
            changes["strip"] = "rstrip"
        if rules.whitespace == "perl" and tokenize in _PERL_SPLIT and not facts.perl_apart:
            changes["whitespace"] = "unicode"
        if rules.whitespace == "unicode":
            if tokenize == "ascii-whitespace" and not facts.unicode_space:
                tokenize = changes["tokenize"] = "whitespace"
            elif tokenize == "single-space" and facts.single_spaced:
                tokenize = changes["tokenize"] = "whitespace"
    whitespace = changes.get("whitespace", rules.whitespace)
    if tokenize == "whitespace" and whitespace == "unicode" and rules.strip == "none":
        changes["strip"] = "rstrip"
    return dataclasses.replace(rules, **changes) if changes else rules


@dataclass(eq=False)
class Counted:
    """One counted corpus's texts, their facts, and its statistics by plain key (equal only
    to itself)."""

    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    facts: TextFacts
    statistics: dict[tuple[Any, ...], Any]


class SharedCounts:
    """Statistics kept per counted corpus (by content) and plain key, for the last
    ``corpora`` corpora and at most ``kept_bytes`` bytes of arrays (the oldest statistics go
    first): the key is the plain rules (:func:`plain_rules`) with whatever else decides the
    count besides the counted corpus (the caller's ``extra``: the n-gram identity,
    per-reference matches, the order). A run counts tokenization by tokenization, each over
    all its systems, so a corpus's count is met again only after every other system's."""

    def __init__(self, corpora: int = 4, kept_bytes: int = 1 << 28) -> None:
        self.corpora = corpora
        self.kept_bytes = kept_bytes
        self._entries: list[Counted] = []
        self._stored: list[tuple[Counted, tuple[Any, ...]]] = []  # oldest first
        self._bytes = 0

    def clear(self) -> None:
        """Forget every kept count."""
        self._entries.clear()
        self._stored.clear()
        self._bytes = 0

    def _entry(
        self, hypotheses: tuple[str, ...], references: tuple[tuple[str, ...], ...]
    ) -> Counted:
        for k, entry in enumerate(self._entries):
            if (
                len(entry.hypotheses) == len(hypotheses)
                and (entry.hypotheses is hypotheses or entry.hypotheses == hypotheses)
                and (entry.references is references or entry.references == references)
            ):
                self._entries.append(self._entries.pop(k))  # most recently used last
                return entry

        def texts() -> list[str]:
            return [*hypotheses, *itertools.chain.from_iterable(references)]

        entry = Counted(hypotheses, references, TextFacts(texts), {})
        self._entries.append(entry)
        if len(self._entries) > self.corpora:
            gone = self._entries.pop(0)
            self._bytes -= sum(map(_nbytes, gone.statistics.values()))
            gone.statistics.clear()
            self._stored = [(e, key) for e, key in self._stored if e is not gone]
        return entry

    def key(
        self,
        hypotheses: tuple[str, ...],
        references: tuple[tuple[str, ...], ...],
        rules: _tok.TextRules,
        extra: tuple[Any, ...],
    ) -> tuple[Counted, tuple[Any, ...]]:
        """The kept entry of the corpus (made when new) and the plain key of ``rules``."""
        entry = self._entry(hypotheses, references)
        return entry, (plain_rules(rules, entry.facts), *extra)

    def store(self, entry: Counted, key: tuple[Any, ...], stats: Statistics) -> None:
        """Keep a copy of ``stats`` as ``entry``'s count under ``key`` (:meth:`key`'s),
        dropping the oldest kept statistics beyond ``kept_bytes``."""
        if not any(e is entry for e in self._entries):  # its corpus was dropped meanwhile
            return
        old = entry.statistics.pop(key, None)
        if old is not None:
            self._bytes -= _nbytes(old)
            self._stored.remove((entry, key))
        entry.statistics[key] = kept = copied(stats)
        self._stored.append((entry, key))
        self._bytes += _nbytes(kept)
        while self._bytes > self.kept_bytes and len(self._stored) > 1:
            first, first_key = self._stored.pop(0)
            self._bytes -= _nbytes(first.statistics.pop(first_key))


def _nbytes(stats: Statistics) -> int:
    """The bytes of the arrays of ``stats`` that a kept copy owns."""
    ref = 0 if stats.ref_matches is None else stats.ref_matches.nbytes
    return int(stats.hyp_len.nbytes + stats.matches.nbytes + ref)


def copied(stats: Statistics, **changes: Any) -> Statistics:
    """``stats`` with arrays of its own (and ``changes``): what is kept and what is handed out
    are never the same arrays, since callers may change or freeze the ones they are given."""
    ref = None if stats.ref_matches is None else stats.ref_matches.copy()
    return dataclasses.replace(
        stats,
        hyp_len=stats.hyp_len.copy(),
        matches=stats.matches.copy(),
        ref_matches=ref,
        **changes,
    )
