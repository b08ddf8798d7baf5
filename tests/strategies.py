"""Hypothesis strategies for differential tests: corpora that exercise every BLEU factor.

Segments have 0–12 tokens drawn from a small vocabulary (so n-grams repeat and match),
punctuation glued to words (so 13a matters), CJK and Hangul runs, entities, mixed case, and
1–4 ragged references per segment, some of them empty.
"""

from __future__ import annotations

from hypothesis import strategies as st

WORDS = [
    "the",
    "The",
    "cat",
    "mat",
    "on",
    "is",
    "a",
    "sat",
    "dog",
    "THE",
    "Mat",
    "cat.",
    "mat,",
    "on!",
    "(the",
    "cat)",
    "3.5",
    "1,000",
    "e-mail",
    "don't",
    "&quot;",
    "&amp;",
    "a-b",
    "x/y",
    "猫",
    "猫が",
    "東京",
    "에서",
    "한국어",
    "é",
    "naïve",
]
_WORD = st.sampled_from(WORDS)


def sentences(min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """A line of text: words joined by single spaces (occasionally double spaces)."""
    return st.lists(_WORD, min_size=min_size, max_size=max_size).map(" ".join) | st.lists(
        _WORD, min_size=min_size, max_size=max_size
    ).map("  ".join)


@st.composite
def corpora(
    draw: st.DrawFn,
    *,
    min_segments: int = 1,
    max_segments: int = 6,
    min_refs: int = 1,
    max_refs: int = 4,
    ragged: bool = True,
    allow_empty: bool = True,
) -> tuple[list[str], list[list[str]]]:
    """(hypotheses, per-segment references)."""
    n = draw(st.integers(min_segments, max_segments))
    lo = 0 if allow_empty else 1
    hyps = [draw(sentences(lo)) for _ in range(n)]
    k_fixed = draw(st.integers(min_refs, max_refs))
    refs = []
    for h in hyps:
        k = draw(st.integers(min_refs, max_refs)) if ragged else k_fixed
        seg = []
        for _ in range(k):
            # Often derive the reference from the hypothesis so that long n-grams match.
            if h and draw(st.booleans()):
                words = h.split()
                i = draw(st.integers(0, len(words)))
                extra = draw(st.lists(_WORD, max_size=3))
                seg.append(" ".join(words[:i] + extra + words[i:]))
            else:
                seg.append(draw(sentences(lo)))
        refs.append(seg)
    return hyps, refs
