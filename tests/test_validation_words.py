"""validate's facts and their words: each reason is a typed fact in
:mod:`harness.diagnose.validate`, said in words by :mod:`harness.report.validation_words`.

A test changes one number or name of a fact and sees the words (and the JSON's prose field)
change with it, so the words are read from the facts and not written beside them.
"""

from __future__ import annotations

import dataclasses

from harness.diagnose.validate import MIN_CORRELATION, ValidationReport
from harness.diagnose.validate.cases import SkipBecause, SkippedFixture
from harness.diagnose.validate.evidence import Evidence, EvidenceFinding, Verdict
from harness.diagnose.validate.results import (
    FoundBy,
    HowFound,
    MistakesOn,
    PrecisionBy,
    PrecisionFinding,
    ScaleBy,
    ScaleFinding,
    Withheld,
    WithheldBecause,
)
from harness.report.validation import validation_text, withheld_line
from harness.report.validation_words import (
    VERDICT_WORDS,
    evidence_json,
    evidence_reason,
    how_found_words,
    precision_reason,
    scale_reason,
    skipped_words,
    validation_json,
    withheld_words,
)


def _report(**changes: object) -> ValidationReport:
    """A withheld report with no cases scored: the smallest a test can change."""
    base = ValidationReport(
        implementation="subject",
        scale="unknown",
        scale_found=ScaleFinding(ScaleBy.NOT_DETECTED),
        n_cases=7,
        n_fixture_cases=0,
        seed=1,
        tolerance=1e-6,
        agreement_by_profile={},
        best_profile=None,
        matches=(),
        matched_factors=(),
        fit={},
        deviations=(),
        crashes=(),
        crash_count=7,
        probes=(),
        withheld=Withheld(WithheldBecause.TOO_FEW_SCORED, 2, 7, 5, 5, 0.5),
        n_scored=2,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def _evidence(finding: EvidenceFinding, **changes: object) -> Evidence:
    e = Evidence(
        supports_diagnosis=finding is EvidenceFinding.FOLLOWED,
        finding=finding,
        n_scored=40,
        distinct=12,
        best_correlation=0.5,
        best_configuration="nltk",
        best_cases=38,
        p_value=0.004,
        permutations=999,
        seed=3,
        compared=61,
        correlation=0.5,
    )
    return dataclasses.replace(e, **changes)  # type: ignore[arg-type]


def test_withheld_words_follow_the_numbers() -> None:
    few = _report()
    assert withheld_words(few) == (
        "only 2 of 7 cases gave a finite score; a diagnosis needs at least 5 (at least 5 and "
        "at least 50% of the cases), so none is given"
    )
    more = _report(withheld=Withheld(WithheldBecause.TOO_FEW_SCORED, 3, 9, 6, 4, 0.6))
    words = withheld_words(more) or ""
    assert "only 3 of 9 cases" in words and "at least 6 (at least 4 and at least 60% of" in words
    stopped = _report(
        withheld=Withheld(
            WithheldBecause.ALL_FAILED_ALIKE, 0, 5, not_run=37, first_error="exited with 2"
        )
    )
    words = withheld_words(stopped)
    assert words is not None and "the other 37 were not run" in words
    assert words.endswith("the first error: exited with 2")
    assert validation_json(stopped)["withheld"] == words
    assert withheld_line(stopped) == f"bleu-harness: could not validate: {words}"
    assert validation_json(stopped)["scale_reason"] == f"not detected: {words}"


def test_scale_and_precision_words_follow_the_facts() -> None:
    one = _report(scale="0-1", scale_found=ScaleFinding(ScaleBy.PERFECT_ONE))
    assert scale_reason(one).endswith("scores 1.0")
    hundred = _report(scale="0-100", scale_found=ScaleFinding(ScaleBy.PERFECT_HUNDRED))
    assert scale_reason(hundred).endswith("scores 100")
    agreed = ScaleFinding(ScaleBy.AGREEMENT, score=7.5, share=0.25, largest=42.0)
    words = scale_reason(_report(scale="0-1", scale_found=agreed))
    assert "scores 7.5 (neither 1 nor 100); on 0-1 more cases" in words
    assert "(25%)" in words and words.endswith("the largest score seen is 42.0")
    failed = dataclasses.replace(agreed, score=None, error="no score: boom", share=0.75)
    words = scale_reason(_report(scale="0-100", scale_found=failed))
    assert "scores no score: boom (neither" in words and "on 0-100" in words and "(75%)" in words

    def said(p: PrecisionFinding) -> str:
        return precision_reason(_report(precision_found=p))

    assert said(PrecisionFinding(PrecisionBy.NO_SCORE)) == "no case gave a score"
    assert said(PrecisionFinding(PrecisionBy.FULL, 15, 9)) == "full precision (up to 15 decimals)"
    assert said(PrecisionFinding(PrecisionBy.ALL_EXACT, 2, 9, 9)) == (
        "all 9 scores have exactly 2 decimal(s)"
    )
    assert said(PrecisionFinding(PrecisionBy.AT_MOST, 4, 9, 6)).startswith(
        "none of 9 scores has more than 4 decimal(s) (6 have exactly 4;"
    )


def test_evidence_words_follow_the_finding_and_its_numbers() -> None:
    constant = _evidence(EvidenceFinding.CONSTANT, distinct=1, constant=0.25)
    assert "all gave the same score (0.25)" in evidence_reason(constant)
    assert "of 61 compared configurations" in evidence_reason(constant)
    assert constant.verdict is Verdict.IGNORES_INPUT
    low = _evidence(EvidenceFinding.NOT_FOLLOWED)
    assert "best rank correlation with any of 61 configurations is 0.50 (nltk, over 38" in (
        evidence_reason(low)
    )
    assert f"permutation p = 0.004 (999 permutations): below {MIN_CORRELATION:.2f}" in (
        evidence_reason(low)
    )
    assert "run more cases" in evidence_reason(_evidence(EvidenceFinding.NOT_SIGNIFICANT))
    followed = _evidence(EvidenceFinding.FOLLOWED, correlation=0.93, best_configuration="jury")
    assert "is 0.93 (jury, over 38 cases)" in evidence_reason(followed)
    assert followed.verdict is None
    nothing = _evidence(EvidenceFinding.NOTHING_VARIES, n_scored=11)
    assert "vary over these 11 cases" in evidence_reason(nothing)
    d = evidence_json(constant)
    assert d is not None and list(d)[:4] == ["supports_diagnosis", "verdict", "reason", "n_scored"]
    assert d["verdict"] == VERDICT_WORDS[Verdict.IGNORES_INPUT]
    assert d["reason"] == evidence_reason(constant)
    assert "finding" not in d and "constant" not in d and "correlation" not in d


def test_a_withheld_report_on_evidence_says_the_evidence() -> None:
    e = _evidence(EvidenceFinding.CONSTANT, distinct=1, constant=3.0)
    r = _report(withheld=Withheld(WithheldBecause.EVIDENCE, 40, 40), evidence=e, n_scored=40)
    assert r.verdict is Verdict.IGNORES_INPUT
    assert withheld_words(r) == evidence_reason(e)
    text = validation_text(r)
    assert f"verdict: {VERDICT_WORDS[Verdict.IGNORES_INPUT]}" in text
    assert "(3)" in " ".join(text.split())
    assert validation_json(r)["verdict"] == VERDICT_WORDS[Verdict.IGNORES_INPUT]


def test_deviation_explanations_in_words() -> None:
    variant = HowFound(FoundBy.VARIANT, name="sacrebleu+smooth=none", factors=("x",), also=("y",))
    assert how_found_words(variant) == (
        "`sacrebleu+smooth=none` reproduces it (so do changes of x); on this input so do "
        "changes of y"
    )
    assert how_found_words(dataclasses.replace(variant, factors=(), also=())) == (
        "`sacrebleu+smooth=none` reproduces it"
    )
    on_best = HowFound(FoundBy.MISTAKES, on=MistakesOn.BEST_PROFILE, mistakes=("clip-none",))
    assert "the best profile's arithmetic with the mistake(s) clip-none does" in (
        how_found_words(on_best)
    )
    on_fit = dataclasses.replace(on_best, on=MistakesOn.FITTED, mistakes=("a", "b"))
    assert "the fitted configuration's arithmetic with the mistake(s) a, b" in (
        how_found_words(on_fit)
    )
    blamed = dataclasses.replace(on_best, name="lm-eval")
    assert "`lm-eval`'s arithmetic" in how_found_words(blamed)
    other = HowFound(
        FoundBy.OTHER_CONFIGURATION, name="nltk", factors=("a", "b"), best_profile="sacrebleu"
    )
    assert how_found_words(other) == "`nltk` reproduces it (differs from sacrebleu in a, b)"
    assert "the 'clipping' probe fails" in how_found_words(HowFound(FoundBy.PROBE, "clipping"))
    assert how_found_words(HowFound(FoundBy.FIT)) == "the fitted configuration reproduces it"


def test_skipped_fixtures_in_words() -> None:
    ragged = SkippedFixture("fixture:a/b", SkipBecause.RAGGED)
    assert skipped_words(ragged) == "fixture:a/b (ragged references cannot be written as files)"
    streams = SkippedFixture("fixture:a/c", SkipBecause.STREAMS, 3, 1)
    assert skipped_words(streams) == (
        "fixture:a/c (3 reference streams; the command template names 1)"
    )
    r = _report(skipped=(ragged, streams))
    assert validation_json(r)["skipped"] == [skipped_words(ragged), skipped_words(streams)]
    assert skipped_words(streams) in validation_text(r)
