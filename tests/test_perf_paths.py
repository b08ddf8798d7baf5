"""The fast paths of issue 10 (item 10) give the numbers of the slow ones they replace.

* evaluate's segment scores come from the module's own ``_compute`` (what ``compute()`` runs
  after its Arrow round trip): each equals ``compute()`` on that one-segment corpus — the
  adapter's corpus path, which calls ``compute()``.
* torchmetrics' segment scores reuse one metric with ``reset()``: each equals a fresh metric
  on that one-segment corpus (the adapter's corpus path).
* validate's judge scores one configuration on many corpora in one arithmetic call
  (:class:`~harness.diagnose.many_configs.CorporaScorer`): each equals the engine's score of
  that corpus alone, a corpus the engine refuses included.
* identify's :class:`~harness.diagnose.many_configs.CorpusScorer` scores sentence means with the engine's
  vectorised arrays (non-nltk smoothing) and memoised nltk sentence scores (BP 1, the
  segment's BP applied after): each equals, to the last ulps, the
  mean of :func:`harness.bleu.engine.score_totals` over the segments, the path it replaced, and
  :func:`harness.bleu.engine.score_statistics`.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.bleu import engine
from harness.bleu.config import REF_LENGTHS, BleuConfig
from harness.bleu.stats import Totals, choose_ref_length
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.many_configs import CorporaScorer, CorpusScorer
from harness.diagnose.search import SMOOTHING_POLICIES
from harness.diagnose.validate.variants import pool
from harness.errors import LibraryWouldRaise
from harness.scorers import get_adapter
from harness.session import Session
from tests.depth import examples
from tests.strategies import corpora

CORPORA = [
    ("edge_case_differences", None),
    ("google_nasa_opportunity", "candidate_1"),
    ("blog_code_examples", None),
]


def _corpus(name: str, system: str | None):
    fx = load_fixture(name)
    return fx.corpus(system or fx.system_names[0])


def _one_by_one(adapter, corpus, config):
    out = []
    for i in range(len(corpus)):
        try:
            out.append(adapter.corpus(corpus.subset([i]), config).score)
        except Exception as exc:  # the library raises on this segment
            out.append(type(exc).__name__)
    return out


def _segments(adapter, corpus, config):
    try:
        return [r.score for r in adapter.segments(corpus, config)]
    except Exception as exc:
        return type(exc).__name__


@pytest.mark.parametrize(("name", "system"), CORPORA)
def test_evaluate_segments_equal_compute_per_segment(evaluate_module, name, system) -> None:
    adapter = get_adapter("evaluate", module=evaluate_module)
    assert adapter.available().ok, adapter.available().reason
    corpus = _corpus(name, system)
    for smooth in ("none", "plus-one"):
        config = dataclasses.replace(adapter.default_config(), smooth=smooth)
        want = _one_by_one(adapter, corpus, config)
        got = _segments(adapter, corpus, config)
        if any(isinstance(w, str) for w in want):  # a segment raises: so do the segments
            assert got == next(w for w in want if isinstance(w, str))
        else:
            assert got == want  # bit for bit


@pytest.mark.parametrize("impl", ["torchmetrics", "torchmetrics-sacrebleu"])
@pytest.mark.parametrize(("name", "system"), CORPORA)
def test_torchmetrics_segments_equal_fresh_metric_per_segment(impl, name, system) -> None:
    adapter = get_adapter(impl)
    if not adapter.available().ok:
        pytest.skip(adapter.available().reason)
    corpus = _corpus(name, system)
    config = adapter.default_config()
    assert _segments(adapter, corpus, config) == _one_by_one(adapter, corpus, config)


def _slow_sentence_mean(corpus, cfg: BleuConfig) -> float:
    """The replaced path: score_totals per segment, nltk context per segment."""
    stats = engine.compute_statistics(corpus, cfg, max_order=max(5, cfg.max_order))
    n = cfg.max_order
    scores = []
    for i in range(len(stats)):
        h = int(stats.hyp_len[i])
        r = choose_ref_length(h, stats.ref_lens[i], cfg.ref_length)
        tot = [max(0, h - k + 1) for k in range(1, n + 1)]
        if cfg.ngram_totals == "floor1":
            tot = [max(1, t) for t in tot]
        t = Totals(
            sys_len=h,
            ref_len=float(r) if cfg.ref_length == "average" else int(r),
            correct=tuple(int(x) for x in stats.matches[i, :n]),
            total=tuple(tot),
        )
        ctx = engine.NltkContext(h, h, int(stats.matches[i, 4]), max(0, h - 4))
        scores.append(engine.score_totals(t, cfg, ctx, corpus=False).score)
    return sum(scores) / len(scores)


@pytest.mark.parametrize(("name", "system"), CORPORA)
def test_identify_sentence_means_equal_the_per_segment_path(name, system) -> None:
    corpus = _corpus(name, system)
    scorer = CorpusScorer(corpus, session=Session())
    checked = 0
    for _, smooth, guard, empty in SMOOTHING_POLICIES:
        for rule in REF_LENGTHS:
            for totals in ("plain", "floor1"):
                cfg = BleuConfig(
                    smooth=smooth,
                    zero_guard=guard,
                    empty_order=empty,
                    ref_length=rule,
                    ngram_totals=totals,
                    aggregation="sentence-mean",
                )
                try:
                    want = _slow_sentence_mean(corpus, cfg)
                except Exception as exc:
                    with pytest.raises(type(exc)):
                        scorer.score(cfg)
                    continue
                got = scorer.score(cfg)
                # numpy's exp/log (non-nltk) or BP applied to a memoised BP-1 score (nltk):
                # the last ulp or two, as engine.segment_arrays
                assert got == pytest.approx(want, rel=1e-13, abs=1e-13)
                stats = engine.compute_statistics(corpus, cfg, max_order=5)
                assert got == pytest.approx(
                    engine.score_statistics(stats, cfg).score, rel=1e-13, abs=1e-13
                )
                checked += 1
    assert checked > 100


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(batch=st.lists(corpora(), min_size=2, max_size=6))
def test_many_corpora_equal_each_corpus_alone(batch) -> None:
    """Every corpus of a battery (statistics counted once for all, one arithmetic call per
    configuration) scores as the engine scores it alone, a corpus the engine refuses
    included; a table of all configurations at once gives the same as one at a time."""
    corpora = [Corpus(hypotheses=h, references=r, check_text=False) for h, r in batch]
    session = Session()
    battery = CorporaScorer(corpora, session=session)
    configs = [cfg for _, cfg, _ in pool()]
    table = battery.table(configs)
    for (name, cfg, _), row in zip(pool(), table, strict=True):
        got = battery.score_each(cfg)
        assert [x if x == x else "nan" for x in got] == [x if x == x else "nan" for x in row], name
        for corpus, g in zip(corpora, got, strict=True):
            try:
                want = engine.score_statistics(engine.compute_statistics(corpus, cfg), cfg).score
            except LibraryWouldRaise:
                assert g is None, name
                continue
            assert g is not None, name
            assert g == pytest.approx(want, rel=1e-13, abs=1e-13) or (g != g and want != want), name
            assert CorpusScorer(corpus, session=session).score(cfg) == g or g != g, name
