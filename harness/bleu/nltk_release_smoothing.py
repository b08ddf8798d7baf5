"""The forms nltk's smoothing methods had in older releases: the ``smooth_forms`` factor.

A configuration's ``smooth`` names a method (``nltk-method4``); its ``smooth_forms`` names
which release's form of the methods runs (``current``: today's, the registry
:data:`harness.bleu.smoothing.REGISTRY`; ``nltk-3.5``: nltk 3.5's). :data:`FORMS` maps each
form set to the methods whose form differs from today's, each a
:class:`~harness.bleu.smoothing.Smoothing` entry built from the pieces below, read from the
releases' own ``nltk/translate/bleu_score.py`` and measured against them
(``tests/test_profile_nltk_releases.py``). :func:`smoothing_of` is what the arithmetic looks
a configuration's method up with. Every difference, by the releases it holds in:

* **log of a zero precision** (≤ 3.6.5): ``corpus_bleu`` takes ``math.log`` of every order's
  smoothed precision; an order left at 0 raises ``ValueError`` (math domain error), where
  3.6.6 on leaves it out (``if p_i > 0``). Only method 4 leaves an order at 0: on a length of
  1 in 3.6.x, after an empty last segment (``L = 0``) in 3.2.2–3.3's ``corpus_bleu``.
* **method 0 drops orders** (3.2.x): an order without matches ends the list of precisions
  (``break``), so it and every higher order are left out of the weighted log sum, weights
  not renormalised: ``sentence_bleu([['a']], ['a'])`` is 1, where 3.3 on gives
  ``sys.float_info.min`` to such an order (a score of ~1e-229).
* **method 2 on unigrams** (≤ 3.5): +1 on the matches and totals of every order, the
  unigrams too (3.6 on: orders ≥ 2 only).
* **method 4's old formulas** (≤ 3.5): an order without matches gets ``1 / (i + k /
  ln(L))`` (≤ 3.4.5; ``i`` the order's 0-based index, read as Python's precedence reads
  ``i + 1 * k / log(L)``), then ``(i + k / ln(L)) / total`` (3.5: precisions above 1), where
  today's gives ``1 / (2^j k / ln(L)) / total``. ``L`` is the hypothesis length: in
  ``corpus_bleu``, the *last* segment's up to 3.3, the corpus's from 3.4. ``L == 1`` divides
  by ``log(1) = 0`` (``ZeroDivisionError``); 3.6.x skips the smoothing there, which leaves
  the order at 0 (the log above). Method 7 is method 4, then method 5, in every release.

Methods 1, 3, 5 and 6 are today's in every release from 3.2.2 on.

nltk 3.2 itself (form set ``nltk-3.2.0``, with ``ngram_totals="reduced"``: each segment's
precision a ``Fraction`` in lowest terms, numerators and denominators summed) takes the
corpus precision as a ``Fraction`` in lowest terms again, so that an order without a match is
``0/1``; its methods: 0 leaves every order at 0 out of the log sum (not only those after the
first), as all its methods do, and ``sentence_bleu`` scores 0 when that sum is 0 with an order
at 0; 1 gives such an order ``epsilon / 1``; 2 is ``(m + 1) / (t + 1)`` on the reduced
fraction; 3 gives the j-th such order ``1 / 2^j``; 4 gives it ``j k / ln(L)`` (``L`` as in
3.2.2–3.3, ``L == 1`` raises ``ZeroDivisionError``, ``L == 0`` leaves it at 0); 5 is today's;
6 interpolates every order but the second and third, the first with the prior of the last two
(``p[-1]² / p[-2]``, Python's negative indices), on the precisions rather than the matches;
7 is its 4, then 5.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np

from harness.bleu.smoothing import (
    REGISTRY,
    Orders,
    Refusal,
    Smoothing,
    _m5,
    _nltk_context_of,
    _nltk_empty,
    _nltk_ratio,
)

__all__ = ["CURRENT", "FORMS", "SMOOTH_FORMS", "smoothing_of"]

#: The form set of today's release: the registry's own methods.
CURRENT = "current"

Precisions = Callable[[Orders], np.ndarray]


# ====================================================================== the pieces
def _method0_dropping(o: Orders) -> np.ndarray:
    """nltk ≤ 3.2.5 method 0: an order without matches has precision 0, which the geometric
    mean leaves out (``zero_orders="dropped"``): its ``break`` ends the list there."""
    return _nltk_empty(o, np.where(o.correct != 0, _nltk_ratio(o), 0.0))


def _method2_every_order(o: Orders) -> np.ndarray:
    """nltk ≤ 3.5 method 2: ``(m + 1) / (t + 1)`` on every order, the unigrams too."""
    return _nltk_empty(o, (o.correct + 1.0) / (o.safe_total + 1.0))


def _length(o: Orders, *, last: bool) -> np.ndarray:
    """The hypothesis length method 4 reads: the last segment's (``last``: nltk ≤ 3.3's
    ``corpus_bleu`` passes the loop's leftover ``hyp_len``), else the corpus's (3.4 on: the
    summed ``hyp_lengths``; 3.5 on, 0 falls back to the last segment's)."""
    ctx = _nltk_context_of(o)
    if last:
        return ctx.last_hyp_len.astype(np.float64)
    return np.where(ctx.hyp_len != 0, ctx.hyp_len, ctx.last_hyp_len).astype(np.float64)


def _old_m4(*, last: bool, per_total: bool) -> Callable[[Orders, np.ndarray], np.ndarray]:
    """nltk ≤ 3.5 method 4 on precisions ``p``: an order without matches (and ``L != 0``) gets
    ``incvnt = i + k / ln(L)``, as ``1 / incvnt`` (≤ 3.4.5) or ``incvnt / total`` (3.5)."""

    def m4(o: Orders, p: np.ndarray) -> np.ndarray:
        length = _length(o, last=last)
        smoothed = (o.correct == 0) & (length != 0)[:, None]
        index = np.arange(o.orders, dtype=np.float64)[None, :]
        log_len = np.log(np.where(length > 0, length, 1.0))[:, None]
        # L == 1 divides by zero: the row is refused (_divides_by_log_one), its number unused
        incvnt = index + o.parameter / np.where(log_len != 0, log_len, np.inf)
        value = incvnt / o.safe_total if per_total else 1.0 / incvnt
        return np.where(smoothed, value, p)

    return m4


def _divides_by_log_one(*, last: bool) -> Callable[[Orders], list[Refusal]]:
    """nltk ≤ 3.5 method 4 (and 7) raises ``ZeroDivisionError`` when it smooths an order of a
    hypothesis (or, as it reads it, a corpus) of one token: ``k / math.log(1)``."""

    def refusals(o: Orders) -> list[Refusal]:
        rows = (_length(o, last=last) == 1) & (o.correct == 0).any(axis=1)
        reason = "smoothing method 4 divides by log(1) (a hypothesis length of 1)"
        return [(rows, "nltk", "ZeroDivisionError", reason)]

    return refusals


# ====================================================================== the entries
def _variant(
    name: str,
    release: str,
    precisions: Precisions,
    *,
    dropping: bool = False,
    refusals: Callable[[Orders], list[Refusal]] | None = None,
) -> Smoothing:
    """Today's entry ``name`` with ``release``'s ``precisions``; unless ``dropping`` (an
    order at 0 is left out), an order left at 0 raises as ``math.log(0)`` does, after the
    method's own refusals and ``refusals``."""
    base = REGISTRY[name]
    own = base.refusals

    def refuse(o: Orders) -> list[Refusal]:
        out = own(o) if own is not None else []
        out += refusals(o) if refusals is not None else []
        if not dropping:
            used = np.arange(o.orders)[None, :] < o.used[:, None]
            zero = np.any((precisions(o) <= 0) & used, axis=1)
            reason = "an order's smoothed precision is 0 (math.log(0): math domain error)"
            out.append((zero, "nltk", "ValueError", reason))
        return out

    return dataclasses.replace(
        base,
        precisions=precisions,
        citation=f"{base.citation}; as in nltk {release}",
        refusals=refuse,
    )


def _log_zero_raises(release: str, **methods: Smoothing) -> dict[str, Smoothing]:
    """Every nltk method of ``release``: ``methods`` (name with ``_`` for ``-``) as given,
    the others today's, each raising where an order is left at 0."""
    out: dict[str, Smoothing] = {}
    for name, spec in REGISTRY.items():
        if not name.startswith("nltk-method"):
            continue
        given = methods.get(name.replace("-", "_"))
        out[name] = given or _variant(name, release, spec.precisions)
    return out


def _forms(release: str, *, last: bool, per_total: bool, drops: bool) -> dict[str, Smoothing]:
    """The methods of nltk ``release`` (≤ 3.5): old method 2 and 4/7, method 0 dropping
    orders where ``drops``."""
    m4 = _old_m4(last=last, per_total=per_total)
    refusals = _divides_by_log_one(last=last)
    methods = {
        "nltk_method2": _variant("nltk-method2", release, _method2_every_order),
        "nltk_method4": _variant(
            "nltk-method4",
            release,
            lambda o: _nltk_empty(o, m4(o, _nltk_ratio(o))),
            refusals=refusals,
        ),
        "nltk_method7": _variant(
            "nltk-method7",
            release,
            lambda o: _nltk_empty(o, _m5(o, m4(o, _nltk_ratio(o)))),
            refusals=refusals,
        ),
    }
    if drops:
        methods["nltk_method0"] = _variant(
            "nltk-method0", release, _method0_dropping, dropping=True
        )
    return _log_zero_raises(release, **methods)


# ====================================================================== nltk 3.2 itself
def _zeros_numbered(smoothed: np.ndarray) -> np.ndarray:
    """1, 2, … along each row over the ``smoothed`` orders (nltk's ``incvnt``)."""
    return np.cumsum(smoothed, axis=1).astype(np.float64)


def _m1_320(o: Orders) -> np.ndarray:
    p = _nltk_ratio(o)
    return _nltk_empty(o, np.where(o.correct == 0, o.parameter, p))


def _m2_320(o: Orders) -> np.ndarray:
    c = o.correct.astype(np.int64)
    t = np.maximum(o.total, 1).astype(np.int64)
    g = np.gcd(c, t)
    return _nltk_empty(o, (c // g + 1.0) / (t // g + 1.0))


def _m3_320(o: Orders) -> np.ndarray:
    p = _nltk_ratio(o)
    zero = p == 0
    return _nltk_empty(o, np.where(zero, 0.5 ** _zeros_numbered(zero), p))


def _m4_320(o: Orders, p: np.ndarray) -> np.ndarray:
    length = _length(o, last=True)
    smoothed = (p == 0) & (length != 0)[:, None]
    log_len = np.log(np.where(length > 1, length, np.e))[:, None]  # L == 1 is refused
    return np.where(smoothed, _zeros_numbered(smoothed) * o.parameter / log_len, p)


def _m6_320(o: Orders) -> np.ndarray:
    p = _nltk_ratio(o)
    length = _length(o, last=True)
    alpha = o.parameter
    for i in range(o.orders):
        if i in (1, 2):
            continue
        before, last = p[:, i - 2], p[:, i - 1]
        prior = np.where(before == 0, 0.0, last**2 / np.where(before == 0, 1.0, before))
        count = np.maximum(0.0, length - i)
        p[:, i] = (p[:, i] + alpha * prior) / (count + alpha)
    return _nltk_empty(o, p)


def _m4_320_refusals(o: Orders) -> list[Refusal]:
    rows = (_length(o, last=True) == 1) & (_nltk_ratio(o) == 0).any(axis=1)
    reason = "smoothing method 4 divides by log(1) (a hypothesis length of 1)"
    return [(rows, "nltk", "ZeroDivisionError", reason)]


def _m6_320_refusals(o: Orders) -> list[Refusal]:
    rows = np.full(o.rows, o.orders < 2)
    return [(rows, "nltk", "IndexError", "smoothing method 6 reads p_n[-2] (one order)")]


def _nltk_320(
    name: str,
    precisions: Precisions,
    refusals: Callable[[Orders], list[Refusal]] | None = None,
) -> Smoothing:
    """nltk 3.2's form of method ``name``: orders at 0 left out, a segment's zero log sum
    with an order at 0 scoring 0, and only its own ``refusals``."""
    base = REGISTRY[name]
    return dataclasses.replace(
        base,
        precisions=precisions,
        citation=f"{base.citation}; as in nltk 3.2",
        refusals=refusals,
        zero_orders="dropped",
        zero_sum_segments=True,
    )


def _forms_320() -> dict[str, Smoothing]:
    """Every nltk method as nltk 3.2 has it."""
    return {
        "nltk-method0": _nltk_320("nltk-method0", _nltk_ratio),
        "nltk-method1": _nltk_320("nltk-method1", _m1_320),
        "nltk-method2": _nltk_320("nltk-method2", _m2_320),
        "nltk-method3": _nltk_320("nltk-method3", _m3_320),
        "nltk-method4": _nltk_320(
            "nltk-method4",
            lambda o: _nltk_empty(o, _m4_320(o, _nltk_ratio(o))),
            _m4_320_refusals,
        ),
        "nltk-method5": _nltk_320("nltk-method5", lambda o: _nltk_empty(o, _m5(o, _nltk_ratio(o)))),
        "nltk-method6": _nltk_320("nltk-method6", _m6_320, _m6_320_refusals),
        "nltk-method7": _nltk_320(
            "nltk-method7",
            lambda o: _nltk_empty(o, _m5(o, _m4_320(o, _nltk_ratio(o)))),
            _m4_320_refusals,
        ),
    }


#: Form set → the methods whose form it changes (name → entry); ``current`` changes none.
FORMS: Mapping[str, Mapping[str, Smoothing]] = MappingProxyType(
    {
        CURRENT: MappingProxyType({}),
        "nltk-3.2.0": _forms_320(),
        "nltk-3.2": _forms("3.2.x", last=True, per_total=False, drops=True),
        "nltk-3.3": _forms("3.3", last=True, per_total=False, drops=False),
        "nltk-3.4": _forms("3.4–3.4.5", last=False, per_total=False, drops=False),
        "nltk-3.5": _forms("3.5", last=False, per_total=True, drops=False),
        "nltk-3.6": _log_zero_raises("3.6–3.6.5"),
    }
)

#: The valid ``smooth_forms`` values (:class:`~harness.bleu.config.BleuConfig`).
SMOOTH_FORMS: tuple[str, ...] = tuple(FORMS)


def smoothing_of(smooth: str, forms: str = CURRENT) -> Smoothing:
    """The entry of method ``smooth`` in form set ``forms``: the release's own form where it
    differs from today's, else the registry's (``KeyError`` for an unknown name or form set;
    :class:`~harness.bleu.config.BleuConfig` validates both)."""
    return FORMS[forms].get(smooth) or REGISTRY[smooth]
