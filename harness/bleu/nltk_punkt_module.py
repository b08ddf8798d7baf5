"""nltk's own Punkt module, without the rest of nltk when nltk is not imported yet.

``import nltk.tokenize.punkt`` runs nltk's package ``__init__``, which imports every nltk
subpackage and, through them, scipy.stats, scikit-learn and pandas: more than a second of CPU
on a cold start, spent on modules Punkt never calls. Punkt's own file needs only a few of nltk's
modules (its security wrappers, ``probability``, ``tokenize.api`` and ``tokenize.util``).

:func:`punkt_module` is nltk's ``nltk/tokenize/punkt.py`` of the installed nltk, the same file
and code either way: the package's module when nltk is already imported, otherwise that file and
the nltk modules it imports loaded with the two packages above them (``nltk`` and
``nltk.tokenize``) as bare namespaces whose ``__init__`` is not run. Those bare packages and the
modules loaded beside them are taken out of ``sys.modules`` again under the import lock, so a
later ``import nltk`` imports the whole package as usual (its own fresh copy of each module).
"""

from __future__ import annotations

import _imp
import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from functools import cache
from pathlib import Path

__all__ = ["punkt_module"]

_PUNKT = "nltk.tokenize.punkt"


@cache
def punkt_module() -> types.ModuleType:
    """nltk's ``nltk.tokenize.punkt`` module (see the module docstring for how it is loaded).

    Raises ``ImportError`` when nltk is not installed."""
    if "nltk" in sys.modules:
        return importlib.import_module(_PUNKT)
    spec = importlib.util.find_spec("nltk")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'nltk'", name="nltk")
    root = Path(next(iter(spec.submodule_search_locations)))
    with _import_lock():
        if "nltk" in sys.modules:  # imported by another thread meanwhile
            return importlib.import_module(_PUNKT)
        before = set(sys.modules)
        sys.modules["nltk"] = _bare_package("nltk", root)
        sys.modules["nltk.tokenize"] = _bare_package("nltk.tokenize", root / "tokenize")
        try:
            return importlib.import_module(_PUNKT)
        finally:
            for name in set(sys.modules) - before:
                if name == "nltk" or name.startswith("nltk."):
                    del sys.modules[name]


def _bare_package(name: str, folder: Path) -> types.ModuleType:
    """A package ``name`` whose submodules are found in ``folder``, its ``__init__`` not run."""
    package = types.ModuleType(name)
    package.__path__ = [str(folder)]
    package.__package__ = name
    return package


@contextlib.contextmanager
def _import_lock() -> Iterator[None]:
    """Hold the interpreter's import lock (re-entrant in its own thread), so that no other
    thread imports nltk while the bare packages stand in ``sys.modules``."""
    _imp.acquire_lock()
    try:
        yield
    finally:
        _imp.release_lock()
