"""The ``bleu-harness`` program: the command registry (one subcommand per entry, in the order
``--help`` lists them), the parser, and :func:`main` — exit codes, interruption and error
reporting.

:data:`COMMANDS` names each subcommand's module without importing it: ``bleu-harness --help``
lists every command from the registry alone, and a run imports only the chosen command's module
(``score`` never loads scipy or the analysis layer)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, TypeAlias

from harness import interrupts
from harness.errors import HarnessError

#: The first line of ``bleu-harness --help``.
DESCRIPTION = "``bleu-harness``: the command line."


class Command(NamedTuple):
    """A registry entry: the one-line help ``--help`` lists (the same line the module's
    add-function gives its parser), and where the add-function lives."""

    help: str
    module: str
    add: str


#: Subcommand name → where its parser is built, in the order ``--help`` lists them.
COMMANDS: dict[str, Command] = {
    "score": Command(
        "score one hypothesis file against reference files", "harness.cli.score", "add_score"
    ),
    "compare": Command(
        "your files (or the fixtures) × every implementation: scores, gaps and why",
        "harness.cli.compare",
        "add_compare",
    ),
    "explain": Command(
        "attribute the gap between two profiles to factors", "harness.cli.analysis", "add_explain"
    ),
    "significance": Command(
        "paired bootstrap / approximate randomisation", "harness.cli.analysis", "add_significance"
    ),
    "human": Command(
        "BLEU vs human judgments (WMT21 MQM, WMT19 DA, or your systems' scores)",
        "harness.cli.analysis",
        "add_human",
    ),
    "report": Command(
        "write a Markdown/JSON/HTML report of a comparison", "harness.cli.report", "add_report"
    ),
    "pitfalls": Command(
        "the documented pitfalls as experiments with verdicts",
        "harness.cli.pitfalls",
        "add_pitfalls",
    ),
    "validate": Command(
        "diagnose a BLEU implementation (a Python function or a shell command)",
        "harness.cli.diagnose",
        "add_validate",
    ),
    "identify": Command(
        "which configurations and preprocessing mistakes reproduce a reported score",
        "harness.cli.diagnose",
        "add_identify",
    ),
    "check": Command(
        "warn about preprocessing mistakes in HYP REF... before scoring",
        "harness.cli.diagnose",
        "add_check",
    ),
    "releases": Command(
        "which releases of a library change which calls, with the smallest example",
        "harness.cli.releases",
        "add_releases",
    ),
    "fixtures": Command("list or show the shipped fixtures", "harness.cli.compare", "add_fixtures"),
    "profiles": Command(
        "list the profiles and their signatures", "harness.cli.compare", "add_profiles"
    ),
    "demo": Command("what `make demo` runs", "harness.cli.compare", "add_demo"),
    "cache": Command(
        "show, trim or empty the statistics and results caches", "harness.cli.cache", "add_cache"
    ),
}

#: What a registry entry's add-function is: it adds its subcommand's parser to the subparsers.
AddFunction: TypeAlias = "Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]"


def _add_function(name: str) -> AddFunction:
    """The add-function of subcommand ``name``, its module imported: the registry's one import
    (``tests/test_architecture.py`` checks every entry as an import of this module)."""
    entry = COMMANDS[name]
    add: AddFunction = getattr(importlib.import_module(entry.module), entry.add)
    return add


def _parser(real: Callable[[str], bool]) -> argparse.ArgumentParser:
    """The top-level parser; subcommands for which ``real(name)`` is true get their full parser
    (their module imported), the others a placeholder with the registry's help line."""
    p = argparse.ArgumentParser(prog="bleu-harness", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True)
    for name, entry in COMMANDS.items():
        if real(name):
            _add_function(name)(sub)
        else:
            sub.add_parser(name, help=entry.help)
    return p


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand; each sets ``func``, the command to run.

    Imports every command module; :func:`main` builds only the parser of the command it runs."""
    return _parser(lambda name: True)


def command_name(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first token that is not an option (the top-level
    parser takes no option with a value), if that is a registered command.

    >>> command_name(["--help"]) is None
    True
    >>> command_name(["score", "hyp.txt", "ref.txt"])
    'score'
    """
    token = next((a for a in argv if not a.startswith("-")), None)
    return token if token in COMMANDS else None


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser :func:`main` uses for ``argv``: every command listed, only the one it names
    built in full (so only that command's module is imported)."""
    chosen = command_name(argv)
    return _parser(lambda name: name == chosen)


def _internal_error(exc: Exception) -> int:
    """Report an exception no harness code expected: a bug. Short by default; the traceback
    with ``BLEU_HARNESS_DEBUG=1``."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    _say(
        f"bleu-harness: internal error: {type(exc).__name__}: {exc}{where}; this is a bug in "
        "bleu-harness, please report it (set BLEU_HARNESS_DEBUG=1 to print the traceback)"
    )
    if os.environ.get("BLEU_HARNESS_DEBUG", "") not in ("", "0"):
        with contextlib.suppress(OSError, ValueError):
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return 2


def _held(args: argparse.Namespace) -> AbstractContextManager[Any]:
    """What a command holds for its whole run: the context its parser named
    (``run_context``; :func:`harness.cli.options.add_perf` names one dask client for the run
    with ``--backend dask`` or ``--scheduler``, so no computation inside starts a cluster of
    its own), else nothing."""
    run_context: Callable[[argparse.Namespace], AbstractContextManager[Any]] | None = getattr(
        args, "run_context", None
    )
    return contextlib.nullcontext() if run_context is None else run_context(args)


def _say(message: str) -> None:
    """One line on stderr; a stderr that is closed or gone loses it (the exit code stays)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(message, file=sys.stderr, flush=True)


def _stdout_broken() -> bool:
    """Whether stdout can no longer take output: closed, or a pipe whose reader went away."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return True
    try:
        import select

        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no poll here: the error is stdout's
        return True


def _discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so the interpreter's last flush of a stdout whose
    reader left does not print a second error."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)


def _kill_children() -> None:
    """Kill the worker processes an interruption caught while they were starting (before a
    pool knew of them), and let every pool's manager thread end; a pool left by the
    interruption has already killed its own workers."""
    if "multiprocessing" not in sys.modules:
        return
    import multiprocessing

    interrupts.kill(multiprocessing.active_children())
    pools = sys.modules.get("concurrent.futures.process")
    wakeups = getattr(pools, "_threads_wakeups", None)
    if wakeups is not None:
        # The interpreter's exit wakes every process pool's manager thread through a pipe;
        # a pool killed mid-run may be closing that pipe then, and the failed wake-up would
        # print a traceback after the run's last line. Wake them here, where that is caught.
        for thread, wakeup in list(wakeups.items()):
            with contextlib.suppress(Exception):
                wakeup.wakeup()
            if thread.is_alive():
                thread.join(5)
        wakeups.clear()


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """The command line's form of a warning the harness raises on purpose: one line,
    ``bleu-harness: warning: ...``; any other warning in Python's form."""
    if category.__module__.split(".")[0] == "harness":
        _say(f"bleu-harness: warning: {message}")
    else:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            _python_showwarning(message, category, filename, lineno, file, line)


_python_showwarning = warnings.showwarning


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bleu-harness`` console script.

    Exit codes: 0 success; 2 any failure, with one line on stderr naming the file, line, row,
    option or module (an unexpected exception is reported as a bug, its traceback only with
    ``BLEU_HARNESS_DEBUG=1``); ``validate`` also exits 3 when the evidence does not support a
    diagnosis. Stopped by one of :data:`harness.interrupts.STOP_SIGNALS` (Ctrl-C, SIGTERM,
    SIGHUP), every command unwinds, leaves no partial output and exits 128 + its number (130,
    143, 129). Output asked for on stdout that could not all be written (a reader that left
    early) exits 141, as a process killed by SIGPIPE would; a stdout closed from the start is
    refused (2) before any work; progress bars on a stderr that went away are dropped and the
    work goes on.
    """
    in_process = argv is not None  # called from Python (a notebook, a test), not the script
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stderr is None:  # started with 2>&-: messages are lost, the exit code is not
        sys.stderr = open(os.devnull, "w")
    args = parser_for(argv).parse_args(argv)
    if sys.stdout is None:  # started with >&-: whatever the command prints would be lost
        _say(
            "bleu-harness: error: stdout is closed; give it somewhere to go (>/dev/null to "
            "discard the output)"
        )
        return 2
    main_thread = threading.current_thread() is threading.main_thread()
    interrupts.reset()
    previous = (
        {sig: signal.signal(sig, interrupts.handler) for sig in interrupts.STOP_SIGNALS}
        if main_thread
        else {}
    )
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            with _held(args):
                return int(args.func(args) or 0)
    except HarnessError as exc:
        _say(f"bleu-harness: error: {exc}")
        return 2
    except KeyboardInterrupt as exc:
        interrupts.acknowledge()  # the clean-up is done; still no second interruption
        _kill_children()
        signum = exc.signum if isinstance(exc, interrupts.Stopped) else signal.SIGINT
        name = signal.Signals(signum).name
        _say(f"bleu-harness: interrupted by {name}; incomplete output was discarded")
        return 128 + int(signum)
    except OSError as exc:  # the environment (disk full, permissions), not a bug: name the path
        if isinstance(exc, BrokenPipeError) and _stdout_broken():
            _discard_stdout()
            return 128 + int(getattr(signal, "SIGPIPE", 13))
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"bleu-harness: error: {where}{exc.strerror or exc}")
        return 2
    except SystemExit as exc:  # harness code never calls sys.exit; user or library code did
        _say(f"bleu-harness: error: code run by `{args.command}` called sys.exit({exc.code!r})")
        return 2
    except Exception as exc:
        return _internal_error(exc)
    finally:
        if in_process:  # a caller's process keeps its own handlers
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            interrupts.reset()
