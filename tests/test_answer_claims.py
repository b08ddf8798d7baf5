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

from harness.analysis import runner
from harness.analysis.answer import FLIP_ALPHA, Answer, Family, answer
from harness.bleu.profiles import PROFILES
from harness.data.corpus import Corpus
from harness.report.answer_words import family_lines, family_names, family_why, findings
from harness.report.console import answer_text
from harness.session import Session

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
    rows = runner.run(
        [("files", n, c) for n, c in systems.items()], IMPLEMENTATIONS, progress=False
    )
    return answer(rows, Session(systems), seed=seed)


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
    significant = sum(len(f.significant_flips) for f in ans.reordering)
    if not moved:
        assert sentence.startswith("Every BLEU-4 implementation ranks")
    else:
        others = len([f for f in fams if f is not base])
        assert f"{len(moved)} of {others} BLEU-4 families" in sentence
        pairs = (
            "the two systems"
            if ans.system_pairs == 1
            else f"some of the {ans.system_pairs} system pairs"
        )
        assert f"order {pairs} the other way than {ans.baseline}" in sentence
        for f in ans.reordering[:4]:
            count = f"{len(f.flips)}" + (
                f", {len(f.significant_flips)} significant" if f.significant_flips else ""
            )
            said = rf"{re.escape(f.names[0])}[^;:]*: {re.escape(count)}(;|\))"
            assert re.search(said, sentence), (said, sentence)
        if significant:
            assert f"{significant} of these reversals" in sentence
        else:
            assert "none of these reversals is significant" in sentence
        assert f"seed {seed}," in sentence
    # the console's ranking table: one row per reordering family, its two counts
    text = answer_text(ans)
    for f in ans.reordering:
        # a long list of names wraps onto the next lines of the row
        names = r",\s+".join(map(re.escape, f.names))
        row = re.search(
            rf"^\s*{len(f.flips)}\s+{len(f.significant_flips)}\s+{names} — ", text, re.M
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
    from harness.report.console import SHORT

    for f in _bleu4(ans):
        first = f.names[0]
        assert SHORT.get(first, first)[:10] in shown_or_named or first in shown_or_named, first


def test_every_profile_has_its_own_column_head() -> None:
    # the per-system table heads a family by its first name, cut to the column: two profiles
    # cut to the same head (codesum-dc, codesum-dcom) would make a column unreadable
    from harness.bleu.profiles import PROFILES
    from harness.report.console import COLUMN, SHORT

    heads = {name: SHORT.get(name, name)[:COLUMN] for name in PROFILES}
    assert len(set(heads.values())) == len(heads), heads
    assert all(len(SHORT[name]) <= COLUMN for name in SHORT)
    assert set(SHORT) <= set(PROFILES)
