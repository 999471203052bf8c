"""Measurement, not a pass/fail goal: end of the debounce → ghost text visible in the browser.

Run with `-s` to see the table. The model is the shipped default with the default settings
(GHOSTBOOK_E2E_MODEL names another), in a ~40-cell notebook cut from the standard library, typing in
its last cell and pausing where people pause. The page measures from the debounce timer firing to the
first animation frame that shows the suggestion, and reports it in `suggest_feedback` (the stats'
p50/p95). Only sanity is asserted: timings belong in the printed numbers, not in assertions."""

from __future__ import annotations

import os
import re
import sysconfig
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from .ghost_helpers import PROMPT, ghost, stats
from .helpers import Server, cells, open_notebook, wait_idle, write_notebook

ROUNDS = 32
FORCED = 12  # Ctrl+Space rounds after the pauses
CELLS = 40
# Line starts a person might pause after (the cell never parses, so no suggestion is dropped for that).
LINES = ["values{i} = [area(r) for r in", "for r in range(", "if total >", "x{i} = math.pi *",
         "y{i} = area(2) +", "while r <", "total = sum(area(r) for r in", "print(", "assert total >",
         "w{i} = max(area(1),"]


@pytest.fixture(scope="session")
def ghost_model() -> str:
    return os.environ.get("GHOSTBOOK_E2E_MODEL") or "default"


@pytest.fixture
def completion_settings(ghost_model: str) -> dict[str, object]:
    return {"model": ghost_model, "debounce_ms": 250}  # the rest: the defaults


def stdlib_cells(n: int) -> list[tuple[str, str]]:
    """`n` - 1 code cells of real code (standard library modules cut at top-level statements), an
    `import math` / `area` cell, and an empty last cell to type in."""
    chunks: list[str] = []
    for name in ("textwrap.py", "difflib.py", "shlex.py", "calendar.py"):
        current: list[str] = []
        for line in (Path(sysconfig.get_paths()["stdlib"]) / name).read_text().splitlines():
            if line and not line[0].isspace() and current and not current[-1].strip() and len(current) > 4:
                chunks.append("\n".join(current).strip("\n"))
                current = []
            current.append(line)
    chunks = [c for c in chunks if 3 <= c.count("\n") <= 40][: n - 2]
    return [("code", c) for c in chunks] + [("code", "import math\n\ndef area(r):\n    return math.pi * r ** 2"),
                                             ("code", "")]


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-len(ordered) * q // 100) - 1))]


def test_debounce_end_to_visible_latency(server: Server, page: Page, ghost_model: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    notebook = stdlib_cells(CELLS)
    write_notebook(server.root / "lat.ipynb", notebook)
    open_notebook(page, server.url("/notebooks/lat.ipynb"))
    wait_idle(page)
    last = cells(page).nth(len(notebook) - 1)
    last.get_by_test_id("cell-editor").locator(".cm-content").click()
    page.keyboard.type(PROMPT)
    editor = last.locator(".cm-editor")
    # the first answer includes loading the model: not measured
    expect(editor).to_have_attribute("data-ghost-last", re.compile(r" (shown|empty)$"), timeout=30_000)
    latencies, empty = pauses(page, editor, range(ROUNDS), forced=False)
    forced, _ = pauses(page, editor, range(ROUNDS, ROUNDS + FORCED), forced=True)
    # a pause shows only what the confidence gate lets through (maybe none here); Ctrl+Space always answers
    assert forced, "the model suggested nothing in any round"
    assert all(0 <= ms < 60_000 for ms in latencies + forced), latencies + forced  # sane, not a timing goal
    counts = stats(page)
    panel = page.get_by_test_id("completion-stats")
    with capsys.disabled():
        print(f"\n[ghost latency] model={ghost_model}  {len(notebook)} cells  rounds={ROUNDS} ({empty} with nothing"
              " to suggest)"
              "  debounce end → visible (ms):"
              + (f"  p50={nearest_rank(latencies, 50):.1f}  p95={nearest_rank(latencies, 95):.1f}"
                 f"  max={max(latencies):.1f}" if latencies else "  none shown")
              + f"  | server stats p50={panel.get_attribute('data-p50')}"
              f" p95={panel.get_attribute('data-p95')}  requests={counts['requests']}"
              f" model_calls={counts['model-calls']}"
              f"\n[ghost latency] Ctrl+Space → visible (ms): {len(forced)} of {FORCED} shown"
              + (f"  p50={nearest_rank(forced, 50):.1f}  p95={nearest_rank(forced, 95):.1f}" if forced else ""))


def pauses(page: Page, editor: Locator, rounds: range, forced: bool) -> tuple[list[float], int]:
    """For each round a new partial line, then a pause (the debounce) or Ctrl+Space at once: the
    latencies the page measured (from the debounce's end, or from the key) and the rounds with nothing
    to suggest."""
    latencies: list[float] = []
    empty = 0
    for i in rounds:
        last = editor.get_attribute("data-ghost-last") or ""
        # a new line each round (one input event: no Enter that a popup could take)
        page.keyboard.insert_text("\n" + LINES[i % len(LINES)].format(i=i))
        if forced:
            page.keyboard.press("Control+Space")
        expect(editor).not_to_have_attribute("data-ghost-last", last, timeout=10_000)
        result = (editor.get_attribute("data-ghost-last") or "").split()[-1]
        assert result in ("shown", "empty"), result
        if result == "empty":  # the model had nothing to suggest here
            empty += 1
            continue
        expect(ghost(page)).to_have_attribute("data-latency-ms", re.compile(r"^[\d.]+$"))
        latencies.append(float(ghost(page).get_attribute("data-latency-ms") or "nan"))
    return latencies, empty
