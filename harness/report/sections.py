"""The report's sections, each computed from the runner's rows (and the corpora, when given):
the signature, proofs, per-corpus scores, judged pairs, segment table, correlations,
attributions, default significance and the summary. :func:`~harness.report.build.build_report`
puts them together; the schema is documented in :mod:`harness.report`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.analysis import correlation
from harness.analysis.answer import is_bleu4
from harness.analysis.attribution import attribute
from harness.bleu.profiles import PROFILES, VERIFICATION, verification
from harness.data.corpus import Corpus
from harness.errors import HarnessError
from harness.progress import ProgressCallback, track
from harness.report.schema import (
    CORRELATION_METHODS,
    DEFAULT_ATTRIBUTION_PAIRS,
    SCHEMA_VERSION,
    SEGMENT_COLUMNS,
    SEGMENTS_CSV,
    SEGMENTS_PARQUET,
)
from harness.scorers import PROFILE_OF, tolerance
from harness.session import Session


def labels_in(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The implementation labels in ``rows``, in first-seen order."""
    return list(dict.fromkeys(str(r["implementation"]) for r in rows))


def kinds_in(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Implementation label → its rows' ``kind`` (``profile``, ``adapter``, …; first seen)."""
    out: dict[str, str] = {}
    for r in rows:
        out.setdefault(str(r["implementation"]), str(r.get("kind") or ""))
    return out


# ---------------------------------------------------------------------- sections
def signature(
    rows: Sequence[Mapping[str, Any]],
    versions: Mapping[str, str],
    seed: int,
    limit: int | None = None,
) -> str:
    """The report's signature: schema, seed, the segment limit if the corpora were cut
    (``compare``/``report --limit``), each implementation's signature, versions last."""
    sigs: dict[str, str] = {}
    for r in rows:
        label = str(r["implementation"])
        if not sigs.get(label):
            sigs[label] = str(r.get("signature") or "")
    parts = [f"report:{SCHEMA_VERSION}", f"seed:{seed}"]
    if limit is not None:
        parts.append(f"limit:{limit}")
    parts += [f"impl:{label}[{sig}]" for label, sig in sigs.items()]
    parts.append("version:" + ",".join(f"{k}={v}" for k, v in versions.items()))
    return "|".join(parts)


def verification_of(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """For every in-house implementation in the rows (``harness:<profile>``): whether that
    profile is proven against its real implementation (:data:`harness.bleu.profiles.VERIFICATION`).
    Adapters' rows are the real libraries and need no entry."""
    out: dict[str, dict[str, str]] = {}
    for r in rows:
        label = str(r["implementation"])
        if label.startswith("harness:") and label not in out:
            v = verification(label.split(":", 1)[1])
            out[label] = {"status": v.status, "oracle": v.oracle, "evidence": v.evidence}
    return out


def fixtures(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per ``(fixture, system)``: segment count, corpus scores and statuses by implementation."""
    labels = labels_in(rows)
    units: dict[tuple[str, str], dict[str, Any]] = {}
    segs: dict[tuple[str, str], set[str]] = {}
    for r in rows:
        key = (str(r["fixture"]), str(r["system"]))
        unit = units.setdefault(
            key, {"fixture": key[0], "system": key[1], "segments": None, "scores": {}, "status": {}}
        )
        if r["level"] == "corpus":
            label = str(r["implementation"])
            unit["status"][label] = r.get("status")
            unit["scores"][label] = r.get("score") if r.get("status") == "ok" else None
        elif r.get("segment_id") is not None:
            segs.setdefault(key, set()).add(str(r["segment_id"]))
    for key, unit in units.items():
        if key in segs:
            unit["segments"] = len(segs[key])
        # every implementation appears, in row order, even without a corpus row here
        unit["scores"] = {lb: unit["scores"].get(lb) for lb in labels if lb in unit["status"]}
        unit["status"] = {lb: unit["status"][lb] for lb in labels if lb in unit["status"]}
    return list(units.values())


def correlations(
    rows: Sequence[Mapping[str, Any]],
    seed: int,
    n_boot: int,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """The ``correlations`` section: per level, the :data:`CORRELATION_METHODS` matrices of the
    implementations with two or more scores there (``n_boot`` bootstrap resamples, ``seed``)."""
    out: dict[str, Any] = {"segment": None, "corpus": None, "note": None}
    notes = []
    for level in track(("segment", "corpus"), progress, "report: correlations"):
        pivot = correlation.from_results(rows, level)
        usable = {k: v for k, v in pivot.scores.items() if sum(x is not None for x in v) >= 2}
        if len(usable) < 2:
            notes.append(f"{level}: fewer than two implementations with two or more scores")
            continue
        out[level] = {
            "n_keys": len(pivot.keys),
            "n_skipped": pivot.n_skipped,
            "matrices": {
                m: correlation.correlation_matrix(
                    usable, m, n_boot=n_boot, seed=seed, progress=progress
                ).to_dict()
                for m in CORRELATION_METHODS
            },
        }
    out["note"] = "; ".join(notes) or None
    return out


def _failed_attribution(a: str, b: str, corpus: Corpus, error: str) -> dict[str, Any]:
    return {
        "a": a,
        "b": b,
        "corpus": corpus.name,
        "segment": None,
        "score_a": None,
        "score_b": None,
        "gap": None,
        "factors": {},
        "shares": {},
        "changes": {},
        "residual": None,
        "library": None,
        "library_score": None,
        "signature_a": "",
        "signature_b": "",
        "substituted": [],
        "error": error,
    }


def attributions(
    rows: Sequence[Mapping[str, Any]],
    corpora: dict[tuple[str, str], Corpus],
    pairs: Sequence[tuple[str, str]] | None,
    max_corpora: int,
    progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]:
    """The ``attributions`` section: each profile pair (``pairs``, default
    :data:`DEFAULT_ATTRIBUTION_PAIRS` where both have rows) on the first ``max_corpora``
    corpora, with the library ``b`` as residual where its adapter scored that corpus."""
    if not corpora:
        return []
    labels = labels_in(rows)
    if pairs is None:
        pairs = [
            (a, b)
            for a, b in DEFAULT_ATTRIBUTION_PAIRS
            if f"harness:{a}" in labels and f"harness:{b}" in labels
        ]
    units = [(f, s) for f, s in dict.fromkeys((str(r["fixture"]), str(r["system"])) for r in rows)]
    chosen = [u for u in units if u in corpora][:max_corpora]
    out: list[dict[str, Any]] = []
    session = Session()  # the pairs of one corpus share its statistics
    # The library's corpus score is its row's: the library is not run a second time.
    scored = {
        (r["implementation"], r["fixture"], r["system"]): r["score"]
        for r in rows
        if r["level"] == "corpus" and r.get("status") == "ok" and r.get("kind") == "adapter"
    }
    for f, s in track(chosen, progress, "report: attributions"):
        corpus = corpora[(f, s)]
        for a, b in pairs:
            known = scored.get((b, f, s))
            library = b if known is not None else None
            entry: dict[str, Any]
            try:
                try:
                    entry = attribute(
                        corpus, a, b, library=library, library_score=known, session=session
                    ).to_dict()
                    entry["error"] = None
                except HarnessError as exc:
                    if library is None:
                        raise
                    entry = attribute(corpus, a, b, session=session).to_dict()
                    entry["error"] = None
                    entry["library_error"] = str(exc)
            except HarnessError as exc:
                entry = _failed_attribution(a, b, corpus, str(exc))
            entry["fixture"], entry["system"] = f, s
            out.append(entry)
    return out


# ---------------------------------------------------------------------- schema 2 sections
def label_tolerance(label: str, floor: float = 1e-9) -> float:
    """The tolerance (BLEU points) at which ``label`` is proven against its real
    implementation: the tolerance of the profile a library adapter reproduces
    (:func:`harness.scorers.tolerance`), :data:`harness.bleu.profiles.VERIFICATION`
    ``[name].tolerance`` for an in-house profile ``harness:name`` (torchmetrics
    computes in float32: 1e-4), else ``floor``; never below ``floor``."""
    if label in PROFILE_OF:  # a library adapter: the tolerance of the profile it reproduces
        return max(floor, tolerance(label))
    name = label.split(":", 1)[1] if label.startswith("harness:") else label
    v = VERIFICATION.get(name)
    return max(floor, v.tolerance) if v is not None else floor


def pair_tolerance(a: str, b: str, floor: float = 1e-9) -> float:
    """A pair is judged at the tolerance of its less precise side (:func:`label_tolerance`)."""
    return max(label_tolerance(a, floor), label_tolerance(b, floor))


def _short_reason(side: Mapping[str, Any]) -> str:
    err = " ".join(str(side.get("error") or "").split())
    if len(err) > 160:
        err = err[:157] + "…"
    return f"{side.get('status')}" + (f" ({err})" if err else "")


def judge_pair(p: dict[str, Any]) -> dict[str, Any]:
    """Add ``verdict`` (``agree``/``disagree``/``n/a``), ``na_reason``, ``compared`` and
    ``not_compared`` to one pair, and set ``agree`` from the comparable corpora and segments
    only: a side without scores (unavailable, unsupported, raises, error) is "n/a", never a
    disagreement."""
    tol = p["tolerance"]
    compared = [g for g in p["corpora"] if g.get("gap") is not None]
    missing = [g for g in p["corpora"] if g.get("gap") is None]
    reasons: dict[str, None] = {}
    for g in missing:
        for key in ("a", "b"):
            side = g[key]
            if side.get("status") != "ok":
                reasons[f"{p[key]}: {_short_reason(side)}"] = None
    seg = p["segments"]
    comparable = bool(compared) or bool(seg.get("n"))
    if not comparable:
        p["agree"], p["verdict"] = None, "n/a"
        p["na_reason"] = "; ".join(reasons) or "no corpus or segment scored by both"
    else:
        worst = max(
            [abs(g["gap"]) for g in compared] + ([seg["max_abs"]] if seg.get("max_abs") else []),
            default=0.0,
        )
        p["agree"] = worst <= tol
        p["verdict"] = "agree" if p["agree"] else "disagree"
        p["na_reason"] = "; ".join(reasons) or None
    p["compared"] = len(compared)
    p["not_compared"] = len(missing)
    return p


def _segment_table(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The tidy segment-level table: one entry per segment-level row, columns
    :data:`SEGMENT_COLUMNS` (``score`` ``None`` unless the row is ok)."""
    cols: dict[str, list[Any]] = {c: [] for c in SEGMENT_COLUMNS}
    for r in rows:
        if r.get("level") != "segment":
            continue
        ok = r.get("status") == "ok"
        for c in SEGMENT_COLUMNS:
            v = r.get(c)
            if c == "score":
                v = v if ok and isinstance(v, (int, float)) and math.isfinite(v) else None
            cols[c].append(v if v is None or c == "score" else str(v))
    return cols


def _parquet_available() -> bool:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def segments_section(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``segments`` section: the file names, columns and size of the segment table, and
    the table itself (``table``, kept in memory only)."""
    table = _segment_table(rows)
    n = len(table["fixture"])
    return {
        "file": SEGMENTS_CSV if n else None,
        "parquet": SEGMENTS_PARQUET if n and _parquet_available() else None,
        "columns": list(SEGMENT_COLUMNS),
        "n_rows": n,
        "implementations": list(dict.fromkeys(table["implementation"])),
        "table": table,
    }


def _problems(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per implementation and non-ok status: how many corpus-level rows, and the first reason."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        status = str(r.get("status"))
        if status == "ok" or r.get("level") != "corpus":
            continue
        key = (str(r["implementation"]), status)
        entry = out.setdefault(
            key,
            {
                "implementation": key[0],
                "status": status,
                "corpora": 0,
                "reason": _short_reason({"status": status, "error": r.get("error")}),
            },
        )
        entry["corpora"] += 1
    return list(out.values())


def bleu4_label(label: str) -> bool:
    """Whether an implementation label is BLEU-4 (orders 1–4 weighted alike): an in-house
    profile or a library adapter by the profile it reproduces; unknown ones count as BLEU-4."""
    name = label.split(":", 1)[1] if label.startswith("harness:") else PROFILE_OF.get(label)
    return name is None or name not in PROFILES or is_bleu4(PROFILES[name])


def library_pair(p: Mapping[str, Any]) -> bool:
    """Whether a pair is a real library against its own in-house profile."""
    return str(p["a"]) == f"harness:{PROFILE_OF.get(str(p['b']), '')}"


def _libraries(report: Mapping[str, Any]) -> dict[str, Any]:
    """Each real library against its own profile: ``equal``, ``differ`` (names) and
    ``not_run`` (``[name, reason]``)."""
    out: dict[str, Any] = {"equal": [], "differ": [], "not_run": []}
    for p in report["pairs"]:
        if not library_pair(p):
            continue
        if p.get("verdict") == "agree":
            out["equal"].append(p["b"])
        elif p.get("verdict") == "disagree":
            out["differ"].append(p["b"])
        else:
            out["not_run"].append([p["b"], p.get("na_reason")])
    return out


def _largest_gap(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The largest corpus gap between two BLEU-4 implementations (a BLEU-1 or 4-gram-only
    profile is far from every BLEU-4 by design, which says nothing about implementations)."""
    best: dict[str, Any] | None = None
    for p in report["pairs"]:
        if not (bleu4_label(p["a"]) and bleu4_label(p["b"])):
            continue
        for g in p["corpora"]:
            gap = g.get("gap")
            if gap is not None and (best is None or abs(gap) > abs(best["gap"])):
                best = {
                    "a": p["a"],
                    "b": p["b"],
                    "fixture": g["fixture"],
                    "system": g["system"],
                    "gap": gap,
                    "score_a": g["a"].get("score"),
                    "score_b": g["b"].get("score"),
                }
    if best is None:
        return None

    def bare(x: str) -> str:
        return x.split(":", 1)[1] if x.startswith("harness:") else x

    best["explained_by"] = None
    same = [
        at
        for at in report["attributions"]
        if not at.get("error")
        and at["factors"]
        and (bare(best["a"]), bare(best["b"])) == (at["a"], at["b"])
    ]
    # the attribution on this corpus, else the same pair's on another (attributions run on
    # the first corpora only)
    same.sort(
        key=lambda at: (at.get("fixture"), at.get("system")) != (best["fixture"], best["system"])
    )
    if same:
        at = same[0]
        factor, points = max(at["factors"].items(), key=lambda kv: abs(kv[1] or 0.0))
        best["explained_by"] = {
            "factor": factor,
            "points": points,
            "attribution_gap": at["gap"],
            "residual": at.get("residual"),
            "fixture": at.get("fixture"),
            "system": at.get("system"),
        }
    return best


def _largest_attribution(report: Mapping[str, Any]) -> dict[str, Any] | None:
    ok = [at for at in report["attributions"] if not at.get("error") and at["factors"]]
    if not ok:
        return None
    at = max(ok, key=lambda x: abs(x["gap"] or 0.0))
    factor, points = max(at["factors"].items(), key=lambda kv: abs(kv[1] or 0.0))
    return {
        "a": at["a"],
        "b": at["b"],
        "fixture": at.get("fixture"),
        "system": at.get("system"),
        "gap": at["gap"],
        "factor": factor,
        "points": points,
    }


def summary(report: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``summary`` section, from the other sections of ``report`` and the rows."""
    units = report["fixtures"]
    pairs = report["pairs"]
    return {
        "corpora": [f"{u['fixture']}/{u['system']}" for u in units],
        "n_segments": sum(u["segments"] or 0 for u in units),
        "implementations": labels_in(rows),
        "largest_gap": _largest_gap(report),
        "largest_attribution": _largest_attribution(report),
        "agree": [[p["a"], p["b"]] for p in pairs if p.get("verdict") == "agree"],
        "disagree": [[p["a"], p["b"]] for p in pairs if p.get("verdict") == "disagree"],
        "not_comparable": [
            [p["a"], p["b"], p.get("na_reason")] for p in pairs if p.get("verdict") == "n/a"
        ],
        "problems": _problems(rows),
        "libraries": _libraries(report),
    }
