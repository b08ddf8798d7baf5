"""``compare`` runs the real sacrebleu as a spot check on the user's files.

On the user's files the real library runs on a seeded sample of the systems and of their
segments (``--real sample``, the default; ``--real-systems``, ``--real-segments``, ``--seed``),
scored as a corpus of their own beside its profile's score of the same segments; ``--real
all`` runs it on everything, and on the fixtures it runs on everything unless the spot check is
sized. Expected numbers come from the real sacrebleu run here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import sacrebleu

from harness.cli import main
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.run.library_sample import segment_sample, system_sample

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import corpus_gen

SYSTEMS, SEGMENTS, DRAWN, SAMPLE, SEED = 4, 40, 2, 9, 5


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str, list[Corpus]]:
    """Four generated systems and their one reference, one segment a line."""
    outputs, streams = corpus_gen.systems(SYSTEMS, SEGMENTS, 1, seed=corpus_gen.SEED + 2)
    refs = tuple(zip(*streams, strict=True))
    root = tmp_path_factory.mktemp("spot")
    paths, corpora = [], []
    for k, hyps in enumerate(outputs):
        path = root / f"sys{k}.txt"
        path.write_text("".join(f"{h}\n" for h in hyps), encoding="utf-8")
        paths.append(str(path))
        corpora.append(Corpus(tuple(hyps), refs))
    ref = root / "ref.txt"
    ref.write_text("".join(f"{r[0]}\n" for r in refs), encoding="utf-8")
    return paths, str(ref), corpora


def _compare(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    """``compare`` with ``--json`` and without: its rows and answer, and its printed words
    (unwrapped)."""
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    return data, " ".join(capsys.readouterr().out.split())


def test_compare_spot_checks_the_real_sacrebleu_by_default(files, capsys) -> None:
    paths, ref, corpora = files
    sized = ["--real-systems", str(DRAWN), "--real-segments", str(SAMPLE), "--seed", str(SEED)]
    argv = ["compare", *paths, "--refs", ref, "--no-cache", "--no-progress", *sized]
    data, printed = _compare(argv, capsys)
    names = [Path(p).stem for p in paths]
    drawn = sorted(system_sample(names, DRAWN, SEED))
    picked = segment_sample(SEGMENTS, SAMPLE, SEED)
    assert picked is not None
    real = [r for r in data["rows"] if r["implementation"] == "sacrebleu"]
    assert sorted(r["system"] for r in real) == drawn
    assert {r["level"] for r in real} == {"sample"}
    for row in real:
        part = corpora[names.index(row["system"])].subset(picked)
        want = sacrebleu.corpus_bleu(list(part.hypotheses), [[r[0] for r in part.references]])
        assert row["score"] == pytest.approx(want.score, abs=1e-9)
    (lib,) = [x for f in data["answer"]["families"] for x in f["libraries"]]
    assert lib["sampled"] == drawn and lib["equal_to_profile"] is True
    said = f"of {DRAWN} of the {SYSTEMS} systems ({', '.join(drawn)})"
    assert f"The real sacrebleu {sacrebleu.__version__} ran on a seeded sample" in printed
    assert said in printed and "equals its profile there" in printed


def test_compare_real_all_runs_the_library_on_every_system(files, capsys) -> None:
    paths, ref, corpora = files
    argv = ["compare", *paths, "--refs", ref, "--no-cache", "--no-progress", "--real", "all"]
    data, printed = _compare(argv, capsys)
    real = {r["system"]: r for r in data["rows"] if r["implementation"] == "sacrebleu"}
    assert sorted(real) == sorted(Path(p).stem for p in paths)
    assert {r["level"] for r in real.values()} == {"corpus"}
    first = corpora[0]
    want = sacrebleu.corpus_bleu(list(first.hypotheses), [[r[0] for r in first.references]])
    assert real["sys0"]["score"] == pytest.approx(want.score, abs=1e-9)
    assert f"The real sacrebleu {sacrebleu.__version__} ran and equals its profile" in printed


def test_a_bare_real_flag_names_its_values(files, capsys) -> None:
    paths, ref, _ = files
    assert main(["compare", *paths, "--refs", ref, "--no-cache", "--real"]) != 0
    err = capsys.readouterr().err
    assert "--real sample" in err and "--real all" in err and "--all-libraries" in err


def test_on_the_fixtures_the_libraries_run_on_everything_unless_sized(capsys) -> None:
    name = "forensic_preprocessing"
    fx = load_fixture(name)
    argv = ["compare", "--fixture", name, "--impl", "adapter:sacrebleu", "--json", "--no-cache"]
    assert main([*argv, "--no-progress"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["system"] for r in rows if r["level"] == "corpus") == sorted(fx.system_names)
    assert main([*argv, "--no-progress", "--real-systems", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len({r["system"] for r in rows}) == 1
