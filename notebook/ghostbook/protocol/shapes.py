"""The shapes inside server -> client messages: cells, kernel, save state, models, widgets, variables.

Built by the server with `model_construct` (no validation on the way out: `wire.encode`); the test suites
validate every message sent (`GHOSTBOOK_VALIDATE_OUTGOING`). nbformat outputs and free-form metadata stay
plain dicts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from ghostbook.protocol.client import CellType, SuggestionKind

CellState = Literal["idle", "queued", "running"]
KernelStatus = Literal["starting", "idle", "busy", "dead", "restarting"]
SaveStatus = Literal["saved", "dirty", "saving", "error", "conflict"]
ModelState = Literal["off", "downloading", "loading", "ready", "error"]
Attachments = dict[str, dict[str, str | list[str]]]  # nbformat's {name: {mime: base64}}


def _is_none(value: object) -> bool:
    return value is None


def _never_null(schema: dict[str, Any]) -> None:
    """An omitted field's JSON Schema: absent or of its type, never null."""
    schema.pop("default", None)
    choices = [choice for choice in schema.pop("anyOf", []) if choice != {"type": "null"}]
    if len(choices) == 1:
        schema.update(choices[0])
    elif choices:
        schema["anyOf"] = choices


def omitted(description: str | None = None) -> Any:
    """A field left out of the message (rather than sent as null) when it has no value."""
    return Field(default=None, exclude_if=_is_none, description=description, json_schema_extra=_never_null)


class FullText(BaseModel):
    id: str
    lines: int


class OutputSchema(BaseModel):
    """An nbformat v4 output (stream, execute_result, display_data, error): described for the frontend's types,
    never built; on the wire an `Output` is the plain dict the kernel's message made."""

    model_config = ConfigDict(extra="allow", title="Output")

    output_type: str
    name: str | None = omitted()
    text: str | list[str] | None = omitted()
    data: dict[str, Any] | None = omitted()
    metadata: dict[str, Any] | None = omitted()
    execution_count: int | None = None
    ename: str | None = omitted()
    evalue: str | None = omitted()
    traceback: list[str] | None = omitted()
    full_text: FullText | None = omitted("wire only (never saved): a stream whose middle was dropped keeps its "
                                         "whole text on the server, read page by page at /outputs/{id} "
                                         "(session/full_outputs.py)")


Output = Annotated[dict[str, Any], WithJsonSchema({"$ref": "#/$defs/Output"})]


class Shape(BaseModel):
    """A server-built JSON object: every field present (but `omitted` ones), nothing else allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_serialization_defaults_required=True)


class Cell(Shape):
    id: str
    cell_type: CellType
    source: str = Field(description='"" in a snapshot for a tab that reads the texts from `text` (texts=shared)')
    outputs: list[Output]
    execution_count: int | None
    state: CellState
    metadata: dict[str, Any]
    attachments: Attachments = Field(description="Markdown images referenced as `attachment:NAME`")


class KernelInfo(Shape):
    status: KernelStatus
    name: str
    display_name: str
    reason: str | None
    can_install: bool = Field(description="a local Python kernel with pip or uv: a ModuleNotFoundError gets an "
                                          "Install button")


class KernelSpecInfo(Shape):
    name: str
    display_name: str
    language: str


class SaveInfo(Shape):
    """conflict: the file changed on disk; nothing is saved until a tab sends resolve_file_change."""

    status: SaveStatus
    message: str | None


class WidgetBuffer(Shape):
    path: list[str | int]
    data: str
    encoding: Literal["base64", "hex"]


class WidgetModelState(Shape):
    """A widget model in Jupyter's widget-state format; `live`: the kernel has it (else it shows as saved)."""

    model_name: str
    model_module: str
    model_module_version: str
    state: dict[str, Any]
    buffers: list[WidgetBuffer] | None = omitted()
    live: bool


class NotebookContent(Shape):
    cells: list[Cell]
    metadata: dict[str, Any]


class StdinPrompt(Shape):
    cell_id: str
    prompt: str
    password: bool


class SharedTexts(Shape):
    """The cells' texts as one Yjs document: its id and whole state (base64). `update` is null on a socket
    opened with `texts=shared` (the browser's, whose snapshot cells carry no source): the state follows the
    snapshot as the next frame, binary."""

    guid: str
    update: str | None


class SourceChanged(Shape):
    cell_id: str
    source: str


class ModelStatus(Shape):
    """A model's state for the settings panel. downloading: bytes at least every 0.5 s; loading: progress 0..1."""

    state: ModelState
    name: str
    path: str | None
    progress: float | None = Field(description="0..1 while downloading or loading; null when unknown")
    message: str | None
    bytes_done: int | None
    bytes_total: int | None
    serving: str | None = Field(description="the spec of the model answering requests now (the one before "
                                            "while another loads, or after it failed: then `ready` with a "
                                            "message naming both); null when none serves")
    serving_name: str


class CompletionSettings(Shape):
    """The completion settings (server: completion/settings.py)."""

    enabled: bool
    debounce_ms: int
    debounce_mode: str
    suggest: str = Field(description='which automatic suggestions show: "often", "balanced" or "confident" '
                                     "(Ctrl+Space always shows)")
    max_new_tokens: int
    context_tokens: int
    model: str
    beam_width: int
    read_check: bool
    search_ms: int = Field(description="the beam's time per line (ms; 0: no limit)")
    notebook_candidates: bool = Field(description="candidate lines copied from the notebook compete with the "
                                                  "beam's line")
    api_key: str = Field(description='masked ("********") when set: the key stays on the server')
    remote_fim: str = Field(description='openai: servers: "suffix" or a FIM family written into the prompt')
    device: str = Field(description='transformers models: "auto", "cpu" or "cuda"')
    speculative: bool
    draft_model: str = Field(description='transformers models: a draft model\'s folder ("": prompt lookup)')
    edit_model: str = Field(description='Edit with AI: a chat or instruct model spec ("": none chosen)')


class CatalogueModel(Shape):
    """One line of the model catalogue (models/catalogue.py `Offer`). role: fim completes code (completion
    models), chat is an instruct model (edit models), both: a local file, listed under both."""

    spec: str
    name: str
    family: str
    params: str
    size_mb: float
    ram_mb: float
    licence: str
    backends: str
    source: Literal["builtin", "hub", "local"]
    downloaded: bool
    gated: bool
    speed: str
    role: Literal["fim", "chat", "both"]


class SuggestionStats(Shape):
    """Live completion statistics. p50/p95: client-reported latencies when any, else the server's request ->
    done; server_*: always the server's; null when there is no data."""

    shown: int
    accepted: int
    acceptance_rate: float | None
    p50_ms: float | None
    p95_ms: float | None
    requests: int
    model_calls: int
    cache_hits: int
    server_p50_ms: float | None
    server_p95_ms: float | None


class Tally(Shape):
    """One group's counts: `accepted` counts a suggestion taken wholly or in part; whole/word/line by the key
    that first took some."""

    shown: int
    accepted: int
    whole: int
    word: int
    line: int
    dismissed: int
    acceptance_rate: float | None
    p50_ms: float | None
    p95_ms: float | None


class DayTally(Tally):
    day: str = Field(description="YYYY-MM-DD")
    ts: float = Field(description="the day's local midnight, in seconds")


class KindTally(Tally):
    kind: str


class ModelTally(Tally):
    model: str


class TelemetryFilter(Shape):
    days: int
    kind: SuggestionKind | None
    model: str | None


class EditStats(Shape):
    calls: int
    tokens: int
    ms: float
    speculative: bool


class CommTarget(Shape):
    target_name: str


class Variable(Shape):
    """One kernel name in the Variables panel. shape: arrays and frames; length: sized builtins; size: bytes;
    value: short, one line; viewer: get_data_page can page it."""

    name: str
    type: str
    shape: list[int] | None
    length: int | None
    size: int | None
    value: str
    viewer: bool


class DataColumn(Shape):
    name: str
    dtype: str
