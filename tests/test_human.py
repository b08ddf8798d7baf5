"""BLEU against human judgments (harness.analysis.human).

Goldens are the numbers printed in the data folders' own READMEs, each within half a unit of
the last printed digit (the README rounds to 3 decimals, so |ours − printed| ≤ 5e-4):

* ``shared/data/wmt21_ende_mqm/README.md``, "Checks done when the subset was extracted":
  "segment level sentBLEU vs MQM Pearson 0.153, Spearman 0.171, Kendall 0.130 (n=4216);
  system level BLEU(3 refs) vs MQM Pearson 0.789, Spearman 0.833, Kendall 0.714".
* ``shared/data/wmt19_syslevel_da_metrics_tangled/README.md``, "Checks done": "scipy
  Pearson(BLEU, HUMAN): en-de 0.921, de-en 0.849, zh-en 0.899".

Each is also checked against scipy on vectors built here independently of the module: the real
sacrebleu's sentence scores, the organisers' official system BLEU, and the WMT19 columns read
by a separate minimal parser.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps

from harness.analysis.human import (
    MAD_SCALE,
    load_wmt19_syslevel,
    mad_outliers,
    mathur_outliers,
    wmt19_bleu_vs_human,
    wmt21_human_correlations,
)
from harness.errors import ConfigError
from harness.session import Session
from harness.statistics.correlation import NO_INTERVALS, BootstrapOptions
from harness.typed_json import to_json

README_TOL = 5e-4
PROFILES_TESTED = ("sacrebleu", "sacrebleu-sentence", "nltk", "evaluate", "mteval-v13a")
SCIPY = {
    "pearson": sps.pearsonr,
    "spearman": sps.spearmanr,
    "kendall": lambda a, b: sps.kendalltau(a, b, variant="b"),
}


# ============================================================================ WMT21 MQM
@pytest.fixture(scope="module")
def wmt21(data_dir):
    return wmt21_human_correlations(
        data_dir, PROFILES_TESTED, bootstrap=BootstrapOptions(n_boot=200, seed=3), session=Session()
    )


@pytest.fixture(scope="module")
def mqm(data_dir):
    from harness.data.datasets import wmt21_mqm

    return wmt21_mqm(data_dir)


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("level", "profile", "printed", "n"),
    [
        # sentBLEU = sacrebleu.sentence_bleu (effective order) = the sacrebleu-sentence profile
        ("segment", "sacrebleu-sentence", (0.153, 0.171, 0.130), 4216),
        ("system", "sacrebleu", (0.789, 0.833, 0.714), 8),
    ],
)
def test_wmt21_reproduces_readme(wmt21, level, profile, printed, n) -> None:
    c = wmt21.correlations[profile][level]
    assert c.n == n and c.n_dropped == 0
    for method, value in zip(("pearson", "spearman", "kendall"), printed, strict=True):
        assert abs(c[method].value - value) <= README_TOL, (method, c[method].value, value)


@pytest.mark.realdata
def test_wmt21_segment_level_equals_scipy_on_the_same_vectors(wmt21, mqm) -> None:
    keys = wmt21.segment_keys
    assert len(keys) == 4216 and len(set(keys)) == 4216
    human = [mqm["segment"][s][int(i) - 1] for s, i in keys]
    assert list(wmt21.human_segment) == human
    for name in PROFILES_TESTED:
        x = wmt21.segment_scores[name]
        c = wmt21.correlations[name]["segment"]
        for method, fn in SCIPY.items():
            ref = fn(x, human)
            assert c[method].value == pytest.approx(ref.statistic, abs=1e-12), (name, method)
            assert c[method].p_value == pytest.approx(ref.pvalue, rel=1e-9), (name, method)


@pytest.mark.realdata
def test_wmt21_segment_level_against_real_sacrebleu(data_dir, wmt21, mqm) -> None:
    """The real sacrebleu's sentence_score on the same 4216 segments, correlated by scipy.

    Pearson agrees to 1e-9. Its floats differ from the engine's by up to ~1e-13 on most
    segments, which splits or merges a few exact ties, so the rank correlations agree only to
    about 1e-5 (measured: Spearman 0.1705743 vs 0.1705721).
    """
    import sacrebleu

    from harness.data.datasets import load_wmt21_ende

    corpora = load_wmt21_ende(data_dir, systems=wmt21.systems)
    bleu = sacrebleu.BLEU(effective_order=True)
    x = []
    for s, seg in wmt21.segment_keys:
        i = int(seg) - 1
        hyp, refs = corpora[s].hypotheses[i], list(corpora[s].references[i])
        x.append(bleu.sentence_score(hyp, refs).score)
    engine_x = np.array(wmt21.segment_scores["sacrebleu-sentence"])
    assert np.abs(np.array(x) - engine_x).max() < 1e-9
    c = wmt21.correlations["sacrebleu-sentence"]["segment"]
    for method, fn in SCIPY.items():
        tol = 1e-9 if method == "pearson" else 1e-5
        assert c[method].value == pytest.approx(fn(x, wmt21.human_segment).statistic, abs=tol)


@pytest.mark.realdata
def test_wmt21_system_level_equals_scipy_on_official_bleu(data_dir, wmt21, mqm) -> None:
    from harness.data.datasets import wmt21_official_scores

    official = wmt21_official_scores(data_dir)
    systems = wmt21.systems
    assert len(systems) == 8
    x = [official[s]["bleu-all"] for s in systems]
    y = [mqm["system"][s]["mqm_mean"] for s in systems]
    c = wmt21.correlations["sacrebleu"]["system"]
    for method, fn in SCIPY.items():
        ref = fn(x, y)
        assert c[method].value == pytest.approx(ref.statistic, abs=1e-9)
        assert c[method].p_value == pytest.approx(ref.pvalue, rel=1e-6)
    assert wmt21.system_scores["sacrebleu"] == pytest.approx(dict(zip(systems, x, strict=True)))


@pytest.mark.realdata
def test_wmt21_every_profile_equals_scipy_on_its_own_scores(wmt21, mqm) -> None:
    systems = wmt21.systems
    human = [mqm["system"][s]["mqm_mean"] for s in systems]
    for name in PROFILES_TESTED:
        c = wmt21.correlations[name]["system"]
        x = [wmt21.system_scores[name][s] for s in systems]
        assert c.pearson.value == pytest.approx(sps.pearsonr(x, human).statistic, abs=1e-12)
        seg = wmt21.correlations[name]["segment"]
        assert seg.n == 4216
        for m in ("pearson", "spearman", "kendall"):
            e = seg[m]
            assert e.ci_low <= e.value <= e.ci_high, (name, m)


@pytest.mark.realdata
def test_wmt21_rankings_are_consistent(wmt21) -> None:
    ref = wmt21.system_scores["sacrebleu"]
    for row in wmt21.rankings:
        own = wmt21.system_scores[row["implementation"]]
        assert row["ranking"] == sorted(own, key=lambda s: -own[s])
        for hi, lo in row["swapped_pairs"]:
            assert ref[hi] > ref[lo] and own[hi] < own[lo]
        systems = list(own)
        tau = sps.kendalltau([own[s] for s in systems], [ref[s] for s in systems]).statistic
        assert row["kendall_tau_vs_reference"] == pytest.approx(tau)
        assert row["same_ranking"] == (not row["swapped_pairs"] and not row["tie_changed_pairs"])
        assert row["pairs_rated"] == 28
    same = {r["implementation"]: r for r in wmt21.rankings}
    assert same["sacrebleu"]["same_ranking"] and same["sacrebleu"]["swapped_pairs"] == []


@pytest.mark.realdata
def test_wmt21_output_is_json_ready_and_records_the_seed(wmt21) -> None:
    d = json.loads(json.dumps(to_json(wmt21), allow_nan=False))
    assert d["seed"] == 3 and d["n_boot"] == 200
    assert {(r["implementation"], r["level"]) for r in d["rows"]} == {
        (p, lv) for p in PROFILES_TESTED for lv in ("segment", "system")
    }
    assert d["refs"] == ["A", "C", "D"] and set(d["n_rated_segments"].values()) == {527}


def test_wmt21_rejects_unknown_profiles() -> None:
    with pytest.raises(ConfigError):
        wmt21_human_correlations("/nonexistent", ["sacrebleu", "nope"], session=Session())
    with pytest.raises(ConfigError):
        wmt21_human_correlations(
            "/nonexistent", ["sacrebleu"], ranking_systems="some", session=Session()
        )


# ============================================================================ WMT19 DA
def _columns(path):
    """A minimal independent reader: header fields → column lists (first duplicate wins)."""
    lines = [ln.split() for ln in path.read_text().splitlines() if ln.strip()]
    header, body = lines[0], lines[1:]
    cols = {}
    for j, name in enumerate(header):
        cols.setdefault(name, [row[j] for row in body])
    return cols


@pytest.fixture(scope="module")
def wmt19(data_dir):
    return load_wmt19_syslevel(data_dir)


@pytest.mark.realdata
def test_wmt19_reader(wmt19) -> None:
    assert len(wmt19) == 18
    assert len(wmt19["en-de"]["systems"]) == 22
    assert all(10 <= len(e["systems"]) <= 22 for e in wmt19.values())
    # en-de has the LP metric (its header says LP twice); en-zh does not
    assert "LP" in wmt19["en-de"]["scores"] and "LP" not in wmt19["en-zh"]["scores"]
    assert wmt19["en-de"]["systems"][0] == "UCAM.6731"
    assert wmt19["en-de"]["scores"]["HUMAN"][0] == 0.213
    assert wmt19["en-de"]["scores"]["LP"][0] == 2.23048622934  # the second "LP" column


@pytest.mark.realdata
@pytest.mark.parametrize(("lp", "printed"), [("en-de", 0.921), ("de-en", 0.849), ("zh-en", 0.899)])
def test_wmt19_bleu_vs_human_reproduces_readme_and_scipy(data_dir, lp, printed) -> None:
    rows = {(r["lp"], r["metric"]): r for r in wmt19_bleu_vs_human(data_dir, n_boot=100)}
    row = rows[lp, "BLEU"]
    assert abs(row["pearson"] - printed) <= README_TOL
    path = data_dir / "wmt19_syslevel_da_metrics_tangled"
    cols = _columns(path / f"DA-newstest2019-{lp.replace('-', '')}-sys-nohy-scores.csv")
    human = np.array(cols["HUMAN"], dtype=float)
    for metric in ("BLEU", "sacreBLEU-BLEU"):
        x = np.array(cols[metric], dtype=float)
        r = rows[lp, metric]
        assert r["n_systems"] == len(human)
        for method, fn in SCIPY.items():
            assert r[method] == pytest.approx(fn(x, human).statistic, abs=1e-12)
        assert r["pearson_ci_low"] <= r["pearson"] <= r["pearson_ci_high"]
    json.dumps(list(rows.values()), allow_nan=False)


# ---------------------------------------------------------------------------- outliers
def _synthetic_table():
    """Ten systems whose metric tracks HUMAN, plus one planted outlier (a very bad system the
    metric also scores very low, inflating r — the situation Mathur et al. describe)."""
    rng = np.random.default_rng(0)
    human = [*np.round(rng.normal(0.0, 0.1, 10), 3).tolist(), -1.5]
    metric = [30 + 20 * h + float(rng.normal(0, 2)) for h in human[:10]] + [5.0]
    systems = [f"sys{i}" for i in range(10)] + ["planted"]
    return {"xx-yy": {"systems": systems, "scores": {"HUMAN": human, "BLEU": metric}}}


def test_mad_outliers_finds_the_planted_outlier() -> None:
    table = _synthetic_table()
    human = dict(zip(table["xx-yy"]["systems"], table["xx-yy"]["scores"]["HUMAN"], strict=True))
    found = mad_outliers(human)
    assert found["outliers"] == ["planted"]
    v = np.array(list(human.values()))
    med = np.median(v)
    mad = np.median(np.abs(v - med))
    assert found["median"] == pytest.approx(med) and found["mad"] == pytest.approx(mad)
    assert found["robust_z"]["planted"] == pytest.approx((-1.5 - med) / (MAD_SCALE * mad))
    assert all(abs(z) <= 2.5 for s, z in found["robust_z"].items() if s != "planted")


def test_mad_outliers_rule_details() -> None:
    # median 0, MAD 1: the cut-off is |v| > 2.5 * 1.4826 = 3.7065 (strict)
    vals = [-1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 3.7, 3.71]
    found = mad_outliers(vals)
    assert (found["median"], found["mad"]) == (0.0, 1.0)
    assert found["outliers"] == ["8"]
    assert mad_outliers(vals, threshold=2.0)["outliers"] == ["7", "8"]
    flat = mad_outliers([0.1, 0.1, 0.1, 0.5])
    assert flat["outliers"] == [] and flat["reason"] == "mad-zero"


def test_mathur_outliers_on_synthetic_table() -> None:
    table = _synthetic_table()
    (row,) = mathur_outliers(table=table, metrics=("BLEU", "chrF"))
    assert row["outliers"] == ["planted"] and row["n_without"] == 10
    human = table["xx-yy"]["scores"]["HUMAN"]
    metric = table["xx-yy"]["scores"]["BLEU"]
    assert row["pearson_all"] == pytest.approx(sps.pearsonr(metric, human).statistic)
    assert row["pearson_without"] == pytest.approx(sps.pearsonr(metric[:10], human[:10]).statistic)
    assert row["pearson_without"] < row["pearson_all"]  # the outlier inflated r
    json.dumps(row, allow_nan=False)


@pytest.mark.realdata
def test_mathur_outliers_on_wmt19(data_dir, wmt19) -> None:
    rows = mathur_outliers(data_dir)
    assert {r["lp"] for r in rows} == set(wmt19)
    for r in rows:
        entry = wmt19[r["lp"]]
        human = np.array(entry["scores"]["HUMAN"])
        med = np.median(human)
        z = np.abs(human - med) / (1.4826 * np.median(np.abs(human - med)))
        assert r["outliers"] == [s for s, zz in zip(entry["systems"], z, strict=True) if zz > 2.5]
        keep = [i for i, s in enumerate(entry["systems"]) if s not in r["outliers"]]
        x = np.array(entry["scores"][r["metric"]])
        assert r["pearson_without"] == pytest.approx(
            sps.pearsonr(x[keep], human[keep]).statistic, abs=1e-12
        )
    # the paper's rounded constant 1.483 flags the same systems on every pair
    rounded = mathur_outliers(table=wmt19, scale=1.483)
    assert [r["outliers"] for r in rounded] == [r["outliers"] for r in rows]
    json.dumps(rows, allow_nan=False)


@pytest.mark.realdata
def test_wmt21_reference_outside_the_implementations(data_dir) -> None:
    r = wmt21_human_correlations(
        data_dir, "multi-bleu", reference="nltk", bootstrap=NO_INTERVALS, session=Session()
    )
    assert list(r.correlations) == ["multi-bleu"] and r.reference == "nltk"
    (row,) = r.rankings
    assert row["implementation"] == "multi-bleu" and row["reference"] == "nltk"
    assert r.correlations["multi-bleu"]["system"].pearson.ci_low is None


@pytest.mark.realdata
def test_wmt21_markdown_says_which_intervals_are_asymptotic(wmt21) -> None:
    """4,216 rated segments: segment-level τ-b has the asymptotic interval and the caption
    says so; the other intervals are the bootstrap's (the 8 systems, and every Pearson and
    Spearman)."""
    from harness.report.human_tables import human_markdown

    for name, levels in wmt21.correlations.items():
        seg, sys_ = levels["segment"], levels["system"]
        assert seg.kendall.interval == "asymptotic" and seg.kendall.n_boot == 0, name
        assert sys_.kendall.interval == "bootstrap" and sys_.kendall.n_boot == 200, name
        assert seg.pearson.interval == seg.spearman.interval == "bootstrap", name
    first = human_markdown(wmt21).splitlines()[0]
    assert first.endswith(
        "95% CIs: percentile bootstrap (200 resamples, seed 3); segment-level Kendall tau-b: "
        "asymptotic (delta method)"
    )
