"""What a profile declares: its configuration, how it is proven and the same facts in words.

:mod:`harness.bleu.profiles` declares every profile with these; the documentation tables, the
``profiles`` command and the reports read them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from harness.bleu.config import BleuConfig
from harness.bleu.sacrebleu_tokenizers import INTL_1X

__all__ = [
    "CODE_SUMMARIZATION",
    "EVALUATE",
    "LLM_EVALUATION",
    "MACHINE_TRANSLATION",
    "NLTK",
    "REF_IMPLS",
    "RELEASE_TOKENIZERS",
    "SHORT_WIDTH",
    "Profile",
    "Verification",
    "release_extra",
    "release_tokenizer",
]

#: The field of the machine-translation libraries' profiles, and of the code-summarization
#: variants (Shi et al., ICSE 2022), which ``compare`` and ``report`` run only when asked.
MACHINE_TRANSLATION = "machine translation"
CODE_SUMMARIZATION = "code summarization"
#: The field of the LLM-evaluation frameworks' BLEU metrics (lighteval, compare-mt, …), which
#: ``compare`` and ``report`` run only when asked too.
LLM_EVALUATION = "LLM evaluation"
#: The longest :attr:`Profile.short`: the width of a column of a terminal table.
SHORT_WIDTH = 10


@dataclass(frozen=True)
class Verification:
    """Whether a profile has been run against the implementation it claims to reproduce.

    ``status`` is ``verified`` (a differential test in CI runs the real library or script on
    generated inputs and demands agreement within ``tolerance`` BLEU points) or
    ``unverified``; ``oracle`` names what it is run against and ``evidence`` the tests (or,
    when unverified, why not).
    """

    status: str
    oracle: str
    evidence: str
    tolerance: float = 1e-9

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def label(self) -> str:
        """``verified`` or ``unverified (why)``, for tables and signatures."""
        return "verified" if self.verified else f"unverified ({self.evidence})"


#: Where the oracles of the differential tests are, as a profile's provenance names them.
REF_IMPLS = "../shared/reference-impls"


@dataclass(frozen=True)
class Profile:
    """A named profile, declared once: the configuration that reproduces a library's defaults,
    how that claim is proven, and the same facts in words for the documentation (Markdown:
    ``reproduces`` the call it equals, ``tokens`` its tokenization and case, ``ref_length`` the
    reference length of its brevity penalty, ``smoothing`` its smoothing and what it does with
    zero counts). :data:`PROFILES` and :data:`VERIFICATION` are read from these declarations
    (in this order, which is also the order tables list libraries in)."""

    name: str
    config: BleuConfig
    verification: Verification
    reproduces: str
    tokens: str
    ref_length: str
    smoothing: str
    #: What a label of this profile must add to its name because the name alone suggests
    #: otherwise to a reader of published numbers (the script's default is not how its
    #: numbers are usually published), with the flag that gives the other setting.
    label: str = ""
    #: The field whose papers report it: :data:`MACHINE_TRANSLATION`, :data:`LLM_EVALUATION`
    #: or :data:`CODE_SUMMARIZATION`.
    field: str = MACHINE_TRANSLATION
    #: The head of its column in a terminal table (at most :data:`SHORT_WIDTH` characters,
    #: distinct from every other profile's); ``""``: the name itself.
    short: str = ""
    #: The releases of the library whose defaults it reproduces (``"≥ 2.2.0"``,
    #: ``"1.3.1–1.4.14"``); ``""`` where no range has been established.
    releases: str = ""
    #: An older release's defaults, named ``<profile>@<release>`` (``sacrebleu@1.4``): run only
    #: when named (never among the default profiles), and its configuration's signature names
    #: the release (a ``release`` item: :func:`release_extra`).
    versioned: bool = False

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.name)
        if self.versioned != ("@" in self.name):
            raise ValueError(f"{self.name}: a profile is versioned exactly when named NAME@RELEASE")
        if self.versioned and not any(k == "release" for k, _ in self.config.extra):
            raise ValueError(f"{self.name}: a versioned profile's signature must name its release")


def release_extra(library: str, first: str, last: str | None = None) -> tuple[tuple[str, str]]:
    """The ``extra`` item of a versioned profile's configuration: ``release:LIB=FIRST..LAST``
    (``release:LIB=FIRST`` for one release) in its signature."""
    span = first if last is None else f"{first}..{last}"
    return (("release", f"{library}={span}"),)


#: Library → (the last release of it whose tokenizers differ from today's, and each tokenizer
#: name → the tokenizer those releases run under that name). sacrebleu up to 1.5.1 ran its
#: ``intl`` with Python's ``unicodedata`` tables (:data:`~harness.bleu.sacrebleu_tokenizers.INTL_1X`),
#: and lm-eval up to 0.3.0 pins sacrebleu 1.5.0.
RELEASE_TOKENIZERS: Mapping[str, tuple[str, Mapping[str, str]]] = MappingProxyType(
    {
        "sacrebleu": ("1.5.1", MappingProxyType({"intl": INTL_1X})),
        "lm-eval": ("0.3.0", MappingProxyType({"intl": INTL_1X})),
    }
)


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version))


def release_tokenizer(config: BleuConfig, tokenize: str) -> str:
    """The tokenizer a user who asks for ``tokenize`` under ``config`` gets: the form the
    release that ``config`` names (its ``release:LIB=FIRST..LAST`` item, :func:`release_extra`)
    ran under that name, where it differs from today's (:data:`RELEASE_TOKENIZERS`), else
    ``tokenize`` itself. ``profile="sacrebleu@1.5", tokenize="intl"`` is sacrebleu 1.5's
    ``intl``: ``intl-1.x``, as the signature says (``tok:intl-1.x``). Only a name asked for is
    read so (:func:`harness.api.resolve_config`); ``BleuConfig.replace`` sets the field as
    given."""
    release = dict(config.extra).get("release")
    if not isinstance(release, str):
        return tokenize
    library, _, span = release.partition("=")
    last = span.rpartition("..")[2]
    if library not in RELEASE_TOKENIZERS:
        return tokenize
    up_to, forms = RELEASE_TOKENIZERS[library]
    return forms.get(tokenize, tokenize) if _numbers(last) <= _numbers(up_to) else tokenize


#: nltk's ``corpus_bleu`` defaults (the ``nltk`` profile), which several profiles start from.
NLTK = BleuConfig(
    tokenize="whitespace",
    smooth="nltk-method0",
    ngram_totals="floor1",
    ref_length="closest",
    zero_guard="unigram",
    library="nltk",
)


#: The Hub ``bleu`` module's defaults (the ``evaluate`` profile), which unitxt's ``metrics.bleu``
#: loads too.
EVALUATE = BleuConfig(
    tokenize="13a",
    smooth="none",
    ref_length="shortest",
    zero_guard="none",
    on_zero_length="raise",
    strip="none",  # the Hub module's Tokenizer13a gets the raw string
    library="evaluate",
)
