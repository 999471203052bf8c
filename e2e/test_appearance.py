"""Issue 37 item 8: the dark theme follows the system's colour scheme under System, the Light and Dark
settings win over it, the page and its editors, outputs and plotly frames follow; the editor font size
applies live; both are the user's settings (the server writes them onto <html>, so a reload keeps them)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook

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


def color(locator: Locator, prop: str = "color") -> str:
    return str(locator.evaluate(f"e => getComputedStyle(e).{prop}"))


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG relative luminance of an sRGB colour (0-255 channels)."""
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else float(((c + 0.055) / 1.055) ** 2.4)
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def over(top: str, under: str) -> tuple[float, float, float]:
    """The rgb() / rgba() colour `top` painted over the opaque `under`."""
    def parts(value: str) -> list[float]:
        return [float(p) for p in value[value.index("(") + 1:value.index(")")].split(",")]
    t, u = parts(top), parts(under)
    alpha = t[3] if len(t) > 3 else 1.0
    return (t[0] * alpha + u[0] * (1 - alpha), t[1] * alpha + u[1] * (1 - alpha), t[2] * alpha + u[2] * (1 - alpha))


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def assert_dark(name: str, locator: Locator, text: Locator | None = None) -> None:
    """`locator` has a dark background and `text` (itself unless given) light text."""
    bg = background(locator)
    assert bg != "rgba(0, 0, 0, 0)", f"{name}: no background of its own"
    assert brightness(bg) < 70, f"{name}: background {bg} is not dark"
    fg = color(text if text is not None else locator)
    assert brightness(fg) > 130, f"{name}: text {fg} is not light"


PANELS_NOTEBOOK = [
    ("markdown", "# Intro"),
    ("code", "total = 41\nprint('total', total)"),
    ("markdown", "## Part"),
    ("code", "data = [1, 2, 3]\nprint('total', data)"),
    ("code", "later = total + 1"),
    ("code", "print('line\\n' * 30_000, end='')"),
    ("markdown", "## Folded"),
    ("code", "folded = 1"),
]


def test_the_panels_bars_and_marks_of_issue_37_follow_the_dark_theme(server: Server, page: Page) -> None:
    """The outline, the find bar and its matches, the Variables panel, a multi-selection, a collapsed output,
    the "N cells hidden" pill and the full-text page of a long output are dark in dark mode, their text light."""
    page.set_viewport_size({"width": 1500, "height": 950})
    page.emulate_media(color_scheme="dark")
    write_notebook(server.root / "panels.ipynb", PANELS_NOTEBOOK)
    open_notebook(page, server.url("/notebooks/panels.ipynb"))
    wait_idle(page)
    page.get_by_test_id("toggle-variables").click()
    for index in (1, 3, 5):
        cells(page).nth(index).get_by_test_id("run-cell").click()
        expect(cells(page).nth(index)).to_have_attribute("data-state", "idle", timeout=KERNEL_TIMEOUT)
    expect(page.locator('[data-testid="variable-row"][data-name="data"]')).to_be_visible(timeout=KERNEL_TIMEOUT)
    long_output = cells(page).nth(5)
    show_all = output(long_output).get_by_test_id("output-show-all")
    expect(show_all).to_be_visible()
    full_text_url = str(show_all.get_attribute("href"))
    long_output.get_by_test_id("output-collapser").click()  # a collapsed output: the bar in its place
    cells(page).nth(6).get_by_test_id("heading-toggle").click()  # "## Folded": one cell hidden
    expect(cells(page).nth(6).get_by_test_id("hidden-cells-button")).to_be_visible()

    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+K")  # the outline
    page.get_by_test_id("outline-item").filter(has_text="Part").click()  # the active entry
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowDown")  # two cells selected
    page.keyboard.press("Control+f")
    page.get_by_test_id("search-case").click()  # a pressed toggle
    page.get_by_test_id("search-outputs").check()
    page.get_by_test_id("search-input").fill("total")
    expect(page.get_by_test_id("search-count")).to_contain_text("of")
    page.keyboard.press("Enter")  # a current match
    page.screenshot(path="/work/notes/darkpass-panels-dark.png")

    outline = page.get_by_test_id("outline-panel")
    assert_dark("outline panel", outline)
    active = outline.locator(".outline-item.active")
    assert_dark("active outline entry", active)
    assert_dark("hidden-cells pill", cells(page).nth(6).get_by_test_id("hidden-cells-button"))
    bar = page.get_by_test_id("search-bar")
    assert_dark("find bar", bar, page.get_by_test_id("search-count"))
    assert_dark("find field", page.get_by_test_id("search-input"))
    assert_dark("find toggle", page.get_by_test_id("search-word"))
    # a match in an editor: the cell's text stays readable on it; the current match's dark text on orange
    match = cells(page).nth(1).locator(".cm-searchMatch:not(.cm-searchMatch-selected)").first
    editor_bg = background(cells(page).nth(1).get_by_test_id("cell-editor"))
    shade = over(background(match), editor_bg)
    text = over(color(cells(page).nth(1).locator(".cm-content")), editor_bg)
    assert contrast(shade, text) >= 4.5, f"match {shade} against text {text}"
    current = page.locator(".cm-searchMatch-selected").first
    assert contrast(over(background(current), editor_bg), over(color(current), editor_bg)) >= 4.5
    panel = page.get_by_test_id("variables-panel")
    assert_dark("variables panel", panel, panel.get_by_test_id("variable-value").first)
    assert_dark("variables header", panel.locator("th").first, panel.locator("th").first)
    assert_dark("pressed variables button", page.get_by_test_id("toggle-variables"))
    selected = page.locator(".cell.multi-selected")
    expect(selected).to_have_count(2)
    for index in range(2):
        assert_dark("multi-selected cell", selected.nth(index), selected.nth(index).get_by_test_id("cell-prompt"))
    assert_dark("collapsed output bar", long_output.get_by_test_id("outputs-hidden"))
    assert page.js_errors == []  # type: ignore[attr-defined]

    page.goto(server.url(full_text_url))  # the whole text of the long output follows the theme too
    assert_dark("full-text page", page.locator("body"), page.get_by_test_id("full-output-text"))
    assert_dark("full-text header", page.locator("header"), page.get_by_test_id("full-output-title"))
