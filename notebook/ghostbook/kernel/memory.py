"""Evidence that a kernel killed by SIGKILL ran out of memory.

SIGKILL comes from the out-of-memory killer, but also from a person (`kill -9`), a supervisor or a
timeout, so the death message blames memory only on evidence: the kernel's resident size near the
memory it may use (the machine's RAM, or its cgroup's limit if lower) when last sampled, or the
kernel's own count of OOM kills (`oom_kill` in /proc/vmstat) rising around the death. Linux only;
elsewhere there is never evidence, and the message just names the signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

NEAR_LIMIT = 0.8  # of the limit: a kernel this big when last seen may well have hit it
SAMPLE_SECONDS = 1.0
NO_LIMIT = 1 << 60  # cgroup v1 writes "no limit" as a huge number


@dataclass(frozen=True)
class SystemFiles:
    """Where the numbers are read (tests point these at files of their own)."""

    proc: Path = Path("/proc")
    cgroup: Path = Path("/sys/fs/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, ValueError):
        return None


def memory_limit(files: SystemFiles) -> int | None:
    """Bytes a process here may use: the machine's RAM or this process's cgroup limit, the lower."""
    limits: list[int] = []
    meminfo = _read(files.proc / "meminfo") or ""
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            limits.append(int(line.split()[1]) * 1024)
    for line in (_read(files.proc / "self" / "cgroup") or "").splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, group = rest.partition(":")
        group = group.strip("/")
        if hierarchy == "0" and controllers == "":  # cgroup v2
            candidates = [files.cgroup / group / "memory.max", files.cgroup / "memory.max"]
        elif "memory" in controllers.split(","):  # cgroup v1
            candidates = [files.cgroup / "memory" / group / "memory.limit_in_bytes",
                          files.cgroup / "memory" / "memory.limit_in_bytes"]
        else:
            continue
        for candidate in candidates:
            text = (_read(candidate) or "").strip()
            if text.isdigit() and 0 < int(text) < NO_LIMIT:
                limits.append(int(text))
                break
    return min(limits) if limits else None


def resident_bytes(pid: int, files: SystemFiles) -> int | None:
    """The process's resident set size, or None once it is gone (a zombie reads as 0)."""
    fields = (_read(files.proc / str(pid) / "statm") or "").split()
    if len(fields) < 2 or not fields[1].isdigit() or int(fields[1]) == 0:
        return None
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")


def oom_kills(files: SystemFiles) -> int | None:
    """How many processes the kernel's OOM killer has killed since boot (None where unknown)."""
    for line in (_read(files.proc / "vmstat") or "").splitlines():
        name, _, value = line.partition(" ")
        if name == "oom_kill" and value.strip().isdigit():
            return int(value)
    return None


def _gb(size: int) -> str:
    return f"{size / 1e9:.1f} GB"


class MemoryWatch:
    """Samples one kernel process's size (and the OOM-kill count) every second while it lives."""

    def __init__(self, pid: int, files: SystemFiles | None = None) -> None:
        self.pid = pid
        self._files = files or SystemFiles()
        self.limit = memory_limit(self._files)
        self.resident: int | None = None
        self._oom_counts: deque[int | None] = deque(maxlen=2)  # at the last two samples
        self.sample()

    def sample(self) -> None:
        """Take one sample; none once the process is gone, so the last ones describe its end."""
        resident = resident_bytes(self.pid, self._files)
        if resident is not None:
            self.resident = resident
            self._oom_counts.append(oom_kills(self._files))

    async def run(self) -> None:
        while True:
            await asyncio.sleep(SAMPLE_SECONDS)
            with contextlib.suppress(Exception):  # evidence is a nicety: never let it take anything down
                self.sample()

    def evidence(self) -> str | None:
        """Why the process may have run out of memory, or None where nothing suggests it."""
        before = self._oom_counts[0] if self._oom_counts else None
        now = oom_kills(self._files)
        if before is not None and now is not None and now > before:
            return "the system's out-of-memory killer had just run"
        if self.resident is not None and self.limit and self.resident >= NEAR_LIMIT * self.limit:
            return f"it used {_gb(self.resident)} of {_gb(self.limit)} when last measured"
        return None
