"""Every command line of README.md and docs/*.md runs, as written.

Each line of the README's ``sh`` code blocks is one test row: ``bleu-harness …`` lines (split on
``;``, comments dropped, an optional ``[--flag]`` run both without and with the flag) run through
the console script's entry point :func:`harness.cli.main` in this process (the first row through
the real installed console script in a subprocess, :data:`CONSOLE_SCRIPT_ROW`), with a
temporary folder as the working directory holding small real inputs for the README's
placeholders (``hyp.txt``, ``ref.txt``, ``ref1.txt``, ``ref2.txt``, ``base.txt``,
``system.txt``, ``mymodule.py`` defining ``my_bleu``, and ``multi-bleu.perl`` copied from the
shared reference implementations). Each must exit 0 without a traceback
(``BLEU_HARNESS_DEBUG=1``: an unexpected exception prints one). The ``python`` blocks run as
scripts in the same folder.

A README line this file does not know how to run is a failing row, not a silent skip: a file
name it has no input for, a command other than ``bleu-harness`` that is not in
:data:`NOT_RUN` (with the reason), or a code block in another language.

Rows that need the real data (``--wmt21``, ``--coco``, ``--wmt19``, ``human``, ``--human``) use
``BLEU_HARNESS_DATA``: skipped without it, a failure when ``CI=true`` (as the ``data_dir``
fixture does). ``compare``/``report`` rows on WMT21 run with ``--limit`` (the first
:data:`WMT21_LIMIT` segments) except at full depth (``make test-full``), where they run as
written.
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

from . import depth, oracles
from .conftest import REPO_ROOT

README = REPO_ROOT / "README.md"


def DOCUMENTS() -> list[Path]:
    """The README and every page under ``docs/``."""
    return [README, *sorted((REPO_ROOT / "docs").glob("*.md"))]


#: Lines of the README's ``sh`` blocks that are not ``bleu-harness`` commands, and why this
#: file does not run them. Any other such line fails.
NOT_RUN = {
    "make demo": "installs the package into .venv; the demo it runs is `bleu-harness demo`",
    "make test": "runs ruff and this very test suite",
    "make test-full": "runs this very test suite at full depth",
    "make check": "runs ruff, mypy and a part of this very test suite",
    "make bench": "the benchmarks take minutes; benchmarks/README.md records their runs",
    "make tf-env": "builds .venv-tf, which make test does before the suite",
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
#: Commands whose WMT21 rows run on the first :data:`WMT21_LIMIT` segments of each system
#: (``--limit``) except in ``make test-full``: every path of the full run (the real libraries,
#: MQM, significance, the HTML page) in a tenth of its time.
LIMITED = ("compare", "report")
WMT21_LIMIT = 50
#: Words in a command that need the real data folder.
REAL_DATA = ("--wmt21", "--coco", "--wmt19", "--human", "human")
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
    seen: set[tuple[str, str]] = set()
    for doc in DOCUMENTS():
        where = "" if doc == README else f"{doc.relative_to(REPO_ROOT)}: "
        for lang, body in _blocks(doc.read_text(encoding="utf-8")):
            if lang == "python" and ("python", body) not in seen:
                seen.add(("python", body))
                rows.append(pytest.param("python", body, id=f"{where}python-block-{len(rows)}"))
            if lang != "sh":
                continue  # output and prose blocks (```text) hold no commands
            for line in body.splitlines():
                code = line.split("  #", 1)[0].split(" # ", 1)[0].strip()
                if not code:
                    continue
                for part in (p.strip() for p in code.split(";")):
                    for cmd in _expand_optional(part):
                        if ("sh", cmd) in seen:  # the same command in two pages runs once
                            continue
                        seen.add(("sh", cmd))
                        # beside the pitfall tests: the catalogue runs once, no worker waits
                        marks = (
                            [pytest.mark.xdist_group("test_pitfalls")]
                            if _reads_catalogue(shlex.split(cmd)[1:])
                            else []
                        )
                        rows.append(pytest.param("sh", cmd, id=f"{where}{cmd}", marks=marks))
    return rows


def _reads_catalogue(argv: list[str]) -> bool:
    """``bleu-harness pitfalls`` of the whole catalogue: the row reads the catalogue the pitfall
    tests ran (``pitfall_results``) instead of running it again."""
    return argv[:1] == ["pitfalls"] and "--name" not in argv


def _first_command() -> str:
    rows = [r.values[1] for r in readme_rows() if r.values[0] == "sh"]
    return next((cmd for cmd in rows if cmd not in NOT_RUN), "")


#: The README row that runs through the installed ``bleu-harness`` script, as a user types it.
CONSOLE_SCRIPT_ROW = _first_command()


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
    return words[1:]


def _run_in_process(argv: list[str], workdir: Path, env: dict[str, str], capfd, monkeypatch):  # type: ignore[no-untyped-def]
    """``bleu-harness ARGV`` through :func:`harness.cli.main` in this process (the console
    script's entry point, without paying a new interpreter's imports): ``(code, stdout,
    stderr)``. ``BLEU_HARNESS_DEBUG=1`` makes an unexpected exception print its traceback."""
    from harness.cli import main

    monkeypatch.chdir(workdir)
    # ./mymodule.py is this folder's: not a module of that name another test imported
    monkeypatch.delitem(sys.modules, "mymodule", raising=False)
    for key, value in env.items():
        if os.environ.get(key) != value:
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("BLEU_HARNESS_DEBUG", "1")
    capfd.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own exits (--help, usage errors)
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capfd.readouterr()
    return code, out, err


def _run_python_block(body: str, workdir: Path, capfd, monkeypatch) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """A README ``python`` block run as a script in this process, in the inputs' folder."""
    monkeypatch.chdir(workdir)
    capfd.readouterr()
    exec(compile(body, "<README python block>", "exec"), {"__name__": "__main__"})
    out, err = capfd.readouterr()
    return 0, out, err


@pytest.mark.parametrize(("lang", "cmd"), readme_rows())
def test_readme_command_runs(  # type: ignore[no-untyped-def]
    lang: str, cmd: str, workdir: Path, env: dict[str, str], capfd, monkeypatch, request
) -> None:
    if lang == "python":
        code, out, err = _run_python_block(cmd, workdir, capfd, monkeypatch)
    else:
        _need_data(cmd)
        argv = _argv(cmd, workdir)
        if argv[0] in LIMITED and "--wmt21" in argv and not depth.full():
            argv += ["--limit", str(WMT21_LIMIT)]
        if _reads_catalogue(argv):  # the row checks the command, not the catalogue again
            results = request.getfixturevalue("pitfall_results")
            monkeypatch.setattr("harness.cli.pitfalls.run_pitfalls", lambda *a, **k: results)
        if cmd == CONSOLE_SCRIPT_ROW:  # one row through the real installed console script
            proc = subprocess.run(
                _console_script() + argv,
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=600,
            )
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        else:
            code, out, err = _run_in_process(argv, workdir, env, capfd, monkeypatch)
    where = f"{cmd!r} in {workdir}\nstdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}"
    assert "Traceback" not in err + out, where
    assert code == 0, where
    if lang == "sh":
        assert out.strip(), f"no output: {where}"


@pytest.mark.parametrize("doc", DOCUMENTS(), ids=lambda d: d.name)
def test_every_block_is_understood(doc: Path) -> None:
    """Code blocks in other languages would hold commands no row runs; fail on them."""
    langs = {lang for lang, _ in _blocks(doc.read_text(encoding="utf-8"))}
    assert langs <= {"sh", "python", "text"}, f"{doc}: unknown code block languages: {langs}"


def test_the_documents_hold_the_commands() -> None:
    rows = readme_rows()
    assert len(rows) >= 18, [r.id for r in rows]  # the README's command list as of issue 10
