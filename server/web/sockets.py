"""The WebSocket part of the protocol: a live view per screen, and commands with acks.

Everything a client sends before it is seated (its Origin, the query, its token) is checked
before its screen joins the hub, and from the moment it joins, one `finally` takes it out again
whatever happens: a socket that failed half-way must not stay in the game's audience.
"""

import asyncio
import contextlib
import logging
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.clock import now_ms
from server.game.hub import Screen
from server.game.referee import Referee
from server.game.table import Table
from server.rules.core import Json, Member, RuleError
from server.store.models import MAX_SEQ
from server.web import origin
from server.web.answer import (
    Ack,
    Later,
    Limited,
    ack,
    answer_now,
    error_message,
    refusal,
)
from server.web.errors import REFUSED, Refused, status, wire
from server.web.limits import Limits
from server.web.socket_protocol import HEAR, THROTTLE, WRITE
from server.web.wire import (
    parse_command,
    parse_json,
    plausible_token,
    whole_number,
)

CLOSE_CODES = {401: 4401, 403: 4403, 404: 4404, 429: 4429}
SUBPROTOCOL = "bijse"  # the one subprotocol ever echoed back
TOKEN_PROTOCOL = "bijse.token."  # a subprotocol that carries the token: never echoed
HELLO_S = 10.0  # how long a socket without a token may take to send its hello
HELLO = '{"type": "hello", "token": "<token>"}'

logger = logging.getLogger("bijse.sockets")


async def game_socket(websocket: WebSocket) -> None:
    admitted = await admit(websocket)
    if admitted is not None:
        await play(websocket, *admitted)


async def admit(
    websocket: WebSocket,
) -> tuple[Referee, Table, Member, int | None, "Limited"] | None:
    """Accept the socket, then check its origin, its query and its token; None when refused.
    (A coroutine of its own: what the handshake needed is let go before the hours of play.)"""
    referee: Referee = websocket.app.state.referee
    game_id = websocket.path_params["gid"]
    offered = websocket.scope.get("subprotocols", [])
    await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
    limits: Limits = websocket.app.state.limits
    limited = limited_of(limits, websocket)  # from the first frame: a hello may be long in coming
    try:
        headers = Headers(scope=websocket.scope)  # not cached on the socket: see below
        if not origin.own(headers.get("origin"), headers.get("host"), public_url(websocket)):
            raise RuleError("forbidden", "this page's origin may not open the game's socket")
        after = websocket.query_params.get("after")
        held = None if after is None else whole_number(after, "after", MAX_SEQ)

        async def seat() -> tuple[Table, Member]:
            return await referee.seat(game_id, await token(websocket, offered))

        table, member = await limits.authenticate(limited.address, seat)
        table = await referee.games.fresh(game_id, held)
    except REFUSED as error:
        await refuse(websocket, error)
        return None
    websocket.scope["headers"] = []  # read above; not kept for the hours the socket lives
    return referee, table, member, held, limited


def limited_of(limits: Limits, websocket: WebSocket) -> Limited:
    """A socket's limits: its address, and its allowance spent through the protocol when it
    reads the socket (web/socket_protocol.py: it stops reading, and counts the WebSocket pings
    and pongs); without it, the count alone."""
    address = websocket.client.host if websocket.client else "unknown"
    allowance = limits.allowance()
    throttle = websocket.scope["extensions"].get(THROTTLE)
    spend = None if allowance is None else throttle(allowance) if throttle else allowance.take
    return Limited(limits, address, spend)


async def play(
    websocket: WebSocket,
    referee: Referee,
    table: Table,
    member: Member,
    held: int | None,
    limited: Limited,
) -> None:
    """Seat the screen, show the game and answer what the phone sends, until it goes.

    Under the server's own protocol a message is answered in the callback that read it
    (HEAR): a command is decided and on its way to disk without a task switch. A command that
    must wait (`Later`) is answered by a task of the screen's, and what the phone sends after
    it waits behind it, in order: the protocol reads no further meanwhile."""
    extensions = websocket.scope["extensions"]
    close = lambda: websocket.close(code=1008)  # noqa: E731
    screen = Screen(member, websocket.send_text, close, extensions.get(WRITE))
    pump = asyncio.create_task(screen.pump())
    game_id = table.game_id
    waiting: list[Later | str | None] = []  # what waits to be answered, in order
    worker: asyncio.Task[None] | None = None  # answers it, while there is any

    def defer(item: Later | str | None) -> None:
        nonlocal worker
        waiting.append(item)
        if worker is None or worker.done():
            worker = asyncio.create_task(work())

    def heard(text: str | None) -> bool:
        """A message answered at once; False: something waits before it."""
        if waiting:
            return False
        reply = answer_now(referee, limited, game_id, member, text, screen.post, defer)
        if isinstance(reply, Later):
            defer(reply)
        elif reply is not None:
            screen.post(reply)
        return True

    async def work() -> None:
        """Answer what waits, in order."""
        while waiting:
            item = waiting[0]
            reply = (
                item
                if isinstance(item, Later)
                else answer_now(referee, limited, game_id, member, item, screen.post, defer)
            )
            if isinstance(reply, Later):
                reply = await answer(referee, limited, game_id, member, reply, screen.post)
            waiting.pop(0)
            if reply is not None:
                screen.post(reply)

    try:
        joined = await referee.joined(table)
        seq, now, state = table.committed_seq, now_ms(), table.committed_state
        referee.hub.join(game_id, table.ruleset, state, seq, screen, now, joined)
        if held != seq:
            screen.show(seq, now)  # else the phone is up to date: say nothing
        referee.hub.greet(game_id, screen)
        if (hear := extensions.get(HEAR)) is not None:
            hear(heard)
        while True:
            message = await websocket.receive()  # what the protocol did not hand to `heard`
            if message["type"] == "websocket.disconnect":
                break
            if not heard(message.get("text")):
                defer(message.get("text"))
            if worker is not None:
                await worker  # the phone is read no further while a command waits
    except WebSocketDisconnect:
        pass
    finally:
        referee.hub.leave(game_id, screen)
        for task in (pump, worker):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


def public_url(websocket: WebSocket) -> str | None:
    url: str | None = websocket.app.state.public_url
    return url


async def token(websocket: WebSocket, offered: list[str]) -> str:
    """The token from the subprotocol, else from the URL (deprecated: URLs end up in logs),
    else from the first message, a hello."""
    found = next((p[len(TOKEN_PROTOCOL) :] for p in offered if p.startswith(TOKEN_PROTOCOL)), None)
    if found is None:
        found = websocket.query_params.get("token")
    if found is None:
        found = await hello(websocket)
    if not plausible_token(found):
        raise RuleError("unauthorized", "unknown token")
    return found


async def hello(websocket: WebSocket) -> str:
    """The token of the first message, which must be a hello."""
    try:
        message = await asyncio.wait_for(websocket.receive(), HELLO_S)
    except TimeoutError:
        raise RuleError(
            "unauthorized", f"no token: send {HELLO} within {HELLO_S:g} s of connecting"
        ) from None
    body: Json = {}
    if message.get("text") is not None:
        with contextlib.suppress(RuleError):
            body = parse_json(message["text"])
    found = body.get("token")
    if body.get("type") != "hello" or not isinstance(found, str):
        raise RuleError("unauthorized", f"no token: the first message must be {HELLO}")
    return found


async def refuse(websocket: WebSocket, error: Refused) -> None:
    """An error message, then the close code of its status: the phone knows not to retry."""
    with contextlib.suppress(Exception):  # the phone may be gone already
        await websocket.send_json(refusal(None, error))
        await websocket.close(code=CLOSE_CODES.get(status(wire(error)[0]), 4400))


async def answer(
    referee: Referee,
    limited: Limited,
    game_id: str,
    member: Member,
    later: Later,
    post: Callable[[Json], None],
) -> Json | None:
    """The reply to a command that had to wait (`answer_now` read and counted it); None when
    it was posted already (the ack of a command written now goes out with its patches)."""
    command_id = later.command_id
    try:
        table = await referee.games.table(game_id)
        command_id, command = parse_command(table.ruleset, later.command)
        key = f"{game_id}/{member.player_id}"
        await limited.limits.costly(table, key, later.command.get("type"), command_id)
        told = Ack(command_id, post)
        result = await referee.execute(game_id, member, command_id, command, told)
    except REFUSED as error:
        return refusal(command_id, error)
    except Exception:  # a bug: the socket and the others on it go on, as HTTP answers 500
        logger.exception("a WebSocket message failed")
        return error_message(command_id, "internal", "the server failed; the error is logged")
    return None if told.seq else ack(command_id, result.seq, result.duplicate)
