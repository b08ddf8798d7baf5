"""Citable identification of a score: the short signature, the library's own signature and
the one line a paper can paste.

* :func:`short_signature` — sacrebleu's style for the harness: ``nrefs:N``, who computed the
  number (``profile:NAME`` for the in-house engine, ``lib:NAME`` for a real library run
  through its adapter), only the factors that differ from that profile's (or library's)
  defaults, then the versions (:meth:`~harness.bleu.config.BleuConfig.short_signature`). The
  full :meth:`~harness.bleu.config.BleuConfig.signature` stays the variant's identity.
* :func:`library_signature` — what the real library itself says (sacrebleu's
  ``BLEU.get_signature()``; for the others the distribution, its version and the call made).
* :func:`cite` — ``BLEU = 27.2 (sacrebleu 2.6.0 via bleu-harness 0.1.0;
  nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp)``; a signature that does not say how the
  text was tokenized and cased gets those items (:func:`with_preprocessing`).
"""

from __future__ import annotations

from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.scorers.base import Adapter, Scorer

#: How a citation names this program.
PROGRAM = "bleu-harness"

#: Decimals of the score in a citation (sacrebleu's command line prints one by default).
CITE_DIGITS = 1


def nrefs(corpus: Corpus) -> str:
    """The corpus' number of references per segment, ``"var"`` when segments have different
    numbers (sacrebleu's ``nrefs``)."""
    return "var" if corpus.is_ragged else str(corpus.max_refs)


def short_signature(scorer: Scorer, config: BleuConfig, corpus: Corpus | None = None) -> str:
    """The short signature of ``config`` scored by ``scorer`` on ``corpus`` (``nrefs`` left
    out without a corpus): relative to the scorer's own defaults, with the engine version and,
    for a library, the library's."""
    n = nrefs(corpus) if corpus is not None else None
    base = scorer.default_config()
    if isinstance(scorer, Adapter):
        version = scorer.version() or "unknown"
        return config.short_signature(
            base, name=scorer.name, kind="lib", nrefs=n, versions={scorer.distribution: version}
        )
    name = str(getattr(scorer, "profile", scorer.name))
    return config.short_signature(base, name=name, nrefs=n)


def library_signature(scorer: Scorer, result: BleuResult) -> str | None:
    """What the real library says identifies ``result`` (``None`` for the in-house engine)."""
    return scorer.library_signature(result) if isinstance(scorer, Adapter) else None


def without_version(signature: str) -> str:
    """``signature`` without its ``version:`` item (a citation names the versions in front)."""
    return "|".join(p for p in signature.split("|") if not p.startswith("version:"))


#: The signature items a citation always carries: how the text was split and cased before
#: counting, which a library's name alone does not say (nltk counts whatever tokens it is
#: given).
PREPROCESSING_ITEMS = ("tok", "case", "punct", "art")


def with_preprocessing(signature: str, config: BleuConfig) -> str:
    """``signature`` with :data:`PREPROCESSING_ITEMS` from ``config``'s full signature after
    its ``profile:``/``lib:`` item, where it does not name them already.

    >>> from harness.bleu.profiles import PROFILES
    >>> with_preprocessing("nrefs:1|lib:nltk", PROFILES["nltk"])
    'nrefs:1|lib:nltk|tok:whitespace|case:mixed'
    """
    parts = signature.split("|")
    have = {p.partition(":")[0] for p in parts}
    full = dict(p.partition(":")[::2] for p in config.signature().split("|"))
    missing = [f"{k}:{full[k]}" for k in PREPROCESSING_ITEMS if k not in have and k in full]
    at = next((i + 1 for i, p in enumerate(parts) if p.startswith(("lib:", "profile:"))), 0)
    return "|".join(parts[:at] + missing + parts[at:])


def cite(
    scorer: Scorer,
    config: BleuConfig,
    corpus: Corpus,
    result: BleuResult,
    *,
    digits: int = CITE_DIGITS,
) -> str:
    """One line a paper can paste: the score, who computed it with which versions, and the
    signature that reproduces it.

    A real library: ``BLEU = 27.2 (sacrebleu 2.6.0 via bleu-harness 0.1.0; <its own
    signature, or the short signature where it has none>)``. The in-house engine:
    ``BLEU = 27.2 (bleu-harness 0.1.0; nrefs:1|profile:sacrebleu)``. Versions appear once,
    in front, so the signature part leaves its ``version:`` item out.
    """
    sig = with_preprocessing(without_version(short_signature(scorer, config, corpus)), config)
    who = f"{PROGRAM} {ENGINE_VERSION}"
    if isinstance(scorer, Adapter):
        own = result.extra.get("library_signature")
        if own:
            sig = without_version(str(own))
        who = f"{scorer.distribution} {scorer.version() or '(version unknown)'} via {who}"
    return f"BLEU = {result.score:.{digits}f} ({who}; {sig})"
