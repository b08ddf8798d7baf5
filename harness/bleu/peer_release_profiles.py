"""Versioned profiles of the libraries beside sacrebleu: torchmetrics, pytorch-ignite, the
``load_metric("bleu")`` of Hugging Face ``datasets`` and lm-evaluation-harness, where an older
release gives another number than today's.

Each is named ``<profile>@<release>``, states the releases it covers, is run only when named and
says its release in its signature (``release:torchmetrics=0.6.0..0.11.4``), as the sacrebleu
ones (:mod:`harness.bleu.release_profiles`). Every difference from today's release is a factor
of the engine, measured by running the releases themselves
(``tests/test_profile_peer_releases.py``, ``tests/test_profile_lm_eval_releases.py``):

* ``torchmetrics-sacrebleu@0.11``: ``SacreBLEUScore`` of torchmetrics 0.6.0–0.11.4 runs its
  port of sacrebleu's 13a without mteval's padding of the line, so a ``.`` or ``,`` at either
  end of the line is glued to a digit beside it (a line-final ``5.`` is one token):
  ``tokenize="13a-unpadded"``;
* ``ignite@0.4.5``: pytorch-ignite 0.4.5–0.4.6's ``Bleu`` returns 0 for a segment without
  references before it looks for their lengths (0.4.7 on raise ``ValueError``, ``min`` of an
  empty sequence): ``missing_refs="empty-if-none"``. Its arithmetic is in Python floats (no
  float32 division), so it is proven at 1e-9;
* ``datasets@2``: ``datasets.load_metric("bleu")`` of datasets 1.0.0–2.21.0 is the same
  tensorflow/nmt ``compute_bleu`` as ``evaluate.load("bleu")``, on token lists the caller makes
  (the metric takes lists of tokens, and users passed ``str.split()``), where the evaluate
  module tokenizes strings with 13a: ``tokenize="whitespace"``;
* ``lm-eval@0.3``: lm-eval 0.0.1–0.3.0's ``bleu`` (``lm_eval/metrics.py``, the same definitions
  in the three releases, each pinning ``sacrebleu==1.5.0``): its ``_sacreformat`` cuts every
  segment to the fewest references (``zip(*refs)``, as today's), then sacrebleu 1.5.0 leaves
  out the empty references and raises ``EOFError`` on a segment left without any:
  ``missing_refs="truncate-drop-empty-eof"``; and 1.5.0 has no zero-match rule (nothing
  matching still scores): ``zero_guard="none"``;
* ``lm-eval-truthfulqa@0.3``: ``TruthfulQAGeneration.bleu`` of lm-eval 0.2.0–0.3.0 (0.0.1
  has no TruthfulQA) scores each reference alone with sacrebleu 1.5.0, which raises
  ``EOFError`` on an empty one: ``missing_refs="drop-empty-eof"`` (under
  ``aggregation="best-ref-mean"`` every empty reference is refused), ``zero_guard="none"``.

Both run sacrebleu 1.5.0's ``intl`` where they tokenize with ``intl`` (``intl-1.x``: Python's
``unicodedata`` tables, a backslash never split off; :data:`~harness.bleu.sacrebleu_tokenizers.INTL_1X`):
``lm-eval-truthfulqa@0.3`` always, ``lm-eval@0.3`` under ``tokenize="intl"``.

Known divergence of ``lm-eval-truthfulqa@0.3``: as for the sacrebleu 1.5 profiles, a segment
whose references all have no tokens but are not ``""`` (spaces only) is refused where the
release scores it.
"""

from __future__ import annotations

import dataclasses

from harness.bleu.config import BleuConfig
from harness.bleu.profile_spec import EVALUATE, REF_IMPLS, Profile, Verification, release_extra
from harness.bleu.sacrebleu_tokenizers import INTL_1X

_LM_EVAL_ORACLE = (
    "lm-eval {version} {what} (its definitions compiled from the published files) with "
    "sacrebleu 1.5.0, the release it pins, in a process of its own; {also} under "
    "BLEU_HARNESS_TEST_DEPTH=full"
)
_NO_ZERO_RULE = "no zero-match rule: nothing matching still scores"

__all__ = ["PEER_RELEASE_PROFILES"]

_TESTS = "tests/test_profile_peer_releases.py"
_LM_EVAL_TESTS = "tests/test_profile_lm_eval_releases.py"

#: The versioned profiles of torchmetrics, pytorch-ignite, datasets and lm-eval.
PEER_RELEASE_PROFILES: tuple[Profile, ...] = (
    Profile(
        "torchmetrics-sacrebleu@0.11",
        BleuConfig(
            tokenize="13a-unpadded",
            smooth="none",
            ref_length="closest-first",
            zero_guard="any-order",
            strip="none",
            lowercase_rule="unicode-after",
            library="torchmetrics",
            extra=release_extra("torchmetrics", "0.6.0", "0.11.4"),
        ),
        Verification(
            "verified",
            "torchmetrics 0.11.4 sacre_bleu_score (float32; its text BLEU modules run from the "
            "release in a process of their own; 0.6.0, 0.8.2 under BLEU_HARNESS_TEST_DEPTH=full)",
            _TESTS,
            tolerance=1e-4,
        ),
        reproduces="`SacreBLEUScore` of torchmetrics 0.6.0–0.11.4",
        tokens=(
            "13a on the raw string **without mteval's padding** (`13a-unpadded`: a line-final "
            "`5.` stays one token), lowercased after tokenizing"
        ),
        ref_length="closest, ties to first",
        smoothing="as torchmetrics",
        short="tmsb@0.11",
        releases="0.6.0–0.11.4",
        versioned=True,
    ),
    Profile(
        "ignite@0.4.5",
        BleuConfig(
            tokenize="whitespace",
            smooth="none",
            ref_length="closest",
            zero_guard="any-order",
            aggregation="sentence-mean",
            missing_refs="empty-if-none",
            library="ignite",
            extra=release_extra("ignite", "0.4.5", "0.4.6"),
        ),
        Verification(
            "verified",
            "pytorch-ignite 0.4.5 ignite.metrics.nlp.Bleu (the release in a process of its own; "
            "0.4.6 under BLEU_HARNESS_TEST_DEPTH=full)",
            _TESTS,
        ),
        reproduces="pytorch-ignite 0.4.5–0.4.6 `Bleu()` (`update` per segment: the mean of "
        "sentence BLEU)",
        tokens="whitespace",
        ref_length=(
            "closest, ties shorter; a segment without references scores 0 "
            '(`missing_refs="empty-if-none"`)'
        ),
        smoothing="`no_smooth`: 0 if any order has no match",
        short="ig@0.4.5",
        releases="0.4.5–0.4.6",
        versioned=True,
    ),
    Profile(
        "datasets@2",
        dataclasses.replace(
            EVALUATE,
            tokenize="whitespace",
            library="datasets",
            extra=release_extra("datasets", "1.0.0", "2.21.0"),
        ),
        Verification(
            "verified",
            "tensorflow/nmt compute_bleu as datasets' metrics/bleu/bleu.py calls it (the copy "
            f"in {REF_IMPLS}/hf-evaluate/bleu/nmt_bleu.py) on str.split() token lists",
            _TESTS,
        ),
        reproduces=(
            '`datasets.load_metric("bleu")` of datasets 1.0.0–2.21.0 on `str.split()` tokens'
        ),
        tokens="whitespace (the caller's `str.split()`; the metric takes token lists)",
        ref_length="shortest",
        smoothing="none (`smooth=True` = +1 on every order); raises on zero length",
        short="ds@2",
        releases="1.0.0–2.21.0",
        versioned=True,
    ),
    Profile(
        "lm-eval@0.3",
        BleuConfig(
            missing_refs="truncate-drop-empty-eof",
            zero_guard="none",
            library="lm-eval",
            extra=release_extra("lm-eval", "0.0.1", "0.3.0"),
        ),
        Verification(
            "verified",
            _LM_EVAL_ORACLE.format(
                version="0.3.0", what="lm_eval/metrics.py bleu + _sacreformat", also="0.0.1, 0.2.0"
            ),
            _LM_EVAL_TESTS,
        ),
        reproduces="lm-evaluation-harness 0.0.1–0.3.0 `bleu` (`_sacreformat` + sacrebleu 1.5.0)",
        tokens="13a",
        ref_length=(
            "closest; ragged refs **truncated to the fewest**, then an empty reference is left "
            'out, none left raises `EOFError` (`missing_refs="truncate-drop-empty-eof"`)'
        ),
        smoothing=f"exp; {_NO_ZERO_RULE}",
        short="lm@0.3",
        releases="0.0.1–0.3.0",
        versioned=True,
    ),
    Profile(
        "lm-eval-truthfulqa@0.3",
        BleuConfig(
            tokenize=INTL_1X,
            aggregation="best-ref-mean",
            missing_refs="drop-empty-eof",
            zero_guard="none",
            library="lm-eval",
            extra=release_extra("lm-eval", "0.2.0", "0.3.0"),
        ),
        Verification(
            "verified",
            _LM_EVAL_ORACLE.format(
                version="0.3.0",
                what="lm_eval/tasks/truthfulqa.py TruthfulQAGeneration.bleu",
                also="0.2.0",
            ),
            _LM_EVAL_TESTS,
        ),
        reproduces=(
            "TruthfulQA `bleu_max` of lm-evaluation-harness 0.2.0–0.3.0 (each reference alone, "
            '`tokenize="intl"`, sacrebleu 1.5.0)'
        ),
        tokens="sacrebleu 1.5.0's intl (`intl-1.x`: a backslash stays glued to its neighbours)",
        ref_length=(
            'each reference alone (`aggregation="best-ref-mean"`); an empty reference raises '
            '`EOFError` (`missing_refs="drop-empty-eof"`)'
        ),
        smoothing=f"exp; {_NO_ZERO_RULE}",
        short="lm-tqa@0.3",
        releases="0.2.0–0.3.0",
        versioned=True,
    ),
)
