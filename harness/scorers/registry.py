"""The adapter registry, built from the adapter classes themselves.

Every module of :mod:`harness.scorers` is imported once (the modules import only the harness
and the standard library at module level; the real libraries are imported when an adapter is
used), and every :class:`~harness.scorers.base.Adapter` subclass with a ``name`` it defines is
registered under that name. Adding a library is one new module declaring its adapter class
(plus its profile in :mod:`harness.bleu.profiles` and its tests): nothing else lists the
libraries. The lists below are derived from the classes' attributes:

* :data:`ADAPTERS` — name → adapter class (call it with the adapter's options);
* :data:`LIBRARY_ADAPTERS` — the adapters that reproduce a profile (every real library; not
  ``command``, which runs whatever program it is given), in the order their profiles are
  declared;
* :data:`DEFAULT_ADAPTERS` — those ``compare`` runs when not told which;
* :data:`PROFILE_OF` — library adapter → the profile that reproduces its defaults;
* :data:`PROFILE_ONLY` — profiles no adapter runs (the Perl scripts): in-house numbers only.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from harness.bleu.profiles import CURRENT_PROFILES, PROFILES
from harness.errors import ConfigError
from harness.scorers.base import Adapter

#: The package whose modules are scanned.
PACKAGE = "harness.scorers"


def adapter_classes(package: str = PACKAGE) -> list[type[Adapter]]:
    """The named adapter classes defined in the modules of ``package``, in registry order:
    by the position of their profile in ``PROFILES``, adapters without a profile last, then
    by name. Two classes with the same name raise ``ConfigError``."""
    pkg = importlib.import_module(package)
    found: dict[str, type[Adapter]] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg or info.name.startswith("_") or f"{package}.{info.name}" == __name__:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, Adapter)
                and obj.__module__ == module.__name__
                and obj.name
            ):
                if obj.name in found:
                    raise ConfigError(
                        f"two adapters are named {obj.name!r}: "
                        f"{found[obj.name].__qualname__} and {obj.__qualname__}"
                    )
                found[obj.name] = obj
    rank = {name: i for i, name in enumerate(PROFILES)}
    return sorted(found.values(), key=lambda c: (rank.get(c.profile, len(rank)), c.name))


_CLASSES = adapter_classes()

#: Adapter name → adapter class; ``ADAPTERS[name](**options)`` builds one.
ADAPTERS: Mapping[str, type[Adapter]] = MappingProxyType({c.name: c for c in _CLASSES})

#: The adapters of real libraries (each reproduces a profile), in profile order.
LIBRARY_ADAPTERS: tuple[str, ...] = tuple(c.name for c in _CLASSES if c.profile)

#: What ``compare`` runs when no implementation is named.
DEFAULT_ADAPTERS: tuple[str, ...] = tuple(
    c.name for c in _CLASSES if c.profile and c.compared_by_default
)

#: Library adapter → the profile that reproduces its defaults.
PROFILE_OF: Mapping[str, str] = MappingProxyType({c.name: c.profile for c in _CLASSES if c.profile})

#: Profiles of today's releases that no adapter runs (scripts with no Python package):
#: in-house numbers only. An older release's profile (``sacrebleu@1.4``) is run when named.
PROFILE_ONLY: tuple[str, ...] = tuple(
    p for p in CURRENT_PROFILES if p not in set(PROFILE_OF.values())
)


def get_adapter(name: str, /, **options: Any) -> Adapter:
    """Build the adapter ``name`` with ``options``.

    Unknown names and unknown or missing options raise :class:`~harness.errors.ConfigError`
    listing the valid ones.
    """
    if not isinstance(name, str) or name not in ADAPTERS:
        raise ConfigError(f"unknown adapter {name!r}", valid=sorted(ADAPTERS))
    cls = ADAPTERS[name]
    try:
        return cls(**options)
    except TypeError as exc:
        params = list(inspect.signature(cls).parameters)
        raise ConfigError(
            f"bad options for adapter {name!r}: {exc}", valid=params or ["(no options)"]
        ) from exc


def tolerance(name: str) -> float:
    """BLEU points within which library adapter ``name`` must equal its profile."""
    return ADAPTERS[name].tolerance()


def distributions(names: Iterable[str] = LIBRARY_ADAPTERS) -> tuple[str, ...]:
    """The packages the adapters ``names`` run (each followed by its dependencies), once each,
    in registry order."""
    out: list[str] = []
    for name in names:
        cls = ADAPTERS[name]
        out += [d for d in (cls.distribution, *cls.dependencies) if d and d not in out]
    return tuple(out)
