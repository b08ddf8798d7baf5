"""The harness's exception and warning tree.

Every error the harness raises on purpose is a :class:`HarnessError`; the subclasses say *what
kind* of problem it is and carry the data needed to act on it (file, line, expected, got), so
that a notebook can catch one family and a CLI can print a one-line message naming the culprit.

``HarnessError``
    ``InputError``          – unreadable or malformed input (file, line, encoding, type).
    ``LayoutError``         – references or hypotheses laid out wrongly (counts, shape, ragged).
    ``ConfigError``         – an unknown profile, override or value (lists the valid ones).
    ``UnsupportedSetting``  – an implementation cannot express a configuration (and why).
    ``AdapterUnavailable``  – a peer library cannot be used here (reason and install hint).
    ``LibraryWouldRaise``   – the profiled library raises on this input; the profile refuses to
                              invent a number and names the exception the library raises.

``SuspectInput`` is a warning for input that is legal but probably a mistake.
"""

from __future__ import annotations

from typing import Any


def _rebuild(cls: type[HarnessError], args: tuple[Any, ...], state: dict[str, Any]) -> HarnessError:
    exc: HarnessError = Exception.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class HarnessError(Exception):
    """Base class of every error the harness raises deliberately."""

    def __reduce__(self) -> tuple[Any, ...]:
        # The subclasses take keyword-only data; pickle the finished exception (message and
        # attributes) so it survives a trip back from a worker process or a Dask worker.
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


class InputError(HarnessError, ValueError):
    """Input that cannot be read or is malformed; names the file and 1-based line if known."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.line = line
        where = ""
        if file is not None:
            where = f"{file}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)


class LayoutError(HarnessError, ValueError):
    """A reference/hypothesis layout whose shape is wrong.

    ``what`` names the file, stream or argument; ``expected`` and ``got`` are the counts (or
    shapes) that disagree. They follow the message in brackets unless ``said`` (the message
    names both sides itself, as for two files whose line counts differ, where neither file is
    known to be the wrong one).
    """

    def __init__(
        self,
        message: str,
        *,
        what: str | None = None,
        expected: Any = None,
        got: Any = None,
        said: bool = False,
    ) -> None:
        self.what = what
        self.expected = expected
        self.got = got
        parts = [message]
        if said:  # the message names both sides itself
            pass
        elif what is not None:
            parts.append(f"[{what}]")
        if not said and (expected is not None or got is not None):
            parts.append(f"(expected {expected}, got {got})")
        super().__init__(" ".join(parts))


class ConfigError(HarnessError, ValueError):
    """An unknown profile, option or value; ``valid`` lists what would have been accepted."""

    def __init__(self, message: str, *, valid: Any = None) -> None:
        self.valid = valid
        if valid is not None:
            message = f"{message}; valid: {', '.join(map(str, valid))}"
        super().__init__(message)


class UnsupportedSetting(HarnessError):
    """An implementation cannot express this configuration; ``reason`` says why."""

    def __init__(self, implementation: str, reason: str) -> None:
        self.implementation = implementation
        self.reason = reason
        super().__init__(f"{implementation}: unsupported setting: {reason}")


class AdapterUnavailable(HarnessError):
    """A peer library cannot be used here, with the ``reason`` and the ``hint`` to fix it."""

    def __init__(self, implementation: str, reason: str, hint: str = "") -> None:
        self.implementation = implementation
        self.reason = reason
        self.hint = hint
        msg = f"{implementation} is unavailable: {reason}"
        if hint:
            msg += f" (fix: {hint})"
        super().__init__(msg)


class LibraryWouldRaise(HarnessError):
    """The library a profile reproduces raises on this input.

    Rather than invent a number, the profile raises this, naming the library and the exception
    type it raises (``library_exception``, e.g. ``"ZeroDivisionError"``).
    """

    def __init__(self, library: str, library_exception: str, reason: str) -> None:
        self.library = library
        self.library_exception = library_exception
        self.reason = reason
        super().__init__(f"{library} raises {library_exception} here: {reason}")


class SuspectInput(UserWarning):
    """Legal input that is probably a mistake (e.g. a reference identical to the hypothesis
    stream, or ``''`` used as padding)."""
