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
import traceback
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple, TypeAlias

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
    print(
        f"bleu-harness: internal error: {type(exc).__name__}: {exc}{where}; this is a bug in "
        "bleu-harness, please report it (set BLEU_HARNESS_DEBUG=1 to print the traceback)",
        file=sys.stderr,
    )
    if os.environ.get("BLEU_HARNESS_DEBUG", "") not in ("", "0"):
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bleu-harness`` console script.

    Exit codes: 0 success; 2 any failure, with one line on stderr naming the file, line, row,
    option or module (an unexpected exception is reported as a bug, its traceback only with
    ``BLEU_HARNESS_DEBUG=1``); 130 interrupted (SIGINT / Ctrl-C), leaving no partial output.
    ``validate`` also exits 3 when the implementation could not be validated (and 143 on
    SIGTERM).
    """
    in_process = argv is not None  # called from Python (a notebook, a test), not the script
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser_for(argv).parse_args(argv)
    try:
        with _held(args):
            return int(args.func(args) or 0)
    except HarnessError as exc:
        print(f"bleu-harness: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # a second Ctrl-C must not kill the script's exit; a caller's process keeps its handler
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("bleu-harness: interrupted; incomplete output was discarded", file=sys.stderr)
        if in_process:
            signal.signal(signal.SIGINT, previous)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment (disk full, permissions), not a bug: name the path
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"bleu-harness: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # harness code never calls sys.exit; user or library code did
        print(
            f"bleu-harness: error: code run by `{args.command}` called sys.exit({exc.code!r})",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:
        return _internal_error(exc)
