"""The tokenizer registry, and the text pipeline that turns a segment into tokens.

Every tokenizer is one :class:`TokenizerSpec` in :data:`REGISTRY`: its line function and
everything the rest of the engine needs to know of it — its batch forms and how its tokens of a
line relate to the line's words (the fast path, :mod:`harness.bleu.fastcount`), its
hypothesis and reference forms when the two sides are tokenized differently (the text rules
below), the whitespace classes its final split supports (:class:`~harness.bleu.config.BleuConfig`
validation), the distributions its tokens depend on (the statistics cache key,
:func:`harness.session.cache.tokenizer_signature`) and the sacrebleu tokenizer it equals, if
any (the sacrebleu adapters, the differential tests). Nothing else lists tokenizer names or
properties: adding a tokenizer is one entry of :data:`harness.bleu.builtin_tokenizers.BUILT_IN`
plus its tests, and :func:`registered` adds one for a ``with`` block (a test's or an
experiment's own).

The rules live beside the scripts they reproduce: :mod:`harness.bleu.sacrebleu_tokenizers`
(sacrebleu's tokenizers and the plain whitespace splits), :mod:`harness.bleu.script_tokenizers`
(CodeXGLUE, tensor2tensor, fairseq, keras-hub), :mod:`harness.bleu.normalizers` (ParlAI,
jury, nltk's word rules), :mod:`harness.bleu.punkt_sentences` (nltk's ``word_tokenize``) and
:mod:`harness.bleu.nltk391` (the same as nltk 3.9.1 runs it).
Each entry's ``summary`` says what it does; ``none`` and ``whitespace`` give identical tokens
(sacrebleu's ``none`` still splits the line on any whitespace when it extracts n-grams).

``get_tokenizer(name)`` returns a function mapping one line to its list of tokens; for every
name shared with sacrebleu the list equals what sacrebleu's ``BLEU(tokenize=name)`` counts
n-grams over. :func:`text_tokenizer` adds the text rules around a tokenizer (strip, case,
whitespace class: :class:`TextRules`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType

from harness.bleu import nltk391 as _nltk391
from harness.bleu import normalizers as _norm
from harness.bleu import punkt_sentences as _punkt
from harness.bleu import sacrebleu_tokenizers as _sb
from harness.bleu import script_tokenizers as _script
from harness.bleu.builtin_tokenizers import BUILT_IN
from harness.bleu.sacrebleu_tokenizers import PERL_SPACE_CHARS, PYTHON_ONLY_SPACE, perl_split
from harness.bleu.tokenizer_spec import (
    FAMILIES,
    LOCALITIES,
    SIDES,
    WHITESPACES,
    Core,
    Tokenizer,
    TokenizerSpec,
)
from harness.errors import ConfigError

__all__ = [
    "ARTICLES",
    "CACHE_LINES",
    "FAMILIES",
    "LOCALITIES",
    "LOWERCASE_RULES",
    "PERL_SPACE_CHARS",
    "PERL_WHITESPACE_TOKENIZERS",
    "PUNCTUATIONS",
    "PYTHON_ONLY_SPACE",
    "REGISTRY",
    "SIDES",
    "STRIPS",
    "TOKENIZER_NAMES",
    "WHITESPACES",
    "TextRules",
    "TokenizerSpec",
    "ascii_lower",
    "batch_lines_tokens",
    "clear_caches",
    "drop_articles",
    "drop_punctuation",
    "get_tokenizer",
    "perl_lc",
    "perl_split",
    "register",
    "registered",
    "spec_of",
    "text_tokenizer",
    "tokenize",
    "tokenizer_names",
    "unregister",
]


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

_SPECS: dict[str, TokenizerSpec] = {}
_SIDE_FORMS: dict[str, TokenizerSpec] = {}

#: Every tokenizer by name, in registration order (read-only; it follows :func:`register`).
REGISTRY: Mapping[str, TokenizerSpec] = MappingProxyType(_SPECS)


def register(spec: TokenizerSpec) -> None:
    """Add ``spec`` to :data:`REGISTRY`; ``ValueError`` if its name (or a side form's) is taken.

    A tokenizer registered at run time exists in this process: workers started for
    ``--jobs`` do not see it. Caches above the registry key statistics by name (the engine's
    reference sides, a session's statistics cache): a name registered again with other rules
    must come with another ``revision`` or a call to ``harness.bleu.engine.clear_caches``.
    """
    _forget(_add(spec))


def _add(spec: TokenizerSpec) -> list[str]:
    """Put ``spec`` and its side forms in the registry; return their names."""
    names = [spec.name, *(form.name for form in spec.sides or ())]
    taken = [name for name in names if name in _SPECS or name in _SIDE_FORMS]
    if taken:
        raise ValueError(f"tokenizer name(s) already registered: {', '.join(taken)}")
    _SPECS[spec.name] = spec
    for form in spec.sides or ():
        _SIDE_FORMS[form.name] = form
    return names


def unregister(name: str) -> None:
    """Remove the tokenizer ``name`` registered by :func:`register` (not a built-in one)."""
    if name in _BUILT_IN_NAMES:
        raise ValueError(f"the built-in tokenizer {name!r} cannot be unregistered")
    if name not in _SPECS:
        raise ValueError(f"no tokenizer {name!r} is registered")
    spec = _SPECS.pop(name)
    for form in spec.sides or ():
        del _SIDE_FORMS[form.name]
    _forget([name, *(form.name for form in spec.sides or ())])


@contextmanager
def registered(spec: TokenizerSpec) -> Iterator[TokenizerSpec]:
    """``spec`` registered for the duration of a ``with`` block (see :func:`register`)."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.name)


def _forget(names: Sequence[str]) -> None:
    """Drop what the registry's caches hold for ``names`` (a name may be registered again)."""
    _build.cache_clear()
    text_tokenizer.cache_clear()
    for name in names:
        _memory.pop(name, None)


def spec_of(name: str) -> TokenizerSpec:
    """The entry of tokenizer ``name``, or of a side form (``<name>:hypothesis``, ...).

    Raises :class:`~harness.errors.ConfigError` for an unknown name.
    """
    spec = (_SPECS.get(name) or _SIDE_FORMS.get(name)) if isinstance(name, str) else None
    if spec is None:
        raise ConfigError(f"unknown tokenizer {name!r}", valid=tokenizer_names())
    return spec


def tokenizer_names(*, family: str | None = None, whitespace: str | None = None) -> tuple[str, ...]:
    """The registered tokenizer names, in order; only those of ``family`` and those whose final
    split supports ``whitespace``, when given."""
    return tuple(
        name
        for name, spec in _SPECS.items()
        if (family is None or spec.family == family)
        and (whitespace is None or whitespace in spec.whitespaces)
    )


for _spec in BUILT_IN:
    _add(_spec)
_BUILT_IN_NAMES = frozenset(spec.name for spec in BUILT_IN)

#: The built-in tokenizer names (a tokenizer registered later is in :data:`REGISTRY` and
#: :func:`tokenizer_names`, not here).
TOKENIZER_NAMES: tuple[str, ...] = tokenizer_names()
#: The built-in tokenizers whose final split can follow Perl's whitespace class.
PERL_WHITESPACE_TOKENIZERS: tuple[str, ...] = tokenizer_names(whitespace="perl")


def get_tokenizer(name: str) -> Tokenizer:
    """Return the tokenizer called ``name``: a function from one line to its list of tokens.

    Raises :class:`~harness.errors.ConfigError` for an unknown name and
    :class:`~harness.errors.AdapterUnavailable` when a tokenizer's packages are missing (at
    this call, never at import). Tokenizers are built once per name and cached.
    """
    if not isinstance(name, str) or name not in _SPECS:
        raise ConfigError(f"unknown tokenizer {name!r}", valid=tokenizer_names())
    return _build(name)


@functools.cache
def _build(name: str) -> Tokenizer:
    """The built line function of a tokenizer or of a side form."""
    return spec_of(name).build()


#: Lines whose batch tokens are remembered, per tokenizer (the newest).
CACHE_LINES = 2**16
_memory: dict[str, dict[str, list[str]]] = {}


def batch_lines_tokens(name: str, lines: list[str]) -> list[list[str]]:
    """The tokens of every line (none holding ``"\\n"``, unless the tokenizer's
    ``batch_newlines``) by the ``batch_lines`` of tokenizer ``name``, tokenizing only the
    distinct lines not remembered for it.

    The results are remembered per line, as the line functions' own caches remember theirs:
    identify and the reports count the same lines under many readings and configurations.
    """
    batch = spec_of(name).batch_lines
    if batch is None:
        raise ValueError(f"tokenizer {name!r} has no batch form")
    memory = _memory.setdefault(name, {})
    got = {line: memory[line] for line in lines if line in memory}
    missing = list(dict.fromkeys(line for line in lines if line not in got))
    if missing:
        got.update(zip(missing, batch(missing), strict=True))
        memory.update((line, got[line]) for line in missing)
        for old in list(itertools.islice(memory, max(0, len(memory) - CACHE_LINES))):
            del memory[old]  # the oldest first
    return [got[line] for line in lines]


def clear_caches() -> None:
    """Forget the per-line token caches of every tokenizer, and the remembered batch tokens."""
    _sb.clear_caches()
    _script.clear_caches()
    _norm.clear_caches()
    _punkt.clear_caches()
    _nltk391.clear_caches()
    _memory.clear()


# --------------------------------------------------------------------------------------------
# The whole text pipeline: lowercase (before) -> punctuation -> articles -> strip -> tokenize
# (with a whitespace class) -> lowercase (after, on the tokens)
# --------------------------------------------------------------------------------------------

#: What happens to the raw segment before tokenizing: ``rstrip`` (Python's ``str.rstrip``, as
#: sacrebleu does) or ``none`` (the raw string, as the Hub evaluate module, bleuscore,
#: torchmetrics' SacreBLEUScore and the Perl scripts tokenize it: a trailing ``-\n`` is then
#: 13a's end-of-line hyphenation and joins the word).
STRIPS: tuple[str, ...] = ("rstrip", "none")

#: How ``lowercase=True`` lowercases: ``unicode`` = ``str.lower()`` on the line before
#: tokenizing (sacrebleu); ``ascii`` = A-Z only (mteval-v13a's ``tr/[A-Z]/[a-z]/``,
#: multi-bleu.perl's byte-level ``lc``), on the tokens; ``perl`` = Perl's ``lc`` on decoded
#: text, character by character (no final-sigma rule: Σ always becomes σ), applied to the
#: tokens after tokenizing; ``perl-before`` = Perl's ``lc`` on the line before tokenizing;
#: ``unicode-after`` = ``str.lower`` on the tokens after tokenizing (torchmetrics'
#: SacreBLEUScore: ``&QUOT;`` is never unescaped, a KELVIN SIGN split by zh stays a token);
#: ``detok`` = multi-bleu-detok.perl ``-lc``, which lowercases each hypothesis line before
#: tokenizing it but each reference after (``perl-before`` on hypotheses, ``perl`` on
#: references: ``&QUOT;`` is unescaped in a hypothesis and never in a reference).
#: ``script`` = where the tokenizer's own script lowercases, between two of its steps
#: (CodeNN's ``normalize``: after removing its tag and unescaping entities, before its
#: punctuation rules; :attr:`TokenizerSpec.lowercased`), and on the line before tokenizing for
#: a tokenizer whose script does not lowercase.
LOWERCASE_RULES: tuple[str, ...] = (
    "unicode",
    "ascii",
    "perl",
    "perl-before",
    "unicode-after",
    "detok",
    "script",
)

#: What happens to punctuation before tokenizing: ``keep`` (the tokenizer decides) or
#: ``ascii`` (every ASCII punctuation character, ``string.punctuation``, becomes a space:
#: ParlAI's ``normalize_answer``, jury's ``DefaultTokenizer``).
PUNCTUATIONS: tuple[str, ...] = ("keep", "ascii")

#: Which words are dropped before tokenizing: ``keep`` (none) or ``en`` (the whole words
#: ``a``, ``an`` and ``the`` become a space, as ParlAI's ``normalize_answer`` drops them after
#: lowercasing: an article written ``The`` is dropped only when the text is lowercased first).
ARTICLES: tuple[str, ...] = ("keep", "en")

_ASCII_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_ENGLISH_ARTICLE = re.compile(r"\b(?:a|an|the)\b")


def drop_punctuation(line: str) -> str:
    """Every ASCII punctuation character of ``line`` made a space (``punctuation="ascii"``)."""
    return _ASCII_PUNCTUATION.sub(" ", line)


def drop_articles(line: str) -> str:
    """Every whole word ``a``, ``an`` or ``the`` of ``line`` made a space (``articles="en"``)."""
    return _ENGLISH_ARTICLE.sub(" ", line)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_lower(token: str) -> str:
    """A-Z to a-z, nothing else (Perl ``tr/[A-Z]/[a-z]/`` or ``lc`` on bytes)."""
    return token.lower() if token.isascii() else token.translate(_ASCII_LOWER)


def perl_lc(token: str) -> str:
    """Perl's ``lc`` on a character string: each character's full lowercase mapping, with no
    context. Python's ``str.lower`` differs only by its Final_Sigma rule (a word-final Σ
    becomes ς), so only strings holding Σ are mapped character by character."""
    return token.lower() if "\u03a3" not in token else "".join(map(str.lower, token))


_AFTER: dict[str, Callable[[str], str]] = {
    "ascii": ascii_lower,
    "perl": perl_lc,
    "unicode-after": str.lower,
}
_BEFORE: dict[str, Callable[[str], str]] = {
    "unicode": str.lower,
    "perl-before": perl_lc,
    "script": str.lower,  # a tokenizer without a lowercased form: its script does not lowercase
}


@dataclass(frozen=True)
class TextRules:
    """Every choice that turns a segment into tokens: the tokenizer and the text rules around
    it (see ``STRIPS``, ``LOWERCASE_RULES``, ``PUNCTUATIONS``, ``ARTICLES``, ``WHITESPACES``).
    ``key()`` is the part of a signature that names them; the defaults give the historical
    ``tok:…|case:…`` key. Every normalisation that can move a score is one of these rules,
    never hidden in a tokenizer, so the key names it."""

    tokenize: str = "13a"
    lowercase: bool = False
    lowercase_rule: str = "unicode"
    strip: str = "rstrip"
    whitespace: str = "unicode"
    punctuation: str = "keep"
    articles: str = "keep"

    def key(self) -> str:
        case = "mixed"
        if self.lowercase:
            case = "lc" if self.lowercase_rule == "unicode" else f"lc-{self.lowercase_rule}"
        parts = [f"tok:{self.tokenize}", f"case:{case}"]
        if self.punctuation != "keep":
            parts.append(f"punct:{self.punctuation}")
        if self.articles != "keep":
            parts.append(f"art:{self.articles}")
        if self.strip != "rstrip":
            parts.append(f"strip:{self.strip}")
        if self.whitespace != "unicode":
            parts.append(f"ws:{self.whitespace}")
        return "|".join(parts)

    @property
    def script_case(self) -> bool:
        """The tokenizer's script lowercases at its own step (``script`` on a tokenizer with a
        :attr:`TokenizerSpec.lowercased` form)."""
        return (
            self.lowercase
            and self.lowercase_rule == "script"
            and spec_of(self.tokenize).lowercased is not None
        )

    @property
    def line_case(self) -> Callable[[str], str] | None:
        """The function lowercasing the line before tokenizing, if any."""
        self._one_side()
        if not self.lowercase or self.script_case:
            return None
        return _BEFORE.get(self.lowercase_rule)

    @property
    def line_text(self) -> Callable[[str], str] | None:
        """Everything done to the line before it is stripped and tokenized, in order:
        lowercasing (the rules that lowercase the line), punctuation, articles; ``None`` when
        nothing is."""
        steps = [self.line_case]
        if self.punctuation == "ascii":
            steps.append(drop_punctuation)
        if self.articles == "en":
            steps.append(drop_articles)
        done = tuple(step for step in steps if step is not None)
        if not done:
            return None
        if len(done) == 1:
            return done[0]

        def line_text(line: str) -> str:
            for step in done:
                line = step(line)
            return line

        return line_text

    @property
    def lowercase_before(self) -> bool:
        """Lowercasing happens on the line, before tokenizing."""
        return self.line_case is not None

    @property
    def token_case(self) -> Callable[[str], str] | None:
        """The function lowercasing each token after tokenizing, if any."""
        self._one_side()
        return _AFTER.get(self.lowercase_rule) if self.lowercase else None

    @property
    def by_side(self) -> bool:
        """Hypotheses and references are not tokenized alike (``detok`` lowercasing, or a
        tokenizer with side forms: ``fairseq``'s references never match ``<unk>``)."""
        return (self.lowercase and self.lowercase_rule == "detok") or _has_sides(self.tokenize)

    def side(self, which: str) -> TextRules:
        """The rules for ``"hypothesis"`` or ``"reference"`` texts (equal unless by side)."""
        if not self.by_side:
            return self
        rules = self
        if _has_sides(self.tokenize):
            rules = dataclasses.replace(rules, tokenize=_SPECS[self.tokenize].side(which).name)
        if self.lowercase and self.lowercase_rule == "detok":
            rule = "perl-before" if which == "hypothesis" else "perl"
            rules = dataclasses.replace(rules, lowercase_rule=rule)
        return rules

    def _one_side(self) -> None:
        if self.by_side:
            raise ConfigError(
                f"{self.key()} tokenizes hypotheses and references differently: "
                "tokenize with rules.side('hypothesis') or rules.side('reference')"
            )


def _has_sides(name: str) -> bool:
    spec = _SPECS.get(name)
    return spec is not None and spec.sides is not None


def _core(name: str, whitespace: str) -> Core:
    """Tokenizer (or side form) ``name`` without its own right-strip (the pipeline decides)."""
    spec = spec_of(name)
    if whitespace == "perl":
        if spec.perl is None:
            perl = tokenizer_names(whitespace="perl")
            raise ConfigError(
                f"whitespace='perl' is defined only for the tokenizers {', '.join(perl)}, "
                f"not {name!r}",
                valid=perl,
            )
        return spec.perl
    if spec.core is not None:
        return spec.core
    return _build(name)  # these strip inside or ignore surrounding whitespace


@functools.lru_cache(maxsize=128)
def text_tokenizer(rules: TextRules) -> Tokenizer:
    """The function from one raw segment to its tokens under ``rules``.

    Order: lowercase the line (``unicode`` rule), punctuation and articles (:attr:`TextRules.
    line_text`), strip (``rstrip``; none of these makes or removes trailing whitespace that a
    tokenizer keeps), tokenize with the whitespace class (or the tokenizer's own lowercased
    form, ``script``), lowercase each token (``ascii``/``perl`` rules). With the default rules
    this is ``get_tokenizer(name)`` (lowercased first when asked), sacrebleu's convention.
    """
    lowercased = spec_of(rules.tokenize).lowercased if rules.script_case else None
    core = lowercased or _core(rules.tokenize, rules.whitespace)
    strip = rules.strip == "rstrip"
    before = rules.line_text
    after = rules.token_case

    def tokenize_text(line: str) -> list[str]:
        if before is not None:
            line = before(line)
        if strip:
            line = line.rstrip()
        tokens = core(line)
        if after is not None:
            return [after(t) for t in tokens]
        return list(tokens)

    return tokenize_text


def tokenize(text: str, name: str, lowercase: bool = False) -> list[str]:
    """Tokenize one line with tokenizer ``name`` under the default text rules (right-strip,
    ``str.split`` whitespace); ``lowercase`` applies ``str.lower()`` first, as sacrebleu does.
    Other rules: :func:`text_tokenizer`."""
    if not isinstance(name, str) or name not in _SPECS:
        raise ConfigError(f"unknown tokenizer {name!r}", valid=tokenizer_names())
    return text_tokenizer(TextRules(tokenize=name, lowercase=lowercase))(text)
