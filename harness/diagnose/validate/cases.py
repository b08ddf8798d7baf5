"""The battery a subject is validated on: shipped fixtures and seeded generated corpora.

A :class:`Case` is one corpus (hypotheses and per-segment references) and where it came from.
:func:`generate_cases` draws reproducible corpora that exercise what home-made BLEUs get wrong:
short and long segments, repeated words and bigrams (clipping), words inside other words
(substring counting), glued punctuation, mixed case, CJK, 1–3 ragged references, some empty.
:func:`fixture_cases` takes every system of every shipped fixture (a :class:`SkippedFixture`
says which it leaves out and why; the words are :func:`harness.report.validation_words.
skipped_words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from harness.data.corpus import Corpus
from harness.data.fixtures import load_all
from harness.statistics.resampling import DEFAULT_SEED

__all__ = ["Case", "SkipBecause", "SkippedFixture", "fixture_cases", "generate_cases"]


@dataclass(frozen=True)
class Case:
    """One input: hypotheses and per-segment references, and where it came from."""

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]

    def corpus(self) -> Corpus:
        """The case as a :class:`~harness.data.corpus.Corpus` (its text is not re-checked)."""
        # generated and fixture text: checked where it was made, never warned about per case
        return Corpus(
            hypotheses=self.hypotheses,
            references=self.references,
            name=self.source,
            check_text=False,
        )

    @property
    def n_tokens(self) -> int:
        """Whitespace tokens of every hypothesis and reference (the size shrinking reduces)."""
        return sum(len(h.split()) for h in self.hypotheses) + sum(
            len(r.split()) for refs in self.references for r in refs
        )


class SkipBecause(Enum):
    """Why a fixture's system is not in a command's battery."""

    #: its segments have different numbers of references, which files cannot hold
    RAGGED = "ragged"
    #: it has another number of reference streams than the command template names
    STREAMS = "streams"


@dataclass(frozen=True)
class SkippedFixture:
    """A fixture's system left out of the battery (``name``: ``fixture:NAME/SYSTEM``):
    ``because`` says why; for :attr:`SkipBecause.STREAMS`, ``streams`` is its number of
    reference streams and ``named`` the number the command template names."""

    name: str
    because: SkipBecause
    streams: int = 0
    named: int = 0


_COMMON = (
    "the cat sat on mat a dog is in park ran big red house today and it was very old"
).split()
_TRICKY = (
    "there he she cats at hat an other The Cat Dog mat. cat, dog! don't e-mail 3.5 &amp; "
    "猫 東京 猫が"
).split()
_HOSTILE = ("(the", "c++")


def _word(rng: np.random.Generator) -> str:
    u = rng.random()
    if u < 0.80:
        return _COMMON[rng.integers(len(_COMMON))]
    if u < 0.997:
        return _TRICKY[rng.integers(len(_TRICKY))]
    return _HOSTILE[rng.integers(len(_HOSTILE))]


def _sentence(rng: np.random.Generator, lo: int, hi: int) -> list[str]:
    return [_word(rng) for _ in range(int(rng.integers(lo, hi + 1)))]


def _derive(rng: np.random.Generator, hyp: list[str]) -> list[str]:
    """A reference made from the hypothesis by edits, so that long n-grams match."""
    out: list[str] = []
    for tok in hyp:
        u = rng.random()
        if u < 0.12:
            out.append(_word(rng))
        elif u < 0.20:
            pass
        else:
            out.append(tok)
        if rng.random() < 0.08:
            out.append(_word(rng))
    if rng.random() < 0.3:
        extra = _sentence(rng, 1, 4)
        out = extra + out if rng.random() < 0.5 else out + extra
    return out


def _generate(
    rng: np.random.Generator, index: int, rectangular: bool, streams: int | None = None
) -> Case:
    n_seg = int(rng.choice([1, 1, 2, 2, 3, 4]))
    k_fixed = int(rng.choice([1, 1, 2, 2, 3]))
    if streams is not None:  # drawn anyway, so other subjects see the same cases
        k_fixed = streams
    hyps, refs = [], []
    for _ in range(n_seg):
        if rng.random() < 0.12:
            hyp = _sentence(rng, 0, 3)
        else:
            hyp = _sentence(rng, 4, 12)
        if hyp and rng.random() < 0.3:  # repeated words and bigrams exercise clipping
            i = int(rng.integers(len(hyp)))
            hyp = hyp[: i + 1] + hyp[max(0, i - 1) : i + 1] + hyp[i + 1 :]
        k = k_fixed if rectangular else int(rng.choice([1, 1, 2, 2, 3]))
        seg = []
        for _ in range(k):
            u = rng.random()
            if u < 0.03:
                ref: list[str] = []
            elif u < 0.78 and hyp:
                ref = _derive(rng, hyp)
            else:
                ref = _sentence(rng, 3, 12)
            if ref and rng.random() < 0.1:
                ref[0] = ref[0].capitalize()
            seg.append(" ".join(ref))
        hyps.append(" ".join(hyp))
        refs.append(tuple(seg))
    return Case(f"generated:{index}", tuple(hyps), tuple(refs))


def generate_cases(
    count: int, *, seed: int = DEFAULT_SEED, rectangular: bool = False, streams: int | None = None
) -> list[Case]:
    """``count`` reproducible corpora from ``numpy.random.default_rng(seed)``.

    ``rectangular=True`` gives every segment of a corpus the same number of references (what
    line-aligned reference files can hold); ``streams`` fixes that number (a command template
    that names exactly that many reference files).
    """
    rng = np.random.default_rng(seed)
    return [_generate(rng, i, rectangular or streams is not None, streams) for i in range(count)]


def fixture_cases(
    rectangular: bool, streams: int | None = None
) -> tuple[list[Case], list[SkippedFixture]]:
    """Every shipped fixture's systems as cases, and the ones left out with the reason.

    ``rectangular``: ragged fixtures are left out (a command reads references from files);
    ``streams``: so are fixtures with another number of reference streams.
    """
    out: list[Case] = []
    skipped: list[SkippedFixture] = []
    for fx in load_all():
        for system in fx.system_names:
            c = fx.corpus(system)
            name = f"fixture:{fx.name}/{system}"
            if rectangular and c.is_ragged:
                skipped.append(SkippedFixture(name, SkipBecause.RAGGED))
                continue
            if streams is not None and len(c.references[0]) != streams:
                skipped.append(
                    SkippedFixture(name, SkipBecause.STREAMS, len(c.references[0]), streams)
                )
                continue
            out.append(Case(name, c.hypotheses, c.references))
    return out, skipped
