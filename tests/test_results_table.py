"""The run's results table as typed columns (:mod:`harness.run.results`).

An in-house profile's segment rows are built from the engine's arrays, without a result object
per segment. They must be the very rows the general path writes — each segment's
:class:`~harness.bleu.result.BleuResult` from :func:`harness.scorers.score` turned into a row —
for every profile, on generated corpora with empty lines, ragged references and the inputs
some libraries refuse or score as nan; and the columns must hold what the rows hold.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.run import RunPlan, run, runner
from harness.run.library_sample import LibrarySample
from harness.run.results import (
    FLOAT_FIELDS,
    ROW_FIELDS,
    BlockOwner,
    Kind,
    Level,
    ResultRow,
    Results,
    SegmentArrays,
    Status,
    row_from_json,
    row_to_json,
    segment_block,
)
from harness.scorers import EngineScorer, score
from harness.statistics.resampling import DEFAULT_SEED
from harness.typed_json import to_json

from .depth import examples
from .strategies import corpora

# drawn corpora give nltk's zero-count warnings and the like
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _general_rows(corpus: Corpus, profile: str) -> list[ResultRow]:
    """The segment rows the runner writes for any scorer: one per result, or one saying why
    there is none."""
    impl = runner.Implementation("profile", profile)
    outcome = score(EngineScorer(profile, name=impl.label), corpus, level="segment")
    return runner._rows("fx", "sys", impl, "segment", outcome)


@pytest.mark.parametrize("profile", list(PROFILES))
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=corpora(max_segments=8))
def test_engine_segment_rows_equal_the_general_path(profile: str, drawn: Any) -> None:
    hyps, refs = drawn
    corpus = Corpus(hypotheses=tuple(hyps), references=tuple(tuple(r) for r in refs))
    impl = runner.Implementation("profile", profile)
    got = runner.run_one(corpus, impl, fixture="fx", system="sys", levels=("segment",))
    want = _general_rows(corpus, profile)
    assert got.rows() == want
    # the same values and types, field by field (1 == 1.0 would hide an int turned float)
    for a, b in zip(got.rows(), want, strict=True):
        assert type(a) is ResultRow
        assert [type(getattr(a, k)) for k in ROW_FIELDS] == [
            type(getattr(b, k)) for k in ROW_FIELDS
        ]


def test_the_columns_hold_the_rows() -> None:
    corpus = Corpus(
        hypotheses=("the cat sat", "", "a dog"),
        references=(("the cat sat down",), ("nothing",), ("a dog",)),
    )
    impls = [runner.Implementation("profile", p) for p in ("sacrebleu", "nltk", "keras-hub")]
    impls.append(runner.Implementation("adapter", "sacrebleu"))
    table = run(RunPlan.of([("fx", "sys", corpus)], impls, levels=("corpus", "segment")))
    rows = table.rows()
    assert len(table) == len(rows) == len(impls) * 4
    for name in ROW_FIELDS:
        column = table.column(name)
        values = [getattr(r, name) for r in rows]
        if name in FLOAT_FIELDS:
            assert column.dtype == np.float64
            assert [None if math.isnan(v) else v for v in column.tolist()] == values
        else:
            assert column.tolist() == values
    assert table.corpus_rows() == [r for r in rows if r.level == "corpus"]
    seg = table.segment_scores("harness:nltk")
    mine = [r for r in rows if r.implementation == "harness:nltk" and r.level == "segment"]
    assert seg.keys == [(r.fixture, r.system, r.segment_id) for r in mine]
    assert seg.status.tolist() == [r.status for r in mine]
    # a table read back from its rows is the same table
    again = Results.from_rows(rows)
    assert again == table and again.rows() == rows
    assert runner.rows_to_jsonl(again) == runner.rows_to_jsonl(table)


def test_rows_are_typed_and_written_as_before() -> None:
    """Rows are frozen objects with enums and integer tuples; their JSON keeps the strings
    a results file has always had (``"kind": "profile"``, ``"counts": "8 4 2 0"``), and reads
    back to the same rows."""
    corpus = Corpus(hypotheses=("the cat sat", ""), references=(("the cat sat down",), ("x",)))
    impls = [runner.Implementation("profile", "sacrebleu")]
    impls.append(runner.Implementation("adapter", "sacrebleu"))
    table = run(RunPlan.of([("fx", "sys", corpus)], impls, levels=("corpus", "segment")))
    for row in table:
        assert type(row) is ResultRow
        assert type(row.status) is Status and type(row.level) is Level and type(row.kind) is Kind
        with pytest.raises(dataclasses.FrozenInstanceError):
            row.score = 0.0  # type: ignore[misc]
        assert row.counts is None or all(type(c) is int for c in row.counts)
        line = json.loads(runner.rows_to_jsonl([row]))
        assert list(line) == list(ROW_FIELDS)
        assert line["kind"] == str(row.kind) and line["status"] == str(row.status)
        want = None if row.counts is None else " ".join(str(c) for c in row.counts)
        assert line["counts"] == want
        assert row_from_json(line) == row == row_from_json(line, checked=False)
        assert row_to_json(row) == to_json(row) == line  # the generic serialiser's form
    assert {r.kind for r in table} == {Kind.PROFILE, Kind.ADAPTER}


def test_a_run_plan_is_checked_once_and_runs_what_it_says() -> None:
    from harness.data.fixtures import load_fixture
    from harness.errors import ConfigError
    from harness.run.plan import RunPlan
    from harness.session import Session

    fx = load_fixture("silence_pitfall")
    plan = RunPlan.of(fx.triples(), ["sacrebleu", "profile:nltk", "adapter:sacrebleu"])
    assert [i.label for i in plan.implementations] == [
        "harness:sacrebleu",
        "harness:nltk",
        "sacrebleu",
    ]
    table = run(plan)
    direct = run(RunPlan.of(fx.triples(), list(plan.implementations), progress=False))
    assert table == direct
    # the plan is the run's only input, and its seed the package's one default
    assert list(inspect.signature(run).parameters) == ["plan"]
    assert plan.seed == DEFAULT_SEED
    # the analysis reads the statistics the run counted: one cache
    session = plan.corpus_session()
    assert session.cache is plan.session.cache
    assert set(session.corpora) == {f"{fx.name}/{s}" for s in fx.system_names}
    with pytest.raises(ConfigError, match="unknown level"):
        RunPlan.of(fx.triples(), ["sacrebleu"], levels=("document",))
    with pytest.raises(ConfigError, match="two corpora are named"):
        RunPlan.of([*fx.triples(), fx.triples()[0]], ["sacrebleu"])
    with pytest.raises(ConfigError, match="segments must be a positive number"):
        RunPlan.of(fx.triples(), ["sacrebleu"], libraries=LibrarySample(segments=0))
    with pytest.raises(ConfigError, match="systems must be a positive number"):
        RunPlan.of(fx.triples(), ["sacrebleu"], libraries=LibrarySample(systems=0))
    with pytest.raises(ConfigError, match="libraries must be a LibrarySample"):
        RunPlan.of(fx.triples(), ["sacrebleu"], libraries=3)
    assert RunPlan.of(fx.triples(), ["sacrebleu"], session=Session(jobs=2)).session.backend == (
        "processes"
    )


def _edge_block(segment_ids: list[Any], fixture: str, system: str) -> Results:
    """A segment block with a non-finite score, bp and ratio, and the given segment ids."""
    n = len(segment_ids)
    rng = np.random.default_rng(DEFAULT_SEED)
    score = rng.uniform(0, 100, n)
    score[1] = np.nan
    score[2] = np.inf
    bp = rng.uniform(0, 1, n)
    bp[0] = np.nan
    ratio = rng.uniform(0, 2, n)
    ratio[3] = -np.inf
    counts = rng.integers(0, 9, (n, 4))
    return segment_block(
        BlockOwner(fixture, system, "harness:x", "x", "sig|é"),
        SegmentArrays(
            segment_ids=segment_ids,
            score=score,
            bp=bp,
            ratio=ratio,
            hyp_len=[int(x) for x in rng.integers(0, 30, n)],
            ref_len=[float(x) for x in rng.uniform(0, 30, n)],
            counts=counts,
            totals=counts + 1,
        ),
    )


@pytest.mark.parametrize(
    ("segment_ids", "fixture", "system"),
    [
        (list(range(6)), "fx", "sys"),
        (["a", "b,c", 'q"uote', "", "é{}", "x"], "fx, {a}", 'sys "b"'),
        ([0, "1", None, 3, "new\nline", 5], "fx", "sys"),
        (list(range(6)), "fx", "sys\r\nb"),
    ],
)
def test_a_table_is_written_from_its_columns_as_its_rows_are(
    segment_ids: list[Any], fixture: str, system: str
) -> None:
    """results.jsonl and results.csv written from a table's columns are the bytes its rows
    give one by one, and each JSON line is the generic serialiser's object of its row."""
    corpus = Corpus(hypotheses=("the cat sat", ""), references=(("the cat sat down",), ("x",)))
    impls = [runner.Implementation("profile", p) for p in ("sacrebleu", "nltk", "keras-hub")]
    impls.append(runner.Implementation("adapter", "sacrebleu"))
    table = run(RunPlan.of([("fx", "sys", corpus)], impls, levels=("corpus", "segment")))
    table = table + _edge_block(segment_ids, fixture, system)
    rows = list(table.rows())
    assert any(r.status == Status.NON_FINITE for r in rows)
    written = runner.rows_to_jsonl(table)
    assert written == runner.rows_to_jsonl(rows)
    assert runner.rows_to_csv(table) == runner.rows_to_csv(rows)
    lines = written.splitlines()
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows, strict=True):
        assert json.loads(line) == to_json(row)
    fresh = Results.concat([_edge_block(segment_ids, fixture, system)])
    assert runner.rows_to_csv(fresh) == runner.rows_to_csv(list(fresh))
    assert runner.rows_to_jsonl(Results()) == runner.rows_to_jsonl([]) == ""


def test_a_row_is_built_as_the_dataclass_builds_it() -> None:
    """A row takes its fields in order or by name, every one required, and stays frozen."""
    corpus = Corpus(hypotheses=("the cat sat",), references=(("the cat sat down",),))
    table = run(RunPlan.of([("fx", "sys", corpus)], ["sacrebleu"], levels=("segment",)))
    row = table.rows()[0]
    values = [getattr(row, k) for k in ROW_FIELDS]
    assert ResultRow(*values) == row == ResultRow(**dict(zip(ROW_FIELDS, values, strict=True)))
    assert dataclasses.replace(row, score=1.0).score == 1.0
    with pytest.raises(TypeError):
        ResultRow(*values[:-1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.fixture = "other"  # type: ignore[misc]


def _index_by_rows(table: Results, impl: str) -> tuple[Any, ...]:
    """``impl``'s segment index in ``table`` as its rows say, one by one."""
    rows = list(table.rows())
    at = [j for j, r in enumerate(rows) if r.implementation == impl and r.level == "segment"]
    named = [j for j in at if rows[j].segment_id is not None]
    keys = [(str(rows[j].fixture), str(rows[j].system), str(rows[j].segment_id)) for j in named]

    def number(r: ResultRow) -> float:
        ok = r.status == "ok" and r.score is not None and math.isfinite(r.score)
        return float(r.score) if ok and r.score is not None else math.nan

    return (
        keys,
        {k: i for i, k in enumerate(keys)},
        [number(rows[j]) for j in named],
        named,
        {(f, s) for f, s, _ in keys},
        [j for j in at if rows[j].segment_id is None],
    )


def test_a_segment_index_is_its_rows_in_every_table_made_from_the_blocks() -> None:
    """An implementation's segment index, made from each block's part once, is what its rows
    say in the table and in every table selected or joined from it (the parts are shared,
    their places are not)."""
    corpus = Corpus(
        hypotheses=("the cat sat", "", "a b"), references=(("the cat",), ("x",), ("a",))
    )
    other = Corpus(hypotheses=("x y", "z"), references=(("x y z",), ("z",)))
    impls = [runner.Implementation("profile", p) for p in ("sacrebleu", "nltk")]
    impls.append(runner.Implementation("adapter", "sacrebleu"))
    plan = RunPlan.of(
        [("fx", "a", corpus), ("fx", "b", other)], impls, levels=("corpus", "segment")
    )
    table = run(plan) + _edge_block([0, "1", None, 3, "4", None], "fx", "c")
    labels = table.labels()
    assert "harness:x" in labels and len(labels) == 4
    tables = [table]
    for a in labels:
        tables.append(table.select((a,)))
        tables += [Results.concat([table.select((a,)), table.select((b,))]) for b in labels]
    for t in [*tables, *tables]:  # the second time from the blocks' kept parts
        for impl in t.labels():
            ix = t.segment_index(impl)
            keys, position, score, at, corpora, unnamed = _index_by_rows(t, impl)
            assert (ix.keys, ix.position, ix.corpora) == (keys, position, corpora)
            np.testing.assert_array_equal(ix.score, np.array(score, dtype=np.float64))
            assert ix.at.tolist() == at and ix.unnamed.tolist() == unnamed
    assert table.segment_index("harness:x").unnamed.size == 2
