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

and the text it may have been computed on (**preprocessing mistakes**,
:mod:`harness.diagnose.preprocess`): the files as given carry the mistakes their markers show
(``@@`` left in, …); each applicable variant (BPE merged, compounds split, hypotheses
tokenized, references lowercased, one reference, …) is another reading, scored with every named
profile and its aggregation flipped (:func:`_forensic_configs`: readings are many, so the full
space is searched only on the files as given).

Every configuration whose displayed score is inside the interval ``X`` stands for is a
:class:`Candidate`, sorted by :func:`~harness.diagnose.candidates.rank`: steps from a named
profile applied correctly (factors changed + text mistakes assumed), then fewer configuration
changes, then simpler rounding, then distance. The interval is half a unit either side of the
last digit of ``X`` as typed, upper end excluded (``"0.27"`` → [0.265, 0.275), ``"27"`` →
[26.5, 27.5)): a printed number says no more than its digits, so a reading inside it is not
better for being nearer the middle. Settings that give the same number on this corpus
(tokenizers with identical tokens, reference-length rules that pick the same lengths, a
smoothing that never fires) are resolved toward the nearest named profile
(:func:`~harness.diagnose.candidates.nearest_choices`): an exact profile is listed as that
profile (every profile they reproduce exactly is listed), and the other settings as
``Candidate.equivalent``. :func:`nearest` returns the
closest configurations when nothing matches.

Speed: statistics are counted once per (layout, tokenizer, case) by a
:class:`~harness.session.Session` (``session=`` shares its cache, on disk too, and its
workers); identical statistics (``intl`` and ``13a`` on
plain English, say) are scored once and the alternatives are listed in
``Candidate.equivalent``; every configuration is then pure arithmetic on cached corpus sums
(:class:`~harness.diagnose.many_configs.CorpusScorer`, which :mod:`harness.diagnose.validate`
shares).

>>> from harness.data.fixtures import load_fixture
>>> nasa = load_fixture("google_nasa_opportunity").corpus("candidate_2")
>>> found = identify(0.27, nasa, session=Session())
>>> best = found[0]
>>> best.scale, best.rounding, best.shown
('0-1', '2 decimals', 0.27)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from harness.bleu import engine
from harness.bleu.config import NGRAM_TOTALS, REF_LENGTHS, TOKENIZERS, BleuConfig
from harness.bleu.profiles import PROFILES
from harness.bleu.stats import ref_length_of, totals_of_lengths
from harness.bleu.tokenizers import TextRules, get_tokenizer, tokenizer_names
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import (
    ROUNDINGS,
    SCALES,
    Candidate,
    Printed,
    TieResolver,
    as_printed,
    closest_changes,
    closest_profile,
    default_tolerance,
    printed_interval,
    rank,
    reproduces,
    rounded,
)
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.preprocess import readings
from harness.errors import ConfigError, HarnessError
from harness.progress import ProgressCallback, track
from harness.scorers.printed import (
    EXACT,
    REPR_DIGITS,
    SIGNATURE,
    PrintedLine,
    agrees,
    pinned,
    read_printed,
)
from harness.session import Session

__all__ = [
    "CHANCE_WINDOWS",
    "LAYOUTS",
    "ROUNDINGS",
    "SCALES",
    "SMOOTHING_POLICIES",
    "Candidate",
    "Chance",
    "Printed",
    "PrintedLine",
    "SignatureReading",
    "as_printed",
    "chance",
    "closest_profile",
    "default_tolerance",
    "fewest_steps",
    "identify",
    "misused_corpora",
    "nearest",
    "printed_interval",
    "read_printed",
    "reading_corpus",
    "signature_reading",
    "simplest",
    "unmatched",
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


#: Tokenizers of evaluation frameworks (scripts and answer normalizers): searched in the
#: per-segment layout only. The layout misuses are what sacrebleu and the per-segment libraries
#: silently score when handed the other's reference layout (sacrebleu#220/#272/#275), so they
#: are searched with those libraries' tokenizers.
FRAMEWORK_TOKENIZERS: frozenset[str] = frozenset(tokenizer_names(family="framework"))


def _layout_tokenizers(tokenizers: Sequence[str]) -> list[str]:
    return [t for t in tokenizers if t not in FRAMEWORK_TOKENIZERS]


def _tokenizations(tokenizers: Sequence[str]) -> list[BleuConfig]:
    """Each tokenizer, cased and lowercased."""
    return [BleuConfig(tokenize=t, lowercase=lc) for lc in (False, True) for t in tokenizers]


@dataclass(frozen=True)
class _Evaluated:
    config: BleuConfig
    layout: str
    raw100: float
    equivalent: dict[str, tuple[dict[str, Any], ...]]
    preprocessing: tuple[str, ...] = ()


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
    preprocessing: tuple[str, ...] = (),
) -> list[_Evaluated]:
    scorer = CorpusScorer(corpus, session=session)
    single = len(corpus) == 1
    out: list[_Evaluated] = []
    tok_groups = _unique(
        (scorer.tokenized(TextRules(tokenize=t, lowercase=lc)).fingerprint(), (t, lc))
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
        stats = scorer.tokenized(TextRules(tokenize=tok, lowercase=lc))
        ref_groups = _unique(
            (tuple(ref_length_of(stats.hyp_len, stats.ref_matrix, rule).tolist()), rule)
            for rule in REF_LENGTHS
        )
        # n-gram total rules that give the same totals on this corpus: scored once
        total_groups = {
            n: _unique(
                (totals_of_lengths(stats.hyp_len, rule, n).tobytes(), rule) for rule in NGRAM_TOTALS
            )
            for n in max_orders
        }

        # every configuration's score: those that differ only in reference length and n-gram
        # totals in one arithmetic call
        values: dict[tuple[Any, ...], float | None] = {}
        for n in max_orders:
            for agg in aggregations:
                for k, sm in enumerate(smoothings):
                    keys = [
                        (rule, n, tot, agg, k)
                        for rule, _ in ref_groups
                        for tot, _ in total_groups[n]
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
                for tot, tot_dupes in total_groups[n]:
                    for agg in aggregations:
                        base = {
                            "tokenize": tok,
                            "lowercase": lc,
                            "max_order": n,
                            "ref_length": rule,
                            "ngram_totals": tot,
                            "aggregation": agg,
                        }
                        # interchangeable settings (same number on this corpus): option 0
                        # is the one scored; the candidate takes the options of the nearest
                        # named profile and lists the others as equivalent
                        fixed: list[tuple[str, list[dict[str, Any]]]] = [
                            (
                                "tokenization",
                                [
                                    {"tokenize": t, "lowercase": c}
                                    for t, c in ((tok, lc), *tok_dupes)
                                ],
                            ),
                            ("ref_length", [{"ref_length": r} for r in (rule, *rule_dupes)]),
                        ]
                        if tot_dupes:
                            fixed.append(
                                ("ngram_totals", [{"ngram_totals": t} for t in (tot, *tot_dupes)])
                            )
                        if single:
                            fixed.append(
                                (
                                    "aggregation",
                                    [{"aggregation": a} for a in (agg, "sentence-mean")],
                                )
                            )
                        # configurations that differ only in smoothing and give the very same
                        # number are one candidate too
                        by_value: dict[float, list[tuple[BleuConfig, float]]] = {}
                        for k, sm in enumerate(smoothings):
                            value = values[(rule, n, tot, agg, k)]
                            if value is None or not math.isfinite(value):
                                continue
                            cfg = BleuConfig(**base, **sm)
                            by_value.setdefault(round(value, 10), []).append((cfg, value))
                        groups = [g for _, g in fixed]
                        resolver = TieResolver(BleuConfig(**base), groups, _SMOOTHING_KEYS)
                        for members in by_value.values():
                            options = [
                                {f: getattr(c, f) for f in _SMOOTHING_KEYS} for c, _ in members
                            ]
                            for rep, chosen in resolver.resolve(options):
                                equiv = {
                                    name: tuple(o for i, o in enumerate(opts) if i != k)
                                    for (name, opts), k in zip(
                                        [*fixed, ("smoothing", options)], chosen, strict=True
                                    )
                                    if len(opts) > 1
                                }
                                raw = members[chosen[-1]][1]
                                out.append(_Evaluated(rep, layout, raw, equiv, preprocessing))
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


def _forensic_configs() -> list[BleuConfig]:
    """The reduced space searched on a preprocessing reading: every named profile (read from
    :data:`~harness.bleu.profiles.PROFILES`, so new profiles join) and each with its
    aggregation flipped (a sentence mean reported as corpus BLEU, or the reverse)."""
    out: dict[BleuConfig, None] = {}
    for cfg in PROFILES.values():
        out[cfg] = None
        flip = "sentence-mean" if cfg.aggregation == "corpus" else "corpus"
        out[cfg.replace(aggregation=flip)] = None
    return list(out)


def _evaluate_reading(
    corpus: Corpus, labels: tuple[str, ...], session: Session
) -> list[_Evaluated]:
    """The reduced configuration space (:func:`_forensic_configs`) on one preprocessing
    reading (:func:`harness.diagnose.preprocess.readings`)."""
    scorer = CorpusScorer(corpus, session=session)
    cfgs = _forensic_configs()
    out = []
    for cfg, value in zip(cfgs, scorer.scores(cfgs), strict=True):
        if value is not None and math.isfinite(value):
            out.append(_Evaluated(cfg, "per-segment", value, {}, labels))
    return out


def _evaluations(
    corpus: Corpus, progress: ProgressCallback | None, session: Session
) -> list[_Evaluated]:
    """Every configuration of the full search on the files as given (in every layout), then
    the reduced space on each preprocessing reading the files' markers call for."""
    key = (corpus.hypotheses, corpus.references)
    got = _EVAL_CACHE.get(key)
    if got is None:
        tokenizers = _available_tokenizers()
        (given, _), *variants = readings(corpus)
        layouts = {"per-segment": corpus, **misused_corpora(corpus)}
        # every (layout, tokenizer, case) counted up front, on the session's workers
        search = session.with_corpora(layouts)
        search.warm(_tokenizations(_layout_tokenizers(tokenizers)), min_order=5)
        frameworks = [t for t in tokenizers if t in FRAMEWORK_TOKENIZERS]
        search.with_corpora({"per-segment": corpus}).warm(_tokenizations(frameworks), min_order=5)
        got = []
        for layout, c in layouts.items():
            toks = tokenizers if layout == "per-segment" else _layout_tokenizers(tokenizers)
            got.extend(_evaluate_layout(c, layout, toks, _MAX_ORDERS, progress, search, given))
        if variants:
            forensic = search.with_corpora({str(i): c for i, (_, c) in enumerate(variants)})
            forensic.warm(_forensic_configs(), min_order=5)
            for labels, c in track(variants, progress, "identify: preprocessing"):
                got.extend(_evaluate_reading(c, labels, forensic))
        if len(_EVAL_CACHE) >= 8:
            _EVAL_CACHE.clear()
        _EVAL_CACHE[key] = got
    return got


def _candidates(
    score: Printed,
    corpus: Corpus,
    progress: ProgressCallback | None,
    session: Session,
    tolerance: float | None = None,
    scales: Sequence[str] = SCALES,
) -> list[Candidate]:
    """Every evaluated configuration × scale with its best rounding, sorted by :func:`rank`.

    A candidate ``reproduces`` the score when its display is inside the printed interval
    (:func:`~harness.diagnose.candidates.reproduces`; within ``tolerance`` when given). Its
    rounding is the one that reproduces the score, nearest first (ties: :data:`ROUNDINGS`
    order)."""
    score = as_printed(score)  # the printed precision kept, whatever type it came as
    out = []
    for ev in _evaluations(corpus, progress, session):
        profile, changes = closest_profile(ev.config)
        if ev.layout != "per-segment":
            changes = (*changes, "layout")
        for scale in scales:
            out.append(_candidate(ev, profile, changes, scale, score, tolerance))
    out.sort(key=rank)
    return out


def _candidate(
    ev: _Evaluated,
    profile: str,
    changes: tuple[str, ...],
    scale: str,
    score: Decimal,
    tolerance: float | None,
) -> Candidate:
    """``ev`` on ``scale`` with the rounding that reproduces the printed score, nearest first
    (ties: :data:`ROUNDINGS` order)."""
    target = float(score)
    raw = ev.raw100 / 100.0 if scale == "0-1" else ev.raw100
    best = None
    for rounding in ROUNDINGS:
        shown = rounded(raw, rounding)
        d = abs(shown - target)
        key = (not reproduces(shown, score, tolerance), d)
        if best is None or key[0] < best[0][0] or (key[0] == best[0][0] and d < best[0][1] - 1e-15):
            best = (key, rounding, shown)
    assert best is not None
    return Candidate(
        config=ev.config,
        layout=ev.layout,
        profile=profile,
        changes=changes,
        raw=raw,
        scale=scale,
        rounding=best[1],
        shown=best[2],
        distance=best[0][1],
        equivalent=ev.equivalent,
        preprocessing=ev.preprocessing,
        reproduces=not best[0][0],
    )


def _as_evidence(score: Printed | PrintedLine) -> PrintedLine:
    """Whatever was passed as the printed result, as a :class:`PrintedLine` (a str is read
    in every printed form; a number keeps its printed precision)."""
    if isinstance(score, PrintedLine):
        return score
    if isinstance(score, str):
        return read_printed(score)
    return PrintedLine(str(score), "number", str(as_printed(score)), None)


def reading_corpus(corpus: Corpus, layout: str, preprocessing: tuple[str, ...]) -> Corpus:
    """The text a candidate scores: the files in its reference layout, or its preprocessing
    reading."""
    if layout != "per-segment":
        return misused_corpora(corpus)[layout]
    for labels, c in readings(corpus):
        if labels == preprocessing:
            return c
    raise KeyError(preprocessing)


def unmatched(
    line: PrintedLine, candidate: Candidate, corpus: Corpus, session: Session
) -> list[str]:
    """What ``candidate`` does not reproduce of a printed result besides its score: settings
    its signature pins (``"tokenize=intl"``) and printed numbers (``"ref_len 61842 (this
    reading: 60012)"``); empty when it reproduces every one."""
    wrong = pinned(line, candidate)
    if not line.details:
        return wrong
    text = reading_corpus(corpus, candidate.layout, candidate.preprocessing)
    cfg = candidate.config
    stats = session.with_corpora(text).statistics(cfg, max_order=engine.orders_needed(cfg))
    return wrong + agrees(line, engine.score_statistics(stats, cfg))


#: The profiles of the tools whose output each printed form is: the tool that printed a line is
#: evidence too, so its own profile (with the settings of a signature) is tried exactly.
FORM_PROFILES: dict[str, tuple[str, ...]] = {
    "sacrebleu": ("sacrebleu",),
    "sacrebleu JSON": ("sacrebleu",),
    "multi-bleu.perl": ("multi-bleu", "multi-bleu-detok"),
    "mteval-v13a": ("mteval-v13a",),
    "torchmetrics": ("torchmetrics",),
    "dict": ("evaluate",),
    "lm-eval table": ("lm-eval",),
    "lm-eval table (bleu_max)": ("lm-eval-truthfulqa",),
}


def _printed_by(
    line: PrintedLine, corpus: Corpus, session: Session, tolerance: float | None
) -> list[Candidate]:
    """The tools that print ``line``'s form, each exactly as its profile (with the settings a
    signature pins), on the files as given and on each preprocessing reading: those that
    reproduce every printed number, fewest text mistakes first."""
    score = as_printed(line.score)
    tolerance = _tolerance(line, tolerance)
    out = []
    for name in FORM_PROFILES.get(line.form, ()):
        cfg = PROFILES[name].replace(**line.settings)
        changes = tuple(closest_changes(name, cfg))
        for labels, text in readings(corpus):
            try:
                value = CorpusScorer(text, session=session).try_score(cfg)
            except HarnessError:
                value = None
            if value is None or not math.isfinite(value):
                continue
            ev = _Evaluated(cfg, "per-segment", value, {}, labels)
            for scale in SCALES if line.scale is None else (line.scale,):
                c = _candidate(ev, name, changes, scale, score, tolerance)
                if c.reproduces and not unmatched(line, c, corpus, session):
                    out.append(c)
    out.sort(key=rank)
    return out


def _search(
    line: PrintedLine,
    corpus: Corpus,
    progress: ProgressCallback | None,
    session: Session,
    tolerance: float | None,
) -> list[Candidate]:
    scales = SCALES if line.scale is None else (line.scale,)
    return _candidates(line.score, corpus, progress, session, _tolerance(line, tolerance), scales)


def _tolerance(line: PrintedLine, tolerance: float | None) -> float | None:
    """The tolerance asked for; for a score printed as a float's repr, :data:`EXACT` of it
    (it stands for itself to the harness's agreement, not to its 17th digit, which the order
    of a library's additions already moves); else none (the printed interval)."""
    if tolerance is None and len(as_printed(line.score).as_tuple().digits) >= REPR_DIGITS:
        return EXACT * max(1.0, abs(float(line.score)))
    return tolerance


def identify(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    tolerance: float | None = None,
    progress: ProgressCallback | None = None,
) -> list[Candidate]:
    """The configurations that reproduce a printed result on ``corpus``.

    ``score`` is what was printed: a number, or the text a tool printed
    (:func:`~harness.scorers.printed.read_printed`: sacrebleu's line or JSON, multi-bleu.perl's
    line, mteval-v13a's, a dict of ``evaluate``'s keys, torchmetrics' tensor), or a
    :class:`PrintedLine`. A reading must reproduce every number printed, each within its
    printed precision, on the scale the form implies, and every setting a sacrebleu signature
    pins. ``corpus`` is a :class:`~harness.data.corpus.Corpus`, a fixture as
    ``"name/system"`` or a ``(hypotheses, per-segment references)`` pair. A number keeps the
    precision it was printed with (:func:`~harness.diagnose.candidates.as_printed`): the
    string ``"27"`` and the int ``27`` stand for [26.5, 27.5), ``"0.270"`` and
    ``Decimal("0.270")`` for [0.2695, 0.2705) (:func:`printed_interval`, upper end excluded);
    a float has no printed precision left and is read through its ``repr`` (``27.0``: [26.95,
    27.05)), so pass the string when you have it. ``tolerance``, when given, replaces the
    score's interval by ``|shown - score| <= tolerance``. Sorted by
    :func:`~harness.diagnose.candidates.rank`: steps from a named profile (factors changed and
    text mistakes assumed), then fewer configuration changes, simpler rounding and the
    distance; empty when nothing matches (see :func:`nearest`). ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each tokenization searched, one
    stage per reference layout (``"identify: per-segment"``, …). ``session``: where statistics
    are counted and cached (its cache and workers; its corpora are not used): the run's one
    :class:`~harness.session.Session`, which the caller creates.
    """
    line = _as_evidence(score)
    if line.form == SIGNATURE:
        raise ConfigError(
            "a sacrebleu signature alone has no score to search for; signature_reading() "
            "(bleu-harness identify --score SIGNATURE) names the configuration it pins"
        )
    text = _as_corpus(corpus)
    found = [x for x in _search(line, text, progress, session, tolerance) if x.reproduces]
    if line.details or line.settings:
        found = [x for x in found if not unmatched(line, x, text, session)]
    own = _printed_by(line, text, session, tolerance)
    return own + [
        x for x in found if not any(o.covers(x.config, x.layout, x.preprocessing) for o in own)
    ]


@dataclass(frozen=True)
class SignatureReading:
    """What a sacrebleu signature printed alone says: the settings it pins (``settings``,
    :class:`~harness.bleu.config.BleuConfig` fields), its number of references, sacrebleu's
    configuration with them (``config``) and the named profiles with exactly that
    configuration (``profiles``; the library each names aside)."""

    signature: str
    settings: dict[str, Any]
    nrefs: int | None
    config: BleuConfig
    profiles: tuple[str, ...]

    def sentences(self) -> list[str]:
        """The reading in words."""
        pinned = ", ".join(f"{k}={v}" for k, v in self.settings.items()) or "nothing"
        refs = "" if self.nrefs is None else f" with {self.nrefs} reference(s)"
        base = PROFILES["sacrebleu"]
        changed = [f"{k}={v}" for k, v in self.settings.items() if getattr(base, k) != v]
        how = "sacrebleu's defaults" if not changed else f"sacrebleu + {', '.join(changed)}"
        named = (
            f"The named profiles with exactly this configuration: {', '.join(self.profiles)}."
            if self.profiles
            else "No named profile has exactly this configuration."
        )
        return [
            f"Read as a sacrebleu signature alone: it pins {pinned}{refs}.",
            f"The configuration: {how} (engine signature {self.config.signature()}).",
            named,
            "A signature has no score: to ask which configuration printed a number on your "
            "files, pass the whole line (score and signature) with the files.",
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "signature": self.signature,
            "settings": dict(self.settings),
            "nrefs": self.nrefs,
            "config": self.config.signature(),
            "profiles": list(self.profiles),
        }


def signature_reading(line: PrintedLine | str) -> SignatureReading:
    """The configuration a sacrebleu signature pins (:func:`~harness.scorers.printed.
    decode_signature` on sacrebleu's profile) and the named profiles that equal it.

    Raises:
        ConfigError: the text is not a signature alone, or names a tokenizer the harness
            does not implement.
    """
    if isinstance(line, str):
        line = read_printed(line)
    if line.form != SIGNATURE or line.signature is None:
        raise ConfigError(f"not a sacrebleu signature alone: {line.text[:80]!r}")
    cfg = PROFILES["sacrebleu"].replace(**line.settings)
    equal = tuple(
        name for name, p in PROFILES.items() if dataclasses.replace(p, library=cfg.library) == cfg
    )
    return SignatureReading(line.signature, dict(line.settings), line.nrefs, cfg, equal)


#: How many windows of the printed width, either side of the score, :func:`chance` counts in.
CHANCE_WINDOWS = 10


@dataclass(frozen=True)
class Chance:
    """How many readings a printed score's window would hold by chance.

    ``searched`` readings (configurations × layouts × text readings × scales) were scored;
    ``nearby`` of them lie within :data:`CHANCE_WINDOWS` windows of the printed width either
    side of the score, so about ``expected = nearby / (2 * CHANCE_WINDOWS + 1)`` land in any
    one window there: a number of matches near ``expected`` is what the search alone gives,
    whatever configuration printed the score.
    """

    searched: int
    width: float
    nearby: int
    expected: float

    def sentence(self, score: str) -> str:
        """The estimate in words."""
        return (
            f"Searched {self.searched} readings; about {self.expected:.2g} of them fall in any "
            f"window {self.width:g} wide near {score} ({self.nearby} within "
            f"{CHANCE_WINDOWS} such windows either side), so that many matches are expected "
            "by chance alone."
        )


def chance(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    progress: ProgressCallback | None = None,
) -> Chance:
    """How many of the searched readings a window as wide as the printed score's would hold
    near it by chance (:class:`Chance`), from the searched readings' own scores."""
    line = _as_evidence(score)
    exact = _tolerance(line, None)
    lo, hi = printed_interval(line.score)
    width = 2 * exact if exact is not None else float(hi - lo)
    centre = float(as_printed(line.score))
    scales = SCALES if line.scale is None else (line.scale,)
    evaluated = _evaluations(_as_corpus(corpus), progress, session)
    reach = width * (CHANCE_WINDOWS + 0.5)
    nearby = 0
    for ev in evaluated:
        for scale in scales:
            raw = ev.raw100 / 100.0 if scale == "0-1" else ev.raw100
            nearby += abs(raw - centre) < reach
    return Chance(
        searched=len(evaluated) * len(scales),
        width=width,
        nearby=nearby,
        expected=nearby / (2 * CHANCE_WINDOWS + 1),
    )


def nearest(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    count: int = 10,
    progress: ProgressCallback | None = None,
) -> list[Candidate]:
    """The ``count`` configurations whose displayed score is closest to the printed score,
    whatever the distance (use it when :func:`identify` finds nothing); ``score`` and
    ``session`` as for :func:`identify`. With a printed line, the readings that reproduce the
    score come first (:func:`unmatched` says what else they miss)."""
    line = _as_evidence(score)
    return _search(line, _as_corpus(corpus), progress, session, None)[:count]


def fewest_steps(found: Sequence[Candidate]) -> int | None:
    """The fewest :attr:`~harness.diagnose.candidates.Candidate.steps` from a named profile
    among the matches; ``None`` without matches."""
    return min((c.steps for c in found), default=None)


def simplest(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    steps: int = 1,
    progress: ProgressCallback | None = None,
) -> Candidate | None:
    """The reading nearest to the printed score among those at most ``steps`` steps from a
    named profile (a factor changed, a layout misuse or a text mistake is one step), whether
    or not it reproduces the score: the simple explanation to weigh against matches that
    chance alone would give (``None`` when there is none)."""
    line = _as_evidence(score)
    close = [
        c for c in _search(line, _as_corpus(corpus), progress, session, None) if c.steps <= steps
    ]
    return min(close, key=lambda c: (round(c.distance, 12), rank(c))) if close else None
