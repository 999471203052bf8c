"""The wire between the browser and the server, one websocket per (tab, notebook): every message, both
ways, is a pydantic model here (`client`: what a tab sends; `server` and its `shapes`: what it gets), and
`frontend/src/protocol.generated.ts` is generated from their JSON Schema (`make protocol`).

Every message is a JSON object with a `type`. Requests that expect an answer carry a client-chosen `ref`
that the answer repeats. Document changes arrive as operations; the session applies them in one order and
broadcasts the resulting events with an increasing `revision`, each naming the `origin` tab so a tab can
skip the echo of its own edits. A (re)connecting tab first gets a `snapshot`.
"""

from ghostbook.protocol.client import *  # noqa: F403
from ghostbook.protocol.server import *  # noqa: F403
from ghostbook.protocol.shapes import *  # noqa: F403
from ghostbook.protocol.wire import encode as encode
