"""``bleu-harness score``: one hypothesis file against reference files, by in-house profiles
(with factor overrides) and real libraries — one of them, or several side by side — with
short, citable signatures."""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

from harness.api import resolve_config
from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.profiles import PROFILES, verification
from harness.bleu.result import BleuResult
from harness.cli import options
from harness.data.corpus import Corpus
from harness.data.io import load_text_corpus
from harness.errors import AdapterUnavailable, HarnessError, InputError
from harness.report import cli_words
from harness.scorers import LIBRARY_ADAPTERS, EngineScorer, Outcome, Scorer, get_adapter, score
from harness.scorers.citation import PROGRAM, cite, library_signature, short_signature
from harness.typed_json import to_json

#: The widest line the side-by-side table aims at.
TABLE_WIDTH = 100

#: The ``score`` help's closing paragraph: what ``--cite`` prints and how to read it.
CITE_HELP = (
    "print only the citation: one line per implementation a paper can paste, e.g. "
    f"'BLEU = 27.2 (sacrebleu 2.6.0 via {PROGRAM} {ENGINE_VERSION}; "
    "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp)': the corpus score to one decimal (as "
    "sacrebleu prints it), who computed it (a real library and its version run via "
    "bleu-harness, or bleu-harness itself for a profile) and the signature that reproduces it "
    "(the library's own where it has one, as sacrebleu; else the short signature: nrefs, "
    "profile:NAME or lib:NAME, the factors that differ from its defaults). Implementations "
    "that did not score are named on stderr. Corpus level only; --json objects carry the "
    "same line as 'cite'"
)


def add_score(sub: options.Subcommands) -> None:
    """Register ``score`` on the subcommand parsers ``sub``."""
    s = sub.add_parser(
        "score",
        help="score one hypothesis file against reference files",
        formatter_class=options.HelpFormatter,
        description="Score one hypothesis file against reference files with an in-house "
        "profile (default sacrebleu) or a real library; several comma-separated --profile "
        "and --impl names score the same corpus side by side in one table.",
    )
    s.add_argument("hyp", help="hypothesis file, one segment per line (UTF-8, LF)")
    s.add_argument("refs", nargs="+", help="reference files, line-aligned with the hypotheses")
    s.add_argument(
        "--profile",
        type=options.name_list(tuple(PROFILES)),
        action="extend",
        metavar="NAME[,NAME...]",
        help="in-house profile(s), comma-separated or repeated (default sacrebleu when no "
        f"--impl is given): {', '.join(PROFILES)}",
    )
    s.add_argument(
        "--impl",
        type=options.name_list(LIBRARY_ADAPTERS, every="all"),
        action="extend",
        metavar="LIB[,LIB...]",
        help="real library adapter(s), comma-separated or repeated; 'all' = every library "
        f"adapter (one not installed here gets a row saying why): {', '.join(LIBRARY_ADAPTERS)}",
    )
    s.add_argument(
        "--level",
        choices=["corpus", "segment"],
        default="corpus",
        help="corpus score (default) or one line per segment (one implementation only)",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help="print JSON: an object (one implementation) or a list (several), each with the "
        "full signature, the short one, the library's own and the citation",
    )
    s.add_argument("--cite", action="store_true", help=CITE_HELP)
    options.add_bom(s)
    options.add_overrides(s)
    options.add_perf(s)
    s.set_defaults(func=cmd_score)


# ------------------------------------------------------------------------------ choosing
@dataclass
class Row:
    """One implementation of the run: its scorer and configuration, and what happened."""

    name: str
    scorer: Scorer
    config: BleuConfig | None
    outcome: Outcome

    @property
    def library(self) -> bool:
        return self.scorer.runs_library_code


def _scorers(args: argparse.Namespace) -> list[Scorer]:
    """The profiles (first) and library adapters named, once each; sacrebleu's profile when
    neither flag is given."""
    profiles = options.unique(args.profile)
    impls = options.unique(args.impl)
    if not profiles and not impls:
        profiles = ["sacrebleu"]
    found: list[Scorer] = []
    if profiles:
        cache = options.make_cache(args)
        found += [EngineScorer(p, statistics=cache.get) for p in profiles]
    found += [get_adapter(name) for name in impls]
    return found


def cmd_score(args: argparse.Namespace) -> int:
    """Score the corpus with every implementation named: one of them prints its line, its
    signatures and how it is proven; several print a table (see :func:`_table`)."""
    if args.cite and args.level == "segment":
        raise InputError("--cite cites a corpus score: leave out --level segment")
    corpus = load_text_corpus(args.hyp, args.refs, bom=args.bom)
    overrides = options.overrides(args)
    scorers = _scorers(args)
    if len(scorers) == 1:
        return _single(args, corpus, scorers[0], overrides)
    if args.level == "segment":
        raise InputError(
            f"--level segment scores one implementation at a time; {len(scorers)} were named "
            "(give one --profile or --impl)"
        )
    rows = [_run(s, corpus, overrides) for s in scorers]
    if args.cite:
        _print_citations(rows, corpus)
    elif args.json:
        options.print_json([_row_json(r, corpus, overrides) for r in rows])
    else:
        _table(rows, corpus, overrides)
    if not any(r.outcome.ok for r in rows):
        print(cli_words.NOTHING_SCORED, file=sys.stderr)
        return 2
    return 0


def _run(scorer: Scorer, corpus: Corpus, overrides: dict[str, Any]) -> Row:
    """Score ``corpus`` with ``scorer`` under its defaults and ``overrides``; a library that
    cannot run, cannot express the setting or raises gives a row saying so."""
    avail = scorer.available()
    try:
        config = resolve_config(scorer.default_config(), **overrides)
    except HarnessError as exc:
        failed = Outcome.failed(exc) if avail.ok else Outcome.unavailable(avail)
        return Row(scorer.name, scorer, None, failed)
    return Row(scorer.name, scorer, config, score(scorer, corpus, config))


# ------------------------------------------------------------------------------ one
def _single(
    args: argparse.Namespace, corpus: Corpus, scorer: Scorer, overrides: dict[str, Any]
) -> int:
    """One implementation: its line(s), full and short signatures, the library's own
    signature, the implementation and how the number is proven (or the citation)."""
    if scorer.runs_library_code:
        avail = scorer.available()
        if not avail.ok:
            raise AdapterUnavailable(scorer.name, avail.reason, avail.hint)
    config = resolve_config(scorer.default_config(), **overrides)
    try:
        if args.level == "segment":
            results = scorer.segments(corpus, config)
        else:
            results = [scorer.corpus(corpus, config)]
    except HarnessError:
        raise
    except Exception as exc:
        if not scorer.runs_library_code:
            raise
        # the library itself raises on this input: data, not a bug of the harness
        raise HarnessError(
            f"{scorer.name} raised {type(exc).__name__}: {exc} (the library fails on this input)"
        ) from exc
    proof = _verification_note(scorer, overrides)
    if args.json:
        if args.level == "corpus":
            row = Row(scorer.name, scorer, config, Outcome.scored(results))
            options.print_json(_row_json(row, corpus, overrides))
        else:
            options.print_json(results)
        return 0
    if args.cite:
        print(cite(scorer, config, corpus, results[0]))
        return 0
    marks: dict[str, list[str]] = {}
    for r in results:
        prefix = f"{r.segment_id}\t" if r.level == "segment" else ""
        print(f"{prefix}{_summary(r, marks)}")
    if args.level == "corpus":
        r = results[0]
        print(f"signature: {r.signature}")
        print(f"short signature: {short_signature(scorer, config, corpus)}")
        own = library_signature(scorer, r)
        if own is not None:
            print(f"library signature: {own}")
        print(f"implementation: {r.implementation}")
        print(f"verification: {proof}")
    for line in _mark_notes(marks):
        print(line)
    return 0


def _verification_note(scorer: Scorer, overrides: dict[str, Any]) -> str:
    """How the number just printed is proven: the real library ran, or the profile's status."""
    if scorer.runs_library_code:
        return cli_words.library_computed(scorer.name)
    name = str(getattr(scorer, "profile", scorer.name))
    note = verification(name).label()
    if overrides:
        changed = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        note += f"; profile {name} with overrides {changed}"
    return note


# ------------------------------------------------------------------------------ numbers
def _summary(r: BleuResult, marks: dict[str, list[str]]) -> str:
    """``r.format()``, except that precisions and a BP the library does not return are shown
    as its raw counted precisions marked ``*``, or ``n/a``; ``marks`` collects the notes."""
    if r.precisions and math.isfinite(r.bp):
        return r.format()
    prec = _precisions(r, marks)
    bp = _bp(r, marks)
    return (
        f"BLEU = {r.score:.2f} {prec} (BP = {bp} ratio = {r.ratio:.3f} hyp_len = {r.hyp_len} "
        f"ref_len = {_num(r.ref_len)})"
    )


def _precisions(r: BleuResult, marks: dict[str, list[str]]) -> str:
    if r.precisions:
        return "/".join(f"{p:.1f}" for p in r.precisions)
    raw = r.extra.get("raw_precisions")
    if raw:
        _note(marks, "raw", r.implementation)
        return "/".join(f"{p:.1f}" for p in raw) + "*"
    _note(marks, "n/a precisions", r.implementation)
    return "n/a"


def _bp(r: BleuResult, marks: dict[str, list[str]]) -> str:
    if math.isfinite(r.bp):
        return f"{r.bp:.3f}"
    _note(marks, "n/a BP", r.implementation)
    return "n/a"


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _note(marks: dict[str, list[str]], kind: str, who: str) -> None:
    if who not in marks.setdefault(kind, []):
        marks[kind].append(who)


def _mark_notes(marks: dict[str, list[str]]) -> list[str]:
    """The footnotes for the marks :func:`_summary` made."""
    out = []
    if marks.get("raw"):
        out.append(cli_words.raw_counts_note(", ".join(marks["raw"])))
    for what in ("precisions", "BP"):
        who = marks.get(f"n/a {what}")
        if who:
            out.append(cli_words.not_returned_note(what, ", ".join(who)))
    return out


# ------------------------------------------------------------------------------ several
def _status(row: Row, notes: list[str]) -> str:
    """The status cell: ``real library``, the profile's ``verified``/``unverified``, or why
    there is no number; a reason goes to ``notes`` and the cell points at it."""
    o = row.outcome
    if not o.ok:
        notes.append(f"{row.name}: {o.status}: {_with_fix(o)}")
        return f"{o.status} [{len(notes)}]"
    if row.library:
        return "real library"
    v = verification(str(getattr(row.scorer, "profile", row.name)))
    if v.verified:
        return "verified"
    notes.append(f"{row.name}: unverified: {v.evidence}")
    return f"unverified [{len(notes)}]"


def _with_fix(o: Outcome) -> str:
    """Why ``o`` has no number, with its fix once (an adapter's detail may already hold it)."""
    why = o.detail or o.message
    return why if not o.fix or o.fix in why else f"{why} (fix: {o.fix})"


def _cells(row: Row, marks: dict[str, list[str]], notes: list[str]) -> list[str]:
    status = _status(row, notes)
    if not row.outcome.ok:
        return [row.name, "-", "-", "-", "-", "-", status]
    r = row.outcome.result
    return [
        row.name,
        f"{r.score:.2f}",
        _precisions(r, marks),
        _bp(r, marks),
        f"{r.ratio:.3f}",
        f"{r.hyp_len}/{_num(r.ref_len)}",
        status,
    ]


def _layout(table: list[list[str]], right: set[int]) -> list[str]:
    """The rows aligned in columns (``right``: right-aligned ones), two spaces apart, or one
    when that is needed to stay within :data:`TABLE_WIDTH`."""
    widths = [max(len(row[j]) for row in table) for j in range(len(table[0]))]
    for gap in ("  ", " "):
        lines = [
            gap.join(
                c.rjust(w) if j in right else c.ljust(w)
                for j, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
            for row in table
        ]
        if max(len(line) for line in lines) <= TABLE_WIDTH:
            break
    return lines


def _table(rows: list[Row], corpus: Corpus, overrides: dict[str, Any]) -> None:
    """The side-by-side table (implementation, BLEU, precisions, BP, ratio, lengths, status),
    its notes, the short signatures and the libraries' own signatures."""
    marks: dict[str, list[str]] = {}
    notes: list[str] = []
    header = ["implementation", "BLEU", "precisions 1-N", "BP", "ratio", "hyp/ref", "status"]
    body = [_cells(r, marks, notes) for r in rows]
    for line in _layout([header, *body], right={1, 3, 4, 5}):
        print(line)
    scored = [r for r in rows if r.outcome.ok]
    footer = _mark_notes(marks) + [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    missing = [r.name for r in rows if not r.outcome.ok]
    if missing:
        footer.append(f"scored {len(scored)} of {len(rows)}; not scored: {', '.join(missing)}")
    if overrides:
        changed = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items()))
        footer.append(cli_words.overrides_note(changed))
    if footer:
        print("\nnotes:")
        for line in footer:
            print(textwrap.fill(line, TABLE_WIDTH, initial_indent="  ", subsequent_indent="    "))
    width = max(len(r.name) for r in rows)
    shorts = [
        (r.name, short_signature(r.scorer, c, corpus)) for r in rows if (c := r.config) is not None
    ]
    if shorts:
        print("\nshort signatures:")
    for name, sig in shorts:
        print(f"  {name:<{width}}  {sig}")
    own = [
        (r.name, str(s)) for r in scored if (s := r.outcome.result.extra.get("library_signature"))
    ]
    if own:
        print(cli_words.LIBRARY_SIGNATURES_HEAD)
    for name, sig in own:
        print(f"  {name:<{width}}  {sig}")


def _row_json(row: Row, corpus: Corpus, overrides: dict[str, Any]) -> dict[str, Any]:
    """One implementation as JSON: its result (``score`` null when there is none) with the
    status, the verification note, the full and short signatures, the library's own and
    the citation."""
    o = row.outcome
    out: dict[str, Any] = {
        "implementation": row.name,
        "kind": "library" if row.library else "profile",
        "status": o.status,
    }
    if o.results:
        r = o.result
        out.update(to_json(r))
        out["library_signature"] = library_signature(row.scorer, r)
        out["cite"] = cite(row.scorer, row.config, corpus, r) if row.config else None
    else:
        out.update(score=None, reason=o.detail or o.message, fix=o.fix or None)
        out["signature"] = o.signature or None
    out["short_signature"] = (
        short_signature(row.scorer, row.config, corpus) if row.config is not None else None
    )
    out["verification"] = _verification_note(row.scorer, overrides)
    return out


def _print_citations(rows: list[Row], corpus: Corpus) -> None:
    """``--cite`` with several implementations: one line each on stdout; those that did not
    score are named on stderr."""
    for r in rows:
        if r.outcome.ok and r.config is not None:
            print(cite(r.scorer, r.config, corpus, r.outcome.result))
        else:
            print(cli_words.not_scored_citation(r.name, r.outcome.status))
            print(
                cli_words.not_scored_note(r.name, r.outcome.status, _with_fix(r.outcome)),
                file=sys.stderr,
            )
