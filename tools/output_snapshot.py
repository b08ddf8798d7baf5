"""Run every command on the fixtures and on WMT21-shaped files, and keep what each printed and wrote.

Not a test: the before/after check of a refactoring that must not change behaviour. Run it on
two checkouts and ``diff -r`` the two folders::

    .venv/bin/python tools/output_snapshot.py OUT_DIR [--data DIR]

Each command's standard output, standard error and written files land in ``OUT_DIR/<name>/``.
What a run cannot repeat is masked before writing: wall-clock durations, the temporary folder's
path and the run's date. The WMT21 files are the first 300 segments of four systems and
three references, written as plain text from ``BLEU_HARNESS_DATA`` (``--data``).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
SYSTEMS = ("Online-A", "Facebook-AI", "NVIDIA-NeMo", "ICL")
SEGMENTS = 300
MULTI_BLEU = Path(__file__).resolve().parents[2] / "shared/reference-impls/moses/multi-bleu.perl"
SUBJECT = """
from nltk.translate.bleu_score import corpus_bleu


def nltk_corpus(hyps, refs):
    return corpus_bleu([[r.split() for r in rs] for rs in refs], [h.split() for h in hyps])
"""

_DURATION = re.compile(r"\d+(?:\.\d+)?\s?(?:s|ms|seconds|min)\b")
_DATE = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|\+00:00| UTC)?")
_VOLATILE_KEYS = re.compile(
    r'"(seconds|elapsed|wall_seconds|duration|created|started|finished|time|timings?|'
    r'run_seconds|when|date)": [^,}\n]+'
)


def _wmt21_files(data: Path, folder: Path) -> tuple[list[str], list[str]]:
    root = data / "wmt21_ende_mqm"
    with (root / "segments.tsv").open(encoding="utf-8", newline="") as f:
        refs = [row for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
    hyps: dict[str, list[str]] = {s: [] for s in SYSTEMS}
    with (root / "system_outputs.tsv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["system"] in hyps and int(row["seg_id"]) <= SEGMENTS:
                hyps[row["system"]].append(row["hyp_de"])
    hyp_paths, ref_paths = [], []
    for name, lines in hyps.items():
        path = folder / f"{name}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        hyp_paths.append(str(path))
    for col in ("refA_de", "refC_de", "refD_de"):
        path = folder / f"{col}.txt"
        path.write_text("".join(r[col] + "\n" for r in refs[:SEGMENTS]), encoding="utf-8")
        ref_paths.append(str(path))
    return hyp_paths, ref_paths


def _mask(text: str, tmp: str) -> str:
    text = text.replace(tmp, "<TMP>")
    text = _VOLATILE_KEYS.sub(lambda m: f'"{m.group(1)}": <MASKED>', text)
    text = _DATE.sub("<DATE>", text)
    return _DURATION.sub("<DURATION>", text)


def _commands(hyps: list[str], refs: list[str], out: Path) -> list[tuple[str, list[str]]]:
    one, two = hyps[0], hyps[:2]
    printed = "BLEU = 28.6"
    return [
        ("profiles", ["profiles"]),
        ("profiles-json", ["profiles", "--json"]),
        ("fixtures", ["fixtures", "list"]),
        ("fixture-show", ["fixtures", "show", "google_nasa_opportunity"]),
        ("score", ["score", one, *refs]),
        (
            "score-cite",
            ["score", one, refs[0], "--profile", "sacrebleu,nltk,jury,parlai", "--cite"],
        ),
        ("score-impl", ["score", one, *refs, "--impl", "sacrebleu,nltk", "--profile", "nltk"]),
        ("score-segment", ["score", one, refs[0], "--level", "segment", "--json"]),
        ("compare-fixtures", ["compare", "--no-progress"]),
        ("compare-files", ["compare", *hyps, "--refs", *refs, "--no-progress"]),
        (
            "compare-out",
            ["compare", *two, "--refs", *refs, "--no-progress", "--out", str(out / "compare-out")],
        ),
        (
            "explain",
            [
                "explain",
                "--a",
                "sacrebleu",
                "--b",
                "evaluate",
                "--fixture",
                "tutorial_cat_on_the_mat",
            ],
        ),
        ("significance", ["significance", *two, "--refs", refs[0], "--no-progress"]),
        (
            "report-files",
            ["report", *hyps, "--refs", *refs, "--no-progress", "--out", str(out / "report-files")],
        ),
        ("report-fixtures", ["report", "--no-progress", "--out", str(out / "report-fixtures")]),
        ("pitfalls", ["pitfalls", "--quiet"]),
        ("pitfalls-json", ["pitfalls", "--quiet", "--json"]),
        ("identify", ["identify", "--score", printed, one, refs[0], "--quiet"]),
        (
            "validate-multibleu",
            [
                "validate",
                "--cmd",
                f"perl {MULTI_BLEU} {{ref}} < {{hyp}}",
                "--cases",
                "40",
                "--quiet",
            ],
        ),
        (
            "validate-nltk",
            ["validate", "--impl", "snapshot_subject:nltk_corpus", "--cases", "40", "--quiet"],
        ),
        ("check", ["check", one, *refs]),
        ("check-json", ["check", one, *refs, "--json"]),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=os.environ.get("BLEU_HARNESS_DATA"))
    ap.add_argument("--only", nargs="*", default=None, help="run only these command names")
    args = ap.parse_args()
    if args.data is None:
        ap.error("needs the shared data: --data DIR or BLEU_HARNESS_DATA")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        hyps, refs = _wmt21_files(args.data, folder)
        env = {**os.environ, "BLEU_HARNESS_CACHE_DIR": str(folder / "cache")}
        (folder / "snapshot_subject.py").write_text(SUBJECT, encoding="utf-8")
        for name, argv in _commands(hyps, refs, folder):
            if args.only and name not in args.only:
                continue
            done = subprocess.run(
                [str(BIN / "bleu-harness"), *argv],
                capture_output=True,
                text=True,
                env=env,
                cwd=folder,
            )
            target = args.out / name
            target.mkdir(exist_ok=True)
            (target / "stdout").write_text(_mask(done.stdout, tmp), encoding="utf-8")
            (target / "stderr").write_text(_mask(done.stderr, tmp), encoding="utf-8")
            (target / "rc").write_text(f"{done.returncode}\n", encoding="utf-8")
            written = folder / name
            if written.is_dir():
                for file in sorted(written.rglob("*")):
                    if file.is_file() and file.suffix in {
                        ".md",
                        ".json",
                        ".jsonl",
                        ".html",
                        ".txt",
                    }:
                        rel = file.relative_to(written)
                        dest = target / f"out__{str(rel).replace(os.sep, '__')}"
                        dest.write_text(
                            _mask(file.read_text(encoding="utf-8"), tmp), encoding="utf-8"
                        )
            print(f"{name}: rc {done.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
