"""The cyclic garbage collector's pause (harness.holds): restored as found, nested and
overlapping across threads, and held through a count of a corpus."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from harness.bleu import engine, vocabulary
from harness.bleu.profiles import get_profile
from harness.data.corpus import Corpus
from harness.holds import collector_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pause_restores_the_collector_as_found(collector_on: None) -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "a collector the caller had stopped was started"
    finally:
        gc.enable()


def test_pause_nests_and_survives_an_error(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled(), "the inner pause's end started the collector"
        raise RuntimeError
    assert gc.isenabled()


def test_overlapping_pauses_in_two_threads(collector_on: None) -> None:
    """The first pause to end, in another thread, leaves the collector off for the second."""
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            entered.set()
            release.wait(10)

    with collector_paused():
        worker = threading.Thread(target=other)
        worker.start()
        assert entered.wait(10)
    assert not gc.isenabled(), "the main thread's pause ended while the worker's still runs"
    release.set()
    worker.join(10)
    assert gc.isenabled()


def test_counts_run_with_the_collector_paused(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line a count tokenizes (the vocabulary's ids, where the token lists are made) is
    tokenized with the collector off, by the fast path and the hashed count alike; it runs
    again afterwards."""
    lines = [f"w{i % 97} the {i % 13} cat , sat . on x{i % 31} mat ( {i} )" for i in range(6000)]
    corpus = Corpus(
        hypotheses=tuple(lines),
        references=tuple((line, line[::-1]) for line in lines),
        check_text=False,
    )
    states: list[bool] = []
    real = vocabulary.Vocabulary.ids

    def ids(self: vocabulary.Vocabulary, batch: Any) -> Any:
        states.append(gc.isenabled())
        return real(self, batch)

    monkeypatch.setattr(vocabulary.Vocabulary, "ids", ids)
    for name in ("nltk", "tensor2tensor", "helm-bleu-1", "fairseq"):
        engine.compute_statistics(corpus, get_profile(name))
    assert states, "no count went through the vocabulary"
    assert not any(states), f"{states.count(True)} of {len(states)} batches with the collector on"
    assert gc.isenabled()
