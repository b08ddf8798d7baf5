"""What a tokenizer declares: one :class:`TokenizerSpec` per tokenizer, the vocabularies its
fields take values from (:data:`FAMILIES`, :data:`LOCALITIES`, :data:`SIDES`,
:data:`WHITESPACES`) and the shapes of its functions. The registry of the entries and the text
pipeline around them are :mod:`harness.bleu.tokenizers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: One line to its tokens.
Tokenizer = Callable[[str], list[str]]


#: One line to its tokens, without the tokenizer's own right-strip (the text rules decide).
Core = Callable[[str], Sequence[str]]


#: Many whole lines (none holding ``"\n"``, unless the spec says ``batch_newlines``) to each
#: line's tokens.
BatchLines = Callable[[Sequence[str]], list[list[str]]]


#: Many ``str.split`` words (none holding ``"\0"``) to their tokens, each word's followed by
#: ``"\0"``.
BatchWords = Callable[[Sequence[str]], list[str]]


#: Where a tokenizer's rules come from: ``sacrebleu`` (sacrebleu's own names), ``split``
#: (pre-tokenized text split on whitespace, as nltk's and multi-bleu.perl's users feed it),
#: ``framework`` (the BLEU scripts and answer normalizers of evaluation toolkits).
FAMILIES: tuple[str, ...] = ("sacrebleu", "split", "framework")


#: How a line's tokens relate to its words (what the fast path may tokenize once per word):
#: ``line`` — tokenized whole; ``word`` — a line's tokens are its ``str.split`` words' tokens in
#: order, each word tokenized alone (except lines holding one of the entry's
#: ``whole_line_if`` strings, and an empty line's ``empty_line_token``); ``edges`` — as
#: ``word``, except that a rule at either end of the line sees a missing neighbour, which it
#: treats unlike a space, so a word that starts or ends the line (nothing beside it there) is
#: tokenized as it stands and any other as `` word `` (by the entry's ``batch_lines``, or its
#: ``edge_batch``; an entry with an ``edge_next_word`` tokenizes a word that does not end its
#: line followed by a space and that word, whose token is dropped).
LOCALITIES: tuple[str, ...] = ("line", "word", "edges")


#: The two sides of a tokenizer with side forms, in the order of :attr:`TokenizerSpec.sides`.
SIDES: tuple[str, ...] = ("hypothesis", "reference")


#: Which characters separate tokens in the final split: ``unicode`` = ``str.split()``;
#: ``perl`` = Perl's ``\s`` (U+001C..U+001F are not separators), for the Perl scripts.
WHITESPACES: tuple[str, ...] = ("unicode", "perl")


@dataclass(frozen=True)
class TokenizerSpec:
    """One tokenizer: its line function and everything the engine knows of it.

    ``name``: what a configuration names (``BleuConfig.tokenize``). ``family``: one of
    :data:`FAMILIES`. ``summary``: what it does, in one line. ``build``: returns the line
    function (one line to its tokens, right-stripped first as sacrebleu does where the rules
    say so); called once, on first use, so that a tokenizer whose packages are missing raises
    :class:`~harness.errors.AdapterUnavailable` when it is asked for, never at import.

    ``core``: the line function without its own right-strip (the text rules decide), where it
    has one; ``None``: the built function (which strips inside or ignores surrounding
    whitespace). ``perl``: the same with Perl's ``\\s`` as the final split
    (``whitespace="perl"``); ``None``: ``str.split`` only. ``batch_lines``: many whole lines at
    once, equal line by line (used under ``str.split`` whitespace); ``batch_newlines``: it also
    takes texts holding newlines (references joined into one text), which are otherwise
    tokenized one by one.

    ``locality`` (:data:`LOCALITIES`), ``batch_words`` (``word``: every word's tokens, each
    word's followed by ``"\\0"``; ``None``: a word is one token), ``whole_line_if`` (strings,
    or a function returning them on first use, whose presence in a line breaks the word rule:
    such lines are tokenized whole) and ``empty_line_token`` (the one token of a line without
    words): what :mod:`harness.bleu.fastcount` reads to tokenize each distinct word once.

    ``edge_next_word`` and ``edge_batch`` (``edges`` only): a neutral word that follows a word
    not ending its line (for rules anchored at the line's end across trailing whitespace, which
    a bare space would satisfy), and the batch form that tokenizes the words when it is not
    ``batch_lines``. ``whole_line_when`` (``edges`` only): returns, on first use, the test of
    many lines that says which are tokenized whole (what strings alone cannot say).

    ``sentences`` and ``sentence_words``: a tokenizer whose tokens of a text are the tokens
    the tokenizer ``sentence_words`` (under ``str.split`` whitespace, no strip) gives each of
    the text's sentences, in order; ``sentences`` maps many texts to each one's sentences, or
    to ``None`` for a text the entry's ``batch_lines`` tokenizes whole. The fast path then
    tokenizes the sentences word by word (``sentence_words``' locality), not text by text.

    ``sides``: the hypothesis and reference forms (:data:`SIDES` order, named
    ``<name>:hypothesis`` and ``<name>:reference``) when the two sides are tokenized
    differently. ``distributions``: the PyPI distributions whose installed versions the tokens
    depend on, beside the engine's code and Python's Unicode database (both always in the
    statistics cache key). ``sacrebleu``: the sacrebleu ``tokenize=`` value that gives the same
    tokens. ``revision``: a label for the rules of a tokenizer defined outside the engine, part
    of the statistics cache key — change it whenever its tokens change (the built-in ones leave
    it empty: the engine version covers their code).

    ``lowercased``: the line function with its script's own lowercasing, at the step where the
    script lowercases (``lowercase_rule="script"``), for a script that lowercases between two
    of its steps where neither lowercasing the line first nor the tokens after gives the same
    tokens; ``None``: ``script`` lowercases the line before tokenizing. A tokenizer never
    lowercases, strips punctuation or drops words inside its line function otherwise: those
    are factors of their own (:class:`~harness.bleu.tokenizers.TextRules`), so that a signature
    names them. ``lowercased_batch``: that form on many lines at once, equal line by line;
    ``lowercased_words``: that form's ``batch_words``, which a word-local tokenizer with a
    lowercased form has (beside its own ``batch_words``).
    """

    name: str
    family: str
    summary: str
    build: Callable[[], Tokenizer]
    core: Core | None = None
    perl: Core | None = None
    batch_lines: BatchLines | None = None
    batch_newlines: bool = False
    locality: str = "line"
    batch_words: BatchWords | None = None
    whole_line_if: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    empty_line_token: str | None = None
    edge_next_word: str = ""
    edge_batch: BatchLines | None = None
    whole_line_when: Callable[[], Callable[[Sequence[str]], list[bool]]] | None = None
    sentences: Callable[[Sequence[str]], list[list[str] | None]] | None = None
    sentence_words: str = ""
    sides: tuple[TokenizerSpec, TokenizerSpec] | None = None
    distributions: tuple[str, ...] = ()
    sacrebleu: str | None = None
    revision: str = ""
    lowercased: Core | None = None
    lowercased_batch: BatchLines | None = None
    lowercased_words: BatchWords | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"{self.name}: family {self.family!r} is not one of {FAMILIES}")
        if self.locality not in LOCALITIES:
            raise ValueError(f"{self.name}: locality {self.locality!r} is not one of {LOCALITIES}")
        if self.batch_words is not None and self.locality != "word":
            raise ValueError(f"{self.name}: batch_words belongs to word-local tokenizers")
        if self.batch_newlines and self.batch_lines is None:
            raise ValueError(f"{self.name}: batch_newlines describes batch_lines")
        if self.locality == "edges" and self.batch_lines is None:
            raise ValueError(f"{self.name}: an edges tokenizer tokenizes words by batch_lines")
        if self.locality == "line" and (self.whole_line_if or self.empty_line_token is not None):
            raise ValueError(f"{self.name}: whole_line_if and empty_line_token need word locality")
        edge_only = (self.edge_next_word, self.edge_batch, self.whole_line_when)
        if self.locality != "edges" and any(x for x in edge_only):
            raise ValueError(f"{self.name}: edge_next_word, edge_batch, whole_line_when need edges")
        if self.edge_next_word and len(self.edge_next_word.split()) != 1:
            raise ValueError(f"{self.name}: edge_next_word is one word")
        if (self.sentences is None) != (not self.sentence_words) or (
            self.sentences is not None and (self.locality != "line" or self.batch_lines is None)
        ):
            raise ValueError(f"{self.name}: sentences and sentence_words go together, on lines")
        if self.lowercased is not None and (
            self.batch_lines or self.locality == "edges" or self.sides is not None
        ):
            raise ValueError(f"{self.name}: a lowercased form is tokenized line or word by word")
        if (self.lowercased_batch is not None or self.lowercased_words is not None) and (
            self.lowercased is None
        ):
            raise ValueError(f"{self.name}: lowercased_batch/_words are a lowercased form's")
        if self.lowercased is not None and (self.locality == "word") != (
            self.lowercased_words is not None and self.batch_words is not None
        ):
            raise ValueError(f"{self.name}: a word-local lowercased form has lowercased_words")
        if self.sides is not None:
            names = tuple(form.name for form in self.sides)
            if names != tuple(f"{self.name}:{side}" for side in SIDES):
                raise ValueError(f"{self.name}: side forms are named {names}")
            if any(form.sides is not None for form in self.sides):
                raise ValueError(f"{self.name}: a side form has no side forms of its own")

    @property
    def whitespaces(self) -> tuple[str, ...]:
        """The whitespace classes (:data:`WHITESPACES`) its final split supports."""
        return WHITESPACES if self.perl is not None else WHITESPACES[:1]

    @property
    def splits_only(self) -> bool:
        """Its tokens are the line's whitespace-separated words, nothing more."""
        return (
            self.locality == "word"
            and self.batch_words is None
            and self.empty_line_token is None
            and self.sides is None
        )

    def side(self, which: str) -> TokenizerSpec:
        """The form that tokenizes ``"hypothesis"`` or ``"reference"`` texts (itself when the
        sides are tokenized alike)."""
        return self if self.sides is None else self.sides[SIDES.index(which)]

    def whole_line_marks(self) -> tuple[str, ...]:
        """``whole_line_if``, computed if it is a function."""
        marks = self.whole_line_if
        return marks() if callable(marks) else marks
