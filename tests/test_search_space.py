"""identify's search space scored in parts: in calls of a few tokenizations, and partly in a
worker (the framework tokenizations it counts, scored there), must give the readings of the
search done in one process, in the same order (the answer's ties depend on it).
"""

from __future__ import annotations

import random
from concurrent.futures import Future

import pytest

from harness.bleu.tokenizers import TextRules
from harness.data.corpus import Corpus
from harness.diagnose import search, search_space
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.preprocess import readings
from harness.session import Session

WORDS = "the a cat dog sat on mat , . runs fast slow red blue big small it is".split()


def _marked(seed: int, segments: int = 40) -> Corpus:
    """Three references per segment, hypotheses with subword markers left in (``@@``) and
    Moses-tokenized punctuation: the search has preprocessing readings to score."""
    rng = random.Random(seed)

    def line(lo: int = 3) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, 12)))

    hyps = tuple(
        line().replace("cat", "c@@ at").replace("dog", "do@@ g") + " ." for _ in range(segments)
    )
    refs = tuple(tuple(line() for _ in range(3)) for _ in range(segments))
    return Corpus(hypotheses=hyps, references=refs, name=f"marked{seed}", check_text=False)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No readings kept from another test."""
    monkeypatch.setattr(search, "_EVAL_CACHE", {})


def _readings(corpus: Corpus, session: Session) -> list[str]:
    return [repr(ev) for ev in search.evaluations(corpus, None, session)]


def test_the_search_with_a_worker_is_the_search_in_one_process(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _marked(1)
    assert len(readings(corpus)) > 1 and min(map(len, corpus.references)) == 3
    serial = _readings(corpus, Session(jobs=1))
    search._EVAL_CACHE.clear()
    from_worker: list[int] = []
    real = search_space.ScoreAhead.finish

    def finish(self: search_space.ScoreAhead) -> dict[bytes, list[float | None]]:
        got = real(self)
        from_worker.append(len(got))
        return got

    monkeypatch.setattr(search_space.ScoreAhead, "finish", finish)
    assert _readings(corpus, Session(jobs=2)) == serial
    assert sum(from_worker) > 0  # some of the space was scored in the worker


def test_tasks_no_worker_took_are_searched_here(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that never starts its tasks (a future no one runs stands for each): this
    process takes them all back and finds the same readings."""
    corpus = _marked(2)
    serial = _readings(corpus, Session(jobs=1))
    search._EVAL_CACHE.clear()
    waiting: list[Future[object]] = []

    class Idle:
        def __init__(self, *_: object, **__: object) -> None:
            pass

        def __enter__(self) -> Idle:
            return self

        def __exit__(self, *_: object) -> None:
            pass

        def submit(self, *_: object) -> Future[object]:
            waiting.append(Future())
            return waiting[-1]

    monkeypatch.setattr(search, "process_pool", Idle)
    assert _readings(corpus, Session(jobs=2)) == serial
    assert waiting and all(f.cancelled() for f in waiting)


def test_a_space_scored_in_calls_of_any_size_has_the_same_scores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = _marked(3, segments=25)
    session = Session(corpus)
    texts = search._choices(["13a", "intl", "char", "none"])
    smoothings = search._smoothings()
    scorer = CorpusScorer(corpus, session=session)
    spaces = []
    for text in texts:
        stats = scorer.tokenized(TextRules(**text))
        spaces.append(
            (
                text,
                search_space.space_of(stats, (4, 2), ("corpus", "sentence-mean"), len(smoothings)),
            )
        )
    monkeypatch.setattr(search_space, "ROWS_PER_CALL", 10**9)
    together = search_space.score_spaces(CorpusScorer(corpus, session=session), spaces, smoothings)
    monkeypatch.setattr(search_space, "ROWS_PER_CALL", 1)
    apart = search_space.score_spaces(CorpusScorer(corpus, session=session), spaces, smoothings)
    assert [list(map(repr, s)) for s in apart] == [list(map(repr, s)) for s in together]
    assert len(together) == len(texts) and all(
        len(s) == len(sp.keys) for s, (_, sp) in zip(together, spaces, strict=True)
    )


def test_a_worker_scores_each_statistics_once_and_not_those_it_is_told_of() -> None:
    corpus = _marked(4, segments=20)
    texts = search._choices(["13a", "char", "intl"])
    args = (search._MAX_ORDERS, ("corpus", "sentence-mean"), search._smoothings())
    counted, scores = search_space.count_and_score(corpus, texts, *args, frozenset())
    session = Session(corpus)
    scorer = CorpusScorer(corpus, session=session)
    names = [search_space.digest(scorer.tokenized(TextRules(**t))) for t in texts]
    assert all(s is not None for s in counted)
    # lowercase text: each tokenizer cased and lowercased counts alike, the second not
    # scored again
    assert 1 < len(set(names)) < len(names)
    assert [s is not None for s in scores] == [names.index(n) == i for i, n in enumerate(names)]
    here = search._scores(corpus, texts, session)
    for name, values in zip(names, scores, strict=True):
        if values is not None:
            assert list(map(repr, values)) == list(map(repr, here[name]))
    _, told = search_space.count_and_score(corpus, texts, *args, frozenset(names[:1]))
    other = next(i for i, n in enumerate(names) if n != names[0])
    assert told[0] is None and told[other] is not None
