"""Issue 37 item 8: the dark theme follows the system's colour scheme under System, the Light and Dark
settings win over it, the page and its editors, outputs and plotly frames follow; the editor font size
applies live; both are the user's settings (the server writes them onto <html>, so a reload keeps them)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from .helpers import Server, cells, open_notebook

DARK_BG = "rgb(13, 17, 23)"
LIGHT_BG = "rgb(255, 255, 255)"
PLOTLY_DARK = "rgb(17, 17, 17)"
# A figure as plotly.py sends it: its default template (light blue plot area) embedded in the layout.
FIGURE = {
    "data": [{"type": "scatter", "x": [1, 2, 3], "y": [3, 1, 2], "mode": "markers"}],
    "layout": {"title": {"text": "themed"}, "template": {"layout": {"plot_bgcolor": "#E5ECF6", "paper_bgcolor": "white",
                                                                     "font": {"color": "#2a3f5f"}}}},
}


def write_charted_notebook(server: Server) -> None:
    output = {"output_type": "display_data", "metadata": {},
              "data": {"application/vnd.plotly.v1+json": FIGURE, "text/plain": ["Figure"]}}
    notebook = {
        "cells": [{"cell_type": "code", "id": "code", "metadata": {}, "execution_count": 1,
                   "source": "x = 1  # a comment", "outputs": [output]},
                  {"cell_type": "markdown", "id": "md", "metadata": {}, "source": "# Title"}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (server.root / "themed.ipynb").write_text(json.dumps(notebook))


def background(locator: Locator) -> str:
    return str(locator.evaluate("e => getComputedStyle(e).backgroundColor"))


def brightness(color: str) -> float:
    """0 (black) to 255 (white) from an rgb() / rgba() computed colour."""
    parts = [float(p) for p in color[color.index("(") + 1:color.index(")")].split(",")[:3]]
    return sum(parts) / 3


def editor(page: Page) -> Locator:
    return cells(page).first.get_by_test_id("cell-editor")


def cursor_color(page: Page) -> str:
    cursor = editor(page).locator(".cm-cursor").first
    return str(cursor.evaluate("e => getComputedStyle(e).borderLeftColor"))


def chart(page: Page) -> FrameLocator:
    return cells(page).first.locator('iframe[data-testid="output-frame"]').content_frame


def set_appearance(page: Page, theme: str | None = None, font_size: int | None = None) -> None:
    """Change the appearance in the settings panel, as a user does."""
    page.get_by_test_id("open-settings").click()
    section = page.get_by_test_id("appearance-section")
    section.scroll_into_view_if_needed()
    if theme is not None:
        page.get_by_test_id("setting-theme").select_option(theme)
    if font_size is not None:
        size = page.get_by_test_id("setting-editor-font-size")
        size.fill(str(font_size))
        size.press("Enter")
    page.get_by_test_id("close-settings").click()


def test_system_follows_a_dark_colour_scheme(server: Server, page: Page) -> None:
    page.emulate_media(color_scheme="dark")
    write_charted_notebook(server)
    page.goto(server.url("/"))  # the file browser
    expect(page.locator("html")).to_have_attribute("data-theme", "system")
    assert background(page.locator("body")) == DARK_BG
    open_notebook(page, server.url("/notebooks/themed.ipynb"))
    assert background(page.locator("body")) == DARK_BG
    assert brightness(background(editor(page))) < 60
    content = editor(page).locator(".cm-content")
    assert brightness(str(content.evaluate("e => getComputedStyle(e).color"))) > 180  # light text
    comment = editor(page).locator(".cm-line span", has_text="# a comment")
    assert brightness(str(comment.evaluate("e => getComputedStyle(e).color"))) > 90  # readable syntax colours
    # CodeMirror's own dark flag (its cursor, selection, gutters, panels, tooltips) is on
    assert cursor_color(page) == "rgb(221, 221, 221)"
    # plotly: the default template's colours become plotly_dark's inside the sandboxed frame
    svg = chart(page).locator("svg.main-svg").first
    expect(svg).to_be_visible(timeout=20_000)
    assert background(svg) == PLOTLY_DARK
    expect(chart(page).locator("html")).to_have_attribute("data-theme", "dark")
    # the system switches to light: the page, its editors and its charts follow at once
    page.emulate_media(color_scheme="light")
    assert background(page.locator("body")) == LIGHT_BG
    assert brightness(background(editor(page))) > 200
    expect(chart(page).locator("html")).to_have_attribute("data-theme", "light")
    expect(chart(page).locator("svg.main-svg").first).to_have_css("background-color", LIGHT_BG, timeout=20_000)
    assert cursor_color(page) == "rgb(0, 0, 0)"  # CodeMirror's light flag again
    assert page.js_errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("system", "setting"), [("dark", "light"), ("light", "dark")])
def test_the_setting_wins_over_the_system_and_is_kept(server: Server, page: Page, system: str, setting: str) -> None:
    page_bg, chart_bg = (DARK_BG, PLOTLY_DARK) if setting == "dark" else (LIGHT_BG, LIGHT_BG)
    page.emulate_media(color_scheme="dark" if system == "dark" else "light")
    write_charted_notebook(server)
    open_notebook(page, server.url("/notebooks/themed.ipynb"))
    assert background(page.locator("body")) == (DARK_BG if system == "dark" else LIGHT_BG)
    set_appearance(page, theme=setting)
    expect(page.locator("html")).to_have_attribute("data-theme", setting)
    assert background(page.locator("body")) == page_bg
    assert (brightness(background(editor(page))) < 60) == (setting == "dark")
    # the page arrives in it, before any script: the server wrote the setting onto <html>
    html = page.request.get(server.url("/notebooks/themed.ipynb")).text()
    assert f'<html data-theme="{setting}"' in html
    page.reload()
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    assert background(page.locator("body")) == page_bg
    svg = chart(page).locator("svg.main-svg").first
    expect(svg).to_be_visible(timeout=20_000)
    assert background(svg) == chart_bg  # plotly_dark's colours, or plotly's own light template
    page.goto(server.url("/"))  # the file browser reads it too
    assert background(page.locator("body")) == page_bg


def test_the_editor_font_size_applies_live_and_survives_a_reload(server: Server, page: Page) -> None:
    write_charted_notebook(server)
    open_notebook(page, server.url("/notebooks/themed.ipynb"))
    content = editor(page).locator(".cm-content")
    expect(content).to_have_css("font-size", "14px")
    set_appearance(page, font_size=20)
    expect(content).to_have_css("font-size", "20px")
    markdown = cells(page).nth(1)
    markdown.dblclick()  # the Markdown editor too
    expect(markdown.get_by_test_id("cell-editor").locator(".cm-content")).to_have_css("font-size", "20px")
    page.reload()
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(editor(page).locator(".cm-content")).to_have_css("font-size", "20px")
    # out of range: the server says why and nothing changes
    page.get_by_test_id("open-settings").click()
    size = page.get_by_test_id("setting-editor-font-size")
    size.fill("40")
    size.press("Enter")
    expect(page.get_by_test_id("appearance-error")).to_contain_text("from 10 to 24")
    expect(size).to_have_value("20")
    expect(editor(page).locator(".cm-content")).to_have_css("font-size", "20px")
