"""identify's findings in words: what a sacrebleu signature alone pins, how many matches a
printed score's window holds by chance, and what the printed lengths say. Every number comes
from the facts :mod:`harness.diagnose.identify` and :mod:`harness.diagnose.lengths` return.
"""

from __future__ import annotations

import math

from harness.diagnose.identify import CHANCE_WINDOWS, Chance, SignatureReading
from harness.diagnose.lengths import LengthClue

__all__ = [
    "chance_sentence",
    "clue_part",
    "clue_tool",
    "length_clue_sentence",
    "signature_reading_sentences",
]


def signature_reading_sentences(reading: SignatureReading) -> list[str]:
    """What a sacrebleu signature printed alone says, in words."""
    pinned = ", ".join(f"{k}={v}" for k, v in reading.settings.items()) or "nothing"
    refs = "" if reading.nrefs is None else f" with {reading.nrefs} reference(s)"
    changed = [f"{k}={v}" for k, v in reading.changed.items()]
    how = "sacrebleu's defaults" if not changed else f"sacrebleu + {', '.join(changed)}"
    named = (
        f"The named profiles with exactly this configuration: {', '.join(reading.profiles)}."
        if reading.profiles
        else "No named profile has exactly this configuration."
    )
    return [
        f"Read as a sacrebleu signature alone: it pins {pinned}{refs}.",
        f"The configuration: {how} (engine signature {reading.config.signature()}).",
        named,
        "A signature has no score: to ask which configuration printed a number on your "
        "files, pass the whole line (score and signature) with the files.",
    ]


def chance_sentence(odds: Chance, score: str) -> str:
    """How many readings the window of the printed ``score`` holds by chance, in words."""
    return (
        f"Searched {odds.searched} readings; about {odds.expected:.2g} of them fall in any "
        f"window {odds.width:g} wide near {score} ({odds.nearby} within "
        f"{CHANCE_WINDOWS} such windows either side), so that many matches are expected "
        "by chance alone."
    )


def clue_part(clue: LengthClue) -> str:
    """The clue's span in words (``the first 600 segments``, ``segments 302–800``)."""
    if clue.span is None:
        return "no run of segments"
    start, end = clue.span
    return f"the first {end:,} segments" if start == 0 else f"segments {start + 1:,}–{end:,}"


def clue_tool(clue: LengthClue) -> str:
    """The clue's profile with the settings the signature pinned (``sacrebleu with
    tokenize=intl``)."""
    return clue.profile + (f" with {', '.join(clue.pinned)}" if clue.pinned else "")


def length_clue_sentence(clue: LengthClue) -> str:
    """What the printed hyp_len and ref_len say of the text scored, every number from the
    clue's fields."""
    h, r = clue.printed_hyp_len, _count(clue.printed_ref_len)
    lengths = f"hyp_len {h:,} and ref_len {r}"
    tool = clue_tool(clue)
    tokenization = f"tokenized as {tool} tokenizes"
    if clue.span is not None:
        part = clue_part(clue)
        if clue.reproduces:
            return (
                f"The printed {lengths} are those of {part} of the {clue.segments:,} "
                f"({tokenization}), and {tool} on {part} reproduces every printed "
                "number: the score was computed on that part of the test set, not on all "
                "of it."
            )
        if clue.matches:
            n = len(clue.matches)
            which = (
                f"one reading of {part} does: {clue.matches[0].reading}"
                if n == 1
                else f"{n} readings of {part} do, first {clue.matches[0].reading}"
            )
            return (
                f"The printed {lengths} are those of {part} of the {clue.segments:,} "
                f"({tokenization}); {tool} there does not reproduce the other printed "
                f"numbers, but {which}: the score was computed on that part of the test "
                "set, with what that reading assumes."
            )
        return (
            f"The printed {lengths} equal those of {part} of the {clue.segments:,} "
            f"({tokenization}), but no reading of {part} reproduces the other printed "
            "numbers."
        )
    files_r = _count(clue.files_ref_len)
    if clue.printed_hyp_len == clue.files_hyp_len:
        return (
            f"The printed hyp_len {h:,} is these hypotheses' ({tokenization}), but the "
            f"printed ref_len {r} is not these references' ({files_r}): the score was "
            "computed against other references (another version of the test set, or "
            "other reference files)."
        )
    if clue.printed_ref_len == clue.files_ref_len:
        return (
            f"The printed ref_len {r} is these references' ({tokenization}), but the "
            f"printed hyp_len {h:,} is not these hypotheses' ({clue.files_hyp_len:,}): the "
            "score was computed on other hypotheses (another system's output, or these "
            "processed in another way)."
        )
    share = clue.printed_hyp_len / clue.files_hyp_len if clue.files_hyp_len else math.nan
    return (
        f"The printed {lengths} are neither these files' ({clue.files_hyp_len:,} and "
        f"{files_r} over {clue.segments:,} segments, {tokenization}) nor those of any run "
        f"of their segments; the printed hyp_len is {share:.1%} of theirs. The score was "
        "computed on other text: another version of the test set, a subset that is not a "
        "run of consecutive lines, or other hypotheses."
    )


def _count(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.2f}"
