"""``bleu-harness releases``: which releases of a library change which calls."""

from __future__ import annotations

import argparse

from harness.cli import options
from harness.diagnose.releases import drift_report, wmt21_cases
from harness.report.release_words import drift_markdown, drift_text
from harness.scorers.releases import CALLS, RELEASES_ENV
from harness.typed_json import to_json


def add_releases(sub: options.Subcommands) -> None:
    """Register ``releases``."""
    r = sub.add_parser(
        "releases",
        help="which releases of a library change which calls, with the smallest example",
        description="Run every release of LIB in the release folder (the published wheels the "
        f"test suite downloads when it proves the versioned profiles; ${RELEASES_ENV} to name "
        "another), each as published in a process of its own, beside the installed release on "
        "the fixtures and seeded generated corpora; print the runs of releases that answer a "
        "call otherwise than the installed one, each with the smallest corpus where it does. "
        "Nothing is downloaded.",
    )
    r.add_argument("library", choices=sorted(CALLS), help="the library")
    r.add_argument(
        "--generated",
        type=options.int_at_least(0),
        default=100,
        help="generated corpora beside the fixtures (default 100)",
    )
    options.add_seed(r, "the generated corpora")
    r.add_argument(
        "--wmt21",
        action="store_true",
        help="also measure each drift on WMT21 en→de (its first system, 1002 segments, against "
        "three references and against one; the data folder from $BLEU_HARNESS_DATA)",
    )
    form = r.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the report as JSON")
    form.add_argument("--markdown", action="store_true", help="print the report as Markdown tables")
    options.add_progress(r)
    r.set_defaults(func=cmd_releases)


def cmd_releases(args: argparse.Namespace) -> int:
    """The drift report of ``args.library``, printed."""
    report = drift_report(
        args.library,
        generated=args.generated,
        seed=args.seed,
        sized=wmt21_cases() if args.wmt21 else (),
        progress=options.progress(args),
    )
    if args.json:
        options.print_json(to_json(report))
    elif args.markdown:
        print(drift_markdown(report))
    else:
        print(drift_text(report))
    return 0
