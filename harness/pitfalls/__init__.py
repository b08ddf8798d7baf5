"""Pitfall experiments: a claim with its source, run on the real libraries, with a computed verdict.

An :class:`Experiment` is a small declarative spec — ``name``, a one-sentence ``claim``, the
``source`` it comes from (a seed file name, a paper, an issue thread), the ``fixtures``, the
``implementations`` and ``configs`` it uses — plus two functions: ``run()`` measures (real
libraries and in-house profiles alike through :mod:`harness.scorers`, home-made
re-derivations, all in the same run) and returns a :class:`Table`; ``verdict(table)``
turns those numbers into a :class:`Verdict`: ``reproduced``, ``not reproduced`` or ``reproduced
only under: <named implementations or conditions>``, with a one-line reason. Nothing in a
verdict is typed in: it is computed from the table, and the table says which library produced
each number.

The experiments themselves are the packaged catalogue :mod:`harness.pitfalls.experiments` (one
module per experiment, each defining ``EXPERIMENT``; shipped in the wheel, so ``pip install .``
runs them); :func:`discover` reads it, or a folder of your own named by
``BLEU_HARNESS_EXPERIMENTS``.

The framework: :mod:`~harness.pitfalls.spec` (measurements, tables, verdicts, the experiment
spec), :mod:`~harness.pitfalls.measure` (every number through :func:`harness.scorers.score`,
and the helpers that read a table), :mod:`~harness.pitfalls.catalogue` (discovery, running,
the run). The console table is :func:`harness.report.pitfalls.format_table`. Experiments
import all of it from here.

Entry points for the CLI (``bleu-harness pitfalls [--json] [--name N]``)::

    results = run_pitfalls()            # or run_pitfalls(["silence", "reference_layout"])
    print(harness.report.pitfalls.format_table(results))
    json.dumps(to_json(results), allow_nan=False)

Scores in tables are on 0–100 (the harness convention); seed articles print 0–1, and
experiments that compare with a printed number convert it explicitly.
"""

from __future__ import annotations

from harness.pitfalls.catalogue import (
    ENV_EXPERIMENTS,
    PACKAGED,
    discover,
    experiments_dir,
    run_experiment,
    run_pitfalls,
)
from harness.pitfalls.measure import (
    EVERY_IMPLEMENTATION,
    PROFILE_OF,
    PROFILE_ONLY,
    REAL,
    adapter,
    close,
    deciding,
    flipping_factors,
    fmt,
    measure_adapter,
    measure_call,
    measure_libraries,
    measure_profile,
    precision,
    profile_mismatches,
    profile_of,
    unavailable,
)
from harness.pitfalls.spec import (
    STATUSES,
    Experiment,
    ExperimentResult,
    Measurement,
    Table,
    Verdict,
)

__all__ = [
    "ENV_EXPERIMENTS",
    "EVERY_IMPLEMENTATION",
    "PACKAGED",
    "PROFILE_OF",
    "PROFILE_ONLY",
    "REAL",
    "STATUSES",
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
    "measure_adapter",
    "measure_call",
    "measure_libraries",
    "measure_profile",
    "precision",
    "profile_mismatches",
    "profile_of",
    "run_experiment",
    "run_pitfalls",
    "unavailable",
]
