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
# Line starts a person might pause after (the cell never parses, so no suggestion is dropped for that).
LINES = ["values{i} = [area(r) for r in", "for r in range(", "if total >", "x{i} = math.pi *",
         "y{i} = area(2) +", "while r <", "total = sum(area(r) for r in", "print(", "assert total >",
         "w{i} = max(area(1),"]


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
    editor = cells(page).nth(1).locator(".cm-editor")
    # the first answer includes loading the model: not measured
    expect(editor).to_have_attribute("data-ghost-last", re.compile(r" (shown|empty)$"), timeout=30_000)
    latencies: list[float] = []
    empty = 0
    for i in range(ROUNDS):
        last = editor.get_attribute("data-ghost-last") or ""
        # a new line each round (one input event: no Enter that a popup could take)
        page.keyboard.insert_text("\n" + LINES[i % len(LINES)].format(i=i))
        expect(editor).not_to_have_attribute("data-ghost-last", last, timeout=10_000)
        result = (editor.get_attribute("data-ghost-last") or "").split()[-1]
        assert result in ("shown", "empty"), result
        if result == "empty":  # the model had nothing to suggest here
            empty += 1
            continue
        expect(ghost(page)).to_have_attribute("data-latency-ms", re.compile(r"^[\d.]+$"))
        latencies.append(float(ghost(page).get_attribute("data-latency-ms") or "nan"))
    assert latencies, "the model suggested nothing in any round"
    counts = stats(page)
    panel = page.get_by_test_id("completion-stats")
    with capsys.disabled():
        print(f"\n[ghost latency] model={ghost_model}  rounds={ROUNDS} ({empty} with nothing to suggest)"
              "  debounce end → visible (ms):"
              f"  p50={nearest_rank(latencies, 50):.1f}  p95={nearest_rank(latencies, 95):.1f}"
              f"  max={max(latencies):.1f}  | server stats p50={panel.get_attribute('data-p50')}"
              f" p95={panel.get_attribute('data-p95')}  requests={counts['requests']}"
              f" model_calls={counts['model-calls']}")
