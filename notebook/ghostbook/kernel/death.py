"""Human-readable reasons for a kernel process that ended."""

from __future__ import annotations

import signal


def describe_exit(code: int | None, memory: str | None = None) -> str:
    """What happened to a kernel process, from its exit status as `Popen.returncode` reports it
    (negative = killed by that signal): "killed by signal 9 (SIGKILL)", "exited with code 1".

    A SIGKILL blames memory only given `memory`, the evidence for it (kernel/memory.py): the same
    signal is also what `kill -9`, a supervisor or a timeout sends.
    """
    if code is None:
        return "ended for an unknown reason"
    if code < 0:
        num = -code
        try:
            name = signal.Signals(num).name
        except ValueError:
            name = "unknown signal"
        reason = f"killed by signal {num} ({name})"
        if num == signal.SIGKILL and memory:
            reason += f"; it may have run out of memory ({memory})"
        return reason
    return f"exited with code {code}"


def death_reason(code: int | None, memory: str | None = None) -> str:
    """The reason given to the executions a dying kernel takes with it."""
    return f"The kernel died: {describe_exit(code, memory)}"
