"""``bleu-harness score``: one hypothesis file against reference files, by an in-house profile
(with factor overrides) or by a real library."""

from __future__ import annotations

import argparse
from typing import Any

from harness.api import resolve_config
from harness.bleu.profiles import PROFILES, verification
from harness.cli import options
from harness.data.io import load_text_corpus
from harness.errors import AdapterUnavailable
from harness.scorers import LIBRARY_ADAPTERS, EngineScorer, Scorer, get_adapter


def add_score(sub: options.Subcommands) -> None:
    """Register ``score`` on the subcommand parsers ``sub``."""
    s = sub.add_parser("score", help="score one hypothesis file against reference files")
    s.add_argument("hyp", help="hypothesis file, one segment per line (UTF-8, LF)")
    s.add_argument("refs", nargs="+", help="reference files, line-aligned with the hypotheses")
    who = s.add_mutually_exclusive_group()
    who.add_argument(
        "--profile", choices=sorted(PROFILES), help="in-house profile (default sacrebleu)"
    )
    who.add_argument("--impl", help=f"a real library adapter ({', '.join(LIBRARY_ADAPTERS)})")
    s.add_argument("--level", choices=["corpus", "segment"], default="corpus")
    s.add_argument("--json", action="store_true", help="print JSON instead of a one-line summary")
    options.add_overrides(s)
    options.add_perf(s)
    s.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    """Score the corpus; print one line per result, the signature and how it is proven."""
    corpus = load_text_corpus(args.hyp, args.refs)
    overrides = options.overrides(args)
    scorer: Scorer
    if args.impl:
        scorer = get_adapter(args.impl)
        avail = scorer.available()
        if not avail.ok:
            raise AdapterUnavailable(args.impl, avail.reason, avail.hint)
    else:
        scorer = EngineScorer(args.profile or "sacrebleu", statistics=options.make_cache(args).get)
    config = resolve_config(args.profile or scorer.default_config(), **overrides)
    if args.level == "segment":
        results = scorer.segments(corpus, config)
    else:
        results = [scorer.corpus(corpus, config)]
    proof = _verification_note(args, overrides)
    if args.json:
        payload = [r.to_dict() for r in results]
        if args.level == "corpus":
            options.print_json({**payload[0], "verification": proof})
        else:
            options.print_json(payload)
    else:
        for r in results:
            prefix = f"{r.segment_id}\t" if r.level == "segment" else ""
            print(f"{prefix}{r.format()}")
        if args.level == "corpus":
            print(f"signature: {results[0].signature}")
            print(f"implementation: {results[0].implementation}")
            print(f"verification: {proof}")
    return 0


def _verification_note(args: argparse.Namespace, overrides: dict[str, Any]) -> str:
    """How the number just printed is proven: the real library ran, or the profile's status."""
    if args.impl:
        return f"the real library ({args.impl}) computed this score"
    name = args.profile or "sacrebleu"
    note = verification(name).label()
    if overrides:
        changed = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        note += f"; profile {name} with overrides {changed}"
    return note
