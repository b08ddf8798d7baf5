"""Layer 2, BLEU itself: configuration, tokenizers, sufficient statistics and the arithmetic.

:mod:`~harness.bleu.config` (the frozen ``BleuConfig`` whose fields are the factors),
:mod:`~harness.bleu.tokenizers`, :mod:`~harness.bleu.stats` (statistics that add),
:mod:`~harness.bleu.fastcount` and :mod:`~harness.bleu.engine` (counting and scoring),
:mod:`~harness.bleu.profiles` (named configs that reproduce each library) and
:mod:`~harness.bleu.result`. Imports only :mod:`harness.errors` and :mod:`harness.data`.
"""
