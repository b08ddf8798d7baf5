"""A printed BLEU score and the configurations that reproduce it: the :class:`Candidate`.

A printed number says no more than its digits: ``31.3`` stands for any reading in the half-open
interval [31.25, 31.35) (:func:`printed_interval`; :func:`default_tolerance` is its half width,
half a unit in the last digit *as typed*: ``"27"`` is [26.5, 27.5), ``"0.27"`` [0.265, 0.275);
:func:`as_printed` reads a str, an int or a Decimal with the precision it was printed with,
and a float through its ``repr``), and a candidate's raw score (0–1 or 0–100, :data:`SCALES`) is shown
with the decimals the score was printed with (:func:`printed_rounding`, :func:`reproduces`). :func:`closest_profile` names the profile a
configuration is nearest to, and the factors that differ (:mod:`harness.analysis.attribution`).
The search itself is :func:`harness.diagnose.identify.identify`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

import numpy as np

from harness.analysis.attribution import FACTORS
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES, RELEASES, VERSIONED
from harness.errors import ConfigError
from harness.scorers.printed import REPR_DIGITS

__all__ = [
    "SCALES",
    "Candidate",
    "Printed",
    "TieResolver",
    "as_printed",
    "changed_fields",
    "closest_changes",
    "closest_profile",
    "default_tolerance",
    "nearest_choices",
    "printed_interval",
    "printed_rounding",
    "rank",
    "reproduces",
    "rounded",
    "rounding_decimals",
    "shown_text",
]

#: 0–1 (nltk, the seed tutorials, Google's page) or 0–100 (sacrebleu, evaluate's ×100 habit).
SCALES: tuple[str, ...] = ("0-1", "0-100")


@dataclass(frozen=True)
class Candidate:
    """One way to reproduce a printed score.

    ``config`` scored on the corpus in ``layout`` gives ``raw`` on ``scale`` (unrounded);
    displayed with ``rounding`` it reads ``shown``, at ``distance`` from the printed score.
    ``profile`` is the named profile nearest to ``config`` and ``changes`` the factors that
    differ from it (plus ``"layout"`` for a misuse). ``equivalent`` maps a factor to other
    settings of its fields that give exactly the same number on this corpus (a tokenizer that
    produces the same tokens, a reference-length rule that picks the same lengths, a smoothing
    that never fires): they reproduce the score too and are not listed separately — use
    :meth:`covers` to ask whether a configuration is among them. ``preprocessing`` names the
    text mistakes the candidate assumes (:data:`harness.diagnose.preprocess.MISTAKES`, e.g.
    ``("bpe-left-in",)``); empty when the files were scored as given and carry no marker
    (and then left out of the JSON).

    Its JSON (:func:`~harness.typed_json.to_json`) is the fields but ``config`` and
    ``reprinted``, with the derived :attr:`signature`, :attr:`changed` and :attr:`reading`,
    in :attr:`JSON_ORDER`.
    """

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("signature", "changed", "reading")
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "signature",
        "layout",
        "profile",
        "changes",
        "changed",
        "reading",
        "raw",
        "scale",
        "rounding",
        "shown",
        "distance",
        "reproduces",
        "equivalent",
        "preprocessing",
    )

    config: BleuConfig = field(metadata={"json": False})
    layout: str
    profile: str
    changes: tuple[str, ...]
    raw: float
    scale: str
    rounding: str
    shown: float
    distance: float
    equivalent: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict, compare=False)
    preprocessing: tuple[str, ...] = field(default=(), metadata={"omit_empty": True})
    reproduces: bool = False
    #: The named profile's tool prints its number at a fixed precision (``round_digits``) and
    #: the score was printed at another: the number was rounded again after the tool printed it.
    reprinted: bool = field(default=False, metadata={"json": False})

    @property
    def steps(self) -> int:
        """How far the reading is from a named profile applied correctly: each factor
        changed (and a reference-layout misuse) and each text mistake assumed is one step."""
        return len(self.changes) + len(self.preprocessing)

    @property
    def changed(self) -> dict[str, Any]:
        """Every field that differs from :attr:`profile`, with this candidate's value (the
        factors of ``changes`` by name and value: ``{"tokenize": "intl", "smooth": "floor"}``);
        ``weights`` only when they are not uniform."""
        return changed_fields(PROFILES[self.profile], self.config)

    @property
    def reading(self) -> str:
        """The profile and every changed field with its value, the layout misuse and the text
        mistakes: ``"sacrebleu + tokenize=intl, smooth=floor"``."""
        diffs = [f"{k}={_value_text(v)}" for k, v in self.changed.items()]
        if self.layout != "per-segment":
            diffs.append(f"layout={self.layout}")
        what = self.profile + ("" if not diffs else " + " + ", ".join(diffs))
        if self.preprocessing:
            what += " on text with " + ", ".join(self.preprocessing)
        return what

    @property
    def release(self) -> str:
        """For a reading named after an older release's profile (``nltk@3.2``), the library
        and releases whose defaults that profile is (``"nltk 3.2.2–3.2.5"``); else ``""``."""
        if self.profile not in VERSIONED:
            return ""
        return f"{PROFILES[self.profile].library} {RELEASES[self.profile]}"

    @property
    def signature(self) -> str:
        """The configuration's signature (layout, scale and rounding are separate fields)."""
        return self.config.signature()

    def covers(
        self, config: BleuConfig, layout: str = "per-segment", preprocessing: tuple[str, ...] = ()
    ) -> bool:
        """True when ``config`` (in ``layout``, on text with ``preprocessing``) is this
        candidate or one of its equivalents."""
        if layout != self.layout or tuple(preprocessing) != self.preprocessing:
            return False
        mine = self.config
        checked: set[str] = set()
        for alternatives in self.equivalent.values():
            keys = set(alternatives[0]) if alternatives else set()
            checked |= keys
            options = [{k: getattr(mine, k) for k in keys}, *alternatives]
            if {k: getattr(config, k) for k in keys} not in options:
                return False
        rest = [f for f in _ARITHMETIC_FIELDS if f not in checked]
        return all(getattr(config, f) == getattr(mine, f) for f in rest)

    def describe(self) -> str:
        """One line: the nearest profile and what differs (named values), scale, rounding and
        distance."""
        return (
            f"{self.reading}: {self.raw:.6g} on {self.scale}, shown as "
            f"{shown_text(self.shown, self.rounding)} "
            f"({self.rounding}); distance {self.distance:.3g}"
        )


#: The ``BleuConfig`` fields that change the arithmetic (not ``library``/``on_zero_length``).
_ARITHMETIC_FIELDS = (
    "tokenize",
    "lowercase",
    "max_order",
    "weights",
    "ref_length",
    "ngram_totals",
    "smooth",
    "smooth_value",
    "effective_order",
    "empty_order",
    "zero_guard",
    "aggregation",
)


def rank(candidate: Candidate) -> tuple[float, float, int, int, int, float]:
    """The order of explanations.

    Candidates that reproduce the printed score (``reproduces``: inside its printed interval)
    come first, and among them the distance is no evidence (a printed ``27`` says nothing
    about whether 27.05 or 27.22 was meant) until the last key; the others are ordered by
    distance (to 1e-12) first. Then the number of *steps* away from a named profile applied
    correctly — each factor changed from the nearest profile (and a reference-layout misuse)
    is one step, each text mistake assumed (``preprocessing``) is one step — then, at equal
    steps, fewer configuration changes first (a named profile on mistaken text before a
    profile with a factor changed: the profile's code is known, the text was not seen), then a
    number printed at its profile's own precision before one printed at another
    (:attr:`Candidate.reprinted`), then the distance."""
    c = candidate
    d = round(c.distance, 12)
    first = (0, 0.0) if c.reproduces else (1, d)
    return (*first, c.steps, len(c.changes), int(c.reprinted), d)


#: A reported score as it may be given: the printed text, an exact decimal, an integer, or a
#: float (whose printed precision is lost: see :func:`as_printed`).
Printed = str | int | float | Decimal


def printed_decimals(score: Decimal) -> int:
    """How many decimals ``score`` was printed with (0 for ``27`` and ``2.7e1``)."""
    exponent = score.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def printed_rounding(score: Decimal) -> str:
    """How ``score`` was rounded, read from its digits: ``"1 decimal"`` for ``42.4``,
    ``"0 decimals"`` for ``27``; ``"none"`` for a float's ``repr`` (at least
    :data:`~harness.scorers.printed.REPR_DIGITS` significant digits: printed unrounded)."""
    if len(score.as_tuple().digits) >= REPR_DIGITS:
        return "none"
    n = printed_decimals(score)
    return f"{n} decimal{'' if n == 1 else 's'}"


def reprinted(profile: str, scale: str, score: Decimal) -> bool:
    """Whether ``score`` was printed at another precision than the tool of ``profile`` prints
    its number (its ``round_digits`` on 0–100; two more decimals on 0–1); ``False`` for a
    profile without a fixed precision."""
    digits = PROFILES[profile].round_digits
    if digits is None:
        return False
    return printed_decimals(score) != digits + (2 if scale == "0-1" else 0)


def as_printed(score: Printed) -> Decimal:
    """``score`` as the exact decimal that was printed, its exponent the precision.

    A ``str`` is read as typed (``"27"``, ``"27.20"``, ``"2.72e1"``; surrounding spaces
    ignored) and a :class:`~decimal.Decimal` is kept as it is: both keep their trailing
    zeros. An ``int`` (``numpy`` integers too) is a whole number printed without decimals:
    ``27`` stands for [26.5, 27.5). A ``float`` has no printed precision left (``27.20`` and
    ``27.2`` are the same float), so it is read as the shortest decimal that gives it back,
    its ``repr``: ``27.0`` has one decimal ([26.95, 27.05)) and ``27.22`` two. Pass the
    string as printed whenever you have it. ``bool`` is refused (``True`` is no score), as
    are non-finite values and anything else.
    """
    if isinstance(score, bool | np.bool_):
        raise ConfigError(f"not a number: {score!r}")
    try:
        if isinstance(score, str):
            d = Decimal(score.strip())
        elif isinstance(score, Decimal):
            d = score
        elif isinstance(score, int | np.integer):
            d = Decimal(int(score))
        elif isinstance(score, float | np.floating):
            d = Decimal(repr(float(score)))
        else:
            raise ConfigError(
                f"not a number: {score!r} (pass the score as printed: a str, an int, a "
                "Decimal or a float)"
            )
    except (InvalidOperation, ValueError) as exc:
        raise ConfigError(f"not a number: {score!r}") from exc
    if not d.is_finite():
        raise ConfigError(f"not a finite number: {score!r}")
    return d


def default_tolerance(score: Printed) -> float:
    """Half a unit in the last digit of ``score`` as printed (``"0.27"`` → 0.005, ``"27"`` and
    the int ``27`` → 0.5; :func:`as_printed`). A float has lost its trailing zeros and its
    precision (``27.0`` → 0.05)."""
    exponent = as_printed(score).as_tuple().exponent
    assert isinstance(exponent, int)  # finite
    return 0.5 * 10.0**exponent


def printed_interval(score: Printed) -> tuple[Decimal, Decimal]:
    """The readings a printed score stands for: ``[score - h, score + h)`` with ``h`` half a
    unit in its last digit as typed (``"31.3"`` → [31.25, 31.35), ``"27"`` → [26.5, 27.5)),
    exact decimals. The upper end is excluded: 31.35 prints as 31.4 (round half up) and
    31.25 as 31.3."""
    d = as_printed(score)
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    half = Decimal(5).scaleb(exponent - 1)
    return d - half, d + half


def reproduces(shown: float, score: Printed, tolerance: float | None = None) -> bool:
    """Whether a reading displayed as ``shown`` reproduces the printed ``score``: inside
    :func:`printed_interval` (``shown`` read as the shortest decimal that gives its float, so
    ``round(x, 2) == 31.35`` is 31.35, outside [31.25, 31.35)); with an explicit
    ``tolerance``, ``|shown - score| <= tolerance`` (closed)."""
    return reproducer(score, tolerance)(shown)


def reproducer(score: Printed, tolerance: float | None = None) -> Callable[[float], bool]:
    """:func:`reproduces` of one printed ``score``, as a test of the displayed value alone
    (the interval worked out once, for the many readings a search compares with it)."""
    if tolerance is not None:
        target, bound = float(as_printed(score)), tolerance + 1e-12
        return lambda shown: math.isfinite(shown) and abs(shown - target) <= bound
    lo, hi = printed_interval(score)
    # a float this far from either end is on the same side of it as its shortest decimal
    # (which is within half a unit in its last place of it): only a value near an end is read
    # as a decimal
    margin = 1e-9 * max(1.0, abs(float(lo)), abs(float(hi)))
    inner_lo, inner_hi = float(lo) + margin, float(hi) - margin
    outer_lo, outer_hi = float(lo) - margin, float(hi) + margin

    def inside(shown: float) -> bool:
        if not outer_lo <= shown <= outer_hi:  # outside, or NaN
            return False
        if inner_lo < shown < inner_hi:
            return True
        return lo <= Decimal(repr(float(shown))) < hi

    return inside


def rounding_decimals(rounding: str) -> int | None:
    """The decimals of a rounding (:func:`printed_rounding`): ``N`` for ``"N decimals"``,
    ``None`` for ``"none"``."""
    if rounding == "none":
        return None
    m = re.fullmatch(r"(\d+) decimals?", rounding)
    if m is None:
        raise ConfigError(f"unknown rounding {rounding!r}", valid=["none", "N decimals"])
    return int(m[1])


def rounded(value: float, rounding: str) -> float:
    """``value`` as shown with ``rounding``: ``"none"`` or ``"N decimals"``
    (:func:`printed_rounding`)."""
    decimals = rounding_decimals(rounding)
    if decimals is None or not math.isfinite(value):
        return value
    return round(value, decimals)


def shown_text(value: float, rounding: str) -> str:
    """``value`` as printed with ``rounding``: its decimals kept (``29.0`` at one decimal, not
    ``29``); unrounded, its shortest form."""
    decimals = rounding_decimals(rounding)
    if decimals is None or not math.isfinite(value):
        return f"{value:g}"
    return f"{value:.{decimals}f}"


def _value_text(value: Any) -> str:
    """A field's value as a user writes it: ``None`` (the method's own default) is
    ``default``, a flag ``true``/``false``, weights ``0.5,0.5``."""
    if value is None:
        return "default"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(f"{x:g}" if isinstance(x, float) else str(x) for x in value)
    return str(value)


#: The factors a reading is not compared on: ``zero_length`` (whether a library dies on empty
#: input) and ``rounding`` (the decimals a library prints: a reading is scored at full
#: precision and shown at the printed precision, see :func:`rounded`).
NOT_COMPARED = ("zero_length", "rounding")

#: Every field of a compared factor, in factor order.
_FACTOR_FIELDS = tuple(
    f for name, fields in FACTORS.items() if name not in NOT_COMPARED for f in fields
)


def changed_fields(profile: BleuConfig, config: BleuConfig) -> dict[str, Any]:
    """The factor fields of ``config`` that differ from ``profile``, with ``config``'s values
    (``weights`` only when not uniform: ``max_order`` says the rest)."""
    out = {
        f: getattr(config, f) for f in _FACTOR_FIELDS if getattr(config, f) != getattr(profile, f)
    }
    if "weights" in out and config.weights is None:
        del out["weights"]
    return out


_PROFILE_CACHE: dict[BleuConfig, tuple[str, tuple[str, ...]]] = {}

#: The factors compared (:data:`~harness.analysis.attribution.FACTORS` without
#: :data:`NOT_COMPARED`) and each profile's values of them, read once.
_COMPARED = tuple((name, fields) for name, fields in FACTORS.items() if name not in NOT_COMPARED)


def _factor_values(config: BleuConfig) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(getattr(config, f) for f in fields) for _, fields in _COMPARED)


_PROFILE_NAMES = tuple(PROFILES)
#: Each factor's values numbered (per factor, in order of first appearance among the profiles),
#: and every profile as a row of those numbers: comparing a configuration with all profiles is
#: one array comparison.
_VALUE_IDS: tuple[dict[tuple[Any, ...], int], ...] = tuple({} for _ in _COMPARED)
for _prof in PROFILES.values():
    for _ids, _value in zip(_VALUE_IDS, _factor_values(_prof), strict=True):
        _ids.setdefault(_value, len(_ids))
_PROFILE_MATRIX = np.array(
    [
        [ids[v] for ids, v in zip(_VALUE_IDS, _factor_values(p), strict=True)]
        for p in PROFILES.values()
    ],
    dtype=np.int64,
).reshape(len(PROFILES), len(_COMPARED))


#: Each profile's smoothing forms (:attr:`~harness.bleu.config.BleuConfig.smooth_forms`).
_PROFILE_FORMS = np.array([p.smooth_forms for p in PROFILES.values()])


def closest_profile(config: BleuConfig) -> tuple[str, tuple[str, ...]]:
    """The profile with the fewest differing factors (ties: profile order) and those factors
    (as :func:`~harness.analysis.attribution.differing_factors` names them); a configuration
    with an older release's smoothing forms (``smooth_forms``) is named after the closest
    profile with those forms.

    The factors of :data:`NOT_COMPARED` are ignored.
    """
    got = _PROFILE_CACHE.get(config)
    if got is None:
        # a value no profile has is numbered -1: it differs from every profile
        mine = np.array(
            [ids.get(v, -1) for ids, v in zip(_VALUE_IDS, _factor_values(config), strict=True)]
        )
        differs = _PROFILE_MATRIX != mine
        cost = differs.sum(axis=1)
        # an older release's forms of the smoothing methods are that release's fingerprint:
        # such a reading is named after a profile of that release (when one is declared)
        kin = _PROFILE_FORMS == config.smooth_forms
        if config.smooth_forms != "current" and kin.any():
            cost = np.where(kin, cost, cost.max() + 1)
        best = int(np.argmin(cost))  # the first of the fewest: profile order
        got = (
            _PROFILE_NAMES[best],
            tuple(_COMPARED[i][0] for i in np.flatnonzero(differs[best])),
        )
        if len(_PROFILE_CACHE) > 50000:
            _PROFILE_CACHE.clear()
        _PROFILE_CACHE[config] = got
    return got


def closest_changes(profile: str, config: BleuConfig) -> list[str]:
    """The factors in which ``config`` differs from the named ``profile`` (as
    :func:`closest_profile` names them)."""
    mine, theirs = _factor_values(config), _factor_values(PROFILES[profile])
    return [_COMPARED[i][0] for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b]


def _option_costs(
    config: BleuConfig, options: Sequence[dict[str, Any]], cols: Sequence[int]
) -> np.ndarray:
    """(options × profiles): the factors among ``cols`` in which each option differs."""
    rows = []
    for opt in options:
        ids = [
            _VALUE_IDS[i].get(tuple(opt.get(f, getattr(config, f)) for f in _COMPARED[i][1]), -1)
            for i in cols
        ]
        rows.append((_PROFILE_MATRIX[:, cols] != np.array(ids, dtype=np.int64)).sum(axis=1))
    return np.stack(rows)


def _columns(keys: set[str]) -> list[int]:
    return [i for i, (_, fields) in enumerate(_COMPARED) if keys & set(fields)]


#: Cost rows of the varying group's options, shared by every :class:`TieResolver`.
_ROWS: dict[tuple[Any, ...], np.ndarray] = {}


class TieResolver:
    """:func:`nearest_choices` for many configurations that share every setting but one group
    (``varying``: the fields of the last group, e.g. the smoothing settings): the fixed groups
    and the other factors are compared with the profiles once."""

    def __init__(
        self,
        config: BleuConfig,
        fixed: Sequence[Sequence[dict[str, Any]]],
        varying: Sequence[str],
    ) -> None:
        self.config = config
        self.fixed = [list(g) for g in fixed]
        self.vary_cols = _columns(set(varying))
        used = set(self.vary_cols)
        self.costs = []
        self.total = np.zeros(len(_PROFILE_NAMES), dtype=np.int64)
        for options in self.fixed:
            cols = _columns({k for opt in options for k in opt})
            used |= set(cols)
            c = _option_costs(config, options, cols)
            self.costs.append(c)
            self.total += c.min(axis=0)
        rest = [i for i in range(len(_COMPARED)) if i not in used]
        base = _factor_values(config)
        mine = np.array([_VALUE_IDS[i].get(base[i], -1) for i in rest], dtype=np.int64)
        self.total += (_PROFILE_MATRIX[:, rest] != mine).sum(axis=1)
        # the varying columns' fields that the options do not set, and the columns
        self.vary_key = (
            tuple(self.vary_cols),
            tuple(
                (f, getattr(config, f))
                for i in self.vary_cols
                for f in _COMPARED[i][1]
                if f not in varying
            ),
        )

    def _row(self, opt: dict[str, Any]) -> np.ndarray:
        key = (self.vary_key, tuple(sorted(opt.items())))
        row = _ROWS.get(key)
        if row is None:
            if len(_ROWS) > 20000:
                _ROWS.clear()
            row = _ROWS[key] = _option_costs(self.config, [opt], self.vary_cols)[0]
        return row

    def resolve(
        self, options: Sequence[dict[str, Any]]
    ) -> list[tuple[BleuConfig, tuple[int, ...]]]:
        """:func:`nearest_choices` with ``options`` as the last group."""
        last = np.stack([self._row(o) for o in options])
        total = self.total + last.min(axis=0)
        best = int(np.argmin(total))
        costs = [*self.costs, last]
        out: dict[BleuConfig, tuple[int, ...]] = {}
        for p in (best, *(int(i) for i in np.flatnonzero(total == 0) if i != best)):
            chosen = tuple(int(np.argmin(c[:, p])) for c in costs)
            fields: dict[str, Any] = {}
            for opts, k in zip(self.fixed, chosen[:-1], strict=True):
                if k:
                    fields.update(opts[k])
            fields.update(options[chosen[-1]])  # the varying group: always its own setting
            # two profiles with one arithmetic (sacrebleu, compare-mt-sacrebleu) are one reading
            out.setdefault(self.config.replace(**fields), chosen)
        return list(out.items())


def nearest_choices(
    config: BleuConfig, groups: Sequence[Sequence[dict[str, Any]]]
) -> list[tuple[BleuConfig, tuple[int, ...]]]:
    """Resolve ties toward the nearest named profile.

    ``groups`` lists interchangeable settings that give the very same score on the corpus at
    hand: each group is a list of field assignments (option 0 is ``config``'s own; e.g. the
    tokenizers that produce identical tokens, the reference-length rules that pick the same
    lengths). The groups touch disjoint factors, so the best choice is exact without trying
    every combination: for each profile, each group contributes its option with the fewest
    factors differing from that profile.

    Returns ``config`` with the options of the profile that ends up with the fewest differing
    factors (ties: profile order, then option order) and the option chosen in each group;
    then, for every other profile the options reproduce *exactly*, the same for it. A
    configuration one choice away from being exactly a profile (``nltk`` with ``13a`` tokens
    identical to its whitespace split) becomes that profile, and two profiles that give the
    same number are both named. (:class:`TieResolver` does the same for many configurations
    that differ in one group only.)
    """
    if not groups:
        return [(config, ())]
    last = groups[-1]
    return TieResolver(config, groups[:-1], [k for o in last for k in o]).resolve(last)
