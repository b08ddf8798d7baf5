"""The documents cannot drift from the code.

* Every generated block of ``README.md`` and ``docs/*.md`` (the profile tables, the CLI
  reference, the pitfall catalogue, the README's worked example) is what ``docs/generate.py``
  renders now; run ``docs/generate.py`` to rewrite them.
* Every relative link of those documents points at a file that exists (and a ``#heading`` of a
  Markdown page at one of its headings).
* The README stays short, holds the performance block once, and fences every block as ``sh``,
  ``python`` or ``text``.
* Docstrings and comments in ``harness/`` name only repository files and modules that exist.

The commands and code blocks themselves are run by ``tests/test_readme_commands.py``.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
#: The README is an overview a newcomer reads in minutes; the rest belongs in docs/.
README_MAX_LINES = 200
#: What a fenced block of a document may be: commands, scripts, or output and trees.
FENCES = {"sh", "python", "text"}


def _generator() -> ModuleType:
    """``docs/generate.py``, imported by path (``docs`` is not a package)."""
    name = "bleu_harness_docs_generate"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _documents() -> list[Path]:
    docs: list[Path] = _generator().documents(REPO)
    return docs


# ---------------------------------------------------------------------- generated blocks
def test_generated_blocks_are_current() -> None:
    """The profile tables, CLI reference and pitfall catalogue equal what the code renders."""
    changed, _skipped = _generator().drift(exclude=["example"])
    assert not changed, (
        f"out of date: {changed}; run `.venv/bin/python docs/generate.py` and commit the result"
    )


def test_worked_example_is_current() -> None:
    """The README's worked example is what ``compare`` prints on the files it shows."""
    changed, _skipped = _generator().drift(only=["example"])
    assert not changed, (
        f"out of date: {changed}; run `.venv/bin/python docs/generate.py` and commit the result"
    )


def test_every_block_is_generated_somewhere() -> None:
    """Each generator has a block in some document, and the example is the README's."""
    gen = _generator()
    found: dict[str, list[str]] = {}
    for doc in _documents():
        for name in re.findall(r"<!-- generate:([\w-]+):start -->", doc.read_text("utf-8")):
            found.setdefault(name, []).append(doc.name)
    assert set(found) == set(gen.GENERATORS), found
    assert found["example"] == ["README.md"], found


def test_update_names_a_stale_block() -> None:
    """A block whose text differs is reported, and rendering it again changes nothing."""
    gen = _generator()
    stale = "# t\n\n<!-- generate:profiles:start -->\nstale\n<!-- generate:profiles:end -->\n"
    out = gen.update(stale, REPO / "README.md")
    assert out.changed == ["profiles"]
    assert "| `sacrebleu` |" in out.text
    assert gen.update(out.text, REPO / "README.md").changed == []


# ---------------------------------------------------------------------- the documents
_FENCE = re.compile(r"^```([^\n]*)\n.*?^```[ \t]*$", re.M | re.S)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """``text`` without its fenced blocks and inline code (links there are not links)."""
    text = _FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text("utf-8"))):
        slug = _slug(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


@pytest.mark.parametrize("doc", _documents(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(doc.read_text("utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        path = (doc.parent / path_part).resolve() if path_part else doc
        if not path.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target} (no such heading)")
    assert not broken, f"{doc.relative_to(REPO)}: broken links: {broken}"


@pytest.mark.parametrize("doc", _documents(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_fenced_blocks_say_what_they_hold(doc: Path) -> None:
    """Commands in ``sh``, scripts in ``python``, everything else in ``text``: a bare fence
    would hide commands from the test that runs them."""
    langs = [m.group(1).strip() for m in _FENCE.finditer(doc.read_text("utf-8"))]
    assert set(langs) <= FENCES, f"{doc.relative_to(REPO)}: fences {sorted(set(langs) - FENCES)}"


def _commands(doc: Path) -> Iterator[str]:
    """The ``bleu-harness`` commands of ``doc``'s ``sh`` blocks, as the command test reads them
    (comments dropped, ``;`` separating commands, ``[--flag]`` both without and with it)."""
    for m in _FENCE.finditer(doc.read_text("utf-8")):
        if m.group(1).strip() != "sh":
            continue
        for line in m.group(0).splitlines()[1:-1]:
            code = line.split("  #", 1)[0].split(" # ", 1)[0]
            for part in (p.strip() for p in code.split(";")):
                optional = re.search(r"\s\[(--[^\]]+)\]", part)
                variants = [part]
                if optional:
                    head, tail = part[: optional.start()], part[optional.end() :]
                    variants = [head + tail, f"{head} {optional.group(1)}{tail}"]
                yield from (v for v in variants if v.startswith("bleu-harness "))


def test_each_command_is_shown_once() -> None:
    """Every command of the documents runs as a test row in one folder: a command given twice
    would run twice (and a second ``--out DIR`` would find the first one's output)."""
    where: dict[str, list[str]] = {}
    for doc in _documents():
        for cmd in _commands(doc):
            where.setdefault(cmd, []).append(doc.relative_to(REPO).as_posix())
    twice = {cmd: docs for cmd, docs in where.items() if len(docs) > 1}
    assert not twice, f"commands shown more than once: {twice}"
    assert len(where) >= 18, sorted(where)  # the README's command list as of issue 10


def test_readme_is_short_with_one_performance_block() -> None:
    text = (REPO / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert text.count("<!-- bench-targets:start -->") == 1
    assert text.count("<!-- bench-targets:end -->") == 1
    for doc in _documents()[1:]:
        assert "bench-targets:start" not in doc.read_text("utf-8"), doc


# ---------------------------------------------------------------------- docstrings and comments
#: A repository-relative path: a top folder of the repository (or ``../shared``), then more.
_PATH = re.compile(
    r"(?<![\w./~-])((?:\.\./shared|harness|tests|benchmarks|experiments|notebooks|docs)"
    r"/[\w./*-]*[\w*/])"
)
#: A test or benchmark script named without its folder.
_SCRIPT = re.compile(r"(?<![\w./-])((?:test|bench)_\w+\.py)\b")
#: A module of the package, as Sphinx cross-references name it.
_MODULE = re.compile(r":mod:`~?(harness(?:\.\w+)+)`")
#: A measured duration, a speed-up or a date: numbers that belong in benchmarks/README.md, where
#: they are dated beside the machine, not in the code they would silently go stale in.
_TIMING = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)*\s?(?:s|ms|µs|us|min|minutes|seconds|hours)\b"
    r"|\d\s?[×x]\s(?:faster|slower)|\b20\d\d-\d\d-\d\d\b"
)


def _notes(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, text)`` of every comment and every bare string statement (docstrings)."""
    source = path.read_text("utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value


def _missing(text: str) -> Iterator[str]:
    for m in _PATH.finditer(text):
        rel = m.group(1).rstrip(".")
        if rel.startswith("../shared") and not SHARED.is_dir():
            continue  # the shared folder is beside a checkout, not in it
        if not (any(REPO.glob(rel)) if "*" in rel else (REPO / rel).exists()):
            yield rel
    for m in _SCRIPT.finditer(text):
        if not any((REPO / d / m.group(1)).exists() for d in ("tests", "benchmarks")):
            yield m.group(1)
    for m in _MODULE.finditer(text):
        base = REPO.joinpath(*m.group(1).split("."))
        if not (base.with_suffix(".py").exists() or (base / "__init__.py").exists()):
            yield f":mod:`{m.group(1)}`"


@functools.cache
def _package_notes() -> list[tuple[str, int, str]]:
    """``(file, line, text)`` of every comment and docstring of the package."""
    return [
        (path.relative_to(REPO).as_posix(), line, text)
        for path in sorted((REPO / "harness").rglob("*.py"))
        for line, text in _notes(path)
    ]


def test_docstrings_and_comments_name_existing_files() -> None:
    bad = [f"{f}:{line}: {name}" for f, line, text in _package_notes() for name in _missing(text)]
    listing = "\n".join(bad)
    assert not bad, f"docstrings or comments name files that do not exist:\n{listing}"


def test_no_timings_in_docstrings_or_comments() -> None:
    bad = [
        f"{f}:{line}: {m.group(0)!r}"
        for f, line, text in _package_notes()
        for m in _TIMING.finditer(text)
    ]
    listing = "\n".join(bad)
    assert not bad, f"timings in comments (they belong in benchmarks/README.md):\n{listing}"


@pytest.mark.parametrize(
    "text",
    ["took 2.1 s", "costs (~0.4 ms)", "0.25 instead of 8.8 µs", "3–6× slower", "2026-11-25"],
)
def test_the_timing_check_finds_a_timing(text: str) -> None:
    assert _TIMING.search(text)


def test_the_path_check_finds_a_missing_file() -> None:
    text = "``tests/test_no_such_file.py``, ``bench_nothing.py``, :mod:`harness.no_such_module`"
    assert list(_missing(text)) == [
        "tests/test_no_such_file.py",
        "bench_nothing.py",
        ":mod:`harness.no_such_module`",
    ]
    assert list(_missing("see ``tests/test_docs.py`` and :mod:`harness.bleu.profiles`")) == []
