"""WMT21 en→de MQM: the WMT Metrics meta-evaluation statistics of every BLEU profile, ours beside
mt-metrics-eval's, and which implementations differ significantly.

For each profile :func:`harness.analysis.human.wmt21_human_correlations` scores (all of
:data:`harness.bleu.profiles.PROFILES` by default), on the 8 MQM-rated systems:

* system level (corpus BLEU against mean MQM): pairwise accuracy and tie-calibrated acc_23
  with its ε;
* from the 527 rated segments of each system: soft pairwise accuracy (SPA) and segment-level
  tie-calibrated acc_23 grouped by item, with its ε;

each computed by :mod:`harness.analysis.meta_eval` and, on the same vectors, by Google's
mt-metrics-eval (``stats.Agreement``, ``stats.KendallWithTiesOpt(sample_rate=1.0)``,
``stats.PairwiseConfidenceError``) when its folder is found (``$BLEU_HARNESS_REFERENCE_IMPLS``
or ``../shared/reference-impls`` beside the repository; never the unrelated PyPI package).
Then, for every pair of implementations, the permutation test of each statistic
(:func:`harness.statistics.metric_comparison.compare_metrics`, with WMT's task settings: 1000 resamples,
blocks of 100): which pairs differ at p ≤ 0.05, and the significance clusters mt-metrics-eval's
``AssignRanks`` would draw.

Usage::

    .venv/bin/python experiments/meta_eval_wmt21.py [--data DIR] [--resamples 1000] [--seed 0]
        [--implementations sacrebleu nltk ...] [--json results.json]

``--data`` defaults to ``$BLEU_HARNESS_DATA``. ``--resamples 0`` skips the tests.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.analysis.human import HumanCorrelations, wmt21_human_correlations
from harness.analysis.meta_eval import MetaEvalOptions, MetaEvaluation, meta_evaluate
from harness.session import Session
from harness.statistics.correlation import NO_INTERVALS
from harness.typed_json import to_json

REPO = Path(__file__).resolve().parent.parent
STATISTICS = ("pairwise_accuracy", "spa", "segment_tie_calibrated")


def reference_stats() -> ModuleType | None:
    """mt-metrics-eval's ``stats`` module from the shared reference-impls folder, or ``None``."""
    root = os.environ.get("BLEU_HARNESS_REFERENCE_IMPLS", "").strip()
    base = Path(root) if root else REPO.parent / "shared" / "reference-impls"
    folder = base / "mt-metrics-eval"
    if not (folder / "mt_metrics_eval" / "stats.py").is_file():
        return None
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("mt_metrics_eval.stats")
    finally:
        sys.path.remove(str(folder))


def reference_numbers(stats: ModuleType, human: HumanCorrelations, name: str) -> dict[str, Any]:
    """mt-metrics-eval's numbers for one implementation, from vectors built here."""
    systems = human.systems
    seg_ids = sorted({seg for _, seg in human.segment_keys}, key=int)
    index = {key: k for k, key in enumerate(human.segment_keys)}
    gold, metric = [], []
    for s in systems:
        for seg in seg_ids:
            k = index.get((s, seg))
            gold.append(None if k is None else human.human_segment[k])
            metric.append(0.0 if k is None else human.segment_scores[name][k])
    sys_gold = [human.human_system[s] for s in systems]
    sys_metric = [human.system_scores[name][s] for s in systems]
    n = len(systems)
    agree, pairs = stats.Agreement(sys_gold, sys_metric)
    acc, eps, _ = stats.KendallWithTiesOpt(sys_gold, sys_metric, "acc23", n, "none", 1.0)
    seg_acc, seg_eps, _ = stats.KendallWithTiesOpt(gold, metric, "acc23", n, "item", 1.0)
    spa = stats.PairwiseConfidenceError(gold, metric, n, filter_nones=None in gold)[0]
    return {
        "pairwise_accuracy": agree / pairs,
        "acc23_calibrated": acc,
        "acc23_epsilon": eps,
        "spa": float(spa),
        "segment_acc23_calibrated": seg_acc,
        "segment_acc23_epsilon": seg_eps,
    }


def _number(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(meta: MetaEvaluation, reference: dict[str, dict[str, Any]] | None) -> str:
    """Markdown: per implementation, each statistic (ours, then mt-metrics-eval's)."""
    columns = [
        ("pairwise_accuracy", "PA", 4),
        ("acc23_calibrated", "acc23", 4),
        ("acc23_epsilon", "ε", 3),
        ("spa", "SPA", 4),
        ("segment_acc23_calibrated", "seg acc23", 4),
        ("segment_acc23_epsilon", "seg ε", 2),
    ]
    head = ["implementation"]
    for _, label, _ in columns:
        head += [label] + ([f"{label} (mtme)"] if reference else [])
    if reference:
        head.append("identical")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in meta.rows():
        cells = [row["implementation"]]
        ref = reference.get(row["implementation"]) if reference else None
        for key, _, digits in columns:
            cells.append(_number(row[key], digits))
            if reference:
                cells.append(_number(ref[key], digits) if ref else "n/a")
        if reference:
            same = ref is not None and all(row[k] == ref[k] for k, _, _ in columns)
            cells.append("yes" if same else "NO")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ranks(meta: MetaEvaluation, statistic: str) -> list[tuple[int, str, float]]:
    """mt-metrics-eval's ``AssignRanks`` on our tests: implementations by decreasing value
    (names break ties); a new cluster starts at the first one significantly below a member of
    the current cluster."""
    rows = [c for c in meta.comparisons if c.statistic == statistic]
    values = {c.better: c.value_better for c in rows} | {c.worse: c.value_worse for c in rows}
    order = sorted(values, key=lambda m: (-values[m], m))
    significant = {(c.better, c.worse) for c in rows if c.significant}
    out, rank, start = [], 1, 0
    for i, name in enumerate(order):
        if any((above, name) in significant for above in order[start:i]):
            rank, start = rank + 1, i
        out.append((rank, name, values[name]))
    return out


def significance(meta: MetaEvaluation) -> str:
    """Per statistic: the pairs that differ at p ≤ alpha, and the clusters."""
    out = []
    for statistic in STATISTICS:
        rows = [c for c in meta.comparisons if c.statistic == statistic]
        hits = [c for c in rows if c.significant]
        out.append(f"\n### {statistic}: {len(hits)} of {len(rows)} pairs differ (p ≤ 0.05)\n")
        out += [
            f"- {c.better} ({c.value_better:.4f}) > {c.worse} ({c.value_worse:.4f}): "
            f"p = {c.p_value:.3f} ({c.comparison.resamples_used} resamples)"
            for c in sorted(hits, key=lambda c: (c.p_value, c.better, c.worse))
        ]
        clusters: dict[int, list[str]] = {}
        for rank, name, value in ranks(meta, statistic):
            clusters.setdefault(rank, []).append(f"{name} {value:.4f}")
        out.append("\nclusters: " + " | ".join(", ".join(v) for v in clusters.values()))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="shared data folder ($BLEU_HARNESS_DATA)")
    parser.add_argument("--implementations", nargs="+", default=None, help="profiles (all)")
    parser.add_argument("--resamples", type=int, default=1000, help="per test (0: no tests)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the permutation tests")
    parser.add_argument(
        "--json", default=None, help="write the MetaEvaluation (harness.typed_json.to_json) here"
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    human = wmt21_human_correlations(
        args.data, args.implementations, bootstrap=NO_INTERVALS, session=Session()
    )
    meta = meta_evaluate(human, options=MetaEvalOptions(resamples=args.resamples, seed=args.seed))
    stats = reference_stats()
    reference = None
    if stats is not None:
        reference = {name: reference_numbers(stats, human, name) for name in meta.implementations}
    print(f"# WMT21 en→de MQM: {len(meta.systems)} systems, {meta.n_segments} rated segments\n")
    print(f"SPA: {meta.permutations} permutations, seed {meta.spa_seed}; acc23: sample rate 1.0")
    if stats is None:
        print("mt-metrics-eval not found: its columns are left out")
    print()
    print(table(meta, reference))
    if args.resamples:
        print(f"\n## Permutation tests ({args.resamples} resamples, seed {args.seed})")
        print(significance(meta))
    print(f"\n({time.perf_counter() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(to_json(meta), indent=1, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
