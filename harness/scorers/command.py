"""External commands: score with any BLEU program run through the shell.

The template is a shell command with placeholders for line-aligned temporary files that the
adapter writes (UTF-8, one segment per line, ``\\n``-terminated)::

    perl multi-bleu.perl {ref} < {hyp}
    perl multi-bleu.perl {ref_stem} < {hyp}          # Moses convention: {ref_stem}0, 1, …
    sacrebleu {refs} -i {hyp} -b

``{hyp}`` the hypotheses; ``{ref0}``, ``{ref1}``… one file per reference stream; ``{ref}`` the
only reference file (an error when there are several streams); ``{refs}`` all reference files
separated by spaces; ``{ref_stem}`` a stem such that ``{ref_stem}0``, ``{ref_stem}1``… are the
reference files (multi-bleu.perl's multi-reference convention). Paths are shell-quoted.

Ragged references (segments with different numbers of references) cannot be written as
aligned files: the adapter raises ``UnsupportedSetting`` unless ``padding="empty"`` (a field of
its :class:`CommandOptions`, as are ``scale``, ``timeout``, ``max_output`` and ``check``) says to
write empty lines for missing references (which most programs count as references of length
0 — an explicit choice, never a default).

Output: ``BLEU = 27.23`` (multi-bleu, sacrebleu text: 0–100; precisions, BP, ratio and lengths
are read too when printed), ``BLEU score = 0.2723`` (mteval-v13a: 0–1), sacrebleu's JSON
(``"score"``: 0–100), or a bare number. ``scale="auto"`` knows the first three; a bare number
above 1 is 0–100 and one in [0, 1] is ambiguous and raises — pass ``scale="0-1"`` or
``"0-100"``. Failures (non-zero exit, timeout, unreadable output) raise :class:`CommandError`
with the command's stderr (:class:`CommandTimeout` on timeout). Each call runs in its own
session; on timeout or interruption its whole process group is killed, and the temporary
files are removed. A score is one short line: past ``max_output`` bytes on stdout (default
:data:`MAX_STDOUT_BYTES`), or :data:`MAX_STDERR_BYTES` on stderr, the group is killed at once
(:class:`CommandOutputTooLarge`, "output over N bytes"). ``check=False`` accepts a non-zero exit when the output still holds a
score (multi-bleu.perl prints ``BLEU = 0, …`` and exits 1 when the reference length is 0); the
status is kept in ``extra["returncode"]``.

What the command computes is declared with ``profile=`` (a ``harness.bleu.profiles`` name) or
``config=``; :meth:`CommandAdapter.supports` accepts exactly that variant. Without a
declaration the adapter still scores (``corpus(c)``) but cannot vouch for any config.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import selectors
import shlex
import shutil
import signal
import string
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from harness import interrupts
from harness.bleu.config import BleuConfig
from harness.bleu.profiles import get_profile
from harness.bleu.result import BleuResult
from harness.data.corpus import Corpus
from harness.errors import (
    AdapterUnavailable,
    ConfigError,
    HarnessError,
    InputError,
    LayoutError,
    UnsupportedSetting,
)
from harness.scorers.base import NAN, Adapter, Availability, Support, as_segment, undeclared
from harness.scorers.printed import read_printed

SCALES = ("auto", "0-1", "0-100")
_FIELD = re.compile(r"^(hyp|ref|refs|ref_stem|ref\d+)$")
_PREFIXES = ("exec", "env", "time", "nice", "nohup", "command", "builtin")
# a template starting with shell syntax runs whatever it runs: nothing to look up on the PATH
_SHELL_SYNTAX = ("if", "for", "while", "until", "case", "{", "(", "!", "[[", "cd", "set", "test")


class CommandError(HarnessError):
    """An external scoring command failed, timed out or printed nothing readable.

    Carries ``command``, ``returncode`` (``None`` on timeout), ``stdout`` and ``stderr``.
    """

    def __init__(
        self,
        message: str,
        *,
        command: str,
        returncode: int | None = None,
        stdout: str = "",
        stderr: str = "",
    ) -> None:
        self.command = command
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        detail = f"{message}\n  command: {command}"
        if stderr.strip():
            detail += f"\n  stderr: {stderr.strip()[-2000:]}"
        if stdout.strip() and returncode not in (0, None):
            detail += f"\n  stdout: {stdout.strip()[-500:]}"
        super().__init__(detail)


class CommandTimeout(CommandError):
    """The command did not finish within ``timeout`` seconds; its whole process group (the
    shell and everything it started) was killed."""


class CommandOutputTooLarge(CommandError):
    """The command printed more than ``limit`` bytes on ``stream`` (``"stdout"``/``"stderr"``)
    and its process group was killed at once; ``stdout`` holds the start of what it printed."""

    def __init__(self, message: str, *, stream: str, limit: int, **kwargs: Any) -> None:
        self.stream = stream
        self.limit = limit
        super().__init__(message, **kwargs)


#: The most a command may print on stdout, in bytes: a score is one short line (sacrebleu's
#: JSON with its signature is well under a kilobyte). Past it the command is killed.
MAX_STDOUT_BYTES = 1 << 20
#: The most it may print on stderr (verbose programs log there) before it is killed.
MAX_STDERR_BYTES = 16 << 20
#: How much of stderr is kept for messages: its last bytes (a traceback ends there); the rest
#: is read and dropped, so a chatty program never blocks on a full pipe.
STDERR_KEPT = 64 << 10


class _Capture:
    """What one pipe delivered: the first ``head`` bytes, the last ``tail`` bytes and the
    total, so that memory is bounded by ``head + tail`` whatever the program prints."""

    def __init__(self, name: str, limit: int, head: int, tail: int) -> None:
        self.name, self.limit, self.head_size, self.tail_size = name, limit, head, tail
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def add(self, chunk: bytes) -> bool:
        """Keep what fits; True when the stream has now gone past ``limit``."""
        self.total += len(chunk)
        room = max(0, self.head_size - len(self.head))
        self.head += chunk[:room]
        if self.tail_size:
            self.tail = (self.tail + chunk[room:])[-self.tail_size :]
        return self.total > self.limit

    def text(self) -> str:
        """The kept bytes as text (UTF-8, undecodable bytes replaced, newlines as ``\\n``)."""
        skipped = self.total - len(self.head) - len(self.tail)
        gap = f"[... {skipped} bytes not kept ...]\n".encode() if skipped and self.tail else b""
        text = (bytes(self.head) + gap + bytes(self.tail)).decode("utf-8", "replace")
        return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_until_eof(captures: dict[int, _Capture], deadline: float) -> str | None:
    """Read every pipe (file descriptor → its :class:`_Capture`) to its end: ``None``; or
    ``"timeout"`` once ``deadline`` (``time.monotonic()``) passes, or a capture's name as soon
    as its stream goes past its limit (the caller then kills the group)."""
    with selectors.DefaultSelector() as sel:
        for fd, capture in captures.items():
            sel.register(fd, selectors.EVENT_READ, capture)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                elif key.data.add(chunk):
                    return str(key.data.name)
    return None


def _run_group(
    command: str,
    *,
    timeout: float,
    cwd: Any,
    env: dict[str, str] | None,
    max_stdout: int = MAX_STDOUT_BYTES,
    max_stderr: int = MAX_STDERR_BYTES,
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` through the shell in its own session (process group), its output read
    with a cap: stdout kept whole up to ``max_stdout`` bytes, stderr's last
    :data:`STDERR_KEPT` bytes up to ``max_stderr``. A stream past its cap has the whole group
    killed at once and raises :class:`CommandOutputTooLarge` (``yes`` would fill the memory).
    On timeout (:class:`CommandTimeout`), and on any exception while waiting
    (``KeyboardInterrupt`` from SIGINT, or a SIGTERM converted to one), the whole group is
    killed with ``os.killpg`` — the shell's children (``sleep`` in ``sleep 1000; echo``)
    included, which ``subprocess.run(timeout=)`` leaves running with the pipes open."""
    deadline = time.monotonic() + timeout
    out = _Capture("stdout", max_stdout, max_stdout, 0)
    err = _Capture("stderr", max_stderr, 0, STDERR_KEPT)
    proc: subprocess.Popen[bytes] | None = None
    ended: str | None = "an exception"
    try:
        # a stop inside Popen (after the fork, before it returns: a loaded machine widens
        # that window) would leave the new process group running with nobody to kill it; it
        # is raised once proc is known, so the finally below kills the group
        with interrupts.deferred():
            proc = subprocess.Popen(
                command,
                shell=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
        assert proc.stdout is not None and proc.stderr is not None  # both are pipes
        ended = _read_until_eof({proc.stdout.fileno(): out, proc.stderr.fileno(): err}, deadline)
        if ended is None:
            try:  # the pipes are closed, but the shell may still run (`exec >&-; sleep 9`)
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                ended = "timeout"
    finally:
        if proc is not None:
            if ended is not None:  # a timeout, a cap passed, or an exception while waiting
                _kill_group(proc)
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
    if ended == "timeout":
        raise CommandTimeout(
            f"timed out after {timeout:g} s (its process group was killed)",
            command=command,
            stdout=out.text(),
            stderr=err.text(),
        )
    if ended is not None:
        over = out if ended == "stdout" else err
        began = out.text()[:60]
        why = " (a score is one short line)" if over is out else ""
        raise CommandOutputTooLarge(
            f"output over {over.limit} bytes on {over.name}{why}; its process group was killed"
            + (f"; stdout began {began!r}" if began else ""),
            stream=over.name,
            limit=over.limit,
            command=command,
            stdout=out.text(),
            stderr=err.text(),
        )
    assert proc is not None  # no exception: Popen returned
    _kill_group(proc)  # the shell is done; anything it left in the background goes with it
    return subprocess.CompletedProcess(command, proc.returncode, out.text(), err.text())


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to ``proc``'s process group (its session: ``start_new_session``)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _decimals(text: str) -> int:
    """Digits after the decimal point of a printed number (``27.2`` → 1, ``1e-05`` → 5)."""
    try:
        exponent = Decimal(text).as_tuple().exponent
    except InvalidOperation:
        return 0
    return max(0, -exponent) if isinstance(exponent, int) else 0


#: The printed forms a command may print (:func:`harness.scorers.printed.read_printed`), by
#: the ``format`` :func:`parse_output` names them with.
_FORMATS = {
    "sacrebleu": "BLEU =",
    "multi-bleu.perl": "BLEU =",
    "mteval-v13a": "BLEU score =",
    "sacrebleu JSON": "json",
    "number": "number",
}


def parse_output(stdout: str, scale: str = "auto") -> dict[str, Any]:
    """Read a BLEU score (and whatever statistics are printed) from a program's output.

    Returns ``score`` on 0–100 and, when present, ``precisions``, ``bp``, ``ratio``,
    ``hyp_len``, ``ref_len``, plus ``format`` naming what was recognised and ``decimals``,
    the number of digits printed after the score's decimal point. Raises ``ValueError``
    when nothing is recognised or a bare number's scale is ambiguous. The forms are
    :data:`_FORMATS`, read by :func:`~harness.scorers.printed.read_printed`; of sacrebleu's
    JSON only the score is taken.

    >>> parse_output("BLEU = 27.23, 81.8/50.0/22.2/12.5 (BP=1.000, ratio=1.000, hyp_len=12, ref_len=12)")["hyp_len"]
    12
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; valid: {', '.join(SCALES)}")
    try:
        line = read_printed(stdout)
    except ConfigError:
        line = None
    if line is None or line.form not in _FORMATS:
        raise ValueError("no BLEU score found in the output")
    value = float(line.score)
    out: dict[str, Any] = {"format": _FORMATS[line.form], "decimals": _decimals(line.score)}
    if out["format"] == "BLEU =":
        if line.precisions:
            out["precisions"] = tuple(float(p) for p in line.precisions)
        for key in ("bp", "ratio"):
            if getattr(line, key) is not None:
                out[key] = float(getattr(line, key))
        for key in ("hyp_len", "ref_len"):
            if getattr(line, key) is not None:
                out[key] = int(getattr(line, key))
    if line.form == "number" and scale == "auto" and value <= 1.0:
        raise ValueError(
            f"bare number {line.score} could be 0-1 or 0-100: pass scale='0-1' or '0-100'"
        )
    native = scale if scale != "auto" else (line.scale or "0-100")
    out["scale"] = native
    out["score"] = value * 100.0 if native == "0-1" else value
    return out


def _fields(template: str) -> list[str]:
    names = []
    for _, field, _, _ in string.Formatter().parse(template):
        if field is None:
            continue
        if not _FIELD.match(field):
            raise ConfigError(
                f"unknown placeholder {{{field}}} in command template",
                valid=("{hyp}", "{ref}", "{ref0}", "{ref1}", "…", "{refs}", "{ref_stem}"),
            )
        names.append(field)
    if "hyp" not in names:
        raise ConfigError("the command template must use {hyp}")
    return names


@dataclass(frozen=True, kw_only=True)
class CommandOptions:
    """How a :class:`CommandAdapter` runs its program and reads it (the module's docstring):
    ``scale`` of the printed score (one of :data:`SCALES`), ``timeout`` in seconds,
    ``padding`` (``"empty"``: ragged references written as empty lines), ``cwd`` and ``env``
    (added to this process's environment), ``check`` (``False``: a non-zero exit is accepted
    when the output holds a score) and ``max_output``, the stdout bytes read at most."""

    scale: str = "auto"
    timeout: float = 120.0
    padding: str | None = None
    cwd: str | os.PathLike[str] | None = None
    env: Mapping[str, str] | None = None
    check: bool = True
    max_output: int = MAX_STDOUT_BYTES

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ConfigError(f"unknown scale {self.scale!r}", valid=SCALES)
        if self.padding not in (None, "empty"):
            raise ConfigError(f"unknown padding {self.padding!r}", valid=(None, "empty"))
        size = self.max_output
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigError(f"max_output must be a positive number of bytes, got {size!r}")


class CommandAdapter(Adapter):
    """Any BLEU program run through the shell on temporary line-aligned files, run and read as
    its :class:`CommandOptions` say."""

    name = "command"
    distribution = ""
    module = ""

    def __init__(
        self,
        template: str,
        *,
        name: str = "command",
        profile: str | None = None,
        config: BleuConfig | None = None,
        version: str | None = None,
        options: CommandOptions = CommandOptions(),
    ) -> None:
        if not isinstance(template, str) or not template.strip():
            raise ConfigError("command template must be a non-empty string")
        self.fields = _fields(template)
        if profile is not None and config is not None:
            raise ConfigError("pass profile= or config=, not both")
        if profile is not None:
            config = get_profile(profile)
        self.template = template
        self.name = name
        self.declared = config
        self._version = version
        self.options = options

    # ------------------------------------------------------------------ identity
    def version(self) -> str | None:
        return self._version

    def cache_fingerprint(self) -> str | None:
        return None  # an external program can change without any version telling

    def signature(self, config: BleuConfig | None) -> str:
        versions = {self.name: self._version or "unknown"}
        if config is None:
            return f"cmd:{self.template}|version:" + ",".join(
                f"{k}={v}" for k, v in versions.items()
            )
        return config.signature(versions=versions)

    def available(self) -> Availability:
        try:
            words = shlex.split(self.template)
        except ValueError as exc:
            return Availability(False, f"cannot parse the command template: {exc}", "")
        # skip shell prefixes (exec, env, time, nice, VAR=value) to find the program
        while words and (words[0] in _PREFIXES or re.match(r"^[A-Za-z_]\w*=", words[0])):
            words = words[1:]
        if not words or "{" in words[0] or words[0] in _SHELL_SYNTAX:
            return Availability(True)
        prog = words[0]
        if shutil.which(prog) is None and not (os.sep in prog and os.access(prog, os.X_OK)):
            return Availability(False, f"{prog!r} is not on the PATH", f"install {prog}")
        return Availability(True)

    def default_config(self) -> BleuConfig:
        if self.declared is None:
            raise ConfigError(
                f"command adapter {self.name!r} declares no variant; pass profile= or config="
            )
        return self.declared

    def supports(self, config: BleuConfig) -> Support:
        """Exactly the declared variant: the command cannot be reconfigured. A factor the
        declared config does not have (a config class with more fields) is refused."""
        if self.declared is None:
            return Support(
                False, "the command's variant is not declared (pass profile= or config=)"
            )
        unknown = undeclared(config, [f.name for f in dataclasses.fields(self.declared)])
        if unknown:
            return Support(
                False, f"{', '.join(unknown)}: the command's declared variant says nothing of it"
            )
        if config.signature() != self.declared.signature():
            return Support(
                False,
                f"the command computes {self.declared.signature()} and cannot be reconfigured "
                f"to {config.signature()}",
            )
        return Support(True)

    # ------------------------------------------------------------------ running
    def _require_any(self, config: BleuConfig | None) -> BleuConfig | None:
        availability = self.available()
        if not availability.ok:
            raise AdapterUnavailable(self.name, availability.reason, availability.hint)
        if config is None:
            return self.declared
        support = self.supports(config)
        if not support.ok:
            raise UnsupportedSetting(self.name, support.reason)
        return config

    def corpus(self, corpus: Corpus, config: BleuConfig | None = None) -> BleuResult:
        """Run the command on ``corpus`` (the declared variant, or ``config`` if equal)."""
        return self._run(corpus, self._require_any(config))

    def segments(self, corpus: Corpus, config: BleuConfig | None = None) -> list[BleuResult]:
        """Run the command once per segment (a one-line corpus each)."""
        cfg = self._require_any(config)
        return [
            as_segment(self._run(corpus.subset([i]), cfg), sid) for i, sid in enumerate(corpus.ids)
        ]

    def _streams(self, corpus: Corpus) -> list[list[str]]:
        if corpus.is_ragged and self.options.padding is None:
            raise UnsupportedSetting(
                self.name,
                "ragged references cannot be written as aligned reference files; pass "
                "padding='empty' to write empty lines (references of length 0) explicitly",
            )
        return [[r or "" for r in s] for s in corpus.to_streams(padding="empty")]

    @staticmethod
    def _write(path: Path, lines: list[str], what: str) -> None:
        for i, line in enumerate(lines):
            if "\n" in line or "\r" in line:
                raise InputError(
                    f"{what} line {i + 1} contains a line break; the files would misalign"
                )
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    @property
    def streams_accepted(self) -> int | None:
        """How many reference streams the template passes to the program: ``None`` for any
        number (``{refs}``, ``{ref_stem}``, or no reference placeholder), else exactly that many (``{ref}``: 1;
        ``{ref0}`` … ``{refN}``: N + 1). A corpus with another number cannot be run: the
        program would silently score against fewer references."""
        if "refs" in self.fields or "ref_stem" in self.fields:
            return None
        if "ref" in self.fields:
            return 1
        numbered = [int(f[3:]) for f in self.fields if f.startswith("ref") and f[3:].isdigit()]
        return max(numbered) + 1 if numbered else None  # no reference file at all: any

    def _command(self, tmp: Path, n_streams: int) -> str:
        refs = [tmp / f"ref{k}" for k in range(n_streams)]
        values: dict[str, str] = {
            "hyp": shlex.quote(str(tmp / "hyp")),
            "refs": " ".join(shlex.quote(str(p)) for p in refs),
            "ref_stem": shlex.quote(str(tmp / "ref")),
        }
        for k, p in enumerate(refs):
            values[f"ref{k}"] = shlex.quote(str(p))
        for field in self.fields:
            if field == "ref" and n_streams != 1:
                raise LayoutError(
                    "{ref} names a single reference file but the corpus has several reference "
                    "streams; use {ref0} {ref1} …, {refs} or {ref_stem}",
                    what="template",
                    expected=1,
                    got=n_streams,
                )
            if field.startswith("ref") and field[3:].isdigit() and int(field[3:]) >= n_streams:
                raise LayoutError(
                    f"{{{field}}} but the corpus has {n_streams} reference stream(s)",
                    what="template",
                    expected=f"< {n_streams}",
                    got=int(field[3:]),
                )
        accepted = self.streams_accepted
        if accepted is not None and "ref" not in self.fields and n_streams != accepted:
            raise LayoutError(
                f"the template names {accepted} reference file(s) but the corpus has "
                f"{n_streams} reference streams; name each ({{ref0}} {{ref1}} …) or use {{refs}}",
                what="template",
                expected=accepted,
                got=n_streams,
            )
        if n_streams == 1:
            values["ref"] = values["ref0"]
        return self.template.format_map(values)

    def _run(self, corpus: Corpus, config: BleuConfig | None) -> BleuResult:
        streams = self._streams(corpus)
        with tempfile.TemporaryDirectory(prefix="bleu-harness-cmd-") as d:
            tmp = Path(d)
            self._write(tmp / "hyp", list(corpus.hypotheses), "hypothesis")
            for k, stream in enumerate(streams):
                self._write(tmp / f"ref{k}", stream, f"reference stream {k + 1}")
            command = self._command(tmp, len(streams))
            proc = _run_group(
                command,
                timeout=self.options.timeout,
                cwd=self.options.cwd,
                env=None if self.options.env is None else {**os.environ, **self.options.env},
                max_stdout=self.options.max_output,
            )
        if proc.returncode != 0 and (self.options.check or not proc.stdout.strip()):
            raise CommandError(
                f"exited with status {proc.returncode}",
                command=command,
                returncode=proc.returncode,
                stdout=proc.stdout,
                stderr=proc.stderr,
            )
        try:
            parsed = parse_output(proc.stdout, self.options.scale)
        except ValueError as exc:
            raise CommandError(
                f"cannot read a BLEU score from the output ({exc}); stdout was: "
                f"{proc.stdout.strip()[:500]!r}",
                command=command,
                returncode=proc.returncode,
                stdout=proc.stdout,
                stderr=proc.stderr,
            ) from exc
        return BleuResult(
            score=float(parsed["score"]),
            precisions=tuple(parsed.get("precisions", ())),
            bp=float(parsed.get("bp", NAN)),
            ratio=float(parsed.get("ratio", NAN)),
            hyp_len=int(parsed.get("hyp_len", 0)),
            ref_len=int(parsed.get("ref_len", 0)),
            counts=None,
            totals=None,
            signature=self.signature(config),
            implementation=self.name,
            call=self.template,
            extra={
                "stdout": proc.stdout.strip(),
                "stderr": proc.stderr.strip(),
                "format": parsed["format"],
                "scale": parsed["scale"],
                "padding": self.options.padding,
                "command": command,
                "returncode": proc.returncode,
                "decimals": parsed.get("decimals"),
            },
        )
