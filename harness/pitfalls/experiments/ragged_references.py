"""Padding ragged references with '' instead of None changes sacrebleu's score (seed 001).

sacrebleu needs every reference stream to have one entry per segment, so segments with fewer
references must be padded. The seed article says to pad with ``""``; sacrebleu drops ``None``
but keeps ``""`` as a reference of length 0 (``_cache_references``), which becomes the closest
reference length whenever a hypothesis is shorter than half of its closest real reference —
so the brevity penalty changes (sacrebleu#220, #272, #275).

Run: the real sacrebleu on the same hypotheses and references, padded with ``None`` and with
``""``, on the shipped ragged fixture and two variants of it (one silent segment, one
truncated segment, both in segments that get padding), and on the blog fixture, which is
ragged too; the in-house engine on ``Corpus.from_streams`` of the ``""``-padded streams with
``padding="none"`` (``""`` kept as a real reference) and ``padding="empty"`` (dropped). The
verdict is computed from sacrebleu's scores; the reason names the segments where ``""``
became the closest reference, from token lengths.
"""

from __future__ import annotations

from typing import Any

from harness.bleu import engine
from harness.bleu.profiles import PROFILES
from harness.bleu.tokenizers import tokenize
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.pitfalls import Experiment, Measurement, Table, Verdict, close, fmt
from harness.scorers.sacrebleu_adapter import quiet_sacrebleu

PADDINGS = {"none": None, "empty": ""}


def cases() -> dict[str, Any]:
    ragged = load_fixture("edge_ragged_references").corpus("system")
    hyps = list(ragged.hypotheses)
    silent = list(hyps)
    silent[0] = ""
    short = list(hyps)
    short[3] = " ".join(hyps[3].split()[:2])
    return {
        "edge_ragged_references": ragged,
        "segment 1 silent": ragged.with_hypotheses(silent, name="ragged, segment 1 empty"),
        "segment 4 cut to 2 words": ragged.with_hypotheses(short, name="ragged, segment 4 cut"),
        "blog_code_examples": load_fixture("blog_code_examples").corpus("candidate"),
    }


def _closest_changes(corpus: Any) -> list[str]:
    """Segments whose closest reference length becomes 0 once '' padding is added."""
    out = []
    k = corpus.max_refs
    for sid, hyp, refs in zip(corpus.ids, corpus.hypotheses, corpus.references, strict=True):
        if len(refs) == k:
            continue  # no padding in this segment
        h = len(tokenize(hyp, "13a"))
        lens = [len(tokenize(r, "13a")) for r in refs]
        real = min(lens, key=lambda r: (abs(r - h), r))
        padded = min([*lens, 0], key=lambda r: (abs(r - h), r))
        if padded != real:
            out.append(f"segment {sid}: hypothesis {h} tokens, closest reference {real} -> 0")
    return out


def run() -> Table:
    from sacrebleu.metrics import BLEU

    table = Table()
    for case, corpus in cases().items():
        hyps = list(corpus.hypotheses)
        for pad_name in PADDINGS:
            streams = corpus.to_streams(padding=pad_name)
            metric = BLEU()
            try:
                with quiet_sacrebleu():
                    s = metric.corpus_score(hyps, streams)
            except Exception as exc:
                table.add(
                    Measurement(
                        "sacrebleu",
                        f"{case}/{pad_name}",
                        None,
                        "raises",
                        f"{type(exc).__name__}: {exc}",
                    )
                )
                continue
            table.add(
                Measurement(
                    "sacrebleu",
                    f"{case}/{pad_name}",
                    float(s.score),
                    signature=str(metric.get_signature()),
                    extra={"hyp_len": s.sys_len, "ref_len": s.ref_len, "bp": s.bp},
                )
            )
        padded = corpus.to_streams(padding="empty")
        for mode, label in (("none", "'' kept"), ("empty", "'' dropped")):
            back = Corpus.from_streams(hypotheses=hyps, streams=padded, padding=mode)  # type: ignore[arg-type]
            r = engine.corpus_score(back, PROFILES["sacrebleu"])
            table.add(
                Measurement(
                    f"harness:sacrebleu (from_streams padding={mode!r})",
                    f"{case}/empty",
                    r.score,
                    detail=label,
                    signature=r.signature,
                    extra={"hyp_len": r.hyp_len, "ref_len": r.ref_len},
                )
            )
        table.notes.setdefault("closest_changes", {})[case] = _closest_changes(corpus)
    return table


def verdict(table: Table) -> Verdict:
    changed, same, parts = [], [], []
    for case, why in table.notes["closest_changes"].items():
        a = table.get("sacrebleu", f"{case}/none")
        b = table.get("sacrebleu", f"{case}/empty")
        if not (a.ok and b.ok):
            same.append(case)
            parts.append(f"{case}: sacrebleu raised")
            continue
        if not close(a.score, b.score):
            changed.append(case)
            parts.append(
                f"{case}: {fmt(a.score)} (None) -> {fmt(b.score)} (''), r {a.extra['ref_len']} -> "
                f"{b.extra['ref_len']} [{'; '.join(why) or 'no closest-length change'}]"
            )
        else:
            same.append(case)
            parts.append(
                f"{case}: {fmt(a.score)} either way ("
                + (
                    "no hypothesis is shorter than half its closest real reference"
                    if not why
                    else "; ".join(why)
                )
                + ")"
            )
    kept = "harness:sacrebleu (from_streams padding='none')"
    dropped = "harness:sacrebleu (from_streams padding='empty')"
    mirror = all(
        close(table.score(kept, f"{c}/empty"), table.score("sacrebleu", f"{c}/empty"))
        and close(table.score(dropped, f"{c}/empty"), table.score("sacrebleu", f"{c}/none"))
        for c in table.notes["closest_changes"]
    )
    reason = "; ".join(parts)
    reason += (
        "; the engine with '' kept as a reference equals sacrebleu's '' number and "
        "from_streams(padding='empty') recovers the None number"
        if mirror
        else "; the engine does NOT mirror sacrebleu's padding numbers (a finding)"
    )
    return Verdict.split(changed, same, reason)


EXPERIMENT = Experiment(
    name="ragged_references",
    claim=(
        "Padding ragged reference lists with '' (as the article advises) instead of None "
        "changes the real sacrebleu's score."
    ),
    source="001_4d9c0f31bc4f1899.txt (pitfall 3, padding); sacrebleu#220, #272, #275",
    fixtures=("edge_ragged_references", "blog_code_examples"),
    implementations=("real sacrebleu", "harness:sacrebleu via Corpus.from_streams"),
    configs=(
        "streams padded with None",
        "streams padded with ''",
        "variants: segment 1 empty, segment 4 cut to 2 words",
    ),
    run=run,
    verdict=verdict,
)
