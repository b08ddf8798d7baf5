"""Input files under load: a size limit checked before reading, text read a chunk at a time, and
memory that runs out reported as an input error naming the file and its size.

The chunked reader must say exactly what a whole-file reader says: a property test reads the
same bytes at several chunk sizes (down to one byte, so that every BOM, NUL, CR, CRLF and UTF-8
sequence is split at every point) and asserts the same lines or the same error. Memory is
bounded for real, not simulated: the memory rows run the CLI in a subprocess under an
address-space limit (``RLIMIT_AS``) set just above what it uses before reading.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.data import io as hio
from harness.data import textfile as tf
from harness.errors import ConfigError, InputError, LayoutError

from .depth import examples

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV = tf.ENV_MAX_INPUT_MB
MIB = 1 << 20

# Pieces that straddle every rule: BOM, NUL, CR, LF, a whole and a cut UTF-8 sequence, a
# surrogate encoded in UTF-8 (invalid), a 4-byte emoji, invalid lead bytes, text.
PIECES = [
    b"a",
    b"bc",
    b" ",
    b"\n",
    b"\r",
    b"\r\n",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\xe2\x82",
    b"\xf0\x9f\x98\x80",
    b"\xed\xa0\x80",
    b"\xff",
    b"\x85",
]


def _outcome(call: Callable[[], object]) -> tuple[object, ...]:
    """What a read gives: ``("ok", value)`` or ``("error", message, line)``."""
    try:
        return ("ok", call())
    except InputError as exc:
        return ("error", str(exc), exc.line)


@settings(
    max_examples=examples(600),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.sampled_from(tf.BOM_RULES))
def test_every_chunk_size_reads_and_refuses_alike(
    tmp_path: Path, pieces: list[bytes], bom: tf.BomRule
) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"".join(pieces))
    lines: list[str] | None = None
    try:
        lines = tf.read_lines(path, bom=bom)  # one chunk: the file at once
        whole: tuple[object, ...] = ("ok", lines)
    except InputError as exc:
        whole = ("error", str(exc), exc.line)
    for chunk in (1, 2, 3, 5):
        kept = _outcome(lambda c=chunk: tf._scan(path, "file", keep=True, chunk=c, bom=bom)[1])
        counted = _outcome(lambda c=chunk: tf._scan(path, "file", keep=False, chunk=c, bom=bom)[0])
        assert kept == whole
        assert counted == (whole if lines is None else ("ok", len(lines)))


#: Text the reader accepts whatever the rule: no NUL, no carriage return, valid UTF-8.
READABLE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=40
)


@settings(max_examples=examples(300), deadline=None)
@given(READABLE, st.booleans())
def test_a_mark_kept_or_stripped_reads_as_python_codecs_read_it(text: str, marked: bool) -> None:
    """``bom="keep"`` reads what ``open(f, encoding="utf-8")`` reads (sacrebleu's command
    line), ``bom="strip"`` what ``encoding="utf-8-sig"`` reads; a file without a mark reads
    alike under every rule."""
    import tempfile

    data = (b"\xef\xbb\xbf" if marked else b"") + text.encode("utf-8")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.txt"
        path.write_bytes(data)
        for bom, codec in (("keep", "utf-8"), ("strip", "utf-8-sig")):
            decoded = data.decode(codec)
            if not decoded:
                with pytest.raises(InputError, match="empty file"):
                    tf.read_lines(path, bom=bom)  # type: ignore[arg-type]
                continue
            expected = decoded.split("\n")
            if decoded.endswith("\n"):
                expected.pop()
            assert tf.read_lines(path, bom=bom) == expected  # type: ignore[arg-type]
            assert tf.count_lines(path, bom=bom) == len(expected)  # type: ignore[arg-type]
        if not marked and text:
            assert tf.read_lines(path) == tf.read_lines(path, bom="keep")


def test_a_file_over_the_limit_is_refused_from_its_size(tmp_path: Path, monkeypatch) -> None:
    """A sparse 2 GiB file (no disk space, all NUL bytes) is refused for its size: had a byte
    been read, the NUL byte would have been the error."""
    monkeypatch.delenv(ENV, raising=False)
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(2 * 1024 * MIB)
    size = big.stat().st_size
    with pytest.raises(InputError) as info:
        tf.read_lines(big, what="hypothesis file")
    message = str(info.value)
    assert info.value.file == str(big)
    assert f"hypothesis file is too large: 2.0 GiB ({size} bytes)" in message
    assert f"input size limit of {tf.DEFAULT_MAX_INPUT_MB} MiB" in message
    assert f"{ENV}=" in message and "NUL" not in message
    with pytest.raises(InputError, match="too large"):
        tf.count_lines(big)


def test_the_limit_comes_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    line = b"the cat sat on the mat\n"
    fits = tmp_path / "fits.txt"
    fits.write_bytes(line * (MIB // len(line)))
    over = tmp_path / "over.txt"
    over.write_bytes(line * (MIB // len(line) + 1))
    monkeypatch.setenv(ENV, "1")
    assert tf.max_input_bytes() == MIB
    assert len(tf.read_lines(fits)) == fits.read_bytes().count(b"\n")
    with pytest.raises(InputError, match=r"over the input size limit of 1 MiB") as info:
        tf.read_lines(over)
    assert f"({over.stat().st_size} bytes)" in str(info.value)
    monkeypatch.setenv(ENV, "0")  # no limit
    assert tf.max_input_bytes() is None
    assert len(tf.read_lines(over)) == over.read_bytes().count(b"\n")


@pytest.mark.parametrize("value", ["lots", "-1", "1.5", "1e3", "0x10"])
def test_an_invalid_limit_is_a_config_error(value: str, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "f.txt").write_bytes(b"a\n")
    monkeypatch.setenv(ENV, value)
    with pytest.raises(ConfigError) as info:
        tf.read_lines(tmp_path / "f.txt")
    assert ENV in str(info.value) and repr(value) in str(info.value)


def test_a_pipe_is_refused_once_more_than_the_limit_came_through(
    tmp_path: Path, monkeypatch
) -> None:
    """A pipe has no size to check first: reading stops once the limit is passed, and the
    writer sees the pipe closed instead of the reader holding all of it."""
    fifo = tmp_path / "hyp.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv(ENV, "1")
    written: list[int] = []
    stopped: list[bool] = []

    def writer() -> None:  # an endless stream, like `yes | bleu-harness score /dev/stdin ...`
        try:
            with open(fifo, "wb") as fh:
                while True:
                    fh.write(b"x" * (16 * 1024 - 1) + b"\n")
                    written.append(16 * 1024)
        except BrokenPipeError:
            stopped.append(True)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        with pytest.raises(InputError) as info:
            tf.read_lines(fifo, what="hypothesis file")
    finally:
        thread.join(timeout=60)
    assert not thread.is_alive()
    assert f"more than {tf.format_size(MIB)} read" in str(info.value)
    assert info.value.file == str(fifo)
    assert stopped and sum(written) < 3 * MIB  # the reader stopped soon past the limit


def test_count_lines_agrees_with_read_lines(tmp_path: Path) -> None:
    for data in (b"a", b"a\n", b"\n", b"\n\n", b"a\nb", "é\n\u2028\n".encode()):
        path = tmp_path / "f.txt"
        path.write_bytes(data)
        assert tf.count_lines(path) == len(tf.read_lines(path))


def test_mismatched_counts_are_refused_by_the_scan(tmp_path: Path) -> None:
    """The precheck raises the loader's own LayoutError (the same message) from a scan."""
    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes(b"a\nb\nc\n")
    ref = tmp_path / "ref.txt"
    ref.write_bytes(b"a\n")
    with pytest.raises(LayoutError) as scanned:
        tf.precheck_line_aligned([hyp], [ref])
    with pytest.raises(LayoutError) as loaded:
        hio.load_text_corpus(hyp, [ref])
    assert str(scanned.value) == str(loaded.value)
    assert (scanned.value.expected, scanned.value.got) == (3, 1)


# ---------------------------------------------------------------------------- under RLIMIT_AS
#: Runs ``main(argv)`` with the address space limited to what the process uses once the
#: command's modules are imported plus ``HEADROOM`` MiB.
DRIVER = """
import resource, sys
from harness.cli.app import main, parser_for
headroom, argv = int(sys.argv[1]), sys.argv[2:]
parser_for(argv)
with open("/proc/self/status") as fh:
    vm = next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:"))
limit = vm + headroom * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.exit(main(argv))
"""
HEADROOM = 100
#: 5.6 million two-character lines: 16 MiB of text whose lines take at least 61 MiB (a list
#: slot each), and in CPython over 300 MiB; a chunk of the scan is 16 MiB.
LINES = 5_600_000


def _limited(
    tmp: Path, *argv: str, stdin: int | None = None, limit_mb: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop(ENV, None)
    if limit_mb is not None:
        env[ENV] = limit_mb
    return subprocess.run(
        [sys.executable, "-c", DRIVER, str(HEADROOM), *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        stdin=stdin,
        timeout=300,
    )


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("memory")
    (folder / "hyp.txt").write_bytes(b"ab\n" * LINES)
    (folder / "ref.txt").write_bytes(b"ab\nab\nab\n")
    return folder


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_a_line_count_mismatch_is_refused_in_bounded_memory(big_files: Path) -> None:
    done = _limited(big_files, "score", "hyp.txt", "ref.txt")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"hypothesis file hyp.txt has {LINES} lines, reference file ref.txt has 3" in done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_files_that_cannot_fit_are_refused_before_reading(big_files: Path) -> None:
    done = _limited(big_files, "score", "hyp.txt", "hyp.txt")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    needed = tf.format_size(2 * ((big_files / "hyp.txt").stat().st_size + 8 * LINES))
    assert f"hyp.txt: reading the 2 files ({2 * LINES} lines) needs at least {needed}" in (
        done.stderr
    )
    assert "left under the address-space limit (ulimit -v)" in done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_files_larger_than_memory_are_refused_from_their_size(tmp_path: Path) -> None:
    """With the size limit lifted, two sparse 2 GiB files (all NUL bytes: a scan would stop
    at the first) are refused from their sizes against the memory left under ``ulimit -v``."""
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(2 * 1024 * MIB)
    done = _limited(tmp_path, "score", "big.txt", "big.txt", limit_mb="0")
    assert done.returncode == 2, done.stderr
    needed = tf.format_size(2 * big.stat().st_size)
    assert f"big.txt: reading the 2 files needs at least {needed}" in done.stderr
    assert "(ulimit -v)" in done.stderr and "NUL" not in done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_running_out_of_memory_on_a_pipe_is_an_input_error(big_files: Path) -> None:
    """A pipe cannot be sized or scanned first: the MemoryError while reading it becomes an
    input error naming it, not an internal error."""
    cat = subprocess.Popen(["cat", str(big_files / "hyp.txt")], stdout=subprocess.PIPE)
    assert cat.stdout is not None
    try:
        done = _limited(big_files, "score", "/dev/stdin", "ref.txt", stdin=cat.stdout.fileno())
    finally:
        cat.stdout.close()
        cat.wait(timeout=60)
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "/dev/stdin: out of memory reading the hypothesis file (a stream)" in done.stderr


def test_cli_names_the_file_and_its_size(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "hyp.txt").write_bytes(b"a b c\n" * 300_000)
    (tmp_path / "ref.txt").write_bytes(b"a b c\n" * 300_000)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV, "1")
    size = (tmp_path / "hyp.txt").stat().st_size
    assert main(["compare", "hyp.txt", "--refs", "ref.txt", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"ref.txt: reference file is too large: {tf.format_size(size)}" in err
    assert "over the input size limit of 1 MiB" in err
