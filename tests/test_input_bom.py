"""A file that starts with a UTF-8 byte-order mark, on every command that reads files.

By default each command refuses it, naming ``--bom keep`` and ``--bom strip``; with
``--bom keep`` it is scored as the real sacrebleu command line scores it (the expected
numbers come from running ``sacrebleu REF -i HYP`` here), with ``--bom strip`` as sacrebleu
scores the file without the mark; ``check`` warns and measures what the mark costs.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

SACREBLEU = Path(sys.executable).parent / "sacrebleu"
MARK = b"\xef\xbb\xbf"
WORDS = "the a cat dog sat on mat is was in garden house reads book .".split()
EXACT = 1e-9


def _line(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
    return " ".join(["The", *words])  # a first word to lose to the mark


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two systems and a reference of 60 seeded lines; ``a`` starts with the mark, ``plain``
    is ``a`` without it."""
    folder = tmp_path_factory.mktemp("bom")
    rng = random.Random(36)
    ref = [_line(rng) for _ in range(60)]
    a = [_line(rng) if rng.random() < 0.6 else r for r in ref]
    b = [_line(rng) for _ in range(60)]
    c = [_line(rng) if rng.random() < 0.3 else r for r in ref]
    out = {}
    for name, lines, mark in (
        ("a", a, True),
        ("b", b, False),
        ("c", c, False),
        ("ref", ref, False),
    ):
        out[name] = folder / f"{name}.txt"
        out[name].write_bytes((MARK if mark else b"") + "".join(f"{x}\n" for x in lines).encode())
    out["plain"] = folder / "plain.txt"
    out["plain"].write_bytes(out["a"].read_bytes()[len(MARK) :])
    out["human"] = folder / "human.tsv"
    out["human"].write_text("system\tscore\na\t0.7\nb\t0.2\nc\t0.5\n")
    return out


def _sacrebleu(hyp: Path, ref: Path) -> float:
    """The real sacrebleu command line's corpus BLEU of ``hyp``, to 12 decimals."""
    done = subprocess.run(
        [str(SACREBLEU), str(ref), "-i", str(hyp), "-b", "-w", "12"],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _commands(f: dict[str, Path], out: Path) -> dict[str, list[str]]:
    a, b, ref = str(f["a"]), str(f["b"]), str(f["ref"])
    fast = ["--impl", "profile:sacrebleu", "--quiet"]
    return {
        "score": ["score", a, ref],
        "compare": ["compare", a, b, "--refs", ref, *fast],
        "report": ["report", a, b, "--refs", ref, *fast, "--out", str(out), "--formats", "json"],
        "human": ["human", a, b, str(f["c"]), "--refs", ref, "--scores", str(f["human"])],
        "identify": ["identify", a, ref, "--score", "27", "--quiet"],
        "explain": ["explain", "--a", "sacrebleu", "--b", "nltk", a, ref],
        "significance-pair": ["significance", a, b, ref, "--quiet"],
        "significance-many": ["significance", a, b, "--refs", ref, "--quiet"],
    }


COMMANDS = list(_commands(dict.fromkeys(("a", "b", "c", "ref", "human"), Path()), Path()))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_reads_files_refuses_a_mark_naming_the_options(
    command: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _commands(files, tmp_path / "out")[command]
    code, _out, err = _run(capsys, *argv)
    assert code == 2
    assert f"{files['a']}, line 1: starts with a UTF-8 byte-order mark" in err
    assert "--bom keep" in err and "--bom strip" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_reads_files_takes_the_option(
    command: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _commands(files, tmp_path / "out")[command]
    code, _out, err = _run(capsys, *argv, "--bom", "keep")
    assert "byte-order mark" not in err, err
    assert code == 0, err


def test_compare_and_report_with_the_mark_kept_give_the_sacrebleu_command_lines_number(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = {"a": _sacrebleu(files["a"], files["ref"]), "b": _sacrebleu(files["b"], files["ref"])}
    without = _sacrebleu(files["plain"], files["ref"])
    assert kept["a"] < without  # the mark costs the first word its match
    a, b, ref = str(files["a"]), str(files["b"]), str(files["ref"])
    impl = ["--impl", "profile:sacrebleu,adapter:sacrebleu", "--quiet"]
    for bom, want_a in (("keep", kept["a"]), ("strip", without)):
        code, out, _err = _run(
            capsys, "compare", a, b, "--refs", ref, *impl, "--bom", bom, "--json"
        )
        assert code == 0
        rows = json.loads(out)["rows"]
        for r in rows:
            want = want_a if r["system"] == "a" else kept["b"]
            assert r["score"] == pytest.approx(want, abs=1e-6), r  # the CLI prints 12 decimals
    out_dir = tmp_path / "rep"
    code, _out, _err = _run(
        capsys, "report", a, b, "--refs", ref, *impl, "--bom", "keep", "--out", str(out_dir)
    )
    assert code == 0
    report = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    systems = {f["system"]: f["scores"] for f in report["fixtures"] if f["fixture"] == "files"}
    assert set(systems) == {"a", "b"}
    for system, scores in systems.items():
        assert set(scores) == {"harness:sacrebleu", "sacrebleu"}
        for score in scores.values():
            assert score == pytest.approx(kept[system], abs=1e-6)


def test_score_with_the_mark_kept_equals_the_library_on_the_same_text(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """At 1e-9: the harness's profile and the real sacrebleu on the lines read with the mark
    kept (the command line above prints 12 decimals)."""
    code, out, _err = _run(
        capsys, "score", str(files["a"]), str(files["ref"]), "--bom", "keep",
        "--profile", "sacrebleu", "--impl", "sacrebleu", "--json",
    )  # fmt: skip
    assert code == 0
    scores = [r["score"] for r in json.loads(out)]
    assert len(scores) == 2 and abs(scores[0] - scores[1]) < EXACT
    assert scores[0] == pytest.approx(_sacrebleu(files["a"], files["ref"]), abs=1e-6)


def test_a_human_scores_file_with_a_mark_is_read_with_strip(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The --bom rule reaches the human scores TSV too: strip reads it, keep refuses it (a
    mark in a TSV belongs to no segment), the default refuses naming the options."""
    scores = tmp_path / "human.tsv"
    scores.write_bytes(MARK + b"system\tscore\nplain\t0.7\nb\t0.2\nc\t0.5\n")
    argv = ["human", str(files["plain"]), str(files["b"]), str(files["c"])]
    argv += ["--refs", str(files["ref"]), "--scores", str(scores)]
    code, _out, err = _run(capsys, *argv, "--bom", "strip")
    assert code == 0, err
    code, _out, err = _run(capsys, *argv, "--bom", "keep")
    assert code == 2 and "belongs to no segment" in err and "--bom strip" in err
    code, _out, err = _run(capsys, *argv)
    assert code == 2 and "--bom keep" in err


def test_check_warns_and_measures_what_the_mark_costs(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = _run(capsys, "check", str(files["a"]), str(files["ref"]), "--json")
    assert code == 1
    (found,) = [f for f in json.loads(out)["findings"] if f["code"] == "bom"]
    assert found["severity"] == "warning" and found["examples"] == [
        {"file": str(files["a"]), "line": 1}
    ]
    kept = _sacrebleu(files["a"], files["ref"])
    without = _sacrebleu(files["plain"], files["ref"])
    assert f"sacreBLEU is {kept:.2f} on these files as they read them" in found["effect"]
    assert f"and {without:.2f} without the mark ({kept - without:+.2f})" in found["effect"]
    assert "--bom keep" in found["effect"] and "--bom strip" in found["effect"]
