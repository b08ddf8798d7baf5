"""The ``bleu-harness`` program: the parser (one subcommand per command module, in the order
``--help`` lists them), and :func:`main` — exit codes, interruption and error reporting."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from harness.cli import analysis, compare, diagnose, pitfalls, report, score
from harness.errors import HarnessError

#: The first line of ``bleu-harness --help``.
DESCRIPTION = "``bleu-harness``: the command line."


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand; each sets ``func``, the command to run."""
    p = argparse.ArgumentParser(prog="bleu-harness", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True)
    score.add_score(sub)
    compare.add_compare(sub)
    analysis.add_explain(sub)
    analysis.add_significance(sub)
    analysis.add_human(sub)
    report.add_report(sub)
    pitfalls.add_pitfalls(sub)
    diagnose.add_validate(sub)
    diagnose.add_identify(sub)
    diagnose.add_check(sub)
    compare.add_fixtures(sub)
    compare.add_profiles(sub)
    compare.add_demo(sub)
    return p


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bleu-harness`` console script.

    Exit codes: 0 success; 2 any failure, with one line on stderr naming the file, line, row,
    option or module (an unexpected exception is reported as a bug, its traceback only with
    ``BLEU_HARNESS_DEBUG=1``); 130 interrupted (SIGINT / Ctrl-C), leaving no partial output.
    ``validate`` also exits 3 when the implementation could not be validated (and 143 on
    SIGTERM).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HarnessError as exc:
        print(f"bleu-harness: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not kill the exit
        print("bleu-harness: interrupted; incomplete output was discarded", file=sys.stderr)
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
