"""Tests for ``harness.data.io``: strict line-aligned reading, corpus loaders, atomic writers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.data import io as hio
from harness.data.corpus import Corpus
from harness.errors import ConfigError, InputError, LayoutError

from .depth import examples


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------------------- read_lines: bad input
BAD_FILES = [
    # (id, bytes, expected line, phrases that must appear in the message)
    ("bom", b"\xef\xbb\xbfhello\nworld\n", 1, ["BOM", "--bom keep", "--bom strip", "remove"]),
    ("crlf", b"a\r\nb\r\n", 1, ["CRLF", "line 1", "dos2unix", "sed -i 's/\\r$//'"]),
    ("crlf-later", b"a\nb\r\nc\n", 2, ["CRLF", "line 2", "dos2unix"]),
    ("crlf-no-final-newline", b"a\nb\nc\r", 3, ["carriage return"]),
    ("lone-cr", b"a\nb\rc\n", 2, ["carriage return", "line 2"]),
    ("old-mac", b"a\rb\r", 1, ["carriage return", "tr '\\r' '\\n'"]),
    ("invalid-utf8", b"ok\n\xff\xfe\n", 2, ["invalid UTF-8", "byte offset 3", "0xFF"]),
    ("invalid-utf8-mid-line", b"caf\xe9\n", 1, ["invalid UTF-8", "byte offset 3"]),
    ("latin1-later", b"one\ntwo\nna\xefve\n", 3, ["invalid UTF-8", "byte offset 10"]),
    ("truncated-sequence", b"ok\n\xe2\x82\n", 2, ["invalid UTF-8", "byte offset 3"]),
    ("nul", b"a\nb\x00c\n", 2, ["NUL", "binary"]),
    ("utf16", "hi\nthere\n".encode("utf-16-le"), 1, ["NUL", "UTF-16"]),
]


@pytest.mark.parametrize(
    ("data", "line", "phrases"),
    [pytest.param(d, n, p, id=i) for i, d, n, p in BAD_FILES],
)
def test_read_lines_rejects_bad_bytes(
    tmp_path: Path, data: bytes, line: int, phrases: list[str]
) -> None:
    path = _write(tmp_path / "bad.txt", data)
    with pytest.raises(InputError) as info:
        hio.read_lines(path)
    err = info.value
    assert err.file == str(path)
    assert err.line == line
    for phrase in phrases:
        assert phrase in str(err), (phrase, str(err))
    assert f"line {line}" in str(err)


def test_read_lines_empty_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.txt", b"")
    with pytest.raises(InputError, match="empty file") as info:
        hio.read_lines(path)
    assert info.value.file == str(path)
    assert info.value.line is None


def test_read_lines_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    with pytest.raises(InputError, match="hypothesis file not found") as info:
        hio.read_lines(path, what="hypothesis file")
    assert info.value.file == str(path)
    assert info.value.line is None


def test_read_lines_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory") as info:
        hio.read_lines(tmp_path)
    assert info.value.file == str(tmp_path)
    assert info.value.line is None


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read any file"
)
def test_read_lines_unreadable(tmp_path: Path) -> None:
    path = _write(tmp_path / "secret.txt", b"a\n")
    path.chmod(0)
    try:
        with pytest.raises(InputError, match="not readable") as info:
            hio.read_lines(path)
        assert info.value.file == str(path)
        assert info.value.line is None
    finally:
        path.chmod(0o644)


def test_bom_later_in_file_is_an_ordinary_character(tmp_path: Path) -> None:
    """Only a BOM at the start of the file is a BOM; U+FEFF elsewhere is text."""
    path = _write(tmp_path / "f.txt", "a\n\ufeffb\n".encode())
    assert hio.read_lines(path) == ["a", "\ufeffb"]


# ---------------------------------------------------------------------------- read_lines: good input
@pytest.mark.parametrize(
    ("data", "lines"),
    [
        pytest.param(b"a\nb\n", ["a", "b"], id="final-newline"),
        pytest.param(b"a\nb", ["a", "b"], id="no-final-newline"),
        pytest.param(b"\n", [""], id="one-empty-segment"),
        pytest.param(b"a\n\nc\n", ["a", "", "c"], id="empty-line-in-middle"),
        pytest.param(b"a\n\n", ["a", ""], id="empty-last-segment"),
        pytest.param(b"\n\n\n", ["", "", ""], id="all-empty"),
        pytest.param(b"  a b  \n\tc\n", ["  a b  ", "\tc"], id="whitespace-kept"),
        pytest.param("日本語\nüñî\n".encode(), ["日本語", "üñî"], id="non-ascii"),
    ],
)
def test_read_lines_good(tmp_path: Path, data: bytes, lines: list[str]) -> None:
    assert hio.read_lines(_write(tmp_path / "f.txt", data)) == lines


@pytest.mark.parametrize(
    "char", ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"]
)
def test_read_lines_keeps_splitlines_separators_inside_a_line(tmp_path: Path, char: str) -> None:
    """``str.splitlines`` would split here and misalign the files; we split on '\\n' only."""
    path = _write(tmp_path / "f.txt", f"a{char}b\nc\n".encode())
    assert hio.read_lines(path) == [f"a{char}b", "c"]
    assert len(f"a{char}b\nc\n".splitlines()) == 3  # the pitfall being avoided


def test_read_lines_accepts_str_path(tmp_path: Path) -> None:
    path = _write(tmp_path / "f.txt", b"x\n")
    assert hio.read_lines(str(path)) == ["x"]


_line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00\ufeff"),
    max_size=20,
)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(lines=st.lists(_line_text, min_size=1, max_size=8), final_newline=st.booleans())
def test_read_lines_round_trip(tmp_path: Path, lines: list[str], final_newline: bool) -> None:
    text = "\n".join(lines)
    if final_newline or lines[-1] == "":
        # Without a final newline a trailing empty segment cannot be written.
        text += "\n"
    path = _write(tmp_path / "rt.txt", text.encode("utf-8"))
    assert hio.read_lines(path) == lines


# ---------------------------------------------------------------------------- load_text_corpus
def test_load_text_corpus(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "sys.hyp", b"the cat\n\na dog\n")
    r1 = _write(tmp_path / "ref1.txt", b"the cat sat\nhello\na dog ran\n")
    r2 = _write(tmp_path / "ref2.txt", b"a cat\n\nthe dog\n")
    corpus = hio.load_text_corpus(hyp, [r1, r2])
    assert isinstance(corpus, Corpus)
    assert corpus.hypotheses == ("the cat", "", "a dog")
    assert corpus.references == (
        ("the cat sat", "a cat"),
        ("hello", ""),
        ("a dog ran", "the dog"),
    )
    assert corpus.name == "sys"
    assert corpus.provenance == {"hypotheses": str(hyp), "references": [str(r1), str(r2)]}
    assert corpus.to_streams() == [
        ["the cat sat", "hello", "a dog ran"],
        ["a cat", "", "the dog"],
    ]


def test_load_text_corpus_name_override(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "sys.hyp", b"a\n")
    ref = _write(tmp_path / "ref.txt", b"a\n")
    assert hio.load_text_corpus(str(hyp), [str(ref)], name="system A").name == "system A"


@pytest.mark.parametrize(("ref_bytes", "got"), [(b"a\nb\n", 2), (b"a\nb\nc\nd\n", 4)])
def test_load_text_corpus_line_count_mismatch(tmp_path: Path, ref_bytes: bytes, got: int) -> None:
    hyp = _write(tmp_path / "hyp.txt", b"x\ny\nz\n")
    good = _write(tmp_path / "ref1.txt", b"x\ny\nz\n")
    bad = _write(tmp_path / "ref2.txt", ref_bytes)
    with pytest.raises(LayoutError) as info:
        hio.load_text_corpus(hyp, [good, bad])
    err = info.value
    assert err.what == str(bad)
    assert err.expected == 3
    assert err.got == got
    assert f"hypothesis file {hyp} has 3 lines, reference file {bad} has {got}" in str(err)
    assert str(bad) in str(err)


def test_load_text_corpus_needs_a_reference(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "hyp.txt", b"x\n")
    with pytest.raises(LayoutError, match="at least one reference file") as info:
        hio.load_text_corpus(hyp, [])
    assert info.value.got == 0


@pytest.mark.parametrize("as_type", [str, Path])
def test_load_text_corpus_rejects_single_path_as_ref_paths(tmp_path: Path, as_type: type) -> None:
    """A bare string would otherwise be iterated character by character."""
    hyp = _write(tmp_path / "hyp.txt", b"x\n")
    ref = _write(tmp_path / "ref.txt", b"x\n")
    with pytest.raises(LayoutError, match="list of reference files"):
        hio.load_text_corpus(hyp, as_type(ref))  # type: ignore[arg-type]


def test_load_text_corpus_reports_bad_reference_file(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "hyp.txt", b"x\ny\n")
    ref = _write(tmp_path / "ref.txt", b"x\r\ny\r\n")
    with pytest.raises(InputError, match="CRLF") as info:
        hio.load_text_corpus(hyp, [ref])
    assert info.value.file == str(ref)
    assert info.value.line == 1


def test_load_text_corpus_missing_hypothesis_file(tmp_path: Path) -> None:
    ref = _write(tmp_path / "ref.txt", b"x\n")
    with pytest.raises(InputError, match="hypothesis file not found") as info:
        hio.load_text_corpus(tmp_path / "missing.txt", [ref])
    assert info.value.file == str(tmp_path / "missing.txt")


# ---------------------------------------------------------------------------- load_jsonl_corpus
def _jsonl(tmp_path: Path, *rows: object, raw: str | None = None) -> Path:
    text = (
        raw if raw is not None else "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    )
    return _write(tmp_path / "corpus.jsonl", text.encode("utf-8"))


def test_load_jsonl_corpus(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        {"id": "s1", "hypothesis": "the cat", "references": ["the cat sat", "a cat"]},
        {"id": 7, "hypothesis": "", "references": ["nothing"]},
        {"hypothesis": "中文\u2028x", "references": ["a", "b", "c"]},
    )
    corpus = hio.load_jsonl_corpus(path)
    assert corpus.hypotheses == ("the cat", "", "中文\u2028x")
    assert corpus.references == (("the cat sat", "a cat"), ("nothing",), ("a", "b", "c"))
    assert corpus.ids == ("s1", "7", "3")  # a missing id is the line number
    assert corpus.is_ragged
    assert corpus.name == "corpus"
    assert corpus.provenance == {"jsonl": str(path)}


def test_load_jsonl_corpus_without_ids_matches_default_ids(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        {"hypothesis": "a", "references": ["a"]},
        {"hypothesis": "b", "references": ["b"]},
    )
    corpus = hio.load_jsonl_corpus(path, name="x")
    assert corpus == Corpus(
        hypotheses=("a", "b"),
        references=(("a",), ("b",)),
        name="x",
        provenance={"jsonl": str(path)},
    )


GOOD = '{"hypothesis": "a", "references": ["a"]}'
BAD_JSONL = [
    # (id, second line, phrase)
    ("invalid-json", '{"hypothesis": "a", "references": ["a"]', "invalid JSON"),
    ("not-an-object", '["a", ["a"]]', "must be a JSON object"),
    ("missing-hypothesis", '{"references": ["a"]}', "missing key 'hypothesis'"),
    ("missing-references", '{"hypothesis": "a"}', "missing key 'references'"),
    (
        "hypothesis-not-str",
        '{"hypothesis": 3, "references": ["a"]}',
        "'hypothesis' must be a string",
    ),
    (
        "hypothesis-null",
        '{"hypothesis": null, "references": ["a"]}',
        "'hypothesis' must be a string",
    ),
    ("references-is-str", '{"hypothesis": "a", "references": "a"}', "'references' must be a list"),
    (
        "reference-not-str",
        '{"hypothesis": "a", "references": ["a", 1]}',
        "'references'[1] must be a string",
    ),
    (
        "nested-references",
        '{"hypothesis": "a", "references": [["a"]]}',
        "'references'[0] must be a string",
    ),
    ("empty-references", '{"hypothesis": "a", "references": []}', "empty list"),
    ("bad-id", '{"id": [1], "hypothesis": "a", "references": ["a"]}', "'id' must be"),
    ("bool-id", '{"id": true, "hypothesis": "a", "references": ["a"]}', "'id' must be"),
    ("unknown-key", '{"hypothesis": "a", "reference": ["a"], "references": ["a"]}', "unknown key"),
    (
        "duplicate-key",
        '{"hypothesis": "a", "hypothesis": "b", "references": ["a"]}',
        "duplicate key",
    ),
    ("blank-line", "", "blank line"),
    ("whitespace-line", "   ", "blank line"),
    ("duplicate-id", '{"id": "1", "hypothesis": "a", "references": ["a"]}', "duplicate id '1'"),
]


@pytest.mark.parametrize(("line2", "phrase"), [pytest.param(l2, p, id=i) for i, l2, p in BAD_JSONL])
def test_load_jsonl_corpus_errors_name_file_and_line(
    tmp_path: Path, line2: str, phrase: str
) -> None:
    path = _jsonl(tmp_path, raw=f"{GOOD}\n{line2}\n{GOOD}\n")
    with pytest.raises(InputError) as info:
        hio.load_jsonl_corpus(path)
    assert info.value.file == str(path)
    assert info.value.line == 2
    assert phrase in str(info.value)
    assert "line 2" in str(info.value)


def test_load_jsonl_corpus_applies_read_lines_checks(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, raw=f"{GOOD}\r\n")
    with pytest.raises(InputError, match="CRLF") as info:
        hio.load_jsonl_corpus(path)
    assert info.value.line == 1


def test_load_jsonl_corpus_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty file"):
        hio.load_jsonl_corpus(_jsonl(tmp_path, raw=""))


# ---------------------------------------------------------------------------- atomic writers
def _leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_write_text_atomic_creates(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    hio.write_text_atomic(path, "héllo\r\nwörld\n")
    assert path.read_bytes() == "héllo\r\nwörld\n".encode()  # written as given
    assert _leftovers(tmp_path, {"out.txt"}) == []


def test_write_text_atomic_refuses_to_overwrite(tmp_path: Path) -> None:
    path = _write(tmp_path / "out.txt", b"old\n")
    with pytest.raises(InputError, match=r"exists; pass force=True \(CLI: --force\)") as info:
        hio.write_text_atomic(path, "new\n")
    assert info.value.file == str(path)
    assert path.read_bytes() == b"old\n"
    assert _leftovers(tmp_path, {"out.txt"}) == []


def test_a_stop_right_after_the_temporary_file_is_made_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop signal that lands as the temporary file's ``open`` returns is raised once the
    file is known, and the file is removed: the folder holds what it held before."""
    import signal

    from harness import interrupts

    real = os.open

    def open_then_stopped(*args, **kwargs):  # type: ignore[no-untyped-def]
        fd = real(*args, **kwargs)
        interrupts.handler(signal.SIGTERM, None)  # as the signal would, here
        return fd

    (tmp_path / "kept.txt").write_text("old\n")
    monkeypatch.setattr(os, "open", open_then_stopped)
    try:
        with pytest.raises(KeyboardInterrupt):
            hio.write_text_atomic(tmp_path / "kept.txt", "new\n", force=True)
    finally:
        monkeypatch.undo()
        interrupts.reset()
    assert os.listdir(tmp_path) == ["kept.txt"]
    assert (tmp_path / "kept.txt").read_text() == "old\n"


def test_write_text_atomic_force_overwrites(tmp_path: Path) -> None:
    path = _write(tmp_path / "out.txt", b"old\n")
    path.chmod(0o640)
    hio.write_text_atomic(str(path), "new\n", force=True)
    assert path.read_text(encoding="utf-8") == "new\n"
    assert path.stat().st_mode & 0o777 == 0o640  # permissions of the replaced file kept
    assert _leftovers(tmp_path, {"out.txt"}) == []


def test_write_text_atomic_new_file_respects_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        hio.write_text_atomic(tmp_path / "out.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o644


def test_write_text_atomic_cleans_up_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "out.txt", b"old\n")

    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(hio.os, "replace", boom)
    with pytest.raises(InputError, match="No space left") as info:
        hio.write_text_atomic(path, "new\n", force=True)
    assert info.value.file == str(path)
    monkeypatch.undo()
    assert path.read_bytes() == b"old\n"
    assert _leftovers(tmp_path, {"out.txt"}) == []


def test_write_text_atomic_cleans_up_on_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(hio.os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        hio.write_text_atomic(tmp_path / "out.txt", "new\n")
    monkeypatch.undo()
    assert _leftovers(tmp_path, set()) == []


def test_write_text_atomic_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "no" / "out.txt"
    with pytest.raises(InputError, match="does not exist") as info:
        hio.write_text_atomic(path, "x")
    assert info.value.file == str(path)


def test_write_text_atomic_directory_target(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        hio.write_text_atomic(tmp_path / "d", "x", force=True)


def test_write_text_atomic_unencodable_text_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="UTF-8"):
        hio.write_text_atomic(tmp_path / "out.txt", "bad \udc80 surrogate")
    assert _leftovers(tmp_path, set()) == []


def test_write_text_atomic_rejects_non_str(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        hio.write_text_atomic(tmp_path / "out.txt", b"bytes")  # type: ignore[arg-type]
    assert _leftovers(tmp_path, set()) == []


def test_write_json_atomic_format(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    obj = {"z": 1, "a": ["ü", "日本"], "m": {"x": None}}
    hio.write_json_atomic(path, obj)
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    assert text.endswith("}\n")
    assert '"ü"' in text  # not escaped
    assert text.index('"z"') < text.index('"a"')  # insertion order, not sorted
    assert json.loads(text) == obj
    assert _leftovers(tmp_path, {"out.json"}) == []


def test_write_json_atomic_refuses_and_forces(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    hio.write_json_atomic(path, [1])
    with pytest.raises(InputError, match="exists"):
        hio.write_json_atomic(path, [2])
    assert json.loads(path.read_text(encoding="utf-8")) == [1]
    hio.write_json_atomic(path, [2], force=True)
    assert json.loads(path.read_text(encoding="utf-8")) == [2]
    assert _leftovers(tmp_path, {"out.json"}) == []


@pytest.mark.parametrize(
    ("obj", "exc"),
    [
        ({"x": float("nan")}, InputError),
        ({"x": float("inf")}, InputError),
        ({"x": object()}, TypeError),
    ],
    ids=["nan", "inf", "unserialisable"],
)
def test_write_json_atomic_bad_object_writes_nothing(
    tmp_path: Path, obj: object, exc: type
) -> None:
    with pytest.raises(exc):
        hio.write_json_atomic(tmp_path / "out.json", obj)
    assert _leftovers(tmp_path, set()) == []


# ---------------------------------------------------------------------------- a byte-order mark
def test_a_stripped_mark_still_counts_in_the_byte_offsets_of_later_errors(tmp_path: Path) -> None:
    path = _write(tmp_path / "f.txt", b"\xef\xbb\xbfok\n\xff\n")
    with pytest.raises(InputError, match="byte offset 6") as info:
        hio.read_lines(path, bom="strip")
    assert info.value.line == 2


def test_a_file_of_only_a_mark_is_empty_when_stripped_and_one_segment_when_kept(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "f.txt", b"\xef\xbb\xbf")
    with pytest.raises(InputError, match="only a byte-order mark"):
        hio.read_lines(path, bom="strip")
    assert hio.read_lines(path, bom="keep") == ["\ufeff"]


def test_an_unknown_bom_rule_is_a_config_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "f.txt", b"a\n")
    with pytest.raises(ConfigError, match="refuse, keep, strip"):
        hio.read_lines(path, bom="drop")  # type: ignore[arg-type]


def test_the_rule_a_mark_was_read_by_is_in_the_provenance(tmp_path: Path) -> None:
    hyp = _write(tmp_path / "h.txt", b"\xef\xbb\xbfthe cat\n")
    ref = _write(tmp_path / "r.txt", b"the cat\n")
    kept = hio.load_text_corpus(hyp, [ref], bom="keep")
    assert kept.hypotheses == ("\ufeffthe cat",) and kept.provenance["bom"] == "keep"
    stripped = hio.load_text_corpus(hyp, [ref], bom="strip")
    assert stripped.hypotheses == ("the cat",) and stripped.provenance["bom"] == "strip"
    assert "bom" not in hio.load_text_corpus(ref, [ref]).provenance


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("c.jsonl", b'{"hypothesis": "a b", "references": ["a b"]}\n'),
        ("c.tsv", b"ref\tsys\na b\ta b\n"),
    ],
)
def test_a_record_file_strips_its_mark_or_refuses_to_keep_it(
    tmp_path: Path, name: str, body: bytes
) -> None:
    """In JSON Lines and TSV the mark belongs to no segment: ``strip`` reads the file,
    ``keep`` is refused naming ``--bom strip``, the default refuses as for any file."""
    from harness.data.systems import load_jsonl_systems, load_tsv_systems

    load = load_jsonl_systems if name.endswith(".jsonl") else load_tsv_systems
    path = _write(tmp_path / name, b"\xef\xbb\xbf" + body)
    (corpus,) = load(path, bom="strip").values()
    assert corpus.hypotheses == ("a b",)
    for bom, words in (("keep", "belongs to no segment"), ("refuse", "--bom keep")):
        with pytest.raises(InputError, match=words) as info:
            load(path, bom=bom)  # type: ignore[arg-type]
        assert info.value.line == 1
