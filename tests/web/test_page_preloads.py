"""The page asks for the chunks main.js imports beside it (`<link rel="modulepreload">`, the build's
`preload.json`), against a real server process and the built frontend."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import httpx
import pytest
from ghostbook.web import pages

from tests.conftest import RunningServer

pytestmark = pytest.mark.timeout(60)


def test_the_page_preloads_every_chunk_main_js_imports(server: RunningServer) -> None:
    with httpx.Client(base_url=server.base) as client:
        page = client.get("/", params={"token": server.token}, follow_redirects=True).text
        links = re.findall(r'<link rel="modulepreload" href="([^"]+)"', page)
        assert links and page.index(links[-1]) < page.index("/static/build/main.js")
        main = client.get("/static/build/main.js").text
        imported = set(re.findall(r'from"\./(chunks/[^"]+\.js)"', main.replace(" ", "")))
        assert imported and {link.removeprefix("/static/build/") for link in links} == imported
        assert all(client.get(link).status_code == 200 for link in links)


@pytest.mark.parametrize("content", ['["../../secret.js", "chunks/a.js\\"><script>"]', "{}", "not json"])
def test_a_strange_preload_list_adds_nothing_unsafe(content: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "preload.json").write_text(content)
    monkeypatch.setattr(pages, "STATIC_DIR", tmp_path)
    links = pages.preload_links()
    assert "<script>" not in links and "secret" not in links
    assert links == "" or json.loads(content)[1] in html.unescape(links)
