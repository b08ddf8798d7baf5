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
# # 03 — Chinese, Japanese and Korean: tokenization decides the score
#
# BLEU counts n-grams of *tokens*. sacrebleu's default tokenizer, `13a`, splits on spaces and
# Western punctuation; Chinese and Japanese are written without spaces, so under `13a` a
# whole sentence is one or two tokens, and a nearly perfect translation can score 0. Korean
# has spaces, but its words carry attached particles and endings, so whole words rarely
# match. sacrebleu ships `zh` (splits CJK characters), `char`, `ja-mecab` and `ko-mecab`
# (morphological analysers); the trouble is that they are opt-in, and a wrapper that does
# not pass `tokenize` through leaves you with `13a` (CJK scoring questions: sacrebleu#147,
# #171, #181; through a wrapper: transformers#14758).
#
# The corpora are the harness's CJK edge cases, `edge_cjk_zh`, `edge_cjk_ja` and
# `edge_cjk_ko` (written for this project; segment 1 of the Japanese one is the source
# sentence of the silence example in `001_4d9c0f31bc4f1899.txt`). Every score is computed by
# the real sacrebleu and by the harness engine. This notebook is small; smoke mode runs it
# unchanged.

# %%
import inspect
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from sacrebleu.metrics import BLEU

import harness
from harness import AdapterUnavailable, resolve_config
from harness.bleu.tokenizers import get_tokenizer, tokenize
from harness.data.fixtures import load_fixture
from harness.run.runner import versions
from harness.scorers import get_adapter
from harness.scorers.sacrebleu_adapter import quiet_sacrebleu

for name, version in versions().items():
    print(f"{name:>14}: {version}")
print("harness.corpus_bleu", inspect.signature(harness.corpus_bleu))
TOKENIZERS = ["13a", "whitespace", "zh", "char", "ja-mecab", "ko-mecab"]
for tok in TOKENIZERS:
    print(
        f"harness signature (sacrebleu, tokenize={tok}):", resolve_config(tokenize=tok).signature()
    )
FIG_DIR = Path(tempfile.mkdtemp(prefix="bleu-notebook-03-"))


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
# The MeCab tokenizers need optional packages (`pip install 'bleu-harness[cjk]'`); without
# them the notebook leaves those columns out and says so.

# %%
available = []
for tok in TOKENIZERS:
    try:
        get_tokenizer(tok)
    except AdapterUnavailable as exc:
        print(f"skipping {tok}: {exc}")
    else:
        available.append(tok)
print("tokenizers used:", available)

# %% [markdown]
# ## What each tokenizer sees

# %%
LANGS = {"zh": "edge_cjk_zh", "ja": "edge_cjk_ja", "ko": "edge_cjk_ko"}
OWN = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
corpora = {lang: load_fixture(name).corpus("system") for lang, name in LANGS.items()}
for lang, corpus in corpora.items():
    print(f"{lang}: hypothesis {corpus.hypotheses[0]!r}, reference {corpus.references[0][0]!r}")
    for tok in available:
        print(f"   {tok:<10} {tokenize(corpus.hypotheses[0], tok)}")

# %% [markdown]
# ## Corpus BLEU per tokenizer: real sacrebleu vs the harness engine
#
# `whitespace` is what nltk and torchmetrics users get when they call `str.split()` (it is
# sacrebleu's `none`).

# %%
SACRE_NAME = {"whitespace": "none"}
scores: dict[str, dict[str, float]] = {lang: {} for lang in corpora}
engine_gap = 0.0
with quiet_sacrebleu():
    for lang, corpus in corpora.items():
        for tok in available:
            real = BLEU(tokenize=SACRE_NAME.get(tok, tok)).corpus_score(
                list(corpus.hypotheses), corpus.to_streams()
            )
            ours = harness.corpus_bleu(
                hypotheses=corpus.hypotheses, references=corpus.references, tokenize=tok
            )
            scores[lang][tok] = real.score
            engine_gap = max(engine_gap, abs(real.score - ours.score))
print(f"{'':<4}" + "".join(f"{tok:>11}" for tok in available))
for lang in corpora:
    print(f"{lang:<4}" + "".join(f"{scores[lang][tok]:11.3f}" for tok in available))
print(f"largest |sacrebleu - harness|: {engine_gap:.2e}")

# %% [markdown]
# Under `13a` the Chinese and Japanese systems get 0 although most of their characters match.
# nltk's users fare no better: the real nltk on whitespace tokens (through the harness's nltk
# adapter) returns 0 or one of its tiny `method0` numbers.

# %%
nltk_adapter = get_adapter("nltk")
nltk_scores = {lang: nltk_adapter.corpus(corpus).score for lang, corpus in corpora.items()}
for lang, value in nltk_scores.items():
    print(f"nltk corpus_bleu (default settings) on {lang}: {value:.3g}")

# %% [markdown]
# ## An exact match that scores 0
#
# Segment 1 of `edge_cjk_ja` is translated *exactly*. Scored alone as a corpus, it is one
# `13a` token: there is no bigram at all, and corpus BLEU (no effective order) is 0. With
# `char` it is 100. At sentence level sacrebleu's effective order hides the problem.

# %%
exact = corpora["ja"].subset([0])
assert exact.hypotheses[0] == exact.references[0][0]
with quiet_sacrebleu():
    exact_13a = BLEU().corpus_score(list(exact.hypotheses), exact.to_streams()).score
    exact_char = BLEU(tokenize="char").corpus_score(list(exact.hypotheses), exact.to_streams())
    exact_sentence = BLEU(effective_order=True).sentence_score(
        exact.hypotheses[0], list(exact.references[0])
    )
print(
    f"13a corpus {exact_13a:.4f}, char corpus {exact_char.score:.4f}, "
    f"13a sentence {exact_sentence.score:.4f}"
)

# %% [markdown]
# ## Sentence-level view
#
# Per segment, sacrebleu's sentence BLEU (effective order) under `13a` and with
# `BLEU(trg_lang=...)`, which picks each language's own tokenizer (`zh`, `ja-mecab`,
# `ko-mecab`; the command line does the same for `-l en-zh` and so on). Without the MeCab
# packages the Japanese and Korean rows fall back to `char`.

# %%
with quiet_sacrebleu():
    for lang, corpus in corpora.items():
        metrics = {"13a": BLEU(effective_order=True)}
        if OWN[lang] in available:
            metrics[f"trg_lang={lang}"] = BLEU(trg_lang=lang, effective_order=True)
        else:
            metrics["char"] = BLEU(tokenize="char", effective_order=True)
        for label, metric in metrics.items():
            values = [
                metric.sentence_score(h, list(r)).score
                for h, r in zip(corpus.hypotheses, corpus.references, strict=True)
            ]
            line = " ".join(f"{v:7.2f}" for v in values)
            print(f"{lang} {label:<12} {line}   {metric.get_signature()}")

# %% [markdown]
# ## The same systems, six BLEU scores each

# %%
fig, ax = plt.subplots(figsize=(9, 4))
width = 0.8 / len(available)
for j, tok in enumerate(available):
    ax.bar(
        [i + j * width for i in range(len(corpora))],
        [scores[lang][tok] for lang in corpora],
        width=width,
        label=tok,
    )
ax.set_xticks([i + 0.4 - width / 2 for i in range(len(corpora))])
ax.set_xticklabels([LANGS[lang] for lang in corpora])
ax.set_ylabel("corpus BLEU (sacrebleu, 0-100)")
ax.legend(title="tokenize", fontsize=8)
fig.tight_layout()
fig_path = FIG_DIR / "cjk_bleu_per_tokenizer.png"
fig.savefig(fig_path, dpi=100)
show(fig)
plt.close(fig)
print("figure written to", fig_path)

# %% [markdown]
# ## Checks

# %%
# 1. The engine reproduces sacrebleu under every tokenizer.
assert engine_gap < 1e-9
# 2. 13a sees unsegmented Chinese and Japanese as whole sentences: BLEU 0 ...
for lang in ("zh", "ja"):
    assert scores[lang]["13a"] == 0.0
    assert all(len(tokenize(h, "13a")) <= 2 for h in corpora[lang].hypotheses)
    # ... while a CJK-aware tokenizer gives a substantial score.
    assert scores[lang]["char"] > 40 and scores[lang]["zh"] > 40
# 3. Korean has spaces, so 13a is not 0, but morpheme or character tokens change the score.
assert scores["ko"]["13a"] > 0
assert scores["ko"]["char"] != scores["ko"]["13a"]
if "ko-mecab" in available:
    assert scores["ko"]["ko-mecab"] > scores["ko"]["13a"]
if "ja-mecab" in available:
    assert scores["ja"]["ja-mecab"] > 0
# 4. An exact Japanese match scores 0 as a corpus under 13a, 100 under char.
assert exact_13a == 0.0 and abs(exact_char.score - 100) < 1e-9
assert abs(exact_sentence.score - 100) < 1e-9
# 5. nltk on whitespace tokens gives 0 or a meaningless tiny number.
assert all(v < 1e-60 for v in nltk_scores.values())
print("all checks passed")
