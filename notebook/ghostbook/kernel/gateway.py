"""A kernel on a Jupyter Kernel Gateway (or Enterprise Gateway), behind the same API as `KernelAdapter`.

Lifecycle goes through the gateway's REST API (`gateway_client`); messages go through the kernel's
`/api/kernels/{id}/channels` websocket as JSON objects with a `channel` field, their headers made
by jupyter_client's `Session` (a message with buffers, a widget's, is a binary frame: `gateway_frames`).
Replies and iopub messages feed the same `RunTracker` and `CommTracker` as local kernels, so sessions
see the same `KernelEvent`s.

Why not jupyter_server's `GatewayKernelManager`: it reads its settings from jupyter_server's
application config (a `GatewayClient` singleton), needs jupyter_server at run time, and emulates
ZMQ channels with queues for a ZMQ-style client; this adapter reads the websocket directly.

Death: the websocket closing is the signal (websockets pings every 20 s, so a silent network also
closes it; a kernel deleted or culled on the gateway is noticed by asking for it every few seconds,
as the gateway keeps its websocket open). The adapter then asks the gateway about the kernel: still
there → reconnect; unknown → "the gateway no longer has the kernel"; unreachable → "the gateway went
away". Both end as `dead` with that reason, and `restart()` recovers once the gateway answers again
(with a fresh kernel when the gateway no longer has the old one). A kernel process that dies inside
the gateway is restarted by the gateway itself, which says so with a `restarting` status: pending
runs finish as `dead`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from .comms import CommTracker, check_comm
from .errors import KernelNotRunning, KernelStartError
from .events import KernelEvent, KernelState, StatusChanged, StdinRequested
from .gateway_client import GatewayClient, GatewayConfig, GatewayError, KernelGone, specs_list
from .gateway_frames import FrameError, pack, unpack
from .runs import RunTracker

__all__ = ["GatewayKernelAdapter"]

log = logging.getLogger(__name__)

REPLY_TIMEOUT = 5.0
MAX_MESSAGE = 256 * 1024 * 1024  # outputs (images, big tables) travel in one message
SHUTDOWN_TIMEOUT = 5.0
POLL_INTERVAL = 5.0  # how often the gateway is asked whether it still has the kernel
GATEWAY_RESTARTED = "the kernel died and the gateway restarted it"


class GatewayKernelAdapter:
    """Owns one kernel on a gateway and reports its life as `KernelEvent`s to `on_event`."""

    def __init__(
        self,
        on_event: Callable[[KernelEvent], None],
        *,
        gateway: GatewayConfig,
        kernel_name: str = "python3",
        cwd: str | None = None,  # the notebook's folder is on this machine, not the gateway's: unused
    ) -> None:
        self._on_event = on_event
        self.gateway = gateway
        self.kernel_name = kernel_name
        self.display_name = kernel_name
        self.state: KernelState = "starting"
        self.kernel_id: str | None = None
        self._rest = GatewayClient(gateway)
        self._session = Session(key=b"", username="ghostbook")  # one Session: msg_ids never repeat
        self._ws: ClientConnection | None = None
        self._outbox: asyncio.Queue[str | bytes] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._watch: asyncio.Task[None] | None = None
        self._runs = RunTracker(self._emit)
        self._comms = CommTracker(self._emit)
        self._closed = False
        self._lifecycle = asyncio.Lock()
        self._nudge: str | None = None  # the kernel_info request whose iopub status `_wait_ready` awaits
        self._nudged = asyncio.Event()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the kernel on the gateway and wait until it answers kernel_info."""
        async with self._lifecycle:
            if self.kernel_id is not None or self._closed:
                raise RuntimeError("GatewayKernelAdapter.start() may be called only once")
            await self._launch()

    async def restart(self) -> None:
        """Restart the kernel, also after it died or the gateway went away; pending runs finish as `dead`."""
        async with self._lifecycle:
            if self._closed:
                raise KernelNotRunning("The kernel was shut down")
            self._set_state("restarting")
            await self._disconnect()
            self._runs.fail_all("The kernel was restarted")
            if self.kernel_id is not None:
                try:
                    await self._rest.restart(self.kernel_id)
                    await self._connect()
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # a gateway that came back does not know the old kernel
                    if not (isinstance(exc, KernelGone) or await self._kernel_gone()):
                        await self._fail(f"The kernel could not be restarted: {_describe(exc)}", exc)
                    log.info("gateway kernel %s is gone (%s): starting a fresh one", self.kernel_id, exc)
                    await self._disconnect()
                self.kernel_id = None
            await self._launch()

    async def shutdown(self) -> None:
        """Disconnect and delete the kernel on the gateway (best effort, a few seconds at most). Idempotent."""
        async with self._lifecycle:
            if self._closed:
                return
            self._closed = True
            if self._watch is not None and self._watch is not asyncio.current_task():
                self._watch.cancel()
            await self._disconnect()
            self._runs.fail_all("The kernel was shut down")
            kernel_id, self.kernel_id = self.kernel_id, None
            if kernel_id is not None:
                try:
                    await asyncio.wait_for(self._rest.shutdown(kernel_id), SHUTDOWN_TIMEOUT)
                except (GatewayError, TimeoutError) as exc:
                    log.info("could not delete gateway kernel %s: %s", kernel_id, _describe(exc))
            if self.state != "dead":
                self._set_state("dead", "The kernel was shut down")

    async def interrupt(self) -> None:
        """Ask the gateway to interrupt the kernel (it signals or messages it, as the kernelspec says)."""
        if self.kernel_id is None or self._closed or self.state not in ("idle", "busy"):
            raise KernelNotRunning(f"The kernel is not ready to be interrupted (state: {self.state})")
        await self._rest.interrupt(self.kernel_id)

    # -- requests --------------------------------------------------------------------------

    def execute(self, code: str) -> str:
        """Send an execute_request and return its msg_id at once."""
        msg_id = self._send("shell", "execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": True, "stop_on_error": True})
        self._runs.add(msg_id)
        return msg_id

    def send_stdin(self, value: str) -> None:
        """Answer the pending input_request."""
        self._send("stdin", "input_reply", {"value": value})

    async def complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        """complete_reply content for `code` at `cursor_pos` (TimeoutError after ~5 s)."""
        msg_id = self._send("shell", "complete_request", {"code": code, "cursor_pos": cursor_pos})
        return await self._reply(msg_id, "complete")

    async def inspect(self, code: str, cursor_pos: int, detail_level: int = 0) -> dict[str, Any]:
        """inspect_reply content for the name at `cursor_pos` (TimeoutError after ~5 s)."""
        msg_id = self._send("shell", "inspect_request",
                            {"code": code, "cursor_pos": cursor_pos, "detail_level": detail_level})
        return await self._reply(msg_id, "inspect")

    def send_comm(self, msg_type: str, content: dict[str, Any], *, msg_id: str,
                  metadata: dict[str, Any] | None = None, buffers: Sequence[bytes] = ()) -> None:
        """Send a comm message (comm_open, comm_msg, comm_close) under `msg_id` (a binary frame when it has
        buffers); `CommDone(msg_id)` follows once the kernel has handled it."""
        check_comm(msg_type, content)
        self._comms.sent(msg_id)
        self._send("shell", msg_type, content, msg_id=msg_id, metadata=metadata, buffers=buffers)

    async def comm_info(self, target_name: str | None = None) -> dict[str, Any]:
        """comm_info_reply content: the kernel's open comms, `{"comms": {comm_id: {"target_name"}}}`."""
        msg_id = self._send("shell", "comm_info_request", {} if target_name is None else {"target_name": target_name})
        return await self._reply(msg_id, "comm_info")

    async def run_silent(
        self,
        code: str,
        timeout: float = 5.0,
        user_expressions: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Run `code` silently (no history, no Output events); the reply content plus `stdout`/`stderr`."""
        msg_id = self._send("shell", "execute_request", {
            "code": code, "silent": True, "store_history": False, "user_expressions": user_expressions or {},
            "allow_stdin": False, "stop_on_error": False})
        return await self._runs.wait_silent(msg_id, timeout)

    # -- internals -------------------------------------------------------------------------

    def _send(self, channel: str, msg_type: str, content: dict[str, Any], *, check: bool = True,
              msg_id: str | None = None, metadata: dict[str, Any] | None = None,
              buffers: Sequence[bytes] = ()) -> str:
        if check and (self._ws is None or self.state in ("dead", "restarting", "starting") or self._closed):
            raise KernelNotRunning(f"The kernel is not running (state: {self.state})")
        msg = self._session.msg(msg_type, content, metadata=metadata)
        if msg_id is not None:
            msg["header"]["msg_id"] = msg["msg_id"] = msg_id
        msg["channel"] = channel
        self._outbox.put_nowait(pack(msg, buffers) if buffers else json.dumps(msg, default=json_default))
        return str(msg["header"]["msg_id"])

    async def _reply(self, msg_id: str, what: str) -> dict[str, Any]:
        try:
            return await self._runs.wait_reply(msg_id, REPLY_TIMEOUT)
        except TimeoutError:
            raise TimeoutError(f"the kernel on the gateway sent no {what} reply within {REPLY_TIMEOUT:g} s") from None

    async def _kernel_gone(self) -> bool:
        """Whether the gateway answers that it does not know our kernel."""
        assert self.kernel_id is not None
        try:
            await self._rest.kernel(self.kernel_id)
        except KernelGone:
            return True
        except GatewayError:
            pass
        return False

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

    async def _launch(self) -> None:
        """Start a kernel of `kernel_name` on the gateway and connect (the lifecycle lock is held)."""
        self.state = "starting"
        self._emit(StatusChanged("starting"))
        what = f"The kernel {self.kernel_name!r} could not start on the gateway"
        try:
            specs = {s["name"]: s for s in specs_list(await self._rest.kernelspecs())}
            if self.kernel_name not in specs:
                known = ", ".join(sorted(specs)) or "none"
                await self._fail(f"Unknown kernel {self.kernel_name!r} on the gateway (it has: {known})", None)
            self.display_name = specs[self.kernel_name]["display_name"]
            model = await self._rest.start_kernel(self.kernel_name)
            self.kernel_id = str(model["id"])
            await self._connect()
        except (KernelStartError, asyncio.CancelledError):
            raise
        except Exception as exc:
            await self._fail(f"{what}: {_describe(exc)}", exc)

    async def _connect(self) -> None:
        """Open the channels websocket and wait until the kernel answers kernel_info."""
        assert self.kernel_id is not None
        cfg = self.gateway
        ws = await connect(cfg.ws_url(self.kernel_id), additional_headers=cfg.headers,
                           open_timeout=cfg.connect_timeout, max_size=MAX_MESSAGE, proxy=None)
        self._ws = ws
        self._outbox = asyncio.Queue()
        self._tasks = [
            asyncio.create_task(self._read(ws), name="gateway-read"),
            asyncio.create_task(self._write(ws), name="gateway-write"),
            asyncio.create_task(self._poll(ws), name="gateway-poll"),
        ]
        await self._wait_ready(cfg.request_timeout)
        self._set_state("idle")

    async def _wait_ready(self, limit: float) -> None:
        """Ask kernel_info until the kernel's status for it comes back on iopub (as jupyter_server's nudge
        does): a shell reply alone is not enough, since iopub may not be subscribed yet after a (re)start,
        and a run whose iopub messages are lost never finishes."""
        deadline = time.monotonic() + limit
        while True:
            msg_id = self._send("shell", "kernel_info_request", {}, check=False)
            self._nudge, self._nudged = msg_id, asyncio.Event()
            try:
                await asyncio.wait_for(self._nudged.wait(), min(1.0, max(deadline - time.monotonic(), 0.01)))
                return
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"the kernel did not answer kernel_info within {limit:g} s") from None
                if self._ws is None or self._tasks[0].done():
                    raise GatewayError("the gateway closed the kernel's websocket while it started") from None

    async def _ready_after_restart(self) -> None:
        """After the gateway's own restart: idle once the new kernel answers (a request sent before that
        can be lost while the gateway reconnects its channels), dead if it never does."""
        try:
            await self._wait_ready(self.gateway.request_timeout)
        except (TimeoutError, GatewayError) as exc:
            if self.state == "restarting":
                self._set_state("dead", f"the gateway restarted the kernel but it does not answer: {exc}")
            return
        if self.state == "restarting":
            self._set_state("idle")

    async def _disconnect(self) -> None:
        self._comms.clear()
        ws, self._ws = self._ws, None
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2.0)

    async def _write(self, ws: ClientConnection) -> None:
        quick_ack = _quick_ack(ws)
        with contextlib.suppress(ConnectionClosed):
            while True:
                await ws.send(await self._outbox.get())
                quick_ack()

    async def _poll(self, ws: ClientConnection) -> None:
        """Close the websocket when the gateway no longer has the kernel (culled, deleted by someone
        else): the gateway keeps such a websocket open. Reachability is the websocket's own business."""
        assert self.kernel_id is not None
        kernel_id = self.kernel_id
        while True:
            await asyncio.sleep(POLL_INTERVAL)
            try:
                await self._rest.kernel(kernel_id)
            except KernelGone:
                await ws.close()
                return
            except GatewayError:
                pass

    async def _read(self, ws: ClientConnection) -> None:
        quick_ack = _quick_ack(ws)
        try:
            async for raw in ws:
                quick_ack()
                try:
                    self._handle(unpack(raw) if isinstance(raw, bytes) else json.loads(raw))  # bytes: with buffers
                except FrameError as exc:
                    log.warning("dropped a binary frame from the gateway: %s", exc)
                except Exception:
                    log.exception("failed to handle a gateway message")
        except ConnectionClosed:
            pass
        if ws is self._ws and not self._closed:
            self._watch = asyncio.create_task(self._lost(ws), name="gateway-lost")

    def _handle(self, msg: dict[str, Any]) -> None:
        msg.setdefault("msg_type", msg.get("header", {}).get("msg_type", ""))
        msg.setdefault("parent_header", {})
        msg.setdefault("content", {})
        channel = msg.get("channel")
        if channel == "iopub":
            self._on_iopub(msg)
        elif channel == "shell":
            self._runs.on_shell(msg)
        elif channel == "stdin" and msg["msg_type"] == "input_request":
            content = msg["content"]
            parent = msg["parent_header"].get("msg_id", "")
            self._emit(StdinRequested(parent, content.get("prompt", ""), bool(content.get("password"))))

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        if self._nudge is not None and msg["parent_header"].get("msg_id") == self._nudge:
            self._nudged.set()
        if self._comms.on_iopub(msg):
            return
        if msg["msg_type"] != "status":
            self._runs.on_iopub(msg)
            return
        state = msg["content"].get("execution_state", "")
        if state in ("busy", "idle"):
            self._runs.on_iopub(msg)  # its timing; idle finishes the run before idle is reported
        if state in ("busy", "idle") and self.state in ("busy", "idle"):
            self._set_state(state)  # type: ignore[arg-type]
        elif state == "restarting" and self.state in ("busy", "idle"):  # the gateway's auto-restart
            self._runs.fail_all(f"The kernel died: {GATEWAY_RESTARTED}")
            self._set_state("restarting", GATEWAY_RESTARTED)
            self._tasks.append(asyncio.create_task(self._ready_after_restart(), name="gateway-restarted"))
        elif state == "dead" and self.state in ("busy", "idle"):  # the gateway could not restart it
            self._runs.fail_all("The kernel died: the gateway could not restart it")
            self._set_state("dead", "the kernel died and the gateway could not restart it")

    async def _lost(self, ws: ClientConnection) -> None:
        """The websocket closed under us: find out why, reconnect if the kernel lives, else report `dead`."""
        async with self._lifecycle:
            if ws is not self._ws or self._closed or self.kernel_id is None:
                return
            await self._disconnect()
            try:
                await self._rest.kernel(self.kernel_id)
            except KernelGone as exc:
                reason = str(exc)
            except GatewayError as exc:
                reason = f"the gateway went away: {exc}"
            else:
                self._runs.fail_all("The connection to the gateway dropped")
                try:
                    await self._connect()
                    return
                except Exception as exc:
                    await self._disconnect()
                    reason = f"the connection to the gateway dropped and could not be reopened: {_describe(exc)}"
            self._runs.fail_all(f"The kernel died: {reason}")
            self._set_state("dead", reason)

    async def _fail(self, msg: str, exc: BaseException | None) -> None:
        """Report `dead` with `msg` and raise KernelStartError (the lifecycle lock is held)."""
        await self._disconnect()
        self._runs.fail_all(msg)
        self._set_state("dead", msg)
        raise KernelStartError(msg) from exc


def _quick_ack(ws: ClientConnection) -> Callable[[], None]:
    """A function that makes Linux acknowledge what the gateway sent at once (TCP_QUICKACK).

    Jupyter servers leave Nagle's algorithm on for their websockets: a kernel's second small message
    (execute_input after status busy, a reply after status) waits for the ACK of the first, which our
    side delays by ~40 ms. Acknowledging each message as it is read removes that stall (requests
    over a loopback gateway: ~52 ms → ~15 ms).
    """
    sock = ws.transport.get_extra_info("socket") if ws.transport is not None else None
    flag = getattr(socket, "TCP_QUICKACK", None)
    if sock is None or flag is None:
        return lambda: None

    def ack() -> None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, flag, 1)

    return ack


def _describe(exc: BaseException) -> str:
    if isinstance(exc, InvalidStatus):
        code = exc.response.status_code
        if code in (401, 403):
            return f"the gateway refused the token (HTTP {code})"
        if code == 404:
            return "the gateway has no such kernel (HTTP 404)"
        return f"the gateway refused the websocket (HTTP {code})"
    if isinstance(exc, InvalidHandshake):
        return f"the websocket handshake with the gateway failed: {exc}"
    if isinstance(exc, TimeoutError):
        return str(exc) or "timed out"
    if isinstance(exc, OSError):
        return f"cannot reach the gateway: {exc.strerror or exc}"
    return str(exc) or type(exc).__name__
