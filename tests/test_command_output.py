"""A scoring command's output is read with a cap, and the command is killed past it.

Commands are real shell commands (``yes``, ``seq``, ``/bin/sh``); the caps are the module's
constants or a small ``max_output`` given to the adapter, and every byte count expected below is
computed from them or from the command's own output, never typed.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from harness import Corpus
from harness.errors import ConfigError
from harness.scorers.command import (
    MAX_STDERR_BYTES,
    MAX_STDOUT_BYTES,
    STDERR_KEPT,
    CommandAdapter,
    CommandError,
    CommandOptions,
    CommandOutputTooLarge,
    CommandTimeout,
)
from tests.processes import gone, marked

SMALL = Corpus(hypotheses=("the cat sat",), references=(("the cat sat",),))


def _marker() -> str:
    return f"MARK{uuid.uuid4().hex}"


def test_stdout_flood_is_killed_at_the_cap():
    marker = _marker()
    t0 = time.monotonic()
    with pytest.raises(CommandOutputTooLarge) as info:
        CommandAdapter(f"yes 99.9 {marker} # {{hyp}}", options=CommandOptions(timeout=60)).corpus(
            SMALL
        )
    # a hang guard: without the cap, `yes` runs until the timeout
    assert time.monotonic() - t0 < 30
    exc = info.value
    assert exc.stream == "stdout" and exc.limit == MAX_STDOUT_BYTES and exc.returncode is None
    assert f"output over {MAX_STDOUT_BYTES} bytes on stdout" in str(exc)
    assert "its process group was killed" in str(exc)
    assert f"stdout began '99.9 {marker}" in str(exc)
    # what is kept is bounded by the cap plus one read
    assert MAX_STDOUT_BYTES <= len(exc.stdout.encode()) <= 2 * MAX_STDOUT_BYTES
    assert isinstance(exc, CommandError)  # callers that catch CommandError see it too
    assert gone(marker)


def test_a_smaller_cap_given_to_the_adapter():
    line = "BLEU = 27.23"
    fits = CommandAdapter(
        f"echo '{line}' # {{hyp}}", options=CommandOptions(max_output=len(line) + 1)
    )
    assert fits.corpus(SMALL).score == pytest.approx(float(line.split()[-1]))
    over = CommandAdapter(f"echo '{line}' # {{hyp}}", options=CommandOptions(max_output=len(line)))
    with pytest.raises(CommandOutputTooLarge, match=f"output over {len(line)} bytes on stdout"):
        over.corpus(SMALL)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ConfigError, match="max_output"):
            CommandAdapter("cat {hyp}", options=CommandOptions(max_output=bad))


def test_stderr_flood_is_killed_at_its_own_cap():
    marker = _marker()
    with pytest.raises(CommandOutputTooLarge) as info:
        CommandAdapter(f"yes {marker} >&2 # {{hyp}}", options=CommandOptions(timeout=60)).corpus(
            SMALL
        )
    exc = info.value
    assert exc.stream == "stderr" and exc.limit == MAX_STDERR_BYTES
    assert f"output over {MAX_STDERR_BYTES} bytes on stderr" in str(exc)
    # only the tail is kept: bounded by STDERR_KEPT plus the note of what was left out
    assert len(exc.stderr.encode()) < STDERR_KEPT + 200
    assert marker in exc.stderr and "bytes not kept" in exc.stderr
    assert gone(marker)


def test_long_stderr_under_the_cap_keeps_its_last_lines():
    n = 2 * STDERR_KEPT // len("12345\n")  # more lines than the kept tail holds
    template = f"seq 1 {n} >&2; echo LAST-ERROR-LINE >&2; exit 4 # {{hyp}}"
    with pytest.raises(CommandError) as info:
        CommandAdapter(template).corpus(SMALL)
    exc = info.value
    assert not isinstance(exc, CommandOutputTooLarge) and exc.returncode == 4
    assert exc.stderr.rstrip().endswith(f"{n}\nLAST-ERROR-LINE")
    full = subprocess.run(["seq", "1", str(n)], capture_output=True, check=True).stdout
    assert len(full) > STDERR_KEPT  # the tail was all that could be kept
    assert len(exc.stderr.encode()) < STDERR_KEPT + 200
    assert "LAST-ERROR-LINE" in str(exc)


def test_score_then_closed_pipes_then_hang_is_a_timeout():
    marker = _marker()
    hang = f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"
    template = f"echo 'BLEU = 50.0'; exec >&- 2>&-; {hang} # {{hyp}}"
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout, match="timed out after 1 s"):
        CommandAdapter(template, options=CommandOptions(timeout=1)).corpus(SMALL)
    assert time.monotonic() - t0 < 30  # a hang guard, not a speed bound
    assert gone(marker)


def test_background_child_holding_the_pipe_is_a_timeout_and_is_killed():
    marker = _marker()
    hang = f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"
    with pytest.raises(CommandTimeout):
        CommandAdapter(
            f"{hang} & echo 'BLEU = 50.0' # {{hyp}}", options=CommandOptions(timeout=1)
        ).corpus(SMALL)
    assert gone(marker)


def test_background_child_without_the_pipe_is_killed_after_the_score():
    marker = _marker()
    hang = f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"
    template = f"{hang} >/dev/null 2>&1 & echo 'BLEU = 50.0' # {{hyp}}"
    got = CommandAdapter(template, options=CommandOptions(timeout=30)).corpus(SMALL)
    assert got.score == pytest.approx(50.0)
    assert gone(marker)


def test_crlf_output_and_undecodable_bytes_are_read():
    got = CommandAdapter("printf 'BLEU = 31.5\\r\\n' # {hyp}").corpus(SMALL)
    assert got.score == pytest.approx(31.5) and got.extra["stdout"] == "BLEU = 31.5"
    with pytest.raises(CommandError) as info:
        CommandAdapter("printf '\\377\\376 oops\\n' >&2; exit 2 # {hyp}").corpus(SMALL)
    assert "\ufffd" in info.value.stderr and "oops" in info.value.stderr


def test_memory_stays_bounded_while_a_subject_floods(tmp_path: Path):
    """The peak memory of a process that ran a flooding command is that of one that ran a
    quiet command, within a few caps' worth (the kept stdout and its decoded copies)."""
    code = (
        "import resource, sys\n"
        "from harness import Corpus\n"
        "from harness.scorers.command import CommandAdapter, CommandError, CommandOptions\n"
        "c = Corpus(hypotheses=('a b',), references=(('a b',),))\n"
        "try:\n"
        "    CommandAdapter(sys.argv[1], options=CommandOptions(timeout=60)).corpus(c)\n"
        "except CommandError:\n"
        "    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )

    def peak_kib(template: str) -> int:
        p = subprocess.run(
            [sys.executable, "-c", code, template],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[1],
            check=True,
        )
        return int(p.stdout.strip())

    quiet = peak_kib("echo 'BLEU = 50.0' # {hyp}")
    flood = peak_kib("yes 99.9 # {hyp}")
    assert flood <= quiet + 8 * MAX_STDOUT_BYTES // 1024, (quiet, flood)


def test_a_stop_that_arrives_while_the_command_starts_kills_its_group(monkeypatch) -> None:
    """A stop signal that arrives inside Popen (after the fork: a loaded machine widens that
    window) is raised once the process is known, and its whole group is killed — before, the
    stop escaped from Popen and the command's group ran on with nobody to kill it."""
    import signal as signals

    from harness import interrupts
    from harness.scorers import command

    marker = _marker()
    real = subprocess.Popen

    class StoppedWhileStarting(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            deadline = time.monotonic() + 120  # until the shell has started the child
            while not any(m.startswith(f"{sys.executable} -c") for m in marked(marker)):
                assert time.monotonic() < deadline, "the command never started"
                time.sleep(0.05)
            interrupts.handler(signals.SIGINT, None)  # as the signal would, here

    monkeypatch.setattr(command.subprocess, "Popen", StoppedWhileStarting)
    hang = f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"
    try:
        with pytest.raises(KeyboardInterrupt):
            command._run_group(f"{hang}; echo 1", timeout=60, cwd=None, env=None)
    finally:
        interrupts.reset()
    assert gone(marker)
