"""The report: the analysis step (:func:`harness.analysis.study.analyse`), its typed object,
the renderers of :mod:`harness.report` and the atomic writer."""

from __future__ import annotations

import json
import os
import struct
import zlib
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.analysis.attribution import attribute
from harness.analysis.significance import DEFAULT_SEED
from harness.analysis.study import ReportOptions, analyse
from harness.analysis.study_families import answer_of
from harness.analysis.study_pairs import default_pairs
from harness.analysis.study_types import PrecomputedSignificance, Significance
from harness.analysis.why import Why
from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.data.fixtures import load_fixture
from harness.errors import ConfigError, InputError
from harness.report import (
    SCHEMA_FILE,
    SCHEMA_VERSION,
    TOP_KEYS,
    render_json,
    render_markdown,
    render_schema,
    write_report,
)
from harness.report.answer_words import family_lines, findings
from harness.report.outdir import MANIFEST, read_manifest
from harness.run import RunPlan, run, runner
from harness.run.plan import named_corpora
from harness.session import Session
from harness.typed_json import to_json

FIXTURES = ("google_nasa_opportunity", "silence_pitfall")
IMPLS = ("profile:sacrebleu", "profile:nltk", "profile:evaluate", "adapter:nltk")


@pytest.fixture(scope="module")
def corpora():
    out = []
    for name in FIXTURES:
        fx = load_fixture(name)
        out += fx.triples()
    return out


@pytest.fixture(scope="module")
def rows(corpora):
    impls = [runner.Implementation.parse(x) for x in IMPLS]
    return run(RunPlan.of(corpora, impls, levels=("corpus", "segment"), progress=False))


@pytest.fixture(scope="module")
def significance(corpora):
    from harness.analysis.significance import paired_bootstrap

    cfg = PROFILES["sacrebleu"]
    by_sys = {s: c for f, s, c in corpora if f == "silence_pitfall"}
    stats = {s: engine.compute_statistics(c, cfg) for s, c in by_sys.items()}
    return [paired_bootstrap(stats["A"], stats["B"], cfg, resamples=200, seed=1)]


@pytest.fixture(scope="module")
def human(rows):
    """wmt19-style rows computed from the fixtures' corpus scores against a synthetic 'human'
    column (the renderer needs the shape, not real judgments)."""
    from harness.analysis.human import wmt19_bleu_vs_human

    units = [r for r in rows if r.implementation == "harness:sacrebleu" and r.level == "corpus"]
    systems = [f"{r.fixture}/{r.system}" for r in units]
    bleu = [r.score for r in units]
    nltk = [r.score for r in rows if r.implementation == "nltk" and r.level == "corpus"]
    table = {
        "xx-yy": {
            "systems": systems,
            "scores": {
                "HUMAN": [b / 100 + 0.01 * i for i, b in enumerate(bleu)],
                "BLEU": bleu,
                "nltk-BLEU": nltk,
            },
        }
    }
    return wmt19_bleu_vs_human(table=table, metrics=("BLEU", "nltk-BLEU"), n_boot=50, seed=0)


def analysed(rows, corpora=(), human=None, significance=None, **options):
    """The report of ``rows``, analysed with a session over ``corpora`` (triples) as the
    :class:`ReportOptions` named by ``options`` ask."""
    return analyse(
        rows,
        Session(named_corpora(corpora)),
        options=ReportOptions(**options),
        human=human,
        significance=significance,
    )


@pytest.fixture(scope="module")
def report(rows, corpora, human, significance):
    return analysed(rows, corpora=corpora, human=human, significance=significance)


@pytest.fixture(scope="module")
def written(report, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "out"
    paths = write_report(report, out)
    return out, paths


# ---------------------------------------------------------------------- the object
def test_report_json_names_its_schema_and_leaves_the_table_out(report):
    obj = json.loads(render_json(report))
    assert list(obj) == list(TOP_KEYS)
    assert obj["$schema"] == SCHEMA_FILE == "report.schema.json"
    assert obj["schema_version"] == SCHEMA_VERSION
    assert report.segments.table and "table" not in obj["segments"]
    assert obj == to_json(report)
    schema = json.loads(render_schema())
    assert list(schema["properties"]) == list(TOP_KEYS) == schema["required"]


def test_signature_and_versions(report, rows):
    sig = report.signature
    assert sig.startswith(f"report:{SCHEMA_VERSION}|") and f"|seed:{DEFAULT_SEED}|" in sig
    for r in rows:
        if r.signature:
            assert f"impl:{r.implementation}[{r.signature}]" in sig
    assert report.versions == runner.versions()
    assert sig.endswith(",".join(f"{k}={v}" for k, v in runner.versions().items()))


def test_fixtures_section_lists_scores_from_the_rows(report, rows, corpora):
    assert [(u.fixture, u.system) for u in report.fixtures] == [(f, s) for f, s, _ in corpora]
    for u, (_, _, c) in zip(report.fixtures, corpora, strict=True):
        assert u.segments == len(c)
        assert u.scores["harness:nltk"] == engine.corpus_score(c, PROFILES["nltk"]).score
        assert set(u.status) == {runner.Implementation.parse(x).label for x in IMPLS}


def test_default_pairs(rows, report):
    pairs = default_pairs(rows)
    # the adapter against its own profile first, then sacrebleu against every other one
    assert pairs[0] == ("harness:nltk", "nltk")
    assert pairs[1:] == [
        ("harness:sacrebleu", "harness:nltk"),
        ("harness:sacrebleu", "harness:evaluate"),
        ("harness:sacrebleu", "nltk"),
    ]
    assert [(p.a, p.b) for p in report.pairs] == pairs
    assert report.pairs[0].agree is True  # nltk == its profile on these fixtures


def test_pairs_are_differences(report, rows, corpora):
    from harness.analysis.difference import difference

    cmap = {(f, s): c for f, s, c in corpora}
    expected = difference(rows, "harness:sacrebleu", "harness:nltk", top=5, corpus=cmap)
    d = json.loads(json.dumps(to_json(expected)))
    d.pop("segment_scores")  # schema 2: in the segment table
    got = to_json(report.pairs[1])
    assert (got.pop("verdict"), got.pop("na_reason")) == ("disagree", None)
    assert (got.pop("compared"), got.pop("not_compared")) == (len(corpora), 0)
    assert got == d


def test_segment_table_holds_every_segment_row(report, rows):
    seg = report.segments
    segment_rows = [r for r in rows if r.level == "segment"]
    assert seg.n_rows == len(segment_rows) > 0
    table = seg.table
    assert table["implementation"] == [r.implementation for r in segment_rows]
    assert table["score"] == [r.score if r.status == "ok" else None for r in segment_rows]
    assert "segment_scores" not in to_json(report.pairs[0])


def test_chosen_pairs_and_sections(rows):
    rep = analysed(rows, pairs=[("profile:nltk", "profile:evaluate")], include=("pairs",))
    assert list(to_json(rep)) == list(TOP_KEYS)
    assert [(p.a, p.b) for p in rep.pairs] == [("harness:nltk", "harness:evaluate")]
    assert rep.attributions == () and rep.human is None and rep.significance is None
    assert rep.correlations.segment is None and rep.correlations.note
    with pytest.raises(ConfigError, match="section"):
        analysed(rows, include=("pairs", "charts"))
    with pytest.raises(ConfigError, match="no rows"):
        analysed(rows, pairs=[("profile:nltk", "profile:torchmetrics")])


def test_correlations(report, rows):
    corr = report.correlations
    assert set(to_json(corr)) == {"segment", "corpus", "note"}
    from harness.analysis.pivot import from_results
    from harness.statistics.correlation_cells import correlation_matrix

    seg = corr.segment
    pivot = from_results(rows, "segment")
    assert seg is not None and seg.n_keys == len(pivot.keys)
    m = seg.matrices["pearson"]
    assert set(m.names) == set(pivot.scores)
    direct = correlation_matrix(dict(pivot.scores), "pearson").values
    for a in m.names:
        for b in m.names:
            assert m.values[a][b] == (
                pytest.approx(direct[a][b]) if direct[a][b] is not None else None
            )


def test_attributions_take_the_library_score_from_the_rows(rows, corpora, monkeypatch):
    from harness.analysis import attribution

    def no_library(name, **_):  # type: ignore[no-untyped-def]
        raise AssertionError(f"{name} was run again")

    monkeypatch.setattr(attribution, "get_adapter", no_library)
    ats = analysed(rows, corpora=corpora, include=("attributions",)).attributions
    assert any(at.library == "nltk" and at.residual is not None for at in ats)


def test_attributions_only_with_corpora(rows, report, corpora):
    assert analysed(rows, include=("attributions",)).attributions == ()
    ats = report.attributions
    assert ats, "corpora were given"
    for at in ats:
        assert at.error is None and at.library_error is None
        corpus = next(c for f, s, c in corpora if (f, s) == (at.fixture, at.system))
        assert at.score_a == engine.corpus_score(corpus, PROFILES[at.a]).score
        assert at.score_b == engine.corpus_score(corpus, PROFILES[at.b]).score
        assert sum(at.factors.values()) == pytest.approx(at.gap, abs=1e-9)
    # nltk has an adapter in the rows: its residual is reported (0: the profile is exact)
    nltk = [at for at in ats if at.b == "nltk"]
    assert nltk and all(at.residual == pytest.approx(0, abs=1e-9) for at in nltk)
    # ... taken from its row, which equals the library run afresh
    for at in nltk:
        corpus = next(c for f, s, c in corpora if (f, s) == (at.fixture, at.system))
        row = next(
            r
            for r in rows
            if (r.implementation, r.level, r.fixture, r.system)
            == ("nltk", "corpus", at.fixture, at.system)
        )
        fresh = attribute(corpus, at.a, "nltk", library="nltk", session=Session())
        assert at.library_score == row.score == fresh.library_score
        assert at.residual == fresh.residual


def test_human_and_significance_are_stored_as_given(report, human, significance):
    assert report.human.results == json.loads(json.dumps(human))
    # every coefficient of every row given, as a typed correlation the report shows
    given = [
        (f"{row['lp']} {row['metric']}", m, row)
        for row in json.loads(json.dumps(human))
        for m in ("pearson", "spearman", "kendall")
        if row.get(m) is not None
    ]
    shown = {(c.label, c.series): c for c in report.human.correlations}
    assert len(shown) == len(report.human.correlations) == len(given) > 0
    for label, m, row in given:
        c = shown[(label, m)]
        assert (c.value, c.ci_low, c.ci_high, c.interval) == (
            row[m],
            row[f"{m}_ci_low"],
            row[f"{m}_ci_high"],
            row[f"{m}_interval"],
        )
    assert isinstance(report.significance, PrecomputedSignificance)
    assert report.significance.precomputed == [to_json(s) for s in significance]
    assert to_json(report)["significance"] == {"precomputed": [to_json(s) for s in significance]}


def test_default_significance_tests_every_system_against_the_best(rows, corpora):
    from harness.analysis.significance import paired_bootstrap

    rep = analysed(rows, corpora=corpora, include=("significance",), seed=3)
    sig = rep.significance
    assert isinstance(sig, Significance)
    assert sig.note == () and sig.method == "paired-bootstrap"
    assert sig.design == "against-best"
    # both fixtures have two systems; every in-house profile of the rows is tested, the
    # baseline being the system that profile scores highest
    units = list(rep.fixtures)
    expected = []
    for f in ("google_nasa_opportunity", "silence_pitfall"):
        for p in ("sacrebleu", "nltk", "evaluate"):
            scores = {u.system: u.scores[f"harness:{p}"] for u in units if u.fixture == f}
            best = max(scores, key=lambda s: scores[s])
            (other,) = [s for s in scores if s != best]
            expected.append((f, best, other, p))
    assert [(r.fixture, r.baseline, r.system, r.profile) for r in sig.results] == expected
    assert all(r.delta <= 0 for r in sig.results)
    got = sig.results[4]
    base, other = got.baseline, got.system
    cmap = {(f, s): c for f, s, c in corpora}
    cfg = PROFILES["nltk"]
    direct = paired_bootstrap(
        engine.compute_statistics(cmap[("silence_pitfall", base)], cfg),
        engine.compute_statistics(cmap[("silence_pitfall", other)], cfg),
        cfg,
        resamples=1000,
        seed=3,
    )
    assert got.p_value == direct.p_value and got.delta == direct.delta
    # from a results table (no corpora) it says why not and how
    no = analysed(rows, include=("significance",)).significance
    assert isinstance(no, Significance)
    assert no.results == () and no.note == (Why("without-corpora"),)
    said = render_markdown(analysed(rows, include=("significance",)))
    assert "without the corpora (from a results table)" in said
    assert "bleu-harness significance" in said


def _section_sentences(text: str, start: str, stop: str) -> list[str]:
    """The prose of one section (between two headings): its lines that are not table rows,
    tags removed and entities decoded."""
    import html
    import re

    body = text[text.index(start) + len(start) :]
    body = body[: body.index(stop)] if stop in body else body
    body = re.sub(r"<table.*?</table>", "", body, flags=re.S)
    lines = re.sub(r"<[^>]+>", "\n", body).splitlines()
    return [html.unescape(x).strip() for x in lines if x.strip() and not x.startswith("|")]


@pytest.mark.parametrize("computed", [True, False])
def test_significance_says_the_same_in_markdown_and_html(rows, corpora, computed):
    """One render path: the section's sentences are written once, for both documents."""
    from harness.report.html import render_html

    extra = {"corpora": corpora} if computed else {}
    rep = analysed(rows, include=("significance",), **extra)
    md = _section_sentences(render_markdown(rep), "## Significance", "\n## ")
    page = _section_sentences(render_html(rep, []), "<h2>Significance</h2>", "<h2>")
    assert md == page and md
    if computed:
        assert md[0].startswith("Paired bootstrap (Koehn 2004; 1000 resamples")
    else:
        assert md[0].startswith("Not computed: the report was built without the corpora")


def test_empty_sections_say_the_same_in_markdown_and_html(rows):
    from harness.report.html import render_html
    from harness.report.summary import EMPTY_SECTION

    rep = analysed(rows)  # from the rows alone: no attributions, no human judgments
    md, page = render_markdown(rep), render_html(rep, [])
    said = [x for x in EMPTY_SECTION.values() if x in md]
    assert EMPTY_SECTION["attributions"] in said and EMPTY_SECTION["human"] in said
    assert all(escape(x) in page for x in said)


def test_correlation_and_attribution_sentences_are_in_both_documents(report):
    from harness.report.html import _HTML, render_html
    from harness.report.markdown import _MD
    from harness.report.summary import attribution_intro, correlation_caption, lowest_correlation
    from harness.report.tables import correlation_tables

    md, page = render_markdown(report), render_html(report, [])
    for words in (lowest_correlation, attribution_intro):
        said = words(report, _MD)
        assert said and said in md
        assert words(report, _HTML) in page
    captions = [correlation_caption(*t[:3]) for t in correlation_tables(report)]
    assert captions
    for caption in captions:
        rest = caption.partition(": ")[2]
        assert rest in md and escape(rest) in page


# ---------------------------------------------------------------------- markdown
def test_markdown(report):
    md = render_markdown(report)
    for heading in (
        "# BLEU harness report",
        "## Pairs",
        "## Correlations",
        "## Attributions",
        "## Human judgments",
        "## Significance",
    ):
        assert heading in md
    assert report.signature in md
    assert md.index("## Summary") < md.index("## Corpus-level") < md.index("Signature:")
    assert "| statistic | harness:sacrebleu | harness:nltk |" in md
    assert "paired-bootstrap" in md


# ---------------------------------------------------------------------- writing
class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.imgs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        for key in ("src", "href"):
            if d.get(key) is not None:
                self.refs.append(d[key])
        if tag == "img":
            self.imgs.append(d)


def _check_png(path: Path) -> tuple[int, int]:
    """Walk every chunk and its CRC; return (width, height)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, seen = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, (path, kind)
        seen.append(kind)
        pos += 12 + length
    assert seen[0] == b"IHDR" and seen[-1] == b"IEND" and b"IDAT" in seen
    width, height = struct.unpack(">II", data[16:24])
    assert width > 0 and height > 0
    return width, height


def test_write_report_writes_every_format(written, report):
    out, paths = written
    names = {p.name for p in paths}
    assert {"report.md", "report.json", SCHEMA_FILE, "index.html"} <= names
    assert all(p.parent == out and p.is_file() for p in paths)
    assert sorted(os.listdir(out)) == sorted({*names, MANIFEST})
    assert read_manifest(out) == sorted(names)  # the manifest lists exactly what was written
    assert (out / "report.json").read_text(encoding="utf-8") == render_json(report)
    assert (out / SCHEMA_FILE).read_text(encoding="utf-8") == render_schema()
    import pyarrow.parquet as pq

    table = pq.read_table(out / "segments.parquet").to_pydict()
    mem = report.segments.table
    assert len(table["score"]) == report.segments.n_rows == len(mem["score"])
    assert table == {c: mem[c] for c in report.segments.columns}
    assert not (out / "segments.csv").exists()  # written only with the csv format
    assert (out / "report.md").read_text(encoding="utf-8") == render_markdown(report)
    pngs = sorted(p for p in paths if p.suffix == ".png")
    kinds = {p.name.split("-")[1] for p in pngs}
    assert kinds == {"scatter", "attribution", "human"}
    # the gap matrix is a table with a value in every off-diagonal cell, not an image
    html = (out / "index.html").read_text(encoding="utf-8")
    matrix = html[
        html.index('<table id="gap-matrix">') : html.index(
            "</table>", html.index('<table id="gap-matrix">')
        )
    ]
    assert matrix.count("<tr>") >= 3 and "+" in matrix and "background:rgb(" in matrix
    for p in pngs:
        _check_png(p)
    import matplotlib.image

    assert matplotlib.image.imread(pngs[0]).ndim == 3


def test_html_references_only_files_that_exist(written):
    out, paths = written
    text = (out / "index.html").read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(text)
    assert parser.imgs and len(parser.imgs) == sum(p.suffix == ".png" for p in paths)
    for ref in parser.refs:
        assert "://" not in ref and not ref.startswith("//"), ref
        assert (out / ref).is_file(), ref
    for img in parser.imgs:
        assert img.get("alt") and len(img["alt"]) > 40
    assert "http://" not in text and "https://" not in text and "<script" not in text


def test_refuses_a_foreign_file_even_with_force(report, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    for force in (False, True):
        with pytest.raises(InputError, match="did not write") as info:
            write_report(report, out, formats=("json",), force=force)
        assert str(out) in str(info.value) and "keep.txt" in str(info.value)
        assert os.listdir(out) == ["keep.txt"] and (out / "keep.txt").read_text() == "mine"


def test_force_replaces_only_an_earlier_report(report, tmp_path):
    out = tmp_path / "rep"
    write_report(report, out, formats=("md",))
    with pytest.raises(InputError, match="--force"):
        write_report(report, out, formats=("json",))
    segment_files = [x for x in (report.segments.file, report.segments.csv) if x]
    assert sorted(os.listdir(out)) == sorted([MANIFEST, "report.md", *segment_files])
    paths = write_report(report, out, formats=("json",), force=True)
    expected = ["report.json", SCHEMA_FILE, *segment_files]
    # the old report.md is gone; the manifest lists exactly what this run wrote
    assert sorted(os.listdir(out)) == sorted([*expected, MANIFEST])
    assert sorted(p.name for p in paths) == sorted(expected) == sorted(read_manifest(out))
    assert os.listdir(tmp_path) == ["rep"]  # no temporary or backup directory left


def test_an_empty_directory_is_fine_and_a_file_is_not(report, tmp_path):
    (tmp_path / "empty").mkdir()
    write_report(report, tmp_path / "empty", formats=("md",))
    listing = os.listdir(tmp_path / "empty")
    assert "report.md" in listing and MANIFEST in listing
    assert not {"report.json", "index.html"} & set(listing)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        write_report(report, tmp_path / "file", force=True)
    with pytest.raises(ConfigError, match="format"):
        write_report(report, tmp_path / "x", formats=("pdf",))
    with pytest.raises(InputError, match="not a report"):
        write_report({"pairs": []}, tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.fixture(scope="module")
def small_report(rows):
    return analysed(rows, pairs=[("profile:sacrebleu", "profile:nltk")], include=("pairs",))


@pytest.mark.parametrize(
    "module, function",
    [("markdown", "render_markdown"), ("figures", "render_figures"), ("html", "render_html")],
)
@pytest.mark.parametrize("existing", [False, True])
def test_a_failing_renderer_leaves_nothing_partial(
    small_report, tmp_path, monkeypatch, existing, module, function
):
    import importlib

    def boom(*args, **kwargs):
        raise RuntimeError("renderer failed")

    out = tmp_path / "rep"
    if existing:  # an earlier report, which --force may replace
        write_report(small_report, out, formats=("json",))
        before = {n: (out / n).read_bytes() for n in os.listdir(out)}
    monkeypatch.setattr(importlib.import_module(f"harness.report.{module}"), function, boom)
    with pytest.raises(RuntimeError, match="renderer failed"):
        write_report(small_report, out, force=True)
    if existing:
        assert {n: (out / n).read_bytes() for n in os.listdir(out)} == before
    else:
        assert not out.exists()
    assert os.listdir(tmp_path) == (["rep"] if existing else [])


@pytest.mark.parametrize("step", ["folder created", "folder locked"])
def test_a_stop_just_after_the_folder_is_made_or_locked_leaves_nothing(tmp_path, monkeypatch, step):
    """A stop signal that lands right after ``mkdir`` (or ``flock``) returns, before the
    output directory has recorded what it made, still removes the folder it made."""
    import fcntl
    import signal

    from harness import interrupts
    from harness.report import outdir

    def then_stopped(real):
        def step_then_stop(*args, **kwargs):
            result = real(*args, **kwargs)
            interrupts.handler(signal.SIGTERM, None)  # as the signal would, here
            return result

        return step_then_stop

    if step == "folder created":
        monkeypatch.setattr(outdir.Path, "mkdir", then_stopped(Path.mkdir))
    else:
        monkeypatch.setattr(fcntl, "flock", then_stopped(fcntl.flock))
    out = tmp_path / "new" / "rep"
    try:
        with pytest.raises(KeyboardInterrupt), outdir.OutputDir(out, force=False, command="t"):
            pytest.fail("the block ran although the stop came first")
    finally:
        interrupts.reset()
    assert os.listdir(tmp_path) == []


def test_report_without_segments_or_corpora(corpora, tmp_path):
    impls = [runner.Implementation.parse(x) for x in ("profile:sacrebleu", "profile:nltk")]
    rows = run(RunPlan.of(corpora[:1], impls, levels=("corpus",), progress=False))
    rep = analysed(rows)
    json.loads(render_json(rep))
    assert rep.attributions == () and rep.correlations.segment is None
    paths = write_report(rep, tmp_path / "r")
    names = {p.name for p in paths}
    assert not any("scatter" in n for n in names)
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert '<table id="gap-matrix">' in html and "−" in html


def test_summary_headline_names_the_largest_gap_and_its_factor(report):
    gaps = [
        (abs(g.gap), p.a, p.b, g.fixture, g.system)
        for p in report.pairs
        for g in p.corpora
        if g.gap is not None
    ]
    top = max(x[0] for x in gaps)
    _, a, b, f, s = next(x for x in gaps if x[0] == top)  # the first of ties, in pair order
    head = report.summary.largest_gap
    assert (head.a, head.b, head.fixture, head.system) == (a, b, f, s)
    ex = head.explained_by
    bare = a.removeprefix("harness:"), b.removeprefix("harness:")
    ats = [at for at in report.attributions if (at.a, at.b) == bare]
    if not ats:
        assert ex is None
        return
    at = next((x for x in ats if (x.fixture, x.system) == (f, s)), ats[0])
    assert (ex.fixture, ex.system) == (at.fixture, at.system)
    assert abs(ex.points) == max(abs(v) for v in at.factors.values())
    assert at.factors[ex.factor] == ex.points


def test_answer_and_headline_for_systems_that_share_references(tmp_path):
    """Systems scored against the same references get compare's answer first: families of
    equal numbers, the cause of each gap in words, the ranking; a 4-gram-only profile is
    never the headline, and the real library is one line ("1/1 ... equal")."""
    fx = load_fixture("silence_pitfall")
    corpora = fx.triples()
    specs = ("profile:sacrebleu", "adapter:sacrebleu", "profile:nltk", "profile:helm-bleu-4")
    impls = [runner.Implementation.parse(x) for x in specs]
    rows = run(RunPlan.of(corpora, impls, levels=("corpus",), progress=False))
    rep = analysed(rows, corpora=corpora)
    ans = rep.answer
    assert ans is not None and ans.fixture == "silence_pitfall"
    said = findings(answer_of(ans))
    assert said
    assert rep.summary.answer_note is None
    assert to_json(rep.summary.libraries) == {
        "equal": ["sacrebleu"],
        "differ": [],
        "not_run": [],
        "segments_run": 0,  # corpus level only
        "segments": 0,
        "corpora_run": [f"silence_pitfall/{s}" for s in fx.system_names],
        "corpora": len(fx.system_names),
        "seed": DEFAULT_SEED,
        "disagreements": [],
        "corpus_sample": False,
    }
    gap = rep.summary.largest_gap
    assert gap is not None and "helm-bleu-4" not in (gap.a + gap.b)
    lines = family_lines(answer_of(ans))
    rows_text = {r.names: r for r in lines}
    assert rows_text["sacrebleu (ran: =)"].baseline
    assert not next(r for r in lines if "helm-bleu-4" in r.names).bleu4
    paths = write_report(rep, tmp_path / "r")
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    summary = html[html.index('<section id="summary">') : html.index("</section>")]
    for sentence in said:
        assert escape(sentence) in summary
    assert '<table id="families">' in summary and "helm-bleu-4" in summary
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert said[0] in md
    assert paths


def test_fixtures_that_do_not_share_references_say_why_there_is_no_answer(report):
    assert report.answer is None
    assert report.summary.answer_note == Why("not-shared")
    assert "do not share references" in render_markdown(report)


def test_significance_of_a_chosen_pair(rows, corpora):
    rep = analysed(rows, corpora=corpora, include=("significance",), significance_pair=("B", "A"))
    sig = rep.significance
    assert isinstance(sig, Significance)
    assert sig.design == "pair" and sig.note == ()
    assert {(r.fixture, r.baseline, r.system) for r in sig.results} == {
        ("silence_pitfall", "B", "A")
    }
    assert "the chosen pair" in render_markdown(rep)
    none = analysed(
        rows, corpora=corpora, include=("significance",), significance_pair=("A", "nope")
    ).significance
    assert isinstance(none, Significance)
    assert none.results == () and none.note == (Why("no-fixture-with-pair", ("A", "nope")),)


def test_cli_significance_pair(tmp_path, capsys):
    from harness.cli.app import main

    out = tmp_path / "r"
    argv = ["report", "--out", str(out), "--fixture", "silence_pitfall", "--level", "corpus"]
    argv += ["--impl", "profile:sacrebleu", "--significance-pair", "A", "B", "--no-progress"]
    assert main([*argv, "--formats", "json"]) == 0
    sig = json.loads((out / "report.json").read_text(encoding="utf-8"))["significance"]
    assert sig["design"] == "pair"
    assert [(r["baseline"], r["system"]) for r in sig["results"]] == [("A", "B")]


def test_correlation_caption_names_each_kind_of_interval():
    """A matrix whose cells differ in size says which cells have a bootstrap and which an
    asymptotic interval, with the counts of its own cells; one kind is named alone."""
    from harness.analysis.study_types import CorrelationTable, LevelCorrelations
    from harness.report.summary import correlation_caption
    from harness.statistics.correlation import KENDALL_FULL_BOOT_MAX
    from harness.statistics.correlation_cells import correlation_matrix
    from harness.typed_json import from_json

    rng = np.random.default_rng(8)
    n = KENDALL_FULL_BOOT_MAX + 50
    x = rng.normal(size=n)
    scores = {
        "x": x,
        "y": x + rng.normal(size=n),
        "short": np.where(np.arange(n) < KENDALL_FULL_BOOT_MAX - 100, x, np.nan),
    }

    def caption(method: str, n_boot: int) -> str:
        m = correlation_matrix(scores, method, n_boot=n_boot, seed=2)
        table = from_json(CorrelationTable, to_json(m), "table")
        return correlation_caption("segment", method, LevelCorrelations(n, 0, {method: table}))

    small = sum(  # cells with at most KENDALL_FULL_BOOT_MAX complete pairs
        int((np.isfinite(scores[a]) & np.isfinite(scores[b])).sum()) <= KENDALL_FULL_BOOT_MAX
        for a, b in (("x", "y"), ("x", "short"), ("y", "short"))
    )
    assert small == 2
    assert caption("kendall", 30).endswith(
        f"bootstrap n_boot=30, seed=2 for the {small} pairs of implementations with at most "
        f"{KENDALL_FULL_BOOT_MAX} segments, asymptotic (delta method) intervals for the "
        f"{3 - small} with more."
    )
    assert caption("pearson", 30).endswith("skipped; bootstrap n_boot=30, seed=2.")
    assert caption("kendall", 0).endswith("skipped; no intervals.")
    del scores["short"]
    assert caption("kendall", 30).endswith("skipped; asymptotic (delta method) intervals.")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["f1", "f2"]),
            st.sampled_from(["s1", "s2"]),
            st.sampled_from(["0", "1", "2"]),
            st.sampled_from(["a", "b", "c"]),
            st.one_of(st.none(), st.floats(0, 100)),
        ),
        max_size=40,
    )
)
def test_scatter_points_are_the_segments_both_implementations_scored(rows) -> None:
    """A scatter's points: per segment (in the order its first row of either side comes), the
    two sides' scores where both have one; the last row of a side counts."""
    from types import SimpleNamespace

    from harness.report.figures import pair_points

    columns = ("fixture", "system", "segment_id", "implementation", "score")
    table = {c: [r[k] for r in rows] for k, c in enumerate(columns)}
    report = SimpleNamespace(segments=SimpleNamespace(table=table))
    keys, a, b = [], {}, {}
    for f, s, sid, impl, score in rows:
        if impl in ("a", "b") and score is not None:
            if (f, s, sid) not in keys:
                keys.append((f, s, sid))
            (a if impl == "a" else b)[(f, s, sid)] = score
    both = [k for k in keys if k in a and k in b]
    assert pair_points(report, "a", "b") == ([a[k] for k in both], [b[k] for k in both])
