"""Paired bootstrap and approximate randomisation on cached statistics (issue 5, item 5).

Three kinds of checks:

* **exactness of the fast path**: the resampled corpus sums ``C @ M`` equal the engine's
  :func:`~harness.bleu.engine.totals_of` of the resampled corpus, the vectorised scorer equals
  :func:`~harness.bleu.engine.score_totals` on many random rows (1e-9 BLEU points), and every
  resampled or swapped score equals the engine's score of that corpus, for several profiles
  (nltk's last-segment methods and sentence-mean included);
* **behaviour**: seeded reproducibility, identical systems (p = 1, delta 0; sacrebleu's strict
  rule gives 1/(R+1)), a clearly better system (smallest possible p), bad input;
* **sacrebleu 2.6 cross-check** on a synthetic pair and on WMT21 en→de (realdata).

Tolerances of the sacrebleu cross-check
---------------------------------------
*Same stream.* With seed 12345 (sacrebleu's default) both draw the same resamples
(``rng.choice(S, size=(R, S))``) and the same AR swaps (``rng.integers(2, (T, S), bool)``), so the
numbers agree up to arithmetic: corpus scores to 1e-9; sacrebleu sums bootstrap statistics in
float32 and its precisions become float32, which moves each resampled score by ~1e-7 relative
(< 1e-5 BLEU), so means and CI half-widths agree to 1e-4; p-values are counts of resamples
beyond the observed difference, equal unless a centred difference lies within ~1e-5 of it, so
we allow one resample's worth, 1/(R+1) (observed: equal). AR statistics are exact in both.

*Independent streams* (sacrebleu with ``SACREBLEU_SEED=777``). A p-value estimated from R
resamples has standard error sqrt(p(1-p)/R); two independent estimates differ with standard
error sqrt(2 p(1-p)/R), so we allow 4 of those plus 1/R (the +1 correction and the
discreteness). A mean of R resampled scores with spread σ has standard error σ/sqrt(R), the
difference of two σ sqrt(2/R): allowed 4σ sqrt(2/R). An interval endpoint is the q = 0.025
sample quantile, standard error sqrt(q(1-q)/R) / φ(Φ⁻¹(q)) · σ ≈ 0.085σ for R = 1000 (normal
approximation of the bootstrap distribution); the half-width's error is at most that
(two endpoints, each halved), the difference of two runs' half-widths at most √2 times it:
allowed 4√2 · 0.085σ ≈ 0.48σ. σ is estimated from our interval as half-width / 1.96.
"""

from __future__ import annotations

import json
import math
import random
import zlib

import numpy as np
import pytest
from scipy.stats import norm

from harness.analysis import significance as sg
from harness.bleu import engine
from harness.bleu.config import ENGINE_VERSION, BleuConfig
from harness.bleu.profiles import PROFILES, get_profile
from harness.bleu.stats import Statistics
from harness.data.corpus import Corpus
from harness.errors import ConfigError, LayoutError, LibraryWouldRaise
from harness.session import Session
from harness.statistics import resampling as rs
from harness.typed_json import to_json
from tests.depth import cases

SACREBLEU = get_profile("sacrebleu")


# ============================================================================ corpora
def synthetic_pair(
    n: int, seed: int, p_base: float = 0.33, p_sys: float = 0.31, refs: int = 2
) -> tuple[Corpus, Corpus]:
    """Two seeded systems: reference 1 with words replaced (p_base / p_sys) or dropped (5%)."""
    rnd = random.Random(seed)
    vocab = [f"w{i}" for i in range(400)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]

    def sentence() -> list[str]:
        return rnd.choices(vocab, weights, k=rnd.randint(3, 25))

    def noisy(words: list[str], p_sub: float) -> str:
        out = []
        for w in words:
            u = rnd.random()
            if u < 0.05:
                continue
            out.append(rnd.choice(vocab) if u < 0.05 + p_sub else w)
        return " ".join(out)

    segs = [[sentence() for _ in range(refs)] for _ in range(n)]
    references = tuple(tuple(" ".join(r) for r in seg) for seg in segs)
    base = tuple(noisy(seg[0], p_base) for seg in segs)
    other = tuple(noisy(seg[0], p_sys) for seg in segs)
    return (
        Corpus(hypotheses=base, references=references),
        Corpus(hypotheses=other, references=references),
    )


def ragged_corpus(n: int, seed: int) -> Corpus:
    """Short segments (0–6 words, small vocabulary) with 1–3 ragged references, some empty."""
    rnd = random.Random(seed)
    vocab = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran"]

    def words(lo: int, hi: int) -> str:
        return " ".join(rnd.choices(vocab, k=rnd.randint(lo, hi)))

    return Corpus(
        hypotheses=tuple(words(0, 6) for _ in range(n)),
        references=tuple(tuple(words(0, 7) for _ in range(rnd.randint(1, 3))) for _ in range(n)),
    )


@pytest.fixture(scope="module")
def pair() -> tuple[Statistics, Statistics]:
    a, b = synthetic_pair(400, seed=7)
    return engine.compute_statistics(a, SACREBLEU), engine.compute_statistics(b, SACREBLEU)


# ============================================================================ exactness
MATRIX_CONFIGS = [
    SACREBLEU,
    *(SACREBLEU.replace(ref_length=rule) for rule in ("shortest", "closest-first", "longest")),
    SACREBLEU.replace(ref_length="longest-unless-exact", ngram_totals="floor1"),
    SACREBLEU.replace(ref_length="average"),
]


@pytest.mark.parametrize("config", MATRIX_CONFIGS, ids=lambda c: f"{c.ref_length}/{c.ngram_totals}")
def test_resampled_sums_equal_engine_totals(config: BleuConfig) -> None:
    """``C @ M`` row r == ``totals_of(stats.subset(indices[r]))``: exact for integer rules."""
    stats = engine.compute_statistics(ragged_corpus(120, seed=3), config)
    m = sg.sufficient_matrix(stats, config)
    indices = rs.resample_indices(len(stats), 40, np.random.default_rng(5))
    for dtype in (np.float64, np.float32):
        sums = rs.counts_from_indices(indices, len(stats), dtype=dtype) @ m.astype(dtype)
        for r in range(len(indices)):
            want = engine.totals_of(stats.subset(indices[r]), config)
            got = sg.row_totals(sums[r], config)
            assert (got.sys_len, got.correct, got.total) == (want.sys_len, want.correct, want.total)
            if config.ref_length == "average":
                assert math.isclose(
                    float(sums[r, 1]), want.ref_len, rel_tol=1e-6 if dtype is np.float32 else 1e-12
                )
            else:
                assert got.ref_len == want.ref_len
    if config.ref_length != "average":
        assert sg.row_totals(m.sum(axis=0), config) == engine.totals_of(stats, config)


def _scorer_configs() -> dict[str, BleuConfig]:
    out = {name: cfg for name, cfg in PROFILES.items() if not cfg.smooth.startswith("nltk-")}
    for smooth in ("none", "floor", "add-k", "exp", "plus-one", "plus-one-high", "coco-epsilon"):
        for eff in (False, True):
            for guard in ("none", "unigram", "any-order"):
                out[f"{smooth}/eff={eff}/guard={guard}"] = SACREBLEU.replace(
                    smooth=smooth, effective_order=eff, zero_guard=guard
                )
        out[f"{smooth}/empty=one"] = SACREBLEU.replace(smooth=smooth, empty_order="one")
    out["weights"] = SACREBLEU.replace(weights=(0.5, 0.5, 0.0, 0.0))
    out["weights/eff"] = SACREBLEU.replace(weights=(0.4, 0.3, 0.2, 0.1), effective_order=True)
    out["n=2"] = SACREBLEU.replace(max_order=2, smooth="floor", smooth_value=0.3)
    out["n=6/add-k=0.5/eff"] = SACREBLEU.replace(
        max_order=6, smooth="add-k", smooth_value=0.5, effective_order=True
    )
    out["average"] = SACREBLEU.replace(ref_length="average")
    return out


def _random_rows(rng: np.random.Generator, count: int, n: int, positive: bool) -> np.ndarray:
    low = 1 if positive else 0
    sys_len = rng.integers(low, 40, count)
    ref_len = rng.integers(low, 40, count)
    total = np.maximum(0, sys_len[:, None] - np.arange(n)[None, :])
    correct = np.minimum(total, (rng.random((count, n)) * (total + 1)).astype(np.int64))
    correct[rng.random((count, n)) < 0.2] = 0  # many zero-match orders
    return np.column_stack([sys_len, ref_len, correct, total]).astype(np.float64)


@pytest.mark.parametrize("name", sorted(_scorer_configs()))
def test_vectorised_scorer_equals_engine(name: str) -> None:
    """score_rows == engine.score_totals row by row (1e-9), on 2000 rows full of zeros (fewer
    below full depth)."""
    config = _scorer_configs()[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    # Profiles whose library raises on a zero length get positive lengths (tested below).
    count = cases(2000, minimum=200)
    rows = _random_rows(rng, count, config.max_order, positive=config.on_zero_length != "zero")
    if config.ref_length == "average":
        rows[:, 1] += rng.random(len(rows))
    fast = sg.score_rows(rows, config)
    slow = sg.score_rows(rows, config, use_engine=True)
    assert np.max(np.abs(fast - slow)) <= 1e-9
    assert np.all((fast >= 0) & (fast <= 100 + 1e-9))


@pytest.mark.parametrize("profile", ["evaluate", "mteval-v13a", "multi-bleu"])
def test_vectorised_scorer_raises_like_the_engine(profile: str) -> None:
    config = get_profile(profile)
    rows = _random_rows(np.random.default_rng(1), 50, 4, positive=True)
    rows[17, 0] = 0  # an empty hypothesis side
    rows[17, 2:] = 0
    with pytest.raises(LibraryWouldRaise) as fast:
        sg.score_rows(rows, config)
    with pytest.raises(LibraryWouldRaise) as slow:
        sg.score_rows(rows, config, use_engine=True)
    assert str(fast.value) == str(slow.value)


RESAMPLE_CONFIGS = {
    "sacrebleu": SACREBLEU,
    "sacrebleu-sentence": get_profile("sacrebleu-sentence"),
    "nltk": get_profile("nltk"),
    "nltk-method4": get_profile("nltk").replace(smooth="nltk-method4"),
    "nltk-method7": get_profile("nltk").replace(smooth="nltk-method7"),
    "torchmetrics": get_profile("torchmetrics"),
    "pycocoevalcap": get_profile("pycocoevalcap"),
    "average/floor": SACREBLEU.replace(ref_length="average", smooth="floor"),
}


@pytest.mark.parametrize("name", sorted(RESAMPLE_CONFIGS))
def test_resampled_and_swapped_scores_equal_engine(name: str) -> None:
    """Every bootstrap resample and AR pseudo-system scores as the engine scores that corpus."""
    _resampled_and_swapped_equal_engine(RESAMPLE_CONFIGS[name], *synthetic_pair(60, seed=11))


def test_resamples_of_short_outputs_read_their_own_longest_output() -> None:
    """opik's CorpusBLEU cuts its weights to the longest output of the corpus it scores: each
    resample and pseudo-system of outputs under four words is scored on its own longest."""
    rnd = random.Random(4)
    vocab = ["a", "b", "c", "d"]

    def line(most: int) -> str:
        return " ".join(rnd.choices(vocab, k=rnd.randint(1, most)))

    # one output of three words, the others of one or two: a resample without it is BLEU-2
    refs = tuple((line(4),) for _ in range(12))
    ca, cb = (
        Corpus(hypotheses=("a b c", *(line(2) for _ in refs[1:])), references=refs)
        for _ in range(2)
    )
    _resampled_and_swapped_equal_engine(get_profile("opik-corpus-bleu"), ca, cb)


def _resampled_and_swapped_equal_engine(config: BleuConfig, ca: Corpus, cb: Corpus) -> None:
    sa, sb = engine.compute_statistics(ca, config), engine.compute_statistics(cb, config)
    ta, tb = sg.prepare(sa, config), sg.prepare(sb, config)
    assert ta.score == pytest.approx(engine.score_statistics(sa, config).score, abs=1e-9)
    rng = np.random.default_rng(3)

    indices = rs.resample_indices(len(sa), 25, rng)
    base, other = sg.paired_resampled_scores(ta, tb, indices)
    for r in range(len(indices)):
        assert base[r] == pytest.approx(
            engine.score_statistics(sa.subset(indices[r]), config).score, abs=1e-9
        )
        assert other[r] == pytest.approx(
            engine.score_statistics(sb.subset(indices[r]), config).score, abs=1e-9
        )

    swap = rng.integers(2, size=(25, len(sa)), dtype=bool)
    pseudo_a, pseudo_b = sg.swapped_scores(ta, tb, swap)
    for t in range(len(swap)):
        for got, take_base in ((pseudo_a[t], swap[t]), (pseudo_b[t], ~swap[t])):
            mixed = Statistics(
                hyp_len=np.where(take_base, sa.hyp_len, sb.hyp_len),
                ref_lens=sa.ref_lens,
                matches=np.where(take_base[:, None], sa.matches, sb.matches),
                ids=sa.ids,
                tokenization=sa.tokenization,
            )
            assert got == pytest.approx(engine.score_statistics(mixed, config).score, abs=1e-9)


def test_percentile_interval_is_sacrebleus_for_95() -> None:
    """k = floor(R (1 - confidence) / 2) is sacrebleu's R // 40 at confidence 0.95."""
    for r in (1, 39, 40, 41, 999, 1000, 1001, 4000):
        scores = np.random.default_rng(r).random(r)
        s = np.sort(scores)
        assert rs.percentile_interval(scores, 0.95) == (s[r // 40], s[r - r // 40 - 1])


# ============================================================================ behaviour
def test_seeded_reproducibility(pair) -> None:
    sa, sb = pair
    one = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=300, seed=99)
    two = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=300, seed=99)
    assert to_json(one) == to_json(two)
    other = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=300, seed=100)
    assert other.ci_system != one.ci_system
    assert "seed:99" in one.signature and one.signature.endswith(
        f"|version:engine={ENGINE_VERSION}"
    )
    assert one.signature.startswith(SACREBLEU.signature().rpartition("|version:")[0])

    ar1 = sg.approximate_randomization(sa, sb, SACREBLEU, trials=500, seed=3)
    ar2 = sg.approximate_randomization(sa, sb, SACREBLEU, trials=500, seed=3)
    assert to_json(ar1) == to_json(ar2)
    assert "test:paired-ar|ar:500|seed:3" in ar1.signature

    fresh = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=100, seed=None)
    again = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=100, seed=fresh.seed)
    assert isinstance(fresh.seed, int) and to_json(fresh) == to_json(again)
    assert sg.DEFAULT_SEED == 12345
    assert sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=10).seed == 12345


def test_global_rng_untouched(pair) -> None:
    sa, sb = pair
    np.random.seed(0)
    before = np.random.random()
    np.random.seed(0)
    sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=50)
    sg.approximate_randomization(sa, sb, SACREBLEU, trials=50)
    assert np.random.random() == before


@pytest.mark.parametrize("profile", ["sacrebleu", "sacrebleu-sentence", "nltk"])
def test_identical_systems(profile: str) -> None:
    """p = 1 and delta = 0; sacrebleu's strict rule gives the smallest p instead."""
    config = get_profile(profile)
    a, _ = synthetic_pair(150, seed=5)
    stats = engine.compute_statistics(a, config)
    bs = sg.paired_bootstrap(stats, stats, config, resamples=400)
    ar = sg.approximate_randomization(stats, stats, config, trials=800, ci_resamples=100)
    for res in (bs, ar):
        assert res.delta == 0.0 and res.p_value == 1.0
        assert res.ci_system == res.ci_baseline
        assert res.mean_system == res.mean_baseline
        assert res.n_segments == 150
    strict = sg.paired_bootstrap(stats, stats, config, resamples=400, ties="strict")
    assert strict.p_value == 1 / 401
    strict = sg.approximate_randomization(stats, stats, config, trials=800, ties="strict")
    assert strict.p_value == 1 / 801


def test_clearly_better_system() -> None:
    """The reference itself against a noisy system: every resample and trial agrees."""
    noisy, _ = synthetic_pair(200, seed=8, p_base=0.4)
    perfect = Corpus(hypotheses=tuple(r[0] for r in noisy.references), references=noisy.references)
    sa = engine.compute_statistics(noisy, SACREBLEU)
    sb = engine.compute_statistics(perfect, SACREBLEU)
    bs = sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=500)
    ar = sg.approximate_randomization(sa, sb, SACREBLEU, trials=2000)
    assert bs.score_system == pytest.approx(100.0)
    assert bs.delta > 30
    assert bs.p_value == 1 / 501 and ar.p_value == 1 / 2001
    assert bs.ci_system == pytest.approx((100.0, 100.0))
    assert bs.ci_baseline[1] < bs.ci_system[0]


def test_close_systems_are_not_significant(pair) -> None:
    sa, sb = pair
    res = sg.paired_bootstrap(sa, sb, SACREBLEU)
    assert abs(res.delta) < 3
    assert 0.0 < res.p_value <= 1.0
    assert res.ci_system[0] <= res.mean_system <= res.ci_system[1]
    assert res.ci_system[0] < res.score_system < res.ci_system[1]


def test_result_json_is_plain_json(pair) -> None:
    sa, sb = pair
    for res in (
        sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=100),
        sg.approximate_randomization(sa, sb, SACREBLEU, trials=100, ci_resamples=0),
    ):
        d = json.loads(json.dumps(to_json(res)))
        for key in ("score_baseline", "score_system", "delta", "p_value", "ci_system", "seed"):
            assert key in d
        assert d["delta"] == pytest.approx(d["score_system"] - d["score_baseline"])
    assert d["method"] == "approximate-randomization" and d["ci_system"] is None


def test_prepared_tables_are_reused(pair) -> None:
    sa, sb = pair
    ta, tb = sg.prepare(sa, SACREBLEU), sg.prepare(sb, SACREBLEU)
    assert to_json(sg.paired_bootstrap(ta, tb, SACREBLEU, resamples=200)) == (
        to_json(sg.paired_bootstrap(sa, sb, SACREBLEU, resamples=200))
    )
    with pytest.raises(ConfigError, match="another config"):
        sg.paired_bootstrap(ta, tb, SACREBLEU.replace(smooth="floor"))


def test_bad_input(pair) -> None:
    sa, sb = pair
    with pytest.raises(LayoutError, match="same segments"):
        sg.paired_bootstrap(sa, sb.subset(range(10)), SACREBLEU)
    other_refs = engine.compute_statistics(ragged_corpus(400, seed=1), SACREBLEU)
    with pytest.raises(LayoutError, match="different references"):
        sg.paired_bootstrap(sa, other_refs, SACREBLEU)
    with pytest.raises(ConfigError, match="tokenizes"):
        sg.paired_bootstrap(sa, sb, SACREBLEU.replace(tokenize="char"))
    for kwargs in ({"confidence": 1.5}, {"ties": "loose"}, {"resamples": 0}, {"seed": -1}):
        with pytest.raises(ConfigError):
            sg.paired_bootstrap(sa, sb, SACREBLEU, **kwargs)
    with pytest.raises(ConfigError):
        sg.approximate_randomization(sa, sb, SACREBLEU, ci_resamples=-1)


def test_significance_from_files(tmp_path) -> None:
    a, b = synthetic_pair(80, seed=2)
    paths = {}
    for name, lines in (
        ("base", a.hypotheses),
        ("sys", b.hypotheses),
        ("ref0", [r[0] for r in a.references]),
        ("ref1", [r[1] for r in a.references]),
    ):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    refs = [paths["ref0"], paths["ref1"]]
    res = sg.significance_from_files(
        paths["base"], paths["sys"], refs, test=sg.PairedTest(resamples=200), session=Session()
    )
    direct = sg.paired_bootstrap(
        engine.compute_statistics(a, SACREBLEU),
        engine.compute_statistics(b, SACREBLEU),
        SACREBLEU,
        resamples=200,
    )
    assert to_json(res) == to_json(direct)
    ar = sg.significance_from_files(
        paths["base"],
        paths["sys"],
        refs,
        test=sg.PairedTest(method="ar", seed=4),
        session=Session(),
    )
    assert ar.resamples == 10000 and ar.seed == 4
    assert json.loads(json.dumps(to_json(ar)))["p_value"] == ar.p_value
    with pytest.raises(ConfigError, match="unknown method"):
        sg.significance_from_files(
            paths["base"],
            paths["sys"],
            refs,
            test=sg.PairedTest(method="t-test"),
            session=Session(),
        )
    with pytest.raises(ConfigError, match="unknown profile"):
        sg.significance_from_files(
            paths["base"], paths["sys"], refs, profile="nope", session=Session()
        )
    short = tmp_path / "short.txt"
    short.write_text("a b c\n", encoding="utf-8")
    with pytest.raises(LayoutError):
        sg.significance_from_files(paths["base"], short, refs, session=Session())


# ============================================================================ sacrebleu
def _sacrebleu_paired(
    base: Corpus, other: Corpus, kind: str, samples: int
) -> tuple[object, object]:
    """sacrebleu's own PairedTest (CLI: ``sacrebleu REF... -i BASE SYS --paired-bs``)."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    streams = [list(s) for s in zip(*base.references, strict=True)]
    named = [("baseline", list(base.hypotheses)), ("system", list(other.hypotheses))]
    _sigs, scores = PairedTest(
        named, {"BLEU": BLEU()}, streams, test_type=kind, n_samples=samples
    )()
    return scores["BLEU"][0], scores["BLEU"][1]


def _quantile_se(q: float, resamples: int) -> float:
    """Standard error of the q sample quantile of R normal draws, in units of σ."""
    return math.sqrt(q * (1 - q) / resamples) / norm.pdf(norm.ppf(q))


def _check_against_sacrebleu(
    base: Corpus, other: Corpus, monkeypatch, *, ar_trials: int = 10000
) -> dict[str, float]:
    """Run both tests in both implementations; return the numbers for the report."""
    resamples = 1000
    sa = engine.compute_statistics(base, SACREBLEU)
    sb = engine.compute_statistics(other, SACREBLEU)
    ta, tb = sg.prepare(sa, SACREBLEU), sg.prepare(sb, SACREBLEU)
    ours = sg.paired_bootstrap(ta, tb, SACREBLEU, resamples=resamples, ties="strict")
    ours_ar = sg.approximate_randomization(
        ta, tb, SACREBLEU, trials=ar_trials, ties="strict", ci_resamples=0
    )

    # Same stream (seed 12345 on both sides).
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    sb_base, sb_sys = _sacrebleu_paired(base, other, "bs", resamples)
    assert ours.score_baseline == pytest.approx(sb_base.score, abs=1e-9)
    assert ours.score_system == pytest.approx(sb_sys.score, abs=1e-9)
    assert abs(ours.p_value - sb_sys.p_value) <= 1 / (resamples + 1)
    assert ours.mean_system == pytest.approx(sb_sys.mean, abs=1e-4)
    assert ours.mean_baseline == pytest.approx(sb_base.mean, abs=1e-4)
    assert ours.ci_halfwidth_system == pytest.approx(sb_sys.ci, abs=1e-4)
    assert ours.ci_halfwidth_baseline == pytest.approx(sb_base.ci, abs=1e-4)
    _, sb_ar = _sacrebleu_paired(base, other, "ar", ar_trials)
    assert abs(ours_ar.p_value - sb_ar.p_value) <= 1 / (ar_trials + 1)
    # The default tie rule differs from sacrebleu's only on exact ties.
    assert sg.paired_bootstrap(ta, tb, SACREBLEU).p_value == pytest.approx(ours.p_value)

    # Independent streams: Monte-Carlo tolerances (module docstring).
    monkeypatch.setenv("SACREBLEU_SEED", "777")
    sb_base2, sb_sys2 = _sacrebleu_paired(base, other, "bs", resamples)
    _, sb_ar2 = _sacrebleu_paired(base, other, "ar", ar_trials)
    for p_ours, p_theirs, n in (
        (ours.p_value, sb_sys2.p_value, resamples),
        (ours_ar.p_value, sb_ar2.p_value, ar_trials),
    ):
        p_bar = (p_ours + p_theirs) / 2
        assert abs(p_ours - p_theirs) <= 4 * math.sqrt(2 * p_bar * (1 - p_bar) / n) + 1 / n
    for ours_mean, ours_half, theirs in (
        (ours.mean_system, ours.ci_halfwidth_system, sb_sys2),
        (ours.mean_baseline, ours.ci_halfwidth_baseline, sb_base2),
    ):
        sigma = ours_half / norm.ppf(0.975)
        assert abs(ours_mean - theirs.mean) <= 4 * sigma * math.sqrt(2 / resamples)
        assert (
            abs(ours_half - theirs.ci) <= 4 * math.sqrt(2) * _quantile_se(0.025, resamples) * sigma
        )
    return {
        "score_diff": abs(ours.score_system - sb_sys.score),
        "p_bs": ours.p_value,
        "p_bs_sacrebleu": sb_sys.p_value,
        "p_bs_sacrebleu_777": sb_sys2.p_value,
        "p_ar": ours_ar.p_value,
        "p_ar_sacrebleu": sb_ar.p_value,
        "p_ar_sacrebleu_777": sb_ar2.p_value,
    }


def test_sacrebleu_cross_check_synthetic(monkeypatch, capsys) -> None:
    base, other = synthetic_pair(500, seed=21, p_base=0.33, p_sys=0.32)
    numbers = _check_against_sacrebleu(base, other, monkeypatch, ar_trials=5000)
    with capsys.disabled():
        print(f"\nsynthetic 500 segments vs sacrebleu: {numbers}")


def test_sacrebleu_identical_systems_quirk(monkeypatch) -> None:
    """sacrebleu calls a system significantly different from itself: p = 1/(R+1)."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    base, _ = synthetic_pair(100, seed=4)
    stats = engine.compute_statistics(base, SACREBLEU)
    _, sb_bs = _sacrebleu_paired(base, base, "bs", 1000)
    _, sb_ar = _sacrebleu_paired(base, base, "ar", 2000)
    assert sb_bs.p_value == sg.paired_bootstrap(stats, stats, SACREBLEU, ties="strict").p_value
    assert sb_ar.p_value == (
        sg.approximate_randomization(stats, stats, SACREBLEU, trials=2000, ties="strict").p_value
    )
    assert (sb_bs.p_value, sb_ar.p_value) == (1 / 1001, 1 / 2001)


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("baseline", "system"), [("Online-B", "UF"), ("VolcTrans-AT", "eTranslation")]
)
def test_sacrebleu_cross_check_wmt21(data_dir, monkeypatch, capsys, baseline, system) -> None:
    """WMT21 en→de, 1002 segments, references A, C, D."""
    from harness.data.datasets import load_wmt21_ende

    corpora = load_wmt21_ende(data_dir, systems=[baseline, system])
    numbers = _check_against_sacrebleu(corpora[baseline], corpora[system], monkeypatch)
    with capsys.disabled():
        print(f"\nWMT21 {baseline} vs {system} vs sacrebleu: {numbers}")


# ------------------------------------------------------------------ several pairs, one draw
@pytest.mark.parametrize("profile", ["sacrebleu", "nltk", "sacrebleu-sentence", "parlai"])
def test_paired_p_values_equal_one_paired_bootstrap_per_pair(profile: str) -> None:
    """Sharing one draw of resamples across pairs gives each pair exactly the p-value of its
    own paired bootstrap at the same seed (every profile kind: totals, nltk context, means)."""
    rng = random.Random(zlib.crc32(profile.encode()))
    words = "the a cat dog sat on mat house is was big small red".split()
    refs = tuple(
        (" ".join(rng.choice(words) for _ in range(rng.randint(2, 9))),) for _ in range(30)
    )
    systems = {
        f"s{k}": Corpus(
            hypotheses=tuple(
                " ".join(w if rng.random() < 0.7 else rng.choice(words) for w in r[0].split())
                for r in refs
            ),
            references=refs,
        )
        for k in range(4)
    }
    config = get_profile(profile)
    session = Session(systems)
    tables = {n: sg.prepare(session.statistics(config, n), config) for n in systems}
    pairs = [("s0", "s1"), ("s2", "s0"), ("s1", "s3"), ("s3", "s2")]
    for seed in (0, 12345):
        shared = sg.paired_p_values(tables, pairs, config, resamples=200, seed=seed)
        alone = [
            sg.paired_bootstrap(tables[a], tables[b], config, resamples=200, seed=seed).p_value
            for a, b in pairs
        ]
        assert list(shared) == alone
    assert sg.paired_p_values(tables, [], config) == ()
