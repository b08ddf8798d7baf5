"""pytorch-ignite: ``ignite.metrics.Bleu`` on harness tokens.

API of pytorch-ignite 0.5.5 (``ignite/metrics/nlp/bleu.py``): ``Bleu(ngram=4,
smooth="no_smooth", average="macro")``; ``update((y_pred, y))`` takes token sequences, the
hypotheses first and the references per segment (``y[i]`` is segment ``i``'s list of
references); ``compute()``. The adapter tokenizes with :func:`harness.bleu.tokenizers.tokenize`.

What it computes (read from the source and checked by ``tests/test_profile_ignite.py``):

* ``average="macro"`` (the default) is the **mean of sentence BLEU** — each segment scored
  alone, with its own brevity penalty — and ``"micro"`` is corpus BLEU: the profile's
  ``aggregation`` ``sentence-mean`` and ``corpus``;
* the closest reference length, ties to the shorter; plain n-gram totals (no per-segment
  floor); uniform weights (no ``weights`` argument); 0 when no unigram matches;
* ``smooth``: ``no_smooth`` (0 when any order has no match: ``zero_guard="any-order"``),
  ``smooth1`` (a zero-match order gets ``0.1 / max(1, total)``: nltk's method 1 with its
  epsilon fixed at 0.1), ``nltk_smooth2`` (``+1`` on orders ≥ 2 over ``max(1, total)``: nltk's
  method 2) and ``smooth2`` (``+1`` on orders ≥ 2 without the floor: ``plus-one-high``).

Precision: without smoothing, each macro sentence's precisions are divided in float32
(``n.item() / d`` with ``d`` an element of ``torch.zeros(...)``, float32 by default), so the
default profile agrees to the rounding of float32 (about 6e-6 BLEU points at most), not to
1e-9; micro, and every smoothing, compute in float64.

The metric exposes no precisions. Counts, totals and lengths: a ``micro`` metric's public
state (``p_numerators``, ``p_denominators``, ``hyp_length_sum``, ``ref_length_sum``); a
``macro`` metric keeps only its sum of sentence scores, so they are summed from what its n-gram
counter returned for each sentence inside the same ``update``.
"""

from __future__ import annotations

import contextlib
from typing import Any

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.scorers.base import (
    HARNESS_TOKENS,
    Adapter,
    Rule,
    as_segment,
    extras,
    follows,
    only,
    pretokenize,
    smoothing_decides,
    uniform_weights,
)
from harness.scorers.recording import recorded

#: harness smoothing → ignite's ``smooth=`` name.
SMOOTH = {
    "none": "no_smooth",
    "nltk-method1": "smooth1",
    "nltk-method2": "nltk_smooth2",
    "plus-one-high": "smooth2",
}

#: harness aggregation → ignite's ``average=``.
AVERAGE = {"sentence-mean": "macro", "corpus": "micro"}

#: ``smooth1``'s epsilon, fixed in ignite's source.
EPSILON = 0.1

Tokens = tuple[list[list[str]], list[list[list[str]]]]


class IgniteAdapter(Adapter):
    """pytorch-ignite's ``Bleu`` metric (macro = mean of sentence BLEU, micro = corpus)."""

    name = "ignite"
    title = "pytorch-ignite Bleu"
    TEXT = HARNESS_TOKENS
    distribution = "pytorch-ignite"
    dependencies = ("torch",)
    module = "ignite.metrics"
    profile = "ignite"
    install_hint = "pip install torch==2.13.0 pytorch-ignite==0.5.5"

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        no_smooth = (
            ("unigram", "any-order", "none") if smoothing_decides(config) else ("any-order",)
        )
        guards = no_smooth if config.smooth == "none" else ("unigram",)
        epsilon = (None, EPSILON) if config.smooth == "nltk-method1" else (None,)
        return {
            **self.base_rules(config),
            "aggregation": follows("passed as average='macro' (sentence-mean) or 'micro'"),
            "tokenize": follows("gets harness tokens"),
            "lowercase": follows("gets harness tokens"),
            "max_order": follows("passed as ngram="),
            "weights": uniform_weights("has no weights argument"),
            "ref_length": only(("closest",), "uses the closest reference, ties to the shorter"),
            "ngram_totals": only(("plain",), "counts max(0, len - n + 1) n-grams per segment"),
            "smooth": only(
                tuple(SMOOTH),
                "offers no_smooth, smooth1, nltk_smooth2 and smooth2 "
                "(none, nltk-method1, nltk-method2, plus-one-high)",
            ),
            "smooth_value": only(epsilon, "fixes smooth1's epsilon at 0.1"),
            "effective_order": only((False,), "has no effective order"),
            "empty_order": only(("zero",), "gives an empty order zero matches"),
            "zero_guard": only(
                guards,
                "returns 0 when no unigram matches, and without smoothing when any order has none",
            ),
            "on_zero_length": only(("zero",), "returns 0 for zero lengths"),
            "extra": extras((), "no extra factors"),
        }

    # ------------------------------------------------------------------ translation
    @staticmethod
    def _constructor(config: BleuConfig, average: str) -> tuple[Any, str]:
        from ignite.metrics import Bleu

        smooth = SMOOTH[config.smooth]
        return (
            Bleu(ngram=config.max_order, smooth=smooth, average=average),
            f"ignite.metrics.Bleu(ngram={config.max_order}, smooth={smooth!r}, "
            f"average={average!r})",
        )

    @staticmethod
    def _tokens(corpus: Corpus, config: BleuConfig) -> Tokens:
        hyps = pretokenize(corpus.hypotheses, config)
        refs = [pretokenize(seg, config) for seg in corpus.references]
        return hyps, refs

    def _score(
        self, config: BleuConfig, tokens: Tokens, metric_ctor: tuple[Any, str], reset: bool
    ) -> BleuResult:
        """The metric over ``tokens`` in one ``update`` (after ``reset()`` when reused). The
        statistics: a ``micro`` metric's state; a ``macro`` one keeps only the sum of its
        sentence scores, so theirs are what its n-gram counter returned for each sentence
        inside the same call (:func:`harness.scorers.recording.recorded`)."""
        from ignite.metrics import Bleu

        hyps, refs = tokens
        metric, ctor = metric_ctor
        if reset:
            metric.reset()
        macro = metric.average != "micro"
        recording: contextlib.AbstractContextManager[list[Any]] = (
            recorded(Bleu, "_n_gram_counter") if macro else contextlib.nullcontext([])
        )
        with recording as counted:
            metric.update((hyps, refs))
        value = float(metric.compute())
        if not macro:
            counts = tuple(int(x) for x in metric.p_numerators[1:].tolist())
            totals = tuple(int(x) for x in metric.p_denominators[1:].tolist())
            hyp_len, ref_len = int(metric.hyp_length_sum), int(metric.ref_length_sum)
        else:
            if len(counted) != len(hyps):
                raise RuntimeError(
                    f"ignite's macro Bleu counted n-grams {len(counted)} times for {len(hyps)} "
                    "sentences: the installed ignite differs from the version adapted"
                )
            n = config.max_order
            counts_sum, totals_sum = [0] * n, [0] * n
            hyp_len = ref_len = 0
            for made in counted:
                lengths = made.result
                hyp_len, ref_len = hyp_len + int(lengths[0]), ref_len + int(lengths[1])
                for i, x in enumerate(made.kwargs["p_numerators"][1:].tolist()):
                    counts_sum[i] += int(x)
                for i, x in enumerate(made.kwargs["p_denominators"][1:].tolist()):
                    totals_sum[i] += int(x)
            counts, totals = tuple(counts_sum), tuple(totals_sum)
        return self.result_from_counts(
            config,
            value,
            counts=counts,
            totals=totals,
            hyp_len=hyp_len,
            ref_len=ref_len,
            call=f"m = {ctor}; {'m.reset(); ' if reset else ''}m.update((hyps_tokens, "
            f"refs_tokens)); m.compute() on harness tokens ({config.text_rules.key()})",
            extra={"average": metric.average},
        )

    # ------------------------------------------------------------------ scoring
    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        tokens = self._tokens(corpus, config)
        return self._score(config, tokens, self._constructor(config, "micro"), reset=False)

    def _sentence_mean(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """ignite's own ``average="macro"``: the mean of its sentence scores, in one call."""
        tokens = self._tokens(corpus, config)
        return self._score(config, tokens, self._constructor(config, "macro"), reset=False)

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        """Each segment as ignite scores a one-sentence corpus with the config's ``average``
        (``macro``: its sentence BLEU, float32 precisions without smoothing); one metric,
        ``reset()`` between segments (ignite's documented way to start over)."""
        hyps, refs = self._tokens(corpus, config)
        metrics = self._constructor(config, AVERAGE[config.aggregation])
        return [
            as_segment(self._score(config, ([h], [r]), metrics, reset=True), sid)
            for h, r, sid in zip(hyps, refs, corpus.ids, strict=True)
        ]
