"""Check hypothesis and reference files before scoring: the preprocessing mistakes that change
BLEU without an error (:mod:`harness.diagnose.preprocess`) and the file problems that stop it.

:func:`check_files` reads each file with :func:`harness.data.io.read_lines` (strict UTF-8,
Unix line endings, no NUL: its errors name the file and line) and reports a :class:`Finding`
per problem, as facts: example :class:`Location` lines, the files named, and what it does to
BLEU measured on the files themselves where a repair can be named: sacreBLEU (the in-house
``sacrebleu`` profile) as the files are and after the repair (:func:`measured`). The words
(message, effect, the plain text and the JSON) are :mod:`harness.report.check_words`':

* ``unreadable`` / ``line-count`` (errors: nothing can be scored);
* ``bom`` (a file starts with a UTF-8 byte-order mark: the official scorers keep it as part of
  the first word, the harness refuses it unless told; its effect measured on the files);
* ``bpe-markers``, ``spm-markers``, ``compound-split`` (subword or compound markers left in);
* ``tokenized`` (spaces before punctuation, Moses escapes), and whether only one side is;
* ``case-mismatch`` (one side has no upper case at all; the ``AT`` of the ``##AT##``
  compound-split marker is not upper-case text);
* ``identical-references`` (two reference files equal, or equal but for case and spaces, on
  most lines: one reference counted twice);
* ``swapped-files`` (the hypothesis file named like a reference, or a reference file like a
  system output; with one reference, sacreBLEU with the two exchanged) and
  ``hypothesis-is-reference`` (the hypotheses equal a reference on most lines);
* ``empty-lines`` (empty hypotheses or references).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.corpus import BOM, Corpus
from harness.data.io import PathLike, read_lines
from harness.diagnose.preprocess import (
    MIN_SHARE,
    TOKENIZED_SHARE,
    detokenize,
    has_upper,
    looks_tokenized,
)
from harness.errors import InputError

__all__ = [
    "CheckReport",
    "Code",
    "Finding",
    "Location",
    "Measured",
    "Severity",
    "check_files",
    "check_texts",
]

#: Example locations kept per finding.
EXAMPLES = 5


class Code(str, Enum):
    """What a :class:`Finding` is about (its JSON ``code``)."""

    UNREADABLE = "unreadable"
    LINE_COUNT = "line-count"
    BOM = "bom"
    BPE_MARKERS = "bpe-markers"
    SPM_MARKERS = "spm-markers"
    COMPOUND_SPLIT = "compound-split"
    TOKENIZED = "tokenized"
    CASE_MISMATCH = "case-mismatch"
    IDENTICAL_REFERENCES = "identical-references"
    SWAPPED_FILES = "swapped-files"
    HYPOTHESIS_IS_REFERENCE = "hypothesis-is-reference"
    EMPTY_LINES = "empty-lines"

    def __str__(self) -> str:
        return self.value


class Severity(str, Enum):
    """``error``: nothing can be scored; ``warning``: the files can be scored, but the number
    may not mean what one thinks."""

    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value


#: The preprocessing mistake (:data:`~harness.diagnose.preprocess.MISTAKES`) whose effect a
#: finding states, by code.
MISTAKE_OF: dict[Code, str] = {
    Code.BPE_MARKERS: "bpe-left-in",
    Code.SPM_MARKERS: "spm-left-in",
    Code.COMPOUND_SPLIT: "compound-split",
    Code.CASE_MISMATCH: "lowercased-refs",
    Code.SWAPPED_FILES: "swapped-files",
}


@dataclass(frozen=True)
class Location:
    """A line of a file (1-based)."""

    file: str
    line: int


@dataclass(frozen=True)
class Measured:
    """sacreBLEU (the in-house ``sacrebleu`` profile) on the files as they are (``before``)
    and after the repair the finding names (``after``)."""

    before: float
    after: float

    @property
    def change(self) -> float:
        """``after - before``."""
        return self.after - self.before


@dataclass(frozen=True)
class Finding:
    """One problem, as facts: its ``code`` and ``severity``, the number of lines affected
    (``count``), example ``locations`` and what was measured.

    ``files`` are the files it names, in this order per code: the marked or tokenized file,
    the file without upper case then the cased one (``case-mismatch``), the two references
    (``identical-references``), the hypothesis file then the reference
    (``hypothesis-is-reference``), the short file then the hypothesis file (``line-count``),
    the misnamed files (``swapped-files``: the hypothesis file first when
    ``hypothesis_named_reference``), the marked files (``bom``). ``line_counts``: the lines
    that agree, the lines compared and those that agree exactly (``identical-references``,
    ``hypothesis-is-reference``); the two files' line counts (``line-count``). ``measured``:
    sacreBLEU before and after the repair the code names (``None`` when none is measured);
    ``detokenized``: sacreBLEU as the files are and with the file detokenized
    (``tokenized``); ``sacrebleu``: sacreBLEU on the files (``hypothesis-is-reference``);
    ``detail``: the reader's error (``unreadable``).
    """

    code: Code
    severity: Severity
    count: int = 0
    examples: tuple[Location, ...] = ()
    files: tuple[str, ...] = ()
    line_counts: tuple[int, ...] = ()
    measured: Measured | None = None
    detokenized: Measured | None = None
    sacrebleu: float | None = None
    hypothesis_named_reference: bool = False
    detail: str = ""


@dataclass(frozen=True)
class CheckReport:
    """Every finding on a hypothesis file and its reference files, errors first."""

    files: tuple[str, ...]
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def exit_code(self) -> int:
        """0 nothing found, 1 warnings only, 2 an error (the files cannot be scored)."""
        if any(f.severity == Severity.ERROR for f in self.findings):
            return 2
        return 1 if self.findings else 0


def _lines_where(
    name: str, lines: Sequence[str], test: Callable[[str], bool]
) -> tuple[int, tuple[Location, ...]]:
    hits = [i for i, t in enumerate(lines) if test(t)]
    return len(hits), tuple(Location(name, i + 1) for i in hits[:EXAMPLES])


def _marker(
    code: Code, files: dict[str, list[str]], test: Callable[[str], bool], measured: Measured
) -> list[Finding]:
    out = []
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, test)
        if n:
            out.append(Finding(code, Severity.WARNING, n, ex, (name,), measured=measured))
    return out


Texts = tuple[list[str], list[list[str]]]


def measured(
    hyp: list[str], refs: Sequence[list[str]], repaired: Texts, **overrides: Any
) -> Measured:
    """The ``sacrebleu`` profile on the texts as read and on ``repaired`` (with ``overrides``
    of the profile for the repaired side)."""
    return Measured(_sacrebleu(hyp, refs), _sacrebleu(repaired[0], repaired[1], **overrides))


def _detokenized(
    name: str, hyp: tuple[str, list[str]], refs: Sequence[tuple[str, list[str]]]
) -> Measured:
    """sacreBLEU on the files as they are and with the tokenized-looking file ``name``
    detokenized (:func:`~harness.diagnose.preprocess.detokenize`): the text loses matches
    only when the numbers show a loss (13a splits most Moses-tokenized text back into the
    tokens of the raw text)."""
    h = [detokenize(t) for t in hyp[1]] if name == hyp[0] else hyp[1]
    r = [[detokenize(t) for t in lines] if n == name else lines for n, lines in refs]
    return Measured(_sacrebleu(hyp[1], [lines for _, lines in refs]), _sacrebleu(h, r))


def _each(fix: Callable[[str], str], hyp: list[str], refs: Sequence[list[str]]) -> Texts:
    return [fix(t) for t in hyp], [[fix(t) for t in r] for r in refs]


def _merge_bpe(text: str) -> str:
    return re.sub(r"@@( |$)", "", text)


def _decode_spm(text: str) -> str:
    return "".join(text.split()).replace("\u2581", " ").strip() if "\u2581" in text else text


def _join_compounds(text: str) -> str:
    return text.replace(" ##AT##-##AT## ", "-")


#: Markers left in the text: the finding's code, the test of a line and the repair whose
#: effect is measured.
_MARKERS: tuple[tuple[Code, Callable[[str], bool], Callable[[str], str]], ...] = (
    (Code.BPE_MARKERS, lambda t: bool(re.search(r"@@( |$)", t)), _merge_bpe),
    (Code.SPM_MARKERS, lambda t: "\u2581" in t, _decode_spm),
    (Code.COMPOUND_SPLIT, lambda t: "##AT##" in t, _join_compounds),
)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _same_lines(a: Sequence[str], b: Sequence[str]) -> tuple[list[int], int]:
    """The line indices where ``a`` and ``b`` agree but for case and spaces, and how many of
    those agree exactly."""
    same = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if _norm(x) == _norm(y)]
    return same, sum(1 for i in same if a[i] == b[i])


def check_texts(hyp: tuple[str, list[str]], refs: Sequence[tuple[str, list[str]]]) -> list[Finding]:
    """The findings on already-read, line-aligned texts: ``(file name, lines)`` pairs."""
    files = {hyp[0]: hyp[1], **dict(refs)}
    h, r = hyp[1], [lines for _, lines in refs]
    out: list[Finding] = []

    for code, test, fix in _MARKERS:
        if any(test(t) for lines in files.values() for t in lines):
            out += _marker(code, files, test, measured(h, r, _each(fix, h, r)))
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, looks_tokenized)
        if n / max(1, len(lines)) >= TOKENIZED_SHARE:
            out.append(
                Finding(
                    Code.TOKENIZED,
                    Severity.WARNING,
                    n,
                    ex,
                    (name,),
                    detokenized=_detokenized(name, hyp, refs),
                    measured=measured(h, r, (h, r), tokenize="none"),
                )
            )
    hyp_upper = sum(1 for t in hyp[1] if has_upper(t)) / max(1, len(hyp[1]))
    for name, lines in refs:
        ref_upper = sum(1 for t in lines if has_upper(t)) / max(1, len(lines))
        if (hyp_upper >= MIN_SHARE) != (ref_upper >= MIN_SHARE):
            cased, lower = (hyp[0], name) if hyp_upper >= MIN_SHARE else (name, hyp[0])
            n, ex = _lines_where(cased, files[cased], has_upper)
            out.append(
                Finding(
                    Code.CASE_MISMATCH,
                    Severity.WARNING,
                    n,
                    ex,
                    (lower, cased),
                    measured=measured(h, r, (h, r), lowercase=True),
                )
            )
    for a in range(len(refs)):
        for b in range(a + 1, len(refs)):
            (na, la), (nb, lb) = refs[a], refs[b]
            same, exact = _same_lines(la, lb)
            if len(same) >= 0.5 * max(1, len(la)):
                out.append(
                    Finding(
                        Code.IDENTICAL_REFERENCES,
                        Severity.WARNING,
                        len(same),
                        tuple(Location(nb, i + 1) for i in same[:EXAMPLES]),
                        (na, nb),
                        (len(same), len(la), exact),
                        measured=measured(h, r, (h, [x for k, x in enumerate(r) if k != b])),
                    )
                )
    out += _slots(hyp, refs)
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, lambda t: not t.strip())
        if n:
            out.append(Finding(Code.EMPTY_LINES, Severity.WARNING, n, ex, (name,)))
    return out


#: Words of a file name that say "reference" (``refA`` too) or "system output".
_REFERENCE_WORDS = {"ref", "refs", "reference", "references", "gold", "target", "tgt", "truth"}
_OUTPUT_WORDS = {
    "hyp", "hyps", "hypo", "hypothesis", "hypotheses", "sys", "system", "systems", "output",
    "outputs", "out", "pred", "preds", "prediction", "predictions", "mt", "decoded",
    "generated", "candidate", "candidates",
}  # fmt: skip


def named_as(path: str) -> str | None:
    """``"reference"`` or ``"output"`` when the file's name says one and not the other
    (``newstest2021.ref.de``, ``refA.txt``; ``hyp.de``, ``sys1.out``), else ``None``."""
    words = re.findall(r"[a-z]+", Path(path).name.lower())
    ref = any(w in _REFERENCE_WORDS or re.fullmatch(r"ref[a-d]", w) for w in words)
    out = any(w in _OUTPUT_WORDS for w in words)
    return "reference" if ref and not out else "output" if out and not ref else None


def _slots(hyp: tuple[str, list[str]], refs: Sequence[tuple[str, list[str]]]) -> list[Finding]:
    """A reference in the hypothesis slot: files named the other way round, or a hypothesis
    file equal to a reference on most lines. (The text alone does not tell a human
    translation from a strong system's: see docs/diagnose.md.)"""
    out: list[Finding] = []
    h, r = hyp[1], [lines for _, lines in refs]
    wrong = [n for n, _ in refs if named_as(n) == "output"]
    first = [hyp[0]] if named_as(hyp[0]) == "reference" else []
    if first or wrong:
        out.append(
            Finding(
                Code.SWAPPED_FILES,
                Severity.WARNING,
                len(first) + len(wrong),
                tuple(Location(n, 1) for n in first + wrong),
                tuple(first + wrong),
                measured=measured(h, r, (r[0], [h])) if len(refs) == 1 else None,
                hypothesis_named_reference=bool(first),
            )
        )
    for name, lines in refs:
        same, exact = _same_lines(h, lines)
        if len(same) >= 0.5 * max(1, len(h)):
            out.append(
                Finding(
                    Code.HYPOTHESIS_IS_REFERENCE,
                    Severity.WARNING,
                    len(same),
                    tuple(Location(hyp[0], i + 1) for i in same[:EXAMPLES]),
                    (hyp[0], name),
                    (len(same), len(h), exact),
                    sacrebleu=_sacrebleu(h, r),
                )
            )
    return out


def check_files(hyp_path: PathLike, ref_paths: Sequence[PathLike]) -> CheckReport:
    """Read the files (each problem of :func:`~harness.data.io.read_lines` becomes an
    ``unreadable`` error naming the file and line) and report every :class:`Finding`."""
    names = [str(hyp_path), *(str(p) for p in ref_paths)]
    errors: list[Finding] = []
    texts: dict[str, list[str]] = {}
    for i, path in enumerate([hyp_path, *ref_paths]):
        try:
            texts[names[i]] = read_lines(
                path, what="hypothesis file" if i == 0 else "reference file", bom="keep"
            )
        except InputError as exc:
            errors.append(Finding(Code.UNREADABLE, Severity.ERROR, detail=str(exc)))
    if errors:
        return CheckReport(tuple(names), tuple(errors))
    hyp = (names[0], texts[names[0]])
    refs = [(n, texts[n]) for n in names[1:]]
    for name, lines in refs:
        if len(lines) != len(hyp[1]):
            errors.append(
                Finding(
                    Code.LINE_COUNT,
                    Severity.ERROR,
                    abs(len(lines) - len(hyp[1])),
                    (Location(name, min(len(lines), len(hyp[1])) + 1),),
                    (name, hyp[0]),
                    (len(lines), len(hyp[1])),
                )
            )
    if errors:
        return CheckReport(tuple(names), tuple(errors))
    marked = [n for n in names if texts[n] and texts[n][0].startswith(BOM)]
    found = [_bom_finding(marked, hyp, refs)] if marked else []
    return CheckReport(tuple(names), tuple(found + check_texts(hyp, refs)))


def _sacrebleu(hyp: list[str], refs: Sequence[list[str]], **overrides: Any) -> float:
    """sacreBLEU (the in-house ``sacrebleu`` profile, with ``overrides``) of line-aligned
    texts."""
    corpus = Corpus(
        hypotheses=tuple(hyp),
        references=tuple(zip(*refs, strict=True)),
        check_text=False,  # a kept byte-order mark is the point
    )
    return engine.corpus_score(corpus, PROFILES["sacrebleu"].replace(**overrides)).score


def _bom_finding(
    marked: list[str], hyp: tuple[str, list[str]], refs: Sequence[tuple[str, list[str]]]
) -> Finding:
    """The ``bom`` warning, with sacreBLEU on the files as the official scorers read them
    (the mark glued to the first word, ``before``) beside sacreBLEU with the marks dropped
    (``after``)."""

    def dropped(lines: list[str]) -> list[str]:
        return [lines[0].removeprefix(BOM), *lines[1:]] if lines else lines

    ref_lines = [lines for _, lines in refs]
    kept = _sacrebleu(hyp[1], ref_lines)
    stripped = _sacrebleu(dropped(hyp[1]), [dropped(r) for r in ref_lines])
    return Finding(
        Code.BOM,
        Severity.WARNING,
        len(marked),
        tuple(Location(n, 1) for n in marked),
        tuple(marked),
        measured=Measured(kept, stripped),
    )
