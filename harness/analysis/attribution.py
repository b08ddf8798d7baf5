"""Attribution: how many BLEU points each factor explains when moving from profile A to B.

Two BLEU implementations are two points ``a`` and ``b`` of the factor space of
:class:`~harness.bleu.config.BleuConfig`. :func:`attribute` moves the in-house engine from ``a`` to
``b`` through every *hybrid* configuration — ``a`` with a subset ``S`` of the differing factors
taken from ``b`` — and splits the gap ``score_b - score_a`` among the factors by their exact
Shapley values (Shapley 1953)::

    v(S)  = engine score (0–100) of a with the factors in S taken from b
    φ_f   = Σ_{S ⊆ D∖{f}} |S|! (k − |S| − 1)! / k! · (v(S ∪ {f}) − v(S))      (k = |D|)
    Σ φ_f = v(D) − v(∅) = score_b − score_a

where ``D`` are the factors on which ``a`` and ``b`` differ. A factor that never changes the
number (a dummy player) gets exactly 0; factors that only matter together (interaction) share
their joint effect equally. Every hybrid is scored from statistics counted once per
tokenization by the :class:`~harness.session.Session` the caller passes (``session=``: its
cache, on disk too, and its workers), never by re-tokenizing.

With ``library=`` the real library is run on ``b`` through its adapter and the **residual**
``library score − engine score_b`` is what the factor space does not explain: a finding, not
an error (0 when the profile reproduces the library exactly).

Factor grouping (:data:`FACTORS`)
--------------------------------
A factor is a set of ``BleuConfig`` fields that move together. Fields are grouped when a hybrid
that splits them would be a variant no library implements *and* splitting them would assign
points to artefacts of the split:

* ``smoothing`` = ``smooth``, ``smooth_value``, ``smooth_forms``, ``zero_guard``, ``empty_order``: together they
  are one library's *zero-count policy*. sacrebleu's unigram guard (sacrebleu#141) exists
  because ``exp`` smoothing would otherwise score a hypothesis with no matching word above 0.
  Splitting them breaks sacrebleu→evaluate on such a corpus: both score 0, yet the hybrid
  "exp without guard" scores X > 0, so separate factors would get +X/2 (guard) and −X/2
  (smoothing) for a gap of 0. ``empty_order`` (mteval's "an order with no hypothesis n-grams
  counts as precision 1") is the same kind of rule; ``smooth_value`` is only meaningful with
  its method (``BleuConfig`` rejects it otherwise).
* ``order`` = ``max_order``, ``weights``: the weights must have ``max_order`` entries.
* ``zero_length`` = ``on_zero_length`` is its own factor: it never changes a number except
  multi-bleu's "0 when the reference side is empty"; otherwise it decides only whether the
  library dies. See *Hybrids that raise* below.
* every other field is its own factor; ``library`` and ``extra`` are not factors (``library``
  names the library in error messages; ``extra`` carries adapter-only settings).

Hybrids that raise
------------------
Some configurations refuse to produce a number (:class:`~harness.errors.LibraryWouldRaise`):
evaluate divides by a zero total length, mteval and multi-bleu die on an empty hypothesis side,
nltk's method 6 asserts a non-zero trigram precision. A nan score (``on_zero_length="nan"``,
keras-hub's 0/0 length ratio) is handled as such a refusal.

* If ``a`` or ``b`` itself raises, the gap is undefined: :class:`AttributionUndefined` names
  the endpoint and the library's exception.
* If only an intermediate hybrid raises and its ``on_zero_length`` is a dying policy, that
  hybrid is scored as if ``on_zero_length="zero"`` (what every non-dying implementation
  reports: BP 0, score 0 for an empty hypothesis side), and the hybrid is listed in
  ``Attribution.substituted``. Dying is reported, not scored, so the ``zero_length`` factor
  gets only the points of real number changes. Hybrids that still raise (nltk method 6), or
  every raising hybrid with ``strict=True``, raise :class:`AttributionUndefined` naming the
  factor combination.

>>> from harness.data.fixtures import load_fixture
>>> r = attribute(load_fixture("silence_pitfall").corpus("B"), "sacrebleu",
...               BleuConfig(tokenize="13a", smooth="nltk-method0", ngram_totals="floor1"),
...               session=Session())
>>> list(r.factors), round(r.factors["ngram_totals"], 4), round(r.gap, 4)
(['ngram_totals', 'smoothing'], -0.8475, -0.8475)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from harness.api import resolve_config
from harness.bleu.config import BleuConfig
from harness.bleu.zero_length import zero_length_rule
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.errors import ConfigError, HarnessError, LibraryWouldRaise
from harness.scorers import get_adapter
from harness.session import Session

__all__ = [
    "FACTORS",
    "Attribution",
    "AttributionUndefined",
    "attribute",
    "attribute_fixture",
    "differing_factors",
    "hybrid",
    "shapley",
]

#: Factor name → the ``BleuConfig`` fields it moves together, in report order.
FACTORS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "sentence_split": ("sentence_split",),
        "tokenization": ("tokenize", "strip", "whitespace"),
        "ngram_identity": ("ngram_identity",),
        "case": ("lowercase", "lowercase_rule"),
        "punctuation": ("punctuation",),
        "articles": ("articles",),
        "ref_length": ("ref_length", "missing_refs"),
        "ngram_totals": ("ngram_totals",),
        "smoothing": ("smooth", "smooth_value", "smooth_forms", "zero_guard", "empty_order"),
        "effective_order": ("effective_order",),
        "aggregation": ("aggregation",),
        "order": ("max_order", "weights"),
        "zero_length": ("on_zero_length",),
        "rounding": ("round_digits", "round_rule"),
    }
)

#: ``BleuConfig`` fields that are not BLEU factors.
NOT_FACTORS: tuple[str, ...] = ("library", "extra")


class AttributionUndefined(HarnessError):
    """A score the attribution needs does not exist: the configuration raises on this input.

    ``combination`` lists the factors taken from ``b`` (``()`` is ``a`` itself, all differing
    factors is ``b``); ``signature`` is the configuration's signature and ``cause`` the
    :class:`~harness.errors.LibraryWouldRaise` behind it.
    """

    def __init__(
        self,
        message: str,
        *,
        combination: tuple[str, ...],
        signature: str,
        cause: LibraryWouldRaise,
    ) -> None:
        self.combination = combination
        self.signature = signature
        self.cause = cause
        super().__init__(message)


# ====================================================================== the factor space
def differing_factors(source: BleuConfig, target: BleuConfig) -> tuple[str, ...]:
    """The factors (in :data:`FACTORS` order) on which ``source`` and ``target`` differ."""
    return tuple(
        name
        for name, fields in FACTORS.items()
        if any(getattr(source, f) != getattr(target, f) for f in fields)
    )


def hybrid(source: BleuConfig, target: BleuConfig, factors: Sequence[str]) -> BleuConfig:
    """``source`` with the fields of ``factors`` taken from ``target`` (always a valid
    configuration, because fields that constrain each other belong to the same factor).

    ``library`` (used only to name the library in ``LibraryWouldRaise``) follows the
    ``zero_length`` factor, whose policy decides whether a hybrid dies.
    """
    overrides: dict[str, Any] = {}
    if "zero_length" in factors:
        overrides["library"] = target.library
    for name in factors:
        if name not in FACTORS:
            raise ConfigError(f"unknown factor {name!r}", valid=list(FACTORS))
        for f in FACTORS[name]:
            overrides[f] = getattr(target, f)
    return source.replace(**overrides) if overrides else source


def shapley(players: int, value: Callable[[int], float]) -> list[float]:
    """Exact Shapley values of the ``players`` players of the game ``value``.

    ``value(mask)`` is the worth of the coalition whose players are the set bits of ``mask``
    (player ``i`` is bit ``i``); each value is requested once. The values sum to
    ``value(2**players - 1) - value(0)`` up to floating-point rounding (``math.fsum`` keeps it
    tight).

    >>> shapley(2, lambda m: [0.0, 1.0, 2.0, 5.0][m])  # 1 + 2 alone, +2 together, split evenly
    [2.0, 3.0]
    """
    k = players
    if k < 0:
        raise ValueError("players must be >= 0")
    v = [value(mask) for mask in range(1 << k)]
    fact = [math.factorial(i) for i in range(k + 1)]
    out = []
    for f in range(k):
        bit = 1 << f
        terms = []
        for mask in range(1 << k):
            if mask & bit:
                continue
            s = mask.bit_count()
            weight = fact[s] * fact[k - s - 1] / fact[k]
            terms.append(weight * (v[mask | bit] - v[mask]))
        out.append(math.fsum(terms))
    return out


# ====================================================================== the result
@dataclass(frozen=True)
class Attribution:
    """The gap between two BLEU variants, split among the factors on which they differ.

    ``a``/``b``: profile names, or signatures for configurations given directly.
    ``score_a``/``score_b``: the in-house engine's scores (0–100); ``gap = score_b - score_a``.
    ``factors``: factor → Shapley value in BLEU points, only the differing factors, in
    :data:`FACTORS` order; they sum to ``gap``. ``changes``: factor → {field: [value in a,
    value in b]} for the fields that differ. ``residual``: real library score − ``score_b``
    when ``library`` was given, else ``None``. ``segment``: the segment id for a
    sentence-level attribution (``None``: corpus level). ``substituted``: hybrids that raise and
    were scored with ``on_zero_length="zero"`` (each as ``"+".join(factors taken from b)``).
    """

    a: str
    b: str
    score_a: float
    score_b: float
    gap: float
    factors: Mapping[str, float]
    residual: float | None = None
    library: str | None = None
    library_score: float | None = None
    segment: str | None = None
    corpus: str = ""
    signature_a: str = ""
    signature_b: str = ""
    changes: Mapping[str, Mapping[str, tuple[Any, Any]]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    substituted: tuple[str, ...] = ()

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("shares",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "a",
        "b",
        "corpus",
        "segment",
        "score_a",
        "score_b",
        "gap",
        "factors",
        "shares",
        "changes",
        "residual",
        "library",
        "library_score",
        "signature_a",
        "signature_b",
        "substituted",
    )

    @property
    def explained(self) -> float:
        """The sum of the factor values (equals ``gap`` up to rounding)."""
        return math.fsum(self.factors.values())

    def share(self, factor: str) -> float | None:
        """``factors[factor] / gap``, or ``None`` when the gap is 0."""
        if self.gap == 0:
            return None
        return self.factors[factor] / self.gap

    @property
    def shares(self) -> dict[str, float | None]:
        """:meth:`share` of every factor."""
        return {f: self.share(f) for f in self.factors}

    @property
    def share_total(self) -> float | None:
        return None if self.gap == 0 else self.explained / self.gap


# ====================================================================== attribution
def _resolve(x: str | BleuConfig) -> tuple[str, BleuConfig]:
    if isinstance(x, BleuConfig):
        return x.signature(), x
    if isinstance(x, str):
        return x, resolve_config(x)
    raise ConfigError(f"a profile name or a BleuConfig is required, got {type(x).__name__}")


def _segment_index(corpus: Corpus, segment: str) -> int:
    try:
        return corpus.ids.index(str(segment))
    except ValueError:
        shown = list(corpus.ids[:20]) + (["…"] if len(corpus) > 20 else [])
        raise ConfigError(f"corpus has no segment {segment!r}", valid=shown) from None


def attribute(
    corpus: Corpus,
    source: str | BleuConfig,
    target: str | BleuConfig,
    *,
    segment: str | None = None,
    library: str | None = None,
    library_score: float | None = None,
    strict: bool = False,
    session: Session,
) -> Attribution:
    """Split ``score(target) - score(source)`` on ``corpus`` among the factors where they differ.

    ``source`` and ``target`` (the result's ``a`` and ``b``) are profile names
    (``harness.PROFILES``) or configurations. ``segment`` (an id of ``corpus``) attributes that
    segment's sentence score instead of the corpus score (the ``aggregation`` factor then gets
    0). ``library`` (an adapter name) also runs the real library on ``target`` and reports
    ``residual = library − engine``; ``library_score`` is that
    library's score when the caller already has it (a report's row), so the library is not run
    again. ``strict=True`` refuses to
    substitute hybrids that raise (see the module docstring). ``session`` (required: the
    run's session is the one owner of statistics): where statistics are counted and cached
    (its cache and workers are used; its corpora are not). Scores are 0–100.
    """
    label_a, cfg_a = _resolve(source)
    label_b, cfg_b = _resolve(target)
    names = differing_factors(cfg_a, cfg_b)
    k = len(names)
    full = (1 << k) - 1
    configs = [hybrid(cfg_a, cfg_b, _members(names, mask)) for mask in range(1 << k)]
    configs[0], configs[full] = cfg_a, cfg_b  # the same arithmetic; keeps library names

    index = None if segment is None else _segment_index(corpus, segment)
    scoped = corpus if index is None else corpus.subset([index])
    scope = session.with_corpora(scoped)
    scope.warm(configs)  # each tokenization once, with the largest order any hybrid needs

    def raw(cfg: BleuConfig) -> float:
        score = scope.score(cfg).score if index is None else scope.segments(cfg)[0].score
        if math.isnan(score):  # on_zero_length="nan": no number, handled as a dying policy
            raise LibraryWouldRaise(
                cfg.library, "nan", "the length ratio is 0/0 (both total lengths are 0)"
            )
        return score

    substituted: list[str] = []

    def value(mask: int) -> float:
        cfg = configs[mask]
        combo = _members(names, mask)
        try:
            return raw(cfg)
        except LibraryWouldRaise as exc:
            if mask in (0, full):
                which, label = ("a", label_a) if mask == 0 else ("b", label_b)
                raise AttributionUndefined(
                    f"cannot attribute: {which} ({label}) has no score on this "
                    f"{_scope(segment)}: {exc}",
                    combination=combo,
                    signature=cfg.signature(),
                    cause=exc,
                ) from exc
            if strict or not zero_length_rule(cfg.on_zero_length).leaves_no_score:
                raise AttributionUndefined(
                    f"cannot attribute: the hybrid {label_a} + ({', '.join(combo)} from "
                    f"{label_b}) has no score on this {_scope(segment)}: {exc}",
                    combination=combo,
                    signature=cfg.signature(),
                    cause=exc,
                ) from exc
            try:
                score = raw(cfg.replace(on_zero_length="zero"))
            except LibraryWouldRaise as exc2:
                raise AttributionUndefined(
                    f"cannot attribute: the hybrid {label_a} + ({', '.join(combo)} from "
                    f"{label_b}) has no score on this {_scope(segment)}, even with "
                    f"on_zero_length='zero': {exc2}",
                    combination=combo,
                    signature=cfg.signature(),
                    cause=exc2,
                ) from exc2
            substituted.append("+".join(combo))
            return score

    # The endpoints first, so that an undefined gap is reported as such.
    score_a = value(0)
    score_b = value(full)
    # The real library next (an unsupported setting fails before the 2^k hybrids run).
    residual = None
    if library is not None and library_score is not None:
        residual = library_score - score_b
    elif library is not None:
        adapter = get_adapter(library)
        if index is None:
            library_score = adapter.corpus(corpus, cfg_b).score
        else:
            library_score = adapter.segments(scoped, cfg_b)[0].score
        residual = library_score - score_b

    cache = {0: score_a, full: score_b}
    phi = shapley(k, lambda m: cache[m] if m in cache else value(m))

    changes = {
        name: MappingProxyType(
            {
                f: (getattr(cfg_a, f), getattr(cfg_b, f))
                for f in FACTORS[name]
                if getattr(cfg_a, f) != getattr(cfg_b, f)
            }
        )
        for name in names
    }
    return Attribution(
        a=label_a,
        b=label_b,
        score_a=score_a,
        score_b=score_b,
        gap=score_b - score_a,
        factors=MappingProxyType(dict(zip(names, phi, strict=True))),
        residual=residual,
        library=library,
        library_score=library_score,
        segment=None if index is None else corpus.ids[index],
        corpus=corpus.name,
        signature_a=cfg_a.signature(),
        signature_b=cfg_b.signature(),
        changes=MappingProxyType(changes),
        substituted=tuple(sorted(set(substituted))),
    )


def _members(names: Sequence[str], mask: int) -> tuple[str, ...]:
    return tuple(n for i, n in enumerate(names) if mask >> i & 1)


def _scope(segment: str | None) -> str:
    return "corpus" if segment is None else f"segment {segment!r}"


def attribute_fixture(
    name: str,
    system: str | None,
    source: str | BleuConfig,
    target: str | BleuConfig,
    **kwargs: Any,
) -> Attribution:
    """:func:`attribute` on a shipped fixture's system (``system=None``: its only system)."""
    fx = load_fixture(name)
    if system is None:
        if len(fx.system_names) != 1:
            raise ConfigError(
                f"fixture {name!r} has several systems; pass one", valid=fx.system_names
            )
        system = fx.system_names[0]
    return attribute(fx.corpus(system), source, target, **kwargs)
