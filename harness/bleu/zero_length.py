"""What a zero total length does: one named rule per way a library meets it.

A corpus (or segment) whose hypothesis or reference side tokenized to nothing has no length
ratio. Most libraries score it 0; others raise, die with a Perl message, print 0 for one side
and die on the other, refuse before scoring, or return nan. Each way is a
:class:`ZeroLengthRule` in :data:`ZERO_LENGTH_RULES`, named by what it reproduces and chosen
by ``BleuConfig.on_zero_length``; the arithmetic (:mod:`harness.bleu.arithmetic`), the engine's
per-segment refusals and the analyses that must tell a refused score from a number read the
rule's fields, never its name. Adding a library's way is one entry here plus its tests.

A refusal is a :data:`~harness.bleu.smoothing.Refusal`: the rows refused, the library, the
exception it raises and why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from harness.bleu.smoothing import Refusal

__all__ = ["ZERO_LENGTH_RULES", "ZeroLengthRule", "zero_length_rule"]

#: ``(sys_len, ref_len, corpus, library)`` → the rows refused before the brevity penalty.
Before = Callable[[np.ndarray, np.ndarray, bool, str], list[Refusal]]
#: ``(sys_len, ref_len, bp, ratio, corpus, library)`` → ``(bp, ratio, refusals)`` once the
#: brevity penalty is computed.
After = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool, str],
    tuple[np.ndarray, np.ndarray, list[Refusal]],
]


@dataclass(frozen=True)
class ZeroLengthRule:
    """One library's way with a zero total length.

    ``before`` and ``after``: the rows it refuses, and how it changes the brevity penalty and
    ratio (``None``: it does neither; a zero hypothesis length then gives BP 0, both lengths 0
    give BP 1). ``empty_reference_scores_zero``: a row whose reference side is empty scores 0
    with BP and ratio 0, whatever else it holds. ``first_segment_refusal``: the library reads
    the first token of the first segment before it scores
    (:func:`harness.bleu.engine.first_segment_refusal`). ``empty_segment_refusal``: the
    library raises on any segment whose hypothesis or one of whose references has no tokens
    (:func:`harness.bleu.refusals.empty_segment_refusal`). ``leaves_no_score``: on some input it
    gives no number (it raises, dies or returns nan), which an attribution may replace by rule
    ``zero`` in an intermediate configuration.
    """

    name: str
    summary: str
    before: Before | None = None
    after: After | None = None
    empty_reference_scores_zero: bool = False
    first_segment_refusal: bool = False
    empty_segment_refusal: bool = False

    @property
    def leaves_no_score(self) -> bool:
        # printing 0 for an empty reference side is a number; refusing or nan is none
        return (
            self.before is not None
            or self.after is not None
            or self.first_segment_refusal
            or self.empty_segment_refusal
        )


def _divides_by_zero(
    sys_len: np.ndarray, ref_len: np.ndarray, _corpus: bool, lib: str
) -> list[Refusal]:
    return [
        (
            ref_len == 0,
            lib,
            "ZeroDivisionError",
            "the total reference length is 0 (length ratio = hyp_len / 0)",
        ),
        (
            sys_len == 0,
            lib,
            "ZeroDivisionError",
            "the total hypothesis length is 0 (brevity penalty exp(1 - 1/ratio), ratio 0)",
        ),
    ]


def _brevity_divides_by_zero(
    sys_len: np.ndarray, _ref_len: np.ndarray, _corpus: bool, lib: str
) -> list[Refusal]:
    reason = "the total hypothesis length is 0 (brevity penalty exp(1 - r / 0))"
    return [(sys_len == 0, lib, "ZeroDivisionError", reason)]


def _mteval_ratio(
    sys_len: np.ndarray, ref_len: np.ndarray, corpus: bool, lib: str
) -> list[Refusal]:
    if not corpus:
        return []
    return [
        (
            ref_len == 0,
            lib,
            "Illegal division by zero (perl die)",
            "the total reference length is 0 (the length-ratio report divides by it)",
        )
    ]


def _mteval_log(
    sys_len: np.ndarray,
    _ref_len: np.ndarray,
    bp: np.ndarray,
    ratio: np.ndarray,
    corpus: bool,
    lib: str,
) -> tuple[np.ndarray, np.ndarray, list[Refusal]]:
    # BP 0 for an empty hypothesis side, even against empty references; the system report
    # takes log(BP), so it dies when BP is 0 (an empty hypothesis side, or r/c beyond about
    # 746, where exp underflows). Documents and segments never die.
    bp = np.where(sys_len == 0, 0.0, bp)
    refusals: list[Refusal] = []
    if corpus:
        refusals.append(
            (
                bp == 0.0,
                lib,
                "Can't take log of 0 (perl die)",
                "the brevity penalty is 0 (empty hypothesis side, or exp underflow) and "
                "the report takes its log",
            )
        )
    return bp, ratio, refusals


def _moses_empty_hypothesis(
    sys_len: np.ndarray, ref_len: np.ndarray, _corpus: bool, lib: str
) -> list[Refusal]:
    return [
        (
            (sys_len == 0) & (ref_len != 0),
            lib,
            "Illegal division by zero (perl die)",
            "the total hypothesis length is 0",
        )
    ]


def _float32_nan(
    sys_len: np.ndarray,
    ref_len: np.ndarray,
    bp: np.ndarray,
    ratio: np.ndarray,
    _corpus: bool,
    _lib: str,
) -> tuple[np.ndarray, np.ndarray, list[Refusal]]:
    both = (sys_len == 0) & (ref_len == 0)  # ratio = 0/0 is nan, and so is everything after
    return np.where(both, np.nan, bp), np.where(both, np.nan, ratio), []


_RULES: tuple[ZeroLengthRule, ...] = (
    ZeroLengthRule(
        "zero",
        "a zero hypothesis (or reference) length gives BP 0 / score 0 (sacrebleu, nltk, …)",
    ),
    ZeroLengthRule(
        "raise",
        "tensorflow-nmt/evaluate: a zero hypothesis or reference length divides by zero",
        before=_divides_by_zero,
    ),
    ZeroLengthRule(
        "hypothesis-raises",
        "nltk 3.2: a zero hypothesis length divides by zero in the brevity penalty "
        "exp(1 - r/c), whatever the references; a zero reference length alone gives BP 1",
        before=_brevity_divides_by_zero,
    ),
    ZeroLengthRule(
        "mteval",
        "mteval-v13a.pl: the system score dies when the total reference length (Illegal "
        "division by zero) or hypothesis length (Can't take log of 0) is 0; document and "
        "segment scores never die (an empty hypothesis segment scores 0)",
        before=_mteval_ratio,
        after=_mteval_log,
    ),
    ZeroLengthRule(
        "moses",
        "multi-bleu.perl: dies on an empty hypothesis side, prints 0 when the reference "
        "length is 0",
        before=_moses_empty_hypothesis,
        empty_reference_scores_zero=True,
    ),
    ZeroLengthRule(
        "jury",
        "as raise, but first jury's Collator.collapse reads the first token of the first "
        "segment's hypothesis (and of its reference when every segment has exactly one) and "
        "raises IndexError when there is none",
        before=_divides_by_zero,
        first_segment_refusal=True,
    ),
    ZeroLengthRule(
        "guarded",
        "the code-summarization toolbox's google_bleu.py (tensorflow/nmt's compute_bleu with "
        "its divisions guarded): a zero reference length makes the length ratio 0, so the "
        "row scores 0 (BP 0) whatever the hypothesis holds; a zero hypothesis length gives BP "
        "0, as zero does",
        empty_reference_scores_zero=True,
    ),
    ZeroLengthRule(
        "opik",
        "opik's BLEU metrics: an output or a reference without words raises "
        "MetricComputationError, wherever it is (under aggregation nonempty-mean the mean "
        "leaves such segments out, as opik.evaluate does, and has none when every segment "
        "is one); otherwise as zero",
        empty_segment_refusal=True,
    ),
    ZeroLengthRule(
        "nan",
        "keras-hub: the length ratio 0/0 (both lengths 0) is a float32 division, which gives "
        "nan instead of raising, and so is the score; one length 0 alone gives BP 0 "
        "(hypothesis) or 1 (reference), as zero does",
        after=_float32_nan,
    ),
)

#: Rule name → rule, in declaration order (``BleuConfig.on_zero_length``'s choices).
ZERO_LENGTH_RULES: Mapping[str, ZeroLengthRule] = MappingProxyType({r.name: r for r in _RULES})


def zero_length_rule(name: str) -> ZeroLengthRule:
    """The rule called ``name`` (a ``KeyError`` names the choices)."""
    try:
        return ZERO_LENGTH_RULES[name]
    except KeyError:
        raise KeyError(
            f"unknown zero-length rule {name!r}: one of {list(ZERO_LENGTH_RULES)}"
        ) from None
