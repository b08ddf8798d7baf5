"""lm-evaluation-harness: its ``bleu`` metric, TruthfulQA's BLEU and CodeXGLUE's smoothed BLEU.

Three adapters over lm-eval 0.4.13 (``pip install lm-eval``), each calling the function the
harness's tasks call, with no option to set: every factor is fixed to the profile it
reproduces, and anything else is refused.

* ``lm-eval`` — ``lm_eval.api.metrics.bleu(items)``, ``items`` = (references, prediction) per
  segment: ``_sacreformat`` transposes the references with ``zip(*refs)`` (ragged references are
  cut to the fewest: ``missing_refs="truncate"``), then ``sacrebleu.corpus_bleu`` with its
  defaults.
* ``lm-eval-truthfulqa`` — ``lm_eval.tasks.truthfulqa.utils.bleu([[ref]], [completion])`` for
  each reference alone (sacrebleu, ``tokenize="intl"``), the best per question (TruthfulQA's
  ``bleu_max``, over the references given), averaged with ``lm_eval.api.metrics.mean``.
  ``diff`` and ``acc`` need the incorrect references as well: :func:`harness.truthfulqa_bleu`.
* ``codexglue`` — ``tasks/code_x_glue/code-text/bleu.py`` (a folder name with a hyphen: loaded
  from its file): ``smoothed_bleu_4(references=[gold], predictions=[output])`` per document, as
  the code2text tasks call it, averaged with ``mean``; with several references, the script's
  ``bleuFromMaps`` on maps built as its ``computeMaps`` builds them (``splitPuncts`` of the
  stripped, lowercased text). Statistics: what the script's ``cook_test`` returned
  inside that call.

``lm_eval.api.metrics.bleu`` and TruthfulQA's ``utils.bleu`` return the score only; the
statistics are what the ``sacrebleu.corpus_bleu`` call they make returned
(:func:`harness.scorers.recording.recorded`), for TruthfulQA the best reference's call.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import AdapterUnavailable
from harness.scorers.base import (
    NAN,
    Adapter,
    Rule,
    extras,
    follows,
    only,
    uniform_weights,
)
from harness.scorers.recording import Call, recorded

#: The code2text task's script, inside the installed ``lm_eval`` package.
CODEXGLUE_SCRIPT = ("tasks", "code_x_glue", "code-text", "bleu.py")

#: The fields every one of these adapters fixes to its profile's value.
_FIXED = (
    "tokenize",
    "lowercase",
    "strip",
    "whitespace",
    "punctuation",
    "articles",
    "missing_refs",
    "max_order",
    "ref_length",
    "ngram_totals",
    "smooth",
    "effective_order",
    "empty_order",
    "zero_guard",
    "on_zero_length",
)


class _LmEvalBase(Adapter):
    distribution = "lm-eval"
    module = "lm_eval.api.metrics"
    install_hint = "pip install lm-eval==0.4.13  (or: pip install 'bleu-harness[peers]')"
    #: what the fixed fields do, for the refusal reason
    WHAT: ClassVar[str] = ""
    #: Whether the metric is a task mean of per-document scores (``_task_mean``).
    TASK_MEAN: ClassVar[bool] = True

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        mine = PROFILES[self.profile]
        fixed = {f: only((getattr(mine, f),), f"has no option: {self.WHAT}") for f in _FIXED}
        case_rule = (
            only((mine.lowercase_rule,), "lowercases with str.lower() before tokenizing")
            if config.lowercase
            else follows("is unused without lowercase")
        )
        return {
            **self.base_rules(config),
            **fixed,
            "lowercase_rule": case_rule,
            "weights": uniform_weights("has no weights argument"),
            "smooth_value": follows("cannot be set"),
            "extra": extras((), "no extra factors"),
        }

    def _task_mean(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """The segments' results averaged as lm-eval's tasks aggregate them
        (``lm_eval.api.metrics.mean`` of the scores; sums of the statistics)."""
        return self._task_mean_of(self._segments(corpus, config), config)

    def derives_corpus(self, config: BleuConfig) -> bool:
        return self.TASK_MEAN

    def corpus_from_segments(
        self, segs: Sequence[BleuResult], config: BleuConfig
    ) -> BleuResult | None:
        return self._task_mean_of(segs, config) if self.TASK_MEAN else None

    def _task_mean_of(self, segments: Sequence[BleuResult], config: BleuConfig) -> BleuResult:
        result = self.mean_result(segments, config)
        value = float(self._metrics().mean([s.score for s in segments]))
        return dataclasses.replace(
            result, score=value, call=f"lm_eval.api.metrics.mean of: {segments[0].call}"
        )

    @staticmethod
    def _metrics() -> Any:
        import lm_eval.api.metrics

        return lm_eval.api.metrics


class LmEvalAdapter(_LmEvalBase):
    """``lm_eval.api.metrics.bleu``."""

    TASK_MEAN = False  # sacrebleu's corpus BLEU of all documents at once

    name = "lm-eval"
    title = "lm-evaluation-harness bleu"
    profile = "lm-eval"
    WHAT = "sacrebleu.corpus_bleu defaults after _sacreformat (ragged references truncated)"

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        import sacrebleu

        metrics = self._metrics()
        items = list(zip(corpus.to_evaluate(), corpus.hypotheses, strict=True))
        with recorded(sacrebleu, "corpus_bleu") as calls:
            value = float(metrics.bleu(items))
        _one_call_each(calls, 1, "lm_eval.api.metrics.bleu")
        stats = calls[0].result
        return self.result(
            config,
            score=value,
            precisions=tuple(float(p) for p in stats.precisions),
            bp=float(stats.bp),
            ratio=float(stats.ratio),
            hyp_len=int(stats.sys_len),
            ref_len=int(stats.ref_len),
            counts=tuple(int(c) for c in stats.counts),
            totals=tuple(int(t) for t in stats.totals),
            call="lm_eval.api.metrics.bleu(list(zip(refs_per_segment, hyps))) (statistics: "
            "the sacrebleu.corpus_bleu call it makes)",
            extra={"streams": len(calls[0].args[1])},  # corpus_bleu(preds, refs)
        )


def _one_call_each(calls: list[Call], expected: int, caller: str) -> None:
    """Check that each of ``expected`` calls of ``caller`` made one ``sacrebleu.corpus_bleu``
    call, whose statistics are read: any other number means the installed lm-eval computes
    its BLEU differently from the version adapted."""
    if len(calls) != expected:
        raise RuntimeError(
            f"{expected} call(s) of {caller} made {len(calls)} sacrebleu.corpus_bleu calls: "
            "the installed lm-eval computes its BLEU differently from the version adapted"
        )


class LmEvalTruthfulqaAdapter(_LmEvalBase):
    """TruthfulQA's ``bleu_max``: each reference alone, the best per question, the mean."""

    name = "lm-eval-truthfulqa"
    title = "lm-evaluation-harness TruthfulQA bleu"
    module = "lm_eval.tasks.truthfulqa.utils"
    profile = "lm-eval-truthfulqa"
    WHAT = "utils.bleu is sacrebleu.corpus_bleu(tokenize='intl') on one reference at a time"

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **super().rules(config),
            "aggregation": only(("best-ref-mean",), "takes the best reference, then the mean"),
        }

    def _segment(self, config: BleuConfig, hyp: str, refs: tuple[str, ...], sid: str) -> BleuResult:
        """One question: ``utils.bleu`` of each reference alone, the best kept; its statistics
        from the sacrebleu call ``utils.bleu`` made for that reference."""
        import lm_eval.tasks.truthfulqa.utils as tqa
        import sacrebleu

        with recorded(sacrebleu, "corpus_bleu") as calls:
            values = [float(tqa.bleu([[ref]], [hyp])) for ref in refs]
        _one_call_each(calls, len(refs), "lm_eval.tasks.truthfulqa.utils.bleu")
        best = max(range(len(refs)), key=values.__getitem__)  # the first of the best
        stats = calls[best].result
        return self.result(
            config,
            score=values[best],
            precisions=tuple(float(p) for p in stats.precisions),
            bp=float(stats.bp),
            ratio=float(stats.ratio),
            hyp_len=int(stats.sys_len),
            ref_len=int(stats.ref_len),
            counts=tuple(int(c) for c in stats.counts),
            totals=tuple(int(t) for t in stats.totals),
            call="max(lm_eval.tasks.truthfulqa.utils.bleu([[ref]], [hyp]) for ref in refs)",
            level="segment",
            segment_id=sid,
            extra={"best_reference": best},
        )

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        return [
            self._segment(config, h, r, sid)
            for h, r, sid in zip(corpus.hypotheses, corpus.references, corpus.ids, strict=True)
        ]

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """TruthfulQA's ``bleu_max`` over the questions, averaged with ``metrics.mean``."""
        return self._task_mean(corpus, config)


def codexglue_script() -> ModuleType:
    """The installed ``lm_eval/tasks/code_x_glue/code-text/bleu.py``, loaded from its file
    (``AdapterUnavailable`` when lm-eval or the file is missing)."""
    cached = sys.modules.get("harness_lm_eval_codexglue_bleu")
    if cached is not None:
        return cached
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or not spec.submodule_search_locations:
        raise AdapterUnavailable("codexglue", "lm_eval is not installed", _LmEvalBase.install_hint)
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*CODEXGLUE_SCRIPT)
    if not path.is_file():
        raise AdapterUnavailable("codexglue", f"{path} is missing", _LmEvalBase.install_hint)
    loader = importlib.util.spec_from_file_location("harness_lm_eval_codexglue_bleu", path)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    sys.modules["harness_lm_eval_codexglue_bleu"] = module
    return module


class CodexglueAdapter(_LmEvalBase):
    """CodeXGLUE's smoothed BLEU as lm-eval's code2text tasks run it."""

    name = "codexglue"
    title = "lm-evaluation-harness code2text smoothed_bleu_4"
    profile = "codexglue"
    WHAT = "the CodeXGLUE script's fixed tokenizer, lowercasing, smoothing and shortest reference"

    def available(self) -> Any:
        base = super().available()
        if not base.ok:
            return base
        try:
            codexglue_script()
        except AdapterUnavailable as exc:
            return type(base)(False, exc.reason, exc.hint)
        return base

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **super().rules(config),
            "aggregation": only(("sentence-mean",), "averages its per-document scores"),
        }

    def _document(
        self, config: BleuConfig, hyp: str, refs: tuple[str, ...], sid: str
    ) -> BleuResult:
        script = codexglue_script()
        with recorded(script, "cook_test") as cooked:
            if len(refs) == 1:
                value = float(script.smoothed_bleu_4(references=[refs[0]], predictions=[hyp]))
                call = "smoothed_bleu_4(references=[gold], predictions=[output])"
            else:
                gold = {0: [script.splitPuncts(r.strip().lower()) for r in refs]}
                pred = {0: [script.splitPuncts(hyp.strip().lower())]}
                value = float(script.bleuFromMaps(gold, pred)[0])
                call = "bleuFromMaps(gold_map, prediction_map)[0] (maps as computeMaps builds them)"
        if len(cooked) != 1:
            raise RuntimeError(
                f"the CodeXGLUE script cooked {len(cooked)} test sentences for one document: "
                "the installed lm-eval's script differs from the version adapted"
            )
        test = cooked[0].result
        counts = tuple(int(c) for c in test["correct"])
        totals = tuple(int(t) for t in test["guess"])
        ref_len = int(test["reflen"])
        return self.result(
            config,
            score=value,
            precisions=(),
            bp=NAN,
            ratio=int(test["testlen"]) / ref_len if ref_len else 0.0,
            hyp_len=int(test["testlen"]),
            ref_len=ref_len,
            counts=counts,
            totals=totals,
            call=f"lm_eval code-text/bleu.py {call}",
            level="segment",
            segment_id=sid,
            extra={"statistics": "what the script's cook_test returned inside the call"},
        )

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        return [
            self._document(config, h, r, sid)
            for h, r, sid in zip(corpus.hypotheses, corpus.references, corpus.ids, strict=True)
        ]

    def _sentence_mean(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """The code2text tasks' aggregation: ``lm_eval.api.metrics.mean`` of the documents."""
        return self._task_mean(corpus, config)
