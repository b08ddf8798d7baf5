"""The compiled kernels of the statistics fast path, when they are built, and why not if not.

``harness/bleu/_native.c`` (built by ``pip install`` through ``setup.py``) gives
:mod:`harness.bleu.fastcount` two kernels: word ids without a str object per known word
(``WordTable``) and exact per-segment n-gram clipping in a hash table compared token by token
(``count_segments``). Without them — no C compiler at install time, or
``BLEU_HARNESS_NATIVE=0`` — the numpy path counts instead. Both give the same statistics
(``tests/test_native.py`` runs them side by side on generated corpora), so a score never
depends on which ran; :func:`status` says which did and why, and the benchmarks print it.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["ENV", "module", "status"]

#: Set to ``0`` to count with the numpy path although the extension is built.
ENV = "BLEU_HARNESS_NATIVE"

_module: ModuleType | None
try:
    from harness.bleu import _native as _module  # type: ignore[attr-defined,no-redef]

    _missing = ""
except ImportError as exc:  # not built (no compiler when installed) or built for another Python
    _module = None
    _missing = (
        f"the extension harness.bleu._native is not built ({exc}); "
        "reinstall with a C compiler and the Python headers: pip install -e ."
    )


def module() -> ModuleType | None:
    """The compiled kernels, or None when they are missing or switched off by ``ENV``."""
    if os.environ.get(ENV, "") == "0":
        return None
    return _module


def status() -> str:
    """``"native"`` or ``"numpy (<why>)"``: which kernels count statistics in this process."""
    if _module is None:
        return f"numpy ({_missing})"
    if os.environ.get(ENV, "") == "0":
        return f"numpy ({ENV}=0)"
    return "native"
