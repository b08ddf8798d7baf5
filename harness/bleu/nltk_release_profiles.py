"""Versioned profiles: nltk's ``corpus_bleu`` as older releases computed it.

Each profile is named ``nltk@<release>`` (``nltk@3.5`` is ``corpus_bleu`` of nltk 3.5), states
the releases it covers (:attr:`~harness.bleu.profile_spec.Profile.releases`), is run only when
named, and says its release in its signature (``release:nltk=3.4..3.4.5``). Each is today's
``nltk`` profile with the smoothing methods in the release's own forms (``smooth_forms``,
:mod:`harness.bleu.nltk_release_smoothing`), so it composes with the usual overrides:
``profile="nltk@3.5", smooth="nltk-method4"`` is nltk 3.5's method 4, and
``aggregation="sentence-mean"`` the mean of its ``sentence_bleu``. The default, method 0, is
today's from 3.3 on: ``nltk@3.3``–``nltk@3.6`` differ from ``nltk`` only under the other
methods. Measured by running the releases themselves
(``tests/test_profile_nltk_releases.py``; their ``bleu_score.py`` up to 3.5, whose package does
not import on this Python, run from its file with the installed nltk's other modules).

The ranges: 3.2 alone (``nltk@3.2.0``: besides its forms, each segment's precision in lowest
terms before the corpus sums, ``ngram_totals="reduced"``; no unigram guard; an empty
hypothesis side raises, ``on_zero_length="hypothesis-raises"``); 3.2.2–3.2.5 answer alike
(3.2.1 is not covered); 3.3 alone; 3.4–3.4.5; 3.5 alone; 3.6–3.6.5 (3.6.6 on is today's
``nltk``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.bleu.profile_spec import NLTK, Profile, Verification, release_extra

__all__ = ["NLTK_RELEASE_PROFILES"]

_TESTS = "tests/test_profile_nltk_releases.py"


@dataclass(frozen=True)
class _Range:
    """Releases with the same numbers: the profile's tag (``3.4``), first and last release
    (``None``: one release), the release the tests run at every depth and the others they run
    at full depth; ``config``: the release's other factors, as ``BleuConfig`` fields."""

    tag: str
    first: str
    last: str | None
    tested: str
    also: str
    config: tuple[tuple[str, Any], ...] = ()

    @property
    def releases(self) -> str:
        return self.first if self.last is None else f"{self.first}–{self.last}"

    def profile(self, smoothing: str) -> Profile:
        """``corpus_bleu`` of these releases: the ``nltk`` profile in their smoothing forms."""
        also = f"; {self.also} under BLEU_HARNESS_TEST_DEPTH=full" if self.also else ""
        return Profile(
            f"nltk@{self.tag}",
            NLTK.replace(
                smooth_forms=f"nltk-{self.tag}",
                extra=release_extra("nltk", self.first, self.last),
                **dict(self.config),
            ),
            Verification(
                "verified",
                f"nltk {self.tested} corpus_bleu / sentence_bleu, methods 0–7 (its "
                f"bleu_score.py from the package index, run in a process of its own{also})",
                _TESTS,
            ),
            reproduces=f"nltk {self.releases} `corpus_bleu` (method0)",
            tokens="whitespace",
            ref_length="closest",
            smoothing=f"{smoothing} (`smooth_forms=nltk-{self.tag}`)",
            short=f"nltk@{self.tag}",
            releases=self.releases,
            versioned=True,
        )


_RAISES = "an order left at 0 raises `ValueError` (`math.log(0)`)"
_OLD_2 = "method2 +1 on unigrams too"
_DIV = "a length of 1 raises `ZeroDivisionError`"

#: The versioned nltk profiles, oldest first.
NLTK_RELEASE_PROFILES: tuple[Profile, ...] = (
    _Range(
        "3.2.0",
        "3.2",
        None,
        "3.2",
        "",
        (
            ("ngram_totals", "reduced"),
            ("zero_guard", "none"),
            ("on_zero_length", "hypothesis-raises"),
        ),
    ).profile(
        "each segment's precisions in lowest terms before the corpus sums them "
        "(`ngram_totals=reduced`), the corpus's again before smoothing; every order at 0 left "
        "out of the geometric mean (a corpus without a match scores its brevity penalty; "
        "`sentence_bleu` scores 0 when the rest are 1); method1 `epsilon`, method2 `+1` on "
        "the reduced fraction, method3 `1 / 2^j`, method4/7 `j k / ln L`, L the last "
        f"segment's length; method6 on precisions, the first order too; {_DIV}; an empty "
        "hypothesis side raises `ZeroDivisionError`"
    ),
    _Range("3.2", "3.2.2", "3.2.5", "3.2.5", "3.2.2, 3.2.3, 3.2.4").profile(
        "method0 leaves the orders without a match out of the geometric mean "
        f"(`sentence_bleu([['a']], ['a'])` = 1); {_OLD_2}; method4/7 `1 / (i + k / ln L)`, "
        f"L the last segment's length; {_DIV}; {_RAISES}"
    ),
    _Range("3.3", "3.3", None, "3.3.0", "").profile(
        f"method0 as today; {_OLD_2}; method4/7 `1 / (i + k / ln L)`, L the last segment's "
        f"length; {_DIV}; {_RAISES}"
    ),
    _Range("3.4", "3.4", "3.4.5", "3.4.5", "3.4").profile(
        f"{_OLD_2}; method4/7 `1 / (i + k / ln L)`, L the corpus's length; {_DIV}; {_RAISES}"
    ),
    _Range("3.5", "3.5", None, "3.5", "").profile(
        f"{_OLD_2}; method4/7 `(i + k / ln L) / total` (precisions above 1); {_DIV}; {_RAISES}"
    ),
    _Range("3.6", "3.6", "3.6.5", "3.6.5", "3.6, 3.6.2").profile(
        f"as today, but method4 on a length of 1 leaves its orders at 0: {_RAISES}"
    ),
)
