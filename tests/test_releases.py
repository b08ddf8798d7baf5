"""The drift report: old releases run as published, each drift recomputed from the releases.

Two sacrebleu releases from the package index (``tests.published``; downloaded once, skipped
without the network, failed under ``CI=true``) are put in a release folder of their own; every
drift the report gives is run again on its example, through the release's own process and the
installed sacrebleu, and every release a call does not drift in answers every corpus as the
installed one.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
import sacrebleu

from harness.cli import main
from harness.diagnose.releases import battery, drift_kind, drift_report, same_answer
from harness.scorers.releases import (
    RELEASES_ENV,
    ReleaseProcess,
    cached_releases,
    installed_release,
)

from .published import published_archive

RELEASES = ("1.4.14", "2.0.0")
GENERATED, SEED = 12, 7


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release folder holding the wheels of :data:`RELEASES` only."""
    root = tmp_path_factory.mktemp("releases")
    for version in RELEASES:
        wheel = published_archive("sacrebleu", version)
        shutil.copy(wheel, root / wheel.name)
    return root


@pytest.fixture(scope="module")
def report(folder: Path):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(RELEASES_ENV, str(folder))
        return drift_report("sacrebleu", generated=GENERATED, seed=SEED)


def _installed(call: str, hyps, refs) -> dict:
    """The installed sacrebleu's answer to ``call``, computed here."""
    try:
        if call == "corpus_bleu":
            width = max(len(r) for r in refs)
            streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
            return {"score": sacrebleu.corpus_bleu(list(hyps), streams).score}
        return {
            "scores": [
                sacrebleu.sentence_bleu(h, list(r)).score for h, r in zip(hyps, refs, strict=True)
            ]
        }
    except Exception as exc:
        return {"error": type(exc).__name__}


def test_the_cached_releases_are_found_and_run_as_published(folder: Path) -> None:
    found, unbuilt = cached_releases("sacrebleu", folder)
    assert [r.version for r in found] == list(RELEASES) and unbuilt == []
    for release in found:
        with ReleaseProcess(release) as proc:
            (got,) = proc.run([("corpus_bleu", ["a b c d"], [["a b c d"]])])
        assert got == {"score": pytest.approx(100.0)}


def test_every_drift_is_what_the_releases_answer(report, folder: Path) -> None:
    assert report.run == RELEASES and report.installed == sacrebleu.__version__
    assert report.drifts, "1.4.14's sentence_bleu is unsmoothed: some drift must be found"
    found = {r.version: r for r in cached_releases("sacrebleu", folder)[0]}
    for d in report.drifts:
        ex = d.example
        with ReleaseProcess(found[d.releases[0]]) as proc:
            (got,) = proc.run([(d.call, ex.hypotheses, ex.references)])
        today = _installed(d.call, ex.hypotheses, ex.references)
        assert same_answer(got, d.got) and same_answer(today, d.today)
        assert not same_answer(got, today) and drift_kind(got, today) == d.kind
        assert ex.n_tokens <= min(
            c.n_tokens for c in battery(GENERATED, SEED) if c.source == ex.source
        )


def test_a_release_without_a_drift_answers_every_corpus_as_installed(report, folder) -> None:
    cases = battery(GENERATED, SEED)
    found = {r.version: r for r in cached_releases("sacrebleu", folder)[0]}
    today = installed_release("sacrebleu")
    for call in ("corpus_bleu", "sentence_bleu"):
        drifted = {v for d in report.drifts if d.call == call for v in d.releases}
        for version in set(RELEASES) - drifted:
            with ReleaseProcess(found[version]) as old, ReleaseProcess(today) as now:
                batch = [(call, c.hypotheses, c.references) for c in cases]
                assert all(
                    same_answer(a, b) for a, b in zip(old.run(batch), now.run(batch), strict=True)
                )


def test_the_command_prints_and_writes_the_report(folder: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(RELEASES_ENV, str(folder))
    argv = ["releases", "sacrebleu", "--generated", str(GENERATED), "--seed", str(SEED)]
    assert main([*argv, "--no-progress"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    n = len(battery(GENERATED, SEED))
    assert (
        f"sacrebleu: 2 cached releases (1.4.14, 2.0.0) beside the installed {sacrebleu.__version__}"
        in printed
    )
    assert f"on {n} corpora" in printed
    assert main([*argv, "--no-progress", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"] == list(RELEASES) and len(data["drifts"]) >= 1
    for d in data["drifts"]:
        assert f"on {d['differing']} of the {n} corpora" in printed


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
