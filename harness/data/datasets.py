"""Loaders for the real evaluation data in ``shared/data`` (never copied into the repository).

The data folder is found by :func:`data_dir`: an explicit path, else the environment variable
``BLEU_HARNESS_DATA``. Every loader reads the plain UTF-8 files of one folder, checks every count
against the folder's README, and raises :class:`~harness.errors.InputError` naming the file and
line on anything unexpected.

``wmt21_ende_mqm`` (WMT21 newstest2021 en→de; see its README for provenance and licence):

* :func:`load_wmt21_ende` — system name → :class:`~harness.data.corpus.Corpus` over the 1002
  segments, references A, C, D per segment (per-segment layout, ids ``"1"``…``"1002"``). The
  20 MT systems by default; the human references can be loaded *as systems* too, under the
  names ``refA``, ``refC``, ``refD`` (the names MQM uses), as long as the reference evaluated
  as a system is left out of ``refs``.
* :func:`wmt21_official_scores` — the organisers' system-level BLEU/chrF/COMET.
* :func:`wmt21_mqm` — Google's MQM scores, segment and system level.

``coco_mini_val2017_captions`` (79 COCO val2017 images × 5 captions):

* :func:`load_coco_leave_one_out` — every caption as a hypothesis against the image's other
  four captions (ids ``"<image_id>:<k>"``).
* :func:`coco_captions` — image id → its five captions.

Texts are returned exactly as in the files (no tokenization, no lowercasing): preprocessing is a
:class:`~harness.bleu.config.BleuConfig` choice.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError

__all__ = [
    "COCO_DIR",
    "ENV_VAR",
    "WMT21_DIR",
    "WMT21_REFS",
    "WMT21_SYSTEMS",
    "coco_captions",
    "data_dir",
    "load_coco_leave_one_out",
    "load_wmt21_ende",
    "wmt21_mqm",
    "wmt21_official_scores",
]

ENV_VAR = "BLEU_HARNESS_DATA"
_FIX = f"set {ENV_VAR}=/path/to/shared/data"

WMT21_DIR = "wmt21_ende_mqm"
COCO_DIR = "coco_mini_val2017_captions"

WMT21_SEGMENTS = 1002
"""Segments of newstest2021 en→de (README: ``seg_id`` 1..1002 = line number in WMT's files)."""
WMT21_REFS = ("A", "C", "D")
"""The references whose text is in the subset (B exists only in MQM and COMET-ref-B)."""
WMT21_SYSTEMS = (
    "BUPT_rush",
    "Facebook-AI",
    "HuaweiTSC",
    "ICL",
    "Manifold",
    "NVIDIA-NeMo",
    "Online-A",
    "Online-B",
    "Online-G",
    "Online-W",
    "Online-Y",
    "P3AI",
    "UEdin",
    "UF",
    "VolcTrans-AT",
    "VolcTrans-GLAT",
    "WeChat-AI",
    "eTranslation",
    "happypoet",
    "nuclear_trans",
)
"""The 20 MT systems of the subset, as listed in its README."""
WMT21_MQM_RATED = 527
"""Segments with an MQM score (whole documents), per the README."""
WMT21_NAME_ALIASES = {
    "Nemo": "NVIDIA-NeMo",
    "ref-A": "refA",
    "ref-B": "refB",
    "ref-C": "refC",
    "ref-D": "refD",
}
"""Names the official score file uses for COMET rows → the names used everywhere else."""

COCO_IMAGES = 79
COCO_CAPTIONS_PER_IMAGE = 5


# ---------------------------------------------------------------------------- the data folder
def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The shared data folder: ``path`` if given, else ``$BLEU_HARNESS_DATA``.

    Raises :class:`~harness.errors.InputError` when neither is set or the folder does not exist;
    the message says how to fix it.
    """
    if path is None:
        env = os.environ.get(ENV_VAR, "").strip()
        if not env:
            raise InputError(f"no data folder given and {ENV_VAR} is not set (fix: {_FIX})")
        where, source = Path(env), f"{ENV_VAR}={env}"
    else:
        where, source = Path(path), f"path {os.fspath(path)!r}"
    if not where.is_dir():
        raise InputError(
            f"data folder not found ({source}); it should contain {WMT21_DIR}/ and {COCO_DIR}/ "
            f"(fix: {_FIX})",
            file=str(where),
        )
    return where


def _folder(data: str | os.PathLike[str] | None, name: str) -> Path:
    folder = data_dir(data) / name
    if not folder.is_dir():
        raise InputError(
            f"the data folder has no {name}/ (is it the shared data folder? fix: {_FIX})",
            file=str(folder),
        )
    return folder


def _tsv(path: Path, header: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """Rows of a tab-separated file with a header and no quoting: ``(line number, fields)``.

    Lines are split on ``'\\n'`` only, fields on ``'\\t'`` only (the texts contain quotes, so no
    CSV quoting rules apply).
    """
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=file) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", file=file) from None
    if "\r" in text:
        raise InputError("contains '\\r' (expected '\\n' line ends)", file=file)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].split("\t") != list(header):
        got = lines[0].split("\t") if lines else []
        raise InputError(f"header is {got}, expected {list(header)}", file=file, line=1)
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise InputError(
                f"{len(fields)} tab-separated fields, expected {len(header)}",
                file=file,
                line=number,
            )
        yield number, fields


def _int(value: str, what: str, file: Path, line: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{what} {value!r} is not an integer", file=str(file), line=line) from None


def _float(value: str, what: str, file: Path, line: int) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"{what} {value!r} is not a number", file=str(file), line=line) from None
    if not math.isfinite(number):
        raise InputError(f"{what} {value!r} is not finite", file=str(file), line=line)
    return number


def _check_count(what: str, got: int, expected: int, file: Path) -> None:
    if got != expected:
        raise InputError(f"{what}: expected {expected} (README), got {got}", file=str(file))


def _seg_index(seg_id: int, file: Path, line: int) -> int:
    if not 1 <= seg_id <= WMT21_SEGMENTS:
        raise InputError(f"seg_id {seg_id} outside 1..{WMT21_SEGMENTS}", file=str(file), line=line)
    return seg_id - 1


# ---------------------------------------------------------------------------- WMT21 en-de
def _wmt21_segments(folder: Path) -> tuple[list[str], dict[str, list[str]]]:
    """Sources and references A, C, D from ``segments.tsv``, checked to be seg_id 1..1002."""
    path = folder / "segments.tsv"
    header = ("seg_id", "src_en", "refA_de", "refC_de", "refD_de")
    src: list[str] = []
    refs: dict[str, list[str]] = {r: [] for r in WMT21_REFS}
    for line, fields in _tsv(path, header):
        seg_id = _int(fields[0], "seg_id", path, line)
        if seg_id != len(src) + 1:
            raise InputError(
                f"seg_id {seg_id} out of order (expected {len(src) + 1})", file=str(path), line=line
            )
        src.append(fields[1])
        for r, text in zip(WMT21_REFS, fields[2:], strict=True):
            refs[r].append(text)
    _check_count("segments", len(src), WMT21_SEGMENTS, path)
    return src, refs


def _wmt21_outputs(folder: Path, wanted: Iterable[str]) -> dict[str, list[str]]:
    """The wanted systems' hypotheses from ``system_outputs.tsv``, each with seg_id 1..1002."""
    path = folder / "system_outputs.tsv"
    wanted = set(wanted)
    hyps: dict[str, list[str | None]] = {}
    present: set[str] = set()
    for line, (system, seg, text) in _tsv(path, ("system", "seg_id", "hyp_de")):
        if system not in WMT21_SYSTEMS:
            raise InputError(
                f"unknown system {system!r} (not in the README)", file=str(path), line=line
            )
        present.add(system)
        if system not in wanted:
            continue
        i = _seg_index(_int(seg, "seg_id", path, line), path, line)
        row = hyps.setdefault(system, [None] * WMT21_SEGMENTS)
        if row[i] is not None:
            raise InputError(f"{system} has seg_id {i + 1} twice", file=str(path), line=line)
        row[i] = text
    _check_count("systems", len(present), len(WMT21_SYSTEMS), path)
    out: dict[str, list[str]] = {}
    for system in sorted(wanted):
        got = hyps.get(system)
        if got is None:
            raise InputError(f"no outputs for system {system!r}", file=str(path))
        missing = [i + 1 for i, h in enumerate(got) if h is None]
        if missing:
            raise InputError(
                f"{system} lacks {len(missing)} segments (first: seg_id {missing[0]})",
                file=str(path),
            )
        out[system] = [h for h in got if h is not None]
    return out


def load_wmt21_ende(
    data: str | os.PathLike[str] | None = None,
    *,
    systems: Iterable[str] | None = None,
    refs: Sequence[str] = WMT21_REFS,
) -> dict[str, Corpus]:
    """WMT21 en→de newstest2021: system name → :class:`~harness.data.corpus.Corpus`.

    ``systems`` defaults to the 20 MT systems (:data:`WMT21_SYSTEMS`). The human references can
    be scored as systems by naming ``"refA"``, ``"refC"`` or ``"refD"``; such a reference must
    not also be in ``refs`` (README: leave it out of the reference set) — that raises
    :class:`~harness.errors.ConfigError`. ``refs`` picks the references of every segment, in
    that order, from ``"A"``, ``"C"``, ``"D"`` (reference B's text is not in the data).

    Each corpus has 1002 segments with ids ``"1"``…``"1002"`` (the line numbers in WMT's files)
    and ``len(refs)`` references per segment; texts are untokenized, exactly as in the files.
    """
    ref_systems = {f"ref{r}": r for r in WMT21_REFS}
    valid_systems = (*WMT21_SYSTEMS, *ref_systems)
    names = list(WMT21_SYSTEMS if systems is None else systems)
    if isinstance(systems, str):
        raise ConfigError("systems must be a list of names, not one string", valid=valid_systems)
    unknown = [s for s in names if s not in valid_systems]
    if unknown:
        raise ConfigError(f"unknown WMT21 en-de systems {unknown}", valid=valid_systems)
    if not names or len(set(names)) != len(names):
        raise ConfigError("systems must be non-empty and without repeats", valid=valid_systems)
    if isinstance(refs, str):
        raise ConfigError("refs must be a sequence such as ('A', 'C', 'D')", valid=WMT21_REFS)
    refs = tuple(refs)
    bad = [r for r in refs if r not in WMT21_REFS]
    if bad or not refs or len(set(refs)) != len(refs):
        raise ConfigError(
            f"refs {refs} must be a non-empty list of distinct reference names", valid=WMT21_REFS
        )
    clash = [s for s in names if s in ref_systems and ref_systems[s] in refs]
    if clash:
        raise ConfigError(
            f"{', '.join(clash)} cannot be scored against itself: drop "
            f"{', '.join(ref_systems[s] for s in clash)} from refs",
            valid=[r for r in WMT21_REFS if r not in {ref_systems[s] for s in clash}],
        )

    folder = _folder(data, WMT21_DIR)
    _src, ref_texts = _wmt21_segments(folder)
    mt_names = [s for s in names if s in WMT21_SYSTEMS]
    outputs = _wmt21_outputs(folder, mt_names) if mt_names else {}
    for s in names:
        if s in ref_systems:
            outputs[s] = ref_texts[ref_systems[s]]

    references = tuple(zip(*(ref_texts[r] for r in refs), strict=True))
    ids = tuple(str(i) for i in range(1, WMT21_SEGMENTS + 1))
    result: dict[str, Corpus] = {}
    for s in names:
        hyps = outputs[s]
        if len(hyps) != WMT21_SEGMENTS:  # guarded above; kept as a hard check
            raise InputError(f"{s}: {len(hyps)} hypotheses, expected {WMT21_SEGMENTS}")
        result[s] = Corpus(
            hypotheses=tuple(hyps),
            references=references,
            ids=ids,
            name=f"wmt21-en-de/{s}",
            provenance={
                "dataset": WMT21_DIR,
                "system": s,
                "refs": [f"ref{r}" for r in refs],
                "files": ["segments.tsv", "system_outputs.tsv"],
                "source": "wmt-conference/wmt21-news-systems@f41750dadbf2ba6ab01ca5380347d253298a3427",
                "licence": "WMT test sets and submissions: research use (see the folder's README)",
            },
        )
    return result


def wmt21_official_scores(
    data: str | os.PathLike[str] | None = None, *, canonical_names: bool = True
) -> dict[str, dict[str, float]]:
    """The organisers' system-level scores: ``{system: {metric: score}}``.

    Metrics: ``bleu-A``/``-C``/``-D``/``-all`` and ``chrf-…`` (sacreBLEU defaults, 0–100; ``all``
    = the three references together) for the 20 MT systems; ``COMET-ref-A``…``-D`` (0–1) for
    the MQM-rated systems, including references scored against the other references and
    ``metricsystem1``–``5``. With ``canonical_names`` the COMET rows' names are mapped to the
    names used elsewhere (:data:`WMT21_NAME_ALIASES`: ``Nemo`` → ``NVIDIA-NeMo``, ``ref-A`` →
    ``refA``…); with ``canonical_names=False`` names are as in the file.
    """
    folder = _folder(data, WMT21_DIR)
    path = folder / "official_automatic_scores.tsv"
    scores: dict[str, dict[str, float]] = {}
    for line, (system, metric, value) in _tsv(path, ("system", "metric", "score")):
        name = WMT21_NAME_ALIASES.get(system, system) if canonical_names else system
        row = scores.setdefault(name, {})
        if metric in row:
            raise InputError(f"{name} has {metric} twice", file=str(path), line=line)
        row[metric] = _float(value, "score", path, line)
    for system in WMT21_SYSTEMS:
        row = scores.get(system, {})
        for metric in ("bleu", "chrf"):
            for ref in (*WMT21_REFS, "all"):
                if f"{metric}-{ref}" not in row:
                    raise InputError(f"{system} lacks {metric}-{ref}", file=str(path))
    return scores


def wmt21_mqm(data: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Google's MQM scores for WMT21 en→de, segment and system level, as plain dicts and lists.

    Returns ``{"seg_ids": [...], "segment": {...}, "system": {...}}``:

    * ``seg_ids``: ``["1", …, "1002"]`` (the corpus ids of :func:`load_wmt21_ende`).
    * ``segment``: system → list of 1002 scores aligned with ``seg_ids``; ``None`` where the
      segment was not rated (527 rated). Systems: the 8 MQM-rated MT systems and ``refA``,
      ``refC``, ``refD``. MQM is ≤ 0, higher is better.
    * ``system``: system → ``{"mqm_mean": float, "n_rated_segments": int,
      "text_in_subset": bool}`` for all 17 MQM "systems" (``refB`` and ``metricsystem1``–``5``
      have no text here).

    The segment table is checked against the system table: same rated count and the mean of the
    rated segments equals ``mqm_mean`` (to 1e-5).
    """
    folder = _folder(data, WMT21_DIR)
    seg_path = folder / "mqm_seg.tsv"
    segment: dict[str, list[float | None]] = {}
    seen: dict[str, set[int]] = {}
    for line, (system, seg, value) in _tsv(seg_path, ("system", "seg_id", "mqm")):
        i = _seg_index(_int(seg, "seg_id", seg_path, line), seg_path, line)
        row = segment.setdefault(system, [None] * WMT21_SEGMENTS)
        done = seen.setdefault(system, set())
        if i in done:
            raise InputError(f"{system} has seg_id {i + 1} twice", file=str(seg_path), line=line)
        done.add(i)
        row[i] = None if value == "" else _float(value, "mqm", seg_path, line)
    for system, done in seen.items():
        _check_count(f"{system} rows", len(done), WMT21_SEGMENTS, seg_path)

    sys_path = folder / "mqm_sys.tsv"
    header = ("system", "mqm_mean", "n_rated_segments", "text_in_subset")
    table: dict[str, dict[str, Any]] = {}
    for line, (system, mean, n_rated, in_subset) in _tsv(sys_path, header):
        if in_subset not in ("yes", "no"):
            raise InputError(
                f"text_in_subset {in_subset!r} is not yes/no", file=str(sys_path), line=line
            )
        table[system] = {
            "mqm_mean": _float(mean, "mqm_mean", sys_path, line),
            "n_rated_segments": _int(n_rated, "n_rated_segments", sys_path, line),
            "text_in_subset": in_subset == "yes",
        }

    with_text = sorted(s for s, row in table.items() if row["text_in_subset"])
    if with_text != sorted(segment):
        raise InputError(
            f"systems with text_in_subset=yes {with_text} differ from those of mqm_seg.tsv "
            f"{sorted(segment)}",
            file=str(sys_path),
        )
    for system, values in segment.items():
        rated = [x for x in values if x is not None]
        _check_count(f"{system} rated segments", len(rated), WMT21_MQM_RATED, seg_path)
        if table[system]["n_rated_segments"] != len(rated):
            raise InputError(
                f"{system}: n_rated_segments {table[system]['n_rated_segments']} but "
                f"{len(rated)} rated rows in mqm_seg.tsv",
                file=str(sys_path),
            )
        average = sum(rated) / len(rated)
        if abs(average - table[system]["mqm_mean"]) > 1e-5:
            raise InputError(
                f"{system}: mqm_mean {table[system]['mqm_mean']} but the rated segments "
                f"average {average:.6f}",
                file=str(sys_path),
            )
    return {
        "seg_ids": [str(i) for i in range(1, WMT21_SEGMENTS + 1)],
        "segment": segment,
        "system": table,
    }


# ---------------------------------------------------------------------------- COCO captions
def coco_captions(data: str | os.PathLike[str] | None = None) -> dict[int, list[str]]:
    """Image id → its five captions (ordered by ``ref_idx``), in file order of the images.

    Read from ``captions.tsv`` and checked against ``images.jsonl`` (same images, same
    captions, 79 images × 5 captions).
    """
    folder = _folder(data, COCO_DIR)
    path = folder / "captions.tsv"
    caps: dict[int, dict[int, str]] = {}
    for line, (image, _ann, ref_idx, caption) in _tsv(
        path, ("image_id", "ann_id", "ref_idx", "caption")
    ):
        image_id = _int(image, "image_id", path, line)
        k = _int(ref_idx, "ref_idx", path, line)
        if not 0 <= k < COCO_CAPTIONS_PER_IMAGE:
            raise InputError(f"ref_idx {k} outside 0..4", file=str(path), line=line)
        row = caps.setdefault(image_id, {})
        if k in row:
            raise InputError(f"image {image_id} has ref_idx {k} twice", file=str(path), line=line)
        row[k] = caption
    _check_count("images", len(caps), COCO_IMAGES, path)
    out: dict[int, list[str]] = {}
    for image_id, row in caps.items():
        if sorted(row) != list(range(COCO_CAPTIONS_PER_IMAGE)):
            raise InputError(f"image {image_id} has ref_idx {sorted(row)}", file=str(path))
        out[image_id] = [row[k] for k in range(COCO_CAPTIONS_PER_IMAGE)]

    jpath = folder / "images.jsonl"
    try:
        lines = jpath.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", file=str(jpath)) from None
    images: dict[int, list[str]] = {}
    for number, text in enumerate(lines, start=1):
        try:
            record = json.loads(text)
            images[int(record["image_id"])] = list(record["refs"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"bad record: {exc}", file=str(jpath), line=number) from None
    if images != out:
        differ = sorted(set(images) ^ set(out)) or [i for i in out if images.get(i) != out[i]]
        raise InputError(
            f"captions.tsv and images.jsonl disagree (e.g. image {differ[0]})", file=str(jpath)
        )
    return out


def load_coco_leave_one_out(data: str | os.PathLike[str] | None = None) -> Corpus:
    """COCO leave-one-out: each caption as a hypothesis against the image's other four.

    395 segments (79 images × 5), ids ``"<image_id>:<k>"`` with ``k`` the caption's ``ref_idx``
    (0–4), 4 references each in ``ref_idx`` order. Captions are as in the file (mixed case,
    punctuation): the README's check lower-cased and kept alphanumeric tokens, which is a
    configuration choice. ``corpus.subset([...])`` on the ids ending in ``":k"`` gives the
    README's per-k corpora.
    """
    captions = coco_captions(data)
    hyps: list[str] = []
    refs: list[tuple[str, ...]] = []
    ids: list[str] = []
    for image_id, caps in captions.items():
        for k, caption in enumerate(caps):
            hyps.append(caption)
            refs.append(tuple(c for j, c in enumerate(caps) if j != k))
            ids.append(f"{image_id}:{k}")
    return Corpus(
        hypotheses=tuple(hyps),
        references=tuple(refs),
        ids=tuple(ids),
        name="coco-mini-val2017/leave-one-out",
        provenance={
            "dataset": COCO_DIR,
            "files": ["captions.tsv", "images.jsonl"],
            "source": "Obmutescence/COCO-MINI@644f29e7c1d2eefd9c4412d39bc5b0ee6fd0afd4 "
            "annotations/captions_val2017.json",
            "licence": "COCO annotations, CC BY 4.0 (COCO Consortium)",
            "protocol": "leave-one-out: hypothesis = caption k, references = the other four",
        },
    )
