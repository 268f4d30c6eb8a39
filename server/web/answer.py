"""A phone's message answered in the callback that read it (server/web/sockets.py): parsed,
counted, decided and on its way to disk without a task switch. Compiled (server/__init__.py):
every command a phone sends goes through it."""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from server.clock import iso, now_ms
from server.game.referee import Referee
from server.rules.core import Json, Member, RuleError
from server.store import Conflict, Unavailable
from server.web.errors import REFUSED, Refused, wire
from server.web.limits import Limits, RateLimited
from server.web.wire import CONTROL, MAX_BODY, load_json, parse_command, sound

logger = logging.getLogger("bijse.sockets")


class Limited:
    """The rate limits, the address a socket's commands count against, and the socket's own
    allowance of what is not a command: pings, pongs and refused messages. Over it, the server
    reads nothing more from the socket for the seconds the error tells (web/socket_protocol.py
    stops reading and counts the WebSocket pings and pongs; without it, the count alone)."""

    def __init__(
        self, limits: Limits, address: str, spend: Callable[[], float] | None = None
    ) -> None:
        self.limits = limits
        self.address = address
        self.spend = spend  # None: no allowance (rate limits off)

    def over(self) -> RateLimited | None:
        """Count a message that is not a command: over the allowance, the refusal it gets."""
        wait = 0.0 if self.spend is None else self.spend()
        return RateLimited("pings and refused messages on this socket", wait) if wait else None


@dataclass(frozen=True, slots=True)
class Later:
    """A command that must wait before it is decided (its game loading, its turn as a costly
    command, a copy of it in flight): read and counted already, answered by `answer`."""

    command_id: str | None
    command: Json


def answer_now(
    referee: Referee,
    limited: Limited,
    game_id: str,
    member: Member,
    text: str | None,
    post: Callable[[Json], None],
    defer: Callable[[Later], None],
) -> Json | Later | None:
    """The reply to a message, read and answered at once; None when it is posted later (a
    command on its way to disk: its ack goes out with the patches of its write, or its error
    when the write fails; a write that conflicted with another server's is `defer`red, to be
    decided again); `Later` when the command must wait for something first."""
    command_id = None
    commanded = False  # counted as a command: its refusal is not chatter
    try:
        if text is None:
            raise RuleError("invalid", "messages are JSON text")
        if len(text) > MAX_BODY:
            raise RuleError("too_large", f"a message is at most {MAX_BODY} bytes")
        body = load_json(text)
        kind = body.get("type")
        if kind == "ping":  # whatever else it holds
            if over := limited.over():
                raise over
            return {"type": "pong", "server_time": iso(now_ms())}
        if isinstance(body.get("command_id"), str) and not CONTROL.search(body["command_id"]):
            command_id = body["command_id"]  # named in any error from here on
        sound(text, body)
        if kind != "command":
            raise RuleError("invalid", f"type: unknown message {kind!r}; send command or ping")
        unknown = set(body) - {"type", "command_id", "command"}
        if unknown:
            raise RuleError("invalid", f"{', '.join(sorted(unknown))}: unknown field")
        fields = body.get("command")
        if not isinstance(fields, dict):
            raise RuleError("invalid", "command: an object with the command's type and fields")
        commanded = True
        limited.limits.command(f"{game_id}/{member.player_id}", limited.address)
        fields = {**fields, "command_id": body.get("command_id")}
        table = referee.ready(game_id, command_id)
        if table is None or limited.limits.costs(fields.get("type")):
            return Later(command_id, fields)
        command_id, command = parse_command(table.ruleset, fields)
        told = Ack(command_id, post)

        def landed(seq: int, error: BaseException | None) -> None:
            if error is None:
                told(seq)  # if the views did not tell it (the game was let go meanwhile)
            elif isinstance(error, Conflict):  # another server wrote: decide it again
                defer(Later(command_id, fields))
            else:
                failed = error if isinstance(error, Unavailable) else Unavailable(repr(error))
                post(refusal(command_id, failed))

        result = referee.execute_now(table, member, command_id, command, told, landed)
    except REFUSED as error:
        if not commanded and not isinstance(error, RateLimited):
            error = limited.over() or error
        return refusal(command_id, error)
    except Exception:  # a bug: the socket and the others on it go on, as HTTP answers 500
        logger.exception("a WebSocket message failed")
        return error_message(command_id, "internal", "the server failed; the error is logged")
    return None if result is None else ack(command_id, result.seq, result.duplicate)


class Ack:
    """A command's ack, posted once: when its write is on disk, with the patches of that write
    (the referee tells its seq), or when the write ends without them."""

    __slots__ = ("command_id", "post", "seq")

    def __init__(self, command_id: str | None, post: Callable[[Json], None]) -> None:
        self.command_id = command_id
        self.post = post
        self.seq = 0  # acked at this seq (0: not yet)

    def __call__(self, seq: int) -> None:
        if not self.seq:
            self.seq = seq
            self.post(ack(self.command_id, seq, duplicate=False))


def ack(command_id: str | None, seq: int, duplicate: bool) -> Json:
    return {"type": "ack", "command_id": command_id, "seq": seq, "duplicate": duplicate}


def error_message(command_id: str | None, code: str, message: str) -> Json:
    return {"type": "error", "command_id": command_id, "code": code, "message": message}


def refusal(command_id: str | None, error: Refused) -> Json:
    """The error message of a refusal; over a rate limit, with the seconds to wait."""
    message = error_message(command_id, *wire(error))
    if isinstance(error, RateLimited):
        message["retry_after"] = error.retry_after
    return message
