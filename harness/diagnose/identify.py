"""Identify: which BLEU configuration printed this number?

Given a score ``X`` that someone printed (a paper, a blog, a log file) and the corpus it was
computed on, :func:`identify` searches the factor space of
:class:`~harness.bleu.config.BleuConfig` — tokenizer × case × reference length × smoothing
(sacrebleu's, nltk's method0–7, the +1 and epsilon variants) × effective order × n-gram totals
× aggregation × max order — together with the ways the number may have been *reported* or
*misused*:

* **layout misuse**: the corpus sacrebleu actually scores when per-segment reference lists are
  passed as reference streams (``zip`` transposes and truncates, sacrebleu#220/#272/#275, seed
  ``001_4d9c0f31bc4f1899.txt``), when a flat list of reference strings is passed (each string
  becomes a stream of characters), and when sacrebleu streams are passed to a per-segment
  library (possible silently only when there are as many streams as segments);
* **scale**: 0–1 or 0–100;
* **rounding**: the decimals the score was printed with (``42.4``: one; a float's ``repr``:
  none).

and the text it may have been computed on (**preprocessing mistakes**,
:mod:`harness.diagnose.preprocess`): the files as given carry the mistakes their markers show
(``@@`` left in, …); each applicable variant (BPE merged, compounds split, hypotheses
tokenized, references lowercased, one reference, …) is another reading, scored with every named
profile and its aggregation flipped (:func:`harness.diagnose.search.evaluations`: readings are
many, so the full space is searched only on the files as given).

Every configuration whose displayed score is inside the interval ``X`` stands for is a
:class:`Candidate`, sorted by :func:`~harness.diagnose.candidates.rank`: steps from a named
profile applied correctly (factors changed + text mistakes assumed), then fewer configuration
changes, then simpler rounding, then distance. The interval is half a unit either side of the
last digit of ``X`` as typed, upper end excluded (``"0.27"`` → [0.265, 0.275), ``"27"`` →
[26.5, 27.5)): a printed number says no more than its digits, so a reading inside it is not
better for being nearer the middle. Settings that give the same number on this corpus
(tokenizers with identical tokens, reference-length rules that pick the same lengths, a
smoothing that never fires) are resolved toward the nearest named profile
(:func:`~harness.diagnose.candidates.nearest_choices`): an exact profile is listed as that
profile (every profile they reproduce exactly is listed), and the other settings as
``Candidate.equivalent``. :func:`nearest` returns the
closest configurations when nothing matches.

Speed: statistics are counted once per (layout, tokenizer, case) by a
:class:`~harness.session.Session` (``session=`` shares its cache, on disk too, and its
workers); identical statistics (``intl`` and ``13a`` on
plain English, say) are scored once and the alternatives are listed in
``Candidate.equivalent``; every configuration is then pure arithmetic on cached corpus sums
(:class:`~harness.diagnose.many_configs.CorpusScorer`, which :mod:`harness.diagnose.validate`
shares).

>>> from harness.data.fixtures import load_fixture
>>> nasa = load_fixture("google_nasa_opportunity").corpus("candidate_2")
>>> found = identify(0.27, nasa, session=Session())
>>> best = found[0]
>>> best.scale, best.rounding, best.shown
('0-1', '2 decimals', 0.27)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from harness.api import resolve_config
from harness.bleu import engine
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import PROFILES, RELEASES, VERSIONED, profile_of_release
from harness.data.corpus import Corpus
from harness.diagnose.candidates import (
    SCALES,
    Candidate,
    Printed,
    as_printed,
    closest_changes,
    closest_profile,
    default_tolerance,
    printed_interval,
    printed_rounding,
    rank,
    reprinted,
    reproducer,
    rounded,
)
from harness.diagnose.many_configs import CorpusScorer
from harness.diagnose.search import (
    Evaluated,
    as_corpus,
    corpus_layouts,
    corpus_readings,
    evaluations,
)
from harness.errors import ConfigError, HarnessError
from harness.holds import collector_paused
from harness.progress import ProgressCallback
from harness.scorers.printed import (
    EXACT,
    REPR_DIGITS,
    SIGNATURE,
    PrintedLine,
    agrees,
    pinned,
    read_printed,
    signature_version,
)
from harness.session import Session

__all__ = [
    "CHANCE_WINDOWS",
    "EXACT",
    "REPR_DIGITS",
    "SCALES",
    "Candidate",
    "Chance",
    "Printed",
    "PrintedLine",
    "SignatureReading",
    "alike_first",
    "as_printed",
    "chance",
    "closest_profile",
    "default_tolerance",
    "fewest_steps",
    "identify",
    "nearest",
    "printed_interval",
    "read_printed",
    "reading_corpus",
    "signature_reading",
    "simplest",
    "unmatched",
]


def _candidates(
    score: Printed,
    corpus: Corpus,
    progress: ProgressCallback | None,
    session: Session,
    tolerance: float | None = None,
    scales: Sequence[str] = SCALES,
) -> list[Candidate]:
    """Every evaluated configuration × scale, sorted by :func:`rank`.

    A candidate ``reproduces`` the score when its display (at the decimals the score was
    printed with, :func:`~harness.diagnose.candidates.printed_rounding`) is inside the printed
    interval (:func:`~harness.diagnose.candidates.reproduces`; within ``tolerance`` when
    given)."""
    score = as_printed(score)  # the printed precision kept, whatever type it came as
    key = (score.as_tuple(), corpus.hypotheses, corpus.references, tolerance, tuple(scales))
    got = _CANDIDATES.get(key)
    if got is not None:
        return list(got)
    inside = reproducer(score, tolerance)
    rounding = printed_rounding(score)
    again: dict[tuple[str, str], bool] = {}  # reprinted(), by profile and scale
    out = []
    with collector_paused():  # a candidate per reading and scale, none in a cycle
        for ev in evaluations(corpus, progress, session):
            profile, changes = closest_profile(ev.config)
            if ev.layout != "per-segment":
                changes = (*changes, "layout")
            for scale in scales:
                if (profile, scale) not in again:
                    again[profile, scale] = reprinted(profile, scale, score)
                out.append(
                    _candidate(
                        ev, profile, changes, scale, score, inside, rounding, again[profile, scale]
                    )
                )
        out.sort(key=rank)
    if len(_CANDIDATES) >= 4:
        _CANDIDATES.clear()
    _CANDIDATES[key] = tuple(out)
    return out


#: :func:`_candidates`' answers, by score (its digits), corpus, tolerance and scales: identify,
#: nearest and simplest ask for the same ones in a run.
_CANDIDATES: dict[tuple[Any, ...], tuple[Candidate, ...]] = {}


def _candidate(
    ev: Evaluated,
    profile: str,
    changes: tuple[str, ...],
    scale: str,
    score: Decimal,
    inside: Callable[[float], bool],
    rounding: str | None = None,
    again: bool | None = None,
) -> Candidate:
    """``ev`` on ``scale``, shown with the decimals the score was printed with, and whether
    that display reproduces it (``inside``: :func:`~harness.diagnose.candidates.reproducer`
    of it). ``rounding`` (:func:`~harness.diagnose.candidates.printed_rounding`) and ``again``
    (:func:`~harness.diagnose.candidates.reprinted`) of the score when already known."""
    if rounding is None:
        rounding = printed_rounding(score)
    raw = ev.raw100 / 100.0 if scale == "0-1" else ev.raw100
    shown = rounded(raw, rounding)
    return Candidate(
        config=ev.config,
        layout=ev.layout,
        profile=profile,
        changes=changes,
        raw=raw,
        scale=scale,
        rounding=rounding,
        shown=shown,
        distance=abs(shown - float(score)),
        equivalent=ev.equivalent,
        preprocessing=ev.preprocessing,
        reproduces=inside(shown),
        reprinted=reprinted(profile, scale, score) if again is None else again,
    )


def _as_evidence(score: Printed | PrintedLine) -> PrintedLine:
    """Whatever was passed as the printed result, as a :class:`PrintedLine` (a str is read
    in every printed form; a number keeps its printed precision)."""
    if isinstance(score, PrintedLine):
        return score
    if isinstance(score, str):
        return read_printed(score)
    return PrintedLine(str(score), "number", str(as_printed(score)), None)


def reading_corpus(corpus: Corpus, layout: str, preprocessing: tuple[str, ...]) -> Corpus:
    """The text a candidate scores: the files in its reference layout, or its preprocessing
    reading."""
    if layout != "per-segment":
        return corpus_layouts(corpus)[layout]
    for labels, c in corpus_readings(corpus):
        if labels == preprocessing:
            return c
    raise KeyError(preprocessing)


def unmatched(
    line: PrintedLine, candidate: Candidate, corpus: Corpus, session: Session
) -> list[str]:
    """What ``candidate`` does not reproduce of a printed result besides its score: settings
    its signature pins (``"tokenize=intl"``) and printed numbers (``"ref_len 61842 (this
    reading: 60012)"``); empty when it reproduces every one."""
    wrong = pinned(line, candidate)
    if not line.details:
        return wrong
    text = reading_corpus(corpus, candidate.layout, candidate.preprocessing)
    cfg = candidate.config
    stats = session.with_corpora(text).statistics(cfg, max_order=engine.orders_needed(cfg))
    return wrong + agrees(line, engine.score_statistics(stats, cfg))


#: The profiles of the tools whose output each printed form is: the tool that printed a line is
#: evidence too, so its own profile (with the settings of a signature) is tried exactly.
FORM_PROFILES: dict[str, tuple[str, ...]] = {
    "sacrebleu": ("sacrebleu",),
    "sacrebleu JSON": ("sacrebleu",),
    "multi-bleu.perl": ("multi-bleu", "multi-bleu-detok"),
    "mteval-v13a": ("mteval-v13a",),
    "torchmetrics": ("torchmetrics",),
    "dict": ("evaluate",),
    "lm-eval table": ("lm-eval",),
    "lm-eval table (bleu_max)": ("lm-eval-truthfulqa",),
}


def _printed_by(
    line: PrintedLine, corpus: Corpus, session: Session, tolerance: float | None
) -> list[Candidate]:
    """The tools that print ``line``'s form, each exactly as its profile (with the settings a
    signature pins), on the files as given and on each preprocessing reading: those that
    reproduce every printed number, fewest text mistakes first."""
    score = as_printed(line.score)
    tolerance = _tolerance(line, tolerance)
    inside = reproducer(score, tolerance)
    out = []
    for tool in FORM_PROFILES.get(line.form, ()):
        name = release_profile(tool, line)
        cfg = resolve_config(name, **line.settings)
        changes = tuple(closest_changes(name, cfg))
        for labels, text in corpus_readings(corpus):
            try:
                value = CorpusScorer(text, session=session).try_score(cfg)
            except HarnessError:
                value = None
            if value is None or not math.isfinite(value):
                continue
            ev = Evaluated(cfg, "per-segment", value, {}, labels)
            for scale in SCALES if line.scale is None else (line.scale,):
                c = _candidate(ev, name, changes, scale, score, inside)
                if c.reproduces and not unmatched(line, c, corpus, session):
                    out.append(c)
    out.sort(key=rank)
    return out


def _search(
    line: PrintedLine,
    corpus: Corpus,
    progress: ProgressCallback | None,
    session: Session,
    tolerance: float | None,
) -> list[Candidate]:
    scales = SCALES if line.scale is None else (line.scale,)
    return _candidates(line.score, corpus, progress, session, _tolerance(line, tolerance), scales)


def _tolerance(line: PrintedLine, tolerance: float | None) -> float | None:
    """The tolerance asked for; for a score printed as a float's repr, :data:`EXACT` of it
    (it stands for itself to the harness's agreement, not to its 17th digit, which the order
    of a library's additions already moves); else none (the printed interval)."""
    if tolerance is None and len(as_printed(line.score).as_tuple().digits) >= REPR_DIGITS:
        return EXACT * max(1.0, abs(float(line.score)))
    return tolerance


def identify(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    tolerance: float | None = None,
    progress: ProgressCallback | None = None,
) -> list[Candidate]:
    """The configurations that reproduce a printed result on ``corpus``.

    ``score`` is what was printed: a number, or the text a tool printed
    (:func:`~harness.scorers.printed.read_printed`: sacrebleu's line or JSON, multi-bleu.perl's
    line, mteval-v13a's, a dict of ``evaluate``'s keys, torchmetrics' tensor), or a
    :class:`PrintedLine`. A reading must reproduce every number printed, each within its
    printed precision, on the scale the form implies, and every setting a sacrebleu signature
    pins. ``corpus`` is a :class:`~harness.data.corpus.Corpus`, a fixture as
    ``"name/system"`` or a ``(hypotheses, per-segment references)`` pair. A number keeps the
    precision it was printed with (:func:`~harness.diagnose.candidates.as_printed`): the
    string ``"27"`` and the int ``27`` stand for [26.5, 27.5), ``"0.270"`` and
    ``Decimal("0.270")`` for [0.2695, 0.2705) (:func:`printed_interval`, upper end excluded);
    a float has no printed precision left and is read through its ``repr`` (``27.0``: [26.95,
    27.05)), so pass the string when you have it. ``tolerance``, when given, replaces the
    score's interval by ``|shown - score| <= tolerance``. Sorted by
    :func:`~harness.diagnose.candidates.rank`: steps from a named profile (factors changed and
    text mistakes assumed), then fewer configuration changes, simpler rounding and the
    distance; empty when nothing matches (see :func:`nearest`). ``progress``
    (:data:`~harness.progress.ProgressCallback`) is told of each tokenization searched, one
    stage per reference layout (``"identify: per-segment"``, …). ``session``: where statistics
    are counted and cached (its cache and workers; its corpora are not used): the run's one
    :class:`~harness.session.Session`, which the caller creates.
    """
    line = _as_evidence(score)
    if line.form == SIGNATURE:
        raise ConfigError(
            "a sacrebleu signature alone has no score to search for; signature_reading() "
            "(bleu-harness identify --score SIGNATURE) names the configuration it pins"
        )
    text = as_corpus(corpus)
    found = [x for x in _search(line, text, progress, session, tolerance) if x.reproduces]
    if line.details or line.settings:
        found = [x for x in found if not unmatched(line, x, text, session)]
    own = _printed_by(line, text, session, tolerance)
    return own + [
        x
        for x in _fold_releases(found)
        if not any(o.covers(x.config, x.layout, x.preprocessing) for o in own)
    ]


def _fold_releases(found: list[Candidate]) -> list[Candidate]:
    """``found`` without the readings of an older release's profile (``sacrebleu@1.4``) on
    text and a layout where a reading of today's profiles reproduces the line too in as few
    steps or fewer: an old release is named where it alone reproduces it, or reproduces it
    with fewer changes than any of today's (``sacrebleu-sentence@1.4`` as it is, before
    ``sacrebleu-sentence + smooth=none``, which prints the same mean)."""
    today: dict[tuple[str, tuple[str, ...]], int] = {}
    for x in found:
        if x.profile not in VERSIONED:
            where = (x.layout, x.preprocessing)
            today[where] = min(x.steps, today.get(where, x.steps))
    return [
        x
        for x in found
        if x.profile not in VERSIONED
        or x.steps < today.get((x.layout, x.preprocessing), x.steps + 1)
    ]


@dataclass(frozen=True)
class SignatureReading:
    """What a sacrebleu signature printed alone says: the settings it pins (``settings``,
    :class:`~harness.bleu.config.BleuConfig` fields), its number of references, sacrebleu's
    configuration with them (``config``), the named profiles with exactly that
    configuration (``profiles``; the library each names aside) and the settings it pins that
    differ from sacrebleu's defaults (``changed``). The defaults are those of the release the
    signature names (``version``, ``release_profile``). Its JSON writes the configuration as
    its signature (:attr:`config_signature`, under ``config``) and leaves ``changed`` out."""

    JSON_PROPERTIES: ClassVar[tuple[tuple[str, str], ...]] = (("config", "config_signature"),)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "signature",
        "settings",
        "nrefs",
        "config",
        "profiles",
        "version",
        "release_profile",
        "releases",
    )

    signature: str
    settings: dict[str, Any]
    nrefs: int | None
    config: BleuConfig = field(metadata={"json": False})
    profiles: tuple[str, ...]
    changed: dict[str, Any] = field(metadata={"json": False})
    #: the sacrebleu release the signature names, the profile of that release's defaults the
    #: signature is read on (``None``: none reproduces it; today's is used) and its releases
    version: str | None = None
    release_profile: str | None = "sacrebleu"
    releases: str = ""

    @property
    def config_signature(self) -> str:
        """The configuration's signature."""
        return self.config.signature()


def signature_reading(line: PrintedLine | str) -> SignatureReading:
    """The configuration a sacrebleu signature pins (:func:`~harness.scorers.printed.
    decode_signature` on sacrebleu's profile) and the named profiles that equal it.

    Raises:
        ConfigError: the text is not a signature alone, or names a tokenizer the harness
            does not implement.
    """
    if isinstance(line, str):
        line = read_printed(line)
    if line.form != SIGNATURE or line.signature is None:
        raise ConfigError(f"not a sacrebleu signature alone: {line.text[:80]!r}")
    version = signature_version(line.signature)
    known = profile_of_release("sacrebleu", version) if version else "sacrebleu"
    on = known or "sacrebleu"
    base = PROFILES[on]
    cfg = resolve_config(base, **line.settings)
    equal = tuple(
        name for name, p in PROFILES.items() if dataclasses.replace(p, library=cfg.library) == cfg
    )
    changed = {k: getattr(cfg, k) for k in line.settings if getattr(base, k) != getattr(cfg, k)}
    return SignatureReading(
        line.signature,
        dict(line.settings),
        line.nrefs,
        cfg,
        equal,
        changed,
        version=version,
        release_profile=known,
        releases=RELEASES.get(on, ""),
    )


def release_profile(tool: str, line: PrintedLine) -> str:
    """The profile that printed ``line`` as ``tool``: the profile of the release its
    signature names (``version:1.4.14`` → ``sacrebleu@1.4``,
    :func:`~harness.bleu.profiles.profile_of_release`), else ``tool``'s own (no version
    named, or a release no profile reproduces)."""
    version = signature_version(line.signature) if line.signature else None
    if version is None:
        return tool
    return profile_of_release(tool, version) or tool


#: How many windows of the printed width, either side of the score, :func:`chance` counts in.
CHANCE_WINDOWS = 10


@dataclass(frozen=True)
class Chance:
    """How many readings a printed score's window would hold by chance.

    ``searched`` readings (configurations × layouts × text readings × scales) were scored;
    ``nearby`` of them lie within :data:`CHANCE_WINDOWS` windows of the printed width either
    side of the score, so about ``expected = nearby / (2 * CHANCE_WINDOWS + 1)`` land in any
    one window there: a number of matches near ``expected`` is what the search alone gives,
    whatever configuration printed the score.
    """

    searched: int
    width: float
    nearby: int
    expected: float


def chance(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    progress: ProgressCallback | None = None,
) -> Chance:
    """How many of the searched readings a window as wide as the printed score's would hold
    near it by chance (:class:`Chance`), from the searched readings' own scores."""
    line = _as_evidence(score)
    exact = _tolerance(line, None)
    lo, hi = printed_interval(line.score)
    width = 2 * exact if exact is not None else float(hi - lo)
    centre = float(as_printed(line.score))
    scales = SCALES if line.scale is None else (line.scale,)
    evaluated = evaluations(as_corpus(corpus), progress, session)
    reach = width * (CHANCE_WINDOWS + 0.5)
    nearby = 0
    for ev in evaluated:
        for scale in scales:
            raw = ev.raw100 / 100.0 if scale == "0-1" else ev.raw100
            nearby += abs(raw - centre) < reach
    return Chance(
        searched=len(evaluated) * len(scales),
        width=width,
        nearby=nearby,
        expected=nearby / (2 * CHANCE_WINDOWS + 1),
    )


def nearest(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    count: int = 10,
    progress: ProgressCallback | None = None,
) -> list[Candidate]:
    """The ``count`` configurations whose displayed score is closest to the printed score,
    whatever the distance (use it when :func:`identify` finds nothing); ``score`` and
    ``session`` as for :func:`identify`. With a printed line, the readings that reproduce the
    score come first (:func:`unmatched` says what else they miss)."""
    line = _as_evidence(score)
    return _search(line, as_corpus(corpus), progress, session, None)[:count]


def fewest_steps(found: Sequence[Candidate]) -> int | None:
    """The fewest :attr:`~harness.diagnose.candidates.Candidate.steps` from a named profile
    among the matches; ``None`` without matches."""
    return min((c.steps for c in found), default=None)


def alike_first(found: Sequence[Candidate]) -> tuple[str, ...]:
    """The profiles of the first readings (``found`` in identify's order) that rank as the
    first does but for the distance (:func:`~harness.diagnose.candidates.rank`: as many steps
    and changes) and give the same number on the same scale (within 1e-9): where two or more
    profiles do, the files cannot tell them apart. Empty where one profile leads."""
    if not found:
        return ()
    first = found[0]
    names: list[str] = []
    for c in found:
        alike = rank(c)[:5] == rank(first)[:5] and c.scale == first.scale
        if not alike or abs(c.raw - first.raw) > 1e-9:
            break
        if c.profile not in names:
            names.append(c.profile)
    return tuple(names) if len(names) > 1 else ()


def simplest(
    score: Printed | PrintedLine,
    corpus: Corpus | str | tuple[Sequence[str], Sequence[Sequence[str]]],
    *,
    session: Session,
    steps: int = 1,
    progress: ProgressCallback | None = None,
) -> Candidate | None:
    """The reading nearest to the printed score among those at most ``steps`` steps from a
    named profile (a factor changed, a layout misuse or a text mistake is one step), whether
    or not it reproduces the score: the simple explanation to weigh against matches that
    chance alone would give (``None`` when there is none)."""
    line = _as_evidence(score)
    close = [
        c for c in _search(line, as_corpus(corpus), progress, session, None) if c.steps <= steps
    ]
    return min(close, key=lambda c: (round(c.distance, 12), rank(c))) if close else None
