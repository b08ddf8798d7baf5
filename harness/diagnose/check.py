"""Check hypothesis and reference files before scoring: the preprocessing mistakes that change
BLEU without an error (:mod:`harness.diagnose.preprocess`) and the file problems that stop it.

:func:`check_files` reads each file with :func:`harness.data.io.read_lines` (strict UTF-8,
Unix line endings, no NUL: its errors name the file and line) and reports a :class:`Finding`
per problem, each with example ``(file, line)`` locations and what it does to BLEU — measured on
the files themselves where a repair can be named: sacreBLEU (the in-house ``sacrebleu``
profile) as the files are and after the repair (:func:`measured`):

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
from pathlib import Path
from typing import Any

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.corpus import BOM, Corpus
from harness.data.io import PathLike, read_lines
from harness.diagnose.preprocess import (
    MIN_SHARE,
    MISTAKES,
    TOKENIZED_SHARE,
    detokenize,
    has_upper,
    looks_tokenized,
)
from harness.errors import InputError

__all__ = ["CheckReport", "Finding", "check_files", "check_texts"]

#: Example locations kept per finding.
EXAMPLES = 5


@dataclass(frozen=True)
class Finding:
    """One problem: ``code``, ``severity`` (``error`` or ``warning``), a message, the number
    of lines affected, example ``(file, 1-based line)`` locations and its effect on BLEU."""

    code: str
    severity: str
    message: str
    effect: str
    count: int = 0
    examples: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "effect": self.effect,
            "count": self.count,
            "examples": [{"file": f, "line": n} for f, n in self.examples],
        }

    def describe(self) -> str:
        """One paragraph: severity, message, where, effect."""
        where = ", ".join(f"{f}:{n}" for f, n in self.examples)
        more = f" (e.g. {where})" if where else ""
        return f"{self.severity}: {self.message}{more}. {self.effect[:1].upper()}{self.effect[1:]}."


@dataclass(frozen=True)
class CheckReport:
    """Every finding on a hypothesis file and its reference files, errors first."""

    files: tuple[str, ...]
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def exit_code(self) -> int:
        """0 nothing found, 1 warnings only, 2 an error (the files cannot be scored)."""
        if any(f.severity == "error" for f in self.findings):
            return 2
        return 1 if self.findings else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "exit_code": self.exit_code,
            "findings": [f.to_dict() for f in self.findings],
        }


def _lines_where(
    name: str, lines: Sequence[str], test: Callable[[str], bool]
) -> tuple[int, list[tuple[str, int]]]:
    hits = [i for i, t in enumerate(lines) if test(t)]
    return len(hits), [(name, i + 1) for i in hits[:EXAMPLES]]


def _marker(
    code: str,
    mistake: str,
    files: dict[str, list[str]],
    test: Callable[[str], bool],
    effect: str,
) -> list[Finding]:
    out = []
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, test)
        if n:
            m = MISTAKES[mistake]
            out.append(
                Finding(code, "warning", f"{n} line(s) of {name}: {m.what}", effect, n, tuple(ex))
            )
    return out


Texts = tuple[list[str], list[list[str]]]


def measured(
    hyp: list[str],
    refs: Sequence[list[str]],
    repaired: Texts,
    how: str,
    **overrides: Any,
) -> str:
    """``on these files sacreBLEU is A as they are and B <how> (B − A)``: the ``sacrebleu``
    profile on the texts as read and on ``repaired`` (with ``overrides`` of the profile for
    the repaired side)."""
    before = _sacrebleu(hyp, refs)
    after = _sacrebleu(repaired[0], repaired[1], **overrides)
    return (
        f"on these files sacreBLEU is {before:.2f} as they are and {after:.2f} {how} "
        f"({after - before:+.2f})"
    )


def _tokenized_effect(
    name: str, hyp: tuple[str, list[str]], refs: Sequence[tuple[str, list[str]]]
) -> str:
    """What scoring the tokenized-looking file ``name`` as it is does, measured against the
    same files with ``name`` detokenized (:func:`~harness.diagnose.preprocess.detokenize`):
    it loses matches only when the numbers show a loss (13a splits most Moses-tokenized text
    back into the tokens of the raw text)."""
    h = [detokenize(t) for t in hyp[1]] if name == hyp[0] else hyp[1]
    r = [[detokenize(t) for t in lines] if n == name else lines for n, lines in refs]
    as_is = _sacrebleu(hyp[1], [lines for _, lines in refs])
    clean = _sacrebleu(h, r)
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


def _each(fix: Callable[[str], str], hyp: list[str], refs: Sequence[list[str]]) -> Texts:
    return [fix(t) for t in hyp], [[fix(t) for t in r] for r in refs]


def _merge_bpe(text: str) -> str:
    return re.sub(r"@@( |$)", "", text)


def _decode_spm(text: str) -> str:
    return "".join(text.split()).replace("\u2581", " ").strip() if "\u2581" in text else text


def _join_compounds(text: str) -> str:
    return text.replace(" ##AT##-##AT## ", "-")


#: Markers left in the text: the finding's code, the mistake, the test of a line, the repair
#: whose effect is measured, and the repair in words.
_MARKERS: tuple[tuple[str, str, Callable[[str], bool], Callable[[str], str], str], ...] = (
    (
        "bpe-markers",
        "bpe-left-in",
        lambda t: bool(re.search(r"@@( |$)", t)),
        _merge_bpe,
        "with the markers merged (sed -r 's/(@@ )|(@@ ?$)//g')",
    ),
    (
        "spm-markers",
        "spm-left-in",
        lambda t: "\u2581" in t,
        _decode_spm,
        "with the pieces decoded (spaces dropped, '\u2581' made a space)",
    ),
    (
        "compound-split",
        "compound-split",
        lambda t: "##AT##" in t,
        _join_compounds,
        "with the compounds joined (' ##AT##-##AT## ' made '-')",
    ),
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

    for code, mistake, test, fix, how in _MARKERS:
        if any(test(t) for lines in files.values() for t in lines):
            effect = f"{MISTAKES[mistake].effect}; {measured(h, r, _each(fix, h, r), how)}"
            out += _marker(code, mistake, files, test, effect)
    shares = {}
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, looks_tokenized)
        shares[name] = n / max(1, len(lines))
        if shares[name] >= TOKENIZED_SHARE:
            out.append(
                Finding(
                    "tokenized",
                    "warning",
                    f"{n} line(s) of {name} look tokenized (space before punctuation, "
                    "Moses escapes or @-@)",
                    _tokenized_effect(name, hyp, refs)
                    + measured(
                        h, r, (h, r), "read as already tokenized (tokenize none)", tokenize="none"
                    ),
                    n,
                    tuple(ex),
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
                    "case-mismatch",
                    "warning",
                    f"{lower} has (almost) no upper case while {cased} has it on {n} line(s)",
                    MISTAKES["lowercased-refs"].effect
                    + "; score case-insensitively (the lowercase option) or fix the files; "
                    + measured(h, r, (h, r), "case-insensitively", lowercase=True),
                    n,
                    tuple(ex),
                )
            )
    for a in range(len(refs)):
        for b in range(a + 1, len(refs)):
            (na, la), (nb, lb) = refs[a], refs[b]
            same, exact = _same_lines(la, lb)
            if len(same) >= 0.5 * max(1, len(la)):
                out.append(
                    Finding(
                        "identical-references",
                        "warning",
                        f"{na} and {nb} are the same on {len(same)} of {len(la)} lines "
                        f"({exact} exactly, the rest but for case and spaces)",
                        "a reference counted twice adds no diversity: BLEU is that of fewer "
                        "references, and multi-reference claims are overstated; "
                        + measured(
                            h, r, (h, [x for k, x in enumerate(r) if k != b]), f"without {nb}"
                        ),
                        len(same),
                        tuple((nb, i + 1) for i in same[:EXAMPLES]),
                    )
                )
    out += _slots(hyp, refs)
    for name, lines in files.items():
        n, ex = _lines_where(name, lines, lambda t: not t.strip())
        if n:
            out.append(
                Finding(
                    "empty-lines",
                    "warning",
                    f"{n} empty line(s) in {name}",
                    "an empty hypothesis adds nothing to the matches but its references add to "
                    "the reference length (brevity penalty); libraries differ on empty input",
                    n,
                    tuple(ex),
                )
            )
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
        said = []
        if first:
            said.append(f"the hypothesis file {hyp[0]} is named like a reference")
        if wrong:
            said.append(f"{' and '.join(wrong)} (given as reference) like a system output")
        effect = MISTAKES["swapped-files"].effect
        if len(refs) == 1:
            effect += "; " + measured(h, r, (r[0], [h]), "with the two files exchanged")
        out.append(
            Finding(
                "swapped-files",
                "warning",
                f"{', and '.join(said)}: were the files passed the other way round? "
                "(bleu-harness takes HYP then REF...; sacrebleu's command line REF then -i HYP)",
                effect,
                len(first) + len(wrong),
                tuple((n, 1) for n in first + wrong),
            )
        )
    for name, lines in refs:
        same, exact = _same_lines(h, lines)
        if len(same) >= 0.5 * max(1, len(h)):
            out.append(
                Finding(
                    "hypothesis-is-reference",
                    "warning",
                    f"{hyp[0]} equals {name} on {len(same)} of {len(h)} lines ({exact} exactly, "
                    "the rest but for case and spaces)",
                    "a reference scored against itself (or a system copying it) measures "
                    f"nothing; on these files sacreBLEU is {_sacrebleu(h, r):.2f}",
                    len(same),
                    tuple((hyp[0], i + 1) for i in same[:EXAMPLES]),
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
            errors.append(
                Finding("unreadable", "error", str(exc), "the file cannot be scored", 0, ())
            )
    if errors:
        return CheckReport(tuple(names), tuple(errors))
    hyp = (names[0], texts[names[0]])
    refs = [(n, texts[n]) for n in names[1:]]
    for name, lines in refs:
        if len(lines) != len(hyp[1]):
            errors.append(
                Finding(
                    "line-count",
                    "error",
                    f"{name} has {len(lines)} lines but {hyp[0]} has {len(hyp[1])}",
                    "files must be line-aligned; scorers raise, or zip silently truncates "
                    "(sacrebleu) and scores misaligned segments",
                    abs(len(lines) - len(hyp[1])),
                    ((name, min(len(lines), len(hyp[1])) + 1),),
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
    (the mark glued to the first word) beside sacreBLEU with the marks dropped."""

    def dropped(lines: list[str]) -> list[str]:
        return [lines[0].removeprefix(BOM), *lines[1:]] if lines else lines

    ref_lines = [lines for _, lines in refs]
    kept = _sacrebleu(hyp[1], ref_lines)
    stripped = _sacrebleu(dropped(hyp[1]), [dropped(r) for r in ref_lines])
    return Finding(
        "bom",
        "warning",
        f"{' and '.join(marked)} start{'s' if len(marked) == 1 else ''} with a UTF-8 "
        "byte-order mark (bytes EF BB BF)",
        "the official scorers (sacrebleu's command line, mteval-v13a.pl, multi-bleu.perl) keep "
        f"it as part of the first segment's first word: sacreBLEU is {kept:.2f} on these files as they read "
        f"them and {stripped:.2f} without the mark ({kept - stripped:+.2f}); the harness "
        "refuses such a file unless told: --bom keep scores it as they do, --bom strip drops it",
        len(marked),
        tuple((n, 1) for n in marked),
    )
