"""``compare`` on a user's own files: the loaders, the answer and its first screen.

Expected numbers come from the real sacrebleu run on the same files, or from the answer's own
invariants (Shapley values sum to the gap; a gap is the mean of per-system differences; a
flip is a pair two score vectors order differently).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import sacrebleu

from harness.analysis.answer import answer, display_name
from harness.analysis.library_agreement import library_agreement
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.cli import main
from harness.data.systems import load_jsonl_systems, load_text_systems, load_tsv_systems
from harness.errors import InputError, LayoutError
from harness.report.answer_words import LIBRARY_NO_NUMBER, findings
from harness.report.console import WIDTH, fixtures_text
from harness.run import RunPlan, run, runner
from harness.session import Session

REFS = [
    "The cat sat on the mat.",
    "A dog is barking in the garden, loudly.",
    "He reads a book every evening.",
    "It's raining again today!",
]
SYS_A = [
    "The cat sat on the mat.",
    "A dog barks in the garden, loudly.",
    "He reads one book each evening.",
    "It's raining today!",
]
SYS_B = [
    "the cat is on the mat .",
    "A dog is barking in the garden , loudly .",
    "He is reading a book every evening.",
    "It is raining again today!",
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    (tmp_path / "sys").mkdir()
    a = _write(tmp_path / "sys" / "alpha.txt", SYS_A)
    b = _write(tmp_path / "sys" / "beta.txt", SYS_B)
    ref = _write(tmp_path / "ref.txt", REFS)
    return a, b, ref


# ---------------------------------------------------------------------- loaders
def test_text_systems_share_references_and_are_named_by_stem(files) -> None:
    a, b, ref = files
    systems = load_text_systems([a, b], [ref])
    assert list(systems) == ["alpha", "beta"]
    assert systems["beta"].hypotheses == tuple(SYS_B)
    assert systems["alpha"].references == tuple((r,) for r in REFS)


def test_text_systems_errors_name_the_file(files, tmp_path) -> None:
    a, _b, ref = files
    short = _write(tmp_path / "short.txt", SYS_A[:3])
    with pytest.raises(LayoutError) as e:
        load_text_systems([a, short], [ref])
    assert f"{short} has 3;" in str(e.value)
    with pytest.raises(LayoutError) as e:
        load_text_systems([a], [short])
    assert str(short) in str(e.value)
    with pytest.raises(InputError, match="given twice"):
        load_text_systems([a, a], [ref])
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"a\r\nb\r\nc\r\nd\r\n")
    with pytest.raises(InputError) as e:
        load_text_systems([crlf], [ref])
    assert "crlf.txt" in str(e.value)


def test_jsonl_systems(tmp_path) -> None:
    lines = [
        json.dumps({"id": f"s{i}", "references": [r], "hypotheses": {"a": x, "b": y}})
        for i, (r, x, y) in enumerate(zip(REFS, SYS_A, SYS_B, strict=True))
    ]
    path = _write(tmp_path / "c.jsonl", lines)
    systems = load_jsonl_systems(path)
    assert list(systems) == ["a", "b"]
    assert systems["b"].hypotheses == tuple(SYS_B) and systems["a"].ids[0] == "s0"
    bad = [*lines[:2], json.dumps({"references": ["x"], "hypotheses": {"a": "x"}})]
    with pytest.raises(InputError) as e:
        load_jsonl_systems(_write(tmp_path / "bad.jsonl", bad))
    assert e.value.line == 3 and "same systems" in str(e.value)
    one = [
        json.dumps({"hypothesis": x, "references": [r]}) for r, x in zip(REFS, SYS_A, strict=True)
    ]
    assert list(load_jsonl_systems(_write(tmp_path / "one.jsonl", one))) == ["one"]


def test_tsv_systems(tmp_path) -> None:
    rows = ["id\tref\tref2\tsysA\tsysB"] + [
        f"{i}\t{r}\t{r.lower()}\t{x}\t{y}"
        for i, (r, x, y) in enumerate(zip(REFS, SYS_A, SYS_B, strict=True))
    ]
    systems = load_tsv_systems(_write(tmp_path / "c.tsv", rows))
    assert list(systems) == ["sysA", "sysB"]
    assert systems["sysA"].references[0] == (REFS[0], REFS[0].lower())
    ragged = [*rows[:3], "9\tonly two"]
    with pytest.raises(InputError) as e:
        load_tsv_systems(_write(tmp_path / "r.tsv", ragged))
    assert e.value.line == 4 and "2 tab-separated fields" in str(e.value)
    with pytest.raises(InputError, match="no reference column"):
        load_tsv_systems(_write(tmp_path / "n.tsv", ["a\tb", "x\ty"]))


# ---------------------------------------------------------------------- the answer
def _answer(files):
    a, b, ref = files
    systems = load_text_systems([a, b], [ref])
    impls = [runner.Implementation("profile", p) for p in DEFAULT_PROFILES]
    impls.append(runner.Implementation("adapter", "sacrebleu"))
    rows = run(RunPlan.of([("files", n, c) for n, c in systems.items()], impls, progress=False))
    return systems, answer(rows, Session(systems))


def test_answer_families_gaps_and_factors(files) -> None:
    systems, ans = _answer(files)
    base = ans.baseline_family
    # the baseline family's number is the real sacrebleu's
    for k, name in enumerate(ans.systems):
        c = systems[name]
        real = sacrebleu.corpus_bleu(list(c.hypotheses), [[r[0] for r in c.references]]).score
        assert base.scores[k] == pytest.approx(real, abs=1e-9)
    assert [lib.equal for lib in base.libraries] == [True]
    seen = [p for f in ans.families for p in f.profiles]
    assert sorted(seen) == sorted(DEFAULT_PROFILES)  # every profile in exactly one family
    for fam in ans.families:
        if fam.gap is None or fam is base:
            continue
        diffs = [s - b for s, b in zip(fam.scores, base.scores, strict=True)]
        assert fam.gap == pytest.approx(math.fsum(diffs) / len(diffs), abs=1e-9)
        if fam.factors:  # Shapley efficiency: the factors sum to the gap
            assert math.fsum(fam.factors.values()) == pytest.approx(fam.gap, abs=1e-9)
        for x, y in fam.flips:
            i, j = ans.systems.index(x), ans.systems.index(y)
            assert base.scores[i] > base.scores[j] and fam.scores[i] < fam.scores[j]
    nltk = next(f for f in ans.families if "nltk" in f.profiles)
    assert nltk.changes["tokenization"]["tokenize"] == (
        PROFILES["sacrebleu"].tokenize,
        PROFILES["nltk"].tokenize,
    )
    assert any("nltk" in s and PROFILES["nltk"].tokenize in s for s in findings(ans))


def test_compare_counts_each_tokenization_once(files, capsys, monkeypatch) -> None:
    """The runner and the answer share the run's one statistics cache: with --no-cache (memory
    only) no corpus is counted twice under the same tokenization."""
    from harness.bleu import engine

    counted: list[tuple[tuple[str, ...], str, int | None]] = []
    real = engine.compute_statistics

    def counting(corpus, config, **kwargs):  # type: ignore[no-untyped-def]
        stats = real(corpus, config, **kwargs)
        max_order = kwargs.get("max_order")
        counted.append((corpus.hypotheses, stats.tokenization, max_order))
        return stats

    monkeypatch.setattr(engine, "compute_statistics", counting)
    a, b, ref = files
    assert main(["compare", str(a), str(b), "--refs", str(ref), "--no-cache", "--quiet"]) == 0
    keys = [(h, t) for h, t, _ in counted]
    assert len(keys) > len(DEFAULT_PROFILES)  # both systems, many tokenizations
    assert len(keys) == len(set(keys)), [k[1] for k in keys if keys.count(k) > 1][:5]


def test_compare_files_first_screen(files, capsys, tmp_path) -> None:
    a, b, ref = files
    assert main(["compare", str(a), str(b), "--refs", str(ref), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= WIDTH
    head = " ".join(out.split("\n\n")[0].split())  # the first paragraph, unwrapped
    assert head == f"{a}, {b} against {ref}: 2 systems, 4 segments, 1 reference each."
    assert "Findings" in out and "**" not in out and "| ---" not in out
    assert "The real sacrebleu" in out
    # JSON: the answer and the rows; --out writes answer.json beside the tables
    dest = tmp_path / "o"
    argv = ["compare", str(a), str(b), "--refs", str(ref), "--json", "--out", str(dest)]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"]["systems"] == ["alpha", "beta"]
    assert json.loads((dest / "answer.json").read_text()) == data["answer"]


def test_limit_is_recorded_where_the_numbers_are(files, capsys, tmp_path) -> None:
    """``--limit`` cuts every corpus; the cut is in compare's meta.json and the report's
    signature, so numbers from a quick look are never mistaken for the whole corpus."""
    a, b, ref = files
    dest = tmp_path / "c"
    impl = ["--impl", "profile:sacrebleu,profile:nltk"]
    argv = ["compare", str(a), str(b), "--refs", str(ref), "--limit", "2", "--out", str(dest)]
    assert main([*argv, *impl, "--no-progress"]) == 0
    assert "--limit 2" in capsys.readouterr().err
    meta = json.loads((dest / "meta.json").read_text())
    assert meta["limit"] == 2
    rows = [json.loads(line) for line in (dest / "results.jsonl").read_text().splitlines()]
    want = sacrebleu.corpus_bleu(SYS_A[:2], [REFS[:2]]).score
    got = [
        r["score"]
        for r in rows
        if r["system"] == "alpha" and r["implementation"] == "harness:sacrebleu"
    ]
    assert got and got[0] == pytest.approx(want, abs=1e-9)
    for limit, part in ((["--limit", "2"], "|limit:2|"), ([], None)):
        out = tmp_path / f"r{len(limit)}"
        argv = ["report", str(a), str(b), "--refs", str(ref), *limit, "--out", str(out)]
        assert main([*argv, *impl, "--no-progress", "--formats", "json"]) == 0
        signature = json.loads((out / "report.json").read_text())["signature"]
        assert (part in signature) if part else "|limit:" not in signature


def test_compare_files_real_libraries(files, capsys) -> None:
    a, _b, ref = files
    argv = ["compare", str(a), "--refs", str(ref), "--all-libraries", "--json", "--no-progress"]
    assert main(argv) == 0
    ans = json.loads(capsys.readouterr().out)["answer"]
    checks = [lib for fam in ans["families"] for lib in fam["libraries"]]
    assert {c["name"] for c in checks} >= {"sacrebleu", "nltk"}
    assert all(c["equal_to_profile"] for c in checks if c["equal_to_profile"] is not None)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "{a}"], "need --refs"),
        (["compare", "--refs", "{ref}"], "--refs needs hypothesis files"),
        (["compare", "{a}", "--refs", "{ref}", "--tsv", "{ref}"], "give one of"),
    ],
)
def test_compare_files_usage_errors(files, capsys, argv, message) -> None:
    a, _b, ref = files
    argv = [x.format(a=a, ref=ref) for x in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_fixtures_screen_fits_and_counts(capsys) -> None:
    from harness.data.fixtures import load_fixture

    fx = load_fixture("silence_pitfall")
    impls = [runner.Implementation.parse(x) for x in ("sacrebleu", "nltk", "helm-bleu-1")]
    impls += [runner.Implementation("adapter", "sacrebleu")]
    rows = run(RunPlan.of(fx.triples(), impls, progress=False))
    text = fixtures_text(rows, seconds=1.0, agreement=library_agreement(rows))
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert f"{len(fx.system_names)}/{len(fx.system_names)} real-library results equal" in text
    # HELM's BLEU-1 is never an extreme of the BLEU-4 implementations
    assert display_name("helm-bleu-1") not in text.split("fixture/system")[1]


# ---------------------------------------------------------------------- significance, human
SYS_C = ["A cat on a mat.", "The dog barks.", "He reads books.", "Rain today."]


@pytest.fixture
def three(files, tmp_path) -> tuple[list[Path], Path]:
    a, b, ref = files
    c = _write(tmp_path / "sys" / "gamma.txt", SYS_C)
    return [a, b, c], ref


def test_significance_every_system_against_the_best(three, capsys) -> None:
    hyps, ref = three
    real = {p.stem: sacrebleu.corpus_bleu(p.read_text().splitlines(), [REFS]).score for p in hyps}
    best = max(real, key=real.__getitem__)
    argv = ["significance", *map(str, hyps), "--refs", str(ref), "--resamples", "200", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"] == best and set(data["tests"]) == set(real) - {best}
    for name, test in data["tests"].items():
        assert test["score_system"] == pytest.approx(real[name], abs=1e-9)
        # the same test as the two-file form, on the same seed and resamples
        path = next(p for p in hyps if p.stem == name)
        base = next(p for p in hyps if p.stem == best)
        two = ["significance", str(base), str(path), str(ref), "--resamples", "200", "--json"]
        assert main(two) == 0
        assert json.loads(capsys.readouterr().out) == test
    assert main(["significance", *map(str, hyps), "--refs", str(ref), "--baseline", "x"]) == 2
    assert "not one of the systems" in capsys.readouterr().err


def test_human_on_files_correlates_each_profile(three, tmp_path, capsys) -> None:
    from scipy.stats import pearsonr

    hyps, ref = three
    scores = tmp_path / "human.tsv"
    human = {"alpha": 0.5, "beta": -0.2, "gamma": -1.0}
    _write(scores, ["system\tscore", *(f"{k}\t{v}" for k, v in human.items())])
    argv = ["human", *map(str, hyps), "--refs", str(ref), "--scores", str(scores)]
    assert main([*argv, "--impl", "sacrebleu,nltk", "--n-boot", "50", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bleu = [sacrebleu.corpus_bleu(p.read_text().splitlines(), [REFS]).score for p in hyps]
    row = next(c for c in data["correlations"] if "sacrebleu" in c["profiles"])
    want = pearsonr(bleu, list(human.values())).statistic
    assert row["pearson"]["value"] == pytest.approx(want, abs=1e-12)
    _write(scores, ["system\tscore", "alpha\t1", "beta\t2"])
    assert main(argv) == 2
    assert "no score for ['gamma']" in capsys.readouterr().err


def test_a_library_without_a_number_is_not_marked_unequal(files, capsys, monkeypatch) -> None:
    """evaluate with no module to load gives no number: the screen says so, never "≠"."""
    a, _b, ref = files
    monkeypatch.delenv("BLEU_HARNESS_EVALUATE_MODULE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    argv = ["compare", str(a), "--refs", str(ref), "--impl", "profile:evaluate,adapter:evaluate"]
    assert main([*argv, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"evaluate{LIBRARY_NO_NUMBER}" in " ".join(out.split()) and "≠" not in out
    assert "evaluate: unavailable" in " ".join(out.split())
