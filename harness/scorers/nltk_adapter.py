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

nltk exposes no statistics from ``corpus_bleu``; the adapter reads them from what the helpers
it calls inside returned (``modified_precision``: raw counts over floored totals;
``brevity_penalty``: its arguments, the closest reference lengths and the hypothesis lengths,
and the BP). The smoothed precisions that entered the mean are not exposed (``precisions`` is
empty; ``extra["raw_precisions"]`` holds counts/totals). nltk's warnings (method0 warns for
every zero-count order) are captured into ``extra["library_warnings"]``.
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
from harness.scorers.recording import recorded

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

    def _run(
        self,
        config: BleuConfig,
        refs: list[list[list[str]]],
        hyps: list[list[str]],
        sentence: bool,
    ) -> tuple[float, list[str], dict[str, Any]]:
        """nltk's score, its warnings and its statistics, read from the helpers the call made
        (:func:`harness.scorers.recording.recorded`): ``modified_precision`` once per segment
        and order (each a ``Fraction`` with the raw count over the floored total), then
        ``brevity_penalty(closest reference lengths, hypothesis lengths)`` once, before any
        smoothing method's own calls."""
        import nltk.translate.bleu_score as nltk_bleu

        fn, _ = self.smoothing(config)
        weights = config.order_weights
        with (
            warnings.catch_warnings(record=True) as caught,
            recorded(nltk_bleu, "modified_precision") as precisions,
            recorded(nltk_bleu, "brevity_penalty") as penalties,
        ):
            warnings.simplefilter("always")
            if sentence:
                value = nltk_bleu.sentence_bleu(
                    references=refs[0],
                    hypothesis=hyps[0],
                    weights=weights,
                    smoothing_function=fn,
                )
            else:
                value = nltk_bleu.corpus_bleu(
                    list_of_references=refs,
                    hypotheses=hyps,
                    weights=weights,
                    smoothing_function=fn,
                )
        # the counting loop's calls come first, segment by segment, orders 1..n (method5, and
        # method7 through it, call modified_precision again after the loop)
        n = config.max_order
        counted = precisions[: n * len(hyps)]
        orders = [made.args[2] if len(made.args) > 2 else made.kwargs["n"] for made in counted]
        if orders != list(range(1, n + 1)) * len(hyps) or len(penalties) != 1:
            raise RuntimeError(
                f"nltk's BLEU of {len(hyps)} segment(s) made {len(precisions)} "
                f"modified_precision and {len(penalties)} brevity_penalty calls: the installed "
                "nltk computes it differently from the version adapted"
            )
        counts, totals = [0] * n, [0] * n
        for order, made in zip(orders, counted, strict=True):
            counts[order - 1] += made.result.numerator
            totals[order - 1] += made.result.denominator
        ref_len, hyp_len = penalties[0].args
        stats = {
            "counts": tuple(counts),
            "totals": tuple(totals),
            "hyp_len": hyp_len,
            "ref_len": ref_len,
            "bp": float(penalties[0].result),
            "ratio": hyp_len / ref_len if ref_len else 0.0,
        }
        return float(value), [str(w.message).strip() for w in caught], stats

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
        value, caught, stats = self._run(config, refs, hyps, sentence=False)
        return self._result(config, value, caught, stats, sentence=False)

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        refs, hyps = self._tokens(corpus, config)
        out = []
        for r, h, sid in zip(refs, hyps, corpus.ids, strict=True):
            value, caught, stats = self._run(config, [r], [h], sentence=True)
            out.append(
                self._result(
                    config, value, caught, stats, sentence=True, level="segment", segment_id=sid
                )
            )
        return out
