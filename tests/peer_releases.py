"""Old releases of torchmetrics, pytorch-ignite and lm-eval, each run in a process of its own (a
helper module for tests).

The harness's environment holds today's releases; a release of 2021–2023 cannot be imported
beside them. :class:`PeerRelease` starts a Python process whose ``sys.path`` begins with the
release as published on the package index (its wheel unpacked,
:func:`tests.published.published_tree`) and runs a *setup* there: Python text that defines
``hello()`` (what was imported, from where) and ``call(request)`` (one answer). The process
answers batches of requests, one JSON line each way; an exception a call raises is answered as
``{"error": type name, "message": ...}``.

The setups (:data:`TORCHMETRICS`, :data:`IGNITE`, :data:`LM_EVAL`) and the server are the
harness's own (:mod:`harness.scorers.peer_releases`, which says what each runs), the ones
``bleu-harness releases`` runs; here each is given the release downloaded from the package
index (:mod:`tests.published`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.scorers.peer_releases import (
    IGNITE,
    LM_EVAL,
    PEER_SERVER,
    SETUP_ENV,
    TORCHMETRICS,
    TREE_ENV,
)

from .json_server import JsonLineServer
from .published import load_definitions, published_tree, unavailable


class PeerRelease(JsonLineServer):
    """A release's setup (:data:`TORCHMETRICS`, :data:`IGNITE`, :data:`LM_EVAL`) in a process of
    its own, ``trees`` first on its ``sys.path`` (the first is ``PEER_RELEASE_TREE``): call
    :meth:`run` with a batch of requests; :meth:`close` ends it."""

    def __init__(self, what: str, setup: str, trees: list[Path]) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(map(str, trees)),
            TREE_ENV: str(trees[0]),
            SETUP_ENV: setup,
        }
        super().__init__(what, PEER_SERVER, env)


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


def nmt_compute_bleu(evaluate_module: Path) -> Any:
    """tensorflow/nmt's ``compute_bleu`` from the ``nmt_bleu.py`` beside evaluate's module (what
    datasets' ``load_metric("bleu")`` imported), compiled from that file."""
    path = evaluate_module / "nmt_bleu.py"
    env = load_definitions(
        path.read_text(encoding="utf-8"),
        ["compute_bleu", "_get_ngrams"],
        imports="import collections\nimport math",
        filename=str(path),
    )
    return env["compute_bleu"]
