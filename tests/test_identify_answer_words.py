"""identify's answer is written in the report layer from its facts: changing a fact (the
printed score, the tolerance, the odds, the matches) changes the words."""

from __future__ import annotations

import dataclasses

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import printed_interval
from harness.diagnose.identify import Chance, alike_first, identify, read_printed
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


def test_profiles_leading_alike_are_said_and_score_alike() -> None:
    """sacreBLEU's printed score on the fixture is reproduced as it is by several profiles (the
    same tokens, smoothing and lengths there): the answer names the ones leading alike, each of
    which scores that number itself, and says the files do not tell them apart; with only one
    profile's readings left, it does not."""
    corpus = NASA.corpus("candidate_1")
    line = read_printed(_printed())
    found = tuple(identify(line, corpus, session=Session()))
    alike = alike_first(found)
    assert len(alike) > 1 and alike[0] == found[0].profile
    assert found[0].steps == 0  # the profiles as they are
    first = engine.corpus_score(corpus, PROFILES[alike[0]]).score
    for name in alike:
        assert engine.corpus_score(corpus, PROFILES[name]).score == first, name
    text = identify_text(IdentifyAnswer(line, "nasa", found), top=3).replace("\n", " ")
    assert f"The first {len(alike)} profiles ({alike[0]}, " in text
    assert "these files do not tell them apart" in text
    assert identify_json(IdentifyAnswer(line, "nasa", found))["alike_first"] == list(alike)
    one = tuple(c for c in found if c.profile == found[0].profile)
    assert alike_first(one) == ()
    alone = identify_text(IdentifyAnswer(line, "nasa", one), top=3)
    assert "do not tell them apart" not in alone.replace("\n", " ")
