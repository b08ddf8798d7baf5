"""Which part of the test set a printed result was computed on, read from its printed lengths.

A printed line that gives ``hyp_len`` and ``ref_len`` (sacrebleu, multi-bleu.perl, ``evaluate``'s
dict) pins the text it was computed on far more tightly than its score: under the printing
tool's own tokenization, two counts of tens of thousands of tokens are equalled by chance only
rarely. When no reading of the files reproduces a line, :func:`length_clue` asks whether its
lengths are those of a contiguous run of the files' segments (the first 2,000 lines, one
document range) and whether the tool's score on that run reproduces every printed number; if
no run has those lengths, the line was computed on other text, and the lengths say on which
side (the hypotheses' length agrees and the references' does not: other references).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from harness.api import resolve_config
from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.diagnose.candidates import Candidate
from harness.diagnose.identify import FORM_PROFILES, identify
from harness.scorers.printed import PrintedLine, agrees, shows
from harness.session import Session

__all__ = ["LengthClue", "length_clue"]

#: Runs of segments with the printed lengths scored at most, earliest first: with two exact
#: counts to equal, more than a few are coincidences of very short runs.
MAX_RUNS = 20


@dataclass(frozen=True)
class LengthClue:
    """What a printed line's lengths say about the text it was computed on.

    ``profile``: the printing tool's profile the lengths were counted with; ``printed_*``: the
    printed lengths; ``files_*``: the same lengths of the whole files; ``segments``: the
    files' segments. ``span``: the first run of segments ``[start, end)`` (0-based) whose
    lengths equal the printed ones and whose score reproduces every printed number, else the
    first whose lengths alone do (``reproduces`` says which), else ``None``. ``pinned``: the
    settings a signature pinned that the profile does not have (``tokenize=intl``).
    ``matches``: when the tool's profile on the span does not reproduce the line, the readings
    of the span that do (:func:`~harness.diagnose.identify.identify` on it: a mistake made on
    that part of the test set). Its JSON is its fields (the report layer adds the clue in
    words, :func:`harness.report.identify_words.length_clue_sentence`).
    """

    profile: str
    printed_hyp_len: int
    printed_ref_len: float
    files_hyp_len: int
    files_ref_len: float
    segments: int
    span: tuple[int, int] | None
    reproduces: bool
    pinned: tuple[str, ...] = ()
    matches: tuple[Candidate, ...] = field(default=(), compare=False)


def _runs(hyp: np.ndarray, ref: np.ndarray, h: int, r: float) -> list[tuple[int, int]]:
    """Every non-empty run ``[start, end)`` whose lengths sum to ``h`` and ``r``, by start."""
    ch = np.concatenate([[0], np.cumsum(hyp, dtype=np.int64)])
    cr = np.concatenate([[0.0], np.cumsum(np.asarray(ref, dtype=np.float64))])
    lo = np.searchsorted(ch, ch + h, side="left")
    hi = np.searchsorted(ch, ch + h, side="right")
    out = []
    for start in np.flatnonzero(hi > lo):
        for end in range(int(lo[start]), int(hi[start])):
            if end > start and abs((cr[end] - cr[start]) - r) <= 1e-6 * max(1.0, abs(r)):
                out.append((int(start), end))
    return out


def length_clue(line: PrintedLine, corpus: Corpus, *, session: Session) -> LengthClue | None:
    """What ``line``'s printed lengths say about the part of ``corpus`` it was computed on,
    counted with the printing tool's profile (:data:`~harness.diagnose.identify.FORM_PROFILES`,
    with the settings a signature pins); ``None`` when the line prints no lengths, its form
    names no tool, or the files' own lengths are the printed ones."""
    names = FORM_PROFILES.get(line.form, ())
    if line.hyp_len is None or line.ref_len is None or not names:
        return None
    name = names[0]
    cfg = resolve_config(name, **line.settings)
    stats = session.with_corpora(corpus).statistics(cfg, max_order=1)
    hyp = np.asarray(stats.hyp_len)
    ref = np.asarray(stats.ref_length(cfg.ref_length, missing=cfg.missing_refs))
    h, r = int(float(line.hyp_len)), float(line.ref_len)
    files_h, files_r = int(hyp.sum()), float(np.sum(ref, dtype=np.float64))
    if (h, r) == (files_h, files_r):
        return None
    runs = [s for s in _runs(hyp, ref, h, r) if s != (0, len(corpus))]
    span, reproduces = (runs[0], False) if runs else (None, False)
    for start, end in runs[:MAX_RUNS]:
        result = engine.corpus_score(corpus.subset(range(start, end)), cfg)
        shown = result.score * (0.01 if line.scale == "0-1" else 1.0)
        if not agrees(line, result) and shows(shown, line.score):
            span, reproduces = (start, end), True
            break
    matches: tuple[Candidate, ...] = ()
    if span is not None and not reproduces:
        matches = tuple(identify(line, corpus.subset(range(*span)), session=session))
    base = PROFILES[name]
    pinned = tuple(
        f"{k}={getattr(cfg, k)}" for k in line.settings if getattr(base, k) != getattr(cfg, k)
    )
    return LengthClue(name, h, r, files_h, files_r, len(corpus), span, reproduces, pinned, matches)
