"""Issue 29, item 1: outputs that need scripts run in a sandboxed iframe (allow-scripts only, srcdoc,
a CSP with no network but the server's renderer scripts). A hostile .ipynb's HTML and JavaScript outputs
run, but cannot read the page's cookie or token, call /api/... with the user's credentials, navigate the
top window or open a websocket to the server; script-free HTML stays inline and sanitised."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Frame, Page, expect

from .helpers import TOKEN, Server, cells, open_notebook, output

# Everything a script in an output might try, each result written into its own frame for the test.
ATTACKS = """
async function attack(base, report) {
  const wsBase = base.replace(/^http/, "ws");
  const r = {ran: true, origin: String(self.origin)};
  const t = (name, fn) => { try { r[name] = "ok:" + String(fn()); } catch (e) { r[name] = "blocked:" + e.name; } };
  t("cookie", () => document.cookie);
  t("parentCookie", () => parent.document.cookie);
  t("parentUrl", () => parent.location.href);
  t("parentToken", () => parent.document.body.innerHTML);
  t("localStorage", () => localStorage.length);
  t("sessionStorage", () => sessionStorage.length);
  r.seen = [document.referrer, document.baseURI, location.href, window.name].join(" ");
  const tryFetch = async (name, url, init) => {
    try { const res = await fetch(url, init); r[name] = "ok:" + res.status + ":" + res.type; }
    catch (e) { r[name] = "blocked:" + e.name; }
  };
  await tryFetch("fetchApi", base + "/api/contents?attack=fetch", {credentials: "include"});
  await tryFetch("fetchNoCors", base + "/api/contents?attack=nocors", {mode: "no-cors", credentials: "include"});
  await tryFetch("fetchPost", base + "/api/contents", {method: "POST", mode: "no-cors", credentials: "include",
    body: JSON.stringify({dir: "", type: "directory", name: "pwned-by-fetch"})});
  await tryFetch("fetchRelative", "/api/contents?attack=relative", {credentials: "include"});
  r.xhr = await new Promise((resolve) => {
    try {
      const x = new XMLHttpRequest();
      x.withCredentials = true;
      x.onload = () => resolve("ok:" + x.status);
      x.onerror = () => resolve("blocked:error");
      x.open("GET", base + "/api/contents?attack=xhr");
      x.send();
    } catch (e) { resolve("blocked:" + e.name); }
  });
  t("beacon", () => navigator.sendBeacon(base + "/api/contents",
    JSON.stringify({dir: "", type: "directory", name: "pwned-by-beacon"})));
  r.image = await new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve("ok:loaded");
    img.onerror = () => resolve("blocked:error");
    img.src = base + "/api/contents?attack=img";
  });
  r.websocket = await new Promise((resolve) => {
    try {
      const ws = new WebSocket(wsBase + "/ws?path=hostile.ipynb");
      ws.onopen = () => resolve("ok:open");
      ws.onerror = () => resolve("blocked:error");
      setTimeout(() => resolve("blocked:timeout"), 5000);
    } catch (e) { resolve("blocked:" + e.name); }
  });
  t("topNavigation", () => { top.location.href = base + "/api/contents?attack=top"; return top.location.href; });
  t("topAssign", () => { window.top.location.assign("about:blank"); return "assigned"; });
  t("popup", () => window.open(base + "/api/contents?attack=popup"));
  t("form", () => {
    const form = document.createElement("form");
    form.method = "POST"; form.action = base + "/api/contents"; form.target = "_top";
    document.body.append(form); form.submit(); return "submitted";
  });
  // A height far beyond any content: the page must clamp it.
  parent.postMessage({ghostbook: "height", height: 1e9}, "*");
  parent.postMessage({ghostbook: "height", height: "99999"}, "*");
  report.textContent = JSON.stringify(r);
  report.dataset.done = "1";
}
"""


def hostile_html(base: str) -> str:
    return (f'<b>hostile html</b><pre id="report">running</pre><script>{ATTACKS}\n'
            f'attack({json.dumps(base)}, document.getElementById("report"));</script>')


def hostile_javascript(base: str) -> str:
    return (f'{ATTACKS}\nconst report = document.createElement("pre"); report.id = "report";\n'
            f'element.append("hostile javascript", report);\nattack({json.dumps(base)}, report);')


# A script-free output whose only job is to navigate its own frame to the API: the request reaches the
# server, but without the user's cookie.
SELF_NAVIGATION = '<a id="go">self</a><script>location.href = BASE + "/api/contents?attack=self";</script>'

TABLE = ('<style scoped>.dataframe td { color: teal; }</style><table class="dataframe" border="1">'
         "<thead><tr><th></th><th>a</th></tr></thead><tbody><tr><th>0</th><td>1</td></tr></tbody></table>")


def display(data: dict[str, str]) -> dict[str, object]:
    return {"output_type": "display_data", "data": {"text/plain": "<output>", **data}, "metadata": {}}


def write_outputs_notebook(path: Path, outputs_per_cell: list[list[dict[str, object]]]) -> None:
    cells_json: list[dict[str, object]] = [
        {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": f"# cell {i}", "execution_count": None,
         "outputs": outputs}
        for i, outputs in enumerate(outputs_per_cell)
    ]
    path.write_text(json.dumps({
        "cells": cells_json,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }))


def frame_of(page: Page, cell_index: int) -> Frame:
    handle = output(cells(page).nth(cell_index)).locator("iframe").element_handle()
    assert handle is not None
    frame = handle.content_frame()
    assert frame is not None
    return frame


def test_a_hostile_output_runs_sandboxed(server: Server, page: Page) -> None:
    base = server.base_url
    write_outputs_notebook(server.root / "hostile.ipynb", [
        [display({"text/html": hostile_html(base)})],
        [display({"application/javascript": hostile_javascript(base)})],
        [display({"text/html": SELF_NAVIGATION.replace("BASE", json.dumps(base))})],
        [display({"text/html": TABLE})],
    ])
    before = sorted(p.name for p in server.root.iterdir())
    answered: list[str] = []  # requests the server answered
    failed: list[tuple[str, str | None]] = []  # requests the browser stopped
    page.on("response", lambda response: answered.append(response.url))
    page.on("requestfailed", lambda request: failed.append((request.url, request.failure)))
    open_notebook(page, server.url("/notebooks/hostile.ipynb"))
    page_url = page.url
    assert TOKEN not in page_url  # the server traded it for an HttpOnly cookie

    for index, kind in [(0, "hostile html"), (1, "hostile javascript")]:
        frame_element = output(cells(page).nth(index)).locator("iframe")
        expect(frame_element).to_have_attribute("sandbox", "allow-scripts")
        assert frame_element.get_attribute("src") is None and frame_element.get_attribute("srcdoc")
        policy = frame_of(page, index).locator('meta[http-equiv="Content-Security-Policy"]')
        assert "connect-src 'none'" in (policy.get_attribute("content") or "")
        report = frame_of(page, index).locator("#report")
        expect(report).to_have_attribute("data-done", "1", timeout=20_000)
        expect(frame_of(page, index).locator("body")).to_contain_text(kind)  # its script did run
        r = json.loads(report.inner_text())
        print(kind, json.dumps(r, indent=1))
        assert r["ran"] and r["origin"] == "null"  # an opaque origin: nothing of the page's
        # cookies and token: unreadable
        for key in ["cookie", "parentCookie", "parentUrl", "parentToken", "localStorage", "sessionStorage"]:
            assert r[key].startswith("blocked:"), (key, r[key])
        assert TOKEN not in r["seen"]
        # /api/... with the user's credentials: refused before it leaves the frame
        for key in ["fetchApi", "fetchNoCors", "fetchPost", "fetchRelative", "xhr", "image"]:
            assert r[key].startswith("blocked:"), (key, r[key])
        # sendBeacon and form.submit() return as if they worked; the CSP and the sandbox drop them (no
        # request leaves the frame: checked against the browser's requests at the end)
        # no websocket to the server
        assert r["websocket"].startswith("blocked:"), r["websocket"]
        # the top window stays where it is; no popup, no form
        assert r["topNavigation"].startswith("blocked:") and r["topAssign"].startswith("blocked:"), r
        assert r["popup"] in ("ok:null", "blocked:TypeError"), r["popup"]
        # a height message beyond reason is clamped, a non-number ignored
        height = frame_element.evaluate("f => f.getBoundingClientRect().height")
        assert height <= 5000, height

    # the frame that navigated itself reached the API without a cookie, so without a token
    navigated = frame_of(page, 2)
    expect(navigated.locator("body")).to_contain_text("missing token", timeout=10_000)
    assert "/api/contents" in navigated.url

    # script-free HTML stays inline, sanitised (no frame)
    table = output(cells(page).nth(3))
    expect(table.locator("table.dataframe td")).to_have_text("1")
    assert table.locator("iframe").count() == 0

    page.wait_for_timeout(500)
    assert page.url == page_url
    expect(page.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    attacks = [url for url in answered
               if "attack=" in url or "/ws?path=hostile" in url or url == f"{base}/api/contents"]
    assert attacks == [f"{base}/api/contents?attack=self"], attacks  # only the cookie-less navigation
    print("stopped by the browser:", failed)
    assert sorted(p.name for p in server.root.iterdir()) == before  # nothing was created
    page.screenshot(path="/tmp/i29_hostile.png", full_page=True)

