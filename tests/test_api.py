"""The HTTP protocol against a real uvicorn: answers, and a clear 4xx for every bad input."""

import asyncio
import gc
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import orjson
import pytest
from starlette.routing import Mount

from server.clock import iso, now_ms
from server.game.shares import worker_of
from server.store import Append, Store
from server.web.api import qr_svg
from server.web.app import create_app
from tests import proxy
from tests.client import Game
from tests.conftest import free_port, serve
from tests.lines import Line


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


@pytest.fixture
async def game(http: httpx.AsyncClient) -> Game:
    return await Game.create(http)


def error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["code"] == code
    assert body["message"]
    message: str = body["message"]
    return message


async def test_health_rulesets_and_openapi(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).json() == {"ok": True}
    rulesets = (await http.get("/api/rulesets")).json()
    card_duel = next(r for r in rulesets if r["id"] == "card-duel")
    assert card_duel["config_schema"]["properties"]["stun_s"]["default"] == 300
    spec = (await http.get("/api/openapi.json")).json()
    assert spec["openapi"].startswith("3.")
    for path in (
        "/api/games",
        "/api/games/{gid}/players",
        "/api/games/{gid}/commands",
        "/api/games/{gid}/view",
        "/api/games/{gid}/events",
        "/api/games/{gid}/invites",
    ):
        assert path in spec["paths"]
    titles = {
        v["title"]
        for v in spec["paths"]["/api/games/{gid}/commands"]["post"]["requestBody"]["content"][
            "application/json"
        ]["schema"]["anyOf"]
    }
    assert {"card-duel: challenge", "card-duel: pick", "card-duel: start_game"} <= titles


def refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


async def test_the_openapi_document_resolves_and_declares_what_is_served(
    http: httpx.AsyncClient,
) -> None:
    spec = (await http.get("/api/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    for target in refs(spec):
        assert target.startswith("#/components/schemas/") and target.split("/")[-1] in schemas
    assert "$defs" not in str(spec)
    app = create_app("sqlite:///never-opened.db", pwa=Path("/nonexistent"))
    api = next(route for route in app.routes if isinstance(route, Mount))
    served = {"/healthz", *(api.path + route.path for route in api.routes)}  # type: ignore[attr-defined]
    assert served == set(spec["paths"])
    for path, item in spec["paths"].items():
        declared = {p["name"] for p in item.get("parameters", []) if p["in"] == "path"}
        assert declared == set(re.findall(r"{(\w+)}", path)), path
    directory = spec["paths"]["/api/games/{gid}/players"]["get"]
    assert {"200", "304", "401", "403"} <= set(directory["responses"])
    assert {p["name"] for p in directory["parameters"]} == {"code", "If-None-Match"}
    events = spec["paths"]["/api/games/{gid}/events"]["get"]
    assert {p["name"] for p in events["parameters"]} == {"after", "limit"}
    rulesets = spec["paths"]["/api/rulesets"]["get"]["responses"]["200"]["content"]
    assert schemas[rulesets["application/json"]["schema"]["$ref"].split("/")[-1]]["type"] == (
        "array"
    )


async def test_create_game_then_players_with_codes(http: httpx.AsyncClient, game: Game) -> None:
    anna = await game.add("Anna")
    assert len(anna["code"]) == 4 and not set(anna["code"]) & set("0O1I")
    assert anna["join_url"].endswith(f"/#/join/{game.game_id}/{anna['token']}")
    view = await game.view(anna["token"])
    assert view["view"]["me"]["player_id"] == anna["player_id"]
    assert [c["title"] for c in view["view"]["me"]["cards"]] == [
        "Rána židlí",
        "Rána Ankh-Morporskou dýkou",
        "Ztracení se v davu",
    ]
    assert view["server_time"].endswith("Z") and len(view["server_time"]) == 24
    organizer = (await game.view(game.organizer))["view"]
    assert organizer["me"]["role"] == "organizer"
    assert organizer["members"][anna["player_id"]]["name"] == "Anna"


async def test_a_retried_add_player_returns_the_same_player(game: Game) -> None:
    url = f"/api/games/{game.game_id}/players"
    body = {"name": "Dora", "command_id": "add-dora"}
    first = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    again = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    names = [m["name"] for m in (await game.view(game.organizer))["view"]["members"].values()]
    assert names.count("Dora") == 1
    bad = await game.http.post(
        url, json={"name": "Eva", "command_id": 7}, headers=game.auth(game.organizer)
    )
    error(bad, 422, "invalid")


async def test_a_list_of_players_joins_in_one_request(game: Game) -> None:
    url = f"/api/games/{game.game_id}/players"
    names = [f"Hráč {n}" for n in range(200)]
    body = {"players": [{"name": name} for name in names], "command_id": "the-list"}
    first = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    assert first.status_code == 201, first.text
    added = first.json()["players"]
    assert [p["name"] for p in added] == names
    assert len({p["token"] for p in added}) == len({p["code"] for p in added}) == 200
    view = await game.view(added[-1]["token"])
    assert view["view"]["me"]["player_id"] == added[-1]["player_id"]
    assert len(view["view"]["me"]["cards"]) == 3
    # A retried list answers the same players and adds nobody twice.
    again = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    assert again.status_code == 201 and again.json() == first.json()
    members = (await game.view(game.organizer))["view"]["members"]
    assert sum(m["role"] == "player" for m in members.values()) == 200
    # All or none: one bad entry refuses the whole list.
    bad = {"players": [{"name": "Ok"}, {"name": "Bad", "role": "king"}]}
    error(await game.http.post(url, json=bad, headers=game.auth(game.organizer)), 422, "invalid")
    for empty in ({"players": []}, {"players": [{"name": "x"}] * 501}, {"players": "Ok"}):
        answer = await game.http.post(url, json=empty, headers=game.auth(game.organizer))
        error(answer, 422, "invalid")
    assert len((await game.view(game.organizer))["view"]["members"]) == len(members)


async def test_invites_carry_join_urls_and_qr_codes(http: httpx.AsyncClient, game: Game) -> None:
    bob = await game.add("Bob")
    response = await http.get(
        f"/api/games/{game.game_id}/invites", headers=game.auth(game.organizer)
    )
    invites = response.json()["invites"]
    invite = next(i for i in invites if i["player_id"] == bob["player_id"])
    assert invite["join_url"] == bob["join_url"]
    assert invite["qr_svg"].startswith("<svg")
    # The sheet is handed round: no organizer's access on it.
    assert {i["role"] for i in invites} == {"player"}
    assert game.organizer not in response.text
    denied = await http.get(f"/api/games/{game.game_id}/invites", headers=game.auth(bob["token"]))
    error(denied, 403, "forbidden")


FIELD_CA_PAGE = "http://192.168.1.5/"


async def conforming(http: httpx.AsyncClient, answer: httpx.Response, schema: str) -> Any:
    """The answer's JSON, which its schema in the server's OpenAPI document holds."""
    assert answer.status_code == 200, answer.text
    document = (await http.get("/api/openapi.json")).json()
    body = answer.json()
    errors = jsonschema_rs.validator_for(document["components"]["schemas"][schema]).iter_errors
    assert not [str(e) for e in errors(body)], body
    return body


async def join_route(http: httpx.AsyncClient, **headers: str) -> dict[str, object]:
    found: dict[str, object] = await conforming(
        http, await http.get("/api/join-origin", headers=headers), "JoinOrigin"
    )
    return found


async def invites_ca_page(http: httpx.AsyncClient, game: Game) -> object:
    await game.add("Bob")
    answer = await http.get(f"/api/games/{game.game_id}/invites", headers=game.auth(game.organizer))
    body = await conforming(http, answer, "Invites")
    assert [i["name"] for i in body["invites"]] == ["Bob"]
    return body["ca_page"]


async def test_the_join_origin_names_the_route_and_a_server_without_a_ca_page_has_none(
    tmp_path: Path,
) -> None:
    port = free_port()
    server = await proxy.serve(port, f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "r.log")
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            origin = f"http://127.0.0.1:{port}"
            assert await join_route(http) == {
                "join_origin": origin,
                "route": "loopback",
                "ca_page": None,
            }
            for host in (f"localhost:{port}", "[::1]", "hra.localhost", "127.8.0.1"):
                assert (await join_route(http, Host=host))["route"] == "loopback", host
            assert await join_route(http, Host="192.168.1.5:8000") == {
                "join_origin": "http://192.168.1.5:8000",
                "route": "insecure",
                "ca_page": None,
            }
            # Through the proxy on this machine (trusted by default), over https to a name.
            proxied = {"X-Forwarded-Host": "hra.example.cz", "X-Forwarded-Proto": "https"}
            assert await join_route(http, **proxied) == {
                "join_origin": "https://hra.example.cz",
                "route": "trusted",
                "ca_page": None,
            }
            game = await Game.create(http)
            assert await invites_ca_page(http, game) is None
    finally:
        proxy.stop(server)


async def test_a_field_ca_page_reaches_every_worker_the_route_and_the_invites(
    tmp_path: Path,
) -> None:
    port = free_port()
    options = ("--workers", "2", "--field-ca-page", FIELD_CA_PAGE)
    server = await proxy.serve(port, f"sqlite:///{tmp_path / 'f.db'}", tmp_path / "f.log", *options)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            # The door hands each request (workers close their connections) that names no game
            # to the next worker in turn: two in a row reach both.
            workers = {(await http.get("/healthz")).json()["worker"] for _ in range(2)}
            assert workers == {0, 1}
            proxied = {"X-Forwarded-Host": "hra.example.cz", "X-Forwarded-Proto": "https"}
            for headers in ({}, {}, {"Host": "192.168.1.5"}, {"Host": "192.168.1.5"}, proxied):
                answer = await join_route(http, **headers)
                assert answer["route"] == "field-ca" and answer["ca_page"] == FIELD_CA_PAGE
            # A game is the worker's that created it (two creations in a row: one on each), and
            # its invites come from that worker: each sheet starts with the page.
            games = [await Game.create(http), await Game.create(http)]
            assert {worker_of(game.game_id.encode(), 2) for game in games} == {0, 1}
            page = {"url": FIELD_CA_PAGE, "qr_svg": qr_svg(FIELD_CA_PAGE)}
            for game in games:
                assert await invites_ca_page(http, game) == page
            assert page["qr_svg"].startswith("<svg")
    finally:
        proxy.stop(server)


@pytest.mark.parametrize(
    ("value", "env"),
    [
        ("ftp://192.168.1.5/", False),
        ("192.168.1.5", False),
        ("http://", False),
        ("http://user@192.168.1.5/", False),
        ("http://192.168.1.5 /", False),
        ("https://192.168.1.5:99999/", False),
        ("HTTP://192.168.1.5/", True),  # $BIJSE_FIELD_CA_PAGE is checked the same way
    ],
)
def test_a_bad_field_ca_page_is_one_line_and_exit_2(tmp_path: Path, value: str, env: bool) -> None:
    database = f"sqlite:///{tmp_path / 'x.db'}"
    options = ["--database-url", database, *([] if env else ["--field-ca-page", value])]
    done = subprocess.run(
        [sys.executable, "-m", "server.serve.cli", "serve", "--port", str(free_port()), *options],
        capture_output=True,
        text=True,
        cwd=proxy.ROOT,
        env={**os.environ, **({"BIJSE_FIELD_CA_PAGE": value} if env else {})},
        timeout=60,
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("bijse: --field-ca-page:") and done.stderr.count("\n") == 1
    assert repr(value) in done.stderr


async def test_a_retried_command_is_answered_not_repeated(game: Game) -> None:
    body = {"command_id": str(uuid.uuid4()), "type": "start_game"}
    url = f"/api/games/{game.game_id}/commands"
    first = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    again = await game.http.post(url, json=body, headers=game.auth(game.organizer))
    assert first.json() == {"seq": first.json()["seq"], "duplicate": False}
    assert again.json() == {"seq": first.json()["seq"], "duplicate": True}
    types = [e["type"] for e in await game.events()]
    assert types.count("game_started") == 1


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"type": "start_game"}, "command_id"),
        ({"command_id": "x", "type": "fly"}, "unknown command"),
        ({"command_id": "x", "type": "start_game", "extra": 1}, "extra: unknown field"),
        ({"command_id": "x", "type": "challenge", "target": 12}, "target"),
        ({"command_id": "x", "type": "challenge"}, "target"),
        ({"command_id": 5, "type": "start_game"}, "command_id"),
        (
            {
                "command_id": "x",
                "type": "grant_card",
                "player_id": "p3",
                "card": {"title": "A", "big": -1, "small": 1, "kind": "stun"},
            },
            "big",
        ),
        (
            {
                "command_id": "x",
                "type": "grant_card",
                "player_id": "p3",
                "card": {"title": "A", "big": 1, "small": 1, "kind": "tickle"},
            },
            "kind",
        ),
        ({"command_id": "x", "type": "challenge", "target": "ABCD", "ranged": "yes"}, "ranged"),
        ({"command_id": "x", "type": "challenge", "target": "ABCD", "card_id": 7}, "card_id"),
        ({"command_id": "x", "type": "challenge", "target": "ABCD", "card_id": ""}, "card_id"),
    ],
)
async def test_invalid_commands_are_422(game: Game, body: dict[str, object], fragment: str) -> None:
    response = await game.http.post(
        f"/api/games/{game.game_id}/commands", json=body, headers=game.auth(game.organizer)
    )
    assert fragment in error(response, 422, "invalid")


async def test_malformed_and_oversized_bodies(game: Game) -> None:
    url = f"/api/games/{game.game_id}/commands"
    headers = game.auth(game.organizer)
    error(await game.http.post(url, content=b"{not json", headers=headers), 422, "invalid")
    error(await game.http.post(url, content=b"[1, 2]", headers=headers), 422, "invalid")
    error(await game.http.post(url, content=b"", headers=headers), 422, "invalid")
    huge = orjson.dumps({"command_id": "x", "type": "start_game", "pad": "x" * 100_000})
    error(await game.http.post(url, content=huge, headers=headers), 413, "too_large")

    async def chunks():  # no Content-Length: the limit holds while streaming too
        for _ in range(100):
            yield b" " * 1024

    error(await game.http.post(url, content=chunks(), headers=headers), 413, "too_large")
    error(await game.http.post("/api/games", content=b"\xff\xfe"), 422, "invalid")
    error(
        await game.http.post("/api/games", json={"ruleset": "chess", "name": "x"}), 422, "invalid"
    )
    assert "stun_s" in error(
        await game.http.post(
            "/api/games", json={"ruleset": "card-duel", "name": "x", "config": {"stun_s": "5"}}
        ),
        422,
        "invalid",
    )


async def test_tokens_and_roles(http: httpx.AsyncClient, game: Game) -> None:
    anna = await game.add("Anna")
    other = await Game.create(http)
    url = f"/api/games/{game.game_id}/view"
    error(await http.get(url), 401, "unauthorized")
    error(await http.get(url, headers={"Authorization": "Bearer nope"}), 401, "unauthorized")
    error(await http.get(url, headers={"Authorization": "Basic abc"}), 401, "unauthorized")
    error(await http.get(url, headers=game.auth(other.organizer)), 403, "forbidden")
    error(
        await http.get("/api/games/nosuchgame/view", headers=game.auth(anna["token"])),
        403,
        "forbidden",
    )
    error(await game.command(anna["token"], "start_game"), 403, "forbidden")
    error(await game.command(game.organizer, "challenge", target=anna["code"]), 403, "forbidden")
    response = await http.post(
        f"/api/games/{game.game_id}/players", json={"name": "Eve"}, headers=game.auth(anna["token"])
    )
    error(response, 403, "forbidden")
    error(
        await http.post(
            f"/api/games/{game.game_id}/players",
            json={"name": ""},
            headers=game.auth(game.organizer),
        ),
        422,
        "invalid",
    )
    error(await http.get("/api/nothing"), 404, "not_found")


async def test_a_wrong_method_is_405_and_names_the_right_ones(http: httpx.AsyncClient) -> None:
    players = "/api/games/0123456789abcdef/players"
    for method, path, allowed in (
        ("DELETE", "/api/games", "POST"),
        ("GET", "/api/games", "POST"),  # not the PWA's 404: /api/ is the API's
        ("POST", "/healthz", "GET, HEAD"),
        ("PUT", players, "GET, HEAD, POST"),
        ("POST", "/api/games/0123456789abcdef/view", "GET, HEAD"),
    ):
        answer = await http.request(method, path)
        error(answer, 405, "method_not_allowed")
        assert set(answer.headers["allow"].split(", ")) == set(allowed.split(", ")), path
    for path in ("/api/rulesets/", "/api/games/", "/api/nothing/view"):
        error(await http.post(path), 404, "not_found")  # no redirect to a path without the slash


async def test_commands_out_of_turn_are_409(game: Game) -> None:
    anna, bob = await game.add("Anna"), await game.add("Bob")
    error(
        await game.command(anna["token"], "challenge", target=bob["code"]), 409, "game_not_running"
    )
    await game.ok(game.organizer, "start_game")
    error(await game.command(anna["token"], "pick", duel_id="d1", card_id="c1"), 404, "not_found")
    await game.ok(anna["token"], "challenge", target=bob["code"])
    error(await game.command(bob["token"], "challenge", target=anna["code"]), 409, "busy")
    error(await game.command(anna["token"], "challenge", target="ZZZZ"), 404, "not_found")


async def test_a_challenge_with_another_players_card_starts_no_duel(game: Game) -> None:
    """A cheater's challenge that picks the target's card (seen at a reveal) or a made-up one is
    refused whole; with a card of its own hand, the duel opens with it picked, unseen by the
    target."""
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    theirs = (await game.view(bob["token"]))["view"]["me"]["cards"][0]["card_id"]
    for card_id in (theirs, "c999.9"):
        answer = await game.command(anna["token"], "challenge", target=bob["code"], card_id=card_id)
        error(answer, 409, "not_your_card")
    assert (await game.view(bob["token"]))["view"].get("duel") is None
    mine = (await game.view(anna["token"]))["view"]["me"]["cards"][1]["card_id"]
    await game.ok(anna["token"], "challenge", target=bob["code"], card_id=mine)
    assert (await game.view(anna["token"]))["view"]["duel"]["my_pick"] == mine
    seen = (await game.view(bob["token"]))["view"]
    assert seen["duel"]["opponent_picked"] is True and mine not in str(seen)


async def test_the_log_opens_to_everybody_when_the_game_ends(game: Game) -> None:
    anna = await game.add("Anna")
    url = f"/api/games/{game.game_id}/events"
    error(await game.http.get(url, headers=game.auth(anna["token"])), 403, "forbidden")
    await game.ok(game.organizer, "start_game")
    await game.ok(game.organizer, "end_game")
    events = await game.events(anna["token"])
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    created, ended = events[0], events[-1]
    assert created["type"] == "game_created" and ended["type"] == "game_ended"
    import hashlib

    assert (
        hashlib.sha256(bytes.fromhex(ended["data"]["seed"])).hexdigest()
        == created["data"]["seed_sha256"]
    )
    later = await game.http.get(
        url,
        params={"after": 3},
        headers={**game.auth(anna["token"]), "Accept": "application/x-ndjson"},
    )
    lines = [orjson.loads(line) for line in later.text.splitlines()]
    assert later.headers["content-type"].startswith("application/x-ndjson")
    assert [line["seq"] for line in lines] == [e["seq"] for e in events if e["seq"] > 3]
    error(
        await game.http.get(url, params={"after": "x"}, headers=game.auth(anna["token"])),
        422,
        "invalid",
    )


async def test_the_seed_stays_secret_until_the_end(game: Game) -> None:
    anna = await game.add("Anna")
    await game.ok(game.organizer, "start_game")
    view = (await game.view(anna["token"]))["view"]
    assert view["game"]["seed"] is None
    events = await game.events()
    assert all("seed" not in e["data"] for e in events)


async def test_the_directory_names_every_member_and_revalidates(game: Game) -> None:
    anna = await game.add("Anna")
    await game.add("Bob", role="spectator")
    url = f"/api/games/{game.game_id}/players"
    first = await game.http.get(url, headers=game.auth(game.organizer))
    assert first.status_code == 200
    players = first.json()["players"]
    assert players[anna["player_id"]] == {
        "name": "Anna",
        "code": anna["code"],
        "role": "player",
        "team_id": None,
    }
    assert len(players) == 3 and "token" not in first.text  # the organizer, Anna and Bob
    etag = first.headers["etag"]
    same = await game.http.get(url, headers={**game.auth(game.organizer), "If-None-Match": etag})
    assert same.status_code == 304 and same.headers["etag"] == etag
    organizer = game.auth(game.organizer)
    one = await game.http.get(url, params={"code": anna["code"].lower()}, headers=organizer)
    assert list(one.json()["players"]) == [anna["player_id"]]
    none = await game.http.get(url, params={"code": "ZZZZ"}, headers=organizer)
    assert none.json() == {"players": {}}
    for odd in ("ł", "é", "\u2028", '"', anna["player_id"]):  # no code: never in a header as it is
        answer = await game.http.get(url, params={"code": odd}, headers=organizer)
        assert answer.status_code == 200 and answer.json() == {"players": {}}
        assert answer.headers["etag"].isascii() and answer.headers["etag"].count('"') == 2
    await game.add("Cyril")  # a new member: a new version
    fresh = await game.http.get(url, headers={**organizer, "If-None-Match": etag})
    assert fresh.status_code == 200 and len(fresh.json()["players"]) == 4
    error(await game.http.get(url), 401, "unauthorized")


async def test_a_players_code_goes_to_its_owner_and_the_organizer_only(game: Game) -> None:
    """The code proves a touch: no other token gets it, nor may look a member up by it."""
    anna, bob = await game.add("Anna"), await game.add("Bob")
    watcher = await game.add("Eve", role="spectator")
    url = f"/api/games/{game.game_id}/players"
    for member in (anna, bob, watcher):
        answer = await game.http.get(url, headers=game.auth(member["token"]))
        players = answer.json()["players"]
        assert len(players) == 4 and players[anna["player_id"]]["name"] == "Anna"
        codes = {pid: p.get("code") for pid, p in players.items()}
        assert codes == {
            pid: (member["code"] if pid == member["player_id"] else None) for pid in players
        }
        others = {m["code"] for m in (anna, bob, watcher) if m is not member}
        assert not any(code in answer.text for code in others)
        lookup = await game.http.get(
            url, params={"code": bob["code"]}, headers=game.auth(member["token"])
        )
        error(lookup, 403, "forbidden")
    # Each reader's answer has its own tag: one phone's copy is never another's.
    tags = set()
    for member in (anna, bob):
        tags.add((await game.http.get(url, headers=game.auth(member["token"]))).headers["etag"])
    assert len(tags) == 2


async def test_a_command_id_of_another_command_cannot_add_players(game: Game) -> None:
    url = f"/api/games/{game.game_id}/players"
    organizer = game.auth(game.organizer)
    body = {"command_id": "taken", "type": "start_game"}
    started = await game.http.post(
        f"/api/games/{game.game_id}/commands", json=body, headers=organizer
    )
    assert started.status_code == 200, started.text
    reused = await game.http.post(
        url, json={"name": "Ida", "command_id": "taken"}, headers=organizer
    )
    assert "taken" in error(reused, 409, "command_id_reused")
    # Another add's id: a different member, or a list where one was added, is not a retry.
    await game.http.post(url, json={"name": "Jan", "command_id": "jan"}, headers=organizer)
    other = await game.http.post(url, json={"name": "Kim", "command_id": "jan"}, headers=organizer)
    error(other, 409, "command_id_reused")
    listed = {"players": [{"name": "Jan"}, {"name": "Kim"}], "command_id": "jan"}
    error(await game.http.post(url, json=listed, headers=organizer), 409, "command_id_reused")
    again = await game.http.post(url, json={"name": "Jan", "command_id": "jan"}, headers=organizer)
    assert again.status_code == 201 and again.json()["name"] == "Jan"
    names = [m["name"] for m in (await game.view(game.organizer))["view"]["members"].values()]
    assert names.count("Jan") == 1 and "Ida" not in names and "Kim" not in names


@pytest.fixture
async def any_server(database_url: str) -> AsyncIterator[str]:
    """A real server on each database in turn."""
    async for url in serve(database_url):
        yield url


async def test_numbers_in_queries_are_ascii_digits_in_range(any_server: str) -> None:
    async with httpx.AsyncClient(base_url=any_server) as http:
        game = await Game.create(http)
        organizer = game.auth(game.organizer)
        events, replay = f"/api/games/{game.game_id}/events", f"/api/games/{game.game_id}/replay"
        for after in ("²", "\u0661", "-1", "1.0", " 1", "", str(2**31), str(2**63), "9" * 400):
            answer = await http.get(events, params={"after": after}, headers=organizer)
            assert "after" in error(answer, 422, "invalid")
        for seq in ("²", "0", str(2**31), str(2**63), "x"):
            answer = await http.get(replay, params={"seq": seq}, headers=organizer)
            assert "seq" in error(answer, 422, "invalid")
        beyond = await http.get(replay, params={"seq": 3}, headers=organizer)
        assert "3" in error(beyond, 404, "not_found")  # a seq the log does not hold yet
        past = await http.get(events, params={"after": 2**31 - 1}, headers=organizer)
        assert past.status_code == 200 and past.json()["events"] == []
        ok = await http.get(replay, params={"seq": "02"}, headers=organizer)
        assert ok.status_code == 200 and ok.json()["seq"] == 2


async def long_log(database_url: str, game: Game, length: int) -> None:
    """A long game's log, written to the store at once: 100 players joined, then stuns (cheap
    to fold: the server loads the game from its log on its first request)."""
    alphabet = "ACDEFGHJKMNPQRTUVWXY34679"
    card = {"title": "Rána Ankh-Morporskou dýkou", "big": 2, "small": 3, "kind": "wound"}
    events: list[Line] = []  # written as the version-1 lines of an older server
    for n in range(100):
        seq = 3 + n
        code = "".join(alphabet[n // len(alphabet) ** k % len(alphabet)] for k in range(4))
        cards = [{"card_id": f"c{seq}.{k}", **card, "ranged": False} for k in (2, 3, 4)]
        joined = {"player_id": f"p{seq}", "name": f"Hráč {n}", "role": "player", "team": None}
        events.append(Line("player_joined", {**joined, "code": code, "cards": cards}))
    for n in range(length - 102):
        until = iso(now_ms() + n)
        stun = {"duel_id": f"d{n}", "player_id": f"p{3 + n % 100}", "until": until}
        events.append(Line("player_stunned", stun))
    store = Store.open(database_url)
    try:
        await store.append([Append(game.game_id, 2, events, now_ms(), "p2")])
    finally:
        await store.close()


async def test_a_long_log_comes_in_pages_and_holds_nobody_up(
    database_url: str, any_server: str
) -> None:
    http = httpx.AsyncClient(base_url=any_server, timeout=30)
    game = await Game.create(http)
    await long_log(database_url, game, 10_000)
    url, organizer = f"/api/games/{game.game_id}/events", game.auth(game.organizer)
    await game.view(game.organizer)  # the game is loaded from its log first
    # What is timed is the server's export, not a full collection of this test session's
    # millions of objects (some 80 ms): they are set aside while it runs.
    gc.freeze()
    whole = asyncio.create_task(http.get(url, headers=organizer))
    slowest = 0.0
    while not whole.done():
        started = time.perf_counter()
        assert (await http.get("/healthz")).status_code == 200
        slowest = max(slowest, time.perf_counter() - started)
        await asyncio.sleep(0.005)  # a monitor's probes, not a loop that starves the readers
    gc.unfreeze()
    log = (await whole).json()["events"]
    assert [e["seq"] for e in log] == list(range(1, 10_001))
    assert slowest < 0.1, f"/healthz waited {slowest:.3f} s behind the export"
    pages, after = [], 0
    while after is not None:
        page = await http.get(url, params={"after": after, "limit": 4000}, headers=organizer)
        pages.extend(page.json()["events"])
        after = page.json()["next"]
    assert pages == log
    ndjson = {**organizer, "Accept": "application/x-ndjson"}
    lines = await http.get(url, params={"after": 9_000, "limit": 500}, headers=ndjson)
    assert [orjson.loads(line) for line in lines.text.splitlines()] == log[9_000:9_500]
    for limit in ("0", "-5", "x", str(2**31)):
        answer = await http.get(url, params={"limit": limit}, headers=organizer)
        assert "limit" in error(answer, 422, "invalid")
    await http.aclose()
