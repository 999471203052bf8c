"""The Variables panel's server side: the kernel's names for the tabs that watch them, and pages of a
table for the data viewer.

Both run `kernels/ghostbook_kernel/namespace.py` (the completion context's kernel-side code, one place for
inspecting the kernel's namespace) as a silent execution, so they work in any IPython kernel, local or on
a gateway. The list is refreshed only AFTER a run has finished (its reply and idle both seen) and only
when no other run is queued: the refresh never delays a run that was already asked for, and a queue of
runs gets one refresh, after its last cell.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

from ghostbook import protocol as p
from ghostbook.completion.namespace_provider import MODULE, install_code, kernel_source_path
from ghostbook.completion.silent_runner import SilentRunner
from ghostbook.kernel.errors import KernelNotRunning
from ghostbook.kernel.events import ExecutionFinished, KernelEvent, StatusChanged

log = logging.getLogger(__name__)

LIST_TIMEOUT = 10.0
PAGE_TIMEOUT = 120.0  # the first sort of a 10-million-row column takes seconds
_CALL = f"__import__('sys').modules[{MODULE!r}]"
_NS = "get_ipython().user_ns"

Send = Callable[[str, p.ServerEvent], None]


class KernelError(Exception):
    """The kernel-side code raised: its message is for the user (a name that is gone, not a table)."""


def list_expression() -> str:
    return f"{_CALL}.variables({_NS}, get_ipython().user_ns_hidden)"


def page_expression(message: p.GetDataPage) -> str:
    """The call for one page; `name` is an identifier (checked by the protocol) and the rest are numbers."""
    return (f"{_CALL}.data_page({_NS}, {message.name!r}, {message.start:d}, {message.count:d}, "
            f"{message.sort!r}, {message.ascending!r})")


def installed_once(source: str) -> str:
    """Code that installs `source` in the kernel's private module unless that very source is there already
    (compiling it for every page would cost more than reading the page)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    module = "__import__('sys').modules"
    return (f"if getattr({module}.get({MODULE!r}), 'SOURCE_ID', None) != {digest!r}: "
            f"{install_code(source)}; {module}[{MODULE!r}].SOURCE_ID = {digest!r}")


def expression_json(reply: dict[str, Any], key: str) -> Any:
    """The JSON value the kernel-side function returned (the repr of a JSON string) in user_expressions[key]."""
    result = reply.get("user_expressions", {}).get(key, {})
    if result.get("status") != "ok":
        raise KernelError(f"{result.get('ename', 'Error')}: {result.get('evalue', 'no answer')}")
    return json.loads(ast.literal_eval(result["data"]["text/plain"]))


class KernelVariables:
    """Answers get_variables / get_data_page and pushes `variables` to watching tabs after each run.

    `runner()`: the kernel's silent runner (None without a kernel); `send(client_id, message)`;
    `busy()`: a cell is running or queued.
    """

    def __init__(self, runner: Callable[[], SilentRunner | None], send: Send, busy: Callable[[], bool]) -> None:
        self._runner = runner
        self._send = send
        self._busy = busy
        self.watchers: set[str] = set()
        self._install: str | None = None
        self._running = False
        self._again = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.refreshes = 0  # lists pushed to watchers (tests count them)
        self._state = "starting"  # the kernel's last reported state
        self._pushed: tuple[Any, int] | None = None  # the list last pushed to the watchers

    async def handle(self, client_id: str, message: p.GetVariables | p.UnwatchVariables | p.GetDataPage) -> None:
        match message:
            case p.UnwatchVariables():
                self.watchers.discard(client_id)
            case p.GetVariables():
                if message.watch:
                    self.watchers.add(client_id)
                else:
                    self.watchers.discard(client_id)
                self._pushed = None  # this tab's list may differ from the one last pushed: push the next one
                self._send(client_id, await self._list(message.ref))
            case p.GetDataPage():
                self._send(client_id, await self._page(message))

    def forget(self, client_id: str) -> None:
        self.watchers.discard(client_id)

    def kernel_event(self, event: KernelEvent) -> None:
        """After a run (and when a kernel is ready again), refresh the watchers' list unless runs are queued.
        Idle after busy is not a reason: the refresh's own silent execution reports that too."""
        started = False
        if isinstance(event, StatusChanged):
            started = event.state == "idle" and self._state in ("starting", "restarting")
            self._state = event.state
        if not self.watchers:
            return
        if isinstance(event, StatusChanged) and event.state in ("restarting", "dead"):
            self._pushed = None
            self._push(p.VariablesMessage.model_construct(ref=None, variables=[], total=0, ms=None, busy=False))
        elif (isinstance(event, ExecutionFinished) and event.status in ("ok", "error")) or started:
            if not self._busy():
                self._spawn(self.refresh())

    async def refresh(self) -> None:
        """One list for every watcher; a refresh asked for while one runs makes it run once more."""
        if self._running:
            self._again = True
            return
        self._running = True
        try:
            while True:
                self._again = False
                if self._busy() or not self.watchers:
                    break
                reply = await self._list(None)
                if isinstance(reply, p.VariablesMessage):
                    self.refreshes += 1
                    same = (reply.variables, reply.total) == self._pushed
                    self._pushed = (reply.variables, reply.total)
                    if not same:  # 2,000 names are a quarter of a megabyte: only a changed list travels
                        self._push(reply)
                if not self._again:
                    break
        finally:
            self._running = False

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    # ---- internals ------------------------------------------------------------------------------

    async def _run(self, expression: str, timeout: float) -> Any:
        runner = self._runner()
        if runner is None:
            raise KernelError("the kernel is not running")
        if self._install is None:
            self._install = installed_once(await asyncio.to_thread(kernel_source_path().read_text))
        try:
            reply = await runner.run_silent(self._install, timeout, {"r": expression})
        except TimeoutError:
            raise KernelError(f"the kernel did not answer within {timeout:.0f} s") from None
        except KernelError:
            raise
        except KernelNotRunning as exc:  # dead, restarting, still starting
            raise KernelError(str(exc)) from exc
        except Exception as exc:  # e.g. the gateway went away
            raise KernelError(f"the kernel cannot be reached ({exc})") from exc
        return expression_json(reply, "r")

    async def _list(self, ref: str | None) -> p.VariablesMessage | p.ErrorMessage:
        if self._busy():
            return p.VariablesMessage.model_construct(ref=ref, variables=None, total=0, ms=None, busy=True)
        try:
            found = await self._run(list_expression(), LIST_TIMEOUT)
        except KernelError as exc:
            return p.error_message(f"cannot list the variables: {exc}", ref)
        variables = [p.Variable.model_construct(**row) for row in found["variables"]]
        return p.VariablesMessage.model_construct(ref=ref, variables=variables, total=found["total"], ms=found["ms"],
                                                  busy=False)

    async def _page(self, message: p.GetDataPage) -> p.DataPage | p.ErrorMessage:
        if self._busy():
            return p.error_message("a cell is running: the table can be read when it has finished", message.ref)
        try:
            page = await self._run(page_expression(message), PAGE_TIMEOUT)
        except KernelError as exc:
            return p.error_message(f"cannot read {message.name}: {exc}", message.ref)
        page["type_name"] = page.pop("type")
        page["columns"] = [p.DataColumn.model_construct(**column) for column in page["columns"]]
        return p.DataPage.model_construct(ref=message.ref, **page)

    def _push(self, reply: p.VariablesMessage) -> None:
        message = reply.model_copy(update={"ref": None})
        for client_id in list(self.watchers):
            self._send(client_id, message)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
