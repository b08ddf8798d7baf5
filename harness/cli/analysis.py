"""``bleu-harness explain`` (Shapley attribution of the gap between two profiles),
``significance`` (paired bootstrap / approximate randomisation between two systems) and
``human`` (BLEU against human judgments)."""

from __future__ import annotations

import argparse
from typing import Any

from harness.analysis.attribution import attribute
from harness.analysis.human import mathur_outliers, wmt21_human_correlations
from harness.analysis.meta_eval import MetaEvalOptions, meta_evaluate
from harness.analysis.resampling import prepare
from harness.analysis.significance import PairedTest, against_best, significance_from_files
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.cli import inputs, options
from harness.data.systems import load_human_scores, load_text_systems
from harness.errors import HarnessError, InputError
from harness.report import cli_words, console
from harness.report.human_tables import human_markdown
from harness.statistics.correlation import KENDALL_FULL_BOOT_MAX, BootstrapOptions, correlate
from harness.typed_json import to_json


# ---------------------------------------------------------------------- explain
def add_explain(sub: options.Subcommands) -> None:
    """Register ``explain``."""
    e = sub.add_parser("explain", help="attribute the gap between two profiles to factors")
    e.add_argument("--a", required=True, help="profile A (the gap is B - A)")
    e.add_argument("--b", required=True, help="profile B")
    e.add_argument("--fixture", help="a built-in fixture (see: bleu-harness fixtures)")
    e.add_argument("--system", help="the fixture's system, when it has several")
    e.add_argument("files", nargs="*", help="HYP_FILE REF_FILE [REF_FILE ...] instead of --fixture")
    options.add_bom(e)
    e.add_argument("--segment", help="attribute one segment's sentence-level gap (segment id)")
    e.add_argument(
        "--library", help="also run this real library with B's config: residual = library - B"
    )
    e.add_argument("--json", action="store_true", help="print JSON")
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
        options.print_json(att)
    else:
        print(console.attribution_text(att))
    return 0


# ---------------------------------------------------------------------- significance
def add_significance(sub: options.Subcommands) -> None:
    """Register ``significance``."""
    g = sub.add_parser(
        "significance",
        help="paired bootstrap / approximate randomisation",
        description="Two forms: BASELINE SYSTEM REF [REF ...] tests SYSTEM against BASELINE; "
        "HYP [HYP ...] --refs REF [REF ...] tests every system against the best one (or "
        "against --baseline NAME), on statistics counted once per system.",
    )
    g.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="BASELINE SYSTEM REF [REF ...], or hypothesis files (one system each) with --refs",
    )
    g.add_argument(
        "--refs",
        nargs="+",
        metavar="REF",
        help="reference files: every FILE is then a system, each tested against the best",
    )
    g.add_argument(
        "--baseline",
        metavar="NAME",
        help="with --refs: the system (file stem) the others are tested against "
        "(default: the one with the highest score)",
    )
    g.add_argument(
        "--profile",
        default="sacrebleu",
        choices=sorted(PROFILES),
        help="the BLEU variant compared (default sacrebleu)",
    )
    g.add_argument(
        "--method",
        default="bootstrap",
        choices=["bootstrap", "ar"],
        help="bootstrap: Koehn's paired bootstrap (1000 resamples); ar: approximate "
        "randomisation (10000 trials); p-values and CIs as sacrebleu defines them",
    )
    g.add_argument(
        "--resamples",
        type=options.int_at_least(1),
        default=None,
        help="bootstrap resamples / AR trials (default 1000 / 10000)",
    )
    options.add_seed(g, "the resampling")
    g.add_argument("--json", action="store_true", help="print JSON")
    options.add_bom(g)
    options.add_progress(g)
    options.add_perf(g)
    g.set_defaults(func=cmd_significance)


def cmd_significance(args: argparse.Namespace) -> int:
    """Paired bootstrap or approximate randomisation: two systems, or every system against
    the best (``--refs``)."""
    if args.refs:
        return _significance_many(args)
    if args.baseline:
        raise InputError("--baseline NAME goes with --refs (several systems against one)")
    if len(args.files) < 3:
        raise InputError("significance needs BASELINE SYSTEM REF [REF ...] or HYP ... --refs REF")
    baseline, system, *refs = args.files
    result = significance_from_files(
        baseline,
        system,
        refs,
        profile=args.profile,
        test=PairedTest(method=args.method, resamples=args.resamples, seed=args.seed),
        progress=options.progress(args),
        session=options.session(args),
        bom=args.bom,
    )
    d = to_json(result)
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


def _significance_many(args: argparse.Namespace) -> int:
    """Every system against the best (or ``--baseline``), one paired test each."""
    systems = load_text_systems(args.files, args.refs, bom=args.bom)
    if len(systems) < 2:
        raise InputError("significance needs at least two hypothesis files to compare")
    config = PROFILES[args.profile]
    session = options.session(args).with_corpora(systems)
    if args.baseline is not None and args.baseline not in systems:
        raise InputError(
            f"--baseline {args.baseline!r} is not one of the systems: {', '.join(systems)}"
        )
    tables = {name: prepare(session.statistics(config, name), config) for name in systems}
    default = 1000 if args.method == "bootstrap" else 10000
    base, results = against_best(
        tables,
        config,
        resamples=args.resamples or default,
        seed=args.seed,
        baseline=args.baseline,
        method=args.method,
    )
    scores = {name: tables[name].score for name in systems}
    if args.json:
        options.print_json({"baseline": base, "tests": results})
        return 0
    first = next(iter(results.values()))
    heading = cli_words.significance_heading(
        args.baseline is None,
        base,
        scores[base],
        args.profile,
        first.method,
        first.resamples,
        first.seed,
    )
    print(console.wrap(heading))
    print()
    body = []
    for name, r in sorted(results.items(), key=lambda kv: -kv[1].score_system):
        ci = "—" if r.ci_system is None else f"{r.ci_system[0]:.2f}–{r.ci_system[1]:.2f}"
        star = " *" if r.p_value < 0.05 else ""
        body.append(
            [name, f"{r.score_system:.2f}", ci, f"{r.delta:+.2f}", f"{r.p_value:.4f}{star}"]
        )
    print(
        "\n".join(
            console.text_table(
                ["system", "BLEU", "95% CI", f"vs {base}", "p"], body, align="lrrrr", wrap_col=0
            )
        )
    )
    print(f"\nsignature: {first.signature}")
    return 0


# ---------------------------------------------------------------------- human
def _human_files(args: argparse.Namespace, systems: dict[str, Any], impls: list[str] | None) -> int:
    """Each profile's system-level BLEU of the user's systems against their human scores."""
    if not systems:
        raise InputError("--scores goes with your systems: HYP [HYP ...] --refs REF [REF ...]")
    if not args.scores:
        raise InputError("human on your files needs --scores FILE (system<TAB>score)")
    if args.wmt19:
        raise InputError("--wmt19 is the WMT19 data set; it does not go with your files")
    human = load_human_scores(args.scores, list(systems), bom=args.bom)
    if len(systems) < 3:
        raise InputError(f"a correlation needs at least 3 systems; got {len(systems)}")
    names = impls or list(DEFAULT_PROFILES)
    for n in names:
        if n not in PROFILES:
            raise InputError(f"unknown profile {n!r}; valid: {', '.join(PROFILES)}")
    session = options.session(args).with_corpora(systems)
    vectors: dict[str, tuple[float | None, ...]] = {}
    for n in names:
        row: list[float | None] = []
        for s in systems:
            try:
                row.append(session.score(PROFILES[n], s).score)
            except HarnessError:
                row.append(None)
        vectors[n] = tuple(row)
    groups: dict[tuple[float | None, ...], list[str]] = {}
    for n, vec in vectors.items():
        groups.setdefault(vec, []).append(n)
    y = [human[s] for s in systems]
    results = []
    for vec, members in groups.items():
        corr = correlate(list(vec), y, n_boot=args.n_boot, seed=args.seed)
        results.append((members, corr))
    if args.json:
        options.print_json(
            {
                "systems": list(systems),
                "human": human,
                "bleu": {n: list(v) for n, v in vectors.items()},
                "correlations": [{"profiles": m, **to_json(c)} for m, c in results],
            }
        )
        return 0
    print(console.wrap(cli_words.human_heading(len(systems), args.scores, args.n_boot, args.seed)))
    print()
    body = []
    for members, corr in sorted(results, key=lambda mc: -(mc[1].pearson.value or -2.0)):
        cells = [_estimate(corr[m]) for m in ("pearson", "spearman", "kendall")]
        body.append([", ".join(members), *cells, str(corr.n)])
    head = ["profiles", "Pearson [95% CI]", "Spearman", "Kendall τ-b", "n"]
    print("\n".join(console.text_table(head, body, align="lrrrr")))
    return 0


def _estimate(e: Any) -> str:
    """``0.79 [0.33, 0.96]``; ``—`` with no value."""
    if e.value is None:
        return "—"
    ci = "" if e.ci_low is None else f" [{e.ci_low:.2f}, {e.ci_high:.2f}]"
    return f"{e.value:.2f}{ci}"


def add_human(sub: options.Subcommands) -> None:
    """Register ``human``."""
    h = sub.add_parser(
        "human",
        help="BLEU vs human judgments (WMT21 MQM, WMT19 DA, or your systems' scores)",
        description="Without files: WMT21 en→de MQM (and --wmt19 DA). With HYP ... --refs REF "
        "... --scores FILE: each profile's system-level BLEU of your systems against your "
        "human scores (Pearson, Spearman, Kendall τ-b with bootstrap CIs); profiles that give "
        "the same numbers share a row.",
    )
    inputs.add_user_files(h)
    h.add_argument(
        "--scores",
        metavar="FILE",
        help="with your files: system-level human scores, a TSV with the header "
        "'system<TAB>score' and one row per system (named by its file's stem)",
    )
    h.add_argument(
        "--impl",
        action="append",
        help="profiles (comma-separated; default the machine-translation profiles)",
    )
    h.add_argument("--wmt19", action="store_true", help="add WMT19 DA with Mathur outliers")
    h.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    h.add_argument(
        "--n-boot",
        type=options.int_at_least(0),
        default=1000,
        help="bootstrap resamples for the CIs (0: no CIs); Kendall's tau-b over more than "
        f"{KENDALL_FULL_BOOT_MAX} pairs has the asymptotic (delta-method) CI",
    )
    options.add_meta_resamples(h, "every two profiles")
    options.add_seed(h, "the bootstrap over systems and the permutation tests")
    h.add_argument("--json", action="store_true", help="print JSON")
    options.add_progress(h)
    options.add_perf(h)
    h.set_defaults(func=cmd_human)


def cmd_human(args: argparse.Namespace) -> int:
    """BLEU vs human judgments: WMT21 en→de MQM, and WMT19 system-level DA with outliers; or
    the user's systems against their system-level scores."""
    impls = None
    if args.impl:
        impls = [x for item in args.impl for x in item.split(",") if x]
    systems = inputs.user_systems(args)
    if systems or args.scores:
        return _human_files(args, systems, impls)
    res = wmt21_human_correlations(
        args.data,
        impls,
        bootstrap=BootstrapOptions(n_boot=args.n_boot, seed=args.seed),
        progress=options.progress(args),
        session=options.session(args),
    )
    meta_options = MetaEvalOptions(resamples=args.meta_resamples, seed=args.seed)
    meta = to_json(meta_evaluate(res, options=meta_options))
    wmt19 = mathur_outliers(args.data) if args.wmt19 else None
    if args.json:
        options.print_json({"wmt21": res, "wmt21_meta_evaluation": meta, "wmt19_outliers": wmt19})
    else:
        print(human_markdown(res, wmt19, meta))
    return 0
