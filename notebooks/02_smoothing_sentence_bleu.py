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
# # 02 — Smoothing and sentence-level BLEU
#
# BLEU was designed for corpora. On a single sentence, one order without a matching n-gram
# makes the geometric mean 0, so every library *smooths* — and each one differently:
#
# * sacrebleu offers `exp` (its default, the NIST-style halving from mteval-v13a), `floor`,
#   `add-k` and `none`; its `sentence_bleu` function (and `BLEU(effective_order=True)`)
#   uses **effective order** (orders the hypothesis is too short to have are left out), and
#   it returns 0 when not even a unigram matches (sacrebleu#141);
# * nltk offers Chen & Cherry's (2014) `method0`…`method7`; `method0`, the default, replaces a
#   zero precision by the smallest positive float and so returns numbers like `1e-78`
#   instead of 0 (nltk#2217 asks why an exact two-word match scores about 1.5e-154); the
#   methods themselves have had bugs reported (nltk#2341, method 4), and in `corpus_bleu`
#   methods 4–7 receive the *last* segment's hypothesis and references (nltk PR #3903).
#
# Sentence-level semantics are a recurring question (sacrebleu#98, #141, #278). The
# sentences come from the shipped fixtures that re-type the seed articles' examples: the
# tutorial sentence of `000_f06ef87264613ebc.txt` / `002_27c90cad815dc7d3.txt`, the Google
# examples of `003_9b9e8f448f39b158.txt`, the blog inputs of `004_ccc28872d55e65c5.txt` and
# the silence and "East Asian economy" examples of `001_4d9c0f31bc4f1899.txt`. Every number
# is computed twice: by the real library and by the harness engine.

# %%
import inspect
import math
import tempfile
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu
from sacrebleu.metrics import BLEU

import harness
from harness import PROFILES, LibraryWouldRaise
from harness.data.fixtures import list_fixtures, load_fixture
from harness.run.runner import versions
from harness.scorers.sacrebleu_adapter import quiet_sacrebleu

for name, version in versions().items():
    print(f"{name:>14}: {version}")
print("harness.sentence_bleu", inspect.signature(harness.sentence_bleu))
for profile in ("sacrebleu-sentence", "nltk"):
    print(f"harness signature ({profile}):", PROFILES[profile].signature())
print("nltk.translate.bleu_score.sentence_bleu", inspect.signature(nltk_sentence_bleu))
FIG_DIR = Path(tempfile.mkdtemp(prefix="bleu-notebook-02-"))


def show(fig):
    """Display a figure under Jupyter (the Agg backend draws nothing by itself)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is not None:
        display(fig)


# %% [markdown]
# ## The sentences
#
# In smoke mode, one representative segment per worked example; otherwise every segment of
# every seed fixture (duplicates removed).

# %%
PICKS = [
    ("tutorial_cat_on_the_mat", "candidate", 0),
    ("google_nasa_opportunity", "candidate_1", 0),
    ("google_nasa_opportunity", "candidate_2", 0),
    ("google_unigram_clipping", "candidate", 0),
    ("east_asian_economy_diverse", "mt", 0),
    ("blog_code_examples", "candidate", 0),
    ("blog_code_examples", "candidate", 1),
    ("silence_pitfall", "A", 7),
    ("reference_layout_placeholders", "mt", 0),
]
if not SMOKE:
    for fixture_name in list_fixtures():
        fx = load_fixture(fixture_name)
        if "seed" in fx.tags:
            PICKS += [(fixture_name, s, i) for s in fx.system_names for i in range(len(fx.ids))]

segments: dict[str, tuple[str, tuple[str, ...]]] = {}
for fixture_name, system, i in PICKS:
    fx = load_fixture(fixture_name)
    hyp, refs = fx.systems[system][i], fx.references[i]
    if hyp.strip() and (hyp, refs) not in segments.values():
        segments[f"{fixture_name}/{system}/{fx.ids[i]}"] = (hyp, refs)
for label, (hyp, refs) in segments.items():
    print(f"{label}: {hyp!r} vs {len(refs)} reference(s)")

# %% [markdown]
# ## sacrebleu: `exp`, `floor`, `add-k`, `none`
#
# `BLEU(smooth_method=m, effective_order=True).sentence_score(hyp, refs)` — what
# `sacrebleu.sentence_bleu` does — next to `harness.sentence_bleu(..., smooth=m)` (the
# `sacrebleu-sentence` profile). Scores are on 0–100.

# %%
SACRE_METHODS = ("exp", "floor", "add-k", "none")
sacre: dict[str, dict[str, float]] = {m: {} for m in SACRE_METHODS}
sacre_gap = 0.0
with quiet_sacrebleu():
    for m in SACRE_METHODS:
        metric = BLEU(smooth_method=m, effective_order=True)
        for label, (hyp, refs) in segments.items():
            real = metric.sentence_score(hyp, list(refs)).score
            ours = harness.sentence_bleu(hypothesis=hyp, references=refs, smooth=m).score
            sacre[m][label] = real
            sacre_gap = max(sacre_gap, abs(real - ours))
print(f"{'segment':<44}" + "".join(f"{m:>9}" for m in SACRE_METHODS))
for label in segments:
    print(f"{label:<44}" + "".join(f"{sacre[m][label]:9.3f}" for m in SACRE_METHODS))
print(f"largest |sacrebleu - harness| over all cells: {sacre_gap:.2e}")

# %% [markdown]
# Without smoothing, any sentence with no matching 4-gram scores exactly 0; `floor` gives
# the missing order a precision of 0.1/total, `exp` halves it for each further zero order,
# and `add-k` adds 1 to the matches and totals of orders ≥ 2 — the same sentence can be
# anywhere from 0 to about 50. The placeholder sentence of `reference_layout_placeholders`
# shares no word with its references: there every method returns 0, because sacrebleu stops
# early when no unigram matches (sacrebleu#141) instead of letting smoothing invent a score.

# %% [markdown]
# ## nltk: `method0` … `method7`
#
# The real `nltk.translate.bleu_score.sentence_bleu(references, hypothesis, ...)` (note the
# argument order: references first) on `str.split` tokens, next to the harness's `nltk`
# profile. nltk returns 0–1; it is multiplied by 100 here. `method6` asserts a non-zero
# trigram precision; the harness reports that as `LibraryWouldRaise` instead of crashing.

# %%
smoothing = SmoothingFunction()
NLTK_METHODS = tuple(range(8))
nltk_scores: dict[int, dict[str, float]] = {k: {} for k in NLTK_METHODS}
nltk_raised: dict[int, list[str]] = {k: [] for k in NLTK_METHODS}
harness_raised: dict[int, list[str]] = {k: [] for k in NLTK_METHODS}
nltk_rel_gap = 0.0
for k in NLTK_METHODS:
    for label, (hyp, refs) in segments.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # method0 warns on every zero-count order
                real = 100 * nltk_sentence_bleu(
                    [r.split() for r in refs],
                    hyp.split(),
                    smoothing_function=getattr(smoothing, f"method{k}"),
                )
        except AssertionError:
            nltk_raised[k].append(label)
            real = math.nan
        try:
            ours = harness.sentence_bleu(
                hypothesis=hyp, references=refs, profile="nltk", smooth=f"nltk-method{k}"
            ).score
        except LibraryWouldRaise:
            harness_raised[k].append(label)
            ours = math.nan
        nltk_scores[k][label] = real
        if not math.isnan(real):
            nltk_rel_gap = max(nltk_rel_gap, abs(real - ours) / max(abs(real), 1e-300))
print(f"{'segment':<44}" + "".join(f"{'m' + str(k):>10}" for k in NLTK_METHODS))
for label in segments:
    print(f"{label:<44}" + "".join(f"{nltk_scores[k][label]:10.3g}" for k in NLTK_METHODS))
print(f"largest relative |nltk - harness|: {nltk_rel_gap:.2e}")
print("method6 raised on:", nltk_raised[6])

# %% [markdown]
# The `m0` column is the trap: a number such as `7.6e-76` *looks* like a score, prints as
# `0.00` when rounded, and averages to something tiny but non-zero. It is not a small
# score, it is an artefact of replacing log(0).
#
# ## Effective order
#
# `east_asian_economy_diverse` (seed `001_4d9c0f31bc4f1899.txt`, pitfall 2) has a
# three-word hypothesis that equals one of its four references. It has no 4-gram at all, so
# whether it gets the article's "BLEU = 1" depends only on whether empty orders count.

# %%
ea_hyp, ea_refs = segments["east_asian_economy_diverse/mt/1"]
effective: dict[bool, tuple[float, float]] = {}
with quiet_sacrebleu():
    for eff in (True, False):
        real = BLEU(effective_order=eff).sentence_score(ea_hyp, list(ea_refs)).score
        ours = harness.sentence_bleu(
            hypothesis=ea_hyp, references=ea_refs, effective_order=eff
        ).score
        effective[eff] = (real, ours)
        print(f"effective_order={eff!s:<5}: sacrebleu {real:8.4f}, harness {ours:8.4f}")

# %% [markdown]
# ## Corpus BLEU is not the mean of sentence BLEU
#
# The silence pitfall of `001_4d9c0f31bc4f1899.txt`: system A mistranslates one word of the
# last sentence, system B outputs nothing for it. Corpus BLEU sums the statistics first and
# ranks B above A; averaging sentence scores gives B's empty line a 0 and ranks A above B.

# %%
silence = load_fixture("silence_pitfall")
aggregation: dict[str, dict[str, float]] = {}
with quiet_sacrebleu():
    for system in silence.system_names:
        c = silence.corpus(system)
        corpus_real = BLEU().corpus_score(list(c.hypotheses), c.to_streams()).score
        sentence_metric = BLEU(effective_order=True)
        mean_real = sum(
            sentence_metric.sentence_score(h, list(r)).score
            for h, r in zip(c.hypotheses, c.references, strict=True)
        ) / len(c)
        aggregation[system] = {
            "corpus (sacrebleu)": corpus_real,
            "corpus (harness)": harness.corpus_bleu(
                hypotheses=c.hypotheses, references=c.references, profile="sacrebleu"
            ).score,
            "sentence mean (sacrebleu)": mean_real,
            "sentence mean (harness)": harness.corpus_bleu(
                hypotheses=c.hypotheses, references=c.references, profile="sacrebleu-sentence"
            ).score,
        }
for system, row in aggregation.items():
    print(system, "  ".join(f"{k}: {v:.4f}" for k, v in row.items()))

# %% [markdown]
# nltk's `corpus_bleu` adds its own twist (nltk PR #3903): methods 4–7 see the hypothesis
# and references of the *last* segment, left over from a loop. On system B, whose last line
# is empty, `method6` gives a corpus "BLEU" above 1, and reversing the segment order changes
# it. The harness reproduces the quirk on purpose (profile `nltk`, `smooth="nltk-method6"`).

# %%
b_corpus = silence.corpus("B")
b_refs = [[r.split() for r in refs] for refs in b_corpus.references]
b_hyps = [h.split() for h in b_corpus.hypotheses]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    m6_forward = nltk_corpus_bleu(b_refs, b_hyps, smoothing_function=smoothing.method6)
    m6_reversed = nltk_corpus_bleu(b_refs[::-1], b_hyps[::-1], smoothing_function=smoothing.method6)
m6_harness = harness.corpus_bleu(
    hypotheses=b_corpus.hypotheses,
    references=b_corpus.references,
    profile="nltk",
    smooth="nltk-method6",
).score
print(f"nltk corpus_bleu method6: {m6_forward:.4f} (0-1 scale); reversed order: {m6_reversed:.4f}")
print(f"harness nltk profile, method6: {m6_harness:.4f} (0-100 scale)")

# %% [markdown]
# ## Sentence scores per smoothing method
#
# Left: sacrebleu's methods (linear scale). Right: nltk's methods on a log scale — `method0`
# sits some 70 orders of magnitude below the others on every sentence with a missing order.

# %%
labels = list(segments)
x = range(len(labels))
fig, (ax_s, ax_n) = plt.subplots(1, 2, figsize=(13, 4.5), sharex=True)
for m in SACRE_METHODS:
    ax_s.plot(x, [sacre[m][lb] for lb in labels], marker="o", linestyle="", label=m)
ax_s.set_title("sacrebleu sentence_score (effective order)")
ax_s.set_ylabel("BLEU (0-100)")
for k in NLTK_METHODS:
    ys = [nltk_scores[k][lb] for lb in labels]
    ax_n.plot(x, ys, marker="o", linestyle="", label=f"method{k}")
ax_n.set_yscale("log")
ax_n.set_title("nltk sentence_bleu (x100, log scale)")
for ax in (ax_s, ax_n):
    ax.set_xticks(list(x))
    ax.set_xticklabels(
        [lb.split("/")[0][:14] + "/" + lb.split("/")[-1] for lb in labels],
        rotation=60,
        ha="right",
        fontsize=7,
    )
    ax.legend(fontsize=7)
fig.tight_layout()
fig_path = FIG_DIR / "sentence_scores_per_smoothing.png"
fig.savefig(fig_path, dpi=100)
show(fig)
plt.close(fig)
print("figure written to", fig_path)

# %% [markdown]
# ## Checks

# %%
zero_order = [lb for lb in labels if sacre["none"][lb] == 0.0 and sacre["exp"][lb] > 0]
no_match = [lb for lb in labels if sacre["exp"][lb] == 0.0]
# 1. The harness engine reproduces both libraries on every sentence and method.
assert sacre_gap < 1e-9
assert nltk_rel_gap < 1e-9
assert nltk_raised[6] == harness_raised[6] and nltk_raised[6]
# 2. Without smoothing a missing order gives exactly 0; each smoothing gives a different number.
assert zero_order
for lb in zero_order:
    assert sacre["exp"][lb] > 0 and sacre["floor"][lb] > 0 and sacre["add-k"][lb] > 0
    assert len({round(sacre[m][lb], 9) for m in ("exp", "floor", "add-k")}) > 1
# 2b. Without a single matching word every method gives 0, in both libraries (sacrebleu#141).
assert no_match
for lb in no_match:
    assert all(sacre[m][lb] == 0.0 for m in SACRE_METHODS)
    assert all(nltk_scores[k][lb] == 0.0 for k in NLTK_METHODS)
# 3. nltk's default method0 returns tiny positive numbers instead of 0.
for lb in zero_order:
    assert 0 < nltk_scores[0][lb] < 1e-60
    assert nltk_scores[1][lb] > 1  # any real smoothing gives a visible score
# 4. Effective order decides the "BLEU = 1" of the East Asian economy example.
assert abs(effective[True][0] - 100) < 1e-9 and abs(effective[True][1] - 100) < 1e-9
assert effective[False][0] < 100 and abs(effective[False][0] - effective[False][1]) < 1e-9
# 5. Corpus BLEU ranks the silent system B above A; the mean of sentence BLEU does the opposite.
a, b = aggregation["A"], aggregation["B"]
assert a["corpus (sacrebleu)"] < b["corpus (sacrebleu)"]
assert a["sentence mean (sacrebleu)"] > b["sentence mean (sacrebleu)"]
assert abs(a["corpus (sacrebleu)"] - a["corpus (harness)"]) < 1e-9
assert abs(b["sentence mean (sacrebleu)"] - b["sentence mean (harness)"]) < 1e-9
# 6. nltk corpus_bleu method6 exceeds 1 and depends on segment order (nltk PR #3903).
assert m6_forward > 1 and m6_forward != m6_reversed
assert abs(m6_harness - 100 * m6_forward) < 1e-9
print("all checks passed")
