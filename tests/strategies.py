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
    # a byte-order mark kept by a file reader (U+FEFF, glued to the word it precedes)
    "\ufeffThe",
    "\ufeff",
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
    max_words: int = 12,
) -> tuple[list[str], list[list[str]]]:
    """(hypotheses of at most ``max_words`` words, per-segment references)."""
    n = draw(st.integers(min_segments, max_segments))
    lo = 0 if allow_empty else 1
    hyps = [draw(sentences(lo, max_words)) for _ in range(n)]
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


#: Words around which a sentence splitter decides (Punkt, as nltk's ``word_tokenize`` runs
#: it): sentence-final periods before a capital or a lowercase word, known abbreviations
#: (``Dr.``, ``e.g.``, ``U.S.``) and initials, numbers ending in a period (``5.``, ``-5.``)
#: or holding several (``1.2.3``), quotes and brackets after a period, ``?``/``!`` glued or
#: alone, ellipses, and words Punkt knows as frequent sentence starters (``He``, ``However``).
SENTENCE_END_WORDS = [
    "end.",
    "it.",
    "home.",
    "Next",
    "next",
    "He",
    "he",
    "However",
    "The",
    "Dr.",
    "Mr.",
    "Mrs.",
    "e.g.",
    "i.e.",
    "etc.",
    "U.S.",
    "Jan.",
    "St.",
    "No.",
    "no.",
    "A.",
    "b.",
    "J.",
    "5.",
    "-5.",
    "1.2.3",
    "3.",
    "1990.",
    ".",
    "..",
    "...",
    "?",
    "!",
    "x?",
    "Y!",
    "?!",
    'end."',
    "end.'",
    "end.)",
    "end.”",
    '"',
    "“Hi",
    "(a.)",
    "'s",
    "Inc.",
]


@st.composite
def sentence_end_corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """:func:`corpora` that reach mid-line sentence ends: some vocabulary words are replaced
    by :data:`SENTENCE_END_WORDS` consistently across a corpus (so hypotheses and references
    still share n-grams around the periods), and a few more words independently."""
    hyps, refs = draw(corpora())
    swapped = draw(st.sets(_WORD, max_size=len(WORDS) // 2))
    mapping = {w: draw(st.sampled_from(SENTENCE_END_WORDS)) for w in sorted(swapped)}

    def vary(text: str) -> str:
        words = text.split(" ")
        for i, word in enumerate(words):
            if word in mapping:
                words[i] = mapping[word]
            elif word and draw(st.integers(0, 5)) == 0:
                words[i] = draw(st.sampled_from(SENTENCE_END_WORDS))
        return " ".join(words)

    return [vary(h) for h in hyps], [[vary(r) for r in seg] for seg in refs]


@st.composite
def large_vocabulary_corpora(
    draw: st.DrawFn,
    *,
    max_segments: int = 10,
    max_len: int = 80,
    min_refs: int = 1,
    max_refs: int = 1,
    extra_words: tuple[str, ...] = (),
) -> tuple[list[str], list[list[str]]]:
    """Corpora with vocabularies of hundreds to thousands of distinct words (``w{k}`` plus
    :data:`WORDS`): long segments, empty ones, references that share most of their words
    with the hypothesis, and ``extra_words`` (special tokens) sprinkled in.

    fairseq numbers words in order of first appearance, and libbleu's hash sign-extends the
    bytes of ids above 127, where different n-grams collide. Most corpora therefore open with
    a long segment that introduces a whole lexicon in order (so a word's position in it is its
    id, give or take the special symbols), and draw the other segments from narrow windows of
    that lexicon, often across a multiple of 128 (ids 100-160 hold many colliding bigrams);
    the others draw words anywhere, rare ones late."""
    rng = draw(st.randoms(use_true_random=False))
    size = draw(st.integers(150, 3000))
    pool = [*WORDS, *(f"w{k}" for k in range(size))]
    rng.shuffle(pool)
    n = draw(st.integers(1, max_segments))

    def window() -> list[str]:
        if rng.random() < 0.7:
            centre = 128 * rng.randint(1, max(1, len(pool) // 128)) + rng.randint(-30, 10)
        else:
            centre = rng.randrange(len(pool))
        width = rng.randint(8, 80)
        lo = max(0, min(len(pool) - 1, centre - width // 2))
        return pool[lo : lo + width] or pool[-1:]

    def line(words: list[str], length: int) -> list[str]:
        return [rng.choice(words) for _ in range(length)]

    def varied(words: list[str], choices: list[str]) -> list[str]:
        out = []
        for w in words:
            roll = rng.random()
            if roll < 0.2:
                out.append(rng.choice(choices))  # substituted
            elif roll < 0.25:
                continue  # dropped
            else:
                out.append(w)
            if rng.random() < 0.05:
                out.append(rng.choice(choices))  # inserted
            if extra_words and rng.random() < 0.02:
                out.append(rng.choice(extra_words))
        return out

    hyps: list[str] = []
    refs: list[list[str]] = []
    introduce = rng.random() < 0.8
    for i in range(n):
        if i == 0 and introduce:
            lexicon = pool[: rng.randint(100, len(pool))]
            hyp = list(lexicon)
            seg = [varied(lexicon, pool) for _ in range(rng.randint(min_refs, max_refs))]
        else:
            choices = window() if introduce else pool[: rng.randint(1, len(pool))]
            length = 0 if rng.random() < 0.1 else rng.randint(1, max_len)
            base = line(choices, length)
            hyp = [] if rng.random() < 0.05 else varied(base, choices)
            k = rng.randint(min_refs, max_refs)
            seg = [
                varied(base, choices) if rng.random() < 0.8 else line(choices, length)
                for _ in range(k)
            ]
        hyps.append(" ".join(hyp))
        refs.append([" ".join(r) for r in seg])
    return hyps, refs


#: Words where keras-hub's RE2 tokenizer and 13a part: numbers with a mark before or after
#: (``.5`` starting a line, ``5.`` ending one), marks alone and in runs, a hyphen after a digit,
#: entities and ``<skipped>``.
RE2_WORDS = ["5.", ".5", ",5", "5,", "5", "3.5", "1,000", "end", "units", "a.", "a,", ".", ","]
RE2_WORDS += [".,", "5-", "-", "&amp;", "&quot;", "<skipped>", "x"]
#: What goes between (and around) those words: the ASCII spaces both split on, the Unicode
#: spaces and U+001C..U+001F that only str.split separates on, U+0085, U+2028, a newline and
#: the hyphen + newline that mteval's rules join.
RE2_SEPARATORS = [" ", "  ", "\t", "\r", "\x0b", "\x0c", "\n", "-\n", "\u00a0", "\u2009"]
RE2_SEPARATORS += ["\u3000", "\u2028", "\x85", "\x1c", "\x1d", "\x1e", "\x1f"]


@st.composite
def re2_lines(draw: st.DrawFn, max_words: int = 8) -> str:
    """A line of :data:`RE2_WORDS` joined by :data:`RE2_SEPARATORS`, sometimes with a separator
    before the first word or after the last; sometimes no word at all."""
    words = draw(st.lists(st.sampled_from(RE2_WORDS), max_size=max_words))
    edge = st.sampled_from(["", "", "", *RE2_SEPARATORS])
    parts = [draw(edge)]
    for i, word in enumerate(words):
        if i:
            parts.append(draw(st.sampled_from(RE2_SEPARATORS)))
        parts.append(word)
    parts.append(draw(edge))
    return "".join(parts)


@st.composite
def re2_corpora(
    draw: st.DrawFn, *, max_segments: int = 5, max_refs: int = 3
) -> tuple[list[str], list[list[str]]]:
    """(hypotheses, per-segment references) of :func:`re2_lines`, empty segments included; a
    reference is often its hypothesis with other separators (the same words, tokens that differ
    only where the tokenizers split differently) or the hypothesis itself."""
    n = draw(st.integers(1, max_segments))
    hyps = [draw(st.just("") | re2_lines()) for _ in range(n)]
    refs = []
    for h in hyps:
        seg = []
        for _ in range(draw(st.integers(1, max_refs))):
            how = draw(st.sampled_from(["other", "same", "respaced"]))
            if how == "same":
                seg.append(h)
            elif how == "respaced":
                seg.append(
                    "".join(
                        draw(st.sampled_from(RE2_SEPARATORS)) if ch.isspace() else ch for ch in h
                    )
                )
            else:
                seg.append(draw(st.just("") | re2_lines()))
        refs.append(seg)
    return hyps, refs


#: What nltk's word tokenizer looks at: quotes at a line's start and after brackets, a final
#: period before closing quotes at the line's end, ':' ',' before digits or at the end,
#: clitics before a space, two-part words, and whitespace of several kinds.
NLTK_PIECES = st.sampled_from(
    [
        *".,:;?!()[]{}<>-*&%@#$'\"`«»“”‘’—",
        "''",
        "``",
        "--",
        "...",
        "5",
        "a",
        "x.",
        "can",
        "not",
        "n't",
        "'s",
        "'ll",
        "'re",
        "wanna",
        "gonna",
        "'tis",
        "'t",
        "is",
        "d'ye",
        "d'YE",
        "gimme",
        "LEMME",
        "gotta",
        "more'n",
        "CanNot",
        "'twas",
        "'a",
        "'hello",
        "\u2013",
        "²",
        "'T",
        "'LL",
        "N'T",
        "'ve",
        "---",
        "\u2012",
        "\u2015",
        "*",
        " ",
        " ",
        "  ",
        "\t",
        "\x0b",
        "\u3000",
        "\x1c",
        "\u2028",
        "ſ",
        "K",
    ]
)


#: What an item's text is when it has no words: empty, or whitespace only.
BLANKS = ["", " ", "  ", "\t"]


@st.composite
def corpora_with_wordless_items(
    draw: st.DrawFn, *, max_refs: int = 3
) -> tuple[list[str], list[list[str]]]:
    """:func:`corpora` in which some segments — often every one — have an output or a
    reference without words (empty or whitespace only): the items an evaluation framework's
    metric raises on, so that a corpus may have none left to average."""
    hyps, refs = draw(corpora(max_refs=max_refs))
    every = draw(st.booleans())
    for i in range(len(hyps)):
        if not (every or draw(st.booleans())):
            continue
        k = draw(st.integers(-1, len(refs[i]) - 1))  # -1: the output
        blank = draw(st.sampled_from(BLANKS))
        if k < 0:
            hyps[i] = blank
        else:
            refs[i][k] = blank
    return hyps, refs


# intl: what sacrebleu's releases split differently
#: Backslashes and brackets (the old class's ``\\]``), marks and symbols of several scripts,
#: decimal digits of two scripts, numerics that are not decimal (``½ ² Ⅻ``), a mark and a
#: symbol assigned after Unicode 14 (U+11F43, U+1FAE8: no mark to Python 3.11's unicodedata,
#: one to the ``regex`` module), letters and spaces.
INTL_CHARS = st.sampled_from(
    [*"\\\\[]\\.,!?¿«»—-'\"()5٣½²Ⅻ$€+^`aζ  ", "\U00011f43", "\U0001fae8", "\u2e5d"]
)
_INTL_LINE = st.text(alphabet=INTL_CHARS, min_size=1, max_size=16).map(
    lambda s: s if s.strip() else s + "a"  # no reference of spaces alone (a known divergence)
)


@st.composite
def spaced(draw: st.DrawFn, line: str) -> str:
    """``line`` with spaces put between some of its characters: what tokenization undoes."""
    cuts = draw(st.lists(st.booleans(), min_size=len(line), max_size=len(line)))
    return "".join(c + (" " if cut else "") for c, cut in zip(line, cuts, strict=True))


@st.composite
def intl_corpora(draw: st.DrawFn, min_refs: int = 1) -> tuple[list[str], list[list[str]]]:
    """Hypotheses of :data:`INTL_CHARS`, each with ``min_refs``–3 references: itself spaced
    apart, or another line."""
    hyps = draw(st.lists(_INTL_LINE, min_size=1, max_size=4))
    refs = [
        draw(st.lists(st.one_of(spaced(h), _INTL_LINE), min_size=min_refs, max_size=3))
        for h in hyps
    ]
    return hyps, refs
