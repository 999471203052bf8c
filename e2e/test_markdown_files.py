"""Markdown beside its files (issue 37, item 6): a relative image shows, a relative link opens the file in
a new tab, links leave with `target=_blank rel="noopener noreferrer"`, and an image pasted or dropped into
a Markdown cell becomes a cell attachment in the saved file."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from .helpers import Server, cells, open_notebook, write_notebook

# a 2x2 red PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6Q"
                       "AAAABJRU5ErkJggg==")


def natural_width(page: Page, selector: str) -> int:
    return int(page.locator(selector).evaluate("(img) => img.complete ? img.naturalWidth : 0"))


def test_relative_image_and_link_resolve_inside_the_root(server: Server, context: BrowserContext) -> None:
    folder = server.root / "reports"
    (folder / "data").mkdir(parents=True)
    (folder / "plot.png").write_bytes(PNG)
    (folder / "data" / "x.csv").write_text("a,b\n1,2\n")
    write_notebook(folder / "r.ipynb", [("markdown", "![plot](plot.png)\n\n[data](data/x.csv) and [site](https://example.com/)")])
    page = context.new_page()
    open_notebook(page, server.url("/notebooks/reports/r.ipynb"))
    rendered = cells(page).nth(0).get_by_test_id("markdown-rendered")
    image = rendered.locator("img")
    expect(image).to_have_attribute("src", "/files/reports/plot.png")
    page.wait_for_function("() => document.querySelector('.markdown-rendered img').naturalWidth === 2")

    for name in ("data", "site"):
        link = rendered.get_by_role("link", name=name)
        expect(link).to_have_attribute("target", "_blank")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
    data = rendered.get_by_role("link", name="data")
    expect(data).to_have_attribute("href", "/files/reports/data/x.csv")
    with context.expect_page() as opened:
        data.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.endswith("/files/reports/data/x.csv")
    assert "a,b" in tab.content()
    assert page.url.endswith("/notebooks/reports/r.ipynb")  # the notebook stays where it was


def saved_cells(path: Path, wanted: Any) -> list[dict[str, Any]]:
    for _ in range(100):
        found = json.loads(path.read_text())["cells"]
        if wanted(found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"the saved file never matched: {path.read_text()}")


PASTE = """([kind, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], "image.png", { type: "image/png" }));
  const target = document.querySelector(".cell.editing .cm-content");
  const box = target.getBoundingClientRect();
  const event = kind === "paste"
    ? new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true })
    : new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true,
                              clientX: box.left + 5, clientY: box.top + 5 });
  target.dispatchEvent(event);
}"""


def test_pasted_and_dropped_images_become_attachments(server: Server, context: BrowserContext) -> None:
    path = server.root / "paste.ipynb"
    write_notebook(path, [("markdown", "Before ")])
    page, other = context.new_page(), context.new_page()
    open_notebook(page, server.url("/notebooks/paste.ipynb"))
    open_notebook(other, server.url("/notebooks/paste.ipynb"))
    cell = cells(page).nth(0)
    cell.get_by_test_id("markdown-rendered").dblclick()
    page.keyboard.press("Control+End")
    page.evaluate(PASTE, ["paste", base64.b64encode(PNG).decode()])
    editor = cell.locator(".cm-content")
    expect(editor).to_contain_text(re.compile(r"Before !\[image\.png\]\(attachment:[0-9a-f-]{36}\.png\)"))
    page.keyboard.press("Escape")  # render: the image comes from the attachment
    page.wait_for_function("() => document.querySelector('.markdown-rendered img')?.naturalWidth === 2")
    other.wait_for_function("() => document.querySelector('.markdown-rendered img')?.naturalWidth === 2")

    page.keyboard.press("Control+s")
    [saved] = saved_cells(path, lambda c: c[0].get("attachments"))
    [(name, bundle)] = saved["attachments"].items()
    source = "".join(saved["source"])
    assert f"attachment:{name}" in source and bundle == {"image/png": base64.b64encode(PNG).decode()}

    # dropped too; and an attachment the text no longer names is not saved (as JupyterLab)
    cell.get_by_test_id("markdown-rendered").dblclick()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text("Only the dropped one: ")
    page.evaluate(PASTE, ["drop", base64.b64encode(PNG).decode()])
    expect(editor).to_contain_text("![image.png](attachment:")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    [saved] = saved_cells(path, lambda c: c[0].get("attachments") and name not in c[0]["attachments"])
    assert len(saved["attachments"]) == 1
    assert not getattr(page, "js_errors", [])
