"""The pitfall framework's values: measurements, their table, verdicts and the experiment spec.

A :class:`Measurement` is one number (or the reason there is none) from one implementation on
one case, in the status vocabulary every scorer outcome uses (:data:`harness.scorers.STATUSES`);
a :class:`Table` holds an experiment's measurements; a :class:`Verdict` is computed from it; an
:class:`Experiment` is the declarative spec and :class:`ExperimentResult` what running it gave.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness.bleu.result import BleuResult
from harness.scorers import STATUSES, Outcome


@dataclass(frozen=True)
class Measurement:
    """One number (or the reason there is none) from one implementation on one case.

    ``implementation`` names who computed it: a real library by its adapter name
    (``"sacrebleu"``), an in-house profile as ``"harness:<profile>"`` (``"harness:<profile>+…"``
    with overrides), a home-made re-derivation as ``"homemade:<function>"``, or a harness API
    call. ``case`` names what was scored (a system, an ordering, a layout, a config).
    ``score`` is on 0–100, ``None`` unless ``status == "ok"`` (the statuses are those of
    :data:`harness.scorers.STATUSES`); ``detail`` holds the error text or a note; ``extra``
    holds JSON-ready statistics (counts, totals, bp, lengths).
    """

    implementation: str
    case: str
    score: float | None
    status: str = "ok"
    detail: str = ""
    signature: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, implementation: str, case: str, outcome: Outcome) -> Measurement:
        """The measurement of an :class:`~harness.scorers.Outcome`: its (first) result's
        score and statistics, or its status and the reason."""
        if outcome.results:
            r = outcome.result
            return cls(implementation, case, r.score, "ok", "", r.signature, stats_extra(r))
        return cls(implementation, case, None, outcome.status, outcome.detail, outcome.signature)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.score is not None and not math.isfinite(self.score):
            object.__setattr__(self, "detail", f"{self.score!r} {self.detail}".strip())
            object.__setattr__(self, "score", None)
            object.__setattr__(self, "status", "non-finite")
        if self.status == "ok" and self.score is None:
            raise ValueError("an ok measurement needs a score")
        object.__setattr__(self, "extra", _jsonable(dict(self.extra)))

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _jsonable(value: Any) -> Any:
    """Plain JSON values: tuples → lists, numpy scalars → Python, NaN/inf → ``None``."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        return f if math.isfinite(f) else None
    return str(value)


class Table:
    """The measurements of one experiment run, plus ``notes`` (JSON-ready facts the verdict
    uses that are not scores, e.g. which data set was used or how many hypotheses sacrebleu
    scored)."""

    def __init__(self) -> None:
        self.rows: list[Measurement] = []
        self.notes: dict[str, Any] = {}

    def add(self, measurement: Measurement) -> Measurement:
        self.rows.append(measurement)
        return measurement

    def extend(self, measurements: Iterable[Measurement]) -> None:
        self.rows.extend(measurements)

    def get(self, implementation: str, case: str) -> Measurement:
        """The measurement of ``implementation`` on ``case`` (``KeyError`` if absent)."""
        for m in self.rows:
            if m.implementation == implementation and m.case == case:
                return m
        raise KeyError((implementation, case))

    def find(self, implementation: str, case: str) -> Measurement | None:
        try:
            return self.get(implementation, case)
        except KeyError:
            return None

    def score(self, implementation: str, case: str) -> float | None:
        m = self.find(implementation, case)
        return m.score if m is not None and m.ok else None

    def implementations(self) -> list[str]:
        return list(dict.fromkeys(m.implementation for m in self.rows))

    def cases(self, implementation: str | None = None) -> list[str]:
        return list(
            dict.fromkeys(
                m.case
                for m in self.rows
                if implementation is None or m.implementation == implementation
            )
        )

    def numbers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """``{implementation: {case: {"score", "status", ["detail"], ["extra"]}}}``."""
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for m in self.rows:
            entry: dict[str, Any] = {"score": m.score, "status": m.status}
            if m.detail:
                entry["detail"] = m.detail
            if m.extra:
                entry["extra"] = dict(m.extra)
            out.setdefault(m.implementation, {})[m.case] = entry
        return out

    def signatures(self) -> dict[str, list[str]]:
        """Implementation → the distinct signatures of its measurements (in order)."""
        out: dict[str, list[str]] = {}
        for m in self.rows:
            if m.signature and m.signature not in out.setdefault(m.implementation, []):
                out[m.implementation].append(m.signature)
        return {k: v for k, v in out.items() if v}


def stats_extra(result: BleuResult) -> dict[str, Any]:
    """The statistics a measurement keeps of a result: lengths, BP, counts and totals (when the
    library exposes them)."""
    extra: dict[str, Any] = {
        "hyp_len": result.hyp_len,
        "ref_len": result.ref_len,
        "bp": result.bp if math.isfinite(result.bp) else None,
    }
    if result.counts is not None:
        extra["counts"] = list(result.counts)
    if result.totals is not None:
        extra["totals"] = list(result.totals)
    return extra


@dataclass(frozen=True)
class Verdict:
    """``status`` is ``"reproduced"``, ``"not reproduced"`` or ``"reproduced only under"``
    (then ``under`` names the implementations or conditions); ``reason`` is one line saying
    why, computed from the numbers."""

    status: str
    reason: str
    under: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        valid = ("reproduced", "not reproduced", "reproduced only under", "error")
        if self.status not in valid:
            raise ValueError(f"unknown verdict {self.status!r}; valid: {', '.join(valid)}")
        if self.status == "reproduced only under" and not self.under:
            raise ValueError("'reproduced only under' needs the implementations it holds for")

    @property
    def text(self) -> str:
        if self.status == "reproduced only under":
            return f"reproduced only under: {', '.join(self.under)}"
        return self.status

    def __str__(self) -> str:
        return self.text

    @classmethod
    def split(cls, holds: Sequence[str], fails: Sequence[str], reason: str) -> Verdict:
        """``reproduced`` when nothing fails, ``not reproduced`` when nothing holds, else
        ``reproduced only under: <holds>``."""
        if holds and not fails:
            return cls("reproduced", reason)
        if not holds:
            return cls("not reproduced", reason)
        return cls("reproduced only under", reason, tuple(holds))


@dataclass(frozen=True)
class Experiment:
    """A pitfall as a spec: the claim, where it comes from, what it runs, how it is judged.

    ``fixtures`` are shipped fixture names (or data sets); ``implementations`` the real
    adapters, profiles and home-made functions it measures; ``configs`` short descriptions of
    the settings varied. ``run()`` returns the :class:`Table`; ``verdict(table)`` the
    :class:`Verdict`.
    """

    name: str
    claim: str
    source: str
    fixtures: tuple[str, ...]
    implementations: tuple[str, ...]
    configs: tuple[str, ...]
    run: Callable[[], Table]
    verdict: Callable[[Table], Verdict]


@dataclass(frozen=True)
class ExperimentResult:
    """An experiment's table and computed verdict (``error`` set when the run crashed).

    Its JSON: the spec's name, claim and source, the verdict (its text, status, ``under`` and
    reason), the table's numbers (per implementation and case: score and status), signatures
    and notes, the spec's fixtures/implementations/configs, the scale, the seconds (to the
    millisecond) and the error."""

    experiment: Experiment = field(metadata={"json": False})
    table: Table = field(metadata={"json": False})
    verdict: Verdict = field(metadata={"json": False})
    seconds: float = field(metadata={"json": False})
    error: str | None = None

    JSON_PROPERTIES: ClassVar[tuple[str | tuple[str, str], ...]] = (
        "name",
        "claim",
        "source",
        ("verdict", "verdict_text"),
        "verdict_status",
        "under",
        "reason",
        "numbers",
        "signatures",
        "notes",
        "fixtures",
        "implementations",
        "configs",
        "scale",
        ("seconds", "rounded_seconds"),
    )
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        *(k if isinstance(k, str) else k[0] for k in JSON_PROPERTIES),
        "error",
    )

    @property
    def name(self) -> str:
        return self.experiment.name

    @property
    def claim(self) -> str:
        return self.experiment.claim

    @property
    def source(self) -> str:
        return self.experiment.source

    @property
    def verdict_text(self) -> str:
        return self.verdict.text

    @property
    def verdict_status(self) -> str:
        return self.verdict.status

    @property
    def under(self) -> tuple[str, ...]:
        return self.verdict.under

    @property
    def reason(self) -> str:
        return self.verdict.reason

    @property
    def numbers(self) -> dict[str, dict[str, dict[str, Any]]]:
        return self.table.numbers()

    @property
    def signatures(self) -> dict[str, list[str]]:
        return self.table.signatures()

    @property
    def notes(self) -> Any:
        """The table's notes as plain JSON values."""
        return _jsonable(self.table.notes)

    @property
    def fixtures(self) -> tuple[str, ...]:
        return self.experiment.fixtures

    @property
    def implementations(self) -> tuple[str, ...]:
        return self.experiment.implementations

    @property
    def configs(self) -> tuple[str, ...]:
        return self.experiment.configs

    @property
    def scale(self) -> str:
        """The scale of every score: ``"0-100"``."""
        return "0-100"

    @property
    def rounded_seconds(self) -> float:
        return round(self.seconds, 3)
