"""The notebook websocket: `/ws?path=NOTEBOOK`. Validates each message and hands it to the session."""

from __future__ import annotations

import logging

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ghostbook import protocol
from ghostbook.documents.contents import ContentsError
from ghostbook.documents.ipynb_file import NotebookFormatError
from ghostbook.session.manager import SessionManager
from ghostbook.web.ws_client import WebSocketClient

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


async def notebook_socket(websocket: WebSocket) -> None:
    sessions: SessionManager = websocket.app.state.sessions
    await websocket.accept()
    try:
        session = await sessions.open(websocket.query_params.get("path", ""))
    except (ContentsError, NotebookFormatError) as exc:
        await _fatal(websocket, str(exc))
        return
    except OSError as exc:
        await _fatal(websocket, f"cannot open the notebook: {exc.strerror or exc}")
        return
    client = WebSocketClient(websocket)
    client.texts_shared = websocket.query_params.get("texts") == "shared"  # the browser: sources from `text` only
    session.add_client(client, websocket.app.state.kernelspecs)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text") if message.get("text") is not None else message.get("bytes")
            if raw is None or len(raw) > MAX_MESSAGE_BYTES:
                client.send(protocol.encode(protocol.error_message("message missing or too large")))
                continue
            try:
                parsed = protocol.parse_client_message(raw)
            except protocol.ProtocolError as exc:
                client.send(protocol.encode(protocol.error_message(str(exc), exc.ref)))
                continue
            try:
                await session.handle(client, parsed)
            except Exception as exc:  # a bug must not take the connection (or the server) down
                log.exception("failed to handle %s", parsed.type)
                client.send(protocol.encode(protocol.error_message(f"internal error: {exc}", parsed.ref)))
    except WebSocketDisconnect:
        pass
    finally:
        session.remove_client(client.id)
        await client.aclose()


async def _fatal(websocket: WebSocket, message: str) -> None:
    await websocket.send_text(protocol.encode(protocol.Fatal.model_construct(message=message)))
    await websocket.close(code=1000)


routes = [WebSocketRoute("/ws", notebook_socket)]
