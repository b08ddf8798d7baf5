"""The shipped fixtures: every file validates, the seed fixtures hold their article's texts and
printed numbers, and malformed files are rejected naming the file.

Expected numbers in this file are only those printed in the seed articles (cited by file name)
or counts read off the fixture texts; no BLEU value is typed in that an article does not print.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from harness.data.corpus import Corpus
from harness.data.fixtures import (
    KINDS,
    Fixture,
    _from_dict,
    _load_path,
    list_fixtures,
    load_all,
    load_fixture,
)
from harness.errors import ConfigError, InputError
from harness.typed_json import to_json

SEED_FILE = re.compile(r"^\d{3}_[0-9a-f]{16}\.txt$")

REQUIRED = {
    "tutorial_cat_on_the_mat",
    "silence_pitfall",
    "east_asian_economy_diverse",
    "east_asian_economy_identical",
    "reference_layout_placeholders",
    "google_unigram_clipping",
    "google_nasa_opportunity",
    "blog_code_examples",
    "blog_image_examples_reconstructed",
    "edge_empty_hypothesis",
    "edge_empty_reference",
    "edge_ragged_references",
    "edge_reference_length_tie",
    "edge_cjk_zh",
    "edge_cjk_ja",
    "edge_cjk_ko",
    "edge_html_entities",
    "edge_case_differences",
    "edge_single_token",
    "edge_identical",
}


# ---------------------------------------------------------------------------- helpers
def split_period(text: str) -> list[str]:
    """Whitespace tokens after separating '.' (the seeds count the period as a token)."""
    return text.replace(".", " .").split()


def ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def clipped(hyp: list[str], refs: list[list[str]], n: int) -> tuple[int, int]:
    """Papineni's clipped n-gram matches and the candidate's n-gram total."""
    cand = ngrams(hyp, n)
    best: Counter[tuple[str, ...]] = Counter()
    for ref in refs:
        best |= ngrams(ref, n)
    return sum(min(c, best[g]) for g, c in cand.items()), sum(cand.values())


# ---------------------------------------------------------------------------- every fixture
def test_list_fixtures_sorted_and_complete() -> None:
    names = list_fixtures()
    assert names == sorted(names)
    assert REQUIRED <= set(names)
    assert [f.name for f in load_all()] == names


@pytest.mark.parametrize("name", list_fixtures())
def test_fixture_loads_and_validates(name: str) -> None:
    fx = load_fixture(name)
    assert isinstance(fx, Fixture)
    assert fx.name == name
    assert fx.description.strip()
    assert fx.provenance["kind"] in KINDS
    sources = fx.provenance["source"]
    sources = [sources] if isinstance(sources, str) else list(sources)
    if fx.provenance["kind"] == "edge-case":
        assert "edge" in fx.tags
        assert fx.claim is None or not fx.claim["printed"]
    else:
        assert "seed" in fx.tags
        assert all(SEED_FILE.match(s) for s in sources), sources
    assert len(fx.references) == len(fx.ids) == len(set(fx.ids))
    assert fx.system_names == tuple(fx.systems)
    for system in fx.system_names:
        corpus = fx.corpus(system)
        assert isinstance(corpus, Corpus)
        assert corpus.name == f"{name}/{system}"
        assert corpus.ids == fx.ids
        assert corpus.references == fx.references
        assert corpus.hypotheses == fx.systems[system]
        assert corpus.provenance["fixture"] == name
        assert corpus.provenance["system"] == system
        assert corpus.provenance["kind"] == fx.provenance["kind"]
    # the dict form validates back to the same fixture
    assert _from_dict(to_json(fx), "roundtrip") == fx
    assert fx.corpora().keys() == set(fx.system_names)


def test_fixture_is_read_only() -> None:
    fx = load_fixture("silence_pitfall")
    with pytest.raises(TypeError):
        fx.systems["C"] = ("x",) * 8  # type: ignore[index]
    with pytest.raises(AttributeError):
        fx.name = "other"  # type: ignore[misc]


def test_unknown_fixture_lists_valid_names() -> None:
    with pytest.raises(ConfigError) as err:
        load_fixture("no_such_fixture")
    assert "no_such_fixture" in str(err.value)
    assert "silence_pitfall" in str(err.value)
    assert err.value.valid == list_fixtures()


def test_unknown_system_lists_valid_names() -> None:
    with pytest.raises(ConfigError) as err:
        load_fixture("silence_pitfall").corpus("C")
    assert err.value.valid == ("A", "B")


def test_readme_and_provenance_document_every_fixture() -> None:
    folder = resources.files("harness.data.fixtures")
    readme = folder.joinpath("README.md").read_text(encoding="utf-8")
    provenance = folder.joinpath("PROVENANCE.md").read_text(encoding="utf-8")
    for key in ("name", "description", "provenance", "claim", "tags", "tokenized", "ids"):
        assert f"`{key}`" in readme
    for name in list_fixtures():
        assert f"`{name}`" in provenance, name
        assert f"`{name}`" in readme, name


# ---------------------------------------------------------------------------- seeds 000 / 002
def test_tutorial_cat_on_the_mat() -> None:
    """000_f06ef87264613ebc.txt and 002_27c90cad815dc7d3.txt: printed BLEU = 0.638."""
    fx = load_fixture("tutorial_cat_on_the_mat")
    assert set(fx.provenance["source"]) == {
        "000_f06ef87264613ebc.txt",
        "002_27c90cad815dc7d3.txt",
    }
    assert fx.tokenized
    assert fx.systems["candidate"] == ("the cat is on the mat",)
    assert fx.references == (("there is a cat on the mat", "the cat sits on the mat"),)
    assert fx.claim is not None
    assert fx.claim["printed"] == {"bleu": 0.638}


# ---------------------------------------------------------------------------- seed 001
def test_silence_pitfall() -> None:
    """001_4d9c0f31bc4f1899.txt: reference 7 words, output 8, r = 56 = c for system B."""
    fx = load_fixture("silence_pitfall")
    printed = fx.claim["printed"]
    assert printed["order"] == "A < B"
    assert fx.ids == tuple(str(i) for i in range(1, 9))
    refs = [r for (r,) in fx.references]
    assert set(refs) == {"The cat is on the mat."}
    assert len(split_period(refs[0])) == printed["reference_words"] == 7
    a, b = fx.systems["A"], fx.systems["B"]
    assert a[:7] == b[:7]
    assert {len(split_period(h)) for h in b[:7]} == {printed["hypothesis_words"]} == {8}
    assert b[7] == ""
    # A's last output differs from the good one in exactly one word: cat -> dog
    diff = [(x, y) for x, y in zip(split_period(a[0]), split_period(a[7]), strict=True) if x != y]
    assert diff == [("cat", "dog")]
    assert sum(len(split_period(r)) for r in refs) == printed["r"] == 56
    assert sum(len(split_period(h)) for h in b) == printed["c_B"] == 56


def test_east_asian_economy() -> None:
    """001_4d9c0f31bc4f1899.txt: BLEU = 1 with diverse references; only 'East' matches with
    identical ones."""
    diverse = load_fixture("east_asian_economy_diverse")
    identical = load_fixture("east_asian_economy_identical")
    hyp = "East Asian economy"
    assert diverse.systems["mt"] == identical.systems["mt"] == (hyp,)
    assert len(diverse.references[0]) == len(identical.references[0]) == 4
    assert len(set(diverse.references[0])) == 4
    assert hyp in diverse.references[0]
    assert diverse.claim["printed"] == {"bleu": 1}
    assert set(identical.references[0]) == {"economy of East Asia"}
    assert list(identical.claim["printed"]["matched_words"]) == ["East"]
    # The article's "only East matches" undercounts: 'economy' is a matching unigram as well;
    # what holds is that no bigram matches (noted in the fixture's provenance).
    ref = identical.references[0][0].split()
    assert set(hyp.split()) & set(ref) == {"East", "economy"}
    assert clipped(hyp.split(), [ref], 2) == (0, 2)


def test_reference_layout_placeholders() -> None:
    """001_4d9c0f31bc4f1899.txt: three segments, two references each, in both layouts."""
    fx = load_fixture("reference_layout_placeholders")
    corpus = fx.corpus("mt")
    streams = corpus.to_streams()
    assert len(streams) == 2 and all(len(s) == 3 for s in streams)
    assert streams[0] == ["文1の正答a", "文2の正答a", "文3の正答a"]
    assert corpus.to_evaluate()[0] == ["文1の正答a", "文1の正答b"]
    back = Corpus.from_streams(hypotheses=corpus.hypotheses, streams=streams)
    assert back.references == corpus.references


# ---------------------------------------------------------------------------- seed 003
def test_google_unigram_clipping() -> None:
    """003_9b9e8f448f39b158.txt: the count table and precision_1 = 0.8."""
    fx = load_fixture("google_unigram_clipping")
    printed = fx.claim["printed"]
    hyp = fx.systems["candidate"][0].split()
    (ref,) = fx.references[0]
    ref_counts, hyp_counts = Counter(ref.split()), Counter(hyp)
    for word, (m_cand, m_ref, m_min) in printed["counts"].items():
        assert (hyp_counts[word], ref_counts[word], min(hyp_counts[word], ref_counts[word])) == (
            m_cand,
            m_ref,
            m_min,
        )
    assert set(printed["counts"]) == set(ref_counts) | set(hyp_counts)
    assert len(hyp) == printed["candidate_unigrams"] == 5
    assert clipped(hyp, [ref.split()], 1) == tuple(printed["precision_1"]) == (4, 5)
    assert printed["p1"] == 4 / 5


def test_google_nasa_opportunity() -> None:
    """003_9b9e8f448f39b158.txt: precisions 8/11 4/10 2/9 0/8 and 9/11 5/10 2/9 1/8, BP 0.83,
    BLEU 0.0 and 0.27."""
    fx = load_fixture("google_nasa_opportunity")
    printed = fx.claim["printed"]
    (ref,) = fx.references[0]
    ref_tokens = split_period(ref)
    assert len(ref_tokens) == 13
    for system in ("candidate_1", "candidate_2"):
        hyp = split_period(fx.systems[system][0])
        assert len(hyp) == printed["hypothesis_tokens"] == 11
        got = [clipped(hyp, [ref_tokens], n) for n in range(1, 5)]
        assert got == [tuple(p) for p in printed["precisions"][system]]
        bp = math.exp(1 - len(ref_tokens) / len(hyp))
        assert round(bp, 2) == printed["bp"][system] == 0.83
        if any(m == 0 for m, _ in got):
            assert printed["bleu"][system] == 0.0
        else:
            bleu = bp * math.exp(sum(math.log(m / t) for m, t in got) / 4)
            assert round(bleu, 2) == printed["bleu"][system] == 0.27


# ---------------------------------------------------------------------------- seed 004
def test_blog_code_examples() -> None:
    """004_ccc28872d55e65c5.txt: the inputs of the code's __main__ block (no output printed)."""
    fx = load_fixture("blog_code_examples")
    assert fx.claim is None
    assert fx.ids == ("v1", "v2")
    assert fx.systems["candidate"] == ("hello this is my code", "how old is the man")
    assert fx.references[0] == ("hello this code is not mine",)
    assert len(fx.references[1]) == 4
    assert fx.corpus("candidate").is_ragged


def test_blog_image_examples_reconstructed() -> None:
    """004_ccc28872d55e65c5.txt prints P = 7/7 = 1, Pavg = 1, and 0.082 with the longest
    reference (7 words); the sentences are reconstructed, so only consistency is checked."""
    fx = load_fixture("blog_image_examples_reconstructed")
    assert fx.provenance["kind"] == "reconstructed"
    assert "reconstructed" in fx.tags
    printed = fx.claim["printed"]
    hyp1 = fx.systems["candidate"][0].split()
    refs1 = [r.split() for r in fx.references[0]]
    unclipped = sum(1 for t in hyp1 if any(t in r for r in refs1))
    assert (unclipped, len(hyp1)) == tuple(printed["example1"]["precision"]) == (7, 7)
    short = fx.systems["candidate"][1].split()
    refs2 = [r.split() for r in fx.references[1]]
    longest = max(len(r) for r in refs2)
    assert longest == printed["shortsentence"]["reference_length"] == 7
    for n in range(1, len(short) + 1):
        m, t = clipped(short, refs2, n)
        assert m == t > 0  # every n-gram matches: Pavg = 1
    assert printed["shortsentence"]["p_avg"] == 1
    bp = math.exp(1 - longest / len(short))
    assert round(bp, 3) == printed["shortsentence"]["p_avg_with_bp"] == 0.082


# ---------------------------------------------------------------------------- edge cases
def test_edge_empty_hypothesis_and_reference() -> None:
    hyp = load_fixture("edge_empty_hypothesis")
    assert hyp.systems["all_empty"] == ("",) * len(hyp.ids)
    assert hyp.systems["one_empty"].count("") == 1
    assert "" not in hyp.systems["none_empty"]
    ref = load_fixture("edge_empty_reference")
    assert ref.references[0] == ("",)
    assert "" in ref.references[1] and len(ref.references[1]) == 2


def test_edge_ragged_references() -> None:
    fx = load_fixture("edge_ragged_references")
    assert {len(r) for r in fx.references} == {1, 2, 3}
    corpus = fx.corpus("system")
    assert corpus.is_ragged and corpus.max_refs == 3
    back = Corpus.from_streams(hypotheses=corpus.hypotheses, streams=corpus.to_streams())
    assert back.references == corpus.references


def test_edge_reference_length_tie() -> None:
    fx = load_fixture("edge_reference_length_tie")
    hyps = fx.systems["system"]
    orders = []
    for hyp, refs in zip(hyps[:3], fx.references[:3], strict=True):
        c = len(hyp.split())
        lens = [len(r.split()) for r in refs]
        assert sorted(lens) == [c - 1, c + 1]  # equally close, one shorter, one longer
        orders.append(lens[0] > lens[1])
    assert set(orders) == {True, False}  # both orders occur
    c4, lens4 = len(hyps[3].split()), [len(r.split()) for r in fx.references[3]]
    closest = min(lens4, key=lambda r: abs(r - c4))
    assert closest != min(lens4)


@pytest.mark.parametrize("name", ["edge_cjk_zh", "edge_cjk_ja"])
def test_edge_cjk_unsegmented(name: str) -> None:
    fx = load_fixture(name)
    assert "cjk" in fx.tags and not fx.tokenized
    texts = [t for seg in fx.references for t in seg] + [h for s in fx.systems.values() for h in s]
    assert all(" " not in t for t in texts)
    assert all(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", t) for t in texts)


def test_edge_cjk_ko() -> None:
    fx = load_fixture("edge_cjk_ko")
    texts = [t for seg in fx.references for t in seg] + list(fx.systems["system"])
    assert all(re.search(r"[\uac00-\ud7a3]", t) for t in texts)


def test_edge_html_entities() -> None:
    fx = load_fixture("edge_html_entities")
    escaped = " ".join(fx.systems["escaped"])
    assert "&quot;" in escaped and "&amp;" in escaped and "<skipped>" in fx.systems["escaped"]
    refs = " ".join(r for seg in fx.references for r in seg)
    assert '"' in refs and "&" in refs and "&amp;" not in refs


def test_edge_case_differences() -> None:
    fx = load_fixture("edge_case_differences")
    refs = [r for (r,) in fx.references]
    for hyps in fx.systems.values():
        assert [h.lower() for h in hyps] == [r.lower() for r in refs]
        assert list(hyps) != refs


def test_edge_single_token_and_identical() -> None:
    single = load_fixture("edge_single_token")
    assert all(len(h.split()) == 1 for s in single.systems.values() for h in s)
    assert single.references == (("yes",),)
    ident = load_fixture("edge_identical")
    for hyp, refs in zip(ident.systems["identical"], ident.references, strict=True):
        assert hyp in refs and len(split_period(hyp)) >= 4


# ---------------------------------------------------------------------------- bad files
def _valid() -> dict:
    return to_json(load_fixture("edge_ragged_references"))


def _mutate(change):
    def build() -> dict:
        data = copy.deepcopy(_valid())
        change(data)
        return data

    return build


BAD = {
    "missing_key": _mutate(lambda d: d.pop("systems")),
    "unknown_key": _mutate(lambda d: d.update(extra=1)),
    "short_system": _mutate(lambda d: d["systems"]["system"].pop()),
    "duplicate_ids": _mutate(lambda d: d["ids"].__setitem__(1, "1")),
    "references_count": _mutate(lambda d: d["references"].pop()),
    "segment_without_reference": _mutate(lambda d: d["references"].__setitem__(0, [])),
    "flat_references": _mutate(lambda d: d["references"].__setitem__(0, "a string")),
    "reference_not_string": _mutate(lambda d: d["references"][0].append(3)),
    "bad_kind": _mutate(lambda d: d["provenance"].update(kind="blog")),
    "provenance_missing_source": _mutate(lambda d: d["provenance"].pop("source")),
    "claim_shape": _mutate(lambda d: d.update(claim={"text": "x"})),
    "tokenized_not_bool": _mutate(lambda d: d.update(tokenized="yes")),
    "no_systems": _mutate(lambda d: d.update(systems={})),
    "name_mismatch": _mutate(lambda d: d.update(name="another_name")),
    "edge_without_tag": _mutate(lambda d: d.update(tags=["ragged"])),
    "not_an_object": lambda: [1, 2, 3],
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_fixture_file_names_the_file(tmp_path: Path, case: str) -> None:
    path = tmp_path / "edge_ragged_references.json"
    path.write_text(json.dumps(BAD[case](), ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as err:
        _load_path(path)
    assert err.value.file == str(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("case", "raw"),
    [
        ("invalid_json", b'{"name": "x",\n  "description": }'),
        ("not_utf8", b'{"name": "\xff"}'),
        ("bom", b'\xef\xbb\xbf{"name": "x"}'),
        ("empty", b""),
    ],
)
def test_unreadable_fixture_file_names_the_file(tmp_path: Path, case: str, raw: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(InputError) as err:
        _load_path(path)
    assert err.value.file == str(path)
    if case == "invalid_json":
        assert err.value.line == 2


def test_duplicate_system_name_is_an_error(tmp_path: Path) -> None:
    text = json.dumps(_valid(), ensure_ascii=False)
    systems = '"systems": {"system": ["a", "b", "c", "d"], "system": ["a", "b", "c", "d"]}'
    text = re.sub(r'"systems": \{.*\}\}$', systems + "}", text)
    path = tmp_path / "edge_ragged_references.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="duplicate key 'system'"):
        _load_path(path)


def test_missing_fixture_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(InputError) as err:
        _load_path(path)
    assert err.value.file == str(path)


def test_valid_file_loads_from_path(tmp_path: Path) -> None:
    path = tmp_path / "edge_ragged_references.json"
    path.write_text(json.dumps(_valid(), ensure_ascii=False), encoding="utf-8")
    assert _load_path(path) == load_fixture("edge_ragged_references")
