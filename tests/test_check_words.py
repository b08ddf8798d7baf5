"""check's words are written from the finding's facts: changing a fact changes the sentence."""

from __future__ import annotations

import dataclasses

from harness.diagnose.check import CheckReport, Code, Finding, Location, Measured, Severity
from harness.diagnose.preprocess import MISTAKES
from harness.report.check_words import (
    REPAIRS,
    check_text,
    check_words,
    describe,
    effect,
    measured_words,
    message,
)
from harness.typed_json import to_json


def _bpe(before: float, after: float, count: int = 3) -> Finding:
    return Finding(
        Code.BPE_MARKERS,
        Severity.WARNING,
        count,
        (Location("hyp.txt", 2),),
        ("hyp.txt",),
        measured=Measured(before, after),
    )


def test_measured_words_follow_the_two_scores() -> None:
    a, b = _bpe(20.0, 25.5), _bpe(31.25, 30.0)
    assert "sacreBLEU is 20.00 as they are and 25.50" in effect(a)
    assert "(+5.50)" in effect(a)
    assert "sacreBLEU is 31.25 as they are and 30.00" in effect(b)
    assert "(-1.25)" in effect(b)
    assert effect(a) != effect(b)
    assert REPAIRS[Code.BPE_MARKERS] in effect(a)
    assert effect(a).startswith(MISTAKES["bpe-left-in"].effect)


def test_message_counts_the_lines_and_names_the_file() -> None:
    assert message(_bpe(1, 2, count=3)).startswith("3 line(s) of hyp.txt: ")
    assert message(_bpe(1, 2, count=7)).startswith("7 line(s) of hyp.txt: ")
    renamed = dataclasses.replace(_bpe(1, 2), files=("other.txt",))
    assert "of other.txt" in message(renamed)


def test_tokenized_effect_says_a_loss_only_when_the_numbers_show_one() -> None:
    def tok(as_is: float, clean: float) -> Finding:
        return Finding(
            Code.TOKENIZED,
            Severity.WARNING,
            2,
            (),
            ("t.txt",),
            measured=Measured(as_is, as_is),
            detokenized=Measured(as_is, clean),
        )

    assert "loses matches" in effect(tok(20.0, 22.0))
    assert "loses no matches" in effect(tok(20.0, 20.0))
    assert "loses no matches" in effect(tok(20.0, 19.0))


def test_identical_references_count_the_lines_compared() -> None:
    f = Finding(
        Code.IDENTICAL_REFERENCES,
        Severity.WARNING,
        4,
        (),
        ("a", "b"),
        (4, 5, 3),
        measured=Measured(30.0, 28.0),
    )
    assert (
        message(f)
        == "a and b are the same on 4 of 5 lines (3 exactly, the rest but for case and spaces)"
    )
    g = dataclasses.replace(f, line_counts=(5, 5, 5))
    assert "on 5 of 5 lines (5 exactly" in message(g)
    assert measured_words(Measured(30.0, 28.0), "without b") in effect(f)


def test_bom_states_kept_minus_stripped() -> None:
    f = Finding(Code.BOM, Severity.WARNING, 1, (), ("h",), measured=Measured(10.0, 12.0))
    assert "sacreBLEU is 10.00 on these files as they read them and 12.00" in effect(f)
    assert "(-2.00)" in effect(f)
    assert message(f).startswith("h starts with")
    assert message(dataclasses.replace(f, files=("h", "r"))).startswith("h and r start with")


def test_report_words_and_json_come_from_the_facts() -> None:
    report = CheckReport(("hyp.txt", "ref.txt"), (_bpe(20.0, 25.5),))
    text = check_text(report)
    assert text.startswith("- warning: 3 line(s) of hyp.txt")
    assert describe(report.findings[0]).replace("\n", " ") in text.replace("\n  ", " ")
    data = to_json(check_words(report))
    assert list(data) == ["files", "exit_code", "findings"]
    assert data["exit_code"] == 1
    (one,) = data["findings"]
    assert list(one) == ["code", "severity", "message", "effect", "count", "examples"]
    assert one["examples"] == [{"file": "hyp.txt", "line": 2}]
    assert one["message"] == message(report.findings[0])
    assert check_text(CheckReport(("a", "b"))) == "no preprocessing problems found in a, b"
