"""The Starlette application: routes, security middleware and the session manager's lifetime."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware

from ghostbook.documents.contents import Contents
from ghostbook.session.manager import SessionManager
from ghostbook.web import contents_routes, pages, ws_endpoint
from ghostbook.web.config import ServerConfig
from ghostbook.web.security import SecurityMiddleware


def create_app(config: ServerConfig) -> Starlette:
    from ghostbook.kernel.adapter import KernelAdapter
    from ghostbook.kernel.specs import list_kernelspecs

    contents = Contents(config.root)
    sessions = SessionManager(
        contents,
        lambda on_event, name, cwd: KernelAdapter(on_event, kernel_name=name, cwd=cwd),
        config.default_kernel,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await sessions.close_all()

    app = Starlette(
        routes=[*pages.routes, *contents_routes.routes, *ws_endpoint.routes],
        middleware=[Middleware(SecurityMiddleware, config=config)],
        lifespan=lifespan,
    )
    app.state.config = config
    app.state.contents = contents
    app.state.sessions = sessions
    app.state.kernelspecs = list_kernelspecs()
    return app
