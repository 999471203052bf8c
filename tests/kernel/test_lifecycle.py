"""Restart, death and shutdown: each test gets a kernel of its own."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from ghostbook.kernel import adapter as adapter_module
from ghostbook.kernel.adapter import KernelAdapter, KernelNotRunning, KernelStartError
from ghostbook.kernel.events import ExecutionStarted, StatusChanged
from ghostbook.kernel.specs import default_kernel_name, list_kernelspecs

from .conftest import Recorder

Fresh = tuple[KernelAdapter, Recorder]


def exists(path: str) -> bool:
    return os.path.exists(path)


async def assert_works(adapter: KernelAdapter, rec: Recorder) -> None:
    msg_id = adapter.execute("1+1")
    assert (await rec.finished(msg_id)).status == "ok"
    assert rec.outputs(msg_id)[0].content["data"]["text/plain"] == "2"


async def test_restart_clears_state_and_finishes_pending(fresh: Fresh) -> None:
    adapter, rec = fresh
    first = adapter.execute("x = 42")
    await rec.finished(first)
    running = adapter.execute("import time; time.sleep(60)")
    queued = adapter.execute("print('queued')")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == running)
    mark = len(rec.events)
    await adapter.restart()
    assert adapter.state == "idle"
    after = rec.events[mark:]
    assert [e.state for e in after if isinstance(e, StatusChanged)] == ["restarting", "idle"]
    assert (await rec.finished(running)).status == "dead"
    assert (await rec.finished(queued)).status == "dead"
    assert rec.outputs(queued) == []
    msg_id = adapter.execute("x")
    assert msg_id not in {first, running, queued}  # msg_ids stay unique across restarts
    assert (await rec.finished(msg_id)).status == "error"
    assert rec.outputs(msg_id)[0].content["ename"] == "NameError"


async def test_death_by_exit_code_then_restart(fresh: Fresh) -> None:
    adapter, rec = fresh
    msg_id = adapter.execute("import os; os._exit(1)")
    dead = await rec.state("dead", seconds=10)
    assert dead.reason == "exited with code 1"
    finished = await rec.finished(msg_id)
    assert finished.status == "dead" and finished.reason == "The kernel died: exited with code 1"
    with pytest.raises(KernelNotRunning):
        adapter.execute("1")
    await adapter.restart()
    await assert_works(adapter, rec)


async def test_death_by_sigkill_noticed_while_idle(fresh: Fresh) -> None:
    adapter, rec = fresh
    pid = adapter.kernel_pid
    assert pid is not None
    t0 = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    dead = await rec.state("dead", seconds=5)
    assert time.monotonic() - t0 < 1.5
    # a small kernel killed on purpose: the signal, plainly, without blaming memory (issue 31.4)
    assert dead.reason == "killed by signal 9 (SIGKILL)"
    with pytest.raises(KernelNotRunning):
        await adapter.complete("pri", 3)
    await adapter.restart()
    assert adapter.kernel_pid != pid
    await assert_works(adapter, rec)


async def test_death_of_a_running_cell_says_what_happened(fresh: Fresh) -> None:
    adapter, rec = fresh
    msg_id = adapter.execute("import time; time.sleep(60)")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == msg_id)
    pid = adapter.kernel_pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    finished = await rec.finished(msg_id, seconds=5)
    assert finished.status == "dead"
    assert finished.reason is not None and finished.reason.startswith("The kernel died: killed by signal 9 (SIGKILL)")
    with pytest.raises(KernelNotRunning, match="not ready"):  # no traceback, a clear refusal
        await adapter.interrupt()


async def wait_for_process(adapter: KernelAdapter) -> int:
    """The pid of a kernel that is still starting (launched, not yet answering)."""
    async with asyncio.timeout(30):
        while (pid := adapter.kernel_pid) is None:  # noqa: ASYNC110 (nothing to wait on: the process appears)
            await asyncio.sleep(0.005)
    assert adapter.state == "starting"
    return pid


async def test_interrupt_while_starting_is_refused_and_spares_the_kernel() -> None:
    rec = Recorder()
    adapter = KernelAdapter(rec)
    starting = asyncio.create_task(adapter.start())
    try:
        await wait_for_process(adapter)
        with pytest.raises(KernelNotRunning, match="starting"):
            await adapter.interrupt()  # a SIGINT now would kill the kernel before it is ready
        await starting
        assert adapter.state == "idle"
        await assert_works(adapter, rec)
        await adapter.interrupt()  # ready now: allowed, and harmless while idle
        await asyncio.sleep(0.5)
        await assert_works(adapter, rec)
    finally:
        starting.cancel()
        await adapter.shutdown()


async def test_a_kernel_killed_while_starting_is_started_once_more() -> None:
    rec = Recorder()
    adapter = KernelAdapter(rec)
    starting = asyncio.create_task(adapter.start())
    try:
        first = await wait_for_process(adapter)
        os.kill(first, signal.SIGKILL)  # dies before it is ready (a port taken, or Interrupt as it once did)
        await starting
        assert adapter.state == "idle" and adapter.kernel_pid != first
        assert rec.states() == ["starting", "idle"]
        await assert_works(adapter, rec)
    finally:
        starting.cancel()
        await adapter.shutdown()


DIES_AT_FIRST = """import pathlib, sys
count = pathlib.Path(sys.argv[1])
died = int(count.read_text()) if count.exists() else 0
if died < int(sys.argv[2]):
    count.write_text(str(died + 1))
    sys.exit(3)
from ipykernel.kernelapp import IPKernelApp
IPKernelApp.launch_instance(argv=["-f", sys.argv[3]])
"""


def install_dying_kernel(root: Path, monkeypatch: pytest.MonkeyPatch, deaths: int) -> Path:
    """A kernelspec `dying` whose first DEATHS launches exit with code 3, later ones run ipykernel."""
    spec_dir = root / "kernels" / "dying"
    spec_dir.mkdir(parents=True)
    (root / "dies.py").write_text(DIES_AT_FIRST)
    count = root / "deaths"
    argv = [sys.executable, str(root / "dies.py"), str(count), str(deaths), "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Dying", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(root))
    return count


async def test_a_kernel_that_dies_at_its_first_start_is_started_again(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    count = install_dying_kernel(tmp_path, monkeypatch, deaths=1)
    rec = Recorder()
    adapter = KernelAdapter(rec, kernel_name="dying")
    try:
        await adapter.start()
        assert count.read_text() == "1" and rec.states() == ["starting", "idle"]
        await assert_works(adapter, rec)
    finally:
        await adapter.shutdown()


PORT_TAKEN_AT_FIRST = """import json, pathlib, socket, sys
count = pathlib.Path(sys.argv[1])
taken = int(count.read_text()) if count.exists() else 0
if taken < int(sys.argv[2]):
    count.write_text(str(taken + 1))
    blocker = socket.socket()  # another program holds the kernel's iopub port, as another server's kernel may
    blocker.bind(("127.0.0.1", json.loads(pathlib.Path(sys.argv[3]).read_text())["iopub_port"]))
    blocker.listen()
from ipykernel.kernelapp import IPKernelApp
IPKernelApp.launch_instance(argv=["-f", sys.argv[3]])
"""


@pytest.mark.timeout(120)  # without the shorter first wait it would wait out START_TIMEOUT (set long below)
async def test_a_kernel_whose_port_is_taken_is_started_again_on_fresh_ports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ipykernel cannot bind a taken port and then hangs, neither answering nor exiting: the first start
    is given FIRST_START_WAIT (shortened here), then the kernel is killed and started afresh."""
    spec_dir = tmp_path / "kernels" / "taken"
    spec_dir.mkdir(parents=True)
    (tmp_path / "taken.py").write_text(PORT_TAKEN_AT_FIRST)
    count = tmp_path / "taken-count"
    argv = [sys.executable, str(tmp_path / "taken.py"), str(count), "1", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Taken", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setattr(adapter_module, "FIRST_START_WAIT", 8.0)
    monkeypatch.setattr(adapter_module, "START_TIMEOUT", 600.0)
    rec = Recorder()
    adapter = KernelAdapter(rec, kernel_name="taken")
    try:
        await adapter.start()
        assert count.read_text() == "1" and rec.states() == ["starting", "idle"]
        await assert_works(adapter, rec)
    finally:
        await adapter.shutdown()


async def test_restart_brings_back_a_kernel_that_failed_to_start(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    count = install_dying_kernel(tmp_path, monkeypatch, deaths=2)
    rec = Recorder()
    adapter = KernelAdapter(rec, kernel_name="dying")
    try:
        with pytest.raises(KernelStartError, match="failed to start: exited with code 3"):
            await adapter.start()
        assert count.read_text() == "2" and adapter.state == "dead"
        await adapter.restart()
        assert adapter.state == "idle"
        await assert_works(adapter, rec)
        await adapter.restart()  # and a plain restart still works afterwards
        await assert_works(adapter, rec)
    finally:
        await adapter.shutdown()


async def test_restart_falls_back_to_a_fresh_kernel_when_the_restarted_one_dies(fresh: Fresh) -> None:
    adapter, rec = fresh
    old = adapter.kernel_pid
    restarting = asyncio.create_task(adapter.restart())
    async with asyncio.timeout(30):
        while (pid := adapter.kernel_pid) in (None, old):  # noqa: ASYNC110 (the new process appears)
            await asyncio.sleep(0.005)
    assert adapter.state == "restarting"
    os.kill(pid, signal.SIGKILL)  # dies before it is ready
    await restarting
    assert adapter.state == "idle" and adapter.kernel_pid not in (old, pid)
    await assert_works(adapter, rec)


async def test_shutdown_is_idempotent_and_leaves_nothing(fresh: Fresh) -> None:
    adapter, rec = fresh
    pid = adapter.kernel_pid
    assert pid is not None and adapter._km is not None
    connection_file = adapter._km.connection_file
    assert exists(connection_file)
    pending = adapter.execute("import time; time.sleep(60)")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == pending)
    await adapter.shutdown()
    await adapter.shutdown()
    assert adapter.state == "dead"
    assert (await rec.finished(pending)).status == "dead"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not exists(connection_file)
    with pytest.raises(KernelNotRunning):
        adapter.execute("1")
    assert rec.states().count("dead") == 1


async def test_kernel_that_exits_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec_dir = tmp_path / "kernels" / "broken"
    spec_dir.mkdir(parents=True)
    argv = [sys.executable, "-c", "import sys; sys.exit(3)", "-f", "{connection_file}"]
    (spec_dir / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Broken", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    assert "broken" in [s["name"] for s in list_kernelspecs()]
    rec = Recorder()
    adapter = KernelAdapter(rec, kernel_name="broken")
    with pytest.raises(KernelStartError, match="code 3"):
        await adapter.start()
    assert rec.states() == ["starting", "dead"]
    await adapter.shutdown()


def test_list_kernelspecs() -> None:
    specs = list_kernelspecs()
    assert {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"} in specs
    assert default_kernel_name() == "python3"
