"""Modelled mistakes: BLEU as a home-made implementation gets it wrong, outside the factor space.

A :class:`Model` is a configuration plus up to two mistakes named in :data:`BUG_MODELS`. Each
mistake is a switch of one of two kinds:

* **counting** (``clip``, ``stop``, ``stride``, ``count``): the n-grams are counted again with
  the mistake — clipping against the sum of the references' counts or not at all,
  ``range(len - n)`` instead of ``range(len - n + 1)``, a stride of n over the positions,
  reference (and hypothesis) counts as substring counts. This is the one thing counted here
  rather than by the engine, because the mistake is in the counting itself; the text is
  tokenized by the engine's own text rules (:func:`tokenizers`);
* **brevity penalty** (``bp``): ``exp(1 - c/r)`` instead of ``exp(1 - r/c)``, or none. No
  :class:`~harness.bleu.config.BleuConfig` field is a brevity-penalty formula (no library gets
  it wrong), so :func:`score_segments` replaces the penalty in the engine's score. With only
  this kind of mistake the statistics are the engine's own
  (:func:`harness.bleu.engine.compute_statistics`): nothing is re-counted.

Every other choice (reference length, n-gram totals, smoothing, effective order, weights,
aggregation, zero lengths) is the configuration's, scored by the engine's arithmetic
(:func:`harness.bleu.arithmetic.bleu_rows`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu.arithmetic import bleu_rows, nltk_context
from harness.bleu.config import BleuConfig
from harness.bleu.engine import compute_statistics
from harness.bleu.layouts import counted_corpus
from harness.bleu.stats import (
    apply_total_rule,
    corpus_ref_length,
    padded_ref_matrix,
    ref_length_of,
    ref_matrix,
)
from harness.bleu.tokenizers import Tokenizer, text_tokenizer
from harness.diagnose.many_configs import halving
from harness.diagnose.validate.cases import Case
from harness.errors import LibraryWouldRaise

__all__ = [
    "BUG_MODELS",
    "COUNTING_SWITCHES",
    "Model",
    "Segment",
    "count_segment",
    "gram_counts",
    "score_corpora",
    "score_segments",
    "segment_statistics",
    "tokenizers",
]

#: Deliberate mistakes outside the factor space: name → (bug class, switches). The switches
#: re-count the statistics (``clip``, ``stop``, ``stride``, ``count``) or change the brevity
#: penalty (``bp``); every other choice comes from the configuration they are applied to.
BUG_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "clip-sum": ("clipping", {"clip": "sum"}),
    "clip-none": ("clipping", {"clip": "none"}),
    "range-len-minus-n": ("ngram_extraction", {"stop": 0}),
    "stride-n": ("ngram_extraction", {"stride": True}),
    "bp-swapped": ("brevity_penalty", {"bp": "swapped"}),
    "no-bp": ("brevity_penalty", {"bp": "none"}),
    "substring-ref": ("substring_counting", {"count": "substring-ref"}),
    "substring-both": ("substring_counting", {"count": "substring-both"}),
}

#: The switches that change how n-grams are counted (the others change the arithmetic).
COUNTING_SWITCHES = frozenset({"clip", "stop", "stride", "count"})

#: Per segment: (hypothesis length, reference lengths, matches, totals) of orders 1..N.
Segment = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Model:
    """A configuration, optionally with modelled mistakes (names of :data:`BUG_MODELS`)."""

    cfg: BleuConfig
    bugs: tuple[str, ...] = ()

    @property
    def switches(self) -> dict[str, Any]:
        """The switches of every mistake, merged."""
        out: dict[str, Any] = {}
        for b in self.bugs:
            out.update(BUG_MODELS[b][1])
        return out

    @property
    def classes(self) -> tuple[str, ...]:
        """The bug class of each mistake, in order."""
        return tuple(BUG_MODELS[b][0] for b in self.bugs)

    def with_bug(self, name: str) -> Model | None:
        """This model with one more mistake; ``None`` when it has one of that class already
        or the two would set the same switch."""
        cls, sw = BUG_MODELS[name]
        if cls in self.classes or set(sw) & set(self.switches):
            return None
        return Model(self.cfg, (*self.bugs, name))


def tokenizers(cfg: BleuConfig) -> tuple[Tokenizer, Tokenizer]:
    """The engine's tokenizers for ``cfg``'s text rules: (hypotheses, references)."""
    rules = cfg.text_rules
    return text_tokenizer(rules.side("hypothesis")), text_tokenizer(rules.side("reference"))


def gram_counts(tokens: Sequence[str], order: int, stop: int = 1) -> Counter[tuple[str, ...]]:
    """Counts of the n-grams of order ``order`` (n) starting at ``0 .. len - n + stop - 1``
    (``stop=1``: correct)."""
    n = order
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + stop))


def count_segment(
    hypothesis: list[str], refs: list[list[str]], order: int, switches: dict[str, Any]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(matches, totals) per order 1..``order`` of the tokens ``hypothesis`` against the
    tokenized references ``refs``, counted with the mistakes ``switches``.

    Without mistakes (``switches={}``) these are the engine's clipped matches and plain totals.
    """
    stop = switches.get("stop", 1)
    count = switches.get("count", "ngram")
    clip = switches.get("clip", "max")
    joined_h = " ".join(hypothesis)
    joined_r = [" ".join(r) for r in refs]
    correct, total = [], []
    for n in range(1, order + 1):
        ref_counts = [gram_counts(r, n, stop) for r in refs]
        hyp_counts = gram_counts(hypothesis, n, stop)
        if switches.get("stride"):
            size = len(hypothesis)
            grams = [tuple(hypothesis[j : j + n]) for j in range(0, size, n) if j + n <= size]
        else:
            grams = list(hyp_counts)
        c = t = 0
        for g in grams:
            text = " ".join(g)
            k = joined_h.count(text) if count == "substring-both" else hyp_counts[g]
            if count in ("substring-ref", "substring-both"):
                per_ref = [j.count(text) for j in joined_r]
            else:
                per_ref = [rc[g] for rc in ref_counts]
            per_ref = per_ref or [0]
            if clip == "sum":
                c += min(k, sum(per_ref))
            elif clip == "none":
                c += k if max(per_ref) > 0 else 0
            else:
                c += min(k, max(per_ref))
            t += k
        correct.append(c)
        total.append(t)
    return tuple(correct), tuple(total)


def segment_statistics(case: Case, cfg: BleuConfig, switches: dict[str, Any]) -> list[Segment]:
    """Every segment's statistics under ``cfg``'s tokenization, counted with the mistakes
    ``switches`` (orders 1..max(5, ``cfg.max_order``): nltk's methods look at order 5).

    When no mistake is a counting one, the statistics are the engine's.
    """
    order = max(5, cfg.max_order)
    if not COUNTING_SWITCHES & set(switches):
        st = compute_statistics(case.corpus(), cfg, max_order=order)
        return [
            (h, lens, tuple(m), tuple(t))
            for h, lens, m, t in zip(
                st.hyp_len.tolist(),
                st.ref_lens,
                st.matches.tolist(),
                st.totals("plain", order).tolist(),
                strict=True,
            )
        ]
    hyp_tok, ref_tok = tokenizers(cfg)
    out: list[Segment] = []
    # the references the configuration counts: ragged ones cut, sentences split, as the engine
    counted = counted_corpus(case.corpus(), cfg)
    for hyp, refs in zip(counted.hypotheses, counted.references, strict=True):
        h = hyp_tok(hyp)
        rs = [ref_tok(r) for r in refs]
        correct, total = count_segment(h, rs, order, switches)
        out.append((len(h), tuple(len(r) for r in rs), correct, total))
    return out


#: One segment's statistics as the arithmetic reads them: hypothesis length, the reference
#: length its rule chose, matched n-grams (orders 1..5 at least), n-gram totals.
Row = tuple[int, float, tuple[int, ...], list[int]]
#: What a model's scoring may raise on a case (the case then has no expected score).
REFUSALS = (LibraryWouldRaise, ZeroDivisionError, ValueError, OverflowError)


def _rows(cases: Sequence[Sequence[Segment]], cfg: BleuConfig) -> list[list[Row]]:
    """Each case's segments with the reference length ``cfg``'s rules choose (missing
    references padded per case, :func:`~harness.bleu.stats.padded_ref_matrix`) and their
    totals under its total rule (:func:`~harness.bleu.stats.apply_total_rule`); every case's
    lengths chosen and totals ruled in one call."""
    avg = cfg.ref_length == "average"
    flat = [s for segs in cases for s in segs]
    # each segment's case's most references: how far missing references are padded
    widths = np.repeat(
        [max((len(s[1]) for s in segs), default=0) for segs in cases], [len(segs) for segs in cases]
    )
    refs = padded_ref_matrix(ref_matrix([s[1] for s in flat]), cfg.missing_refs, widths)
    hyp = np.array([s[0] for s in flat], dtype=np.int64)
    chosen = iter(ref_length_of(hyp, refs, cfg.ref_length).tolist())
    width = max((len(s[3]) for s in flat), default=0)
    totals = iter(
        apply_total_rule(
            np.array([s[3] for s in flat]).reshape(-1, width), cfg.ngram_totals
        ).tolist()
    )
    out: list[list[Row]] = []
    for segs in cases:
        rows: list[Row] = []
        for h, _, correct, _ in segs:
            r = next(chosen)
            rows.append((h, float(r) if avg else int(r), correct, next(totals)))
        out.append(rows)
    return out


def _corpus_row(rows: Sequence[Row], cfg: BleuConfig) -> Row:
    """The corpus sums of ``rows`` (orders 1..``cfg.max_order``; the reference lengths summed
    by :func:`~harness.bleu.stats.corpus_ref_length`) as one row."""
    n = cfg.max_order
    return (
        sum(s[0] for s in rows),
        corpus_ref_length(np.array([s[1] for s in rows]), cfg.ref_length),
        tuple(sum(s[2][k] for s in rows) for k in range(n)),
        [sum(s[3][k] for s in rows) for k in range(n)],
    )


def _score_rows(
    rows: Sequence[Row],
    last: Sequence[Row],
    cfg: BleuConfig,
    sw: dict[str, Any],
    *,
    corpus: bool,
    longest: Sequence[int] | None = None,
) -> np.ndarray:
    """Every row's score (0–100) under ``cfg`` in one arithmetic call, the brevity-penalty
    mistake of the switches ``sw`` applied; ``last``: for each row, the segment whose length and matched
    5-grams nltk's context reads (a corpus's last segment, a sentence itself); ``longest``: each
    corpus row's longest hypothesis (read by effective order on floored totals)."""
    n = cfg.max_order
    avg = cfg.ref_length == "average"
    hyp = np.array([r[0] for r in rows], dtype=np.int64)
    ref = np.array([r[1] for r in rows], dtype=np.float64 if avg else np.int64)
    matched = np.array([r[2][:n] for r in rows], dtype=np.int64)
    total = np.array([r[3][:n] for r in rows], dtype=np.int64)
    ctx = nltk_context(hyp, [x[0] for x in last], [x[2][4] for x in last])
    scored = bleu_rows(hyp, ref, matched, total, cfg, context=ctx, corpus=corpus, longest=longest)
    score, bp = scored.score, scored.bp
    mode = sw.get("bp")
    if mode is None:
        return score
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "none":
            fixed = score / bp
        else:
            c, r = hyp.astype(np.float64), ref.astype(np.float64)
            short = (0 < c) & (c < r)
            fixed = score / bp * np.where(short, np.exp(1 - c / np.where(short, r, 1.0)), 1.0)
    return np.where(bp > 0, fixed, score)


def score_segments(segs: Sequence[Segment], cfg: BleuConfig, switches: dict[str, Any]) -> float:
    """The engine's arithmetic for ``cfg`` (0–100) on per-segment statistics, with the
    brevity-penalty mistake of ``switches`` if any.

    The statistics carry their own n-gram totals (a stride or a lost last n-gram changes them,
    where the engine derives totals from the hypothesis length), so the per-segment and corpus
    sums are formed here — the reference length by
    :func:`~harness.bleu.stats.ref_length_of` (missing references padded as
    :func:`~harness.bleu.stats.padded_ref_matrix` pads them), the total rule
    (:func:`~harness.bleu.stats.apply_total_rule`), the context nltk's methods 4–7 see — and
    scored by :func:`~harness.bleu.arithmetic.bleu_rows`. A brevity-penalty mistake replaces
    the engine's penalty in that score (see the module).
    """
    (rows,) = _rows([segs], cfg)
    if cfg.aggregation == "corpus":
        if not rows:
            raise ZeroDivisionError("no segments")
        one = _corpus_row(rows, cfg)
        longest = [max(r[0] for r in rows)]
        return float(_score_rows([one], [rows[-1]], cfg, switches, corpus=True, longest=longest)[0])
    if not rows:
        raise ZeroDivisionError("no segments to average")
    score = _score_rows(rows, rows, cfg, switches, corpus=False)
    return sum(score.tolist()) / len(rows)


def score_corpora(
    cases: Sequence[Sequence[Segment]], cfg: BleuConfig, switches: dict[str, Any]
) -> list[float | None]:
    """:func:`score_segments` of every case with the mistakes ``switches`` (``None`` where it
    raises), all cases' rows (their corpus sums, or every segment of a sentence-level ``cfg``)
    in one arithmetic call."""

    def alone(segs: Sequence[Segment]) -> float | None:
        try:
            return score_segments(segs, cfg, switches)
        except REFUSALS:
            return None

    if len(cases) < 2 or not all(cases):
        return [alone(segs) for segs in cases]
    corpus = cfg.aggregation == "corpus"
    try:
        rows = _rows(cases, cfg)
    except REFUSALS:
        return [alone(segs) for segs in cases]
    longest = None
    if corpus:
        sums = [[_corpus_row(r, cfg)] for r in rows]
        last = [[r[-1]] for r in rows]
        longest = [max(row[0] for row in r) for r in rows]
    else:
        sums = last = rows

    def run(lo: int, hi: int) -> list[float]:
        flat = [row for part in sums[lo:hi] for row in part]
        ends = [row for part in last[lo:hi] for row in part]
        most = None if longest is None else longest[lo:hi]
        scores: list[float] = _score_rows(
            flat, ends, cfg, switches, corpus=corpus, longest=most
        ).tolist()
        if corpus:
            return scores
        out: list[float] = []
        start = 0
        for part in sums[lo:hi]:
            out.append(sum(scores[start : start + len(part)]) / len(part))
            start += len(part)
        return out

    return halving(run, len(cases), REFUSALS)
