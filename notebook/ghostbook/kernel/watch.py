"""Notice a kernel process ending without polling on the message path.

On Linux a pidfd becomes readable the moment the process exits, so the event loop wakes exactly
once; elsewhere (or for non-local provisioners) we poll the provisioner every 0.2 s.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

POLL_INTERVAL = 0.2


async def wait_for_exit(provisioner: Any) -> int | None:
    """Wait until the provisioner's kernel process ends; return its exit status.

    The status follows `Popen.returncode`: negative means killed by that signal.
    """
    proc = getattr(provisioner, "process", None)
    if proc is not None and hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(proc.pid)
        except OSError:
            fd = None
        if fd is not None:
            loop = asyncio.get_running_loop()
            exited = asyncio.Event()
            try:
                loop.add_reader(fd, exited.set)
            except (NotImplementedError, RuntimeError):
                os.close(fd)
            else:
                try:
                    await exited.wait()
                finally:
                    loop.remove_reader(fd)
                    os.close(fd)
                # The process has exited: poll() reaps it without blocking.
                code = proc.poll()
                if code is not None:
                    return int(code)
    while (status := await provisioner.poll()) is None:  # noqa: ASYNC110 (fallback only)
        await asyncio.sleep(POLL_INTERVAL)
    return int(status)
