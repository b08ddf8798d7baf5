"""nltk: ``nltk.translate.bleu_score.corpus_bleu`` / ``sentence_bleu`` on harness tokens.

nltk scores token lists the caller made: the adapter tokenizes with
:func:`harness.bleu.tokenizers.tokenize` (``whitespace`` is ``str.split``; never
``nltk.word_tokenize``). nltk's argument order is *references first*
(``corpus_bleu(list_of_references, hypotheses, ...)``, ``sentence_bleu(references,
hypothesis, ...)``), the opposite of sacrebleu; the adapter always passes both by keyword.

Expressible (nltk 3.10.4 ``translate/bleu_score.py``): any ``weights`` (their number is the
maximum order), smoothing ``SmoothingFunction().method0``…``method7`` with ``epsilon``
(method 1), ``k`` (methods 4 and 7) and ``alpha`` (method 6). Fixed: closest reference length
with ties to the shorter (``closest_ref_length``), per-segment n-gram totals floored at 1
(``modified_precision``: ``max(1, sum(counts.values()))``), return 0 when no unigram matches.

nltk exposes no statistics from ``corpus_bleu``; the adapter reads them from nltk's own
public helpers on the same tokens (``modified_precision``, ``closest_ref_length``,
``brevity_penalty``) — raw counts, floored totals, lengths and BP. The smoothed precisions that
entered the mean are not exposed (``precisions`` is empty; ``extra["raw_precisions"]`` holds
counts/totals). nltk's warnings (method0 warns for every zero-count order) are captured into
``extra["library_warnings"]``.
"""

from __future__ import annotations

import warnings
from typing import Any

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.scorers.base import (
    HARNESS_TOKENS,
    Adapter,
    Rule,
    extras,
    follows,
    only,
    pretokenize,
)

SMOOTH = tuple(f"nltk-method{i}" for i in range(8))

#: The ``SmoothingFunction`` argument that ``smooth_value`` sets, per method.
PARAMETER = {
    "nltk-method1": "epsilon",
    "nltk-method4": "k",
    "nltk-method6": "alpha",
    "nltk-method7": "k",
}


class NltkAdapter(Adapter):
    """nltk's corpus and sentence BLEU."""

    name = "nltk"
    TEXT = HARNESS_TOKENS
    distribution = "nltk"
    module = "nltk.translate.bleu_score"
    profile = "nltk"
    install_hint = "pip install nltk==3.10.4"

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **self.base_rules(config),
            "tokenize": follows("gets harness tokens"),
            "lowercase": follows("gets harness tokens"),
            "max_order": follows("passed as the number of weights"),
            "weights": follows("passed as weights="),
            "ref_length": only(("closest",), "always uses the closest reference length"),
            "ngram_totals": only(("floor1",), "floors each segment's order-n total at 1"),
            "smooth": only(SMOOTH, "smooths with SmoothingFunction().method0..method7 only"),
            "smooth_value": follows("passed as the SmoothingFunction argument of PARAMETER"),
            "effective_order": only((False,), "has no effective order"),
            "empty_order": only(("zero",), "gives an empty order precision 0"),
            "zero_guard": only(("unigram",), "returns 0 when no unigram matches"),
            "on_zero_length": only(("zero",), "returns 0 for zero lengths"),
            "extra": extras((), "no extra factors"),
        }

    # ------------------------------------------------------------------ translation
    def smoothing(self, config: BleuConfig) -> tuple[Any, str]:
        """The bound smoothing method and its source text."""
        from nltk.translate.bleu_score import SmoothingFunction

        params: dict[str, float] = {}
        value = config.effective_smooth_value
        name = PARAMETER.get(config.smooth)
        if name is not None and value is not None:
            params[name] = value
        method = config.smooth.removeprefix("nltk-")
        sf = SmoothingFunction(**params)
        args = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return getattr(sf, method), f"SmoothingFunction({args}).{method}"

    def _statistics(
        self, refs: list[list[list[str]]], hyps: list[list[str]], n: int
    ) -> dict[str, Any]:
        from nltk.translate.bleu_score import (
            brevity_penalty,
            closest_ref_length,
            modified_precision,
        )

        counts = [0] * n
        totals = [0] * n
        hyp_len = ref_len = 0
        for r, h in zip(refs, hyps, strict=True):
            for i in range(n):
                p = modified_precision(r, h, i + 1)
                counts[i] += p.numerator
                totals[i] += p.denominator
            hyp_len += len(h)
            ref_len += closest_ref_length(r, len(h))
        return {
            "counts": tuple(counts),
            "totals": tuple(totals),
            "hyp_len": hyp_len,
            "ref_len": ref_len,
            "bp": float(brevity_penalty(ref_len, hyp_len)),
            "ratio": hyp_len / ref_len if ref_len else 0.0,
        }

    def _run(
        self,
        config: BleuConfig,
        refs: list[list[list[str]]],
        hyps: list[list[str]],
        sentence: bool,
    ) -> tuple[float, list[str]]:
        from nltk.translate.bleu_score import corpus_bleu, sentence_bleu

        fn, _ = self.smoothing(config)
        weights = config.order_weights
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if sentence:
                value = sentence_bleu(
                    references=refs[0],
                    hypothesis=hyps[0],
                    weights=weights,
                    smoothing_function=fn,
                )
            else:
                value = corpus_bleu(
                    list_of_references=refs,
                    hypotheses=hyps,
                    weights=weights,
                    smoothing_function=fn,
                )
        return float(value), [str(w.message).strip() for w in caught]

    def _call(self, config: BleuConfig, sentence: bool) -> str:
        _, smoothing = self.smoothing(config)
        w = config.order_weights
        if sentence:
            head = "nltk.translate.bleu_score.sentence_bleu(references=refs_tokens, hypothesis=hyp_tokens"
        else:
            head = "nltk.translate.bleu_score.corpus_bleu(list_of_references=refs_tokens, hypotheses=hyps_tokens"
        return (
            f"{head}, weights={w!r}, smoothing_function={smoothing}) "
            f"on harness tokens ({config.text_rules.key()})"
        )

    def _tokens(
        self, corpus: Corpus, config: BleuConfig
    ) -> tuple[list[list[list[str]]], list[list[str]]]:
        hyps = pretokenize(corpus.hypotheses, config)
        refs = [pretokenize(seg, config) for seg in corpus.references]
        return refs, hyps

    def _result(
        self,
        config: BleuConfig,
        value: float,
        caught: list[str],
        stats: dict[str, Any],
        sentence: bool,
        **fields: Any,
    ) -> BleuResult:
        extra: dict[str, Any] = {
            "raw_precisions": [
                100.0 * c / t if t else 0.0
                for c, t in zip(stats["counts"], stats["totals"], strict=True)
            ],
            "library_value": value,
        }
        if caught:
            extra["library_warnings"] = caught
        if not sentence and config.smooth in (
            "nltk-method4",
            "nltk-method5",
            "nltk-method6",
            "nltk-method7",
        ):
            extra["nltk_corpus_context"] = "last-segment"
        return self.result(
            config,
            score=100.0 * value,
            precisions=(),
            call=self._call(config, sentence),
            extra=extra,
            **stats,
            **fields,
        )

    # ------------------------------------------------------------------ scoring
    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        refs, hyps = self._tokens(corpus, config)
        value, caught = self._run(config, refs, hyps, sentence=False)
        stats = self._statistics(refs, hyps, config.max_order)
        return self._result(config, value, caught, stats, sentence=False)

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        refs, hyps = self._tokens(corpus, config)
        out = []
        for r, h, sid in zip(refs, hyps, corpus.ids, strict=True):
            value, caught = self._run(config, [r], [h], sentence=True)
            stats = self._statistics([r], [h], config.max_order)
            out.append(
                self._result(
                    config, value, caught, stats, sentence=True, level="segment", segment_id=sid
                )
            )
        return out
