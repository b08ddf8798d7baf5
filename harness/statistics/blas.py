"""One BLAS thread while the harness's arithmetic runs, so that its numbers do not depend on
how many cores the machine has.

OpenBLAS splits a long dot product or matrix-vector product between its threads and adds
their partial sums, and floating-point addition is not associative: the last bits of a
Pearson r, a bootstrap bound or a resampled mean then depend on how many threads it runs (one
per core unless ``OPENBLAS_NUM_THREADS`` says otherwise). A report written on a laptop, on a
large server and by the test suite (which runs with one thread) would differ. Every function
of the harness that calls BLAS (``@`` on floats, ``np.dot``, scipy's ``pearsonr``) is wrapped
in :func:`single_blas_thread` (``tests/test_architecture.py`` finds them), so its numbers are
those of one thread everywhere; the caller's own setting is restored when it returns.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from harness.holds import Hold

__all__ = ["one_blas_thread", "single_blas_thread"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: How to give back what each limit changed, latest last.
_restores: list[Callable[[], None]] = []
#: Whether scipy's own BLAS was loaded when the limits in force were set.
_limited_scipy = False
_controllers: dict[bool, Any] = {}


def _scipy_loaded() -> bool:
    """scipy ships a BLAS of its own, loaded with :mod:`scipy.linalg` (numpy's is loaded with
    numpy, which this module imports through the callers it serves)."""
    return "scipy.linalg" in sys.modules


def _limit() -> None:
    """Limit every BLAS loaded now to one thread (the controller that finds them is kept per
    set of loaded libraries: looking them up costs far more than setting a limit)."""
    global _limited_scipy
    from threadpoolctl import ThreadpoolController

    key = _scipy_loaded()
    if key not in _controllers:
        _controllers[key] = ThreadpoolController()
    _restores.append(_controllers[key].limit(limits=1, user_api="blas").restore_original_limits)
    _limited_scipy = key


def _restore() -> None:
    while _restores:
        _restores.pop()()


#: The limit, held while any block runs (a BLAS loaded inside an outer block is limited when an
#: inner one first meets it).
_HOLD = Hold(_limit, _restore, renew=lambda: _scipy_loaded() and not _limited_scipy)


def one_blas_thread() -> contextlib.AbstractContextManager[None]:
    """Run the block with one BLAS thread; nested and concurrent blocks share one limit,
    lifted (the earlier setting restored) when the last of them ends."""
    return _HOLD.held()


def single_blas_thread(func: _F) -> _F:
    """``func`` run under :func:`one_blas_thread`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with one_blas_thread():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
