"""The small words a researcher copies: seeds, labels, citations, the line-count error, the
report's headline. Each row checks a sentence against the fact it states."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analysis.gap_matters import counted_once
from harness.analysis.significance import DEFAULT_SEED
from harness.bleu.profiles import LABELS, PROFILES
from harness.cli import main
from harness.cli.app import build_parser
from harness.data.corpus import Corpus
from harness.scorers import get_adapter
from harness.scorers.citation import cite

SEEDED = ("compare", "report", "human", "significance")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("command", SEEDED)
def test_one_seed_default_for_every_command(command: str) -> None:
    """One system gets one interval from one tool: every command's resampling starts from
    sacrebleu's default seed unless told otherwise."""
    sub = _subparsers(build_parser())[command]
    (seed,) = [a for a in sub._actions if "--seed" in a.option_strings]
    assert seed.default == DEFAULT_SEED == 12345


def test_mteval_is_labelled_lowercased_with_the_flag_for_the_official_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mteval-v13a line says it is the script's lowercased default and how WMT's cased
    numbers are had; the flag it names gives the cased score."""
    assert "lowercased" in LABELS["mteval-v13a"] and "-c" in LABELS["mteval-v13a"]
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("The Cat sat on the mat .\nA dog runs .\nHe reads .\n")
    ref.write_text("the cat sat on the mat .\nThe dog runs .\nHe reads a book .\n")
    other = tmp_path / "o.txt"
    other.write_text("The cat sat .\nA dog .\nHe reads a book .\n")
    assert main(["compare", str(hyp), str(other), "--refs", str(ref), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"mteval-v13a ({LABELS['mteval-v13a']})" in " ".join(out.split())
    assert main(["score", str(hyp), str(ref), "--profile", "mteval-v13a", "--no-lowercase"]) == 0
    cased = capsys.readouterr().out
    assert main(["score", str(hyp), str(ref), "--profile", "sacrebleu"]) == 0
    sacre = capsys.readouterr().out
    # cased mteval and sacrebleu agree on this plain text; the lowercased default does not
    assert cased.split()[2] == sacre.split()[2]


def test_a_citation_carries_the_tokenization_of_a_library_that_does_not_tokenize() -> None:
    corpus = Corpus(hypotheses=("the cat sat .",), references=(("the cat sat .",),))
    nltk = get_adapter("nltk")
    result = nltk.corpus(corpus, PROFILES["nltk"])
    line = cite(nltk, PROFILES["nltk"], corpus, result)
    assert "lib:nltk|tok:whitespace|case:mixed" in line


def test_cite_names_on_stdout_an_implementation_that_did_not_score(tmp_path: Path) -> None:
    """Nothing asked for is dropped without a word on stdout (evaluate without its module)."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cat\n")
    ref.write_text("the cat\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "score",
            str(hyp),
            str(ref),
            "--impl",
            "sacrebleu,evaluate",
            "--cite",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("BLEU = ")
    assert lines[1].startswith("BLEU = n/a (evaluate did not score: unavailable")
    assert done.stderr.count("fix:") == 1


def test_the_line_count_error_blames_neither_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp, ref = tmp_path / "sys.de", tmp_path / "ref.de"
    hyp.write_text("a\n" * 2)
    ref.write_text("a\n" * 3)
    assert main(["score", str(hyp), str(ref)]) == 2
    err = capsys.readouterr().err
    assert f"hypothesis file {hyp} has 2 lines, reference file {ref} has 3" in err
    assert "expected" not in err and "check that both are complete" in err


def test_the_headline_counts_a_library_equal_to_its_profile_once() -> None:
    from harness.analysis.study_types import MetaDifference, PairMatters

    def pair(a: str, b: str) -> PairMatters:
        return PairMatters(
            a=a,
            b=b,
            matters="yes",
            reason="reorders",
            na_reason=None,
            label_a=None,
            label_b=None,
            profile_a=None,
            profile_b=None,
            tolerance=1e-9,
            segments=0,
            segments_differ=None,
            factors_differ=(),
            segment_factors=(),
            fixtures=(),
            meta_evaluation_differs=None,
            meta_evaluation=MetaDifference("not-computed", None, 0, (), (), 0, ()),
        )

    pairs = [pair("sacrebleu", "harness:codexglue"), pair("sacrebleu", "codexglue")]
    assert counted_once(pairs, {"codexglue": "codexglue"}) == [0]
    assert counted_once(pairs, {}) == [0, 1]  # not shown equal: both stay


def test_the_report_headline_leads_with_bleu4(tmp_path: Path) -> None:
    """On a report with HELM's BLEU-1 (the largest gap), the summary's first pair sentence is
    a BLEU-4 pair, the summary gives the sentences of the pairs it names in their order, and
    no two of them name the same two implementations."""
    from harness.analysis.labels import bleu4_label, profile_of
    from harness.analysis.study_types import Report
    from harness.report.gap_words import leading_sentences
    from harness.typed_json import from_json

    out = tmp_path / "rep"
    argv = ["report", "--fixture", "silence_pitfall", "--quiet", "--out", str(out)]
    assert main([*argv, "--formats", "json", "md"]) == 0
    report = from_json(Report, json.loads((out / "report.json").read_text(encoding="utf-8")))
    section = report.gap_matters
    gaps = [p for p in section.pairs if p.reason not in ("agree", "not-comparable")]
    assert any(not (bleu4_label(p.a) and bleu4_label(p.b)) for p in gaps)
    named = [section.pairs[k] for k in section.leading]
    assert named and bleu4_label(named[0].a) and bleu4_label(named[0].b)
    md = (out / "report.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, x in enumerate(md) if "**Does the gap matter?**" in x)
    said = leading_sentences(section)
    assert [line[4:] for line in md[at + 1 : at + 1 + len(said)]] == said
    equal = set(report.summary.libraries.equal)

    def same(label: str) -> str:
        return f"harness:{profile_of(label)}" if label in equal else label

    keys = [(same(p.a), same(p.b)) for p in named]
    assert len(keys) == len(set(keys)), keys


def test_check_states_the_effect_it_measures_on_the_files(tmp_path: Path) -> None:
    """check's BPE warning quotes sacreBLEU on the files as they are and with the markers
    merged: the numbers the real sacrebleu gives on those two texts."""
    import re

    import sacrebleu

    from harness.data.fixtures import load_fixture
    from harness.diagnose.check import check_files
    from harness.report.check_words import effect

    corpus = load_fixture("forensic_preprocessing").corpus("bpe_left_in")
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(f"{h}\n" for h in corpus.hypotheses), encoding="utf-8")
    ref.write_text("".join(f"{r[0]}\n" for r in corpus.references), encoding="utf-8")
    (found,) = [f for f in check_files(hyp, [ref]).findings if f.code == "bpe-markers"]
    refs = [[r[0] for r in corpus.references]]
    before = sacrebleu.corpus_bleu(list(corpus.hypotheses), refs).score
    merged = [re.sub(r"@@( |$)", "", h) for h in corpus.hypotheses]
    after = sacrebleu.corpus_bleu(merged, refs).score
    assert f"sacreBLEU is {before:.2f} as they are and {after:.2f} with the markers merged" in (
        effect(found)
    )
    assert f"({after - before:+.2f})" in effect(found)
