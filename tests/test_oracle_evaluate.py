"""Differential tests against the real Hub ``bleu`` module (what ``evaluate.load("bleu")`` runs).

The oracle is ``evaluate.load(<module folder>)`` on the unmodified Hub files
(``../shared/reference-impls/hf-evaluate/bleu``, fixture ``evaluate_module``), called as
``.compute(predictions=..., references=...)``. Two things must reproduce it on generated
corpora, with ``smooth`` on and off and ``max_order`` 1–4:

* the in-house ``evaluate`` profile (``harness.corpus_bleu(profile="evaluate")``; the module's
  ``smooth=True`` is ``smooth="plus-one"``), to 1e-9 BLEU points — and where the module raises
  ``ZeroDivisionError`` (zero total hypothesis or shortest-reference length, evaluate#601) the
  profile raises ``LibraryWouldRaise`` naming it, and only there;
* the ``evaluate`` adapter (``harness.scorers``), which must hand the same layout and settings
  to the same module: the same numbers, the same exception.

The text is built to break profiles (LIBRARY-BEHAVIOURS.md): non-ASCII capitals, a trailing
``"\\n"`` or ``"-\\n"`` kept in the string (the module tokenizes the raw string; sacrebleu
right-strips first), U+001C–U+001F inside a line (``str.split`` whitespace, not Perl's), digits,
entities in both cases, ``<skipped>``, empty hypotheses, every reference empty, ragged
references.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness import PROFILES, Corpus
from harness.api import corpus_bleu
from harness.bleu.result import BleuResult
from harness.errors import LibraryWouldRaise
from harness.scorers import get_adapter

from .depth import examples

# generated text holds carriage returns on purpose: the Hub module scores them
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")

EXACT = 1e-9  # BLEU points (0–100)

ORACLE = settings(
    max_examples=examples(300),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

HypsRefs = tuple[list[str], list[list[str]]]


# ====================================================================== the oracle
class _Loaded:
    """The loaded module with a short ``repr`` (hypothesis prints its arguments)."""

    def __init__(self, module: Any, folder: Path) -> None:
        self.compute = module.compute
        self.folder = folder

    def __repr__(self) -> str:
        return f"evaluate.load({str(self.folder)!r})"


@pytest.fixture(scope="session")
def hub_bleu(evaluate_module: Path) -> _Loaded:
    """The Hub module, loaded once per session (offline, private cache: see conftest)."""
    evaluate = pytest.importorskip("evaluate")
    return _Loaded(evaluate.load(str(evaluate_module), keep_in_memory=True), evaluate_module)


@pytest.fixture(scope="session")
def adapter(evaluate_module: Path) -> Any:
    a = get_adapter("evaluate", module=evaluate_module)
    availability = a.available()
    assert availability.ok, availability.reason
    assert a.module_source == f"path:{(evaluate_module / 'bleu.py').resolve()}"
    return a


def _module(hub_bleu: Any, hyps: list[str], refs: list[list[str]], order: int, smooth: bool):
    """The module's result dict, or the exception it raised."""
    try:
        return hub_bleu.compute(predictions=hyps, references=refs, max_order=order, smooth=smooth)
    except Exception as exc:  # the exception is the oracle's answer
        return exc


def _check(res: BleuResult, lib: dict[str, Any], what: str) -> None:
    assert res.score == pytest.approx(100 * lib["bleu"], abs=EXACT), what
    assert res.precisions == pytest.approx([100 * p for p in lib["precisions"]], abs=EXACT), what
    assert res.bp == pytest.approx(lib["brevity_penalty"], abs=1e-12), what
    assert (res.hyp_len, res.ref_len) == (
        lib["translation_length"],
        lib["reference_length"],
    ), what


# ====================================================================== generated text
#: Words that stress case (non-ASCII capitals), 13a (digits, punctuation, entities in both
#: cases, ``<skipped>``) and CJK; "co" and "co-" differ only by the hyphen "-\n" removes.
WORDS = [
    "the", "cat", "mat", "a", "x", "y", "co", "co-", "op", "É", "é", "Ü", "ü", "Москва",
    "москва", "ΣΟΦΙΑ", "σοφια", "3", "3.5", "1,000", "2019.", "-", "&quot;", "&QUOT;",
    "&amp;", "&AMP;", "&lt;", "&gt;", "<skipped>", "don't", "e-mail", "(the", "cat)", "猫",
]  # fmt: skip
#: Between words: mostly a space; U+001C–U+001F, a tab, a newline and a hyphenated line break
#: inside the line.
SEPARATORS = [" "] * 6 + ["  ", "\t", "\x1c", "\x1d", "\x1e", "\x1f", "\n", "-\n"]
#: How a raw line ends: nothing, or trailing whitespace the module keeps in the string.
ENDINGS = [""] * 4 + ["\n", "-\n", " ", "\x1f", "\r\n", " \n", "<skipped>\n", "-<skipped>\n"]

_words = st.lists(st.sampled_from(WORDS), max_size=8)


@st.composite
def render(draw: st.DrawFn, words: list[str]) -> str:
    """``words`` as one raw line: drawn separators and a drawn ending."""
    out = ""
    for i, word in enumerate(words):
        out += (draw(st.sampled_from(SEPARATORS)) if i else "") + word
    return out + draw(st.sampled_from(ENDINGS))


@st.composite
def oracle_corpora(draw: st.DrawFn) -> HypsRefs:
    """1–5 segments, 1–4 ragged references each (often derived from the hypothesis so that long
    n-grams match), sometimes every reference empty."""
    n = draw(st.integers(1, 5))
    every_ref_empty = draw(st.sampled_from([False] * 7 + [True]))
    hyps: list[str] = []
    refs: list[list[str]] = []
    for _ in range(n):
        words = draw(_words)
        hyps.append(draw(render(words)))
        seg: list[str] = []
        for _ in range(draw(st.integers(1, 4))):
            if every_ref_empty:
                seg.append(draw(st.sampled_from(["", " ", "\n", "<skipped>"])))
            elif words and draw(st.booleans()):
                i = draw(st.integers(0, len(words)))
                extra = draw(st.lists(st.sampled_from(WORDS), max_size=2))
                seg.append(draw(render(words[:i] + extra + words[i:])))
            else:
                seg.append(draw(render(draw(_words))))
        refs.append(seg)
    return hyps, refs


@example(corpus=([""], [["a b"]]), order=4, smooth=False)  # zero hypothesis length
@example(corpus=(["a b"], [["", "a b"]]), order=2, smooth=True)  # zero shortest reference
@ORACLE
@given(corpus=oracle_corpora(), order=st.integers(1, 4), smooth=st.booleans())
def test_profile_matches_the_hub_module(
    hub_bleu: Any, corpus: HypsRefs, order: int, smooth: bool
) -> None:
    hyps, refs = corpus
    lib = _module(hub_bleu, hyps, refs, order, smooth)
    overrides = {"max_order": order, "smooth": "plus-one" if smooth else "none"}
    what = f"{hyps!r} vs {refs!r}, {overrides}"
    if isinstance(lib, BaseException):
        assert isinstance(lib, ZeroDivisionError), f"module raised {lib!r} on {what}"
        with pytest.raises(LibraryWouldRaise) as info:
            corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", **overrides)
        assert (info.value.library, info.value.library_exception) == (
            "evaluate",
            "ZeroDivisionError",
        ), what
        return
    try:
        res = corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", **overrides)
    except LibraryWouldRaise as exc:
        pytest.fail(f"profile raises ({exc}) where the module returns {lib['bleu']!r}: {what}")
    _check(res, lib, what)


@example(corpus=(["x y z w co-\n"], [["x y z w co"]]), order=4, smooth=False)
@example(corpus=([""], [[""]]), order=4, smooth=True)
@ORACLE
@given(corpus=oracle_corpora(), order=st.integers(1, 4), smooth=st.booleans())
def test_adapter_matches_the_hub_module(
    hub_bleu: Any, adapter: Any, corpus: HypsRefs, order: int, smooth: bool
) -> None:
    """The adapter passes the per-segment layout and ``max_order``/``smooth`` through
    unchanged: same numbers, same exception."""
    hyps, refs = corpus
    lib = _module(hub_bleu, hyps, refs, order, smooth)
    config = PROFILES["evaluate"].replace(max_order=order, smooth="plus-one" if smooth else "none")
    one = Corpus(hypotheses=hyps, references=refs)
    what = f"{hyps!r} vs {refs!r}, max_order={order}, smooth={smooth}"
    if isinstance(lib, BaseException):
        with pytest.raises(type(lib)):
            adapter.corpus(one, config)
        return
    res = adapter.corpus(one, config)
    _check(res, lib, what)
    assert res.extra["module_source"] == adapter.module_source


# ====================================================================== pinned inputs
@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize(
    ("hyps", "refs"),
    [
        pytest.param(["x y z w co-\n"], [["x y z w co"]], id="trailing-hyphen-newline"),
        pytest.param(["x y z w co\n"], [["x y z w co"]], id="trailing-newline"),
        pytest.param(["a co-\nop b"], [["a coop b"]], id="hyphen-newline-inside"),
        pytest.param(["a\x1cb\x1fc"], [["a b c"]], id="information-separators"),
        pytest.param(["ΣΟΦΙΑ Москва É"], [["σοφια москва é", "ΣΟΦΙΑ Москва"]], id="capitals"),
        pytest.param(["&QUOT;x&quot; <skipped>"], [['&QUOT;x"']], id="entities-skipped"),
        pytest.param(["a b", "c"], [["a b", "a", "a b c"], ["c"]], id="ragged"),
        pytest.param(["", "a b c"], [["a"], ["a b c"]], id="one-empty-hypothesis"),
        pytest.param([""], [["a b"]], id="empty-hypothesis"),
        pytest.param(["a b"], [["", "\n"]], id="every-reference-empty"),
    ],
)
def test_pinned_inputs(
    hub_bleu: Any, adapter: Any, hyps: list[str], refs: list[list[str]], smooth: bool
) -> None:
    """Inputs named in LIBRARY-BEHAVIOURS.md, each through the module, the profile and the
    adapter."""
    lib = _module(hub_bleu, hyps, refs, 4, smooth)
    overrides = {"smooth": "plus-one" if smooth else "none"}
    config = PROFILES["evaluate"].replace(**overrides)
    if isinstance(lib, BaseException):
        assert isinstance(lib, ZeroDivisionError)
        with pytest.raises(LibraryWouldRaise, match="ZeroDivisionError"):
            corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", **overrides)
        with pytest.raises(ZeroDivisionError):
            adapter.corpus(Corpus(hypotheses=hyps, references=refs), config)
        return
    _check(adapter.corpus(Corpus(hypotheses=hyps, references=refs), config), lib, "adapter")
    res = corpus_bleu(hypotheses=hyps, references=refs, profile="evaluate", **overrides)
    _check(res, lib, f"profile: module {100 * lib['bleu']:.6f}, profile {res.score:.6f}")


# ====================================================================== through the CLI
def test_demo_and_compare_run_the_real_module(
    evaluate_module: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``BLEU_HARNESS_EVALUATE_MODULE`` set (as make and CI do), ``demo`` shows evaluate's
    numbers beside its profile and names the module; ``compare`` rows carry its source."""
    import json

    from harness.cli import main

    monkeypatch.setenv("BLEU_HARNESS_EVALUATE_MODULE", str(evaluate_module))
    monkeypatch.delenv("BLEU_HARNESS_DATA", raising=False)  # fixtures only: seconds
    source = f"path:{(evaluate_module / 'bleu.py').resolve()}"
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert f"note: evaluate: module {source}" in out
    assert "note: evaluate: unavailable" not in out
    # the fixtures table: every library run on the tutorial equals its profile, evaluate among them
    row = next(line for line in out.splitlines() if line.startswith("tutorial_cat_on_the_mat"))
    equal, run = row.split()[-1].split("/")
    assert equal == run and int(run) >= 1, row
    assert "real-library results equal their in-house profiles." in out

    args = ["compare", "--fixture", "tutorial_cat_on_the_mat", "--fixture", "edge_empty_reference"]
    assert main([*args, "--impl", "adapter:evaluate", "--no-cache", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["status"], r["module_source"]) for r in rows} == {
        ("ok", source),
        ("raises", None),
    }
