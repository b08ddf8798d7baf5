"""Validate a BLEU implementation: which library does it reproduce, and where does it not?

:func:`validate` runs an implementation — a Python callable ``f(hypotheses, references)``
with per-segment references, a ``"module:function"`` string, or a shell command through
:class:`~harness.scorers.command.CommandAdapter` — on a battery of corpora: every shipped
fixture's systems plus ``cases`` corpora from a seeded generator (short and long segments,
repeated words, words inside other words, glued punctuation, mixed case, CJK, 1–3 ragged
references, some empty). It then

1. **detects the scale**: a perfect match scores 1.0 on a 0–1 implementation and 100 on a
   0–100 one (falling back to whichever scale agrees with more profiles);
2. **compares with every profile** in :data:`harness.PROFILES` and every single-factor
   variant of sacrebleu (lowercase, each reference-length rule, each smoothing, each
   tokenizer, …): the share of cases on which the engine's score equals the implementation's
   (within ``tolerance``, on the implementation's scale) is the profile's *agreement*; a case
   on which both raise agrees;
3. **fits**: from the best profile, a greedy search over single-factor changes finds the
   configuration that agrees on the most cases (ties: smallest mean absolute difference);
4. **explains deviations**: the first failing cases against the best profile, each shrunk to a
   minimal input (segments, references and tokens are removed greedily while the same
   disagreement persists) and given a ``factor``:

   * a factor of :data:`harness.analysis.attribution.FACTORS` when a configuration that
     differs from the best profile in that factor reproduces the case;
   * otherwise a bug outside the factor space, found by re-computing the statistics with one
     (or two) deliberate mistakes — ``clipping`` (sum over references, no clipping),
     ``ngram_extraction`` (``range(len - n)``, a stride of n), ``brevity_penalty``
     (``exp(1 - c/r)``, none), ``substring_counting`` (reference counts as substring counts);
   * otherwise the first failing **probe** (tiny hand-made inputs where only one behaviour
     matters: repeated words, segments of exactly n tokens, a hypothesis that is a prefix of a
     longer reference, ``he``/``she``, reference-length ties, zero 4-gram matches, glued
     punctuation, capitals) whose feature the case has; ``"unexplained"`` if none;

5. **collects crashes**: inputs that raise, shrunk, with the exception text.

Statistics are computed once per (case, tokenizer, case-folding) and every configuration is
arithmetic on them (:class:`harness.diagnose.identify.CorpusScorer`), so a few hundred cases against
~60 configurations take a second or two for a fast implementation.

>>> from harness.diagnose.homemade import sacrebleu_like
>>> r = validate(sacrebleu_like, cases=20)
>>> r.best_profile, r.agreement, r.scale
('sacrebleu', 1.0, '0-100')
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.analysis.attribution import FACTORS, differing_factors
from harness.bleu.arithmetic import nltk_context, score_totals
from harness.bleu.config import ON_ZERO_LENGTH, REF_LENGTHS, BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.stats import Totals, choose_ref_length
from harness.bleu.tokenizers import LOWERCASE_RULES, PERL_WHITESPACE_TOKENIZERS
from harness.data.corpus import Corpus
from harness.diagnose.identify import SMOOTHING_POLICIES, CorpusScorer
from harness.errors import ConfigError, HarnessError, LibraryWouldRaise
from harness.progress import ProgressCallback, track

__all__ = [
    "BUG_MODELS",
    "Case",
    "Crash",
    "Deviation",
    "Probe",
    "ValidationReport",
    "generate_cases",
    "single_factor_variants",
    "validate",
]

Impl = Callable[[list[str], list[list[str]]], Any]
# "none" is left out: it gives the same tokens as "whitespace" (see harness.bleu.config)
_VARIANT_TOKENIZERS = ("13a", "intl", "char", "zh", "whitespace", "ascii-whitespace")


# ====================================================================== cases
@dataclass(frozen=True)
class Case:
    """One input: hypotheses and per-segment references, and where it came from."""

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]

    def corpus(self) -> Corpus:
        # generated and fixture text: checked where it was made, never warned about per case
        return Corpus(
            hypotheses=self.hypotheses,
            references=self.references,
            name=self.source,
            check_text=False,
        )

    @property
    def n_tokens(self) -> int:
        return sum(len(h.split()) for h in self.hypotheses) + sum(
            len(r.split()) for refs in self.references for r in refs
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "hypotheses": list(self.hypotheses),
            "references": [list(r) for r in self.references],
        }


_COMMON = (
    "the cat sat on mat a dog is in park ran big red house today and it was very old"
).split()
_TRICKY = (
    "there he she cats at hat an other The Cat Dog mat. cat, dog! don't e-mail 3.5 &amp; "
    "猫 東京 猫が"
).split()
_HOSTILE = ("(the", "c++")


def _word(rng: np.random.Generator) -> str:
    u = rng.random()
    if u < 0.80:
        return _COMMON[rng.integers(len(_COMMON))]
    if u < 0.997:
        return _TRICKY[rng.integers(len(_TRICKY))]
    return _HOSTILE[rng.integers(len(_HOSTILE))]


def _sentence(rng: np.random.Generator, lo: int, hi: int) -> list[str]:
    return [_word(rng) for _ in range(int(rng.integers(lo, hi + 1)))]


def _derive(rng: np.random.Generator, hyp: list[str]) -> list[str]:
    """A reference made from the hypothesis by edits, so that long n-grams match."""
    out: list[str] = []
    for tok in hyp:
        u = rng.random()
        if u < 0.12:
            out.append(_word(rng))
        elif u < 0.20:
            pass
        else:
            out.append(tok)
        if rng.random() < 0.08:
            out.append(_word(rng))
    if rng.random() < 0.3:
        extra = _sentence(rng, 1, 4)
        out = extra + out if rng.random() < 0.5 else out + extra
    return out


def _generate(
    rng: np.random.Generator, index: int, rectangular: bool, streams: int | None = None
) -> Case:
    n_seg = int(rng.choice([1, 1, 2, 2, 3, 4]))
    k_fixed = int(rng.choice([1, 1, 2, 2, 3]))
    if streams is not None:  # drawn anyway, so other subjects see the same cases
        k_fixed = streams
    hyps, refs = [], []
    for _ in range(n_seg):
        if rng.random() < 0.12:
            hyp = _sentence(rng, 0, 3)
        else:
            hyp = _sentence(rng, 4, 12)
        if hyp and rng.random() < 0.3:  # repeated words and bigrams exercise clipping
            i = int(rng.integers(len(hyp)))
            hyp = hyp[: i + 1] + hyp[max(0, i - 1) : i + 1] + hyp[i + 1 :]
        k = k_fixed if rectangular else int(rng.choice([1, 1, 2, 2, 3]))
        seg = []
        for _ in range(k):
            u = rng.random()
            if u < 0.03:
                ref: list[str] = []
            elif u < 0.78 and hyp:
                ref = _derive(rng, hyp)
            else:
                ref = _sentence(rng, 3, 12)
            if ref and rng.random() < 0.1:
                ref[0] = ref[0].capitalize()
            seg.append(" ".join(ref))
        hyps.append(" ".join(hyp))
        refs.append(tuple(seg))
    return Case(f"generated:{index}", tuple(hyps), tuple(refs))


def generate_cases(
    n: int, *, seed: int = 0, rectangular: bool = False, streams: int | None = None
) -> list[Case]:
    """``n`` reproducible corpora from ``numpy.random.default_rng(seed)``.

    ``rectangular=True`` gives every segment of a corpus the same number of references (what
    line-aligned reference files can hold); ``streams`` fixes that number (a command template
    that names exactly that many reference files).
    """
    rng = np.random.default_rng(seed)
    return [_generate(rng, i, rectangular or streams is not None, streams) for i in range(n)]


def _fixture_cases(rectangular: bool, streams: int | None = None) -> tuple[list[Case], list[str]]:
    from harness.data.fixtures import load_all

    out, skipped = [], []
    for fx in load_all():
        for system in fx.system_names:
            c = fx.corpus(system)
            name = f"fixture:{fx.name}/{system}"
            if rectangular and c.is_ragged:
                skipped.append(f"{name} (ragged references cannot be written as files)")
                continue
            if streams is not None and len(c.references[0]) != streams:
                skipped.append(
                    f"{name} ({len(c.references[0])} reference streams; the command template "
                    f"names {streams})"
                )
                continue
            out.append(Case(name, c.hypotheses, c.references))
    return out, skipped


# ====================================================================== the implementation
class NoScore(Exception):
    """The implementation returned something that is not a BLEU score (None, a string, NaN,
    ±inf, a negative number or one above 100)."""


#: After this many timeouts in a row the command is not called again in the run: every later
#: call is a "no score" (bounds the run time of a subject that hangs on most inputs).
MAX_CONSECUTIVE_TIMEOUTS = 3


class _Subject:
    """The implementation under test, called uniformly; records nothing itself."""

    def __init__(
        self, impl: Impl | str | None, cmd: str | None, timeout: float | None = None
    ) -> None:
        if (impl is None) == (cmd is None):
            raise ConfigError("pass exactly one of impl (callable or 'module:function') or cmd=")
        if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.rectangular = cmd is not None
        self.streams: int | None = None  # the reference streams a command template names
        self.adapter = None
        self.fn: Impl | None = None
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self.timeouts_in_a_row = 0
        if cmd is not None:
            from harness.scorers.command import CommandAdapter

            # scale="0-100" keeps the printed number as it is: the validator detects the scale
            self.adapter = CommandAdapter(
                cmd, name="validated-command", scale="0-100", timeout=self.timeout
            )
            availability = self.adapter.available()
            if not availability.ok:  # a usage error, not 300 cases without a score
                from harness.errors import AdapterUnavailable

                raise AdapterUnavailable(cmd, availability.reason, availability.hint)
            self.streams = self.adapter.streams_accepted
            self.name = cmd
        elif isinstance(impl, str):
            self.fn = _import(impl)
            self.name = impl
        elif callable(impl):
            self.fn = impl
            mod = getattr(impl, "__module__", "") or ""
            self.name = f"{mod}:{getattr(impl, '__qualname__', repr(impl))}".lstrip(":")
        else:
            raise ConfigError(f"impl must be callable or 'module:function', got {impl!r}")
        self.calls = 0

    def __call__(self, case: Case) -> tuple[float, int]:
        """The score on ``case`` and the number of decimals it was given with."""
        from harness.scorers.command import CommandError, CommandTimeout, _decimals

        if self.adapter is not None:
            if self.timeouts_in_a_row >= MAX_CONSECUTIVE_TIMEOUTS:
                raise CommandError(
                    f"not run: the previous {self.timeouts_in_a_row} calls timed out",
                    command=self.name,
                )
            self.calls += 1
            try:
                res = self.adapter.corpus(case.corpus())
            except CommandTimeout:
                self.timeouts_in_a_row += 1
                raise
            self.timeouts_in_a_row = 0
            value = float(res.score)
            decimals = res.extra.get("decimals")
            decimals = _decimals(repr(value)) if decimals is None else int(decimals)
        else:
            assert self.fn is not None
            self.calls += 1
            out = self.fn(list(case.hypotheses), [list(r) for r in case.references])
            out = getattr(out, "score", out)
            if isinstance(out, bool) or not isinstance(out, int | float | np.number):
                raise NoScore(f"returned {type(out).__name__} {out!r:.60}, not a number")
            value = float(out)
            decimals = _decimals(repr(value))
        if not math.isfinite(value):
            raise NoScore(f"returned {value}")
        if not -1e-9 <= value <= 100.0 + 1e-7:  # float slack: 100.00000000000001 is 100
            raise NoScore(f"returned {value!r}, outside [0, 100]: not a BLEU score")
        return value, decimals


#: Seconds a command may take per call (``--timeout``).
DEFAULT_TIMEOUT = 30.0


def _import_module(module: str, spec: str) -> Any:
    """Import the user's module, with the current directory first on ``sys.path`` (restored
    afterwards); whatever its import does wrong becomes a ConfigError naming it (user code:
    any exception, and ``sys.exit``, are its failures, not the harness's)."""
    saved = list(sys.path)
    sys.path.insert(0, os.getcwd())  # as `python -m` does: ./mymodule.py is importable
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module == exc.name or module.startswith(exc.name + ".")):
            raise ConfigError(
                f"{spec}: cannot import module {module!r}: no module named {exc.name!r} "
                f"(looked in the current directory {os.getcwd()} and on sys.path)"
            ) from None
        raise ConfigError(
            f"{spec}: importing module {module!r} failed: {exc} (a module it imports is missing)"
        ) from None
    except SystemExit as exc:
        raise ConfigError(
            f"{spec}: importing module {module!r} called sys.exit({exc.code!r}); "
            "move script code under `if __name__ == '__main__':`"
        ) from None
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (at {tb[0].filename}, line {tb[0].lineno})" if tb else ""
        raise ConfigError(
            f"{spec}: importing module {module!r} raised {type(exc).__name__}: {exc}{where}"
        ) from None
    finally:
        sys.path[:] = saved


def _import(spec: str) -> Impl:
    """The callable named by ``'module:function'`` (``function`` may be dotted).

    Raises ``ConfigError`` naming the module or attribute when it cannot be found; an error
    raised while the module itself is imported is reported with its type and message.
    """
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"expected 'module:function', got {spec!r}")
    obj: Any = _import_module(module, spec)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{spec}: module {module!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise ConfigError(f"{spec} is not callable")
    return obj


@dataclass
class _Outcome:
    """One call: a finite score (``value``, printed with ``decimals`` decimals) or no score,
    with ``error`` saying why and ``exc_type`` naming the exception."""

    value: float | None
    error: str | None
    exc_type: str | None
    decimals: int | None = None

    @property
    def verdict(self) -> str:
        return "scored" if self.value is not None else f"no score: {self.error}"


def _run(subject: _Subject, case: Case) -> _Outcome:
    from harness.scorers.command import CommandError

    try:
        value, decimals = subject(case)
        return _Outcome(value, None, None, decimals)
    except CommandError as exc:
        # the first line, then the command's stderr; the temporary paths say nothing
        text = str(exc).split("\n", 1)[0]
        if exc.stderr.strip():
            text += f"; stderr: {exc.stderr.strip()[-300:]}"
        return _Outcome(None, text, type(exc).__name__)
    except Exception as exc:  # the point is to catch whatever the implementation raises
        text = f"{type(exc).__name__}: {exc}".strip()
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        if last and not isinstance(exc, NoScore):
            text += f" (at {last[0].name}, line {last[0].lineno})"
        return _Outcome(None, text, type(exc).__name__)


# ====================================================================== configurations
def _label(base: str, overrides: dict[str, Any]) -> str:
    return base + "+" + ",".join(f"{k}={v}" for k, v in overrides.items())


def single_factor_variants(
    base: BleuConfig, base_name: str = "base"
) -> list[tuple[str, str, BleuConfig]]:
    """``(factor, name, config)`` for every change of one factor of ``base``.

    Tokenizers (no MeCab), case, each reference-length rule, n-gram totals, the smoothing
    policies of :data:`harness.diagnose.identify.SMOOTHING_POLICIES`, effective order, aggregation,
    max order 1–5 and the zero-length policies.
    """
    out: list[tuple[str, str, BleuConfig]] = []

    def add(factor: str, **overrides: Any) -> None:
        cfg = base.replace(**overrides)
        if cfg != base:
            shown = {k: v for k, v in overrides.items() if getattr(base, k) != v}
            out.append((factor, _label(base_name, shown), cfg))

    for tok in _VARIANT_TOKENIZERS:
        if tok != base.tokenize:
            if base.whitespace == "perl" and tok not in PERL_WHITESPACE_TOKENIZERS:
                add("tokenization", tokenize=tok, whitespace="unicode")
            else:
                add("tokenization", tokenize=tok)
    add("tokenization", strip="none" if base.strip == "rstrip" else "rstrip")
    if base.tokenize in PERL_WHITESPACE_TOKENIZERS:
        add("tokenization", whitespace="perl" if base.whitespace == "unicode" else "unicode")
    add("case", lowercase=not base.lowercase)
    if base.lowercase:
        for case_rule in LOWERCASE_RULES:
            if case_rule != base.lowercase_rule:
                add("case", lowercase_rule=case_rule)
    for rule in REF_LENGTHS:
        if rule != base.ref_length:
            add("ref_length", ref_length=rule)
    add("ref_length", missing_refs="empty" if base.missing_refs == "skip" else "skip")
    add("ngram_totals", ngram_totals="floor1" if base.ngram_totals == "plain" else "plain")
    current = (base.smooth, base.zero_guard, base.empty_order)
    for _, smooth, guard, empty in SMOOTHING_POLICIES:
        if (smooth, guard, empty) != current or base.smooth_value is not None:
            add("smoothing", smooth=smooth, smooth_value=None, zero_guard=guard, empty_order=empty)
    add("effective_order", effective_order=not base.effective_order)
    add(
        "aggregation",
        aggregation="sentence-mean" if base.aggregation == "corpus" else "corpus",
    )
    for n in (1, 2, 3, 4, 5):
        if n != base.max_order or base.weights is not None:
            add("order", max_order=n, weights=None)
    for policy in ON_ZERO_LENGTH:
        if policy != base.on_zero_length:
            add("zero_length", on_zero_length=policy)
    return out


def _pool() -> list[tuple[str, BleuConfig, str | None]]:
    """Profiles first (in their order), then single-factor variants of sacrebleu, each with
    the factor it changes (``None`` for a profile)."""
    pool: list[tuple[str, BleuConfig, str | None]] = [
        (name, cfg, None) for name, cfg in PROFILES.items()
    ]
    pool += [
        (name, cfg, factor)
        for factor, name, cfg in single_factor_variants(PROFILES["sacrebleu"], "sacrebleu")
        if factor != "zero_length"
    ]
    return pool


# ====================================================================== bug models
#: Deliberate mistakes outside the factor space: name → (bug class, switches). The switches
#: re-count the statistics (``clip``, ``stop``, ``stride``, ``count``) or change the brevity
#: penalty (``bp``); every other choice comes from the configuration they are applied to.
BUG_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "clip-sum": ("clipping", {"clip": "sum"}),
    "clip-none": ("clipping", {"clip": "none"}),
    "range-len-minus-n": ("ngram_extraction", {"stop": 0}),
    "stride-n": ("ngram_extraction", {"stride": True}),
    "bp-swapped": ("brevity_penalty", {"bp": "swapped"}),
    "no-bp": ("brevity_penalty", {"bp": "none"}),
    "substring-ref": ("substring_counting", {"count": "substring-ref"}),
    "substring-both": ("substring_counting", {"count": "substring-both"}),
}


@dataclass(frozen=True)
class _Model:
    """A configuration, optionally with modelled mistakes (names of :data:`BUG_MODELS`)."""

    cfg: BleuConfig
    bugs: tuple[str, ...] = ()

    @property
    def switches(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for b in self.bugs:
            out.update(BUG_MODELS[b][1])
        return out

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(BUG_MODELS[b][0] for b in self.bugs)

    def with_bug(self, name: str) -> _Model | None:
        cls, sw = BUG_MODELS[name]
        if cls in self.classes or set(sw) & set(self.switches):
            return None
        return _Model(self.cfg, (*self.bugs, name))


def _tokenizer(cfg: BleuConfig) -> Callable[[str], list[str]]:
    from harness.bleu.tokenizers import get_tokenizer

    tok = get_tokenizer(cfg.tokenize)
    return (lambda s: tok(s.lower())) if cfg.lowercase else tok


def _gram_counts(tokens: Sequence[str], n: int, stop: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + stop))


def _buggy_segment(
    h: list[str], refs: list[list[str]], order: int, sw: dict[str, Any]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(matches, totals) per order 1..``order`` counted with the mistakes ``sw``."""
    stop = sw.get("stop", 1)
    count = sw.get("count", "ngram")
    clip = sw.get("clip", "max")
    joined_h = " ".join(h)
    joined_r = [" ".join(r) for r in refs]
    correct, total = [], []
    for n in range(1, order + 1):
        ref_counts = [_gram_counts(r, n, stop) for r in refs]
        hyp_counts = _gram_counts(h, n, stop)
        if sw.get("stride"):
            grams = [tuple(h[j : j + n]) for j in range(0, len(h), n) if j + n <= len(h)]
        else:
            grams = list(hyp_counts)
        c = t = 0
        for g in grams:
            text = " ".join(g)
            k = joined_h.count(text) if count == "substring-both" else hyp_counts[g]
            if count in ("substring-ref", "substring-both"):
                per_ref = [j.count(text) for j in joined_r]
            else:
                per_ref = [rc[g] for rc in ref_counts]
            per_ref = per_ref or [0]
            if clip == "sum":
                c += min(k, sum(per_ref))
            elif clip == "none":
                c += k if max(per_ref) > 0 else 0
            else:
                c += min(k, max(per_ref))
            t += k
        correct.append(c)
        total.append(t)
    return tuple(correct), tuple(total)


_Seg = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _buggy_arithmetic(segs: Sequence[_Seg], cfg: BleuConfig, sw: dict[str, Any]) -> float:
    """The engine's arithmetic for ``cfg`` on per-segment (hyp_len, ref_lens, matches, totals)."""
    n = cfg.max_order
    avg = cfg.ref_length == "average"
    rows = []
    for h, lens, correct, total in segs:
        tot = [max(1, x) for x in total] if cfg.ngram_totals == "floor1" else list(total)
        r = choose_ref_length(h, lens, cfg.ref_length)
        rows.append((h, float(r) if avg else int(r), correct, tot))

    def one(group: Sequence[tuple[int, float, tuple[int, ...], list[int]]]) -> float:
        t = Totals(
            sys_len=sum(s[0] for s in group),
            ref_len=sum(s[1] for s in group),
            correct=tuple(sum(s[2][k] for s in group) for k in range(n)),
            total=tuple(sum(s[3][k] for s in group) for k in range(n)),
        )
        last = group[-1]
        ctx = nltk_context(t.sys_len, last[0], last[2][4])
        scored = score_totals(t, cfg, ctx)
        bp_mode = sw.get("bp")
        if bp_mode is None or scored.bp <= 0:
            return scored.score
        if bp_mode == "none":
            return scored.score / scored.bp
        c, r = t.sys_len, t.ref_len
        swapped = math.exp(1 - c / r) if 0 < c < r else 1.0
        return scored.score / scored.bp * swapped

    if cfg.aggregation == "corpus":
        return one(rows)
    return sum(one([s]) for s in rows) / len(rows)


# ====================================================================== probes
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "behaviour": self.behaviour,
            "description": self.description,
            "hypotheses": list(self.hypotheses),
            "references": [list(r) for r in self.references],
            "score": self.score,
            "expected": self.expected,
            "error": self.error,
            "ok": self.ok,
        }


_PROBES: tuple[Probe, ...] = (
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
_PROBE_PRIORITY = (
    "substring_counting",
    "clipping",
    "brevity_penalty",
    "ref_length",
    "smoothing",
    "tokenize",
    "case",
    "ngram_extraction",
)


def _features(case: Case, cfg: BleuConfig) -> set[str]:
    """The behaviours a case can exercise (used to pick among failing probes)."""
    tok = _tokenizer(cfg)
    feats = {"ngram_extraction"}
    short = False
    for hyp, refs in zip(case.hypotheses, case.references, strict=True):
        h = tok(hyp)
        rs = [tok(r) for r in refs]
        lens = [len(r) for r in rs]
        if len(set(lens)) > 1:
            feats.add("ref_length")
        if len(h) < choose_ref_length(len(h), lens, cfg.ref_length):
            short = True
        joined = [" ".join(r) for r in rs]
        for n in range(1, 5):
            hc = _gram_counts(h, n, 1)
            rcs = [_gram_counts(r, n, 1) for r in rs]
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
            if text.split() != _tokenizer(BleuConfig(tokenize="13a"))(text):
                feats.add("tokenize")
            if text != text.lower():
                feats.add("case")
    if short:
        feats.add("brevity_penalty")
    return feats


# ====================================================================== report
@dataclass(frozen=True)
class Deviation:
    """A case where the implementation and the best profile disagree, shrunk and explained.

    ``hypotheses``/``references`` are the minimal input found by shrinking; ``original``
    describes the case it came from. ``score`` is the implementation's and ``expected`` the
    best profile's on the implementation's scale (``None`` when the profile raises).
    ``factor`` is a factor name of ``FACTORS`` (a configuration differing from the best
    profile in it reproduces the case) or a bug class outside the factor space
    (``clipping``, ``ngram_extraction``, ``brevity_penalty``, ``substring_counting``, or a
    probe behaviour); ``factors`` lists every factor or bug involved; ``matched_by`` names the
    configuration or bug model that reproduces the case; ``evidence`` says how it was found.
    """

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    score: float
    expected: float | None
    factor: str
    factors: tuple[str, ...]
    matched_by: str | None
    evidence: str
    original: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "hypotheses": list(self.hypotheses),
            "references": [list(r) for r in self.references],
            "score": self.score,
            "expected": self.expected,
            "factor": self.factor,
            "factors": list(self.factors),
            "matched_by": self.matched_by,
            "evidence": self.evidence,
            "original": dict(self.original),
        }


@dataclass(frozen=True)
class Crash:
    """An input on which the implementation raised (shrunk), with the exception text."""

    source: str
    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    error: str
    count: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "hypotheses": list(self.hypotheses),
            "references": [list(r) for r in self.references],
            "error": self.error,
            "cases_with_this_exception": self.count,
        }


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate` found. Scores are on the implementation's own ``scale``.

    ``n_scored`` of ``n_cases`` cases gave a finite score; ``no_score`` lists the others as
    ``(source, "no score: …")``. Every share below is a share of the scored cases.
    ``agreement_by_profile``: share of scored cases agreeing, per profile and sacrebleu
    variant (names like ``sacrebleu+ref_length=shortest``). ``best_profile``: the named profile
    (``harness.PROFILES``) nearest to the fit; ``agreement`` its share. ``matches``: every
    configuration that agrees on every scored case. ``fit``: the configuration reached from the
    best profile by greedy single-factor changes. ``probes``: the probe battery against the
    fitted configuration. ``crash_count``: cases without a score (``crashes`` lists one
    example per kind of failure). ``precision``: the decimals the implementation rounds to
    (``None``: full precision); scores are compared within ``compared_within`` (half a unit of
    the last decimal, or ``tolerance``); ``rounding_explains``: scored cases the fit
    reproduces only at that precision. ``withheld``: why there is no diagnosis (too few scored
    cases); then ``best_profile`` and ``agreement`` are ``None`` and nothing is diagnosed.
    """

    implementation: str
    scale: str
    scale_reason: str
    n_cases: int
    n_fixture_cases: int
    seed: int
    tolerance: float
    agreement_by_profile: dict[str, float]
    best_profile: str | None
    matches: tuple[str, ...]
    matched_factors: tuple[str, ...]
    fit: dict[str, Any]
    deviations: tuple[Deviation, ...]
    crashes: tuple[Crash, ...]
    crash_count: int
    probes: tuple[Probe, ...]
    skipped: tuple[str, ...] = ()
    seconds: float = 0.0
    calls: int = 0
    n_scored: int = 0
    no_score: tuple[tuple[str, str], ...] = ()
    precision: int | None = None
    precision_reason: str = ""
    rounding_explains: int = 0
    withheld: str | None = None
    timeout: float | None = None

    @property
    def diagnosable(self) -> bool:
        """Whether enough cases gave a score for a diagnosis."""
        return self.withheld is None

    @property
    def compared_within(self) -> float:
        """The absolute difference that still counts as agreement."""
        if self.precision is None:
            return self.tolerance
        return max(self.tolerance, 0.5 * 10.0**-self.precision + 1e-9)

    @property
    def agreement(self) -> float | None:
        """The best profile's agreement (share of scored cases, 0–1); ``None`` if withheld."""
        if self.best_profile is None:
            return None
        return self.agreement_by_profile[self.best_profile]

    @property
    def diagnosed_factors(self) -> tuple[str, ...]:
        """Factors and bug classes found: the deviations' factors, the fit's changes, the
        factor of every sacrebleu variant that matches on every scored case (unless the best
        profile does too: then they are merely indistinguishable from it), and
        ``rounding`` when the printed precision explains some case. Empty when withheld."""
        if self.withheld is not None:
            return ()
        seen: list[str] = [f for d in self.deviations for f in d.factors]
        seen += list(self.fit.get("factors", ()))
        if self.agreement != 1.0:
            # when the best profile itself agrees everywhere, variants that also do are only
            # indistinguishable from it on these cases, not a finding
            seen += list(self.matched_factors)
        if self.rounding_explains:
            seen.append("rounding")
        return tuple(dict.fromkeys(seen))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "implementation": self.implementation,
            "diagnosis": self.withheld is None,
            "withheld": self.withheld,
            "scale": self.scale,
            "scale_reason": self.scale_reason,
            "best_profile": self.best_profile,
            "agreement": self.agreement,
            "n_scored": self.n_scored,
            "matches": list(self.matches),
            "matched_factors": list(self.matched_factors),
            "diagnosed_factors": list(self.diagnosed_factors),
            "precision": self.precision,
            "precision_reason": self.precision_reason,
            "compared_within": self.compared_within,
            "rounding_explains": self.rounding_explains,
            "fit": self.fit,
            "deviations": [d.to_dict() for d in self.deviations],
            "crashes": [c.to_dict() for c in self.crashes],
            "crash_count": self.crash_count,
            "no_score": [{"source": src, "verdict": v} for src, v in self.no_score],
            "agreement_by_profile": dict(self.agreement_by_profile),
            "probes": [p.to_dict() for p in self.probes],
            "n_cases": self.n_cases,
            "n_fixture_cases": self.n_fixture_cases,
            "seed": self.seed,
            "tolerance": self.tolerance,
            "timeout": self.timeout,
            "skipped": list(self.skipped),
            "seconds": self.seconds,
            "implementation_calls": self.calls,
        }

    def _precision_line(self) -> str:
        if self.precision is None:
            return (
                f"* precision: full ({self.precision_reason}); compared within {self.tolerance:g}"
            )
        line = (
            f"* precision: **{self.precision} decimal(s)** ({self.precision_reason}); compared "
            f"within half a unit of the last decimal ({self.compared_within:.3g})"
        )
        if self.withheld is None:
            line += (
                f"; rounding explains {self.rounding_explains} case(s)"
                if self.rounding_explains
                else "; rounding explains no case"
            )
        return line

    def _no_score_lines(self, limit: int = 12) -> list[str]:
        lines = ["", f"## Cases without a score ({len(self.no_score)})", ""]
        if not self.no_score:
            return [*lines, "None."]
        for src, verdict in self.no_score[:limit]:
            lines.append(f"* {src}: {verdict}")
        if len(self.no_score) > limit:
            lines.append(f"* … and {len(self.no_score) - limit} more")
        return lines

    def _crash_lines(self) -> list[str]:
        lines = ["", "## Failures (one example per kind)", ""]
        if not self.crashes:
            lines.append("None.")
        for c in self.crashes:
            lines.append(
                f"* `{c.error}` on {c.count} case(s), e.g. hypotheses `{list(c.hypotheses)}`, "
                f"references `{[list(r) for r in c.references]}`"
            )
        return lines

    def to_markdown(self) -> str:
        """A Markdown report: verdict, agreement table, fit, deviations, crashes, probes."""
        scored = f"{self.n_scored} of {self.n_cases} cases gave a score"
        source = f"{self.n_fixture_cases} from fixtures, the rest generated with seed {self.seed}"
        if self.withheld is not None:
            lines = [
                f"# Validation of `{self.implementation}`",
                "",
                f"* **no diagnosis**: {self.withheld}",
                f"* cases: {self.n_cases} ({source}); {scored}",
                f"* without a score: {self.crash_count} case(s)",
            ]
            if self.n_scored:
                lines.append(self._precision_line())
            lines += self._no_score_lines() + self._crash_lines()
            if self.skipped:
                lines += ["", "Skipped: " + "; ".join(self.skipped)]
            return "\n".join(lines) + "\n"
        agreement = self.agreement or 0.0
        mad = self.fit.get("mean_abs_diff")
        mad_text = "n/a (no scored case where it gives a number)" if mad is None else f"{mad:.4g}"
        lines = [
            f"# Validation of `{self.implementation}`",
            "",
            f"* scale: **{self.scale}** — {self.scale_reason}",
            f"* cases: {self.n_cases} ({source}; tolerance {self.tolerance:g}); {scored}",
            self._precision_line(),
            f"* best profile: **{self.best_profile}**, agreement "
            f"{100 * agreement:.1f}% of the {self.n_scored} scored cases",
            "* matches on every scored case: "
            + (", ".join(f"`{m}`" for m in self.matches) if self.matches else "none"),
            f"* diagnosed: {', '.join(self.diagnosed_factors) or 'nothing'}",
            f"* without a score: {self.crash_count} case(s)",
            "",
            "## Fitted configuration",
            "",
            f"From `{self.fit['base']}`"
            + (
                " changing "
                + ", ".join(
                    [f"{k}={v}" for k, v in self.fit["changes"].items()]
                    + [f"with the mistake {b}" for b in self.fit["bugs"]]
                )
                if self.fit["changes"] or self.fit["bugs"]
                else " (no change improves the agreement)"
            )
            + f": agreement {100 * self.fit['agreement']:.1f}% of the {self.n_scored} scored "
            f"cases, mean |difference| {mad_text}.",
            "",
            "## Agreement per configuration (share of scored cases)",
            "",
            "| configuration | agreement |",
            "| --- | ---: |",
        ]
        ranked = sorted(self.agreement_by_profile.items(), key=lambda kv: -kv[1])
        for name, share in ranked[:15]:
            lines.append(f"| `{name}` | {100 * share:.1f}% |")
        lines += ["", "## Deviations from the best profile (shrunk)", ""]
        if not self.deviations:
            lines.append("None.")
        for i, d in enumerate(self.deviations, 1):
            exp = "raises" if d.expected is None else f"{d.expected:.6g}"
            lines += [
                f"{i}. **{d.factor}** ({d.source}): implementation {d.score:.6g}, "
                f"{self.best_profile} {exp}. {d.evidence}",
                f"   hypotheses `{list(d.hypotheses)}`, references "
                f"`{[list(r) for r in d.references]}`",
            ]
        lines += self._crash_lines() + self._no_score_lines()
        lines += [
            "",
            "## Probes (against the fitted configuration, without modelled mistakes)",
            "",
            "| behaviour | probe | implementation | expected | ok |",
            "| --- | --- | ---: | ---: | :---: |",
        ]
        for p in self.probes:
            got = f"no score: {p.error}" if p.score is None else f"{p.score:.6g}"
            exp = "raises" if p.expected is None else f"{p.expected:.6g}"
            lines.append(
                f"| {p.behaviour} | {p.description} | {got} | {exp} | {'✓' if p.ok else '✗'} |"
            )
        if self.skipped:
            lines += ["", "Skipped: " + "; ".join(self.skipped)]
        return "\n".join(lines) + "\n"


# ====================================================================== the validator
class _Validator:
    """Scores cases under configurations and modelled mistakes, with caches."""

    def __init__(self, subject: _Subject, tolerance: float, shrink_budget: int) -> None:
        self.subject = subject
        self.tolerance = tolerance
        self.shrink_budget = shrink_budget
        self.factor = 1.0  # engine 0-100 → the implementation's scale
        self._scorers: dict[tuple[Any, ...], CorpusScorer] = {}
        self._bug_stats: dict[tuple[Any, ...], list[_Seg]] = {}

    # ---------------------------------------------------------------- engine side
    def scorer(self, case: Case) -> CorpusScorer:
        key = (case.hypotheses, case.references)
        s = self._scorers.get(key)
        if s is None:
            if len(self._scorers) > 5000:
                self._scorers.clear()
            s = self._scorers[key] = CorpusScorer(case.corpus())
        return s

    def bug_segments(self, case: Case, cfg: BleuConfig, sw: dict[str, Any]) -> list[_Seg]:
        key = (
            case.hypotheses,
            case.references,
            cfg.tokenize,
            cfg.lowercase,
            tuple(sorted(sw.items())),
        )
        got = self._bug_stats.get(key)
        if got is None:
            if len(self._bug_stats) > 20000:
                self._bug_stats.clear()
            tok = _tokenizer(cfg)
            order = max(5, cfg.max_order)
            got = []
            for hyp, refs in zip(case.hypotheses, case.references, strict=True):
                h = tok(hyp)
                rs = [tok(r) for r in refs]
                correct, total = _buggy_segment(h, rs, order, sw)
                got.append((len(h), tuple(len(r) for r in rs), correct, total))
            self._bug_stats[key] = got
        return got

    def expected(self, case: Case, model: BleuConfig | _Model) -> float | None:
        """The score of ``model`` on ``case`` on the implementation's scale (None: raises)."""
        if isinstance(model, _Model) and model.bugs:
            sw = model.switches
            try:
                segs = self.bug_segments(case, model.cfg, sw)
                return _buggy_arithmetic(segs, model.cfg, sw) * self.factor
            except (LibraryWouldRaise, ZeroDivisionError, ValueError, OverflowError):
                return None
        cfg = model.cfg if isinstance(model, _Model) else model
        value = self.scorer(case).try_score(cfg)
        return None if value is None else value * self.factor

    def agrees(self, value: float | None, expected: float | None) -> bool:
        if value is None or expected is None:
            return value is None and expected is None
        if math.isnan(value) or math.isnan(expected):
            return False
        return abs(value - expected) <= self.tolerance + 1e-9 * abs(expected)

    def agreement(
        self,
        cases: Sequence[Case],
        outs: Sequence[_Outcome],
        model: BleuConfig | _Model,
        max_fail: int | None = None,
    ) -> tuple[float, float]:
        """(share of cases agreeing, mean |difference| where both give a number).

        With ``max_fail``, gives up with ``(-1.0, inf)`` as soon as more cases fail.
        """
        fails = 0
        diffs = []
        for case, out in zip(cases, outs, strict=True):
            e = self.expected(case, model)
            if not self.agrees(out.value, e):
                fails += 1
                if max_fail is not None and fails > max_fail:
                    return -1.0, math.inf
            if out.value is not None and e is not None and math.isfinite(out.value):
                diffs.append(abs(out.value - e))
        mae = sum(diffs) / len(diffs) if diffs else math.inf
        return 1.0 - fails / len(cases), mae

    # ---------------------------------------------------------------- shrinking
    def shrink(self, case: Case, keep: Callable[[Case], bool]) -> Case:
        """Greedily remove segments, references and tokens while ``keep`` holds."""
        budget = [self.shrink_budget]

        def attempt(c: Case) -> bool:
            if budget[0] <= 0:
                return False
            budget[0] -= 1
            try:
                return keep(c)
            except Exception:
                return False

        cur = case
        changed = True
        while changed and budget[0] > 0:
            changed = False
            i = 0
            while len(cur.hypotheses) > 1 and i < len(cur.hypotheses):
                cand = Case(
                    cur.source,
                    cur.hypotheses[:i] + cur.hypotheses[i + 1 :],
                    cur.references[:i] + cur.references[i + 1 :],
                )
                if attempt(cand):
                    cur, changed = cand, True
                else:
                    i += 1
            if self.subject.rectangular:  # a whole reference stream at once
                k = 0
                while len(cur.references[0]) > 1 and k < len(cur.references[0]):
                    refs = tuple(r[:k] + r[k + 1 :] for r in cur.references)
                    cand = Case(cur.source, cur.hypotheses, refs)
                    if attempt(cand):
                        cur, changed = cand, True
                    else:
                        k += 1
            else:
                for i in range(len(cur.references)):
                    k = 0
                    while len(cur.references[i]) > 1 and k < len(cur.references[i]):
                        seg = cur.references[i][:k] + cur.references[i][k + 1 :]
                        refs = (*cur.references[:i], seg, *cur.references[i + 1 :])
                        cand = Case(cur.source, cur.hypotheses, refs)
                        if attempt(cand):
                            cur, changed = cand, True
                        else:
                            k += 1
            for where in _texts(cur):
                cur, did = _shrink_text(cur, where, attempt)
                changed = changed or did
        return cur


def _texts(case: Case) -> list[tuple[int, int]]:
    out = [(i, -1) for i in range(len(case.hypotheses))]
    out += [(i, k) for i, refs in enumerate(case.references) for k in range(len(refs))]
    return out


def _replace(case: Case, where: tuple[int, int], text: str) -> Case:
    i, k = where
    if k < 0:
        hyps = (*case.hypotheses[:i], text, *case.hypotheses[i + 1 :])
        return Case(case.source, hyps, case.references)
    seg = (*case.references[i][:k], text, *case.references[i][k + 1 :])
    refs = (*case.references[:i], seg, *case.references[i + 1 :])
    return Case(case.source, case.hypotheses, refs)


def _shrink_text(
    case: Case, where: tuple[int, int], attempt: Callable[[Case], bool]
) -> tuple[Case, bool]:
    """Normalise the whitespace of one text, then drop its tokens one at a time."""
    i, k = where
    text = case.hypotheses[i] if k < 0 else case.references[i][k]
    changed = False
    norm = " ".join(text.split())
    if norm != text:
        cand = _replace(case, where, norm)
        if attempt(cand):
            case, text, changed = cand, norm, True
    toks = text.split()
    j = 0
    while j < len(toks):
        trial = toks[:j] + toks[j + 1 :]
        cand = _replace(case, where, " ".join(trial))
        if attempt(cand):
            case, toks, changed = cand, trial, True
        else:
            j += 1
    return case, changed


def _detect_scale(
    subject: _Subject, val: _Validator, cases: Sequence[Case], outs: Sequence[_Outcome]
) -> tuple[str, str]:
    perfect = Case(
        "scale-probe",
        ("the cat sat on the mat today", "a dog ran in the big park"),
        (("the cat sat on the mat today",), ("a dog ran in the big park",)),
    )
    out = _run(subject, perfect)
    if out.value is not None and abs(out.value - 1.0) <= 1e-6:
        return "0-1", "a perfect match (hypotheses identical to their references) scores 1.0"
    if out.value is not None and abs(out.value - 100.0) <= 1e-4:
        return "0-100", "a perfect match (hypotheses identical to their references) scores 100"
    got = out.error if out.value is None else f"{out.value:g}"
    best = ("0-100", -1.0)
    for scale, factor in (("0-1", 0.01), ("0-100", 1.0)):
        val.factor = factor
        share = max(val.agreement(cases, outs, cfg)[0] for cfg in PROFILES.values())
        if share > best[1]:
            best = (scale, share)
    top = max((o.value for o in outs if o.value is not None), default=None)
    return best[0], (
        f"a perfect match scores {got} (neither 1 nor 100); on {best[0]} more cases agree "
        f"with some profile ({100 * best[1]:.0f}%); the largest score seen is {top}"
    )


#: A diagnosis needs at least this many cases with a finite score …
MIN_SCORED = 5
#: … and at least this share of all cases; otherwise :func:`validate` withholds it.
MIN_SCORED_SHARE = 0.5
#: A subject whose scores never have more decimals than this is taken to round to that many.
MAX_ROUNDED_DECIMALS = 8


class CouldNotValidate(HarnessError):
    """The implementation could not be validated at all (e.g. it timed out on its first call).

    The CLI exits with status 3 on it (2 stays for usage and input errors)."""


def _detect_precision(outs: Sequence[_Outcome]) -> tuple[int | None, str]:
    """The number of decimals the implementation gives its scores with (``None``: full
    precision): the most decimals of any scored case, when that is at most
    :data:`MAX_ROUNDED_DECIMALS`."""
    decs = [o.decimals for o in outs if o.value is not None and o.decimals is not None]
    if not decs:
        return None, "no case gave a score"
    d = max(decs)
    if d > MAX_ROUNDED_DECIMALS:
        return None, f"full precision (up to {d} decimals)"
    exact = sum(1 for x in decs if x == d)
    if exact == len(decs):
        return d, f"all {len(decs)} scores have exactly {d} decimal(s)"
    return d, (
        f"none of {len(decs)} scores has more than {d} decimal(s) ({exact} have exactly {d}; "
        "the others end in zeros that are not printed)"
    )


def _withheld_reason(n_scored: int, n_cases: int) -> str | None:
    need = max(MIN_SCORED, math.ceil(MIN_SCORED_SHARE * n_cases))
    if n_scored >= need:
        return None
    return (
        f"only {n_scored} of {n_cases} cases gave a finite score; a diagnosis needs at least "
        f"{need} (at least {MIN_SCORED} and at least {MIN_SCORED_SHARE:.0%} of the cases), so "
        "none is given"
    )


def validate(
    impl: Impl | str | None = None,
    *,
    cmd: str | None = None,
    cases: int = 300,
    seed: int = 0,
    tolerance: float = 1e-6,
    max_deviations: int = 8,
    fixtures: bool = True,
    against: str | None = None,
    shrink_budget: int | None = None,
    timeout: float | None = None,
    progress: ProgressCallback | None = None,
) -> ValidationReport:
    """Validate ``impl`` (or the shell command ``cmd``) against the profiles.

    ``impl(hypotheses, references)`` takes a list of strings and per-segment reference lists
    and returns a number (or an object with a ``score``); ``"module:function"`` is imported.
    ``cmd`` is a :class:`~harness.scorers.command.CommandAdapter` template such as
    ``"perl multi-bleu.perl {ref} < {hyp}"`` whose printed number is read as is (generated
    corpora then have the same number of references in every segment, and ragged fixtures are
    skipped); each call may take ``timeout`` seconds (default :data:`DEFAULT_TIMEOUT`) and
    then has its process group killed. ``cases`` generated corpora (seeded by ``seed``) are
    added to every fixture's systems (``fixtures=False`` leaves those out). ``tolerance`` is
    absolute, on the implementation's scale; when the implementation rounds (its scores never
    have more than ``d`` decimals, ``d`` ≤ :data:`MAX_ROUNDED_DECIMALS`) the comparison
    tolerance is half a unit of the ``d``-th decimal (plus float slack), and ``rounding`` is
    diagnosed when that explains cases the raw tolerance does not. ``against`` names the
    profile the implementation means to reproduce (default: the profile nearest to the fitted
    configuration). At most ``max_deviations`` deviations are explained (two per factor, to
    show variety); ``shrink_budget`` caps the implementation calls per shrink (default 300, 60
    for a command).

    A case on which the implementation gives no finite score in [0, 100] (it raises, exits
    non-zero, times out, prints nothing readable, returns None, a string, NaN or ±inf) has the
    verdict ``"no score: …"`` and takes no part in agreements and differences, which are
    shares of the *scored* cases. With fewer than :data:`MIN_SCORED` scored cases or fewer
    than :data:`MIN_SCORED_SHARE` of all cases, the report has no diagnosis
    (``withheld`` says why). A command that times out on its first call raises
    :class:`CouldNotValidate`. ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each case run (stage
    ``"validate: cases"``) and each later step (``"validate: analysis"``).
    """
    t0 = time.perf_counter()
    subject = _Subject(impl, cmd, timeout if cmd is not None else None)
    if against is not None and against not in PROFILES:
        raise ConfigError(f"unknown profile {against!r}", valid=list(PROFILES))
    budget = shrink_budget if shrink_budget is not None else (60 if cmd is not None else 300)
    val = _Validator(subject, tolerance, budget)
    battery, skipped = (
        _fixture_cases(subject.rectangular, subject.streams) if fixtures else ([], [])
    )
    n_fixture = len(battery)
    battery = battery + generate_cases(
        cases, seed=seed, rectangular=subject.rectangular, streams=subject.streams
    )
    if not battery:
        raise ConfigError("nothing to validate on: no fixtures and cases=0")
    outs: list[_Outcome] = []
    for c in track(battery, progress, "validate: cases"):
        out = _run(subject, c)
        if not outs and out.exc_type == "CommandTimeout":
            raise CouldNotValidate(
                f"the command timed out on its first call ({subject.timeout:g} s per call; "
                f"raise --timeout if it is just slow); nothing was validated: {out.error}"
            )
        outs.append(out)
    no_score = tuple(
        (c.source, o.verdict) for c, o in zip(battery, outs, strict=True) if o.value is None
    )
    crash_count = len(no_score)
    scored = [(c, o) for c, o in zip(battery, outs, strict=True) if o.value is not None]
    s_cases = [c for c, _ in scored]
    s_outs = [o for _, o in scored]
    withheld = _withheld_reason(len(scored), len(battery))
    precision, precision_reason = _detect_precision(s_outs)
    common: dict[str, Any] = {
        "implementation": subject.name,
        "n_cases": len(battery),
        "n_fixture_cases": n_fixture,
        "seed": seed,
        "tolerance": tolerance,
        "n_scored": len(scored),
        "no_score": no_score,
        "precision": precision,
        "precision_reason": precision_reason,
        "timeout": subject.timeout if cmd is not None else None,
        "skipped": tuple(skipped),
    }
    if withheld is not None:
        crashes = _crashes(val, subject, battery, outs, shrink=False)
        return ValidationReport(
            scale="unknown",
            scale_reason="not detected: " + withheld,
            agreement_by_profile={},
            best_profile=None,
            matches=(),
            matched_factors=(),
            fit={},
            deviations=(),
            crashes=tuple(crashes),
            crash_count=crash_count,
            probes=(),
            withheld=withheld,
            seconds=time.perf_counter() - t0,
            calls=subject.calls,
            **common,
        )
    step = (lambda d: progress("validate: analysis", d, 4)) if progress else (lambda d: None)
    step(0)

    if precision is not None:
        val.tolerance = max(tolerance, 0.5 * 10.0**-precision + 1e-9)
    scale, reason = _detect_scale(subject, val, s_cases, s_outs)
    val.factor = 0.01 if scale == "0-1" else 1.0

    pool = _pool()
    scores = {name: val.agreement(s_cases, s_outs, cfg) for name, cfg, _ in pool}
    agreement = {name: s[0] for name, s in scores.items()}
    matches = tuple(name for name, _, _ in pool if agreement[name] == 1.0)
    matched_factors = tuple(
        dict.fromkeys(f for name, _, f in pool if f is not None and agreement[name] == 1.0)
    )
    start = against or max(PROFILES, key=lambda n: (agreement[n], -scores[n][1]))
    step(1)
    fit_model, fit_score = _fit(val, s_cases, s_outs, PROFILES[start], scores[start])
    step(2)
    if against is not None:
        best_profile = against
    else:
        # the profile nearest to what the implementation computes (ties: higher agreement)
        best_profile = min(
            PROFILES,
            key=lambda n: (
                len(
                    [f for f in differing_factors(PROFILES[n], fit_model.cfg) if f != "zero_length"]
                ),
                -agreement[n],
                scores[n][1],
            ),
        )
    best_cfg = PROFILES[best_profile]
    fit = _fit_summary(best_profile, best_cfg, fit_model, fit_score)
    rounding = 0
    if val.tolerance > tolerance:
        # cases the fit reproduces only thanks to the printed precision
        at_precision = val.tolerance
        for c, o in scored:
            e = val.expected(c, fit_model)
            if val.agrees(o.value, e):
                val.tolerance = tolerance
                rounding += not val.agrees(o.value, e)
                val.tolerance = at_precision

    probes = _run_probes(subject, val, fit_model.cfg)
    failing_probes = {p.behaviour for p in probes if not p.ok}
    step(3)
    classifier = _Classifier(val, best_profile, best_cfg, fit_model, pool, failing_probes)
    deviations = _deviations(val, classifier, s_cases, s_outs, best_cfg, max_deviations)
    crashes = _crashes(val, subject, battery, outs)
    step(4)

    return ValidationReport(
        scale=scale,
        scale_reason=reason,
        agreement_by_profile=agreement,
        best_profile=best_profile,
        matches=matches,
        matched_factors=matched_factors,
        fit=fit,
        deviations=tuple(deviations),
        crashes=tuple(crashes),
        crash_count=crash_count,
        probes=probes,
        rounding_explains=rounding,
        seconds=time.perf_counter() - t0,
        calls=subject.calls,
        **common,
    )


# ====================================================================== fitting
def _fit(
    val: _Validator,
    cases: Sequence[Case],
    outs: Sequence[_Outcome],
    start: BleuConfig,
    start_score: tuple[float, float],
    rounds: int = 6,
) -> tuple[_Model, tuple[float, float]]:
    """Greedy: from ``start``, take the single-factor change or modelled mistake that agrees
    with the most cases (ties: smallest mean |difference|) while it helps; then drop every
    change whose removal loses nothing."""

    def better(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return a[0] > b[0] + 1e-12 or (abs(a[0] - b[0]) <= 1e-12 and a[1] < b[1] - 1e-9)

    n = len(cases)

    def fails(score: tuple[float, float]) -> int:
        return round((1.0 - score[0]) * n)

    cur, cur_score = _Model(start), start_score
    for _ in range(rounds):
        if cur_score[0] >= 1.0:
            break
        # modelled mistakes first: one of them often explains everything at once
        moves = [m for m in (cur.with_bug(b) for b in BUG_MODELS) if m is not None]
        moves += [_Model(cfg, cur.bugs) for _, _, cfg in single_factor_variants(cur.cfg)]
        # try the moves that do best on a sample first, so that the bound prunes the rest
        sample = max(1, min(n, 40))
        moves.sort(
            key=lambda m: -val.agreement(cases[:sample], outs[:sample], m)[0],
        )
        best = None
        bound = fails(cur_score)
        for m in moves:
            s = val.agreement(cases, outs, m, max_fail=bound)
            if s[0] < 0:
                continue
            if best is None or better(s, best[1]):
                best = (m, s)
                bound = fails(s)
        if best is None or not better(best[1], cur_score):
            break
        cur, cur_score = best
    # prune: revert changes that do not pay for themselves
    changed = True
    while changed:
        changed = False
        reverts = []
        for factor in differing_factors(start, cur.cfg):
            fields = {f: getattr(start, f) for f in FACTORS[factor]}
            reverts.append(_Model(cur.cfg.replace(**fields), cur.bugs))
        for b in cur.bugs:
            reverts.append(_Model(cur.cfg, tuple(x for x in cur.bugs if x != b)))
        for m in reverts:
            s = val.agreement(cases, outs, m, max_fail=fails(cur_score))
            if s[0] >= cur_score[0] - 1e-12 and s[1] <= cur_score[1] + 1e-9:
                cur, cur_score, changed = m, s, True
                break
    return cur, cur_score


_FIELDS = (
    "tokenize",
    "lowercase",
    "max_order",
    "weights",
    "ref_length",
    "ngram_totals",
    "smooth",
    "smooth_value",
    "zero_guard",
    "empty_order",
    "effective_order",
    "aggregation",
    "on_zero_length",
)


def _fit_summary(
    base_name: str, base: BleuConfig, model: _Model, score: tuple[float, float]
) -> dict[str, Any]:
    changes = {
        f: getattr(model.cfg, f) for f in _FIELDS if getattr(model.cfg, f) != getattr(base, f)
    }
    factors = [f for f in differing_factors(base, model.cfg) if f != "zero_length"]
    return {
        "base": base_name,
        "changes": changes,
        "bugs": list(model.bugs),
        "factors": factors + [c for c in model.classes if c not in factors],
        "agreement": score[0],
        "mean_abs_diff": score[1] if math.isfinite(score[1]) else None,
        "signature": model.cfg.signature(),
    }


def _run_probes(subject: _Subject, val: _Validator, cfg: BleuConfig) -> tuple[Probe, ...]:
    out = []
    for p in _PROBES:
        case = Case("probe", p.hypotheses, p.references)
        got = _run(subject, case)
        exp = val.expected(case, cfg)
        out.append(
            Probe(
                p.behaviour,
                p.description,
                p.hypotheses,
                p.references,
                score=got.value,
                expected=exp,
                error=got.error,
                ok=val.agrees(got.value, exp),
            )
        )
    return tuple(out)


# ====================================================================== explaining
@dataclass
class _Explanation:
    factor: str
    factors: tuple[str, ...]
    matched_by: str | None
    evidence: str
    model: BleuConfig | _Model | None  # what reproduces the case (None: a probe)


class _Classifier:
    def __init__(
        self,
        val: _Validator,
        best_name: str,
        best: BleuConfig,
        fit: _Model,
        pool: Sequence[tuple[str, BleuConfig, str | None]],
        failing_probes: set[str],
    ) -> None:
        self.val = val
        self.best_name = best_name
        self.best = best
        self.fit = fit
        self.variants = single_factor_variants(best, best_name)
        self.fit_factors = differing_factors(best, fit.cfg)
        self.others = [(n, c) for n, c, _ in pool if c != best]
        self.failing_probes = failing_probes
        # modelled mistakes: the fit's own mistakes one at a time, then all of them, then
        # every mistake and pair of mistakes on the best profile and on the fitted configuration
        tries: list[tuple[str, _Model]] = []
        if fit.bugs:
            tries += [("best profile", _Model(best, (b,))) for b in fit.bugs]
            if fit.cfg != best:
                tries += [("fitted configuration", _Model(fit.cfg, (b,))) for b in fit.bugs]
            tries.append(("best profile", _Model(best, fit.bugs)))
            tries.append(("fitted configuration", fit))
        bases = [("best profile", _Model(best))]
        if fit.cfg != best:
            bases.append(("fitted configuration", _Model(fit.cfg)))
        names = list(BUG_MODELS)
        for label, base in bases:
            for b in names:
                m = base.with_bug(b)
                if m is not None:
                    tries.append((label, m))
        for label, base in bases:
            for i, b1 in enumerate(names):
                for b2 in names[i + 1 :]:
                    m1 = base.with_bug(b1)
                    m = m1.with_bug(b2) if m1 is not None else None
                    if m is not None:
                        tries.append((label, m))
        seen: set[tuple[Any, ...]] = set()
        self.bug_tries = []
        for label, m in tries:
            key = (m.cfg, tuple(sorted(m.bugs)))
            if key not in seen:
                seen.add(key)
                self.bug_tries.append((label, m))

    def explain(self, case: Case, value: float) -> _Explanation:
        """Why ``value`` (the implementation's score on ``case``) differs from the best profile.

        In order: (1) a single-factor variant of the best profile in a factor the fit changed
        (a systematic difference); (2) modelled mistakes on the best profile or the fit;
        (3) the fit itself; (4) any other configuration, nearest to the best profile first
        (a difference that shows on this input only); (5) a failing probe whose behaviour the
        input exercises.
        """
        val = self.val
        hits = [(f, n, c) for f, n, c in self.variants if val.agrees(value, val.expected(case, c))]
        systematic = [h for h in hits if h[0] in self.fit_factors]
        if systematic:
            return self._config_hit(systematic, hits)
        for label, m in self.bug_tries:
            if val.agrees(value, val.expected(case, m)):
                classes = tuple(dict.fromkeys(m.classes))
                extra = [f for f in differing_factors(self.best, m.cfg) if f != "zero_length"]
                return _Explanation(
                    classes[0],
                    classes + tuple(extra),
                    "+".join(m.bugs),
                    f"no configuration of the fitted kind reproduces it; the {label}'s "
                    f"arithmetic with the mistake(s) {', '.join(m.bugs)} does",
                    m,
                )
        if val.agrees(value, val.expected(case, self.fit)) and self.fit.cfg != self.best:
            facs = tuple(
                f for f in differing_factors(self.best, self.fit.cfg) if f != "zero_length"
            )
            return _Explanation(
                facs[0], facs, "fit", "the fitted configuration reproduces it", self.fit
            )
        if hits:
            return self._config_hit(hits, hits)
        near = [
            (len(differing_factors(self.best, c)), n, c)
            for n, c in self.others
            if val.agrees(value, val.expected(case, c))
        ]
        if near:
            near.sort(key=lambda x: x[0])
            _, name, cfg = near[0]
            facs = tuple(differing_factors(self.best, cfg))
            return _Explanation(
                "+".join(facs),
                facs,
                name,
                f"`{name}` reproduces it (differs from {self.best_name} in {', '.join(facs)})",
                cfg,
            )
        feats = _features(case, self.fit.cfg)
        for behaviour in _PROBE_PRIORITY:
            if behaviour in self.failing_probes and behaviour in feats:
                return _Explanation(
                    behaviour,
                    (behaviour,),
                    None,
                    f"no configuration or modelled mistake reproduces it; the '{behaviour}' "
                    "probe fails and this input exercises it",
                    None,
                )
        return _Explanation(
            "unexplained", (), None, "nothing reproduces it and no probe points to it", None
        )

    def _config_hit(
        self,
        chosen: list[tuple[str, str, BleuConfig]],
        hits: list[tuple[str, str, BleuConfig]],
    ) -> _Explanation:
        order = list(FACTORS)
        chosen = sorted(chosen, key=lambda h: order.index(h[0]))
        factor, name, cfg = chosen[0]
        factors = tuple(dict.fromkeys(h[0] for h in chosen))
        others = sorted({h[0] for h in hits} - set(factors), key=order.index)
        evidence = f"`{name}` reproduces it"
        if len(factors) > 1:
            evidence += f" (so do changes of {', '.join(factors[1:])})"
        if others:
            evidence += f"; on this input so do changes of {', '.join(others)}"
        return _Explanation(factor, factors, name, evidence, cfg)


def _deviations(
    val: _Validator,
    classifier: _Classifier,
    cases: Sequence[Case],
    outs: Sequence[_Outcome],
    best: BleuConfig,
    max_deviations: int,
    per_factor: int = 2,
    max_examined: int = 40,
) -> list[Deviation]:
    found: list[Deviation] = []
    per: Counter[str] = Counter()
    examined = 0
    for case, out in zip(cases, outs, strict=True):
        if len(found) >= max_deviations or examined >= max_examined:
            break
        if out.value is None:
            continue
        exp = val.expected(case, best)
        if val.agrees(out.value, exp):
            continue
        examined += 1
        first = classifier.explain(case, out.value)
        if per[first.factor] >= per_factor:
            continue

        def keep(c: Case, first: _Explanation = first, raises: bool = exp is None) -> bool:
            # the same disagreement, with the same explanation
            got = _run(val.subject, c)
            if got.value is None:
                return False
            e = val.expected(c, best)
            if val.agrees(got.value, e) or (e is None) != raises:
                return False
            if first.model is not None:
                return val.agrees(got.value, val.expected(c, first.model))
            return classifier.explain(c, got.value).factor == first.factor

        small = val.shrink(case, keep)
        got = _run(val.subject, small)
        if got.value is None:
            small, value = case, out.value
        else:
            value = got.value
        if any(
            d.hypotheses == small.hypotheses and d.references == small.references for d in found
        ):
            continue
        why = classifier.explain(small, value)
        if per[why.factor] >= per_factor:
            continue
        per[why.factor] += 1
        found.append(
            Deviation(
                source=case.source,
                hypotheses=small.hypotheses,
                references=small.references,
                score=value,
                expected=val.expected(small, best),
                factor=why.factor,
                factors=why.factors,
                matched_by=why.matched_by,
                evidence=why.evidence,
                original={"segments": len(case.hypotheses), "tokens": case.n_tokens},
            )
        )
    return found


def _crashes(
    val: _Validator,
    subject: _Subject,
    cases: Sequence[Case],
    outs: Sequence[_Outcome],
    shrink: bool = True,
) -> list[Crash]:
    """One example per kind of failure, shrunk (``shrink=False``, or a timeout: the smallest
    case as it is)."""
    by_type: dict[str, list[tuple[Case, _Outcome]]] = {}
    for case, out in zip(cases, outs, strict=True):
        if out.value is None:
            by_type.setdefault(out.exc_type or "", []).append((case, out))
    crashes = []
    for exc_type, items in by_type.items():
        case, out = min(items, key=lambda x: (len(x[0].hypotheses), x[0].n_tokens))

        def keep(c: Case, exc_type: str = exc_type) -> bool:
            return _run(subject, c).exc_type == exc_type

        small, error = case, out.error
        if shrink and exc_type != "CommandTimeout":
            small = val.shrink(case, keep)
            error = _run(subject, small).error or error
        crashes.append(
            Crash(
                source=case.source,
                hypotheses=small.hypotheses,
                references=small.references,
                error=error or exc_type,
                count=len(items),
            )
        )
    return crashes
