"""``bleu-harness validate`` (diagnose a BLEU implementation, a Python callable or a shell
command), ``identify`` (which configurations and preprocessing mistakes reproduce a reported
score) and ``check`` (preprocessing mistakes in the files, before scoring)."""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
from typing import Any

from harness import interrupts
from harness.cli import inputs, options
from harness.diagnose.candidates import Candidate
from harness.diagnose.check import check_files
from harness.diagnose.identify import (
    PrintedLine,
    chance,
    fewest_steps,
    identify,
    nearest,
    read_printed,
    signature_reading,
    simplest,
    unmatched,
)
from harness.diagnose.lengths import length_clue
from harness.diagnose.validate import CouldNotValidate, ValidateOptions, validate
from harness.errors import ConfigError, InputError
from harness.report.check_words import check_text, check_words
from harness.report.identify_words import (
    IdentifyAnswer,
    identify_json,
    identify_text,
    printed_json,
    signature_reading_sentences,
)
from harness.report.validation import (
    could_not_validate_line,
    interrupted_line,
    validation_text,
    withheld_line,
)
from harness.report.validation_words import validation_json
from harness.scorers.printed import SIGNATURE


def _wrap(text: str, width: int = 100, **kw: Any) -> list[str]:
    """``textwrap.wrap`` that never breaks a word, nor at a hyphen: names such as
    ``codesum-ncs`` or ``layout=flat-list`` stay whole, so the printed text can be searched."""
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False, **kw)


def _fill(text: str, width: int = 100, **kw: Any) -> str:
    """:func:`_wrap`, joined into lines."""
    return "\n".join(_wrap(text, width, **kw))


# ---------------------------------------------------------------------- validate
def add_validate(sub: options.Subcommands) -> None:
    """Register ``validate``."""
    v = sub.add_parser(
        "validate",
        help="diagnose a BLEU implementation (a Python function or a shell command)",
        description="Run a BLEU implementation on the fixtures and seeded generated corpora, "
        "lead with the named profiles with the fewest changes that reproduce it (equal "
        "readings listed as equal), diagnose only what every one of them needs, and explain "
        "each deviation. "
        "Exit 0 with a diagnosis, 3 when it could not be validated or its scores do not depend "
        "on its input (not a BLEU implementation: no factor is named), 2 for usage errors.",
    )
    v.add_argument(
        "--impl",
        metavar="MODULE:FUNCTION",
        help="a Python function, imported as MODULE:FUNCTION (the current directory is "
        "searched first); it is called as f(hypotheses, references) with hypotheses a list "
        "of str and references per segment, a list of lists of str (references[i] are "
        "segment i's references; their number may vary), and must return the corpus BLEU as "
        "a number on 0-1 or 0-100 (the scale is detected), or an object with a .score",
    )
    v.add_argument(
        "--cmd",
        metavar="TEMPLATE",
        help="a shell command template; the files it reads are written for each case (UTF-8, "
        "one segment a line, shell-quoted paths): {hyp} the hypotheses (required); {ref} the "
        "only reference file; {ref0}, {ref1}, ... one file per reference stream; {refs} all "
        "reference files separated by spaces; {ref_stem} a stem whose {ref_stem}0, "
        "{ref_stem}1, ... are the reference files (multi-bleu.perl's convention). It must "
        "print 'BLEU = 27.23', 'BLEU score = 0.2723', sacrebleu's JSON or a bare number; e.g. "
        "'perl multi-bleu.perl {ref} < {hyp}'",
    )
    v.add_argument(
        "--cases",
        type=options.int_at_least(0),
        default=300,
        help="an integer >= 0: generated corpora run besides the fixtures (default 300)",
    )
    options.add_seed(v, "the generated corpora and the evidence check's permutations")
    v.add_argument(
        "--against",
        metavar="PROFILE",
        help="explain deviations from this profile (one of `bleu-harness profiles`; default: "
        "the leading reading's profile)",
    )
    v.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="a number of seconds > 0, --cmd only: the limit per call (default 30), after "
        "which its process group is killed",
    )
    v.add_argument(
        "--json", action="store_true", help="print the report as JSON instead of plain text"
    )
    options.add_progress(v)
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    """Diagnose a BLEU implementation against every profile, on fixtures and generated corpora.

    Exit status: 0 with a diagnosis; 3 when the implementation could not be validated (too few
    cases gave a finite score, the command timed out or printed too much on its first call, or
    its scores do not depend on its input: "not a BLEU implementation / ignores its input",
    and no factor is named); 2 for usage and input errors; 128 + the signal's number when
    stopped (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: temporary files are removed and the running
    command's process group is killed first).
    """
    if bool(args.impl) == bool(args.cmd):
        raise InputError("give exactly one of --impl module:function or --cmd 'COMMAND'")
    if args.timeout is not None and args.impl:
        raise InputError("--timeout applies to --cmd only (a Python --impl runs in-process)")
    if args.timeout is not None and not (0 < args.timeout < float("inf")):
        raise InputError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.cases < 0:
        raise InputError(f"--cases must be >= 0, got {args.cases}")

    try:
        report = validate(
            args.impl,
            cmd=args.cmd,
            options=ValidateOptions(
                cases=args.cases, seed=args.seed, against=args.against, timeout=args.timeout
            ),
            progress=options.progress(args),
        )
    except CouldNotValidate as exc:
        print(could_not_validate_line(str(exc)), file=sys.stderr)
        return 3
    except KeyboardInterrupt as exc:
        interrupts.acknowledge()
        signum = exc.signum if isinstance(exc, interrupts.Stopped) else signal.SIGINT
        print(interrupted_line(signal.Signals(signum).name), file=sys.stderr)
        return 128 + int(signum)
    if args.json:
        options.print_json(validation_json(report))
    else:
        print(validation_text(report), end="")
    if not report.diagnosable:
        print(withheld_line(report), file=sys.stderr)
        return 3
    return 0


# ---------------------------------------------------------------------- identify
def printed_score(text: str) -> PrintedLine:
    """An argparse type: a result as printed (:func:`harness.scorers.printed.read_printed`),
    every number kept as typed (its digits are its precision: ``27`` stands for [26.5, 27.5),
    ``27.0`` for [26.95, 27.05))."""
    try:
        return read_printed(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


printed_score.__name__ = "printed result"


def add_identify(sub: options.Subcommands) -> None:
    """Register ``identify``."""
    i = sub.add_parser(
        "identify",
        help="which configurations and preprocessing mistakes reproduce a reported score",
        description="Search tokenizer, case, reference length, smoothing, order, aggregation, "
        "reference-layout misuse, scale (0-1 or 0-100), rounding and preprocessing mistakes "
        "for the readings that print a reported BLEU score on a corpus.",
    )
    i.add_argument(
        "--score",
        type=printed_score,
        required=True,
        help="the reported result exactly as printed: a score on 0-1 or 0-100 (e.g. 0.27, 27, "
        "27.22; its digits are its precision: 27 means [26.5, 27.5)), or a whole printed line "
        "(quoted): sacrebleu's line or JSON, multi-bleu.perl's line, mteval-v13a's 'BLEU "
        "score = ...', a dict with evaluate's keys, torchmetrics' tensor(...), a row of "
        "lm-eval's results table. A reading must then reproduce every printed number and the "
        "settings of a sacrebleu signature; when none does, the printed lengths say which part "
        "of the test set (or which side) the score was computed on. A sacrebleu signature "
        "alone (no files needed) is decoded into the configuration it pins",
    )
    i.add_argument("--fixture", help="a built-in fixture name (see `bleu-harness fixtures list`)")
    i.add_argument(
        "--system", help="the fixture's system, required when it has several (fixtures show NAME)"
    )
    i.add_argument(
        "files",
        nargs="*",
        help="HYP_FILE REF_FILE [REF_FILE ...] (UTF-8, one segment a line) instead of --fixture",
    )
    options.add_bom(i)
    i.add_argument(
        "--tolerance",
        type=options.nonneg_float,
        default=None,
        help="a number >= 0: accept |shown - score| <= TOLERANCE instead of the printed "
        "interval (default: half a unit of the last printed digit, upper end excluded)",
    )
    i.add_argument(
        "--top",
        type=options.int_at_least(1),
        default=10,
        help="an integer >= 1: how many readings to print (default 10)",
    )
    i.add_argument(
        "--json", action="store_true", help="print JSON (every match) instead of plain text"
    )
    options.add_progress(i)
    options.add_perf(i)
    i.set_defaults(func=cmd_identify)


def cmd_identify(args: argparse.Namespace) -> int:
    """Which configurations reproduce a reported BLEU result on a corpus, and which
    preprocessing mistakes (subword markers left in, tokenized text, compound splitting,
    lowercased or single references; :mod:`harness.diagnose.preprocess`) they assume."""
    line: PrintedLine = args.score
    if line.form == SIGNATURE:  # no score to search: the configuration it names
        reading = signature_reading(line)
        if args.json:
            options.print_json({"read": printed_json(line), "signature": reading})
        else:
            print("\n".join(_fill(x, 100) for x in signature_reading_sentences(reading)))
        return 0
    corpus = inputs.one_corpus(args)
    progress = options.progress(args)
    session = options.session(args, options.jobs(args, counts_ahead=True))
    found = identify(line, corpus, tolerance=args.tolerance, progress=progress, session=session)
    near: list[tuple[Candidate, list[str]]] = []
    clue = None if found else length_clue(line, corpus, session=session)
    if not found and not (clue is not None and (clue.reproduces or clue.matches)):
        for c in nearest(line, corpus, count=args.top, progress=progress, session=session):
            near.append((c, unmatched(line, c, corpus, session) if c.reproduces else []))
    odds = None if args.tolerance is not None else chance(line, corpus, session=session)
    few = fewest_steps(found)
    doubtful = (
        odds is not None
        and bool(found)
        and (len(found) <= 2 * odds.expected or (few is not None and few > 1))
    )
    simple = simplest(line, corpus, session=session) if doubtful else None
    answer = IdentifyAnswer(
        line=line,
        corpus=corpus.name,
        found=tuple(found),
        near=tuple((c, tuple(w)) for c, w in near),
        tolerance=args.tolerance,
        odds=odds,
        simple=simple,
        clue=clue,
    )
    if args.json:
        options.print_json(identify_json(answer))
        return 0
    print(identify_text(answer, args.top))
    return 0


# ---------------------------------------------------------------------- check
def add_check(sub: options.Subcommands) -> None:
    """Register ``check``."""
    c = sub.add_parser(
        "check",
        help="warn about preprocessing mistakes in HYP REF... before scoring",
        description="Report subword and compound-split markers, tokenized-looking text, case "
        "mismatch, identical references, empty lines, and unreadable or misaligned files. "
        "Exit 0 nothing found, 1 warnings, 2 an error (the files cannot be scored).",
    )
    c.add_argument("hyp", help="the hypothesis file: UTF-8, one segment a line")
    c.add_argument(
        "refs", nargs="+", help="one or more reference files, each line-aligned with HYP"
    )
    c.add_argument(
        "--json", action="store_true", help="print the findings as JSON instead of plain text"
    )
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
        options.print_json(check_words(report))
        return report.exit_code
    print(check_text(report, 100))
    return report.exit_code
