"""Real libraries at segment level on a seeded sample of each corpus's segments.

The report runs every library at corpus level on every system and at segment level on a
sample (``RunPlan(library_segments=N, seed=...)``, ``report --library-segments``); the
profiles, each proven equal to its library, give every segment. Expected numbers come from the
real sacrebleu run here, or from the same run on every segment.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
import sacrebleu

from harness.analysis.difference import difference
from harness.analysis.study_pairs import default_pairs
from harness.analysis.study_summary import library_segments
from harness.cli import main
from harness.data.corpus import Corpus
from harness.run import RunPlan, run, runner
from harness.run.library_sample import segment_sample
from harness.run.results import Level, Status
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
        RunPlan.of(corpora, IMPLS, levels=("corpus", "segment"), library_segments=SAMPLE, seed=3)
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


def test_a_library_runs_every_system_whole_and_the_sample_segment_by_segment(
    corpora, sampled, every
) -> None:
    picked = segment_sample(SEGMENTS, SAMPLE, 3)
    assert picked is not None
    for _, system, corpus in corpora:
        lib = _segment_rows(sampled, "sacrebleu", system)
        assert sorted(lib) == sorted(corpus.ids[i] for i in picked)
        assert len(_segment_rows(sampled, "harness:sacrebleu", system)) == SEGMENTS
        full = _segment_rows(every, "sacrebleu", system)
        for sid, row in lib.items():  # the same call on the same segment
            assert row.score == full[sid].score
        (corpus_row,) = [
            r
            for r in sampled
            if r.implementation == "sacrebleu" and r.system == system
            if r.level == "corpus"
        ]
        streams = [list(s) for s in zip(*corpus.references, strict=True)]
        real = sacrebleu.corpus_bleu(list(corpus.hypotheses), streams).score
        assert corpus_row.score == pytest.approx(real, abs=1e-9)


@pytest.mark.parametrize("name", ["codexglue", "lm-eval-truthfulqa"])
def test_a_library_whose_corpus_is_its_segments_mean_is_run_once(corpora, name) -> None:
    """Its corpus row is built from every segment's result, so the sample's rows are taken
    from that one run: the rows a separate run on the sample and a corpus call give."""
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
    assert calls == [SEGMENTS]  # every segment, once
    apart = runner.run_one(
        corpus.subset(picked), impl, fixture="gen", system=system, levels=("segment",)
    ).rows()
    apart += runner.run_one(corpus, impl, fixture="gen", system=system, levels=("corpus",)).rows()

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
        if r.implementation == "sacrebleu" and r.level == "corpus"
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
    first = run(RunPlan.of(corpora[:1], IMPLS[1:], levels=("corpus", "segment"), results=cache, library_segments=SAMPLE, seed=3))  # fmt: skip
    whole = run(RunPlan.of(corpora[:1], IMPLS[1:], levels=("corpus", "segment"), results=cache))
    assert len(first) == 1 + SAMPLE and len(whole) == 1 + SEGMENTS


def test_report_says_what_the_libraries_ran_on(
    corpora, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    for _, system, corpus in corpora:
        path = tmp_path / f"{system}.txt"
        path.write_text("".join(f"{h}\n" for h in corpus.hypotheses), encoding="utf-8")
        files.append(str(path))
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"{r[0]}\n" for r in corpora[0][2].references), encoding="utf-8")
    out = tmp_path / "rep"
    argv = ["report", *files, "--refs", str(ref), "--impl", "profile:sacrebleu",
            "--impl", "adapter:sacrebleu", "--no-cache", "--quiet", "--formats", "md",
            "--n-boot", "0", "--library-segments", str(SAMPLE), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    share = f"{2 * SAMPLE / (2 * SEGMENTS):.0%}"
    assert (
        f"at segment level on a seeded sample of {2 * SAMPLE} of the {2 * SEGMENTS} segments "
        f"({share};"
    ) in text
    capsys.readouterr()
    for bad in ("0", "-3", "some"):
        with pytest.raises(SystemExit):
            main([*argv[:-4], "--library-segments", bad, "--out", str(tmp_path / "x")])
        assert "expected a positive number or 'all'" in capsys.readouterr().err
