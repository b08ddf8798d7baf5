"""Each profile's ``short`` name: the head of its column in the terminal's per-system table."""

from __future__ import annotations

from harness.analysis.labels import short_name
from harness.bleu.profile_spec import SHORT_WIDTH, Profile, Verification
from harness.bleu.profiles import DECLARED, PROFILES, SHORT_NAMES
from harness.report.console import COLUMN


def test_every_profile_has_its_own_column_head() -> None:
    """The per-system table heads a family by its first name's short name: each fits the
    column, and no two profiles share one (codesum-dc and codesum-dcom cut to the same ten
    characters would make a column unreadable)."""
    heads = {p.name: p.short for p in DECLARED}
    assert COLUMN == SHORT_WIDTH
    too_long = {name: head for name, head in heads.items() if len(head) > COLUMN}
    assert not too_long
    assert len(set(heads.values())) == len(heads), heads
    assert dict(SHORT_NAMES) == heads and set(SHORT_NAMES) == set(PROFILES)


def test_a_profile_without_a_short_name_is_headed_by_its_name() -> None:
    plain = Profile(
        "plain", PROFILES["sacrebleu"], Verification("verified", "", ""), "", "", "", ""
    )
    assert plain.short == "plain"
    named = Profile(
        "a-long-name", PROFILES["sacrebleu"], Verification("verified", "", ""), "", "", "", "",
        short="long",
    )  # fmt: skip
    assert named.short == "long"
    assert short_name("sacrebleu-sentence") == "sacre-sent"
    assert short_name("sacrebleu") == "sacrebleu"
    assert short_name("not-a-profile-at-all") == "not-a-profile-at-all"
