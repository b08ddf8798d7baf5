"""Measuring for the pitfall experiments: every number through the one scoring path.

Real libraries and in-house profiles are both scorers (:mod:`harness.scorers`); each
``measure_*`` helper runs one through :func:`harness.scorers.score` and keeps its
:class:`~harness.scorers.Outcome` as a :class:`~harness.pitfalls.spec.Measurement`, so an
unavailable library, an unsupported setting or a library exception is a row with that status
and the reason, never a crash. Which libraries there are comes from the adapter registry
(:data:`REAL`, :data:`PROFILE_OF`, :data:`PROFILE_ONLY`); the helpers that read a table
(:func:`deciding`, :func:`profile_mismatches`, :func:`flipping_factors`, …) follow.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from harness.api import _label as profile_label
from harness.api import resolve_config
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.pitfalls.spec import Measurement, Table
from harness.scorers import (
    LIBRARY_ADAPTERS,
    PROFILE_OF,
    PROFILE_ONLY,
    Adapter,
    EngineScorer,
    Outcome,
    get_adapter,
    score,
    tolerance,
)

#: The real libraries every experiment may run (``evaluate`` only when its module loads), in
#: the registry's order. :data:`PROFILE_OF` maps each to the in-house profile that reproduces
#: its defaults; :data:`PROFILE_ONLY` are the profiles with no Python library to call (Perl
#: scripts): in-house numbers only.
REAL: tuple[str, ...] = LIBRARY_ADAPTERS

#: What :func:`measure_libraries` runs by default, as an experiment spec lists it.
EVERY_IMPLEMENTATION: tuple[str, ...] = (
    f"real: {', '.join(REAL)}",
    f"profiles: the same + {', '.join(PROFILE_ONLY)}",
)

_ADAPTER_CACHE: dict[str, Adapter] = {}


def adapter(name: str) -> Adapter:
    """The adapter ``name``, built once per pitfall run (evaluate's module load and its
    failure are then paid once)."""
    if name not in _ADAPTER_CACHE:
        _ADAPTER_CACHE[name] = get_adapter(name)
    return _ADAPTER_CACHE[name]


def forget_adapters() -> None:
    """Drop the adapters built so far (a new pitfall run builds its own)."""
    _ADAPTER_CACHE.clear()


def measure_adapter(
    name: str,
    corpus: Corpus,
    config: BleuConfig | None = None,
    *,
    case: str,
    label: str | None = None,
) -> Measurement:
    """The real library ``name`` on ``corpus`` (its defaults unless ``config``).

    Unavailable libraries, unsupported settings and library exceptions become measurements
    with that status and the reason, never a crash; the library's warnings are silenced.
    """
    label = label or name
    try:
        scorer = adapter(name)
    except HarnessError as exc:
        return Measurement.of(label, case, Outcome.failed(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Measurement.of(label, case, score(scorer, corpus, config))


def measure_profile(
    profile: str | BleuConfig,
    corpus: Corpus,
    *,
    case: str,
    label: str | None = None,
    **overrides: Any,
) -> Measurement:
    """The in-house engine with a profile (name or config) and overrides on ``corpus``,
    labelled ``harness:<profile>[+overrides]`` unless ``label``."""
    label = label or profile_label(profile, overrides)
    try:
        cfg = resolve_config(profile, **overrides)
    except HarnessError as exc:
        return Measurement.of(label, case, Outcome.failed(exc))
    return Measurement.of(label, case, score(EngineScorer(cfg, name=label), corpus))


def measure_call(
    label: str,
    call: Callable[[], Any],
    *,
    case: str,
    scale: float = 1.0,
    detail: str = "",
    signature: str = "",
) -> Measurement:
    """Any callable returning a number (home-made implementations: ``scale=100`` turns their
    0–1 into 0–100); an exception becomes a ``raises`` measurement with its text."""
    try:
        value = call()
    except Exception as exc:
        return Measurement.of(label, case, Outcome.failed(exc, signature))
    return Measurement(label, case, scale * float(value), "ok", detail, signature)


def measure_libraries(
    corpus: Corpus,
    *,
    case: str,
    config_for: Callable[[BleuConfig], BleuConfig] | None = None,
    real: Sequence[str] = REAL,
    profiles: Sequence[str] = (*PROFILE_OF.values(), *PROFILE_ONLY),
) -> list[Measurement]:
    """Every real library in ``real`` and every in-house profile in ``profiles`` on ``corpus``.

    ``config_for`` maps each implementation's default configuration to the one to run (e.g.
    pre-tokenizing with 13a for the whitespace-splitting libraries); by default each runs its
    own defaults. Real libraries are labelled by adapter name, profiles ``harness:<name>``.
    """
    out = []
    for name in real:
        cfg = None
        if config_for is not None:
            try:
                cfg = config_for(adapter(name).default_config())
            except HarnessError as exc:
                out.append(Measurement.of(name, case, Outcome.failed(exc)))
                continue
        out.append(measure_adapter(name, corpus, cfg, case=case))
    for name in profiles:
        base = PROFILES[name]
        cfg = config_for(base) if config_for is not None else base
        out.append(measure_profile(cfg, corpus, case=case, label=f"harness:{name}"))
    return out


def deciding(table: Table, case: str) -> dict[str, Measurement]:
    """The measurement that speaks for each implementation on ``case``: the real library when
    it ran (number or exception), its in-house profile when the library is unavailable here
    (labelled ``harness:<profile>``), and the profiles of libraries with no Python package."""
    out: dict[str, Measurement] = {}
    for name in REAL:
        m = table.find(name, case)
        if m is not None and m.status in ("ok", "raises", "non-finite"):
            out[name] = m
            continue
        twin = table.find(f"harness:{PROFILE_OF[name]}", case)
        if twin is not None:
            out[f"harness:{PROFILE_OF[name]}"] = twin
    for name in PROFILE_ONLY:
        m = table.find(f"harness:{name}", case)
        if m is not None:
            out[f"harness:{name}"] = m
    return out


def unavailable(table: Table) -> dict[str, str]:
    """Real libraries that could not run in this table, with the first reason given."""
    out: dict[str, str] = {}
    for m in table.rows:
        if m.status == "unavailable" and m.implementation not in out:
            out[m.implementation] = m.detail
    return out


def precision(label: str, floor: float = 1e-9) -> float:
    """BLEU points below which a real library's numbers are equal: its profile's verification
    tolerance (torchmetrics computes in float32: 1e-4) for a library label, at least ``floor``;
    ``floor`` for any other label."""
    return max(floor, tolerance(label)) if label in PROFILE_OF else floor


def profile_mismatches(table: Table, cases: Iterable[str]) -> list[str]:
    """``"<library>/<case>"`` wherever a real library and its in-house profile both gave a
    number and the numbers differ (beyond the profile's verification tolerance: 1e-9 BLEU
    points, torchmetrics 1e-4 for its float32; relative above 1) — a finding when non-empty."""
    out = []
    for case in cases:
        for name in REAL:
            a = table.find(name, case)
            b = table.find(f"harness:{PROFILE_OF[name]}", case)
            if a is None or b is None or not (a.ok and b.ok):
                continue
            if a.score is None or b.score is None:
                continue
            if abs(a.score - b.score) > precision(name) * max(1.0, abs(a.score)):
                out.append(f"{name}/{case}")
    return out


def profile_of(label: str) -> BleuConfig:
    """The configuration behind a label of :func:`deciding`: a real library's profile
    (``"nltk"``) or a profile (``"harness:mteval-v13a"``)."""
    name = label.removeprefix("harness:")
    return PROFILES[PROFILE_OF.get(name, name)]


def flipping_factors(
    base: BleuConfig,
    target: BleuConfig | Sequence[BleuConfig],
    holds: Callable[[BleuConfig], bool],
    *,
    factors: Sequence[str] | None = None,
) -> list[str]:
    """The factors that decide a claim for ``base``: each single change of one factor of
    ``base`` to the value it has in ``target`` (or in any of several targets) that makes
    ``holds`` true, as ``"factor=value"``. ``holds`` raising a harness error counts as false.

    Used to say *why* a claim flips for an implementation: e.g. for nltk on the silence
    pitfall, setting ``ngram_totals`` from ``floor1`` to ``plain`` alone restores A < B.
    """
    targets = [target] if isinstance(target, BleuConfig) else list(target)
    names = factors or [
        f.name for f in dataclasses.fields(BleuConfig) if f.name not in ("library", "extra")
    ]
    out: list[str] = []
    for name in names:
        for tgt in targets:
            value = getattr(tgt, name)
            label = f"{name}={_fmt_value(value)}"
            if getattr(base, name) == value or label in out:
                continue
            changes: dict[str, Any] = {name: value}
            if name == "smooth":
                changes["smooth_value"] = tgt.smooth_value
            try:
                ok = holds(base.replace(**changes))
            except HarnessError:
                ok = False
            if ok:
                out.append(label)
    return out


def _fmt_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def close(first: float | None, second: float | None, tol: float = 1e-9) -> bool:
    """Both numbers present and within ``tol`` BLEU points (relative above 1)."""
    if first is None or second is None:
        return False
    return abs(first - second) <= tol * max(1.0, abs(first), abs(second))


def fmt(score: float | None, digits: int = 2) -> str:
    """A score for a reason line: fixed decimals, tiny positives in e-notation, ``-`` for none."""
    if score is None:
        return "-"
    if 0 < abs(score) < 0.5 * 10**-digits:
        return f"{score:.1e}"
    return f"{score:.{digits}f}"
