"""pycocoevalcap: ``pycocoevalcap.bleu.bleu.Bleu(n).compute_score(gts, res)``.

Layout: two dicts keyed by segment id, ``gts[id]`` = list of reference strings, ``res[id]`` =
a one-element list with the hypothesis (``bleu/bleu.py`` asserts ``gts.keys() == res.keys()``
and ``len(hypo) == 1``). Tokens: ``precook`` splits on whitespace (``bleu/bleu_scorer.py``); the
COCO pipeline normally runs the Java PTB tokenizer first (lowercases, drops punctuation) — the
adapter does that only with ``ptb=True`` *and* ``java`` on the PATH, and records it in the
signature as ``pretok:coco-ptb``. Other harness tokenizers and ``lowercase`` are expressed by
pre-tokenizing with the harness and joining tokens with single spaces.

What it computes (``bleu_scorer.py`` ``compute_score``): closest reference length (ties to the
shorter: ``min((abs(l - testlen), l) ...)``), plain totals (``max(0, testlen - k + 1)``), no
smoothing but ``(correct + 1e-15) / (guess + 1e-9)`` per order, and the brevity penalty from
``ratio = (testlen + 1e-15) / (reflen + 1e-9)`` — so even equal lengths get a BP a hair below 1.
It returns the cumulative BLEU-1..n list; the score is BLEU-n (``max_order``).

It prints its statistics to stdout (``verbose=1``: the corpus totals and ``ratio``; ``verbose=2``
adds one line per segment). The adapter captures that output and reads ``counts``, ``totals``,
lengths and ratio from it, so nothing reaches the terminal. BP and precisions are not exposed.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shutil
from dataclasses import dataclass
from typing import Any

from harness.bleu.config import TOKENIZERS, BleuConfig
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import TextRules
from harness.data.corpus import Corpus
from harness.errors import UnsupportedSetting
from harness.scorers.base import (
    HARNESS_TOKENS,
    NAN,
    Adapter,
    Availability,
    Rule,
    as_segment,
    extras,
    follows,
    joined_tokens,
    only,
    uniform_weights,
)

PTB_EXTRA = ("pretok", "coco-ptb")


@dataclass(frozen=True)
class _NeedsPtb(Rule):
    """``extra`` with ``ptb=True``: the PTB step must be recorded, and nothing else."""

    def refusal(self, field: str, config: BleuConfig, library: str) -> str | None:
        if PTB_EXTRA not in config.extra:
            return "ptb=True needs ('pretok', 'coco-ptb') in config.extra"
        return extras(self.allowed or (), self.why).refusal(field, config, library)


def _parse_dict(text: str) -> dict[str, Any] | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, dict) else None


class PycocoevalcapAdapter(Adapter):
    """The COCO caption BLEU scorer."""

    name = "pycocoevalcap"
    TEXT = HARNESS_TOKENS
    distribution = "pycocoevalcap"
    profile = "pycocoevalcap"
    module = "pycocoevalcap.bleu.bleu"
    install_hint = "pip install pycocoevalcap==1.2"

    def __init__(self, *, ptb: bool = False) -> None:
        self.ptb = ptb

    def available(self) -> Availability:
        base = super().available()
        if base.ok and self.ptb and shutil.which("java") is None:
            return Availability(
                False, "ptb=True needs java on the PATH (Stanford PTB tokenizer)", "install a JRE"
            )
        return base

    def default_config(self) -> BleuConfig:
        config = super().default_config()
        if self.ptb:
            # the PTB tokenizer runs with -lowerCase and then drops punctuation tokens
            return config.replace(lowercase=True, extra=(*config.extra, PTB_EXTRA))
        return config

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        if self.ptb:
            text = {
                "extra": _NeedsPtb((PTB_EXTRA,), "records the PTB step as pretok:coco-ptb"),
                "tokenize": only(("whitespace", "none"), "splits the PTB output on whitespace"),
                "lowercase": only((True,), "runs the PTB tokenizer with -lowerCase"),
            }
        else:
            text = {
                "tokenize": only(TOKENIZERS, "splits on whitespace (harness pre-tokenizes)"),
                "lowercase": follows("gets harness tokens"),
                "extra": extras((), "no extra factors (use ptb=True for the PTB tokenizer)"),
            }
        return {
            **self.base_rules(config),
            **text,
            "max_order": follows("passed as Bleu(n)"),
            "ref_length": only(("closest",), "Bleu.compute_score uses option='closest'"),
            "ngram_totals": only(("plain",), "counts max(0, len - n + 1) n-grams per segment"),
            "smooth": only(("coco-epsilon",), "always uses (m + 1e-15) / (t + 1e-9)"),
            "smooth_value": follows("cannot be set for coco-epsilon"),
            "weights": uniform_weights("has no weights argument"),
            "effective_order": only((False,), "has no effective order"),
            "empty_order": only(("zero",), "gives an empty order (0 + 1e-15) / (0 + 1e-9)"),
            "zero_guard": only(("none",), "never stops early"),
            "on_zero_length": only(("zero",), "never divides by zero (epsilons)"),
        }

    # ------------------------------------------------------------------ translation
    def _texts(self, corpus: Corpus, config: BleuConfig) -> tuple[dict, dict, str]:
        ids = list(corpus.ids)
        if self.ptb:
            from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

            tok = PTBTokenizer()
            gts = tok.tokenize(
                {
                    i: [{"caption": r} for r in refs]
                    for i, refs in zip(ids, corpus.references, strict=True)
                }
            )
            res = tok.tokenize(
                {i: [{"caption": h}] for i, h in zip(ids, corpus.hypotheses, strict=True)}
            )
            if set(gts) != set(ids) or set(res) != set(ids):
                raise UnsupportedSetting(
                    self.name, "the PTB tokenizer lost lines (empty captions are not kept)"
                )
            note = " on PTBTokenizer().tokenize(...) output"
            return {i: gts[i] for i in ids}, {i: res[i] for i in ids}, note
        if config.text_rules == TextRules(tokenize=config.tokenize) and config.tokenize in (
            "whitespace",
            "none",
        ):
            hyps, refs = list(corpus.hypotheses), [list(r) for r in corpus.references]
            note = ""
        else:
            hyps = joined_tokens(corpus.hypotheses, config, self.name)
            refs = [joined_tokens(seg, config, self.name) for seg in corpus.references]
            note = (
                f" on ' '.join(harness.bleu.tokenizers.tokenize(text, {config.tokenize!r}, "
                f"lowercase={config.lowercase}))"
            )
        gts = {i: r for i, r in zip(ids, refs, strict=True)}
        res = {i: [h] for i, h in zip(ids, hyps, strict=True)}
        return gts, res, note

    def _run(self, corpus: Corpus, config: BleuConfig, verbose: int) -> tuple[Any, Any, str, str]:
        from pycocoevalcap.bleu.bleu import Bleu

        gts, res, note = self._texts(corpus, config)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            score, scores = Bleu(config.max_order).compute_score(gts, res, verbose=verbose)
        call = f"pycocoevalcap.bleu.bleu.Bleu({config.max_order}).compute_score(gts, res, verbose={verbose}){note}"
        return score, scores, buf.getvalue(), call

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        score, _, printed, call = self._run(corpus, config, verbose=1)
        totals_line = next((ln for ln in printed.splitlines() if ln.startswith("{")), "")
        comps = _parse_dict(totals_line) or {}
        m = re.search(r"^ratio:\s*(\S+)", printed, flags=re.M)
        ratio = float(m.group(1)) if m else NAN
        return self._result(config, score, comps, ratio, call)

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        _, scores, printed, call = self._run(corpus, config, verbose=2)
        lines = [ln for ln in printed.splitlines() if ln.startswith("{")]
        per_segment = []
        for ln in lines[: len(corpus)]:  # the last "{" line is the corpus totals
            head, _, reflen = ln.rpartition("} ")
            comps = _parse_dict(head + "}") or {}
            with contextlib.suppress(ValueError):
                comps["reflen"] = float(reflen) if "." in reflen else int(reflen)
            per_segment.append(comps)
        n = config.max_order
        out = []
        for i, sid in enumerate(corpus.ids):
            comps = per_segment[i] if i < len(per_segment) else {}
            seg_score = [scores[k][i] for k in range(n)]
            # the scorer prints no per-segment ratio, so none is reported
            r = self._result(config, seg_score, comps, NAN, call)
            out.append(as_segment(r, sid))
        return out

    def _result(
        self, config: BleuConfig, score: list[float], comps: dict[str, Any], ratio: float, call: str
    ) -> BleuResult:
        counts = comps.get("correct")
        totals = comps.get("guess")
        reflen = comps.get("reflen", 0)
        if isinstance(reflen, float) and reflen.is_integer():
            reflen = int(reflen)
        return self.result(
            config,
            score=100.0 * float(score[config.max_order - 1]),
            precisions=(),
            bp=NAN,
            ratio=ratio,
            hyp_len=int(comps.get("testlen", 0)),
            ref_len=reflen if isinstance(reflen, int | float) else 0,
            counts=tuple(int(c) for c in counts) if counts is not None else None,
            totals=tuple(int(t) for t in totals) if totals is not None else None,
            call=call,
            extra={"bleu_cumulative": [100.0 * float(s) for s in score]},
        )
