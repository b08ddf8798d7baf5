"""Why something was not computed: a typed fact (a kind, the names and an error's text) that
:mod:`harness.report.why_words` puts in words.

The typed report (:mod:`harness.analysis.study_types`) stores these where it said why in a
sentence: a section not computed, an interval missing, an attribution undefined. ``kind`` is
one of :data:`WhyKind`; ``names`` are the profiles, systems, fixtures or packages it is about
(in the order the kind's words name them), ``numbers`` its counts; ``detail`` is the text of the error that caused it,
as the library or the harness raised it, when there was one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Why", "WhyKind"]

#: What was missing (each kind's words: :data:`harness.report.why_words.WHY_WORDS`).
#: ``without-corpora``: the report was built from a results table, not the corpora; ``no-pairs``: no pair was judged;
#: ``not-included``: the section follows one not included (``names``: that section);
#: ``not-installed``: a package is missing (``names``: it); ``no-segments``: a system has no
#: segments (``names``: it); ``resample-error``: a resample raised (``names``: system,
#: profile; ``detail``); ``no-finite-resample``: a resample has no finite score (``names``:
#: system, profile); ``unknown-profile``: a ``harness:NAME`` label names no profile;
#: ``no-profile``: a library has no in-house profile; ``profile-not-shown``: the report does not
#: show the library (``names[0]``) equal to its profile (``names[1]``);
#: ``system-without-interval``: one system's gap has no interval; ``no-system-scored``,
#: ``no-corpus-scored``: nothing scored by both; ``no-in-house-profile``: no ``harness:NAME``
#: label in the rows; ``no-multi-system-fixture``: no fixture has two or more systems;
#: ``no-fixture-with-pair``: no fixture has both systems (``names``); ``not-shared``: the
#: corpora do not share references; ``baseline-missing``: the baseline profile (``names``)
#: is not in the rows; ``mixed-configuration``: a hybrid configuration has no score
#: (``detail``); ``too-few-scores``: a level (``names``) has fewer than two implementations
#: with two or more scores; ``fixtures-capped``: only the first ``numbers[0]`` of
#: ``numbers[1]`` multi-system fixtures were tested; ``one-profile``: a fixture (``names``:
#: fixture, profile) of ``numbers[0]`` systems was tested under one profile only (all
#: ``numbers[1]`` profiles would be ``numbers[2]`` tests); ``error``: the computation raised (``detail``); ``left-out``: the section was not asked for;
#: ``not-scored``: a side of a pair (``names``: its label) has no scores (``detail``: its
#: status and error); ``nothing-scored``: no corpus or segment was scored by both sides.
WhyKind = Literal[
    "without-corpora",
    "no-pairs",
    "not-included",
    "not-installed",
    "no-segments",
    "resample-error",
    "no-finite-resample",
    "unknown-profile",
    "no-profile",
    "profile-not-shown",
    "system-without-interval",
    "no-system-scored",
    "no-corpus-scored",
    "no-in-house-profile",
    "no-multi-system-fixture",
    "no-fixture-with-pair",
    "not-shared",
    "baseline-missing",
    "mixed-configuration",
    "too-few-scores",
    "fixtures-capped",
    "not-scored",
    "nothing-scored",
    "left-out",
    "error",
    "one-profile",
]


@dataclass(frozen=True)
class Why:
    """Why something was not computed: its ``kind``, the ``names`` and ``numbers`` it is
    about and the ``detail`` of the error behind it (``null`` when none)."""

    kind: WhyKind
    names: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    detail: str | None = None
