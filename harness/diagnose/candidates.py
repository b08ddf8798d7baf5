"""A printed BLEU score and the configurations that reproduce it: the :class:`Candidate`.

A printed number says no more than its digits: :func:`default_tolerance` is half a unit in its
last digit, and a candidate's raw score (0–1 or 0–100, :data:`SCALES`) is compared after the
:data:`ROUNDINGS` a report may have applied. :func:`closest_profile` names the profile a
configuration is nearest to, and the factors that differ (:mod:`harness.analysis.attribution`).
The search itself is :func:`harness.diagnose.identify.identify`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from harness.analysis.attribution import FACTORS
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.errors import ConfigError

__all__ = [
    "ROUNDINGS",
    "SCALES",
    "Candidate",
    "closest_profile",
    "default_tolerance",
    "rank",
    "rounded",
]

#: How a score may have been displayed.
ROUNDINGS: tuple[str, ...] = ("none", "2 decimals", "4 decimals", "3 significant")
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
    ``("bpe-left-in",)``); empty when the files were scored as given and carry no marker.
    """

    config: BleuConfig
    layout: str
    profile: str
    changes: tuple[str, ...]
    raw: float
    scale: str
    rounding: str
    shown: float
    distance: float
    equivalent: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict, compare=False)
    preprocessing: tuple[str, ...] = ()

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
        """One line: the nearest profile and what differs, scale, rounding and distance."""
        prof = PROFILES[self.profile]
        diffs = [
            f"{f}={getattr(self.config, f)}"
            for f in _ARITHMETIC_FIELDS
            if getattr(self.config, f) != getattr(prof, f)
        ]
        if self.layout != "per-segment":
            diffs.append(f"layout={self.layout}")
        what = self.profile + ("" if not diffs else " + " + ", ".join(diffs))
        if self.preprocessing:
            what += " on text with " + ", ".join(self.preprocessing)
        return (
            f"{what}: {self.raw:.6g} on {self.scale}, shown as {self.shown:g} "
            f"({self.rounding}); distance {self.distance:.3g}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields; ``preprocessing`` only when the candidate assumes a text mistake."""
        out = {
            "signature": self.signature,
            "layout": self.layout,
            "profile": self.profile,
            "changes": list(self.changes),
            "raw": self.raw,
            "scale": self.scale,
            "rounding": self.rounding,
            "shown": self.shown,
            "distance": self.distance,
            "equivalent": {k: [dict(x) for x in v] for k, v in self.equivalent.items()},
        }
        if self.preprocessing:
            out["preprocessing"] = list(self.preprocessing)
        return out


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


def rank(c: Candidate) -> tuple[float, int, int, int]:
    """The order of explanations: by distance to the printed score (to 1e-12), then by the
    number of *steps* away from a named profile applied correctly — each factor changed from
    the nearest profile (and a reference-layout misuse) is one step, each text mistake
    assumed (``preprocessing``) is one step — then, at equal steps, fewer configuration
    changes first (a named profile on mistaken text before a profile with a factor changed:
    the profile's code is known, the text was not seen), then simpler rounding
    (:data:`ROUNDINGS` order). Without preprocessing this is distance, changes, rounding."""
    steps = len(c.changes) + len(c.preprocessing)
    return (round(c.distance, 12), steps, len(c.changes), ROUNDINGS.index(c.rounding))


def default_tolerance(score: float | str) -> float:
    """Half a unit in the last digit of ``score`` as printed (``0.27`` → 0.005)."""
    try:
        d = Decimal(score if isinstance(score, str) else repr(float(score)))
    except (InvalidOperation, ValueError) as exc:
        raise ConfigError(f"not a number: {score!r}") from exc
    exponent = d.as_tuple().exponent
    if not isinstance(exponent, int):
        raise ConfigError(f"not a finite number: {score!r}")
    return 0.5 * 10.0**exponent


def rounded(value: float, rounding: str) -> float:
    """``value`` as shown with ``rounding`` (one of :data:`ROUNDINGS`)."""
    if rounding == "none" or not math.isfinite(value):
        return value
    if rounding == "2 decimals":
        return round(value, 2)
    if rounding == "4 decimals":
        return round(value, 4)
    if rounding == "3 significant":
        return float(f"{value:.3g}")
    raise ConfigError(f"unknown rounding {rounding!r}", valid=ROUNDINGS)


_PROFILE_CACHE: dict[BleuConfig, tuple[str, tuple[str, ...]]] = {}

#: The factors compared (:data:`~harness.analysis.attribution.FACTORS` without ``zero_length``,
#: whether a library dies on empty input) and each profile's values of them, read once.
_COMPARED = tuple((name, fields) for name, fields in FACTORS.items() if name != "zero_length")


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


def closest_profile(config: BleuConfig) -> tuple[str, tuple[str, ...]]:
    """The profile with the fewest differing factors (ties: profile order) and those factors
    (as :func:`~harness.analysis.attribution.differing_factors` names them).

    The ``zero_length`` factor (whether a library dies on empty input) is ignored.
    """
    got = _PROFILE_CACHE.get(config)
    if got is None:
        # a value no profile has is numbered -1: it differs from every profile
        mine = np.array(
            [ids.get(v, -1) for ids, v in zip(_VALUE_IDS, _factor_values(config), strict=True)]
        )
        differs = _PROFILE_MATRIX != mine
        best = int(np.argmin(differs.sum(axis=1)))  # the first of the fewest: profile order
        got = (
            _PROFILE_NAMES[best],
            tuple(_COMPARED[i][0] for i in np.flatnonzero(differs[best])),
        )
        if len(_PROFILE_CACHE) > 50000:
            _PROFILE_CACHE.clear()
        _PROFILE_CACHE[config] = got
    return got
