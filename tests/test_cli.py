"""The command line: output shapes, exit codes and messages for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu

from harness.bleu.profiles import PROFILES
from harness.cli import main

HYP = "The cat sat on the mat .\nA NASA rover is fighting a massive storm on Mars.\n"
REF1 = (
    "The cat sat on a mat .\nThe NASA Opportunity rover is battling a massive dust storm on Mars.\n"
)
REF2 = "A cat sat on the mat .\nThe rover fights a storm on Mars.\n"


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    h, r1, r2 = tmp_path / "hyp.txt", tmp_path / "ref1.txt", tmp_path / "ref2.txt"
    h.write_text(HYP, encoding="utf-8")
    r1.write_text(REF1, encoding="utf-8")
    r2.write_text(REF2, encoding="utf-8")
    return h, r1, r2


def _sacrebleu_score() -> float:
    hyps = HYP.splitlines()
    streams = [REF1.splitlines(), REF2.splitlines()]
    return sacrebleu.metrics.BLEU().corpus_score(hyps, streams).score


def test_score_default_line(files, capsys) -> None:
    h, r1, r2 = files
    assert main(["score", str(h), str(r1), str(r2)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("BLEU = ")
    assert f"BLEU = {_sacrebleu_score():.2f}" in out
    assert "signature: tok:13a" in out


def test_score_json_has_score_signature_implementation(files, capsys) -> None:
    h, r1, r2 = files
    assert main(["score", str(h), str(r1), str(r2), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert abs(obj["score"] - _sacrebleu_score()) < 1e-9
    assert obj["implementation"] == "harness:sacrebleu"
    assert obj["signature"].startswith("tok:13a|")


def test_score_segment_level_json(files, capsys) -> None:
    h, r1, _ = files
    assert (
        main(["score", str(h), str(r1), "--profile", "nltk", "--level", "segment", "--json"]) == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [r["segment_id"] for r in rows] == ["1", "2"]


def test_score_override_flags(files, capsys) -> None:
    h, r1, _ = files
    assert main(["score", str(h), str(r1), "--smooth", "none", "--tokenize", "intl", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert "tok:intl" in obj["signature"] and "smooth:none" in obj["signature"]


@pytest.mark.parametrize(
    ("content", "fragment", "line"),
    [
        (b"", "empty file", None),
        (b"\xef\xbb\xbfa\nb\n", "BOM", 1),
        (b"a\r\nb\r\n", "CRLF", 1),
        (b"ok\n\xff\n", "UTF-8", 2),
        (b"only one line\n", "has 2 lines, reference file", None),
    ],
)
def test_bad_reference_file_exit_code_and_message(files, capsys, content, fragment, line) -> None:
    h, r1, _ = files
    r1.write_bytes(content)
    assert main(["score", str(h), str(r1)]) == 2
    err = capsys.readouterr().err
    assert "bleu-harness: error:" in err
    assert str(r1) in err
    assert fragment.lower() in err.lower()
    if line is not None:
        assert f"line {line}" in err


def test_missing_file(files, capsys, tmp_path) -> None:
    h, _, _ = files
    assert main(["score", str(h), str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt" in capsys.readouterr().err


def test_unknown_profile_is_rejected_by_argparse(files) -> None:
    h, r1, _ = files
    with pytest.raises(SystemExit) as info:
        main(["score", str(h), str(r1), "--profile", "sacreblue"])
    assert info.value.code == 2


def test_unknown_override_value(files, capsys) -> None:
    h, r1, _ = files
    with pytest.raises(SystemExit) as info:  # a usage error, naming the valid methods
        main(["score", str(h), str(r1), "--smooth", "laplace"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "laplace" in err and "add-k" in err


def test_compare_writes_tables_and_refuses_to_overwrite(tmp_path, capsys) -> None:
    out = tmp_path / "res"
    args = [
        "compare",
        "--fixture",
        "google_nasa_opportunity",
        "--impl",
        "profile:sacrebleu,profile:nltk",
        "--level",
        "corpus",
        "segment",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert main(args) == 0
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["level"] for r in rows} == {"corpus", "segment"}
    assert {r["implementation"] for r in rows} == {"harness:sacrebleu", "harness:nltk"}
    header = (out / "results.csv").read_text().splitlines()[0]
    assert header.startswith("fixture,system,implementation")
    meta = json.loads((out / "meta.json").read_text())
    assert meta["rows"] == len(rows)
    before = (out / "results.jsonl").read_bytes()
    assert main(args) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "results.jsonl").read_bytes() == before
    assert main([*args, "--force"]) == 0


def test_fixtures_and_profiles_commands(capsys) -> None:
    assert main(["fixtures", "list", "--json"]) == 0
    names = [r["name"] for r in json.loads(capsys.readouterr().out)]
    assert "google_nasa_opportunity" in names
    assert main(["fixtures", "show", "google_nasa_opportunity", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["provenance"]["source"] == "003_9b9e8f448f39b158.txt"
    assert main(["profiles", "--json"]) == 0
    assert "sacrebleu" in json.loads(capsys.readouterr().out)


def test_profiles_columns_stay_aligned_for_the_longest_name(capsys) -> None:
    assert main(["profiles"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")]
    columns = {line.index(" verified ") for line in rows if " verified " in line}
    assert len(rows) == len(PROFILES) and len(columns) == 1
    assert columns == {max(map(len, PROFILES))}


def test_console_script_runs_as_a_module(files) -> None:
    h, r1, _ = files
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "score", str(h), str(r1), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "score" in json.loads(proc.stdout)


def test_main_in_process_keeps_the_callers_sigint_handler(monkeypatch, capsys) -> None:
    """Ctrl-C during ``main(argv)`` called from Python exits 130 and leaves the caller's SIGINT
    handler as it was (the console script ignores a second Ctrl-C while it exits)."""
    import argparse
    import signal

    from harness.cli import app

    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    class Parser:
        def parse_args(self, argv: list[str]) -> argparse.Namespace:
            return argparse.Namespace(func=interrupted, command="demo")

    monkeypatch.setattr(app, "parser_for", lambda argv: Parser())
    before = signal.getsignal(signal.SIGINT)
    assert app.main(["demo"]) == 130
    assert signal.getsignal(signal.SIGINT) is before
    assert "interrupted" in capsys.readouterr().err
