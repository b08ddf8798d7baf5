"""What a library computed inside one call, read from that call.

Some libraries return a score only, and the numbers behind it (n-gram counts, lengths, the
brevity penalty) are what the helpers they call inside return. :func:`recorded` keeps those
returns while the caller's own call runs, so an adapter reports the statistics of the very
call that gave the score instead of running the library a second time to read them.

The helper stays the library's own: while anyone records it, the module attribute the library
looks it up by is a pass-through wrapper that calls the original and, only in a thread that is
recording, keeps its arguments and what it returned. The attribute is put back when the last
recording ends, so outside an adapter's call the library is as installed.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, NamedTuple

__all__ = ["Call", "recorded"]


class Call(NamedTuple):
    """One call of a recorded helper: its arguments and what it returned."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any


_lock = threading.Lock()
_local = threading.local()
#: (owner, attribute) -> (the original, whether the owner itself defined it, how many
#: recordings are open on it)
_open: dict[tuple[str, str], tuple[Callable[..., Any], bool, int]] = {}


def _calls() -> dict[tuple[str, str], list[Call]]:
    if not hasattr(_local, "calls"):
        _local.calls = {}
    calls: dict[tuple[str, str], list[Call]] = _local.calls
    return calls


def _wrapper(key: tuple[str, str], original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        kept = _calls().get(key)
        if kept is not None:
            kept.append(Call(args, kwargs, result))
        return result

    return wrapper


def _name(owner: ModuleType | type) -> str:
    if isinstance(owner, ModuleType):
        return owner.__name__
    return f"{owner.__module__}.{owner.__qualname__}"


@contextmanager
def recorded(owner: ModuleType | type, name: str) -> Iterator[list[Call]]:
    """Every call of ``owner.name`` (a module's function, or a class's method: its first
    argument is then the instance) this thread makes inside the block, in order (the list
    fills as the block runs). Recordings of the same helper do not nest in one thread."""
    key = (_name(owner), name)
    mine = _calls()
    if key in mine:
        raise RuntimeError(f"{key[0]}.{name} is already being recorded in this thread")
    kept: list[Call] = []
    mine[key] = kept
    opened = False
    try:
        with _lock:
            original, own, users = _open.get(key) or (
                getattr(owner, name),
                name in vars(owner),
                0,
            )
            if users == 0:
                setattr(owner, name, _wrapper(key, original))
            _open[key] = (original, own, users + 1)
            opened = True
        yield kept
    finally:
        del mine[key]
        if opened:
            with _lock:
                original, own, users = _open.pop(key)
                if users > 1:
                    _open[key] = (original, own, users - 1)
                elif own:
                    setattr(owner, name, original)
                else:  # inherited: the owner's lookup falls back to its base again
                    delattr(owner, name)
