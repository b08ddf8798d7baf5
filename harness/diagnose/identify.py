"""Identify: which BLEU configuration printed this number?

Given a score ``X`` that someone printed (a paper, a blog, a log file) and the corpus it was
computed on, :func:`identify` searches the factor space of
:class:`~harness.bleu.config.BleuConfig` — tokenizer × case × reference length × smoothing
(sacrebleu's, nltk's method0–7, the +1 and epsilon variants) × effective order × n-gram totals
× aggregation × max order — together with the ways the number may have been *reported* or
*misused*:

* **layout misuse**: the corpus sacrebleu actually scores when per-segment reference lists are
  passed as reference streams (``zip`` transposes and truncates, sacrebleu#220/#272/#275, seed
  ``001_4d9c0f31bc4f1899.txt``), when a flat list of reference strings is passed (each string
  becomes a stream of characters), and when sacrebleu streams are passed to a per-segment
  library (possible silently only when there are as many streams as segments);
* **scale**: 0–1 or 0–100;
* **rounding**: none, 2 decimals, 4 decimals, 3 significant digits.

Every configuration whose displayed score is within ``tolerance`` of ``X`` is a
:class:`Candidate`, sorted by distance, then by how far the configuration is from the nearest
named profile. The default tolerance is half a unit in the last digit of ``X`` as printed
(``0.27`` → 0.005): a printed number says no more than its digits. :func:`nearest` returns the
closest configurations when nothing matches.

Speed: statistics are counted once per (layout, tokenizer, case) by a
:class:`~harness.session.Session` (``session=`` shares its cache, on disk too, and its
workers); identical statistics (``intl`` and ``13a`` on
plain English, say) are scored once and the alternatives are listed in
``Candidate.equivalent``; every configuration is then pure arithmetic on cached corpus sums
(:class:`CorpusScorer`, which :mod:`harness.diagnose.validate` shares).

>>> from harness.data.fixtures import load_fixture
>>> found = identify(0.27, load_fixture("google_nasa_opportunity").corpus("candidate_2"))
>>> best = found[0]
>>> best.scale, best.rounding, best.shown
('0-1', '2 decimals', 0.27)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.bleu import engine
from harness.bleu.arithmetic import NltkContext, bleu_rows, nltk_context
from harness.bleu.config import REF_LENGTHS, TOKENIZERS, BleuConfig
from harness.bleu.stats import ref_length_of
from harness.bleu.tokenizers import TextRules, get_tokenizer
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import (
    ROUNDINGS,
    SCALES,
    Candidate,
    closest_profile,
    default_tolerance,
    rounded,
)
from harness.errors import ConfigError, HarnessError, LibraryWouldRaise
from harness.progress import ProgressCallback, track
from harness.session import Session

__all__ = [
    "LAYOUTS",
    "ROUNDINGS",
    "SCALES",
    "SMOOTHING_POLICIES",
    "Candidate",
    "CorpusScorer",
    "closest_profile",
    "default_tolerance",
    "identify",
    "misused_corpora",
    "nearest",
]

#: The reference layouts tried: the correct one and three silent misuses.
LAYOUTS: tuple[str, ...] = (
    "per-segment",
    "per-segment-as-streams",
    "flat-list",
    "streams-as-per-segment",
)

#: Zero-count policies tried: (label, smooth, zero_guard, empty_order). Each names the
#: library that uses it; ``smooth_value`` is the method's default.
SMOOTHING_POLICIES: tuple[tuple[str, str, str, str], ...] = (
    ("exp", "exp", "unigram", "zero"),  # sacrebleu default
    ("none", "none", "unigram", "zero"),  # sacrebleu smooth_method="none"
    ("none/no-guard", "none", "none", "zero"),  # evaluate, bleuscore, multi-bleu
    ("none/any-order", "none", "any-order", "zero"),  # torchmetrics
    ("floor", "floor", "unigram", "zero"),  # sacrebleu smooth_method="floor"
    ("add-k", "add-k", "unigram", "zero"),  # sacrebleu smooth_method="add-k"
    ("exp/mteval", "exp", "none", "one"),  # mteval-v13a
    ("plus-one", "plus-one", "none", "zero"),  # evaluate smooth=True (tensorflow-nmt)
    ("plus-one-high", "plus-one-high", "any-order", "zero"),  # torchmetrics smooth=True
    ("coco-epsilon", "coco-epsilon", "none", "zero"),  # pycocoevalcap
    *((f"nltk-method{i}", f"nltk-method{i}", "unigram", "zero") for i in range(8)),
)
_EFFECTIVE_ORDER_SMOOTHINGS = ("exp", "none", "floor", "add-k")
_MAX_ORDERS = (4, 3, 2, 1)


# ====================================================================== fast scoring
@dataclass(frozen=True, eq=False)
class _Light:
    """Statistics of one tokenization: hypothesis lengths ``(S,)``, reference lengths
    ``(S, K)`` (-1 pads ragged rows) and matched n-grams ``(S, order)``, int64."""

    hyp_len: np.ndarray
    ref_lens: np.ndarray
    matches: np.ndarray
    order: int

    def fingerprint(self) -> tuple[Any, ...]:
        return (
            self.ref_lens.shape,
            self.matches.shape,
            self.hyp_len.tobytes(),
            self.ref_lens.tobytes(),
            self.matches.tobytes(),
        )


#: The factors that only build a configuration's rows of statistics (which reference length,
#: which n-gram totals, padded references; the arithmetic reads none of them), with the values
#: :meth:`CorpusScorer.scores` groups configurations under.
_ROW_STANDARD = {"ref_length": "closest", "ngram_totals": "plain", "missing_refs": "skip"}


def _totals_key(kind: str, cfg: BleuConfig) -> tuple[Any, ...]:
    """What a cached set of totals depends on: the text rules and the length and total rules."""
    return (kind, cfg.text_rules, cfg.missing_refs, cfg.ref_length, cfg.ngram_totals, cfg.max_order)


#: One row per segment, or one for the corpus: (sys_len, ref_len, correct, total).
Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class CorpusScorer:
    """Engine scores of one corpus under many configurations, from cached statistics.

    Statistics are counted once per (tokenizer, case) by ``session`` (default: a new in-memory
    :class:`~harness.session.Session`); the rows of statistics once per (tokenization,
    reference length rule, n-gram total rule, order); a configuration is then only the
    arithmetic of :func:`harness.bleu.arithmetic.bleu_rows`, and :meth:`scores` scores
    configurations that differ only in how their rows are built in one call. :meth:`score`
    equals ``engine.score_statistics(engine.compute_statistics(corpus, config), config).score``
    (0–100) and raises :class:`~harness.errors.LibraryWouldRaise` where it does.
    """

    def __init__(self, corpus: Corpus, *, session: Session | None = None) -> None:
        self.corpus = corpus
        self.session = (session or Session()).with_corpora(corpus)
        self._light: dict[TextRules, _Light] = {}
        self._rows: dict[tuple[Any, ...], Rows] = {}

    def light(self, rules: TextRules, order: int = 5) -> _Light:
        got = self._light.get(rules)
        if got is None or got.order < order:
            cfg = BleuConfig(
                tokenize=rules.tokenize,
                lowercase=rules.lowercase,
                lowercase_rule=rules.lowercase_rule,
                strip=rules.strip,
                whitespace=rules.whitespace,
            )
            st = self.session.statistics(cfg, max_order=max(order, 5))
            got = _Light(
                hyp_len=np.asarray(st.hyp_len, dtype=np.int64),
                ref_lens=np.asarray(st.ref_matrix, dtype=np.int64),
                matches=np.asarray(st.matches, dtype=np.int64),
                order=st.max_order,
            )
            self._light[rules] = got
        return got

    def _segment_rows(self, cfg: BleuConfig, light: _Light) -> Rows:
        """Every segment's statistics under ``cfg``'s length and total rules."""
        key = _totals_key("seg", cfg)
        got = self._rows.get(key)
        if got is None:
            n = cfg.max_order
            lens = light.ref_lens
            if cfg.missing_refs == "empty":  # padded with empty references (Perl scripts' files)
                lens = np.maximum(lens, 0)
            ref = ref_length_of(light.hyp_len, lens, cfg.ref_length)
            # a segment of h tokens has max(0, h - k + 1) n-grams of order k
            total = np.maximum(0, light.hyp_len[:, None] - np.arange(n)[None, :])
            if cfg.ngram_totals == "floor1":
                total = np.maximum(1, total)
            got = (light.hyp_len, ref, light.matches[:, :n], total)
            self._rows[key] = got
        return got

    def _corpus_row(self, cfg: BleuConfig, light: _Light) -> Rows:
        """The corpus sums under ``cfg`` as one row."""
        key = _totals_key("corpus", cfg)
        got = self._rows.get(key)
        if got is None:
            sys_len, ref, correct, total = self._segment_rows(cfg, light)
            ref_sum = math.fsum(ref.tolist()) if cfg.ref_length == "average" else int(ref.sum())
            got = (
                np.array([sys_len.sum()]),
                np.array([ref_sum]),
                correct.sum(axis=0)[None, :],
                total.sum(axis=0)[None, :],
            )
            self._rows[key] = got
        return got

    @staticmethod
    def _context(light: _Light) -> NltkContext:
        """nltk's context of the whole corpus (its hypothesis length and last segment)."""
        return nltk_context(light.hyp_len.sum(), light.hyp_len[-1], light.matches[-1, 4])

    @staticmethod
    def _segment_contexts(light: _Light, copies: int = 1) -> NltkContext:
        """Every segment's own nltk context (``copies`` times over)."""
        hyp_len = np.tile(light.hyp_len, copies)
        return nltk_context(hyp_len, hyp_len, np.tile(light.matches[:, 4], copies))

    def _scores(self, cfgs: Sequence[BleuConfig]) -> list[float]:
        """The scores of configurations equal but for :data:`_ROW_STANDARD`, in one arithmetic
        call; raises :class:`~harness.errors.LibraryWouldRaise` if any of them does."""
        if any(engine.tokenization_key(c) != c.text_rules.key() for c in cfgs):
            # references cut or scored one by one: the engine on the session's statistics
            return [self.session.score(c).score for c in cfgs]
        cfg = cfgs[0]
        light = self.light(cfg.text_rules, engine.orders_needed(cfg))
        nltk = cfg.smooth.startswith("nltk-")
        corpus = cfg.aggregation == "corpus"
        rows = [(self._corpus_row if corpus else self._segment_rows)(c, light) for c in cfgs]
        sys_len, ref_len, correct, total = (np.concatenate([r[i] for r in rows]) for i in range(4))
        if corpus:
            ctx = None
            if nltk:
                one = self._context(light)
                ctx = nltk_context(
                    np.repeat(one.hyp_len, len(cfgs)),
                    np.repeat(one.last_hyp_len, len(cfgs)),
                    np.repeat(one.last_correct5, len(cfgs)),
                )
            scored = bleu_rows(
                sys_len, ref_len, correct, total, cfg, context=ctx, corpus=True
            ).score
            return scored.tolist()
        ctx = self._segment_contexts(light, len(cfgs)) if nltk else None
        scored = bleu_rows(sys_len, ref_len, correct, total, cfg, context=ctx, corpus=False).score
        # the mean of each configuration's segment scores, as engine.segment_arrays sums them
        return [sum(part.tolist()) / len(part) for part in np.split(scored, len(cfgs))]

    def score(self, cfg: BleuConfig) -> float:
        """The engine's score (0–100) of the corpus under ``cfg``."""
        return self._scores([cfg])[0]

    def try_score(self, cfg: BleuConfig) -> float | None:
        """:meth:`score`, or ``None`` when the configuration raises on this corpus."""
        try:
            return self.score(cfg)
        except LibraryWouldRaise:
            return None

    def scores(self, cfgs: Sequence[BleuConfig]) -> list[float | None]:
        """:meth:`try_score` of each configuration; configurations that differ only in how
        their rows are built (:data:`_ROW_STANDARD`) are scored in one arithmetic call."""
        groups: dict[BleuConfig, list[int]] = {}
        for i, c in enumerate(cfgs):
            groups.setdefault(c.replace(**_ROW_STANDARD), []).append(i)
        out: list[float | None] = [None] * len(cfgs)
        for members in groups.values():
            batch = [cfgs[i] for i in members]
            try:
                values: list[float | None] = list(self._scores(batch))
            except LibraryWouldRaise:  # some row raises: score each alone to find which
                values = [self.try_score(c) for c in batch]
            for i, v in zip(members, values, strict=True):
                out[i] = v
        return out


# ====================================================================== layouts
def misused_corpora(corpus: Corpus) -> dict[str, Corpus]:
    """The corpora a library actually scores when the references are laid out wrongly.

    ``per-segment-as-streams``: the per-segment lists handed to sacrebleu, which reads list
    ``k`` as stream ``k``; ``zip(*streams)`` keeps ``min(len(stream))`` "segments" and
    ``zip(hypotheses, …)`` the shorter side, so segment ``j`` gets the ``j``-th reference of
    every original segment. ``flat-list``: one reference string per segment handed to
    sacrebleu; each string is a stream of characters. ``streams-as-per-segment``: sacrebleu
    streams handed to a per-segment library (only when there are as many streams as
    segments, otherwise the library raises). Misuses that would not change the corpus or would
    score nothing are left out.
    """
    out: dict[str, Corpus] = {}
    hyps = list(corpus.hypotheses)
    name = corpus.name

    def add(layout: str, h: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
        if not h or any(len(r) == 0 for r in refs):
            return
        c = Corpus(
            hypotheses=tuple(h),
            references=tuple(tuple(r) for r in refs),
            name=name,
            check_text=False,  # a re-layout of a corpus whose text was checked
        )
        if c.hypotheses == corpus.hypotheses and c.references == corpus.references:
            return
        if any(o.hypotheses == c.hypotheses and o.references == c.references for o in out.values()):
            return
        out[layout] = c

    streams = [list(r) for r in corpus.references]  # what the user passed
    m = min(len(hyps), min(len(s) for s in streams))
    add("per-segment-as-streams", hyps[:m], [[s[j] for s in streams] for j in range(m)])
    flat = [r[0] for r in corpus.references]
    m = min(len(hyps), min(len(s) for s in flat))
    add("flat-list", hyps[:m], [[s[j] for s in flat] for j in range(m)])
    if not corpus.is_ragged and corpus.max_refs == len(corpus):
        real = corpus.to_streams()
        add("streams-as-per-segment", hyps, [[r for r in s if r is not None] for s in real])
    return out


def _available_tokenizers() -> list[str]:
    out = []
    for name in TOKENIZERS:
        try:
            get_tokenizer(name)("a")
        except (HarnessError, ImportError, RuntimeError, OSError):
            continue
        out.append(name)
    return out


@dataclass(frozen=True)
class _Evaluated:
    config: BleuConfig
    layout: str
    raw100: float
    equivalent: dict[str, tuple[dict[str, Any], ...]]


def _unique(items: Iterable[tuple[Any, Any]]) -> list[tuple[Any, list[Any]]]:
    """Group ``(key, value)`` by equal key, keeping first-seen order: [(value, [others])]."""
    groups: dict[Any, list[Any]] = {}
    for key, value in items:
        groups.setdefault(key, []).append(value)
    return [(vals[0], vals[1:]) for vals in groups.values()]


def _smoothing_fields(smooth: str, guard: str, empty: str, eff: bool) -> dict[str, Any]:
    return {"smooth": smooth, "zero_guard": guard, "empty_order": empty, "effective_order": eff}


def _evaluate_layout(
    corpus: Corpus,
    layout: str,
    tokenizers: Sequence[str],
    max_orders: Sequence[int],
    progress: ProgressCallback | None,
    session: Session,
) -> list[_Evaluated]:
    scorer = CorpusScorer(corpus, session=session)
    single = len(corpus) == 1
    out: list[_Evaluated] = []
    tok_groups = _unique(
        (scorer.light(TextRules(tokenize=t, lowercase=lc)).fingerprint(), (t, lc))
        for lc in (False, True)
        for t in tokenizers
    )
    smoothings = [
        _smoothing_fields(smooth, guard, empty, eff)
        for _, smooth, guard, empty in SMOOTHING_POLICIES
        for eff in ((False, True) if smooth in _EFFECTIVE_ORDER_SMOOTHINGS else (False,))
    ]
    aggregations = ("corpus",) if single else ("corpus", "sentence-mean")
    for (tok, lc), tok_dupes in track(tok_groups, progress, f"identify: {layout}"):
        light = scorer.light(TextRules(tokenize=tok, lowercase=lc))
        ref_groups = _unique(
            (tuple(ref_length_of(light.hyp_len, light.ref_lens, rule).tolist()), rule)
            for rule in REF_LENGTHS
        )
        # floor1 only differs from plain when some hypothesis is shorter than n tokens
        min_len = int(light.hyp_len.min())
        totals_of = {n: ["plain"] if min_len >= n else ["plain", "floor1"] for n in max_orders}

        # every configuration's score: those that differ only in reference length and n-gram
        # totals in one arithmetic call
        values: dict[tuple[Any, ...], float | None] = {}
        for n in max_orders:
            for agg in aggregations:
                for k, sm in enumerate(smoothings):
                    keys = [
                        (rule, n, tot, agg, k) for rule, _ in ref_groups for tot in totals_of[n]
                    ]
                    cfgs = [
                        BleuConfig(
                            tokenize=tok,
                            lowercase=lc,
                            max_order=n,
                            ref_length=rule,
                            ngram_totals=tot,
                            aggregation=agg,
                            **sm,
                        )
                        for rule, n, tot, agg, _ in keys
                    ]
                    values.update(zip(keys, scorer.scores(cfgs), strict=True))
        for rule, rule_dupes in ref_groups:
            for n in max_orders:
                rules = totals_of[n]
                for tot in rules:
                    for agg in aggregations:
                        base = {
                            "tokenize": tok,
                            "lowercase": lc,
                            "max_order": n,
                            "ref_length": rule,
                            "ngram_totals": tot,
                            "aggregation": agg,
                        }
                        equiv: dict[str, tuple[dict[str, Any], ...]] = {}
                        if tok_dupes:
                            equiv["tokenization"] = tuple(
                                {"tokenize": t, "lowercase": c} for t, c in tok_dupes
                            )
                        if rule_dupes:
                            equiv["ref_length"] = tuple({"ref_length": r} for r in rule_dupes)
                        if len(rules) == 1:
                            equiv["ngram_totals"] = ({"ngram_totals": "floor1"},)
                        if single:
                            equiv["aggregation"] = ({"aggregation": "sentence-mean"},)
                        # configurations that differ only in smoothing and give the very same
                        # number are one candidate (the one nearest a profile) with the others
                        # listed as equivalent
                        by_value: dict[float, list[tuple[BleuConfig, float]]] = {}
                        for k, sm in enumerate(smoothings):
                            value = values[(rule, n, tot, agg, k)]
                            if value is None or not math.isfinite(value):
                                continue
                            cfg = BleuConfig(**base, **sm)
                            by_value.setdefault(round(value, 10), []).append((cfg, value))
                        for members in by_value.values():
                            rep, raw = min(members, key=lambda m: len(closest_profile(m[0])[1]))
                            others = tuple(
                                {f: getattr(c, f) for f in _SMOOTHING_KEYS}
                                for c, _ in members
                                if c is not rep
                            )
                            e = dict(equiv)
                            if others:
                                e["smoothing"] = others
                            out.append(_Evaluated(rep, layout, raw, e))
    return out


_SMOOTHING_KEYS = ("smooth", "zero_guard", "empty_order", "effective_order")


_EVAL_CACHE: dict[tuple[Any, ...], list[_Evaluated]] = {}


def _as_corpus(corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]]) -> Corpus:
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, str):
        name, _, system = corpus.partition("/")
        fx = load_fixture(name)
        if not system:
            if len(fx.system_names) != 1:
                raise ConfigError(
                    f"fixture {name!r} has several systems; write '{name}/<system>'",
                    valid=fx.system_names,
                )
            system = fx.system_names[0]
        return fx.corpus(system)
    hyps, refs = corpus
    return Corpus(hypotheses=tuple(hyps), references=tuple(tuple(r) for r in refs))


def _evaluations(
    corpus: Corpus, progress: ProgressCallback | None, session: Session | None
) -> list[_Evaluated]:
    key = (corpus.hypotheses, corpus.references)
    got = _EVAL_CACHE.get(key)
    if got is None:
        tokenizers = _available_tokenizers()
        layouts = {"per-segment": corpus, **misused_corpora(corpus)}
        # every (layout, tokenizer, case) counted up front, on the session's workers
        search = (session or Session()).with_corpora(layouts)
        rules = [BleuConfig(tokenize=t, lowercase=lc) for lc in (False, True) for t in tokenizers]
        search.warm(rules, min_order=5)
        got = []
        for layout, c in layouts.items():
            got.extend(_evaluate_layout(c, layout, tokenizers, _MAX_ORDERS, progress, search))
        if len(_EVAL_CACHE) >= 8:
            _EVAL_CACHE.clear()
        _EVAL_CACHE[key] = got
    return got


def _candidates(
    score: float, corpus: Corpus, progress: ProgressCallback | None, session: Session | None
) -> list[Candidate]:
    """Every evaluated configuration × scale with its best rounding, sorted."""
    target = float(score)
    out = []
    for ev in _evaluations(corpus, progress, session):
        profile, changes = closest_profile(ev.config)
        if ev.layout != "per-segment":
            changes = (*changes, "layout")
        for scale in SCALES:
            raw = ev.raw100 / 100.0 if scale == "0-1" else ev.raw100
            best = None
            for rounding in ROUNDINGS:
                shown = rounded(raw, rounding)
                d = abs(shown - target)
                if best is None or d < best[0] - 1e-15:
                    best = (d, rounding, shown)
            assert best is not None
            out.append(
                Candidate(
                    config=ev.config,
                    layout=ev.layout,
                    profile=profile,
                    changes=changes,
                    raw=raw,
                    scale=scale,
                    rounding=best[1],
                    shown=best[2],
                    distance=best[0],
                    equivalent=ev.equivalent,
                )
            )
    out.sort(key=lambda c: (round(c.distance, 12), len(c.changes), ROUNDINGS.index(c.rounding)))
    return out


def identify(
    score: float | str,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    tolerance: float | None = None,
    progress: ProgressCallback | None = None,
    session: Session | None = None,
) -> list[Candidate]:
    """The configurations whose displayed score reproduces ``score`` on ``corpus``.

    ``corpus`` is a :class:`~harness.data.corpus.Corpus`, a fixture as ``"name/system"`` or a
    ``(hypotheses, per-segment references)`` pair. ``tolerance`` defaults to half a unit in
    the last printed digit of ``score`` (pass ``score`` as a string to keep trailing zeros:
    ``"0.270"``). Sorted by distance, then by the number of factors changed from the nearest
    profile; empty when nothing matches (see :func:`nearest`). ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each tokenization searched, one
    stage per reference layout (``"identify: per-segment"``, …). ``session``: where statistics
    are counted and cached (its cache and workers; its corpora are not used).
    """
    c = _as_corpus(corpus)
    tol = default_tolerance(score) if tolerance is None else float(tolerance)
    found = _candidates(float(score), c, progress, session)
    return [x for x in found if x.distance <= tol + 1e-12]


def nearest(
    score: float | str,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    k: int = 10,
    progress: ProgressCallback | None = None,
    session: Session | None = None,
) -> list[Candidate]:
    """The ``k`` configurations whose displayed score is closest to ``score``, whatever the
    distance (use it when :func:`identify` finds nothing)."""
    return _candidates(float(score), _as_corpus(corpus), progress, session)[:k]
