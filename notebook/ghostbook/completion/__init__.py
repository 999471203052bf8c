"""Ghost-text completion: gate → context → prompt → cache → backend stream → filters (DESIGN §3).

Wire flow (messages in ghostbook/protocol.py; one `CompletionService` per session, created at the
first of these messages; the model is shared by the whole server, see models/loader.py):

    client: set_source (the server reads text from its own document, so send edits first)
    client: suggest {ref, cell_id, cursor, trigger: auto|forced}
    server: suggestion {ref, cell_id, cursor, text, done: false, source: "model"}   (0..n, text so far)
    server: suggestion {ref, ..., text, done: true, source: model|cache|typed_through}
    server: completion_stats {stats}                                                 (after each done)

- A newer `suggest` from the same tab cancels the older one: nothing more is sent for the old ref.
  `suggest_cancel {ref}` stops it too (Esc, cursor moved). The client still drops replies whose ref
  is not its latest.
- An empty `text` with done=true means "nothing to suggest" (skipped by the gate, or filtered out).
- typed-through: if the user typed the first characters of the last suggestion and a request is sent
  anyway, the rest comes back at once as one done message with source "typed_through" (no model call).
  The editor should rather consume matching keystrokes itself and send nothing.
- `suggestion_error {ref, message}`: completion is off, the model failed to load (missing or corrupt
  file, default not built), or the request failed. The notebook is unaffected.
- `suggest_feedback {ref, event: shown|accepted|partial|dismissed, latency_ms, kind, accept}` feeds the
  stats (partial counts as accepted; latency_ms = end of debounce → ghost text visible) and the user's own
  statistics on disk (`telemetry`): `get_telemetry {days, kind, model}` answers `telemetry {ref, days, ...}`,
  `reset_telemetry` forgets them all.
- `get_settings` / `update_settings {settings: {...}}` answer `settings {ref, settings, model}`;
  a bad value answers `error {ref, message}`. `model_status {model}` is broadcast to every tab of a
  session whenever the model's state changes (downloading → loading → ready | error, or off when
  disabled; downloading and loading carry progress).
- `get_catalogue` answers `catalogue {ref, models, free_ram_mb, models_dir}`; `cancel_download` stops
  the download in progress (its status becomes an error saying so).
"""
