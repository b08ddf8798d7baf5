"""Layer 1, data: what is scored, never how.

:mod:`~harness.data.corpus` (``Corpus``: hypotheses with per-segment references, ids, the
layout converters), :mod:`~harness.data.io` (strict text and JSONL loaders, atomic writers),
:mod:`~harness.data.datasets` (the real WMT/COCO data under ``BLEU_HARNESS_DATA``) and
:mod:`~harness.data.fixtures` (the shipped seed and edge-case fixtures). Nothing here imports
from the scoring or analysis layers.
"""
