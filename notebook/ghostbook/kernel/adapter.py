"""One Jupyter kernel behind a small async API that reports everything as `KernelEvent`s.

Each channel (iopub, shell, stdin) has its own reader task that awaits `get_msg()` directly, so
messages are handled as soon as they arrive; a watcher task notices the process ending.

Ordering: events of one channel keep the kernel's order. `ExecutionFinished` for a request comes
after all of its `Output`s; relative to `StatusChanged("idle")` it may come before or after (the
reply and the idle status travel on different sockets). After `dead`/`restarting` no event of an
earlier request follows its `ExecutionFinished(status="dead")`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import AsyncKernelManager

from .comms import CommTracker, check_comm
from .death import death_reason, describe_exit
from .errors import KernelNotRunning, KernelStartError
from .events import KernelEvent, KernelState, StatusChanged, StdinRequested
from .memory import MemoryWatch
from .runs import RunTracker
from .watch import wait_for_exit

__all__ = ["KernelAdapter", "KernelNotRunning", "KernelStartError"]

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0
START_ATTEMPTS = 2  # a kernel that dies while starting gets one more try
# How long a first start may take before it is taken for hung: an ipykernel that finds one of its ports
# taken (two servers picked the same free port) neither answers nor exits. It is killed and started once
# more, on fresh ports, with the whole START_TIMEOUT.
FIRST_START_WAIT = 20.0
REPLY_TIMEOUT = 5.0
# After the process is gone, give the readers this long to hand on what was already received.
DEATH_GRACE = 0.05


class KernelAdapter:
    """Owns one kernel (manager + client) and reports its life as `KernelEvent`s to `on_event`."""

    def __init__(
        self,
        on_event: Callable[[KernelEvent], None],
        *,
        kernel_name: str = "python3",
        cwd: str | None = None,
        quiet: bool = False,
    ) -> None:
        self._on_event = on_event
        self._quiet = quiet  # the kernel process's own stdout and stderr go nowhere (benchmarks)
        self.kernel_name = kernel_name
        self.display_name = kernel_name
        self.state: KernelState = "starting"
        self._cwd = cwd
        self._km: AsyncKernelManager | None = None
        self._client: AsyncKernelClient | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._runs = RunTracker(self._emit)
        self._comms = CommTracker(self._emit)
        self._closed = False
        self._message_count = 0
        self._lifecycle = asyncio.Lock()
        self._memory: MemoryWatch | None = None  # the running kernel's size, for its death message

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def kernel_pid(self) -> int | None:
        """PID of the kernel process, while there is one."""
        prov = self._km.provisioner if self._km else None
        proc = getattr(prov, "process", None)
        return proc.pid if proc is not None else None

    async def start(self) -> None:
        """Start the kernel and wait until it answers kernel_info."""
        async with self._lifecycle:
            if self._km is not None or self._closed:
                raise RuntimeError("KernelAdapter.start() may be called only once")
            await self._launch()

    async def restart(self) -> None:
        """Restart the kernel, also after it died or failed to start; pending executions finish as `dead`."""
        async with self._lifecycle:
            if self._closed:
                raise KernelNotRunning("The kernel was shut down")
            if self._km is None:  # its start failed (or it was never started): start it afresh
                self._runs.fail_all("The kernel was restarted")
                await self._launch()
                return
            self._set_state("restarting")
            await self._disconnect()
            self._runs.fail_all("The kernel was restarted")
            try:
                await self._km.restart_kernel(now=False)
                await self._connect()
            except Exception as exc:  # e.g. it died again at once, or its old ports were taken
                log.warning("kernel restart failed (%s): starting a fresh one", await self._discard_kernel(exc))
                await self._launch()

    async def shutdown(self) -> None:
        """Stop the kernel and clean up channels, process and connection file. Idempotent."""
        async with self._lifecycle:
            if self._closed:
                return
            self._closed = True
            await self._disconnect()
            self._runs.fail_all("The kernel was shut down")
            km, self._km = self._km, None
            if km is not None:
                await _stop(km, now=False)
            if self.state != "dead":
                self._set_state("dead", "The kernel was shut down")

    async def interrupt(self) -> None:
        """Interrupt the running execution (SIGINT or interrupt_request, as the kernelspec says).

        Refused (KernelNotRunning) unless the kernel is ready: a kernel still starting has not set
        up its SIGINT handling yet, and the signal would kill it.
        """
        if self._km is None or self._closed or self.state not in ("idle", "busy"):
            raise KernelNotRunning(f"The kernel is not ready to be interrupted (state: {self.state})")
        await self._km.interrupt_kernel()

    # -- requests --------------------------------------------------------------------------

    def execute(self, code: str) -> str:
        """Send an execute_request and return its msg_id at once."""
        client = self._running_client()
        msg_id: str = client.execute(code, store_history=True, allow_stdin=True, stop_on_error=True)
        _rearm(client.shell_channel)
        self._runs.add(msg_id)
        return msg_id

    def send_stdin(self, value: str) -> None:
        """Answer the pending input_request."""
        client = self._running_client()
        client.input(value)
        _rearm(client.stdin_channel)

    async def complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        """complete_reply content for `code` at `cursor_pos` (TimeoutError after ~5 s)."""
        client = self._running_client()
        msg_id = client.complete(code, cursor_pos)
        _rearm(client.shell_channel)
        return await self._runs.wait_reply(msg_id, REPLY_TIMEOUT)

    async def inspect(self, code: str, cursor_pos: int, detail_level: int = 0) -> dict[str, Any]:
        """inspect_reply content for the name at `cursor_pos` (TimeoutError after ~5 s)."""
        client = self._running_client()
        msg_id = client.inspect(code, cursor_pos, detail_level)
        _rearm(client.shell_channel)
        return await self._runs.wait_reply(msg_id, REPLY_TIMEOUT)

    def send_comm(self, msg_type: str, content: dict[str, Any], *, msg_id: str,
                  metadata: dict[str, Any] | None = None, buffers: Sequence[bytes] = ()) -> None:
        """Send a comm message (comm_open, comm_msg, comm_close) under `msg_id`; `CommDone(msg_id)`
        follows once the kernel has handled it."""
        check_comm(msg_type, content)
        client = self._running_client()
        msg = client.session.msg(msg_type, content, metadata=metadata)
        msg["header"]["msg_id"] = msg["msg_id"] = msg_id  # the page's: the kernel's echo_update names it
        self._comms.sent(msg_id)
        client.session.send(client.shell_channel.socket, msg, buffers=list(buffers))
        _rearm(client.shell_channel)

    async def comm_info(self, target_name: str | None = None) -> dict[str, Any]:
        """comm_info_reply content: the kernel's open comms, `{"comms": {comm_id: {"target_name"}}}`."""
        client = self._running_client()
        msg_id = client.comm_info(target_name)
        _rearm(client.shell_channel)
        return await self._runs.wait_reply(msg_id, REPLY_TIMEOUT)

    async def run_silent(
        self,
        code: str,
        timeout: float = 5.0,
        user_expressions: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Run `code` silently (no history, no Output events).

        Returns the execute_reply content plus `stdout` and `stderr` collected from its streams.
        """
        client = self._running_client()
        msg_id = client.execute(
            code,
            silent=True,
            store_history=False,
            user_expressions=user_expressions or {},
            allow_stdin=False,
            stop_on_error=False,
        )
        _rearm(client.shell_channel)
        return await self._runs.wait_silent(msg_id, timeout)

    # -- internals -------------------------------------------------------------------------

    def _running_client(self) -> AsyncKernelClient:
        if self._client is None or self.state in ("dead", "restarting", "starting") or self._closed:
            raise KernelNotRunning(f"The kernel is not running (state: {self.state})")
        return self._client

    def _emit(self, event: KernelEvent) -> None:
        try:
            self._on_event(event)
        except Exception:
            log.exception("kernel event handler failed on %r", event)

    def _set_state(self, state: KernelState, reason: str | None = None) -> None:
        if state == self.state and reason is None:
            return
        self.state = state
        self._emit(StatusChanged(state, reason))

    def _on_status(self, state: str) -> None:
        if state in ("busy", "idle") and self.state in ("busy", "idle"):
            self._set_state(state)  # type: ignore[arg-type]

    async def _launch(self) -> None:
        """Start a kernel process for `kernel_name` and connect to it (the lifecycle lock is held).

        A kernel that dies while starting is started once more, on fresh ports: jupyter_client picks
        ports that are free when picked, not reserved, and another process may bind one first.
        """
        self.state = "starting"
        self._emit(StatusChanged("starting"))
        ksm = KernelSpecManager()
        try:
            spec = ksm.get_kernel_spec(self.kernel_name)
        except NoSuchKernel as exc:
            known = ", ".join(sorted(ksm.find_kernel_specs())) or "none"
            msg = f"Unknown kernel {self.kernel_name!r} (installed: {known})"
            self._set_state("dead", msg)
            raise KernelStartError(msg) from exc
        self.display_name = spec.display_name
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL} if self._quiet else {}
        for attempt in range(START_ATTEMPTS):
            self._km = AsyncKernelManager(kernel_name=self.kernel_name, kernel_spec_manager=ksm)
            try:
                await self._km.start_kernel(cwd=self._cwd, **quiet)  # (a restart launches it the same way)
                await self._connect(FIRST_START_WAIT if attempt + 1 < START_ATTEMPTS else START_TIMEOUT)
                return
            except Exception as exc:
                if attempt + 1 == START_ATTEMPTS or isinstance(exc, TimeoutError) or self._closed:
                    await self._fail_start(f"The kernel {self.display_name!r} failed to start", exc)
                log.warning("the kernel %r died while starting (%s): starting it once more", self.display_name,
                            await self._discard_kernel(exc))

    async def _connect(self, timeout: float = START_TIMEOUT) -> None:
        assert self._km is not None
        client = self._km.client()
        # Each client's Session numbers its msg_ids from 0 again: keep counting across restarts
        # so that a msg_id never names two different requests.
        client.session.message_count = self._message_count
        client.start_channels(hb=False, control=False)
        try:
            await client.wait_for_ready(timeout=timeout)
        except BaseException:
            client.stop_channels()
            raise
        self._client = client
        pid = self.kernel_pid
        self._memory = MemoryWatch(pid) if pid is not None else None
        self._tasks = [
            asyncio.create_task(self._read(client.iopub_channel, self._on_iopub), name="kernel-iopub"),
            asyncio.create_task(self._read(client.shell_channel, self._runs.on_shell), name="kernel-shell"),
            asyncio.create_task(self._read(client.stdin_channel, self._on_stdin), name="kernel-stdin"),
            asyncio.create_task(self._watch(), name="kernel-watch"),
            *([asyncio.create_task(self._memory.run(), name="kernel-memory")] if self._memory else []),
        ]
        self._set_state("idle")

    async def _disconnect(self) -> None:
        tasks, self._tasks = self._tasks, []
        current = asyncio.current_task()
        for task in tasks:
            if task is not current:
                task.cancel()
        for task in tasks:
            if task is not current:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        client, self._client = self._client, None
        self._comms.clear()
        if client is not None:
            self._message_count = client.session.message_count
            client.stop_channels()

    async def _read(self, channel: Any, handle: Callable[[dict[str, Any]], None]) -> None:
        while True:
            try:
                msg = await channel.get_msg()
            except zmq.ZMQError as exc:  # the socket was closed under us
                log.debug("kernel channel closed: %s", exc)
                return
            try:
                handle(msg)
            except Exception:
                log.exception("failed to handle %s message", msg.get("msg_type"))

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        if self._comms.on_iopub(msg):
            return
        if msg["msg_type"] == "status":
            state = msg["content"].get("execution_state", "")
            if state in ("busy", "idle"):
                self._runs.on_iopub(msg)  # its timing; idle finishes the run before idle is reported
            self._on_status(state)
        else:
            self._runs.on_iopub(msg)

    def _on_stdin(self, msg: dict[str, Any]) -> None:
        if msg["msg_type"] != "input_request":
            return
        content = msg["content"]
        parent = msg["parent_header"].get("msg_id", "")
        self._emit(StdinRequested(parent, content.get("prompt", ""), bool(content.get("password"))))

    async def _watch(self) -> None:
        assert self._km is not None and self._km.provisioner is not None
        code = await wait_for_exit(self._km.provisioner)
        await asyncio.sleep(DEATH_GRACE)
        memory = self._memory.evidence() if self._memory is not None else None
        self._runs.fail_all(death_reason(code, memory))
        self._set_state("dead", describe_exit(code, memory))

    async def _discard_kernel(self, exc: Exception) -> str:
        """Disconnect from and stop a kernel that failed to start; return what went wrong."""
        await self._disconnect()
        detail = str(exc) or type(exc).__name__
        if self._km is not None and self._km.provisioner is not None:
            code = await self._km.provisioner.poll()
            if code is not None:
                detail = describe_exit(code)
        km, self._km = self._km, None
        if km is not None:
            await _stop(km, now=True)
        return detail

    async def _fail_start(self, what: str, exc: Exception) -> NoReturn:
        """Clean up after a failed start, report `dead` and raise KernelStartError."""
        msg = f"{what}: {await self._discard_kernel(exc)}"
        self._runs.fail_all(msg)
        self._set_state("dead", msg)
        raise KernelStartError(msg) from exc


def _rearm(channel: Any) -> None:
    """Call after every request sent on `channel`, or a reply can be stranded unread for good.

    jupyter_client's `Session.send` writes through a blocking shadow of the channel's asyncio socket,
    behind pyzmq's back. A send runs libzmq's pending commands, which consumes the socket's
    edge-triggered wake-up (ZMQ_FD) for a reply that arrived just then; the asyncio socket never
    learns of the send, so its reader waits on a file descriptor that will not fire again while that
    reply sits in the socket. Reading EVENTS through the asyncio socket re-checks and, if a message
    is waiting, wakes the reader (pyzmq's `_AsyncSocket.get`). The kernel side had the same bug with
    its shell replies (ipykernel#1554, fixed by ipykernel#1529).
    """
    channel.socket.get(zmq.EVENTS)


async def _stop(km: AsyncKernelManager, *, now: bool) -> None:
    """Stop the kernel process if there is one, and remove its connection file either way."""
    try:
        if km.has_kernel:
            await km.shutdown_kernel(now=now)
        else:
            await km.cleanup_resources()
    except Exception:
        log.exception("kernel shutdown failed")
