"""Markdown for BLEU against human judgments: the WMT21 MQM correlations with their bootstrap
intervals, the system rankings against the human one, the WMT meta-evaluation, and the WMT19
DA outlier check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.analysis.human import HumanCorrelations
from harness.analysis.human_section import meta_evaluation_section
from harness.report.tables import META_COLUMNS, meta_evaluation_rows
from harness.report.text import table
from harness.statistics.correlation import ASYMPTOTIC


def _fmt(x: Any, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _intervals(res: HumanCorrelations) -> str:
    """How the correlations' intervals were computed, naming the asymptotic ones."""
    asymptotic = sorted(
        {
            f"{level}-level {'Kendall tau-b' if method == 'kendall' else method}"
            for levels in res.correlations.values()
            for level, corr in levels.items()
            for method, est in corr.estimates.items()
            if est.interval == ASYMPTOTIC
        }
    )
    if res.n_boot == 0:
        return "none (no resamples asked for)"
    boot = f"percentile bootstrap ({res.n_boot} resamples, seed {res.seed})"
    if not asymptotic:
        return boot
    return f"{boot}; {', '.join(asymptotic)}: asymptotic (delta method)"


def human_markdown(
    res: HumanCorrelations,
    wmt19: Sequence[Mapping[str, Any]] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> str:
    """``res`` (:func:`harness.analysis.human.wmt21_human_correlations`) as Markdown: one
    table per level (Pearson, Spearman and Kendall τ-b with their intervals), the swapped
    pairs of each ranking, given ``meta`` (the JSON of
    :func:`harness.analysis.meta_eval.meta_evaluate` of ``res``) each implementation's WMT
    meta-evaluation and the significant differences between them, and — given ``wmt19``
    (:func:`harness.analysis.human.mathur_outliers`) — Pearson with and without the outlier
    systems."""
    n_seg = next(iter(res.n_rated_segments.values()), 0)
    out = [
        f"WMT21 en→de: BLEU ({len(res.refs)} refs) vs Google MQM — {len(res.ranking_systems)} "
        f"MQM-rated systems, {n_seg} rated segments each; {int(res.ci * 100)}% CIs: "
        f"{_intervals(res)}",
        "",
    ]
    for level in ("system", "segment"):
        out += [f"{level} level:", ""]
        out.append("| implementation | Pearson [CI] | Spearman [CI] | Kendall tau-b [CI] | n |")
        out.append("| --- | --- | --- | --- | ---: |")
        for row in res.rows():
            if row["level"] != level:
                continue
            cells = [
                f"{_fmt(row.get(m))} [{_fmt(row.get(m + '_ci_low'), 2)}, "
                f"{_fmt(row.get(m + '_ci_high'), 2)}]"
                for m in ("pearson", "spearman", "kendall")
            ]
            out.append(f"| {row['implementation']} | {' | '.join(cells)} | {row.get('n')} |")
        out.append("")
    out += [f"system rankings vs {res.reference} (Kendall tau; swapped pairs):", ""]
    for r in res.rankings:
        swaps = ", ".join(f"{a}/{b}" for a, b in r.get("swapped_pairs", [])) or "none"
        out.append(
            f"- {r['implementation']}: tau = {_fmt(r.get('kendall_tau_vs_reference'))}; {swaps}"
        )
    meta_rows = meta_evaluation_rows(None if meta is None else meta_evaluation_section(meta))
    if meta is not None and meta_rows:
        out += [
            "",
            f"WMT meta-evaluation against MQM ({len(meta['systems'])} systems; "
            "mt-metrics-eval's statistics):",
            "",
            *table([h for _, h in META_COLUMNS], meta_rows, "l" + "r" * 6),
        ]
        tests = meta.get("comparisons", [])
        found = [c for c in tests if c["significant"]]
        if meta.get("resamples"):
            out += [
                "",
                f"{len(found)} of {len(tests)} permutation tests between implementations "
                f"significant ({meta['resamples']} resamples, seed {meta['seed']}):",
            ]
            out += [
                f"- {c['statistic']}: {c['better']} {c['value_better']:.4f} > {c['worse']} "
                f"{c['value_worse']:.4f} (p = {c['p_value']:.3g})"
                for c in found
            ]
        else:
            out += ["", "No permutation tests between implementations (--meta-resamples 0)."]
    if wmt19 is not None:
        out += [
            "",
            "WMT19 system-level DA: Pearson of BLEU vs HUMAN, all systems vs without the",
            "outliers of Mathur et al. (2020) (|z| > 2.5 by the MAD rule):",
            "",
            "| pair | metric | systems | outliers | r (all) | r (without) |",
            "| --- | --- | ---: | --- | ---: | ---: |",
        ]
        for r in wmt19:
            out.append(
                f"| {r['lp']} | {r['metric']} | {r['n_systems']} | "
                f"{', '.join(r['outliers']) or '–'} | {_fmt(r.get('pearson_all'))} | "
                f"{_fmt(r.get('pearson_without'))} |"
            )
    return "\n".join(out)
