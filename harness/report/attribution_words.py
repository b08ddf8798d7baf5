"""An attribution (:class:`~harness.analysis.attribution.Attribution`) in words: the
Markdown table of ``explain``'s factors."""

from __future__ import annotations

from typing import Any

from harness.analysis.attribution import Attribution

__all__ = ["attribution_markdown"]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x + 0.0:.1f}%"


def _show(x: Any) -> str:
    return "default" if x is None else str(x)


def attribution_markdown(found: Attribution, digits: int = 4) -> str:
    """A Markdown table of ``found``: factor, fields changed, BLEU points, share of the gap;
    the real library's residual, and the hybrids scored with ``on_zero_length=zero``."""
    where = f"segment {found.segment}" if found.segment is not None else "corpus"
    title = f"{found.corpus} ({where})" if found.corpus else where
    lines = [
        f"**{found.a}** → **{found.b}** on {title}: "
        f"{found.score_a:.{digits}f} → {found.score_b:.{digits}f} "
        f"(gap {found.gap:+.{digits}f} BLEU)",
        "",
        "| factor | change (a → b) | BLEU points | share of gap |",
        "| --- | --- | ---: | ---: |",
    ]
    for name, value in found.factors.items():
        change = "; ".join(
            f"{k}: {_show(x)} → {_show(y)}" for k, (x, y) in found.changes.get(name, {}).items()
        )
        lines.append(f"| {name} | {change} | {value:+.{digits}f} | {_pct(found.share(name))} |")
    lines.append(f"| **total** | | {found.explained:+.{digits}f} | {_pct(found.share_total)} |")
    if found.residual is not None:
        lines.append(
            f"| unexplained ({found.library} − engine) | | {found.residual:+.{digits}f} | "
            f"{_pct(None if found.gap == 0 else found.residual / found.gap)} |"
        )
    if found.substituted:
        lines += [
            "",
            "Hybrids scored with `on_zero_length=zero` because they would raise: "
            + ", ".join(f"`{s}`" for s in found.substituted),
        ]
    return "\n".join(lines) + "\n"
