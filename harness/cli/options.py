"""Options several commands share: argument types that refuse bad values with a usage error,
the factor overrides, the statistics cache and parallelism flags, the progress flags — and
turning the parsed flags into the objects the commands use."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import textwrap
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeAlias

from harness.analysis.answer import mixed_configs
from harness.bleu.config import (
    AGGREGATIONS,
    MAX_ORDER_RANGE,
    NGRAM_IDENTITIES,
    NGRAM_TOTALS,
    REF_LENGTHS,
    SMOOTHINGS,
    TOKENIZERS,
    BleuConfig,
)
from harness.bleu.smoothing import REGISTRY as SMOOTHING_REGISTRY
from harness.bleu.tokenizers import ARTICLES, LOWERCASE_RULES, PUNCTUATIONS
from harness.data.corpus import Corpus
from harness.data.textfile import BOM_RULES
from harness.errors import ConfigError, InputError
from harness.progress import ProgressCallback, resolve
from harness.run.library_sample import EVERYTHING, SPOT_CHECK, LibrarySample
from harness.run.plan import RunPlan
from harness.run.runner import Implementation
from harness.session import Session, open_cache
from harness.session.cache import StatisticsCache, default_cache_dir
from harness.session.cluster import command_cluster
from harness.session.parallel import auto_jobs
from harness.session.results import ResultsCache
from harness.statistics.resampling import DEFAULT_SEED
from harness.typed_json import to_json


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


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, except that lines never break inside a hyphenated value
    (``nltk-method2``, ``closest-first``): help that lists valid values keeps them whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def one_of(what: str, valid: Sequence[str]) -> Callable[[str], str]:
    """An argparse type: one of ``valid``; otherwise a usage error (exit 2) ``unknown WHAT
    'x'; valid: …`` (the wording of :class:`~harness.errors.ConfigError`)."""

    def parse(text: str) -> str:
        if text not in valid:
            raise argparse.ArgumentTypeError(f"unknown {what} {text!r}; valid: {', '.join(valid)}")
        return text

    parse.__name__ = what
    return parse


def int_between(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``; otherwise a usage error
    ``WHAT must be between LOW and HIGH, got N``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{what} must be between {low} and {high}, got {value}"
            )
        return value

    parse.__name__ = f"integer {low}..{high}"
    return parse


def split_names(text: str, what: str = "name") -> list[str]:
    """The comma-separated names of one flag value, spaces around each dropped.

    Raises:
        ValueError: ``text`` names nothing (``","``, ``" "``, ``""``), or has an empty name
            between two commas or at an end (``"a,,b"``, ``"a,"``) — a name lost to a typo or
            an empty shell variable is refused, not dropped.

    >>> split_names("profile:sacrebleu, adapter:nltk")
    ['profile:sacrebleu', 'adapter:nltk']
    """
    names = [x.strip() for x in text.split(",")]
    if not any(names):
        raise ValueError(f"no {what} given in {text!r}")
    if not all(names):
        raise ValueError(f"an empty {what} in {text!r} (two commas in a row, or a comma at an end)")
    return names


def impl_list(text: str) -> list[str]:
    """An argparse type for ``--impl``: comma-separated implementation specs
    (:func:`split_names`; each is checked when the command resolves it). Use it with
    ``action="extend"`` so that the flag may also be repeated."""
    try:
        return split_names(text, "implementation")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; give profile:NAME or adapter:NAME") from None


impl_list.__name__ = "implementation list"


def name_list(valid: Sequence[str], *, every: str | None = None) -> Callable[[str], list[str]]:
    """An argparse type: comma-separated names from ``valid`` (``every``, if given, stands
    for all of them); an unknown or empty name is a usage error naming the valid ones. Use it
    with ``action="extend"`` so that the flag may also be repeated."""
    accepted = [*valid, *([every] if every else [])]

    def parse(text: str) -> list[str]:
        try:
            names = split_names(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        out: list[str] = []
        for name in names:
            if name not in accepted:
                raise argparse.ArgumentTypeError(
                    f"invalid choice: {name!r} (choose from {', '.join(accepted)})"
                )
            out += list(valid) if name == every else [name]
        return out

    parse.__name__ = "comma-separated names"
    return parse


def unique(names: Sequence[str] | None) -> list[str]:
    """``names`` once each, in their first order (``None``: none)."""
    return list(dict.fromkeys(names or ()))


def _smooth_value_help() -> str:
    takes = [
        f"{s.name}: {s.value_range.meaning}, {'>' if s.value_range.strict else '>='} "
        f"{s.value_range.low:g}, default {s.default:g}"
        for s in SMOOTHING_REGISTRY.values()
        if s.value_range is not None and s.default is not None
    ]
    return (
        "the smoothing method's parameter, a finite number (default: the method's own); "
        "methods that take one: " + "; ".join(takes)
    )


#: The factor overrides that take a value, and how each value is parsed (the closed sets of
#: names are read from the registries of :mod:`harness.bleu`, so they cannot drift).
OVERRIDE_FLAGS: dict[str, Callable[[str], Any]] = {
    "tokenize": one_of("tokenize", TOKENIZERS),
    "punctuation": one_of("punctuation", PUNCTUATIONS),
    "articles": one_of("articles", ARTICLES),
    "smooth": one_of("smooth", SMOOTHINGS),
    "smooth_value": finite_float,
    "max_order": int_between(*MAX_ORDER_RANGE, "max_order"),
    "ref_length": one_of("ref_length", REF_LENGTHS),
    "ngram_totals": one_of("ngram_totals", NGRAM_TOTALS),
    "aggregation": one_of("aggregation", AGGREGATIONS),
    "ngram_identity": one_of("ngram_identity", NGRAM_IDENTITIES),
}

#: The valid values of each override flag whose set is closed (argparse ``choices``).
OVERRIDE_CHOICES: dict[str, Sequence[Any]] = {
    "tokenize": TOKENIZERS,
    "punctuation": PUNCTUATIONS,
    "articles": ARTICLES,
    "smooth": SMOOTHINGS,
    "max_order": range(MAX_ORDER_RANGE[0], MAX_ORDER_RANGE[1] + 1),
    "ref_length": REF_LENGTHS,
    "ngram_totals": NGRAM_TOTALS,
    "aggregation": AGGREGATIONS,
    "ngram_identity": NGRAM_IDENTITIES,
}

#: What each override flag means (its valid values are appended from OVERRIDE_CHOICES).
OVERRIDE_HELP: dict[str, str] = {
    "tokenize": "tokenizer",
    "punctuation": "what happens to punctuation before tokenizing (ascii: every ASCII "
    "punctuation character becomes a space, as ParlAI and jury)",
    "articles": "words dropped before tokenizing (en: the whole words a, an, the, after "
    "lowercasing, as ParlAI)",
    "smooth": "smoothing method for zero or low n-gram counts",
    "smooth_value": _smooth_value_help(),
    "max_order": "highest n-gram order N",
    "ref_length": "reference length the brevity penalty uses (closest: ties to the shorter; "
    "closest-first: ties to the first given)",
    "ngram_totals": "order-n denominators (plain: max(0, len - n + 1) per segment; floor1: "
    "each segment's total floored at 1, as nltk; reduced: floor1, then each segment's matches "
    "and total in lowest terms, as nltk 3.2)",
    "aggregation": "corpus statistics, the mean of sentence scores, or the mean of each "
    "segment's best single-reference score",
    "ngram_identity": "when two n-grams match (tokens: equal tokens; fairseq-hash: equal "
    "hashes of fairseq dictionary ids, collisions included, as fairseq-score)",
}


def _override_help(name: str) -> str:
    valid = OVERRIDE_CHOICES.get(name)
    if valid is None:
        return OVERRIDE_HELP[name]
    if isinstance(valid, range):
        values = f"{valid.start} to {valid.stop - 1}"
    else:
        values = ", ".join(map(str, valid))
    return f"{OVERRIDE_HELP[name]}: {values} (default: the profile's)"


def add_overrides(parser: argparse.ArgumentParser) -> None:
    """``--tokenize``, ``--smooth``, … ``--lowercase``, ``--effective-order``: one factor of
    the profile each; each help lists the valid values, and an invalid one is a usage error
    naming them."""
    g = parser.add_argument_group(
        "factor overrides (change one factor of the profile, or of the library's defaults)"
    )
    for name, typ in OVERRIDE_FLAGS.items():
        g.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=typ,
            default=None,
            choices=OVERRIDE_CHOICES.get(name),
            metavar="N" if name in ("max_order", "smooth_value") else "NAME",
            help=_override_help(name),
        )
    g.add_argument(
        "--lowercase",
        dest="lowercase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="lowercase hypotheses and references, the way the profile's lowercase_rule says "
        f"({', '.join(LOWERCASE_RULES)}; default: the profile's)",
    )
    g.add_argument(
        "--effective-order",
        dest="effective_order",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="leave out orders without any hypothesis n-gram, as sacrebleu's sentence BLEU "
        "(default: the profile's)",
    )


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The factor overrides given on the command line (:func:`add_overrides`), by field name."""
    keys = [*OVERRIDE_FLAGS, "lowercase", "effective_order"]
    return {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}


class _Where(argparse.Action):
    """``--backend`` and ``--scheduler ADDRESS``: a scheduler sets the backend to dask, and
    names a backend other than dask a usage error (in either order)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if self.dest == "backend":
            if getattr(namespace, "scheduler", None) and values != "dask":
                parser.error(f"argument --backend: --scheduler runs on dask, not on {values}")
            namespace.backend = values
            return
        if not str(values).strip():
            parser.error("argument --scheduler: expected a scheduler address, e.g. tcp://host:8786")
        chosen = getattr(namespace, "backend", None)
        if chosen not in (None, "dask"):
            parser.error(f"argument --scheduler: runs on dask, not on --backend {chosen}")
        namespace.scheduler = str(values).strip()
        namespace.backend = "dask"


#: What a bare ``--real`` parses to (not a string, so argparse leaves it to
#: :func:`libraries`, whose error names the two values: ``--real`` was once a switch).
_BARE_REAL = object()


def add_real(parser: argparse.ArgumentParser, *, default: str | None) -> None:
    """``--real {sample,all}`` (what the real libraries run on), ``--real-systems`` and
    ``--real-segments`` (the spot check's size). ``default``: ``sample``, or ``None`` for a
    command that spot-checks on the user's files and runs the libraries on every fixture."""
    parser.add_argument(
        "--real",
        dest="real_mode",
        nargs="?",
        const=_BARE_REAL,
        choices=["sample", "all"],
        default=default,
        help="what the real libraries run on: 'sample' "
        + ("(default)" if default == "sample" else "(default on your files)")
        + " a seeded spot check of "
        "--real-segments segments of --real-systems systems per test set (--seed), scored one "
        "by one and as a corpus of their own, each compared with its in-house profile on the "
        "same segments; 'all' every system and segment"
        + ("" if default == "sample" else " (default on the fixtures)")
        + " (the profiles, proven equal to them, give every number either way)",
    )
    parser.add_argument(
        "--real-systems",
        type=int_at_least(1),
        metavar="N",
        help=f"systems per test set in the spot check (default {SPOT_CHECK.systems})",
    )
    parser.add_argument(
        "--real-segments",
        type=int_at_least(1),
        metavar="N",
        help=f"segments per sampled system in the spot check (default {SPOT_CHECK.segments})",
    )


def add_perf(parser: argparse.ArgumentParser) -> None:
    """``--no-cache``, ``--cache-dir``, ``--jobs``, ``--backend``, ``--scheduler``."""
    g = parser.add_argument_group("caches and parallelism")
    g.add_argument(
        "--no-cache",
        action="store_true",
        help="count statistics and call the libraries afresh; read and store nothing on disk",
    )
    g.add_argument(
        "--cache-dir",
        help="on-disk cache of statistics, with the libraries' results in its results/ "
        "(default: $BLEU_HARNESS_CACHE_DIR or ~/.cache/bleu-harness/stats; "
        "`bleu-harness cache` shows, trims or empties it)",
    )
    g.add_argument(
        "--jobs",
        type=int_at_least(0, "0 means one per CPU"),
        default=None,
        help="worker processes for counting and for running the libraries (0 = one per CPU, "
        "1 = none; default: one per CPU when a compare or report run has enough to do to pay "
        "for them and for identify, which counts ahead in one while it searches the files as "
        "given; else none); the numbers are the same with any",
    )
    g.add_argument(
        "--backend",
        action=_Where,
        choices=["serial", "processes", "dask"],
        default=None,
        help="where statistics are counted and the libraries run, one task per library and "
        "corpus (default: processes when --jobs > 1); dask: on "
        "the scheduler of --scheduler or $DASK_SCHEDULER_ADDRESS, else on a local cluster "
        "started for the run",
    )
    g.add_argument(
        "--scheduler",
        action=_Where,
        metavar="ADDRESS",
        default=None,
        help="run on the dask scheduler at ADDRESS (e.g. tcp://host:8786, its workers started "
        "with bleu-harness installed); implies --backend dask",
    )
    # the command runs inside cluster(args): with dask, one client for the whole run
    parser.set_defaults(run_context=cluster)


def add_meta_resamples(parser: argparse.ArgumentParser, tested: str) -> None:
    """``--meta-resamples N``: the permutation resamples of the WMT meta-evaluation's tests
    between ``tested`` (0, the default: its numbers only)."""
    parser.add_argument(
        "--meta-resamples",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help=f"permutation resamples of the tests between {tested} in the WMT "
        "meta-evaluation (0: the numbers only; WMT uses 1000: minutes for many profiles)",
    )


def add_seed(parser: argparse.ArgumentParser, what: str) -> None:
    """``--seed N``: the numpy seed of the command's random procedures (``what``), one default
    for every command (:data:`harness.statistics.resampling.DEFAULT_SEED`, sacrebleu's)."""
    parser.add_argument(
        "--seed",
        type=SEED,
        default=DEFAULT_SEED,
        metavar="N",
        help=f"numpy seed of {what} (default {DEFAULT_SEED}, as sacrebleu's)",
    )


def add_bom(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--bom refuse|keep|strip``: what reading does with a byte-order mark that starts an
    input file (:data:`harness.data.textfile.BomRule`); ``args.bom``."""
    parser.add_argument(
        "--bom",
        choices=BOM_RULES,
        default=BOM_RULES[0],
        help="a UTF-8 byte-order mark starting an input file: refuse it (default); keep it "
        "as part of the first segment, as sacrebleu's command line, mteval-v13a.pl and "
        "multi-bleu.perl read it (to reproduce their published scores); or strip it",
    )


def add_progress(parser: argparse.ArgumentParser) -> None:
    """``--progress`` / ``--quiet`` (one of them): tqdm bars on stderr, by default only when
    stderr is a terminal. ``args.progress`` is ``True``, ``False`` or ``None`` (neither)."""
    g = parser.add_argument_group("progress (bars on stderr; default: only when it is a terminal)")
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


def jobs(
    args: argparse.Namespace,
    corpora: Sequence[tuple[str, str, Corpus]] = (),
    implementations: Sequence[Implementation] = (),
    *,
    counts_ahead: bool = False,
) -> int:
    """The run's worker processes: ``--jobs`` when given, else
    :func:`~harness.session.parallel.auto_jobs` of the run's ``corpora``, the libraries
    among its ``implementations`` and ``counts_ahead`` (the command counts statistics ahead
    in a worker: identify); a command that runs no plan and counts nothing ahead takes no
    workers."""
    if args.jobs is not None:
        return int(args.jobs)
    segments = sum(len(c) for _, _, c in corpora)
    libraries = sum(1 for i in implementations if i.kind == "adapter")
    return auto_jobs(segments, segments * libraries, counts_ahead=counts_ahead)


def make_cache(args: argparse.Namespace, workers: int | None = None) -> StatisticsCache:
    """The run's statistics cache from the CLI flags: memory + disk, or memory only with
    ``--no-cache`` (nothing read from or written to disk; each tokenization still counted once).
    ``workers``: the run's :func:`jobs` (default: that of a run without a plan)."""
    workers = jobs(args) if workers is None else workers
    return open_cache(
        args.cache_dir or default_cache_dir(),
        use_cache=not args.no_cache,
        jobs=workers,
        backend=backend(args, workers),
    )


def results_cache(args: argparse.Namespace) -> ResultsCache:
    """The real libraries' rows on disk, in ``results/`` of the statistics cache directory;
    nothing read or written with ``--no-cache``."""
    if args.no_cache:
        return ResultsCache.disabled()
    return ResultsCache(Path(args.cache_dir or default_cache_dir()) / "results")


def session(args: argparse.Namespace, workers: int | None = None) -> Session:
    """The run's :class:`~harness.session.Session` (cache and workers from the CLI flags;
    ``workers``: the run's :func:`jobs`, default that of a run without a plan)."""
    workers = jobs(args) if workers is None else workers
    return Session(cache=make_cache(args, workers), jobs=workers, backend=backend(args, workers))


def plan(
    args: argparse.Namespace,
    corpora: Sequence[tuple[str, str, Corpus]],
    implementations: Sequence[Implementation],
    *,
    answer_baseline: str | None = None,
    fixtures: bool = False,
) -> RunPlan:
    """The command's :class:`~harness.run.plan.RunPlan` from its flags: ``--level``,
    the session of :func:`session`, ``--seed``, what the real libraries run on
    (:func:`libraries`), the libraries' results cache and the progress display.
    ``answer_baseline``: the baseline profile of the answer the command gives after the run,
    if it gives one (its mixed configurations are then counted with the run's own);
    ``fixtures``: the run is on fixtures, not the user's files (:func:`libraries`)."""
    return RunPlan(
        tuple(corpora),
        tuple(implementations),
        levels=tuple(args.level),
        session=session(args, jobs(args, corpora, implementations)),
        seed=args.seed,
        libraries=libraries(args, fixtures=fixtures),
        results=results_cache(args),
        progress=progress(args) or False,  # resolved once: no bar is no bar
        limit=getattr(args, "limit", None),
        prefetch=_answer_configs(args, corpora, implementations, answer_baseline),
    )


def libraries(args: argparse.Namespace, *, fixtures: bool = False) -> LibrarySample:
    """What the real libraries run on: the spot check of ``--real sample`` sized by
    ``--real-systems`` and ``--real-segments``, else every system and segment (``--real
    all``, and every command without the flag). A command whose ``--real`` has no default
    spot-checks the user's files and runs the libraries on every system of the fixtures
    (``fixtures``: the run is on fixtures) unless the spot check is sized."""
    mode = getattr(args, "real_mode", "all")
    if mode is _BARE_REAL:
        raise InputError(
            "--real takes what the real libraries run on: --real sample (a seeded spot check) "
            "or --real all (every system and segment)"
            + (
                "; every installed library: --all-libraries"
                if hasattr(args, "all_libraries")
                else ""
            )
        )
    sizes = {"systems": getattr(args, "real_systems", None)}
    sizes["segments"] = getattr(args, "real_segments", None)
    if mode is None:
        sized = any(v is not None for v in sizes.values())
        mode = "all" if fixtures and not sized else "sample"
    if mode != "sample":
        given = [f"--real-{k}" for k, v in sizes.items() if v is not None]
        if given:
            raise ConfigError(f"{' and '.join(given)} size the spot check: not with --real {mode}")
        return EVERYTHING
    return LibrarySample(
        systems=sizes["systems"] or SPOT_CHECK.systems,
        segments=sizes["segments"] or SPOT_CHECK.segments,
    )


def _answer_configs(
    args: argparse.Namespace,
    corpora: Sequence[tuple[str, str, Corpus]],
    implementations: Sequence[Implementation],
    baseline: str | None,
) -> tuple[BleuConfig, ...]:
    """The mixed configurations an answer from ``baseline`` reads after the run, where it
    can be given: at corpus level, on one fixture's systems sharing their references, with
    the baseline among the profiles run."""
    profiles = [i.name for i in implementations if i.kind == "profile"]
    if (
        baseline not in profiles
        or "corpus" not in args.level
        or len({f for f, _, _ in corpora}) != 1
        or len({c.references for _, _, c in corpora}) != 1
    ):
        return ()
    return mixed_configs(profiles, baseline)


def backend(args: argparse.Namespace, workers: int | None = None) -> str:
    """Where statistics are computed: ``--backend`` (``dask`` with ``--scheduler``), else
    processes when the run's ``workers`` (its :func:`jobs`) are not 1."""
    if getattr(args, "scheduler", None):
        return "dask"
    if args.backend:
        return str(args.backend)
    return "processes" if (jobs(args) if workers is None else workers) != 1 else "serial"


def cluster(args: argparse.Namespace) -> AbstractContextManager[Any]:
    """What the command holds while it runs: with the dask backend, its one dask client
    (:func:`harness.session.cluster.command_cluster`: connected to ``--scheduler``, else
    the current client, else ``$DASK_SCHEDULER_ADDRESS``, else a local cluster started for
    the run), which every computation of the command reuses; otherwise nothing."""
    if not hasattr(args, "backend") or backend(args) != "dask":
        return contextlib.nullcontext()
    return command_cluster(getattr(args, "scheduler", None))


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (:func:`harness.typed_json.to_json` first:
    mappings as objects, tuples as lists; UTF-8 characters kept)."""
    print(json.dumps(to_json(obj), ensure_ascii=False, indent=2, allow_nan=False))
