"""Finding the processes a test run left behind, by a marker it put in their argv or
environment."""

from __future__ import annotations

import os
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
