"""Differential tests: the profiles of LLM-evaluation frameworks against their published code.

Each profile is run against the framework's own files from its wheel (:mod:`tests.published`:
downloaded once, without the frameworks' heavy imports; unitxt imported from its unpacked
wheel), with the sacrebleu, nltk and torch this project pins, on the shared generated corpora
(several and ragged references, empty lines, punctuation, CJK), at 1e-9 BLEU points —
torchtext within 1e-4 (its counts and scores are float32 tensors, as torchmetrics'). Where an
implementation raises (ragged references, empty text), the profile must refuse with the same
exception.

* lighteval 0.13.0: ``lighteval-bleu`` its ``bleu`` (``GenerativePreparator`` then
  ``CorpusLevelTranslationMetric("bleu")``, which keeps each document's first gold);
  ``lighteval-bleu-1``/``-4`` its ``bleu_1``/``bleu_4`` (``BLEU(n_gram)`` per document, then
  ``np.mean``) with nltk 3.9.1's ``word_tokenize`` (lighteval's pin), run from its wheel in a
  process of its own (:mod:`tests.nltk391_oracle`).
* compare-mt 0.2.10: ``compare-mt-sacrebleu``, ``-bleu``, ``-sentbleu`` its ``SacreBleuScorer``,
  ``BleuScorer`` (its own arithmetic) and ``SentBleuScorer`` on the tokens its command line
  reads (``line.strip().split(' ')``).
* deepeval 4.3.1: ``deepeval-bleu1`` … ``-bleu4`` its ``Scorer.sentence_bleu_score`` per
  example, averaged, with nltk's ``word_tokenize`` and the Punkt model of
  :mod:`tests.helm_oracle`.
* torchtext 0.18.0: ``torchtext-bleu`` its ``data.metrics.bleu_score`` on ``str.split`` tokens.
* opencompass 0.5.4: ``opencompass-bleu`` its ``BleuEvaluator`` with the copy of Hugging Face's
  sacrebleu module it keeps.
* unitxt 1.26.10: ``unitxt-bleu``, ``-sacrebleu``, ``-normalized-sacrebleu`` its catalog
  metrics as its ``apply_metric`` runs them (Hugging Face's modules read from a folder: the
  shared Hub ``bleu`` module and opencompass's copy of ``sacrebleu``).
* vizseq 0.2.1: ``vizseq-bleu`` its ``BLEUScorer`` corpus score; ``vizseq-sent-bleu`` its
  sentence scores (``sent_scores``, each rounded to 3 decimals), segment by segment, and their
  mean (vizseq prints none).
* evalscope 1.14.1: ``evalscope-bleu-1`` … ``-4`` its ``bleu_ngram_one_sample`` on each
  sample's ``Target`` (the answers joined with newlines; none for a sample without
  references), ``mean`` and the report's ``normalize_score``, with jieba 0.42.1.
* ragas 0.4.3: ``ragas-bleu`` its ``BleuScore`` of both APIs (legacy and collections) per
  row, averaged with its ``safe_nanmean``.
* opik 2.2.122: ``opik-sentence-bleu`` its ``SentenceBLEU`` (averaged by the statistics of
  ``opik.evaluate``, which have no mean when every item fails) and ``opik-corpus-bleu`` its
  ``CorpusBLEU``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import json
import logging
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings

from harness.api import corpus_bleu, segment_bleu, sentence_bleu
from harness.bleu.profiles import FIELDS, PROFILES, VERIFICATION
from harness.errors import LayoutError, LibraryWouldRaise

from .depth import examples
from .helm_oracle import punkt_tab_on_nltk_path
from .nltk391_oracle import Nltk391
from .published import load_definitions, load_methods, published_file, published_tree
from .strategies import corpora, corpora_with_wordless_items, sentence_end_corpora

EXACT = 1e-9
LIGHTEVAL = ("lighteval", "0.13.0")
COMPARE_MT = ("compare-mt", "0.2.10")
DEEPEVAL = ("deepeval", "4.3.1")
TORCHTEXT = ("torchtext", "0.18.0")
OPENCOMPASS = ("opencompass", "0.5.4")
UNITXT = ("unitxt", "1.26.10")
VIZSEQ = ("vizseq", "0.2.1")
OPIK = ("opik", "2.2.122")
EVALSCOPE = ("evalscope", "1.14.1")
RAGAS = ("ragas", "0.4.3")
#: Where opencompass keeps its copy of Hugging Face's sacrebleu module.
OPENCOMPASS_EVALUATORS = "opencompass/openicl/icl_evaluator"
FLOAT32 = 1e-4  # BLEU points: torchtext counts and scores in float32 tensors, as torchmetrics

# the shared strategies hold a byte-order mark inside lines on purpose; nltk warns of every zero
# n-gram count (deepeval calls it as published)
pytestmark = [
    pytest.mark.filterwarnings("ignore::harness.errors.SuspectInput"),
    pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score"),
]

PROPS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Scorer = Callable[[list[str], list[list[str]]], float]


@pytest.fixture(scope="module")
def lighteval_bleu() -> Scorer:
    """lighteval's ``bleu`` as its pipeline runs it: a ``Doc`` per example (every gold a
    choice, all of them gold), the model's text, ``GenerativePreparator.prepare``, then
    ``CorpusLevelTranslationMetric("bleu").compute_corpus``."""
    env: dict[str, Any] = {
        "ABC": ABC,
        "abstractmethod": abstractmethod,
        "dataclass": dataclasses.dataclass,
        "field": dataclasses.field,
        "asdict": dataclasses.asdict,
        "json": json,
        "np": np,
        "sacrebleu": sacrebleu,
        "logger": logging.getLogger("lighteval"),
        **{name: getattr(typing, name) for name in typing.__all__},
    }
    for member, names in (
        ("lighteval/utils/utils.py", ["as_list"]),
        ("lighteval/tasks/requests.py", ["Doc"]),
        ("lighteval/models/model_output.py", ["ModelResponse"]),
        (
            "lighteval/metrics/sample_preparator.py",
            ["CorpusMetricInput", "GenerativeCorpusMetricInput", "Preparator"],
        ),
        ("lighteval/metrics/sample_preparator.py", ["GenerativePreparator"]),
        (
            "lighteval/metrics/metrics_corpus.py",
            ["CorpusLevelComputation", "CorpusLevelTranslationMetric"],
        ),
    ):
        env = load_definitions(
            published_file(*LIGHTEVAL, member), names, namespace=env, filename=member
        )
    doc, response = env["Doc"], env["ModelResponse"]
    prepare = env["GenerativePreparator"]().prepare
    metric = env["CorpusLevelTranslationMetric"]("bleu")

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        items = [
            prepare(
                doc=doc(query="q", choices=list(r), gold_index=list(range(len(r)))),
                model_response=response(text=[h]),
            )
            for h, r in zip(hyps, refs, strict=True)
        ]
        return float(metric.compute_corpus(items))

    score.namespace = env  # type: ignore[attr-defined]  # lighteval's classes, for the others
    return score


@pytest.fixture(scope="module")
def punkt_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """nltk's ``word_tokenize`` reads the Punkt model written by
    :func:`punkt_tab_on_nltk_path` while the module's tests run."""
    root: Path = tmp_path_factory.mktemp("nltk_data")
    with punkt_tab_on_nltk_path(root):
        yield


@pytest.fixture(scope="module")
def lighteval_sample_bleu(lighteval_bleu: Scorer, nltk391: Nltk391) -> Callable[[int], Scorer]:
    """lighteval's ``bleu_1`` / ``bleu_4``: ``BLEU(n_gram=n).compute`` on each document (every
    gold at once; the model's one answer), averaged with ``np.mean`` as its
    ``SampleLevelMetric`` does; with the ``word_tokenize`` of nltk 3.9.1, which lighteval pins
    (its ``sentence_bleu`` is the installed nltk's: ``bleu_score.py`` of 3.9.1 and 3.10.4
    differ in an ``except`` clause and a comment only)."""
    member = "lighteval/metrics/metrics_sample.py"
    env = {**lighteval_bleu.namespace, "word_tokenize": nltk391.word_tokenize}  # type: ignore[attr-defined]
    env = load_definitions(
        published_file(*LIGHTEVAL, member),
        ["SampleLevelComputation", "BLEU"],
        imports="from abc import ABC, abstractmethod\nimport numpy as np\n"
        "from nltk.translate.bleu_score import sentence_bleu\n",
        namespace=env,
        filename=member,
    )
    doc, response = env["Doc"], env["ModelResponse"]

    def bleu(n: int) -> Scorer:
        metric = env["BLEU"](n_gram=n)

        def score(hyps: list[str], refs: list[list[str]]) -> float:
            each = [
                metric.compute(
                    doc=doc(query="q", choices=list(r), gold_index=list(range(len(r)))),
                    model_response=response(text=[h]),
                )
                for h, r in zip(hyps, refs, strict=True)
            ]
            return 100 * float(np.mean(each))

        return score

    return bleu


@pytest.fixture(autouse=True)
def _no_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    # lighteval's get_metric calls nltk.download("punkt_tab") before every BLEU (sacrebleu's BLEU
    # reads no nltk model): the download is refused here, not made
    import nltk

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: True)


@pytest.fixture(scope="module")
def compare_mt_sacrebleu() -> Scorer:
    """compare-mt's ``SacreBleuScorer().score_corpus`` on the tokens its command line reads
    from the reference and output files (one reference: the first of each example)."""
    member = "compare_mt/scorers.py"
    env = load_definitions(
        published_file(*COMPARE_MT, member),
        ["global_scorer_scale", "Scorer", "SacreBleuScorer"],
        imports="import numpy as np\nimport sacrebleu\n",
        filename=member,
    )
    scorer = env["SacreBleuScorer"]()

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        tokens = [line.strip().split(" ") for line in hyps]
        ref_tokens = [r[0].strip().split(" ") for r in refs]
        return float(scorer.score_corpus(ref_tokens, tokens)[0])

    return score


@pytest.fixture(scope="module", autouse=True)
def _evaluate_releases_raising_modules() -> Iterator[None]:
    """An evaluate module whose ``_compute`` raises keeps its cache file locked (evaluate
    releases it only after a result), so its next ``compute`` waits a second before it picks
    another file: released here, so that the oracles that raise on some inputs (opencompass's
    and unitxt's on ragged references, unitxt's per instance on empty ones) run at their own
    speed. Results are untouched."""
    module_class = importlib.import_module("evaluate").EvaluationModule
    compute = module_class.compute

    def releasing_compute(self: Any, **kwargs: Any) -> Any:
        """EvaluationModule.compute (evaluate copies this function per module, the docstring
        with it, and appends the module's input description to it)."""
        try:
            return compute(self, **kwargs)
        except Exception:
            for lock in getattr(self, "filelocks", None) or ():
                lock.release()
            self.filelocks = None
            raise

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module_class, "compute", releasing_compute)
        yield


@pytest.fixture(scope="module")
def opencompass_bleu(tmp_path_factory: pytest.TempPathFactory) -> Scorer:
    """opencompass's ``BleuEvaluator().score`` (its ``HuggingfaceEvaluator`` loads the copy of
    Hugging Face's sacrebleu module that opencompass keeps beside it, with ``evaluate.load``,
    once per path here); the package's registries and its config class are the only names
    provided."""
    folder = tmp_path_factory.mktemp("icl_evaluator")
    (folder / "hf_metrics").mkdir()
    (folder / "hf_metrics" / "sacrebleu.py").write_text(
        published_file(*OPENCOMPASS, f"{OPENCOMPASS_EVALUATORS}/hf_metrics/sacrebleu.py")
    )
    registry = types.SimpleNamespace(register_module=lambda *a, **k: lambda cls: cls)
    evaluate = importlib.import_module("evaluate")
    env: dict[str, Any] = {
        # score() loads the module file on every call: loaded once per path here
        "evaluate": types.SimpleNamespace(load=functools.cache(evaluate.load)),
        "__file__": str(folder / "icl_hf_evaluator.py"),
        "ICL_EVALUATORS": registry,
        "ConfigDict": dict,
        **{name: getattr(typing, name) for name in typing.__all__},
    }
    for member, names, imports in (
        ("icl_base_evaluator.py", ["BaseEvaluator"], "import numpy as np\n"),
        (
            "icl_hf_evaluator.py",
            ["HuggingfaceEvaluator", "BleuEvaluator"],
            "import os\nimport random\nimport numpy as np\n",
        ),
    ):
        path = f"{OPENCOMPASS_EVALUATORS}/{member}"
        env = load_definitions(
            published_file(*OPENCOMPASS, path), names, imports=imports, namespace=env, filename=path
        )
    evaluator = env["BleuEvaluator"]()

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        return float(evaluator.score(list(hyps), [list(r) for r in refs])["score"])

    return score


@pytest.fixture(scope="module")
def unitxt_metric(
    tmp_path_factory: pytest.TempPathFactory, evaluate_module: Path
) -> Iterator[Callable[[str], Scorer]]:
    """A unitxt catalog metric as ``unitxt.test_utils.metrics.apply_metric`` runs it (unitxt
    imported from its wheel), its global score ×100 where unitxt reports 0–1. Hugging Face's
    modules come from a folder unitxt is told to read them from: the Hub ``bleu`` module of
    ``../shared`` and, for ``sacrebleu`` (whose Hub file is not there), opencompass's copy of
    it. Confidence intervals are off (they resample the same arithmetic)."""
    modules = tmp_path_factory.mktemp("hf_metrics")
    (modules / "bleu").symlink_to(evaluate_module, target_is_directory=True)
    (modules / "sacrebleu").mkdir()
    (modules / "sacrebleu" / "sacrebleu.py").write_text(
        published_file(*OPENCOMPASS, f"{OPENCOMPASS_EVALUATORS}/hf_metrics/sacrebleu.py")
    )
    tree = published_tree(*UNITXT)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("UNITXT_HF_OFFLINE_METRICS_PATH", str(modules))
        patch.syspath_prepend(str(tree))
        artifact = importlib.import_module("unitxt.artifact")
        apply_metric = importlib.import_module("unitxt.test_utils.metrics").apply_metric

        @functools.cache
        def metric(name: str, scale: float = 100.0) -> Scorer:
            published, _ = artifact.fetch_artifact(f"metrics.{name}")
            if hasattr(published, "set_confidence_interval_calculation"):
                published.set_confidence_interval_calculation(False)

            def score(hyps: list[str], refs: list[list[str]]) -> float:
                out = apply_metric(
                    metric=published, predictions=list(hyps), references=[list(r) for r in refs]
                )
                return scale * float(out[0]["score"]["global"]["score"])

            return score

        yield metric


@pytest.fixture(scope="module")
def vizseq_scorer() -> Callable[..., Any]:
    """vizseq's ``BLEUScorer`` class (``scorers/bleu.py`` with its base ``VizSeqScorer`` and
    result ``VizSeqScore`` of ``scorers/__init__.py``); its scorer registry is the only name
    provided."""
    optional = load_definitions(
        published_file(*VIZSEQ, "vizseq/_utils/optional.py"),
        ["get_optional_dict", "map_optional"],
        imports="from typing import Optional, Dict, Any, Callable\n",
        filename="vizseq/_utils/optional.py",
    )
    base = load_definitions(
        published_file(*VIZSEQ, "vizseq/scorers/__init__.py"),
        [
            "PRECISION",
            "MAX_WINDOWS_WORKERS",
            "VizSeqScore",
            "_cgroup_cpu_quota",
            "_available_cpu_count",
            "_max_workers_for_platform",
            "_batch",
            "VizSeqScorer",
        ],
        imports="from abc import abstractmethod\nimport math\nimport os\nimport sys\n"
        "from pathlib import Path\nfrom multiprocessing import cpu_count\n"
        "from typing import List, Optional, Set, Dict, Callable, NamedTuple, Tuple, Type\n"
        "import numpy as np\n",
        namespace={"map_optional": optional["map_optional"], "SENT_SCORE_FN_TYPE": Any},
        filename="vizseq/scorers/__init__.py",
    )
    env = load_definitions(
        published_file(*VIZSEQ, "vizseq/scorers/bleu.py"),
        ["_project", "_get_sent_bleu", "BLEUScorer"],
        imports="from typing import List, Optional, Dict\nfrom sacrebleu.metrics import BLEU\n",
        namespace={
            "register_scorer": lambda *names: lambda cls: cls,
            "get_optional_dict": optional["get_optional_dict"],
            **{k: base[k] for k in ("VizSeqScorer", "VizSeqScore")},
        },
        filename="vizseq/scorers/bleu.py",
    )
    return typing.cast(Callable[..., Any], env["BLEUScorer"])


def _vizseq_streams(refs: list[list[str]]) -> list[list[str | None]]:
    # the references as the streams vizseq takes (None where a segment has fewer: sacrebleu
    # leaves those out)
    width = max(map(len, refs))
    return [[r[k] if k < len(r) else None for r in refs] for k in range(width)]


@pytest.fixture(scope="module")
def vizseq_bleu(vizseq_scorer: Callable[..., Any]) -> Scorer:
    """vizseq's ``BLEUScorer().score`` corpus score (one worker, as it runs a corpus of at most
    1,000 samples)."""
    scorer = vizseq_scorer(n_workers=1)

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        return float(scorer.score(list(hyps), _vizseq_streams(refs)).corpus_score)

    return score


@pytest.fixture(scope="module")
def vizseq_sent_scores(vizseq_scorer: Callable[..., Any]) -> Callable[..., list[float]]:
    """vizseq's ``BLEUScorer(sent_level=True).score`` sentence scores (``sent_scores``: its
    ``_get_sent_bleu``, each rounded by ``VizSeqScore.make``), one worker."""
    scorer = vizseq_scorer(n_workers=1, sent_level=True, corpus_level=False)

    def scores(hyps: list[str], refs: list[list[str]]) -> list[float]:
        return [float(x) for x in scorer.score(list(hyps), _vizseq_streams(refs)).sent_scores]

    return scores


@pytest.fixture(scope="module")
def vizseq_sent_bleu(vizseq_sent_scores: Callable[..., list[float]]) -> Scorer:
    """The mean of vizseq's ``sent_scores`` (vizseq prints none: summed in order and divided
    by their number, as the harness's sentence mean is)."""

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        each = vizseq_sent_scores(hyps, refs)
        return sum(each) / len(each)

    return score


@pytest.fixture(scope="module")
def evalscope_bleu(punkt_model: None) -> Callable[[int], Scorer]:
    """evalscope's ``bleu-n`` as its pipeline computes it: each sample's accepted answers made a
    ``Target`` (its ``display``: one newline-joined text), ``bleu_ngram_one_sample(output,
    target)`` per sample (jieba or nltk's ``word_tokenize``), their ``mean``, and the report's
    ``normalize_score`` (four decimals), ×100."""
    pytest.importorskip("jieba", reason="jieba comes with the cjk extra (make installs it)")
    functions = "evalscope/metrics/utils/functions.py"
    env = load_definitions(
        published_file(*EVALSCOPE, functions),
        ["mean", "bleu_ngram_one_sample"],
        imports="from typing import Dict, List, Union\n",
        filename=functions,
    )
    state = "evalscope/api/evaluator/state.py"
    env = load_definitions(
        published_file(*EVALSCOPE, state),
        ["Target"],
        imports="from typing import Any, Dict, List, Optional, Sequence, Union, overload\n",
        namespace=env,
        filename=state,
    )
    report = "evalscope/report/report.py"
    env = load_definitions(
        published_file(*EVALSCOPE, report),
        ["normalize_score"],
        imports="from typing import Union\n",
        namespace={**env, "logger": logging.getLogger("evalscope")},
        filename=report,
    )

    def bleu(n: int) -> Scorer:
        def score(hyps: list[str], refs: list[list[str]]) -> float:
            each = [
                env["bleu_ngram_one_sample"](h, env["Target"](list(r)).display)[f"bleu-{n}"]
                for h, r in zip(hyps, refs, strict=True)
            ]
            return 100 * env["normalize_score"](env["mean"](each))

        return score

    return bleu


@pytest.fixture(scope="module")
def ragas_bleu() -> dict[str, Scorer]:
    """ragas' ``BleuScore`` of both APIs (``metrics/_bleu_score.py``, the legacy class, and
    ``metrics/collections/_bleu_score.py``; their bases import LLM clients, so the base
    classes and the result type are the only names provided), one row per segment with its
    first reference, averaged with ragas' ``safe_nanmean`` as ``evaluate`` does, ×100."""

    class Base:
        def __init__(self, name: str = "", **kwargs: Any) -> None:
            self.name = name

    legacy_file = "ragas/metrics/_bleu_score.py"
    legacy = load_definitions(
        published_file(*RAGAS, legacy_file),
        ["BleuScore"],
        imports="import typing as t\nfrom dataclasses import dataclass, field\n",
        namespace={
            "SingleTurnMetric": object,
            "MetricType": types.SimpleNamespace(SINGLE_TURN="single_turn"),
            "Callbacks": Any,
            "SingleTurnSample": types.SimpleNamespace,
            "RunConfig": Any,
        },
        filename=legacy_file,
    )["BleuScore"]()
    current_file = "ragas/metrics/collections/_bleu_score.py"
    current = load_definitions(
        published_file(*RAGAS, current_file),
        ["BleuScore"],
        imports="import typing as t\n",
        namespace={
            "BaseMetric": Base,
            "MetricResult": types.SimpleNamespace,
        },
        filename=current_file,
    )["BleuScore"]()
    utils = load_definitions(
        published_file(*RAGAS, "ragas/utils.py"),
        ["safe_nanmean"],
        imports="import typing as t\nimport numpy as np\n",
        filename="ragas/utils.py",
    )

    def rows(one: Callable[[str, str], float]) -> Scorer:
        def score(hyps: list[str], refs: list[list[str]]) -> float:
            each = [one(h, r[0]) for h, r in zip(hyps, refs, strict=True)]
            return 100 * utils["safe_nanmean"](each)

        return score

    def legacy_row(response: str, reference: str) -> float:
        sample = types.SimpleNamespace(reference=reference, response=response)
        return asyncio.run(legacy._single_turn_ascore(sample, None))

    def current_row(response: str, reference: str) -> float:
        return asyncio.run(current.ascore(reference=reference, response=response)).value

    return {"legacy": rows(legacy_row), "collections": rows(current_row)}


class MetricComputationError(Exception):
    """opik's exception (``opik.exceptions``), which its BLEU metrics raise on empty text."""


class NoMean(Exception):
    """opik's aggregated statistics hold no mean for the metric: every item's score failed."""


@pytest.fixture(scope="module")
def opik_bleu() -> dict[str, Scorer]:
    """opik's ``SentenceBLEU`` and ``CorpusBLEU`` (``opik/evaluation/metrics/heuristics/
    bleu.py``; the SDK's import starts its client, so the metric's base class and result type
    are the only names provided, untracked), scaled to 0–100. ``SentenceBLEU`` is scored per
    item and averaged by opik's published ``calculate_aggregated_statistics``
    (``evaluation/score_statistics.py``) as ``opik.evaluate`` runs it: an item whose metric
    raised is a failed score, left out of the mean; when every item failed, the statistics
    hold no entry for the metric, and the scorer raises :class:`NoMean`."""
    member = "opik/evaluation/metrics/heuristics/bleu.py"

    class BaseMetric:
        def __init__(self, name: str, track: bool = True, project_name: str | None = None):
            self.name = name

    @dataclasses.dataclass
    class ScoreResult:
        value: float
        name: str
        reason: str | None = None
        scoring_failed: bool = False

    env = load_definitions(
        published_file(*OPIK, member),
        ["BaseBLEU", "_suppress_bleu_warnings", "SentenceBLEU", "CorpusBLEU"],
        imports="import warnings\nfrom contextlib import contextmanager\n"
        "from typing import Any, Iterator, List, Optional, Tuple, Union\n"
        "from nltk.translate import bleu_score as nltk_bleu_score\n",
        namespace={
            "MetricComputationError": MetricComputationError,
            "base_metric": types.SimpleNamespace(BaseMetric=BaseMetric),
            "score_result": types.SimpleNamespace(ScoreResult=ScoreResult),
        },
        filename=member,
    )
    sentence, corpus = env["SentenceBLEU"](track=False), env["CorpusBLEU"](track=False)
    statistics_file = "opik/evaluation/score_statistics.py"
    aggregate = load_definitions(
        published_file(*OPIK, statistics_file),
        [
            "LOGGER",
            "FAILED_SCORES_MESSAGE",
            "ScoreStatistics",
            "calculate_aggregated_statistics",
            "_is_valid_score_value",
        ],
        imports="import dataclasses\nimport logging\nimport math\nimport statistics\n"
        "from collections import defaultdict\nfrom typing import List, Optional, Dict\n",
        namespace={
            "_logging": types.SimpleNamespace(log_once_at_level=lambda *args: None),
            "test_result": types.SimpleNamespace(TestResult=Any),
        },
        filename=statistics_file,
    )["calculate_aggregated_statistics"]

    def item(h: str, r: list[str]) -> types.SimpleNamespace:
        # engine/metrics_evaluator.py: a metric that raises gives a failed score of 0.0
        try:
            result = sentence.score(h, list(r))
        except MetricComputationError as exc:
            result = ScoreResult(value=0.0, name=sentence.name, reason=str(exc))
            result.scoring_failed = True
        return types.SimpleNamespace(score_results=[result])

    def sentence_mean(hyps: list[str], refs: list[list[str]]) -> float:
        aggregated = aggregate([item(h, r) for h, r in zip(hyps, refs, strict=True)])
        if sentence.name not in aggregated:
            raise NoMean(f"every item's {sentence.name} failed")
        return 100 * aggregated[sentence.name].mean

    def corpus_score(hyps: list[str], refs: list[list[str]]) -> float:
        return 100 * corpus.score(list(hyps), [list(r) for r in refs]).value

    return {"sentence": sentence_mean, "corpus": corpus_score}


def _compare_mt_files(hyps: list[str], refs: list[list[str]]) -> tuple[list, list]:
    # compare-mt's corpus_utils.iterate_tokens: each file line is line.strip().split(' ')
    return [r[0].strip().split(" ") for r in refs], [h.strip().split(" ") for h in hyps]


@pytest.fixture(scope="module")
def compare_mt_scorers() -> dict[str, Scorer]:
    """compare-mt's own ``BleuScorer`` and ``SentBleuScorer`` (with the published
    ``ngram_utils`` and ``corpus_utils`` they call) on the tokens its command line reads."""
    helpers = {
        module: types.SimpleNamespace(
            **load_definitions(
                published_file(*COMPARE_MT, f"compare_mt/{module}.py"),
                names,
                filename=f"compare_mt/{module}.py",
            )
        )
        for module, names in (("ngram_utils", ["sent_ngrams_list"]), ("corpus_utils", ["lower"]))
    }
    member = "compare_mt/scorers.py"
    env = load_definitions(
        published_file(*COMPARE_MT, member),
        ["global_scorer_scale", "Scorer", "SentenceFactoredScorer", "BleuScorer", "SentBleuScorer"],
        imports="import math\nfrom collections import Counter\nimport nltk\nimport numpy as np\n",
        namespace=helpers,
        filename=member,
    )

    def scorer(name: str) -> Scorer:
        published = env[name]()

        def score(hyps: list[str], refs: list[list[str]]) -> float:
            return float(published.score_corpus(*_compare_mt_files(hyps, refs))[0])

        return score

    return {"bleu": scorer("BleuScorer"), "sentbleu": scorer("SentBleuScorer")}


@pytest.fixture(scope="module")
def deepeval_bleu(punkt_model: None) -> Callable[[int], Scorer]:
    """deepeval's ``Scorer.sentence_bleu_score`` (the published classmethod, in a class of the
    test's own: its module imports deepeval's models), per example and averaged, with nltk's
    ``word_tokenize`` reading the Punkt model written by :func:`punkt_tab_on_nltk_path`."""
    member = "deepeval/scorer/scorer.py"
    methods = load_methods(
        published_file(*DEEPEVAL, member),
        "Scorer",
        ["sentence_bleu_score"],
        imports="from typing import Union, List, Optional, Any\n",
        filename=member,
    )
    published = type("Scorer", (), methods)

    def bleu(n: int) -> Scorer:
        def score(hyps: list[str], refs: list[list[str]]) -> float:
            each = [
                float(published.sentence_bleu_score(list(r), h, bleu_type=f"bleu{n}"))
                for h, r in zip(hyps, refs, strict=True)
            ]
            return 100 * sum(each) / len(each)

        return score

    return bleu


@pytest.fixture(scope="module")
def torchtext_bleu() -> Scorer:
    """torchtext's ``bleu_score`` (``torchtext/data/metrics.py`` with ``ngrams_iterator`` from
    ``data/utils.py``; the package's own import loads a C++ extension built for another torch)
    on ``str.split`` tokens, ×100."""
    pytest.importorskip("torch", reason="torch comes with the peers extra (make installs it)")
    utils = load_definitions(
        published_file(*TORCHTEXT, "torchtext/data/utils.py"),
        ["ngrams_iterator"],
        filename="torchtext/data/utils.py",
    )
    metrics = load_definitions(
        published_file(*TORCHTEXT, "torchtext/data/metrics.py"),
        ["_compute_ngram_counter", "bleu_score"],
        imports="import collections\nimport math\nimport torch\n",
        namespace={"ngrams_iterator": utils["ngrams_iterator"]},
        filename="torchtext/data/metrics.py",
    )
    bleu_score = metrics["bleu_score"]

    def score(hyps: list[str], refs: list[list[str]]) -> float:
        return 100 * float(
            bleu_score([h.split() for h in hyps], [[r.split() for r in rs] for rs in refs])
        )

    return score


def _agree(
    theirs: float, hyps: list[str], refs: list[list[str]], profile: str, tolerance: float = EXACT
) -> None:
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile=profile).score
    assert abs(ours - theirs) <= tolerance, (profile, ours, theirs, hyps, refs)


def _agree_or_refuse(theirs: Scorer, hyps: list[str], refs: list[list[str]], profile: str) -> None:
    """Equal scores, or the profile refuses with the exception the implementation raises."""
    try:
        score = theirs(hyps, refs)
    except Exception as exc:  # the implementation's own exception, whichever it is
        with pytest.raises(LibraryWouldRaise) as refused:
            corpus_bleu(hypotheses=hyps, references=refs, profile=profile)
        assert refused.value.library_exception == type(exc).__name__, (exc, refused.value)
        return
    _agree(score, hyps, refs, profile)


@PROPS
@given(corpora(max_refs=3))
def test_lighteval_bleu(lighteval_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    _agree(lighteval_bleu(hyps, refs), hyps, refs, "lighteval-bleu")


def test_lighteval_bleu_reads_the_first_gold_only(lighteval_bleu: Scorer) -> None:
    hyps = ["the cat sat on the mat ."]
    refs = [["a dog lay on a rug .", "the cat sat on the mat ."]]
    first = corpus_bleu(hypotheses=hyps, references=refs, profile="lighteval-bleu").score
    every = corpus_bleu(hypotheses=hyps, references=refs, profile="sacrebleu").score
    assert abs(first - lighteval_bleu(hyps, refs)) <= EXACT
    assert every == 100.0 and first < 10.0


@PROPS
@given(corpora(max_refs=1))
def test_compare_mt_sacrebleu(
    compare_mt_sacrebleu: Scorer, corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree(compare_mt_sacrebleu(hyps, refs), hyps, refs, "compare-mt-sacrebleu")


@pytest.mark.parametrize("n", [1, 4])
@PROPS
@given(corpus=corpora(max_refs=3))
def test_lighteval_bleu_n(
    lighteval_sample_bleu: Callable[[int], Scorer],
    corpus: tuple[list[str], list[list[str]]],
    n: int,
) -> None:
    hyps, refs = corpus
    _agree(lighteval_sample_bleu(n)(hyps, refs), hyps, refs, f"lighteval-bleu-{n}")


def test_lighteval_bleu_n_tokenizes_as_its_pinned_nltk(
    lighteval_sample_bleu: Callable[[int], Scorer],
) -> None:
    # nltk 3.9.1 keeps "a—b" and "'hello" whole, 3.10.4 splits both as the reference is split
    hyps, refs = ["a—b 'hello"], [["a — b ' hello"]]
    theirs = lighteval_sample_bleu(1)(hyps, refs)
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="lighteval-bleu-1").score
    with_3104 = corpus_bleu(
        hypotheses=hyps, references=refs, profile="lighteval-bleu-1", tokenize="nltk-punkt"
    ).score
    assert abs(ours - theirs) <= EXACT
    assert ours == 0.0 and with_3104 == 100.0


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@PROPS
@given(corpus=corpora(min_refs=0, max_refs=3))
def test_evalscope_bleu(
    evalscope_bleu: Callable[[int], Scorer], corpus: tuple[list[str], list[list[str]]], n: int
) -> None:
    """Samples with no reference at all among them (a ``Target`` of no answers)."""
    hyps, refs = corpus
    _agree(evalscope_bleu(n)(hyps, refs), hyps, refs, f"evalscope-bleu-{n}")


def test_evalscope_bleu_scores_a_sample_without_references_0(
    evalscope_bleu: Callable[[int], Scorer],
) -> None:
    hyps, refs = ["the cat sat", "a dog"], [["the cat sat"], []]
    theirs = evalscope_bleu(1)(hyps, refs)
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="evalscope-bleu-1").score
    assert abs(ours - theirs) <= EXACT and ours == 50.0
    alone = sentence_bleu(hypothesis="a dog", references=[], profile="evalscope-bleu-1")
    assert alone.score == 0.0 == evalscope_bleu(1)(["a dog"], [[]])
    with pytest.raises(LayoutError, match="at least one reference"):  # no joining rule
        corpus_bleu(hypotheses=hyps, references=refs, profile="nltk")


@pytest.mark.parametrize(
    ("hyp", "refs", "why"),
    [
        (" 我爱北京天安门 ", ["我爱北京天安门"], "jieba keeps the output's spaces as tokens"),
        ("I love Beijing", ["我爱北京 Beijing"], "each side picks its own segmenter"),
        ("the cat sat on the mat", ["a dog", "the cat sat on the mat"], "answers joined"),
    ],
)
def test_evalscope_quirks(
    evalscope_bleu: Callable[[int], Scorer], hyp: str, refs: list[str], why: str
) -> None:
    theirs = evalscope_bleu(1)([hyp], [refs])
    ours = corpus_bleu(hypotheses=[hyp], references=[refs], profile="evalscope-bleu-1").score
    assert abs(ours - theirs) <= EXACT, why
    assert ours < 100, why


@pytest.mark.parametrize("api", ["legacy", "collections"])
@PROPS
@given(corpus=corpora(max_refs=1))
def test_ragas_bleu(
    ragas_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]], api: str
) -> None:
    hyps, refs = corpus
    _agree(ragas_bleu[api](hyps, refs), hyps, refs, "ragas-bleu")


@PROPS
@given(sentence_end_corpora())
def test_ragas_bleu_sentences(
    ragas_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    refs = [r[:1] for r in refs]
    _agree(ragas_bleu["collections"](hyps, refs), hyps, refs, "ragas-bleu")


def test_ragas_bleu_scores_the_first_sentence(ragas_bleu: dict[str, Scorer]) -> None:
    hyps = ["The cat sat on the mat. Totally unrelated words here"]
    refs = [["The cat sat on the mat. It was happy. Dogs barked"]]
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="ragas-bleu").score
    whole = corpus_bleu(hypotheses=hyps, references=refs, profile="sacrebleu").score
    assert abs(ours - ragas_bleu["legacy"](hyps, refs)) <= EXACT
    assert abs(ours - 100) <= 1e-9 and whole < 60


@pytest.mark.parametrize("metric", ["bleu", "sentbleu"])
@PROPS
@given(corpus=corpora(max_refs=1))
def test_compare_mt(
    compare_mt_scorers: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]], metric: str
) -> None:
    hyps, refs = corpus
    _agree(compare_mt_scorers[metric](hyps, refs), hyps, refs, f"compare-mt-{metric}")


@pytest.mark.parametrize(
    ("hyp", "ref", "why"),
    [
        ("the cat", "the dog", "the orders without a match are left out: 100 * (1/2)^(1/4)"),
        ("a  b c d", "a b c d", "two spaces make an empty token"),
        ("", "", "an empty line is one empty token, which matches"),
    ],
)
def test_compare_mt_bleu_quirks(
    compare_mt_scorers: dict[str, Scorer], hyp: str, ref: str, why: str
) -> None:
    theirs = compare_mt_scorers["bleu"]([hyp], [[ref]])
    ours = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="compare-mt-bleu").score
    nltk_score = corpus_bleu(hypotheses=[hyp], references=[[ref]], profile="nltk").score
    assert abs(ours - theirs) <= EXACT, why
    assert abs(ours - nltk_score) > 10, why  # what nltk gives on the same line differs


@PROPS
@given(corpora(max_refs=3))
def test_opencompass_bleu(
    opencompass_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree_or_refuse(opencompass_bleu, hyps, refs, "opencompass-bleu")


def test_opencompass_refuses_ragged_references(opencompass_bleu: Scorer) -> None:
    hyps, refs = ["the cat sat", "a dog"], [["the cat sat", "a cat sat"], ["a dog barked"]]
    with pytest.raises(ValueError, match="same number of references"):
        opencompass_bleu(hyps, refs)
    _agree_or_refuse(opencompass_bleu, hyps, refs, "opencompass-bleu")
    # a segment scored alone has one layout: never refused
    assert corpus_bleu(hypotheses=hyps[1:], references=refs[1:], profile="opencompass-bleu")


@pytest.mark.parametrize(
    ("metric", "scale", "profile"),
    [
        ("bleu", 100.0, "unitxt-bleu"),
        ("sacrebleu", 1.0, "unitxt-sacrebleu"),
        ("normalized_sacrebleu", 100.0, "unitxt-normalized-sacrebleu"),
    ],
)
@PROPS
@given(corpus=corpora(max_refs=3))
def test_unitxt(
    unitxt_metric: Callable[..., Scorer],
    corpus: tuple[list[str], list[list[str]]],
    metric: str,
    scale: float,
    profile: str,
) -> None:
    hyps, refs = corpus
    _agree_or_refuse(unitxt_metric(metric, scale), hyps, refs, profile)


def test_unitxt_normalized_sacrebleu_rounds_the_unit_score(
    unitxt_metric: Callable[..., Scorer],
) -> None:
    # a corpus whose hypotheses are all shorter than four tokens scores 0 without effective
    # order; the printed 0–1 score is rounded to two decimals
    hyps, refs = ["the cat", "a dog sat"], [["the cat sat"], ["a dog sat down"]]
    theirs = unitxt_metric("normalized_sacrebleu")(hyps, refs)
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="unitxt-normalized-sacrebleu")
    plain = corpus_bleu(hypotheses=hyps, references=refs, profile="sacrebleu").score
    assert abs(ours.score - theirs) <= EXACT
    assert plain == 0.0 < ours.score and ours.score == round(ours.score)


@PROPS
@given(corpora(max_refs=3))
def test_vizseq_bleu(vizseq_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    _agree(vizseq_bleu(hyps, refs), hyps, refs, "vizseq-bleu")


def _agree_or_no_mean(theirs: Scorer, hyps: list[str], refs: list[list[str]], profile: str) -> None:
    """Equal means, or, where opik has no mean (every item's metric raised), the profile
    refuses with the exception each item raised."""
    try:
        score = theirs(hyps, refs)
    except NoMean:
        with pytest.raises(LibraryWouldRaise) as refused:
            corpus_bleu(hypotheses=hyps, references=refs, profile=profile)
        assert refused.value.library_exception == "MetricComputationError", refused.value
        return
    _agree(score, hyps, refs, profile)


@PROPS
@given(corpora(max_refs=3))
def test_vizseq_sent_bleu(
    vizseq_sent_scores: Callable[..., list[float]], corpus: tuple[list[str], list[list[str]]]
) -> None:
    """Each segment's score is vizseq's ``sent_scores`` entry (rounded to 3 decimals), and the
    corpus value their mean."""
    hyps, refs = corpus
    theirs = vizseq_sent_scores(hyps, refs)
    ours = segment_bleu(hypotheses=hyps, references=refs, profile="vizseq-sent-bleu")
    assert np.abs(ours.score - np.array(theirs)).max() <= EXACT, (ours.score, theirs, corpus)
    _agree(sum(theirs) / len(theirs), hyps, refs, "vizseq-sent-bleu")


def test_vizseq_sent_bleu_rounds_each_segment(
    vizseq_sent_scores: Callable[..., list[float]],
) -> None:
    hyps, refs = ["the cat sat on a mat", "a dog"], [["the cat sat on the mat"], ["a dog ran"]]
    theirs = vizseq_sent_scores(hyps, refs)
    ours = segment_bleu(hypotheses=hyps, references=refs, profile="vizseq-sent-bleu").score
    unrounded = segment_bleu(
        hypotheses=hyps, references=refs, profile="vizseq-sent-bleu", round_digits=None
    ).score
    assert np.abs(ours - np.array(theirs)).max() <= EXACT
    assert (ours == np.round(unrounded, 3)).all() and (ours != unrounded).any()


@PROPS
@given(corpora(max_refs=3))
def test_opik_sentence_bleu(
    opik_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree_or_no_mean(opik_bleu["sentence"], hyps, refs, "opik-sentence-bleu")


@PROPS
@given(corpora_with_wordless_items())
def test_opik_sentence_bleu_of_failing_items(
    opik_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    """Items without words fail and are left out of opik's mean; often every item fails."""
    hyps, refs = corpus
    _agree_or_no_mean(opik_bleu["sentence"], hyps, refs, "opik-sentence-bleu")


def test_opik_sentence_bleu_has_no_mean_when_every_item_fails(
    opik_bleu: dict[str, Scorer],
) -> None:
    hyps, refs = ["", "the cat"], [["the cat"], ["  "]]
    with pytest.raises(NoMean):
        opik_bleu["sentence"](hyps, refs)
    with pytest.raises(LibraryWouldRaise, match="MetricComputationError"):
        corpus_bleu(hypotheses=hyps, references=refs, profile="opik-sentence-bleu")
    # one item left: the mean is its score, as opik's
    hyps, refs = [*hyps, "the cat sat"], [*refs, ["the cat sat"]]
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="opik-sentence-bleu").score
    assert abs(ours - opik_bleu["sentence"](hyps, refs)) <= EXACT and ours == 100.0


@PROPS
@given(corpora(max_refs=3))
def test_opik_corpus_bleu(
    opik_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree_or_refuse(opik_bleu["corpus"], hyps, refs, "opik-corpus-bleu")


@PROPS
@given(corpora(max_refs=3, max_words=3))
def test_opik_corpus_bleu_of_short_outputs(
    opik_bleu: dict[str, Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    """Outputs of at most three words: opik cuts the weights to the longest output."""
    hyps, refs = corpus
    _agree_or_refuse(opik_bleu["corpus"], hyps, refs, "opik-corpus-bleu")


def test_opik_corpus_bleu_of_outputs_under_four_words_is_bleu_m(
    opik_bleu: dict[str, Scorer],
) -> None:
    hyps, refs = ["the cat sat", "a dog"], [["the cat sat down"], ["a dog barked"]]
    theirs = opik_bleu["corpus"](hyps, refs)
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="opik-corpus-bleu").score
    three = corpus_bleu(
        hypotheses=hyps,
        references=refs,
        profile="opik-corpus-bleu",
        max_order=3,
        effective_order=False,
    ).score
    four = corpus_bleu(
        hypotheses=hyps, references=refs, profile="opik-corpus-bleu", effective_order=False
    ).score
    assert abs(theirs - ours) <= EXACT and abs(ours - three) <= EXACT
    assert abs(ours - four) > 1


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@PROPS
@given(corpus=corpora(max_refs=3))
def test_deepeval_bleu(
    deepeval_bleu: Callable[[int], Scorer], corpus: tuple[list[str], list[list[str]]], n: int
) -> None:
    hyps, refs = corpus
    _agree(deepeval_bleu(n)(hyps, refs), hyps, refs, f"deepeval-bleu{n}")


@PROPS
@given(sentence_end_corpora())
def test_deepeval_bleu_mid_line_sentence_ends(
    deepeval_bleu: Callable[[int], Scorer], corpus: tuple[list[str], list[list[str]]]
) -> None:
    hyps, refs = corpus
    _agree(deepeval_bleu(4)(hyps, refs), hyps, refs, "deepeval-bleu4")


def test_deepeval_bleu2_is_one_order_not_bleu2(deepeval_bleu: Callable[[int], Scorer]) -> None:
    # 'bleu2' weighs bigrams alone: the bigram precision times the brevity penalty
    hyps, refs = ["The cat sat on a mat ."], [["The cat sat on the mat ."]]
    ours = corpus_bleu(hypotheses=hyps, references=refs, profile="deepeval-bleu2").score
    assert abs(ours - deepeval_bleu(2)(hyps, refs)) <= EXACT
    assert abs(ours - 100 * 4 / 6) <= EXACT  # 4 of the 6 bigrams match


@PROPS
@given(corpora(max_refs=3))
def test_torchtext_bleu(torchtext_bleu: Scorer, corpus: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = corpus
    _agree(torchtext_bleu(hyps, refs), hyps, refs, "torchtext-bleu", FLOAT32)


#: Each profile's framework scorer: (fixture, how to pick the scorer from it, tolerance), and
#: whether the framework reads one reference per example (ragas, compare-mt's files).
_FRAMEWORK: dict[str, tuple[str, Callable[[Any], Scorer], float, bool]] = {
    "lighteval-bleu": ("lighteval_bleu", lambda f: f, EXACT, False),
    **{
        f"lighteval-bleu-{n}": ("lighteval_sample_bleu", lambda f, n=n: f(n), EXACT, False)
        for n in (1, 4)
    },
    **{
        f"evalscope-bleu-{n}": ("evalscope_bleu", lambda f, n=n: f(n), EXACT, False)
        for n in range(1, 5)
    },
    **{
        f"deepeval-bleu{n}": ("deepeval_bleu", lambda f, n=n: f(n), EXACT, False)
        for n in range(1, 5)
    },
    "opencompass-bleu": ("opencompass_bleu", lambda f: f, EXACT, False),
    "unitxt-bleu": ("unitxt_metric", lambda f: f("bleu"), EXACT, False),
    "unitxt-sacrebleu": ("unitxt_metric", lambda f: f("sacrebleu", 1.0), EXACT, False),
    "unitxt-normalized-sacrebleu": (
        "unitxt_metric",
        lambda f: f("normalized_sacrebleu"),
        EXACT,
        False,
    ),
    "vizseq-bleu": ("vizseq_bleu", lambda f: f, EXACT, False),
    "vizseq-sent-bleu": ("vizseq_sent_bleu", lambda f: f, EXACT, False),
    "ragas-bleu": ("ragas_bleu", lambda f: f["legacy"], EXACT, True),
    "opik-sentence-bleu": ("opik_bleu", lambda f: f["sentence"], EXACT, False),
    "opik-corpus-bleu": ("opik_bleu", lambda f: f["corpus"], EXACT, False),
    "compare-mt-sacrebleu": ("compare_mt_sacrebleu", lambda f: f, EXACT, True),
    "compare-mt-bleu": ("compare_mt_scorers", lambda f: f["bleu"], EXACT, True),
    "compare-mt-sentbleu": ("compare_mt_scorers", lambda f: f["sentbleu"], EXACT, True),
    "torchtext-bleu": ("torchtext_bleu", lambda f: f, FLOAT32, False),
}


@pytest.fixture(scope="module")
def wmt21_system(data_dir: Path) -> tuple[list[str], list[list[str]]]:
    """One WMT21 en→de system's 1,002 outputs with the three human references."""
    from harness.data.datasets import WMT21_SYSTEMS, load_wmt21_ende

    corpus = load_wmt21_ende(data_dir, systems=WMT21_SYSTEMS[:1])[WMT21_SYSTEMS[0]]
    return list(corpus.hypotheses), [list(refs) for refs in corpus.references]


def test_every_profile_has_its_framework_here() -> None:
    llm = sorted(name for name, field in FIELDS.items() if field == "LLM evaluation")
    assert sorted(_FRAMEWORK) == llm


@pytest.mark.parametrize("profile", sorted(_FRAMEWORK))
def test_on_wmt21(
    request: pytest.FixtureRequest,
    wmt21_system: tuple[list[str], list[list[str]]],
    profile: str,
) -> None:
    """Real machine-translation output: the profile equals its framework's code."""
    fixture, pick, tolerance, one_reference = _FRAMEWORK[profile]
    theirs = pick(request.getfixturevalue(fixture))
    hyps, refs = wmt21_system
    if one_reference:
        refs = [r[:1] for r in refs]
    _agree(theirs(hyps, refs), hyps, refs, profile, tolerance)


def test_declared_in_their_field() -> None:
    for name in (
        "lighteval-bleu",
        "compare-mt-sacrebleu",
        "compare-mt-bleu",
        "compare-mt-sentbleu",
        "opencompass-bleu",
        "unitxt-bleu",
        "unitxt-sacrebleu",
        "unitxt-normalized-sacrebleu",
        "vizseq-bleu",
        "vizseq-sent-bleu",
        "lighteval-bleu-1",
        "lighteval-bleu-4",
        *(f"evalscope-bleu-{n}" for n in range(1, 5)),
        "ragas-bleu",
        "opik-sentence-bleu",
        "opik-corpus-bleu",
        *(f"deepeval-bleu{n}" for n in range(1, 5)),
    ):
        assert FIELDS[name] == "LLM evaluation"
        assert VERIFICATION[name].evidence == "tests/test_profile_llm_eval.py"
        assert VERIFICATION[name].verified
    # what each changes from the profile it starts from
    assert PROFILES["lighteval-bleu"] == PROFILES["sacrebleu"].replace(
        missing_refs="first", library="lighteval"
    )
    assert PROFILES["compare-mt-sacrebleu"] == PROFILES["sacrebleu"].replace(library="compare-mt")
    for name in ("opencompass-bleu", "unitxt-sacrebleu"):
        library = name.split("-")[0]
        assert PROFILES[name] == PROFILES["sacrebleu"].replace(
            missing_refs="refuse", library=library
        )
    assert PROFILES["unitxt-bleu"] == PROFILES["evaluate"].replace(library="unitxt")
    assert PROFILES["unitxt-normalized-sacrebleu"] == PROFILES["sacrebleu"].replace(
        effective_order=True, round_digits=0, round_rule="python-unit", library="unitxt"
    )
    assert PROFILES["vizseq-bleu"] == PROFILES["sacrebleu"].replace(
        tokenize="none", round_digits=3, round_rule="numpy", library="vizseq"
    )
    assert PROFILES["vizseq-sent-bleu"] == PROFILES["sacrebleu-sentence"].replace(
        tokenize="none",
        smooth="floor",
        round_digits=3,
        round_rule="numpy-segment",
        library="vizseq",
    )
    assert PROFILES["opik-sentence-bleu"] == PROFILES["opik-corpus-bleu"].replace(
        ngram_totals="plain", aggregation="nonempty-mean"
    )
    assert PROFILES["torchtext-bleu"] == PROFILES["torchmetrics"].replace(library="torchtext")
    assert VERIFICATION["torchtext-bleu"].tolerance == FLOAT32
