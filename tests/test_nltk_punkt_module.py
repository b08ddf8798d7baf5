"""Punkt loaded without nltk's package ``__init__`` (:mod:`harness.bleu.nltk_punkt_module`):
the same tokens as through the whole nltk, none of the packages nltk's ``__init__`` pulls in,
and nltk whole again for whoever imports it afterwards.

A fresh process (nltk not imported) tokenizes seeded texts with the Punkt tokenizers and then
imports nltk; this process, where nltk is imported whole, tokenizes the same texts.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import nltk

from harness.bleu.nltk_punkt_module import punkt_module
from harness.bleu.tokenizers import batch_lines_tokens, clear_caches

from .strategies import SENTENCE_END_WORDS

TOKENIZERS = ("nltk-punkt", "nltk-punkt-3.9.1", "evalscope")
#: Modules nltk's ``__init__`` imports and Punkt does not need.
HEAVY = ("sklearn", "scipy.stats", "pandas", "nltk.corpus", "nltk.classify")

_FRESH = """
import json, sys
from harness.bleu.tokenizers import batch_lines_tokens
texts = json.loads(sys.stdin.read())
names = json.loads(sys.argv[1])
tokens = {name: batch_lines_tokens(name, texts) for name in names}
loaded = sorted(name for name in sys.modules if name in json.loads(sys.argv[2]))
bare = "nltk" in sys.modules
import nltk
from nltk.translate.bleu_score import sentence_bleu
whole = {
    "version": nltk.__version__,
    "punkt_is_package_module": sys.modules["nltk.tokenize.punkt"] is nltk.tokenize.punkt,
    "bleu": sentence_bleu([["a", "b", "c", "d"]], ["a", "b", "c", "d"]),
}
print(json.dumps({"tokens": tokens, "loaded": loaded, "bare_left": bare, "whole": whole}))
"""


def _texts(n: int, seed: int) -> list[str]:
    """Lines of words, sentence ends and abbreviations, some of them joined by newlines."""
    rng = random.Random(seed)
    words = [*SENTENCE_END_WORDS, "Mr.", "Dr.", "U.S.", "e.g.", "J.", "5.", "a", "b", "the"]
    words += ["“Yes.”", "(see p. 5)", "...", "?", "!", "'quote.'", "No.", "3.14", "etc."]
    out = []
    for _ in range(n):
        lines = [
            " ".join(rng.choices(words, k=rng.randint(1, 14))) for _ in range(rng.randint(1, 3))
        ]
        out.append("\n".join(lines))
    return out


def test_punkt_without_nltk_init_gives_nltks_tokens_and_leaves_nltk_whole() -> None:
    texts = _texts(400, seed=11)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run(
        [sys.executable, "-c", _FRESH, json.dumps(TOKENIZERS), json.dumps(HEAVY)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    fresh = json.loads(run.stdout)
    assert fresh["loaded"] == []
    assert fresh["bare_left"] is False
    assert fresh["whole"] == {
        "version": nltk.__version__,
        "punkt_is_package_module": True,
        "bleu": 1.0,
    }
    assert punkt_module() is nltk.tokenize.punkt
    clear_caches()
    for name in TOKENIZERS:
        assert fresh["tokens"][name] == batch_lines_tokens(name, texts), name
