"""Differential tests: the versioned nltk profiles against the old releases themselves.

Each release is downloaded from the package index (``tests/published.py``) and run in a process
of its own (:class:`harness.scorers.releases.ReleaseProcess`, the drift report's): up to 3.5
the package does not import on this Python (``inspect.formatargspec``), so its
``nltk/translate/bleu_score.py``, taken out of the source archive, is run from its file with the
installed nltk's other modules (it imports only ``nltk.util.ngrams``); from 3.6 on the wheel is
imported whole. ``nltk@R`` with ``smooth="nltk-methodK"`` must equal that release's
``corpus_bleu(references, hypotheses, smoothing_function=SmoothingFunction().methodK)`` on
``str.split`` tokens, and with ``aggregation="sentence-mean"`` the mean of its
``sentence_bleu`` (each segment's own score too, through the harness's ``sentence_bleu``), for
every method 0–7, at 1e-9 BLEU points (absolute and relative; nltk's 0–1 times 100), or raise
:class:`~harness.errors.LibraryWouldRaise` naming the exception the release raises. The
release's defaults are method 0 (each release's source says so: checked).

One release per range runs at the default depth; the range's others (and 3.6.6, the first
release today's ``nltk`` reproduces) under ``BLEU_HARNESS_TEST_DEPTH=full``. Calls are
batched: one round trip per batch of generated corpora.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import corpus_bleu, sentence_bleu
from harness.bleu.config import BleuConfig
from harness.bleu.nltk_release_smoothing import FORMS
from harness.bleu.profiles import (
    CURRENT_PROFILES,
    DECLARED,
    DEFAULT_PROFILES,
    PROFILES,
    RELEASES,
    VERIFICATION,
    profile_of_release,
)
from harness.bleu.result import BleuResult
from harness.diagnose.releases import DriftReport, drift_report, same_answer
from harness.errors import LibraryWouldRaise
from harness.scorers.releases import RELEASES_ENV, Release, ReleaseProcess, module_tree

from .depth import examples, release_cases
from .json_server import JsonLineServer
from .published import published_archive, published_tree, unavailable
from .strategies import corpora

# the generated words include a byte-order mark, which the corpus warns about
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

TOL = 1e-9  # BLEU points on the 0–100 scale, absolute and relative
BATCH = 8  # generated corpora per round trip to a release's process
METHODS = range(8)
MODULE = "nltk/translate/bleu_score.py"

#: Profile tag → (the release run at every depth, the range's others run at full depth).
RANGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "3.2.0": ("3.2", ()),
    "3.2": ("3.2.5", ("3.2.2", "3.2.3", "3.2.4")),
    "3.3": ("3.3.0", ()),
    "3.4": ("3.4.5", ("3.4",)),
    "3.5": ("3.5", ()),
    "3.6": ("3.6.5", ("3.6", "3.6.2")),
    "": ("3.6.6", ()),  # today's profile, from its first release; full depth only
}


CASES = release_cases(RANGES)

#: Profile tag → the factors besides its smoothing forms in which it is not ``nltk``.
OTHER_FACTORS: dict[str, dict[str, str]] = {
    "3.2.0": {
        "ngram_totals": "reduced",
        "zero_guard": "none",
        "on_zero_length": "hypothesis-raises",
    },
}

Hyps = list[str]
Refs = list[list[str]]
Reply = dict[str, Any]

_RUNNING: dict[str, ReleaseProcess] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_releases() -> Iterator[None]:
    yield
    while _RUNNING:
        _RUNNING.popitem()[1].close()
    while _PARAMETER_RUNNING:
        _PARAMETER_RUNNING.popitem()[1].close()


def published_release(version: str) -> Release:
    """nltk ``version`` as published: its wheel unpacked, or (a source archive) its
    ``bleu_score.py`` taken out, to be run from its file."""
    archive = published_archive("nltk", version)
    if archive.name.endswith(".whl"):
        return Release("nltk", version, published_tree("nltk", version))
    tree = module_tree(archive, "nltk", version, MODULE)
    if tree is None:
        unavailable(f"nltk=={version}", f"{archive.name} holds no {MODULE}")
    assert tree is not None
    return Release("nltk", version, tree, module=tree / Path(MODULE).name)


def release(version: str) -> ReleaseProcess:
    """The running process of nltk ``version`` (started once per module)."""
    if version not in _RUNNING:
        _RUNNING[version] = ReleaseProcess(published_release(version))
    return _RUNNING[version]


def name(tag: str) -> str:
    """The profile of ``tag`` (``""``: today's)."""
    return f"nltk@{tag}" if tag else "nltk"


def ours(**kwargs: Any) -> BleuResult | LibraryWouldRaise:
    """The harness's ``corpus_bleu`` (or, given ``hypothesis``, ``sentence_bleu``), or the
    refusal it raises."""
    score = sentence_bleu if "hypothesis" in kwargs else corpus_bleu
    try:
        return score(**kwargs)
    except LibraryWouldRaise as exc:
        return exc


def assert_same(mine: BleuResult | LibraryWouldRaise, theirs: Reply, what: object) -> None:
    """A score within ``TOL`` (absolute and relative), or the same exception."""
    if "error" in theirs:
        assert isinstance(mine, LibraryWouldRaise), (what, mine, theirs)
        assert mine.library_exception == theirs["error"], (what, mine, theirs)
        return
    assert isinstance(mine, BleuResult), (what, mine, theirs)
    a, b = mine.score, theirs["score"]
    diff = abs(a - b)
    assert diff <= TOL and diff <= TOL * max(abs(a), abs(b)), (what, a, b)


def assert_three(
    profile: str,
    overrides: dict[str, Any],
    hyps: Hyps,
    refs: Refs,
    corpus: Reply,
    sentences: list[Reply],
    version: str,
) -> None:
    """The release's ``corpus`` answer, its answer for each segment alone (``sentences``) and
    their mean (or the first segment's exception) against the profile with ``overrides``."""
    what = (version, profile, overrides, hyps, refs)
    mine = ours(hypotheses=hyps, references=refs, profile=profile, **overrides)
    assert_same(mine, corpus, (*what, "corpus"))
    for h, r, reply in zip(hyps, refs, sentences, strict=True):
        mine = ours(hypothesis=h, references=r, profile=profile, **overrides)
        assert_same(mine, reply, (*what, "sentence", h, r))
    failed = next((s for s in sentences if "error" in s), None)
    expected = failed or {"score": math.fsum(s["score"] for s in sentences) / len(hyps)}
    mean = ours(
        hypotheses=hyps, references=refs, profile=profile, aggregation="sentence-mean", **overrides
    )
    assert_same(mean, expected, (*what, "mean"))


def check(tag: str, version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    """Every corpus of ``batch`` scored by the release and by the profile of ``tag``, with every
    smoothing method: the corpus score, each segment's sentence score and their mean."""
    requests: list[tuple[str, list[str], list[list[str]]]] = []
    for hyps, refs in batch:
        for k in METHODS:
            requests.append((f"corpus_bleu method{k}", hyps, refs))
            pairs = zip(hyps, refs, strict=True)
            requests += [(f"sentence_bleu method{k}", [h], [r]) for h, r in pairs]
    replies = iter(release(version).run(requests))
    profile = name(tag)
    for hyps, refs in batch:
        for k in METHODS:
            smooth = f"nltk-method{k}"
            corpus = next(replies)
            if "score" in corpus:
                corpus = {"score": corpus["score"]}
            sentences = [next(replies) for _ in hyps]
            sentences = [{"score": r["scores"][0]} if "scores" in r else r for r in sentences]
            assert_three(profile, {"smooth": smooth}, hyps, refs, corpus, sentences, version)


#: Generated corpora: several references, ragged, empty lines; one reference; no empty
#: lines; hypotheses of one or two words (method 4 divides by log(1) on one token).
CORPORA = st.one_of(
    corpora(),
    corpora(max_refs=1),
    corpora(ragged=False, allow_empty=False),
    corpora(max_words=2, max_refs=2),
)


# ---------------------------------------------------------------------------- generated
@pytest.mark.parametrize(("tag", "version"), CASES)
@settings(max_examples=examples(40), deadline=None)
@given(batch=st.lists(CORPORA, min_size=BATCH, max_size=BATCH))
def test_profiles_match_release(tag: str, version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check(tag, version, batch)


# ---------------------------------------------------------------------------- parameters
#: ``SmoothingFunction(**parameters).methodK`` of the release, by ``corpus_bleu`` and by
#: ``sentence_bleu`` on one segment (``ReleaseProcess`` calls at the defaults only).
_PARAMETER_SERVER = """
import importlib.util, json, os, sys, warnings
warnings.simplefilter("ignore")
module = os.environ.get("BLEU_HARNESS_RELEASE_MODULE")
if module:
    spec = importlib.util.spec_from_file_location("nltk_release_bleu_score", module)
    bs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bs)
else:
    from nltk.translate import bleu_score as bs
print(json.dumps({"file": bs.__file__}), flush=True)

def call(kind, k, parameters, hyps, refs):
    fn = getattr(bs.SmoothingFunction(**parameters), f"method{k}")
    try:
        if kind == "corpus":
            return {"score": 100 * bs.corpus_bleu(
                [[x.split() for x in r] for r in refs], [h.split() for h in hyps],
                smoothing_function=fn)}
        return {"score": 100 * bs.sentence_bleu(
            [x.split() for x in refs[0]], hyps[0].split(), smoothing_function=fn)}
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)[:300]}

for line in sys.stdin:
    print(json.dumps([call(*r) for r in json.loads(line)]), flush=True)
"""

#: The parameter servers, by release (closed with the release processes, :data:`_RUNNING`).
_PARAMETER_RUNNING: dict[str, JsonLineServer] = {}


def parameter_server(version: str) -> JsonLineServer:
    """nltk ``version``'s smoothing methods with any parameters, in a process of its own (as
    :class:`~harness.scorers.releases.ReleaseProcess` runs the release)."""
    if version not in _PARAMETER_RUNNING:
        found = published_release(version)
        env = dict(os.environ)
        if found.folder is not None:
            env["PYTHONPATH"] = str(found.folder)
        if found.module is not None:
            env["BLEU_HARNESS_RELEASE_MODULE"] = str(found.module)
        server = JsonLineServer(f"nltk {version}", _PARAMETER_SERVER, env)
        assert server.hello["file"].startswith(str(found.folder)), server.hello
        _PARAMETER_RUNNING[version] = server
    return _PARAMETER_RUNNING[version]


#: (method, its ``SmoothingFunction`` parameter, a value): method 1's epsilon, method 4's and
#: 7's k, method 6's alpha, away from their defaults (0.1, 5, 5).
PARAMETERS = st.one_of(
    st.tuples(st.just(1), st.just("epsilon"), st.floats(0.001, 3.0)),
    st.tuples(st.sampled_from([4, 7]), st.just("k"), st.floats(0.05, 40.0)),
    st.tuples(st.just(6), st.just("alpha"), st.floats(0.05, 40.0)),
    st.tuples(
        st.sampled_from([1, 4, 6, 7]), st.sampled_from(["epsilon", "k", "alpha"]), st.just(1.0)
    ),
)


def check_parameters(
    tag: str, version: str, batch: list[tuple[tuple[Hyps, Refs], tuple[int, str, float]]]
) -> None:
    """Every corpus of ``batch`` under its method and parameter: the release's corpus score,
    each segment's sentence score and their mean, against the profile of ``tag`` with
    ``smooth="nltk-methodK", smooth_value=value``."""
    requests: list[Any] = []
    for (hyps, refs), (k, parameter, value) in batch:
        given = {parameter: value}
        requests.append(("corpus", k, given, hyps, refs))
        requests += [("sentence", k, given, [h], [r]) for h, r in zip(hyps, refs, strict=True)]
    replies = iter(parameter_server(version).run(requests))
    profile = name(tag)
    for (hyps, refs), (k, parameter, value) in batch:
        # a parameter the method does not read: the profile is given the method's default
        reads = {1: "epsilon", 4: "k", 6: "alpha", 7: "k"}[k] == parameter
        overrides = {"smooth": f"nltk-method{k}", "smooth_value": value if reads else None}
        corpus = next(replies)
        sentences = [next(replies) for _ in hyps]
        assert_three(profile, overrides, hyps, refs, corpus, sentences, version)


@pytest.mark.parametrize(("tag", "version"), CASES)
@settings(max_examples=examples(30), deadline=None)
@given(batch=st.lists(st.tuples(CORPORA, PARAMETERS), min_size=BATCH, max_size=BATCH))
def test_parameters_match_release(
    tag: str, version: str, batch: list[tuple[tuple[Hyps, Refs], tuple[int, str, float]]]
) -> None:
    check_parameters(tag, version, batch)


# ---------------------------------------------------------------------------- edge cases
EDGE_CASES: list[tuple[Hyps, Refs]] = [
    (["yes"], [["yes"]]),  # one token: method 4 divides by log(1); method 0 drops orders
    (["a"], [["a"]]),
    (["cat dog"], [["cat"]]),
    (["the cat sat on the mat"], [["the cat is on the mat"]]),
    (["a b c d e"], [["x y z w v"]]),  # nothing matches
    (["a b c d", "a"], [["a b c d"], ["a"]]),  # the last segment has one token
    (["a b c d", ""], [["a b x d"], ["a"]]),  # ... none
    (["", "a b c d"], [["a"], ["a b x d"]]),
    (["a b"], [[""]]),
    ([""], [[""]]),
    (["a b c"], [["", "a b c d"]]),
    (["the cat", "x"], [["the cat", ""], ["the"]]),  # ragged
    (["a b c d e f g h"], [["a b c d e f g h"]]),
    (["a b a b a b"], [["a b", "b a b a"]]),
]


@pytest.mark.parametrize(("tag", "version"), CASES)
def test_edge_cases(tag: str, version: str) -> None:
    check(tag, version, EDGE_CASES)


@pytest.mark.parametrize(("tag", "version"), CASES)
def test_the_release_defaults_to_method0(tag: str, version: str) -> None:
    """The calls are made with ``methodK``; the release's defaults are method 0 (its source
    says so; 3.2's default is no smoothing function, which its method 0, ``return p_n``, is),
    which ``nltk@R`` is without an override."""
    found = published_release(version)
    source = found.module or (found.folder or Path()) / MODULE
    text = source.read_text(encoding="utf-8")
    no_smoothing = "smoothing_function=None):" in text and (
        '""" No smoothing. """\n        return p_n\n' in text
    )
    assert "smoothing_function = SmoothingFunction().method0" in text or no_smoothing
    assert PROFILES[name(tag)].smooth == "nltk-method0"


# ---------------------------------------------------------------------------- declarations
def test_versioned_profiles_are_declared_as_such() -> None:
    versioned = [p for p in DECLARED if p.versioned and p.name.startswith("nltk@")]
    assert {p.name for p in versioned} == {name(tag) for tag in RANGES if tag}
    for p in versioned:
        tag = p.name.partition("@")[2]
        assert p.name not in DEFAULT_PROFILES and p.name not in CURRENT_PROFILES
        assert RELEASES[p.name] == p.releases
        assert VERIFICATION[p.name].evidence == "tests/test_profile_nltk_releases.py"
        assert RANGES[tag][0] in VERIFICATION[p.name].oracle
        span = dict(p.config.extra)["release"].partition("=")[2]
        first, _, last = span.partition("..")
        assert p.releases == (f"{first}–{last}" if last else first)
        signature = PROFILES[p.name].signature()
        assert f"|forms:nltk-{tag}|" in signature and f"|release:nltk={span}|" in signature
        # the profile is nltk's but for its forms, its release and its other factors
        others = OTHER_FACTORS.get(tag, {})
        assert {k: getattr(p.config, k) for k in others} == others
        nltk = PROFILES["nltk"]
        back = {k: getattr(nltk, k) for k in others}
        assert p.config.replace(smooth_forms="current", extra=(), **back) == nltk
        for version in (RANGES[tag][0], *RANGES[tag][1]):
            assert profile_of_release("nltk", version) == p.name
    assert profile_of_release("nltk", RANGES[""][0]) == "nltk"
    assert "forms:" not in PROFILES["nltk"].signature()


def test_versioned_profile_composes_with_overrides() -> None:
    """``nltk@3.5`` with ``smooth="nltk-method4"`` is 3.5's method 4, and under
    ``sentence-mean`` the mean of its ``sentence_bleu``; another smoothing is the registry's
    own wherever the forms leave it as today's."""
    hyps, refs = ["cat dog", "the cat sat"], [["cat"], ["the cat sat on the mat"]]
    old = corpus_bleu(hypotheses=hyps, references=refs, profile="nltk@3.5", smooth="nltk-method4")
    now = corpus_bleu(hypotheses=hyps, references=refs, profile="nltk", smooth="nltk-method4")
    assert old.score != now.score
    assert "smooth:nltk-method4[5]|" in old.signature and "|forms:nltk-3.5|" in old.signature
    (theirs,) = release("3.5").run([("corpus_bleu method4", hyps, refs)])
    assert_same(old, theirs, "nltk@3.5 method4")
    same = corpus_bleu(hypotheses=hyps, references=refs, profile="nltk@3.5", smooth="exp")
    assert (
        same.score
        == corpus_bleu(hypotheses=hyps, references=refs, profile="nltk", smooth="exp").score
    )


def test_the_forms_are_validated() -> None:
    assert set(FORMS) == {"current", *(f"nltk-{tag}" for tag in RANGES if tag)}
    with pytest.raises(Exception, match="unknown smooth_forms"):
        BleuConfig(smooth_forms="nltk-9.9")


# ---------------------------------------------------------------------------- the drift report
#: The releases the drift report is run on: one per range, and the first of today's.
DRIFT_RELEASES = tuple(first for first, _ in RANGES.values())


@pytest.fixture(scope="module")
def drift(tmp_path_factory: pytest.TempPathFactory) -> DriftReport:
    """``bleu-harness releases nltk`` on a release folder of :data:`DRIFT_RELEASES`."""
    root = tmp_path_factory.mktemp("nltk-releases")
    for version in DRIFT_RELEASES:
        archive = published_archive("nltk", version)
        shutil.copy(archive, root / archive.name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(RELEASES_ENV, str(root))
        return drift_report("nltk", generated=examples(40), seed=11)


def profile_answer(call: str, hyps: Hyps, refs: Refs, profile: str) -> Reply:
    """The drift report's ``call`` (``"sentence_bleu method4"``) answered by ``profile``."""
    what, method = call.split()
    smooth = f"nltk-{method}"
    try:
        if what == "corpus_bleu":
            got = corpus_bleu(hypotheses=hyps, references=refs, profile=profile, smooth=smooth)
            return {"score": got.score}
        pairs = zip(hyps, refs, strict=True)
        return {
            "scores": [
                sentence_bleu(hypothesis=h, references=r, profile=profile, smooth=smooth).score
                for h, r in pairs
            ]
        }
    except LibraryWouldRaise as exc:
        return {"error": exc.library_exception}


def test_every_drift_the_report_finds_is_its_release_profile(drift: DriftReport) -> None:
    """Each drift's example, as every release of the drift answered it, is what the versioned
    profile of that release answers (and not today's ``nltk``): the report is explained."""
    assert drift.run == DRIFT_RELEASES and drift.drifts
    for d in drift.drifts:
        ex = d.example
        for version in d.releases:
            profile = profile_of_release("nltk", version)
            assert profile is not None and profile != "nltk", (version, d.call)
            got = profile_answer(d.call, ex.hypotheses, ex.references, profile)
            assert same_answer(got, d.got), (version, profile, d.call, ex, got, d.got)
    drifting = {v for d in drift.drifts for v in d.releases}
    assert set(DRIFT_RELEASES) - drifting == {RANGES[""][0]}
    assert profile_of_release("nltk", RANGES[""][0]) == "nltk"


# ---------------------------------------------------------------------------- nltk 3.2 itself
#: nltk 3.2 (the release named so, ``nltk@3.2.0``; 3.2.2–3.2.5 are ``nltk@3.2``): what its
#: numbers are made of, written out apart from the profile on the engine's statistics of
#: today's ``nltk`` and checked against the release: each segment's order-n precision is a
#: ``Fraction`` reduced to lowest terms (an order without n-grams ``0/1``), the corpus sums
#: those reduced numerators and denominators, the smoothing methods act on the corpus
#: ``Fraction`` reduced again, an order at 0 is left out of the sum of logs (a corpus without a
#: match scores its brevity penalty), ``sentence_bleu`` scores 0 when that sum is 0 and an
#: order is at 0, and an empty hypothesis (or corpus) divides by zero in the brevity penalty.
NLTK_320 = "3.2"
MODEL_METHODS = range(4)  # the methods the model below writes out: 0–3


def _segment_fractions(hyp: str, refs: list[str]) -> tuple[BleuResult, list[Fraction]]:
    """The engine's statistics of one segment (today's ``nltk``: totals floored at 1) and its
    order-n precisions as nltk 3.2 builds them: reduced ``Fraction`` objects."""
    seg = sentence_bleu(hypothesis=hyp, references=refs, profile="nltk")
    assert isinstance(seg, BleuResult)
    return seg, [Fraction(m, t) for m, t in zip(seg.counts, seg.totals, strict=True)]


def _smoothed_320(p: list[Fraction], k: int) -> list[Fraction | float]:
    """nltk 3.2's methods 0–3 on precisions ``p`` (reduced: a 0 is ``0/1``)."""
    if k == 1:
        return [(0 + 0.1) / x.denominator if x.numerator == 0 else x for x in p]
    if k == 2:
        return [Fraction(x.numerator + 1, x.denominator + 1) for x in p]
    out: list[Fraction | float] = list(p)
    if k == 3:
        j = 1
        for i, x in enumerate(p):
            if x == 0:
                out[i] = 1 / (2**j * x.denominator)
                j += 1
    return out


def _bleu_320(p: list[Fraction | float], ref_len: int, hyp_len: int, *, sentence: bool) -> float:
    """nltk 3.2's BLEU (0–100) of smoothed precisions ``p``: orders at 0 left out of the log
    sum; ``sentence``: 0 when that sum is 0 with an order at 0. ``ZeroDivisionError`` on a
    length of 0, as the release's brevity penalty."""
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    s = math.fsum(0.25 * math.log(x) if x else 0.0 for x in p)
    if sentence and s == 0 and not all(p):
        return 0.0
    return 100 * bp * math.exp(s)


def model_320(call: str, hyps: Hyps, refs: Refs) -> Reply:
    """What the model above answers to ``call`` (``corpus_bleu methodK`` or
    ``sentence_bleu methodK`` of one segment)."""
    kind, method = call.split()
    k = int(method.removeprefix("method"))
    segments = [_segment_fractions(h, r) for h, r in zip(hyps, refs, strict=True)]
    try:
        if kind == "sentence_bleu":
            seg, p = segments[0]
            score = _bleu_320(_smoothed_320(p, k), seg.ref_len, seg.hyp_len, sentence=True)
            return {"scores": [score]}
        orders = range(len(segments[0][1]))
        num = [sum(p[i].numerator for _, p in segments) for i in orders]
        den = [sum(p[i].denominator for _, p in segments) for i in orders]
        corpus = [Fraction(a, b) for a, b in zip(num, den, strict=True)]
        hyp_len = sum(seg.hyp_len for seg, _ in segments)
        ref_len = sum(seg.ref_len for seg, _ in segments)
        return {"score": _bleu_320(_smoothed_320(corpus, k), ref_len, hyp_len, sentence=False)}
    except ZeroDivisionError as exc:
        return {"error": type(exc).__name__}


#: Corpora whose segments all have references (a segment without any raises in every release).
CORPORA_320 = st.one_of(
    corpora(ragged=False),
    corpora(max_refs=1),
    corpora(ragged=False, allow_empty=False),
    corpora(max_words=2, max_refs=2, ragged=False),
)


def check_model_320(batch: list[tuple[Hyps, Refs]]) -> None:
    """The release and the model give the same answer to every call on ``batch``."""
    calls: list[tuple[str, Hyps, Refs]] = []
    for hyps, refs in batch:
        for k in MODEL_METHODS:
            calls.append((f"corpus_bleu method{k}", hyps, refs))
            calls += [
                (f"sentence_bleu method{k}", [h], [r]) for h, r in zip(hyps, refs, strict=True)
            ]
    replies = release(NLTK_320).run(calls)
    for (call, hyps, refs), theirs in zip(calls, replies, strict=True):
        mine = model_320(call, hyps, refs)
        what = (call, hyps, refs, mine, theirs)
        if "error" in theirs or "error" in mine:
            assert theirs.get("error") == mine.get("error"), what
            continue
        a = mine["scores"][0] if "scores" in mine else mine["score"]
        b = theirs["scores"][0] if "scores" in theirs else theirs["score"]
        diff = abs(a - b)
        assert diff <= TOL and diff <= TOL * max(abs(a), abs(b)), what


@settings(max_examples=examples(40), deadline=None)
@given(batch=st.lists(CORPORA_320, min_size=BATCH, max_size=BATCH))
def test_nltk_320_is_reduced_fractions_summed(batch: list[tuple[Hyps, Refs]]) -> None:
    check_model_320(batch)


def test_nltk_320_edge_cases() -> None:
    """The model's distinctive answers, the release's own: ``sentence_bleu([['a']], ['a'])`` is
    0 (its log sum is 0 with orders at 0), a corpus without a match scores its brevity
    penalty, an empty hypothesis divides by zero."""
    cases = [c for c in EDGE_CASES if all(refs for refs in c[1])]
    cases += [(["a"], [["a"]]), (["x y z"], [["a b c"]]), (["x y"], [["a b c d"]])]
    check_model_320(cases)
    replies = release(NLTK_320).run(
        [("sentence_bleu method0", ["a"], [["a"]]), ("corpus_bleu method0", ["x y z"], [["a b c"]])]
    )
    assert replies[0]["scores"] == [0]
    assert replies[1]["score"] == 100
