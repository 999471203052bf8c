"""The Jupyter comm protocol through both adapters (issue 29.3), with a real ipykernel: comm messages from
the kernel become `CommMessage`s (buffers included), ours go out under our msg_id, `CommDone` follows,
comm_info lists the comms; through a real Kernel Gateway too, where buffers travel as binary frames."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ghostbook.kernel.adapter import KernelAdapter
from ghostbook.kernel.events import CommDone, CommMessage, ExecutionFinished
from ghostbook.kernel.gateway import GatewayKernelAdapter
from ghostbook.kernel.gateway_client import GatewayConfig
from ghostbook.kernel.gateway_frames import FrameError, pack, unpack

from .conftest import Recorder
from .kernel_gateway import KernelGateway

pytestmark = pytest.mark.timeout(120)

# A comm target that answers each message with its data and buffers reversed, and a widget with a buffer.
SETUP = """
from comm import get_comm_manager
def _echo(comm, msg):
    comm.on_msg(lambda m: comm.send({'got': m['content']['data']}, buffers=[bytes(b)[::-1] for b in m['buffers']]))
get_comm_manager().register_target('ghostbook.echo', _echo)
"""


@pytest.fixture(scope="module")
def gateway() -> Iterator[KernelGateway]:
    running = KernelGateway().start()
    try:
        yield running
    finally:
        running.stop()


def test_binary_frames_round_trip() -> None:
    msg = {"header": {"msg_id": "m1", "msg_type": "comm_msg"}, "content": {"comm_id": "c", "data": {}},
           "channel": "shell"}
    frame = pack(msg, [b"\x00\x01", b"", b"xyz"])
    back = unpack(frame)
    assert back.pop("buffers") == [b"\x00\x01", b"", b"xyz"] and back == msg
    for bad in (b"", b"\x00\x00\x00\x00", frame[:6], b"\x00\x00\x00\x02\x00\x00\x00\x0c\x00\x00\x00\x04{}"):
        with pytest.raises(FrameError):
            unpack(bad)


async def scenario(adapter: KernelAdapter | GatewayKernelAdapter, rec: Recorder) -> None:
    setup = adapter.execute(SETUP)
    assert (await rec.finished(setup)).status == "ok"

    adapter.send_comm("comm_open", {"comm_id": "echo1", "target_name": "ghostbook.echo", "data": {}}, msg_id="open-1")
    await rec.wait_for(lambda e: isinstance(e, CommDone) and e.msg_id == "open-1")
    adapter.send_comm("comm_msg", {"comm_id": "echo1", "data": {"n": 1}}, msg_id="tab-msg-1",
                      buffers=[b"abc", b"\x00\xff"])
    reply = await rec.wait_for(lambda e: isinstance(e, CommMessage) and e.msg_id == "tab-msg-1")
    assert isinstance(reply, CommMessage)
    assert reply.msg_type == "comm_msg" and reply.content["comm_id"] == "echo1"
    assert reply.content["data"] == {"got": {"n": 1}} and reply.buffers == (b"cba", b"\xff\x00")
    await rec.wait_for(lambda e: isinstance(e, CommDone) and e.msg_id == "tab-msg-1")
    assert "echo1" in (await adapter.comm_info("ghostbook.echo"))["comms"]

    # a widget the kernel makes: its comm_open carries the state, and its binary value as a buffer
    shown = adapter.execute("import ipywidgets as w\nimg = w.Image(value=b'PNG-bytes', format='png')\ndisplay(img)")
    await rec.finished(shown)
    opened = [e for e in rec.events if isinstance(e, CommMessage) and e.msg_type == "comm_open"
              and e.content["data"]["state"].get("_model_name") == "ImageModel"]
    assert len(opened) == 1 and opened[0].msg_id == shown and opened[0].metadata["version"].startswith("2.")
    assert opened[0].buffers == (b"PNG-bytes",) and opened[0].content["data"]["buffer_paths"] == [["value"]]
    # a tab's update of it comes back as echo_update, under the tab's msg_id
    image_id = opened[0].content["comm_id"]
    adapter.send_comm("comm_msg", {"comm_id": image_id, "data": {"method": "update", "state": {"width": "50"},
                                                                 "buffer_paths": []}}, msg_id="tab-msg-2")
    echo = await rec.wait_for(lambda e: isinstance(e, CommMessage) and e.msg_id == "tab-msg-2")
    assert isinstance(echo, CommMessage) and echo.content["data"]["method"] == "echo_update"
    check = adapter.execute("print(img.width)")
    await rec.finished(check)
    assert not [e for e in rec.events if isinstance(e, ExecutionFinished) and e.status != "ok"]


async def test_comms_through_a_local_kernel() -> None:
    rec = Recorder()
    adapter = KernelAdapter(rec)
    await adapter.start()
    try:
        await scenario(adapter, rec)
    finally:
        await adapter.shutdown()


async def test_comms_through_a_kernel_gateway(gateway: KernelGateway) -> None:
    rec = Recorder()
    adapter = GatewayKernelAdapter(rec, gateway=GatewayConfig(gateway.url, gateway.token))
    await adapter.start()
    try:
        await scenario(adapter, rec)
    finally:
        await adapter.shutdown()
