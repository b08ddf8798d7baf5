"""``Corpus``: hypotheses with per-segment reference lists, and the reference layouts.

Two layouts of the same references circulate, and confusing them raises no error in the
libraries that use them (seed ``001_4d9c0f31bc4f1899.txt``; sacrebleu#220, #272, #275):

* **per-segment** (evaluate, nltk, torchmetrics, bleuscore): ``references[i]`` is the list of
  references of segment ``i`` — N lists of K_i strings, ragged allowed. This is the harness's
  own layout.
* **streams** (sacrebleu): ``streams[k]`` is the k-th reference of every segment — K lists of
  N strings. Ragged references must be padded; the padding is an explicit choice: ``None``
  (sacrebleu drops it) or ``''`` (sacrebleu counts it as a reference of length 0).

Each layout has one converter each way, and every length is checked: a mismatch raises
:class:`~harness.errors.LayoutError` naming the stream or argument, the expected and the actual
count.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from types import FrameType
from typing import Any, Literal, cast

from harness.errors import InputError, LayoutError, SuspectInput

Padding = Literal["none", "empty"]

# ---------------------------------------------------------------------------- text rules
#: The characters the file reader (:func:`harness.data.io.read_lines`) refuses, as they appear in
#: a ``str``: a byte-order mark starting the text, NUL, carriage return, and lone surrogates
#: (what undecodable bytes become; they cannot be encoded as UTF-8). One table for both: the
#: reader refuses them in files, :class:`Corpus` warns about them in strings given directly.
BOM = "\ufeff"
NUL = "\x00"
CR = "\r"
UNREADABLE_CHARS: dict[str, str] = {
    BOM: "byte-order mark (BOM) at the start of the text",
    NUL: "NUL character",
    CR: "carriage return",
}
_UNREADABLE = re.compile(r"\A\ufeff|[\x00\r\ud800-\udfff]")
#: How many examples a :class:`SuspectInput` warning about such characters lists.
MAX_EXAMPLES = 3


def unreadable_char(text: str) -> tuple[int, str] | None:
    """``(index, description)`` of the first character of ``text`` that the file reader would
    refuse (see :data:`UNREADABLE_CHARS`; a U+FEFF counts only at index 0, where a BOM read as
    text lands), or ``None``.

    >>> unreadable_char("a\\r\\n"), unreadable_char("\\ufeffa"), unreadable_char("ok")
    ((1, 'U+000D (carriage return)'), (0, 'U+FEFF (byte-order mark (BOM) at the start of the text)'), None)
    """
    m = _UNREADABLE.search(text)
    if m is None:
        return None
    ch = m.group()
    what = UNREADABLE_CHARS.get(ch, "lone surrogate, not encodable as UTF-8")
    return m.start(), f"U+{ord(ch):04X} ({what})"


def _suspect_strings(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], ids: Sequence[str]
) -> Iterator[str]:
    """One description per segment string holding a character the file reader refuses."""
    for i, hyp in enumerate(hypotheses):
        texts = [("hypothesis", hyp)]
        texts += [(f"reference {k + 1}", r) for k, r in enumerate(references[i])]
        for role, text in texts:
            found = unreadable_char(text)
            if found is not None:
                pos, what = found
                yield f"segment {i + 1} (id {ids[i]!r}) {role}: {what} at character {pos + 1}"


def _may_hold_unreadable(text: str) -> bool:
    """Whether ``text`` may hold a character of :data:`UNREADABLE_CHARS` or a lone surrogate
    (a superset test: a U+FEFF anywhere counts). Substring searches and the UTF-8 encoder run
    at C speed, faster than one regex pass over the text."""
    if NUL in text or CR in text or BOM in text:
        return True
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _warn_unreadable(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], ids: Sequence[str]
) -> bool:
    """One :class:`SuspectInput` warning per corpus listing up to :data:`MAX_EXAMPLES` strings
    with characters the file reader refuses; the strings are still scored as given. Returns
    whether it warned."""
    # one pass over all the text finds out cheaply whether any string needs a closer look
    joined = "\n".join(itertools.chain(hypotheses, itertools.chain.from_iterable(references)))
    if not _may_hold_unreadable(joined):
        return False
    found = list(_suspect_strings(hypotheses, references, ids))
    if not found:
        return False
    shown = "; ".join(found[:MAX_EXAMPLES])
    more = f"; and {len(found) - MAX_EXAMPLES} more" if len(found) > MAX_EXAMPLES else ""
    warnings.warn(
        f"{len(found)} segment string(s) hold characters that input files may not contain "
        f"(BOM, NUL, carriage return, lone surrogates); they are scored as given: "
        f"{shown}{more}",
        SuspectInput,
        stacklevel=caller_stacklevel(),
    )
    return True


def warn_unreadable(corpus: Corpus) -> bool:
    """The :class:`SuspectInput` warning a corpus built with ``check_text=True`` gives about
    its strings (see :data:`UNREADABLE_CHARS`), given for ``corpus``; whether it was given."""
    return _warn_unreadable(corpus.hypotheses, corpus.references, corpus.ids)


def caller_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn`, called from the function that warns, that
    points the warning at the user's line: the first frame outside this package (and outside
    :mod:`dataclasses`, whose generated ``__init__`` and ``replace`` run ``__post_init__``)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # harness/
    skip = (package, os.path.abspath(dataclasses.__file__))

    def inside(code: Any) -> bool:
        if code.co_filename.startswith("<") and code.co_name == "__init__":
            return True  # the __init__ that dataclasses generate
        return os.path.abspath(code.co_filename).startswith(skip)

    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and inside(frame.f_code):
        frame = frame.f_back
        level += 1
    return level


def _check_str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {type(value).__name__} {value!r:.60}")
    return value


def _clean_layout(
    hyps: Sequence[Any], refs: Sequence[Any]
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
    """The hypotheses and references as tuples when every hypothesis and reference is a
    ``str`` and every segment's references a non-empty ``list``/``tuple`` — checked by element
    type at C speed (not one by one) — else ``None``."""
    if not set(map(type, hyps)) <= {str} or not set(map(type, refs)) <= {list, tuple}:
        return None
    if min(map(len, refs)) == 0 or not set(map(type, itertools.chain.from_iterable(refs))) <= {str}:
        return None
    return tuple(hyps), tuple(map(tuple, refs))


def _checked_layout(
    hyps: Sequence[Any], refs: Sequence[Any]
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The hypotheses and references as tuples, element by element; the first element that is
    not a string, or segment whose references are not a non-empty list, raises an error that
    names it."""
    clean_hyps = tuple(_check_str(h, f"hypothesis {i + 1}") for i, h in enumerate(hyps))
    clean_refs = []
    for i, seg in enumerate(refs):
        if isinstance(seg, str) or not isinstance(seg, Sequence):
            raise LayoutError(
                "each segment's references must be a list of strings "
                "(a flat list of strings is not the per-segment layout)",
                what=f"references[{i}]",
                expected="list[str]",
                got=type(seg).__name__,
            )
        if len(seg) == 0:
            raise LayoutError(
                "a segment needs at least one reference",
                what=f"references[{i}]",
                expected=">= 1",
                got=0,
            )
        clean_refs.append(
            tuple(_check_str(r, f"reference {k + 1} of segment {i + 1}") for k, r in enumerate(seg))
        )
    return clean_hyps, tuple(clean_refs)


@dataclass(frozen=True, repr=False)
class Corpus:
    """Hypotheses of one system with their references, segment-aligned.

    ``references[i]`` holds the references of segment ``i`` (at least one each). ``ids`` are
    segment identifiers (``"1"``, ``"2"``… by default). ``provenance`` says where the text came
    from (file names, dataset, seed article).
    """

    hypotheses: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    ids: tuple[str, ...] = ()
    name: str = ""
    provenance: Mapping[str, Any] = field(default_factory=dict, compare=False)
    check_text: InitVar[bool] = True

    def __repr__(self) -> str:
        """A short summary (a full dump of a real corpus runs to megabytes)."""
        counts = [len(r) for r in self.references]
        lo, hi = (min(counts), max(counts)) if counts else (0, 0)
        nrefs = str(lo) if lo == hi else f"{lo}–{hi}"
        first = self.hypotheses[0] if self.hypotheses else ""
        first = first if len(first) <= 40 else first[:39] + "…"
        return (
            f"Corpus(name={self.name!r}, segments={len(self.hypotheses)}, "
            f"references={nrefs} per segment, first hypothesis={first!r})"
        )

    def __post_init__(self, check_text: bool) -> None:
        hyps = self.hypotheses
        refs = self.references
        if isinstance(hyps, str) or not isinstance(hyps, Sequence):
            raise LayoutError(
                "hypotheses must be a list of strings, one per segment",
                what="hypotheses",
                expected="list[str]",
                got=type(hyps).__name__,
            )
        if isinstance(refs, str) or not isinstance(refs, Sequence):
            raise LayoutError(
                "references must be a list with one list of references per segment",
                what="references",
                expected="list[list[str]]",
                got=type(refs).__name__,
            )
        if len(hyps) == 0:
            raise LayoutError(
                "empty corpus: no hypotheses", what="hypotheses", expected=">= 1", got=0
            )
        if len(refs) != len(hyps):
            raise LayoutError(
                "one reference list per hypothesis is required",
                what="references",
                expected=len(hyps),
                got=len(refs),
            )
        clean = _clean_layout(hyps, refs)
        if clean is None:  # some element is not a plain str/list/tuple: check one by one
            clean = _checked_layout(hyps, refs)
        clean_hyps, clean_refs = clean
        if self.ids:
            ids = tuple(map(str, self.ids))
            if len(ids) != len(hyps):
                raise LayoutError(
                    "one id per segment", what="ids", expected=len(hyps), got=len(ids)
                )
            if len(set(ids)) != len(ids):
                raise LayoutError("segment ids must be unique", what="ids")
        else:  # "1", "2", …: unique by construction
            ids = tuple(map(str, range(1, len(hyps) + 1)))
        if check_text:
            _warn_unreadable(clean_hyps, clean_refs, ids)
        object.__setattr__(self, "hypotheses", clean_hyps)
        object.__setattr__(self, "references", tuple(clean_refs))
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "provenance", dict(self.provenance))

    # ------------------------------------------------------------------ basics
    def __len__(self) -> int:
        return len(self.hypotheses)

    @property
    def max_refs(self) -> int:
        """The largest number of references of any segment."""
        return max(len(r) for r in self.references)

    @property
    def is_ragged(self) -> bool:
        """True when segments have different numbers of references."""
        return len({len(r) for r in self.references}) > 1

    def subset(self, indices: Sequence[int]) -> Corpus:
        """The corpus restricted to the given segment indices (in that order)."""
        return Corpus(
            hypotheses=tuple(self.hypotheses[i] for i in indices),
            references=tuple(self.references[i] for i in indices),
            ids=tuple(self.ids[i] for i in indices),
            name=self.name,
            provenance=self.provenance,
            check_text=False,  # this corpus's text was checked when it was built
        )

    def with_hypotheses(self, hypotheses: Sequence[str], *, name: str = "") -> Corpus:
        """The same references and ids with another system's hypotheses."""
        if len(hypotheses) != len(self):
            raise LayoutError(
                "hypotheses must align with the corpus segments",
                what=name or "hypotheses",
                expected=len(self),
                got=len(hypotheses),
            )
        return Corpus(
            hypotheses=tuple(hypotheses),
            references=self.references,
            ids=self.ids,
            name=name or self.name,
            provenance=self.provenance,
        )

    # ------------------------------------------------------------------ layouts
    @classmethod
    def from_evaluate(
        cls,
        *,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        **kwargs: Any,
    ) -> Corpus:
        """From the per-segment layout (evaluate/nltk): ``references[i]`` = segment i's refs.

        Any sequences: ``__post_init__`` checks every element and stores tuples.
        """
        return cls(hypotheses=cast(Any, hypotheses), references=cast(Any, references), **kwargs)

    def to_evaluate(self) -> list[list[str]]:
        """The per-segment layout: one list of references per segment (ragged kept)."""
        return [list(r) for r in self.references]

    @classmethod
    def from_streams(
        cls,
        *,
        hypotheses: Sequence[str],
        streams: Sequence[Sequence[str | None]],
        padding: Padding = "none",
        **kwargs: Any,
    ) -> Corpus:
        """From sacrebleu reference streams: ``streams[k][i]`` = k-th reference of segment i.

        Every stream must have exactly one entry per hypothesis. ``padding`` says which entries
        mean "no reference here": ``"none"`` drops ``None`` entries; ``"empty"`` also drops
        ``''`` entries (use it only when ``''`` was padding, never a real empty reference).
        """
        if isinstance(streams, str) or not isinstance(streams, Sequence) or not streams:
            raise LayoutError(
                "streams must be a non-empty list of reference streams",
                what="streams",
                expected="list[list[str]]",
                got=type(streams).__name__ if streams else "empty",
            )
        n = len(hypotheses)
        for k, stream in enumerate(streams):
            if isinstance(stream, str) or not isinstance(stream, Sequence):
                raise LayoutError(
                    "each reference stream must be a list of strings "
                    "(a flat list of strings is one stream, wrap it in a list)",
                    what=f"stream {k + 1}",
                    expected="list[str]",
                    got=type(stream).__name__,
                )
            if len(stream) != n:
                raise LayoutError(
                    "every reference stream needs one entry per hypothesis",
                    what=f"stream {k + 1}",
                    expected=n,
                    got=len(stream),
                )
        if padding not in ("none", "empty"):
            raise LayoutError(f"unknown padding {padding!r}; valid: none, empty", what="padding")
        pad_values: tuple[Any, ...] = (None,) if padding == "none" else (None, "")
        refs: list[tuple[Any, ...]] = []
        for i in range(n):
            seg = tuple(s[i] for s in streams if s[i] not in pad_values)
            refs.append(seg)
        return cls.from_evaluate(hypotheses=hypotheses, references=refs, **kwargs)

    def to_streams(self, *, padding: Padding = "none") -> list[list[str | None]]:
        """Sacrebleu reference streams, ragged segments padded with ``None`` or ``''``.

        ``''`` padding is what many scripts do and it changes sacrebleu's score: ``''`` is a
        reference of length 0 that can become the closest reference length.
        """
        if padding not in ("none", "empty"):
            raise LayoutError(f"unknown padding {padding!r}; valid: none, empty", what="padding")
        pad: str | None = None if padding == "none" else ""
        k = self.max_refs
        return [[seg[j] if j < len(seg) else pad for seg in self.references] for j in range(k)]
