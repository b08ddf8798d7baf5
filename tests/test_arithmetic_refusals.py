"""``bleu_rows(..., on_refusal="mark")``: many rows scored at once, the refused ones marked.

A row is marked refused exactly when scoring it alone raises
:class:`~harness.errors.LibraryWouldRaise` (what the default ``on_refusal="raise"`` raises for
the first such row), and every other row has the score, precisions, penalty and ratio it has
alone: what lets :mod:`harness.diagnose.many_configs` score many corpora in one call without
halving the batch to find the corpus that raises. The rows and configurations are
``tests/test_arithmetic.py``'s strategies (zeros and every zero-length policy likely).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness.bleu import smoothing
from harness.bleu.arithmetic import bleu_rows, nltk_context
from harness.bleu.config import BleuConfig
from harness.bleu.zero_length import ZERO_LENGTH_RULES
from harness.errors import LibraryWouldRaise

from .depth import examples
from .test_arithmetic import _one, _same, configs, rows

# drawn weights need not sum to 1 (BleuConfig warns, and scores them as given)
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")


@pytest.mark.parametrize("smooth", sorted(smoothing.REGISTRY))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), corpus=st.booleans())
def test_marked_rows_are_the_rows_that_raise_alone(smooth: str, data: Any, corpus: bool) -> None:
    cfg: BleuConfig = data.draw(configs(smooth))
    drawn = data.draw(
        st.lists(rows(cfg.max_order, cfg.ref_length == "average"), min_size=1, max_size=8)
    )
    alone = [_one(t, cfg, ctx, corpus, longest) for t, ctx, longest in drawn]
    if any(isinstance(r, Exception) and not isinstance(r, LibraryWouldRaise) for r in alone):
        return  # not a refusal of the library (none is expected from these rows)
    got = bleu_rows(
        [t.sys_len for t, _, _ in drawn],
        [t.ref_len for t, _, _ in drawn],
        [t.correct for t, _, _ in drawn],
        [t.total for t, _, _ in drawn],
        cfg,
        context=nltk_context(*zip(*(c for _, c, _ in drawn), strict=True)),
        corpus=corpus,
        on_refusal="mark",
        longest=[longest for _, _, longest in drawn],
    )
    assert got.refused is not None
    assert got.refused.tolist() == [isinstance(r, LibraryWouldRaise) for r in alone]
    if got.refused.any():
        event("some rows refused")
    for i, one in enumerate(alone):
        if not isinstance(one, Exception):
            assert _same(got.row(i), one), (cfg, drawn[i])


def test_an_unknown_refusal_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="on_refusal"):
        bleu_rows([1], [1], [[1]], [[1]], BleuConfig(max_order=1), on_refusal="ignore")


@pytest.mark.parametrize("name", sorted(ZERO_LENGTH_RULES))
def test_a_zero_length_rule_leaves_no_score_exactly_when_it_says(name: str) -> None:
    """``leaves_no_score`` (what an attribution reads to know a refused hybrid may be scored
    under rule ``zero``) is what the arithmetic does: some empty side gives no number (a
    refusal or nan) under the rule, or the library refuses a segment before scoring (jury's
    first segment, opik's any segment without words: refused by the engine before its
    arithmetic, :mod:`harness.bleu.refusals`)."""
    rule = ZERO_LENGTH_RULES[name]
    cfg = BleuConfig(on_zero_length=name, zero_guard="none", library="x")  # no early 0
    # (hyp_len, ref_len): an empty hypothesis side, an empty reference side, both empty
    outcomes = []
    for sys_len, ref_len in ((0, 5), (5, 0), (0, 0)):
        for corpus in (True, False):
            got = bleu_rows(
                [sys_len],
                [ref_len],
                [[0] * 4],
                [[max(sys_len - k, 0) for k in range(4)]],
                cfg,
                corpus=corpus,
                on_refusal="mark",
            )
            outcomes.append(bool(got.refused[0]) or bool(np.isnan(got.score[0])))
    before_scoring = rule.first_segment_refusal or rule.empty_segment_refusal
    assert rule.leaves_no_score == (any(outcomes) or before_scoring)
    # the rules that always give a number: sacrebleu's BP 0, and the guarded divisions of the
    # code-summarization toolbox's google_bleu.py
    assert (name in ("zero", "guarded")) == (not rule.leaves_no_score)
