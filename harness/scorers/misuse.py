"""Reference-layout misuse, run through the real sacrebleu: what it silently returns.

sacrebleu's ``corpus_score(hyps, refs)`` wants reference *streams* (``refs[k][i]``). It checks
only the type of ``refs[0][0]`` (``metrics/base.py`` ``_check_corpus_score_args``) and then
``zip``s: ``zip(*refs)`` makes one "segment" per position of the shortest stream
(``_cache_references``) and ``zip(hypotheses, ref_cache)`` stops at the shorter side
(``_extract_corpus_statistics``). So a wrong layout is usually not an error but a score of
*some* of the hypotheses against the wrong references (sacrebleu#220, #272, #275; seed
``001_4d9c0f31bc4f1899.txt``).

Each function here builds one wrong layout from a correct :class:`~harness.data.corpus.Corpus`, calls
the real library with it, and returns a :class:`Misuse` with the exact call, the score or the
exception text, and how many hypotheses were actually scored (``min(len(hyps), shortest
stream)`` — what the two ``zip`` calls keep), next to the correct score for contrast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.data.corpus import Corpus
from harness.scorers.sacrebleu_adapter import quiet_sacrebleu


@dataclass(frozen=True)
class Misuse:
    """What sacrebleu did with a wrong reference layout.

    ``score`` (0–100) is ``None`` when sacrebleu raised; ``error`` is then the exception text.
    ``hypotheses_scored`` is how many hypotheses entered the statistics (``None`` when it
    raised); ``n_hypotheses`` how many the corpus has; ``correct_score`` the score with the
    right layout; ``silent`` is true when sacrebleu returned a number for a wrong layout.
    """

    layout: str
    call: str
    score: float | None
    error: str | None
    hypotheses_scored: int | None
    n_hypotheses: int
    correct_score: float
    description: str = ""

    @property
    def silent(self) -> bool:
        return self.error is None

    @property
    def wrong(self) -> bool:
        """A silent answer that differs from the correct one (or scores fewer hypotheses)."""
        return self.silent and (
            self.score != self.correct_score or self.hypotheses_scored != self.n_hypotheses
        )


def _scored(hyps: Sequence[str], refs: Sequence[Sequence[Any]]) -> int:
    """How many hypotheses sacrebleu's two ``zip`` calls keep."""
    shortest = min((len(r) for r in refs), default=0)
    return min(len(hyps), shortest)


def _run(
    corpus: Corpus,
    layout: str,
    refs: Any,
    call: str,
    description: str,
    fn: Callable[[list[str], Any], Any] | None = None,
) -> Misuse:
    from sacrebleu.metrics import BLEU

    hyps = list(corpus.hypotheses)
    # None pads ragged streams; sacrebleu drops it (its annotations say only str)
    streams: Any = corpus.to_streams(padding="none")
    with quiet_sacrebleu():
        correct = BLEU().corpus_score(hyps, streams).score
        try:
            if fn is None:
                result = BLEU().corpus_score(hyps, refs)
            else:
                result = fn(hyps, refs)
        except Exception as exc:
            return Misuse(
                layout=layout,
                call=call,
                score=None,
                error=f"{type(exc).__name__}: {exc}",
                hypotheses_scored=None,
                n_hypotheses=len(hyps),
                correct_score=float(correct),
                description=description,
            )
    return Misuse(
        layout=layout,
        call=call,
        score=float(result.score),
        error=None,
        hypotheses_scored=_scored(hyps, refs),
        n_hypotheses=len(hyps),
        correct_score=float(correct),
        description=description,
    )


def per_segment_lists_as_streams(corpus: Corpus) -> Misuse:
    """The per-segment layout (N lists of K references) passed where streams belong.

    sacrebleu reads it as N streams of K entries: only ``min(N, K)`` hypotheses are scored,
    each against the wrong references.
    """
    return _run(
        corpus,
        "per-segment lists as streams",
        corpus.to_evaluate(),
        "sacrebleu.metrics.BLEU().corpus_score(hyps, refs_per_segment)",
        "references[i] = refs of segment i, read as reference stream i",
    )


def flat_reference_list(corpus: Corpus) -> Misuse:
    """A flat list of reference strings (the first reference of each segment).

    ``refs[0][0]`` is then a character, which passes the type check; each string is read as a
    stream of characters, so "segments" are character positions.
    """
    flat = [refs[0] for refs in corpus.references]
    return _run(
        corpus,
        "flat list of strings",
        flat,
        "sacrebleu.metrics.BLEU().corpus_score(hyps, [ref_1, ..., ref_N])",
        "one reference string per segment, not wrapped in a list of streams",
    )


def empty_string_padding(corpus: Corpus) -> Misuse:
    """Ragged references padded with ``''`` instead of ``None``.

    sacrebleu drops ``None`` but keeps ``''`` as a reference of length 0, which can become the
    closest reference length and change the brevity penalty (no error).
    """
    streams = corpus.to_streams(padding="empty")
    return _run(
        corpus,
        "'' padding",
        streams,
        "sacrebleu.metrics.BLEU().corpus_score(hyps, streams_padded_with_empty_strings)",
        "missing references written as '' instead of None",
    )


def evaluate_layout_to_sacrebleu(corpus: Corpus) -> Misuse:
    """An evaluate-style call ported to sacrebleu's module-level function.

    ``evaluate.load("bleu").compute(predictions=p, references=r)`` takes ``r`` per segment;
    porting it to ``sacrebleu.corpus_bleu(p, r)`` keeps that layout, which sacrebleu reads as
    streams (same truncation as :func:`per_segment_lists_as_streams`, through the compat API).
    """
    import sacrebleu

    return _run(
        corpus,
        "evaluate layout to sacrebleu.corpus_bleu",
        corpus.to_evaluate(),
        "sacrebleu.corpus_bleu(predictions, references)  # references in evaluate's layout",
        "evaluate's per-segment references passed to sacrebleu's compat corpus_bleu",
        fn=lambda hyps, refs: sacrebleu.corpus_bleu(hyps, refs),
    )


#: Every simulation, by name.
MISUSES: dict[str, Callable[[Corpus], Misuse]] = {
    "per-segment-as-streams": per_segment_lists_as_streams,
    "flat-list": flat_reference_list,
    "empty-padding": empty_string_padding,
    "evaluate-layout": evaluate_layout_to_sacrebleu,
}


def simulate_all(corpus: Corpus) -> list[Misuse]:
    """Run every misuse simulation on ``corpus``."""
    return [fn(corpus) for fn in MISUSES.values()]
