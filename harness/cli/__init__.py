"""``bleu-harness``: the command line.

Subcommands, one module per group: ``score`` (one corpus from files: :mod:`.score`);
``compare`` (fixtures × implementations → a tidy table), ``fixtures`` (list/show the shipped
fixtures), ``profiles`` (every profile and its signature) and ``demo`` (what ``make demo``
runs): :mod:`.compare`; ``explain``, ``significance`` and ``human``: :mod:`.analysis`;
``report``: :mod:`.report`; ``pitfalls``: :mod:`.pitfalls`; ``validate`` and ``identify``:
:mod:`.diagnose`. Shared flags live in :mod:`.options`, the corpora and implementations they
name in :mod:`.inputs`; the parser and :func:`main` in :mod:`.app`. The commands print; every
Markdown table they print is rendered by :mod:`harness.report`.

Every error the harness raises deliberately ends the program with exit code 2 and a one-line
message that names the file, line or option.
"""

from __future__ import annotations

from harness.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
