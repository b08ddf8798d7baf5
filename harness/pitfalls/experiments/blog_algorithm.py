"""Does the Chinese blog's code compute the BLEU it derives? (seed 004)

The blog derives modified (clipped) n-gram precision, the geometric mean and a brevity
penalty whose reference length is the longest reference unless some reference has the
candidate's length. Its code counts n-grams by regular-expression substring search on the raw
sentence and visits candidate positions with a stride of n.

Run: :func:`harness.diagnose.homemade.blog_bleu` (the blog's code re-derived, bugs included) against the
correct computation of the same design — the in-house engine with whitespace tokens, clipped
counts, BLEU-4, no smoothing and the blog's reference-length rule (``longest-unless-exact``) —
on the blog's own example sentences and a few more from the other seeds; plus the blog's
printed ``0.082`` for its (reconstructed) short sentence, at the two orders its text uses.
The reason names, per sentence, the bug that makes the numbers differ, found from the text
(n-grams the stride skips, n-grams whose substring count differs from their token count,
regex metacharacters).
"""

from __future__ import annotations

import re

from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.data.corpus import Corpus
from harness.data.fixtures import load_fixture
from harness.diagnose.homemade import blog_bleu, blog_sentence_bleu
from harness.pitfalls import Experiment, Measurement, Table, Verdict, close, fmt, measure_call

INTENDED = BleuConfig(
    tokenize="whitespace",
    ref_length="longest-unless-exact",
    smooth="none",
    zero_guard="none",
)
"""The blog's stated design: clipped n-gram precision, BLEU-4, longest reference unless exact."""

META = set(".^$*+?{}[]\\|()")
ORDERS = (1, 2, 3, 4)

#: Sentence label → (fixture, system, segment index). The blog's own examples first.
SOURCES: dict[str, tuple[str, str, int]] = {
    "blog v1": ("blog_code_examples", "candidate", 0),
    "blog v2": ("blog_code_examples", "candidate", 1),
    "blog example1": ("blog_image_examples_reconstructed", "candidate", 0),
    "blog shortsentence": ("blog_image_examples_reconstructed", "candidate", 1),
    "tutorial": ("tutorial_cat_on_the_mat", "candidate", 0),
    "google clipping": ("google_unigram_clipping", "candidate", 0),
    "google nasa c2": ("google_nasa_opportunity", "candidate_2", 0),
    "silence A/8": ("silence_pitfall", "A", 7),
}


def sentences() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Short label → (candidate, references), from shipped fixtures (``SOURCES`` says which)."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for label, (name, system, index) in SOURCES.items():
        c = load_fixture(name).corpus(system)
        out[label] = (c.hypotheses[index], c.references[index])
    return out


def diagnose(candidate: str, references: tuple[str, ...], max_n: int = 4) -> list[str]:
    """What in this sentence trips the blog's counting (facts about the text, not its code)."""
    toks = candidate.split(" ")
    found = []
    skipped = sum(
        max(0, len(toks) - n + 1) - len(range(0, len(toks) - n + 1, n)) for n in range(2, max_n + 1)
    )
    if skipped:
        found.append(f"stride skips {skipped} n-grams")
    subs = []
    for n in range(1, max_n + 1):
        for i in range(0, len(toks) - n + 1, n):
            gram = toks[i : i + n]
            text = " ".join(gram)
            for where in (candidate, *references):
                words = where.split(" ")
                token_count = sum(1 for j in range(len(words) - n + 1) if words[j : j + n] == gram)
                if len(re.findall(re.escape(text), where)) != token_count:
                    subs.append(text)
                    break
    if subs:
        shown = ", ".join(f"'{s}'" for s in dict.fromkeys(subs))
        found.append(f"substring counts differ for {shown}")
    meta = sorted({ch for ch in candidate if ch in META})
    if meta:
        found.append(f"regex metacharacters {''.join(meta)}")
    if len(toks) < max_n:
        found.append(f"{len(toks)} tokens < {max_n}: an order with no n-gram divides 0 by 0")
    return found


def run() -> Table:
    table = Table()
    for case, (hyp, refs) in sentences().items():
        for n in ORDERS:
            if n == 4:  # the corpus entry point, as a user calls it

                def blog(hyp: str = hyp, refs: tuple[str, ...] = refs, n: int = n) -> float:
                    return blog_bleu([hyp], [list(refs)])
            else:

                def blog(hyp: str = hyp, refs: tuple[str, ...] = refs, n: int = n) -> float:
                    return blog_sentence_bleu(hyp, list(refs), max_n=n)

            table.add(
                measure_call("homemade:blog_bleu", blog, case=f"{case}/BLEU-{n}", scale=100.0)
            )
            cfg = INTENDED.replace(max_order=n)
            r = engine.corpus_score(Corpus(hypotheses=(hyp,), references=(refs,)), cfg)
            table.add(
                Measurement(
                    "harness:blog-design",
                    f"{case}/BLEU-{n}",
                    r.score,
                    signature=r.signature,
                    extra={"counts": r.counts, "totals": r.totals, "bp": r.bp},
                )
            )
        table.notes.setdefault("diagnosis", {})[case] = diagnose(hyp, refs)
    # The printed 0.082 (text: average precision 1 over the orders a 2-token sentence has).
    hyp, refs = sentences()["blog shortsentence"]
    case = "shortsentence at BLEU-2 (printed 0.082)"
    table.add(
        measure_call(
            "homemade:blog_bleu",
            lambda: blog_sentence_bleu(hyp, list(refs), max_n=2),
            case=case,
            scale=100.0,
            detail="blog_sentence_bleu(max_n=2)",
        )
    )
    two = INTENDED.replace(max_order=2)
    r = engine.corpus_score(Corpus(hypotheses=(hyp,), references=(refs,)), two)
    table.add(Measurement("harness:blog-design", case, r.score, signature=r.signature))
    table.notes["printed_short"] = 0.082
    return table


def verdict(table: Table) -> Verdict:
    agree, differ, parts = [], [], []
    for case, why in table.notes["diagnosis"].items():
        short_case = case
        wrong = []
        for n in ORDERS:
            blog = table.get("homemade:blog_bleu", f"{case}/BLEU-{n}")
            right = table.get("harness:blog-design", f"{case}/BLEU-{n}")
            if blog.ok and close(blog.score, right.score):
                continue
            got = fmt(blog.score / 100.0, 3) if blog.ok else blog.detail.split(":")[0]  # type: ignore[operator]
            wrong.append(f"BLEU-{n} {got} vs {fmt(right.score / 100.0, 3)}")  # type: ignore[operator]
        if not wrong:
            agree.append(short_case)
            continue
        differ.append(short_case)
        parts.append(
            f"{short_case}: {', '.join(wrong)} [{'; '.join(why) or 'no bug found in the text'}]"
        )
    short = "shortsentence at BLEU-2 (printed 0.082)"
    printed = table.notes["printed_short"]
    b, e = table.get("homemade:blog_bleu", short), table.get("harness:blog-design", short)
    short_text = (
        f"printed 0.082 for the short sentence: blog code at BLEU-2 "
        f"{fmt(b.score / 100.0, 3) if b.ok else b.status}, correct BLEU-2 "  # type: ignore[operator]
        f"{fmt(e.score / 100.0, 3) if e.ok else e.status}"  # type: ignore[operator]
    )
    if e.ok and round(e.score / 100.0, 3) == printed:  # type: ignore[operator]
        short_text += " (reproduced: exp(1 - 7/2))"
    reason = (
        f"agrees with the correct computation at BLEU-1..4 on {len(agree)} of "
        f"{len(agree) + len(differ)} sentences; differs on " + "; ".join(parts) + f"; {short_text}"
    )
    return Verdict.split(agree, differ, reason)


EXPERIMENT = Experiment(
    name="blog_algorithm",
    claim=(
        "The blog's code computes the BLEU the blog derives: clipped n-gram precision, "
        "geometric mean, and a brevity penalty against the longest reference unless one "
        "matches the candidate's length."
    ),
    source="004_ccc28872d55e65c5.txt (appendix source code and its derivation)",
    fixtures=(
        "blog_code_examples",
        "blog_image_examples_reconstructed",
        "tutorial_cat_on_the_mat",
        "google_unigram_clipping",
        "google_nasa_opportunity",
        "silence_pitfall",
    ),
    implementations=(
        "homemade: harness.diagnose.homemade.blog_bleu (blog code re-derived)",
        "in-house engine with the blog's design (the correct computation)",
    ),
    configs=(
        "BLEU-1..4 (blog_bleu at 4, blog_sentence_bleu(max_n=n) below), whitespace tokens, "
        "no smoothing, ref_length=longest-unless-exact",
    ),
    run=run,
    verdict=verdict,
)
