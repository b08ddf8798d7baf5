"""``check``'s findings in words: the message and the effect of each
:class:`~harness.diagnose.check.Finding`, the plain text and the JSON of a
:class:`~harness.diagnose.check.CheckReport`. Every number comes from the finding's fields
(sacreBLEU measured on the files before and after a named repair)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from harness.diagnose.check import MISTAKE_OF, CheckReport, Code, Finding, Location, Measured
from harness.diagnose.preprocess import MISTAKES

__all__ = [
    "CheckWords",
    "FindingWords",
    "check_text",
    "check_words",
    "describe",
    "effect",
    "measured_words",
    "message",
]

#: The repair whose effect :func:`measured_words` states, by code.
REPAIRS: dict[Code, str] = {
    Code.BPE_MARKERS: "with the markers merged (sed -r 's/(@@ )|(@@ ?$)//g')",
    Code.SPM_MARKERS: "with the pieces decoded (spaces dropped, '\u2581' made a space)",
    Code.COMPOUND_SPLIT: "with the compounds joined (' ##AT##-##AT## ' made '-')",
    Code.TOKENIZED: "read as already tokenized (tokenize none)",
    Code.CASE_MISMATCH: "case-insensitively",
    Code.SWAPPED_FILES: "with the two files exchanged",
}


@dataclass(frozen=True)
class FindingWords:
    """A finding as ``check --json`` writes it: the facts and their words."""

    code: str
    severity: str
    message: str
    effect: str
    count: int
    examples: tuple[Location, ...]


@dataclass(frozen=True)
class CheckWords:
    """A check report as ``check --json`` writes it."""

    files: tuple[str, ...]
    exit_code: int
    findings: tuple[FindingWords, ...]


def measured_words(m: Measured, how: str) -> str:
    """``on these files sacreBLEU is A as they are and B <how> (B − A)``."""
    return (
        f"on these files sacreBLEU is {m.before:.2f} as they are and {m.after:.2f} {how} "
        f"({m.change:+.2f})"
    )


def _lines(n: int) -> str:
    return f"{n} line(s)"


def message(f: Finding) -> str:
    """What was found, naming the files and counting the lines."""
    files = f.files
    if f.code in (Code.BPE_MARKERS, Code.SPM_MARKERS, Code.COMPOUND_SPLIT):
        return f"{_lines(f.count)} of {files[0]}: {MISTAKES[MISTAKE_OF[f.code]].what}"
    if f.code == Code.TOKENIZED:
        return (
            f"{_lines(f.count)} of {files[0]} look tokenized (space before punctuation, "
            "Moses escapes or @-@)"
        )
    if f.code == Code.CASE_MISMATCH:
        return f"{files[0]} has (almost) no upper case while {files[1]} has it on {_lines(f.count)}"
    if f.code in (Code.IDENTICAL_REFERENCES, Code.HYPOTHESIS_IS_REFERENCE):
        same, total, exact = f.line_counts
        if f.code == Code.IDENTICAL_REFERENCES:
            who = f"{files[0]} and {files[1]} are the same"
        else:
            who = f"{files[0]} equals {files[1]}"
        return (
            f"{who} on {same} of {total} lines ({exact} exactly, the rest but for case and spaces)"
        )
    if f.code == Code.EMPTY_LINES:
        return f"{f.count} empty line(s) in {files[0]}"
    if f.code == Code.SWAPPED_FILES:
        said = []
        wrong = list(files[1:] if f.hypothesis_named_reference else files)
        if f.hypothesis_named_reference:
            said.append(f"the hypothesis file {files[0]} is named like a reference")
        if wrong:
            said.append(f"{' and '.join(wrong)} (given as reference) like a system output")
        return (
            f"{', and '.join(said)}: were the files passed the other way round? "
            "(bleu-harness takes HYP then REF...; sacrebleu's command line REF then -i HYP)"
        )
    if f.code == Code.UNREADABLE:
        return f.detail
    if f.code == Code.LINE_COUNT:
        ref_lines, hyp_lines = f.line_counts
        return f"{files[0]} has {ref_lines} lines but {files[1]} has {hyp_lines}"
    if f.code == Code.BOM:
        verb = "starts" if len(files) == 1 else "start"
        return f"{' and '.join(files)} {verb} with a UTF-8 byte-order mark (bytes EF BB BF)"
    raise ValueError(f"no words for the finding code {f.code!r}")


def _tokenized_effect(f: Finding) -> str:
    """Whether the tokenized text loses matches, as the two measurements show."""
    assert f.detokenized is not None
    as_is, clean, name = f.detokenized.before, f.detokenized.after, f.files[0]
    if round(clean, 2) > round(as_is, 2):
        return (
            "tokenizers such as 13a expect raw text; tokenized text scored against raw text "
            f"(or tokenized twice) loses matches: sacreBLEU is {as_is:.2f} as the files are "
            f"and {clean:.2f} with {name} detokenized ({clean - as_is:+.2f}); "
        )
    return (
        f"13a splits this text as it splits raw text, so it loses no matches (sacreBLEU "
        f"{as_is:.2f} as the files are, {clean:.2f} with {name} detokenized); "
    )


def effect(f: Finding) -> str:
    """What the finding does to BLEU, with what was measured on the files."""
    m = f.measured
    if f.code in (Code.BPE_MARKERS, Code.SPM_MARKERS, Code.COMPOUND_SPLIT):
        assert m is not None
        return f"{MISTAKES[MISTAKE_OF[f.code]].effect}; {measured_words(m, REPAIRS[f.code])}"
    if f.code == Code.TOKENIZED:
        assert m is not None
        return _tokenized_effect(f) + measured_words(m, REPAIRS[f.code])
    if f.code == Code.CASE_MISMATCH:
        assert m is not None
        return (
            MISTAKES[MISTAKE_OF[f.code]].effect
            + "; score case-insensitively (the lowercase option) or fix the files; "
            + measured_words(m, REPAIRS[f.code])
        )
    if f.code == Code.IDENTICAL_REFERENCES:
        assert m is not None
        return (
            "a reference counted twice adds no diversity: BLEU is that of fewer "
            "references, and multi-reference claims are overstated; "
            + measured_words(m, f"without {f.files[1]}")
        )
    if f.code == Code.SWAPPED_FILES:
        text = MISTAKES[MISTAKE_OF[f.code]].effect
        return text if m is None else f"{text}; {measured_words(m, REPAIRS[f.code])}"
    if f.code == Code.HYPOTHESIS_IS_REFERENCE:
        return (
            "a reference scored against itself (or a system copying it) measures "
            f"nothing; on these files sacreBLEU is {f.sacrebleu:.2f}"
        )
    if f.code == Code.EMPTY_LINES:
        return (
            "an empty hypothesis adds nothing to the matches but its references add to "
            "the reference length (brevity penalty); libraries differ on empty input"
        )
    if f.code == Code.UNREADABLE:
        return "the file cannot be scored"
    if f.code == Code.LINE_COUNT:
        return (
            "files must be line-aligned; scorers raise, or zip silently truncates "
            "(sacrebleu) and scores misaligned segments"
        )
    if f.code == Code.BOM:
        assert m is not None
        return (
            "the official scorers (sacrebleu's command line, mteval-v13a.pl, multi-bleu.perl) "
            f"keep it as part of the first segment's first word: sacreBLEU is {m.before:.2f} "
            f"on these files as they read them and {m.after:.2f} without the mark "
            f"({m.before - m.after:+.2f}); the harness refuses such a file unless told: --bom keep "
            "scores it as they do, --bom strip drops it"
        )
    raise ValueError(f"no words for the finding code {f.code!r}")


def describe(f: Finding) -> str:
    """One paragraph: severity, message, where, effect."""
    where = ", ".join(f"{x.file}:{x.line}" for x in f.examples)
    more = f" (e.g. {where})" if where else ""
    said = effect(f)
    return f"{f.severity}: {message(f)}{more}. {said[:1].upper()}{said[1:]}."


def check_words(report: CheckReport) -> CheckWords:
    """The report as ``check --json`` writes it (serialise with
    :func:`harness.typed_json.to_json`)."""
    return CheckWords(
        report.files,
        report.exit_code,
        tuple(
            FindingWords(str(f.code), str(f.severity), message(f), effect(f), f.count, f.examples)
            for f in report.findings
        ),
    )


def check_text(report: CheckReport, width: int = 100) -> str:
    """The plain-text answer of ``check``: one wrapped paragraph per finding, or that
    nothing was found."""
    if not report.findings:
        return f"no preprocessing problems found in {', '.join(report.files)}"
    wrap = textwrap.TextWrapper(
        width,
        initial_indent="- ",
        subsequent_indent="  ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return "\n".join(wrap.fill(describe(f)) for f in report.findings)
