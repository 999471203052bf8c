"""Ask the notebook (DESIGN §3b): a side panel where the user asks about the notebook, a cell, an error or
the data, and the edit model answers in Markdown.

`conversation` keeps the notebook's turns (server memory, never the file); `prompt` builds the chat messages
(the cells within the budget, the kernel's names, the selected cells and their errors, earlier turns);
`models` streams a free answer from the edit model; `answering` writes one answer (prompt, stream, its end
at a repeat); `plan` reads the changes it proposes and `accept` turns them into `apply_cell_changes`;
`service` answers the tabs' messages.
"""
