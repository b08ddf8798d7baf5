"""Readings: the configurations that reproduce the subject, each stated from a named profile.

A :class:`Reading` is one way to read the subject's scores: a named profile of
:data:`~harness.bleu.profiles.PROFILES` with the fewest changes — factors changed and modelled
mistakes made (:mod:`~harness.diagnose.validate.bugs`) — that give the subject's score on as
many scored cases as any candidate does. :func:`find_readings` tries every profile as it is,
with each single-factor change and with each modelled mistake, the fitted model stated from
every profile, and the fit's mistakes made on every one of those configurations that computes
as the fit's configuration does; the readings with the highest agreement and, among those,
the fewest steps are equal, and are all kept (:class:`Readings`).

A factor or bug class is *diagnosed* only when every one of those readings needs it
(:attr:`Readings.needed`): a home-made BLEU without smoothing reads as sacrebleu with
``smooth=none`` and, on the same cases, as torchmetrics' port of sacrebleu with sacrebleu's
reference-length tie rule; neither smoothing nor the reference length is then a finding.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness.analysis.attribution import FACTORS, differing_factors
from harness.bleu.profiles import PROFILES
from harness.diagnose.validate.bugs import BUG_MODELS, Model
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.fit import changed_fields
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.subjects import Outcome
from harness.diagnose.validate.variants import single_factor_variants

__all__ = ["Reading", "Readings", "find_readings", "reading_of", "rounded_cases"]

#: Cases every candidate is first scored on: one that fails more of them than the best
#: candidate so far fails in all is dropped without scoring the rest.
_SAMPLE = 24
#: The order diagnosed factors and bug classes are listed in.
_ORDER = [*FACTORS, *dict.fromkeys(cls for cls, _ in BUG_MODELS.values())]


@dataclass(frozen=True)
class Reading:
    """A named ``profile`` with ``changes`` (configuration field → value) and modelled
    mistakes ``bugs`` (names of :data:`~harness.diagnose.validate.bugs.BUG_MODELS`) that
    reproduces the subject on ``agreement`` of the scored cases (a share, 0–1).

    ``factors`` are the factors of :data:`~harness.analysis.attribution.FACTORS` the changes
    belong to (``zero_length`` aside: a profile's refusal of empty input is not a way of
    computing BLEU), ``bug_classes`` the classes of the mistakes. ``same``: the other
    profiles from which the same configuration is as many steps away (a port that computes as
    its original does, such as ``compare-mt-sacrebleu``). ``other_values``: how many other
    values of the same factors of the same profile agree as well (``smooth=none`` and
    ``smooth=nltk-method0`` on cases where nothing is smoothed). ``rounds``: the scored cases
    it reproduces only at the subject's printed precision (``rounding`` is then one more
    thing it needs; a profile that rounds as the subject does needs no such step).

    Its JSON writes ``changes`` as a mapping (:attr:`changed`) and the derived :attr:`steps`
    after ``bug_classes`` (:attr:`JSON_ORDER`).
    """

    JSON_PROPERTIES: ClassVar[tuple[str | tuple[str, str], ...]] = (
        ("changes", "changed"),
        "steps",
    )
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "profile",
        "changes",
        "factors",
        "bugs",
        "bug_classes",
        "steps",
        "agreement",
        "same",
        "other_values",
        "rounds",
    )

    profile: str
    changes: tuple[tuple[str, Any], ...] = field(metadata={"json": False})
    factors: tuple[str, ...]
    bugs: tuple[str, ...]
    bug_classes: tuple[str, ...]
    agreement: float
    same: tuple[str, ...] = ()
    other_values: int = 0
    rounds: int = 0

    @property
    def changed(self) -> dict[str, Any]:
        """The changes as a mapping: configuration field → value."""
        return dict(self.changes)

    @property
    def steps(self) -> int:
        """How far the reading is from its profile: one per factor changed, per mistake, and
        one for rounding when it reproduces some case only at the printed precision."""
        rounding = bool(self.rounds) and "rounding" not in self.factors
        return len(self.factors) + len(self.bugs) + rounding

    @property
    def needs(self) -> tuple[str, ...]:
        """The factors and bug classes this reading needs, factors first (``rounding`` when
        it reproduces some case only at the printed precision)."""
        extra = ("rounding",) if self.rounds and "rounding" not in self.factors else ()
        return tuple(dict.fromkeys(self.factors + extra + self.bug_classes))

    @property
    def model(self) -> Model:
        """The configuration and mistakes the reading scores with."""
        return Model(PROFILES[self.profile].replace(**dict(self.changes)), self.bugs)


def reading_of(profile: str, model: Model, agreement: float, rounds: int = 0) -> Reading:
    """``model`` stated as changes from the named ``profile`` (``rounds``: see
    :class:`Reading`)."""
    base = PROFILES[profile]
    factors = tuple(f for f in differing_factors(base, model.cfg) if f != "zero_length")
    return Reading(
        profile=profile,
        changes=tuple(changed_fields(base, model.cfg).items()),
        factors=factors,
        bugs=model.bugs,
        bug_classes=tuple(dict.fromkeys(model.classes)),
        agreement=agreement,
        rounds=rounds,
    )


def rounded_cases(
    judge: Judge, cases: Sequence[Case], outs: Sequence[Outcome], model: Model, tolerance: float
) -> int:
    """The cases on which ``model`` agrees with ``outs`` at the judge's tolerance (the
    subject's printed precision) but not within the raw ``tolerance``."""
    if judge.tolerance <= tolerance:
        return 0
    at_precision = judge.tolerance
    expected = judge.expected_all(cases, model)
    agreeing = [
        (o.value, e) for o, e in zip(outs, expected, strict=True) if judge.agrees(o.value, e)
    ]
    judge.tolerance = tolerance
    try:
        return sum(not judge.agrees(v, e) for v, e in agreeing)
    finally:
        judge.tolerance = at_precision


@dataclass(frozen=True)
class Readings:
    """The equal nearest readings of a subject, the leading one first.

    ``readings`` share the highest agreement any candidate reached and the fewest steps among
    those; the leading one is the profile the subject's name mentions, else the first in
    :data:`~harness.bleu.profiles.PROFILES` order (the reference implementations come before
    their ports and wrappers). ``needed``: what every one of them needs — the diagnosis.
    ``candidates``: how many configurations were tried. Its JSON writes the derived
    :attr:`everywhere` after ``needed``.
    """

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("everywhere",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = ("readings", "needed", "everywhere", "candidates")

    readings: tuple[Reading, ...]
    needed: tuple[str, ...]
    candidates: int

    @property
    def lead(self) -> Reading:
        """The reading the answer leads with."""
        return self.readings[0]

    @property
    def everywhere(self) -> bool:
        """Whether the readings reproduce the subject on every scored case."""
        return self.lead.agreement == 1.0


def _candidates(fitted: Model) -> list[tuple[str, Model]]:
    """Every profile as it is, with each change of one factor and with each modelled mistake,
    and ``fitted`` stated from every profile; each (profile, configuration, mistakes) once."""
    out: list[tuple[str, Model]] = []
    for name, cfg in PROFILES.items():
        out.append((name, Model(cfg)))
        out += [
            (name, Model(v))
            for factor, _, v in single_factor_variants(cfg, name)
            if factor != "zero_length"
        ]
        out += [(name, Model(cfg, (b,))) for b in BUG_MODELS]
        out.append((name, fitted))
    return list(dict.fromkeys(out))


def find_readings(
    judge: Judge,
    cases: Sequence[Case],
    outs: Sequence[Outcome],
    fitted: Model,
    fitted_agreement: float,
    named: Sequence[str] = (),
    tolerance: float | None = None,
) -> Readings:
    """The readings of the subject whose scores are ``outs`` on ``cases``: the candidates of
    the highest agreement (at least ``fitted_agreement``, the fit's) with the fewest steps,
    each configuration once (stated from the first profile that reaches it in the fewest
    steps), the profiles ``named`` by the subject first, then profile order. ``tolerance``:
    the raw tolerance, when the judge compares at a printed precision above it (a reading
    that reproduces some case only at that precision takes a step for ``rounding``)."""
    n = len(cases)
    order = list(PROFILES)
    sample = min(n, _SAMPLE)
    cands = _candidates(fitted)
    if fitted.bugs:
        # the fit's mistakes on every candidate configuration that computes as the fit's own
        # configuration does on these cases: a mistake made on sacrebleu with smooth=none is
        # the same mistake made on its port that agrees with it here
        plain = [Outcome(v, None, None) for v in judge.expected_all(cases, Model(fitted.cfg))]
        same = [
            (name, Model(m.cfg, fitted.bugs))
            for name, m in cands
            if not m.bugs
            and judge.agreement(cases[:sample], plain[:sample], m, max_fail=0)[0] == 1.0
            and judge.agreement(cases, plain, m, max_fail=0)[0] == 1.0
        ]
        cands += [c for c in same if c not in cands]
    stated = [reading_of(p, m, 0.0) for p, m in cands]
    ranked = sorted(
        range(len(cands)),
        key=lambda i: (stated[i].steps, cands[i][0] not in named, order.index(cands[i][0]), i),
    )
    allowed = round((1.0 - fitted_agreement) * n)  # the most failures a reading may have
    kept: list[tuple[Model, Reading]] = []
    best_share = -1.0
    for i in ranked:
        name, model = cands[i]
        fewest = min((r.steps for _, r in kept), default=None)
        if fewest is not None and best_share == 1.0 and stated[i].steps > fewest:
            break  # nothing agrees more, and every candidate left takes more steps
        if judge.agreement(cases[:sample], outs[:sample], model, max_fail=allowed)[0] < 0:
            continue
        share = judge.agreement(cases, outs, model, max_fail=allowed)[0]
        if share < best_share - 1e-12:
            continue
        if share > best_share + 1e-12:
            # a higher agreement than the readings so far: those are not readings after all
            kept, best_share = [], share
            allowed = round((1.0 - share) * n)
        rounds = 0 if tolerance is None else rounded_cases(judge, cases, outs, model, tolerance)
        kept.append((model, reading_of(name, model, share, rounds)))
    fewest = min(r.steps for _, r in kept)
    kept = [(m, r) for m, r in kept if r.steps == fewest]
    # one reading per configuration (library names aside), from the first profile stating
    # it; then one per profile and changed factors, with the first values found
    by_config: dict[tuple[Any, ...], Reading] = {}
    for model, r in kept:
        key = (model.cfg.replace(library="harness"), model.bugs)
        first = by_config.setdefault(key, r)
        if first is not r:
            by_config[key] = dataclasses.replace(first, same=(*first.same, r.profile))
    by_factors: dict[tuple[Any, ...], Reading] = {}
    for r in by_config.values():
        first = by_factors.setdefault((r.profile, r.factors, r.bugs), r)
        if first is not r:
            by_factors[(r.profile, r.factors, r.bugs)] = dataclasses.replace(
                first, other_values=first.other_values + 1
            )
    readings = tuple(by_factors.values())
    needed = [f for f in readings[0].needs if all(f in r.needs for r in readings[1:])]
    return Readings(readings, tuple(sorted(needed, key=_ORDER.index)), len(cands))
