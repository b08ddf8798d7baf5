"""Differential tests: the code-summarization profiles against the toolbox of Shi et al.

``codesum-dcom``, ``-fc``, ``-dc``, ``-ncs`` and ``-rc`` each claim to print what the replication
package of "On the Evaluation of Neural Code Summarization" (ICSE 2022) prints as BLEU-DCOM, -FC,
-DC, -NCS and -RC: its ``metrics/evaluate.py`` ``bleus(refs, preds)``, imported from the shared
reference implementations (``../shared/reference-impls/codesum-evaluation``) and run with the
nltk this project pins. Its inputs are what its ``read_to_list`` makes of a file: every line
split on whitespace. The scores are compared as both sides print them (×100, rounded to 4
decimals) within 1e-9 points, on generated code comments (identifiers, snake and camel case,
brackets, operators, entities, CJK, empty lines, repeated n-grams, several and ragged
references) and on the toolbox's own example (``metrics/test``), whose printed numbers the
shared README quotes.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.api import corpus_bleu
from harness.bleu.codesum_profiles import CODESUM_PROFILES
from harness.bleu.profiles import FIELDS, PROFILES, VERIFICATION
from harness.diagnose.candidates import reprinted
from harness.diagnose.identify import identify
from harness.session import Session

from . import oracles
from .conftest import _require
from .depth import examples
from .strategies import corpora

#: Our profile → the key of the toolbox's ``bleus`` result.
VARIANTS = {
    "codesum-dcom": "BLEU-DCOM",
    "codesum-fc": "BLEU-FC",
    "codesum-dc": "BLEU-DC",
    "codesum-cn": "BLEU-CN",
    "codesum-ncs": "BLEU-NCS",
    "codesum-rc": "BLEU-RC",
}
EXACT = 1e-9  # BLEU points

# the shared strategies draw a byte-order mark inside lines on purpose; the toolbox scores it as
# a character like any other, and so does the engine (with a warning). nltk warns of every zero
# n-gram count, which the toolbox silences for itself at import
pytestmark = [
    pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput"),
    pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score"),
]

Bleus = Callable[[list[list[list[str]]], list[list[str]]], dict[str, Any]]


def _metrics_dir() -> Path:
    return oracles.reference_impls_dir() / "codesum-evaluation" / "metrics"


def _missing_reason() -> str | None:
    folder = _metrics_dir()
    if not (folder / "evaluate.py").is_file():
        return (
            f"evaluate.py not found in {folder} (set {oracles.ENV_VAR}=/path/to/reference-impls "
            "or put shared/ beside the repository)"
        )
    if importlib.util.find_spec("prettytable") is None:
        return "prettytable, which the toolbox's evaluate.py imports, is not installed"
    if "bleu" in sys.modules and not str(
        getattr(sys.modules["bleu"], "__path__", [""])[0]
    ).startswith(str(folder)):
        return "a module named bleu is already imported: the toolbox's bleu/ would not load"
    return None


@pytest.fixture(scope="module")
def bleus() -> Bleus:
    """The toolbox's ``bleus(refs, preds)``, imported from its folder (it imports its ``bleu/``
    package by that name, so the folder is put on ``sys.path`` while it loads)."""
    _require(_missing_reason(), "the code-summarization toolbox")
    folder = _metrics_dir()
    spec = importlib.util.spec_from_file_location("codesum_evaluate", folder / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(folder))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module.bleus  # type: ignore[no-any-return]


def _toolbox(bleus: Bleus, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> dict[str, float]:
    """The toolbox's scores of the lines, tokenized as its ``read_to_list`` does."""
    out = bleus([[r.split() for r in seg] for seg in refs], [h.split() for h in hyps])
    return {key: float(value) for key, value in out.items()}


def _only_tags(line: str) -> bool:
    """A line with words, all of them made of ``<skipped>`` tags: CodeNN's normalize leaves no
    token of it, which the toolbox still scores as an example and codesum-cn leaves out (the
    profile's declared difference, pinned by :func:`test_cn_leaves_out_a_line_of_tags_only`)."""
    return bool(line.split()) and not line.replace("<skipped>", "").split()


def _assert_agree(bleus: Bleus, hyps: list[str], refs: list[list[str]]) -> None:
    theirs = _toolbox(bleus, hyps, refs)
    for profile, key in VARIANTS.items():
        if profile == "codesum-cn" and any(_only_tags(t) for t in [*hyps, *(r[0] for r in refs)]):
            continue
        ours = corpus_bleu(hypotheses=hyps, references=refs, profile=profile).score
        assert abs(ours - theirs[key]) <= EXACT, (profile, ours, theirs[key], hyps, refs)


#: Words of code comments: identifiers in snake and camel case, calls, brackets, operators,
#: dotted names, numbers, an entity, a non-Latin word; short so that n-grams repeat.
CODE_WORDS = [
    "returns",
    "the",
    "a",
    "list",
    "of",
    "get_value",
    "getValue",
    "self.items",
    "(x)",
    "foo(bar)",
    "[i]",
    "{}",
    "<T>",
    "->",
    "==",
    "!=",
    "+=",
    "0",
    "1.5",
    "i++",
    "`code`",
    "@param",
    "&lt;",
    "null",
    "None",
    "值",
    "the.",
    ",",
    # CodeNN's normalize removes the tag, unescapes entities before it lowercases, and splits
    # periods, commas and hyphens by their neighbours
    "<skipped>",
    "get<skipped>Value",
    "&LT;",
    "&amp;",
    "1,000",
    "3-4",
    "x.5",
]


@st.composite
def code_comments(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """Predicted comments and 1–3 (ragged) reference comments per example, often sharing
    words with the prediction, sometimes empty."""
    word = st.sampled_from(CODE_WORDS)
    line = st.lists(word, max_size=10).map(" ".join)
    n = draw(st.integers(1, 6))
    hyps = [draw(line) for _ in range(n)]
    refs = []
    for h in hyps:
        seg = []
        for _ in range(draw(st.integers(1, 3))):
            if h and draw(st.booleans()):
                words = h.split()
                cut = draw(st.integers(0, len(words)))
                seg.append(" ".join(words[:cut] + draw(st.lists(word, max_size=3)) + words[cut:]))
            else:
                seg.append(draw(line))
        refs.append(seg)
    return hyps, refs


PROPS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPS
@given(code_comments())
def test_code_comments_agree(bleus: Bleus, corpus: tuple[list[str], list[list[str]]]) -> None:
    _assert_agree(bleus, *corpus)


@PROPS
@given(corpora(max_refs=3))
def test_adversarial_text_agrees(bleus: Bleus, corpus: tuple[list[str], list[list[str]]]) -> None:
    # the shared strategies: punctuation glued to words, CJK and Hangul, entities, a BOM,
    # empty lines and references, ragged references
    _assert_agree(bleus, *corpus)


def test_the_toolbox_example_agrees_and_prints_what_its_readme_quotes(bleus: Bleus) -> None:
    folder = _metrics_dir() / "test"
    hyps = (folder / "test.pred").read_text(encoding="utf-8").split("\n")[:-1]
    gold = (folder / "test.gold").read_text(encoding="utf-8").split("\n")[:-1]
    refs = [[g] for g in gold]
    _assert_agree(bleus, hyps, refs)
    # the six numbers the toolbox's README prints for this example, quoted in the shared
    # README: the oracle run here is the one those numbers came from
    readme = (oracles.reference_impls_dir() / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"printed ([0-9.]+(?: / [0-9.]+){5})", readme)
    assert quoted is not None, "the shared README no longer quotes the example's numbers"
    printed = dict(
        zip(
            ["BLEU-DCOM", "BLEU-FC", "BLEU-DC", "BLEU-CN", "BLEU-NCS", "BLEU-RC"],
            quoted.group(1).split(" / "),
            strict=True,
        )
    )
    theirs = _toolbox(bleus, hyps, refs)
    for profile, key in VARIANTS.items():
        ours = corpus_bleu(hypotheses=hyps, references=refs, profile=profile).score
        assert f"{theirs[key]:g}" == printed[key]
        assert f"{ours:g}" == printed[key], profile


def test_cn_leaves_out_a_line_of_tags_only(bleus: Bleus) -> None:
    # the declared difference: the toolbox keeps the example and, for a prediction of nothing
    # but tags, prints 0 for the whole corpus (its bare except); the profile leaves it out
    hyps = ["returns the list of items", "<skipped>"]
    refs = [["returns the list of items"], ["gets a value"]]
    assert _toolbox(bleus, hyps, refs)["BLEU-CN"] == 0.0
    assert corpus_bleu(hypotheses=hyps, references=refs, profile="codesum-cn").score == 100.0
    assert "Not reproduced" in next(p.smoothing for p in CODESUM_PROFILES if p.name == "codesum-cn")


def test_first_reference_only_where_the_toolbox_reads_one() -> None:
    # BLEU-RC reads refs[i][0]; a second reference equal to the hypothesis changes nothing
    hyps = ["returns the list of items"]
    refs = [["returns a value of the list", "returns the list of items"]]
    rc = corpus_bleu(hypotheses=hyps, references=refs, profile="codesum-rc").score
    alone = corpus_bleu(hypotheses=hyps, references=[refs[0][:1]], profile="codesum-rc").score
    both = corpus_bleu(hypotheses=hyps, references=refs, profile="codesum-fc").score
    assert rc == alone and both == 100.0


def test_profiles_are_declared_verified_in_their_field() -> None:
    for profile in VARIANTS:
        assert PROFILES[profile].round_digits == 4
        assert FIELDS[profile] == "code summarization"
        assert VERIFICATION[profile].verified
        assert VERIFICATION[profile].evidence == "tests/test_profile_codesum.py"


@pytest.mark.parametrize("profile", ["codesum-dc", "codesum-cn", "codesum-ncs", "codesum-rc"])
def test_identify_names_the_variant_from_its_printed_number(bleus: Bleus, profile: str) -> None:
    # the number as the toolbox prints it on its own example: the variant is named, not a
    # reading of another profile with changes (the printed decimals are read as rounding)
    folder = _metrics_dir() / "test"
    hyps = (folder / "test.pred").read_text(encoding="utf-8").split("\n")[:-1]
    refs = [[g] for g in (folder / "test.gold").read_text(encoding="utf-8").split("\n")[:-1]]
    printed = f"{_toolbox(bleus, hyps, refs)[VARIANTS[profile]]:g}"
    found = identify(printed, (hyps, refs), session=Session())
    named = [c.reading for c in found if c.distance == 0 and not c.changed]
    assert profile in named, (printed, [c.reading for c in found[:5]])


def test_a_number_printed_at_another_precision_than_its_tool_prints_is_reprinted() -> None:
    # the toolbox prints 4 decimals on 0-100 (6 on 0-1); a profile without a fixed precision
    # is never reprinted
    assert not reprinted("codesum-ncs", "0-100", Decimal("28.4195"))
    assert not reprinted("codesum-ncs", "0-1", Decimal("0.284195"))
    assert reprinted("codesum-ncs", "0-100", Decimal("28"))
    assert reprinted("codesum-ncs", "0-100", Decimal("28.42"))
    assert not reprinted("sacrebleu", "0-100", Decimal("28"))
