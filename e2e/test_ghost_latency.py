"""Measurement, not a pass/fail goal: end of the debounce → ghost text visible in the browser.

Run with `-s` to see the table. The model is ghost_helpers' (GHOSTBOOK_E2E_MODEL=default for the
shipped one). The page measures from the debounce timer firing to the first animation frame that
shows the suggestion, and reports it in `suggest_feedback` (the stats' p50/p95)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .ghost_helpers import PROMPT, ghost, ghost_model, stats  # noqa: F401
from .helpers import Server, cells, open_notebook, wait_idle, write_notebook

ROUNDS = 15


@pytest.fixture
def completion_settings(ghost_model: str) -> dict[str, object]:  # noqa: F811
    return {"model": ghost_model, "max_new_tokens": 16, "debounce_ms": 250}


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-len(ordered) * q // 100) - 1))]


def test_debounce_end_to_visible_latency(server: Server, page: Page, ghost_model: str,  # noqa: F811
                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_notebook(server.root / "lat.ipynb", [("code", "import math\n\ndef area(r):\n    return math.pi * r ** 2"),
                                               ("code", "")])
    open_notebook(page, server.url("/notebooks/lat.ipynb"))
    wait_idle(page)
    cells(page).nth(1).get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    expect(ghost(page)).to_be_visible(timeout=30_000)  # the first one includes loading the model
    latencies: list[float] = []
    for i in range(ROUNDS):
        page.keyboard.press("Escape")
        page.keyboard.type(f" {i} +")
        expect(ghost(page)).to_have_attribute("data-latency-ms", re.compile(r"^[\d.]+$"), timeout=10_000)
        latencies.append(float(ghost(page).get_attribute("data-latency-ms") or "nan"))
    counts = stats(page)
    panel = page.get_by_test_id("completion-stats")
    with capsys.disabled():
        print(f"\n[ghost latency] model={ghost_model}  rounds={ROUNDS}  debounce end → visible (ms):"
              f"  p50={nearest_rank(latencies, 50):.1f}  p95={nearest_rank(latencies, 95):.1f}"
              f"  max={max(latencies):.1f}  | server stats p50={panel.get_attribute('data-p50')}"
              f" p95={panel.get_attribute('data-p95')}  requests={counts['requests']}"
              f" model_calls={counts['model-calls']}")
    assert len(latencies) == ROUNDS
