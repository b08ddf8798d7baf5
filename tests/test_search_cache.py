"""identify's readings on disk: a second run reads what the first scored, and nothing else.

A stale entry would be a wrong answer, so these tests change each thing the readings depend on
— a file's content, the tokenizers that work, the code's fingerprint — and require a new search;
a session without a disk cache (``--no-cache``) must neither read nor write one; a bad entry is a
warning and a new search; and what is read back must be the readings the search returned, to
every field and every float's last digit (``repr``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

import harness
from harness.data.corpus import Corpus
from harness.diagnose import identify as identify_module
from harness.diagnose import search, search_cache
from harness.diagnose.identify import chance, identify
from harness.session import Session, open_cache
from harness.session.cache import CacheWarning

FIXTURE = "tutorial_cat_on_the_mat/candidate"


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[Corpus]:
    """The corpora the search scored (not read from disk) in this test; the in-memory readings
    are forgotten first, so every call reaches the disk cache."""
    monkeypatch.setattr(search, "_EVAL_CACHE", {})
    monkeypatch.setattr(identify_module, "_CANDIDATES", {})
    scored: list[Corpus] = []
    real = search._score_readings

    def counted(corpus: Corpus, *args: object, **kwargs: object) -> list[search.Evaluated]:
        scored.append(corpus)
        return real(corpus, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "_score_readings", counted)
    return scored


def _fresh(session: Session, corpus: Corpus) -> list[search.Evaluated]:
    """:func:`search.evaluations` with the process's own readings forgotten."""
    search._EVAL_CACHE.clear()
    return search.evaluations(corpus, None, session)


def _disk(tmp_path: Path) -> Session:
    return Session(cache=open_cache(tmp_path / "stats"))


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "stats" / "results").glob("*.rows"))


def test_second_search_reads_the_first_one_readings(tmp_path: Path, searches: list[Corpus]) -> None:
    corpus = search.as_corpus(FIXTURE)
    first = _fresh(_disk(tmp_path), corpus)
    assert len(searches) == 1 and len(_entries(tmp_path)) == 1
    again = _fresh(_disk(tmp_path), corpus)
    assert len(searches) == 1  # read, not scored
    assert again == first and list(map(repr, again)) == list(map(repr, first))


def test_what_identify_answers_is_the_same_read_back(
    tmp_path: Path, searches: list[Corpus]
) -> None:
    corpus = search.as_corpus("google_nasa_opportunity/candidate_2")
    answers = []
    for _ in range(2):
        search._EVAL_CACHE.clear()
        identify_module._CANDIDATES.clear()
        session = _disk(tmp_path)
        found = identify("0.27", corpus, session=session)
        answers.append(([repr(c) for c in found], repr(chance("0.27", corpus, session=session))))
    assert len(searches) == 1
    assert answers[0] == answers[1] and answers[0][0]


def test_readings_round_trip_exactly() -> None:
    found = search.evaluations(
        search.as_corpus("forensic_preprocessing/bpe_left_in"), None, Session()
    )
    assert any(ev.preprocessing for ev in found) and any(ev.equivalent for ev in found)
    back = search_cache.decode(search_cache.encode(found))
    assert back == found and list(map(repr, back)) == list(map(repr, found))


def test_changed_content_is_a_new_search(tmp_path: Path, searches: list[Corpus]) -> None:
    corpus = search.as_corpus(FIXTURE)
    _fresh(_disk(tmp_path), corpus)
    changed = dataclasses.replace(
        corpus, hypotheses=(corpus.hypotheses[0] + " mat", *corpus.hypotheses[1:])
    )
    _fresh(_disk(tmp_path), changed)
    assert searches == [corpus, changed] and len(_entries(tmp_path)) == 2


def test_other_working_tokenizers_are_a_new_search(
    tmp_path: Path, searches: list[Corpus], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = search.as_corpus(FIXTURE)
    first = _fresh(_disk(tmp_path), corpus)
    working = search._available_tokenizers()
    assert "char" in working
    monkeypatch.setattr(
        search, "_available_tokenizers", lambda: [t for t in working if t != "char"]
    )
    fewer = _fresh(_disk(tmp_path), corpus)
    assert len(searches) == 2 and len(_entries(tmp_path)) == 2
    assert "char" in {ev.config.tokenize for ev in first}
    assert "char" not in {ev.config.tokenize for ev in fewer}


def test_other_code_is_a_new_search(
    tmp_path: Path, searches: list[Corpus], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = search.as_corpus(FIXTURE)
    _fresh(_disk(tmp_path), corpus)
    real = search_cache.code_fingerprint
    monkeypatch.setattr(search_cache, "code_fingerprint", lambda parts: real(parts) + "-edited")
    _fresh(_disk(tmp_path), corpus)
    assert len(searches) == 2 and len(_entries(tmp_path)) == 2


def test_the_fingerprint_covers_every_module_the_search_runs() -> None:
    """Every module of the package loaded once the search has run is under a part of
    :data:`search_cache.CODE_PARTS` (the layers above the search cannot be imported by it)."""
    search.evaluations(search.as_corpus(FIXTURE), None, Session())
    root = Path(harness.__file__).resolve().parent
    above = ("pitfalls", "report", "cli")
    parts = search_cache.CODE_PARTS
    loaded = [
        Path(m.__file__).resolve().relative_to(root).as_posix()
        for name, m in list(sys.modules.items())
        if (name == "harness" or name.startswith("harness.")) and getattr(m, "__file__", None)
    ]
    uncovered = [
        rel
        for rel in loaded
        if rel.split("/")[0] not in above
        and rel not in parts
        and not any(rel.startswith(f"{p}/") for p in parts)
    ]
    assert loaded and not uncovered
    assert search_cache.code_fingerprint(parts) != search_cache.code_fingerprint(
        tuple(p for p in parts if p != "bleu/_native.c")
    )


def test_no_cache_reads_and_writes_nothing(tmp_path: Path, searches: list[Corpus]) -> None:
    corpus = search.as_corpus(FIXTURE)
    _fresh(_disk(tmp_path), corpus)
    entries = _entries(tmp_path)
    off = Session(cache=open_cache(tmp_path / "stats", use_cache=False))
    _fresh(off, corpus)
    _fresh(Session(), corpus)
    assert len(searches) == 3 and _entries(tmp_path) == entries


def test_a_bad_entry_is_a_warning_and_a_new_search(tmp_path: Path, searches: list[Corpus]) -> None:
    corpus = search.as_corpus(FIXTURE)
    first = _fresh(_disk(tmp_path), corpus)
    (entry,) = _entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:-20])
    with pytest.warns(CacheWarning, match="identify readings cache entry") as told:
        again = _fresh(_disk(tmp_path), corpus)
    said = " ".join(str(w.message) for w in told)
    assert "searching again" in said and "library" not in said
    assert len(searches) == 2 and again == first
    _fresh(_disk(tmp_path), corpus)  # rewritten: read again
    assert len(searches) == 2


def test_candidates_are_kept_per_printed_precision(searches: list[Corpus]) -> None:
    """identify, nearest and simplest share a score's candidates within a run; a score of
    other digits (``0.270`` against ``0.27``) has its own."""
    corpus = search.as_corpus("google_nasa_opportunity/candidate_2")
    two = identify_module._candidates("0.27", corpus, None, Session())
    three = identify_module._candidates("0.270", corpus, None, Session())
    assert {c.rounding for c in two} == {"2 decimals"}
    assert {c.rounding for c in three} == {"3 decimals"}
    assert identify_module._candidates("0.27", corpus, None, Session()) == two
    assert len(searches) == 1


def test_an_entry_that_holds_no_readings_is_a_warning_and_a_new_search(
    tmp_path: Path, searches: list[Corpus], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = search.as_corpus(FIXTURE)
    first = _fresh(_disk(tmp_path), corpus)
    real = search_cache.encode
    monkeypatch.setattr(search_cache, "encode", lambda found: {**real(found), "fields": ["x"]})
    search_cache.store(
        search_cache.readings_key(
            _disk(tmp_path).cache.digest(corpus), search._available_tokenizers()
        ),
        first,
        _disk(tmp_path),
    )
    with pytest.warns(CacheWarning, match="identify's readings"):
        again = _fresh(_disk(tmp_path), corpus)
    assert len(searches) == 2 and again == first
