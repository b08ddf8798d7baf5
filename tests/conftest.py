"""Shared pytest fixtures.

``data_dir``: the real evaluation data (``shared/data``) named by ``BLEU_HARNESS_DATA``. Tests
that use it are marked ``@pytest.mark.realdata``. Without the data they are skipped — except on
CI (``CI=true``), where missing data is a failure, so that the real-data tests cannot silently
stop running.

``moses_scripts`` / ``mteval_script``: the original Moses Perl scripts in the shared
reference-impls folder (``../shared/reference-impls`` or ``$BLEU_HARNESS_REFERENCE_IMPLS``), see
:mod:`tests.oracles`. Skipped when the scripts, ``perl`` or (for mteval) XML::Twig are missing —
except on CI (``CI=true``), where that is a failure.

``evaluate_module``: the folder of Hugging Face's ``bleu`` module (what ``evaluate.load("bleu")``
runs), named by ``BLEU_HARNESS_EVALUATE_MODULE`` or else ``../shared/reference-impls/hf-evaluate/
bleu`` beside the repository; skipped when absent, a failure when ``CI=true``.

Every test runs with ``HF_EVALUATE_OFFLINE=1`` and private ``HF_MODULES_CACHE`` /
``HF_METRICS_CACHE`` folders (each only if the user has not set it), so that loading evaluate
modules never reaches the network nor touches the user's Hugging Face cache.

Every ``report.json`` written during the run is validated against its JSON Schema
(``BLEU_HARNESS_VALIDATE_REPORTS=1``): a report that does not match fails its test.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from filelock import FileLock

from . import oracles

#: Helper modules of the suite: imported by the tests, never collected themselves (not even for
#: doctests; ``keras_worker.py`` runs only inside the TensorFlow environment).
collect_ignore = ["keras_worker.py", "helm_oracle.py", "published.py", "oracles.py",
                  "strategies.py", "depth.py"]  # fmt: skip

ENV_VAR = "BLEU_HARNESS_DATA"
EVALUATE_ENV_VAR = "BLEU_HARNESS_EVALUATE_MODULE"
REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_EVALUATE = REPO_ROOT.parent / "shared" / "reference-impls" / "hf-evaluate" / "bleu"


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


def _evaluate_module_dir() -> tuple[Path | None, str]:
    """The ``bleu`` module folder (``$BLEU_HARNESS_EVALUATE_MODULE``, else the shared copy) or
    ``None`` and why not."""
    value = os.environ.get(EVALUATE_ENV_VAR, "").strip()
    folder = Path(value).expanduser() if value else SHARED_EVALUATE
    where = f"{EVALUATE_ENV_VAR}={value}" if value else f"{EVALUATE_ENV_VAR} unset and {folder}"
    if folder.is_file() and folder.name == "bleu.py":
        folder = folder.parent
    if not (folder / "bleu.py").is_file():
        return None, f"{where}: no bleu.py there"
    return folder.resolve(), ""


@pytest.fixture(scope="session")
def evaluate_module() -> Path:
    """The real Hub ``bleu`` module folder; skips (or fails when ``CI=true``) if absent."""
    folder, reason = _evaluate_module_dir()
    if folder is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the evaluate bleu module is missing: {reason}", pytrace=False)
        pytest.skip(
            f"evaluate's bleu module unavailable: {reason} "
            f"(set {EVALUATE_ENV_VAR}=/path/to/shared/reference-impls/hf-evaluate/bleu)"
        )
    return folder


@pytest.fixture(autouse=True, scope="session")
def _isolated_hf_evaluate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``HF_EVALUATE_OFFLINE=1`` and private evaluate module/metric caches for the session,
    each only where the user has not set it. evaluate reads these when it is imported; if it
    already is, its ``config`` is patched the same way."""
    wanted = {
        "HF_EVALUATE_OFFLINE": "1",
        "HF_MODULES_CACHE": str(tmp_path_factory.mktemp("hf-modules")),
        "HF_METRICS_CACHE": str(tmp_path_factory.mktemp("hf-metrics")),
    }
    added = {k: v for k, v in wanted.items() if k not in os.environ}
    os.environ.update(added)
    patched: dict[str, object] = {}
    cfg = sys.modules.get("evaluate.config")
    if cfg is not None:
        values = {
            "HF_EVALUATE_OFFLINE": True,
            "HF_MODULES_CACHE": Path(added.get("HF_MODULES_CACHE", "")),
            "HF_METRICS_CACHE": Path(added.get("HF_METRICS_CACHE", "")),
        }
        for key in added:
            patched[key] = getattr(cfg, key)
            setattr(cfg, key, values[key])
    yield
    for key in added:
        os.environ.pop(key, None)
    for key, old in patched.items():
        setattr(cfg, key, old)


@pytest.fixture(scope="session")
def nltk391(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """nltk 3.9.1's ``word_tokenize`` (lighteval's pin), in a process of its own
    (:class:`tests.nltk391_oracle.Nltk391`)."""
    from .nltk391_oracle import Nltk391

    oracle = Nltk391(tmp_path_factory.mktemp("nltk391_data"))
    yield oracle
    oracle.close()


@pytest.fixture(autouse=True, scope="session")
def _reports_validated() -> Iterator[None]:
    """Every ``report.json`` the suite writes (here or in a subprocess) is checked against its
    generated JSON Schema by the writer, which raises on a mismatch
    (:data:`harness.report.schema.VALIDATE_ENV`)."""
    from harness.report.schema import VALIDATE_ENV

    before = os.environ.get(VALIDATE_ENV)
    os.environ[VALIDATE_ENV] = "1"
    yield
    if before is None:
        os.environ.pop(VALIDATE_ENV, None)
    else:
        os.environ[VALIDATE_ENV] = before


@pytest.fixture(autouse=True)
def _sigint_restored() -> Iterator[None]:
    """A test that runs ``main`` into its Ctrl-C path leaves SIGINT ignored (``main`` ignores a
    second Ctrl-C while it exits); restore the handler so later subprocesses do not inherit
    that."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    yield
    if signal.getsignal(signal.SIGINT) is not before and before is not None:
        signal.signal(signal.SIGINT, before)


@pytest.fixture(autouse=True)
def _cold_api_statistics() -> Iterator[None]:
    """Every test starts with the public functions' statistics cache empty, so a test that
    changes how statistics are counted (a monkeypatched counter) sees its own counting."""
    import harness

    harness.statistics_cache().clear()
    yield


# ---------------------------------------------------------------- markers and worker groups
#: Fixtures that run a reference implementation outside the package (the Moses/NIST Perl
#: scripts, the Hub module): a test using one is an ``oracle`` test.
ORACLE_FIXTURES = frozenset({"moses_scripts", "mteval_script", "evaluate_module"})
#: Modules whose tests run reference implementations (the real libraries, published framework
#: files, TensorFlow's keras-hub) against the engine: ``oracle`` tests all.
ORACLE_MODULES = frozenset(
    {
        "test_releases",
        "test_identify_release",
        "test_oracle_moses",
        "test_oracle_evaluate",
        "test_profile_codesum",
        "test_profile_evaluate",
        "test_profile_frameworks",
        "test_profile_ignite",
        "test_profile_keras",
        "test_profile_llm_eval",
        "test_profile_nltk",
        "test_profile_nltk_releases",
        "test_profile_peers",
        "test_profile_sacrebleu",
        "test_profile_sacrebleu_releases",
        "test_profile_scripts",
        "test_peer_suites",
        "test_adapters_lmeval",
        "test_wmt21_official",
    }
)
#: Modules that run whole programs (the console script, notebooks, a wheel build) or whole
#: diagnoses (validate, identify, forensics, the pitfall catalogue) many times: ``slow``.
SLOW_MODULES = frozenset(
    {
        "test_readme_commands",
        "test_notebooks",
        "test_packaging",
        "test_validate",
        "test_battery_validate",
        "test_identify",
        "test_forensics",
        "test_pitfalls",
    }
)
#: Modules whose tests are spread over both workers one by one; every other module's tests stay
#: together on one worker, so that its module-scoped fixtures (a wheel build, a TensorFlow
#: worker, an oracle's compiled library) are built once.
SPREAD_MODULES = frozenset({"test_readme_commands"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``oracle``/``slow``/``browser``/``realdata`` tests (``make check`` leaves them out)
    and group each module's tests on one xdist worker unless it is in :data:`SPREAD_MODULES`."""
    for item in items:
        module = item.path.stem
        fixtures = set(getattr(item, "fixturenames", ()))
        if module in ORACLE_MODULES or fixtures & ORACLE_FIXTURES:
            item.add_marker(pytest.mark.oracle)
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if module == "test_report_browser":
            item.add_marker(pytest.mark.browser)
        if "data_dir" in fixtures:
            item.add_marker(pytest.mark.realdata)
        if module not in SPREAD_MODULES and item.path.suffix == ".py":
            item.add_marker(pytest.mark.xdist_group(module))
    # the longest first, so that no worker is left with one of them while the other idles
    items.sort(key=_heavy_first)


#: Modules with the longest tests or groups, handed out to the workers first, in this order.
HEAVY_FIRST = (
    "test_readme_commands",
    "test_pitfalls",
    "test_validate",
    "test_forensics",
    "test_profile_scripts",
    "test_notebooks",
    "test_wmt21_official",
    "test_identify",
)


def _heavy_first(item: pytest.Item) -> tuple[int, int]:
    """Sort key: the modules of :data:`HEAVY_FIRST` in its order, the documents' rows on real
    data (``--wmt21``, ``--wmt19``) before their other rows, then the rest as collected."""
    module = item.path.stem
    rank = HEAVY_FIRST.index(module) if module in HEAVY_FIRST else len(HEAVY_FIRST)
    real = "--wmt21" in item.name or "--wmt19" in item.name
    return rank, 0 if real else 1


def pytest_collection_finish(session: pytest.Session) -> None:
    """Refuse to run when ``--dist loadgroup`` would not group: xdist marks a grouped test by
    rewriting its node id, which some pytest releases ignore (pytest-xdist issue 1386); the
    tests would then be spread one by one and module fixtures built on both workers."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    for item in session.items:
        group = item.get_closest_marker("xdist_group")
        if group is not None and not item.nodeid.endswith(f"@{group.args[0]}"):
            message = (
                f"--dist loadgroup does not group {item.nodeid} under pytest {pytest.__version__}"
                " with this pytest-xdist (pytest-xdist issue 1386): install the dev extra's"
                " pinned versions (make test does)"
            )
            print(f"ERROR: {message}", file=sys.stderr)  # a worker's exception is not shown
            raise pytest.UsageError(message)


# ---------------------------------------------------------------- results shared by the workers
T = TypeVar("T")


def once_per_run(
    tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], T]
) -> T:
    """``compute()`` once per test run: under xdist the first worker to ask computes it and
    pickles it into the run's shared temporary folder (``pytest-N``, the parent of every
    worker's own), the others wait on its lock and read it; without xdist, simply computed."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return compute()
    path = tmp_path_factory.getbasetemp().parent / f"once-{name}.pickle"
    with FileLock(f"{path}.lock"):
        if path.is_file():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = compute()
        path.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def pitfall_results(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The whole pitfall catalogue (``run_pitfalls()``), run once per test run: the pitfall
    tests and the ``bleu-harness pitfalls`` rows of the documents read the same results."""
    from harness.pitfalls import run_pitfalls

    return once_per_run(tmp_path_factory, "pitfalls", run_pitfalls)
