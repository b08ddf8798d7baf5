"""Options several commands share: argument types that refuse bad values with a usage error,
the factor overrides, the statistics cache and parallelism flags, the progress flags — and
turning the parsed flags into the objects the commands use."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any, TypeAlias

from harness.progress import ProgressCallback, resolve
from harness.report.schema import jsonable
from harness.session import Session, open_cache
from harness.session.cache import StatisticsCache, default_cache_dir


def int_at_least(low: int, what: str = "") -> Callable[[str], int]:
    """An argparse type: an integer ``>= low``; otherwise a usage error (exit 2) saying so."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            note = f" ({what})" if what else ""
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}{note}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def finite_float(text: str) -> float:
    """An argparse type: a finite number (``nan`` and ``inf`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


finite_float.__name__ = "finite number"


def nonneg_float(text: str) -> float:
    """An argparse type: a finite number ``>= 0``."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


nonneg_float.__name__ = "number >= 0"

#: The object each command module registers its subcommand on (``add_subparsers()``).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

#: An argparse type for ``--seed``: a numpy seed.
SEED = int_at_least(0, "a numpy seed")

#: The factor overrides that take a value, and how each value is parsed.
OVERRIDE_FLAGS: dict[str, Callable[[str], Any]] = {
    "tokenize": str,
    "smooth": str,
    "smooth_value": finite_float,
    "max_order": int,
    "ref_length": str,
    "ngram_totals": str,
    "aggregation": str,
}


def add_overrides(p: argparse.ArgumentParser) -> None:
    """``--tokenize``, ``--smooth``, … ``--lowercase``, ``--effective-order``: one factor of
    the profile each."""
    g = p.add_argument_group("factor overrides (change one factor of the profile)")
    for name, typ in OVERRIDE_FLAGS.items():
        g.add_argument("--" + name.replace("_", "-"), dest=name, type=typ, default=None)
    g.add_argument("--lowercase", dest="lowercase", action="store_true", default=None)
    g.add_argument("--effective-order", dest="effective_order", action="store_true", default=None)


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The factor overrides given on the command line (:func:`add_overrides`), by field name."""
    keys = [*OVERRIDE_FLAGS, "lowercase", "effective_order"]
    return {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}


def add_perf(p: argparse.ArgumentParser) -> None:
    """``--no-cache``, ``--cache-dir``, ``--jobs``, ``--backend``."""
    g = p.add_argument_group("statistics cache and parallelism")
    g.add_argument("--no-cache", action="store_true", help="compute statistics afresh, store none")
    g.add_argument(
        "--cache-dir",
        help="on-disk statistics cache (default: $BLEU_HARNESS_CACHE_DIR or "
        "~/.cache/bleu-harness/stats)",
    )
    g.add_argument(
        "--jobs",
        type=int_at_least(0, "0 means one per CPU"),
        default=1,
        help="worker processes for counting and for running the libraries (0 = all)",
    )
    g.add_argument(
        "--backend",
        choices=["serial", "processes", "dask"],
        default=None,
        help="where statistics are computed (default: processes when --jobs > 1)",
    )


def add_progress(p: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` (one of them): tqdm bars on stderr, by default only when
    stderr is a terminal. ``args.progress`` is ``True``, ``False`` or ``None`` (neither)."""
    g = p.add_argument_group("progress (bars on stderr; default: only when it is a terminal)")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--progress",
        dest="progress",
        action="store_const",
        const=True,
        default=None,
        help="show progress bars even when stderr is not a terminal",
    )
    x.add_argument(
        "--quiet",
        "--no-progress",
        dest="progress",
        action="store_const",
        const=False,
        help="show no progress bars",
    )


def progress(args: argparse.Namespace) -> ProgressCallback | None:
    """The progress callback for this run (:func:`harness.progress.resolve`), or ``None``."""
    return resolve(getattr(args, "progress", None))


def make_cache(args: argparse.Namespace) -> StatisticsCache:
    """The run's statistics cache from the CLI flags: memory + disk, or memory only with
    ``--no-cache`` (nothing read from or written to disk; each tokenization still counted once)."""
    return open_cache(
        args.cache_dir or default_cache_dir(),
        use_cache=not args.no_cache,
        jobs=args.jobs,
        backend=args.backend,
    )


def session(args: argparse.Namespace) -> Session:
    """The run's :class:`~harness.session.Session` (cache and workers from the CLI flags)."""
    return Session(cache=make_cache(args), jobs=args.jobs, backend=args.backend)


def backend(args: argparse.Namespace) -> str:
    """Where statistics are computed: ``--backend``, else processes when ``--jobs`` is not 1."""
    if args.backend:
        return str(args.backend)
    return "processes" if args.jobs != 1 else "serial"


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (:func:`harness.report.schema.jsonable` first: mappings
    as objects, tuples as lists; UTF-8 characters kept)."""
    print(json.dumps(jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False))
