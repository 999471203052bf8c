"""HTTP and websocket transport (Starlette). Nothing below this package imports Starlette."""
