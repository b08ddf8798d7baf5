"""Old releases of a library, each run as published in a process of its own.

A paper of 2019 ran the sacrebleu or nltk of 2019. The harness installs one release of each; the
others are read from a folder of releases as the package index publishes them
(:data:`RELEASES_ENV`, default the wheel cache the test suite fills when it proves the
versioned profiles): a wheel unpacked beside itself, or, for a release published only as a
source archive, the module that is run taken out of it (sacrebleu 1.2–1.3 is one module;
nltk ≤ 3.5, whose package does not import on this Python, has its ``bleu_score.py`` run from
its file with the installed nltk's other modules). Nothing is downloaded here.

:class:`ReleaseProcess` starts a Python process whose ``sys.path`` begins with the release's
folder (the installed release: none), checks that it imported that release from there, and
answers batches of calls (:data:`CALLS`), one JSON line each way: each answer is the number the
call returned, or the exception it raised (type and message).
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.bleu.profiles import release_key
from harness.errors import ConfigError, HarnessError
from harness.scorers.evaluate_adapter import ENV_MODULE as EVALUATE_MODULE_ENV
from harness.scorers.json_lines import JsonLineProcess
from harness.scorers.peer_releases import (
    DATASETS_RELEASE,
    PEER_DRIVER,
    PEERS,
    SETUP_ENV,
    TREE_ENV,
)

__all__ = [
    "CALLS",
    "RELEASES_ENV",
    "Answer",
    "Release",
    "ReleaseProcess",
    "cached_releases",
    "installed_release",
    "module_tree",
    "peer_releases",
    "releases_folder",
    "unpacked_wheel",
]

#: The environment variable naming the folder of published releases.
RELEASES_ENV = "BLEU_HARNESS_RELEASES"

#: One call's answer: ``{"score": float}`` or ``{"scores": [float, ...]}`` (one per segment),
#: or ``{"error": type name, "message": str}``.
Answer = dict[str, Any]

#: The calls each library's releases are compared on, by name: what the call is, in the
#: library's own words (every argument at the release's default unless named).
CALLS: Mapping[str, Mapping[str, str]] = {
    "sacrebleu": {
        "corpus_bleu": "sacrebleu.corpus_bleu(hypotheses, reference_streams)",
        "sentence_bleu": "sacrebleu.sentence_bleu(hypothesis, references), each segment",
    },
    "nltk": {
        **{
            f"corpus_bleu method{k}": "nltk.translate.bleu_score.corpus_bleu(references, "
            f"hypotheses, smoothing_function=SmoothingFunction().method{k}) on str.split tokens"
            for k in range(8)
        },
        **{
            f"sentence_bleu method{k}": "nltk.translate.bleu_score.sentence_bleu(references, "
            f"hypothesis, smoothing_function=SmoothingFunction().method{k}) on str.split "
            "tokens, each segment"
            for k in range(8)
        },
    },
    **{name: peer.calls for name, peer in PEERS.items()},
}

_COMMON = """
import json, logging, sys, warnings
logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

def guarded(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)[:300]}
"""

_SACREBLEU = """
import inspect
import sacrebleu
version = getattr(sacrebleu, "__version__", None) or getattr(sacrebleu, "VERSION", None)
one_reference = list(inspect.signature(sacrebleu.sentence_bleu).parameters)[1] == "reference"
print(json.dumps({"version": version, "file": sacrebleu.__file__,
                  "first_reference_only": ["sentence_bleu"] if one_reference else []}), flush=True)

def corpus(hyps, refs):
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    return {"score": sacrebleu.corpus_bleu(hyps, streams).score}

def sentence(hyps, refs):
    out = []
    for h, r in zip(hyps, refs):
        got = sacrebleu.sentence_bleu(h, r[0] if one_reference else list(r))
        out.append(got if isinstance(got, float) else got.score)
    return {"scores": out}

CALLS = {"corpus_bleu": corpus, "sentence_bleu": sentence}
"""

_NLTK = """
import importlib.util, os
module = os.environ.get("BLEU_HARNESS_RELEASE_MODULE")
if module:
    spec = importlib.util.spec_from_file_location("nltk_release_bleu_score", module)
    bs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bs)
    hello = {"version": os.environ["BLEU_HARNESS_RELEASE_VERSION"], "file": bs.__file__}
else:
    import nltk
    from nltk.translate import bleu_score as bs
    hello = {"version": nltk.__version__, "file": bs.__file__}
print(json.dumps(hello), flush=True)
SmoothingFunction, corpus_bleu, sentence_bleu = bs.SmoothingFunction, bs.corpus_bleu, bs.sentence_bleu
smooth = SmoothingFunction()

def corpus(k):
    def call(hyps, refs):
        return {"score": 100 * corpus_bleu(
            [[x.split() for x in r] for r in refs], [h.split() for h in hyps],
            smoothing_function=getattr(smooth, f"method{k}"))}
    return call

def sentence(k):
    def call(hyps, refs):
        return {"scores": [100 * sentence_bleu(
            [x.split() for x in r], h.split(), smoothing_function=getattr(smooth, f"method{k}"))
            for h, r in zip(hyps, refs)]}
    return call

CALLS = {**{f"corpus_bleu method{k}": corpus(k) for k in range(8)},
         **{f"sentence_bleu method{k}": sentence(k) for k in range(8)}}
"""

_SERVE = """
for line in sys.stdin:
    batch = json.loads(line)
    print(json.dumps([guarded(CALLS[name], h, r) for name, h, r in batch]), flush=True)
"""

_DRIVERS = {"sacrebleu": _SACREBLEU, "nltk": _NLTK}
#: What a driver is told of a release whose one module is run from its file.
_MODULE_ENV, _VERSION_ENV = "BLEU_HARNESS_RELEASE_MODULE", "BLEU_HARNESS_RELEASE_VERSION"

#: For the releases published only as a source archive, the one module that is run: its path
#: inside the archive's top folder, and whether it is the whole package (sacrebleu 1.2–1.3,
#: imported as the package) or one module of it, run from its file with the installed
#: release's other modules (nltk ≤ 3.5's ``bleu_score.py``, whose package does not import on
#: this Python; the module itself imports only ``nltk.util.ngrams``).
_SDIST_MODULE: Mapping[str, tuple[str, bool]] = {
    "sacrebleu": ("sacrebleu.py", True),
    "nltk": ("nltk/translate/bleu_score.py", False),
}


@dataclass(frozen=True)
class Release:
    """One release of ``distribution``: ``folder`` goes first on ``sys.path`` (``None`` for
    the installed release, which needs none); ``installed`` says it is the harness's own;
    ``module``: see below."""

    distribution: str
    version: str
    folder: Path | None
    installed: bool = False
    #: a release published as a source archive whose package is not run: the file of its one
    #: module that is, with the installed release's other modules
    module: Path | None = None
    #: further folders on ``sys.path`` after ``folder`` (the releases it needs)
    path: tuple[Path, ...] = ()
    #: the folder a setup of :mod:`harness.scorers.peer_releases` reads the release from
    tree: Path | None = None
    #: why the release cannot run here, and how to fill the folder ("": it can)
    missing: str = ""

    @property
    def key(self) -> tuple[int, ...]:
        """The version as numbers, for ordering releases."""
        return release_key(self.version)


def releases_folder() -> Path:
    """The folder of published releases: ``$BLEU_HARNESS_RELEASES``, else the wheel cache the
    test suite fills (``~/.cache/bleu-harness/wheels``)."""
    given = os.environ.get(RELEASES_ENV)
    return Path(given) if given else Path.home() / ".cache" / "bleu-harness" / "wheels"


def installed_release(distribution: str) -> Release:
    """The release installed with the harness (for datasets: the installed evaluate's
    ``bleu`` module, from ``$BLEU_HARNESS_EVALUATE_MODULE``)."""
    installed = PEERS[distribution].installed if distribution in PEERS else distribution
    try:
        version = metadata.version(installed)
    except metadata.PackageNotFoundError:
        raise ConfigError(f"{installed} is not installed") from None
    if distribution in PEERS and not PEERS[distribution].stem:
        module = _evaluate_module()
        if module is None or not (module / "bleu.py").is_file():
            raise ConfigError(
                f"{distribution} is compared with evaluate's bleu module, which is not here: "
                f"{PEERS[distribution].fill}"
            )
        return Release(distribution, f"{installed} {version}", None, installed=True, tree=module)
    return Release(distribution, version, None, installed=True)


def cached_releases(
    distribution: str, folder: Path | None = None
) -> tuple[list[Release], list[str]]:
    """The releases of ``distribution`` in ``folder`` (:func:`releases_folder`) that can run
    here, oldest first, and the versions found there that cannot (a source archive without
    the module that is run). A wheel not yet unpacked is unpacked beside itself; a source
    archive's module (:data:`_SDIST_MODULE`) is taken out of it once. The libraries of
    :data:`~harness.scorers.peer_releases.PEERS` are read as :func:`peer_releases` reads them."""
    if distribution in PEERS:
        return peer_releases(distribution, folder), []
    if distribution not in _DRIVERS:
        raise ConfigError(f"no release driver for {distribution!r}", valid=sorted(_DRIVERS))
    root = folder or releases_folder()
    found: dict[str, Path] = {}
    alone: dict[str, Path] = {}
    skipped: set[str] = set()
    pattern = re.compile(rf"^{re.escape(distribution)}-(\d[\w.]*?)(-py\S*\.whl|\.tar\.gz|\.zip)$")
    for path in sorted(root.glob(f"{distribution}-*")) if root.is_dir() else []:
        m = pattern.match(path.name)
        if not m or not path.is_file():
            continue
        version, kind = m.group(1), m.group(2)
        if kind.endswith(".whl"):
            found[version] = unpacked_wheel(path)
        else:
            member, whole = _SDIST_MODULE[distribution]
            tree = module_tree(path, distribution, version, member)
            if tree is None:
                skipped.add(version)
            elif version not in found:
                found[version] = tree
                if not whole:
                    alone[version] = tree / Path(member).name
    releases = [Release(distribution, v, p, module=alone.get(v)) for v, p in found.items()]
    releases.sort(key=lambda r: r.key)
    return releases, sorted(skipped - set(found), key=release_key)


def peer_releases(name: str, folder: Path | None = None) -> list[Release]:
    """The releases of the library ``name`` of :data:`~harness.scorers.peer_releases.PEERS`
    in ``folder`` (:func:`releases_folder`), oldest first: its wheels, each unpacked beside
    itself, each with the releases it needs (:attr:`PeerLibrary.needs`) after it on
    ``sys.path``, or, when one is not there, marked :attr:`Release.missing`. datasets'
    ``load_metric("bleu")`` is one release (:data:`DATASETS_RELEASE`), run from the module
    folder ``$BLEU_HARNESS_EVALUATE_MODULE`` names, when that folder holds ``nmt_bleu.py``."""
    peer = PEERS[name]
    if not peer.stem:
        module = _evaluate_module()
        if module is None or not (module / "nmt_bleu.py").is_file():
            return []
        return [Release(name, DATASETS_RELEASE, None, tree=module)]
    root = folder or releases_folder()
    pattern = re.compile(rf"^{re.escape(peer.stem)}-(\d[\w.]*?)-py\S*\.whl$")
    out = []
    for path in sorted(root.glob(f"{peer.stem}-*.whl")) if root.is_dir() else []:
        m = pattern.match(path.name)
        if not m or not path.is_file():
            continue
        tree = unpacked_wheel(path)
        extra, missing = [], []
        for stem, version in peer.needs:
            wheels = sorted(root.glob(f"{stem}-{version}-py*.whl"))
            if wheels:
                extra.append(unpacked_wheel(wheels[0]))
            else:
                missing.append(f"{stem} {version}")
        said = f"it needs {', '.join(missing)} in {root}: {peer.fill}" if missing else ""
        out.append(Release(name, m.group(1), tree, path=tuple(extra), tree=tree, missing=said))
    out.sort(key=lambda r: r.key)
    return out


def _evaluate_module() -> Path | None:
    """The folder of evaluate's Hub ``bleu`` module ``$BLEU_HARNESS_EVALUATE_MODULE`` names
    (its ``bleu.py`` named: the folder holding it)."""
    given = os.environ.get(EVALUATE_MODULE_ENV)
    if not given:
        return None
    path = Path(given)
    return path.parent if path.suffix == ".py" else path


def unpacked_wheel(wheel: Path) -> Path:
    """The wheel unpacked once beside itself (a folder of the same name)."""
    tree = wheel.with_name(wheel.name[: -len(".whl")])
    if not tree.is_dir():
        partial = Path(tempfile.mkdtemp(prefix=f".{tree.name}-", dir=wheel.parent))
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(partial)
        try:
            partial.rename(tree)
        except OSError:  # another process unpacked it first
            shutil.rmtree(partial, ignore_errors=True)
    return tree


def module_tree(archive: Path, distribution: str, version: str, member: str) -> Path | None:
    """A folder holding the module ``member`` (a path inside the archive's top folder) of a
    source archive, taken out once beside it under its file name (``None`` when the archive
    holds no such file)."""
    tree = archive.with_name(f"{distribution}-{version}-module")
    name = Path(member).name
    if (tree / name).is_file():
        return tree
    text = _archive_member(archive, member)
    if text is None:
        return None
    partial = Path(tempfile.mkdtemp(prefix=f".{tree.name}-", dir=archive.parent))
    (partial / name).write_bytes(text)
    try:
        partial.rename(tree)
    except OSError:  # another process took it out first
        shutil.rmtree(partial, ignore_errors=True)
    return tree


def _archive_member(archive: Path, member: str) -> bytes | None:
    """The bytes of ``<top folder>/member`` in a ``.tar.gz`` or ``.zip`` source archive."""

    def wanted(name: str) -> bool:
        return name.count("/") == member.count("/") + 1 and name.endswith("/" + member)

    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            hit = next((n for n in zf.namelist() if wanted(n)), None)
            return zf.read(hit) if hit is not None else None
    with tarfile.open(archive) as tf:
        found = next((m for m in tf.getmembers() if wanted(m.name)), None)
        handle = tf.extractfile(found) if found is not None else None
        return handle.read() if handle is not None else None


class ReleaseProcess:
    """A process running ``release``: :meth:`run` answers calls; :meth:`close` ends it (also
    on leaving a ``with`` block). Raises :class:`~harness.errors.HarnessError` when the
    release does not import here, or imports from somewhere else."""

    def __init__(self, release: Release) -> None:
        self.release = release
        env = dict(os.environ)
        first = [release.folder, *release.path] if release.folder is not None else []
        if first:
            env["PYTHONPATH"] = os.pathsep.join(
                [*map(str, first), *filter(None, [env.get("PYTHONPATH")])]
            )
        if release.module is not None:
            env[_MODULE_ENV] = str(release.module)
            env[_VERSION_ENV] = release.version
        peer = PEERS.get(release.distribution)
        if peer is not None:
            env[SETUP_ENV] = peer.installed_setup if release.installed else peer.release_setup
            env[TREE_ENV] = str(release.tree or "")
            env["PEER_RELEASE_ADAPTER"] = peer.adapter
        driver = PEER_DRIVER if peer is not None else _DRIVERS[release.distribution]
        self._proc = JsonLineProcess(_COMMON + driver + _SERVE, env)
        hello = self._proc.read()
        if hello is None:
            err = self._proc.stderr()
            self.close()
            last = err.strip().splitlines()[-1:] or ["no output"]
            raise HarnessError(
                f"{release.distribution} {release.version} does not import here: {last[0]}"
            )
        #: the calls given each segment's first reference alone (a ``sentence_bleu`` that
        #: takes one reference string, sacrebleu up to 1.4.0)
        self.first_reference_only: frozenset[str] = frozenset(hello.get("first_reference_only", ()))
        #: the calls the release does not have (lm-eval 0.0.1's TruthfulQA)
        self.absent: frozenset[str] = frozenset(hello.get("absent", ()))
        where = str(hello.get("file", ""))
        if release.folder is not None and not where.startswith(tuple(map(str, first))):
            self.close()
            raise HarnessError(
                f"{release.distribution} {release.version} imported from {where}, not from "
                f"{release.folder}"
            )

    def run(
        self, calls: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]]
    ) -> list[Answer]:
        """Each ``(call name, hypotheses, per-segment references)`` answered by the release."""
        got = self._proc.ask([[n, list(h), [list(r) for r in refs]] for n, h, refs in calls])
        if got is None:
            raise HarnessError(
                f"{self.release.distribution} {self.release.version}'s process ended"
            )
        return list(got)

    def close(self) -> None:
        self._proc.close()

    def __enter__(self) -> ReleaseProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
