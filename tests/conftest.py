"""Shared pytest fixtures.

``data_dir``: the real evaluation data (``shared/data``) named by ``BLEU_HARNESS_DATA``. Tests
that use it are marked ``@pytest.mark.realdata``. Without the data they are skipped — except on
CI (``CI=true``), where missing data is a failure, so that the real-data tests cannot silently
stop running.

``moses_scripts`` / ``mteval_script``: the original Moses Perl scripts in the shared
reference-impls folder (``../shared/reference-impls`` or ``$BLEU_HARNESS_REFERENCE_IMPLS``), see
:mod:`tests.oracles`. Skipped when the scripts, ``perl`` or (for mteval) XML::Twig are missing —
except on CI (``CI=true``), where that is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from . import oracles

ENV_VAR = "BLEU_HARNESS_DATA"


def _missing_data_reason() -> str | None:
    """Why the real data cannot be used, or ``None`` if ``$BLEU_HARNESS_DATA`` is a folder."""
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return f"{ENV_VAR} is not set"
    if not Path(value).is_dir():
        return f"{ENV_VAR}={value} is not an existing folder"
    return None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared data folder; skips (or fails when ``CI=true``) if it is not available."""
    reason = _missing_data_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(
                f"CI=true but {ENV_VAR} (the shared data folder) is missing: {reason}",
                pytrace=False,
            )
        pytest.skip(f"real data unavailable: {reason} (set {ENV_VAR}=/path/to/shared/data)")
    return Path(os.environ[ENV_VAR].strip())


def _require(reason: str | None, what: str) -> None:
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {what} cannot run: {reason}", pytrace=False)
    pytest.skip(f"{what} unavailable: {reason}")


@pytest.fixture(scope="session")
def moses_scripts() -> Path:
    """The folder holding ``multi-bleu.perl`` and ``multi-bleu-detok.perl`` (with ``perl``);
    skips (or fails when ``CI=true``) if they cannot be run."""
    _require(oracles.missing_reason(twig=False), "the Moses multi-bleu scripts")
    return oracles.moses_dir()


@pytest.fixture(scope="session")
def mteval_script() -> Path:
    """``mteval-v13a.pl``, runnable (``perl`` and XML::Twig present); skips (or fails when
    ``CI=true``) otherwise."""
    _require(oracles.missing_reason(twig=True), "mteval-v13a.pl")
    return oracles.script_path(oracles.MTEVAL)


@pytest.fixture(autouse=True, scope="session")
def _isolated_statistics_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CLI runs in tests write their on-disk statistics cache into a temporary folder, never
    into the user's ``~/.cache``."""
    folder = tmp_path_factory.mktemp("stats-cache")
    old = os.environ.get("BLEU_HARNESS_CACHE_DIR")
    os.environ["BLEU_HARNESS_CACHE_DIR"] = str(folder)
    yield
    if old is None:
        os.environ.pop("BLEU_HARNESS_CACHE_DIR", None)
    else:
        os.environ["BLEU_HARNESS_CACHE_DIR"] = old
