"""A sacrebleu signature names its release, and identify reads it on that release's defaults;
a number every versioned profile's release printed is read as that release's profile.

The defaults come from the versioned profile whose releases cover the version
(``profile_of_release``); the test checks that configuration against the release itself: the
release run as published (``tests.published``, in a process of its own) scores a corpus with
no matching n-gram as the configuration does, and otherwise than today's sacrebleu.

Each versioned profile's newest release (nltk 3.2.5–3.6.5, sacrebleu 1.2.21–2.1.0,
torchmetrics 0.11.4, pytorch-ignite 0.4.6, datasets' ``nmt_bleu.py``, lm-eval 0.3.0) is run on
WMT21 en→de, or on WMT21 with edge cases where it differs from today's release only there
(:func:`with_edges`), and the number it prints is read first as its profile, or tied first
with readings that give the very same number on that corpus (:func:`named`). A release that
no corpus identify reads tells from today's (nltk 3.6, pytorch-ignite 0.4.5) is read as
today's profile, and the test says so.
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
from harness.bleu.profiles import PROFILES, RELEASES, VERSIONED, profile_of_release
from harness.cli import main
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.candidates import Candidate, rank
from harness.diagnose.identify import alike_first, identify, signature_reading
from harness.errors import HarnessError
from harness.scorers.releases import Release, ReleaseProcess, cached_releases
from harness.session import Session

from .peer_releases import (
    ignite_release,
    lm_eval_release,
    nmt_compute_bleu,
    torchmetrics_release,
)
from .published import published_archive, published_tree
from .sacrebleu_releases import SacrebleuRelease, release_tree

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


@pytest.mark.parametrize("version", ["1.4.14", "1.5.1"])
def test_a_signature_with_intl_is_read_as_its_releases_intl(version: str) -> None:
    """A 1.x signature naming ``tok:intl`` (in the format that release prints) is read as the
    ``intl`` that release ran: the release's own ``corpus_bleu(tokenize="intl")`` on a line
    with a backslash is the reading's score, and today's ``intl`` gives another."""
    text = (
        "BLEU+case.mixed+numrefs.1+smooth.exp+tok.intl+version." + version
        if version.startswith("1.4")
        else f"nrefs:1|case:mixed|eff:no|tok:intl|smooth:exp|version:{version}"
    )
    reading = signature_reading(text)
    hyps, refs = ["a\\b c d e f"], [["a \\ b c d e f"]]
    release = SacrebleuRelease(version)
    try:
        (old,) = release.run([["corpus", hyps, [[r[0] for r in refs]], {"tokenize": "intl"}]])
    finally:
        release.close()
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile=reading.config).score
    today = sacrebleu.corpus_bleu(hyps, [[r[0] for r in refs]], tokenize="intl").score
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


Corpus = tuple[list[str], list[list[str]]]


def wmt21(data_dir, refs: tuple[str, ...]) -> Corpus:
    system = WMT21_SYSTEMS[0]
    corpus = load_wmt21_ende(data_dir, systems=[system], refs=refs)[system]
    return list(corpus.hypotheses), [list(r) for r in corpus.references]


def with_edges(corpus: Corpus, *, empty: bool) -> Corpus:
    """WMT21 with ten hypotheses that match nothing (as many tokens as before, one unknown
    word) and, when ``empty``, five one-word hypotheses whose second reference is empty: where
    the old sacrebleu releases differ from today's (no zero-match rule; an empty reference
    dropped, which changes the closest length)."""
    hyps, refs = list(corpus[0]), [list(r) for r in corpus[1]]
    for i in range(10):
        j = 10 * i + 3
        hyps[j] = " ".join(["Xqz"] * len(hyps[j].split()))
    if empty:
        for i in range(5):
            j = 10 * i + 7
            hyps[j], refs[j][1] = refs[j][0].split()[0], ""
    return hyps, refs


@pytest.fixture(scope="module")
def wmt21_one_reference(data_dir) -> Corpus:
    return wmt21(data_dir, ("A",))


@pytest.fixture(scope="module")
def wmt21_three_references(data_dir) -> Corpus:
    return wmt21(data_dir, ("A", "C", "D"))


@pytest.fixture(scope="module")
def wmt21_edges(data_dir) -> Corpus:
    return with_edges(wmt21(data_dir, ("A", "C")), empty=True)


@pytest.fixture(scope="module")
def session() -> Session:
    return Session()


def named(found: list[Candidate], profile: str, printed: str) -> list[Candidate]:
    """The readings tied first (as many steps and changes, the same number to 1e-9), which
    must hold ``profile``: the release is named first, or beside readings that give its very
    number on this corpus."""
    assert found, printed
    first = found[0]
    tied = [
        x
        for x in found
        if rank(x)[:5] == rank(first)[:5] and x.raw == pytest.approx(first.raw, abs=1e-9)
    ]
    assert profile in [x.profile for x in tied], (printed, [x.reading for x in found[:5]])
    profiles = tuple(dict.fromkeys(x.profile for x in tied))
    assert alike_first(found) == (profiles if len(profiles) > 1 else ())
    return tied


def score(corpus: Corpus, profile: str, **overrides: object) -> float:
    return corpus_bleu(
        hypotheses=corpus[0], references=corpus[1], profile=profile, **overrides
    ).score


@pytest.mark.parametrize(
    ("version", "method", "profile"),
    [
        ("3.2.5", 0, "nltk@3.2"),
        ("3.3.0", 4, "nltk@3.3"),
        ("3.4.5", 4, "nltk@3.4"),
        ("3.5", 4, "nltk@3.5"),
    ],
)
def test_identify_names_the_nltk_release_that_printed_a_mean(
    wmt21_one_reference, session, tmp_path, version: str, method: int, profile: str
) -> None:
    """The mean sentence BLEU an old nltk prints on WMT21 en→de (its own ``sentence_bleu``,
    run from the published release here, shown to four decimals) is read first as that
    release's profile, and today's nltk prints another number there. nltk 3.2–3.4's
    ``sentence_bleu`` method 4 is one formula (their method 4 differs in ``corpus_bleu``
    alone, on an order without matches in the whole corpus, which WMT21 has not): a mean of
    3.3 or 3.4 is read as the three profiles tied, each with the same number. nltk 3.2's
    ``sentence_bleu`` method 0 gives 3.2.5's mean there (both leave an order at 0 out, and a
    segment's precisions in lowest terms are the same numbers), so that mean is read as
    ``nltk@3.2.0`` and ``nltk@3.2`` tied."""
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
    found = identify(printed, (hyps, refs), session=session)
    tied = named(found, profile, printed)
    first = next(x for x in tied if x.profile == profile)
    assert first.config.aggregation == "sentence-mean", first
    assert first.release == f"nltk {RELEASES[profile]}"
    if method == 4 and profile != "nltk@3.5":
        assert {x.profile for x in tied} == {"nltk@3.2", "nltk@3.3", "nltk@3.4"}
    elif profile == "nltk@3.2":
        assert {x.profile for x in tied} == {"nltk@3.2.0", "nltk@3.2"}
    else:
        assert [x.profile for x in tied] == [profile]


def test_nltk_3_6_is_read_as_todays_nltk(wmt21_one_reference, session, tmp_path) -> None:
    """nltk 3.6–3.6.5 differs from today's nltk only where it raises (method 4 and 7 on a
    one-token hypothesis, a log of a zero precision): on every corpus it scores, its number
    is today's, so its method-4 mean on WMT21 is read as today's profiles and the nltk@3.6
    reading is folded under them."""
    hyps, refs = wmt21_one_reference
    archive = published_archive("nltk", "3.6.5")
    shutil.copy(archive, tmp_path / archive.name)
    (release,), _ = cached_releases("nltk", tmp_path)
    with ReleaseProcess(release) as proc:
        (got,) = proc.run([("sentence_bleu method4", hyps, refs)])
    mean = sum(got["scores"]) / len(got["scores"])
    kw = {"smooth": "nltk-method4", "aggregation": "sentence-mean"}
    assert score(wmt21_one_reference, "nltk@3.6", **kw) == pytest.approx(mean, abs=1e-9)
    assert score(wmt21_one_reference, "nltk", **kw) == pytest.approx(mean, abs=1e-9)
    printed = f"{mean / 100:.4f}"
    found = identify(printed, (hyps, refs), session=session)
    assert found and found[0].profile not in VERSIONED, printed
    todays = PROFILES["nltk"].replace(**kw)
    assert any(x.covers(todays) for x in found), [x.reading for x in found]
    assert not any(x.profile == "nltk@3.6" for x in found)


CLI = """
import sys
sys.argv = ["sacrebleu", *sys.argv[1:]]
try:
    from sacrebleu.sacrebleu import main
except ImportError:  # 1.2.x: one module
    from sacrebleu import main
main()
"""


def sacrebleu_cli(version: str, corpus: Corpus, folder) -> str:
    """The line sacrebleu ``version``'s own command prints on ``corpus`` (its reference files
    and the hypotheses on stdin; 2.x asked for its text line)."""
    hyps, refs = corpus
    (folder / "hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    files = []
    for k in range(len(refs[0])):
        path = folder / f"ref{k}"
        path.write_text("\n".join(r[k] for r in refs) + "\n", encoding="utf-8")
        files.append(str(path))
    extra = ["-f", "text"] if version.startswith("2.") else []
    env = {**os.environ, "PYTHONPATH": str(release_tree(version))}
    with (folder / "hyp").open(encoding="utf-8") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", CLI, *files, *extra],
            stdin=stdin, capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
    return done.stdout.strip().splitlines()[-1]


SACREBLEU = {"1.2.21": "sacrebleu@1.2", "1.4.14": "sacrebleu@1.4", "1.5.1": "sacrebleu@1.5"}
SACREBLEU["2.1.0"] = "sacrebleu@2.0"


@pytest.mark.parametrize("version", sorted(SACREBLEU))
def test_identify_names_the_sacrebleu_release_of_its_printed_line(
    wmt21_one_reference, session, tmp_path, version: str
) -> None:
    """The line an old sacrebleu's command prints on WMT21 en→de is read first as the profile
    of the release its signature names. Without the signature (``BLEU = 26.4 …``, what its
    ``format()`` prints) it is today's sacrebleu: on a corpus in which something matches and
    no reference is empty, every release's ``corpus_bleu`` gives today's number (they differ
    only on a corpus without a single match, or on empty references: the next tests)."""
    profile = SACREBLEU[version]
    line = sacrebleu_cli(version, wmt21_one_reference, tmp_path)
    assert f"version.{version} = " in line or f"version:{version} = " in line, line
    found = identify(line, wmt21_one_reference, session=session)
    assert found[0].profile == profile and named(found, profile, line), line
    bare = "BLEU = " + line.split(" = ", 1)[1]
    found = identify(bare, wmt21_one_reference, session=session)
    assert found and found[0].profile == "sacrebleu", bare
    assert score(wmt21_one_reference, profile) == score(wmt21_one_reference, "sacrebleu")


@pytest.mark.parametrize(
    ("version", "call", "corpus", "profile", "tied"),
    [
        ("1.2.21", "sentence", "wmt21_one_reference", "sacrebleu-sentence@1.2", None),
        ("1.4.14", "sentence", "wmt21_one_reference", "sacrebleu-sentence@1.4", None),
        ("1.5.1", "sentence", "wmt21_edges", "sacrebleu-sentence@1.5", None),
        ("2.1.0", "sentence", "wmt21_edges", "sacrebleu-sentence@2.0", None),
        ("1.5.1", "corpus", "wmt21_edges", "sacrebleu@1.5", "1.5"),
        ("2.1.0", "corpus", "wmt21_edges", "sacrebleu@2.0", "1.5"),
    ],
)
def test_identify_names_the_sacrebleu_release_of_a_number(
    request, session, version: str, call: str, corpus: str, profile: str, tied: str | None
) -> None:
    """The score an old sacrebleu's ``corpus_bleu`` returns, or the mean of its
    ``sentence_bleu`` (run from the published release, shown to two decimals), on WMT21 en→de
    or on WMT21 with edge cases (:func:`with_edges`) is read first as that release's profile,
    and today's sacrebleu prints another number there. sacrebleu 1.5 and 2.0's
    ``corpus_bleu`` differ only on a corpus without a single match (1.5 has no zero-match
    rule), and lm-eval 0.3's ``bleu`` is sacrebleu 1.5.0's: their numbers are read as the
    three profiles tied, each with the same number."""
    text: Corpus = request.getfixturevalue(corpus)
    hyps, refs = text
    release = SacrebleuRelease(version)
    try:
        if call == "corpus":
            (got,) = release.run([["corpus", hyps, [list(s) for s in zip(*refs, strict=True)]]])
            value = got["score"]
        else:
            got = release.run([["sentence", h, r] for h, r in zip(hyps, refs, strict=True)])
            value = sum(g["score"] for g in got) / len(got)
    finally:
        release.close()
    printed = f"{value:.2f}"
    today = "sacrebleu" if call == "corpus" else "sacrebleu-sentence"
    assert f"{score(text, today):.2f}" != printed
    found = identify(printed, text, session=session)
    group = {x.profile for x in named(found, profile, printed)}
    assert group == ({"sacrebleu@1.5", "sacrebleu@2.0", "lm-eval@0.3"} if tied else {profile})


def test_identify_names_torchmetrics_0_11(wmt21_three_references, session) -> None:
    """torchmetrics 0.11.4's ``sacre_bleu_score`` on WMT21 en→de with three references (its
    13a leaves a line-final ``5.`` one token), shown ×100 to four decimals, is read first as
    ``torchmetrics-sacrebleu@0.11``; today's profile prints another number there. Its
    ``tensor(0.5037)`` cannot tell them apart: both show 0.5037."""
    hyps, refs = wmt21_three_references
    release = torchmetrics_release("0.11.4")
    try:
        (got,) = release.run([[hyps, refs, {}]])
    finally:
        release.close()
    printed = f"{100 * got['score']:.4f}"
    assert f"{score(wmt21_three_references, 'torchmetrics-sacrebleu'):.4f}" != printed
    found = identify(printed, wmt21_three_references, session=session)
    assert [x.profile for x in named(found, "torchmetrics-sacrebleu@0.11", printed)] == [
        "torchmetrics-sacrebleu@0.11"
    ]


def test_ignite_0_4_5_is_read_as_todays_ignite(wmt21_one_reference, session) -> None:
    """pytorch-ignite 0.4.5–0.4.6 differs from today's only on a segment given no reference
    (it scores 0, today's raises), and identify reads no corpus with such a segment: on every
    corpus identify reads, its mean is today's, read as today's ``ignite``."""
    hyps, refs = wmt21_one_reference
    release = ignite_release("0.4.6")
    try:
        (got,) = release.run(
            [[[h.split() for h in hyps], [[r.split() for r in s] for s in refs], {}]]
        )
    finally:
        release.close()
    assert score(wmt21_one_reference, "ignite@0.4.5") == pytest.approx(100 * got["score"], abs=1e-9)
    assert score(wmt21_one_reference, "ignite") == pytest.approx(100 * got["score"], abs=1e-9)
    printed = f"{got['score']:.4f}"
    found = identify(printed, wmt21_one_reference, session=session)
    assert found and found[0].profile == "ignite", printed
    assert not any(x.profile == "ignite@0.4.5" for x in found)
    without = (hyps[:3], [refs[0], [], refs[2]])
    with pytest.raises(HarnessError):
        identify(printed, without, session=session)


def test_identify_names_datasets_2(wmt21_three_references, session, evaluate_module) -> None:
    """datasets 1.x–2.x's ``load_metric("bleu")`` (tensorflow/nmt's ``compute_bleu`` on the
    ``str.split()`` token lists users passed, from the ``nmt_bleu.py`` it imports) on WMT21
    en→de with three references, shown to four decimals, is read first as ``datasets@2``;
    ``evaluate``'s module (13a tokens) prints another number. With one reference its number is
    every whitespace-token profile's that takes the closest length (``torchmetrics``)."""
    hyps, refs = wmt21_three_references
    bleu = nmt_compute_bleu(evaluate_module)(
        [[r.split() for r in s] for s in refs], [h.split() for h in hyps]
    )[0]
    printed = f"{bleu:.4f}"
    assert f"{score(wmt21_three_references, 'evaluate') / 100:.4f}" != printed
    found = identify(printed, wmt21_three_references, session=session)
    assert [x.profile for x in named(found, "datasets@2", printed)] == ["datasets@2"]


def test_identify_names_lm_eval_0_3(wmt21_edges, data_dir, session) -> None:
    """lm-eval 0.3.0's ``bleu`` (with the sacrebleu 1.5.0 it pins) on WMT21 with edge cases, as
    its results table prints it, is read as ``lm-eval@0.3`` tied with sacrebleu 1.5's and
    2.0's profiles (its arithmetic is theirs there: every segment has two references); today's
    lm-eval prints another number. Its TruthfulQA ``bleu_max`` (each reference alone, the best
    kept) on WMT21 with three references and ten hypotheses matching nothing is read first as
    ``lm-eval-truthfulqa@0.3``."""
    release = lm_eval_release("0.3.0", "1.5.0")
    truthful = with_edges(wmt21(data_dir, ("A", "C", "D")), empty=False)
    try:
        (got,) = release.run([["bleu", [[r, h] for h, r in zip(*wmt21_edges, strict=True)]]])
        best = release.run([["truthfulqa", h, r] for h, r in zip(*truthful, strict=True)])
    finally:
        release.close()
    printed = f"|wmt21|      0|bleu|{got['score']:.4f}|±  |0.0000|"
    assert f"{score(wmt21_edges, 'lm-eval'):.4f}" not in printed
    group = named(identify(printed, wmt21_edges, session=session), "lm-eval@0.3", printed)
    assert {x.profile for x in group} == {"sacrebleu@1.5", "sacrebleu@2.0", "lm-eval@0.3"}
    mean = sum(max(s["score"] for s in b["scores"]) for b in best) / len(best)
    printed = f"|truthfulqa_gen|      1|bleu_max|{mean:.4f}|±  |0.0000|"
    assert f"{score(truthful, 'lm-eval-truthfulqa'):.4f}" not in printed
    found = identify(printed, truthful, session=session)
    assert [x.profile for x in named(found, "lm-eval-truthfulqa@0.3", printed)] == [
        "lm-eval-truthfulqa@0.3"
    ]


def test_the_command_names_the_release(wmt21_one_reference, tmp_path, capsys) -> None:
    """``bleu-harness identify --score`` with sacrebleu 1.4.14's mean sentence BLEU on WMT21
    en→de (unsmoothed by default) names ``sacrebleu-sentence@1.4`` and its releases first."""
    hyps, refs = wmt21_one_reference
    release = SacrebleuRelease("1.4.14")
    try:
        got = release.run([["sentence", h, r] for h, r in zip(hyps, refs, strict=True)])
    finally:
        release.close()
    printed = f"{sum(g['score'] for g in got) / len(got):.2f}"
    (tmp_path / "hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(r[0] for r in refs) + "\n", encoding="utf-8")
    files = [str(tmp_path / "hyp"), str(tmp_path / "ref")]
    assert main(["identify", "--score", printed, "--quiet", "--no-cache", *files]) == 0
    out = capsys.readouterr().out
    first = out.split("\n1. ", 1)[1].splitlines()[0]
    assert first.startswith("sacrebleu-sentence@1.4 (the profile of sacrebleu 1.3.1–1.4.14)"), out
    assert "do not tell them apart" not in out.replace("\n", " ")
