"""``bleu-harness cache``: what the on-disk caches hold, and emptying or trimming them."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli import options
from harness.errors import ConfigError
from harness.session.cache import default_cache_dir
from harness.session.disk import default_max_bytes, prune, usage

#: The two caches of a cache directory: statistics files in it, library rows in results/.
_PARTS = (("statistics", "", (".npz",)), ("results", "results", (".rows",)))


def add_cache(sub: options.Subcommands) -> None:
    """Register ``cache``."""
    c = sub.add_parser("cache", help="show, trim or empty the statistics and results caches")
    c.add_argument(
        "action",
        choices=["info", "prune", "clear"],
        help="info: entries and size; prune: trim each cache to --max-mb (least recently "
        "used first); clear: delete every entry",
    )
    c.add_argument(
        "--cache-dir",
        help="the cache directory (default: $BLEU_HARNESS_CACHE_DIR or ~/.cache/bleu-harness/stats)",
    )
    c.add_argument(
        "--max-mb",
        type=float,
        help="with prune: the bound per cache (default: $BLEU_HARNESS_CACHE_MAX_MB, else 2048)",
    )
    c.set_defaults(func=cmd_cache)


def cmd_cache(args: argparse.Namespace) -> int:
    """Print each cache's entries and size, after pruning or clearing it when asked."""
    if args.max_mb is not None and args.action != "prune":
        raise ConfigError("--max-mb goes with `cache prune`")
    root = Path(args.cache_dir).expanduser() if args.cache_dir else default_cache_dir()
    bound = -1 if args.action == "clear" else default_max_bytes()
    if args.action == "prune" and args.max_mb is not None:
        bound = max(0, int(args.max_mb * 1024**2))
    for label, sub, suffixes in _PARTS:
        folder = root / sub if sub else root
        deleted = prune(folder, bound, suffixes) if args.action != "info" else 0
        n, size = usage(folder, suffixes)
        gone = f", {deleted} deleted" if args.action != "info" else ""
        print(f"{label:<10} {folder}: {n} entries, {size / 1024**2:.1f} MB{gone}")
    return 0
