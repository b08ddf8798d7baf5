"""``identify`` from a whole printed result: every form read, every printed number used.

Every printed line here is printed by the real tool (sacrebleu's command line, its JSON,
multi-bleu.perl) on WMT21 systems, or built from a real ``BLEUScore``; nothing is typed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu

from harness.data.corpus import Corpus
from harness.data.datasets import load_wmt21_ende
from harness.data.fixtures import load_fixture
from harness.diagnose.identify import identify, nearest, simplest, unmatched
from harness.diagnose.lengths import length_clue
from harness.diagnose.preprocess import moses_like_tokenize
from harness.errors import ConfigError
from harness.report.identify_words import chance_sentence, length_clue_sentence
from harness.scorers.printed import decode_signature, read_printed
from harness.session import Session
from harness.typed_json import to_json

from .published import unavailable

SYSTEMS = ("Facebook-AI", "VolcTrans-GLAT")


@pytest.fixture(scope="module")
def wmt21(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each system's hypotheses and reference A as files, one segment a line."""
    folder = tmp_path_factory.mktemp("printed")
    out: dict[str, Path] = {}
    for name, corpus in load_wmt21_ende(data_dir, systems=SYSTEMS, refs=("A",)).items():
        (folder / f"{name}.txt").write_text("".join(f"{h}\n" for h in corpus.hypotheses))
        out[name] = folder / f"{name}.txt"
    (folder / "ref.txt").write_text("".join(f"{r[0]}\n" for r in corpus.references))
    out["ref"] = folder / "ref.txt"
    return out


def _corpus(files: dict[str, Path], system: str, *, lowercase_hyp: bool = False) -> Corpus:
    hyps = files[system].read_text().splitlines()
    refs = files["ref"].read_text().splitlines()
    if lowercase_hyp:
        hyps = [h.lower() for h in hyps]
    return Corpus(hypotheses=tuple(hyps), references=tuple((r,) for r in refs), name=system)


def _sacrebleu_cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_sacrebleu_line_is_read_number_by_number(wmt21: dict[str, Path]) -> None:
    printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(wmt21["Facebook-AI"]), "-f", "text")
    line = read_printed(printed)
    score = sacrebleu.corpus_bleu(
        wmt21["Facebook-AI"].read_text().splitlines(), [wmt21["ref"].read_text().splitlines()]
    )
    assert line.form == "sacrebleu"
    assert float(line.score) == round(score.score, 1)
    assert [float(p) for p in line.precisions] == [round(p, 1) for p in score.precisions]
    assert int(line.hyp_len) == score.sys_len and int(line.ref_len) == score.ref_len
    assert line.settings == {
        "lowercase": False,
        "tokenize": "13a",
        "smooth": "exp",
        "effective_order": False,
    }
    assert line.nrefs == 1


def test_sacrebleu_json_and_the_line_read_alike(wmt21: dict[str, Path]) -> None:
    args = (str(wmt21["ref"]), "-i", str(wmt21["Facebook-AI"]))
    text = read_printed(_sacrebleu_cli(*args, "-f", "text"))
    as_json = _sacrebleu_cli(*args)
    got = read_printed(as_json)
    assert got.form == "sacrebleu JSON"
    assert got.score == str(json.loads(as_json)["score"])
    assert (got.precisions, got.bp, got.ratio, got.hyp_len, got.ref_len) == (
        text.precisions,
        text.bp,
        text.ratio,
        text.hyp_len,
        text.ref_len,
    )
    assert got.settings == text.settings


def test_a_dict_of_evaluates_keys_is_read_on_0_1() -> None:
    printed = repr(
        {
            "bleu": 0.2620312,
            "precisions": [0.5, 0.25],
            "brevity_penalty": 1.0,
            "length_ratio": 1.02,
            "translation_length": 100,
            "reference_length": 98,
        }
    )
    line = read_printed(printed)
    assert (line.form, line.scale, line.precision_scale) == ("dict", "0-1", "0-1")
    assert line.precisions == ("0.5", "0.25") and line.ref_len == "98"


@pytest.mark.parametrize(
    ("text", "form", "scale"),
    [
        ("27", "number", None),
        ('  NIST score = 7.1000  BLEU score = 0.2620 for system "x"', "mteval-v13a", "0-1"),
        ("tensor(0.2620)", "torchmetrics", "0-1"),
    ],
)
def test_short_forms(text: str, form: str, scale: str | None) -> None:
    line = read_printed(text)
    assert (line.form, line.scale) == (form, scale)


@pytest.mark.parametrize("text", ["BLEU", "the score was good"])
def test_what_is_not_a_printed_result_is_refused_with_the_forms(text: str) -> None:
    with pytest.raises(ConfigError, match="not a number, nor sacrebleu's line"):
        read_printed(text)


@pytest.mark.parametrize("text", ["nan", "-inf"])
def test_a_non_finite_number_is_refused_as_such(text: str) -> None:
    with pytest.raises(ConfigError, match="not a finite number"):
        read_printed(text)


def test_old_and_new_signatures_pin_the_same_settings() -> None:
    new, n_new = decode_signature("nrefs:1|case:lc|eff:yes|tok:intl|smooth:floor|version:2.4.0")
    old, n_old = decode_signature("case.lc+numrefs.1+smooth.floor+tok.intl+version.1.4.14")
    assert new == {**old, "effective_order": True}
    assert n_new == n_old == 1
    with pytest.raises(ConfigError, match="tok:spm"):
        decode_signature("nrefs:1|case:mixed|eff:no|tok:spm|smooth:exp|version:2.4.0")


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize(
    ("cli", "reading"),
    [
        ((), "sacrebleu"),
        (("-tok", "intl", "-lc"), "sacrebleu + tokenize=intl, lowercase=true"),
        (("-s", "floor"), "sacrebleu + smooth=floor"),
    ],
)
def test_a_sacrebleu_line_names_its_configuration_alone(
    wmt21: dict[str, Path], system: str, cli: tuple[str, ...], reading: str
) -> None:
    """With every number of the line, the configuration that printed it comes first, and far
    fewer readings are left than the score alone leaves."""
    printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(wmt21[system]), *cli, "-f", "text")
    corpus = _corpus(wmt21, system)
    session = Session()
    found = identify(printed, corpus, session=session)
    assert found[0].reading == reading
    by_score = identify(read_printed(printed).score, corpus, session=session)
    assert len(by_score) >= 2 * len(found)


def test_a_mistake_made_before_sacrebleu_is_named_from_the_line(wmt21: dict[str, Path]) -> None:
    """References lowercased (sacrebleu -lc on lowercased hypotheses is what a user who
    lowercased only one side would have run without -lc): the reading that reproduces every
    number says so, and the plain sacrebleu reading is ruled out by what it misses."""
    system = "Facebook-AI"
    lowered = wmt21["ref"].parent / "lowered.txt"
    lowered.write_text(wmt21[system].read_text().lower())
    printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(lowered), "-f", "text")
    corpus = _corpus(wmt21, system)
    session = Session()
    found = identify(printed, corpus, session=session)
    plain = _corpus(wmt21, system, lowercase_hyp=True)
    assert identify(printed, plain, session=session)[0].reading == "sacrebleu"
    for c in found:
        assert c.config.tokenize == "13a" and not c.config.lowercase  # the signature pins them
    line = read_printed(printed)
    best = identify(line.score, corpus, session=session)
    ruled_out = [c for c in best if c.reading == "sacrebleu"]
    assert all(unmatched(line, c, corpus, session) for c in ruled_out)


def test_a_multi_bleu_line_names_multi_bleu(wmt21: dict[str, Path], moses_scripts: Path) -> None:
    system = "VolcTrans-GLAT"
    done = subprocess.run(
        ["perl", str(moses_scripts / "multi-bleu.perl"), str(wmt21["ref"])],
        stdin=wmt21[system].open(),
        capture_output=True,
        text=True,
        check=True,
    )
    line = read_printed(done.stdout)
    assert line.form == "multi-bleu.perl"
    found = identify(line, _corpus(wmt21, system), session=Session())
    assert found[0].reading == "multi-bleu"
    assert found[0].changes == ()


def test_a_changed_length_matches_nothing(wmt21: dict[str, Path]) -> None:
    """Every printed number must be reproduced: the same line with another ref_len (another
    test set's) is reproduced by no reading, and the nearest say what they miss."""
    printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(wmt21["Facebook-AI"]), "-f", "text")
    line = read_printed(printed)
    other = printed.replace(f"ref_len = {line.ref_len}", f"ref_len = {int(line.ref_len) + 40}")
    corpus = _corpus(wmt21, "Facebook-AI")
    session = Session()
    assert identify(other, corpus, session=session) == []
    first = identify(line.score, corpus, session=session)[0]
    assert any(
        m.startswith("ref_len ") for m in unmatched(read_printed(other), first, corpus, session)
    )


def _fixture_line() -> str:
    """The line the real sacrebleu prints for a fixture's corpus (with its signature)."""
    corpus = load_fixture("tutorial_cat_on_the_mat").corpus(
        load_fixture("tutorial_cat_on_the_mat").system_names[0]
    )
    hyps = list(corpus.hypotheses)
    streams = [list(s) for s in zip(*corpus.references, strict=True)]
    bleu = sacrebleu.metrics.BLEU()
    score = bleu.corpus_score(hyps, streams)
    return score.format(signature=str(bleu.get_signature()))


def test_the_command_says_what_it_read_and_uses_it(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    printed = _fixture_line()
    args = ["identify", "--fixture", "tutorial_cat_on_the_mat", "--score", printed]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Read as sacrebleu output: score ")
    assert "and every printed number" in out
    assert "\n1. sacrebleu\n" in out


def test_json_gives_every_match_and_what_was_read(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    printed = _fixture_line()
    score = read_printed(printed).score
    args = ["identify", "--fixture", "tutorial_cat_on_the_mat", "--json", "--top", "1"]
    assert main([*args, "--score", score]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_matches"] > 1 and len(d["matches"]) == d["n_matches"]
    assert d["read"] == {"form": "number", "score": score, "scale": None}
    assert main([*args, "--score", printed]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["read"]["form"] == "sacrebleu" and d["read"]["settings"]["tokenize"] == "13a"
    assert d["matches"][0]["profile"] == "sacrebleu"


def test_an_unreadable_result_is_a_usage_error_naming_the_forms(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from harness.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["identify", "--fixture", "tutorial_cat_on_the_mat", "--score", "BLEU ok"])
    assert stop.value.code == 2
    assert "multi-bleu.perl's line" in capsys.readouterr().err


def test_the_dict_evaluate_prints_names_evaluate(evaluate_module: Path) -> None:
    """What ``evaluate.load(<the Hub bleu module>).compute(...)`` returns, printed as Python
    prints it: its floats are reprs, each matched to 1e-9 of itself, and the evaluate
    profile comes first."""
    import evaluate

    fixture = load_fixture("tutorial_cat_on_the_mat")
    corpus = fixture.corpus(fixture.system_names[0])
    metric = evaluate.load(str(evaluate_module / "bleu.py"))
    printed = repr(
        metric.compute(
            predictions=list(corpus.hypotheses), references=[list(r) for r in corpus.references]
        )
    )
    line = read_printed(printed)
    assert (line.form, line.scale) == ("dict", "0-1")
    found = identify(printed, corpus, session=Session())
    assert found[0].reading == "evaluate"


def test_the_simplest_reading_is_the_nearest_of_one_step_or_less() -> None:
    fixture = load_fixture("google_nasa_opportunity")
    corpus = fixture.corpus("candidate_2")
    session = Session()
    best = simplest("0.3", corpus, session=session)
    assert best is not None
    every = nearest("0.3", corpus, session=session, count=100_000)
    one_step = [c for c in every if c.steps <= 1]
    assert best.distance == pytest.approx(min(c.distance for c in one_step), abs=1e-12)
    assert best.steps <= 1


def test_coincidences_come_with_the_simplest_reading_near_the_score(
    wmt21: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A score no tool printed on this system (a seeded random number, 5.4): as many readings
    match as chance gives; the answer says so, and names the simplest reading near the score
    when it is not among those shown."""
    from harness.cli import main

    args = ["identify", str(wmt21["Facebook-AI"]), str(wmt21["ref"]), "--score", "5.4"]
    assert main([*args, "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "no more than chance gives" in out
    corpus = _corpus(wmt21, "Facebook-AI")
    session = Session()
    best = simplest("5.4", corpus, session=session)
    shown = identify("5.4", corpus, session=session)[:2]
    assert best is not None
    said = "The simplest reading near it" in out
    assert said == (best not in shown)
    if said:
        assert " ".join(best.reading.split()) in " ".join(out.split())


def test_the_chance_estimate_counts_the_searched_readings_near_the_score() -> None:
    """Recomputed from every searched reading: how many lie within ten windows of the printed
    width either side, and the sentence says those numbers."""
    from harness.diagnose.identify import CHANCE_WINDOWS, chance

    fixture = load_fixture("google_nasa_opportunity")
    corpus = fixture.corpus("candidate_2")
    session = Session()
    odds = chance("0.30", corpus, session=session)
    every = nearest("0.30", corpus, session=session, count=10**9)
    near = [c for c in every if abs(c.raw - 0.30) < 0.01 * (CHANCE_WINDOWS + 0.5)]
    assert odds.searched == len(every)
    assert odds.nearby == len(near) > 0
    assert odds.expected == pytest.approx(len(near) / (2 * CHANCE_WINDOWS + 1))
    sentence = chance_sentence(odds, "0.30")
    assert f"Searched {len(every)} readings" in sentence
    assert f"({len(near)} within {CHANCE_WINDOWS} such windows" in sentence


# ---------------------------------------------------------------------- lm-eval's table
def _lm_eval_row(refs: list[str], hyps: list[str], metric: str = "bleu") -> str:
    """The row lm-eval's own ``make_table`` prints for its ``bleu`` of these texts."""
    try:
        import lm_eval.api.metrics as metrics
        import lm_eval.utils
    except ImportError as exc:
        unavailable("lm-eval's make_table", str(exc))
    value = metrics.bleu(list(zip(refs, hyps, strict=True)))
    task = "wmt21-en-de"
    table = lm_eval.utils.make_table(
        {
            "results": {task: {"alias": task, f"{metric},none": value}},
            "versions": {task: 1.0},
            "n-shot": {task: 0},
            "higher_is_better": {task: {metric: True}},
        }
    )
    return table


def test_a_row_of_lm_evals_table_is_read_with_its_header() -> None:
    table = _lm_eval_row(["the cat sat on the mat"], ["the cat sat on a mat"])
    line = read_printed(table)  # header, separator and the row, as printed
    assert (line.form, line.scale) == ("lm-eval table", "0-100")
    value = [c.strip() for c in table.splitlines()[-1].split("|")][7]
    assert line.score == value and len(value.split(".")[1]) == 4  # lm-eval prints %.4f
    assert read_printed(table.replace("|bleu", "|bleu_max")).form == "lm-eval table (bleu_max)"
    for other in ("bleu_acc", "rouge1"):
        with pytest.raises(ConfigError, match="lm-eval's results table"):
            read_printed(table.replace("|bleu", f"|{other}"))
    with pytest.raises(ConfigError, match="2 BLEU rows"):
        read_printed(table + "\n" + table.splitlines()[-1])


def test_lm_evals_row_names_lm_eval(wmt21: dict[str, Path]) -> None:
    system = "Facebook-AI"
    refs, hyps = wmt21["ref"].read_text().splitlines(), wmt21[system].read_text().splitlines()
    row = _lm_eval_row(refs, hyps).splitlines()[-1]
    found = identify(row, _corpus(wmt21, system), session=Session())
    assert found[0].reading == "lm-eval" and found[0].changes == ()


# ---------------------------------------------------------------------- one side tokenized
def test_references_tokenized_on_their_own_are_named(wmt21: dict[str, Path]) -> None:
    """sacrebleu's line on Moses-like tokenized references and raw hypotheses: the reading
    that reproduces every number says the references were tokenized."""
    system = "VolcTrans-GLAT"
    tokenized = wmt21["ref"].parent / "tok-ref.txt"
    tokenized.write_text(
        "".join(f"{moses_like_tokenize(r)}\n" for r in wmt21["ref"].read_text().splitlines())
    )
    printed = _sacrebleu_cli(str(tokenized), "-i", str(wmt21[system]), "-f", "text")
    found = identify(printed, _corpus(wmt21, system), session=Session())
    assert found and found[0].preprocessing == ("pre-tokenized-refs",)


# ---------------------------------------------------------------------- the printed lengths
def _cut(wmt21: dict[str, Path], system: str, start: int, end: int) -> str:
    """sacrebleu's line on lines ``start+1..end`` of the system and reference A."""
    folder = wmt21["ref"].parent
    for name, path in (("hyp", wmt21[system]), ("ref", wmt21["ref"])):
        lines = path.read_text().splitlines()[start:end]
        (folder / f"cut-{name}.txt").write_text("".join(f"{x}\n" for x in lines))
    return _sacrebleu_cli(
        str(folder / "cut-ref.txt"), "-i", str(folder / "cut-hyp.txt"), "-f", "text"
    )


@pytest.mark.parametrize(("start", "end"), [(0, 600), (301, 800)])
def test_a_run_of_the_test_set_is_found_from_the_printed_lengths(
    wmt21: dict[str, Path], start: int, end: int
) -> None:
    system = "Facebook-AI"
    printed = _cut(wmt21, system, start, end)
    corpus = _corpus(wmt21, system)
    session = Session()
    assert identify(printed, corpus, session=session) == []
    clue = length_clue(read_printed(printed), corpus, session=session)
    assert clue is not None and clue.span == (start, end) and clue.reproduces
    part = "the first 600 segments" if start == 0 else "segments 302–800"
    assert f"are those of {part} of the {len(corpus):,}" in length_clue_sentence(clue)


def test_the_lengths_say_which_side_differs(wmt21: dict[str, Path]) -> None:
    """The same line with the references' length changed: other references; with both
    changed to lengths no run of segments has: other text; the files' own: no clue."""
    system = "Facebook-AI"
    printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(wmt21[system]), "-f", "text")
    line = read_printed(printed)
    corpus = _corpus(wmt21, system)
    session = Session()
    assert length_clue(line, corpus, session=session) is None
    h, r = int(line.hyp_len or 0), int(line.ref_len or 0)
    other_refs = printed.replace(f"ref_len = {r}", f"ref_len = {r * 3}")
    clue = length_clue(read_printed(other_refs), corpus, session=session)
    assert clue is not None and clue.span is None
    assert "computed against other references" in length_clue_sentence(clue)
    other = other_refs.replace(f"hyp_len = {h}", f"hyp_len = {h * 3}")
    clue = length_clue(read_printed(other), corpus, session=session)
    assert clue is not None and clue.span is None and "other text" in length_clue_sentence(clue)
    assert f"the printed hyp_len is {3:.1%} of theirs" in length_clue_sentence(clue)


def test_identify_prints_the_part_of_the_test_set(
    wmt21: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.cli import main

    system = "Facebook-AI"
    printed = _cut(wmt21, system, 0, 600)
    argv = ["identify", str(wmt21[system]), str(wmt21["ref"]), "--score", printed, "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Nothing reproduces" in out and "the first 600 segments of the 1,002" in out
    assert "nearest readings" not in out  # the lengths explained it
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["lengths"]
    assert got["span"] == [0, 600] and got["reproduces"] is True


def test_a_signature_pinning_a_setting_a_reading_cannot_take_rules_it_out() -> None:
    """A reading with smoothing that takes a value (floor 0.1), against a signature that pins
    smooth:exp (which takes none): it is ruled out by the smoothing, not an error."""
    from harness.bleu.profiles import PROFILES
    from harness.diagnose.candidates import Candidate
    from harness.scorers.printed import pinned

    line = read_printed(_fixture_line())
    cfg = PROFILES["sacrebleu"].replace(smooth="floor", smooth_value=0.1)
    c = Candidate(cfg, "per-segment", "sacrebleu", ("smooth",), 30.0, "0-100", "none", 30.0, 0)
    assert pinned(line, c) == ["smooth=exp"]


@pytest.mark.parametrize("seed", [10, 17, None])
def test_a_score_no_simple_reading_reproduces_says_so(
    wmt21: dict[str, Path], capsys: pytest.CaptureFixture[str], seed: int | None
) -> None:
    """A seeded random score on a WMT21 system (or, with no seed, the score sacrebleu printed
    for it): the answer says that no reading one step or less from a named profile reproduces
    it exactly when every match takes more steps, and ``--json`` gives the fewest steps among
    the matches."""
    import random

    from harness.cli import main

    if seed is None:
        printed = _sacrebleu_cli(str(wmt21["ref"]), "-i", str(wmt21["VolcTrans-GLAT"]), "-b")
    score = f"{random.Random(seed).uniform(5, 40):.1f}" if seed is not None else printed
    args = [
        "identify",
        str(wmt21["VolcTrans-GLAT"]),
        str(wmt21["ref"]),
        "--score",
        score,
        "--quiet",
    ]
    assert main([*args, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    steps = [len(m["changes"]) + len(m.get("preprocessing", [])) for m in got["matches"]]
    assert got["fewest_steps"] == (min(steps) if steps else None)
    assert steps  # each of these scores has matches
    assert main(args) == 0
    said = "No reading one step or less from a named profile reproduces" in capsys.readouterr().out
    assert said == (min(steps) > 1)
    assert said == (seed is not None)  # these random scores only match far readings


def test_a_mistake_on_a_part_of_the_test_set_is_named_on_that_part(
    wmt21: dict[str, Path],
) -> None:
    """sacrebleu's line on lines 302–800 with the hypotheses lowercased: the lengths find the
    run, the tool's own profile there misses, and identify on the run names the mistake."""
    system = "VolcTrans-GLAT"
    folder = wmt21["ref"].parent
    hyps = [h.lower() for h in wmt21[system].read_text().splitlines()[301:800]]
    (folder / "part-hyp.txt").write_text("".join(f"{h}\n" for h in hyps))
    refs = wmt21["ref"].read_text().splitlines()[301:800]
    (folder / "part-ref.txt").write_text("".join(f"{r}\n" for r in refs))
    printed = _sacrebleu_cli(
        str(folder / "part-ref.txt"), "-i", str(folder / "part-hyp.txt"), "-f", "text"
    )
    corpus = _corpus(wmt21, system)
    session = Session()
    clue = length_clue(read_printed(printed), corpus, session=session)
    assert clue is not None and clue.span == (301, 800) and not clue.reproduces
    assert clue.matches[0].preprocessing == ("lowercased-hyps",)
    assert (
        f"one reading of segments 302–800 does: {clue.matches[0].reading}"
        in length_clue_sentence(clue)
    )
    assert to_json(clue)["matches"][0]["preprocessing"] == ["lowercased-hyps"]


# ---------------------------------------------------------------------- a signature alone
@pytest.mark.parametrize(
    ("kwargs", "equal"),
    # compare-mt's sacrebleu scorer is sacrebleu's arithmetic: both are named
    [({}, ("sacrebleu", "compare-mt-sacrebleu")), ({"tokenize": "intl", "lowercase": True}, ())],
)
def test_a_signature_alone_decodes_to_its_configuration(
    kwargs: dict, equal: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """The signature sacrebleu itself prints for a configuration: read without a score, it
    names sacrebleu's configuration with those settings and the profiles equal to it; a
    search for it on files is refused, and a command printing only a signature has no
    score."""
    from harness.bleu.profiles import PROFILES
    from harness.cli import main
    from harness.diagnose.identify import signature_reading
    from harness.scorers.command import parse_output

    bleu = sacrebleu.metrics.BLEU(**kwargs)
    bleu.corpus_score(["the cat sat"], [["the cat sat on the mat"]])  # the signature needs nrefs
    signature = str(bleu.get_signature())
    line = read_printed(signature)
    assert line.form == "sacrebleu signature" and line.score == "" and line.nrefs == 1
    reading = signature_reading(line)
    assert reading.profiles == equal
    assert reading.config.tokenize == kwargs.get("tokenize", "13a")
    assert reading.config.lowercase == kwargs.get("lowercase", False)
    assert (
        reading.config.replace(**{k: getattr(PROFILES["sacrebleu"], k) for k in kwargs})
        == (PROFILES["sacrebleu"])
    )
    with pytest.raises(ConfigError, match="no score to search"):
        identify(
            line, load_fixture("tutorial_cat_on_the_mat").corpus("candidate"), session=Session()
        )
    with pytest.raises(ValueError, match="no BLEU score found"):
        parse_output(signature)
    assert main(["identify", "--score", signature]) == 0  # no files needed
    out = capsys.readouterr().out
    assert out.startswith("Read as a sacrebleu signature alone")
    said = f"named profiles with exactly this configuration: {', '.join(equal)}."
    assert (said in " ".join(out.split())) == bool(equal)
    assert main(["identify", "--score", signature, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"]["profiles"] == list(equal)
