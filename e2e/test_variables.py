"""The Variables panel and the data viewer in Chromium (issue #37, item 7): the panel lists the kernel's
names with type, shape and size, follows the next run, and a DataFrame opens as a paginated table that
sorts in the kernel."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, wait_idle, write_notebook

SHOTS = Path(os.environ.get("GHOSTBOOK_E2E_SHOTS", tempfile.gettempdir()))

SETUP = """import numpy as np
import pandas as pd
count = 42
words = ["a", "b", "c"]
grid = np.zeros((3, 4))
sales = pd.DataFrame({"amount": [(i * 37) % 120 for i in range(120)], "shop": [f"s{i % 7}" for i in range(120)]})"""


def row(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid="variable-row"][data-name="{name}"]')


def run_cell(page: Page, index: int) -> None:
    cells(page).nth(index).get_by_test_id("run-cell").click()


def test_panel_lists_and_follows_runs_and_the_viewer_pages_and_sorts(server: Server, page: Page) -> None:
    write_notebook(server.root / "vars.ipynb", [("code", SETUP), ("code", "later = {'k': 1}\ncount = 43")])
    open_notebook(page, server.url("/notebooks/vars.ipynb"))
    wait_idle(page)
    page.get_by_test_id("toggle-variables").click()
    panel = page.get_by_test_id("variables-panel")
    expect(panel).to_be_visible()
    expect(page.get_by_test_id("variables-status")).to_have_text("No variables yet: run a cell.")

    run_cell(page, 0)
    expect(row(page, "sales")).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(panel.get_by_test_id("variable-row")).to_have_count(4)  # no modules (np, pd)
    expect(row(page, "count").get_by_test_id("variable-type")).to_have_text("int")
    expect(row(page, "count").get_by_test_id("variable-value")).to_have_text("42")
    expect(row(page, "words").get_by_test_id("variable-shape")).to_have_text("len 3")
    expect(row(page, "grid").get_by_test_id("variable-shape")).to_have_text("3 × 4")
    expect(row(page, "grid").get_by_test_id("variable-size")).to_have_text("96 B")
    expect(row(page, "sales").get_by_test_id("variable-type")).to_have_text("DataFrame")
    expect(row(page, "sales").get_by_test_id("variable-shape")).to_have_text("120 × 2")
    expect(row(page, "sales").get_by_test_id("variable-size")).to_contain_text("KB")

    run_cell(page, 1)  # the next run: the list follows it
    expect(row(page, "later")).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(row(page, "count").get_by_test_id("variable-value")).to_have_text("43")
    page.get_by_test_id("variables-filter").fill("frame")
    expect(panel.get_by_test_id("variable-row")).to_have_count(1)
    page.screenshot(path=str(SHOTS / "variables-panel.png"))

    row(page, "sales").get_by_test_id("open-data-viewer").click()
    viewer = page.get_by_test_id("data-viewer")
    expect(viewer).to_be_visible()
    expect(page.get_by_test_id("data-viewer-title")).to_have_text("sales — DataFrame, 120 rows × 2 columns")
    data_rows = viewer.get_by_test_id("data-row")
    expect(data_rows).to_have_count(50)
    expect(page.get_by_test_id("data-range")).to_have_text("Rows 1–50 of 120")
    expect(data_rows.first).to_have_text("00s0")  # index 0, amount 0, shop s0

    page.get_by_test_id("data-next").click()
    expect(page.get_by_test_id("data-range")).to_have_text("Rows 51–100 of 120")
    expect(data_rows.first.locator("th")).to_have_text("50")
    page.keyboard.press("PageDown")
    expect(page.get_by_test_id("data-range")).to_have_text("Rows 101–120 of 120")
    expect(data_rows).to_have_count(20)

    amount = viewer.locator('[data-testid="data-column"][data-column="0"]')
    amount.click()  # ascending, sorted by the kernel, from the first page
    expect(amount).to_have_attribute("aria-sort", "ascending")
    expect(page.get_by_test_id("data-range")).to_have_text("Rows 1–50 of 120")
    expect(data_rows.first.locator("td").first).to_have_text("0")
    amount.click()
    expect(amount).to_have_attribute("aria-sort", "descending")
    expect(data_rows.first.locator("td").first).to_have_text("119")
    values = [int(v) for v in data_rows.evaluate_all("(rows) => rows.map((r) => r.querySelector('td').textContent)")]
    assert values == sorted(values, reverse=True)
    page.screenshot(path=str(SHOTS / "variables-data-viewer.png"))

    page.keyboard.press("Escape")
    expect(viewer).to_have_count(0)
    page.get_by_test_id("close-variables").click()
    expect(panel).to_be_hidden()
    assert not page.js_errors  # type: ignore[attr-defined]


def test_a_name_deleted_meanwhile_says_so_in_the_viewer(server: Server, context: BrowserContext) -> None:
    write_notebook(server.root / "gone.ipynb", [("code", "import pandas as pd\nframe = pd.DataFrame({'a': [2, 1]})"),
                                                ("code", "del frame")])
    page, other = context.new_page(), context.new_page()
    open_notebook(page, server.url("/notebooks/gone.ipynb"))
    wait_idle(page)
    page.get_by_test_id("toggle-variables").click()
    run_cell(page, 0)
    row(page, "frame").get_by_test_id("open-data-viewer").click(timeout=KERNEL_TIMEOUT)
    expect(page.get_by_test_id("data-row")).to_have_count(2)
    open_notebook(other, server.url("/notebooks/gone.ipynb"))  # another tab deletes it
    run_cell(other, 1)
    expect(cells(other).nth(1).locator(".prompt")).to_have_text("[2]", timeout=KERNEL_TIMEOUT)
    page.locator('[data-testid="data-column"][data-column="0"]').click()
    expect(page.get_by_test_id("data-status")).to_have_text(
        "cannot read frame: NameError: 'frame' is no longer defined in the kernel")
    page.keyboard.press("Escape")
    expect(row(page, "frame")).to_have_count(0)  # the panel followed the other tab's run
