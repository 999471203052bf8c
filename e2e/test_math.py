"""Math (issue 29.4): KaTeX typesets Markdown's `$…$`, `$$…$$` and `\\begin{equation}`, and sympy's
`text/latex`, from the server's own files (KaTeX loads on first use, fonts included, no network); a
dollar in prose stays a dollar."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from .helpers import KERNEL_TIMEOUT, Server, cells, open_notebook, output, wait_idle, write_notebook

BUILD = Path(__file__).resolve().parent.parent / "notebook" / "ghostbook" / "web" / "static" / "build"

MARKDOWN = r"""## Math

A fraction inline: $\frac{a}{b}$, and a sum on its own line:

$$\sum_{i=1}^{n} i = \frac{n(n+1)}{2}$$

\begin{equation}
e^{i\pi} + 1 = 0
\end{equation}

It costs $5 and $10, not math.
"""


def test_markdown_and_sympy_math_render_with_katex(server: Server, page: Page) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    write_notebook(server.root / "math.ipynb", [
        ("markdown", MARKDOWN),
        ("code", "import sympy as sp\nx = sp.symbols('x')\nsp.Integral(sp.sqrt(1 / x), x)"),
    ])
    open_notebook(page, server.url("/notebooks/math.ipynb"))
    rendered = cells(page).nth(0).get_by_test_id("markdown-rendered")
    expect(rendered.locator(".katex")).to_have_count(3)
    expect(rendered.locator(".katex .mfrac").first).to_be_visible()  # \frac as a built-up fraction
    display = rendered.locator(".katex-display")
    expect(display).to_have_count(2)
    expect(display.nth(0).locator(".mop.op-symbol")).to_have_text("∑")
    expect(display.nth(0).locator(".katex-html")).to_contain_text("n(n+1)")
    prose = rendered.locator("p", has_text="It costs")
    expect(prose).to_have_text("It costs $5 and $10, not math.")
    expect(prose.locator(".katex")).to_have_count(0)

    code = cells(page).nth(1)
    wait_idle(page)
    code.get_by_test_id("run-cell").click()
    latex = output(code).locator('[data-mime="text/latex"]')
    expect(latex.locator(".katex")).to_be_visible(timeout=KERNEL_TIMEOUT)
    expect(latex.locator(".mop.op-symbol")).to_have_text("∫")
    expect(latex.locator(".katex-html")).to_contain_text("dx")

    # KaTeX's fonts came from the server, and nothing left it
    page.wait_for_function("document.fonts.status === 'loaded'")
    families = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
    assert any("KaTeX" in family for family in families), families
    assert all(url.startswith((server.base_url, "data:")) for url in requests), requests
    assert any(url.endswith("/static/build/katex.js") for url in requests)
    page.screenshot(path="/tmp/i29m_math.png", full_page=True)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_katex_is_not_in_the_main_bundle() -> None:
    main = (BUILD / "main.js").read_text()
    katex = (BUILD / "katex.js").read_text()
    assert "KaTeX parse error" in katex and "KaTeX parse error" not in main
    assert any(path.suffix == ".woff2" for path in (BUILD / "assets").iterdir())


