"""Write a report into a directory, atomically: Markdown, JSON with its schema, the HTML page
with its figures, and the tidy segment table."""

from __future__ import annotations

import csv
import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.analysis.study_types import SCHEMA_FILE, Report
from harness.errors import ConfigError, InputError
from harness.report import figures, html, markdown
from harness.report.outdir import OutputDir
from harness.report.schema import (
    FORMATS,
    render_json,
    render_schema,
    validate_report_json,
    validation_enabled,
)


def _check_report(report: Any) -> None:
    if not isinstance(report, Report):
        raise InputError(
            "not a report object: expected a harness.analysis.study_types.Report "
            f"(harness.analysis.study.analyse), got {type(report).__name__}"
        )


class _Writing:
    """Which output file is being written, so that an OSError (a full disk: ``write()`` names
    no file) can name it."""

    def __init__(self) -> None:
        self.name: str | None = None


def _render_into(
    directory: Path,
    report: Report,
    formats: Sequence[str],
    writing: _Writing,
    drawn: figures.FiguresLater | None = None,
) -> list[str]:
    """Render every format into ``directory``; return the file names written
    (``writing.name``: the file being written). ``drawn``: the figures are drawn there
    (started first, collected for the page)."""
    pending = drawn(report, directory) if drawn is not None and "html" in formats else None
    if "csv" in formats and report.segments.file:  # report.json then names the CSV too
        segments = dataclasses.replace(report.segments, csv=FORMATS["csv"])
        report = dataclasses.replace(report, segments=segments)
    names = _write_segments(directory, report, writing)
    if "json" in formats:
        text = render_json(report)
        if validation_enabled():
            validate_report_json(text)
        writing.name = FORMATS["json"]
        (directory / FORMATS["json"]).write_text(text, encoding="utf-8")
        names.append(FORMATS["json"])
        writing.name = SCHEMA_FILE
        (directory / SCHEMA_FILE).write_text(render_schema(), encoding="utf-8")
        names.append(SCHEMA_FILE)
    if "md" in formats:
        writing.name = FORMATS["md"]
        (directory / FORMATS["md"]).write_text(markdown.render_markdown(report), encoding="utf-8")
        names.append(FORMATS["md"])
    if "html" in formats:
        writing.name = None  # a figure, named by the newest one in the folder
        figs = pending() if pending else figures.render_figures(report, directory)
        names += [f.filename for f in figs]
        writing.name = FORMATS["html"]
        (directory / FORMATS["html"]).write_text(html.render_html(report, figs), encoding="utf-8")
        names.append(FORMATS["html"])
    return names


def _write_segments(directory: Path, report: Report, writing: _Writing) -> list[str]:
    """Write the tidy segment table (``segments.parquet``, and ``segments.csv`` when the report
    names one) into ``directory``; return the file names written (none without segment rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    seg = report.segments
    table = seg.table
    if not seg.file or not table:
        return []
    cols = list(seg.columns)
    writing.name = seg.file
    pq.write_table(pa.table({c: table[c] for c in cols}), directory / seg.file)
    names = [seg.file]
    if seg.csv:
        writing.name = seg.csv
        with open(directory / seg.csv, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(cols)
            # column by column: a float as its repr, a missing value as an empty field
            cells = [
                ["" if v is None else repr(v) if isinstance(v, float) else v for v in table[c]]
                for c in cols
            ]
            writer.writerows(zip(*cells, strict=True))
        names.append(seg.csv)
    return names


def _newest(directory: Path, prefix: str) -> str | None:
    """The name of the most recently written file in ``directory`` starting with ``prefix``."""
    try:
        found = [(p.stat().st_mtime_ns, p.name) for p in directory.glob(f"{prefix}*")]
    except OSError:
        return None
    return max(found)[1] if found else None


def write_report(
    report: Report,
    out_dir: str | os.PathLike[str] | OutputDir,
    *,
    force: bool = False,
    formats: Sequence[str] = ("md", "json", "html"),
    figures_later: figures.FiguresLater | None = None,
) -> list[Path]:
    """Render ``report`` into the directory ``out_dir``, atomically; return the files written.

    ``formats``: ``md`` → ``report.md``, ``json`` → ``report.json`` and its JSON Schema
    ``report.schema.json`` (:func:`harness.report.schema.report_schema`; checked against it
    first when :data:`~harness.report.schema.VALIDATE_ENV` is set), ``html`` → ``index.html``
    plus its PNG figures, ``csv`` → the segment table as ``segments.csv`` too; the tidy segment
    table ``segments.parquet`` is written with every format whenever there are segment rows.
    ``out_dir`` is a path (claimed here) or an :class:`~harness.report.outdir.OutputDir` the
    caller already holds. Everything is rendered into a private staging folder inside
    ``out_dir`` and moved into place only when every renderer has finished; if one raises, the staging folder is removed and ``out_dir`` is left as it was
    (a folder this call created is removed again). Missing parent directories are created. The
    folder's manifest records the files written; ``force`` replaces only files an earlier
    bleu-harness output wrote (see :mod:`harness.report.outdir`), never anything else.
    ``figures_later`` (:data:`~harness.report.figures.FiguresLater`): the figures drawn by it
    (e.g. in a worker process, while this one writes the other files) rather than here; the
    same files.

    Raises:
        InputError: ``out_dir`` exists and is not a directory; it holds files bleu-harness did
            not write (even with ``force``); it holds an earlier output and ``force`` is false;
            another run holds it; a file cannot be written, e.g. on a full disk (the message
            names the file, and the folder is left as it was); ``report`` is not a report
            object.
        ConfigError: an unknown or empty ``formats``.
        jsonschema.ValidationError: with :data:`~harness.report.schema.VALIDATE_ENV` set, the
            report does not match its schema (nothing is written).
    """
    formats = tuple(formats)
    bad = sorted(set(formats) - set(FORMATS))
    if bad or not formats:
        raise ConfigError(
            f"unknown output format(s) {', '.join(bad) or '(none given)'}", valid=tuple(FORMATS)
        )
    _check_report(report)
    if isinstance(out_dir, OutputDir):
        return _write_into(out_dir, report, formats, figures_later)
    with OutputDir(out_dir, force=force, command="report") as out:
        return _write_into(out, report, formats, figures_later)


def _write_into(
    out: OutputDir,
    report: Report,
    formats: Sequence[str],
    drawn: figures.FiguresLater | None = None,
) -> list[Path]:
    writing = _Writing()
    try:
        names = _render_into(out.staging, report, formats, writing, drawn)
    except OSError as exc:
        name = writing.name or _newest(out.staging, "fig-") or "fig-*.png"
        raise out.cannot_write(name, exc) from exc
    out.commit()
    return [out.path / name for name in names]
