"""Versioned profiles: the defaults of older sacrebleu releases, where their number differs.

Each profile is named ``<profile>@<release>`` (``sacrebleu@1.4`` is ``corpus_bleu`` of
sacrebleu 1.3.1–1.4.14, ``sacrebleu-sentence@1.4`` its ``sentence_bleu``), states the releases
it covers (:attr:`~harness.bleu.profile_spec.Profile.releases`), is run only when named, and
says its release in its signature (``release:sacrebleu=1.3.1..1.4.14``). Every difference from
today's release is a factor of the engine, measured by running the releases themselves
(``tests/test_profile_sacrebleu_releases.py``):

* no zero-match rule before 2.0.0: a corpus whose hypotheses match no reference n-gram still
  scores (exp smoothing gives every order a precision): ``zero_guard="none"``;
* ``sentence_bleu`` smoothing: ``floor`` 0.01 in 1.2.x, ``floor`` 0 (unsmoothed) in
  1.3.1–1.4.14, then ``exp``, always with effective order; before 1.4.0 it takes one
  reference string;
* references: up to 1.4.14 the reference streams are read with ``zip_longest``, so a missing
  reference (``None``) raises ``EOFError`` (``missing_refs="refuse-eof"``); 1.5.x and
  2.0.0–2.1.0 leave out a reference that is the empty string, as a missing one, and raise on a
  segment left without any (``EOFError``, ``RuntimeError``: ``missing_refs="drop-empty-eof"``,
  ``"drop-empty"``); from 2.2.0 an empty reference counts, with length 0.

Not covered: ``tokenize="intl"`` of 1.2.x, which does not split ``\\`` (its character class
reads ``\\]`` as an escaped bracket); the profiles reproduce the default 13a tokenizer.
"""

from __future__ import annotations

from harness.bleu.config import BleuConfig
from harness.bleu.profile_spec import Profile, Verification, release_extra

__all__ = ["RELEASE_PROFILES"]

_TESTS = "tests/test_profile_sacrebleu_releases.py"


def _oracle(call: str, tested: str, also: str) -> str:
    return (
        f"sacrebleu {tested} {call} (the release from the package index, run in a process of "
        f"its own; {also} under BLEU_HARNESS_TEST_DEPTH=full)"
    )


def _corpus(
    tag: str,
    span: tuple[str, str],
    releases: str,
    tested: str,
    also: str,
    *,
    zero_guard: str,
    missing_refs: str,
    ref_length: str,
    smoothing: str,
) -> Profile:
    return Profile(
        f"sacrebleu@{tag}",
        BleuConfig(
            tokenize="13a",
            smooth="exp",
            ref_length="closest",
            zero_guard=zero_guard,
            missing_refs=missing_refs,
            library="sacrebleu",
            extra=release_extra("sacrebleu", *span),
        ),
        Verification("verified", _oracle("corpus_bleu", tested, also), _TESTS),
        reproduces=f"sacrebleu {releases} `corpus_bleu` (`BLEU().corpus_score`)",
        tokens="13a",
        ref_length=ref_length,
        smoothing=smoothing,
        short=f"sb@{tag}",
        releases=releases,
        versioned=True,
    )


def _sentence(
    tag: str,
    span: tuple[str, str],
    releases: str,
    tested: str,
    also: str,
    *,
    smooth: str,
    smooth_value: float | None,
    zero_guard: str,
    missing_refs: str,
    ref_length: str,
    smoothing: str,
) -> Profile:
    return Profile(
        f"sacrebleu-sentence@{tag}",
        BleuConfig(
            tokenize="13a",
            smooth=smooth,
            smooth_value=smooth_value,
            ref_length="closest",
            zero_guard=zero_guard,
            effective_order=True,
            missing_refs=missing_refs,
            aggregation="sentence-mean",
            library="sacrebleu",
            extra=release_extra("sacrebleu", *span),
        ),
        Verification("verified", _oracle("sentence_bleu", tested, also), _TESTS),
        reproduces=f"sacrebleu {releases} `sentence_bleu` defaults, averaged",
        tokens="13a",
        ref_length=ref_length,
        smoothing=smoothing,
        short=f"sbsent@{tag}",
        releases=releases,
        versioned=True,
    )


_RAGGED_EOF = "closest; a missing reference (`None`) raises `EOFError` (`refuse-eof`)"
_ONE_REF = "closest; one reference (the release takes a string)"
_DROP = "closest; an empty reference is left out, none left raises `{}` (`{}`)"
_NO_GUARD = "no zero-match rule: nothing matching still scores"

#: The versioned sacrebleu profiles, oldest first: corpus, then sentence, per release range.
RELEASE_PROFILES: tuple[Profile, ...] = (
    _corpus(
        "1.2",
        ("1.2.10", "1.2.21"),
        "1.2.10–1.2.21",
        "1.2.20",
        "1.2.12, 1.2.21",
        zero_guard="none",
        missing_refs="refuse-eof",
        ref_length=_RAGGED_EOF,
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        "1.2",
        ("1.2.10", "1.2.21"),
        "1.2.10–1.2.21",
        "1.2.20",
        "1.2.12, 1.2.21",
        smooth="floor",
        smooth_value=0.01,
        zero_guard="none",
        missing_refs="skip",
        ref_length=_ONE_REF,
        smoothing=f"floor 0.01, effective order; {_NO_GUARD}",
    ),
    _corpus(
        "1.4",
        ("1.3.1", "1.4.14"),
        "1.3.1–1.4.14",
        "1.4.14",
        "1.3.1, 1.3.7, 1.4.0, 1.4.4, 1.4.10",
        zero_guard="none",
        missing_refs="refuse-eof",
        ref_length=_RAGGED_EOF,
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        "1.4",
        ("1.3.1", "1.4.14"),
        "1.3.1–1.4.14",
        "1.4.14",
        "1.3.1, 1.3.7, 1.4.0, 1.4.4, 1.4.10",
        smooth="floor",
        smooth_value=0.0,
        zero_guard="none",
        missing_refs="skip",
        ref_length="closest (1.3.x: one reference, a string)",
        smoothing="floor 0 (unsmoothed: an order without a match scores 0), effective order",
    ),
    _corpus(
        "1.5",
        ("1.5.0", "1.5.1"),
        "1.5.0–1.5.1",
        "1.5.1",
        "1.5.0",
        zero_guard="none",
        missing_refs="drop-empty-eof",
        ref_length=_DROP.format("EOFError", "drop-empty-eof"),
        smoothing=f"exp; {_NO_GUARD}",
    ),
    _sentence(
        "1.5",
        ("1.5.0", "1.5.1"),
        "1.5.0–1.5.1",
        "1.5.1",
        "1.5.0",
        smooth="exp",
        smooth_value=None,
        zero_guard="none",
        missing_refs="drop-empty-eof",
        ref_length=_DROP.format("EOFError", "drop-empty-eof"),
        smoothing=f"exp, effective order; {_NO_GUARD}",
    ),
    _corpus(
        "2.0",
        ("2.0.0", "2.1.0"),
        "2.0.0–2.1.0",
        "2.0.0",
        "2.1.0",
        zero_guard="unigram",
        missing_refs="drop-empty",
        ref_length=_DROP.format("RuntimeError", "drop-empty"),
        smoothing="exp; 0 if no unigram matches",
    ),
    _sentence(
        "2.0",
        ("2.0.0", "2.1.0"),
        "2.0.0–2.1.0",
        "2.0.0",
        "2.1.0",
        smooth="exp",
        smooth_value=None,
        zero_guard="unigram",
        missing_refs="drop-empty",
        ref_length=_DROP.format("RuntimeError", "drop-empty"),
        smoothing="exp, effective order",
    ),
)
