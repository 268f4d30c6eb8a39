"""The WebSocket part of the protocol: a live view per screen, and commands with acks."""

import asyncio
import contextlib
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from server.clock import iso, now_ms
from server.errors import status
from server.hub import Screen
from server.referee import Referee
from server.rules.core import Json, Member, RuleError
from server.wire import MAX_BODY, parse_command, parse_json

CLOSE_CODES = {401: 4401, 403: 4403, 404: 4404}


async def game_socket(websocket: WebSocket) -> None:
    referee: Referee = websocket.app.state.referee
    game_id = websocket.path_params["gid"]
    await websocket.accept()
    try:
        table, member = await referee.seat(game_id, websocket.query_params.get("token"))
        table = await referee.fresh(game_id, websocket.query_params.get("after"))
    except RuleError as error:
        await websocket.send_json(
            {"type": "error", "command_id": None, "code": error.code, "message": error.message}
        )
        await websocket.close(code=CLOSE_CODES.get(status(error.code), 4400))
        return
    screen = Screen(member, websocket.send_text, lambda: websocket.close(code=1008))
    pump = asyncio.create_task(screen.pump())
    referee.hub.join(game_id, table.ruleset, table.committed_state, table.committed_seq, screen)
    after = websocket.query_params.get("after", "")
    if not (after.isdigit() and int(after) == table.committed_seq):
        screen.show(table.committed_seq, now_ms())  # else the phone is up to date: say nothing
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            screen.post(await answer(referee, game_id, member, message))
    except WebSocketDisconnect:
        pass
    finally:
        referee.hub.leave(game_id, screen)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


async def answer(referee: Referee, game_id: str, member: Member, message: Any) -> Json:
    command_id = None
    try:
        text = message.get("text")
        if text is None:
            raise RuleError("invalid", "messages are JSON text")
        if len(text) > MAX_BODY:
            raise RuleError("too_large", f"a message is at most {MAX_BODY} bytes")
        body = parse_json(text)
        kind = body.get("type")
        if kind == "ping":
            return {"type": "pong", "server_time": iso(now_ms())}
        if kind != "command":
            raise RuleError("invalid", f"type: unknown message {kind!r}; send command or ping")
        unknown = set(body) - {"type", "command_id", "command"}
        if unknown:
            raise RuleError("invalid", f"{', '.join(sorted(unknown))}: unknown field")
        command_id = body.get("command_id") if isinstance(body.get("command_id"), str) else None
        if not isinstance(body.get("command"), dict):
            raise RuleError("invalid", "command: an object with the command's type and fields")
        table = await referee.table(game_id)
        command_id, command = parse_command(
            table.ruleset, {**body["command"], "command_id": body.get("command_id")}
        )
        result = await referee.execute(game_id, member, command_id, command)
    except RuleError as error:
        return {
            "type": "error",
            "command_id": command_id,
            "code": error.code,
            "message": error.message,
        }
    return {
        "type": "ack",
        "command_id": command_id,
        "seq": result.seq,
        "duplicate": result.duplicate,
    }
