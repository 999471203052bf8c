"""Human-readable reasons for a kernel process that ended."""

from __future__ import annotations

import signal


def describe_exit(code: int | None) -> str:
    """Explain a kernel exit status as `Popen.returncode` reports it (negative = killed by signal)."""
    if code is None:
        return "The kernel process ended for an unknown reason"
    if code < 0:
        num = -code
        try:
            name = signal.Signals(num).name
        except ValueError:
            name = "unknown signal"
        reason = f"The kernel was killed by signal {num} ({name})"
        if num == signal.SIGKILL:
            reason += "; the system may have run out of memory"
        return reason
    if code == 0:
        return "The kernel process exited (code 0)"
    return f"The kernel process exited with code {code}"
