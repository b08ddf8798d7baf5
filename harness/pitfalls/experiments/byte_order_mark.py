"""A UTF-8 byte-order mark at the start of a file changes BLEU, by a different amount in each
implementation.

Editors that save "UTF-8" on Windows put the bytes EF BB BF (U+FEFF, a byte-order mark) before
the first line. Python's ``open(..., encoding="utf-8")`` — what sacrebleu's command line uses
(``sacrebleu/utils.py`` ``smart_open``), and what a user of nltk, evaluate or torchmetrics
typically writes — keeps it as a character; mteval-v13a.pl and multi-bleu.perl read bytes and
keep it too. U+FEFF is neither whitespace nor punctuation to most tokenizers, so it stays
glued to the first word of the first segment, which then matches nothing: the published
score includes the loss. Tokenizers that cut non-word characters apart (CodeXGLUE's) make it
a token of its own instead, and one whose hypothesis and reference both carry the mark
matches the glued word again.

Run: every real library and every profile on a clean 10-segment corpus and on the same corpus
with the mark on the hypothesis file, on the first reference file, and on both. The verdict
is computed from the real sacrebleu's numbers (its profile when it cannot run); the reason
gives every implementation's change, and any profile that disagrees with its library on the
marked text.
"""

from __future__ import annotations

from harness.data.corpus import BOM, Corpus
from harness.data.fixtures import load_fixture
from harness.pitfalls import (
    EVERY_IMPLEMENTATION,
    Experiment,
    Table,
    Verdict,
    deciding,
    fmt,
    measure_libraries,
    profile_mismatches,
)

FIXTURE, SYSTEM = "forensic_preprocessing", "clean"
CASES = ("no mark", "mark on the hypotheses", "mark on the first reference", "mark on both")


def _marked(text: str) -> str:
    return BOM + text


def corpora() -> dict[str, Corpus]:
    """The clean corpus and its three marked copies (the mark on line 1 of each file)."""
    clean = load_fixture(FIXTURE).corpus(SYSTEM)
    hyps = (_marked(clean.hypotheses[0]), *clean.hypotheses[1:])
    first, *rest = clean.references
    refs = ((_marked(first[0]), *first[1:]), *rest)

    def corpus(hypotheses: tuple[str, ...], references: tuple[tuple[str, ...], ...]) -> Corpus:
        # the mark is the point: no warning that strings hold it
        return Corpus(hypotheses=hypotheses, references=references, ids=clean.ids, check_text=False)

    return {
        CASES[0]: clean,
        CASES[1]: corpus(hyps, clean.references),
        CASES[2]: corpus(clean.hypotheses, refs),
        CASES[3]: corpus(hyps, refs),
    }


def run() -> Table:
    table = Table()
    for case, corpus in corpora().items():
        table.extend(measure_libraries(corpus, case=case))
    return table


def _changes(table: Table, case: str) -> dict[str, float | None]:
    """Each implementation's BLEU change from the clean corpus on ``case``."""
    base, marked = deciding(table, CASES[0]), deciding(table, case)
    out: dict[str, float | None] = {}
    for name, m in marked.items():
        b = base.get(name)
        before = b.score if b is not None and b.ok else None
        after = m.score if m.ok else None
        out[name] = None if before is None or after is None else after - before
    return out


def _grouped(changes: dict[str, float | None]) -> str:
    """``-1.23 (sacrebleu, nltk); +0.00 (codexglue)``: implementations folded by change."""
    groups: dict[str, list[str]] = {}
    for name, delta in changes.items():
        key = "n/a" if delta is None else f"{delta:+.2f}"
        groups.setdefault(key, []).append(name)
    order = sorted(groups, key=lambda k: (k == "n/a", float(k) if k != "n/a" else 0.0))
    return "; ".join(f"{k} ({', '.join(groups[k])})" for k in order)


def verdict(table: Table) -> Verdict:
    who = "sacrebleu" if table.get("sacrebleu", CASES[0]).ok else "harness:sacrebleu"
    scores = [table.get(who, c) for c in CASES]
    clean, hyp, ref, both = (m.score for m in scores)
    if clean is None or hyp is None:
        missing = "; ".join(f"{m.case}: {m.status} {m.detail}".strip() for m in scores if not m.ok)
        return Verdict("not reproduced", f"{who} gave no number ({missing})")
    reason = (
        f"{who}: {fmt(clean)} without the mark, {fmt(hyp)} with it on the hypotheses, "
        f"{fmt(ref)} on the first reference, {fmt(both)} on both. BLEU change with the mark on "
        f"the hypotheses: {_grouped(_changes(table, CASES[1]))}. On both files: "
        f"{_grouped(_changes(table, CASES[3]))}"
    )
    wrong = profile_mismatches(table, CASES)
    if wrong:
        reason += f"; profiles that differ from their library: {', '.join(wrong)}"
    if hyp < clean:
        return Verdict("reproduced", reason)
    return Verdict("not reproduced", reason)


EXPERIMENT = Experiment(
    name="byte_order_mark",
    claim=(
        "A UTF-8 byte-order mark starting the hypothesis file lowers sacreBLEU: the official "
        "scorers read it as part of the first word, which then matches nothing; each "
        "implementation moves by its own amount."
    ),
    source=(
        "sacrebleu/utils.py smart_open (files opened as UTF-8, not utf-8-sig); mteval-v13a.pl "
        "and multi-bleu.perl read bytes"
    ),
    fixtures=(FIXTURE,),
    implementations=EVERY_IMPLEMENTATION,
    configs=CASES,
    run=run,
    verdict=verdict,
)
