"""identify's answer is written in the report layer from its facts: changing a fact (the
printed score, the tolerance, the odds, the matches) changes the words."""

from __future__ import annotations

import dataclasses

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import printed_interval
from harness.diagnose.identify import Chance, identify, read_printed
from harness.report.identify_words import IdentifyAnswer, identify_json, identify_text
from harness.session import Session

NASA = load_fixture("google_nasa_opportunity")


def _printed() -> str:
    """sacreBLEU's score of the fixture's first system, as it prints it."""
    return f"{engine.corpus_score(NASA.corpus('candidate_1'), PROFILES['sacrebleu']).score:.2f}"


def test_identify_text_follows_the_facts() -> None:
    corpus = NASA.corpus("candidate_1")
    score = _printed()
    line = read_printed(score)
    found = tuple(identify(line, corpus, session=Session()))
    assert found, "sacreBLEU's own score has readings"
    answer = IdentifyAnswer(line, "nasa", found)
    text = identify_text(answer, top=1).replace("\n", " ")
    lo, hi = printed_interval(score)
    assert f"Reported score {score} on nasa (a reading in [{lo}, {hi}) reproduces it)." in text
    assert f"{len(found)} configuration(s) reproduce {score}" in text
    assert found[0].reading.split()[0] in text
    wider = identify_text(dataclasses.replace(answer, tolerance=0.01), top=1)
    assert "a reading within 0.01 of it reproduces it" in wider
    renamed = identify_text(dataclasses.replace(answer, corpus="other"), top=1)
    assert "on other (" in renamed
    odds = Chance(searched=500, width=0.001, nearby=63, expected=3.0)
    with_odds = identify_text(dataclasses.replace(answer, odds=odds), top=1)
    assert "Searched 500 readings; about 3 of them" in with_odds.replace("\n", " ")
    none = identify_text(dataclasses.replace(answer, found=()), top=1)
    assert f"Nothing reproduces {score} on these files." in none


def test_identify_json_states_the_facts() -> None:
    corpus = NASA.corpus("candidate_1")
    score = _printed()
    line = read_printed(score)
    found = tuple(identify(line, corpus, session=Session()))
    data = identify_json(IdentifyAnswer(line, "nasa", found))
    assert data["n_matches"] == len(found) == len(data["matches"]) > 0
    lo, hi = printed_interval(score)
    assert data["corpus"] == "nasa" and data["interval"] == [float(lo), float(hi)]
    assert identify_json(IdentifyAnswer(line, "nasa", (), tolerance=0.5))["interval"] is None
