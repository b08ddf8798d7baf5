"""The research notebooks (``notebooks/*.py``, Jupytext percent format) run and follow the rules.

Each notebook is executed as a plain script in a subprocess, in smoke mode (``SMOKE=1``),
offline (``HF_HUB_OFFLINE=1``), with the Agg backend, from a temporary working directory and
with ``TMPDIR`` pointing there, so nothing is written into the repository. Every notebook ends
with assertions on the pitfalls it shows, so exit code 0 means they held. The elapsed time of
each run is printed (run pytest with ``-s`` to see it); it is not asserted.

``BLEU_HARNESS_DATA`` is passed through: with it the data notebooks use WMT21, without it they
fall back to shipped fixtures (tested separately below).

The structure checks follow DESIGN.md, "Notebooks": a parameters cell first (``SMOKE`` from the
environment, ``SEED``; ``DATA`` for the data notebooks), public imports only, and
``matplotlib.use("Agg")`` before pyplot.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.py"))
EXPECTED = {
    "01_reference_layout.py",
    "02_smoothing_sentence_bleu.py",
    "03_cjk_tokenization.py",
    "04_library_disagreement_wmt21.py",
    "05_human_mqm_significance.py",
    "06_framework_bleu.py",
    "07_does_the_implementation_change_the_science.py",
}
DATA_NOTEBOOKS = (
    "04_library_disagreement_wmt21.py",
    "05_human_mqm_significance.py",
    "06_framework_bleu.py",
    "07_does_the_implementation_change_the_science.py",
)
SMOKE_LINE = 'SMOKE = os.environ.get("SMOKE", "0") == "1"'
DATA_LINE = 'DATA = os.environ.get("BLEU_HARNESS_DATA")'
CELL = re.compile(r"^# %%(.*)$")


def _ids(path: Path) -> str:
    return path.stem


def _run(
    path: Path, tmp_path: Path, **env_changes: str | None
) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ)
    env.update(SMOKE="1", MPLBACKEND="Agg", HF_HUB_OFFLINE="1", TMPDIR=str(tmp_path))
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    before = sorted(p.name for p in NOTEBOOKS_DIR.iterdir())
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard, not a speed requirement
        check=False,
    )
    elapsed = time.perf_counter() - start
    assert sorted(p.name for p in NOTEBOOKS_DIR.iterdir()) == before, (
        "notebook wrote into notebooks/"
    )
    return proc, elapsed


def _failure(path: Path, proc: subprocess.CompletedProcess) -> str:
    return (
        f"{path.name} exited with {proc.returncode}\n"
        f"--- stderr (last 6000 chars) ---\n{proc.stderr[-6000:]}\n"
        f"--- stdout (last 2000 chars) ---\n{proc.stdout[-2000:]}"
    )


def _cells(text: str) -> list[tuple[str, str]]:
    """(marker options, source) of each ``# %%`` cell, preceded by the text before the first
    marker as a pseudo-cell with options ``"<preamble>"``."""
    cells: list[tuple[str, list[str]]] = [("<preamble>", [])]
    for line in text.splitlines():
        m = CELL.match(line)
        if m:
            cells.append((m.group(1).strip(), []))
        else:
            cells[-1][1].append(line)
    return [(opts, "\n".join(lines)) for opts, lines in cells]


def _preamble_is_header(source: str) -> bool:
    """Only blank lines or a Jupytext YAML header (``# ---`` … ``# ---``) before cell 1."""
    lines = [ln for ln in source.splitlines() if ln.strip()]
    if not lines:
        return True
    return lines[0] == "# ---" and lines[-1] == "# ---" and all(ln.startswith("#") for ln in lines)


# ------------------------------------------------------------------------------ structure
def test_the_notebooks_are_there():
    assert {p.name for p in NOTEBOOKS} == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_starts_with_the_parameters_cell(path):
    cells = _cells(path.read_text(encoding="utf-8"))
    assert _preamble_is_header(cells[0][1]), "code before the first cell"
    options, source = cells[1]
    assert not options.startswith("[markdown]"), "the first cell must be code"
    assert "parameters" in options, 'tag the first cell: # %% tags=["parameters"]'
    assert SMOKE_LINE in source
    assert re.search(r"^SEED = \d+$", source, re.MULTILINE)
    if path.name in DATA_NOTEBOOKS:
        assert DATA_LINE in source
    # Only parameters: no harness or plotting imports yet.
    assert "harness" not in source and "matplotlib" not in source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_uses_public_harness_names_only(path):
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    private = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "harness":
            parts = node.module.split(".") + [a.name for a in node.names]
            private += [p for p in parts if p.startswith("_")]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "harness":
                    private += [p for p in alias.name.split(".") if p.startswith("_")]
    private += re.findall(r"\bharness(?:\.\w+)*\.(_\w+)", text)
    assert not private, f"private harness names: {private}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_selects_agg_before_pyplot(path):
    text = path.read_text(encoding="utf-8")
    if "matplotlib.pyplot" not in text:
        return
    assert 'matplotlib.use("Agg")' in text
    assert text.index('matplotlib.use("Agg")') < text.index("import matplotlib.pyplot")
    assert ".savefig(" not in text or "FIG_DIR" in text  # figures go to a temporary folder


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_reads_as_a_percent_notebook(path):
    jupytext = pytest.importorskip("jupytext")
    nb = jupytext.read(path)
    first = nb.cells[0]
    assert first.cell_type == "code" and "parameters" in first.metadata.get("tags", [])
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")


# ------------------------------------------------------------------------------ execution
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids)
def test_notebook_runs_in_smoke_mode(path, tmp_path):
    proc, elapsed = _run(path, tmp_path)
    data = os.environ.get("BLEU_HARNESS_DATA") or "unset"
    print(f"\n[notebook] {path.name}: {elapsed:.1f} s (SMOKE=1, BLEU_HARNESS_DATA={data})")
    assert proc.returncode == 0, _failure(path, proc)
    assert "all checks passed" in proc.stdout


@pytest.mark.parametrize("name", DATA_NOTEBOOKS)
def test_data_notebook_falls_back_to_fixtures(name, tmp_path):
    path = NOTEBOOKS_DIR / name
    proc, elapsed = _run(path, tmp_path, BLEU_HARNESS_DATA=None)
    print(f"\n[notebook] {name}: {elapsed:.1f} s (SMOKE=1, no data: fixture fallback)")
    assert proc.returncode == 0, _failure(path, proc)
    assert "falling back to the shipped" in proc.stdout
    assert "all checks passed" in proc.stdout
