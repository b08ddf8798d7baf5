"""Probes: tiny hand-made inputs on which only one behaviour matters.

Each :class:`Probe` isolates one behaviour (repeated words, segments of exactly n tokens, a
hypothesis that is a prefix of a longer reference, ``he``/``she``, reference-length ties, zero
4-gram matches, glued punctuation, capitals). :func:`run_probes` runs the battery against a
configuration; a deviation nothing else explains is put down to a failing probe whose
behaviour the case exercises (:func:`features`, in the order of :data:`PROBE_PRIORITY`).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.bleu.config import BleuConfig
from harness.bleu.stats import choose_ref_length
from harness.diagnose.validate.bugs import gram_counts, tokenizers
from harness.diagnose.validate.cases import Case
from harness.diagnose.validate.judge import Judge
from harness.diagnose.validate.subjects import Subject, run

__all__ = ["PROBES", "PROBE_PRIORITY", "Probe", "features", "run_probes"]


@dataclass(frozen=True)
class Probe:
    """A tiny input on which only one behaviour matters, and how the implementation did.

    ``expected`` is the fitted configuration's score on the implementation's scale (``None``
    when it raises); ``ok`` is true when the implementation agrees.
    """

    behaviour: str
    description: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    score: float | None = None
    expected: float | None = None
    error: str | None = None
    ok: bool | None = None


#: The battery, not yet run.
PROBES: tuple[Probe, ...] = (
    Probe(
        "ngram_extraction",
        "a segment of exactly 4 tokens identical to its reference (perfect score)",
        ("cat sat on mat",),
        (("cat sat on mat",),),
    ),
    Probe(
        "ngram_extraction",
        "n-grams at every position, not every n-th (one substitution at the start)",
        ("big cat sat on mat today",),
        (("red cat sat on mat today",),),
    ),
    Probe(
        "clipping",
        "a repeated word, one reference",
        ("cat cat cat sat on mat",),
        (("cat sat on mat today",),),
    ),
    Probe(
        "clipping",
        "a repeated word found once in each of two references",
        ("cat cat cat sat on mat",),
        (("cat sat on mat today", "cat sat on big mat"),),
    ),
    Probe(
        "brevity_penalty",
        "a hypothesis that is a prefix of a longer reference: only BP matters",
        ("cat sat on big red mat",),
        (("cat sat on big red mat in house today",),),
    ),
    Probe(
        "substring_counting",
        "'he' inside 'she'",
        ("he sat on mat today",),
        (("she sat on mat today",),),
    ),
    Probe(
        "ref_length",
        "references of 7, 3 and 10 tokens for a 6-token prefix hypothesis",
        ("cat sat on mat today fast",),
        (
            (
                "cat sat on mat today fast red",
                "cat sat on",
                "cat sat on mat today fast in big red house",
            ),
        ),
    ),
    Probe(
        "ref_length",
        "a tie: references of 7 and 5 tokens for a 6-token hypothesis",
        ("cat sat on mat today fast",),
        (("cat sat on mat today fast red", "cat sat on mat today"),),
    ),
    Probe(
        "smoothing",
        "no matching 4-gram",
        ("cat sat on red mat big",),
        (("cat sat on big red mat",),),
    ),
    Probe(
        "tokenize",
        "punctuation glued to a word",
        ("cat sat on mat today.",),
        (("cat sat on mat today .",),),
    ),
    Probe(
        "case",
        "a capital letter",
        ("Cat sat on mat today",),
        (("cat sat on mat today",),),
    ),
)

#: Order in which failing probe behaviours explain a case no configuration reproduces.
PROBE_PRIORITY = (
    "substring_counting",
    "clipping",
    "brevity_penalty",
    "ref_length",
    "smoothing",
    "tokenize",
    "case",
    "ngram_extraction",
)


def features(case: Case, cfg: BleuConfig) -> set[str]:
    """The behaviours a case can exercise under ``cfg``'s tokenization (used to pick among
    failing probes)."""
    hyp_tok, ref_tok = tokenizers(cfg)
    tok13a = tokenizers(BleuConfig(tokenize="13a"))[0]
    feats = {"ngram_extraction"}
    short = False
    for hyp, refs in zip(case.hypotheses, case.references, strict=True):
        h = hyp_tok(hyp)
        rs = [ref_tok(r) for r in refs]
        lens = [len(r) for r in rs]
        if len(set(lens)) > 1:
            feats.add("ref_length")
        if len(h) < choose_ref_length(len(h), lens, cfg.ref_length):
            short = True
        joined = [" ".join(r) for r in rs]
        for n in range(1, 5):
            hc = gram_counts(h, n, 1)
            rcs = [gram_counts(r, n, 1) for r in rs]
            if not any(rc[g] for g in hc for rc in rcs):
                feats.add("smoothing")
            for g, k in hc.items():
                best = max((rc[g] for rc in rcs), default=0)
                if 0 < best < k or (best and sum(rc[g] for rc in rcs) > best and k > best):
                    feats.add("clipping")
                text = " ".join(g)
                if any(j.count(text) > rc[g] for j, rc in zip(joined, rcs, strict=True)):
                    feats.add("substring_counting")
        for text in (hyp, *refs):
            if text.split() != tok13a(text):
                feats.add("tokenize")
            if text != text.lower():
                feats.add("case")
    if short:
        feats.add("brevity_penalty")
    return feats


def run_probes(subject: Subject, judge: Judge, cfg: BleuConfig) -> tuple[Probe, ...]:
    """Every probe of :data:`PROBES` run by ``subject``, against ``cfg``'s score."""
    out = []
    for p in PROBES:
        case = Case("probe", p.hypotheses, p.references)
        got = run(subject, case)
        exp = judge.expected(case, cfg)
        out.append(
            Probe(
                p.behaviour,
                p.description,
                p.hypotheses,
                p.references,
                score=got.value,
                expected=exp,
                error=got.error,
                ok=judge.agrees(got.value, exp),
            )
        )
    return tuple(out)
