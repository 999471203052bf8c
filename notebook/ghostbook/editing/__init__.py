"""Edit with AI (DESIGN §3b): an instruction rewrites a cell or its selected lines.

`prompt` builds the chat messages (the cell, the notebook's other cells within a token budget, the
kernel's live state, the error's traceback, the instruction) and the draft answer of the speculative
edits; `render` turns the streamed chat answer into the new text (its code block, elisions resolved
against the original); `fixes` proposes the offline fixes the notebook itself can prove (a missing
import, a misspelt name, attribute or column), with no model; `errors_text` reads error outputs.
"""
