"""Seeded forensic cases: inject one known mistake, print the number it gives, ask identify.

:func:`seeded_case` turns a clean corpus into the files a user would hold and the number
someone printed from them with one mistake (:data:`KINDS`); :func:`named_first` says whether
:func:`harness.diagnose.identify.identify` ranks that mistake first. Used by
``tests/test_forensics.py`` and ``benchmarks/bench_forensics.py``.

Directions: BPE cannot be re-applied without the BPE model, so the BPE case hands identify
the un-merged hypotheses (the files fairseq writes) and the number computed on them; the other
text mistakes can be re-applied from clean files, so those cases hand identify the clean files
and a number computed on transformed text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.diagnose.candidates import Candidate
from harness.diagnose.preprocess import moses_like_tokenize, split_compounds

__all__ = ["KINDS", "SeededCase", "inject_bpe", "named_first", "seeded_case"]

#: The mistakes seeded: five of the acceptance list, references tokenized on their own, and a
#: single reference.
KINDS: tuple[str, ...] = (
    "bpe-left-in",
    "pre-tokenized",
    "pre-tokenized-refs",
    "compound-split",
    "lowercased-refs",
    "sentence-mean",
    "scale",
    "single-reference",
)


@dataclass(frozen=True)
class SeededCase:
    """``files`` (what the user holds), ``score`` (the printed number, as a string with
    ``digits`` decimals) and the injected ``kind``."""

    kind: str
    files: Corpus
    score: str
    raw: float


def inject_bpe(text: str, rng: random.Random, share: float = 0.5) -> str:
    """A synthetic subword segmentation: each word of 6+ characters is split in two at a
    random point with probability ``share`` (``neighbour`` → ``neigh@@ bour``)."""
    out = []
    for w in text.split():
        if len(w) >= 6 and rng.random() < share:
            k = rng.randrange(2, len(w) - 2)
            out.append(f"{w[:k]}@@ {w[k:]}")
        else:
            out.append(w)
    return " ".join(out)


def _with(corpus: Corpus, hyps: tuple[str, ...], refs: tuple[tuple[str, ...], ...]) -> Corpus:
    return Corpus(hyps, refs, corpus.ids, corpus.name, check_text=False)


def seeded_case(kind: str, corpus: Corpus, seed: int = 0, digits: int = 4) -> SeededCase:
    """One case of ``kind`` built from the clean ``corpus`` (``seed`` drives the random
    choices): the files handed to identify and the number printed with ``digits`` decimals
    (on 0–1, ``digits + 2``). The scorer is the sacrebleu profile, or multi-bleu for compound
    splitting (tensor2tensor's script scores tokenized text with multi-bleu.perl)."""
    rng = random.Random(seed)
    sacre = PROFILES["sacrebleu"]
    files = corpus
    scale = 1.0
    hyps, refs = corpus.hypotheses, corpus.references
    if kind == "bpe-left-in":
        files = _with(corpus, tuple(inject_bpe(h, rng) for h in hyps), refs)
        scored, cfg = files, sacre
    elif kind == "pre-tokenized":
        scored, cfg = _with(corpus, tuple(moses_like_tokenize(h) for h in hyps), refs), sacre
    elif kind == "pre-tokenized-refs":
        scored = _with(corpus, hyps, tuple(tuple(moses_like_tokenize(r) for r in s) for s in refs))
        cfg = sacre
    elif kind == "compound-split":
        scored = _with(
            corpus,
            tuple(split_compounds(h) for h in hyps),
            tuple(tuple(split_compounds(r) for r in seg) for seg in refs),
        )
        cfg = PROFILES["multi-bleu"]
    elif kind == "lowercased-refs":
        scored = _with(corpus, hyps, tuple(tuple(r.lower() for r in seg) for seg in refs))
        cfg = sacre
    elif kind == "single-reference":
        k = rng.randrange(corpus.max_refs)
        scored, cfg = _with(corpus, hyps, tuple((seg[k],) for seg in refs)), sacre
    elif kind == "sentence-mean":
        scored, cfg = corpus, sacre.replace(aggregation="sentence-mean")
    elif kind == "scale":
        scored, cfg, scale = corpus, sacre, 0.01
    else:
        raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}")
    raw = engine.corpus_score(scored, cfg).score * scale
    places = digits + (2 if scale != 1.0 else 0)
    return SeededCase(kind, files, f"{raw:.{places}f}", raw)


def named_first(kind: str, top: Candidate) -> bool:
    """Whether the first-ranked candidate names the injected mistake (and only it)."""
    pre = tuple(p.split(":", 1)[0] for p in top.preprocessing)
    if kind in ("sentence-mean", "scale"):
        if pre:
            return False
        if kind == "scale":
            return top.scale == "0-1"
        return top.config.aggregation == "sentence-mean" and top.scale == "0-100"
    return pre == (kind,) and top.scale == "0-100"
