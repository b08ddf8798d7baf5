"""Explaining: why the implementation disagrees with the best profile on a case, and crashes.

:class:`Classifier` names the factor or bug behind one disagreement (a single-factor variant,
a modelled mistake, the fit, another configuration, or a failing probe the case exercises).
:func:`find_deviations` explains the first disagreeing cases, each shrunk to a minimal input
with the same explanation; :func:`find_crashes` keeps one shrunk example per kind of failure.
How a case was explained is a :class:`~harness.diagnose.validate.results.HowFound`; its words
are :func:`harness.report.validation_words.how_found_words`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.attribution import FACTORS, differing_factors
from harness.bleu.config import BleuConfig
from harness.diagnose.candidates import closest_profile
from harness.diagnose.validate.bugs import BUG_MODELS, Model
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.probes import PROBE_PRIORITY, features
from harness.diagnose.validate.results import Crash, Deviation, FoundBy, HowFound, MistakesOn
from harness.diagnose.validate.shrink import shrink
from harness.diagnose.validate.subjects import Outcome, Subject, run
from harness.diagnose.validate.variants import single_factor_variants

__all__ = ["Classifier", "Explanation", "find_crashes", "find_deviations"]


@dataclass
class Explanation:
    """Why a case disagrees: the main ``factor``, every factor or bug class involved, the
    configuration or mistakes that reproduce it (``matched_by``, ``model``; ``None`` when a
    probe points to it) and ``how`` it was found."""

    factor: str
    factors: tuple[str, ...]
    matched_by: str | None
    how: HowFound
    model: BleuConfig | Model | None  # what reproduces the case (None: a probe)


class Classifier:
    """Explains disagreements with the best profile, given the fit and the failing probes."""

    def __init__(
        self,
        judge: Judge,
        best_name: str,
        best: BleuConfig,
        fit: Model,
        pool: Sequence[tuple[str, BleuConfig, str | None]],
        failing_probes: set[str],
    ) -> None:
        self.judge = judge
        self.best_name = best_name
        self.best = best
        self.fit = fit
        self.variants = single_factor_variants(best, best_name)
        self.fit_factors = differing_factors(best, fit.cfg)
        self.others = [(n, c) for n, c, _ in pool if c != best]
        self.failing_probes = failing_probes
        # modelled mistakes: the fit's own mistakes one at a time, then all of them, then
        # every mistake and pair of mistakes on the best profile and on the fitted configuration
        on_best, on_fit = MistakesOn.BEST_PROFILE, MistakesOn.FITTED
        tries: list[tuple[MistakesOn, Model]] = []
        if fit.bugs:
            tries += [(on_best, Model(best, (b,))) for b in fit.bugs]
            if fit.cfg != best:
                tries += [(on_fit, Model(fit.cfg, (b,))) for b in fit.bugs]
            tries.append((on_best, Model(best, fit.bugs)))
            tries.append((on_fit, fit))
        bases = [(on_best, Model(best))]
        if fit.cfg != best:
            bases.append((on_fit, Model(fit.cfg)))
        names = list(BUG_MODELS)
        for label, base in bases:
            for b in names:
                m = base.with_bug(b)
                if m is not None:
                    tries.append((label, m))
        for label, base in bases:
            for i, b1 in enumerate(names):
                for b2 in names[i + 1 :]:
                    m1 = base.with_bug(b1)
                    m = m1.with_bug(b2) if m1 is not None else None
                    if m is not None:
                        tries.append((label, m))
        seen: set[tuple[Any, ...]] = set()
        self.bug_tries = []
        for label, m in tries:
            key = (m.cfg, tuple(sorted(m.bugs)))
            if key not in seen:
                seen.add(key)
                self.bug_tries.append((label, m))

    def explain(self, case: Case, value: float) -> Explanation:
        """Why ``value`` (the implementation's score on ``case``) differs from the best profile.

        In order: (1) a single-factor variant of the best profile in a factor the fit changed
        (a systematic difference); (2) modelled mistakes on the best profile or the fit;
        (3) the fit itself; (4) any other configuration, nearest to the best profile first
        (a difference that shows on this input only); (5) a failing probe whose behaviour the
        input exercises.
        """
        judge = self.judge
        hits = [
            (f, n, c) for f, n, c in self.variants if judge.agrees(value, judge.expected(case, c))
        ]
        systematic = [h for h in hits if h[0] in self.fit_factors]
        if systematic:
            return self._config_hit(systematic, hits)
        for label, m in self.bug_tries:
            if judge.agrees(value, judge.expected(case, m)):
                classes = tuple(dict.fromkeys(m.classes))
                where, extra = self.blame(m.cfg)
                how = HowFound(
                    FoundBy.MISTAKES,
                    name=None if where == self.best_name else where,
                    on=label,
                    mistakes=m.bugs,
                )
                return Explanation(classes[0], classes + extra, "+".join(m.bugs), how, m)
        if judge.agrees(value, judge.expected(case, self.fit)) and self.fit.cfg != self.best:
            facs = tuple(
                f for f in differing_factors(self.best, self.fit.cfg) if f != "zero_length"
            )
            return Explanation(facs[0], facs, "fit", HowFound(FoundBy.FIT), self.fit)
        if hits:
            return self._config_hit(hits, hits)
        near = [
            (len(differing_factors(self.best, c)), n, c)
            for n, c in self.others
            if judge.agrees(value, judge.expected(case, c))
        ]
        if near:
            near.sort(key=lambda x: x[0])
            _, name, cfg = near[0]
            facs = tuple(differing_factors(self.best, cfg))
            how = HowFound(
                FoundBy.OTHER_CONFIGURATION, name=name, factors=facs, best_profile=self.best_name
            )
            return Explanation("+".join(facs), facs, name, how, cfg)
        feats = features(case, self.fit.cfg)
        for behaviour in PROBE_PRIORITY:
            if behaviour in self.failing_probes and behaviour in feats:
                how = HowFound(FoundBy.PROBE, name=behaviour)
                return Explanation(behaviour, (behaviour,), None, how, None)
        return Explanation("unexplained", (), None, HowFound(FoundBy.NOTHING), None)

    def blame(self, cfg: BleuConfig) -> tuple[str, tuple[str, ...]]:
        """The named profile a configuration is blamed against and the factors that differ
        from it: the best profile, unless another named profile differs in fewer factors
        (then that one: a mistake made on top of ``lm-eval``'s arithmetic is not also blamed
        on the factors ``lm-eval`` differs from ``sacrebleu`` in)."""
        own = tuple(f for f in differing_factors(self.best, cfg) if f != "zero_length")
        if not own:
            return self.best_name, own
        near, diffs = closest_profile(cfg)
        return (near, diffs) if len(diffs) < len(own) else (self.best_name, own)

    def _config_hit(
        self,
        chosen: list[tuple[str, str, BleuConfig]],
        hits: list[tuple[str, str, BleuConfig]],
    ) -> Explanation:
        order = list(FACTORS)
        chosen = sorted(chosen, key=lambda h: order.index(h[0]))
        factor, name, cfg = chosen[0]
        factors = tuple(dict.fromkeys(h[0] for h in chosen))
        others = sorted({h[0] for h in hits} - set(factors), key=order.index)
        how = HowFound(FoundBy.VARIANT, name=name, factors=factors[1:], also=tuple(others))
        return Explanation(factor, factors, name, how, cfg)


def find_deviations(
    subject: Subject,
    classifier: Classifier,
    cases: Sequence[Case],
    outs: Sequence[Outcome],
    max_deviations: int,
    shrink_budget: int,
    per_factor: int = 2,
    max_examined: int = 40,
) -> list[Deviation]:
    """The first cases where ``subject`` disagrees with the classifier's best profile
    (judged by its judge), each shrunk while the same disagreement keeps the same
    explanation, then explained; at most ``per_factor`` per factor (to show variety),
    ``max_deviations`` in all, after ``max_examined`` cases."""
    judge, best = classifier.judge, classifier.best
    found: list[Deviation] = []
    per: Counter[str] = Counter()
    examined = 0
    for case, out in zip(cases, outs, strict=True):
        if len(found) >= max_deviations or examined >= max_examined:
            break
        if out.value is None:
            continue
        exp = judge.expected(case, best)
        if judge.agrees(out.value, exp):
            continue
        examined += 1
        first = classifier.explain(case, out.value)
        if per[first.factor] >= per_factor:
            continue

        def keep(c: Case, first: Explanation = first, raises: bool = exp is None) -> bool:
            # the same disagreement, with the same explanation
            got = run(subject, c)
            if got.value is None:
                return False
            e = judge.expected(c, best)
            if judge.agrees(got.value, e) or (e is None) != raises:
                return False
            if first.model is not None:
                return judge.agrees(got.value, judge.expected(c, first.model))
            return classifier.explain(c, got.value).factor == first.factor

        small = shrink(case, keep, budget=shrink_budget, by_stream=subject.rectangular)
        got = run(subject, small)
        if got.value is None:
            small, value = case, out.value
        else:
            value = got.value
        if any(
            d.hypotheses == small.hypotheses and d.references == small.references for d in found
        ):
            continue
        why = classifier.explain(small, value)
        if per[why.factor] >= per_factor:
            continue
        per[why.factor] += 1
        found.append(
            Deviation(
                source=case.source,
                hypotheses=small.hypotheses,
                references=small.references,
                score=value,
                expected=judge.expected(small, best),
                factor=why.factor,
                factors=why.factors,
                matched_by=why.matched_by,
                how=why.how,
                original={"segments": len(case.hypotheses), "tokens": case.n_tokens},
            )
        )
    return found


def find_crashes(
    subject: Subject,
    cases: Sequence[Case],
    outs: Sequence[Outcome],
    shrink_budget: int,
    shrink_them: bool = True,
) -> list[Crash]:
    """One example per kind of failure, shrunk while it fails the same way
    (``shrink_them=False``, or a timeout: the smallest case as it is)."""
    by_type: dict[str, list[tuple[Case, Outcome]]] = {}
    for case, out in zip(cases, outs, strict=True):
        if out.value is None:
            by_type.setdefault(out.exc_type or "", []).append((case, out))
    crashes = []
    for exc_type, items in by_type.items():
        case, out = min(items, key=lambda x: (len(x[0].hypotheses), x[0].n_tokens))

        def keep(c: Case, exc_type: str = exc_type) -> bool:
            return run(subject, c).exc_type == exc_type

        small, error = case, out.error
        if shrink_them and exc_type != "CommandTimeout":
            small = shrink(case, keep, budget=shrink_budget, by_stream=subject.rectangular)
            error = run(subject, small).error or error
        crashes.append(
            Crash(
                source=case.source,
                hypotheses=small.hypotheses,
                references=small.references,
                error=error or exc_type,
                count=len(items),
            )
        )
    return crashes
