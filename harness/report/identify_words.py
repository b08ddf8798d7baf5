"""identify's findings in words: what a sacrebleu signature alone pins, how many matches a
printed score's window holds by chance, and what the printed lengths say. Every number comes
from the facts :mod:`harness.diagnose.identify` and :mod:`harness.diagnose.lengths` return.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from harness.diagnose.candidates import Candidate, printed_interval, shown_text
from harness.diagnose.identify import (
    CHANCE_WINDOWS,
    EXACT,
    REPR_DIGITS,
    Chance,
    PrintedLine,
    SignatureReading,
    alike_first,
    fewest_steps,
)
from harness.diagnose.lengths import LengthClue
from harness.typed_json import to_json

__all__ = [
    "IdentifyAnswer",
    "chance_sentence",
    "clue_part",
    "clue_tool",
    "identify_json",
    "identify_text",
    "length_clue_sentence",
    "printed_json",
    "signature_reading_sentences",
]


@dataclass(frozen=True)
class IdentifyAnswer:
    """What ``identify`` found for a printed ``line`` on the corpus named ``corpus``: the
    readings that reproduce it (``found``, fewest changes first); when none does, the
    ``near``est readings, each with what it misses; ``tolerance`` asked for (``None``: the
    printed interval); ``odds``: how many matches the search gives by chance near the score;
    ``simple``: the simplest reading near it, when the matches are doubtful; ``clue``: what
    the printed lengths say about the text the score was computed on."""

    line: PrintedLine
    corpus: str
    found: tuple[Candidate, ...]
    near: tuple[tuple[Candidate, tuple[str, ...]], ...] = ()
    tolerance: float | None = None
    odds: Chance | None = None
    simple: Candidate | None = None
    clue: LengthClue | None = None


def _wrap(text: str, width: int = 100, **kw: Any) -> list[str]:
    """``textwrap.wrap`` that never breaks a word, nor at a hyphen: names such as
    ``codesum-ncs`` or ``layout=flat-list`` stay whole, so the printed text can be searched."""
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False, **kw)


def signature_reading_sentences(reading: SignatureReading) -> list[str]:
    """What a sacrebleu signature printed alone says, in words."""
    pinned = ", ".join(f"{k}={v}" for k, v in reading.settings.items()) or "nothing"
    refs = "" if reading.nrefs is None else f" with {reading.nrefs} reference(s)"
    changed = [f"{k}={v}" for k, v in reading.changed.items()]
    base = reading.release_profile or "sacrebleu"
    how = f"{base}'s defaults" if not changed else f"{base} + {', '.join(changed)}"
    named = (
        f"The named profiles with exactly this configuration: {', '.join(reading.profiles)}."
        if reading.profiles
        else "No named profile has exactly this configuration."
    )
    release = []
    if reading.version is not None and reading.release_profile is None:
        release = [
            f"It names sacrebleu {reading.version}, a release no profile reproduces: read on "
            f"today's defaults ({reading.releases})."
        ]
    elif reading.version is not None:
        release = [
            f"It names sacrebleu {reading.version}: that release's defaults are profile "
            f"{reading.release_profile}'s (sacrebleu {reading.releases})."
        ]
    return [
        f"Read as a sacrebleu signature alone: it pins {pinned}{refs}.",
        *release,
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


def _and(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def _fold(lines: list[list[str]]) -> list[tuple[list[str], int]]:
    """Identical entries folded into one, with their count, in first-seen order."""
    counts: dict[tuple[str, ...], int] = {}
    for entry in lines:
        counts[tuple(entry)] = counts.get(tuple(entry), 0) + 1
    return [(list(k), n) for k, n in counts.items()]


def _identify_entry(c: Candidate) -> list[str]:
    """Two lines: the reading (profile and every changed setting by value), then the numbers."""
    how = "no rounding" if c.rounding == "none" else f"rounded to {c.rounding}"
    shown = shown_text(c.shown, c.rounding)
    numbers = f"{c.raw:.6g} on {c.scale}, shown as {shown} ({how}); distance {c.distance:.3g}"
    said = c.reading + (f" (the profile of {c.release})" if c.release else "")
    return [said, numbers]


def identify_text(answer: IdentifyAnswer, top: int) -> str:
    """The plain-text answer of ``identify`` (at most 100 columns), the ``top`` readings
    listed."""
    line, corpus, found, near = answer.line, answer.corpus, answer.found, answer.near
    tolerance, odds, simple, clue = answer.tolerance, answer.odds, answer.simple, answer.clue
    score = line.score
    lines: list[str] = []
    if line.form != "number":
        lines += _wrap(line.describe(), 100)
    if tolerance is None and len(Decimal(score).as_tuple().digits) >= REPR_DIGITS:
        span = f"printed at full float precision: a reading within {EXACT:g} of it reproduces it"
    elif tolerance is None:
        lo, hi = printed_interval(score)
        span = f"a reading in [{lo}, {hi}) reproduces it"
    else:
        span = f"a reading within {tolerance:g} of it reproduces it"
    lines += _wrap(f"Reported score {score} on {corpus} ({span}).", 100)
    every = " and every printed number" if line.details or line.settings else ""
    if odds is not None and not every:
        # with a whole printed line, every other number must agree too: the score's odds
        # alone would overstate chance
        lines += _wrap(chance_sentence(odds, score), 100)
        few = fewest_steps(found)
        if found and len(found) <= 2 * odds.expected:
            many = "1 match is" if len(found) == 1 else f"{len(found)} matches are"
            lines += _wrap(
                f"{many} no more than chance gives: each reading below is a coincidence "
                "until other evidence (the whole printed line, the tool used) agrees.",
                100,
            )
        if few is not None and few > 1:
            lines += _wrap(
                f"No reading one step or less from a named profile reproduces {score}: every "
                f"match takes {few} or more steps (settings changed from the nearest profile, "
                "text mistakes assumed).",
                100,
            )
        if found and (len(found) <= 2 * odds.expected or (few is not None and few > 1)):
            if simple is not None and not any(c == simple for c in found[:top]):
                lines += _wrap(
                    f"The simplest reading near it (at most one step from a named profile): "
                    f"{simple.reading}, {simple.raw:.6g} on {simple.scale}, shown as "
                    f"{shown_text(simple.shown, simple.rounding)}; distance "
                    f"{simple.distance:.3g}.",
                    100,
                )
    if found:
        entries = _fold([_identify_entry(c) for c in found])
        lines += _wrap(
            f"{len(found)} configuration(s) reproduce {score}{every} ({len(entries)} distinct "
            "readings), fewest changes from a named profile first:",
            100,
        )
        alike = alike_first(found)
        if alike:
            lines += _wrap(
                f"The first {len(alike)} profiles ({_and(alike)}) give the same number in as "
                "few steps: these files do not tell them apart.",
                100,
            )
    else:
        entries = _fold(
            [_identify_entry(c) + ([f"misses: {'; '.join(w)}"] if w else []) for c, w in near]
        )
        lines += _wrap(f"Nothing reproduces {score}{every} on these files.", 100)
        if clue is not None:
            lines += _wrap(length_clue_sentence(clue), 100)
        if clue is not None and clue.matches:
            entries = _fold([_identify_entry(c) for c in clue.matches])
            lines.append(f"The readings of {clue_part(clue)} that reproduce every printed number:")
        elif entries:
            lines.append("The nearest readings of the whole files:")
    if entries:
        lines.append("")
    width = len(str(min(top, len(entries))))
    for k, (entry, n) in enumerate(entries[:top], 1):
        head = f"{k:>{width}}. "
        pad = " " * len(head)
        reading = entry[0] + (f"  ({n} configurations)" if n > 1 else "")
        lines += _wrap(reading, 100, initial_indent=head, subsequent_indent=pad + "  ")
        for more in entry[1:]:
            lines += _wrap(more, 100, initial_indent=pad, subsequent_indent=pad)
    if len(entries) > top:
        lines += ["", f"... and {len(entries) - top} more (--top N shows more, --json all)"]
    return "\n".join(lines)


def printed_json(line: PrintedLine) -> dict[str, Any]:
    """What ``identify --json`` says it read: the form, the score and its scale, the
    precisions and their scale when printed, each other number printed, and the signature with
    the settings it pins when printed."""
    out: dict[str, Any] = {"form": line.form, "score": line.score, "scale": line.scale}
    if line.precisions:
        out["precisions"] = list(line.precisions)
        out["precision_scale"] = line.precision_scale
    out.update({k: v for k, v in line.details.items() if not k.startswith("precision")})
    if line.signature:
        out["signature"] = line.signature
        out["settings"] = dict(line.settings)
    return out


def identify_json(answer: IdentifyAnswer) -> dict[str, Any]:
    """The JSON answer of ``identify --json``: every match, the nearest readings with what
    they miss, the odds, and the length clue with its sentence."""
    line, clue = answer.line, answer.clue
    lo, hi = printed_interval(line.score)
    return {
        "score": float(line.score),
        "printed": line.score,
        "read": printed_json(line),
        "interval": None if answer.tolerance is not None else [float(lo), float(hi)],
        "tolerance": answer.tolerance,
        "corpus": answer.corpus,
        "matches": to_json(answer.found),
        "n_matches": len(answer.found),
        "nearest": [{**to_json(c), "misses": list(w)} for c, w in answer.near],
        "chance": None if answer.odds is None else dataclasses.asdict(answer.odds),
        "fewest_steps": fewest_steps(answer.found),
        "alike_first": list(alike_first(answer.found)),
        "simplest": to_json(answer.simple),
        "lengths": None
        if clue is None
        else {**to_json(clue), "sentence": length_clue_sentence(clue)},
    }
