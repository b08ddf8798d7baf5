"""Validation of BLEU implementations (issue 4, item 2) and the home-made subjects.

The subjects are :mod:`harness.diagnose.homemade`: the seed tutorial's BLEU
(``000_f06ef87264613ebc.txt`` / ``002_27c90cad815dc7d3.txt``), the seed blog's BLEU
(``004_ccc28872d55e65c5.txt``) and deliberately buggy sacrebleu-like corpus BLEUs. Expected
numbers are computed inside the tests (engine, sacrebleu), never typed in.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest

from harness import PROFILES, ConfigError, corpus_bleu
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.data.fixtures import load_fixture
from harness.diagnose.homemade import (
    BUGGY,
    EXPECTED_FACTOR,
    SCALE,
    blog_bleu,
    blog_sentence_bleu,
    sacrebleu_like,
    tutorial_bleu,
    tutorial_sentence_bleu,
)
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.validate import (
    BUG_MODELS,
    generate_cases,
    single_factor_variants,
    validate,
)
from harness.diagnose.validate.bugs import (
    REFUSALS,
    Model,
    count_segment,
    score_corpora,
    score_segments,
    segment_statistics,
    tokenizers,
)
from harness.diagnose.validate.cases import fixture_cases
from harness.diagnose.validate.fit import fit_summary
from harness.diagnose.validate.judge import Judge
from harness.errors import LibraryWouldRaise
from harness.report.validation import validation_text
from harness.report.validation_words import scale_reason, validation_json
from harness.session import Session

CASES = 100  # generated corpora per validation (plus the 29 fixture systems)


def _streams(references: list[list[str]]) -> list[list[str | None]]:
    k = max(len(r) for r in references)
    return [[seg[j] if j < len(seg) else None for seg in references] for j in range(k)]


def _sacrebleu_corpus(hypotheses: list[str], references: list[list[str]]) -> float:
    """The real library, called with the layout it wants (streams, ``None`` padding)."""
    import sacrebleu

    return sacrebleu.corpus_bleu(hypotheses, _streams(references)).score


@pytest.fixture(scope="module")
def tutorial_report():
    return validate(tutorial_bleu, cases=CASES)


@pytest.fixture(scope="module")
def blog_report():
    return validate(blog_bleu, cases=CASES)


# ====================================================================== the home-made subjects
def test_tutorial_code_cannot_print_its_claimed_score():
    """Seeds 000/002: the candidate shares no 4-gram with either reference, so the rules the
    tutorial describes ("0.0 if any precision is 0") give 0.0, not the printed 0.638."""
    fx = load_fixture("tutorial_cat_on_the_mat")
    (hyp,), (refs,) = fx.systems["candidate"], fx.references
    assert tutorial_sentence_bleu(hyp, refs) == 0.0
    assert tutorial_bleu([hyp], [list(refs)]) == 0.0
    assert fx.claim["printed"]["bleu"] != 0.0


def test_blog_bugs_behave_as_the_article_describes():
    """Seed 004: short candidates divide 0 by 0, regex metacharacters are live, a word inside
    another word counts, and the reference length is "exact match else longest"."""
    with pytest.raises(ZeroDivisionError):
        blog_sentence_bleu("cat sat on", ["cat sat on"])
    with pytest.raises(re.error):
        blog_sentence_bleu("(the cat sat on", ["the cat sat on"])
    # 'he' is found inside 'she': a perfect score where BLEU sees a wrong word
    assert blog_sentence_bleu("he sat on the mat", ["she sat on the mat"]) == 1.0
    # a 4-token candidate against 5- and 9-token references: no exact length, so the longest
    short, long_ = "cat sat on mat today", "cat sat on mat in the big red house"
    got = blog_sentence_bleu("cat sat on mat", [short, long_])
    expected = corpus_bleu(
        hypotheses=["cat sat on mat"],
        references=[[short, long_]],
        profile="multi-bleu",
        ref_length="longest",
    ).score
    assert got == pytest.approx(expected / 100)


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_buggy_variants_state_their_scale(name):
    perfect = BUGGY[name](["the cat sat on the mat"], [["the cat sat on the mat"]])
    assert perfect == pytest.approx(1.0 if SCALE[name] == "0-1" else 100.0)
    assert EXPECTED_FACTOR[name] in (BUGGY[name].__doc__ or "")


def test_sacrebleu_like_is_sacrebleu():
    for case in generate_cases(40, seed=3):
        hyps, refs = list(case.hypotheses), [list(r) for r in case.references]
        assert sacrebleu_like(hyps, refs) == pytest.approx(_sacrebleu_corpus(hyps, refs), abs=1e-9)


# ====================================================================== the machinery
def test_corpus_scorer_equals_the_engine():
    cases = generate_cases(25, seed=5)
    configs = list(PROFILES.values())
    configs += [c for _, _, c in single_factor_variants(PROFILES["sacrebleu"])]
    configs += [c for _, _, c in single_factor_variants(PROFILES["nltk"])]
    for case in cases:
        corpus = case.corpus()
        scorer = CorpusScorer(corpus, session=Session())
        for cfg in configs:
            try:
                want = engine.score_statistics(engine.compute_statistics(corpus, cfg), cfg).score
            except Exception as exc:  # the scorer must raise the same way
                with pytest.raises(type(exc)):
                    scorer.score(cfg)
                continue
            assert scorer.score(cfg) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_bug_arithmetic_without_mistakes_is_the_engine():
    for case in generate_cases(25, seed=6):
        for cfg in (
            PROFILES["sacrebleu"],
            PROFILES["nltk"],
            PROFILES["evaluate"].replace(on_zero_length="zero"),
            PROFILES["sacrebleu-sentence"],
            PROFILES["ignite"],
            PROFILES["codexglue"],
            PROFILES["parlai"],
        ):
            hyp_tok, ref_tok = tokenizers(cfg)
            segs = []
            for h, refs in zip(case.hypotheses, case.references, strict=True):
                ht, rts = hyp_tok(h), [ref_tok(r) for r in refs]
                c, t = count_segment(ht, rts, 5, {})
                segs.append((len(ht), tuple(len(r) for r in rts), c, t))
            want = engine.score_statistics(engine.compute_statistics(case.corpus(), cfg), cfg)
            assert score_segments(segs, cfg, {}) == pytest.approx(want.score, abs=1e-9)


@pytest.mark.parametrize(
    "profile", ["mteval-v13a", "multi-bleu", "multi-bleu-detok", "torchmetrics-sacrebleu"]
)
def test_bug_statistics_follow_the_profiles_text_rules_and_reference_padding(profile):
    """The profiles with their own text rules (strip, Perl whitespace, ASCII/Perl/detok
    lowercasing) and empty-padded missing references: without a mistake, both ways the bug
    models get statistics — counted here, or the engine's when only the brevity penalty is
    wrong — score as the engine does, on ragged generated cases and every fixture."""
    cfg = PROFILES[profile]
    cases = generate_cases(40, seed=8) + fixture_cases(rectangular=False)[0]
    hyp_tok, ref_tok = tokenizers(cfg)
    for case in cases:
        counted = []
        for h, refs in zip(case.hypotheses, case.references, strict=True):
            ht, rts = hyp_tok(h), [ref_tok(r) for r in refs]
            c, t = count_segment(ht, rts, 5, {})
            counted.append((len(ht), tuple(len(r) for r in rts), c, t))
        engines = segment_statistics(case, cfg, {})
        try:
            want = engine.score_statistics(engine.compute_statistics(case.corpus(), cfg), cfg)
        except LibraryWouldRaise:
            for segs in (counted, engines):
                with pytest.raises(LibraryWouldRaise):
                    score_segments(segs, cfg, {})
            continue
        for segs in (counted, engines):
            assert score_segments(segs, cfg, {}) == pytest.approx(want.score, abs=1e-9), case


@pytest.mark.parametrize(
    "profile",
    ["sacrebleu", "sacrebleu-sentence", "nltk", "parlai", "evaluate", "jury", "keras-hub"],
)
def test_bug_models_score_many_cases_as_each_alone(profile):
    """score_corpora (every case's rows in one arithmetic call, a raising case found by
    halving) gives each case's own score_segments, or None where that raises."""
    cases = generate_cases(40, seed=9) + fixture_cases(rectangular=False)[0]
    refused = 0
    for rule in ("closest", "shortest", "average"):
        cfg = PROFILES[profile].replace(ref_length=rule)
        for sw in ({}, {"bp": "none"}, {"bp": "swapped"}, {"clip": "none"}):
            segs = [segment_statistics(case, cfg, sw) for case in cases]
            for one, got in zip(segs, score_corpora(segs, cfg, sw), strict=True):
                try:
                    want = score_segments(one, cfg, sw)
                except REFUSALS:
                    assert got is None
                    refused += 1
                    continue
                assert got == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True)
    if profile in ("evaluate", "jury"):
        assert refused  # the halving path ran


def test_every_bug_model_changes_something():
    val = Judge(1e-6, Session())
    cases = generate_cases(60, seed=7)
    base = PROFILES["sacrebleu"]
    for name in BUG_MODELS:
        m = Model(base, (name,))
        assert any(
            abs(val.expected(c, m) - CorpusScorer(c.corpus(), session=val.session).score(base))
            > 1e-6
            for c in cases
            if val.expected(c, m) is not None
        ), name


@pytest.mark.parametrize("profile", ["mteval-v13a", "multi-bleu", "sacrebleu"])
def test_fit_summary_names_every_changed_field(profile):
    """Every configuration field a fit changed is listed in ``changes`` (strip, whitespace,
    lowercase rule and reference padding included), none that it did not change."""
    base = PROFILES[profile]
    for _, _, cfg in single_factor_variants(base, profile):
        summary = fit_summary(profile, base, Model(cfg), (1.0, 0.0))
        changed = {
            f.name
            for f in dataclasses.fields(BleuConfig)
            if getattr(cfg, f.name) != getattr(base, f.name)
        }
        assert set(summary["changes"]) == changed, cfg


def test_generated_cases_are_reproducible():
    a, b = generate_cases(30, seed=11), generate_cases(30, seed=11)
    assert a == b and a != generate_cases(30, seed=12)
    assert all(
        len({len(r) for r in c.references}) == 1 for c in generate_cases(30, rectangular=True)
    )


# ====================================================================== validate
def test_correct_implementation_matches_sacrebleu():
    r = validate(_sacrebleu_corpus, cases=CASES)
    assert r.best_profile == "sacrebleu"
    assert r.agreement == 1.0
    assert r.deviations == () and r.crashes == ()
    assert "sacrebleu" in r.matches
    assert r.scale == "0-100" and "100" in scale_reason(r)


def test_module_function_string():
    r = validate("harness.diagnose.homemade:sacrebleu_like", cases=20)
    assert (r.best_profile, r.agreement, r.implementation) == (
        "sacrebleu",
        1.0,
        "harness.diagnose.homemade:sacrebleu_like",
    )


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_buggy_variant_is_diagnosed(name):
    """Each reads as sacrebleu with its one change; that change is diagnosed unless an equal
    reading does without it (then it is listed), and nothing else is."""
    r = validate(BUGGY[name], cases=CASES)
    assert r.scale == SCALE[name]
    expected = EXPECTED_FACTOR[name]
    assert r.readings is not None and r.readings.everywhere
    lead = r.readings.lead
    assert (lead.profile, lead.needs) == ("sacrebleu", (expected,)), validation_text(r)
    assert set(r.diagnosed_factors) <= {expected}, validation_text(r)
    if expected not in r.diagnosed_factors:
        assert any(expected not in x.needs for x in r.readings.readings)
    assert r.fit["agreement"] == 1.0  # the fitted configuration (with mistakes) explains all
    for d in r.deviations:
        assert d.factor and d.factor != "unexplained"
        assert len(d.hypotheses) <= d.original["segments"]


@pytest.mark.parametrize(
    "name", [n for n in sorted(BUGGY) if EXPECTED_FACTOR[n] not in ("case", "ref_length")]
)
def test_buggy_variant_deviations_name_the_bug(name):
    """Against the profile they mean to implement, every deviation names the bug."""
    r = validate(BUGGY[name], cases=40, against="sacrebleu", max_deviations=3)
    assert r.deviations
    assert {d.factor for d in r.deviations} == {EXPECTED_FACTOR[name]}


def test_tutorial_is_nltk_averaged_over_sentences():
    r = validate(tutorial_bleu, cases=CASES, against="nltk")
    assert r.scale == "0-1"
    assert r.best_profile == "nltk"
    assert r.fit["changes"] == {"aggregation": "sentence-mean"}
    assert r.fit["agreement"] == 1.0
    assert {d.factor for d in r.deviations} == {"aggregation"}


def test_tutorial_is_exactly_ignites_default(tutorial_report):
    """The mean of the tutorial's sentence scores ("0.0 if any precision is 0") is what
    pytorch-ignite's ``Bleu()`` reports by default (``average="macro"``, ``no_smooth``): the
    nearest profile, with nothing changed and nothing deviating."""
    r = tutorial_report
    assert r.scale == "0-1"
    assert r.best_profile == "ignite"
    assert r.fit["changes"] == {}
    assert r.fit["agreement"] == 1.0
    assert not r.deviations


def test_tutorial_zero_if_any_precision_is_zero_is_a_smoothing_deviation_from_sacrebleu():
    r = validate(tutorial_bleu, cases=40, against="sacrebleu")
    smoothing = [d for d in r.deviations if d.factor == "smoothing"]
    assert smoothing
    d = smoothing[0]
    assert d.score == 0.0 and d.expected > 0  # "returns 0.0 if any precision is 0"
    assert {"tokenization", "smoothing", "aggregation"} <= set(r.fit["factors"])


def test_blog_substring_counting_and_longest_reference(blog_report):
    r = blog_report
    assert r.scale == "0-1"
    found = {f for d in r.deviations for f in d.factors}
    assert {"substring_counting", "ref_length", "ngram_extraction"} <= found, validation_text(r)
    assert r.fit["changes"]["ref_length"] == "longest-unless-exact"
    assert {"stride-n", "substring-both"} <= set(r.fit["bugs"])
    errors = " ".join(c.error for c in r.crashes)
    assert "ZeroDivisionError" in errors  # candidates shorter than 4 tokens
    short = next(c for c in r.crashes if "ZeroDivisionError" in c.error)
    assert len(short.hypotheses) == 1 and len(short.hypotheses[0].split()) < 4


def test_crashes_are_caught_and_shrunk():
    def fragile(hypotheses, references):
        if any(not h.strip() for h in hypotheses):
            raise ValueError("empty hypothesis")
        return sacrebleu_like(hypotheses, references)

    r = validate(fragile, cases=60)
    assert r.best_profile == "sacrebleu"
    assert r.crash_count > 0 and len(r.crashes) == 1
    (crash,) = r.crashes
    assert "ValueError: empty hypothesis" in crash.error
    assert crash.hypotheses == ("",) and len(crash.references) == 1
    assert r.deviations == ()


def test_scale_when_a_perfect_match_does_not_tell():
    def no_perfect(hypotheses, references):
        if all(h == r[0] for h, r in zip(hypotheses, references, strict=True)):
            raise RuntimeError("refuses identical input")
        return BUGGY["no_smoothing"](hypotheses, references)

    r = validate(no_perfect, cases=40)
    assert r.scale == "0-1"
    assert "neither" in scale_reason(r)


def test_report_json_and_markdown(blog_report):
    d = json.loads(json.dumps(validation_json(blog_report)))
    for key in ("best_profile", "agreement", "matches", "deviations", "crashes", "scale"):
        assert key in d
    assert all("factor" in x for x in d["deviations"])
    md = validation_text(blog_report)
    assert "best profile" in md and "ZeroDivisionError" in md


def test_command_adapter_path(tmp_path: Path):
    script = tmp_path / "bleu01.py"
    script.write_text(
        "import math, sys\n"
        "from collections import Counter\n"
        "hyp, *refs = sys.argv[1:]\n"
        "H = open(hyp, encoding='utf-8').read().split('\\n')[:-1]\n"
        "R = [open(f, encoding='utf-8').read().split('\\n')[:-1] for f in refs]\n"
        "m, t, c, r = [0] * 4, [0] * 4, 0, 0\n"
        "for i, h in enumerate(H):\n"
        "    h = h.split(); rs = [x[i].split() for x in R]\n"
        "    c += len(h); r += min((len(x) for x in rs), key=lambda x: (abs(x - len(h)), x))\n"
        "    for n in range(1, 5):\n"
        "        g = lambda s: Counter(tuple(s[j:j + n]) for j in range(len(s) - n + 1))\n"
        "        best = Counter()\n"
        "        for x in rs: best |= g(x)\n"
        "        m[n - 1] += sum(min(k, best[w]) for w, k in g(h).items())\n"
        "        t[n - 1] += max(0, len(h) - n + 1)\n"
        "if min(m) == 0 or c == 0: print(0.0)\n"
        "else:\n"
        "    bp = 1.0 if c >= r else math.exp(1 - r / c)\n"
        "    print(bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4))\n",
        encoding="utf-8",
    )
    r = validate(cmd=f"{sys.executable} {script} {{hyp}} {{refs}}", cases=12, fixtures=False)
    assert r.scale == "0-1"  # a bare number; a perfect match prints 1.0
    assert r.crashes == ()
    assert r.fit["agreement"] == 1.0
    # whitespace tokens as multi-bleu, 0 for an empty hypothesis as torchmetrics: which of the
    # two is nearest depends on what the generated cases hold; the fit reproduces every case
    assert r.best_profile in ("multi-bleu", "torchmetrics")


def test_exactly_one_subject():
    with pytest.raises(ConfigError):
        validate()
    with pytest.raises(ConfigError):
        validate(sacrebleu_like, cmd="echo 1")
    with pytest.raises(ConfigError):
        validate(sacrebleu_like, against="no-such-profile")
