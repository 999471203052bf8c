"""The JSON Schema of the whole wire, from which `frontend/src/protocol.generated.ts` is generated.

`python -m ghostbook.protocol.schema` prints one schema whose `$defs` hold every message: `ClientMessage`
(what a tab sends, as validated: fields with defaults may be left out) and `ServerMessage` (what it gets, as
serialised: every field present but the omitted ones), both unions discriminated by `type`. `make protocol`
turns it into TypeScript.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from ghostbook.protocol.client import ClientMessage
from ghostbook.protocol.server import ServerMessage
from ghostbook.protocol.shapes import OutputSchema


class WireSchema(GenerateJsonSchema):
    """Pydantic's schema, with two changes for the wire: a field left out when it has no value (`omitted`)
    is optional, not required; fields get no titles (a titled schema becomes a named type in TypeScript)."""

    def field_is_required(self, field: core_schema.ModelField | core_schema.DataclassField
                          | core_schema.TypedDictField, total: bool) -> bool:
        if field.get("serialization_exclude_if") is not None:
            return False
        return super().field_is_required(field, total)

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def wire_schema() -> dict[str, Any]:
    """Every client and server message, in one schema."""
    adapters = [("ClientMessage", "validation", TypeAdapter(ClientMessage)),
                ("ServerMessage", "serialization", TypeAdapter(ServerMessage))]
    unions, top = TypeAdapter.json_schemas(adapters, schema_generator=WireSchema)  # type: ignore[arg-type]
    definitions = dict(top.get("$defs", {}))
    output = OutputSchema.model_json_schema(schema_generator=WireSchema)  # referred to by `Output`
    definitions.update(output.pop("$defs", {}), Output=output)
    for name, mode, _ in adapters:
        definitions[name] = {"title": name, **unions[(name, mode)]}  # type: ignore[index]
    return {
        "title": "Wire",
        "description": "Every message between a tab and the server (ghostbook/protocol/).",
        "type": "object",
        "properties": {"client": {"$ref": "#/$defs/ClientMessage"}, "server": {"$ref": "#/$defs/ServerMessage"}},
        "required": ["client", "server"],
        "additionalProperties": False,
        "$defs": definitions,
    }


if __name__ == "__main__":
    print(json.dumps(wire_schema(), indent=2))
