"""An OpenAPI 3.1 description of the HTTP part, built from the same models that validate."""

from functools import cache
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.api import NewGame
from server.rules import RULESETS
from server.rules.core import Json
from server.rules.roster import AddPlayer

ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
}


def many(player: dict[str, Any]) -> dict[str, Any]:
    """The list form of adding players, with the single form inline (no $defs to resolve)."""
    return {
        "title": "AddPlayers",
        "type": "object",
        "properties": {
            "players": {"type": "array", "items": player, "minItems": 1, "maxItems": 500},
            "command_id": {"type": "string", "minLength": 1, "maxLength": 64},
        },
        "required": ["players"],
        "additionalProperties": False,
    }


def body(schema: Json) -> Json:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def answer(description: str, schema: Json | None = None) -> Json:
    content = {"application/json": {"schema": schema or {"type": "object"}}}
    return {"description": description, "content": content}


def operation(summary: str, ok: Json, request: Json | None = None, auth: bool = True) -> Json:
    responses: dict[str, Any] = ok.get("201", {"200": ok})
    for status, meaning in (
        ("401", "unknown token"),
        ("403", "not allowed"),
        ("404", "unknown game or id"),
        ("409", "refused by the rules"),
        ("413", "body too large"),
        ("422", "invalid body"),
    ):
        responses[status] = answer(meaning, ERROR)
    result: Json = {"summary": summary, "responses": responses}
    if request is not None:
        result["requestBody"] = body(request)
    if auth:
        result["security"] = [{"bearer": []}]
    return result


def commands() -> Json:
    variants = []
    for ruleset in RULESETS.values():
        for name, model in ruleset.commands.items():
            schema = model.model_json_schema()
            schema["properties"] = {
                "command_id": {"type": "string", "minLength": 1, "maxLength": 64},
                "type": {"const": name},
                **schema.get("properties", {}),
            }
            schema["required"] = ["command_id", "type", *schema.get("required", [])]
            schema["title"] = f"{ruleset.id}: {name}"
            variants.append(schema)
    return {"oneOf": variants}


@cache
def spec() -> Json:
    seq_view = {
        "type": "object",
        "properties": {
            "seq": {"type": "integer"},
            "server_time": {"type": "string"},
            "view": {"type": "object"},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Bij se", "version": "1", "description": "See docs/protocol.md."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/healthz": {"get": operation("Liveness", answer("ok"), auth=False)},
            "/api/rulesets": {
                "get": operation(
                    "The rulesets and their config schemas", answer("rulesets"), auth=False
                )
            },
            "/api/games": {
                "post": operation(
                    "Create a game; answers the organizer's token",
                    {"201": {"201": answer("created")}},
                    NewGame.model_json_schema(),
                    auth=False,
                )
            },
            "/api/games/{gid}/players": {
                "post": operation(
                    "Add a player, or a list of players (organizer)",
                    {"201": {"201": answer("added")}},
                    {"oneOf": [one := AddPlayer.model_json_schema(), many(one)]},
                )
            },
            "/api/games/{gid}/view": {
                "get": operation("This token's view", answer("view", seq_view))
            },
            "/api/games/{gid}/commands": {
                "post": operation("Send a command", answer("accepted"), commands())
            },
            "/api/games/{gid}/events": {
                "get": operation(
                    "The log after `after` (organizer; everybody once ended); NDJSON by Accept",
                    answer("events"),
                )
            },
            "/api/games/{gid}/invites": {
                "get": operation(
                    "Join URLs and QR codes of every member (organizer)", answer("invites")
                )
            },
        },
    }


async def openapi(request: Request) -> Response:
    return JSONResponse(spec())
