"""torchmetrics: ``torchmetrics.text.BLEUScore`` and ``SacreBLEUScore`` (two adapters).

Both share ``functional/text/bleu.py``: closest reference length with ties to the **first
listed** reference (``target_len_diff.index(min(target_len_diff))``), a score of 0 whenever any
order has zero matches *before* smoothing (``_bleu_score_compute``: ``if min(numerator) ==
0.0``), ``smooth=True`` adds 1 to matches and totals of orders ≥ 2 only (the unigram precision
is reset to ``numerator[0] / denominator[0]``), optional ``weights``; everything is float32.

* ``torchmetrics`` — ``BLEUScore``: splits on whitespace (``_tokenize_fn``: ``str.split``).
  Other harness tokenizers and ``lowercase`` are expressed by pre-tokenizing with the harness
  and joining tokens with single spaces (exact: tokens never contain whitespace, checked).
* ``torchmetrics-sacrebleu`` — ``SacreBLEUScore``: its own port of sacrebleu's tokenizers
  (``none``, ``13a``, ``zh``, ``intl``, ``char``, ``ja-mecab``, ``ko-mecab``); it lowercases
  *after* tokenizing (``functional/text/sacre_bleu.py``: ``_lower(tokenized_line)``): the
  profile's ``lowercase_rule="unicode-after"``, the only lowercase rule this adapter takes.

The class API is used (not the functional one) because its states expose the statistics:
``numerator``/``denominator`` (counts/totals) and ``preds_len``/``target_len``. The classes
truncate silently when predictions and targets differ in number (the functional API raises);
``Corpus`` is always aligned. Precisions are not exposed (``extra["raw_precisions"]`` holds
counts/totals).
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.bleu.config import TOKENIZERS, BleuConfig
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import REGISTRY, TextRules
from harness.data.corpus import Corpus
from harness.scorers.base import (
    HARNESS_TOKENS,
    Adapter,
    Rule,
    as_segment,
    extras,
    follows,
    joined_tokens,
    only,
    smoothing_decides,
)


def _evaluating() -> Any:
    """``torch.inference_mode()``, as an evaluation loop scores: the metric's states then skip
    autograd's bookkeeping on each of ``_bleu_score_update``'s element-wise additions (the same
    float32 arithmetic, so the same numbers)."""
    import torch

    return torch.inference_mode()


class _TorchmetricsBase(Adapter):
    distribution = "torchmetrics"
    dependencies = ("torch",)
    module = "torchmetrics.text"
    install_hint = (
        "pip install torch --index-url https://download.pytorch.org/whl/cpu && "
        "pip install torchmetrics==1.9.0"
    )

    def __init__(self) -> None:
        pass

    def arithmetic_rules(self, config: BleuConfig) -> dict[str, Rule]:
        """The rules of ``functional/text/bleu.py``, shared by both classes."""
        guards = ("unigram", "any-order", "none") if smoothing_decides(config) else ("any-order",)
        return {
            "max_order": follows("passed as n_gram="),
            "weights": follows("passed as weights="),
            "zero_guard": only(guards, "returns 0 when any order has no match"),
            "ref_length": only(
                ("closest-first",), "uses the closest reference, ties to the first listed"
            ),
            "ngram_totals": only(("plain",), "counts max(0, len - n + 1) n-grams per segment"),
            "smooth": only(
                ("none", "plus-one-high"), "has smooth=False or smooth=True (+1 on orders >= 2)"
            ),
            "smooth_value": follows("cannot be set for the smoothings it offers"),
            "effective_order": only((False,), "has no effective order"),
            "empty_order": only(("zero",), "gives an empty order zero matches, hence score 0"),
            "on_zero_length": only(("zero",), "returns 0 for zero lengths"),
            "extra": extras((), "no extra factors"),
        }

    def _metric(self, config: BleuConfig) -> tuple[Any, str]:
        raise NotImplementedError

    def _inputs(self, corpus: Corpus, config: BleuConfig) -> tuple[list[str], list[list[str]], str]:
        raise NotImplementedError

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        with _evaluating():
            metric, ctor = self._metric(config)
            return self._score(metric, ctor, corpus, config)

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        """Each segment scored alone by one metric object, ``reset()`` between segments
        (torchmetrics' documented way to start over; building a new metric per segment costs
        as much again as scoring it)."""
        out = []
        with _evaluating():
            metric, ctor = self._metric(config)
            for i, sid in enumerate(corpus.ids):
                metric.reset()
                r = self._score(metric, ctor, corpus.subset([i]), config, reset=True)
                out.append(as_segment(r, sid))
        return out

    def _score(
        self, metric: Any, ctor: str, corpus: Corpus, config: BleuConfig, *, reset: bool = False
    ) -> BleuResult:
        preds, target, note = self._inputs(corpus, config)
        metric.update(preds, target)
        value = metric.compute()
        counts = tuple(int(x) for x in metric.numerator.tolist())
        totals = tuple(int(x) for x in metric.denominator.tolist())
        hyp_len = int(metric.preds_len.item())
        ref_len = int(metric.target_len.item())
        return self.result_from_counts(
            config,
            float(value.item()),
            counts=counts,
            totals=totals,
            hyp_len=hyp_len,
            ref_len=ref_len,
            call=f"with torch.inference_mode(): m = {ctor}; "
            f"{'m.reset(); ' if reset else ''}m.update(preds, target); m.compute(){note}",
            extra={"dtype": str(value.dtype)},
        )

    @staticmethod
    def _weights(config: BleuConfig) -> list[float] | None:
        return None if config.weights is None else list(config.weights)


class TorchmetricsAdapter(_TorchmetricsBase):
    """``torchmetrics.text.BLEUScore`` (whitespace-split input)."""

    name = "torchmetrics"
    title = "torchmetrics BLEUScore"
    profile = "torchmetrics"
    TEXT = HARNESS_TOKENS

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **self.base_rules(config),
            "tokenize": only(TOKENIZERS, "splits on whitespace (harness pre-tokenizes)"),
            "lowercase": follows("gets harness tokens"),
            **self.arithmetic_rules(config),
        }

    def _metric(self, config: BleuConfig) -> tuple[Any, str]:
        from torchmetrics.text import BLEUScore

        smooth = config.smooth == "plus-one-high"
        w = self._weights(config)
        return (
            BLEUScore(n_gram=config.max_order, smooth=smooth, weights=w),
            f"torchmetrics.text.BLEUScore(n_gram={config.max_order}, smooth={smooth}, weights={w})",
        )

    def _inputs(self, corpus: Corpus, config: BleuConfig) -> tuple[list[str], list[list[str]], str]:
        if config.text_rules == TextRules(tokenize=config.tokenize) and config.tokenize in (
            "whitespace",
            "none",
        ):
            return list(corpus.hypotheses), corpus.to_evaluate(), ""
        preds = joined_tokens(corpus.hypotheses, config, self.name)
        target = [joined_tokens(seg, config, self.name) for seg in corpus.references]
        note = (
            f" on ' '.join(harness.bleu.tokenizers.tokenize(text, {config.tokenize!r}, "
            f"lowercase={config.lowercase}))"
        )
        return preds, target, note


class TorchmetricsSacrebleuAdapter(_TorchmetricsBase):
    """``torchmetrics.text.SacreBLEUScore`` (its own sacrebleu tokenizer port)."""

    name = "torchmetrics-sacrebleu"
    title = "torchmetrics SacreBLEUScore"
    # SacreBLEUScore tokenizes the raw string (no right-strip first)
    TEXT: ClassVar[dict[str, Rule]] = {
        **Adapter.TEXT,
        "strip": only(("none",), "tokenizes the raw string (no right-strip)"),
        "lowercase_rule": only(("unicode-after",), "lowercases the line after tokenizing it"),
    }
    profile = "torchmetrics-sacrebleu"

    #: SacreBLEUScore takes sacrebleu's tokenizer names (the registry's ``sacrebleu``)
    TOKENIZE: ClassVar[dict[str, str]] = {
        name: spec.sacrebleu for name, spec in REGISTRY.items() if spec.sacrebleu
    }

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **self.base_rules(config),
            "tokenize": only(tuple(self.TOKENIZE), "has no such tokenizer"),
            "lowercase": follows("passed as lowercase="),
            **self.arithmetic_rules(config),
        }

    def _metric(self, config: BleuConfig) -> tuple[Any, str]:
        from torchmetrics.text import SacreBLEUScore

        smooth = config.smooth == "plus-one-high"
        w = self._weights(config)
        tok: Any = self.TOKENIZE[config.tokenize]  # a Literal of its tokenizer names
        return (
            SacreBLEUScore(
                n_gram=config.max_order,
                smooth=smooth,
                tokenize=tok,
                lowercase=config.lowercase,
                weights=w,
            ),
            f"torchmetrics.text.SacreBLEUScore(n_gram={config.max_order}, smooth={smooth}, "
            f"tokenize={tok!r}, lowercase={config.lowercase}, weights={w})",
        )

    def _inputs(self, corpus: Corpus, config: BleuConfig) -> tuple[list[str], list[list[str]], str]:
        return list(corpus.hypotheses), corpus.to_evaluate(), ""
