"""Battery (issue 10): edge cases of the report, one row each, asserting what the page, the
Markdown and ``report.json`` say — never a silent number, a "no" for a missing side, a NaN in
the JSON or a report.json that grows with the segment count.

Every report is built from real runs (:func:`harness.run.runner.run` on shipped fixtures or on
generated corpora) and written with :func:`harness.report.write_report`.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from harness.analysis.significance import DEFAULT_SEED
from harness.analysis.study import ReportOptions, analyse
from harness.analysis.study_types import Report
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.errors import ConfigError
from harness.report import write_report
from harness.run import RunPlan, run, runner
from harness.run.plan import named_corpora
from harness.run.results import row_from_json
from harness.session import Session

MISSING_EVALUATE = "/nonexistent/hf-evaluate/bleu"


def _fixture_corpora(*names: str) -> list[tuple[str, str, Corpus]]:
    out = []
    for name in names:
        fx = load_fixture(name)
        out += fx.triples()
    return out


def _run(corpora, specs, levels=("corpus", "segment"), missing_evaluate=False):
    with pytest.MonkeyPatch.context() as mp:
        if missing_evaluate:
            mp.setenv("BLEU_HARNESS_EVALUATE_MODULE", MISSING_EVALUATE)
        impls = [runner.Implementation.parse(x) for x in specs]
        return run(RunPlan.of(corpora, impls, levels=levels, progress=False))


def _synthetic(n: int, name: str = "synthetic") -> Corpus:
    """``n`` short segments, deterministic (seeded), half of them off by one word."""
    import numpy as np

    rng = np.random.default_rng(7)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away"]
    hyps, refs = [], []
    for i in range(n):
        ref = " ".join(rng.choice(words, size=8))
        hyp = ref if i % 2 else ref.rsplit(" ", 1)[0] + " " + str(rng.choice(words))
        hyps.append(hyp)
        refs.append([ref])
    return Corpus(hypotheses=hyps, references=refs, name=name)


def analysed(rows: Any, corpora: Any = (), **options: Any) -> Report:
    """The report of ``rows``, analysed with a session over ``corpora`` (triples) as the
    :class:`ReportOptions` named by ``options`` ask."""
    return analyse(rows, Session(named_corpora(corpora)), options=ReportOptions(**options))


@dataclass(frozen=True)
class Written:
    report: Report
    dir: Path
    json: dict[str, Any]
    json_text: str
    html: str
    md: str


def _write(report: Report, tmp: Path, formats: tuple[str, ...] = ("md", "json", "html")) -> Written:
    out = tmp / "rep"
    write_report(report, out, formats=formats)
    text = (out / "report.json").read_text(encoding="utf-8")

    def no_constants(name: str) -> Any:
        raise AssertionError(f"report.json holds {name}")

    return Written(
        report,
        out,
        json.loads(text, parse_constant=no_constants),
        text,
        (out / "index.html").read_text(encoding="utf-8"),
        (out / "report.md").read_text(encoding="utf-8"),
    )


# ---------------------------------------------------------------------- the rows
def case_no_rows(tmp: Path) -> None:
    w = _write(analysed([]), tmp)
    assert w.json["summary"]["corpora"] == [] and w.json["pairs"] == []
    assert w.json["segments"]["file"] is None and not (w.dir / "segments.parquet").exists()
    assert "Compared</strong> 0 in-house profiles and 0 real libraries" in w.html
    assert "<p>No corpora.</p>" in w.html
    assert "<p>No pairs.</p>" in w.html
    assert w.json["significance"]["results"] == []
    assert [n["kind"] for n in w.json["significance"]["note"]] == ["without-corpora"]
    assert "without the corpora" in w.md
    assert "- **Compared** 0 in-house profiles and 0 real libraries" in w.md


def case_all_unavailable(tmp: Path) -> None:
    corpora = _fixture_corpora("silence_pitfall")
    rows = _run(corpora, ["adapter:evaluate"], missing_evaluate=True)
    w = _write(analysed(rows, corpora=corpora), tmp)
    assert all(u["scores"] == {"evaluate": None} for u in w.json["fixtures"])
    (problem,) = w.json["summary"]["problems"]
    assert problem["implementation"] == "evaluate" and problem["status"] == "unavailable"
    assert problem["corpora"] == 2 and MISSING_EVALUATE in problem["reason"]
    assert "Without scores</strong> (shown as n/a, not as disagreement)" in w.html
    assert [n["kind"] for n in w.json["significance"]["note"]] == ["no-in-house-profile"]
    assert "no in-house profile" in w.md
    assert w.json["summary"]["largest_gap"] is None
    assert w.json["segments"]["n_rows"] == 0 or all(
        s is None for s in w.report.segments.table["score"]
    )


def case_unavailable_side_is_na_not_no(tmp: Path) -> None:
    corpora = _fixture_corpora("silence_pitfall")
    rows = _run(corpora, ["profile:evaluate", "adapter:evaluate"], missing_evaluate=True)
    w = _write(analysed(rows, corpora=corpora), tmp)
    (pair,) = w.json["pairs"]
    assert (pair["a"], pair["b"], pair["verdict"], pair["agree"]) == (
        "harness:evaluate",
        "evaluate",
        "n/a",
        None,
    )
    ((why),) = pair["na_reason"]
    assert (why["kind"], why["names"]) == ("not-scored", ["evaluate"])
    assert why["detail"].startswith("unavailable (")
    assert '<td class="na">n/a: evaluate: unavailable (' in w.html
    assert '<td class="no">' not in w.html
    assert "| n/a: evaluate: unavailable (" in w.md
    assert w.json["summary"]["not_comparable"][0][:2] == ["harness:evaluate", "evaluate"]


def case_raising_implementation(tmp: Path) -> None:
    corpora = _fixture_corpora("edge_empty_hypothesis")
    rows = _run(corpora, ["adapter:sacrebleu", "adapter:evaluate"], levels=("corpus",))
    if any(r.status == "unavailable" for r in rows):
        pytest.skip("the real evaluate module is unavailable (set BLEU_HARNESS_EVALUATE_MODULE)")
    w = _write(analysed(rows, corpora=corpora), tmp)
    (pair,) = w.json["pairs"]
    # the all-empty system raises in evaluate; the fixture's other systems are compared
    raising = [g for g in pair["corpora"] if g["b"]["status"] == "raises"]
    assert [g["system"] for g in raising] == ["all_empty"]
    assert (pair["a"], pair["b"], pair["not_compared"]) == ("sacrebleu", "evaluate", 1)
    assert pair["compared"] == len(pair["corpora"]) - 1 >= 1
    assert pair["verdict"] == "agree"  # judged on the compared systems, never "disagree"
    ((why),) = pair["na_reason"]
    assert (why["kind"], why["names"]) == ("not-scored", ["evaluate"])
    assert why["detail"].startswith("raises (ZeroDivisionError")
    assert f"n/a on 1: evaluate: {why['detail']})" in w.md
    # the raising unit's cell is marked as having no score (class "na"), never as a number
    assert '<td class="na" title="raises">n/a</td>' in w.html
    assert "n/a on 1: evaluate: raises (ZeroDivisionError" in w.html
    (problem,) = w.json["summary"]["problems"]
    assert problem["status"] == "raises" and "ZeroDivisionError" in problem["reason"]


def case_one_implementation(tmp: Path) -> None:
    corpora = _fixture_corpora("silence_pitfall")
    rows = _run(corpora, ["profile:sacrebleu"])
    w = _write(analysed(rows, corpora=corpora), tmp)
    assert w.json["pairs"] == [] and "<p>No pairs.</p>" in w.html
    assert {n["kind"] for n in w.json["correlations"]["note"]} == {"too-few-scores"}
    assert "fewer than two implementations" in w.md
    assert "Every implementation scored every corpus." in w.html
    (res,) = w.json["significance"]["results"]  # one profile, one two-system fixture
    # B scores higher under sacrebleu, so A is tested against it (the best)
    assert (res["profile"], res["baseline"], res["system"]) == ("sacrebleu", "B", "A")
    assert res["delta"] < 0
    assert (
        0 < res["p_value"] <= 1
        and f"paired bootstrap (1000 resamples, seed {DEFAULT_SEED})" in w.html
    )


def case_nan_score_becomes_null_not_nan(tmp: Path) -> None:
    corpora = _fixture_corpora("silence_pitfall")
    rows = _run(corpora, ["profile:sacrebleu", "profile:nltk"])
    # a subject that reports NaN for every corpus score
    lying = [
        dataclasses.replace(r, score=math.nan)
        if r.implementation == "harness:nltk" and r.level == "corpus"
        else r
        for r in rows
    ]
    w = _write(analysed(lying), tmp)
    assert "NaN" not in w.json_text and "Infinity" not in w.json_text
    assert all(u["scores"]["harness:nltk"] is None for u in w.json["fixtures"])
    pair = w.json["pairs"][0]
    assert pair["corpus_gap"] is None and all(g["gap"] is None for g in pair["corpora"])
    assert "nan" not in w.html.lower().replace("nasa", "")


def case_huge_segment_count_keeps_json_small(tmp: Path) -> None:
    sizes = {}
    for n in (200, 6000):
        corpus = _synthetic(n)
        corpora = [("synthetic", "sys", corpus)]
        rows = _run(corpora, ["profile:sacrebleu", "profile:nltk", "profile:bleuscore"])
        rep = analysed(rows, corpora=corpora, include=("pairs",))
        w = _write(rep, tmp / str(n))
        sizes[n] = len(w.json_text.encode("utf-8"))
        assert w.json["segments"]["n_rows"] == 3 * n
        assert pq.read_metadata(w.dir / "segments.parquet").num_rows == 3 * n
        assert not (w.dir / "segments.csv").exists()  # written on request only
    assert sizes[6000] < 60_000, sizes  # 18,000 segment scores, none of them in report.json
    assert sizes[6000] < 1.5 * sizes[200], sizes


def case_torchmetrics_is_judged_at_its_float32_tolerance(tmp: Path) -> None:
    pytest.importorskip("torchmetrics")
    corpora = _fixture_corpora("google_nasa_opportunity", "tutorial_cat_on_the_mat")
    rows = _run(corpora, ["profile:torchmetrics", "adapter:torchmetrics", "profile:sacrebleu"])
    w = _write(analysed(rows, corpora=corpora, include=("pairs",)), tmp)
    by = {(p["a"], p["b"]): p for p in w.json["pairs"]}
    own = by[("harness:torchmetrics", "torchmetrics")]
    assert own["tolerance"] == 1e-4 and own["verdict"] == "agree"
    assert by[("harness:sacrebleu", "harness:torchmetrics")]["tolerance"] == 1e-4
    assert '<td class="n">0.0001</td>' in w.html and "| 0.0001 |" in w.md


def case_results_table_without_corpora_says_how_to_get_significance(tmp: Path) -> None:
    corpora = _fixture_corpora("silence_pitfall")
    written = runner.rows_to_jsonl(_run(corpora, ["profile:sacrebleu", "profile:nltk"]))
    rows = [row_from_json(json.loads(line)) for line in written.splitlines()]
    w = _write(analysed(rows), tmp)
    assert w.json["significance"]["results"] == []
    assert "`bleu-harness significance BASELINE SYSTEM REF [REF ...] --profile NAME`" in w.md
    assert "bleu-harness significance BASELINE SYSTEM REF [REF ...] --profile NAME" in w.html
    assert w.json["attributions"] == []


def case_segment_ids_with_commas_quotes_and_newlines_round_trip(tmp: Path) -> None:
    ids = ["a,b", 'say "hi"', "line\nbreak", "ünï"]
    corpus = Corpus(
        hypotheses=["the cat sat", "a dog", "on the mat", "far away"],
        references=[["the cat sat"], ["a dog ran"], ["on a mat"], ["far away"]],
        ids=ids,
        name="odd_ids",
    )
    rows = _run([("odd", "sys", corpus)], ["profile:sacrebleu", "profile:nltk"])
    w = _write(analysed(rows, include=("pairs",)), tmp, formats=("md", "json", "html", "csv"))
    assert (w.json["segments"]["file"], w.json["segments"]["csv"]) == (
        "segments.parquet",
        "segments.csv",
    )
    with open(w.dir / "segments.csv", encoding="utf-8", newline="") as fh:
        got = list(csv.DictReader(fh))
    assert [r["segment_id"] for r in got] == ids * 2
    assert [float(r["score"]) for r in got] == w.report.segments.table["score"]
    table = pq.read_table(w.dir / "segments.parquet").to_pydict()
    assert table["segment_id"] == ids * 2
    assert table["score"] == w.report.segments.table["score"]


def case_unknown_section_is_refused(tmp: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown report section\(s\) segments"):
        analysed([], include=("pairs", "segments"))


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case_no_rows, id="no-rows"),
        pytest.param(case_all_unavailable, id="all-unavailable"),
        pytest.param(case_unavailable_side_is_na_not_no, id="unavailable-side-is-na-not-no"),
        pytest.param(case_raising_implementation, id="raising-implementation"),
        pytest.param(case_one_implementation, id="one-implementation"),
        pytest.param(case_nan_score_becomes_null_not_nan, id="nan-score-null-not-nan"),
        pytest.param(case_huge_segment_count_keeps_json_small, id="huge-segments-small-json"),
        pytest.param(
            case_torchmetrics_is_judged_at_its_float32_tolerance, id="torchmetrics-tolerance"
        ),
        pytest.param(
            case_results_table_without_corpora_says_how_to_get_significance,
            id="no-corpora-significance-how",
        ),
        pytest.param(
            case_segment_ids_with_commas_quotes_and_newlines_round_trip, id="csv-odd-segment-ids"
        ),
        pytest.param(case_unknown_section_is_refused, id="unknown-section"),
    ],
)
def test_report_battery(case: Callable[[Path], None], tmp_path: Path) -> None:
    case(tmp_path)
