"""Forensics (issue 12, part 2): identify explains a number by preprocessing mistakes; `check`.

Every number identify is asked about is computed here by the harness with the mistake
injected (never typed). The public cases are modelled on the ``forensic_preprocessing``
fixture (generated sentences; see its provenance); the seeded evaluation injects each kind of
mistake into generated text (``benchmarks/corpus_gen.py``) and into WMT21 en→de windows.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.cli.app import main
from harness.data.corpus import Corpus
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.data.fixtures import load_fixture
from harness.diagnose.candidates import Candidate, rank
from harness.diagnose.check import Location, check_files, check_texts
from harness.diagnose.identify import identify
from harness.diagnose.preprocess import (
    MISTAKES,
    VARIANTS,
    _swapped,
    detokenize,
    merge_bpe,
    mistake_of,
    moses_like_tokenize,
    readings,
    split_compounds,
    unsplit_compounds,
)
from harness.diagnose.search import misused_corpora
from harness.diagnose.seeded import KINDS, inject_bpe, named_first, seeded_case
from harness.report.check_words import effect, message
from harness.session import Session
from harness.typed_json import to_json

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from corpus_gen import generate

from .depth import cases
from .published import unavailable

FX = load_fixture("forensic_preprocessing")
CLEAN = FX.corpus("clean")
SACRE = PROFILES["sacrebleu"]


def _printed(corpus: Corpus, cfg: object) -> str:
    return f"{engine.corpus_score(corpus, cfg).score:.4f}"  # type: ignore[arg-type]


def _on_both(corpus: Corpus, f: object) -> Corpus:
    g = f  # type: ignore[assignment]
    return Corpus(
        tuple(g(h) for h in corpus.hypotheses),  # type: ignore[operator]
        tuple(tuple(g(r) for r in seg) for seg in corpus.references),  # type: ignore[operator]
    )


# ---------------------------------------------------------------------- transformations
def test_transformations_undo_each_other():
    rng = random.Random(1)
    for h in CLEAN.hypotheses:
        assert merge_bpe(inject_bpe(h, rng, share=1.0)) == h
        assert unsplit_compounds(split_compounds(h)) == h
        if '"' not in h:  # Moses quotes are not restored exactly (13a splits them anyway)
            assert detokenize(moses_like_tokenize(h)) == h
    assert (
        split_compounds("a well-known e-mail") == "a well ##AT##-##AT## known e ##AT##-##AT## mail"
    )


def test_readings_follow_the_markers():
    labels = [r[0] for r in readings(CLEAN)]
    assert labels[0] == ()  # clean files: nothing assumed
    assert ("compound-split",) in labels and ("lowercased-refs",) in labels
    assert ("single-reference:1",) in labels and ("single-reference:2",) in labels
    bpe = [r[0] for r in readings(FX.corpus("bpe_left_in"))]
    assert bpe[0] == ("bpe-left-in",) and () in bpe  # as given = BPE left in; merged = clean
    tok = [r[0] for r in readings(FX.corpus("moses_tokenized"))]
    assert tok[0] == ("pre-tokenized",) and () in tok
    assert ("pre-tokenized",) not in [r[0] for r in readings(FX.corpus("moses_tokenized"))[1:]]
    for found in (*labels, *bpe, *tok):
        for label in found:
            assert mistake_of(label).name in MISTAKES
    assert {v.mistake for v in VARIANTS} <= set(MISTAKES)


def test_a_single_reference_lowercase_corpus_has_only_the_swap():
    c = Corpus(("a cat sat",), (("the cat sat",),))
    assert [r[0] for r in readings(c)] == [(), ("swapped-files",)]
    swapped = readings(c)[1][1]
    assert (swapped.hypotheses, swapped.references) == (("the cat sat",), (("a cat sat",),))


def test_rank_orders_steps_then_config_changes():
    def cand(changes: tuple[str, ...], pre: tuple[str, ...], d: float = 0.0) -> Candidate:
        return Candidate(
            SACRE, "per-segment", "sacrebleu", changes, 1.0, "0-100", "none", 1.0, d, {}, pre
        )

    exact = cand((), ())
    text = cand((), ("bpe-left-in",))
    factor = cand(("smoothing",), ())
    two = cand(("smoothing", "order"), ())
    both = cand(("smoothing",), ("bpe-left-in",))
    far = cand((), (), d=0.01)
    text2 = cand((), ("bpe-left-in", "lowercased-refs"))
    ordered = [exact, text, factor, text2, both, two, far]
    assert sorted(reversed(ordered), key=rank) == ordered


# ---------------------------------------------------------------------- public cases
def _top(score: str, corpus: Corpus):
    found = identify(score, corpus, session=Session())
    assert found, score
    return found[0]


def test_fairseq_637_bpe_left_in():
    files = FX.corpus("bpe_left_in")
    top = _top(_printed(files, SACRE), files)
    assert top.preprocessing == ("bpe-left-in",) and top.profile == "sacrebleu"
    assert top.changes == ()
    # the number computed properly (merged) is recognised as such from the same files
    top = _top(_printed(CLEAN, SACRE), files)
    assert top.preprocessing == () and top.covers(SACRE)


def test_nemo_5540_tokenized_hypotheses():
    files = FX.corpus("moses_tokenized")
    top = _top(_printed(files, SACRE), files)
    assert top.preprocessing == ("pre-tokenized",) and top.covers(
        SACRE, preprocessing=top.preprocessing
    )
    top = _top(_printed(CLEAN, SACRE), files)  # what the detokenized output scores
    assert top.preprocessing == ()


def test_t2t_317_compound_splitting():
    split = _on_both(CLEAN, split_compounds)
    top = _top(_printed(split, PROFILES["multi-bleu"]), CLEAN)
    assert top.preprocessing == ("compound-split",)


def test_t2t_317_another_reference():
    one = Corpus(CLEAN.hypotheses, tuple((seg[1],) for seg in CLEAN.references))
    top = _top(_printed(one, SACRE), CLEAN)
    assert top.preprocessing == ("single-reference:2",)


def test_skills_1408_sentence_mean_reported_as_corpus():
    top = _top(_printed(CLEAN, SACRE.replace(aggregation="sentence-mean")), CLEAN)
    assert top.preprocessing == () and top.config.aggregation == "sentence-mean"


def test_codebert_180_same_file_two_numbers():
    """15.9 vs 2.3 on one file: one script scored characters. Both numbers are explained."""
    nltk = PROFILES["nltk"]
    chars = _top(_printed(CLEAN, nltk.replace(tokenize="char")), CLEAN)
    words = _top(_printed(CLEAN, nltk), CLEAN)
    assert chars.config.tokenize == "char" and chars.preprocessing == ()
    assert words.covers(nltk) or words.config.tokenize in ("none", "whitespace")
    assert chars.raw > words.raw


def test_forensic_candidates_reproduce_their_raw_score():
    files = FX.corpus("bpe_left_in")
    by_labels = {labels: c for labels, c in readings(files)}
    found = identify(_printed(CLEAN, SACRE), files, session=Session(), tolerance=100)
    assert any(c.preprocessing for c in found)
    for c in found[:60]:
        target = by_labels[c.preprocessing]
        if c.layout != "per-segment":
            target = misused_corpora(target)[c.layout]
        score = engine.corpus_score(target, c.config).score
        assert (score / 100 if c.scale == "0-1" else score) == pytest.approx(c.raw, abs=1e-9)
        json.dumps(to_json(c))
        assert ("preprocessing" in to_json(c)) == bool(c.preprocessing)


# ---------------------------------------------------------------------- seeded evaluation
def _generated(n: int) -> list[Corpus]:
    out = []
    for seed in range(n):
        h, r = generate(100, 3, seed=seed)
        out.append(Corpus(tuple(h), tuple(tuple(x) for x in r), check_text=False))
    return out


def _wmt21(n: int, segments: int = 200) -> list[Corpus]:
    if not os.environ.get("BLEU_HARNESS_DATA"):
        unavailable("WMT21 en-de seeded cases", "BLEU_HARNESS_DATA is not set")
    systems = load_wmt21_ende(systems=WMT21_SYSTEMS[:n])
    rng = random.Random(12)
    out = []
    for c in systems.values():
        start = rng.randrange(len(c) - segments)
        out.append(c.subset(range(start, start + segments)))
    return out


@pytest.mark.parametrize("source", ["generated", "wmt21"])
def test_seeded_mistakes_are_named_first(source):
    corpora = _generated(cases(5)) if source == "generated" else _wmt21(cases(3))
    for kind in KINDS:
        hits = 0
        for i, c in enumerate(corpora):
            case = seeded_case(kind, c, seed=i)
            found = identify(case.score, case.files, session=Session())
            hits += bool(found) and named_first(kind, found[0])
        assert hits >= 0.9 * len(corpora), (source, kind, hits)


def test_named_first_can_fail():
    case = seeded_case("lowercased-refs", CLEAN, seed=0)
    top = identify(_printed(CLEAN, SACRE), CLEAN, session=Session())[0]  # the correct number
    assert not named_first(case.kind, top)
    assert not named_first("scale", top) and not named_first("sentence-mean", top)


# ---------------------------------------------------------------------- check
def _write(tmp: Path, name: str, lines: list[str]) -> str:
    p = tmp / name
    p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(p)


def test_check_reports_each_problem_with_lines(tmp_path):
    hyp = _write(tmp_path, "hyp", list(FX.systems["bpe_left_in"]))
    ref1 = _write(tmp_path, "ref1", [r[0].lower() for r in FX.references])
    ref2 = _write(tmp_path, "ref2", [r[0].lower() for r in FX.references])
    report = check_files(hyp, [ref1, ref2])
    codes = {f.code for f in report.findings}
    assert {"bpe-markers", "case-mismatch", "identical-references"} <= codes
    bpe = next(f for f in report.findings if f.code == "bpe-markers")
    first = next(i for i, h in enumerate(FX.systems["bpe_left_in"]) if "@@ " in h)
    assert bpe.examples[0] == Location(hyp, first + 1)
    assert report.exit_code == 1
    tok = _write(tmp_path, "tok", list(FX.systems["moses_tokenized"]))
    assert "tokenized" in {f.code for f in check_files(tok, [ref1]).findings}
    clean = _write(tmp_path, "clean", list(FX.systems["clean"]))
    refs = [_write(tmp_path, f"r{k}", [r[k] for r in FX.references]) for k in (0, 1)]
    assert check_files(clean, refs).findings == ()
    assert check_files(clean, refs).exit_code == 0


def test_check_command_exit_codes_and_json(tmp_path, capsys):
    clean = _write(tmp_path, "clean", list(FX.systems["clean"]))
    ref = _write(tmp_path, "ref", [r[0] for r in FX.references])
    assert main(["check", clean, ref]) == 0
    assert "no preprocessing problems" in capsys.readouterr().out
    hyp = _write(tmp_path, "hyp", list(FX.systems["moses_tokenized"]))
    assert main(["check", "--json", hyp, ref]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["exit_code"] == 1 and out["findings"][0]["examples"][0]["line"] == 1
    short = _write(tmp_path, "short", ["a"])
    assert main(["check", clean, short]) == 2
    assert "line-count" not in capsys.readouterr().out  # text output: the message
    bad = tmp_path / "bad"
    bad.write_bytes(b"ok\n\xff\n")
    assert main(["check", "--json", str(bad), ref]) == 2
    err = json.loads(capsys.readouterr().out)["findings"][0]
    assert err["code"] == "unreadable" and "line 2" in err["message"]


@pytest.mark.parametrize(
    ("hyp_name", "ref_name", "flagged"),
    [
        ("ref.txt", "sys.txt", 2),  # both named the other way round
        ("newstest2021.en-de.refA.de", "Facebook-AI.de", 1),  # a reference in the hyp slot
        ("clean.de", "hyp.out", 1),  # a system output in the reference slot
        ("sys.de", "ref.de", 0),
        ("Facebook-AI.de", "newstest2021.de", 0),  # names that say nothing
        ("output-vs-ref.txt", "ref.txt", 0),  # a name that says both
    ],
)
def test_check_names_files_passed_the_other_way_round(tmp_path, hyp_name, ref_name, flagged):
    """The text alone does not tell a human translation from a strong system's: file names
    that say "reference" in the hypothesis slot (or "output" in a reference slot) do, and the
    finding measures sacreBLEU with the two files exchanged."""
    hyp = _write(tmp_path, hyp_name, list(FX.systems["clean"]))
    ref = _write(tmp_path, ref_name, [r[0] for r in FX.references])
    found = [f for f in check_files(hyp, [ref]).findings if f.code == "swapped-files"]
    assert len(found) == (1 if flagged else 0)
    if flagged:
        corpus = Corpus(tuple(FX.systems["clean"]), tuple((r[0],) for r in FX.references))
        before = engine.corpus_score(corpus, PROFILES["sacrebleu"]).score
        after = engine.corpus_score(_swapped(corpus), PROFILES["sacrebleu"]).score
        assert found[0].count == flagged
        assert f"sacreBLEU is {before:.2f} as they are and {after:.2f} with the two" in (
            effect(found[0])
        )


def test_check_notices_a_hypothesis_file_that_is_a_reference(tmp_path):
    refs = [r[0] for r in FX.references]
    hyp = _write(tmp_path, "a.txt", [r.upper() if i == 0 else r for i, r in enumerate(refs)])
    ref = _write(tmp_path, "b.txt", refs)
    (finding,) = [
        f for f in check_files(hyp, [ref]).findings if f.code == "hypothesis-is-reference"
    ]
    n = len(refs)
    assert message(finding).endswith(
        f"on {n} of {n} lines ({n - 1} exactly, the rest but for case and spaces)"
    )
    clean = _write(tmp_path, "c.txt", list(FX.systems["clean"]))
    assert "hypothesis-is-reference" not in {f.code for f in check_files(clean, [ref]).findings}


def test_identify_command_shows_preprocessing(tmp_path, capsys):
    hyp = _write(tmp_path, "hyp", list(FX.systems["bpe_left_in"]))
    refs = [_write(tmp_path, f"r{k}", [r[k] for r in FX.references]) for k in (0, 1)]
    score = _printed(FX.corpus("bpe_left_in"), SACRE)
    assert main(["identify", "--score", score, "--top", "1", hyp, *refs]) == 0
    assert "sacrebleu on text with bpe-left-in" in capsys.readouterr().out
    assert main(["identify", "--json", "--score", score, "--top", "1", hyp, *refs]) == 0
    assert json.loads(capsys.readouterr().out)["matches"][0]["preprocessing"] == ["bpe-left-in"]


def test_check_texts_markers_and_spm_reading():
    hyp = ("h", ["\u2581The \u2581cat \u2581s at", "a well ##AT##-##AT## known cat"])
    ref = ("r", ["The cat sat", "a well-known cat"])
    codes = {f.code: f for f in check_texts(hyp, [ref])}
    assert codes["spm-markers"].examples == (Location("h", 1),)
    assert codes["compound-split"].examples == (Location("h", 2),)
    c = Corpus(tuple(hyp[1]), tuple((r,) for r in ref[1]))
    labels = dict(readings(c))
    assert ("spm-left-in", "compound-split") in labels
    assert labels[("compound-split",)].hypotheses[0] == "The cat sat"  # pieces decoded
    assert labels[("spm-left-in",)].hypotheses[1] == "a well-known cat"  # compounds joined
