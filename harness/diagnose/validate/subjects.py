"""The implementation under test (a *subject*) and one call of it.

A subject is a Python callable ``f(hypotheses, references)`` with per-segment references, a
``"module:function"`` string naming one, or a shell command run through
:class:`~harness.scorers.command.CommandAdapter`. :func:`run` calls it on one
:class:`~harness.diagnose.validate.cases.Case` and turns whatever happens into an
:class:`Outcome`: a finite score in [0, 100] with the decimals it was printed with, or no
score and why (an exception, a non-zero exit, a timeout, something that is not a number).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.diagnose.validate.cases import Case
from harness.errors import AdapterUnavailable, ConfigError
from harness.scorers.command import (
    CommandAdapter,
    CommandError,
    CommandOptions,
    CommandTimeout,
    _decimals,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_CONSECUTIVE_TIMEOUTS",
    "Impl",
    "NoScore",
    "Outcome",
    "Subject",
    "run",
]

#: ``impl(hypotheses, references)``: a number, or an object with a ``score``.
Impl = Callable[[list[str], list[list[str]]], Any]

#: Seconds a command may take per call (``--timeout``).
DEFAULT_TIMEOUT = 30.0

#: After this many timeouts in a row the command is not called again in the run: every later
#: call is a "no score" (bounds the run time of a subject that hangs on most inputs).
MAX_CONSECUTIVE_TIMEOUTS = 3


class NoScore(Exception):
    """The implementation returned something that is not a BLEU score (None, a string, NaN,
    ±inf, a negative number or one above 100)."""


class Subject:
    """The implementation under test, called uniformly; records nothing itself but its calls.

    ``rectangular``: cases must give every segment the same number of references (a command
    reads them from line-aligned files); ``streams``: the number of reference files the
    command template names, when it names a fixed number.
    """

    def __init__(
        self, impl: Impl | str | None, cmd: str | None, timeout: float | None = None
    ) -> None:
        if (impl is None) == (cmd is None):
            raise ConfigError("pass exactly one of impl (callable or 'module:function') or cmd=")
        if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.rectangular = cmd is not None
        self.streams: int | None = None  # the reference streams a command template names
        self.adapter: CommandAdapter | None = None
        self.fn: Impl | None = None
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self.timeouts_in_a_row = 0
        if cmd is not None:
            # scale="0-100" keeps the printed number as it is: the validator detects the scale
            self.adapter = CommandAdapter(
                cmd,
                name="validated-command",
                options=CommandOptions(scale="0-100", timeout=self.timeout),
            )
            availability = self.adapter.available()
            if not availability.ok:  # a usage error, not 300 cases without a score
                raise AdapterUnavailable(cmd, availability.reason, availability.hint)
            self.streams = self.adapter.streams_accepted
            self.name = cmd
        elif isinstance(impl, str):
            self.fn = import_impl(impl)
            self.name = impl
        elif callable(impl):
            self.fn = impl
            mod = getattr(impl, "__module__", "") or ""
            # a callable object has no __qualname__ of its own: its class names it
            qualname = getattr(impl, "__qualname__", None) or type(impl).__qualname__
            self.name = f"{mod}:{qualname}".lstrip(":")
        else:
            raise ConfigError(f"impl must be callable or 'module:function', got {impl!r}")
        self.calls = 0

    def __call__(self, case: Case) -> tuple[float, int]:
        """The score on ``case`` and the number of decimals it was given with."""
        if self.adapter is not None:
            if self.timeouts_in_a_row >= MAX_CONSECUTIVE_TIMEOUTS:
                raise CommandError(
                    f"not run: the previous {self.timeouts_in_a_row} calls timed out",
                    command=self.name,
                )
            self.calls += 1
            try:
                res = self.adapter.corpus(case.corpus())
            except CommandTimeout:
                self.timeouts_in_a_row += 1
                raise
            self.timeouts_in_a_row = 0
            value = float(res.score)
            decimals = res.extra.get("decimals")
            decimals = _decimals(repr(value)) if decimals is None else int(decimals)
        else:
            assert self.fn is not None
            self.calls += 1
            out = self.fn(list(case.hypotheses), [list(r) for r in case.references])
            out = getattr(out, "score", out)
            if isinstance(out, bool) or not isinstance(out, int | float | np.number):
                raise NoScore(f"returned {type(out).__name__} {out!r:.60}, not a number")
            value = float(out)
            decimals = _decimals(repr(value))
        if not math.isfinite(value):
            raise NoScore(f"returned {value}")
        if not -1e-9 <= value <= 100.0 + 1e-7:  # float slack: 100.00000000000001 is 100
            raise NoScore(f"returned {value!r}, outside [0, 100]: not a BLEU score")
        return value, decimals


def _import_module(module: str, spec: str) -> Any:
    """Import the user's module, with the current directory first on ``sys.path`` (restored
    afterwards); whatever its import does wrong becomes a ConfigError naming it (user code:
    any exception, and ``sys.exit``, are its failures, not the harness's)."""
    saved = list(sys.path)
    sys.path.insert(0, os.getcwd())  # as `python -m` does: ./mymodule.py is importable
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module == exc.name or module.startswith(exc.name + ".")):
            raise ConfigError(
                f"{spec}: cannot import module {module!r}: no module named {exc.name!r} "
                f"(looked in the current directory {os.getcwd()} and on sys.path)"
            ) from None
        raise ConfigError(
            f"{spec}: importing module {module!r} failed: {exc} (a module it imports is missing)"
        ) from None
    except SystemExit as exc:
        raise ConfigError(
            f"{spec}: importing module {module!r} called sys.exit({exc.code!r}); "
            "move script code under `if __name__ == '__main__':`"
        ) from None
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (at {tb[0].filename}, line {tb[0].lineno})" if tb else ""
        raise ConfigError(
            f"{spec}: importing module {module!r} raised {type(exc).__name__}: {exc}{where}"
        ) from None
    finally:
        sys.path[:] = saved


def import_impl(spec: str) -> Impl:
    """The callable named by ``'module:function'`` (``function`` may be dotted).

    Raises ``ConfigError`` naming the module or attribute when it cannot be found; an error
    raised while the module itself is imported is reported with its type and message.
    """
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"expected 'module:function', got {spec!r}")
    obj: Any = _import_module(module, spec)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{spec}: module {module!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise ConfigError(f"{spec} is not callable")
    return obj


@dataclass
class Outcome:
    """One call: a finite score (``value``, printed with ``decimals`` decimals) or no score,
    with ``error`` saying why and ``exc_type`` naming the exception."""

    value: float | None
    error: str | None
    exc_type: str | None
    decimals: int | None = None

    @property
    def verdict(self) -> str:
        """``"scored"`` or ``"no score: <why>"``."""
        return "scored" if self.value is not None else f"no score: {self.error}"


def run(subject: Subject, case: Case) -> Outcome:
    """Call ``subject`` on ``case``; whatever it raises becomes an :class:`Outcome` without a
    score (the exception's type and message, where it was raised, a command's stderr)."""
    try:
        value, decimals = subject(case)
        return Outcome(value, None, None, decimals)
    except CommandError as exc:
        # the first line, then the command's stderr; the temporary paths say nothing
        text = str(exc).split("\n", 1)[0]
        if exc.stderr.strip():
            text += f"; stderr: {exc.stderr.strip()[-300:]}"
        return Outcome(None, text, type(exc).__name__)
    except Exception as exc:  # the point is to catch whatever the implementation raises
        text = f"{type(exc).__name__}: {exc}".strip()
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        if last and not isinstance(exc, NoScore):
            text += f" (at {last[0].name}, line {last[0].lineno})"
        return Outcome(None, text, type(exc).__name__)
