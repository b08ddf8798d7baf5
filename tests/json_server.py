"""A published release's code served in a Python process of its own, one JSON line each way
(:class:`harness.scorers.json_lines.JsonLineProcess`), for the test suite's oracles.

The process runs ``code`` (which prints a first JSON line saying what it imported, then answers
each line of requests with one line of replies) with ``env``; what it wrote to stderr is shown
when it ends early.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.scorers.json_lines import JsonLineProcess


class JsonLineServer:
    """``code`` run by this Python with ``env``: :attr:`hello` is its first line, :meth:`run`
    sends a batch of requests and returns its replies, :meth:`close` ends it."""

    def __init__(self, what: str, code: str, env: Mapping[str, str]) -> None:
        self.what = what
        self._proc = JsonLineProcess(code, env)
        #: What the process imported, and from where (its first line).
        self.hello: dict[str, Any] = self._checked(self._proc.read())

    def _checked(self, reply: Any) -> Any:
        if reply is None:
            raise RuntimeError(f"the {self.what} process ended: {self._proc.stderr()}")
        return reply

    def run(self, requests: list[Any]) -> list[dict[str, Any]]:
        """The release's answer to each request, in order."""
        replies: list[dict[str, Any]] = self._checked(self._proc.ask(requests))
        return replies

    def close(self) -> None:
        self._proc.close()
