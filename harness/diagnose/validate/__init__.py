"""Validate a BLEU implementation: which library does it reproduce, and where does it not?

:func:`validate` runs an implementation — a Python callable ``f(hypotheses, references)``
with per-segment references, a ``"module:function"`` string, or a shell command through
:class:`~harness.scorers.command.CommandAdapter` — on a battery of corpora: every shipped
fixture's systems plus ``cases`` corpora from a seeded generator (short and long segments,
repeated words, words inside other words, glued punctuation, mixed case, CJK, 1–3 ragged
references, some empty). It then

0. **checks the evidence**: a diagnosis is given only when the scores depend on the input as
   some configuration's do (:mod:`~.evidence`: not a constant, and rank-correlated with a
   configuration beyond what a permutation of the scores gives); otherwise the verdict is
   "not a BLEU implementation / ignores its input" and no factor is named;
1. **detects the scale**: a perfect match scores 1.0 on a 0–1 implementation and 100 on a
   0–100 one (falling back to whichever scale agrees with more profiles);
2. **compares with every profile** in :data:`harness.PROFILES` and every single-factor
   variant of sacrebleu (lowercase, each reference-length rule, each smoothing, each
   tokenizer, …): the share of cases on which the engine's score equals the implementation's
   (within ``tolerance``, on the implementation's scale) is the profile's *agreement*; a case
   on which both raise agrees;
3. **fits** and **reads**: from the best profile, a greedy search over single-factor changes
   and modelled mistakes finds the configuration that agrees on the most cases; then every
   profile as it is, with one factor changed, with one mistake, and with the fit's
   configuration, is tried (:mod:`~.readings`): the candidates that agree on the most cases in
   the fewest steps are the subject's equal *readings*, the answer leads with the first (the
   profile the subject's name mentions, else profile order), and a factor or mistake is
   *diagnosed* only when every reading needs it;
4. **explains deviations**: the first failing cases against the leading reading's profile,
   each shrunk to a minimal input (segments, references and tokens are removed greedily while
   the same disagreement persists) and given a ``factor``:

   * a factor of :data:`harness.analysis.attribution.FACTORS` when a configuration that
     differs from the best profile in that factor reproduces the case;
   * otherwise a bug outside the factor space, found by re-computing the statistics with one
     (or two) deliberate mistakes — ``clipping`` (sum over references, no clipping),
     ``ngram_extraction`` (``range(len - n)``, a stride of n), ``brevity_penalty``
     (``exp(1 - c/r)``, none), ``substring_counting`` (reference counts as substring counts);
   * otherwise the first failing **probe** (tiny hand-made inputs where only one behaviour
     matters: repeated words, segments of exactly n tokens, a hypothesis that is a prefix of a
     longer reference, ``he``/``she``, reference-length ties, zero 4-gram matches, glued
     punctuation, capitals) whose feature the case has; ``"unexplained"`` if none;

5. **collects crashes**: inputs that raise, shrunk, with the exception text.

Statistics are counted once per tokenization for all the cases together, and every
configuration is one arithmetic call on them for all the cases
(:class:`harness.diagnose.many_configs.CorporaScorer`), so a few hundred cases against ~60
configurations take a second or two for a fast implementation.

One module per concern, in the order a run uses them: :mod:`~.cases` (the battery),
:mod:`~.subjects` (calling the implementation), :mod:`~.variants` (the configurations
compared), :mod:`~.bugs` (modelled mistakes), :mod:`~.judge` (expected scores and agreement),
:mod:`~.evidence` (whether the scores depend on the input), :mod:`~.fit`, :mod:`~.readings`,
:mod:`~.probes`, :mod:`~.shrink`, :mod:`~.classify` (deviations and crashes),
:mod:`~.results` (the report's facts) and :mod:`~.run` (:func:`validate`). The report returns
facts (reason enums with their numbers and names); the plain-text report is
:func:`harness.report.validation.validation_text`, the words of each fact and the JSON
:mod:`harness.report.validation_words`.

>>> from harness.diagnose.homemade import sacrebleu_like
>>> r = validate(sacrebleu_like, cases=20)
>>> r.best_profile, r.agreement, r.scale
('sacrebleu', 1.0, '0-100')
"""

from __future__ import annotations

from harness.diagnose.validate.bugs import BUG_MODELS
from harness.diagnose.validate.cases import Case, generate_cases
from harness.diagnose.validate.evidence import (
    ALPHA,
    IGNORES_INPUT,
    MIN_CORRELATION,
    MIN_DISTINCT,
    Evidence,
    EvidenceFinding,
    Verdict,
    input_dependence,
)
from harness.diagnose.validate.probes import Probe
from harness.diagnose.validate.results import (
    Crash,
    Deviation,
    HowFound,
    ValidationReport,
    Withheld,
)
from harness.diagnose.validate.run import (
    MAX_ROUNDED_DECIMALS,
    MIN_SCORED,
    MIN_SCORED_SHARE,
    STOP_AFTER_FAILURES,
    CouldNotValidate,
    ValidateOptions,
    validate,
)
from harness.diagnose.validate.subjects import (
    DEFAULT_TIMEOUT,
    MAX_CONSECUTIVE_TIMEOUTS,
    NoScore,
)
from harness.diagnose.validate.variants import single_factor_variants

__all__ = [
    "ALPHA",
    "BUG_MODELS",
    "DEFAULT_TIMEOUT",
    "IGNORES_INPUT",
    "MAX_CONSECUTIVE_TIMEOUTS",
    "MAX_ROUNDED_DECIMALS",
    "MIN_CORRELATION",
    "MIN_DISTINCT",
    "MIN_SCORED",
    "MIN_SCORED_SHARE",
    "STOP_AFTER_FAILURES",
    "Case",
    "CouldNotValidate",
    "Crash",
    "Deviation",
    "Evidence",
    "EvidenceFinding",
    "HowFound",
    "NoScore",
    "Probe",
    "ValidateOptions",
    "ValidationReport",
    "Verdict",
    "Withheld",
    "generate_cases",
    "input_dependence",
    "single_factor_variants",
    "validate",
]
