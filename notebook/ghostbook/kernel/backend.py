"""Where kernels run: on this machine (jupyter_client) or on a Jupyter Kernel Gateway.

The web layer picks one at start-up and asks it for kernelspecs and for a kernel factory; sessions
see only the factory's adapters, which share one interface.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from .adapter import KernelAdapter
from .events import KernelEvent
from .gateway import GatewayKernelAdapter
from .gateway_client import GatewayClient, GatewayConfig, GatewayError, specs_list
from .specs import list_kernelspecs

log = logging.getLogger(__name__)

Adapter = KernelAdapter | GatewayKernelAdapter


class KernelBackend:
    """Kernelspecs (the last list fetched stays in `specs`) and a factory for kernel adapters."""

    def __init__(self, gateway: GatewayConfig | None = None) -> None:
        self.gateway = gateway
        self.specs: list[dict[str, str]] = []

    def create(self, on_event: Callable[[KernelEvent], None], name: str, cwd: str) -> Adapter:
        """A new, not yet started, kernel adapter for kernelspec `name`."""
        if self.gateway is not None:
            return GatewayKernelAdapter(on_event, gateway=self.gateway, kernel_name=name, cwd=cwd)
        return KernelAdapter(on_event, kernel_name=name, cwd=cwd)

    async def refresh_specs(self) -> dict[str, Any]:
        """Fetch the kernelspecs: `{"default": name | None, "kernelspecs": [...], "error"?: text}`.

        A gateway that cannot be reached keeps the last list and says why in `error`.
        """
        if self.gateway is None:
            self.specs = await asyncio.to_thread(list_kernelspecs)
            default = None
        else:
            try:
                model = await GatewayClient(self.gateway).kernelspecs()
            except GatewayError as exc:
                log.warning("cannot list the gateway's kernelspecs: %s", exc)
                return {"default": None, "kernelspecs": self.specs, "error": str(exc)}
            self.specs = specs_list(model)
            default = model.get("default") if isinstance(model.get("default"), str) else None
        names = [s["name"] for s in self.specs]
        if default not in names:
            default = "python3" if "python3" in names else (names[0] if names else None)
        return {"default": default, "kernelspecs": self.specs}
