"""ipywidgets in the session (issue 29.3), without a kernel or a browser: the comm relay, the widget state
kept for snapshots and saving, an Output widget's capture, and disconnection."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from ghostbook import protocol as p
from ghostbook.kernel import events as k
from ghostbook.session import actions as a
from ghostbook.session import widgets as w
from ghostbook.session.ops import ExecutionSent
from ghostbook.session.reducer import OperationError, apply
from ghostbook.session.state import NotebookData

from .test_reducer import broadcasts, client, kernel, notebook

CONTROLS = {"_model_module": "@jupyter-widgets/controls", "_model_module_version": "2.0.0",
            "_view_module": "@jupyter-widgets/controls", "_view_module_version": "2.0.0"}


def slider_open(comm_id: str = "s1", value: int = 3, version: str = "2.1.0", parent: str = "run1") -> k.CommMessage:
    state = {**CONTROLS, "_model_name": "IntSliderModel", "_view_name": "IntSliderView", "value": value,
             "layout": "IPY_MODEL_l1"}
    return k.CommMessage(parent, "comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget",
                                               "data": {"state": state, "buffer_paths": []}},
                         {"version": version})


def layout_open() -> k.CommMessage:
    state = {"_model_name": "LayoutModel", "_model_module": "@jupyter-widgets/base", "_model_module_version": "2.0.0",
             "width": None}
    return k.CommMessage("run1", "comm_open", {"comm_id": "l1", "target_name": "jupyter.widget",
                                               "data": {"state": state}}, {"version": "2.1.0"})


def output_open(comm_id: str = "o1") -> k.CommMessage:
    state = {"_model_name": "OutputModel", "_model_module": "@jupyter-widgets/output", "_model_module_version": "1.0.0",
             "msg_id": "", "outputs": []}
    return k.CommMessage("run1", "comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget",
                                               "data": {"state": state}}, {"version": "2.1.0"})


def kernel_update(comm_id: str, state: dict[str, Any], parent: str = "", method: str = "update",
                  buffers: tuple[bytes, ...] = (), paths: list[Any] | None = None) -> k.CommMessage:
    data = {"method": method, "state": state, "buffer_paths": paths or []}
    return k.CommMessage(parent, "comm_msg", {"comm_id": comm_id, "data": data}, {"version": "2.1.0"}, buffers)


def view_output(model_id: str) -> dict[str, Any]:
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": "IntSlider(value=3)", w.VIEW_MIME: {"version_major": 2, "version_minor": 0,
                                                                        "model_id": model_id}}}


def shown(data: NotebookData, model_id: str, cell: int = 0) -> None:
    """Cell `cell` shows the widget (as a display_data output)."""
    data.cells[cell].outputs.add("display_data", {"data": view_output(model_id)["data"], "metadata": {}})


def sends(actions: list[a.Action]) -> list[a.SendComm]:
    return [x for x in actions if isinstance(x, a.SendComm)]


def test_kernel_comms_go_to_every_tab_and_widgets_are_kept() -> None:
    data = notebook("")
    actions = kernel(data, slider_open())
    (opened,) = broadcasts(actions, "comm_open")
    assert opened["comm_id"] == "s1" and opened["target_name"] == "jupyter.widget"
    assert opened["metadata"] == {"version": "2.1.0"} and opened["parent_msg_id"] == "run1"
    assert all(x.skip is None for x in actions if isinstance(x, a.Broadcast))
    kernel(data, kernel_update("s1", {"value": 9}))
    wire = data.snapshot()["widgets"]["s1"]
    assert wire.live is True and wire.state["value"] == 9 and wire.model_name == "IntSliderModel"
    # another target's comm is relayed, not kept
    other = k.CommMessage("", "comm_open", {"comm_id": "x1", "target_name": "my.target", "data": {}})
    assert broadcasts(kernel(data, other), "comm_open")[0]["target_name"] == "my.target"
    assert "x1" not in data.widgets.models
    closed = kernel(data, k.CommMessage("", "comm_close", {"comm_id": "s1", "data": {}}))
    assert broadcasts(closed, "comm_close") and "s1" not in data.widgets.models


def test_a_tabs_update_goes_to_the_kernel_under_its_msg_id_and_the_echo_to_all() -> None:
    data = notebook("")
    kernel(data, slider_open())
    buffer = base64.b64encode(b"\x00\x01").decode()
    actions = client(data, {"type": "comm_msg", "msg_id": "tab-msg-1", "comm_id": "s1",
                            "data": {"method": "update", "state": {"value": 5, "blob": None},
                                     "buffer_paths": [["blob"]]}, "buffers": [buffer]})
    (send,) = sends(actions)
    assert send.msg_type == "comm_msg" and send.msg_id == "tab-msg-1" and send.buffers == (b"\x00\x01",)
    assert send.content == {"comm_id": "s1", "data": {"method": "update", "state": {"value": 5, "blob": None},
                                                      "buffer_paths": [["blob"]]}}
    assert not broadcasts(actions, "comm_msg")  # ipywidgets 8 echoes it: the kernel's echo reaches the tabs
    model = data.widgets.models["s1"]
    assert model.state["value"] == 5 and model.buffers == [(["blob"], b"\x00\x01")]
    echo = kernel(data, kernel_update("s1", {"value": 5}, parent="tab-msg-1", method="echo_update"))
    assert broadcasts(echo, "comm_msg")[0]["parent_msg_id"] == "tab-msg-1"
    # the kernel handled it: the tabs may send their next update
    done = broadcasts(kernel(data, k.CommDone("tab-msg-1")), "comm_done")
    assert done == [{"type": "comm_done", "msg_id": "tab-msg-1"}]


def test_a_kernel_that_does_not_echo_gets_its_tabs_updates_relayed() -> None:
    data = notebook("")
    kernel(data, slider_open(version="2.0.0"))  # ipywidgets 7's protocol: no echo_update
    actions = client(data, {"type": "comm_msg", "msg_id": "m1", "comm_id": "s1",
                            "data": {"method": "update", "state": {"value": 4}, "buffer_paths": []}}, origin="tabA")
    (relay,) = [x for x in actions if isinstance(x, a.Broadcast)]
    assert relay.skip == "tabA" and relay.message.data["state"] == {"value": 4}


def test_comm_messages_are_validated() -> None:
    data = notebook("")
    for bad in ({"type": "comm_msg", "msg_id": "m 1", "comm_id": "s1", "data": {}},  # msg_id pattern
                {"type": "comm_msg", "msg_id": "m1", "comm_id": "s1", "data": []},  # data must be an object
                {"type": "comm_msg", "msg_id": "m1", "comm_id": "s1", "buffers": ["not base64!"]},
                {"type": "comm_open", "msg_id": "m1", "comm_id": "s1", "data": {}},  # no target_name
                {"type": "comm_msg", "msg_id": "m1", "comm_id": "s1", "data": {}, "extra": 1}):
        with pytest.raises(p.ProtocolError):
            p.parse_client_message(json.dumps(bad))
    with pytest.raises(OperationError, match="base64"):  # right alphabet, wrong length
        client(data, {"type": "comm_msg", "msg_id": "m1", "comm_id": "s1", "data": {}, "buffers": ["abc"]})


def test_an_output_widget_captures_its_requests_output_not_the_cell() -> None:
    data = notebook("with out: print('hi')")
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    apply(data, ExecutionSent("c0", "run1"))
    kernel(data, output_open())
    kernel(data, kernel_update("o1", {"msg_id": "run1"}, parent="run1"))  # `with out:` starts
    captured = kernel(data, k.Output("run1", "stream", {"name": "stdout", "text": "hi\n"}))
    assert a.WidgetOutputsChanged("o1", urgent=False) in captured
    kernel(data, k.Output("run1", "stream", {"name": "stdout", "text": "there\n"}))
    assert data.cells[0].outputs.to_json() == []
    update = w.outputs_update("o1", data.widgets.models["o1"])
    assert update.data["state"]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "hi\nthere\n"}]
    # the capture ends: the kernel gets the outputs once (out.outputs), and its echo is not relayed again
    ended = kernel(data, kernel_update("o1", {"msg_id": ""}, parent="run1"))
    (send,) = sends(ended)
    assert send.content["data"]["state"]["outputs"][0]["text"] == "hi\nthere\n"
    assert kernel(data, kernel_update("o1", {"outputs": []}, parent=send.msg_id, method="echo_update")) == []
    assert kernel(data, k.CommDone(send.msg_id)) == []
    kernel(data, k.Output("run1", "stream", {"name": "stdout", "text": "after\n"}))  # no capture now: the cell's
    assert data.cells[0].outputs.to_json()[0]["text"] == "after\n"


def test_interacts_callback_output_goes_to_its_widget() -> None:
    """A widget's callback runs for a comm message (the tab's update): no cell owns its output."""
    data = notebook("")
    kernel(data, output_open())
    kernel(data, kernel_update("o1", {"msg_id": "tab-update-7"}, parent="tab-update-7"))
    kernel(data, k.Output("tab-update-7", "clear_output", {"wait": True}))
    kernel(data, k.Output("tab-update-7", "stream", {"name": "stdout", "text": "x squared is 36\n"}))
    kernel(data, k.Output("tab-update-7", "display_data", {"data": {"text/plain": "36"}, "metadata": {}}))
    outputs = data.widgets.models["o1"].full_state()["outputs"]
    assert [o["output_type"] for o in outputs] == ["stream", "display_data"]
    # nested captures: the innermost wins until it ends
    kernel(data, output_open("o2"))
    kernel(data, kernel_update("o2", {"msg_id": "tab-update-7"}))
    kernel(data, k.Output("tab-update-7", "stream", {"name": "stdout", "text": "inner\n"}))
    kernel(data, kernel_update("o2", {"msg_id": ""}))
    kernel(data, k.Output("tab-update-7", "stream", {"name": "stdout", "text": "outer\n"}))
    assert data.widgets.models["o2"].full_state()["outputs"][0]["text"] == "inner\n"
    assert data.widgets.models["o1"].full_state()["outputs"][-1]["text"] == "outer\n"


def test_restart_leaves_shown_widgets_disconnected_and_drops_the_rest() -> None:
    data = notebook("")
    kernel(data, slider_open())
    kernel(data, layout_open())
    kernel(data, slider_open("s2"))  # never shown
    shown(data, "s1")
    kernel(data, k.StatusChanged("restarting"))
    assert set(data.widgets.models) == {"s1", "l1"}  # s1 is shown, and its layout is named in its state
    assert not any(m.live for m in data.widgets.models.values())
    assert not data.widgets.comms and all(not x.live for x in data.snapshot()["widgets"].values())


def test_widget_state_is_saved_as_jupyter_saves_it_and_read_back() -> None:
    data = notebook("")
    kernel(data, slider_open())
    kernel(data, layout_open())
    kernel(data, slider_open("s2"))  # not shown: not saved
    kernel(data, kernel_update("s1", {"blob": None}, buffers=(b"\xff\x00",), paths=[["blob"]]))
    shown(data, "s1")
    saved = data.to_nbformat()["metadata"]["widgets"][w.STATE_MIME]
    assert saved["version_major"] == 2 and saved["version_minor"] == 0
    assert set(saved["state"]) == {"s1", "l1"}
    s1 = saved["state"]["s1"]
    assert s1["model_module"] == "@jupyter-widgets/controls" and s1["state"]["value"] == 3
    assert s1["buffers"] == [{"encoding": "base64", "path": ["blob"], "data": base64.b64encode(b"\xff\x00").decode()}]

    reopened = NotebookData.from_nbformat("t.ipynb", json.loads(json.dumps(data.to_nbformat())))
    assert "widgets" not in reopened.metadata  # kept apart, not sent as notebook metadata
    wire = reopened.snapshot()["widgets"]
    assert set(wire) == {"s1", "l1"} and wire["s1"].live is False and wire["s1"].state["value"] == 3
    # untouched, the saved widget state is written back as it was read
    assert reopened.to_nbformat()["metadata"]["widgets"] == data.to_nbformat()["metadata"]["widgets"]


def test_saved_state_from_a_file_is_read_defensively() -> None:
    notebook_json = {"cells": [], "metadata": {"widgets": {w.STATE_MIME: {"state": {
        "ok": {"model_name": "LabelModel", "model_module": "@jupyter-widgets/controls",
               "model_module_version": "2.0.0", "state": {"value": "hi"},
               "buffers": [{"path": ["x"], "data": "%%%", "encoding": "base64"}, {"path": ["y"], "data": "00ff",
                                                                                  "encoding": "hex"}]},
        "no_state": {"model_name": "X", "model_module": "m", "model_module_version": "1"},
        "bad_name": {"model_name": 3, "model_module": "m", "model_module_version": "1", "state": {}},
        "not_a_dict": [1, 2]}}}}, "nbformat": 4, "nbformat_minor": 5}
    data = NotebookData.from_nbformat("t.ipynb", notebook_json)
    assert set(data.widgets.models) == {"ok"}
    assert data.widgets.models["ok"].buffers == [(["y"], b"\x00\xff")]
    assert NotebookData.from_nbformat("t.ipynb", {"cells": [], "metadata": {"widgets": "junk"}}).widgets.models == {}


def test_a_tabs_comm_close_reaches_the_kernel_and_the_other_tabs() -> None:
    data = notebook("")
    kernel(data, slider_open())
    actions = client(data, {"type": "comm_close", "msg_id": "m9", "comm_id": "s1", "data": {}}, origin="tabA")
    assert sends(actions)[0].msg_type == "comm_close"
    (relay,) = [x for x in actions if isinstance(x, a.Broadcast)]
    assert relay.skip == "tabA" and relay.message.type == "comm_close"
    assert "s1" not in data.widgets.models
    opened = client(data, {"type": "comm_open", "msg_id": "m10", "comm_id": "c9",
                           "target_name": "jupyter.widget.control", "data": {}})
    assert sends(opened)[0].content == {"comm_id": "c9", "data": {}, "target_name": "jupyter.widget.control"}
