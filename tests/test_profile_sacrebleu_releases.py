"""Differential tests: the versioned sacrebleu profiles against the old releases themselves.

Each release is downloaded from the package index (``tests/published.py``) and run in a process
of its own (:class:`tests.sacrebleu_releases.SacrebleuRelease`): ``sacrebleu@R`` must equal that
release's ``corpus_bleu(hyps, streams)`` (streams padded with ``None``), and
``sacrebleu-sentence@R`` its ``sentence_bleu(hyp, refs)`` per segment and their mean, at 1e-9
BLEU points with the same statistics, or raise :class:`~harness.errors.LibraryWouldRaise` naming
the exception the release raises. Releases up to 1.4.0 take one reference string in
``sentence_bleu``: their sentence profiles are compared on first references only; 1.4.1–1.4.10
are given the references as streams of one segment, the form they accept
(:mod:`tests.sacrebleu_releases`).

One release per range runs at the default depth; the range's other releases (and 2.2.0, the
first release today's profiles reproduce) under ``BLEU_HARNESS_TEST_DEPTH=full``. Calls are
batched: one round trip per batch of generated corpora.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Corpus, corpus_bleu, sentence_bleu
from harness.api import resolve_config
from harness.bleu.profiles import (
    CURRENT_PROFILES,
    DECLARED,
    DEFAULT_PROFILES,
    PROFILES,
    RELEASES,
    VERIFICATION,
)
from harness.bleu.result import BleuResult
from harness.bleu.sacrebleu_tokenizers import INTL_1X
from harness.errors import LibraryWouldRaise

from .depth import examples, release_cases
from .sacrebleu_releases import SacrebleuRelease
from .strategies import corpora, intl_corpora

# the generated words include a byte-order mark, which the corpus warns about
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

TOL = 1e-9  # BLEU points on the 0–100 scale
BATCH = 20  # generated corpora per round trip to a release's process
SETTINGS = settings(max_examples=examples(60), deadline=None)

#: Profile tag → (the release run at every depth, the range's others run at full depth).
RANGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "1.2": ("1.2.20", ("1.2.11", "1.2.21")),
    "1.4": ("1.4.14", ("1.3.1", "1.3.7", "1.4.0", "1.4.4", "1.4.10", "1.4.13")),
    "1.5": ("1.5.1", ("1.5.0",)),
    "2.0": ("2.0.0", ("2.1.0",)),
    "": ("2.2.0", ()),  # today's profiles, from their first release; full depth only
}


CASES = release_cases(RANGES)

Hyps = list[str]
Refs = list[list[str]]
Reply = dict[str, Any]

_RUNNING: dict[str, SacrebleuRelease] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_releases() -> Iterator[None]:
    yield
    while _RUNNING:
        _RUNNING.popitem()[1].close()


def release(version: str) -> SacrebleuRelease:
    """The running process of sacrebleu ``version`` (started once per module)."""
    if version not in _RUNNING:
        _RUNNING[version] = SacrebleuRelease(version)
    return _RUNNING[version]


def names(tag: str) -> tuple[str, str]:
    """The corpus and sentence profiles of ``tag`` (``""``: today's)."""
    at = f"@{tag}" if tag else ""
    return f"sacrebleu{at}", f"sacrebleu-sentence{at}"


def ours(score: Callable[..., BleuResult], **kwargs: Any) -> BleuResult | LibraryWouldRaise:
    """``score(**kwargs)``, or the refusal it raises."""
    try:
        result = score(**kwargs)
    except LibraryWouldRaise as exc:
        return exc
    return result


def assert_same(
    mine: BleuResult | LibraryWouldRaise, theirs: Reply, what: object, *, stats: bool = True
) -> None:
    """A score within ``TOL`` with, if ``stats``, the same statistics (where the release returns
    them), or the same exception."""
    if "error" in theirs:
        assert isinstance(mine, LibraryWouldRaise), (what, mine, theirs)
        assert mine.library_exception == theirs["error"], (what, mine, theirs)
        return
    assert isinstance(mine, BleuResult), (what, mine, theirs)
    assert abs(mine.score - theirs["score"]) <= TOL, (what, mine.score, theirs)
    if stats and "counts" in theirs:
        assert list(mine.counts) == theirs["counts"], (what, mine, theirs)
        assert list(mine.totals) == theirs["totals"], (what, mine, theirs)
        assert (mine.hyp_len, mine.ref_len) == (theirs["sys_len"], theirs["ref_len"]), what


def check(
    tag: str, version: str, batch: list[tuple[Hyps, Refs]], kwargs: dict[str, Any] | None = None
) -> None:
    """Every corpus of ``batch`` scored by the release and by the profiles of ``tag``: the
    corpus score, each segment's sentence score and their mean (with ``kwargs``: only the
    sentence scores, the release called with them and the profile overridden with their
    harness names)."""
    oracle = release(version)
    corpus_name, sentence_name = names(tag)
    requests: list[tuple[Any, ...]] = []
    for hyps, refs in batch:
        sent_refs = [r[:1] for r in refs] if oracle.one_reference else refs
        if kwargs is None:
            streams = Corpus(hypotheses=hyps, references=refs).to_streams(padding="none")
            requests.append(("corpus", hyps, streams))
        extra = () if kwargs is None else (kwargs,)
        requests += [("sentence", h, r, *extra) for h, r in zip(hyps, sent_refs, strict=True)]
    replies = iter(release(version).run(requests))
    overrides = {} if kwargs is None else harness_names(kwargs)
    for hyps, refs in batch:
        sent_refs = [r[:1] for r in refs] if oracle.one_reference else refs
        if kwargs is None:
            mine = ours(corpus_bleu, hypotheses=hyps, references=refs, profile=corpus_name)
            assert_same(mine, next(replies), (version, corpus_name, hyps, refs))
        sentences = [next(replies) for _ in hyps]
        for h, r, theirs in zip(hyps, sent_refs, sentences, strict=True):
            mine = ours(
                sentence_bleu, hypothesis=h, references=r, profile=sentence_name, **overrides
            )
            # add-k adds k to the counts and totals sacrebleu reports; ours stay the raw counts
            raw = kwargs is None or kwargs["smooth_method"] != "add-k"
            assert_same(mine, theirs, (version, sentence_name, h, r, kwargs), stats=raw)
        if kwargs is not None:
            continue
        mean = ours(corpus_bleu, hypotheses=hyps, references=sent_refs, profile=sentence_name)
        failed = next((s for s in sentences if "error" in s), None)
        expected = failed or {"score": sum(s["score"] for s in sentences) / len(sentences)}
        assert_same(mean, expected, (version, sentence_name, "mean", hyps, sent_refs))


def harness_names(kwargs: dict[str, Any]) -> dict[str, Any]:
    """sacrebleu's ``sentence_bleu`` keyword arguments as harness overrides (no
    ``smooth_value``: the method's default, ``None``, as in sacrebleu; a profile's own value,
    such as 1.4's floor 0, is not carried over to another method)."""
    return {"smooth": kwargs["smooth_method"], "smooth_value": kwargs.get("smooth_value")}


# ---------------------------------------------------------------------------- generated
@pytest.mark.parametrize(("tag", "version"), CASES)
@SETTINGS
@given(batch=st.lists(corpora(), min_size=BATCH, max_size=BATCH))
def test_profiles_match_release(tag: str, version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check(tag, version, batch)


@pytest.mark.parametrize(("tag", "version"), CASES)
@SETTINGS
@given(batch=st.lists(corpora(allow_empty=False), min_size=BATCH, max_size=BATCH))
def test_profiles_match_release_without_empty_lines(
    tag: str, version: str, batch: list[tuple[Hyps, Refs]]
) -> None:
    """Without empty lines the refusals are rare: the numbers themselves are compared."""
    check(tag, version, batch)


# ---------------------------------------------------------------------------- edge cases
EDGE_CASES: list[tuple[Hyps, Refs]] = [
    (["a b c d e"], [["x y z w v"]]),  # nothing matches: only the zero-match rule gives 0
    (["a b c d e", "f g h i j"], [["x y z w v"], ["k l m n o"]]),
    (["a b"], [["x y"]]),  # no n-gram of orders 3-4, none matching
    (["a b c d e"], [["a x y z w"]]),  # unigrams only
    ([""], [[""]]),
    (["a b"], [[""]]),
    ([""], [["a b"]]),
    (["a b c"], [["", "a b c d"]]),  # an empty reference: the closest, or left out
    (["a b c d"], [["a b c d", ""]]),
    (["a b"], [["", "", "a b c"]]),
    (["a b"], [[" ", "a b c"]]),  # a reference of spaces is never left out
    (["a"], [["", " ", "a b c"]]),  # ... even beside an empty one, which is
    (["a b", "c d"], [["a b", ""], [""]]),  # a segment whose references are all empty
    (["the cat", "x"], [["the cat", ""], ["the"]]),  # ragged
    (["the cat", "x"], [["the cat"], ["the", "x"]]),
    (["a\\b c"], [["a \\ b c"]]),
    (["3.5 1,000 e-mail."], [["3.5 1,000 e-mail ."]]),
    (["The cat sat on the mat ."] * 3, [["The cat sat on the mat."]] * 3),
]


@pytest.mark.parametrize(("tag", "version"), CASES)
def test_edge_cases(tag: str, version: str) -> None:
    check(tag, version, EDGE_CASES)


#: ``sentence_bleu`` keyword arguments and the overrides that give them: the versioned
#: profiles compose with the usual overrides.
SENTENCE_KWARGS: list[dict[str, Any]] = [
    {"smooth_method": "exp"},
    {"smooth_method": "floor", "smooth_value": 0.1},
    {"smooth_method": "add-k", "smooth_value": 1},
    {"smooth_method": "none"},
]


@pytest.mark.parametrize(("tag", "version"), [c for c in CASES if c[0] in ("1.4", "1.5", "2.0")])
@pytest.mark.parametrize("kwargs", SENTENCE_KWARGS, ids=lambda k: "-".join(map(str, k.values())))
@settings(max_examples=examples(8), deadline=None)
@given(batch=st.lists(corpora(), min_size=BATCH, max_size=BATCH))
def test_sentence_overrides_match_release(
    tag: str, version: str, kwargs: dict[str, Any], batch: list[tuple[Hyps, Refs]]
) -> None:
    check(tag, version, batch, kwargs)


# ---------------------------------------------------------------------------- intl
def check_intl(tag: str, version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    """``corpus_bleu(hyps, streams, tokenize="intl")`` of the release against the corpus
    profile of ``tag`` asked for ``tokenize="intl"`` (no ``sentence_bleu`` before 2.0.0 takes a
    tokenizer): the score and the statistics."""
    corpus_name, _ = names(tag)
    kwargs = {"tokenize": "intl"}
    requests = [
        ("corpus", h, Corpus(hypotheses=h, references=r).to_streams(padding="none"), kwargs)
        for h, r in batch
    ]
    for (hyps, refs), theirs in zip(batch, release(version).run(requests), strict=True):
        mine = ours(corpus_bleu, hypotheses=hyps, references=refs, profile=corpus_name, **kwargs)
        assert_same(mine, theirs, (version, corpus_name, "intl", hyps, refs))


@pytest.mark.parametrize(("tag", "version"), CASES)
@SETTINGS
@given(batch=st.lists(intl_corpora(), min_size=BATCH, max_size=BATCH))
def test_intl_matches_release(tag: str, version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check_intl(tag, version, batch)


INTL_EDGES: list[tuple[Hyps, Refs]] = [
    (["a\\b c d e"], [["a \\ b c d e"]]),  # the backslash: glued up to 1.5.1
    (["x\\.y ]\\[ z"], [["x \\ . y ] \\ [ z"]]),
    (["²,² ½.x 5,5 ٣.٣"], [["² , ² ½ . x 5,5 ٣.٣"]]),  # numbers that are not decimal digits
    (["a\U00011f43b \U0001fae8c"], [["a \U00011f43 b \U0001fae8 c"]]),  # after Unicode 14
]


@pytest.mark.parametrize(("tag", "version"), CASES)
def test_intl_edge_cases(tag: str, version: str) -> None:
    check_intl(tag, version, INTL_EDGES)


def test_intl_is_the_release_form_under_versioned_profiles() -> None:
    """``tokenize="intl"`` under a 1.x profile is ``intl-1.x`` (and the signature says so);
    under 2.0 and today's, ``intl``; set directly, a field is as given."""
    for tag in ("1.2", "1.4", "1.5"):
        for name in names(tag):
            assert resolve_config(name, tokenize="intl").tokenize == INTL_1X
            assert resolve_config(name, tokenize="intl").signature().startswith(f"tok:{INTL_1X}|")
    for name in (*names("2.0"), *names("")):
        assert resolve_config(name, tokenize="intl").tokenize == "intl"
    assert PROFILES["sacrebleu@1.5"].replace(tokenize="intl").tokenize == "intl"
    hyp, ref = INTL_EDGES[0][0], INTL_EDGES[0][1]
    old = corpus_bleu(hypotheses=hyp, references=ref, profile="sacrebleu@1.5", tokenize="intl")
    today = corpus_bleu(hypotheses=hyp, references=ref, profile="sacrebleu", tokenize="intl")
    assert old.score < today.score == 100


# ---------------------------------------------------------------------------- declarations
def test_versioned_profiles_are_declared_as_such() -> None:
    versioned = [p for p in DECLARED if p.versioned and p.config.library == "sacrebleu"]
    assert {p.name for p in versioned} == {name for tag in RANGES if tag for name in names(tag)}
    for p in versioned:
        assert p.name not in DEFAULT_PROFILES and p.name not in CURRENT_PROFILES
        assert RELEASES[p.name] == p.releases
        assert VERIFICATION[p.name].evidence == "tests/test_profile_sacrebleu_releases.py"
        first, _, last = dict(p.config.extra)["release"].partition("=")[2].partition("..")
        assert p.releases == f"{first}–{last}"
        assert f"|release:sacrebleu={first}..{last}|" in PROFILES[p.name].signature()
        assert RANGES[p.name.partition("@")[2]][0] in VERIFICATION[p.name].oracle
    assert "release:" not in PROFILES["sacrebleu"].signature()


def test_versioned_profile_composes_with_overrides() -> None:
    plain = corpus_bleu(
        hypotheses=["a b c d e"], references=[["a x y z w"]], profile="sacrebleu-sentence@1.4"
    )
    smoothed = corpus_bleu(
        hypotheses=["a b c d e"],
        references=[["a x y z w"]],
        profile="sacrebleu-sentence@1.4",
        smooth_value=0.1,
    )
    assert plain.score == 0.0 < smoothed.score
    assert "release:sacrebleu=1.3.1..1.4.14" in smoothed.signature
    assert "smooth:floor[0.1]" in smoothed.signature
