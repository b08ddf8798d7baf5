"""The scorer layer itself: the registry read from the adapter classes, the support declarations
against ``dataclasses.fields(BleuConfig)``, and the one ``Outcome`` the runner and the pitfalls
share.

Every number compared here comes from a real library or the engine in this run; the only
literals are names (statuses, exception types) and the dummy factor a test adds.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness import PROFILES, BleuConfig, Corpus
from harness.bleu.profiles import CURRENT_PROFILES, VERIFICATION
from harness.data.fixtures import load_fixture
from harness.errors import ConfigError, UnsupportedSetting
from harness.pitfalls import REAL, Measurement, measure_profile
from harness.pitfalls import STATUSES as PITFALL_STATUSES
from harness.run import runner
from harness.scorers import (
    ADAPTERS,
    DEFAULT_ADAPTERS,
    LIBRARY_ADAPTERS,
    PROFILE_OF,
    PROFILE_ONLY,
    STATUSES,
    Adapter,
    EngineScorer,
    Outcome,
    get_adapter,
    score,
)
from harness.scorers.base import SUPPORTED, Rule
from harness.scorers.command import CommandAdapter
from harness.scorers.registry import adapter_classes

SMALL = Corpus(
    hypotheses=("the cat sat on the mat", "it is raining in london today"),
    references=(("the cat sat on the mat", "a cat sat on the mat"), ("it rains in london",)),
)
FIELDS = [f.name for f in dataclasses.fields(BleuConfig)]


def _adapters() -> list[Adapter]:
    """Every library adapter with its defaults, the COCO one with its PTB option too."""
    return [get_adapter(n) for n in LIBRARY_ADAPTERS] + [get_adapter("pycocoevalcap", ptb=True)]


# ------------------------------------------------------------------------------------ registry
def test_the_registry_is_read_from_the_classes() -> None:
    for name, cls in ADAPTERS.items():
        assert issubclass(cls, Adapter) and cls.name == name
    # the library adapters are those that reproduce a profile, in the order of the profiles
    assert list(LIBRARY_ADAPTERS) == [n for n in ADAPTERS if ADAPTERS[n].profile]
    rank = list(PROFILES)
    assert [rank.index(PROFILE_OF[n]) for n in LIBRARY_ADAPTERS] == sorted(
        rank.index(PROFILE_OF[n]) for n in LIBRARY_ADAPTERS
    )
    assert set(DEFAULT_ADAPTERS) <= set(LIBRARY_ADAPTERS)
    # an older release's profile is run when named, not as a profile-only implementation
    assert set(PROFILE_ONLY) == set(CURRENT_PROFILES) - set(PROFILE_OF.values())
    assert "command" in ADAPTERS and "command" not in LIBRARY_ADAPTERS
    # the pitfalls' and the runner's lists are the registry's
    assert REAL == LIBRARY_ADAPTERS
    assert [i.name for i in runner.default_implementations() if i.kind == "adapter"] == list(
        DEFAULT_ADAPTERS
    )


@pytest.mark.parametrize("name", LIBRARY_ADAPTERS)
def test_each_library_names_a_verified_profile_and_its_tolerance(name: str) -> None:
    cls = ADAPTERS[name]
    assert cls.profile in PROFILES and VERIFICATION[cls.profile].verified
    assert cls.tolerance() == VERIFICATION[cls.profile].tolerance
    assert get_adapter(name).default_config() == PROFILES[cls.profile]


def test_a_new_adapter_module_is_picked_up_and_its_library_stays_lazy(tmp_path: Path) -> None:
    """Adding a library is one module declaring its class: discovery finds it, and nothing
    imports the library until the adapter is used."""
    package = tmp_path / "more_scorers"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "fancy_adapter.py").write_text(
        textwrap.dedent(
            """
            from harness.scorers.base import Adapter


            class FancyAdapter(Adapter):
                name = "fancy"
                distribution = "fancy-bleu"
                module = "fancy_bleu_not_installed"
                profile = "sacrebleu"
            """
        ),
        encoding="utf-8",
    )
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from harness.scorers.registry import adapter_classes
        classes = adapter_classes("more_scorers")
        print([c.name for c in classes], "fancy_bleu_not_installed" in sys.modules)
        print(classes[0]().available().ok)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["['fancy']", "False", "False"]


def test_two_adapters_with_one_name_are_an_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    package = tmp_path / "twin_scorers"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for module in ("a_adapter", "b_adapter"):
        (package / f"{module}.py").write_text(
            "from harness.scorers.base import Adapter\n\n\n"
            "class Twin(Adapter):\n    name = 'twin'\n",
            encoding="utf-8",
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="two adapters are named 'twin'"):
        adapter_classes("twin_scorers")


# ------------------------------------------------------------------------------------ support
@pytest.mark.parametrize(
    "adapter", _adapters(), ids=lambda a: f"{a.name}{'+ptb' if getattr(a, 'ptb', False) else ''}"
)
def test_every_adapter_declares_every_field(adapter: Adapter) -> None:
    for config in (adapter.default_config(), PROFILES["sacrebleu"], PROFILES["nltk"]):
        rules = adapter.rules(config)
        assert list(rules) == list(dict.fromkeys(rules))
        assert sorted(rules) == sorted(FIELDS), set(rules) ^ set(FIELDS)
        assert all(isinstance(r, Rule) for r in rules.values())


@dataclasses.dataclass(frozen=True, kw_only=True)
class _WithNewFactor(BleuConfig):
    """A BleuConfig with one more factor, as a new field would add."""

    dummy_factor: str = "default"


def _with_new_factor(config: BleuConfig) -> BleuConfig:
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    return _WithNewFactor(**values)


@pytest.mark.parametrize(
    "adapter", _adapters(), ids=lambda a: f"{a.name}{'+ptb' if getattr(a, 'ptb', False) else ''}"
)
def test_a_field_an_adapter_does_not_mention_is_refused(adapter: Adapter) -> None:
    config = adapter.default_config()
    assert adapter.supports(config) == SUPPORTED
    extended = _with_new_factor(config)
    support = adapter.supports(extended)
    assert not support.ok and "dummy_factor" in support.reason and "refused" in support.reason
    with pytest.raises(UnsupportedSetting, match="dummy_factor"):
        adapter.corpus(SMALL, extended)
    outcome = score(adapter, SMALL, extended)
    if not adapter.available():  # the library is not here (evaluate without its module)
        assert outcome.status == "unavailable"
        return
    assert outcome.status == "unsupported" and "dummy_factor" in outcome.reason


def test_a_new_field_is_refused_by_the_command_adapter_and_the_engine() -> None:
    command = CommandAdapter("cat {hyp}", profile="multi-bleu")
    assert command.supports(PROFILES["multi-bleu"]).ok
    refused = command.supports(_with_new_factor(PROFILES["multi-bleu"]))
    assert not refused.ok and "dummy_factor" in refused.reason
    engine = EngineScorer("sacrebleu")
    assert engine.supports(PROFILES["sacrebleu"]).ok
    with pytest.raises(UnsupportedSetting, match="dummy_factor"):
        engine.corpus(SMALL, _with_new_factor(PROFILES["sacrebleu"]))


# ------------------------------------------------------------------------------------ outcomes
def test_one_status_vocabulary() -> None:
    assert PITFALL_STATUSES is STATUSES
    with pytest.raises(ValueError, match="unknown status"):
        Outcome("crashed")


def test_engine_scorer_is_the_engine() -> None:
    corpus = load_fixture("silence_pitfall").corpus("A")
    for name in ("sacrebleu", "sacrebleu-sentence", "nltk"):
        scorer = EngineScorer(name)
        outcome = score(scorer, corpus)
        direct = runner.run_one(
            corpus, runner.Implementation("profile", name), fixture="f", system="s"
        )[0]
        assert outcome.ok and outcome.result.score == direct.score
        assert outcome.result.implementation == f"harness:{name}" == direct.implementation
        segs = score(scorer, corpus, level="segment")
        assert [r.segment_id for r in segs.results] == list(corpus.ids)


def test_the_library_raising_is_one_outcome_for_runner_and_pitfalls(evaluate_module: Path) -> None:
    """evaluate divides by zero on all-empty hypotheses (evaluate#601): the real module raises,
    its profile predicts it; the runner's rows and the pitfalls' measurements say ``raises``
    for both, from the same outcome."""
    corpus = load_fixture("edge_empty_hypothesis").corpus("all_empty")
    library = get_adapter("evaluate", module=evaluate_module)
    observed = score(library, corpus)
    predicted = score(EngineScorer("evaluate"), corpus)
    assert observed.status == predicted.status == "raises"
    assert observed.exception == predicted.exception == "ZeroDivisionError"
    assert not observed.predicted and predicted.predicted
    assert observed.message.startswith("ZeroDivisionError: ")
    rows = runner.run_one(
        corpus,
        runner.Implementation("adapter", "evaluate"),
        fixture="f",
        system="s",
        adapter_cache={"evaluate": library},
    ) + runner.run_one(
        corpus, runner.Implementation("profile", "evaluate"), fixture="f", system="s"
    )
    assert [r.status for r in rows] == ["raises", "raises"]
    assert rows[0].error == observed.message and rows[1].error == predicted.message
    m = Measurement.of("evaluate", "all empty", observed)
    p = measure_profile("evaluate", corpus, case="all empty")
    assert (m.status, p.status) == ("raises", "raises")
    assert m.detail == observed.message and p.detail.startswith("ZeroDivisionError (")


def test_unavailable_unsupported_and_refused_outcomes(tmp_path: Path) -> None:
    missing = get_adapter("evaluate", module=tmp_path / "nowhere")
    gone = score(missing, SMALL)
    assert gone.status == "unavailable" and gone.fix and gone.message.endswith(f"(fix: {gone.fix})")
    assert Measurement.of("evaluate", "c", gone).detail == gone.message
    row = runner._rows("f", "s", runner.Implementation("adapter", "evaluate"), "corpus", gone)[0]
    assert (row.status, row.error, row.signature) == ("unavailable", gone.message, "")

    sacrebleu = get_adapter("sacrebleu")
    unsupported = score(sacrebleu, SMALL, PROFILES["sacrebleu"].replace(ref_length="shortest"))
    assert unsupported.status == "unsupported" and "closest" in unsupported.reason
    assert unsupported.signature  # the variant that was asked for

    refused = measure_profile("no-such-profile", SMALL, case="c")
    assert refused.status == "refused" and refused.detail.startswith("ConfigError: ")


class _NanAdapter(Adapter):
    """A stand-in library that returns NaN (not registered: it is not in harness.scorers)."""

    name = "nan-library"
    profile = "sacrebleu"
    module = "math"

    def rules(self, config: BleuConfig) -> dict[str, Rule]:
        return {name: Rule() for name in FIELDS}

    def _corpus(self, corpus: Corpus, config: BleuConfig):  # type: ignore[no-untyped-def]
        return self.result(
            config,
            score=math.nan,
            precisions=(),
            bp=math.nan,
            ratio=math.nan,
            hyp_len=1,
            ref_len=1,
            counts=None,
            totals=None,
        )


def test_a_non_finite_score_is_its_own_status_everywhere() -> None:
    assert "nan-library" not in ADAPTERS
    outcome = score(_NanAdapter(), SMALL)
    assert outcome.status == "non-finite" and outcome.reason == "nan"
    row = runner._rows("f", "s", runner.Implementation("adapter", "x"), "corpus", outcome)[0]
    assert row.status == "non-finite" and row.score is None
    assert Measurement.of("x", "c", outcome).status == "non-finite"
    segments = score(_NanAdapter(), SMALL, level="segment")
    rows = runner._rows("f", "s", runner.Implementation("adapter", "x"), "segment", segments)
    assert [r.status for r in rows] == ["non-finite"] * len(SMALL)
    runner.rows_to_jsonl(rows)  # strict JSON: no NaN


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ConfigError, match="level"):
        score(EngineScorer("sacrebleu"), SMALL, level="document")


# ------------------------------------------------------------------ corpus from segment results
def _nan_equal(a: object, b: object) -> bool:
    """Equality where NaN equals NaN (a statistic the library does not expose)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_nan_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_nan_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_a_corpus_built_from_segment_results_is_the_one_the_library_gives(
    evaluate_module: Path,
) -> None:
    """Where an adapter says its corpus result is built from its segment results
    (``corpus_from_segments``), it equals ``corpus()`` run by the library, for every library
    and both aggregations it supports; the runner then runs such a library once for both
    levels and writes the same rows."""
    fixture = load_fixture("tutorial_cat_on_the_mat")
    corpus = fixture.corpus(next(iter(fixture.systems)))
    derived = []
    for adapter in _adapters():
        if not adapter.available().ok:
            continue
        base = adapter.default_config()
        for cfg in (base, dataclasses.replace(base, aggregation="sentence-mean")):
            if not adapter.supports(cfg).ok:
                continue
            built = adapter.corpus_from_segments(adapter.segments(corpus, cfg), cfg)
            if built is not None:
                run = adapter.corpus(corpus, cfg)
                assert _nan_equal(dataclasses.asdict(built), dataclasses.asdict(run)), adapter.name
                derived.append((adapter.name, cfg.aggregation))
    names = {name for name, _ in derived}
    assert {"lm-eval-truthfulqa", "codexglue", "sacrebleu", "nltk"} <= names, derived
    assert "ignite" not in names  # its macro mean is its own float32 computation
    for name in ("lm-eval-truthfulqa", "codexglue", "nltk"):
        impl = runner.Implementation("adapter", name)
        both = runner.run_one(corpus, impl, fixture="f", system="s", levels=("corpus", "segment"))
        alone = runner.run_one(corpus, impl, fixture="f", system="s", levels=("corpus",))
        alone += runner.run_one(corpus, impl, fixture="f", system="s", levels=("segment",))
        assert _nan_equal(both, alone)
