"""Preprocessing mistakes: the text a reported BLEU was computed on may not be the text you have.

A BLEU number is a function of a configuration *and* of the text it was given. Public cases
where the text was wrong:

* fairseq#637 — subword-nmt ``@@ `` markers left in the output (scores on un-merged pieces);
* tensor2tensor#317 — a reference file tweaked by hand, Moses-tokenized and compound-split
  (``get_ende_bleu.sh`` turns ``a-b`` into ``a ##AT##-##AT## b``);
* NVIDIA-NeMo#5540 — Moses-tokenized hypotheses scored against raw references (sacrebleu's
  "tokenized period" warning);
* NVIDIA-NeMo/Skills#1408 — sentence BLEU averaged and reported as corpus BLEU (the
  ``aggregation`` factor, already searched by :mod:`harness.diagnose.identify`);
* microsoft/CodeBERT#180 — the same file scored 15.9 and 2.3 by two scripts (configuration
  factors: smoothing, tokenization, aggregation; searched by identify).

This module names each text mistake (:data:`MISTAKES`), finds its traces in a corpus
(:func:`markers`) and declares the **variants** (:data:`VARIANTS`): a transformation of
(hypotheses, references) that either *undoes* a mistake the files carry (the reported number
may have been computed correctly on merged text) or *applies* one to clean files (the number
may have been computed on lowercased references). Which variants are worth searching is
decided by the markers (:func:`readings`), so the search does not grow blindly.

A *reading* is a corpus with the tuple of mistakes it embodies. The files as given are the
first reading; their mistakes are the markers found in them (``@@`` in the text: scoring it
as is means the BPE was left in). Each applicable variant gives one more reading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.bleu.tokenizers import tokenize
from harness.data.corpus import Corpus

__all__ = [
    "MIN_SHARE",
    "MISTAKES",
    "TOKENIZED_SHARE",
    "VARIANTS",
    "Mistake",
    "Variant",
    "detokenize",
    "has_upper",
    "looks_tokenized",
    "markers",
    "mistake_of",
    "moses_like_tokenize",
    "readings",
]


@dataclass(frozen=True)
class Mistake:
    """One way the scored text differs from the text BLEU should see.

    ``name`` is the label candidates carry, ``what`` says what was done and ``effect`` what it
    does to BLEU; ``cite`` names a public case."""

    name: str
    what: str
    effect: str
    cite: str


MISTAKES: dict[str, Mistake] = {
    m.name: m
    for m in (
        Mistake(
            "bpe-left-in",
            "subword-nmt '@@ ' continuation markers left in the text (not merged)",
            "every split word becomes several tokens plus marker tokens, so the score is not "
            "comparable with word-level scores (it can move either way)",
            "facebookresearch/fairseq#637",
        ),
        Mistake(
            "spm-left-in",
            "SentencePiece pieces ('\u2581' word-start markers) not decoded",
            "scores pieces instead of words; not comparable with word-level scores",
            "facebookresearch/fairseq#637 (same mistake with sentencepiece)",
        ),
        Mistake(
            "compound-split",
            "hyphenated compounds split as 'a ##AT##-##AT## b' in hypotheses and references "
            "(tensor2tensor's get_ende_bleu.sh)",
            "every hyphen becomes three tokens that match wherever both sides have the hyphen",
            "tensorflow/tensor2tensor#317",
        ),
        Mistake(
            "pre-tokenized",
            "hypotheses Moses-tokenized ('word .', 'it &apos;s', 'a @-@ b') while the "
            "references are raw, then scored with a tokenizer again",
            "tokens the reference never has (escapes, @-@ , split clitics); lowers BLEU",
            "NVIDIA-NeMo/NeMo#5540",
        ),
        Mistake(
            "pre-tokenized-refs",
            "references Moses-tokenized ('word .', 'it &apos;s', 'a @-@ b') while the "
            "hypotheses are raw (a tokenized reference file from an old pipeline)",
            "punctuation and escapes the hypotheses never have; lowers BLEU",
            "bleu-harness (the pre-tokenized mistake on the reference side)",
        ),
        Mistake(
            "lowercased-refs",
            "references lowercased, hypotheses left cased",
            "every capitalised hypothesis word misses; lowers BLEU",
            "bleu-harness (case factor applied to one side only)",
        ),
        Mistake(
            "lowercased-hyps",
            "hypotheses lowercased, references left cased",
            "every capitalised reference word misses; lowers BLEU",
            "bleu-harness (case factor applied to one side only)",
        ),
        Mistake(
            "swapped-files",
            "the hypothesis and reference files passed the other way round",
            "precisions become recalls and the brevity penalty follows the other file's "
            "length: with one reference about as long as the hypotheses the score barely "
            "moves (a sacreBLEU line shows it: hyp_len and ref_len trade places)",
            "bleu-harness (sacrebleu's positional REF then -i HYP read the wrong way)",
        ),
        Mistake(
            "single-reference",
            "only one of the references used",
            "fewer references to match; lowers BLEU (and changes the reference length)",
            "tensorflow/tensor2tensor#317 (a different reference file)",
        ),
    )
}

# ---------------------------------------------------------------------------- markers
_BPE = re.compile(r"@@( |$)")
_SPM = "\u2581"
_AT = "##AT##-##AT##"
_HYPHEN = re.compile(r"(\S)-(\S)")
_TOKENIZED = re.compile(r"\w [.,!?;:)](?: |$)|\( \w|&apos;| @-@ ")


#: Markers written in capitals by convention, not text: tensor2tensor's compound split
#: (``##AT##``). Case checks read the text without them.
_CAPITAL_MARKERS = re.compile(r"##AT##")


def has_upper(text: str) -> bool:
    """True when ``text`` has an upper-case letter outside the capitalised markers
    (``a ##AT##-##AT## b`` has none: the ``AT`` of the compound-split marker is not text)."""
    text = _CAPITAL_MARKERS.sub("", text)
    return text != text.lower()


def looks_tokenized(text: str) -> bool:
    """True when a line shows Moses-tokenizer traces: a space before ``. , ! ? ; : )``, after
    ``(``, the ``&apos;`` escape or ``@-@`` (``&quot;``/``&amp;`` also occur in raw web text).
    """
    return bool(_TOKENIZED.search(text))


def _share(texts: list[str], test: Callable[[str], bool]) -> float:
    return sum(1 for t in texts if test(t)) / max(1, len(texts))


def markers(corpus: Corpus) -> dict[str, tuple[float, float]]:
    """The share of hypotheses and of references (any reference of a segment) carrying each
    trace: ``bpe``, ``spm``, ``compound``, ``hyphen`` (a hyphen between non-spaces, which
    compound splitting would split), ``tokenized`` (:func:`looks_tokenized`), ``upper``
    (any upper-case letter outside the markers, :func:`has_upper`)."""
    hyps = list(corpus.hypotheses)
    refs = [" ".join(r) for r in corpus.references]
    tests: dict[str, Callable[[str], bool]] = {
        "bpe": lambda t: bool(_BPE.search(t)),
        "spm": lambda t: _SPM in t,
        "compound": lambda t: _AT in t,
        "hyphen": lambda t: bool(_HYPHEN.search(t)),
        "tokenized": looks_tokenized,
        "upper": has_upper,
    }
    return {k: (_share(hyps, f), _share(refs, f)) for k, f in tests.items()}


# ---------------------------------------------------------------------------- transformations
def merge_bpe(text: str) -> str:
    """subword-nmt's merge (``sed -r 's/(@@ )|(@@ ?$)//g'``)."""
    return re.sub(r"(@@ )|(@@ ?$)", "", text)


def decode_spm(text: str) -> str:
    """SentencePiece decoding of space-separated pieces: drop spaces, ``▁`` → space."""
    return text.replace(" ", "").replace(_SPM, " ").strip()


def split_compounds(text: str) -> str:
    """tensor2tensor ``get_ende_bleu.sh``: ``s{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g``."""
    return _HYPHEN.sub(r"\1 ##AT##-##AT## \2", text)


def unsplit_compounds(text: str) -> str:
    """The inverse of :func:`split_compounds`."""
    return text.replace(f" {_AT} ", "-")


def moses_like_tokenize(text: str) -> str:
    """An approximation of Moses ``tokenizer.perl -a`` (not byte-exact): mteval 13a
    tokenization, then ``it's`` → ``it &apos;s``, ``"`` → ``&quot;`` and ``a-b`` →
    ``a @-@ b``. Enough to model NeMo#5540's tokenized hypotheses."""
    out = " ".join(tokenize(text, "13a"))
    out = re.sub(r"(\w)'(\w)", r"\1 &apos;\2", out)
    out = out.replace('"', "&quot;")
    return re.sub(r"(\w)-(?=\w)", r"\1 @-@ ", out)


def detokenize(text: str) -> str:
    """A rule-based undoing of Moses tokenization: escapes back, ``@-@`` joined, no space
    before ``. , ! ? ; : )`` or ``'s``/``n't``, none after ``(``."""
    out = text.replace(" @-@ ", "-").replace("&apos;", "'").replace("&quot;", '"')
    out = out.replace("&amp;", "&")
    out = re.sub(r" ([.,!?;:)%])", r"\1", out)
    out = re.sub(r"\( ", "(", out)
    return re.sub(r"(\w) '(\w)", r"\1'\2", out)


def _map(
    corpus: Corpus, hyp: Callable[[str], str] | None, ref: Callable[[str], str] | None
) -> Corpus:
    return Corpus(
        hypotheses=tuple(hyp(h) for h in corpus.hypotheses) if hyp else corpus.hypotheses,
        references=tuple(tuple(ref(r) for r in seg) for seg in corpus.references)
        if ref
        else corpus.references,
        ids=corpus.ids,
        name=corpus.name,
        check_text=False,  # a transformation of checked text
    )


@dataclass(frozen=True)
class Variant:
    """A transformation of a corpus modelling one mistake.

    ``undoes`` (the number was computed on cleaned text: the reading loses that mistake) or
    ``applies`` (the number was computed with the mistake: the reading gains it). ``when``
    decides from :func:`markers` whether the variant is worth searching, ``transform`` builds
    the corpus (``None``: nothing changes)."""

    name: str
    mistake: str
    undoes: bool
    when: Callable[[dict[str, tuple[float, float]], Corpus], bool]
    transform: Callable[[Corpus], list[tuple[str, Corpus]]]


def _both(f: Callable[[str], str]) -> Callable[[Corpus], list[tuple[str, Corpus]]]:
    return lambda c: [("", _map(c, f, f))]


def _single_refs(c: Corpus) -> list[tuple[str, Corpus]]:
    out = []
    for k in range(c.max_refs):
        refs = tuple((seg[k],) for seg in c.references)
        out.append((str(k + 1), Corpus(c.hypotheses, refs, c.ids, c.name, check_text=False)))
    return out


def _swapped(c: Corpus) -> Corpus:
    """The single-reference corpus with hypotheses and references exchanged."""
    return Corpus(
        tuple(seg[0] for seg in c.references),
        tuple((h,) for h in c.hypotheses),
        c.ids,
        c.name,
        check_text=False,
    )


#: Minimum share of lines carrying a trace before it counts as a marker.
MIN_SHARE = 0.05
#: Share of lines with tokenizer traces above which a side counts as tokenized (an entity or
#: a spaced bracket here and there is normal in raw text; sacrebleu warns at 100 lines).
TOKENIZED_SHARE = 0.3


def _has(kind: str, side: int = -1) -> Callable[[dict[str, tuple[float, float]], Corpus], bool]:
    def test(m: dict[str, tuple[float, float]], c: Corpus) -> bool:
        h, r = m[kind]
        return (max(h, r) if side < 0 else (h, r)[side]) >= MIN_SHARE

    return test


def _tokenized_side(side: int, what: str, mistake: str) -> tuple[Variant, Variant]:
    """The two readings of one side (0 hypotheses, 1 references) tokenized while the other is
    raw: detokenized when only it looks tokenized, Moses-like tokenized when neither does."""

    def only_this_side(m: dict[str, tuple[float, float]], c: Corpus) -> bool:
        return m["tokenized"][side] >= TOKENIZED_SHARE > m["tokenized"][1 - side]

    def map_side(f: Callable[[str], str]) -> Callable[[Corpus], list[tuple[str, Corpus]]]:
        return lambda c: [("", _map(c, f, None) if side == 0 else _map(c, None, f))]

    return (
        Variant(f"detokenize-{what}", mistake, True, only_this_side, map_side(detokenize)),
        Variant(
            f"tokenize-{what}",
            mistake,
            False,
            lambda m, c: max(m["tokenized"]) < TOKENIZED_SHARE,
            map_side(moses_like_tokenize),
        ),
    )


VARIANTS: tuple[Variant, ...] = (
    Variant("merge-bpe", "bpe-left-in", True, _has("bpe"), _both(merge_bpe)),
    Variant("decode-spm", "spm-left-in", True, _has("spm"), _both(decode_spm)),
    Variant(
        "unsplit-compounds", "compound-split", True, _has("compound"), _both(unsplit_compounds)
    ),
    Variant(
        "split-compounds",
        "compound-split",
        False,
        lambda m, c: not _has("compound")(m, c) and _has("hyphen")(m, c),
        _both(split_compounds),
    ),
    *_tokenized_side(0, "hypotheses", "pre-tokenized"),
    *_tokenized_side(1, "references", "pre-tokenized-refs"),
    Variant(
        "lowercase-references",
        "lowercased-refs",
        False,
        lambda m, c: m["upper"][1] >= MIN_SHARE,
        lambda c: [("", _map(c, None, str.lower))],
    ),
    Variant(
        "lowercase-hypotheses",
        "lowercased-hyps",
        False,
        lambda m, c: m["upper"][0] >= MIN_SHARE,
        lambda c: [("", _map(c, str.lower, None))],
    ),
    Variant(
        "swap-files",
        "swapped-files",
        False,
        lambda m, c: c.max_refs == 1 and not c.is_ragged,
        lambda c: [("", _swapped(c))],
    ),
    Variant(
        "single-reference",
        "single-reference",
        False,
        lambda m, c: c.max_refs > 1 and not c.is_ragged,
        _single_refs,
    ),
)

_VARIANT = {v.name: v for v in VARIANTS}
# the as-given corpus carries the mistakes its markers show
_GIVEN: tuple[tuple[str, Callable[[dict[str, tuple[float, float]], Corpus], bool]], ...] = (
    ("bpe-left-in", _has("bpe")),
    ("spm-left-in", _has("spm")),
    ("compound-split", _has("compound")),
    ("pre-tokenized", _VARIANT["detokenize-hypotheses"].when),
    ("pre-tokenized-refs", _VARIANT["detokenize-references"].when),
)


def readings(corpus: Corpus) -> list[tuple[tuple[str, ...], Corpus]]:
    """The corpora worth scoring, each with the mistakes it embodies: the files as given
    (their markers' mistakes), then one reading per applicable :data:`VARIANTS` entry (a
    variant with several outputs, such as one per reference, labels each ``mistake:k``).
    Readings whose text equals an earlier one are left out."""
    m = markers(corpus)
    given = tuple(name for name, test in _GIVEN if test(m, corpus))
    out: list[tuple[tuple[str, ...], Corpus]] = [(given, corpus)]
    seen = {(corpus.hypotheses, corpus.references)}
    for v in VARIANTS:
        if not v.when(m, corpus):
            continue
        for suffix, c in v.transform(corpus):
            key = (c.hypotheses, c.references)
            if key in seen:
                continue
            seen.add(key)
            label = v.mistake + (f":{suffix}" if suffix else "")
            labels = tuple(x for x in given if x != v.mistake) if v.undoes else (*given, label)
            out.append((labels, c))
    return out


def mistake_of(label: str) -> Mistake:
    """The :class:`Mistake` of a reading label (``single-reference:2`` → ``single-reference``)."""
    return MISTAKES[label.split(":", 1)[0]]
