"""Pitfall experiments: a claim with its source, run on the real libraries, with a computed verdict.

An :class:`Experiment` is a small declarative spec — ``name``, a one-sentence ``claim``, the
``source`` it comes from (a seed file name, a paper, an issue thread), the ``fixtures``, the
``implementations`` and ``configs`` it uses — plus two functions: ``run()`` measures (real
libraries through :mod:`harness.scorers`, in-house profiles through :mod:`harness.bleu.engine`,
home-made re-derivations, all in the same run) and returns a :class:`Table`; ``verdict(table)``
turns those numbers into a :class:`Verdict`: ``reproduced``, ``not reproduced`` or ``reproduced
only under: <named implementations or conditions>``, with a one-line reason. Nothing in a
verdict is typed in: it is computed from the table, and the table says which library produced
each number.

The experiments themselves are the packaged catalogue :mod:`harness.pitfalls.experiments` (one
module per experiment, each defining ``EXPERIMENT``; shipped in the wheel, so ``pip install .``
runs them); :func:`discover` reads it, or a folder of your own named by
``BLEU_HARNESS_EXPERIMENTS``.

Entry points for the CLI (``bleu-harness pitfalls [--json] [--name N]``)::

    results = run_pitfalls()            # or run_pitfalls(["silence", "reference_layout"])
    print(format_table(results))
    json.dumps([r.to_dict() for r in results], allow_nan=False)

Scores in tables are on 0–100 (the harness convention); seed articles print 0–1, and
experiments that compare with a printed number convert it explicitly.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import numbers
import os
import pkgutil
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.bleu.config import BleuConfig
from harness.data.corpus import Corpus
from harness.errors import (
    AdapterUnavailable,
    ConfigError,
    HarnessError,
    LayoutError,
    LibraryWouldRaise,
    UnsupportedSetting,
)
from harness.progress import ProgressCallback, track

__all__ = [
    "ENV_EXPERIMENTS",
    "PROFILE_OF",
    "PROFILE_ONLY",
    "REAL",
    "Experiment",
    "ExperimentResult",
    "Measurement",
    "Table",
    "Verdict",
    "adapter",
    "close",
    "deciding",
    "discover",
    "experiments_dir",
    "flipping_factors",
    "fmt",
    "format_table",
    "measure_adapter",
    "measure_call",
    "measure_libraries",
    "measure_profile",
    "profile_mismatches",
    "run_experiment",
    "run_pitfalls",
    "unavailable",
]

ENV_EXPERIMENTS = "BLEU_HARNESS_EXPERIMENTS"

#: The real libraries every experiment may run (``evaluate`` only when its module loads).
REAL: tuple[str, ...] = (
    "sacrebleu",
    "sacrebleu-sentence",
    "nltk",
    "evaluate",
    "bleuscore",
    "torchmetrics",
    "torchmetrics-sacrebleu",
    "pycocoevalcap",
)

#: Real adapter → the in-house profile that reproduces its defaults.
PROFILE_OF: dict[str, str] = {name: name for name in REAL}

#: Profiles with no Python library to call (Perl scripts): in-house numbers only.
PROFILE_ONLY: tuple[str, ...] = ("mteval-v13a", "multi-bleu", "multi-bleu-detok")

STATUSES = ("ok", "raises", "refused", "unavailable", "unsupported", "non-finite", "error")
"""Measurement statuses: a number (``ok``); the library raised (``raises``); the harness refused
the input on purpose (``refused``); the library cannot run here (``unavailable``) or cannot
express the setting (``unsupported``); a NaN/inf came back (``non-finite``); anything else
(``error``)."""


# ============================================================================ measurements
@dataclass(frozen=True)
class Measurement:
    """One number (or the reason there is none) from one implementation on one case.

    ``implementation`` names who computed it: a real library by its adapter name
    (``"sacrebleu"``), an in-house profile as ``"harness:<profile>"`` (``"harness:<profile>+…"``
    with overrides), a home-made re-derivation as ``"homemade:<function>"``, or a harness API
    call. ``case`` names what was scored (a system, an ordering, a layout, a config).
    ``score`` is on 0–100, ``None`` unless ``status == "ok"``; ``detail`` holds the error text
    or a note; ``extra`` holds JSON-ready statistics (counts, totals, bp, lengths).
    """

    implementation: str
    case: str
    score: float | None
    status: str = "ok"
    detail: str = ""
    signature: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.score is not None and not math.isfinite(self.score):
            object.__setattr__(self, "detail", f"{self.score!r} {self.detail}".strip())
            object.__setattr__(self, "score", None)
            object.__setattr__(self, "status", "non-finite")
        if self.status == "ok" and self.score is None:
            raise ValueError("an ok measurement needs a score")
        object.__setattr__(self, "extra", _jsonable(dict(self.extra)))

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"score": self.score, "status": self.status}
        if self.detail:
            d["detail"] = self.detail
        if self.extra:
            d["extra"] = dict(self.extra)
        return d


def _jsonable(value: Any) -> Any:
    """Plain JSON values: tuples → lists, numpy scalars → Python, NaN/inf → ``None``."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        return f if math.isfinite(f) else None
    return str(value)


class Table:
    """The measurements of one experiment run, plus ``notes`` (JSON-ready facts the verdict
    uses that are not scores, e.g. which data set was used or how many hypotheses sacrebleu
    scored)."""

    def __init__(self) -> None:
        self.rows: list[Measurement] = []
        self.notes: dict[str, Any] = {}

    def add(self, m: Measurement) -> Measurement:
        self.rows.append(m)
        return m

    def extend(self, ms: Iterable[Measurement]) -> None:
        self.rows.extend(ms)

    def get(self, implementation: str, case: str) -> Measurement:
        """The measurement of ``implementation`` on ``case`` (``KeyError`` if absent)."""
        for m in self.rows:
            if m.implementation == implementation and m.case == case:
                return m
        raise KeyError((implementation, case))

    def find(self, implementation: str, case: str) -> Measurement | None:
        try:
            return self.get(implementation, case)
        except KeyError:
            return None

    def score(self, implementation: str, case: str) -> float | None:
        m = self.find(implementation, case)
        return m.score if m is not None and m.ok else None

    def implementations(self) -> list[str]:
        return list(dict.fromkeys(m.implementation for m in self.rows))

    def cases(self, implementation: str | None = None) -> list[str]:
        return list(
            dict.fromkeys(
                m.case
                for m in self.rows
                if implementation is None or m.implementation == implementation
            )
        )

    def numbers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """``{implementation: {case: {"score", "status", ["detail"], ["extra"]}}}``."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for m in self.rows:
            out.setdefault(m.implementation, {})[m.case] = m.to_dict()
        return out

    def signatures(self) -> dict[str, list[str]]:
        """Implementation → the distinct signatures of its measurements (in order)."""
        out: dict[str, list[str]] = {}
        for m in self.rows:
            if m.signature and m.signature not in out.setdefault(m.implementation, []):
                out[m.implementation].append(m.signature)
        return {k: v for k, v in out.items() if v}


# ============================================================================ verdicts
@dataclass(frozen=True)
class Verdict:
    """``status`` is ``"reproduced"``, ``"not reproduced"`` or ``"reproduced only under"``
    (then ``under`` names the implementations or conditions); ``reason`` is one line saying
    why, computed from the numbers."""

    status: str
    reason: str
    under: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        valid = ("reproduced", "not reproduced", "reproduced only under", "error")
        if self.status not in valid:
            raise ValueError(f"unknown verdict {self.status!r}; valid: {', '.join(valid)}")
        if self.status == "reproduced only under" and not self.under:
            raise ValueError("'reproduced only under' needs the implementations it holds for")

    @property
    def text(self) -> str:
        if self.status == "reproduced only under":
            return f"reproduced only under: {', '.join(self.under)}"
        return self.status

    def __str__(self) -> str:
        return self.text

    @classmethod
    def split(cls, holds: Sequence[str], fails: Sequence[str], reason: str) -> Verdict:
        """``reproduced`` when nothing fails, ``not reproduced`` when nothing holds, else
        ``reproduced only under: <holds>``."""
        if holds and not fails:
            return cls("reproduced", reason)
        if not holds:
            return cls("not reproduced", reason)
        return cls("reproduced only under", reason, tuple(holds))


@dataclass(frozen=True)
class Experiment:
    """A pitfall as a spec: the claim, where it comes from, what it runs, how it is judged.

    ``fixtures`` are shipped fixture names (or data sets); ``implementations`` the real
    adapters, profiles and home-made functions it measures; ``configs`` short descriptions of
    the settings varied. ``run()`` returns the :class:`Table`; ``verdict(table)`` the
    :class:`Verdict`.
    """

    name: str
    claim: str
    source: str
    fixtures: tuple[str, ...]
    implementations: tuple[str, ...]
    configs: tuple[str, ...]
    run: Callable[[], Table]
    verdict: Callable[[Table], Verdict]


@dataclass(frozen=True)
class ExperimentResult:
    """An experiment's table and computed verdict (``error`` set when the run crashed)."""

    experiment: Experiment
    table: Table
    verdict: Verdict
    seconds: float
    error: str | None = None

    @property
    def name(self) -> str:
        return self.experiment.name

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: name, claim, source, verdict, reason, numbers (per implementation and
        case: score and status), signatures, and the spec's fixtures/implementations/configs."""
        e = self.experiment
        return {
            "name": e.name,
            "claim": e.claim,
            "source": e.source,
            "verdict": self.verdict.text,
            "verdict_status": self.verdict.status,
            "under": list(self.verdict.under),
            "reason": self.verdict.reason,
            "numbers": self.table.numbers(),
            "signatures": self.table.signatures(),
            "notes": _jsonable(self.table.notes),
            "fixtures": list(e.fixtures),
            "implementations": list(e.implementations),
            "configs": list(e.configs),
            "scale": "0-100",
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


# ============================================================================ measuring
_ADAPTER_CACHE: dict[str, Any] = {}


def adapter(name: str) -> Any:
    """The adapter ``name``, built once per pitfall run (evaluate's module load and its
    failure are then paid once)."""
    if name not in _ADAPTER_CACHE:
        from harness.scorers import get_adapter

        _ADAPTER_CACHE[name] = get_adapter(name)
    return _ADAPTER_CACHE[name]


def _stats_extra(result: Any) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "hyp_len": result.hyp_len,
        "ref_len": result.ref_len,
        "bp": result.bp if math.isfinite(result.bp) else None,
    }
    if result.counts is not None:
        extra["counts"] = list(result.counts)
    if result.totals is not None:
        extra["totals"] = list(result.totals)
    return extra


def _failure(label: str, case: str, exc: BaseException, signature: str = "") -> Measurement:
    if isinstance(exc, AdapterUnavailable):
        status, detail = "unavailable", str(exc)
    elif isinstance(exc, UnsupportedSetting):
        status, detail = "unsupported", exc.reason
    elif isinstance(exc, LibraryWouldRaise):
        status, detail = "raises", f"{exc.library_exception} ({exc.reason})"
    elif isinstance(exc, LayoutError | ConfigError):
        status, detail = "refused", f"{type(exc).__name__}: {exc}"
    elif isinstance(exc, HarnessError):
        status, detail = "error", f"{type(exc).__name__}: {exc}"
    else:  # the real library (or home-made code) raised: that is data
        status, detail = "raises", f"{type(exc).__name__}: {exc}"
    return Measurement(label, case, None, status, detail, signature)


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
    with that status and the reason, never a crash.
    """
    label = label or name
    try:
        ad = adapter(name)
        cfg = ad.default_config() if config is None else config
        sig = ad.signature(cfg)
    except HarnessError as exc:
        return _failure(label, case, exc)
    avail = ad.available()
    if not avail.ok:
        detail = avail.reason + (f" (fix: {avail.hint})" if avail.hint else "")
        return Measurement(label, case, None, "unavailable", detail, sig)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = ad.corpus(corpus, cfg)
    except Exception as exc:
        return _failure(label, case, exc, sig)
    return Measurement(label, case, r.score, "ok", "", r.signature, _stats_extra(r))


def measure_profile(
    profile: str | BleuConfig,
    corpus: Corpus,
    *,
    case: str,
    label: str | None = None,
    **overrides: Any,
) -> Measurement:
    """The in-house engine with a profile (name or config) and overrides on ``corpus``."""
    from harness.api import resolve_config
    from harness.bleu import engine

    if label is None:
        name = profile if isinstance(profile, str) else "custom"
        label = f"harness:{name}"
        if overrides:
            label += "+" + ",".join(f"{k}={v}" for k, v in sorted(overrides.items()))
    try:
        cfg = resolve_config(profile, **overrides)
    except HarnessError as exc:
        return _failure(label, case, exc)
    sig = cfg.signature()
    try:
        r = engine.corpus_score(corpus, cfg, implementation=label)
    except HarnessError as exc:
        return _failure(label, case, exc, sig)
    return Measurement(label, case, r.score, "ok", "", sig, _stats_extra(r))


def measure_call(
    label: str,
    fn: Callable[[], Any],
    *,
    case: str,
    scale: float = 1.0,
    detail: str = "",
    signature: str = "",
) -> Measurement:
    """Any callable returning a number (home-made implementations: ``scale=100`` turns their
    0–1 into 0–100); an exception becomes a ``raises`` measurement with its text."""
    try:
        value = fn()
    except Exception as exc:
        return _failure(label, case, exc, signature)
    return Measurement(label, case, scale * float(value), "ok", detail, signature)


def measure_libraries(
    corpus: Corpus,
    *,
    case: str,
    config_for: Callable[[BleuConfig], BleuConfig] | None = None,
    real: Sequence[str] = REAL,
    profiles: Sequence[str] = (*REAL, *PROFILE_ONLY),
) -> list[Measurement]:
    """Every real library in ``real`` and every in-house profile in ``profiles`` on ``corpus``.

    ``config_for`` maps each implementation's default configuration to the one to run (e.g.
    pre-tokenizing with 13a for the whitespace-splitting libraries); by default each runs its
    own defaults. Real libraries are labelled by adapter name, profiles ``harness:<name>``.
    """
    from harness.bleu.profiles import PROFILES

    out = []
    for name in real:
        cfg = None
        if config_for is not None:
            try:
                cfg = config_for(adapter(name).default_config())
            except HarnessError as exc:
                out.append(_failure(name, case, exc))
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


def profile_mismatches(table: Table, cases: Iterable[str]) -> list[str]:
    """``"<library>/<case>"`` wherever a real library and its in-house profile both gave a
    number and the numbers differ (1e-9 BLEU points; torchmetrics 1e-4, float32) — a finding
    when non-empty."""
    out = []
    for case in cases:
        for name in REAL:
            a = table.find(name, case)
            b = table.find(f"harness:{PROFILE_OF[name]}", case)
            if a is None or b is None or not (a.ok and b.ok):
                continue
            tol = 1e-4 if name.startswith("torchmetrics") else 1e-9
            if abs(a.score - b.score) > tol * max(1.0, abs(a.score)):  # type: ignore[operator]
                out.append(f"{name}/{case}")
    return out


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


def close(a: float | None, b: float | None, tol: float = 1e-9) -> bool:
    """Both numbers present and within ``tol`` BLEU points (relative above 1)."""
    if a is None or b is None:
        return False
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def fmt(score: float | None, digits: int = 2) -> str:
    """A score for a reason line: fixed decimals, tiny positives in e-notation, ``-`` for none."""
    if score is None:
        return "-"
    if 0 < abs(score) < 0.5 * 10**-digits:
        return f"{score:.1e}"
    return f"{score:.{digits}f}"


# ============================================================================ discovery
#: The packaged catalogue (``harness/pitfalls/experiments/``), shipped in the wheel.
PACKAGED = "harness.pitfalls.experiments"


def experiments_dir() -> Path:
    """Where the experiments are read from: ``$BLEU_HARNESS_EXPERIMENTS`` (a folder named
    ``experiments`` holding your own catalogue) or the packaged catalogue."""
    env = os.environ.get(ENV_EXPERIMENTS, "").strip()
    if env:
        return Path(env).expanduser().resolve()
    return Path(__file__).resolve().parent / "experiments"


def _import_folder(folder: Path) -> Any:
    """Import a user's ``folder`` as the top-level package ``experiments`` (its parent on
    sys.path)."""
    if folder.name != "experiments":
        raise HarnessError(
            f"the experiments folder must be named 'experiments' (it is imported as the "
            f"package 'experiments'), got {folder}"
        )
    root = str(folder.parent)
    loaded = sys.modules.get("experiments")
    if loaded is None:
        spec = importlib.util.find_spec("experiments") if root in sys.path else None
        if spec is None or not spec.origin or Path(spec.origin).resolve().parent != folder:
            if root in sys.path:
                sys.path.remove(root)
            sys.path.insert(0, root)
        loaded = importlib.import_module("experiments")
    origin = getattr(loaded, "__file__", None)
    if origin is None or Path(origin).resolve().parent != folder:
        raise HarnessError(
            f"another package named 'experiments' is already imported (from {origin}); the "
            f"pitfall experiments are in {folder}"
        )
    return loaded


def discover() -> dict[str, Experiment]:
    """Every experiment, by name, in the order of the catalogue's ``ORDER`` (then by name).

    The catalogue is the packaged ``harness.pitfalls.experiments`` unless
    ``$BLEU_HARNESS_EXPERIMENTS`` names a folder of your own. Raises
    :class:`~harness.errors.HarnessError` when that folder is missing or is not a catalogue, or
    a module does not define an ``EXPERIMENT``.
    """
    folder = experiments_dir()
    if os.environ.get(ENV_EXPERIMENTS, "").strip():
        if not (folder / "__init__.py").is_file():
            raise HarnessError(
                f"the pitfall experiments were not found: {ENV_EXPERIMENTS} names {folder}, "
                f"which is not a package (no __init__.py). Unset {ENV_EXPERIMENTS} to run the "
                f"packaged catalogue"
            )
        package = _import_folder(folder)
        prefix = "experiments"
    else:
        package = importlib.import_module(PACKAGED)
        prefix = PACKAGED
    if not hasattr(package, "ORDER"):
        raise HarnessError(
            f"{folder} is not a bleu-harness experiments package (its __init__.py defines no ORDER)"
        )
    found: dict[str, Experiment] = {}
    for info in pkgutil.iter_modules([str(folder)]):
        if info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{prefix}.{info.name}")
        exp = getattr(module, "EXPERIMENT", None)
        if not isinstance(exp, Experiment):
            raise HarnessError(
                f"experiments/{info.name}.py defines no EXPERIMENT = Experiment(...)"
            )
        if exp.name in found:
            raise HarnessError(f"two experiments are named {exp.name!r}")
        found[exp.name] = exp
    order = list(getattr(package, "ORDER", ()))
    rank = {name: i for i, name in enumerate(order)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


# ============================================================================ running
def run_experiment(exp: Experiment) -> ExperimentResult:
    """Run one experiment and compute its verdict; a crash becomes an ``error`` verdict."""
    start = time.perf_counter()
    table = Table()
    try:
        table = exp.run()
        verdict = exp.verdict(table)
        error = None
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        verdict = Verdict("error", f"the experiment crashed: {error}")
    return ExperimentResult(exp, table, verdict, time.perf_counter() - start, error)


def run_pitfalls(
    names: Sequence[str] | str | None = None, *, progress: ProgressCallback | None = None
) -> list[ExperimentResult]:
    """Run the pitfall experiments (all, or those named) and return their results in order.

    ``progress`` (:data:`~harness.progress.ProgressCallback`) is told of each finished
    experiment (stage ``"pitfalls"``).

    Unknown names raise :class:`~harness.errors.ConfigError` listing the valid ones; a missing
    ``experiments`` package raises :class:`~harness.errors.HarnessError` saying where it is
    expected.
    """
    available = discover()
    if isinstance(names, str):
        names = [names]
    if names is None:
        chosen = list(available.values())
    else:
        unknown = [n for n in names if n not in available]
        if unknown:
            raise ConfigError(f"unknown experiment(s) {', '.join(unknown)}", valid=list(available))
        chosen = [available[n] for n in dict.fromkeys(names)]
    _ADAPTER_CACHE.clear()
    try:
        return [run_experiment(exp) for exp in track(chosen, progress, "pitfalls")]
    finally:
        _ADAPTER_CACHE.clear()


def format_table(results: Sequence[ExperimentResult]) -> str:
    """A console report: one block per experiment with its verdict, claim, source and reason."""
    if not results:
        return "(no experiments)"
    width = max(len(r.name) for r in results)
    lines = [f"{'experiment'.ljust(width)}  verdict", f"{'-' * width}  {'-' * 60}"]
    for r in results:
        lines.append(f"{r.name.ljust(width)}  {r.verdict.text}")
        pad = " " * (width + 2)
        lines.append(f"{pad}claim:  {r.experiment.claim}")
        lines.append(f"{pad}source: {r.experiment.source}")
        lines.append(f"{pad}reason: {r.verdict.reason}")
        lines.append(f"{pad}({r.seconds:.1f} s)")
    total = sum(r.seconds for r in results)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict.status] = counts.get(r.verdict.status, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    lines.append(f"{len(results)} experiments in {total:.1f} s: {summary}")
    return "\n".join(lines)
