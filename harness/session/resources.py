"""What the machine lets a run use: worker processes and their memory.

A worker count asked for (``--jobs N``, ``Session(jobs=N)``) is a ceiling, not an order: a run
starts no more workers than there are CPUs this process may run on, than the memory available
can hold at :data:`WORKER_MEMORY` each beside this process, and than there are tasks to give
them. When that is fewer than asked, :class:`ResourcesCapped` says so, once per process and
cap. Each worker's data memory is then bounded (``RLIMIT_DATA``) by its share of the memory
that was available when its pool started (at least :data:`WORKER_MEMORY`): a task that needs
more fails in that worker with a ``MemoryError`` the run reports, instead of taking the
machine down.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from harness.data.textfile import proc_kb

__all__ = [
    "WORKER_MEMORY",
    "Budget",
    "ResourcesCapped",
    "available_memory",
    "bound_worker_memory",
    "usable_cpus",
    "worker_budget",
]

#: What one worker is planned to hold, in bytes: a process that has imported numpy and the
#: libraries and holds a WMT21-size task (about half of this, measured:
#: benchmarks/README.md); no more workers start than the available memory holds at this size.
WORKER_MEMORY = 1 << 30


class ResourcesCapped(UserWarning):
    """Fewer workers start than were asked for: the machine or the work cannot use more."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cgroup_available() -> int | None:
    """Room left under this process's cgroup v2 memory limit, when it has one."""
    base = Path("/sys/fs/cgroup")
    try:
        limit = (base / "memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(0, int(limit) - int((base / "memory.current").read_text().strip()))
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """Bytes of memory a new process can take without swapping or hitting this process's
    cgroup limit, or ``None`` where the platform does not say."""
    bounds = (proc_kb("/proc/meminfo", "MemAvailable"), _cgroup_available())
    known = [m for m in bounds if m is not None]
    return min(known) if known else None


@dataclass(frozen=True)
class Budget:
    """How many workers a pool starts and the data memory each may take (``None``: no
    bound known)."""

    workers: int
    memory_per_worker: int | None


_said: set[tuple[int, int]] = set()


def _gb(n: int) -> str:
    return f"{n / (1 << 30):.1f} GB"


def worker_budget(asked: int, tasks: int | None = None) -> Budget:
    """The workers a pool of ``asked`` processes really starts for ``tasks`` tasks, and each
    worker's memory bound (module docstring). Warns :class:`ResourcesCapped` the first time
    the machine cuts a given request to fewer workers, naming what bounds it (fewer tasks
    than workers is the work's size, not a limit, and is not said)."""
    cpus = usable_cpus()
    memory = available_memory()
    limits = {f"{cpus} CPU{'s' if cpus != 1 else ''} usable": cpus}
    if memory is not None:
        room = f"{_gb(memory)} of memory available for workers of {_gb(WORKER_MEMORY)}"
        limits[room] = max(1, memory // WORKER_MEMORY)
    machine = min(asked, *limits.values())
    if machine < asked and (asked, machine) not in _said:
        _said.add((asked, machine))
        why = "; ".join(k for k, v in limits.items() if v == machine)
        warnings.warn(
            ResourcesCapped(f"{asked} worker processes asked for, at most {machine}: {why}"),
            stacklevel=3,
        )
    workers = machine if tasks is None else max(1, min(machine, tasks))
    per_worker = None if memory is None else max(WORKER_MEMORY, memory // (workers + 1))
    return Budget(workers, per_worker)


def bound_worker_memory(limit: int | None) -> None:
    """Cap this process's data memory at ``limit`` bytes (a pool's worker initializer);
    ``None`` or a platform without ``RLIMIT_DATA`` leaves it as it is."""
    if limit is None:
        return
    try:
        import resource
    except ImportError:  # not POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
