"""A published release's code served in a Python process of its own, one JSON line each way.

The process runs ``code`` (which prints a first JSON line saying what it imported, then answers
each line of requests with one line of replies) with ``env``; its stderr goes to a temporary
file, shown when the process ends early.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import IO, Any


class JsonLineServer:
    """``code`` run by this Python with ``env``: :attr:`hello` is its first line, :meth:`run`
    sends a batch of requests and returns its replies, :meth:`close` ends it."""

    def __init__(self, what: str, code: str, env: Mapping[str, str]) -> None:
        self.what = what
        self._log = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            encoding="utf-8",
            env=dict(env),
        )
        #: What the process imported, and from where (its first line).
        self.hello: dict[str, Any] = self._read()

    def _read(self) -> Any:
        out: IO[str] | None = self._proc.stdout
        assert out is not None
        line = out.readline()
        if not line:
            self._log.seek(0)
            raise RuntimeError(f"the {self.what} process ended: {self._log.read()}")
        return json.loads(line)

    def run(self, requests: list[Any]) -> list[dict[str, Any]]:
        """The release's answer to each request, in order."""
        stdin = self._proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(requests) + "\n")
        stdin.flush()
        replies: list[dict[str, Any]] = self._read()
        return replies

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)
        if self._proc.stdout:
            self._proc.stdout.close()
        self._log.close()
