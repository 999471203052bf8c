"""The acceptance story: create a notebook, run Python, see text, HTML, a PNG and a traceback, use
markdown, interrupt, restart, reload and find everything saved."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, editor_text, output, set_cell_source, type_in_cell, wait_idle

PLOT = "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"


def test_user_story(server: Server, page: Page) -> None:
    page.goto(server.url("/"))
    page.get_by_test_id("new-notebook").click()
    expect(page).to_have_url(re.compile(r"/notebooks/Untitled\.ipynb$"))
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    wait_idle(page)

    # text: typed by hand, Shift+Enter runs it and creates a new cell at the end (edit mode)
    if cells(page).count() == 0:
        page.get_by_test_id("add-cell").click()
    first = cells(page).nth(0)
    type_in_cell(page, first, 'print("hello from ghostbook")')
    page.keyboard.press("Shift+Enter")
    expect(output(first)).to_contain_text("hello from ghostbook", timeout=KERNEL_TIMEOUT)
    expect(first.get_by_test_id("cell-prompt")).to_have_text("[1]")
    expect(cells(page)).to_have_count(2)
    second = cells(page).nth(1)
    expect(second).to_have_class(re.compile(r"\bediting\b"))

    # HTML with a script: it runs, but in a sandboxed frame, never in the page (issue 29)
    page.keyboard.insert_text(
        'from IPython.display import HTML\n'
        'HTML("<b class=\'shout\'>bold move</b><script>document.title=\'pwned\'</script>")'
    )
    page.keyboard.press("Shift+Enter")
    framed = output(second).frame_locator("iframe[sandbox='allow-scripts']")
    expect(framed.locator("b.shout")).to_have_text("bold move", timeout=KERNEL_TIMEOUT)
    expect(framed.locator("title")).to_have_js_property("text", "pwned")  # the frame's own document
    assert page.title() != "pwned"

    # matplotlib PNG
    third = cells(page).nth(2)
    page.keyboard.insert_text(PLOT)
    page.keyboard.press("Shift+Enter")
    expect(output(third).locator('img[src^="data:image/png;base64,"]')).to_be_visible(timeout=KERNEL_TIMEOUT)

    # traceback with ANSI colours rendered and HTML escaped
    fourth = cells(page).nth(3)
    page.keyboard.insert_text('raise ValueError("<i>not html</i>")')
    page.keyboard.press("Shift+Enter")
    error = output(fourth).locator('[data-output-type="error"]')
    expect(error).to_contain_text("ValueError", timeout=KERNEL_TIMEOUT)
    expect(error).to_contain_text("<i>not html</i>")
    assert error.locator("i").count() == 0
    assert error.locator("span[class*='ansi-']").count() > 0
    assert "\x1b[" not in error.inner_text()

    # markdown: m in command mode, run renders it
    fifth = cells(page).nth(4)
    page.keyboard.press("Escape")
    page.keyboard.press("m")
    expect(fifth).to_have_attribute("data-cell-type", "markdown")
    page.keyboard.press("Enter")
    page.keyboard.insert_text("# Results\n\nSome *emphasis* <img src=x onerror=\"document.title='pwned'\">")
    page.keyboard.press("Control+Enter")
    rendered = fifth.get_by_test_id("markdown-rendered")
    expect(rendered.locator("h1")).to_have_text("Results")
    expect(rendered.locator("em")).to_have_text("emphasis")
    assert rendered.locator("img[onerror]").count() == 0
    assert page.title() != "pwned"

    # interrupt an endless loop
    page.get_by_test_id("add-cell").click()
    loop = cells(page).nth(5)
    expect(loop).to_have_class(re.compile(r"\bediting\b"))
    page.keyboard.insert_text("while True: pass")
    page.keyboard.press("Control+Enter")
    expect(loop).to_have_attribute("data-state", "running", timeout=KERNEL_TIMEOUT)
    expect(page.get_by_test_id("kernel-status")).to_have_text("busy")
    expect(loop.get_by_test_id("cell-prompt")).to_have_text("[*]")
    page.get_by_test_id("interrupt-kernel").click()
    expect(output(loop)).to_contain_text("KeyboardInterrupt", timeout=KERNEL_TIMEOUT)
    expect(loop).to_have_attribute("data-state", "idle")
    wait_idle(page)

    # restart: the execution count starts again
    page.get_by_test_id("restart-kernel").click()
    page.get_by_test_id("confirm-restart").click()  # Restart asks first (issue 14.14)
    wait_idle(page)
    last = cells(page).nth(5)
    set_cell_source(page, last, "print(6 * 7)")
    page.keyboard.press("Control+Enter")
    expect(output(last)).to_contain_text("42", timeout=KERNEL_TIMEOUT)
    expect(last.get_by_test_id("cell-prompt")).to_have_text("[1]")

    # everything is saved: reload and find it all again
    expect(page.get_by_test_id("save-status")).to_have_text("saved", timeout=10_000)
    page.reload()
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(cells(page)).to_have_count(6)
    assert 'print("hello from ghostbook")' in editor_text(cells(page).nth(0))
    expect(output(cells(page).nth(0))).to_contain_text("hello from ghostbook")
    expect(output(cells(page).nth(1)).frame_locator("iframe").locator("b.shout")).to_have_text("bold move")
    expect(output(cells(page).nth(2)).locator('img[src^="data:image/png;base64,"]')).to_be_visible()
    expect(output(cells(page).nth(3))).to_contain_text("ValueError")
    expect(cells(page).nth(4).get_by_test_id("markdown-rendered").locator("h1")).to_have_text("Results")
    expect(output(cells(page).nth(5))).to_contain_text("42")

    saved = json.loads((server.root / "Untitled.ipynb").read_text())
    assert [c["cell_type"] for c in saved["cells"]] == ["code"] * 4 + ["markdown", "code"]
    assert "hello from ghostbook" in json.dumps(saved["cells"][0]["outputs"])
    assert "image/png" in saved["cells"][2]["outputs"][-1]["data"]
    assert "".join(saved["cells"][5]["source"]) == "print(6 * 7)"
    assert not page.js_errors  # type: ignore[attr-defined]
