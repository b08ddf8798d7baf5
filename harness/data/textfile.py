"""Reading text files strictly and in bounded memory: the rules, the size limit, the scan.

Conventions of every text file the harness reads:

* **UTF-8, strictly**: no invalid byte sequences, no NUL bytes, and no byte-order mark unless
  a rule for it is given (:data:`BomRule`: ``"keep"`` reads it as sacrebleu's command line,
  mteval-v13a.pl and multi-bleu.perl do, ``"strip"`` drops it; the default refuses it).
* **Line-aligned**: line ``i`` of every file belongs to segment ``i``. Lines are split on
  ``'\\n'`` only. Other characters that :meth:`str.splitlines` treats as line breaks
  (``\\x0b``, ``\\x0c``, ``\\x1c``–``\\x1e``, ``\\x85``, ``\\u2028``, ``\\u2029``) are ordinary
  characters *inside* a segment; splitting on them would silently misalign hypotheses and
  references.
* **Unix line endings**: a ``'\\r'`` anywhere is an error (CRLF files are rejected with the
  command that fixes them) rather than a character that ends up inside a reference and changes
  its tokens.
* A final ``'\\n'`` ends the last line; it does not start an extra empty one. A file without a
  final newline is fine. An empty line in the middle is a legitimate segment (an empty
  hypothesis or reference). A file of 0 bytes has no segments and is an error.

Every problem raises :class:`~harness.errors.InputError` naming the file and, where it applies,
the 1-based line; count mismatches between files raise :class:`~harness.errors.LayoutError`
naming the file, the expected and the actual count.

Sizes and memory:

* **A size limit per file**, ``$BLEU_HARNESS_MAX_INPUT_MB`` MiB (default
  :data:`DEFAULT_MAX_INPUT_MB`, 1 GiB; ``0`` for none). A regular file over it is refused from
  its size (:func:`os.stat`) before a byte is read, naming its size, the limit and the variable;
  a pipe is refused once more than the limit has come through it.
* **Streamed reading.** Files are read and checked a chunk at a time, so reading holds the
  lines and one chunk, never the whole file's bytes beside its text. Several line-aligned files
  are first scanned without keeping anything (:func:`precheck_line_aligned`): a bad byte or a
  line count that differs is refused before any file is held in memory.
* **Memory.** Before reading, the least memory the lines will take (their characters and a
  list slot per line) is compared with what the process can still allocate
  (:func:`available_memory`: the ``ulimit -v`` address-space limit and the system's available
  memory); a ``MemoryError`` while reading becomes an :class:`~harness.errors.InputError`
  naming the file and its size.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import traceback
from collections.abc import Sequence
from typing import BinaryIO, Literal, TypeAlias, get_args

from harness.data.corpus import BOM, CR, NUL
from harness.errors import ConfigError, InputError, LayoutError

PathLike: TypeAlias = "str | os.PathLike[str]"
"""A file name: a ``str`` or anything :func:`os.fspath` turns into one (e.g. ``pathlib.Path``)."""

BomRule: TypeAlias = Literal["refuse", "keep", "strip"]
"""What reading does with a UTF-8 byte-order mark (bytes EF BB BF) that starts a file.

* ``"refuse"`` (the default): an :class:`~harness.errors.InputError` naming the other two.
* ``"keep"``: the mark is read as the character U+FEFF at the start of the first line, as the
  official scorers read such a file — sacrebleu's command line (UTF-8 without ``-sig``),
  mteval-v13a.pl and multi-bleu.perl (bytes) — so that it stays glued to the first token of
  the first segment and their published scores can be reproduced.
* ``"strip"``: the mark is dropped, as Python's ``utf-8-sig`` codec reads the file.
"""

BOM_RULES: tuple[BomRule, ...] = get_args(BomRule)
"""The values of :data:`BomRule`, default first."""

# The characters refused here are the table in harness.data.corpus (UNREADABLE_CHARS), which
# also warns about them in strings given to the API; here they are found as bytes.
_BOM = BOM.encode()  # EF BB BF
_NUL = NUL.encode()
_CR = CR.encode()

__all__ = [
    "BOM_RULES",
    "DEFAULT_MAX_INPUT_MB",
    "ENV_MAX_INPUT_MB",
    "BomRule",
    "PathLike",
    "available_memory",
    "count_lines",
    "format_size",
    "line_counts_differ",
    "max_input_bytes",
    "out_of_memory",
    "precheck_line_aligned",
    "read_lines",
    "read_record_lines",
]


# ---------------------------------------------------------------------------- limits
ENV_MAX_INPUT_MB = "BLEU_HARNESS_MAX_INPUT_MB"
"""The environment variable that sets the input size limit: MiB per file, ``0`` for none."""

DEFAULT_MAX_INPUT_MB = 1024
"""The input size limit, in MiB per file, when :data:`ENV_MAX_INPUT_MB` is not set (1 GiB:
reading a file takes a few times its size in memory, and scoring it more)."""

_MIB = 1 << 20
# Bytes read at a time: large enough that the per-chunk work is noise, small enough that a scan
# (counting and checking without keeping the text) needs little memory whatever the file's size.
_CHUNK = 16 * _MIB
# The least a line costs in memory beyond its characters: its slot in the list. (Its str object's
# header too, except for empty and one-character lines, which CPython shares: a lower bound
# must not count it.)
_LINE_OVERHEAD = 8


def max_input_bytes() -> int | None:
    """The most bytes one input file may hold, or ``None`` for no limit.

    ``$BLEU_HARNESS_MAX_INPUT_MB`` MiB when set (``0``: no limit), else
    :data:`DEFAULT_MAX_INPUT_MB`. A regular file over the limit is refused from its size alone,
    before it is read; a pipe is refused once more than the limit has been read from it.

    Raises:
        ConfigError: the variable is set to anything but a whole number >= 0.
    """
    raw = os.environ.get(ENV_MAX_INPUT_MB, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB * _MIB
    mb = int(raw) if raw.isdigit() else -1
    if mb < 0:
        raise ConfigError(
            f"{ENV_MAX_INPUT_MB} must be a whole number of MiB, 0 for no limit, got {raw!r}"
        )
    return None if mb == 0 else mb * _MIB


def format_size(size: int) -> str:
    """A byte count as a message shows it: the bytes, and KiB/MiB/GiB when that is shorter.

    >>> format_size(512), format_size(2148388794)
    ('512 bytes', '2.0 GiB (2148388794 bytes)')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit} ({size} bytes)"
    return f"{size} byte{'' if size == 1 else 's'}"


def _limit_hint() -> str:
    return (
        f"raise the limit with {ENV_MAX_INPUT_MB}=MiB (0: no limit) if this machine has the "
        "memory (reading takes a few times the file's size, scoring more), or split the file"
    )


def _too_large(file: str, what: str, size: int | None, limit: int) -> InputError:
    has = format_size(size) if size is not None else f"more than {format_size(limit)} read"
    return InputError(
        f"{what} is too large: {has}, over the input size limit of {limit // _MIB} MiB; "
        + _limit_hint(),
        file=file,
    )


def proc_kb(path: str, field: str) -> int | None:
    """The ``field:  N kB`` value of a ``/proc`` file in bytes, or ``None``."""
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def available_memory() -> tuple[int, str] | None:
    """About how many more bytes this process can allocate, and what sets that, or ``None``
    when neither bound is known (not Linux).

    The smaller of: the address-space limit (``ulimit -v``, ``RLIMIT_AS``) minus the process's
    current size (``VmSize``), and the memory the system has available (``MemAvailable`` in
    ``/proc/meminfo``, which counts the page cache the kernel can reclaim). A container's cgroup
    limit is not consulted: its usage includes the page cache, so it would refuse files that
    fit.
    """
    bounds: list[tuple[int, str]] = []
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        used = proc_kb("/proc/self/status", "VmSize")
        if soft != resource.RLIM_INFINITY and used is not None:
            bounds.append(
                (
                    max(soft - used, 0),
                    f"left under the address-space limit (ulimit -v) of {format_size(soft)}",
                )
            )
    free = proc_kb("/proc/meminfo", "MemAvailable")
    if free is not None:
        bounds.append((free, "the system has available (MemAvailable)"))
    return min(bounds) if bounds else None


def _check_memory(needed: int, file: str, what: str) -> None:
    """Refuse to read when it needs more than :func:`available_memory` (a lower bound)."""
    avail = available_memory()
    if avail is not None and needed > avail[0]:
        raise InputError(
            f"reading the {what} needs at least {format_size(needed)} of memory, more than the "
            f"{format_size(avail[0])} {avail[1]}; free memory or raise the limit, or split the "
            "files",
            file=file,
        )


def _out_of_memory(file: str, what: str, size: int | None) -> InputError:
    has = format_size(size) if size is not None else "a stream"
    return InputError(
        f"out of memory reading the {what} ({has}); free memory or raise the memory limit "
        "(ulimit -v), or split the file",
        file=file,
    )


def out_of_memory(paths: Sequence[PathLike]) -> InputError:
    """The error for a MemoryError while loading ``paths`` together: their names and sizes."""
    sizes = []
    for p in paths:
        try:
            sizes.append(f"{p} ({format_size(os.stat(p).st_size)})")
        except OSError:
            sizes.append(str(p))
    return InputError(
        f"out of memory loading {', '.join(sizes)}; free memory or raise the memory limit "
        "(ulimit -v), or split the files",
        file=str(paths[0]) if paths else None,
    )


# ---------------------------------------------------------------------------- reading
def _unreadable(exc: OSError, what: str, file: str) -> InputError:
    """The input error for an input file that cannot be opened or stat'ed."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{what} not found", file=file)
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{what} is a directory, not a file", file=file)
    if isinstance(exc, PermissionError):
        return InputError(f"{what} is not readable: {exc.strerror}", file=file)
    return InputError(f"cannot read {what}: {exc.strerror or exc}", file=file)


def _stat_input(path: PathLike, what: str) -> int | None:
    """The size of input file ``path``, or ``None`` when it is not a regular file (a pipe);
    InputError when it is missing, a directory or over :func:`max_input_bytes` — all known
    before a byte is read."""
    file = str(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _unreadable(exc, what, file) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} is a directory, not a file", file=file)
    if not stat.S_ISREG(st.st_mode):
        return None
    limit = max_input_bytes()
    if limit is not None and st.st_size > limit:
        raise _too_large(file, what, st.st_size, limit)
    return st.st_size


def _position(data: bytes, offset: int, newlines: int, last_nl: int, at: int) -> tuple[int, int]:
    """The 1-based line and byte column of file offset ``at``, where ``data`` is the chunk at
    file offset ``offset``, ``newlines`` the ``'\\n'`` before it and ``last_nl`` the file
    offset of the last of those (``at`` may lie before ``offset``, in an unfinished UTF-8
    sequence carried over, which holds no ``'\\n'``)."""
    rel = max(at - offset, 0)
    line = newlines + data.count(b"\n", 0, rel) + 1
    j = data.rfind(b"\n", 0, rel)
    start = offset + j + 1 if j >= 0 else last_nl + 1
    return line, at - start + 1


def check_bom_rule(bom: str) -> BomRule:
    """``bom`` as a :data:`BomRule`; ConfigError naming the rules for anything else."""
    if bom not in BOM_RULES:
        raise ConfigError(f"bom must be one of {', '.join(BOM_RULES)}, got {bom!r}")
    return bom


def _bom_refused(file: str) -> InputError:
    return InputError(
        "starts with a UTF-8 byte-order mark (BOM, bytes EF BB BF). sacrebleu's command line, "
        "mteval-v13a.pl and multi-bleu.perl read it as part of the first segment's first word, "
        "and their published scores include it: `--bom keep` (bom='keep') scores it as they "
        "do; `--bom strip` (bom='strip') drops it; or remove it from the file "
        "(`sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`)",
        file=file,
        line=1,
    )


def _scan_open(
    fh: BinaryIO,
    file: str,
    what: str,
    *,
    keep: bool,
    chunk: int,
    limit: int | None,
    bom: BomRule = "refuse",
) -> tuple[int, list[str]]:
    """Check an open file a chunk at a time (see :func:`read_lines`); its line count, and its
    lines when ``keep``. A leading byte-order mark is handled by ``bom`` (:data:`BomRule`);
    stripped, it still counts in the byte offsets that errors report.

    The problems are reported in the order a whole-file reader finds them — a NUL byte
    anywhere first, then the first invalid UTF-8, then the first ``'\\r'`` — so the scan goes
    on after an invalid byte or a ``'\\r'`` (keeping no more lines) in case a NUL byte follows.
    """
    lines: list[str] = []
    skipped = 0  # bytes of a stripped byte-order mark, before the chunk's file offset
    tail = ""  # the unfinished last line of the text decoded so far
    pending = b""  # an unfinished UTF-8 sequence at the end of the previous chunk
    offset = newlines = 0  # the chunk's file offset; the '\n' before it
    last_nl = -1  # file offset of the last '\n' before the chunk
    bad: tuple[int, int, int, UnicodeDecodeError] | None = None  # line, column, offset, error
    cr: tuple[int, int] | None = None  # line and column of the first '\r'
    crlf: bool | None = None  # whether that '\r' is followed by '\n' (None: not read yet)
    while True:
        # no further than one byte past the limit (a pipe has no size to refuse first); the
        # first read covers a whole BOM, whatever the chunk size
        n = chunk if limit is None else min(chunk, limit - offset + 1)
        data = fh.read(n if offset else max(n, len(_BOM)))
        if not data:
            break
        if limit is not None and offset + len(data) > limit:
            raise _too_large(file, what, None, limit)
        if offset == 0 and not skipped and data.startswith(_BOM):
            if bom == "refuse":
                raise _bom_refused(file)
            if bom == "strip":  # the offsets stay the file's
                offset = skipped = len(_BOM)
                data = data[skipped:]
                if not data:
                    continue
        nul = data.find(_NUL)
        if nul >= 0:
            line, col = _position(data, offset, newlines, last_nl, offset + nul)
            raise InputError(
                f"NUL byte at byte {col} of the line: this looks like a binary file or a "
                "UTF-16/UTF-32 text file; convert it to UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`)",
                file=file,
                line=line,
            )
        if cr is not None and crlf is None:
            crlf = data.startswith(b"\n")  # the '\r' ended the previous chunk
        if cr is None and bad is None:
            i = data.find(_CR)
            if i >= 0:
                cr = _position(data, offset, newlines, last_nl, offset + i)
                crlf = data[i + 1 : i + 2] == b"\n" if i + 1 < len(data) else None
        if bad is None:
            buf = pending + data if pending else data
            try:
                text, used = codecs.utf_8_decode(buf, "strict", False)
            except UnicodeDecodeError as exc:
                at = offset - len(pending) + exc.start
                bad = (*_position(data, offset, newlines, last_nl, at), at, exc)
            else:
                pending = buf[used:]
                if keep and cr is None:
                    parts = (tail + text).split("\n")
                    tail = parts.pop()
                    lines.extend(parts)
        if (bad is not None or cr is not None) and lines:
            lines, tail = [], ""  # an error is coming: keep nothing more
        newlines += data.count(b"\n")
        j = data.rfind(b"\n")
        if j >= 0:
            last_nl = offset + j
        offset += len(data)
    if offset == skipped:
        has = "only a byte-order mark" if skipped else "0 bytes"
        raise InputError(
            f"empty file: the {what} has {has}, so no segments "
            "(an empty segment is an empty line, i.e. a single '\\n')",
            file=file,
        )
    if bad is None and pending:
        try:
            codecs.utf_8_decode(pending, "strict", True)
        except UnicodeDecodeError as exc:
            at = offset - len(pending) + exc.start
            bad = (newlines + 1, at - last_nl, at, exc)
    if bad is not None:
        line, col, at, err = bad
        byte = err.object[err.start : err.start + 1].hex().upper()
        raise InputError(
            f"invalid UTF-8: byte 0x{byte} at byte offset {at} of the file "
            f"(0-based; byte {col} of the line): {err.reason}; "
            "the file must be UTF-8 (convert with `iconv -f OLD-ENCODING -t UTF-8`)",
            file=file,
            line=line,
        )
    if cr is not None:
        line, col = cr
        if crlf:
            raise InputError(
                f"Windows (CRLF) line endings: line {line} ends in \\r\\n; convert the file "
                "to Unix line endings with `dos2unix FILE` or `sed -i 's/\\r$//' FILE`",
                file=file,
                line=line,
            )
        raise InputError(
            f"stray carriage return '\\r' at byte {col} of line {line}; "
            "remove it (e.g. `sed -i 's/\\r//g' FILE`), or if the file uses old Mac line "
            "endings convert them with `tr '\\r' '\\n'`",
            file=file,
            line=line,
        )
    if keep and tail:
        lines.append(tail)  # a last line without a final '\n'
    return newlines + (last_nl != offset - 1), lines


def _scan(
    path: PathLike, what: str, *, keep: bool, chunk: int = _CHUNK, bom: BomRule = "refuse"
) -> tuple[int, list[str]]:
    """Open ``path`` (refusing it by its size first) and :func:`_scan_open` it; a MemoryError
    becomes an InputError naming the file and its size."""
    file = str(path)
    size = _stat_input(path, what)
    limit = max_input_bytes()
    if keep and size is not None:
        _check_memory(size, file, what)
    try:
        fh = open(path, "rb")  # closed below (with fh); a FIFO blocks here for its writer
    except OSError as exc:
        raise _unreadable(exc, what, file) from None
    with fh:
        try:
            return _scan_open(fh, file, what, keep=keep, chunk=chunk, limit=limit, bom=bom)
        except MemoryError as exc:
            # the frames below hold the lines read so far: let them go before saying so
            traceback.clear_frames(exc.__traceback__)
            raise _out_of_memory(file, what, size) from None
        except OSError as exc:
            raise InputError(f"cannot read {what}: {exc.strerror or exc}", file=file) from None


def read_lines(path: PathLike, *, what: str = "file", bom: BomRule = "refuse") -> list[str]:
    """The lines of a line-aligned UTF-8 text file, without their ``'\\n'``.

    ``what`` names the file's role in error messages (``"hypothesis file"``,
    ``"reference file"``…). See the module docstring for the rules; in short the file must be
    non-empty UTF-8 without NUL bytes or ``'\\r'``, and it is split on ``'\\n'`` only. A
    leading byte-order mark is refused, kept as U+FEFF or stripped, by ``bom`` (:data:`BomRule`).
    The file is refused by its size before it is read (:func:`max_input_bytes`, and more than
    the memory :func:`available_memory` reports), then read and checked a chunk at a time, so
    only its lines are held in memory, never its bytes as well.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "hyp.txt")
    >>> _ = open(p, "wb").write("a\\n\\nc\\u2028d\\n".encode())
    >>> read_lines(p)
    ['a', '', 'c\\u2028d']
    >>> _ = open(p, "wb").write(b"\\xef\\xbb\\xbfa b\\n")
    >>> read_lines(p, bom="keep"), read_lines(p, bom="strip")
    (['\\ufeffa b'], ['a b'])

    Raises:
        InputError: the file is missing, a directory or unreadable (no line), over the size
            limit or the available memory, or runs out of memory while read (naming its size);
            empty ("empty file"), starts with a UTF-8 BOM (line 1; unless ``bom`` says what to
            do with it), contains a NUL byte,
            invalid UTF-8, a CRLF line ending or a stray ``'\\r'`` (each naming the first
            offending line).
        ConfigError: ``$BLEU_HARNESS_MAX_INPUT_MB`` is not a whole number.
    """
    return _scan(path, what, keep=True, bom=check_bom_rule(bom))[1]


def read_record_lines(path: PathLike, *, what: str, bom: BomRule = "refuse") -> list[str]:
    """:func:`read_lines` for a file of records (JSON Lines, TSV), where a byte-order mark
    belongs to no segment: ``bom="strip"`` drops it, ``"keep"`` refuses a file that has one
    (it would be glued to a JSON brace or a column name, not to a segment)."""
    lines = read_lines(path, what=what, bom=check_bom_rule(bom))
    if bom == "keep" and lines and lines[0].startswith(BOM):
        raise InputError(
            f"starts with a UTF-8 byte-order mark, which belongs to no segment of a {what}; "
            "read it with `--bom strip` (bom='strip')",
            file=str(path),
            line=1,
        )
    return lines


def count_lines(path: PathLike, *, what: str = "file", bom: BomRule = "refuse") -> int:
    """How many lines :func:`read_lines` would return, with every one of its checks, reading
    the file a chunk at a time and keeping none of it (memory: one chunk, whatever the file's
    size). Raises as :func:`read_lines`."""
    return _scan(path, what, keep=False, bom=check_bom_rule(bom))[0]


def line_counts_differ(
    first: PathLike, first_count: int, other: PathLike, count: int, *, kind: str = "reference"
) -> LayoutError:
    """The error for two files that must be line-aligned but are not: both files with their
    counts, the first (the hypothesis file the others are compared with) first, and what to
    check — without calling either one wrong (a truncated hypothesis file and a reference file
    of another test set read alike). ``what`` is ``other``, ``expected`` ``first_count``,
    ``got`` ``count``.

    >>> str(line_counts_differ("sys.de", 2000, "ref.de", 3004))
    'line counts differ: hypothesis file sys.de has 2000 lines, reference file ref.de has 3004; files must be line-aligned (one segment a line): check that both are complete and of the same test set'
    """
    return LayoutError(
        f"line counts differ: hypothesis file {first} has {first_count} lines, {kind} file "
        f"{other} has {count}; files must be line-aligned (one segment a line): check that "
        "both are complete and of the same test set",
        what=str(other),
        expected=first_count,
        got=count,
        said=True,
    )


def precheck_line_aligned(
    hyp_paths: Sequence[PathLike],
    ref_paths: Sequence[PathLike],
    *,
    references_first: bool = False,
    bom: BomRule = "refuse",
) -> None:
    """Refuse line-aligned text files cheaply, before any is read whole (a leading byte-order
    mark by ``bom``, as :func:`read_lines` reads it).

    Every file is looked at (:func:`os.stat`) first: a missing file, a directory, a file over
    :func:`max_input_bytes`, or files whose bytes alone exceed :func:`available_memory` are
    refused before a byte is read. Then each regular file is scanned
    (:func:`count_lines`: every rule of :func:`read_lines`, a chunk at a time) in the order
    the loader reads them — the hypothesis file, then each reference file compared with it as
    it is scanned; with ``references_first`` (the order of
    :func:`harness.data.systems.load_text_systems`) the reference files, then the hypothesis
    files, then each compared with the first hypothesis file. A different line count raises
    the :class:`LayoutError` the loader would raise. Last, the memory that reading them all
    takes (at least their bytes and a list slot per line) is compared with
    :func:`available_memory`. Files that are not regular (a pipe, ``<(command)``) can be read
    only once, so they are left to the loader.
    """
    kinds = [("hypothesis", p) for p in hyp_paths]
    refs = [("reference", p) for p in ref_paths]
    order = refs + kinds if references_first else kinds + refs
    sizes = {i: _stat_input(p, f"{k} file") for i, (k, p) in enumerate(order)}
    regular = [i for i in sizes if sizes[i] is not None]
    if regular:  # their bytes alone may not fit: no need to scan them to know
        largest = max(regular, key=lambda i: sizes[i] or 0)
        total = sum(sizes[i] or 0 for i in regular)
        _check_memory(total, str(order[largest][1]), f"{len(regular)} files")
    counts: dict[int, int] = {}
    first = order.index(kinds[0]) if kinds else None
    first_count: int | None = None

    def compare(i: int) -> None:
        kind, path = order[i]
        if first_count is None or i not in counts or i == first or counts[i] == first_count:
            return
        raise line_counts_differ(kinds[0][1], first_count, path, counts[i], kind=kind)

    for i, (kind, path) in enumerate(order):
        if sizes[i] is not None:
            counts[i] = count_lines(path, what=f"{kind} file", bom=bom)
        if i == first:
            first_count = counts.get(i)
        if not references_first and first_count is not None:
            compare(i)
    if references_first:
        for i in [*range(len(refs), len(order)), *range(len(refs))]:
            compare(i)
    needed = sum((sizes[i] or 0) + _LINE_OVERHEAD * n for i, n in counts.items())
    if counts:
        largest = max(counts, key=lambda i: sizes[i] or 0)
        n_lines = sum(counts.values())
        _check_memory(needed, str(order[largest][1]), f"{len(counts)} files ({n_lines} lines)")
