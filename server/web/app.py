"""The ASGI application: routes, the PWA's files, and the services behind them."""

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from server.game.failures import Board
from server.game.hub import GATHER_MS, Hub
from server.game.referee import Referee
from server.game.replay import Projector
from server.game.shares import owns
from server.rules import RULESETS
from server.store import Store, migrate
from server.web import api, redact
from server.web.errors import HANDLERS
from server.web.headers import HEADERS, Adding
from server.web.limits import Limits
from server.web.openapi import openapi
from server.web.origin import ca_page
from server.web.shell import Shell
from server.web.sockets import game_socket

PWA = Path(__file__).resolve().parents[2] / "pwa"


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
    open_creation: bool = True,
    rate_limits: bool | None = None,
    worker: tuple[int, int] | None = None,
    public_url: str | None = None,
    field_ca_page: str | None = None,
    migrate_on_start: bool = True,
    pwa: Path = PWA,
    board_fd: int | None = None,
) -> Starlette:
    redact.install()
    store = Store.open(database_url)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if migrate_on_start:
            await asyncio.to_thread(migrate.upgrade, store.url)
        referee = Referee(store, Hub(GATHER_MS), owns=None if worker is None else owns(*worker))
        if board_fd is not None and worker is not None:  # a door's worker: tell the others
            referee.scribe.failures.board = Board(board_fd, worker[1], worker[0])
        app.state.referee = referee
        app.state.projector = Projector(store)
        await referee.start()
        try:
            yield
        finally:
            await referee.stop()
            await store.close()

    # Under one mount, every /api/ path is the API's: a wrong method is a 405 naming the right
    # ones, never the PWA's catch-all 404; a path that is not the API's is a 404, not a redirect.
    api_routes: list[BaseRoute] = [
        Route("/openapi.json", openapi),
        Route("/rulesets", api.rulesets),
        Route("/join-origin", api.join_origin_route),
        Route("/games", api.create_game, methods=["POST"]),
        Route("/games/{gid}/players", api.players, methods=["GET", "POST"]),
        Route("/games/{gid}/view", api.view),
        Route("/games/{gid}/commands", api.command, methods=["POST"]),
        Route("/games/{gid}/events", api.events),
        Route("/games/{gid}/invites", api.invites),
        Route("/games/{gid}/replay", api.replay),
    ]
    routes: list[BaseRoute] = [
        Route("/healthz", api.healthz),
        Mount("/api", app=Router(api_routes, redirect_slashes=False)),
    ]
    if pwa.is_dir():  # a server without the PWA's files still serves the API
        phones = {f"js/rulesets/{r.id}": r.phone for r in RULESETS.values() if r.phone}
        routes.extend(Shell(pwa, phones).routes())
    # The API's JSON answers are gzipped per request (the PWA's files come gzipped already);
    # WebSockets and already-encoded answers pass through untouched.
    middleware = [
        Middleware(Adding, headers=HEADERS),
        Middleware(GZipMiddleware, minimum_size=1000, compresslevel=6),
    ]
    app = Server(
        routes=routes, middleware=middleware, exception_handlers=HANDLERS, lifespan=lifespan
    )
    app.state.admin_token = admin_token
    app.state.open_creation = open_creation  # without an admin token: anyone, or nobody
    app.state.limits = Limits(rate_limits)  # None: on unless BIJSE_RATE_LIMITS=off
    app.state.worker = None if worker is None else worker[0]  # of `bijse serve --workers N`
    app.state.public_url = public_url.rstrip("/") if public_url else None
    # Where phones get the field's own CA first (`bijse serve --field-ca-page`), or None.
    app.state.field_ca_page = ca_page(field_ca_page) if field_ca_page else None
    return app
