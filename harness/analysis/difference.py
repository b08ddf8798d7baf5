"""Where and by how much two implementations disagree, from the runner's results table.

:func:`difference` reads the tidy rows of :func:`harness.analysis.runner.run` (no re-scoring) and puts
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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.analysis.results import Results, as_results
from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError


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


def _ints(field_value: Any) -> tuple[int, ...] | None:
    """Rows store ``counts``/``totals`` as space-separated strings (``"8 4 2 0"``)."""
    if field_value is None or field_value == "":
        return None
    if isinstance(field_value, str):
        return tuple(int(x) for x in field_value.split())
    return tuple(int(x) for x in field_value)


def _ok_score(row: Mapping[str, Any] | None) -> float | None:
    """The score of a row that has one (what :attr:`Side.ok` means), else ``None``."""
    if row is None or row.get("status") != "ok":
        return None
    return _finite(row.get("score"))


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
    def from_row(cls, row: Mapping[str, Any] | None) -> Side:
        if row is None:
            return cls("missing", None, None, None, None, None, None, "no row")
        ok = row.get("status") == "ok"
        hyp = row.get("hyp_len")
        ref = _finite(row.get("ref_len"))
        if ref is not None and float(ref).is_integer():
            ref = int(ref)
        return cls(
            status=str(row.get("status")),
            score=_finite(row.get("score")) if ok else None,
            bp=_finite(row.get("bp")) if ok else None,
            hyp_len=int(hyp) if hyp is not None else None,
            ref_len=ref,
            counts=_ints(row.get("counts")),
            totals=_ints(row.get("totals")),
            error=str(row.get("error") or ""),
        )

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.score is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "bp": self.bp,
            "hyp_len": self.hyp_len,
            "ref_len": self.ref_len,
            "counts": list(self.counts) if self.counts is not None else None,
            "totals": list(self.totals) if self.totals is not None else None,
            "error": self.error,
        }


@dataclass(frozen=True)
class CorpusGap:
    """Corpus-level results of both sides on one ``(fixture, system)``; ``gap = b − a``."""

    fixture: str
    system: str
    a: Side
    b: Side

    @property
    def gap(self) -> float | None:
        if self.a.ok and self.b.ok:
            return self.b.score - self.a.score  # type: ignore[operator]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fixture": self.fixture,
            "system": self.system,
            "gap": _finite(self.gap),
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
        }


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

    @property
    def delta(self) -> float | None:
        if self.a.ok and self.b.ok:
            return self.b.score - self.a.score  # type: ignore[operator]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fixture": self.fixture,
            "system": self.system,
            "segment_id": self.segment_id,
            "delta": _finite(self.delta),
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "hypothesis": self.hypothesis,
            "references": list(self.references) if self.references is not None else None,
        }


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean": _finite(self.mean),
            "median": _finite(self.median),
            "max_abs": _finite(self.max_abs),
            "share_above": _finite(self.share_above),
            "unmatched": self.unmatched,
        }


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
    segment_scores: tuple[tuple[str, str, str, float, float], ...] = field(default=(), repr=False)

    @property
    def corpus_max_abs(self) -> float | None:
        gaps = [abs(g.gap) for g in self.corpora if g.gap is not None]
        return max(gaps) if gaps else None

    def to_dict(self, *, segment_scores: bool = True) -> dict[str, Any]:
        """A JSON-ready dict (``None`` for every missing, NaN or infinite number); without
        ``segment_scores`` (a caller that keeps them elsewhere) that key is left out.

        Keys: ``a``, ``b``, ``fixture``, ``system``, ``tolerance``, ``agree``, ``corpus_gap``,
        ``corpus_max_abs``, ``corpora`` (list of :meth:`CorpusGap.to_dict`), ``segments``
        (:meth:`GapDistribution.to_dict`), ``top`` (list of :meth:`SegmentGap.to_dict`),
        ``segment_scores`` (``{"fixture": [...], "system": [...], "segment_id": [...],
        "a": [...], "b": [...]}``, parallel lists).
        """
        out = {
            "a": self.a,
            "b": self.b,
            "fixture": self.fixture,
            "system": self.system,
            "tolerance": self.tolerance,
            "agree": self.agree,
            "corpus_gap": _finite(self.corpus_gap),
            "corpus_max_abs": _finite(self.corpus_max_abs),
            "corpora": [g.to_dict() for g in self.corpora],
            "segments": self.segments.to_dict(),
            "top": [s.to_dict() for s in self.top],
        }
        if segment_scores:
            cols = list(zip(*self.segment_scores, strict=True)) if self.segment_scores else [()] * 5
            out["segment_scores"] = {
                "fixture": list(cols[0]),
                "system": list(cols[1]),
                "segment_id": list(cols[2]),
                "a": [_finite(x) for x in cols[3]],
                "b": [_finite(x) for x in cols[4]],
            }
        return out


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
    index: dict[tuple[str, str, str, str, str | None], Mapping[str, Any]],
    impl: str,
    row: Mapping[str, Any],
    level: str,
    seg: str | None,
    here: Any,
) -> None:
    f, s = str(row["fixture"]), str(row["system"])
    if not here(f, s):
        return
    key = (impl, f, s, level, seg)
    if key in index:
        raise InputError(f"two rows for {impl} on {f}/{s} at {level} level")
    index[key] = row


def _row_at(
    table: Results, at: Mapping[tuple[str, str, str], int], key: tuple[str, str, str]
) -> Mapping[str, Any] | None:
    i = at.get(key)
    return None if i is None else table.row(i)


def difference(
    rows: Results | Iterable[Mapping[str, Any]],
    impl_a: str,
    impl_b: str,
    *,
    fixture: str | None = None,
    system: str | None = None,
    tolerance: float = 1e-9,
    top: int = 10,
    corpus: Corpus | Mapping[Any, Corpus] | None = None,
) -> Difference:
    """Compare ``impl_b`` against ``impl_a`` in the runner's rows (gap = b − a, BLEU points).

    ``fixture``/``system`` restrict the comparison (default: every ``(fixture, system)`` either
    side has rows for). ``tolerance`` (BLEU points, ≥ 0) decides ``agree`` and which segments
    count as disagreeing; ``top`` is how many of those to list, largest ``|Δ|`` first.
    ``corpus`` — one :class:`~harness.data.corpus.Corpus`, or a mapping keyed by
    ``(fixture, system)`` or ``"fixture/system"`` — adds the texts of the top segments. A
    segment one side has no row for, while it has segment rows on that corpus, was not run
    there (a library run on a sample of the segments, ``runner.run(library_segments=...)``):
    the segments are compared where both were run; a side whose only segment-level row on a
    corpus says why it has none (an error) leaves every segment there unmatched.

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
    units = [(str(f), str(s)) for f, s in both.distinct("fixture", "system") if here(f, s)]
    # Corpus rows and the rows that say why there are no segment scores are few: as dicts.
    index: dict[tuple[str, str, str, str, str | None], Mapping[str, Any]] = {}
    for r in both.corpus_rows():
        _enter(index, r["implementation"], r, "corpus", None, here)
    # Segments are many: only their scores are read here, and Sides are built for the top.
    seg_score: dict[str, dict[tuple[str, str, str], float | None]] = {}
    seg_at: dict[str, dict[tuple[str, str, str], int]] = {}
    sampled: set[tuple[str, str, str]] = set()  # implementations with segment rows there
    for impl in dict.fromkeys((a, b)):
        got = both.segment_scores(impl)
        scores: dict[tuple[str, str, str], float | None] = {}
        at: dict[tuple[str, str, str], int] = {}
        ok = (got.status == "ok") & np.isfinite(got.score)
        for (f, s, seg), good, value, i in zip(
            got.keys, ok.tolist(), got.score.tolist(), got.at.tolist(), strict=True
        ):
            if not here(f, s):
                continue
            if seg is None:  # why the implementation has no segment scores there
                _enter(index, impl, both.row(i), "segment", None, here)
                continue
            key = (str(f), str(s), str(seg))
            if key in at:
                raise InputError(
                    f"two rows for {impl} on {key[0]}/{key[1]} at segment level, segment {seg}"
                )
            at[key] = i
            scores[key] = value if good else None
            sampled.add((impl, key[0], key[1]))
        seg_score[impl], seg_at[impl] = scores, at
    seg_keys = [
        (str(f), str(s), str(seg))
        for f, s, seg in both.distinct("fixture", "system", "segment_id", level="segment")
        if seg is not None and here(f, s)
    ]

    corpora: list[CorpusGap] = []
    for f, s in units:
        ra, rb = index.get((a, f, s, "corpus", None)), index.get((b, f, s, "corpus", None))
        if ra is None and rb is None:
            continue
        corpora.append(CorpusGap(f, s, Side.from_row(ra), Side.from_row(rb)))
    gaps = [g.gap for g in corpora if g.gap is not None]
    corpus_gap = math.fsum(gaps) / len(gaps) if gaps else None

    seg_pairs: list[tuple[str, str, str, float | None, float | None, float | None]] = []
    unmatched = 0
    seg_mismatch = False
    for f, s, sid in seg_keys:
        key = (f, s, sid)
        in_a, in_b = key in seg_at[a], key in seg_at[b]
        if (not in_a and (a, f, s) in sampled) or (not in_b and (b, f, s) in sampled):
            continue  # a library run on a sample of the segments: this one was not drawn
        sa = seg_score[a].get(key) if in_a else None
        sb = seg_score[b].get(key) if in_b else None
        delta = sb - sa if sa is not None and sb is not None else None
        if delta is None:
            unmatched += 1
            seg_mismatch = seg_mismatch or (sa is None) != (sb is None)
        seg_pairs.append((f, s, sid, sa, sb, delta))
    deltas = [p[5] for p in seg_pairs if p[5] is not None]
    n = len(deltas)
    dist = GapDistribution(
        n=n,
        mean=math.fsum(deltas) / n if n else None,
        median=float(_stats.median(deltas)) if n else None,
        max_abs=max(abs(x) for x in deltas) if n else None,
        share_above=sum(abs(x) > tolerance for x in deltas) / n if n else None,
        unmatched=unmatched,
    )

    disagreeing = [p for p in seg_pairs if p[5] is not None and abs(p[5]) > tolerance]
    disagreeing.sort(key=lambda p: -abs(p[5]))  # type: ignore[arg-type]  # stable
    chosen: list[SegmentGap] = []
    for f, s, sid, _, _, _ in disagreeing[:top]:
        side_a = Side.from_row(_row_at(both, seg_at[a], (f, s, sid)))
        side_b = Side.from_row(_row_at(both, seg_at[b], (f, s, sid)))
        c = _texts_for(corpus, f, s)
        if c is not None and c.ids and sid in c.ids:
            i = c.ids.index(sid)
            chosen.append(SegmentGap(f, s, sid, side_a, side_b, c.hypotheses[i], c.references[i]))
        else:
            chosen.append(SegmentGap(f, s, sid, side_a, side_b))

    comparable = gaps + deltas
    mismatch = any(g.a.ok != g.b.ok for g in corpora) or seg_mismatch
    if not comparable:
        agree: bool | None = False if mismatch else None
    else:
        agree = not mismatch and all(abs(x) <= tolerance for x in comparable)

    points = tuple(p[:5] for p in seg_pairs if p[5] is not None)
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
        segment_scores=points,  # type: ignore[arg-type]
    )


def implementations_in(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The implementation labels in ``rows``, in first-seen order."""
    return list(dict.fromkeys(str(r["implementation"]) for r in rows))


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
