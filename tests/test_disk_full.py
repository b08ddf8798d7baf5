"""A full disk: every failed write names its file, exits 2, and loses nothing.

A full disk is provoked without root and without filling a real disk: the CLI runs in a
subprocess whose file-size limit (``RLIMIT_FSIZE``) is 0 or 100 bytes, with ``SIGXFSZ``
ignored, so that a write past the limit fails with ``EFBIG`` ("File too large") exactly where a
full disk fails with ``ENOSPC`` — in ``write()``, which names no file. 0 bytes stops the lock
file's pid line; 100 bytes lets that through and stops the first output file.

Each row asserts the exit code, the one-line message naming the file as it would appear in the
output folder (not a staging copy), that an earlier output in the folder is byte-identical,
and that no lock file, staging folder or folder the run created is left behind. A cache that
cannot be written is not a failure: the run warns once per cache, naming the file, and goes on.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cli import main
from harness.report.outdir import LOCK_FILE, STAGING_PREFIX

from .test_battery_output import SMALL, compare_into, snapshot

REPO_ROOT = Path(__file__).resolve().parent.parent
GOOD = b"the cat is on the mat\nthere is a dog\nhe reads\n"


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["BLEU_HARNESS_CACHE_DIR"] = str(tmp / "cache")
    env.pop("BLEU_HARNESS_DEBUG", None)
    return env


def run_with_file_limit(tmp: Path, limit: int, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m harness.cli ARGV`` in ``tmp`` with every write past ``limit`` bytes of a
    file failing with EFBIG (as on a full disk, the write itself fails; no signal kills it)."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True,
        text=True,
        env=_env(tmp),
        cwd=tmp,
        preexec_fn=limited,
        timeout=300,
    )


# ---------------------------------------------------------------------------- rows
@dataclass(frozen=True)
class Full:
    """``setup(tmp)`` prepares ``tmp`` and returns the argv, run under a file-size limit of
    ``limit`` bytes; ``words`` (``{tmp}`` replaced) must be in the one line on stderr; ``keep``
    folders must be byte-identical afterwards; ``absent`` paths must not exist."""

    id: str
    limit: int
    setup: Callable[[Path], list[str]]
    words: tuple[str, ...]
    keep: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


def _earlier(cmd: str, *extra: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        compare_into(tmp / "d")
        return [cmd, *SMALL, "--out", str(tmp / "d"), "--force", "--no-cache", *extra]

    return setup


def _new(cmd: str, *extra: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        return [cmd, *SMALL, "--out", str(tmp / "new" / "out"), "--no-cache", *extra]

    return setup


def _user_files(tmp: Path) -> list[str]:
    compare_into(tmp / "d")
    (tmp / "hyp.txt").write_bytes(GOOD)
    (tmp / "ref.txt").write_bytes(GOOD)
    out = ["--out", str(tmp / "d"), "--force"]
    return ["compare", "hyp.txt", "--refs", "ref.txt", *out, "--no-cache", "--no-progress"]


ROWS = [
    Full(
        "report-force-lock-file-unwritable",
        0,
        _earlier("report", "--formats", "md"),
        (f"{{tmp}}/d/{LOCK_FILE}: cannot write the lock file: File too large",),
        keep=("d",),
    ),
    Full(
        "report-force-first-file-unwritable",
        100,
        _earlier("report", "--formats", "md"),
        ("{tmp}/d/segments.parquet: cannot write: File too large", "{tmp}/d was left as it was"),
        keep=("d",),
    ),
    Full(
        "compare-force-results-unwritable",
        100,
        _earlier("compare", "--no-progress"),
        ("{tmp}/d/results.jsonl: cannot write: File too large", "{tmp}/d was left as it was"),
        keep=("d",),
    ),
    Full(
        "compare-files-answer-unwritable",
        100,
        _user_files,
        ("{tmp}/d/answer.json: cannot write: File too large",),
        keep=("d",),
    ),
    Full(
        "compare-new-folder-unwritable",
        100,
        _new("compare", "--no-progress"),
        ("{tmp}/new/out/results.jsonl: cannot write: File too large",),
        absent=("new",),
    ),
    Full(
        "report-new-folder-lock-unwritable",
        0,
        _new("report", "--formats", "json"),
        (f"{{tmp}}/new/out/{LOCK_FILE}: cannot write the lock file: File too large",),
        absent=("new",),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_a_full_disk_names_the_file_and_loses_nothing(row: Full, tmp_path: Path) -> None:
    argv = row.setup(tmp_path)
    before = {k: snapshot(tmp_path / k) for k in row.keep}
    done = run_with_file_limit(tmp_path, row.limit, *argv)
    err = done.stderr
    assert done.returncode == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert err.count("\n") == 1 and err.startswith("bleu-harness: error: "), err
    for word in row.words:
        assert word.replace("{tmp}", str(tmp_path)) in err, (word, err)
    for k in row.keep:
        assert snapshot(tmp_path / k) == before[k], f"{k} changed"
    for k in row.absent:
        assert not (tmp_path / k).exists(), k
    left = [p for p in tmp_path.rglob("*") if p.name == LOCK_FILE or STAGING_PREFIX in p.name]
    assert left == [], left


def _scores(stdout: str) -> list[tuple[object, ...]]:
    rows = json.loads(stdout)
    keys = ("fixture", "system", "implementation", "level", "status", "score")
    return sorted(tuple(r[k] for k in keys) for r in rows)


def test_a_cache_that_cannot_be_written_warns_once_and_the_run_goes_on(tmp_path: Path) -> None:
    """Both caches fail on their first write: one warning each, naming the file; no
    temporary file is left in the cache; the rows are those of a run without a cache."""
    argv = [
        "compare",
        *("--fixture", "edge_identical", "--fixture", "edge_empty_hypothesis"),
        *("--impl", "profile:sacrebleu,profile:nltk,adapter:sacrebleu"),
        "--json",
        "--no-progress",
    ]
    done = run_with_file_limit(tmp_path, 100, *argv)
    assert done.returncode == 0, done.stderr
    stats = [line for line in done.stderr.splitlines() if "statistics cache file" in line]
    results = [line for line in done.stderr.splitlines() if "results cache entry" in line]
    assert len(stats) == 1 and len(results) == 1, done.stderr
    assert f"cannot write statistics cache file {tmp_path}/cache/" in stats[0]
    assert f"cannot write library results cache entry {tmp_path}/cache/results/" in results[0]
    assert all("File too large" in w and "for this run" in w for w in (*stats, *results))
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file()] == []
    unlimited = subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv, "--no-cache"],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=300,
        check=True,
    )
    assert _scores(done.stdout) == _scores(unlimited.stdout)


def test_a_full_disk_in_process_is_an_input_error(tmp_path: Path, capsys) -> None:
    """The same refusal in process (a notebook calling ``main``): exit 2, the lock named."""
    compare_into(tmp_path / "d")
    before = snapshot(tmp_path / "d")
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    capsys.readouterr()
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
    try:
        code = main(["compare", *SMALL, "--out", str(tmp_path / "d"), "--force", "--no-cache"])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{tmp_path}/d/{LOCK_FILE}: cannot write the lock file: File too large" in err
    assert snapshot(tmp_path / "d") == before
