"""Where and by how much two implementations disagree, from the runner's results table.

:func:`difference` reads the tidy rows of :func:`harness.run.run` (no re-scoring) and puts
two implementations side by side:

* the **corpus-level gap** ``b − a`` in BLEU points (0–100) for every ``(fixture, system)``
  both scored, and its mean;
* the **per-segment gap distribution** (mean, median, largest ``|Δ|``, share of segments with
  ``|Δ| > tolerance``, ``n``) when segment-level rows are present;
* the **top-k disagreeing segments** with both sides' sufficient statistics side by side
  (matched/total n-grams per order, hypothesis length, reference length, brevity penalty) —
  the table users ask for when two libraries differ (evaluate#558, torchmetrics#1776,
  nltk#1634);
* ``agree``: every comparable ``|Δ|`` (corpus and segment) is at most ``tolerance`` and no
  corpus or segment is scored by one side but not the other.

Implementations are named as in the rows (``"harness:nltk"``, ``"nltk"``) or as the runner's
specs (``"profile:nltk"``, ``"adapter:nltk"``). This module returns data only; the Markdown of a
:class:`Difference` is :func:`harness.report.pair_tables.pair_markdown` of its judged pair
(:func:`harness.analysis.study_pairs.judge_pair`).
"""

from __future__ import annotations

import math
import statistics as _stats
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError
from harness.run.results import ResultRow, Results, SegmentIndex, as_results
from harness.typed_json import JsonCodec, JsonShapeError


# ---------------------------------------------------------------------- helpers
def implementation_label(spec: str) -> str:
    """The row label of an implementation: ``profile:X`` → ``harness:X``, ``adapter:X`` → ``X``.

    >>> implementation_label("profile:nltk"), implementation_label("adapter:nltk")
    ('harness:nltk', 'nltk')
    >>> implementation_label("harness:sacrebleu")
    'harness:sacrebleu'
    """
    kind, _, name = spec.partition(":")
    if name and kind == "profile":
        return f"harness:{name}"
    if name and kind == "adapter":
        return name
    return spec


def _finite(x: Any) -> float | None:
    """A Python float, or ``None`` for a missing, NaN or infinite value."""
    if x is None or isinstance(x, bool):
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


_COLUMNS = ("fixture", "system", "segment_id", "a", "b")


def _to_columns(points: Sequence[tuple[str, str, str, float, float]]) -> dict[str, list[Any]]:
    cols = list(zip(*points, strict=True)) if points else [()] * 5
    return {
        "fixture": list(cols[0]),
        "system": list(cols[1]),
        "segment_id": list(cols[2]),
        "a": [_finite(x) for x in cols[3]],
        "b": [_finite(x) for x in cols[4]],
    }


def _from_columns(value: Any, path: str) -> tuple[tuple[str, str, str, float, float], ...]:
    if not isinstance(value, dict) or sorted(value) != sorted(_COLUMNS):
        raise JsonShapeError(f"{path!r} must be an object of the lists {', '.join(_COLUMNS)}")
    cols = [value[k] for k in _COLUMNS]
    if not all(isinstance(c, list) and len(c) == len(cols[0]) for c in cols):
        raise JsonShapeError(f"{path!r} must hold lists of one length")
    return tuple((f, s, i, float(x), float(y)) for f, s, i, x, y in zip(*cols, strict=True))


#: A difference's segment scores as parallel lists, one per column.
SEGMENT_COLUMNS = JsonCodec(
    _to_columns,
    _from_columns,
    {
        "type": "object",
        "properties": {
            **{k: {"type": "array", "items": {"type": "string"}} for k in _COLUMNS[:3]},
            **{k: {"type": "array", "items": {"type": ["number", "null"]}} for k in _COLUMNS[3:]},
        },
        "required": list(_COLUMNS),
        "additionalProperties": False,
    },
)


# ---------------------------------------------------------------------- data
@dataclass(frozen=True)
class Side:
    """One implementation's result on one corpus or segment, with its statistics.

    ``score`` and ``bp`` are ``None`` unless ``status == "ok"`` (and finite); ``counts`` and
    ``totals`` are matched and total n-grams per order (``None`` when the library does not
    expose them); ``ref_len`` is the reference length the brevity penalty used.
    """

    status: str
    score: float | None
    bp: float | None
    hyp_len: int | None
    ref_len: float | None
    counts: tuple[int, ...] | None
    totals: tuple[int, ...] | None
    error: str = ""

    @classmethod
    def from_row(cls, row: ResultRow | None) -> Side:
        """The side of one results row (``missing`` for none)."""
        if row is None:
            return cls("missing", None, None, None, None, None, None, "no row")
        ok = row.status == "ok"
        ref = _finite(row.ref_len)
        if ref is not None and float(ref).is_integer():
            ref = int(ref)
        return cls(
            status=str(row.status),
            score=_finite(row.score) if ok else None,
            bp=_finite(row.bp) if ok else None,
            hyp_len=int(row.hyp_len) if row.hyp_len is not None else None,
            ref_len=ref,
            counts=row.counts or None,
            totals=row.totals or None,
            error=str(row.error or ""),
        )

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.score is not None


@dataclass(frozen=True)
class CorpusGap:
    """Corpus-level results of both sides on one ``(fixture, system)``; ``gap = b − a``.
    ``sample``: both are corpus scores of the segments a library was spot-checked on (rows of
    level ``sample``), not of the whole system."""

    fixture: str
    system: str
    a: Side
    b: Side
    sample: bool = False

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("gap",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = ("fixture", "system", "sample", "gap", "a", "b")

    @property
    def gap(self) -> float | None:
        if self.a.ok and self.b.ok:
            return self.b.score - self.a.score  # type: ignore[operator]
        return None


@dataclass(frozen=True)
class SegmentGap:
    """Segment-level results of both sides on one segment; ``delta = b − a``.

    ``hypothesis`` and ``references`` are the texts when a corpus was given, else ``None``.
    """

    fixture: str
    system: str
    segment_id: str
    a: Side
    b: Side
    hypothesis: str | None = None
    references: tuple[str, ...] | None = None

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("delta",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "fixture",
        "system",
        "segment_id",
        "delta",
        "a",
        "b",
        "hypothesis",
        "references",
    )

    @property
    def delta(self) -> float | None:
        if self.a.ok and self.b.ok:
            return self.b.score - self.a.score  # type: ignore[operator]
        return None


@dataclass(frozen=True)
class GapDistribution:
    """Summary of the per-segment gaps ``b − a`` (BLEU points) over segments both scored.

    ``share_above`` is the fraction of those segments with ``|Δ| > tolerance``; ``unmatched``
    counts segments scored by only one side (or by neither). All statistics are ``None`` when
    ``n == 0``.
    """

    n: int
    mean: float | None
    median: float | None
    max_abs: float | None
    share_above: float | None
    unmatched: int


@dataclass(frozen=True)
class Difference:
    """Two implementations side by side (see the module docstring); all scores on 0–100.

    ``corpus_gap`` is the mean corpus-level gap ``b − a`` over the ``(fixture, system)`` pairs
    both scored (``None`` if none). ``agree`` is ``None`` when nothing is comparable.
    ``segment_scores`` holds ``(fixture, system, segment_id, score_a, score_b)`` for every
    segment both scored (the data of a scatter plot).
    """

    a: str
    b: str
    fixture: str | None
    system: str | None
    tolerance: float
    corpora: tuple[CorpusGap, ...]
    corpus_gap: float | None
    segments: GapDistribution
    top: tuple[SegmentGap, ...]
    agree: bool | None
    segment_scores: tuple[tuple[str, str, str, float, float], ...] = field(
        default=(), repr=False, metadata={"json_codec": SEGMENT_COLUMNS}
    )

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("corpus_max_abs",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "a",
        "b",
        "fixture",
        "system",
        "tolerance",
        "agree",
        "corpus_gap",
        "corpus_max_abs",
        "corpora",
        "segments",
        "top",
        "segment_scores",
    )

    @property
    def corpus_max_abs(self) -> float | None:
        gaps = [abs(g.gap) for g in self.corpora if g.gap is not None]
        return max(gaps) if gaps else None


# ---------------------------------------------------------------------- computation
def _texts_for(
    corpus: Corpus | Mapping[Any, Corpus] | None, fixture: str, system: str
) -> Corpus | None:
    if corpus is None:
        return None
    if isinstance(corpus, Corpus):
        return corpus
    for key in ((fixture, system), f"{fixture}/{system}"):
        if key in corpus:
            return corpus[key]
    return None


def _enter(
    index: dict[tuple[str, str, str, str, str | None], ResultRow],
    impl: str,
    row: ResultRow,
    level: str,
    seg: str | None,
    here: Any,
) -> None:
    f, s = str(row.fixture), str(row.system)
    if not here(f, s):
        return
    key = (impl, f, s, level, seg)
    if key in index:
        raise InputError(f"two rows for {impl} on {f}/{s} at {level} level")
    index[key] = row


@dataclass(frozen=True)
class _SegmentSide:
    """One implementation's segment rows on the compared corpora: ``index`` maps a segment
    ``(fixture, system, segment_id)`` to its place in ``score`` (``nan`` where the row has no
    number) and ``at`` (its row in the table), ``order`` the segments in row order, and
    ``sampled`` the corpora ``(fixture, system)`` where it has segment rows."""

    index: dict[tuple[str, str, str], int]
    order: list[tuple[str, str, str]]
    score: np.ndarray
    at: np.ndarray
    sampled: AbstractSet[tuple[str, str]]


def _segment_side(
    table: Results,
    impl: str,
    here: Any,
    index: dict[tuple[str, str, str, str, str | None], ResultRow],
    everywhere: bool,
    known: SegmentIndex | None = None,
) -> _SegmentSide:
    """``impl``'s segment rows on the corpora ``here`` accepts (every one: ``everywhere``);
    ``known``: their index in ``table``, when the caller has it."""
    ix = table.segment_index(impl) if known is None else known
    for j in ix.unnamed.tolist():  # why the implementation has no segment scores there
        _enter(index, impl, table.row(j), "segment", None, here)
    if everywhere:
        keys, position, score, at = ix.keys, ix.position, ix.score, ix.at
        corpora: AbstractSet[tuple[str, str]] = ix.corpora
    else:
        pick = np.array([j for j, (f, s, _) in enumerate(ix.keys) if here(f, s)], dtype=np.int64)
        keys = [ix.keys[j] for j in pick.tolist()]
        position = dict(zip(keys, range(len(keys)), strict=False))
        score, at = ix.score[pick], ix.at[pick]
        corpora = {(f, s) for f, s, _ in keys}
    if len(position) < len(keys):
        seen: set[tuple[str, str, str]] = set()
        for f, s, seg in keys:
            if (f, s, seg) in seen:
                raise InputError(f"two rows for {impl} on {f}/{s} at segment level, segment {seg}")
            seen.add((f, s, seg))
    return _SegmentSide(position, keys, score, at, corpora)


def _scores_at(score: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``score[at]``, ``nan`` where ``at`` is −1 (the side has no row for that segment)."""
    out = np.full(at.shape, np.nan)
    found = at >= 0
    out[found] = score[at[found]]
    return out


def _first_seen(sides: Iterable[_SegmentSide]) -> list[tuple[str, str, str]]:
    """Every segment of the sides, in the order of their first row in the table."""
    sides = list(sides)
    if len(sides) == 1:
        return sides[0].order
    first, second = sides
    if first.order == second.order:  # the same segments (each once): in either side's order
        return first.order
    if not first.order or not second.order or int(first.at[-1]) < int(second.at[0]):
        return list(dict.fromkeys(first.order + second.order))
    rows = sorted(
        zip(np.concatenate([first.at, second.at]).tolist(), first.order + second.order, strict=True)
    )
    return list(dict.fromkeys(k for _, k in rows))


# params: a report's pairs pass a side's segment index, made once for every pair it leads
def difference(
    rows: Results | Iterable[ResultRow],
    impl_a: str,
    impl_b: str,
    *,
    fixture: str | None = None,
    system: str | None = None,
    tolerance: float = 1e-9,
    top: int = 10,
    corpus: Corpus | Mapping[Any, Corpus] | None = None,
    indexes: Mapping[str, SegmentIndex] | None = None,
    with_scores: bool = True,
) -> Difference:
    """Compare ``impl_b`` against ``impl_a`` in the runner's rows (gap = b − a, BLEU points).

    ``fixture``/``system`` restrict the comparison (default: every ``(fixture, system)`` both
    sides have rows for). ``tolerance`` (BLEU points, ≥ 0) decides ``agree`` and which segments
    count as disagreeing; ``top`` is how many of those to list, largest ``|Δ|`` first.
    ``corpus`` — one :class:`~harness.data.corpus.Corpus`, or a mapping keyed by
    ``(fixture, system)`` or ``"fixture/system"`` — adds the texts of the top segments. A
    segment one side has no row for, while it has segment rows on that corpus, was not run
    there (a library run on a sample of the segments, ``RunPlan(libraries=...)``), and a
    corpus only one side has rows on was not run by the other (a sample of the systems):
    the corpora and segments are compared where both were run; a side whose only segment-level row on a
    corpus says why it has none (an error) leaves every segment there unmatched.
    ``indexes``: an implementation's :meth:`~harness.run.results.Results.segment_index` in
    ``rows`` the caller already has (a side judged against many others). ``with_scores``:
    whether ``segment_scores`` holds every segment both scored (else it is empty).

    Raises:
        ConfigError: an implementation, fixture or system that is not in the rows, or a
            negative ``tolerance``/``top``.
        InputError: two rows for the same implementation, corpus, level and segment.
    """
    if not (tolerance >= 0) or not math.isfinite(tolerance):
        raise ConfigError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    if top < 0:
        raise ConfigError(f"top must be >= 0, got {top!r}")
    a, b = implementation_label(impl_a), implementation_label(impl_b)
    table = as_results(rows)
    present = table.labels()
    for label in (a, b):
        if label not in present:
            raise ConfigError(f"implementation {label!r} has no rows", valid=present)
    if fixture is not None:
        fixtures = [str(f) for (f,) in table.distinct("fixture")]
        if fixture not in fixtures:
            raise ConfigError(f"fixture {fixture!r} has no rows", valid=fixtures)
    if system is not None:
        systems = list(
            dict.fromkeys(
                str(s) for f, s in table.distinct("fixture", "system") if fixture in (None, f)
            )
        )
        if system not in systems:
            raise ConfigError(f"system {system!r} has no rows", valid=systems)

    def here(f: Any, s: Any) -> bool:
        return (fixture is None or str(f) == fixture) and (system is None or str(s) == system)

    both = table.select((a, b))
    # A corpus only one side has rows on was not run by the other (a library's spot check
    # runs on a sample of the systems): the sides are compared where both ran.
    ran = {
        (str(impl), str(f), str(s))
        for impl, f, s in both.distinct("implementation", "fixture", "system")
    }
    units = [
        (str(f), str(s))
        for f, s in both.distinct("fixture", "system")
        if here(f, s) and (a, str(f), str(s)) in ran and (b, str(f), str(s)) in ran
    ]
    compared = set(units)
    # Corpus rows and the rows that say why there are no segment scores are few: as rows.
    index: dict[tuple[str, str, str, str, str | None], ResultRow] = {}
    for level in ("corpus", "sample"):
        for r in both.corpus_rows(level):
            _enter(index, r.implementation, r, level, None, here)
    # Segments are many: only their scores are read here, and Sides are built for the top.
    # The full table's index of each side is made once for all the pairs compared in it.
    everywhere = fixture is None and system is None
    known = indexes or {}
    sides = {
        impl: _segment_side(table, impl, here, index, everywhere, known.get(impl))
        for impl in dict.fromkeys((a, b))
    }
    side_a, side_b = sides[a], sides[b]
    seg_keys = _first_seen(sides.values())
    corpora: list[CorpusGap] = []
    for f, s in units:
        ra, rb = index.get((a, f, s, "corpus", None)), index.get((b, f, s, "corpus", None))
        qa, qb = index.get((a, f, s, "sample", None)), index.get((b, f, s, "sample", None))
        if (ra is None or rb is None) and qa is not None and qb is not None:
            # a library spot-checked on a sample of the system's segments: its corpus call
            # on them against its profile's score of the same segments
            corpora.append(CorpusGap(f, s, Side.from_row(qa), Side.from_row(qb), sample=True))
            continue
        if (
            (ra is None and rb is None)
            or (ra is None and qa is not None)
            or (rb is None and qb is not None)
        ):
            continue  # nothing at corpus level, or one side scored only a sample there
        corpora.append(CorpusGap(f, s, Side.from_row(ra), Side.from_row(rb)))
    gaps = [g.gap for g in corpora if g.gap is not None]
    corpus_gap = math.fsum(gaps) / len(gaps) if gaps else None

    # Each segment either side scored, in the table's order; a segment one side has no row
    # for, where that side has segment rows on the corpus, was left out of its sample.
    if side_a.order == side_b.order and side_a.sampled <= compared:
        # the common case, two sides with the same segments on corpora both ran: each
        # segment at its own place on either side, and none left out
        kept = seg_keys
        ia = ib = np.arange(len(seg_keys), dtype=np.int64)
    else:
        ia = np.array([side_a.index.get(k, -1) for k in seg_keys], dtype=np.int64)
        ib = np.array([side_b.index.get(k, -1) for k in seg_keys], dtype=np.int64)
        skipped = [
            (f, s) not in compared
            or (i < 0 and (f, s) in side_a.sampled)
            or (j < 0 and (f, s) in side_b.sampled)
            for (f, s, _), i, j in zip(seg_keys, ia.tolist(), ib.tolist(), strict=True)
        ]
        keep = ~np.array(skipped, dtype=bool)
        kept = [k for k, drop in zip(seg_keys, skipped, strict=True) if not drop]
        ia, ib = ia[keep], ib[keep]
    sa, sb = _scores_at(side_a.score, ia), _scores_at(side_b.score, ib)
    has_a, has_b = ~np.isnan(sa), ~np.isnan(sb)
    both_scored = has_a & has_b
    delta = sb - sa
    unmatched = int((~both_scored).sum())
    seg_mismatch = bool((has_a != has_b).any())
    deltas = delta[both_scored].tolist()
    n = len(deltas)
    dist = GapDistribution(
        n=n,
        mean=math.fsum(deltas) / n if n else None,
        median=float(_stats.median(deltas)) if n else None,
        max_abs=float(np.abs(delta[both_scored]).max()) if n else None,
        share_above=int((np.abs(delta[both_scored]) > tolerance).sum()) / n if n else None,
        unmatched=unmatched,
    )

    big = np.flatnonzero(both_scored & (np.abs(np.where(both_scored, delta, 0.0)) > tolerance))
    big = big[np.argsort(-np.abs(delta[big]), kind="stable")][:top]
    chosen: list[SegmentGap] = []
    for k in big.tolist():
        f, s, sid = kept[k]
        row_a = table.row(int(side_a.at[ia[k]]))
        row_b = table.row(int(side_b.at[ib[k]]))
        pair = (Side.from_row(row_a), Side.from_row(row_b))
        c = _texts_for(corpus, f, s)
        if c is not None and c.ids and sid in c.ids:
            i = c.ids.index(sid)
            chosen.append(SegmentGap(f, s, sid, *pair, c.hypotheses[i], c.references[i]))
        else:
            chosen.append(SegmentGap(f, s, sid, *pair))

    mismatch = any(g.a.ok != g.b.ok for g in corpora) or seg_mismatch
    if not gaps and not n:
        agree: bool | None = False if mismatch else None
    else:
        agree = (
            not mismatch
            and all(abs(x) <= tolerance for x in gaps)
            and not (np.abs(delta[both_scored]) > tolerance).any()
        )

    points = (
        tuple(
            (f, s, sid, x, y)
            for (f, s, sid), x, y, ok in zip(
                kept, sa.tolist(), sb.tolist(), both_scored.tolist(), strict=True
            )
            if ok
        )
        if with_scores
        else ()
    )
    return Difference(
        a=a,
        b=b,
        fixture=fixture,
        system=system,
        tolerance=float(tolerance),
        corpora=tuple(corpora),
        corpus_gap=corpus_gap,
        segments=dist,
        top=tuple(chosen),
        agree=agree,
        segment_scores=points,
    )


def implementations_in(rows: Sequence[ResultRow]) -> list[str]:
    """The implementation labels in ``rows``, in first-seen order."""
    return list(dict.fromkeys(str(r.implementation) for r in rows))


__all__ = [
    "CorpusGap",
    "Difference",
    "GapDistribution",
    "SegmentGap",
    "Side",
    "difference",
    "implementation_label",
    "implementations_in",
]
