"""The pitfall experiments: one module per experiment, each defining ``EXPERIMENT``.

Discovered and run by :mod:`harness.pitfalls` (``bleu-harness pitfalls``); see ``README.md`` in
this folder. ``ORDER`` is the order in which reports list them (modules not named here come
after, by name).
"""

ORDER = (
    "silence",
    "reference_layout",
    "ragged_references",
    "reference_diversity",
    "google_example",
    "tutorial_claim",
    "blog_algorithm",
    "corpus_vs_sentence",
    "cjk_tokenization",
    "nltk_smoothing_order",
    "torchmetrics_reference_order",
    "evaluate_empty_input",
    "preprocessing_mistakes",
    "byte_order_mark",
    "fairseq_false_matches",
    "helm_sentence_split",
    "codesum_spread",
)
