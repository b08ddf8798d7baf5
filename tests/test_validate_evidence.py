"""Whether a subject's scores depend on its input (:mod:`harness.diagnose.validate.evidence`).

Scores are the in-house engine's on generated cases (through the validator's own ``Judge``),
transformed; the correlations are checked against scipy's ``spearmanr``. No number is typed:
the thresholds are the module's constants.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import rankdata, spearmanr

from harness import PROFILES
from harness.diagnose.validate import (
    ALPHA,
    IGNORES_INPUT,
    MIN_CORRELATION,
    generate_cases,
    input_dependence,
)
from harness.diagnose.validate.evidence import average_ranks
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.subjects import Outcome
from harness.report.validation_words import VERDICT_WORDS, evidence_json, evidence_reason
from harness.session import Session

CASES = generate_cases(40, seed=0)
CONFIGS = list(PROFILES.items())


def _outs(values: list[float]) -> list[Outcome]:
    return [Outcome(v, None, None, None) for v in values]


def _engine(name: str = "sacrebleu", cases=CASES) -> list[float]:
    judge = Judge(1e-6, Session())
    got = [judge.expected(c, PROFILES[name]) for c in cases]
    assert all(v is not None for v in got)
    return [float(v) for v in got if v is not None]


def test_a_constant_ignores_its_input():
    e = input_dependence(Judge(1e-6, Session()), CASES, _outs([0.5] * len(CASES)), CONFIGS)
    assert not e.supports_diagnosis and e.verdict == IGNORES_INPUT
    assert e.distinct == 1 and e.best_correlation is None and e.p_value is None
    assert e.compared > 0 and "all gave the same score (0.5)" in evidence_reason(e)
    d = evidence_json(e)
    assert d is not None and d["distinct_scores"] == 1
    assert d["verdict"] == VERDICT_WORDS[IGNORES_INPUT] and d["reason"] == evidence_reason(e)


def test_the_engine_itself_supports_a_diagnosis():
    values = _engine()
    e = input_dependence(Judge(1e-6, Session()), CASES, _outs(values), CONFIGS, seed=3)
    assert e.supports_diagnosis and e.verdict is None
    assert e.best_correlation == pytest.approx(1.0)
    assert e.p_value == pytest.approx(1 / (1 + e.permutations))  # no permutation does as well
    assert e.distinct == len(set(values))


def test_ranks_make_the_test_blind_to_scale_and_monotone_distortion():
    values = _engine()
    for f in (lambda v: v / 100, math.sqrt, lambda v: round(v, 1)):
        e = input_dependence(Judge(1e-6, Session()), CASES, _outs([f(v) for v in values]), CONFIGS)
        assert e.supports_diagnosis, evidence_reason(e)


def test_reversed_scores_are_not_bleu():
    values = _engine()
    e = input_dependence(Judge(1e-6, Session()), CASES, _outs([100 - v for v in values]), CONFIGS)
    assert e.verdict == IGNORES_INPUT and e.best_correlation is not None
    assert e.best_correlation < MIN_CORRELATION and "do not follow the input" in evidence_reason(e)


def test_the_correlation_is_spearmans_rho():
    values = _engine("nltk")
    rng = np.random.default_rng(0)
    noisy = [v + float(rng.normal(0, 5)) for v in values]
    config = [("sacrebleu", PROFILES["sacrebleu"])]
    e = input_dependence(Judge(1e-6, Session()), CASES, _outs(noisy), config)
    want = spearmanr(noisy, _engine("sacrebleu")).statistic
    assert e.best_correlation == pytest.approx(want, abs=1e-6)
    assert e.best_configuration == "sacrebleu" and e.best_cases == len(CASES)


def test_too_few_cases_withhold_without_the_verdict():
    """Four cases in the right order: a perfect correlation, but one permutation in 24 does as
    well, so it is no evidence (and no verdict that the subject ignores its input)."""
    cases = CASES[:4]
    values = _engine(cases=cases)
    assert len(set(values)) == len(values)  # distinct: the only perfect order is the true one
    e = input_dependence(Judge(1e-6, Session()), cases, _outs(values), CONFIGS[:1])
    assert e.best_correlation == pytest.approx(1.0)
    assert e.p_value is not None and e.p_value > ALPHA
    assert not e.supports_diagnosis and e.verdict is None and "run more cases" in evidence_reason(e)


def test_seeded_and_reproducible():
    rng = np.random.default_rng(1)
    noise = [float(x) for x in rng.uniform(0, 100, len(CASES))]
    a = input_dependence(Judge(1e-6, Session()), CASES, _outs(noise), CONFIGS, seed=5)
    b = input_dependence(Judge(1e-6, Session()), CASES, _outs(noise), CONFIGS, seed=5)
    assert a == b and a.seed == 5
    assert not a.supports_diagnosis


@pytest.mark.parametrize("seed", range(5))
def test_average_ranks_are_scipys(seed):
    """The ranks behind ρ equal scipy's ``rankdata`` (average ranks for ties), on scores with
    many ties (rounded engine-like values), all distinct values, and one value."""
    rng = np.random.default_rng(seed)
    for values in (
        np.round(rng.random(200) * 100, 0),
        rng.random(50),
        np.full(7, 0.5),
        np.array([3.0]),
    ):
        assert np.array_equal(average_ranks(values), rankdata(values))
