"""What a report is asked to compute: :class:`ReportOptions`, given to
:func:`harness.analysis.study.analyse` and :func:`harness.analysis.study.study`.

The options are one frozen value with every default defined here; the inputs a report is
given already computed (human judgments, a significance result, a meta-evaluation) and the
progress callback stay keyword arguments of :func:`~harness.analysis.study.analyse`.

>>> options = ReportOptions(include=("pairs",), gap_resamples=200)
>>> options.seed == ReportOptions().seed, options.include
(True, ('pairs',))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from harness.analysis.gap_matters import GAP_RESAMPLES
from harness.statistics.resampling import DEFAULT_SEED

__all__ = ["DEFAULT_INCLUDE", "Precomputed", "ReportOptions", "ResultDataclass"]

#: The sections :func:`~harness.analysis.study.analyse` computes by default.
DEFAULT_INCLUDE: tuple[str, ...] = (
    "pairs",
    "correlations",
    "attributions",
    "human",
    "significance",
)


class ResultDataclass(Protocol):
    """A result of the harness: a dataclass, which :func:`harness.typed_json.to_json` writes."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


#: A result computed before the report and stored in it as given: a result dataclass, a JSON
#: object, or a list of either (e.g. one significance result per pair).
Precomputed = ResultDataclass | Mapping[str, object] | Sequence[object]


@dataclass(frozen=True)
class ReportOptions:
    """What :func:`~harness.analysis.study.analyse` computes, and how.

    ``include``: the computed sections (of :data:`DEFAULT_INCLUDE`; left-out ones are empty).
    ``seed``: every random draw of the report (bootstraps, gap resamples, significance).
    ``pairs``: the ``(a, b)`` implementations judged (row labels or ``profile:``/``adapter:``
    specs; ``None``: :func:`~harness.analysis.study_pairs.default_pairs`), each at least at
    ``tolerance``; ``top``: the segments :func:`~harness.analysis.difference.difference`
    lists per pair. ``n_boot``: the correlations' bootstrap resamples (0: no intervals).
    ``attribution_pairs``: profile pairs attributed (``None``: the defaults of
    :func:`~harness.analysis.study.analyse`) on at most ``max_attribution_corpora`` corpora.
    ``significance_pair``: ``(baseline system, system)`` of the computed significance
    (``None``: every system against the best). ``baseline``: the profile the answer measures
    every gap from. ``limit``: every corpus was cut to its first ``limit`` segments (recorded
    in the signature). ``gap_resamples`` and ``gap_confidence``: the paired bootstrap of
    whether each pair's gap matters.
    """

    include: tuple[str, ...] = DEFAULT_INCLUDE
    seed: int = DEFAULT_SEED
    pairs: tuple[tuple[str, str], ...] | None = None
    tolerance: float = 1e-9
    top: int = 5
    n_boot: int = 0
    attribution_pairs: tuple[tuple[str, str], ...] | None = None
    max_attribution_corpora: int = 4
    significance_pair: tuple[str, str] | None = None
    baseline: str = "sacrebleu"
    limit: int | None = None
    gap_resamples: int = GAP_RESAMPLES
    gap_confidence: float = 0.95

    def __post_init__(self) -> None:
        # sequences given as lists are kept as tuples: the options stay frozen and hashable
        object.__setattr__(self, "include", tuple(self.include))
        for name in ("pairs", "attribution_pairs"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple((a, b) for a, b in value))
        if self.significance_pair is not None:
            a, b = self.significance_pair
            object.__setattr__(self, "significance_pair", (a, b))
