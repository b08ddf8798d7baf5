"""Sentence BLEU of every hypothesis against every candidate as its single reference.

Self-BLEU, MBR decoding and diversity metrics need an (H, C) matrix of sentence scores
(sacrebleu#254). Scoring the H·C pairs one by one tokenizes and counts every text C (or H)
times; here every text is tokenized once, and the clipped matches of all pairs come from one
join per order on exact n-gram ids:

1. **Tokens** of hypotheses and candidates in one id space
   (:func:`harness.bleu.vocabulary.shared_token_ids`; candidates with the reference-side rules).
2. **N-gram ids.** Order 1 is the token id; order n names the pair (order n−1 id at p, token at
   p+n−1) by its rank among the distinct pairs (``np.unique``), so equal n-grams of any two
   texts get equal ids, exactly (no hashing). Windows crossing a text's end are dropped.
3. **Count vectors.** Per order, the distinct (n-gram, text) entries with their counts, n-gram
   major (an n-gram absent from one side matches nothing: the join skips it).
4. **Join.** Every hypothesis entry of n-gram g meets every candidate entry of g: the pair
   (i, j) gains ``min(count in i, count in j)`` — the clipped match with j as the only
   reference. The cross products are expanded in chunks of at most ``JOIN_CHUNK`` elements and
   summed with ``np.bincount`` into the matches of the block's pairs.
5. **Arithmetic.** Blocks of hypotheses (about ``ROW_CHUNK`` pairs each) are joined and
   scored at once, so besides the (H, C) result memory stays bounded: their pairs go through
   :func:`harness.bleu.arithmetic.bleu_rows`, with the reference-length and totals rules of
   the config (:func:`~harness.bleu.stats.ref_length_of`,
   :func:`~harness.bleu.stats.counted`)
   and each pair's own nltk context: the same arithmetic as every other score of the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.bleu.arithmetic import bleu_rows, nltk_context
from harness.bleu.config import EMPTY_REFERENCE_DROPS, BleuConfig
from harness.bleu.engine import counts_whole_corpus, orders_needed, segment_scores
from harness.bleu.smoothing import get_smoothing
from harness.bleu.stats import counted, ref_length_of
from harness.bleu.vocabulary import shared_token_ids
from harness.bleu.zero_length import zero_length_rule
from harness.data.corpus import Corpus

__all__ = ["JOIN_CHUNK", "ROW_CHUNK", "pair_matches", "pairwise_scores"]

#: Cross-product elements (hypothesis entry × candidate entry) expanded at once.
JOIN_CHUNK = 1 << 22
#: Pairs (a block of whole hypothesis rows, at least one) matched and scored at once.
ROW_CHUNK = 1 << 18


def _ngram_entries(
    tokens: np.ndarray, lens: np.ndarray, max_order: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per order, ``(n-gram id, text, count)`` of every distinct n-gram of every text, sorted
    by n-gram then text. ``tokens``: flat ids, every text followed by the sentinel 0."""
    n_text = len(lens)
    text = np.repeat(np.arange(n_text, dtype=np.int64), lens + 1)
    gid = tokens.copy()  # order 1: the token id; the sentinel 0 marks no n-gram
    valid = tokens != 0
    n_ids = int(tokens.max()) + 1 if len(tokens) else 1
    out = []
    for n in range(1, max_order + 1):
        if n > 1:  # (order n-1 id at p, token at p+n-1) ranked among the distinct pairs
            width = max(len(gid) - 1, 0)
            nxt = tokens[n - 1 : n - 1 + width]
            valid = valid[:width] & (nxt != 0)
            prev, gid = gid, np.zeros(width, dtype=np.int64)
            if valid.any():
                key = prev[:width][valid] * n_ids + nxt[valid]
                _, inverse = np.unique(key, return_inverse=True)
                gid[valid] = inverse.reshape(-1) + 1
        g = gid[valid]
        pair, counts = np.unique(g * n_text + text[: len(valid)][valid], return_counts=True)
        out.append((pair // n_text, pair % n_text, counts.astype(np.int64)))
    return out


def pair_matches(
    hyp_entries: tuple[np.ndarray, np.ndarray, np.ndarray],
    cand_entries: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_cand: int,
    out: np.ndarray,
) -> None:
    """Add, for every pair (i, j), the clipped matches of one order to ``out`` (H·C,):
    Σ over shared n-grams of min(count in hypothesis i, count in candidate j)."""
    hg, ht, hc = hyp_entries
    cg, ct, cc = cand_entries
    if len(hg) == 0 or len(cg) == 0:
        return
    start = np.searchsorted(cg, hg, side="left")
    width = np.searchsorted(cg, hg, side="right") - start
    keep = width > 0
    hg, ht, hc, start, width = hg[keep], ht[keep], hc[keep], start[keep], width[keep]
    ends = np.cumsum(width)
    e0 = 0
    while e0 < len(width):
        base = int(ends[e0 - 1]) if e0 else 0
        e1 = int(np.searchsorted(ends, base + JOIN_CHUNK, side="right"))
        e1 = max(e1, e0 + 1)
        w = width[e0:e1]
        total = int(w.sum())
        rep = np.repeat(np.arange(e0, e1), w)
        within = np.arange(total) - np.repeat(np.cumsum(w) - w, w)
        idx = start[rep] + within
        cell = ht[rep] * n_cand + ct[idx]
        clipped = np.minimum(hc[rep], cc[idx])
        if clipped.max() == 1:
            out += np.bincount(cell, minlength=len(out))
        else:
            out += np.bincount(cell, weights=clipped, minlength=len(out)).astype(np.int64)
        e0 = e1


def pairwise_scores(
    hypotheses: Sequence[str], candidates: Sequence[str], config: BleuConfig
) -> np.ndarray:
    """(H, C) sentence BLEU (0–100) of hypothesis i with candidate j as its only reference,
    under ``config``'s per-segment arithmetic (its aggregation is not used).

    Where the shared count does not give a pair's statistics (:func:`_pairs_alone`), each
    pair is counted alone by the engine."""
    if _pairs_alone(config):
        return _pair_by_pair(hypotheses, candidates, config)
    rules = config.text_rules
    (h_tok, h_len), (c_tok, c_len) = shared_token_ids(
        [(hypotheses, rules.side("hypothesis")), (candidates, rules.side("reference"))]
    )
    n_hyp, n_cand = len(h_len), len(c_len)
    order = orders_needed(config)
    entries = _ngram_entries(np.concatenate([h_tok, c_tok]), np.concatenate([h_len, c_len]), order)
    sides = []
    for g, t, c in entries:
        is_hyp = t < n_hyp
        sides.append(
            ((g[is_hyp], t[is_hyp], c[is_hyp]), (g[~is_hyp], t[~is_hyp] - n_hyp, c[~is_hyp]))
        )
    context = get_smoothing(config.smooth).context
    n = config.max_order
    score = np.empty((n_hyp, n_cand), dtype=np.float64)
    block = max(1, ROW_CHUNK // n_cand)  # hypotheses whose pairs are matched and scored at once
    for h0 in range(0, n_hyp, block):
        h1 = min(h0 + block, n_hyp)
        matches = np.zeros((order, (h1 - h0) * n_cand), dtype=np.int64)
        for k, ((hg, ht, hc), cand_side) in enumerate(sides):
            mine = (ht >= h0) & (ht < h1)
            pair_matches((hg[mine], ht[mine] - h0, hc[mine]), cand_side, n_cand, matches[k])
        hyp_len = np.repeat(h_len[h0:h1], n_cand)
        ref = ref_length_of(hyp_len, np.tile(c_len, h1 - h0)[:, None], config.ref_length)
        counts, totals = counted(hyp_len, matches[:n].T, config.ngram_totals, n)
        ctx = None
        if context:
            fifth = matches[4] if order >= 5 else np.zeros(len(hyp_len), dtype=np.int64)
            ctx = nltk_context(hyp_len, hyp_len, fifth)
        rows = bleu_rows(hyp_len, ref, counts, totals, config, context=ctx)
        score[h0:h1] = rows.score.reshape(h1 - h0, n_cand)
    return score


def _pairs_alone(config: BleuConfig) -> bool:
    """Whether each pair must be scored by the engine as a corpus of its own: an n-gram
    identity that numbers words over the scored corpus (``fairseq-hash``), text changed before
    counting (a sentence split, references joined: stripped, or empty ones left out), or a
    library that refuses a corpus holding an empty text (opik)."""
    return (
        counts_whole_corpus(config)
        or config.sentence_split != "none"
        or config.missing_refs in ("joined", *EMPTY_REFERENCE_DROPS)
        or zero_length_rule(config.on_zero_length).empty_segment_refusal
    )


def _pair_by_pair(
    hypotheses: Sequence[str], candidates: Sequence[str], config: BleuConfig
) -> np.ndarray:
    """:func:`pairwise_scores` one pair at a time: each pair's sentence score as
    :func:`harness.api.sentence_bleu` gives it."""
    score = np.empty((len(hypotheses), len(candidates)), dtype=np.float64)
    for i, h in enumerate(hypotheses):
        for j, c in enumerate(candidates):
            pair = Corpus(hypotheses=(h,), references=((c,),))
            score[i, j] = segment_scores(pair, config)[0].score
    return score
