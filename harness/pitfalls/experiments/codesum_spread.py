"""The BLEU variants of code summarization disagree on which model is best (Shi et al. 2022).

Shi et al. ("On the Evaluation of Neural Code Summarization", ICSE 2022) found six BLEU variants
in the field's papers and showed that the same predictions score up to ten points apart under
them, enough to change which model a paper reports as best. The five variants declared here
(``codesum-dcom``, ``-fc``, ``-dc``, ``-ncs``, ``-rc``; each proven equal to the toolbox's
``bleus()``, ``tests/test_profile_codesum.py``) score two generated models on one generated set
of comments:

* the comments are short (2–3 tokens, 40 %) or long (6–15 tokens), their words drawn from a
  Zipf distribution (``SEED``, so every run draws the same);
* model ``short-exact`` writes every short comment exactly and keeps half the words of a long
  one; model ``long-close`` keeps 30 % of the words of a short comment and 70 % of a long one.

A comment shorter than four tokens has no 4-gram: nltk's unsmoothed ``sentence_bleu`` (DCOM) gives
it about 0 even when it is exact, the +1 smoothing of NCS gives an exact one 100, method 4 of DC
something between — so how a variant smooths decides how much the short comments count, and with
it which model comes first. The verdict is computed from the scores: reproduced when the
variants do not all rank the same model first.
"""

from __future__ import annotations

import numpy as np

from harness.bleu.codesum_profiles import CODESUM_PROFILES
from harness.data.corpus import Corpus
from harness.pitfalls import Experiment, Table, Verdict, fmt, measure_profile
from harness.statistics.resampling import DEFAULT_SEED

SEED = DEFAULT_SEED
N_COMMENTS = 400
VOCABULARY = 300
SHORT_SHARE = 0.4

#: Model → (share of a short comment's words kept, of a long one's); 1.0 copies it.
MODELS = {"short-exact": (1.0, 0.5), "long-close": (0.3, 0.7)}

VARIANTS = tuple(p.name for p in CODESUM_PROFILES)


def data() -> dict[str, Corpus]:
    """The two models' predictions of the same generated comments, as corpora (one reference
    each)."""
    rng = np.random.default_rng(SEED)
    words = np.array([f"w{i}" for i in range(VOCABULARY)])
    zipf = 1.0 / np.arange(1, VOCABULARY + 1)
    zipf /= zipf.sum()
    comments = []
    for _ in range(N_COMMENTS):
        short = rng.random() < SHORT_SHARE
        length = int(rng.integers(2, 4) if short else rng.integers(6, 16))
        comments.append([str(w) for w in rng.choice(words, size=length, p=zipf)])
    references = tuple((" ".join(c),) for c in comments)
    out = {}
    for model, (short_keep, long_keep) in MODELS.items():
        predictions = []
        for comment in comments:
            keep = short_keep if len(comment) < 4 else long_keep
            predictions.append(
                " ".join(
                    w if rng.random() < keep else str(rng.choice(words, p=zipf)) for w in comment
                )
            )
        out[model] = Corpus(hypotheses=tuple(predictions), references=references)
    return out


def run() -> Table:
    table = Table()
    table.notes["data"] = (
        f"{N_COMMENTS} generated comments ({SHORT_SHARE:.0%} of 2-3 tokens, the others 6-15; "
        f"Zipf over {VOCABULARY} words; seed {SEED}), one reference each"
    )
    for model, corpus in data().items():
        for name in VARIANTS:
            table.add(measure_profile(name, corpus, case=model, label=name))
    return table


def verdict(table: Table) -> Verdict:
    first: dict[str, list[str]] = {}
    spread: list[str] = []
    for name in VARIANTS:
        scores = {m: table.score(name, m) for m in MODELS}
        if any(v is None for v in scores.values()):
            return Verdict("not reproduced", f"{name} gave no number on some model")
        best = max(scores, key=lambda m: scores[m])  # type: ignore[arg-type, return-value]
        first.setdefault(best, []).append(name)
    for model in MODELS:
        values = [table.score(name, model) for name in VARIANTS]
        low, high = min(values), max(values)  # type: ignore[type-var]
        spread.append(f"{model} {fmt(low)} to {fmt(high)}")
    ranking = "; ".join(
        f"{', '.join(names)} {'rank' if len(names) > 1 else 'ranks'} {m} first"
        for m, names in first.items()
    )
    reason = f"{table.notes['data']}: {ranking}; the variants span {', '.join(spread)}"
    return Verdict("reproduced" if len(first) > 1 else "not reproduced", reason)


EXPERIMENT = Experiment(
    name="codesum_spread",
    claim=(
        "The BLEU variants of code-summarization papers give the same predictions scores many "
        "points apart and can rank models differently."
    ),
    source=(
        "Shi et al., ICSE 2022, 'On the Evaluation of Neural Code Summarization' (its toolbox: "
        "../shared/reference-impls/codesum-evaluation)"
    ),
    fixtures=("generated comments (seeded)",),
    implementations=tuple(f"profile {name}" for name in VARIANTS),
    configs=tuple(
        f"model {m}: keeps {short:.0%} of a short comment, {long_:.0%} of a long one"
        for m, (short, long_) in MODELS.items()
    ),
    run=run,
    verdict=verdict,
)
