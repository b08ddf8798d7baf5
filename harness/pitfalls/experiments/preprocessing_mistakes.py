"""Preprocessing mistakes move BLEU by points, and the printed number names them.

Threads: fairseq#637 (29.7 vs 33.8: BPE ``@@`` markers left in the scored text) and
NVIDIA-NeMo#5540 (text tokenized before sacrebleu's 13a tokenizes it again). The fixture
``forensic_preprocessing`` carries the same mistakes on invented sentences (its provenance
cites the threads): one system as it should be scored, the same translations with BPE markers
left in, and the same translations Moses-style tokenized.

Run: the real sacrebleu and nltk on each system (the size of each mistake in points), then
:func:`harness.diagnose.identify.identify` with the real sacrebleu's number of the mistaken
system, printed to two decimals — once on the files that carry the mistake and, for
tokenization, once on the clean files (the mistake applied by the search). A case holds when
the mistake moves the real sacrebleu by more than ``MIN_GAP`` points and identify's first
explanation names it.
"""

from __future__ import annotations

from harness.data.fixtures import load_fixture
from harness.diagnose.identify import identify
from harness.pitfalls import Experiment, Measurement, Table, Verdict, fmt, measure_adapter
from harness.session import Session

FIXTURE = "forensic_preprocessing"
MIN_GAP = 1.0
"""BLEU points; a smaller move does not count as a pitfall."""

#: (case, system whose sacrebleu number is printed, files identify is given, the mistake)
CASES = (
    ("bpe left in", "bpe_left_in", "bpe_left_in", "bpe-left-in"),
    ("tokenized twice", "moses_tokenized", "moses_tokenized", "pre-tokenized"),
    ("tokenized twice on clean files", "moses_tokenized", "clean", "pre-tokenized"),
)


def run() -> Table:
    fx = load_fixture(FIXTURE)
    table = Table()
    for system in fx.system_names:
        for library in ("sacrebleu", "nltk"):
            table.add(measure_adapter(library, fx.corpus(system), case=system))
    named: dict[str, list[str]] = {}
    session = Session()  # the experiment's statistics, shared by its searches
    for case, printed_by, files, _ in CASES:
        printed = table.score("sacrebleu", printed_by)
        if printed is None:
            continue
        found = identify(f"{printed:.2f}", fx.corpus(files), session=session)
        first = found[0] if found else None
        named[case] = list(first.preprocessing) if first else []
        label = "identify (first explanation)"
        if first is None:
            table.add(Measurement(label, case, None, "error", f"nothing reproduces {printed:.2f}"))
        else:
            table.add(Measurement(label, case, first.raw, "ok", first.describe()))
    table.notes["named"] = named
    table.notes["printed"] = {c: p for c, p, _, _ in CASES}
    return table


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    clean = table.score("sacrebleu", "clean")
    for case, printed_by, _, mistake in CASES:
        moved = table.score("sacrebleu", printed_by)
        named = table.notes["named"].get(case, [])
        if clean is None or moved is None:
            fails.append(case)
            parts.append(f"{case}: sacrebleu gave no number")
            continue
        gap = moved - clean
        ok = abs(gap) > MIN_GAP and mistake in named
        (holds if ok else fails).append(case)
        parts.append(
            f"{case}: sacrebleu {fmt(clean)} -> {fmt(moved)} ({fmt(gap)} points); identify's "
            f"first explanation assumes {', '.join(named) or 'no preprocessing'}"
        )
    return Verdict.split(holds, fails, "; ".join(parts))


EXPERIMENT = Experiment(
    name="preprocessing_mistakes",
    claim=(
        "Scoring text with BPE markers left in, or tokenized before 13a tokenizes it again, "
        "moves BLEU by points, and the printed number alone names the mistake."
    ),
    source="fairseq#637; NVIDIA-NeMo#5540 (fixture forensic_preprocessing, generated text)",
    fixtures=(FIXTURE,),
    implementations=(
        "real sacrebleu corpus_score",
        "real nltk corpus_bleu",
        "harness identify (preprocessing variants)",
    ),
    configs=("library defaults; identify on the number printed to 2 decimals",),
    run=run,
    verdict=verdict,
)
