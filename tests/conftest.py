"""Shared pytest fixtures.

``data_dir``: the real evaluation data (``shared/data``) named by ``BLEU_HARNESS_DATA``. Tests
that use it are marked ``@pytest.mark.realdata``. Without the data they are skipped — except on
CI (``CI=true``), where missing data is a failure, so that the real-data tests cannot silently
stop running.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
