# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% tags=["parameters"]
# ruff: noqa: E402
import os

SMOKE = os.environ.get("SMOKE", "0") == "1"
SEED = 0

# %% [markdown]
# # 01 — Reference layout and padding
#
# Two layouts of the same multi-reference data are in use, and mixing them up is one of the
# most common ways to get a wrong BLEU score without any error message:
#
# * **per segment** (Hugging Face `evaluate`, nltk, torchmetrics, bleuscore, and the harness):
#   `references[i]` is the list of references of segment *i* — N lists of K strings;
# * **streams** (sacrebleu): `refs[k]` is the *k*-th reference of every segment — K lists of
#   N strings, each as long as the hypothesis list.
#
# The seed article `001_4d9c0f31bc4f1899.txt` (pitfall 3) points out that sacrebleu's
# argument is the transpose of evaluate's and that a transposed argument gives no error.
# The same confusion shows up in sacrebleu issues #220, #272 and #275 (and #239, #256,
# datasets#520). This notebook runs the *real* sacrebleu on wrong layouts through
# `harness.scorers.misuse`, shows why `''` is not a harmless padding value for ragged
# references, and shows the harness refusing the layouts it can detect.

# %%
import inspect

from sacrebleu.metrics import BLEU

import harness
from harness import PROFILES, Corpus, LayoutError
from harness.data.fixtures import load_fixture
from harness.run.runner import versions
from harness.scorers import misuse
from harness.scorers.sacrebleu_adapter import quiet_sacrebleu

for name, version in versions().items():
    print(f"{name:>14}: {version}")
print("harness.corpus_bleu", inspect.signature(harness.corpus_bleu))
print("harness signature (sacrebleu profile):", PROFILES["sacrebleu"].signature())
sacrebleu_metric = BLEU()
sacrebleu_metric.corpus_score(["a b"], [["a b"]])  # sacrebleu needs one call before signing
print("sacrebleu's own signature:", sacrebleu_metric.get_signature())

# %% [markdown]
# ## The two layouts side by side
#
# `reference_layout_placeholders` re-types the placeholder strings of the seed article's
# example: three segments, two references each. `Corpus.to_evaluate()` gives the per-segment
# layout, `Corpus.to_streams()` sacrebleu's.

# %%
placeholders = load_fixture("reference_layout_placeholders").corpus("mt")
print("per segment (evaluate / nltk / harness):")
for i, refs in enumerate(placeholders.to_evaluate()):
    print(f"  references[{i}] = {refs}")
print("streams (sacrebleu):")
for k, stream in enumerate(placeholders.to_streams()):
    print(f"  refs[{k}] = {stream}")

# %% [markdown]
# ## What the real sacrebleu does with a wrong layout
#
# sacrebleu checks only the type of `refs[0][0]` and then `zip`s the hypotheses with the
# references, so a layout of the wrong shape is usually truncated instead of rejected.
# Every row below is a real `sacrebleu` call (see the `call` column); `scored` is how many
# hypotheses actually entered the statistics. We use `edge_ragged_references` (four
# segments with 1, 3, 2 and 1 references) and the placeholder fixture.


# %%
def misuse_table(corpus: Corpus) -> list[misuse.Misuse]:
    rows = misuse.simulate_all(corpus)
    print(f"{corpus.name}: correct sacrebleu score {rows[0].correct_score:.4f}")
    for m in rows:
        outcome = f"{m.score:8.4f}" if m.silent else f"raised {m.error}"
        scored = "" if m.hypotheses_scored is None else f"{m.hypotheses_scored}/{m.n_hypotheses}"
        flag = "WRONG, silently" if m.wrong else ("ok" if m.silent else "error")
        print(f"  {m.layout:<42} {outcome}  scored {scored:<5} {flag}")
        print(f"      call: {m.call}")
    return rows


ragged = load_fixture("edge_ragged_references").corpus("system")
ragged_misuse = {m.layout: m for m in misuse_table(ragged)}
placeholder_misuse = {m.layout: m for m in misuse_table(placeholders)}

# %% [markdown]
# Passing the per-segment lists where streams belong makes sacrebleu read four segments'
# reference lists as four *streams*; the shortest of them has one entry, so only the first
# hypothesis is scored, against the wrong references. A flat list of strings is read as
# streams of *characters*. With the placeholder fixture (three segments × two references)
# two of the three hypotheses are scored: the score happens to be the right one (0.0), but
# the statistics are not.

# %%
sacrebleu_right = ragged_misuse["per-segment lists as streams"].correct_score
sacrebleu_wrong = ragged_misuse["per-segment lists as streams"].score
print(f"right layout {sacrebleu_right:.4f} vs per-segment lists as streams {sacrebleu_wrong:.4f}")

# %% [markdown]
# ## `''` is not `None`: padding ragged references
#
# sacrebleu needs every stream to be as long as the hypothesis list, so a segment with fewer
# references must be padded. sacrebleu drops `None`, but keeps `''` as a reference **of
# length 0**. The seed article `001_4d9c0f31bc4f1899.txt` recommends padding with `''`; that
# is harmless only while the empty reference never becomes the *closest* reference length.
#
# In `edge_ragged_references` it never does, so the fixture as shipped shows no difference.
# Shorten the first hypothesis (a truncated output, which real systems do produce) and the
# empty reference becomes the closest one for that segment: the corpus reference length
# drops and the brevity penalty disappears.

# %%
with quiet_sacrebleu():
    truncated = ragged.with_hypotheses(
        ("the weather", *ragged.hypotheses[1:]), name="edge_ragged_references/truncated"
    )
    hyps = list(truncated.hypotheses)
    padded_none = truncated.to_streams(padding="none")
    padded_empty = truncated.to_streams(padding="empty")
    score_none = BLEU().corpus_score(hyps, padded_none)
    score_empty = BLEU().corpus_score(hyps, padded_empty)
print("streams padded with None:", padded_none[1])
print("streams padded with '':  ", padded_empty[1])
print("None padding:", score_none)
print("'' padding:  ", score_empty)
padding_misuse = misuse.empty_string_padding(truncated)
print(
    f"misuse.empty_string_padding: {padding_misuse.score:.4f} "
    f"(correct {padding_misuse.correct_score:.4f})"
)

# %% [markdown]
# The harness makes the padding explicit in both directions: `Corpus.to_streams(padding=...)`
# and `Corpus.from_streams(..., padding=...)`. Reading `''`-padded streams back with
# `padding="empty"` recovers the per-segment lists; with `padding="none"` the `''` entries
# stay references (which is right only if they really are empty references).

# %%
back_empty = Corpus.from_streams(hypotheses=hyps, streams=padded_empty, padding="empty")
back_none = Corpus.from_streams(hypotheses=hyps, streams=padded_empty, padding="none")
print("padding='empty':", back_empty.references[0])
print("padding='none': ", back_none.references[0])
harness_right = harness.corpus_bleu(hypotheses=hyps, references=back_empty.references).score
harness_padded = harness.corpus_bleu(hypotheses=hyps, references=back_none.references).score
print(f"harness: {harness_right:.4f} (padding removed) vs {harness_padded:.4f} ('' kept)")

# %% [markdown]
# ## The harness refuses the layouts it can detect
#
# `harness.corpus_bleu` takes `hypotheses=` and `references=` by keyword only (nltk puts
# references first, sacrebleu hypotheses first), always in the per-segment layout, and checks
# every length. Each wrong layout below raises `LayoutError` with what it expected and got.

# %%
refusals: dict[str, Exception] = {}
attempts = {
    "streams passed as per-segment references": lambda: harness.corpus_bleu(
        hypotheses=ragged.hypotheses, references=ragged.to_streams()
    ),
    "flat list of strings": lambda: harness.corpus_bleu(
        hypotheses=ragged.hypotheses, references=[refs[0] for refs in ragged.references]
    ),
    "per-segment lists passed as streams": lambda: Corpus.from_streams(
        hypotheses=ragged.hypotheses, streams=ragged.to_evaluate()
    ),
    "positional arguments (which order?)": lambda: harness.corpus_bleu(  # type: ignore[misc]
        ragged.hypotheses, ragged.references
    ),
}
for label, attempt in attempts.items():
    try:
        attempt()
    except (LayoutError, TypeError) as exc:
        refusals[label] = exc
        print(f"{label}:\n    {type(exc).__name__}: {exc}")
    else:
        print(f"{label}: accepted (!)")

# %% [markdown]
# Shape checks have a limit: when the number of segments equals the number of references
# (a *square* layout), the transpose has the right shape and no library — the harness
# included — can tell from the shapes alone. Converting explicitly with
# `Corpus.from_streams` at the boundary where sacrebleu-style data enters is the remedy.

# %%
square = Corpus(
    hypotheses=ragged.hypotheses[1:3],
    references=(ragged.references[1][:2], ragged.references[2]),
    name="edge_ragged_references/segments 2-3, two references each",
)
square_right = harness.corpus_bleu(hypotheses=square.hypotheses, references=square.references)
square_transposed = harness.corpus_bleu(
    hypotheses=square.hypotheses, references=square.to_streams()
)
print("per segment:", square.to_evaluate())
print("transposed: ", square.to_streams())
print(f"right {square_right.score:.4f}, transposed (accepted) {square_transposed.score:.4f}")

# %% [markdown]
# ## Checks
#
# The pitfalls above, computed rather than asserted by hand.

# %%
harness_ragged = harness.corpus_bleu(hypotheses=ragged.hypotheses, references=ragged.references)
# 1. sacrebleu silently scores a wrong layout, and the number is wrong.
assert sacrebleu_wrong != sacrebleu_right
assert ragged_misuse["per-segment lists as streams"].silent
assert ragged_misuse["per-segment lists as streams"].hypotheses_scored == 1
assert ragged_misuse["flat list of strings"].silent and ragged_misuse["flat list of strings"].wrong
assert placeholder_misuse["per-segment lists as streams"].hypotheses_scored == 2
# 2. With the right layout the harness engine agrees with the real sacrebleu.
assert abs(harness_ragged.score - sacrebleu_right) < 1e-9
# 3. '' padding changes sacrebleu's score once '' becomes the closest reference; None does not.
assert score_empty.score != score_none.score
assert score_empty.ref_len < score_none.ref_len
assert padding_misuse.wrong
assert abs(harness_right - score_none.score) < 1e-9
assert abs(harness_padded - score_empty.score) < 1e-9
assert back_empty.references == truncated.references
# 4. The harness refuses every detectable wrong layout (and positional arguments).
assert set(refusals) == set(attempts)
assert all(isinstance(refusals[k], LayoutError) for k in list(attempts)[:3])
# 5. ... but a square transpose has a valid shape and silently changes the score.
assert square_transposed.score != square_right.score
print("all checks passed")
