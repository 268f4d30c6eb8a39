"""The HTTP part of the protocol: thin handlers around the referee."""

from typing import Any, TypeVar

import segno
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from server.clock import iso, now_ms
from server.game.referee import Referee
from server.game.replay import PUBLIC
from server.game.table import Table
from server.log import archive
from server.rules import RULESETS
from server.rules.core import Json, Member, RuleError
from server.rules.roster import AddPlayer, AddPlayers
from server.rules.validation import invalid
from server.store.models import MAX_SEQ
from server.web.forwarded import HOST
from server.web.limits import Limits
from server.web.origin import route
from server.web.wire import bearer, command_id, parse_command, query_number, read_json

M = TypeVar("M", bound=BaseModel)


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    ruleset: str
    name: str = Field(min_length=1, max_length=80, pattern=r"\S")
    config: dict[str, Any] = Field(default_factory=dict)


def referee(request: Request) -> Referee:
    ref: Referee = request.app.state.referee
    return ref


def validated(model: type[M], body: dict[str, Any]) -> M:
    try:
        return model.model_validate(body)
    except ValidationError as error:
        raise invalid(error) from None


def limits(request: Request) -> Limits:
    found: Limits = request.app.state.limits
    return found


def address(request: Request) -> str:
    """The phone's address (a trusted proxy's X-Forwarded-For: see server/web/forwarded.py)."""
    return request.client.host if request.client else "unknown"


async def seat(request: Request, *roles: str) -> tuple[Table, Member]:
    table, member = await limits(request).authenticate(
        address(request),
        lambda: referee(request).seat(request.path_params["gid"], bearer(request)),
    )
    if roles and member.role not in roles:
        raise RuleError("forbidden", f"only {' or '.join(roles)} may do this")
    return table, member


def member_key(table: Table, member: Member) -> str:
    return f"{table.game_id}/{member.player_id}"


def join_origin(request: Request) -> str:
    """Where join links point: --public-url, else the scheme and host this request came to (a
    trusted proxy's forwarded ones: see server/web/forwarded.py)."""
    public: str | None = request.app.state.public_url
    if public:
        return public
    host = request.headers.get("host")
    if host is not None and not HOST.match(host):  # nothing that could smuggle a path in
        raise RuleError("invalid", "Host: a host name or address and an optional port")
    return str(request.base_url).rstrip("/")


def join_url(origin: str, game_id: str, token: str) -> str:
    return f"{origin}/#/join/{game_id}/{token}"


def qr_svg(text: str) -> str:
    """A QR code of `text` as an inline `<svg>`: error correction M, 4 px a module."""
    svg: str = segno.make(text, error="m").svg_inline(scale=4)
    return svg


async def join_origin_route(request: Request) -> Response:
    """The origin of the join links this console's invites get, the route they take to the
    phones, and the field CA page phones open first: the console says it and warns by it."""
    origin = join_origin(request)
    ca_page: str | None = request.app.state.field_ca_page
    return JSONResponse(
        {"join_origin": origin, "route": route(origin, ca_page), "ca_page": ca_page}
    )


async def healthz(request: Request) -> Response:
    """Alive, and whether the store takes writes: 503 from a failed write until one succeeds,
    this worker's or, under a door, another's (they share the store)."""
    worker = request.app.state.worker
    failures = referee(request).scribe.failures
    body: dict[str, Any] = {"ok": True}
    if failures.failing is not None:
        failing = {"cause": failures.failing, "since": failures.since, "refused": failures.refused}
        body.update(ok=False, store="failing", **failing)
    elif failures.board is not None and (other := failures.board.elsewhere()) is not None:
        by, failing = other
        body.update(ok=False, store="failing", **failing, by=by)
    if worker is not None:
        body["worker"] = worker
    return JSONResponse(body, status_code=200 if body["ok"] else 503)


async def rulesets(request: Request) -> Response:
    return JSONResponse(
        [
            {"id": r.id, "title": r.title, "config_schema": r.config.model_json_schema()}
            for r in RULESETS.values()
        ]
    )


async def admit_creator(request: Request) -> None:
    admin = request.app.state.admin_token
    if admin and bearer(request) != admin:
        raise RuleError("unauthorized", "this server creates games for its admin token only")
    if not admin and not request.app.state.open_creation:
        raise RuleError(
            "unauthorized", "game creation is closed on this server (it needs an --admin-token)"
        )


async def create_game(request: Request) -> Response:
    await limits(request).authenticate(address(request), lambda: admit_creator(request))
    limits(request).take("create_game", address(request), "new games from this address")
    body = validated(NewGame, await read_json(request))
    game_id, token = await referee(request).create_game(body.ruleset, body.name, body.config)
    return JSONResponse({"game_id": game_id, "organizer_token": token}, status_code=201)


async def add_player(request: Request) -> Response:
    """Adds a member, or with `{"players": [...]}` many at once (all or none); an optional
    `command_id` makes a retried request return the same ones."""
    table, organizer = await seat(request, "organizer")
    limits(request).take("add_players", member_key(table, organizer), "additions of players")
    origin = join_origin(request)  # a Host that makes no link is refused before anybody joins
    body = await read_json(request)
    cid = command_id(body) if "command_id" in body else None
    many = "players" in body
    command = validated(AddPlayers, body) if many else validated(AddPlayer, body)
    ref = referee(request)
    answer = await ref.execute(table.game_id, organizer, cid, command)
    if answer.duplicate:
        wanted = command.players if isinstance(command, AddPlayers) else [command]
        joined, issued = await rejoined(ref, table.game_id, cid, answer.seq, wanted)
    else:
        joined = [event.data for event in answer.events if event.type == "player_joined"]
        issued = answer.tokens
    added = [
        {
            "player_id": data["player_id"],
            "token": token,
            "code": data["code"],
            "join_url": join_url(origin, table.game_id, token),
            "name": data["name"],
            "role": data["role"],
            "team": data["team"],
        }
        for data, token in zip(joined, issued, strict=True)
    ]
    return JSONResponse({"players": added} if many else added[0], status_code=201)


async def rejoined(
    ref: Referee, game_id: str, cid: str | None, seq: int, wanted: list[AddPlayer]
) -> tuple[list[Json], list[str]]:
    """The members a retried add joined, and their tokens, read back from the log. The command
    the id names must have been this same add: its last events are these members, in order
    (each member's joining is one event); any other command's id is refused."""
    recorded = await ref.store.events(game_id, seq - len(wanted), limit=len(wanted))
    joined = [event.data for event in recorded if event.type == "player_joined"]
    asked = [(one.name.strip(), one.role, one.team) for one in wanted]
    if [(data["name"], data["role"], data["team"]) for data in joined] != asked:
        raise RuleError("command_id_reused", f"command_id {cid!r} belongs to another command")
    tokens = await ref.store.tokens(game_id)
    return joined, [tokens[data["player_id"]] for data in joined]


async def players(request: Request) -> Response:
    """One path, two methods: the directory (GET) and adding members (POST)."""
    return await (directory if request.method in ("GET", "HEAD") else add_player)(request)


async def directory(request: Request) -> Response:
    """The game's members, for any of its tokens: what views no longer carry. Members only
    join, so their number is the directory's version (and a code's answer never changes),
    with the ruleset's tag of what it adds (a card duel's keys).

    A code proves a touch (a player reads it off the other's phone), so it goes to its owner
    and to the organizers only: anybody else gets names, roles and teams, and may not look a
    member up by code (answering that would let a phone try codes until one answers)."""
    table, viewer = await seat(request)
    members = table.committed_state.roster.members
    sees_codes = viewer.role == "organizer"
    code = request.query_params.get("code")
    if code is not None and not sees_codes:
        raise RuleError("forbidden", "only an organizer looks a member up by code")
    if code is None:
        listed = list(members.values())
    else:
        found = table.committed_state.roster.find(code)
        listed = [] if found is None or found.player_id == code else [found]
    # The tag names what was asked by the member found, not by the code as typed: a header
    # holds latin-1 only, and the query may hold anything. A non-organizer's answer holds its
    # own code: its tag is its own.
    asked = "" if code is None else "-" + (listed[0].player_id if listed else "none")
    reader = "" if sees_codes else f"-{viewer.player_id}"
    added, extra = table.ruleset.directory(table.committed_state)
    etag = f'"{table.game_id}-{len(members)}{added}{asked}{reader}"'
    headers = {"ETag": etag, "Cache-Control": "private, no-cache"}
    if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers=headers)
    players = {
        m.player_id: {"name": m.name, "role": m.role, "team_id": m.team}
        | ({"code": m.code} if sees_codes or m.player_id == viewer.player_id else {})
        | extra.get(m.player_id, {})
        for m in listed
    }
    return JSONResponse({"players": players}, headers=headers)


async def view(request: Request) -> Response:
    table, member = await seat(request)
    now = now_ms()
    shown = table.ruleset.view(table.committed_state, member, now)
    return JSONResponse({"seq": table.committed_seq, "server_time": iso(now), "view": shown})


async def command(request: Request) -> Response:
    table, member = await seat(request)
    key = member_key(table, member)
    limits(request).command(key, address(request))
    body = await read_json(request)
    command_id, parsed = parse_command(table.ruleset, body)
    await limits(request).costly(table, key, body["type"], command_id)
    answer = await referee(request).execute(table.game_id, member, command_id, parsed)
    return JSONResponse({"seq": answer.seq, "duplicate": answer.duplicate})


async def after_the_game(request: Request, what: str) -> tuple[Table, Member]:
    """The log and the replay hold every secret: the organizer's, and everybody's once ended."""
    table, member = await seat(request)
    if member.role != "organizer" and table.committed_state.roster.status != "ended":
        raise RuleError("forbidden", f"the {what} opens to everybody when the game ends")
    return table, member


async def events(request: Request) -> Response:
    table, _ = await after_the_game(request, "log")
    after = query_number(request, "after", 0)
    limit = query_number(request, "limit", MAX_SEQ, 1)
    pages = await archive.opened(referee(request).store, table.game_id, after, limit)
    if "application/x-ndjson" in request.headers.get("accept", ""):
        return StreamingResponse(archive.ndjson(pages), media_type="application/x-ndjson")
    return StreamingResponse(archive.document(pages, limit), media_type="application/json")


async def replay(request: Request) -> Response:
    """A view at any seq, as any member (or `public`) saw it then: organizer; everybody once the
    game has ended, like the log."""
    table, member = await after_the_game(request, "replay")
    seq = query_number(request, "seq", table.committed_seq, 1)
    if seq > table.committed_seq:
        raise RuleError("not_found", f"no event {seq}: the log ends at {table.committed_seq}")
    who = request.query_params.get("viewer", member.player_id)
    members = table.committed_state.roster.members
    if who != "public" and who not in members:
        raise RuleError("not_found", f"no member {who}")
    viewer = PUBLIC if who == "public" else members[who]
    film = await request.app.state.projector.film(table.game_id, table.ruleset, table.committed_seq)
    return JSONResponse(
        {"seq": seq, "at": iso(film.log[seq - 1].at), "viewer": who, "view": film.view(seq, viewer)}
    )


async def invites(request: Request) -> Response:
    table, _ = await seat(request, "organizer")
    origin = join_origin(request)
    tokens = await referee(request).store.tokens(table.game_id)
    result = []
    # The sheet is handed round: an organizer's token on it would let anyone run the game.
    players = (m for m in table.committed_state.roster.members.values() if m.role != "organizer")
    for member in players:
        if member.player_id not in tokens:
            continue  # an imported game's: `bijse import` gives the organizer a token alone
        url = join_url(origin, table.game_id, tokens[member.player_id])
        result.append(
            {
                "player_id": member.player_id,
                "name": member.name,
                "role": member.role,
                "team": member.team,
                "code": member.code,
                "join_url": url,
                "qr_svg": qr_svg(url),
            }
        )
    # On the field's own CA, the sheet starts with its page: phones trust the CA first.
    ca_page: str | None = request.app.state.field_ca_page
    page = {"url": ca_page, "qr_svg": qr_svg(ca_page)} if ca_page else None
    return JSONResponse({"invites": result, "ca_page": page})
