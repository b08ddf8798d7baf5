"""A sacrebleu signature names its release, and identify reads it on that release's defaults;
a mean an old nltk printed is read as that release's profile.

The defaults come from the versioned profile whose releases cover the version
(``profile_of_release``); the test checks that configuration against the release itself: the
release run as published (``tests.published``, in a process of its own) scores a corpus with
no matching n-gram as the configuration does, and otherwise than today's sacrebleu.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import sacrebleu
from nltk.translate import bleu_score

from harness.api import corpus_bleu
from harness.bleu.profiles import PROFILES, RELEASES, profile_of_release
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.identify import identify, signature_reading
from harness.scorers.releases import Release, ReleaseProcess, cached_releases
from harness.session import Session

from .published import published_archive, published_tree

OLD = "BLEU+case.mixed+numrefs.1+smooth.exp+tok.13a+version.1.4.14"
NOTHING_MATCHES = (["a b c d e"], [["x y z w v"]])


def test_a_signature_is_read_on_the_defaults_of_its_release() -> None:
    reading = signature_reading(OLD)
    assert reading.version == "1.4.14"
    assert reading.release_profile == profile_of_release("sacrebleu", "1.4.14") == "sacrebleu@1.4"
    assert reading.config == PROFILES["sacrebleu@1.4"]
    hyps, refs = NOTHING_MATCHES
    with ReleaseProcess(Release("sacrebleu", "1.4.14", published_tree("sacrebleu", "1.4.14"))) as p:
        (old,) = p.run([("corpus_bleu", hyps, refs)])
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile=reading.config).score
    today = sacrebleu.corpus_bleu(hyps, [[r[0] for r in refs]]).score
    assert ours == pytest.approx(old["score"], abs=1e-9)
    assert today != pytest.approx(old["score"], abs=1e-9)


def test_today_and_an_unknown_release() -> None:
    now = signature_reading(
        f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{sacrebleu.__version__}"
    )
    assert now.release_profile == "sacrebleu" and now.config == PROFILES["sacrebleu"]
    old = signature_reading("BLEU+case.mixed+numrefs.1+smooth.exp+tok.13a+version.1.0.3")
    assert old.version == "1.0.3" and old.release_profile is None
    assert old.config == PROFILES["sacrebleu"]


def test_identify_reads_a_printed_line_as_the_release_it_names() -> None:
    """The line sacrebleu 1.4.14 prints (its own ``format()``, run here) on a corpus where
    1.x and today differ is read first as that release's profile."""
    hyps, refs = NOTHING_MATCHES
    tree = published_tree("sacrebleu", "1.4.14")
    code = (
        "import sacrebleu, sys, json; h, r = json.loads(sys.argv[1]); "
        "print(sacrebleu.corpus_bleu(h, [list(x) for x in zip(*r)]).format())"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps([hyps, refs])],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    printed = done.stdout.strip().replace("BLEU = ", f"{OLD} = ", 1)
    found = identify(printed, (hyps, refs), session=Session())
    assert found and found[0].profile == "sacrebleu@1.4", printed


@pytest.fixture(scope="module")
def wmt21_one_reference(data_dir) -> tuple[list[str], list[list[str]]]:
    system = WMT21_SYSTEMS[0]
    corpus = load_wmt21_ende(data_dir, systems=[system], refs=("A",))[system]
    return list(corpus.hypotheses), [list(r) for r in corpus.references]


@pytest.mark.parametrize(
    ("version", "method", "profile"),
    [("3.2.5", 0, "nltk@3.2"), ("3.5", 4, "nltk@3.5")],
)
def test_identify_names_the_nltk_release_that_printed_a_mean(
    wmt21_one_reference, tmp_path, version: str, method: int, profile: str
) -> None:
    """The mean sentence BLEU an old nltk prints on WMT21 en→de (its own ``sentence_bleu``,
    run from the published release here, shown to four decimals) is read first as that
    release's profile, and today's nltk prints another number there."""
    hyps, refs = wmt21_one_reference
    archive = published_archive("nltk", version)
    shutil.copy(archive, tmp_path / archive.name)
    (release,), _ = cached_releases("nltk", tmp_path)
    call = f"sentence_bleu method{method}"
    with ReleaseProcess(release) as proc:
        (got,) = proc.run([(call, hyps, refs)])
    mean = sum(got["scores"]) / len(got["scores"]) / 100
    smooth = getattr(bleu_score.SmoothingFunction(), f"method{method}")
    today = [
        bleu_score.sentence_bleu([x.split() for x in r], h.split(), smoothing_function=smooth)
        for h, r in zip(hyps, refs, strict=True)
    ]
    printed = f"{mean:.4f}"
    assert f"{sum(today) / len(today):.4f}" != printed
    found = identify(printed, (hyps, refs), session=Session())
    assert found, printed
    first = found[0]
    assert first.profile == profile and first.config.aggregation == "sentence-mean", first
    assert first.release == f"nltk {RELEASES[profile]}"
