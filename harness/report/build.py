"""Build the report object from the runner's rows, and write it out atomically."""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..corpus import Corpus
from ..errors import ConfigError, HarnessError, InputError
from ..progress import ProgressCallback, track

SCHEMA_VERSION = "1"

#: The top-level keys of a report, in order (see the package docstring for each).
TOP_KEYS: tuple[str, ...] = (
    "signature",
    "versions",
    "verification",
    "fixtures",
    "pairs",
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
    """The report as JSON text (UTF-8 characters kept, ``indent=2``, no NaN), newline-ended."""
    return json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


# ---------------------------------------------------------------------- inputs
def _corpora_map(
    corpora: Mapping[Any, Corpus] | Iterable[tuple[str, str, Corpus]] | None,
) -> dict[tuple[str, str], Corpus]:
    """``{(fixture, system): Corpus}`` from a mapping (keys ``(f, s)`` or ``"f/s"``) or from
    the ``(fixture, system, corpus)`` triples :func:`harness.runner.run` takes."""
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
    profile is proven against its real implementation (:data:`harness.profiles.VERIFICATION`).
    Adapters' rows are the real libraries and need no entry."""
    from ..profiles import verification

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
        from ..analysis import correlation
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
    from ..analysis.attribution import attribute

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
    triples given to :func:`harness.runner.run`) — adds segment texts to the pairs and enables
    attributions (``attribution_pairs`` of profile names, default
    :data:`DEFAULT_ATTRIBUTION_PAIRS` where both have rows, on at most
    ``max_attribution_corpora`` corpora; the library ``b`` gives the residual when its adapter
    has an ok row there). ``pairs`` are ``(a, b)`` implementation names (row labels or
    ``profile:``/``adapter:`` specs; default :func:`default_pairs`); ``tolerance`` and ``top``
    go to :func:`~harness.analysis.difference.difference`. ``include`` chooses the computed
    sections (left-out ones are empty: ``[]``, ``null`` or a ``correlations`` note).
    ``seed`` and ``n_boot`` are the correlations' bootstrap (0 resamples: no intervals).
    ``human`` and ``significance`` are precomputed results (objects with ``to_dict()`` or
    JSON values), stored as given. ``progress`` (:data:`~harness.progress.ProgressCallback`)
    is told of each finished pair, correlation level and attributed corpus.

    Raises:
        ConfigError: an unknown section in ``include``, an unknown implementation in ``pairs``.
    """
    from .. import runner
    from ..analysis.difference import difference, implementation_label

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
        report["pairs"] = [
            difference(rows, a, b, tolerance=tolerance, top=top, corpus=cmap or None).to_dict()
            for a, b in track(chosen, progress, "report: pairs")
        ]
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
    report["significance"] = significance if "significance" in include else None
    return jsonable(report)


# ---------------------------------------------------------------------- writing
def _check_report(report: Any) -> None:
    if not isinstance(report, Mapping) or list(report) != list(TOP_KEYS):
        got = list(report) if isinstance(report, Mapping) else type(report).__name__
        raise InputError(f"not a report object: expected the keys {list(TOP_KEYS)}, got {got}")


def _render_into(directory: Path, report: Mapping[str, Any], formats: Sequence[str]) -> list[str]:
    """Render every format into ``directory``; return the file names written."""
    from . import figures as _figures
    from . import html as _html
    from . import markdown as _markdown

    names: list[str] = []
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


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_report(
    report: Mapping[str, Any],
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    formats: Sequence[str] = ("md", "json", "html"),
) -> list[Path]:
    """Render ``report`` into the directory ``out_dir``, atomically; return the files written.

    ``formats``: ``md`` → ``report.md``, ``json`` → ``report.json``, ``html`` → ``index.html``
    plus its PNG figures. Everything is rendered into a fresh temporary directory next to
    ``out_dir`` and then renamed into place, so a reader sees the old directory or the complete
    new one, never a mix; if a renderer raises, the temporary directory is removed and
    ``out_dir`` is left as it was. Missing parent directories are created.

    Raises:
        InputError: ``out_dir`` exists and is not a directory, or is a non-empty directory and
            ``force`` is false (the message names it); ``report`` is not a report object.
        ConfigError: an unknown or empty ``formats``.
    """
    formats = tuple(formats)
    bad = sorted(set(formats) - set(FORMATS))
    if bad or not formats:
        raise ConfigError(
            f"unknown output format(s) {', '.join(bad) or '(none given)'}", valid=tuple(FORMATS)
        )
    _check_report(report)
    target = Path(out_dir)
    if target.exists() and not target.is_dir():
        raise InputError("exists and is not a directory", file=str(target))
    non_empty = target.is_dir() and any(target.iterdir())
    if non_empty and not force:
        raise InputError(
            "output directory is not empty; pass force=True (CLI: --force) to overwrite",
            file=str(target),
        )
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the directory: {exc.strerror}", file=str(parent)) from None
    tmp = parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        tmp.mkdir()
    except OSError as exc:
        raise InputError(
            f"cannot create a temporary directory: {exc.strerror}", file=str(tmp)
        ) from None
    try:
        names = _render_into(tmp, report, formats)
        for name in names:  # flush every file before the rename makes them visible
            with open(tmp / name, "rb") as fh:
                os.fsync(fh.fileno())
        if target.is_dir() and any(target.iterdir()):
            old = parent / f".{target.name}.{secrets.token_hex(6)}.old"
            os.rename(target, old)
            try:
                os.rename(tmp, target)
            except BaseException:
                os.rename(old, target)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)  # replaces an empty directory atomically on POSIX
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write the report: {exc}", file=str(target)) from exc
        raise
    _fsync_dir(parent)
    return [target / name for name in names]
