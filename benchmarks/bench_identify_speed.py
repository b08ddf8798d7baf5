"""Benchmark: ``identify`` on one system of a user's size, beside the sacrebleu CLI; and the
readings it returns, written down so two versions of the harness can be compared.

Not a test. ``time`` (the default) writes one seeded generated system of 3,000 segments and its
reference (:mod:`corpus_gen`, the shape of WMT17 newstest2017 en→de) and one WMT21 en→de system
with its three references into a temporary folder, then times in fresh processes, in the same
minutes: ``sacrebleu REF -i HYP``, ``bleu-harness identify --score X HYP REF`` with an empty
statistics cache (cold) and again on that cache (warm), once with the CLI's printed score
and once with its whole printed line. Wall seconds and the load average::

    BLEU_HARNESS_DATA=/work/shared/data .venv/bin/python benchmarks/bench_identify_speed.py

``dump FILE`` writes, for several inputs (the generated system, a WMT21 system with three
references and with reference A alone under printed lines with mistakes, fixtures), every
list the identify command reads — :func:`~harness.diagnose.identify.identify`,
:func:`~harness.diagnose.identify.nearest`, :func:`~harness.diagnose.identify.chance`,
:func:`~harness.diagnose.identify.simplest` — as the ``repr`` of each reading, one JSON
object; run it with the harness before and after a change and compare the files (``cmp``): a
reading lost, added, moved or changed in its last digit shows::

    PYTHONPATH=/path/to/old/checkout .venv/bin/python benchmarks/bench_identify_speed.py dump old.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import corpus_gen
import sacrebleu

BIN = Path(sys.executable).parent


def _write(folder: Path, name: str, lines: list[str] | tuple[str, ...]) -> Path:
    path = folder / name
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return path


def _generated(folder: Path) -> list[Path]:
    """One generated system of 3,000 segments and its reference (as bench_user_files)."""
    outputs, streams = corpus_gen.systems(16, 3000, 1, seed=corpus_gen.SEED)
    return [_write(folder, "sys00.txt", outputs[0]), _write(folder, "ref.txt", streams[0])]


def _wmt21(folder: Path, system: str = "Facebook-AI") -> list[Path]:
    """A WMT21 en→de system and its references A, C, D (as bench_commands)."""
    from harness.data.datasets import load_wmt21_ende

    corpus = load_wmt21_ende(systems=[system])[system]
    files = [_write(folder, "wmt-hyp.txt", corpus.hypotheses)]
    for k, name in enumerate("ACD"):
        files.append(_write(folder, f"wmt-ref{name}.txt", [r[k] for r in corpus.references]))
    return files


def _cli_line(hyp: Path, refs: list[Path], *args: str) -> str:
    done = subprocess.run(
        [str(BIN / "sacrebleu"), *map(str, refs), "-i", str(hyp), "-f", "text", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def timing() -> None:
    print(
        f"bench_identify_speed {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, sacrebleu "
        f"{sacrebleu.__version__}, load {os.getloadavg()[0]:.2f}"
    )
    print("| input | --score | sacrebleu CLI | identify cold | identify warm |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = {"generated, 3,000 × 1": _generated(folder)}
        if os.environ.get("BLEU_HARNESS_DATA"):
            inputs["WMT21 Facebook-AI, 1,002 × 3"] = _wmt21(folder)
        for k, (name, (hyp, *refs)) in enumerate(inputs.items()):
            line = _cli_line(hyp, refs)
            number = line.split(" = ", 1)[1].split()[0]
            for j, score in enumerate((number, line)):
                cache = folder / f"cache{k}{j}"
                env = {**os.environ, "BLEU_HARNESS_CACHE_DIR": str(cache)}
                cli = _wall([str(BIN / "sacrebleu"), *map(str, refs), "-i", str(hyp)], env)
                argv = [str(BIN / "bleu-harness"), "identify", "--score", score, str(hyp)]
                cold = _wall([*argv, *map(str, refs)], env)
                warm = _wall([*argv, *map(str, refs)], env)
                shown = number if j == 0 else "the whole line"
                print(
                    f"| {name} | {shown} | {cli:.2f} s | {cold:.1f} s ({cold / cli:.0f}×) "
                    f"| {warm:.1f} s ({warm / cli:.0f}×) |"
                )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def _cases(folder: Path) -> list[tuple[str, str, object]]:
    """(name, printed result, corpus) of every input :func:`dump` reads."""
    from harness.data.corpus import Corpus
    from harness.diagnose.preprocess import moses_like_tokenize

    def files(hyp: Path, refs: list[Path], name: str) -> Corpus:
        h = hyp.read_text(encoding="utf-8").splitlines()
        r = [p.read_text(encoding="utf-8").splitlines() for p in refs]
        return Corpus(tuple(h), tuple(zip(*r, strict=True)), name=name)

    hyp, ref = _generated(folder)
    gen = files(hyp, [ref], "sys00")
    line = _cli_line(hyp, [ref])
    out: list[tuple[str, str, object]] = [
        ("generated: the CLI's number", line.split(" = ", 1)[1].split()[0], gen),
        ("generated: the CLI's line", line, gen),
        ("generated: a random number", "31.2", gen),
        ("generated: on 0-1", f"{float(line.split(' = ', 1)[1].split()[0]) / 100:.3f}", gen),
    ]
    if os.environ.get("BLEU_HARNESS_DATA"):
        whyp, *wrefs = _wmt21(folder)
        wmt = files(whyp, wrefs, "Facebook-AI")
        one = files(whyp, wrefs[:1], "Facebook-AI")
        lower = _write(folder, "lower-hyp.txt", whyp.read_text().lower().splitlines())
        tok = _write(
            folder,
            "tok-ref.txt",
            [moses_like_tokenize(r) for r in wrefs[0].read_text().splitlines()],
        )
        n = 2 * len(one) // 3
        head_h = _write(folder, "head-hyp.txt", whyp.read_text().splitlines()[:n])
        head_r = _write(folder, "head-ref.txt", wrefs[0].read_text().splitlines()[:n])
        out += [
            ("WMT21 3 refs: the CLI's number", "62.0", wmt),
            ("WMT21 3 refs: the CLI's line", _cli_line(whyp, wrefs), wmt),
            ("WMT21 ref A: -tok intl -lc", _cli_line(whyp, wrefs[:1], "-tok", "intl", "-lc"), one),
            ("WMT21 ref A: hypotheses lowercased", _cli_line(lower, wrefs[:1]), one),
            ("WMT21 ref A: references tokenized", _cli_line(whyp, [tok]), one),
            ("WMT21 ref A: the first two thirds", _cli_line(head_h, [head_r]), one),
            ("WMT21 ref A: files swapped", _cli_line(wrefs[0], [whyp]), one),
            ("WMT21 ref A: a random number", "23.4", one),
        ]
    out += [
        ("fixture nasa candidate_2", "0.27", "google_nasa_opportunity/candidate_2"),
        ("fixture forensic bpe_left_in", "31.6", "forensic_preprocessing/bpe_left_in"),
        ("fixture forensic moses_tokenized", "42", "forensic_preprocessing/moses_tokenized"),
        ("fixture ragged references", "20.0", "edge_ragged_references/system"),
        ("fixture cat on the mat", "0.0", "tutorial_cat_on_the_mat/candidate"),
    ]
    return out


def dump(path: Path, jobs: int = 1, cache_dir: Path | None = None) -> None:
    """Every case's readings into ``path``; each case's session with ``jobs`` workers (``1``:
    serial) and on the disk cache ``cache_dir`` (``None``: memory only)."""
    from harness.diagnose.identify import chance, identify, nearest, simplest
    from harness.session import Session

    result: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, printed, corpus in _cases(Path(tmp)):
            session = Session(jobs=jobs, cache_dir=cache_dir)
            start = time.perf_counter()
            found = identify(printed, corpus, session=session)
            took = time.perf_counter() - start
            result[name] = {
                "printed": printed,
                "identify": [repr(c) for c in found],
                "nearest": [repr(c) for c in nearest(printed, corpus, session=session)],
                "chance": repr(chance(printed, corpus, session=session)),
                "simplest": repr(simplest(printed, corpus, session=session)),
            }
            print(f"{name}: {len(found)} readings, {took:.1f} s", file=sys.stderr)
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", default="time", choices=("time", "dump"))
    ap.add_argument("file", nargs="?", type=Path, help="dump: where to write the readings")
    ap.add_argument("--jobs", type=int, default=1, help="dump: workers per case (1: serial)")
    ap.add_argument("--cache-dir", type=Path, help="dump: a disk cache (default: memory only)")
    args = ap.parse_args()
    if args.mode == "dump":
        if args.file is None:
            ap.error("dump needs a FILE")
        dump(args.file, args.jobs, args.cache_dir)
    else:
        timing()


if __name__ == "__main__":
    main()
