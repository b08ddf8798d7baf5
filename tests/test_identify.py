"""Identify the configuration behind a printed BLEU score (issue 4, item 3).

The only numbers typed here are the ones the seed articles print, read from the fixtures'
``claim.printed`` (seed ``003_9b9e8f448f39b158.txt``: Google's NASA example; seeds
``000_f06ef87264613ebc.txt`` / ``002_27c90cad815dc7d3.txt``: the tutorial's 0.638).
"""

from __future__ import annotations

import json

import pytest

from harness import PROFILES, Corpus
from harness.bleu import engine
from harness.data.fixtures import load_all, load_fixture
from harness.diagnose.identify import (
    closest_profile,
    default_tolerance,
    identify,
    nearest,
    reading_corpus,
)
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.search import misused_corpora
from harness.scorers import misuse
from harness.session import Session
from harness.typed_json import to_json

NASA = load_fixture("google_nasa_opportunity")
TUTORIAL = load_fixture("tutorial_cat_on_the_mat")
SMOOTH_NONE = PROFILES["sacrebleu"].replace(smooth="none")


def test_default_tolerance_is_half_a_printed_digit():
    assert default_tolerance(NASA.claim["printed"]["bleu"]["candidate_2"]) == pytest.approx(0.005)
    assert default_tolerance(TUTORIAL.claim["printed"]["bleu"]) == pytest.approx(0.0005)
    assert default_tolerance("0.270") == pytest.approx(0.0005)


def test_nasa_027_is_sacrebleu_without_smoothing_on_0_1_rounded_to_2_decimals():
    printed = NASA.claim["printed"]["bleu"]["candidate_2"]
    found = identify(printed, NASA.corpus("candidate_2"), session=Session())
    assert found
    hits = [
        c
        for c in found
        if c.covers(SMOOTH_NONE) and c.scale == "0-1" and c.rounding == "2 decimals"
    ]
    assert hits and hits[0].distance == 0 and hits[0].shown == printed
    # candidate 2 has a match at every order, so smoothing never fires: sacrebleu's default
    # is the same candidate (smoothing "none" is listed as equivalent)
    assert hits[0].profile == "sacrebleu"
    assert hits[0].covers(PROFILES["sacrebleu"])
    assert [c.distance for c in found] == sorted(c.distance for c in found)


def test_nasa_00_needs_no_smoothing():
    """Candidate 1 has no matching 4-gram: Google's printed 0.0 rules out exp smoothing."""
    printed = NASA.claim["printed"]["bleu"]["candidate_1"]
    found = identify(printed, NASA.corpus("candidate_1"), session=Session())
    assert any(c.covers(SMOOTH_NONE) and c.scale == "0-1" for c in found)
    assert not any(c.covers(PROFILES["sacrebleu"]) for c in found)


def test_tutorial_0638(capsys):
    """Seeds 000/002 print 0.638; report whether any configuration reproduces it."""
    printed = TUTORIAL.claim["printed"]["bleu"]
    corpus = TUTORIAL.corpus("candidate")
    found = identify(printed, corpus, session=Session())
    near = nearest(printed, corpus, session=Session(), count=5)
    assert len(near) == 5
    assert [c.distance for c in near] == sorted(c.distance for c in near)
    tol = default_tolerance(printed)
    if found:
        assert all(c.distance <= tol + 1e-12 for c in found)
        assert near[0].distance <= tol + 1e-12
    else:
        assert near[0].distance > tol
    with capsys.disabled():
        print(f"\n0.638: {len(found)} match(es); nearest: {near[0].describe()}")


def test_candidates_reproduce_their_raw_score():
    corpus = NASA.corpus("candidate_2")
    for c in nearest(
        NASA.claim["printed"]["bleu"]["candidate_2"], corpus, session=Session(), count=30
    ):
        target = reading_corpus(corpus, c.layout, c.preprocessing)
        score = engine.score_statistics(engine.compute_statistics(target, c.config), c.config)
        raw = score.score / 100 if c.scale == "0-1" else score.score
        assert raw == pytest.approx(c.raw, abs=1e-12)
        # shown at the decimals of the printed score, counted from its characters
        printed = str(NASA.claim["printed"]["bleu"]["candidate_2"])
        places = len(printed.split(".", 1)[1]) if "." in printed else 0
        assert c.rounding == f"{places} decimal{'' if places == 1 else 's'}"
        assert c.shown == round(c.raw, places)
        assert c.profile == closest_profile(c.config)[0]
        json.dumps(to_json(c))


def test_per_segment_lists_as_streams_is_what_sacrebleu_scores():
    fx = load_fixture("reference_layout_placeholders")
    corpus = fx.corpus("mt")
    emulated = misused_corpora(corpus)["per-segment-as-streams"]
    real = misuse.per_segment_lists_as_streams(corpus)
    assert real.silent
    assert len(emulated) == real.hypotheses_scored
    mine = engine.corpus_score(emulated, PROFILES["sacrebleu"]).score
    assert mine == pytest.approx(real.score, abs=1e-9)


def test_flat_list_is_what_sacrebleu_scores():
    corpus = Corpus(
        hypotheses=("the cat sat", "a dog ran", "it is"),
        references=(("the cat sat down",), ("a dog", "one dog ran"), ("it was",)),
    )
    emulated = misused_corpora(corpus)["flat-list"]
    real = misuse.flat_reference_list(corpus)
    assert len(emulated) == real.hypotheses_scored
    mine = engine.corpus_score(emulated, PROFILES["sacrebleu"]).score
    assert mine == pytest.approx(real.score, abs=1e-9)


def test_corpus_and_fixture_name_and_pair_agree():
    printed = NASA.claim["printed"]["bleu"]["candidate_2"]
    corpus = NASA.corpus("candidate_2")
    a = identify(printed, corpus, session=Session())
    b = identify(printed, "google_nasa_opportunity/candidate_2", session=Session())
    c = identify(
        printed, (list(corpus.hypotheses), [list(r) for r in corpus.references]), session=Session()
    )
    assert [to_json(x) for x in a] == [to_json(x) for x in b] == [to_json(x) for x in c]


def test_scorer_equals_engine_on_every_fixture():
    configs = list(PROFILES.values())
    for fx in load_all():
        for system in fx.system_names:
            corpus = fx.corpus(system)
            scorer = CorpusScorer(corpus, session=Session())
            for cfg in configs:
                try:
                    want = engine.corpus_score(corpus, cfg).score
                except Exception as exc:
                    with pytest.raises(type(exc)):
                        scorer.score(cfg)
                    continue
                assert scorer.score(cfg) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_search_answers_on_every_fixture():
    # Its speed is measured by benchmarks/bench_forensics.py, not asserted here.
    for fx in load_all():
        for system in fx.system_names:
            assert len(nearest(1.0, fx.corpus(system), session=Session(), count=1)) == 1, (
                fx.name,
                system,
            )
