"""Suggestion cache: exact hits (LRU) and typed-through reuse.

Typed-through: the user typed the first characters of the suggestion shown, so the new prefix is the
old prefix plus the start of the old suggestion (and the suffix is unchanged). The rest of the old
suggestion is the answer; no model call.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Hit:
    text: str
    source: Literal["cache", "typed_through"]
    confidence: float = 1.0  # the suggestion's when it was made (`completion.confidence`)


class SuggestionCache:
    def __init__(self, size: int = 128) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, str], tuple[str, float]] = OrderedDict()

    def put(self, prefix: str, suffix: str, text: str, confidence: float = 1.0) -> None:
        """Remember the final suggestion for (prefix, suffix) with its confidence; empty ones too
        ("nothing here")."""
        key = (prefix, suffix)
        self._entries[key] = (text, confidence)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def get(self, prefix: str, suffix: str) -> Hit | None:
        """An exact hit, else the newest entry this request types through, else None."""
        key = (prefix, suffix)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            return Hit(entry[0], "cache", entry[1])
        for (old_prefix, old_suffix), (old_text, _) in reversed(self._entries.items()):
            if old_suffix != suffix or len(prefix) <= len(old_prefix) or not prefix.startswith(old_prefix):
                continue
            typed = prefix[len(old_prefix):]
            if old_text.startswith(typed) and len(old_text) > len(typed):
                rest = old_text[len(typed):]
                self.put(prefix, suffix, rest)  # the user typed what it foresaw: the rest shows
                return Hit(rest, "typed_through")
        return None

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
