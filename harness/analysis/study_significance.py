"""The report's significance section: every system against the best, or a pair the user chose.

For each fixture with two or more systems (at most :data:`MAX_SIGNIFICANCE_FIXTURES`), the
system with the highest score under a profile is the baseline and every other system is
tested against it with the paired bootstrap (:func:`harness.analysis.significance.
against_best`, Koehn 2004) on statistics counted once per system by the run's session. A
fixture is tested under every in-house profile of the rows while that stays within
:data:`MAX_TESTS` tests, else under the baseline profile (sacrebleu, else the first profile)
only. With ``pair=(baseline, system)`` only that pair is tested, wherever both systems are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from harness.analysis.labels import labels_in
from harness.analysis.significance import against_best, paired_bootstrap, prepare
from harness.analysis.study_types import Significance, SignificanceTest
from harness.analysis.why import Why
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.run.results import ResultRow, Results
from harness.session import Session
from harness.typed_json import from_json, to_json

__all__ = [
    "MAX_SIGNIFICANCE_FIXTURES",
    "MAX_TESTS",
    "SIGNIFICANCE_RESAMPLES",
    "default_significance",
]

#: Paired-bootstrap resamples of the default significance section.
SIGNIFICANCE_RESAMPLES = 1000
#: The default significance section tests at most this many multi-system fixtures.
MAX_SIGNIFICANCE_FIXTURES = 4
#: A fixture is tested under every profile while (systems − 1) × profiles stays within this.
MAX_TESTS = 60

_TEST_KEYS = tuple(
    key
    for key in SignificanceTest.__dataclass_fields__
    if key not in ("fixture", "baseline", "system", "profile", "error")
)


def _profiles(rows: Results | Sequence[ResultRow]) -> list[str]:
    return [
        lb.split(":", 1)[1]
        for lb in labels_in(rows)
        if lb.startswith("harness:") and lb.split(":", 1)[1] in PROFILES
    ]


def default_significance(
    rows: Results | Sequence[ResultRow],
    corpora: Mapping[tuple[str, str], Corpus],
    seed: int,
    session: Session,
    resamples: int = SIGNIFICANCE_RESAMPLES,
    *,
    pair: tuple[str, str] | None = None,
) -> Significance:
    """The ``significance`` section: paired bootstrap of every system against the best of
    its fixture, or of ``pair`` (module docstring), on statistics ``session`` counts."""
    design: Literal["against-best", "pair"] = "against-best" if pair is None else "pair"
    results: list[SignificanceTest] = []

    def section(*notes: Why) -> Significance:
        return Significance("paired-bootstrap", resamples, seed, design, tuple(results), notes)

    profiles = _profiles(rows)
    systems: dict[str, list[str]] = {}
    for f, s in corpora:
        systems.setdefault(f, []).append(s)
    multi = [(f, ss) for f, ss in systems.items() if len(ss) >= 2]
    if pair is not None:
        multi = [(f, list(pair)) for f, ss in multi if set(pair) <= set(ss)]
    if not corpora:
        return section(Why("without-corpora"))
    if not profiles:
        return section(Why("no-in-house-profile"))
    if not multi:
        return section(
            Why("no-multi-system-fixture") if pair is None else Why("no-fixture-with-pair", pair)
        )
    notes = []
    if len(multi) > MAX_SIGNIFICANCE_FIXTURES:
        notes.append(Why("fixtures-capped", numbers=(MAX_SIGNIFICANCE_FIXTURES, len(multi))))
    base_profile = "sacrebleu" if "sacrebleu" in profiles else profiles[0]
    for f, names in multi[:MAX_SIGNIFICANCE_FIXTURES]:
        chosen = profiles if (len(names) - 1) * len(profiles) <= MAX_TESTS else [base_profile]
        if len(chosen) < len(profiles):
            tests = (len(names) - 1) * len(profiles)
            notes.append(Why("one-profile", (f, base_profile), (len(names), len(profiles), tests)))
        scope = session.with_corpora({s: corpora[(f, s)] for s in names})
        for name in chosen:
            results += _tests(f, names, name, scope, resamples, seed, pair is None)
    return section(*notes)


def _tests(
    fixture: str,
    names: Sequence[str],
    profile: str,
    scope: Session,
    resamples: int,
    seed: int,
    best: bool,
) -> list[SignificanceTest]:
    """The results of one fixture under one profile (an ``error`` entry when undefined)."""
    cfg = PROFILES[profile]

    def entry(baseline: str | None, system: str | None, **more: Any) -> SignificanceTest:
        record = {
            "fixture": fixture,
            "baseline": baseline,
            "system": system,
            "profile": profile,
            "error": None,
            **dict.fromkeys(_TEST_KEYS),
            **more,
        }
        return from_json(SignificanceTest, record, "significance")

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
    return [entry(top, s, **to_json(results[s])) for s in ranked]
