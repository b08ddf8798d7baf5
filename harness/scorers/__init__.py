"""Adapters: the real BLEU libraries behind one small protocol.

``ADAPTERS`` maps a name to a factory; the library is imported only when the factory runs
(and for some adapters only when scoring), so ``import harness.scorers`` never imports
sacrebleu, torch or evaluate.

>>> sorted(ADAPTERS)[:3]
['bleuscore', 'command', 'evaluate']

See :mod:`harness.scorers.base` for the protocol (``name``, ``version()``, ``available()``,
``supports(config)``, ``corpus(corpus, config)``, ``segments(corpus, config)``,
``default_config()``) and each adapter module for the library's quirks.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from harness.errors import ConfigError
from harness.scorers.base import Adapter, Availability, Support, lazy

#: adapter name -> (module under harness.scorers, class, fixed options)
_TARGETS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "sacrebleu": ("sacrebleu_adapter", "SacrebleuAdapter", {}),
    "sacrebleu-sentence": (
        "sacrebleu_adapter",
        "SacrebleuAdapter",
        {"profile": "sacrebleu-sentence"},
    ),
    "nltk": ("nltk_adapter", "NltkAdapter", {}),
    "evaluate": ("evaluate_adapter", "EvaluateAdapter", {}),
    "bleuscore": ("bleuscore_adapter", "BleuscoreAdapter", {}),
    "torchmetrics": ("torchmetrics_adapter", "TorchmetricsAdapter", {}),
    "torchmetrics-sacrebleu": ("torchmetrics_adapter", "TorchmetricsSacrebleuAdapter", {}),
    "pycocoevalcap": ("coco_adapter", "PycocoevalcapAdapter", {}),
    "command": ("command", "CommandAdapter", {}),
}

#: Adapter name -> factory (``factory(**options) -> Adapter``); imports happen in the call.
ADAPTERS: dict[str, Callable[..., Adapter]] = {
    name: lazy(f"{__name__}.{module}", cls, **fixed)
    for name, (module, cls, fixed) in _TARGETS.items()
}

#: Adapters that need no options (``command`` needs a template).
LIBRARY_ADAPTERS: tuple[str, ...] = tuple(n for n in ADAPTERS if n != "command")


def get_adapter(name: str, /, **options: Any) -> Adapter:
    """Build the adapter ``name`` with ``options``.

    Unknown names and unknown or missing options raise :class:`~harness.errors.ConfigError`
    listing the valid ones.
    """
    if not isinstance(name, str) or name not in ADAPTERS:
        raise ConfigError(f"unknown adapter {name!r}", valid=sorted(ADAPTERS))
    try:
        return ADAPTERS[name](**options)
    except TypeError as exc:
        raise ConfigError(
            f"bad options for adapter {name!r}: {exc}", valid=_option_names(name)
        ) from exc


def _option_names(name: str) -> list[str]:
    import importlib

    module, cls, fixed = _TARGETS[name]
    target = getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    params = inspect.signature(target).parameters
    return [p for p in params if p not in fixed] or ["(no options)"]


__all__ = [
    "ADAPTERS",
    "LIBRARY_ADAPTERS",
    "Adapter",
    "Availability",
    "Support",
    "get_adapter",
]
