"""What the commands run on, from their flags: the corpora (built-in fixtures, WMT21, COCO,
or hypothesis and reference files) and the implementations (``profile:NAME``,
``adapter:NAME``)."""

from __future__ import annotations

import argparse

from harness.analysis import runner
from harness.data.corpus import Corpus
from harness.data.datasets import load_coco_leave_one_out, load_wmt21_ende
from harness.data.fixtures import list_fixtures, load_fixture
from harness.data.io import load_text_corpus
from harness.errors import InputError


def corpora(args: argparse.Namespace) -> list[tuple[str, str, Corpus]]:
    """``(fixture, system, corpus)`` for every system of the ``--fixture`` fixtures (default:
    all, unless a data set is asked for without ``--with-fixtures``), then COCO leave-one-out
    (``--coco``) and the WMT21 en→de systems (``--wmt21``) from ``--data``."""
    out = []
    real = args.wmt21 or getattr(args, "coco", False)
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
    return out


def implementations(args: argparse.Namespace) -> list[runner.Implementation]:
    """The ``--impl`` specs (comma-separated or repeated), or every implementation."""
    if not args.impl:
        return runner.default_implementations()
    specs: list[str] = []
    for item in args.impl:
        specs.extend(x for x in item.split(",") if x)
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
        raise InputError("explain needs --fixture NAME or HYP_FILE REF_FILE [REF_FILE ...]")
    return load_text_corpus(args.files[0], args.files[1:])
