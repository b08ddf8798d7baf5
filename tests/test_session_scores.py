"""Corpus scores made in the worker that counts their statistics (harness.session.scores):
the scores this process would make, found only for the same configuration and the same
corpora's content in the same order."""

from __future__ import annotations

import numpy as np
import pytest

from harness.analysis.answer import mixed_configs
from harness.bleu import batch_scores
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.data.corpus import Corpus
from harness.session import Session
from harness.session import parallel as par
from harness.session.ahead import CountAhead
from harness.session.cache import tokenizer_signature
from harness.session.scores import memo_of

SACRE = PROFILES["sacrebleu"]


def _corpus(n: int, seed: int) -> Corpus:
    rng = np.random.default_rng(seed)
    words = ["the", "Cat", "sat", "on", "a", "mat", "dog", "ran", "fast", ".", ",", "Über"]
    line = lambda k: " ".join(rng.choice(words, size=k))  # noqa: E731
    refs = tuple((line(int(rng.integers(1, 9))),) for _ in range(n))
    return Corpus(
        hypotheses=tuple(line(int(rng.integers(1, 9))) for _ in range(n)), references=refs
    )


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every batch of scores made in this process."""
    made: list[object] = []
    real = batch_scores.corpus_scores

    def counting(stats, config):  # type: ignore[no-untyped-def]
        made.append(config)
        return real(stats, config)

    monkeypatch.setattr(batch_scores, "corpus_scores", counting)
    return made


def _answer_mixes() -> list:  # type: ignore[type-arg]
    return list(dict.fromkeys(mixed_configs(DEFAULT_PROFILES, "sacrebleu")))


def test_the_scores_a_worker_makes_are_this_process_s(here: list[object]) -> None:
    """Every mix of the answer scored where its tokenization is counted (a worker) is the
    score this process makes of the same statistics, and this process makes none of them."""
    systems = {f"sys{i}": _corpus(40, seed=i) for i in range(3)}
    systems["again"] = systems["sys1"]  # the same content, counted once, scored in its place
    mixes = _answer_mixes()
    s = Session(systems)
    with par.process_pool(1) as pool:
        given = CountAhead(s.cache, s.corpora.values(), mixes, submit=pool.submit, score=mixes)
        assert given.scored and given.finish() == len(given.pairs)
    scored = sum(len(configs) for _, configs in given.scored)
    assert len(memo_of(s.cache)) == scored > 0
    names = list(systems)
    before = len(here)
    from_worker = {c: s.corpus_scores(c, names) for c in mixes}
    computed_here = here[before:]
    fresh = Session(systems)
    assert len(memo_of(fresh.cache)) == 0
    for config, scores in from_worker.items():
        assert repr(scores) == repr(fresh.corpus_scores(config, names)), config
    counted = {tokenizer_signature(c) for _, configs in given.scored for c in configs}
    assert not [c for c in computed_here if tokenizer_signature(c) in counted]


def test_a_kept_score_is_found_for_its_config_and_content_only(here: list[object]) -> None:
    a, b = _corpus(30, seed=1), _corpus(30, seed=2)
    s = Session({"a": a, "b": b})
    memo = memo_of(s.cache)
    memo.put(SACRE, [s.cache.digest(a), s.cache.digest(b)], [1.0, 2.0])
    assert s.corpus_scores(SACRE, ["a", "b"]) == [1.0, 2.0] and not here  # the kept ones
    other = Session({"a": a, "b": _corpus(30, seed=3)}, cache=s.cache)  # other content
    assert other.corpus_scores(SACRE, ["a", "b"]) != [1.0, 2.0] and len(here) == 1
    assert s.corpus_scores(SACRE, ["b", "a"]) != [2.0, 1.0]  # another order: not kept
    assert s.corpus_scores(PROFILES["nltk"], ["a", "b"]) != [1.0, 2.0]  # another config
    assert len(here) == 3


def test_a_tokenization_not_counted_on_every_corpus_is_not_scored_there() -> None:
    a, b = _corpus(20, seed=1), _corpus(20, seed=2)
    s = Session({"a": a, "b": b})
    s.statistics(SACRE, "a")  # kept: the worker would count only b
    ahead = CountAhead(s.cache, [a, b], [SACRE], submit=_never, score=[SACRE])
    assert ahead.pairs == [(1, 0)] and not ahead.scored


def _never(*_: object) -> object:
    from concurrent.futures import Future

    return Future()
