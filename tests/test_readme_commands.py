"""Every command line of README.md runs, as written, through the real console script.

Each line of the README's ``sh`` code blocks is one test row: ``bleu-harness …`` lines (split on
``;``, comments dropped, an optional ``[--flag]`` run both without and with the flag) run in a
subprocess whose working directory is a temporary folder holding small real inputs for the
README's placeholders (``hyp.txt``, ``ref.txt``, ``ref1.txt``, ``ref2.txt``, ``base.txt``,
``system.txt``, ``mymodule.py`` defining ``my_bleu``, and ``multi-bleu.perl`` copied from the
shared reference implementations). Each must exit 0 without a traceback. The ``python`` blocks
run as scripts the same way.

A README line this file does not know how to run is a failing row, not a silent skip: a file
name it has no input for, a command other than ``bleu-harness`` that is not in
:data:`NOT_RUN` (with the reason), or a code block in another language.

Rows that need the real data (``--wmt21``, ``--coco``, ``--wmt19``, ``human``, ``--human``) use
``BLEU_HARNESS_DATA``: skipped without it, a failure when ``CI=true`` (as the ``data_dir``
fixture does). The two WMT21 runs are ``slow`` (tens of seconds) and still run by default.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import oracles
from .conftest import REPO_ROOT

README = REPO_ROOT / "README.md"

#: Lines of the README's ``sh`` blocks that are not ``bleu-harness`` commands, and why this
#: file does not run them. Any other such line fails.
NOT_RUN = {
    "make demo": "installs the package into .venv; the demo it runs is `bleu-harness demo`",
    "make test": "runs ruff and this very test suite",
}

#: Placeholder inputs the README names: line-aligned, small, real text.
HYP = ["the cat is on the mat", "there is a dog in the garden", "he reads a book"]
INPUTS = {
    "hyp.txt": HYP,
    "ref.txt": ["the cat sat on the mat", "a dog is in the garden", "he is reading a book"],
    "ref1.txt": ["the cat sat on the mat", "a dog is in the garden", "he is reading a book"],
    "ref2.txt": ["there is a cat on the mat", "the dog is in the garden", "he reads the book"],
    "base.txt": ["a cat on mat", "dog garden", "he book"],
    "system.txt": HYP,
    "scores.tsv": ["system\tscore", "hyp\t0.4", "system\t0.1", "base\t-0.3"],
}
MYMODULE = '''"""A home-made BLEU for `validate --impl mymodule:my_bleu`: sacrebleu, per-segment refs."""
import sacrebleu


def my_bleu(hypotheses, references):
    k = max(len(r) for r in references)
    streams = [[r[j] if j < len(r) else None for r in references] for j in range(k)]
    return sacrebleu.corpus_bleu(hypotheses, streams).score
'''
#: Words in a command that need the real data folder.
REAL_DATA = ("--wmt21", "--coco", "--wmt19", "--human", "human")
#: Commands that take tens of seconds (WMT21 through real libraries or every implementation).
SLOW = ("compare --wmt21", "report --out report/ --wmt21 --human")
#: Files the test writes (anything else ending in a file suffix is an unknown placeholder).
KNOWN_FILES = {*INPUTS, "multi-bleu.perl"}


def _blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block."""
    return [
        (m.group(1).strip(), m.group(2))
        for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.M | re.S)
    ]


def _expand_optional(cmd: str) -> list[str]:
    """``bleu-harness pitfalls [--json]`` → without and with ``--json``."""
    m = re.search(r"\s\[(--[^\]]+)\]", cmd)
    if not m:
        return [cmd]
    without = cmd[: m.start()] + cmd[m.end() :]
    with_ = cmd[: m.start()] + " " + m.group(1) + cmd[m.end() :]
    return [*_expand_optional(without), *_expand_optional(with_)]


def readme_rows() -> list[pytest.param]:
    """One row per command (or python block) in README.md."""
    rows = []
    for lang, body in _blocks(README.read_text(encoding="utf-8")):
        if lang == "python":
            rows.append(pytest.param("python", body, id=f"python-block-{len(rows)}"))
            continue
        if lang != "sh":
            continue  # prose blocks (the Layout tree) hold no commands
        for line in body.splitlines():
            code = line.split("  #", 1)[0].split(" # ", 1)[0].strip()
            if not code:
                continue
            for part in (p.strip() for p in code.split(";")):
                for cmd in _expand_optional(part):
                    marks = [pytest.mark.slow] if any(s in cmd for s in SLOW) else []
                    rows.append(pytest.param("sh", cmd, id=cmd, marks=marks))
    return rows


def _console_script() -> list[str]:
    """The installed ``bleu-harness`` script, or the same entry point without the working
    directory on ``sys.path`` (exactly what a console script sees)."""
    script = Path(sys.executable).parent / "bleu-harness"
    if script.exists():
        return [str(script)]
    code = "import sys; sys.path.pop(0); from harness.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the README's placeholder inputs."""
    d = tmp_path_factory.mktemp("readme")
    for name, lines in INPUTS.items():
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (d / "mymodule.py").write_text(MYMODULE, encoding="utf-8")
    script = oracles.script_path(oracles.MULTI_BLEU)
    if script.is_file():
        shutil.copy(script, d / oracles.MULTI_BLEU)
    return d


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """This checkout first on the path, a private statistics cache, offline, no colour."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), e.get("PYTHONPATH")]))
    e["BLEU_HARNESS_CACHE_DIR"] = str(tmp_path_factory.mktemp("stats-cache"))
    e["MPLBACKEND"] = "Agg"
    e["HF_EVALUATE_OFFLINE"] = "1"
    e["HF_DATASETS_OFFLINE"] = "1"
    return e


def _need_data(cmd: str) -> None:
    words = cmd.split()
    if not any(w in words for w in REAL_DATA):
        return
    value = os.environ.get("BLEU_HARNESS_DATA", "").strip()
    if value and Path(value).is_dir():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but BLEU_HARNESS_DATA is missing; {cmd!r} needs it", pytrace=False)
    pytest.skip(f"{cmd!r} needs BLEU_HARNESS_DATA")


def _argv(cmd: str, workdir: Path) -> list[str]:
    words = shlex.split(cmd)
    if cmd in NOT_RUN:
        pytest.skip(f"{cmd!r} is not run here: {NOT_RUN[cmd]}")
    if not words or words[0] != "bleu-harness":
        pytest.fail(
            f"README command {cmd!r} is neither `bleu-harness …` nor listed in NOT_RUN; "
            "teach tests/test_readme_commands.py to run it",
            pytrace=False,
        )
    for w in words[1:]:
        for name in re.findall(r"[\w.-]+\.(?:txt|perl|pl|jsonl|tsv|py)\b", w):
            if name not in KNOWN_FILES:
                pytest.fail(f"README command {cmd!r} names {name!r}, which this test does not "
                            "provide; add it to INPUTS", pytrace=False)  # fmt: skip
            if not (workdir / name).exists():  # only the Moses script can be missing
                reason = oracles.missing_reason(twig=False) or f"{name} not found"
                if os.environ.get("CI") == "true":
                    pytest.fail(f"CI=true but {cmd!r} cannot run: {reason}", pytrace=False)
                pytest.skip(f"{cmd!r} needs the Moses scripts: {reason}")
    return _console_script() + words[1:]


@pytest.mark.parametrize(("lang", "cmd"), readme_rows())
def test_readme_command_runs(lang: str, cmd: str, workdir: Path, env: dict[str, str]) -> None:
    if lang == "python":
        argv = [sys.executable, "-c", cmd]
    else:
        _need_data(cmd)
        argv = _argv(cmd, workdir)
    proc = subprocess.run(
        argv,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1800,  # report --wmt21 --human: 876 s on a shared machine before issue 13, 424 s after
    )
    where = f"{cmd!r} in {workdir}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr + proc.stdout, where
    assert proc.returncode == 0, where
    if lang == "sh":
        assert proc.stdout.strip(), f"no output: {where}"


def test_every_readme_block_is_understood() -> None:
    """Code blocks in other languages would hold commands no row runs; fail on them."""
    langs = {lang for lang, _ in _blocks(README.read_text(encoding="utf-8"))}
    assert langs <= {"sh", "python", ""}, f"unknown README code block languages: {langs}"
    rows = readme_rows()
    assert len(rows) >= 18, [r.id for r in rows]  # the README's command list as of issue 10
