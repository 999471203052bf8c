"""KernelAdapter against one real ipykernel shared by the module."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from ghostbook.kernel.adapter import KernelAdapter, KernelNotRunning, KernelStartError
from ghostbook.kernel.events import ExecutionStarted, Output, StdinRequested

from .conftest import Recorder

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel() -> AsyncIterator[tuple[KernelAdapter, Recorder]]:
    rec = Recorder()
    adapter = KernelAdapter(rec)
    await adapter.start()
    try:
        yield adapter, rec
    finally:
        await adapter.shutdown()


async def test_start_reports_starting_then_idle(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    assert rec.states()[:2] == ["starting", "idle"]
    assert adapter.display_name == "Python 3 (ipykernel)"
    assert adapter.kernel_pid is not None


async def test_execute_result_and_execution_count(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    first = adapter.execute("1+1")
    second = adapter.execute("2+3")
    done1, done2 = await rec.finished(first), await rec.finished(second)
    assert done1.status == done2.status == "ok"
    assert done1.execution_count is not None and done2.execution_count == done1.execution_count + 1
    [result] = rec.outputs(first)
    assert result.msg_type == "execute_result" and result.content["data"]["text/plain"] == "2"
    started = [e for e in rec.events if isinstance(e, ExecutionStarted) and e.msg_id == first]
    assert started and started[0].execution_count == done1.execution_count
    # no output for a request may follow its ExecutionFinished
    assert rec.events.index(result) < rec.events.index(done1)


async def test_stream_stdout_and_stderr(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    msg_id = adapter.execute("import sys\nprint('out')\nprint('err', file=sys.stderr)")
    assert (await rec.finished(msg_id)).status == "ok"
    streams = {o.content["name"]: o.content["text"] for o in rec.outputs(msg_id) if o.msg_type == "stream"}
    assert streams == {"stdout": "out\n", "stderr": "err\n"}


async def test_display_data(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    msg_id = adapter.execute("from IPython.display import HTML, display\ndisplay(HTML('<b>x</b>'))")
    await rec.finished(msg_id)
    [out] = rec.outputs(msg_id)
    assert out.msg_type == "display_data" and out.content["data"]["text/html"] == "<b>x</b>"


async def test_update_display_and_clear_output(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    code = (
        "from IPython.display import clear_output, display\n"
        "h = display('a', display_id=True)\nh.update('b')\nclear_output(wait=True)"
    )
    msg_id = adapter.execute(code)
    await rec.finished(msg_id)
    outs = rec.outputs(msg_id)
    assert [o.msg_type for o in outs] == ["display_data", "update_display_data", "clear_output"]
    assert outs[1].content["data"]["text/plain"] == "'b'"
    assert outs[0].content["transient"]["display_id"] == outs[1].content["transient"]["display_id"]
    assert outs[2].content["wait"] is True


async def test_error_then_queued_request_aborted(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    bad = adapter.execute("1/0")
    queued = adapter.execute("print('never')")
    assert (await rec.finished(bad)).status == "error"
    [err] = rec.outputs(bad)
    assert err.msg_type == "error" and err.content["ename"] == "ZeroDivisionError"
    assert any("ZeroDivisionError" in line for line in err.content["traceback"])
    assert (await rec.finished(queued)).status == "aborted"
    assert rec.outputs(queued) == []


async def test_interrupt(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    msg_id = adapter.execute("while True: pass")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == msg_id)
    await asyncio.sleep(0.3)
    await adapter.interrupt()
    assert (await rec.finished(msg_id, seconds=10)).status == "error"
    assert [o.content["ename"] for o in rec.outputs(msg_id) if o.msg_type == "error"] == ["KeyboardInterrupt"]


async def test_stdin(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    msg_id = adapter.execute("name = input('who? ')\nprint('hello', name)")
    req = await rec.wait_for(lambda e: isinstance(e, StdinRequested) and e.msg_id == msg_id)
    assert isinstance(req, StdinRequested) and req.prompt == "who? " and not req.password
    adapter.send_stdin("ghost")
    assert (await rec.finished(msg_id)).status == "ok"
    assert "hello ghost" in rec.stdout(msg_id)


async def test_complete(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, _ = kernel
    code = "import os; os.pa"
    reply = await adapter.complete(code, len(code))
    assert reply["status"] == "ok"
    assert "path" in reply["matches"] or "os.path" in reply["matches"]
    assert reply["cursor_end"] == len(code)
    assert "_jupyter_types_experimental" in reply["metadata"]


async def test_inspect(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, _ = kernel
    reply = await adapter.inspect("len", 3)
    assert reply["status"] == "ok" and reply["found"]
    assert "Return the number of items" in reply["data"]["text/plain"]


async def test_run_silent_emits_no_output(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, rec = kernel
    before = len(rec.events)
    result = await adapter.run_silent("print('summary'); secret = 7", user_expressions={"s": "secret * 6"})
    assert result["status"] == "ok"
    assert result["stdout"] == "summary\n"
    assert result["user_expressions"]["s"]["data"]["text/plain"] == "42"
    await asyncio.sleep(0.1)
    assert not [e for e in rec.events[before:] if isinstance(e, (Output, ExecutionStarted))]
    # silent runs stay out of the history: the next count follows the last visible one
    msg_id = adapter.execute("secret")
    await rec.finished(msg_id)
    assert rec.outputs(msg_id)[0].content["data"]["text/plain"] == "7"


async def test_run_silent_error(kernel: tuple[KernelAdapter, Recorder]) -> None:
    adapter, _ = kernel
    result = await adapter.run_silent("undefined_name_xyz")
    assert result["status"] == "error" and result["ename"] == "NameError"


async def test_not_started_raises() -> None:
    adapter = KernelAdapter(lambda e: None)
    with pytest.raises(KernelNotRunning):
        adapter.execute("1")
    await adapter.shutdown()  # harmless before start


async def test_unknown_kernel_name() -> None:
    rec = Recorder()
    adapter = KernelAdapter(rec, kernel_name="no-such-kernel")
    with pytest.raises(KernelStartError, match="no-such-kernel"):
        await adapter.start()
    assert adapter.state == "dead"
    assert rec.states() == ["starting", "dead"]
    await adapter.shutdown()
