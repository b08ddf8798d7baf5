"""The configurations a subject is compared with: the profiles and their one-factor variants.

:func:`single_factor_variants` changes one factor of a configuration at a time (the moves of the
fit and the first explanations of a deviation); :func:`pool` is every profile of
:data:`harness.bleu.profiles.PROFILES` followed by the single-factor variants of sacrebleu,
each named and labelled with the factor it changes.
"""

from __future__ import annotations

from typing import Any

from harness.bleu.config import NGRAM_TOTALS, ON_ZERO_LENGTH, REF_LENGTHS, BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import LOWERCASE_RULES, PERL_WHITESPACE_TOKENIZERS, REGISTRY
from harness.diagnose.search import SMOOTHING_POLICIES

__all__ = ["pool", "single_factor_variants"]

# "none" is left out: it gives the same tokens as "whitespace" (see harness.bleu.config)
_VARIANT_TOKENIZERS = ("13a", "intl", "char", "zh", "whitespace", "ascii-whitespace")


def _label(base: str, overrides: dict[str, Any]) -> str:
    return base + "+" + ",".join(f"{k}={v}" for k, v in overrides.items())


def single_factor_variants(
    base: BleuConfig, base_name: str = "base"
) -> list[tuple[str, str, BleuConfig]]:
    """``(factor, name, config)`` for every change of one factor of ``base``.

    Tokenizers (no MeCab), case, ASCII punctuation made spaces or kept, the English articles
    dropped or kept, each reference-length rule, n-gram totals, the smoothing
    policies of :data:`harness.diagnose.search.SMOOTHING_POLICIES`, effective order, aggregation,
    max order 1–5 and the zero-length policies.
    """
    out: list[tuple[str, str, BleuConfig]] = []

    def add(factor: str, **overrides: Any) -> None:
        cfg = base.replace(**overrides)
        if cfg != base:
            shown = {k: v for k, v in overrides.items() if getattr(base, k) != v}
            out.append((factor, _label(base_name, shown), cfg))

    for tok in _VARIANT_TOKENIZERS:
        if tok != base.tokenize:
            if base.whitespace == "perl" and tok not in PERL_WHITESPACE_TOKENIZERS:
                add("tokenization", tokenize=tok, whitespace="unicode")
            else:
                add("tokenization", tokenize=tok)
    add("tokenization", strip="none" if base.strip == "rstrip" else "rstrip")
    if base.tokenize in PERL_WHITESPACE_TOKENIZERS:
        add("tokenization", whitespace="perl" if base.whitespace == "unicode" else "unicode")
    add("case", lowercase=not base.lowercase)
    if base.lowercase:
        for case_rule in LOWERCASE_RULES:
            # "script" is "unicode" for a tokenizer whose script does not lowercase
            own = case_rule != "script" or REGISTRY[base.tokenize].lowercased is not None
            if case_rule != base.lowercase_rule and own:
                add("case", lowercase_rule=case_rule)
    add("punctuation", punctuation="ascii" if base.punctuation == "keep" else "keep")
    add("articles", articles="en" if base.articles == "keep" else "keep")
    for rule in REF_LENGTHS:
        if rule != base.ref_length:
            add("ref_length", ref_length=rule)
    add("ref_length", missing_refs="empty" if base.missing_refs == "skip" else "skip")
    for totals in NGRAM_TOTALS:
        if totals != base.ngram_totals:
            add("ngram_totals", ngram_totals=totals)
    current = (base.smooth, base.zero_guard, base.empty_order)
    for _, smooth, guard, empty in SMOOTHING_POLICIES:
        if (smooth, guard, empty) != current or base.smooth_value is not None:
            add("smoothing", smooth=smooth, smooth_value=None, zero_guard=guard, empty_order=empty)
    add("effective_order", effective_order=not base.effective_order)
    add(
        "aggregation",
        aggregation="sentence-mean" if base.aggregation == "corpus" else "corpus",
    )
    for n in (1, 2, 3, 4, 5):
        if n != base.max_order or base.weights is not None:
            add("order", max_order=n, weights=None)
    for policy in ON_ZERO_LENGTH:
        if policy != base.on_zero_length:
            add("zero_length", on_zero_length=policy)
    return out


def pool() -> list[tuple[str, BleuConfig, str | None]]:
    """Profiles first (in their order), then single-factor variants of sacrebleu, each with
    the factor it changes (``None`` for a profile)."""
    out: list[tuple[str, BleuConfig, str | None]] = [
        (name, cfg, None) for name, cfg in PROFILES.items()
    ]
    out += [
        (name, cfg, factor)
        for factor, name, cfg in single_factor_variants(PROFILES["sacrebleu"], "sacrebleu")
        if factor != "zero_length"
    ]
    return out
