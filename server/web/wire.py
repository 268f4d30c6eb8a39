"""Reading what clients send: JSON bodies with a size limit, tokens, and commands."""

import re
from typing import Any

import orjson
from pydantic import ValidationError
from starlette.requests import HTTPConnection, Request

from server.rules.core import Command, Json, RuleError, Ruleset
from server.rules.validation import invalid
from server.store.models import MAX_SEQ

MAX_BODY = 64 * 1024  # a command is a few hundred bytes; a pasted list of names a few KiB
# Arrays and objects inside each other in a body or message: a socket's command needs four.
# The checks below walk no deeper, and orjson itself reads no deeper than 1,024.
MAX_DEPTH = 32


def whole(text: str, low: int, high: int) -> int | None:
    """`text` as a whole number from `low` to `high`, or None. ASCII digits only: str.isdigit
    also takes "²", which int() refuses, and a bounded length keeps int() cheap."""
    if not (0 < len(text) <= 20 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if low <= value <= high else None


def query_number(
    request: Request, name: str, default: int, low: int = 0, high: int = MAX_SEQ
) -> int:
    """A number in the query string; anything else is `invalid`, naming the parameter."""
    text = request.query_params.get(name)
    if text is None:
        return default
    value = whole(text, low, high)
    if value is None:
        raise RuleError("invalid", f"{name}: a whole number from {low} to {high}")
    return value


# C0 and C1 control characters and DEL: PostgreSQL cannot store U+0000 in text at all, and none
# of them belongs in a name, a title or an id.
CONTROLS = r"\x00-\x1f\x7f-\x9f"  # as a character class's ranges (the OpenAPI document's too)
CONTROL = re.compile(f"[{CONTROLS}]")
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what new_token() makes, with room to spare


def whole_number(text: str, name: str, maximum: int) -> int:
    """A query value that must be a whole number from 0 to `maximum`, else `invalid`."""
    value = whole(text, 0, maximum)
    if value is None:
        raise RuleError("invalid", f"{name}: a whole number from 0 to {maximum}")
    return value


def plausible_token(text: str | None) -> bool:
    """Could this be a token at all? Anything else is not looked up (a NUL in a query
    string cannot even be sent to PostgreSQL)."""
    return text is not None and TOKEN.fullmatch(text) is not None


def no_controls(value: Any, where: str = "", depth: int = 0) -> None:
    """Every string of a body, keys included, is free of control characters, and the body is
    nested at most MAX_DEPTH deep (so the walk is too)."""
    if isinstance(value, str):
        if CONTROL.search(value):
            raise RuleError("invalid", f"{where or 'body'}: control characters are not allowed")
    elif isinstance(value, dict | list):
        if depth == MAX_DEPTH:
            raise RuleError("invalid", f"{where or 'body'}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                no_controls(key, where)
                no_controls(item, f"{where}.{key}" if where else key, depth + 1)
        else:
            for n, item in enumerate(value):
                no_controls(item, f"{where}.{n}" if where else str(n), depth + 1)


# JSON holds no raw C0 control character in a string: a decoded string can hold a control
# character only where its text has an escape (a backslash) or a raw DEL or C1 character.
MAYBE_CONTROL = re.compile(r"[\\\x7f-\x9f]")
MAYBE_CONTROL_UTF8 = re.compile(rb"[\\\x7f]|\xc2[\x80-\x9f]")


def sound(raw: bytes | str, body: Json) -> None:
    """`no_controls(body)`, where `body` was read from `raw`: not walked when the text shows
    that no string of it can hold a control character and that it opens too few arrays and
    objects to be nested too deep (a command, almost always)."""
    if isinstance(raw, str):
        maybe = MAYBE_CONTROL.search(raw) is not None
        opened = raw.count("{") + raw.count("[")
    else:
        maybe = MAYBE_CONTROL_UTF8.search(raw) is not None
        opened = raw.count(b"{") + raw.count(b"[")
    if maybe or opened > MAX_DEPTH:
        no_controls(body)


def parse_json(raw: bytes | str) -> Json:
    """A JSON object of at most MAX_BODY bytes, nested at most MAX_DEPTH deep, without a
    control character in any string."""
    body = load_json(raw)
    sound(raw, body)
    return body


def load_json(raw: bytes | str) -> Json:
    """A JSON object of at most MAX_BODY bytes, not checked further: `sound` is next."""
    if len(raw) > MAX_BODY:
        raise RuleError("too_large", f"the body is over {MAX_BODY} bytes")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise RuleError("invalid", f"malformed JSON: {error}") from None
    if not isinstance(body, dict):
        raise RuleError("invalid", "the body must be a JSON object")
    return body


async def read_json(request: Request) -> Json:
    length = request.headers.get("content-length", "0")
    if whole(length, 0, MAX_BODY) is None:
        raise RuleError("too_large", f"the body is over {MAX_BODY} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RuleError("too_large", f"the body is over {MAX_BODY} bytes")
        chunks.append(chunk)
    return parse_json(b"".join(chunks))


def bearer(connection: HTTPConnection) -> str | None:
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def field(body: Json, name: str) -> Any:
    """A required field, taken out of the body."""
    value = body.pop(name, None)
    if value is None:
        raise RuleError("invalid", f"{name}: field required")
    return value


def command_id(body: Json) -> str:
    value = field(body, "command_id")
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise RuleError("invalid", "command_id: a string of 1 to 64 characters (a UUID)")
    return value


def parse_command(ruleset: Ruleset[Any], body: Json) -> tuple[str, Command]:
    """`{"command_id", "type", ...fields}` into the ruleset's typed command."""
    body = dict(body)
    cid = command_id(body)
    kind = field(body, "type")
    model = ruleset.commands.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise RuleError("invalid", f"type: unknown command {kind!r} in {ruleset.id}")
    try:
        return cid, model.model_validate(body)
    except ValidationError as error:
        raise invalid(error) from None
