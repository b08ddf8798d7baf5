"""One run, planned once: which corpora, which implementations, which levels, on which session.

A :class:`RunPlan` is what every command that compares implementations builds from its
arguments — and what a notebook builds in Python — before anything runs: the corpora as
``(fixture, system, corpus)`` triples, the implementations, the levels, and the one
:class:`~harness.session.Session` that holds the run's statistics cache, its backend, jobs and
client; the seed of every random draw of the run and what follows it (the libraries' segment
sample, bootstrap intervals, significance); what the real libraries run on (every system and
segment, or a seeded sample: :class:`~harness.run.library_sample.LibrarySample`); the
libraries' results cache; and the progress callback. :func:`harness.run.run`
runs it and returns the typed results table;
:meth:`RunPlan.corpus_session` is the same session over the run's corpora, named
``fixture/system``, which the analysis reads its statistics through.

>>> from harness.data.fixtures import load_fixture
>>> fx = load_fixture("silence_pitfall")
>>> from harness.run import run
>>> plan = RunPlan.of(fx.triples(), ["sacrebleu", "adapter:sacrebleu"])
>>> rows = run(plan)
>>> sorted({r.implementation for r in rows})
['harness:sacrebleu', 'sacrebleu']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from harness.bleu.config import BleuConfig
from harness.data.corpus import Corpus
from harness.errors import ConfigError
from harness.progress import ProgressCallback, resolve
from harness.run.library_sample import EVERYTHING, LibrarySample
from harness.run.runner import Implementation
from harness.scorers.outcome import LEVELS
from harness.session import Session
from harness.session.results import ResultsCache
from harness.statistics.resampling import DEFAULT_SEED

__all__ = ["RunPlan", "named_corpora"]


def named_corpora(
    corpora: Mapping[tuple[str, str], Corpus] | Iterable[tuple[str, str, Corpus]],
) -> dict[str, Corpus]:
    """The run's corpora named for its :class:`~harness.session.Session`: ``fixture/system``
    → corpus, from ``{(fixture, system): corpus}`` or the ``(fixture, system, corpus)``
    triples a plan holds."""
    if isinstance(corpora, Mapping):
        return {f"{f}/{s}": corpus for (f, s), corpus in corpora.items()}
    return {f"{f}/{s}": corpus for f, s, corpus in corpora}


@dataclass(frozen=True)
class RunPlan:
    """Corpora × implementations × levels on one session (see the module's docstring).

    ``libraries``: what each real library runs on (:class:`~harness.run.library_sample.
    LibrarySample`: a seeded sample of each test set's systems at corpus level and of their
    segments at segment level, drawn with ``seed``; default every system and segment).
    ``results``: the real libraries' rows kept on disk (default: none).
    ``progress``: a callback, ``True`` for a progress bar, ``None`` for one when stderr is a
    terminal, ``False`` for none. ``limit``: the corpora were cut to their first ``limit``
    segments (a quick look; recorded in what the run writes). ``prefetch``: configurations the
    analysis will read after the run (the answer's mixed ones), counted with the run's own, so
    that with workers they are counted while the libraries run.
    """

    corpora: tuple[tuple[str, str, Corpus], ...]
    implementations: tuple[Implementation, ...]
    levels: tuple[str, ...] = ("corpus",)
    session: Session = field(default_factory=Session)
    seed: int = DEFAULT_SEED
    libraries: LibrarySample = EVERYTHING
    results: ResultsCache = field(default_factory=ResultsCache.disabled)
    progress: ProgressCallback | bool | None = False
    limit: int | None = None
    prefetch: tuple[BleuConfig, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "corpora", tuple(self.corpora))
        object.__setattr__(self, "implementations", tuple(self.implementations))
        object.__setattr__(self, "levels", tuple(self.levels))
        for level in self.levels:
            if level not in LEVELS:
                raise ConfigError(f"unknown level {level!r}", valid=LEVELS)
        names = [f"{f}/{s}" for f, s, _ in self.corpora]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ConfigError(f"two corpora are named {twice[0]!r} (fixture/system)")
        if not isinstance(self.libraries, LibrarySample):
            raise ConfigError(f"libraries must be a LibrarySample, got {self.libraries!r}")

    @classmethod
    def of(
        cls,
        corpora: Iterable[tuple[str, str, Corpus]],
        implementations: Sequence[str | Implementation],
        **options: object,
    ) -> RunPlan:
        """A plan from implementation specs as ``compare --impl`` takes them (``sacrebleu``,
        ``profile:nltk``, ``adapter:evaluate``) or :class:`Implementation` values; ``options``
        are the other fields."""
        impls = tuple(
            x if isinstance(x, Implementation) else Implementation.parse(x) for x in implementations
        )
        return cls(tuple(corpora), impls, **options)  # type: ignore[arg-type]

    def corpus_session(self) -> Session:
        """The plan's session over its corpora, named ``fixture/system``: the same cache,
        backend, jobs and client."""
        return self.session.with_corpora(named_corpora(self.corpora))

    def callback(self) -> ProgressCallback | None:
        """The run's progress callback (:func:`harness.progress.resolve` of ``progress``), for
        the steps that follow the run."""
        return self.progress if callable(self.progress) else resolve(self.progress)
