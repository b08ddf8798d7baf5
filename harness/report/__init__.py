"""Reports: the runner's results table → one JSON object → Markdown, JSON and a static HTML page.

:func:`build_report` turns the rows of :func:`harness.runner.run` into one JSON-ready ``dict``;
:func:`write_report` renders it into a directory atomically (``report.md``, ``report.json``,
``index.html`` and the PNG figures the page shows). The HTML page is self-contained: no
scripts, no external URLs, figures next to it. Rendering uses matplotlib's Agg canvas only
inside the renderer (importing this package imports no matplotlib).

>>> from harness import runner
>>> from harness.fixtures import load_fixture
>>> fx = load_fixture("silence_pitfall")
>>> rows = runner.run([(fx.name, s, fx.corpus(s)) for s in fx.system_names],
...                   [runner.Implementation.parse(x) for x in ("sacrebleu", "nltk")],
...                   levels=("corpus", "segment"), progress=False)
>>> report = build_report(rows, include=("pairs",))
>>> list(report) == list(TOP_KEYS)
True
>>> report["pairs"][0]["a"], report["pairs"][0]["b"], report["pairs"][0]["agree"]
('harness:sacrebleu', 'harness:nltk', False)

JSON schema (version :data:`SCHEMA_VERSION`; the top-level keys are exactly :data:`TOP_KEYS`, in
this order; every number is finite or ``null``; all scores and gaps are BLEU points on 0–100)
------------------------------------------------------------------------------------------------

``signature`` (string)
    ``report:<SCHEMA_VERSION>|seed:<seed>|impl:<label>[<signature>]|…|version:<name>=<v>,…``:
    one ``impl:`` part per implementation in the rows (first-seen order) holding the signature
    its rows carry (the ``BleuConfig`` signature for in-house profiles, the library's own for
    adapters; empty brackets when no row has one), versions last, as sacrebleu does.

``versions`` (object)
    :func:`harness.runner.versions`: distribution name → version string.

``verification`` (object)
    ``harness:<profile>`` label → ``{"status": "verified" | "unverified", "oracle", "evidence"}``
    for every in-house profile in the rows: whether a differential test in CI runs the profile
    against its real implementation (:data:`harness.profiles.VERIFICATION`).

``fixtures`` (array)
    One object per ``(fixture, system)`` in the rows, first-seen order:
    ``fixture`` (string), ``system`` (string), ``segments`` (number of distinct segment ids in
    the segment-level rows, ``null`` without segment rows), ``scores`` (implementation →
    corpus-level score, ``null`` unless its status is ``ok``), ``status`` (implementation →
    corpus-level row status: ``ok``, ``raises``, ``unsupported``, ``unavailable``, ``error``).
    The heat map of pairwise corpus gaps is computed from ``scores``.

``pairs`` (array)
    One :meth:`harness.analysis.difference.Difference.to_dict` per implementation pair
    ``(a, b)`` (gap = ``b − a``): ``a``, ``b``, ``fixture`` and ``system`` (``null`` = all),
    ``tolerance``, ``agree`` (true/false, ``null`` when nothing is comparable),
    ``corpus_gap`` (mean corpus-level gap), ``corpus_max_abs``, ``corpora`` (per
    ``(fixture, system)``: ``gap`` and both sides ``a``/``b`` with ``status``, ``score``,
    ``bp``, ``hyp_len``, ``ref_len``, ``counts``, ``totals``, ``error``), ``segments``
    (``n``, ``mean``, ``median``, ``max_abs``, ``share_above``, ``unmatched``), ``top`` (the
    most disagreeing segments, largest ``|delta|`` first: ``fixture``, ``system``,
    ``segment_id``, ``delta``, ``a``, ``b`` as above, ``hypothesis`` and ``references`` when
    the corpora were given), ``segment_scores`` (parallel lists ``fixture``, ``system``,
    ``segment_id``, ``a``, ``b``: every segment both scored). Default pairs: every adapter
    ``X`` against its own profile ``harness:X`` (``a = harness:X``), then sacrebleu (the
    adapter if it has rows, else ``harness:sacrebleu``) against every other implementation.

``correlations`` (object)
    ``segment`` and ``corpus``: ``null`` when that level has no usable rows, else
    ``{"n_keys": int, "n_skipped": int, "matrices": {method: matrix}}`` where ``matrix`` is
    :meth:`harness.analysis.correlation.CorrelationMatrix.to_dict` (``method``, ``names``,
    ``values``, ``n``, ``ci_low``, ``ci_high``, ``seed``, ``n_boot``, ``ci``) over the
    implementations' score vectors, methods ``pearson`` and ``kendall``. ``note`` (string or
    ``null``): why something is missing (e.g. the correlation module is not importable).

``attributions`` (array)
    Empty unless corpora were given. One object per (profile pair, corpus):
    :meth:`harness.analysis.attribution.Attribution.to_dict` (``a``, ``b``, ``score_a``,
    ``score_b``, ``gap``, ``factors`` {factor: BLEU points, summing to ``gap``}, ``residual``
    = library − ``score_b`` or ``null``, ``library``, ``library_score``, …) plus ``fixture``,
    ``system`` and ``error`` (``null``; a string when the attribution is undefined, in which
    case the scores are ``null`` and ``factors`` is empty).

``human`` (any JSON or ``null``)
    ``null`` unless precomputed human-judgment correlations were passed to
    :func:`build_report` (e.g. :func:`harness.analysis.human.wmt21_human_correlations`);
    stored as their ``to_dict()`` (or as given, if already plain JSON).

``significance`` (any JSON or ``null``)
    ``null`` unless precomputed significance results were passed (paired bootstrap,
    approximate randomisation); stored as their ``to_dict()``.
"""

from __future__ import annotations

from .build import (
    DEFAULT_INCLUDE,
    FORMATS,
    SCHEMA_VERSION,
    TOP_KEYS,
    build_report,
    default_pairs,
    render_json,
    write_report,
)
from .markdown import render_markdown

__all__ = [
    "DEFAULT_INCLUDE",
    "FORMATS",
    "SCHEMA_VERSION",
    "TOP_KEYS",
    "build_report",
    "default_pairs",
    "render_json",
    "render_markdown",
    "write_report",
]
