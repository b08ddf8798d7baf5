"""Diagnosing a BLEU number or implementation nobody can explain.

:mod:`~harness.diagnose.identify` (which configurations print a reported score),
:mod:`~harness.diagnose.validate` (run a home-made implementation and name what it gets wrong)
and :mod:`~harness.diagnose.homemade` (the seed articles' own algorithms, re-derived); both
diagnoses score through :mod:`~harness.diagnose.many_configs` (the engine's scores of corpora
under many configurations, statistics counted once for all of them).
"""
