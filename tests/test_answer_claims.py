"""Every sentence of compare's answer agrees with the facts it summarises.

Random system sets (3–6 systems over the differential strategies' vocabulary, one or two
references) are scored by every profile; each claim the console and the report make is then
recomputed here from the scores alone, by code independent of the renderer: which families
order a pair of systems the other way than the baseline and how many pairs; how many of those
reversals are significant; that the "why" terms of every family add up to its gap; that every
family is in the per-system table or named as left out; that the report's family rows and
the console say the same.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.analysis.answer import (
    FINDING_POINTS,
    FLIP_ALPHA,
    Answer,
    Family,
    answer,
    profile_label,
)
from harness.analysis.attribution import hybrid
from harness.analysis.study_families import answer_of, answer_section
from harness.analysis.study_types import AnswerSection
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.report.answer_words import family_lines, family_names, family_why, findings
from harness.report.console import answer_text
from harness.run import RunPlan, run, runner
from harness.session import Session
from harness.typed_json import from_json, to_json

from .depth import examples
from .strategies import sentences

IMPLEMENTATIONS = [runner.Implementation("profile", p) for p in PROFILES]


@st.composite
def system_sets(draw: st.DrawFn) -> dict[str, Corpus]:
    """3–6 systems against the same 4–10 segments with one or two references each; a system
    is a reference with words replaced, so that systems are close and rankings can flip."""
    n_seg = draw(st.integers(4, 10))
    n_ref = draw(st.integers(1, 2))
    refs = tuple(
        tuple(draw(sentences(min_size=3, max_size=10)) for _ in range(n_ref)) for _ in range(n_seg)
    )
    systems = {}
    for k in range(draw(st.integers(3, 6))):
        hyps = []
        for seg in refs:
            words = seg[0].split()
            noise = draw(st.lists(st.integers(0, max(0, len(words) - 1)), max_size=3))
            for i in noise:
                words[i] = draw(sentences(min_size=1, max_size=1)) or "x"
            hyps.append(" ".join(words))
        systems[f"s{k}"] = Corpus(hypotheses=tuple(hyps), references=refs, check_text=False)
    return systems


def _answer(systems: dict[str, Corpus], seed: int) -> Answer:
    return _answer_in(Session(systems), seed)


def _answer_in(session: Session, seed: int = 0) -> Answer:
    systems = session.corpora
    rows = run(
        RunPlan.of([("files", n, c) for n, c in systems.items()], IMPLEMENTATIONS, progress=False)
    )
    return answer(rows, session, seed=seed)


def _reversed_pairs(names: tuple[str, ...], base: Family, fam: Family) -> set[tuple[str, str]]:
    """Pairs the baseline orders strictly one way and the family strictly the other."""
    out = set()
    for i, j in itertools.combinations(range(len(names)), 2):
        b = base.scores[i] - base.scores[j]  # type: ignore[operator]
        f = fam.scores[i] - fam.scores[j]  # type: ignore[operator]
        if b * f < 0:
            out.add((names[i], names[j]) if b > 0 else (names[j], names[i]))
    return out


def _bleu4(ans: Answer) -> list[Family]:
    return [f for f in ans.families if f.bleu4 and f.profiles and f.mean is not None]


SETTINGS = settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(system_sets(), st.integers(0, 2**31))
def test_every_ranking_claim_is_the_rankings(systems: dict[str, Corpus], seed: int) -> None:
    ans = _answer(systems, seed)
    base = ans.baseline_family
    fams = _bleu4(ans)
    moved = {f.profiles: _reversed_pairs(ans.systems, base, f) for f in fams if f is not base}
    moved = {k: v for k, v in moved.items() if v}
    # the facts: every family that reorders, with exactly its pairs
    assert {f.profiles: set(f.flips) for f in ans.reordering} == moved
    for f in ans.reordering:
        assert len(f.flip_p) == len(f.flips)
        assert f.significant_flips == tuple(
            x for x, p in zip(f.flips, f.flip_p, strict=True) if p < FLIP_ALPHA
        )
    # the sentence
    (sentence,) = [s for s in findings(ans) if "rank" in s]
    if not moved:
        assert sentence.startswith("Every BLEU-4 implementation ranks")
    else:
        others = len([f for f in fams if f is not base])
        assert f"{len(moved)} of {others} BLEU-4 families" in sentence
        assert "the other way than " + ans.baseline in sentence
        for f in ans.reordering[:4]:
            count = f"{len(f.flips)} pair{'s' if len(f.flips) != 1 else ''}" + (
                f", {len(f.significant_flips)} significant" if f.significant_flips else ""
            )
            label = profile_label(f.profiles[0])
            first = f.names[0] + (f" ({label})" if label else "")
            said = rf"{re.escape(first)}.*?: {re.escape(count)}(;|\))"
            assert re.search(said, sentence), (said, sentence)
        # counted as distinct system pairs, not as family × pair reversals
        pairs = {p for f in fams if f is not base for p in _reversed_pairs(ans.systems, base, f)}
        sig = {
            p
            for f in ans.reordering
            for p, pv in zip(f.flips, f.flip_p, strict=True)
            if pv < FLIP_ALPHA
        }
        if ans.system_pairs > 1:
            assert f"order {len(pairs)} of the {ans.system_pairs} system pairs" in sentence
        if not sig:
            assert "no reversal is significant" in sentence
        elif len(pairs) == 1:
            assert "the reversal is significant" in sentence
        else:
            verb = "is" if len(sig) == 1 else "are"
            assert f"; {len(sig)} of these {len(pairs)} pairs {verb} reversed" in sentence
        assert f"seed {seed}," in sentence
    # the console's ranking table: one row per reordering family, its two counts
    text = answer_text(ans)
    for f in ans.reordering:
        # a long list of names wraps onto the next lines of the row, maybe right after its dash
        names = r",\s+".join(map(re.escape, f.names))
        row = re.search(
            rf"^\s*{len(f.flips)}\s+{len(f.significant_flips)}\s+{names} —\s", text, re.M
        )
        assert row, (f.names, text)
    if not moved:
        assert "Ranking:" not in text
    # the report's rows say the same
    rows = {r.names: r for r in family_lines(ans)}
    for f in ans.reordering:
        row = rows[family_names(f)]
        assert (row.flips, row.significant_flips) == (len(f.flips), len(f.significant_flips))


_TERM = re.compile(r"([+-]\d+\.\d\d)(?:;|$)")


@SETTINGS
@given(system_sets())
def test_the_why_terms_add_up_to_the_gap_and_every_family_is_shown(
    systems: dict[str, Corpus],
) -> None:
    ans = _answer(systems, 0)
    for f in _bleu4(ans):
        why = family_why(f, ans.baseline).removeprefix(" — ")
        if f.gap is None or ans.baseline in f.profiles or not f.factors:
            continue
        terms = [float(x) for x in _TERM.findall(why)]
        # each printed term is rounded to 0.005; a cut term under 0.005 is not printed
        slack = 0.005 * (len(terms) + 1) + 1e-9
        assert abs(sum(terms) - f.gap) <= slack, (why, f.gap)
    text = answer_text(ans)
    table = text[text.index("Per system") :]
    header = table.splitlines()[1]
    left = re.search(r"Not shown for width \((\d+) of (\d+) families\): ([^;]+);", table, re.S)
    shown_or_named = set(header.split())
    if left:
        shown_or_named |= {n.strip() for n in " ".join(left.group(3).split()).split(",")}
    from harness.analysis.labels import short_name
    from harness.report.console import COLUMN

    for f in _bleu4(ans):
        first = f.names[0]
        assert short_name(first)[:COLUMN] in shown_or_named or first in shown_or_named, first


# the sentence of one cause: its words, the span of its shares, the baseline, its families
_CAUSE = re.compile(
    r"^(?P<words>.+): (?P<lo>[+-]\d+\.\d\d)(?: to (?P<hi>[+-]\d+\.\d\d))? BLEU against "
    r"(?P<base>\S+) \((?P<names>.*)\)\.$",
    re.S,
)


def _counts(session: Session, config: BleuConfig) -> list[tuple[bytes, bytes, str]]:
    """The n-gram counts of every system under ``config``, as comparable values."""
    out = []
    for name in session.corpora:
        st = session.statistics(config, name)
        out.append((st.hyp_len.tobytes(), st.matches.tobytes(), repr(st.ref_lens)))
    return out


def _check_causes(ans: Answer, session: Session) -> None:
    """Every cause with a share above FINDING_POINTS is one finding line, the lines go
    largest first, and no two lines are one cause (the same factor counting alike)."""
    base = ans.baseline_family
    lines = [m for line in findings(ans) if (m := _CAUSE.match(line))]
    assert all(m["base"] == ans.baseline for m in lines)
    # the facts, recomputed from the families: each family's factor share above the line
    big = [
        (f, k, v)
        for f in _bleu4(ans)
        if f is not base and f.gap is not None
        for k, v in f.factors.items()
        if abs(v) > FINDING_POINTS
    ]
    for f, k, v in big:
        (cause,) = [c for c in ans.by_cause if c.factor == k and f.profiles in c.families]
        assert cause.shares[cause.families.index(f.profiles)] == v
        # the one line saying it: the family named, the share inside the printed span
        said = [
            m
            for m in lines
            if (f.names[0] in m["names"] or re.search(r" and \d+ more$", m["names"]))
            and float(m["lo"]) - 0.005 <= v <= float(m["hi"] or m["lo"]) + 0.005
        ]
        assert len(said) >= 1, (f.names, k, v, findings(ans))
    shown = [c for c in ans.by_cause if c.size > FINDING_POINTS]
    if shown:
        assert len(lines) == len(shown), (shown, findings(ans))
    # two lines never say the same cause in the same words
    assert len({m["words"] for m in lines}) == len(lines), findings(ans)
    # largest first, in the printed numbers
    sizes = [max(abs(float(m["lo"])), abs(float(m["hi"] or m["lo"]))) for m in lines]
    assert all(a >= b - 0.01 for a, b in itertools.pairwise(sizes)), sizes
    # no two lines one cause: two causes of a factor count differently, or (counting as the
    # baseline does) change different values
    own = _counts(session, PROFILES[ans.baseline])
    for c1, c2 in itertools.combinations(shown, 2):
        if c1.factor != c2.factor:
            continue
        h1, h2 = (
            hybrid(PROFILES[ans.baseline], PROFILES[c.families[0][0]], (c.factor,))
            for c in (c1, c2)
        )
        n1, n2 = _counts(session, h1), _counts(session, h2)
        assert n1 != n2 or (n1 == own and c1.variants[0] != c2.variants[0]), (c1, c2)


@SETTINGS
@given(system_sets())
def test_every_cause_is_one_finding_line_largest_first(systems: dict[str, Corpus]) -> None:
    session = Session(systems)
    _check_causes(_answer_in(session), session)


def test_tokenizers_that_split_alike_are_one_finding() -> None:
    # punctuation glued to words: 13a splits it off, the space splitters do not, and they all
    # split this text into the same tokens
    refs = [
        ("the cat sat on the mat, quietly.", "a cat is on the mat."),
        ("he reads a book; she writes.", "he is reading a book, she writes."),
        ("it rains today, so we stay in.", "today it rains, so we stay home."),
    ]
    hyps = {
        "a": [
            "the cat is on the mat, quietly.",
            "he reads a book; she reads.",
            "it rains, we stay.",
        ],
        "b": ["cat on mat.", "he book, she writes.", "it rains today, so we stay in."],
    }
    systems = {
        n: Corpus(hypotheses=tuple(h), references=tuple(refs), check_text=False)
        for n, h in hyps.items()
    }
    session = Session(systems)
    ans = _answer_in(session)
    _check_causes(ans, session)
    splitters = {
        PROFILES[p].tokenize
        for p in ("nltk", "multi-bleu", "fairseq")
        if PROFILES[p].tokenize != "13a"
    }
    # they count alike here: the same statistics on every system
    counted = {
        name: _counts(session, PROFILES[ans.baseline].replace(tokenize=name)) for name in splitters
    }
    assert len({repr(v) for v in counted.values()}) == 1
    said = [line for line in findings(ans) if any(f"with {name}" in line for name in splitters)]
    assert len(said) == 1, findings(ans)
    assert all(name in said[0] for name in splitters), said


def test_the_report_says_compare_s_findings() -> None:
    """The report's typed answer keeps the causes as compare groups them (by the counts they
    give): read back from report.json's shape, it writes compare's very finding lines, the
    tokenizers that split alike as one line."""
    refs = [
        ("the cat sat on the mat, quietly.", "a cat is on the mat."),
        ("he reads a book; she writes.", "he is reading a book, she writes."),
    ]
    hyps = {
        "a": ["the cat is on the mat, quietly.", "he reads a book; she reads."],
        "b": ["cat on mat.", "he book, she writes."],
    }
    systems = {
        n: Corpus(hypotheses=tuple(h), references=tuple(refs), check_text=False)
        for n, h in hyps.items()
    }
    session = Session(systems)
    rows = run(
        RunPlan.of([("files", n, c) for n, c in systems.items()], IMPLEMENTATIONS, progress=False)
    )
    corpora = {("files", n): c for n, c in systems.items()}
    section, note = answer_section(rows, corpora, session)
    assert section is not None, note
    read_back = answer_of(from_json(AnswerSection, to_json(section), "answer"))
    assert findings(read_back) == findings(answer(rows, session))
    assert read_back.causes is not None


def test_the_answer_in_a_worker_is_the_answer_here(tmp_path, monkeypatch) -> None:
    """On a run with workers and statistics on disk, the answer is computed in a worker (its
    own session over the disk cache, counting there) and equals the answer computed here."""
    import contextlib
    import json

    from harness.analysis import study_families

    refs = [
        ("the cat sat on the mat, quietly.", "a cat is on the mat."),
        ("he reads a book; she writes.", "he is reading a book, she writes."),
        ("it rained all day in the old town.", "it was raining the whole day."),
    ]
    hyps = {
        "a": ["the cat is on the mat, quietly.", "he reads a book; she reads.", "it rained."],
        "b": ["cat on mat.", "he book, she writes.", "it rained all day in town."],
        "c": ["a cat sat on a mat.", "she writes a book.", "all day it was raining."],
    }
    systems = {
        n: Corpus(hypotheses=tuple(h), references=tuple(refs), check_text=False)
        for n, h in hyps.items()
    }
    rows = run(
        RunPlan.of([("files", n, c) for n, c in systems.items()], IMPLEMENTATIONS, progress=False)
    )
    corpora = {("files", n): c for n, c in systems.items()}
    here = answer_section(rows, corpora, Session(systems))
    assert here[0] is not None, here[1]
    pools: list[tuple[object, ...]] = []
    real_pool = study_families.process_pool

    def pool(*args: object) -> object:
        pools.append(args)
        return real_pool(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(study_families, "ANSWER_IN_WORKER_FROM", 0)
    monkeypatch.setattr(study_families, "process_pool", pool)
    session = Session(systems, cache_dir=tmp_path, jobs=2)
    with contextlib.ExitStack() as stack:
        there = study_families.answer_later(stack, rows, corpora, session)()
    assert pools == [(1, 1)]  # the worker's path

    def text(found: tuple[object, object]) -> str:
        return json.dumps(to_json(found), sort_keys=True)

    assert text(there) == text(here)
    # without a disk cache the worker would count everything again: computed here
    pools.clear()
    with contextlib.ExitStack() as stack:
        memory = study_families.answer_later(stack, rows, corpora, Session(systems, jobs=2))()
    assert pools == [] and text(memory) == text(here)
