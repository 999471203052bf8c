"""Completion settings, persisted per user as JSON under $XDG_CONFIG_HOME/ghostbook/settings.json."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from ghostbook.models import specs
from ghostbook.models.templates import TEMPLATES

log = logging.getLogger(__name__)

DebounceMode = Literal["fixed", "adaptive"]
Suggest = Literal["often", "balanced", "confident"]
SUGGEST = ("often", "balanced", "confident")


@dataclass(frozen=True)
class CompletionSettings:
    """What the settings panel edits. `model` is a spec (`models.specs`): "default", a local .gguf file
    or transformers folder, hf:OWNER/REPO/FILE.gguf, hf:OWNER/REPO, openai:URL or llamacpp:URL."""

    enabled: bool = True
    debounce_ms: int = 500
    debounce_mode: DebounceMode = "fixed"
    # Which automatic suggestions show: "often", "balanced" or only when "confident" (the threshold on
    # `completion.confidence`'s estimate that the user types it exactly). Ctrl+Space always shows.
    suggest: Suggest = "balanced"
    max_new_tokens: int = 64
    context_tokens: int = 1024
    model: str = "default"
    # Beam width for a suggestion's first line (1: greedy). In-process models only (llama.cpp,
    # transformers); a small model's greedy line often runs on where a likelier short one exists.
    # With the read check: rank the beam's best first lines once more by reading them, and the next
    # lines, as plain code (decoding.reading): HumanEval a little better, notebooks not, ~2.3x the time.
    # `search_ms`: the time (ms) the beam may take for a line, the prompt's reading included for the
    # first (so a cold prompt leaves it little and it is about greedy); then the best line so far wins,
    # or greedy writes the rest of it. 0: no limit. The defaults are chosen by measurement
    # (docs/benchmarks.md, "Decode plans"); beam 8 + read check + no limit is the slow, widest search.
    beam_width: int = 8
    read_check: bool = False
    search_ms: int = 15
    # Candidate lines copied from the notebook (names, column keys, call patterns and imports of the
    # cells above and below and of the kernel's namespace; `completion.candidates`) compete with the
    # beam's first line, ranked by the model (`decoding.copies`). docs/completion.md "Notebook candidates".
    notebook_candidates: bool = True
    # openai:/llamacpp: servers. The key (GHOSTBOOK_API_KEY wins) lives in this user's settings file,
    # never in a notebook, and is not sent to the browser. `remote_fim`: how an openai: server gets the
    # middle: "suffix" (the API's suffix field) or a FIM family whose template is written into the prompt.
    api_key: str = ""
    remote_fim: str = "suffix"
    # In-process models: where a transformers model runs (auto: CUDA where torch sees a GPU, in bfloat16),
    # and greedy with speculative drafts from the notebook's own text (`decoding.speculative`; the same
    # tokens; `ghostbook bench speculative`: faster on copy-heavy cells, docs/benchmarks.md "Speculative decoding").
    device: str = "auto"
    speculative: bool = True
    # A transformers target's draft model for speculative greedy: a local transformers folder with the
    # same vocabulary (a smaller model of the family); "" drafts by prompt lookup.
    draft_model: str = ""
    # Edit with AI (`ghostbook.editing`): a chat or instruct model, in any form `model` takes but
    # `default` (a local .gguf, hf:..., openai:URL chat completions, llamacpp:URL); "" = none chosen.
    edit_model: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class SettingsError(ValueError):
    """An update names an unknown key or a value of the wrong type or range."""


_LIMITS = {"debounce_ms": (0, 10_000), "max_new_tokens": (1, 512), "context_tokens": (64, 32_768),
           "beam_width": (1, 8), "search_ms": (0, 10_000)}


def validate(current: CompletionSettings, changes: dict[str, Any]) -> CompletionSettings:
    """`current` with `changes` applied; raise SettingsError naming the first bad key."""
    known = {f.name: f for f in fields(CompletionSettings)}
    clean: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in known:
            raise SettingsError(f"unknown setting {key!r}")
        if key in ("enabled", "read_check", "speculative", "notebook_candidates"):
            if not isinstance(value, bool):
                raise SettingsError(f"{key} must be true or false")
        elif key in _LIMITS:
            low, high = _LIMITS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise SettingsError(f"{key} must be an integer from {low} to {high}")
        elif key == "suggest":
            if value not in SUGGEST:
                raise SettingsError("suggest must be 'often', 'balanced' or 'confident'")
        elif key == "debounce_mode":
            if value not in ("fixed", "adaptive"):
                raise SettingsError("debounce_mode must be 'fixed' or 'adaptive'")
        elif key == "model":
            if not isinstance(value, str) or not value.strip() or len(value) > 4096:
                raise SettingsError(f"model must be one of: {specs.FORMS}")
            value = value.strip()
            try:
                specs.parse(value)
            except specs.SpecError as exc:
                raise SettingsError(str(exc)) from None
        elif key == "edit_model":
            if not isinstance(value, str) or len(value) > 4096:
                raise SettingsError(f"edit_model must be empty or one of: {specs.FORMS}")
            value = value.strip()
            if value == "default":
                raise SettingsError("the built-in model completes code; an edit model is a chat or instruct "
                                    "model (a catalogue instruct model, a local .gguf, openai:URL or llamacpp:URL)")
            if value:
                try:
                    specs.parse(value)
                except specs.SpecError as exc:
                    raise SettingsError(str(exc)) from None
        elif key == "api_key":
            if not isinstance(value, str) or len(value) > 4096 or any(c in value for c in "\r\n"):
                raise SettingsError("api_key must be a single-line string")
            value = value.strip()
        elif key == "device":
            if value not in ("auto", "cpu", "cuda"):
                raise SettingsError("device must be 'auto', 'cpu' or 'cuda'")
        elif key == "draft_model":
            if not isinstance(value, str) or len(value) > 4096 or any(c in value for c in "\r\n"):
                raise SettingsError("draft_model must be a folder path or empty")
            value = value.strip()
        elif key == "remote_fim":
            if value != "suffix" and value not in TEMPLATES:
                raise SettingsError(f"remote_fim must be 'suffix' or one of {', '.join(sorted(TEMPLATES))}")
        clean[key] = value
    return replace(current, **clean)


def settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ghostbook" / "settings.json"


def read_section(path: Path, name: str) -> dict[str, Any]:
    """One section of the settings file ({} when absent); raises OSError or ValueError as reading does."""
    raw = json.loads(path.read_text())
    section = raw.get(name, {}) if isinstance(raw, dict) else {}
    return section if isinstance(section, dict) else {}


def write_section(path: Path, name: str, section: dict[str, Any]) -> None:
    """Write one section atomically, keeping the file's other sections (completion, appearance, ...)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        raw = json.loads(path.read_text())
        if not isinstance(raw, dict):
            raw = {}
    except (OSError, ValueError):
        raw = {}
    raw[name] = section
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings-", suffix=".json")
    with os.fdopen(fd, "w") as handle:
        json.dump(raw, handle, indent=2)
    os.replace(tmp, path)


def load(path: Path | None = None) -> CompletionSettings:
    """Read the settings file; a missing or broken file gives the defaults (and a log line)."""
    path = path or settings_path()
    try:
        return validate(CompletionSettings(), read_section(path, "completion"))
    except FileNotFoundError:
        return CompletionSettings()
    except (OSError, ValueError) as exc:
        log.warning("ignoring settings file %s: %s", path, exc)
        return CompletionSettings()


def save(settings: CompletionSettings, path: Path | None = None) -> None:
    """Write atomically, keeping any other sections of the file."""
    write_section(path or settings_path(), "completion", settings.to_json())


class SettingsStore:
    """The current settings of this server's user, read once and written on every change."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        self.current = load(self.path)

    def update(self, changes: dict[str, Any]) -> CompletionSettings:
        """Validate and apply `changes` (SettingsError if bad), then save; returns the new settings."""
        self.current = validate(self.current, changes)
        try:
            save(self.current, self.path)
        except OSError as exc:
            log.warning("cannot save settings to %s: %s", self.path, exc)
        return self.current


_shared: SettingsStore | None = None


def shared_store() -> SettingsStore:
    global _shared
    if _shared is None:
        _shared = SettingsStore()
    return _shared
