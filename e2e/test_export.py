"""Download / Export and upload in real Chromium: the notebook's menu (its unsaved edits included), the
file browser's rows, uploads by button and by drag-and-drop, the size limit and the path rules."""

from __future__ import annotations

import json
import re
import shutil
import socket
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect

from .helpers import (
    Server,
    cells,
    launch_server,
    open_notebook,
    set_cell_source,
    stop_server,
    wait_idle,
    write_notebook,
)


def download(page: Page, testid: str, scope: object | None = None) -> tuple[str, bytes]:
    target = scope or page
    with page.expect_download() as info:
        target.get_by_test_id(testid).click()  # type: ignore[attr-defined]
    value = info.value
    path = value.path()
    return value.suggested_filename, Path(path).read_bytes()


def test_notebook_menu_exports_what_the_page_shows(server: Server, page: Page) -> None:
    write_notebook(server.root / "Tour.ipynb", [("markdown", "# Tour\n\nSome *prose*."), ("code", "x = 1")])
    open_notebook(page, server.url("/notebooks/Tour.ipynb"))
    wait_idle(page)
    set_cell_source(page, cells(page).nth(1), "%matplotlib inline\ny = 2  # typed, not saved yet")

    page.get_by_test_id("export-menu").click()
    name, body = download(page, "export-py")
    assert name == "Tour.py"
    assert body.decode() == ("# %% [markdown]\n# # Tour\n#\n# Some *prose*.\n\n"
                             "# %%\n# %matplotlib inline\ny = 2  # typed, not saved yet\n")

    page.get_by_test_id("export-menu").click()
    name, body = download(page, "export-ipynb")
    assert name == "Tour.ipynb"
    assert "".join(json.loads(body)["cells"][1]["source"]).endswith("typed, not saved yet")

    page.get_by_test_id("export-menu").click()
    name, body = download(page, "export-html")
    html = body.decode()
    assert name == "Tour.html" and "<title>Tour</title>" in html and "typed, not saved yet" in html
    assert not re.search(r"<script[^>]+src=", html)

    page.get_by_test_id("export-menu").click()
    expect(page.get_by_test_id("export-print")).to_be_visible()
    name, body = download(page, "export-pdf")
    assert name == "Tour.pdf" and body.startswith(b"%PDF-")

    # printing the page (Print…, or the browser's own): the document without the controls
    page.emulate_media(media="print")
    for testid in ["run-all", "export-menu", "add-cell-end", "kernel-status"]:
        expect(page.get_by_test_id(testid)).to_be_hidden()
    expect(cells(page).nth(1)).to_contain_text("typed, not saved yet")
    page.emulate_media(media="screen")
    expect(page.get_by_test_id("run-all")).to_be_visible()
    assert page.js_errors == []  # type: ignore[attr-defined]


def test_file_browser_downloads_exports_and_uploads(server: Server, page: Page) -> None:
    write_notebook(server.root / "Analysis.ipynb", [("code", "print('hi')")])
    (server.root / "data").mkdir()
    (server.root / "data" / "table.csv").write_text("a,b\n1,2\n")
    outside = Path(tempfile.mkdtemp(prefix="ghostbook-outside-"))
    (outside / "secret.txt").write_text("secret")
    (server.root / "data" / "leak.txt").symlink_to(outside / "secret.txt")
    page.goto(server.url("/"))
    browser = page.get_by_test_id("file-browser")
    notebook_row = browser.locator('[data-testid="file-entry"][data-path="Analysis.ipynb"]')

    name, body = download(page, "download-entry", notebook_row)
    assert name == "Analysis.ipynb" and json.loads(body)["cells"][0]["source"] == ["print('hi')"]
    notebook_row.get_by_test_id("export-entry").click()
    name, body = download(page, "export-html", notebook_row)
    assert name == "Analysis.html" and b"print" in body

    browser.locator('[data-testid="file-entry"][data-path="data"]').get_by_test_id("entry-link").click()
    table_row = browser.locator('[data-testid="file-entry"][data-path="data/table.csv"]')
    expect(table_row).to_have_attribute("data-type", "file")
    name, body = download(page, "download-entry", table_row)
    assert (name, body) == ("table.csv", b"a,b\n1,2\n")
    name, body = download(page, "entry-link", table_row)  # the name itself downloads too
    assert name == "table.csv"
    # path rules: a link out of the root is not listed and cannot be downloaded; nor can '..'
    expect(browser.locator('[data-path="data/leak.txt"]')).to_have_count(0)
    for bad in ["data/leak.txt", "../notebooks", "data/../../x"]:
        response = page.request.get(f"{server.base_url}/api/files?path={bad}")
        assert response.status == 404, bad
    shutil.rmtree(outside)

    # upload with the button
    page.get_by_test_id("upload-input").set_input_files(
        files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"uploaded by the button"}])
    expect(browser.locator('[data-testid="file-entry"][data-path="data/notes.txt"]')).to_be_visible()
    assert (server.root / "data" / "notes.txt").read_bytes() == b"uploaded by the button"

    # upload by dropping a file on the list
    transfer = page.evaluate_handle("""() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(["dropped"], "dropped.csv", { type: "text/csv" }));
        return transfer;
    }""")
    page.get_by_test_id("file-list").dispatch_event("dragover", {"dataTransfer": transfer})
    expect(browser).to_have_attribute("data-dropping", "true")
    page.get_by_test_id("file-list").dispatch_event("drop", {"dataTransfer": transfer})
    expect(browser.locator('[data-testid="file-entry"][data-path="data/dropped.csv"]')).to_be_visible()
    assert (server.root / "data" / "dropped.csv").read_text() == "dropped"
    expect(browser).not_to_have_attribute("data-dropping", "true")

    # the same name again is refused, with the server's reason, and the file is untouched
    page.get_by_test_id("upload-input").set_input_files(
        files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"other"}])
    expect(page.get_by_test_id("toast").filter(has_text="already exists")).to_be_visible()
    assert (server.root / "data" / "notes.txt").read_bytes() == b"uploaded by the button"


def test_too_large_upload_is_refused_with_a_clear_error(page: Page) -> None:
    base = Path(tempfile.mkdtemp(prefix="ghostbook-e2e-"))
    root = base / "notebooks"
    root.mkdir()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = launch_server(root, port, base / "server.log", {"GHOSTBOOK_MAX_UPLOAD_MB": "0.01"})
    try:
        server = Server(f"http://127.0.0.1:{port}", root, process)
        page.goto(server.url("/"))
        expect(page.get_by_test_id("file-browser")).to_have_attribute("data-loaded", "true")
        page.get_by_test_id("upload-input").set_input_files(
            files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": b"x" * 20_000}])
        expect(page.get_by_test_id("toast")).to_have_text(
            "Upload failed: big.csv is too large: uploads are limited to 10 KB "
            "(start ghostbook with --max-upload-mb to change it)")
        assert not (root / "big.csv").exists()
        # the server refuses it too, whoever sends it
        response = page.request.put(f"{server.base_url}/api/files?path=big.csv", data=b"x" * 20_000,
                                    headers={"Origin": server.base_url})
        assert response.status == 413 and "too large" in response.json()["error"]
        assert not (root / "big.csv").exists()
    finally:
        stop_server(process)
        shutil.rmtree(base, ignore_errors=True)
