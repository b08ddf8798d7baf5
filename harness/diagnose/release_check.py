"""Whether the profile of each release reproduces what that release answers.

A release's call (:data:`~harness.scorers.releases.CALLS`) is what a profile of the harness
claims to reproduce: ``corpus_bleu`` of sacrebleu 1.4.14 is ``sacrebleu@1.4``, nltk's
``sentence_bleu`` with method 4 is ``nltk`` (or the versioned ``nltk@…`` of its release) with
``smooth="nltk-method4"``, scored per segment. :func:`profile_checks` scores every corpus the
releases answered with the profile of each release (:func:`release_call_profile`) and counts
where the two agree, so the drift report says which profile reproduces which releases, on how
many corpora, and where it does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from harness import api
from harness.bleu.profiles import RELEASES, profile_of_release
from harness.diagnose.validate.cases import Case
from harness.errors import HarnessError, LibraryWouldRaise
from harness.scorers.releases import Answer

__all__ = ["ProfileCheck", "profile_answer", "profile_checks", "release_call_profile"]

#: A release's call as a profile's score: the library's default profile, the overrides the
#: call's arguments stand for, and whether it is scored as a corpus or per segment.
CallProfile = tuple[str, Mapping[str, Any], str]

#: One release's answers to a call: its version, whether it is the installed release, whether
#: the call gave it each segment's first reference alone, and its answer on each corpus.
Released = tuple[str, bool, bool, Sequence[Answer]]

_CALL_PROFILES: Mapping[str, Mapping[str, CallProfile]] = {
    "sacrebleu": {
        "corpus_bleu": ("sacrebleu", {}, "corpus"),
        "sentence_bleu": ("sacrebleu-sentence", {}, "segments"),
    },
    "nltk": {
        **{
            f"{call} method{k}": ("nltk", {"smooth": f"nltk-method{k}"}, level)
            for call, level in (("corpus_bleu", "corpus"), ("sentence_bleu", "segments"))
            for k in range(8)
        },
    },
    "torchmetrics": {
        "sacre_bleu_score": ("torchmetrics-sacrebleu", {}, "corpus"),
        "sacre_bleu_score lowercase": ("torchmetrics-sacrebleu", {"lowercase": True}, "corpus"),
    },
    "ignite": {"Bleu": ("ignite", {}, "corpus")},
    "lm-eval": {
        "bleu": ("lm-eval", {}, "corpus"),
        "TruthfulQA bleu_max": ("lm-eval-truthfulqa", {}, "segments"),
    },
    "datasets": {
        "compute": ("datasets", {}, "corpus"),
        "compute smooth=True": ("datasets", {"smooth": "plus-one"}, "corpus"),
    },
}

#: The library whose profile covers the installed side of a drift report that compares a
#: library's old releases with another's (datasets' ``load_metric`` with evaluate's module).
_INSTALLED_TOOL: Mapping[str, str] = {"datasets": "evaluate"}


def release_call_profile(
    distribution: str, call: str, version: str, *, installed: bool = False
) -> CallProfile | None:
    """The profile (with overrides and level) that claims to reproduce ``call`` as release
    ``version`` of ``distribution`` answers it: the library's profile of that release
    (:func:`~harness.bleu.profiles.profile_of_release`; ``installed``: of the release the
    report compares with, for datasets evaluate's); ``None`` when no profile covers it."""
    tool, overrides, level = _CALL_PROFILES[distribution][call]
    if installed:
        tool = _INSTALLED_TOOL.get(distribution, tool)
    name = profile_of_release(tool, version)
    if name is None and installed and tool not in RELEASES:
        name = tool  # a profile without a release range is proven on the installed release
    return None if name is None else (name, overrides, level)


def profile_answer(target: CallProfile, case: Case, *, first_reference_only: bool) -> Answer:
    """The profile's answer to the call on ``case``, in the releases' form: ``{"score"}`` or
    ``{"scores"}`` (0–100), or ``{"error"}`` naming the exception the library raises where the
    profile refuses (the first refusing segment's, per segment); any other harness error is
    named as the harness's own, which no release answers."""
    name, overrides, level = target
    refs = [r[:1] for r in case.references] if first_reference_only else case.references
    kwargs = {"hypotheses": case.hypotheses, "references": refs, "profile": name, **overrides}
    try:
        if level == "corpus":
            return {"score": api.corpus_bleu(**kwargs).score}
        try:
            return {"scores": [float(x) for x in api.segment_bleu(**kwargs).score]}
        except LibraryWouldRaise:
            for h, r in zip(case.hypotheses, refs, strict=True):
                api.sentence_bleu(hypothesis=h, references=r, profile=name, **overrides)
            raise
    except LibraryWouldRaise as exc:
        return {"error": exc.library_exception, "message": exc.reason}
    except HarnessError as exc:
        return {"error": f"harness {type(exc).__name__}", "message": str(exc)}


@dataclass(frozen=True)
class ProfileCheck:
    """Profile ``profile`` (with ``overrides``; ``None``: no profile covers these releases)
    scored ``call`` on the ``cases`` corpora the consecutive releases ``releases`` answered
    (the installed release among them when ``installed``) and agreed with every one of them on
    ``agree``; ``example`` is the smallest corpus where it did not, with the release's answer
    ``theirs`` and the profile's ``ours``."""

    call: str
    releases: tuple[str, ...]
    installed: bool
    profile: str | None
    overrides: Mapping[str, Any]
    agree: int
    cases: int
    example: Case | None = None
    theirs: Answer | None = None
    ours: Answer | None = None


def profile_checks(
    distribution: str,
    call: str,
    answered: Sequence[Released],
    cases: Sequence[Case],
    same: Any,
) -> list[ProfileCheck]:
    """For each release in ``answered`` (version, whether it is the installed one, whether it
    is given first references only, its answers on ``cases``, oldest first), its profile's
    agreement with it; consecutive releases with the same profile and the same answers are
    one check. ``same`` tells two answers apart (the drift report's ``same_answer``)."""
    memo: dict[tuple[Any, ...], list[Answer]] = {}
    out: list[ProfileCheck] = []
    before: Sequence[Answer] = ()
    for answers in answered:
        version, installed, _, got = answers
        check = _check(distribution, call, answers, cases, same, memo)
        alike = len(before) == len(got) and all(map(same, before, got))
        if out and alike and out[-1].profile == check.profile and out[-1].agree == check.agree:
            last = out[-1]
            out[-1] = replace(
                last, releases=(*last.releases, version), installed=last.installed or installed
            )
        else:
            out.append(check)
        before = got
    return out


def _check(
    distribution: str,
    call: str,
    answers: Released,
    cases: Sequence[Case],
    same: Any,
    memo: dict[tuple[Any, ...], list[Answer]],
) -> ProfileCheck:
    """One release's check (the profile's answers kept in ``memo`` for the next release)."""
    version, installed, first_only, got = answers
    target = release_call_profile(distribution, call, version, installed=installed)
    if target is None:
        return ProfileCheck(call, (version,), installed, None, {}, 0, len(cases))
    name, overrides, level = target
    key = (name, tuple(sorted(overrides.items())), level, first_only)
    if key not in memo:
        memo[key] = [profile_answer(target, c, first_reference_only=first_only) for c in cases]
    ours = memo[key]
    differ = [i for i, (a, b) in enumerate(zip(got, ours, strict=True)) if not same(a, b)]
    check = ProfileCheck(
        call, (version,), installed, name, dict(overrides), len(cases) - len(differ), len(cases)
    )
    if not differ:
        return check
    i = min(differ, key=lambda k: (cases[k].n_tokens, k))
    return replace(check, example=cases[i], theirs=got[i], ours=ours[i])
