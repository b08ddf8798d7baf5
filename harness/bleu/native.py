"""The compiled kernels of the statistics fast path, when they are built, and why not if not.

``harness/bleu/_native.c`` (built by ``pip install`` through ``setup.py``) gives
:mod:`harness.bleu.fastcount` its kernels: word ids without a str object per known word
(``WordTable``), a line's token ids gathered from its words' (``gather``), exact per-segment
n-gram clipping in a hash table compared token by token (``count_segments``), fairseq's
n-gram hashes line by line (``fnv_ngrams``, for :mod:`harness.bleu.hashed`), and the framing
of a corpus's content hash (``framing``). Without them — no C compiler at install time, or
``BLEU_HARNESS_NATIVE=0`` — the numpy path counts instead. Both give the same statistics
(``tests/test_native.py`` and ``tests/test_fastpath.py`` run them side by side on generated
corpora), so a score never depends on which ran; :func:`status` says which did and why, and
the first use of the missing kernels warns (:class:`KernelsMissing`), since an install hides
the compiler's failure.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from types import ModuleType

__all__ = ["ENV", "PATH_ENV", "KernelsMissing", "module", "status"]

#: Set to ``0`` to count with the numpy path although the extension is built.
ENV = "BLEU_HARNESS_NATIVE"
#: For tests: the path of a build of the extension to load instead of the installed one
#: (``make sanitize`` points it at a build with AddressSanitizer). A file that does not load
#: is an error, not a fallback, so that such a run never tests the numpy path unawares.
PATH_ENV = "BLEU_HARNESS_NATIVE_PATH"

_FIX = (
    "install a C compiler and the Python headers (Debian/Ubuntu: apt-get install gcc "
    "python3-dev), then reinstall: pip install -e ."
)


class KernelsMissing(UserWarning):
    """The compiled kernels are not built here: statistics are counted by the numpy path,
    which gives the same numbers more slowly."""


def _load(path: str) -> ModuleType:
    """The extension built at ``path``, registered as ``harness.bleu._native``."""
    name = "harness.bleu._native"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{PATH_ENV}={path}: not a loadable extension module")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    sys.modules[name] = loaded
    return loaded


_module: ModuleType | None
_missing = ""
if os.environ.get(PATH_ENV):
    _module = _load(os.environ[PATH_ENV])
else:
    try:
        from harness.bleu import _native as _module  # type: ignore[attr-defined,no-redef]
    except ImportError as exc:  # not built (no compiler when installed) or for another Python
        _module = None
        _missing = f"the extension harness.bleu._native is not built ({exc})"
_warned = False


def module() -> ModuleType | None:
    """The compiled kernels, or None when they are missing or switched off by ``ENV``.

    Missing kernels warn once per process (:class:`KernelsMissing`), with the fix."""
    global _warned
    if os.environ.get(ENV, "") == "0":
        return None
    if _module is None and not _warned:
        _warned = True
        warnings.warn(
            f"{_missing}: statistics are counted by the numpy path (the same numbers, "
            f"slower); to build it, {_FIX}",
            KernelsMissing,
            stacklevel=2,
        )
    return _module


def status() -> str:
    """``"native"`` or ``"numpy (<why>)"``: which kernels count statistics in this process."""
    if _module is None:
        return f"numpy ({_missing}; to build it, {_FIX})"
    if os.environ.get(ENV, "") == "0":
        return f"numpy ({ENV}=0)"
    return "native"
