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
