"""What happened when a scorer scored a corpus: one :class:`Outcome` type, one way to get it.

:func:`score` is the single path from a scorer (the in-house engine or a real library) to an
outcome. The comparison runner (:mod:`harness.run.runner`) turns outcomes into table rows
and the pitfall experiments (:mod:`harness.pitfalls`) into measurements; both speak the status
vocabulary of :data:`STATUSES`. Nothing is dropped and nothing crashes the run: a library that
cannot run here, cannot express the setting, or raises on the input gives an outcome saying so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import (
    AdapterUnavailable,
    ConfigError,
    HarnessError,
    LayoutError,
    LibraryWouldRaise,
    UnsupportedSetting,
)
from harness.scorers.base import Availability, Scorer

STATUSES: tuple[str, ...] = (
    "ok",
    "raises",
    "refused",
    "unavailable",
    "unsupported",
    "non-finite",
    "error",
)
"""Outcome statuses: a number (``ok``); the library raises on this input (``raises``: observed
from the real library, or predicted by its profile); the harness refused the input or options
on purpose (``refused``: a layout or configuration error); the library cannot run here
(``unavailable``) or cannot express the setting (``unsupported``); a NaN or infinity came back
(``non-finite``); any other harness error (``error``)."""

LEVELS: tuple[str, ...] = ("corpus", "segment")


@dataclass(frozen=True)
class Outcome:
    """The results of one scorer on one corpus at one level, or why there are none.

    ``results``: one corpus-level result, or one result per segment (empty unless ``ok`` or
    ``non-finite``). ``signature``: the variant that was attempted. ``message``: the full
    one-line text (the exception's text, or the reason and the fix). ``reason``: why there is
    no number, short — for ``raises`` the exception's message (the library's own, or the
    profile's explanation). ``fix``: how to make an unavailable library available.
    ``exception``: the exception type (for ``raises``, the library's: ``ZeroDivisionError``).
    ``predicted``: the raise is the profile's prediction (``LibraryWouldRaise``), not observed.
    """

    status: str
    results: tuple[BleuResult, ...] = ()
    signature: str = ""
    message: str = ""
    reason: str = ""
    fix: str = ""
    exception: str = ""
    predicted: bool = False

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}; valid: {', '.join(STATUSES)}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def result(self) -> BleuResult:
        """The (first) result; ``ValueError`` when there is none."""
        if not self.results:
            raise ValueError(f"no result: {self.status}: {self.message}")
        return self.results[0]

    @property
    def detail(self) -> str:
        """The text that goes next to the implementation's name: the reason without the
        implementation repeated (``message`` keeps it)."""
        if self.status == "unsupported":
            return self.reason
        if self.status == "raises" and self.predicted:
            return f"{self.exception} ({self.reason})"
        if self.status in ("refused", "error"):
            return f"{self.exception}: {self.message}"
        return self.message

    # ------------------------------------------------------------------ constructors
    @classmethod
    def scored(cls, results: tuple[BleuResult, ...] | list[BleuResult]) -> Outcome:
        """Results; ``non-finite`` when a score is NaN or infinite."""
        results = tuple(results)
        bad = [r.score for r in results if not math.isfinite(r.score)]
        if bad:
            return cls(
                "non-finite",
                results,
                results[0].signature,
                message=f"{bad[0]!r}",
                reason=f"{bad[0]!r}",
            )
        return cls("ok", results, results[0].signature if results else "")

    @classmethod
    def unavailable(cls, availability: Availability, signature: str = "") -> Outcome:
        """The scorer cannot run here (``availability.ok`` is false)."""
        fix = availability.hint
        return cls(
            "unavailable",
            signature=signature,
            message=availability.reason + (f" (fix: {fix})" if fix else ""),
            reason=availability.reason,
            fix=fix,
            exception=AdapterUnavailable.__name__,
        )

    @classmethod
    def failed(cls, exc: BaseException, signature: str = "") -> Outcome:
        """What an exception means: a harness error by its kind, anything else is the
        library (or home-made code) raising on the input."""
        if isinstance(exc, AdapterUnavailable):
            return cls(
                "unavailable",
                signature=signature,
                message=str(exc),
                reason=exc.reason,
                fix=exc.hint,
                exception=type(exc).__name__,
            )
        if isinstance(exc, UnsupportedSetting):
            return cls(
                "unsupported",
                signature=signature,
                message=str(exc),
                reason=exc.reason,
                exception=type(exc).__name__,
            )
        if isinstance(exc, LibraryWouldRaise):
            return cls(
                "raises",
                signature=signature,
                message=str(exc),
                reason=exc.reason,
                exception=exc.library_exception,
                predicted=True,
            )
        if isinstance(exc, HarnessError):
            status = "refused" if isinstance(exc, LayoutError | ConfigError) else "error"
            return cls(
                status,
                signature=signature,
                message=str(exc),
                reason=str(exc),
                exception=type(exc).__name__,
            )
        return cls(
            "raises",
            signature=signature,
            message=f"{type(exc).__name__}: {exc}",
            reason=str(exc),
            exception=type(exc).__name__,
        )


def score(
    scorer: Scorer,
    corpus: Corpus,
    config: BleuConfig | None = None,
    *,
    level: str = "corpus",
) -> Outcome:
    """Score ``corpus`` with ``scorer`` under ``config`` (default: the scorer's own) at
    ``level`` (``"corpus"`` or ``"segment"``) and say what happened.

    A harness error becomes its status; any other exception from a library adapter becomes
    ``raises`` with the library's exception type and message. From the in-house engine
    (``scorer.runs_library_code`` false) such an exception is a bug and propagates.
    """
    if level not in LEVELS:
        raise ConfigError(f"unknown level {level!r}", valid=LEVELS)
    try:
        cfg = scorer.default_config() if config is None else config
        signature = scorer.signature(cfg)
    except HarnessError as exc:
        return Outcome.failed(exc)
    availability = scorer.available()
    if not availability.ok:
        return Outcome.unavailable(availability, signature)
    try:
        if level == "corpus":
            return Outcome.scored([scorer.corpus(corpus, cfg)])
        return Outcome.scored(scorer.segments(corpus, cfg))
    except HarnessError as exc:
        return Outcome.failed(exc, signature)
    except Exception as exc:
        if not scorer.runs_library_code:
            raise
        return Outcome.failed(exc, signature)
