"""A non-editable install is complete: the wheel ships the fixtures and the pitfall catalogue,
and the console script runs them from a folder that is not a checkout (issue 11)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.pitfalls import discover

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built as a wheel from a copy of the tree and installed into a bare folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    shutil.copytree(
        REPO / "harness", src / "harness", ignore=shutil.ignore_patterns("__pycache__", "*.so")
    )
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), str(src)]
    subprocess.run(build, check=True, capture_output=True)
    (wheel,) = (tmp / "dist").glob("bleu_harness-*.whl")
    site = tmp / "site"
    install = [*pip, "install", "--no-deps", "--target", str(site), str(wheel)]
    subprocess.run(install, check=True, capture_output=True)
    return site


def _run(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BLEU_HARNESS_EXPERIMENTS"}
    env["PYTHONPATH"] = str(site)
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_installed_package_is_the_wheel_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    code = (
        "import harness, harness.pitfalls as p; print(harness.__file__); print(len(p.discover()))"
    )
    out = _run(installed, sys.executable, "-c", code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, count = out.stdout.split()
    assert Path(where).is_relative_to(installed)
    assert int(count) == len(discover())  # every experiment of the checkout is in the wheel


def test_console_script_runs_pitfalls_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    script = installed / "bin" / "bleu-harness"
    out = _run(
        installed,
        sys.executable,
        str(script),
        "pitfalls",
        "--name",
        "silence",
        "--json",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    (result,) = json.loads(out.stdout)
    assert result["name"] == "silence" and result["verdict"] != "error"


def test_wheel_builds_the_compiled_kernels(installed: Path, tmp_path: Path) -> None:
    """setup.py compiles harness/bleu/_native.c into the wheel (the checkout's own build is
    left out of the copy), and the installed package counts with it."""
    code = "from harness.bleu import native; print(native.status())"
    out = _run(installed, sys.executable, "-c", code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "native"
    assert list((installed / "harness" / "bleu").glob("_native*.so"))


def test_console_script_reads_packaged_fixtures(installed: Path, tmp_path: Path) -> None:
    script = installed / "bin" / "bleu-harness"
    out = _run(installed, sys.executable, str(script), "fixtures", "list", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "google_nasa_opportunity" in out.stdout
