"""Benchmark: the in-house engine beside sacrebleu, nltk, bleuscore and torchmetrics, in one run.

Not a test. Run from the repository root::

    .venv/bin/python benchmarks/bench_engine.py --quick          # smoke run, < 60 s
    .venv/bin/python benchmarks/bench_engine.py                  # 1k/10k/100k × 1 and 4 refs
    .venv/bin/python benchmarks/bench_engine.py --sizes 10000 --refs 4 --repeat 5

What is measured (every number is the median over ``--repeat`` runs, ``--repeat-large`` at
100k segments or more; each run in a fresh subprocess, so every library starts with cold
tokenizer caches and its own peak memory, ``resource.getrusage(RUSAGE_SELF).ru_maxrss``):

1. **Corpus BLEU** on the seeded synthetic Zipf corpus of ``corpus_gen.py`` (13a, the sacrebleu
   profile) for every size × references: the harness (``harness.corpus_bleu(...,
   profile="sacrebleu")``, Corpus validation included), sacrebleu 2.6
   (``BLEU().corpus_score(hyps, streams)``; its 13a cache, ``Tokenizer13a.__call__``'s
   ``functools.lru_cache``, is cleared before timing), nltk ``corpus_bleu`` on ``str.split``
   tokens, ``bleuscore.compute`` (Rust) and torchmetrics ``SacreBLEUScore`` where installed.
   With ``harness.session.parallel`` available, also the harness on 2 worker processes. Columns: median
   seconds, the ratio of sacrebleu's time to this one (higher is faster), segments per second,
   peak resident memory of the process and its increase over the loaded corpus, the score, and
   whether the score equals, to 1e-9 BLEU points, the harness profile that reproduces that
   library (``sacrebleu``, ``nltk``, ``bleuscore``, ``torchmetrics-sacrebleu``; torchmetrics
   computes in float32, so it is compared to 1e-4).
2. **All profiles at once** on 10k × 4 (``--all-size``): every profile's corpus score and every
   segment's sentence score (:meth:`harness.session.Session.scores`), against one sacrebleu
   ``corpus_score`` on the same data.
3. **Sentence scores of every segment** on 10k × 4: the harness ``sacrebleu-sentence`` profile
   (``segment_scores``) against a loop of sacrebleu ``BLEU(effective_order=True)
   .sentence_score``; every sentence score compared to 1e-9.
4. **WMT21 en→de** (when ``BLEU_HARNESS_DATA`` is set): every system × references A, C, D,
   harness vs sacrebleu, total time over the systems.
5. **Scaling**: the exponent ``b`` of a least-squares fit ``time ∝ (segments × refs)^b`` over
   the corpus-BLEU runs of each implementation.

Paired bootstrap timings are in ``bench_significance.py``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import pickle
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from importlib.util import find_spec
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOL = 1e-9

#: implementation → (harness profile it reproduces, tolerance of the score check)
IMPLS: dict[str, tuple[str, float]] = {
    "harness": ("sacrebleu", TOL),
    "harness-jobs2": ("sacrebleu", TOL),
    "sacrebleu": ("sacrebleu", TOL),
    "nltk": ("nltk", TOL),
    "bleuscore": ("bleuscore", TOL),
    "torchmetrics": ("torchmetrics-sacrebleu", 1e-4),
}
_MODULE = {
    "harness-jobs2": "harness.session.parallel",
    "sacrebleu": "sacrebleu",
    "nltk": "nltk",
    "bleuscore": "bleuscore",
    "torchmetrics": "torchmetrics",
}


# ====================================================================== the measured calls
# Each returns a function of (hypotheses, references) whose call is timed; imports and layout
# conversions the library's users do once happen before.
def _prepare(impl: str, hyps: list[str], refs: list[list[str]]) -> Callable[[], Any]:
    if impl == "harness":
        import harness

        return lambda: harness.corpus_bleu(hypotheses=hyps, references=refs).score
    if impl == "harness-jobs2":
        from harness import get_profile
        from harness.bleu import engine
        from harness.data.corpus import Corpus
        from harness.session.parallel import compute_statistics_parallel

        cfg = get_profile("sacrebleu")

        def run() -> float:
            corpus = Corpus(hypotheses=hyps, references=refs)
            stats = compute_statistics_parallel(corpus, cfg, jobs=2)
            return engine.score_statistics(stats, cfg).score

        return run
    if impl == "sacrebleu":
        from sacrebleu.metrics.bleu import BLEU
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        streams = [[seg[k] for seg in refs] for k in range(len(refs[0]))]
        Tokenizer13a.__call__.cache_clear()  # its per-line lru_cache: start cold
        return lambda: BLEU().corpus_score(hyps, streams).score
    if impl == "nltk":
        from nltk.translate.bleu_score import corpus_bleu

        def run() -> float:
            refs_tok = [[r.split() for r in seg] for seg in refs]
            return 100.0 * corpus_bleu(refs_tok, [h.split() for h in hyps])

        return run
    if impl == "bleuscore":
        import bleuscore

        return lambda: (
            100.0
            * float(
                bleuscore.compute(references=refs, predictions=hyps, max_order=4, smooth=False)[
                    "bleu"
                ]
            )
        )
    if impl == "torchmetrics":
        from torchmetrics.text import SacreBLEUScore

        return lambda: 100.0 * float(SacreBLEUScore()(hyps, refs))
    if impl == "all-profiles":
        from harness import PROFILES
        from harness.data.corpus import Corpus
        from harness.session import Session

        def run() -> dict[str, Any]:
            corpus = Corpus(hypotheses=hyps, references=refs)
            out = Session(corpus).scores(PROFILES, segments=True)
            return {k: (v.corpus.score if v.corpus else None) for k, v in out.items()}

        return run
    if impl == "harness-sentences":
        import harness

        return lambda: [
            r.score
            for r in harness.bleu.engine.segment_scores(
                harness.Corpus(hypotheses=hyps, references=refs),
                harness.get_profile("sacrebleu-sentence"),
            )
        ]
    if impl == "sacrebleu-sentences":
        from sacrebleu.metrics.bleu import BLEU
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        Tokenizer13a.__call__.cache_clear()

        def run() -> list[float]:
            bleu = BLEU(effective_order=True)
            return [bleu.sentence_score(h, r).score for h, r in zip(hyps, refs, strict=True)]

        return run
    if impl == "harness-wmt" or impl == "sacrebleu-wmt":
        return _prepare_wmt(impl, hyps, refs)
    raise ValueError(f"unknown implementation {impl!r}")


def _prepare_wmt(impl: str, hyps: Any, refs: Any) -> Callable[[], Any]:
    systems: dict[str, list[str]] = hyps  # system → hypotheses; refs: per-segment lists
    if impl == "harness-wmt":
        import harness

        return lambda: {
            name: harness.corpus_bleu(hypotheses=h, references=refs).score
            for name, h in systems.items()
        }
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    streams = [[seg[k] for seg in refs] for k in range(len(refs[0]))]
    Tokenizer13a.__call__.cache_clear()
    return lambda: {name: BLEU().corpus_score(h, streams).score for name, h in systems.items()}


def child(impl: str, data: str) -> None:
    """Run one measurement and print it as JSON (called in a fresh subprocess)."""
    with open(data, "rb") as f:
        hyps, refs = pickle.load(f)
    run = _prepare(impl, hyps, refs)
    gc.collect()
    before = _current_rss_kb()
    start = time.perf_counter()
    value = run()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # peak of the process, KiB
    json.dump(
        {
            "seconds": seconds,
            "value": value,
            "peak_mb": after / 1024,
            "delta_mb": max(0, after - before) / 1024,
        },
        sys.stdout,
    )


def _current_rss_kb() -> int:
    """Resident memory now (KiB): the corpus is loaded, so peak − this is what the call added
    (ru_maxrss alone would also hold the unpickling's transient peak)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ====================================================================== the runner
def _measure(impl: str, data: Path, repeat: int, timeout: float) -> dict[str, Any]:
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", impl, str(data)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
            return {"error": tail[0]}
        runs.append(json.loads(proc.stdout))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "all_seconds": [r["seconds"] for r in runs],
        "value": runs[0]["value"],
        "peak_mb": max(r["peak_mb"] for r in runs),
        "delta_mb": max(r["delta_mb"] for r in runs),
    }


def _expected(hyps: list[str], refs: list[list[str]]) -> dict[str, float]:
    """The harness profiles that reproduce each library, on this corpus."""
    from harness import PROFILES
    from harness.data.corpus import Corpus
    from harness.session import Session

    wanted = {p for p, _ in IMPLS.values()}
    out = Session(Corpus(hypotheses=hyps, references=refs)).scores(
        {k: PROFILES[k] for k in wanted}, segments=False
    )
    return {k: v.corpus.score for k, v in out.items() if v.corpus is not None}


def _available(impl: str) -> bool:
    module = _MODULE.get(impl)
    if module is None:
        return True
    if impl == "harness-jobs2":
        return find_spec("harness.session.parallel") is not None
    return find_spec(module) is not None


def _fmt_mb(r: dict[str, Any]) -> str:
    return f"{r['peak_mb']:.0f} (+{r['delta_mb']:.0f})"


def _machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numpy

    versions = {"python": platform.python_version(), "numpy": numpy.__version__}
    for name in ("sacrebleu", "nltk", "bleuscore", "torchmetrics"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:
            pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": versions,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description="Engine benchmark (see the module docstring).")
    ap.add_argument("--sizes", default="1000,10000,100000", help="segments, comma-separated")
    ap.add_argument("--refs", default="1,4", help="references per segment, comma-separated")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--repeat-large", type=int, default=1, help="runs at >= 100k segments")
    ap.add_argument("--impls", default=",".join(IMPLS), help="implementations to run")
    ap.add_argument(
        "--limit",
        default="torchmetrics=10000",
        help="IMPL=SEGMENTS,...: skip an implementation above that many segments "
        "(torchmetrics takes ~30 s per 10k segments × 1 ref here)",
    )
    ap.add_argument("--all-size", type=int, default=10000, help="segments for sections 2-3")
    ap.add_argument("--quick", action="store_true", help="small sizes, one run each (< 60 s)")
    ap.add_argument("--json", type=Path, help="also write every number to this file")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per subprocess")
    ap.add_argument("--child", nargs=2, metavar=("IMPL", "DATA"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        sys.path.insert(0, str(HERE))
        child(*args.child)
        return
    if args.quick:
        args.sizes, args.refs, args.repeat, args.repeat_large = "300,1000", "4", 1, 1
        args.all_size = 1000

    sys.path.insert(0, str(HERE))
    from corpus_gen import generate

    sizes = [int(x) for x in args.sizes.split(",")]
    limits = {k: int(v) for k, v in (x.split("=") for x in args.limit.split(",") if x)}
    ref_counts = [int(x) for x in args.refs.split(",")]
    impls = [i for i in args.impls.split(",") if i in IMPLS]
    skipped = [i for i in impls if not _available(i)]
    impls = [i for i in impls if i not in skipped]
    machine = _machine()
    load0 = os.getloadavg()
    report: dict[str, Any] = {"machine": machine, "load_start": load0, "corpus": []}
    print(f"# bench_engine — {machine['date']}")
    print(f"{machine['cpu']}, {machine['cores']} cores; {machine['versions']}")
    print(f"load average at start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    if skipped:
        print(f"not installed, skipped: {', '.join(skipped)}")
    tmp = Path(tempfile.mkdtemp(prefix="bench_engine_"))
    started = time.perf_counter()
    points: dict[str, list[tuple[float, float]]] = {}

    # -------------------------------------------------------------- 1. corpus BLEU
    print(
        "\n## Corpus BLEU, sacrebleu profile (13a)\n\n"
        "| segments | refs | implementation | median s | × sacrebleu | segments/s "
        "| peak MB (+ over corpus) | BLEU | = its harness profile |\n"
        "|---:|---:|---|---:|---:|---:|---:|---:|---|"
    )
    for size in sizes:
        for n_refs in ref_counts:
            hyps, refs = generate(size, n_refs)
            data = tmp / f"synthetic_{size}_{n_refs}.pkl"
            with data.open("wb") as f:
                pickle.dump((hyps, refs), f)
            expected = _expected(hyps, refs)
            repeat = args.repeat_large if size >= 100_000 else args.repeat
            results = {
                i: _measure(i, data, repeat, args.timeout)
                if size <= limits.get(i, size)
                else {"error": f"skipped above {limits[i]} segments (--limit)"}
                for i in impls
            }
            base = results.get("sacrebleu", {}).get("seconds")
            for impl in impls:
                r = results[impl]
                row = {"segments": size, "refs": n_refs, "impl": impl, **r}
                report["corpus"].append(row)
                if "error" in r:
                    print(f"| {size} | {n_refs} | {impl} | {r['error']} ||||||")
                    continue
                profile, tol = IMPLS[impl]
                same = abs(r["value"] - expected[profile]) <= tol
                ratio = f"{base / r['seconds']:.1f}" if base else "–"
                points.setdefault(impl, []).append((size * n_refs, r["seconds"]))
                print(
                    f"| {size} | {n_refs} | {impl} | {r['seconds']:.3f} | {ratio} "
                    f"| {size / r['seconds']:,.0f} | {_fmt_mb(r)} | {r['value']:.6f} "
                    f"| {'yes' if same else 'NO'} ({profile}) |"
                )
            data.unlink()

    # -------------------------------------------------------------- 2.-3. all profiles, sentences
    size = args.all_size
    hyps, refs = generate(size, 4)
    data = tmp / "all.pkl"
    with data.open("wb") as f:
        pickle.dump((hyps, refs), f)
    print(f"\n## All profiles and sentence scores, {size} segments × 4 refs\n")
    print("| measurement | median s | compared with | its median s | ratio |")
    print("|---|---:|---|---:|---:|")
    one = _measure("sacrebleu", data, args.repeat, args.timeout)
    allp = _measure("all-profiles", data, args.repeat, args.timeout)
    if "error" not in allp and "error" not in one:
        print(
            f"| all {len(allp['value'])} profiles: corpus + every segment (harness) "
            f"| {allp['seconds']:.3f} | one sacrebleu corpus_score | {one['seconds']:.3f} "
            f"| {one['seconds'] / allp['seconds']:.1f} |"
        )
    ours = _measure("harness-sentences", data, args.repeat, args.timeout)
    theirs = _measure("sacrebleu-sentences", data, args.repeat, args.timeout)
    if "error" not in ours and "error" not in theirs:
        worst = max(abs(a - b) for a, b in zip(ours["value"], theirs["value"], strict=True))
        print(
            f"| every sentence score, sacrebleu-sentence profile (harness) "
            f"| {ours['seconds']:.3f} | loop of sacrebleu sentence_score "
            f"| {theirs['seconds']:.3f} | {theirs['seconds'] / ours['seconds']:.1f} |"
        )
        print(f"\nlargest sentence-score difference: {worst:.2e} (equal to 1e-9: {worst <= TOL})")
    report["all_profiles"] = {"harness": allp, "sacrebleu_corpus": one}
    report["sentences"] = {
        "harness": {k: v for k, v in ours.items() if k != "value"},
        "sacrebleu": {k: v for k, v in theirs.items() if k != "value"},
    }
    data.unlink()

    # -------------------------------------------------------------- 4. WMT21 en-de
    try:
        from harness.data.datasets import load_wmt21_ende

        systems = load_wmt21_ende()
    except Exception as exc:
        print(f"\n## WMT21 en→de: skipped ({type(exc).__name__}: {exc})")
    else:
        if args.quick:
            systems = dict(list(systems.items())[:3])
        first = next(iter(systems.values()))
        wmt_refs = [list(r) for r in first.references]
        wmt = (
            {name: list(c.hypotheses) for name, c in systems.items()},
            wmt_refs,
        )
        data = tmp / "wmt.pkl"
        with data.open("wb") as f:
            pickle.dump(wmt, f)
        ours = _measure("harness-wmt", data, args.repeat, args.timeout)
        theirs = _measure("sacrebleu-wmt", data, args.repeat, args.timeout)
        n_seg, n_ref = len(wmt_refs), len(wmt_refs[0])
        print(f"\n## WMT21 en→de: {len(systems)} systems × {n_seg} segments × {n_ref} refs\n")
        if "error" in ours or "error" in theirs:
            print(f"failed: {ours.get('error') or theirs.get('error')}")
        else:
            worst = max(abs(ours["value"][k] - theirs["value"][k]) for k in ours["value"])
            print(
                f"harness {ours['seconds']:.3f} s, sacrebleu {theirs['seconds']:.3f} s "
                f"(× {theirs['seconds'] / ours['seconds']:.1f}); peak MB harness "
                f"{_fmt_mb(ours)}, sacrebleu {_fmt_mb(theirs)}; largest score difference "
                f"{worst:.2e} (equal to 1e-9: {worst <= TOL})"
            )
            report["wmt21"] = {"harness": ours, "sacrebleu": theirs}
        data.unlink()

    # -------------------------------------------------------------- 5. scaling
    print("\n## Scaling: time ∝ (segments × refs)^b, least squares on log–log\n")
    for impl, pts in points.items():
        if len(pts) < 2 or len({x for x, _ in pts}) < 2:
            continue
        xs = [math.log(x) for x, _ in pts]
        ys = [math.log(y) for _, y in pts]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
            (x - mx) ** 2 for x in xs
        )
        report.setdefault("scaling", {})[impl] = b
        print(f"- {impl}: b = {b:.2f} over {len(pts)} points")

    load1 = os.getloadavg()
    report["load_end"] = load1
    print(
        f"\nload average at end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; "
        f"total {time.perf_counter() - started:.0f} s"
    )
    tmp.rmdir()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
