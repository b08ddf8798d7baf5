"""The readings :mod:`harness.diagnose.identify` searches, each with its score.

A reading is a BLEU configuration (tokenizer × case × reference length × smoothing policy ×
effective order × n-gram totals × aggregation × max order) applied to one form of the corpus:
the references laid out as intended or as one of three silent misuses (:data:`LAYOUTS`,
:func:`misused_corpora`), and the text as given or as a preprocessing mistake would have left
it (:func:`harness.diagnose.preprocess.readings`; only the named profiles and their flipped
aggregation are searched there). :func:`evaluations` scores them all once per corpus, from the
statistics the session counts once per (layout, tokenizer, case).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from harness.bleu.config import MISSING_REFS, TOKENIZERS, BleuConfig
from harness.bleu.nltk_release_smoothing import CURRENT as CURRENT_FORMS
from harness.bleu.nltk_release_smoothing import FORMS
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import REGISTRY, TextRules, get_tokenizer, tokenizer_names
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose import search_cache
from harness.diagnose.candidates import (
    TieResolver,
)
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.preprocess import readings
from harness.diagnose.search_cache import Evaluated
from harness.diagnose.search_space import (
    ScoreAhead,
    Space,
    TextChoice,
    digest,
    score_spaces,
    space_of,
    unique,
)
from harness.errors import ConfigError, HarnessError
from harness.holds import collector_paused
from harness.progress import ProgressCallback, track
from harness.session import Session
from harness.session.parallel import process_pool, resolve_jobs

__all__ = [
    "FRAMEWORK_TOKENIZERS",
    "LAYOUTS",
    "SMOOTHING_POLICIES",
    "Evaluated",
    "as_corpus",
    "corpus_layouts",
    "corpus_readings",
    "evaluations",
    "misused_corpora",
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


#: The text-rule fields a reading's tokenization sets (the others at their defaults).
_TEXT_FIELDS = ("tokenize", "lowercase", "lowercase_rule", "punctuation", "articles")


def _text_of(config: BleuConfig) -> TextChoice:
    return {f: getattr(config, f) for f in _TEXT_FIELDS}


def _choices(tokenizers: Sequence[str]) -> list[TextChoice]:
    """Each tokenizer, cased and lowercased."""
    return [
        _text_of(BleuConfig(tokenize=t, lowercase=lc)) for lc in (False, True) for t in tokenizers
    ]


def _normalising(tokenizers: Sequence[str]) -> list[TextChoice]:
    """The named profiles' own text rules that normalise more than case (punctuation,
    articles, a script's own lowercasing), on the tokenizers searched: what ParlAI, jury and
    CodeNN do to a text before their tokens, searched with every other factor. Like the
    framework tokenizers, they are searched in the per-segment layout only."""
    out: dict[tuple[Any, ...], TextChoice] = {}
    for config in PROFILES.values():
        rules = config.text_rules
        normalises = rules.punctuation != "keep" or rules.articles != "keep" or rules.script_case
        if normalises and config.tokenize in tokenizers:
            choice = _text_of(config)
            out.setdefault(tuple(choice.values()), choice)
    return list(out.values())


def _tokenizations(choices: Sequence[TextChoice]) -> list[BleuConfig]:
    """The configurations that count each tokenization's statistics."""
    return [BleuConfig(**choice) for choice in choices]


def _smoothing_fields(smooth: str, guard: str, empty: str, eff: bool) -> dict[str, Any]:
    return {"smooth": smooth, "zero_guard": guard, "empty_order": empty, "effective_order": eff}


def _smoothings() -> list[dict[str, Any]]:
    """Each smoothing policy searched (:data:`SMOOTHING_POLICIES`, with and without effective
    order where the library offers it), as configuration fields."""
    return [
        _smoothing_fields(smooth, guard, empty, eff)
        for _, smooth, guard, empty in SMOOTHING_POLICIES
        for eff in ((False, True) if smooth in _EFFECTIVE_ORDER_SMOOTHINGS else (False,))
    ]


def _aggregations(corpus: Corpus) -> tuple[str, ...]:
    return ("corpus",) if len(corpus) == 1 else ("corpus", "sentence-mean")


def _evaluate_layout(
    corpus: Corpus,
    layout: str,
    choices: Sequence[TextChoice],
    max_orders: Sequence[int],
    progress: ProgressCallback | None,
    session: Session,
    preprocessing: tuple[str, ...] = (),
    scored: Mapping[bytes, list[float | None]] | None = None,
) -> list[Evaluated]:
    """The readings of the full space of ``choices`` on ``corpus`` read in ``layout``.
    ``scored``: spaces already scored (:func:`_scores`, a worker's), by the
    :func:`~harness.diagnose.search_space.digest` of their statistics."""
    scorer = CorpusScorer(corpus, session=session)
    single = len(corpus) == 1
    out: list[Evaluated] = []
    tok_groups = unique(
        (scorer.tokenized(TextRules(**choice)).fingerprint(), choice) for choice in choices
    )
    smoothings = _smoothings()
    aggregations = _aggregations(corpus)
    # with one reference per segment, every reference-layout rule counts the same statistics:
    # interchangeable, so a reading takes the one of its nearest profile (skip, the first, is
    # the one scored)
    layouts = MISSING_REFS if all(len(r) == 1 for r in corpus.references) else ("skip",)
    searched = []
    for text, tok_dupes in track(tok_groups, progress, f"identify: {layout}"):
        stats = scorer.tokenized(TextRules(**text))
        space = space_of(stats, max_orders, aggregations, len(smoothings))
        searched.append((text, tok_dupes, space, digest(stats)))
    known = scored or {}
    # every tokenization's configurations not scored yet, a few tokenizations per call
    fresh = iter(
        score_spaces(
            scorer,
            [(text, space) for text, _, space, name in searched if name not in known],
            smoothings,
        )
    )
    for text, tok_dupes, space, name in searched:
        values = dict(zip(space.keys, known[name] if name in known else next(fresh), strict=True))
        for rule, rule_dupes in space.ref_groups:
            for n in max_orders:
                for tot, tot_dupes in space.total_groups[n]:
                    for agg in aggregations:
                        base = {
                            **text,
                            "max_order": n,
                            "ref_length": rule,
                            "ngram_totals": tot,
                            "aggregation": agg,
                        }
                        # interchangeable settings (same number on this corpus): option 0
                        # is the one scored; the candidate takes the options of the nearest
                        # named profile and lists the others as equivalent
                        fixed: list[tuple[str, list[dict[str, Any]]]] = [
                            ("tokenization", [dict(c) for c in (text, *tok_dupes)]),
                            (
                                "ref_length",
                                [
                                    {"ref_length": r, "missing_refs": m}
                                    for r in (rule, *rule_dupes)
                                    for m in layouts
                                ],
                            ),
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
                        by_value: dict[float, list[tuple[int, float]]] = {}
                        for k in range(len(smoothings)):
                            value = values[(rule, n, tot, agg, k)]
                            if value is None or not math.isfinite(value):
                                continue
                            by_value.setdefault(round(value, 10), []).append((k, value))
                        groups = [g for _, g in fixed]
                        resolver = TieResolver(BleuConfig(**base), groups, _SMOOTHING_KEYS)
                        for members in by_value.values():
                            options = [
                                {f: smoothings[k][f] for f in _SMOOTHING_KEYS} for k, _ in members
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
                                out.append(Evaluated(rep, layout, raw, equiv, preprocessing))
    return out


_SMOOTHING_KEYS = ("smooth", "zero_guard", "empty_order", "effective_order")


_EVAL_CACHE: dict[tuple[Any, ...], list[Evaluated]] = {}

#: A corpus's preprocessing readings (:func:`harness.diagnose.preprocess.readings`) and
#: misused layouts (:func:`misused_corpora`).
_Texts = tuple[list[tuple[tuple[str, ...], Corpus]], dict[str, Corpus]]

#: Each corpus's :data:`_Texts`, by its text and name: the search, the checks of a printed
#: line and every candidate's own text (identify's ``unmatched``) read them, and building them
#: tokenizes the whole corpus again.
_TEXT_CACHE: dict[tuple[Any, ...], _Texts] = {}


def _texts(corpus: Corpus) -> _Texts:
    key = (corpus.name, corpus.hypotheses, corpus.references)
    got = _TEXT_CACHE.get(key)
    if got is None:
        if len(_TEXT_CACHE) >= 8:
            _TEXT_CACHE.clear()
        got = _TEXT_CACHE[key] = (readings(corpus), misused_corpora(corpus))
    return got


def corpus_readings(corpus: Corpus) -> list[tuple[tuple[str, ...], Corpus]]:
    """:func:`harness.diagnose.preprocess.readings` of ``corpus``, built once per corpus."""
    return list(_texts(corpus)[0])


def corpus_layouts(corpus: Corpus) -> dict[str, Corpus]:
    """:func:`misused_corpora` of ``corpus``, built once per corpus."""
    return dict(_texts(corpus)[1])


def as_corpus(corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]]) -> Corpus:
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


def _profile_readings() -> list[BleuConfig]:
    """Every named profile's configuration as a reading (read from
    :data:`~harness.bleu.profiles.PROFILES`, so new profiles join): without its library's name,
    so two profiles with one arithmetic (compare-mt's sacrebleu scorer and sacrebleu) are one
    reading named after the first, and without its printing (identify reads the rounding)."""
    named = [
        p.replace(library="harness", round_digits=None, round_rule="python")
        for p in PROFILES.values()
    ]
    return list(dict.fromkeys([*named, *(r for p in named for r in _release_forms(p))]))


def _release_forms(config: BleuConfig) -> list[BleuConfig]:
    """A profile of an older release whose smoothing methods had other forms
    (:attr:`~harness.bleu.config.BleuConfig.smooth_forms`): each method that differs there,
    as a corpus score and as a sentence mean — what a paper of that release printed with
    another smoothing function than the default, which the searched space (today's forms)
    does not span."""
    if config.smooth_forms == CURRENT_FORMS:
        return []
    return [
        config.replace(smooth=method, smooth_value=None, aggregation=aggregation)
        for method in FORMS[config.smooth_forms]
        for aggregation in ("corpus", "sentence-mean")
    ]


def _forensic_configs() -> list[BleuConfig]:
    """The reduced space searched on a preprocessing reading: every named profile
    (:func:`_profile_readings`) and each with its aggregation flipped (a sentence mean reported
    as corpus BLEU, or the reverse)."""
    out: dict[BleuConfig, None] = {}
    for cfg in _profile_readings():
        out[cfg] = None
        flip = "sentence-mean" if cfg.aggregation == "corpus" else "corpus"
        out[cfg.replace(aggregation=flip)] = None
    return list(out)


#: What a reading's configuration is compared on to know whether it stands for another: every
#: field but the library's name, its printing (identify reads the printed precision) and what
#: it does on a zero length (a refusal is no number to match).
_READING_FIELDS = tuple(
    f.name
    for f in dataclasses.fields(BleuConfig)
    if f.name not in ("library", "extra", "round_digits", "round_rule", "on_zero_length")
)


def _stands_for(ev: Evaluated, config: BleuConfig) -> bool:
    """Whether the reading ``ev`` (with its equivalent settings) is ``config``."""
    checked: set[str] = set()
    for alternatives in ev.equivalent.values():
        keys = set(alternatives[0]) if alternatives else set()
        checked |= keys
        options = [{k: getattr(ev.config, k) for k in keys}, *alternatives]
        if {k: getattr(config, k) for k in keys} not in options:
            return False
    return all(
        getattr(config, f) == getattr(ev.config, f) for f in _READING_FIELDS if f not in checked
    )


def _named_readings(
    corpus: Corpus, labels: tuple[str, ...], found: Sequence[Evaluated], session: Session
) -> list[Evaluated]:
    """Every named profile's own configuration on the text as given where no reading of the
    searched space stands for it: a profile whose factors the space does not span (a mean over
    the non-empty examples, the first reference alone). ``labels``: what the text as given is
    read as (:func:`harness.diagnose.preprocess.readings`)."""
    # a reading stands for a profile only with its tokenization (or one it lists as
    # equivalent) and its maximum order (never equivalent): the readings looked at are those
    given: dict[tuple[Any, ...], list[Evaluated]] = {}
    for ev in found:
        if ev.layout == "per-segment" and ev.preprocessing == labels:
            tokenizations = [
                tuple(_text_of(ev.config).values()),
                *(tuple(o.values()) for o in ev.equivalent.get("tokenization", ())),
            ]
            for text in dict.fromkeys(tokenizations):
                given.setdefault((*text, ev.config.max_order), []).append(ev)
    missing = [
        c
        for c in _profile_readings()
        if not any(_stands_for(ev, c) for ev in given.get((*_text_of(c).values(), c.max_order), ()))
    ]
    scores = CorpusScorer(corpus, session=session).scores(missing)
    return [
        Evaluated(cfg, "per-segment", value, {}, labels)
        for cfg, value in zip(missing, scores, strict=True)
        if value is not None and math.isfinite(value)
    ]


def _evaluate_reading(corpus: Corpus, labels: tuple[str, ...], session: Session) -> list[Evaluated]:
    """The reduced configuration space (:func:`_forensic_configs`) on one preprocessing
    reading (:func:`harness.diagnose.preprocess.readings`)."""
    scorer = CorpusScorer(corpus, session=session)
    cfgs = _forensic_configs()
    out = []
    for cfg, value in zip(cfgs, scorer.scores(cfgs), strict=True):
        if value is not None and math.isfinite(value):
            out.append(Evaluated(cfg, "per-segment", value, {}, labels))
    return out


def evaluations(
    corpus: Corpus, progress: ProgressCallback | None, session: Session
) -> list[Evaluated]:
    """Every configuration of the full search on the files as given (in every layout), then
    the reduced space on each preprocessing reading the files' markers call for. Kept in
    memory for the process and, where ``session`` keeps statistics on disk, beside them
    (:mod:`harness.diagnose.search_cache`), so a second run reads what the first scored."""
    key = (corpus.hypotheses, corpus.references)
    got = _EVAL_CACHE.get(key)
    if got is None:
        tokenizers = _available_tokenizers()
        got, disk_key = search_cache.load(corpus, tokenizers, session)
        if got is None:
            with collector_paused():  # an evaluated reading per configuration, none in a cycle
                got = _score_readings(corpus, tokenizers, progress, session)
            if disk_key is not None:
                search_cache.store(disk_key, got, session)
        if len(_EVAL_CACHE) >= 8:
            _EVAL_CACHE.clear()
        _EVAL_CACHE[key] = got
    return got


def _score_readings(
    corpus: Corpus, tokenizers: list[str], progress: ProgressCallback | None, session: Session
) -> list[Evaluated]:
    """The readings of :func:`evaluations`, scored (``tokenizers``: those that work here)."""
    (given, _), *variants = corpus_readings(corpus)
    layouts = {"per-segment": corpus, **corpus_layouts(corpus)}
    search = session.with_corpora(layouts)
    named = search.with_corpora({"per-segment": corpus})
    forensic = search.with_corpora({str(i): c for i, (_, c) in enumerate(variants)})
    normalising = _normalising(tokenizers)
    frameworks = _tokenizations(
        [*_choices([t for t in tokenizers if t in FRAMEWORK_TOKENIZERS]), *normalising]
    )
    per_segment = [*_choices(tokenizers), *normalising]
    in_layouts = _choices(_layout_tokenizers(tokenizers))
    framework_texts = [c for c in per_segment if c not in in_layouts]
    with contextlib.ExitStack() as stack:
        # Where the session has workers, one counts ahead what this process needs after
        # searching the misused layouts (the framework tokenizers, which import their
        # libraries there) and scores their full space on the files as given, then counts
        # what this process needs last (the named profiles' own rules on the files and on
        # every preprocessing reading).
        tasks: list[ScoreAhead] = []
        ahead = []
        if session.backend == "processes" and resolve_jobs(session.jobs) > 1:
            pool = stack.enter_context(process_pool(1))
            heavy, light = _framework_tasks(framework_texts)
            tasks += [_score_ahead(named, texts, pool, frozenset()) for texts in heavy]
            # the tokenizations this process scores anyway: the worker leaves out a framework
            # tokenization with the same statistics
            named.warm(_tokenizations(in_layouts), min_order=5)
            mine = _digests(corpus, in_layouts, named)
            tasks += [_score_ahead(named, texts, pool, mine) for texts in light]
            # one task per corpus, so that this process counts those no worker has taken
            for name, c in {"per-segment": corpus, **forensic.corpora}.items():
                last = search.with_corpora({name: c})
                ahead.append(last.count_ahead(_forensic_configs(), executor=pool, min_order=5))
        # every (layout, tokenizer, case) counted up front
        search.warm(_tokenizations(in_layouts), min_order=5)
        found = {
            layout: _evaluate_layout(c, layout, in_layouts, _MAX_ORDERS, progress, search, given)
            for layout, c in layouts.items()
            if layout != "per-segment"
        }
        scored: dict[bytes, list[float | None]] = {}
        if tasks:
            # this process's share of the files as given, then the worker's tasks it has not
            # taken yet, from the last
            scored.update(_scores(corpus, in_layouts, named))
            while tasks and tasks[-1].withdraw():
                texts = tasks.pop().texts
                named.warm(_tokenizations(texts), min_order=5)
                scored.update(_scores(corpus, texts, named, scored))
            for task in tasks:
                scored.update(task.finish())
        named.warm(frameworks, min_order=5)
        found["per-segment"] = _evaluate_layout(
            corpus, "per-segment", per_segment, _MAX_ORDERS, progress, search, given, scored
        )
        got = [ev for layout in layouts for ev in found[layout]]
        for counting in reversed(ahead):  # from the last: those no worker has taken, here
            counting.finish()
        got.extend(_named_readings(corpus, given, got, named))
    if variants:
        forensic.warm(_forensic_configs(), min_order=5)
        for labels, c in track(variants, progress, "identify: preprocessing"):
            got.extend(_evaluate_reading(c, labels, forensic))
    return got


def _framework_tasks(
    texts: Sequence[TextChoice],
) -> tuple[list[list[TextChoice]], list[list[TextChoice]]]:
    """The framework tokenizations a worker counts and scores, as tasks: one of every
    tokenizer that needs a library of its own (counted first, imported there), then one per
    other tokenizer (the last of them are those this process takes back if it is free first)."""
    by_tokenizer: dict[str, list[TextChoice]] = {}
    for text in texts:
        by_tokenizer.setdefault(text["tokenize"], []).append(text)
    heavy = [t for t in by_tokenizer if not set(REGISTRY[t].distributions) <= {"regex"}]
    light = [by_tokenizer[t] for t in by_tokenizer if t not in heavy]
    return ([[x for t in heavy for x in by_tokenizer[t]]] if heavy else []), light


def _score_ahead(
    session: Session, texts: Sequence[TextChoice], pool: Executor, skip: frozenset[bytes]
) -> ScoreAhead:
    corpus = session.corpus
    return ScoreAhead(
        session,
        texts,
        submit=pool.submit,
        max_orders=_MAX_ORDERS,
        aggregations=_aggregations(corpus),
        smoothings=_smoothings(),
        skip=skip,
    )


def _digests(corpus: Corpus, texts: Sequence[TextChoice], session: Session) -> frozenset[bytes]:
    """The :func:`~harness.diagnose.search_space.digest` of each text's statistics."""
    scorer = CorpusScorer(corpus, session=session)
    return frozenset(digest(scorer.tokenized(TextRules(**t))) for t in texts)


def _scores(
    corpus: Corpus,
    texts: Sequence[TextChoice],
    session: Session,
    known: Mapping[bytes, Any] | None = None,
) -> dict[bytes, list[float | None]]:
    """The full space's scores on ``corpus`` of each of ``texts`` whose statistics are not in
    ``known``, by the :func:`~harness.diagnose.search_space.digest` of their statistics."""
    scorer = CorpusScorer(corpus, session=session)
    smoothings = _smoothings()
    todo: dict[bytes, tuple[TextChoice, Space]] = {}
    for text in texts:
        stats = scorer.tokenized(TextRules(**text))
        name = digest(stats)
        if name not in (known or {}) and name not in todo:
            space = space_of(stats, _MAX_ORDERS, _aggregations(corpus), len(smoothings))
            todo[name] = (text, space)
    return dict(zip(todo, score_spaces(scorer, list(todo.values()), smoothings), strict=True))
