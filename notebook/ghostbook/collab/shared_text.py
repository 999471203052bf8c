"""The cells' texts as one pycrdt document: a map "sources" from cell id to Text.

Tabs edit the texts through Yjs (y-codemirror.next) and send the updates; the server merges each into
this document, so concurrent typing anywhere converges with nothing lost. The session changes texts
through operations (set_source, replace, merge, split, insert, delete); `reconcile` then makes the
document match, each change the smallest splice of the old text, so typing elsewhere in the same cell
at the same moment survives it. Only the server adds or removes cells' texts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pycrdt import Doc, Map, Text, TextEvent

SOURCES = "sources"  # the root map's name; the frontend reads the same (frontend/src/collab/)


class UpdateError(ValueError):
    """A client's update could not be applied (malformed bytes); nothing was changed."""


@dataclass(frozen=True)
class TextChange:
    """One cell's text before and after a client's update."""

    cell_id: str
    before: str
    after: str


class SharedText:
    """The document and a mirror of its texts (`text(cell_id)` without reading the CRDT)."""

    def __init__(self, cells: Iterable[tuple[str, str]]) -> None:
        self.doc: Doc = Doc()
        self._sources = self.doc.get(SOURCES, type=Map)
        self._mirror: dict[str, str] = {}
        with self.doc.transaction():
            for cell_id, source in cells:
                self._sources[cell_id] = Text(source)
                self._mirror[cell_id] = source
        self._touched: set[str] = set()
        self.foreign = False  # an update added or replaced entries: `reconcile` is due
        self._sources.observe_deep(self._on_change)

    @property
    def guid(self) -> str:
        """The document's identity: a tab holding another document (the server restarted) starts afresh."""
        return str(self.doc.guid)

    def state(self) -> bytes:
        """The whole document as one update (a snapshot's)."""
        return self.doc.get_update()

    def text(self, cell_id: str) -> str | None:
        return self._mirror.get(cell_id)

    def apply(self, update: bytes) -> list[TextChange]:
        """Merge a client's update; the cells whose text it changed. Entries a client may not make (a
        cell the server does not have, a value that is not text) are left to `reconcile` to undo."""
        self._touched = set()
        try:
            self.doc.apply_update(update)
        except Exception as exc:  # pycrdt raises plain exceptions for undecodable bytes
            raise UpdateError(f"the text update could not be applied: {exc}") from None
        changes = []
        for cell_id in sorted(self._touched):
            value = self._sources.get(cell_id) if cell_id in self._mirror else None
            if not isinstance(value, Text):
                self.foreign = True  # made by a client: `reconcile` takes it out again
                self._mirror.pop(cell_id, None)  # a cell's text removed or replaced: `reconcile` writes it anew
                continue
            before, after = self._mirror[cell_id], str(value)
            if before != after:
                self._mirror[cell_id] = after
                changes.append(TextChange(cell_id, before, after))
        return changes

    def reconcile(self, cells: Iterable[tuple[str, str]]) -> bytes | None:
        """Make the document hold exactly `cells` (id, text), in the smallest changes; the update that
        did it (for every tab), or None when nothing differed."""
        wanted = dict(cells)
        if not self.foreign and self._mirror.keys() == wanted.keys() and all(
                _same(self._mirror[cell_id], source) for cell_id, source in wanted.items()):
            return None  # the document holds these texts (its keys are the mirror's while nothing is foreign)
        stale = [key for key in self._sources.keys() if key not in wanted or not isinstance(self._sources[key], Text)]
        edits = [(cell_id, source) for cell_id, source in wanted.items()
                 if cell_id in stale or not _same(self._mirror.get(cell_id), source)]
        self.foreign = False
        if not stale and not edits:
            return None
        before = self.doc.get_state()
        with self.doc.transaction():
            for key in stale:
                del self._sources[key]
                self._mirror.pop(key, None)
            for cell_id, source in edits:
                current = self._sources.get(cell_id) if cell_id in self._mirror else None
                if isinstance(current, Text):
                    _splice(current, self._mirror[cell_id], source)
                else:
                    self._sources[cell_id] = Text(source)
                self._mirror[cell_id] = source
        for key in list(self._mirror):
            if key not in wanted:
                del self._mirror[key]
        return self.doc.get_update(before)

    def _on_change(self, events: list[object]) -> None:
        for event in events:
            path = getattr(event, "path", None)
            if isinstance(event, TextEvent) and path:
                self._touched.add(str(path[0]))
            elif not path:  # the map itself: keys added or removed
                keys = getattr(event, "keys", None) or {}
                self._touched.update(str(key) for key in keys)


def _same(known: str | None, source: str) -> bool:
    return known is not None and (known is source or known == source)


def _splice(text: Text, old: str, new: str) -> None:
    """Change `text` from `old` to `new` by deleting and inserting only the differing middle (pycrdt
    counts UTF-8 bytes)."""
    start, end_old, end_new = 0, len(old), len(new)
    limit = min(end_old, end_new)
    while start < limit and old[start] == new[start]:
        start += 1
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    at = len(old[:start].encode("utf-8"))
    removed = len(old[start:end_old].encode("utf-8"))
    if removed:
        del text[at:at + removed]
    if end_new > start:
        text.insert(at, new[start:end_new])
