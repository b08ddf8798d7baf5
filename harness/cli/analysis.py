"""``bleu-harness explain`` (Shapley attribution of the gap between two profiles),
``significance`` (paired bootstrap / approximate randomisation between two systems) and
``human`` (BLEU against human judgments)."""

from __future__ import annotations

import argparse

from harness.analysis.attribution import attribute
from harness.analysis.human import mathur_outliers, wmt21_human_correlations
from harness.analysis.significance import significance_from_files
from harness.bleu.profiles import PROFILES
from harness.cli import inputs, options
from harness.report import console
from harness.report.human import human_markdown


# ---------------------------------------------------------------------- explain
def add_explain(sub: options.Subcommands) -> None:
    """Register ``explain``."""
    e = sub.add_parser("explain", help="attribute the gap between two profiles to factors")
    e.add_argument("--a", required=True, help="profile A (the gap is B - A)")
    e.add_argument("--b", required=True, help="profile B")
    e.add_argument("--fixture", help="a built-in fixture (see: bleu-harness fixtures)")
    e.add_argument("--system", help="the fixture's system, when it has several")
    e.add_argument("files", nargs="*", help="HYP_FILE REF_FILE [REF_FILE ...] instead of --fixture")
    e.add_argument("--segment", help="attribute one segment's sentence-level gap (segment id)")
    e.add_argument(
        "--library", help="also run this real library with B's config: residual = library - B"
    )
    e.add_argument("--json", action="store_true")
    options.add_perf(e)
    e.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    """Shapley attribution of the gap between two profiles to the factors that differ."""
    corpus = inputs.one_corpus(args)
    att = attribute(
        corpus,
        args.a,
        args.b,
        segment=args.segment,
        library=args.library,
        session=options.session(args),
    )
    if args.json:
        options.print_json(att.to_dict())
    else:
        print(console.attribution_text(att))
    return 0


# ---------------------------------------------------------------------- significance
def add_significance(sub: options.Subcommands) -> None:
    """Register ``significance``."""
    g = sub.add_parser("significance", help="paired bootstrap / approximate randomisation")
    g.add_argument("baseline", help="baseline hypothesis file")
    g.add_argument("system", help="system hypothesis file")
    g.add_argument("refs", nargs="+", help="reference files")
    g.add_argument("--profile", default="sacrebleu", choices=sorted(PROFILES))
    g.add_argument("--method", default="bootstrap", choices=["bootstrap", "ar"])
    g.add_argument(
        "--resamples", type=options.int_at_least(1), default=None, help="resamples / trials"
    )
    g.add_argument("--seed", type=options.SEED, default=12345)
    g.add_argument("--json", action="store_true")
    options.add_progress(g)
    options.add_perf(g)
    g.set_defaults(func=cmd_significance)


def cmd_significance(args: argparse.Namespace) -> int:
    """Paired bootstrap or approximate randomisation between two systems."""
    result = significance_from_files(
        args.baseline,
        args.system,
        args.refs,
        profile=args.profile,
        method=args.method,
        resamples=args.resamples,
        seed=args.seed,
        progress=options.progress(args),
        session=options.session(args),
    )
    d = result.to_dict()
    if args.json:
        options.print_json(d)
    else:
        lo, hi = d["ci_system"]
        print(f"method: {d['method']}  resamples: {d['resamples']}  seed: {d['seed']}")
        print(f"baseline: {d['score_baseline']:.2f}")
        print(f"system:   {d['score_system']:.2f}  (95% CI {lo:.2f}–{hi:.2f})")
        print(f"delta:    {d['score_system'] - d['score_baseline']:+.2f}  p = {d['p_value']:.4f}")
        print(f"signature: {d['signature']}")
    return 0


# ---------------------------------------------------------------------- human
def add_human(sub: options.Subcommands) -> None:
    """Register ``human``."""
    h = sub.add_parser("human", help="BLEU vs human judgments (WMT21 MQM, WMT19 DA)")
    h.add_argument("--impl", action="append", help="profiles (comma-separated; default all)")
    h.add_argument("--wmt19", action="store_true", help="add WMT19 DA with Mathur outliers")
    h.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    h.add_argument(
        "--n-boot",
        type=options.int_at_least(0),
        default=1000,
        help="bootstrap resamples for the CIs (0: no CIs)",
    )
    h.add_argument("--seed", type=options.SEED, default=0)
    h.add_argument("--json", action="store_true")
    options.add_progress(h)
    options.add_perf(h)
    h.set_defaults(func=cmd_human)


def cmd_human(args: argparse.Namespace) -> int:
    """BLEU vs human judgments: WMT21 en→de MQM, and WMT19 system-level DA with outliers."""
    impls = None
    if args.impl:
        impls = [x for item in args.impl for x in item.split(",") if x]
    res = wmt21_human_correlations(
        args.data,
        impls,
        n_boot=args.n_boot,
        seed=args.seed,
        progress=options.progress(args),
        session=options.session(args),
    )
    wmt19 = mathur_outliers(args.data) if args.wmt19 else None
    if args.json:
        options.print_json({"wmt21": res.to_dict(), "wmt19_outliers": wmt19})
    else:
        print(human_markdown(res, wmt19))
    return 0
