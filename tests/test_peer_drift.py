"""The drift report of torchmetrics, pytorch-ignite, lm-eval and datasets: the drifts it finds,
each recomputed from the releases.

Releases from the package index (``tests.published``; downloaded once, skipped without the
network, failed under ``CI=true``) are put in a release folder of their own: torchmetrics
0.11.4, pytorch-ignite 0.4.5, lm-eval 0.3.0 with the sacrebleu 1.5.0 it pins. datasets'
``load_metric("bleu")`` is the ``nmt_bleu.py`` of evaluate's module folder on ``str.split``
tokens. Each drift's example is run again through the release's own process
(:mod:`tests.peer_releases`) and the installed library called here.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.diagnose.releases import DriftReport, drift_report, same_answer
from harness.scorers.releases import RELEASES_ENV

from .peer_releases import (
    ignite_release,
    lm_eval_release,
    nmt_compute_bleu,
    torchmetrics_release,
)
from .published import published_archive

pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

#: Per library, the published archives its release folder holds (index name, version).
ARCHIVES = {
    "torchmetrics": [("torchmetrics", "0.11.4")],
    "ignite": [("pytorch-ignite", "0.4.5")],
    "lm-eval": [("lm-eval", "0.3.0"), ("sacrebleu", "1.5.0")],
}
GENERATED, SEED = 4, 7


def _folder(library: str, root: Path) -> Path:
    for name, version in ARCHIVES[library]:
        archive = published_archive(name, version)
        shutil.copy(archive, root / archive.name)
    return root


def _report(library: str, folder: Path | None, monkeypatch: pytest.MonkeyPatch) -> DriftReport:
    if folder is not None:
        monkeypatch.setenv(RELEASES_ENV, str(folder))
    return drift_report(library, generated=GENERATED, seed=SEED)


def _drift(report: DriftReport, call: str, kind: str) -> Any:
    found = [d for d in report.drifts if d.call == call and d.kind == kind]
    assert found, (call, kind, report.drifts)
    return found[0]


def _installed_torchmetrics(hyps: Any, refs: Any) -> dict[str, Any]:
    from torchmetrics.functional.text.sacre_bleu import sacre_bleu_score

    return {"score": 100 * float(sacre_bleu_score(list(hyps), [list(r) for r in refs]))}


def test_torchmetrics_0_11_keeps_a_line_final_number_glued(tmp_path, monkeypatch) -> None:
    report = _report("torchmetrics", _folder("torchmetrics", tmp_path), monkeypatch)
    assert report.run == ("0.11.4",)
    d = _drift(report, "sacre_bleu_score", "number")
    assert d.releases == ("0.11.4",)
    assert d.example.hypotheses == ("It cost 5.",)  # the smallest corpus where it differs
    release = torchmetrics_release("0.11.4")
    try:
        (theirs,) = release.run([[list(d.example.hypotheses), d.example.references, {}]])
    finally:
        release.close()
    today = _installed_torchmetrics(d.example.hypotheses, d.example.references)
    assert same_answer({"score": 100 * theirs["score"]}, d.got, report.points)
    assert same_answer(today, d.today, report.points)
    assert not same_answer(d.got, d.today, report.points)
    profiles = {(c.call, c.releases): (c.profile, c.agree == c.cases) for c in report.checks}
    assert profiles[("sacre_bleu_score", ("0.11.4",))] == ("torchmetrics-sacrebleu@0.11", True)


def test_ignite_0_4_5_scores_a_segment_without_references(tmp_path, monkeypatch) -> None:
    from ignite.metrics.nlp import Bleu

    report = _report("ignite", _folder("ignite", tmp_path), monkeypatch)
    d = _drift(report, "Bleu", "scores")
    assert d.releases == ("0.4.5",) and d.example.references == ((),)
    release = ignite_release("0.4.5")
    try:
        hyps = [h.split() for h in d.example.hypotheses]
        (theirs,) = release.run([[hyps, [[]], {}]])
    finally:
        release.close()
    assert theirs["score"] == 0 and d.got == {"score": 0.0}
    metric = Bleu()
    with pytest.raises(ValueError):
        metric.update((hyps, [[]]))
        metric.compute()
    assert d.today["error"] == "ValueError"


def test_lm_eval_0_3_inherits_sacrebleu_1_5(tmp_path, monkeypatch) -> None:
    import lm_eval.api.metrics

    report = _report("lm-eval", _folder("lm-eval", tmp_path), monkeypatch)
    assert report.run == ("0.3.0",)
    release = lm_eval_release("0.3.0", "1.5.0")
    try:
        for kind in ("raises", "number"):
            d = _drift(report, "bleu", kind)
            pairs = zip(d.example.hypotheses, d.example.references, strict=True)
            items = [[list(r), h] for h, r in pairs]
            (theirs,) = release.run([["bleu", items]])
            assert same_answer(theirs, d.got)
            today = {"score": lm_eval.api.metrics.bleu([(r, h) for r, h in items])}
            assert same_answer(today, d.today) and not same_answer(theirs, today)
        assert _drift(report, "TruthfulQA bleu_max", "number").releases == ("0.3.0",)
    finally:
        release.close()
    assert _drift(report, "bleu", "raises").got["error"] == "EOFError"


def test_datasets_split_tokens_against_evaluate_13a(evaluate_module: Path, monkeypatch) -> None:
    import evaluate

    monkeypatch.setenv("BLEU_HARNESS_EVALUATE_MODULE", str(evaluate_module))
    report = _report("datasets", None, monkeypatch)
    assert report.run == ("1.x–2.x",) and report.installed == f"evaluate {evaluate.__version__}"
    compute_bleu = nmt_compute_bleu(evaluate_module)
    module = evaluate.load(str(evaluate_module))
    for call, smooth in (("compute", False), ("compute smooth=True", True)):
        d = _drift(report, call, "number")
        hyps, refs = list(d.example.hypotheses), [list(r) for r in d.example.references]
        split_refs = [[r.split() for r in seg] for seg in refs]
        theirs = compute_bleu(split_refs, [h.split() for h in hyps], smooth=smooth)
        today = module.compute(predictions=hyps, references=refs, smooth=smooth)["bleu"]
        assert same_answer({"score": 100 * theirs[0]}, d.got)
        assert same_answer({"score": 100 * today}, d.today)
    named = {(c.call, c.installed): c.profile for c in report.checks}
    assert named[("compute", False)] == "datasets@2" and named[("compute", True)] == "evaluate"
    assert all(c.agree == c.cases for c in report.checks), report.checks


@pytest.mark.parametrize("library", sorted(ARCHIVES))
def test_no_cached_release_says_how_to_fill_the_folder(library, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(RELEASES_ENV, str(tmp_path))
    report = drift_report(library, generated=0)
    (missing,) = report.not_run
    assert report.run == () and missing.reason == "missing" and "pytest tests/" in missing.detail
    assert main(["releases", library, "--generated", "0", "--no-progress"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert f"Not run: {' '.join(missing.detail.split())}" in printed
