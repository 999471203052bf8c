"""What completion asks of a kernel: code run silently, with user expressions (`KernelAdapter.run_silent`)."""

from __future__ import annotations

from typing import Any, Protocol


class SilentRunner(Protocol):
    async def run_silent(self, code: str, timeout: float = 5.0,
                         user_expressions: dict[str, str] | None = None) -> dict[str, Any]: ...
