"""Serialising server -> client messages: once per message (a broadcast's text goes to every tab as is).

Production never validates what it sends: messages are built with `model_construct` and written by
pydantic's serialiser. The test suites set `GHOSTBOOK_VALIDATE_OUTGOING=1` (read once, at import): then
every encoded message is validated against the `ServerMessage` union; a mismatch is logged and recorded in
`violations` (and appended to the file `GHOSTBOOK_PROTOCOL_VIOLATIONS` names, for a server running in
another process), and the message is still sent, so the test goes on and its teardown reports exactly what
was wrong (tests/conftest.py, e2e/conftest.py). Recording, rather than raising, keeps a violation from
being swallowed by a handler's `except Exception` or turning into a hang.
"""

from __future__ import annotations

import logging
import os

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from ghostbook.protocol.server import ServerEvent, server_adapter

log = logging.getLogger(__name__)

VALIDATE = os.environ.get("GHOSTBOOK_VALIDATE_OUTGOING", "") not in ("", "0")
VIOLATIONS_FILE = os.environ.get("GHOSTBOOK_PROTOCOL_VIOLATIONS") or None
violations: list[str] = []  # what validation found, in this process (tests clear it)


def encode(message: ServerEvent) -> str:
    """The message's JSON text, to send to one tab or many."""
    if not VALIDATE:
        return message.model_dump_json(warnings=False)
    try:  # a value of the wrong type, or a plain dict where a model belongs, is wrong too
        text = message.model_dump_json(warnings="error")
    except PydanticSerializationError as exc:
        text = message.model_dump_json(warnings=False)
        record(f"{type(message).__name__}: {exc} in {text[:300]}")
        return text
    problem = check(text)
    if problem is not None:
        record(problem)
    return text


def check(text: str) -> str | None:
    """Why `text` is not a valid server message, or None when it is one."""
    try:
        server_adapter.validate_json(text)
    except ValidationError as exc:
        errors = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}"
                           for e in exc.errors()[:5])
        return f"{errors} in {text[:300]}"
    return None


def record(problem: str) -> None:
    violations.append(problem)
    log.error("malformed server message: %s", problem)
    if VIOLATIONS_FILE is not None:
        with open(VIOLATIONS_FILE, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}: " + problem.replace("\n", " ") + "\n")  # whose: tests/conftest.py
