"""What a BLEU tool printed, read as evidence: :func:`read_printed` → :class:`PrintedLine`.

A paper or a log rarely shows a bare number. sacrebleu prints its precisions, brevity
penalty and both lengths beside the score (and its signature says how it was computed);
multi-bleu.perl prints the same numbers in its own punctuation; Hugging Face ``evaluate`` and
nltk-based scripts print a dict of them on 0–1. Each number narrows the search far more than
the score does: ``ref_len`` alone depends on the tokenizer and the test set. Every number is
kept as printed, so that its digits are its precision (``0.990`` stands for [0.9895,
0.9905)); a number printed with ten or more significant digits (a Python float's ``repr``)
stands for itself within the harness's agreement of 1e-9.

Forms read (``form``): ``sacrebleu`` (2.x text line, with or without its signature, and the
1.x ``BLEU+case.mixed+…`` line), ``sacrebleu JSON``, ``multi-bleu.perl`` (and
multi-bleu-detok.perl, which prints the same line), ``mteval-v13a`` (``BLEU score = 0.2620``),
``dict`` (``evaluate``'s ``bleu``/``precisions``/``brevity_penalty``/… keys, as JSON or as a
Python ``repr``), ``torchmetrics`` (``tensor(0.2620)``), ``lm-eval table`` (a row of
lm-evaluation-harness's results table whose metric is ``bleu``; ``lm-eval table (bleu_max)``
for TruthfulQA's), ``number``, and a sacrebleu signature alone (``sacrebleu signature``: its
``score`` is empty; there is no number to search, only the configuration it names). ``identify`` reads
what a user pastes with it, and the command scorer (:func:`harness.scorers.command.parse_output`)
what a program prints.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.errors import ConfigError

__all__ = [
    "SIGNATURE",
    "PrintedLine",
    "agrees",
    "decode_signature",
    "read_printed",
    "shows",
    "signature_version",
]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
#: A printed number with at least this many significant digits is a float's repr: it stands
#: for itself within :data:`EXACT`, not for an interval of its last digit.
REPR_DIGITS = 10
#: Relative agreement asked of a number printed at full float precision.
EXACT = 1e-9


@dataclass(frozen=True)
class PrintedLine:
    """The numbers of one printed BLEU result, each as printed.

    ``score`` on ``scale`` (``"0-100"``, ``"0-1"``, or ``None`` when a bare number does not
    say); ``precisions`` on ``precision_scale``; ``bp``, ``ratio``, ``hyp_len`` and
    ``ref_len`` when printed. ``signature`` is sacrebleu's, and ``settings`` the
    :class:`~harness.bleu.config.BleuConfig` fields it pins (:func:`decode_signature`);
    ``nrefs`` the number of references it names.
    """

    text: str
    form: str
    score: str
    scale: str | None = None
    precisions: tuple[str, ...] = ()
    precision_scale: str = "0-100"
    bp: str | None = None
    ratio: str | None = None
    hyp_len: str | None = None
    ref_len: str | None = None
    signature: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    nrefs: int | None = None

    @property
    def details(self) -> dict[str, str]:
        """The printed numbers besides the score, by name (``precision_1``…, ``bp``,
        ``ratio``, ``hyp_len``, ``ref_len``)."""
        out = {f"precision_{i}": p for i, p in enumerate(self.precisions, 1)}
        for name in ("bp", "ratio", "hyp_len", "ref_len"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def describe(self) -> str:
        """One line: what was read, every number as printed."""
        parts = [f"score {self.score}" + (f" ({self.scale})" if self.scale else "")]
        if self.precisions:
            parts.append(f"precisions {'/'.join(self.precisions)} ({self.precision_scale})")
        parts += [f"{k} {v}" for k, v in self.details.items() if not k.startswith("precision")]
        if self.signature:
            parts.append(f"signature {self.signature}")
        return f"Read as {self.form} output: " + ", ".join(parts) + "."


# ---------------------------------------------------------------------- signatures
_SACREBLEU_TOKENIZERS = {"13a", "intl", "char", "zh", "none", "ja-mecab", "ko-mecab"}
_SMOOTHS = {"exp", "floor", "add-k", "none"}


def _signature_fields(signature: str) -> dict[str, str]:
    """A 2.x (``key:value|…``) or 1.x (``BLEU+key.value+…``) signature's fields, by key."""
    sep, kv = ("|", ":") if "|" in signature or ":" in signature else ("+", ".")
    fields: dict[str, str] = {}
    for part in signature.split(sep):
        key, found, value = part.strip().partition(kv)
        if found:
            fields[key.strip().lower()] = value.strip()
    return fields


def signature_version(signature: str) -> str | None:
    """The sacrebleu release a signature names (``version:2.4.0``, ``version.1.4.14``)."""
    version = _signature_fields(signature).get("version")
    return version if version and version[0].isdigit() else None


def decode_signature(signature: str) -> tuple[dict[str, Any], int | None]:
    """The :class:`~harness.bleu.config.BleuConfig` fields a sacrebleu signature pins, and
    its number of references.

    Reads 2.x (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.0``) and 1.x
    (``BLEU+case.mixed+numrefs.1+smooth.exp+tok.13a+version.1.4.14``) signatures. A tokenizer
    the harness does not implement (``spm``, ``flores101``) is an error that names it.
    """
    fields = _signature_fields(signature)
    settings: dict[str, Any] = {}
    case = fields.get("case") or fields.get("c")
    if case is not None:
        settings["lowercase"] = case.lower() in ("lc", "lower")
    tok = fields.get("tok")
    if tok is not None:
        if tok not in _SACREBLEU_TOKENIZERS:
            raise ConfigError(
                f"the signature's tokenizer tok:{tok} is not one the harness implements",
                valid=sorted(_SACREBLEU_TOKENIZERS),
            )
        settings["tokenize"] = tok
    smooth = fields.get("smooth") or fields.get("s")
    if smooth is not None:
        # 2.x prints its value beside the name (floor[0.10], add-k[1]); the name is pinned
        name = re.match(r"[a-z]+(?:-k)?", smooth.lower())
        if name and name.group(0) in _SMOOTHS:
            settings["smooth"] = name.group(0)
    eff = fields.get("eff")
    if eff is not None:
        settings["effective_order"] = eff.lower() in ("yes", "y", "true")
    nrefs = fields.get("nrefs") or fields.get("numrefs")
    n = int(nrefs) if nrefs is not None and nrefs.isdigit() else None
    return settings, n


# ---------------------------------------------------------------------- reading
_LINE_TAIL = (
    ("bp", rf"\bBP\s*=\s*({_NUM})"),
    ("ratio", rf"\bratio\s*=\s*({_NUM})"),
    ("hyp_len", r"\bhyp_len\s*=\s*(\d+)"),
    ("ref_len", r"\bref_len\s*=\s*(\d+)"),
)


def _line(text: str, form: str, score: str, head: str | None, rest: str) -> PrintedLine:
    """A sacrebleu or multi-bleu text line's numbers after the score."""
    numbers: dict[str, Any] = {}
    pm = re.match(rf"\s*,?\s*({_NUM}(?:/{_NUM})+)", rest)
    if pm:
        numbers["precisions"] = tuple(pm.group(1).split("/"))
    for key, pattern in _LINE_TAIL:
        km = re.search(pattern, rest)
        if km:
            numbers[key] = km.group(1)
    settings: dict[str, Any] = {}
    nrefs = None
    if head:
        settings, nrefs = decode_signature(head)
    return PrintedLine(
        text,
        form,
        score,
        "0-100",
        signature=head or None,
        settings=settings,
        nrefs=nrefs,
        **numbers,
    )


def _number_text(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return repr(value) if isinstance(value, float) else str(value)


def _from_mapping(text: str, data: dict[str, Any], raw: str) -> PrintedLine | None:
    """A sacrebleu JSON object or an ``evaluate``-style dict."""
    if isinstance(data.get("score"), int | float) and not isinstance(data["score"], bool):
        # sacrebleu's JSON: the score on 0-100 as printed, its text line in verbose_score
        jm = re.search(rf'"score"\s*:\s*({_NUM})', raw)
        score = jm.group(1) if jm else repr(float(data["score"]))
        signature = data.get("signature")
        rest = data.get("verbose_score")
        return _line(
            text,
            "sacrebleu JSON",
            score,
            signature if isinstance(signature, str) else None,
            rest if isinstance(rest, str) else "",
        )
    bleu = _number_text(data.get("bleu"))
    if bleu is None:
        return None
    precisions = data.get("precisions")
    return PrintedLine(
        text,
        "dict",
        bleu,
        "0-1",
        precisions=tuple(t for p in precisions if (t := _number_text(p)) is not None)
        if isinstance(precisions, list | tuple)
        else (),
        precision_scale="0-1",
        bp=_number_text(data.get("brevity_penalty")),
        ratio=_number_text(data.get("length_ratio")),
        hyp_len=_number_text(data.get("translation_length")),
        ref_len=_number_text(data.get("reference_length")),
    )


def _mapping(raw: str) -> dict[str, Any] | None:
    cleaned = re.sub(rf"\b(?:np\.)?float(?:16|32|64)\(({_NUM})\)", r"\1", raw)
    cleaned = re.sub(rf"\btensor\(({_NUM})\)", r"\1", cleaned)
    for load in (json.loads, ast.literal_eval):
        try:
            data = load(cleaned)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(data, dict):
            return {str(k): v for k, v in data.items()}
    return None


#: lm-evaluation-harness's result-table metrics that are a BLEU score on 0-100 (``bleu`` of its
#: translation tasks; TruthfulQA's ``bleu_max``); ``bleu_acc`` and ``bleu_diff`` are not.
_LMEVAL_METRICS = {"bleu": "lm-eval table", "bleu_max": "lm-eval table (bleu_max)"}


def _lmeval_row(raw: str) -> PrintedLine | None:
    """A row of lm-eval's Markdown results table (``|wmt16-de-en|1|none|0|bleu|↑|27.1234|±|
    0.6789|``; older versions have no filter, shot or arrow cells): the value after the
    metric cell, as printed (lm-eval prints ``%.4f``). The header and separator rows may be
    pasted with it; two BLEU rows are ambiguous and refused."""
    rows = []
    for row in raw.splitlines():
        if row.count("|") < 3:
            continue
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        for i, cell in enumerate(cells):
            if cell in _LMEVAL_METRICS:
                value = next((c for c in cells[i + 1 :] if re.fullmatch(_NUM, c)), None)
                if value is not None:
                    rows.append((_LMEVAL_METRICS[cell], value))
                break
    if len(rows) > 1:
        raise ConfigError(
            f"the pasted table has {len(rows)} BLEU rows; paste the one row to identify"
        )
    if not rows:
        return None
    form, value = rows[0]
    return PrintedLine(raw, form, value, "0-100")


#: The form of a sacrebleu signature printed without a score: no number to search, only the
#: configuration it names (:func:`harness.diagnose.identify.signature_reading`).
SIGNATURE = "sacrebleu signature"
_SIGNATURE = re.compile(
    r"(?:BLEU\|)?nrefs:[^|=\s]+(?:\|[a-z]+:[^|=\s]+)+|BLEU(?:\+[a-z]+\.[^+=\s]+)+",
    re.IGNORECASE,
)


def _is_signature(raw: str) -> bool:
    """Whether ``raw`` is a sacrebleu signature alone (2.x or 1.x), with no score."""
    return bool(_SIGNATURE.fullmatch(raw))


def read_printed(text: str) -> PrintedLine:
    """Read a BLEU result as printed (see the module docstring for the forms); raise
    :class:`~harness.errors.ConfigError` naming the forms when none is recognised."""
    raw = text.strip()
    if not raw:
        raise ConfigError("nothing printed to read: the text is empty")
    if raw.startswith("{"):
        data = _mapping(raw)
        if data is not None:
            found = _from_mapping(raw, data, raw)
            if found is not None:
                return found
    if _is_signature(raw):
        settings, nrefs = decode_signature(raw)
        return PrintedLine(raw, SIGNATURE, "", None, signature=raw, settings=settings, nrefs=nrefs)
    row = _lmeval_row(raw) if re.search(r"^\s*\|", raw, re.MULTILINE) else None
    if row is not None:
        return row
    m = re.search(rf"\bBLEU((?:[|+][^=\s]*)?)\s*=\s*({_NUM})(,?)", raw)
    if m:
        head = m.group(1).lstrip("|+") or None
        form = "multi-bleu.perl" if m.group(3) else "sacrebleu"
        return _line(raw, form, m.group(2), head, raw[m.end() :])
    m = re.search(rf"\bBLEU score\s*=\s*({_NUM})", raw)
    if m:
        return PrintedLine(raw, "mteval-v13a", m.group(1), "0-1")
    m = re.fullmatch(rf"tensor\(({_NUM})\)", raw)
    if m:
        return PrintedLine(raw, "torchmetrics", m.group(1), "0-1")
    if re.fullmatch(_NUM, raw):
        return PrintedLine(raw, "number", raw, None)
    try:
        value = float(raw)
    except ValueError:
        pass
    else:  # nan, inf: a float, but no score
        if not math.isfinite(value):
            raise ConfigError(f"{raw!r} is not a finite number: a printed score is one")
    raise ConfigError(
        f"cannot read a BLEU result from {raw[:80]!r}: it is not a number, nor sacrebleu's "
        "line or JSON, multi-bleu.perl's line, mteval-v13a's 'BLEU score = ...', a dict with "
        "a 'bleu' key (evaluate, nltk scripts), torchmetrics' tensor(...) or a row of "
        "lm-eval's results table with a bleu or bleu_max metric"
    )


# ---------------------------------------------------------------------- agreement
def _digits(text: str) -> int:
    return len(Decimal(text).as_tuple().digits)


def shows(value: float, printed: str) -> bool:
    """``value`` displays as ``printed``: inside half a unit of its last digit (both ends
    kept: which way a tool rounds a tie is not known), or within :data:`EXACT` when it is
    printed at full float precision."""
    target = Decimal(printed)
    if _digits(printed) >= REPR_DIGITS:
        return abs(value - float(target)) <= EXACT * max(1.0, abs(float(target)))
    exponent = target.as_tuple().exponent
    half = Decimal(1).scaleb(exponent) / 2 if isinstance(exponent, int) else Decimal(0)
    return float(target - half) - 1e-12 <= value <= float(target + half) + 1e-12


def agrees(line: PrintedLine, result: Any) -> list[str]:
    """The printed numbers besides the score that ``result`` (a
    :class:`~harness.bleu.result.BleuResult`: precisions on 0–100) does not reproduce, each
    as ``"ref_len 61842 (this reading: 60012)"``; empty when every one agrees."""
    wrong: list[str] = []
    factor = 0.01 if line.precision_scale == "0-1" else 1.0
    if line.precisions:
        mine = [p * factor for p in result.precisions]
        if len(mine) != len(line.precisions):
            wrong.append(f"{len(line.precisions)} precisions (this reading: {len(mine)})")
        else:
            for i, (v, p) in enumerate(zip(mine, line.precisions, strict=True), 1):
                if not shows(v, p):
                    wrong.append(f"precision {i} {p} (this reading: {v:.6g})")
    for name, value in (
        ("bp", result.bp),
        ("ratio", result.ratio),
        ("hyp_len", result.hyp_len),
        ("ref_len", result.ref_len),
    ):
        printed = getattr(line, name)
        if printed is not None and not shows(float(value), printed):
            wrong.append(f"{name} {printed} (this reading: {float(value):.6g})")
    return wrong


def pinned(line: PrintedLine, candidate: Any) -> list[str]:
    """The settings of the printed signature that ``candidate`` (a
    :class:`~harness.diagnose.candidates.Candidate`) has neither itself nor among the settings
    equivalent to its own on this corpus."""
    config = candidate.config
    wanted = {k: v for k, v in line.settings.items() if hasattr(config, k)}
    differ = [f"{k}={v}" for k, v in wanted.items() if getattr(config, k) != v]
    try:
        pinned_config = config.replace(**wanted)
    except ConfigError:  # e.g. smooth=exp pinned on a reading with a smooth_value: it differs
        return differ
    if candidate.covers(pinned_config, candidate.layout, candidate.preprocessing):
        return []
    return differ
