"""The ASGI application: routes, the PWA's files, and the services behind them."""

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from server import api, migrate, redact
from server.errors import HANDLERS
from server.hub import Hub
from server.openapi import openapi
from server.referee import Referee
from server.replay import Projector
from server.shell import Shell
from server.sockets import game_socket
from server.store import Store

PWA = Path(__file__).resolve().parent.parent / "pwa"


SOCKET = re.compile(r"/ws/games/(?P<gid>[^/]+)")


class Server(Starlette):
    """Starlette, but a game's WebSocket goes straight to its handler: a socket lives for hours,
    and every middleware and router layer it passed would keep a frame for all that time (a few
    KiB a socket) and add a hop to every message it is sent."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and (found := SOCKET.fullmatch(scope["path"])):
            scope["app"] = self
            scope["path_params"] = {"gid": found["gid"]}
            await game_socket(WebSocket(scope, receive, send))
            return
        await super().__call__(scope, receive, send)


def create_app(
    database_url: str,
    *,
    admin_token: str | None = None,
    public_url: str | None = None,
    migrate_on_start: bool = True,
    pwa: Path = PWA,
) -> Starlette:
    redact.install()
    store = Store.open(database_url)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if migrate_on_start:
            await asyncio.to_thread(migrate.upgrade, store.url)
        referee = Referee(store, Hub())
        app.state.referee = referee
        app.state.projector = Projector(store)
        await referee.start()
        try:
            yield
        finally:
            await referee.stop()
            await store.close()

    routes: list[BaseRoute] = [
        Route("/healthz", api.healthz),
        Route("/api/openapi.json", openapi),
        Route("/api/rulesets", api.rulesets),
        Route("/api/join-origin", api.join_origin_route),
        Route("/api/games", api.create_game, methods=["POST"]),
        Route("/api/games/{gid}/players", api.add_player, methods=["POST"]),
        Route("/api/games/{gid}/players", api.directory, methods=["GET"]),
        Route("/api/games/{gid}/view", api.view),
        Route("/api/games/{gid}/commands", api.command, methods=["POST"]),
        Route("/api/games/{gid}/events", api.events),
        Route("/api/games/{gid}/invites", api.invites),
        Route("/api/games/{gid}/replay", api.replay),
    ]
    if pwa.is_dir():  # a server without the PWA's files still serves the API
        routes.extend(Shell(pwa).routes())
    # The API's JSON answers are gzipped per request (the PWA's files come gzipped already);
    # WebSockets and already-encoded answers pass through untouched.
    middleware = [Middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)]
    app = Server(
        routes=routes, middleware=middleware, exception_handlers=HANDLERS, lifespan=lifespan
    )
    app.state.admin_token = admin_token
    app.state.public_url = public_url.rstrip("/") if public_url else None
    return app
