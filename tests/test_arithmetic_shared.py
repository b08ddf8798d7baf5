"""``bleu_rows_shared``: rows that share their counts and differ in their reference length.

identify's search scores, with several references, every reference-length rule on the same
counts; :func:`~harness.bleu.arithmetic.bleu_rows_shared` computes what reads no reference
length once per row of counts. Its scores, precisions, penalties, ratios and refusals must be
those of :func:`~harness.bleu.arithmetic.bleu_rows` on the rows written out one by one, equal
in ``repr`` (the same float operations, so ``-0.0`` and nan too), and what it raises the
same error. The statistics are generated with zero lengths, references without tokens and
ragged references, each row's reference length chosen by every rule of
:data:`~harness.bleu.config.REF_LENGTHS`; every smoothing method and form, every zero-length
rule and segment rounding. The many-configurations scorer, which feeds the shared form, is
checked the same way against each configuration scored alone.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness import Corpus
from harness.bleu import arithmetic, smoothing
from harness.bleu.arithmetic import ScoredRows, bleu_rows, bleu_rows_shared, nltk_context
from harness.bleu.config import REF_LENGTHS, BleuConfig
from harness.bleu.nltk_release_smoothing import SMOOTH_FORMS
from harness.bleu.stats import ref_length_of
from harness.diagnose.many_configs import CorpusScorer
from harness.errors import ConfigError
from harness.session import Session

from .depth import examples
from .test_arithmetic import configs

# drawn weights need not sum to 1 (BleuConfig warns, and scores them as given)
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")


@st.composite
def shared_rows(draw: st.DrawFn, n: int) -> dict[str, Any]:
    """``U`` rows of counts (zeros likely), each with up to three references (lengths 0
    likely, ragged: -1 pads), their nltk contexts and longest hypotheses."""
    count = draw(st.integers(1, 5))
    width = draw(st.integers(1, 3))
    sys_len, correct, total, refs, ctx, longest = [], [], [], [], [], []
    for _ in range(count):
        hyp = draw(st.integers(0, 30))
        tot = [max(0, hyp - k) for k in range(n)]
        if draw(st.booleans()):
            tot = [max(1, t) for t in tot]  # nltk's floor1 totals
        sys_len.append(hyp)
        total.append(tot)
        correct.append([draw(st.sampled_from([0, t, draw(st.integers(0, t))])) for t in tot])
        first = draw(st.sampled_from([0, 1, hyp, draw(st.integers(0, 40))]))
        more = [
            draw(st.sampled_from([-1, 0, hyp + 1, draw(st.integers(0, 40))]))
            for _ in range(width - 1)
        ]
        refs.append([first, *more])
        last = draw(st.integers(0, 12))
        ctx.append((draw(st.sampled_from([0, hyp])), last, draw(st.integers(0, max(0, last - 4)))))
        longest.append(draw(st.integers(0, hyp)))
    return {
        "sys_len": np.array(sys_len, dtype=np.int64),
        "correct": np.array(correct, dtype=np.int64),
        "total": np.array(total, dtype=np.int64),
        "refs": np.array(refs, dtype=np.int64),
        "context": tuple(np.array(c, dtype=np.int64) for c in zip(*ctx, strict=True)),
        "longest": np.array(longest, dtype=np.int64),
    }


def _outcome(call: Any) -> Any:
    """What a call gives: its :class:`ScoredRows` fields in ``repr``, or its error."""
    try:
        got: ScoredRows = call()
    except Exception as exc:  # the library raises on some row
        return (type(exc).__name__, str(exc))
    refused = None if got.refused is None else got.refused.tolist()
    return tuple(repr(a.tolist()) for a in (got.score, got.precisions, got.bp, got.ratio)), refused


@pytest.mark.parametrize("smooth", sorted(smoothing.REGISTRY))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), corpus=st.booleans(), mark=st.booleans())
def test_shared_rows_equal_the_rows_written_out(
    smooth: str, data: Any, corpus: bool, mark: bool
) -> None:
    cfg: BleuConfig = data.draw(configs(smooth))
    changes: list[dict[str, Any]] = [{"smooth_forms": data.draw(st.sampled_from(SMOOTH_FORMS))}]
    if data.draw(st.booleans()):
        rule = data.draw(st.sampled_from(["numpy-segment", "python"]))
        changes.append({"round_digits": 2, "round_rule": rule})
    for change in changes:
        try:
            cfg = cfg.replace(**change)
        except ConfigError:
            pass  # a form this method does not have
    drawn = data.draw(shared_rows(cfg.max_order))
    # every rule's reference length of every row, in a drawn order (and some rows twice)
    lengths = [ref_length_of(drawn["sys_len"], drawn["refs"], rule) for rule in REF_LENGTHS]
    ref_all = np.concatenate(lengths).astype(np.float64)
    source_all = np.tile(np.arange(len(drawn["sys_len"])), len(REF_LENGTHS))
    picks = data.draw(
        st.lists(st.integers(0, len(ref_all) - 1), min_size=1, max_size=2 * len(ref_all))
        | st.just(list(range(len(ref_all))))
    )
    ref_len, source = ref_all[picks], source_all[picks]
    context = nltk_context(*drawn["context"])
    on_refusal = "mark" if mark else "raise"

    def written_out() -> ScoredRows:
        return bleu_rows(
            drawn["sys_len"][source],
            ref_len,
            drawn["correct"][source],
            drawn["total"][source],
            cfg,
            context=nltk_context(*(c[source] for c in drawn["context"])),
            corpus=corpus,
            on_refusal=on_refusal,
            longest=drawn["longest"][source],
        )

    def shared() -> ScoredRows:
        return bleu_rows_shared(
            drawn["sys_len"],
            ref_len,
            drawn["correct"],
            drawn["total"],
            cfg,
            source=source,
            context=context,
            corpus=corpus,
            on_refusal=on_refusal,
            longest=drawn["longest"],
        )

    want = _outcome(written_out)
    if isinstance(want[0], str):
        event("raises")
    elif want[1] is not None and any(want[1]):
        event("some rows refused")
    assert _outcome(shared) == want, (cfg, drawn, picks)


def test_the_property_fails_when_the_sharing_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above sees an empty-reference rule applied once per row of counts
    instead of once per scored row (its reference length read from the first rule only)."""
    cfg = BleuConfig(on_zero_length="moses", smooth="exp")
    sys_len, correct, total = np.array([4]), np.array([[3, 2, 1, 0]]), np.array([[4, 3, 2, 1]])
    ref_len, source = np.array([0.0, 5.0]), np.array([0, 0])
    right = _outcome(lambda: bleu_rows_shared(sys_len, ref_len, correct, total, cfg, source=source))
    real = arithmetic._brevity_penalty

    def first_only(sys_f: Any, ref_f: Any, *args: Any) -> Any:
        return real(sys_f, np.full_like(ref_f, ref_f[0]), *args)

    monkeypatch.setattr(arithmetic, "_brevity_penalty", first_only)
    wrong = _outcome(lambda: bleu_rows_shared(sys_len, ref_len, correct, total, cfg, source=source))
    assert wrong != right


WORDS = ("the", "cat", "sat", "on", "a", "mat", "Dog", "ran", ".", "!")


def _corpus(seed: int) -> Corpus:
    """Short segments (some empty), one to three references, some of them empty."""
    rng = random.Random(seed)

    def line() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.choice([0, 1, 2, 4, 7])))

    hyps = tuple(line() for _ in range(20))
    refs = tuple(tuple(line() for _ in range(rng.randint(1, 3))) for _ in range(20))
    return Corpus(hypotheses=hyps, references=refs, name=f"shared{seed}", check_text=False)


@pytest.mark.parametrize("seed", [1, 2])
def test_scorer_scores_every_length_rule_as_each_alone(seed: int) -> None:
    """:class:`CorpusScorer` with every reference-length rule (and missing-reference and
    n-gram total rule) in one call equals each configuration scored alone, in ``repr``,
    refusals included."""
    corpus = _corpus(seed)
    cfgs = [
        BleuConfig(
            tokenize=tok,
            smooth=smooth,
            on_zero_length=zero,
            aggregation=agg,
            ref_length=rule,
            missing_refs=missing,
            ngram_totals=totals,
            effective_order=eff,
        )
        for tok in ("13a", "char")
        for smooth, eff in (("exp", False), ("nltk-method4", False), ("none", True))
        for zero in ("zero", "moses", "mteval", "nan")
        for agg in ("corpus", "sentence-mean")
        for rule in REF_LENGTHS
        for missing in ("skip", "empty")
        for totals in ("plain", "floor1")
    ]
    random.Random(seed).shuffle(cfgs)
    together = CorpusScorer(corpus, session=Session()).scores(cfgs)
    alone = CorpusScorer(corpus, session=Session())
    for cfg, value in zip(cfgs, together, strict=True):
        assert repr(value) == repr(alone.scores([cfg])[0]), cfg
