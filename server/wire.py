"""Reading what clients send: JSON bodies with a size limit, tokens, and commands."""

from typing import Any

import orjson
from pydantic import ValidationError
from starlette.requests import HTTPConnection, Request

from server.rules.core import Command, Json, RuleError, Ruleset
from server.validation import invalid

MAX_BODY = 64 * 1024  # a command is a few hundred bytes; a pasted list of names a few KiB
MAX_SEQ = 2**31 - 1  # the events table's seq is a 32-bit integer on PostgreSQL


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


def parse_json(raw: bytes | str) -> Json:
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
