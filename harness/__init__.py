"""bleu-harness: put BLEU implementations side by side and explain why they disagree.

Public API::

    harness.corpus_bleu(hypotheses=..., references=..., profile="sacrebleu", **overrides)
    harness.sentence_bleu(hypothesis=..., references=..., profile=..., **overrides)
    harness.segment_bleu(hypotheses=..., references=..., profile=...)   # numpy arrays
    harness.pairwise_bleu(hypotheses=..., candidates=None, profile=...)  # (H, C) matrix
    harness.PROFILES          # profile name -> BleuConfig
    harness.BleuConfig, harness.Corpus, harness.BleuResult
    harness.Session(corpora)  # statistics once per tokenization; .score/.segments/.scores
    harness.statistics_cache()  # the public functions' in-memory statistics, by content

Scores are on 0–100; ``references`` are per segment (the evaluate layout).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.api import (
        corpus_bleu,
        pairwise_bleu,
        resolve_config,
        segment_bleu,
        sentence_bleu,
        statistics_cache,
        truthfulqa_bleu,
    )
    from harness.bleu.config import ENGINE_VERSION, BleuConfig
    from harness.bleu.profiles import PROFILES, get_profile
    from harness.bleu.result import BleuResult, SegmentBleu
    from harness.data.corpus import Corpus
    from harness.errors import (
        AdapterUnavailable,
        ConfigError,
        HarnessError,
        InputError,
        LayoutError,
        LibraryWouldRaise,
        SuspectInput,
        UnsupportedSetting,
    )
    from harness.session import Session

    __version__ = ENGINE_VERSION

#: Public name → (module, name in it): each imported on first use, so ``import harness`` (and
#: ``bleu-harness --help``) loads neither numpy nor the engine.
_PUBLIC: dict[str, tuple[str, str]] = {
    **{
        name: ("harness.api", name)
        for name in (
            "corpus_bleu",
            "pairwise_bleu",
            "resolve_config",
            "segment_bleu",
            "sentence_bleu",
            "statistics_cache",
            "truthfulqa_bleu",
        )
    },
    "__version__": ("harness.bleu.config", "ENGINE_VERSION"),
    "BleuConfig": ("harness.bleu.config", "BleuConfig"),
    "PROFILES": ("harness.bleu.profiles", "PROFILES"),
    "get_profile": ("harness.bleu.profiles", "get_profile"),
    "BleuResult": ("harness.bleu.result", "BleuResult"),
    "SegmentBleu": ("harness.bleu.result", "SegmentBleu"),
    "Corpus": ("harness.data.corpus", "Corpus"),
    **{
        name: ("harness.errors", name)
        for name in (
            "AdapterUnavailable",
            "ConfigError",
            "HarnessError",
            "InputError",
            "LayoutError",
            "LibraryWouldRaise",
            "SuspectInput",
            "UnsupportedSetting",
        )
    },
    "Session": ("harness.session", "Session"),
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562) and then kept here."""
    try:
        module, attr = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'harness' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


__all__ = [
    "PROFILES",
    "AdapterUnavailable",
    "BleuConfig",
    "BleuResult",
    "ConfigError",
    "Corpus",
    "HarnessError",
    "InputError",
    "LayoutError",
    "LibraryWouldRaise",
    "SegmentBleu",
    "Session",
    "SuspectInput",
    "UnsupportedSetting",
    "__version__",
    "corpus_bleu",
    "get_profile",
    "pairwise_bleu",
    "resolve_config",
    "segment_bleu",
    "sentence_bleu",
    "statistics_cache",
    "truthfulqa_bleu",
]
