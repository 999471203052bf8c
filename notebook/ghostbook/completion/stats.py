"""Live completion statistics of one session (protocol `completion_stats`)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

WINDOW = 500  # latencies kept for the percentiles


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile, q in [0, 100]; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return round(ordered[rank], 1)


@dataclass
class CompletionStats:
    """`shown`/`accepted` come from the client's feedback ("partial" counts as accepted); latencies are
    the client's (end of debounce → visible) when it reports them, else the server's (request → done)."""

    shown: int = 0
    accepted: int = 0
    dismissed: int = 0
    requests: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    client_ms: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))
    server_ms: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def feedback(self, event: str, latency_ms: float | None) -> None:
        if event == "shown":
            self.shown += 1
            if latency_ms is not None:
                self.client_ms.append(latency_ms)
        elif event in ("accepted", "partial"):
            self.accepted += 1
        elif event == "dismissed":
            self.dismissed += 1

    def to_json(self) -> dict[str, Any]:
        latencies = list(self.client_ms or self.server_ms)
        server = list(self.server_ms)
        return {"shown": self.shown, "accepted": self.accepted,
                "acceptance_rate": round(self.accepted / self.shown, 3) if self.shown else None,
                "p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
                "requests": self.requests, "model_calls": self.model_calls, "cache_hits": self.cache_hits,
                "server_p50_ms": percentile(server, 50), "server_p95_ms": percentile(server, 95)}
