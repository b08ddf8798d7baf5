"""Does the gap matter? (:mod:`harness.analysis.gap_matters`): the paired-bootstrap interval of
a pair's gap against the real sacrebleu scoring every resampled corpus, the ranking flips
against scores the real sacrebleu prints, MT-Thresholds against the package's own call, and
the section in the written report."""

from __future__ import annotations

import importlib.metadata
import json
import math

import mt_thresholds
import numpy as np
import pytest
import sacrebleu

from harness.analysis.gap_matters import THRESHOLDS_PACKAGE
from harness.analysis.human import wmt21_human_correlations
from harness.analysis.meta_eval import MetaEvalOptions, meta_evaluate
from harness.analysis.study import ReportOptions, analyse
from harness.analysis.why import Why
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.report import render_json, render_markdown, write_report
from harness.report.gap_words import (
    META_EVALUATION_NOTE,
    fixture_sentence,
    meta_note,
    pair_sentence,
)
from harness.report.schema import validate_report_json
from harness.run import RunPlan, run, runner
from harness.run.plan import named_corpora
from harness.session import Session
from harness.statistics.correlation import NO_INTERVALS

SEED = 7
RESAMPLES = 200
#: The report options of the gap tests: the pairs section alone, with their seed and resamples.
GAP_OPTIONS = ReportOptions(include=("pairs",), seed=SEED, gap_resamples=RESAMPLES)
FIXTURE = "silence_pitfall"
IMPLS = ("profile:sacrebleu", "adapter:sacrebleu", "profile:sacrebleu-sentence")


@pytest.fixture(scope="module")
def corpora():
    return load_fixture(FIXTURE).triples()


@pytest.fixture(scope="module")
def rows(corpora):
    impls = [runner.Implementation.parse(x) for x in IMPLS]
    return run(RunPlan.of(corpora, impls, levels=("corpus",), progress=False))


@pytest.fixture(scope="module")
def report(rows, corpora):
    session = Session(named_corpora(corpora))
    return analyse(rows, session, options=GAP_OPTIONS)


def _pair(report, a, b):
    return next(p for p in report.gap_matters.pairs if (p.a, p.b) == (a, b))


def _real_corpus(hypotheses, references):
    """sacrebleu's corpus BLEU (one reference stream)."""
    return sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score


def _real_sentence_mean(hypotheses, references):
    """The mean of sacrebleu's sentence BLEU (what the sacrebleu-sentence profile reproduces)."""
    scores = [
        sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hypotheses, references, strict=True)
    ]
    return math.fsum(scores) / len(scores)


def _texts(corpus):
    return list(corpus.hypotheses), [refs[0] for refs in corpus.references]


WORDS = ("the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away", ".", ",")


def _toy(shared: bool) -> list[tuple[str, str, Corpus]]:
    """Three systems of 12 varied segments (seeded): one reference set for all (``shared``),
    or each system against references of its own (then each draws its own resamples)."""
    rng = np.random.default_rng(11)

    def references() -> list[list[str]]:
        return [[" ".join(rng.choice(WORDS, size=int(rng.integers(4, 12))))] for _ in range(12)]

    refs = references()
    out = []
    for system in ("A", "B", "C"):
        own = refs if shared else references()
        hyps = []
        for (ref,) in own:
            words = ref.split()
            keep = [w for w in words if rng.random() > 0.3] or words[:1]
            hyps.append(" ".join(keep + list(rng.choice(WORDS, size=int(rng.integers(0, 3))))))
        out.append(("toy", system, Corpus(hypotheses=tuple(hyps), references=own)))
    return out


@pytest.mark.parametrize("shared", [True, False], ids=["shared-references", "own-references"])
def test_the_interval_is_the_real_sacrebleu_on_every_resample(shared):
    """sacrebleu (the library, resampled under the profile the report shows equal to it)
    against the sentence-mean profile: every resample's gap rescored by the real sacrebleu
    (corpus BLEU; the mean of sentence BLEU), on sacrebleu's own draw of the segments (one
    for all systems when they share their references, else one per system in turn), and
    sacrebleu's percentile interval of the gaps and of their mean over the systems."""
    corpora = _toy(shared)
    impls = [runner.Implementation.parse(x) for x in IMPLS]
    rows = run(RunPlan.of(corpora, impls, levels=("corpus",), progress=False))
    session = Session(named_corpora(corpora))
    rep = analyse(rows, session, options=GAP_OPTIONS)
    pair = _pair(rep, "sacrebleu", "harness:sacrebleu-sentence")
    assert (pair.profile_a, pair.profile_b) == ("sacrebleu", "sacrebleu-sentence")
    (found,) = pair.fixtures

    def direct(seed):
        rng = np.random.default_rng(seed)
        size = 12
        drawn = rng.choice(size, size=(RESAMPLES, size), replace=True) if shared else None
        per_system = {}
        for _, system, corpus in corpora:
            hyps, refs = _texts(corpus)
            # sacrebleu's draw: rng.choice(S, size=(R, S), replace=True)
            rows = drawn if shared else rng.choice(size, size=(RESAMPLES, size), replace=True)
            sentence = [
                sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs, strict=True)
            ]
            gaps = []
            for row in rows:
                h, r = [hyps[i] for i in row], [refs[i] for i in row]
                gaps.append(math.fsum(sentence[i] for i in row) / size - _real_corpus(h, r))
            per_system[system] = np.array(gaps)
        return per_system

    def interval(values):  # sacrebleu.significance.estimate_ci: k = R // 40 at 95%
        ordered = np.sort(values)
        return ordered[RESAMPLES // 40], ordered[RESAMPLES - 1 - RESAMPLES // 40]

    per_system = direct(SEED)
    assert [s.system for s in found.systems] == ["A", "B", "C"]
    for s, (_, _, corpus) in zip(found.systems, corpora, strict=True):
        hyps, refs = _texts(corpus)
        assert s.gap == pytest.approx(
            _real_sentence_mean(hyps, refs) - _real_corpus(hyps, refs), abs=1e-9
        )
        assert s.ci == pytest.approx(interval(per_system[s.system]), abs=1e-9)
    mean = np.mean(np.vstack(list(per_system.values())), axis=0)
    assert found.ci == pytest.approx(interval(mean), abs=1e-9)
    assert found.ci_note is None
    assert found.mean_gap == pytest.approx(np.mean([s.gap for s in found.systems]), abs=1e-12)
    # another seed draws other resamples and another interval: the check above can fail
    other = np.mean(np.vstack(list(direct(SEED + 1).values())), axis=0)
    assert found.ci != pytest.approx(interval(other), abs=1e-6)


def test_flips_are_the_systems_the_real_sacrebleu_orders_both_ways(report, corpora):
    """On the silence pitfall corpus BLEU ranks the silent system above the one that
    mistranslates a word, and the mean of sentence BLEU does not: one flip of one pair."""
    texts = {system: _texts(corpus) for _, system, corpus in corpora}
    corpus_scores = {s: _real_corpus(*t) for s, t in texts.items()}
    sentence_scores = {s: _real_sentence_mean(*t) for s, t in texts.items()}
    first, second = sorted(corpus_scores, key=lambda s: -corpus_scores[s])
    expected = int(sentence_scores[first] < sentence_scores[second])
    assert expected == 1, "the fixture no longer shows the flip this test is about"
    pair = _pair(report, "sacrebleu", "harness:sacrebleu-sentence")
    (found,) = pair.fixtures
    assert found.system_pairs == 1 and len(found.flips) == expected
    (flip,) = found.flips
    assert flip.systems == (first, second)
    assert flip.scores_a == pytest.approx((corpus_scores[first], corpus_scores[second]))
    assert flip.scores_b == pytest.approx((sentence_scores[first], sentence_scores[second]))
    assert pair.matters == "yes" and pair.reason == "reorders"
    assert "flips 1 of 1 system pair" in pair_sentence(pair)


def test_a_library_equal_to_its_profile_has_no_gap(report):
    pair = _pair(report, "harness:sacrebleu", "sacrebleu")
    assert (pair.profile_a, pair.profile_b) == ("sacrebleu", "sacrebleu")
    assert pair.matters == "no" and pair.reason == "agree"
    (found,) = pair.fixtures
    assert found.ci == (0.0, 0.0) and found.flips == ()
    assert found.mean_gap == pytest.approx(0.0, abs=1e-9)


def test_human_agreement_is_the_packages_own_number(report):
    section = report.gap_matters
    assert section.thresholds == (
        f"{THRESHOLDS_PACKAGE} {importlib.metadata.version(THRESHOLDS_PACKAGE)}"
    )
    assert "Navigating the Metrics Maze" in section.citation
    checked = 0
    moved = 0
    for pair in section.pairs:
        assert pair.meta_evaluation_differs is None
        assert pair.meta_evaluation.status == "not-computed"
        assert meta_note(pair) == META_EVALUATION_NOTE
        for found in pair.fixtures:
            if found.mean_gap is None:
                continue
            gaps = [abs(s.gap) for s in found.systems if s.gap is not None]
            if max(gaps) <= pair.tolerance:  # no system moves: humans are not asked
                assert found.human_agreement is None
                assert "MT-Thresholds" not in fixture_sentence(found)
                continue
            moved += 1
            expected = mt_thresholds.accuracy(abs(found.mean_gap), "bleu")
            assert found.human_agreement == expected
            said = fixture_sentence(found)
            assert f"humans confirm {expected:.0f}% of the time (MT-Thresholds)" in said
            checked += 1
    assert checked == moved > 0


def test_a_library_without_a_proven_profile_has_no_interval(rows, corpora):
    session = Session(named_corpora(corpora))
    rep = analyse(
        rows,
        session,
        options=ReportOptions(
            pairs=(("profile:sacrebleu-sentence", "adapter:sacrebleu"),),
            include=("pairs",),
            gap_resamples=20,
        ),
    )
    (pair,) = rep.gap_matters.pairs
    assert (pair.profile_a, pair.profile_b) == ("sacrebleu-sentence", None)
    (found,) = pair.fixtures
    assert found.ci is None and all(s.ci is None for s in found.systems)
    assert found.ci_note == (Why("profile-not-shown", ("sacrebleu", "sacrebleu")),)
    assert "does not show sacrebleu equal to its profile harness:sacrebleu" in render_markdown(rep)
    # the gap and the flips come from the rows all the same
    assert found.mean_gap is not None and len(found.flips) == 1


def test_without_corpora_or_pairs_the_section_says_why(rows):
    bare = analyse(rows, Session(), options=ReportOptions(include=("pairs",)))
    assert bare.gap_matters.pairs == () and bare.gap_matters.note == Why("without-corpora")
    left_out = analyse(rows, Session(), options=ReportOptions(include=("correlations",)))
    assert left_out.gap_matters.note == Why("not-included", ("pairs",))
    assert 'not included (it follows the pairs: include "pairs")' in render_markdown(left_out)
    assert "without the corpora" in render_markdown(bare)


def test_the_written_report_validates_and_says_it_in_words(report, tmp_path):
    validate_report_json(render_json(report))  # the writer checks it again (conftest)
    write_report(report, tmp_path / "r", formats=("json", "md", "html"))
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert [(p["a"], p["b"]) for p in data["gap_matters"]["pairs"]] == [
        (p.a, p.b) for p in report.pairs
    ]
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "## Does the gap matter?" in md
    for pair in report.gap_matters.pairs:
        assert pair_sentence(pair) in md
    summary = md[md.index("## Summary") : md.index("## Corpus-level")]
    flipped = _pair(report, "sacrebleu", "harness:sacrebleu-sentence")
    assert pair_sentence(flipped) in summary  # the first screen answers
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert 'id="gap-sentences"' in page and "Does the gap matter?" in page


@pytest.mark.realdata
def test_a_pair_says_whether_its_meta_evaluation_differs(data_dir, rows, corpora):
    """With a meta-evaluation of WMT21 MQM, each pair's note carries both profiles' numbers as
    meta_evaluate computed them, and ``differs`` is whether one of its tests between the two
    is significant."""
    human = wmt21_human_correlations(
        data_dir, ["sacrebleu", "sacrebleu-sentence"], bootstrap=NO_INTERVALS, session=Session()
    )
    meta = meta_evaluate(human, options=MetaEvalOptions(resamples=100, seed=SEED))
    session = Session(named_corpora(corpora))
    found = analyse(
        rows,
        session,
        options=ReportOptions(include=("pairs",), seed=SEED, gap_resamples=20),
        meta_evaluation=meta,
    )
    pair = _pair(found, "sacrebleu", "harness:sacrebleu-sentence")
    tests = [
        c for c in meta.comparisons if {c.better, c.worse} == {"sacrebleu", "sacrebleu-sentence"}
    ]
    assert len(tests) == 3
    assert pair.meta_evaluation_differs == any(c.significant for c in tests)
    by_name = {row["implementation"]: row for row in meta.rows()}
    first, second = by_name["sacrebleu"], by_name["sacrebleu-sentence"]
    expected = (
        f"pairwise accuracy {first['pairwise_accuracy']:.4f} vs {second['pairwise_accuracy']:.4f}"
    )
    said = meta_note(pair)
    assert expected in said
    assert f"SPA {first['spa']:.4f} vs {second['spa']:.4f}" in said
    assert [(n.a, n.b) for n in pair.meta_evaluation.numbers] == [
        (first[n.statistic], second[n.statistic]) for n in pair.meta_evaluation.numbers
    ]
    # the library against its own profile is not in this meta-evaluation's comparisons
    library = _pair(found, "harness:sacrebleu", "sacrebleu")
    assert library.meta_evaluation_differs is None
    assert library.meta_evaluation.status == "one-profile"
    assert meta_note(library) == "both are the sacrebleu profile: one meta-evaluation"
    stored = json.loads(render_json(found))["meta_evaluation"]
    assert stored["results"]["rows"] == meta.rows()
    assert stored["systems"] == list(meta.systems)
    typed = [{k: v for k, v in row.items() if k in stored["rows"][0]} for row in meta.rows()]
    assert stored["rows"] == typed
    assert said in render_markdown(found)
