"""Old sacrebleu releases' own code, each run in a process of its own (a helper module for tests).

The harness installs sacrebleu 2.6.0; a release of 2018–2021 cannot be imported beside it.
:class:`SacrebleuRelease` starts a Python process whose ``sys.path`` begins with the release as
published on the package index: its wheel unpacked (:func:`tests.published.published_tree`),
or, for the releases published as an sdist only (1.2.x, 1.3.x: one module, ``sacrebleu.py``),
that module taken out of the sdist (:func:`release_tree`). The release's other imports
(``portalocker``, ``typing``; from 1.5 on ``regex``-free, from 2.0 ``tabulate``, ``numpy``,
``colorama``, ``lxml``) are pure-Python or binary packages the harness's environment already has,
at versions the release accepts. The process checks that it imported the release, from the
tree, before it answers; then it answers batches of calls, one JSON line each way:

* ``("corpus", hyps, streams)``: ``sacrebleu.corpus_bleu(hyps, streams)`` with the release's
  defaults (``streams``: reference streams, a missing reference ``None``);
* ``("sentence", hyp, refs)``: ``sacrebleu.sentence_bleu(hyp, refs)`` with the release's
  defaults. Up to 1.4.0 it takes one reference string (``refs[0]``); from 1.4.1 to 1.4.10 or so
  it hands ``references`` to ``corpus_bleu`` as reference *streams*, so a list of strings
  raises ``EOFError`` (or, of one-character strings, scores the characters): the references
  are passed as streams of one segment each (``[[r] for r in refs]``), the call that works
  (the server reads which form from the release's own ``sentence_bleu``).

A request may end with a dictionary of keyword arguments for the call (``smooth_method``, …).

Each answer is the score and, where the release returns them, its sufficient statistics, or the
exception it raised (type name and message).
"""

from __future__ import annotations

import os
from pathlib import Path

from harness.scorers.releases import module_tree

from .json_server import JsonLineServer
from .published import published_archive, published_tree, unavailable

_SERVER = """
import inspect, json, logging, sys
logging.disable(logging.CRITICAL)  # 'That's 100 lines that end in a tokenized period'
import sacrebleu
version = getattr(sacrebleu, "__version__", None) or getattr(sacrebleu, "VERSION", None)
if list(inspect.signature(sacrebleu.sentence_bleu).parameters)[1] == "reference":
    form = "string"
elif "corpus_bleu(hypothesis, references" in inspect.getsource(sacrebleu.sentence_bleu):
    form = "streams"
else:
    form = "list"
hello = {"version": version, "file": sacrebleu.__file__, "references": form}
print(json.dumps(hello), flush=True)

def answer(result):
    if isinstance(result, float):
        return {"score": result}
    return {
        "score": result.score,
        "counts": list(result.counts),
        "totals": list(result.totals),
        "sys_len": result.sys_len,
        "ref_len": result.ref_len,
    }

def call(request):
    kind, kwargs = request[0], request[3] if len(request) > 3 else {}
    try:
        if kind == "corpus":
            return answer(sacrebleu.corpus_bleu(request[1], request[2], **kwargs))
        refs = request[2]
        if form == "string":
            refs = refs[0]
        elif form == "streams":
            refs = [[r] for r in refs]
        return answer(sacrebleu.sentence_bleu(request[1], refs, **kwargs))
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}

for line in sys.stdin:
    print(json.dumps([call(r) for r in json.loads(line)]), flush=True)
"""


def release_tree(version: str) -> Path:
    """A folder holding sacrebleu ``version`` as it imports: the wheel unpacked, or the
    ``sacrebleu.py`` module of an sdist-only release beside its archive."""
    archive = published_archive("sacrebleu", version)
    if archive.name.endswith(".whl"):
        return published_tree("sacrebleu", version)
    tree = module_tree(archive, "sacrebleu", version, "sacrebleu.py")
    if tree is None:
        unavailable(f"sacrebleu=={version}", f"{archive.name} holds no sacrebleu.py")
    assert tree is not None
    return tree


class SacrebleuRelease(JsonLineServer):
    """sacrebleu ``version``'s ``corpus_bleu``/``sentence_bleu`` in a process of its own: call
    :meth:`run` with a batch of requests; :meth:`close` ends it."""

    def __init__(self, version: str) -> None:
        self.version = version
        tree = release_tree(version)
        super().__init__(f"sacrebleu {version}", _SERVER, {**os.environ, "PYTHONPATH": str(tree)})
        hello = self.hello
        if hello.get("version") != version or not str(hello.get("file")).startswith(str(tree)):
            self.close()
            unavailable(f"sacrebleu=={version}", f"the oracle process imported {hello}")
        #: Whether ``sentence_bleu`` takes one reference string (up to 1.4.0).
        self.one_reference = hello.get("references") == "string"
