"""Notebook sessions: the single source of truth for an open notebook.

`data` is the state and its reducer (no I/O), `outputs` the per-cell output log with caps,
`runtime` performs the reducer's actions (kernel, saving, broadcasting), `manager` keeps one
session per open notebook.
"""
