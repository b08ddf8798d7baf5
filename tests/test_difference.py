"""``harness.analysis.difference``: numbers from the runner's rows, checked against the engine.

Rows come from :func:`harness.run.runner.run` on shipped fixtures (the nltk-vs-sacrebleu gap of the
Google NASA example and the silence pitfall, where nltk's missing 4-gram match drives its score
to ~1e-76); every expected number is recomputed with direct engine calls, never typed in.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics

import pytest

from harness.analysis.difference import Difference, difference, implementation_label
from harness.analysis.study_pairs import judge_pair
from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.fixtures import load_fixture
from harness.errors import ConfigError, InputError
from harness.report.pair_tables import pair_markdown
from harness.run import RunPlan, run, runner
from harness.run.results import Status
from harness.typed_json import to_json

FIXTURES = ("google_nasa_opportunity", "silence_pitfall")
A, B = "profile:sacrebleu", "profile:nltk"


@pytest.fixture(scope="module")
def corpora():
    out = []
    for name in FIXTURES:
        fx = load_fixture(name)
        out += fx.triples()
    return out


@pytest.fixture(scope="module")
def rows(corpora):
    impls = [runner.Implementation.parse(x) for x in (A, B)]
    return run(RunPlan.of(corpora, impls, levels=("corpus", "segment"), progress=False))


def _engine_corpus(corpus, profile):
    return engine.corpus_score(corpus, PROFILES[profile])


def _engine_segments(corpus, profile):
    return engine.segment_scores(corpus, PROFILES[profile])


def _engine_deltas(corpora):
    """(fixture, system, segment_id, result_a, result_b) for every segment, via the engine."""
    out = []
    for f, s, c in corpora:
        for ra, rb in zip(
            _engine_segments(c, "sacrebleu"), _engine_segments(c, "nltk"), strict=True
        ):
            out.append((f, s, ra.segment_id, ra, rb))
    return out


def test_corpus_gaps_match_the_engine(rows, corpora):
    d = difference(rows, A, B)
    assert (d.a, d.b) == ("harness:sacrebleu", "harness:nltk")
    assert [(g.fixture, g.system) for g in d.corpora] == [(f, s) for f, s, _ in corpora]
    expected = []
    for g, (_, _, c) in zip(d.corpora, corpora, strict=True):
        ea, eb = _engine_corpus(c, "sacrebleu"), _engine_corpus(c, "nltk")
        assert g.a.score == ea.score and g.b.score == eb.score
        assert g.gap == eb.score - ea.score
        # both sides' statistics, side by side
        assert g.a.counts == ea.counts and g.a.totals == ea.totals
        assert g.b.counts == eb.counts and g.b.totals == eb.totals
        assert (g.a.hyp_len, g.a.ref_len, g.a.bp) == (ea.hyp_len, ea.ref_len, ea.bp)
        assert (g.b.hyp_len, g.b.ref_len, g.b.bp) == (eb.hyp_len, eb.ref_len, eb.bp)
        expected.append(eb.score - ea.score)
    assert d.corpus_gap == pytest.approx(math.fsum(expected) / len(expected), abs=1e-12)
    assert d.corpus_max_abs == max(abs(x) for x in expected)
    assert d.agree is False


def test_segment_distribution_matches_the_engine(rows, corpora):
    tol = 1e-9
    d = difference(rows, A, B, tolerance=tol)
    deltas = [rb.score - ra.score for *_, ra, rb in _engine_deltas(corpora)]
    seg = d.segments
    assert seg.n == len(deltas) and seg.unmatched == 0
    assert seg.mean == pytest.approx(statistics.fmean(deltas), abs=1e-12)
    assert seg.median == pytest.approx(statistics.median(deltas), abs=1e-12)
    assert seg.max_abs == pytest.approx(max(abs(x) for x in deltas), abs=1e-12)
    assert seg.share_above == sum(abs(x) > tol for x in deltas) / len(deltas)
    assert [p[3:] for p in d.segment_scores] == [
        (ra.score, rb.score) for *_, ra, rb in _engine_deltas(corpora)
    ]


def test_top_segments_carry_both_sides_statistics(rows, corpora):
    top = 3
    d = difference(rows, A, B, top=top, corpus={(f, s): c for f, s, c in corpora})
    engine_rows = _engine_deltas(corpora)
    off = [e for e in engine_rows if abs(e[4].score - e[3].score) > d.tolerance]
    assert len(d.top) == min(top, len(off))
    ranked = sorted((abs(rb.score - ra.score) for *_, ra, rb in off), reverse=True)
    assert [abs(s.delta) for s in d.top] == pytest.approx(ranked[:top], abs=1e-12)
    by_key = {(f, s, sid): (ra, rb) for f, s, sid, ra, rb in engine_rows}
    texts = {(f, s): c for f, s, c in corpora}
    for seg in d.top:
        ra, rb = by_key[(seg.fixture, seg.system, seg.segment_id)]
        for side, res in ((seg.a, ra), (seg.b, rb)):
            assert side.score == res.score
            assert side.counts == res.counts and side.totals == res.totals
            assert (side.hyp_len, side.ref_len, side.bp) == (res.hyp_len, res.ref_len, res.bp)
        c = texts[(seg.fixture, seg.system)]
        i = c.ids.index(seg.segment_id)
        assert seg.hypothesis == c.hypotheses[i] and seg.references == c.references[i]


def test_fixture_and_system_restrict_the_comparison(rows, corpora):
    f, s, c = corpora[0]
    d = difference(rows, A, B, fixture=f, system=s)
    assert [(g.fixture, g.system) for g in d.corpora] == [(f, s)]
    assert d.corpus_gap == _engine_corpus(c, "nltk").score - _engine_corpus(c, "sacrebleu").score
    assert d.segments.n == len(c)
    d2 = difference(rows, A, B, fixture="silence_pitfall")
    assert {g.fixture for g in d2.corpora} == {"silence_pitfall"}


def test_specs_and_labels_name_the_same_implementation(rows):
    assert implementation_label("profile:nltk") == "harness:nltk"
    assert implementation_label("adapter:nltk") == "nltk"
    one = to_json(difference(rows, "profile:sacrebleu", "harness:nltk"))
    two = to_json(difference(rows, "harness:sacrebleu", "profile:nltk"))
    assert one == two


def test_an_implementation_agrees_with_itself(rows):
    d = difference(rows, A, A)
    assert d.agree is True
    assert d.corpus_gap == 0 and d.segments.max_abs == 0 and d.segments.share_above == 0
    assert d.top == ()


def _relabel(rows, src, dst, shift=0.0, where=None):
    """Copies of ``src``'s rows labelled ``dst``; ``shift`` added to the rows ``where`` picks."""
    out = []
    for r in rows:
        if r.implementation != src:
            continue
        r = dataclasses.replace(r, implementation=dst)
        if where is None or where(r):
            r = dataclasses.replace(r, score=r.score + shift)
        out.append(r)
    return out


def test_agreement_respects_the_tolerance(rows):
    tol = 1e-6
    close = rows + _relabel(rows, "harness:sacrebleu", "copy", shift=0.5 * tol)
    d = difference(close, A, "copy", tolerance=tol)
    assert d.agree is True and d.segments.share_above == 0 and d.top == ()

    def one_segment(r):
        return r.level == "segment" and r.fixture == "silence_pitfall" and r.segment_id == "2"

    far = rows + _relabel(rows, "harness:sacrebleu", "copy", shift=2 * tol, where=one_segment)
    d = difference(far, A, "copy", tolerance=tol)
    n_seg = d.segments.n
    assert d.agree is False
    assert d.segments.share_above == pytest.approx(2 / n_seg)  # systems A and B
    assert {(s.system, s.segment_id) for s in d.top} == {("A", "2"), ("B", "2")}
    assert all(s.delta == pytest.approx(2 * tol) for s in d.top)
    assert d.corpus_gap == 0  # corpus rows untouched


def test_a_status_mismatch_is_a_disagreement(rows):
    other = _relabel(rows, "harness:sacrebleu", "copy")
    at = next(k for k, r in enumerate(other) if r.level == "segment")
    other[at] = dataclasses.replace(
        other[at], status=Status.RAISES, score=None, error="ZeroDivisionError: boom"
    )
    d = difference(rows + other, A, "copy")
    assert d.agree is False
    assert d.segments.unmatched == 1 and d.segments.max_abs == 0


def test_nothing_comparable_gives_agree_none(rows):
    dead = [
        dataclasses.replace(r, status=Status.UNAVAILABLE, score=None)
        for r in _relabel(rows, "harness:sacrebleu", "dead")
    ]
    dead2 = [dataclasses.replace(r, implementation="dead2") for r in dead]
    d = difference(dead + dead2, "dead", "dead2")
    assert d.agree is None and d.corpus_gap is None and d.segments.n == 0
    assert d.segments.mean is None
    json.dumps(to_json(d), allow_nan=False)


def test_json_has_no_nan(rows):
    bad = [
        dataclasses.replace(r, bp=float("nan")) for r in _relabel(rows, "harness:nltk", "nan-bp")
    ]
    d = difference(rows + bad, A, "nan-bp")
    data = to_json(d)
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text) == data
    assert all(g["b"]["bp"] is None for g in data["corpora"])
    assert set(data) >= {"a", "b", "agree", "corpus_gap", "corpora", "segments", "top"}


def test_markdown_puts_statistics_side_by_side(rows):
    d = difference(rows, A, B, top=2)
    md = pair_markdown(judge_pair(d))
    assert isinstance(d, Difference)
    assert "`harness:sacrebleu` vs `harness:nltk`" in md
    assert "| statistic | harness:sacrebleu | harness:nltk |" in md
    assert "1-gram matched/total" in md and "4-gram matched/total" in md
    first = d.top[0]
    assert f"{first.a.counts[0]}/{first.a.totals[0]}" in md


def test_bad_arguments_are_rejected(rows):
    with pytest.raises(ConfigError, match="no rows"):
        difference(rows, A, "profile:evaluate")
    with pytest.raises(ConfigError, match="fixture"):
        difference(rows, A, B, fixture="nope")
    with pytest.raises(ConfigError, match="system"):
        difference(rows, A, B, fixture="silence_pitfall", system="candidate_1")
    with pytest.raises(ConfigError, match="tolerance"):
        difference(rows, A, B, tolerance=-1)
    with pytest.raises(InputError, match="two rows"):
        difference([*rows, rows[0]], A, B)


def test_corpus_only_rows_have_no_segment_statistics(corpora):
    impls = [runner.Implementation.parse(x) for x in (A, B)]
    rows = run(RunPlan.of(corpora[:1], impls, levels=("corpus",), progress=False))
    d = difference(rows, A, B)
    assert d.segments.n == 0 and d.segments.median is None and d.top == ()
    assert d.agree is False  # the corpus gap is far above the tolerance
    assert "no segment-level rows" in pair_markdown(judge_pair(d))


def test_without_scores_a_difference_is_the_same_but_its_segment_scores() -> None:
    """``with_scores=False`` leaves out ``segment_scores`` and nothing else."""
    fx = load_fixture("silence_pitfall")
    rows = run(RunPlan.of(fx.triples(), ["sacrebleu", "nltk"], levels=("corpus", "segment")))
    full = difference(rows, "profile:sacrebleu", "profile:nltk")
    bare = difference(rows, "profile:sacrebleu", "profile:nltk", with_scores=False)
    assert full.segment_scores and bare.segment_scores == ()
    assert dataclasses.replace(full, segment_scores=()) == bare
