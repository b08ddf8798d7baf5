"""``validate`` diagnoses against the nearest reading, never a base's quirk.

A subject is read as named profiles with the fewest changes that reproduce it; a factor is
diagnosed only when every such reading needs it. The home-made BLEU below is written here as a
plain function (13a tokens from the harness's tokenizer, clipped counts, the closest reference
length with ties to the shorter, no smoothing): it is sacrebleu with ``smooth_method="none"``
(checked against the real library), and also torchmetrics' port of sacrebleu with sacrebleu's
tie rule — so neither smoothing nor the reference length is a finding. Generated subjects are
the engine under a profile with one factor changed or one modelled mistake made.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from harness import PROFILES
from harness.bleu.tokenizers import get_tokenizer
from harness.diagnose.validate import BUG_MODELS, generate_cases, single_factor_variants, validate
from harness.diagnose.validate.bugs import Model
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.judge import Judge
from harness.report.validation import reading_words, validation_text
from harness.report.validation_words import validation_json
from harness.session import Session

from .depth import examples

CASES = 60  # generated corpora per validation of the home-made subjects (plus the fixtures)
PROPERTY_CASES = 30  # generated corpora per validation of a generated subject (no fixtures)

_tok13a = get_tokenizer("13a")


def _grams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def homemade(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], clip: bool = True
) -> float:
    """Corpus BLEU-4 (0–100) as a careful reader writes it: 13a tokens, each n-gram credited at
    most as often as it occurs in one reference (``clip``; without it every occurrence found
    in a reference counts), the reference length closest to the hypothesis' (ties: the
    shorter), no smoothing (0 when some order has no match)."""
    correct, total = [0] * 4, [0] * 4
    sys_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references, strict=True):
        h = _tok13a(hyp)
        rs = [_tok13a(r) for r in refs]
        sys_len += len(h)
        ref_len += min((len(r) for r in rs), key=lambda k: (abs(k - len(h)), k))
        for n in range(1, 5):
            counts = _grams(h, n)
            total[n - 1] += sum(counts.values())
            in_refs = [_grams(r, n) for r in rs]
            for gram, k in counts.items():
                most = max(rc[gram] for rc in in_refs)
                correct[n - 1] += min(k, most) if clip else (k if most else 0)
    if sys_len == 0 or min(correct) == 0:
        return 0.0
    bp = 1.0 if sys_len >= ref_len else math.exp(1 - ref_len / sys_len)
    return (
        100 * bp * math.exp(sum(math.log(c / t) for c, t in zip(correct, total, strict=True)) / 4)
    )


def unclipped(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """:func:`homemade` without clipping."""
    return homemade(hypotheses, references, clip=False)


def test_the_homemade_subject_is_sacrebleu_without_smoothing():
    """The real sacrebleu with ``smooth_method="none"`` gives the subject's scores."""
    import sacrebleu

    for case in generate_cases(40, seed=4):
        hyps, refs = list(case.hypotheses), [list(r) for r in case.references]
        k = max(len(r) for r in refs)
        streams = [[r[j] if j < len(r) else None for r in refs] for j in range(k)]
        want = sacrebleu.corpus_bleu(hyps, streams, smooth_method="none").score
        assert homemade(hyps, refs) == pytest.approx(want, abs=1e-9)


@pytest.fixture(scope="module")
def clipped_report():
    return validate(homemade, cases=CASES)


@pytest.fixture(scope="module")
def unclipped_report():
    return validate(unclipped, cases=CASES)


def test_homemade_reads_as_sacrebleu_with_smooth_none_and_no_bug(clipped_report):
    r = clipped_report
    text = validation_text(r)
    assert r.readings is not None and r.readings.everywhere, text
    lead = r.readings.lead
    assert (lead.profile, dict(lead.changes)) == ("sacrebleu", {"smooth": "none"}), text
    assert r.best_profile == "sacrebleu" and r.fit["changes"] == {"smooth": "none"}
    assert r.diagnosed_factors == (), text
    assert "reads as: sacrebleu with smooth=none" in text and "diagnosed: nothing" in text
    # torchmetrics' port reads it too, with sacrebleu's tie rule: listed as equal, not blamed
    port = [x for x in r.readings.readings if x.profile == "torchmetrics-sacrebleu"]
    assert [x.factors for x in port] == [("ref_length",)], text
    assert reading_words(port[0]) in text.split("equally:", 1)[1]


def test_unclipped_homemade_is_diagnosed_with_clipping_only(unclipped_report):
    r = unclipped_report
    text = validation_text(r)
    assert r.readings is not None and r.readings.everywhere, text
    assert r.diagnosed_factors == ("clipping",), text
    lead = r.readings.lead
    assert (lead.profile, dict(lead.changes), lead.bugs) == (
        "sacrebleu",
        {"smooth": "none"},
        ("clip-none",),
    ), text
    assert "diagnosed: clipping\n" in text


def test_readings_json(clipped_report):
    d = validation_json(clipped_report)
    assert d["readings"]["everywhere"] is True
    assert d["readings"]["readings"][0]["profile"] == "sacrebleu"
    assert d["diagnosed_factors"] == list(d["readings"]["needed"]) == []


# ---------------------------------------------------------------------- generated subjects
def _changes() -> list[tuple[str, str, Model]]:
    """(profile, the change's factor or bug class, the model) for every profile with one
    factor changed or one modelled mistake made (the zero-length policy aside: it decides
    only where a profile refuses, and such a case has no score)."""
    out = []
    for name, cfg in PROFILES.items():
        out += [
            (name, factor, Model(v))
            for factor, _, v in single_factor_variants(cfg, name)
            if factor != "zero_length"
        ]
        out += [(name, cls, Model(cfg, (bug,))) for bug, (cls, _) in BUG_MODELS.items()]
    return out


CHANGES = _changes()


def _subject(model: Model):
    judge = Judge(1e-9, Session())

    def subject(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        case = Case("subject", tuple(hypotheses), tuple(tuple(r) for r in references))
        value = judge.expected(case, model)
        if value is None:
            raise ValueError("the configuration refuses this input")
        return value

    return subject


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(CHANGES), st.integers(0, 2**16))
def test_a_profile_with_one_change_is_diagnosed_with_that_change(change, seed):
    """Exactly the change is diagnosed (no extra factor), unless an equal reading does
    without it (the profile as it is, or another named profile with one change of its own);
    then every listed reading reproduces the subject on the cases, and one does without the
    change. A change these cases cannot see leaves a named profile as it is."""
    profile, factor, model = change
    # a subject is a BLEU score: a perfect match scores 100 (some smoothings overshoot it)
    perfect = Case(
        "perfect", ("the cat sat on the mat today",), (("the cat sat on the mat today",),)
    )
    assume(Judge(1e-9, Session()).expected(perfect, model) == pytest.approx(100.0))
    r = validate(_subject(model), cases=PROPERTY_CASES, seed=seed, fixtures=False)
    text = f"{profile} with a change of {factor} ({model})\n{validation_text(r)}"
    if not r.diagnosable:  # the change refuses too many of these cases: nothing to read
        assert r.diagnosed_factors == ()
        return
    assert r.readings is not None and r.readings.everywhere, text
    assert all(x.steps <= 1 for x in r.readings.readings), text
    if factor in r.diagnosed_factors:
        assert set(r.diagnosed_factors) == {factor}, text
        assert any(x.needs == (factor,) for x in r.readings.readings), text
        return
    # not diagnosed: a reading does without the change, and every reading is exact
    assert any(factor not in x.needs for x in r.readings.readings), text
    judge = Judge(1e-9, Session())
    judge.factor = 0.01 if r.scale == "0-1" else 1.0
    cases = generate_cases(PROPERTY_CASES, seed=seed)
    want = [judge.expected(c, model) for c in cases]
    for x in r.readings.readings:
        got = [judge.expected(c, x.model) for c in cases]
        scored = [(w, g) for w, g in zip(want, got, strict=True) if w is not None]
        assert all(g is not None and abs(w - g) <= 1e-6 for w, g in scored), (x, text)


@pytest.mark.parametrize("bug", ["no-bp", "clip-none"])
def test_a_mistake_is_scored_on_the_references_its_profile_counts(bug):
    """lm-eval counts only as many references per segment as the fewest segment has; a modelled
    mistake on lm-eval is scored on those, whatever the judge scored before (the statistics it
    keeps are keyed by what decides the counting, not by the text rules alone)."""
    hyps = ("the cat sat on the mat today", "a dog ran in the big park")
    refs = (
        ("a cat sat on a mat", "the cat sat on the mat today"),
        ("the dog ran in the big park",),
    )
    case = Case("ragged", hyps, refs)
    cut = Case("cut", hyps, tuple(r[:1] for r in refs))
    sacrebleu = Model(PROFILES["sacrebleu"], (bug,))
    lm_eval = Model(PROFILES["lm-eval"], (bug,))
    judge = Judge(1e-9, Session())
    before = judge.expected(case, sacrebleu)
    after = judge.expected(case, lm_eval)
    alone = Judge(1e-9, Session()).expected(case, lm_eval)
    assert after == alone
    assert alone == pytest.approx(Judge(1e-9, Session()).expected(cut, sacrebleu), abs=1e-9)
    assert before is not None and alone is not None and abs(before - alone) > 1e-6
    assert judge.expected_all([case], lm_eval) == [alone]
