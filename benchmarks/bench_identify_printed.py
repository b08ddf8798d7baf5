"""Scenarios for ``identify`` from printed results: does it name what was done?

Not a test (``tests/test_identify_printed.py`` pins a few of these). For each WMT21 en→de
system asked for (reference A only, the files as a user has them), each scenario runs a real
tool the way a researcher might have, captures what it printed, and asks ``identify`` with
that text: the scenario is named when the top reading says the mistake (or the configuration)
that produced it, or, when no reading of the files reproduces the line, when its printed
lengths name the part of the test set or the side that differs. The files of the BPE and
SentencePiece scenarios carry synthetic markers, and tokenized references come from the
harness's Moses-like tokenizer (no subword model or Moses tokenizer is installed). A last scenario prints a score no tool produced (a seeded random number) to
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
from dataclasses import dataclass
from pathlib import Path

import nltk.translate.bleu_score as nltk_bleu

from harness.data.corpus import Corpus
from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende
from harness.diagnose.identify import chance, fewest_steps, identify
from harness.diagnose.lengths import LengthClue, length_clue
from harness.diagnose.preprocess import moses_like_tokenize
from harness.diagnose.seeded import inject_bpe
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


def _write(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Files:
    """What the user holds (``hyp``, ``ref``: reference A, as files in ``folder``) and the
    system's whole corpus (every reference loaded) for scenarios that need more."""

    hyp: Path
    ref: Path
    folder: Path
    corpus: Corpus


@dataclass(frozen=True)
class Scenario:
    """A scenario: its title, what the top reading (or, when nothing matches, what the
    printed lengths say) must contain to count as named, how the tool printed its result,
    and the files the user holds when they are not the system's clean files."""

    title: str
    want: str
    run: Callable[[Files], str]
    given: Callable[[Corpus], Corpus] | None = None


def _hyps(corpus: Corpus, f: Callable[[str], str]) -> Corpus:
    return Corpus(tuple(f(h) for h in corpus.hypotheses), corpus.references, name=corpus.name)


def _spm(text: str) -> str:
    """A synthetic SentencePiece encoding: every word starts a piece with '▁', and a word of
    six or more characters is cut into two pieces."""
    pieces = []
    for w in text.split():
        pieces += [f"\u2581{w[:3]}", w[3:]] if len(w) >= 6 else [f"\u2581{w}"]
    return " ".join(pieces)


def _first_lines(f: Files) -> tuple[Path, Path]:
    """Reference and hypothesis files of the first two thirds of the lines."""
    n = 2 * len(f.corpus) // 3
    hyp = _write(f.folder, "head-hyp.txt", f.hyp.read_text().splitlines()[:n])
    ref = _write(f.folder, "head-ref.txt", f.ref.read_text().splitlines()[:n])
    return ref, hyp


def scenarios(multi_bleu: Path | None) -> list[Scenario]:
    def lowered(path: Path) -> Path:
        return _write(path.parent, f"lower-{path.name}", path.read_text().lower().splitlines())

    def nltk_float(f: Files) -> str:
        hyps = [h.split() for h in f.hyp.read_text().splitlines()]
        refs = [[r.split()] for r in f.ref.read_text().splitlines()]
        return repr(float(nltk_bleu.corpus_bleu(refs, hyps)))

    def tokenized_refs(f: Files) -> str:
        lines = [moses_like_tokenize(r) for r in f.ref.read_text().splitlines()]
        return _sacrebleu(_write(f.folder, "tok-ref.txt", lines), f.hyp, "-f", "text")

    def first_lines(f: Files) -> str:
        return _sacrebleu(*_first_lines(f), "-f", "text")

    def other_reference(f: Files) -> str:
        other = _write(f.folder, "ref-C.txt", [r[1] for r in f.corpus.references])
        return _sacrebleu(other, f.hyp, "-f", "text")

    def lm_eval_row(f: Files) -> str:
        import lm_eval.api.metrics as metrics
        import lm_eval.utils

        refs = f.ref.read_text().splitlines()
        hyps = f.hyp.read_text().splitlines()
        value = metrics.bleu(list(zip(refs, hyps, strict=True)))
        task = "wmt21-en-de"
        table = lm_eval.utils.make_table(
            {
                "results": {task: {"alias": task, "bleu,none": value, "bleu_stderr,none": 0.5}},
                "versions": {task: 1.0},
                "n-shot": {task: 0},
                "higher_is_better": {task: {"bleu": True}},
            }
        )
        return next(row for row in table.splitlines() if "bleu" in row)

    out = [
        Scenario(
            "sacrebleu, defaults (text line)",
            "sacrebleu",
            lambda f: _sacrebleu(f.ref, f.hyp, "-f", "text"),
        ),
        Scenario(
            "sacrebleu -tok intl -lc (JSON)",
            "sacrebleu + tokenize=intl, lowercase=true",
            lambda f: _sacrebleu(f.ref, f.hyp, "-tok", "intl", "-lc"),
        ),
        Scenario(
            "hypotheses lowercased, not the references",
            "lowercased-hyps",
            lambda f: _sacrebleu(f.ref, lowered(f.hyp), "-f", "text"),
        ),
        Scenario(
            "references lowercased, not the hypotheses",
            "lowercased-refs",
            lambda f: _sacrebleu(lowered(f.ref), f.hyp, "-f", "text"),
        ),
        Scenario(
            "references tokenized (Moses-like), hypotheses raw",
            "pre-tokenized-refs",
            tokenized_refs,
        ),
        Scenario(
            "BPE markers left in the output (synthetic '@@ ' split)",
            "bpe-left-in",
            lambda f: _sacrebleu(f.ref, f.hyp, "-f", "text"),
            lambda c: _hyps(c, lambda h: inject_bpe(h, random.Random(len(h)))),
        ),
        Scenario(
            "SentencePiece pieces left in (synthetic '\u2581' pieces)",
            "spm-left-in",
            lambda f: _sacrebleu(f.ref, f.hyp, "-f", "text"),
            lambda c: _hyps(c, _spm),
        ),
        Scenario(
            "hypothesis and reference files swapped",
            "swapped-files",
            lambda f: _sacrebleu(f.hyp, f.ref, "-f", "text"),
        ),
        Scenario("a subset: the first two thirds of the lines", "the first", first_lines),
        Scenario("another reference (WMT21's C instead of A)", "other references", other_reference),
        Scenario(
            "sacrebleu's score reported on 0-1 (4 decimals)",
            "on 0-1",
            lambda f: (
                f"{float(read_printed(_sacrebleu(f.ref, f.hyp, '-f', 'text', '-w', '6')).score) / 100:.4f}"
            ),
        ),
        Scenario("nltk corpus_bleu on split() tokens, printed float", "nltk", nltk_float),
        Scenario("lm-eval's results table row (its bleu metric)", "lm-eval", lm_eval_row),
        Scenario(
            "nltk's float, hypotheses lowercased",
            "nltk on text with lowercased-hyps",
            lambda f: nltk_float(Files(lowered(f.hyp), f.ref, f.folder, f.corpus)),
        ),
        Scenario(
            "hypotheses lowercased on the first two thirds of the lines",
            "segments, read as sacrebleu on text with lowercased-hyps",
            lambda f: _sacrebleu(
                *_first_lines(Files(lowered(f.hyp), f.ref, f.folder, f.corpus)), "-f", "text"
            ),
        ),
        Scenario(
            "sacrebleu JSON on the first two thirds of the lines",
            "the first",
            lambda f: _sacrebleu(*_first_lines(f)),
        ),
    ]
    if multi_bleu is not None:

        def perl(f: Files) -> str:
            with f.hyp.open() as stdin:
                done = subprocess.run(
                    ["perl", str(multi_bleu), str(f.ref)],
                    stdin=stdin,
                    capture_output=True,
                    text=True,
                    check=True,
                )
            return done.stdout.strip()

        out.append(Scenario("multi-bleu.perl on the raw files", "multi-bleu", perl))
        out.append(
            Scenario(
                "multi-bleu.perl with the files swapped",
                "swapped-files",
                lambda f: perl(Files(f.ref, f.hyp, f.folder, f.corpus)),
            )
        )
    return out


def _named(top: str, want: str) -> bool:
    return (
        top.startswith(want)
        if want in ("sacrebleu", "nltk", "multi-bleu", "lm-eval")
        else want in top
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--systems", type=int, default=3, help="how many WMT21 systems (default 3)")
    ap.add_argument("--seed", type=int, default=12345, help="the random scores' seed")
    args = ap.parse_args()
    if not os.environ.get("BLEU_HARNESS_DATA"):
        raise SystemExit("set BLEU_HARNESS_DATA=/path/to/shared/data (WMT21 en-de)")
    names = list(WMT21_SYSTEMS[: args.systems])
    corpora = load_wmt21_ende(systems=names, refs=("A", "C"))
    rng = random.Random(args.seed)
    session = Session()
    print("| scenario | system | top reading | named | matches | by chance | s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    named = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for system, corpus in corpora.items():
            clean = Corpus(
                corpus.hypotheses, tuple((r[0],) for r in corpus.references), name=system
            )
            for sc in scenarios(_multi_bleu()):
                given = sc.given(clean) if sc.given else clean
                hyp = _write(folder, f"{system}.txt", list(given.hypotheses))
                ref = _write(folder, "ref.txt", [r[0] for r in given.references])
                printed = sc.run(Files(hyp, ref, folder, corpus))
                start = time.perf_counter()
                found = identify(printed, given, session=session)
                line = read_printed(printed)
                clue = None if found else length_clue(line, given, session=session)
                took = time.perf_counter() - start
                odds = chance(line, given, session=session)
                top = found[0] if found else None
                if top is not None:
                    text = top.reading + (" on 0-1" if top.scale == "0-1" else "")
                else:
                    text = "nothing" + (f"; {_lengths(clue)}" if clue is not None else "")
                ok = _named(text, sc.want)
                named += ok
                total += 1
                by_chance = "–" if line.details else f"{odds.expected:.2g}"
                print(
                    f"| {sc.title} | {system} | {text} | {'yes' if ok else 'no'} | {len(found)} "
                    f"| {by_chance} | {took:.1f} |"
                )
            score = f"{rng.uniform(5, 40):.1f}"
            found = identify(score, clean, session=session)
            odds = chance(score, clean, session=session)
            few = fewest_steps(found)
            top_reading = (
                f"{found[0].reading} (fewest steps among the matches: {few})"
                if found
                else "nothing"
            )
            print(
                f"| a random score ({score}) | {system} | {top_reading} | – | {len(found)} "
                f"| {odds.expected:.2g} | – |"
            )
    print(f"\nnamed: {named} of {total} scenarios")


def _lengths(clue: LengthClue) -> str:
    """The length clue in a table cell: the part of the test set, or what differs."""
    if clue.span is not None and clue.reproduces:
        return clue.part
    if clue.span is not None and clue.matches:
        return f"{clue.part}, read as {clue.matches[0].reading}"
    if clue.printed_hyp_len == clue.files_hyp_len:
        return "other references (hyp_len agrees, ref_len does not)"
    return "other text (neither length agrees)"


if __name__ == "__main__":
    main()
