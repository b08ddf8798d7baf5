"""Old releases of torchmetrics, pytorch-ignite, lm-eval and datasets, each run in a process of
its own: the process setups, the calls the drift report compares them on, and which cached
files are a release of each.

The harness's environment holds today's releases; a release of 2021–2023 cannot be imported
beside them. A process whose ``sys.path`` begins with the release as published on the package
index (its wheel unpacked in the release folder,
:func:`harness.scorers.releases.releases_folder`) runs a *setup* there: Python text that
defines ``hello()`` (what was imported, from where) and ``call(request)`` (one answer), reading
the release's files from ``$PEER_RELEASE_TREE`` (:data:`TREE_ENV`). The test suite serves the
setups' requests as they are (:data:`PEER_SERVER`); the drift report adds a library's
:attr:`PeerLibrary.adapter`, which answers the report's calls (hypotheses and each segment's
references) through ``call``.

The setups:

* :data:`TORCHMETRICS`: ``torchmetrics.functional.text.sacre_bleu.sacre_bleu_score`` (the
  function ``SacreBLEUScore`` updates and computes with). torchmetrics 0.6–0.11 does not import
  on this Python: its ``__init__`` imports ``pkg_resources``, which the environment no longer
  has. Its text BLEU modules (``functional/text/bleu.py`` and ``sacre_bleu.py``) are run from
  the published tree with their own imports (torch, ``typing_extensions``, ``regex``); only the
  packages above them and ``torchmetrics.utilities.imports`` (``_REGEX_AVAILABLE``) are stubbed.
  Without a tree (the installed release) the module is imported as usual.
  Request: ``(hyps, refs, kwargs)``; answer: the score on the 0–1 scale.
* :data:`IGNITE`: ``ignite.metrics.nlp.Bleu`` of pytorch-ignite, imported whole (it imports
  with the installed torch); ``update((hypothesis tokens, references' tokens))`` per segment
  (from 0.4.7 on, whose ``update`` takes a batch: ``update(([hypothesis], [references]))``),
  then ``compute()``. Request: ``(hyp token lists, refs token lists, kwargs)``;
  answer: the mean and each segment's score (its ``_corpus_bleu`` on the segment alone;
  from 0.4.7 on ``_sentence_bleu``), 0–1.
* :data:`LM_EVAL`: lm-eval 0.3.0's ``lm_eval/metrics.py`` ``bleu`` (with ``_sacreformat`` and
  ``is_non_str_iterable``) and ``lm_eval/tasks/truthfulqa.py``'s ``TruthfulQAGeneration.bleu``,
  the published definitions compiled from the files of its wheel (the modules themselves import
  scikit-learn, ``datasets``, ``rouge_score``, which the process does not need), with sacrebleu
  1.5.0 — the release lm-eval 0.3.0 pins — first on ``sys.path``. Requests:
  ``("bleu", items)`` (lm-eval's ``(references, prediction)`` items) and
  ``("truthfulqa", completion, refs)`` (``bleu([[ref]], [completion])`` for each reference, as
  ``process_results`` calls it; lm-eval 0.0.1 has no TruthfulQA, and its ``hello`` says so).
  Answers on the 0–100 scale. :data:`LM_EVAL_INSTALLED` answers the same requests with the
  installed lm-eval (``lm_eval.api.metrics.bleu``, ``lm_eval.tasks.truthfulqa.utils.bleu``).
* :data:`NMT_BLEU`: what datasets 1.x–2.x's ``load_metric("bleu")`` ran. Its
  ``metrics/bleu/bleu.py`` is in neither a datasets wheel nor its sdist (``load_metric`` fetched
  it from GitHub); it hands the caller's token lists to tensorflow/nmt's ``compute_bleu`` in the
  ``nmt_bleu.py`` beside it, the same file evaluate's Hub ``bleu`` module ships. That file, from
  the module folder ``$BLEU_HARNESS_EVALUATE_MODULE`` names, is run on ``str.split()`` token
  lists, as ``_compute`` calls it. :data:`EVALUATE_BLEU`: ``evaluate.load(<that folder>)``
  (the installed evaluate), whose ``compute`` tokenizes the strings with its 13a. Request:
  ``(hyps, refs, smooth)``; answer 0–1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.bleu.profiles import VERIFICATION

__all__ = [
    "EVALUATE_BLEU",
    "IGNITE",
    "LM_EVAL",
    "LM_EVAL_INSTALLED",
    "NMT_BLEU",
    "PEERS",
    "PEER_DRIVER",
    "PEER_SERVER",
    "SETUP_ENV",
    "TORCHMETRICS",
    "TREE_ENV",
    "Corpus",
    "PeerLibrary",
]

#: The environment variables a setup is given: its text, and the folder it reads files from.
SETUP_ENV, TREE_ENV = "PEER_RELEASE_SETUP", "PEER_RELEASE_TREE"

#: A corpus as plain data: hypotheses, and each segment's references.
Corpus = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]

#: A process serving a setup's requests as they are: its ``hello()`` on the first line, then
#: one line of answers per line of requests (an exception as ``{"error", "message"}``).
PEER_SERVER = """
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
tree = os.environ.get("PEER_RELEASE_TREE")
if tree:
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
import inspect
import ignite
from ignite.metrics.nlp import Bleu
# from 0.4.7 on, update takes a batch of segments (and Bleu an average)
batched = "average" in inspect.signature(Bleu.__init__).parameters

def hello():
    return {"version": ignite.__version__, "file": ignite.__file__}

def call(request):
    hyps, refs, kwargs = request
    metric = Bleu(**kwargs)
    segments = []
    for h, r in zip(hyps, refs):
        if batched:
            metric.update(([h], [r]))
            segments.append(float(metric._sentence_bleu(references=r, candidates=h)))
        else:
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

LM_EVAL_INSTALLED = """
import lm_eval
import lm_eval.api.metrics as metrics
import lm_eval.tasks.truthfulqa.utils as tqa
import sacrebleu

def hello():
    return {"version": sacrebleu.__version__, "file": metrics.__file__, "truthfulqa": True}

def call(request):
    if request[0] == "bleu":
        return {"score": float(metrics.bleu([(list(r), h) for r, h in request[1]]))}
    completion, refs = request[1], request[2]
    scores = []
    for ref in refs:
        try:
            scores.append({"score": float(tqa.bleu([[ref]], [completion]))})
        except Exception as exc:
            scores.append({"error": type(exc).__name__, "message": str(exc)})
    return {"scores": scores}
"""

NMT_BLEU = """
import importlib.util, os
path = os.path.join(os.environ["PEER_RELEASE_TREE"], "nmt_bleu.py")
spec = importlib.util.spec_from_file_location("nmt_bleu", path)
nmt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nmt)

def hello():
    return {"file": nmt.__file__}

def call(request):
    hyps, refs, smooth = request
    return {"score": float(nmt.compute_bleu(
        reference_corpus=[[r.split() for r in seg] for seg in refs],
        translation_corpus=[h.split() for h in hyps], max_order=4, smooth=smooth)[0])}
"""

EVALUATE_BLEU = """
import os
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
import evaluate
module = evaluate.load(os.environ["PEER_RELEASE_TREE"])

def hello():
    return {"version": evaluate.__version__, "file": evaluate.__file__}

def call(request):
    hyps, refs, smooth = request
    got = module.compute(predictions=list(hyps), references=[list(r) for r in refs], smooth=smooth)
    return {"score": float(got["bleu"])}
"""

#: A drift-report process: the setup, then the library's adapter (which defines ``CALLS``: call
#: name → ``fn(hypotheses, references)`` → answer, and may name the calls the release lacks
#: in ``ABSENT``), then ``hello`` with those named.
PEER_DRIVER = """
import os
ns = {"__name__": "setup"}
exec(os.environ["PEER_RELEASE_SETUP"], ns)
call = ns["call"]
hello = ns["hello"]()
ABSENT = []
exec(os.environ["PEER_RELEASE_ADAPTER"])
hello["absent"] = list(ABSENT)
print(json.dumps(hello), flush=True)
"""

_TORCHMETRICS_ADAPTER = """
def sacre(kwargs):
    def run(hyps, refs):
        return {"score": 100 * call([list(hyps), [list(r) for r in refs], kwargs])["score"]}
    return run

CALLS = {"sacre_bleu_score": sacre({}), "sacre_bleu_score lowercase": sacre({"lowercase": True})}
"""

_IGNITE_ADAPTER = """
def bleu(hyps, refs):
    got = call([[h.split() for h in hyps], [[x.split() for x in r] for r in refs], {}])
    return {"score": 100 * got["score"]}

CALLS = {"Bleu": bleu}
"""

_LM_EVAL_ADAPTER = """
import numpy as np

def bleu(hyps, refs):
    return call(["bleu", [[list(r), h] for h, r in zip(hyps, refs)]])

def bleu_max(hyps, refs):
    out = []
    for h, r in zip(hyps, refs):
        scores = call(["truthfulqa", h, list(r)])["scores"]
        raised = [s for s in scores if "error" in s]
        if raised:
            return raised[0]
        out.append(float(np.nanmax([s["score"] for s in scores])))
    return {"scores": out}

CALLS = {"bleu": bleu, "TruthfulQA bleu_max": bleu_max}
if not hello.get("truthfulqa"):
    ABSENT.append("TruthfulQA bleu_max")
"""

_DATASETS_ADAPTER = """
def compute(smooth):
    def run(hyps, refs):
        return {"score": 100 * call([list(hyps), [list(r) for r in refs], smooth])["score"]}
    return run

CALLS = {"compute": compute(False), "compute smooth=True": compute(True)}
"""


@dataclass(frozen=True)
class PeerLibrary:
    """How the drift report runs releases of library ``name``: the wheels in the release folder
    whose file names begin with ``stem`` (none for datasets: :data:`NMT_BLEU`), the installed
    distribution ``installed`` it compares them with, the setups run for an old release
    (``release_setup``) and for the installed one (``installed_setup``), the ``adapter`` that
    answers the report's ``calls`` (name → the call in the library's own words), scores within
    ``points`` (BLEU points) taken as one answer, the corpora where the releases are known to
    differ (``edges``), what is run in words (``what``) and how the folder is filled (``fill``)."""

    name: str
    stem: str
    installed: str
    release_setup: str
    installed_setup: str
    adapter: str
    calls: Mapping[str, str]
    points: float
    edges: tuple[Corpus, ...]
    what: str
    fill: str
    #: releases a release needs beside itself: (wheel file-name stem, version)
    needs: tuple[tuple[str, str], ...] = ()


def _corpora(*pairs: tuple[list[str], list[list[str]]]) -> tuple[Corpus, ...]:
    return tuple((tuple(h), tuple(tuple(r) for r in refs)) for h, refs in pairs)


#: Lines whose first or last character is a mark beside a digit: unpadded 13a keeps them glued.
TORCHMETRICS_EDGES = _corpora(
    (["The cat is 5."], [["The cat is 5 ."]]),
    (["It cost 5."], [["It cost 5 ."]]),
    ([".5 a b c"], [[". 5 a b c"]]),
    ([",3 a b c"], [[", 3 a b c"]]),
    (["in 1990, a b c d 7,"], [["in 1990 , a b c d 7 ,"]]),
    (["The cat sat on the mat ."] * 3, [["The cat sat on the mat."]] * 3),
    (["a b c d 5. "], [["a b c d 5 ."]]),  # not at the end: the space follows
    (["a b c d 5.\n"], [["a b c d 5 ."]]),
)

#: Segments given no reference, empty hypotheses and references.
IGNITE_EDGES = _corpora(
    (["a b c d"], [[]]),  # no reference: 0 (today's release raises ValueError)
    (["a b c d", "a b c d"], [["a b c d"], []]),
    ([""], [[]]),
    ([""], [["a"]]),
    (["a b c d"], [[""]]),
    (["a b c d e"], [["a b c d e f"]]),
)

_CAT = "the cat sat on the mat today"
#: Ragged references cut to the fewest, empty references left out after the cut, a segment
#: left without any (``EOFError``), nothing matching.
LM_EVAL_EDGES = _corpora(
    ([_CAT], [["a dog ran in one park"]]),  # nothing matches: still scores
    ([_CAT, _CAT], [["a dog ran"], ["in the park now"]]),
    ([_CAT], [[""]]),  # all references empty: EOFError
    ([_CAT, "a b"], [[_CAT], ["", ""]]),
    ([_CAT, "a b"], [[_CAT, ""], ["a b"]]),  # the empty one is cut before it is dropped
    ([_CAT, "a b"], [["", _CAT], ["a b"]]),  # cut to the empty one: EOFError
    ([_CAT, "a b"], [["", _CAT], ["a b", "x"]]),  # the empty one left out after the cut
    (["a b c d"], [["a b c d e f g h i", ""]]),  # an empty reference is never the closest
    (["", _CAT], [["a"], [_CAT]]),
    ([""], [[""]]),
)

#: Marks glued to words: ``str.split`` keeps them, 13a splits them off.
DATASETS_EDGES = _corpora(
    (["The cat sat on the mat."], [["The cat sat on the mat ."]]),
    (["a b c"], [[""]]),
    ([""], [["a b"]]),
    (["3.5 e-mail, x"], [["3.5 e-mail , x"]]),
)

_PEER_TESTS = "pytest tests/test_profile_peer_releases.py"

#: The libraries whose releases the drift report runs through a setup, by the name it is given.
PEERS: Mapping[str, PeerLibrary] = {
    "torchmetrics": PeerLibrary(
        name="torchmetrics",
        stem="torchmetrics",
        installed="torchmetrics",
        release_setup=TORCHMETRICS,
        installed_setup=TORCHMETRICS,
        adapter=_TORCHMETRICS_ADAPTER,
        calls={
            "sacre_bleu_score": "torchmetrics.functional.text.sacre_bleu.sacre_bleu_score(preds, "
            "target), what SacreBLEUScore computes",
            "sacre_bleu_score lowercase": "sacre_bleu_score(preds, target, lowercase=True)",
        },
        points=VERIFICATION["torchmetrics-sacrebleu"].tolerance,
        edges=TORCHMETRICS_EDGES,
        what="torchmetrics 0.6–0.11 does not import on this Python (its __init__ imports "
        "pkg_resources): its functional/text/bleu.py and sacre_bleu.py are run from the "
        "published wheel with their own imports, the packages above them stubbed; its "
        "arithmetic is float32, so scores within "
        f"{VERIFICATION['torchmetrics-sacrebleu'].tolerance:g} BLEU points are one answer",
        fill=f"{_PEER_TESTS} downloads 0.11.4 and 1.0.0 (0.6.0, 0.8.2, 1.0.3 at "
        "BLEU_HARNESS_TEST_DEPTH=full) into the folder",
    ),
    "ignite": PeerLibrary(
        name="ignite",
        stem="pytorch_ignite",
        installed="pytorch-ignite",
        release_setup=IGNITE,
        installed_setup=IGNITE,
        adapter=_IGNITE_ADAPTER,
        calls={
            "Bleu": "ignite.metrics.nlp.Bleu(): update((hypothesis, references)) each segment on "
            "str.split tokens, then compute() (the mean of the segments' BLEU)"
        },
        points=VERIFICATION["ignite"].tolerance,
        edges=IGNITE_EDGES,
        what="pytorch-ignite imported whole from the published wheel, with the installed torch; "
        "from 0.4.7 on its arithmetic is float32, so scores within "
        f"{VERIFICATION['ignite'].tolerance:g} BLEU points are one answer",
        fill=f"{_PEER_TESTS} downloads 0.4.5 (0.4.6 at BLEU_HARNESS_TEST_DEPTH=full) into the "
        "folder",
    ),
    "lm-eval": PeerLibrary(
        name="lm-eval",
        stem="lm_eval",
        installed="lm-eval",
        release_setup=LM_EVAL,
        installed_setup=LM_EVAL_INSTALLED,
        adapter=_LM_EVAL_ADAPTER,
        calls={
            "bleu": "lm_eval metrics bleu(items) on (references, prediction) items",
            "TruthfulQA bleu_max": "TruthfulQA's bleu([[ref]], [completion]) for each reference "
            "alone, the best per question (np.nanmax), each segment",
        },
        points=1e-9,
        edges=LM_EVAL_EDGES,
        what="lm-eval ≤ 0.3's lm_eval/metrics.py bleu and TruthfulQAGeneration.bleu compiled "
        "from the published wheel's files (the modules import packages these functions do not "
        "use), with sacrebleu 1.5.0, the release they pin, first on sys.path; the installed "
        "lm-eval imported as usual, with the installed sacrebleu",
        fill="pytest tests/test_profile_lm_eval_releases.py downloads 0.3.0 and sacrebleu 1.5.0 "
        "(0.0.1 and 0.2.0 at BLEU_HARNESS_TEST_DEPTH=full) into the folder",
        needs=(("sacrebleu", "1.5.0"),),
    ),
    "datasets": PeerLibrary(
        name="datasets",
        stem="",
        installed="evaluate",
        release_setup=NMT_BLEU,
        installed_setup=EVALUATE_BLEU,
        adapter=_DATASETS_ADAPTER,
        calls={
            "compute": 'load_metric("bleu").compute(predictions, references): datasets on '
            'str.split() token lists, evaluate.load("bleu") on the strings',
            "compute smooth=True": "the same with smooth=True",
        },
        points=1e-9,
        edges=DATASETS_EDGES,
        what="datasets 1.x–2.x's bleu.py is in no datasets wheel (load_metric fetched it from "
        "GitHub); it handed the caller's token lists to tensorflow/nmt's compute_bleu in "
        "nmt_bleu.py, the file evaluate's Hub bleu module ships beside its bleu.py: that "
        "nmt_bleu.py (from $BLEU_HARNESS_EVALUATE_MODULE) is run on str.split() tokens, as "
        "datasets' _compute called it, beside evaluate.load of the same folder with the "
        "installed evaluate",
        fill="set BLEU_HARNESS_EVALUATE_MODULE to the folder of the Hub's bleu module (bleu.py, "
        "nmt_bleu.py, tokenizer_13a.py)",
    ),
}

#: The version the drift report gives datasets' ``load_metric("bleu")``: the releases whose
#: ``load_metric`` fetched the same ``bleu.py``.
DATASETS_RELEASE = "1.x–2.x"
