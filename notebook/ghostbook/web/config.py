"""Server settings shared by the web layer."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ghostbook.kernel.gateway_client import GatewayConfig


@dataclass(frozen=True)
class ServerConfig:
    root: Path
    token: str = field(default_factory=lambda: secrets.token_hex(24))
    host: str = "127.0.0.1"
    port: int = 8888
    allow_remote: bool = False
    default_kernel: str = "python3"
    gateway: GatewayConfig | None = None  # kernels run on this Jupyter Kernel Gateway, not here
    max_upload_bytes: int = 100 * 1024 * 1024  # one uploaded file (--max-upload-mb)

    @property
    def cookie_name(self) -> str:
        # One cookie per port: two servers on one host must not overwrite each other's token.
        return f"ghostbook-token-{self.port}"
