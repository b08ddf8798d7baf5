"""``bleu-harness``: the command line.

Subcommands: ``score`` (one corpus from files), ``compare`` (fixtures × implementations → a
tidy table), ``fixtures`` (list/show the shipped fixtures), ``profiles`` (every profile and its
signature), ``demo`` (what ``make demo`` runs). Every error the harness raises deliberately
ends the program with exit code 2 and a one-line message that names the file, line or option.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.analysis import runner
from harness.api import resolve_config
from harness.bleu import engine
from harness.bleu.profiles import PROFILES, verification
from harness.errors import HarnessError, InputError


def _int_at_least(low: int, what: str = "") -> Any:
    """An argparse type: an integer ``>= low``; otherwise a usage error (exit 2) saying so."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            note = f" ({what})" if what else ""
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}{note}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def _finite_float(text: str) -> float:
    """An argparse type: a finite number (``nan`` and ``inf`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


_finite_float.__name__ = "finite number"


def _nonneg_float(text: str) -> float:
    """An argparse type: a finite number ``>= 0``."""
    value = _finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


_nonneg_float.__name__ = "number >= 0"

_SEED = _int_at_least(0, "a numpy seed")

_OVERRIDE_FLAGS = {
    "tokenize": str,
    "smooth": str,
    "smooth_value": _finite_float,
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


def _add_perf(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("statistics cache and parallelism")
    g.add_argument("--no-cache", action="store_true", help="compute statistics afresh, store none")
    g.add_argument(
        "--cache-dir",
        help="on-disk statistics cache (default: $BLEU_HARNESS_CACHE_DIR or "
        "~/.cache/bleu-harness/stats)",
    )
    g.add_argument(
        "--jobs",
        type=_int_at_least(0, "0 means one per CPU"),
        default=1,
        help="worker processes for tokenizing/counting (0 = all)",
    )
    g.add_argument(
        "--backend",
        choices=["serial", "processes", "dask"],
        default=None,
        help="where statistics are computed (default: processes when --jobs > 1)",
    )


def _add_progress(p: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` (one of them): tqdm bars on stderr, by default only when
    stderr is a terminal. ``args.progress`` is ``True``, ``False`` or ``None`` (neither)."""
    g = p.add_argument_group("progress (bars on stderr; default: only when it is a terminal)")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--progress",
        dest="progress",
        action="store_const",
        const=True,
        default=None,
        help="show progress bars even when stderr is not a terminal",
    )
    x.add_argument(
        "--quiet",
        "--no-progress",
        dest="progress",
        action="store_const",
        const=False,
        help="show no progress bars",
    )


def _progress(args: argparse.Namespace) -> Any:
    """The progress callback for this run (:func:`harness.progress.resolve`), or ``None``."""
    from harness.progress import resolve

    return resolve(getattr(args, "progress", None))


def _make_cache(args: argparse.Namespace) -> Any:
    """The run's statistics cache from the CLI flags (memory + disk unless --no-cache)."""
    from functools import partial

    from harness.session.cache import StatisticsCache, default_cache_dir

    compute = None
    if args.backend == "dask":
        from harness.session.parallel import compute_statistics_dask

        compute = compute_statistics_dask
    elif args.jobs != 1:
        from harness.session.parallel import compute_statistics_parallel

        compute = partial(compute_statistics_parallel, jobs=args.jobs)
    if args.no_cache:
        return StatisticsCache.disabled(compute=compute)
    return StatisticsCache(args.cache_dir or default_cache_dir(), compute=compute)


def _backend(args: argparse.Namespace) -> str:
    if args.backend:
        return args.backend
    return "processes" if args.jobs != 1 else "serial"


def _jsonable(obj: Any) -> Any:
    """``obj`` with every mapping (``dict``, read-only ``mappingproxy``) a ``dict`` and every
    tuple a list, so that :func:`json.dumps` accepts it."""
    if isinstance(obj, Mapping):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    return obj


def _print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False))


# ---------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> int:
    from harness.data.io import load_text_corpus

    corpus = load_text_corpus(args.hyp, args.refs)
    overrides = _overrides(args)
    if args.impl:
        from harness.scorers import get_adapter

        adapter = get_adapter(args.impl)
        avail = adapter.available()
        if not avail.ok:
            from harness.errors import AdapterUnavailable

            raise AdapterUnavailable(args.impl, avail.reason, avail.hint)
        config = resolve_config(args.profile or adapter.default_config(), **overrides)
        if args.level == "segment":
            results = adapter.segments(corpus, config)
        else:
            results = [adapter.corpus(corpus, config)]
    else:
        config = resolve_config(args.profile or "sacrebleu", **overrides)
        label = f"harness:{args.profile or 'sacrebleu'}"
        stats = _make_cache(args).get(corpus, config)
        if args.level == "segment":
            results = engine.segment_results(stats, config, implementation=label)
        else:
            results = [engine.score_statistics(stats, config, implementation=label)]
    proof = _verification_note(args, overrides)
    if args.json:
        payload = [r.to_dict() for r in results]
        if args.level == "corpus":
            _print_json({**payload[0], "verification": proof})
        else:
            _print_json(payload)
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


# ---------------------------------------------------------------------- compare
def _corpora(args: argparse.Namespace) -> list[tuple[str, str, Any]]:
    from harness.data.fixtures import list_fixtures, load_fixture

    out = []
    real = args.wmt21 or getattr(args, "coco", False)
    names = args.fixture or ([] if real and not args.with_fixtures else list_fixtures())
    for name in names:
        fx = load_fixture(name)
        for system in fx.system_names:
            out.append((name, system, fx.corpus(system)))
    if getattr(args, "coco", False):
        from harness.data.datasets import load_coco_leave_one_out

        out.append(("coco_captions", "leave-one-out", load_coco_leave_one_out(args.data)))
    if args.wmt21:
        from harness.data.datasets import load_wmt21_ende

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


def cmd_compare(args: argparse.Namespace) -> int:
    """Fixtures × implementations → a results table, printed and, with --out, written."""
    if args.out:
        from harness.report.outdir import OutputDir

        # Claimed (locked, checked) before the run, so a bad --out fails at once.
        with OutputDir(args.out, force=args.force, command="compare") as out:
            return _compare(args, out)
    return _compare(args, None)


def _compare(args: argparse.Namespace, out: Any) -> int:
    start = time.perf_counter()
    out_dir = None if out is None else out.path
    corpora = _corpora(args)
    impls = _implementations(args)
    rows = runner.run(
        corpora,
        impls,
        levels=args.level,
        progress=_progress(args),
        cache=_make_cache(args),
        backend=_backend(args),
        jobs=args.jobs,
    )
    took = time.perf_counter() - start
    if out is not None:
        out.write_text("results.jsonl", runner.rows_to_jsonl(rows))
        out.write_text("results.csv", runner.rows_to_csv(rows))
        meta = {
            "versions": runner.versions(),
            "implementations": [i.label for i in impls],
            "levels": list(args.level),
            "corpora": [f"{f}/{s}" for f, s, _ in corpora],
            "rows": len(rows),
            "seconds": round(took, 3),
            "profiles": {name: PROFILES[name].signature() for name in PROFILES},
        }
        out.write_json("meta.json", meta)
        out.commit()
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


# ---------------------------------------------------------------------- explain
def _explain_corpus(args: argparse.Namespace) -> Any:
    if args.fixture:
        if args.files:
            raise InputError("give either --fixture or files, not both")
        from harness.data.fixtures import load_fixture

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
    from harness.data.io import load_text_corpus

    return load_text_corpus(args.files[0], args.files[1:])


def cmd_explain(args: argparse.Namespace) -> int:
    """Shapley attribution of the gap between two profiles to the factors that differ."""
    from harness.analysis.attribution import attribute

    corpus = _explain_corpus(args)
    att = attribute(corpus, args.a, args.b, segment=args.segment, library=args.library)
    if args.json:
        _print_json(att.to_dict())
    else:
        print(att.to_markdown())
    return 0


# ---------------------------------------------------------------------- significance
def cmd_significance(args: argparse.Namespace) -> int:
    """Paired bootstrap or approximate randomisation between two systems."""
    from harness.analysis.significance import significance_from_files

    result = significance_from_files(
        args.baseline,
        args.system,
        args.refs,
        profile=args.profile,
        method=args.method,
        resamples=args.resamples,
        seed=args.seed,
        progress=_progress(args),
    )
    d = result.to_dict()
    if args.json:
        _print_json(d)
    else:
        lo, hi = d["ci_system"]
        print(f"method: {d['method']}  resamples: {d['resamples']}  seed: {d['seed']}")
        print(f"baseline: {d['score_baseline']:.2f}")
        print(f"system:   {d['score_system']:.2f}  (95% CI {lo:.2f}–{hi:.2f})")
        print(f"delta:    {d['score_system'] - d['score_baseline']:+.2f}  p = {d['p_value']:.4f}")
        print(f"signature: {d['signature']}")
    return 0


# ---------------------------------------------------------------------- human
def _fmt(x: Any, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def cmd_human(args: argparse.Namespace) -> int:
    """BLEU vs human judgments: WMT21 en→de MQM, and WMT19 system-level DA with outliers."""
    from harness.analysis.human import mathur_outliers, wmt21_human_correlations

    impls = None
    if args.impl:
        impls = [x for item in args.impl for x in item.split(",") if x]
    res = wmt21_human_correlations(
        args.data, impls, n_boot=args.n_boot, seed=args.seed, progress=_progress(args)
    )
    wmt19 = mathur_outliers(args.data) if args.wmt19 else None
    if args.json:
        _print_json({"wmt21": res.to_dict(), "wmt19_outliers": wmt19})
        return 0
    n_seg = next(iter(res.n_rated_segments.values()), 0)
    print(
        f"WMT21 en→de: BLEU ({len(res.refs)} refs) vs Google MQM — {len(res.ranking_systems)} "
        f"MQM-rated systems, {n_seg} rated segments each; {int(res.ci * 100)}% bootstrap CIs "
        f"({res.n_boot} resamples, seed {res.seed})\n"
    )
    for level in ("system", "segment"):
        print(f"{level} level:\n")
        print("| implementation | Pearson [CI] | Spearman [CI] | Kendall tau-b [CI] | n |")
        print("| --- | --- | --- | --- | ---: |")
        for row in res.rows():
            if row["level"] != level:
                continue
            cells = []
            for m in ("pearson", "spearman", "kendall"):
                cells.append(
                    f"{_fmt(row.get(m))} [{_fmt(row.get(m + '_ci_low'), 2)}, "
                    f"{_fmt(row.get(m + '_ci_high'), 2)}]"
                )
            print(f"| {row['implementation']} | {' | '.join(cells)} | {row.get('n')} |")
        print()
    print(f"system rankings vs {res.reference} (Kendall tau; swapped pairs):\n")
    for r in res.rankings:
        swaps = ", ".join(f"{a}/{b}" for a, b in r.get("swapped_pairs", [])) or "none"
        print(f"- {r['implementation']}: tau = {_fmt(r.get('kendall_tau_vs_reference'))}; {swaps}")
    if wmt19 is not None:
        print("\nWMT19 system-level DA: Pearson of BLEU vs HUMAN, all systems vs without the")
        print("outliers of Mathur et al. (2020) (|z| > 2.5 by the MAD rule):\n")
        print("| pair | metric | systems | outliers | r (all) | r (without) |")
        print("| --- | --- | ---: | --- | ---: | ---: |")
        for r in wmt19:
            print(
                f"| {r['lp']} | {r['metric']} | {r['n_systems']} | "
                f"{', '.join(r['outliers']) or '–'} | {_fmt(r.get('pearson_all'))} | "
                f"{_fmt(r.get('pearson_without'))} |"
            )
    return 0


# ---------------------------------------------------------------------- report
_ROW_STR = ("fixture", "system", "implementation", "kind", "config", "level", "status")
_ROW_STR_OR_NULL = ("signature", "error", "counts", "totals", "call", "module_source")
_ROW_NUM_OR_NULL = ("score", "bp", "ratio")
_ROW_INT_OR_NULL = ("hyp_len", "ref_len")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (write null for a missing score)")


def _check_row(obj: Any, path: str, line: int) -> dict[str, Any]:
    """``obj`` if it is a results row as `compare --out` writes it; else InputError at ``line``."""

    def bad(msg: str) -> InputError:
        return InputError(f"not a results row: {msg}", file=path, line=line)

    if not isinstance(obj, dict):
        raise bad(f"expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in runner.ROW_FIELDS if k not in obj]
    if missing:
        raise bad(f"missing key(s) {', '.join(map(repr, missing))}")
    unknown = sorted(set(obj) - set(runner.ROW_FIELDS))
    if unknown:
        raise bad(f"unknown key(s) {', '.join(map(repr, unknown))}")

    def wrong(key: str, want: str) -> InputError:
        return bad(f"{key!r} must be {want}, got {type(obj[key]).__name__} {obj[key]!r:.40}")

    for key in _ROW_STR:
        if not isinstance(obj[key], str):
            raise wrong(key, "a string")
    for key in _ROW_STR_OR_NULL:
        if obj[key] is not None and not isinstance(obj[key], str):
            raise wrong(key, "a string or null")
    for key in _ROW_NUM_OR_NULL:
        v = obj[key]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise wrong(key, "a number or null")
    for key in _ROW_INT_OR_NULL:
        v = obj[key]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise wrong(key, "an integer or null")
    sid = obj["segment_id"]
    if sid is not None and (isinstance(sid, bool) or not isinstance(sid, str | int)):
        raise wrong("segment_id", "a string, an integer or null")
    if obj["level"] not in ("corpus", "segment"):
        raise bad(f"'level' must be 'corpus' or 'segment', got {obj['level']!r}")
    if obj["status"] == "ok" and obj["score"] is None:
        raise bad("status is 'ok' but 'score' is null")
    return obj


def _read_rows(path: str) -> list[dict[str, Any]]:
    """The rows of a results.jsonl written by `compare --out`, each checked (InputError names
    the file and line of the first bad row)."""
    from harness.data.io import read_lines

    rows = []
    for i, line in enumerate(read_lines(path, what="results file"), start=1):
        try:
            obj = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not a JSON results row: {exc.msg} (column {exc.colno})", file=path, line=i
            ) from None
        except ValueError as exc:  # NaN / Infinity
            raise InputError(f"not a results row: {exc}", file=path, line=i) from None
        rows.append(_check_row(obj, path, i))
    return rows


def cmd_report(args: argparse.Namespace) -> int:
    """A difference/correlation/attribution report, from a results table or a fresh compare."""
    from harness.report.outdir import OutputDir

    start = time.perf_counter()
    # Claimed (locked, checked) before the run, so a bad --out fails at once.
    with OutputDir(args.out, force=args.force, command="report") as out:
        rows, written = _report(args, out)
    for path in written:
        print(path)
    print(
        f"report of {len(rows)} rows written to {out.path}/ in {time.perf_counter() - start:.2f} s"
    )
    return 0


def _report(args: argparse.Namespace, out: Any) -> tuple[list[dict[str, Any]], list[Path]]:
    from harness.report import build_report, write_report

    corpora = None
    progress = _progress(args)
    if args.results:
        rows = _read_rows(args.results)
    else:
        corpora = _corpora(args)
        rows = runner.run(
            corpora,
            _implementations(args),
            levels=args.level,
            progress=progress,
            cache=_make_cache(args),
            backend=_backend(args),
            jobs=args.jobs,
        )
    human = None
    if args.human:
        from harness.analysis.human import wmt21_human_correlations

        human = wmt21_human_correlations(
            args.data, n_boot=args.n_boot, seed=args.seed, progress=progress
        )
    report = build_report(
        rows, corpora=corpora, seed=args.seed, human=human, n_boot=args.n_boot, progress=progress
    )
    return rows, write_report(report, out, formats=args.formats)


# ---------------------------------------------------------------------- pitfalls
def cmd_pitfalls(args: argparse.Namespace) -> int:
    """Run the documented pitfalls as experiments; print claim, source and verdict."""
    from harness.pitfalls import format_table, run_pitfalls

    names = [x for item in args.name or [] for x in item.split(",") if x] or None
    results = run_pitfalls(names, progress=_progress(args))
    if args.json:
        _print_json([r.to_dict() for r in results])
    else:
        print(format_table(results))
    return 0


# ---------------------------------------------------------------------- validate / identify
def cmd_validate(args: argparse.Namespace) -> int:
    """Diagnose a BLEU implementation against every profile, on fixtures and generated corpora.

    Exit status: 0 with a diagnosis; 3 when the implementation could not be validated (too few
    cases gave a finite score, or the command timed out on its first call); 2 for usage and
    input errors; 130/143 when interrupted by SIGINT/SIGTERM (temporary files are removed and
    the running command's process group is killed first).
    """
    import signal

    from harness.diagnose.validate import CouldNotValidate, validate

    if bool(args.impl) == bool(args.cmd):
        raise InputError("give exactly one of --impl module:function or --cmd 'COMMAND'")
    if args.timeout is not None and args.impl:
        raise InputError("--timeout applies to --cmd only (a Python --impl runs in-process)")
    if args.timeout is not None and not (0 < args.timeout < float("inf")):
        raise InputError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    if args.cases < 0:
        raise InputError(f"--cases must be >= 0, got {args.cases}")

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signum)

    import threading

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_term) if main_thread else None
    try:
        report = validate(
            args.impl,
            cmd=args.cmd,
            cases=args.cases,
            seed=args.seed,
            against=args.against,
            timeout=args.timeout,
            progress=_progress(args),
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
        _print_json(report.to_dict())
    else:
        print(report.to_markdown())
    if not report.diagnosable:
        print(f"bleu-harness: could not validate: {report.withheld}", file=sys.stderr)
        return 3
    return 0


def cmd_identify(args: argparse.Namespace) -> int:
    """Which configurations reproduce a reported BLEU score on a corpus."""
    from harness.diagnose.identify import identify, nearest

    corpus = _explain_corpus(args)
    progress = _progress(args)
    found = identify(args.score, corpus, tolerance=args.tolerance, progress=progress)
    near = [] if found else nearest(args.score, corpus, k=args.top, progress=progress)
    if args.json:
        _print_json(
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
        )
    return 0


# ---------------------------------------------------------------------- fixtures / profiles
def cmd_fixtures(args: argparse.Namespace) -> int:
    from harness.data.fixtures import list_fixtures, load_fixture

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
        "provenance": _jsonable(fx.provenance),
        "claim": _jsonable(fx.claim),
        "tags": list(fx.tags),
        "ids": list(fx.ids),
        "references": [list(r) for r in fx.references],
        "systems": {k: list(v) for k, v in fx.systems.items()},
    }
    if args.json:
        _print_json(data)
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


def cmd_profiles(args: argparse.Namespace) -> int:
    data = {}
    for name, cfg in PROFILES.items():
        v = verification(name)
        data[name] = {
            "signature": cfg.signature(),
            "status": v.status,
            "oracle": v.oracle,
            "evidence": v.evidence,
            "tolerance": v.tolerance,
        }
    if args.json:
        _print_json(data)
    else:
        for name, row in data.items():
            print(f"{name:<24} {row['status']:<10} {row['signature']}")
            print(f"{'':<24} {'':<10} against {row['oracle']} ({row['evidence']})")
    return 0


# ---------------------------------------------------------------------- demo
_DEMO_LABELS = {
    "harness:sacrebleu": "sacre",
    "harness:sacrebleu-sentence": "sacre-sent",
    "harness:nltk": "nltk",
    "harness:evaluate": "eval",
    "harness:bleuscore": "bleusc",
    "harness:torchmetrics": "tm",
    "harness:torchmetrics-sacrebleu": "tm-sacre",
    "harness:pycocoevalcap": "coco",
    "harness:mteval-v13a": "mteval",
    "harness:multi-bleu": "mbleu",
    "harness:multi-bleu-detok": "mbleu-dt",
}


def cmd_demo(args: argparse.Namespace) -> int:
    """Every profile and every real library on the seed fixtures, then WMT21 if available."""
    from harness.data.fixtures import list_fixtures, load_fixture

    start = time.perf_counter()
    corpora = [
        (name, system, fx.corpus(system))
        for name in list_fixtures()
        for fx in [load_fixture(name)]
        for system in fx.system_names
    ]
    impls = runner.default_implementations()
    rows = runner.run(corpora, impls, levels=("corpus",), progress=False)
    profile_rows = [r for r in rows if r["kind"] == "profile"]
    library_rows = [r for r in rows if r["kind"] == "adapter"]
    print("In-house profiles on the built-in fixtures (corpus BLEU, 0–100):\n")
    print(runner.summary_table(profile_rows, labels=_DEMO_LABELS))
    legend = ", ".join(f"{v} = {k.split(':', 1)[1]}" for k, v in _DEMO_LABELS.items())
    print(f"\ncolumns: {legend}")
    print("\nThe real libraries on the same fixtures ('=' equals its in-house profile):\n")
    print(runner.summary_table(library_rows, annotate=runner.agreement_mark(rows)))
    problems = sorted(
        {(r["implementation"], r["status"], r["error"]) for r in rows if r["status"] != "ok"}
    )
    print()
    for impl, status, err in problems:
        print(f"note: {impl}: {status}: {err}")
    for impl, source in sorted(
        {(r["implementation"], r["module_source"]) for r in library_rows if r["module_source"]}
    ):
        print(f"note: {impl}: module {source}")
    print(f"{len(rows)} rows in {time.perf_counter() - start:.2f} s")

    data = os.environ.get("BLEU_HARNESS_DATA")
    if data and Path(data).is_dir():
        print("\nWMT21 en→de newstest2021 (3 references, 20 systems), corpus BLEU:\n")
        ns = argparse.Namespace(
            fixture=[],
            wmt21=True,
            coco=False,
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
            no_cache=False,
            cache_dir=None,
            jobs=1,
            backend=None,
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
    _add_perf(s)
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
    c.add_argument(
        "--force", action="store_true", help="replace an earlier bleu-harness output in --out"
    )
    c.add_argument("--json", action="store_true", help="print the rows as JSON")
    c.add_argument("--max-notes", type=_int_at_least(0), default=20)
    _add_perf(c)
    _add_progress(c)
    c.set_defaults(func=cmd_compare)

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
    e.set_defaults(func=cmd_explain)

    g = sub.add_parser("significance", help="paired bootstrap / approximate randomisation")
    g.add_argument("baseline", help="baseline hypothesis file")
    g.add_argument("system", help="system hypothesis file")
    g.add_argument("refs", nargs="+", help="reference files")
    g.add_argument("--profile", default="sacrebleu", choices=sorted(PROFILES))
    g.add_argument("--method", default="bootstrap", choices=["bootstrap", "ar"])
    g.add_argument("--resamples", type=_int_at_least(1), default=None, help="resamples / trials")
    g.add_argument("--seed", type=_SEED, default=12345)
    g.add_argument("--json", action="store_true")
    _add_progress(g)
    g.set_defaults(func=cmd_significance)

    h = sub.add_parser("human", help="BLEU vs human judgments (WMT21 MQM, WMT19 DA)")
    h.add_argument("--impl", action="append", help="profiles (comma-separated; default all)")
    h.add_argument("--wmt19", action="store_true", help="add WMT19 DA with Mathur outliers")
    h.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    h.add_argument(
        "--n-boot",
        type=_int_at_least(0),
        default=1000,
        help="bootstrap resamples for the CIs (0: no CIs)",
    )
    h.add_argument("--seed", type=_SEED, default=0)
    h.add_argument("--json", action="store_true")
    _add_progress(h)
    h.set_defaults(func=cmd_human)

    r = sub.add_parser("report", help="write a Markdown/JSON/HTML report of a comparison")
    r.add_argument("--out", default="report", help="output directory (default: report/)")
    r.add_argument(
        "--force", action="store_true", help="replace an earlier bleu-harness output in --out"
    )
    r.add_argument("--results", help="a results.jsonl from `compare --out` (else run compare)")
    r.add_argument("--fixture", action="append", help="fixture name (repeatable; default all)")
    r.add_argument("--impl", action="append", help="profile:NAME or adapter:NAME (default all)")
    r.add_argument(
        "--level", nargs="+", choices=["corpus", "segment"], default=["corpus", "segment"]
    )
    r.add_argument("--wmt21", action="store_true", help="add WMT21 en→de (needs the data dir)")
    r.add_argument("--coco", action="store_true", help="add COCO leave-one-out (data dir)")
    r.add_argument("--with-fixtures", action="store_true", help="with --wmt21/--coco: fixtures too")
    r.add_argument("--human", action="store_true", help="add BLEU vs WMT21 MQM (data dir)")
    r.add_argument("--data", help="data directory (default: $BLEU_HARNESS_DATA)")
    r.add_argument(
        "--formats", nargs="+", choices=["md", "json", "html"], default=["md", "json", "html"]
    )
    r.add_argument(
        "--n-boot", type=_int_at_least(0), default=200, help="bootstrap resamples for CIs (0: none)"
    )
    r.add_argument("--seed", type=_SEED, default=0)
    _add_perf(r)
    _add_progress(r)
    r.set_defaults(func=cmd_report)

    pf = sub.add_parser("pitfalls", help="the documented pitfalls as experiments with verdicts")
    pf.add_argument("--name", action="append", help="run only these experiments (repeatable)")
    pf.add_argument("--json", action="store_true", help="one object per experiment")
    _add_progress(pf)
    pf.set_defaults(func=cmd_pitfalls)

    v = sub.add_parser("validate", help="diagnose a BLEU implementation (callable or command)")
    v.add_argument("--impl", help="module:function taking (hypotheses, references) -> score")
    v.add_argument(
        "--cmd", help="shell command template, e.g. 'perl multi-bleu.perl {ref} < {hyp}'"
    )
    v.add_argument(
        "--cases", type=_int_at_least(0), default=300, help="generated corpora (plus fixtures)"
    )
    v.add_argument("--seed", type=_SEED, default=0)
    v.add_argument("--against", help="compare deviations with this profile (default: best)")
    v.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per --cmd call (default 30); its process group is killed after that",
    )
    v.add_argument("--json", action="store_true")
    _add_progress(v)
    v.set_defaults(func=cmd_validate)

    i = sub.add_parser("identify", help="which configurations reproduce a reported score")
    i.add_argument(
        "--score", type=_finite_float, required=True, help="the reported score, as printed"
    )
    i.add_argument("--fixture", help="a built-in fixture")
    i.add_argument("--system", help="the fixture's system, when it has several")
    i.add_argument("files", nargs="*", help="HYP_FILE REF_FILE [REF_FILE ...] instead of --fixture")
    i.add_argument(
        "--tolerance", type=_nonneg_float, default=None, help="default: half a last digit"
    )
    i.add_argument("--top", type=_int_at_least(1), default=10)
    i.add_argument("--json", action="store_true")
    _add_progress(i)
    i.set_defaults(func=cmd_identify)

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


def _internal_error(exc: Exception) -> int:
    """Report an exception no harness code expected: a bug. Short by default; the traceback
    with ``BLEU_HARNESS_DEBUG=1``."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    print(
        f"bleu-harness: internal error: {type(exc).__name__}: {exc}{where}; this is a bug in "
        "bleu-harness, please report it (set BLEU_HARNESS_DEBUG=1 to print the traceback)",
        file=sys.stderr,
    )
    if os.environ.get("BLEU_HARNESS_DEBUG", "") not in ("", "0"):
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bleu-harness`` console script.

    Exit codes: 0 success; 2 any failure, with one line on stderr naming the file, line, row,
    option or module (an unexpected exception is reported as a bug, its traceback only with
    ``BLEU_HARNESS_DEBUG=1``); 130 interrupted (SIGINT / Ctrl-C), leaving no partial output.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HarnessError as exc:
        print(f"bleu-harness: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not kill the exit
        print("bleu-harness: interrupted; incomplete output was discarded", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment (disk full, permissions), not a bug: name the path
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"bleu-harness: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # harness code never calls sys.exit; user or library code did
        print(
            f"bleu-harness: error: code run by `{args.command}` called sys.exit({exc.code!r})",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:
        return _internal_error(exc)


if __name__ == "__main__":
    sys.exit(main())
