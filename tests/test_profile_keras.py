"""Differential tests: the ``keras-hub`` profile against keras-hub's real BLEU metric.

keras-hub 0.32.0 ``keras_hub.metrics.Bleu()`` needs TensorFlow, which the harness does not
install: ``make tf-env`` builds it into ``.venv-tf`` (tensorflow-cpu 2.21.0, keras 3.15.1,
keras-hub 0.32.0, tensorflow-text 2.21.1), and one long-lived worker per module
(``tests/keras_worker.py``) runs the metric there, with its default tokenizer and arguments,
on corpora sent as JSON. ``BLEU_HARNESS_TF_PYTHON`` names another interpreter that has them.
Without that environment the tests skip, and fail under ``CI=true``.

What is compared:

* whole corpora (the harness's generated ``corpora`` and ``re2_corpora``, which reach where
  RE2 and TensorFlow tokenize unlike 13a): the profile's score and the metric's agree within
  the profile's tolerance, nan where the metric gives nan;
* the tokenizer alone: the metric's own ``_tokenizer`` (``tf.strings.regex_replace`` +
  ``tf.strings.split``) and ``keras-hub-re2`` give the same tokens on generated strings,
  every Unicode whitespace character and control character included;
* the known differences from 13a, one by one, each checked to be a difference (13a's
  variant of the profile disagrees with the metric) that the profile reproduces.

Tolerance. The metric keeps its state in float32 numpy scalars and, under numpy 2's scalar
promotion, divides in float32 too: each precision ``matches / total`` (exact counts, one
rounding), the length ratio, ``1 / ratio`` and ``1 - 1 / ratio`` are float32, and the result
is stored in a float32 weight. With u = 2**-24 the precisions' geometric mean is off by at
most u relative, the brevity penalty ``exp(1 - x)`` (x = reference / hypothesis length) by
``(2x + |1 - x|) u``, and the final rounding adds u: on 0-100, at most
``100 exp(1 - x) (3x + 1) u`` when x > 1 (largest at x = 1: 400 u = 2.4e-5) and 200 u = 1.2e-5
otherwise. The profile's tolerance is that bound, 2.5e-5 BLEU points: a corpus built near
the worst case (every n-gram matched, 993 hypothesis and 994 reference tokens) is already
more than 1e-5 apart (``test_float32_brevity_penalty_needs_more_than_1e_5``).
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, currently_in_test_context, given, settings, target
from hypothesis import strategies as st

from harness.api import corpus_bleu
from harness.bleu.profiles import PROFILES, VERIFICATION
from harness.bleu.tokenizers import get_tokenizer
from harness.scorers.json_lines import JsonLineProcess

from .depth import examples
from .published import unavailable
from .strategies import RE2_SEPARATORS, corpora, re2_corpora, re2_lines

REPO_ROOT = Path(__file__).resolve().parent.parent
TF_VENV = REPO_ROOT / ".venv-tf"
WORKER = Path(__file__).resolve().parent / "keras_worker.py"
TOLERANCE = VERIFICATION["keras-hub"].tolerance
CORPUS_PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TEXT_PROPS = settings(
    max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Drawn = tuple[list[str], list[list[str]]]

# generated text holds carriage returns and NULs on purpose: the metric tokenizes them as given
pytestmark = pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput")


class KerasWorker:
    """The worker process (:class:`~harness.scorers.json_lines.JsonLineProcess` running
    ``keras_worker.py`` in the TensorFlow environment): one JSON request per line in, one
    answer per line out."""

    def __init__(self, python: str) -> None:
        run = f"import runpy; runpy.run_path({str(WORKER)!r}, run_name='__main__')"
        self.proc = JsonLineProcess(run, os.environ, python=python)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] | None = self.proc.ask(request)
        if answer is None:
            tail = self.proc.stderr()[-600:].strip()
            raise RuntimeError(f"the keras-hub worker died: {tail}")
        return answer

    def close(self) -> None:
        self.proc.close()


def _tf_python() -> str | None:
    """The interpreter of the TensorFlow environment, or None when there is none."""
    named = os.environ.get("BLEU_HARNESS_TF_PYTHON")
    if named:
        return named
    python = TF_VENV / "bin" / "python"
    if python.exists() and (TF_VENV / ".stamp").exists():
        return str(python)
    return None


@pytest.fixture(scope="module")
def keras() -> Iterator[KerasWorker]:
    what = "keras-hub 0.32.0 keras_hub.metrics.Bleu (TensorFlow)"
    python = _tf_python()
    if python is None:
        unavailable(what, f"no TensorFlow environment at {TF_VENV}; build it with `make tf-env`")
        return
    try:
        worker = KerasWorker(python)
    except OSError as exc:
        unavailable(what, f"cannot start {python}: {exc}; build it with `make tf-env`")
        return
    try:
        versions = worker.ask({"op": "versions"})
    except RuntimeError as exc:
        worker.close()
        unavailable(what, f"{exc} (rebuild the environment with `make tf-env`)")
        return
    if versions.get("keras-hub") != "0.32.0":
        worker.close()
        unavailable(what, f"{python} has {versions}, not keras-hub 0.32.0; run `make tf-env`")
        return
    yield worker
    worker.close()


def real_bleu(keras: KerasWorker, hyps: list[str], refs: list[list[str]]) -> float:
    """The metric's score on 0-100 (nan when it is nan)."""
    answer = keras.ask({"op": "bleu", "hyps": hyps, "refs": refs})
    assert "error" not in answer, answer["error"]
    return 100 * float(answer["score"])


def real_tokens(keras: KerasWorker, lines: list[str]) -> list[list[str]]:
    answer = keras.ask({"op": "tokens", "lines": lines})
    assert "error" not in answer, answer["error"]
    tokens: list[list[str]] = answer["tokens"]
    return tokens


def profile_bleu(hyps: list[str], refs: list[list[str]], **overrides: Any) -> float:
    return corpus_bleu(hypotheses=hyps, references=refs, profile="keras-hub", **overrides).score


def assert_agree(got: float, want: float) -> None:
    if math.isnan(want):
        assert math.isnan(got), (got, want)
        return
    assert got == pytest.approx(want, abs=TOLERANCE)
    if currently_in_test_context():  # steer generation towards the largest float32 gaps
        target(abs(got - want), label="|profile - metric| (BLEU points)")


# ------------------------------------------------------------------------------- corpora
@CORPUS_PROPS
@given(corpora())
def test_generated_corpora_score_as_the_metric(keras: KerasWorker, corpus: Drawn) -> None:
    hyps, refs = corpus
    assert_agree(profile_bleu(hyps, refs), real_bleu(keras, hyps, refs))


@CORPUS_PROPS
@given(re2_corpora())
def test_re2_corpora_score_as_the_metric(keras: KerasWorker, corpus: Drawn) -> None:
    """Corpora built where RE2 and TensorFlow tokenize unlike 13a (Unicode spaces, U+001C..
    U+001F, marks next to digits at a line's ends, empty segments)."""
    hyps, refs = corpus
    assert_agree(profile_bleu(hyps, refs), real_bleu(keras, hyps, refs))


# ----------------------------------------------------------------------------- tokenizer
#: Every character str.isspace() knows, every other C0/C1 control character, and the
#: characters the rules look at.
_SPACES = "".join(c for c in map(chr, range(0x3001)) if c.isspace())
_CONTROLS = "".join(c for c in map(chr, range(0xA0)) if unicodedata.category(c) == "Cc")
_ALPHABET = _SPACES + _CONTROLS + "0123456789.,-'&;<>\"!?()[]{}/@`~_abzAZé猫" + "\u200b\ufeff"
_texts = st.one_of(
    st.text(alphabet=_ALPHABET, max_size=30),
    st.text(max_size=30),
    re2_lines(),
    st.sampled_from(["&amp;lt;", "&quot;a&quot;", "<skipped>x", "a-\nb", "5-\n5", "1.2.3"]),
)


@TEXT_PROPS
@given(st.lists(_texts, min_size=1, max_size=12))
def test_tokenizer_equals_the_metrics(keras: KerasWorker, lines: list[str]) -> None:
    tokenize = get_tokenizer("keras-hub-re2")
    assert [tokenize(line) for line in lines] == real_tokens(keras, lines)


def test_tokenizer_splits_on_the_metrics_whitespace_only(keras: KerasWorker) -> None:
    """Each whitespace or control character between two words: separated or kept as the
    metric does."""
    chars = sorted(set(_SPACES + _CONTROLS + "".join(RE2_SEPARATORS)))
    lines = [f"a{c}b" for c in chars]
    tokenize = get_tokenizer("keras-hub-re2")
    assert [tokenize(line) for line in lines] == real_tokens(keras, lines)


# ------------------------------------------------------------------- targeted differences
#: (what, hypotheses, references): each a difference between the metric and 13a.
DIFFERENCES = [
    ("0/0 length ratio", [""], [[""]]),
    (
        "line-initial .5 and ,5 after a space",
        [".5 percent ,5 units", "5. end"],
        [[". 5 percent , 5 units"], ["5 . end"]],
    ),
    ("line-final 5.", ["it is 5."], [["it is 5 ."]]),
    ("no-break space", ["a\u00a0b c d"], [["a b c d"]]),
    ("ideographic and thin spaces", ["a\u3000b\u2009c d e"], [["a b c d e"]]),
    ("U+001C..U+001F", ["a\x1cb\x1dc\x1ed\x1fe f g"], [["a b c d e f g"]]),
]


@pytest.mark.parametrize(
    ("hyps", "refs"), [c[1:] for c in DIFFERENCES], ids=[c[0] for c in DIFFERENCES]
)
def test_known_difference_from_13a_is_reproduced(
    keras: KerasWorker, hyps: list[str], refs: list[list[str]]
) -> None:
    want = real_bleu(keras, hyps, refs)
    assert_agree(profile_bleu(hyps, refs), want)
    as_13a = profile_bleu(hyps, refs, tokenize="13a", on_zero_length="zero")
    assert not as_13a == pytest.approx(want, abs=TOLERANCE, nan_ok=True)


def test_float32_brevity_penalty_needs_more_than_1e_5(keras: KerasWorker) -> None:
    """Every n-gram matches and the reference is one token longer (993 vs 994 tokens): the
    float32 length ratio moves the metric's brevity penalty by more than 1e-5 points, within
    the profile's tolerance."""
    hyp = " ".join(f"w{i}" for i in range(993))
    hyps, refs = [hyp], [[hyp + " extra"]]
    want = real_bleu(keras, hyps, refs)
    got = profile_bleu(hyps, refs)
    assert_agree(got, want)
    assert abs(got - want) > 1e-5  # why the tolerance is not 1e-5


def test_one_empty_side_is_not_nan(keras: KerasWorker) -> None:
    """Only 0/0 is nan: an empty hypothesis side against references (ratio 0, BP 0) and
    hypotheses against empty shortest references (ratio inf, BP 1) are numbers."""
    for hyps, refs in (([""], [["a b"]]), (["a b c d"], [["", "a b c d"]])):
        want = real_bleu(keras, hyps, refs)
        assert not math.isnan(want)
        assert_agree(profile_bleu(hyps, refs), want)


def test_profile_is_verified_against_this_module() -> None:
    check = VERIFICATION["keras-hub"]
    assert check.verified and check.evidence == "tests/test_profile_keras.py"
    assert PROFILES["keras-hub"].tokenize == "keras-hub-re2"
    assert PROFILES["keras-hub"].on_zero_length == "nan"
