"""Widgets over the notebook websocket (issue 29.3), a real server and kernel: the kernel's comm messages
reach every tab, a tab's update reaches the kernel and, echoed, the other tab, a late tab gets the
widgets in its snapshot, comm_info answers, a malformed comm message gets an error, and the saved file
holds the widget state."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.conftest import RunningServer
from tests.web.test_websocket import new_notebook, run_cell
from tests.web.wsclient import NotebookClient

pytestmark = pytest.mark.timeout(90)


async def seen_or_expect(tab: NotebookClient, type_: str, comm_id: str) -> dict[str, Any]:
    for message in tab.seen:
        if message["type"] == type_ and message.get("comm_id") == comm_id:
            return message
    return await tab.expect(type_, comm_id=comm_id)


def test_widget_comms_between_kernel_and_tabs(server: RunningServer) -> None:
    path = new_notebook(server, "widgets.ipynb")

    async def scenario() -> None:
        a = await NotebookClient.connect(server, path)
        snapshot = await a.expect("snapshot")
        assert snapshot["widgets"] == {}
        cell_id = snapshot["notebook"]["cells"][0]["id"]
        await a.expect_kernel("idle")
        b = await NotebookClient.connect(server, path)
        await b.expect("snapshot")

        outputs = await run_cell(a, cell_id, "import ipywidgets as w\ns = w.IntSlider(value=3)\ns")
        view = outputs[0]["data"]["application/vnd.jupyter.widget-view+json"]  # type: ignore[index]
        slider = view["model_id"]
        for tab in (a, b):
            opened = await seen_or_expect(tab, "comm_open", slider)
            assert opened["target_name"] == "jupyter.widget" and opened["data"]["state"]["value"] == 3

        update: dict[str, Any] = {"method": "update", "state": {"value": 8}, "buffer_paths": []}
        await a.send({"type": "comm_msg", "msg_id": "a-update-1", "comm_id": slider, "data": update})
        echo = await b.expect("comm_msg", comm_id=slider, parent_msg_id="a-update-1")
        assert echo["data"] == {"method": "echo_update", "state": {"value": 8}, "buffer_paths": []}
        await a.expect("comm_done", msg_id="a-update-1")
        await a.send({"type": "insert_cell", "index": 1, "cell_id": "second"})
        assert (await run_cell(a, "second", "s.value"))[0]["data"] == {"text/plain": "8"}  # type: ignore[index]

        await a.send({"type": "comm_info_request", "ref": "info", "target_name": "jupyter.widget"})
        info = await a.expect("comm_info_reply", ref="info")
        assert slider in info["comms"]
        await a.send({"type": "comm_msg", "ref": "bad", "msg_id": "x y", "comm_id": slider, "data": {}})
        assert "msg_id" in (await a.expect("error", ref="bad"))["message"]

        c = await NotebookClient.connect(server, path)  # a late tab: the widgets come in its snapshot
        late = await c.expect("snapshot")
        assert late["widgets"][slider]["live"] is True and late["widgets"][slider]["state"]["value"] == 8

        await a.send({"type": "save", "ref": "s"})
        await a.expect("save_status", where=lambda m: m["save"]["status"] == "saved")
        saved = json.loads((server.root / path).read_text())
        state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
        assert state[slider]["state"]["value"] == 8 and state[slider]["model_name"] == "IntSliderModel"

        await a.send({"type": "restart_kernel"})
        await a.expect_kernel("idle")
        d = await NotebookClient.connect(server, path)
        assert (await d.expect("snapshot"))["widgets"][slider]["live"] is False
        for tab in (a, b, c, d):
            await tab.close()

    asyncio.run(scenario())
