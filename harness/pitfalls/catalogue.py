"""The catalogue of pitfall experiments: discovering, running and printing them.

The experiments are the packaged catalogue :mod:`harness.pitfalls.experiments` (one module per
experiment, each defining ``EXPERIMENT``; shipped in the wheel, so ``pip install .`` runs them);
:func:`discover` reads it, or a folder of your own named by ``BLEU_HARNESS_EXPERIMENTS``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, HarnessError
from harness.pitfalls.measure import forget_adapters
from harness.pitfalls.spec import Experiment, ExperimentResult, Table, Verdict
from harness.progress import ProgressCallback, track

ENV_EXPERIMENTS = "BLEU_HARNESS_EXPERIMENTS"

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
    forget_adapters()
    try:
        return [run_experiment(exp) for exp in track(chosen, progress, "pitfalls")]
    finally:
        forget_adapters()
