"""The corpus a configuration counts: its segments after the sentence split
(``sentence_split``) and the reference layouts applied before counting (``missing_refs``
``truncate``, ``first``, ``joined``, ``drop-empty``, ``drop-empty-eof``,
``truncate-drop-empty-eof``).
:mod:`harness.bleu.engine` counts what :func:`counted_corpus` returns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from harness.bleu.config import EMPTY_REFERENCE_DROPS, TRUNCATIONS, BleuConfig
from harness.data.corpus import Corpus

__all__ = ["CUT_BEFORE_COUNTING", "counted_corpus", "given_references", "sentence_config"]

#: The ``missing_refs`` rules that cut each segment's references before counting.
CUT_BEFORE_COUNTING: tuple[str, ...] = (
    *TRUNCATIONS,
    "first",
    "joined",
    *(rule for rule in EMPTY_REFERENCE_DROPS if rule not in TRUNCATIONS),
)


def counted_corpus(corpus: Corpus, config: BleuConfig) -> Corpus:
    """The corpus whose statistics ``config`` counts: ``corpus`` itself, or with
    ``missing_refs="truncate"`` every segment cut to its first k references, k the fewest any
    segment has (``zip(*refs)`` on per-segment references, as lm-eval's ``bleu`` does), with
    ``missing_refs="first"`` to its first reference, or with ``missing_refs="joined"`` to one
    reference, its references stripped, the empty and repeated ones dropped, joined with
    newlines, or with ``missing_refs="drop-empty"`` (``drop-empty-eof``) without its references
    that are the empty string (a segment whose references are all empty keeps them: scoring
    it raises, as sacrebleu 2.0.0–2.1.0 and 1.5.x do), or with
    ``missing_refs="truncate-drop-empty-eof"`` cut as by ``truncate`` and then without its
    empty references as by ``drop-empty-eof`` (lm-eval 0.0.1–0.3.0's ``_sacreformat``, then
    the sacrebleu 1.5.0 it pins). Under ``aggregation="best-ref-mean"`` no empty reference
    is left out: each reference is scored alone, so an empty one has no other beside it to
    be left out for, and scoring it raises
    (:func:`harness.bleu.refusals.empty_references_refusal` on the pairs).

    Before any of these, ``sentence_split="ragas"`` keeps each hypothesis's first ``". "``
    piece and makes every piece of the references a reference. The cut depends on the whole
    corpus, so it happens before any sharding.
    """
    corpus = _sentences(corpus, config.sentence_split)
    if config.missing_refs not in CUT_BEFORE_COUNTING:
        return corpus
    if config.missing_refs in TRUNCATIONS:
        corpus = _cut(corpus, min(map(len, corpus.references)))
    if config.missing_refs in EMPTY_REFERENCE_DROPS:
        if config.aggregation == "best-ref-mean":
            return corpus
        return _without_empty_references(corpus)
    if config.missing_refs in TRUNCATIONS:
        return corpus
    if config.missing_refs == "joined":
        joined = tuple(
            ("\n".join(dict.fromkeys(t for t in (r.strip() for r in refs) if t)),)
            for refs in corpus.references
        )
        return dataclasses.replace(corpus, references=joined, check_text=False)
    return _cut(corpus, 1)  # first


def _cut(corpus: Corpus, k: int) -> Corpus:
    """``corpus`` with every segment cut to its first ``k`` references."""
    if all(len(r) <= k for r in corpus.references):
        return corpus
    # its text was checked (and any warning given) when the corpus was made
    return dataclasses.replace(
        corpus, references=tuple(r[:k] for r in corpus.references), check_text=False
    )


def given_references(references: Any, config: BleuConfig) -> Any:
    """Per-segment ``references`` as ``config`` reads them before a corpus is made of them:
    under ``missing_refs="joined"`` a segment without references is a segment whose one
    reference is empty, since both join to the same empty reference (evalscope's
    ``Target([])`` and ``Target([""])`` display ``""``, a sample it scores 0); so it is under
    ``"empty-if-none"`` (pytorch-ignite 0.4.5–0.4.6 counts no match against no reference, as
    against an empty one). Under every other rule, and for anything but a list of lists,
    ``references`` as given (the corpus refuses a segment without references)."""
    if config.missing_refs not in ("joined", "empty-if-none") or not _is_list(references):
        return references
    return [("",) if _is_list(refs) and len(refs) == 0 else refs for refs in references]


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def sentence_config(config: BleuConfig) -> BleuConfig:
    """``config`` as it scores one segment on its own, which is what a library gives as a
    segment's score (its function called on that segment): ``missing_refs="truncate"`` cuts
    to the fewest references of the corpus, and a corpus of one segment is never cut, so each
    segment keeps its own references (``skip``; ``truncate-drop-empty-eof`` is
    ``drop-empty-eof`` alone, :data:`~harness.bleu.config.TRUNCATIONS`). Every other rule is
    the same alone."""
    alone = TRUNCATIONS.get(config.missing_refs)
    if alone is not None:
        return dataclasses.replace(config, missing_refs=alone)
    return config


def _sentences(corpus: Corpus, rule: str) -> Corpus:
    """``corpus`` under the sentence-split rule ``rule`` (``BleuConfig.sentence_split``)."""
    if rule == "none":
        return corpus
    return dataclasses.replace(
        corpus,
        hypotheses=tuple(h.split(". ")[0] for h in corpus.hypotheses),
        references=tuple(
            tuple(piece for r in refs for piece in r.split(". ")) for refs in corpus.references
        ),
        check_text=False,
    )


def _without_empty_references(corpus: Corpus) -> Corpus:
    """``corpus`` without the references that are the empty string (before any strip or
    lowercasing: a reference of spaces stays), in the segments that keep another; a segment
    whose references are all empty keeps them, and is refused when it is scored
    (:func:`harness.bleu.refusals.empty_references_refusal`), never when it is counted."""
    kept = tuple(
        tuple(r for r in refs if r != "") or refs if "" in refs else refs
        for refs in corpus.references
    )
    if kept == corpus.references:
        return corpus
    return dataclasses.replace(corpus, references=kept, check_text=False)
