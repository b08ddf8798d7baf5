"""nltk 3.9.1's own ``word_tokenize``, run in a process of its own (a helper module for tests).

lighteval 0.13 requires ``nltk==3.9.1``; the harness installs nltk 3.10.4, and two releases of
one package cannot be imported in one process. :class:`Nltk391` starts a Python process whose
``sys.path`` begins with nltk 3.9.1's published wheel, unpacked (:func:`tests.published.
published_tree`), reading the Punkt model from an nltk data folder written by
:func:`tests.helm_oracle.write_punkt_tab`; it answers lists of texts with their tokens, one
JSON line each way. The process checks that it imported 3.9.1 before it answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from .helm_oracle import write_punkt_tab
from .published import published_tree, unavailable

NLTK391 = ("nltk", "3.9.1")

_SERVER = """
import json, sys, traceback
import nltk
from nltk.tokenize import word_tokenize
print(json.dumps({"version": nltk.__version__, "file": nltk.__file__}), flush=True)
for line in sys.stdin:
    try:
        reply = {"tokens": [word_tokenize(text) for text in json.loads(line)]}
    except Exception:
        reply = {"error": traceback.format_exc()}
    print(json.dumps(reply), flush=True)
"""


class Nltk391:
    """``word_tokenize`` of nltk 3.9.1: call it with a list of texts; :meth:`close` ends it."""

    def __init__(self, data_root: Path) -> None:
        tree = published_tree(*NLTK391)
        write_punkt_tab(data_root)
        env = {**os.environ, "PYTHONPATH": str(tree), "NLTK_DATA": str(data_root)}
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )
        hello = self._read()
        if hello.get("version") != NLTK391[1] or not str(hello.get("file")).startswith(str(tree)):
            self.close()
            unavailable("nltk==3.9.1", f"the oracle process imported {hello}")

    def _read(self) -> dict[str, object]:
        out: IO[str] | None = self._proc.stdout
        assert out is not None
        line = out.readline()
        if not line:
            err = self._proc.stderr.read() if self._proc.stderr else ""
            raise RuntimeError(f"the nltk 3.9.1 process ended: {err[-2000:]}")
        reply: dict[str, object] = json.loads(line)
        return reply

    def __call__(self, texts: list[str]) -> list[list[str]]:
        stdin = self._proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(texts) + "\n")
        stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"nltk 3.9.1 raised:\n{reply['error']}")
        tokens: list[list[str]] = reply["tokens"]  # type: ignore[assignment]
        return tokens

    def word_tokenize(self, text: str) -> list[str]:
        """One text's tokens (what lighteval's ``word_tokenize`` returns)."""
        return self([text])[0]

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream:
                stream.close()
