"""bleuscore: ``bleuscore.compute(references=..., predictions=..., ...)`` (Rust, PyO3).

API of bleuscore 0.2.0 (``bleuscore/__init__.pyi``, text signature
``(references, predictions, max_order=4, smooth=False, ref_len_method="shortest")``): the
per-segment layout with **references first**, its own fixed 13a tokenizer (no option, no
lowercase), ``max_order``, ``smooth`` (+1 on every order's matches and totals, unigrams included,
as tensorflow/nmt), ``ref_len_method`` ``"shortest"``/``"hf"`` or ``"closest"``/``"sacrebleu"``
(ties to the shorter). Returns a dict like evaluate's (0–1): no counts.

Quirks: despite its docstring it does not check that the numbers of predictions and reference
lists agree (it scores the common prefix); an empty corpus makes it panic with
``pyo3_runtime.PanicException``, which derives from ``BaseException`` (not ``Exception``).
The adapter always passes aligned, non-empty input (``Corpus`` guarantees both), and turns a
panic into :class:`LibraryPanic` (a ``RuntimeError``) so that ``except Exception`` handlers —
the runner's "the library raised" path — see it instead of being bypassed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.scorers.base import Adapter, Rule, nmt_compute_bleu_rules, only

REF_LEN = {"shortest": "shortest", "closest": "closest"}


class LibraryPanic(RuntimeError):
    """A Rust panic inside bleuscore (``pyo3_runtime.PanicException``, a ``BaseException``)."""


def compute(**kwargs: Any) -> dict[str, Any]:
    """``bleuscore.compute(**kwargs)`` with a panic re-raised as :class:`LibraryPanic`."""
    import bleuscore

    try:
        return bleuscore.compute(**kwargs)
    except BaseException as exc:
        if type(exc).__name__ != "PanicException":
            raise
        raise LibraryPanic(f"bleuscore panicked (pyo3_runtime.PanicException): {exc}") from exc


class BleuscoreAdapter(Adapter):
    """bleuscore's ``compute``."""

    name = "bleuscore"
    # its Rust 13a tokenizes the raw string (no right-strip first)
    TEXT: ClassVar[dict[str, Rule]] = {
        **Adapter.TEXT,
        "strip": only(("none",), "tokenizes the raw string (no right-strip)"),
    }
    distribution = "bleuscore"
    module = "bleuscore"
    profile = "bleuscore"
    install_hint = "pip install bleuscore==0.2.0  (or: pip install 'bleu-harness[peers]')"

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {
            **self.base_rules(config),
            **nmt_compute_bleu_rules(
                config,
                tokenize=only(("13a",), "always tokenizes with its built-in 13a tokenizer"),
                lowercase=only((False,), "has no lowercase option"),
                ref_length=only(tuple(REF_LEN), "offers ref_len_method shortest or closest"),
                on_zero_length=only(("zero",), "returns 0 for zero lengths"),
            ),
        }

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        smooth = config.smooth == "plus-one"
        method = REF_LEN[config.ref_length]
        out = compute(
            references=corpus.to_evaluate(),
            predictions=list(corpus.hypotheses),
            max_order=config.max_order,
            smooth=smooth,
            ref_len_method=method,
        )
        return self.result_from_nmt_dict(
            config,
            out,
            call=(
                "bleuscore.compute(references=refs_per_segment, predictions=hyps, "
                f"max_order={config.max_order}, smooth={smooth}, ref_len_method={method!r})"
            ),
        )
