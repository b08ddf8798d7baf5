"""The answer to "why do my BLEU numbers differ?" on a user's own systems.

:func:`answer` takes the corpus-level rows of a comparison (:func:`harness.run.run`
over one or more systems that share their references) and says, as data:

* which implementations give **identical** numbers on every system (a *family*: e.g. sacrebleu,
  lm-eval and mteval-v13a are one number on most text) — profiles are grouped, and each real
  library that ran is checked against its profile;
* each family's **gap** to the baseline (sacrebleu by default), as the mean over systems, and
  the **factors** that make it: exact Shapley values over the factors of
  :data:`~harness.analysis.attribution.FACTORS` of the mean score, computed from the session's
  statistics (linear, so they are the mean of the per-system attributions), with the value of
  each changed field on both sides;
* whether the **system ranking** changes: the pairs of systems a family orders the other way,
  each with the p-value of the family's own paired bootstrap on the two systems (a flip is
  *significant* below :data:`FLIP_ALPHA`: the family separates the two systems in the order
  opposite to the baseline's);
* the **causes** of the gaps, one per way a factor moves the score: a factor changed to values
  that give the same n-gram counts on every system (tokenizers that split this text alike)
  is one cause, whatever the implementations are called; each with its Shapley share of every
  family's gap it is part of (:class:`Cause`);
* the **spread** over BLEU-4 implementations (uniform weights over orders 1–4); profiles that
  weigh other orders (HELM's BLEU-1 and BLEU-4-only) are listed apart, since their distance
  from BLEU-4 says nothing about implementation choices.

:mod:`harness.report.console` renders it as the first screen of ``bleu-harness compare``, with
the findings in words written by :mod:`harness.report.answer_words`.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from harness.analysis.attribution import FACTORS, differing_factors, hybrid, shapley
from harness.analysis.library_check import SAME, LibraryCheck, library_check, spot_checks
from harness.analysis.significance import DEFAULT_SEED, paired_p_values, prepare
from harness.analysis.study_types import RankFlip
from harness.analysis.why import Why
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import LABELS, PROFILES, verification
from harness.bleu.stats import Statistics
from harness.errors import HarnessError
from harness.run.results import ResultRow
from harness.scorers import ADAPTERS, PROFILE_OF
from harness.session import Session

__all__ = [
    "FINDING_POINTS",
    "FLIP_ALPHA",
    "FLIP_RESAMPLES",
    "Answer",
    "Cause",
    "Family",
    "LibraryCheck",
    "answer",
    "causes_of",
    "display_name",
    "profile_label",
    "rank_flips",
]


#: A flip is significant when the family's paired bootstrap gives the two systems a p-value
#: below this.
FLIP_ALPHA = 0.05
#: Resamples of that paired bootstrap (sacrebleu's default).
FLIP_RESAMPLES = 1000

#: A cause moving some family by more than this many BLEU points (its Shapley share) is a
#: finding of its own; the smaller ones are counted together.
FINDING_POINTS = 0.5

#: Profile name → the real library that profile reproduces (``nltk`` for ``nltk``).
LIBRARY_OF: Mapping[str, str] = {p: a for a, p in PROFILE_OF.items()}


def display_name(profile: str) -> str:
    """What a user calls the implementation a profile reproduces: the library's adapter name
    where there is one, else the profile's name (``multi-bleu``, ``fairseq``)."""
    return LIBRARY_OF.get(profile, profile)


def profile_label(profile: str) -> str | None:
    """The setting a profile's name does not say, shown beside it (``None``: its name says
    it all): :data:`harness.bleu.profiles.LABELS`."""
    return LABELS.get(profile)


def is_bleu4(config: BleuConfig) -> bool:
    """BLEU with orders 1–4 weighted equally (what every library means by "BLEU")."""
    if config.max_order != 4:
        return False
    return config.weights is None or all(abs(w - 0.25) < 1e-12 for w in config.weights)


@dataclass(frozen=True)
class Family:
    """Profiles that print the same number on every system (the first is the representative).

    ``gap`` is the mean over systems of ``score − baseline score`` (``None`` when any member
    has no number on some system); ``factors`` its Shapley split, ``changes`` factor → {field:
    (baseline value, this family's value)}; ``flips`` the system pairs ``(a, b)`` that the
    baseline ranks a above b and this family b above a, and ``flip_p`` the p-value of each
    under the family's own paired bootstrap (:data:`FLIP_RESAMPLES` resamples at the
    answer's seed).
    """

    profiles: tuple[str, ...]
    scores: tuple[float | None, ...]
    status: str  # "ok", or the reason there is no number
    gap: float | None = None
    factors: Mapping[str, float] = field(default_factory=dict)
    changes: Mapping[str, Mapping[str, tuple[Any, Any]]] = field(default_factory=dict)
    flips: tuple[tuple[str, str], ...] = ()
    flip_p: tuple[float, ...] = ()
    libraries: tuple[LibraryCheck, ...] = ()
    bleu4: bool = True
    unverified: tuple[str, ...] = ()
    attribution_note: Why | None = None

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("names", "mean")
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "profiles",
        "names",
        "scores",
        "mean",
        "status",
        "gap",
        "factors",
        "changes",
        "flips",
        "flip_p",
        "libraries",
        "bleu4",
        "unverified",
        "attribution_note",
    )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(display_name(p) for p in self.profiles)

    @property
    def mean(self) -> float | None:
        vals = [s for s in self.scores if s is not None]
        return math.fsum(vals) / len(vals) if vals and len(vals) == len(self.scores) else None

    @property
    def significant_flips(self) -> tuple[tuple[str, str], ...]:
        """The flips whose p-value is below :data:`FLIP_ALPHA`."""
        return tuple(f for f, p in zip(self.flips, self.flip_p, strict=True) if p < FLIP_ALPHA)


@dataclass(frozen=True)
class Cause:
    """One cause of the BLEU-4 families' gaps: ``factor`` moved from the baseline's values to
    any of ``variants`` (each field → (baseline value, other value)); several variants when
    they give the same n-gram counts on every system (``same_counts``: e.g. tokenizers that
    split this text alike), or when they count as the baseline does and move each family
    they change by the same points. ``families`` are the
    families (their profiles) whose gap it is part of, ``shares`` its Shapley share of each
    of those gaps in BLEU points, in the same order."""

    factor: str
    variants: tuple[Mapping[str, tuple[Any, Any]], ...]
    families: tuple[tuple[str, ...], ...]
    shares: tuple[float, ...]
    same_counts: bool = False

    @property
    def size(self) -> float:
        """How far it moves a family at most: the largest share, in absolute value."""
        return max((abs(p) for p in self.shares), default=0.0)


@dataclass(frozen=True)
class Answer:
    """Everything the first screen says, as data (see the module docstring). ``causes``:
    the causes grouped by their counts (:func:`answer` has the session for that); ``None``
    when only the families were kept, as in a report (:attr:`by_cause` then groups by the
    changed values alone)."""

    systems: tuple[str, ...]
    segments: int
    references: tuple[int, int]  # fewest and most references of a segment
    baseline: str
    families: tuple[Family, ...]
    seed: int = DEFAULT_SEED
    causes: tuple[Cause, ...] | None = field(default=None, metadata={"json": False})

    #: Its JSON's ``causes`` are :attr:`by_cause`, after the seed (the order readers know).
    JSON_PROPERTIES: ClassVar[tuple[tuple[str, str], ...]] = (("causes", "by_cause"),)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "systems",
        "segments",
        "references",
        "baseline",
        "seed",
        "families",
        "causes",
    )

    @property
    def by_cause(self) -> tuple[Cause, ...]:
        """The causes, largest first (:func:`causes_of` when none were grouped by counts)."""
        found = self.causes if self.causes is not None else causes_of(self)
        return tuple(sorted(found, key=lambda c: -c.size))

    @property
    def reversed_pairs(self) -> tuple[tuple[str, str], ...]:
        """The distinct system pairs some BLEU-4 family orders the other way than the
        baseline (a pair is named once however many families reverse it)."""
        return tuple(dict.fromkeys(p for f in self.reordering for p in f.flips))

    @property
    def significant_pairs(self) -> tuple[tuple[str, str], ...]:
        """The distinct reversed pairs that at least one family's paired bootstrap finds
        significant."""
        return tuple(dict.fromkeys(p for f in self.reordering for p in f.significant_flips))

    @property
    def system_pairs(self) -> int:
        return len(self.systems) * (len(self.systems) - 1) // 2

    @property
    def reordering(self) -> tuple[Family, ...]:
        """The BLEU-4 families with a number that order at least one pair of systems the
        other way than the baseline, most flips first."""
        moved = [f for f in self.families if f.bleu4 and f.profiles and f.flips]
        return tuple(sorted(moved, key=lambda f: (-len(f.flips), -len(f.significant_flips))))

    @property
    def baseline_family(self) -> Family:
        return next(f for f in self.families if self.baseline in f.profiles)

    @property
    def libraries(self) -> tuple[LibraryCheck, ...]:
        return tuple(lib for f in self.families for lib in f.libraries)


# ---------------------------------------------------------------------- building it
def answer(
    rows: Sequence[ResultRow],
    session: Session,
    *,
    baseline: str = "sacrebleu",
    seed: int = DEFAULT_SEED,
) -> Answer:
    """The answer for the corpus-level ``rows`` of profiles and libraries on the systems of
    ``session`` (its corpora, by system name, in the rows' order).

    ``baseline`` must be one of the profiles in the rows; gaps are measured from it. ``seed``
    seeds the paired bootstrap of every flip.
    """
    corpus_rows = [r for r in rows if r.level == "corpus"]
    systems = tuple(dict.fromkeys(r.system for r in corpus_rows))
    samples: dict[str, dict[str, ResultRow]] = {}
    for r in rows:
        if r.level == "sample":
            samples.setdefault(r.implementation, {})[r.system] = r
    profile_scores: dict[str, list[float | None]] = {}
    profile_status: dict[str, str] = {}
    library_rows: dict[str, dict[str, ResultRow]] = {}
    for r in corpus_rows:
        name = r.implementation
        if r.kind == "profile":
            prof = name.split(":", 1)[1]
            profile_scores.setdefault(prof, [None] * len(systems))
            k = systems.index(r.system)
            profile_scores[prof][k] = r.score if r.status == "ok" else None
            if r.status != "ok":
                profile_status.setdefault(prof, f"{r.status}: {r.error}")
        else:
            library_rows.setdefault(name, {})[r.system] = r
    for name in samples:
        if name in ADAPTERS:
            library_rows.setdefault(name, {})
    if baseline not in profile_scores:
        raise HarnessError(f"the baseline profile {baseline!r} is not among the implementations")
    groups = _group(profile_scores)
    base_scores = profile_scores[baseline]
    attributed = all(s is not None for s in base_scores)
    if attributed:
        # every family's mixed configurations counted in one pass (one pool of workers, each
        # tokenization once) before the families are split one by one; what fails here fails
        # again in that family's own split, which says so in its note
        with contextlib.suppress(HarnessError):
            session.warm(
                c
                for members in groups
                if baseline not in members and profile_status.get(members[0], "ok") == "ok"
                for c in _hybrids(PROFILES[baseline], PROFILES[members[0]])
            )
    families = []
    for members in groups:
        rep = members[0]
        scores = tuple(profile_scores[rep])
        status = profile_status.get(rep, "ok")
        libs = tuple(
            library_check(lib, library_rows[lib], systems, scores, spot_checks(lib, samples))
            for p in members
            if (lib := LIBRARY_OF.get(p)) in library_rows
        )
        fam = Family(
            profiles=members,
            scores=scores,
            status=status,
            libraries=libs,
            bleu4=is_bleu4(PROFILES[rep]),
            unverified=tuple(p for p in members if not verification(p).verified),
        )
        if status == "ok" and attributed:
            fam = _with_gap(fam, baseline, base_scores, session, systems, seed)
        families.append(fam)
    # Libraries whose profile is not among the rows still appear, as their own line.
    listed = {lib.name for f in families for lib in f.libraries}
    for lib, by_system in library_rows.items():
        if lib not in listed:
            check = library_check(lib, by_system, systems, None)
            families.append(
                Family(profiles=(), scores=check.scores, status="ok", libraries=(check,))
            )
    families.sort(key=_order)
    corpora = [session.corpora[s] for s in systems]
    counts = [len(refs) for refs in corpora[0].references] if corpora else [0]
    ans = Answer(
        systems=systems,
        segments=len(corpora[0]) if corpora else 0,
        references=(min(counts), max(counts)),
        baseline=baseline,
        families=tuple(families),
        seed=seed,
    )
    digest = _counts_digest(session, systems, PROFILES[baseline])
    return Answer(**{**ans.__dict__, "causes": causes_of(ans, digest)})


def causes_of(
    ans: Answer, counts: Callable[[str, str], str | None] | None = None
) -> tuple[Cause, ...]:
    """The causes of the gaps of ``ans``'s BLEU-4 families, in the families' order.

    Each factor of a family's split is one cause per way it changes the score:
    ``counts(profile, factor)`` is a digest of the n-gram counts on every system of the
    baseline with that one factor taken from ``profile`` (``None``: the same counts as the
    baseline's); factors whose digests are equal are one cause, whatever values they name.
    A factor that leaves the counts alone (or every factor, without ``counts``) is one cause
    per set of changed values.
    """
    Changes = Mapping[str, tuple[Any, Any]]
    groups: dict[tuple[str, str], list[tuple[Family, list[Changes], float]]] = {}
    for fam in ans.families:
        if not fam.bleu4 or fam.gap is None or ans.baseline in fam.profiles:
            continue
        for factor, points in fam.factors.items():
            changes = [fam.changes.get(factor, {})]
            digest = counts(fam.profiles[0], factor) if counts is not None else None
            how = f"counts {digest}" if digest else f"values {sorted(changes[0].items())!r}"
            if digest:  # the family's other members whose values count alike are named too
                changes += [
                    _changes(ans.baseline, p, factor)
                    for p in fam.profiles[1:]
                    if counts is not None and counts(p, factor) == digest
                ]
            groups.setdefault((factor, how), []).append((fam, changes, points))
    # values that count as the baseline's but move each family they change by the same
    # points (smoothing methods that all give 0 where an order has no match) are one cause
    same_effect: dict[tuple[str, str], tuple[str, str]] = {}
    for key in groups:
        if key[1].startswith("values"):
            for other in list(dict.fromkeys(same_effect.values())):
                mine, theirs = (sorted(p for *_, p in groups[k]) for k in (key, other))
                if other[0] == key[0] and len(mine) == len(theirs) and _same(mine, theirs):
                    same_effect[key] = other
                    break
            else:
                same_effect[key] = key
    for key, into in same_effect.items():
        if key != into:
            groups[into] += groups.pop(key)
    out = []
    for (factor, how), hits in groups.items():
        variants: list[Changes] = []
        for _fam, changes, _points in hits:
            variants += [ch for ch in changes if ch not in variants]
        out.append(
            Cause(
                factor=factor,
                variants=tuple(variants),
                families=tuple(fam.profiles for fam, _, _ in hits),
                shares=tuple(points for _, _, points in hits),
                same_counts=how.startswith("counts"),
            )
        )
    return tuple(out)


def _changes(baseline: str, profile: str, factor: str) -> Mapping[str, tuple[Any, Any]]:
    """The fields of ``factor`` on which ``profile`` differs from ``baseline``: field →
    (baseline value, profile value)."""
    a, b = PROFILES[baseline], PROFILES[profile]
    pairs = {f: (getattr(a, f), getattr(b, f)) for f in FACTORS[factor]}
    return {f: v for f, v in pairs.items() if v[0] != v[1]}


def _counts_digest(
    session: Session, systems: Sequence[str], base: BleuConfig
) -> Callable[[str, str], str | None]:
    """``counts(profile, factor)`` for :func:`causes_of`: a digest of the n-gram counts of
    every system under ``base`` with ``factor`` taken from ``profile``, ``None`` when they
    are ``base``'s own counts (or cannot be counted)."""
    memo: dict[BleuConfig, str | None] = {}

    def part(st: Statistics) -> bytes:
        # configurations of one tokenization share their statistics: each digested once
        def make() -> bytes:
            h = hashlib.blake2b(digest_size=16)
            for array in (st.hyp_len, st.matches):
                h.update(repr(array.shape).encode())
                h.update(array.astype("int64").tobytes())
            h.update(repr(st.ref_lens).encode())
            return h.digest()

        return st.memo("answer-counts-digest", make)

    def digest(config: BleuConfig) -> str | None:
        h = hashlib.blake2b(digest_size=16)
        try:
            for name in systems:
                h.update(part(session.statistics(config, name)))
        except HarnessError:
            return None
        return h.hexdigest()

    own = digest(base)

    def counts(profile: str, factor: str) -> str | None:
        config = hybrid(base, PROFILES[profile], (factor,))
        if config not in memo:
            found = digest(config)
            memo[config] = None if found == own else found
        return memo[config]

    return counts


def _order(f: Family) -> tuple[int, float]:
    """Families with a number first, highest mean first; BLEU-4 before other weights."""
    mean = f.mean
    return (0 if f.bleu4 else 1) * 2 + (0 if mean is not None else 1), -(mean or 0.0)


def _group(scores: Mapping[str, Sequence[float | None]]) -> list[tuple[str, ...]]:
    """Profiles with the same number (within :data:`SAME`) on every system, in declared order."""
    groups: list[list[str]] = []
    for name in scores:
        for g in groups:
            if _same(scores[g[0]], scores[name]):
                g.append(name)
                break
        else:
            groups.append([name])
    return [tuple(g) for g in groups]


def _same(a: Sequence[float | None], b: Sequence[float | None]) -> bool:
    return all(
        (x is None and y is None) or (x is not None and y is not None and abs(x - y) <= SAME)
        for x, y in zip(a, b, strict=True)
    )


def _with_gap(
    fam: Family,
    baseline: str,
    base_scores: Sequence[float | None],
    session: Session,
    systems: Sequence[str],
    seed: int,
) -> Family:
    """``fam`` with its mean gap to ``baseline``, the Shapley split of that gap over the
    factors (on the mean over systems), and the system pairs it ranks the other way with
    their p-values."""
    rep = fam.profiles[0]
    gaps = [s - b for s, b in zip(fam.scores, base_scores, strict=True)]  # type: ignore[operator]
    gap = math.fsum(gaps) / len(gaps)
    a, b = PROFILES[baseline], PROFILES[rep]
    names = differing_factors(a, b)
    factors: dict[str, float] = {}
    note = None
    if baseline not in fam.profiles and names:
        configs = _hybrids(a, b)

        def value(mask: int) -> float:
            vals = session.corpus_scores(configs[mask], systems)
            return math.fsum(vals) / len(vals)

        try:
            session.warm(configs)
            factors = dict(zip(names, shapley(len(names), value), strict=True))
        except HarnessError as exc:  # a hybrid no library computes would raise here
            note = Why("mixed-configuration", detail=str(exc))
            factors = {}
    changes = {name: {f: (getattr(a, f), getattr(b, f)) for f in FACTORS[name]} for name in names}
    changes = {n: {f: v for f, v in ch.items() if v[0] != v[1]} for n, ch in changes.items()}
    flips = _flips(systems, base_scores, fam.scores)
    return Family(
        **{
            **fam.__dict__,
            "gap": gap,
            "factors": factors,
            "changes": changes,
            "flips": flips,
            "flip_p": _flip_p_values(flips, PROFILES[rep], session, seed),
            "attribution_note": note,
        }
    )


def _flip_p_values(
    flips: Sequence[tuple[str, str]], config: BleuConfig, session: Session, seed: int
) -> tuple[float, ...]:
    """The paired-bootstrap p-value of each flipped pair under ``config`` (the family's)."""
    systems = dict.fromkeys(s for pair in flips for s in pair)
    tables = {s: prepare(session.statistics(config, s), config) for s in systems}
    return paired_p_values(tables, flips, config, resamples=FLIP_RESAMPLES, seed=seed)


def mixed_configs(profiles: Iterable[str], baseline: str) -> tuple[BleuConfig, ...]:
    """Every configuration :func:`answer` may score to split a family's gap to ``baseline``
    (the mixes of ``baseline`` with each other profile of ``profiles``), for a run to count
    up front; what it does not read costs nothing more than its counting."""
    base = PROFILES[baseline]
    return tuple(c for p in profiles if p != baseline for c in _hybrids(base, PROFILES[p]))


def _hybrids(a: BleuConfig, b: BleuConfig) -> list[BleuConfig]:
    """Every mix of ``a`` and ``b`` over the factors on which they differ, indexed by the mask
    of factors taken from ``b`` (``a`` itself first, ``b`` last); none when they agree."""
    names = differing_factors(a, b)
    if not names:
        return []
    configs = [hybrid(a, b, _members(names, m)) for m in range(1 << len(names))]
    configs[0], configs[-1] = a, b
    return configs


def _members(names: Sequence[str], mask: int) -> tuple[str, ...]:
    return tuple(n for i, n in enumerate(names) if mask >> i & 1)


def rank_flips(
    systems: Sequence[str],
    scores_a: Sequence[float | None],
    scores_b: Sequence[float | None],
) -> tuple[tuple[RankFlip, ...], int]:
    """``(flips, pairs)``: the pairs of ``systems`` that ``a`` ranks strictly one way and ``b``
    strictly the other, the system ranked higher by ``a`` first; and how many pairs of systems
    both scored (``n (n − 1) / 2`` of the ``n`` systems with both scores).

    >>> flips, pairs = rank_flips(["A", "B", "C"], [30.0, 20.0, 10.0], [25.0, 26.0, None])
    >>> pairs, [(f.systems, f.scores_a, f.scores_b) for f in flips]
    (1, [(('A', 'B'), (30.0, 20.0), (25.0, 26.0))])
    """
    scored = [
        (s, x, y)
        for s, x, y in zip(systems, scores_a, scores_b, strict=True)
        if x is not None and y is not None
    ]
    flips = []
    for i, (si, ai, bi) in enumerate(scored):
        for sj, aj, bj in scored[i + 1 :]:
            da, db = ai - aj, bi - bj
            if da == 0 or db == 0 or (da > 0) == (db > 0):
                continue
            if da > 0:
                flips.append(RankFlip((si, sj), (ai, aj), (bi, bj)))
            else:
                flips.append(RankFlip((sj, si), (aj, ai), (bj, bi)))
    return tuple(flips), len(scored) * (len(scored) - 1) // 2


def _flips(
    systems: Sequence[str], base: Sequence[float | None], other: Sequence[float | None]
) -> tuple[tuple[str, str], ...]:
    """Pairs (a, b), a ranked above b by ``base`` (strictly) and below b by ``other``
    (:func:`rank_flips`, the one definition of a flip)."""
    return tuple(flip.systems for flip in rank_flips(systems, base, other)[0])
