"""Battery (issue 10): output folders, --force, results files, failing imports, signals, locks.

Every row is one bad input or fault. Each asserts the exit code AND words of the one-line
message, that no traceback is printed, and where it applies that the user's files are intact
byte for byte and that nothing half-written is left (no partial output, no staging folder, no
folder the failed command created).

The first table runs the CLI in-process (``main(argv)``); the signal and concurrency rows run
real ``python -m harness.cli`` subprocesses. Those are made deterministic without sleeping on
timing: the run that must be "in progress" reads a named pipe (a FIFO) that the test has not yet
written, so it holds its output folder's lock until the test lets it go.

As root (as in this project's CI container) ``chmod`` does not stop writes, so unwritable
folders are provoked with paths under ``/proc/sys`` and ``/sys`` and with a file where a folder
is expected; the ``chmod`` row runs only as an ordinary user.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cli import main
from harness.report.outdir import LOCK_FILE, MANIFEST, STAGING_PREFIX

REPO_ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--fixture", "edge_identical", "--impl", "profile:sacrebleu"]

#: The tidy segment table a report writes beside every format.
SEGMENT_FILES = ["segments.parquet"]


# ---------------------------------------------------------------------------- helpers
def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder``: relative path → bytes (``None`` for a folder)."""
    out: dict[str, bytes | None] = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        out[rel] = None if p.is_dir() and not p.is_symlink() else p.read_bytes()
    return out


def user_files(folder: Path) -> None:
    """A user's folder: a thesis and a sub-folder with a figure."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thesis.tex").write_text("\\section{BLEU}\n", encoding="utf-8")
    (folder / "figs").mkdir()
    (folder / "figs" / "plot.pdf").write_bytes(b"%PDF-1.4 mine")


def compare_into(out: Path, *extra: str) -> None:
    """An earlier, complete bleu-harness output in ``out``."""
    assert main(["compare", *SMALL, "--out", str(out), "--no-progress", *extra]) == 0


def results_file(tmp: Path) -> Path:
    """A real results.jsonl from `compare --out` (corpus and segment rows)."""
    res = tmp / "res"
    compare_into(res, "--level", "corpus", "segment")
    return res / "results.jsonl"


def mutate_results(tmp: Path, lineno: int, change: Callable[[str], str]) -> Path:
    """A copy of a real results file with line ``lineno`` (1-based) changed."""
    lines = results_file(tmp).read_text(encoding="utf-8").splitlines()
    assert len(lines) >= lineno
    lines[lineno - 1] = change(lines[lineno - 1])
    bad = tmp / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bad


def edit_row(**changes: object) -> Callable[[str], str]:
    def change(line: str) -> str:
        row = json.loads(line)
        for key, value in changes.items():
            if value is _DROP:
                del row[key]
            else:
                row[key] = value
        return json.dumps(row)

    return change


_DROP = object()


def empty_unwritable_dir() -> Path | None:
    """An existing, empty folder even root cannot create files in (sysfs), or None."""
    for base in (Path("/sys/class"), Path("/sys/kernel")):
        if not base.is_dir():
            continue
        for d in sorted(base.iterdir()):
            try:
                if d.is_dir() and not d.is_symlink() and not any(d.iterdir()):
                    probe = d / ".probe"
                    try:
                        probe.touch()
                    except OSError:
                        return d
                    probe.unlink()
            except OSError:
                continue
    return None


# ---------------------------------------------------------------------------- in-process rows
@dataclass(frozen=True)
class Case:
    """One bad input: ``setup(tmp)`` prepares ``tmp`` and returns the argv; ``words`` (with
    ``{tmp}`` replaced) must all appear in stderr; ``keep`` names folders under ``tmp`` whose
    contents must be byte-identical afterwards; ``absent`` paths that must not exist; ``env``
    environment variables set for the run."""

    id: str
    setup: Callable[[Path], list[str]]
    words: tuple[str, ...]
    code: int = 2
    keep: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


def _foreign_force(cmd: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        user_files(tmp / "d")
        return [cmd, *SMALL, "--out", str(tmp / "d"), "--force"] + (
            ["--no-progress"] if cmd == "compare" else ["--formats", "md"]
        )

    return setup


def _foreign_added_after_output(tmp: Path) -> list[str]:
    compare_into(tmp / "d")
    (tmp / "d" / "notes.txt").write_text("my notes about the run\n", encoding="utf-8")
    return ["compare", *SMALL, "--out", str(tmp / "d"), "--force", "--no-progress"]


def _earlier_output_no_force(tmp: Path) -> list[str]:
    compare_into(tmp / "d")
    return ["compare", *SMALL, "--out", str(tmp / "d"), "--no-progress"]


def _malformed_manifest(tmp: Path) -> list[str]:
    compare_into(tmp / "d")
    (tmp / "d" / MANIFEST).write_text('{"files": ["results.jsonl"', encoding="utf-8")
    return ["compare", *SMALL, "--out", str(tmp / "d"), "--force", "--no-progress"]


def _manifest_lists_a_symlink(tmp: Path) -> list[str]:
    # A manifest naming results.jsonl, but results.jsonl is a link to the user's own file:
    # replacing "our" file must not write through or remove the user's.
    user_files(tmp / "u")
    (tmp / "d").mkdir()
    (tmp / "d" / "results.jsonl").symlink_to(tmp / "u" / "thesis.tex")
    manifest = {"written_by": "bleu-harness", "manifest_version": 1, "files": ["results.jsonl"]}
    (tmp / "d" / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return ["compare", *SMALL, "--out", str(tmp / "d"), "--force", "--no-progress"]


def _out_is_a_file(cmd: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        user_files(tmp / "u")
        return [cmd, *SMALL, "--out", str(tmp / "u" / "thesis.tex"), "--force"]

    return setup


def _out_under_a_file(tmp: Path) -> list[str]:
    user_files(tmp / "u")
    return ["compare", *SMALL, "--out", str(tmp / "u" / "thesis.tex" / "sub" / "d")]


def _out_dangling_symlink(tmp: Path) -> list[str]:
    (tmp / "u").mkdir()
    (tmp / "u" / "link").symlink_to(tmp / "nowhere")
    return ["compare", *SMALL, "--out", str(tmp / "u" / "link")]


def _out_proc_sys(tmp: Path) -> list[str]:
    return ["compare", *SMALL, "--out", "/proc/sys/kernel/bleu-harness-x"]


def _out_proc_sys_report(tmp: Path) -> list[str]:
    return ["report", *SMALL, "--out", "/proc/sys/kernel/bleu-harness-x/sub"]


def _out_unwritable_existing(tmp: Path) -> list[str]:
    d = empty_unwritable_dir()
    if d is None:
        pytest.skip("no empty, unwritable sysfs folder on this machine")
    return ["compare", *SMALL, "--out", str(d)]


def _out_chmod_readonly(tmp: Path) -> list[str]:
    if os.geteuid() == 0:
        pytest.skip(
            "running as root, which ignores permission bits; the /proc/sys and /sys rows "
            "provoke unwritable folders instead"
        )
    (tmp / "ro").mkdir()
    (tmp / "ro").chmod(0o555)
    return ["compare", *SMALL, "--out", str(tmp / "ro" / "sub")]


def _results(lineno: int, change: Callable[[str], str]) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        bad = mutate_results(tmp, lineno, change)
        return ["report", "--results", str(bad), "--out", str(tmp / "rep"), "--formats", "json"]

    return setup


def _results_raw(text: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        (tmp / "bad.jsonl").write_text(text, encoding="utf-8")
        return ["report", "--results", str(tmp / "bad.jsonl"), "--out", str(tmp / "rep")]

    return setup


def _module(source: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        name = f"user_bleu_{tmp.name.replace('-', '_').lower()}"
        (tmp / "mods").mkdir()
        (tmp / "mods" / f"{name}.py").write_text(source, encoding="utf-8")
        sys.path.insert(0, str(tmp / "mods"))
        return ["validate", "--impl", f"{name}:my_bleu", "--cases", "2"]

    return setup


GOOD = b"the cat is on the mat\nthere is a dog\nhe reads\n"


def _files_over_earlier_output(
    hyp: bytes, ref: bytes, *extra: str, hyp_name: str = "hyp.txt"
) -> Callable[[Path], list[str]]:
    """An earlier output in ``d``, then ``compare`` on the user's files with ``--force`` into
    it (``hyp_name`` names a folder, made here, when it is not ``hyp.txt``)."""

    def setup(tmp: Path) -> list[str]:
        compare_into(tmp / "d")
        (tmp / "hyp.txt").write_bytes(hyp)
        (tmp / "ref.txt").write_bytes(ref)
        if hyp_name != "hyp.txt":
            (tmp / hyp_name).mkdir()
        files = [str(tmp / hyp_name), "--refs", str(tmp / "ref.txt")]
        return ["compare", *files, "--out", str(tmp / "d"), "--force", "--no-cache", *extra]

    return setup


def _report_impl_over_earlier_output(impl: str) -> Callable[[Path], list[str]]:
    def setup(tmp: Path) -> list[str]:
        compare_into(tmp / "d")
        out = ["--out", str(tmp / "d"), "--force", "--formats", "md"]
        return ["report", "--fixture", "edge_identical", "--impl", impl, *out]

    return setup


CASES = [
    # --- a refused input or option leaves an earlier output as it was
    Case(
        "compare-force-input-over-size-limit",
        _files_over_earlier_output(GOOD * 30_000, GOOD * 30_000, "--no-progress"),
        ("{tmp}/ref.txt: reference file is too large", "over the input size limit of 1 MiB"),
        keep=("d",),
        env=(("BLEU_HARNESS_MAX_INPUT_MB", "1"),),
    ),
    Case(
        "compare-force-size-limit-invalid",
        _files_over_earlier_output(GOOD, GOOD, "--no-progress"),
        ("BLEU_HARNESS_MAX_INPUT_MB must be a whole number", "'1GB'"),
        keep=("d",),
        env=(("BLEU_HARNESS_MAX_INPUT_MB", "1GB"),),
    ),
    Case(
        "compare-force-ragged-files",
        _files_over_earlier_output(GOOD, b"a\n", "--no-progress"),
        ("has 3 lines, reference file {tmp}/ref.txt has 1;", "line counts differ"),
        keep=("d",),
    ),
    Case(
        "report-force-impl-empty-item",
        _report_impl_over_earlier_output("profile:sacrebleu,,profile:nltk"),
        ("--impl: an empty implementation in 'profile:sacrebleu,,profile:nltk'",),
        keep=("d",),
    ),
    Case(
        "report-impl-only-a-comma-new-folder",
        lambda tmp: [
            "report",
            "--fixture",
            "edge_identical",
            "--impl",
            ",",
            "--out",
            str(tmp / "r"),
        ],
        ("--impl: no implementation given in ','",),
        absent=("r",),
    ),
    Case(
        "compare-force-hyp-is-a-directory",
        _files_over_earlier_output(GOOD, GOOD, "--no-progress", hyp_name="folder"),
        ("{tmp}/folder: hypothesis file is a directory, not a file",),
        keep=("d", "folder"),
    ),
    # --- --force never touches what the harness did not write
    Case(
        "report-force-into-user-folder",
        _foreign_force("report"),
        ("did not write", "thesis.tex", "figs/", "even with --force", "{tmp}/d"),
        keep=("d",),
    ),
    Case(
        "compare-force-into-user-folder",
        _foreign_force("compare"),
        ("did not write", "thesis.tex", "figs/", "even with --force"),
        keep=("d",),
    ),
    Case(
        "force-with-user-file-added-to-earlier-output",
        _foreign_added_after_output,
        ("did not write", "notes.txt", f"not listed in its {MANIFEST}"),
        keep=("d",),
    ),
    Case(
        "earlier-output-without-force",
        _earlier_output_no_force,
        ("earlier bleu-harness output", "results.jsonl", "pass --force", "{tmp}/d"),
        keep=("d",),
    ),
    Case(
        "malformed-manifest",
        _malformed_manifest,
        ("not a bleu-harness manifest", "invalid JSON", MANIFEST),
        keep=("d",),
    ),
    Case(
        "manifest-entry-is-a-symlink-to-user-file",
        _manifest_lists_a_symlink,
        ("did not write", "results.jsonl"),
        keep=("d", "u"),
    ),
    # --- output paths that cannot be a folder or cannot be written
    Case(
        "compare-out-is-a-regular-file",
        _out_is_a_file("compare"),
        ("{tmp}/u/thesis.tex", "exists and is not a directory"),
        keep=("u",),
    ),
    Case(
        "report-out-is-a-regular-file",
        _out_is_a_file("report"),
        ("{tmp}/u/thesis.tex", "exists and is not a directory"),
        keep=("u",),
    ),
    Case(
        "out-below-a-regular-file",
        _out_under_a_file,
        ("cannot create the output directory", "thesis.tex' is a file"),
        keep=("u",),
    ),
    Case(
        "out-is-a-dangling-symlink",
        _out_dangling_symlink,
        ("{tmp}/u/link", "symlink to nothing"),
        absent=("nowhere",),
    ),
    Case(
        "out-under-proc-sys",
        _out_proc_sys,
        ("/proc/sys/kernel/bleu-harness-x", "cannot create the output directory"),
    ),
    Case(
        "report-out-under-proc-sys",
        _out_proc_sys_report,
        ("/proc/sys/kernel/bleu-harness-x/sub", "cannot create the output directory"),
    ),
    Case(
        "out-existing-unwritable-folder",
        _out_unwritable_existing,
        ("cannot write into the output directory",),
    ),
    Case(
        "out-below-read-only-folder-chmod",
        _out_chmod_readonly,
        ("{tmp}/ro/sub", "cannot create the output directory", "Permission denied"),
        absent=("ro/sub",),
    ),
    # --- malformed results files for `report --results`
    Case(
        "results-bad-json-line",
        _results(3, lambda line: line[:-5]),
        ("{tmp}/bad.jsonl, line 3", "not a JSON results row"),
        absent=("rep",),
    ),
    Case(
        "results-missing-key",
        _results(2, edit_row(score=_DROP)),
        ("{tmp}/bad.jsonl, line 2", "missing key(s) 'score'"),
        absent=("rep",),
    ),
    Case(
        "results-wrong-type",
        _results(4, edit_row(hyp_len="25")),
        ("{tmp}/bad.jsonl, line 4", "'hyp_len' must be an integer or null", "str"),
        absent=("rep",),
    ),
    Case(
        "results-nan-score",
        _results(1, lambda line: line.replace('"score": 100.0', '"score": NaN')),
        ("{tmp}/bad.jsonl, line 1", "NaN is not a JSON number"),
        absent=("rep",),
    ),
    Case(
        "results-ok-row-without-score",
        _results(2, edit_row(score=None)),
        ("{tmp}/bad.jsonl, line 2", "status is 'ok' but 'score' is null"),
        absent=("rep",),
    ),
    Case(
        "results-unknown-key",
        _results(1, edit_row(bleu=1.0)),
        ("{tmp}/bad.jsonl, line 1", "unknown key(s) 'bleu'"),
        absent=("rep",),
    ),
    Case(
        "results-row-not-an-object",
        _results_raw("[1, 2, 3]\n"),
        ("{tmp}/bad.jsonl, line 1", "expected a JSON object, got list"),
        absent=("rep",),
    ),
    Case(
        "results-bad-level",
        _results(1, edit_row(level="document")),
        ("{tmp}/bad.jsonl, line 1", "'level' must be 'corpus', 'segment' or 'sample'"),
        absent=("rep",),
    ),
    Case(
        "results-empty-file",
        _results_raw(""),
        ("{tmp}/bad.jsonl", "empty file"),
        absent=("rep",),
    ),
    Case(
        "results-path-is-a-folder",
        lambda tmp: ["report", "--results", str(tmp), "--out", str(tmp / "rep")],
        ("{tmp}: results file is a directory, not a file",),
        absent=("rep",),
    ),
    Case(
        "results-missing-file",
        lambda tmp: ["report", "--results", str(tmp / "none.jsonl"), "--out", str(tmp / "rep")],
        ("{tmp}/none.jsonl", "results file not found"),
        absent=("rep",),
    ),
    # --- user modules that fail at import (validate --impl module:function)
    Case(
        "impl-module-does-not-exist",
        lambda tmp: ["validate", "--impl", "no_such_bleu_module_xyz:bleu", "--cases", "2"],
        ("no_such_bleu_module_xyz:bleu", "no module named 'no_such_bleu_module_xyz'"),
    ),
    Case(
        "impl-module-raises-at-import",
        _module("raise ValueError('config.yaml missing')\ndef my_bleu(h, r):\n    return 0.0\n"),
        ("importing module", "raised ValueError: config.yaml missing", "line 1"),
    ),
    Case(
        "impl-module-calls-sys-exit-at-import",
        _module("import sys\nsys.exit(3)\n"),
        ("importing module", "called sys.exit(3)", "__main__"),
    ),
    Case(
        "impl-module-imports-a-missing-dependency",
        _module("import no_such_dependency_xyz\n"),
        ("no_such_dependency_xyz", "a module it imports is missing"),
    ),
    Case(
        "impl-function-calls-sys-exit",
        _module("import sys\ndef my_bleu(h, r):\n    sys.exit(4)\n"),
        ("code run by `validate` called sys.exit(4)",),
    ),
    Case(
        "impl-function-does-not-exist",
        _module("def other(h, r):\n    return 0.0\n"),
        (":my_bleu", "has no attribute 'my_bleu'"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_bad_output_and_input(case: Case, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # rows that add a module folder
    argv = case.setup(tmp_path)
    for key, value in case.env:
        monkeypatch.setenv(key, value)
    before = {k: snapshot(tmp_path / k) for k in case.keep}
    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == case.code, err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("bleu-harness: error: "), err
    for word in case.words:
        assert word.replace("{tmp}", str(tmp_path)) in err, (word, err)
    for k in case.keep:
        assert snapshot(tmp_path / k) == before[k], f"{k} changed"
    for k in case.absent:
        assert not (tmp_path / k).exists() and not (tmp_path / k).is_symlink(), k
    for p in tmp_path.rglob(f"{STAGING_PREFIX}*"):
        pytest.fail(f"staging folder left behind: {p}")


def test_force_replaces_only_the_earlier_harness_output(tmp_path: Path, capsys) -> None:
    """Row: --force over an earlier compare output replaces it with the report; nothing else."""
    compare_into(tmp_path / "d")
    capsys.readouterr()
    code = main(["report", *SMALL, "--out", str(tmp_path / "d"), "--force", "--formats", "md"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "rows written to" in out
    written = ["report.md", *SEGMENT_FILES]  # the segment table goes with every format
    assert sorted(os.listdir(tmp_path / "d")) == sorted([MANIFEST, *written])
    manifest = json.loads((tmp_path / "d" / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest["files"]) == sorted(written) and manifest["command"] == "report"


def test_a_bug_is_reported_as_a_bug(tmp_path: Path, capsys, monkeypatch) -> None:
    """Row: an unexpected exception in harness code: one line saying it is a bug, exit 2, and
    the traceback only with BLEU_HARNESS_DEBUG=1; the output folder is not left behind."""
    from harness.cli import compare

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(compare, "run", broken)
    argv = ["compare", *SMALL, "--out", str(tmp_path / "d")]
    monkeypatch.delenv("BLEU_HARNESS_DEBUG", raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert "internal error: TypeError: unsupported operand" in err
    assert "this is a bug in bleu-harness" in err and "BLEU_HARNESS_DEBUG=1" in err
    assert not (tmp_path / "d").exists()
    monkeypatch.setenv("BLEU_HARNESS_DEBUG", "1")
    assert main(argv) == 2
    assert "Traceback (most recent call last)" in capsys.readouterr().err


# ---------------------------------------------------------------------------- subprocess rows
def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop("BLEU_HARNESS_DEBUG", None)
    return env


def _start(*argv: str) -> subprocess.Popen[str]:
    # SIGINT back to its default in the child: a shell that starts this test in the background
    # may have it ignored, and Python only raises KeyboardInterrupt when it is not ignored.
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**_env(), "PYTHONFAULTHANDLER": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _holds_lock(folder: Path, proc: subprocess.Popen[str]) -> bool:
    try:
        return (folder / LOCK_FILE).read_text().strip() == str(proc.pid)
    except OSError:
        return False


def _is_staging(folder: Path) -> bool:
    try:
        return any(p.name.startswith(STAGING_PREFIX) for p in folder.iterdir())
    except OSError:
        return False


def _wait_for_lock(
    folder: Path, proc: subprocess.Popen[str], *, staging: bool = False, timeout: float = 120
) -> None:
    """Until ``proc`` holds ``folder``'s lock (its pid is in the lock file) and, with
    ``staging``, has made its staging folder there (a moment after taking the lock). The
    deadline is a hang guard: a loaded machine only makes the wait longer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _out, err = proc.communicate()
            pytest.fail(f"the first run ended early ({proc.returncode}): {err}")
        if _holds_lock(folder, proc) and (not staging or _is_staging(folder)):
            return
        time.sleep(0.02)
    proc.kill()
    pytest.fail(f"the first run never locked its output folder{' and staged' * staging}")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )


def _blocked_report(tmp: Path, out: Path, *extra: str) -> tuple[subprocess.Popen[str], Path]:
    """A `report` run that holds ``out`` until the test writes its results into a FIFO."""
    fifo = tmp / "results.fifo"
    os.mkfifo(fifo)
    proc = _start("report", "--results", str(fifo), "--out", str(out), "--formats", "json", *extra)
    _wait_for_lock(out, proc, staging=True)  # then it blocks on the FIFO, holding both
    return proc, fifo


def _feed(fifo: Path, data: bytes) -> None:
    with open(fifo, "wb") as fh:  # blocks until the reader has it open, which it has
        fh.write(data)


def _assert_interrupted(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # a run that outlives its stop says where it is: faulthandler (PYTHONFAULTHANDLER, set
        # by _start) prints every thread's stack on SIGABRT
        proc.send_signal(signal.SIGABRT)
        _out, err = proc.communicate(timeout=60)
        pytest.fail(f"still running 60 s after SIGINT; where its threads were:\n{err}")
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err == "bleu-harness: interrupted by SIGINT; incomplete output was discarded\n"
    return out


def test_sigint_during_compare_leaves_no_output(tmp_path: Path) -> None:
    """Row: Ctrl-C while `compare` reads its data: exit 130, one line, no folder left behind."""
    data = tmp_path / "data"
    (data / "wmt21_ende_mqm").mkdir(parents=True)
    os.mkfifo(data / "wmt21_ende_mqm" / "segments.tsv")  # the run blocks reading it
    out = tmp_path / "parent" / "out"
    proc = _start("compare", "--wmt21", "--data", str(data), "--out", str(out), "--no-progress")
    _wait_for_lock(out, proc)
    _assert_interrupted(proc)
    assert not (tmp_path / "parent").exists()  # the folders it created are gone again


def test_sigint_during_report_keeps_the_earlier_output(tmp_path: Path) -> None:
    """Row: Ctrl-C during `report --force` over an earlier output: that output is untouched."""
    compare_into(tmp_path / "d")
    before = snapshot(tmp_path / "d")
    proc, _fifo = _blocked_report(tmp_path, tmp_path / "d", "--force")
    assert any(p.name.startswith(STAGING_PREFIX) for p in (tmp_path / "d").iterdir())
    _assert_interrupted(proc)
    assert snapshot(tmp_path / "d") == before  # no staging folder, no lock file, same bytes


def test_second_report_on_a_busy_folder_fails_and_the_first_completes(tmp_path: Path) -> None:
    """Row: two `report` runs on one --out: the second exits 2 naming the folder and the first
    run's pid; the first then finishes with its own complete output."""
    rows = results_file(tmp_path).read_bytes()
    out = tmp_path / "rep"
    first, fifo = _blocked_report(tmp_path, out)
    second = _run("report", *SMALL, "--out", str(out), "--force", "--formats", "md")
    assert second.returncode == 2, second.stderr
    assert "Traceback" not in second.stderr
    assert f"{out}: output directory is in use by another bleu-harness run" in second.stderr
    assert f"(pid {first.pid})" in second.stderr
    _feed(fifo, rows)
    _stdout, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    listing = [MANIFEST, "report.json", "report.schema.json", *SEGMENT_FILES]
    assert sorted(os.listdir(out)) == sorted(listing)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert {f["fixture"] for f in report["fixtures"]} == {"edge_identical"}


def test_two_compares_on_one_folder(tmp_path: Path, data_dir: Path) -> None:
    """Row: two `compare` runs on one --out (before: both exit 0 and one result silently
    vanished). The first is held by a FIFO in place of WMT21's segments.tsv; the second exits
    2 naming the first's pid; the first then completes and its 20 WMT21 rows are the output."""
    real = data_dir / "wmt21_ende_mqm"
    data = tmp_path / "data"
    (data / "wmt21_ende_mqm").mkdir(parents=True)
    (data / "wmt21_ende_mqm" / "system_outputs.tsv").symlink_to(real / "system_outputs.tsv")
    fifo = data / "wmt21_ende_mqm" / "segments.tsv"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    first = _start(
        "compare", "--wmt21", "--data", str(data), "--impl", "profile:sacrebleu",
        "--out", str(out), "--no-progress", "--no-cache",
    )  # fmt: skip
    _wait_for_lock(out, first)
    second = _run("compare", *SMALL, "--out", str(out), "--force", "--no-progress")
    assert second.returncode == 2, second.stderr
    assert "Traceback" not in second.stderr
    assert f"{out}: output directory is in use by another bleu-harness run" in second.stderr
    assert f"(pid {first.pid})" in second.stderr
    _feed(fifo, (real / "segments.tsv").read_bytes())
    _stdout, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 20 and {r["fixture"] for r in rows} == {"wmt21_ende"}
    assert sorted(os.listdir(out)) == [
        MANIFEST,
        "answer.json",
        "meta.json",
        "results.csv",
        "results.jsonl",
    ]


def test_a_killed_run_leaves_nothing_that_blocks_the_next(tmp_path: Path) -> None:
    """Row: SIGKILL (no clean-up possible) leaves a stale lock file and staging folder; the
    kernel released the lock, so the next run proceeds without --force and removes them."""
    out = tmp_path / "d"
    proc, _fifo = _blocked_report(tmp_path, out)
    proc.kill()
    proc.communicate(timeout=60)
    left = sorted(p.name for p in out.iterdir())
    assert LOCK_FILE in left and any(n.startswith(STAGING_PREFIX) for n in left)
    done = _run("compare", *SMALL, "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and f"written to {out}/" in done.stdout
    assert sorted(os.listdir(out)) == [MANIFEST, "meta.json", "results.csv", "results.jsonl"]
