"""`ghostbook eval edits`: Edit with AI judged by running the code (issue 28).

Each task is cut from a real notebook: the cells before it (run first, in a real kernel), the cell, an
instruction and an executable check. The proposal comes through the editor's own path
(`ghostbook.editing.engine`), runs in the kernel, and the check decides.
"""
