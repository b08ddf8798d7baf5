"""Battery for ``validate``: lying, crashing, hanging, flooding and input-ignoring subjects;
and the neighbouring faults of ``identify`` (the precision of the reported score) and ``check``
(the ``##AT##`` marker is not upper-case text).

Every row asserts the result fields (or the exit code) AND the words of the message, and that
no diagnosis is invented: a subject that gives too few finite scores gets no diagnosis at all,
one whose scores do not depend on its input gets the verdict "not a BLEU implementation /
ignores its input" and no factor, and one that does gets only what its scored cases show. The
rows added for faults also assert that nothing was lost or left running (no process carrying
the row's marker, no temporary folder, input files unchanged). Subjects are real: Python
functions, real shell commands (``/bin/sh``, ``yes``, ``shuf``), the real sacrebleu CLI and
library from this virtualenv.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import printed_interval
from harness.diagnose.homemade import sacrebleu_like
from harness.diagnose.identify import identify
from harness.diagnose.validate import (
    IGNORES_INPUT,
    MIN_CORRELATION,
    MIN_SCORED,
    MIN_SCORED_SHARE,
    CouldNotValidate,
    ValidationReport,
    generate_cases,
    validate,
)
from harness.diagnose.validate.evidence import Verdict
from harness.errors import ConfigError
from harness.report.validation import validation_text
from harness.report.validation_words import (
    VERDICT_WORDS,
    evidence_reason,
    validation_json,
    withheld_words,
)
from harness.scorers.command import MAX_STDERR_BYTES, MAX_STDOUT_BYTES
from harness.session import Session
from harness.statistics.resampling import DEFAULT_SEED
from tests.processes import gone, marked

ROOT = Path(__file__).resolve().parents[1]
#: The verdict on a subject that ignores its input, as the report words it.
IGNORES_WORDS = VERDICT_WORDS[IGNORES_INPUT]
SACREBLEU = Path(sys.executable).parent / "sacrebleu"
CASES = 8  # generated corpora per row (fixtures off): enough for MIN_SCORED, fast


def _hang(marker: str) -> str:
    """A shell fragment that hangs in a child process whose own argv carries ``marker`` (so
    an orphan left behind by the shell is found by :func:`_markers`)."""
    return f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"


def _assert_honest(r: ValidationReport) -> None:
    """Nothing invented: no diagnosis without enough scored cases, no inf/nan as a number."""
    md = validation_text(r)
    d = validation_json(r)
    assert not re.search(r"mean \|difference\| (inf|nan)", md), md
    assert not re.search(r"agreement (inf|nan)", md), md
    assert d["fit"].get("mean_abs_diff") is None or d["fit"]["mean_abs_diff"] < float("inf")
    need = max(MIN_SCORED, MIN_SCORED_SHARE * r.n_cases)
    assert r.n_scored + r.crash_count == r.n_cases
    assert len(r.no_score) == r.crash_count
    assert all(v.startswith("no score: ") for _, v in r.no_score)
    if not r.diagnosable:
        assert r.diagnosed_factors == () and r.best_profile is None and r.agreement is None
        assert r.fit == {} and r.deviations == () and r.probes == ()
        assert "no diagnosis" in md and "diagnosed:" not in md and "best profile" not in md
        assert d["diagnosed_factors"] == [] and d["verdict"] == VERDICT_WORDS[r.verdict]
    if r.n_scored < need:
        assert not r.diagnosable and r.verdict is Verdict.NO_DIAGNOSIS and r.evidence is None
        assert f"only {r.n_scored} of {r.n_cases} cases gave a finite score" in md
    elif r.diagnosable:
        assert r.withheld is None and r.verdict is Verdict.DIAGNOSED
        assert r.evidence is not None and r.evidence.supports_diagnosis
        assert f"of the {r.n_scored} scored cases" in md and "depends on its input:" in md
    else:  # enough scores, but they do not show that they depend on the input
        assert r.evidence is not None and not r.evidence.supports_diagnosis
        assert withheld_words(r) == evidence_reason(r.evidence) == d["evidence"]["reason"]
        assert d["evidence"]["distinct_scores"] == r.evidence.distinct
        if r.verdict == IGNORES_INPUT:
            assert f"verdict: {IGNORES_WORDS}" in md


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


# subjects whose scores do not come from their input as a BLEU's do
def _self_bleu(hypotheses: list[str], references: list[list[str]]) -> float:
    """BLEU of the hypotheses against themselves: the references are ignored (always 100)."""
    return sacrebleu_like(hypotheses, [[h] for h in hypotheses])


def _hashed(hypotheses: list[str], references: list[list[str]]) -> float:
    """A number in [0, 100) from a hash of the input: it depends on the input, but not as BLEU."""
    digest = hashlib.sha256(repr((hypotheses, references)).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 * 100


def _reference_words(hypotheses: list[str], references: list[list[str]]) -> float:
    """The number of reference words (at most 100): the hypotheses are ignored."""
    return min(100.0, float(sum(len(r.split()) for refs in references for r in refs)))


class _Lagged:
    """A correct BLEU of the *previous* call's input: right numbers for the wrong cases."""

    def __init__(self) -> None:
        self.previous: tuple[list[str], list[list[str]]] | None = None

    def __call__(self, hypotheses: list[str], references: list[list[str]]) -> float:
        previous, self.previous = self.previous, (hypotheses, references)
        return 50.0 if previous is None else sacrebleu_like(*previous)


def _seeded_random() -> Callable[[list[str], list[list[str]]], float]:
    """Uniform numbers in [0, 100) from a seeded generator, whatever the input."""
    rng = np.random.default_rng(7)

    def subject(hypotheses: list[str], references: list[list[str]]) -> float:
        return float(rng.uniform(0, 100))

    return subject


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
    verdict: Verdict | None = None  # expected ValidationReport.verdict (None: don't check)


def _n_short(cases: int) -> int:
    """Generated cases at the default seed with at most two segments (what ``_nan_on_long`` scores)."""
    return sum(
        1
        for c in generate_cases(cases, seed=DEFAULT_SEED)
        if not _multi_segment(list(c.hypotheses))
    )


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


IGNORING = f"verdict: {IGNORES_WORDS}"
NOT_FOLLOWED = f"below {MIN_CORRELATION:.2f}, its scores do not follow the input"

# subjects that ignore their input, in different ways: none gets a diagnosis
ROWS.update(
    {
        "impl-returns-constant-0.5": Row(
            _const(0.5),
            verdict=IGNORES_INPUT,
            words=(IGNORING, "all gave the same score (0.5)"),
        ),
        "impl-returns-constant-int-42": Row(
            _const(42), verdict=IGNORES_INPUT, words=(IGNORING, "all gave the same score (42)")
        ),
        "impl-returns-constant-zero": Row(
            _const(0.0), verdict=IGNORES_INPUT, words=(IGNORING, "all gave the same score (0)")
        ),
        "impl-scores-hypotheses-against-themselves": Row(
            _self_bleu, verdict=IGNORES_INPUT, words=(IGNORING, "all gave the same score (100)")
        ),
        "impl-hash-of-its-input": Row(
            _hashed, cases=60, verdict=IGNORES_INPUT, words=(IGNORING, NOT_FOLLOWED)
        ),
        "impl-counts-reference-words": Row(
            _reference_words, cases=60, verdict=IGNORES_INPUT, words=(IGNORING, NOT_FOLLOWED)
        ),
        "impl-answers-for-the-previous-input": Row(
            _Lagged(), cases=60, verdict=IGNORES_INPUT, words=(IGNORING, NOT_FOLLOWED)
        ),
        "impl-seeded-random-numbers": Row(
            _seeded_random(), cases=60, verdict=IGNORES_INPUT, words=(IGNORING, NOT_FOLLOWED)
        ),
        "cmd-echo-constant": Row(
            cmd="echo 0.5 # MARKER {hyp}",
            verdict=IGNORES_INPUT,
            words=(IGNORING, "all gave the same score (0.5)"),
        ),
        "cmd-shuf-random": Row(
            cmd="shuf -n1 -i 0-100 # MARKER {hyp}",
            cases=60,
            verdict=IGNORES_INPUT,
            words=(IGNORING, NOT_FOLLOWED),
        ),
        "cmd-leaves-a-detached-child-and-prints-a-constant": Row(
            cmd=f"{_hang('MARKER')} >/dev/null 2>&1 & echo 'BLEU = 50.0' # {{hyp}}",
            verdict=IGNORES_INPUT,
            words=(IGNORING, "all gave the same score (50)"),
        ),
        # unreadable numbers and long error output
        "cmd-prints-BLEU-nan": Row(
            cmd=_sh("echo 'BLEU = nan' MARKER"), words=("no BLEU score found in the output",)
        ),
        "cmd-prints-bare-inf": Row(
            cmd=_sh("echo inf MARKER"), words=("no BLEU score found in the output",)
        ),
        "cmd-long-stderr-keeps-its-last-line": Row(
            cmd=_sh("seq 1 20000 >&2; echo LAST-ERROR-LINE MARKER >&2; exit 1"),
            words=("no score: exited with status 1; stderr:", "LAST-ERROR-LINE"),
        ),
    }
)


@pytest.mark.parametrize("row", list(ROWS.values()), ids=list(ROWS))
def test_lying_subject(row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))  # where the command's files go
    cmd = None if row.cmd is None else row.cmd.replace("MARKER", marker)
    r = validate(row.impl, cmd=cmd, cases=row.cases, fixtures=False, **row.kwargs)
    md = validation_text(r)
    flat = " ".join(md.split())  # words may wrap across report lines
    for words in row.words:
        assert " ".join(words.split()) in flat, md
    _assert_honest(r)
    if row.verdict is not None:
        assert r.verdict == row.verdict
    assert gone(marker) and list(tmp.iterdir()) == []  # nothing left running or behind
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
    assert gone(marker)


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
    assert gone(marker)


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
        deadline = time.monotonic() + 120  # a hang guard: start-up is slow on a busy machine
        while not any(m.startswith(f"{sys.executable} -c") for m in marked(marker)):
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
    assert gone(marker)
    assert list(tmp.iterdir()) == []


# ---------------------------------------------------------------------- flooding and hanging
FIRST_CALL_ROWS = {
    # (command with MARKER, timeout, words of CouldNotValidate)
    "cmd-yes-floods-stdout": (
        "yes 99.9 MARKER # {hyp}",
        None,
        (
            "the command's first call gave no score: "
            f"output over {MAX_STDOUT_BYTES} bytes on stdout",
            "its process group was killed",
            "nothing was validated",
        ),
    ),
    "cmd-yes-floods-stderr": (
        "yes MARKER >&2 # {hyp}",
        None,
        (f"first call gave no score: output over {MAX_STDERR_BYTES} bytes on stderr",),
    ),
    "cmd-prints-a-score-then-hangs": (
        f"echo 'BLEU = 50.0'; {_hang('MARKER')} # {{hyp}}",
        1,
        ("the command timed out on its first call (1 s per call", "nothing was validated"),
    ),
    "cmd-closes-its-pipes-then-hangs": (
        f"echo 'BLEU = 50.0'; exec >&- 2>&-; {_hang('MARKER')} # {{hyp}}",
        1,
        ("the command timed out on its first call (1 s per call",),
    ),
    "cmd-background-child-keeps-stdout-open": (
        f"{_hang('MARKER')} & echo 'BLEU = 50.0' # {{hyp}}",
        1,
        ("the command timed out on its first call (1 s per call",),
    ),
}


@pytest.mark.parametrize("row", list(FIRST_CALL_ROWS.values()), ids=list(FIRST_CALL_ROWS))
def test_first_call_that_floods_or_hangs_ends_the_run(
    row: tuple[str, float | None, tuple[str, ...]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template, timeout, words = row
    marker = f"MARK{uuid.uuid4().hex}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    t0 = time.monotonic()
    with pytest.raises(CouldNotValidate) as info:
        validate(cmd=template.replace("MARKER", marker), cases=4, fixtures=False, timeout=timeout)
    assert time.monotonic() - t0 < 60  # a hang guard (the default timeout is 30 s a call)
    for w in words:
        assert w in str(info.value), str(info.value)
    assert gone(marker) and list(tmp.iterdir()) == []


def test_later_floods_are_no_score_and_killed(tmp_path: Path) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    flag = tmp_path / "called-once"
    cmd = f"if [ -e {flag} ]; then yes 99.9 {marker}; fi; touch {flag}; echo 'BLEU = 50.0' {{hyp}}"
    r = validate(cmd=cmd, cases=6, fixtures=False)
    verdicts = [v for _, v in r.no_score]
    assert r.n_scored == 1 and len(verdicts) == 5
    assert all(
        v.startswith(f"no score: output over {MAX_STDOUT_BYTES} bytes on stdout") for v in verdicts
    ), verdicts
    assert all("its process group was killed" in v for v in verdicts)
    _assert_honest(r)
    assert gone(marker)


# ---------------------------------------------------------------------- the CLI: faults
@dataclass
class CliRow:
    """One ``bleu-harness`` run: its arguments (``MARKER`` replaced by the row's marker), the
    exit code, words on stderr and stdout, words that must not be on stdout, and a Python
    module (source) importable as ``battery_subject`` for ``--impl``."""

    args: list[str]
    code: int
    err: tuple[str, ...] = ()
    out: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    module: str | None = None


_NO_DIAGNOSIS = ("diagnosed:", "best profile", "Fitted configuration", "Deviations from")

FAULT_CLI_ROWS = {
    "cli-echo-constant-exits-3": CliRow(
        ["validate", "--cmd", "echo 0.5 # MARKER {hyp}", "--cases", "3"],
        3,
        err=(f"bleu-harness: {IGNORES_WORDS}: its", "all gave the same score (0.5)"),
        out=(IGNORING,),
        absent=_NO_DIAGNOSIS,
    ),
    "cli-echo-constant-json-exits-3": CliRow(
        ["validate", "--cmd", "echo 0.5 # MARKER {hyp}", "--cases", "3", "--json"],
        3,
        err=(IGNORES_WORDS,),
        out=(
            f'"verdict": "{IGNORES_WORDS}"',
            '"distinct_scores": 1,',
            '"best_correlation": null,',
            '"diagnosed_factors": []',
            '"best_profile": null',
        ),
    ),
    "cli-shuf-random-exits-3": CliRow(
        ["validate", "--cmd", "shuf -n1 -i 0-100 # MARKER {hyp}", "--cases", "60"],
        3,
        err=(IGNORES_WORDS, NOT_FOLLOWED),
        out=(IGNORING,),
        absent=_NO_DIAGNOSIS,
    ),
    "cli-yes-floods-exits-3": CliRow(
        ["validate", "--cmd", "yes 99.9 MARKER # {hyp}"],
        3,
        err=(
            "bleu-harness: could not validate: the command's first call gave no score: "
            f"output over {MAX_STDOUT_BYTES} bytes on stdout",
        ),
    ),
    "cli-impl-constant-exits-3": CliRow(
        ["validate", "--impl", "battery_subject:score", "--cases", "3"],
        3,
        err=(IGNORES_WORDS, "all gave the same score (0.25)"),
        out=(IGNORING,),
        absent=_NO_DIAGNOSIS,
        module="def score(hypotheses, references):\n    return 0.25\n",
    ),
    "cli-impl-real-bleu-still-diagnosed": CliRow(
        ["validate", "--impl", "harness.diagnose.homemade:sacrebleu_like", "--cases", "5"],
        0,
        out=("best profile: sacrebleu, agreement 100.0%", "depends on its input:"),
        absent=("verdict:",),
    ),
}


def _run_cli(
    args: list[str], marker: str, tmp: Path, extra_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m harness.cli ARGS`` with ``marker`` in its environment (inherited by every
    process it starts) and its temporary files under ``tmp``."""
    path = str(ROOT) if extra_path is None else f"{extra_path}{os.pathsep}{ROOT}"
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path, "TMPDIR": str(tmp), "BATTERY_MARK": marker},
    )


@pytest.mark.parametrize("row", list(FAULT_CLI_ROWS.values()), ids=list(FAULT_CLI_ROWS))
def test_cli_faults(row: CliRow, tmp_path: Path) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    modules = None
    if row.module is not None:
        modules = tmp_path / "modules"
        modules.mkdir()
        (modules / "battery_subject.py").write_text(row.module, encoding="utf-8")
    p = _run_cli([a.replace("MARKER", marker) for a in row.args], marker, tmp, modules)
    assert p.returncode == row.code, (p.stdout[-2000:], p.stderr[-2000:])
    assert "Traceback" not in p.stderr + p.stdout
    for w in row.err:
        assert w in p.stderr, p.stderr
    for w in row.out:
        assert w in p.stdout, p.stdout[-3000:]
    for w in row.absent:
        assert w not in p.stdout, p.stdout[-3000:]
    if "--json" in row.args:
        d = json.loads(p.stdout)
        assert d["verdict"] == IGNORES_WORDS and d["evidence"]["verdict"] == IGNORES_WORDS
    assert gone(marker) and list(tmp.iterdir()) == []


# ---------------------------------------------------------------------- identify: precision
NASA = load_fixture("google_nasa_opportunity")


def _sacrebleu_nasa() -> float:
    """The real library's corpus BLEU of the NASA example's candidate 2 (0-100)."""
    sacrebleu = pytest.importorskip("sacrebleu")
    corpus = NASA.corpus("candidate_2")
    streams = [[seg[k] for seg in corpus.references] for k in range(corpus.max_refs)]
    return float(sacrebleu.corpus_bleu(list(corpus.hypotheses), streams).score)


def _live_children() -> set[int]:
    """Pids of live processes whose parent is this test process."""
    out = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if fields and fields[0] != "Z" and int(fields[1]) == os.getpid():
            out.add(int(d.name))
    return out


# (the reported score made from the library's score s, the decimals it was printed with)
IDENTIFY_ROWS: dict[str, tuple[Callable[[float], Any], int]] = {
    "identify-int": (lambda s: round(s), 0),
    "identify-numpy-int": (lambda s: np.int64(round(s)), 0),
    "identify-str-whole": (lambda s: f"{s:.0f}", 0),
    "identify-str-padded": (lambda s: f"  {s:.0f} ", 0),
    "identify-Decimal-whole": (lambda s: Decimal(f"{s:.0f}"), 0),
    "identify-Decimal-one-decimal": (lambda s: Decimal(f"{s:.1f}"), 1),
    "identify-Decimal-trailing-zero": (lambda s: Decimal(f"{s:.1f}0"), 2),
    # a float has no printed precision left: 27.0 is read as it reprs, one decimal
    "identify-float-whole": (lambda s: float(f"{s:.0f}"), 1),
}


@pytest.mark.parametrize("row", list(IDENTIFY_ROWS.values()), ids=list(IDENTIFY_ROWS))
def test_identify_keeps_the_printed_precision(row: tuple[Callable[[float], Any], int]) -> None:
    make, places = row
    s = _sacrebleu_nasa()
    score = make(s)
    before = _live_children()
    found = identify(score, NASA.corpus("candidate_2"), session=Session())
    assert _live_children() <= before  # no worker left running
    printed = Decimal(str(score).strip()).quantize(Decimal(1).scaleb(-places))
    half = Decimal(5).scaleb(-places - 1)
    assert printed_interval(score) == (printed - half, printed + half)
    lo, hi = printed - half, printed + half
    if lo <= Decimal(repr(s)) < hi:
        # the library's own number is inside what was printed: plain sacrebleu comes first
        assert found[0].reading == "sacrebleu" and found[0].raw == pytest.approx(s, abs=1e-9)
    else:
        # outside it: sacrebleu reproduces it only through a rounding that lands inside
        for c in found:
            assert c.reproduces and lo <= Decimal(repr(c.shown)) < hi
            if c.reading == "sacrebleu":
                assert c.rounding != "none"


def test_identify_refuses_what_is_not_a_printed_number() -> None:
    for bad in (True, [27], "twenty-seven", float("nan")):
        with pytest.raises(ConfigError, match=r"not a (finite )?number"):
            identify(bad, NASA.corpus("candidate_2"), session=Session())  # type: ignore[arg-type]


@pytest.mark.parametrize("places", [0, 1], ids=["cli-identify-whole", "cli-identify-27.0"])
def test_cli_identify_keeps_the_typed_precision(places: int, tmp_path: Path) -> None:
    s = _sacrebleu_nasa()
    # "27" and "27.0": the same float, different printed precision
    typed = f"{s:.0f}" + ("." + "0" * places if places else "")
    marker = f"MARK{uuid.uuid4().hex}"
    args = ["identify", "--score", typed, "--fixture", NASA.name, "--system", "candidate_2"]
    p = _run_cli(args, marker, tmp_path)
    assert p.returncode == 0, p.stderr
    half = Decimal(5).scaleb(-places - 1)
    lo, hi = Decimal(typed) - half, Decimal(typed) + half
    assert f"Reported score {typed} on {NASA.name}/candidate_2 (a reading in [{lo}, {hi})" in (
        p.stdout
    )
    inside = lo <= Decimal(repr(s)) < hi
    assert ("\n 1. sacrebleu\n" in p.stdout) == inside, p.stdout[:2000]
    assert gone(marker)


# ---------------------------------------------------------------------- check: ##AT##
_SPLIT = ["a well ##AT##-##AT## known cat sat on the mat", "the long ##AT##-##AT## term plan"]
_JOINED = ["a well-known cat sat on the mat", "the long-term plan"]
_CAPITALS = ["The well ##AT##-##AT## known Cat sat", "The long ##AT##-##AT## term Plan"]

CHECK_ROWS = {
    # (hypothesis lines, reference lines, --json, exit code, words, absent words)
    "check-at-marker-in-hyp-vs-hyphenated-ref": (
        _SPLIT,
        _JOINED,
        False,
        1,
        ("hyphenated compounds split",),
        ("upper case",),
    ),
    "check-at-marker-in-ref-vs-plain-hyp": (
        _JOINED,
        _SPLIT,
        False,
        1,
        ("2 line(s) of ref",),
        ("upper case",),
    ),
    "check-at-marker-on-both-sides": (_SPLIT, _SPLIT, False, 1, ("of hyp", "of ref"), ("upper",)),
    "check-at-marker-with-real-capitals-still-warns": (
        _CAPITALS,
        _JOINED,
        False,
        1,
        ("ref has (almost) no upper case while hyp has it on 2 line(s)",),
        (),
    ),
    "check-at-marker-json": (
        _SPLIT,
        _JOINED,
        True,
        1,
        ('"code": "compound-split"',),
        ('"case-mismatch"',),
    ),
    # (a hypothesis file equal to its reference is a finding of its own: the control differs)
    "check-lowercase-control": (
        ["a well-known dog sat on a mat", "the long-term goal"],
        _JOINED,
        False,
        0,
        ("no preprocessing problems",),
        (),
    ),
    "check-hypothesis-equal-to-reference": (
        _JOINED,
        _JOINED,
        False,
        1,
        ("hyp equals ref on 2 of 2 lines (2 exactly",),
        ("no preprocessing problems",),
    ),
}


@pytest.mark.parametrize("row", list(CHECK_ROWS.values()), ids=list(CHECK_ROWS))
def test_check_reads_at_markers_asmarked(
    row: tuple[list[str], list[str], bool, int, tuple[str, ...], tuple[str, ...]], tmp_path: Path
) -> None:
    hyp_lines, ref_lines, as_json, code, words, absent = row
    files = {"hyp": hyp_lines, "ref": ref_lines}
    for name, lines in files.items():
        (tmp_path / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    before = {name: (tmp_path / name).read_bytes() for name in files}
    marker = f"MARK{uuid.uuid4().hex}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = ["check", *(["--json"] if as_json else []), "hyp", "ref"]
    p = subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "BATTERY_MARK": marker},
    )
    assert p.returncode == code, (p.stdout, p.stderr)
    for w in words:
        assert w in p.stdout, p.stdout
    for w in absent:
        assert w not in p.stdout, p.stdout
    if as_json:
        assert "case-mismatch" not in {f["code"] for f in json.loads(p.stdout)["findings"]}
    assert {name: (tmp_path / name).read_bytes() for name in files} == before
    assert gone(marker) and list(tmp.iterdir()) == []
