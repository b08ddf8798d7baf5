"""Oracles from published packages that do not install here: their own files, run as published.

Some implementations live in packages too heavy or too old to install with the harness
(lm-evaluation-harness, tensor2tensor, crfm-helm, ParlAI, fairseq). Their BLEU is still proven
against their own code: :func:`published_file` downloads the package's wheel (or sdist) from the
package index once into ``~/.cache/bleu-harness/wheels`` (never committed) and reads one file
out of it; :func:`load_definitions` runs the named top-level definitions of that file — the
published functions themselves, not a copy — in a namespace that provides the module-level
imports they use, so that a file whose *other* code imports a framework (tensorflow, torch) can
still be run.

A download that fails skips the test, or fails it when ``CI=true``.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from harness.scorers.releases import unpacked_wheel

WHEEL_DIR = Path.home() / ".cache" / "bleu-harness" / "wheels"


def unavailable(what: str, reason: str) -> None:
    """Skip (or fail under ``CI=true``) because ``what`` cannot be run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {what} cannot run: {reason}", pytrace=False)
    pytest.skip(f"{what} unavailable: {reason}")


def _archives(name: str, version: str) -> list[Path]:
    stems = {name.replace("-", "_").lower(), name.lower()}
    # exactly this version: "nltk-3.2" is not "nltk-3.2.5.tar.gz"
    exact = [re.compile(rf"{re.escape(stem)}-{re.escape(version)}(-|\.[a-z])") for stem in stems]
    found = [
        p
        for p in WHEEL_DIR.glob("*")
        if p.is_file()
        and any(x.match(p.name.lower()) for x in exact)
        and p.name.endswith((".whl", ".tar.gz", ".zip"))
    ]
    return sorted(found, key=lambda p: (not p.name.endswith(".whl"), p.name))


def published_archive(name: str, version: str) -> Path:
    """The wheel (preferred) or sdist of ``name==version``, downloaded once without its
    dependencies."""
    found = _archives(name, version)
    if found:
        return found[0]
    WHEEL_DIR.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
            "-q",
            f"{name}=={version}",
            "-d",
            str(WHEEL_DIR),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    found = _archives(name, version)
    if proc.returncode != 0 or not found:
        unavailable(
            f"{name}=={version}", f"pip download failed: {proc.stderr.strip()[-300:] or 'no file'}"
        )
    return found[0]


def published_file(name: str, version: str, member: str) -> str:
    """The text of ``member`` (a path inside the package, e.g. ``lm_eval/api/metrics.py``;
    in an sdist the leading ``<name>-<version>/`` folder is added) of ``name==version``."""
    archive = published_archive(name, version)
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
            hit = next((n for n in names if n == member or n.endswith("/" + member)), None)
            if hit is None:
                unavailable(f"{name}=={version}", f"{member} is not in {archive.name}")
            return zf.read(hit).decode("utf-8")
    with tarfile.open(archive) as tf:
        hit = next((m for m in tf.getmembers() if m.name.endswith("/" + member)), None)
        if hit is None:
            unavailable(f"{name}=={version}", f"{member} is not in {archive.name}")
        handle = tf.extractfile(hit)
        assert handle is not None
        return handle.read().decode("utf-8")


def published_tree(name: str, version: str) -> Path:
    """The wheel of ``name==version`` unpacked once beside it (the folder to put on
    ``sys.path`` for a package whose own imports can run here)."""
    archive = published_archive(name, version)
    if not archive.name.endswith(".whl"):
        unavailable(f"{name}=={version}", f"{archive.name} is not a wheel")
    return unpacked_wheel(archive)


def load_definitions(
    source: str,
    names: Iterable[str],
    *,
    imports: str = "",
    namespace: Mapping[str, Any] | None = None,
    filename: str = "<published>",
) -> dict[str, Any]:
    """Run the top-level definitions ``names`` (functions, classes, assignments of those
    names) of ``source`` after ``imports`` (the module-level imports they need), and return
    the namespace. The definitions are the published text, compiled with their own line
    numbers, so a traceback points into the published file."""
    wanted = set(names)
    tree = ast.parse(source, filename=filename)
    keep: list[ast.stmt] = []
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found = {node.name}
        elif isinstance(node, ast.Assign):
            found = {t.id for t in node.targets if isinstance(t, ast.Name)}
        else:
            continue
        if found & wanted:
            keep.append(node)
            defined |= found
    missing = wanted - defined
    if missing:
        raise LookupError(f"{filename} defines no {', '.join(sorted(missing))}")
    env: dict[str, Any] = dict(namespace or {})
    exec(compile(imports, f"{filename} (imports)", "exec"), env)
    exec(compile(ast.Module(body=keep, type_ignores=[]), filename, "exec"), env)
    return env


def load_methods(
    source: str,
    class_name: str,
    names: Iterable[str],
    *,
    imports: str = "",
    namespace: Mapping[str, Any] | None = None,
    filename: str = "<published>",
) -> dict[str, Any]:
    """The methods ``names`` of the top-level class ``class_name`` of ``source``, compiled from
    the published text (with their decorators and line numbers) as plain functions, to be put
    in a class of the test's own: how a method is run whose class derives from a framework
    that is not installed. Methods that call zero-argument ``super()`` cannot be run this way."""
    wanted = set(names)
    tree = ast.parse(source, filename=filename)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if cls is None:
        raise LookupError(f"{filename} defines no class {class_name}")
    keep = [
        node
        for node in cls.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in wanted
    ]
    missing = wanted - {node.name for node in keep}
    if missing:
        raise LookupError(f"{filename} {class_name} defines no {', '.join(sorted(missing))}")
    env: dict[str, Any] = dict(namespace or {})
    exec(compile(imports, f"{filename} (imports)", "exec"), env)
    exec(compile(ast.Module(body=list(keep), type_ignores=[]), filename, "exec"), env)
    return {name: env[name] for name in wanted}
