"""Seeded synthetic corpora for the engine benchmark: Zipf words with punctuation.

Not a test. ``generate(n_segments, n_refs, seed=...)`` returns ``(hypotheses, references)`` with
``references[i]`` the list of segment ``i``'s references (the per-segment layout). Every segment
has about 25 words (normal, sd 7, clipped to 5–45) drawn from a Zipf distribution (exponent 1.1)
over a 60 000-word vocabulary of pronounceable pseudo-words. About one token in eight is
decorated so that 13a tokenization has real work to do: a capital, a number (``3.5``, ``1,000``,
``2019``, ``12-40``), a hyphenated compound, a clitic (``don't``-style ``'s``/``n't``/``'re``),
quotes, brackets, ``&quot;``/``&amp;`` entities, ``%``/``$``/``:``, clause commas and
semicolons; the first word is capitalised and the last carries ``.``, ``?``, ``!`` or ``...``.

Reference 1 is a fresh sentence; the hypothesis copies it with token substitutions (p=0.3),
deletions (0.05) and insertions (0.05), which gives a corpus BLEU around 40 with 4 references;
references 2..k paraphrase reference 1 the same way (0.2, 0.03, 0.03), so references share
n-grams as real ones do. Everything is drawn, vectorised over the whole corpus, from one
``numpy.random.Generator(PCG64(seed))``: the same arguments give the same corpus.

Print a sample::

    .venv/bin/python benchmarks/corpus_gen.py 3 --refs 2
"""

from __future__ import annotations

import argparse
from functools import cache

import numpy as np

VOCAB_SIZE = 60_000
ZIPF_EXPONENT = 1.1
SEED = 2024
MEAN_WORDS = 25

_ONSETS = ("b", "br", "c", "ch", "d", "dr", "f", "g", "h", "k", "l", "m", "n", "p", "pr", "r")
_ONSETS += ("s", "sh", "st", "t", "th", "tr", "v", "w", "z", "qu", "")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "ie", "y")
_CODAS = ("", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "x")
_FUNCTION_WORDS = ("the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "was", "on")

# Decoration kinds of a token (a surface form is word id × kind). Probabilities per token.
_KINDS: tuple[tuple[str, float], ...] = (
    ("{w}", 0.0),  # plain: takes the remaining mass
    ("{W}", 0.03),  # capitalised
    ("{num}", 0.04),  # a number from the numbers table
    ("{cmp}", 0.02),  # a hyphenated compound from the compounds table
    ("{w}'s", 0.004),
    ("{w}n't", 0.003),
    ("{w}'re", 0.003),
    ("&quot;{w}&quot;", 0.004),
    ("&amp;", 0.002),
    ("({w})", 0.004),
    ('"{w}"', 0.006),
    ("{w}%", 0.002),
    ("{w}$", 0.002),
    ("{w}:", 0.003),
    ("{w},", 0.05),
    ("{w};", 0.01),
)
_FINALS = ("{w}.", "{w}.", "{w}.", "{w}?", "{w}!", "{w}...")
_TEMPLATES = tuple(k for k, _ in _KINDS) + _FINALS
_N_KINDS = len(_TEMPLATES)
_FINAL0 = len(_KINDS)
_N_TABLE = 4096  # numbers and compounds tables


@cache
def vocabulary(size: int = VOCAB_SIZE, seed: int = SEED) -> tuple[str, ...]:
    """``size`` distinct pseudo-words, most frequent first (function words lead)."""
    rng = np.random.Generator(np.random.PCG64(seed + 1))
    words: list[str] = list(_FUNCTION_WORDS)
    seen = set(words)
    while len(words) < size:
        picks = rng.integers(0, [len(_ONSETS), len(_VOWELS), len(_CODAS)], size=(4096, 3, 3))
        sizes = rng.integers(1, 4, size=4096)
        for p, k in zip(picks.tolist(), sizes.tolist(), strict=True):
            w = "".join(_ONSETS[a] + _VOWELS[b] + _CODAS[c] for a, b, c in p[:k])
            if w not in seen:
                seen.add(w)
                words.append(w)
                if len(words) == size:
                    break
    return tuple(words)


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.vocab = vocabulary()
        w = 1.0 / np.arange(1, len(self.vocab) + 1) ** ZIPF_EXPONENT
        self.cdf = np.cumsum(w) / w.sum()
        probs = np.array([p for _, p in _KINDS])
        probs[0] = 1.0 - probs.sum()
        self.kind_cdf = np.cumsum(probs)
        rng = self.rng
        a, b, c = (
            rng.integers(1, 100, _N_TABLE),
            rng.integers(0, 10, _N_TABLE),
            rng.integers(4, size=_N_TABLE),
        )
        self.numbers = [
            (f"{x}.{y}", f"{x % 9 + 1},{x * 7 % 900 + 100}", str(1900 + x + y), f"{x}-{y * 6}")[z]
            for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)
        ]
        ca, cb = self.words(_N_TABLE), self.words(_N_TABLE)
        self.compounds = [f"{self.vocab[x]}-{self.vocab[y]}" for x, y in zip(ca, cb, strict=True)]

    def words(self, k: int) -> np.ndarray:
        return np.minimum(np.searchsorted(self.cdf, self.rng.random(k)), len(self.vocab) - 1)

    def tokens(self, k: int) -> np.ndarray:
        """``k`` random surface ids (word × kind), kinds drawn with ``_KINDS`` probabilities."""
        kind = np.minimum(np.searchsorted(self.kind_cdf, self.rng.random(k)), _FINAL0 - 1)
        return self.words(k) * _N_KINDS + kind

    def sentences(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(flat surface ids, lengths) of ``n`` fresh sentences."""
        lens = np.clip(np.rint(self.rng.normal(MEAN_WORDS, 7, n)), 5, 45).astype(np.int64)
        ids = self.tokens(int(lens.sum()))
        ends = np.cumsum(lens)
        starts = ends - lens
        first = ids[starts]  # capitalise the first word (keep numbers/compounds as they are)
        plain = first % _N_KINDS == 0
        ids[starts] = np.where(plain, first - first % _N_KINDS + 1, first)
        last = ids[ends - 1] // _N_KINDS * _N_KINDS
        ids[ends - 1] = last + _FINAL0 + self.rng.integers(len(_FINALS), size=n)
        return ids, lens

    def perturb(
        self, ids: np.ndarray, lens: np.ndarray, p_sub: float, p_del: float, p_ins: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Substitute, delete and insert tokens of every sentence at once."""
        total = len(ids)
        u = self.rng.random(total)
        keep = u >= p_del
        sub = keep & (u < p_del + p_sub)
        out = ids.copy()
        out[sub] = self.tokens(int(sub.sum()))
        ins = self.rng.random(total) < p_ins
        pair = np.stack([out, self.tokens(total)], axis=1)
        mask = np.stack([keep, ins], axis=1)
        seg = np.repeat(np.arange(len(lens)), lens)
        new_ids = pair[mask]
        new_lens = np.bincount(np.repeat(seg, mask.sum(axis=1)), minlength=len(lens))
        return new_ids, new_lens

    def strings(self, ids: np.ndarray, lens: np.ndarray) -> list[str]:
        uniq, inv = np.unique(ids, return_inverse=True)
        words, kinds = np.divmod(uniq, _N_KINDS)
        surface = []
        for w, k in zip(words.tolist(), kinds.tolist(), strict=True):
            word = self.vocab[w]
            template = _TEMPLATES[k]
            surface.append(
                template.format(
                    w=word,
                    W=word.capitalize(),
                    num=self.numbers[w % _N_TABLE],
                    cmp=self.compounds[w % _N_TABLE],
                )
            )
        flat = [surface[i] for i in inv.tolist()]
        out = []
        pos = 0
        for n in lens.tolist():
            out.append(" ".join(flat[pos : pos + n]))
            pos += n
        return out


def _references(g: _Gen, n_segments: int, n_refs: int) -> tuple[np.ndarray, np.ndarray, list]:
    """Reference 1's token ids and lengths, and the reference streams: reference 1 and its
    paraphrases 2..``n_refs``."""
    ref_ids, ref_lens = g.sentences(n_segments)
    streams = [g.strings(ref_ids, ref_lens)]
    for _ in range(n_refs - 1):
        streams.append(g.strings(*g.perturb(ref_ids, ref_lens, 0.2, 0.03, 0.03)))
    return ref_ids, ref_lens, streams


def generate(
    n_segments: int, n_refs: int = 1, *, seed: int = SEED
) -> tuple[list[str], list[list[str]]]:
    """``(hypotheses, references)``: ``n_segments`` segments with ``n_refs`` references each."""
    if n_segments < 1 or n_refs < 1:
        raise ValueError("need at least one segment and one reference")
    g = _Gen(seed)
    ref_ids, ref_lens, streams = _references(g, n_segments, n_refs)
    hyps = g.strings(*g.perturb(ref_ids, ref_lens, 0.3, 0.05, 0.05))
    return hyps, [list(seg) for seg in zip(*streams, strict=True)]


def systems(
    n_systems: int, n_segments: int, n_refs: int = 1, *, seed: int = SEED
) -> tuple[list[list[str]], list[list[str]]]:
    """``(systems, reference streams)``: ``n_systems`` hypothesis lists against one reference
    set. Reference 1 and the paraphrased references 2..k are drawn as in :func:`generate`;
    system ``k`` substitutes tokens of reference 1 with probability 0.20 to 0.45 (spread
    evenly over the systems), and deletes and inserts at 0.05, so the systems' BLEU differs as
    a year's submissions do."""
    if n_systems < 1 or n_segments < 1 or n_refs < 1:
        raise ValueError("need at least one system, one segment and one reference")
    g = _Gen(seed)
    ref_ids, ref_lens, refs = _references(g, n_segments, n_refs)
    out = []
    for k in range(n_systems):
        p_sub = 0.20 + 0.25 * k / max(1, n_systems - 1)
        out.append(g.strings(*g.perturb(ref_ids, ref_lens, p_sub, 0.05, 0.05)))
    return out, refs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("segments", type=int, nargs="?", default=3)
    ap.add_argument("--refs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    hyps, refs = generate(args.segments, args.refs, seed=args.seed)
    for h, rs in zip(hyps, refs, strict=True):
        print("HYP ", h)
        for r in rs:
            print("REF ", r)
        print()


if __name__ == "__main__":
    main()
