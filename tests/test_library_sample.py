"""Real libraries on a seeded sample: of each test set's systems, and of their segments.

The report runs every library on a spot check (``RunPlan(libraries=LibrarySample(...))``,
``report --real sample``, the default): on a seeded sample of the systems and of those
systems' segments, scored one by one and as a corpus of their own, beside its profile on the
same segments; the profiles, each proven equal to its library, give every number. Expected numbers come from the real sacrebleu run
here, or from the same run on every segment.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest
import sacrebleu

from harness.analysis.difference import difference
from harness.analysis.library_check import library_check, spot_checks
from harness.analysis.study import ReportOptions, analyse
from harness.analysis.study_pairs import default_pairs
from harness.analysis.study_summary import library_segments
from harness.cli import main
from harness.data.corpus import Corpus
from harness.report import render_markdown
from harness.report.summary import terminal_findings
from harness.run import RunPlan, run, runner
from harness.run.library_sample import LibrarySample, segment_sample, system_sample
from harness.run.results import Level, Status
from harness.session import Session
from harness.session.results import ResultsCache

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import corpus_gen

SEGMENTS, SAMPLE = 60, 7
IMPLS = [runner.Implementation.parse(x) for x in ("profile:sacrebleu", "adapter:sacrebleu")]


@pytest.fixture(scope="module")
def corpora() -> list[tuple[str, str, Corpus]]:
    """Two generated systems of one test set, longer than the sample."""
    outputs, streams = corpus_gen.systems(2, SEGMENTS, 1, seed=corpus_gen.SEED)
    refs = tuple(zip(*streams, strict=True))
    return [
        ("gen", f"sys{k}", Corpus(tuple(h), refs, name=f"sys{k}")) for k, h in enumerate(outputs)
    ]


@pytest.fixture(scope="module")
def sampled(corpora) -> list[dict]:
    return run(
        RunPlan.of(
            corpora,
            IMPLS,
            levels=("corpus", "segment"),
            libraries=LibrarySample(segments=SAMPLE),
            seed=3,
        )
    )


@pytest.fixture(scope="module")
def every(corpora) -> list[dict]:
    return run(RunPlan.of(corpora, IMPLS, levels=("corpus", "segment")))


def _segment_rows(rows, impl, system):
    return {
        r.segment_id: r
        for r in rows
        if r.implementation == impl and r.system == system and r.level == "segment"
    }


def test_the_sample_is_seeded_the_same_for_every_system_and_none_when_small() -> None:
    a = segment_sample(SEGMENTS, SAMPLE, 3)
    assert a == segment_sample(SEGMENTS, SAMPLE, 3)
    assert a != segment_sample(SEGMENTS, SAMPLE, 4)
    assert a is not None and len(set(a)) == SAMPLE and list(a) == sorted(a)
    assert segment_sample(SEGMENTS, SEGMENTS, 3) is None
    assert segment_sample(SEGMENTS, None, 3) is None


def _real_corpus_bleu(corpus: Corpus) -> float:
    streams = [list(s) for s in zip(*corpus.references, strict=True)]
    return sacrebleu.corpus_bleu(list(corpus.hypotheses), streams).score


def _sample_rows(rows, system):
    """The ``sample`` rows on ``system``, by implementation."""
    out = {}
    for r in rows:
        if r.system == system and r.level == "sample":
            assert r.implementation not in out
            out[r.implementation] = r
    return out


def test_a_library_scores_the_sample_one_by_one_and_as_a_corpus(corpora, sampled, every) -> None:
    """The library's corpus-level call is made on the sampled segments, not the whole system,
    and its profile scores the same segments beside it: both the real sacrebleu's number."""
    picked = segment_sample(SEGMENTS, SAMPLE, 3)
    assert picked is not None
    for _, system, corpus in corpora:
        lib = _segment_rows(sampled, "sacrebleu", system)
        assert sorted(lib) == sorted(corpus.ids[i] for i in picked)
        assert len(_segment_rows(sampled, "harness:sacrebleu", system)) == SEGMENTS
        full = _segment_rows(every, "sacrebleu", system)
        for sid, row in lib.items():  # the same call on the same segment
            assert row.score == full[sid].score
        assert not [
            r
            for r in sampled
            if r.implementation == "sacrebleu" and r.system == system and r.level == "corpus"
        ]
        real = _real_corpus_bleu(corpus.subset(picked))
        assert real != pytest.approx(_real_corpus_bleu(corpus), abs=1e-6)
        rows = _sample_rows(sampled, system)
        assert set(rows) == {"sacrebleu", "harness:sacrebleu"}
        for row in rows.values():
            assert row.score == pytest.approx(real, abs=1e-9)
        assert _sample_rows(every, system) == {}


@pytest.mark.parametrize("name", ["codexglue", "lm-eval-truthfulqa"])
def test_a_library_whose_corpus_is_its_segments_mean_is_run_once(corpora, name) -> None:
    """Its corpus result is the mean of its segment results: the sample is scored once,
    and its ``sample`` row is the one a corpus call on the sample gives."""
    pytest.importorskip("lm_eval")
    from harness.scorers.registry import get_adapter

    _, system, corpus = corpora[0]
    impl = runner.Implementation("adapter", name)
    picked = segment_sample(SEGMENTS, SAMPLE, 3)
    assert picked is not None
    adapter = get_adapter(name)
    calls = []
    segments = adapter._segments

    def counted(*args, **kwargs):
        calls.append(len(args[0]))
        return segments(*args, **kwargs)

    adapter._segments = counted
    once = runner.run_one(
        corpus,
        impl,
        fixture="gen",
        system=system,
        levels=("corpus", "segment"),
        adapter_cache={name: adapter},
        segments=picked,
    ).rows()
    assert calls == [SAMPLE]  # the sample's segments, once
    sample = corpus.subset(picked)
    apart = runner.run_one(sample, impl, fixture="gen", system=system, levels=("segment",)).rows()
    apart += [
        dataclasses.replace(r, level=Level.SAMPLE)
        for r in runner.run_one(
            sample, impl, fixture="gen", system=system, levels=("corpus",)
        ).rows()
    ]

    def order(row: dict) -> tuple[str, str]:
        return row.level, row.segment_id or ""

    assert sorted(once, key=order) == sorted(apart, key=order)


def test_the_library_is_compared_where_it_ran(sampled) -> None:
    """Against its profile, the sampled library agrees on the segments it ran on; the ones
    not drawn are neither unmatched nor a disagreement. A library that failed at segment level
    still leaves every segment unmatched."""
    d = difference(sampled, "harness:sacrebleu", "sacrebleu")
    assert d.agree is True
    assert d.segments.n == 2 * SAMPLE and d.segments.unmatched == 0
    failed = [r for r in sampled if not (r.implementation == "sacrebleu" and r.level == "segment")]
    failed += [
        dataclasses.replace(
            r,
            level=Level.SEGMENT,
            segment_id=None,
            score=None,
            status=Status.RAISES,
            error="boom",
        )
        for r in sampled
        if r.implementation == "sacrebleu" and r.level == "sample"
    ][-2:]
    gone = difference(failed, "harness:sacrebleu", "sacrebleu")
    assert gone.agree is False and gone.segments.unmatched == 2 * SEGMENTS


def test_the_report_states_the_sample_and_compares_against_the_profile(sampled, every) -> None:
    assert library_segments(sampled) == (2 * SAMPLE, 2 * SEGMENTS)
    assert library_segments(every) == (2 * SEGMENTS, 2 * SEGMENTS)
    assert ("sacrebleu", "harness:sacrebleu") not in default_pairs(sampled)  # no sampled base
    assert default_pairs(sampled)[0] == ("harness:sacrebleu", "sacrebleu")
    assert all(a == "sacrebleu" for a, _ in default_pairs(every)[1:])


def test_the_results_cache_keeps_a_sampled_run_apart(corpora, tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path / "results")
    first = run(RunPlan.of(corpora[:1], IMPLS[1:], levels=("corpus", "segment"), results=cache, libraries=LibrarySample(segments=SAMPLE), seed=3))  # fmt: skip
    whole = run(RunPlan.of(corpora[:1], IMPLS[1:], levels=("corpus", "segment"), results=cache))
    assert len(first) == 1 + SAMPLE and len(whole) == 1 + SEGMENTS


def test_report_says_what_the_libraries_ran_on(
    corpora, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, ref = _report_files(corpora, tmp_path)
    out = tmp_path / "rep"
    argv = ["report", *files, "--refs", ref, "--impl", "profile:sacrebleu",
            "--impl", "adapter:sacrebleu", "--no-cache", "--quiet", "--formats", "md",
            "--n-boot", "0", "--real-segments", str(SAMPLE), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    share = f"{2 * SAMPLE / (2 * SEGMENTS):.0%}"
    assert (
        f"run on every system (2), on a seeded sample of {2 * SAMPLE} of their {2 * SEGMENTS} "
        f"segments ({share}), scored one by one and as a corpus of their own (seed"
    ) in text
    assert "| files/sys0 (spot-checked segments) |" in text
    capsys.readouterr()
    for bad in ("0", "-3", "some"):
        with pytest.raises(SystemExit):
            main([*argv[:-4], "--real-segments", bad, "--out", str(tmp_path / "x")])
        assert "--real-segments" in capsys.readouterr().err


# ---------------------------------------------------------------------- systems sampled
SYSTEMS, DRAWN = 4, 2


@pytest.fixture(scope="module")
def four(corpora) -> list[tuple[str, str, Corpus]]:
    """Four generated systems of one test set (more than the systems drawn)."""
    outputs, streams = corpus_gen.systems(SYSTEMS, SEGMENTS, 1, seed=corpus_gen.SEED + 1)
    refs = tuple(zip(*streams, strict=True))
    return [
        ("gen", f"sys{k}", Corpus(tuple(h), refs, name=f"sys{k}")) for k, h in enumerate(outputs)
    ]


def test_the_systems_are_a_seeded_draw_whatever_order_they_come_in() -> None:
    names = [f"sys{k:02d}" for k in range(16)]
    drawn = system_sample(names, 3, 7)
    assert drawn == system_sample(list(reversed(names)), 3, 7)
    assert len(drawn) == 3 and drawn <= set(names)
    assert any(system_sample(names, 3, seed) != drawn for seed in range(8, 12))
    assert system_sample(names, 16, 7) == system_sample(names, None, 7) == frozenset(names)


def test_a_library_runs_on_the_drawn_systems_only(four) -> None:
    rows = run(
        RunPlan.of(
            four,
            IMPLS,
            levels=("corpus", "segment"),
            libraries=LibrarySample(systems=DRAWN, segments=SAMPLE),
            seed=5,
        )
    )
    drawn = system_sample([s for _, s, _ in four], DRAWN, 5)
    ran = {r.system for r in rows if r.implementation == "sacrebleu"}
    assert ran == drawn
    assert {r.system for r in rows if r.implementation == "harness:sacrebleu"} == {
        s for _, s, _ in four
    }
    picked = segment_sample(SEGMENTS, SAMPLE, 5)
    assert picked is not None
    for _, system, corpus in four:
        if system not in drawn:
            assert _sample_rows(rows, system) == {}
            continue
        row = _sample_rows(rows, system)["sacrebleu"]
        assert row.score == pytest.approx(_real_corpus_bleu(corpus.subset(picked)), abs=1e-9)
    # compared where it ran: agreement, no corpus or segment left unmatched
    d = difference(rows, "harness:sacrebleu", "sacrebleu")
    assert d.agree is True and len(d.corpora) == DRAWN and d.segments.unmatched == 0
    assert d.segments.n == DRAWN * SAMPLE
    # the library is checked against its profile; the comparison is the profiles'
    assert default_pairs(rows) == [("harness:sacrebleu", "sacrebleu")]


def test_the_sample_is_keyed_in_the_results_cache_by_its_seed(four, tmp_path: Path) -> None:
    """A sample drawn with another seed is other segments: the cache does not hand back the
    first seed's rows."""
    cache = ResultsCache(tmp_path / "results")
    sample = LibrarySample(systems=SYSTEMS, segments=SAMPLE)
    plans = {
        seed: RunPlan.of(
            four[:1],
            IMPLS[1:],
            levels=("corpus", "segment"),
            results=cache,
            libraries=sample,
            seed=seed,
        )
        for seed in (3, 4)
    }
    _, _, corpus = four[0]
    for seed in (3, 4, 3):
        rows = run(plans[seed])
        picked = segment_sample(SEGMENTS, SAMPLE, seed)
        assert picked is not None
        got = {r.segment_id for r in rows if r.level == "segment"}
        assert got == {corpus.ids[i] for i in picked}


def _report_files(corpora, tmp_path: Path) -> tuple[list[str], str]:
    """Each system's hypotheses and the shared first references written one segment a line."""
    files = []
    for _, system, corpus in corpora:
        path = tmp_path / f"{system}.txt"
        path.write_text("".join(f"{h}\n" for h in corpus.hypotheses), encoding="utf-8")
        files.append(str(path))
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"{r[0]}\n" for r in corpora[0][2].references), encoding="utf-8")
    return files, str(ref)


def test_the_report_names_the_sample_in_every_format(
    four, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, ref = _report_files(four, tmp_path)
    out = tmp_path / "rep"
    argv = ["report", *files, "--refs", ref, "--impl", "profile:sacrebleu",
            "--impl", "adapter:sacrebleu", "--no-cache", "--quiet", "--formats", "md", "json",
            "html", "--n-boot", "0", "--real-systems", str(DRAWN), "--real-segments",
            str(SAMPLE), "--seed", "9", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = " ".join(capsys.readouterr().out.split())  # wrapped to the terminal's width
    drawn = sorted(system_sample([s for _, s, _ in four], DRAWN, 9))
    said = ", ".join(drawn)
    assert f"a spot check: run on {DRAWN} of the {SYSTEMS} systems ({said})" in printed
    libs = json.loads((out / "report.json").read_text(encoding="utf-8"))["summary"]["libraries"]
    assert libs["corpora_run"] == [f"files/{s}" for s in drawn]
    assert libs["corpora"] == SYSTEMS and libs["seed"] == 9
    assert (libs["segments_run"], libs["segments"]) == (DRAWN * SAMPLE, DRAWN * SEGMENTS)
    answer = json.loads((out / "report.json").read_text(encoding="utf-8"))["answer"]
    (lib,) = [x for f in answer["families"] for x in f["libraries"]]
    assert lib["name"] == "sacrebleu" and lib["sampled"] == drawn
    assert lib["equal_to_profile"] is True and lib["scores"] == [None] * SYSTEMS
    md = (out / "report.md").read_text(encoding="utf-8")
    names = ", ".join(f"`{s}`" for s in drawn)
    assert f"run on {DRAWN} of the {SYSTEMS} systems ({names})" in md
    assert "Every implementation scored every corpus it ran on." in md
    html = (out / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{s}</code>" in html for s in drawn) and "a spot check" in html
    # --real all: no sample, no sentence about one
    every = tmp_path / "every"
    sized = argv.index("--real-systems")
    unsized = [*argv[:sized], *argv[sized + 4 : -2]]
    assert "--real-segments" not in unsized and "--seed" in unsized
    assert main([*unsized, "--real", "all", "--out", str(every)]) == 0
    libs = json.loads((every / "report.json").read_text(encoding="utf-8"))["summary"]["libraries"]
    assert len(libs["corpora_run"]) == libs["corpora"] == SYSTEMS
    assert "a spot check" not in (every / "report.md").read_text(encoding="utf-8")


def test_a_library_that_leaves_its_profile_is_the_reports_first_finding(sampled) -> None:
    """The library's rows moved off the profile's (as a broken release would): the summary
    leads with it, and says how far, from the rows."""
    bump, seg_bump = 0.5, 2.0
    system = "sys1"
    moved = []
    first_segment = None
    for r in sampled:
        if r.implementation == "sacrebleu" and r.system == system:
            if r.level == "sample":
                r = dataclasses.replace(r, score=r.score + bump)
            elif first_segment is None:
                first_segment = r.segment_id
                r = dataclasses.replace(r, score=r.score + seg_bump)
        moved.append(r)
    report = analyse(moved, Session(), options=ReportOptions(n_boot=0))
    (d,) = report.summary.libraries.disagreements
    assert (d.library, d.profile) == ("sacrebleu", "harness:sacrebleu")
    assert (d.corpora, d.corpora_beyond) == (2, 1)
    assert d.corpus_max_abs == pytest.approx(bump, abs=1e-9)
    assert (d.segments, d.segments_beyond) == (2 * SAMPLE, 1)
    assert d.segment_max_abs == pytest.approx(seg_bump, abs=1e-9)
    assert report.summary.libraries.differ == ("sacrebleu",)
    summary = render_markdown(report).split("## Summary", 1)[1].lstrip().splitlines()
    assert summary[0].startswith("- **Finding:**") or "Finding:" in summary[0]
    assert "`sacrebleu`" in summary[0]
    assert "on the spot-checked segments of 1 of the 2 systems" in summary[0]
    assert f"1 of the {2 * SAMPLE} segments" in summary[0]
    assert terminal_findings(report)[0].startswith("Finding: the real sacrebleu disagrees")
    clean = analyse(sampled, Session(), options=ReportOptions(n_boot=0))
    assert clean.summary.libraries.disagreements == ()
    assert "Finding:" not in render_markdown(clean)


def test_the_answer_checks_a_library_on_its_spot_check(sampled) -> None:
    """The answer's check of a library against its family compares the library's ``sample``
    rows with its profile's; a library moved on one sample is not equal."""
    systems = ("sys0", "sys1")
    samples: dict[str, dict[str, object]] = {}
    for r in sampled:
        if r.level == "sample":
            samples.setdefault(r.implementation, {})[r.system] = r
    scores = [None, None]
    check = library_check("sacrebleu", {}, systems, scores, spot_checks("sacrebleu", samples))
    assert check.equal is True and check.sampled == systems
    row = samples["sacrebleu"]["sys1"]
    samples["sacrebleu"]["sys1"] = dataclasses.replace(row, score=row.score + 1e-6)
    moved = library_check("sacrebleu", {}, systems, scores, spot_checks("sacrebleu", samples))
    assert moved.equal is False


def test_a_spot_checked_library_is_paired_with_its_profile_only(four) -> None:
    """The comparison between implementations is the profiles' on every system; a library
    that ran on some of them is judged against its own profile there, and with --real all
    against the others as before."""
    impls = ["profile:sacrebleu", "adapter:sacrebleu", "profile:nltk", "adapter:nltk"]
    levels = ("corpus",)
    spot = run(RunPlan.of(four, impls, levels=levels, libraries=LibrarySample(systems=DRAWN)))
    assert default_pairs(spot) == [
        ("harness:sacrebleu", "sacrebleu"),
        ("harness:nltk", "nltk"),
        ("harness:sacrebleu", "harness:nltk"),
    ]
    every = run(RunPlan.of(four, impls, levels=levels))
    assert ("sacrebleu", "nltk") in default_pairs(every)
    assert ("sacrebleu", "harness:nltk") in default_pairs(every)


def test_the_spot_checks_sizes_are_refused_with_real_all(
    four, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, ref = _report_files(four, tmp_path)
    argv = ["report", *files, "--refs", ref, "--impl", "adapter:sacrebleu", "--no-cache",
            "--quiet", "--real", "all", "--real-systems", "2", "--out", str(tmp_path / "x")]  # fmt: skip
    assert main(argv) != 0
    assert "--real-systems size the spot check: not with --real all" in capsys.readouterr().err
    assert not (tmp_path / "x" / "report.md").exists()
