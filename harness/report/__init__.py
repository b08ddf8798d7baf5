"""Reports: the runner's results table → one JSON object → Markdown, JSON and a static HTML page.

:func:`build_report` turns the rows of :func:`harness.analysis.runner.run` into one JSON-ready ``dict``;
:func:`write_report` renders it into a directory atomically (``report.md``, ``report.json``,
``index.html``, the PNG figures the page shows, and the tidy segment table ``segments.csv`` —
plus ``segments.parquet`` when pyarrow is importable — whenever there are segment rows). The
HTML page is self-contained: no scripts, no external URLs, figures next to it. Rendering uses
matplotlib's Agg canvas only inside the renderer (importing this package imports no
matplotlib).

All text the harness renders lives in this package, in one module per concern: the object's
shape (:mod:`~harness.report.schema`), its sections (:mod:`~harness.report.sections`) and
assembly (:mod:`~harness.report.build`); text primitives (:mod:`~harness.report.text`); the
Markdown of a report (:mod:`~harness.report.markdown`), of a pair of implementations
(:mod:`~harness.report.difference`) and of BLEU against human judgments
(:mod:`~harness.report.human`); the summary sentences both formats share
(:mod:`~harness.report.summary`); the HTML page (:mod:`~harness.report.html`) and its figures
(:mod:`~harness.report.figures`); writing it all atomically (:mod:`~harness.report.write`,
:mod:`~harness.report.outdir`). The analysis modules return data only.

>>> from harness.analysis import runner
>>> from harness.data.fixtures import load_fixture
>>> fx = load_fixture("silence_pitfall")
>>> rows = runner.run([(fx.name, s, fx.corpus(s)) for s in fx.system_names],
...                   [runner.Implementation.parse(x) for x in ("sacrebleu", "nltk")],
...                   levels=("corpus", "segment"), progress=False)
>>> report = build_report(rows, include=("pairs",))
>>> list(report) == list(TOP_KEYS)
True
>>> report["pairs"][0]["a"], report["pairs"][0]["b"], report["pairs"][0]["verdict"]
('harness:sacrebleu', 'harness:nltk', 'disagree')

JSON schema (version :data:`SCHEMA_VERSION`; the top-level keys are exactly :data:`TOP_KEYS`, in
this order; every number is finite or ``null``; all scores and gaps are BLEU points on 0–100)
------------------------------------------------------------------------------------------------

Schema 3 (this version) against 2: a new ``answer`` key (second); ``summary`` gains
``answer_note`` and ``libraries``, and its ``largest_gap`` is taken between BLEU-4
implementations only; ``significance`` tests every system against the best of its fixture
(``design`` ``"against-best"``) or a chosen pair (``"pair"``), instead of the second system
against the first. The HTML page shows the answer first, one gap matrix of folded
implementations (no heat-map PNG) and pair details for the exceptions only.

Schema 2 against 1: new ``summary`` (first) and ``segments`` keys; the pairs lose
``segment_scores`` (every segment-level score is in the segment table named by ``segments``,
which keeps ``report.json`` small) and gain ``verdict``,
``na_reason``, ``compared``, ``not_compared``; ``tolerance`` is per pair; ``agree`` is judged on
the comparable corpora only; ``significance`` is computed by default when corpora are given.

``summary`` (object)
    What a reader needs first: ``corpora`` (``fixture/system`` strings), ``n_segments``,
    ``implementations`` (labels, first-seen order), ``largest_gap`` (``null`` or the pair
    corpus gap of largest magnitude: ``a``, ``b``, ``fixture``, ``system``, ``gap``,
    ``score_a``, ``score_b``, ``explained_by`` = ``null`` or the factor with the largest share
    in that pair's attribution — on that corpus, else on the first corpus attributed (they run
    on the first corpora only): ``factor``, ``points``, ``attribution_gap``, ``residual``,
    ``fixture``, ``system`` of the attribution), ``largest_attribution`` (``null`` or ``a``, ``b``, ``fixture``, ``system``,
    ``gap``, ``factor``, ``points`` of the attribution with the largest gap), ``agree`` and
    ``disagree`` (lists of ``[a, b]``), ``not_comparable`` (lists of ``[a, b, reason]``),
    ``problems`` (one object per implementation and non-ok corpus-level status:
    ``implementation``, ``status``, ``corpora`` = how many, ``reason`` = the first error,
    shortened), ``libraries`` (each real library against its own profile: ``equal`` and
    ``differ`` = names, ``not_run`` = ``[name, reason]``), ``answer_note`` (``null``, or why
    there is no ``answer``). ``largest_gap`` skips pairs with a side that is not BLEU-4 (HELM's
    BLEU-1 and 4-gram-only profiles are far from every BLEU-4 by design).

``answer`` (object or ``null``)
    The answer ``bleu-harness compare`` prints first
    (:meth:`harness.analysis.answer.Answer.to_dict`: ``systems``, ``segments``,
    ``references``, ``baseline``, ``findings`` — sentences in plain words — and
    ``families``: profiles that print the same number on every system, each with its mean gap
    to the baseline, its exact Shapley split over the factors, the changed values, the system
    pairs it ranks the other way, and the real libraries checked against it), plus
    ``fixture`` and ``rows`` (each family's line as text: ``names``, ``mean``, ``gap``,
    ``baseline``, ``why``, ``flips``, ``bleu4``; :func:`harness.report.console.family_rows`).
    Computed when the corpus-level rows are one fixture's systems scored against the same
    references and the corpora were given (:func:`harness.report.families.answer_section`);
    else ``null`` and ``summary.answer_note`` says why.

``signature`` (string)
    ``report:<SCHEMA_VERSION>|seed:<seed>|impl:<label>[<signature>]|…|version:<name>=<v>,…``:
    one ``impl:`` part per implementation in the rows (first-seen order) holding the signature
    its rows carry (the ``BleuConfig`` signature for in-house profiles, the library's own for
    adapters; empty brackets when no row has one), versions last, as sacrebleu does.

``versions`` (object)
    :func:`harness.analysis.runner.versions`: distribution name → version string.

``verification`` (object)
    ``harness:<profile>`` label → ``{"status": "verified" | "unverified", "oracle", "evidence"}``
    for every in-house profile in the rows: whether a differential test in CI runs the profile
    against its real implementation (:data:`harness.bleu.profiles.VERIFICATION`).

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
    ``tolerance`` (BLEU points: the pair is judged at the tolerance of its less precise side,
    :func:`~harness.report.sections.pair_tolerance` — ``VERIFICATION[name].tolerance``, 1e-4 for
    torchmetrics' float32, 1e-9 otherwise), ``agree`` (true/false over the corpora and segments
    both sides scored; ``null`` when one side has no scores at all), ``verdict`` (``agree``,
    ``disagree`` or ``n/a`` — a side that is unavailable, unsupported or raises is "n/a", never a
    disagreement), ``na_reason`` (``null`` or why corpora were not compared, naming the side and
    its status and error), ``compared`` / ``not_compared`` (how many ``(fixture, system)``),
    ``corpus_gap`` (mean corpus-level gap), ``corpus_max_abs``, ``corpora`` (per
    ``(fixture, system)``: ``gap`` and both sides ``a``/``b`` with ``status``, ``score``,
    ``bp``, ``hyp_len``, ``ref_len``, ``counts``, ``totals``, ``error``), ``segments``
    (``n``, ``mean``, ``median``, ``max_abs``, ``share_above``, ``unmatched``), ``top`` (the
    most disagreeing segments, largest ``|delta|`` first: ``fixture``, ``system``,
    ``segment_id``, ``delta``, ``a``, ``b`` as above, ``hypothesis`` and ``references`` when
    the corpora were given). Default pairs: every adapter
    ``X`` against its own profile ``harness:X`` (``a = harness:X``), then sacrebleu (the
    adapter if it has rows, else ``harness:sacrebleu``) against every other implementation.

``segments`` (object)
    The segment-level table, written next to the report (not inside ``report.json``):
    ``file`` (``"segments.csv"``, ``null`` without segment rows), ``parquet``
    (``"segments.parquet"`` when pyarrow is importable, else ``null``), ``columns``
    (:data:`~harness.report.schema.SEGMENT_COLUMNS`: ``fixture``, ``system``, ``segment_id``,
    ``implementation``, ``kind``, ``status``, ``score`` — one row per implementation and
    segment, ``score`` empty unless ``status`` is ``ok``; floats written with ``repr`` so they
    read back exactly), ``n_rows``, ``implementations``. In memory (the object
    :func:`build_report` returns) it also holds ``table`` (column → list), which
    :func:`render_json` leaves out (:func:`~harness.report.schema.json_view`).

``correlations`` (object)
    ``segment`` and ``corpus``: ``null`` when that level has no usable rows, else
    ``{"n_keys": int, "n_skipped": int, "matrices": {method: matrix}}`` where ``matrix`` is
    :meth:`harness.analysis.correlation.CorrelationMatrix.to_dict` (``method``, ``names``,
    ``values``, ``n``, ``ci_low``, ``ci_high``, ``seed``, ``n_boot``, ``ci``) over the
    implementations' score vectors, methods ``pearson`` and ``kendall``. ``note`` (string or
    ``null``): why a level is missing (fewer than two implementations with two or more
    scores there), or ``"not included"``.

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
    Precomputed results passed to :func:`build_report` are stored as their ``to_dict()``.
    Otherwise (section included) an object ``method`` (``"paired-bootstrap"``), ``resamples``,
    ``seed`` (the report's), ``design`` (``"against-best"``, or ``"pair"`` for a pair the
    caller chose), ``results`` (per multi-system fixture — at most
    :data:`~harness.report.schema.MAX_SIGNIFICANCE_FIXTURES` — and in-house profile — every
    profile while that is at most :data:`harness.report.ranking.MAX_TESTS` tests, else the
    baseline profile only: every other system against the best under that profile, highest
    first; ``fixture``, ``baseline`` (the best system), ``system``, ``profile``,
    ``error`` (``null`` or why the test is undefined) and the keys of
    :meth:`harness.analysis.significance.SignificanceResult.to_dict`), ``note`` (``null`` or
    why nothing or not everything was tested: no corpora, no in-house profile, no fixture with
    two systems, a fixture tested under one profile only) and ``how`` (the command that gets significance). ``null`` when the section
    is not included.
"""

from __future__ import annotations

from harness.report.build import build_report, default_pairs
from harness.report.difference import difference_markdown
from harness.report.human import human_markdown
from harness.report.markdown import render_markdown
from harness.report.schema import (
    DEFAULT_INCLUDE,
    FORMATS,
    SCHEMA_VERSION,
    SEGMENT_COLUMNS,
    SEGMENTS_CSV,
    TOP_KEYS,
    json_view,
    render_json,
)
from harness.report.write import write_report

__all__ = [
    "DEFAULT_INCLUDE",
    "FORMATS",
    "SCHEMA_VERSION",
    "SEGMENTS_CSV",
    "SEGMENT_COLUMNS",
    "TOP_KEYS",
    "build_report",
    "default_pairs",
    "difference_markdown",
    "human_markdown",
    "json_view",
    "render_json",
    "render_markdown",
    "write_report",
]
