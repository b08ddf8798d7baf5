"""The analysis commands: explain, human (and significance, report in their own tests)."""

from __future__ import annotations

import json

import pytest

from harness import PROFILES
from harness.analysis.human import wmt21_human_correlations
from harness.analysis.meta_eval import MetaEvalOptions, meta_evaluate
from harness.bleu import engine
from harness.cli import main
from harness.data.fixtures import load_fixture
from harness.session import Session
from harness.statistics.correlation import NO_INTERVALS


def test_explain_json_shape_and_sum(capsys) -> None:
    assert (
        main(
            [
                "explain",
                "--a",
                "sacrebleu",
                "--b",
                "evaluate",
                "--fixture",
                "tutorial_cat_on_the_mat",
                "--json",
            ]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    for key in ("a", "b", "score_a", "score_b", "gap", "factors", "residual"):
        assert key in d
    assert d["residual"] is None
    corpus = load_fixture("tutorial_cat_on_the_mat").corpus("candidate")
    want_a = engine.corpus_score(corpus, PROFILES["sacrebleu"]).score
    assert abs(d["score_a"] - want_a) < 1e-12
    assert abs(sum(d["factors"].values()) - d["gap"]) < 1e-9


def test_explain_with_library_residual_and_segment(capsys) -> None:
    args = [
        "explain",
        "--a",
        "sacrebleu",
        "--b",
        "nltk",
        "--fixture",
        "silence_pitfall",
        "--system",
        "B",
        "--library",
        "nltk",
        "--segment",
        "1",
        "--json",
    ]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["segment"] == "1"
    assert abs(d["residual"]) < 1e-9


def test_explain_needs_a_system_for_multi_system_fixtures(capsys) -> None:
    assert main(["explain", "--a", "sacrebleu", "--b", "nltk", "--fixture", "silence_pitfall"]) == 2
    assert "--system" in capsys.readouterr().err


def test_explain_on_files(tmp_path, capsys) -> None:
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cat sat on the mat\n", encoding="utf-8")
    ref.write_text("the cat is on the mat\n", encoding="utf-8")
    assert main(["explain", "--a", "sacrebleu", "--b", "torchmetrics", str(hyp), str(ref)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].split() == [
        "factor",
        "BLEU",
        "points",
        "share",
        "change",
        "(a",
        "→",
        "b)",
    ]
    assert "|" not in out and "**" not in out


@pytest.mark.realdata
def test_human_json(data_dir, capsys) -> None:
    assert (
        main(["human", "--data", str(data_dir), "--impl", "sacrebleu", "--n-boot", "50", "--json"])
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    rows = {(r["implementation"], r["level"]): r for r in d["wmt21"]["rows"]}
    assert rows[("sacrebleu", "system")]["n"] == 8
    assert d["wmt19_outliers"] is None


@pytest.mark.realdata
def test_human_prints_the_meta_evaluation(data_dir, capsys) -> None:
    """`human` shows each profile's WMT meta-evaluation as meta_evaluate computes it, and the
    permutation tests between the profiles with --meta-resamples."""
    argv = ["human", "--data", str(data_dir), "--impl", "sacrebleu,helm-bleu-1", "--n-boot", "0"]
    assert main([*argv, "--meta-resamples", "100", "--seed", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["wmt21_meta_evaluation"]
    human = wmt21_human_correlations(
        data_dir, ["sacrebleu", "helm-bleu-1"], bootstrap=NO_INTERVALS, session=Session()
    )
    expected = meta_evaluate(human, options=MetaEvalOptions(resamples=100, seed=3))
    assert d["rows"] == expected.rows()
    assert [c["p_value"] for c in d["comparisons"]] == [c.p_value for c in expected.comparisons]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "WMT meta-evaluation against MQM" in out
    spa = next(r["spa"] for r in expected.rows() if r["implementation"] == "helm-bleu-1")
    assert "| helm-bleu-1 |" in out and f"{spa:.4f}" in out
    assert "No permutation tests between implementations" in out


def test_significance_json(tmp_path, capsys) -> None:
    base = tmp_path / "base.txt"
    system = tmp_path / "sys.txt"
    ref = tmp_path / "ref.txt"
    refs = [f"the cat number {i} sat on the mat ." for i in range(30)]
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
    system.write_text("\n".join(r.replace("mat", "rug") for r in refs) + "\n", encoding="utf-8")
    base.write_text("\n".join(f"a dog {i} ran ." for i in range(30)) + "\n", encoding="utf-8")
    args = ["significance", str(base), str(system), str(ref), "--resamples", "200", "--seed", "7"]
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("score_baseline", "score_system", "p_value", "ci_system"):
        assert key in d
    assert d["score_system"] > d["score_baseline"]
    assert d["p_value"] < 0.05
    assert d["ci_system"][0] <= d["score_system"] <= d["ci_system"][1]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == d  # seeded: identical
    assert main([*args, "--method", "ar"]) == 0
    assert "p =" in capsys.readouterr().out


def test_report_command_writes_and_refuses_to_overwrite(tmp_path, capsys) -> None:
    out = tmp_path / "rep"
    args = [
        "report",
        "--out",
        str(out),
        "--fixture",
        "silence_pitfall",
        "--impl",
        "profile:sacrebleu,adapter:sacrebleu,profile:nltk",
        "--n-boot",
        "0",
    ]
    assert main(args) == 0
    assert {"report.md", "report.json", "index.html"} <= {p.name for p in out.iterdir()}
    report = json.loads((out / "report.json").read_text())
    from harness.report import TOP_KEYS

    assert list(report) == list(TOP_KEYS)  # schema documented in harness/report/__init__.py
    assert (out / report["segments"]["file"]).is_file()
    assert report["verification"]["harness:sacrebleu"]["status"] == "verified"
    capsys.readouterr()
    before = (out / "report.json").read_bytes()
    assert main(args) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "report.json").read_bytes() == before


def test_report_from_a_results_table(tmp_path, capsys) -> None:
    res = tmp_path / "res"
    assert (
        main(
            [
                "compare",
                "--fixture",
                "google_nasa_opportunity",
                "--impl",
                "profile:sacrebleu,profile:evaluate",
                "--level",
                "corpus",
                "segment",
                "--out",
                str(res),
                "--no-progress",
            ]
        )
        == 0
    )
    out = tmp_path / "rep"
    assert (
        main(
            [
                "report",
                "--results",
                str(res / "results.jsonl"),
                "--out",
                str(out),
                "--formats",
                "md",
                "json",
                "--n-boot",
                "0",
            ]
        )
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    assert any(
        p["a"] == "harness:sacrebleu" or p["b"] == "harness:sacrebleu" for p in report["pairs"]
    )
    bad = tmp_path / "bad.jsonl"
    first = (res / "results.jsonl").read_text(encoding="utf-8").splitlines()[0]
    bad.write_text(first + "\nnot json\n", encoding="utf-8")
    assert main(["report", "--results", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert "line 2" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing half-written


def test_pitfalls_json_objects(capsys) -> None:
    assert (
        main(["pitfalls", "--name", "silence", "--name", "torchmetrics_reference_order", "--json"])
        == 0
    )
    objs = json.loads(capsys.readouterr().out)
    assert [o["name"] for o in objs] == ["silence", "torchmetrics_reference_order"]
    for o in objs:
        for key in ("name", "claim", "source", "verdict", "numbers"):
            assert key in o
    assert main(["pitfalls", "--name", "no-such-pitfall"]) == 2


def test_identify_finds_the_seed_003_score(capsys) -> None:
    # 0.27: the score printed for candidate 2 in 003_9b9e8f448f39b158.txt.
    assert (
        main(
            [
                "identify",
                "--score",
                "0.27",
                "--fixture",
                "google_nasa_opportunity",
                "--system",
                "candidate_2",
                "--json",
            ]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    assert d["n_matches"] >= 1
    assert all(abs(m["shown"] - 0.27) < 1e-12 for m in d["matches"])
    assert (
        main(
            [
                "identify",
                "--score",
                "0.27",
                "--fixture",
                "google_nasa_opportunity",
                "--system",
                "candidate_2",
            ]
        )
        == 0
    )
    assert "reproduce 0.27" in capsys.readouterr().out


def test_validate_command(capsys) -> None:
    assert (
        main(
            [
                "validate",
                "--impl",
                "harness.diagnose.homemade:tutorial_bleu",
                "--cases",
                "30",
                "--json",
            ]
        )
        == 0
    )
    d = json.loads(capsys.readouterr().out)
    for key in ("best_profile", "agreement", "matches", "deviations", "crashes"):
        assert key in d
    assert main(["validate"]) == 2
    assert "exactly one" in capsys.readouterr().err
