"""What the commands run on, from their flags: the corpora (the user's files — hypothesis files
with ``--refs``, ``--jsonl``, ``--tsv`` —, built-in fixtures, WMT21, COCO) and the
implementations (``profile:NAME``, ``adapter:NAME``)."""

from __future__ import annotations

import argparse
import sys

from harness.cli import options
from harness.data.corpus import Corpus
from harness.data.datasets import load_coco_leave_one_out, load_wmt21_ende
from harness.data.fixtures import list_fixtures, load_fixture
from harness.data.io import load_text_corpus
from harness.data.systems import load_jsonl_systems, load_text_systems, load_tsv_systems
from harness.data.textfile import out_of_memory, precheck_line_aligned
from harness.errors import ConfigError, InputError
from harness.report import cli_words
from harness.run import runner

#: The fixture column of rows computed on the user's own files.
USER_FILES = "files"


def add_user_files(parser: argparse.ArgumentParser, *, positional: bool = True) -> None:
    """The flags that name a user's systems: ``HYP ... --refs REF ...``, ``--jsonl``, ``--tsv``."""
    g = parser.add_argument_group(
        "your files (several systems against the same references; UTF-8, LF, one segment a line)"
    )
    if positional:
        parser.add_argument(
            "hyps",
            nargs="*",
            metavar="HYP",
            help="hypothesis files, one system each (named by the file's stem); needs --refs",
        )
    g.add_argument(
        "--refs",
        nargs="+",
        metavar="REF",
        help="reference files, one per reference, line-aligned with every HYP",
    )
    g.add_argument(
        "--jsonl",
        metavar="FILE",
        help='JSON Lines, one segment a line: {"id", "references": [...], "hypothesis": str} '
        'or "hypotheses": {"system": str, ...} for several systems',
    )
    g.add_argument(
        "--tsv",
        metavar="FILE",
        help="TSV with a header: an optional id column, reference columns named ref, ref1, …, "
        "and one column per system",
    )
    options.add_bom(g)


def user_systems(args: argparse.Namespace) -> dict[str, Corpus]:
    """The user's systems from :func:`add_user_files` flags (empty when none were given);
    InputError for a half-given or doubly-given input."""
    hyps = list(getattr(args, "hyps", None) or [])
    refs = getattr(args, "refs", None)
    jsonl, tsv = getattr(args, "jsonl", None), getattr(args, "tsv", None)
    given = sum(x is not None and x != [] for x in (hyps or None, jsonl, tsv))
    if given > 1:
        raise InputError("give one of: HYP files with --refs, --jsonl FILE, --tsv FILE")
    if refs and not hyps:
        raise InputError("--refs needs hypothesis files: HYP [HYP ...] --refs REF [REF ...]")
    if hyps:
        if not refs:
            raise InputError(
                f"{hyps[0]}: hypothesis files need --refs REF [REF ...] (the reference files)"
            )
        # Sizes, every reading rule and the line counts first, a chunk at a time: a file too
        # large or not line-aligned is refused before any file is held in memory.
        precheck_line_aligned(hyps, refs, references_first=True, bom=args.bom)
        try:
            return load_text_systems(hyps, refs, bom=args.bom)
        except MemoryError:
            raise out_of_memory([*hyps, *refs]) from None
    if jsonl:
        return load_jsonl_systems(jsonl, bom=args.bom)
    if tsv:
        return load_tsv_systems(tsv, bom=args.bom)
    return {}


def add_limit(parser: argparse.ArgumentParser) -> None:
    """``--limit N``: score only the first N segments of every corpus (a quick look)."""
    parser.add_argument(
        "--limit",
        type=options.int_at_least(1, "a number of segments"),
        metavar="N",
        help="only the first N segments of each corpus (a quick look; default: all)",
    )


def corpora(args: argparse.Namespace) -> list[tuple[str, str, Corpus]]:
    """``(fixture, system, corpus)``: the user's systems (:func:`user_systems`, fixture
    :data:`USER_FILES`), every system of the ``--fixture`` fixtures (default: all, unless files
    or a data set are asked for without ``--with-fixtures``), then COCO leave-one-out
    (``--coco``) and the WMT21 en→de systems (``--wmt21``) from ``--data``; each cut to its
    first ``--limit`` segments when given."""
    out = [(USER_FILES, name, corpus) for name, corpus in user_systems(args).items()]
    real = args.wmt21 or getattr(args, "coco", False) or bool(out)
    names = args.fixture or ([] if real and not args.with_fixtures else list_fixtures())
    for name in names:
        fx = load_fixture(name)
        for system in fx.system_names:
            out.append((name, system, fx.corpus(system)))
    if getattr(args, "coco", False):
        out.append(("coco_captions", "leave-one-out", load_coco_leave_one_out(args.data)))
    if args.wmt21:
        systems = load_wmt21_ende(args.data)
        for system, corpus in systems.items():
            out.append(("wmt21_ende", system, corpus))
    limit = getattr(args, "limit", None)
    if limit is not None:
        print(cli_words.limited(limit), file=sys.stderr)
        out = [(f, s, c.subset(range(min(limit, len(c))))) for f, s, c in out]
    return out


def implementations(args: argparse.Namespace) -> list[runner.Implementation]:
    """The ``--impl`` specs (comma-separated or repeated), or every implementation when the
    flag is not given; ConfigError for a value that names none or has an empty name
    (``--impl ,``, ``--impl a,,b``) or an unknown one."""
    if args.impl is None:
        return runner.default_implementations()
    specs: list[str] = []
    for item in args.impl:
        try:
            specs.extend(options.split_names(item, "implementation"))
        except ValueError as exc:
            raise ConfigError(f"--impl: {exc}; give profile:NAME or adapter:NAME") from None
    if not specs:
        raise ConfigError("--impl: no implementation given; give profile:NAME or adapter:NAME")
    return [runner.Implementation.parse(s) for s in specs]


def one_corpus(args: argparse.Namespace) -> Corpus:
    """One corpus: ``--fixture NAME`` (``--system`` when it has several), or the positional
    ``HYP_FILE REF_FILE [REF_FILE ...]``; InputError for both, neither or an ambiguous one."""
    if args.fixture:
        if args.files:
            raise InputError("give either --fixture or files, not both")
        fx = load_fixture(args.fixture)
        system = args.system or (fx.system_names[0] if len(fx.system_names) == 1 else None)
        if system is None:
            raise InputError(
                f"fixture {fx.name} has several systems; choose one with --system "
                f"({', '.join(fx.system_names)})"
            )
        return fx.corpus(system)
    if len(args.files) < 2:
        what = getattr(args, "command", None) or "this command"
        raise InputError(f"{what} needs --fixture NAME or HYP_FILE REF_FILE [REF_FILE ...]")
    return load_text_corpus(args.files[0], args.files[1:], bom=args.bom)
