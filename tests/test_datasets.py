"""Real-data loaders (``harness.data.datasets``): counts checked against each folder's README.

Tests marked ``realdata`` need ``BLEU_HARNESS_DATA`` (see ``conftest.py``); the others check the
errors for a missing data folder and run everywhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.data import datasets
from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError


def _readme(data_dir: Path, folder: str) -> str:
    return (data_dir / folder / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- missing data
def test_data_dir_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BLEU_HARNESS_DATA", raising=False)
    with pytest.raises(InputError, match="set BLEU_HARNESS_DATA=/path/to/shared/data"):
        datasets.data_dir()


def test_data_dir_env_missing_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    monkeypatch.setenv("BLEU_HARNESS_DATA", str(missing))
    with pytest.raises(InputError) as err:
        datasets.data_dir()
    assert err.value.file == str(missing)
    assert "set BLEU_HARNESS_DATA=/path/to/shared/data" in str(err.value)


def test_data_dir_explicit_path_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BLEU_HARNESS_DATA", str(tmp_path / "nowhere"))
    assert datasets.data_dir(tmp_path) == tmp_path
    assert datasets.data_dir(str(tmp_path)) == tmp_path
    with pytest.raises(InputError, match="fix: set BLEU_HARNESS_DATA"):
        datasets.data_dir(tmp_path / "missing")


@pytest.mark.parametrize(
    "loader",
    [
        datasets.load_wmt21_ende,
        datasets.wmt21_official_scores,
        datasets.wmt21_mqm,
        datasets.load_coco_leave_one_out,
    ],
)
def test_loaders_name_the_missing_folder(tmp_path: Path, loader) -> None:
    with pytest.raises(InputError) as err:
        loader(tmp_path)
    assert err.value.file is not None and err.value.file.startswith(str(tmp_path))


def test_malformed_tsv_names_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / datasets.WMT21_DIR
    folder.mkdir()
    (folder / "segments.tsv").write_text(
        "seg_id\tsrc_en\trefA_de\trefC_de\trefD_de\n1\ta\tb\tc\td\n2\ta\tb\tc\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as err:
        datasets.load_wmt21_ende(tmp_path, systems=["refA"], refs=("C", "D"))
    assert err.value.file == str(folder / "segments.tsv")
    assert err.value.line == 3


def test_wmt21_bad_arguments_need_no_data(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown WMT21"):
        datasets.load_wmt21_ende(tmp_path, systems=["Google"])
    with pytest.raises(ConfigError, match="refA cannot be scored against itself"):
        datasets.load_wmt21_ende(tmp_path, systems=["refA"])
    with pytest.raises(ConfigError):
        datasets.load_wmt21_ende(tmp_path, refs=("B",))
    with pytest.raises(ConfigError):
        datasets.load_wmt21_ende(tmp_path, refs="ACD")
    with pytest.raises(ConfigError):
        datasets.load_wmt21_ende(tmp_path, systems="Facebook-AI")


# ---------------------------------------------------------------------------- WMT21 en-de
@pytest.fixture(scope="module")
def wmt21(data_dir: Path) -> dict[str, Corpus]:
    return datasets.load_wmt21_ende(data_dir)


@pytest.fixture(scope="module")
def wmt21_jsonl(data_dir: Path) -> list[dict]:
    path = data_dir / datasets.WMT21_DIR / "data.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.realdata
def test_wmt21_counts_match_readme(data_dir: Path, wmt21: dict[str, Corpus]) -> None:
    readme = _readme(data_dir, datasets.WMT21_DIR)
    systems_line = re.search(r"^\s*Systems: (.+)\.$", readme, re.MULTILINE)
    assert systems_line is not None
    readme_systems = [s.strip() for s in systems_line.group(1).split(",")]
    n_segments = int(re.search(r"`segments.tsv` — .*\((\d+) rows", readme).group(1))
    assert (len(readme_systems), n_segments) == (20, 1002)
    assert sorted(wmt21) == sorted(readme_systems) == sorted(datasets.WMT21_SYSTEMS)
    for name, corpus in wmt21.items():
        assert len(corpus) == n_segments
        assert corpus.ids == tuple(str(i) for i in range(1, n_segments + 1))
        assert {len(r) for r in corpus.references} == {3}
        assert corpus.name == f"wmt21-en-de/{name}"
        assert corpus.provenance["refs"] == ["refA", "refC", "refD"]
    first = next(iter(wmt21.values()))
    assert all(c.references == first.references for c in wmt21.values())


@pytest.mark.realdata
def test_wmt21_aligned_with_jsonl(wmt21: dict[str, Corpus], wmt21_jsonl: list[dict]) -> None:
    """The TSV-based corpora agree, segment by segment, with the folder's data.jsonl."""
    assert [str(r["seg_id"]) for r in wmt21_jsonl] == list(next(iter(wmt21.values())).ids)
    for i, record in enumerate(wmt21_jsonl):
        refs = (record["refs"]["refA"], record["refs"]["refC"], record["refs"]["refD"])
        for name, corpus in wmt21.items():
            assert corpus.hypotheses[i] == record["hyps"][name]
            assert corpus.references[i] == refs


@pytest.mark.realdata
def test_wmt21_references_as_systems(data_dir: Path, wmt21: dict[str, Corpus]) -> None:
    got = datasets.load_wmt21_ende(data_dir, systems=["refA", "Facebook-AI"], refs=("C", "D"))
    assert list(got) == ["refA", "Facebook-AI"]
    full = wmt21["Facebook-AI"]
    assert got["refA"].hypotheses == tuple(r[0] for r in full.references)
    assert got["refA"].references == tuple(r[1:] for r in full.references)
    assert got["Facebook-AI"].hypotheses == full.hypotheses
    single = datasets.load_wmt21_ende(data_dir, systems=["UEdin"], refs=("A",))
    assert single["UEdin"].max_refs == 1


@pytest.mark.realdata
def test_wmt21_official_scores(data_dir: Path) -> None:
    scores = datasets.wmt21_official_scores(data_dir)
    for system in datasets.WMT21_SYSTEMS:
        assert {"bleu-A", "bleu-C", "bleu-D", "bleu-all", "chrf-all"} <= set(scores[system])
    # README: official bleu-all for Facebook-AI (3 refs) is 61.9962
    assert round(scores["Facebook-AI"]["bleu-all"], 4) == 61.9962
    assert "COMET-ref-A" in scores["NVIDIA-NeMo"] and "Nemo" not in scores
    assert {"COMET-ref-B", "COMET-ref-C", "COMET-ref-D"} == set(scores["refA"])
    raw = datasets.wmt21_official_scores(data_dir, canonical_names=False)
    assert "Nemo" in raw and "ref-A" in raw and "COMET-ref-A" not in raw["NVIDIA-NeMo"]


@pytest.mark.realdata
def test_wmt21_mqm(data_dir: Path, wmt21_jsonl: list[dict]) -> None:
    mqm = datasets.wmt21_mqm(data_dir)
    assert mqm["seg_ids"] == [str(i) for i in range(1, 1003)]
    # README: 8 MT systems + refA, refC, refD; 527 of 1002 segments rated; 17 systems overall
    expected = {
        "Facebook-AI",
        "HuaweiTSC",
        "NVIDIA-NeMo",
        "Online-W",
        "UEdin",
        "VolcTrans-AT",
        "VolcTrans-GLAT",
        "eTranslation",
        "refA",
        "refC",
        "refD",
    }
    assert set(mqm["segment"]) == expected
    assert len(mqm["system"]) == 17
    for system, scores in mqm["segment"].items():
        assert len(scores) == 1002
        assert sum(s is not None for s in scores) == 527
        assert all(s is None or s <= 0 for s in scores)
        for i, record in enumerate(wmt21_jsonl):
            assert scores[i] == record["mqm"][system]
    # README: these means reproduce Google's table (Facebook-AI -1.05, VolcTrans-GLAT -1.04,
    # Nemo -1.34)
    table = mqm["system"]
    assert round(table["Facebook-AI"]["mqm_mean"], 2) == -1.05
    assert round(table["VolcTrans-GLAT"]["mqm_mean"], 2) == -1.04
    assert round(table["NVIDIA-NeMo"]["mqm_mean"], 2) == -1.34
    assert not table["refB"]["text_in_subset"] and table["refA"]["text_in_subset"]


# ---------------------------------------------------------------------------- COCO
@pytest.mark.realdata
def test_coco_leave_one_out(data_dir: Path) -> None:
    readme = _readme(data_dir, datasets.COCO_DIR)
    n_images = int(re.search(r"^# (\d+) COCO val2017 images × (\d+)", readme).group(1))
    n_rows = int(re.search(r"`captions.tsv` — .*\((\d+) rows\)", readme).group(1))
    assert (n_images, n_rows) == (79, 395)
    corpus = datasets.load_coco_leave_one_out(data_dir)
    captions = datasets.coco_captions(data_dir)
    assert len(captions) == n_images
    assert len(corpus) == n_rows == n_images * 5
    assert {len(r) for r in corpus.references} == {4}
    assert len(set(corpus.ids)) == len(corpus)
    for seg_id, hyp, refs in zip(corpus.ids, corpus.hypotheses, corpus.references, strict=True):
        image, k = seg_id.split(":")
        caps = captions[int(image)]
        assert hyp == caps[int(k)]
        assert list(refs) == caps[: int(k)] + caps[int(k) + 1 :]


@pytest.mark.realdata
def test_coco_leave_one_out_reproduces_readme_bleu(data_dir: Path) -> None:
    """README: leave-one-out BLEU-4, lower-cased alphanumeric tokens, sacreBLEU tokenize=none:
    24.551, 20.697, 19.804, 21.189, 15.506 for k = 0..4."""
    sacrebleu = pytest.importorskip("sacrebleu")
    readme = _readme(data_dir, datasets.COCO_DIR)
    printed = [float(x) for x in re.search(r"all k \(([\d., ]+)\)", readme).group(1).split(",")]
    corpus = datasets.load_coco_leave_one_out(data_dir)

    def norm(text: str) -> str:
        return " ".join(re.findall(r"[a-z0-9]+", text.lower()))

    for k, expected in enumerate(printed):
        part = corpus.subset([i for i, x in enumerate(corpus.ids) if x.endswith(f":{k}")])
        streams = [[norm(r) for r in stream] for stream in part.to_streams()]
        hyps = [norm(h) for h in part.hypotheses]
        score = sacrebleu.corpus_bleu(hyps, streams, tokenize="none").score
        assert round(score, 3) == expected
