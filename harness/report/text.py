"""Text primitives every renderer shares: numbers for tables, Markdown cells and tables, and
the generic table form of JSON results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: What a table shows for a missing value.
NO_VALUE = "—"


def breakable(x: Any) -> str:
    """HTML-escaped text (``—`` for ``None``) with line-break opportunities after ``:``,
    ``-``, ``/`` and ``_``, so long implementation and corpus names wrap there instead of
    widening their column."""
    from html import escape

    out = escape("—" if x is None else str(x), quote=True)
    for ch in (":", "-", "/", "_"):
        out = out.replace(ch, ch + "<wbr>")
    return out


def fmt_number(value: float | None, digits: int = 4, *, sign: bool = False) -> str:
    """A number for a table: ``—`` for ``None``, scientific notation for tiny non-zeros.

    >>> fmt_number(21.0205), fmt_number(1e-76), fmt_number(0.5, sign=True), fmt_number(None)
    ('21.0205', '1.00e-76', '+0.5000', '—')
    """
    if value is None:
        return NO_VALUE
    if value != 0 and abs(value) < 0.5 * 10**-digits:
        return f"{value:+.2e}" if sign else f"{value:.2e}"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def fmt_share(share: float | None) -> str:
    """A share in ``[0, 1]`` as a percentage with one decimal (``—`` for ``None``)."""
    return NO_VALUE if share is None else f"{100 * share:.1f}%"


def escape_cell(text: Any) -> str:
    """``text`` safe inside a Markdown table cell: pipes escaped, newlines flattened."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def cell(text: Any) -> str:
    """A Markdown table cell: :func:`escape_cell`, with ``None`` as a dash."""
    if text is None:
        return NO_VALUE
    return escape_cell(text)


def table(head: Sequence[str], body: Sequence[Sequence[Any]], align: str = "") -> list[str]:
    """Lines of a Markdown table; ``align`` holds ``l``/``r`` per column (default: l, then r)."""
    spec = align or "l" + "r" * (len(head) - 1)
    rule = [{"l": "---", "c": ":---:"}.get(a, "---:") for a in spec]
    lines = ["| " + " | ".join(cell(h) for h in head) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in body]
    return lines


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _flat(x: Any) -> bool:
    """A dict whose values are scalars or short lists of scalars (e.g. an interval)."""
    return isinstance(x, Mapping) and all(
        _scalar(v) or (isinstance(v, list) and len(v) <= 4 and all(map(_scalar, v)))
        for v in x.values()
    )


def records_of(obj: Any) -> list[dict[str, Any]] | None:
    """Table rows from JSON results: a list of flat dicts, a dict of flat dicts (keys become a
    ``name`` column) or one flat dict; ``None`` for anything else."""
    if isinstance(obj, list) and obj and all(_flat(x) for x in obj):
        return [dict(x) for x in obj]
    if isinstance(obj, Mapping) and obj and all(_flat(v) for v in obj.values()):
        return [{"name": k, **v} for k, v in obj.items()]
    if _flat(obj) and obj:
        return [dict(obj)]
    return None


def fmt_value(value: Any) -> Any:
    """A JSON value for a table cell: numbers formatted, intervals as ``[lo, hi]`` (strings
    and ``None`` are left to :func:`cell`)."""
    if isinstance(value, float):
        return fmt_number(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(fmt_value(x)) for x in value) + "]"
    return value
