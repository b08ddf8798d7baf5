"""Python code run in a process of its own, talked to one JSON line each way.

What runs an old release beside the installed one (:class:`harness.scorers.releases.
ReleaseProcess`, and the test suite's oracles): the code is given to this Python with ``-c`` and
an environment of its own; it prints a first line saying what it imported, then answers each
line of requests with one line of replies. Its stderr goes to a temporary file rather than a
pipe, so a release that warns a lot cannot stall on a pipe nobody reads, and what it said is
there to show when it ends early.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import IO, Any

__all__ = ["JsonLineProcess"]


class JsonLineProcess:
    """``code`` run by this Python (or the interpreter ``python``) with ``env``: :meth:`read`
    is its next line (``None`` once it has ended), :meth:`ask` sends a value and reads the
    reply, :meth:`stderr` is what it wrote there, :meth:`close` ends it."""

    def __init__(self, code: str, env: Mapping[str, str], *, python: str = sys.executable) -> None:
        self._log = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._proc = subprocess.Popen(
            [python, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            encoding="utf-8",
            env=dict(env),
        )

    def read(self) -> Any:
        """The process's next line, decoded; ``None`` when it has ended."""
        out: IO[str] | None = self._proc.stdout
        line = out.readline() if out is not None else ""
        return json.loads(line) if line else None

    def ask(self, value: Any) -> Any:
        """``value`` sent as one line, and the line the process answers (``None``: it ended)."""
        stdin = self._proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(value) + "\n")
        stdin.flush()
        return self.read()

    def stderr(self) -> str:
        """What the process wrote to its stderr so far."""
        self._log.seek(0)
        return self._log.read()

    def close(self) -> None:
        """End the process (its input closed; killed if it has not ended a while later)."""
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout:
            self._proc.stdout.close()
        self._log.close()
