"""Scenarios for ``identify`` from printed results: does it name what was done?

Not a test (``tests/test_identify_printed.py`` pins a few of these). For each WMT21 en→de
system asked for (reference A only, the files as a user has them), each scenario runs a real
tool the way a researcher might have, captures what it printed, and asks ``identify`` with
that text: the scenario is named when the top reading says the mistake (or the configuration)
that produced it. A last scenario prints a score no tool produced (a seeded random number) to
show what the search gives by chance. Prints a Markdown table::

    BLEU_HARNESS_DATA=/work/shared/data .venv/bin/python benchmarks/bench_identify_printed.py

``multi-bleu.perl`` is read from ``$BLEU_HARNESS_REFERENCE_IMPLS`` or ``../shared/reference-impls``
(its scenario is left out when perl or the script is missing).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import nltk.translate.bleu_score as nltk_bleu

from harness.data.corpus import Corpus
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.identify import chance, identify
from harness.scorers.printed import read_printed
from harness.session import Session

REPO = Path(__file__).resolve().parent.parent


def _multi_bleu() -> Path | None:
    folder = os.environ.get("BLEU_HARNESS_REFERENCE_IMPLS") or str(
        REPO.parent / "shared" / "reference-impls"
    )
    script = Path(folder) / "moses" / "multi-bleu.perl"
    return script if script.is_file() and shutil.which("perl") else None


def _sacrebleu(ref: Path, hyp: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(hyp), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


#: A scenario: its name, what the top reading must contain to be named, and how to print.
Scenario = tuple[str, str, Callable[[Path, Path, Path], str]]


def _write(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return path


def scenarios(multi_bleu: Path | None) -> list[Scenario]:
    def lowered(path: Path) -> Path:
        return _write(path.parent, f"lower-{path.name}", path.read_text().lower().splitlines())

    def nltk_float(ref: Path, hyp: Path, _folder: Path) -> str:
        hyps = [h.split() for h in hyp.read_text().splitlines()]
        refs = [[r.split()] for r in ref.read_text().splitlines()]
        return repr(float(nltk_bleu.corpus_bleu(refs, hyps)))

    out: list[Scenario] = [
        (
            "sacrebleu, defaults (text line)",
            "sacrebleu",
            lambda r, h, f: _sacrebleu(r, h, "-f", "text"),
        ),
        (
            "sacrebleu -tok intl -lc (JSON)",
            "sacrebleu + tokenize=intl, lowercase=true",
            lambda r, h, f: _sacrebleu(r, h, "-tok", "intl", "-lc"),
        ),
        (
            "hypotheses lowercased, not the references",
            "lowercased-hyps",
            lambda r, h, f: _sacrebleu(r, lowered(h), "-f", "text"),
        ),
        (
            "references lowercased, not the hypotheses",
            "lowercased-refs",
            lambda r, h, f: _sacrebleu(lowered(r), h, "-f", "text"),
        ),
        (
            "hypothesis and reference files swapped",
            "swapped-files",
            lambda r, h, f: _sacrebleu(h, r, "-f", "text"),
        ),
        (
            "sacrebleu's score reported on 0-1 (4 decimals)",
            "on 0-1",
            lambda r, h, f: (
                f"{float(read_printed(_sacrebleu(r, h, '-f', 'text', '-w', '6')).score) / 100:.4f}"
            ),
        ),
        ("nltk corpus_bleu on split() tokens, printed float", "nltk", nltk_float),
    ]
    if multi_bleu is not None:

        def perl(ref: Path, hyp: Path, _folder: Path) -> str:
            with hyp.open() as stdin:
                done = subprocess.run(
                    ["perl", str(multi_bleu), str(ref)],
                    stdin=stdin,
                    capture_output=True,
                    text=True,
                    check=True,
                )
            return done.stdout.strip()

        out.append(("multi-bleu.perl on the raw files", "multi-bleu", perl))
    return out


def _named(top: str, want: str) -> bool:
    return top.startswith(want) if want in ("sacrebleu", "nltk", "multi-bleu") else want in top


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=3, help="how many WMT21 systems (default 3)")
    ap.add_argument("--seed", type=int, default=12345, help="the random scores' seed")
    args = ap.parse_args()
    if not os.environ.get("BLEU_HARNESS_DATA"):
        raise SystemExit("set BLEU_HARNESS_DATA=/path/to/shared/data (WMT21 en-de)")
    names = list(WMT21_SYSTEMS[: args.systems])
    corpora = load_wmt21_ende(systems=names, refs=("A",))
    rng = random.Random(args.seed)
    session = Session()
    print("| scenario | system | top reading | named | matches | by chance | s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    named = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for system, corpus in corpora.items():
            hyp = _write(folder, f"{system}.txt", list(corpus.hypotheses))
            ref = _write(folder, "ref.txt", [r[0] for r in corpus.references])
            given = Corpus(corpus.hypotheses, corpus.references, name=system)
            for title, want, run in scenarios(_multi_bleu()):
                printed = run(ref, hyp, folder)
                start = time.perf_counter()
                found = identify(printed, given, session=session)
                took = time.perf_counter() - start
                line = read_printed(printed)
                odds = chance(line, given, session=session)
                top = found[0] if found else None
                text = (
                    "nothing"
                    if top is None
                    else top.reading + (" on 0-1" if top.scale == "0-1" else "")
                )
                ok = top is not None and _named(text, want)
                named += ok
                total += 1
                by_chance = "–" if line.details else f"{odds.expected:.2g}"
                print(
                    f"| {title} | {system} | {text} | {'yes' if ok else 'no'} | {len(found)} "
                    f"| {by_chance} | {took:.1f} |"
                )
            score = f"{rng.uniform(5, 40):.1f}"
            found = identify(score, given, session=session)
            odds = chance(score, given, session=session)
            top = found[0].reading if found else "nothing"
            print(
                f"| a random score ({score}) | {system} | {top} | – | {len(found)} "
                f"| {odds.expected:.2g} | – |"
            )
    print(f"\nnamed: {named} of {total} scenarios")


if __name__ == "__main__":
    main()
