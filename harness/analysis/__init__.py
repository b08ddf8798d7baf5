"""The analysis layer: differences, correlations, attribution, human judgments, significance.

It reads the tidy results table of :mod:`harness.runner` and the cached statistics of
:mod:`harness.engine`, never the libraries directly.
"""
