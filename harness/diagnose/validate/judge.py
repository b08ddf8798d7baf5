"""What a model expects on a case, and whether the implementation's score agrees with it.

A :class:`Judge` scores cases under configurations (through
:mod:`harness.diagnose.many_configs`: statistics once per tokenization for all the cases
together, every configuration one arithmetic call on them) and under modelled mistakes
(:mod:`harness.diagnose.validate.bugs`), on the implementation's scale, with caches; it
compares within a tolerance and measures a model's agreement over many cases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from harness.bleu.config import BleuConfig
from harness.diagnose.many_configs import CorporaScorer, CorpusScorer
from harness.diagnose.validate.bugs import (
    REFUSALS,
    Model,
    Segment,
    score_corpora,
    score_segments,
    segment_statistics,
)
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.subjects import Outcome
from harness.session import Session

__all__ = ["Judge"]


class Judge:
    """Expected scores and agreement, on the implementation's scale.

    ``tolerance``: the absolute difference (plus a relative 1e-9) that still agrees;
    ``factor``: engine score (0–100) → the implementation's scale (0.01 for 0–1);
    ``session``: where the engine's statistics are counted and cached (a validation's one
    session; give it a bounded cache, as shrinking scores many small corpora once each).
    """

    def __init__(self, tolerance: float, session: Session) -> None:
        self.tolerance = tolerance
        self.factor = 1.0
        self.session = session
        self._scorers: dict[tuple[Any, ...], CorpusScorer] = {}
        self._batteries: dict[tuple[Any, ...], CorporaScorer] = {}
        self._bug_stats: dict[tuple[Any, ...], list[Segment]] = {}
        self._across: dict[tuple[Any, ...], list[float | None]] = {}

    def scorer(self, case: Case) -> CorpusScorer:
        """The engine's scorer of ``case`` (cached by content)."""
        key = (case.hypotheses, case.references)
        s = self._scorers.get(key)
        if s is None:
            if len(self._scorers) > 5000:
                self._scorers.clear()
            s = self._scorers[key] = CorpusScorer(case.corpus(), session=self.session)
        return s

    def battery(self, cases: Sequence[Case]) -> CorporaScorer:
        """The engine's scorer of ``cases`` together (cached by content)."""
        key = tuple((c.hypotheses, c.references) for c in cases)
        got = self._batteries.get(key)
        if got is None:
            if len(self._batteries) > 64:
                self._batteries.clear()
            got = self._batteries[key] = CorporaScorer(
                [c.corpus() for c in cases], session=self.session
            )
        return got

    def bug_segments(self, case: Case, cfg: BleuConfig, switches: dict[str, Any]) -> list[Segment]:
        """:func:`~harness.diagnose.validate.bugs.segment_statistics`, cached by content, the
        factors that decide what is counted (text rules, the references kept, sentence split,
        n-gram identity) and the ``switches`` that change the counting."""
        key = (
            case.hypotheses,
            case.references,
            cfg.text_rules,
            cfg.missing_refs,
            cfg.sentence_split,
            cfg.ngram_identity,
            max(5, cfg.max_order),
            tuple(sorted((k, v) for k, v in switches.items() if k != "bp")),
        )
        got = self._bug_stats.get(key)
        if got is None:
            if len(self._bug_stats) > 20000:
                self._bug_stats.clear()
            got = self._bug_stats[key] = segment_statistics(case, cfg, switches)
        return got

    def expected(self, case: Case, model: BleuConfig | Model) -> float | None:
        """The score of ``model`` on ``case`` on the implementation's scale (None: raises)."""
        if isinstance(model, Model) and model.bugs:
            sw = model.switches
            try:
                segs = self.bug_segments(case, model.cfg, sw)
                return score_segments(segs, model.cfg, sw) * self.factor
            except REFUSALS:
                return None
        cfg = model.cfg if isinstance(model, Model) else model
        value = self.scorer(case).try_score(cfg)
        return None if value is None else value * self.factor

    def expected_all(self, cases: Sequence[Case], model: BleuConfig | Model) -> list[float | None]:
        """:meth:`expected` on every case; a configuration's scores in one arithmetic call."""
        if isinstance(model, Model) and model.bugs:
            sw = model.switches
            segs: list[list[Segment]] = []
            for case in cases:
                try:
                    segs.append(self.bug_segments(case, model.cfg, sw))
                except REFUSALS:
                    return [self.expected(case, model) for case in cases]
            return [
                None if v is None else v * self.factor for v in score_corpora(segs, model.cfg, sw)
            ]
        cfg = model.cfg if isinstance(model, Model) else model
        if not cases:
            return []
        # the evidence check and the fit both score every configuration on the same cases
        key = (tuple((c.hypotheses, c.references) for c in cases), cfg)
        values = self._across.get(key)
        if values is None:
            if len(self._across) > 2000:
                self._across.clear()
            values = self._across[key] = self.battery(cases).score_each(cfg)
        return [None if v is None else v * self.factor for v in values]

    def agrees(self, value: float | None, expected: float | None) -> bool:
        """Both give no score, or both a number within the tolerance."""
        if value is None or expected is None:
            return value is None and expected is None
        if math.isnan(value) or math.isnan(expected):
            return False
        return abs(value - expected) <= self.tolerance + 1e-9 * abs(expected)

    def agreement(
        self,
        cases: Sequence[Case],
        outs: Sequence[Outcome],
        model: BleuConfig | Model,
        max_fail: int | None = None,
    ) -> tuple[float, float]:
        """(share of cases agreeing, mean |difference| where both give a number).

        With ``max_fail``, gives up with ``(-1.0, inf)`` as soon as more cases fail.
        """
        fails = 0
        diffs = []
        for out, e in zip(outs, self.expected_all(cases, model), strict=True):
            if not self.agrees(out.value, e):
                fails += 1
                if max_fail is not None and fails > max_fail:
                    return -1.0, math.inf
            if out.value is not None and e is not None and math.isfinite(out.value):
                diffs.append(abs(out.value - e))
        mae = sum(diffs) / len(diffs) if diffs else math.inf
        return 1.0 - fails / len(cases), mae
