"""Implementation labels of the runner's rows, and what the lower layers know about them.

A row's ``implementation`` is ``harness:<profile>`` for an in-house profile or the adapter's
name for a real library (:attr:`harness.run.runner.Implementation.label`). The analysis
step (:mod:`harness.analysis.study`) asks these functions which profile a label is or
reproduces, whether it is BLEU-4 and at what tolerance it is proven, and puts the answers into
the report, so that the renderers need nothing from the layers below.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.analysis.answer import is_bleu4
from harness.bleu.profile_spec import SHORT_WIDTH
from harness.bleu.profiles import PROFILES, SHORT_NAMES, VERIFICATION
from harness.run.results import ResultRow, Results, as_results
from harness.scorers import PROFILE_OF, tolerance

__all__ = [
    "SHORT_WIDTH",
    "bleu4_label",
    "corpora_in",
    "kinds_in",
    "label_tolerance",
    "labels_in",
    "library_pair",
    "pair_tolerance",
    "profile_of",
    "short_name",
]


def short_name(name: str) -> str:
    """The head of profile ``name``'s column in a terminal table (its
    :attr:`~harness.bleu.profile_spec.Profile.short`, at most :data:`SHORT_WIDTH`
    characters); a name that is not a profile's, itself."""
    return SHORT_NAMES.get(name, name)


def labels_in(rows: Results | Sequence[ResultRow]) -> list[str]:
    """The implementation labels in ``rows``, in first-seen order."""
    return as_results(rows).labels()


def kinds_in(rows: Results | Sequence[ResultRow]) -> dict[str, str]:
    """Implementation label → its rows' ``kind`` (``profile``, ``adapter``, …; first seen)."""
    out: dict[str, str] = {}
    for label, kind in as_results(rows).distinct("implementation", "kind"):
        out.setdefault(str(label), str(kind or ""))
    return out


def corpora_in(rows: Results | Sequence[ResultRow]) -> dict[str, set[tuple[str, str]]]:
    """Implementation label → the ``(fixture, system)`` corpora it has rows on (fewer than the
    others' for a library run on a sample of the systems)."""
    out: dict[str, set[tuple[str, str]]] = {}
    for label, fixture, system in as_results(rows).distinct("implementation", "fixture", "system"):
        out.setdefault(str(label), set()).add((str(fixture), str(system)))
    return out


def profile_of(label: str) -> str | None:
    """The profile a label is or reproduces (``harness:nltk`` and the ``nltk`` adapter →
    ``nltk``); ``None`` for a library without a profile."""
    if label.startswith("harness:"):
        return label.split(":", 1)[1]
    return PROFILE_OF.get(label)


def bleu4_label(label: str) -> bool:
    """Whether an implementation label is BLEU-4 (orders 1–4 weighted alike): an in-house
    profile or a library adapter by the profile it reproduces; unknown ones count as BLEU-4."""
    name = profile_of(label)
    return name is None or name not in PROFILES or is_bleu4(PROFILES[name])


def library_pair(first: str, second: str) -> bool:
    """Whether the pair ``(first, second)`` is a real library (``second``) against its own
    in-house profile (``first``)."""
    return first == f"harness:{PROFILE_OF.get(second, '')}"


def label_tolerance(label: str, floor: float = 1e-9) -> float:
    """The tolerance (BLEU points) at which ``label`` is proven against its real
    implementation: the tolerance of the profile a library adapter reproduces
    (:func:`harness.scorers.tolerance`), :data:`harness.bleu.profiles.VERIFICATION`
    ``[name].tolerance`` for an in-house profile ``harness:name`` (torchmetrics
    computes in float32: 1e-4), else ``floor``; never below ``floor``."""
    if label in PROFILE_OF:  # a library adapter: the tolerance of the profile it reproduces
        return max(floor, tolerance(label))
    name = label.split(":", 1)[1] if label.startswith("harness:") else label
    proof = VERIFICATION.get(name)
    return max(floor, proof.tolerance) if proof is not None else floor


def pair_tolerance(first: str, second: str, floor: float = 1e-9) -> float:
    """A pair is judged at the tolerance of its less precise side (:func:`label_tolerance`)."""
    return max(label_tolerance(first, floor), label_tolerance(second, floor))
