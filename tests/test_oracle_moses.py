"""Differential tests: the Moses profiles against the original Perl scripts.

``mteval-v13a`` is checked against ``mteval-v13a.pl`` (with and without ``-c``), at corpus
level (document scores) and segment level; ``multi-bleu`` / ``multi-bleu-detok`` against
``multi-bleu.perl`` / ``multi-bleu-detok.perl`` (with and without ``-lc``): the printed line of
the unmodified script must equal the profile's result printed the same way, and a copy whose
printf prints full precision must agree to 1e-9. Where a script dies, the profile must raise
``LibraryWouldRaise``, and vice versa. The runners and the input conventions are in
:mod:`tests.oracles`.

The profiles are called by name only, with ``lowercase`` for the scripts' case flags
(mteval: ``-c`` ⇒ ``lowercase=False``; multi-bleu*: ``-lc`` ⇒ ``lowercase=True``).

Generated text (:func:`random_corpus`) contains what separates the scripts from Python:
non-ASCII capitals, Greek final sigma, U+001C–U+001F inside and as tokens, empty hypotheses,
all-empty references, ragged references, digits, (upper-case) entities, ``<skipped>`` in both
cases, hyphens and a trailing ``-``, non-ASCII whitespace. mteval runs once per mode on a
seeded batch of corpora (one SGML document each); multi-bleu runs once per Hypothesis example.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from harness import Corpus, corpus_bleu
from harness.api import resolve_config
from harness.bleu.engine import segment_scores
from harness.bleu.result import BleuResult
from harness.errors import LibraryWouldRaise

from .depth import cases, examples
from .oracles import (
    MtevalDoc,
    format_multi_bleu,
    ref_streams,
    run_mteval,
    run_mteval_system,
    run_multi_bleu,
)

EXACT = 1e-9  # BLEU points (0–100); also BP and ratio
N_MTEVAL = cases(300, minimum=60)  # corpora per mteval mode (one perl run each)

MB_SETTINGS = settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

Refs = list[list[str]]

# ============================================================================== generator
WORDS = (
    # plain and ASCII case
    *("the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "a", "b", "a", "b"),
    # non-ASCII capitals (mteval and multi-bleu lowercase A-Z only), Greek final sigma
    *("É", "é", "Über", "über", "ÜBER", "Москва", "москва", "МОСКВА", "İstanbul"),
    *("ΣΟΦΙΑ", "σοφια", "ΣΟΦΙΑΣ", "σοφιας", "σοφιασ", "Σ", "ς"),
    # U+001C–U+001F: whitespace to Python's str.split, not to Perl's \s
    *("a\x1cb", "c\x1dd", "x\x1ey", "\x1f", "\x1c"),
    # digits, hyphens
    *("3.5", "1,000", "2019.", "5-3", "e-mail", "-", "a-", "3-"),
    # entities (mteval unescapes lower-case ones only), <skipped> (removed only in lower case)
    *("&quot;", "&amp;", "&lt;", "&gt;", "&QUOT;", "&AMP;", "&amp;lt;", "&Amp;"),
    *("<skipped>", "<SKIPPED>", "<Skipped>"),
    # punctuation and non-Latin
    *("cat.", "mat,", "(the", "don't", "x/y", "東京"),
    # a byte-order mark read as text (the scripts read bytes: a file's mark stays in line 1)
    *("\ufeffThe", "\ufeff"),
)
SEPARATORS = (*(" ",) * 8, "  ", "\t", "\x0b", "\xa0", "\u3000", "\x85")
EMPTYISH = ("", "", "", " ", "<skipped>", "<SKIPPED>", "\x1c")


def _line(rnd: random.Random, lo: int = 0, hi: int = 8) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi))]
    text = "".join(w + rnd.choice(SEPARATORS) for w in words[:-1]) + (words[-1] if words else "")
    if rnd.random() < 0.1:
        text = rnd.choice(SEPARATORS) + text
    if rnd.random() < 0.1:
        text += rnd.choice(SEPARATORS)
    if rnd.random() < 0.1:
        text += "-"  # a trailing hyphen
    return text


def _vary_case(rnd: random.Random, word: str) -> str:
    return rnd.choice((word, word, word.lower(), word.upper(), word.capitalize()))


def _derive(rnd: random.Random, hyp: str) -> str:
    """A reference close to ``hyp`` (so that long n-grams match): words dropped, inserted or
    changed in case."""
    words = hyp.split(" ")
    out = []
    for w in words:
        r = rnd.random()
        if r < 0.1:
            continue
        if r < 0.2:
            out.append(rnd.choice(WORDS))
        out.append(_vary_case(rnd, w) if rnd.random() < 0.3 else w)
    if rnd.random() < 0.3:
        out.insert(rnd.randint(0, len(out)), rnd.choice(WORDS))
    return " ".join(out)


def random_corpus(rnd: random.Random) -> tuple[list[str], Refs]:
    """(hypotheses, per-segment references): 1–4 segments, 1–3 ragged references each."""
    n = rnd.randint(1, 4)
    all_hyps_empty = rnd.random() < 0.05
    all_refs_empty = rnd.random() < 0.05
    hyps = [
        rnd.choice(EMPTYISH) if all_hyps_empty or rnd.random() < 0.12 else _line(rnd, 1)
        for _ in range(n)
    ]
    refs: Refs = []
    for h in hyps:
        seg = []
        for _ in range(rnd.randint(1, 3)):
            r = rnd.random()
            if all_refs_empty or r < 0.1:
                seg.append(rnd.choice(EMPTYISH))
            elif h.strip() and r < 0.65:
                seg.append(_derive(rnd, h))
            else:
                seg.append(_line(rnd))
        refs.append(seg)
    return hyps, refs


# ============================================================================== helpers
def _profile(
    name: str, hyps: Sequence[str], refs: Sequence[Sequence[str]], *, lowercase: bool
) -> BleuResult | LibraryWouldRaise:
    try:
        return corpus_bleu(hypotheses=hyps, references=refs, profile=name, lowercase=lowercase)
    except LibraryWouldRaise as exc:
        return exc


def _profile_segments(
    hyps: Sequence[str], refs: Sequence[Sequence[str]], *, lowercase: bool
) -> list[BleuResult] | LibraryWouldRaise:
    config = resolve_config("mteval-v13a", lowercase=lowercase)
    try:
        return segment_scores(Corpus(hypotheses=hyps, references=refs), config)
    except LibraryWouldRaise as exc:
        return exc


def _blank(text: str) -> bool:
    """Could mteval's tokenization of ``text`` be empty? (Perl's \\s is a subset of Python's
    whitespace and ``<skipped>`` is removed the same way, so ``False`` is certain.)"""
    return not text.replace("<skipped>", "").split()


def _may_die(hyps: Sequence[str], refs: Sequence[Sequence[str]], doc: MtevalDoc) -> bool:
    """Whether the system-level report could die on this corpus alone: it dies when the total
    closest-reference length is 0 (division) or the brevity penalty is 0 (log), i.e. when the
    total hypothesis length is 0 or exp(1 - r/c) underflows; the latter two make the document
    score 0. A superset, checked by running the script."""
    streams = ref_streams(refs)
    padded = [[s[i] for s in streams] for i in range(len(hyps))]
    return doc.score == 0.0 or all(any(map(_blank, seg)) for seg in padded)


def _check_mteval(
    hyps: list[str], refs: Refs, doc: MtevalDoc, *, case_sensitive: bool
) -> list[str]:
    """Mismatches between the script (document, segments, system report) and the profile."""
    lc = not case_sensitive
    problems = []
    where = f"hyps={hyps!r} refs={refs!r}"
    res = _profile("mteval-v13a", hyps, refs, lowercase=lc)
    died = None
    if isinstance(res, LibraryWouldRaise) or _may_die(hyps, refs, doc):
        system = run_mteval_system(hyps, refs, case_sensitive=case_sensitive)
        died = system.error
        if died is not None and not isinstance(res, LibraryWouldRaise):
            problems.append(f"corpus: script dies ({died}) but profile = {res.score!r}: {where}")
        if died is None and isinstance(res, LibraryWouldRaise):
            problems.append(
                f"corpus: profile raises ({res.reason}) but script = {100 * system.score!r}: "
                f"{where}"
            )
    if died is None and isinstance(res, BleuResult):
        if not math.isclose(res.score, 100 * doc.score, rel_tol=0, abs_tol=EXACT):
            problems.append(f"corpus: script {100 * doc.score!r} != profile {res.score!r}: {where}")
    segs = _profile_segments(hyps, refs, lowercase=lc)
    if isinstance(segs, LibraryWouldRaise):
        problems.append(f"segments: profile raises ({segs.reason}), script {doc.segments}: {where}")
    else:
        got = [s.score for s in segs]
        want = [100 * s for s in doc.segments]
        if len(got) != len(want) or not all(
            math.isclose(g, w, rel_tol=0, abs_tol=EXACT) for g, w in zip(got, want, strict=True)
        ):
            problems.append(f"segments: script {want} != profile {got}: {where}")
    return problems


def _check_multi_bleu(hyps: list[str], refs: Refs, *, lowercase: bool, detok: bool) -> None:
    name = "multi-bleu-detok" if detok else "multi-bleu"
    run = run_multi_bleu(hyps, refs, lowercase=lowercase, detok=detok)
    wide = run_multi_bleu(hyps, refs, lowercase=lowercase, detok=detok, widened=True)
    res = _profile(name, hyps, refs, lowercase=lowercase)
    note(f"script: {run.line!r} (exit {run.returncode}) {run.stderr.strip()[-120:]!r}")
    note(f"widened: {wide.line!r}")
    note(f"profile: {res!r}")
    assert run.returncode == wide.returncode and (run.line is None) == (wide.line is None)
    if isinstance(res, LibraryWouldRaise):
        assert run.died and "Illegal division by zero" in run.stderr, (
            f"profile raises ({res.reason}) but the script prints {run.line!r}"
        )
        return
    assert not run.died, f"script dies ({run.stderr.strip()}) but the profile scores {res.score}"
    want = format_multi_bleu(res)
    assert run.line == want, f"line: script {run.line!r} != profile {want!r}"
    assert run.returncode == (1 if res.ref_len == 0 else 0), f"exit status {run.returncode}"
    got = wide.parsed
    assert got is not None
    if res.ref_len == 0:
        return
    assert (got.hyp_len, got.ref_len) == (res.hyp_len, res.ref_len)
    assert got.bleu == pytest.approx(res.score, rel=0, abs=EXACT), "widened BLEU"
    assert got.precisions == pytest.approx(res.precisions, rel=0, abs=EXACT), "precisions"
    assert got.bp == pytest.approx(res.bp, rel=0, abs=EXACT), "widened BP"
    assert got.ratio == pytest.approx(res.ratio, rel=0, abs=EXACT), "widened ratio"


def _report(problems: list[str], total: int) -> str:
    shown = sorted(problems, key=len)[:15]
    return f"{len(problems)} mismatches in {total} corpora; shortest:\n" + "\n".join(shown)


# ============================================================================== differential
@pytest.mark.parametrize("case_sensitive", [False, True], ids=["lowercase", "c"])
def test_mteval_matches_script(mteval_script: object, case_sensitive: bool) -> None:
    """300 generated corpora (a fifth below full depth), one document each, in one run of
    ``mteval-v13a.pl [-c]``:
    document (= corpus) scores, segment scores, and dying at system level."""
    rnd = random.Random(f"mteval-v13a:{case_sensitive}")
    corpora = [random_corpus(rnd) for _ in range(N_MTEVAL)]
    docs = run_mteval(corpora, case_sensitive=case_sensitive)
    problems = []
    for (hyps, refs), doc in zip(corpora, docs, strict=True):
        problems += _check_mteval(hyps, refs, doc, case_sensitive=case_sensitive)
    assert not problems, _report(problems, len(corpora))


@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("detok", [False, True], ids=["multi-bleu", "multi-bleu-detok"])
@MB_SETTINGS
@given(rnd=st.randoms(use_true_random=False))
def test_multi_bleu_matches_script(
    moses_scripts: object, detok: bool, lowercase: bool, rnd: random.Random
) -> None:
    hyps, refs = random_corpus(rnd)
    note(f"hyps={hyps!r} refs={refs!r}")
    _check_multi_bleu(hyps, refs, lowercase=lowercase, detok=detok)


# ============================================================================== pinned: mteval
def _mteval_doc(hyps: list[str], refs: Refs, *, case_sensitive: bool) -> MtevalDoc:
    (doc,) = run_mteval([(hyps, refs)], case_sensitive=case_sensitive)
    return doc


def _score(name: str, hyps: list[str], refs: Refs, *, lowercase: bool) -> float:
    return corpus_bleu(hypotheses=hyps, references=refs, profile=name, lowercase=lowercase).score


def test_mteval_text_goes_into_sgml_raw(mteval_script: object) -> None:
    """Input convention: text is written into the SGML files raw, not XML-escaped. mteval's
    tokenization unescapes ``&quot; &amp; &lt; &gt;`` itself (in that order), so raw text makes
    it see the string the profile sees; escaped text is unescaped only once and scores
    differently ('&amp;lt;' raw becomes '<'; escaped it stays '&amp;lt;' → '& amp ; lt ;')."""
    hyps, refs = ["a &amp;lt; b c"], [["a < b c"]]
    raw = run_mteval([(hyps, refs)], case_sensitive=True)[0].score
    escaped = run_mteval([(hyps, refs)], case_sensitive=True, escape=True)[0].score
    assert raw != pytest.approx(escaped, abs=1e-3)
    assert raw == pytest.approx(1.0, abs=1e-12)
    assert _score("mteval-v13a", hyps, refs, lowercase=False) == pytest.approx(100 * raw, abs=EXACT)


def test_mteval_lowercases_ascii_only(mteval_script: object) -> None:
    """Without ``-c`` mteval lowercases with ``tr/[A-Z]/[a-z]/``: 'Ü' stays upper case, so
    'Über' does not match 'über' (script: 0.7071…, not 1)."""
    hyps, refs = ["Über alles"], [["über alles"]]
    doc = _mteval_doc(hyps, refs, case_sensitive=False)
    assert doc.score == pytest.approx(math.sqrt(0.5), abs=1e-12)  # 0.707106781186548
    assert _score("mteval-v13a", hyps, refs, lowercase=True) == pytest.approx(
        100 * doc.score, abs=EXACT
    )


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [("<SKIPPED> a b c", "a b c"), ("&QUOT; a b c", '" a b c')],
    ids=["skipped", "entity"],
)
@pytest.mark.parametrize("case_sensitive", [False, True], ids=["lowercase", "c"])
def test_mteval_lowercases_after_unescaping(
    mteval_script: object, hyp: str, ref: str, case_sensitive: bool
) -> None:
    """mteval removes ``<skipped>`` and unescapes entities (case-sensitively) *before* it
    lowercases: '<SKIPPED>' and '&QUOT;' survive as '< skipped >' and '& quot ;' with or
    without ``-c`` (script 0.302…, not 1)."""
    hyps, refs = [hyp], [[ref]]
    doc = _mteval_doc(hyps, refs, case_sensitive=case_sensitive)
    assert doc.score < 0.5
    assert _score("mteval-v13a", hyps, refs, lowercase=not case_sensitive) == pytest.approx(
        100 * doc.score, abs=EXACT
    )


def test_mteval_system_level_dies_when_the_brevity_penalty_underflows(
    mteval_script: object,
) -> None:
    """The system report takes ``log`` of the brevity penalty exp(1 - r/c): once r/c exceeds
    about 746 it underflows to 0 and the script dies ("Can't take log of 0") although both
    lengths are positive; the document score is 0."""
    hyps, refs = ["a"], [[" ".join(["a"] * 1000)]]
    system = run_mteval_system(hyps, refs, case_sensitive=True)
    assert system.error is not None and "Can't take log of 0" in system.error
    assert _mteval_doc(hyps, refs, case_sensitive=True).score == 0.0
    with pytest.raises(LibraryWouldRaise):
        corpus_bleu(hypotheses=hyps, references=refs, profile="mteval-v13a", lowercase=False)


@pytest.mark.parametrize(
    ("hyps", "refs", "message"),
    [
        (["a b"], [[""]], "Illegal division by zero"),  # total reference length 0
        ([""], [["a"]], "Can't take log of 0"),  # total hypothesis length 0
        (["<skipped>"], [["a", "b"]], "Can't take log of 0"),
    ],
    ids=["ref-length-0", "hyp-length-0", "hyp-skipped-only"],
)
@pytest.mark.parametrize("case_sensitive", [False, True], ids=["lowercase", "c"])
def test_mteval_system_level_dies_on_zero_total_length(
    mteval_script: object, hyps: list[str], refs: Refs, message: str, case_sensitive: bool
) -> None:
    """The system-level report divides by the total reference length and takes the log of the
    brevity penalty: it dies when either total is 0, so the profile's corpus score raises.
    Document and segment scores of the same corpus are numbers (segments never raise)."""
    system = run_mteval_system(hyps, refs, case_sensitive=case_sensitive)
    assert system.error is not None and message in system.error
    with pytest.raises(LibraryWouldRaise):
        corpus_bleu(
            hypotheses=hyps, references=refs, profile="mteval-v13a", lowercase=not case_sensitive
        )
    doc = _mteval_doc(hyps, refs, case_sensitive=case_sensitive)
    segs = _profile_segments(hyps, refs, lowercase=not case_sensitive)
    assert not isinstance(segs, LibraryWouldRaise)
    assert [s.score for s in segs] == pytest.approx([100 * s for s in doc.segments], abs=EXACT)


def test_mteval_segment_level_empty_hypothesis_scores_zero(mteval_script: object) -> None:
    """An empty hypothesis scores 0 at segment level while the others score normally, and the
    corpus (system 0.606530659712633 = exp(1 - 3/2)) is a number."""
    hyps, refs = ["a b", ""], [["a b"], ["c"]]
    system = run_mteval_system(hyps, refs, case_sensitive=True)
    doc = _mteval_doc(hyps, refs, case_sensitive=True)
    assert system.score == pytest.approx(math.exp(-0.5), abs=1e-12) == doc.score
    assert doc.segments == (1.0, 0.0)
    assert _score("mteval-v13a", hyps, refs, lowercase=False) == pytest.approx(
        100 * system.score, abs=EXACT
    )
    segs = _profile_segments(hyps, refs, lowercase=False)
    assert not isinstance(segs, LibraryWouldRaise), segs
    assert [s.score for s in segs] == pytest.approx([100.0, 0.0], abs=EXACT)


def test_mteval_empty_hypothesis_against_empty_references_scores_zero(
    mteval_script: object,
) -> None:
    """BP is 0 for an empty hypothesis even when every reference is empty too (0/0): the
    segment scores 0, where 'hypothesis as long as the reference' would give BP 1 and, with
    every order empty (precision 1), 100."""
    hyps, refs = ["a b", " "], [["a b"], [" "]]
    doc = _mteval_doc(hyps, refs, case_sensitive=True)
    segs = _profile_segments(hyps, refs, lowercase=False)
    assert not isinstance(segs, LibraryWouldRaise), segs
    assert doc.segments[1] == 0.0
    assert [s.score for s in segs] == pytest.approx([100 * s for s in doc.segments], abs=EXACT)


@pytest.mark.parametrize("sep", ["\x1c", "\x1d", "\x1e", "\x1f"], ids=["1c", "1d", "1e", "1f"])
def test_mteval_perl_whitespace_excludes_unit_separators(mteval_script: object, sep: str) -> None:
    """Perl's ``\\s`` does not match U+001C–U+001F (Python's ``str.split`` does): 'a\\x1cb' is
    one token, so 'a\\x1cb c d' vs 'a b c d' is not a perfect match (script 0.457822739867667)."""
    hyps, refs = [f"a{sep}b c d"], [["a b c d"]]
    doc = _mteval_doc(hyps, refs, case_sensitive=True)
    assert doc.score < 0.5
    assert _score("mteval-v13a", hyps, refs, lowercase=False) == pytest.approx(
        100 * doc.score, abs=EXACT
    )


# ============================================================================== pinned: multi-bleu
def _profile_line(name: str, hyps: list[str], refs: Refs, *, lowercase: bool) -> str:
    res = corpus_bleu(hypotheses=hyps, references=refs, profile=name, lowercase=lowercase)
    return format_multi_bleu(res)


def test_multi_bleu_lowercase_is_ascii_only(moses_scripts: object) -> None:
    """``multi-bleu.perl -lc`` applies ``lc`` to undecoded bytes: ASCII letters only, so
    'ÜBER' becomes 'Über' and 'МОСКВА' stays upper case."""
    hyps, refs = ["ÜBER ALLES IN МОСКВА"], [["über alles in москва"]]
    run = run_multi_bleu(hyps, refs, lowercase=True, detok=False)
    assert run.parsed is not None and run.parsed.precisions[0] == 50.0  # alles, in
    assert run.line == _profile_line("multi-bleu", hyps, refs, lowercase=True)


def test_multi_bleu_detok_lowercase_is_full_unicode(moses_scripts: object) -> None:
    """``multi-bleu-detok.perl -lc`` decodes UTF-8, so its ``lc`` covers every script."""
    hyps, refs = ["ÜBER ALLES IN МОСКВА"], [["über alles in москва"]]
    run = run_multi_bleu(hyps, refs, lowercase=True, detok=True)
    assert run.parsed is not None and run.parsed.bleu == 100.0
    assert run.line == _profile_line("multi-bleu-detok", hyps, refs, lowercase=True)


def test_multi_bleu_detok_lowercase_has_no_final_sigma(moses_scripts: object) -> None:
    """Perl's ``lc`` maps 'Σ' to 'σ' everywhere; Python's ``str.lower`` gives 'ς' at the end of
    a word. So 'ΣΟΦΙΑΣ' lowercases to 'σοφιασ' and does not match 'σοφιας'."""
    hyps, refs = ["ΣΟΦΙΑΣ a b c"], [["σοφιας a b c"]]
    run = run_multi_bleu(hyps, refs, lowercase=True, detok=True)
    assert run.parsed is not None and run.parsed.precisions[0] == 75.0
    assert run.line == _profile_line("multi-bleu-detok", hyps, refs, lowercase=True)


def test_multi_bleu_detok_lowercases_references_after_tokenizing(moses_scripts: object) -> None:
    """References are tokenized when read and lowercased afterwards: '&QUOT;' is not an entity
    to the (case-sensitive) tokenizer, becomes '& QUOT ;' and then '& quot ;', not '"'."""
    hyps, refs = ['" a b c'], [["&QUOT; a b c"]]
    run = run_multi_bleu(hyps, refs, lowercase=True, detok=True)
    assert run.parsed is not None and run.parsed.ref_len == 6
    assert run.line == _profile_line("multi-bleu-detok", hyps, refs, lowercase=True)


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [("&QUOT; a b c", '" a b c'), ("<SKIPPED> a b c", "a b c")],
    ids=["entity", "skipped"],
)
def test_multi_bleu_detok_lowercases_hypotheses_before_tokenizing(
    moses_scripts: object, hyp: str, ref: str
) -> None:
    """…but each hypothesis line is lowercased *before* tokenizing (``$_ = lc if $lowercase;
    $_ = tokenization($_);``): '&QUOT;' becomes '&quot;' and then '"', '<SKIPPED>' becomes
    '<skipped>' and is removed. The two sides are lowercased at different points."""
    hyps, refs = [hyp], [[ref]]
    run = run_multi_bleu(hyps, refs, lowercase=True, detok=True)
    assert run.parsed is not None and run.parsed.hyp_len == run.parsed.ref_len
    assert run.line == _profile_line("multi-bleu-detok", hyps, refs, lowercase=True)


def test_multi_bleu_detok_chops_an_unterminated_last_line(moses_scripts: object) -> None:
    """Input convention: multi-bleu-detok ``chop``s every line, so an unterminated last line
    loses its last character. The runner terminates every line; here the hypothesis file has
    no final newline: the script then scores 'a b c d' (not 'a b c de'), i.e. what the profile
    gives on the chopped string. multi-bleu.perl ``chomp``s and is unaffected."""
    hyps, refs = ["x y", "a b c de"], [["x y"], ["a b c de"]]
    run = run_multi_bleu(hyps, refs, lowercase=False, detok=True, final_newline=False)
    assert run.line != _profile_line("multi-bleu-detok", hyps, refs, lowercase=False)
    chopped = [*hyps[:-1], hyps[-1][:-1]]
    assert run.line == _profile_line("multi-bleu-detok", chopped, refs, lowercase=False)
    terminated = run_multi_bleu(hyps, refs, lowercase=False, detok=True)
    assert terminated.line == _profile_line("multi-bleu-detok", hyps, refs, lowercase=False)
    plain = run_multi_bleu(hyps, refs, lowercase=False, detok=False, final_newline=False)
    assert plain.line == _profile_line("multi-bleu", hyps, refs, lowercase=False)


# ============================================================================== pinned: ragged
RAGGED_HYPS = ["x", "a b c d e f"]
RAGGED_REFS = [["y y y"], ["a b c d e f", "a b"]]
#: The same references made rectangular without an empty one (a duplicate changes nothing).
RECT_REFS = [["y y y", "y y y"], ["a b c d e f", "a b"]]


@pytest.mark.parametrize("detok", [False, True], ids=["multi-bleu", "multi-bleu-detok"])
def test_multi_bleu_ragged_references_are_empty_lines(moses_scripts: object, detok: bool) -> None:
    """Ragged references can only be given as empty lines, and an empty line is a reference of
    length 0 that enters the closest-length choice: segment 1 ('x', 1 word) takes 0, not 3."""
    name = "multi-bleu-detok" if detok else "multi-bleu"
    run = run_multi_bleu(RAGGED_HYPS, RAGGED_REFS, lowercase=False, detok=detok)
    rect = run_multi_bleu(RAGGED_HYPS, RECT_REFS, lowercase=False, detok=detok)
    assert run.parsed is not None and rect.parsed is not None
    assert (run.parsed.ref_len, rect.parsed.ref_len) == (6, 9)
    assert run.line == _profile_line(name, RAGGED_HYPS, RAGGED_REFS, lowercase=False)
    assert rect.line == _profile_line(name, RAGGED_HYPS, RECT_REFS, lowercase=False)


def test_mteval_ragged_references_are_empty_segments(mteval_script: object) -> None:
    """mteval needs every segment in every reference set: the padding is an empty segment, a
    reference of length 0 that enters the closest-length choice (as in multi-bleu)."""
    ragged, rect = run_mteval(
        [(RAGGED_HYPS, RAGGED_REFS), (RAGGED_HYPS, RECT_REFS)], case_sensitive=True
    )
    assert ragged.score > rect.score  # BP 1 (ref length 6) vs exp(1 - 9/7)
    for doc, refs in ((ragged, RAGGED_REFS), (rect, RECT_REFS)):
        assert _score("mteval-v13a", RAGGED_HYPS, refs, lowercase=False) == pytest.approx(
            100 * doc.score, abs=EXACT
        )
