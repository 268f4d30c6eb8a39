"""An OpenAPI 3.1 description of the HTTP part, built from the same models that validate.

It is meant to be exact enough for a contract checker: every parameter, every answer each route
really gives (statuses, media types, headers), and schemas that resolve. tests/test_schema_fuzz.py
holds the server to it with schemathesis.
"""

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.rules import RULESETS
from server.rules.core import Json
from server.rules.roster import AddPlayer, AddPlayers
from server.store.models import MAX_SEQ
from server.web.api import NewGame
from server.web.wire import CONTROLS, MAX_DEPTH

REF = "#/components/schemas/{model}"
TIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"}
HASH = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
SEQ = {"type": "integer", "minimum": 1, "maximum": MAX_SEQ}
COMMAND_ID = {"type": "string", "minLength": 1, "maxLength": 64}
NULLABLE_STRING = {"type": ["string", "null"]}
TOKEN = {"type": "string", "pattern": "^[A-Za-z0-9_-]{32}$"}
QR_SVG = {"type": "string", "pattern": "^<svg"}


def shape(required: dict[str, Any], optional: dict[str, Any] | None = None) -> Json:
    """An object with exactly these keys (the optional ones may be missing)."""
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }


def ref(name: str) -> Json:
    return {"$ref": REF.format(model=name)}


MEMBER_ROLE = {"enum": ["organizer", "leader", "player", "spectator"]}
ADDED = shape(
    {
        "player_id": {"type": "string"},
        "token": TOKEN,
        "code": {"type": "string", "pattern": "^[ACDEFGHJKMNPQRTUVWXY34679]{4}$"},
        "join_url": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "role": MEMBER_ROLE,
        "team": NULLABLE_STRING,
    }
)
WORKER = {"worker": {"type": "integer", "minimum": 0}}  # which one answered, under --workers N
SHAPES: dict[str, Json] = {
    "Error": shape(
        {
            "error": shape(
                {
                    "code": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                    "message": {"type": "string", "minLength": 1},
                }
            )
        }
    ),
    "Health": shape({"ok": {"const": True}}, WORKER),
    "StoreFailing": shape(
        {
            "ok": {"const": False},
            "store": {"const": "failing"},
            "cause": {"type": "string"},
            "since": {"type": "string"},
            "refused": {"type": "integer", "minimum": 1},
        },
        {**WORKER, "by": {"type": "integer", "minimum": 0}},  # the worker whose write failed
    ),
    "JoinOrigin": shape(
        {
            "join_origin": {"type": "string", "pattern": "^https?://"},
            "route": {"enum": ["trusted", "field-ca", "loopback", "insecure"]},
            "ca_page": {"type": ["string", "null"], "pattern": "^https?://"},
        }
    ),
    "Rulesets": {
        "type": "array",
        "items": shape(
            {"id": {"type": "string"}, "title": {"type": "string"}, "config_schema": {}}
        ),
    },
    "Created": shape(
        {"game_id": {"type": "string", "pattern": "^[0-9a-f]{16}$"}, "organizer_token": TOKEN}
    ),
    "Added": ADDED,
    "AddedList": shape({"players": {"type": "array", "items": ADDED}}),
    "Directory": shape(
        {
            "players": {
                "type": "object",
                # A code: on an organizer's answer, and on the reader's own line; a card
                # duel's player's offline-duel public key once registered.
                "additionalProperties": shape(
                    {"name": {"type": "string"}, "role": MEMBER_ROLE, "team_id": NULLABLE_STRING},
                    {"code": {"type": "string"}, "key": {"type": "string"}},
                ),
            }
        }
    ),
    "View": shape({"seq": SEQ, "server_time": TIME, "view": {"type": "object"}}),
    "Accepted": shape({"seq": SEQ, "duplicate": {"type": "boolean"}}),
    "LogLine": shape(
        {
            "game_id": {"type": "string"},
            "seq": SEQ,
            "type": {"type": "string"},
            "at": TIME,
            "actor": NULLABLE_STRING,
            "data": {"type": "object"},
            "prev_hash": HASH,
            "hash": HASH,
        },
        # The event's version, written only above 1 (docs/protocol.md, "The exported log").
        {"version": {"type": "integer", "minimum": 2}},
    ),
    "Log": shape(
        {
            "events": {"type": "array", "items": ref("LogLine")},
            "next": {"type": ["integer", "null"], "minimum": 1},
        }
    ),
    "Replay": shape(
        {"seq": SEQ, "at": TIME, "viewer": {"type": "string"}, "view": {"type": "object"}}
    ),
    "Invites": shape(
        {
            "invites": {
                "type": "array",
                "items": shape(
                    {
                        "player_id": {"type": "string"},
                        "name": {"type": "string"},
                        "role": MEMBER_ROLE,
                        "team": NULLABLE_STRING,
                        "code": {"type": "string"},
                        "join_url": {"type": "string"},
                        "qr_svg": QR_SVG,
                    }
                ),
            },
            # The field CA's page, which phones open first (`bijse serve --field-ca-page`).
            "ca_page": {
                "anyOf": [
                    {"type": "null"},
                    shape({"url": {"type": "string", "pattern": "^https?://"}, "qr_svg": QR_SVG}),
                ]
            },
        }
    ),
}

ERRORS = {
    "401": "no token, or an unknown one",
    "403": "another game's token, or beyond the token's role",
    "404": "an unknown id named in the body or the query",
    "409": "refused by the rules in the game's current state",
    "413": "a body over 64 KiB",
    "422": "not JSON, nested too deep or a control character in a string; a field, a query"
    " parameter or the Host header is wrong",
    "429": "too many requests: retry after `Retry-After` seconds",
    "503": "the game could not be saved: retry with the same command_id",
}
RETRY_AFTER = {"Retry-After": {"required": True, "schema": {"type": "string"}}}


def answer(description: str, schema: Json, headers: Json | None = None) -> Json:
    result: Json = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        result["headers"] = headers
    return result


def failing(*statuses: str) -> dict[str, Json]:
    """The error answers a route gives: always the one error shape. 429 is on every route:
    rate limits may answer it anywhere."""
    return {
        status: answer(ERRORS[status], ref("Error"), RETRY_AFTER if status == "429" else None)
        for status in sorted({*statuses, "429"})
    }


def query(name: str, schema: Json, description: str) -> Json:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


GID = {
    "name": "gid",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
    "description": "the game's id",
}


# uvicorn answers a request that is not valid HTTP (a `Content-Length` that is not a number, a
# header name with a space) itself, in plain text, before the API sees it.
MALFORMED = {
    "description": "not a valid HTTP request (answered by the HTTP server, in plain text)",
    "content": {"text/plain": {"schema": {"type": "string"}}},
}


# What the server refuses in any string of a body (docs/protocol.md, "Limits"): C0 and C1 control
# characters and DEL (`\xNN` escapes mean the same in ECMA-262, the dialect of JSON Schema, whose
# `$` is the very end of the string).
NO_CONTROLS = f"^[^{CONTROLS}]*$"
BODY = (
    f"A JSON object nested at most {MAX_DEPTH} levels deep (arrays and objects), with no control"
    " character (U+0000-U+001F, U+007F-U+009F) in any string; else 422 `invalid`."
)
MAPS = ("properties", "$defs", "patternProperties")  # names to schemas, not schemas


def plain(schema: Any) -> Any:
    """A request's schema, every string in it stating that it holds no control character: a
    pattern of its own, or beside the one it has already."""
    if isinstance(schema, list):
        return [plain(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {
        key: {name: plain(value) for name, value in item.items()} if key in MAPS else plain(item)
        for key, item in schema.items()
    }
    texts = result.get("type") == "string" and "enum" not in result and "const" not in result
    if texts and "pattern" in result:
        result["allOf"] = [*result.get("allOf", []), {"pattern": NO_CONTROLS}]
    elif texts:
        result["pattern"] = NO_CONTROLS
    return result


def operation(
    summary: str,
    responses: dict[str, Json],
    request: Json | None = None,
    parameters: list[Json] | None = None,
    auth: bool = True,
) -> Json:
    result: Json = {"summary": summary, "responses": {**responses, "400": MALFORMED}}
    if parameters:
        result["parameters"] = parameters
    if request is not None:
        result["requestBody"] = {
            "required": True,
            "description": BODY,
            "content": {"application/json": {"schema": plain(request)}},
        }
    if auth:
        result["security"] = [{"bearer": []}]
    return result


def game_route(summary: str, responses: dict[str, Json], **options: Any) -> Json:
    """An operation on one game: its id in the path, a token of that game."""
    return operation(summary, {**responses, **failing("401", "403")}, **options)


def definitions() -> tuple[dict[Any, Json], Json]:
    """Every model's JSON schema, its nested models as components rather than `$defs` inside
    it (pydantic names same-named models apart)."""
    models: list[type[BaseModel]] = [AddPlayer, AddPlayers]
    for ruleset in RULESETS.values():
        models += [ruleset.config, *ruleset.commands.values()]
    refs, top = models_json_schema([(m, "validation") for m in models], ref_template=REF)
    return {model: refs[(model, "validation")] for model in models}, top.get("$defs", {})


def component(refs: dict[Any, Json], defs: Json, model: type[BaseModel]) -> Json:
    """A copy of a model's own schema (not a reference to it), to add keys to."""
    name = refs[model]["$ref"].rpartition("/")[2]
    schema: Json = dict(defs[name])
    schema["properties"] = dict(schema.get("properties", {}))
    return schema


def new_game(refs: dict[Any, Json]) -> Json:
    """A game of each ruleset, with that ruleset's config."""
    fields = NewGame.model_json_schema()["properties"]
    return {
        "anyOf": [
            {
                "title": ruleset.id,
                **shape(
                    {"ruleset": {"const": ruleset.id}, "name": fields["name"]},
                    {"config": refs[ruleset.config]},
                ),
            }
            for ruleset in RULESETS.values()
        ]
    }


def members(refs: dict[Any, Json], defs: Json) -> Json:
    """One member or a list of them, with the optional `command_id` that makes a retry safe."""
    one = component(refs, defs, AddPlayer)
    many = component(refs, defs, AddPlayers)
    for schema in (one, many):
        schema["properties"]["command_id"] = COMMAND_ID
    return {"anyOf": [one, many]}


def commands(refs: dict[Any, Json], defs: Json) -> Json:
    """Every ruleset's commands. Which of them a game takes is its ruleset's: a body valid here
    may still be `invalid` for a game of another ruleset. (anyOf, not oneOf: `start_game` is
    the same command in every ruleset.)"""
    variants = []
    for ruleset in RULESETS.values():
        for name, model in ruleset.commands.items():
            schema = component(refs, defs, model)
            schema["properties"] = {
                "command_id": COMMAND_ID,
                "type": {"const": name},
                **schema["properties"],
            }
            schema["required"] = ["command_id", "type", *schema.get("required", [])]
            schema["title"] = f"{ruleset.id}: {name}"
            variants.append(schema)
    return {"anyOf": variants}


@cache
def spec(admin: bool, open_creation: bool) -> Json:
    """The document, as the server is set: with an admin token, creating a game takes it;
    without one, creation is open to anyone or closed to everybody (401)."""
    refs, defs = definitions()
    json_or_ndjson = {
        "application/json": {"schema": ref("Log")},
        "application/x-ndjson": {"schema": {"type": "string"}},
    }
    etag = {
        "ETag": {"required": True, "schema": {"type": "string", "pattern": '^"[^"]*"$'}},
        "Cache-Control": {"required": True, "schema": {"const": "private, no-cache"}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Bij se", "version": "1", "description": "See docs/protocol.md."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {**plain(defs), **SHAPES},
        },
        "paths": {
            "/healthz": {
                "get": operation(
                    "Liveness, and whether the store takes writes",
                    {
                        "200": answer("ok", ref("Health")),
                        "503": answer("the last write failed", ref("StoreFailing")),
                    },
                    auth=False,
                )
            },
            "/api/openapi.json": {
                "get": operation(
                    "This document", {"200": answer("OpenAPI 3.1", {"type": "object"})}, auth=False
                )
            },
            "/api/rulesets": {
                "get": operation(
                    "The rulesets and their config schemas",
                    {"200": answer("rulesets", ref("Rulesets"))},
                    auth=False,
                )
            },
            "/api/join-origin": {
                "get": operation(
                    "The origin of the join links this request's invites get",
                    {"200": answer("join origin", ref("JoinOrigin")), **failing("422")},
                    auth=False,
                )
            },
            "/api/games": {
                "post": operation(
                    "Create a game; answers the organizer's token",
                    {
                        "201": answer("created", ref("Created")),
                        **failing(
                            "413", "422", "503", *(["401"] if admin or not open_creation else [])
                        ),
                    },
                    new_game(refs),
                    auth=admin,
                )
            },
            "/api/games/{gid}/players": {
                "parameters": [GID],
                "get": game_route(
                    "The game's directory of members (any token of the game)",
                    {
                        "200": answer("directory", ref("Directory"), etag),
                        "304": {
                            "description": "the tag in If-None-Match is current",
                            "headers": etag,
                        },
                    },
                    parameters=[
                        query(
                            "code", {"type": "string"}, "only the member with this code (organizer)"
                        ),
                        {
                            "name": "If-None-Match",
                            "in": "header",
                            "required": False,
                            "schema": {"type": "string"},
                        },
                    ],
                ),
                "post": game_route(
                    "Add a member, or a list of members (organizer)",
                    {
                        "201": {
                            "description": "added",
                            "content": {
                                "application/json": {
                                    "schema": {"anyOf": [ref("Added"), ref("AddedList")]}
                                }
                            },
                        },
                        **failing("404", "409", "413", "422", "503"),
                    },
                    request=members(refs, defs),
                ),
            },
            "/api/games/{gid}/view": {
                "parameters": [GID],
                "get": game_route("This token's view", {"200": answer("view", ref("View"))}),
            },
            "/api/games/{gid}/commands": {
                "parameters": [GID],
                "post": game_route(
                    "Send a command",
                    {
                        "200": answer("written, or a retry of a written one", ref("Accepted")),
                        **failing("404", "409", "413", "422", "503"),
                    },
                    request=commands(refs, defs),
                ),
            },
            "/api/games/{gid}/events": {
                "parameters": [GID],
                "get": game_route(
                    "The log after `after`, at most `limit` events (organizer; everybody once"
                    " the game has ended); NDJSON by Accept",
                    {
                        "200": {"description": "the log", "content": json_or_ndjson},
                        **failing("422"),
                    },
                    parameters=[
                        query(
                            "after",
                            {"type": "integer", "minimum": 0, "maximum": MAX_SEQ},
                            "the last seq held",
                        ),
                        query(
                            "limit",
                            {"type": "integer", "minimum": 1, "maximum": MAX_SEQ},
                            "at most this many events",
                        ),
                    ],
                ),
            },
            "/api/games/{gid}/replay": {
                "parameters": [GID],
                "get": game_route(
                    "A member's view (or `public`) right after event `seq` (organizer;"
                    " everybody once the game has ended)",
                    {"200": answer("the view then", ref("Replay")), **failing("404", "422")},
                    parameters=[
                        query("seq", SEQ, "the event (default: the last); past the log: 404"),
                        query("viewer", {"type": "string"}, "a player_id, or `public`"),
                    ],
                ),
            },
            "/api/games/{gid}/invites": {
                "parameters": [GID],
                "get": game_route(
                    "Join URLs and QR codes of every member but the organizers (organizer)",
                    {"200": answer("invites", ref("Invites")), **failing("422")},
                ),
            },
        },
    }


async def openapi(request: Request) -> Response:
    state = request.app.state
    return JSONResponse(spec(bool(state.admin_token), bool(state.open_creation)))
