"""The reducer's kernel rules of issue 14: interrupt only a ready kernel (14.4, 14.12), say why a run
died (14.5), never leave a cell running for a kernel that is gone (14.1)."""

from __future__ import annotations

import pytest
from ghostbook.kernel import events as k
from ghostbook.session import actions as a
from ghostbook.session.reducer import OperationError

from .test_reducer import broadcasts, client, executes, kernel, notebook, run


def test_interrupt_reaches_only_a_ready_kernel() -> None:
    data = notebook("1")
    for status in ("idle", "busy"):
        data.kernel.status = status
        assert client(data, {"type": "interrupt_kernel"}) == [a.InterruptKernel()]
    for status in ("starting", "restarting"):
        data.kernel.status = status
        with pytest.raises(OperationError, match=f"the kernel is {status}"):
            client(data, {"type": "interrupt_kernel"})
    data.kernel.status = "dead"
    with pytest.raises(OperationError, match="the kernel is dead: restart it"):
        client(data, {"type": "interrupt_kernel"})


def test_interrupt_while_starting_unqueues_the_cells_waiting_for_the_kernel() -> None:
    data = notebook("1", "2")
    data.kernel.status = "starting"
    client(data, {"type": "execute_cells", "cell_ids": ["c0", "c1"]})
    assert data.queue == ["c0", "c1"]
    actions = client(data, {"type": "interrupt_kernel"})
    assert not [x for x in actions if isinstance(x, a.InterruptKernel)]  # no SIGINT for a starting kernel
    assert data.queue == [] and [c.state for c in data.cells] == ["idle", "idle"]
    assert [m["state"] for m in broadcasts(actions, "cell_state")] == ["idle", "idle"]
    assert not executes(kernel(data, k.StatusChanged("idle")))


def test_a_run_killed_with_its_kernel_says_what_happened() -> None:
    data = notebook("import time; time.sleep(60)", "print('next')")
    client(data, {"type": "execute_cells", "cell_ids": ["c0", "c1"]})
    run(data, "c0", "m0")
    # the adapter reports the run first, while the kernel still looks busy, then the death
    reason = "The kernel died: killed by signal 9 (SIGKILL); the system may have run out of memory"
    kernel(data, k.ExecutionFinished("m0", "dead", reason=reason))
    kernel(data, k.StatusChanged("dead", "killed by signal 9 (SIGKILL); the system may have run out of memory"))
    error = data.cells[0].outputs.to_json()[-1]
    assert error["ename"] == "KernelStopped" and error["evalue"] == reason and error["traceback"] == [reason]
    assert [c.state for c in data.cells] == ["idle", "idle"] and data.running is None and data.queue == []


def test_a_run_stopped_by_a_restart_says_so() -> None:
    data = notebook("x")
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    run(data, "c0", "m0")
    kernel(data, k.StatusChanged("restarting"))
    kernel(data, k.ExecutionFinished("m0", "dead", reason="The kernel was restarted"))
    assert data.cells[0].outputs.to_json()[-1]["evalue"] == "The kernel was restarted"


def test_changing_kernel_ends_the_running_cell_and_the_queue_moves_on() -> None:
    data = notebook("import time; time.sleep(60)", "1+1")
    client(data, {"type": "execute_cells", "cell_ids": ["c0"]})
    run(data, "c0", "m0")
    actions = client(data, {"type": "change_kernel", "name": "python3"})
    assert data.running is None and data.cells[0].state == "idle"
    assert data.cells[0].outputs.to_json()[-1]["evalue"] == "The kernel was replaced by 'python3'"
    assert any(isinstance(x, a.StartKernel) for x in actions)
    # the old kernel's events no longer arrive; the new kernel takes the next run
    client(data, {"type": "execute_cells", "cell_ids": ["c1"]})
    assert [x.cell_id for x in executes(kernel(data, k.StatusChanged("idle")))] == ["c1"]
