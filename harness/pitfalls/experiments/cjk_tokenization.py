"""13a does not segment Japanese or Chinese; Korean keeps its spaces (sacrebleu#147, #171, #181).

sacrebleu's default tokenizer (13a, from mteval) only splits punctuation and spaces. Japanese
and Chinese are written without spaces, so each sentence stays (about) one token and BLEU
measures whole-sentence identity; sacrebleu offers ``zh``, ``char`` and ``ja-mecab`` for them.
Korean separates words by spaces, so 13a yields words (with particles attached) and
``ko-mecab`` splits morphemes. The seed 001 examples are Japanese too.

Run: the real sacrebleu (and torchmetrics' ``SacreBLEUScore``, which wraps the same
tokenizers) with tokenize = 13a, intl, char, zh, ja-mecab, ko-mecab on the shipped Japanese,
Chinese and Korean fixtures; nltk's default (whitespace split) for contrast. The verdict is
computed per language from sacrebleu's token counts and scores.
"""

from __future__ import annotations

from harness.data.fixtures import load_fixture
from harness.pitfalls import Experiment, Table, Verdict, fmt, measure_adapter, profile_of

FIXTURES = {"ja": "edge_cjk_ja", "zh": "edge_cjk_zh", "ko": "edge_cjk_ko"}
TOKENIZERS = ("13a", "intl", "char", "zh", "ja-mecab", "ko-mecab")
NATIVE = {"ja": "ja-mecab", "zh": "zh", "ko": "ko-mecab"}
"""The tokenizer made for each language."""


def run() -> Table:
    table = Table()
    for lang, name in FIXTURES.items():
        corpus = load_fixture(name).corpus("system")
        for tok in TOKENIZERS:
            for lib in ("sacrebleu", "torchmetrics-sacrebleu"):
                cfg = profile_of(lib).replace(tokenize=tok)
                table.add(measure_adapter(lib, corpus, cfg, case=f"{lang}/{tok}"))
        table.add(measure_adapter("nltk", corpus, case=f"{lang}/whitespace"))
        table.notes.setdefault("segments", {})[lang] = len(corpus)
    return table


def _tokens(table: Table, lang: str, tok: str) -> float | None:
    m = table.find("sacrebleu", f"{lang}/{tok}")
    if m is None or not m.ok:
        return None
    return m.extra["hyp_len"] / table.notes["segments"][lang]


def verdict(table: Table) -> Verdict:
    holds: list[str] = []
    fails: list[str] = []
    parts: list[str] = []
    for lang in FIXTURES:
        s13 = table.score("sacrebleu", f"{lang}/13a")
        native = NATIVE[lang]
        snat = table.score("sacrebleu", f"{lang}/{native}")
        schar = table.score("sacrebleu", f"{lang}/char")
        t13, tnat = _tokens(table, lang, "13a"), _tokens(table, lang, native)
        if s13 is None or t13 is None:
            parts.append(f"{lang}: sacrebleu 13a gave no number")
            fails.append(lang)
            continue
        if lang in ("ja", "zh"):
            ok = t13 <= 1.5 and s13 < 1.0 and snat is not None and snat >= 10.0
        else:
            ok = t13 > 2 and s13 > 0 and snat is not None and abs(snat - s13) > 0.01
        (holds if ok else fails).append(lang)
        native_text = (
            f"{native} {fmt(snat)} ({fmt(tnat, 1)} tokens/segment)"
            if snat is not None
            else f"{native} {table.get('sacrebleu', f'{lang}/{native}').status}"
        )
        parts.append(
            f"{lang}: 13a {fmt(s13)} ({fmt(t13, 1)} tokens/segment), {native_text}, char {fmt(schar)}"
        )
    wrap, scores_differ = [], []
    for lang in FIXTURES:
        for tok in TOKENIZERS:
            a = table.find("sacrebleu", f"{lang}/{tok}")
            b = table.find("torchmetrics-sacrebleu", f"{lang}/{tok}")
            if a is None or b is None or not (a.ok and b.ok):
                continue
            keys = ("hyp_len", "ref_len", "counts", "totals")
            if any(a.extra.get(k) != b.extra.get(k) for k in keys):
                wrap.append(f"{lang}/{tok}")
            elif abs(a.score - b.score) > 1e-3:  # type: ignore[operator]
                scores_differ.append((f"{lang}/{tok}", 0 in a.extra["counts"]))
    reason = "; ".join(parts)
    reason += (
        f"; torchmetrics SacreBLEUScore tokenizes differently from sacrebleu for {', '.join(wrap)}"
        if wrap
        else "; torchmetrics SacreBLEUScore gets the same tokens and n-gram counts as sacrebleu "
        "for every tokenizer"
    )
    if scores_differ:
        cases = ", ".join(c for c, _ in scores_differ)
        zero = all(z for _, z in scores_differ)
        reason += f" (scores differ for {cases}" + (
            ": an order with 0 matches, 0 without smoothing vs sacrebleu's exp smoothing)"
            if zero
            else ")"
        )
    gone = sorted(
        {m.implementation + ": " + m.detail[:80] for m in table.rows if m.status == "unavailable"}
    )
    if gone:
        reason += f"; unavailable: {'; '.join(gone)}"
    return Verdict.split(holds, fails, reason)


EXPERIMENT = Experiment(
    name="cjk_tokenization",
    claim=(
        "With sacrebleu's default 13a tokenizer, unsegmented Japanese and Chinese stay about one "
        "token per sentence and BLEU drops to about 0 while their own tokenizer (ja-mecab, zh) "
        "gives a usable score; Korean keeps word tokens under 13a and ko-mecab changes the score."
    ),
    source="sacrebleu#147, #171, #181; 001_4d9c0f31bc4f1899.txt (Japanese examples)",
    fixtures=tuple(FIXTURES.values()),
    implementations=("real sacrebleu", "real torchmetrics SacreBLEUScore", "real nltk (default)"),
    configs=tuple(f"tokenize={t}" for t in TOKENIZERS),
    run=run,
    verdict=verdict,
)
