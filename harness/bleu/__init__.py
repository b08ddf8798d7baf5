"""Layer 2, BLEU itself: configuration, tokenizers, sufficient statistics and the arithmetic.

:mod:`~harness.bleu.config` (the frozen ``BleuConfig`` whose fields are the factors),
:mod:`~harness.bleu.tokenizers`, :mod:`~harness.bleu.stats` (statistics that add, and the
reference-length rules), :mod:`~harness.bleu.fastcount` and :mod:`~harness.bleu.engine`
(counting, summing and aggregating), :mod:`~harness.bleu.smoothing` (the registry of smoothing
methods), :mod:`~harness.bleu.arithmetic` (rows of statistics → scores: the only BLEU
arithmetic), :mod:`~harness.bleu.profiles` (named configs that reproduce each library) and
:mod:`~harness.bleu.result`. Imports only :mod:`harness.errors` and :mod:`harness.data`.

Inside the layer imports run one way: the leaves ``smoothing``, ``stats``, ``tokenizers`` and
``result`` ← ``config`` ← ``arithmetic`` ← ``engine``; ``fastcount`` (tokenizers only) ←
``engine``; ``profiles`` ← ``config``.
"""
