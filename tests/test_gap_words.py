""" "Does the gap matter?" in words (:mod:`harness.report.gap_words`): every claim of the
written report recomputed from the typed facts of its ``report.json`` (and the segment table
beside it) — one count everywhere, no MT-Thresholds sentence for a pair equal at corpus
level, the cards and waterfalls of the pairs the summary names, labels beside names."""

from __future__ import annotations

import contextlib
import dataclasses
import html
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from harness.analysis.attribution import differing_factors, hybrid
from harness.analysis.gap_matters import GAP_REASONS, headline
from harness.analysis.study_types import Report
from harness.api import segment_bleu
from harness.bleu.profiles import LABELS, PROFILES
from harness.cli import main
from harness.data.fixtures import load_fixture
from harness.errors import HarnessError
from harness.report.figures import MAX_WATERFALLS, waterfalls
from harness.report.gap_words import count_words, leading_sentences, pair_finding, pair_sentence
from harness.report.gap_words import named as named_in
from harness.report.text import fmt_share
from harness.report.write import write_report
from harness.typed_json import from_json

#: sacrebleu against a profile it equals at corpus level on this fixture while some segment
#: scores differ (evaluate), one it does not equal (nltk), and two with a label.
IMPLS = "sacrebleu,profile:evaluate,profile:nltk,profile:mteval-v13a,profile:tensor2tensor"
FIXTURE = "forensic_preprocessing"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path, str]:
    """The report of :data:`IMPLS` on :data:`FIXTURE` written by the CLI, read back typed,
    and what the CLI printed."""
    out = tmp_path_factory.mktemp("gap-words") / "rep"
    argv = ["report", "--fixture", FIXTURE, "--impl", IMPLS, "--quiet", "--out", str(out)]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(argv) == 0
    report = from_json(Report, json.loads((out / "report.json").read_text(encoding="utf-8")))
    return report, out, buffer.getvalue()


def _plain_html(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


def _plain_md(text: str) -> str:
    return " ".join(text.replace("**", "").replace("`", "").split())


def test_one_count_in_every_document(written: tuple[Report, Path, str]) -> None:
    """The count is the tally's, the tally is recomputed from the pairs it counts, and the
    console, the Markdown (summary and section) and the HTML page say it in the same words,
    with no other number for it."""
    report, out, console = written
    section = report.gap_matters
    tally = section.tally
    counted = [section.pairs[k] for k in tally.counted]
    assert tally.judged == len(section.pairs) == len(report.pairs)
    assert tally.pairs == len(counted)
    assert tally.matters == sum(p.matters == "yes" for p in counted)
    assert tally.equal_at_corpus == sum(p.reason == "equal-at-corpus" for p in counted)
    assert tally.agree == sum(p.reason == "agree" for p in counted)
    assert tally.not_comparable == sum(p.reason == "not-comparable" for p in counted)
    with_gap = sum(p.reason in GAP_REASONS for p in counted)
    assert tally.matters + tally.does_not_matter == with_gap
    lead, rest = count_words(tally)
    sentence = lead + rest
    md = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "index.html").read_text(encoding="utf-8")
    documents = {
        "console": " ".join(console.split()),
        "md": _plain_md(md),
        "html": _plain_html(page),
    }
    for where, text in documents.items():
        assert sentence in text or sentence[0].upper() + sentence[1:] in text, where
        said = {int(n) for n in re.findall(r"gap matters for (\d+)", text, flags=re.IGNORECASE)}
        assert said == {tally.matters}, where
    summary = _plain_md(md[md.index("## Summary") : md.index("## Corpus-level")])
    section_md = _plain_md(md[md.index("## Does the gap matter?") :])
    assert sentence in summary and sentence[0].upper() + sentence[1:] in section_md


def _moving(profile_a: str, profile_b: str, tolerance: float) -> tuple[str, ...]:
    """The differing factors that alone move a segment score of :data:`FIXTURE`'s systems,
    recounted with the engine: profile a against a with that one factor taken from b."""
    a, b = PROFILES[profile_a], PROFILES[profile_b]
    fixture = load_fixture(FIXTURE)
    out = []
    for factor in differing_factors(a, b):
        moved = hybrid(a, b, [factor])
        for system in fixture.systems:
            corpus = fixture.corpus(system)
            text = {"hypotheses": corpus.hypotheses, "references": corpus.references}
            try:
                mine = segment_bleu(**text, profile=a).score
                theirs = segment_bleu(**text, profile=moved).score
            except HarnessError:
                continue
            if any(abs(x - y) > tolerance for x, y in zip(mine, theirs, strict=True)):
                out.append(factor)
                break
    return tuple(out)


def test_a_pair_equal_at_corpus_level_is_not_judged_by_mt_thresholds(
    written: tuple[Report, Path, str],
) -> None:
    """Every pair whose corpus gaps are all within its tolerance, while its segment scores
    differ, is equal at corpus level: no human agreement, no MT-Thresholds words, and its
    sentence gives the share of segments that differ (recounted from the segment table) and
    the factors in which its profiles differ."""
    report, out, _ = written
    by_names = {(p.a, p.b): p for p in report.pairs}
    table = pq.read_table(out / "segments.parquet").to_pylist()
    scores = {
        (r["implementation"], r["fixture"], r["system"], r["segment_id"]): r["score"]
        for r in table
        if r["score"] is not None
    }
    md = _plain_md((out / "report.md").read_text(encoding="utf-8"))
    equal = 0
    for pair in report.gap_matters.pairs:
        judged = by_names[(pair.a, pair.b)]
        flat = judged.corpus_max_abs is not None and judged.corpus_max_abs <= judged.tolerance
        if judged.verdict != "disagree" or not flat:
            assert pair.reason != "equal-at-corpus"
            continue
        equal += 1
        assert pair.reason == "equal-at-corpus" and pair.matters == "no"
        assert all(f.human_agreement is None for f in pair.fixtures)
        said = pair_sentence(pair)
        assert "MT-Thresholds" not in said and "humans" not in said and said in md
        keys = [k[1:] for k in scores if k[0] == pair.a and (pair.b, *k[1:]) in scores]
        off = sum(abs(scores[(pair.b, *k)] - scores[(pair.a, *k)]) > judged.tolerance for k in keys)
        assert pair.segments == len(keys) and off > 0
        assert f"differ on {fmt_share(off / len(keys))} of the {len(keys):,} segments" in said
        expected = differing_factors(PROFILES[pair.profile_a], PROFILES[pair.profile_b])
        assert pair.factors_differ == expected
        assert all(factor in said for factor in expected)
        assert pair.segment_factors == _moving(pair.profile_a, pair.profile_b, judged.tolerance)
        assert pair.segment_factors, "some factor alone moves the segment scores that differ"
    assert equal, "the fixture no longer has a pair equal at corpus level"
    for pair in report.gap_matters.pairs:  # nor is a fixture where no system moves
        for f in pair.fixtures:
            if all(abs(s.gap) <= pair.tolerance for s in f.systems if s.gap is not None):
                assert f.human_agreement is None, (pair.a, pair.b, f.fixture)


def test_the_cards_and_the_summary_name_the_same_pairs(written: tuple[Report, Path, str]) -> None:
    """The HTML page details exactly the pairs the summary names, in its order, and the
    summary gives each one's sentence; none of them is without a corpus gap."""
    report, out, _ = written
    section = report.gap_matters
    named = [section.pairs[k] for k in section.leading]
    assert named and all(p.reason in GAP_REASONS for p in named)
    assert len(named) <= section.leading_max
    page = (out / "index.html").read_text(encoding="utf-8")
    cards = re.findall(r'<div class="pair"><h3><code>([^<]*)</code> vs <code>([^<]*)</code>', page)
    assert [(html.unescape(a), html.unescape(b)) for a, b in cards] == [(p.a, p.b) for p in named]
    assert f"details for the {len(named)} the summary names" in page
    md = (out / "report.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, x in enumerate(md) if "**Does the gap matter?**" in x)
    said = leading_sentences(section)
    assert [x[4:] for x in md[at + 1 : at + 1 + len(said)]] == said
    # every named pair is in exactly one sentence: its own, or one it shares with pairs of
    # the same first side whose findings read the same
    for pair in named:
        assert sum(_says(x, pair) for x in said) == 1


def _says(sentence: str, pair) -> bool:
    """Whether ``sentence`` is ``pair``'s own or one naming it among others against its base."""
    if sentence == pair_sentence(pair):
        return True
    start = f"{named_in(pair.a, pair.label_a)} vs each of "
    end = f": {pair_finding(pair)}"
    if not (sentence.startswith(start) and sentence.endswith(end)):
        return False
    listed = sentence[len(start) : len(sentence) - len(end)]
    head, _, last = listed.rpartition(" and ")
    return named_in(pair.b, pair.label_b) in [*head.split(", "), last]


def test_pairs_that_say_the_same_share_one_sentence(written: tuple[Report, Path, str]) -> None:
    """Two named pairs against one base whose findings are the same words are one sentence
    naming both second sides; a pair whose finding differs keeps its own."""
    report, _, _ = written
    section = report.gap_matters
    first = section.pairs[section.leading[0]]
    twin = dataclasses.replace(first, b="harness:twin", label_b=None)
    reason = "reorders" if first.reason != "reorders" else "humans-notice"
    other = dataclasses.replace(first, b="harness:other", label_b=None, reason=reason)
    assert pair_finding(twin) == pair_finding(first) != pair_finding(other)
    grown = dataclasses.replace(section, pairs=(first, twin, other), leading=(0, 1, 2))
    same = f"{named_in(first.a, first.label_a)} vs each of {named_in(first.b, first.label_b)}"
    said = leading_sentences(grown)
    assert said[0] == f"{same} and harness:twin: {pair_finding(first)}"
    assert said[1:] == [pair_sentence(other)]


def test_labels_travel_with_names(written: tuple[Report, Path, str]) -> None:
    """Wherever a pair sentence names an in-house profile with a label, the label follows
    the name (so mteval-v13a's lowercasing is never read as the official scorer's)."""
    report, out, _ = written
    md = (out / "report.md").read_text(encoding="utf-8")
    labelled = 0
    for pair in report.gap_matters.pairs:
        for name, label in ((pair.a, pair.label_a), (pair.b, pair.label_b)):
            own = LABELS.get(name.removeprefix("harness:")) if name.startswith("harness:") else None
            assert label == own
            if label:
                labelled += 1
                assert f"{name} ({label})" in pair_sentence(pair)
    assert labelled, "no labelled profile in the report: the test checks nothing"
    section = md[md.index("## Does the gap matter?") : md.index("## Pairs")]
    for line in section.splitlines():
        if not line.startswith("- "):
            continue
        for name, label in LABELS.items():
            for at in re.finditer(re.escape(f"harness:{name}") + r"(?![\w-])", line):
                after = line[at.end() :]
                # a name in a sentence carries its label; a name repeated right after it
                # ("harness:x ranks …") is the same implementation, already labelled
                if line[: at.start()].count(f"harness:{name}") == 0:
                    assert after.startswith(f" ({label})"), line


def test_waterfalls_are_the_leading_gaps_none_flat_none_twice(
    written: tuple[Report, Path, str], tmp_path: Path
) -> None:
    """The waterfalls drawn are attributions of the pairs the summary leads with, on the
    fixture their sentence gives, each with a step that is not zero, no two alike; the page
    shows as many as were drawn."""
    report, _, _ = written
    drawn = waterfalls(report)
    section = report.gap_matters
    leading = [section.pairs[k] for k in section.leading]
    heads = {(p.profile_a, p.profile_b): headline(p) for p in leading}
    assert drawn and len(drawn) <= MAX_WATERFALLS
    seen = set()
    for at in drawn:
        assert (at.a, at.b) in heads
        head = heads[(at.a, at.b)]
        assert head is not None and at.fixture == head.fixture
        steps = [at.gap, *at.factors.values()]
        assert any(v is not None and abs(v) > 0 for v in steps)
        key = (at.fixture, at.system, at.score_a, at.score_b, tuple(at.factors.items()))
        assert key not in seen
        seen.add(key)
    files = write_report(report, tmp_path / "w", formats=("html",))
    assert sum(p.name.startswith("fig-attribution-") for p in files) == len(drawn)
