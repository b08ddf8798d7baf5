"""Differential tests: the versioned torchmetrics, pytorch-ignite and datasets profiles against
the old releases themselves (:mod:`harness.bleu.peer_release_profiles`).

* ``torchmetrics-sacrebleu@0.11``: torchmetrics 0.11.4's ``sacre_bleu_score`` (0.6.0 and 0.8.2
  under ``BLEU_HARNESS_TEST_DEPTH=full``), from the package index, in a process of its own
  (:func:`tests.peer_releases.torchmetrics_release`). torchmetrics 0.6–0.11 does not import on
  this Python (its ``__init__`` imports ``pkg_resources``): its text BLEU modules are run from
  the published tree with their own imports, the packages above them stubbed. Its arithmetic is
  float32: 1e-4 BLEU points, as the ``torchmetrics-sacrebleu`` tests.
* ``torchmetrics-sacrebleu`` (today's) on torchmetrics 1.0.0 (1.0.3 at full depth), run the
  same way: the first releases whose 13a pads the line, which its range ``≥ 1.0.0`` claims.
* ``ignite@0.4.5``: pytorch-ignite 0.4.5's ``Bleu`` (0.4.6 at full depth), imported whole from
  the published tree in a process of its own; its arithmetic is float64: 1e-9, the mean and
  each segment's score.
* ``datasets@2``: datasets 1.x–2.x's ``metrics/bleu/bleu.py`` is in neither its wheel nor its
  sdist (``load_metric`` fetched it from GitHub); it hands the caller's token lists to
  tensorflow/nmt's ``compute_bleu`` from ``nmt_bleu.py`` beside it, the same file the Hub
  ``bleu`` module ships: that file (``evaluate_module``) is run here on ``str.split()`` token
  lists, as ``_compute`` calls it; 1e-9, with ``smooth`` off and on.

Generated corpora (:func:`tests.strategies.corpora`, batched per round trip), corpora whose
lines begin or end with numbers and marks (where unpadded 13a differs), corpora with segments
given no reference, and each row's edge cases.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import corpus_bleu, sentence_bleu
from harness.bleu.profiles import DECLARED, PROFILES, RELEASES, VERIFICATION, profile_of_release
from harness.bleu.result import BleuResult
from harness.errors import HarnessError, LibraryWouldRaise
from harness.scorers import peer_releases

from .depth import depth, examples
from .peer_releases import PeerRelease, ignite_release, nmt_compute_bleu, torchmetrics_release
from .strategies import corpora

# the generated words include a byte-order mark, which the corpus warns about
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

EXACT = 1e-9
FLOAT32 = VERIFICATION["torchmetrics-sacrebleu@0.11"].tolerance
BATCH = 20
SETTINGS = settings(max_examples=examples(40), deadline=None)
FULL = depth() == "full"

TORCHMETRICS = ["0.11.4", *(["0.6.0", "0.8.2"] if FULL else [])]
IGNITE = ["0.4.5", *(["0.4.6"] if FULL else [])]
#: The first releases today's ``torchmetrics-sacrebleu`` covers (1.9.0: test_profile_peers.py).
TODAY_TORCHMETRICS = ["1.0.0", *(["1.0.3"] if FULL else [])]

Hyps = list[str]
Refs = list[list[str]]


def _lists(corpora: tuple[peer_releases.Corpus, ...]) -> list[tuple[Hyps, Refs]]:
    """The harness's edge corpora (:mod:`harness.scorers.peer_releases`) as lists."""
    return [(list(h), [list(r) for r in refs]) for h, refs in corpora]


_RUNNING: dict[tuple[str, str], PeerRelease] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_releases() -> Iterator[None]:
    yield
    while _RUNNING:
        _RUNNING.popitem()[1].close()


def torchmetrics(version: str) -> PeerRelease:
    if ("torchmetrics", version) not in _RUNNING:
        _RUNNING["torchmetrics", version] = torchmetrics_release(version)
    return _RUNNING["torchmetrics", version]


def ignite(version: str) -> PeerRelease:
    if ("ignite", version) not in _RUNNING:
        _RUNNING["ignite", version] = ignite_release(version)
    return _RUNNING["ignite", version]


def ours(hyps: Hyps, refs: Refs, profile: str, **overrides: Any) -> BleuResult | HarnessError:
    try:
        return corpus_bleu(hypotheses=hyps, references=refs, profile=profile, **overrides)
    except (LibraryWouldRaise, ZeroDivisionError) as exc:
        return exc  # type: ignore[return-value]


def assert_same(mine: Any, theirs: dict[str, Any], tol: float, what: object) -> None:
    """A score within ``tol`` (0–100), or an exception where the release raises."""
    if "error" in theirs:
        assert isinstance(mine, LibraryWouldRaise), (what, mine, theirs)
        return
    assert isinstance(mine, BleuResult), (what, mine, theirs)
    assert mine.score == pytest.approx(theirs["score"], abs=tol, nan_ok=True), (what, theirs)


# ---------------------------------------------------------------------------- strategies
_HEADS = ["", "", ".5 ", ",3 ", "5. ", "3,5 "]
_TAILS = ["", "", " 5.", " in 1990,", " 3.5.", " 7,", " 2.", "."]


@st.composite
def numbered(draw: st.DrawFn) -> tuple[Hyps, Refs]:
    """A generated corpus whose lines often begin or end with a number and a mark."""
    hyps, refs = draw(corpora())

    def vary(line: str) -> str:
        return f"{draw(st.sampled_from(_HEADS))}{line}{draw(st.sampled_from(_TAILS))}"

    return [vary(h) for h in hyps], [[vary(r) for r in seg] for seg in refs]


@st.composite
def without_some_references(draw: st.DrawFn) -> tuple[Hyps, Refs]:
    """A generated corpus in which some segments are given no reference."""
    hyps, refs = draw(corpora())
    return hyps, [[] if draw(st.integers(0, 2)) == 0 else seg for seg in refs]


# ---------------------------------------------------------------------------- torchmetrics
def check_torchmetrics(
    version: str, batch: list[tuple[Hyps, Refs]], name: str = "torchmetrics-sacrebleu@0.11"
) -> None:
    kwargs = [{}, {"lowercase": True}]
    requests = [[h, r, k] for h, r in batch for k in kwargs]
    replies = iter(torchmetrics(version).run(requests))
    for hyps, refs in batch:
        for k in kwargs:
            theirs = next(replies)
            if "score" in theirs:
                theirs = {"score": 100 * theirs["score"]}
            assert_same(ours(hyps, refs, name, **k), theirs, FLOAT32, (version, hyps, refs, k))


@pytest.mark.parametrize("version", TORCHMETRICS)
@SETTINGS
@given(batch=st.lists(corpora() | numbered(), min_size=BATCH, max_size=BATCH))
def test_torchmetrics_matches_release(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check_torchmetrics(version, batch)


TORCHMETRICS_EDGES: list[tuple[Hyps, Refs]] = _lists(peer_releases.TORCHMETRICS_EDGES)


@pytest.mark.parametrize("version", TORCHMETRICS)
def test_torchmetrics_edge_cases(version: str) -> None:
    check_torchmetrics(version, TORCHMETRICS_EDGES)
    # the factor itself: today's profile differs from the release on a line-final "5."
    (reply,) = torchmetrics(version).run([[["It cost 5."], [["It cost 5 ."]], {}]])
    today = corpus_bleu(
        hypotheses=["It cost 5."], references=[["It cost 5 ."]], profile="torchmetrics-sacrebleu"
    )
    assert abs(today.score - 100 * reply["score"]) > 1


# ------------------------------------------------------------ torchmetrics from 1.0.0 on
@pytest.mark.parametrize("version", TODAY_TORCHMETRICS)
@SETTINGS
@given(batch=st.lists(corpora() | numbered(), min_size=BATCH, max_size=BATCH))
def test_torchmetrics_1_0_is_todays_profile(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    """torchmetrics 1.0 pads the line as mteval does: today's profile reproduces it, the
    first release its range (``≥ 1.0.0``) holds."""
    check_torchmetrics(version, batch, "torchmetrics-sacrebleu")


@pytest.mark.parametrize("version", TODAY_TORCHMETRICS)
def test_torchmetrics_1_0_edge_cases(version: str) -> None:
    check_torchmetrics(version, TORCHMETRICS_EDGES, "torchmetrics-sacrebleu")


# ---------------------------------------------------------------------------- ignite
def check_ignite(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    name = "ignite@0.4.5"
    requests = [
        [[h.split() for h in hyps], [[r.split() for r in seg] for seg in refs], {}]
        for hyps, refs in batch
    ]
    for (hyps, refs), theirs in zip(batch, ignite(version).run(requests), strict=True):
        what = (version, hyps, refs)
        assert_same(ours(hyps, refs, name), {"score": 100 * theirs["score"]}, EXACT, what)
        for h, r, s in zip(hyps, refs, theirs["segments"], strict=True):
            mine = sentence_bleu(hypothesis=h, references=r, profile=name)
            assert mine.score == pytest.approx(100 * s, abs=EXACT), (what, h, r)


@pytest.mark.parametrize("version", IGNITE)
@SETTINGS
@given(batch=st.lists(corpora() | without_some_references(), min_size=BATCH, max_size=BATCH))
def test_ignite_matches_release(version: str, batch: list[tuple[Hyps, Refs]]) -> None:
    check_ignite(version, batch)


IGNITE_EDGES: list[tuple[Hyps, Refs]] = _lists(peer_releases.IGNITE_EDGES)


@pytest.mark.parametrize("version", IGNITE)
def test_ignite_edge_cases(version: str) -> None:
    check_ignite(version, IGNITE_EDGES)
    with pytest.raises(HarnessError):
        corpus_bleu(hypotheses=["a b c d"], references=[[]], profile="ignite")


# ---------------------------------------------------------------------------- datasets
@pytest.fixture(scope="module")
def compute_bleu(evaluate_module: Path) -> Any:
    """tensorflow/nmt's ``compute_bleu``, from the ``nmt_bleu.py`` datasets' bleu metric
    imports."""
    return nmt_compute_bleu(evaluate_module)


def check_datasets(compute_bleu: Any, batch: list[tuple[Hyps, Refs]]) -> None:
    for hyps, refs in batch:
        for smooth, override in ((False, "none"), (True, "plus-one")):
            try:
                bleu = compute_bleu(
                    reference_corpus=[[r.split() for r in seg] for seg in refs],
                    translation_corpus=[h.split() for h in hyps],
                    max_order=4,
                    smooth=smooth,
                )[0]
                theirs: dict[str, Any] = {"score": 100 * bleu}
            except ZeroDivisionError as exc:
                theirs = {"error": type(exc).__name__, "message": str(exc)}
            mine = ours(hyps, refs, "datasets@2", smooth=override)
            assert_same(mine, theirs, EXACT, (hyps, refs, smooth))


@SETTINGS
@given(batch=st.lists(corpora(), min_size=BATCH, max_size=BATCH))
def test_datasets_matches_nmt_bleu_on_split_tokens(
    compute_bleu: Any, batch: list[tuple[Hyps, Refs]]
) -> None:
    check_datasets(compute_bleu, batch)


def test_datasets_edge_cases(compute_bleu: Any) -> None:
    edges = _lists(peer_releases.DATASETS_EDGES)
    check_datasets(compute_bleu, edges)
    # the factor itself: evaluate's 13a gives another number on the same strings
    hyps, refs = edges[0]
    assert corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate").score == 100
    assert corpus_bleu(hypotheses=hyps, references=refs, profile="datasets@2").score < 100


# ---------------------------------------------------------------------------- declarations
PEERS = {
    "torchmetrics-sacrebleu@0.11",
    "ignite@0.4.5",
    "datasets@2",
    "lm-eval@0.3",
    "lm-eval-truthfulqa@0.3",
}
EVIDENCE = {
    "lm-eval@0.3": "tests/test_profile_lm_eval_releases.py",
    "lm-eval-truthfulqa@0.3": "tests/test_profile_lm_eval_releases.py",
}


def test_peer_profiles_are_declared_versioned() -> None:
    declared = {p.name: p for p in DECLARED if p.name in PEERS}
    assert set(declared) == PEERS
    for name, p in declared.items():
        assert p.versioned and RELEASES[name] == p.releases
        assert VERIFICATION[name].evidence == EVIDENCE.get(
            name, "tests/test_profile_peer_releases.py"
        )
        library, _, span = dict(p.config.extra)["release"].partition("=")
        first, _, last = span.partition("..")
        assert p.releases == f"{first}–{last}"
        assert f"|release:{library}={first}..{last}|" in PROFILES[name].signature()
        assert profile_of_release(name.split("@")[0], last) == name


@pytest.mark.parametrize(
    ("name", "version", "profile"),
    [
        ("torchmetrics-sacrebleu", "0.6.0", "torchmetrics-sacrebleu@0.11"),
        ("torchmetrics-sacrebleu", "0.11.4", "torchmetrics-sacrebleu@0.11"),
        ("torchmetrics-sacrebleu", "1.0.0", "torchmetrics-sacrebleu"),
        ("torchmetrics-sacrebleu", "1.9.0", "torchmetrics-sacrebleu"),
        ("torchmetrics-sacrebleu", "0.5.0", None),
        ("evaluate", "0.1.0", "evaluate"),
        ("evaluate", "0.4.6", "evaluate"),
        ("lm-eval", "0.0.1", "lm-eval@0.3"),
        ("lm-eval-truthfulqa", "0.2.0", "lm-eval-truthfulqa@0.3"),
        ("lm-eval-truthfulqa", "0.0.1", None),
    ],
)
def test_profile_of_release(name: str, version: str, profile: str | None) -> None:
    assert profile_of_release(name, version) == profile
