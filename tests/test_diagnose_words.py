"""What identify, check and compare say agrees with their own numbers, in words a user reads.

Every expected number is computed here: the score by the real sacrebleu, the decimals from the
digits of the printed line, the loss from the check's own printed scores.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.cli.app import main
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.check import check_files
from harness.diagnose.identify import identify
from harness.report.check_words import effect
from harness.session import Session

NASA = load_fixture("google_nasa_opportunity")
FIXTURE = ["--fixture", NASA.name, "--system", "candidate_2"]

#: A Python value's repr in running text: None, True, False, or a quoted string (a word's
#: apostrophe, as in "the script's default", is not one: no letter before the opening quote
#: and no space inside).
REPR = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|(?<![\w'])'[^'\s]*'(?![\w'])|[\[{(]'")


def _sacrebleu(corpus: Corpus) -> Any:
    sacrebleu = pytest.importorskip("sacrebleu")
    streams = [[seg[k] for seg in corpus.references] for k in range(corpus.max_refs)]
    return sacrebleu.corpus_bleu(list(corpus.hypotheses), streams)


def _decimals(printed: str) -> int:
    """The decimals a number was printed with, counted from its characters."""
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def _rounding(places: int) -> str:
    return f"{places} decimal{'' if places == 1 else 's'}"


def test_identify_rounds_as_the_score_was_printed() -> None:
    corpus = NASA.corpus("candidate_2")
    s = _sacrebleu(corpus).score
    session = Session()
    for places in (0, 1, 2, 3):
        printed = f"{s:.{places}f}"
        found = identify(printed, corpus, session=session)
        assert found and found[0].reproduces
        for c in found[:30]:
            assert c.rounding == _rounding(_decimals(printed)), (printed, c.rounding)
            assert c.shown == round(c.raw, places)


@pytest.mark.parametrize("width", [1, 2])
def test_identify_names_the_decimals_of_a_pasted_sacrebleu_line(capsys, width) -> None:
    line = _sacrebleu(NASA.corpus("candidate_2")).format(width=width)
    score = re.match(r"BLEU = (\S+) ", line)
    assert score is not None
    places = _decimals(score.group(1))
    assert main(["identify", "--score", line, *FIXTURE]) == 0
    out = capsys.readouterr().out
    said = re.findall(r"\(rounded to ([^)]*)\)", out)
    assert said and set(said) == {_rounding(places)}, out
    assert "significant" not in out
    # the number shown is written with those decimals too ("29.0", never "29")
    shown = re.findall(r"shown as (\S+) \(rounded", out)
    assert shown and {_decimals(x) for x in shown} == {places}, out


def test_identify_writes_the_printed_decimals_of_a_round_number(capsys, tmp_path: Path) -> None:
    """A score printed with a trailing zero is shown with it: hypotheses equal to their
    references score 100, printed as ``100.00``."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    text = "the cat sat on the mat today\na dog ran in the park at noon\n"
    hyp.write_text(text, "utf-8")
    ref.write_text(text, "utf-8")
    assert main(["identify", "--score", "100.00", str(hyp), str(ref)]) == 0
    out = capsys.readouterr().out
    shown = re.findall(r"shown as (\S+) \(rounded to 2 decimals\)", out)
    assert shown and set(shown) == {"100.00"}, out


def _no_reprs(text: str) -> None:
    found = [m.group(0) for m in REPR.finditer(text)]
    assert not found, (found, text)


def test_the_words_hold_no_python_reprs(capsys, tmp_path: Path) -> None:
    # identify: a reading that changes a field to its method's default (smooth_value)
    assert main(["identify", "--score", "0.27", *FIXTURE, "--top", "300"]) == 0
    out = capsys.readouterr().out
    assert "smooth_value=" in out  # the field whose default used to print as a repr
    _no_reprs(out)
    # check: tokenized hypotheses, lower-cased references
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("The cat sat on the mat , he said .\nA dog ran in the park .\n", "utf-8")
    ref.write_text("the cat sat on the mat, he said.\na dog ran in a park.\n", "utf-8")
    main(["check", str(hyp), str(ref)])
    out = capsys.readouterr().out
    assert "case" in out and "tokenized" in out
    _no_reprs(out)
    # compare: every profile's families, labels and factor values
    other = tmp_path / "sys.txt"
    other.write_text("the cat on the mat .\na dog in the park .\n", "utf-8")
    assert main(["compare", str(hyp), str(other), "--refs", str(ref), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "smooth_value=" in out
    _no_reprs(out)


_LOSS = re.compile(
    r"sacreBLEU (?:is )?(?P<as_is>\d+\.\d\d) as the files are,? (?:and )?"
    r"(?P<clean>\d+\.\d\d) with \S+ detokenized"
)


@pytest.mark.parametrize(
    "hyps",
    [
        # 13a splits the punctuation off as it does in the raw reference: no match lost
        ["The cat sat on the mat , he said .", "A dog ran in the park ."],
        # Moses escapes and @-@ stay whole under 13a: matches are lost
        ["The cat &apos;s mat , he said .", "A well @-@ known dog ran ."],
    ],
)
def test_check_says_matches_are_lost_only_when_its_numbers_show_it(tmp_path, hyps) -> None:
    refs = ["The cat's mat, he said.", "A well-known dog ran in the park."]
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(h + "\n" for h in hyps), "utf-8")
    ref.write_text("".join(r + "\n" for r in refs), "utf-8")
    (finding,) = [f for f in check_files(hyp, [ref]).findings if f.code == "tokenized"]
    m = _LOSS.search(effect(finding))
    assert m is not None, effect(finding)
    as_is, clean = float(m["as_is"]), float(m["clean"])
    corpus = Corpus(hypotheses=tuple(hyps), references=tuple((r,) for r in refs))
    assert as_is == pytest.approx(_sacrebleu(corpus).score, abs=0.005)
    assert ("loses matches" in effect(finding)) == (clean > as_is), effect(finding)
    assert ("loses no matches" in effect(finding)) == (clean <= as_is), effect(finding)
