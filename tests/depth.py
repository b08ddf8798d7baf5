"""How many generated examples each property runs: the suite's depth.

``BLEU_HARNESS_TEST_DEPTH`` picks it (the Makefile sets it):

* ``full`` (``make test-full``): every property at the count written in its test;
* ``default`` (``make test``, and a bare ``pytest``): a fifth of that, never fewer than
  :data:`FLOOR` — still many generated inputs per oracle, and a failure hypothesis found once
  is replayed first from its example database (``.hypothesis/``) on every later run;
* ``check`` (``make check``): a smoke pass of a few examples per property.

Counts are read when a test module is imported, so the variable must be set before pytest
starts (xdist workers inherit it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

ENV_VAR = "BLEU_HARNESS_TEST_DEPTH"
#: Share of each property's written example count run at each depth.
FACTORS = {"full": 1.0, "default": 0.2, "check": 0.02}
#: The fewest examples a property runs at each depth (unless its written count is lower).
FLOORS = {"full": 1, "default": 25, "check": 3}


def depth() -> str:
    """The depth named by ``$BLEU_HARNESS_TEST_DEPTH`` (``default`` when unset)."""
    value = os.environ.get(ENV_VAR, "").strip() or "default"
    if value not in FACTORS:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {', '.join(FACTORS)}")
    return value


def examples(written: int) -> int:
    """The number of examples to run for a property written with ``written`` examples."""
    level = depth()
    return min(written, max(FLOORS[level], math.ceil(written * FACTORS[level])))


def cases(written: int, minimum: int = 1) -> int:
    """How many of ``written`` hand-built cases (seeds, corpora) a loop runs: the depth's share,
    at least ``minimum``."""
    return min(written, max(minimum, math.ceil(written * FACTORS[depth()])))


def full() -> bool:
    """Whether this run is ``make test-full`` (the full example counts and the full report)."""
    return depth() == "full"


def release_cases(ranges: Mapping[str, tuple[str, Sequence[str]]]) -> list[tuple[str, str]]:
    """``(tag, release)`` pairs a versioned-profile test runs, from ``ranges`` (tag → the
    range's representative release and its others; the tag ``""`` is today's profile): each
    range's representative at every depth but today's, and every release of every range at
    ``full``."""
    full = depth() == "full"
    out = []
    for tag, (first, others) in ranges.items():
        if tag or full:
            out.append((tag, first))
        if full:
            out.extend((tag, v) for v in others)
    return out
