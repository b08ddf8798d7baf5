"""The scorer protocol and the adapter base class: one small class per real BLEU library.

A *scorer* is anything that turns a :class:`~harness.data.corpus.Corpus` and a
:class:`~harness.bleu.config.BleuConfig` into :class:`~harness.bleu.result.BleuResult` values
(:class:`Scorer`): the in-house engine (:class:`harness.scorers.engine_scorer.EngineScorer`)
and the library adapters alike.

An adapter *translates* — the corpus into the library's reference layout and the config into
the library's arguments — calls the real library, and reports what it returned (score on 0–100,
``implementation`` = the adapter name, ``call`` = the exact library call). Adapters never
compute BLEU themselves and never approximate a setting: each declares, for **every** field of
``BleuConfig``, how its library expresses it (:meth:`Adapter.rules`: the values it computes
exactly, or that it follows any value); a value outside them, and a field the adapter does not
mention at all, is refused with the reason (:meth:`Adapter.supports`, and
:class:`~harness.errors.UnsupportedSetting` when scoring).

Libraries are imported when an adapter is *used*, never when this package is imported; a
library that cannot be imported makes :meth:`Adapter.available` return ``ok=False`` with the
reason and an install hint, and scoring raises :class:`~harness.errors.AdapterUnavailable`.

Statistics a library does not expose are ``None`` (``counts``/``totals``), an empty tuple
(``precisions``) or ``nan`` (``bp``/``ratio``): an adapter reports what the library said, not
what it would have said.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES, verification
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import ARTICLES, PUNCTUATIONS, text_tokenizer
from harness.data.corpus import Corpus
from harness.errors import AdapterUnavailable, UnsupportedSetting

NAN = float("nan")


@dataclass(frozen=True)
class Availability:
    """Whether a scorer can run here: ``reason`` says why not, ``hint`` how to fix it."""

    ok: bool
    reason: str = ""
    hint: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class Support:
    """Whether a scorer can express a configuration exactly; ``reason`` says why not."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


SUPPORTED = Support(True)


class Scorer(Protocol):
    """What the runner and the pitfalls call: the in-house engine and every adapter.

    ``runs_library_code``: an exception that is not a :class:`~harness.errors.HarnessError`
    came from the wrapped library and is data (the library raises on this input) — true for
    adapters; for the in-house engine it is a bug and propagates.
    """

    name: str
    runs_library_code: ClassVar[bool]

    def version(self) -> str | None: ...
    def available(self) -> Availability: ...
    def supports(self, config: BleuConfig) -> Support: ...
    def default_config(self) -> BleuConfig: ...
    def signature(self, config: BleuConfig) -> str: ...
    def corpus(self, corpus: Corpus, config: BleuConfig | None = None) -> BleuResult: ...
    def segments(self, corpus: Corpus, config: BleuConfig | None = None) -> list[BleuResult]: ...


# ---------------------------------------------------------------------------- support rules
@dataclass(frozen=True)
class Rule:
    """How a library expresses one ``BleuConfig`` field.

    ``allowed``: the values the library computes exactly; ``None`` means every value (the field
    is passed through to the library, or cannot change its number). ``why`` says what the
    library does, and is shown when a value is refused.
    """

    allowed: tuple[Any, ...] | None = None
    why: str = ""

    def refusal(self, field: str, config: BleuConfig, library: str) -> str | None:
        """Why ``config``'s value of ``field`` cannot be expressed (``None`` when it can)."""
        if self.allowed is None:
            return None
        value = getattr(config, field)
        if value in self.allowed:
            return None
        valid = ", ".join(repr(a) for a in self.allowed)
        return f"{field}={value!r}: {library} {self.why} (supported: {valid})"


@dataclass(frozen=True)
class _UniformWeights(Rule):
    def refusal(self, field: str, config: BleuConfig, library: str) -> str | None:
        if is_uniform(config):
            return None
        return f"weights={config.weights}: {library} {self.why} (only uniform weights)"


@dataclass(frozen=True)
class _Extras(Rule):
    def refusal(self, field: str, config: BleuConfig, library: str) -> str | None:
        unknown = [e for e in config.extra if e not in (self.allowed or ())]
        if not unknown:
            return None
        return f"extra factors {unknown} cannot be expressed in {library}: {self.why}"


def follows(why: str) -> Rule:
    """Every value of the field is expressed (``why``: how it reaches the library)."""
    return Rule(None, why)


def only(values: Sequence[Any], why: str) -> Rule:
    """Only ``values`` are expressed; ``why`` says what the library does instead."""
    return Rule(tuple(values), why)


def uniform_weights(why: str) -> Rule:
    """``weights``: only uniform weights (given or implied) are expressed."""
    return _UniformWeights((), why)


def extras(allowed: Sequence[Any], why: str) -> Rule:
    """``extra``: only the listed extra entries are expressed."""
    return _Extras(tuple(allowed), why)


#: The text rules of sacrebleu's conventions (rstrip, ``str.lower``, ``str.split``, ragged
#: references as given): the default of :attr:`Adapter.TEXT`.
SACREBLEU_TEXT: dict[str, Rule] = {
    "strip": only(("rstrip",), "right-strips each segment before tokenizing"),
    "lowercase_rule": only(("unicode",), "lowercases with str.lower() before tokenizing"),
    "whitespace": only(("unicode",), "splits tokens with str.split()"),
    "punctuation": only(("keep",), "keeps punctuation for its tokenizer"),
    "articles": only(("keep",), "keeps every word"),
    "missing_refs": only(("skip",), "takes ragged references as given"),
}

#: The text rules of adapters that feed the library harness tokens: any rule the harness
#: tokenizers apply to both sides alike.
HARNESS_TOKENS: dict[str, Rule] = {
    "strip": only(("rstrip", "none"), "gets harness tokens"),
    "lowercase_rule": only(
        ("unicode", "ascii", "perl", "perl-before"), "tokenizes both sides alike"
    ),
    "whitespace": only(("unicode", "perl"), "gets harness tokens"),
    "punctuation": only(PUNCTUATIONS, "gets harness tokens"),
    "articles": only(ARTICLES, "gets harness tokens"),
    "missing_refs": only(("skip",), "takes ragged references as given"),
}


def is_uniform(config: BleuConfig) -> bool:
    """True when the geometric mean uses uniform weights ``1/max_order`` (given or implied)."""
    if config.weights is None:
        return True
    n = config.max_order
    return all(math.isclose(w, 1.0 / n, rel_tol=0.0, abs_tol=1e-15) for w in config.weights)


def smoothing_decides(config: BleuConfig) -> bool:
    """True when ``zero_guard`` cannot change the number.

    Without smoothing, with no empty orders counted as 1 and without effective order, a zero
    precision already makes the geometric mean 0, so the unigram guard, the any-order guard and
    no guard all give the same score.
    """
    return config.smooth == "none" and config.empty_order == "zero" and not config.effective_order


def nmt_compute_bleu_rules(
    config: BleuConfig, *, tokenize: Rule, lowercase: Rule, ref_length: Rule, on_zero_length: Rule
) -> dict[str, Rule]:
    """The rules of tensorflow/nmt's ``compute_bleu`` (which the Hub ``bleu`` module and
    bleuscore both run), in the order checked, around the four an adapter of it says itself:
    its ``tokenize``, ``lowercase``, ``ref_length`` and ``on_zero_length``."""
    guards = ("unigram", "any-order", "none") if smoothing_decides(config) else ("none",)
    return {
        "tokenize": tokenize,
        "lowercase": lowercase,
        "max_order": follows("passed as max_order="),
        "ref_length": ref_length,
        "ngram_totals": only(("plain",), "counts max(0, len - n + 1) n-grams per segment"),
        "smooth": only(("none", "plus-one"), "has smooth=False or smooth=True (plus-one)"),
        "smooth_value": follows("cannot be set for the smoothings it offers"),
        "weights": uniform_weights("has no weights argument"),
        "effective_order": only((False,), "has no effective order"),
        "empty_order": only(("zero",), "gives an empty order precision 0"),
        "zero_guard": only(guards, "lets smoothing decide (0 when a precision is 0)"),
        "on_zero_length": on_zero_length,
        "extra": extras((), "no extra factors"),
    }


def undeclared(config: BleuConfig, declared: Sequence[str] | dict[str, Any]) -> list[str]:
    """The fields of ``config`` (of its own class: a subclass may add factors) that are not
    in ``declared``."""
    return [f.name for f in dataclasses.fields(config) if f.name not in declared]


# ---------------------------------------------------------------------------- helpers
def pretokenize(texts: Sequence[str], config: BleuConfig) -> list[list[str]]:
    """Tokens of each text under ``config``'s text rules (tokenizer, case, strip, whitespace)
    with the harness tokenizers. Used for libraries that expect caller-tokenized input."""
    tok = text_tokenizer(config.text_rules)
    return [tok(t) for t in texts]


def joined_tokens(texts: Sequence[str], config: BleuConfig, library: str) -> list[str]:
    """Pre-tokenized texts joined by single spaces, for libraries that split on whitespace.

    Exact only when no token contains whitespace; a token that does raises
    ``UnsupportedSetting`` instead of being silently split.
    """
    out = []
    for toks in pretokenize(texts, config):
        for tok in toks:
            if not tok or any(ch.isspace() for ch in tok):
                raise UnsupportedSetting(
                    library,
                    f"tokenizer {config.tokenize!r} produced the token {tok!r}, which "
                    f"{library} would split on whitespace",
                )
        out.append(" ".join(toks))
    return out


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def as_segment(result: BleuResult, segment_id: str) -> BleuResult:
    """``result`` relabelled as the segment-level result of ``segment_id``."""
    return dataclasses.replace(result, level="segment", segment_id=segment_id)


@functools.lru_cache(maxsize=64)
def _installed_version(distribution: str) -> str | None:
    """``importlib.metadata.version``, read once per process: it parses the distribution's
    METADATA file, and every result of every segment records the version in its signature
    (every segment of every library in a WMT21 report)."""
    from importlib import metadata  # slow to import: not at startup

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or ``None`` (read once per process; also
    for an empty name)."""
    return _installed_version(distribution) if distribution else None


# ---------------------------------------------------------------------------- adapters
class Adapter:
    """Base class of the adapters; a subclass sets the class attributes and implements
    :meth:`rules`, :meth:`_corpus` and (when the library has a sentence API) :meth:`_segments`.

    Defining a subclass with a ``name`` in a module of :mod:`harness.scorers` registers it
    (:mod:`harness.scorers.registry` reads these attributes):

    ``name``: the registry name (also ``BleuResult.implementation``). ``title``: how refusal
    reasons name the library (default ``name``). ``distribution``: the package whose version
    goes into the signature (``dependencies``: others reported with it). ``module``: what
    :meth:`available` imports. ``profile``: the :data:`~harness.bleu.profiles.PROFILES` entry
    that reproduces the library's defaults (empty for a scorer that reproduces none, such as
    external commands); tables list adapters in the order of their profiles.
    ``compared_by_default``: whether ``compare`` runs it without being asked.
    """

    name: str = ""
    title: ClassVar[str] = ""
    distribution: ClassVar[str] = ""
    dependencies: ClassVar[tuple[str, ...]] = ()
    module: ClassVar[str] = ""
    profile: ClassVar[str] = ""
    install_hint: ClassVar[str] = ""
    compared_by_default: ClassVar[bool] = True
    runs_library_code: ClassVar[bool] = True

    #: The text and reference factors (see :data:`SACREBLEU_TEXT`); ``lowercase_rule`` is
    #: checked only with ``lowercase=True``.
    TEXT: ClassVar[dict[str, Rule]] = SACREBLEU_TEXT

    # ------------------------------------------------------------------ identity
    @property
    def library(self) -> str:
        """How reasons name the library."""
        return self.title or self.name

    @classmethod
    def tolerance(cls) -> float:
        """BLEU points within which the library must equal its profile (the profile's
        :class:`~harness.bleu.profiles.Verification` tolerance)."""
        return verification(cls.profile).tolerance

    def version(self) -> str | None:
        """The installed version of the library, or ``None`` when it is not installed."""
        return installed_version(self.distribution)

    def cache_fingerprint(self) -> str | None:
        """What, besides the installed versions of the libraries and the harness's own code,
        decides this adapter's numbers (for ``evaluate``: the ``bleu`` module it loads);
        ``None`` when its results must not be cached (an external command)."""
        return ""

    def available(self) -> Availability:
        """Whether the library can be imported (and, for some adapters, loaded) here."""
        try:
            importlib.import_module(self.module)
        except Exception as exc:  # ImportError, or a broken install raising anything
            return Availability(False, f"cannot import {self.module}: {exc}", self.install_hint)
        return Availability(True)

    def default_config(self) -> BleuConfig:
        """The configuration describing what the library does by default."""
        return PROFILES[self.profile]

    def signature(self, config: BleuConfig) -> str:
        """``config.signature`` with this library's version."""
        return config.signature(versions={self.distribution: self.version() or "unknown"})

    def library_signature(self, result: BleuResult) -> str:
        """What the library itself says identifies ``result``: its own signature where it
        gives one (an adapter stores it as ``extra["library_signature"]``: sacrebleu's
        ``BLEU.get_signature()`` of the object that scored), else the distribution, its
        version and the call with the settings passed (``result.call``)."""
        own = result.extra.get("library_signature")
        if own:
            return str(own)
        return f"{self.distribution} {self.version() or 'unknown'}: {result.call}"

    # ------------------------------------------------------------------ support
    def base_rules(self, config: BleuConfig) -> dict[str, Rule]:
        """The rules every adapter shares: aggregation (the adapter averages the library's own
        sentence scores for ``sentence-mean``), n-grams matched by their tokens, the
        bookkeeping field ``library``, and the text factors of :attr:`TEXT`."""
        text = dict(self.TEXT)
        if not config.lowercase:
            text["lowercase_rule"] = follows("is unused without lowercase")
        return {
            "aggregation": only(
                ("corpus", "sentence-mean"),
                "is scored by the library's corpus API or as the mean of its sentence scores",
            ),
            **text,
            "ngram_identity": only(("tokens",), "matches n-grams by their tokens"),
            "smooth_forms": only(("current",), "runs its installed release's smoothing methods"),
            "sentence_split": only(("none",), "scores each segment whole"),
            "round_digits": only((None,), "reports its number at full precision"),
            "round_rule": follows("is unused without round_digits"),
            "library": follows("only names the library in LibraryWouldRaise errors"),
        }

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        """Every ``BleuConfig`` field → how the library expresses it, in the order checked.

        A field missing here is refused (:meth:`supports`): a new factor is never assumed to
        be supported.
        """
        raise NotImplementedError

    def supports(self, config: BleuConfig) -> Support:
        """Whether the library can compute ``config`` exactly (and if not, why)."""
        rules = self.rules(config)
        missing = undeclared(config, rules)
        if missing:
            return Support(
                False,
                f"{', '.join(missing)}: the {self.name} adapter does not say how {self.library} "
                f"expresses this factor, so it is refused, not assumed "
                f"(declare it in {type(self).__name__}.rules)",
            )
        for field, rule in rules.items():
            why = rule.refusal(field, config, self.library)
            if why is not None:
                return Support(False, why)
        return SUPPORTED

    def _require(self, config: BleuConfig) -> None:
        support = self.supports(config)
        if not support.ok:
            raise UnsupportedSetting(self.name, support.reason)
        availability = self.available()
        if not availability.ok:
            raise AdapterUnavailable(self.name, availability.reason, availability.hint)

    # ------------------------------------------------------------------ scoring
    def corpus(self, corpus: Corpus, config: BleuConfig | None = None) -> BleuResult:
        """The library's corpus-level BLEU of ``corpus`` under ``config`` (default: the
        library's own defaults). ``aggregation="sentence-mean"`` averages the library's own
        sentence scores."""
        config = self.default_config() if config is None else config
        self._require(config)
        if config.aggregation == "sentence-mean":
            return self._sentence_mean(corpus, config)
        return self._corpus(corpus, config)

    def segments(self, corpus: Corpus, config: BleuConfig | None = None) -> list[BleuResult]:
        """One sentence-level result per segment, from the library's sentence-level API (or
        the corpus API on a one-segment corpus where the library has none)."""
        config = self.default_config() if config is None else config
        self._require(config)
        return self._segments(corpus, config)

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        raise NotImplementedError

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        return self.segments_via_corpus(corpus, config)

    def segments_via_corpus(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        """Segment results by calling the corpus API on each one-segment corpus."""
        return [
            as_segment(self._corpus(corpus.subset([i]), config), corpus.ids[i])
            for i in range(len(corpus))
        ]

    def _sentence_mean(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """Mean of the library's sentence scores (as the engine's ``sentence-mean``: score,
        precisions and bp are means; lengths, counts and totals are sums)."""
        return self.mean_result(self._segments(corpus, config), config)

    def derives_corpus(self, config: BleuConfig) -> bool:
        """Whether the library's corpus result under ``config`` is built from its segment
        results (:meth:`corpus_from_segments`)."""
        return config.aggregation == "sentence-mean" and type(self)._sentence_mean is (
            Adapter._sentence_mean
        )

    def corpus_from_segments(
        self, segs: Sequence[BleuResult], config: BleuConfig
    ) -> BleuResult | None:
        """What :meth:`corpus` returns for the corpus whose :meth:`segments` are ``segs``,
        when the library's corpus score is built from those very segment results (so a
        caller that has them need not run the library twice); ``None`` when it is not."""
        return self.mean_result(segs, config) if self.derives_corpus(config) else None

    def mean_result(self, segs: Sequence[BleuResult], config: BleuConfig) -> BleuResult:
        """The corpus result that averages ``segs`` (see :meth:`_sentence_mean`)."""
        k = len(segs)
        precisions: tuple[float, ...] = ()
        if all(len(s.precisions) == len(segs[0].precisions) for s in segs):
            precisions = tuple(
                mean([s.precisions[j] for s in segs]) for j in range(len(segs[0].precisions))
            )
        counts = _sum_tuples([s.counts for s in segs])
        totals = _sum_tuples([s.totals for s in segs])
        hyp_len = sum(s.hyp_len for s in segs)
        ref_len = sum(s.ref_len for s in segs)
        return BleuResult(
            score=mean([s.score for s in segs]),
            precisions=precisions,
            bp=mean([s.bp for s in segs]),
            ratio=hyp_len / ref_len if ref_len else 0.0,
            hyp_len=hyp_len,
            ref_len=ref_len,
            counts=counts,
            totals=totals,
            signature=self.signature(config),
            implementation=self.name,
            level="corpus",
            call=f"mean over {k} segments of: {segs[0].call}",
            extra={"aggregation": "sentence-mean", "segments": k},
        )

    # ------------------------------------------------------------------ result building
    def result(self, config: BleuConfig, **fields: Any) -> BleuResult:
        """A ``BleuResult`` with this adapter's signature and implementation filled in."""
        fields.setdefault("signature", self.signature(config))
        fields.setdefault("implementation", self.name)
        return BleuResult(**fields)

    def result_from_counts(
        self,
        config: BleuConfig,
        value: float,
        *,
        counts: tuple[int, ...],
        totals: tuple[int, ...],
        hyp_len: int,
        ref_len: int,
        call: str,
        extra: dict[str, Any],
    ) -> BleuResult:
        """A ``BleuResult`` from a library that returns a score on 0–1 and exposes its counts,
        totals and lengths but not its precisions or brevity penalty (``precisions`` empty,
        ``bp`` nan; ``extra`` gains ``library_value`` and the unsmoothed ``raw_precisions``)."""
        return self.result(
            config,
            score=100.0 * value,
            precisions=(),
            bp=NAN,
            ratio=hyp_len / ref_len if ref_len else 0.0,
            hyp_len=hyp_len,
            ref_len=ref_len,
            counts=counts,
            totals=totals,
            call=call,
            extra={
                **extra,
                "library_value": value,
                "raw_precisions": [
                    100.0 * c / t if t else 0.0 for c, t in zip(counts, totals, strict=True)
                ],
            },
        )

    def result_from_nmt_dict(
        self, config: BleuConfig, out: dict[str, Any], *, call: str, **fields: Any
    ) -> BleuResult:
        """A ``BleuResult`` from the dict that tensorflow/nmt-style scorers return (evaluate's
        ``bleu`` module and bleuscore): ``bleu`` and ``precisions`` on 0–1, BP, length ratio
        and lengths; no counts or totals."""
        return self.result(
            config,
            score=100.0 * float(out["bleu"]),
            precisions=tuple(100.0 * float(p) for p in out["precisions"]),
            bp=float(out["brevity_penalty"]),
            ratio=float(out["length_ratio"]),
            hyp_len=int(out["translation_length"]),
            ref_len=int(out["reference_length"]),
            counts=None,
            totals=None,
            call=call,
            **fields,
        )


def _sum_tuples(rows: Sequence[tuple[int, ...] | None]) -> tuple[int, ...] | None:
    if not rows or any(r is None for r in rows):
        return None
    present = [r for r in rows if r is not None]
    if len({len(r) for r in present}) != 1:
        return None
    return tuple(sum(r[j] for r in present) for j in range(len(present[0])))
