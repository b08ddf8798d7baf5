"""The text and reference factors found by running the real scripts and the Hub module (issue 9).

Each rule is pinned twice: here, on the engine (tokens, fast path == per-segment reference,
signatures, adapters refusing what their library cannot do), and against the real
implementations in ``tests/test_oracle_moses.py`` / ``tests/test_oracle_evaluate.py``, which
fail if a profile loses the rule.

* ``strip``: sacrebleu right-strips a segment before tokenizing; the Hub evaluate module,
  bleuscore, torchmetrics' SacreBLEUScore and the Perl scripts tokenize the raw string, where a
  trailing ``-\\n`` is 13a's end-of-line hyphenation.
* ``lowercase_rule``: ``tr/[A-Z]/[a-z]/`` (mteval-v13a) and ``lc`` on bytes (multi-bleu.perl)
  are ASCII only; multi-bleu-detok's ``lc`` is Perl's, after tokenizing, with no final sigma.
* ``whitespace``: Perl's ``\\s`` does not match U+001C..U+001F; ``str.split`` does.
* ``missing_refs``: line-aligned reference files can hold a missing reference only as an empty
  line, which then takes part in the closest-length choice.
* ``on_zero_length="mteval"``: the system score dies on a zero total length; segment scores
  never do.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harness
from harness import Corpus
from harness.api import resolve_config
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES, VERIFICATION, verification
from harness.bleu.tokenizers import TextRules, text_tokenizer, tokenize
from harness.errors import ConfigError, LibraryWouldRaise
from harness.scorers import get_adapter

from .depth import examples

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def toks(line: str, **rules: object) -> list[str]:
    return text_tokenizer(TextRules(**rules))(line)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- tokens
def test_strip_none_keeps_the_end_of_line_hyphenation() -> None:
    line = "x y z w co-\n"
    assert toks(line) == ["x", "y", "z", "w", "co-"]  # sacrebleu: rstrip first
    assert toks(line, strip="none") == ["x", "y", "z", "w", "co"]  # raw: '-\n' joins


def test_ascii_lowercase_leaves_non_ascii_capitals() -> None:
    line = "Über ÉCOLE Москва ΣΟΦΙΑΣ ABC"
    assert toks(line, lowercase=True, lowercase_rule="ascii") == [
        "Über",
        "École",  # only C, O, L, E move
        "Москва",
        "ΣΟΦΙΑΣ",
        "abc",
    ]
    assert toks(line, lowercase=True) == line.lower().split()


def test_perl_lowercase_has_no_final_sigma_and_acts_after_tokenizing() -> None:
    assert toks("ΣΟΦΙΑΣ", lowercase=True) == ["σοφιας"]  # Python: word-final ς
    assert toks("ΣΟΦΙΑΣ", lowercase=True, lowercase_rule="perl") == ["σοφιασ"]
    # 13a unescapes '&quot;' only in lower case: lowercasing after tokenizing never sees one
    assert toks("&QUOT;x", lowercase=True) == ['"', "x"]
    assert toks("&QUOT;x", lowercase=True, lowercase_rule="perl") == ["&", "quot", ";", "x"]
    assert toks("&QUOT;x", lowercase=True, lowercase_rule="ascii") == ["&", "quot", ";", "x"]


def test_perl_whitespace_keeps_information_separators_inside_tokens() -> None:
    line = "a\x1cb c\x1fd e\u3000f"
    assert toks(line) == ["a", "b", "c", "d", "e", "f"]
    assert toks(line, whitespace="perl", strip="none") == ["a\x1cb", "c\x1fd", "e", "f"]
    assert toks(line, tokenize="whitespace", whitespace="perl") == ["a\x1cb", "c\x1fd", "e", "f"]


def test_perl_whitespace_is_refused_where_it_means_nothing() -> None:
    with pytest.raises(ConfigError, match="whitespace='perl'"):
        BleuConfig(tokenize="intl", whitespace="perl")
    with pytest.raises(ConfigError, match="lowercase_rule"):
        BleuConfig(lowercase_rule="turkish")
    with pytest.raises(ConfigError, match="strip"):
        BleuConfig(strip="both")
    with pytest.raises(ConfigError, match="missing_refs"):
        BleuConfig(missing_refs="drop")


def test_default_rules_are_the_tokenize_function() -> None:
    for line in ["Hello, World! ", "in 2019. ", "&quot;a&quot;-\n", "ΣΟΦΙΑΣ\x1cx"]:
        for name in ("13a", "intl", "zh", "char", "none", "whitespace"):
            for lc in (False, True):
                assert toks(line, tokenize=name, lowercase=lc) == tokenize(line, name, lc)


# ---------------------------------------------------------------------------- fast path
_PIECES = [
    "the",
    "The",
    "CAT",
    "Über",
    "über",
    "ΣΟΦΙΑΣ",
    "σοφιας",
    "Москва",
    "москва",
    "&QUOT;",
    "&quot;",
    "&amp;",
    "co-",
    "3.5",
    "2019.",
    "a\x1cb",
    "x\x1f",
    "\u3000",
    "-\n",
    "\n",
    " ",
    ".",
    ",",
    "e-mail",
]
_line = st.lists(st.sampled_from(_PIECES), max_size=8).map(" ".join) | st.lists(
    st.sampled_from(_PIECES), max_size=8
).map("".join)


@st.composite
def _ragged(draw: st.DrawFn) -> Corpus:
    n = draw(st.integers(2, 5))
    hyps = draw(st.lists(_line, min_size=n, max_size=n))
    refs = [draw(st.lists(_line, min_size=1, max_size=3)) for _ in range(n)]
    return Corpus(hypotheses=hyps, references=refs)


_rules = st.builds(
    dict,
    tokenize=st.sampled_from(["13a", "none", "whitespace"]),
    lowercase=st.booleans(),
    lowercase_rule=st.sampled_from(["unicode", "ascii", "perl"]),
    strip=st.sampled_from(["rstrip", "none"]),
    whitespace=st.sampled_from(["unicode", "perl"]),
)


@SETTINGS
@given(corpus=_ragged(), rules=_rules)
def test_fast_statistics_equal_the_reference_under_every_text_rule(
    corpus: Corpus, rules: dict[str, object]
) -> None:
    config = BleuConfig(**rules)  # type: ignore[arg-type]
    fast = engine.compute_statistics(corpus, config)
    slow = engine._statistics_reference(corpus, config)
    assert fast.hyp_len.tolist() == slow.hyp_len.tolist()
    assert fast.ref_lens == slow.ref_lens
    assert fast.matches.tolist() == slow.matches.tolist()
    assert fast.tokenization == slow.tokenization == config.text_rules.key()


# ---------------------------------------------------------------------------- references
def test_missing_references_count_as_empty_ones_in_the_length_choice() -> None:
    hyps = ["a b", "a"]
    refs = [["a b", "a b c d e"], ["a b c"]]
    corpus = Corpus(hypotheses=hyps, references=refs)
    stats = engine.compute_statistics(corpus, BleuConfig())
    assert stats.ref_length("closest").tolist() == [2, 3]
    # segment 2 gets an empty second reference: |1 - 0| = 1 ties |1 - 3|? no, 1 < 2: length 0
    assert stats.ref_length("closest", missing="empty").tolist() == [2, 0]
    padded = Corpus(hypotheses=hyps, references=[refs[0], [refs[1][0], ""]])
    skip = harness.corpus_bleu(hypotheses=hyps, references=padded.references, profile="sacrebleu")
    empty = harness.corpus_bleu(
        hypotheses=hyps, references=refs, profile="sacrebleu", missing_refs="empty"
    )
    assert empty.score == skip.score and empty.ref_len == skip.ref_len


# ---------------------------------------------------------------------------- zero lengths
def test_mteval_zero_length_rule_sits_on_top_of_the_methods_own_bp() -> None:
    """Found by hypothesis: the scalar and vectorised paths must agree for any smoothing (here
    pycocoevalcap's epsilons, whose BP for a one-token hypothesis is just below 1)."""
    cfg = BleuConfig(smooth="coco-epsilon", zero_guard="none", on_zero_length="mteval")
    corpus = Corpus(hypotheses=["the", "the", "the"], references=[[""], [""], ["the"]])
    stats = engine.compute_statistics(corpus, cfg)
    vectorised = [r.score for r in engine.segment_results(stats, cfg)]
    scalar = [
        engine.score_totals(t, cfg, corpus=False).score
        for t in (engine.totals_of(stats.subset([i]), cfg) for i in range(len(corpus)))
    ]
    assert vectorised == pytest.approx(scalar, abs=1e-9)


def test_mteval_dies_only_at_system_level() -> None:
    cfg = resolve_config("mteval-v13a", lowercase=False)
    with pytest.raises(LibraryWouldRaise, match="division by zero"):
        engine.corpus_score(Corpus(hypotheses=["a b"], references=[[""]]), cfg)
    with pytest.raises(LibraryWouldRaise, match="log of 0"):
        engine.corpus_score(Corpus(hypotheses=[""], references=[["a"]]), cfg)
    corpus = Corpus(hypotheses=["a b", ""], references=[["a b"], ["c"]])
    segs = [r.score for r in engine.segment_scores(corpus, cfg)]
    assert segs[1] == 0.0 and segs[0] == pytest.approx(100.0)
    one = Corpus(hypotheses=[""], references=[["a"]])
    assert [r.score for r in engine.segment_scores(one, cfg)] == [0.0]


# ---------------------------------------------------------------------------- signatures
def test_default_signatures_do_not_change_and_new_factors_are_named() -> None:
    sig = PROFILES["sacrebleu"].signature()
    assert sig.startswith("tok:13a|case:mixed|n:4|ref:closest|tot:plain|smooth:exp|")
    mteval = PROFILES["mteval-v13a"].signature()
    assert mteval.startswith("tok:13a|case:lc-ascii|strip:none|ws:perl|n:4|ref:closest|")
    assert "refs:pad-empty" in mteval and "zerolen:mteval" in mteval
    assert "strip:none" in PROFILES["evaluate"].signature()
    detok = resolve_config("multi-bleu-detok", lowercase=True).signature()
    assert detok.startswith("tok:13a|case:lc-detok|strip:none|ws:perl|")
    # lowercase_rule is irrelevant without lowercasing, and the signature says nothing of it
    assert BleuConfig(lowercase_rule="ascii").signature() == BleuConfig().signature()


# ---------------------------------------------------------------------------- adapters
@pytest.mark.parametrize(
    ("adapter", "override", "words"),
    [
        ("sacrebleu", {"strip": "none"}, "strip='none'"),
        ("sacrebleu", {"whitespace": "perl"}, "whitespace='perl'"),
        ("sacrebleu", {"lowercase": True, "lowercase_rule": "ascii"}, "lowercase_rule='ascii'"),
        ("sacrebleu", {"missing_refs": "empty"}, "missing_refs='empty'"),
        ("bleuscore", {"strip": "rstrip"}, "strip='rstrip'"),
        ("evaluate", {"strip": "rstrip"}, "strip='rstrip'"),
        ("torchmetrics-sacrebleu", {"strip": "rstrip"}, "strip='rstrip'"),
        (
            "torchmetrics-sacrebleu",
            {"lowercase": True, "lowercase_rule": "unicode"},
            "lowercase_rule='unicode'",
        ),
    ],
)
def test_adapters_refuse_text_rules_their_library_cannot_follow(
    adapter: str, override: dict[str, object], words: str
) -> None:
    a = get_adapter(adapter)
    support = a.supports(a.default_config().replace(**override))
    assert not support.ok and words in support.reason


def test_adapters_that_take_harness_tokens_accept_every_text_rule() -> None:
    cfg = PROFILES["nltk"].replace(
        tokenize="13a", strip="none", whitespace="perl", lowercase=True, lowercase_rule="perl"
    )
    assert get_adapter("nltk").supports(cfg).ok


# ---------------------------------------------------------------------------- verification
def test_every_profile_says_how_it_is_proven() -> None:
    assert set(VERIFICATION) == set(PROFILES)
    for name, v in VERIFICATION.items():
        assert v.status in ("verified", "unverified"), name
        assert v.oracle and v.evidence, name
    assert verification("my-own").status == "unverified"
    assert "not a named profile" in verification("my-own").label()
