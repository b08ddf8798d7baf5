"""Runs keras-hub's real BLEU metric for tests/test_profile_keras.py, inside the TensorFlow
environment that ``make tf-env`` builds (``.venv-tf``); it never imports the harness.

Importing TensorFlow takes seconds, so one process serves a whole test module: it reads one
JSON request per line on stdin and writes one JSON answer per line on stdout.

* ``{"op": "bleu", "hyps": [...], "refs": [[...], ...]}``: a fresh ``keras_hub.metrics.Bleu()``
  (default tokenizer and arguments) gets ``update_state(refs, hyps)`` once (references as a
  ragged string tensor, since segments may have different numbers of references) and
  answers ``{"score": result, "hyp_len": ..., "ref_len": ...}`` on keras-hub's 0-1 scale,
  the float32 result widened to a double (nan and inf are written as JSON's NaN/Infinity).
* ``{"op": "tokens", "lines": [...]}``: the metric's own default tokenizer
  (``Bleu._tokenizer``) on a string tensor: ``{"tokens": [[token, ...], ...]}``.
* ``{"op": "versions"}``: the versions of the packages that answer.

An exception becomes ``{"error": "<type>: <message>"}`` and the worker goes on.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import keras_hub
import numpy as np
import tensorflow as tf


def _bleu(hyps: list[str], refs: list[list[str]]) -> dict[str, Any]:
    metric = keras_hub.metrics.Bleu()
    metric.update_state(tf.ragged.constant(refs, dtype=tf.string), tf.constant(hyps, tf.string))
    return {
        "score": float(metric.result()),
        "hyp_len": float(metric._translation_length.numpy()),
        "ref_len": float(metric._reference_length.numpy()),
    }


def _tokens(lines: list[str]) -> dict[str, Any]:
    metric = keras_hub.metrics.Bleu()
    ragged = metric._tokenizer(tf.constant(lines, dtype=tf.string))
    return {"tokens": [[t.decode("utf-8") for t in row] for row in ragged.to_list()]}


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    op = request["op"]
    if op == "bleu":
        return _bleu(request["hyps"], request["refs"])
    if op == "tokens":
        return _tokens(request["lines"])
    if op == "versions":
        return {
            "keras-hub": keras_hub.__version__,
            "keras": keras.__version__,
            "tensorflow": tf.__version__,
            "numpy": np.__version__,
        }
    raise ValueError(f"unknown op {op!r}")


def main() -> None:
    for line in sys.stdin:
        try:
            answer = _answer(json.loads(line))
        except Exception as exc:  # reported to the test, which decides what it means
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
