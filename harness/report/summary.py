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


def is_default_significance(sig: Any) -> bool:
    """Whether ``sig`` is the paired bootstrap :func:`build_report` computes by default."""
    return isinstance(sig, Mapping) and "results" in sig and "how" in sig


def design_words(sig: Mapping[str, Any]) -> str:
    """What the default significance section tested, in words."""
    if sig.get("design") == "pair":
        return "the pair of systems chosen (--significance-pair)"
    return "every system against the best system of its fixture (the baseline)"


def significance_line(report: Mapping[str, Any], m: Markup) -> str:
    """One sentence on significance: computed (per fixture, how many systems are below the
    best at p < 0.05, or the chosen pair's p), not computed and how to get it, or
    precomputed."""
    sig = report.get("significance")
    if sig is None:
        return m.text(f"not included in this report. To get it, {SIGNIFICANCE_HOW}.")
    if is_default_significance(sig):
        ok = [r for r in sig["results"] if not r.get("error")]
        if not ok:
            return m.text(f"{sig.get('note') or 'not computed'}. To get it, {sig['how']}.")
        head = f"paired bootstrap ({sig['resamples']} resamples, seed {sig['seed']})"
        if sig.get("design") == "pair":
            parts = [
                f"{r['system']} vs {r['baseline']} under {r['profile']}: "
                f"Δ {fmt_number(r['delta'], 2, sign=True)}, p = {fmt_number(r['p_value'], 4)}"
                for r in ok
            ]
            return m.text(f"{head} of the chosen pair: " + "; ".join(parts) + ".")
        parts = []
        for (fixture, profile), rs in _by_test(ok).items():
            below = sum(1 for r in rs if r["p_value"] < 0.05)
            parts.append(
                f"on {fixture} under {profile}, {below} of {len(rs)} systems score "
                f"significantly below the best, {rs[0]['baseline']} (p < 0.05)"
            )
        more = f" (and {len(parts) - 2} more fixture/profile tests below)" if len(parts) > 2 else ""
        return m.text(
            f"{head} of every system against the best: " + "; ".join(parts[:2]) + more + "."
        )
    return m.text("precomputed results (see below).")


def _by_test(results: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[Any]]:
    out: dict[tuple[str, str], list[Any]] = {}
    for r in results:
        out.setdefault((r["fixture"], r["profile"]), []).append(r)
    return out


def _pairs(items: Sequence[Sequence[Any]], m: Markup) -> str:
    return ", ".join(f"{m.code(x[0])} vs {m.code(x[1])}" for x in items)


def library_line(report: Mapping[str, Any], m: Markup) -> str | None:
    """ "11/11 real libraries equal their in-house profiles" (and which differ or did not run),
    from the pairs of each library against its own profile; ``None`` when none ran."""
    libs = (report.get("summary") or {}).get("libraries") or {}
    equal, differ, not_run = libs.get("equal", []), libs.get("differ", []), libs.get("not_run", [])
    n = len(equal) + len(differ)
    if not n and not not_run:
        return None
    text = f"{m.strong(f'{len(equal)}/{n} real libraries')} equal their in-house profiles"
    text += f" ({', '.join(m.code(x) for x in equal)})" if equal else ""
    if differ:
        text += f"; {m.label('no', 'not')}: {', '.join(m.code(x) for x in differ)}"
    if not_run:
        text += "; not run: " + "; ".join(f"{m.code(x)} ({m.text(why)})" for x, why in not_run)
    return text + "."


def summary_items(report: Mapping[str, Any], m: Markup) -> list[tuple[str, list[str]]]:
    """The summary's bullet items, each with its sub-items. With an ``answer`` (systems that
    share references): what was compared, then its findings in plain words (the spread, each
    cause with its values and points, whether the ranking changes, whether the real libraries
    equal their profiles). Otherwise: what was compared and why there is no such answer,
    the libraries against their profiles, the largest gap between BLEU-4 implementations and
    the factor behind it, how many pairs agree. Then what has no scores and why,
    significance, and where the segment table is."""
    ans = report.get("answer")
    items: list[tuple[str, list[str]]] = [(_compared(report, m), [])]
    if ans:
        items += [(m.text(x), []) for x in ans.get("findings") or ()]
    else:
        items += _without_answer(report, m)
    items += _problems(report, m)
    items.append((f"{m.strong('Significance:')} {significance_line(report, m)}", []))
    seg = report.get("segments") or {}
    t = m.text
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


def _compared(report: Mapping[str, Any], m: Markup) -> str:
    sm = report.get("summary") or {}
    ans = report.get("answer")
    impls = sm.get("implementations") or []
    libs = sum(1 for x in impls if not str(x).startswith("harness:"))
    what = f"{len(impls) - libs} in-house profiles and {libs} real libraries"
    if ans:
        refs = ans["references"]
        nrefs = str(refs[0]) if refs[0] == refs[1] else f"{refs[0]}–{refs[1]}"
        return (
            f"{m.strong('Compared')} {what} on {m.text(ans['fixture'])}: "
            f"{len(ans['systems'])} systems, {m.text(ans['segments'])} segments, {nrefs} "
            "reference(s) each, scored against the same references."
        )
    corpora = sm.get("corpora") or []
    fixtures = list(dict.fromkeys(c.split("/", 1)[0] for c in corpora))
    return (
        f"{m.strong('Compared')} {what} on {len(corpora)} corpus/system unit(s) from "
        f"{len(fixtures)} fixture(s) ({m.text(', '.join(fixtures)) or 'none'}), "
        f"{m.text(sm.get('n_segments', 0))} segments."
    )


def _without_answer(report: Mapping[str, Any], m: Markup) -> list[tuple[str, list[str]]]:
    sm = report.get("summary") or {}
    t = m.text
    items: list[tuple[str, list[str]]] = []
    if sm.get("answer_note"):
        items.append(
            (
                t(
                    "No per-family answer (gaps split into causes, ranking changes): "
                    + sm["answer_note"].removeprefix("not computed: ")
                    + ". The gap matrix below compares every implementation."
                ),
                [],
            )
        )
    lib = library_line(report, m)
    if lib:
        items.append((lib, []))
    gap = sm.get("largest_gap")
    if gap:
        text = (
            f"{m.strong('Largest gap between BLEU-4 implementations:')} on "
            f"{t(gap['fixture'])}/{t(gap['system'])}, {m.code(gap['a'])} scores "
            f"{t(fmt_number(gap.get('score_a'), 2))} and {m.code(gap['b'])} "
            f"{t(fmt_number(gap.get('score_b'), 2))} ({t(fmt_number(gap['gap'], 2, sign=True))} "
            "BLEU points)"
        )
        ex = gap.get("explained_by")
        if ex:
            elsewhere = (ex.get("fixture"), ex.get("system")) != (gap["fixture"], gap["system"])
            text += (
                f"; mostly {m.strong(t(ex['factor']))} "
                f"({t(fmt_number(ex['points'], 2, sign=True))} of "
                f"{t(fmt_number(ex['attribution_gap'], 2, sign=True))} points"
                + (f" on {t(ex.get('fixture'))}/{t(ex.get('system'))}" if elsewhere else "")
                + ")"
            )
        items.append((text + ".", []))
    n_agree, n_dis = len(sm.get("agree") or []), len(sm.get("disagree") or [])
    if n_agree or n_dis:
        items.append(
            (
                f"Of {n_agree + n_dis} pairs compared, {m.label('yes', str(n_agree))} agree "
                f"within tolerance and {m.label('no', str(n_dis))} differ (different settings "
                "give different numbers; the exceptions are listed under Pairs).",
                [],
            )
        )
    return items


def _problems(report: Mapping[str, Any], m: Markup) -> list[tuple[str, list[str]]]:
    sm = report.get("summary") or {}
    t = m.text
    probs = sm.get("problems") or []
    nc = sm.get("not_comparable") or []
    items: list[tuple[str, list[str]]] = []
    if nc:
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
    elif sm.get("implementations"):
        items.append(("Every implementation scored every corpus.", []))
    return items
