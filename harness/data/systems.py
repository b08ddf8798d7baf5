"""Several systems scored against the same references, read from a user's files.

A researcher holds their outputs in one of three shapes, each read here into an ordered
``{system name: Corpus}`` whose corpora share one reference set:

* **plain text** (:func:`load_text_systems`): one hypothesis file per system and one file per
  reference, all line-aligned (the files ``sacrebleu ref.de -i sys.de`` reads). A system is
  named by its file's stem; two files with the same stem are named by their paths.
* **JSON Lines** (:func:`load_jsonl_systems`): one segment per line,
  ``{"id": …, "references": [str, …], "hypothesis": str}`` for one system (the format of
  :func:`~harness.data.io.load_jsonl_corpus`) or ``"hypotheses": {"sysA": str, "sysB": str}``
  for several; every line must name the same systems.
* **TSV with a header** (:func:`load_tsv_systems`): a column ``id`` (optional), one or more
  reference columns named ``ref`` or ``ref`` followed by anything (``ref1``, ``ref_b``), and
  one column per system (any other name). Fields may not contain tabs or newlines; nothing is
  quoted or unescaped (a ``"`` is text).

Every file is read with the strict rules of :func:`~harness.data.io.read_lines` (UTF-8, LF,
a leading byte-order mark only by an explicit ``bom`` rule); every problem raises :class:`~harness.errors.InputError` or
:class:`~harness.errors.LayoutError` naming the file and line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.data.corpus import Corpus
from harness.data.io import (
    PathLike,
    _reject_duplicate_keys,
    file_provenance,
    load_jsonl_corpus,
    read_lines,
)
from harness.data.textfile import BomRule, line_counts_differ, read_record_lines
from harness.errors import InputError, LayoutError

__all__ = [
    "load_human_scores",
    "load_jsonl_systems",
    "load_text_systems",
    "load_tsv_systems",
    "system_names",
]


def system_names(paths: Sequence[PathLike]) -> list[str]:
    """A name per hypothesis file: its stem, or its path where two files share a stem."""
    stems = [Path(p).stem for p in paths]
    return [str(p) if stems.count(s) > 1 else s for p, s in zip(paths, stems, strict=True)]


def load_text_systems(
    hyp_paths: Sequence[PathLike], ref_paths: Sequence[PathLike], *, bom: BomRule = "refuse"
) -> dict[str, Corpus]:
    """Each hypothesis file as one system against the same line-aligned reference files, a
    leading byte-order mark read by ``bom`` (:data:`~harness.data.textfile.BomRule`).

    Raises:
        LayoutError: no hypothesis or reference file, or a file whose line count differs from
            the first hypothesis file's (naming both).
        InputError: a file fails :func:`~harness.data.io.read_lines`, or is given twice.
    """
    if not hyp_paths:
        raise LayoutError("no hypothesis file given", what="hypotheses", expected=">= 1", got=0)
    if not ref_paths:
        raise LayoutError(
            "no reference file given (--refs REF [REF ...])",
            what="references",
            expected=">= 1",
            got=0,
        )
    seen: set[str] = set()
    for p in [*hyp_paths, *ref_paths]:
        key = str(Path(p).resolve())
        if key in seen:
            raise InputError(f"{p} is given twice", file=str(p))
        seen.add(key)
    streams = [read_lines(p, what="reference file", bom=bom) for p in ref_paths]
    first = str(hyp_paths[0])
    out: dict[str, Corpus] = {}
    hyps_by_name = {}
    for name, path in zip(system_names(hyp_paths), hyp_paths, strict=True):
        hyps_by_name[name] = (path, read_lines(path, what="hypothesis file", bom=bom))
    n = len(next(iter(hyps_by_name.values()))[1])
    files = [("hypothesis", p, h) for p, h in hyps_by_name.values()]
    files += [("reference", p, r) for p, r in zip(ref_paths, streams, strict=True)]
    for what, path, lines in files:
        if len(lines) != n:
            raise line_counts_differ(first, n, path, len(lines), kind=what)
    references = tuple(zip(*streams, strict=True)) if streams else ()
    for name, (path, hyps) in hyps_by_name.items():
        out[name] = Corpus(
            hypotheses=tuple(hyps),
            references=references,
            name=name,
            provenance=file_provenance(path, ref_paths, bom),
            check_text=False,  # read_lines has refused these characters (or kept a BOM as asked)
        )
    return out


def load_jsonl_systems(path: PathLike, *, bom: BomRule = "refuse") -> dict[str, Corpus]:
    """The systems of a JSON Lines file: ``"hypothesis"`` (one system, named by the file's
    stem) or ``"hypotheses": {name: str}`` on every line (several, in the first line's order).

    Raises:
        InputError: as :func:`~harness.data.io.load_jsonl_corpus`, naming the line; a line
            whose ``hypotheses`` names other systems than the first line's.
    """
    lines = read_record_lines(path, what="JSONL file", bom=bom)
    first = _json_object(lines[0], path, 1) if lines else {}
    if "hypotheses" not in first:
        corpus = load_jsonl_corpus(path, bom=bom)
        return {corpus.name: corpus}
    file = str(path)
    names: list[str] | None = None
    hyps: dict[str, list[str]] = {}
    refs: list[tuple[str, ...]] = []
    ids: list[str] = []
    for lineno, line in enumerate(lines, start=1):
        obj = _json_object(line, path, lineno)
        unknown = sorted(set(obj) - {"id", "hypotheses", "references"})
        if unknown:
            raise InputError(
                f"unknown key(s) {', '.join(map(repr, unknown))}; valid: id, hypotheses "
                "(or hypothesis for one system), references",
                file=file,
                line=lineno,
            )
        systems = obj.get("hypotheses")
        if not isinstance(systems, dict) or not systems:
            raise InputError(
                "'hypotheses' must be an object {system name: hypothesis}", file=file, line=lineno
            )
        if names is None:
            names = list(systems)
            hyps = {k: [] for k in names}
        elif sorted(systems) != sorted(names):
            raise InputError(
                f"'hypotheses' names {sorted(systems)}, but line 1 names {sorted(names)}; "
                "every line must name the same systems",
                file=file,
                line=lineno,
            )
        for name, text in systems.items():
            if not isinstance(text, str):
                raise InputError(
                    f"'hypotheses'[{name!r}] must be a string, got {type(text).__name__}",
                    file=file,
                    line=lineno,
                )
            hyps[name].append(text)
        seg_refs = obj.get("references")
        if (
            not isinstance(seg_refs, list)
            or not seg_refs
            or not all(isinstance(r, str) for r in seg_refs)
        ):
            raise InputError(
                "'references' must be a non-empty list of strings (this segment's references)",
                file=file,
                line=lineno,
            )
        refs.append(tuple(seg_refs))
        raw_id = obj.get("id", lineno)
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            raise InputError("'id' must be a string or an integer", file=file, line=lineno)
        ids.append(str(raw_id))
    _check_unique_ids(ids, file, [None] * len(ids))
    return {
        name: Corpus(
            hypotheses=tuple(texts),
            references=tuple(refs),
            ids=tuple(ids),
            name=name,
            provenance={"jsonl": file, "system": name},
        )
        for name, texts in hyps.items()
    }


def load_tsv_systems(path: PathLike, *, bom: BomRule = "refuse") -> dict[str, Corpus]:
    """The systems of a TSV file with a header row (see the module docstring).

    Raises:
        InputError: no header or no data row, no reference or no system column, a repeated
            column name, a row with another number of fields than the header (naming the line
            and both counts), a repeated id.
    """
    file = str(path)
    lines = read_record_lines(path, what="TSV file", bom=bom)
    if len(lines) < 2:
        raise InputError(
            "a TSV corpus needs a header row and at least one segment row", file=file, line=1
        )
    header = lines[0].split("\t")
    dupes = sorted({h for h in header if header.count(h) > 1})
    if dupes:
        raise InputError(f"repeated column name(s) {dupes} in the header", file=file, line=1)
    ref_cols = [j for j, h in enumerate(header) if h.lower().startswith("ref")]
    id_col = header.index("id") if "id" in header else None
    sys_cols = [j for j in range(len(header)) if j not in ref_cols and j != id_col]
    if not ref_cols:
        raise InputError(
            f"no reference column in the header {header}: name reference columns ref, ref1, …",
            file=file,
            line=1,
        )
    if not sys_cols:
        raise InputError(
            f"no system column in the header {header}: every column other than id and ref… "
            "holds one system's hypotheses",
            file=file,
            line=1,
        )
    if any(not header[j] for j in sys_cols):
        raise InputError("a system column has an empty name in the header", file=file, line=1)
    rows = []
    for lineno, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(
                f"row has {len(fields)} tab-separated fields but the header has {len(header)}",
                file=file,
                line=lineno,
            )
        rows.append(fields)
    ids = [r[id_col] if id_col is not None else str(k) for k, r in enumerate(rows, start=1)]
    _check_unique_ids(ids, file, list(range(2, len(rows) + 2)))
    references = tuple(tuple(r[j] for j in ref_cols) for r in rows)
    return {
        header[j]: Corpus(
            hypotheses=tuple(r[j] for r in rows),
            references=references,
            ids=tuple(ids),
            name=header[j],
            provenance={"tsv": file, "system": header[j]},
        )
        for j in sys_cols
    }


def _json_object(line: str, path: PathLike, lineno: int) -> dict[str, Any]:
    """One JSONL line as an object, or an InputError naming the line."""
    try:
        obj = json.loads(line, object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", file=str(path), line=lineno
        ) from None
    except ValueError as exc:  # a repeated key
        raise InputError(f"invalid JSON: {exc}", file=str(path), line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(
            f"each line must be a JSON object, got {type(obj).__name__}",
            file=str(path),
            line=lineno,
        )
    return obj


def _check_unique_ids(ids: Sequence[str], file: str, lines: Sequence[int | None]) -> None:
    """InputError naming the first repeated segment id (and its line, when known)."""
    seen: dict[str, int] = {}
    for k, seg_id in enumerate(ids):
        if seg_id in seen:
            line = lines[k] if lines[k] is not None else k + 1
            raise InputError(
                f"duplicate id {seg_id!r} (first used in segment {seen[seg_id] + 1})",
                file=file,
                line=line,
            )
        seen[seg_id] = k


def load_human_scores(
    path: PathLike, systems: Sequence[str], *, bom: BomRule = "refuse"
) -> dict[str, float]:
    """System-level human scores from a TSV file with the header ``system<TAB>score`` (more
    columns are refused), one finite number per system; the systems must be exactly
    ``systems`` (the hypothesis files' names). A leading byte-order mark is refused, or dropped
    with ``bom="strip"`` (:func:`~harness.data.textfile.read_record_lines`).

    Raises:
        InputError: a bad header, a row without two fields, a score that is not a finite
            number, a repeated system, or systems that differ from ``systems`` (naming them).
    """
    file = str(path)
    lines = read_record_lines(path, what="human scores file", bom=bom)
    if [h.strip().lower() for h in lines[0].split("\t")] != ["system", "score"]:
        raise InputError(
            f"the header must be 'system<TAB>score', got {lines[0]!r}", file=file, line=1
        )
    scores: dict[str, float] = {}
    for lineno, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 2:
            raise InputError(
                f"expected 2 tab-separated fields (system, score), got {len(fields)}",
                file=file,
                line=lineno,
            )
        name, raw = fields
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InputError(f"score {raw!r} is not a finite number", file=file, line=lineno)
        if name in scores:
            raise InputError(f"system {name!r} is listed twice", file=file, line=lineno)
        scores[name] = value
    missing = [s for s in systems if s not in scores]
    extra = [s for s in scores if s not in systems]
    if missing or extra:
        raise InputError(
            f"the systems differ from the hypothesis files: no score for {missing or 'none'}; "
            f"scores for unknown systems {extra or 'none'}",
            file=file,
        )
    return {s: scores[s] for s in systems}
