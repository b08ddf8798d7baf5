"""Run the original Moses scripts as test oracles (a helper module for tests, not a test file).

The scripts live in the shared reference-impls folder (``../shared/reference-impls`` beside the
repository, or ``$BLEU_HARNESS_REFERENCE_IMPLS``); they are read from there and never copied
into the repository. Only the precision-widened copy of ``multi-bleu*.perl`` is written, into a
temporary folder at test time (see :func:`widened_script`).

Input conventions (what a user of each script has to do, reproduced here):

* ``mteval-v13a.pl`` reads SGML: each corpus becomes one document (zero-padded doc ids, so that
  the script's string sort keeps their order; segment ids 1..n). Text goes in **raw**: the
  script's own tokenization unescapes ``&quot; &amp; &lt; &gt;``, so raw text makes it see the
  same string a profile sees (``test_mteval_text_goes_into_sgml_raw`` pins this). Text must not
  contain what breaks its SGML reader (``<seg``, ``</seg``, ``<doc``, ``</doc``, the set tags)
  or a newline. Every reference system needs every segment: ragged references are padded with
  empty segments.
* ``multi-bleu*.perl`` read one file per reference stream, one line per segment; ragged
  references are padded with empty lines. Every line is newline-terminated (``multi-bleu-detok``
  ``chop``s the last character of every line, newline or not).
"""

from __future__ import annotations

import atexit
import functools
import html
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.bleu.result import BleuResult

ENV_VAR = "BLEU_HARNESS_REFERENCE_IMPLS"
REPO_ROOT = Path(__file__).resolve().parent.parent

Corpus = tuple[Sequence[str], Sequence[Sequence[str]]]


# ============================================================================ locating
def reference_impls_dir() -> Path:
    """``$BLEU_HARNESS_REFERENCE_IMPLS`` or ``<repo>/../shared/reference-impls``."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value:
        return Path(value)
    return REPO_ROOT.parent / "shared" / "reference-impls"


def moses_dir() -> Path:
    return reference_impls_dir() / "moses"


def script_path(name: str) -> Path:
    """``mteval-v13a.pl``, ``multi-bleu.perl`` or ``multi-bleu-detok.perl``."""
    return moses_dir() / name


MTEVAL = "mteval-v13a.pl"
MULTI_BLEU = "multi-bleu.perl"
MULTI_BLEU_DETOK = "multi-bleu-detok.perl"


def missing_reason(*, twig: bool) -> str | None:
    """Why the Moses scripts cannot be run here (``None`` if they can).

    ``twig``: also require XML::Twig, which ``mteval-v13a.pl`` loads at start even for SGML.
    """
    folder = moses_dir()
    names = [MULTI_BLEU, MULTI_BLEU_DETOK] + ([MTEVAL] if twig else [])
    missing = [n for n in names if not (folder / n).is_file()]
    if missing:
        return (
            f"{', '.join(missing)} not found in {folder} (set {ENV_VAR}=/path/to/reference-impls "
            "or put shared/ beside the repository)"
        )
    if shutil.which("perl") is None:
        return "perl is not installed"
    if twig:
        proc = subprocess.run(
            ["perl", "-MXML::Twig", "-e1"], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            return (
                "the Perl module XML::Twig is missing (mteval-v13a.pl loads it): "
                "apt-get install -y libxml-twig-perl"
            )
    return None


# ============================================================================ mteval-v13a.pl
#: What must not occur in text written into the SGML files (case-insensitive).
_SGML_BREAKERS = ("<seg", "</seg", "<doc", "</doc", "</srcset", "</refset", "</tstset", "\n")

#: A document appended to every batch so that the system-level report (computed over all
#: documents) never dies; its scores are dropped.
_SENTINEL: Corpus = (["a"], [["a"]])


@dataclass(frozen=True)
class MtevalDoc:
    """One corpus scored as one document: its document score (= corpus BLEU of the corpus,
    0–1) and its segment scores (0–1), as ``--metricsMATR-output`` writes them."""

    score: float
    segments: tuple[float, ...]


@dataclass(frozen=True)
class MtevalSystem:
    """The system-level score (0–1) of a single-corpus run, or the message the script died
    with (``error``)."""

    score: float | None
    error: str | None
    returncode: int


def _check_sgml_text(text: str) -> str:
    low = text.lower()
    for bad in _SGML_BREAKERS:
        if bad in low:
            raise ValueError(f"text {text!r} contains {bad!r}, which breaks mteval's SGML reader")
    return text


def ref_streams(refs: Sequence[Sequence[str]], k: int | None = None) -> list[list[str]]:
    """Per-segment references as ``k`` streams (default: the most references of any segment);
    a segment with fewer references gets empty ones (the scripts' only way to be ragged)."""
    k = max(len(seg) for seg in refs) if k is None else k
    return [[seg[j] if j < len(seg) else "" for seg in refs] for j in range(k)]


def _write_sgml(
    folder: Path, corpora: Sequence[Corpus], *, escape: bool
) -> tuple[Path, Path, Path]:
    """src/ref/tst ``.sgm`` with one document per corpus."""
    k_max = max(max(len(seg) for seg in refs) for _, refs in corpora)

    def text(s: str) -> str:
        s = _check_sgml_text(s)
        return html.escape(s, quote=True).replace("&#x27;", "'") if escape else s

    src = ['<srcset setid="oracle" srclang="any">']
    tst = ['<tstset setid="oracle" srclang="any" trglang="any">']
    ref_docs: list[list[str]] = [[] for _ in range(k_max)]
    width = len(str(len(corpora)))
    for d, (hyps, refs) in enumerate(corpora):
        doc = f"doc{d:0{width}d}"
        # Ragged references are padded with empty segments up to this corpus's own maximum
        # (what a user running the script on this corpus alone does); the further reference
        # systems that other corpora of the batch need get a copy of the segment's first
        # reference, which changes neither the clipped counts nor the closest length.
        streams = ref_streams(refs)
        streams += [[seg[0] for seg in refs]] * (k_max - len(streams))
        src.append(f'<doc docid="{doc}" genre="oracle">')
        tst.append(f'<doc sysid="tst" docid="{doc}" genre="oracle">')
        for i, h in enumerate(hyps, start=1):
            src.append(f'<seg id="{i}">x</seg>')
            tst.append(f'<seg id="{i}">{text(h)}</seg>')
        src.append("</doc>")
        tst.append("</doc>")
        for j, stream in enumerate(streams):
            ref_docs[j].append(f'<doc sysid="ref{j:03d}" docid="{doc}" genre="oracle">')
            ref_docs[j] += [f'<seg id="{i}">{text(r)}</seg>' for i, r in enumerate(stream, 1)]
            ref_docs[j].append("</doc>")
    src.append("</srcset>")
    tst.append("</tstset>")
    ref = ['<refset setid="oracle" srclang="any" trglang="any">']
    for docs in ref_docs:
        ref += docs
    ref.append("</refset>")
    paths = folder / "src.sgm", folder / "ref.sgm", folder / "tst.sgm"
    for path, lines in zip(paths, (src, ref, tst), strict=True):
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return paths


def _run_mteval_files(
    corpora: Sequence[Corpus], folder: Path, *, case_sensitive: bool, escape: bool
) -> subprocess.CompletedProcess[bytes]:
    src, ref, tst = _write_sgml(folder, corpora, escape=escape)
    cmd = ["perl", str(script_path(MTEVAL)), "-r", ref.name, "-s", src.name, "-t", tst.name]
    cmd += ["-b", "--metricsMATR-output"] + (["-c"] if case_sensitive else [])
    return subprocess.run(cmd, cwd=folder, capture_output=True, check=False)


def _die_message(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = [x for x in proc.stderr.decode("utf-8", "replace").splitlines() if x.strip()]
    return lines[-1] if lines else f"exit status {proc.returncode}"


def run_mteval(
    corpora: Sequence[Corpus], *, case_sensitive: bool, escape: bool = False
) -> list[MtevalDoc]:
    """Score many corpora in ONE ``mteval-v13a.pl`` run, each corpus one document.

    Returns, per corpus, its document score (the corpus BLEU of that corpus: documents are
    scored independently) and its segment scores, read from ``BLEU-doc.scr`` and
    ``BLEU-seg.scr`` (Perl prints 15 significant digits). At document and segment level the
    script never dies; see :func:`run_mteval_system` for the system-level report. ``escape``
    writes the text XML-escaped instead of raw (only to document the input convention).
    """
    if not corpora:
        return []
    batch = [*corpora, _SENTINEL]
    with tempfile.TemporaryDirectory(prefix="mteval-") as tmp:
        folder = Path(tmp)
        proc = _run_mteval_files(batch, folder, case_sensitive=case_sensitive, escape=escape)
        if proc.returncode != 0:
            raise RuntimeError(f"mteval-v13a.pl failed: {_die_message(proc)}")
        docs = (folder / "BLEU-doc.scr").read_text(encoding="utf-8").splitlines()
        segs = (folder / "BLEU-seg.scr").read_text(encoding="utf-8").splitlines()
    doc_scores = [float(line.split("\t")[3]) for line in docs]
    seg_scores: list[list[float]] = [[] for _ in batch]
    width = len(str(len(batch)))
    for line in segs:
        _, _, doc, seg, score = line.split("\t")
        d = int(doc[3:])
        assert doc == f"doc{d:0{width}d}" and int(seg) == len(seg_scores[d]) + 1, line
        seg_scores[d].append(float(score))
    assert len(doc_scores) == len(batch)
    out = [MtevalDoc(s, tuple(g)) for s, g in zip(doc_scores, seg_scores, strict=True)]
    for (hyps, _), res in zip(corpora, out, strict=False):
        assert len(res.segments) == len(hyps)
    return out[:-1]


def run_mteval_system(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], *, case_sensitive: bool
) -> MtevalSystem:
    """Run ``mteval-v13a.pl`` on one corpus and return its system score, or the message it
    dies with (the system-level report divides by the total reference length and takes the
    log of the brevity penalty, so it dies when either total length is 0)."""
    with tempfile.TemporaryDirectory(prefix="mteval-") as tmp:
        folder = Path(tmp)
        proc = _run_mteval_files(
            [(hyps, refs)], folder, case_sensitive=case_sensitive, escape=False
        )
        if proc.returncode != 0:
            return MtevalSystem(None, _die_message(proc), proc.returncode)
        line = (folder / "BLEU-sys.scr").read_text(encoding="utf-8").strip()
    return MtevalSystem(float(line.split("\t")[2]), None, 0)


# ============================================================================ multi-bleu*.perl
_FORMAT = "BLEU = %.2f, %.1f/%.1f/%.1f/%.1f (BP=%.3f, ratio=%.3f, hyp_len=%d, ref_len=%d)\\n"
_WIDE = "BLEU = %.17g, %.17g/%.17g/%.17g/%.17g (BP=%.17g, ratio=%.17g, hyp_len=%d, ref_len=%d)\\n"
#: What both scripts print when the total reference length is 0 (then they exit with 1).
ZERO_REF_LINE = "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)"

_NUM = r"[-+0-9.eEinfa]+"
_LINE_RE = re.compile(
    rf"^BLEU = (?P<bleu>{_NUM}), (?P<p1>{_NUM})/(?P<p2>{_NUM})/(?P<p3>{_NUM})/(?P<p4>{_NUM}) "
    rf"\(BP=(?P<bp>{_NUM}), ratio=(?P<ratio>{_NUM}), hyp_len=(?P<hyp>\d+), ref_len=(?P<ref>\d+)\)$"
)


@dataclass(frozen=True)
class MultiBleuLine:
    """The numbers of a ``BLEU = …`` line (BLEU and precisions on 0–100)."""

    bleu: float
    precisions: tuple[float, float, float, float]
    bp: float
    ratio: float
    hyp_len: int
    ref_len: int

    @classmethod
    def parse(cls, line: str) -> MultiBleuLine:
        m = _LINE_RE.match(line)
        if m is None:
            raise ValueError(f"not a multi-bleu line: {line!r}")
        return cls(
            float(m["bleu"]),
            (float(m["p1"]), float(m["p2"]), float(m["p3"]), float(m["p4"])),
            float(m["bp"]),
            float(m["ratio"]),
            int(m["hyp"]),
            int(m["ref"]),
        )


@dataclass(frozen=True)
class MultiBleuRun:
    """What one run printed: the ``BLEU = …`` line (``None`` if it died), its numbers, the exit
    status and stderr (the die message)."""

    line: str | None
    returncode: int
    stderr: str

    @property
    def parsed(self) -> MultiBleuLine | None:
        return None if self.line is None else MultiBleuLine.parse(self.line)

    @property
    def died(self) -> bool:
        """Perl ``die`` (no BLEU line, non-zero exit: 255, or ``$!`` when errno is set), e.g.
        "Illegal division by zero"."""
        return self.line is None and self.returncode != 0


def format_multi_bleu(result: BleuResult) -> str:
    """A profile result printed the way ``multi-bleu*.perl`` print theirs."""
    if result.ref_len == 0:
        return ZERO_REF_LINE
    p1, p2, p3, p4 = result.precisions
    return (
        f"BLEU = {result.score:.2f}, {p1:.1f}/{p2:.1f}/{p3:.1f}/{p4:.1f} "
        f"(BP={result.bp:.3f}, ratio={result.ratio:.3f}, "
        f"hyp_len={result.hyp_len}, ref_len={int(result.ref_len)})"
    )


_WIDE_DIR: Path | None = None


@functools.cache
def widened_script(name: str) -> Path:
    """A temporary copy of ``multi-bleu*.perl`` whose BLEU line prints full precision (%.17g).

    Only the printf format string is replaced, so the arithmetic is the script's own. The copy
    lives in a temporary folder removed at exit; never commit it.
    """
    global _WIDE_DIR
    if _WIDE_DIR is None:
        _WIDE_DIR = Path(tempfile.mkdtemp(prefix="moses-widened-"))
        atexit.register(shutil.rmtree, _WIDE_DIR, True)
    source = script_path(name).read_text(encoding="utf-8")
    assert source.count(f'"{_FORMAT}"') == 1, f"{name}: the BLEU printf format changed"
    target = _WIDE_DIR / name
    target.write_text(source.replace(f'"{_FORMAT}"', f'"{_WIDE}"'), encoding="utf-8")
    return target


def run_multi_bleu(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    *,
    lowercase: bool,
    detok: bool,
    widened: bool = False,
    final_newline: bool = True,
) -> MultiBleuRun:
    """``perl multi-bleu[-detok].perl [-lc] ref < hyp``.

    The references go into ``ref0``, ``ref1``, … and the script is given the stem ``ref``:
    it reads ``stem0``, ``stem1``, … while they exist, then ``stem`` itself, then every further
    argument (both ways are equivalent; the stem is the documented one). Ragged references are
    padded with empty lines. Every line is newline-terminated, except that
    ``final_newline=False`` leaves the last line of the hypothesis file unterminated (to show
    multi-bleu-detok's ``chop``).
    ``widened`` runs the full-precision copy of :func:`widened_script`.
    """
    name = MULTI_BLEU_DETOK if detok else MULTI_BLEU
    script = widened_script(name) if widened else script_path(name)

    def lines(texts: Sequence[str], end: str = "\n") -> bytes:
        for t in texts:
            if "\n" in t:
                raise ValueError(f"text {t!r} contains a newline: it would become two lines")
        return ("\n".join(texts) + end).encode("utf-8")

    with tempfile.TemporaryDirectory(prefix="multi-bleu-") as tmp:
        folder = Path(tmp)
        for j, stream in enumerate(ref_streams(refs)):
            (folder / f"ref{j}").write_bytes(lines(stream))
        (folder / "hyp").write_bytes(lines(hyps, "\n" if final_newline else ""))
        cmd = ["perl", str(script), *(["-lc"] if lowercase else []), "ref"]
        with open(folder / "hyp", "rb") as stdin:
            proc = subprocess.run(cmd, cwd=folder, stdin=stdin, capture_output=True, check=False)
    out = proc.stdout.decode("utf-8").splitlines()
    stderr = proc.stderr.decode("utf-8", "replace")
    line = out[-1] if out and out[-1].startswith("BLEU = ") else None
    return MultiBleuRun(line, proc.returncode, stderr)
