"""The cells' texts as one pycrdt document (`collab.shared_text`): tabs' concurrent updates merge with
nothing lost, the session's changes are the smallest splices, and bad updates change nothing. The
tabs here are pycrdt documents too (the same update format Yjs speaks)."""

from __future__ import annotations

import random
import string

import pytest
from ghostbook.collab.shared_text import SOURCES, SharedText, UpdateError
from pycrdt import Doc, Map, Text


class Tab:
    """A tab's copy of the document: edits made here become updates for the server."""

    def __init__(self, server: SharedText) -> None:
        self.doc: Doc = Doc()
        self.doc.apply_update(server.state())

    def text(self, cell_id: str) -> Text:
        value = self.doc.get(SOURCES, type=Map)[cell_id]
        assert isinstance(value, Text)
        return value

    def edit(self, cell_id: str, at: int, insert: str) -> bytes:
        before = self.doc.get_state()
        self.text(cell_id).insert(at, insert)
        return self.doc.get_update(before)


def test_concurrent_typing_in_one_cell_keeps_every_keystroke() -> None:
    server = SharedText([("a", "start")])
    one, two = Tab(server), Tab(server)
    rng = random.Random(7)
    keys = string.ascii_letters[:40]  # one unique key each: any place may split no other
    updates: list[tuple[Tab, bytes]] = []
    for i, key in enumerate(keys):  # both type before hearing of the other's keys
        tab = one if i % 2 == 0 else two
        updates.append((tab, tab.edit("a", rng.randrange(len(str(tab.text("a"))) + 1), key)))
    for _, update in updates:
        server.apply(update)
    for tab in (one, two):  # each hears of the other's
        for origin, update in updates:
            if origin is not tab:
                tab.doc.apply_update(update)
    final = server.text("a")
    assert final is not None
    assert str(one.text("a")) == str(two.text("a")) == final
    assert sorted(final) == sorted("start" + keys)


def test_an_operation_is_a_splice_so_typing_at_the_same_moment_survives() -> None:
    server = SharedText([("a", "héllo 😀 world"), ("b", "x")])
    tab = Tab(server)
    typed = tab.edit("a", len("héllo ".encode()), "big ")  # pycrdt counts UTF-8 bytes
    update = server.reconcile([("a", "héllo 😀 there"), ("b", "x"), ("c", "new cell")])  # e.g. set_source
    assert update is not None
    changes = server.apply(typed)
    assert [(c.cell_id, c.before, c.after) for c in changes] == [("a", "héllo 😀 there", "héllo big 😀 there")]
    tab.doc.apply_update(update)
    assert str(tab.text("a")) == server.text("a") == "héllo big 😀 there"
    assert str(tab.text("c")) == "new cell"


def test_reconcile_removes_deleted_cells_and_sends_nothing_when_equal() -> None:
    server = SharedText([("a", "1"), ("b", "2")])
    assert server.reconcile([("a", "1"), ("b", "2")]) is None
    update = server.reconcile([("b", "2")])
    tab: Doc = Doc()
    tab.apply_update(server.state())
    assert update is not None and list(tab.get(SOURCES, type=Map).keys()) == ["b"]
    assert server.text("a") is None


def test_a_malformed_update_is_refused_and_changes_nothing() -> None:
    server = SharedText([("a", "keep")])
    state = server.state()
    with pytest.raises(UpdateError):
        server.apply(b"\x01\x02garbage")
    assert server.text("a") == "keep" and server.state() == state


def test_entries_only_the_server_may_make_are_taken_out() -> None:
    server = SharedText([("a", "x")])
    tab: Doc = Doc()
    tab.apply_update(server.state())
    before = tab.get_state()
    tab.get(SOURCES, type=Map)["intruder"] = Text("not a cell")
    assert server.apply(tab.get_update(before)) == []
    assert server.foreign
    update = server.reconcile([("a", "x")])
    assert update is not None and not server.foreign
    tab.apply_update(update)
    assert list(tab.get(SOURCES, type=Map).keys()) == ["a"]


def test_a_text_a_tab_removed_comes_back_though_the_cells_did_not_change() -> None:
    server = SharedText([("a", "x"), ("b", "y")])
    tab: Doc = Doc()
    tab.apply_update(server.state())
    before = tab.get_state()
    del tab.get(SOURCES, type=Map)["b"]
    server.apply(tab.get_update(before))
    assert server.foreign  # so reconcile looks at the document, not only at its mirror
    update = server.reconcile([("a", "x"), ("b", "y")])
    assert update is not None
    tab.apply_update(update)
    assert str(tab.get(SOURCES, type=Map)["b"]) == "y"
    assert server.reconcile([("a", "x"), ("b", "y")]) is None
