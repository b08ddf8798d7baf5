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
# # 05 — BLEU against human MQM judgements, and when a BLEU difference means anything
#
# Two questions that come before "which BLEU is right":
#
# 1. **Does BLEU agree with people?** WMT21 en→de has expert MQM annotations (Freitag et
#    al. 2021) for 8 systems on 527 segments. `harness.analysis.human.wmt21_human_correlations`
#    correlates each library's BLEU profile with MQM at segment level (4216 pairs) and at
#    system level (8 systems), with Pearson, Spearman and Kendall τ-b and percentile
#    bootstrap intervals. The seed article `001_4d9c0f31bc4f1899.txt` cites Mathur et al.
#    (2020) for how fragile system-level correlations over a handful of systems are.
# 2. **Is a BLEU difference between two systems real?** Paired bootstrap resampling (Koehn
#    2004) and approximate randomisation (Riezler & Maxwell 2005), computed on cached
#    per-segment statistics (`harness.analysis.significance`; cf. sacrebleu#40, #70 and
#    compare-mt#25), including a tie-handling pitfall of sacrebleu's p-value.
#
# Without the shared data (`BLEU_HARNESS_DATA`) the notebook falls back to the shipped
# fixtures and says so: the "human" side is then the seed article's own judgement in the
# silence example. Smoke mode uses 200 bootstrap resamples, 1000 AR trials and two profiles.

# %%
import inspect
import itertools
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import harness
from harness import PROFILES, LibraryWouldRaise, Session
from harness.analysis.human import wmt21_human_correlations
from harness.analysis.significance import approximate_randomization, paired_bootstrap, prepare
from harness.bleu import engine
from harness.data.datasets import WMT21_DIR, load_wmt21_ende
from harness.data.fixtures import load_all, load_fixture
from harness.run.runner import versions
from harness.statistics.correlation import BootstrapOptions, correlate

for name, version in versions().items():
    print(f"{name:>14}: {version}")
for fn in (wmt21_human_correlations, paired_bootstrap, approximate_randomization):
    print(f"{fn.__name__}{inspect.signature(fn)}")
N_BOOT = 200 if SMOKE else 1000
AR_TRIALS = 1000 if SMOKE else 10000
IMPLEMENTATIONS = (
    ["sacrebleu", "nltk"]
    if SMOKE
    else ["sacrebleu", "sacrebleu-sentence", "nltk", "evaluate", "torchmetrics", "pycocoevalcap"]
)
for profile in IMPLEMENTATIONS:
    print(f"{profile:>18}: {PROFILES[profile].signature()}")
FIG_DIR = Path(tempfile.mkdtemp(prefix="bleu-notebook-05-"))


def show(fig):
    """Display a figure under Jupyter (the Agg backend draws nothing by itself)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is not None:
        display(fig)


USE_DATA = DATA is not None and (Path(DATA) / WMT21_DIR).is_dir()
if not USE_DATA:
    print(
        f"shared data not found (BLEU_HARNESS_DATA={DATA!r}): falling back to the shipped "
        "fixtures (no MQM scores; the human side is the seed article's judgement)"
    )

# %% [markdown]
# ## Correlations with confidence intervals, per profile
#
# With the data: BLEU vs MQM. In the fallback there is no human score per segment, so the
# cell measures something weaker and says so: how well each profile's sentence scores agree
# with sacrebleu's sentence BLEU over every segment of every shipped fixture.

# %%
if USE_DATA:
    human = wmt21_human_correlations(
        DATA,
        IMPLEMENTATIONS,
        bootstrap=BootstrapOptions(n_boot=N_BOOT, seed=SEED),
        session=Session(),
    )
    correlations = {
        name: {level: human.correlations[name][level] for level in ("segment", "system")}
        for name in IMPLEMENTATIONS
    }
    print(f"{human.dataset}: systems {list(human.systems)}; references {list(human.refs)}")
else:
    segments = [
        (fx.name, system, hyp, refs)
        for fx in load_all()
        for system, hyps in fx.systems.items()
        for hyp, refs in zip(hyps, fx.references, strict=True)
    ]

    def sentence_scores(profile):
        out = []
        for _, _, hyp, refs in segments:
            try:
                out.append(
                    harness.sentence_bleu(hypothesis=hyp, references=refs, profile=profile).score
                )
            except LibraryWouldRaise:
                out.append(None)
        return out

    reference_scores = sentence_scores("sacrebleu-sentence")
    correlations = {
        name: {
            "segment": correlate(sentence_scores(name), reference_scores, n_boot=N_BOOT, seed=SEED)
        }
        for name in IMPLEMENTATIONS
    }
    print(f"{len(segments)} fixture segments; x = profile, y = sacrebleu-sentence (not human)")
for name, levels in correlations.items():
    for level, corr in levels.items():
        cells = "  ".join(
            f"{m} {corr[m].value:+.3f} [{corr[m].ci_low:+.3f}, {corr[m].ci_high:+.3f}]"
            for m in ("pearson", "spearman", "kendall")
        )
        print(f"{name:<18} {level:<8} n={corr.n:<5} {cells}")

# %% [markdown]
# On WMT21, segment-level correlations of BLEU with MQM are weak (well below 0.3), with
# narrow intervals because there are thousands of pairs. System-level correlations look
# strong, but with 8 systems the bootstrap intervals are very wide: one system can move
# them. The profiles differ from each other far less than the intervals are wide.

# %%
fig, axes = plt.subplots(
    1, len(next(iter(correlations.values()))), figsize=(11, 3.8), squeeze=False
)
for ax, level in zip(axes[0], next(iter(correlations.values())), strict=True):
    for j, method in enumerate(("pearson", "spearman", "kendall")):
        ys = [i + (j - 1) * 0.22 for i in range(len(correlations))]
        est = [correlations[n][level][method] for n in correlations]
        ax.errorbar(
            [e.value for e in est],
            ys,
            xerr=[
                [e.value - e.ci_low for e in est],
                [e.ci_high - e.value for e in est],
            ],
            fmt="o",
            capsize=3,
            label=method,
        )
    ax.set_yticks(range(len(correlations)))
    ax.set_yticklabels(list(correlations))
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_title(f"{level} level ({'vs MQM' if USE_DATA else 'vs sacrebleu-sentence'})")
    ax.set_xlabel("correlation, 95% bootstrap CI")
    ax.legend(fontsize=8)
fig.tight_layout()
fig_path = FIG_DIR / "correlations_with_ci.png"
fig.savefig(fig_path, dpi=100)
show(fig)
plt.close(fig)
print("figure written to", fig_path)

# %% [markdown]
# ## Two systems that BLEU and the humans order differently
#
# With the data, the pair is picked, not hand-chosen: among the MQM-rated systems, the
# pair that sacrebleu orders against mean MQM with the largest MQM difference. In the
# fallback it is the silence example: the seed article judges system A (one wrong word)
# better than system B (an empty line), and corpus BLEU prefers B.

# %%
config = PROFILES["sacrebleu"]
if USE_DATA:
    bleu = human.system_scores["sacrebleu"]
    mqm = human.human_system
    against = [
        (abs(mqm[a] - mqm[b]), a, b)
        for a, b in itertools.combinations(human.systems, 2)
        if (bleu[a] - bleu[b]) * (mqm[a] - mqm[b]) < 0
    ]
    _, first, second = max(against)
    # baseline: the one humans prefer; system: the one BLEU prefers
    human_pick, bleu_pick = (first, second) if mqm[first] > mqm[second] else (second, first)
    pair = load_wmt21_ende(DATA, systems=[human_pick, bleu_pick])
    human_score = {s: mqm[s] for s in (human_pick, bleu_pick)}
    n_pairs = len(human.systems) * (len(human.systems) - 1) // 2
    print(f"{len(against)} of {n_pairs} pairs are ordered against MQM by sacrebleu")
else:
    silence = load_fixture("silence_pitfall")
    human_pick, bleu_pick = "A", "B"
    pair = {s: silence.corpus(s) for s in (human_pick, bleu_pick)}
    human_score = {"A": 1.0, "B": 0.0}  # the seed article's preference, not a measured score
tables = {s: prepare(engine.compute_statistics(c, config), config) for s, c in pair.items()}
for s in (human_pick, bleu_pick):
    print(f"{s:<16} BLEU {tables[s].score:7.3f}   human {human_score[s]:+.4f}")

# %% [markdown]
# ## Paired bootstrap and approximate randomisation
#
# The baseline is the system the humans prefer; the "system" is the one BLEU prefers. Both
# tests resample cached statistics (no re-tokenization); the seed is ours and is recorded in
# the signature.

# %%
boot = paired_bootstrap(tables[human_pick], tables[bleu_pick], config, resamples=N_BOOT, seed=SEED)
ar = approximate_randomization(
    tables[human_pick], tables[bleu_pick], config, trials=AR_TRIALS, seed=SEED, ci_resamples=N_BOOT
)
for result in (boot, ar):
    print(
        f"{result.method:<26} delta {result.delta:+.3f} BLEU, p = {result.p_value:.4f}; "
        f"95% CI {human_pick} {result.ci_baseline[0]:.2f}-{result.ci_baseline[1]:.2f}, "
        f"{bleu_pick} {result.ci_system[0]:.2f}-{result.ci_system[1]:.2f}"
    )
    print("   ", result.signature)

# %% [markdown]
# ## A pitfall in the p-value: a system against itself
#
# sacrebleu counts only resampled differences *strictly greater* than the observed one.
# Compare a system with itself: the observed difference is 0, every resampled difference is
# 0, nothing is counted, and the p-value is 1/(R+1) — "significant". The harness's default
# `ties="count"` counts ties and returns 1; `ties="strict"` reproduces sacrebleu.

# %%
same_strict = paired_bootstrap(
    tables[human_pick], tables[human_pick], config, resamples=N_BOOT, seed=SEED, ties="strict"
)
same_count = paired_bootstrap(
    tables[human_pick], tables[human_pick], config, resamples=N_BOOT, seed=SEED
)
print(f"same system, ties='strict' (sacrebleu): p = {same_strict.p_value:.5f}")
print(f"same system, ties='count' (harness):    p = {same_count.p_value:.5f}")

# %% [markdown]
# ## Checks

# %%
# 1. Every correlation has an interval around its estimate.
for levels in correlations.values():
    for corr in levels.values():
        for method in ("pearson", "spearman", "kendall"):
            e = corr[method]
            assert e.ci_low <= e.value <= e.ci_high, (method, e)
if USE_DATA:
    # 2. BLEU is a weak segment-level metric and a much stronger system-level one; with 8
    #    systems the system-level interval is wide.
    for name in IMPLEMENTATIONS:
        seg, sys_ = correlations[name]["segment"].pearson, correlations[name]["system"].pearson
        assert 0 < seg.value < 0.3 and seg.ci_low > 0
        assert sys_.value > seg.value
        assert sys_.ci_high - sys_.ci_low > 3 * (seg.ci_high - seg.ci_low)
    assert all(row["pairs_against_mqm"] > 0 for row in human.rankings)
else:
    # 2. Profiles agree with sacrebleu's sentence BLEU only partly on short fixture segments.
    assert correlations["sacrebleu"]["segment"].pearson.value < 1
# 3. BLEU and the humans order the chosen pair differently ...
assert tables[bleu_pick].score > tables[human_pick].score
assert human_score[human_pick] > human_score[bleu_pick]
# ... and BLEU's preference is not significant at the 5% level.
assert ar.p_value > 0.05 and boot.p_value > 0.05
assert boot.ci_baseline[0] <= boot.score_baseline <= boot.ci_baseline[1]
assert abs(boot.delta - (tables[bleu_pick].score - tables[human_pick].score)) < 1e-12
assert f"seed:{SEED}" in boot.signature and f"seed:{SEED}" in ar.signature
# 4. sacrebleu's strict rule calls a system significantly different from itself.
assert same_strict.p_value == 1 / (N_BOOT + 1) < 0.05
assert same_count.p_value == 1.0
print("all checks passed")
