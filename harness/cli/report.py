"""``bleu-harness report``: a Markdown/JSON/HTML report of a comparison, from the results table
``compare --out`` wrote (every row checked) or from a fresh run."""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path
from typing import Any

from harness.analysis.human import wmt21_human_correlations
from harness.analysis.meta_eval import MetaEvalOptions, meta_evaluate
from harness.analysis.study import ReportOptions, analyse
from harness.analysis.study_pairs import profile_pairs
from harness.analysis.study_types import Report
from harness.cli import inputs, options
from harness.cli.figure_worker import FigureWorker
from harness.data.io import read_lines
from harness.errors import InputError
from harness.report import cli_words, write_report
from harness.report.console import wrap
from harness.report.gap_words import count_words
from harness.report.outdir import OutputDir
from harness.report.summary import terminal_findings
from harness.run.results import ResultRow, Results, row_from_json
from harness.run.runner import run
from harness.statistics.correlation import KENDALL_FULL_BOOT_MAX, BootstrapOptions
from harness.typed_json import JsonShapeError


def add_report(sub: options.Subcommands) -> None:
    """Register ``report``."""
    r = sub.add_parser("report", help="write a Markdown/JSON/HTML report of a comparison")
    r.add_argument("--out", default="report", help="output directory (default: report/)")
    r.add_argument(
        "--force", action="store_true", help="replace an earlier bleu-harness output in --out"
    )
    r.add_argument("--results", help="a results.jsonl from `compare --out` (else run compare)")
    r.add_argument("--fixture", action="append", help="fixture name (repeatable; default all)")
    r.add_argument(
        "--impl",
        action="append",
        help="profile:NAME or adapter:NAME (default: every machine-translation profile and "
        "library; the code-summarization variants when named, e.g. profile:codesum-fc)",
    )
    r.add_argument(
        "--level",
        nargs="+",
        choices=["corpus", "segment"],
        default=["corpus", "segment"],
        help="levels compared (default: both; segment-level pairs and correlations need segment)",
    )
    r.add_argument("--wmt21", action="store_true", help="add WMT21 en→de (needs the data dir)")
    r.add_argument("--coco", action="store_true", help="add COCO leave-one-out (data dir)")
    r.add_argument("--with-fixtures", action="store_true", help="with --wmt21/--coco: fixtures too")
    r.add_argument(
        "--human",
        action="store_true",
        help="add BLEU vs WMT21 MQM and each profile's WMT meta-evaluation (data dir)",
    )
    options.add_meta_resamples(r, "the judged pairs' profiles (with --human)")
    options.add_real(r, default="sample")
    r.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    inputs.add_limit(r)
    inputs.add_user_files(r)
    r.add_argument(
        "--formats",
        nargs="+",
        choices=["md", "json", "html", "csv"],
        default=["md", "json", "html"],
        help="what to write: report.md, report.json with its schema (report.schema.json), "
        "index.html with its figures (default these three); the segment table is always "
        "segments.parquet, and csv writes it as segments.csv too",
    )
    r.add_argument(
        "--n-boot",
        type=options.int_at_least(0),
        default=200,
        help="bootstrap resamples for the correlations' CIs (0: none); Kendall's tau-b over "
        f"more than {KENDALL_FULL_BOOT_MAX} pairs has the asymptotic (delta-method) CI",
    )
    r.add_argument(
        "--significance-pair",
        nargs=2,
        metavar=("BASELINE", "SYSTEM"),
        help="test this pair of systems (default: every system against the best)",
    )
    options.add_seed(
        r,
        "the spot check's draw and every resampling: intervals, significance, reversed system pairs",
    )
    options.add_perf(r)
    options.add_progress(r)
    r.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """A difference/correlation/attribution report, from a results table or a fresh compare."""
    start = time.perf_counter()
    # Claimed (locked, checked) before the run, so a bad --out fails at once.
    with OutputDir(args.out, force=args.force, command="report") as out:
        rows, report, written = _report(args, out)
    for path in written:
        print(path)
    for line in terminal_findings(report):
        print(wrap(line, indent="  ", first=""))
    if report.gap_matters.pairs:  # the page's one count, in the same words
        lead, rest = count_words(report.gap_matters.tally)
        print(wrap(f"Does the gap matter? {lead}{rest}", indent="  ", first=""))
    print(cli_words.report_written(len(rows), str(out.path), time.perf_counter() - start))
    return 0


#: The profile the report's answer measures every gap from.
BASELINE = "sacrebleu"


def _report(args: argparse.Namespace, out: OutputDir) -> tuple[Results, Report, list[Path]]:
    corpora = [] if args.results else inputs.corpora(args)
    impls = [] if args.results else inputs.implementations(args)
    plan = options.plan(args, corpora, impls, answer_baseline=BASELINE)
    # The run's one session: its corpora, and the statistics cache the runner, the analysis
    # and the human judgments share.
    session = plan.corpus_session()
    rows = read_rows(args.results) if args.results else run(plan)
    human = None
    if args.human:
        human = wmt21_human_correlations(
            args.data,
            bootstrap=BootstrapOptions(n_boot=args.n_boot, seed=plan.seed),
            progress=plan.callback(),
            session=session,
        )
    meta = None
    if human is not None:
        meta = meta_evaluate(
            human,
            options=MetaEvalOptions(resamples=args.meta_resamples, seed=plan.seed),
            compared=[p for p in profile_pairs(rows) if set(p) <= set(human.segment_scores)],
            progress=plan.callback(),
        )
    pair = tuple(args.significance_pair) if args.significance_pair else None
    with contextlib.ExitStack() as stack:
        # the figures drawn in a worker, started while the analysis waits for its own
        drawing = FigureWorker(stack, session, out.staging) if "html" in args.formats else None
        report = analyse(
            rows,
            session,
            options=ReportOptions(
                seed=plan.seed,
                n_boot=args.n_boot,
                significance_pair=pair,
                baseline=BASELINE,
                limit=plan.limit,
            ),
            human=human,
            meta_evaluation=meta,
            progress=plan.callback(),
            meanwhile=drawing.meanwhile if drawing else None,
        )
        written = write_report(report, out, formats=args.formats, figures_later=drawing)
    return rows, report, written


# ---------------------------------------------------------------------- reading results
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (write null for a missing score)")


def _check_row(obj: Any, path: str, line: int) -> ResultRow:
    """The row of ``obj`` if it is a results row as `compare --out` writes it (the shape of
    :class:`harness.run.results.ResultRow`); else InputError at ``line``."""
    try:
        row = row_from_json(obj)
    except JsonShapeError as exc:
        raise InputError(f"not a results row: {exc}", file=path, line=line) from None
    if row.status == "ok" and row.score is None:
        raise InputError(
            "not a results row: status is 'ok' but 'score' is null", file=path, line=line
        )
    return row


def read_rows(path: str) -> Results:
    """The rows of a results.jsonl written by `compare --out`, each checked (InputError names
    the file and line of the first bad row)."""
    rows = []
    for i, line in enumerate(read_lines(path, what="results file"), start=1):
        try:
            obj = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not a JSON results row: {exc.msg} (column {exc.colno})", file=path, line=i
            ) from None
        except ValueError as exc:  # NaN / Infinity
            raise InputError(f"not a results row: {exc}", file=path, line=i) from None
        rows.append(_check_row(obj, path, i))
    return Results.from_rows(rows)
