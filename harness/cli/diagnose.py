"""``bleu-harness validate`` (diagnose a BLEU implementation, a Python callable or a shell
command), ``identify`` (which configurations and preprocessing mistakes reproduce a reported
score) and ``check`` (preprocessing mistakes in the files, before scoring)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from harness.cli import inputs, options
from harness.diagnose.check import check_files
from harness.diagnose.identify import identify, nearest
from harness.diagnose.validate import CouldNotValidate, validate
from harness.errors import InputError
from harness.report.validation import validation_markdown


# ---------------------------------------------------------------------- validate
def add_validate(sub: options.Subcommands) -> None:
    """Register ``validate``."""
    v = sub.add_parser("validate", help="diagnose a BLEU implementation (callable or command)")
    v.add_argument("--impl", help="module:function taking (hypotheses, references) -> score")
    v.add_argument(
        "--cmd", help="shell command template, e.g. 'perl multi-bleu.perl {ref} < {hyp}'"
    )
    v.add_argument(
        "--cases",
        type=options.int_at_least(0),
        default=300,
        help="generated corpora (plus fixtures)",
    )
    v.add_argument("--seed", type=options.SEED, default=0)
    v.add_argument("--against", help="compare deviations with this profile (default: best)")
    v.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per --cmd call (default 30); its process group is killed after that",
    )
    v.add_argument("--json", action="store_true")
    options.add_progress(v)
    v.set_defaults(func=cmd_validate)


def _raise_interrupt(signum: int, frame: object) -> None:
    """SIGTERM handler: unwind like Ctrl-C, so the running command and files are cleaned up."""
    raise KeyboardInterrupt(signum)


def cmd_validate(args: argparse.Namespace) -> int:
    """Diagnose a BLEU implementation against every profile, on fixtures and generated corpora.

    Exit status: 0 with a diagnosis; 3 when the implementation could not be validated (too few
    cases gave a finite score, or the command timed out on its first call); 2 for usage and
    input errors; 130/143 when interrupted by SIGINT/SIGTERM (temporary files are removed and
    the running command's process group is killed first).
    """
    if bool(args.impl) == bool(args.cmd):
        raise InputError("give exactly one of --impl module:function or --cmd 'COMMAND'")
    if args.timeout is not None and args.impl:
        raise InputError("--timeout applies to --cmd only (a Python --impl runs in-process)")
    if args.timeout is not None and not (0 < args.timeout < float("inf")):
        raise InputError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.cases < 0:
        raise InputError(f"--cases must be >= 0, got {args.cases}")

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _raise_interrupt) if main_thread else None
    try:
        report = validate(
            args.impl,
            cmd=args.cmd,
            cases=args.cases,
            seed=args.seed,
            against=args.against,
            timeout=args.timeout,
            progress=options.progress(args),
        )
    except CouldNotValidate as exc:
        print(f"bleu-harness: could not validate: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt as exc:
        term = bool(exc.args) and exc.args[0] == signal.SIGTERM
        print(
            f"bleu-harness: validate interrupted by {'SIGTERM' if term else 'SIGINT'}; "
            "the running command was killed and temporary files removed",
            file=sys.stderr,
        )
        return 143 if term else 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    if args.json:
        options.print_json(report.to_dict())
    else:
        print(validation_markdown(report))
    if not report.diagnosable:
        print(f"bleu-harness: could not validate: {report.withheld}", file=sys.stderr)
        return 3
    return 0


# ---------------------------------------------------------------------- identify
def add_identify(sub: options.Subcommands) -> None:
    """Register ``identify``."""
    i = sub.add_parser("identify", help="which configurations reproduce a reported score")
    i.add_argument(
        "--score", type=options.finite_float, required=True, help="the reported score, as printed"
    )
    i.add_argument("--fixture", help="a built-in fixture")
    i.add_argument("--system", help="the fixture's system, when it has several")
    i.add_argument("files", nargs="*", help="HYP_FILE REF_FILE [REF_FILE ...] instead of --fixture")
    i.add_argument(
        "--tolerance", type=options.nonneg_float, default=None, help="default: half a last digit"
    )
    i.add_argument("--top", type=options.int_at_least(1), default=10)
    i.add_argument("--json", action="store_true")
    options.add_progress(i)
    options.add_perf(i)
    i.set_defaults(func=cmd_identify)


def cmd_identify(args: argparse.Namespace) -> int:
    """Which configurations reproduce a reported BLEU score on a corpus, and which
    preprocessing mistakes (subword markers left in, tokenized text, compound splitting,
    lowercased or single references; :mod:`harness.diagnose.preprocess`) they assume."""
    corpus = inputs.one_corpus(args)
    progress = options.progress(args)
    session = options.session(args)
    found = identify(
        args.score, corpus, tolerance=args.tolerance, progress=progress, session=session
    )
    near = (
        [] if found else nearest(args.score, corpus, k=args.top, progress=progress, session=session)
    )
    if args.json:
        options.print_json(
            {
                "score": args.score,
                "corpus": corpus.name,
                "matches": [c.to_dict() for c in found[: args.top]],
                "n_matches": len(found),
                "nearest": [c.to_dict() for c in near],
            }
        )
        return 0
    rows = found[: args.top] if found else near
    head = (
        f"{len(found)} configuration(s) reproduce {args.score}"
        if found
        else (f"nothing reproduces {args.score}; the nearest")
    )
    print(f"{head} on {corpus.name}:\n")
    for c in rows:
        d = c.to_dict()
        print(
            f"- {d['shown']} ({d['scale']}, {d['rounding']}; raw {d['raw']:.6g}; "
            f"distance {d['distance']:.2g}) profile {d['profile']}"
            + (f" + {', '.join(d['changes'])}" if d["changes"] else "")
            + (f"; layout {d['layout']}" if d["layout"] != "per-segment" else "")
            + (f"; preprocessing {', '.join(d['preprocessing'])}" if "preprocessing" in d else "")
        )
    return 0


# ---------------------------------------------------------------------- check
def add_check(sub: options.Subcommands) -> None:
    """Register ``check``."""
    c = sub.add_parser(
        "check", help="warn about preprocessing mistakes in HYP REF... before scoring"
    )
    c.add_argument("hyp", help="the hypothesis file, one segment a line")
    c.add_argument("refs", nargs="+", help="one file per reference, line-aligned")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """Report subword and compound-split markers, tokenized-looking text, case mismatch,
    identical references, empty lines, and unreadable or misaligned files, each with example
    lines and its effect on BLEU.

    Exit status: 0 nothing found; 1 warnings only (the files can be scored, but the number
    may not mean what you think); 2 an error (a file cannot be read, or line counts differ).
    """
    report = check_files(args.hyp, args.refs)
    if args.json:
        options.print_json(report.to_dict())
        return report.exit_code
    if not report.findings:
        print(f"no preprocessing problems found in {', '.join(report.files)}")
    for f in report.findings:
        print(f"- {f.describe()}")
    return report.exit_code
