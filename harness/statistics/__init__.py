"""Pure statistics: correlations with their bootstrap intervals, and the WMT Metrics task's
agreement statistics and permutation tests.

Nothing here knows BLEU, a corpus or a report: arrays of numbers in, frozen results out. The
package imports only numpy, scipy (where a function needs it), threadpoolctl (BLAS on one
thread: :mod:`harness.statistics.blas`) and the foundation modules
:mod:`harness.errors` and :mod:`harness.progress`; ``tests/test_architecture.py`` holds it to
that, so that these functions can be checked against scipy and mt-metrics-eval on their own.
"""
