"""The fast path's counting threads, one kept per thread that counts: counts in several
threads at once, a thread's counting thread ending with it, a forked child starting its own,
and a chunk's error leaving it working."""

from __future__ import annotations

import multiprocessing
import threading
import time
from typing import Any

import numpy as np
import pytest

from harness.bleu import engine, fastcount, native
from harness.bleu.config import BleuConfig
from harness.data.corpus import Corpus

SEGMENTS = fastcount._PIPELINE_MIN_SEGMENTS + 500


def _corpus(seed: int) -> Corpus:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(300)] + [",", ".", "the", "a"]

    def line() -> str:
        return " ".join(rng.choice(words, size=int(rng.integers(0, 25))))

    return Corpus(
        hypotheses=tuple(line() for _ in range(SEGMENTS)),
        references=tuple((line(), line()) for _ in range(SEGMENTS)),
        check_text=False,
    )


def _counts(corpus: Corpus, config: BleuConfig) -> tuple[Any, ...]:
    c = fastcount.count_statistics(corpus.hypotheses, corpus.references, config.text_rules, 4)
    return tuple(a.tolist() for a in c)


def _expected(corpus: Corpus, config: BleuConfig) -> tuple[Any, ...]:
    ref = engine._statistics_reference(corpus, config, max_order=4)
    return (
        ref.hyp_len.tolist(),
        [x for r in ref.ref_lens for x in r],
        [len(r) for r in ref.ref_lens],
        ref.matches.tolist(),
    )


def test_counts_in_several_threads_at_once() -> None:
    """Four threads count four corpora at once, each with its counting thread: each count
    equals the Python reference's."""
    corpora = [_corpus(seed) for seed in range(4)]
    configs = [BleuConfig(tokenize=t) for t in ("13a", "whitespace", "intl", "char")]
    got: dict[int, tuple[Any, ...]] = {}
    errors: list[BaseException] = []

    def count(k: int) -> None:
        try:
            got[k] = _counts(corpora[k], configs[k])
        except BaseException as exc:  # reported below, with the thread's own traceback lost
            errors.append(exc)

    threads = [threading.Thread(target=count, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    for k in range(4):
        assert got[k] == _expected(corpora[k], configs[k]), configs[k].tokenize


def _counting_threads() -> set[int | None]:
    return {t.ident for t in threading.enumerate() if t.name.startswith("count_")}


def test_a_threads_counting_thread_ends_with_it() -> None:
    before = _counting_threads()
    worker = threading.Thread(target=_counts, args=(_corpus(2), BleuConfig()))
    worker.start()
    worker.join(120)
    deadline = time.monotonic() + 10
    while _counting_threads() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _counting_threads() - before, "a finished thread's counting thread still runs"


def _count_in_child(queue: Any) -> None:
    corpus, config = _corpus(7), BleuConfig()
    queue.put(_counts(corpus, config) == _expected(corpus, config))


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
def test_a_forked_child_counts_with_a_thread_of_its_own() -> None:
    """The parent's counting thread is not in a forked child, which starts its own (a child
    that used the parent's executor would wait for a thread that is not there)."""
    _counts(_corpus(1), BleuConfig())  # the parent's counting thread is running
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_count_in_child, args=(queue,))
    child.start()
    child.join(120)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive, "the forked child's count never finished"
    assert child.exitcode == 0
    assert queue.get(timeout=10) is True


@pytest.mark.skipif(native.module() is None, reason="the compiled counter")
def test_a_chunks_error_is_raised_and_the_next_count_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kernels = native.module()
    real = kernels.count_segments
    calls = [0]

    def failing(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise fastcount.DoesNotFit("the first chunk")
        return real(*args)

    monkeypatch.setattr(kernels, "count_segments", failing)
    corpus, config = _corpus(3), BleuConfig()
    with pytest.raises(fastcount.DoesNotFit):
        _counts(corpus, config)
    monkeypatch.setattr(kernels, "count_segments", real)
    assert _counts(corpus, config) == _expected(corpus, config)
