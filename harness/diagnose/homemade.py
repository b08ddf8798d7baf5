"""Home-made BLEU implementations, re-derived from the seed articles, and deliberate bugs.

These are *subjects* for :func:`harness.diagnose.validate.validate`, not scorers to trust. Each one has
the calling convention of a typical home-made metric: ``f(hypotheses, references) -> float``
with ``references[i]`` the list of references of segment ``i`` (the per-segment layout).

Re-derived from the articles' descriptions (the code here is written for this project, not
copied; the seed files are cited by name):

* :func:`tutorial_bleu` — the standard-library tutorial of ``000_f06ef87264613ebc.txt``
  (Japanese) and ``002_27c90cad815dc7d3.txt`` (English). Sentence-level, 0–1.
* :func:`blog_bleu` — the blog of ``004_ccc28872d55e65c5.txt`` (Chinese): regex substring
  counting, a stride of n over candidate positions, "exact length else longest" reference
  length. Sentence-level, 0–1, and it raises where the article's code raises.

Deliberately buggy corpus BLEU (:data:`BUGGY`): one correct sacrebleu-like corpus BLEU
(:func:`sacrebleu_like`: 13a tokens, clipping against the largest count in any single
reference, closest reference length with ties to the shorter, exp smoothing, score 0 when no
unigram matches) with exactly one thing broken per variant. Their scales are mixed on
purpose (some return 0–100, some 0–1) so that the validator's scale detection is exercised;
each docstring states the bug, the scale and the factor the validator should diagnose.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.bleu.tokenizers import get_tokenizer

__all__ = [
    "BUGGY",
    "EXPECTED_FACTOR",
    "blog_bleu",
    "blog_sentence_bleu",
    "sacrebleu_like",
    "tutorial_bleu",
    "tutorial_sentence_bleu",
]

Impl = Callable[[Sequence[str], Sequence[Sequence[str]]], float]


def _check_layout(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists "
            "(references must be per segment)"
        )
    if len(hypotheses) == 0:
        raise ValueError("no segments")


def _ngrams(tokens: Sequence[str], n: int, stop: int = 1) -> Counter[tuple[str, ...]]:
    """Counts of the n-grams starting at ``0 .. len - n + stop - 1``; ``stop=1`` is correct."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + stop))


# ====================================================================== seed 000 / 002
def tutorial_sentence_bleu(candidate: str, references: Sequence[str], max_n: int = 4) -> float:
    """BLEU-``max_n`` of one sentence as the tutorial describes it (0–1).

    Re-derived from ``000_f06ef87264613ebc.txt`` / ``002_27c90cad815dc7d3.txt``: tokens are
    ``str.split()``; the order-n precision is the clipped match count (each candidate n-gram
    counts at most its largest count in a single reference) over ``max(1, total)``; if any
    precision is 0 the score is 0.0 (no smoothing); otherwise the geometric mean times the
    brevity penalty, where the reference length is the closest to the candidate length (ties
    to the shorter), BP is 0 for an empty candidate, 1 when the candidate is longer and
    ``exp(1 - r/c)`` otherwise. A closest reference of length 0 divides by zero, as the
    article's ``candidate_len / closest_ref_len`` does.
    """
    cand = candidate.split()
    refs = [r.split() for r in references]
    precisions = []
    for n in range(1, max_n + 1):
        counts = _ngrams(cand, n)
        best: Counter[tuple[str, ...]] = Counter()
        for ref in refs:
            best |= _ngrams(ref, n)
        matched = sum(min(c, best[g]) for g, c in counts.items())
        precisions.append(matched / max(1, sum(counts.values())))
    if min(precisions) == 0:
        return 0.0
    geo = math.exp(sum(math.log(p) for p in precisions) / max_n)
    c = len(cand)
    r = min((len(x) for x in refs), key=lambda length: (abs(length - c), length))
    ratio = c / r  # ZeroDivisionError when the closest reference is empty (as in the article)
    bp = 1.0 if ratio > 1 else math.exp(1 - 1 / ratio)
    return bp * geo


def tutorial_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """The tutorial's BLEU on a corpus: the **mean of its sentence scores** (0–1).

    The article (``000_f06ef87264613ebc.txt``, ``002_27c90cad815dc7d3.txt``) only scores one
    sentence; a reader who needs a corpus number averages the sentence scores, so this is
    what the re-derivation does. See :func:`tutorial_sentence_bleu` for the sentence rules.
    """
    _check_layout(hypotheses, references)
    scores = [tutorial_sentence_bleu(h, r) for h, r in zip(hypotheses, references, strict=True)]
    return sum(scores) / len(scores)


# ====================================================================== seed 004
def _regex_count(gram: Sequence[str], text: str) -> int:
    # The n-gram joined by single spaces is used as a regular expression on the raw sentence:
    # it matches inside longer words ('he' in 'the'), metacharacters are live ('.' matches any
    # character) and an unbalanced '(' raises re.error, as in the article's code.
    return len(re.findall(" ".join(gram), text))


def blog_sentence_bleu(candidate: str, references: Sequence[str], max_n: int = 4) -> float:
    """One sentence scored as the blog's code does (0–1), bugs included.

    Re-derived from ``004_ccc28872d55e65c5.txt``:

    * tokens are ``str.split(' ')`` (a double space makes an empty token);
    * for order n, candidate positions are visited with a **stride of n** (0, n, 2n, …), so
      most n-grams are never looked at and a repeated one is looked at once per visit;
    * each visited n-gram's count in the candidate and in every reference is the number of
      **regex matches of the n-gram text in the raw sentence** (substring counting, live
      metacharacters); the numerator adds ``max_j min(count_cand, count_ref_j)``, the
      denominator adds ``count_cand``;
    * an order with no visited n-gram (a candidate shorter than n tokens) divides 0 by 0 and
      raises ``ZeroDivisionError`` (the article's precision is a plain ``/``); a denominator
      of 0 after some visits (a regex that does not match its own text) gives NaN, as numpy
      does;
    * the average is the product of ``p_n ** w_n`` raised to ``sum(w)`` with ``w_n = 1/4``
      (the article's formula; equal to the geometric mean because the weights sum to 1);
    * brevity penalty: 1 when the candidate length equals the length of some reference,
      otherwise the reference length is the **longest** reference and BP is
      ``exp(1 - r/c)`` when ``c < r``.
    """
    weights = [1.0 / max_n] * max_n
    cand = candidate.split(" ")
    c = len(cand)
    precisions: list[float] = []
    for n in range(1, max_n + 1):
        mole = deno = 0
        visited = False
        for j in range(0, c, n):
            if j + n > c:
                continue
            visited = True
            gram = cand[j : j + n]
            in_cand = _regex_count(gram, candidate)
            mole += max(min(in_cand, _regex_count(gram, ref)) for ref in references)
            deno += in_cand
        if not visited:
            precisions.append(mole / deno)  # 0 / 0: ZeroDivisionError, as in the article
        elif deno == 0:
            precisions.append(math.nan)
        else:
            precisions.append(mole / deno)
    product = 1.0
    for p, w in zip(precisions, weights, strict=True):
        product *= p**w
    average = product ** sum(weights)
    ref_lens = [len(r.split(" ")) for r in references]
    bp = 1.0
    if c not in ref_lens and c < max(ref_lens):
        bp = math.exp(1 - max(ref_lens) / c)
    return bp * average


def blog_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """The blog's BLEU on a corpus: the **mean of its sentence scores** (0–1).

    The article (``004_ccc28872d55e65c5.txt``) scores one candidate sentence; averaging is
    what a reader would do for a corpus. Raises wherever :func:`blog_sentence_bleu` raises
    (any candidate shorter than 4 tokens, a token that is not a valid regular expression).
    """
    _check_layout(hypotheses, references)
    scores = [blog_sentence_bleu(h, r) for h, r in zip(hypotheses, references, strict=True)]
    return sum(scores) / len(scores)


# ====================================================================== buggy corpus BLEU
def _tok13a(text: str) -> list[str]:
    return get_tokenizer("13a")(text)


@dataclass(frozen=True, kw_only=True)
class _Bugs:
    """The switches of :func:`_corpus_bleu`, one per bug (the defaults are correct): ``clip``
    against the ``"max"``, ``"sum"`` or ``"none"`` of the references' counts; ``ref_length``
    ``"closest"`` or ``"shortest"``; ``bp_formula`` ``"standard"`` or ``"swapped"``;
    ``ngram_stop`` 1, or 0 to lose each text's last n-gram; ``counting`` ``"ngram"`` or
    ``"substring"``; ``lowercase``; ``smoothing`` ``"exp"`` or ``"none"``; the ``scale`` of
    the score; ``max_n``, the highest order."""

    clip: str = "max"
    ref_length: str = "closest"
    bp_formula: str = "standard"
    ngram_stop: int = 1
    counting: str = "ngram"
    lowercase: bool = False
    smoothing: str = "exp"
    scale: float = 100.0
    max_n: int = 4


def _corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    bugs: _Bugs = _Bugs(),
) -> float:
    """A sacrebleu-like corpus BLEU with ``bugs`` switched on (none by default)."""
    clip, ref_length, bp_formula = bugs.clip, bugs.ref_length, bugs.bp_formula
    ngram_stop, counting, lowercase = bugs.ngram_stop, bugs.counting, bugs.lowercase
    smoothing, scale, max_n = bugs.smoothing, bugs.scale, bugs.max_n
    _check_layout(hypotheses, references)
    correct = [0] * max_n
    total = [0] * max_n
    sys_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references, strict=True):
        if lowercase:
            hyp, refs = hyp.lower(), [r.lower() for r in refs]
        h = _tok13a(hyp)
        rs = [_tok13a(r) for r in refs]
        sys_len += len(h)
        lens = [len(r) for r in rs]
        if ref_length == "shortest":
            ref_len += min(lens)
        else:
            ref_len += min(lens, key=lambda r: (abs(r - len(h)), r))
        joined = [" ".join(r) for r in rs]
        for n in range(1, max_n + 1):
            counts = _ngrams(h, n, ngram_stop)
            total[n - 1] += sum(counts.values())
            ref_counts = [_ngrams(r, n, ngram_stop) for r in rs]
            for gram, cnt in counts.items():
                if counting == "substring":
                    per_ref = [j.count(" ".join(gram)) for j in joined]
                else:
                    per_ref = [rc[gram] for rc in ref_counts]
                if clip == "max":
                    correct[n - 1] += min(cnt, max(per_ref))
                elif clip == "sum":
                    correct[n - 1] += min(cnt, sum(per_ref))
                elif max(per_ref) > 0:  # clip == "none": every occurrence counts
                    correct[n - 1] += cnt
    if sys_len == 0 or correct[0] == 0:
        return 0.0
    if sys_len >= ref_len:
        bp = 1.0
    elif bp_formula == "swapped":
        bp = math.exp(1 - sys_len / ref_len)
    else:
        bp = math.exp(1 - ref_len / sys_len)
    log_sum = 0.0
    doubling = 1.0
    for c, t in zip(correct, total, strict=True):
        if t == 0:
            return 0.0
        if c == 0:
            if smoothing != "exp":
                return 0.0
            doubling *= 2
            p = 1.0 / (doubling * t)
        else:
            p = c / t
        log_sum += math.log(p) / max_n
    return scale * bp * math.exp(log_sum)


def sacrebleu_like(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """A correct corpus BLEU with sacrebleu's defaults (0–100): the control for :data:`BUGGY`."""
    return _corpus_bleu(hypotheses, references)


def wrong_clipping(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: clips against the *sum* of an n-gram's counts over the references, not the max.

    Scale 0–100. With several references that share an n-gram, repeats of it are credited
    too often. Outside the factor space; should be diagnosed as ``clipping``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(clip="sum"))


def no_clipping(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: no clipping at all — every occurrence of an n-gram found in a reference counts.

    Scale 0–1 (the ``the the the the`` problem of Papineni et al. 2002). Should be diagnosed
    as ``clipping``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(clip="none", scale=1.0))


def shortest_ref(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: the brevity penalty uses the shortest reference instead of the closest.

    Scale 0–100. This is a point of the factor space (tensorflow-nmt / evaluate's rule);
    should be diagnosed as ``ref_length``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(ref_length="shortest"))


def bp_swapped(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: brevity penalty ``exp(1 - c/r)`` instead of ``exp(1 - r/c)`` (when ``c < r``).

    Scale 0–1. Too mild a penalty; should be diagnosed as ``brevity_penalty``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(bp_formula="swapped", scale=1.0))


def ngram_off_by_one(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: n-grams start at ``range(len - n)`` instead of ``range(len - n + 1)``.

    Scale 0–100. The last n-gram of every hypothesis and reference is lost, so a segment of
    exactly n tokens has no n-gram of order n. Should be diagnosed as ``ngram_extraction``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(ngram_stop=0))


def substring_counting(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: a hypothesis n-gram's reference count is its *substring* count in the reference.

    Scale 0–1. ``'he'`` is found in ``'the'``, ``'cat'`` in ``'cats'`` (the mistake of
    ``004_ccc28872d55e65c5.txt``'s regex counting, without its other bugs). Should be
    diagnosed as ``substring_counting``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(counting="substring", scale=1.0))


def lowercase_everything(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: lowercases hypotheses and references although sacrebleu is case-sensitive.

    Scale 0–100. A point of the factor space (``lowercase=True``); should be diagnosed as
    ``case``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(lowercase=True))


def no_smoothing(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Bug: no smoothing — any order with zero matches makes the score 0.

    Scale 0–1. A point of the factor space (``smooth="none"``); should be diagnosed as
    ``smoothing``.
    """
    return _corpus_bleu(hypotheses, references, _Bugs(smoothing="none", scale=1.0))


#: Buggy variant name → implementation (``f(hypotheses, references) -> float``).
BUGGY: dict[str, Impl] = {
    "wrong_clipping": wrong_clipping,
    "no_clipping": no_clipping,
    "shortest_ref": shortest_ref,
    "bp_swapped": bp_swapped,
    "ngram_off_by_one": ngram_off_by_one,
    "substring_counting": substring_counting,
    "lowercase_everything": lowercase_everything,
    "no_smoothing": no_smoothing,
}

#: Buggy variant name → the factor or bug class the validator should name for it.
EXPECTED_FACTOR: dict[str, str] = {
    "wrong_clipping": "clipping",
    "no_clipping": "clipping",
    "shortest_ref": "ref_length",
    "bp_swapped": "brevity_penalty",
    "ngram_off_by_one": "ngram_extraction",
    "substring_counting": "substring_counting",
    "lowercase_everything": "case",
    "no_smoothing": "smoothing",
}

#: Buggy variant name → its scale (``"0-1"`` or ``"0-100"``).
SCALE: dict[str, str] = {
    "wrong_clipping": "0-100",
    "no_clipping": "0-1",
    "shortest_ref": "0-100",
    "bp_swapped": "0-1",
    "ngram_off_by_one": "0-100",
    "substring_counting": "0-1",
    "lowercase_everything": "0-100",
    "no_smoothing": "0-1",
}
