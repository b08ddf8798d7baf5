"""nltk 3.9.1's own ``word_tokenize``, run in a process of its own (a helper module for tests).

lighteval 0.13 requires ``nltk==3.9.1``; the harness installs nltk 3.10.4, and two releases of
one package cannot be imported in one process. :class:`Nltk391` starts a Python process whose
``sys.path`` begins with nltk 3.9.1's published wheel, unpacked (:func:`tests.published.
published_tree`), reading the Punkt model from an nltk data folder written by
:func:`tests.helm_oracle.write_punkt_tab`; it answers lists of texts with their tokens, one
JSON line each way. The process checks that it imported 3.9.1 before it answers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .helm_oracle import write_punkt_tab
from .json_server import JsonLineServer
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


class Nltk391(JsonLineServer):
    """``word_tokenize`` of nltk 3.9.1: call it with a list of texts; :meth:`close` ends it."""

    def __init__(self, data_root: Path) -> None:
        tree = published_tree(*NLTK391)
        write_punkt_tab(data_root)
        env = {**os.environ, "PYTHONPATH": str(tree), "NLTK_DATA": str(data_root)}
        super().__init__("nltk 3.9.1", _SERVER, env)
        hello = self.hello
        if hello.get("version") != NLTK391[1] or not str(hello.get("file")).startswith(str(tree)):
            self.close()
            unavailable("nltk==3.9.1", f"the oracle process imported {hello}")

    def __call__(self, texts: list[str]) -> list[list[str]]:
        reply: Any = self.run(texts)
        if "error" in reply:
            raise RuntimeError(f"nltk 3.9.1 raised:\n{reply['error']}")
        tokens: list[list[str]] = reply["tokens"]
        return tokens

    def word_tokenize(self, text: str) -> list[str]:
        """One text's tokens (what lighteval's ``word_tokenize`` returns)."""
        return self([text])[0]
