"""Issue 10 battery for ``validate``: lying, crashing and hanging subjects.

Every row asserts the result fields (or the exit code) AND the words of the message, and that
no diagnosis is invented: a subject that gives too few finite scores gets no diagnosis at all,
and one that does gets only what its scored cases show. Subjects are real: Python functions,
real shell commands (``/bin/sh``), the real sacrebleu CLI from this virtualenv.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from harness.diagnose.homemade import sacrebleu_like
from harness.diagnose.validate import (
    MIN_SCORED,
    MIN_SCORED_SHARE,
    CouldNotValidate,
    ValidationReport,
    generate_cases,
    validate,
)
from harness.report.validation import validation_text

ROOT = Path(__file__).resolve().parents[1]
SACREBLEU = Path(sys.executable).parent / "sacrebleu"
CASES = 8  # generated corpora per row (fixtures off): enough for MIN_SCORED, fast


def _markers(marker: str) -> list[str]:
    """Command lines of live processes that contain ``marker`` (read from /proc)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmdline = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(cmdline)
    return found


def _hang(marker: str) -> str:
    """A shell fragment that hangs in a child process whose own argv carries ``marker`` (so
    an orphan left behind by the shell is found by :func:`_markers`)."""
    return f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"


def _assert_honest(r: ValidationReport) -> None:
    """Nothing invented: no diagnosis without enough scored cases, no inf/nan as a number."""
    md = validation_text(r)
    d = r.to_dict()
    assert not re.search(r"mean \|difference\| (inf|nan)", md), md
    assert not re.search(r"agreement (inf|nan)", md), md
    assert d["fit"].get("mean_abs_diff") is None or d["fit"]["mean_abs_diff"] < float("inf")
    need = max(MIN_SCORED, MIN_SCORED_SHARE * r.n_cases)
    assert r.n_scored + r.crash_count == r.n_cases
    assert len(r.no_score) == r.crash_count
    assert all(v.startswith("no score: ") for _, v in r.no_score)
    if r.n_scored < need:
        assert not r.diagnosable
        assert r.diagnosed_factors == () and r.best_profile is None and r.agreement is None
        assert r.fit == {} and r.deviations == () and r.probes == ()
        assert "no diagnosis" in md and "diagnosed:" not in md
        assert f"only {r.n_scored} of {r.n_cases} cases gave a finite score" in md
    else:
        assert r.diagnosable and r.withheld is None
        assert f"of the {r.n_scored} scored cases" in md


# ---------------------------------------------------------------------- lying Python subjects
def _const(value: Any) -> Callable[[list[str], list[list[str]]], Any]:
    def subject(hypotheses: list[str], references: list[list[str]]) -> Any:
        return value

    return subject


def _raises(hypotheses: list[str], references: list[list[str]]) -> float:
    raise RuntimeError("boom from the subject")


def _round(ndigits: int) -> Callable[[list[str], list[list[str]]], float]:
    def subject(hypotheses: list[str], references: list[list[str]]) -> float:
        return round(sacrebleu_like(hypotheses, references), ndigits)

    return subject


def _first_calls_only(n: int) -> Callable[[list[str], list[list[str]]], float]:
    calls = [0]

    def subject(hypotheses: list[str], references: list[list[str]]) -> float:
        calls[0] += 1
        if calls[0] > n:
            raise ValueError(f"gave up after {n} calls")
        return sacrebleu_like(hypotheses, references)

    return subject


def _multi_segment(hypotheses: list[str]) -> bool:
    return len(hypotheses) > 2


def _nan_on_long(hypotheses: list[str], references: list[list[str]]) -> float:
    if _multi_segment(hypotheses):
        return float("nan")
    return sacrebleu_like(hypotheses, references)


@dataclass
class Row:
    """One bad subject: what it is, what the report must say."""

    impl: Any = None
    cmd: str | None = None
    cases: int = CASES
    words: tuple[str, ...] = ()  # must appear in the Markdown report
    scored: int | Callable[[], int] | None = None  # expected n_scored (None: don't check)
    diagnosed: tuple[str, ...] | None = None  # expected diagnosed_factors when diagnosable
    precision: int | str | None = "any"
    kwargs: dict[str, Any] = field(default_factory=dict)


def _n_short(cases: int) -> int:
    """Generated cases with at most two segments (what ``_nan_on_long`` scores)."""
    return sum(1 for c in generate_cases(cases, seed=0) if not _multi_segment(list(c.hypotheses)))


def _sh(body: str) -> str:
    """A shell command that reads its hypothesis file first (every template needs {hyp})."""
    return "cat {hyp} > /dev/null; " + body


ROWS = {
    # Python --impl subjects that return something that is not a BLEU score
    "impl-returns-None": Row(_const(None), words=("no score: NoScore: returned NoneType None",)),
    "impl-returns-str": Row(_const("27.3"), words=("returned str '27.3', not a number",)),
    "impl-returns-bool": Row(_const(True), words=("returned bool True, not a number",)),
    "impl-returns-list": Row(_const([27.3]), words=("returned list [27.3], not a number",)),
    "impl-returns-nan": Row(_const(float("nan")), words=("no score: NoScore: returned nan",)),
    "impl-returns-inf": Row(_const(float("inf")), words=("no score: NoScore: returned inf",)),
    "impl-returns-minus-inf": Row(_const(float("-inf")), words=("returned -inf",)),
    "impl-returns-negative": Row(
        _const(-5.0), words=("returned -5.0, outside [0, 100]: not a BLEU score",)
    ),
    "impl-returns-over-100": Row(_const(250.0), words=("returned 250.0, outside [0, 100]",)),
    "impl-always-raises": Row(
        _raises, words=("no score: RuntimeError: boom from the subject (at _raises",)
    ),
    "impl-scores-only-3-calls": Row(
        _first_calls_only(3), scored=3, words=("ValueError: gave up after 3 calls",)
    ),
    # partly scored, enough for a diagnosis: only what the scored cases show
    "impl-nan-on-long-corpora": Row(
        _nan_on_long,
        cases=24,
        scored=lambda: _n_short(24),
        diagnosed=(),
        precision=None,
        words=("no score: NoScore: returned nan", "best profile: sacrebleu, agreement 100.0%"),
    ),
    # rounding: a factor only when it explains something
    "impl-rounds-to-2": Row(
        _round(2),
        scored=CASES,
        diagnosed=("rounding",),
        precision=2,
        words=("precision: 2 decimal(s)", "compared within half a unit", "diagnosed: rounding"),
    ),
    "impl-rounds-to-4": Row(
        _round(4),
        scored=CASES,
        diagnosed=("rounding",),
        precision=4,
        words=("precision: 4 decimal(s)", "diagnosed: rounding"),
    ),
    "impl-full-precision-control": Row(
        sacrebleu_like,
        scored=CASES,
        diagnosed=(),
        precision=None,
        words=("precision: full", "diagnosed: nothing"),
    ),
    # shell commands that lie or crash
    "cmd-garbage-output": Row(
        cmd="echo hello garbage {hyp}",
        words=("no score: cannot read a BLEU score from the output", "hello garbage"),
    ),
    "cmd-exit-3-with-stderr": Row(
        cmd=_sh("echo 'BLEU = 30.0'; echo broken-scorer-said-this >&2; exit 3"),
        words=("no score: exited with status 3; stderr: broken-scorer-said-this",),
    ),
    "cmd-killed-by-signal": Row(cmd=_sh("kill -9 $$"), words=("no score: exited with status -9",)),
    "cmd-no-output": Row(cmd=_sh("true"), words=("no BLEU score found in the output",)),
    "cmd-partial-output": Row(
        cmd=_sh("printf 'BLEU = '"), words=("no BLEU score found in the output",)
    ),
    "cmd-json-nan": Row(
        cmd=_sh("""echo '{{"score": NaN}}'"""), words=("no score: NoScore: returned nan",)
    ),
    "cmd-json-infinity": Row(
        cmd=_sh("""echo '{{"score": Infinity}}'"""), words=("no score: NoScore: returned inf",)
    ),
    "cmd-negative-score": Row(
        cmd=_sh("echo 'BLEU = -3.5'"), words=("returned -3.5, outside [0, 100]",)
    ),
    "cmd-score-over-100": Row(
        cmd=_sh("echo 'BLEU = 250'"), words=("returned 250.0, outside [0, 100]",)
    ),
    # the real sacrebleu CLI: default precision (1 decimal) and -w 6
    "cmd-sacrebleu-default-precision": Row(
        cmd=f"{SACREBLEU} {{refs}} -i {{hyp}} -b",
        scored=CASES,
        diagnosed=("rounding",),
        precision=1,
        words=(
            "precision: 1 decimal(s) (all 8 scores have exactly 1 decimal(s))",
            "best profile: sacrebleu, agreement 100.0% of the 8 scored cases",
            "diagnosed: rounding",
        ),
    ),
    "cmd-sacrebleu-width-6": Row(
        cmd=f"{SACREBLEU} {{refs}} -i {{hyp}} -b -w 6",
        scored=CASES,
        diagnosed=(),
        precision=6,
        words=("precision: 6 decimal(s)", "rounding explains no case", "diagnosed: nothing"),
    ),
}


@pytest.mark.parametrize("row", list(ROWS.values()), ids=list(ROWS))
def test_lying_subject(row: Row) -> None:
    r = validate(row.impl, cmd=row.cmd, cases=row.cases, fixtures=False, **row.kwargs)
    md = validation_text(r)
    for words in row.words:
        assert words in md, md
    _assert_honest(r)
    if row.scored is not None:
        expected = row.scored() if callable(row.scored) else row.scored
        assert r.n_scored == expected
    if row.diagnosed is None:
        # every row without an expected diagnosis is one that must not get any
        assert not r.diagnosable and r.diagnosed_factors == ()
    else:
        assert r.diagnosable and r.diagnosed_factors == row.diagnosed
        assert r.agreement == 1.0
    if row.precision != "any":
        assert r.precision == row.precision


# ---------------------------------------------------------------------- hanging subjects
def test_timeout_on_first_call_ends_the_run_and_kills_the_group(tmp_path: Path) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    t0 = time.monotonic()
    with pytest.raises(CouldNotValidate) as info:
        validate(cmd=f"{_hang(marker)}; echo {{hyp}}", cases=4, fixtures=False, timeout=1)
    assert (
        time.monotonic() - t0 < 60
    )  # a hang guard (the command sleeps forever), not a speed bound
    assert "timed out on its first call (1 s per call" in str(info.value)
    assert "nothing was validated" in str(info.value)
    assert _markers(marker) == []


def test_later_timeouts_are_no_score_and_stop_after_three(tmp_path: Path) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    flag = tmp_path / "called-once"
    cmd = f"if [ -e {flag} ]; then {_hang(marker)}; fi; touch {flag}; echo 'BLEU = 50.0' {{hyp}}"
    t0 = time.monotonic()
    r = validate(cmd=cmd, cases=6, fixtures=False, timeout=1)
    assert time.monotonic() - t0 < 60  # a hang guard: 3 timeouts of 1 s, then no more calls
    verdicts = [v for _, v in r.no_score]
    assert r.n_scored == 1 and len(verdicts) == 5
    assert verdicts[:3] == ["no score: timed out after 1 s (its process group was killed)"] * 3
    assert verdicts[3:] == ["no score: not run: the previous 3 calls timed out"] * 2
    _assert_honest(r)
    assert _markers(marker) == []


# ---------------------------------------------------------------------- the CLI: exit codes
def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", "validate", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


CLI_ROWS = {
    "cli-garbage-exits-3": (
        ["--cmd", "echo hello garbage {hyp}", "--cases", "3"],
        3,
        ["could not validate: only 0 of", "gave a finite score"],
        ["no diagnosis", "no score: cannot read a BLEU score"],
    ),
    "cli-exit-3-subject-exits-3": (
        ["--cmd", _sh("echo oops >&2; exit 3"), "--cases", "3"],
        3,
        ["could not validate"],
        ["no score: exited with status 3; stderr: oops"],
    ),
    "cli-first-call-timeout-exits-3": (
        ["--cmd", "sleep 300; echo {hyp}", "--cases", "3", "--timeout", "1"],
        3,
        ["could not validate: the command timed out on its first call (1 s per call"],
        [],
    ),
    "cli-timeout-with-impl-exits-2": (
        ["--impl", "harness.diagnose.homemade:sacrebleu_like", "--timeout", "5"],
        2,
        ["--timeout applies to --cmd only"],
        [],
    ),
    "cli-zero-timeout-exits-2": (
        ["--cmd", "echo {hyp}", "--timeout", "0"],
        2,
        ["--timeout must be a positive number of seconds, got 0.0"],
        [],
    ),
    "cli-negative-cases-exits-2": (
        ["--cmd", "echo {hyp}", "--cases", "-1"],
        2,
        ["argument --cases", "must be an integer >= 0, got -1"],
        [],
    ),
    "cli-program-not-on-path-exits-2": (
        ["--cmd", "no-such-bleu-program-xyz {hyp}"],
        2,
        ["'no-such-bleu-program-xyz' is not on the PATH"],
        [],
    ),
    "cli-json-garbage-exits-3": (
        ["--cmd", "echo hello garbage {hyp}", "--cases", "3", "--json"],
        3,
        ["could not validate"],
        ['"diagnosis": false', '"best_profile": null', '"diagnosed_factors": []'],
    ),
}


@pytest.mark.parametrize("row", list(CLI_ROWS.values()), ids=list(CLI_ROWS))
def test_cli_exit_codes(row: tuple[list[str], int, list[str], list[str]]) -> None:
    args, code, err_words, out_words = row
    p = _cli(*args)
    assert p.returncode == code, (p.stdout[-2000:], p.stderr[-2000:])
    assert "Traceback" not in p.stderr + p.stdout
    assert not re.search(r"\b(inf|nan)\b", p.stdout)
    for w in err_words:
        assert w in p.stderr, p.stderr
    for w in out_words:
        assert w in p.stdout, p.stdout[-3000:]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    ("sig", "code", "name"),
    [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")],
    ids=["cli-sigterm-cleans-up", "cli-sigint-cleans-up"],
)
def test_cli_signal_kills_children_and_removes_temp_dirs(
    tmp_path: Path, sig: int, code: int, name: str
) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "validate",
            "--cmd",
            f"{_hang(marker)}; echo {{hyp}}",
            "--timeout",
            "120",
            "--cases",
            "2",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as from a terminal: a child inherits an ignored SIGINT (Python then installs no
        # KeyboardInterrupt handler, as a program started with `&` should not)
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 20
        while not any(m.startswith(f"{sys.executable} -c") for m in _markers(marker)):
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.05)
        assert next(p.name for p in tmp.iterdir()).startswith("bleu-harness-cmd-")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)  # a hang guard, not a speed bound
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert f"validate interrupted by {name}" in err and "temporary files removed" in err
    assert "Traceback" not in err
    assert _markers(marker) == []
    assert list(tmp.iterdir()) == []
