"""Old releases of torchmetrics, pytorch-ignite and lm-eval, each run in a process of its own (a
helper module for tests).

The harness's environment holds today's releases; a release of 2021–2023 cannot be imported
beside them. :class:`PeerRelease` starts a Python process whose ``sys.path`` begins with the
release as published on the package index (its wheel unpacked,
:func:`tests.published.published_tree`) and runs a *setup* there: Python text that defines
``hello()`` (what was imported, from where) and ``call(request)`` (one answer). The process
answers batches of requests, one JSON line each way; an exception a call raises is answered as
``{"error": type name, "message": ...}``.

The setups:

* :data:`TORCHMETRICS`: ``torchmetrics.functional.text.sacre_bleu.sacre_bleu_score`` (the
  function ``SacreBLEUScore`` updates and computes with). torchmetrics 0.6–0.11 does not import
  on this Python: its ``__init__`` imports ``pkg_resources``, which the environment no longer
  has. Its text BLEU modules (``functional/text/bleu.py`` and ``sacre_bleu.py``) are run from
  the published tree with their own imports (torch, ``typing_extensions``, ``regex``); only the
  packages above them and ``torchmetrics.utilities.imports`` (``_REGEX_AVAILABLE``) are stubbed.
  Request: ``(hyps, refs, kwargs)``; answer: the score on the 0–1 scale.
* :data:`IGNITE`: ``ignite.metrics.nlp.Bleu`` of pytorch-ignite 0.4.5/0.4.6, imported whole
  (it imports with the installed torch); ``update((hypothesis tokens, references' tokens))`` per
  segment, then ``compute()``. Request: ``(hyp token lists, refs token lists, kwargs)``;
  answer: the mean and each segment's score (its ``_corpus_bleu`` on the segment alone), 0–1.
* :data:`LM_EVAL`: lm-eval 0.3.0's ``lm_eval/metrics.py`` ``bleu`` (with ``_sacreformat`` and
  ``is_non_str_iterable``) and ``lm_eval/tasks/truthfulqa.py``'s ``TruthfulQAGeneration.bleu``,
  the published definitions compiled from the files of its wheel (the modules themselves import
  scikit-learn, ``datasets``, ``rouge_score``, which the process does not need), with sacrebleu
  1.5.0 — the release lm-eval 0.3.0 pins — first on ``sys.path``. Requests:
  ``("bleu", items)`` (lm-eval's ``(references, prediction)`` items) and
  ``("truthfulqa", completion, refs)`` (``bleu([[ref]], [completion])`` for each reference, as
  ``process_results`` calls it; lm-eval 0.0.1 has no TruthfulQA, and its ``hello`` says so).
  Answers on the 0–100 scale.
"""

from __future__ import annotations

import os
from pathlib import Path

from .json_server import JsonLineServer
from .published import published_tree, unavailable

_SERVER = """
import json, os, sys, warnings
warnings.simplefilter("ignore")
ns = {"__name__": "setup"}
exec(os.environ["PEER_RELEASE_SETUP"], ns)
print(json.dumps(ns["hello"]()), flush=True)

def safe(request):
    try:
        return ns["call"](request)
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}

for line in sys.stdin:
    print(json.dumps([safe(r) for r in json.loads(line)]), flush=True)
"""

TORCHMETRICS = """
import importlib, inspect, os, sys, types
tree = os.environ["PEER_RELEASE_TREE"]
for name in ("torchmetrics", "torchmetrics.functional", "torchmetrics.functional.text",
             "torchmetrics.utilities"):
    package = types.ModuleType(name)
    package.__path__ = [os.path.join(tree, *name.split("."))]
    sys.modules[name] = package
imports = types.ModuleType("torchmetrics.utilities.imports")
imports._REGEX_AVAILABLE = True
sys.modules["torchmetrics.utilities.imports"] = imports
sacre = importlib.import_module("torchmetrics.functional.text.sacre_bleu")
# 0.6 takes (reference_corpus, translate_corpus), later releases (preds, target)
first = list(inspect.signature(sacre.sacre_bleu_score).parameters)[0]

def hello():
    return {"file": sacre.__file__}

def call(request):
    hyps, refs, kwargs = request
    args = (hyps, refs) if first == "preds" else (refs, hyps)
    return {"score": float(sacre.sacre_bleu_score(*args, **kwargs))}
"""

IGNITE = """
import ignite
from ignite.metrics.nlp import Bleu

def hello():
    return {"version": ignite.__version__, "file": ignite.__file__}

def call(request):
    hyps, refs, kwargs = request
    metric = Bleu(**kwargs)
    segments = []
    for h, r in zip(hyps, refs):
        metric.update((h, r))
        segments.append(float(metric._corpus_bleu(references=[r], candidates=[h])))
    return {"score": float(metric.compute()), "segments": segments}
"""

LM_EVAL = """
import ast, os
import numpy as np
import sacrebleu
from collections.abc import Iterable
tree = os.environ["PEER_RELEASE_TREE"]

def definitions(path, names, cls=None):
    source = open(os.path.join(tree, path), encoding="utf-8").read()
    body = ast.parse(source, filename=path).body
    if cls is not None:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == cls).body
    keep = [n for n in body if isinstance(n, ast.FunctionDef) and n.name in names]
    assert {n.name for n in keep} == set(names), (path, names)
    env = {"sacrebleu": sacrebleu, "np": np, "Iterable": Iterable}
    exec(compile(ast.Module(body=keep, type_ignores=[]), path, "exec"), env)
    return env

metrics = definitions("lm_eval/metrics.py", ["bleu", "_sacreformat", "is_non_str_iterable"])
# lm-eval 0.0.1 has no TruthfulQA task
TQA = "lm_eval/tasks/truthfulqa.py"
tqa_bleu = (
    definitions(TQA, ["bleu"], cls="TruthfulQAGeneration")["bleu"]
    if os.path.exists(os.path.join(tree, TQA))
    else None
)

def hello():
    return {
        "version": sacrebleu.__version__,
        "file": sacrebleu.__file__,
        "tree": tree,
        "truthfulqa": tqa_bleu is not None,
    }

def call(request):
    if request[0] == "bleu":
        return {"score": float(metrics["bleu"]([(list(r), h) for r, h in request[1]]))}
    completion, refs = request[1], request[2]
    scores = []
    for ref in refs:
        try:
            scores.append({"score": float(tqa_bleu(None, [[ref]], [completion]))})
        except Exception as exc:
            scores.append({"error": type(exc).__name__, "message": str(exc)})
    return {"scores": scores}
"""


class PeerRelease(JsonLineServer):
    """A release's setup (:data:`TORCHMETRICS`, :data:`IGNITE`, :data:`LM_EVAL`) in a process of
    its own, ``trees`` first on its ``sys.path`` (the first is ``PEER_RELEASE_TREE``): call
    :meth:`run` with a batch of requests; :meth:`close` ends it."""

    def __init__(self, what: str, setup: str, trees: list[Path]) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(map(str, trees)),
            "PEER_RELEASE_TREE": str(trees[0]),
            "PEER_RELEASE_SETUP": setup,
        }
        super().__init__(what, _SERVER, env)


def _checked(release: PeerRelease, tree: Path, key: str, version: str | None) -> PeerRelease:
    """``release``, once its process shows it imported ``key``'s file from ``tree`` (and, if
    given, ``version``); else it is closed and the test skipped (failed under ``CI=true``)."""
    hello = release.hello
    if not str(hello.get(key)).startswith(str(tree)) or (
        version is not None and hello.get("version") != version
    ):
        release.close()
        unavailable(release.what, f"the oracle process imported {hello}")
    return release


def torchmetrics_release(version: str) -> PeerRelease:
    """torchmetrics ``version``'s ``sacre_bleu_score`` in a process of its own."""
    tree = published_tree("torchmetrics", version)
    release = PeerRelease(f"torchmetrics=={version}", TORCHMETRICS, [tree])
    return _checked(release, tree, "file", None)


def ignite_release(version: str) -> PeerRelease:
    """pytorch-ignite ``version``'s ``Bleu`` in a process of its own."""
    tree = published_tree("pytorch-ignite", version)
    release = PeerRelease(f"pytorch-ignite=={version}", IGNITE, [tree])
    return _checked(release, tree, "file", version)


def lm_eval_release(version: str, sacrebleu: str) -> PeerRelease:
    """lm-eval ``version``'s ``bleu`` and TruthfulQA ``bleu`` with sacrebleu ``sacrebleu``, in a
    process of its own."""
    tree = published_tree("lm-eval", version)
    sacre = published_tree("sacrebleu", sacrebleu)
    release = PeerRelease(f"lm-eval=={version}", LM_EVAL, [tree, sacre])
    return _checked(release, sacre, "file", sacrebleu)
