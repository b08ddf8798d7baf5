"""The compiled kernels (``harness/bleu/_native.c``) refuse what they cannot count, and stay
correct when user code runs during a call or threads share them.

* Every array argument must be a 1-D (``out``: 2-D) C-contiguous buffer of 8-byte signed
  integers in the host's byte order: a buffer format is accepted exactly when the
  :mod:`struct` module reads 8 such bytes in it as one signed integer equal to theirs (checked
  on the format alone, and through real exporters: numpy, ctypes, CPython's ``_testbuffer``);
  wrong dimensions, strides, lengths, overlapping outputs and word spans outside ``flat`` are
  errors, not reads out of bounds.
* User code that runs inside a call — ``__bool__``, ``__index__`` and ``__iter__`` while the
  arguments are parsed, ``__hash__``/``__eq__`` of str subclasses (which the kernels never
  call) — and mutates the containers or resizes the arrays gets a correct result for what the
  containers then hold, or an error; never a crash or a stale read (``make sanitize`` runs
  these under AddressSanitizer).
* Threads that share one ``WordTable`` get one id per word; counts made in parallel threads
  (the counting releases the GIL) equal the reference.
* The module uses multi-phase initialisation (each load is a new module with its own
  ``WordTable`` type) and, on a free-threaded CPython, leaves the GIL disabled.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import struct
import subprocess
import sys
import sysconfig
import threading
from types import ModuleType
from typing import Any, ClassVar

import numpy as np
import pytest

# test_native skips (or, under CI=true, fails) the module when the kernels are not in use
from .test_native import kernels, reference_matches

I64 = np.int64
#: 8 distinct bytes: a format that reads them back as this one number reads int64
PROBE = -0x0102030405060708


def _clipped_one(segment: list[list[int]], order: int) -> list[int]:
    """Clipped matches of one segment, by the counter reference of test_native."""
    return reference_matches([segment], order)[0]


def struct_reads_one_int64(fmt: str) -> bool:
    """Whether :mod:`struct` reads the host-order bytes of :data:`PROBE` in ``fmt`` as exactly
    that one number: one signed 8-byte integer in the host's byte order."""
    try:
        return struct.unpack(fmt, PROBE.to_bytes(8, sys.byteorder, signed=True)) == (PROBE,)
    except struct.error:
        return False


# every order mark with every struct code, and malformed or composite formats
FORMATS = [
    order + code for order in ("", "@", "=", "<", ">", "!") for code in "xcbB?hHiIlLqQnNefdspP"
]
FORMATS += ["", "<", "@", "2i", "8x", "2q", "ll", "lq", "q<", "ql", "T{l:a:}", "T{}", "&q"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_format_check_accepts_exactly_one_native_int64(fmt: str) -> None:
    assert kernels._int64_format(fmt) is struct_reads_one_int64(fmt)


def test_the_format_check_accepts_what_numpy_presents_for_int64() -> None:
    presented = {memoryview(np.zeros(1, t)).format for t in (I64, np.longlong, "=i8", "i8")}
    assert presented and all(map(kernels._int64_format, presented))


def _exporters() -> list[tuple[str, Any]]:
    """One-item buffers of value 0 in many formats and item sizes."""
    out: list[tuple[str, Any]] = [
        (f"numpy {np.dtype(t).str}", np.zeros(1, t))
        for t in ("<i8", ">i8", "=i8", "<u8", "<f8", "<i4", "V8", "<M8[s]", [("a", "<i8")])
        if _exports(np.zeros(1, t))
    ]
    out += [(f"ctypes {t.__name__}", (t * 1)()) for t in (ctypes.c_int64, ctypes.c_long)]
    out += [(f"ctypes {t.__name__}", (t * 1)()) for t in (ctypes.c_uint64, ctypes.c_double)]
    testbuffer = _testbuffer()
    if testbuffer is not None:
        for fmt in ("q", "@q", "=q", "<q", ">q", "!q", "Q", "d", "n", "l", "xq"):
            item = 0.0 if fmt == "d" else 0
            out.append((f"_testbuffer {fmt}", testbuffer.ndarray([item], shape=[1], format=fmt)))
    out += [("bytes", bytes(8)), ("bytearray", bytearray(8))]
    return out


def _exports(obj: Any) -> bool:
    try:
        memoryview(obj)
    except (TypeError, ValueError, BufferError):
        return False
    return True


def _testbuffer() -> ModuleType | None:
    try:
        import _testbuffer  # CPython's test exporter of any struct format
    except ImportError:
        return None
    return _testbuffer


EXPORTERS = _exporters()


@pytest.mark.parametrize(("name", "obj"), EXPORTERS, ids=[name for name, _ in EXPORTERS])
def test_real_exporters_are_taken_exactly_when_their_format_is_int64(name: str, obj: Any) -> None:
    """Every exporter holds the value 0: word 0 (the line end), or one empty hypothesis."""
    view = memoryview(obj)
    ok = view.itemsize == 8 and struct_reads_one_int64(view.format)
    start, lens, flat = np.zeros(1, I64), np.ones(1, I64), np.array([7], I64)
    texts, out = np.array([1], I64), np.full((1, 2), -1, I64)
    if ok:
        assert kernels.gather(obj, start, lens, flat) == (
            flat.tobytes(),
            np.zeros(1, I64).tobytes(),
        )
        kernels.count_segments(obj, texts, 2, out)
        assert out.tolist() == [_clipped_one([[]], 2)]
        return
    with pytest.raises(TypeError, match="word_ids must be an int64 array"):
        kernels.gather(obj, start, lens, flat)
    with pytest.raises(TypeError, match="tokens must be an int64 array"):
        kernels.count_segments(obj, texts, 2, out)
    with pytest.raises(TypeError, match="texts must be an int64 array"):
        kernels.count_segments(np.zeros(1, I64), obj, 2, out)


def test_arrays_must_have_their_dimensions_and_be_c_contiguous() -> None:
    start, lens, flat = np.zeros(1, I64), np.ones(1, I64), np.zeros(1, I64)
    with pytest.raises(ValueError, match="word_ids must have 1 dimension, not 0"):
        kernels.gather(np.array(0, I64), start, lens, flat)
    with pytest.raises(ValueError, match="flat must have 1 dimension, not 2"):
        kernels.gather(np.zeros(1, I64), start, lens, flat.reshape(1, 1))
    with pytest.raises(ValueError, match="word_start must be C-contiguous"):
        kernels.gather(np.zeros(1, I64), np.zeros(4, I64)[::2], np.ones(2, I64), flat)
    tokens, texts = np.array([1, 0], I64), np.array([1], I64)
    with pytest.raises(ValueError, match="tokens must be C-contiguous"):
        kernels.count_segments(np.array([1, 9, 0, 9], I64)[::2], texts, 2, np.zeros((1, 2), I64))
    with pytest.raises(ValueError, match="out must have 2 dimensions, not 1"):
        kernels.count_segments(tokens, texts, 2, np.zeros(2, I64))
    with pytest.raises(ValueError, match="out must be C-contiguous"):
        kernels.count_segments(tokens, texts, 2, np.zeros((1, 4), I64)[:, ::2])
    with pytest.raises(ValueError, match="read-only"):  # numpy's own refusal
        frozen = np.zeros((1, 2), I64)
        frozen.flags.writeable = False
        kernels.count_segments(tokens, texts, 2, frozen)


def test_lengths_that_disagree_are_errors() -> None:
    tokens, texts = np.array([1, 2, 0, 1, 0], I64), np.array([2], I64)
    with pytest.raises(
        ValueError, match=r"out must hold segments x max_order values \(1 x 2\), not 2 x 2"
    ):
        kernels.count_segments(tokens, texts, 2, np.zeros((2, 2), I64))
    with pytest.raises(ValueError, match=r"\(1 x 3\), not 1 x 2"):
        kernels.count_segments(tokens, texts, 3, np.zeros((1, 2), I64))
    with pytest.raises(ValueError, match="tokens go on after the last segment"):
        kernels.count_segments(np.append(tokens, [5, 0]), texts, 2, np.zeros((1, 2), I64))
    with pytest.raises(ValueError, match="tokens go on after the last segment"):
        kernels.count_segments(tokens, np.zeros(0, I64), 2, np.zeros((0, 2), I64))
    with pytest.raises(ValueError, match="one value per word, not 2 and 1"):
        kernels.gather(np.zeros(1, I64), np.zeros(2, I64), np.ones(1, I64), np.zeros(1, I64))


def test_out_must_not_overlap_the_inputs() -> None:
    memory = np.zeros(16, I64)
    memory[:5] = [1, 2, 0, 1, 0]
    tokens, texts = memory[:5], np.array([2], I64)
    with pytest.raises(ValueError, match="must not share memory"):
        kernels.count_segments(tokens, texts, 2, memory[4:6].reshape(1, 2))
    with pytest.raises(ValueError, match="must not share memory"):
        kernels.count_segments(tokens, memory[9:10], 1, memory[9:10].reshape(1, 1))
    kernels.count_segments(tokens, texts, 2, memory[6:8].reshape(1, 2))  # the same base, apart
    assert memory[6:8].tolist() == _clipped_one([[1, 2], [1]], 2)


def test_word_spans_outside_flat_are_index_errors_without_overflow() -> None:
    huge = 2**62
    flat = np.zeros(3, I64)
    for start, length in ((huge, huge), (1, huge), (-1, 1), (2, 2), (0, -1), (3, 1)):
        with pytest.raises(IndexError, match="word id 0 has no tokens"):
            kernels.gather(np.zeros(1, I64), np.array([start], I64), np.array([length], I64), flat)
    with pytest.raises(IndexError, match="word id -1 has no tokens"):
        kernels.gather(np.array([-1], I64), np.zeros(1, I64), np.ones(1, I64), flat)
    # an empty span at the very end of flat is a word of no token
    flat = np.array([0, 5, 6], I64)
    got = kernels.gather(np.array([1, 0], I64), np.array([0, 3], I64), np.array([1, 0], I64), flat)
    assert got == (flat[3:3].tobytes() + flat[0:1].tobytes(), np.zeros(1, I64).tobytes())


def test_orders_beyond_every_text_count_nothing_there() -> None:
    segment = [[1, 2, 1], [2, 1, 2]]
    tokens = np.array([t for text in segment for t in (*text, 0)], I64)
    out = np.full((1, 1000), -1, I64)
    kernels.count_segments(tokens, np.array([2], I64), 1000, out)
    assert out.tolist() == [_clipped_one(segment, 1000)]
    kernels.count_segments(
        np.zeros(0, I64), np.zeros(0, I64), 2**31 - 1, np.zeros((0, 2**31 - 1), I64)
    )


# ---------------------------------------------------------------------------- user code
class Meddler(str):
    """A str whose hash and equality, were they ever called, would empty ``victim``."""

    victim: ClassVar[list[Any]] = []
    calls = 0

    def __hash__(self) -> int:
        Meddler.calls += 1
        Meddler.victim.clear()
        return 0

    def __eq__(self, other: object) -> bool:
        Meddler.calls += 1
        Meddler.victim.clear()
        return False


def test_str_subclasses_are_read_as_their_text_and_stored_as_str() -> None:
    words = ["a b", "a", "b c a", "a b"]
    lines: list[Any] = [Meddler(w) for w in words]
    Meddler.victim, Meddler.calls = lines, 0
    for split in (True, False):
        table, plain = kernels.WordTable(hash_mask=0), kernels.WordTable()
        got, want = table.ids(lines, split), plain.ids(list(words), split)
        assert got == want and len(lines) == 4 and Meddler.calls == 0
        assert all(type(key) is str for key in table.keys())


class Clears:
    """A truth value, or an index, whose reading empties ``victim`` (or resizes an array)."""

    def __init__(self, victim: Any, value: int) -> None:
        self.victim, self.value = victim, value

    def _meddle(self) -> None:
        if isinstance(self.victim, np.ndarray):
            self.victim.resize(4096, refcheck=False)  # frees the memory it had
        else:
            self.victim.clear()

    def __bool__(self) -> bool:
        self._meddle()
        return bool(self.value)

    def __index__(self) -> int:
        self._meddle()
        return self.value


def test_arguments_parsed_after_the_items_do_not_leave_stale_items() -> None:
    """``split`` is read after ``items`` is taken: the kernel reads the list as it is then."""
    lines = ["a b", "c"]
    table = kernels.WordTable()
    assert table.ids(lines, Clears(lines, 1)) == (b"", []) and len(table) == 0


def test_an_index_that_resizes_the_tokens_gives_an_error_not_a_stale_read() -> None:
    """``max_order``'s ``__index__`` runs before the buffers are taken: the kernel sees the
    resized array (the segment's texts, then the zeros numpy appended)."""
    segment = [[1, 2], [1, 2]]
    tokens = np.array([t for text in segment for t in (*text, 0)], I64)
    out = np.zeros((1, 2), I64)
    with pytest.raises(ValueError, match="tokens go on after the last segment"):
        kernels.count_segments(tokens, np.array([2], I64), Clears(tokens, 2), out)
    assert len(tokens) == 4096  # the resize happened, before the kernel took the buffer
    kernels.count_segments(tokens[:6], np.array([2], I64), 2, out)
    assert out.tolist() == [_clipped_one(segment, 2)]


class ClearsOnIter(list[str]):
    """A group whose iteration empties the outer list."""

    outer: ClassVar[list[Any]] = []

    def __iter__(self) -> Any:
        ClearsOnIter.outer.clear()
        return super().__iter__()


def test_framing_reads_the_groups_as_they_were_when_called() -> None:
    groups: list[Any] = [["a", "é"], ClearsOnIter(["語"]), ["b"]]
    ClearsOnIter.outer = groups
    texts = ["a", "é", "語", "b"]
    want = (np.array(list(map(len, texts)), "<i8").tobytes(), "".join(texts).encode())
    assert kernels.framing(groups) == want
    assert groups == []


# ---------------------------------------------------------------------------- threads
def test_threads_sharing_one_word_table_get_one_id_per_word() -> None:
    table = kernels.WordTable()
    vocabulary = [f"w{i}" for i in range(3000)]
    results: list[tuple[list[str], list[int]]] = []
    failures: list[BaseException] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(20):
                words = [vocabulary[i] for i in rng.integers(0, len(vocabulary), 200)]
                raw, _ = table.ids(words, False)
                results.append((words, np.frombuffer(raw, I64).tolist()))
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    keys = table.keys()
    assert len(keys) == len(set(keys)) == len(table)
    for words, ids in results:
        assert [keys[i] for i in ids] == words


def test_counts_made_in_parallel_threads_equal_the_reference() -> None:
    rng = np.random.default_rng(7)
    batches = []
    for _ in range(8):
        segments = [
            [rng.integers(1, 4, rng.integers(0, 30)).tolist() for _ in range(3)] for _ in range(200)
        ]
        tokens = np.array([t for seg in segments for text in seg for t in (*text, 0)], I64)
        batches.append((segments, tokens, np.full(len(segments), 3, I64)))
    outs = [np.zeros((200, 4), I64) for _ in batches]
    threads = [
        threading.Thread(target=kernels.count_segments, args=(tokens, texts, 4, out))
        for (_, tokens, texts), out in zip(batches, outs, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for (segments, _, _), out in zip(batches, outs, strict=True):
        assert out.tolist() == [_clipped_one(seg, 4) for seg in segments]


# ---------------------------------------------------------------------------- the module
def _load_again() -> ModuleType:
    spec = importlib.util.spec_from_file_location(kernels.__name__, kernels.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_load_is_a_module_of_its_own() -> None:
    """Multi-phase initialisation: every load runs the module's exec slot again and makes
    its own WordTable type (a heap type), so no state is shared between module objects."""
    again = _load_again()
    assert again is not kernels and again.WordTable is not kernels.WordTable
    table = again.WordTable()
    assert table.ids(["x y x"], True) == (np.array([0, 1, 0, 0], I64).tobytes(), ["x", "y"])
    with pytest.raises(TypeError):  # the type cannot be subclassed, so no instance has a dict
        type("Sub", (kernels.WordTable,), {})


@pytest.mark.skipif(
    not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="needs a free-threaded CPython"
)
def test_a_free_threaded_python_keeps_the_gil_disabled() -> None:
    code = (
        "import sys; from harness.bleu import native; native.module(); print(sys._is_gil_enabled())"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    out = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert out.stdout.strip() == "False"
