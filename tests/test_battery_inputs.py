"""Battery of bad inputs (issue 10): files, API arguments and CLI flags.

One row per bad input. Each row asserts the error type (API) or the exit code (CLI) AND the
words of the message (the file name and line where they apply), and that no number was
produced: an API row raises before returning a result, a CLI row prints no score. Rows of kind
``warn`` are legal input that is probably a mistake: the number is produced, and a typed
``SuspectInput`` warning naming the segment and the character must come with it.
"""

from __future__ import annotations

import math
import os
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.cli import main
from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError, LayoutError, SuspectInput

# ------------------------------------------------------------------------------------ files
GOOD = b"the cat is on the mat\nthere is a dog\nhe reads\n"


@dataclass(frozen=True)
class FileRow:
    """``bleu-harness ARGS`` in a folder holding ``files``; exit ``code``, stderr ``words``.

    ``env``: environment variables set for the run; ``modes``: file permissions set before it
    (such a row is skipped as root, which permission bits do not stop). The files are checked
    to be unchanged afterwards."""

    args: tuple[str, ...]
    files: dict[str, bytes]
    words: tuple[str, ...]
    code: int = 2
    env: tuple[tuple[str, str], ...] = ()
    modes: tuple[tuple[str, int], ...] = ()


def _files(**extra: bytes) -> dict[str, bytes]:
    return {"hyp.txt": GOOD, "ref.txt": GOOD, **extra}


SCORE = ("score", "hyp.txt", "ref.txt")
#: Just over 1 MiB of good lines: over BLEU_HARNESS_MAX_INPUT_MB=1.
OVER_1_MIB = GOOD * ((1 << 20) // len(GOOD) + 1)
LIMIT_1_MIB = (("BLEU_HARNESS_MAX_INPUT_MB", "1"),)
COMPARE_FILES = ("compare", "hyp.txt", "--refs", "ref.txt", "--no-progress", "--no-cache")
FILE_ROWS = {
    "ref-fewer-lines": FileRow(
        SCORE,
        _files(**{"ref.txt": b"a\nb\n"}),
        ("line counts differ: hypothesis file hyp.txt has 3 lines, reference file ref.txt has 2",),
    ),
    "ref-more-lines": FileRow(
        SCORE,
        _files(**{"ref.txt": GOOD + b"extra\n"}),
        ("reference file ref.txt has 4;", "line-aligned"),
    ),
    "second-ref-ragged": FileRow(
        (*SCORE, "ref2.txt"),
        _files(**{"ref2.txt": b"only one\n"}),
        ("hypothesis file hyp.txt has 3 lines, reference file ref2.txt has 1",),
    ),
    "empty-hyp-file": FileRow(SCORE, _files(**{"hyp.txt": b""}), ("hyp.txt", "empty file")),
    "empty-ref-file": FileRow(SCORE, _files(**{"ref.txt": b""}), ("ref.txt", "empty file")),
    "crlf-ref": FileRow(
        SCORE,
        _files(**{"ref.txt": b"a b\r\nc d\r\ne\r\n"}),
        ("ref.txt, line 1", "CRLF", "dos2unix"),
    ),
    "crlf-second-line-hyp": FileRow(
        SCORE,
        _files(**{"hyp.txt": b"a b\nc d\r\ne\n"}),
        ("hyp.txt, line 2", "CRLF"),
    ),
    "stray-cr": FileRow(
        SCORE,
        _files(**{"hyp.txt": b"a b\nc\rd\ne\n"}),
        ("hyp.txt, line 2", "stray carriage return"),
    ),
    "bom-hyp": FileRow(
        SCORE,
        _files(**{"hyp.txt": b"\xef\xbb\xbf" + GOOD}),
        ("hyp.txt, line 1", "byte-order mark"),
    ),
    "invalid-utf8": FileRow(
        SCORE,
        _files(**{"ref.txt": b"a\nb\ncaf\xe9\n"}),
        ("ref.txt, line 3", "invalid UTF-8", "0xE9"),
    ),
    "nul-byte": FileRow(
        SCORE,
        _files(**{"hyp.txt": b"a\nb\x00c\nd\n"}),
        ("hyp.txt, line 2", "NUL byte"),
    ),
    "utf16-file": FileRow(
        SCORE,
        _files(**{"hyp.txt": "a\nb\nc\n".encode("utf-16")}),
        ("hyp.txt, line 1", "UTF-16"),
    ),
    "missing-file": FileRow(("score", "nope.txt", "ref.txt"), _files(), ("nope.txt", "not found")),
    "directory-as-ref": FileRow(
        ("score", "hyp.txt", "."), _files(), ("is a directory, not a file",)
    ),
    "significance-system-shorter": FileRow(
        ("significance", "hyp.txt", "sys.txt", "ref.txt"),
        _files(**{"sys.txt": b"a\n"}),
        ("sys.txt has 1", "ref.txt", "line-aligned"),
    ),
    "explain-files-mismatch": FileRow(
        ("explain", "--a", "sacrebleu", "--b", "nltk", "hyp.txt", "ref.txt"),
        _files(**{"ref.txt": b"x\n"}),
        ("ref.txt", "reference file ref.txt has 1;", "hyp.txt has 3"),
    ),
    "identify-crlf": FileRow(
        ("identify", "--score", "27.0", "hyp.txt", "ref.txt"),
        _files(**{"ref.txt": b"a\r\nb\r\nc\r\n"}),
        ("ref.txt, line 1", "CRLF"),
    ),
    "report-results-not-json": FileRow(
        ("report", "--out", "rep", "--results", "rows.jsonl"),
        _files(**{"rows.jsonl": b"not json\n"}),
        ("rows.jsonl, line 1", "not a JSON results row"),
    ),
    # --- sizes: refused from the size before reading, the size and the limit named
    "hyp-over-size-limit": FileRow(
        SCORE,
        _files(**{"hyp.txt": OVER_1_MIB}),
        (
            "hyp.txt: hypothesis file is too large: 1.0 MiB",
            f"({len(OVER_1_MIB)} bytes)",
            "input size limit of 1 MiB",
            "BLEU_HARNESS_MAX_INPUT_MB=",
        ),
        env=LIMIT_1_MIB,
    ),
    "ref-over-size-limit": FileRow(
        SCORE,
        _files(**{"ref.txt": OVER_1_MIB}),
        ("ref.txt: reference file is too large", f"({len(OVER_1_MIB)} bytes)"),
        env=LIMIT_1_MIB,
    ),
    "second-ref-over-limit-refused-before-any-read": FileRow(
        # the first reference holds a NUL byte: the size of the second is refused before it
        (*SCORE, "ref2.txt"),
        _files(**{"ref.txt": b"a\x00\nb\nc\n", "ref2.txt": OVER_1_MIB}),
        ("ref2.txt: reference file is too large", "input size limit of 1 MiB"),
        env=LIMIT_1_MIB,
    ),
    "compare-files-ref-over-limit": FileRow(
        COMPARE_FILES,
        _files(**{"ref.txt": OVER_1_MIB}),
        ("ref.txt: reference file is too large", f"({len(OVER_1_MIB)} bytes)"),
        env=LIMIT_1_MIB,
    ),
    "compare-jsonl-over-limit": FileRow(
        ("compare", "--jsonl", "c.jsonl", "--no-progress", "--no-cache"),
        _files(**{"c.jsonl": b'{"hypothesis": "a", "references": ["a"]}\n' * 30_000}),
        ("c.jsonl: JSONL file is too large", "input size limit of 1 MiB"),
        env=LIMIT_1_MIB,
    ),
    "size-limit-not-a-number": FileRow(
        SCORE,
        _files(),
        ("BLEU_HARNESS_MAX_INPUT_MB must be a whole number of MiB", "'lots'"),
        env=(("BLEU_HARNESS_MAX_INPUT_MB", "lots"),),
    ),
    "size-limit-negative": FileRow(
        SCORE,
        _files(),
        ("BLEU_HARNESS_MAX_INPUT_MB", "0 for no limit", "'-5'"),
        env=(("BLEU_HARNESS_MAX_INPUT_MB", "-5"),),
    ),
    "size-limit-fraction": FileRow(
        COMPARE_FILES,
        _files(),
        ("BLEU_HARNESS_MAX_INPUT_MB", "whole number", "'0.5'"),
        env=(("BLEU_HARNESS_MAX_INPUT_MB", "0.5"),),
    ),
    # --- line counts of your files, refused from a scan before any file is kept
    "compare-files-second-hyp-shorter": FileRow(
        ("compare", "hyp.txt", "hyp2.txt", "--refs", "ref.txt", "--no-progress", "--no-cache"),
        _files(**{"hyp2.txt": b"a\nb\n"}),
        ("hypothesis file hyp.txt has 3 lines, hypothesis file hyp2.txt has 2",),
    ),
    "compare-files-crlf-before-count": FileRow(
        # a CRLF reference with another line count: the CRLF (the cause) is named, not the count
        COMPARE_FILES,
        _files(**{"ref.txt": b"a\r\nb\r\n"}),
        ("ref.txt, line 1", "CRLF", "dos2unix"),
    ),
    "compare-ref-is-a-directory": FileRow(
        ("compare", "hyp.txt", "--refs", ".", "--no-progress", "--no-cache"),
        _files(),
        ("reference file is a directory, not a file",),
    ),
    "unreadable-hyp-file": FileRow(
        SCORE,
        _files(),
        ("hyp.txt", "hypothesis file is not readable", "Permission denied"),
        modes=(("hyp.txt", 0),),
    ),
}

# ------------------------------------------------------------------------------------ flags
FLAG_ROWS = {
    # argparse rejects: exit 2, "argument --flag: …"
    "jobs-negative": (("score", "hyp.txt", "ref.txt", "--jobs", "-2"), ("--jobs", ">= 0")),
    "jobs-not-int": (("score", "hyp.txt", "ref.txt", "--jobs", "two"), ("--jobs", "integer")),
    "smooth-value-nan": (
        ("score", "hyp.txt", "ref.txt", "--smooth", "add-k", "--smooth-value", "nan"),
        ("--smooth-value", "finite"),
    ),
    "smooth-value-inf": (
        ("score", "hyp.txt", "ref.txt", "--smooth", "floor", "--smooth-value", "inf"),
        ("--smooth-value", "finite"),
    ),
    "smooth-value-negative-add-k": (
        ("score", "hyp.txt", "ref.txt", "--smooth", "add-k", "--smooth-value", "-1"),
        ("smooth_value -1.0", "add-k", ">= 0"),
    ),
    "smooth-value-zero-epsilon": (
        (
            "score",
            "hyp.txt",
            "ref.txt",
            "--profile",
            "nltk",
            "--smooth",
            "nltk-method1",
            "--smooth-value",
            "0",
        ),
        ("nltk-method1", "epsilon", "> 0"),
    ),
    "smooth-value-on-none": (
        ("score", "hyp.txt", "ref.txt", "--smooth", "none", "--smooth-value", "0.1"),
        ("takes no smooth_value",),
    ),
    "unknown-smooth": (
        ("score", "hyp.txt", "ref.txt", "--smooth", "bogus"),
        ("unknown smooth 'bogus'", "valid:", "add-k"),
    ),
    "unknown-tokenizer": (
        ("score", "hyp.txt", "ref.txt", "--tokenize", "13b"),
        ("unknown tokenize '13b'", "13a"),
    ),
    "unknown-profile": (
        ("score", "hyp.txt", "ref.txt", "--profile", "sacreblue"),
        ("--profile", "invalid choice", "sacreblue"),
    ),
    "unknown-option": (("score", "hyp.txt", "ref.txt", "--smoth", "exp"), ("unrecognized",)),
    "max-order-zero": (
        ("score", "hyp.txt", "ref.txt", "--max-order", "0"),
        ("max_order must be between 1 and 10", "got 0"),
    ),
    "unknown-adapter": (
        ("score", "hyp.txt", "ref.txt", "--impl", "sacrebelu"),
        ("sacrebelu",),
    ),
    "compare-unknown-impl": (
        ("compare", "--impl", "profile:nltkk"),
        ("unknown profile 'nltkk'", "valid:"),
    ),
    "compare-max-notes-negative": (("compare", "--max-notes", "-1"), ("--max-notes", ">= 0")),
    "validate-cases-negative": (
        ("validate", "--impl", "m:f", "--cases", "-1"),
        ("--cases", ">= 0"),
    ),
    "validate-seed-negative": (("validate", "--impl", "m:f", "--seed", "-1"), ("--seed", ">= 0")),
    "validate-impl-no-colon": (
        ("validate", "--impl", "mymodule"),
        ("expected 'module:function'", "mymodule"),
    ),
    "validate-impl-missing-module": (
        ("validate", "--impl", "no_such_module_xyz:bleu"),
        ("cannot import module 'no_such_module_xyz'", "current directory"),
    ),
    "validate-impl-missing-function": (
        ("validate", "--impl", "mymodule:nothing_here"),
        ("module 'mymodule' has no attribute 'nothing_here'",),
    ),
    "validate-impl-and-cmd": (
        ("validate", "--impl", "mymodule:my_bleu", "--cmd", "cat {hyp}"),
        ("exactly one of --impl", "--cmd"),
    ),
    "significance-resamples-zero": (
        ("significance", "hyp.txt", "hyp.txt", "ref.txt", "--resamples", "0"),
        ("--resamples", ">= 1"),
    ),
    "significance-seed-text": (
        ("significance", "hyp.txt", "hyp.txt", "ref.txt", "--seed", "abc"),
        ("--seed", "expected an integer", "'abc'"),
    ),
    "human-n-boot-negative": (("human", "--n-boot", "-1"), ("--n-boot", ">= 0")),
    "report-seed-negative": (("report", "--seed", "-5"), ("--seed", ">= 0")),
    "identify-score-nan": (
        ("identify", "--score", "nan", "--fixture", "google_nasa_opportunity"),
        ("--score", "finite"),
    ),
    "identify-tolerance-negative": (
        ("identify", "--score", "27", "--fixture", "google_nasa_opportunity", "--tolerance", "-1"),
        ("--tolerance", ">= 0"),
    ),
    "identify-top-zero": (
        ("identify", "--score", "27", "--fixture", "google_nasa_opportunity", "--top", "0"),
        ("--top", ">= 1"),
    ),
    "fixtures-show-unknown": (
        ("fixtures", "show", "google_nasa"),
        ("unknown fixture 'google_nasa'", "google_nasa_opportunity"),
    ),
    # --impl that names nothing, or loses a name to an empty item (before: 0 rows, exit 0)
    "compare-impl-only-a-comma": (
        ("compare", "--fixture", "edge_identical", "--impl", ","),
        ("--impl", "no implementation given in ','", "profile:NAME"),
    ),
    "compare-impl-empty-item": (
        ("compare", "--fixture", "edge_identical", "--impl", "sacrebleu,,nltk"),
        ("--impl", "an empty implementation in 'sacrebleu,,nltk'", "two commas"),
    ),
    "compare-impl-blank": (
        ("compare", "--fixture", "edge_identical", "--impl", " "),
        ("--impl", "no implementation given in ' '"),
    ),
    "compare-impl-trailing-comma": (
        ("compare", "--fixture", "edge_identical", "--impl", "profile:sacrebleu,"),
        ("--impl", "an empty implementation", "a comma at an end"),
    ),
    "compare-files-impl-empty-string": (
        ("compare", "hyp.txt", "--refs", "ref.txt", "--impl", ""),
        ("--impl", "no implementation given in ''"),
    ),
    "score-impl-empty-item": (
        ("score", "hyp.txt", "ref.txt", "--impl", "sacrebleu,,nltk"),
        ("--impl", "an empty name in 'sacrebleu,,nltk'"),
    ),
}

MYMODULE = "def my_bleu(hypotheses, references):\n    return 0.0\n"


def _run_cli(args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``main(args)``: the exit code (argparse's ``SystemExit`` included), stdout, stderr."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _assert_refused(code: int, out: str, err: str, words: tuple[str, ...], expected: int) -> None:
    assert code == expected, (code, out, err)
    assert "Traceback" not in out + err
    for w in words:
        assert w in err, f"{w!r} not in stderr: {err!r}"
    # no silent number: nothing that looks like a score was printed
    assert not re.search(r"BLEU\s*=|\"score\"|^\d+(\.\d+)?$", out, re.M), out


@pytest.mark.parametrize("row", list(FILE_ROWS.values()), ids=list(FILE_ROWS))
def test_bad_file(
    row: FileRow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    if row.modes and os.geteuid() == 0:
        pytest.skip("running as root, which permission bits do not stop")
    for name, data in row.files.items():
        (tmp_path / name).write_bytes(data)
    for name, mode in row.modes:
        (tmp_path / name).chmod(mode)
    for key, value in row.env:
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("BLEU_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    try:
        code, out, err = _run_cli(row.args, capsys)
    finally:
        for name, _mode in row.modes:
            (tmp_path / name).chmod(0o644)
    _assert_refused(code, out, err, row.words, row.code)
    for name, data in row.files.items():  # the user's files are left as they were
        assert (tmp_path / name).read_bytes() == data, name


@pytest.mark.parametrize(("args", "words"), list(FLAG_ROWS.values()), ids=list(FLAG_ROWS))
def test_bad_flag(
    args: tuple[str, ...],
    words: tuple[str, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
) -> None:
    (tmp_path / "hyp.txt").write_bytes(GOOD)
    (tmp_path / "ref.txt").write_bytes(GOOD)
    (tmp_path / "mymodule.py").write_text(MYMODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BLEU_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    # this folder's mymodule, imported afresh and forgotten after, so that no later test in
    # this process imports this one
    sys.modules.pop("mymodule", None)
    try:
        code, out, err = _run_cli(args, capsys)
    finally:
        sys.modules.pop("mymodule", None)
    _assert_refused(code, out, err, words, 2)


# ------------------------------------------------------------------------------------ API
H = ["the cat is on the mat", "a dog"]
R = [["the cat sat on the mat"], ["a dog barks"]]


def _bleu(**kw: Any) -> Callable[[], Any]:
    args = {"hypotheses": H, "references": R, **kw}
    return lambda: harness.corpus_bleu(**args)


NAN = math.nan
API_ROWS: dict[str, tuple[Callable[[], Any], type[Exception], tuple[str, ...]]] = {
    "weights-all-zero": (_bleu(weights=(0, 0, 0, 0)), ConfigError, ("all zero",)),
    "weights-nan": (_bleu(weights=(NAN, 0.5, 0.25, 0.25)), ConfigError, ("finite", "nan")),
    "weights-inf": (_bleu(weights=(math.inf, 0, 0, 0)), ConfigError, ("finite",)),
    "weights-negative": (_bleu(weights=(1.5, -0.5, 0, 0)), ConfigError, ("non-negative",)),
    "weights-wrong-length": (
        _bleu(weights=(0.5, 0.5)),
        ConfigError,
        ("weights has 2 entries but max_order is 4",),
    ),
    "weights-not-numbers": (_bleu(weights=("a", 1, 1, 1)), ConfigError, ("must be numbers",)),
    "add-k-negative": (
        _bleu(smooth="add-k", smooth_value=-1),
        ConfigError,
        ("smooth_value -1.0", "'add-k'", ">= 0"),
    ),
    "floor-nan": (_bleu(smooth="floor", smooth_value=NAN), ConfigError, ("finite", "floor")),
    "floor-negative": (_bleu(smooth="floor", smooth_value=-0.1), ConfigError, (">= 0",)),
    "nltk-epsilon-zero": (
        _bleu(profile="nltk", smooth="nltk-method1", smooth_value=0.0),
        ConfigError,
        ("epsilon", "> 0"),
    ),
    "nltk-method4-k-zero": (
        _bleu(profile="nltk", smooth="nltk-method4", smooth_value=0),
        ConfigError,
        ("k (nltk", "> 0"),
    ),
    "nltk-method6-alpha-negative": (
        _bleu(profile="nltk", smooth="nltk-method6", smooth_value=-2),
        ConfigError,
        ("alpha", "> 0"),
    ),
    "nltk-method7-k-inf": (
        _bleu(profile="nltk", smooth="nltk-method7", smooth_value=math.inf),
        ConfigError,
        ("finite",),
    ),
    "smooth-value-bool": (
        _bleu(smooth="floor", smooth_value=True),
        ConfigError,
        ("smooth_value must be a number",),
    ),
    "unknown-profile": (_bleu(profile="sacreblue"), ConfigError, ("unknown profile", "sacrebleu")),
    "unknown-option": (_bleu(smoth="exp"), ConfigError, ("unknown option(s) smoth",)),
    "max-order-zero": (_bleu(max_order=0), ConfigError, ("between 1 and 10",)),
    "refs-flat-string": (
        lambda: harness.corpus_bleu(hypotheses=H, references="the cat sat on the mat"),
        LayoutError,
        ("references must be a list", "got str"),
    ),
    "refs-flat-list-of-strings": (
        lambda: harness.corpus_bleu(hypotheses=H, references=["the cat sat", "a dog barks"]),
        LayoutError,
        ("a flat list of strings is not the per-segment layout", "references[0]"),
    ),
    "refs-as-streams-3x2": (
        lambda: harness.corpus_bleu(
            hypotheses=H, references=[["r1", "r2"], ["s1", "s2"], ["t1", "t2"]]
        ),
        LayoutError,
        ("one reference list per hypothesis", "expected 2, got 3"),
    ),
    "hypotheses-a-string": (
        lambda: harness.corpus_bleu(hypotheses="the cat", references=[["the cat"]]),
        LayoutError,
        ("hypotheses must be a list of strings",),
    ),
    "empty-corpus": (
        lambda: harness.corpus_bleu(hypotheses=[], references=[]),
        LayoutError,
        ("empty corpus",),
    ),
    "segment-without-references": (
        lambda: harness.corpus_bleu(hypotheses=H, references=[["x"], []]),
        LayoutError,
        ("at least one reference", "references[1]"),
    ),
    "hypothesis-none": (
        lambda: harness.corpus_bleu(hypotheses=["a", None], references=R),
        InputError,
        ("hypothesis 2 must be a string", "NoneType"),
    ),
    "reference-bytes": (
        lambda: harness.corpus_bleu(hypotheses=H, references=[["x"], [b"a dog"]]),
        InputError,
        ("reference 1 of segment 2 must be a string", "bytes"),
    ),
    "sentence-bleu-given-a-list": (
        lambda: harness.sentence_bleu(hypothesis=["the cat"], references=["the cat"]),
        LayoutError,
        ("use corpus_bleu",),
    ),
    "sentence-bleu-refs-a-string": (
        lambda: harness.sentence_bleu(hypothesis="the cat", references="the cat"),
        LayoutError,
        ("references must be a list of strings",),
    ),
    "streams-wrong-length": (
        lambda: Corpus.from_streams(hypotheses=H, streams=[["r1", "r2"], ["s1"]]),
        LayoutError,
        ("stream 2", "expected 2, got 1"),
    ),
    "streams-flat": (
        lambda: Corpus.from_streams(hypotheses=H, streams=["r1", "r2"]),
        LayoutError,
        ("a flat list of strings is one stream",),
    ),
    "streams-unknown-padding": (
        lambda: Corpus.from_streams(hypotheses=H, streams=[["r1", "r2"]], padding="blank"),
        LayoutError,
        ("unknown padding 'blank'",),
    ),
    "duplicate-ids": (
        lambda: Corpus(hypotheses=H, references=R, ids=["a", "a"]),
        LayoutError,
        ("segment ids must be unique",),
    ),
    # before: a bare TypeError ('NoneType' object is not iterable)
    "sentence-bleu-refs-none": (
        lambda: harness.sentence_bleu(hypothesis="the cat", references=None),
        LayoutError,
        ("references must be a list of strings", "[references]", "got NoneType"),
    ),
    "sentence-bleu-refs-a-number": (
        lambda: harness.sentence_bleu(hypothesis="the cat", references=3),
        LayoutError,
        ("references must be a list of strings", "got int"),
    ),
    "sentence-bleu-hypothesis-none": (
        lambda: harness.sentence_bleu(hypothesis=None, references=["the cat"]),
        LayoutError,
        ("hypothesis must be a string", "[hypothesis]", "got NoneType"),
    ),
    # truthfulqa: which side is empty, for which question
    "truthfulqa-empty-correct-side": (
        lambda: harness.truthfulqa_bleu(
            hypotheses=["a cat"], correct_references=[[]], incorrect_references=[["a dog"]]
        ),
        LayoutError,
        ("question 1 has no correct reference", "[correct_references[0]]"),
    ),
    "truthfulqa-empty-incorrect-side": (
        lambda: harness.truthfulqa_bleu(
            hypotheses=["a cat", "b"],
            correct_references=[["a cat"], ["b"]],
            incorrect_references=[["a dog"], []],
        ),
        LayoutError,
        ("question 2 has no incorrect reference", "[incorrect_references[1]]"),
    ),
    "truthfulqa-incorrect-side-none": (
        lambda: harness.truthfulqa_bleu(
            hypotheses=["a cat"], correct_references=[["a cat"]], incorrect_references=None
        ),
        LayoutError,
        ("incorrect_references must be a list", "got NoneType"),
    ),
    "truthfulqa-correct-side-too-short": (
        lambda: harness.truthfulqa_bleu(
            hypotheses=["a", "b"], correct_references=[["a"]], incorrect_references=[["x"], ["y"]]
        ),
        LayoutError,
        ("correct_references needs one reference list per hypothesis", "expected 2, got 1"),
    ),
}


@pytest.mark.parametrize(
    ("call", "exc", "words"), list(API_ROWS.values()), ids=list(API_ROWS)
)  # fmt: skip
def test_bad_api_input(call: Callable[[], Any], exc: type[Exception], words: tuple[str, ...]):
    result = None
    with pytest.raises(exc) as info:
        result = call()
    assert result is None  # no silent number
    for w in words:
        assert w in str(info.value), f"{w!r} not in {info.value}"


# ------------------------------------------------------------------------------------ warnings
WARN_ROWS: dict[str, tuple[Callable[[], Any], tuple[str, ...]]] = {
    "api-bom-hypothesis": (
        lambda: harness.corpus_bleu(hypotheses=["\ufeffthe cat", "a dog"], references=R),
        ("segment 1 (id '1') hypothesis", "U+FEFF", "byte-order mark"),
    ),
    "api-nul-reference": (
        lambda: harness.corpus_bleu(hypotheses=H, references=[["x"], ["a", "a\x00dog"]]),
        ("segment 2 (id '2') reference 2", "U+0000", "NUL"),
    ),
    "api-cr-sentence": (
        lambda: harness.sentence_bleu(hypothesis="the cat\r", references=["the cat"]),
        ("segment 1 (id '1') hypothesis", "U+000D", "carriage return", "character 8"),
    ),
    "api-lone-surrogate": (
        lambda: harness.corpus_bleu(hypotheses=["caf\udce9", "a"], references=R),
        ("segment 1 (id '1') hypothesis", "U+DCE9", "surrogate"),
    ),
    "corpus-cr-with-ids": (
        lambda: Corpus(hypotheses=["a", "b\r"], references=[["a"], ["b"]], ids=["s1", "s2"]),
        ("segment 2 (id 's2') hypothesis", "U+000D"),
    ),
    "api-many-cr-summarised": (
        lambda: harness.corpus_bleu(hypotheses=["a\r"] * 50, references=[["a"]] * 50),
        ("50 segment string(s)", "segment 3 (id '3')", "and 47 more"),
    ),
    "weights-not-summing-to-1": (
        _bleu(weights=(1, 1, 1, 1)),
        ("sum to 4, not 1", "nltk accepts"),
    ),
}


@pytest.mark.parametrize(("call", "words"), list(WARN_ROWS.values()), ids=list(WARN_ROWS))
def test_suspect_input_warns_once_and_still_scores(call: Callable[[], Any], words: tuple[str, ...]):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    suspect = [w for w in caught if issubclass(w.category, SuspectInput)]
    assert len(suspect) == 1, [str(w.message) for w in caught]  # one per corpus, summarised
    message = str(suspect[0].message)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert suspect[0].filename == __file__  # points at the caller, not into the package
    if hasattr(result, "score"):
        assert 0.0 <= result.score <= 100.0


def test_loaded_files_and_subsets_do_not_warn_again(tmp_path: Path) -> None:
    """Files are checked by the reader; a corpus built from them, or a subset of a corpus that
    already warned, adds no warning."""
    from harness.data.io import load_text_corpus

    (tmp_path / "h.txt").write_bytes(GOOD)
    (tmp_path / "r.txt").write_bytes("first line\n\ufeffa BOM mid-file is legal\nx\n".encode())
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspectInput)
        c = load_text_corpus(tmp_path / "h.txt", [tmp_path / "r.txt"])
    assert len(c) == 3
    with pytest.warns(SuspectInput):
        bad = Corpus(hypotheses=["a\r", "b"], references=[["a"], ["b"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspectInput)
        assert bad.subset([0, 1]).hypotheses == ("a\r", "b")


def test_clean_api_input_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspectInput)
        r = harness.corpus_bleu(hypotheses=H, references=R)
        s = harness.sentence_bleu(hypothesis="caf\u00e9 \ufeffx", references=["caf\u00e9"])
    assert 0 < r.score < 100 and 0 <= s.score < 100


def test_battery_size() -> None:
    n = len(FILE_ROWS) + len(FLAG_ROWS) + len(API_ROWS) + len(WARN_ROWS)
    assert n >= 30, n
