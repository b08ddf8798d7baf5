"""evaluate: ``evaluate.load("bleu").compute(predictions=..., references=...)``.

The ``bleu`` module is **not** in the evaluate wheel: ``evaluate.load("bleu")`` fetches
``bleu.py`` from the Hub space ``evaluate-metric/bleu`` and ``nmt_bleu.py`` from GitHub (the
``# From:`` comment on its import), or reuses a copy in the Hugging Face modules cache. The
adapter resolves the module in this order and never substitutes another implementation:

1. an explicit module path — adapter option ``module=`` or environment variable
   ``BLEU_HARNESS_EVALUATE_MODULE`` — a ``bleu.py`` file or a directory holding one, passed
   to ``evaluate.load(path)``;
2. ``evaluate.load("bleu")``, cache first: evaluate's offline switch
   (``evaluate.config.HF_EVALUATE_OFFLINE``, read once from ``HF_EVALUATE_OFFLINE`` when
   evaluate is imported) is turned on for the attempt, so evaluate goes straight to its
   modules cache and fails at once instead of waiting on HTTP timeouts (its ETag request's own
   timeout, evaluate's ``utils/file_utils.py`` ``get_from_cache``); only if that fails,
   the user has not asked for offline operation (``HF_EVALUATE_OFFLINE``/``HF_HUB_OFFLINE`` or
   ``offline=True``) and a TCP connection to the Hub endpoint opens within
   ``connect_timeout`` seconds, the Hub is tried.

When nothing works, :meth:`EvaluateAdapter.available` returns ``ok=False`` with evaluate's own
error text and the fix. Quirk: ``evaluate.load("bleu")`` first looks for ``./bleu/bleu.py``
relative to the *current directory* (``loading.py`` ``evaluation_module_factory``); the
adapter reports such a hit as ``path:`` in ``extra["module_source"]``.

Translation: ``tokenize="13a"`` uses the module's bundled ``Tokenizer13a`` (no ``tokenizer=``
argument); other harness tokenizers are passed as the ``tokenizer=`` callable the module
documents; ``max_order``; ``smooth="plus-one"`` ↔ ``smooth=True`` (tensorflow/nmt adds 1 to
every order's matches and totals, unigrams included). Fixed: shortest reference length, no
lowercase option, uniform weights. Exposed: score, precisions, BP, ratio, lengths — no counts.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from harness.bleu.config import TOKENIZERS, BleuConfig
from harness.bleu.result import BleuResult
from harness.bleu.tokenizers import text_tokenizer
from harness.data.corpus import Corpus
from harness.errors import AdapterUnavailable
from harness.scorers.base import (
    Adapter,
    Availability,
    Rule,
    as_segment,
    nmt_compute_bleu_rules,
    only,
)

ENV_MODULE = "BLEU_HARNESS_EVALUATE_MODULE"
TRUE = {"1", "ON", "YES", "TRUE"}
HINT = (
    f"set {ENV_MODULE}=/path/to/bleu (a directory containing bleu.py), or run once online: "
    "python -c 'import evaluate; evaluate.load(\"bleu\")'. A local copy of the Hub's bleu.py "
    "still downloads nmt_bleu.py because of the '# From: https://github.com/...' comment on its "
    "import; delete that comment so evaluate uses the nmt_bleu.py next to it"
)


@contextlib.contextmanager
def evaluate_offline() -> Iterator[None]:
    """evaluate's offline switch on for the duration (what ``HF_EVALUATE_OFFLINE=1`` does when
    set before evaluate is imported)."""
    import evaluate.config as cfg

    old = cfg.HF_EVALUATE_OFFLINE
    cfg.HF_EVALUATE_OFFLINE = True
    try:
        yield
    finally:
        cfg.HF_EVALUATE_OFFLINE = old


def _hub_reachable(timeout: float) -> tuple[bool, str]:
    import evaluate.config as cfg

    url = urlparse(cfg.HF_ENDPOINT)
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True, ""
    except OSError as exc:
        return False, f"{host}:{port} unreachable within {timeout:g}s ({exc})"


class EvaluateAdapter(Adapter):
    """Hugging Face evaluate's ``bleu`` module (tensorflow/nmt ``compute_bleu``)."""

    name = "evaluate"
    title = "evaluate's bleu"
    distribution = "evaluate"
    module = "evaluate"
    profile = "evaluate"
    install_hint = "pip install evaluate==0.4.6"

    def __init__(
        self,
        *,
        module: str | os.PathLike[str] | None = None,
        offline: bool | None = None,
        connect_timeout: float = 3.0,
    ) -> None:
        env = os.environ.get(ENV_MODULE) or None
        self.module_path = str(module) if module is not None else env
        self.offline = offline
        self.connect_timeout = connect_timeout
        self._metric: Any = None
        self._source = ""
        self._error: Availability | None = None

    # ------------------------------------------------------------------ loading
    def _user_offline(self) -> bool:
        if self.offline is not None:
            return self.offline
        return any(
            os.environ.get(v, "").upper() in TRUE for v in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE")
        )

    def load(self) -> Any:
        """The loaded ``evaluate`` module object (raises ``AdapterUnavailable``)."""
        if self._metric is not None:
            return self._metric
        if self._error is not None:
            raise AdapterUnavailable(self.name, self._error.reason, self._error.hint)
        try:
            import evaluate
        except Exception as exc:
            self._error = Availability(False, f"cannot import evaluate: {exc}", self.install_hint)
            raise AdapterUnavailable(self.name, self._error.reason, self._error.hint) from exc
        try:
            if self.module_path:
                self._metric, self._source = self._load_path(evaluate, self.module_path)
            else:
                self._metric, self._source = self._load_hub(evaluate)
        except AdapterUnavailable as exc:
            self._error = Availability(False, exc.reason, exc.hint)
            raise
        return self._metric

    def _load_path(self, evaluate: Any, path: str) -> tuple[Any, str]:
        p = Path(path).expanduser()
        if p.is_dir() and (p / "bleu.py").is_file():
            p = p / "bleu.py"  # evaluate wants dir/<dirname>.py; accept any directory name
        if not p.exists():
            raise AdapterUnavailable(
                self.name, f"evaluate module path {str(p)!r} does not exist", HINT
            )
        try:
            with evaluate_offline() if self._user_offline() else contextlib.nullcontext():
                metric = evaluate.load(str(p), keep_in_memory=True)
        except Exception as exc:
            raise AdapterUnavailable(
                self.name, f"evaluate.load({str(p)!r}) failed: {type(exc).__name__}: {exc}", HINT
            ) from exc
        return metric, f"path:{p.resolve()}"

    def _load_hub(self, evaluate: Any) -> tuple[Any, str]:
        source = "hub/cache:bleu"
        local = Path.cwd() / "bleu" / "bleu.py"
        if local.is_file():  # evaluate.load("bleu") picks ./bleu/bleu.py first
            source = f"path:{local.resolve()}"
        try:
            with evaluate_offline():
                return evaluate.load("bleu", keep_in_memory=True), source
        except Exception as exc:
            cached_error = f"{type(exc).__name__}: {exc}"
        if self._user_offline():
            raise AdapterUnavailable(
                self.name,
                f"evaluate.load('bleu') offline (cache only): {cached_error}",
                HINT,
            )
        ok, why = _hub_reachable(self.connect_timeout)
        if not ok:
            raise AdapterUnavailable(
                self.name,
                f"evaluate.load('bleu') found no cached module ({cached_error}) and the Hub "
                f"is not reachable: {why}",
                HINT,
            )
        try:
            return evaluate.load("bleu", keep_in_memory=True), source
        except Exception as exc:
            raise AdapterUnavailable(
                self.name, f"evaluate.load('bleu') failed: {type(exc).__name__}: {exc}", HINT
            ) from exc

    def available(self) -> Availability:
        """Ok when the ``bleu`` module loads (see the module docstring for the order)."""
        try:
            self.load()
        except AdapterUnavailable as exc:
            return Availability(False, exc.reason, exc.hint)
        return Availability(True)

    def cache_fingerprint(self) -> str | None:
        """The ``bleu`` module's source files (name and content) and where they come from:
        an explicit path is read without importing evaluate; otherwise the module is loaded
        and the files evaluate imported it from are read."""
        if self.module_path:
            p = Path(self.module_path).expanduser().resolve()
            folder, source = (p, f"path:{p / 'bleu.py'}") if p.is_dir() else (p.parent, f"path:{p}")
        else:
            import inspect

            folder = Path(inspect.getfile(type(self.load()))).parent
            source = self._source
        digest = hashlib.sha256(source.encode() + b"\x00")
        for f in sorted(folder.glob("*.py")):
            digest.update(f.name.encode() + b"\x00" + f.read_bytes() + b"\x00")
        return digest.hexdigest()

    @property
    def module_source(self) -> str:
        """``"path:/..."`` or ``"hub/cache:bleu"`` once loaded, else ``""``."""
        return self._source

    # ------------------------------------------------------------------ translation
    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        # The module's Tokenizer13a gets the raw string; any other tokenizer is the harness's,
        # passed as a callable, and then follows every text rule of the config.
        own = config.tokenize == "13a"
        return {
            **self.base_rules(config),
            "strip": only(
                ("none",) if own else ("none", "rstrip"),
                "tokenizes the raw string with its Tokenizer13a (no right-strip)",
            ),
            "whitespace": only(
                ("unicode",) if own else ("unicode", "perl"),
                "splits its 13a tokens with str.split()",
            ),
            **nmt_compute_bleu_rules(
                config,
                tokenize=only(TOKENIZERS, "takes a tokenizer callable"),
                lowercase=only(
                    (False,), "has no lowercase option (lowercase the text before calling it)"
                ),
                ref_length=only(("shortest",), "always uses the shortest reference length"),
                on_zero_length=only(
                    ("raise",), "divides by zero on a zero hypothesis or reference length"
                ),
            ),
        }

    def _kwargs(self, config: BleuConfig) -> tuple[dict[str, Any], str]:
        kwargs: dict[str, Any] = {
            "max_order": config.max_order,
            "smooth": config.smooth == "plus-one",
        }
        text = f"max_order={config.max_order}, smooth={kwargs['smooth']}"
        if config.tokenize != "13a":
            kwargs["tokenizer"] = text_tokenizer(config.text_rules)
            text = f"tokenizer=harness tokens ({config.text_rules.key()}), " + text
        return kwargs, text

    def _corpus(self, corpus: Corpus, config: BleuConfig) -> BleuResult:
        metric = self.load()
        kwargs, text = self._kwargs(config)
        out = metric.compute(
            predictions=list(corpus.hypotheses), references=corpus.to_evaluate(), **kwargs
        )
        load = (
            f"evaluate.load({self._source[5:]!r})" if self.module_path else "evaluate.load('bleu')"
        )
        return self.result_from_nmt_dict(
            config,
            out,
            call=f"{load}.compute(predictions=hyps, references=refs_per_segment, {text})",
            extra={"module_source": self._source},
        )

    def _segments(self, corpus: Corpus, config: BleuConfig) -> list[BleuResult]:
        """Each segment scored alone by the module's own ``_compute`` — what ``compute()``
        runs after storing its inputs in an Arrow table and reading them back, a cost paid per
        call that dominates a WMT21 report's segments. Equal to ``compute()`` on each
        one-segment corpus (``tests/test_perf_paths.py``)."""
        metric = self.load()
        kwargs, text = self._kwargs(config)
        load = (
            f"evaluate.load({self._source[5:]!r})" if self.module_path else "evaluate.load('bleu')"
        )
        call = (
            f"{load}._compute(predictions=[hyp], references=[refs], {text}) "
            "(the module function compute() calls)"
        )
        out = []
        for hyp, refs, sid in zip(corpus.hypotheses, corpus.references, corpus.ids, strict=True):
            d = metric._compute(predictions=[hyp], references=[list(refs)], **kwargs)
            r = self.result_from_nmt_dict(
                config, d, call=call, extra={"module_source": self._source}
            )
            out.append(as_segment(r, sid))
        return out
