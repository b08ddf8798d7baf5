"""``bleu-harness pitfalls``: the documented pitfalls as experiments, each with its claim,
source and verdict."""

from __future__ import annotations

import argparse

from harness.cli import options
from harness.pitfalls import run_pitfalls
from harness.report.pitfalls import format_table


def add_pitfalls(sub: options.Subcommands) -> None:
    """Register ``pitfalls``."""
    pf = sub.add_parser("pitfalls", help="the documented pitfalls as experiments with verdicts")
    pf.add_argument("--name", action="append", help="run only these experiments (repeatable)")
    pf.add_argument("--json", action="store_true", help="one object per experiment")
    options.add_progress(pf)
    pf.set_defaults(func=cmd_pitfalls)


def cmd_pitfalls(args: argparse.Namespace) -> int:
    """Run the documented pitfalls as experiments; print claim, source and verdict."""
    names = [x for item in args.name or [] for x in item.split(",") if x] or None
    results = run_pitfalls(names, progress=options.progress(args))
    if args.json:
        options.print_json(results)
    else:
        print(format_table(results))
    return 0
