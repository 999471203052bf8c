"""What a streaming suggestion may show: only text that no rule can still take back.

A suggestion once drawn stays until the user types past it or dismisses it, so streaming shows a text
only when the final filters (`filters.FINAL`: garbage, syntax, line rules) pass it as a whole
suggestion, and only at a line's end: the first line when it is complete, then each further line. The
final text extends what was shown, or is what was shown where the rules cut the rest (what was shown
passed them on its own). A first line that no text after it can save (a copy of a nearby line: the
rules of `SuggestionRules.spoiled`) ends the suggestion there, empty, so the model stops at once and a
forced request's second search starts sooner.
"""

from __future__ import annotations

from dataclasses import replace

from ghostbook.completion import filters


class StableText:
    """The shown text of one streaming suggestion in the cursor's cell (`prefix` | `suffix`; `above`:
    the notebook's text above the cursor's line, `filters.FilterContext`)."""

    def __init__(self, prefix: str, suffix: str, above: str = "") -> None:
        self.context = filters.FilterContext(prefix, suffix, above=above)
        self.shown = ""
        self.final: str | None = None  # set once a stopper cut the text, or its first line is spoiled:
        # generation can stop
        self._lines = 0  # complete lines of the raw text so far

    def update(self, raw: str) -> str | None:
        """Feed the whole generated text so far; a longer text to show now, or None."""
        lines, self._lines = self._lines, raw.count("\n")
        if not self.shown and self._lines > lines and filters.spoiled(raw, self.context):
            self.final = ""  # its first line is dropped whatever follows: the model may stop
            return None
        streaming = replace(self.context, final=False)
        if self._lines == lines and not filters.stops(raw, streaming)[1]:
            return None  # no line completed and nothing to stop: nothing new may show (the cleaners wait)
        text, stopped = filters.run(raw, streaming)
        if stopped:  # the stopper's cut ran the final filters too
            self.final = text if text.startswith(self.shown) else self.shown
            return self._extend(self.final)
        end = text.rfind("\n")
        if end <= 0:
            return None  # the first line is still open
        final = self.context
        whole, _ = filters.run(text[:end], final)
        if not self.shown and not whole and filters.ends_statement(raw.split("\n", 1)[0], final):
            self.final = ""  # a whole statement the rules drop: the lines after it cannot save it
            return None
        return self._extend(whole)

    def finish(self, raw: str, truncated: bool) -> str:
        """The final text once generation ended (`truncated`: at the token limit)."""
        if self.final is not None:
            return self.final
        text, _ = filters.run(raw, replace(self.context, truncated=truncated))
        return text if text.startswith(self.shown) else self.shown

    def _extend(self, text: str) -> str | None:
        if len(text) > len(self.shown) and text.startswith(self.shown):
            self.shown = text
            return text
        return None
