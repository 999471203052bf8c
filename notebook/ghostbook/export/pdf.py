"""PDF through nbconvert's `webpdf` exporter, printed by the system's Chromium (never a downloaded one).

nbconvert's WebPDFExporter launches Playwright's own Chromium and has no option for another executable,
so `run_playwright` is replaced by the same steps with `executable_path`. The page is offline: every
request that is not the exported file itself is refused, so the notebook's HTML cannot reach the network.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from nbconvert.exporters import WebPDFExporter

CHROMIUM = Path(os.environ.get("GHOSTBOOK_CHROMIUM", "/usr/bin/chromium"))
RENDER_WAIT_MS = 1500  # for plotly and vega to draw after the page has loaded
TIMEOUT_MS = 60_000


class PDFError(RuntimeError):
    """The PDF could not be made (no Chromium, or it failed); the message says why."""


class ChromiumPDFExporter(WebPDFExporter):  # type: ignore[misc]
    def run_playwright(self, html: str) -> bytes:
        try:
            from playwright.sync_api import Error, sync_playwright
        except ModuleNotFoundError:
            raise PDFError("PDF export needs Playwright: pip install playwright") from None
        if not CHROMIUM.is_file():
            raise PDFError(f"PDF export needs Chromium at {CHROMIUM} (or set GHOSTBOOK_CHROMIUM)")
        # Chromium refuses its sandbox to root (containers); elsewhere it keeps it.
        args = ["--disable-gpu", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
        with tempfile.TemporaryDirectory(prefix="ghostbook-pdf-") as folder:
            page_file = Path(folder) / "notebook.html"
            page_file.write_text(html, encoding="utf-8")
            url = page_file.as_uri()
            try:
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args,
                                                         handle_sigint=False, handle_sigterm=False,
                                                         handle_sighup=False)
                    try:
                        page = browser.new_page()
                        page.route("**/*", lambda route: route.continue_() if route.request.url == url
                                   else route.abort())
                        page.emulate_media(media="print")
                        page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
                        page.wait_for_timeout(RENDER_WAIT_MS)
                        return bytes(page.pdf(print_background=True))
                    finally:
                        browser.close()
            except Error as exc:
                raise PDFError(f"Chromium could not print the notebook: {exc.message}") from None
