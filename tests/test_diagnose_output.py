"""identify and validate say exactly what they found (issue 20 items 6-7, issue 23 item 5).

Every expected score is computed here by the real library (sacrebleu, nltk) or the engine;
the printed forms are made from those numbers with Python's formatting.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import PROFILES, Corpus
from harness.bleu import engine
from harness.cli.app import build_parser, main
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import printed_interval, reproducer, reproduces
from harness.diagnose.homemade import sacrebleu_like
from harness.diagnose.identify import identify
from harness.diagnose.validate import STOP_AFTER_FAILURES, validate
from harness.diagnose.validate.bugs import Model
from harness.diagnose.validate.classify import Classifier
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.run import named_profiles, simplest_profile
from harness.report.validation_words import withheld_words
from harness.session import Session

from .depth import examples

NASA = load_fixture("google_nasa_opportunity")
MOSES = Path("/work/shared/reference-impls/moses/multi-bleu.perl")


def _sacrebleu_score(corpus: Corpus) -> float:
    sacrebleu = pytest.importorskip("sacrebleu")
    streams = [[seg[k] for seg in corpus.references] for k in range(corpus.max_refs)]
    return float(sacrebleu.corpus_bleu(list(corpus.hypotheses), streams).score)


# ---------------------------------------------------------------------- printed precision
def test_printed_score_is_a_half_open_interval():
    s = _sacrebleu_score(NASA.corpus("candidate_2"))
    for places in (0, 1, 2):
        printed = f"{s:.{places}f}"
        half = Decimal(5).scaleb(-places - 1)
        lo, hi = printed_interval(printed)
        assert (lo, hi) == (Decimal(printed) - half, Decimal(printed) + half)
        assert reproduces(float(lo), printed)
        assert not reproduces(float(hi), printed)  # it prints as the next number up
        # a reading rounded to one more decimal that lands on the upper end does not count
        shown = round(float(hi) - float(half) / 25, places + 1)
        assert Decimal(repr(shown)) == hi and not reproduces(shown, printed)
    # the typed string keeps its precision; the float 27.0 has one decimal
    whole = f"{s:.0f}"
    assert printed_interval(whole)[1] - printed_interval(whole)[0] == 1
    assert printed_interval(float(whole))[1] - printed_interval(float(whole))[0] == Decimal("0.1")


@settings(max_examples=examples(400), deadline=None)
@given(
    st.integers(-5000, 99_999),
    st.integers(0, 4),
    st.floats(-3.0, 3.0, allow_nan=False),
    st.integers(-4, 4),
)
def test_the_reproducer_is_the_printed_interval(units: int, places: int, offset, ulps) -> None:
    """The test of one printed score that identify builds once equals the definition —
    ``lo <= the displayed float's shortest decimal < hi`` — on values around both ends of the
    interval, a few units in the last place either side, and far away."""
    printed = str(Decimal(units).scaleb(-places))
    lo, hi = printed_interval(printed)
    inside = reproducer(printed)
    for end in (lo, hi, Decimal(printed)):
        shown = float(end) + offset * 10.0**-places
        for _ in range(abs(ulps)):
            shown = math.nextafter(shown, math.inf if ulps > 0 else -math.inf)
        assert inside(shown) == (lo <= Decimal(repr(shown)) < hi), (printed, shown)
    assert not inside(math.nan) and not inside(math.inf)


def test_integer_score_keeps_its_precision(capsys):
    """``--score 27``: [26.5, 27.5), so plain sacrebleu (the real library's number) is found."""
    s = _sacrebleu_score(NASA.corpus("candidate_2"))
    printed = f"{s:.0f}"
    args = ["identify", "--score", printed, "--fixture", NASA.name, "--system", "candidate_2"]
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["printed"] == printed
    assert d["interval"] == [float(printed) - 0.5, float(printed) + 0.5]
    top = d["matches"][0]
    assert (top["profile"], top["changes"], top["reading"]) == ("sacrebleu", [], "sacrebleu")
    assert top["raw"] == pytest.approx(s, abs=1e-9) and top["scale"] == "0-100"
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"a reading in [{float(printed) - 0.5:g}, {float(printed) + 0.5:g})" in out
    assert "1. sacrebleu\n" in out


# ---------------------------------------------------------------------- named values
def test_every_changed_factor_is_printed_with_its_value(capsys):
    corpus = NASA.corpus("candidate_2")
    cfg = PROFILES["sacrebleu"].replace(tokenize="char")
    printed = f"{engine.corpus_score(corpus, cfg).score:.4f}"
    found = identify(printed, corpus, session=Session())
    hit = next(c for c in found if c.covers(cfg))
    assert "tokenize=char" in hit.reading and hit.changed["tokenize"] == "char"
    for c in found:
        for factor in c.changes:
            if factor != "layout":
                assert any(f"{k}=" in c.reading for k in c.changed), (factor, c.reading)
    args = ["identify", "--score", printed, "--fixture", NASA.name, "--system", "candidate_2"]
    assert main([*args, "--top", "50"]) == 0
    out = capsys.readouterr().out
    assert hit.reading in out
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert any(m["changed"].get("tokenize") == "char" for m in d["matches"])


# ---------------------------------------------------------------------- ties
HYPS = ("the cat sat on the mat today", "a dog ran in the park", "it is a nice day", "we went home")
REFS = (
    ("the cat sat on the mat", "there is a cat on the mat today"),
    ("a dog ran in a park",),
    ("it is a very nice day",),
    ("we went home very late",),
)


def test_exact_profile_is_listed_as_itself_and_lines_are_folded(capsys, tmp_path):
    """Whitespace and 13a give the same tokens here: nltk's number is listed as plain nltk."""
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    score = nltk_bleu.corpus_bleu(
        [[r.split() for r in rs] for rs in REFS], [h.split() for h in HYPS]
    )
    printed = f"{score:.4f}"
    found = identify(printed, Corpus(hypotheses=HYPS, references=REFS), session=Session())
    plain = [c for c in found if not c.preprocessing and c.layout == "per-segment"]
    nltk = [c for c in plain if c.profile == "nltk" and not c.changes]
    assert nltk and nltk[0].reading == "nltk" and nltk[0].covers(PROFILES["nltk"])
    assert not any(c.profile == "nltk" and c.changes and c.covers(PROFILES["nltk"]) for c in found)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    refs = []
    for k in range(2):
        f = tmp_path / f"ref{k}.txt"
        f.write_text("\n".join(seg[min(k, len(seg) - 1)] for seg in REFS) + "\n", encoding="utf-8")
        refs.append(str(f))
    assert main(["identify", "--score", printed, str(hyp), str(refs[0]), "--top", "200"]) == 0
    out = capsys.readouterr().out
    entries = [
        line.split(". ", 1)[1] for line in out.splitlines() if line[:4].strip()[:-1].isdigit()
    ]
    details = out.split("\n\n", 1)[1]
    blocks = [b for b in details.split("\n") if b.startswith("    ")]
    pairs = list(zip(entries, blocks, strict=False))
    assert len(pairs) == len(set(pairs))


# ---------------------------------------------------------------------- validate
def test_simplest_profile_prefers_the_named_one_then_order():
    names = list(PROFILES)
    agreement = dict.fromkeys(names, 0.5)
    agreement["torchmetrics"] = agreement["multi-bleu"] = 1.0
    scores = {n: (agreement[n], 0.1) for n in names}
    assert simplest_profile(agreement, scores) == "torchmetrics"  # PROFILES order
    named = named_profiles("perl /x/multi-bleu.perl {ref} < {hyp}")
    assert named == ("multi-bleu",)
    assert simplest_profile(agreement, scores, named) == "multi-bleu"
    assert named_profiles("perl multi-bleu-detok.perl {ref} < {hyp}") == ("multi-bleu-detok",)
    assert named_profiles("harness.diagnose.homemade:sacrebleu_like") == ("sacrebleu",)


@pytest.mark.skipif(
    not MOSES.exists() or shutil.which("perl") is None, reason="multi-bleu.perl or perl missing"
)
def test_multi_bleu_is_named_multi_bleu():
    r = validate(cmd=f"perl {MOSES} {{ref}} < {{hyp}}", cases=20)
    assert r.agreement == 1.0
    assert r.best_profile == "multi-bleu", (r.best_profile, r.matches)
    assert r.fit["base"] == "multi-bleu"


def test_deviations_are_blamed_against_the_nearest_named_profile():
    """A mistake on top of lm-eval's arithmetic is not also blamed on ``ref_length`` (the
    factor in which lm-eval differs from sacrebleu)."""
    best = PROFILES["sacrebleu"]
    classifier = Classifier(Judge(1e-6, Session()), "sacrebleu", best, Model(best), [], set())
    assert classifier.blame(PROFILES["lm-eval"]) == ("lm-eval", ())
    assert classifier.blame(best.replace(smooth="floor")) == ("sacrebleu", ("smoothing",))


def _always_raises(hypotheses: list[str], references: list[list[str]]) -> float:
    raise RuntimeError("broken on purpose")


def test_a_broken_subject_stops_early():
    r = validate(cmd="false {hyp}", cases=50)
    assert not r.diagnosable and r.n_cases == STOP_AFTER_FAILURES and r.calls == r.n_cases
    assert r.not_run > 0 and "exited with status 1" in (withheld_words(r) or "")
    r = validate(_always_raises, cases=50)
    assert r.calls == STOP_AFTER_FAILURES and "broken on purpose" in (withheld_words(r) or "")


def test_cli_broken_command_exits_3_with_the_first_error(capsys):
    assert main(["validate", "--cmd", "sh -c 'exit 7' {hyp}"]) == 3
    captured = capsys.readouterr()
    assert "could not validate" in captured.err and "exited with status 7" in captured.err
    assert f"{STOP_AFTER_FAILURES} run" in captured.out


# ---------------------------------------------------------------------- console output
def _assert_plain(text: str) -> None:
    assert "**" not in text and "|---" not in text and "| ---" not in text and "`" not in text
    for line in text.splitlines():
        assert not line.startswith("#"), line
        assert len(line) <= 100, line


def test_console_output_is_plain_text(capsys, tmp_path):
    assert (
        main(["validate", "--impl", "harness.diagnose.homemade:wrong_clipping", "--cases", "5"])
        == 0
    )
    _assert_plain(capsys.readouterr().out)
    corpus = NASA.corpus("candidate_2")
    printed = f"{_sacrebleu_score(corpus):.2f}"
    assert (
        main(["identify", "--score", printed, "--fixture", NASA.name, "--system", "candidate_2"])
        == 0
    )
    _assert_plain(capsys.readouterr().out)
    hyp = tmp_path / "hyp.txt"
    ref = tmp_path / "ref.txt"
    hyp.write_text("the cat@@ s sat on the mat , he said .\n", encoding="utf-8")
    ref.write_text("The cats sat on the mat, he said.\n", encoding="utf-8")
    main(["check", str(hyp), str(ref)])
    _assert_plain(capsys.readouterr().out)
    assert sacrebleu_like  # the homemade module is importable by name


# ---------------------------------------------------------------------- help
def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["validate", "identify", "check"])
def test_every_flag_has_help(name):
    for action in _subparser(name)._actions:
        assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


def test_validate_help_states_placeholders_and_call_convention():
    helps = {a.dest: a.help or "" for a in _subparser("validate")._actions}
    for placeholder in ("{hyp}", "{ref}", "{ref0}", "{refs}", "{ref_stem}"):
        assert placeholder in helps["cmd"]
    assert "f(hypotheses, references)" in helps["impl"]
    assert "list of lists of str" in helps["impl"] and "0-1 or 0-100" in helps["impl"]
