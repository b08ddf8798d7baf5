"""Statistics once per tokenization, shared by every analysis and command.

:mod:`~harness.session.cache` (in-memory and on-disk statistics by content) and
:mod:`~harness.session.parallel` (``--jobs`` / Dask sharding).
"""
