"""``BleuConfig``: one frozen, keyword-only value per BLEU variant.

Each field is one *factor* of the variant space described in ``../shared/DESIGN.md``. A
library's default behaviour is a point in that space (see :mod:`harness.bleu.profiles`). The
configuration is validated when it is built: an unknown value raises
:class:`~harness.errors.ConfigError` listing the valid ones, so a typo never silently selects a
default.

Conventions
-----------
* Scores are reported on 0–100 (``BleuResult.score``); precisions on 0–100 as well.
* ``weights=None`` means uniform weights ``1/max_order``.
* ``smooth_value=None`` means the method's own default (:data:`harness.bleu.smoothing.REGISTRY`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from harness.bleu.nltk_release_smoothing import SMOOTH_FORMS
from harness.bleu.smoothing import REGISTRY as SMOOTHING_REGISTRY
from harness.bleu.stats import REF_LENGTH_RULES
from harness.bleu.tokenizers import (
    ARTICLES,
    LOWERCASE_RULES,
    PUNCTUATIONS,
    REGISTRY,
    STRIPS,
    TOKENIZER_NAMES,
    WHITESPACES,
    TextRules,
    tokenizer_names,
)
from harness.bleu.zero_length import ZERO_LENGTH_RULES
from harness.data.corpus import caller_stacklevel
from harness.errors import ConfigError, SuspectInput

ENGINE_VERSION = "0.2.0"

#: The built-in tokenizer names, read from :data:`harness.bleu.tokenizers.REGISTRY` (a
#: configuration is validated against the registry itself: a tokenizer registered at run time
#: is valid too).
TOKENIZERS: tuple[str, ...] = TOKENIZER_NAMES

#: Reference-length rules for the brevity penalty (see :data:`harness.bleu.stats.REF_LENGTH_RULES`).
REF_LENGTHS: tuple[str, ...] = tuple(REF_LENGTH_RULES)

#: The valid ``max_order`` values: from the first to the second, both included.
MAX_ORDER_RANGE: tuple[int, int] = (1, 10)

#: The valid ``round_digits``: from the first to the second decimal place, both included (a
#: 0–1 score rounded to 2 decimals is a 0–100 score rounded to 0).
ROUND_DIGITS_RANGE: tuple[int, int] = (0, 15)

#: What a segment's text is before it is tokenized: ``none`` — the segment as given;
#: ``ragas`` — ragas' ``BleuScore``: the hypothesis cut at its first ``". "`` (only its first
#: sentence is scored) and every ``". "``-separated piece of the references an alternative
#: reference of its own.
SENTENCE_SPLITS: tuple[str, ...] = ("none", "ragas")

#: How ``round_digits`` rounds (the digits always count on the 0–100 scale): ``python`` —
#: Python's ``round`` on the 0–100 score; ``python-unit`` — Python's ``round`` on the 0–1 score
#: with two more digits, times 100 (a tool that rounds its 0–1 number: 16.5 becomes 0.17, not
#: 0.16); ``numpy`` — ``numpy.round`` on the 0–100 score (it scales by a power of ten first, so
#: a tie such as 12.7285 to three digits rounds down where Python's rounds up);
#: ``numpy-segment`` — ``numpy.round`` on **each segment's** score instead, and not on the
#: corpus-level score (a library that prints its sentence scores rounded: a sentence mean is
#: the mean of the rounded scores, not rounded again; vizseq's ``sent_scores``).
ROUND_RULES: tuple[str, ...] = ("python", "python-unit", "numpy", "numpy-segment")

#: The :data:`ROUND_RULES` that round each segment's score rather than the corpus-level score.
SEGMENT_ROUND_RULES: tuple[str, ...] = ("numpy-segment",)

NGRAM_TOTALS: tuple[str, ...] = (
    "plain",  # a segment adds max(0, len - n + 1) to the order-n total
    "floor1",  # nltk: each segment's order-n total is floored at 1
    "reduced",  # nltk 3.2: floor1, then each segment's matches and total in lowest terms
)

#: Smoothing methods: the names of the registry :data:`harness.bleu.smoothing.REGISTRY`, which
#: also holds each method's default ``smooth_value``, its valid range and its source.
SMOOTHINGS: tuple[str, ...] = tuple(SMOOTHING_REGISTRY)

EMPTY_ORDER: tuple[str, ...] = (
    "zero",  # an order with no hypothesis n-grams has precision 0 (sacrebleu, nltk floor aside)
    "one",  # ... counts as precision 1 (mteval-v13a)
)

ZERO_GUARD: tuple[str, ...] = (
    "none",  # no early exit: smoothing decides
    "unigram",  # score 0 when no unigram matches (sacrebleu #141, nltk)
    "any-order",  # score 0 when any order has zero matches, before smoothing (torchmetrics)
)

#: What a zero total hypothesis or reference length does: the rules of
#: :data:`harness.bleu.zero_length.ZERO_LENGTH_RULES`, one per library's way.
ON_ZERO_LENGTH: tuple[str, ...] = tuple(ZERO_LENGTH_RULES)

MISSING_REFS: tuple[str, ...] = (
    "skip",  # a segment with fewer references uses only its own (sacrebleu drops None, nltk)
    "empty",  # ragged references are padded with empty ones (length 0), which enter the
    # reference-length choice: what line-aligned reference files force (the Perl scripts)
    "truncate",  # every segment keeps only its first k references, k the fewest any segment
    # has: what transposing per-segment references with zip(*refs) does (lm-eval's bleu);
    # applied before counting (harness.bleu.engine.counted_corpus)
    "first",  # every segment keeps only its first reference, whatever the others hold: what
    # scripts that read refs[i][0] do (the code-summarization toolbox's CodeNN and RenCos
    # BLEU); applied before counting too
    "joined",  # every segment's references stripped, the empty and repeated ones dropped,
    # and the rest joined with a newline into one reference (evalscope's Target.display);
    # applied before counting too; a segment given no reference at all joins to the empty
    # one (harness.bleu.layouts.given_references), where every other rule refuses it
    "refuse",  # as skip, but a corpus whose segments do not all have as many references as
    # the first raises ValueError (Hugging Face's sacrebleu module, as unitxt and opencompass
    # load it); a segment scored alone is never refused
    "refuse-eof",  # as refuse, raising EOFError: sacrebleu 1.2.x-1.4.14 reads the reference
    # streams with zip_longest, and a missing reference (None) ends them early
    "drop-empty",  # as skip, and a reference that is the empty string is left out as a
    # missing one is (so it is never the closest length), before counting; a segment whose
    # references are all empty raises RuntimeError when scored (sacrebleu 2.0.0-2.1.0)
    "drop-empty-eof",  # as drop-empty, raising EOFError (sacrebleu 1.5.x)
    "truncate-drop-empty-eof",  # truncate, then drop-empty-eof on what is left: lm-eval
    # 0.0.1-0.3.0's _sacreformat cuts every segment to the fewest references, then the
    # sacrebleu 1.5.0 it pins leaves out the empty ones and raises EOFError on a segment left
    # without any; a segment scored alone is cut to nothing (drop-empty-eof)
    "empty-if-none",  # as skip, and a segment given no reference at all is read as one whose
    # one reference is empty (harness.bleu.layouts.given_references): pytorch-ignite
    # 0.4.5-0.4.6 scores it 0 (no unigram matches), where every other rule but joined refuses it
)

#: The ``missing_refs`` rules that refuse a ragged corpus, with the exception the library
#: raises (:func:`harness.bleu.refusals.ragged_refusal`).
RAGGED_REFUSALS: dict[str, str] = {"refuse": "ValueError", "refuse-eof": "EOFError"}

#: The ``missing_refs`` rules that leave out empty references, with the exception the library
#: raises on a segment left without any (:func:`harness.bleu.layouts.counted_corpus`,
#: :func:`harness.bleu.refusals.empty_references_refusal`).
EMPTY_REFERENCE_DROPS: dict[str, str] = {
    "drop-empty": "RuntimeError",
    "drop-empty-eof": "EOFError",
    "truncate-drop-empty-eof": "EOFError",
}

#: The ``missing_refs`` rules that cut every segment to the fewest references any segment of
#: the corpus has, with the rule left for what the cut leaves: a segment scored alone, or a
#: corpus already cut (:func:`harness.bleu.layouts.sentence_config`).
TRUNCATIONS: dict[str, str] = {"truncate": "skip", "truncate-drop-empty-eof": "drop-empty-eof"}

AGGREGATIONS: tuple[str, ...] = (
    "corpus",  # sum statistics over segments, then score
    "sentence-mean",  # mean of per-segment scores
    "best-ref-mean",  # each reference scored alone as a sentence, the best per segment, then
    # the mean over segments (TruthfulQA's bleu_max in lm-eval, HELM's bleu_1/bleu_4)
    "nonempty-mean",  # mean of per-segment scores over the segments whose hypothesis and every
    # reference have tokens, 0 when none has (CodeNN's script, which reads the first reference,
    # skips the others; opik leaves the items its metric raises on out of its mean, and a
    # corpus of nothing else is refused under on_zero_length="opik": opik prints no mean)
)

NGRAM_IDENTITIES: tuple[str, ...] = (
    "tokens",  # two n-grams are the same when their tokens are equal
    "fairseq-hash",  # fairseq-score's libbleu: the same when a 64-bit hash of their
    # dictionary ids is equal, so distinct n-grams that collide match each other
    # (harness.bleu.hashed)
)

NLTK_CORPUS_CONTEXT: tuple[str, ...] = (
    "last-segment",  # nltk corpus_bleu: methods 4-7 see the last segment's hypothesis/references
    "per-segment",  # (sentence level) each segment's own
)


def _choices(name: str, value: Any, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise ConfigError(f"unknown {name} {value!r}", valid=valid)


@dataclass(frozen=True, kw_only=True)
class BleuConfig:
    """A BLEU variant: every factor that changes the number, and nothing else.

    Fields
    ------
    tokenize: tokenizer name (a name of :data:`harness.bleu.tokenizers.REGISTRY`);
        ``whitespace`` is ``str.split()`` (what nltk, torchmetrics and pycocoevalcap users
        feed); ``none`` is sacrebleu's ``none``, which gives the same tokens because sacrebleu
        splits on any whitespace after tokenizing.
    lowercase: lowercase hypotheses and references (how: ``lowercase_rule``).
    lowercase_rule: ``unicode`` (``str.lower`` before tokenizing, sacrebleu), ``ascii`` (A-Z
        only: mteval-v13a, multi-bleu.perl) or ``perl`` (Perl ``lc`` on the tokens:
        multi-bleu-detok.perl); see :data:`harness.bleu.tokenizers.LOWERCASE_RULES`.
    strip: ``rstrip`` the raw segment before tokenizing (sacrebleu) or ``none`` (the Hub
        evaluate module, bleuscore, torchmetrics SacreBLEUScore, the Perl scripts).
    whitespace: the token separators of the final split: ``unicode`` (``str.split``) or
        ``perl`` (Perl's ``\\s``, without U+001C..U+001F).
    punctuation: ``keep``, or ``ascii``: every ASCII punctuation character becomes a space
        before tokenizing (ParlAI, jury); see
        :data:`harness.bleu.tokenizers.PUNCTUATIONS`.
    articles: ``keep``, or ``en``: the whole words ``a``/``an``/``the`` become a space before
        tokenizing, after lowercasing (ParlAI); see :data:`harness.bleu.tokenizers.ARTICLES`.
    missing_refs: ragged references as given (``skip``), padded with empty references that
        enter the reference-length choice (``empty``, as line-aligned files force), or cut to
        the fewest any segment has (``truncate``, as ``zip(*refs)`` does), or cut to the
        first (``first``, as a script that reads ``refs[i][0]`` does), and the other rules of
        :data:`MISSING_REFS` (empty references left out: ``drop-empty``, ``drop-empty-eof``,
        and after the cut to the fewest, ``truncate-drop-empty-eof``). Under
        ``aggregation="best-ref-mean"`` each reference is scored alone, so an empty one is
        never left out beside another: the ``drop-empty`` rules refuse it.
    max_order: highest n-gram order N.
    weights: per-order weights in the geometric mean (``None``: uniform ``1/N``).
    ref_length: how a segment's reference length for the brevity penalty is chosen.
    ngram_totals: how each segment contributes to the order-n denominator.
    smooth: smoothing method for zero or low counts; ``smooth_value`` its parameter.
    smooth_forms: which release's forms of the smoothing methods run: ``current`` (today's),
        or an older release's (``nltk-3.5``: nltk 3.5's method 2, 4 and 7, …; see
        :mod:`harness.bleu.nltk_release_smoothing`).
    effective_order: ignore orders that have no hypothesis n-grams at all (sacrebleu).
    empty_order: the precision of an order with no hypothesis n-grams when not ignored.
    zero_guard: when a zero match count ends the computation with score 0.
    on_zero_length: what a zero total hypothesis or reference length does.
    aggregation: corpus statistics, mean of sentence scores, or mean of each segment's best
        single-reference sentence score (``best-ref-mean``).
    ngram_identity: when a hypothesis n-gram equals a reference n-gram: ``tokens`` (its
        tokens are equal) or ``fairseq-hash`` (fairseq-score: the FNV-1a hash of the tokens'
        dictionary ids is equal, collisions included; :mod:`harness.bleu.hashed`).
    round_digits: the corpus-level score as its library reports it, rounded to this many
        decimals on the 0–100 scale by ``round_rule`` (``None``: full precision). Only the
        aggregated score is rounded: segment scores, and the sentence scores a mean is taken
        over, keep full precision — except under a rule of :data:`SEGMENT_ROUND_RULES`,
        which rounds each segment's score (and the mean is taken over the rounded ones)
        and leaves the aggregated score as it is.
    round_rule: how ``round_digits`` rounds (:data:`ROUND_RULES`; unused without it).
    sentence_split: what the segments are before tokenizing (:data:`SENTENCE_SPLITS`).
    library: the library whose error messages a profile speaks for (used only to name it in
        ``LibraryWouldRaise``); not part of the BLEU arithmetic.
    """

    tokenize: str = "13a"
    lowercase: bool = False
    lowercase_rule: str = "unicode"
    strip: str = "rstrip"
    whitespace: str = "unicode"
    punctuation: str = "keep"
    articles: str = "keep"
    missing_refs: str = "skip"
    max_order: int = 4
    weights: tuple[float, ...] | None = None
    ref_length: str = "closest"
    ngram_totals: str = "plain"
    smooth: str = "exp"
    smooth_value: float | None = None
    smooth_forms: str = "current"
    effective_order: bool = False
    empty_order: str = "zero"
    zero_guard: str = "unigram"
    on_zero_length: str = "zero"
    aggregation: str = "corpus"
    ngram_identity: str = "tokens"
    round_digits: int | None = None
    round_rule: str = "python"
    sentence_split: str = "none"
    library: str = "harness"
    extra: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.tokenize, str) or self.tokenize not in REGISTRY:
            raise ConfigError(f"unknown tokenize {self.tokenize!r}", valid=tokenizer_names())
        _choices("lowercase_rule", self.lowercase_rule, LOWERCASE_RULES)
        _choices("strip", self.strip, STRIPS)
        _choices("whitespace", self.whitespace, WHITESPACES)
        _choices("punctuation", self.punctuation, PUNCTUATIONS)
        _choices("articles", self.articles, ARTICLES)
        _choices("missing_refs", self.missing_refs, MISSING_REFS)
        if self.whitespace not in REGISTRY[self.tokenize].whitespaces:
            supported = tokenizer_names(whitespace=self.whitespace)
            raise ConfigError(
                f"whitespace={self.whitespace!r} is defined only for the tokenizers "
                f"{', '.join(supported)}, not {self.tokenize!r}",
                valid=supported,
            )
        _choices("ref_length", self.ref_length, REF_LENGTHS)
        _choices("ngram_totals", self.ngram_totals, NGRAM_TOTALS)
        _choices("smooth", self.smooth, SMOOTHINGS)
        _choices("smooth_forms", self.smooth_forms, SMOOTH_FORMS)
        _choices("empty_order", self.empty_order, EMPTY_ORDER)
        _choices("zero_guard", self.zero_guard, ZERO_GUARD)
        _choices("on_zero_length", self.on_zero_length, ON_ZERO_LENGTH)
        _choices("aggregation", self.aggregation, AGGREGATIONS)
        _choices("ngram_identity", self.ngram_identity, NGRAM_IDENTITIES)
        _choices("round_rule", self.round_rule, ROUND_RULES)
        _choices("sentence_split", self.sentence_split, SENTENCE_SPLITS)
        if not isinstance(self.lowercase, bool):
            raise ConfigError(f"lowercase must be True or False, got {self.lowercase!r}")
        if not isinstance(self.effective_order, bool):
            raise ConfigError(
                f"effective_order must be True or False, got {self.effective_order!r}"
            )
        if self.round_digits is not None and (
            not isinstance(self.round_digits, int)
            or isinstance(self.round_digits, bool)
            or not ROUND_DIGITS_RANGE[0] <= self.round_digits <= ROUND_DIGITS_RANGE[1]
        ):
            low, high = ROUND_DIGITS_RANGE
            raise ConfigError(
                f"round_digits must be None or an integer from {low} to {high}, "
                f"got {self.round_digits!r}"
            )
        if not isinstance(self.max_order, int) or isinstance(self.max_order, bool):
            raise ConfigError(f"max_order must be an integer, got {self.max_order!r}")
        low, high = MAX_ORDER_RANGE
        if not low <= self.max_order <= high:
            raise ConfigError(f"max_order must be between {low} and {high}, got {self.max_order}")
        if self.weights is not None:
            try:
                w = tuple(float(x) for x in self.weights)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"weights must be numbers, got {self.weights!r}") from exc
            if len(w) != self.max_order:
                raise ConfigError(f"weights has {len(w)} entries but max_order is {self.max_order}")
            if not all(math.isfinite(x) for x in w):
                raise ConfigError(f"weights must be finite numbers, got {w}")
            if any(x < 0 for x in w):
                raise ConfigError(f"weights must be non-negative, got {w}")
            if not any(x > 0 for x in w):
                raise ConfigError(
                    f"weights are all zero {w}: the geometric mean would ignore every n-gram "
                    "order and BLEU would be the brevity penalty alone; give at least one "
                    "positive weight"
                )
            total = math.fsum(w)
            if abs(total - 1.0) > 1e-9:
                warnings.warn(
                    f"weights {w} sum to {total:g}, not 1: BLEU is then not a weighted geometric "
                    "mean of the precisions (nltk accepts this; the harness scores it as given)",
                    SuspectInput,
                    stacklevel=caller_stacklevel(),
                )
            object.__setattr__(self, "weights", w)
        if self.smooth_value is not None:
            spec = SMOOTHING_REGISTRY[self.smooth]
            if spec.value_range is None:
                raise ConfigError(
                    f"smooth {self.smooth!r} takes no smooth_value",
                    valid=sorted(s.name for s in SMOOTHING_REGISTRY.values() if s.takes_value),
                )
            if isinstance(self.smooth_value, bool) or not isinstance(
                self.smooth_value, int | float
            ):
                raise ConfigError(f"smooth_value must be a number, got {self.smooth_value!r}")
            value = float(self.smooth_value)
            valid = spec.value_range
            if not valid.contains(value):
                raise ConfigError(
                    f"smooth_value {value!r} is out of range for smooth {self.smooth!r}: "
                    f"{valid.meaning} must be a finite number {'>' if valid.strict else '>='} "
                    f"{valid.low:g}"
                )
            object.__setattr__(self, "smooth_value", value)

    # ------------------------------------------------------------------ derived values
    @property
    def text_rules(self) -> TextRules:
        """The factors that turn a segment into tokens (tokenizer, case, punctuation, articles,
        strip, whitespace)."""
        return TextRules(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            lowercase_rule=self.lowercase_rule,
            strip=self.strip,
            whitespace=self.whitespace,
            punctuation=self.punctuation,
            articles=self.articles,
        )

    @property
    def order_weights(self) -> tuple[float, ...]:
        """The weights actually used: ``weights`` or uniform ``1/max_order``."""
        if self.weights is None:
            return (1.0 / self.max_order,) * self.max_order
        return self.weights

    @property
    def effective_smooth_value(self) -> float | None:
        """``smooth_value`` or the method's default (``None`` for methods without one)."""
        if self.smooth_value is not None:
            return self.smooth_value
        return SMOOTHING_REGISTRY[self.smooth].default

    def replace(self, **overrides: Any) -> BleuConfig:
        """A copy with some factors changed; unknown names raise ``ConfigError``."""
        check_override_names(overrides)
        return dataclasses.replace(self, **overrides)

    def signature(self, *, versions: dict[str, str] | None = None) -> str:
        """``key:value|…`` naming every factor, library versions last (as sacrebleu does).

        Two configs have the same signature exactly when they compute the same variant.
        """
        parts = [self.text_rules.key(), f"n:{self.max_order}"]
        if self.sentence_split != "none":
            parts.insert(1, f"split:{self.sentence_split}")
        if self.weights is not None:
            parts.append("w:" + ",".join(f"{x:g}" for x in self.weights))
        parts.append(f"ref:{self.ref_length}")
        if self.missing_refs in (
            "truncate",
            "first",
            "joined",
            "empty-if-none",
            *RAGGED_REFUSALS,
        ) or (self.missing_refs in EMPTY_REFERENCE_DROPS):
            parts.append(f"refs:{self.missing_refs}")
        elif self.missing_refs != "skip":
            parts.append(f"refs:pad-{self.missing_refs}")
        parts += [
            f"tot:{self.ngram_totals}",
            f"smooth:{self.smooth}",
        ]
        value = self.effective_smooth_value
        if value is not None:
            parts[-1] += f"[{value:g}]"
        if self.smooth_forms != "current":  # left out at its default: older signatures stand
            parts.append(f"forms:{self.smooth_forms}")
        parts += [
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"empty:{self.empty_order}",
            f"guard:{self.zero_guard}",
            f"zerolen:{self.on_zero_length}",
            f"agg:{self.aggregation}",
        ]
        if self.ngram_identity != "tokens":  # left out at its default: older signatures stand
            parts.append(f"ngram:{self.ngram_identity}")
        if self.round_digits is not None:  # the same
            rule = "" if self.round_rule == "python" else f"[{self.round_rule}]"
            parts.append(f"round:{self.round_digits}{rule}")
        for key, val in self.extra:
            parts.append(f"{key}:{val}")
        all_versions = {"engine": ENGINE_VERSION}
        if versions:
            all_versions.update(versions)
        parts.append("version:" + ",".join(f"{k}={v}" for k, v in all_versions.items()))
        return "|".join(parts)

    def short_signature(
        self,
        base: BleuConfig,
        *,
        name: str,
        kind: str = "profile",
        nrefs: int | str | None = None,
        versions: dict[str, str] | None = None,
    ) -> str:
        """A short, citable signature in sacrebleu's style: ``nrefs:N|<kind>:<name>|<the
        factors that differ from base>|version:engine=…[,library=…]``.

        ``base`` is the configuration ``name`` stands for (a profile's, or the defaults of the
        library adapter ``name`` with ``kind="lib"``); only the factors of this configuration
        whose :meth:`signature` items differ from ``base``'s are listed, with the same keys and
        values as the full signature (``tok:intl``, ``smooth:add-k[1]``, …). ``nrefs`` is the
        corpus' number of references per segment, ``"var"`` when it varies (as sacrebleu
        writes it); ``None`` leaves it out. The full signature stays the identity of the
        variant; this one names it relative to a documented profile.

        >>> from harness.bleu.profiles import PROFILES
        >>> sb = PROFILES["sacrebleu"]
        >>> sb.replace(tokenize="intl").short_signature(sb, name="sacrebleu", nrefs=2)
        'nrefs:2|profile:sacrebleu|tok:intl|version:engine=0.2.0'
        """
        if kind not in SHORT_SIGNATURE_KINDS:
            raise ConfigError(f"unknown signature kind {kind!r}", valid=SHORT_SIGNATURE_KINDS)
        parts = [] if nrefs is None else [f"nrefs:{nrefs}"]
        parts.append(f"{kind}:{name}")
        parts += [f"{k}:{v}" for k, v in factor_differences(self, base).items()]
        parts.append(self.signature(versions=versions).rsplit("|", 1)[1])
        return "|".join(parts)


#: The first key of a short signature: an in-house ``profile`` or a real library (``lib``).
SHORT_SIGNATURE_KINDS: tuple[str, ...] = ("profile", "lib")

#: The value a :meth:`BleuConfig.signature` key stands for when the full signature leaves it
#: out (an optional factor at its default).
SIGNATURE_OMITTED: dict[str, str] = {
    "punct": "keep",
    "art": "keep",
    "strip": "rstrip",
    "ws": "unicode",
    "w": "uniform",
    "refs": "skip",
    "ngram": "tokens",
    "round": "none",
    "split": "none",
    "forms": "current",
    "release": "current",  # a profile of the library's current release names none
}


def signature_items(signature: str) -> dict[str, str]:
    """A full :meth:`BleuConfig.signature` as ``{key: value}`` in its order, without the
    ``version`` item."""
    items = dict(part.partition(":")[::2] for part in signature.split("|"))
    items.pop("version", None)
    return items


def factor_differences(config: BleuConfig, base: BleuConfig) -> dict[str, str]:
    """The signature items of ``config`` that differ from ``base``'s, in signature order
    (an item only ``base`` has is given ``config``'s omitted value: ``strip:rstrip``, …;
    an extra factor only ``base`` has: ``none``)."""
    mine = signature_items(config.signature())
    theirs = signature_items(base.signature())
    out = {k: v for k, v in mine.items() if theirs.get(k) != v}
    for key in theirs:
        if key not in mine:
            out[key] = SIGNATURE_OMITTED.get(key, "none")
    return out


#: The names users may override (everything but internal bookkeeping).
OVERRIDABLE: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(BleuConfig) if f.name not in ("library", "extra")
)


def check_override_names(overrides: dict[str, Any]) -> None:
    """Raise ``ConfigError`` naming any override that is not a ``BleuConfig`` factor."""
    unknown = sorted(set(overrides) - set(OVERRIDABLE) - {"library", "extra"})
    if unknown:
        raise ConfigError(f"unknown option(s) {', '.join(unknown)}", valid=OVERRIDABLE)
