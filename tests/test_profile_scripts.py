"""Differential tests: BLEU scripts shipped inside toolkits, run as published.

None of these packages installs here (lm-eval, tensor2tensor and keras-hub pull in torch or
TensorFlow stacks; fairseq needs a C++ build), so :mod:`tests.published` downloads each one's
wheel or sdist once and runs its own definitions:

* ``codexglue`` — lm-eval 0.4.13 ``tasks/code_x_glue/code-text/bleu.py`` (stdlib only) is
  executed whole; the lm-eval path is ``smoothed_bleu_4(references=[gold],
  predictions=[output])`` per document and ``lm_eval.api.metrics.mean`` over documents;
  CodeXGLUE's own evaluator (``computeMaps`` + ``bleuFromMaps``) covers several references.
  1e-9 BLEU points.
* ``tensor2tensor`` — 1.15.7 ``utils/bleu_hook.py``: ``bleu_tokenize`` and ``compute_bleu``
  (the module imports TensorFlow at the top; the definitions run with numpy, and with ``six``
  replaced by its Python 3 meaning, ``unichr = chr``). ``compute_bleu`` returns
  ``np.float32(bleu)``: a value in [0, 1] rounded to float32 is off by at most 2**-24 of it,
  i.e. 6e-6 BLEU points, so the real function is held to the profile's 1e-5; the same
  published definitions run with the cast replaced by ``float`` agree to 1e-9, which shows
  that the cast is the whole gap. ``bleu_wrapper`` runs with ``tf.gfile.Open`` = ``open``.
* ``fairseq`` — 0.12.2 ``clib/libbleu/libbleu.cpp`` compiled with g++ (``-std=c++11 -O3``, as
  its setup.py) into a temporary directory and loaded with ctypes by the published
  ``scoring/bleu.py`` ``Scorer`` (``from fairseq import libbleu`` is answered with the
  compiled file), fed by the published ``Dictionary.encode_line`` as ``fairseq-score`` does
  (the system line, then the reference line: the order fixes the ids libbleu hashes).
  Large-vocabulary corpora (:func:`tests.strategies.large_vocabulary_corpora`) reach its
  hash collisions, which the profile reproduces (``ngram_identity="fairseq-hash"``).
  1e-9 BLEU points; ``result_string`` to its printed precision.
* ``keras-hub`` — 0.32.0 ``metrics/bleu.py``: ``Bleu._corpus_bleu`` alone, without
  TensorFlow, on whitespace tokens and with ``smooth=True`` as well; with float32 state as
  ``update_state`` keeps it (counts exact, each precision divided in float32), within the
  profile's tolerance. The whole metric, its TensorFlow tokenizer included, runs in
  ``tests/test_profile_keras.py``, which verifies the profile.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import re
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu, sentence_bleu
from harness.bleu.profiles import PROFILES, VERIFICATION
from harness.bleu.tokenizers import get_tokenizer, text_tokenizer

from .depth import examples
from .published import load_definitions, published_archive, published_file, unavailable
from .strategies import WORDS, corpora, large_vocabulary_corpora

EXACT = 1e-9
PROPS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TEXT_PROPS = settings(
    max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Drawn = tuple[list[str], list[list[str]]]

#: Characters the script tokenizers treat specially: ASCII and Unicode punctuation (runs),
#: symbols, decimal digits of several scripts and other numbers (² ½ are not \d), the
#: underscore, combining marks, Unicode spaces (including U+001C, which str.split splits on),
#: letters whose lowercase is special.
SPECIAL = (
    "abcXYZ019_ .,;:!?'\"-()[]{}<>/\\@#$%^&*+=|~`"
    "¡¿«»—–…‘’“”、。「」·•‰†"
    "€£©®°±×÷←→∑√∞♥☺"
    "٣०²½Ⅻ"
    "\u0301\u0308"
    "\t\u00a0\u3000\x1c\u2028"
    "éßİΣςK猫한"
)
special_text = st.text(alphabet=SPECIAL, max_size=30)
any_text = st.one_of(special_text, st.text(max_size=30))


@st.composite
def single_reference(draw: st.DrawFn, extra_words: tuple[str, ...] = ()) -> Drawn:
    """:func:`corpora` with one reference per segment; some segments are punctuation-heavy
    text, some use ``extra_words`` (special tokens)."""
    hyps, refs = draw(corpora(max_refs=1))
    pool = st.sampled_from([*WORDS, *extra_words])
    words = st.lists(pool, max_size=8).map(" ".join)
    noisy = st.one_of(words, special_text) if extra_words else special_text
    for i in range(len(hyps)):
        if draw(st.integers(0, 3)) == 0:
            hyps[i] = draw(noisy)
        if draw(st.integers(0, 3)) == 0:
            refs[i] = [draw(noisy)]
    return hyps, refs


# ================================================================================ codexglue
CODEXGLUE = "lm_eval/tasks/code_x_glue/code-text/bleu.py"


@functools.lru_cache(maxsize=1)
def _codexglue() -> types.ModuleType:
    """lm-eval's vendored CodeXGLUE ``bleu.py``, executed as published (it imports only the
    standard library)."""
    source = published_file("lm-eval", "0.4.13", CODEXGLUE)
    module = types.ModuleType("codexglue_bleu")
    exec(compile(source, CODEXGLUE, "exec"), module.__dict__)
    return module


@functools.lru_cache(maxsize=1)
def _lm_eval_mean() -> Any:
    source = published_file("lm-eval", "0.4.13", "lm_eval/api/metrics.py")
    ns = load_definitions(
        source,
        ["mean"],
        namespace={"register_aggregation": lambda name: lambda fn: fn},
        filename="lm_eval/api/metrics.py",
    )
    return ns["mean"]


def lm_eval_code2text(hyps: list[str], refs: list[str]) -> float:
    """What lm-eval reports for code2text: one smoothed_bleu_4 per document, then its mean."""
    per_doc = [
        _codexglue().smoothed_bleu_4(references=[r], predictions=[h])
        for h, r in zip(hyps, refs, strict=True)
    ]
    return float(_lm_eval_mean()(per_doc))


@PROPS
@given(single_reference())
def test_codexglue_is_lm_eval_code2text(corpus: Drawn) -> None:
    hyps, refs = corpus
    want = lm_eval_code2text(hyps, [r[0] for r in refs])
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="codexglue")
    assert got.score == pytest.approx(want, abs=EXACT)


@PROPS
@given(corpora())
def test_codexglue_several_references_is_the_codexglue_evaluator(corpus: Drawn) -> None:
    """CodeXGLUE's own evaluator reads ``id<TAB>text`` lines; a gold file may repeat an id."""
    hyps, refs = corpus
    cx = _codexglue()
    with tempfile.TemporaryDirectory() as tmp:
        gold = Path(tmp) / "gold.txt"
        lines = [f"{i}\t{r}\n" for i, seg in enumerate(refs) for r in seg]
        gold.write_text("".join(lines), encoding="utf-8")
        gold_map, pred_map = cx.computeMaps([f"{i}\t{h}" for i, h in enumerate(hyps)], str(gold))
    want = cx.bleuFromMaps(gold_map, pred_map)[0]
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="codexglue")
    assert got.score == pytest.approx(want, abs=EXACT)


@TEXT_PROPS
@given(any_text)
def test_codexglue_tokens(line: str) -> None:
    """``normalize(splitPuncts(line.strip().lower()))``: what cook_refs/cook_test count."""
    cx = _codexglue()
    want = cx.normalize(cx.splitPuncts(line.strip().lower()))
    assert text_tokenizer(PROFILES["codexglue"].text_rules)(line) == want


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [("", ""), ("", "a b"), ("a", ""), ("x", "y"), ("a b", "a b"), ("foo_bar(x)", "foo_bar")],
)
def test_codexglue_edges(hyp: str, ref: str) -> None:
    """Empty sides: 0/0 is 1 on every order and BP is exp(min(0, 1 - (r+1)/(c+1))), so an
    empty output scores 100 against an empty gold; no unigram match is ~1e-75, not 0."""
    want = lm_eval_code2text([hyp], [ref])
    got = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="codexglue")
    assert got.score == pytest.approx(want, abs=EXACT)
    if hyp == ref == "":
        assert want == 100.0


# ============================================================================ tensor2tensor
BLEU_HOOK = "tensor2tensor/utils/bleu_hook.py"
_T2T_IMPORTS = "import collections, math, re, sys, unicodedata\nimport numpy as np\n"


def _t2t_source() -> str:
    return published_file("tensor2tensor", "1.15.7", BLEU_HOOK)


@functools.lru_cache(maxsize=1)
def _t2t() -> dict[str, Any]:
    """bleu_hook's definitions with numpy; six is its Python 3 meaning; tf only opens files."""
    tf = types.SimpleNamespace(
        gfile=types.SimpleNamespace(
            Open=lambda name, mode: open(name, mode, encoding="utf-8", newline="")
        )
    )
    return load_definitions(
        _t2t_source(),
        ["_get_ngrams", "compute_bleu", "UnicodeRegex", "uregex", "bleu_tokenize", "bleu_wrapper"],
        imports=_T2T_IMPORTS,
        namespace={
            "six": types.SimpleNamespace(unichr=chr),
            "tf": tf,
            "text_encoder": types.SimpleNamespace(native_to_unicode=lambda s: s),
        },
        filename=BLEU_HOOK,
    )


@functools.lru_cache(maxsize=1)
def _t2t_float64() -> Any:
    """The published ``compute_bleu`` with its final ``np.float32`` cast replaced by
    ``float``: the same arithmetic, before the rounding."""
    ns = load_definitions(
        _t2t_source(),
        ["_get_ngrams", "compute_bleu"],
        imports="import collections, math\n",
        namespace={"np": types.SimpleNamespace(float32=float)},
        filename=BLEU_HOOK,
    )
    return ns["compute_bleu"]


def t2t_tokens(texts: list[str], lowercase: bool = True) -> list[list[str]]:
    tok = _t2t()["bleu_tokenize"]
    return [tok(t.lower() if lowercase else t) for t in texts]


@PROPS
@given(single_reference(), st.sampled_from([1, 2, 3, 4, 5]), st.booleans())
def test_t2t_compute_bleu_before_float32(corpus: Drawn, order: int, lowercase: bool) -> None:
    hyps, refs = corpus
    ref_tokens = t2t_tokens([r[0] for r in refs], lowercase)
    want = 100 * _t2t_float64()(ref_tokens, t2t_tokens(hyps, lowercase), max_order=order)
    got = corpus_bleu(
        hypotheses=hyps,
        references=refs,
        profile="tensor2tensor",
        max_order=order,
        lowercase=lowercase,
    )
    assert got.score == pytest.approx(want, abs=EXACT)


@PROPS
@given(single_reference(), st.booleans())
def test_t2t_bleu_wrapper(corpus: Drawn, case_sensitive: bool) -> None:
    """The real ``bleu_wrapper`` on two files (float32 result: the profile's tolerance)."""
    hyps, refs = corpus
    with tempfile.TemporaryDirectory() as tmp:
        ref_file, hyp_file = Path(tmp) / "ref.txt", Path(tmp) / "hyp.txt"
        ref_file.write_text("\n".join(r[0] for r in refs), encoding="utf-8", newline="")
        hyp_file.write_text("\n".join(hyps), encoding="utf-8", newline="")
        value = _t2t()["bleu_wrapper"](str(ref_file), str(hyp_file), case_sensitive)
    assert isinstance(value, np.float32)
    got = corpus_bleu(
        hypotheses=hyps,
        references=refs,
        profile="tensor2tensor",
        lowercase=not case_sensitive,
    )
    tolerance = VERIFICATION["tensor2tensor"].tolerance
    assert got.score == pytest.approx(100 * float(value), abs=tolerance)
    # the float32 rounding of a normal number is at most 2**-24 of it
    assert abs(got.score - 100 * float(value)) <= 2**-24 * got.score + 1e-12


@TEXT_PROPS
@given(any_text)
def test_t2t_tokens(line: str) -> None:
    assert get_tokenizer("t2t")(line) == _t2t()["bleu_tokenize"](line)


@pytest.mark.parametrize(
    ("hyps", "refs"),
    [
        ([""], [""]),  # no n-gram at all: geometric mean 0 even though BP is 1
        ([""], ["a b"]),
        (["a b"], [""]),  # reference length 0: BP 1, smoothed precisions
        (["x y z"], ["a b c"]),  # no match: 1/(2 t), 1/(4 t), ...
        (["a"], ["a"]),  # orders 2-4 without n-grams: dropped, still divided by 4
        (["2019.", "a.,1 ½."], ["2019 .", "a . ,1 ½ ."]),
    ],
)
def test_t2t_edges(hyps: list[str], refs: list[str]) -> None:
    want = 100 * _t2t_float64()(t2t_tokens(refs), t2t_tokens(hyps))
    got = corpus_bleu(hypotheses=hyps, references=[[r] for r in refs], profile="tensor2tensor")
    assert got.score == pytest.approx(want, abs=EXACT)


# ================================================================================== fairseq
FAIRSEQ = ("fairseq", "0.12.2")
SPECIAL_TOKENS = ("<unk>", "</s>", "<pad>", "<s>", "<UNK>")


def _fairseq_member(member: str) -> str:
    return published_file(*FAIRSEQ, f"fairseq/{member}")


class _Published(dict[str, Any]):
    """Published definitions by name (a short repr for hypothesis' failure reports)."""

    def __repr__(self) -> str:
        return f"<published definitions: {', '.join(sorted(self))}>"


@pytest.fixture(scope="module")
def fairseq() -> Iterator[dict[str, Any]]:
    """fairseq's Dictionary and Scorer over a libbleu compiled from the published sdist."""
    with published_fairseq() as fs:
        yield fs


@contextlib.contextmanager
def published_fairseq() -> Iterator[dict[str, Any]]:
    """The :func:`fairseq` fixture's definitions, for other test modules."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch comes with the dev extras
        unavailable("fairseq's Scorer", f"torch cannot be imported: {exc}")
    published_archive(*FAIRSEQ)
    with tempfile.TemporaryDirectory() as tmp:
        cpp = Path(tmp) / "libbleu.cpp"
        cpp.write_text(_fairseq_member("clib/libbleu/libbleu.cpp"), encoding="utf-8")
        lib = Path(tmp) / "libbleu.so"
        try:
            proc = subprocess.run(
                ["g++", "-std=c++11", "-O3", "-shared", "-fPIC", str(cpp), "-o", str(lib)],
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError as exc:
            unavailable("fairseq's libbleu", f"g++ cannot run: {exc}")
        if proc.returncode != 0:
            unavailable("fairseq's libbleu", f"g++ failed: {proc.stderr[-300:]}")
        tokenizer = load_definitions(
            _fairseq_member("tokenizer.py"),
            ["SPACE_NORMALIZER", "tokenize_line"],
            imports="import re",
        )
        dictionary = load_definitions(
            _fairseq_member("data/dictionary.py"),
            ["Dictionary"],
            imports="import os\nfrom collections import Counter\nimport torch\n",
            namespace={"tokenize_line": tokenizer["tokenize_line"]},
            filename="fairseq/data/dictionary.py",
        )
        scoring = load_definitions(
            _fairseq_member("scoring/bleu.py"),
            ["BleuStat", "BleuConfig", "Scorer"],
            imports="import ctypes, math, sys\nfrom dataclasses import dataclass, field\n",
            namespace={
                "torch": torch,
                "FairseqDataclass": object,
                "register_scorer": lambda *args, **kwargs: lambda cls: cls,
            },
            filename="fairseq/scoring/bleu.py",
        )
        # Scorer.__init__ runs `from fairseq import libbleu` and loads libbleu.__file__
        package = types.ModuleType("fairseq")
        package.libbleu = types.SimpleNamespace(__file__=str(lib))  # type: ignore[attr-defined]
        saved = sys.modules.get("fairseq")
        sys.modules["fairseq"] = package
        try:
            yield _Published(Dictionary=dictionary["Dictionary"], **scoring)
        finally:
            if saved is None:
                sys.modules.pop("fairseq", None)
            else:
                sys.modules["fairseq"] = saved


def fairseq_scorer(
    fs: dict[str, Any], hyps: list[str], refs: list[str], *, one_init: bool = False
) -> Any:
    """fairseq-score's default loop: a fresh Dictionary, encode_line of each line — the
    system line first, then the reference line, which decides the ids libbleu hashes —
    ``Scorer.add(ref, sys)``."""
    d = fs["Dictionary"]()
    scorer = fs["Scorer"](fs["BleuConfig"](pad=d.pad(), eos=d.eos(), unk=d.unk()))
    if one_init:
        scorer.reset(one_init=True)
    for h, r in zip(hyps, refs, strict=True):
        sys_ids = d.encode_line(h)
        ref_ids = d.encode_line(r)
        scorer.add(ref_ids, sys_ids)
    return scorer


@PROPS
@given(single_reference(SPECIAL_TOKENS), st.sampled_from([1, 2, 3, 4]))
def test_fairseq_score(fairseq: dict[str, Any], corpus: Drawn, order: int) -> None:
    hyps, refs = corpus
    scorer = fairseq_scorer(fairseq, hyps, [r[0] for r in refs])
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="fairseq", max_order=order)
    assert got.score == pytest.approx(scorer.score(order=order), abs=EXACT)
    assert got.hyp_len == scorer.stat.predlen and got.ref_len == scorer.stat.reflen
    stat = scorer.stat
    counts = (stat.match1, stat.match2, stat.match3, stat.match4)[:order]
    assert got.counts == counts


def _agrees_with_scorer(scorer: Any, hyps: list[str], refs: list[list[str]], order: int) -> None:
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="fairseq", max_order=order)
    assert got.score == pytest.approx(scorer.score(order=order), abs=EXACT)
    stat = scorer.stat
    assert got.hyp_len == stat.predlen and got.ref_len == stat.reflen
    assert got.counts == (stat.match1, stat.match2, stat.match3, stat.match4)[:order]
    assert got.totals == (stat.count1, stat.count2, stat.count3, stat.count4)[:order]


LARGE_PROPS = settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@LARGE_PROPS
@given(corpus=large_vocabulary_corpora(extra_words=SPECIAL_TOKENS))
def test_fairseq_score_large_vocabulary(fairseq: dict[str, Any], corpus: Drawn, order: int) -> None:
    """Vocabularies of hundreds to thousands of words: libbleu matches n-grams by a hash of
    their ids, and n-grams that collide count as matches (``ngram_identity="fairseq-hash"``)."""
    hyps, refs = corpus
    scorer = fairseq_scorer(fairseq, hyps, [r[0] for r in refs])
    _agrees_with_scorer(scorer, hyps, refs, order)


def test_fairseq_false_match_minimal_case(fairseq: dict[str, Any]) -> None:
    """121 distinct words, then two words whose ids (129, 130 after the dictionary's four
    symbols) hash like those of two earlier words (121, 122): fairseq-score counts the
    hypothesis bigram ``e f`` as a match of the reference bigram ``w121 w122``."""
    words = " ".join(f"w{k}" for k in range(4, 125))
    hyps = [words, "a b c d e f"]
    refs = [[words], ["a b c d w121 w122"]]
    scorer = fairseq_scorer(fairseq, hyps, [r[0] for r in refs])
    _agrees_with_scorer(scorer, hyps, refs, 4)
    exact = corpus_bleu(
        hypotheses=hyps, references=refs, profile="fairseq", ngram_identity="tokens"
    )
    assert exact.score < scorer.score() - 0.1  # the false match moves the score
    assert exact.counts[1] < scorer.stat.match2


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(single_reference(SPECIAL_TOKENS))
def test_fairseq_result_string(fairseq: dict[str, Any], corpus: Drawn) -> None:
    """What generate.py and fairseq-score print: the score to 2 decimals, precisions to 1."""
    hyps, refs = corpus
    printed = fairseq_scorer(fairseq, hyps, [r[0] for r in refs]).result_string()
    got = corpus_bleu(hypotheses=hyps, references=refs, profile="fairseq")
    numbers = [float(x) for x in re.findall(r"-?\d+\.\d+|-?inf|nan", printed)]
    assert printed.startswith("BLEU4 = ")
    assert printed.startswith(f"BLEU4 = {got.score:2.2f}, ")
    assert [f"{p:2.1f}" for p in got.precisions] == [f"{p:2.1f}" for p in numbers[1:5]]


@PROPS
@given(single_reference(SPECIAL_TOKENS))
def test_fairseq_one_init_is_add_one(fairseq: dict[str, Any], corpus: Drawn) -> None:
    """``reset(one_init=True)`` (fairseq-score --sentence-bleu's intent): add-k, k = 1, on
    orders 2-4 of each sentence."""
    hyps, refs = corpus
    for h, r in zip(hyps, refs, strict=True):
        want = fairseq_scorer(fairseq, [h], [r[0]], one_init=True).score()
        got = sentence_bleu(hypothesis=h, references=r, profile="fairseq", smooth="add-k")
        assert got.score == pytest.approx(want, abs=EXACT)


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [
        ("", ""),  # both become the one token </s>: BLEU-1 matches
        ("", "a b"),
        ("a <unk> b", "a <unk> b"),  # the reference's <unk> never matches
        ("<unk>", "<unk>"),
        ("<pad> a b c d </s> </s>", "a b c d"),  # pads and end-of-sentence marks trimmed
        ("</s> a b c d", "a b c d"),  # a leading </s> stays
        ("<s> a b c", "<s> a b c"),
    ],
)
def test_fairseq_edges(fairseq: dict[str, Any], hyp: str, ref: str) -> None:
    for order in (1, 4):
        want = fairseq_scorer(fairseq, [hyp], [ref]).score(order=order)
        got = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="fairseq", max_order=order)
        assert got.score == pytest.approx(want, abs=EXACT)


def _fairseq_score_cli(fs: dict[str, Any], tmp: Path, *flags: str) -> str:
    """``fairseq-score -s hyp -r ref FLAGS`` (fairseq_cli/score.py ``cli_main``), its stdout."""
    hyps = ["the cat sat on the mat", "", "a <unk> b c"]
    refs = ["the cat is on the mat", "x", "a <unk> b c"]
    (tmp / "hyp.txt").write_text("".join(f"{h}\n" for h in hyps), encoding="utf-8")
    (tmp / "ref.txt").write_text("".join(f"{r}\n" for r in refs), encoding="utf-8")
    ns = load_definitions(
        published_file("fairseq", "0.12.2", "fairseq_cli/score.py"),
        ["get_parser", "cli_main"],
        imports="import argparse, os, sys\n",
        namespace={
            "dictionary": types.SimpleNamespace(Dictionary=fs["Dictionary"]),
            "bleu": types.SimpleNamespace(Scorer=fs["Scorer"], BleuConfig=fs["BleuConfig"]),
        },
        filename="fairseq_cli/score.py",
    )
    argv = ["fairseq-score", "-s", str(tmp / "hyp.txt"), "-r", str(tmp / "ref.txt"), *flags]
    out = io.StringIO()
    saved = sys.argv
    sys.argv = argv
    try:
        with contextlib.redirect_stdout(out):
            ns["cli_main"]()
    finally:
        sys.argv = saved
    want = corpus_bleu(
        hypotheses=hyps,
        references=[[r] for r in refs],
        profile="fairseq",
        lowercase="--ignore-case" in flags,
    )
    line = out.getvalue().splitlines()[-1]
    assert line.startswith(f"BLEU4 = {want.score:2.2f}, "), (line, want.score)
    return line


def test_fairseq_score_cli(fairseq: dict[str, Any], tmp_path: Path) -> None:
    """The command itself prints the profile's score (2 decimals); --ignore-case is
    ``lowercase=True`` (``str.lower`` of each line); --sentence-bleu builds
    ``bleu.Scorer(pad, eos, unk)``, but 0.12.2's Scorer takes one config object: the option
    raises TypeError before scoring anything."""
    _fairseq_score_cli(fairseq, tmp_path)
    _fairseq_score_cli(fairseq, tmp_path, "--ignore-case")
    with pytest.raises(TypeError):
        _fairseq_score_cli(fairseq, tmp_path, "--sentence-bleu")


# ================================================================================ keras-hub
@functools.lru_cache(maxsize=1)
def _keras_bleu() -> Any:
    keras = types.SimpleNamespace(metrics=types.SimpleNamespace(Metric=object))
    ns = load_definitions(
        published_file("keras-hub", "0.32.0", "keras_hub/src/metrics/bleu.py"),
        ["Bleu"],
        imports="import collections, math\n",
        namespace={"keras": keras, "keras_hub_export": lambda name: lambda cls: cls},
        filename="keras_hub/src/metrics/bleu.py",
    )
    return object.__new__(ns["Bleu"])  # __init__ asserts TensorFlow; _corpus_bleu needs none


def keras_corpus_bleu(hyps: list[str], refs: list[list[str]], smooth: bool) -> float:
    """``Bleu._corpus_bleu`` as ``update_state`` calls it on a fresh metric: float32 zeros
    for the state, the result stored in a float32 weight."""
    bleu, *_ = _keras_bleu()._corpus_bleu(
        reference_corpus=[[r.split() for r in seg] for seg in refs],
        translation_corpus=[h.split() for h in hyps],
        matches_by_order=np.zeros(4, dtype=np.float32),
        possible_matches_by_order=np.zeros(4, dtype=np.float32),
        translation_length=np.float32(0),
        reference_length=np.float32(0),
        max_order=4,
        smooth=smooth,
    )
    return 100 * float(np.float32(bleu))


@PROPS
@given(corpora(), st.booleans())
def test_keras_hub_arithmetic(corpus: Drawn, smooth: bool) -> None:
    hyps, refs = corpus
    with np.errstate(divide="ignore", invalid="ignore"):
        want = keras_corpus_bleu(hyps, refs, smooth)
    got = corpus_bleu(
        hypotheses=hyps,
        references=refs,
        profile="keras-hub",
        tokenize="whitespace",
        smooth="plus-one" if smooth else "none",
    )
    if got.hyp_len == 0 and got.ref_len == 0:  # 0/0 length ratio: nan, in both
        assert math.isnan(want) and math.isnan(got.score)
        return
    assert got.score == pytest.approx(want, abs=VERIFICATION["keras-hub"].tolerance)
