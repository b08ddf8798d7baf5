"""The words of a :class:`~harness.analysis.why.Why`: why something was not computed."""

from __future__ import annotations

from collections.abc import Iterable

from harness.analysis.why import Why, WhyKind

__all__ = ["SECTION_WORDS", "SIGNIFICANCE_HOW", "WHY_WORDS", "why_text", "whys_text"]

#: Each kind's words: ``{0}``, ``{1}`` are its names, ``{detail}`` the error's text.
WHY_WORDS: dict[WhyKind, str] = {
    "without-corpora": "not computed: the report was built without the corpora",
    "no-pairs": "not computed: no pairs were judged",
    "not-included": 'not included (it follows the {0}: include "{0}")',
    "not-installed": "human agreement not computed: {0} is not installed",
    "no-segments": "{0} has no segments to resample",
    "resample-error": "{0} under {1}: {detail}",
    "no-finite-resample": "{0} under {1}: a resample has no finite score",
    "unknown-profile": "{0} is not a known profile",
    "no-profile": "{0} has no in-house profile, so its statistics cannot be resampled",
    "profile-not-shown": (
        "the report does not show {0} equal to its profile harness:{1} (their pair "
        "was not judged, or differs), so its statistics cannot be resampled"
    ),
    "system-without-interval": "a system has no interval",
    "no-system-scored": "no system scored by both",
    "no-corpus-scored": "no corpus scored by both",
    "no-in-house-profile": "not computed: no in-house profile (harness:NAME) in the rows",
    "no-multi-system-fixture": "not computed: no fixture has two or more systems",
    "no-fixture-with-pair": "not computed: no fixture has both systems {0} and {1}",
    "not-shared": "the corpora do not share references",
    "baseline-missing": "not computed: the baseline profile {0} is not in the rows",
    "mixed-configuration": "not attributed: a mixed configuration has no score ({detail})",
    "too-few-scores": "{0}: fewer than two implementations with two or more scores",
    "error": "not computed: {detail}",
    "left-out": "not included",
    "not-scored": "{0}: {detail}",
    "nothing-scored": "no corpus or segment scored by both",
    "fixtures-capped": "tested the first {n0} of {n1} multi-system fixtures",
    "one-profile": (
        "{0}: {n0} systems, tested under the {1} profile only "
        "(all {n1} profiles would be {n2} tests)"
    ),
}

#: Where a section words a kind its own way: (section, kind) → words.
SECTION_WORDS: dict[tuple[str, WhyKind], str] = {
    ("significance", "without-corpora"): (
        "not computed: the report was built without the corpora (from a results table)"
    ),
    ("answer", "without-corpora"): (
        "not computed: without the corpora (the answer compares implementations over systems "
        "scored against the same references, e.g. --wmt21 or your own files)"
    ),
    ("answer", "not-shared"): (
        "not computed: the corpora do not share references (the answer compares "
        "implementations over systems scored against the same references, e.g. --wmt21 or "
        "your own files)"
    ),
}

#: How to get a significance section when a report has none.
SIGNIFICANCE_HOW = (
    "run `bleu-harness report` on the corpora (not from --results) with a fixture that has "
    "two or more systems (e.g. --fixture silence_pitfall, or --wmt21), or test two hypothesis "
    "files directly: `bleu-harness significance BASELINE SYSTEM REF [REF ...] --profile NAME`"
)


def why_text(why: Why, section: str = "") -> str:
    """``why`` in words (in ``section``'s own words where it has them)."""
    words = SECTION_WORDS.get((section, why.kind), WHY_WORDS[why.kind])
    numbers = {f"n{k}": n for k, n in enumerate(why.numbers)}
    return words.format(*why.names, detail=why.detail, **numbers)


def whys_text(whys: Iterable[Why], section: str = "") -> str:
    """Several reasons in words, each once, in order, separated by semicolons."""
    return "; ".join(dict.fromkeys(why_text(w, section) for w in whys))


def note_text(note: Why | None, default: str) -> str:
    """A section's note in words, ``default`` when it has none."""
    return default if note is None else why_text(note)


def interval_note(whys: tuple[Why, ...] | None) -> str | None:
    """Why a fixture's gap has no interval, in words (``None`` when it has one)."""
    return None if whys is None else "no interval: " + whys_text(whys)
