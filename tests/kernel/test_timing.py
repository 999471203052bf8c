"""A real ipykernel's run carries JupyterLab's `execution` timestamps up to the session."""

from __future__ import annotations

from datetime import datetime

import pytest
from ghostbook.kernel.adapter import KernelAdapter

from .conftest import Recorder

KEYS = ["iopub.status.busy", "iopub.execute_input", "shell.execute_reply.started", "shell.execute_reply",
        "iopub.status.idle"]


def when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@pytest.mark.asyncio
async def test_a_run_reports_jupyterlabs_timestamps_in_order() -> None:
    rec = Recorder()
    adapter = KernelAdapter(rec)
    await adapter.start()
    try:
        msg_id = adapter.execute("import time; time.sleep(0.3)")
        done = await rec.finished(msg_id)
        failed = adapter.execute("1/0")
        error = await rec.finished(failed)
    finally:
        await adapter.shutdown()
    assert done.status == "ok"
    assert sorted(done.timing) == sorted(KEYS)
    busy, started_input, started, reply, idle = (when(done.timing[key]) for key in KEYS)
    assert busy.tzinfo is not None
    assert busy <= min(started_input, started) and max(started_input, started) <= reply <= idle
    assert done.timing["shell.execute_reply"].endswith("Z")  # ISO, UTC as JupyterLab stores it
    assert 0.25 < (reply - started).total_seconds() < 5
    assert error.status == "error" and sorted(error.timing) == sorted(KEYS)
