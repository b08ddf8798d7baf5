"""The drift report in words: which releases of a library change which calls, and the smallest
example of each (:mod:`harness.diagnose.releases`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.diagnose.release_check import ProfileCheck
from harness.diagnose.releases import DriftReport, ReleaseDrift, same_answer
from harness.diagnose.validate.cases import Case
from harness.report.console import wrap

__all__ = ["drift_markdown", "drift_text", "releases_span"]


def releases_span(versions: Sequence[str]) -> str:
    """``1.2.12`` or ``1.2.12 to 1.4.14 (8 cached releases)``: a run of the releases that
    were run."""
    if len(versions) == 1:
        return versions[0]
    return f"{versions[0]} to {versions[-1]} ({len(versions)} cached releases)"


def _answer(a: Mapping[str, Any]) -> str:
    if "error" in a:
        message = a.get("message") or ""
        return f"{a['error']}: {message}" if message else str(a["error"])
    scores = a["scores"] if "scores" in a else [a["score"]]
    return ", ".join("nan" if s != s else f"{s:.4f}" for s in scores)


def _corpus(case: Case) -> str:
    hyps = repr(list(case.hypotheses))
    refs = repr([list(r) for r in case.references])
    return f"hypotheses {hyps}, references {refs}"


def _how(d: ReleaseDrift, installed: str) -> str:
    error = d.got.get("error")
    if d.kind == "raises":
        return f"raises {error} where {installed} scores"
    if d.kind == "scores":
        return f"scores where {installed} raises {d.today.get('error')}"
    if d.kind == "other error":
        return f"raises {error} where {installed} raises {d.today.get('error')}"
    return f"another number than {installed}"


def _sizes(d: ReleaseDrift, installed: str, points: float) -> str:
    """The drift on the real corpora it was sized on (a per-segment call as its mean)."""
    mean = d.call.split()[0] == "sentence_bleu" or d.call == "TruthfulQA bleu_max"

    def said(a: Mapping[str, Any]) -> str:
        return ("mean " if mean and "error" not in a else "") + _answer(a)

    return "; ".join(
        f"{s.source}: {said(s.got)}, as {installed}"
        if same_answer(s.got, s.today, points)
        else f"{s.source}: {said(s.got)} ({installed}: {said(s.today)})"
        for s in d.sizes
    )


def _drift_line(d: ReleaseDrift, installed: str, sizes: bool, points: float) -> str:
    """One drift; ``sizes``: with its size on real text (the first drift of its releases)."""
    return (
        f"{releases_span(d.releases)}: {_how(d, installed)}, on {d.differing} of the {d.cases} "
        f"corpora; smallest: {_corpus(d.example)} gives {_answer(d.got)} ({installed}: "
        f"{_answer(d.today)})"
        + (f"; on {_sizes(d, installed, points)}" if d.sizes and sizes else "")
    )


def _edges(r: DriftReport) -> str:
    """The library's edge cases among the corpora, as words ("": none)."""
    return f", {r.edges} edge cases of {r.distribution}'s releases" if r.edges else ""


def _what(r: DriftReport) -> str:
    """What is run, for a library run through a setup ("": none)."""
    return f"What is run: {r.what}." if r.what else ""


def _releases(c: ProfileCheck, installed: str) -> str:
    old = [v for v in c.releases if not (c.installed and v == installed)]
    named = releases_span(old) if old else ""
    if c.installed:
        named = f"{named} and the installed {installed}" if named else f"the installed {installed}"
    return named


def _check_line(c: ProfileCheck, installed: str) -> str:
    """Whether the profile of releases ``c.releases`` reproduces their answers."""
    if c.profile is None:
        return f"no profile covers {_releases(c, installed)}"
    name = c.profile + "".join(f", {k}={v}" for k, v in c.overrides.items())
    if c.example is None:
        return f"{name} reproduces {_releases(c, installed)} on all {c.cases} corpora"
    assert c.theirs is not None and c.ours is not None
    return (
        f"{name} does not reproduce {_releases(c, installed)} on {c.cases - c.agree} of the "
        f"{c.cases} corpora; smallest: {_corpus(c.example)}: the release gives "
        f"{_answer(c.theirs)}, the profile {_answer(c.ours)}"
    )


def _checks(report: DriftReport, call: str) -> list[str]:
    checks = [c for c in report.checks if c.call == call]
    return [wrap(_check_line(c, report.installed), indent="      ", first="    ") for c in checks]


def drift_text(report: DriftReport) -> str:
    """The drift report for a terminal: what was run on what, then per call its drifts (or
    that every release run answers as the installed one)."""
    r = report
    head = (
        f"{r.distribution}: {len(r.run)} cached release{'s' * (len(r.run) != 1)}"
        + (f" ({', '.join(r.run)})" if r.run else "")
        + f" beside the installed {r.installed}, each run as published in a process of its "
        f"own, on {r.cases} corpora: {r.cases - r.generated - r.edges} fixtures{_edges(r)} "
        f"and {r.generated} generated (seed {r.seed}; half with as many references on every segment, half "
        "ragged). A drift is a run of consecutive releases that answer every corpus alike and "
        f"some corpus otherwise than {r.installed}."
    )
    lines = [wrap(head)]
    if _what(r):
        lines.append(wrap(_what(r)))
    if r.module_only:
        lines.append(
            wrap(
                f"{', '.join(r.module_only)}: published as source archives whose package does "
                f"not import on this Python; their BLEU module was run from its file, with the "
                f"installed {r.installed}'s other modules."
            )
        )
    unbuilt = [n.version for n in r.not_run if n.reason == "source-archive"]
    if unbuilt:
        lines.append(
            wrap(
                "Not run (published as a source archive whose package must be built): "
                f"{', '.join(unbuilt)}."
            )
        )
    lines += [
        wrap(f"Not run: {n.version} ({n.detail}).") for n in r.not_run if n.reason == "failed"
    ]
    lines += [
        wrap(f"Not run: {n.version + ': ' if n.version else ''}{n.detail}.")
        for n in r.not_run
        if n.reason == "missing"
    ]
    if not r.run:
        if r.what:
            return "\n".join(lines)
        lines.append(
            wrap(
                "No other release is in the release folder: the test suite fills it when it "
                "proves the versioned profiles (make test), or point BLEU_HARNESS_RELEASES to "
                "a folder of published wheels."
            )
        )
        return "\n".join(lines)
    unchanged = []
    for call, what in r.calls:
        drifts = [d for d in r.drifts if d.call == call]
        if not drifts:
            unchanged.append(call)
            continue
        lines += ["", wrap(f"{call} — {what}")]
        lines += [
            wrap(
                _drift_line(
                    d, r.installed, i == 0 or drifts[i - 1].releases != d.releases, r.points
                ),
                indent="    ",
                first="  - ",
            )
            for i, d in enumerate(drifts)
        ]
        moved = {v for d in drifts for v in d.releases}
        lacking = [v for c, v in r.absent if c == call]
        same = [v for v in r.run if v not in moved and v not in lacking]
        if same:
            lines.append(wrap(f"as {r.installed}: {', '.join(same)}", indent="    ", first="  - "))
        if lacking:
            lines.append(
                wrap(f"without this call: {', '.join(lacking)}", indent="    ", first="  - ")
            )
        if r.checks:
            lines += ["  The profiles, each scored on every corpus:", *_checks(r, call)]
    if unchanged:
        lines += ["", wrap(f"Every release run answers as {r.installed}: {', '.join(unchanged)}.")]
        lines += _unchanged_checks(r, unchanged)
    return "\n".join(lines)


def _unchanged_checks(report: DriftReport, calls: Sequence[str]) -> list[str]:
    """For calls no release changes: one line when each call's profiles reproduce every
    release on every corpus, else the calls' checks."""
    checks = [c for c in report.checks if c.call in calls]
    if not checks:
        return []
    if all(c.profile is not None and c.example is None for c in checks):
        names = sorted({c.profile for c in checks if c.profile is not None})
        return [
            wrap(
                f"Their profiles ({', '.join(names)}) reproduce every release run and the "
                f"installed {report.installed} on all {checks[0].cases} corpora."
            )
        ]
    out = []
    for call in calls:
        out += [wrap(f"{call}:", first="  "), *_checks(report, call)]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _span(versions: Sequence[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]}–{versions[-1]}"


def drift_markdown(report: DriftReport) -> str:
    """The drift report as Markdown: what was run, a table of the drifts (one row each, with
    its smallest example) and a table of the profile checks."""
    r = report
    sized = any(d.sizes for d in r.drifts)
    lines = [
        f"### {r.distribution}",
        "",
        f"{len(r.run)} release{'' if len(r.run) == 1 else 's'} ({', '.join(r.run)}) beside "
        f"the installed {r.installed}, on "
        f"{r.cases} corpora ({r.cases - r.generated - r.edges} fixtures{_edges(r)}, "
        f"{r.generated} generated with seed {r.seed})"
        + (
            f"; {', '.join(r.module_only)} run as their BLEU module alone (the package does "
            "not import on this Python)"
            if r.module_only
            else ""
        )
        + "."
        + (f" {_what(r)}" if _what(r) else "")
        + "".join(f" {v} has no `{c}`." for c, v in r.absent),
        "",
        f"| call | releases | otherwise than {r.installed} | corpora | smallest example | "
        f"release | {r.installed} |" + (" on real text |" if sized else ""),
        "| --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if sized else ""),
    ]
    for d in r.drifts:
        how = _how(d, r.installed).replace(f" where {r.installed} scores", "")
        how = how.replace(f" than {r.installed}", "")
        lines.append(
            f"| `{d.call}` | {_span(d.releases)} | {_cell(how)} | {d.differing}/{d.cases} | "
            f"{_cell(_corpus(d.example))} | {_cell(_answer(d.got))} | "
            f"{_cell(_answer(d.today))} |"
            + (f" {_cell(_sizes(d, r.installed, r.points))} |" if sized else "")
        )
    lines += [
        "",
        "| call | releases | profile | corpora reproduced |",
        "| --- | --- | --- | --- |",
    ]
    for c in r.checks:
        who = [v if v != r.installed or not c.installed else f"{v} (installed)" for v in c.releases]
        name = (
            "none covers them"
            if c.profile is None
            else f"`{c.profile}`" + "".join(f" {k}={v}" for k, v in c.overrides.items())
        )
        got = "–" if c.profile is None else f"{c.agree}/{c.cases}"
        lines.append(f"| `{c.call}` | {_span(who)} | {name} | {got} |")
    return "\n".join(lines)
