"""The drift report: old releases run as published, each drift recomputed from the releases.

Releases from the package index (``tests.published``; downloaded once, skipped without the
network, failed under ``CI=true``) are put in a release folder of their own: two sacrebleu
wheels, and for nltk a source archive (3.2.5, whose package does not import on this Python: its
``bleu_score.py`` is run from its file) and a wheel. Every drift the report gives is run again
on its example, through the release's own process and the installed library called here, and
every release a call does not drift in answers every corpus as the installed one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
import shutil
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
import sacrebleu
from nltk.translate import bleu_score

import harness
from harness.bleu.profiles import profile_of_release
from harness.cli import main
from harness.diagnose.releases import (
    battery,
    drift_kind,
    drift_report,
    same_answer,
    wmt21_cases,
)
from harness.diagnose.validate.cases import Case
from harness.errors import LibraryWouldRaise
from harness.scorers.peer_releases import PEERS
from harness.scorers.releases import (
    CALLS,
    RELEASES_ENV,
    ReleaseProcess,
    cached_releases,
    installed_release,
)

from .depth import depth
from .published import published_archive

RELEASES = {"sacrebleu": ("1.4.14", "2.0.0"), "nltk": ("3.2.5", "3.6.5")}
#: The package index's name of a library the drift report names otherwise.
INDEX_NAMES = {"ignite": "pytorch-ignite"}
GENERATED, SEED = 12, 7
#: A corpus the report fixture sizes every drift on.
SIZED = Case(
    "a corpus to size on",
    ("the cat sat on the mat .", "a dog barked at 5.", "yes"),
    (("the cat sat on a mat .", "a cat sat on the mat"), ("the dog barked at 5 .",), ("no",)),
)


@pytest.fixture(scope="module", params=sorted(RELEASES))
def library(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def folder(library: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release folder holding the published archives of the library's :data:`RELEASES`."""
    root = tmp_path_factory.mktemp(f"releases-{library}")
    for version in RELEASES[library]:
        archive = published_archive(library, version)
        shutil.copy(archive, root / archive.name)
    return root


@pytest.fixture(scope="module")
def report(library: str, folder: Path):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(RELEASES_ENV, str(folder))
        return drift_report(library, generated=GENERATED, seed=SEED, sized=[SIZED])


def _installed(call: str, hyps, refs) -> dict:
    """The installed library's answer to ``call``, computed here."""
    try:
        if call == "corpus_bleu":
            width = max(len(r) for r in refs)
            streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
            return {"score": sacrebleu.corpus_bleu(list(hyps), streams).score}
        if call == "sentence_bleu":
            pairs = zip(hyps, refs, strict=True)
            return {"scores": [sacrebleu.sentence_bleu(h, list(r)).score for h, r in pairs]}
        name, method = call.split()
        smooth = getattr(bleu_score.SmoothingFunction(), method)
        if name == "corpus_bleu":
            split_refs = [[x.split() for x in r] for r in refs]
            got = bleu_score.corpus_bleu(
                split_refs, [h.split() for h in hyps], smoothing_function=smooth
            )
            return {"score": 100 * got}
        return {
            "scores": [
                100
                * bleu_score.sentence_bleu(
                    [x.split() for x in r], h.split(), smoothing_function=smooth
                )
                for h, r in zip(hyps, refs, strict=True)
            ]
        }
    except Exception as exc:
        return {"error": type(exc).__name__}


def test_the_cached_releases_are_found_and_run_as_published(library, folder: Path) -> None:
    found, unbuilt = cached_releases(library, folder)
    assert [r.version for r in found] == list(RELEASES[library]) and unbuilt == []
    call = next(iter(CALLS[library]))
    for release in found:
        with ReleaseProcess(release) as proc:
            (got,) = proc.run([(call, ["a b c d"], [["a b c d"]])])
        assert same_answer(got, _installed(call, ["a b c d"], [["a b c d"]]))


def test_every_drift_is_what_the_releases_answer(library, report, folder: Path) -> None:
    assert report.run == RELEASES[library]
    assert report.installed == installed_release(library).version
    assert report.drifts, "each library's oldest release here drifts somewhere"
    found = {r.version: r for r in cached_releases(library, folder)[0]}
    sources = {c.source: c for c in battery(GENERATED, SEED)}
    with contextlib.ExitStack() as stack:
        procs = {v: stack.enter_context(ReleaseProcess(r)) for v, r in found.items()}
        for d in report.drifts:
            ex = d.example
            (got,) = procs[d.releases[0]].run([(d.call, ex.hypotheses, ex.references)])
            today = _installed(d.call, ex.hypotheses, ex.references)
            assert same_answer(got, d.got) and same_answer(today, d.today)
            assert not same_answer(got, today) and drift_kind(got, today) == d.kind
            assert ex.n_tokens <= sources[ex.source].n_tokens


def test_a_release_without_a_drift_answers_every_corpus_as_installed(
    library, report, folder
) -> None:
    cases = battery(GENERATED, SEED)
    found = {r.version: r for r in cached_releases(library, folder)[0]}
    others = set(RELEASES[library])
    with ReleaseProcess(installed_release(library)) as now:
        for version in sorted(others):
            with ReleaseProcess(found[version]) as old:
                for call in CALLS[library]:
                    if version in {v for d in report.drifts if d.call == call for v in d.releases}:
                        continue
                    batch = [(call, c.hypotheses, c.references) for c in cases]
                    pairs = zip(old.run(batch), now.run(batch), strict=True)
                    assert all(same_answer(a, b) for a, b in pairs), (version, call)


def test_the_command_prints_the_report(library, folder, report, monkeypatch, capsys) -> None:
    """The command's words name what was run and every drift of the same run's report."""
    monkeypatch.setenv(RELEASES_ENV, str(folder))
    argv = ["releases", library, "--generated", str(GENERATED), "--seed", str(SEED)]
    assert main([*argv, "--no-progress"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    n = len(battery(GENERATED, SEED))
    versions = ", ".join(RELEASES[library])
    said = f"{library}: 2 cached releases ({versions}) beside the installed {report.installed}"
    assert said in printed and f"on {n} corpora" in printed
    for d in report.drifts:
        assert f"on {d.differing} of the {n} corpora" in printed
    for version in report.module_only:
        assert f"{version}: published as source archives" in printed
    for c in report.checks:
        if c.profile is not None and c.example is not None:
            assert "does not reproduce" in printed and f"on {n - c.agree} of the {n}" in printed
    if any(c.profile is not None and c.example is None for c in report.checks):
        assert "reproduces" in printed and f"on all {n} corpora" in printed
    assert report.module_only == (("3.2.5",) if library == "nltk" else ())


def test_the_report_as_json(folder, report, library, monkeypatch, capsys) -> None:
    monkeypatch.setenv(RELEASES_ENV, str(folder))
    argv = ["releases", library, "--generated", str(GENERATED), "--seed", str(SEED), "--json"]
    assert main([*argv, "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"] == list(RELEASES[library])
    assert [(d["call"], d["kind"], d["releases"]) for d in data["drifts"]] == [
        (d.call, d.kind, list(d.releases)) for d in report.drifts
    ]
    assert [(c["call"], c["profile"], c["releases"], c["agree"]) for c in data["checks"]] == [
        (c.call, c.profile, list(c.releases), c.agree) for c in report.checks
    ]


def test_an_empty_folder_and_a_release_that_does_not_import(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(RELEASES_ENV, str(tmp_path))
    assert main(["releases", "sacrebleu", "--generated", "0", "--no-progress"]) == 0
    assert "No other release is in the release folder" in capsys.readouterr().out
    with zipfile.ZipFile(tmp_path / "sacrebleu-9.9.9-py3-none-any.whl", "w") as zf:
        zf.writestr("sacrebleu.py", "raise ImportError('built for another Python')\n")
    report = drift_report("sacrebleu", generated=0)
    (failed,) = report.not_run
    assert report.run == () and (failed.version, failed.reason) == ("9.9.9", "failed")
    assert "does not import here" in failed.detail
    assert "built for another Python" in failed.detail


def _profile_says(call: str, version: str, library: str, case, first_only: bool) -> dict:
    """What the profile of ``version`` answers to ``call`` on ``case``, computed here through
    the public scoring functions, one segment at a time for a per-segment call."""
    tool, what = ("sacrebleu", call) if library == "sacrebleu" else ("nltk", call.split()[0])
    overrides = {} if library == "sacrebleu" else {"smooth": f"nltk-{call.split()[1]}"}
    if what == "sentence_bleu" and library == "sacrebleu":
        tool = "sacrebleu-sentence"
    name = profile_of_release(tool, version)
    if name is None:
        return {"error": "no profile"}
    refs = [r[:1] for r in case.references] if first_only else case.references
    try:
        if what == "corpus_bleu":
            return {
                "score": harness.corpus_bleu(
                    hypotheses=case.hypotheses, references=refs, profile=name, **overrides
                ).score
            }
        return {
            "scores": [
                harness.sentence_bleu(hypothesis=h, references=r, profile=name, **overrides).score
                for h, r in zip(case.hypotheses, refs, strict=True)
            ]
        }
    except LibraryWouldRaise as exc:
        return {"error": exc.library_exception}


def test_each_release_is_checked_against_its_profile(library, report, folder) -> None:
    """Every release run (and the installed one) is in one check per call, and the check's
    count of agreeing corpora is recomputed here from the release's answers and the scores of
    its profile."""
    cases = battery(GENERATED, SEED)
    found = {r.version: r for r in cached_releases(library, folder)[0]}
    found[report.installed] = installed_release(library)
    with contextlib.ExitStack() as stack:
        procs = {v: stack.enter_context(ReleaseProcess(r)) for v, r in found.items()}
        for call in CALLS[library]:
            checks = [c for c in report.checks if c.call == call]
            assert [v for c in checks for v in c.releases] == [*report.run, report.installed]
            assert [c.installed for c in checks] == [False] * (len(checks) - 1) + [True]
            for check in checks:
                for version in check.releases:
                    proc = procs[version]
                    theirs = proc.run([(call, c.hypotheses, c.references) for c in cases])
                    first_only = call in proc.first_reference_only
                    ours = [_profile_says(call, version, library, c, first_only) for c in cases]
                    if check.profile is None:
                        assert all(o == {"error": "no profile"} for o in ours), (call, version)
                        continue
                    agree = [same_answer(a, b) for a, b in zip(theirs, ours, strict=True)]
                    assert sum(agree) == check.agree, (call, version, check)
                    if check.example is not None:
                        assert not agree[cases.index(check.example)], (call, version, check)


def test_the_proven_profiles_reproduce_their_releases(report, library) -> None:
    """The installed release is its library's profile on every corpus, and sacrebleu 1.4.14
    and 2.0.0 their versioned profiles, proven against them."""
    for check in report.checks:
        if check.installed:
            assert check.profile == (
                "sacrebleu-sentence" if check.call == "sentence_bleu" else library
            )
            assert check.example is None, check
    if library != "sacrebleu":
        return
    for check in report.checks:
        assert check.profile is not None and check.example is None, check
    named = {(c.call, v): c.profile for c in report.checks for v in c.releases}
    assert named[("corpus_bleu", "1.4.14")] == "sacrebleu@1.4"
    assert named[("sentence_bleu", "2.0.0")] == "sacrebleu-sentence@2.0"
    assert named[("corpus_bleu", report.installed)] == "sacrebleu"


def _release_page() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "tools" / "release_page.py"
    spec = importlib.util.spec_from_file_location("release_page", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(depth() != "full", reason="downloads every release the page names (full)")
def test_the_release_page_is_what_its_releases_answer(tmp_path, monkeypatch) -> None:
    """docs/releases.md, regenerated from the releases it names, downloaded here."""
    tool = _release_page()
    text = tool.PAGE.read_text(encoding="utf-8")
    for library in CALLS:
        named = re.search(rf"### {library}\n\n\d+ releases \(([^)]*)\)", text)
        assert named, library
        peer = PEERS.get(library)
        if peer is not None and not peer.stem:
            continue  # datasets: the module folder $BLEU_HARNESS_EVALUATE_MODULE names
        index = INDEX_NAMES.get(library, library)
        needs = peer.needs if peer is not None else ()
        for version in named.group(1).split(", "):
            for name, v in [(index, version), *needs]:
                archive = published_archive(name, v)
                shutil.copy(archive, tmp_path / archive.name)
    monkeypatch.setenv(RELEASES_ENV, str(tmp_path))
    assert tool.page() == text


def test_each_drift_is_sized_on_the_corpora_given(library, folder, report) -> None:
    """A drift's size on a given corpus is its first release's answer there and the installed
    one's, a per-segment call as its mean, computed here through the release's process and the
    installed library."""
    found = {r.version: r for r in cached_releases(library, folder)[0]}
    with contextlib.ExitStack() as stack:
        procs = {v: stack.enter_context(ReleaseProcess(r)) for v, r in found.items()}
        got = [
            procs[d.releases[0]].run([(d.call, SIZED.hypotheses, SIZED.references)])[0]
            for d in report.drifts
        ]
    for d, theirs_then in zip(report.drifts, got, strict=True):
        (size,) = d.sizes
        assert size.source == SIZED.source
        today = _installed(d.call, SIZED.hypotheses, SIZED.references)
        for mine, theirs in ((size.got, theirs_then), (size.today, today)):
            if "scores" in theirs:
                theirs = {"score": sum(theirs["scores"]) / len(theirs["scores"])}
            assert same_answer(mine, theirs), (d.call, d.releases, mine, theirs)
    assert any(not same_answer(d.sizes[0].got, d.sizes[0].today) for d in report.drifts)


def test_the_drifts_are_sized_on_wmt21(data_dir) -> None:
    """WMT21 en→de's first system against three references and against one."""
    three, one = wmt21_cases(str(data_dir))
    assert len(three.hypotheses) == len(one.hypotheses) == 1002
    assert {len(r) for r in three.references} == {3} and {len(r) for r in one.references} == {1}
    assert [r[0] for r in three.references] == [r[0] for r in one.references]
    assert three.hypotheses == one.hypotheses and "3 references" in three.source
