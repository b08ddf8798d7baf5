"""Where the compiled kernels come from, and what a user is told when they are missing.

* ``setup.py``: a compile that fails (here: ``CC=false``) still installs, and prints a
  warning on stderr that says what failed, what follows (the numpy path counts, slower) and
  how to fix it.
* Installers hide a successful build's output (``pip`` and ``uv pip install`` show it only
  with ``-v``), so the package itself warns, once per process, when it first counts without
  the kernels (:class:`harness.bleu.native.KernelsMissing`), and the command line prints that
  warning as its first line.
* ``BLEU_HARNESS_NATIVE_PATH`` loads a given build instead of the installed one (what
  ``make sanitize`` runs the tests with); a path that does not load is an error, never a
  silent fallback to the numpy path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from harness.bleu import native

REPO = Path(__file__).resolve().parent.parent


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``code`` run by this Python, in this environment less the kernel switches, plus ``env``."""
    base = {k: v for k, v in os.environ.items() if k not in (native.ENV, native.PATH_ENV)}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**base, **env},
        timeout=300,
    )


def test_a_failed_compile_installs_and_says_why_and_how_to_fix(tmp_path: Path) -> None:
    for name in ("setup.py", "pyproject.toml", "README.md", "harness/bleu/_native.c"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    build = [sys.executable, "setup.py", "build_ext", "--build-lib", "lib", "--build-temp", "tmp"]
    env = {k: v for k, v in os.environ.items() if k not in ("CFLAGS", "LDFLAGS")}
    out = subprocess.run(
        build, cwd=tmp_path, capture_output=True, text=True, env={**env, "CC": "false"}, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert not list((tmp_path / "lib").rglob("_native*"))
    assert "WARNING: bleu-harness's compiled kernels (harness.bleu._native" in out.stderr
    assert "the numpy path counts the statistics" in out.stderr
    assert "install a C compiler and the Python headers" in out.stderr


def test_missing_kernels_warn_once_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "_module", None)
    monkeypatch.setattr(native, "_missing", "the extension harness.bleu._native is not built")
    monkeypatch.setattr(native, "_warned", False)
    monkeypatch.delenv(native.ENV, raising=False)
    with pytest.warns(native.KernelsMissing, match="install a C compiler"):
        assert native.module() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native.module() is None  # once per process
    assert native.status().startswith("numpy (the extension harness.bleu._native is not built")
    monkeypatch.setattr(native, "_warned", False)
    monkeypatch.setenv(native.ENV, "0")  # switched off on purpose: nothing to warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert native.module() is None


def test_the_command_line_warns_first_when_the_kernels_are_missing(tmp_path: Path) -> None:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\nhello world\n")
    ref.write_text("the cat sat on a mat\nhello there world\n")
    code = (
        "import sys\n"
        "sys.modules['harness.bleu._native'] = None  # as if the compile had failed\n"
        "from harness.cli import main\n"
        f"sys.exit(main(['score', {str(hyp)!r}, {str(ref)!r}]))\n"
    )
    out = _python(code, {})
    assert out.returncode == 0, out.stderr
    first = out.stderr.splitlines()[0]
    assert first.startswith(
        "bleu-harness: warning: the extension harness.bleu._native is not built"
    )
    assert "numpy path" in first and "install a C compiler" in first
    assert out.stdout.startswith("BLEU = ")


def test_the_path_variable_loads_that_build(tmp_path: Path) -> None:
    kernels = native.module()
    if kernels is None:
        pytest.skip(f"compiled kernels not in use: {native.status()}")
    copy = tmp_path / Path(kernels.__file__).name
    shutil.copy(kernels.__file__, copy)
    code = (
        "import sys\nfrom harness.bleu import native\n"
        "print(native.module().__file__, sys.modules['harness.bleu._native'].__file__)\n"
        "print(native.status())"
    )
    out = _python(code, {native.PATH_ENV: str(copy)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(copy), str(copy), "native"]
    missing = _python(code, {native.PATH_ENV: str(tmp_path / "nothing.so")})
    assert missing.returncode != 0
    assert "ImportError" in missing.stderr and "nothing.so" in missing.stderr
