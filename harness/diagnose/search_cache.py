"""The search's readings on disk, so that identify run again on the same files scores nothing.

:func:`harness.diagnose.search.evaluations` scores every reading of a corpus (thousands of
configurations on the reference layouts and the preprocessing readings); the printed score
only selects among them, so the readings themselves depend only on

* the corpus's content (:func:`~harness.session.cache.content_hash`),
* the tokenizers that work here (the search's own probe) and what each one's tokens depend on
  (:func:`~harness.session.cache.tokenizer_signature`: the Unicode database, the versions of
  the distributions its registry entry names, its revision),
* the code that counts and scores them (:func:`~harness.session.results.code_fingerprint` of
  :data:`CODE_PARTS`: every layer up to this one, and the compiled kernels' source), the
  engine version, and the versions of numpy, scipy and Python
  (:func:`~harness.session.results.library_versions`).

An entry is kept the way the real libraries' rows are (:class:`~harness.session.results.
ResultsCache`, in ``results/`` of the statistics cache directory): one row whose
``readings`` are the search's readings (:func:`encode`), written atomically, checked against
its key and checksum when read, pruned with the library rows, emptied by ``bleu-harness cache
clear``; a bad entry is a :class:`~harness.session.cache.CacheWarning` and a new search. A
session without a disk cache (``--no-cache``, or :class:`~harness.session.Session` in memory)
reads and writes none.
"""

from __future__ import annotations

import dataclasses
import operator
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.tokenizers import REGISTRY
from harness.data.corpus import Corpus
from harness.session import Session
from harness.session.cache import CacheWarning, tokenizer_signature
from harness.session.results import ResultsCache, code_fingerprint, library_versions

__all__ = [
    "CODE_PARTS",
    "FORMAT_VERSION",
    "Evaluated",
    "decode",
    "encode",
    "load",
    "readings_key",
    "store",
]


@dataclass(frozen=True)
class Evaluated:
    """One reading of the search: ``config`` on the corpus in the reference ``layout`` (the
    files as given, or a misuse) and the preprocessing reading ``preprocessing`` (its labels)
    scores ``raw100`` (0-100); ``equivalent``: the other settings that give the same number on
    this corpus, by factor."""

    config: BleuConfig
    layout: str
    raw100: float
    equivalent: dict[str, tuple[dict[str, Any], ...]]
    preprocessing: tuple[str, ...] = ()


#: Version of the readings' encoding (:func:`encode`); bump it when it changes.
FORMAT_VERSION = 1

#: The parts of the ``harness`` package the readings can depend on: every layer up to the
#: search's own (``tests/test_architecture.py``), and the source of the compiled kernels.
CODE_PARTS: tuple[str, ...] = (
    "__init__.py",
    "errors.py",
    "progress.py",
    "interrupts.py",
    "holds.py",
    "typed_json.py",
    "data",
    "statistics",
    "bleu",
    "bleu/_native.c",
    "scorers",
    "session",
    "api.py",
    "run",
    "analysis",
    "diagnose",
)

_FIELDS = tuple(f.name for f in dataclasses.fields(BleuConfig))


def readings_key(corpus_digest: str, tokenizers: Sequence[str]) -> dict[str, Any]:
    """What the readings of the corpus whose content hash is ``corpus_digest`` depend on, the
    search having found ``tokenizers`` working here (see the module docstring)."""
    distributions = sorted({d for spec in REGISTRY.values() for d in spec.distributions})
    return {
        "format": FORMAT_VERSION,
        "kind": "identify readings",
        "code": code_fingerprint(CODE_PARTS),
        "engine": ENGINE_VERSION,
        "versions": [list(v) for v in library_versions(tuple(distributions))],
        "tokenizers": [tokenizer_signature(BleuConfig(tokenize=t)) for t in tokenizers],
        "corpus": corpus_digest,
    }


def _tupled(value: Any) -> Any:
    """A value as it was before JSON: lists back to tuples (a config holds no lists)."""
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


_config_values = operator.attrgetter(*_FIELDS)


def encode(found: Sequence[Evaluated]) -> dict[str, Any]:
    """``found`` as JSON: each distinct configuration once (every field, in order), each
    distinct equivalent setting once and each distinct map of them once, and each reading as
    [configuration, layout, score, equivalent settings, preprocessing] by their places."""
    # a value's place is found by its repr: ``==`` makes ``True`` and ``1``, ``1`` and ``1.0``,
    # ``0.0`` and ``-0.0`` one key of a dict, their reprs differ
    configs: dict[str, int] = {}
    config_list: list[tuple[Any, ...]] = []
    seen: dict[int, int] = {}  # an option dict's id: its place (the search shares them)
    options: dict[str, int] = {}
    option_list: list[dict[str, Any]] = []  # JSON writes a tuple as a list
    maps: dict[tuple[Any, ...], int] = {}
    map_list: list[list[tuple[str, tuple[int, ...]]]] = []
    readings = []
    for ev in found:
        places = []
        for name, alternatives in ev.equivalent.items():
            at = []
            for o in alternatives:
                place = seen.get(id(o))
                if place is None:
                    okey = repr(o)
                    place = options.get(okey)
                    if place is None:
                        place = options[okey] = len(option_list)
                        option_list.append(o)
                    seen[id(o)] = place
                at.append(place)
            places.append((name, tuple(at)))
        mkey = tuple(places)
        equivalent = maps.get(mkey)
        if equivalent is None:
            equivalent = maps[mkey] = len(map_list)
            map_list.append(places)
        values = _config_values(ev.config)
        ckey = repr(values)
        config = configs.get(ckey)
        if config is None:
            config = configs[ckey] = len(config_list)
            config_list.append(values)
        readings.append((config, ev.layout, ev.raw100, equivalent, ev.preprocessing))
    return {
        "fields": list(_FIELDS),
        "configs": config_list,
        "options": option_list,
        "equivalents": map_list,
        "readings": readings,
    }


def decode(blob: dict[str, Any]) -> list[Evaluated]:
    """The readings :func:`encode` wrote (``ValueError`` when they are not its form). Readings
    with the same equivalent settings share one (read-only) map."""
    if blob.get("fields") != list(_FIELDS):
        raise ValueError("the readings were written for other configuration fields")
    configs = [
        BleuConfig(**{f: _tupled(v) for f, v in zip(_FIELDS, values, strict=True)})
        for values in blob["configs"]
    ]
    options = [{k: _tupled(v) for k, v in o.items()} for o in blob["options"]]
    maps = [
        {name: tuple(options[i] for i in at) for name, at in places}
        for places in blob["equivalents"]
    ]
    return [
        Evaluated(configs[config], layout, raw, maps[equivalent], tuple(preprocessing))
        for config, layout, raw, equivalent, preprocessing in blob["readings"]
    ]


def _cache(session: Session) -> ResultsCache | None:
    """The results cache beside ``session``'s statistics on disk, or ``None`` (no disk)."""
    stats = session.cache
    if not stats.enabled or stats.directory is None:
        return None
    return ResultsCache(
        Path(stats.directory) / "results", holds="identify readings", redo="searching again"
    )


_ROW_FIELDS = ("status", "readings")


def load(
    corpus: Corpus, tokenizers: Sequence[str], session: Session
) -> tuple[list[Evaluated] | None, dict[str, Any] | None]:
    """The readings stored for ``corpus`` (``None`` on a miss) and the key to store them
    under (``None``: ``session`` keeps nothing on disk)."""
    cache = _cache(session)
    if cache is None:
        return None, None
    key = readings_key(session.cache.digest(corpus), tokenizers)
    rows = cache.get(key, _ROW_FIELDS)
    if rows is None:
        return None, key
    try:
        if len(rows) != 1:
            raise ValueError(f"{len(rows)} rows, expected one")
        return decode(rows[0]["readings"]), key
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        warnings.warn(
            f"identify's readings in {cache.path_of(key)} are not readings "
            f"({type(exc).__name__}: {exc}); searching again and overwriting them",
            CacheWarning,
            stacklevel=3,
        )
        return None, key


def store(key: dict[str, Any], found: Sequence[Evaluated], session: Session) -> bool:
    """Store ``found`` under ``key`` (from :func:`load`); True if stored. What is read back
    equals ``found`` in value and in ``repr`` (every field, every float's last digit): JSON keeps
    each value's type and a float's every digit, and only values of one ``repr`` share a place."""
    cache = _cache(session)
    if cache is None:
        return False
    try:
        return cache.put(key, [{"status": "ok", "readings": encode(found)}])
    except ValueError:  # a score or setting JSON cannot hold (not a finite float): not kept
        return False
