"""The analysis layer: differences, attribution, human judgments, significance,
and the analysis step of a report (:mod:`harness.analysis.study`: rows and the run's session →
a typed :class:`~harness.analysis.study_types.Report`).

It reads the tidy results table of the run stage (:mod:`harness.run`) and the cached statistics of
:mod:`harness.bleu.engine`, never the libraries directly. The arithmetic of correlations and of
the WMT meta-evaluation is :mod:`harness.statistics`.
"""
