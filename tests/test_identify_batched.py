"""identify scores its search in a few large arithmetic calls: no reading may be lost by it.

The search scores the configurations of every tokenization of a layout in one
:meth:`~harness.diagnose.many_configs.CorpusScorer.scores` call, where configurations that
differ in their text rules (each on its own statistics), their reference length and n-gram
totals share one arithmetic call, and consecutive calls reuse the rows they stacked. These
tests score generated corpora both ways — all at once, and each configuration alone on a
scorer of its own — and against the engine, so a batch that mixed up two tokenizations'
statistics, contexts or mean weights, or a stacked row reused for other rows, fails here.
The expected numbers are the engine's.
"""

from __future__ import annotations

import random

import pytest

from harness import Corpus
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.diagnose import search
from harness.diagnose.many_configs import CorpusScorer
from harness.errors import LibraryWouldRaise
from harness.session import Session

WORDS = ("the", "cat", "sat", "on", "a", "mat", "Dog", "ran", "fast", ".", ",", "!", "x-y", "an")

#: Text rules that give different statistics on the generated corpora (case, punctuation,
#: articles, characters), including ones that leave a segment without tokens.
TEXTS = (
    {"tokenize": "13a"},
    {"tokenize": "13a", "lowercase": True},
    {"tokenize": "intl"},
    {"tokenize": "char"},
    {"tokenize": "none"},
    {"tokenize": "13a", "punctuation": "ascii", "articles": "en", "lowercase": True},
)


def _corpus(seed: int, segments: int = 24, most: int = 12) -> Corpus:
    """A seeded corpus of short segments (at most ``most`` words): some empty or only
    punctuation, with ragged references (one to three)."""
    rng = random.Random(seed)

    def line() -> str:
        n = rng.choice([k for k in (0, 1, 2, 3, 5, 8, 12) if k <= most])
        return " ".join(rng.choice(WORDS) for _ in range(n))

    hyps = tuple(line() for _ in range(segments))
    refs = tuple(tuple(line() or "." for _ in range(rng.randint(1, 3))) for _ in range(segments))
    return Corpus(hypotheses=hyps, references=refs, name=f"gen{seed}", check_text=False)


def _configs() -> list[BleuConfig]:
    """Configurations across every factor the batches group or split on: text rules,
    reference length, n-gram totals, missing references, order, aggregation and smoothing
    (nltk's context, effective order on floored totals)."""
    out = []
    for text in TEXTS:
        for smooth, guard, empty, eff in (
            ("exp", "unigram", "zero", False),
            ("none", "none", "zero", True),
            ("nltk-method4", "unigram", "zero", False),
            ("nltk-method7", "unigram", "zero", False),
            ("plus-one-high", "any-order", "zero", False),
        ):
            for n in (4, 2):
                for agg in ("corpus", "sentence-mean", "nonempty-mean"):
                    for rule in ("closest", "shortest", "average"):
                        for totals in ("plain", "floor1"):
                            for missing in ("skip", "empty"):
                                out.append(
                                    BleuConfig(
                                        **text,
                                        smooth=smooth,
                                        zero_guard=guard,
                                        empty_order=empty,
                                        effective_order=eff,
                                        max_order=n,
                                        aggregation=agg,
                                        ref_length=rule,
                                        ngram_totals=totals,
                                        missing_refs=missing,
                                    )
                                )
    return out


def _engine(corpus: Corpus, config: BleuConfig) -> float | None:
    try:
        return engine.score_statistics(engine.compute_statistics(corpus, config), config).score
    except LibraryWouldRaise:
        return None


@pytest.mark.parametrize(("seed", "most"), [(1, 12), (2, 12), (3, 1)])
def test_batched_scores_equal_each_configuration_alone(seed, most):
    # at most one word a line: effective order's longest hypothesis differs by tokenization
    corpus = _corpus(seed, most=most)
    configs = _configs()
    rng = random.Random(seed)
    rng.shuffle(configs)  # the groups' members interleaved, as no search orders them
    together = CorpusScorer(corpus, session=Session()).scores(configs)
    alone = CorpusScorer(corpus, session=Session())
    assert len(together) == len(configs)
    for config, value in zip(configs, together, strict=True):
        assert value == alone.scores([config])[0], config
    # and a sample against the engine itself
    for config, value in zip(configs[::37], together[::37], strict=True):
        want = _engine(corpus, config)
        if want is None:
            assert value is None, config
        else:
            assert value == pytest.approx(want, rel=1e-12, abs=1e-12), config


def test_search_of_a_layout_equals_its_tokenizations_searched_apart():
    corpus = _corpus(4, segments=30)
    session = Session()
    scorer = CorpusScorer(corpus, session=session)
    # tokenizations with distinct statistics (equal ones are one reading, searched together)
    choices = list(
        {
            scorer.tokenized(BleuConfig(**text).text_rules).fingerprint(): search._text_of(
                BleuConfig(**text)
            )
            for text in TEXTS
        }.values()
    )
    assert len(choices) > 3
    together = search._evaluate_layout(corpus, "per-segment", choices, (4, 2), None, session)
    apart = [
        ev
        for choice in choices
        for ev in search._evaluate_layout(corpus, "per-segment", [choice], (4, 2), None, session)
    ]
    assert together == apart


def test_one_hypothesis_against_a_reference_file_counts_as_the_python_path():
    # identify's per-segment-as-streams layout on one reference: one segment, every
    # reference of the file; the vectorised count must equal the per-segment Python one
    refs = _corpus(5, segments=40).hypotheses
    one = Corpus(
        hypotheses=("the cat sat on the mat .",),
        references=(tuple(r or "." for r in refs),),
        check_text=False,
    )
    assert sum(map(len, one.references)) >= engine.FAST_MIN_REFERENCES
    for text in TEXTS:
        config = BleuConfig(**text)
        fast = engine.compute_statistics(one, config, max_order=5)
        slow = engine._statistics_reference(one, config, max_order=5)
        assert fast.hyp_len.tolist() == slow.hyp_len.tolist()
        assert fast.ref_lens == slow.ref_lens
        assert fast.matches.tolist() == slow.matches.tolist()
