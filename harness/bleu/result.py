"""``BleuResult``: what every scorer returns, the in-house engine and the adapters alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class BleuResult:
    """One BLEU score with the statistics it came from.

    ``score`` and ``precisions`` are on 0–100. ``precisions`` are the (smoothed) per-order
    precisions that entered the geometric mean, as sacrebleu reports them. ``counts`` and
    ``totals`` are the raw matched and total n-grams per order (``None`` for an adapter whose
    library does not expose them). ``ref_len`` is the reference length the brevity penalty
    used (a float for ``ref_length="average"``). ``implementation`` says who computed the
    number: ``"harness:<profile>"`` for the in-house engine, ``"<library>"`` for an adapter.
    ``call`` is the exact library call an adapter made. ``level`` is ``"corpus"`` or
    ``"segment"``; ``segment_id`` names the segment for segment-level results.
    """

    score: float
    precisions: tuple[float, ...]
    bp: float
    ratio: float
    hyp_len: int
    ref_len: float
    counts: tuple[int, ...] | None
    totals: tuple[int, ...] | None
    signature: str
    implementation: str = "harness"
    level: str = "corpus"
    segment_id: str | None = None
    call: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def format(self, width: int = 2) -> str:
        """A sacrebleu-like one-line summary: ``BLEU = 27.23 81.8/50.0/22.2/12.5 (BP = …)``."""
        prec = "/".join(f"{p:.1f}" for p in self.precisions)
        ref_len = f"{self.ref_len:g}" if isinstance(self.ref_len, float) else str(self.ref_len)
        return (
            f"BLEU = {self.score:.{width}f} {prec} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
            f"hyp_len = {self.hyp_len} ref_len = {ref_len})"
        )


@dataclass(frozen=True, eq=False)
class SegmentBleu:
    """Every segment's sentence BLEU under one config, as numpy arrays (one row a segment).

    ``score`` (S,) and ``precisions`` (S, N) on 0–100 (zero for orders not used); ``bp`` and
    ``ratio`` (S,); ``hyp_len`` and ``ref_len`` (S,) (the reference length the brevity penalty
    used, float for ``ref_length="average"``); ``counts`` and ``totals`` (S, N) matched and
    total n-grams; ``ids`` (S,) segment ids; ``signature`` names the config.
    """

    score: np.ndarray
    precisions: np.ndarray
    bp: np.ndarray
    ratio: np.ndarray
    hyp_len: np.ndarray
    ref_len: np.ndarray
    counts: np.ndarray
    totals: np.ndarray
    ids: np.ndarray
    signature: str

    def __len__(self) -> int:
        return len(self.score)

    def to_frame(self) -> Any:
        """A tidy ``pandas.DataFrame``, one row per segment indexed by ``id``: ``score``,
        ``bp``, ``ratio``, ``hyp_len``, ``ref_len``, then ``precision_n``, ``count_n`` and
        ``total_n`` for every order n. Needs pandas (the ``dev`` extra)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is a dev extra
            raise ImportError(
                "SegmentBleu.to_frame needs pandas (pip install pandas, or the 'dev' extra); "
                "the numpy arrays are on the result itself"
            ) from exc
        columns: dict[str, Any] = {
            "score": self.score,
            "bp": self.bp,
            "ratio": self.ratio,
            "hyp_len": self.hyp_len,
            "ref_len": self.ref_len,
        }
        for name, table in (
            ("precision", self.precisions),
            ("count", self.counts),
            ("total", self.totals),
        ):
            for n in range(table.shape[1]):
                columns[f"{name}_{n + 1}"] = table[:, n]
        return pd.DataFrame(columns, index=pd.Index(self.ids, name="id"))
