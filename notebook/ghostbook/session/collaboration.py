"""The session's side of real-time collaboration: cell texts as one CRDT (`collab.shared_text`) and
presence, passed between the tabs of one notebook.

The session's reducer still owns `Cell.source` for everything else (running, completion, saving);
this keeps it equal to the shared texts both ways: a tab's update changes the cells' sources, and an
operation that changes sources (or cells) is reconciled into the document and sent to every tab.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence

from ghostbook import protocol as p
from ghostbook.collab.shared_text import SharedText, TextChange, UpdateError
from ghostbook.session.state import Cell

Broadcast = Callable[..., None]  # (message, key=None, skip=None)


class Collaboration:
    def __init__(self, cells: Sequence[Cell], broadcast: Broadcast) -> None:
        self.text = SharedText((cell.id, cell.source) for cell in cells)
        self._broadcast = broadcast
        self._presence: dict[str, tuple[int, str]] = {}  # client id -> (its Yjs client id, last awareness update)

    def reset(self, cells: Sequence[Cell]) -> None:
        """The notebook was replaced as a whole (Revert): a new document, which the tabs take as the
        truth (their snapshot says `reloaded`); presence carries over."""
        self.text = SharedText((cell.id, cell.source) for cell in cells)

    def snapshot(self, binary: bool = False) -> tuple[p.SharedTexts, bytes | None]:
        """The shared texts for a snapshot: the document's id and its whole state, in base64; with `binary`,
        `update` is null and the state is returned as bytes, for the frame that follows the snapshot."""
        state = self.text.state()
        if binary:
            return p.SharedTexts.model_construct(guid=self.text.guid, update=None), state
        return p.SharedTexts.model_construct(guid=self.text.guid, update=base64.b64encode(state).decode("ascii")), None

    def presence_messages(self, client_id: str) -> list[p.PresenceUpdated]:
        """The other tabs' presence, for a tab that just connected."""
        return [p.PresenceUpdated.model_construct(update=update) for other, (_, update) in self._presence.items()
                if other != client_id]

    def text_update(self, client_id: str, message: p.TextUpdate,
                    cells: Callable[[str], Cell | None]) -> list[TextChange]:
        """Merge a tab's typing (UpdateError if malformed), set the cells' sources, and pass it on."""
        try:
            update = base64.b64decode(message.update, validate=True)
        except binascii.Error as exc:
            raise UpdateError(f"the text update is not base64: {exc}") from None
        changes = self.text.apply(update)
        for change in changes:
            cell = cells(change.cell_id)
            if cell is not None:
                cell.source = change.after
        self._broadcast(p.TextUpdated.model_construct(update=message.update, origin=client_id), skip=client_id)
        return changes

    @property
    def needs_sync(self) -> bool:
        """A tab's update made entries only the server may make (`sync` takes them out)."""
        return self.text.foreign

    def sync(self, cells: Sequence[Cell]) -> None:
        """After an operation: the shared texts become the cells' (the smallest change), sent to every tab."""
        update = self.text.reconcile((cell.id, cell.source) for cell in cells)
        if update is not None:
            self._broadcast(p.TextUpdated.model_construct(update=base64.b64encode(update).decode("ascii"),
                                                           origin=None))

    def presence(self, client_id: str, message: p.Presence) -> None:
        self._presence[client_id] = (message.y_client, message.update)
        self._broadcast(p.PresenceUpdated.model_construct(update=message.update), skip=client_id)

    def left(self, client_id: str) -> None:
        """A tab closed: the others drop its cursor and name at once (not after awareness' timeout)."""
        gone = self._presence.pop(client_id, None)
        if gone is not None:
            self._broadcast(p.PresenceLeft.model_construct(y_client=gone[0]))
