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
DATA = os.environ.get("BLEU_HARNESS_DATA")

# %% [markdown]
# # 04 — Why do the libraries disagree? Shapley attribution on WMT21 en→de
#
# "Why does library X give a different BLEU than library Y?" is asked again and again
# (evaluate#558, #693; torchmetrics#1776, #3504; nltk#1634). The harness answers it in
# three steps:
#
# 1. each library's default BLEU is a *profile* — a point in the space of BLEU factors
#    (tokenization, reference length, n-gram totals, smoothing, …);
# 2. the gap between two profiles on a corpus is split among the factors on which they
#    differ by exact Shapley values (`harness.analysis.attribution.attribute`): the engine
#    scores every hybrid configuration, and the factor values add up to the gap exactly;
# 3. the real library is run too, and the **residual** (library − engine) is what the factor
#    space does not explain.
#
# Data: WMT21 newstest2021 en→de (1002 segments, references A, C and D) from the shared data
# folder (`BLEU_HARNESS_DATA`). Without it, the notebook falls back to shipped fixtures (the
# silence example of `001_4d9c0f31bc4f1899.txt` and the Google example of
# `003_9b9e8f448f39b158.txt`) and says so. Smoke mode uses 3 WMT21 systems instead of 20.

# %%
import inspect
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from harness import PROFILES, Session
from harness.analysis.attribution import FACTORS, attribute
from harness.data.datasets import WMT21_DIR, WMT21_SYSTEMS, load_wmt21_ende
from harness.data.fixtures import load_fixture
from harness.report.attribution_words import attribution_markdown
from harness.run.runner import versions
from harness.scorers import get_adapter

for name, version in versions().items():
    print(f"{name:>14}: {version}")
print("attribute", inspect.signature(attribute))
PROFILE_NAMES = ["sacrebleu", "nltk", "evaluate", "torchmetrics"]
for profile in PROFILE_NAMES:
    print(f"{profile:>13}: {PROFILES[profile].signature()}")
FIG_DIR = Path(tempfile.mkdtemp(prefix="bleu-notebook-04-"))


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
# ## The corpora

# %%
USE_DATA = DATA is not None and (Path(DATA) / WMT21_DIR).is_dir()
if USE_DATA:
    wanted = ["Facebook-AI", "Online-W", "UEdin"] if SMOKE else list(WMT21_SYSTEMS)
    corpora = load_wmt21_ende(DATA, systems=wanted)
    n_segments = len(next(iter(corpora.values())))
    print(f"WMT21 en-de from {DATA}: {len(corpora)} systems x {n_segments} segments")
else:
    print(
        f"shared data not found (BLEU_HARNESS_DATA={DATA!r}): falling back to the shipped "
        "fixtures silence_pitfall and google_nasa_opportunity"
    )
    corpora = {}
    for fixture_name in ("silence_pitfall", "google_nasa_opportunity"):
        for system, corpus in load_fixture(fixture_name).corpora().items():
            corpora[f"{fixture_name}/{system}"] = corpus
print(list(corpora))
RESIDUAL_SYSTEMS = list(corpora)[:1] if SMOKE else list(corpora)  # checked against real libraries

# %% [markdown]
# ## Per-system scores under each library's profile
#
# A `harness.Session` holds the corpora and their statistics: each corpus is tokenized and
# counted once per tokenization, and every profile that shares it is scored from the same
# statistics.

# %%
session = Session(corpora)
rows = []
for system in corpora:
    row = {"system": system}
    for profile, result in session.scores(
        {p: PROFILES[p] for p in PROFILE_NAMES}, system, segments=False
    ).items():
        row[profile] = result.corpus.score
    rows.append(row)
scores = pd.DataFrame(rows).set_index("system")[PROFILE_NAMES]
gaps = scores[PROFILE_NAMES[1:]].sub(scores["sacrebleu"], axis=0)
with pd.option_context("display.width", 120, "display.precision", 4):
    print("BLEU (0-100):")
    print(scores)
    print("\ngap to sacrebleu (BLEU points):")
    print(gaps)
reference_ranking = list(scores["sacrebleu"].sort_values(ascending=False).index)
for profile in PROFILE_NAMES:
    ranking = list(scores[profile].sort_values(ascending=False).index)
    verdict = "same as sacrebleu" if ranking == reference_ranking else "DIFFERS from sacrebleu"
    print(f"ranking by {profile:<13} ({verdict}): {ranking}")

# %% [markdown]
# ## Attribution: which factor makes each gap
#
# `attribute(corpus, "sacrebleu", b)` moves the engine from sacrebleu's defaults to library
# *b*'s, through every subset of the differing factors. For nltk the real library is run as
# well (`library="nltk"`), so the residual is reported (in smoke mode on the first system
# only: the real nltk is the slow part). The factors are the harness's
# factor groups: `tokenization`, `ref_length`, `ngram_totals`, `smoothing` (with the zero
# guard), `zero_length`, ….

# %%
attributions = {}
for system, corpus in corpora.items():
    for target in PROFILE_NAMES[1:]:
        real_library = "nltk" if target == "nltk" and system in RESIDUAL_SYSTEMS else None
        attributions[system, target] = attribute(
            corpus, "sacrebleu", target, library=real_library, session=session
        )
factor_rows = []
for (system, target), result in attributions.items():
    factor_rows.append({"system": system, "b": target, "gap": result.gap, **dict(result.factors)})
factor_table = pd.DataFrame(factor_rows).fillna(0.0)
with pd.option_context("display.width", 160, "display.precision", 4):
    print(factor_table.to_string(index=False))
# A non-zero `ref_length` in a torchmetrics row is its tie rule: among equally close
# references it takes the first listed one, sacrebleu the shorter (torchmetrics#3504).
first = attributions[next(iter(corpora)), "nltk"]
print()
print(attribution_markdown(first))

# %% [markdown]
# ## Attribution bars
#
# One panel per target library; each bar stacks the factor values of one system (positive
# parts above zero, negative below). The black dot is the gap; it sits at the end of the
# stack because Shapley values add up exactly.

# %%
factor_names = [f for f in FACTORS if f in factor_table.columns]
colours = dict(zip(factor_names, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
for ax, target in zip(axes, PROFILE_NAMES[1:], strict=True):
    sub = factor_table[factor_table["b"] == target].set_index("system")
    x = list(range(len(sub)))
    pos = [0.0] * len(sub)
    neg = [0.0] * len(sub)
    for factor in factor_names:
        values = sub[factor].tolist()
        bottoms = [p if v >= 0 else n for v, p, n in zip(values, pos, neg, strict=True)]
        ax.bar(x, values, bottom=bottoms, color=colours[factor], label=factor)
        pos = [p + max(v, 0) for v, p in zip(values, pos, strict=True)]
        neg = [n + min(v, 0) for v, n in zip(values, neg, strict=True)]
    ax.plot(x, sub["gap"].tolist(), "ko", label="gap")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_title(f"sacrebleu -> {target}")
    ax.set_xticks(x)
    ax.set_xticklabels(sub.index, rotation=60, ha="right", fontsize=7)
axes[0].set_ylabel("BLEU points")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="upper right", fontsize=8)
fig.tight_layout()
fig_path = FIG_DIR / "attribution_bars.png"
fig.savefig(fig_path, dpi=100)
show(fig)
plt.close(fig)
print("figure written to", fig_path)

# %% [markdown]
# ## Residuals against the real libraries
#
# The attribution is only as good as the profiles. For nltk the residual comes from the
# attribution above; for sacrebleu it is the real `corpus_score` minus the engine's
# `sacrebleu` profile (what `attribute(corpus, "nltk", "sacrebleu", library="sacrebleu")`
# would report). In smoke mode only the first system is checked. Outside smoke mode
# torchmetrics (which computes in float32) is checked as well, on the first three systems
# (torch on CPU is slow). The `evaluate` module is fetched from the Hugging Face Hub, so
# offline it is usually unavailable: the cell reports why instead of failing.

# %%
residuals: dict[tuple[str, str], float] = {}
sacrebleu_adapter = get_adapter("sacrebleu")
for index, system in enumerate(RESIDUAL_SYSTEMS):
    corpus = corpora[system]
    residuals[system, "nltk"] = attributions[system, "nltk"].residual
    real = sacrebleu_adapter.corpus(corpus, PROFILES["sacrebleu"])
    residuals[system, "sacrebleu"] = real.score - scores.loc[system, "sacrebleu"]
    if not SMOKE and index < 3:  # torchmetrics on the first three systems only
        tm = attribute(corpus, "sacrebleu", "torchmetrics", library="torchmetrics", session=session)
        residuals[system, "torchmetrics"] = tm.residual
for (system, library), value in residuals.items():
    print(f"{system:<40} {library:<13} residual {value:+.2e}")
evaluate_availability = get_adapter("evaluate").available()
print("evaluate available:", evaluate_availability.ok, evaluate_availability.reason[:160])

# %% [markdown]
# ## Checks

# %%
# 1. Shapley values add up to the gap, for every system and target.
for result in attributions.values():
    assert abs(result.explained - result.gap) < 1e-9
# 2. The nltk profile disagrees with sacrebleu on every system ...
assert all(abs(gaps.loc[s, "nltk"]) > 0.1 for s in corpora)
# 3. ... and the profiles reproduce the real libraries: residuals are (numerically) zero.
for (system, library), value in residuals.items():
    assert abs(value) < (1e-4 if library == "torchmetrics" else 1e-9), (system, library, value)
if USE_DATA:
    # 4. On WMT21, tokenization (13a vs str.split) explains almost all of sacrebleu -> nltk.
    for system in corpora:
        result = attributions[system, "nltk"]
        assert max(result.factors, key=lambda f: abs(result.factors[f])) == "tokenization"
        assert result.share("tokenization") > 0.95
else:
    # 4. On the short fixtures, zero n-gram counts make smoothing matter for nltk everywhere.
    for system in corpora:
        assert abs(attributions[system, "nltk"].factors["smoothing"]) > 1
print("all checks passed")
