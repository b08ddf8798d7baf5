"""The report's summary sentences, written once for every renderer.

:func:`summary_items` and :func:`significance_line` say what the summary says; a
:class:`Markup` says how a renderer marks it up (HTML escapes and tags, Markdown backticks and
asterisks). The HTML page and ``report.md`` therefore cannot drift apart in content.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.report.schema import SIGNIFICANCE_HOW
from harness.report.text import fmt_number


@dataclass(frozen=True)
class Markup:
    """How one renderer marks up plain text, code, emphasis, verdict labels and file links.

    ``text`` escapes plain text; ``code`` marks (and escapes) a name; ``strong`` emphasises
    already marked-up text; ``label(kind, word)`` marks a verdict word (kind ``yes``/``no``/
    ``na``); ``link`` refers to a file next to the report; ``where`` names the document.
    """

    text: Callable[[Any], str]
    code: Callable[[Any], str]
    strong: Callable[[str], str]
    label: Callable[[str, str], str]
    link: Callable[[str], str]
    where: str


def which(results: Any) -> str:
    """``fixture: system vs baseline`` for each tested fixture, comma-separated."""
    return ", ".join(
        dict.fromkeys(f"{r['fixture']}: {r['system']} vs {r['baseline']}" for r in results)
    )


def is_default_significance(sig: Any) -> bool:
    """Whether ``sig`` is the paired bootstrap :func:`build_report` computes by default."""
    return isinstance(sig, Mapping) and "results" in sig and "how" in sig


def significance_line(report: Mapping[str, Any], m: Markup) -> str:
    """One sentence on significance: computed (how many tests have p < 0.05), not computed
    and how to get it, or precomputed."""
    sig = report.get("significance")
    if sig is None:
        return m.text(f"not included in this report. To get it, {SIGNIFICANCE_HOW}.")
    if is_default_significance(sig):
        ok = [r for r in sig["results"] if not r.get("error")]
        if not ok:
            return m.text(f"{sig.get('note') or 'not computed'}. To get it, {sig['how']}.")
        n = sum(1 for r in ok if r["p_value"] < 0.05)
        return m.text(
            f"paired bootstrap ({sig['resamples']} resamples, seed {sig['seed']}) of the second "
            f"system against the first ({which(ok)}): {n} of {len(ok)} test(s) have p < 0.05."
        )
    return m.text("precomputed results (see below).")


def _pairs(items: Sequence[Sequence[Any]], m: Markup) -> str:
    return ", ".join(f"{m.code(x[0])} vs {m.code(x[1])}" for x in items)


def summary_items(report: Mapping[str, Any], m: Markup) -> list[tuple[str, list[str]]]:
    """The summary's bullet items, each with its sub-items: what was compared, the largest
    corpus gap and the factor behind it, which pairs agree, disagree or cannot be compared,
    what has no scores and why, significance, and where the segment table is."""
    sm = report.get("summary") or {}
    impls = sm.get("implementations") or []
    corpora = sm.get("corpora") or []
    fixtures = list(dict.fromkeys(c.split("/", 1)[0] for c in corpora))
    t = m.text
    items: list[tuple[str, list[str]]] = [
        (
            f"{m.strong('Compared')} {len(impls)} implementation(s) "
            f"({', '.join(m.code(x) for x in impls) or 'none'}) on {len(corpora)} "
            f"corpus/system unit(s) from {len(fixtures)} fixture(s) "
            f"({t(', '.join(fixtures)) or 'none'}), {t(sm.get('n_segments', 0))} segments.",
            [],
        )
    ]
    gap = sm.get("largest_gap")
    if gap:
        text = (
            f"{m.strong('Largest corpus gap:')} on {t(gap['fixture'])}/{t(gap['system'])}, "
            f"{m.code(gap['a'])} scores {t(fmt_number(gap.get('score_a'), 2))} and "
            f"{m.code(gap['b'])} {t(fmt_number(gap.get('score_b'), 2))}: a gap of "
            f"{t(fmt_number(gap['gap'], 2, sign=True))} BLEU points"
        )
        ex = gap.get("explained_by")
        if ex:
            elsewhere = (ex.get("fixture"), ex.get("system")) != (gap["fixture"], gap["system"])
            text += (
                f"; the factor that explains most of it is {m.strong(t(ex['factor']))} "
                f"({t(fmt_number(ex['points'], 2, sign=True))} of "
                f"{t(fmt_number(ex['attribution_gap'], 2, sign=True))} points in the "
                "attribution below"
                + (
                    f", computed on {t(ex.get('fixture'))}/{t(ex.get('system'))}: "
                    "attributions run on the first corpora only"
                    if elsewhere
                    else ""
                )
                + ")"
            )
        else:
            text += "; no attribution was computed for this pair"
        items.append((text + ".", []))
    la = sm.get("largest_attribution")
    if la and not (gap and gap.get("explained_by")):
        items.append(
            (
                f"{m.strong('Largest attributed gap:')} {t(la['a'])} → {t(la['b'])} on "
                f"{t(la['fixture'])}/{t(la['system'])}: "
                f"{t(fmt_number(la['gap'], 2, sign=True))} points, mostly "
                f"{m.strong(t(la['factor']))} ({t(fmt_number(la['points'], 2, sign=True))}).",
                [],
            )
        )
    if sm.get("agree"):
        items.append(
            (f"{m.label('yes', 'Agree')} (within tolerance): {_pairs(sm['agree'], m)}.", [])
        )
    if sm.get("disagree"):
        items.append((f"{m.label('no', 'Disagree')}: {_pairs(sm['disagree'], m)}.", []))
    probs = sm.get("problems") or []
    nc = sm.get("not_comparable") or []
    if nc:
        # the reasons are listed once, under "Without scores", when they come from there
        why = "" if probs else ": " + "; ".join(dict.fromkeys(t(x[2]) for x in nc))
        items.append(
            (
                f"{m.label('na', 'Not comparable')} (a side has no scores; n/a, not "
                f"disagreement): {_pairs(nc, m)}{why}.",
                [],
            )
        )
    if probs:
        items.append(
            (
                f"{m.strong('Without scores')} (shown as n/a, not as disagreement):",
                [
                    f"{m.code(x['implementation'])} {t(x['status'])} on {t(x['corpora'])} "
                    f"corpus unit(s): {t(x['reason'])}"
                    for x in probs
                ],
            )
        )
    else:
        items.append(("Every implementation scored every corpus.", []))
    items.append((f"{m.strong('Significance:')} {significance_line(report, m)}", []))
    seg = report.get("segments") or {}
    if seg.get("file"):
        also = f" and {m.code(seg['parquet'])}" if seg.get("parquet") else ""
        items.append(
            (
                f"Segment-level scores ({t(seg['n_rows'])} rows): {m.link(seg['file'])}{also}, "
                f"next to this {m.where}.",
                [],
            )
        )
    return items
