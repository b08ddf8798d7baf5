"""``bleu-harness compare`` (fixtures × implementations → a results table), ``fixtures`` (list
or show the shipped fixtures), ``profiles`` (every profile and its signature) and ``demo``
(what ``make demo`` runs)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from harness.analysis.answer import Answer, answer
from harness.analysis.library_agreement import library_agreement
from harness.bleu import native
from harness.bleu.profiles import (
    DEFAULT_PROFILES,
    FIELDS,
    MACHINE_TRANSLATION,
    PROFILES,
    RELEASES,
    VERSIONED,
    verification,
)
from harness.cli import inputs, options
from harness.data.corpus import Corpus
from harness.data.datasets import load_wmt21_ende
from harness.data.fixtures import list_fixtures, load_fixture
from harness.errors import InputError
from harness.report import cli_words, console
from harness.report.answer_words import findings
from harness.report.outdir import OutputDir
from harness.run import runner
from harness.run.library_sample import SPOT_CHECK
from harness.run.plan import RunPlan
from harness.run.runner import run
from harness.scorers import DEFAULT_ADAPTERS
from harness.session import Session, open_cache
from harness.session.cache import default_cache_dir
from harness.session.results import ResultsCache
from harness.typed_json import to_json


# ---------------------------------------------------------------------- compare
def add_compare(sub: options.Subcommands) -> None:
    """Register ``compare``."""
    c = sub.add_parser(
        "compare",
        help="your files (or the fixtures) × every implementation: scores, gaps and why",
        description="On your files (HYP ... --refs REF ..., --jsonl, --tsv): every library's "
        "BLEU (its verified in-house profile; the real sacrebleu, or with --all-libraries every "
        "installed library, spot-checked against it), "
        "implementations that print the same number folded together, each gap to the "
        "baseline split into the factors that cause it, and whether the system ranking "
        "changes. Without files: the built-in fixtures (or --wmt21) as a results table.",
    )
    inputs.add_user_files(c)
    c.add_argument(
        "--all-libraries",
        action="store_true",
        help="on your files: run every installed library (default: the real sacrebleu only; "
        "every other number comes from the library's profile, proven equal to it)",
    )
    options.add_real(c, default=None)
    c.add_argument(
        "--baseline",
        default="sacrebleu",
        choices=sorted(PROFILES),
        help="on your files: the profile gaps are measured from (default sacrebleu)",
    )
    c.add_argument("--fixture", action="append", help="fixture name (repeatable; default all)")
    c.add_argument(
        "--impl",
        type=options.impl_list,
        action="extend",
        help="profile:NAME or adapter:NAME, comma-separated or repeated (default: every "
        "machine-translation profile and library; on your files those profiles and the real "
        "sacrebleu; the code-summarization variants when named, e.g. profile:codesum-fc)",
    )
    c.add_argument(
        "--level",
        nargs="+",
        choices=["corpus", "segment"],
        default=["corpus"],
        help="corpus and/or segment (sentence) scores in the table (default: corpus)",
    )
    c.add_argument("--wmt21", action="store_true", help="add WMT21 en→de (needs the data dir)")
    c.add_argument(
        "--with-fixtures", action="store_true", help="with --wmt21: also run the built-in fixtures"
    )
    c.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    inputs.add_limit(c)
    c.add_argument("--out", help="write results.jsonl, results.csv, meta.json into this directory")
    c.add_argument(
        "--force", action="store_true", help="replace an earlier bleu-harness output in --out"
    )
    c.add_argument("--json", action="store_true", help="print the rows as JSON")
    c.add_argument(
        "--max-notes",
        type=options.int_at_least(0),
        default=20,
        help="fixtures table: print at most this many notes on implementations without a "
        "number (default 20; the rest are counted)",
    )
    options.add_seed(
        c, "the spot check's draw and the paired bootstrap of each reversed system pair"
    )
    options.add_perf(c)
    options.add_progress(c)
    c.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """Fixtures × implementations → a results table, printed and, with --out, written."""
    if args.out:
        # Claimed (locked, checked) before the run, so a bad --out fails at once.
        with OutputDir(args.out, force=args.force, command="compare") as out:
            return _compare(args, out)
    return _compare(args, None)


def _compare(args: argparse.Namespace, out: OutputDir | None) -> int:
    start = time.perf_counter()
    corpora = inputs.corpora(args)
    # One set of systems against the same references (the user's files, or WMT21 alone) is
    # answered in sentences; fixtures get the results table.
    groups = {f for f, _, _ in corpora}
    users = corpora if groups in ({inputs.USER_FILES}, {"wmt21_ende"}) else []
    impls = (
        _user_implementations(args.all_libraries)
        if users and not args.impl
        else inputs.implementations(args)
    )
    baseline = _baseline(args.baseline, impls) if users and "corpus" in args.level else None
    plan = options.plan(args, corpora, impls, answer_baseline=baseline, fixtures=not users)
    return _show(
        plan, users, baseline, start=start, out=out, as_json=args.json, notes=args.max_notes
    )


def _show(
    plan: RunPlan,
    users: list[tuple[str, str, Corpus]],
    baseline: str | None,
    *,
    start: float,
    out: OutputDir | None,
    as_json: bool,
    notes: int,
) -> int:
    """Run ``plan``; answer in sentences when ``baseline`` is given (the ``users`` systems
    share their references), else print the results table; write ``out``."""
    out_dir = None if out is None else out.path
    rows = run(plan)
    ans = None
    if baseline is not None:
        # the run's one session: the statistics the runner counted are the ones the answer reads
        scope = plan.session.with_corpora({s: c for _, s, c in users})
        ans = answer(rows, scope, baseline=baseline, seed=plan.seed)
    took = time.perf_counter() - start
    if out is not None:
        if ans is not None:
            out.write_json("answer.json", _answer_json(ans))
        out.write_text("results.jsonl", runner.rows_to_jsonl(rows))
        out.write_text("results.csv", runner.rows_to_csv(rows))
        meta = {
            "versions": runner.versions(),
            "implementations": [i.label for i in plan.implementations],
            "levels": list(plan.levels),
            "limit": plan.limit,
            "corpora": [f"{f}/{s}" for f, s, _ in plan.corpora],
            "rows": len(rows),
            "seconds": round(took, 3),
            "profiles": {name: PROFILES[name].signature() for name in PROFILES},
        }
        out.write_json("meta.json", meta)
        out.commit()
    if as_json:
        every = rows.rows()
        options.print_json(every if ans is None else {"answer": _answer_json(ans), "rows": every})
    elif ans is not None:
        print(console.answer_text(ans, what=_what(users)))
        print("\n" + cli_words.rows_footer(len(rows), took, out_dir))
    else:
        table = console.summary_table(rows)
        # A table wider than the console becomes one line per fixture system.
        if max(len(line) for line in table.splitlines()) > console.WIDTH:
            table = console.fixtures_text(
                rows, seconds=time.perf_counter() - start, agreement=library_agreement(rows)
            )
        print(table)
        print()
        problems = sorted(
            {
                (impl, status, err)
                for impl, status, err in rows.distinct("implementation", "status", "error")
                if status != "ok"
            }
        )
        for line in cli_words.run_notes(problems, notes):
            print(console.wrap(line, indent="  "))
        print(cli_words.rows_footer(len(rows), took, out_dir))
    return 0


def _user_implementations(every_library: bool) -> list[runner.Implementation]:
    """On the user's files: every default profile, the real sacrebleu, and with
    ``--all-libraries`` every library adapter."""
    adapters = DEFAULT_ADAPTERS if every_library else ("sacrebleu",)
    return [runner.Implementation("profile", p) for p in DEFAULT_PROFILES] + [
        runner.Implementation("adapter", a) for a in adapters
    ]


def _baseline(wanted: str, impls: list[runner.Implementation]) -> str:
    """``wanted`` (``--baseline``) when it is run, else the first profile run (InputError:
    none)."""
    profiles = [i.name for i in impls if i.kind == "profile"]
    if wanted in profiles:
        return wanted
    if not profiles:
        raise InputError(
            "on your files compare explains gaps between profiles: give at least one "
            "profile:NAME in --impl (the libraries' own numbers are checked against them)"
        )
    return profiles[0]


def _answer_json(ans: Answer) -> dict[str, Any]:
    """The answer as data, with its findings in words before the families."""
    items = list(to_json(ans).items())
    at = [k for k, _ in items].index("families")
    return dict([*items[:at], ("findings", findings(ans)), *items[at:]])


def _what(users: list[tuple[str, str, Any]]) -> str:
    """The user's input as a short phrase: its files, or the data set."""
    if users[0][0] != inputs.USER_FILES:
        return "WMT21 en→de newstest2021" if users[0][0] == "wmt21_ende" else users[0][0]
    prov = users[0][2].provenance
    if "references" in prov:
        hyps = [c.provenance.get("hypotheses", s) for _, s, c in users]
        return f"{', '.join(hyps)} against {', '.join(prov['references'])}"
    return str(prov.get("jsonl") or prov.get("tsv") or "your files")


# ---------------------------------------------------------------------- fixtures / profiles
def add_fixtures(sub: options.Subcommands) -> None:
    """Register ``fixtures``."""
    f = sub.add_parser("fixtures", help="list or show the shipped fixtures")
    f.add_argument(
        "action",
        nargs="?",
        choices=["list", "show"],
        default="list",
        help="list: one line per fixture (default); show NAME: its segments and systems",
    )
    f.add_argument("name", nargs="?", help="the fixture to show (see: bleu-harness fixtures list)")
    f.add_argument("--json", action="store_true", help="print JSON")
    f.set_defaults(func=cmd_fixtures)


def cmd_fixtures(args: argparse.Namespace) -> int:
    """One line per shipped fixture, or one fixture's segments, references and systems."""
    if args.action == "list" or args.action is None:
        rows = []
        for name in list_fixtures():
            fx = load_fixture(name)
            rows.append(
                {
                    "name": name,
                    "segments": len(fx.ids),
                    "systems": list(fx.system_names),
                    "source": fx.provenance.get("source", ""),
                    "tags": list(fx.tags),
                }
            )
        if args.json:
            options.print_json(rows)
        else:
            for r in rows:
                print(
                    f"{r['name']:<40} {r['segments']:>3} seg  {','.join(r['systems']):<28} "
                    f"{r['source']}"
                )
        return 0
    if not args.name:
        raise InputError("fixtures show needs a fixture name (see: bleu-harness fixtures list)")
    fx = load_fixture(args.name)
    data = {
        "name": fx.name,
        "description": fx.description,
        "provenance": to_json(fx.provenance),
        "claim": to_json(fx.claim),
        "tags": list(fx.tags),
        "ids": list(fx.ids),
        "references": [list(r) for r in fx.references],
        "systems": {k: list(v) for k, v in fx.systems.items()},
    }
    if args.json:
        options.print_json(data)
    else:
        print(f"{fx.name}: {fx.description}")
        print(f"source: {json.dumps(data['provenance'], ensure_ascii=False)}")
        if fx.claim:
            print(f"claim: {json.dumps(data['claim'], ensure_ascii=False)}")
        for i, sid in enumerate(fx.ids):
            print(f"[{sid}]")
            for ref in fx.references[i]:
                print(f"  ref: {ref}")
            for system, hyps in fx.systems.items():
                print(f"  {system}: {hyps[i]}")
    return 0


def add_profiles(sub: options.Subcommands) -> None:
    """Register ``profiles``."""
    pr = sub.add_parser("profiles", help="list the profiles and their signatures")
    pr.add_argument("--json", action="store_true", help="print JSON")
    pr.set_defaults(func=cmd_profiles)


def cmd_profiles(args: argparse.Namespace) -> int:
    """Every profile: its signature, its field, and whether and against what it is proven."""
    data = {}
    for name, cfg in PROFILES.items():
        v = verification(name)
        data[name] = {
            "signature": cfg.signature(),
            "field": FIELDS[name],
            "releases": RELEASES.get(name, ""),
            "versioned": name in VERSIONED,
            "status": v.status,
            "oracle": v.oracle,
            "evidence": v.evidence,
            "tolerance": v.tolerance,
        }
    if args.json:
        options.print_json(data)
    else:
        width = max(map(len, data))  # the longest name: the columns stay aligned
        for name, row in data.items():
            other_field = row["field"] if row["field"] != MACHINE_TRANSLATION else None
            if row["versioned"]:
                other_field = "an older release"
            lines = cli_words.profile_lines(
                name,
                width,
                str(row["status"]),
                str(row["signature"]),
                str(row["oracle"]),
                str(row["evidence"]),
                None if other_field is None else str(other_field),
                releases=str(row["releases"]),
            )
            print("\n".join(lines))
    return 0


# ---------------------------------------------------------------------- demo
def add_demo(sub: options.Subcommands) -> None:
    """Register ``demo``."""
    d = sub.add_parser("demo", help="what `make demo` runs")
    d.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    """Every profile and every real library on the seed fixtures (one line per fixture
    system), then the answer screen of ``compare`` on WMT21 when the data is there."""
    start = time.perf_counter()
    corpora = [
        (name, system, fx.corpus(system))
        for name in list_fixtures()
        for fx in [load_fixture(name)]
        for system in fx.system_names
    ]
    impls = runner.default_implementations()
    rows = run(RunPlan.of(corpora, impls))
    print(
        console.fixtures_text(
            rows, seconds=time.perf_counter() - start, agreement=library_agreement(rows)
        )
    )
    sources = sorted({(r.implementation, r.module_source) for r in rows if r.module_source})
    for impl, source in sources:
        print(f"note: {impl}: module {source}")
    print(f"note: statistics kernels: {native.status()}")

    data = os.environ.get("BLEU_HARNESS_DATA")
    if data and Path(data).is_dir():
        print("\n" + "=" * 36 + " WMT21 en→de newstest2021 " + "=" * 36 + "\n")
        _demo_wmt21(data)
    else:
        print(cli_words.WMT21_MISSING)
    return 0


def _demo_wmt21(data: str) -> int:
    """``compare --wmt21`` as the demo runs it: the answer screen over the 20 systems (every
    profile, and the real sacrebleu on compare's default spot check), with the statistics and
    results caches on disk."""
    start = time.perf_counter()
    corpora = [("wmt21_ende", s, c) for s, c in load_wmt21_ende(data).items()]
    impls = _user_implementations(every_library=False)
    cache_dir = default_cache_dir()
    plan = RunPlan(
        tuple(corpora),
        tuple(impls),
        session=Session(cache=open_cache(cache_dir)),
        results=ResultsCache(Path(cache_dir) / "results"),
        libraries=SPOT_CHECK,
        progress=None,
    )
    baseline = _baseline("sacrebleu", impls)
    return _show(plan, corpora, baseline, start=start, out=None, as_json=False, notes=5)
