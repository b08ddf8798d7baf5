"""The peers' own published BLEU test cases, replayed against the harness profiles.

Every profile in :mod:`harness.bleu.profiles` claims to reproduce one library. The libraries ship
test suites (unit tests and doctests) that pin their behaviour on small hand-picked inputs; if
a profile really reproduces a library, it must pass that library's numeric test cases too.
This module is a table of those cases, one row per published assertion, grouped by source:

* ``mjpost/sacrebleu``           test/test_bleu.py, test/test_sentence_bleu.py
* ``nltk/nltk``                  nltk/test/unit/translate/test_bleu.py, nltk/test/bleu.doctest and
  the doctests of nltk/translate/bleu_score.py (as released in nltk 3.10.4)
* ``Lightning-AI/torchmetrics``  tests/unittests/text/test_bleu.py and the doctests of
  text/bleu.py, text/sacre_bleu.py (their functional twins carry the same examples)
* ``shenxiangzhuang/bleuscore``  Rust unit tests in crates/bleuscore/src/bleu.rs, tokenizer.rs
* ``huggingface/evaluate``       doctest of metrics/bleu/bleu.py (tensorflow/nmt's compute_bleu
  behind a 13a tokenizer)

How to read a row
-----------------
``cite`` names "repository, file, test" where the case is published. Inputs and expected values
are transcribed from there; the expected value is written exactly as the peer's assertion states
it, on the peer's scale. The :class:`Expect` records the peer's own check: an absolute
tolerance (``EPSILON`` of the test), ``assertAlmostEqual(places=k)``, exact equality, a doctest
``ELLIPSIS`` prefix (``0.5045...`` means the value lies in [0.5045, 0.5046)), or a printed value
rounded to k decimals. Never looser than the peer, so every row can fail. When the peer states
a BLEU score on the 0–1 scale, :func:`points` converts it (×100) to the harness's 0–100 scale
inside the check; nothing was re-typed. Brevity penalties and modified precisions are 0–1 on both
sides and compared as they are.

Option mapping (peer call → profile + overrides):

* sacrebleu ``BLEU(...)``/``corpus_bleu`` → ``"sacrebleu"``; ``sentence_score`` →
  ``"sacrebleu-sentence"``; ``raw_corpus_bleu(h, r, v)`` is sacrebleu's ``tokenize='none'``,
  ``smooth_method='floor'``, ``smooth_value=v``, ``use_effective_order=True``. sacrebleu takes
  reference *streams*; :func:`streams` transposes them to the harness's per-segment layout.
* nltk takes references first and token lists; rows join tokens with single spaces and use
  ``"nltk"`` (its tokenizer is ``str.split``). ``weights=w`` → ``weights=w, max_order=len(w)``;
  ``SmoothingFunction().methodK`` → ``smooth="nltk-methodK"``; ``modified_precision`` is read
  from the result's clipped counts over totals and ``brevity_penalty`` from ``result.bp``.
* torchmetrics ``BLEUScore`` → ``"torchmetrics"``, ``SacreBLEUScore`` →
  ``"torchmetrics-sacrebleu"``; bleuscore ``compute_score(smooth=true)`` → ``"bleuscore"`` with
  ``smooth="plus-one"``; evaluate ``bleu.compute`` → ``"evaluate"``.

Left out on purpose: assertions that compare a library with itself or with another library at
run time (no number is published), signature strings, CHRF/TER, cases that need data files
not shipped with the test (nltk's ``wmt15_eval`` models, tensorflow/nmt's ``deen_output``, whose
``testEvaluate`` is the only numeric nmt test), and cases whose outcome is an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

import harness
from harness.bleu.engine import score_totals
from harness.bleu.stats import Totals
from harness.bleu.tokenizers import tokenize


def points(x: Any) -> Any:
    """A peer's BLEU value on the 0–1 scale, expressed on the harness's 0–100 scale (exactly,
    for a ``Decimal``)."""
    return 100 * x


# ============================================================================ expectations
@dataclass(frozen=True)
class Expect:
    """One published assertion: the expected number and how the peer compares against it.

    ``kind``: ``"abs"`` (``|actual - value| < tol``), ``"places"`` (``assertAlmostEqual`` with
    ``tol`` decimal places, checked as ``|actual - value| < 0.5e-places``), ``"exact"``,
    ``"prefix"`` (doctest ELLIPSIS: ``value`` is the printed digits, the true value lies in
    ``[value, value + one unit of its last digit)``), ``"rounded"`` (``value`` is the printed,
    rounded text, so ``|actual - value| <= half a unit of its last digit``).
    ``unit``: the peer states a BLEU score on 0–1; it is converted with :func:`points`.
    """

    kind: str
    value: Any
    tol: float = 0.0
    unit: bool = False

    def bounds(self) -> tuple[Callable[[float], bool], str]:
        def scale(x: Any) -> Any:
            return points(x) if self.unit else x

        if self.kind == "exact":
            target = scale(self.value)
            return (lambda a: a == target), f"== {target!r}"
        if self.kind == "abs":
            target, tol = scale(self.value), scale(self.tol)
            return (lambda a: abs(a - target) < tol), f"{target!r} ± {tol:g} (strict)"
        if self.kind == "places":
            target, tol = scale(self.value), scale(0.5 * 10.0 ** -int(self.tol))
            return (lambda a: abs(a - target) < tol), f"{target!r} ± {tol:g}"
        text = Decimal(self.value)
        unit_digit = Decimal(1).scaleb(text.as_tuple().exponent)  # type: ignore[arg-type]
        if self.kind == "prefix":
            lo, hi = float(scale(text)), float(scale(text + unit_digit))
            return (lambda a: lo <= a < hi), f"in [{lo!r}, {hi!r})"
        if self.kind == "rounded":
            target, half = float(scale(text)), float(scale(unit_digit / 2))
            return (lambda a: abs(a - target) <= half), f"{target!r} ± {half:g}"
        raise ValueError(f"unknown check {self.kind!r}")


def eps(value: float, tol: float, *, unit: bool = False) -> Expect:
    return Expect("abs", value, tol, unit)


def places(value: float, k: int, *, unit: bool = False) -> Expect:
    return Expect("places", value, k, unit)


def exact(value: Any, *, unit: bool = False) -> Expect:
    return Expect("exact", value, unit=unit)


def prefix(digits: str, *, unit: bool = False) -> Expect:
    return Expect("prefix", digits, unit=unit)


def rounded(digits: str, *, unit: bool = False) -> Expect:
    return Expect("rounded", digits, unit=unit)


# ============================================================================ rows
@dataclass(frozen=True)
class Row:
    """One published case. ``what``: ``score`` (0–100), ``bp``, ``p<n>`` (modified precision
    of order n = clipped matches / totals), or ``stats`` (``(counts, totals)``, exact).
    ``level``: ``corpus`` (``harness.corpus_bleu``) or ``sentence`` (one segment,
    ``harness.sentence_bleu``)."""

    name: str
    cite: str
    hyps: tuple[str, ...]
    refs: tuple[tuple[str, ...], ...]
    profile: str
    expect: Expect
    overrides: dict[str, Any] = field(default_factory=dict)
    what: str = "score"
    level: str = "corpus"
    xfail: str | None = None


def streams(
    hyps: Sequence[str], ref_streams: Sequence[Sequence[str]]
) -> tuple[tuple[str, ...], ...]:
    """sacrebleu's reference streams (one list per reference, each as long as ``hyps``) as the
    harness's per-segment reference lists."""
    for stream in ref_streams:
        assert len(stream) == len(hyps), "every sacrebleu reference stream covers every segment"
    return tuple(tuple(stream[i] for stream in ref_streams) for i in range(len(hyps)))


def seg(*refs: str) -> tuple[tuple[str, ...], ...]:
    """The references of a one-segment corpus."""
    return (tuple(refs),)


def a_times(n: int) -> str:
    """nltk's ``['a'] * n`` joined with spaces."""
    return " ".join(["a"] * n)


def uniform(n: int) -> dict[str, Any]:
    """nltk's ``weights=(1.0 / n,) * n``."""
    return {"weights": (1.0 / n,) * n, "max_order": n}


def weights(*w: float) -> dict[str, Any]:
    return {"weights": tuple(w), "max_order": len(w)}


# ------------------------------------------------------------------------ sacrebleu
SB_BLEU = "mjpost/sacrebleu, test/test_bleu.py, "
SB_SENT = "mjpost/sacrebleu, test/test_sentence_bleu.py, "

# raw_corpus_bleu(hyps, refs, smooth_value): no tokenization, floor smoothing, effective order
RAW = {"tokenize": "none", "smooth": "floor", "effective_order": True}

# The README example (three segments, two reference streams).
DOG_HYPS = ("The dog bit the man.", "It wasn't surprising.", "The man had just bitten him.")
DOG_REF_STREAMS = (
    ("The dog bit the man.", "It was not unexpected.", "The man bit him first."),
    ("The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."),
)
DOG_REFS = streams(DOG_HYPS, DOG_REF_STREAMS)

# Issue #98 (Romanian; U+0163 t-cedilla in the reference, U+021B t-comma in the hypothesis).
RO_REF = "produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb;"
RO_SYS = (
    "Produc\u021bia de zah\u0103r prim\u0103 va fi exprimat\u0103 \u00een ceea ce "
    "prive\u0219te zah\u0103rul alb;"
)
# Issue #141 (no match at all).
ZERO_REF, ZERO_SYS = "okay thanks", "this is a cat"

OFFSET_HYP = "am I am a character sequence"
OFFSET_REF = "I am a symbol string sequence a a"


def _sacrebleu_rows() -> list[Row]:
    rows = [
        # test_raw_bleu (score / 100 compared with EPSILON = 1e-8)
        Row(
            "raw-no-match",
            SB_BLEU + "test_raw_bleu[0]",
            ("this is a test", "another test"),
            streams(("this is a test", "another test"), (("ref1", "ref2"),)),
            "sacrebleu",
            eps(0.0, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        Row(
            "raw-identical",
            SB_BLEU + "test_raw_bleu[1]",
            ("this is a test",),
            streams(("this is a test",), (("this is a test",),)),
            "sacrebleu",
            eps(1.0, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        Row(
            "raw-fest",
            SB_BLEU + "test_raw_bleu[2]",
            ("this is a fest",),
            streams(("this is a fest",), (("this is a test",),)),
            "sacrebleu",
            eps(0.223606797749979, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        # test_corpus_bleu (sacrebleu.corpus_bleu, score compared with EPSILON = 1e-8)
        Row(
            "corpus-default",
            SB_BLEU + "test_corpus_bleu[0]",
            DOG_HYPS,
            DOG_REFS,
            "sacrebleu",
            eps(48.530827, 1e-8),
        ),
        Row(
            "corpus-empty-hyps",
            SB_BLEU + "test_corpus_bleu[1]",
            ("", "", ""),
            DOG_REFS,
            "sacrebleu",
            eps(0.0, 1e-8),
        ),
        Row(
            "corpus-tok-none",
            SB_BLEU + "test_corpus_bleu[2]",
            DOG_HYPS,
            DOG_REFS,
            "sacrebleu",
            eps(49.1919566, 1e-8),
            {"tokenize": "none"},
        ),
        Row(
            "corpus-tok-13a",
            SB_BLEU + "test_corpus_bleu[3]",
            DOG_HYPS,
            DOG_REFS,
            "sacrebleu",
            eps(48.530827, 1e-8),
            {"tokenize": "13a"},
        ),
        Row(
            "corpus-tok-intl",
            SB_BLEU + "test_corpus_bleu[4]",
            DOG_HYPS,
            DOG_REFS,
            "sacrebleu",
            eps(43.91623493, 1e-8),
            {"tokenize": "intl"},
        ),
        Row(
            "corpus-smooth-none",
            SB_BLEU + "test_corpus_bleu[5]",
            DOG_HYPS,
            DOG_REFS,
            "sacrebleu",
            eps(48.530827, 1e-8),
            {"smooth": "none"},
        ),
        # test_effective_order (raw_corpus_bleu with 0.01)
        Row(
            "eff-order-test",
            SB_BLEU + "test_effective_order[0]",
            ("test",),
            streams(("test",), (("a test",),)),
            "sacrebleu",
            eps(0.3678794411714425, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        Row(
            "eff-order-identical",
            SB_BLEU + "test_effective_order[1]",
            ("a test",),
            streams(("a test",), (("a test",),)),
            "sacrebleu",
            eps(1.0, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        Row(
            "eff-order-little",
            SB_BLEU + "test_effective_order[2]",
            ("a little test",),
            streams(("a little test",), (("a test",),)),
            "sacrebleu",
            eps(0.03218297948685433, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.01},
        ),
        # test_offset: raw_corpus_bleu with 0.0, then with the default floor value (0.1)
        Row(
            "offset-zero",
            SB_BLEU + "test_offset (smooth_value=0.0)",
            (OFFSET_HYP,),
            streams((OFFSET_HYP,), ((OFFSET_REF,),)),
            "sacrebleu",
            eps(0, 1e-8, unit=True),
            {**RAW, "smooth_value": 0.0},
        ),
        Row(
            "offset-default",
            SB_BLEU + "test_offset (smooth_value=None / default)",
            (OFFSET_HYP,),
            streams((OFFSET_HYP,), ((OFFSET_REF,),)),
            "sacrebleu",
            eps(0.1555722182, 1e-8, unit=True),
            RAW,
        ),
        # test_statistics: matched and total n-grams
        Row(
            "statistics",
            SB_BLEU + "test_statistics",
            (OFFSET_HYP,),
            streams((OFFSET_HYP,), ((OFFSET_REF,),)),
            "sacrebleu",
            exact(((4, 2, 1, 0), (6, 5, 4, 3))),
            {**RAW, "smooth_value": 0.01},
            what="stats",
        ),
    ]
    # test_max_ngram_order: f"{score:.2f}" must equal the string
    for order, text in (
        (1, "77.65"),
        (2, "60.50"),
        (3, "53.93"),
        (4, "48.53"),
        (5, "46.14"),
        (6, "43.28"),
    ):
        rows.append(
            Row(
                f"max-order-{order}",
                SB_BLEU + f"test_max_ngram_order[{order}]",
                DOG_HYPS,
                DOG_REFS,
                "sacrebleu",
                rounded(text),
                {"max_order": order},
            )
        )

    # test_sentence_bleu.py: test_compat_sentence_bleu and test_api_sentence_bleu share the
    # table (BLEU(..., effective_order=True).sentence_score(SYS, [REF]), EPSILON = 1e-3).
    sentence_cases = (
        ("exp", None, False, "13a", 8.493),
        ("none", None, False, "13a", 0.0),
        ("floor", None, False, "13a", 4.51688),
        ("floor", 0.1, False, "13a", 4.51688),
        ("floor", 0.5, False, "13a", 10.10),
        ("add-k", None, False, "13a", 14.882),
        ("add-k", 1, False, "13a", 14.882),
        ("add-k", 2, False, "13a", 21.389),
        ("exp", None, False, "none", 7.347),
        ("exp", None, False, "intl", 8.493),
        ("exp", None, False, "char", 40.8759),
        ("exp", None, True, "char", 42.0267),
    )
    for i, (method, value, lower, tok, expected) in enumerate(sentence_cases):
        opts: dict[str, Any] = {"smooth": method, "tokenize": tok, "lowercase": lower}
        if value is not None:
            opts["smooth_value"] = value
        rows.append(
            Row(
                f"sentence-{i}-{method}-{value}-{tok}{'-lc' if lower else ''}",
                SB_SENT + f"test_compat_sentence_bleu[{i}] / test_api_sentence_bleu[{i}]",
                (RO_SYS,),
                seg(RO_REF),
                "sacrebleu-sentence",
                eps(expected, 1e-3),
                opts,
                level="sentence",
            )
        )
    zero_cases = (
        ("exp", None),
        ("none", None),
        ("floor", None),
        ("floor", 0.1),
        ("add-k", None),
        ("add-k", 1),
    )
    for i, (method, value) in enumerate(zero_cases):
        opts = {"smooth": method, "tokenize": "13a", "lowercase": False}
        if value is not None:
            opts["smooth_value"] = value
        rows.append(
            Row(
                f"sentence-zero-{i}-{method}-{value}",
                SB_SENT + f"test_api_sentence_bleu_zero[{i}]",
                (ZERO_SYS,),
                seg(ZERO_REF),
                "sacrebleu-sentence",
                eps(0.0, 1e-3),
                opts,
                level="sentence",
            )
        )
    return rows


# ------------------------------------------------------------------------ nltk
NLTK_UNIT = "nltk/nltk, nltk/test/unit/translate/test_bleu.py, "
NLTK_DOC = "nltk/nltk, nltk/translate/bleu_score.py, "
NLTK_DOCTEST = "nltk/nltk, nltk/test/bleu.doctest, "

# The examples of Papineni et al. (2002) that nltk's tests and doctests share.
HYP1 = (
    "It is a guide to action which ensures that the military always obeys the commands of the party"
)
HYP2 = "It is to insure the troops forever hearing the activity guidebook that party direct"
REF1 = "It is a guide to action that ensures that the military will forever heed Party commands"
REF2 = (
    "It is the guiding principle which guarantees the military forces always being under the "
    "command of the Party"
)
REF3 = "It is the practical guide for the army always to heed the directions of the party"
HYP_B = "he read the book because he was interested in world history"
REF_B = "he was interested in world history because he read the book"
NO_ALIGN = "The candidate has no alignment to any of the references"
BAD_HYP = "Teo S yb , oe uNb , R , T t , , t Tue Ar saln S , , 5istsi l , 5oe R ulO sae oR R"
# The test concatenates two string literals without a space: "stokehold ." + "Likewise".
BAD_REF = (
    "Their tasks include changing a pump on the faulty stokehold .Likewise , two species that "
    "are very similar in morphology were distinguished using genetics ."
)


def _nltk_rows() -> list[Row]:
    s = "sentence"
    the7 = "the the the the the the the"
    cat_refs = seg("the cat is on the mat", "there is a cat on the mat")
    paper = seg(REF1, REF2, REF3)
    rows = [
        # -- unit tests ---------------------------------------------------------------
        Row(
            "modprec-the-p1",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (the7,),
            cat_refs,
            "nltk",
            places(0.28571428, 4),
            what="p1",
            level=s,
        ),
        Row(
            "modprec-the-p2",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (the7,),
            cat_refs,
            "nltk",
            exact(0.0),
            what="p2",
            level=s,
        ),
        Row(
            "modprec-of-the-p1",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            ("of the",),
            paper,
            "nltk",
            exact(1.0),
            what="p1",
            level=s,
        ),
        Row(
            "modprec-of-the-p2",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            ("of the",),
            paper,
            "nltk",
            exact(1.0),
            what="p2",
            level=s,
        ),
        Row(
            "modprec-hyp1-p1",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (HYP1,),
            paper,
            "nltk",
            places(0.94444444, 4),
            what="p1",
            level=s,
        ),
        Row(
            "modprec-hyp2-p1",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (HYP2,),
            paper,
            "nltk",
            places(0.57142857, 4),
            what="p1",
            level=s,
        ),
        Row(
            "modprec-hyp1-p2",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (HYP1,),
            paper,
            "nltk",
            places(0.58823529, 4),
            what="p2",
            level=s,
        ),
        Row(
            "modprec-hyp2-p2",
            NLTK_UNIT + "TestBLEU.test_modified_precision",
            (HYP2,),
            paper,
            "nltk",
            places(0.07692307, 4),
            what="p2",
            level=s,
        ),
        Row(
            "bp-11-8-vs-7",
            NLTK_UNIT + "TestBLEU.test_brevity_penalty",
            (a_times(7),),
            seg(a_times(11), a_times(8)),
            "nltk",
            places(0.8669, 4),
            what="bp",
            level=s,
        ),
        Row(
            "bp-11-8-6-7-vs-7",
            NLTK_UNIT + "TestBLEU.test_brevity_penalty",
            (a_times(7),),
            seg(a_times(11), a_times(8), a_times(6), a_times(7)),
            "nltk",
            exact(1.0),
            what="bp",
            level=s,
        ),
    ]
    for n in (1, 2):  # range(1, len(hypothesis)) with a three-token hypothesis
        rows.append(
            Row(
                f"zero-matches-n{n}",
                NLTK_UNIT + f"TestBLEU.test_zero_matches (n={n})",
                ("John loves Mary",),
                seg(NO_ALIGN),
                "nltk",
                exact(0, unit=True),
                uniform(n),
                level=s,
            )
        )
    for n in (1, 2):
        rows.append(
            Row(
                f"full-matches-n{n}",
                NLTK_UNIT + f"TestBLEU.test_full_matches (n={n})",
                ("John loves Mary",),
                seg("John loves Mary"),
                "nltk",
                exact(1.0, unit=True),
                uniform(n),
                level=s,
            )
        )
    rows += [
        Row(
            "hyp-longer-than-ref",
            NLTK_UNIT + "TestBLEU.test_partial_matches_hypothesis_longer_than_reference",
            ("John loves Mary who loves Mike",),
            seg("John loves Mary"),
            "nltk",
            places(0.0, 4, unit=True),
            level=s,
        ),
        Row(
            "n-bigger-than-hyp",
            NLTK_UNIT + "TestBLEUFringeCases.test_case_where_n_is_bigger_than_hypothesis_length",
            ("John loves Mary",),
            seg("John loves Mary ?"),
            "nltk",
            places(0.0, 4, unit=True),
            uniform(4),
            level=s,
        ),
        Row(
            "n-bigger-than-hyp-and-ref",
            NLTK_UNIT + "TestBLEUFringeCases.test_case_where_n_is_bigger_than_hypothesis_length"
            " (second assertion)",
            ("John loves Mary",),
            seg("John loves Mary"),
            "nltk",
            places(0.0, 4, unit=True),
            uniform(4),
            level=s,
        ),
        Row(
            "empty-hypothesis",
            NLTK_UNIT + "TestBLEUFringeCases.test_empty_hypothesis",
            ("",),
            seg(NO_ALIGN),
            "nltk",
            exact(0, unit=True),
            level=s,
        ),
        Row(
            "empty-references",
            NLTK_UNIT + "TestBLEUFringeCases.test_empty_references",
            ("John loves Mary",),
            seg(""),
            "nltk",
            exact(0, unit=True),
            level=s,
        ),
        Row(
            "empty-both",
            NLTK_UNIT + "TestBLEUFringeCases.test_empty_references_and_hypothesis",
            ("",),
            seg(""),
            "nltk",
            exact(0, unit=True),
            level=s,
        ),
        Row(
            "shorter-than-fourgrams",
            NLTK_UNIT + "TestBLEUFringeCases.test_reference_or_hypothesis_shorter_than_fourgrams",
            ("let go it",),
            seg("let it go"),
            "nltk",
            places(0.0, 4, unit=True),
            level=s,
        ),
        Row(
            "bad-sentence",
            NLTK_UNIT + "TestBLEUWithBadSentence.test_corpus_bleu_with_bad_sentence",
            (BAD_HYP,),
            seg(BAD_REF),
            "nltk",
            places(0.0, 4, unit=True),
        ),
        # -- doctests of nltk/translate/bleu_score.py -----------------------------------
        Row(
            "doc-sentence-hyp1",
            NLTK_DOC + "sentence_bleu doctest",
            (HYP1,),
            paper,
            "nltk",
            prefix("0.5045", unit=True),
            level=s,
        ),
        Row(
            "doc-sentence-hyp2-rounded",
            NLTK_DOC + "sentence_bleu doctest (round(..., 4))",
            (HYP2,),
            paper,
            "nltk",
            places(0.0, 4, unit=True),
            level=s,
        ),
        Row(
            "doc-sentence-hyp2-method1",
            NLTK_DOC + "sentence_bleu doctest (chencherry.method1)",
            (HYP2,),
            paper,
            "nltk",
            prefix("0.0370", unit=True),
            {"smooth": "nltk-method1"},
            level=s,
        ),
        Row(
            "doc-sentence-bleu5",
            NLTK_DOC + "sentence_bleu doctest (BLEU-5)",
            (HYP1,),
            paper,
            "nltk",
            prefix("0.3920", unit=True),
            weights(*(1.0 / 5.0,) * 5),
            level=s,
        ),
        Row(
            "doc-sentence-bleu2",
            NLTK_DOC + "sentence_bleu doctest (list of weights, BLEU-2)",
            (HYP1,),
            paper,
            "nltk",
            prefix("0.7453", unit=True),
            weights(1.0 / 2.0, 1.0 / 2.0),
            level=s,
        ),
        Row(
            "doc-sentence-bleu3",
            NLTK_DOC + "sentence_bleu doctest (list of weights, BLEU-3)",
            (HYP1,),
            paper,
            "nltk",
            prefix("0.6240", unit=True),
            weights(*(1.0 / 3.0,) * 3),
            level=s,
        ),
    ]
    corpus_hyps = (HYP1, HYP_B)
    corpus_refs = ((REF1, REF2, REF3), (REF_B,))
    rows += [
        Row(
            "doc-corpus",
            NLTK_DOC + "corpus_bleu doctest",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.5920", unit=True),
        ),
        Row(
            "doc-corpus-vs-sentence-mean",
            NLTK_DOC + "corpus_bleu doctest ((score1 + score2) / 2)",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.6223", unit=True),
            {"aggregation": "sentence-mean"},
        ),
        Row(
            "doc-corpus-custom-weights",
            NLTK_DOC + "corpus_bleu doctest (0.1, 0.3, 0.5, 0.1)",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.5818", unit=True),
            weights(0.1, 0.3, 0.5, 0.1),
        ),
        Row(
            "doc-corpus-weights-2",
            NLTK_DOC + "corpus_bleu doctest (list of weights, [0])",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.8242", unit=True),
            weights(0.5, 0.5),
        ),
        Row(
            "doc-corpus-weights-3",
            NLTK_DOC + "corpus_bleu doctest (list of weights, [1])",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.7067", unit=True),
            weights(0.333, 0.333, 0.334),
        ),
        Row(
            "doc-corpus-weights-5",
            NLTK_DOC + "corpus_bleu doctest (list of weights, [3])",
            corpus_hyps,
            corpus_refs,
            "nltk",
            prefix("0.4719", unit=True),
            weights(0.2, 0.2, 0.2, 0.2, 0.2),
        ),
        # modified_precision doctest: the one assertion stricter than the unit test's
        Row(
            "doc-modprec-hyp1-p2",
            NLTK_DOC + "modified_precision doctest",
            (HYP1,),
            paper,
            "nltk",
            exact(0.5882352941176471),
            what="p2",
            level=s,
        ),
        # brevity_penalty doctests (the two mteval cases repeat the unit test; only the
        # ELLIPSIS one adds a tighter check)
        Row(
            "doc-bp-12-15-17-vs-12",
            NLTK_DOC + "brevity_penalty doctest (paper example)",
            (a_times(12),),
            seg(a_times(12), a_times(15), a_times(17)),
            "nltk",
            exact(1.0),
            what="bp",
            level=s,
        ),
        Row(
            "doc-bp-28-28-vs-12",
            NLTK_DOC + "brevity_penalty doctest (shorter hypothesis)",
            (a_times(12),),
            seg(a_times(28), a_times(28)),
            "nltk",
            exact(0.2635971381157267),
            what="bp",
            level=s,
        ),
        Row(
            "doc-bp-13-2-vs-12",
            NLTK_DOC + "brevity_penalty doctest (closest reference)",
            (a_times(12),),
            seg(a_times(13), a_times(2)),
            "nltk",
            prefix("0.9200"),
            what="bp",
            level=s,
        ),
        Row(
            "doc-bp-tie-13-11",
            NLTK_DOC + "brevity_penalty doctest (tie, bp1)",
            (a_times(12),),
            seg(a_times(13), a_times(11)),
            "nltk",
            exact(1),
            what="bp",
            level=s,
        ),
        Row(
            "doc-bp-tie-11-13",
            NLTK_DOC + "brevity_penalty doctest (tie, reversed, bp2)",
            (a_times(12),),
            seg(a_times(11), a_times(13)),
            "nltk",
            exact(1),
            what="bp",
            level=s,
        ),
        Row(
            "doc-bp-11-8-vs-7",
            NLTK_DOC + "brevity_penalty doctest (mteval-v13a example)",
            (a_times(7),),
            seg(a_times(11), a_times(8)),
            "nltk",
            prefix("0.8668"),
            what="bp",
            level=s,
        ),
    ]
    # SmoothingFunction.__init__ doctest: one hypothesis, one reference, every method
    smoothing = (
        (None, "0.4118"),
        ("nltk-method0", "0.4118"),
        ("nltk-method1", "0.4118"),
        ("nltk-method2", "0.4452"),
        ("nltk-method3", "0.4118"),
        ("nltk-method4", "0.4118"),
        ("nltk-method5", "0.4905"),
        ("nltk-method6", "0.4135"),
        ("nltk-method7", "0.4905"),
    )
    for method, digits in smoothing:
        opts = {} if method is None else {"smooth": method}
        label = "no smoothing_function" if method is None else f"chencherry.{method[5:]}"
        rows.append(
            Row(
                f"doc-smoothing-{method or 'default'}",
                NLTK_DOC + f"SmoothingFunction.__init__ doctest ({label})",
                (HYP1,),
                seg(REF1),
                "nltk",
                prefix(digits, unit=True),
                opts,
                level=s,
            )
        )
    # nltk/test/bleu.doctest; its first example repeats test_zero_matches (n=1).
    rows.append(
        Row(
            "doctest-method4-short",
            NLTK_DOCTEST + "SmoothingFunction().method4 * 100",
            ("It is .",),
            seg("It is a place of quiet contemplation ."),
            "nltk",
            prefix("4.4267"),
            {"smooth": "nltk-method4"},
            level=s,
        )
    )
    return rows


# ------------------------------------------------------------------------ torchmetrics
TM = "Lightning-AI/torchmetrics, "
CAT_PREDS = ("the cat is on the mat",)
CAT_TARGET = (("there is a cat on the mat", "a cat is on the mat"),)
LIGHTNING_PREDS = ("My full pytorch-lightning",)
LIGHTNING_TARGET = (("My full pytorch-lightning test", "Completely Different"),)


def _torchmetrics_rows() -> list[Row]:
    return [
        # tensor(0.7598) is torch's print, rounded to four decimals
        Row(
            "doc-bleuscore",
            TM + "src/torchmetrics/text/bleu.py, BLEUScore doctest "
            "(same example: functional/text/bleu.py, bleu_score doctest)",
            CAT_PREDS,
            CAT_TARGET,
            "torchmetrics",
            rounded("0.7598", unit=True),
        ),
        Row(
            "doc-sacrebleuscore",
            TM + "src/torchmetrics/text/sacre_bleu.py, SacreBLEUScore "
            "doctest (same example: functional/text/sacre_bleu.py, sacre_bleu_score doctest)",
            CAT_PREDS,
            CAT_TARGET,
            "torchmetrics-sacrebleu",
            rounded("0.7598", unit=True),
        ),
        Row(
            "empty",
            TM + "tests/unittests/text/test_bleu.py, test_bleu_empty_functional / "
            "test_bleu_empty_class",
            ("",),
            seg(""),
            "torchmetrics",
            exact(0.0, unit=True),
        ),
        Row(
            "no-4-gram",
            TM + "tests/unittests/text/test_bleu.py, test_no_4_gram_functional / "
            "test_no_4_gram_class",
            LIGHTNING_PREDS,
            LIGHTNING_TARGET,
            "torchmetrics",
            exact(0.0, unit=True),
        ),
    ]


# ------------------------------------------------------------------------ bleuscore, evaluate
def _bleuscore_rows() -> list[Row]:
    return [
        Row(
            "rust-test-bleu",
            "shenxiangzhuang/bleuscore, crates/bleuscore/src/bleu.rs, test::test_bleu",
            ("Yellow, World!",),
            seg("Hello, World!"),
            "bleuscore",
            eps(0.668740304976422, 1e-10, unit=True),
            {"smooth": "plus-one", "max_order": 4},
        ),
    ]


def _evaluate_rows() -> list[Row]:
    return [
        Row(
            "doc-kenobi",
            "huggingface/evaluate, metrics/bleu/bleu.py, _KWARGS_DESCRIPTION doctest",
            ("hello there general kenobi", "foo bar foobar"),
            (("hello there general kenobi", "hello there!"), ("foo bar foobar",)),
            "evaluate",
            exact(1.0, unit=True),
        ),
    ]


SOURCES: dict[str, Callable[[], list[Row]]] = {
    "sacrebleu": _sacrebleu_rows,
    "nltk": _nltk_rows,
    "torchmetrics": _torchmetrics_rows,
    "bleuscore": _bleuscore_rows,
    "evaluate": _evaluate_rows,
}


def _params() -> list[Any]:
    params = []
    for source, build in SOURCES.items():
        for row in build():
            marks = [pytest.mark.xfail(strict=True, reason=row.xfail)] if row.xfail else []
            params.append(pytest.param(row, id=f"{source}:{row.name}", marks=marks))
    return params


def measure(row: Row) -> Any:
    if row.level == "sentence":
        (hyp,), (refs,) = row.hyps, row.refs
        result = harness.sentence_bleu(
            hypothesis=hyp, references=refs, profile=row.profile, **row.overrides
        )
    else:
        result = harness.corpus_bleu(
            hypotheses=row.hyps, references=row.refs, profile=row.profile, **row.overrides
        )
    if row.what == "score":
        return result.score
    if row.what == "bp":
        return result.bp
    if row.what == "stats":
        return (tuple(result.counts), tuple(result.totals))
    n = int(row.what[1:])  # modified precision: clipped matches over (floored) totals
    return float(Fraction(result.counts[n - 1], result.totals[n - 1]))


@pytest.mark.parametrize("row", _params())
def test_published_case(row: Row) -> None:
    assert len(row.hyps) == len(row.refs)
    actual = measure(row)
    if row.what == "stats":
        assert actual == row.expect.value, row.cite
        return
    holds, wanted = row.expect.bounds()
    assert holds(actual), f"{row.cite}: harness {actual!r}, peer wants {wanted}"


# ============================================================================ statistics
# sacrebleu's BLEU.compute_bleu(correct, total, sys_len, ref_len, smooth_method, smooth_value)
# takes sufficient statistics, not text; harness.bleu.engine.score_totals is the same function.
STATS_CASES = [
    pytest.param(
        ((9, 7, 5, 3), (10, 8, 6, 4), 11, 11),
        {"smooth": "none"},
        eps(0.8375922397, 1e-8, unit=True),
        SB_BLEU + "test_scoring",
        id="scoring",
    ),
    *(
        pytest.param(
            stats,
            {"smooth": "floor", "smooth_value": value},
            exact(0.0, unit=True),
            SB_BLEU + f"test_degenerate_statistics[{i}]",
            id=f"degenerate-{i}",
        )
        for i, (stats, value) in enumerate(
            (
                (((0, 0, 0, 0), (4, 4, 2, 1), 0, 1), 0.0),
                (((0, 0, 0, 0), (10, 11, 12, 0), 14, 10), 0.0),
                (((0, 0, 0, 0), (0, 0, 0, 0), 0, 0), 0.0),
                (((6, 5, 4, 0), (6, 5, 4, 3), 6, 6), 0.0),
                (((0, 0, 0, 0), (0, 0, 0, 0), 0, 0), 0.1),
                (((0, 0, 0, 0), (0, 0, 0, 0), 1, 5), 0.01),
            )
        )
    ),
]


@pytest.mark.parametrize(("stats", "overrides", "expect", "cite"), STATS_CASES)
def test_published_statistics_case(
    stats: tuple[tuple[int, ...], tuple[int, ...], int, int],
    overrides: dict[str, Any],
    expect: Expect,
    cite: str,
) -> None:
    correct, total, sys_len, ref_len = stats
    config = harness.resolve_config("sacrebleu", **overrides)
    scored = score_totals(
        Totals(sys_len=sys_len, ref_len=ref_len, correct=correct, total=total), config
    )
    holds, wanted = expect.bounds()
    assert holds(scored.score), f"{cite}: harness {scored.score!r}, peer wants {wanted}"


# ============================================================================ tokenizers
# Published tokenizer cases. mjpost/sacrebleu publishes none for 13a/intl/char/zh (its only
# tokenizer test file covers TER); bleuscore's Rust port of 13a has two.
TOKENIZER_CASES = [
    pytest.param(
        "Hello, &quot;World!<skipped>",
        "13a",
        ["Hello", ",", '"', "World", "!"],
        "shenxiangzhuang/bleuscore, crates/bleuscore/src/tokenizer.rs, "
        "test::test_tokenize_13a_regex (first assertion)",
        id="13a-entity-skipped",
    ),
    pytest.param(
        "/usr/sbin/sendmail - 0 errors, 12 warnings",
        "13a",
        ["/", "usr", "/", "sbin", "/", "sendmail", "-", "0", "errors", ",", "12", "warnings"],
        "shenxiangzhuang/bleuscore, crates/bleuscore/src/tokenizer.rs, "
        "test::test_tokenize_13a_regex (second assertion)",
        id="13a-sendmail",
    ),
]


@pytest.mark.parametrize(("text", "name", "expected", "cite"), TOKENIZER_CASES)
def test_published_tokenizer_case(text: str, name: str, expected: list[str], cite: str) -> None:
    assert tokenize(text, name) == expected, cite
