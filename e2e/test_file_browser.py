"""File browser: folders and notebooks; navigate, create, rename, delete."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .helpers import Server, write_notebook


def test_browse_create_rename_delete(server: Server, page: Page) -> None:
    (server.root / "data").mkdir()
    write_notebook(server.root / "data" / "inside.ipynb", [("code", "1")])
    write_notebook(server.root / "zeta.ipynb", [("code", "2")])
    (server.root / "notes.txt").write_text("not a notebook")

    page.goto(server.url("/"))
    browser = page.get_by_test_id("file-browser")
    entries = browser.get_by_test_id("file-entry")
    expect(entries).to_have_count(3)
    # folders first, then files and notebooks by name (other files are listed, to download them)
    expect(entries.nth(0)).to_have_attribute("data-path", "data")
    expect(entries.nth(1)).to_have_attribute("data-path", "notes.txt")
    expect(entries.nth(2)).to_have_attribute("data-path", "zeta.ipynb")

    # into the folder and back
    entries.nth(0).get_by_test_id("entry-link").click()
    expect(page).to_have_url(f"{server.base_url}/tree/data")
    expect(browser.get_by_test_id("file-entry")).to_have_count(1)
    expect(browser.locator('[data-testid="file-entry"][data-path="data/inside.ipynb"]')).to_be_visible()
    browser.get_by_test_id("parent-folder").click()
    expect(page).to_have_url(f"{server.base_url}/")

    # rename inline
    zeta = browser.locator('[data-testid="file-entry"][data-path="zeta.ipynb"]')
    zeta.get_by_test_id("rename-entry").click()
    rename = browser.get_by_test_id("rename-input")
    rename.fill("alpha.ipynb")
    rename.press("Enter")
    expect(browser.locator('[data-testid="file-entry"][data-path="alpha.ipynb"]')).to_be_visible()
    assert (server.root / "alpha.ipynb").is_file() and not (server.root / "zeta.ipynb").exists()

    # a failing rename shows the server's error
    alpha = browser.locator('[data-testid="file-entry"][data-path="alpha.ipynb"]')
    alpha.get_by_test_id("rename-entry").click()
    browser.get_by_test_id("rename-input").fill("data")
    browser.get_by_test_id("rename-confirm").click()
    expect(page.get_by_test_id("toast")).to_be_visible()
    assert (server.root / "alpha.ipynb").is_file()

    # delete with inline confirmation
    alpha = browser.locator('[data-testid="file-entry"][data-path="alpha.ipynb"]')
    alpha.get_by_test_id("delete-entry").click()
    alpha.get_by_test_id("confirm-delete").click()
    expect(browser.locator('[data-testid="file-entry"][data-path="alpha.ipynb"]')).to_have_count(0)
    assert not (server.root / "alpha.ipynb").exists()

    # create a notebook: it opens
    browser.get_by_test_id("new-notebook").click()
    expect(page).to_have_url(f"{server.base_url}/notebooks/Untitled.ipynb")
    expect(page.get_by_test_id("notebook")).to_be_visible()
    assert (server.root / "Untitled.ipynb").is_file()


def test_corrupt_notebook_shows_error_page(server: Server, page: Page) -> None:
    broken = server.root / "broken.ipynb"
    broken.write_text('{"cells": [ this is not json')
    before = broken.read_bytes()
    page.goto(server.url("/notebooks/broken.ipynb"))
    error = page.get_by_test_id("notebook-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("broken.ipynb")
    assert broken.read_bytes() == before
