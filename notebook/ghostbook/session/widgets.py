"""ipywidgets in a session: the comm relay between the kernel and every tab, the widget state it keeps,
and the Output widget's capture. Pure functions over `WidgetStore`, called by the reducer; they return
actions like the reducer does.

The session relays every comm message (any target) from the kernel to all tabs, and a tab's to the
kernel. For widget models (target `jupyter.widget`) it also keeps the state, so that a tab opened later
gets it in its snapshot, and so the notebook saves it in `metadata.widgets` as Jupyter does: a
reopened notebook shows its widgets as they were, without a kernel. A tab's update reaches the other
tabs through the kernel's `echo_update` (ipywidgets 8); a kernel that does not echo (protocol < 2.1)
gets its tabs' updates relayed here instead.

Output widgets: while one's `msg_id` names a request (`with out:`, or interact's callback), the kernel's
output for that request goes into the widget rather than into a cell, as JupyterLab's widget manager
does on its page. Doing it here does it once for all tabs: they get the widget's `outputs` in updates
(throttled as cells' outputs are), and the kernel gets them once the capture ends (so `out.outputs` is
right in Python); the kernel's echo of that update is dropped, since the tabs have it already.
"""

from __future__ import annotations

import base64
import binascii
import copy
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ghostbook import protocol as p
from ghostbook.kernel.events import CommDone, CommMessage, Output
from ghostbook.session import actions as a
from ghostbook.session.outputs import CellOutputs

WIDGET_TARGET = "jupyter.widget"
STATE_MIME = "application/vnd.jupyter.widget-state+json"
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
MODEL_REF = "IPY_MODEL_"
ECHO_PROTOCOL = (2, 1)  # ipywidgets 8's kernels echo a frontend's update to every frontend

Path = list[str | int]


@dataclass
class WidgetModel:
    """One widget model: its state (binary buffers kept apart, at their paths in the state), whether
    the kernel still has it (`live`), and for an Output widget what it captured."""

    model_name: str
    model_module: str
    model_module_version: str
    state: dict[str, Any]
    buffers: list[tuple[Path, bytes]] = field(default_factory=list)
    live: bool = False
    echoes: bool = True  # the kernel echoes tabs' updates (else the session relays them)
    captured: CellOutputs | None = None  # an Output widget's outputs, as cells keep theirs
    capture_synced: bool = True  # the kernel has the captured outputs

    @property
    def is_output(self) -> bool:
        return self.model_name == "OutputModel" and self.model_module == "@jupyter-widgets/output"

    def update(self, state: dict[str, Any], buffer_paths: list[Any], buffers: Iterable[bytes]) -> None:
        """Apply an update (whole values per key; the buffers go to `buffer_paths` within them)."""
        self.buffers = [(path, data) for path, data in self.buffers if not path or path[0] not in state]
        self.state.update(state)
        for path, data in zip(buffer_paths, buffers, strict=False):
            if isinstance(path, list) and path and path[0] in state:
                self.buffers.append((path, data))
        if self.is_output and "outputs" in state:
            outputs = state["outputs"]
            self.captured = CellOutputs.from_json([o for o in outputs if isinstance(o, dict)]
                                                  if isinstance(outputs, list) else [])

    def full_state(self) -> dict[str, Any]:
        if self.captured is None:
            return self.state
        return {**self.state, "outputs": self.captured.to_json()}

    def to_wire(self) -> p.WidgetModelState:
        buffers = [p.WidgetBuffer.model_construct(encoding="base64", path=path, data=_b64(data))
                   for path, data in self.buffers] if self.buffers else None
        return p.WidgetModelState.model_construct(
            model_name=self.model_name, model_module=self.model_module, model_module_version=self.model_module_version,
            state=self.full_state(), buffers=buffers, live=self.live)

    def to_json(self) -> dict[str, Any]:
        """The model as Jupyter's widget-state format writes it."""
        model: dict[str, Any] = {"model_name": self.model_name, "model_module": self.model_module,
                                 "model_module_version": self.model_module_version, "state": self.full_state()}
        if self.buffers:
            model["buffers"] = [{"encoding": "base64", "path": path, "data": _b64(data)}
                                for path, data in self.buffers]
        return model


@dataclass
class WidgetStore:
    models: dict[str, WidgetModel] = field(default_factory=dict)
    comms: dict[str, str] = field(default_factory=dict)  # the kernel's open comms: comm_id -> target name
    capturing: dict[str, list[str]] = field(default_factory=dict)  # request msg_id -> Output widgets (last wins)
    own_updates: set[str] = field(default_factory=set)  # msg_ids of updates the session sent the kernel
    saved: dict[str, Any] | None = None  # metadata.widgets as read: written back as is until a change
    changed: bool = False

    @classmethod
    def from_metadata(cls, saved: Any) -> WidgetStore:
        """The widgets a notebook saved (`metadata.widgets`), none live; malformed entries are skipped."""
        store = cls(saved=saved if isinstance(saved, dict) else None)
        entries = ((saved or {}).get(STATE_MIME) or {}).get("state") if isinstance(saved, dict) else None
        for model_id, entry in (entries.items() if isinstance(entries, dict) else []):
            model = _model_from_json(entry)
            if model is not None and isinstance(model_id, str):
                store.models[model_id] = model
        return store

    def to_metadata(self, cells_outputs: Iterable[list[dict[str, Any]]]) -> dict[str, Any] | None:
        """`metadata.widgets` for saving: the models the outputs show, and those they refer to."""
        if not self.changed:
            return self.saved
        keep = self.reachable(cells_outputs)
        if not keep:
            return None
        return {STATE_MIME: {"version_major": 2, "version_minor": 0,
                             "state": {mid: self.models[mid].to_json() for mid in sorted(keep)}}}

    def to_wire(self) -> dict[str, p.WidgetModelState]:
        """Every model with its liveness, for a tab's snapshot."""
        return {mid: model.to_wire() for mid, model in self.models.items()}

    def reachable(self, cells_outputs: Iterable[list[dict[str, Any]]]) -> set[str]:
        """Ids of the models shown in `cells_outputs`, and of those their states name (children, layouts,
        widgets shown inside Output widgets)."""
        todo = [mid for outputs in cells_outputs for mid in _refs(outputs)]
        seen: set[str] = set()
        while todo:
            mid = todo.pop()
            if mid in seen or mid not in self.models:
                continue
            seen.add(mid)
            todo.extend(_refs(self.models[mid].full_state()))
        return seen


# ---- from the kernel ------------------------------------------------------------------------------


def kernel_comm(store: WidgetStore, event: CommMessage) -> list[a.Action]:
    """A comm message from the kernel: kept (widgets) and relayed to every tab."""
    content = event.content
    comm_id = str(content["comm_id"])
    data = content.get("data") if isinstance(content.get("data"), dict) else {}
    assert isinstance(data, dict)
    target = str(content.get("target_name") or "") if event.msg_type == "comm_open" else None
    wire = p.CommEvent.model_construct(type=event.msg_type, comm_id=comm_id, target_name=target, data=data,
                                       metadata=event.metadata, buffers=[_b64(b) for b in event.buffers],
                                       parent_msg_id=event.msg_id)
    actions: list[a.Action] = []
    if target is not None:
        store.comms[comm_id] = target
        if target == WIDGET_TARGET and isinstance(data.get("state"), dict):
            actions += _opened(store, comm_id, data, event.metadata, event.buffers)
    elif event.msg_type == "comm_msg":
        model = store.models.get(comm_id)
        method = data.get("method")
        if model is not None and method in ("update", "echo_update") and isinstance(data.get("state"), dict):
            if method == "echo_update" and event.msg_id in store.own_updates:
                return []  # the echo of captured outputs the tabs have had all along
            actions += _update(store, comm_id, model, data, event.buffers)
    else:
        store.comms.pop(comm_id, None)
        if store.models.pop(comm_id, None) is not None:
            _stop_capture(store, comm_id)
            store.changed = True
            actions.append(a.DocumentChanged(minor=True))
    return [a.Broadcast(wire), *actions]


def comm_done(store: WidgetStore, event: CommDone) -> list[a.Action]:
    """The kernel handled a tab's comm message: the tabs may send their next update."""
    if event.msg_id in store.own_updates:
        store.own_updates.discard(event.msg_id)
        return []
    return [a.Broadcast(p.CommDone.model_construct(msg_id=event.msg_id))]


def disconnect(store: WidgetStore, cells_outputs: Iterable[list[dict[str, Any]]]) -> None:
    """The kernel is gone (died, restarting, replaced): its widgets stay as they were, not live; those no
    output shows any more are dropped."""
    keep = store.reachable(cells_outputs)
    for mid in [mid for mid in store.models if mid not in keep]:
        del store.models[mid]
    for model in store.models.values():
        model.live = False
    store.comms.clear()
    store.capturing.clear()
    store.own_updates.clear()


def capture(store: WidgetStore, event: Output) -> list[a.Action] | None:
    """Output of request `event.msg_id` goes to the Output widget capturing it, if any (else None)."""
    ids = store.capturing.get(event.msg_id) if event.msg_id else None
    model = store.models.get(ids[-1]) if ids else None
    if model is None or event.msg_type == "update_display_data":
        return None
    if model.captured is None:
        model.captured = CellOutputs()
    if event.msg_type == "clear_output":
        model.captured.clear(wait=bool(event.content.get("wait")))
    else:
        model.captured.add(event.msg_type, event.content)
    model.capture_synced = False
    store.changed = True
    assert ids is not None
    return [a.WidgetOutputsChanged(ids[-1], urgent=event.msg_type != "stream"), a.DocumentChanged(minor=True)]


def outputs_update(model_id: str, model: WidgetModel) -> p.CommEvent:
    """The message that gives the tabs an Output widget's captured outputs."""
    data = {"method": "update", "state": {"outputs": model.full_state().get("outputs", [])}, "buffer_paths": []}
    return p.CommEvent.model_construct(type="comm_msg", comm_id=model_id, data=data, metadata={}, buffers=[],
                                       parent_msg_id="")


# ---- from a tab -----------------------------------------------------------------------------------


def client_comm(store: WidgetStore, origin: str, msg: p.CommOpen | p.CommMsg | p.CommClose) -> list[a.Action]:
    """A tab's comm message: to the kernel; a widget update is kept, and relayed to the other tabs when
    the kernel will not echo it."""
    try:
        buffers = [base64.b64decode(b, validate=True) for b in msg.buffers]
    except binascii.Error as exc:
        raise ValueError(f"a buffer is not base64: {exc}") from None
    content: dict[str, Any] = {"comm_id": msg.comm_id, "data": dict(msg.data)}
    if isinstance(msg, p.CommOpen):
        content["target_name"] = msg.target_name
    actions: list[a.Action] = [a.SendComm(msg.type, content, msg.msg_id, dict(msg.metadata), tuple(buffers))]
    model = store.models.get(msg.comm_id)
    if isinstance(msg, p.CommOpen):
        store.comms[msg.comm_id] = msg.target_name
    elif isinstance(msg, p.CommClose):
        store.comms.pop(msg.comm_id, None)
        if store.models.pop(msg.comm_id, None) is not None:
            _stop_capture(store, msg.comm_id)
            store.changed = True
            closed = p.CommEvent.model_construct(type="comm_close", comm_id=msg.comm_id, data={}, metadata={},
                                                 buffers=[], parent_msg_id=msg.msg_id)
            actions += [a.Broadcast(closed, skip=origin), a.DocumentChanged(minor=True)]
    elif model is not None and msg.data.get("method") == "update" and isinstance(msg.data.get("state"), dict):
        actions += _update(store, msg.comm_id, model, dict(msg.data), buffers)
        if not model.echoes:
            relayed = p.CommEvent.model_construct(type="comm_msg", comm_id=msg.comm_id, data=dict(msg.data),
                                                  metadata=dict(msg.metadata), buffers=list(msg.buffers),
                                                  parent_msg_id=msg.msg_id)
            actions.append(a.Broadcast(relayed, skip=origin))
    return actions


# ---- internals ------------------------------------------------------------------------------------


def _opened(store: WidgetStore, comm_id: str, data: dict[str, Any], metadata: dict[str, Any],
            buffers: tuple[bytes, ...]) -> list[a.Action]:
    state = data["state"]
    model = WidgetModel(str(state.get("_model_name", "")), str(state.get("_model_module", "")),
                        str(state.get("_model_module_version", "")), {}, live=True,
                        echoes=_version(metadata.get("version")) >= ECHO_PROTOCOL)
    store.models[comm_id] = model
    actions = _update(store, comm_id, model, data, buffers)
    return actions or [a.DocumentChanged(minor=True)]


def _update(store: WidgetStore, comm_id: str, model: WidgetModel, data: dict[str, Any],
            buffers: Iterable[bytes]) -> list[a.Action]:
    state = data["state"]
    paths = data.get("buffer_paths")
    before = model.state.get("msg_id")
    model.update(state, paths if isinstance(paths, list) else [], buffers)
    store.changed = True
    actions: list[a.Action] = [a.DocumentChanged(minor=True)]
    if model.is_output and "msg_id" in state and state["msg_id"] != before:
        actions += _stop_capture(store, comm_id, str(before or ""))
        if isinstance(state["msg_id"], str) and state["msg_id"]:
            store.capturing.setdefault(state["msg_id"], []).append(comm_id)
    return actions


def _stop_capture(store: WidgetStore, comm_id: str, msg_id: str | None = None) -> list[a.Action]:
    """Output widget `comm_id` stops capturing (request `msg_id`, or any); once a capture ends, the
    kernel gets what was captured."""
    for key in [msg_id] if msg_id else list(store.capturing):
        ids = store.capturing.get(key or "")
        if ids and comm_id in ids:
            ids.remove(comm_id)
            if not ids:
                del store.capturing[key or ""]
    model = store.models.get(comm_id)
    if model is None or model.capture_synced or not model.live:
        return []
    model.capture_synced = True
    msg_id = uuid.uuid4().hex
    store.own_updates.add(msg_id)
    data = {"method": "update", "state": {"outputs": model.full_state().get("outputs", [])}, "buffer_paths": []}
    return [a.SendComm("comm_msg", {"comm_id": comm_id, "data": data}, msg_id, {}, ())]


def _model_from_json(entry: Any) -> WidgetModel | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("state"), dict):
        return None
    name, module, version = (entry.get(k) for k in ("model_name", "model_module", "model_module_version"))
    if not (isinstance(name, str) and isinstance(module, str) and isinstance(version, str)):
        return None
    model = WidgetModel(name, module, version, copy.deepcopy(entry["state"]))
    for buf in entry.get("buffers") or []:
        if not isinstance(buf, dict) or not isinstance(buf.get("path"), list) or not isinstance(buf.get("data"), str):
            continue
        try:
            hex_ = buf.get("encoding") == "hex"
            data = bytes.fromhex(buf["data"]) if hex_ else base64.b64decode(buf["data"], validate=True)
        except (ValueError, binascii.Error):
            continue
        model.buffers.append((buf["path"], data))
    if model.is_output and isinstance(model.state.get("outputs"), list):
        model.captured = CellOutputs.from_json([o for o in model.state["outputs"] if isinstance(o, dict)])
    return model


def _refs(value: Any) -> Iterator[str]:
    """Model ids named in `value`: "IPY_MODEL_<id>" strings and widget-view bundles, at any depth."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if item.startswith(MODEL_REF):
                yield item[len(MODEL_REF):]
        elif isinstance(item, dict):
            view = item.get(VIEW_MIME)
            if isinstance(view, dict) and isinstance(view.get("model_id"), str):
                yield view["model_id"]
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def _version(value: Any) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in str(value).split(".")[:2])
    except ValueError:
        return (0,)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
