"""The Starlette application: routes, security middleware and the session manager's lifetime."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware

from ghostbook.documents.contents import Contents
from ghostbook.session.manager import SessionManager
from ghostbook.web import (
    appearance,
    contents_routes,
    export_routes,
    markdown_files,
    output_routes,
    pages,
    transfer_routes,
    ws_endpoint,
)
from ghostbook.web.config import ServerConfig
from ghostbook.web.security import SecurityMiddleware


def create_app(config: ServerConfig) -> Starlette:
    from ghostbook.kernel.backend import KernelBackend
    from ghostbook.kernel.specs import list_kernelspecs

    contents = Contents(config.root)
    kernels = KernelBackend(config.gateway)  # local kernels, or those of a Kernel Gateway
    sessions = SessionManager(contents, kernels.create, config.default_kernel)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if config.gateway is not None:
            await kernels.refresh_specs()
            app.state.kernelspecs = kernels.specs
        try:
            yield
        finally:
            await sessions.close_all()

    app = Starlette(
        routes=[*pages.routes, *contents_routes.routes, *appearance.routes, *markdown_files.routes,
                *output_routes.routes, *transfer_routes.routes, *export_routes.routes, *ws_endpoint.routes],
        middleware=[Middleware(SecurityMiddleware, config=config)],
        lifespan=lifespan,
    )
    app.state.config = config
    app.state.contents = contents
    app.state.appearance = appearance.AppearanceStore()
    app.state.sessions = sessions
    app.state.kernels = kernels
    app.state.kernelspecs = list_kernelspecs() if config.gateway is None else []
    return app
