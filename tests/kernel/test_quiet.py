"""A quiet kernel (benchmarks run hundreds): its process's own stdout and stderr do not reach ours."""

from __future__ import annotations

import pytest
from ghostbook.kernel.adapter import KernelAdapter


async def test_a_quiet_kernel_prints_nothing_to_our_terminal(capfd: pytest.CaptureFixture[str]) -> None:
    said: dict[bool, str] = {}
    for quiet in (False, True):
        adapter = KernelAdapter(lambda event: None, quiet=quiet)
        await adapter.start()
        await adapter.restart()  # a restart keeps it quiet
        await adapter.shutdown()
        said[quiet] = capfd.readouterr().err
    assert "IPKernelApp" in said[False]  # ipykernel's start-up warning (TCP without encryption), here
    assert "IPKernelApp" not in said[True]
