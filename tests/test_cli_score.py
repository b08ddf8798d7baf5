"""``bleu-harness score``: short and library signatures, ``--cite``, several implementations
side by side, and the help and usage errors of every flag.

Every expected number and signature is computed here by running the real library (sacrebleu's
``corpus_score`` and ``get_signature()``, nltk's ``corpus_bleu`` and ``modified_precision``);
none is typed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.api import resolve_config
from harness.bleu.config import (
    AGGREGATIONS,
    ENGINE_VERSION,
    NGRAM_IDENTITIES,
    NGRAM_TOTALS,
    REF_LENGTHS,
    SIGNATURE_OMITTED,
    SMOOTHINGS,
    TOKENIZERS,
    factor_differences,
)
from harness.bleu.profiles import PROFILES
from harness.bleu.smoothing import REGISTRY as SMOOTHING_REGISTRY
from harness.cli import main
from harness.cli.app import build_parser
from harness.cli.score import TABLE_WIDTH
from harness.data.corpus import Corpus
from harness.scorers import LIBRARY_ADAPTERS, EngineScorer, get_adapter
from harness.scorers.citation import short_signature, without_version
from harness.scorers.nltk_adapter import NltkAdapter

HYP = "The cat sat on the mat .\nA NASA rover is fighting a massive storm on Mars.\n"
REF1 = (
    "The cat sat on a mat .\nThe NASA Opportunity rover is battling a massive dust storm on Mars.\n"
)
REF2 = "A cat sat on the mat .\nThe rover fights a storm on Mars.\n"


@pytest.fixture()
def files(tmp_path: Path) -> list[str]:
    paths = [tmp_path / "hyp.txt", tmp_path / "ref1.txt", tmp_path / "ref2.txt"]
    for path, text in zip(paths, (HYP, REF1, REF2), strict=True):
        path.write_text(text, encoding="utf-8")
    return [str(p) for p in paths]


def _sacrebleu() -> tuple[Any, str]:
    """sacrebleu's own corpus score and signature on the files' corpus."""
    from sacrebleu.metrics import BLEU

    metric = BLEU()
    result = metric.corpus_score(HYP.splitlines(), [REF1.splitlines(), REF2.splitlines()])
    return result, str(metric.get_signature())


def _nltk() -> tuple[float, list[float]]:
    """nltk's corpus BLEU (0-100) and its matched/total n-grams per order (0-100)."""
    from nltk.translate.bleu_score import corpus_bleu, modified_precision

    hyps = [h.split() for h in HYP.splitlines()]
    refs = [
        [a.split(), b.split()] for a, b in zip(REF1.splitlines(), REF2.splitlines(), strict=True)
    ]
    value = corpus_bleu(list_of_references=refs, hypotheses=hyps)
    precisions = []
    for n in range(1, 5):
        fractions = [modified_precision(r, h, n) for r, h in zip(refs, hyps, strict=True)]
        num = sum(f.numerator for f in fractions)
        den = sum(f.denominator for f in fractions)
        precisions.append(100.0 * num / den)
    return 100.0 * value, precisions


def _run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _line(out: str, prefix: str) -> str:
    found = [line for line in out.splitlines() if line.startswith(prefix)]
    assert len(found) == 1, out
    return found[0].removeprefix(prefix)


# ------------------------------------------------------------------------- short signature
def test_default_profile_prints_full_and_short_signature(files, capsys) -> None:
    code, out, _ = _run(["score", *files], capsys)
    assert code == 0
    result, _ = _sacrebleu()
    assert out.startswith(f"BLEU = {result.score:.2f} ")
    assert _line(out, "signature: ") == PROFILES["sacrebleu"].signature()  # unchanged
    assert _line(out, "short signature: ") == (
        f"nrefs:2|profile:sacrebleu|version:engine={ENGINE_VERSION}"
    )


def test_short_signature_lists_only_the_overridden_factors(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--tokenize", "intl", "--smooth", "add-k"], capsys)
    assert code == 0
    full = resolve_config("sacrebleu", tokenize="intl", smooth="add-k").signature()
    assert _line(out, "signature: ") == full
    assert _line(out, "short signature: ") == (
        f"nrefs:2|profile:sacrebleu|tok:intl|smooth:add-k[{SMOOTHING_REGISTRY['add-k'].default:g}]"
        f"|version:engine={ENGINE_VERSION}"
    )


@pytest.mark.parametrize("name", list(PROFILES))
def test_short_signature_of_a_profile_names_no_factor(name: str) -> None:
    cfg = PROFILES[name]
    assert factor_differences(cfg, cfg) == {}
    sig = short_signature(EngineScorer(name), cfg)
    assert sig == f"profile:{name}|version:engine={ENGINE_VERSION}"


def test_short_signatures_differ_exactly_when_full_signatures_do() -> None:
    """Every profile written relative to every other: no factor listed exactly when the two
    compute the same variant, and the listed items are the full signature's own."""
    for a, base in PROFILES.items():
        for b, cfg in PROFILES.items():
            diff = factor_differences(cfg, base)
            same = cfg.signature() == base.signature()
            assert (diff == {}) == same, (a, b, diff)
            full_items = cfg.signature().split("|")
            for key, value in diff.items():
                assert f"{key}:{value}" in full_items or key in SIGNATURE_OMITTED, (
                    a,
                    b,
                    key,
                )


def test_nrefs_is_var_for_ragged_references_as_in_sacrebleu() -> None:
    from sacrebleu.metrics import BLEU

    hyps = ["the cat sat on the mat", "a dog barks"]
    refs = [["the cat sat on a mat", "a cat sat on the mat"], ["the dog barks"]]
    metric = BLEU()
    metric.corpus_score(hyps, Corpus(hypotheses=hyps, references=refs).to_streams())
    theirs = dict(p.split(":", 1) for p in str(metric.get_signature()).split("|"))
    corpus = Corpus(hypotheses=hyps, references=refs)
    ours = short_signature(EngineScorer("sacrebleu"), PROFILES["sacrebleu"], corpus)
    assert ours.startswith(f"nrefs:{theirs['nrefs']}|") and theirs["nrefs"] == "var"
    even = Corpus(hypotheses=hyps, references=[r[:1] for r in refs])
    metric.corpus_score(hyps, even.to_streams())
    one = dict(p.split(":", 1) for p in str(metric.get_signature()).split("|"))["nrefs"]
    assert short_signature(EngineScorer("sacrebleu"), PROFILES["sacrebleu"], even).startswith(
        f"nrefs:{one}|"
    )


# ------------------------------------------------------------------------- library signatures
def test_impl_sacrebleu_prints_sacrebleus_own_signature(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--impl", "sacrebleu"], capsys)
    assert code == 0
    result, signature = _sacrebleu()
    assert out.startswith(f"BLEU = {result.score:.2f} ")
    assert _line(out, "library signature: ") == signature
    sacrebleu_version = get_adapter("sacrebleu").version()
    assert _line(out, "short signature: ") == (
        f"nrefs:2|lib:sacrebleu|version:engine={ENGINE_VERSION},sacrebleu={sacrebleu_version}"
    )


def test_impl_sacrebleu_signature_follows_the_settings_passed(files, capsys) -> None:
    from sacrebleu.metrics import BLEU

    args = ["score", *files, "--impl", "sacrebleu", "--tokenize", "intl", "--lowercase"]
    code, out, _ = _run(args, capsys)
    assert code == 0
    metric = BLEU(tokenize="intl", lowercase=True)
    metric.corpus_score(HYP.splitlines(), [REF1.splitlines(), REF2.splitlines()])
    assert _line(out, "library signature: ") == str(metric.get_signature())
    assert "|tok:intl|case:lc|" in _line(out, "short signature: ")


def test_impl_nltk_prints_precisions_from_nltks_own_counts_with_a_footnote(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--impl", "nltk"], capsys)
    assert code == 0
    score, precisions = _nltk()
    prec = "/".join(f"{p:.1f}" for p in precisions)
    assert out.startswith(f"BLEU = {score:.2f} {prec}* (BP = ")
    note = _line(out, "* nltk: ")
    assert "returns no precisions" in note and "before any smoothing" in note
    own = _line(out, "library signature: ")
    assert own.startswith(f"nltk {NltkAdapter().version()}: ")
    assert "corpus_bleu(" in own and "SmoothingFunction().method0" in own


# ------------------------------------------------------------------------- --cite
def test_cite_sacrebleu_is_one_line_with_sacrebleus_signature(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--impl", "sacrebleu", "--cite"], capsys)
    assert code == 0
    result, signature = _sacrebleu()
    version = get_adapter("sacrebleu").version()
    assert out == (
        f"BLEU = {result.score:.1f} (sacrebleu {version} via bleu-harness {harness.__version__}; "
        f"{without_version(signature)})\n"
    )
    assert "version:" not in out


def test_cite_profile_names_the_harness_and_the_overrides(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--profile", "nltk", "--cite"], capsys)
    assert code == 0
    score, _ = _nltk()
    assert out == (
        f"BLEU = {score:.1f} (bleu-harness {ENGINE_VERSION}; "
        "nrefs:2|profile:nltk|tok:whitespace|case:mixed)\n"
    )
    code, out, _ = _run(["score", *files, "--cite", "--smooth", "floor"], capsys)
    assert code == 0
    assert out.rstrip().endswith(
        "; nrefs:2|profile:sacrebleu|tok:13a|case:mixed|smooth:floor[0.1])"
    )


def test_cite_several_gives_one_line_each(files, capsys) -> None:
    code, out, err = _run(["score", *files, "--impl", "sacrebleu,nltk", "--cite"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 2
    score, _ = _nltk()
    assert lines[1] == (
        f"BLEU = {score:.1f} (nltk {NltkAdapter().version()} via bleu-harness "
        f"{ENGINE_VERSION}; nrefs:2|lib:nltk|tok:whitespace|case:mixed)"
    )


def test_cite_refuses_segment_level(files, capsys) -> None:
    code, _, err = _run(["score", *files, "--cite", "--level", "segment"], capsys)
    assert code == 2 and "--cite" in err


# ------------------------------------------------------------------------- several
def test_several_implementations_in_one_table(files, capsys) -> None:
    args = ["score", *files, "--profile", "sacrebleu,nltk", "--impl", "sacrebleu", "--impl", "nltk"]
    code, out, _ = _run(args, capsys)
    assert code == 0
    table, _, rest = out.partition("\n\n")
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["implementation", "BLEU", "precisions"]
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["harness:sacrebleu", "harness:nltk", "sacrebleu", "nltk"]
    result, signature = _sacrebleu()
    nltk_score, nltk_prec = _nltk()
    cells = {line.split()[0]: line.split() for line in lines[1:]}
    assert cells["sacrebleu"][1] == f"{result.score:.2f}"
    assert cells["harness:sacrebleu"][1] == f"{result.score:.2f}"
    assert cells["sacrebleu"][2] == "/".join(f"{p:.1f}" for p in result.precisions)
    assert cells["sacrebleu"][5] == f"{result.sys_len}/{result.ref_len}"
    assert cells["nltk"][1] == f"{nltk_score:.2f}"
    assert cells["nltk"][2] == "/".join(f"{p:.1f}" for p in nltk_prec) + "*"
    assert cells["harness:sacrebleu"][-1] == "verified"
    assert " ".join(cells["sacrebleu"][-2:]) == "real library"
    assert all(len(line) <= TABLE_WIDTH for line in lines)
    assert "short signatures:" in rest and signature in rest
    assert f"nrefs:2|profile:nltk|version:engine={ENGINE_VERSION}" in rest


def test_every_profile_fits_the_width(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--profile", ",".join(PROFILES)], capsys)
    assert code == 0
    table = out.partition("\n\n")[0].splitlines()
    assert len(table) == len(PROFILES) + 1
    assert max(len(line) for line in table) <= TABLE_WIDTH
    notes = out.partition("\nnotes:\n")[2].partition("\n\n")[0].splitlines()
    assert all(len(line) <= TABLE_WIDTH for line in notes)
    # a status is printed for every profile; unverified ones are explained in the notes
    unverified = [row.split()[0] for row in table[1:] if "unverified" in row]
    assert all(any(name in note for note in notes) for name in unverified)


def test_an_unavailable_library_gets_a_row_and_a_note(files, capsys, monkeypatch) -> None:
    monkeypatch.setattr(NltkAdapter, "module", "no_such_module_xyz")
    code, out, _ = _run(["score", *files, "--impl", "sacrebleu,nltk"], capsys)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("nltk "))
    assert row.split()[1] == "-" and row.split()[-2:] == ["unavailable", "[1]"]
    assert "[1] nltk: unavailable: cannot import no_such_module_xyz" in out
    assert NltkAdapter.install_hint in out
    assert "scored 1 of 2; not scored: nltk" in out


def test_no_implementation_scored_exits_2(files, capsys, monkeypatch) -> None:
    monkeypatch.setattr(NltkAdapter, "module", "no_such_module_xyz")
    args = ["score", *files, "--impl", "nltk", "--profile", "sacrebleu", "--smooth-value", "3"]
    code, out, err = _run(args, capsys)
    assert code == 2
    assert "no implementation scored" in err
    assert "harness:sacrebleu: refused: ConfigError: smooth 'exp' takes no smooth_value" in out
    assert "nltk: unavailable" in out


def test_several_json_is_a_list(files, capsys, monkeypatch) -> None:
    monkeypatch.setattr(NltkAdapter, "module", "no_such_module_xyz")
    code, out, _ = _run(["score", *files, "--impl", "sacrebleu,nltk", "--json"], capsys)
    assert code == 0
    rows = json.loads(out)
    assert [r["implementation"] for r in rows] == ["sacrebleu", "nltk"]
    result, signature = _sacrebleu()
    ok, missing = rows
    assert ok["status"] == "ok" and ok["score"] == pytest.approx(result.score, abs=1e-9)
    assert ok["library_signature"] == signature
    assert ok["short_signature"].startswith("nrefs:2|lib:sacrebleu|")
    assert ok["signature"] == get_adapter("sacrebleu").signature(PROFILES["sacrebleu"])
    assert ok["cite"].startswith(f"BLEU = {result.score:.1f} (sacrebleu ")
    assert missing["status"] == "unavailable" and missing["score"] is None
    assert "no_such_module_xyz" in missing["reason"] and missing["fix"]


def test_single_json_has_both_signatures_and_the_citation(files, capsys) -> None:
    code, out, _ = _run(["score", *files, "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    result, _ = _sacrebleu()
    assert obj["score"] == pytest.approx(result.score, abs=1e-9)
    assert obj["signature"] == PROFILES["sacrebleu"].signature()
    assert obj["short_signature"] == f"nrefs:2|profile:sacrebleu|version:engine={ENGINE_VERSION}"
    assert obj["library_signature"] is None and obj["verification"] == "verified"
    assert (
        obj["cite"] == f"BLEU = {result.score:.1f} (bleu-harness {ENGINE_VERSION}; "
        "nrefs:2|profile:sacrebleu|tok:13a|case:mixed)"
    )


def test_impl_all_is_every_library_adapter() -> None:
    args = build_parser().parse_args(["score", "h", "r", "--impl", "all", "--impl", "nltk"])
    assert args.impl == [*LIBRARY_ADAPTERS, "nltk"]


def test_segment_level_with_several_is_refused(files, capsys) -> None:
    code, _, err = _run(
        ["score", *files, "--profile", "nltk,sacrebleu", "--level", "segment"], capsys
    )
    assert code == 2 and "one implementation" in err


# ------------------------------------------------------------------------- help and usage
def _score_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["score"]


REGISTRIES = {
    "tokenize": TOKENIZERS,
    "smooth": SMOOTHINGS,
    "ref_length": REF_LENGTHS,
    "ngram_totals": NGRAM_TOTALS,
    "aggregation": AGGREGATIONS,
    "ngram_identity": NGRAM_IDENTITIES,
}


def test_every_score_flag_has_help() -> None:
    for action in _score_parser()._actions:
        assert action.help, action.option_strings


@pytest.mark.parametrize("dest", list(REGISTRIES))
def test_override_help_lists_the_registry_and_refuses_others(dest, files, capsys) -> None:
    action = next(a for a in _score_parser()._actions if a.dest == dest)
    assert tuple(action.choices) == REGISTRIES[dest]
    for name in REGISTRIES[dest]:
        assert name in action.help
    flag = action.option_strings[0]
    with pytest.raises(SystemExit) as info:
        main(["score", *files, flag, "no-such-value"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and "no-such-value" in err
    assert all(name in err for name in REGISTRIES[dest])


def test_score_help_keeps_hyphenated_values_whole(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    text = capsys.readouterr().out
    assert "nltk-\n" not in text and "closest-\n" not in text
    for method, spec in SMOOTHING_REGISTRY.items():
        if spec.takes_value:
            assert method in text


def test_max_order_and_booleans(files, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["score", *files, "--max-order", "11"])
    assert "max_order must be between 1 and 10, got 11" in capsys.readouterr().err
    code, out, _ = _run(["score", *files, "--profile", "tensor2tensor", "--no-lowercase"], capsys)
    assert code == 0 and "|case:mixed|" in _line(out, "signature: ")


# ------------------------------------------------------------------------- console script
def test_console_script_cites(files) -> None:
    script = Path(sys.executable).with_name("bleu-harness")
    if not script.exists():
        pytest.skip(f"console script not installed beside {sys.executable}")
    env = {**os.environ, "BLEU_HARNESS_CACHE_DIR": str(Path(files[0]).parent / "cache")}
    proc = subprocess.run(
        [str(script), "score", *files, "--impl", "sacrebleu", "--cite"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result, signature = _sacrebleu()
    assert proc.stdout.startswith(f"BLEU = {result.score:.1f} (sacrebleu ")
    assert proc.stdout.rstrip().endswith(f"; {without_version(signature)})")


def test_a_library_raising_is_reported_not_a_bug(
    files, capsys, monkeypatch, evaluate_module
) -> None:
    """evaluate's Hub module divides by zero on an empty hypothesis side: one implementation
    exits 2 naming the library's exception; among several it is a row saying so."""
    monkeypatch.setenv("BLEU_HARNESS_EVALUATE_MODULE", str(evaluate_module))
    Path(files[0]).write_text("\n\n", encoding="utf-8")
    corpus = Corpus(hypotheses=["", ""], references=[[r] for r in REF1.splitlines()])
    with pytest.raises(Exception) as real:  # what the library raises, observed here
        get_adapter("evaluate").corpus(corpus)
    name = type(real.value).__name__
    code, out, err = _run(["score", files[0], files[1], "--impl", "evaluate"], capsys)
    assert code == 2 and out == ""
    assert f"evaluate raised {name}: {real.value}" in err and "internal error" not in err
    args = ["score", files[0], files[1], "--impl", "evaluate,sacrebleu"]
    code, out, err = _run(args, capsys)
    assert code == 0
    assert f"[1] evaluate: raises: {name}: {real.value}" in out
