"""Official WMT21 en→de BLEU, reproduced from the texts.

The organisers' scores (``official_automatic_scores.tsv``: bleu-A, bleu-C, bleu-D with one
reference, bleu-all with the three together, all sacreBLEU defaults) are the golden values; the
in-house ``sacrebleu`` profile and the real sacrebleu (through the adapter) must both reproduce
every one of the 20 systems to 1e-9 BLEU points before rounding.
"""

from __future__ import annotations

import pytest

from harness import PROFILES
from harness.bleu import engine
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende, wmt21_official_scores

pytestmark = pytest.mark.realdata

REF_SETS = {"bleu-A": ("A",), "bleu-C": ("C",), "bleu-D": ("D",), "bleu-all": ("A", "C", "D")}


@pytest.fixture(scope="module")
def official(data_dir):
    return wmt21_official_scores(data_dir)


@pytest.mark.parametrize("metric", sorted(REF_SETS))
def test_inhouse_profile_reproduces_official_bleu(data_dir, official, metric) -> None:
    corpora = load_wmt21_ende(data_dir, refs=REF_SETS[metric])
    diffs = {}
    for system in WMT21_SYSTEMS:
        got = engine.corpus_score(corpora[system], PROFILES["sacrebleu"]).score
        diffs[system] = abs(got - official[system][metric])
    worst = max(diffs, key=diffs.get)
    print(f"{metric}: max |in-house - official| = {diffs[worst]:.3g} ({worst})")
    assert len(diffs) == 20
    assert diffs[worst] < 1e-9


@pytest.mark.parametrize("metric", sorted(REF_SETS))
def test_sacrebleu_adapter_reproduces_official_bleu(data_dir, official, metric) -> None:
    from harness.scorers import get_adapter

    adapter = get_adapter("sacrebleu")
    corpora = load_wmt21_ende(data_dir, refs=REF_SETS[metric])
    diffs = {s: abs(adapter.corpus(corpora[s]).score - official[s][metric]) for s in WMT21_SYSTEMS}
    worst = max(diffs, key=diffs.get)
    print(f"{metric}: max |sacrebleu adapter - official| = {diffs[worst]:.3g} ({worst})")
    assert diffs[worst] < 1e-9
