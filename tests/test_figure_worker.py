"""The report's figures drawn in a worker process (:mod:`harness.cli.figure_worker`): the same
PNG files, byte for byte, as the ones :func:`harness.report.figures.render_figures` draws in
this process, and drawn here when the run has no workers or too few points."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from harness.analysis.study import ReportOptions, analyse
from harness.cli import figure_worker
from harness.cli.figure_worker import FigureWorker
from harness.data.fixtures import load_fixture
from harness.report import write_report
from harness.report.figures import render_figures
from harness.report.outdir import OutputDir
from harness.run import RunPlan, run, runner
from harness.run.plan import named_corpora
from harness.session import Session

FIXTURES = ("google_nasa_opportunity", "silence_pitfall")
IMPLS = ("profile:sacrebleu", "profile:nltk", "profile:evaluate", "adapter:nltk")


@pytest.fixture(scope="module")
def report():
    corpora = []
    for name in FIXTURES:
        corpora += load_fixture(name).triples()
    impls = [runner.Implementation.parse(x) for x in IMPLS]
    rows = run(RunPlan.of(corpora, impls, levels=("corpus", "segment"), progress=False))
    return analyse(rows, Session(named_corpora(corpora)), options=ReportOptions())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.suffix == ".png"}


def test_a_worker_draws_the_same_files(report, tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    here = render_figures(report, tmp_path / "here")
    kinds = {f.filename.split("-")[1] for f in here}
    assert kinds == {"scatter", "attribution"}
    monkeypatch.setattr(figure_worker, "IN_WORKER_FROM", 0)
    folder = tmp_path / "worker"
    folder.mkdir()
    with contextlib.ExitStack() as stack:
        drawing = FigureWorker(stack, Session(jobs=2, backend="processes"), folder)
        drawing.meanwhile(report.pairs, report.gap_matters, report.segments)
        assert drawing._scatters is not None  # started in the worker
        there = drawing(report, folder)()
    assert there == here
    assert _files(folder) == _files(tmp_path / "here") != {}


@pytest.mark.parametrize(
    "session, threshold",
    [(Session(jobs=1), 0), (Session(jobs=2, backend="processes"), 10**9)],
    ids=["no-workers", "few-points"],
)
def test_drawn_here_without_workers_or_points(report, tmp_path, monkeypatch, session, threshold):
    monkeypatch.setattr(figure_worker, "IN_WORKER_FROM", threshold)
    started = []
    monkeypatch.setattr(figure_worker, "process_pool", lambda *a: started.append(a))
    with contextlib.ExitStack() as stack:
        drawing = FigureWorker(stack, session, tmp_path)
        drawing.meanwhile(report.pairs, report.gap_matters, report.segments)
        figs = drawing(report, tmp_path)()
    assert started == []
    (tmp_path / "here").mkdir()
    assert figs == render_figures(report, tmp_path / "here")
    assert _files(tmp_path) == _files(tmp_path / "here")


def test_write_report_with_the_worker_writes_the_same_folder(report, tmp_path, monkeypatch):
    plain = write_report(report, tmp_path / "plain")
    monkeypatch.setattr(figure_worker, "IN_WORKER_FROM", 0)
    out_dir = OutputDir(tmp_path / "worker", force=False, command="report")
    with out_dir as out, contextlib.ExitStack() as stack:
        drawing = FigureWorker(stack, Session(jobs=2, backend="processes"), out.staging)
        drawing.meanwhile(report.pairs, report.gap_matters, report.segments)
        paths = write_report(report, out, figures_later=drawing)
    assert [p.name for p in paths] == [p.name for p in plain]
    for p, q in zip(plain, paths, strict=True):
        assert p.read_bytes() == q.read_bytes(), p.name
