"""The report's significance section: every system against the best, or a pair the user chose.

For each fixture with two or more systems (at most
:data:`~harness.report.schema.MAX_SIGNIFICANCE_FIXTURES`), the system with the highest score
under a profile is the baseline and every other system is tested against it with the paired
bootstrap (:func:`harness.analysis.significance.against_best`, Koehn 2004) on statistics
counted once per system. A fixture is tested under every in-house profile of the rows while
that stays within :data:`MAX_TESTS` tests, else under the baseline profile (sacrebleu, else
the first profile) only. With ``pair=(baseline, system)`` only that pair is tested, wherever
both systems are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.analysis.significance import against_best, paired_bootstrap, prepare
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.report.schema import (
    MAX_SIGNIFICANCE_FIXTURES,
    SIGNIFICANCE_HOW,
    SIGNIFICANCE_RESAMPLES,
)
from harness.report.sections import labels_in
from harness.session import Session

#: A fixture is tested under every profile while (systems − 1) × profiles stays within this.
MAX_TESTS = 60


def _profiles(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return [
        lb.split(":", 1)[1]
        for lb in labels_in(rows)
        if lb.startswith("harness:") and lb.split(":", 1)[1] in PROFILES
    ]


def default_significance(
    rows: Sequence[Mapping[str, Any]],
    corpora: Mapping[tuple[str, str], Corpus],
    seed: int,
    resamples: int = SIGNIFICANCE_RESAMPLES,
    *,
    pair: tuple[str, str] | None = None,
    session: Session | None = None,
) -> dict[str, Any]:
    """The ``significance`` section (schema: :mod:`harness.report`): paired bootstrap of every
    system against the best of its fixture, or of ``pair`` (module docstring)."""
    out: dict[str, Any] = {
        "method": "paired-bootstrap",
        "resamples": resamples,
        "seed": seed,
        "design": "against-best" if pair is None else "pair",
        "results": [],
        "note": None,
        "how": SIGNIFICANCE_HOW,
    }
    profiles = _profiles(rows)
    systems: dict[str, list[str]] = {}
    for f, s in corpora:
        systems.setdefault(f, []).append(s)
    multi = [(f, ss) for f, ss in systems.items() if len(ss) >= 2]
    if pair is not None:
        multi = [(f, list(pair)) for f, ss in multi if set(pair) <= set(ss)]
    if not corpora:
        out["note"] = (
            "not computed: the report was built without the corpora (from a results table)"
        )
        return out
    if not profiles:
        out["note"] = "not computed: no in-house profile (harness:NAME) in the rows"
        return out
    if not multi:
        out["note"] = (
            "not computed: no fixture has two or more systems"
            if pair is None
            else f"not computed: no fixture has both systems {pair[0]} and {pair[1]}"
        )
        return out
    notes = []
    if len(multi) > MAX_SIGNIFICANCE_FIXTURES:
        notes.append(
            f"tested the first {MAX_SIGNIFICANCE_FIXTURES} of {len(multi)} multi-system fixtures"
        )
    base_profile = "sacrebleu" if "sacrebleu" in profiles else profiles[0]
    sess = session or Session()
    for f, names in multi[:MAX_SIGNIFICANCE_FIXTURES]:
        chosen = profiles if (len(names) - 1) * len(profiles) <= MAX_TESTS else [base_profile]
        if len(chosen) < len(profiles):
            notes.append(
                f"{f}: {len(names)} systems, tested under the {base_profile} profile only "
                f"(all {len(profiles)} profiles would be {(len(names) - 1) * len(profiles)} tests)"
            )
        scope = sess.with_corpora({s: corpora[(f, s)] for s in names})
        for name in chosen:
            out["results"] += _tests(f, names, name, scope, resamples, seed, pair is None)
    out["note"] = "; ".join(notes) or None
    return out


def _tests(
    fixture: str,
    names: Sequence[str],
    profile: str,
    scope: Session,
    resamples: int,
    seed: int,
    best: bool,
) -> list[dict[str, Any]]:
    """The results of one fixture under one profile (an ``error`` entry when undefined)."""
    cfg = PROFILES[profile]

    def entry(baseline: str | None, system: str | None, **more: Any) -> dict[str, Any]:
        return {
            "fixture": fixture,
            "baseline": baseline,
            "system": system,
            "profile": profile,
            "error": None,
            **more,
        }

    try:
        tables = {s: prepare(scope.statistics(cfg, s), cfg) for s in names}
        if best:
            top, results = against_best(tables, cfg, resamples=resamples, seed=seed)
        else:
            top, other = names[0], names[1]
            results = {
                other: paired_bootstrap(
                    tables[top], tables[other], cfg, resamples=resamples, seed=seed
                )
            }
    except HarnessError as exc:
        return [entry(None, None, error=str(exc))]
    ranked = sorted(results, key=lambda s: -results[s].score_system)
    return [entry(top, s, **results[s].to_dict()) for s in ranked]
