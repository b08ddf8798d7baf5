"""The run stage: a planned comparison run once, and the typed table of its rows.

:class:`~harness.run.plan.RunPlan` says what to run (corpora, implementations, levels, the
session, the seed); :mod:`harness.run.runner` runs it (the in-house profiles on shared
statistics, the real libraries as tasks); :class:`~harness.run.results.Results` is the rows it
returns, which the analysis (:mod:`harness.analysis`) reads and never recomputes.
"""
