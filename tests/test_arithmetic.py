"""The one BLEU arithmetic and the smoothing registry.

* One row at a time (:func:`~harness.bleu.arithmetic.score_totals`) equals many rows at once
  (:func:`~harness.bleu.arithmetic.bleu_rows`) row by row, for every smoothing method in the
  registry (nltk's methods with their per-row context) and every other factor; where rows
  raise, the many-row call raises what the first raising row raises alone.
* Every registry entry cites its source and has a default ``smooth_value`` inside its own
  valid range (or neither); ``BleuConfig`` takes its smoothing names and value checks from
  the registry.
* ``choose_ref_length`` is one row of ``ref_length_of``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness.bleu import smoothing
from harness.bleu.arithmetic import bleu_rows, nltk_context, score_totals
from harness.bleu.config import (
    EMPTY_ORDER,
    ON_ZERO_LENGTH,
    REF_LENGTHS,
    SMOOTHINGS,
    ZERO_GUARD,
    BleuConfig,
)
from harness.bleu.engine import reported
from harness.bleu.stats import Totals, choose_ref_length, ref_length_of, ref_matrix
from harness.errors import ConfigError, LayoutError

from .depth import examples

REGISTRY = smoothing.REGISTRY

# drawn weights need not sum to 1 (BleuConfig warns, and scores them as given)
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")


@st.composite
def configs(draw: st.DrawFn, smooth: str) -> BleuConfig:
    n = draw(st.integers(1, 6))
    kw: dict[str, Any] = {
        "smooth": smooth,
        "max_order": n,
        "effective_order": draw(st.booleans()),
        "empty_order": draw(st.sampled_from(EMPTY_ORDER)),
        "zero_guard": draw(st.sampled_from(ZERO_GUARD)),
        "on_zero_length": draw(st.sampled_from(ON_ZERO_LENGTH)),
        "ref_length": draw(st.sampled_from(["closest", "average"])),
        "ngram_totals": draw(st.sampled_from(["plain", "floor1"])),
    }
    if draw(st.booleans()):
        w = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n, max_size=n))
        if any(w):
            kw["weights"] = tuple(w)
    spec = REGISTRY[smooth]
    if spec.value_range is not None and draw(st.booleans()):
        low = spec.value_range.low
        values = [v for v in (0.0, 0.01, 0.5, 2.0, 7.0) if spec.value_range.contains(v)]
        kw["smooth_value"] = draw(st.sampled_from(values)) if values else low + 1
    return BleuConfig(**kw)


@st.composite
def rows(draw: st.DrawFn, n: int, average: bool) -> tuple[Totals, tuple[int, int, int], int]:
    """One row of statistics (zeros likely), its nltk context (hyp_len, last, correct5) and
    its longest hypothesis."""
    sys_len = draw(st.integers(0, 30))
    ref_len: float = draw(st.sampled_from([0, 1, sys_len, draw(st.integers(0, 40))]))
    if average and draw(st.booleans()):
        ref_len += 0.5
    total = [max(0, sys_len - k) for k in range(n)]
    if draw(st.booleans()):
        total = [max(1, t) for t in total]  # nltk's floor1 totals
    correct = [draw(st.sampled_from([0, t, draw(st.integers(0, t))])) for t in total]
    last = draw(st.integers(0, 12))
    ctx = (draw(st.sampled_from([0, sys_len])), last, draw(st.integers(0, max(0, last - 4))))
    longest = draw(st.integers(0, sys_len))
    return Totals(sys_len, ref_len, tuple(correct), tuple(total)), ctx, longest


def _one(t: Totals, cfg: BleuConfig, ctx: tuple[int, int, int], corpus: bool, longest: int) -> Any:
    try:
        return score_totals(t, cfg, nltk_context(*ctx), corpus=corpus, longest=longest)
    except Exception as exc:  # the library raises on this row
        return exc


@pytest.mark.parametrize("smooth", sorted(REGISTRY))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), corpus=st.booleans())
def test_one_row_equals_many_rows(smooth: str, data: Any, corpus: bool) -> None:
    cfg = data.draw(configs(smooth))
    drawn = data.draw(
        st.lists(rows(cfg.max_order, cfg.ref_length == "average"), min_size=1, max_size=8)
    )
    alone = [_one(t, cfg, ctx, corpus, longest) for t, ctx, longest in drawn]
    ctx = nltk_context(*zip(*(c for _, c, _ in drawn), strict=True))

    def many() -> Any:
        return bleu_rows(
            [t.sys_len for t, _, _ in drawn],
            [t.ref_len for t, _, _ in drawn],
            [t.correct for t, _, _ in drawn],
            [t.total for t, _, _ in drawn],
            cfg,
            context=ctx,
            corpus=corpus,
            longest=[longest for _, _, longest in drawn],
        )

    first_error = next((r for r in alone if isinstance(r, Exception)), None)
    if first_error is not None:
        event("raises")
        with pytest.raises(type(first_error)) as caught:
            many()
        assert str(caught.value) == str(first_error)
        return
    got = many()
    for i, one in enumerate(alone):
        # nan (on_zero_length="nan", both lengths 0) is equal to itself here, as in the library
        assert _same(got.row(i), one), (cfg, drawn[i])


def _same(a: Any, b: Any) -> bool:
    """Equal, field by field, with nan equal to nan (and to nothing else)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "__dataclass_fields__") and type(a) is type(b):
        return all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return bool(a == b)


def test_every_smoothing_is_tested_above() -> None:
    assert set(SMOOTHINGS) == set(REGISTRY)
    assert {s for s in REGISTRY if s.startswith("nltk-method")} == {
        f"nltk-method{i}" for i in range(8)
    }


# ---------------------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registry_entry_cites_its_source_and_has_a_valid_default(name: str) -> None:
    spec = REGISTRY[name]
    assert spec.name == name
    assert len(spec.citation) > 20 and any(ch.isdigit() for ch in spec.citation), spec.citation
    assert callable(spec.precisions)
    if spec.value_range is None:
        assert spec.default is None
        assert not spec.takes_value
        with pytest.raises(ConfigError, match="takes no smooth_value"):
            BleuConfig(smooth=name, smooth_value=1.0)
    else:
        assert spec.default is not None and spec.value_range.contains(spec.default)
        assert spec.value_range.meaning
        cfg = BleuConfig(smooth=name)
        assert cfg.effective_smooth_value == spec.default
        assert f"smooth:{name}[{spec.default:g}]" in cfg.signature()
        low = spec.value_range.low
        for bad in (math.inf, math.nan, low - 1.0, *((low,) if spec.value_range.strict else ())):
            with pytest.raises(ConfigError, match="out of range"):
                BleuConfig(smooth=name, smooth_value=bad)
        assert BleuConfig(smooth=name, smooth_value=low + 0.5).smooth_value == low + 0.5
    assert spec.orders_needed >= 1
    assert spec.zero_orders in ("zero-score", "dropped")


def test_config_names_come_from_the_registry() -> None:
    assert tuple(REGISTRY) == SMOOTHINGS
    with pytest.raises(ConfigError, match="unknown smooth") as caught:
        BleuConfig(smooth="nltk-method8")
    assert "nltk-method7" in str(caught.value)


def test_effective_order_on_floored_totals_reads_the_longest_hypothesis() -> None:
    """A floored total is never 0, so the orders without a hypothesis n-gram are those above
    the longest hypothesis: a segment row's own length, a corpus row's given one."""
    cfg = BleuConfig(ngram_totals="floor1", effective_order=True, smooth="nltk-method1")
    # two outputs of 3 and 2 words: floored totals (3+2, 1+1, 1+1, 1+1)
    t = Totals(5, 7, (4, 2, 1, 0), (5, 3, 2, 2))
    with pytest.raises(ValueError, match="longest"):
        score_totals(t, cfg)
    three = BleuConfig(ngram_totals="floor1", smooth="nltk-method1", max_order=3)
    cut = Totals(5, 7, (4, 2, 1), (5, 3, 2))
    assert score_totals(t, cfg, longest=3).score == score_totals(cut, three).score
    segment = Totals(2, 2, (2, 1, 0, 0), (2, 1, 1, 1))
    two = BleuConfig(ngram_totals="floor1", smooth="nltk-method1", max_order=2)
    alone = score_totals(segment, cfg, corpus=False)
    assert alone.score == score_totals(Totals(2, 2, (2, 1), (2, 1)), two, corpus=False).score
    # plain totals decide on their own zeros, as before
    plain = cfg.replace(ngram_totals="plain")
    assert score_totals(Totals(5, 7, (4, 2, 1, 0), (5, 3, 1, 0)), plain).score > 0


def test_context_methods_need_a_context() -> None:
    t = Totals(5, 5, (3, 0, 0, 0), (5, 4, 3, 2))
    for name, spec in REGISTRY.items():
        cfg = BleuConfig(smooth=name, zero_guard="none")
        if spec.context:
            with pytest.raises(ValueError, match="NltkContext"):
                score_totals(t, cfg)
        else:
            assert 0 <= score_totals(t, cfg).score <= 100


# ---------------------------------------------------------------------------- reference length
@settings(max_examples=examples(200), deadline=None)
@given(hyp=st.integers(0, 9), refs=st.lists(st.integers(0, 9), min_size=1, max_size=5))
def test_choose_ref_length_is_one_row_of_ref_length_of(hyp: int, refs: list[int]) -> None:
    for rule in REF_LENGTHS:
        many = ref_length_of(np.array([hyp, 3]), ref_matrix([refs, [3, 1]]), rule)
        one = choose_ref_length(hyp, refs, rule)
        assert one == many[0]
        assert type(one) is (float if rule == "average" else int)


def test_a_segment_without_references_is_refused() -> None:
    with pytest.raises(LayoutError, match="at least one reference"):
        choose_ref_length(3, [], "closest")
    with pytest.raises(LayoutError, match="segment 2"):
        ref_length_of(np.array([1, 2]), ref_matrix([[1], []]), "shortest")
    with pytest.raises(ValueError, match="unknown reference-length rule"):
        choose_ref_length(3, [3], "nearest")


@pytest.mark.parametrize(
    ("score", "digits", "rule", "library_prints"),
    [
        # vizseq: numpy.round scales by 10**3 first, and 12.7285 * 1000 lands below the tie
        (12.7285, 3, "numpy", lambda: float(np.round(12.7285, 3))),
        (12.7285, 3, "python", lambda: round(12.7285, 3)),
        # unitxt's normalized sacrebleu: Python's round on the 0-1 score
        (16.5, 0, "python-unit", lambda: 100 * round(0.165, 2)),
        (16.5, 0, "python", lambda: round(16.5)),
    ],
)
def test_round_rules_print_as_their_tools(
    score: float, digits: int, rule: str, library_prints: Any
) -> None:
    config = BleuConfig(round_digits=digits, round_rule=rule)
    assert reported(score, config) == library_prints()
    others = {
        reported(score, config.replace(round_rule=r)) for r in ("python", "numpy", "python-unit")
    }
    assert len(others) == 2  # each tie is one where two of the rules disagree
