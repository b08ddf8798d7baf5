"""Named profiles: each library's default BLEU as a point in the factor space.

Each profile was derived from the library's source and checked by running it (see
``tests/test_profiles_*.py`` for the differential tests; ``LIBRARY-BEHAVIOURS.md`` for the
observed behaviour). ``library`` names the library in ``LibraryWouldRaise`` errors.
"""

from __future__ import annotations

from types import MappingProxyType

from .config import BleuConfig

_PROFILES: dict[str, BleuConfig] = {
    # sacrebleu.metrics.BLEU().corpus_score(hyps, [ref_stream, ...])
    "sacrebleu": BleuConfig(
        tokenize="13a",
        smooth="exp",
        ref_length="closest",
        zero_guard="unigram",
        library="sacrebleu",
    ),
    # sacrebleu.metrics.BLEU(effective_order=True).sentence_score(hyp, refs), averaged
    "sacrebleu-sentence": BleuConfig(
        tokenize="13a",
        smooth="exp",
        ref_length="closest",
        zero_guard="unigram",
        effective_order=True,
        aggregation="sentence-mean",
        library="sacrebleu",
    ),
    # nltk.translate.bleu_score.corpus_bleu(list_of_references, hypotheses) on str.split tokens
    "nltk": BleuConfig(
        tokenize="whitespace",
        smooth="nltk-method0",
        ngram_totals="floor1",
        ref_length="closest",
        zero_guard="unigram",
        library="nltk",
    ),
    # evaluate.load("bleu") = tensorflow/nmt compute_bleu with evaluate's 13a tokenizer
    "evaluate": BleuConfig(
        tokenize="13a",
        smooth="none",
        ref_length="shortest",
        zero_guard="none",
        on_zero_length="raise",
        library="evaluate",
    ),
    # bleuscore.compute(references, predictions): Rust port of the evaluate module
    "bleuscore": BleuConfig(
        tokenize="13a",
        smooth="none",
        ref_length="shortest",
        zero_guard="none",
        library="bleuscore",
    ),
    # torchmetrics.text.BLEUScore(): whitespace tokens, ties to the first reference, float32
    "torchmetrics": BleuConfig(
        tokenize="whitespace",
        smooth="none",
        ref_length="closest-first",
        zero_guard="any-order",
        library="torchmetrics",
    ),
    # torchmetrics.text.SacreBLEUScore(): a 13a port on top of the BLEUScore arithmetic
    "torchmetrics-sacrebleu": BleuConfig(
        tokenize="13a",
        smooth="none",
        ref_length="closest-first",
        zero_guard="any-order",
        library="torchmetrics",
    ),
    # pycocoevalcap.bleu.bleu.Bleu(4).compute_score(gts, res) on whitespace-tokenized strings
    "pycocoevalcap": BleuConfig(
        tokenize="whitespace",
        smooth="coco-epsilon",
        ref_length="closest",
        zero_guard="none",
        library="pycocoevalcap",
    ),
    # mteval-v13a.pl: lowercases unless -c, exp smoothing, empty orders count as precision 1
    "mteval-v13a": BleuConfig(
        tokenize="13a",
        lowercase=True,
        smooth="exp",
        ref_length="closest",
        zero_guard="none",
        empty_order="one",
        on_zero_length="raise-empty-hyp",
        library="mteval-v13a",
    ),
    # multi-bleu.perl: pre-tokenized input split on ASCII whitespace (Perl bytes), no smoothing
    "multi-bleu": BleuConfig(
        tokenize="ascii-whitespace",
        smooth="none",
        ref_length="closest",
        zero_guard="none",
        on_zero_length="moses",
        library="multi-bleu",
    ),
    # multi-bleu-detok.perl: mteval's 13a tokenization inside, otherwise multi-bleu
    "multi-bleu-detok": BleuConfig(
        tokenize="13a",
        smooth="none",
        ref_length="closest",
        zero_guard="none",
        on_zero_length="moses",
        library="multi-bleu-detok",
    ),
}

#: Profile name → configuration (read-only).
PROFILES = MappingProxyType(_PROFILES)


def get_profile(name: str) -> BleuConfig:
    """The configuration of profile ``name``; unknown names raise ``ConfigError``."""
    from .errors import ConfigError

    try:
        return _PROFILES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown profile {name!r}", valid=sorted(_PROFILES)) from None
