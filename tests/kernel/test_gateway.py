"""Kernels on a real Jupyter Kernel Gateway on loopback (#18): the same events as local kernels."""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from ghostbook.completion.namespace_provider import KernelNamespace
from ghostbook.kernel import gateway as gateway_module
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.backend import KernelBackend
from ghostbook.kernel.errors import KernelNotRunning, KernelStartError
from ghostbook.kernel.events import ExecutionStarted, StatusChanged, StdinRequested
from ghostbook.kernel.gateway import GatewayKernelAdapter
from ghostbook.kernel.gateway_client import GatewayClient, GatewayConfig
from ghostbook.web import serve

from .conftest import Recorder
from .kernel_gateway import KernelGateway

pytestmark = pytest.mark.timeout(120)

Started = tuple[GatewayKernelAdapter, Recorder]


@pytest.fixture(scope="module")
def shared_gateway() -> Iterator[KernelGateway]:
    gateway = KernelGateway().start()
    try:
        yield gateway
    finally:
        gateway.stop()


@pytest.fixture
def own_gateway() -> Iterator[KernelGateway]:
    """A gateway of its own, for tests that kill it."""
    gateway = KernelGateway().start()
    try:
        yield gateway
    finally:
        gateway.kill()


def config(gateway: KernelGateway, **kw: float) -> GatewayConfig:
    return GatewayConfig(gateway.url, gateway.token, **kw)


async def started(gateway: KernelGateway) -> tuple[GatewayKernelAdapter, Recorder]:
    rec = Recorder()
    adapter = GatewayKernelAdapter(rec, gateway=config(gateway))
    await adapter.start()
    return adapter, rec


@pytest_asyncio.fixture
async def kernel(shared_gateway: KernelGateway) -> AsyncIterator[Started]:
    adapter, rec = await started(shared_gateway)
    try:
        yield adapter, rec
    finally:
        await adapter.shutdown()


async def run(adapter: GatewayKernelAdapter, rec: Recorder, code: str, status: str = "ok") -> str:
    msg_id = adapter.execute(code)
    finished = await rec.finished(msg_id, seconds=30)
    assert finished.status == status, (finished, rec.outputs(msg_id))
    return rec.stdout(msg_id)


async def test_cell_runs_in_the_gateways_kernel_process(kernel: Started, shared_gateway: KernelGateway) -> None:
    adapter, rec = kernel
    assert adapter.display_name == "Python 3 (ipykernel)"  # from the gateway's kernelspec
    pid, ppid = map(int, (await run(adapter, rec, "import os; print(os.getpid(), os.getppid())")).split())
    assert pid != os.getpid()
    assert ppid == shared_gateway.pid  # the gateway launched it, not this process
    assert rec.states()[:2] == ["starting", "idle"]

    complete = await adapter.complete("import o", 8)
    assert "os" in complete["matches"]
    inspect = await adapter.inspect("os.getpid", 9)
    assert inspect["found"] and "process id" in inspect["data"]["text/plain"].lower()

    msg_id = adapter.execute("print('got', input('name? '))")
    asked = await rec.wait_for(lambda e: isinstance(e, StdinRequested) and e.msg_id == msg_id)
    assert isinstance(asked, StdinRequested) and asked.prompt == "name? "
    adapter.send_stdin("Ada")
    assert (await rec.finished(msg_id)).status == "ok"
    assert rec.stdout(msg_id) == "got Ada\n"


async def test_namespace_summary_for_completion(kernel: Started) -> None:
    """kernels/ghostbook_kernel's summary is sent as code and runs silently in the gateway's kernel."""
    adapter, rec = kernel
    await run(adapter, rec, "frame_rows = [1, 2, 3]")
    mark = len(rec.events)
    namespace = KernelNamespace(lambda: adapter)
    await namespace.refresh()
    assert any("frame_rows" in line and "list" in line for line in namespace.lines), namespace.lines
    assert not [e for e in rec.events[mark:] if not isinstance(e, StatusChanged)]  # silent: no cell events


async def test_interrupt_and_restart(kernel: Started) -> None:
    adapter, rec = kernel
    await run(adapter, rec, "x = 42")
    msg_id = adapter.execute("import time\nwhile True: time.sleep(0.05)")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == msg_id)
    await asyncio.sleep(0.2)
    t0 = time.monotonic()
    await adapter.interrupt()
    assert (await rec.finished(msg_id, seconds=10)).status == "error"
    assert time.monotonic() - t0 < 5
    assert rec.outputs(msg_id)[-1].content["ename"] == "KeyboardInterrupt"

    running = adapter.execute("import time; time.sleep(60)")
    await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == running)
    mark = len(rec.events)
    await adapter.restart()
    assert [e.state for e in rec.events[mark:] if isinstance(e, StatusChanged)] == ["restarting", "idle"]
    assert (await rec.finished(running)).status == "dead"
    msg_id = adapter.execute("x")
    assert (await rec.finished(msg_id)).status == "error"
    assert rec.outputs(msg_id)[0].content["ename"] == "NameError"  # a fresh namespace


async def test_kernel_process_death_is_restarted_by_the_gateway(kernel: Started) -> None:
    adapter, rec = kernel
    msg_id = adapter.execute("import os; os._exit(1)")
    finished = await rec.finished(msg_id, seconds=30)
    assert finished.status == "dead"
    assert finished.reason == "The kernel died: the kernel died and the gateway restarted it"
    restarting = await rec.wait_for(
        lambda e: isinstance(e, StatusChanged) and e.state == "restarting" and e.reason is not None)
    before = {id(e) for e in rec.events[: rec.events.index(restarting) + 1]}
    # idle only once the restarted kernel answers
    await rec.wait_for(lambda e: id(e) not in before and isinstance(e, StatusChanged) and e.state == "idle", 30)
    assert "1" in await run(adapter, rec, "print(1)")


async def test_kernel_the_gateway_loses_is_dead_then_restart_starts_a_new_one(
    kernel: Started, shared_gateway: KernelGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, rec = kernel
    old_id = adapter.kernel_id
    assert old_id is not None
    await GatewayClient(config(shared_gateway)).shutdown(old_id)  # culled or deleted by someone else
    dead = await rec.state("dead", seconds=gateway_module.POLL_INTERVAL + 10)
    assert dead.reason is not None and "the gateway no longer has the kernel" in dead.reason
    with pytest.raises(KernelNotRunning):
        adapter.execute("1")
    await adapter.restart()
    assert adapter.kernel_id != old_id
    assert await run(adapter, rec, "print('back')") == "back\n"


async def test_gateway_killed_is_dead_with_reason_and_restart_recovers_when_it_is_back(
    own_gateway: KernelGateway,
) -> None:
    adapter, rec = await started(own_gateway)
    try:
        pid = int(await run(adapter, rec, "import os; print(os.getpid())"))
        running = adapter.execute("import time; time.sleep(60)")
        await rec.wait_for(lambda e: isinstance(e, ExecutionStarted) and e.msg_id == running)
        t0 = time.monotonic()
        own_gateway.kill()
        finished = await rec.finished(running, seconds=10)
        assert time.monotonic() - t0 < 5
        dead = await rec.state("dead")
        assert dead.reason is not None and dead.reason.startswith("the gateway went away: cannot reach the gateway")
        assert finished.status == "dead" and finished.reason == f"The kernel died: {dead.reason}"

        with pytest.raises(KernelStartError, match="could not be restarted: cannot reach the gateway at"):
            await adapter.restart()  # still gone: a clear error, still dead
        assert adapter.state == "dead"

        own_gateway.start()
        await adapter.restart()
        new_pid = int(await run(adapter, rec, "import os; print(os.getpid())"))
        assert new_pid != pid
    finally:
        await adapter.shutdown()


async def test_unknown_kernel_and_wrong_token_are_clear_errors(shared_gateway: KernelGateway) -> None:
    rec = Recorder()
    adapter = GatewayKernelAdapter(rec, gateway=config(shared_gateway), kernel_name="julia-1.9")
    with pytest.raises(KernelStartError, match=r"Unknown kernel 'julia-1.9' on the gateway \(it has: python3\)"):
        await adapter.start()
    assert rec.states()[-1] == "dead"

    wrong = GatewayKernelAdapter(Recorder(), gateway=GatewayConfig(shared_gateway.url, "wrong"))
    with pytest.raises(KernelStartError, match="refused the token"):
        await wrong.start()
    await adapter.shutdown()
    await wrong.shutdown()


async def test_a_gateway_that_does_not_answer_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        rec = Recorder()
        adapter = GatewayKernelAdapter(rec, gateway=GatewayConfig(f"http://127.0.0.1:{port}", request_timeout=0.5))
        t0 = time.monotonic()
        with pytest.raises(KernelStartError, match=r"timed out after 0.5 s \(GET /api/kernelspecs\)"):
            await adapter.start()
        assert time.monotonic() - t0 < 3
        specs = await KernelBackend(adapter.gateway).refresh_specs()
        assert specs["kernelspecs"] == [] and "timed out" in specs["error"]
        await adapter.shutdown()


async def test_backend_lists_the_gateways_kernelspecs(shared_gateway: KernelGateway) -> None:
    specs = await KernelBackend(config(shared_gateway)).refresh_specs()
    assert specs == {"default": "python3", "kernelspecs": [
        {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}]}


def test_gateway_from_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUPYTER_GATEWAY_URL", raising=False)
    monkeypatch.delenv("JUPYTER_GATEWAY_AUTH_TOKEN", raising=False)
    assert GatewayConfig.from_env() is None
    monkeypatch.setenv("JUPYTER_GATEWAY_URL", "http://gw.example:8888/")
    monkeypatch.setenv("JUPYTER_GATEWAY_AUTH_TOKEN", "env-token")
    cfg = GatewayConfig.from_env()
    assert cfg is not None and (cfg.url, cfg.token) == ("http://gw.example:8888", "env-token")
    assert cfg.ws_url("k1") == "ws://gw.example:8888/api/kernels/k1/channels"
    cfg = GatewayConfig.from_env("https://other:9", "flag-token")  # flags win over the environment
    assert cfg is not None and (cfg.url, cfg.token) == ("https://other:9", "flag-token")
    assert cfg.ws_url("k1").startswith("wss://other:9/")
    with pytest.raises(ValueError, match="must look like http://host:port"):
        GatewayConfig.from_env("gw.example:8888")


def test_cli_refuses_a_bad_gateway_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve.main([str(tmp_path), "--gateway-url", "ftp://gw", "--no-browser"]) == 2
    assert "the gateway URL must look like http://host:port, not 'ftp://gw'" in capsys.readouterr().out


async def test_no_nagle_stall_on_the_gateways_websocket(kernel: Started) -> None:
    """Jupyter servers leave Nagle on; without quick ACKs each request through the gateway waited
    ~40 ms for a delayed ACK (measured: 52 ms per `1` against 16 ms locally; with them, ~10 ms)."""
    adapter, rec = kernel
    local_rec = Recorder()
    local = KernelAdapter(local_rec)
    await local.start()
    try:
        local_ms = await median_run_ms(local, local_rec)
    finally:
        await local.shutdown()
    gateway_ms = await median_run_ms(adapter, rec)
    assert gateway_ms < local_ms + 25, (gateway_ms, local_ms)


async def median_run_ms(adapter: GatewayKernelAdapter | KernelAdapter, rec: Recorder, n: int = 15) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        await rec.finished(adapter.execute("1"))
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)
