"""BLEU against human judgments: WMT21 en→de MQM and WMT19 system-level DA.

**WMT21 en→de, MQM** (:func:`wmt21_human_correlations`). For every requested in-house profile
(:data:`harness.bleu.profiles.PROFILES`), BLEU is correlated with Google's MQM scores (Freitag et al.
2021; ≤ 0, higher is better) of the 8 MQM-rated MT systems:

* *segment level*: the sentence score of each rated segment of each system (527 × 8 = 4216
  pairs, pooled over systems) against its MQM score;
* *system level*: corpus BLEU of each system over all 1002 segments with references A, C, D
  against the system's mean MQM over its rated segments (``mqm_sys.tsv``).

Each with Pearson, Spearman and Kendall τ-b, p-values and percentile bootstrap intervals
(:func:`harness.statistics.correlation.correlate`). The segment-level bootstrap resamples the
pooled pairs independently, ignoring that the 8 systems translate the same source segments, so
its intervals are if anything too narrow. Sentence scores are used exactly as the engine
computes them: rank correlations see ties only between bit-identical floats, so scores that are
mathematically equal but differ by rounding noise (~1e-13) are not tied — with the real
sacreBLEU's own floats, segment-level Spearman moves in the 6th decimal. A
:class:`~harness.session.Session` counts statistics once per tokenization and system; every
profile sharing that tokenization is scored from them.

It also says whether the choice of implementation changes the **system ranking**: Kendall τ-b
between each profile's system scores and the reference profile's (``sacrebleu``), the system
pairs they order differently, and how many pairs each orders against MQM.

**WMT19 system-level DA** (:func:`wmt19_bleu_vs_human`, :func:`mathur_outliers`): the
``*-sys-nohy-scores.csv`` files of Mathur et al. (2020, "Tangled up in BLEU", ACL) — one row
per system, the DA z-score ``HUMAN`` and the WMT19 metric scores — read by
:func:`load_wmt19_syslevel`. Outliers follow Mathur et al.: a system is an outlier when its
human score's robust z-score exceeds 2.5 in absolute value,
``|HUMAN − median(HUMAN)| / (b · MAD) > 2.5`` with ``MAD = median(|HUMAN − median(HUMAN)|)``
over the language pair's systems and ``b = 1.4826`` (≈ 1/Φ⁻¹(3/4), which makes b·MAD estimate
the standard deviation of normal data; Leys et al. 2013, whose 2.5 cut-off the paper adopts).
The constants and the strict ``>`` are those of the authors' released code
(``nitikam/tangled``, ``outliers/outliers.py``: ``b=1.4826``, ``rescaled > 2.5``); the paper
text rounds b to 1.483, which changes no decision on these files (tested). Outliers are
detected on the human scores only, per language pair, and the correlation is recomputed on the
remaining systems.

Every function returns JSON-ready rows or a frozen dataclass that
:func:`harness.typed_json.to_json` writes (``None``, never NaN).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from harness.bleu import engine
from harness.bleu.profiles import DEFAULT_PROFILES, PROFILES
from harness.bleu.stats import Statistics
from harness.data.datasets import (
    ENV_VAR,
    WMT21_DIR,
    WMT21_REFS,
    WMT21_SYSTEMS,
    data_dir,
    load_wmt21_ende,
    wmt21_mqm,
)
from harness.errors import ConfigError, HarnessError, InputError
from harness.progress import ProgressCallback, track
from harness.session import Session
from harness.statistics.correlation import (
    METHODS,
    BootstrapOptions,
    Correlation,
    correlate,
    finite,
)
from harness.statistics.correlation_cells import correlate_each

__all__ = [
    "MAD_SCALE",
    "OUTLIER_THRESHOLD",
    "WMT19_DIR",
    "HumanCorrelations",
    "load_wmt19_syslevel",
    "mad_outliers",
    "mathur_outliers",
    "wmt19_bleu_vs_human",
    "wmt21_human_correlations",
]

WMT19_DIR = "wmt19_syslevel_da_metrics_tangled"
MAD_SCALE = 1.4826
"""b in Mathur et al.'s robust z-score (their code's value; the paper prints 1.483)."""
OUTLIER_THRESHOLD = 2.5
"""|robust z| above which a system is an outlier (Mathur et al. 2020, after Leys et al. 2013)."""


# ============================================================================ WMT21 MQM
def _profile_name(spec: str) -> str:
    for prefix in ("profile:", "harness:"):
        if spec.startswith(prefix):
            spec = spec[len(prefix) :]
    if spec not in PROFILES:
        raise ConfigError(f"unknown profile {spec!r}", valid=sorted(PROFILES))
    return spec


def _sentence_scores(stats: Statistics, name: str) -> tuple[list[float | None], list[str]]:
    """Sentence scores of every segment under profile ``name``; ``None`` (and the error) where
    the profiled library raises on that segment."""
    config = PROFILES[name]
    try:
        return [r.score for r in engine.segment_results(stats, config)], []
    except HarnessError:
        pass
    scores: list[float | None] = []
    errors: list[str] = []
    for i in range(len(stats)):
        try:
            scores.append(engine.segment_results(stats.subset([i]), config)[0].score)
        except HarnessError as exc:
            scores.append(None)
            errors.append(f"segment {stats.ids[i]}: {exc}")
    return scores, errors


def _failure(
    name: str, level: str, system: str, segments: int | None, error: str
) -> dict[str, Any]:
    """A row of ``HumanCorrelations.failures``: what ``name`` could not score, and why."""
    keys = ("implementation", "level", "system", "segments", "error")
    return dict(zip(keys, (name, level, system, segments, error), strict=True))


def _pair_order(a: float | None, b: float | None) -> int | None:
    if a is None or b is None:
        return None
    return (a > b) - (a < b)


def _ranking_row(
    name: str,
    scores: Mapping[str, float | None],
    ref_scores: Mapping[str, float | None],
    human: Mapping[str, float],
    reference: str,
) -> dict[str, Any]:
    systems = list(scores)
    ranking = sorted(
        systems, key=lambda s: (scores[s] is None, -(scores[s] or 0.0), s)
    )  # best first; systems without a score last
    swapped: list[list[str]] = []
    tie_changed: list[list[str]] = []
    for a, b in combinations(systems, 2):
        r, o = _pair_order(ref_scores[a], ref_scores[b]), _pair_order(scores[a], scores[b])
        if r is None or o is None or r == o:
            continue
        hi, lo = (a, b) if r > 0 or (r == 0 and o < 0) else (b, a)
        (swapped if r * o < 0 else tie_changed).append([hi, lo])
    both = [s for s in systems if scores[s] is not None and ref_scores[s] is not None]
    x = [scores[s] or 0.0 for s in both]  # none is None
    y = [ref_scores[s] or 0.0 for s in both]
    tau = None
    if len(both) >= 2 and np.ptp(x) > 0 and np.ptp(y) > 0:
        from scipy import stats as sps  # slow to import: only once a tau is computed

        tau = finite(sps.kendalltau(x, y, variant="b").statistic)
    rated = [s for s in systems if s in human and scores[s] is not None]
    against_human = sum(
        1
        for a, b in combinations(rated, 2)
        if (_pair_order(scores[a], scores[b]) or 0) * (_pair_order(human[a], human[b]) or 0) < 0
    )
    return {
        "implementation": name,
        "reference": reference,
        "n_systems": len(both),
        "ranking": ranking,
        "kendall_tau_vs_reference": tau,
        "same_ranking": not swapped and not tie_changed and len(both) == len(systems),
        "swapped_pairs": swapped,
        "tie_changed_pairs": tie_changed,
        "pairs_against_mqm": against_human,
        "pairs_rated": len(rated) * (len(rated) - 1) // 2,
    }


@dataclass(frozen=True)
class HumanCorrelations:
    """The result of :func:`wmt21_human_correlations`.

    ``correlations[implementation][level]`` (levels ``"segment"``, ``"system"``) is a
    :class:`~harness.statistics.correlation.Correlation`; ``system_scores[implementation]
    [system]`` the corpus score (0–100; ``None`` if the profiled library raises);
    ``human_system[system]`` the mean MQM; ``rankings`` one row per implementation (see
    :func:`wmt21_human_correlations`); ``failures`` the segments or systems a profile could
    not score, with the error. ``segment_keys`` lists the ``(system, seg_id)`` of the
    segment-level pairs, aligned with ``segment_scores[implementation]`` (sentence scores,
    ``None`` where the profiled library raises) and ``human_segment`` (MQM): these three are
    not in its JSON. ``rows()`` flattens the correlations to one JSON-ready row per
    implementation and level.
    """

    dataset: str
    systems: tuple[str, ...]
    ranking_systems: tuple[str, ...]
    refs: tuple[str, ...]
    reference: str
    n_rated_segments: Mapping[str, int]
    correlations: Mapping[str, Mapping[str, Correlation]] = field(repr=False)
    system_scores: Mapping[str, Mapping[str, float | None]] = field(repr=False)
    human_system: Mapping[str, float] = field(repr=False)
    rankings: tuple[Mapping[str, Any], ...] = field(repr=False)
    failures: tuple[Mapping[str, Any], ...]
    signatures: Mapping[str, str] = field(repr=False)
    segment_keys: tuple[tuple[str, str], ...] = field(repr=False, metadata={"json": False})
    segment_scores: Mapping[str, tuple[float | None, ...]] = field(
        repr=False, metadata={"json": False}
    )
    human_segment: tuple[float, ...] = field(repr=False, metadata={"json": False})
    seed: int | None
    n_boot: int
    ci: float

    JSON_PROPERTIES: ClassVar[tuple[str, ...]] = ("rows",)
    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "dataset",
        "systems",
        "ranking_systems",
        "refs",
        "reference",
        "n_rated_segments",
        "seed",
        "n_boot",
        "ci",
        "rows",
        "correlations",
        "system_scores",
        "human_system",
        "rankings",
        "failures",
        "signatures",
    )

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per (implementation, level): n, and per method the value, p-value and
        interval (``pearson``, ``pearson_p``, ``pearson_ci_low``, ``pearson_ci_high`` …)."""
        out = []
        for name, levels in self.correlations.items():
            for level, corr in levels.items():
                row: dict[str, Any] = {"implementation": name, "level": level}
                row.update(signature=self.signatures[name], **corr.flat())
                row.update(seed=self.seed, n_boot=self.n_boot, ci=self.ci)
                out.append(row)
        return out


def wmt21_human_correlations(
    data: str | os.PathLike[str] | None = None,
    implementations: Sequence[str] | None = None,
    *,
    reference: str = "sacrebleu",
    ranking_systems: str = "mqm",
    bootstrap: BootstrapOptions | None = None,
    progress: ProgressCallback | None = None,
    session: Session,
) -> HumanCorrelations:
    """Correlate every profile's BLEU with WMT21 en→de MQM, at segment and system level.

    ``implementations``: profile names (``"sacrebleu"`` or ``"profile:sacrebleu"``; default:
    every profile in :data:`~harness.bleu.profiles.PROFILES`). ``reference``: the profile whose
    system ranking the others are compared with. ``ranking_systems``: ``"mqm"`` ranks the 8
    MQM-rated systems, ``"all"`` the 20 MT systems of the subset (more statistics to count).
    ``bootstrap`` (:class:`~harness.statistics.correlation.BootstrapOptions`; ``None``: its
    defaults): the
    correlations' intervals, as in :func:`~harness.statistics.correlation.correlate`
    (segment-level Kendall's interval is the asymptotic one unless ``n_boot_kendall`` asks for
    a bootstrap).

    Each ``rankings`` row: ``ranking`` (best first), ``kendall_tau_vs_reference``,
    ``same_ranking``, ``swapped_pairs`` (``[a, b]``: the reference scores a above b, this
    implementation b above a), ``tie_changed_pairs`` (a tie in one and not the other) and
    ``pairs_against_mqm`` (of ``pairs_rated`` pairs of MQM-rated systems, how many this
    implementation orders against mean MQM).

    ``progress`` (:data:`~harness.progress.ProgressCallback`) is told of each tokenization
    counted (stage ``"human: statistics"``) and each profile correlated (``"human: profiles"``).
    ``session`` (required): whose cache (memory, disk) and workers count the systems'
    statistics.
    """
    bootstrap = bootstrap or BootstrapOptions()
    n_boot, n_boot_kendall = bootstrap.n_boot, bootstrap.n_boot_kendall
    seed, confidence = bootstrap.seed, bootstrap.confidence
    if implementations is None:
        implementations = DEFAULT_PROFILES
    elif isinstance(implementations, str):
        implementations = (implementations,)
    names = list(dict.fromkeys(_profile_name(s) for s in implementations))
    if not names:
        raise ConfigError("no implementations given", valid=sorted(PROFILES))
    reference = _profile_name(reference)
    if ranking_systems not in ("mqm", "all"):
        raise ConfigError(f"unknown ranking_systems {ranking_systems!r}", valid=("mqm", "all"))
    scored = [*names, reference] if reference not in names else names

    mqm = wmt21_mqm(data)
    systems = tuple(sorted(s for s in mqm["segment"] if s in WMT21_SYSTEMS))
    ranked = systems if ranking_systems == "mqm" else tuple(sorted(WMT21_SYSTEMS))
    corpora = load_wmt21_ende(data, systems=sorted(set(systems) | set(ranked)), refs=WMT21_REFS)
    rated = {s: [i for i, v in enumerate(mqm["segment"][s]) if v is not None] for s in systems}

    # Statistics once per tokenization and system, with every order any profile needs.
    wmt = session.with_corpora(corpora)
    wmt.warm([PROFILES[n] for n in scored], progress=progress, stage="human: statistics")

    human_seg = [mqm["segment"][s][i] for s in systems for i in rated[s]]
    seg_keys = tuple((s, mqm["seg_ids"][i]) for s in systems for i in rated[s])
    seg_vectors: dict[str, tuple[float | None, ...]] = {}
    human_sys = {s: float(mqm["system"][s]["mqm_mean"]) for s in systems}
    corr = partial(
        correlate, n_boot=n_boot, n_boot_kendall=n_boot_kendall, seed=seed, confidence=confidence
    )
    correlations: dict[str, dict[str, Correlation]] = {}
    system_scores: dict[str, dict[str, float | None]] = {}
    failures: list[dict[str, Any]] = []
    for name in track(scored, progress, "human: profiles"):
        config = PROFILES[name]
        seg_x: list[float | None] = []
        for s in systems:
            sub = wmt.statistics(config, s).subset(rated[s])
            scores, errors = _sentence_scores(sub, name)
            seg_x.extend(scores)
            if errors:
                failures.append(_failure(name, "segment", s, len(errors), errors[0]))
        sys_scores: dict[str, float | None] = {}
        for s in ranked:
            try:
                sys_scores[s] = wmt.score(config, s).score
            except HarnessError as exc:
                sys_scores[s] = None
                failures.append(_failure(name, "system", s, None, str(exc)))
        system_scores[name] = sys_scores
        seg_vectors[name] = tuple(seg_x)
        if name not in names:  # the reference, scored only for its ranking
            continue
        correlations[name] = {
            "system": corr([sys_scores[s] for s in systems], [human_sys[s] for s in systems]),
        }
    # Every profile against the same human judgments: computed together, each the same
    # correlation as alone.
    by_segment = correlate_each(
        {name: seg_vectors[name] for name in correlations},
        human_seg,
        n_boot=n_boot,
        n_boot_kendall=n_boot_kendall,
        seed=seed,
        confidence=confidence,
    )
    correlations = {
        name: {"segment": by_segment[name], **levels} for name, levels in correlations.items()
    }

    rankings = tuple(
        _ranking_row(name, system_scores[name], system_scores[reference], human_sys, reference)
        for name in names
    )
    return HumanCorrelations(
        dataset=WMT21_DIR,
        systems=systems,
        ranking_systems=ranked,
        refs=tuple(WMT21_REFS),
        reference=reference,
        n_rated_segments={s: len(rated[s]) for s in systems},
        correlations={n: correlations[n] for n in names},
        system_scores={n: system_scores[n] for n in names},
        human_system=human_sys,
        rankings=rankings,
        failures=tuple(f for f in failures if f["implementation"] in names),
        signatures={n: PROFILES[n].signature() for n in names},
        segment_keys=seg_keys,
        segment_scores={n: seg_vectors[n] for n in names},
        human_segment=tuple(float(h) for h in human_seg),
        seed=seed,
        n_boot=n_boot,
        ci=confidence,
    )


# ============================================================================ WMT19 DA
_WMT19_FILE = re.compile(r"^DA-newstest2019-([a-z]{2})([a-z]{2})-sys-nohy-scores\.csv$")


def _number(value: str, what: str, path: str, line: int) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"{what} {value!r} is not a number", file=path, line=line) from None
    if not math.isfinite(number):
        raise InputError(f"{what} {value!r} is not finite", file=path, line=line)
    return number


def load_wmt19_syslevel(data: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """The WMT19 system-level DA files: ``{lp: {"file", "systems", "scores"}}``.

    ``systems`` lists the systems in file order; ``scores`` maps each numeric column —
    ``HUMAN`` (the DA z-score) and every metric — to a list aligned with ``systems``.

    Files are whitespace-separated with a header row (the folder's README). The first header
    field ``LP`` is the language-pair column (checked to equal the pair in the file name); a
    *later* ``LP`` is the LP metric and is kept under ``"LP"`` in ``scores`` (not every file has
    it). Rows must have as many fields as the header; every score must be a finite number;
    systems must not repeat.
    """
    folder = data_dir(data) / WMT19_DIR
    if not folder.is_dir():
        raise InputError(
            f"the data folder has no {WMT19_DIR}/ (fix: set {ENV_VAR}=/path/to/shared/data)",
            file=str(folder),
        )
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.iterdir()):
        m = _WMT19_FILE.match(path.name)
        if not m:
            continue
        lp = f"{m.group(1)}-{m.group(2)}"
        file = str(path)
        try:
            lines = path.read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read: {exc}", file=file) from None
        lines = [ln for ln in lines if ln.strip()]
        if not lines:
            raise InputError("empty file", file=file)
        header = lines[0].split()
        if header[:3] != ["LP", "SYSTEM", "HUMAN"]:
            raise InputError(
                f"header starts {header[:3]}, expected LP SYSTEM HUMAN", file=file, line=1
            )
        columns = header[2:]
        if len(set(columns)) != len(columns):
            dup = sorted({c for c in columns if columns.count(c) > 1})
            raise InputError(f"header repeats {dup}", file=file, line=1)
        systems: list[str] = []
        scores: dict[str, list[float]] = {c: [] for c in columns}
        for number, text in enumerate(lines[1:], start=2):
            fields = text.split()
            if len(fields) != len(header):
                raise InputError(
                    f"{len(fields)} fields, expected {len(header)} (header)",
                    file=file,
                    line=number,
                )
            if fields[0] != lp:
                raise InputError(
                    f"LP {fields[0]!r}, expected {lp!r} (file name)", file=file, line=number
                )
            if fields[1] in systems:
                raise InputError(f"system {fields[1]!r} repeats", file=file, line=number)
            systems.append(fields[1])
            for c, v in zip(columns, fields[2:], strict=True):
                scores[c].append(_number(v, c, file, number))
        if not systems:
            raise InputError("no systems", file=file)
        out[lp] = {"file": path.name, "systems": systems, "scores": scores}
    if not out:
        raise InputError("no DA-newstest2019-*-sys-nohy-scores.csv files", file=str(folder))
    return out


def _metric_columns(entry: Mapping[str, Any], metrics: Sequence[str]) -> list[str]:
    if isinstance(metrics, str):
        raise ConfigError("metrics must be a list of column names, not one string")
    return [m for m in metrics if m in entry["scores"]]


def wmt19_bleu_vs_human(
    data: str | os.PathLike[str] | None = None,
    *,
    metrics: Sequence[str] = ("BLEU", "sacreBLEU-BLEU"),
    table: Mapping[str, Mapping[str, Any]] | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """Per language pair and metric column: its correlation with ``HUMAN`` over the systems.

    One JSON-ready row per (lp, metric) with ``n_systems`` and, per method, the value, p-value
    and bootstrap interval (``pearson``, ``pearson_p``, ``pearson_ci_low`` …). ``table``
    defaults to :func:`load_wmt19_syslevel` ``(data)``; a pair lacking a metric column has no
    row for it.
    """
    table = load_wmt19_syslevel(data) if table is None else table
    rows = []
    for lp in sorted(table):
        entry = table[lp]
        human = entry["scores"]["HUMAN"]
        for metric in _metric_columns(entry, metrics):
            corr = correlate(
                entry["scores"][metric], human, n_boot=n_boot, seed=seed, confidence=confidence
            )
            row: dict[str, Any] = {"lp": lp, "metric": metric, "n_systems": len(human)}
            row.update(corr.flat())
            row.update(seed=seed, n_boot=n_boot, ci=confidence)
            rows.append(row)
    return rows


def mad_outliers(
    values: Mapping[str, float] | Sequence[float],
    *,
    threshold: float = OUTLIER_THRESHOLD,
    scale: float = MAD_SCALE,
) -> dict[str, Any]:
    """Outliers by the MAD rule of Mathur et al. (2020) (see the module docstring).

    ``values``: name → score, or a sequence (names ``"0"``, ``"1"``, …). Returns ``median``,
    ``mad`` (unscaled), ``scale``, ``threshold``, ``robust_z`` (name → (v − median) / (scale ·
    MAD)), ``outliers`` (names with ``|robust_z| > threshold``, in input order) and ``reason``
    — ``"mad-zero"``, with no outliers, when MAD is 0 (more than half the values equal: the
    rule is undefined), else ``None``.

    >>> mad_outliers({"a": 0.1, "b": 0.2, "c": 0.15, "d": 0.12, "e": -2.0})["outliers"]
    ['e']
    """
    if isinstance(values, Mapping):
        names = [str(k) for k in values]
        v = np.asarray([float(x) for x in values.values()], dtype=np.float64)
    else:
        names = [str(i) for i in range(len(values))]
        v = np.asarray([float(x) for x in values], dtype=np.float64)
    if v.size == 0 or not np.isfinite(v).all():
        raise InputError("mad_outliers needs at least one value, all finite")
    median = float(np.median(v))
    mad = float(np.median(np.abs(v - median)))
    result: dict[str, Any] = {
        "median": median,
        "mad": mad,
        "scale": scale,
        "threshold": threshold,
        "robust_z": {},
        "outliers": [],
        "reason": None,
    }
    if mad == 0:
        result["reason"] = "mad-zero"
        return result
    z = (v - median) / (scale * mad)
    result["robust_z"] = {n: float(x) for n, x in zip(names, z, strict=True)}
    result["outliers"] = [n for n, x in zip(names, z, strict=True) if abs(x) > threshold]
    return result


def mathur_outliers(
    data: str | os.PathLike[str] | None = None,
    *,
    metrics: Sequence[str] = ("BLEU", "sacreBLEU-BLEU"),
    table: Mapping[str, Mapping[str, Any]] | None = None,
    threshold: float = OUTLIER_THRESHOLD,
    scale: float = MAD_SCALE,
    methods: Sequence[str] = METHODS,
) -> list[dict[str, Any]]:
    """Per language pair and metric: the outlier systems (by ``HUMAN``, :func:`mad_outliers`)
    and the metric's correlation with ``HUMAN`` with and without them.

    One JSON-ready row per (lp, metric): ``n_systems``, ``outliers`` (system names), their
    ``outlier_z``, ``n_without``, and per method ``{method}_all`` / ``{method}_without`` (no
    bootstrap: these are the point estimates Mathur et al. compare) and
    ``{method}_change`` (without − all). ``table`` defaults to
    :func:`load_wmt19_syslevel` ``(data)`` (give a synthetic one to test the rule).
    """
    table = load_wmt19_syslevel(data) if table is None else table
    rows = []
    for lp in sorted(table):
        entry = table[lp]
        systems = list(entry["systems"])
        human = list(entry["scores"]["HUMAN"])
        found = mad_outliers(
            dict(zip(systems, human, strict=True)), threshold=threshold, scale=scale
        )
        keep = [i for i, s in enumerate(systems) if s not in found["outliers"]]
        for metric in _metric_columns(entry, metrics):
            col = entry["scores"][metric]
            every = correlate(col, human, n_boot=0, methods=methods)
            without = correlate(
                [col[i] for i in keep], [human[i] for i in keep], n_boot=0, methods=methods
            )
            row: dict[str, Any] = {
                "lp": lp,
                "metric": metric,
                "n_systems": len(systems),
                "outliers": list(found["outliers"]),
                "outlier_z": {s: found["robust_z"][s] for s in found["outliers"]},
                "n_without": len(keep),
                "human_median": found["median"],
                "human_mad": found["mad"],
                "reason": found["reason"] or without.reason,
            }
            for m in methods:
                a, b = every[m].value, without[m].value
                row[f"{m}_all"] = finite(a)
                row[f"{m}_without"] = finite(b)
                row[f"{m}_change"] = finite(b - a) if a is not None and b is not None else None
            row.update(threshold=threshold, scale=scale)
            rows.append(row)
    return rows
