"""The public scoring entry points.

Both take ``hypotheses=``/``hypothesis=`` and ``references=`` by keyword only: nltk takes
references first and sacrebleu hypotheses first, and the harness refuses to add a third
convention. ``references`` is always per segment (the evaluate layout); use
:meth:`harness.data.corpus.Corpus.from_streams` to convert sacrebleu reference streams.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import engine, pairwise
from harness.bleu.config import BleuConfig, check_override_names
from harness.bleu.layouts import given_references
from harness.bleu.profile_spec import release_tokenizer
from harness.bleu.profiles import get_profile
from harness.bleu.result import BleuResult, SegmentBleu
from harness.data.corpus import Corpus
from harness.data.recent import RecentCorpora
from harness.errors import ConfigError, InputError, LayoutError
from harness.session.cache import StatisticsCache

#: How many (corpus, tokenization) statistics the public functions keep in memory, and about
#: how much memory they may take together.
API_CACHE_ENTRIES = 32
API_CACHE_BYTES = 256 * 2**20

# The statistics of the corpora given to corpus_bleu / segment_bleu / truthfulqa_bleu, keyed by
# content (see statistics_cache): scoring one corpus under several profiles, or again, counts it
# once per tokenization, even when each call is given new list objects.
_STATISTICS = StatisticsCache(max_entries=API_CACHE_ENTRIES, max_bytes=API_CACHE_BYTES)

#: How many corpora of recent calls the public functions keep, to be found again (without
#: building and hashing them anew) by a call given the very same string objects.
API_RECENT_CORPORA = 4
_CORPORA = RecentCorpora(max_entries=API_RECENT_CORPORA)


def statistics_cache() -> StatisticsCache:
    """The in-memory cache behind :func:`corpus_bleu`, :func:`segment_bleu` and
    :func:`truthfulqa_bleu`: statistics keyed by the corpus content (sha256 of every text), the
    tokenization and the engine version, at most :data:`API_CACHE_ENTRIES` entries and about
    :data:`API_CACHE_BYTES` of memory (least recently used dropped). Scores are the same with or without it; ``.stats`` counts hits,
    ``.clear()`` empties it, ``.enabled = False`` makes every call count afresh.

    >>> statistics_cache().max_entries
    32
    """
    return _STATISTICS


def resolve_config(profile: str | BleuConfig = "sacrebleu", **overrides: Any) -> BleuConfig:
    """A profile (by name or as a config) with any factors overridden.

    Unknown override names or values raise :class:`~harness.errors.ConfigError` listing the
    valid ones. A tokenizer asked for under a versioned profile is the form its release ran
    under that name (:func:`~harness.bleu.profile_spec.release_tokenizer`:
    ``profile="sacrebleu@1.5", tokenize="intl"`` is ``intl-1.x``).
    """
    base = profile if isinstance(profile, BleuConfig) else get_profile(profile)
    check_override_names(overrides)
    if isinstance(overrides.get("tokenize"), str):
        overrides["tokenize"] = release_tokenizer(base, overrides["tokenize"])
    return base.replace(**overrides) if overrides else base


def _label(profile: str | BleuConfig, overrides: dict[str, Any]) -> str:
    name = profile if isinstance(profile, str) else "custom"
    if overrides:
        name += "+" + ",".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    return f"harness:{name}"


def corpus_bleu(
    *,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    profile: str | BleuConfig = "sacrebleu",
    **overrides: Any,
) -> BleuResult:
    """Corpus BLEU (0–100) of ``hypotheses`` against per-segment ``references``.

    ``references[i]`` lists the references of segment ``i`` (ragged allowed). ``profile`` picks
    a library's defaults (see ``harness.PROFILES``); keyword overrides change single factors.

    >>> r = corpus_bleu(hypotheses=["the cat sat on the mat"],
    ...                 references=[["the cat sat on the mat"]])
    >>> round(r.score, 6), r.signature.split("|")[0]
    (100.0, 'tok:13a')
    """
    config = resolve_config(profile, **overrides)
    references = given_references(references, config)
    corpus = _CORPORA.corpus(hypotheses, references)
    return engine.score_statistics(
        _STATISTICS.get(corpus, config), config, implementation=_label(profile, overrides)
    )


def sentence_bleu(
    *,
    hypothesis: str,
    references: Sequence[str],
    profile: str | BleuConfig = "sacrebleu-sentence",
    **overrides: Any,
) -> BleuResult:
    """BLEU (0–100) of one ``hypothesis`` against its list of ``references``.

    The default profile is sacrebleu's ``sentence_score`` (effective order, exp smoothing).
    """
    if not isinstance(hypothesis, str):
        raise LayoutError(
            "sentence_bleu takes one hypothesis string; use corpus_bleu for a list"
            if isinstance(hypothesis, (list, tuple))
            else "hypothesis must be a string",
            what="hypothesis",
            expected="str",
            got=type(hypothesis).__name__,
        )
    if isinstance(references, (str, bytes)) or not isinstance(references, Iterable):
        raise LayoutError(
            "references must be a list of strings (one segment's references)",
            what="references",
            expected="list[str]",
            got=type(references).__name__,
        )
    config = resolve_config(profile, **overrides)
    (refs,) = given_references([tuple(references)], config)
    corpus = Corpus(hypotheses=(hypothesis,), references=(refs,))
    (result,) = engine.segment_scores(corpus, config, implementation=_label(profile, overrides))
    return result


def segment_bleu(
    *,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    profile: str | BleuConfig = "sacrebleu-sentence",
    **overrides: Any,
) -> SegmentBleu:
    """Every segment's sentence BLEU (0–100) at once, as numpy arrays (:class:`SegmentBleu`).

    Segment ``i`` is scored as a sentence against ``references[i]`` under the per-segment
    arithmetic of ``profile`` with ``overrides`` — what :func:`sentence_bleu` gives segment by
    segment (the default profile is sacrebleu's ``sentence_score``), from one counting pass
    and one vectorised arithmetic call. Rules that look at the whole corpus still do
    (``missing_refs="truncate"`` cuts every segment to the fewest references, ``"empty"`` pads
    to the most). Input is checked as :func:`corpus_bleu` checks it.

    >>> r = segment_bleu(hypotheses=["the cat sat", "a dog"],
    ...                  references=[["the cat sat"], ["the dog"]])
    >>> r.score.round(4).tolist()
    [100.0, 50.0]
    """
    config = resolve_config(profile, **overrides)
    references = given_references(references, config)
    corpus = _CORPORA.corpus(hypotheses, references)
    stats = _STATISTICS.get(corpus, config)
    arr = engine.segment_arrays(stats, config)
    return SegmentBleu(
        score=arr.score,
        precisions=arr.precisions,
        bp=arr.bp,
        ratio=arr.ratio,
        # copies: the cached statistics are read-only and shared with later calls
        hyp_len=stats.hyp_len.copy(),
        ref_len=np.array(arr.ref_len),
        counts=np.array(arr.counts),
        totals=arr.totals,
        ids=np.asarray(stats.ids),
        signature=config.signature(),
    )


def _texts(values: Any, what: str) -> Sequence[str]:
    """``values`` checked as a non-empty list of strings (errors name ``what``)."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise LayoutError(
            f"{what} must be a list of strings",
            what=what,
            expected="list[str]",
            got=type(values).__name__,
        )
    if len(values) == 0:
        raise LayoutError(f"no {what}", what=what, expected=">= 1", got=0)
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise InputError(f"{what}[{i}] must be a string, got {type(v).__name__} {v!r:.60}")
    return values


def pairwise_bleu(
    *,
    hypotheses: Sequence[str],
    candidates: Sequence[str] | None = None,
    profile: str | BleuConfig = "sacrebleu-sentence",
    **overrides: Any,
) -> np.ndarray:
    """(H, C) matrix of sentence BLEU (0–100): hypothesis ``i`` scored with candidate ``j`` as
    its single reference (self-BLEU, MBR; sacrebleu#254).

    ``candidates=None`` scores the hypotheses against themselves (diagonal included: the
    self-BLEU matrix). Entry ``[i, j]`` equals ``sentence_bleu(hypothesis=hypotheses[i],
    references=[candidates[j]], profile=profile, **overrides).score``; every text is tokenized
    and counted once (:mod:`harness.bleu.pairwise`).

    >>> pairwise_bleu(hypotheses=["the cat sat", "the cat"]).round(4).tolist()
    [[100.0, 55.0321], [60.6531, 100.0]]
    """
    config = resolve_config(profile, **overrides)
    hyps = _texts(hypotheses, "hypotheses")
    cands = hyps if candidates is None else _texts(candidates, "candidates")
    return pairwise.pairwise_scores(hyps, cands, config)


@dataclass(frozen=True)
class TruthfulQABleu:
    """lm-eval's TruthfulQA BLEU triple, per question and averaged over questions.

    ``max``: the best BLEU (0–100) of the answer against any correct reference alone;
    ``diff``: that minus the best against any incorrect reference alone; ``acc``: 1 where the
    correct side is strictly better, else 0. ``bleu_max``, ``bleu_diff``, ``bleu_acc``: their
    means over questions (what the task reports).
    """

    max: tuple[float, ...]
    diff: tuple[float, ...]
    acc: tuple[int, ...]
    bleu_max: float
    bleu_diff: float
    bleu_acc: float


def _check_side(side: str, refs: Any, hypotheses: Any) -> None:
    """One side of :func:`truthfulqa_bleu` checked as a list with a non-empty reference list
    per question; errors name the side (``correct_references`` or ``incorrect_references``)
    and the question."""
    if isinstance(refs, (str, bytes)) or not isinstance(refs, Sequence):
        raise LayoutError(
            f"{side} must be a list with one list of references per question",
            what=side,
            expected="list[list[str]]",
            got=type(refs).__name__,
        )
    n = len(hypotheses) if isinstance(hypotheses, Sequence) else None
    if n is not None and len(refs) != n:
        raise LayoutError(
            f"{side} needs one reference list per hypothesis (question)",
            what=side,
            expected=n,
            got=len(refs),
        )
    for k, seg in enumerate(refs):
        if isinstance(seg, Sequence) and not isinstance(seg, (str, bytes)) and len(seg) == 0:
            word = side.split("_")[0]
            raise LayoutError(
                f"question {k + 1} has no {word} reference: every question needs at least one "
                "correct and one incorrect reference (lm-eval's np.nanmax raises on an empty "
                "side)",
                what=f"{side}[{k}]",
                expected=">= 1",
                got=0,
            )


def truthfulqa_bleu(
    *,
    hypotheses: Sequence[str],
    correct_references: Sequence[Sequence[str]],
    incorrect_references: Sequence[Sequence[str]],
    profile: str | BleuConfig = "lm-eval-truthfulqa",
    **overrides: Any,
) -> TruthfulQABleu:
    """TruthfulQA's ``bleu_max`` / ``bleu_diff`` / ``bleu_acc`` (lm-eval's
    ``process_results_gen``): each reference scored alone as a sentence (the engine's
    ``best-ref-mean`` aggregation, sacrebleu with ``intl`` tokens by default), the best over
    the correct and over the incorrect references of every question compared.

    Every question needs at least one reference on each side (lm-eval's ``np.nanmax`` raises
    on an empty side: here a ``LayoutError`` naming the side and the question, as for a side
    that is not a list or has another length than ``hypotheses``); a ``ConfigError`` is raised
    for a profile whose aggregation is not ``best-ref-mean``.
    """
    for side, refs in (
        ("correct_references", correct_references),
        ("incorrect_references", incorrect_references),
    ):
        _check_side(side, refs, hypotheses)
    config = resolve_config(profile, **overrides)
    if config.aggregation != "best-ref-mean":
        raise ConfigError(
            f"truthfulqa_bleu scores each reference alone: aggregation {config.aggregation!r} "
            "is not 'best-ref-mean'",
            valid=("best-ref-mean",),
        )
    best = []
    for refs in (correct_references, incorrect_references):
        corpus = _CORPORA.corpus(hypotheses, refs)
        best.append(
            [r.score for r in engine.segment_results(_STATISTICS.get(corpus, config), config)]
        )
    diff = tuple(c - i for c, i in zip(best[0], best[1], strict=True))
    acc = tuple(int(c > i) for c, i in zip(best[0], best[1], strict=True))
    k = len(diff)
    return TruthfulQABleu(
        max=tuple(best[0]),
        diff=diff,
        acc=acc,
        bleu_max=sum(best[0]) / k,
        bleu_diff=sum(diff) / k,
        bleu_acc=sum(acc) / k,
    )


__all__ = [
    "ConfigError",
    "SegmentBleu",
    "TruthfulQABleu",
    "corpus_bleu",
    "pairwise_bleu",
    "resolve_config",
    "segment_bleu",
    "sentence_bleu",
    "statistics_cache",
    "truthfulqa_bleu",
]
