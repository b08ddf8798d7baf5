"""sacrebleu: ``sacrebleu.metrics.BLEU(..., references=refs_streams).corpus_score(hyps, None)``.

The references are given to the metric once, as sacrebleu's command line does for several
systems: their statistics are cached by sacrebleu and reused for every system scored against
the same test set (the same numbers as ``corpus_score(hyps, refs_streams)``).

Layout: sacrebleu takes reference *streams* (``refs[k][i]`` = k-th reference of segment i),
the transpose of the harness's per-segment layout; ragged segments are padded with ``None``,
which sacrebleu drops (``metrics/base.py`` ``_cache_references``: ``[x for x in refs if x is
not None]``). Never ``''``: that is a reference of length 0 (see :mod:`.misuse`).

What sacrebleu 2.6.0 can express (``metrics/bleu.py``): ``tokenize`` (13a, intl, char, zh,
none, ja-mecab, ko-mecab, flores/spm), ``lowercase`` (before tokenizing), ``smooth_method``
none/floor/add-k/exp with ``smooth_value``, ``max_ngram_order``, ``effective_order``. Fixed:
closest reference length with ties to the shorter (``_get_closest_ref_len``), plain n-gram
totals, score 0 when nothing matches at all (``compute_bleu``'s early stop, sacrebleu#141),
uniform weights. Its ``none`` tokenizer returns the line unchanged and n-gram extraction then
splits on any whitespace (``metrics/helpers.py`` ``line.split()``), so the harness's
``whitespace`` tokenizer maps to sacrebleu's ``none`` exactly.

Quirk handled here: with ``add-k`` sacrebleu adds k to the counts and totals it *returns*
(``compute_bleu`` mutates ``correct``/``total`` in place for orders ≥ 2); the adapter reports
the raw counts from the same call with ``smooth_method='none'`` and keeps sacrebleu's smoothed
ones in ``extra["library_counts"]``/``extra["library_totals"]``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.scorers.base import (
    Adapter,
    Rule,
    extras,
    follows,
    only,
    smoothing_decides,
    uniform_weights,
)

#: harness tokenizer name -> sacrebleu ``tokenize=`` value (the registry's ``sacrebleu``)
TOKENIZE = {name: spec.sacrebleu for name, spec in REGISTRY.items() if spec.sacrebleu}
SMOOTH = ("none", "floor", "add-k", "exp")


@contextlib.contextmanager
def quiet_sacrebleu() -> Iterator[None]:
    """Silence sacrebleu's logger (``sentence_score`` warns on every call without
    effective order)."""
    logger = logging.getLogger("sacrebleu")
    old = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(old)


class SacrebleuAdapter(Adapter):
    """sacrebleu's ``BLEU`` metric; ``corpus_score`` for corpora, ``sentence_score`` for
    segments."""

    name = "sacrebleu"
    title = "sacrebleu"
    distribution = "sacrebleu"
    module = "sacrebleu"
    profile = "sacrebleu"
    install_hint = "pip install sacrebleu==2.6.0"

    # ------------------------------------------------------------------ translation
    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        guards = ("unigram", "any-order", "none") if smoothing_decides(config) else ("unigram",)
        # With effective order, orders without hypothesis n-grams are dropped, so their
        # precision never enters; without it sacrebleu leaves them at precision 0.
        empty = ("zero", "one") if config.effective_order else ("zero",)
        return {
            **self.base_rules(config),
            "tokenize": only(tuple(TOKENIZE), "has no such tokenizer"),
            "lowercase": follows("passed as lowercase="),
            "max_order": follows("passed as max_ngram_order="),
            "ref_length": only(("closest",), "always uses the closest reference length"),
            "ngram_totals": only(("plain",), "counts max(0, len - n + 1) n-grams per segment"),
            "smooth": only(SMOOTH, "offers smooth_method none/floor/add-k/exp only"),
            "smooth_value": follows("passed as smooth_value= (floor, add-k)"),
            "weights": uniform_weights("has no weights argument"),
            "effective_order": follows("passed as effective_order="),
            "empty_order": only(empty, "gives an order without hypothesis n-grams precision 0"),
            "zero_guard": only(guards, "returns 0 when no n-gram matches at all (#141)"),
            "on_zero_length": only(("zero",), "returns BP 0 / score 0 for zero lengths"),
            "extra": extras((), "no extra factors"),
        }

    def _kwargs(self, config: BleuConfig, smooth: str | None = None) -> dict[str, Any]:
        smooth = config.smooth if smooth is None else smooth
        value = config.effective_smooth_value if smooth in ("floor", "add-k") else None
        return {
            "tokenize": TOKENIZE[config.tokenize],
            "lowercase": config.lowercase,
            "smooth_method": smooth,
            "smooth_value": value,
            "max_ngram_order": config.max_order,
            "effective_order": config.effective_order,
        }

    def metric(self, config: BleuConfig, smooth: str | None = None) -> Any:
        """The configured ``sacrebleu.metrics.BLEU`` object."""
        from sacrebleu.metrics import BLEU

        return BLEU(**self._kwargs(config, smooth))

    def _ctor(self, config: BleuConfig) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs(config).items())
        return f"sacrebleu.metrics.BLEU({args})"

    # ------------------------------------------------------------------ scoring
    def _from_score(
        self, score: Any, config: BleuConfig, call: str, raw: Any = None, **fields: Any
    ) -> BleuResult:
        extra: dict[str, Any] = fields.pop("extra", {})
        counts, totals = score.counts, score.totals
        if raw is not None:  # add-k: sacrebleu returned smoothed counts
            extra["library_counts"] = [float(c) for c in counts]
            extra["library_totals"] = [float(t) for t in totals]
            counts, totals = raw.counts, raw.totals
        return self.result(
            config,
            score=float(score.score),
            precisions=tuple(float(p) for p in score.precisions),
            bp=float(score.bp),
            ratio=float(score.ratio),
            hyp_len=int(score.sys_len),
            ref_len=int(score.ref_len),
            counts=tuple(int(c) for c in counts),
            totals=tuple(int(t) for t in totals),
            call=call,
            extra=extra,
            **fields,
        )

    #: How many (configuration, reference set) metrics with their references cached are kept.
    KEPT_METRICS = 4

    def _metric_with_references(
        self, config: BleuConfig, streams: tuple[tuple[Any, ...], ...], smooth: str | None = None
    ) -> Any:
        """``BLEU(..., references=streams)``: the metric with the references tokenized and
        counted once, as sacrebleu's command line scores several systems against one test
        set; kept for the next system scored against the same references."""
        from sacrebleu.metrics import BLEU

        kept: dict[Any, Any] = self.__dict__.setdefault("_kept_metrics", {})
        kwargs = self._kwargs(config, smooth)
        key = (tuple(sorted(kwargs.items())), streams)
        metric = kept.pop(key, None)
        if metric is None:
            with quiet_sacrebleu():
                metric = BLEU(**kwargs, references=[list(s) for s in streams])
            while len(kept) >= self.KEPT_METRICS:
                del kept[next(iter(kept))]
        kept[key] = metric
        return metric

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        hyps = list(corpus.hypotheses)
        streams = tuple(map(tuple, corpus.to_streams(padding="none")))
        metric = self._metric_with_references(config, streams)
        with quiet_sacrebleu():
            score = metric.corpus_score(hyps, None)
            raw = None
            if config.smooth == "add-k":
                plain = self._metric_with_references(config, streams, smooth="none")
                raw = plain.corpus_score(hyps, None)
        ctor = self._ctor(config)[:-1] + ", references=refs_streams)"
        return self._from_score(
            score,
            config,
            f"{ctor}.corpus_score(hyps, None)",
            raw,
            extra={"library_signature": str(metric.get_signature())},
        )

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        metric = self.metric(config)
        raw_metric = self.metric(config, smooth="none") if config.smooth == "add-k" else None
        call = f"{self._ctor(config)}.sentence_score(hyp, refs)"
        out = []
        with quiet_sacrebleu():
            for hyp, refs, sid in zip(
                corpus.hypotheses, corpus.references, corpus.ids, strict=True
            ):
                score = metric.sentence_score(hyp, list(refs))
                raw = raw_metric.sentence_score(hyp, list(refs)) if raw_metric else None
                out.append(
                    self._from_score(score, config, call, raw, level="segment", segment_id=sid)
                )
        return out


class SacrebleuSentenceAdapter(SacrebleuAdapter):
    """sacrebleu's sentence API averaged: ``BLEU(effective_order=True).sentence_score`` per
    segment, then the mean (what users who average sentence BLEU get). A second view of the
    sacrebleu adapter's library; ``compare`` runs it only when named."""

    name = "sacrebleu-sentence"
    profile = "sacrebleu-sentence"
    compared_by_default = False
