"""The adapter protocol: one small class per real BLEU library.

An adapter *translates* — the harness's :class:`~harness.data.corpus.Corpus` into the library's
reference layout and a :class:`~harness.bleu.config.BleuConfig` into the library's arguments — calls
the real library, and reports what it returned as a :class:`~harness.bleu.result.BleuResult`
(score on 0–100, ``implementation`` = the adapter name, ``call`` = the exact library call).
Adapters never compute BLEU themselves and never approximate a setting: a configuration the
library cannot express exactly raises :class:`~harness.errors.UnsupportedSetting` with the
reason (and :meth:`Adapter.supports` says so without running anything).

Libraries are imported when an adapter is *used*, never when this package is imported; a
library that cannot be imported makes :meth:`Adapter.available` return ``ok=False`` with the
reason and an install hint, and scoring raises :class:`~harness.errors.AdapterUnavailable`.

Statistics a library does not expose are ``None`` (``counts``/``totals``), an empty tuple
(``precisions``) or ``nan`` (``bp``/``ratio``): an adapter reports what the library said, not
what it would have said.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from harness.bleu.config import BleuConfig
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import AdapterUnavailable, UnsupportedSetting

NAN = float("nan")


@dataclass(frozen=True)
class Availability:
    """Whether an adapter can run here: ``reason`` says why not, ``hint`` how to fix it."""

    ok: bool
    reason: str = ""
    hint: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class Support:
    """Whether an adapter can express a configuration exactly; ``reason`` says why not."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


SUPPORTED = Support(True)


# ---------------------------------------------------------------------------- config checks
#: ``TEXT_FACTORS`` of adapters that feed the library harness tokens: any text rule.
HARNESS_TOKENS: dict[str, tuple[tuple[Any, ...], str]] = {
    "strip": (("rstrip", "none"), ""),
    "lowercase_rule": (("unicode", "ascii", "perl", "perl-before"), "tokenizes both sides alike"),
    "whitespace": (("unicode", "perl"), ""),
    "missing_refs": (("skip",), "takes ragged references as given"),
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


def check(
    config: BleuConfig,
    library: str,
    rules: Sequence[tuple[str, Collection[Any], str]],
) -> Support:
    """The first rule ``(field, allowed values, why)`` that ``config`` breaks, as a ``Support``.

    ``field`` may also be ``"weights"`` with ``allowed=("uniform",)`` for libraries without a
    weights argument, and ``"extra"`` with the allowed extra entries.
    """
    for field_name, allowed, why in rules:
        if field_name == "weights":
            if "uniform" in allowed and not is_uniform(config):
                return Support(
                    False, f"weights={config.weights}: {library} {why} (only uniform weights)"
                )
            continue
        if field_name == "extra":
            unknown = [e for e in config.extra if e not in allowed]
            if unknown:
                return Support(
                    False,
                    f"extra factors {unknown} cannot be expressed in {library}: {why}",
                )
            continue
        value = getattr(config, field_name)
        if value not in allowed:
            valid = ", ".join(repr(a) for a in allowed)
            return Support(False, f"{field_name}={value!r}: {library} {why} (supported: {valid})")
    return SUPPORTED


# ---------------------------------------------------------------------------- helpers
def pretokenize(texts: Sequence[str], config: BleuConfig) -> list[list[str]]:
    """Tokens of each text under ``config``'s text rules (tokenizer, case, strip, whitespace)
    with the harness tokenizers. Used for libraries that expect caller-tokenized input."""
    from harness.bleu.tokenizers import text_tokenizer

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


# ---------------------------------------------------------------------------- the protocol


@functools.lru_cache(maxsize=64)
def _installed_version(distribution: str) -> str | None:
    """``importlib.metadata.version``, read once per process: it parses the distribution's
    METADATA file (~5 ms), and every result of every segment records the version in its
    signature (20k segments x 7 libraries in a WMT21 report)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


class Adapter:
    """Base class of the adapters; subclasses set the class attributes and implement
    :meth:`_check`, :meth:`_corpus` and :meth:`_segments`.

    ``name`` is the registry name (also ``BleuResult.implementation``), ``distribution`` the
    package whose version goes into the signature, ``module`` what :meth:`available` imports.
    """

    name: str = ""
    distribution: str = ""
    module: str = ""
    profile: str = ""  # the harness.bleu.profiles name describing the library's defaults
    install_hint: str = ""

    # ------------------------------------------------------------------ identity
    def version(self) -> str | None:
        """The installed version of the library, or ``None`` when it is not installed."""
        return _installed_version(self.distribution)

    def available(self) -> Availability:
        """Whether the library can be imported (and, for some adapters, loaded) here."""
        try:
            importlib.import_module(self.module)
        except Exception as exc:  # ImportError, or a broken install raising anything
            return Availability(False, f"cannot import {self.module}: {exc}", self.install_hint)
        return Availability(True)

    def default_config(self) -> BleuConfig:
        """The configuration describing what the library does by default."""
        from harness.bleu.profiles import PROFILES

        return PROFILES[self.profile or self.name]

    def signature(self, config: BleuConfig) -> str:
        """``config.signature`` with this library's version."""
        return config.signature(versions={self.distribution: self.version() or "unknown"})

    # ------------------------------------------------------------------ support
    #: The text and reference factors this library can express, field → allowed values, and
    #: why. By default only sacrebleu's conventions (rstrip, str.lower, str.split whitespace,
    #: ragged references as given); adapters that feed harness tokens accept every text rule.
    TEXT_FACTORS: ClassVar[dict[str, tuple[tuple[Any, ...], str]]] = {
        "strip": (("rstrip",), "right-strips each segment before tokenizing"),
        "lowercase_rule": (("unicode",), "lowercases with str.lower() before tokenizing"),
        "whitespace": (("unicode",), "splits tokens with str.split()"),
        "missing_refs": (("skip",), "takes ragged references as given"),
    }

    def supports(self, config: BleuConfig) -> Support:
        """Whether the library can compute ``config`` exactly (and if not, why)."""
        if config.aggregation not in ("corpus", "sentence-mean"):
            return Support(False, f"aggregation={config.aggregation!r} is unknown to adapters")
        rules = [
            (name, allowed, why)
            for name, (allowed, why) in self.TEXT_FACTORS.items()
            if name != "lowercase_rule" or config.lowercase
        ]
        support = check(config, self.name, rules)
        return support if not support.ok else self._check(config)

    def _check(self, config: BleuConfig) -> Support:
        raise NotImplementedError

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
        out = []
        for i in range(len(corpus)):
            one = corpus.subset([i])
            r = self._corpus(one, config)
            out.append(_replace(r, level="segment", segment_id=corpus.ids[i]))
        return out

    def _sentence_mean(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        """Mean of the library's sentence scores (as the engine's ``sentence-mean``: score,
        precisions and bp are means; lengths, counts and totals are sums)."""
        segs = self._segments(corpus, config)
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


def _replace(result: BleuResult, **changes: Any) -> BleuResult:
    import dataclasses

    return dataclasses.replace(result, **changes)


def _sum_tuples(rows: Sequence[tuple[int, ...] | None]) -> tuple[int, ...] | None:
    if not rows or any(r is None for r in rows):
        return None
    present = [r for r in rows if r is not None]
    if len({len(r) for r in present}) != 1:
        return None
    return tuple(sum(r[j] for r in present) for j in range(len(present[0])))


def lazy(module: str, attr: str, **fixed: Any) -> Callable[..., Adapter]:
    """A factory that imports ``module`` only when called (keeps library imports lazy);
    ``fixed`` options are always passed."""

    def factory(**options: Any) -> Adapter:
        mod = importlib.import_module(module)
        return getattr(mod, attr)(**fixed, **options)

    factory.__name__ = f"{attr}_factory"
    factory.__qualname__ = factory.__name__
    factory.__doc__ = f"Build {module}.{attr} (imported on first use)."
    return factory
