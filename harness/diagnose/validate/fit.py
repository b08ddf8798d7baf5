"""Fitting: the configuration (with modelled mistakes) that agrees with the most cases.

:func:`fit` starts from a profile and greedily takes the single-factor change or modelled
mistake that agrees with the most cases (ties: the smallest mean absolute difference), then
drops every change that does not pay for itself. :func:`fit_summary` says what was changed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from harness.analysis.attribution import FACTORS, differing_factors
from harness.bleu.config import BleuConfig
from harness.diagnose.validate.bugs import BUG_MODELS, Model
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.subjects import Outcome
from harness.diagnose.validate.variants import single_factor_variants

__all__ = ["changed_fields", "fit", "fit_summary"]


def fit(
    judge: Judge,
    cases: Sequence[Case],
    outs: Sequence[Outcome],
    start: BleuConfig,
    start_score: tuple[float, float],
    rounds: int = 6,
) -> tuple[Model, tuple[float, float]]:
    """Greedy: from ``start``, take the single-factor change or modelled mistake that agrees
    with the most cases (ties: smallest mean |difference|) while it helps; then drop every
    change whose removal loses nothing. Returns the model and its (agreement, mean |diff|)."""

    def better(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return a[0] > b[0] + 1e-12 or (abs(a[0] - b[0]) <= 1e-12 and a[1] < b[1] - 1e-9)

    n = len(cases)

    def fails(score: tuple[float, float]) -> int:
        return round((1.0 - score[0]) * n)

    cur, cur_score = Model(start), start_score
    for _ in range(rounds):
        if cur_score[0] >= 1.0:
            break
        # modelled mistakes first: one of them often explains everything at once
        moves = [m for m in (cur.with_bug(b) for b in BUG_MODELS) if m is not None]
        moves += [Model(cfg, cur.bugs) for _, _, cfg in single_factor_variants(cur.cfg)]
        # try the moves that do best on a sample first, so that the bound prunes the rest
        sample = max(1, min(n, 40))
        moves.sort(
            key=lambda m: -judge.agreement(cases[:sample], outs[:sample], m)[0],
        )
        best = None
        bound = fails(cur_score)
        for m in moves:
            s = judge.agreement(cases, outs, m, max_fail=bound)
            if s[0] < 0:
                continue
            if best is None or better(s, best[1]):
                best = (m, s)
                bound = fails(s)
        if best is None or not better(best[1], cur_score):
            break
        cur, cur_score = best
    # prune: revert changes that do not pay for themselves
    changed = True
    while changed:
        changed = False
        reverts = []
        for factor in differing_factors(start, cur.cfg):
            fields = {f: getattr(start, f) for f in FACTORS[factor]}
            reverts.append(Model(cur.cfg.replace(**fields), cur.bugs))
        for b in cur.bugs:
            reverts.append(Model(cur.cfg, tuple(x for x in cur.bugs if x != b)))
        for m in reverts:
            s = judge.agreement(cases, outs, m, max_fail=fails(cur_score))
            if s[0] >= cur_score[0] - 1e-12 and s[1] <= cur_score[1] + 1e-9:
                cur, cur_score, changed = m, s, True
                break
    return cur, cur_score


#: Every field of a factor (:data:`harness.analysis.attribution.FACTORS`) in the order of
#: :class:`~harness.bleu.config.BleuConfig`: the fields a fit summary lists when they differ
#: from the base profile (a new factor field is never left out of ``changes``).
_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(BleuConfig)
    if any(f.name in names for names in FACTORS.values())
)


def changed_fields(base: BleuConfig, cfg: BleuConfig) -> dict[str, Any]:
    """The factor fields (in :class:`~harness.bleu.config.BleuConfig` order) on which ``cfg``
    differs from ``base``, with ``cfg``'s values."""
    return {f: getattr(cfg, f) for f in _FIELDS if getattr(cfg, f) != getattr(base, f)}


def fit_summary(
    base_name: str, base: BleuConfig, model: Model, score: tuple[float, float]
) -> dict[str, Any]:
    """JSON-ready: the base profile, the changed fields, the mistakes, the factors and bug
    classes involved, the agreement, the mean |difference| and the fitted signature."""
    changes = changed_fields(base, model.cfg)
    factors = [f for f in differing_factors(base, model.cfg) if f != "zero_length"]
    return {
        "base": base_name,
        "changes": changes,
        "bugs": list(model.bugs),
        "factors": factors + [c for c in model.classes if c not in factors],
        "agreement": score[0],
        "mean_abs_diff": score[1] if math.isfinite(score[1]) else None,
        "signature": model.cfg.signature(),
    }
