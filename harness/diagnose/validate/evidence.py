"""Whether a subject's scores depend on its input at all: the evidence a diagnosis needs.

The fit always finds *some* nearest configuration, whatever numbers it is given: a subject
that prints ``0.5`` on every case still agrees with some profile on the few cases where that
profile happens to score 0.5, and would be given a best profile and a list of factors. A
diagnosis is evidence only if the subject's scores *follow its input* the way some BLEU
configuration does. :func:`input_dependence` tests that, on the scored cases:

1. **distinct scores**: fewer than :data:`MIN_DISTINCT` distinct values (a constant) cannot
   follow corpora whose BLEU ranges over the scale, so the subject ignores its input;
2. **rank correlation with the nearest configuration**: for every configuration compared
   (the profiles and the single-factor variants of sacrebleu), Spearman's ρ between the
   subject's scores and the configuration's on the cases where it gives a number; the best ρ
   is the statistic. A BLEU implementation, even a buggy one, moves with the configuration it
   nearly is (a bug changes the scores of some cases, not their order over a battery that
   ranges from no match to a perfect one); a number unrelated to the text does not. Ranks
   make the test blind to the scale (0–1 or 0–100) and to any monotone distortion.
3. **a permutation test of that best ρ**: under the null hypothesis that the scores do not
   depend on which case they were computed on, every permutation of them over the cases is
   equally likely; the best ρ is recomputed for :data:`PERMUTATIONS` seeded permutations
   (the maximum over all configurations each time, so comparing many configurations is
   accounted for) and ``p`` is the share at least as high as observed (plus one, over
   permutations plus one: an exact test, never 0).

The evidence supports a diagnosis when the scores have at least :data:`MIN_DISTINCT` distinct
values, the best ρ is at least :data:`MIN_CORRELATION` and ``p`` is at most :data:`ALPHA`.
A low ρ, or none, is the verdict :data:`IGNORES_INPUT`: the numbers do not come from the text
as BLEU's do. A high ρ that is not significant (``p`` above :data:`ALPHA`: too few scored
cases to tell) withholds the diagnosis without that verdict. :class:`Evidence` holds the
numbers and which of these outcomes they are (:class:`EvidenceFinding`); the words are
:func:`harness.report.validation_words.evidence_reason`.

Cost: every configuration is compared on every scored case, and its scores are the judge's
(:meth:`~harness.diagnose.validate.judge.Judge.expected_all`: the statistics counted once per
tokenization for all the cases together, one arithmetic call per configuration for all of
them, kept for the agreements and the fit that follow), so the check costs what scoring each
configuration once over the battery costs. The permuted ranks are standardized once per set
of scored cases, and each distinct configuration's correlations with all the permutations
are one matrix product.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from harness.bleu.config import BleuConfig
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.subjects import Outcome
from harness.statistics.blas import single_blas_thread
from harness.statistics.resampling import DEFAULT_SEED

__all__ = [
    "ALPHA",
    "IGNORES_INPUT",
    "MIN_CORRELATION",
    "MIN_DISTINCT",
    "PERMUTATIONS",
    "Evidence",
    "EvidenceFinding",
    "Verdict",
    "input_dependence",
]


class Verdict(Enum):
    """What a validation concludes: a diagnosis, none (too few scores, or too little
    evidence), or that the subject is not a BLEU implementation (its scores ignore its
    input)."""

    DIAGNOSED = "diagnosed"
    NO_DIAGNOSIS = "no diagnosis"
    IGNORES_INPUT = "ignores input"


#: The verdict on a subject whose scores do not follow its input.
IGNORES_INPUT = Verdict.IGNORES_INPUT


class EvidenceFinding(Enum):
    """Which outcome of the module's criterion the scored cases give."""

    #: no compared configuration's scores vary over the cases: nothing can be shown
    NOTHING_VARIES = "nothing varies"
    #: one distinct score: a constant
    CONSTANT = "constant"
    #: the best rank correlation is below :data:`MIN_CORRELATION`
    NOT_FOLLOWED = "not followed"
    #: a high correlation with a p-value above :data:`ALPHA`: too few cases to tell
    NOT_SIGNIFICANT = "not significant"
    #: the scores follow a configuration: a diagnosis may be given
    FOLLOWED = "followed"


#: Fewer distinct scores than this over the scored cases is a constant.
MIN_DISTINCT = 2
#: The smallest best rank correlation that counts as following some configuration: ρ² ≥ ½,
#: the nearest configuration explains at least half the variance of the ranks. A bug moves
#: some scores (home-made BLEUs with one or two bugs keep ρ above 0.8 on the battery); a
#: number computed from something else (a length, the references alone, another case's
#: input) stays well below.
MIN_CORRELATION = math.sqrt(0.5)
#: The largest permutation p-value of the best correlation that counts as evidence.
ALPHA = 0.01
#: Permutations of the scores drawn for the test (999: ``p`` is a multiple of 1/1000).
PERMUTATIONS = 999


@dataclass(frozen=True)
class Evidence:
    """What the scored cases show about the subject's dependence on its input.

    ``n_scored`` cases gave ``distinct`` distinct scores. ``best_correlation`` is the highest
    Spearman ρ with any compared configuration (``None`` when it is undefined: constant
    scores, or no configuration varies over these cases), reached by ``best_configuration``
    over ``best_cases`` cases; ``p_value`` is its permutation p-value over ``permutations``
    permutations (seeded by ``seed``); ``compared`` counts the configurations with distinct
    score vectors. ``supports_diagnosis`` and ``finding`` apply the module's criterion
    (``verdict``: ``None`` or :data:`IGNORES_INPUT`); ``constant``: the one score of a
    constant; ``correlation``: the best ρ unrounded (``best_correlation`` keeps six
    decimals). ``min_distinct``, ``min_correlation`` and ``alpha`` are the thresholds applied
    (the module's constants), so that the JSON states them. The JSON's ``verdict`` and
    ``reason`` are written by :func:`harness.report.validation_words.evidence_json`.
    """

    supports_diagnosis: bool
    finding: EvidenceFinding = field(metadata={"json": False})
    n_scored: int
    distinct: int = field(metadata={"json_name": "distinct_scores"})
    best_correlation: float | None
    best_configuration: str | None
    best_cases: int = field(metadata={"json_name": "best_correlation_cases"})
    p_value: float | None
    permutations: int
    seed: int
    compared: int = field(metadata={"json_name": "configurations_compared"})
    min_distinct: int = MIN_DISTINCT
    min_correlation: float = MIN_CORRELATION
    alpha: float = ALPHA
    constant: float | None = field(default=None, metadata={"json": False})
    correlation: float | None = field(default=None, metadata={"json": False})

    @property
    def verdict(self) -> Verdict | None:
        """:data:`IGNORES_INPUT` for a constant or scores no configuration's follow, else
        ``None``."""
        ignores = (EvidenceFinding.CONSTANT, EvidenceFinding.NOT_FOLLOWED)
        return IGNORES_INPUT if self.finding in ignores else None


def average_ranks(values: np.ndarray) -> np.ndarray:
    """The ranks (1..n) of ``values``, tied values sharing the mean of their ranks (the
    ``average`` ranks of Spearman's ρ, as ``scipy.stats.rankdata`` gives them; numpy alone,
    so that validating does not import ``scipy.stats``)."""
    flat = np.asarray(values, dtype=float).reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[first, len(flat)])
    out = np.empty(len(flat))
    out[order] = np.repeat(first + (sizes + 1) / 2, sizes)
    return out


@single_blas_thread
def _standardized(x: np.ndarray) -> np.ndarray:
    """Each row minus its mean, divided by its norm (rows of zeros stay zero)."""
    centered = x - x.mean(axis=-1, keepdims=True)
    norm = np.linalg.norm(centered, axis=-1, keepdims=True)
    return np.divide(centered, norm, out=np.zeros_like(centered), where=norm > 0)


@single_blas_thread
def input_dependence(
    judge: Judge,
    cases: Sequence[Case],
    outs: Sequence[Outcome],
    configs: Sequence[tuple[str, BleuConfig]],
    *,
    seed: int = DEFAULT_SEED,
    permutations: int = PERMUTATIONS,
) -> Evidence:
    """Test whether the scores of ``outs`` (on ``cases``, all scored) follow the input as one
    of ``configs`` (``(name, config)``) does; see the module docstring for the criterion.

    The statistic is the best Pearson correlation between the subject's ranks (over all the
    scored cases, average ranks for ties) and a configuration's ranks (over the cases where
    it gives a number): Spearman's ρ when the configuration scores every case. The same
    statistic is recomputed on ``permutations`` permutations of the subject's scores drawn
    from ``numpy.random.default_rng(seed)``.
    """
    values = np.array([o.value for o in outs], dtype=float)
    n = len(values)
    distinct = len(set(values.tolist()))
    vectors: dict[tuple[float | None, ...], str] = {}
    for name, cfg in configs:
        expected = judge.expected_all(cases, cfg)
        key = tuple(None if e is None or not math.isfinite(e) else e for e in expected)
        vectors.setdefault(key, name)
    ranks = average_ranks(values)
    rng = np.random.default_rng(seed)
    shuffled = np.stack([rng.permutation(ranks) for _ in range(permutations)]) if n else None
    best: tuple[float, str, int] | None = None
    null = np.full(permutations, -np.inf)
    compared = 0
    # the permuted ranks standardized once per set of cases (most configurations score all)
    standardized: dict[bytes, np.ndarray] = {}
    for key, name in vectors.items():
        mask = np.array([e is not None for e in key])
        if mask.sum() < 3:
            continue
        e = np.array([x for x in key if x is not None], dtype=float)
        if len(set(e.tolist())) < MIN_DISTINCT:
            continue  # a configuration that does not vary over these cases says nothing
        compared += 1
        y = _standardized(average_ranks(e))
        rho = float(_standardized(ranks[mask]) @ y)
        if best is None or rho > best[0] + 1e-12:
            best = (rho, name, int(mask.sum()))
        assert shuffled is not None
        key_mask = mask.tobytes()
        if key_mask not in standardized:
            standardized[key_mask] = _standardized(shuffled[:, mask])
        null = np.maximum(null, standardized[key_mask] @ y)
    # a constant has no rank correlation (and no p-value) with anything
    measured = best if distinct >= MIN_DISTINCT else None
    p_value = None
    if measured is not None:
        p_value = float((1 + np.sum(null >= measured[0] - 1e-12)) / (1 + permutations))

    def evidence(supports: bool, finding: EvidenceFinding) -> Evidence:
        return Evidence(
            n_scored=n,
            distinct=distinct,
            best_correlation=None if measured is None else round(measured[0], 6),
            best_configuration=None if measured is None else measured[1],
            best_cases=0 if measured is None else measured[2],
            p_value=p_value,
            permutations=permutations,
            seed=seed,
            compared=compared,
            supports_diagnosis=supports,
            finding=finding,
            constant=float(values[0]) if n and distinct < MIN_DISTINCT else None,
            correlation=None if measured is None else measured[0],
        )

    if best is None:
        return evidence(False, EvidenceFinding.NOTHING_VARIES)
    if distinct < MIN_DISTINCT:
        return evidence(False, EvidenceFinding.CONSTANT)
    assert p_value is not None
    if best[0] < MIN_CORRELATION:
        return evidence(False, EvidenceFinding.NOT_FOLLOWED)
    if p_value > ALPHA:
        return evidence(False, EvidenceFinding.NOT_SIGNIFICANT)
    return evidence(True, EvidenceFinding.FOLLOWED)
