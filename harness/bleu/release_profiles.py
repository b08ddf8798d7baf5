"""Versioned profiles: the defaults of older sacrebleu releases, where their number differs.

Each profile is named ``<profile>@<release>`` (``sacrebleu@1.4`` is ``corpus_bleu`` of
sacrebleu 1.3.1–1.4.14, ``sacrebleu-sentence@1.4`` its ``sentence_bleu``), states the releases
it covers (:attr:`~harness.bleu.profile_spec.Profile.releases`), is run only when named, and
says its release in its signature (``release:sacrebleu=1.3.1..1.4.14``). Every difference from
today's release is a factor of the engine, measured by running the releases themselves
(``tests/test_profile_sacrebleu_releases.py``):

* no zero-match rule before 2.0.0: a corpus whose hypotheses match no reference n-gram still
  scores (exp smoothing gives every order a precision): ``zero_guard="none"``;
* ``sentence_bleu`` smoothing: ``floor`` 0.01 in 1.2.11–1.2.21, ``floor`` 0 (unsmoothed) in
  1.3.1–1.4.14, then ``exp``, always with effective order; up to 1.4.0 it takes one
  reference string, and 1.4.1–1.4.10 hand its references to ``corpus_bleu`` as reference
  streams (``[[ref], …]``; a list of strings raises ``EOFError`` there);
* references: up to 1.4.14 the reference streams are read with ``zip_longest``, so a missing
  reference (``None``) raises ``EOFError`` (``missing_refs="refuse-eof"``); 1.5.x and
  2.0.0–2.1.0 leave out a reference that is the empty string, as a missing one, and raise on a
  segment left without any (``EOFError``, ``RuntimeError``: ``missing_refs="drop-empty-eof"``,
  ``"drop-empty"``); from 2.2.0 an empty reference counts, with length 0.

Known divergence: the refusal is read from the statistics, so a segment whose references all
have no tokens but are not all ``""`` (spaces only) is refused where 1.5.x–2.1.0 score it with
reference length 0 (:func:`harness.bleu.refusals.empty_references_refusal`).

Tokenizers: the default 13a is today's in every release; ``intl`` up to 1.5.1 is ``intl-1.x``
(Python's ``unicodedata`` tables, where a backslash is no mark: its character class reads
``\\]`` as an escaped bracket; :data:`~harness.bleu.sacrebleu_tokenizers.INTL_1X`), which the
profiles of those releases run for ``tokenize="intl"``
(:func:`~harness.bleu.profile_spec.release_tokenizer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.bleu.config import BleuConfig
from harness.bleu.profile_spec import Profile, Verification, release_extra

__all__ = ["RELEASE_PROFILES"]

_TESTS = "tests/test_profile_sacrebleu_releases.py"


@dataclass(frozen=True)
class _Range:
    """A range of releases with the same number: its tag (``1.4``), first and last release,
    the release the tests run at every depth and the others they run at full depth."""

    tag: str
    first: str
    last: str
    tested: str
    also: str

    @property
    def releases(self) -> str:
        return f"{self.first}–{self.last}"

    def verification(self, call: str) -> Verification:
        return Verification(
            "verified",
            f"sacrebleu {self.tested} {call} (the release from the package index, run in a "
            f"process of its own; {self.also} under BLEU_HARNESS_TEST_DEPTH=full)",
            _TESTS,
        )


def _corpus(r: _Range, factors: dict[str, Any], *, ref_length: str, smoothing: str) -> Profile:
    """``corpus_bleu`` of the releases ``r``: today's ``sacrebleu`` profile with ``factors``."""
    return Profile(
        f"sacrebleu@{r.tag}",
        BleuConfig(
            tokenize="13a",
            smooth="exp",
            ref_length="closest",
            library="sacrebleu",
            extra=release_extra("sacrebleu", r.first, r.last),
            **factors,
        ),
        r.verification("corpus_bleu"),
        reproduces=f"sacrebleu {r.releases} `corpus_bleu` (`BLEU().corpus_score`)",
        tokens="13a",
        ref_length=ref_length,
        smoothing=smoothing,
        short=f"sb@{r.tag}",
        releases=r.releases,
        versioned=True,
    )


def _sentence(r: _Range, factors: dict[str, Any], *, ref_length: str, smoothing: str) -> Profile:
    """``sentence_bleu`` of the releases ``r``, averaged: effective order with ``factors``."""
    return Profile(
        f"sacrebleu-sentence@{r.tag}",
        BleuConfig(
            tokenize="13a",
            ref_length="closest",
            effective_order=True,
            aggregation="sentence-mean",
            library="sacrebleu",
            extra=release_extra("sacrebleu", r.first, r.last),
            **factors,
        ),
        r.verification("sentence_bleu"),
        reproduces=f"sacrebleu {r.releases} `sentence_bleu` defaults, averaged",
        tokens="13a",
        ref_length=ref_length,
        smoothing=smoothing,
        short=f"sbsent@{r.tag}",
        releases=r.releases,
        versioned=True,
    )


_V12 = _Range("1.2", "1.2.11", "1.2.21", "1.2.20", "1.2.11, 1.2.21")
_V14 = _Range("1.4", "1.3.1", "1.4.14", "1.4.14", "1.3.1, 1.3.7, 1.4.0, 1.4.4, 1.4.10, 1.4.13")
_V15 = _Range("1.5", "1.5.0", "1.5.1", "1.5.1", "1.5.0")
_V20 = _Range("2.0", "2.0.0", "2.1.0", "2.0.0", "2.1.0")

_RAGGED_EOF = "closest; a missing reference (`None`) raises `EOFError` (`refuse-eof`)"
_DROP = "closest; an empty reference is left out, none left raises `{}` (`{}`)"
_NO_GUARD = "no zero-match rule: nothing matching still scores"
_OLD = {"zero_guard": "none"}

#: The versioned sacrebleu profiles, oldest first: corpus, then sentence, per release range.
RELEASE_PROFILES: tuple[Profile, ...] = (
    _corpus(
        _V12,
        {**_OLD, "missing_refs": "refuse-eof"},
        ref_length=_RAGGED_EOF,
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        _V12,
        {**_OLD, "smooth": "floor", "smooth_value": 0.01},
        ref_length="closest; one reference (the release takes a string)",
        smoothing=f"floor 0.01, effective order; {_NO_GUARD}",
    ),
    _corpus(
        _V14,
        {**_OLD, "missing_refs": "refuse-eof"},
        ref_length=_RAGGED_EOF,
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        _V14,
        {**_OLD, "smooth": "floor", "smooth_value": 0.0},
        ref_length=(
            "closest (up to 1.4.0 one reference string; 1.4.1–1.4.10 take the references as "
            "streams, `[[ref], …]`: a list of strings raises `EOFError`)"
        ),
        smoothing="floor 0 (unsmoothed: an order without a match scores 0), effective order",
    ),
    _corpus(
        _V15,
        {**_OLD, "missing_refs": "drop-empty-eof"},
        ref_length=_DROP.format("EOFError", "drop-empty-eof"),
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        _V15,
        {**_OLD, "smooth": "exp", "missing_refs": "drop-empty-eof"},
        ref_length=_DROP.format("EOFError", "drop-empty-eof"),
        smoothing=f"exp, effective order; {_NO_GUARD}",
    ),
    _corpus(
        _V20,
        {"zero_guard": "unigram", "missing_refs": "drop-empty"},
        ref_length=_DROP.format("RuntimeError", "drop-empty"),
        smoothing="exp; 0 if no unigram matches",
    ),
    _sentence(
        _V20,
        {"zero_guard": "unigram", "smooth": "exp", "missing_refs": "drop-empty"},
        ref_length=_DROP.format("RuntimeError", "drop-empty"),
        smoothing="exp, effective order",
    ),
)
