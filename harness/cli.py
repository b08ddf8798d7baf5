"""``bleu-harness``: the command line.

Subcommands: ``score`` (one corpus from files), ``compare`` (fixtures × implementations → a
tidy table), ``fixtures`` (list/show the shipped fixtures), ``profiles`` (every profile and its
signature), ``demo`` (what ``make demo`` runs). Every error the harness raises deliberately
ends the program with exit code 2 and a one-line message that names the file, line or option.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import engine, runner
from .api import resolve_config
from .errors import HarnessError, InputError
from .profiles import PROFILES

_OVERRIDE_FLAGS = {
    "tokenize": str,
    "smooth": str,
    "smooth_value": float,
    "max_order": int,
    "ref_length": str,
    "ngram_totals": str,
    "aggregation": str,
}


def _add_overrides(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("factor overrides (change one factor of the profile)")
    for name, typ in _OVERRIDE_FLAGS.items():
        g.add_argument("--" + name.replace("_", "-"), dest=name, type=typ, default=None)
    g.add_argument("--lowercase", dest="lowercase", action="store_true", default=None)
    g.add_argument("--effective-order", dest="effective_order", action="store_true", default=None)


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    keys = [*_OVERRIDE_FLAGS, "lowercase", "effective_order"]
    return {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict | MappingProxyType):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    return obj


def _print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False))


# ---------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> int:
    from .io import load_text_corpus

    corpus = load_text_corpus(args.hyp, args.refs)
    overrides = _overrides(args)
    if args.impl:
        from .adapters import get_adapter

        adapter = get_adapter(args.impl)
        avail = adapter.available()
        if not avail.ok:
            from .errors import AdapterUnavailable

            raise AdapterUnavailable(args.impl, avail.reason, avail.hint)
        config = resolve_config(args.profile or adapter.default_config(), **overrides)
        if args.level == "segment":
            results = adapter.segments(corpus, config)
        else:
            results = [adapter.corpus(corpus, config)]
    else:
        config = resolve_config(args.profile or "sacrebleu", **overrides)
        label = f"harness:{args.profile or 'sacrebleu'}"
        if args.level == "segment":
            results = engine.segment_scores(corpus, config, implementation=label)
        else:
            results = [engine.corpus_score(corpus, config, implementation=label)]
    if args.json:
        payload = [r.to_dict() for r in results]
        _print_json(payload[0] if args.level == "corpus" else payload)
    else:
        for r in results:
            prefix = f"{r.segment_id}\t" if r.level == "segment" else ""
            print(f"{prefix}{r.format()}")
        if args.level == "corpus":
            print(f"signature: {results[0].signature}")
            print(f"implementation: {results[0].implementation}")
    return 0


# ---------------------------------------------------------------------- compare
def _corpora(args: argparse.Namespace) -> list[tuple[str, str, Any]]:
    from .fixtures import list_fixtures, load_fixture

    out = []
    names = args.fixture or ([] if args.wmt21 and not args.with_fixtures else list_fixtures())
    for name in names:
        fx = load_fixture(name)
        for system in fx.system_names:
            out.append((name, system, fx.corpus(system)))
    if args.wmt21:
        from .datasets import load_wmt21_ende

        systems = load_wmt21_ende(args.data)
        for system, corpus in systems.items():
            out.append(("wmt21_ende", system, corpus))
    return out


def _implementations(args: argparse.Namespace) -> list[runner.Implementation]:
    if not args.impl:
        return runner.default_implementations()
    specs: list[str] = []
    for item in args.impl:
        specs.extend(x for x in item.split(",") if x)
    return [runner.Implementation.parse(s) for s in specs]


def _prepare_out_dir(path: str, force: bool) -> Path:
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", file=str(out))
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError("output directory is not empty; pass --force to overwrite", file=str(out))
    out.mkdir(parents=True, exist_ok=True)
    return out


def cmd_compare(args: argparse.Namespace) -> int:
    from .io import write_json_atomic, write_text_atomic

    start = time.perf_counter()
    out_dir = _prepare_out_dir(args.out, args.force) if args.out else None
    corpora = _corpora(args)
    impls = _implementations(args)
    rows = runner.run(
        corpora, impls, levels=args.level, progress=None if args.progress is None else args.progress
    )
    took = time.perf_counter() - start
    if out_dir is not None:
        write_text_atomic(out_dir / "results.jsonl", runner.rows_to_jsonl(rows), force=True)
        write_text_atomic(out_dir / "results.csv", runner.rows_to_csv(rows), force=True)
        meta = {
            "versions": runner.versions(),
            "implementations": [i.label for i in impls],
            "levels": list(args.level),
            "corpora": [f"{f}/{s}" for f, s, _ in corpora],
            "rows": len(rows),
            "seconds": round(took, 3),
            "profiles": {name: PROFILES[name].signature() for name in PROFILES},
        }
        write_json_atomic(out_dir / "meta.json", meta, force=True)
    if args.json:
        _print_json(rows)
    else:
        print(runner.summary_table(rows))
        print()
        problems = sorted(
            {
                (r["implementation"], r["status"], r["error"])
                for r in rows
                if r["status"] not in ("ok",)
            }
        )
        for impl, status, err in problems[: args.max_notes]:
            print(f"note: {impl}: {status}: {err}")
        if len(problems) > args.max_notes:
            print(f"note: … {len(problems) - args.max_notes} more (see the results table)")
        print(f"{len(rows)} rows in {took:.2f} s" + (f"; written to {out_dir}/" if out_dir else ""))
    return 0


# ---------------------------------------------------------------------- fixtures / profiles
def cmd_fixtures(args: argparse.Namespace) -> int:
    from .fixtures import list_fixtures, load_fixture

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
            _print_json(rows)
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
        "provenance": dict(fx.provenance),
        "claim": fx.claim,
        "tags": list(fx.tags),
        "ids": list(fx.ids),
        "references": [list(r) for r in fx.references],
        "systems": {k: list(v) for k, v in fx.systems.items()},
    }
    if args.json:
        _print_json(data)
    else:
        print(f"{fx.name}: {fx.description}")
        print(f"source: {json.dumps(fx.provenance, ensure_ascii=False)}")
        if fx.claim:
            print(f"claim: {json.dumps(fx.claim, ensure_ascii=False)}")
        for i, sid in enumerate(fx.ids):
            print(f"[{sid}]")
            for ref in fx.references[i]:
                print(f"  ref: {ref}")
            for system, hyps in fx.systems.items():
                print(f"  {system}: {hyps[i]}")
    return 0


def cmd_profiles(args: argparse.Namespace) -> int:
    data = {name: cfg.signature() for name, cfg in PROFILES.items()}
    if args.json:
        _print_json(data)
    else:
        for name, sig in data.items():
            print(f"{name:<24} {sig}")
    return 0


# ---------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    print("bleu-harness demo: every profile and every real library on the seed fixtures\n")
    ns = argparse.Namespace(
        fixture=None,
        wmt21=False,
        with_fixtures=True,
        impl=None,
        level=["corpus"],
        out=None,
        force=False,
        json=False,
        data=None,
        progress=False,
        max_notes=12,
    )
    cmd_compare(ns)
    data = os.environ.get("BLEU_HARNESS_DATA")
    if data and Path(data).is_dir():
        print("\nWMT21 en→de newstest2021 (3 references, 20 systems), corpus level:\n")
        ns = argparse.Namespace(
            fixture=[],
            wmt21=True,
            with_fixtures=False,
            level=["corpus"],
            out=None,
            impl=[
                "profile:sacrebleu,adapter:sacrebleu,profile:nltk,adapter:nltk,"
                "profile:evaluate,profile:torchmetrics,profile:sacrebleu-sentence"
            ],
            force=False,
            json=False,
            data=data,
            progress=None,
            max_notes=5,
        )
        cmd_compare(ns)
    else:
        print("\n(WMT21: set BLEU_HARNESS_DATA to ../shared/data to include real MT data)")
    return 0


# ---------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bleu-harness", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("score", help="score one hypothesis file against reference files")
    s.add_argument("hyp", help="hypothesis file, one segment per line (UTF-8, LF)")
    s.add_argument("refs", nargs="+", help="reference files, line-aligned with the hypotheses")
    who = s.add_mutually_exclusive_group()
    who.add_argument(
        "--profile", choices=sorted(PROFILES), help="in-house profile (default sacrebleu)"
    )
    who.add_argument("--impl", help="a real library adapter (sacrebleu, nltk, evaluate, …)")
    s.add_argument("--level", choices=["corpus", "segment"], default="corpus")
    s.add_argument("--json", action="store_true", help="print JSON instead of a one-line summary")
    _add_overrides(s)
    s.set_defaults(func=cmd_score)

    c = sub.add_parser("compare", help="fixtures × implementations → a tidy results table")
    c.add_argument("--fixture", action="append", help="fixture name (repeatable; default all)")
    c.add_argument(
        "--impl",
        action="append",
        help="profile:NAME or adapter:NAME, comma-separated or repeated (default: all)",
    )
    c.add_argument("--level", nargs="+", choices=["corpus", "segment"], default=["corpus"])
    c.add_argument("--wmt21", action="store_true", help="add WMT21 en→de (needs the data dir)")
    c.add_argument(
        "--with-fixtures", action="store_true", help="with --wmt21: also run the built-in fixtures"
    )
    c.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    c.add_argument("--out", help="write results.jsonl, results.csv, meta.json into this directory")
    c.add_argument("--force", action="store_true", help="overwrite a non-empty --out directory")
    c.add_argument("--json", action="store_true", help="print the rows as JSON")
    c.add_argument("--progress", dest="progress", action="store_true", default=None)
    c.add_argument("--no-progress", dest="progress", action="store_false")
    c.add_argument("--max-notes", type=int, default=20)
    c.set_defaults(func=cmd_compare)

    f = sub.add_parser("fixtures", help="list or show the shipped fixtures")
    f.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    f.add_argument("name", nargs="?")
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_fixtures)

    pr = sub.add_parser("profiles", help="list the profiles and their signatures")
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=cmd_profiles)

    d = sub.add_parser("demo", help="what `make demo` runs")
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bleu-harness`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HarnessError as exc:
        print(f"bleu-harness: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
