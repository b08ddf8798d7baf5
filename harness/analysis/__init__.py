"""The analysis layer: differences, correlations, attribution, human judgments, significance.

It reads the tidy results table of :mod:`harness.analysis.runner` and the cached statistics of
:mod:`harness.bleu.engine`, never the libraries directly.
"""
