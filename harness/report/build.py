"""Build the report object from the runner's rows: :func:`build_report` puts the sections of
:mod:`harness.report.sections` together under the schema documented in :mod:`harness.report`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.analysis import runner
from harness.analysis.difference import difference, implementation_label
from harness.data.corpus import Corpus
from harness.errors import ConfigError
from harness.progress import ProgressCallback, track
from harness.report import families, ranking, sections
from harness.report.schema import DEFAULT_INCLUDE, TOP_KEYS, jsonable
from harness.session import Session


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


def default_pairs(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Every adapter ``X`` vs its own profile ``harness:X`` (``a`` = the profile), then
    sacrebleu (the adapter if it has an ok row, else ``harness:sacrebleu``) vs every other
    implementation in the rows; no pair twice (in either order)."""
    labels = sections.labels_in(rows)
    kinds = sections.kinds_in(rows)
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
    session: Session | None = None,
    significance_pair: tuple[str, str] | None = None,
    baseline: str = "sacrebleu",
    limit: int | None = None,
) -> dict[str, Any]:
    """One JSON-ready report object from the runner's rows (schema: the package docstring).

    ``corpora`` — ``{(fixture, system): Corpus}`` (or ``"fixture/system"`` keys, or the
    triples given to :func:`harness.analysis.runner.run`) — adds segment texts to the pairs
    and enables attributions (``attribution_pairs`` of profile names, default
    :data:`~harness.report.schema.DEFAULT_ATTRIBUTION_PAIRS` where both have rows, on at most
    ``max_attribution_corpora`` corpora; the library ``b`` gives the residual when its adapter
    has an ok row there). ``pairs`` are ``(a, b)`` implementation names (row labels or
    ``profile:``/``adapter:`` specs; default :func:`default_pairs`); each pair is judged at
    :func:`~harness.report.sections.pair_tolerance` (the less precise side's proven
    tolerance, at least ``tolerance``); ``top`` goes to
    :func:`~harness.analysis.difference.difference`. ``include`` chooses the computed sections
    (left-out ones are empty: ``[]``, ``null`` or a ``correlations`` note). ``seed`` and
    ``n_boot`` are the correlations' bootstrap (0 resamples: no intervals). ``human`` and
    ``significance`` are precomputed results (objects with ``to_dict()`` or JSON values),
    stored as given; without ``significance`` (and with corpora) a paired bootstrap of every
    system against the best (or of ``significance_pair`` = ``(baseline system, system)``) is
    computed (:func:`~harness.report.ranking.default_significance`), else the section says
    why not and how to get one. When the corpora are one fixture's systems sharing their
    references, ``answer`` is :func:`~harness.report.families.answer_section` (families of
    equal numbers, gaps to the ``baseline`` profile split into factors, ranking changes).
    ``limit`` says that every corpus was cut to its first ``limit`` segments (``--limit``);
    it goes into the signature. ``session`` is where statistics are counted and cached.
    ``progress`` (:data:`~harness.progress.ProgressCallback`) is
    told of each finished pair, correlation level and attributed corpus.

    Raises:
        ConfigError: an unknown section in ``include``, an unknown implementation in ``pairs``.
    """
    include = tuple(include)
    unknown = sorted(set(include) - set(DEFAULT_INCLUDE))
    if unknown:
        raise ConfigError(f"unknown report section(s) {', '.join(unknown)}", valid=DEFAULT_INCLUDE)
    rows = list(rows)
    cmap = _corpora_map(corpora)
    versions = runner.versions()

    report: dict[str, Any] = dict.fromkeys(TOP_KEYS)
    report["signature"] = sections.signature(rows, versions, seed, limit)
    report["versions"] = versions
    report["verification"] = sections.verification_of(rows)
    report["fixtures"] = sections.fixtures(rows)
    report["pairs"] = []
    if "pairs" in include and rows:
        chosen = (
            default_pairs(rows)
            if pairs is None
            else [(implementation_label(a), implementation_label(b)) for a, b in pairs]
        )
        by_impl: dict[str, list[Mapping[str, Any]]] = {}
        for row in rows:  # a pair's difference reads only its two implementations' rows
            by_impl.setdefault(str(row["implementation"]), []).append(row)
        for a, b in track(chosen, progress, "report: pairs"):
            tol = sections.pair_tolerance(a, b, tolerance)
            known = a in by_impl and b in by_impl  # else the full rows, for the full error
            both = (by_impl[a] + (by_impl[b] if b != a else [])) if known else rows
            d = difference(both, a, b, tolerance=tol, top=top, corpus=cmap or None)
            # its segment scores are in the segment table (segments.csv) instead
            report["pairs"].append(sections.judge_pair(d.to_dict(segment_scores=False)))
    report["segments"] = sections.segments_section(rows)
    if "correlations" in include:
        report["correlations"] = sections.correlations(rows, seed, n_boot, progress)
    else:
        report["correlations"] = {"segment": None, "corpus": None, "note": "not included"}
    report["attributions"] = (
        sections.attributions(rows, cmap, attribution_pairs, max_attribution_corpora, progress)
        if "attributions" in include
        else []
    )
    report["human"] = human if "human" in include else None
    if "significance" not in include:
        report["significance"] = None
    elif significance is not None:
        report["significance"] = significance
    else:
        report["significance"] = ranking.default_significance(
            rows, cmap, seed, pair=significance_pair, session=session
        )
    report["answer"], note = families.answer_section(rows, cmap, session, baseline)
    report["summary"] = sections.summary(report, rows)
    report["summary"]["answer_note"] = note
    return jsonable(report)
