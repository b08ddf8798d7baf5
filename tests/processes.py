"""Finding the processes a test run left behind, by a marker it put in their argv or
environment."""

from __future__ import annotations

import os
import time
from pathlib import Path


def marked(marker: str) -> list[str]:
    """Command lines of live processes that contain ``marker`` in their argv or their
    environment (read from /proc: a worker or orphan started by a CLI run inherits its
    environment, so a marker put there finds whatever that run left behind)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmdline = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        try:
            environ = (d / "environ").read_bytes().decode("utf-8", "replace")
        except OSError:  # another user's process: its argv is all there is to read
            environ = ""
        if marker in cmdline or marker in environ:
            found.append(cmdline)
    return found


def gone(marker: str, wait: float = 60.0) -> bool:
    """No live process carries ``marker``, allowing ``wait`` seconds for a SIGKILL already
    sent to be delivered (a loaded machine may run the killed process only later; a hang
    guard, not a speed bound)."""
    deadline = time.monotonic() + wait
    while marked(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
