"""Build the report object from the runner's rows, and write it out atomically."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.data.corpus import Corpus
from harness.errors import ConfigError, HarnessError, InputError
from harness.progress import ProgressCallback, track
from harness.report.outdir import OutputDir

SCHEMA_VERSION = "2"

#: The top-level keys of a report, in order (see the package docstring for each).
TOP_KEYS: tuple[str, ...] = (
    "summary",
    "signature",
    "versions",
    "verification",
    "fixtures",
    "pairs",
    "segments",
    "correlations",
    "attributions",
    "human",
    "significance",
)

#: The sections :func:`build_report` computes by default.
DEFAULT_INCLUDE: tuple[str, ...] = (
    "pairs",
    "correlations",
    "attributions",
    "human",
    "significance",
)

#: Output formats of :func:`write_report` and the file each writes.
FORMATS: Mapping[str, str] = MappingProxyType(
    {"md": "report.md", "json": "report.json", "html": "index.html"}
)

#: The tidy segment-level table written next to every report that has segment rows (one row
#: per implementation and segment), and its Parquet twin when pyarrow is importable.
SEGMENTS_CSV = "segments.csv"
SEGMENTS_PARQUET = "segments.parquet"
SEGMENT_COLUMNS: tuple[str, ...] = (
    "fixture",
    "system",
    "segment_id",
    "implementation",
    "kind",
    "status",
    "score",
)

#: Paired-bootstrap resamples of the default significance section.
SIGNIFICANCE_RESAMPLES = 1000
#: The default significance section tests at most this many multi-system fixtures.
MAX_SIGNIFICANCE_FIXTURES = 4

CORRELATION_METHODS: tuple[str, ...] = ("pearson", "kendall")

#: Profile pairs attributed by default (``a`` → ``b``), when both profiles have rows.
DEFAULT_ATTRIBUTION_PAIRS: tuple[tuple[str, str], ...] = (
    ("sacrebleu", "nltk"),
    ("sacrebleu", "evaluate"),
    ("sacrebleu", "torchmetrics"),
    ("sacrebleu", "sacrebleu-sentence"),
    ("sacrebleu", "pycocoevalcap"),
)


# ---------------------------------------------------------------------- JSON hygiene
def jsonable(obj: Any) -> Any:
    """Plain JSON values: mappings → dicts, tuples → lists, numpy scalars → Python numbers,
    NaN/±inf → ``None``; objects with ``to_dict()`` are converted first."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "to_dict") and callable(obj.to_dict):
        return jsonable(obj.to_dict())
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    try:  # numpy scalars and arrays, without importing numpy here
        import numpy as np

        if isinstance(obj, np.ndarray):
            return jsonable(obj.tolist())
        if isinstance(obj, np.generic):
            return jsonable(obj.item())
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot put a {type(obj).__name__} into a report")


def render_json(report: Mapping[str, Any]) -> str:
    """``report.json``: :func:`json_view` of the report as JSON text (UTF-8 characters kept,
    ``indent=2``, no NaN), newline-ended."""
    return json.dumps(json_view(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


# ---------------------------------------------------------------------- inputs
def _corpora_map(
    corpora: Mapping[Any, Corpus] | Iterable[tuple[str, str, Corpus]] | None,
) -> dict[tuple[str, str], Corpus]:
    """``{(fixture, system): Corpus}`` from a mapping (keys ``(f, s)`` or ``"f/s"``) or from
    the ``(fixture, system, corpus)`` triples :func:`harness.analysis.runner.run` takes."""
    if corpora is None:
        return {}
    out: dict[tuple[str, str], Corpus] = {}
    items: Iterable[Any] = corpora.items() if isinstance(corpora, Mapping) else corpora
    for item in items:
        if isinstance(corpora, Mapping):
            key, corpus = item
            if isinstance(key, str):
                f, sep, s = key.partition("/")
                if not sep:
                    raise ConfigError(f"corpora key {key!r} must be 'fixture/system'")
            else:
                f, s = key
        else:
            f, s, corpus = item
        if not isinstance(corpus, Corpus):
            raise ConfigError(f"corpora[{f}/{s}] must be a Corpus, got {type(corpus).__name__}")
        out[(str(f), str(s))] = corpus
    return out


def _labels(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(r["implementation"]) for r in rows))


def _kinds(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in rows:
        out.setdefault(str(r["implementation"]), str(r.get("kind") or ""))
    return out


def default_pairs(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Every adapter ``X`` vs its own profile ``harness:X`` (``a`` = the profile), then
    sacrebleu (the adapter if it has an ok row, else ``harness:sacrebleu``) vs every other
    implementation in the rows; no pair twice (in either order)."""
    labels = _labels(rows)
    kinds = _kinds(rows)
    pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()

    def add(a: str, b: str) -> None:
        key = frozenset((a, b))
        if a != b and key not in seen:
            seen.add(key)
            pairs.append((a, b))

    for label in labels:
        if kinds.get(label) == "adapter" and f"harness:{label}" in labels:
            add(f"harness:{label}", label)
    ok = {str(r["implementation"]) for r in rows if r.get("status") == "ok"}
    ref = next((x for x in ("sacrebleu", "harness:sacrebleu") if x in ok), None)
    if ref is None:
        ref = next((x for x in ("sacrebleu", "harness:sacrebleu") if x in labels), None)
    if ref is not None:
        for label in labels:
            add(ref, label)
    return pairs


# ---------------------------------------------------------------------- sections
def _signature(rows: Sequence[Mapping[str, Any]], versions: Mapping[str, str], seed: int) -> str:
    sigs: dict[str, str] = {}
    for r in rows:
        label = str(r["implementation"])
        if not sigs.get(label):
            sigs[label] = str(r.get("signature") or "")
    parts = [f"report:{SCHEMA_VERSION}", f"seed:{seed}"]
    parts += [f"impl:{label}[{sig}]" for label, sig in sigs.items()]
    parts.append("version:" + ",".join(f"{k}={v}" for k, v in versions.items()))
    return "|".join(parts)


def _verification(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """For every in-house implementation in the rows (``harness:<profile>``): whether that
    profile is proven against its real implementation (:data:`harness.bleu.profiles.VERIFICATION`).
    Adapters' rows are the real libraries and need no entry."""
    from harness.bleu.profiles import verification

    out: dict[str, dict[str, str]] = {}
    for r in rows:
        label = str(r["implementation"])
        if label.startswith("harness:") and label not in out:
            v = verification(label.split(":", 1)[1])
            out[label] = {"status": v.status, "oracle": v.oracle, "evidence": v.evidence}
    return out


def _fixtures(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    labels = _labels(rows)
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


def _correlations(
    rows: Sequence[Mapping[str, Any]],
    seed: int,
    n_boot: int,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"segment": None, "corpus": None, "note": None}
    try:
        from harness.analysis import correlation
    except ImportError as exc:
        out["note"] = f"correlations unavailable: harness.analysis.correlation: {exc}"
        return out
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


def _ok_corpus(rows: Sequence[Mapping[str, Any]], label: str, fixture: str, system: str) -> bool:
    return any(
        r["implementation"] == label
        and r["level"] == "corpus"
        and r["fixture"] == fixture
        and r["system"] == system
        and r.get("status") == "ok"
        for r in rows
    )


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


def _attributions(
    rows: Sequence[Mapping[str, Any]],
    corpora: dict[tuple[str, str], Corpus],
    pairs: Sequence[tuple[str, str]] | None,
    max_corpora: int,
    progress: ProgressCallback | None = None,
) -> list[dict[str, Any]]:
    if not corpora:
        return []
    from harness.analysis.attribution import attribute

    labels = _labels(rows)
    if pairs is None:
        pairs = [
            (a, b)
            for a, b in DEFAULT_ATTRIBUTION_PAIRS
            if f"harness:{a}" in labels and f"harness:{b}" in labels
        ]
    units = [(f, s) for f, s in dict.fromkeys((str(r["fixture"]), str(r["system"])) for r in rows)]
    chosen = [u for u in units if u in corpora][:max_corpora]
    out: list[dict[str, Any]] = []
    for f, s in track(chosen, progress, "report: attributions"):
        corpus = corpora[(f, s)]
        for a, b in pairs:
            library = b if _ok_corpus(rows, b, f, s) else None
            entry: dict[str, Any]
            try:
                try:
                    entry = attribute(corpus, a, b, library=library).to_dict()
                    entry["error"] = None
                except HarnessError as exc:
                    if library is None:
                        raise
                    entry = attribute(corpus, a, b).to_dict()
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
    implementation: :data:`harness.bleu.profiles.VERIFICATION` ``[name].tolerance`` for an
    in-house profile ``harness:name`` or an adapter ``name`` that has a profile (torchmetrics
    computes in float32: 1e-4), else ``floor``; never below ``floor``."""
    from harness.bleu.profiles import VERIFICATION

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


def _judge_pair(p: dict[str, Any]) -> dict[str, Any]:
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


def _segments_section(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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


def _largest_gap(report: Mapping[str, Any]) -> dict[str, Any] | None:
    best: dict[str, Any] | None = None
    for p in report["pairs"]:
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


def _summary(report: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    units = report["fixtures"]
    pairs = report["pairs"]
    return {
        "corpora": [f"{u['fixture']}/{u['system']}" for u in units],
        "n_segments": sum(u["segments"] or 0 for u in units),
        "implementations": _labels(rows),
        "largest_gap": _largest_gap(report),
        "largest_attribution": _largest_attribution(report),
        "agree": [[p["a"], p["b"]] for p in pairs if p.get("verdict") == "agree"],
        "disagree": [[p["a"], p["b"]] for p in pairs if p.get("verdict") == "disagree"],
        "not_comparable": [
            [p["a"], p["b"], p.get("na_reason")] for p in pairs if p.get("verdict") == "n/a"
        ],
        "problems": _problems(rows),
    }


SIGNIFICANCE_HOW = (
    "run `bleu-harness report` on the corpora (not from --results) with a fixture that has "
    "two or more systems (e.g. --fixture silence_pitfall, or --wmt21), or test two hypothesis "
    "files directly: `bleu-harness significance BASELINE SYSTEM REF [REF ...] --profile NAME`"
)


def _default_significance(
    rows: Sequence[Mapping[str, Any]],
    corpora: dict[tuple[str, str], Corpus],
    seed: int,
    resamples: int = SIGNIFICANCE_RESAMPLES,
) -> dict[str, Any]:
    """Paired bootstrap (Koehn 2004) of the second system against the first of every fixture
    with two or more systems (at most :data:`MAX_SIGNIFICANCE_FIXTURES`), under every in-house
    profile in the rows, on statistics computed once per system."""
    from harness.analysis.significance import paired_bootstrap, prepare
    from harness.bleu import engine
    from harness.bleu.profiles import PROFILES

    out: dict[str, Any] = {
        "method": "paired-bootstrap",
        "resamples": resamples,
        "seed": seed,
        "results": [],
        "note": None,
        "how": SIGNIFICANCE_HOW,
    }
    profiles = [
        lb.split(":", 1)[1]
        for lb in _labels(rows)
        if lb.startswith("harness:") and lb.split(":", 1)[1] in PROFILES
    ]
    systems: dict[str, list[str]] = {}
    for f, s in corpora:
        systems.setdefault(f, []).append(s)
    multi = [(f, ss[0], ss[1]) for f, ss in systems.items() if len(ss) >= 2]
    if not corpora:
        out["note"] = (
            "not computed: the report was built without the corpora (from a results table)"
        )
        return out
    if not profiles:
        out["note"] = "not computed: no in-house profile (harness:NAME) in the rows"
        return out
    if not multi:
        out["note"] = "not computed: no fixture has two or more systems"
        return out
    if len(multi) > MAX_SIGNIFICANCE_FIXTURES:
        out["note"] = (
            f"tested the first {MAX_SIGNIFICANCE_FIXTURES} of {len(multi)} multi-system fixtures"
        )
    for f, base, other in multi[:MAX_SIGNIFICANCE_FIXTURES]:
        for name in profiles:
            cfg = PROFILES[name]
            entry: dict[str, Any] = {
                "fixture": f,
                "baseline": base,
                "system": other,
                "profile": name,
                "error": None,
            }
            try:
                ta = prepare(engine.compute_statistics(corpora[(f, base)], cfg), cfg)
                tb = prepare(engine.compute_statistics(corpora[(f, other)], cfg), cfg)
                res = paired_bootstrap(ta, tb, cfg, resamples=resamples, seed=seed)
                entry.update(res.to_dict())
            except HarnessError as exc:
                entry["error"] = str(exc)
            out["results"].append(entry)
    return out


def json_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """The report as ``report.json`` holds it: the in-memory segment table
    (``segments["table"]``) is left out — it is written to ``segments["file"]``."""
    out = dict(report)
    seg = out.get("segments")
    if isinstance(seg, Mapping) and "table" in seg:
        out["segments"] = {k: v for k, v in seg.items() if k != "table"}
    return out


def build_report(
    rows: Iterable[Mapping[str, Any]],
    *,
    corpora: Mapping[Any, Corpus] | Iterable[tuple[str, str, Corpus]] | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
    include: Sequence[str] = DEFAULT_INCLUDE,
    seed: int = 0,
    human: Any = None,
    significance: Any = None,
    tolerance: float = 1e-9,
    top: int = 5,
    n_boot: int = 0,
    attribution_pairs: Sequence[tuple[str, str]] | None = None,
    max_attribution_corpora: int = 4,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """One JSON-ready report object from the runner's rows (schema: the package docstring).

    ``corpora`` — ``{(fixture, system): Corpus}`` (or ``"fixture/system"`` keys, or the
    triples given to :func:`harness.analysis.runner.run`) — adds segment texts to the pairs and enables
    attributions (``attribution_pairs`` of profile names, default
    :data:`DEFAULT_ATTRIBUTION_PAIRS` where both have rows, on at most
    ``max_attribution_corpora`` corpora; the library ``b`` gives the residual when its adapter
    has an ok row there). ``pairs`` are ``(a, b)`` implementation names (row labels or
    ``profile:``/``adapter:`` specs; default :func:`default_pairs`); each pair is judged at
    :func:`pair_tolerance` (the less precise side's proven tolerance, at least ``tolerance``);
    ``top`` goes to :func:`~harness.analysis.difference.difference`. ``include`` chooses the computed
    sections (left-out ones are empty: ``[]``, ``null`` or a ``correlations`` note).
    ``seed`` and ``n_boot`` are the correlations' bootstrap (0 resamples: no intervals).
    ``human`` and ``significance`` are precomputed results (objects with ``to_dict()`` or
    JSON values), stored as given; without ``significance`` (and with corpora) a paired
    bootstrap is computed (:func:`_default_significance`), else the section says why not and
    how to get one. ``progress`` (:data:`~harness.progress.ProgressCallback`) is told of each
    finished pair, correlation level and attributed corpus.

    Raises:
        ConfigError: an unknown section in ``include``, an unknown implementation in ``pairs``.
    """
    from harness.analysis import runner
    from harness.analysis.difference import difference, implementation_label

    include = tuple(include)
    unknown = sorted(set(include) - set(DEFAULT_INCLUDE))
    if unknown:
        raise ConfigError(f"unknown report section(s) {', '.join(unknown)}", valid=DEFAULT_INCLUDE)
    rows = list(rows)
    cmap = _corpora_map(corpora)
    versions = runner.versions()

    report: dict[str, Any] = dict.fromkeys(TOP_KEYS)
    report["signature"] = _signature(rows, versions, seed)
    report["versions"] = versions
    report["verification"] = _verification(rows)
    report["fixtures"] = _fixtures(rows)
    report["pairs"] = []
    if "pairs" in include and rows:
        chosen = (
            default_pairs(rows)
            if pairs is None
            else [(implementation_label(a), implementation_label(b)) for a, b in pairs]
        )
        for a, b in track(chosen, progress, "report: pairs"):
            tol = pair_tolerance(a, b, tolerance)
            d = difference(rows, a, b, tolerance=tol, top=top, corpus=cmap or None).to_dict()
            d.pop("segment_scores", None)  # in the segment table (segments.csv) instead
            report["pairs"].append(_judge_pair(d))
    report["segments"] = _segments_section(rows)
    if "correlations" in include:
        report["correlations"] = _correlations(rows, seed, n_boot, progress)
    else:
        report["correlations"] = {"segment": None, "corpus": None, "note": "not included"}
    report["attributions"] = (
        _attributions(rows, cmap, attribution_pairs, max_attribution_corpora, progress)
        if "attributions" in include
        else []
    )
    report["human"] = human if "human" in include else None
    if "significance" not in include:
        report["significance"] = None
    elif significance is not None:
        report["significance"] = significance
    else:
        report["significance"] = _default_significance(rows, cmap, seed)
    report["summary"] = _summary(report, rows)
    return jsonable(report)


# ---------------------------------------------------------------------- writing
def _check_report(report: Any) -> None:
    if not isinstance(report, Mapping) or list(report) != list(TOP_KEYS):
        got = list(report) if isinstance(report, Mapping) else type(report).__name__
        raise InputError(f"not a report object: expected the keys {list(TOP_KEYS)}, got {got}")


def _render_into(directory: Path, report: Mapping[str, Any], formats: Sequence[str]) -> list[str]:
    """Render every format into ``directory``; return the file names written."""
    from harness.report import figures as _figures
    from harness.report import html as _html
    from harness.report import markdown as _markdown

    names = _write_segments(directory, report)
    if "json" in formats:
        (directory / FORMATS["json"]).write_text(render_json(report), encoding="utf-8")
        names.append(FORMATS["json"])
    if "md" in formats:
        (directory / FORMATS["md"]).write_text(_markdown.render_markdown(report), encoding="utf-8")
        names.append(FORMATS["md"])
    if "html" in formats:
        figs = _figures.render_figures(report, directory)
        names += [f.filename for f in figs]
        (directory / FORMATS["html"]).write_text(_html.render_html(report, figs), encoding="utf-8")
        names.append(FORMATS["html"])
    return names


def _write_segments(directory: Path, report: Mapping[str, Any]) -> list[str]:
    """Write the tidy segment table (``segments.csv``, and ``segments.parquet`` when the report
    names one) into ``directory``; return the file names written (none without segment rows)."""
    import csv

    seg = report.get("segments") or {}
    table = seg.get("table")
    if not seg.get("file") or not table:
        return []
    cols = list(seg["columns"])
    with open(directory / seg["file"], "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(cols)
        for values in zip(*(table[c] for c in cols), strict=True):
            writer.writerow(
                ["" if v is None else repr(v) if isinstance(v, float) else v for v in values]
            )
    names = [seg["file"]]
    if seg.get("parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({c: table[c] for c in cols}), directory / seg["parquet"])
        names.append(seg["parquet"])
    return names


def write_report(
    report: Mapping[str, Any],
    out_dir: str | os.PathLike[str] | OutputDir,
    *,
    force: bool = False,
    formats: Sequence[str] = ("md", "json", "html"),
) -> list[Path]:
    """Render ``report`` into the directory ``out_dir``, atomically; return the files written.

    ``formats``: ``md`` → ``report.md``, ``json`` → ``report.json``, ``html`` → ``index.html``
    plus its PNG figures; the tidy segment table (``segments.csv``, and ``segments.parquet``
    when the report names one) is written with every format whenever there are segment rows.
    ``out_dir`` is a path (claimed here) or an
    :class:`~harness.report.outdir.OutputDir` the caller already holds. Everything is rendered into a
    private staging folder inside ``out_dir`` and moved into place only when every renderer has
    finished; if one raises, the staging folder is removed and ``out_dir`` is left as it was
    (a folder this call created is removed again). Missing parent directories are created. The
    folder's manifest records the files written; ``force`` replaces only files an earlier
    bleu-harness output wrote (see :mod:`harness.report.outdir`), never anything else.

    Raises:
        InputError: ``out_dir`` exists and is not a directory; it holds files bleu-harness did
            not write (even with ``force``); it holds an earlier output and ``force`` is false;
            another run holds it; it cannot be written (the message names it); ``report`` is
            not a report object.
        ConfigError: an unknown or empty ``formats``.
    """
    formats = tuple(formats)
    bad = sorted(set(formats) - set(FORMATS))
    if bad or not formats:
        raise ConfigError(
            f"unknown output format(s) {', '.join(bad) or '(none given)'}", valid=tuple(FORMATS)
        )
    _check_report(report)
    if isinstance(out_dir, OutputDir):
        return _write_into(out_dir, report, formats)
    with OutputDir(out_dir, force=force, command="report") as out:
        return _write_into(out, report, formats)


def _write_into(out: OutputDir, report: Mapping[str, Any], formats: Sequence[str]) -> list[Path]:
    try:
        names = _render_into(out.staging, report, formats)
    except OSError as exc:
        raise InputError(f"cannot write the report: {exc}", file=str(out.path)) from exc
    out.commit()
    return [out.path / name for name in names]
