"""Battery (issue 10, item 10): every long command shows progress only when asked to.

Each long command (compare, report, human, identify, validate, significance, pitfalls) takes
``--progress`` (tqdm bars on stderr even when stderr is not a terminal) and ``--quiet`` (no
bars); with neither, bars appear only when stderr is a terminal — under pytest it is not, so
the default prints none. ``--progress --quiet`` together is a usage error (exit 2) that names
both flags. Bars never go to stdout, so piped results stay clean.

A row per (command, mode). Commands run in-process through :func:`harness.cli.main` with small
inputs (a fixture, a few cases, a few resamples), plus rows that run the real console entry
in a subprocess whose stderr is a pipe.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main

REPO = Path(__file__).resolve().parent.parent

#: tqdm's bar: "<desc>: 100%|#####| 3/3 [00:00<00:00, 12.3step/s]"
BAR = re.compile(r"\d+%\|[^|\n\r]*\|\s*\d+/\d+ \[\d+:\d+<")


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


def _files(tmp: Path) -> dict[str, str]:
    return {
        "hyp": _write(tmp / "hyp.txt", ["the cat sat on the mat", "a dog is in the park"]),
        "hyp2": _write(tmp / "hyp2.txt", ["the cat is on the mat", "the dog is in a park"]),
        "ref": _write(tmp / "ref.txt", ["the cat sat on the mat", "the dog is in the park"]),
    }


def _args(command: str, tmp: Path, data: Path | None) -> list[str]:
    f = _files(tmp)
    table = {
        "compare": ["compare", "--fixture", "tutorial_cat_on_the_mat", "--impl", "sacrebleu"],
        "report": [
            "report",
            "--fixture",
            "silence_pitfall",
            "--impl",
            "profile:sacrebleu,profile:nltk",
            "--out",
            str(tmp / "report"),
            "--formats",
            "json",
            "--n-boot",
            "0",
            "--no-cache",
        ],
        "human": ["human", "--impl", "sacrebleu", "--n-boot", "10", "--data", str(data)],
        "identify": [
            "identify",
            "--score",
            "0.27",
            "--fixture",
            "google_nasa_opportunity",
            "--system",
            "candidate_2",
            # a cache of its own: a search kept on disk by an earlier test has nothing to show
            "--cache-dir",
            str(tmp / "cache"),
        ],
        "validate": [
            "validate",
            "--impl",
            "harness.diagnose.homemade:tutorial_bleu",
            "--cases",
            "3",
        ],
        "significance": [
            "significance",
            f["hyp"],
            f["hyp2"],
            f["ref"],
            "--resamples",
            "20",
        ],
        "pitfalls": ["pitfalls", "--name", "silence"],
    }
    return table[command]


COMMANDS = ("compare", "report", "human", "identify", "validate", "significance", "pitfalls")

#: (row id, command, mode flags, bars expected on stderr)
ROWS = [
    *[(f"{c}-progress-forces-bars-without-tty", c, ["--progress"], True) for c in COMMANDS],
    *[(f"{c}-quiet-prints-no-bar", c, ["--quiet"], False) for c in COMMANDS],
    *[(f"{c}-default-without-tty-prints-no-bar", c, [], False) for c in COMMANDS],
]


@pytest.fixture
def data_for(request: pytest.FixtureRequest):
    """The data folder for the rows that need it (``human``); skips without it."""

    def get(command: str) -> Path | None:
        if command != "human":
            return None
        return request.getfixturevalue("data_dir")

    return get


@pytest.mark.parametrize(
    ("command", "flags", "bars"),
    [
        # human reads the real data: marked so that make check (no data) leaves it out
        pytest.param(*r[1:], id=r[0], marks=[pytest.mark.realdata] if r[1] == "human" else [])
        for r in ROWS
    ],
)
def test_progress_flags(command, flags, bars, tmp_path, capsys, data_for, monkeypatch) -> None:
    # identify keeps its searches and candidates for a corpus in memory: start from none, as a
    # new process does
    monkeypatch.setattr("harness.diagnose.search._EVAL_CACHE", {})
    monkeypatch.setattr("harness.diagnose.identify._CANDIDATES", {})
    argv = [*_args(command, tmp_path, data_for(command)), *flags]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.strip(), f"{command} printed no result"
    assert not BAR.search(out), f"a progress bar went to stdout: {out[:300]!r}"
    if bars:
        assert BAR.search(err), f"--progress printed no tqdm bar on stderr: {err[:300]!r}"
        assert "100%" in err, f"the bar never reached 100%: {err[-300:]!r}"
    else:
        assert not BAR.search(err), f"a bar was printed unasked: {err[:300]!r}"
        assert err == "", f"unexpected stderr: {err[:300]!r}"


@pytest.mark.parametrize(
    "command", COMMANDS, ids=[f"{c}-progress-and-quiet-rejected" for c in COMMANDS]
)
def test_progress_and_quiet_conflict(command, tmp_path, capsys) -> None:
    argv = [*_args(command, tmp_path, tmp_path), "--progress", "--quiet"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--quiet" in err and "not allowed with argument --progress" in err, err
    assert "Traceback" not in err


def _subprocess(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("flags", "bars"),
    [(["--progress"], True), ([], False), (["--no-progress"], False)],
    ids=[
        "subprocess-compare-progress-on-a-pipe",
        "subprocess-compare-default-on-a-pipe",
        "subprocess-compare-no-progress-alias",
    ],
)
def test_real_process_stderr_pipe(flags, bars, tmp_path) -> None:
    proc = _subprocess([*_args("compare", tmp_path, None), *flags])
    assert proc.returncode == 0, proc.stderr
    assert "tutorial_cat_on_the_mat" in proc.stdout
    assert bool(BAR.search(proc.stderr)) is bars, proc.stderr
    assert not BAR.search(proc.stdout)


def test_real_process_conflict_message(tmp_path) -> None:
    proc = _subprocess(["identify", "--score", "1", "--progress", "--quiet"])
    assert proc.returncode == 2
    assert "argument --quiet/--no-progress: not allowed with argument --progress" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
