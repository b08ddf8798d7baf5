"""The run stage: a planned comparison run once, and the typed table of its rows.

:class:`RunPlan` says what to run (corpora, implementations, levels, the session, the seed);
:func:`run` runs it — the in-house profiles on shared statistics, the real libraries as tasks —
and is the one way a comparison runs; :class:`~harness.run.results.Results` is the rows it
returns, which the analysis (:mod:`harness.analysis`) reads and never recomputes.

>>> from harness.data.fixtures import load_fixture
>>> rows = run(RunPlan.of(load_fixture("silence_pitfall").triples(), ["sacrebleu", "nltk"]))
>>> sorted(set(rows.labels()))
['harness:nltk', 'harness:sacrebleu']
"""

from harness.run.plan import RunPlan, named_corpora
from harness.run.results import Results
from harness.run.runner import Implementation, run

__all__ = ["Implementation", "Results", "RunPlan", "named_corpora", "run"]
