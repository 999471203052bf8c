"""What `ghostbook bench collab` measures in the browser, through the UI only (never the wire protocol).

Every page of one side lives in one browser context (its own cookie and cache). Elements are found as
the e2e tests find them: `data-testid` (notebook, cell, cell-editor, kernel-status, save-status) and
CodeMirror's `.cm-content` / `.cm-line`; an editor's text is its lines' text joined with newlines.

Clock: each page's `performance.timeOrigin + performance.now()` (ms since the epoch). Pages may live in
different renderer processes, so the offset between two pages' clocks is measured first (a read in B
between two reads in A; the tightest of 15) and taken off.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# In every page of a side, before its own scripts (`HELPERS_JS` is a context init script).
HELPERS_JS = """window.__benchLines = (content) => content ? Array.from(content.querySelectorAll('.cm-line'),
    (line) => line.textContent.replace(/\\u00a0/g, ' ')).join('\\n') : null;
window.__benchFirstEditor = () =>
  document.querySelector('[data-testid="cell"] [data-testid="cell-editor"] .cm-content');"""
NOW_JS = "() => performance.timeOrigin + performance.now()"

# Tab A: when each key reached the page (the keydown event's own timestamp).
KEYDOWNS_JS = """() => { window.__benchDowns = [];
  window.addEventListener('keydown', (e) => { if (e.key.length === 1)
    window.__benchDowns.push(performance.timeOrigin + e.timeStamp); }, true); }"""

# Tab B: when each typed character first stood in the first cell's editor (checked on every DOM change).
ARRIVALS_JS = """([start, typed]) => { window.__benchArrivals = [];
  const check = () => {
    const now = performance.timeOrigin + performance.now();
    const text = window.__benchLines(window.__benchFirstEditor());
    if (text === null || !text.startsWith(start)) return;
    const got = text.slice(start.length), arrivals = window.__benchArrivals;
    while (arrivals.length < got.length && arrivals.length < typed.length
           && got[arrivals.length] === typed[arrivals.length]) arrivals.push(now);
  };
  new MutationObserver(check).observe(document.querySelector('[data-testid="notebook"]'),
    {subtree: true, childList: true, characterData: true});
}"""

# Before the page's own scripts, after `window.__benchWant = {cells, head}`: the moment it is open (`open_ms`).
OPEN_JS = """(() => { const want = window.__benchWant; let met = false;
  const check = () => {
    if (met) return;
    if (!document.querySelector('[data-testid="notebook"][data-loaded="true"]')) return;
    const cells = document.querySelectorAll('[data-testid="cell"]');
    if (cells.length !== want.cells) return;
    const last = cells[cells.length - 1].querySelector('[data-testid="cell-editor"] .cm-content');
    const text = window.__benchLines(last);
    if (text === null || !text.startsWith(want.head)) return;
    met = true;
    const dom = performance.now();
    requestAnimationFrame(() => { const channel = new MessageChannel();
      channel.port1.onmessage = () => { window.__benchOpen = {dom, painted: performance.now()}; };
      channel.port2.postMessage(null); });
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, characterData: true,
                                                 attributes: true, attributeFilter: ['data-loaded']});
})();"""


RACE_A, RACE_B = "abcdefhjkl", "ABCDEFHJKL"  # what tabs A and B type in a race: letters not in TYPING_LINE


@dataclass
class KeyRun:
    latencies: list[float]  # ms from keydown in tab A to the character in tab B's editor, arrived keys only
    typed: int  # keys counted (after the warm-up)
    offset: float  # tab B's clock minus tab A's, ms (taken off the latencies)


@dataclass
class RaceRun:
    typed: int  # characters typed, both tabs together
    kept_a: int  # of them, in tab A's editor once both tabs are quiet
    kept_b: int
    kept_disk: int  # in the saved file
    converged: bool  # A, B and the file hold the same text


def editor_text(page: Page) -> str | None:
    """The first cell's editor text in `page` (None: no editor)."""
    return page.evaluate("() => window.__benchLines(window.__benchFirstEditor())")


def clock_offset(a: Page, b: Page, rounds: int = 15) -> float:
    """B's clock minus A's, ms, from the round with the tightest bracket."""
    best: tuple[float, float] = (float("inf"), 0.0)
    for _ in range(rounds):
        t0, tb, t1 = a.evaluate(NOW_JS), b.evaluate(NOW_JS), a.evaluate(NOW_JS)
        best = min(best, (t1 - t0, tb - (t0 + t1) / 2))
    return best[1]


@contextmanager
def tabs(context: BrowserContext, url: str, count: int = 2) -> Iterator[list[Page]]:
    """`count` tabs open on `url` (loaded, the kernel idle or 60 s gone), closed afterwards."""
    pages = [context.new_page() for _ in range(count)]
    try:
        for page in pages:
            page.goto(url)
            page.wait_for_selector('[data-testid="notebook"][data-loaded="true"]', timeout=60_000)
        for page in pages:
            try:
                page.wait_for_function(
                    "() => document.querySelector('[data-testid=\"kernel-status\"]')?.textContent === 'idle'",
                    timeout=60_000)
            except PlaywrightTimeout:
                pass  # typing is measured all the same, with the kernel still starting
        for page in pages:
            if page.evaluate("document.visibilityState") != "visible":
                raise RuntimeError("a tab is hidden: its timers and frames would be throttled")
        yield pages
    finally:
        for page in pages:
            page.close()


def focus_end(page: Page) -> None:
    """Edit mode at the end of the first cell."""
    page.locator('[data-testid="cell"] [data-testid="cell-editor"] .cm-content').first.click()
    page.keyboard.press("Control+End")


def keystrokes(context: BrowserContext, url: str, start: str, typed: str, pace_ms: tuple[float, float],
               warmup: int, rng: random.Random, wait_s: float = 5.0) -> KeyRun:
    """Type `typed` into tab A at a human pace (gaps drawn from `pace_ms`) and time each key into tab B."""
    with tabs(context, url) as (a, b):
        offset = clock_offset(a, b)
        a.evaluate(KEYDOWNS_JS)
        b.evaluate(ARRIVALS_JS, [start, typed])
        focus_end(a)
        due = time.perf_counter()
        for char in typed:
            time.sleep(max(0.0, due - time.perf_counter()))
            a.keyboard.type(char)
            due += rng.uniform(*pace_ms) / 1000
        try:
            b.wait_for_function(f"() => window.__benchArrivals.length >= {len(typed)}", timeout=wait_s * 1000)
        except PlaywrightTimeout:
            pass  # some never arrived: counted as such
        downs: list[float] = a.evaluate("window.__benchDowns")
        arrivals: list[float] = b.evaluate("window.__benchArrivals")
    if len(downs) != len(typed):
        raise RuntimeError(f"tab A saw {len(downs)} keydowns for {len(typed)} keys")
    latencies = [arrived - offset - down for down, arrived in zip(downs, arrivals, strict=False)]
    return KeyRun(latencies[warmup:], len(typed) - warmup, offset)


def kept(text: str | None, typed: str) -> int:
    """How many of the characters in `typed` stand in `text` (each counted at most as often as typed)."""
    if text is None:
        return 0
    return sum(min(text.count(char), typed.count(char)) for char in set(typed))


def settled(pages: list[Page], quiet_s: float = 1.0, limit_s: float = 20.0) -> list[str | None]:
    """The tabs' first-cell texts once none has changed for `quiet_s` (or after `limit_s`)."""
    texts, since, deadline = [editor_text(p) for p in pages], time.monotonic(), time.monotonic() + limit_s
    while time.monotonic() - since < quiet_s and time.monotonic() < deadline:
        time.sleep(0.1)
        now = [editor_text(p) for p in pages]
        if now != texts:
            texts, since = now, time.monotonic()
    return texts


def saved_source(page: Page, file: Path, limit_s: float = 10.0) -> str | None:
    """The first cell's source in `file` once the tab says saved and the file has stopped changing."""
    last, deadline = None, time.monotonic() + limit_s
    while time.monotonic() < deadline:
        time.sleep(0.5)
        cells = json.loads(file.read_text())["cells"] if file.is_file() else []
        source = "".join(cells[0]["source"]) if cells else None
        status = page.evaluate("() => document.querySelector('[data-testid=\"save-status\"]')?.dataset.status")
        if source == last and status == "saved":
            return source
        last = source
    return last


def race(context: BrowserContext, url: str, file: Path, keys: int) -> RaceRun:
    """Tabs A and B type into the same place of one cell at once (keys alternating, no pause): what survives."""
    both = "".join((RACE_A if i % 2 == 0 else RACE_B)[i // 2 % len(RACE_A)] for i in range(keys))
    with tabs(context, url) as (a, b):
        focus_end(a)
        focus_end(b)
        for i, char in enumerate(both):
            (a if i % 2 == 0 else b).keyboard.type(char)
        text_a, text_b = settled([a, b])
        disk = saved_source(a, file)
    return RaceRun(keys, kept(text_a, both), kept(text_b, both), kept(disk, both), text_a == text_b == disk)


def open_ms(context: BrowserContext, url: str, cells: int, head: str, limit_s: float = 120.0) -> float:
    """Navigation start to the first frame painted after the notebook is usable: loaded, all `cells` cells
    on the page and the last cell's editor showing `head` (its first lines)."""
    page = context.new_page()
    try:
        page.add_init_script(script=f"window.__benchWant = {json.dumps({'cells': cells, 'head': head})};")
        page.add_init_script(script=OPEN_JS)
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => window.__benchOpen !== undefined", timeout=limit_s * 1000)
        return float(page.evaluate("window.__benchOpen.painted"))
    finally:
        page.close()
