"""The smoothing registry: every smoothing method the engine knows, each in one entry.

A :class:`Smoothing` names a method's default ``smooth_value`` and its valid range, its
vectorised precision function (over ``R`` rows of ``N`` orders, :class:`Orders`), the source it
follows, and the few ways a method reaches outside the per-order precisions: a count
adjustment before effective order (sacrebleu's add-k), orders dropped from the geometric mean
when their precision is not positive (nltk), epsilons in the brevity penalty's length ratio
(pycocoevalcap), the context nltk's methods 4–7 read (:class:`NltkContext`), and rows on which
the library raises.

:data:`REGISTRY` is the registry; :class:`~harness.bleu.config.BleuConfig` takes its valid
names and value ranges from it and :mod:`harness.bleu.arithmetic` its precisions. Adding a
method is one entry here (a precision function and a :class:`Smoothing`) plus its tests.

Conventions: precisions are on 0–1 here (the arithmetic reports them on 0–100); an order with
no hypothesis n-grams (``total == 0``) gets ``Orders.empty`` unless the method's formula
defines it; only the first ``Orders.used`` orders of a row count (effective order), the rest
are ignored by the caller.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "REGISTRY",
    "NltkContext",
    "Orders",
    "Refusal",
    "Smoothing",
    "ValueRange",
    "get_smoothing",
    "nltk_context",
]

#: pycocoevalcap's epsilons: ``(m + 1e-15) / (t + 1e-9)``, and the same in its length ratio.
COCO_TINY = 1e-15
COCO_SMALL = 1e-9


# ====================================================================== inputs
@dataclass(frozen=True, eq=False)
class NltkContext:
    """What nltk's smoothing methods 4–7 see besides the summed statistics, one value per row.

    nltk's ``corpus_bleu`` passes the corpus hypothesis length (``hyp_len``) to method 4 but
    the *last* segment's hypothesis and references (left over from its loop) to methods 5 and
    6: its length (``last_hyp_len``), its matched 5-grams (``last_correct5``) and its 5-gram
    total (``last_total5``). At sentence level all of them are the segment's own. Build it with
    :func:`nltk_context`; the fields are ``(R,)`` int64 arrays (scalars become one row).
    """

    hyp_len: np.ndarray
    last_hyp_len: np.ndarray
    last_correct5: np.ndarray
    last_total5: np.ndarray

    def __post_init__(self) -> None:
        for name in ("hyp_len", "last_hyp_len", "last_correct5", "last_total5"):
            object.__setattr__(self, name, _column(getattr(self, name)))

    def __len__(self) -> int:
        return len(self.hyp_len)


def nltk_context(
    hyp_len: npt.ArrayLike, last_hyp_len: npt.ArrayLike, last_correct5: npt.ArrayLike
) -> NltkContext:
    """The :class:`NltkContext` of one corpus (scalars) or of ``R`` rows (arrays).

    ``hyp_len``: the corpus hypothesis length; ``last_hyp_len`` and ``last_correct5``: the
    length and matched 5-grams of the corpus's last segment (0 when fewer than 5 orders were
    counted). Its 5-gram total is ``max(0, last_hyp_len - 4)``, as nltk's
    ``modified_precision(…, 5)`` counts it (method 5 floors it at 1 itself).
    """
    last = _column(last_hyp_len)
    return NltkContext(_column(hyp_len), last, _column(last_correct5), np.maximum(0, last - 4))


def _column(values: npt.ArrayLike) -> np.ndarray:
    return np.atleast_1d(np.asarray(values, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class Orders:
    """What a precision function sees: ``R`` rows of ``N`` n-gram orders.

    ``correct``/``total``: ``(R, N)`` float64 matched and total n-grams (after the method's
    count adjustment). ``used``: ``(R,)`` orders that count per row (effective order: the
    orders before the first with no hypothesis n-grams; else ``N``). ``value``: the method's
    ``smooth_value`` (given or default). ``empty``: the precision of an order with no
    hypothesis n-grams under the config's ``empty_order`` rule (0 or 1). ``context``: nltk's
    context, for the methods that read it.
    """

    correct: np.ndarray
    total: np.ndarray
    used: np.ndarray
    value: float | None
    empty: float
    context: NltkContext | None

    @property
    def rows(self) -> int:
        return int(self.correct.shape[0])

    @property
    def orders(self) -> int:
        return int(self.correct.shape[1])

    @property
    def parameter(self) -> float:
        """The method's ``smooth_value`` (given or default), for methods that take one."""
        if self.value is None:
            raise ValueError("this smoothing method needs a smooth_value")
        return self.value

    @functools.cached_property
    def no_ngrams(self) -> np.ndarray:
        """``(R, N)``: orders without hypothesis n-grams (``total == 0``)."""
        return self.total == 0

    @functools.cached_property
    def no_match(self) -> np.ndarray:
        """``(R, N)``: orders with hypothesis n-grams but no match."""
        return ~self.no_ngrams & (self.correct == 0)

    @functools.cached_property
    def safe_total(self) -> np.ndarray:
        """``total`` with 0 replaced by 1 (a divisor that never divides by zero)."""
        return np.where(self.no_ngrams, 1.0, self.total)


#: Rows on which a library raises: ``(rows (R,) bool, library, exception name, reason)``.
Refusal = tuple[np.ndarray, str, str, str]


@dataclass(frozen=True)
class ValueRange:
    """A valid ``smooth_value``: finite and ``> low`` (``strict``) or ``>= low``; ``meaning``
    names the parameter in the library's own terms."""

    low: float
    strict: bool
    meaning: str

    def contains(self, value: float) -> bool:
        return math.isfinite(value) and (value > self.low if self.strict else value >= self.low)


@dataclass(frozen=True)
class Smoothing:
    """One smoothing method.

    ``precisions``: ``Orders -> (R, N)`` smoothed precisions (0–1). ``citation``: the paper
    and implementation it follows. ``default``/``value_range``: its ``smooth_value`` (both
    ``None`` for a method without one). ``adjust_counts``: ``(correct, total, value) ->
    (correct, total)`` applied before effective order (sacrebleu's add-k). ``zero_orders``:
    ``"zero-score"`` — a weighted order whose precision is not positive makes the geometric
    mean 0 (Papineni et al. 2002); ``"dropped"`` — such orders are left out of the weighted
    log sum (nltk's ``corpus_bleu``, ``if p_i > 0``). ``length_epsilons``: ``(a, b)`` makes
    the brevity penalty's length ratio ``(c + a) / (r + b)``. ``context``: the method reads
    :class:`NltkContext`; ``orders_needed``: the n-gram orders the statistics must hold at
    least. ``refusals``: ``Orders -> [Refusal, …]`` the rows the library raises on, in the
    order it checks them. ``zero_sum_segments``: a segment row (not a corpus) whose weighted
    log sum is exactly 0 while an order's precision is 0 scores 0 (nltk 3.2's
    ``sentence_bleu``: ``if sum_s == 0 and all(p_n) == 0: return 0``).
    """

    name: str
    precisions: Callable[[Orders], np.ndarray]
    citation: str
    default: float | None = None
    value_range: ValueRange | None = None
    adjust_counts: (
        Callable[[np.ndarray, np.ndarray, float], tuple[np.ndarray, np.ndarray]] | None
    ) = None
    zero_orders: Literal["zero-score", "dropped"] = "zero-score"
    length_epsilons: tuple[float, float] | None = None
    context: bool = False
    orders_needed: int = 1
    refusals: Callable[[Orders], list[Refusal]] | None = None
    zero_sum_segments: bool = False

    @property
    def takes_value(self) -> bool:
        """Whether the method has a ``smooth_value``."""
        return self.value_range is not None


# ====================================================================== precision functions
def _plain(o: Orders) -> np.ndarray:
    """``correct / total``; orders without hypothesis n-grams get ``o.empty``."""
    return np.where(o.no_ngrams, o.empty, o.correct / o.safe_total)


def _floor(o: Orders) -> np.ndarray:
    return np.where(o.no_match, o.parameter / o.safe_total, _plain(o))


def _exp(o: Orders) -> np.ndarray:
    # the k-th order without matches gets 1 / (2^k total); orders without n-grams don't count
    doubling = np.exp2(np.cumsum(o.no_match, axis=1))
    return np.where(o.no_match, 1.0 / (doubling * o.safe_total), _plain(o))


def _add_k(correct: np.ndarray, total: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray]:
    correct = correct.copy()
    total = total.copy()
    correct[:, 1:] += k
    total[:, 1:] += k
    return correct, total


def _plus_one(o: Orders) -> np.ndarray:
    return (o.correct + 1.0) / (o.total + 1.0)


def _plus_one_high(o: Orders) -> np.ndarray:
    p = _plus_one(o)
    p[:, 0] = _plain(o)[:, 0]
    return p


def _coco(o: Orders) -> np.ndarray:
    return (o.correct + COCO_TINY) / (o.total + COCO_SMALL)


def _codexglue(o: Orders) -> np.ndarray:
    # +1 on orders >= 2; order 1 gets sys.float_info.min on both sides, so 0/0 is 1 and a
    # unigram precision of 0 becomes a tiny positive number (a score of ~1e-75, not 0)
    p = _plus_one(o)
    p[:, 0] = (o.correct[:, 0] + sys.float_info.min) / (o.total[:, 0] + sys.float_info.min)
    return p


def _t2t(o: Orders) -> np.ndarray:
    # exp smoothing; a row without any hypothesis n-gram has no positive precision, and
    # tensor2tensor then leaves its geometric mean at 0
    return np.where(o.no_ngrams.all(axis=1, keepdims=True), 0.0, _exp(o))


# -------------------------------------------------------------------- nltk (Chen & Cherry 2014)
# nltk holds each precision as an unnormalised Fraction(matches, total) (Fraction(0) with
# denominator 1 when total is 0); these are the same numbers in float64.
def _nltk_ratio(o: Orders) -> np.ndarray:
    return np.where(o.no_ngrams, 0.0, o.correct / o.safe_total)


def _nltk_empty(o: Orders, p: np.ndarray) -> np.ndarray:
    """nltk has no empty-order rule: with ``empty_order="one"`` such orders become 1."""
    return np.where(o.total == 0, 1.0, p) if o.empty == 1.0 else p


def _nltk_context_of(o: Orders) -> NltkContext:
    if o.context is None:
        raise ValueError("nltk smoothing needs an NltkContext")
    return o.context


def _method0(o: Orders) -> np.ndarray:
    p = np.where(o.correct != 0, _nltk_ratio(o), sys.float_info.min)
    return _nltk_empty(o, p)


def _method1(o: Orders) -> np.ndarray:
    p = np.where(o.correct == 0, (o.correct + o.parameter) / o.safe_total, _nltk_ratio(o))
    return _nltk_empty(o, p)


def _method2(o: Orders) -> np.ndarray:
    p = (o.correct + 1.0) / (o.safe_total + 1.0)
    p[:, 0] = _nltk_ratio(o)[:, 0]
    return _nltk_empty(o, p)


def _method3(o: Orders) -> np.ndarray:
    no_match = o.correct == 0
    k = np.cumsum(no_match, axis=1)
    p = np.where(no_match, 1.0 / (np.exp2(k) * o.safe_total), _nltk_ratio(o))
    return _nltk_empty(o, p)


def _m4(o: Orders, p: np.ndarray) -> np.ndarray:
    ctx = _nltk_context_of(o)
    hyp_len = np.where(ctx.hyp_len != 0, ctx.hyp_len, ctx.last_hyp_len).astype(np.float64)
    smoothed = (o.correct == 0) & (hyp_len > 1)[:, None]
    k = np.cumsum(smoothed, axis=1)
    log_len = np.log(np.where(hyp_len > 1, hyp_len, np.e))[:, None]
    value = 1 / (np.exp2(k) * o.parameter / log_len) / o.safe_total
    return np.where(smoothed, value, p)


def _m5(o: Orders, p: np.ndarray) -> np.ndarray:
    ctx = _nltk_context_of(o)
    p5 = ctx.last_correct5 / np.maximum(1, ctx.last_total5)
    order = np.arange(o.orders)[None, :]
    # order i is averaged with order i + 1, or with the last segment's 5-gram precision
    # after the last order used
    following = np.where(order + 1 < o.used[:, None], np.roll(p, -1, axis=1), p5[:, None])
    out = np.empty_like(p)
    prev = p[:, 0] + 1
    for i in range(o.orders):
        prev = (prev + p[:, i] + following[:, i]) / 3
        out[:, i] = prev
    return out


def _method4(o: Orders) -> np.ndarray:
    return _nltk_empty(o, _m4(o, _nltk_ratio(o)))


def _method5(o: Orders) -> np.ndarray:
    return _nltk_empty(o, _m5(o, _nltk_ratio(o)))


def _method6(o: Orders) -> np.ndarray:
    ctx = _nltk_context_of(o)
    p = _nltk_ratio(o)
    alpha = o.parameter
    for i in range(2, o.orders):
        prior = np.where(
            p[:, i - 2] == 0, 0.0, p[:, i - 1] ** 2 / np.where(p[:, i - 2] == 0, 1.0, p[:, i - 2])
        )
        count = np.maximum(0, ctx.last_hyp_len - i)
        p[:, i] = (o.correct[:, i] + alpha * prior) / (count + alpha)
    return _nltk_empty(o, p)


def _method6_refusals(o: Orders) -> list[Refusal]:
    third = o.correct[:, 2] == 0 if o.orders >= 3 else np.ones(o.rows, dtype=bool)
    return [
        (o.used < 3, "nltk", "IndexError", "smoothing method 6 needs at least three n-gram orders"),
        (
            third,
            "nltk",
            "AssertionError",
            "smoothing method 6 asserts a non-zero trigram precision",
        ),
    ]


def _method7(o: Orders) -> np.ndarray:
    return _nltk_empty(o, _m5(o, _m4(o, _nltk_ratio(o))))


# ====================================================================== the registry
_NLTK = "nltk SmoothingFunction.method{} (nltk.translate.bleu_score)"
_CHEN = "Chen & Cherry (2014), 'A Systematic Comparison of Smoothing Techniques for Sentence-Level BLEU', method {}"
_NLTK_CORPUS = (
    "; in corpus_bleu it sees the corpus hypothesis length and the last segment's hypothesis "
    "(nltk PR #3903)"
)


def _nltk(
    i: int,
    fn: Callable[[Orders], np.ndarray],
    source: str,
    *,
    default: float | None = None,
    value_range: ValueRange | None = None,
    context: bool = False,
    orders_needed: int = 1,
    refusals: Callable[[Orders], list[Refusal]] | None = None,
) -> Smoothing:
    return Smoothing(
        name=f"nltk-method{i}",
        precisions=fn,
        citation=f"{_NLTK.format(i)}: {source}" + (_NLTK_CORPUS if context else ""),
        default=default,
        value_range=value_range,
        zero_orders="dropped",
        context=context,
        orders_needed=orders_needed,
        refusals=refusals,
    )


_ENTRIES: tuple[Smoothing, ...] = (
    Smoothing(
        "none",
        _plain,
        "Papineni et al. (2002), 'BLEU: a Method for Automatic Evaluation of Machine "
        "Translation' (no smoothing; sacrebleu smooth_method='none')",
    ),
    Smoothing(
        "drop-zero",
        _plain,
        "compare-mt BleuScorer (Neubig et al. 2019): no smoothing, but an order with no match "
        "is left out of the weighted log sum (it counts as precision 1; the weights are not "
        "renormalised)",
        zero_orders="dropped",
    ),
    Smoothing(
        "floor",
        _floor,
        "sacrebleu (Post 2018) smooth_method='floor': a zero-match order gets "
        "smooth_value / total; Chen & Cherry (2014) method 1",
        default=0.1,
        # sacrebleu's own test_offset scores floor 0.0 as 0; < 0 takes log of a negative
        value_range=ValueRange(0.0, False, "the floor (sacrebleu smooth_value)"),
    ),
    Smoothing(
        "add-k",
        _plain,
        "sacrebleu (Post 2018) smooth_method='add-k': smooth_value added to the matches and "
        "totals of orders >= 2; Chen & Cherry (2014) method 2 with k = 1 (Lin & Och 2004)",
        default=1.0,
        # 0 is no smoothing; k < 0 can zero an order's total, which ends sacrebleu's loop
        value_range=ValueRange(0.0, False, "k (sacrebleu smooth_value)"),
        adjust_counts=_add_k,
    ),
    Smoothing(
        "exp",
        _exp,
        "sacrebleu (Post 2018) smooth_method='exp' = mteval-v13a.pl: the k-th zero-match "
        "order gets 1 / (2^k total); Chen & Cherry (2014) method 3",
    ),
    _nltk(0, _method0, "no smoothing; a zero-match order becomes sys.float_info.min"),
    _nltk(
        1,
        _method1,
        _CHEN.format(1) + " (epsilon added to zero matches)",
        default=0.1,
        # nltk skips an order whose smoothed precision is <= 0
        value_range=ValueRange(0.0, True, "epsilon (nltk SmoothingFunction epsilon)"),
    ),
    _nltk(
        2,
        _method2,
        _CHEN.format(2) + "; Lin & Och (2004), 'ORANGE' (+1 on orders >= 2)",
    ),
    _nltk(3, _method3, _CHEN.format(3) + " (NIST geometric sequence, as mteval-v13a)"),
    _nltk(
        4,
        _method4,
        _CHEN.format(4) + " (1 / (2^k K / ln(hypothesis length)))",
        default=5.0,
        # 0 divides by zero; < 0 gives negative precisions, which nltk skips
        value_range=ValueRange(0.0, True, "k (nltk SmoothingFunction k)"),
        context=True,
    ),
    _nltk(
        5,
        _method5,
        _CHEN.format(5) + " (average of orders n-1, n, n+1)",
        context=True,
        orders_needed=5,
    ),
    _nltk(
        6,
        _method6,
        _CHEN.format(6) + "; Gao & He (2013) prior interpolation; asserts a non-zero "
        "trigram precision",
        default=5.0,
        # divides by (hypothesis n-grams + alpha)
        value_range=ValueRange(0.0, True, "alpha (nltk SmoothingFunction alpha)"),
        context=True,
        refusals=_method6_refusals,
    ),
    _nltk(
        7,
        _method7,
        _CHEN.format(7) + " (method 4, then method 5)",
        default=5.0,
        value_range=ValueRange(0.0, True, "k (nltk SmoothingFunction k)"),
        context=True,
        orders_needed=5,
    ),
    Smoothing(
        "plus-one",
        _plus_one,
        "tensorflow/nmt compute_bleu(smooth=True), used by Hugging Face evaluate: "
        "(m + 1) / (t + 1) on every order; Lin & Och (2004), 'ORANGE'",
    ),
    Smoothing(
        "plus-one-high",
        _plus_one_high,
        "torchmetrics BLEUScore(smooth=True): (m + 1) / (t + 1) on orders >= 2 only; "
        "Lin & Och (2004), 'ORANGE'",
    ),
    Smoothing(
        "coco-epsilon",
        _coco,
        "pycocoevalcap Bleu (Chen et al. 2015, 'Microsoft COCO Captions'): "
        "(m + 1e-15) / (t + 1e-9), and the same epsilons in the brevity penalty's length ratio",
        length_epsilons=(COCO_TINY, COCO_SMALL),
    ),
    Smoothing(
        "codexglue",
        _codexglue,
        "CodeXGLUE/CodeBERT smooth BLEU (Lu et al. 2021; the Moses-derived bleu.py vendored by "
        "lm-evaluation-harness code2text): (m + 1) / (t + 1) on orders >= 2 (Lin & Och 2004, "
        "'ORANGE'), (m + f) / (t + f) on order 1 with f = sys.float_info.min, and "
        "(c + 1) / (r + 1) as the brevity penalty's length ratio",
        length_epsilons=(1.0, 1.0),
    ),
    Smoothing(
        "t2t",
        _t2t,
        "tensor2tensor bleu_hook.compute_bleu: the k-th zero-match order gets 1 / (2^k total) "
        "(Chen & Cherry 2014 method 3, as exp); orders without hypothesis n-grams are left out "
        "of the log sum but still divide it (empty_order='one'), and a row with no hypothesis "
        "n-gram at all scores 0",
    ),
)

#: name -> :class:`Smoothing`, in the order the names are listed to users.
REGISTRY: Mapping[str, Smoothing] = MappingProxyType({s.name: s for s in _ENTRIES})


def get_smoothing(name: str) -> Smoothing:
    """The registry entry of ``name`` (``KeyError`` if unknown; ``BleuConfig`` validates
    names before the arithmetic sees them)."""
    return REGISTRY[name]
