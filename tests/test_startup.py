"""Start-up stays light: what ``import harness`` and ``bleu-harness --help`` load, structurally.

Each check runs in a fresh interpreter and inspects ``sys.modules``: the public package, the CLI
module and parsing ``--help`` (or a command's ``--help``) import none of the heavy libraries, and
a command's ``--help`` imports only its own command module. No wall-clock assertion: the times
are measured by ``benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from harness.cli.app import COMMANDS, build_parser

from .conftest import REPO_ROOT

#: Never loaded by ``import harness``, the CLI module or ``--help``.
HEAVY = ("scipy", "matplotlib", "pandas", "torch", "sacrebleu", "nltk", "evaluate")

#: The order ``bleu-harness --help`` has always listed the commands in.
ORDER = (
    "score compare explain significance human report pitfalls validate identify check "
    "releases fixtures profiles demo cache"
).split()


def _loaded(code: str) -> set[str]:
    """The top-level names and ``harness.*`` modules in ``sys.modules`` after ``code`` runs in
    a fresh interpreter (its output to stdout is discarded)."""
    script = (
        "import contextlib, io, json, sys\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"{textwrap.indent(code, '    ')}\n"
        "names = {m.partition('.')[0] for m in sys.modules}\n"
        "names |= {m for m in sys.modules if m.startswith('harness.')}\n"
        "print(json.dumps(sorted(names)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    return set(json.loads(out.stdout.splitlines()[-1]))


def _help(argv: list[str]) -> str:
    """Code that parses ``argv`` with the parser :func:`harness.cli.main` uses."""
    parse = f"app.parser_for({argv!r}).parse_args({argv!r})"
    return f"import harness.cli.app as app\ntry:\n    {parse}\nexcept SystemExit:\n    pass"


@pytest.mark.parametrize(
    "code",
    ["import harness", "import harness.cli.app", _help(["--help"])],
    ids=["import harness", "import harness.cli.app", "bleu-harness --help"],
)
def test_startup_imports_no_heavy_library(code: str) -> None:
    loaded = _loaded(code)
    assert not loaded & set(HEAVY), f"{code!r} imported {sorted(loaded & set(HEAVY))}"
    commands = {entry.module for entry in COMMANDS.values()}
    assert not loaded & commands, f"{code!r} imported command modules {sorted(loaded & commands)}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_help_imports_only_its_module(name: str) -> None:
    loaded = _loaded(_help([name, "--help"]))
    others = {entry.module for entry in COMMANDS.values()} - {COMMANDS[name].module}
    assert COMMANDS[name].module in loaded
    assert not loaded & others, f"{name} --help imported {sorted(loaded & others)}"


def test_score_help_imports_no_heavy_library() -> None:
    loaded = _loaded(_help(["score", "--help"]))
    assert not loaded & set(HEAVY), f"score --help imported {sorted(loaded & set(HEAVY))}"


def test_public_names_resolve_lazily() -> None:
    import harness

    assert set(harness.__all__) <= set(dir(harness))
    for name in harness.__all__:
        assert getattr(harness, name) is not None
    with pytest.raises(AttributeError):
        _ = harness.no_such_name  # type: ignore[attr-defined]


def test_registry_help_lines_are_the_parsers() -> None:
    """The registry's help line of each command is the one its module gives its parser (what
    ``--help`` listed before the registry), in the same order."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    helps = {action.dest: action.help for action in sub._choices_actions}
    assert list(helps) == ORDER == list(COMMANDS)
    drift = {n: (h, COMMANDS[n].help) for n, h in helps.items() if h != COMMANDS[n].help}
    assert not drift, f"update COMMANDS in harness/cli/app.py (parser's, registry's): {drift}"


def test_console_script_help_lists_every_command() -> None:
    script = Path(sysconfig.get_path("scripts")) / "bleu-harness"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "harness.cli"]
    out = subprocess.run([*argv, "--help"], capture_output=True, text=True, check=True).stdout
    listed = re.findall(r"^    (\S+)\s{2,}\S", out, flags=re.MULTILINE)
    assert listed == ORDER
    for name, entry in COMMANDS.items():
        assert " ".join(entry.help.split()[:3]) in " ".join(out.split()), name


def test_unknown_command_is_a_usage_error() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "harness.cli", "no-such-command"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert out.returncode == 2
    assert "invalid choice: 'no-such-command'" in out.stderr


def test_every_flag_of_every_command_has_help() -> None:
    """Each argument of every subcommand says what it is (``--help`` lists its values)."""
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    silent = {
        name: [
            a.option_strings[0] if a.option_strings else a.dest for a in p._actions if not a.help
        ]
        for name, p in sub.choices.items()
    }
    assert not {k: v for k, v in silent.items() if v}


@pytest.mark.parametrize("profile", ["helm-bleu-1", "lighteval-bleu-1", "deepeval-bleu4"])
def test_punkt_profiles_load_punkt_only_for_a_potential_sentence_end(profile: str) -> None:
    """Lines without a potential sentence end are one sentence each: Punkt is not loaded for
    them; a line with one loads nltk's Punkt module, since Punkt decides there, and not the
    whole nltk package (:mod:`harness.bleu.nltk_punkt_module`: nothing of scikit-learn, pandas
    or scipy.stats, which nltk's package imports)."""
    score = (
        "import harness\n"
        "harness.corpus_bleu(hypotheses={hyps!r}, references=[['the cat sat .'], ['3.5 or e.g']],"
        f" profile={profile!r})\n"
        "from harness.bleu.nltk_punkt_module import punkt_module\n"
        "if punkt_module.cache_info().currsize:\n"
        "    import types; sys.modules['punkt-loaded'] = types.ModuleType('punkt-loaded')"
    )
    plain = _loaded("import sys\n" + score.format(hyps=["the cat sat .", "it is 3.5 e.g"]))
    assert "punkt-loaded" not in plain and "nltk" not in plain
    ends = _loaded("import sys\n" + score.format(hyps=["the cat sat . Then", "it is 3.5 e.g"]))
    assert "punkt-loaded" in ends
    assert not {"nltk", "sklearn", "pandas"} & ends
