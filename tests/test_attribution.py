"""Attribution (issue 5, item 3): Shapley values over the factors that separate two variants.

Every expected number is computed inside the test, through a different path than the code under
test where possible (``harness.corpus_bleu`` / ``sentence_bleu`` with overrides instead of the
shared statistics), never typed in.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import warnings
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness import (
    PROFILES,
    BleuConfig,
    ConfigError,
    Corpus,
    LibraryWouldRaise,
    Session,
    corpus_bleu,
    resolve_config,
    sentence_bleu,
)
from harness.analysis.attribution import (
    FACTORS,
    NOT_FACTORS,
    AttributionUndefined,
    attribute,
    attribute_fixture,
    differing_factors,
    hybrid,
    shapley,
)
from harness.bleu import engine
from harness.bleu.stats import Statistics
from harness.data.fixtures import load_fixture
from harness.report.attribution_words import attribution_markdown
from harness.typed_json import to_json

from .depth import examples
from .strategies import corpora

TOL = 1e-9

#: sacrebleu's defaults with nltk's arithmetic (floor1 totals, method0) on the same 13a tokens.
NLTK_13A = resolve_config("nltk", tokenize="13a")

#: Profiles plus configurations that move single factors, for random pairs.
CONFIGS: dict[str, BleuConfig] = {
    **PROFILES,
    "nltk-13a": NLTK_13A,
    "sacrebleu-floor": resolve_config("sacrebleu", smooth="floor", smooth_value=0.2),
    "sacrebleu-add-k": resolve_config("sacrebleu", smooth="add-k"),
    "sacrebleu-lc-intl": resolve_config("sacrebleu", lowercase=True, tokenize="intl"),
    "sacrebleu-bigram": resolve_config("sacrebleu", max_order=2, weights=(0.3, 0.7)),
    "nltk-method1": resolve_config("nltk", smooth="nltk-method1"),
    "nltk-method4": resolve_config("nltk", smooth="nltk-method4", smooth_value=3.0),
    "nltk-method5": resolve_config("nltk", smooth="nltk-method5", max_order=3),
    "nltk-method7": resolve_config("nltk", smooth="nltk-method7"),
    "evaluate-smooth": resolve_config("evaluate", smooth="plus-one", ref_length="average"),
    "torchmetrics-smooth": resolve_config("torchmetrics", smooth="plus-one-high"),
    "longest-mean": resolve_config(
        "sacrebleu", ref_length="longest", aggregation="sentence-mean", tokenize="char"
    ),
}


def _shapley_by_definition(k: int, v: dict[frozenset[int], float]) -> list[float]:
    """The textbook formula over explicit coalitions (an independent re-implementation)."""
    players = range(k)
    out = []
    for f in players:
        others = [p for p in players if p != f]
        total = 0.0
        for size in range(k):
            for coalition in itertools.combinations(others, size):
                s = frozenset(coalition)
                w = math.factorial(size) * math.factorial(k - size - 1) / math.factorial(k)
                total += w * (v[s | {f}] - v[s])
        out.append(total)
    return out


# ---------------------------------------------------------------------------- the factor space
def test_every_config_field_belongs_to_exactly_one_factor() -> None:
    fields = [f.name for f in dataclasses.fields(BleuConfig)]
    grouped = [f for members in FACTORS.values() for f in members]
    assert len(grouped) == len(set(grouped)), "a field is in two factors"
    assert sorted(grouped) == sorted(f for f in fields if f not in NOT_FACTORS)
    assert set(NOT_FACTORS) == {"library", "extra"}
    assert list(FACTORS) == [
        "sentence_split",
        "tokenization",
        "ngram_identity",
        "case",
        "punctuation",
        "articles",
        "ref_length",
        "ngram_totals",
        "smoothing",
        "effective_order",
        "aggregation",
        "order",
        "zero_length",
        "rounding",
    ]


def test_every_hybrid_of_every_profile_pair_is_a_valid_config() -> None:
    for a, b in itertools.product(CONFIGS.values(), repeat=2):
        names = differing_factors(a, b)
        for size in range(len(names) + 1):
            for combo in itertools.combinations(names, size):
                h = hybrid(a, b, combo)
                assert differing_factors(h, b) == tuple(n for n in names if n not in combo)
    with pytest.raises(ConfigError, match="unknown factor"):
        hybrid(CONFIGS["sacrebleu"], CONFIGS["nltk"], ["tokenisation"])


def test_shapley_matches_the_textbook_formula_on_a_random_game() -> None:
    import numpy as np

    rng = np.random.default_rng(5)
    for k in range(5):
        table = rng.normal(size=1 << k).tolist()
        v = {frozenset(i for i in range(k) if mask >> i & 1): table[mask] for mask in range(1 << k)}
        got = shapley(k, lambda m, t=table: t[m])
        assert got == pytest.approx(_shapley_by_definition(k, v), abs=1e-12)
        assert math.fsum(got) == pytest.approx(table[-1] - table[0], abs=1e-12)


# ---------------------------------------------------------------------------- properties
@settings(max_examples=examples(300), deadline=None)
@given(
    data=corpora(),
    a=st.sampled_from(sorted(CONFIGS)),
    b=st.sampled_from(sorted(CONFIGS)),
)
def test_factors_sum_to_the_gap_and_reverse_to_their_negation(
    data: tuple[list[str], list[list[str]]], a: str, b: str
) -> None:
    hyps, refs = data
    corpus = Corpus(hypotheses=hyps, references=refs)
    cfg_a, cfg_b = CONFIGS[a], CONFIGS[b]
    try:
        forward = attribute(corpus, cfg_a, cfg_b, session=Session())
    except AttributionUndefined as exc:
        # Only an endpoint may be undefined: dying zero-length hybrids are substituted.
        assert exc.combination in ((), differing_factors(cfg_a, cfg_b))
        assume(False)
        return
    differing = differing_factors(cfg_a, cfg_b)
    assert tuple(forward.factors) == differing  # agreeing factors get no entry, FACTORS order
    assert math.fsum(forward.factors.values()) == pytest.approx(forward.gap, abs=TOL)
    assert forward.gap == forward.score_b - forward.score_a
    assert forward.score_a == pytest.approx(engine.corpus_score(corpus, cfg_a).score, abs=TOL)
    assert forward.score_b == pytest.approx(engine.corpus_score(corpus, cfg_b).score, abs=TOL)

    backward = attribute(corpus, cfg_b, cfg_a, session=Session())
    assert tuple(backward.factors) == differing
    for name in differing:
        assert backward.factors[name] == pytest.approx(-forward.factors[name], abs=TOL)


@settings(max_examples=examples(60), deadline=None)
@given(data=corpora(allow_empty=False), a=st.sampled_from(sorted(CONFIGS)))
def test_a_single_differing_factor_gets_the_whole_gap(
    data: tuple[list[str], list[list[str]]], a: str
) -> None:
    hyps, refs = data
    corpus = Corpus(hypotheses=hyps, references=refs)
    cfg_a = CONFIGS[a]
    cfg_b = cfg_a.replace(lowercase=not cfg_a.lowercase)
    try:
        r = attribute(corpus, cfg_a, cfg_b, session=Session())
    except AttributionUndefined:
        assume(False)
        return
    assert list(r.factors) == ["case"]
    assert r.factors["case"] == pytest.approx(r.gap, abs=TOL)


# ---------------------------------------------------------------------------- seed fixtures
SACREBLEU_VS_EVALUATE = [
    ("google_nasa_opportunity", "candidate_1"),
    ("google_nasa_opportunity", "candidate_2"),
    ("google_unigram_clipping", "candidate"),
    ("tutorial_cat_on_the_mat", "candidate"),
    ("silence_pitfall", "A"),
    ("silence_pitfall", "B"),
    ("edge_reference_length_tie", "system"),
    ("blog_image_examples_reconstructed", "candidate"),
    ("blog_code_examples", "candidate"),
]


def _score(corpus: Corpus, profile: str, **overrides: object) -> float:
    return corpus_bleu(
        hypotheses=corpus.hypotheses, references=corpus.references, profile=profile, **overrides
    ).score


@pytest.mark.parametrize(("fixture", "system"), SACREBLEU_VS_EVALUATE)
def test_sacrebleu_vs_evaluate_is_reference_length_and_smoothing(fixture: str, system: str) -> None:
    """evaluate = tensorflow-nmt: shortest reference, no smoothing, no guard, dies on zero
    lengths, tokenizes the raw string (no rstrip). Only ref_length and smoothing move the
    number; zero_length gets exactly 0, and so does tokenization (no fixture segment ends in
    whitespace, so stripping changes no token)."""
    corpus = load_fixture(fixture).corpus(system)
    r = attribute(corpus, "sacrebleu", "evaluate", session=Session())
    assert list(r.factors) == ["tokenization", "ref_length", "smoothing", "zero_length"]
    assert r.factors["zero_length"] == 0.0
    assert r.factors["tokenization"] == 0.0
    assert r.residual is None
    # The two-player Shapley values, through the public API rather than shared statistics.
    smooth = {"smooth": "none", "zero_guard": "none"}
    v_none = _score(corpus, "sacrebleu")
    v_ref = _score(corpus, "sacrebleu", ref_length="shortest")
    v_smooth = _score(corpus, "sacrebleu", **smooth)
    v_both = _score(corpus, "evaluate")
    assert r.score_a == pytest.approx(v_none, abs=TOL)
    assert r.score_b == pytest.approx(v_both, abs=TOL)
    assert r.factors["ref_length"] == pytest.approx(
        ((v_ref - v_none) + (v_both - v_smooth)) / 2, abs=TOL
    )
    assert r.factors["smoothing"] == pytest.approx(
        ((v_smooth - v_none) + (v_both - v_ref)) / 2, abs=TOL
    )
    assert r.factors["ref_length"] + r.factors["smoothing"] == pytest.approx(r.gap, abs=TOL)
    # Where each factor must be 0, from the statistics: closest == shortest on every segment
    # (ties go to the shorter), and smoothing only acts on orders with zero matches.
    stats = engine.compute_statistics(corpus, PROFILES["sacrebleu"])
    same_ref = (stats.ref_length("closest") == stats.ref_length("shortest")).all()
    any_zero = (stats.matches.sum(axis=0) == 0).any()
    if same_ref:
        assert r.factors["ref_length"] == 0.0
    if not any_zero:
        assert r.factors["smoothing"] == 0.0


def test_seed_fixtures_show_both_factors_somewhere() -> None:
    """The table above is not vacuous: some fixture needs each factor."""
    found = {"ref_length": 0, "smoothing": 0}
    for fixture, system in SACREBLEU_VS_EVALUATE:
        r = attribute_fixture(fixture, system, "sacrebleu", "evaluate", session=Session())
        for name in found:
            found[name] += abs(r.factors[name]) > 0.01
    assert all(found.values()), found


@pytest.mark.parametrize("system", ["A", "B"])
def test_silence_pitfall_sacrebleu_vs_nltk_is_the_ngram_total_rule(system: str) -> None:
    """Same 13a tokens: only nltk's per-segment floor of 1 on the n-gram totals matters.

    B's empty last output adds 1 to every order's total under nltk (0 under sacrebleu);
    smoothing never acts because every order has matches (method0 and exp leave non-zero
    precisions alone). Smoothing's share is 0 up to floating-point rounding: nltk's path
    keeps precisions as Fractions and sums logs with ``math.fsum``, so its scores differ from
    the plain path in the last bit or two.
    """
    corpus = load_fixture("silence_pitfall").corpus(system)
    r = attribute(corpus, "sacrebleu", NLTK_13A, session=Session())
    assert list(r.factors) == ["ngram_totals", "smoothing"]
    assert abs(r.factors["smoothing"]) < 1e-12
    assert r.factors["ngram_totals"] == pytest.approx(r.gap, abs=1e-12)
    floored = _score(corpus, "sacrebleu", ngram_totals="floor1")
    assert r.factors["ngram_totals"] == pytest.approx(floored - r.score_a, abs=1e-12)
    stats = engine.compute_statistics(corpus, PROFILES["sacrebleu"])
    assert (stats.matches.sum(axis=0) > 0).all()
    if system == "A":  # every output has >= 4 tokens: the floor never applies
        assert r.gap == pytest.approx(0.0, abs=1e-12)
    else:
        assert r.gap < -0.5


def test_silence_pitfall_ranking_flips_with_the_ngram_total_rule() -> None:
    """The seed claims A < B under corpus BLEU; nltk's floor reverses it on the same tokens."""
    fx = load_fixture("silence_pitfall")
    sacre = {s: _score(fx.corpus(s), "sacrebleu") for s in "AB"}
    nltk = {
        s: attribute_fixture("silence_pitfall", s, "sacrebleu", NLTK_13A, session=Session())
        for s in "AB"
    }
    assert sacre["A"] < sacre["B"]
    assert nltk["A"].score_b > nltk["B"].score_b


# ---------------------------------------------------------------------------- residual
def test_residual_against_sacrebleu_is_zero() -> None:
    pytest.importorskip("sacrebleu")
    r = attribute_fixture(
        "tutorial_cat_on_the_mat",
        None,
        "evaluate",
        "sacrebleu",
        library="sacrebleu",
        session=Session(),
    )
    assert r.residual is not None and abs(r.residual) < TOL
    assert r.library == "sacrebleu"
    assert r.library_score == pytest.approx(r.score_b, abs=TOL)


@pytest.mark.parametrize(
    ("fixture", "system"), [("silence_pitfall", "B"), ("blog_code_examples", "candidate")]
)
def test_residual_against_nltk_is_zero(fixture: str, system: str) -> None:
    pytest.importorskip("nltk")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nltk method0 warns on zero counts
        r = attribute_fixture(
            fixture, system, "sacrebleu", "nltk", library="nltk", session=Session()
        )
        first = load_fixture(fixture).ids[0]
        seg = attribute_fixture(
            fixture, system, "sacrebleu", "nltk", library="nltk", segment=first, session=Session()
        )
    assert r.residual is not None and abs(r.residual) < TOL
    assert seg.residual is not None and abs(seg.residual) < TOL


def test_unsupported_library_setting_fails_before_the_hybrids() -> None:
    from harness import UnsupportedSetting

    pytest.importorskip("sacrebleu")
    # evaluate's profile tokenizes the raw string: the first setting sacrebleu cannot take
    with pytest.raises(UnsupportedSetting, match="strip='none'"):
        attribute_fixture(
            "silence_pitfall", "A", "sacrebleu", "evaluate", library="sacrebleu", session=Session()
        )


# ---------------------------------------------------------------------------- segments
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("sacrebleu-sentence", "nltk"),
        ("sacrebleu", "torchmetrics"),
        ("mteval-v13a", "pycocoevalcap"),
    ],
)
def test_segment_attribution_sums_to_the_segment_gap(a: str, b: str) -> None:
    fx = load_fixture("blog_image_examples_reconstructed")
    corpus = fx.corpus("candidate")
    for i, seg in enumerate(corpus.ids):
        r = attribute(corpus, a, b, segment=seg, session=Session())
        hyp, refs = corpus.hypotheses[i], list(corpus.references[i])
        want_a = sentence_bleu(hypothesis=hyp, references=refs, profile=a).score
        want_b = sentence_bleu(hypothesis=hyp, references=refs, profile=b).score
        assert r.segment == seg
        assert r.score_a == pytest.approx(want_a, abs=TOL)
        assert r.score_b == pytest.approx(want_b, abs=TOL)
        assert math.fsum(r.factors.values()) == pytest.approx(want_b - want_a, abs=TOL)
        # A sentence score does not depend on how sentence scores would be aggregated.
        assert r.factors.get("aggregation", 0.0) == 0.0


def test_unknown_segment_is_rejected() -> None:
    with pytest.raises(ConfigError, match="no segment"):
        attribute_fixture(
            "silence_pitfall", "A", "sacrebleu", "nltk", segment="99", session=Session()
        )


# ---------------------------------------------------------------------------- hybrids that raise
def test_undefined_endpoint_raises_naming_it() -> None:
    with pytest.raises(AttributionUndefined, match=r"b \(evaluate\).*ZeroDivisionError") as info:
        attribute_fixture(
            "edge_empty_hypothesis", "all_empty", "sacrebleu", "evaluate", session=Session()
        )
    assert info.value.combination == ("tokenization", "ref_length", "smoothing", "zero_length")
    assert isinstance(info.value.cause, LibraryWouldRaise)
    with pytest.raises(AttributionUndefined, match=r"a \(evaluate\)") as info:
        attribute_fixture(
            "edge_empty_hypothesis", "all_empty", "evaluate", "sacrebleu", session=Session()
        )
    assert info.value.combination == ()


def test_dying_hybrids_are_scored_as_zero_length_zero() -> None:
    """sacrebleu-sentence → evaluate on a corpus with one empty output: evaluate's corpus score
    exists, but every sentence-mean hybrid with evaluate's zero-length policy would die on the
    empty segment. Those hybrids are scored with on_zero_length='zero' and listed; the
    zero_length factor gets 0 (dying is not a number)."""
    corpus = load_fixture("edge_empty_hypothesis").corpus("one_empty")
    r = attribute(corpus, "sacrebleu-sentence", "evaluate", session=Session())
    assert r.substituted
    assert all("zero_length" in s.split("+") and "aggregation" not in s for s in r.substituted)
    assert r.factors["zero_length"] == 0.0
    assert math.fsum(r.factors.values()) == pytest.approx(r.gap, abs=TOL)
    assert "on_zero_length=zero" in attribution_markdown(r)

    with pytest.raises(AttributionUndefined, match=r"hybrid sacrebleu-sentence.*evaluate raises"):
        attribute(corpus, "sacrebleu-sentence", "evaluate", strict=True, session=Session())


def test_zero_length_gets_points_when_the_number_really_changes() -> None:
    """multi-bleu prints 0 when the reference side is empty; 'zero' scores it (here > 0 with
    +1 smoothing). That difference is a number, so zero_length owns all of it."""
    corpus = Corpus(hypotheses=["a cat"], references=[[""]])
    a = resolve_config("multi-bleu", smooth="plus-one")
    b = a.replace(on_zero_length="zero")
    r = attribute(corpus, a, b, session=Session())
    assert list(r.factors) == ["zero_length"]
    assert r.score_a == 0.0 and r.score_b > 0
    assert r.factors["zero_length"] == pytest.approx(r.score_b, abs=TOL)


def test_hybrid_that_raises_for_another_reason_is_reported() -> None:
    """nltk's method 6 needs three orders: the hybrid (method 6, bigram weights) raises, and
    no zero-length policy is to blame, so the combination is named."""
    a = resolve_config("nltk", smooth="nltk-method6")
    b = resolve_config("nltk", smooth="nltk-method1", max_order=2)
    corpus = load_fixture("edge_identical").corpus("identical")
    with pytest.raises(AttributionUndefined, match=r"order from") as info:
        attribute(corpus, a, b, session=Session())
    assert info.value.combination == ("order",)
    assert info.value.cause.library_exception == "IndexError"


# ---------------------------------------------------------------------------- reuse and output
def test_statistics_are_computed_once_per_tokenization(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int | None]] = []
    real = engine.compute_statistics

    def counting(
        corpus: Corpus, config: BleuConfig, *, max_order: int | None = None, counted: bool = False
    ) -> Statistics:
        calls.append((engine.tokenization_key(config), max_order))
        return real(corpus, config, max_order=max_order, counted=counted)

    monkeypatch.setattr(engine, "compute_statistics", counting)
    b = resolve_config("nltk", smooth="nltk-method5", lowercase=True)
    r = attribute(
        load_fixture("silence_pitfall").corpus("B"), "sacrebleu-sentence", b, session=Session()
    )
    assert len(r.factors) >= 5  # 2^k hybrids ...
    assert len(calls) == len({key for key, _ in calls}) == 4  # ... 4 tokenizations, once each
    assert {order for _, order in calls} == {5}  # method 5 looks at order 5


def test_json_is_ready_and_markdown_lists_every_factor() -> None:
    r = attribute_fixture(
        "tutorial_cat_on_the_mat", None, "sacrebleu", "torchmetrics", session=Session()
    )
    d = json.loads(json.dumps(to_json(r)))
    assert {"a", "b", "score_a", "score_b", "gap", "factors", "residual"} <= set(d)
    assert d["a"] == "sacrebleu" and d["b"] == "torchmetrics"
    assert d["factors"] == pytest.approx(dict(r.factors))
    assert d["changes"]["tokenization"] == {"tokenize": ["13a", "whitespace"]}
    md = attribution_markdown(r)
    assert "| factor | change (a → b) | BLEU points | share of gap |" in md
    for name in r.factors:
        assert f"| {name} |" in md
    custom = attribute_fixture("tutorial_cat_on_the_mat", None, NLTK_13A, "nltk", session=Session())
    assert custom.a == NLTK_13A.signature()
    assert list(custom.factors) == ["tokenization"]


def test_identical_configs_have_no_factors() -> None:
    r = attribute_fixture(
        "silence_pitfall", "A", "sacrebleu", PROFILES["sacrebleu"], session=Session()
    )
    assert dict(r.factors) == {} and r.gap == 0.0
    assert "—" in attribution_markdown(r)  # no share of a zero gap


def test_attribute_fixture_needs_a_system_when_there_are_several() -> None:
    with pytest.raises(ConfigError, match="several systems"):
        attribute_fixture("silence_pitfall", None, "sacrebleu", "nltk", session=Session())


# ---------------------------------------------------------------------------- real data
@pytest.mark.realdata
def test_wmt21_sacrebleu_vs_nltk_is_tokenization_and_nltk_reproduced(data_dir: Path) -> None:
    """On a real system: the factors still sum to the gap, and the nltk profile leaves no
    residual against nltk itself."""
    pytest.importorskip("nltk")
    from harness.data.datasets import load_wmt21_ende

    corpus = load_wmt21_ende(data_dir, systems=["Facebook-AI"])["Facebook-AI"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = attribute(corpus, "sacrebleu", "nltk", library="nltk", session=Session())
    assert list(r.factors) == ["tokenization", "ngram_totals", "smoothing"]
    assert math.fsum(r.factors.values()) == pytest.approx(r.gap, abs=TOL)
    assert r.residual is not None and abs(r.residual) < TOL
    assert abs(r.factors["tokenization"]) > abs(r.factors["ngram_totals"])
