"""Several tabs editing the same cells at once (issue 41): the cells' texts are CRDTs, so concurrent
typing converges with nothing lost, undo is per tab, and presence (carets, chips, avatars, names)
shows who is where.

Every tab is a page in a browser context of its own (one person each: their own name, and Chromium
draws every context's page at full speed, where a second page of one context gets a frame a second).
Everything is typed with the real keyboard; the sync API drives one page at a time, so the tabs'
keystrokes are interleaved in small random steps and land before each other's have arrived.
Screenshots go to `$GHOSTBOOK_E2E_SHOTS`, if set."""

from __future__ import annotations

import base64
import json
import os
import random
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, WebSocketRoute, expect

from .helpers import Server, cells, editor_text, open_notebook, write_notebook

CHAOS_SECONDS = 30.0  # the acceptance test's typing time (issue 41 asks for 30 s)
PAUSE_MAX = 0.05  # a typing tab's pause between two bursts of keys: 0-50 ms
STRUCTURE_EVERY = (0.8, 1.6)  # seconds between two of the structure tab's operations
MARKER = re.compile(r"<([abc]\d+)>")
NAME_KEY = "ghostbook.user-name"  # people.ts
RECENT: deque[str] = deque(maxlen=12)  # the chaos test's last actions, for a failure's message

# Every cell's id and text as the page shows it.
TEXTS_JS = """() => [...document.querySelectorAll('[data-testid=cell]')].map((cell) => [cell.dataset.cellId,
  [...cell.querySelectorAll('[data-testid=cell-editor] .cm-content .cm-line')].map((l) => l.textContent)
    .join('\\n')])"""
# Are the cells' ids, in order and joined with commas, `order`?
ORDER_IS_JS = """(order) =>
  [...document.querySelectorAll('[data-testid=cell]')].map((cell) => cell.dataset.cellId).join() === order"""
# The cell whose editor has the focus (null: none has).
FOCUSED_CELL_JS = """() => {
  const active = document.activeElement;
  return active?.classList.contains('cm-content') ? active.closest('[data-testid=cell]')?.dataset.cellId ?? null : null;
}"""
# The focused cell, how many characters other than whitespace its text has in this tab, and the text selected.
FOCUSED_LENGTH_JS = """() => {
  const active = document.activeElement;
  if (!active?.classList.contains('cm-content')) return [null, 0, ''];
  const text = [...active.querySelectorAll('.cm-line')].map((line) => line.textContent).join('');
  return [active.closest('[data-testid=cell]')?.dataset.cellId ?? null, text.replace(/\\s/g, '').length,
          document.getSelection()?.toString() ?? ''];
}"""

NewTab = Callable[..., Page]


@pytest.fixture
def new_tab(browser: Browser) -> Iterator[NewTab]:
    """`new_tab(url, name=None)`: a page in a context of its own, the notebook at `url` open; `name`:
    the person's name (the "Your name" setting) unless the page already set one."""
    contexts: list[BrowserContext] = []

    def make(url: str | None = None, name: str | None = None) -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(15_000)
        contexts.append(context)
        if name:
            context.add_init_script(f"localStorage.getItem({NAME_KEY!r}) || "
                                    f"localStorage.setItem({NAME_KEY!r}, {json.dumps(name)})")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors  # type: ignore[attr-defined]
        if url:
            open_notebook(page, url)
        return page

    yield make
    for context in contexts:
        context.close()


def cell_by_id(page: Page, cell_id: str) -> Locator:
    return page.locator(f'[data-testid=cell][data-cell-id="{cell_id}"]')


def content(cell: Locator) -> Locator:
    return cell.get_by_test_id("cell-editor").locator(".cm-content")


def page_texts(page: Page) -> list[tuple[str, str]]:
    return [(cell_id, text) for cell_id, text in page.evaluate(TEXTS_JS)]


def saved_texts(server: Server, name: str) -> list[tuple[str, str]]:
    notebook = json.loads((server.root / name).read_text())
    return [(cell["id"], "".join(cell["source"])) for cell in notebook["cells"]]


def wait_converged(pages: list[Page], server: Server, name: str, timeout: float = 20) -> list[tuple[str, str]]:
    """Wait until every page shows the same cells and texts and the file holds them (saved with Ctrl+S
    if autosave has not yet); those texts."""
    for page in pages:  # every line drawn: CodeMirror draws only the lines near the window
        page.set_viewport_size({"width": 1280, "height": 8000})
    deadline = time.monotonic() + timeout
    saved = False
    while True:
        texts = [page_texts(page) for page in pages]
        same = all(other == texts[0] for other in texts[1:])
        if same and saved_texts(server, name) == texts[0]:
            return texts[0]
        if time.monotonic() > deadline:
            details = "\n".join(f"tab {i}: {t!r}" for i, t in enumerate(texts))
            raise AssertionError(f"tabs and file differ:\n{details}\nfile: {saved_texts(server, name)!r}")
        if same and not saved:
            pages[0].keyboard.press("Control+s")
            saved = True
        time.sleep(0.2)


def markers_in(text: str) -> Counter[str]:
    """The markers in `text`, one count per occurrence. A tab may put its caret inside another's marker
    (a click lands anywhere; part of the marker may not have arrived yet) and type its own there, or
    Enter (which indents the new line: `<c2<b3>` reads as an unfinished expression): whitespace is taken
    out, then the markers, innermost first, so that an outer one is whole again."""
    found: Counter[str] = Counter()
    text = re.sub(r"\s", "", text)
    while matches := MARKER.findall(text):
        found.update(matches)
        text = MARKER.sub("", text)
    return found


class Link:
    """A tab's socket through the test. It passes messages on as they come, or holds back what the server
    sends (`hold`: as over a slow network, in order, until `release`), or is down (`cut`: the socket
    closes and every new one fails at once, until `mend`). Chromium's offline mode (`set_offline`)
    leaves an open websocket alone, so this is how a tab goes offline."""

    def __init__(self, page: Page) -> None:
        self.held: list[str | bytes] = []
        self.route: WebSocketRoute | None = None
        self.server: WebSocketRoute | None = None
        self.holding = False
        self.down = False
        page.route_web_socket(re.compile(r".*/ws\?path=.*"), self._connect)

    def _connect(self, route: WebSocketRoute) -> None:
        if self.down:
            route.close()
            return
        self.route, self.held = route, []
        self.server = route.connect_to_server()
        self.server.on_message(lambda message: self._from_server(route, message))

    def _from_server(self, route: WebSocketRoute, message: str | bytes) -> None:
        if route is not self.route:
            return  # a socket closed since
        if self.holding:
            self.held.append(message)
        else:
            route.send(message)

    def hold(self) -> None:
        self.holding = True

    def release(self, count: int | None = None) -> None:
        """Pass on the first `count` messages held (all by default)."""
        count = len(self.held) if count is None else count
        batch, self.held = self.held[:count], self.held[count:]
        for message in batch:
            assert self.route is not None
            self.route.send(message)

    def flow(self) -> None:
        """Pass everything on from now on."""
        self.holding = False
        self.release()

    def cut(self) -> None:
        self.down = True
        if self.route and self.server:
            self.server.close()
            self.route.close()
        self.route = self.server = None

    def mend(self) -> None:
        self.down = False


@dataclass
class Board:
    """What the typing tabs have typed, all together: each cell's length by now, and how many pieces
    were typed into a text that lacked another tab's earlier keys (really concurrent edits)."""

    lengths: Counter[str]
    pieces: int = 0
    concurrent: int = 0


@dataclass(eq=False)
class Typist:
    """A tab typing markers `<a17>` in pieces of random length at random places of the shared cells."""

    name: str
    page: Page
    rng: random.Random
    board: Board
    link: Link
    cell_id: str | None = None
    pending: str = ""  # the rest of the marker being typed
    count: int = 0
    typed: dict[str, list[str]] = field(default_factory=dict)  # cell id -> the markers typed there

    def place(self, live: list[str]) -> None:
        """Put the caret somewhere in one of the `live` cells: a click on a line, or keys."""
        cell_id = self.rng.choice(live)
        editor = content(cell_by_id(self.page, cell_id))
        if self.rng.random() < 0.5:
            lines = editor.locator(".cm-line")
            line = lines.nth(self.rng.randrange(max(lines.count(), 1)))
            line.click(position={"x": self.rng.uniform(1, 240), "y": 4})
        else:
            editor.click()
            self.page.keyboard.press(self.rng.choice(["Control+Home", "Control+End"]))
            for _ in range(self.rng.randrange(3)):
                self.page.keyboard.press(self.rng.choice(["ArrowDown", "ArrowUp"]))
            self.page.keyboard.press(self.rng.choice(["Home", "End", "End"]))
            for _ in range(self.rng.randrange(4)):
                self.page.keyboard.press(self.rng.choice(["ArrowLeft", "ArrowRight"]))
        # Arrows at a cell's first or last line go on into the cell above or below: type where the caret
        # went when that is a typed cell, else click back into the chosen one.
        focused = self.page.evaluate(FOCUSED_CELL_JS)
        if focused not in live:
            editor.click()
            focused = cell_id
        self.cell_id = focused
        RECENT.append(f"{self.name} placed in {focused}")

    def step(self, live: list[str]) -> None:
        """Type the next piece of a marker (placing the caret first when a new one begins, every other
        time; else it goes on where the last one ended); what the server sent before is passed on after
        it."""
        before = len(self.link.held)
        if self.cell_id not in live:
            self.cell_id, self.pending = None, ""  # its cell was deleted, and the marker with it
        if not self.pending:
            if self.cell_id is None or self.rng.random() < 0.5:
                self.place(live)
            assert self.cell_id is not None
            self.count += 1
            marker = f"<{self.name}{self.count}>"
            self.typed.setdefault(self.cell_id, []).append(marker[1:-1])
            self.pending = ("\n" if self.rng.random() < 0.08 else "") + marker
        focused, length, selected = self.page.evaluate(FOCUSED_LENGTH_JS)
        assert not selected, f"tab {self.name} would type over a selection, {selected!r}; before: {list(RECENT)}"
        assert focused == self.cell_id, (f"tab {self.name} typing in {self.cell_id} lost its focus (now: {focused}); "
                                         f"before: {list(RECENT)}")
        size = self.rng.randint(1, len(self.pending))
        piece, self.pending = self.pending[:size], self.pending[size:]
        RECENT.append(f"{self.name} types {piece!r} in {self.cell_id}")
        self.board.pieces += 1
        self.board.concurrent += length < self.board.lengths[self.cell_id]
        self.board.lengths[self.cell_id] += len(piece.strip())
        self.page.keyboard.type(piece)
        self.link.release(before)


@dataclass(eq=False)
class Shuffler:
    """A tab inserting, moving and deleting cells with command-mode keys (never the typed cells, but for
    one delete of a cell being typed in)."""

    page: Page
    rng: random.Random
    typed: list[str]
    ops: Counter[str] = field(default_factory=Counter)

    def order(self) -> list[str]:
        return [cell_id for cell_id, _ in page_texts(self.page)]

    def select(self, cell_id: str) -> None:
        cell_by_id(self.page, cell_id).get_by_test_id("cell-prompt").click()
        expect(cell_by_id(self.page, cell_id)).to_have_class(re.compile(r"\bselected\b"))

    def step(self) -> None:
        order = self.order()
        others = [cell_id for cell_id in order if cell_id not in self.typed]
        choice = self.rng.random()
        target = self.rng.choice(others)
        RECENT.append(f"D {choice:.2f} on {target} of {order}")
        self.select(target)
        if choice < 0.4 or len(others) < 3:
            self.page.keyboard.press(self.rng.choice(["a", "b"]))
            expect(cells(self.page)).to_have_count(len(order) + 1)
            self.ops["insert"] += 1
        elif choice < 0.75:
            down = self.rng.random() < 0.5
            self.page.keyboard.press("Control+ArrowDown" if down else "Control+ArrowUp")
            index = order.index(target) + (1 if down else -1)
            if 0 <= index < len(order):  # else it is at that end already
                self.page.wait_for_function(
                    "([id, i]) => document.querySelectorAll('[data-testid=cell]')[i]?.dataset.cellId === id",
                    arg=[target, index])
            self.ops["move"] += 1
        else:
            self.delete(target)

    def delete(self, cell_id: str) -> None:
        count = len(self.order())
        self.select(cell_id)
        self.page.keyboard.press("d")
        self.page.keyboard.press("d")
        expect(cells(self.page)).to_have_count(count - 1)
        self.ops["delete"] += 1


def test_three_tabs_typing_in_the_same_cells_while_a_fourth_moves_cells_converge(
        server: Server, new_tab: NewTab) -> None:
    """The acceptance test: for CHAOS_SECONDS three tabs type markers into the same three cells while a
    fourth inserts, moves and deletes other cells, and once deletes a cell being typed in. In the end
    every tab and the file hold the same cells and texts, and every marker typed into a cell that still
    exists is there exactly once."""
    seed = int(os.environ.get("GHOSTBOOK_CHAOS_SEED") or time.time_ns() % 1_000_000)
    print(f"\nchaos seed {seed} (GHOSTBOOK_CHAOS_SEED={seed} repeats the choices)")
    rng = random.Random(seed)
    sources = ["#other0", "#typed1\n#second", "#other2", "#typed3", "#typed4\n#second\n#third", "#other5", "#other6"]
    write_notebook(server.root / "chaos.ipynb", [("code", source) for source in sources])
    typed_cells = ["cell1", "cell3", "cell4"]
    board = Board(Counter({f"cell{i}": len(source.replace("\n", "")) for i, source in enumerate(sources)}))
    url = server.url("/notebooks/chaos.ipynb")
    pages = [new_tab(None, name) for name in ("Ann", "Bob", "Cid", "Dee")]
    links = [Link(page) for page in pages[:3]]  # the typing tabs hear of each other's keys late
    for page in pages:
        open_notebook(page, url)
    for link in links:
        link.hold()
    typists = [Typist(name, page, random.Random(rng.random()), board, link)
               for name, page, link in zip("abc", pages[:3], links, strict=True)]
    shuffler = Shuffler(pages[3], random.Random(rng.random()), typed_cells)
    live = list(typed_cells)
    doomed = rng.choice(typed_cells)  # deleted while being typed in, after 60% of the time
    start = time.monotonic()
    next_at: dict[Typist | Shuffler, float] = {typist: start for typist in typists}
    next_at[shuffler] = start + rng.uniform(*STRUCTURE_EVERY)
    while time.monotonic() - start < CHAOS_SECONDS:
        actor = min(next_at, key=next_at.__getitem__)
        time.sleep(max(0.0, next_at[actor] - time.monotonic()))
        if isinstance(actor, Typist):
            actor.step(live)
            next_at[actor] = time.monotonic() + rng.uniform(0, PAUSE_MAX)
            continue
        if doomed in live and time.monotonic() - start > 0.6 * CHAOS_SECONDS:
            live.remove(doomed)
            shuffler.delete(doomed)
            for typist in typists:  # gone everywhere before the next key (else it would be a command)
                typist.link.flow()
                expect(cell_by_id(typist.page, doomed)).to_have_count(0)
                typist.link.hold()
        else:
            shuffler.step()
        next_at[shuffler] = time.monotonic() + rng.uniform(*STRUCTURE_EVERY)
    for typist in typists:  # the markers begun are finished
        while typist.pending:
            typist.step(live)
    for link in links:
        link.flow()

    final = wait_converged(pages, server, "chaos.ipynb")
    texts = dict(final)
    assert [cell_id for cell_id, _ in final] == shuffler.order()  # the typing tabs changed no structure
    assert doomed not in texts
    total = sum(typist.count for typist in typists)
    kept = nested = 0
    for cell_id in live:
        found = markers_in(texts[cell_id])
        expected = Counter(marker for typist in typists for marker in typist.typed.get(cell_id, []))
        assert found == expected, (f"seed {seed}, cell {cell_id}: missing {expected - found}, extra {found - expected}:"
                                   f" {texts[cell_id]!r}")
        kept += found.total()
        nested += found.total() - len(MARKER.findall(texts[cell_id]))
    counts = ", ".join(f"{typist.name}: {typist.count}" for typist in typists)
    print(f"chaos: {total} markers typed in {CHAOS_SECONDS:.0f} s ({counts}) "
          f"in {board.pieces} pieces, {board.concurrent} of them before another tab's earlier keys had arrived; "
          f"{kept} in the {len(live)} cells left, each once ({nested} of them typed inside another's), "
          f"{total - kept} in the deleted cell; structure: {dict(shuffler.ops)} (the typed cell's delete "
          f"included), {len(final)} cells at the end")
    for page in pages:
        assert page.js_errors == []  # type: ignore[attr-defined]


def test_alternating_keys_from_two_tabs_are_all_kept(server: Server, new_tab: NewTab) -> None:
    """Issue 41's finding: "a" from A and "b" from B in turn with no pause kept 13 of 20."""
    write_notebook(server.root / "ab.ipynb", [("code", "")])
    url = server.url("/notebooks/ab.ipynb")
    a, b = new_tab(url), new_tab(url)
    for page in (a, b):
        content(cells(page).nth(0)).click()
    for _ in range(20):
        a.keyboard.type("a")
        b.keyboard.type("b")
    [(_, text)] = wait_converged([a, b], server, "ab.ipynb")
    assert Counter(text) == Counter({"a": 20, "b": 20}), text


# The viewport point in the middle of the character at `offset` of a cell's first line.
CHAR_AT_JS = """([cellId, offset]) => {
  const line = document.querySelector(`[data-testid=cell][data-cell-id="${cellId}"] .cm-line`);
  const range = document.createRange();
  range.setStart(line.firstChild, offset);
  range.setEnd(line.firstChild, offset + 1);
  const box = range.getBoundingClientRect();
  return [box.left + 1, box.top + box.height / 2];
}"""


def test_a_click_while_another_tab_types_before_it_is_a_caret_not_a_selection(
        server: Server, new_tab: NewTab) -> None:
    """B types at the start of the line while A's mouse button is down further on: A's click still puts
    the caret where it landed in the text, and A's next key goes there. (On any move of the pointer,
    CodeMirror's click read its end from the pointer after B's text had moved the characters under it,
    so A selected B's new text and typed over it: the chaos test's lost markers.)"""
    write_notebook(server.root / "click.ipynb", [("code", "hello world")])
    url = server.url("/notebooks/click.ipynb")
    a, b = new_tab(url, "Ann"), new_tab(url, "Bob")
    x, y = a.evaluate(CHAR_AT_JS, ["cell0", 6])  # on the "w" of "world"
    a.mouse.move(x, y)
    a.mouse.down()
    content(cell_by_id(b, "cell0")).click()
    b.keyboard.press("Home")
    b.keyboard.type("XYZ ")
    expect(content(cell_by_id(a, "cell0"))).to_have_text("XYZ hello world")
    a.mouse.move(x + 1, y)  # a hand is never quite still (and Chromium sends a move when the layout shifts)
    a.mouse.up()
    assert a.evaluate("() => document.getSelection().toString()") == ""
    a.keyboard.type("!")
    assert dict(wait_converged([a, b], server, "click.ipynb"))["cell0"] == "XYZ hello !world"


def test_typing_goes_on_while_another_tab_reorders_cells(server: Server, new_tab: NewTab) -> None:
    """Another tab moving cells (even the one being typed in) never takes the editor's focus: the next
    keys still go into the cell, not to command mode (where "a" or "b" would insert a cell)."""
    write_notebook(server.root / "move.ipynb", [("code", "#zero"), ("code", "#one"), ("code", "#two")])
    url = server.url("/notebooks/move.ipynb")
    a, b = new_tab(url), new_tab(url)
    content(cell_by_id(a, "cell1")).click()
    a.keyboard.press("End")
    a.keyboard.type(" a")
    for moved, key, order in [("cell0", "Control+ArrowDown", ["cell1", "cell0", "cell2"]),  # a neighbour
                              ("cell1", "Control+ArrowDown", ["cell0", "cell1", "cell2"])]:  # the typed cell
        cell_by_id(b, moved).get_by_test_id("cell-prompt").click()
        b.keyboard.press(key)
        a.wait_for_function(ORDER_IS_JS, arg=",".join(order))
        assert a.evaluate(FOCUSED_CELL_JS) == "cell1"
        a.keyboard.type(" b")
    expect(cells(a)).to_have_count(3)
    assert dict(wait_converged([a, b], server, "move.ipynb"))["cell1"] == "#one a b b"


def test_a_tab_offline_and_another_both_type_in_one_cell_and_all_is_kept(server: Server, new_tab: NewTab) -> None:
    """Tab A loses the network (its socket drops) and types on; B types at the same place meanwhile; on
    reconnect both tabs and the file hold every keystroke of both."""
    write_notebook(server.root / "offline.ipynb", [("code", "start"), ("code", "other")])
    url = server.url("/notebooks/offline.ipynb")
    a, b = new_tab(None, "Ann"), new_tab(url, "Bob")
    link = Link(a)
    open_notebook(a, url)
    content(cell_by_id(a, "cell0")).click()
    a.keyboard.press("End")
    a.keyboard.type(" a1")
    expect(content(cell_by_id(b, "cell0"))).to_have_text("start a1")

    link.cut()
    a.keyboard.type(" a2")
    expect(a.get_by_test_id("offline-banner")).to_be_visible()
    content(cell_by_id(b, "cell0")).click()
    b.keyboard.press("End")
    b.keyboard.type(" b1")
    content(cell_by_id(b, "cell1")).click()
    b.keyboard.press("End")
    b.keyboard.type(" b2")
    a.keyboard.type(" a3")
    deadline = time.monotonic() + 10
    while saved_texts(server, "offline.ipynb") != [("cell0", "start a1 b1"), ("cell1", "other b2")]:
        assert time.monotonic() < deadline, saved_texts(server, "offline.ipynb")
        time.sleep(0.1)
    assert editor_text(cell_by_id(a, "cell0")) == "start a1 a2 a3"  # nothing arrives while offline
    assert editor_text(cell_by_id(b, "cell0")) == "start a1 b1"

    link.mend()
    a.get_by_test_id("reconnect-now").click()
    expect(a.get_by_test_id("offline-banner")).to_be_hidden()
    a.keyboard.type(" a4")  # the caret stayed where it was
    final = dict(wait_converged([a, b], server, "offline.ipynb"))
    assert final["cell0"] in ("start a1 a2 a3 a4 b1", "start a1 b1 a2 a3 a4"), final
    assert final["cell1"] == "other b2"


def test_undo_takes_back_only_this_tabs_typing(server: Server, new_tab: NewTab) -> None:
    """A types, B types in the same cell (on the same line, right after A's), A presses Ctrl+Z: A's
    typing goes, B's stays, in both tabs and on disk; Ctrl+Shift+Z brings A's back. B's Ctrl+Z then
    takes back B's only."""
    write_notebook(server.root / "undo.ipynb", [("code", "x = 1")])
    url = server.url("/notebooks/undo.ipynb")
    a, b = new_tab(url, "Ann"), new_tab(url, "Bob")
    cell_a, cell_b = cell_by_id(a, "cell0"), cell_by_id(b, "cell0")
    content(cell_a).click()
    a.keyboard.press("End")
    a.keyboard.type(" + 20")
    expect(content(cell_b)).to_have_text("x = 1 + 20")
    content(cell_b).click()
    b.keyboard.press("End")
    b.keyboard.type(" + 300")
    expect(content(cell_a)).to_have_text("x = 1 + 20 + 300")

    a.keyboard.press("Control+z")
    for cell in (cell_a, cell_b):
        expect(content(cell)).to_have_text("x = 1 + 300")
    assert dict(wait_converged([a, b], server, "undo.ipynb"))["cell0"] == "x = 1 + 300"
    a.keyboard.press("Control+Shift+Z")  # (a capital Z, as a real keyboard's Shift gives)
    for cell in (cell_a, cell_b):
        expect(content(cell)).to_have_text("x = 1 + 20 + 300")
    b.keyboard.press("Control+z")
    for cell in (cell_a, cell_b):
        expect(content(cell)).to_have_text("x = 1 + 20")
    assert dict(wait_converged([a, b], server, "undo.ipynb"))["cell0"] == "x = 1 + 20"


def bound_editors(page: Page) -> Locator:
    """The editors bound to their shared texts (collab/lazy-binding.ts marks them)."""
    return page.locator("[data-testid=cell-editor] .cm-editor[data-shared=bound]")


def test_an_editor_binds_to_its_shared_text_only_when_used(server: Server, new_tab: NewTab) -> None:
    """Opening binds no editor (so 500 cells open no slower than before the CRDT); a cell binds when this
    tab focuses or changes it, or another tab's cursor is in it. Unbound, it still shows the others'
    typing and sends its own changes, and Ctrl+Z in it takes back a change made before it was bound."""
    write_notebook(server.root / "lazy.ipynb", [("code", f"x{i} = {i}") for i in range(12)])
    url = server.url("/notebooks/lazy.ipynb")
    a, b = new_tab(url, "Ann"), new_tab(url, "Bob")
    for page in (a, b):
        expect(cells(page)).to_have_count(12)
        expect(bound_editors(page)).to_have_count(0)

    content(cell_by_id(a, "cell3")).click()  # focus binds A's editor
    expect(bound_editors(a)).to_have_count(1)
    a.keyboard.press("End")
    a.keyboard.type(" + 1")
    expect(content(cell_by_id(b, "cell3"))).to_have_text("x3 = 3 + 1")  # B's, unbound, follows
    expect(remote_caret(cell_by_id(b, "cell3"), "Ann")).to_have_count(1)  # A's cursor there binds it
    expect(bound_editors(b)).to_have_count(1)
    assert cell_by_id(b, "cell3").locator(".cm-editor").get_attribute("data-shared") == "bound"

    b.keyboard.press("Control+h")  # B replaces in a cell it never touched: unbound, the change goes out
    b.get_by_test_id("search-input").fill("x7 = 7")
    b.get_by_test_id("replace-input").fill("y7 = 70")
    b.get_by_test_id("replace-one").click()
    expect(content(cell_by_id(a, "cell7"))).to_have_text("y7 = 70")
    assert dict(wait_converged([a, b], server, "lazy.ipynb"))["cell7"] == "y7 = 70"

    b.keyboard.press("Escape")
    content(cell_by_id(b, "cell7")).click()
    b.keyboard.press("Control+z")  # the replace, made before the editor was bound, is its first step
    for page in (a, b):
        expect(content(cell_by_id(page, "cell7"))).to_have_text("x7 = 7")
    texts = dict(wait_converged([a, b], server, "lazy.ipynb"))
    assert texts["cell7"] == "x7 = 7" and texts["cell3"] == "x3 = 3 + 1"
    assert a.js_errors == [] and b.js_errors == []  # type: ignore[attr-defined]


def avatar(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid=presence-avatar][title="{name}"]')


def remote_caret(cell: Locator, name: str) -> Locator:
    return cell.locator(f'.remote-caret[data-name="{name}"]')


# The text of the line before and after a caret widget.
CARET_AT_JS = """(caret) => {
  const line = caret.closest('.cm-line');
  const range = document.createRange();
  range.selectNodeContents(line);
  range.setEndBefore(caret);
  const before = range.toString();
  return [before, line.textContent.slice(before.length)];
}"""


# A caret's name label: its text colour, opacity and top edge relative to the caret.
CARET_LABEL_JS = """(caret) => {
  const style = getComputedStyle(caret, '::after');
  return { ink: style.color, opacity: Number(style.opacity), top: parseFloat(style.top) };
}"""


# The carets' names fade out (collab.css): to the end of it at once.
FINISH_NAME_FADE_JS = """() => document.getAnimations()
  .filter((animation) => animation.animationName === 'remote-caret-name').forEach((animation) => animation.finish())"""


def shot(page: Page, name: str) -> None:
    """A screenshot into `$GHOSTBOOK_E2E_SHOTS`, if set (to look at what the user sees)."""
    folder = os.environ.get("GHOSTBOOK_E2E_SHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, name))


def test_presence_shows_where_the_others_are_and_goes_when_they_leave(server: Server, new_tab: NewTab) -> None:
    """B sees A's caret (with A's name) in the cell A types in, a chip beside that cell and A's avatar in
    the toolbar; they follow A to another cell, and go at once when A's tab closes."""
    write_notebook(server.root / "presence.ipynb", [("code", "import math"), ("code", "r = 2\narea = math.pi * r")])
    url = server.url("/notebooks/presence.ipynb")
    a, b = new_tab(url, "Ada Lovelace"), new_tab(url, "Grace Hopper")
    expect(b.get_by_test_id("presence-avatar").first).to_have_attribute("title", "You (Grace Hopper)")
    content(cell_by_id(a, "cell1")).click()
    a.keyboard.press("Control+End")
    a.keyboard.type(" ** 2")

    cell = cell_by_id(b, "cell1")
    expect(content(cell)).to_have_text("r = 2area = math.pi * r ** 2")
    expect(remote_caret(cell, "Ada Lovelace")).to_have_count(1)
    assert remote_caret(cell, "Ada Lovelace").evaluate(CARET_AT_JS) == ["area = math.pi * r ** 2", ""]  # after A's
    chip = cell.get_by_test_id("presence-chip")
    expect(chip).to_have_text("AL")
    expect(chip).to_have_attribute("title", "Ada Lovelace is here")
    expect(avatar(b, "Ada Lovelace")).to_have_text("AL")
    expect(avatar(a, "Grace Hopper")).to_have_count(1)  # and the other way round
    expect(cell_by_id(b, "cell0").get_by_test_id("presence-chip")).to_have_count(0)
    shot(b, "collab-presence-b.png")

    content(cell_by_id(a, "cell0")).click()  # A goes to the first cell: the chip and caret follow
    expect(cell_by_id(b, "cell0").get_by_test_id("presence-chip")).to_have_text("AL")
    expect(chip).to_have_count(0)
    expect(remote_caret(cell_by_id(b, "cell0"), "Ada Lovelace")).to_have_count(1)
    expect(remote_caret(cell, "Ada Lovelace")).to_have_count(0)

    avatar(b, "Ada Lovelace").click()  # goes to A's cell
    expect(cell_by_id(b, "cell0")).to_have_class(re.compile(r"\bselected\b"))

    a.close()  # presence_left: gone at once, not after awareness' 30 s timeout
    for gone in (b.locator(".remote-caret"), b.get_by_test_id("presence-chip"), avatar(b, "Ada Lovelace")):
        expect(gone).to_have_count(0, timeout=3000)
    expect(b.get_by_test_id("presence")).to_be_hidden()  # alone: no avatars at all
    assert b.js_errors == []  # type: ignore[attr-defined]


def test_your_name_setting_is_what_the_others_see(server: Server, new_tab: NewTab) -> None:
    write_notebook(server.root / "names.ipynb", [("code", "x = 1")])
    url = server.url("/notebooks/names.ipynb")
    a, b = new_tab(url, "Ada Lovelace"), new_tab(url)
    content(cell_by_id(a, "cell0")).click()
    a.keyboard.press("End")
    expect(avatar(b, "Ada Lovelace")).to_have_count(1)
    generated = b.get_by_test_id("presence-avatar").first.get_attribute("title") or ""
    assert re.fullmatch(r"You \(Anonymous \w+\)", generated), generated  # no name set: a moon's

    a.get_by_test_id("open-settings").click()
    field = a.get_by_test_id("setting-user-name")
    expect(field).to_have_value("Ada Lovelace")
    hint = "shown to others editing the same notebook (this browser)"
    expect(a.get_by_test_id("settings-panel")).to_contain_text(hint)
    field.fill("Ada King")
    expect(avatar(b, "Ada King")).to_have_text("AK")  # at once, before the field is left
    expect(avatar(b, "Ada Lovelace")).to_have_count(0)
    expect(remote_caret(cell_by_id(b, "cell0"), "Ada King")).to_have_count(1)
    expect(cell_by_id(b, "cell0").get_by_test_id("presence-chip")).to_have_attribute("title", "Ada King is here")
    expect(a.get_by_test_id("presence-avatar").first).to_have_attribute("title", "You (Ada King)")

    a.reload()  # kept in this browser
    expect(a.get_by_test_id("notebook")).to_have_attribute("data-loaded", "true")
    expect(avatar(b, "Ada King")).to_have_count(1)
    a.get_by_test_id("open-settings").click()
    expect(field).to_have_value("Ada King")
    field.fill("")
    field.press("Tab")  # left empty: a generated name again
    expect(field).to_have_value(re.compile(r"^Anonymous \w+$"))
    expect(avatar(b, field.input_value())).to_have_count(1)


SIDE_BY_SIDE = """([left, right]) => {
  document.body.style.cssText = 'margin:0;display:flex;gap:6px;background:#888';
  for (const src of [left, right]) {
    const img = document.createElement('img');
    img.src = 'data:image/png;base64,' + src;
    document.body.append(img);
  }
  return Promise.all([...document.images].map((img) => img.decode()));
}"""


def test_presence_in_light_and_dark(server: Server, new_tab: NewTab, browser: Browser) -> None:
    """Two tabs typing in one cell, each showing the other's caret, chip and avatar, in the Light and the
    Dark theme (screenshots side by side: collab-light.png, collab-dark.png). The names are in the
    person's ink on their colour, the avatars' ring is the page's background; a caret's name shows while
    its person types, then fades (it would hide the line above), and on a cell's first line it goes
    below the caret (above, the editor's edge would cut it)."""
    write_notebook(server.root / "look.ipynb", [
        ("markdown", "# Shared notebook"), ("code", "import math\n\ndef area(r):\n    return math.pi * r ** 2"),
        ("code", "print(area(2))")])
    url = server.url("/notebooks/look.ipynb")
    a, b = new_tab(url, "Ada Lovelace"), new_tab(url, "Grace Hopper")
    timelines = []
    for page in (a, b):
        page.set_viewport_size({"width": 760, "height": 420})
        timeline = page.context.new_cdp_session(page)  # animations stand still until the check of the fade
        timeline.send("Animation.enable")
        timeline.send("Animation.setPlaybackRate", {"playbackRate": 0})
        timelines.append(timeline)
    for theme in ("light", "dark"):
        for page in (a, b):
            if page.locator("html").get_attribute("data-theme") != theme:
                page.get_by_test_id("open-settings").click()
                page.get_by_test_id("setting-theme").select_option(theme)
                page.get_by_test_id("close-settings").click()
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
        # A at the end of the cell, B in its first line: each types, the other's name shows
        content(cell_by_id(a, "cell1")).click()
        a.keyboard.press("Control+End")
        a.keyboard.type(f"  # {theme}")
        content(cell_by_id(b, "cell1")).click()
        b.keyboard.press("Control+Home")
        b.keyboard.press("End")
        b.keyboard.type(f", cmath  # {theme}")
        for page, other in ((a, "Grace Hopper"), (b, "Ada Lovelace")):
            cell = cell_by_id(page, "cell1")
            expect(remote_caret(cell, other)).to_have_count(1)
            expect(cell.get_by_test_id("presence-chip")).to_have_count(1)
            expect(avatar(page, other)).to_have_count(1)
        expect(content(cell_by_id(a, "cell1"))).to_contain_text(f"cmath  # {theme}")
        expect(content(cell_by_id(b, "cell1"))).to_have_text(re.compile(f"# {theme}$"))
        folder = os.environ.get("GHOSTBOOK_E2E_SHOTS")
        if folder:
            shots = [base64.b64encode(page.screenshot()).decode() for page in (a, b)]
            sheet = browser.new_page(viewport={"width": 2 * 760 + 6, "height": 420})
            sheet.evaluate(SIDE_BY_SIDE, shots)
            sheet.screenshot(path=os.path.join(folder, f"collab-{theme}.png"))
            sheet.close()
        background = b.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in avatar(b, "Ada Lovelace").evaluate("(e) => getComputedStyle(e).boxShadow")
        for page, other, place in ((a, "Grace Hopper", "below"), (b, "Ada Lovelace", "above")):
            label = remote_caret(cell_by_id(page, "cell1"), other).evaluate(CARET_LABEL_JS)
            assert label["ink"] == "rgb(255, 255, 255)" and label["opacity"] > 0.9, label  # while they type
            assert (label["top"] > 0) == (place == "below"), (place, label)
    for page, timeline, other in ((a, timelines[0], "Grace Hopper"), (b, timelines[1], "Ada Lovelace")):
        timeline.send("Animation.setPlaybackRate", {"playbackRate": 1})
        page.evaluate(FINISH_NAME_FADE_JS)
        label = remote_caret(cell_by_id(page, "cell1"), other).evaluate(CARET_LABEL_JS)
        assert label["opacity"] == 0, label  # then faded: the line above shows again
    assert a.js_errors == [] and b.js_errors == []  # type: ignore[attr-defined]
