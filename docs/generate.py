"""Rewrite the generated blocks of ``README.md`` and ``docs/*.md`` from the code.

A generated block sits between two markers, and its name says what renders it::

    <!-- generate:NAME:start -->
    ...
    <!-- generate:NAME:end -->

* ``profiles`` — the profile table, from the declarations in ``harness/bleu/profiles.py``
  (:data:`harness.bleu.profiles.DECLARED`: what each profile reproduces, its tokens, reference
  length and smoothing, and what it is proven against);
* ``proofs`` — how each profile is proven: status, oracle, agreement and the tests;
* ``pitfalls`` — the packaged pitfall catalogue: each experiment's name, claim and source;
* ``cli`` — every command's ``--help``, rendered from the argparse definitions in
  ``harness/cli/`` at :data:`COLUMNS` columns;
* ``example`` — README's worked example: ``bleu-harness compare`` run on the files it shows;
* ``depths`` — the test depths of ``docs/testing.md``, from ``tests/depth.py``.

The performance block of ``README.md`` (``<!-- bench-targets:start -->``) is written by
``benchmarks/bench_targets.py --readme`` from a benchmark run (``make bench``), not here.

Usage::

    .venv/bin/python docs/generate.py            # rewrite the blocks that changed
    .venv/bin/python docs/generate.py --check    # exit 1 naming the blocks that would change

``tests/test_docs.py`` calls :func:`drift` in process and fails when any block would change.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Terminal width the ``--help`` texts are rendered at.
COLUMNS = 100

_MARKER = re.compile(
    r"(?P<open><!-- generate:(?P<name>[\w-]+):start -->\n)(?P<body>.*?)"
    r"(?P<close><!-- generate:(?P=name):end -->)",
    re.S,
)
_ANY_MARKER = re.compile(r"<!-- generate:([\w-]+):(start|end) -->")


def documents(root: Path = REPO) -> list[Path]:
    """The documents that may hold generated blocks: ``README.md`` and ``docs/*.md``."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


# ---------------------------------------------------------------------- profiles
def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _tolerance(tol: float) -> str:
    """``1e-9`` for 1e-09, ``2.5e-5`` for 2.5e-05, ``1e-4`` for 0.0001."""
    mantissa, exponent = f"{tol:e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def _to_root(doc: Path) -> str:
    """The relative path from ``doc``'s folder to the repository root (``""`` or ``../``)."""
    depth = len(doc.resolve().parent.relative_to(REPO).parts)
    return "../" * depth


def render_profiles(doc: Path) -> str:
    """One row per declared profile: what it reproduces and what it is proven against. The
    README lists the profiles commands run by default and names the others, which
    ``docs/profiles.md`` lists in full."""
    from harness.bleu.profiles import DECLARED, DEFAULT_PROFILES

    readme = doc.resolve() == (REPO / "README.md").resolve()
    shown = [p for p in DECLARED if p.name in DEFAULT_PROFILES] if readme else list(DECLARED)
    rows = [
        "| profile | releases | reproduces | tokens | ref length | smoothing / zero handling "
        "| proven against |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in shown:
        v = p.verification
        proof = v.oracle if v.verified else f"unverified: {v.evidence}"
        if v.verified and v.tolerance != 1e-9:
            proof += f" (within {_tolerance(v.tolerance)})"
        cells = [
            f"`{p.name}`",
            p.releases or "—",
            p.reproduces,
            p.tokens,
            p.ref_length,
            p.smoothing,
            proof,
        ]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    rest: dict[str, list[str]] = {}
    for p in DECLARED:
        if p not in shown:
            group = "older releases" if p.versioned else p.field
            rest.setdefault(group, []).append(f"`{p.name}`")
    if rest:
        fields = "; ".join(f"{field}: {', '.join(names)}" for field, names in rest.items())
        rows.append("")
        rows.append(
            f"The profiles of other fields and of older releases ({fields}) are in "
            "[docs/profiles.md](docs/profiles.md); `compare` and `report` run them when named "
            "(`--impl profile:NAME`)."
        )
    return "\n".join(rows) + "\n"


def render_proofs(doc: Path) -> str:
    """How each profile is proven: status, what runs as the oracle, agreement, the tests."""
    from harness.bleu.profiles import DECLARED

    up = _to_root(doc)
    rows = [
        "| profile | status | run against | agreement (BLEU points) | tests |",
        "|---|---|---|---|---|",
    ]
    for p in DECLARED:
        v = p.verification
        tests = f"[`{v.evidence}`]({up}{v.evidence})" if v.verified else v.evidence
        agree = _tolerance(v.tolerance) if v.verified else "—"
        cells = [f"`{p.name}`", v.status, v.oracle or "—", agree, tests]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------- pitfalls
def render_pitfalls(doc: Path) -> str:
    """The packaged pitfall catalogue: each experiment's name, claim and source (not run)."""
    from harness.pitfalls import ENV_EXPERIMENTS, discover

    own = os.environ.pop(ENV_EXPERIMENTS, None)  # the packaged catalogue, not a user's folder
    try:
        experiments = discover()
    finally:
        if own is not None:
            os.environ[ENV_EXPERIMENTS] = own
    rows = ["| experiment | claim | source |", "|---|---|---|"]
    for name, exp in experiments.items():
        rows.append(
            "| " + " | ".join(_cell(c) for c in (f"`{name}`", exp.claim, exp.source)) + " |"
        )
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------- CLI reference
_PY = f"{sys.version_info[0]}.{sys.version_info[1]}"
_PY_NOTE = re.compile(r"Python (\d+\.\d+)'s argparse")


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help to ``$COLUMNS``: fix it while rendering."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def render_cli(doc: Path) -> str:
    """``bleu-harness --help``, then every command's ``--help``, in the registry's order."""
    from harness.cli.app import COMMANDS, build_parser

    out = [
        f"Rendered by `docs/generate.py` from the argparse definitions in `harness/cli/` "
        f"(Python {_PY}'s argparse, {COLUMNS} columns).",
        "",
    ]
    with _columns(COLUMNS):
        top = build_parser()
        out += ["```text", top.format_help().rstrip(), "```", ""]
        for name, sub in _subparsers(top).items():
            out += [f"### `bleu-harness {name}`", "", f"{COMMANDS[name].help}.", ""]
            out += ["```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out).rstrip() + "\n"


def _cli_skip(old: str) -> str | None:
    """argparse's layout differs between Python versions: compare only under the one that
    rendered the block."""
    m = _PY_NOTE.search(old)
    if m and m.group(1) != _PY:
        return f"rendered by Python {m.group(1)}'s argparse; this is Python {_PY}"
    return None


# ---------------------------------------------------------------------- worked example
#: The worked example's input files (one segment a line) and the command run on them.
EXAMPLE_FILES = {
    "hyp.txt": ["the cat is on the mat", "there is a dog in the garden", "he reads a book"],
    "system.txt": ["a cat on mat", "dog garden", "he book"],
    "ref1.txt": ["the cat sat on the mat", "a dog is in the garden", "he is reading a book"],
    "ref2.txt": ["there is a cat on the mat", "the dog is in the garden", "he reads the book"],
}
EXAMPLE_COMMAND = "bleu-harness compare hyp.txt system.txt --refs ref1.txt ref2.txt"
#: The last line of ``compare``'s screen gives its run time, which no document can keep.
_TIMING = re.compile(r"^\d+ rows in [\d.]+ s.*$", re.M)


def _run_cli(argv: Sequence[str], cwd: Path) -> str:
    """``bleu-harness ARGV``'s standard output, run in process in ``cwd``."""
    from harness.cli.app import main

    here = Path.cwd()
    buf = io.StringIO()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(buf):
            code = main(list(argv))
    finally:
        os.chdir(here)
    if code != 0:
        raise RuntimeError(f"`bleu-harness {' '.join(argv)}` exited {code}: {buf.getvalue()}")
    return buf.getvalue()


def render_example(doc: Path) -> str:
    """The files, the command and what it printed (its run time left out)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, lines in EXAMPLE_FILES.items():
            (Path(tmp) / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv = [*EXAMPLE_COMMAND.split()[1:], "--no-cache", "--quiet"]
        printed = _TIMING.sub("", _run_cli(argv, Path(tmp))).rstrip()
    width = max(len(n) for n in EXAMPLE_FILES) + 2
    files = []
    for name, lines in EXAMPLE_FILES.items():
        files += [f"{name if k == 0 else '':<{width}}{line}" for k, line in enumerate(lines)]
    return "\n".join(
        [
            "Two systems' outputs and two references, one segment a line:",
            "",
            "```text",
            *files,
            "```",
            "",
            "```sh",
            EXAMPLE_COMMAND,
            "```",
            "",
            "prints (`docs/generate.py` ran it; only the run time is left out):",
            "",
            "```text",
            printed,
            "```",
            "",
        ]
    )


#: The three test commands: the depth each runs at and what it runs.
_DEPTH_COMMANDS = (
    (
        "make check",
        "check",
        "ruff, mypy, and the tests marked neither `oracle`, `realdata`, `browser` nor `slow`",
    ),
    (
        "make test",
        "default",
        "ruff, mypy, the doctests of `harness/` and every test: the Perl scripts, the Hub "
        "module, the published framework files, keras-hub in `.venv-tf`, the browser test, "
        "the notebooks, the real data",
    ),
    (
        "make test-full",
        "full",
        "the same, at full depth; the WMT21 `compare`/`report` rows of the documents run on "
        "every segment",
    ),
)


def render_depths(doc: Path) -> str:
    """The test commands with the share of each property's examples they run."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.depth import ENV_VAR, FACTORS, FLOORS

    lines = ["| command | what runs | examples per property |", "|---|---|---|"]
    for command, level, what in _DEPTH_COMMANDS:
        factor = FACTORS[level]
        share = (
            "the written count"
            if factor == 1.0
            else f"{factor:.0%} of the written count, at least {FLOORS[level]}"
        )
        lines.append(f"| `{command}` | {what} | {share} (`{ENV_VAR}={level}`) |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- the blocks
@dataclass(frozen=True)
class Generator:
    """What renders a block (given the document it sits in), and when not to compare it."""

    render: Callable[[Path], str]
    skip: Callable[[str], str | None] = lambda old: None


#: Block name → its generator.
GENERATORS: dict[str, Generator] = {
    "profiles": Generator(render_profiles),
    "proofs": Generator(render_proofs),
    "pitfalls": Generator(render_pitfalls),
    "cli": Generator(render_cli, _cli_skip),
    "example": Generator(render_example),
    "depths": Generator(render_depths),
}


@dataclass(frozen=True)
class Outcome:
    """The blocks of one document: its new text, the blocks that changed, notes on skips."""

    text: str
    changed: list[str]
    skipped: list[str]


def _check_markers(text: str, doc: Path) -> None:
    """Every marker is paired and names a known generator."""
    paired = {m.start("open") for m in _MARKER.finditer(text)}
    paired |= {m.start("close") for m in _MARKER.finditer(text)}
    for m in _ANY_MARKER.finditer(text):
        if m.group(1) not in GENERATORS:
            raise SystemExit(f"{doc.name}: unknown generated block {m.group(1)!r}")
        if m.start() not in paired:
            raise SystemExit(f"{doc.name}: unpaired marker {m.group(0)}")


def update(
    text: str, doc: Path, only: Sequence[str] | None = None, exclude: Sequence[str] = ()
) -> Outcome:
    """``text`` with its generated blocks rendered afresh (those named in ``only``, if given,
    less those in ``exclude``)."""
    _check_markers(text, doc)
    changed: list[str] = []
    skipped: list[str] = []

    def one(m: re.Match[str]) -> str:
        name, old = m.group("name"), m.group("body")
        if (only is not None and name not in only) or name in exclude:
            return m.group(0)
        gen = GENERATORS[name]
        why = gen.skip(old)
        if why:
            skipped.append(f"{name} ({why})")
            return m.group(0)
        new = gen.render(doc)
        if new != old:
            changed.append(name)
        return m.group("open") + new + m.group("close")

    return Outcome(_MARKER.sub(one, text), changed, skipped)


def drift(
    only: Sequence[str] | None = None, exclude: Sequence[str] = (), root: Path = REPO
) -> tuple[list[str], list[str]]:
    """``(changed, skipped)``: ``"DOC: NAME"`` of every block a rewrite would change, and of
    those not compared (with why)."""
    changed: list[str] = []
    skipped: list[str] = []
    for doc in documents(root):
        out = update(doc.read_text(encoding="utf-8"), doc, only, exclude)
        rel = doc.relative_to(root).as_posix()
        changed += [f"{rel}: {n}" for n in out.changed]
        skipped += [f"{rel}: {n}" for n in out.skipped]
    return changed, skipped


def rewrite(root: Path = REPO) -> list[str]:
    """Rewrite every document whose blocks changed; ``"DOC: NAME"`` of the changed blocks."""
    done: list[str] = []
    for doc in documents(root):
        text = doc.read_text(encoding="utf-8")
        out = update(text, doc)
        if out.text != text:
            doc.write_text(out.text, encoding="utf-8")
        rel = doc.relative_to(root).as_posix()
        done += [f"{rel}: {n}" for n in out.changed]
        for note in out.skipped:
            print(f"not rewritten: {rel}: {note}", file=sys.stderr)
    return done


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Rewrite the generated blocks of the documents.")
    ap.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming the blocks that differ"
    )
    args = ap.parse_args(argv)
    if args.check:
        changed, skipped = drift()
        for note in skipped:
            print(f"not compared: {note}", file=sys.stderr)
        for name in changed:
            print(f"out of date: {name}")
        if changed:
            print("run: .venv/bin/python docs/generate.py", file=sys.stderr)
        return 1 if changed else 0
    for name in rewrite():
        print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
