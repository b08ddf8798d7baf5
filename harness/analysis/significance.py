"""Paired significance tests on cached statistics: bootstrap resampling and approximate randomisation.

Both tests compare a *baseline* and a *system* scored against the same references under one
:class:`~harness.bleu.config.BleuConfig`. Nothing is re-tokenized: each system's per-segment
statistics become the rows of a matrix once (:func:`prepare`), and every resampled or shuffled
corpus is a weighted sum of those rows, computed for all resamples at once as a matrix product.

The per-segment matrices and the vectorised scoring of many resamples live in
:mod:`harness.analysis.resampling` (re-exported here).

Definitions (matched to sacrebleu 2.6.0, ``sacrebleu/significance.py``)
-----------------------------------------------------------------------
**Paired bootstrap** (Koehn 2004, "Statistical significance tests for machine translation
evaluation"): ``R`` resamples of ``S`` segment indices drawn with replacement,
``rng.choice(S, size=(R, S))`` with ``rng = numpy.random.default_rng(seed)`` — the same call as
sacrebleu, so for the same seed both draw identical resamples — and the *same* resamples score
both systems. With ``d_r = |sys_r - base_r|`` and the observed ``Δ = |sys - base|``, sacrebleu's
p-value centres the resampled differences at their mean and counts how often they exceed the
observed one::

    p = (#{r : d_r - mean(d) > Δ} + 1) / (R + 1)

(the ``+ 1`` correction keeps the test from rejecting more often than its level; sacrebleu
takes it from multeval). The confidence interval of each system is the percentile interval of
its resampled scores: sorted scores ``s_(0) ≤ … ≤ s_(R-1)``, ``k = floor(R (1 - confidence) / 2)``,
``(s_(k), s_(R-1-k))``; for ``confidence=0.95`` this is sacrebleu's ``k = R // 40``. sacrebleu reports
``mean ± (s_(R-1-k) - s_(k)) / 2``; :attr:`SignificanceResult.ci_system` is the interval itself
and its JSON adds that half-width.

**Approximate randomisation** (Riezler & Maxwell 2005, "On some pitfalls in automatic
evaluation and significance testing for MT"): each of ``T`` trials swaps every segment's two
outputs with probability 1/2, ``rng.integers(2, size=(T, S), dtype=bool)`` as sacrebleu draws
it (``True``: pseudo-system A takes the baseline's segment), and the statistic is the absolute
score difference of the two pseudo-systems::

    p = (#{t : |A_t - B_t| > Δ} + 1) / (T + 1)

When ``ci_resamples > 0`` (default 1000) a bootstrap with that many resamples, drawn from the
same generator after the swap mask (sacrebleu's order), gives the means and intervals; unlike
sacrebleu, which draws the baseline's interval from a fresh generator, both systems use the
same resamples.

Ties
----
sacrebleu counts only differences strictly greater than the observed one. When the observed
difference is 0 — the same system twice, or two systems with equal statistics on every
segment — every resampled difference is exactly 0 too, nothing is counted, and sacrebleu
reports ``p = 1/(R+1)`` (0.000999 for the bootstrap, 0.0001 for AR): "significant" for a
system compared with itself. The default ``ties="count"`` counts resampled differences that are
at least the observed one (``≥``, Riezler & Maxwell's definition; differences within 1e-9 BLEU
points count as ties, far above the 1e-12 noise between the engine and the vectorised scorer),
so identical systems get ``p = 1``; ``ties="strict"`` reproduces sacrebleu's ``>``. The two
differ only on exact ties, which away from that degenerate case have probability ~0 for the
bootstrap and ``2^(1-k)`` for AR with ``k`` differing segments.

Seeds
-----
The default seed is :data:`DEFAULT_SEED` = 12345, sacrebleu's default (``SACREBLEU_SEED``).
``seed=None`` draws fresh OS entropy, and the seed actually used is recorded in the result and
its signature, so every run can be repeated. The global NumPy RNG is never used.

Example
-------
>>> from harness.data.corpus import Corpus
>>> from harness.bleu.engine import compute_statistics
>>> from harness.bleu.profiles import get_profile
>>> cfg = get_profile("sacrebleu")
>>> refs = (("the cat sat on the mat",), ("a dog ran in the park",), ("it is raining",))
>>> base = Corpus(hypotheses=("the cat sat on a mat", "a dog ran", "it rains"), references=refs)
>>> same = compute_statistics(base, cfg)
>>> r = paired_bootstrap(same, same, cfg, resamples=200)
>>> (r.delta, r.p_value, r.seed)
(0.0, 1.0, 12345)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from harness.analysis.resampling import (
    SegmentTable,
    paired_resampled_scores,
    prepare,
    resampled_scores,
    row_totals,
    score_rows,
    sufficient_matrix,
    swapped_scores,
)
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import get_profile
from harness.bleu.stats import Statistics
from harness.data.io import PathLike, load_text_corpus
from harness.data.textfile import BomRule, line_counts_differ
from harness.errors import ConfigError, LayoutError
from harness.progress import ProgressCallback
from harness.session import Session
from harness.statistics.blas import single_blas_thread
from harness.statistics.resampling import (
    DEFAULT_SEED,
    counts_from_indices,
    exact_product_dtype,
    percentile_interval,
    resample_indices,
)

__all__ = [
    "DEFAULT_SEED",
    "PairedTest",
    "SegmentTable",
    "SignificanceResult",
    "against_best",
    "approximate_randomization",
    "counts_from_indices",
    "paired_bootstrap",
    "paired_p_values",
    "paired_resampled_scores",
    "percentile_interval",
    "prepare",
    "resample_indices",
    "resampled_scores",
    "row_totals",
    "score_rows",
    "significance_from_files",
    "sufficient_matrix",
    "swapped_scores",
]


TIE_TOLERANCE = 1e-9
"""With ``ties="count"``, resampled differences within this many BLEU points below the observed
one count as ties (at least as extreme)."""

_TIES = ("count", "strict")
_METHODS = {
    "bootstrap": "paired-bootstrap",
    "bs": "paired-bootstrap",
    "paired-bootstrap": "paired-bootstrap",
    "ar": "approximate-randomization",
    "approximate-randomization": "approximate-randomization",
}


# ====================================================================== results
@dataclass(frozen=True)
class SignificanceResult:
    """A paired test of ``system`` against ``baseline``; scores on 0–100.

    ``delta`` = ``score_system - score_baseline``. ``p_value``: see the module docstring
    (two-sided; small means the difference is unlikely under "no difference").
    ``mean_*`` and ``ci_*`` (``(lo, hi)`` percentile interval at ``ci_level``) come from the
    bootstrap resamples (for AR from ``ci_resamples`` extra resamples; ``None`` if 0).
    ``resamples``: bootstrap resamples or AR trials. ``seed``: the generator's seed.
    ``signature``: the config's signature with the test, its sizes, the seed, the interval
    level and the tie rule inserted before the versions.
    """

    method: str
    score_baseline: float
    score_system: float
    delta: float
    p_value: float
    mean_baseline: float | None
    mean_system: float | None
    ci_baseline: tuple[float, float] | None
    ci_system: tuple[float, float] | None
    ci_level: float
    resamples: int
    ci_resamples: int
    seed: int
    ties: str
    n_segments: int
    signature: str

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("ci_halfwidth_baseline", "ci_halfwidth_system")
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "method",
        "score_baseline",
        "score_system",
        "delta",
        "p_value",
        "mean_baseline",
        "mean_system",
        "ci_baseline",
        "ci_system",
        "ci_halfwidth_baseline",
        "ci_halfwidth_system",
        "ci_level",
        "resamples",
        "ci_resamples",
        "seed",
        "ties",
        "n_segments",
        "signature",
    )

    @property
    def ci_halfwidth_system(self) -> float | None:
        """sacrebleu's "± 95% CI": half the width of :attr:`ci_system`."""
        return None if self.ci_system is None else (self.ci_system[1] - self.ci_system[0]) / 2

    @property
    def ci_halfwidth_baseline(self) -> float | None:
        """Half the width of :attr:`ci_baseline`."""
        return None if self.ci_baseline is None else (self.ci_baseline[1] - self.ci_baseline[0]) / 2


# ====================================================================== shared checks
def _as_table(x: Statistics | SegmentTable, config: BleuConfig, what: str) -> SegmentTable:
    if isinstance(x, SegmentTable):
        if x.config != config:
            raise ConfigError(
                f"the {what} table was prepared under another config "
                f"({x.config.signature()}); prepare it under this one"
            )
        return x
    if not isinstance(x, Statistics):
        raise LayoutError(
            f"the {what} must be Statistics or a SegmentTable",
            what=what,
            expected="Statistics | SegmentTable",
            got=type(x).__name__,
        )
    return prepare(x, config)


def _pair(
    baseline: Statistics | SegmentTable, system: Statistics | SegmentTable, config: BleuConfig
) -> tuple[SegmentTable, SegmentTable]:
    if not isinstance(config, BleuConfig):
        raise ConfigError(f"config must be a BleuConfig, got {type(config).__name__}")
    a = _as_table(baseline, config, "baseline")
    b = _as_table(system, config, "system")
    if len(a) != len(b):
        raise LayoutError(
            "a paired test needs the same segments for both systems",
            what="system",
            expected=len(a),
            got=len(b),
        )
    if a.ids != b.ids:
        first = next(i for i, (x, y) in enumerate(zip(a.ids, b.ids, strict=True)) if x != y)
        raise LayoutError(
            f"segment ids differ first at position {first}",
            what="system ids",
            expected=a.ids[first],
            got=b.ids[first],
        )
    if a.ref_lens != b.ref_lens:
        first = next(
            i for i, (x, y) in enumerate(zip(a.ref_lens, b.ref_lens, strict=True)) if x != y
        )
        raise LayoutError(
            "the two systems were scored against different references (reference lengths "
            f"differ first at segment {a.ids[first]!r})",
            what="references",
            expected=a.ref_lens[first],
            got=b.ref_lens[first],
        )
    return a, b


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_options(confidence: float, ties: str) -> None:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not 0.0 < confidence < 1.0
    ):
        raise ConfigError(
            f"confidence must be a number strictly between 0 and 1, got {confidence!r}"
        )
    if ties not in _TIES:
        raise ConfigError(f"unknown ties rule {ties!r}", valid=_TIES)


def _resolve_seed(seed: int | None) -> int:
    """The seed to use: ``seed`` itself, or fresh OS entropy (recorded) when ``None``."""
    if seed is None:
        return secrets.randbits(63)
    return _check_int("seed", seed, 0)


def _p_value(resampled: np.ndarray, observed: float, ties: str) -> float:
    if ties == "strict":
        extreme = int(np.count_nonzero(resampled > observed))
    else:
        extreme = int(np.count_nonzero(resampled >= observed - TIE_TOLERANCE))
    return (extreme + 1) / (len(resampled) + 1)


def _signature(config: BleuConfig, test: str) -> str:
    head, sep, versions = config.signature().rpartition("|version:")
    return f"{head}|{test}{sep}{versions}" if sep else f"{versions}|{test}"


def _summary(scores: np.ndarray, confidence: float) -> tuple[float, tuple[float, float]]:
    return float(scores.mean()), percentile_interval(scores, confidence)


# ====================================================================== the tests
def paired_bootstrap(
    baseline: Statistics | SegmentTable,
    system: Statistics | SegmentTable,
    config: BleuConfig,
    *,
    resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    confidence: float = 0.95,
    ties: str = "count",
) -> SignificanceResult:
    """Paired bootstrap resampling (Koehn 2004) with sacrebleu's p-value and interval.

    ``baseline`` and ``system``: statistics of the same segments against the same references
    (or :class:`SegmentTable` caches from :func:`prepare`). See the module docstring for the
    definitions; ``ties="strict"`` reproduces sacrebleu exactly, including ``p = 1/(R+1)``
    for identical systems.

    Raises:
        LayoutError: the two systems have different segments or references.
        ConfigError: a bad option, or statistics of another tokenization.
    """
    a, b = _pair(baseline, system, config)
    resamples = _check_int("resamples", resamples, 1)
    _check_options(confidence, ties)
    seed = _resolve_seed(seed)
    rng = np.random.default_rng(seed)

    indices = resample_indices(len(a), resamples, rng)
    base_scores, sys_scores = paired_resampled_scores(a, b, indices)
    diffs = np.abs(sys_scores - base_scores)
    p = _p_value(diffs - diffs.mean(), abs(b.score - a.score), ties)
    mean_a, ci_a = _summary(base_scores, confidence)
    mean_b, ci_b = _summary(sys_scores, confidence)
    return SignificanceResult(
        method="paired-bootstrap",
        score_baseline=a.score,
        score_system=b.score,
        delta=b.score - a.score,
        p_value=p,
        mean_baseline=mean_a,
        mean_system=mean_b,
        ci_baseline=ci_a,
        ci_system=ci_b,
        ci_level=float(confidence),
        resamples=resamples,
        ci_resamples=resamples,
        seed=seed,
        ties=ties,
        n_segments=len(a),
        signature=_signature(
            config, f"test:paired-bs|bs:{resamples}|seed:{seed}|ci:{confidence:g}|ties:{ties}"
        ),
    )


@single_blas_thread
def paired_p_values(
    tables: Mapping[str, SegmentTable],
    pairs: Sequence[tuple[str, str]],
    config: BleuConfig,
    *,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    ties: str = "count",
) -> tuple[float, ...]:
    """The p-value :func:`paired_bootstrap` gives each pair ``(baseline, system)`` of the
    systems in ``tables`` (all of the same segments, under ``config``), each system resampled
    once: every test of the same number of segments at the same seed draws the same resamples,
    so the resampled scores of a system are shared by every pair it is in.

    Raises:
        LayoutError: the systems have different segments or references.
        ConfigError: a bad option, or statistics of another tokenization.
    """
    if not pairs:
        return ()
    resamples = _check_int("resamples", resamples, 1)
    _check_options(0.95, ties)
    names = list(dict.fromkeys(name for pair in pairs for name in pair))
    for name in names[1:]:
        _pair(tables[names[0]], tables[name], config)  # same segments and tokenization
    first = tables[names[0]]
    rng = np.random.default_rng(_resolve_seed(seed))
    indices = resample_indices(len(first), resamples, rng)
    counts: dict[type, np.ndarray] = {}
    scores: dict[str, np.ndarray] = {}
    for name in names:
        t = tables[name]
        dtype = exact_product_dtype(t.matrix, len(t))
        if dtype not in counts:
            counts[dtype] = counts_from_indices(indices, len(t), dtype=dtype)
        sums = (counts[dtype] @ t.matrix.astype(dtype)).astype(np.float64)
        last = None if t.context is None else t.context[indices[:, -1]]
        scores[name] = resampled_scores(t, sums, last=last, longest=t.longest(indices))
    out = []
    for a, b in pairs:
        diffs = np.abs(scores[b] - scores[a])
        out.append(_p_value(diffs - diffs.mean(), abs(tables[b].score - tables[a].score), ties))
    return tuple(out)


def approximate_randomization(
    baseline: Statistics | SegmentTable,
    system: Statistics | SegmentTable,
    config: BleuConfig,
    *,
    trials: int = 10000,
    seed: int | None = DEFAULT_SEED,
    confidence: float = 0.95,
    ci_resamples: int = 1000,
    ties: str = "count",
) -> SignificanceResult:
    """Paired approximate randomisation (Riezler & Maxwell 2005) as sacrebleu defines it.

    Each trial swaps every segment's outputs between the systems with probability 1/2; the
    statistic is ``|score(A) - score(B)|`` and ``p = (#{≥ observed} + 1) / (trials + 1)``
    (``ties="strict"``: ``>``, sacrebleu's rule). ``ci_resamples`` bootstrap resamples drawn
    after the swaps give the means and intervals (0: none).
    """
    a, b = _pair(baseline, system, config)
    trials = _check_int("trials", trials, 1)
    ci_resamples = _check_int("ci_resamples", ci_resamples, 0)
    _check_options(confidence, ties)
    seed = _resolve_seed(seed)
    rng = np.random.default_rng(seed)

    swap = rng.integers(2, size=(trials, len(a)), dtype=bool)
    scores_a, scores_b = swapped_scores(a, b, swap)
    stat = np.abs(scores_a - scores_b)
    p = _p_value(stat, abs(b.score - a.score), ties)

    mean_a = mean_b = None
    ci_a = ci_b = None
    if ci_resamples > 0:
        base_scores, sys_scores = paired_resampled_scores(
            a, b, resample_indices(len(a), ci_resamples, rng)
        )
        mean_a, ci_a = _summary(base_scores, confidence)
        mean_b, ci_b = _summary(sys_scores, confidence)
    test = f"test:paired-ar|ar:{trials}|seed:{seed}|ci:{confidence:g}|ties:{ties}"
    if ci_resamples > 0:
        test += f"|bs:{ci_resamples}"
    return SignificanceResult(
        method="approximate-randomization",
        score_baseline=a.score,
        score_system=b.score,
        delta=b.score - a.score,
        p_value=p,
        mean_baseline=mean_a,
        mean_system=mean_b,
        ci_baseline=ci_a,
        ci_system=ci_b,
        ci_level=float(confidence),
        resamples=trials,
        ci_resamples=ci_resamples,
        seed=seed,
        ties=ties,
        n_segments=len(a),
        signature=_signature(config, test),
    )


# ====================================================================== from files
@dataclass(frozen=True, kw_only=True)
class PairedTest:
    """Which paired test :func:`significance_from_files` runs, and how: ``method``
    ``"bootstrap"`` (alias ``"bs"``) or ``"ar"`` (``"approximate-randomization"``);
    ``resamples``, its bootstrap resamples or AR trials (``None``: 1000 / 10000, as
    sacrebleu); ``seed``; ``confidence``, of the interval; ``ties``, how a resample equal to the
    observed difference counts in the p-value."""

    method: str = "bootstrap"
    resamples: int | None = None
    seed: int | None = DEFAULT_SEED
    confidence: float = 0.95
    ties: str = "count"


def significance_from_files(
    baseline_hyp: PathLike,
    system_hyp: PathLike,
    ref_files: Sequence[PathLike],
    *,
    profile: str | BleuConfig = "sacrebleu",
    test: PairedTest = PairedTest(),
    progress: ProgressCallback | None = None,
    session: Session,
    bom: BomRule = "refuse",
) -> SignificanceResult:
    """A paired test of two line-aligned hypothesis files against the same reference files.

    ``profile``: a profile name (:mod:`harness.bleu.profiles`) or a :class:`BleuConfig`.
    ``test``: the :class:`PairedTest` (default: sacrebleu's paired bootstrap).
    Files are read with :func:`harness.data.io.load_text_corpus` (line ``i`` of every file is
    segment ``i``; a leading byte-order mark by ``bom``). ``progress`` (:data:`~harness.progress.ProgressCallback`) is told of the
    three steps (stage ``"significance"``: each file's statistics, then the test).
    ``session`` (required): where statistics are counted and cached (its cache and workers).

    Raises:
        InputError: a file cannot be read. LayoutError: line counts differ.
        ConfigError: an unknown profile, method or option.
    """
    method, resamples, seed = test.method, test.resamples, test.seed
    kind = _METHODS.get(method) if isinstance(method, str) else None
    if kind is None:
        raise ConfigError(f"unknown method {method!r}", valid=sorted(_METHODS))
    config = profile if isinstance(profile, BleuConfig) else get_profile(profile)
    base = load_text_corpus(baseline_hyp, ref_files, name="baseline", bom=bom)
    other = load_text_corpus(system_hyp, ref_files, name="system", bom=bom)
    if len(other) != len(base):
        raise line_counts_differ(baseline_hyp, len(base), system_hyp, len(other), kind="system")
    step = (lambda done: progress("significance", done, 3)) if progress else (lambda done: None)
    pair = session.with_corpora({"baseline": base, "system": other})
    step(0)
    stats_a = pair.statistics(config, "baseline")
    step(1)
    stats_b = pair.statistics(config, "system")
    step(2)
    if kind == "paired-bootstrap":
        result = paired_bootstrap(
            stats_a,
            stats_b,
            config,
            resamples=1000 if resamples is None else resamples,
            seed=seed,
            confidence=test.confidence,
            ties=test.ties,
        )
    else:
        result = approximate_randomization(
            stats_a,
            stats_b,
            config,
            trials=10000 if resamples is None else resamples,
            seed=seed,
            confidence=test.confidence,
            ties=test.ties,
        )
    step(3)
    return result


# ====================================================================== every system vs the best
def against_best(
    tables: Mapping[str, SegmentTable],
    config: BleuConfig,
    *,
    resamples: int = 1000,
    seed: int | None = DEFAULT_SEED,
    confidence: float = 0.95,
    baseline: str | None = None,
    method: str = "bootstrap",
) -> tuple[str, dict[str, SignificanceResult]]:
    """``(best, results)``: the system with the highest score under ``config`` (the first of
    ties, in ``tables``' order; or ``baseline`` when given) and the paired test of every other
    system against it (``results[system]``; ``delta`` = system − best). ``method``
    ``"bootstrap"`` or ``"ar"`` (``resamples`` trials). The same seed draws the same resamples
    for every pair; ``tables`` are :func:`prepare` d once per system.

    Raises:
        ConfigError: fewer than two systems, an unknown ``baseline`` or ``method``, or a table
            prepared under another config.
        LayoutError: two systems have different segments or references.
    """
    if len(tables) < 2:
        raise ConfigError(f"a test against the best needs two or more systems, got {len(tables)}")
    if baseline is not None and baseline not in tables:
        raise ConfigError(f"unknown baseline system {baseline!r}", valid=list(tables))
    kind = _METHODS.get(method)
    if kind is None:
        raise ConfigError(f"unknown method {method!r}", valid=sorted(_METHODS))
    best = baseline if baseline is not None else max(tables, key=lambda n: tables[n].score)

    def test(table: SegmentTable) -> SignificanceResult:
        if kind == "paired-bootstrap":
            return paired_bootstrap(
                tables[best], table, config, resamples=resamples, seed=seed, confidence=confidence
            )
        return approximate_randomization(
            tables[best], table, config, trials=resamples, seed=seed, confidence=confidence
        )

    results = {name: test(table) for name, table in tables.items() if name != best}
    return best, results
