"""Reports: the renderers and the writer of a typed report — Markdown, JSON with its schema, a
static HTML page.

The analysis step (:func:`harness.analysis.study.analyse`) turns the rows of
:func:`harness.run.run` and the run's :class:`~harness.session.Session` into a
:class:`~harness.analysis.study_types.Report`; this package only renders it and writes it.
:func:`write_report` renders it into a directory atomically (``report.md``, ``report.json``
with its JSON Schema ``report.schema.json``, ``index.html``, the PNG figures the page shows,
and the tidy segment table ``segments.parquet`` whenever there are segment rows, with
``segments.csv`` beside it when the ``csv`` format is asked for). The HTML page is self-contained: no scripts, no
external URLs, figures next to it. Rendering uses matplotlib's Agg canvas only inside the
renderer (importing this package imports no matplotlib). Nothing here imports the layers that
count or score (:mod:`harness.bleu`, :mod:`harness.session`, :mod:`harness.scorers`,
:mod:`harness.api`): every fact a renderer shows is in the report.

The shape of ``report.json`` is documented once, by the dataclasses of
:mod:`harness.analysis.study_types` (version :data:`SCHEMA_VERSION`, top-level keys
:data:`TOP_KEYS`, what changed between versions); the JSON Schema generated from them
(:func:`~harness.report.schema.report_schema`) is written next to every ``report.json``,
whose ``$schema`` names it.

All text the harness renders lives in this package, in one module per concern: ``report.json``
and its schema (:mod:`~harness.report.schema`); text primitives (:mod:`~harness.report.text`);
the Markdown of a report (:mod:`~harness.report.markdown`), of a pair of implementations
(:mod:`~harness.report.pair_tables`) and of BLEU against human judgments
(:mod:`~harness.report.human_tables`); the summary sentences and table cells both formats
share (:mod:`~harness.report.summary`, :mod:`~harness.report.tables`); the HTML page
(:mod:`~harness.report.html`, :mod:`~harness.report.overview`) and its figures
(:mod:`~harness.report.figures`); the console screens (:mod:`~harness.report.console`,
:mod:`~harness.report.validation`, :mod:`~harness.report.pitfalls`); writing it all atomically
(:mod:`~harness.report.write`, :mod:`~harness.report.outdir`).

>>> from harness.analysis.study import study
>>> from harness.data.fixtures import load_fixture
>>> report = study(load_fixture("silence_pitfall").triples(), ("sacrebleu", "nltk"))
>>> import json
>>> list(json.loads(render_json(report))) == list(TOP_KEYS)
True
>>> render_markdown(report).splitlines()[0]
'# BLEU harness report'
"""

from __future__ import annotations

from harness.report.human_tables import human_markdown
from harness.report.markdown import render_markdown
from harness.report.pair_tables import pair_markdown
from harness.report.schema import (
    FORMATS,
    SCHEMA_FILE,
    SCHEMA_VERSION,
    TOP_KEYS,
    render_json,
    render_schema,
    report_schema,
)
from harness.report.write import write_report

__all__ = [
    "FORMATS",
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "TOP_KEYS",
    "human_markdown",
    "pair_markdown",
    "render_json",
    "render_markdown",
    "render_schema",
    "report_schema",
    "write_report",
]
