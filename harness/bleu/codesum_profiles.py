"""The six BLEU variants of code summarization, as profiles.

Shi et al. (ICSE 2022, "On the Evaluation of Neural Code Summarization") found six BLEU variants
in use in the field, differing by up to ten points on the same predictions; their replication
package computes all six from whitespace-tokenized lines (``bleus(refs, preds)`` in
``metrics/evaluate.py``). Each variant declared here is a point of the factor space, named
``codesum-<variant>`` and proven against that function (``tests/test_profile_codesum.py``); the
toolbox reports each score ×100 rounded to 4 decimals (``round_digits=4``).
"""

from __future__ import annotations

from harness.bleu.config import BleuConfig
from harness.bleu.profile_spec import CODE_SUMMARIZATION, NLTK, REF_IMPLS, Profile, Verification

__all__ = ["CODESUM_PROFILES"]

_CODESUM = f"{REF_IMPLS}/codesum-evaluation/metrics/evaluate.py"
_WHITESPACE = "whitespace (the toolbox's files are tokenized lines)"
_CODENN_TOKENS = (
    "the words joined by spaces, then CodeNN's normalize (`codenn`: mteval-v11a's rules, "
    "lowercased after unescaping entities)"
)

#: The variants, in the order the toolbox prints them.
CODESUM_PROFILES: tuple[Profile, ...] = tuple(
    Profile(
        f"codesum-{variant}",
        config,
        Verification(
            "verified",
            f"{_CODESUM} bleus()['BLEU-{variant.upper()}'], with nltk 3.10.4",
            "tests/test_profile_codesum.py",
        ),
        reproduces=reproduces,
        tokens=_CODENN_TOKENS if variant == "cn" else _WHITESPACE,
        ref_length=ref_length,
        smoothing=smoothing,
        field=CODE_SUMMARIZATION,
        short=f"cs-{variant}",
    )
    for variant, config, reproduces, ref_length, smoothing in (
        (
            "dcom",
            NLTK.replace(aggregation="sentence-mean", round_digits=4),
            "BLEU-DCOM: nltk `sentence_bleu` (method0), mean over examples, ×100 rounded "
            "to 4 decimals",
            "closest",
            "none (nltk method0: a zero precision becomes float min; 0 with no unigram match)",
        ),
        (
            "fc",
            NLTK.replace(round_digits=4),
            "BLEU-FC: nltk `corpus_bleu`, ×100 rounded to 4 decimals",
            "closest",
            "none (nltk method0)",
        ),
        (
            "dc",
            NLTK.replace(smooth="nltk-method4", aggregation="sentence-mean", round_digits=4),
            "BLEU-DC: nltk `sentence_bleu` with `method4`, mean over examples, ×100 "
            "rounded to 4 decimals",
            "closest",
            "`nltk-method4` (k = 5, the sentence's own length)",
        ),
        (
            "cn",
            BleuConfig(
                tokenize="codenn",
                lowercase=True,
                lowercase_rule="script",  # after unescaping, before the punctuation rules
                smooth="codexglue",
                ref_length="shortest",
                zero_guard="none",
                missing_refs="first",
                aggregation="nonempty-mean",
                round_digits=4,
                library="codesum",
            ),
            "BLEU-CN: CodeNN's `codenn_smooth_bleu` per example, mean over the examples whose "
            "prediction and first reference have words, ×100 rounded to 4 decimals",
            "shortest; **the first reference only**; an example with an empty prediction or "
            "first reference is left out of the mean",
            "+1 on orders ≥ 2, float min on unigram matches, BP (r+1)/(c+1) (the Moses-derived "
            "script CodeXGLUE copied). **Not reproduced**: a line of nothing but `<skipped>` "
            "tags, which the toolbox keeps (its words are not empty) and normalizes to no token "
            "(a prediction then takes log(0) in a bare `except`: the corpus prints 0; a "
            "reference counts with length 0); here the example is left out as empty",
        ),
        (
            "ncs",
            BleuConfig(
                tokenize="whitespace",
                smooth="plus-one",
                ref_length="shortest",
                zero_guard="none",
                on_zero_length="guarded",
                aggregation="sentence-mean",
                round_digits=4,
                library="codesum",
            ),
            "BLEU-NCS: `google_bleu.compute_bleu(smooth=True)` per example (tensorflow/nmt's "
            "with guarded divisions), mean, ×100 rounded to 4 decimals",
            "shortest; an empty reference scores 0",
            "+1 on every order (Lin & Och 2004)",
        ),
        (
            "rc",
            BleuConfig(
                tokenize="whitespace",
                smooth="coco-epsilon",
                ref_length="closest",
                zero_guard="none",
                missing_refs="first",
                aggregation="sentence-mean",
                round_digits=4,
                library="codesum",
            ),
            "BLEU-RC: RenCos's copy of pycocoevalcap `Bleu(4)`, its per-example 4-gram "
            "scores averaged, ×100 rounded to 4 decimals",
            "closest; **the first reference only**",
            "(m + 1e-15)/(t + 1e-9), also in the BP ratio",
        ),
    )
)
