"""A real ipykernel for the editing tests: the errors (tracebacks as IPython colours them) and the namespace
summary lines (`kernels/ghostbook_kernel`, as the completion gathers them) that the fixes and prompts read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ghostbook.completion.namespace_provider import EXPRESSION, install_code, kernel_source_path, parse_reply
from ghostbook.editing.errors_text import ErrorInfo
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager


class RealKernel:
    """Runs cells in one ipykernel, as the notebook does, and reads back errors and the namespace."""

    def __init__(self, km: KernelManager, client: BlockingKernelClient) -> None:
        self.km, self.client = km, client
        self._summary = install_code(kernel_source_path().read_text())

    def reset(self) -> None:
        self.run("%reset -f")

    def run(self, code: str) -> ErrorInfo | None:
        """Run `code` as a cell; its error output, if it raised."""
        error: ErrorInfo | None = None

        def output(msg: dict[str, Any]) -> None:
            nonlocal error
            if msg["header"]["msg_type"] == "error":
                error = ErrorInfo.from_output(msg["content"])

        self.client.execute_interactive(code, timeout=60, output_hook=output)
        return error

    def namespace(self) -> list[str]:
        """The kernel's namespace summary lines (`completion.namespace_provider`)."""
        reply = self.client.execute_interactive(self._summary, silent=True, timeout=60,
                                                user_expressions={"ns": EXPRESSION})
        return parse_reply(reply["content"])


@pytest.fixture(scope="session")
def kernel() -> Iterator[RealKernel]:
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    client = km.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        yield RealKernel(km, client)
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
