"""The profiles against scores the real libraries printed, with no library at test time.

``tests/goldens/library_scores.json`` holds sacrebleu's and nltk's own scores of corpora built
to tell apart the arithmetic implementations get wrong (the brevity penalty's ratio, the
cumulative halving of sacrebleu's ``exp`` smoothing, the closest-length rule's ties) and of
seeded random corpora; ``tools/library_goldens.py`` wrote it by running the libraries. The first
test needs only the engine, so ``make check`` holds every profile to the libraries' numbers;
the second runs the script again and fails when the file is not what the installed libraries
give.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness.api import corpus_bleu

REPO = Path(__file__).resolve().parent.parent
GOLDENS = REPO / "tests" / "goldens" / "library_scores.json"
TOL = 1e-9


def _cases() -> list[dict[str, Any]]:
    return list(json.loads(GOLDENS.read_text("utf-8"))["cases"])


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "library_goldens", REPO / "tools" / "library_goldens.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c['profile']}-{c['case']}")
def test_profiles_give_the_scores_the_libraries_printed(case: dict[str, Any]) -> None:
    got = corpus_bleu(
        hypotheses=case["hypotheses"], references=case["references"], profile=case["profile"]
    ).score
    assert abs(got - case["score"]) <= TOL, (case["library"], case["call"], got, case["score"])


def test_the_cases_tell_the_rules_apart() -> None:
    """Every hand-built corpus is in the file for every library, and the scores are not all
    zero (a zero says nothing about a brevity penalty or a smoothing)."""
    script = _script()
    cases = _cases()
    have = {(c["case"], c["profile"]) for c in cases}
    for name, _, _ in script.HAND_BUILT:
        for profile in script.LIBRARIES:
            assert (name, profile) in have
    assert sum(c["score"] > 0 for c in cases) > len(cases) // 2


def test_the_goldens_are_what_the_installed_libraries_give() -> None:
    pytest.importorskip("sacrebleu")
    pytest.importorskip("nltk")
    script = _script()
    assert script.render(script.goldens()) == GOLDENS.read_text("utf-8"), (
        "tests/goldens/library_scores.json is out of date: run tools/library_goldens.py"
    )
