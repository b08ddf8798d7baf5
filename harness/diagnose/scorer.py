"""Fast engine scores of one corpus under many configurations: :class:`CorpusScorer`.

Statistics are counted once per (tokenizer, case) by a :class:`~harness.session.Session`;
the rows of statistics once per (tokenization, reference length rule, n-gram total rule,
order); each configuration is then only the arithmetic of
:func:`harness.bleu.arithmetic.bleu_rows`. Shared by :mod:`harness.diagnose.identify` and
:mod:`harness.diagnose.validate`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import engine
from harness.bleu.arithmetic import NltkContext, bleu_rows, nltk_context
from harness.bleu.config import BleuConfig
from harness.bleu.stats import ref_length_of
from harness.bleu.tokenizers import TextRules
from harness.data.corpus import Corpus
from harness.errors import LibraryWouldRaise
from harness.session import Session

__all__ = ["CorpusScorer", "Light", "halving"]


@dataclass(frozen=True, eq=False)
class Light:
    """Statistics of one tokenization: hypothesis lengths ``(S,)``, reference lengths
    ``(S, K)`` (-1 pads ragged rows) and matched n-grams ``(S, order)``, int64."""

    hyp_len: np.ndarray
    ref_lens: np.ndarray
    matches: np.ndarray
    order: int

    def fingerprint(self) -> tuple[Any, ...]:
        return (
            self.ref_lens.shape,
            self.matches.shape,
            self.hyp_len.tobytes(),
            self.ref_lens.tobytes(),
            self.matches.tobytes(),
        )


#: The factors that only build a configuration's rows of statistics (which reference length,
#: which n-gram totals, padded references; the arithmetic reads none of them), with the values
#: :meth:`CorpusScorer.scores` groups configurations under.
_ROW_STANDARD = {"ref_length": "closest", "ngram_totals": "plain", "missing_refs": "skip"}


def _totals_key(kind: str, cfg: BleuConfig) -> tuple[Any, ...]:
    """What a cached set of totals depends on: the text rules and the length and total rules."""
    return (kind, cfg.text_rules, cfg.missing_refs, cfg.ref_length, cfg.ngram_totals, cfg.max_order)


#: One row per segment, or one for the corpus: (sys_len, ref_len, correct, total).
Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

_CONTEXT_FIELDS = ("hyp_len", "last_hyp_len", "last_correct5", "last_total5")


def _score_parts(
    parts: Sequence[Rows], contexts: Sequence[NltkContext | None], cfg: BleuConfig
) -> list[float]:
    """One score per part of rows, all parts in one arithmetic call: a corpus row's score, or
    the mean of a part's segment scores (summed as engine.segment_arrays sums them).
    ``contexts``: each part's nltk context (``None`` when ``cfg``'s smoothing reads none)."""
    sys_len, ref_len, correct, total = (np.concatenate([p[i] for p in parts]) for i in range(4))
    ctx = None
    if all(c is not None for c in contexts):
        ctx = NltkContext(
            *(np.concatenate([getattr(c, f) for c in contexts]) for f in _CONTEXT_FIELDS)
        )
    corpus = cfg.aggregation == "corpus"
    scored = bleu_rows(sys_len, ref_len, correct, total, cfg, context=ctx, corpus=corpus).score
    if corpus:
        return list(scored.tolist())
    bounds = np.cumsum([len(p[0]) for p in parts])[:-1]
    return [sum(part.tolist()) / len(part) for part in np.split(scored, bounds)]


def halving(
    batch: Callable[[int, int], list[float]],
    count: int,
    refusals: tuple[type[BaseException], ...],
) -> list[float | None]:
    """``batch(lo, hi)`` — the scores of items ``lo..hi-1`` in one call — for all ``count``
    items, with ``None`` for each item that raises one of ``refusals`` alone: one item that
    raises makes its whole batch raise, so a raising batch is halved until the item stands
    alone (a few calls per refusing item instead of one call per item)."""

    def run(lo: int, hi: int) -> list[float | None]:
        try:
            return list(batch(lo, hi))
        except refusals:
            if hi - lo == 1:
                return [None]
            mid = (lo + hi) // 2
            return run(lo, mid) + run(mid, hi)

    return run(0, count) if count else []


class CorpusScorer:
    """Engine scores of one corpus under many configurations, from cached statistics.

    Statistics are counted once per (tokenizer, case) by ``session`` (default: a new in-memory
    :class:`~harness.session.Session`); the rows of statistics once per (tokenization,
    reference length rule, n-gram total rule, order); a configuration is then only the
    arithmetic of :func:`harness.bleu.arithmetic.bleu_rows`, and :meth:`scores` scores
    configurations that differ only in how their rows are built in one call. :meth:`score`
    equals ``engine.score_statistics(engine.compute_statistics(corpus, config), config).score``
    (0–100) and raises :class:`~harness.errors.LibraryWouldRaise` where it does.
    """

    def __init__(self, corpus: Corpus, *, session: Session | None = None) -> None:
        self.corpus = corpus
        self.session = (session or Session()).with_corpora(corpus)
        self._light: dict[TextRules, Light] = {}
        self._rows: dict[tuple[Any, ...], Rows] = {}

    def light(self, rules: TextRules, order: int = 5) -> Light:
        got = self._light.get(rules)
        if got is None or got.order < order:
            cfg = BleuConfig(
                tokenize=rules.tokenize,
                lowercase=rules.lowercase,
                lowercase_rule=rules.lowercase_rule,
                strip=rules.strip,
                whitespace=rules.whitespace,
            )
            st = self.session.statistics(cfg, max_order=max(order, 5))
            got = Light(
                hyp_len=np.asarray(st.hyp_len, dtype=np.int64),
                ref_lens=np.asarray(st.ref_matrix, dtype=np.int64),
                matches=np.asarray(st.matches, dtype=np.int64),
                order=st.max_order,
            )
            self._light[rules] = got
        return got

    def _segment_rows(self, cfg: BleuConfig, light: Light) -> Rows:
        """Every segment's statistics under ``cfg``'s length and total rules."""
        key = _totals_key("seg", cfg)
        got = self._rows.get(key)
        if got is None:
            n = cfg.max_order
            lens = light.ref_lens
            if cfg.missing_refs == "empty":  # padded with empty references (Perl scripts' files)
                lens = np.maximum(lens, 0)
            ref = ref_length_of(light.hyp_len, lens, cfg.ref_length)
            # a segment of h tokens has max(0, h - k + 1) n-grams of order k
            total = np.maximum(0, light.hyp_len[:, None] - np.arange(n)[None, :])
            if cfg.ngram_totals == "floor1":
                total = np.maximum(1, total)
            got = (light.hyp_len, ref, light.matches[:, :n], total)
            self._rows[key] = got
        return got

    def _corpus_row(self, cfg: BleuConfig, light: Light) -> Rows:
        """The corpus sums under ``cfg`` as one row."""
        key = _totals_key("corpus", cfg)
        got = self._rows.get(key)
        if got is None:
            sys_len, ref, correct, total = self._segment_rows(cfg, light)
            ref_sum = math.fsum(ref.tolist()) if cfg.ref_length == "average" else int(ref.sum())
            got = (
                np.array([sys_len.sum()]),
                np.array([ref_sum]),
                correct.sum(axis=0)[None, :],
                total.sum(axis=0)[None, :],
            )
            self._rows[key] = got
        return got

    @staticmethod
    def _context(light: Light) -> NltkContext:
        """nltk's context of the whole corpus (its hypothesis length and last segment)."""
        return nltk_context(light.hyp_len.sum(), light.hyp_len[-1], light.matches[-1, 4])

    @staticmethod
    def _segment_contexts(light: Light) -> NltkContext:
        """Every segment's own nltk context."""
        return nltk_context(light.hyp_len, light.hyp_len, light.matches[:, 4])

    def _scores(self, cfgs: Sequence[BleuConfig]) -> list[float]:
        """The scores of configurations equal but for :data:`_ROW_STANDARD`, in one arithmetic
        call; raises :class:`~harness.errors.LibraryWouldRaise` if any of them does."""
        if any(engine.tokenization_key(c) != c.text_rules.key() for c in cfgs):
            # references cut or scored one by one: the engine on the session's statistics
            return [self.session.score(c).score for c in cfgs]
        cfg = cfgs[0]
        light = self.light(cfg.text_rules, engine.orders_needed(cfg))
        corpus = cfg.aggregation == "corpus"
        rows = [(self._corpus_row if corpus else self._segment_rows)(c, light) for c in cfgs]
        return _score_parts(rows, [self._nltk_context(cfg, light)] * len(cfgs), cfg)

    @classmethod
    def _nltk_context(cls, cfg: BleuConfig, light: Light) -> NltkContext | None:
        """The context ``cfg``'s rows of ``light`` need: nltk's smoothing methods read the
        corpus's (corpus scores) or each segment's own (sentence scores); others none."""
        if not cfg.smooth.startswith("nltk-"):
            return None
        return cls._context(light) if cfg.aggregation == "corpus" else cls._segment_contexts(light)

    def score(self, cfg: BleuConfig) -> float:
        """The engine's score (0–100) of the corpus under ``cfg``."""
        return self._scores([cfg])[0]

    def try_score(self, cfg: BleuConfig) -> float | None:
        """:meth:`score`, or ``None`` when the configuration raises on this corpus."""
        try:
            return self.score(cfg)
        except LibraryWouldRaise:
            return None

    @staticmethod
    def across(scorers: Sequence[CorpusScorer], cfg: BleuConfig) -> list[float | None]:
        """:meth:`try_score` of ``cfg`` on each scorer's corpus, every corpus's rows in one
        arithmetic call (the arithmetic is row by row, so each score is the one
        :meth:`try_score` gives)."""
        if len(scorers) < 2 or engine.tokenization_key(cfg) != cfg.text_rules.key():
            return [s.try_score(cfg) for s in scorers]
        order = engine.orders_needed(cfg)
        lights = [s.light(cfg.text_rules, order) for s in scorers]
        corpus = cfg.aggregation == "corpus"
        rows = [
            (s._corpus_row if corpus else s._segment_rows)(cfg, light)
            for s, light in zip(scorers, lights, strict=True)
        ]
        contexts = [CorpusScorer._nltk_context(cfg, light) for light in lights]

        def run(lo: int, hi: int) -> list[float]:
            return _score_parts(rows[lo:hi], contexts[lo:hi], cfg)

        return halving(run, len(scorers), (LibraryWouldRaise,))

    def scores(self, cfgs: Sequence[BleuConfig]) -> list[float | None]:
        """:meth:`try_score` of each configuration; configurations that differ only in how
        their rows are built (:data:`_ROW_STANDARD`) are scored in one arithmetic call."""
        groups: dict[BleuConfig, list[int]] = {}
        for i, c in enumerate(cfgs):
            groups.setdefault(c.replace(**_ROW_STANDARD), []).append(i)
        out: list[float | None] = [None] * len(cfgs)
        for members in groups.values():
            batch = [cfgs[i] for i in members]
            try:
                values: list[float | None] = list(self._scores(batch))
            except LibraryWouldRaise:  # some row raises: score each alone to find which
                values = [self.try_score(c) for c in batch]
            for i, v in zip(members, values, strict=True):
                out[i] = v
        return out
